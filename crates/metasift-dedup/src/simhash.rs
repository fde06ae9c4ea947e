//! 64-bit SimHash (Charikar), an alternative snippet method for comparison.
//!
//! The snippet is cut into the same normalized units as the feature codes
//! (see [`super::features`]); each pair of neighbouring units is a shingle
//! (a one-unit snippet is one shingle). Every shingle's 64-bit hash votes
//! +1 / −1 on each bit; the fingerprint keeps the bits with a positive sum.
//! Two snippets are duplicates when their fingerprints differ in at most
//! `max_distance` bits.
//!
//! Candidates come from a band index instead of all pairs: the 64 bits are
//! cut into `max_distance + 1` bands, and by the pigeonhole principle two
//! fingerprints within that distance agree exactly on at least one band. Past
//! 15 bands (`max_distance ≥ 15`) the bands get too narrow to select anything,
//! so the index falls back to a scan of the kept fingerprints.
//!
//! SimHash sees word sets, not local order beyond two units, so it merges
//! PAWS-X style hard negatives (swapped entities) that feature codes keep
//! apart — that is what the comparison is for.

use crate::hash::{HashMap64, mix};

/// A 64-bit SimHash fingerprint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct SimHash(pub u64);

/// Number of bits in which two fingerprints differ.
pub(crate) fn hamming_distance(a: SimHash, b: SimHash) -> u32 {
    (a.0 ^ b.0).count_ones()
}

/// `1 − distance / 64`, the similarity reported for a SimHash match.
pub(crate) fn similarity(a: SimHash, b: SimHash) -> f64 {
    1.0 - f64::from(hamming_distance(a, b)) / 64.0
}

/// The SimHash of a sequence of unit hashes (bigram shingles).
pub(crate) fn of_units(units: &[u64]) -> SimHash {
    let mut votes = [0i32; 64];
    let mut vote = |h: u64| {
        for (bit, v) in votes.iter_mut().enumerate() {
            if h >> bit & 1 == 1 {
                *v += 1;
            } else {
                *v -= 1;
            }
        }
    };
    match units {
        [] => return SimHash(0),
        [one] => vote(mix(*one)),
        _ => units
            .windows(2)
            .for_each(|w| vote(mix(w[0].rotate_left(17) ^ w[1]))),
    }
    let mut out = 0u64;
    for (bit, v) in votes.iter().enumerate() {
        if *v > 0 {
            out |= 1 << bit;
        }
    }
    SimHash(out)
}

/// Kept fingerprints, found by band.
#[derive(Debug, Clone)]
pub(crate) struct BandIndex {
    max_distance: u32,
    /// `(shift, mask)` of each band; empty when the index scans instead.
    bands: Vec<(u32, u64)>,
    tables: Vec<HashMap64<u64, Vec<u32>>>,
    all: Vec<SimHash>,
}

impl BandIndex {
    /// An empty index for matches within `max_distance` bits.
    pub(crate) fn new(max_distance: u32) -> Self {
        let n = max_distance.min(64) + 1;
        let mut bands = Vec::new();
        if n <= 15 {
            let mut shift = 0;
            for i in 0..n {
                let width = 64 / n + u32::from(i < 64 % n);
                let mask = if width >= 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                bands.push((shift, mask));
                shift += width;
            }
        }
        BandIndex {
            max_distance,
            tables: vec![HashMap64::default(); bands.len()],
            bands,
            all: Vec::new(),
        }
    }

    /// Adds a fingerprint; returns its index in this index.
    pub(crate) fn insert(&mut self, h: SimHash) -> u32 {
        let id = self.all.len() as u32;
        for (t, &(shift, mask)) in self.tables.iter_mut().zip(&self.bands) {
            t.entry(h.0 >> shift & mask).or_default().push(id);
        }
        self.all.push(h);
        id
    }

    /// The earliest kept fingerprint with the smallest distance to `h`,
    /// within `max_distance`, among the fingerprints `accept` allows:
    /// `(index, distance)`.
    pub(crate) fn nearest_where(
        &self,
        h: SimHash,
        mut accept: impl FnMut(u32) -> bool,
    ) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        let mut consider = |id: u32| {
            let d = hamming_distance(self.all[id as usize], h);
            if d <= self.max_distance
                && accept(id)
                && best.is_none_or(|(bi, bd)| d < bd || (d == bd && id < bi))
            {
                best = Some((id, d));
            }
        };
        if self.bands.is_empty() {
            (0..self.all.len() as u32).for_each(consider);
        } else {
            for (t, &(shift, mask)) in self.tables.iter().zip(&self.bands) {
                if let Some(ids) = t.get(&(h.0 >> shift & mask)) {
                    ids.iter().copied().for_each(&mut consider);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl BandIndex {
        /// The earliest kept fingerprint with the smallest distance to `h`,
        /// within `max_distance`: `(index, distance)`.
        fn nearest(&self, h: SimHash) -> Option<(u32, u32)> {
            self.nearest_where(h, |_| true)
        }
    }

    #[test]
    fn band_index_finds_near_and_skips_far() {
        let mut idx = BandIndex::new(3);
        let a = SimHash(0xdead_beef_0123_4567);
        idx.insert(a);
        assert_eq!(idx.nearest(SimHash(a.0 ^ 0b1011)), Some((0, 3)));
        assert_eq!(idx.nearest(SimHash(a.0 ^ 0b1111)), None);
        // Flips spread over every band still within distance: found.
        let spread = SimHash(a.0 ^ (1 | 1 << 20 | 1 << 40));
        assert_eq!(idx.nearest(spread), Some((0, 3)));
    }

    #[test]
    fn scan_fallback_for_wide_distances() {
        let mut idx = BandIndex::new(40);
        idx.insert(SimHash(0));
        assert_eq!(idx.nearest(SimHash(u64::MAX >> 30)), Some((0, 34)));
    }

    #[test]
    fn identical_units_identical_hash() {
        let u = [1, 2, 3, 4];
        assert_eq!(of_units(&u), of_units(&u));
        assert_eq!(hamming_distance(of_units(&u), of_units(&u)), 0);
    }
}
