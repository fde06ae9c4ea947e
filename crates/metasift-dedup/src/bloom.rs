//! A scalable Bloom filter for URL keys of streams too large for an exact set.
//!
//! A Bloom filter answers "maybe seen" or "certainly not seen" in about 10
//! bits per key at a 1 % false-positive rate, against 16+ bytes per key for
//! an exact hash set. Its price for the URL stage: a "maybe seen" record is
//! reported as a URL duplicate although the filter cannot say *which* record
//! it duplicates (the stream writes `"cluster": null`), and a small share
//! `fpr` of first-time URLs is wrongly called duplicate.
//!
//! The filter grows (Almeida et al., "Scalable Bloom Filters", 2007): it
//! starts with one slice sized for `expected` keys at rate `fpr · (1 − r)`;
//! when a slice holds its capacity a new one twice as large is added with
//! its rate tightened by `r = 1/2`, so the rates form a geometric series and
//! the whole filter stays under `fpr` however many keys arrive. Slices use
//! double hashing (Kirsch–Mitzenmacher) of the 64-bit key.

use crate::hash::mix;

/// One fixed-size Bloom filter.
#[derive(Debug, Clone)]
struct Slice {
    bits: Vec<u64>,
    /// Number of bits (a power of two, so the index is a mask).
    mask: u64,
    hashes: u32,
    capacity: u64,
    len: u64,
}

impl Slice {
    fn new(capacity: u64, fpr: f64) -> Slice {
        let capacity = capacity.max(1);
        let ln2 = std::f64::consts::LN_2;
        let want = (-(capacity as f64) * fpr.ln() / (ln2 * ln2))
            .ceil()
            .max(64.0);
        let bits = (want as u64).next_power_of_two().min(1 << 40);
        let hashes = ((bits as f64 / capacity as f64) * ln2)
            .round()
            .clamp(1.0, 30.0) as u32;
        Slice {
            bits: vec![0; (bits / 64) as usize],
            mask: bits - 1,
            hashes,
            capacity,
            len: 0,
        }
    }

    #[inline]
    fn probe(&self, key: u64, h2: u64, i: u64) -> (usize, u64) {
        let b = key.wrapping_add(i.wrapping_mul(h2)) & self.mask;
        ((b / 64) as usize, 1 << (b % 64))
    }

    fn contains(&self, key: u64) -> bool {
        let h2 = mix(key) | 1;
        (0..u64::from(self.hashes)).all(|i| {
            let (w, bit) = self.probe(key, h2, i);
            self.bits[w] & bit != 0
        })
    }

    fn insert(&mut self, key: u64) {
        let h2 = mix(key) | 1;
        for i in 0..u64::from(self.hashes) {
            let (w, bit) = self.probe(key, h2, i);
            self.bits[w] |= bit;
        }
        self.len += 1;
    }
}

/// A growing Bloom filter of 64-bit keys.
///
/// ```
/// use metasift_dedup::{ScalableBloom, url_key};
///
/// let mut seen = ScalableBloom::new(1_000, 0.01);
/// let key = url_key("https://www.example.com/a?utm_source=x").0;
/// assert!(!seen.check_and_insert(key), "first time: not seen");
/// assert!(seen.contains(url_key("http://example.com/a").0), "same key");
/// ```
#[derive(Debug, Clone)]
pub struct ScalableBloom {
    slices: Vec<Slice>,
    fpr: f64,
}

/// How much tighter each new slice's false-positive rate is.
const TIGHTENING: f64 = 0.5;
/// How much larger each new slice is.
const GROWTH: u64 = 2;

impl ScalableBloom {
    /// A filter expecting about `expected` keys, with overall false-positive
    /// rate at most `fpr` (clamped to `1e-12..=0.5`).
    pub fn new(expected: u64, fpr: f64) -> Self {
        let fpr = if fpr.is_finite() {
            fpr.clamp(1e-12, 0.5)
        } else {
            0.01
        };
        ScalableBloom {
            slices: vec![Slice::new(expected, fpr * (1.0 - TIGHTENING))],
            fpr,
        }
    }

    /// Whether `key` may have been inserted (false positives possible,
    /// false negatives not).
    pub fn contains(&self, key: u64) -> bool {
        self.slices.iter().any(|s| s.contains(key))
    }

    /// Inserts `key`; returns `true` when it was (maybe) present already.
    pub fn check_and_insert(&mut self, key: u64) -> bool {
        if self.contains(key) {
            return true;
        }
        let full = self.slices.last().is_none_or(|s| s.len >= s.capacity);
        if full {
            let n = self.slices.len() as i32;
            let last_cap = self.slices.last().map_or(1, |s| s.capacity);
            let rate = self.fpr * (1.0 - TIGHTENING) * TIGHTENING.powi(n);
            self.slices
                .push(Slice::new(last_cap.saturating_mul(GROWTH), rate));
        }
        if let Some(s) = self.slices.last_mut() {
            s.insert(key);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ScalableBloom {
        /// Number of slices (grows when the expected count is exceeded).
        fn slices(&self) -> usize {
            self.slices.len()
        }
    }

    #[test]
    fn no_false_negatives_and_rate_holds_while_growing() {
        // Expect 1,000 but insert 50,000: five-plus slices.
        let mut f = ScalableBloom::new(1_000, 0.01);
        for i in 0..50_000u64 {
            f.check_and_insert(mix(i));
        }
        assert!(f.slices() > 4);
        assert!((0..50_000u64).all(|i| f.contains(mix(i))));
        let fp = (1_000_000..1_100_000u64)
            .filter(|&i| f.contains(mix(i)))
            .count();
        assert!(fp < 1_000, "{fp} false positives in 100,000");
    }

    #[test]
    fn odd_parameters_do_not_panic() {
        for (n, p) in [(0, 0.0), (1, 1.0), (5, f64::NAN), (u64::MAX >> 30, 0.5)] {
            let mut f = ScalableBloom::new(n.min(1 << 20), p);
            assert!(!f.check_and_insert(7));
            assert!(f.check_and_insert(7));
        }
    }
}
