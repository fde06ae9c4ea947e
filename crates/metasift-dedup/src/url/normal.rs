//! Links already in their normal form: [`normal_host_end`] tells them in
//! one pass, so the dedup stages hash such a link where it lies (see the
//! parent module's "Speed" notes).

use super::{HOST, HOST_CLASS, LINK_CLASS, NOT_SIMPLE, UPPER};

/// Bits of [`NORMAL_CLASS`]: a byte no path of a [`normal_host_end`] link
/// has (anything [`write_simple`](super::write_simple) would change or look further at); a `.`.
const NOT_NORMAL: u8 = 1;
const N_DOT: u8 = 2;

/// Bytes of a link already in its normal form: [`LINK_CLASS`](super::LINK_CLASS)'s plain bytes
/// less the query, fragment and parameter marks (`?#&=`).
static NORMAL_CLASS: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        if LINK_CLASS[i] & NOT_SIMPLE != 0 || matches!(i as u8, b'?' | b'#' | b'&' | b'=') {
            t[i] = NOT_NORMAL;
        }
        i += 1;
    }
    t[b'.' as usize] = N_DOT;
    t
};

/// What a host byte adds to the sum [`normal_host_end`] takes: 1 for a
/// `.`, `1 << 16` for a byte that is not lower-case host matter.
static HOST_SUM: [u32; 256] = {
    let mut t = [1 << 16; 256];
    let mut i = 0;
    while i < 256 {
        if HOST_CLASS[i] & (HOST | UPPER) == HOST {
            t[i] = 0;
        }
        i += 1;
    }
    t[b'.' as usize] = 1;
    t
};

/// Where the host of `link` ends (a byte index into `link`) when `link` is
/// its own normalized form and plainly so, the common shape of an engine's
/// link (`https://zhidao.baidu.com/question/123.html`): `https://`, a host
/// of lower-case letters, digits, `-`, `_` and `.` (not at either end) with
/// no `www`, `m` or `mobile` label to fold, then nothing or a path of plain
/// bytes without `?`, `#`, `=`, `&`, `%`, a `.` segment, a leading `//` or
/// a trailing `/`. `None` for anything else, which [`normalize_into`](super::normalize_into)
/// handles. One pass over the bytes and no copy: the caller hashes `link`
/// itself. The tests check `normalize(link) == link` on every link this
/// accepts, against the general path, on the links of the saved pages.
pub(crate) fn normal_host_end(link: &str) -> Option<usize> {
    const SCHEME: usize = "https://".len();
    let b = link.as_bytes();
    if b.get(..SCHEME)? != b"https://" {
        return None;
    }
    let rest = &b[SCHEME..];
    // One pass to the first `/` and one sum: the dots, and (from bit 16)
    // the bytes that are not lower-case host matter (upper case, a port, a
    // query, …).
    let mut sum = 0u64;
    let mut host_len = rest.len();
    for (i, &c) in rest.iter().enumerate() {
        if c == b'/' {
            host_len = i;
            break;
        }
        sum += u64::from(HOST_SUM[usize::from(c)]);
    }
    let (host, path) = rest.split_at(host_len);
    if sum >> 16 != 0 {
        return None;
    }
    // Not empty, and no `.` to drop or to send it to the general path at
    // either end (`..` within is copied as it is, by every path).
    match host {
        [first, .., last] if *first != b'.' && *last != b'.' => {}
        [one] if *one != b'.' => {}
        _ => return None,
    }
    // Only a label before the last two is ever folded.
    let dots = sum as usize;
    if dots >= 2
        && host
            .split(|&c| c == b'.')
            .take(dots - 1)
            .any(|l| matches!(l, b"www" | b"m" | b"mobile"))
    {
        return None;
    }
    match path {
        [] => return Some(SCHEME + host_len),
        // No leading `//`, no trailing `/` (both trimmed).
        [b'/', rest @ ..]
            if rest.first().is_some_and(|&c| c != b'/') && rest.last() != Some(&b'/') => {}
        _ => return None,
    }
    let class = path
        .iter()
        .fold(0, |acc, &x| acc | NORMAL_CLASS[usize::from(x)]);
    if class & NOT_NORMAL != 0 || (class & N_DOT != 0 && path.windows(2).any(|w| w == b"/.")) {
        return None;
    }
    Some(SCHEME + host_len)
}
