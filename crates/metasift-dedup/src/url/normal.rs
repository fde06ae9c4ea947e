//! Links already in their normal form: [`normal_host_end`] tells them in
//! one pass, so the dedup stages hash such a link where it lies (see the
//! parent module's "Speed" notes).

use super::{HOST, HOST_CLASS, LINK_CLASS, NOT_SIMPLE, UPPER, before_last_two, is_folded_label};

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
    let (host_len, dots) = host_scan(b)?;
    let (host, path) = rest.split_at(host_len);
    // Not empty, and no `.` to drop or to send it to the general path at
    // either end (`..` within is copied as it is, by every path).
    match host {
        [first, .., last] if *first != b'.' && *last != b'.' => {}
        [one] if *one != b'.' => {}
        _ => return None,
    }
    // Only a label before the last two is ever folded.
    if dots >= 2
        && before_last_two(host).is_some_and(|head| head.split(|&c| c == b'.').any(is_folded_label))
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

/// The length of the host of the link `b` (which begins with `https://`):
/// up to the first `/` after the scheme, or the end. With it, the host's
/// dots, but 2 for more (all the caller asks); `None` when the host has a
/// byte that is not lower-case host matter (upper case, a port, a query, …).
#[inline(always)]
fn host_scan(b: &[u8]) -> Option<(usize, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        if b.len() >= 16 {
            return host_scan_sse2(b);
        }
    }
    host_scan_portable(b)
}

/// [`host_scan`] a byte at a time: the definition, for short links, other
/// targets and the tests. One pass to the first `/` and one sum: the dots,
/// and (from bit 16) the bytes that are not lower-case host matter.
fn host_scan_portable(b: &[u8]) -> Option<(usize, usize)> {
    let rest = b.get(8..).unwrap_or_default();
    let mut sum = 0u64;
    let mut host_len = rest.len();
    for (i, &c) in rest.iter().enumerate() {
        if c == b'/' {
            host_len = i;
            break;
        }
        sum += u64::from(HOST_SUM[usize::from(c)]);
    }
    (sum >> 16 == 0).then_some((host_len, (sum as usize).min(2)))
}

/// [`host_scan`] sixteen bytes at a time with SSE2 (`b` has at least 16
/// bytes): per block, masks of the `/`, the `.` and the bytes of lower-case
/// host matter (range tests as signed compares of shifted bytes); a block
/// past the end is the link's last sixteen bytes, its masks shifted.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn host_scan_sse2(b: &[u8]) -> Option<(usize, usize)> {
    use safe_arch::{
        add_i8_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let n = b.len();
    let last = n.checked_sub(16)?;
    let splat = |v: u8| set_splat_i8_m128i(v as i8);
    let mut pos = 8;
    let mut dots = 0;
    while pos < n {
        // The block at `pos`, or the last one, whose first `shift` bytes
        // were seen.
        let (at, shift) = if pos <= last {
            (pos, 0)
        } else {
            (last, pos - last)
        };
        let block: &[u8; 16] = b.get(at..)?.first_chunk()?;
        let x = load_unaligned_m128i(block);
        let mask = |v| (move_mask_i8_m128i(v) as u32 & 0xffff) >> shift;
        // `x + add` as a signed byte is below `below`: `a`–`z` shifted to
        // -128..=-103, `-` to `9` to -128..=-116 (a `/` among them ends the
        // host: no byte from it on is looked at).
        let range =
            |add: u8, below: u8| cmp_lt_mask_i8_m128i(add_i8_m128i(x, splat(add)), splat(below));
        let eq = |v: u8| cmp_eq_mask_i8_m128i(x, splat(v));
        let host = bitor_m128i(bitor_m128i(range(0x1f, 0x9a), range(0x53, 0x8d)), eq(b'_'));
        let seen = 16 - shift;
        let slash = mask(eq(b'/'));
        // Bytes of the host in this block.
        let len = if slash != 0 {
            slash.trailing_zeros() as usize
        } else {
            seen
        };
        let in_host = (1u32 << len) - 1;
        if !mask(host) & in_host != 0 {
            return None;
        }
        // The block's dots, but 2 for more: the sum is still 2 or more
        // exactly when the host has at least two.
        let d = mask(eq(b'.')) & in_host;
        dots += usize::from(d != 0) + usize::from(d & d.wrapping_sub(1) != 0);
        if slash != 0 {
            return Some((pos + len - 8, dots.min(2)));
        }
        pos += seen;
    }
    Some((n - 8, dots.min(2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value at every position of hosts of every length around
    /// the block edges, with and without a path after: the vector scan is
    /// the byte one.
    #[test]
    fn host_scan_is_the_portable_one_for_every_byte() {
        for len in 0..48 {
            for tail in ["", "/", "/x/y", "/a.b"] {
                let host: Vec<u8> = (0..len).map(|i| b"ab.c-d_9z"[i % 9]).collect();
                let link = [&b"https://"[..], &host, tail.as_bytes()].concat();
                assert_eq!(host_scan(&link), host_scan_portable(&link), "{link:?}");
                for at in 8..link.len() {
                    for v in 0..=255u8 {
                        let mut l = link.clone();
                        l[at] = v;
                        assert_eq!(host_scan(&l), host_scan_portable(&l), "{l:?}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn host_scan_is_the_portable_one(
            rest in proptest::collection::vec(
                proptest::sample::select(&b"az09AZ-._/:?#@%~\x7f\x80\xff "[..]),
                0..60,
            ),
        ) {
            let link = [&b"https://"[..], &rest].concat();
            proptest::prop_assert_eq!(host_scan(&link), host_scan_portable(&link), "{:?}", link);
        }
    }
}
