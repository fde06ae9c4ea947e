//! Links already written the way the `url` crate writes them. Most links an
//! API answer gives are absolute `https://host/path?query` in plain ASCII,
//! and reading one with the crate costs thousands of instructions (its
//! host goes through IDNA, every byte of a long image link through a
//! percent-encode set): a quarter to a half of parsing such an answer
//! (docs/performance.md, "API answers"). [`as_written`] recognises, in one
//! pass of table lookups, the links the crate would give back byte for byte;
//! anything else — relative, non-ASCII, an IP address, a port, credentials,
//! dot segments, a byte the crate would escape — goes to the crate, which
//! stays the reference (`engines::reference::link_both`, compared on every
//! string of every saved answer in `tests/real_data/fast_paths.rs`).

/// What may follow the host of a link kept as written: its path, query and
/// fragment bytes. Printable ASCII but the bytes some part of the `url`
/// crate would percent-encode or rewrite (`"`, `'`, `<`, `>`, `\`, `^`,
/// `` ` ``, `{`, `|`, `}`); `?` and `#` are told apart by the scan.
const REST: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        t[b] = !matches!(
            b as u8,
            b'"' | b'\'' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
        );
        b += 1;
    }
    t
};

/// `raw` itself when the `url` crate would read it as an http(s) URL with
/// a host and write it back unchanged; `None` when that is not certain.
pub(crate) fn as_written(raw: &str) -> Option<&str> {
    let b = raw.as_bytes();
    let after_scheme = if b.starts_with(b"https://") {
        8
    } else if b.starts_with(b"http://") {
        7
    } else {
        return None;
    };
    // The host: lower-case letters, digits, dots and hyphens, up to the
    // path's slash (a link without a path gets one from the crate).
    let host_len = b[after_scheme..].iter().position(|&c| c == b'/')?;
    let host = &raw[after_scheme..after_scheme + host_len];
    if !plain_domain(host) {
        return None;
    }
    let mut seen_query = false;
    let mut seen_fragment = false;
    let rest = &b[after_scheme + host_len..];
    for (i, &c) in rest.iter().enumerate() {
        if !REST[c as usize] {
            return None;
        }
        match c {
            b'#' if seen_fragment => return None,
            b'#' => seen_fragment = true,
            b'?' if !seen_fragment => seen_query = true,
            // A dot segment (`/./`, `/../`, or escaped as `%2e`) in the
            // path is resolved by the crate: left to it, as is any path
            // segment starting with a dot.
            b'.' if !seen_query && !seen_fragment && rest[i - 1] == b'/' => return None,
            b'%' if !seen_query
                && !seen_fragment
                && rest.get(i + 1) == Some(&b'2')
                && matches!(rest.get(i + 2), Some(b'e' | b'E')) =>
            {
                return None;
            }
            _ => {}
        }
    }
    Some(raw)
}

/// A host the crate keeps as it is: dot-separated labels of lower-case
/// ASCII letters, digits and hyphens, none empty, none an IDNA `xn--`
/// label, the last not a number (the crate reads `10.0.0.1`, `0x7f.1`
/// and `2130706433` as IPv4 addresses and rewrites them).
fn plain_domain(host: &str) -> bool {
    if host.is_empty()
        || host.contains("xn--")
        || !host
            .bytes()
            .all(|c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-'))
    {
        return false;
    }
    let mut labels = host.split('.');
    if labels.clone().any(str::is_empty) {
        return false;
    }
    let last = labels.next_back().unwrap_or_default();
    !(last.bytes().all(|c| c.is_ascii_digit()) || last.starts_with("0x"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the crate makes of `raw`, when it is an http(s) URL with a host.
    fn by_the_crate(raw: &str) -> Option<String> {
        let u = url::Url::parse(raw).ok()?;
        (matches!(u.scheme(), "http" | "https") && u.host_str().is_some()).then(|| u.into())
    }

    #[test]
    fn common_links_are_kept_as_written_and_odd_ones_left_to_the_crate() {
        for kept in [
            "https://www.semanticscholar.org/paper/9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
            "http://arxiv.org/abs/2103.00001v2",
            "https://imgs.search.brave.com/Ab-Cd_9/rs:fit:500:0:0/g:ce/aHR0cHM6Ly93d3c.jpeg",
            "https://example.org/a/b?q=rust+lang&x=%E4%B8%AD#top",
            "https://example.org/",
            "https://a-b.example.co.uk/path;params/file.pdf?x=1?y=2#frag?x",
        ] {
            assert_eq!(as_written(kept), Some(kept), "{kept}");
            assert_eq!(by_the_crate(kept).as_deref(), Some(kept), "{kept}");
        }
        for odd in [
            "https://example.org",
            "HTTPS://example.org/",
            "https://Example.org/",
            "https://example.org:443/",
            "https://user@example.org/",
            "https://10.0.0.1/",
            "https://0x7f.1/",
            "https://example.123/",
            "https://xn--fiqs8s.example/",
            "https://例子.example/",
            "https://example.org/a/../b",
            "https://example.org/a/./b",
            "https://example.org/a/%2e%2E/b",
            "https://example.org/.well-known/x",
            "https://example.org/a b",
            "https://example.org/a\"b",
            "https://example.org/a'b",
            "https://example.org/a\\b",
            "https://example.org/a{b}",
            "https://example.org/#a#b",
            "https://example..org/",
            "https://.example.org/",
            "https://example.org./",
            "//example.org/",
            "/relative/path",
            "ftp://example.org/",
            "https:///path",
            "https://example.org/\u{e9}",
        ] {
            assert_eq!(as_written(odd), None, "{odd}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whatever it keeps, the crate writes back byte for byte.
        #[test]
        fn what_is_kept_the_crate_gives_back(
            scheme in "https?://",
            host in "[a-z0-9.\\-]{1,12}",
            rest in "[/?#%.2eEa-z0-9:;=&+@!$()*,~_\\-\\[\\]]{0,24}",
        ) {
            let raw = format!("{scheme}{host}/{rest}");
            if let Some(kept) = as_written(&raw) {
                let read = by_the_crate(&raw);
                prop_assert_eq!(read.as_deref(), Some(kept));
            }
        }

        /// The same over any printable ASCII after the host.
        #[test]
        fn any_printable_rest(host in "[a-z][a-z0-9\\-]{0,8}\\.[a-z]{2,4}", rest in "[ -~]{0,32}") {
            let raw = format!("https://{host}/{rest}");
            if let Some(kept) = as_written(&raw) {
                let read = by_the_crate(&raw);
                prop_assert_eq!(read.as_deref(), Some(kept));
            }
        }
    }
}
