//! Boilerplate: snippets some sites put on every page, and why they are no
//! evidence.
//!
//! Some sites put the same snippet on every page (`百度经验:jingyan.baidu.com`,
//! a warning about outside links). Two rules keep such snippets from merging
//! different pages whose titles differ:
//!
//! - *Too short is no evidence*: a snippet-stage match needs the shorter
//!   feature string to have at least `min_codes` codes (default 4: start and
//!   end anchors plus two marks inside). Only codes at punctuation anchors
//!   and the snippet ends count here; content-defined word anchors (see
//!   [`crate::features`]) refine `K / M` but are no evidence of length. Equal
//!   titles are evidence of their own, so the title stage has no minimum.
//!   (The pipeline's decision rule applies it.)
//! - *Too frequent is no evidence*: when the stream carries several queries,
//!   a code kept under `boilerplate_titles` different titles (default 3) is
//!   ignored from then on — for `K`, for `M` and in the index. Titles, not
//!   queries, are counted on purpose: a popular page met again under many
//!   queries keeps its title and stays deduplicated, while a site's
//!   boilerplate sits under a different title on every page. The counts
//!   live in an exact map up to 2¹⁸ distinct codes, then in a count-min
//!   sketch (4 × 4 MiB, conservative update, saturating at 255): this file's
//!   [`QueryCounts`]. A Bloom filter remembers which (code, title) pairs were
//!   counted ([`count_title`]). Nothing is allocated until a second query
//!   appears, so a single result list never pays for it. Only codes seen
//!   *before* a record can flag it: the first queries of a stream are not
//!   protected by this rule.

use crate::bloom::ScalableBloom;
use crate::features::FeatureCode;
use crate::hash::{HashMap64, mix};

/// "Under how many different titles was this code kept": an exact map
/// while small, then a count-min sketch of fixed size.
#[derive(Debug)]
pub(crate) enum QueryCounts {
    Exact(HashMap64<u64, u8>),
    Sketch(Vec<u8>),
}

const SKETCH_ROWS: usize = 4;
const SKETCH_BITS: u32 = 22;
/// Distinct codes counted exactly before switching to the sketch (~4 MiB).
const EXACT_LIMIT: usize = 1 << 18;

impl QueryCounts {
    pub(crate) fn new() -> Self {
        QueryCounts::Exact(HashMap64::default())
    }

    #[inline]
    fn slots(code: FeatureCode) -> [usize; SKETCH_ROWS] {
        let mask = (1u64 << SKETCH_BITS) - 1;
        let a = code.0;
        let b = mix(code.0 ^ 0x5851_f42d_4c95_7f2d);
        let w = 1usize << SKETCH_BITS;
        [
            (a & mask) as usize,
            w + ((a >> 32) & mask) as usize,
            2 * w + (b & mask) as usize,
            3 * w + ((b >> 32) & mask) as usize,
        ]
    }

    pub(crate) fn get(&self, code: FeatureCode) -> u8 {
        match self {
            QueryCounts::Exact(m) => m.get(&code.0).copied().unwrap_or(0),
            QueryCounts::Sketch(rows) => Self::slots(code)
                .iter()
                .map(|&i| rows[i])
                .min()
                .unwrap_or(0),
        }
    }

    pub(crate) fn add(&mut self, code: FeatureCode) {
        match self {
            QueryCounts::Exact(m) => {
                let c = m.entry(code.0).or_insert(0);
                *c = c.saturating_add(1);
                if m.len() > EXACT_LIMIT {
                    let mut sketch = QueryCounts::Sketch(vec![0; SKETCH_ROWS << SKETCH_BITS]);
                    for (&k, &n) in m.iter() {
                        for _ in 0..n {
                            sketch.add(FeatureCode(k));
                        }
                    }
                    *self = sketch;
                }
            }
            QueryCounts::Sketch(rows) => {
                // Conservative update: raise only the counters at the minimum.
                let slots = Self::slots(code);
                let est = slots.iter().map(|&i| rows[i]).min().unwrap_or(0);
                for i in slots {
                    if rows[i] == est {
                        rows[i] = est.saturating_add(1);
                    }
                }
            }
        }
    }
}

/// Counts `code` once more when it was not kept under `title` before.
pub(crate) fn count_title(
    counts: &mut QueryCounts,
    pairs: &mut ScalableBloom,
    code: FeatureCode,
    title: u64,
) {
    if title != 0 && !pairs.check_and_insert(mix(code.0 ^ title.rotate_left(29))) {
        counts.add(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_counts_survive_the_switch_to_a_sketch() {
        let mut c = QueryCounts::new();
        for _ in 0..3 {
            c.add(FeatureCode(7));
        }
        for i in 0..(EXACT_LIMIT as u64 + 10) {
            c.add(FeatureCode(mix(i + 100)));
        }
        assert!(matches!(c, QueryCounts::Sketch(_)));
        assert!(c.get(FeatureCode(7)) >= 3);
        let unseen = (0..10_000u64)
            .filter(|i| c.get(FeatureCode(mix((i + 1) << 40))) > 0)
            .count();
        assert!(unseen < 100, "{unseen} of 10,000 unseen codes counted");
    }
}
