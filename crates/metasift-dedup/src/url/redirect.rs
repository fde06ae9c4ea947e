//! Redirect unwrapping: an engine's click-tracking wrapper to its target.
//!
//! DuckDuckGo `/l/?uddg=`, Google `/url?q=`, Bing `/ck/a?…&u=a1<base64url>`,
//! Yahoo and AOL `…/RU=<url>/RK=…`, Baidu / Sogou / 360 `link?url=` when the
//! target is really in the link, Facebook `l.php?u=`, YouTube `redirect?q=`:
//! each is turned into the target exactly as the engine encoded it. That is
//! what a user clicks — nothing else is rewritten (normalization, for the
//! dedup key only, is the parent module's job). Wrappers can nest; at most
//! four levels are unwrapped.

use std::borrow::Cow;

use base64::Engine as _;
use percent_encoding::percent_decode_str;

use super::{find_byte, strip_prefix_ci};

/// Wrappers can nest (a Google link to a DuckDuckGo link …); more than this many
/// levels is not a real page.
const MAX_UNWRAP_DEPTH: usize = 4;

/// Unwraps engine redirect links (DuckDuckGo `uddg=`, Google `/url?q=`, Bing
/// `u=a1<base64>`, Yahoo `RU=`, …) to the target they point at. The result is
/// what a user should click; anything that is not a known wrapper is returned
/// unchanged.
pub fn unwrap_redirect(link: &str) -> String {
    unwrapped(link).into_owned()
}

/// Whether `link` is a redirect wrapper [`unwrap_redirect`] would unwrap;
/// allocates nothing.
pub fn is_redirect(link: &str) -> bool {
    unwrap_once(link).is_some()
}

/// Like [`unwrap_redirect`], but borrows when `link` is not a wrapper (the
/// common case), so callers on a hot path allocate nothing.
pub(crate) fn unwrapped(link: &str) -> Cow<'_, str> {
    match unwrap_once(link) {
        Some(target) => Cow::Owned(unwrap_more(target)),
        None => Cow::Borrowed(link),
    }
}

/// The rest of [`unwrapped`] once `link` has been unwrapped one level.
pub(super) fn unwrap_more(mut target: String) -> String {
    for _ in 1..MAX_UNWRAP_DEPTH {
        match unwrap_once(&target) {
            Some(next) => target = next,
            None => break,
        }
    }
    target
}

/// The coarse pieces of a link, enough to recognise a wrapper. `host` is empty
/// for a root-relative link (`/url?q=…` as Google's no-JS page writes it).
struct Pieces<'a> {
    host: &'a str,
    path: &'a str,
    query: &'a str,
}

fn split_pieces(link: &str) -> Option<Pieces<'_>> {
    let rest = if let Some(r) = strip_prefix_ci(link, "https://") {
        r
    } else if let Some(r) = strip_prefix_ci(link, "http://") {
        r
    } else if let Some(r) = link.strip_prefix("//") {
        r
    } else if link.starts_with('/') {
        return Some(split_path_query("", link));
    } else {
        return None;
    };
    let end = find_byte(rest, b"/?#");
    let authority = &rest[..end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match hostport.rfind(':') {
        Some(i) if !hostport.ends_with(']') => &hostport[..i],
        _ => hostport,
    };
    Some(split_path_query(host, &rest[end..]))
}

fn split_path_query<'a>(host: &'a str, rest: &'a str) -> Pieces<'a> {
    let rest = rest.split_once('#').map_or(rest, |(a, _)| a);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    Pieces { host, path, query }
}

pub(super) fn unwrap_once(link: &str) -> Option<String> {
    // Every wrapper names its target after a `=` (`q=`, `uddg=`, `u=`,
    // `/RU=`): one byte search turns away most links before they are split
    // into pieces (callgrind: ~970 instructions per ordinary link before).
    if !link.contains('=') {
        return None;
    }
    let p = split_pieces(link.trim())?;
    let host = p.host.trim_end_matches('.');
    // Dispatch on the path first: it rejects almost every ordinary link with
    // one length comparison. (`may_wrap` repeats this dispatch: keep the two
    // in step.)
    let target = match p.path {
        // Root-relative wrappers only make sense on the engine's own page.
        "/url" if host.is_empty() || is_google(host) => google_target(p.query),
        "/l/" | "/l" if host.is_empty() || host_is(host, "duckduckgo.com") => {
            param(p.query, "uddg")
        }
        "/ck/a" if host_is(host, "bing.com") => bing_target(p.query),
        "/link"
            if host_is(host, "baidu.com")
                || host_is(host, "sogou.com")
                || host_is(host, "so.com") =>
        {
            param(p.query, "url")
        }
        "/l.php" if host_is(host, "facebook.com") => param(p.query, "u"),
        "/redirect" if host_is(host, "youtube.com") => param(p.query, "q"),
        path if (host_is(host, "yahoo.com") || host_is(host, "aol.com"))
            && path.contains("/RU=") =>
        {
            yahoo_target(path)
        }
        _ => None,
    }?;
    // A protocol-relative target (`uddg=//host/…`) names a page as surely
    // as an absolute one; engines serve over https, so it gets that scheme.
    let target = match target.strip_prefix("//") {
        Some(rest) if !rest.starts_with('/') => format!("https://{rest}"),
        _ => target,
    };
    // Opaque tokens (Baidu's usual `link?url=KxhnvX…`, Bing's links back into
    // its own verticals) are not targets: the wrapper is kept.
    is_absolute_http(&target).then_some(target)
}

/// Whether a link with this host and path could be a wrapper that
/// [`unwrap_once`] unwraps: its dispatch, without the parsing.
pub(super) fn may_wrap(host: &str, path: &str) -> bool {
    let host = host.trim_end_matches('.');
    matches!(
        path,
        "/url" | "/l/" | "/l" | "/ck/a" | "/link" | "/l.php" | "/redirect"
    ) || host_is(host, "yahoo.com")
        || host_is(host, "aol.com")
}

fn google_target(query: &str) -> Option<String> {
    param(query, "q")
        .filter(|t| is_absolute_http(t) || t.starts_with("//"))
        .or_else(|| param(query, "url"))
}

fn bing_target(query: &str) -> Option<String> {
    let raw = param(query, "u")?;
    let b64 = raw.strip_prefix("a1")?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD_INDIFFERENT
        .decode(b64)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD_INDIFFERENT.decode(b64))
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn yahoo_target(path: &str) -> Option<String> {
    let start = path.find("/RU=")? + 4;
    let rest = &path[start..];
    let end = ["/RK=", "/RS="]
        .iter()
        .filter_map(|m| rest.find(m))
        .min()
        .unwrap_or(rest.len());
    decode(&rest[..end])
}

/// The percent-decoded value of the first parameter `name` in `query`. Tolerates
/// `&amp;` left undecoded by a careless HTML parser.
fn param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let pair = pair.strip_prefix("amp;").unwrap_or(pair);
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| decode(v)).flatten()
    })
}

fn decode(v: &str) -> Option<String> {
    percent_decode_str(v)
        .decode_utf8()
        .ok()
        .map(|s| s.trim().to_string())
}

fn is_absolute_http(s: &str) -> bool {
    strip_prefix_ci(s, "http://").is_some_and(|r| !r.is_empty())
        || strip_prefix_ci(s, "https://").is_some_and(|r| !r.is_empty())
        || s.strip_prefix("//")
            .is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

/// `host` is `domain` or a subdomain of it.
fn host_is(host: &str, domain: &str) -> bool {
    host.eq_ignore_ascii_case(domain)
        || (host.len() > domain.len()
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
            && host.as_bytes()[host.len() - domain.len()..].eq_ignore_ascii_case(domain.as_bytes()))
}

/// `google.com`, `www.google.co.uk`, `google.de`, …
fn is_google(host: &str) -> bool {
    let h = strip_prefix_ci(host, "www.").unwrap_or(host);
    strip_prefix_ci(h, "google.").is_some_and(|tld| !tld.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn may_wrap_lets_every_wrapper_through() {
        let mut wrappers = 0;
        for field in &crate::test_data::url_case_fields() {
            if unwrap_once(field).is_some() {
                let p = split_pieces(field.trim()).expect("a wrapper has pieces");
                assert!(may_wrap(p.host, p.path), "{field:?}");
                wrappers += 1;
            }
        }
        assert!(wrappers >= 20, "{wrappers} wrappers");
    }
}
