//! URL normalization: the dedup key of a link, and redirect unwrapping.
//!
//! Two different jobs live here, and they must not be confused:
//!
//! * [`unwrap_redirect`] turns an engine's click-tracking wrapper (DuckDuckGo
//!   `/l/?uddg=`, Google `/url?q=`, Bing `/ck/a?…&u=a1<base64url>`, Yahoo and
//!   AOL `…/RU=<url>/RK=…`, Baidu / Sogou / 360 `link?url=` when the target is
//!   really in the link, …) into the target exactly as the engine encoded it.
//!   That is what a user clicks: nothing else is rewritten.
//! * [`normalize`] / [`key`] build the *dedup key* of a link, which is never
//!   shown. Two links get the same key when they almost surely name the same
//!   page:
//!   - redirect wrappers are unwrapped first;
//!   - `http` ≡ `https` (the key is written with `https://`), and ports 80 and
//!     443 are both dropped, whatever the scheme, so the two stay equal;
//!   - the host is lower-cased, IDN becomes punycode, a trailing `.` goes, and
//!     `www.`, `m.` and `mobile.` labels are folded (`en.m.wikipedia.org` ≡
//!     `en.wikipedia.org`) unless that would leave fewer than two labels
//!     (`mobile.de` stays);
//!   - user info and the fragment are dropped, except a `#!` or `#/` fragment,
//!     which carries the page in hash-routed sites;
//!   - percent-encoding is made canonical: escapes of unreserved characters are
//!     decoded, other escapes get upper-case hex, and bytes that must be escaped
//!     (spaces, controls, non-ASCII, `"<>` …) are escaped; in the query `%20`
//!     and a space both become `+`;
//!   - `.` and `..` path segments are resolved, `\` counts as `/`, and trailing
//!     `/` are removed (`/js/` ≡ `/js`, `https://a.com/` ≡ `https://a.com`);
//!   - the **path keeps its case**: most servers treat `/Js/` and `/js/` as
//!     different pages (w3schools happens to answer both, but a key cannot
//!     know that);
//!   - tracking parameters (`utm_*`, `fbclid`, `gclid`, `spm`, `msclkid`, …,
//!     see [`is_tracking_param`]) are dropped and the rest sorted.
//!
//! Links that are not absolute `http(s)` URLs (`javascript:`, `mailto:`,
//! relative paths, garbage) have no normalized form; [`key`] then hashes the
//! trimmed text so equal garbage still matches itself. Nothing here panics, on
//! any input.
//!
//! Speed: the key is built by hand in one pass into one buffer; the `url`
//! crate is only asked about hosts that are not plain lower-case ASCII (IDN,
//! percent-escaped or bracketed IPv6 hosts). Plain links (printable ASCII
//! with nothing to escape or decode, a plain host without port, no `.` path
//! segment, no redirect wrapper) take a shorter path of a few byte scans that
//! copies host, path and a single parameter as they are; the tests check it
//! against the general path on random links. A link that is already its own
//! normal form (the common `https://host/path` of an engine's list) is not
//! even copied: [`normal_host_end`] checks it in one pass and the dedup
//! stages hash it where it lies; the tests check every link it takes
//! against the general path, on the saved pages' links and random ones.

use std::borrow::Cow;

mod canonical;
mod normal;
mod redirect;
#[cfg(test)]
mod reference;

pub(crate) use canonical::key as canonical_key;
pub use canonical::{CanonicalId, canonical_id, link_rank, more_useful_link};
pub(crate) use normal::normal_host_end;
pub(crate) use redirect::unwrapped;
pub use redirect::{is_redirect, unwrap_redirect};
use redirect::{may_wrap, unwrap_more, unwrap_once};

/// 64-bit fingerprint of a normalized URL key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UrlKey(pub u64);

/// The normalized form of `link` used only as a dedup key (never shown).
/// Returns `None` for strings that are not absolute http(s) URLs.
pub fn normalize(link: &str) -> Option<String> {
    let mut out = String::with_capacity(link.len() + 8);
    normalize_into(link, &mut out).then_some(out)
}

/// Writes the normalized form of `link` into `out` (cleared first) and returns
/// whether `link` was an absolute http(s) URL; on `false`, `out` holds junk.
/// Reusing one buffer across records saves an allocation per key.
pub(crate) fn normalize_into(link: &str, out: &mut String) -> bool {
    out.clear();
    let target = match write_simple(link, out) {
        Simple::Written => return true,
        // The wrapper the fast path found is not unwrapped twice.
        Simple::Wrapper(first) => Cow::Owned(unwrap_more(first)),
        Simple::No => unwrapped(link),
    };
    out.clear();
    write_unwrapped(&target, out)
}

/// [`normalize_into`] after the redirect wrappers are gone.
fn write_unwrapped(target: &str, out: &mut String) -> bool {
    let cleaned = strip_tabs_newlines(trim_c0(target));
    write_normalized(&cleaned, out)
}

/// What [`write_simple`] made of a link.
enum Simple {
    /// The key is written.
    Written,
    /// A redirect wrapper, unwrapped one level.
    Wrapper(String),
    /// Not a plain link: the general path must do it.
    No,
}

/// The 64-bit fingerprint of `normalize(link)`, or of the link's canonical
/// identifier when a rule recognises it ([`canonical_id`]: every link form
/// of one paper, video or repository has one key); links that do not parse
/// get a fingerprint of their trimmed text so equal garbage still matches itself
/// (so every empty link has the same key: callers that see empty links should
/// not send them through the URL stage).
pub fn key(link: &str) -> UrlKey {
    // A link that is its own normal form (the common case) is hashed as it
    // is: no copy, no buffer.
    if let Some(end) = normal_host_end(link) {
        return canonical_key(link, end).map_or_else(|| key_of_normalized(link), |(k, _)| k);
    }
    let with = |buf: &mut String| {
        if normalize_into(link, buf) {
            let end = host_end(buf);
            canonical_key(buf, end).map_or_else(|| key_of_normalized(buf), |(k, _)| k)
        } else {
            key_of_normalized(link.trim())
        }
    };
    // One buffer per thread: a key costs no allocation in the common case.
    KEY_BUF
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => {
                let k = with(&mut buf);
                // One giant link must not pin its size for the thread's life.
                if buf.capacity() > SCRATCH_KEEP {
                    *buf = String::new();
                }
                k
            }
            Err(_) => with(&mut String::new()),
        })
        .unwrap_or_else(|_| with(&mut String::new()))
}

/// Scratch buffers larger than this are given back after use.
const SCRATCH_KEEP: usize = 1 << 16;

thread_local! {
    static KEY_BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    static QUERY_SCRATCH: std::cell::RefCell<(String, Vec<(usize, usize)>)> =
        const { std::cell::RefCell::new((String::new(), Vec::new())) };
}

/// The fingerprint of an already normalized key text (what [`key`] hashes).
#[inline]
pub(crate) fn key_of_normalized(normalized: &str) -> UrlKey {
    UrlKey(crate::hash::xxh3(normalized.as_bytes()))
}

/// Where the host of a normalized link (`https://host…`) ends.
#[inline]
pub(crate) fn host_end(normalized: &str) -> usize {
    let rest = normalized.get(8..).unwrap_or_default();
    8 + find_byte(rest, b"/?#")
}

/// The normalized host of `link` (lower-case, punycode, `www.` / `m.` folded),
/// after unwrapping redirects; `None` when `link` is not an http(s) URL.
pub fn host(link: &str) -> Option<String> {
    let n = normalize(link)?;
    let rest = n.strip_prefix("https://")?;
    let end = find_byte(rest, b"/?#");
    Some(rest[..end].to_string())
}

/// Whether a query parameter (its name, already lower-case or not) is a known
/// click-tracking parameter that never changes the page.
pub(crate) fn is_tracking_param(name: &str) -> bool {
    // Lower-cased into a stack buffer so one `match` (compiled to a length
    // dispatch) replaces dozens of case-insensitive comparisons.
    let prefix = name.as_bytes().get(..4).unwrap_or_default();
    if ["utm_", "mtm_", "hsa_"]
        .iter()
        .any(|p| prefix.eq_ignore_ascii_case(p.as_bytes()))
    {
        return true;
    }
    let mut buf = [0u8; 16];
    let Some(lower) = buf.get_mut(..name.len()) else {
        return false;
    };
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    matches!(
        &*lower,
        b"_hsenc"
            | b"_hsmi"
            | b"pk_campaign"
            | b"pk_kwd"
            | b"pk_source"
            | b"pk_medium"
            | b"pk_content"
            | b"fbclid"
            | b"gclid"
            | b"gclsrc"
            | b"dclid"
            | b"gbraid"
            | b"wbraid"
            | b"msclkid"
            | b"yclid"
            | b"ysclid"
            | b"spm"
            | b"scm"
            | b"_ga"
            | b"_gl"
            | b"mc_cid"
            | b"mc_eid"
            | b"ref_src"
            | b"ref_url"
            | b"igshid"
            | b"igsh"
            | b"mkt_tok"
            | b"vero_id"
            | b"vero_conv"
            | b"oly_enc_id"
            | b"oly_anon_id"
            | b"wickedid"
            | b"twclid"
            | b"ttclid"
            | b"li_fat_id"
            | b"s_kwcid"
            | b"ef_id"
            | b"srsltid"
            | b"_openstat"
            | b"rb_clickid"
    )
}

/// Index of the first byte of `s` that is one of `set` (all ASCII, so the
/// index is a char boundary), or `s.len()`.
fn find_byte(s: &str, set: &[u8]) -> usize {
    s.bytes().position(|b| set.contains(&b)).unwrap_or(s.len())
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let n = prefix.len();
    (s.len() >= n && s.as_bytes()[..n].eq_ignore_ascii_case(prefix.as_bytes())).then(|| &s[n..])
}

/// The URL standard trims C0 controls and spaces at both ends …
fn trim_c0(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// … and ignores tabs and newlines anywhere.
fn strip_tabs_newlines(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        Cow::Owned(
            s.chars()
                .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    }
}

/// Bits of [`LINK_CLASS`]: a byte [`write_simple`] leaves to the general
/// path; a `=`, which a redirect wrapper needs; a `&`, which a query of
/// more than one parameter has.
const NOT_SIMPLE: u8 = 1;
const EQUALS: u8 = 2;
const AMP: u8 = 4;

/// [`write_simple`] handles links of printable ASCII that needs no escaping,
/// but not `%` (escapes), `\\` (a `/`), `@` (user info) or `[]` (IPv6 hosts).
static LINK_CLASS: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if !PLAIN[i] || matches!(b, b'\\' | b'@' | b'[' | b']') {
            t[i] = NOT_SIMPLE;
        }
        i += 1;
    }
    t[b'=' as usize] = EQUALS;
    t[b'&' as usize] = AMP;
    t
};

/// Bits of [`HOST_CLASS`]: a byte of a plain host name; an upper-case
/// letter; a dot.
const HOST: u8 = 1;
const UPPER: u8 = 2;
const DOT: u8 = 4;

static HOST_CLASS: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_') {
            t[i] = HOST;
        } else if b.is_ascii_uppercase() {
            t[i] = HOST | UPPER;
        }
        i += 1;
    }
    t[b'.' as usize] = HOST | DOT;
    t
};

/// The common case of [`normalize_into`] in a few byte scans and no copies
/// but the output: an `http(s)` link of plain printable ASCII, with a plain
/// host and no port, that is no redirect wrapper, and whose path has no `.`
/// segment. [`Simple::No`] or [`Simple::Wrapper`] (with `out` half
/// written) for anything else, which the general path then handles; on
/// [`Simple::Written`], `out` is exactly what that path writes (the tests
/// compare the two on random links).
fn write_simple(link: &str, out: &mut String) -> Simple {
    // One pass, without branches, also rules out what `trim_c0` and
    // `strip_tabs_newlines` would change.
    let class = link
        .bytes()
        .fold(0, |acc, x| acc | LINK_CLASS[usize::from(x)]);
    if class & NOT_SIMPLE != 0 {
        return Simple::No;
    }
    // `http:` or `https:` in any case: `| 0x20` lower-cases a letter, and
    // no byte left here (printable ASCII) turns into one of these by it.
    let lb = link.as_bytes();
    let scheme_len = match lb.get(..6) {
        Some(&[h, t1, t2, p, s, c]) if [h | 0x20, t1 | 0x20, t2 | 0x20, p | 0x20] == *b"http" => {
            if s == b':' {
                5
            } else if s | 0x20 == b's' && c == b':' {
                6
            } else {
                return Simple::No;
            }
        }
        _ => return Simple::No,
    };
    let rest = &link[scheme_len..];
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] == b'/' {
        i += 1;
    }
    let host_start = i;
    let mut host_class = 0;
    while i < b.len() {
        let c = HOST_CLASS[usize::from(b[i])];
        if c == 0 {
            break;
        }
        host_class |= c;
        i += 1;
    }
    if i < b.len() && !matches!(b[i], b'/' | b'?' | b'#') {
        // A port, or a byte no plain host has.
        return Simple::No;
    }
    let raw_host = &rest[host_start..i];
    let host = raw_host.strip_suffix('.').unwrap_or(raw_host);
    if host.is_empty() || host.starts_with('.') {
        return Simple::No;
    }
    out.push_str("https://");
    let start = out.len();
    if host_class & DOT != 0 {
        push_folded_host(host, out);
    } else {
        out.push_str(host);
    }
    if host_class & UPPER != 0 {
        out[start..].make_ascii_lowercase();
    }
    let path_start = i;
    while i < b.len() && !matches!(b[i], b'?' | b'#') {
        // `/.` in the path needs dot resolution (`b[path_start]` is `/` when
        // the path is not empty: a host never ends in `/`).
        if b[i] == b'.' && i > path_start && b[i - 1] == b'/' {
            return Simple::No;
        }
        i += 1;
    }
    let path_end = i;
    let q = (i < b.len() && b[i] == b'?').then_some(i);
    while i < b.len() && b[i] != b'#' {
        i += 1;
    }
    let frag = i;
    // Every wrapper names its target after a `=`, and has one of a few paths
    // or a Yahoo / AOL host; `unwrap_once` sees the same host and path when
    // the scheme is followed by exactly two slashes, else it is asked anyway.
    if class & EQUALS != 0
        && (host_start != 2 || may_wrap(raw_host, &rest[path_start..path_end]))
        && let Some(target) = unwrap_once(link)
    {
        return Simple::Wrapper(target);
    }
    // Leading and trailing `/` go; so does the whole path when that is all.
    let mut p0 = path_start;
    let mut p1 = path_end;
    while p0 < p1 && b[p0] == b'/' {
        p0 += 1;
    }
    while p1 > p0 && b[p1 - 1] == b'/' {
        p1 -= 1;
    }
    if p1 > p0 {
        out.push('/');
        out.push_str(&rest[p0..p1]);
    }
    if let Some(q) = q {
        let query = &rest[q + 1..frag];
        // No `&` in the link, none in the query (no search for it).
        if class & AMP != 0 && query.as_bytes().contains(&b'&') {
            write_query(query, out);
        } else {
            // A single parameter needs no sorting and no scratch buffer.
            // `=` is ASCII: a byte search, not a `char` pattern's decoding.
            let name = &query[..find_byte(query, b"=")];
            if !((name.is_empty() && query.len() <= 1) || is_tracking_param(name)) {
                out.push('?');
                out.push_str(query);
            }
        }
    }
    if let Some(f) = rest.get(frag + 1..)
        && (f.starts_with('!') || f.starts_with('/'))
    {
        out.push('#');
        out.push_str(f);
    }
    Simple::Written
}

fn write_normalized(s: &str, out: &mut String) -> bool {
    let rest = if let Some(r) = strip_prefix_ci(s, "https:") {
        r
    } else if let Some(r) = strip_prefix_ci(s, "http:") {
        r
    } else if s.starts_with("//") {
        s
    } else {
        return false;
    };
    let rest = rest.trim_start_matches(['/', '\\']);
    let auth_end = find_byte(rest, b"/\\?#");
    let (authority, after) = rest.split_at(auth_end);
    out.push_str("https://");
    if !write_host(authority, out) {
        return false;
    }
    let (before_frag, fragment) = match after.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (after, None),
    };
    let (path, query) = match before_frag.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before_frag, None),
    };
    write_path(path, out);
    if let Some(q) = query {
        write_query(q, out);
    }
    if let Some(f) = fragment
        && (f.starts_with('!') || f.starts_with('/'))
    {
        out.push('#');
        push_pct_normalized(f, false, out);
    }
    true
}

/// Writes `host[:port]`; `false` when the authority has no valid host or port.
fn write_host(authority: &str, out: &mut String) -> bool {
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if hostport.starts_with('[') {
        match hostport.find(']') {
            Some(i) => {
                let (h, p) = hostport.split_at(i + 1);
                match p.strip_prefix(':') {
                    Some(port) => (h, port),
                    None if p.is_empty() => (h, ""),
                    None => return false,
                }
            }
            None => return false,
        }
    } else {
        hostport.rsplit_once(':').unwrap_or((hostport, ""))
    };
    let port = if port.is_empty() {
        None
    } else if port.bytes().all(|b| b.is_ascii_digit()) {
        match port.trim_start_matches('0').parse::<u32>() {
            Ok(n) if n <= u32::from(u16::MAX) => Some(n),
            // All zeros: port 0.
            Err(_) if port.len() <= 5 => Some(0),
            _ => return false,
        }
    } else {
        return false;
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() {
        return false;
    }
    let start = out.len();
    let plain = host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
    if plain && !host.starts_with('.') {
        push_folded_host(host, out);
        out[start..].make_ascii_lowercase();
    } else {
        match url::Host::parse(host) {
            Ok(url::Host::Domain(d)) => push_folded_host(d.strip_suffix('.').unwrap_or(&d), out),
            Ok(url::Host::Ipv4(a)) => {
                use std::fmt::Write as _;
                let _ = write!(out, "{a}");
            }
            Ok(url::Host::Ipv6(a)) => {
                use std::fmt::Write as _;
                let _ = write!(out, "[{a}]");
            }
            Err(_) => return false,
        }
        if out.len() == start {
            return false;
        }
    }
    if let Some(p) = port
        && p != 80
        && p != 443
    {
        use std::fmt::Write as _;
        let _ = write!(out, ":{p}");
    }
    true
}

/// Whether a host loses `label` (`www`, `m` or `mobile`, in any case) when
/// it stands before the host's last two labels ([`before_last_two`]), so
/// `www.x.com`, `m.x.com` and `en.m.wikipedia.org` fold, `mobile.de` does
/// not.
#[inline]
pub(super) fn is_folded_label(label: &[u8]) -> bool {
    label.eq_ignore_ascii_case(b"www")
        || label.eq_ignore_ascii_case(b"m")
        || label.eq_ignore_ascii_case(b"mobile")
}

/// The labels of `host` before its last two (up to the dot before them),
/// the only ones ever folded; `None` for a host of fewer than three labels.
pub(super) fn before_last_two(host: &[u8]) -> Option<&[u8]> {
    let last = host.iter().rposition(|&c| c == b'.')?;
    let second = host[..last].iter().rposition(|&c| c == b'.')?;
    Some(&host[..second])
}

/// Pushes the domain `host` (plain, or as IDNA wrote it: no IP literal)
/// less its folded labels ([`is_folded_label`]), without copying the labels
/// it cuts.
fn push_folded_host(host: &str, out: &mut String) {
    let Some(head) = before_last_two(host.as_bytes()) else {
        out.push_str(host);
        return;
    };
    // `host[from..at]` is kept and not yet written.
    let (mut from, mut at) = (0, 0);
    for label in head.split(|&c| c == b'.') {
        let next = at + label.len() + 1;
        if is_folded_label(label) {
            out.push_str(&host[from..at]);
            from = next;
        }
        at = next;
    }
    out.push_str(&host[from..]);
}

fn write_path(path: &str, out: &mut String) {
    let start = out.len();
    out.push('/');
    let path = path.trim_start_matches(['/', '\\']);
    if path.contains('\\') {
        push_pct_normalized(&path.replace('\\', "/"), false, out);
    } else {
        push_pct_normalized(path, false, out);
    }
    if out.as_bytes()[start..].windows(2).any(|w| w == b"/.") {
        let resolved = resolve_dots(&out[start..]);
        out.truncate(start);
        // Leading empty segments were dropped above; `..` can expose more.
        out.push('/');
        out.push_str(resolved.trim_start_matches('/'));
    }
    let trimmed = out[start..].trim_end_matches('/').len();
    out.truncate(start + trimmed);
}

/// Removes `.` and `..` segments (RFC 3986 §5.2.4) from an absolute path.
fn resolve_dots(path: &str) -> String {
    let mut segs: Vec<&str> = Vec::new();
    let mut parts = path.split('/').skip(1).peekable();
    while let Some(seg) = parts.next() {
        let last = parts.peek().is_none();
        match seg {
            "." => {
                if last {
                    segs.push("");
                }
            }
            ".." => {
                segs.pop();
                if last {
                    segs.push("");
                }
            }
            s => segs.push(s),
        }
    }
    let mut out = String::with_capacity(path.len());
    for s in segs {
        out.push('/');
        out.push_str(s);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn write_query(query: &str, out: &mut String) {
    QUERY_SCRATCH
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                let (text, ranges) = &mut *scratch;
                write_query_with(query, out, text, ranges);
                if text.capacity() > SCRATCH_KEEP || ranges.capacity() > SCRATCH_KEEP {
                    *scratch = (String::new(), Vec::new());
                }
            }
            Err(_) => write_query_with(query, out, &mut String::new(), &mut Vec::new()),
        })
        .unwrap_or_else(|_| write_query_with(query, out, &mut String::new(), &mut Vec::new()));
}

/// Normalizes each kept parameter into `scratch`, then writes them sorted.
fn write_query_with(
    query: &str,
    out: &mut String,
    scratch: &mut String,
    ranges: &mut Vec<(usize, usize)>,
) {
    scratch.clear();
    ranges.clear();
    for pair in query.split('&') {
        if pair.is_empty() {
            continue;
        }
        let s = scratch.len();
        push_pct_normalized(pair, true, scratch);
        let p = &scratch[s..];
        let name = p.split_once('=').map_or(p, |(n, _)| n);
        if (name.is_empty() && p.len() <= 1) || is_tracking_param(name) {
            scratch.truncate(s);
        } else {
            ranges.push((s, scratch.len()));
        }
    }
    if ranges.is_empty() {
        return;
    }
    ranges.sort_unstable_by(|a, b| scratch[a.0..a.1].cmp(&scratch[b.0..b.1]));
    out.push('?');
    for (i, &(s, e)) in ranges.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(&scratch[s..e]);
    }
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

const fn must_escape(b: u8) -> bool {
    b <= b' ' || b >= 0x7f || matches!(b, b'"' | b'<' | b'>' | b'`' | b'{' | b'}' | b'|' | b'^')
}

/// Bytes copied as they are by [`push_pct_normalized`].
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as u8 != b'%' && !must_escape(i as u8);
        i += 1;
    }
    t
};

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn push_escaped(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// Canonical percent-encoding: escaped unreserved bytes are decoded, other
/// escapes get upper-case hex, bytes that must be escaped are. In a query (or a
/// query-like fragment) a space is `+`, as forms send it.
fn push_pct_normalized(s: &str, query: bool, out: &mut String) {
    let bytes = s.as_bytes();
    let mut i = 0;
    // Runs of bytes that need no change are copied as one slice.
    let mut run = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if PLAIN[usize::from(b)] {
            i += 1;
            continue;
        }
        let escape = if b == b'%' {
            match (
                bytes.get(i + 1).copied().and_then(hex_val),
                bytes.get(i + 2).copied().and_then(hex_val),
            ) {
                (Some(h), Some(l)) => Some(h * 16 + l),
                _ => None,
            }
        } else {
            None
        };
        // Plain runs are ASCII, so these slices are on char boundaries;
        // `get` keeps that a non-panicking fact.
        out.push_str(s.get(run..i).unwrap_or_default());
        match escape {
            Some(v) => {
                if is_unreserved(v) {
                    out.push(char::from(v));
                } else if query && v == b' ' {
                    out.push('+');
                } else {
                    push_escaped(v, out);
                }
                i += 3;
            }
            None if query && b == b' ' => {
                out.push('+');
                i += 1;
            }
            None => {
                push_escaped(b, out);
                i += 1;
            }
        }
        run = i;
    }
    out.push_str(s.get(run..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::reference::{self, normalize_general};
    use super::*;

    #[test]
    fn plain_links_normalize() {
        assert_eq!(
            normalize("HTTP://WWW.Example.COM:80/a/./b/../c/?b=2&a=1&utm_source=x#frag").as_deref(),
            Some("https://example.com/a/c?a=1&b=2")
        );
        assert_eq!(normalize("javascript:alert(1)"), None);
        assert_eq!(normalize(""), None);
        assert_eq!(normalize("https://"), None);
    }

    #[test]
    fn percent_encoding_is_canonical() {
        assert_eq!(
            normalize("https://a.com/%7euser/%e4%b8%ad?q=a%20b").as_deref(),
            Some("https://a.com/~user/%E4%B8%AD?q=a+b")
        );
        assert_eq!(
            normalize("https://a.com/中").as_deref(),
            Some("https://a.com/%E4%B8%AD")
        );
    }

    #[test]
    fn idn_hosts_become_punycode() {
        assert_eq!(
            host("https://Bücher.example/x").as_deref(),
            Some("xn--bcher-kva.example")
        );
    }

    /// Pieces links are made of, heavy on what [`write_simple`] treats
    /// specially or leaves to the general path.
    const PIECES: &[&str] = &[
        "http:",
        "https:",
        "HTTP://",
        "https://",
        "//",
        "/",
        "///",
        "\\",
        "www.",
        "m.",
        "mobile.",
        "WWW.",
        "en.",
        "a",
        "Z",
        "0",
        "example",
        "com",
        ".",
        "..",
        "-",
        "_",
        ":",
        ":80",
        ":443",
        ":8080",
        "@",
        "user@",
        "[::1]",
        "?",
        "&",
        "=",
        "#",
        "#!",
        "#/",
        "%",
        "%7e",
        "%2F",
        "%20",
        " ",
        "\t",
        "\n",
        "\u{1}",
        "é",
        "中",
        "utm_source=x",
        "q=1",
        "b=2",
        "fbclid=z",
        "./",
        "../",
        "/.",
        "/..",
        ".x",
        "!",
        "~",
        "+",
        ";",
        ",",
        "'",
        "\"",
        "<",
        "|",
        "^",
        "{",
        "google.com/url?q=",
        "https://www.google.com/url?q=https://a.com/x&sa=U",
        "duckduckgo.com/l/?uddg=",
        "https%3A%2F%2Fb.com%2Fy",
    ];

    fn general(link: &str) -> (bool, String) {
        let mut out = String::new();
        let ok = normalize_general(link, &mut out);
        (ok, if ok { out } else { String::new() })
    }

    fn fast(link: &str) -> (bool, String) {
        let mut out = String::from("stale");
        let ok = normalize_into(link, &mut out);
        (ok, if ok { out } else { String::new() })
    }

    #[test]
    fn simple_path_agrees_with_general_on_test_links() {
        let mut compared = 0;
        for field in &crate::test_data::url_case_fields() {
            assert_eq!(fast(field), general(field), "{field:?}");
            compared += 1;
        }
        for link in [
            "https://zhidao.example/123/4",
            "http://www.zhidao.example/123/4?utm_source=bench#top",
            "https://news.example/story/7/mirror",
            "https://a.com/x/?b=1&a=2#!/y",
            "https://a.com?",
            "https://a.com/?=",
            "https://a.com/#",
            "https://a.com./.x",
            // Nested wrappers: Google's around DuckDuckGo's.
            "https://www.google.com/url?q=https://duckduckgo.com/l/?uddg=https://b.com/y",
        ] {
            assert_eq!(fast(link), general(link), "{link:?}");
            compared += 1;
        }
        assert!(compared > 100, "{compared} links compared");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn simple_path_agrees_with_general(
            head in proptest::sample::select(&["http://", "https://", "HTTPS://www.", "http:", "//", ""][..]),
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..16),
        ) {
            let link = String::from(head) + &parts.concat();
            proptest::prop_assert_eq!(fast(&link), general(&link), "{:?}", link);
        }

        #[test]
        fn simple_path_agrees_with_general_on_any_text(
            link in "(https?://)?[a-zA-Z0-9./?#&=%:@_!~-]{0,30}",
        ) {
            proptest::prop_assert_eq!(fast(&link), general(&link), "{:?}", link);
        }

        #[test]
        fn normal_links_agree_with_general(
            head in proptest::sample::select(&["https://", "https://www.", "https://a.", "http://"][..]),
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..16),
        ) {
            check_normal(&(String::from(head) + &parts.concat()));
        }

        #[test]
        fn normal_links_agree_with_general_on_any_text(
            link in "https://[a-z.]{0,12}[a-zA-Z0-9./?#&=%:@_!~-]{0,30}",
        ) {
            check_normal(&link);
        }
    }

    /// Whether [`normal_host_end`] takes `link`; when it does, `link` must
    /// be its own normal form by the general path, with the host it names.
    fn check_normal(link: &str) -> bool {
        let Some(end) = normal_host_end(link) else {
            return false;
        };
        assert_eq!(
            general(link),
            (true, link.to_string()),
            "{link:?} is not its own normal form"
        );
        assert_eq!(host(link).as_deref(), Some(&link[8..end]), "{link:?}");
        // The key of the normal form, or of the identifier a canonical
        // rule reads in it.
        let normal = general(link).1;
        let want = canonical_key(&normal, host_end(&normal))
            .map_or_else(|| key_of_normalized(&normal), |(k, _)| k);
        assert_eq!(key(link), want, "{link:?}");
        true
    }

    #[test]
    fn normal_links_are_their_own_normal_form() {
        let links = reference::fixture_links();
        assert!(links.len() > 3000, "{} links", links.len());
        let (mut taken, mut checked) = (0, 0);
        for link in &links {
            let (ok, normal) = general(link);
            // The link, its normal form (which the fast path takes when
            // plain enough), and what must not be taken as it is.
            let mut variants = vec![link.clone(), format!("{link}/"), format!("{link}//x")];
            if ok {
                for v in [
                    normal.clone(),
                    format!("{normal}/"),
                    format!("{normal}/./x"),
                    format!("{normal}/a/../b"),
                    format!("{normal}/x#top"),
                    format!("{normal}/x=1"),
                    format!("{normal}/%41"),
                    normal.replacen("https://", "https://www.", 1),
                    normal.replacen("https://", "https://en.m.", 1),
                    normal.replacen("https://", "https://mobile.", 1),
                    normal.replacen("https://", "http://", 1),
                    normal.replacen("https://", "https:///", 1),
                    normal.replacen("https://", "HTTPS://", 1),
                    normal.to_uppercase(),
                ] {
                    variants.push(v);
                }
            }
            for v in &variants {
                taken += usize::from(check_normal(v));
                checked += 1;
            }
        }
        for link in [
            "https://zhidao.example/123456/3",
            "https://news.example/story/12",
            "https://news.example/story/12/mirror",
            "https://a.b.www.c.d/x",
            "https://www.a/x",
            "https://a.com:443/x",
            "https://a..com/x",
            "https://.a.com/x",
            "https://a.com./x",
            "https://user@a.com/x",
            "https://a.com/x y",
            "https://a.com/中",
            "https://a.com/.well-known/x",
            "https://a.com/x/.",
            "https://a.com/x/..",
            "https://a.com/x.html",
            "https://a.com/x\\y",
        ] {
            check_normal(link);
        }
        // Real links that are their own normal form are common: the fast
        // path must take them (it is what makes the URL half cheap).
        assert!(taken > 1000, "{taken} of {checked} links taken");
        assert!(check_normal("https://zhidao.example/123456/3"));
        assert!(check_normal(
            "https://en.wikipedia.org/wiki/Rust_(programming_language)"
        ));
    }

    proptest::proptest! {
        /// The host written less its folded labels is the host written,
        /// lower-cased and folded as the label folding always did (the
        /// reference's `str` splits and `replace_range`s).
        #[test]
        fn folded_hosts_are_pushed_as_folded(
            labels in proptest::collection::vec(
                proptest::sample::select(&[
                    "www", "m", "mobile", "WWW", "M", "Mobile", "mobil", "wwww", "en", "a", "",
                    "x-y_z", "0", "中", "xn--bcher-kva",
                ][..]),
                0..12,
            ),
        ) {
            let host = labels.join(".");
            let mut want = String::from("https://");
            want.push_str(&host);
            want.make_ascii_lowercase();
            reference::fold_host_labels(&mut want, 8);
            let mut got = String::from("https://");
            push_folded_host(&host, &mut got);
            got.make_ascii_lowercase();
            proptest::prop_assert_eq!(got, want, "{:?}", host);
        }
    }

    #[test]
    fn slicing_never_panics_on_multibyte() {
        for s in [
            "é",
            "//é",
            "http://é:é",
            "https://[",
            "https://[::1",
            "/l/?uddg=%FF",
            "http://a@",
        ] {
            let _ = key(s);
            let _ = unwrap_redirect(s);
        }
    }
}
