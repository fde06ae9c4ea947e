//! The fast scanner's loop for Chinese text: runs of common ideographs and
//! the marks between them, driven by a bit mask of where runs stop.
//!
//! A Chinese snippet is runs of common ideographs (U+4E00–U+9FFF, three
//! bytes each) cut by one or two marks (`,` `。` `、` `“` a space …). Read a
//! character at a time, every run's end and every mark's kind is a branch
//! the processor cannot predict (two or three mispredictions a run). Here
//! the bytes are classified 64 at a time into a mask of *stops* — bytes that
//! do not continue a run: ASCII, a lead byte outside `E4`–`E9`, `E4` before
//! a byte below `B8` (U+4000–U+4DFF), the end of the text — and the loop
//! walks the stops: the run before each is pushed (its ends, see
//! [`super::scan`]'s `ideograph_run`), and the character at it is a
//! separator or an anchor (taken without a branch on which) or the end of
//! the Chinese text (a word, another script: back to the main loop).

use std::hint::select_unpredictable;

use super::Stream;
use super::scan::{ANCHOR, ASCII_CLASS, WORD, is_plain_separator};

/// What a stop's character is to the Chinese loop.
const G_SEPARATOR: u8 = 0;
const G_ANCHOR: u8 = 1;
/// A word, another script, the end: the main loop takes it.
const G_STOP: u8 = 2;

/// The gap kind of an ASCII character of class `k` (its own, or that of
/// the full-width form's ASCII twin): a word character stops, an anchor
/// anchors, anything else separates.
const fn gap_of_class(k: u8) -> u8 {
    if k & WORD != 0 {
        G_STOP
    } else if k & ANCHOR != 0 {
        G_ANCHOR
    } else {
        G_SEPARATOR
    }
}

/// The three-level tables of the kind of a stop's character, by its lead
/// byte, then the low six bits of its second byte, then those of its third
/// (see [`gap_kind`]).
///
/// [`GAP_LEAD`] gives a row of [`GAP_MID`] per lead byte, [`GAP_MID`] a row of
/// [`GAP_LAST`] per second byte, [`GAP_LAST`] the kind per third byte. An
/// ASCII byte leads to one of three constant rows (its kind whatever
/// follows); the leads `E2` `E3` `EF` to rows that pick out U+2000–U+207F,
/// U+3000–U+307F and U+FF00–U+FF7F; any other lead (two- and four-byte
/// characters, other three-byte blocks) to the constant [`G_STOP`] rows.
const MID_STOP: u8 = 0;
const MID_SEPARATOR: u8 = 1;
const MID_ANCHOR: u8 = 2;
const MID_E2: u8 = 3;
const MID_E3: u8 = 4;
const MID_EF: u8 = 5;

/// The first code point of each 64-code-point row of [`GAP_LAST`] past the
/// three constant ones (rows 3 to 8).
const LAST_BASES: [u32; 6] = [0x2000, 0x2040, 0x3000, 0x3040, 0xFF00, 0xFF40];

/// The [`GAP_MID`] row of each lead byte.
static GAP_LEAD: [u8; 256] = {
    let mut t = [MID_STOP; 256];
    let mut i = 0;
    while i < 128 {
        t[i] = match gap_of_class(ASCII_CLASS[i]) {
            G_SEPARATOR => MID_SEPARATOR,
            G_ANCHOR => MID_ANCHOR,
            _ => MID_STOP,
        };
        i += 1;
    }
    t[0xE2] = MID_E2;
    t[0xE3] = MID_E3;
    t[0xEF] = MID_EF;
    t
};

/// The [`GAP_LAST`] row of each second byte (its low six bits), per
/// [`GAP_MID`] row: the constant rows keep their kind, the rows of `E2`,
/// `E3` and `EF` pick the block rows, anything else stops.
static GAP_MID: [[u8; 64]; 6] = {
    let mut t = [[0u8; 64]; 6];
    // Rows 0–2 of `GAP_LAST` are the constant kinds, in the order of the
    // constant rows here.
    t[MID_SEPARATOR as usize] = [MID_SEPARATOR; 64];
    t[MID_ANCHOR as usize] = [MID_ANCHOR; 64];
    // `E2 80`, `E2 81`: U+2000–U+207F; `E3 80`, `E3 81`: U+3000–U+307F;
    // `EF BC`, `EF BD`: U+FF00–U+FF7F.
    t[MID_E2 as usize][0] = 3;
    t[MID_E2 as usize][1] = 4;
    t[MID_E3 as usize][0] = 5;
    t[MID_E3 as usize][1] = 6;
    t[MID_EF as usize][0x3C] = 7;
    t[MID_EF as usize][0x3D] = 8;
    t
};

/// The kind per third byte (its low six bits), per row: rows 0–2 the
/// constant kinds [`G_STOP`], [`G_SEPARATOR`], [`G_ANCHOR`]; rows 3–8 the
/// characters from [`LAST_BASES`] on: `、` `。` `…` and the full-width
/// anchors anchor, the ideographic space, full-width signs and the plain
/// separators (quotes, dashes, CJK brackets) separate, anything else (a
/// full-width letter, kana) stops.
static GAP_LAST: [[u8; 64]; 9] = {
    let mut t = [[G_STOP; 64]; 9];
    t[MID_SEPARATOR as usize] = [G_SEPARATOR; 64];
    t[MID_ANCHOR as usize] = [G_ANCHOR; 64];
    let mut row = 0;
    while row < 6 {
        let mut low = 0;
        while low < 64 {
            let code = LAST_BASES[row] + low;
            t[row + 3][low as usize] = match code {
                0x3001 | 0x3002 | 0x2026 => G_ANCHOR,
                0xFF01..=0xFF5E => gap_of_class(ASCII_CLASS[(code - 0xFEE0) as usize]),
                0x3000 => G_SEPARATOR,
                _ if is_plain_separator(code) => G_SEPARATOR,
                _ => G_STOP,
            };
            low += 1;
        }
        row += 1;
    }
    t
};

/// The kind of the character at `bytes[q]` (a stop, before the end) and its
/// length, without a branch on what it is: three table lookups, by its
/// lead byte and the payload bits of the two bytes after it (see
/// [`GAP_LEAD`]; after an ASCII byte they only index a constant row).
#[inline(always)]
fn gap_kind(bytes: &[u8], q: usize) -> (u8, usize) {
    let b0 = bytes[q];
    // A lead byte `1110xxxx` has two bytes after it (the text is UTF-8).
    let (b1, b2) = match bytes.get(q + 1..q + 3) {
        Some(&[b1, b2]) => (b1, b2),
        _ => (0x80, 0x80),
    };
    let mid = GAP_MID[usize::from(GAP_LEAD[usize::from(b0)])][usize::from(b1 & 0x3F)];
    let kind = GAP_LAST[usize::from(mid)][usize::from(b2 & 0x3F)];
    // ASCII: one byte; the others that do not stop: three.
    (kind, 1 + 2 * usize::from(b0 >> 7))
}

/// Bit `j` set: `bytes[at + j]` is a stop — it does not continue a run of
/// common ideographs (see the module docs); every position from the end of
/// the text on is one.
#[inline]
fn stops64(bytes: &[u8], at: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        stops64_sse2(bytes, at)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        stops64_portable(bytes, at)
    }
}

/// [`stops64`] a byte at a time: the definition, for other targets and the
/// tests.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn stops64_portable(bytes: &[u8], at: usize) -> u64 {
    let mut mask = 0;
    for j in 0..64 {
        let stop = match bytes.get(at + j) {
            None => true,
            Some(&b) => {
                let continuation = b & 0xC0 == 0x80;
                let lead = (0xE5..=0xE9).contains(&b)
                    || (b == 0xE4 && bytes.get(at + j + 1).is_some_and(|&n| n >= 0xB8));
                !(continuation || lead)
            }
        };
        mask |= u64::from(stop) << j;
    }
    mask
}

/// [`stops64`] with SSE2, 16 bytes a step: a continuation byte (`80`–`BF`),
/// a lead `E5`–`E9`, or `E4` with the next byte `B8` or above continues a
/// run; a movemask of that, inverted, is the stops.
#[cfg(target_arch = "x86_64")]
fn stops64_sse2(bytes: &[u8], at: usize) -> u64 {
    use safe_arch::{
        add_i8_m128i, bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i,
        cmp_lt_mask_i8_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    // 65 bytes: each block reads the byte after it too. Near the end the
    // rest is copied into zeros (ASCII: stops).
    let padded: [u8; 65];
    let src: &[u8] = match bytes.get(at..at + 65) {
        Some(src) => src,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            let mut buf = [0u8; 65];
            buf[..rest.len()].copy_from_slice(rest);
            padded = buf;
            &padded
        }
    };
    // Two 8-byte loads LLVM turns into one unaligned 16-byte load.
    let load = |k: usize| {
        let lo = i64::from_le_bytes(src[k..k + 8].try_into().unwrap_or_default());
        let hi = i64::from_le_bytes(src[k + 8..k + 16].try_into().unwrap_or_default());
        m128i::from([lo, hi])
    };
    let mut mask = 0;
    for k in (0..64).step_by(16) {
        let (b, next) = (load(k), load(k + 1));
        // `80`–`BF`: below -64 as signed bytes.
        let cont = cmp_lt_mask_i8_m128i(b, set_splat_i8_m128i(-64));
        // `E5`–`E9`: shifted to -128..=-124.
        let lead = cmp_lt_mask_i8_m128i(
            add_i8_m128i(b, set_splat_i8_m128i(0x9B_u8 as i8)),
            set_splat_i8_m128i(-123),
        );
        // `E4` and a next byte `B8`–`BF` (above `B7` as signed bytes).
        let e4 = bitand_m128i(
            cmp_eq_mask_i8_m128i(b, set_splat_i8_m128i(0xE4_u8 as i8)),
            cmp_gt_mask_i8_m128i(next, set_splat_i8_m128i(0xB7_u8 as i8)),
        );
        let good = move_mask_i8_m128i(bitor_m128i(bitor_m128i(cont, lead), e4));
        mask |= u64::from(!(good as u32) & 0xFFFF) << k;
    }
    mask
}

/// The stop mask [`chinese_at`] read last in a text, and the position of
/// its first byte: a later call inside the same 64 bytes takes its stops
/// from here instead of classifying the bytes again (a stop bit depends on
/// its byte and the next one only, so a mask is the same whichever call
/// computes it). Its stops up to where that call returned are cleared, and
/// a later call starts past there: that call returned at a stop, and a
/// call starts at an ideograph, which is none.
#[derive(Debug, Clone, Copy)]
pub(super) struct LastStops {
    at: usize,
    stops: u64,
}

impl LastStops {
    /// None yet: no call starts inside it.
    pub(super) const NONE: LastStops = LastStops {
        at: usize::MAX,
        stops: 0,
    };
}

/// Reads Chinese text from the common ideograph at `bytes[i]`: runs of
/// ideographs and the marks, spaces and separators between them; returns
/// where a character the main loop must see (a word, another script)
/// starts. What it does with each character is what the main loop would.
///
/// `K` is `keep` (see `ideograph_run`) for the shipped windows 1–4, `0`
/// for any other `keep`.
#[inline(never)]
pub(super) fn chinese_at<const K: usize>(
    s: &mut Stream,
    bytes: &[u8],
    i: usize,
    keep: usize,
    last: &mut LastStops,
) -> usize {
    s.prev = None;
    // The run being read starts at `start`; stops before it are done.
    let mut start = i;
    // The stops of `bytes[at..at + 64]`, those done cleared: the last
    // call's when `i` is inside its block (a number or a word between two
    // stretches of Chinese, `2018年3月`, most often is), those before `i`
    // cleared.
    let (mut at, mut stops) = match i.checked_sub(last.at) {
        Some(d) if d < 64 => {
            let stops = last.stops & (u64::MAX << d);
            debug_assert_eq!(stops, stops64(bytes, last.at) & (u64::MAX << d));
            (last.at, stops)
        }
        _ => (i, stops64(bytes, i)),
    };
    loop {
        while stops != 0 {
            let q = at + stops.trailing_zeros() as usize;
            stops &= stops - 1;
            // Whole ideographs from `start` to `q`, none when two marks
            // meet.
            if q > start {
                if K == 0 {
                    let (chars, _) = bytes[start..q].as_chunks::<3>();
                    super::scan::push_ends_any(chars, keep, 0, &mut s.units);
                } else {
                    super::scan::push_run::<K>(&bytes[start..q], 0, &mut s.units);
                }
            }
            if q >= bytes.len() {
                return bytes.len();
            }
            let (kind, len) = gap_kind(bytes, q);
            if kind == G_STOP {
                // The block's stops past `q`.
                *last = LastStops { at, stops };
                return q;
            }
            // `Stream::mark` for an anchor, without a branch on whether
            // this is one: a new mark (none at this position yet, `。”，`
            // is one) counts and anchors. (An anchor at the end of the
            // units is a mark's or the start's — a word anchor has its
            // word after it — so a new mark finds none there: `anchor_at`
            // needs no check.)
            let anchor = kind == G_ANCHOR;
            let p = s.units.len();
            let new = anchor & (s.last_punct != p);
            debug_assert!(!new || s.anchors.last() != Some(&p));
            let n = s.anchors.len();
            s.anchors.push(p);
            s.anchors.truncate(n + usize::from(new));
            s.punct += usize::from(new);
            s.last_punct = select_unpredictable(anchor, p, s.last_punct);
            // (A three-byte character's other bytes are no stops.)
            start = q + len;
        }
        at += 64;
        // (The end is a stop: never past it.)
        stops = stops64(bytes, at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the Chinese loop of the scanner did with the character `c`
    /// after a run (the code it replaced, spelled out).
    fn previous_kind(c: char) -> (u8, usize) {
        let code = c as u32;
        if code < 0x80 {
            let k = ASCII_CLASS[code as usize];
            let kind = if k & WORD != 0 {
                G_STOP
            } else if k & ANCHOR != 0 {
                G_ANCHOR
            } else {
                G_SEPARATOR
            };
            return (kind, 1);
        }
        let kind = match code {
            _ if c.len_utf8() != 3 => G_STOP,
            0x3001 | 0x3002 | 0x2026 => G_ANCHOR,
            0xFF01..=0xFF5E => {
                let k = ASCII_CLASS[(code - 0xFEE0) as usize];
                if k & WORD != 0 {
                    G_STOP
                } else if k & ANCHOR != 0 {
                    G_ANCHOR
                } else {
                    G_SEPARATOR
                }
            }
            0x3000 => G_SEPARATOR,
            _ if is_plain_separator(code) => G_SEPARATOR,
            _ => G_STOP,
        };
        (kind, 3)
    }

    #[test]
    fn gap_kinds_are_the_previous_decisions() {
        let mut text = String::new();
        for c in (0..0x11_0000).filter_map(char::from_u32) {
            // Ideographs continue runs: they are never a stop's character.
            if (0x4E00..=0x9FFF).contains(&(c as u32)) {
                continue;
            }
            for end in [false, true] {
                text.clear();
                text.push('中');
                text.push(c);
                if !end {
                    text.push('中');
                }
                let (kind, len) = gap_kind(text.as_bytes(), 3);
                let (want, want_len) = previous_kind(c);
                assert_eq!(kind, want, "{c:?} U+{:04X}", c as u32);
                if kind != G_STOP {
                    assert_eq!(len, want_len, "{c:?}");
                }
            }
        }
    }

    /// Pieces that meet and cut runs: ideographs at both ends of the common
    /// range, `E4` characters below it (U+4000–U+4DFF), other three-byte
    /// leads, two- and four-byte characters, ASCII.
    const PIECES: &[&str] = &[
        "\u{4e00}",
        "\u{4e01}",
        "\u{4fff}",
        "\u{5000}",
        "\u{9fff}",
        "中文",
        "北京大学",
        "\u{4000}",
        "\u{4dff}",
        "\u{4db5}",
        "\u{3400}",
        "\u{3002}",
        "\u{3001}",
        "\u{201c}",
        "\u{ff0c}",
        "\u{ff21}",
        "\u{30a1}",
        "\u{ac00}",
        "\u{e9}",
        "\u{20000}",
        "a",
        "7",
        " ",
        ",",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The SSE2 stops are the byte-at-a-time ones from every start,
        /// across the 16-byte blocks, the 64-byte word and the text's end.
        #[test]
        fn sse2_stops_are_the_portable_ones(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..60),
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            for at in 0..bytes.len() + 3 {
                #[cfg(target_arch = "x86_64")]
                proptest::prop_assert_eq!(
                    stops64_sse2(bytes, at),
                    stops64_portable(bytes, at),
                    "{:?} at {}", text, at
                );
                proptest::prop_assert_eq!(stops64(bytes, at), stops64_portable(bytes, at));
            }
        }
    }

    #[test]
    fn stops_mark_what_does_not_continue_a_run() {
        // 一 (E4 B8 80) continues, 䀀 (E4 80 80) and 。 (E3 80 82) stop,
        // `a` stops, the end and past it stop.
        let text = "一䀀。a一";
        let stops = stops64(text.as_bytes(), 0);
        assert_eq!(stops & 0xFFFF, 0b1110_0010_0100_1000);
        assert_eq!(
            stops64(text.as_bytes(), 0),
            stops64_portable(text.as_bytes(), 0)
        );
    }
}
