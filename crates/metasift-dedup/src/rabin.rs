//! Rabin fingerprints of content-defined blocks, an alternative snippet
//! method for comparison (the seed paper's "share of equal blocks").
//!
//! The snippet is normalized (NFKC, lowercase, everything that is not a
//! letter or digit dropped, whitespace runs kept as one space between words)
//! and cut into blocks where a Rabin fingerprint of the last
//! [`WINDOW`] bytes hits a fixed bit pattern — *content-defined* blocks, so an
//! insertion near the start shifts nothing after the next boundary, unlike
//! fixed-size blocks. Blocks are [`MIN_BLOCK`]..=[`MAX_BLOCK`] bytes (about 24
//! on average: a dozen blocks for a 100-character Chinese snippet). Each block
//! is named by the Rabin fingerprint of its bytes: one [`RabinFingerprint`].
//!
//! Similarity is the share of equal blocks, `K / M` counted like feature
//! codes; the seed paper calls a pair duplicate at `block_threshold = 0.7`.
//!
//! The arithmetic is Rabin's: polynomials over GF(2) modulo the irreducible
//! degree-63 polynomial LBFS uses, with the usual byte-at-a-time tables.

use unicode_normalization::UnicodeNormalization;

/// The fingerprint of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RabinFingerprint(pub u64);

/// Irreducible polynomial of degree 63 (from LBFS).
const POLY: u64 = 0xbfe6_b8a5_bf37_8d83;
/// Bytes in the rolling window that decides block boundaries.
pub(crate) const WINDOW: usize = 12;
/// Smallest block, in bytes (the last block of a snippet may be shorter).
pub(crate) const MIN_BLOCK: usize = 8;
/// Largest block, in bytes.
pub(crate) const MAX_BLOCK: usize = 64;
/// A boundary falls where the rolling fingerprint's low bits are all set.
const BOUNDARY_MASK: u64 = 0x0f;

fn degree(p: u64) -> u32 {
    63 - p.leading_zeros()
}

/// `(nh·x⁶⁴ + nl) mod d` over GF(2).
fn polymod(mut nh: u64, mut nl: u64, d: u64) -> u64 {
    let k = degree(d);
    let d = d << (63 - k);
    if nh != 0 {
        if nh & (1 << 63) != 0 {
            nh ^= d;
        }
        for i in (0..63).rev() {
            if nh & (1u64 << i) != 0 {
                nh ^= d >> (63 - i);
                nl ^= d << (i + 1);
            }
        }
    }
    for i in (k..64).rev() {
        if nl & (1u64 << i) != 0 {
            nl ^= d >> (63 - i);
        }
    }
    nl
}

/// `x·y mod d` over GF(2).
fn polymmult(x: u64, y: u64, d: u64) -> u64 {
    let (mut ph, mut pl) = (0u64, 0u64);
    if x & 1 != 0 {
        pl = y;
    }
    for i in 1..64 {
        if x & (1u64 << i) != 0 {
            ph ^= y >> (64 - i);
            pl ^= y << i;
        }
    }
    polymod(ph, pl, d)
}

/// The byte tables of the polynomial: `t` to append a byte, `u` to remove
/// the byte leaving the window.
#[derive(Debug)]
struct Tables {
    t: [u64; 256],
    u: [u64; 256],
    shift: u32,
}

static TABLES: std::sync::LazyLock<Tables> = std::sync::LazyLock::new(|| {
    let xshift = degree(POLY);
    let t1 = polymod(0, 1u64 << xshift, POLY);
    let mut t = [0u64; 256];
    for (j, e) in t.iter_mut().enumerate() {
        *e = polymmult(j as u64, t1, POLY) | ((j as u64) << xshift);
    }
    let shift = xshift - 8;
    let append = |p: u64, m: u8| ((p << 8) | u64::from(m)) ^ t[(p >> shift) as usize];
    let mut sizeshift = 1u64;
    for _ in 1..WINDOW {
        sizeshift = append(sizeshift, 0);
    }
    let mut u = [0u64; 256];
    for (i, e) in u.iter_mut().enumerate() {
        *e = polymmult(i as u64, sizeshift, POLY);
    }
    Tables { t, u, shift }
});

impl Tables {
    #[inline]
    fn append(&self, p: u64, m: u8) -> u64 {
        ((p << 8) | u64::from(m)) ^ self.t[(p >> self.shift) as usize]
    }
}

/// The Rabin fingerprint of `bytes` (as one block).
pub(crate) fn fingerprint(bytes: &[u8]) -> RabinFingerprint {
    let t = &*TABLES;
    RabinFingerprint(bytes.iter().fold(1u64, |p, &b| t.append(p, b)))
}

/// Normalizes text for blocking (see the module docs) into `out`.
pub(crate) fn normalize_into(text: &str, out: &mut String) {
    out.clear();
    let mut space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else if c.is_whitespace() {
            space = true;
        }
    };
    if text.is_ascii() {
        for c in text.chars() {
            push(c.to_ascii_lowercase(), out);
        }
    } else {
        for c in text.nfkc().flat_map(char::to_lowercase) {
            push(c, out);
        }
    }
}

/// Cuts normalized bytes into content-defined blocks and fingerprints each,
/// into `out` (cleared first), in order.
pub(crate) fn blocks_into(bytes: &[u8], out: &mut Vec<RabinFingerprint>) {
    out.clear();
    let t = &*TABLES;
    let mut window = [0u8; WINDOW];
    let mut pos = 0;
    let mut rolling = 0u64;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let old = window[pos];
        window[pos] = b;
        pos = (pos + 1) % WINDOW;
        rolling = t.append(rolling ^ t.u[old as usize], b);
        let len = i + 1 - start;
        if (len >= MIN_BLOCK && rolling & BOUNDARY_MASK == BOUNDARY_MASK) || len >= MAX_BLOCK {
            out.push(fingerprint(&bytes[start..=i]));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push(fingerprint(&bytes[start..]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Normalizes `text` and returns its block fingerprints in order.
    fn blocks(text: &str) -> Vec<RabinFingerprint> {
        let mut norm = String::new();
        normalize_into(text, &mut norm);
        let mut out = Vec::new();
        blocks_into(norm.as_bytes(), &mut out);
        out
    }

    #[test]
    fn rolling_equals_direct_fingerprint_of_window() {
        // The rolling value after a full window equals the fingerprint of the
        // window's bytes started from 0 — the property the `u` table exists for.
        let t = &*TABLES;
        let data = b"the quick brown fox jumps over the lazy dog";
        let mut window = [0u8; WINDOW];
        let mut pos = 0;
        let mut rolling = 0u64;
        for (i, &b) in data.iter().enumerate() {
            let old = window[pos];
            window[pos] = b;
            pos = (pos + 1) % WINDOW;
            rolling = t.append(rolling ^ t.u[old as usize], b);
            if i + 1 >= WINDOW {
                let direct = data[i + 1 - WINDOW..=i]
                    .iter()
                    .fold(0u64, |p, &b| t.append(p, b));
                assert_eq!(rolling, direct, "at byte {i}");
            }
        }
    }

    #[test]
    fn blocks_are_content_defined() {
        let a = blocks(
            "The quick brown fox jumps over the lazy dog and keeps running far away into the forest",
        );
        let b = blocks(
            "Breaking: the quick brown fox jumps over the lazy dog and keeps running far away into the forest",
        );
        let shared = a.iter().filter(|x| b.contains(x)).count();
        assert!(shared + 2 >= a.len(), "{shared} of {}", a.len());
        assert!(blocks("").is_empty());
        assert_eq!(blocks("Hello, World!"), blocks("hello world"));
    }
}
