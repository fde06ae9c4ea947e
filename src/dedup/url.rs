//! URL normalization: the dedup key of a link, and redirect unwrapping.
//!
//! (Skeleton: the full normalization of DESIGN.md lands with the dedup issue.)

/// 64-bit fingerprint of a normalized URL key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UrlKey(pub u64);

/// Unwraps engine redirect links (DuckDuckGo `uddg=`, Google `/url?q=`, Bing
/// `u=a1<base64>`, Yahoo `RU=`, …) to the target they point at. The result is
/// what a user should click; anything that is not a known wrapper is returned
/// unchanged.
pub fn unwrap_redirect(link: &str) -> String {
    link.to_string()
}

/// The normalized form of `link` used only as a dedup key (never shown).
/// Returns `None` for strings that are not absolute http(s) URLs.
pub fn normalize(link: &str) -> Option<String> {
    Some(link.trim().to_ascii_lowercase())
}

/// The 64-bit fingerprint of `normalize(link)`; links that do not parse get a
/// fingerprint of their trimmed text so equal garbage still matches itself.
pub fn key(link: &str) -> UrlKey {
    let n = normalize(link).unwrap_or_else(|| link.trim().to_string());
    UrlKey(xxhash_rust::xxh3::xxh3_64(n.as_bytes()))
}
