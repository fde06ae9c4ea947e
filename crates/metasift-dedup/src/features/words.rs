//! The fast scanner's ASCII word runs, 16 bytes a step: where a run of word
//! bytes (letters, digits, `_`) ends comes from a bit mask, and the word
//! hash takes a fixed number of steps before picking the one at the end, so
//! the end of an English word — a byte no predictor can guess — is no
//! branch for words of up to eight bytes.

use super::UnitHash;
#[cfg(any(test, not(target_arch = "x86_64")))]
use super::scan::WORD_LOWER;

/// Hashes the run of ASCII word bytes at `bytes[i..]` into the word hash
/// `h`, lowercased (the same steps, one per byte, as a byte-at-a-time
/// loop); returns where it stops.
#[inline]
pub(super) fn ascii_word_run(bytes: &[u8], i: usize, h: &mut UnitHash) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        word_run_blocks(bytes, i, h)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        word_run_portable(bytes, i, h)
    }
}

/// [`ascii_word_run`] a byte at a time: the definition, for other targets
/// and the tests.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn word_run_portable(bytes: &[u8], i: usize, h: &mut UnitHash) -> usize {
    let mut x = h.0;
    let mut end = i;
    for &b in bytes.get(i..).unwrap_or_default() {
        let l = WORD_LOWER[usize::from(b)];
        if l == 0 {
            break;
        }
        x = UnitHash::step(x, u64::from(l));
        end += 1;
    }
    h.0 = x;
    end
}

/// [`ascii_word_run`] from [`word_block`]s: the first eight steps are
/// always taken and the one at the word's end kept; longer words go on a
/// byte at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn word_run_blocks(bytes: &[u8], i: usize, h: &mut UnitHash) -> usize {
    let mut x = h.0;
    let mut at = i;
    loop {
        let (words, lower) = word_block(bytes, at);
        // At most 16: the bits above the block are no word bytes.
        let len = (!words).trailing_zeros() as usize;
        let mut steps = [x; 9];
        for k in 0..8 {
            steps[k + 1] = UnitHash::step(steps[k], u64::from(lower[k]));
        }
        if len <= 8 {
            h.0 = steps[len];
            return at + len;
        }
        x = steps[8];
        for &l in &lower[8..len] {
            x = UnitHash::step(x, u64::from(l));
        }
        at += len;
        if len < 16 {
            h.0 = x;
            return at;
        }
    }
}

/// Bit `j` set: `bytes[at + j]` is an ASCII word byte (past the end: none);
/// and the 16 bytes with ASCII letters lowercased (what [`WORD_LOWER`]
/// gives for a word byte).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn word_block(bytes: &[u8], at: usize) -> (u32, [u8; 16]) {
    use safe_arch::{
        add_i8_m128i, bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, m128i,
        move_mask_i8_m128i, set_splat_i8_m128i,
    };
    // Near the end the rest is copied into zeros (no word bytes).
    let padded: [u8; 16];
    let src: &[u8] = match bytes.get(at..at + 16) {
        Some(src) => src,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            let mut buf = [0u8; 16];
            buf[..rest.len()].copy_from_slice(rest);
            padded = buf;
            &padded
        }
    };
    let lo = i64::from_le_bytes(src[..8].try_into().unwrap_or_default());
    let hi = i64::from_le_bytes(src[8..16].try_into().unwrap_or_default());
    let b = m128i::from([lo, hi]);
    // A letter with bit 5 set is lowercase: `a`–`z` shifted to
    // -128..=-103.
    let letter = cmp_lt_mask_i8_m128i(
        add_i8_m128i(
            bitor_m128i(b, set_splat_i8_m128i(0x20)),
            set_splat_i8_m128i(0x1F),
        ),
        set_splat_i8_m128i(-128 + 26),
    );
    // `0`–`9` shifted to -128..=-119.
    let digit = cmp_lt_mask_i8_m128i(
        add_i8_m128i(b, set_splat_i8_m128i(0x50)),
        set_splat_i8_m128i(-128 + 10),
    );
    let underscore = cmp_eq_mask_i8_m128i(b, set_splat_i8_m128i(b'_' as i8));
    let words = move_mask_i8_m128i(bitor_m128i(bitor_m128i(letter, digit), underscore));
    let lower = bitor_m128i(b, bitand_m128i(letter, set_splat_i8_m128i(0x20)));
    let [lower_lo, lower_hi] = <[i64; 2]>::from(lower);
    let mut lower = [0u8; 16];
    lower[..8].copy_from_slice(&lower_lo.to_le_bytes());
    lower[8..].copy_from_slice(&lower_hi.to_le_bytes());
    (words as u32 & 0xFFFF, lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIECES: &[&str] = &[
        "a",
        "Z",
        "m",
        "q",
        "0",
        "9",
        "_",
        "@",
        "[",
        "`",
        "{",
        "/",
        ":",
        " ",
        ".",
        "'",
        ",",
        "hello",
        "World",
        "x1_y2",
        "ABCDEFGHIJ",
        "0123456789",
        "中",
        "é",
        "\u{ff21}",
        "\u{7f}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The block runs give the byte-at-a-time ends and hashes from
        /// every start: words of every length across the 8-step pick, the
        /// 16-byte blocks and the text's end.
        #[test]
        fn block_word_runs_are_the_portable_ones(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
            seed in proptest::prelude::any::<u64>(),
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            for i in 0..bytes.len() + 2 {
                let (mut a, mut b) = (UnitHash(seed), UnitHash(seed));
                let ea = ascii_word_run(bytes, i, &mut a);
                let eb = word_run_portable(bytes, i, &mut b);
                proptest::prop_assert_eq!((ea, a.0), (eb, b.0), "{:?} at {}", text, i);
            }
        }
    }
}
