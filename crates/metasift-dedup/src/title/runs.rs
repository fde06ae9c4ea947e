//! Where [`fold_fast`](super::fold_fast) has something to do, found sixteen
//! bytes a step: most of a title is printable ASCII and ideographs, copied
//! as they are, so the fold visits only the bytes a bit mask marks (a
//! separator, a space, another character) instead of every byte.

/// Bits for the 16 bytes of `b` from `pos` on (bit `j`: byte `pos + j`;
/// none at or past the end; `pos` below the end). They are read from the
/// block at `pos`, or from the title's last 16 bytes when fewer are left
/// (shifted down), or from a copy padded with zeros (a title shorter than
/// 16 bytes):
///
/// - `stops`: the byte is ASCII whitespace or a control (`00`–`20`, `7F`),
///   a separator byte (`-|_:`), or the lead byte of a character other than
///   U+4000–U+9FFF (`C0`–`E3`, `EA`–`FF`); but not a space between two
///   ASCII letters or digits of the block read (it stays in a run). The
///   others are printable ASCII, the leads `E4`–`E9` and continuation
///   bytes (`80`–`BF`): copied as they are, save upper-case letters;
/// - `upper`: the byte is an upper-case ASCII letter.
#[inline(always)]
pub(super) fn block_bits(b: &[u8], pos: usize) -> (u32, u32) {
    block_bits_with(b, pos, block_masks)
}

/// The masks of one block (see [`block_bits`]): spaces between two
/// letters or digits of the block are no stops.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Masks {
    stops: u32,
    upper: u32,
}

impl Masks {
    #[inline(always)]
    fn bits(self) -> (u32, u32) {
        (self.stops, self.upper)
    }
}

/// [`block_bits`] with the block masks from `masks`.
#[inline(always)]
fn block_bits_with(b: &[u8], pos: usize, masks: impl Fn(&[u8]) -> Masks) -> (u32, u32) {
    let len = b.len();
    if let Some(block) = b.get(pos..pos + 16) {
        return masks(block).bits();
    }
    match len.checked_sub(16) {
        Some(last) => {
            let (s, u) = masks(&b[last..]).bits();
            let by = (pos - last).min(16);
            (s >> by, u >> by)
        }
        None => {
            let mut padded = [0u8; 16];
            let rest = b.get(pos..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            let (s, u) = masks(&padded).bits();
            // The zeros would be stops.
            (s & ((1 << rest.len()) - 1), u)
        }
    }
}

/// The [`Masks`] of one 16-byte block.
#[inline(always)]
fn block_masks(block: &[u8]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    {
        block_masks_sse2(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        block_masks_portable(block)
    }
}

/// [`block_masks`] a byte at a time: the definition, for other targets and
/// the tests.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn block_masks_portable(block: &[u8]) -> Masks {
    let (mut stops, mut upper, mut spaces, mut alnum) = (0u32, 0u32, 0u32, 0u32);
    for (j, &x) in block.iter().take(16).enumerate() {
        let copied = !matches!(x, b'-' | b'|' | b'_' | b':')
            && matches!(x, 0x21..=0x7e | 0x80..=0xbf | 0xe4..=0xe9);
        stops |= u32::from(!copied) << j;
        upper |= u32::from(x.is_ascii_uppercase()) << j;
        spaces |= u32::from(x == b' ') << j;
        alnum |= u32::from(x.is_ascii_alphanumeric()) << j;
    }
    let gaps = spaces & (alnum << 1) & (alnum >> 1);
    Masks {
        stops: stops & !gaps,
        upper,
    }
}

/// [`block_masks`] with SSE2: one 16-byte load, range tests as signed
/// compares of shifted bytes, movemasks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_masks_sse2(block: &[u8]) -> Masks {
    use safe_arch::{
        add_i8_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, m128i,
        move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let word = |k: usize| {
        i64::from_le_bytes(
            block
                .get(k..k + 8)
                .and_then(|w| w.try_into().ok())
                .unwrap_or_default(),
        )
    };
    // Two 8-byte loads LLVM turns into one unaligned 16-byte load.
    let x = m128i::from([word(0), word(8)]);
    let splat = |v: u8| set_splat_i8_m128i(v as i8);
    let mask = |v: m128i| move_mask_i8_m128i(v) as u32 & 0xffff;
    // `x + add` as a signed byte is below `below`: a range test.
    let range =
        |add: u8, below: u8| cmp_lt_mask_i8_m128i(add_i8_m128i(x, splat(add)), splat(below));
    // `21`–`7E` shifted to -128..=-35; `80`–`BF` are below -64; `E4`–`E9`
    // shifted to -128..=-123.
    let printable = range(0x5f, 0xde);
    let continuation = cmp_lt_mask_i8_m128i(x, splat(0xc0));
    let lead = range(0x9c, 0x86);
    let eq = |v: u8| cmp_eq_mask_i8_m128i(x, splat(v));
    let sep = bitor_m128i(
        bitor_m128i(eq(b'-'), eq(b'|')),
        bitor_m128i(eq(b'_'), eq(b':')),
    );
    let copied = mask(bitor_m128i(bitor_m128i(printable, continuation), lead));
    let mut stops = (!copied | mask(sep)) & 0xffff;
    let spaces = mask(eq(b' '));
    if spaces != 0 {
        // A letter with bit 5 set is lower-case: `a`–`z` shifted to
        // -128..=-103; `0`–`9` to -128..=-119.
        let letter = cmp_lt_mask_i8_m128i(
            add_i8_m128i(bitor_m128i(x, splat(0x20)), splat(0x1f)),
            splat(0x9a),
        );
        let alnum = mask(bitor_m128i(letter, range(0x50, 0x8a)));
        stops &= !(spaces & (alnum << 1) & (alnum >> 1));
    }
    Masks {
        stops,
        // `A`–`Z` shifted to -128..=-103.
        upper: mask(range(0x3f, 0x9a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIECES: &[&str] = &[
        "a",
        "Z",
        "q",
        "0",
        "9",
        " ",
        "  ",
        "-",
        "|",
        "_",
        ":",
        "@",
        "[",
        "`",
        "{",
        "~",
        "/",
        "\u{7f}",
        "\u{1}",
        "\t",
        "中",
        "\u{4000}",
        "\u{4dc0}",
        "\u{9fff}",
        "\u{3400}",
        "の",
        "é",
        "·",
        "\u{ff21}",
        "𠀀",
        "hello",
        "World",
        "百度知道",
    ];

    /// The SSE2 masks are the byte-at-a-time ones.
    #[test]
    fn block_masks_are_the_portable_ones() {
        let all: Vec<u8> = (0..=255).collect();
        for block in all
            .chunks(16)
            .chain([&b"ab cd 12 x  Y z "[..], b"                "])
        {
            assert_eq!(block_masks(block), block_masks_portable(block), "{block:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The block bits are the byte-at-a-time ones from every start:
        /// whole blocks, the title's last 16 bytes, short titles.
        #[test]
        fn block_bits_are_the_portable_ones(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            for pos in 0..bytes.len() {
                proptest::prop_assert_eq!(
                    block_bits(bytes, pos),
                    block_bits_with(bytes, pos, block_masks_portable),
                    "{:?} at {}", text, pos
                );
            }
        }
    }
}
