//! Precision, recall and F1 of a dedup setting against labels.
//!
//! A *positive* is "these two records are duplicates". For labeled pairs the
//! prediction is whether the later record joined the earlier one's group when
//! the two are deduplicated alone. For labeled record sets it is pairwise
//! clustering quality: every pair of records in one result list counts once,
//! predicted positive when the dedup put both in one cluster, truly positive
//! when both carry the same `group`.
//!
//! Edge cases are defined so a sweep never prints NaN: with no predicted
//! positives precision is 1 (nothing was merged wrongly), with no true
//! positives in the data recall is 1.

use metasift_dedup::PairScore;
use metasift_dedup::{self as dedup, Doc, Settings};

use super::data::{Labeled, Pair, Rec, RecordSet};

/// Counts of one evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    /// Merged and truly duplicates.
    pub tp: u64,
    /// Merged but distinct.
    pub fp: u64,
    /// Kept apart but duplicates.
    pub fn_: u64,
    /// Kept apart and distinct.
    pub tn: u64,
}

impl Confusion {
    /// Counts one decision.
    pub fn record(&mut self, predicted: bool, truth: bool) {
        match (predicted, truth) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    /// Sums two counts.
    pub fn add(&mut self, other: Confusion) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
        self.tn += other.tn;
    }

    /// `tp / (tp + fp)`, 1 when nothing was merged.
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// `tp / (tp + fn)`, 1 when there is nothing to find.
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// Harmonic mean of precision and recall (0 when both are 0).
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }

    /// Number of decisions counted.
    pub fn total(&self) -> u64 {
        self.tp + self.fp + self.fn_ + self.tn
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    }
}

fn doc(r: &Rec) -> Doc<'_> {
    Doc::new(&r.url, &r.title, &r.snippet).with_source(&r.engine)
}

/// Whether the dedup, seeing `a` then `b`, attaches `b` to `a`.
pub fn pair_merged(pair: &Pair, settings: &Settings) -> bool {
    let verdicts = dedup::dedup(&[doc(&pair.a), doc(&pair.b)], settings);
    verdicts.get(1).is_some_and(|v| v.cluster == 0)
}

/// Confusion over labeled pairs.
pub fn evaluate_pairs(pairs: &[Pair], settings: &Settings) -> Confusion {
    confusion_at(pairs, &score_pairs(pairs, settings), settings)
}

/// Each pair's score under `settings`' method, window and unit: computed once
/// per series, then judged at every threshold by [`confusion_at`].
pub fn score_pairs(pairs: &[Pair], settings: &Settings) -> Vec<PairScore> {
    pairs
        .iter()
        .map(|p| dedup::similarity(doc(&p.a), doc(&p.b), settings))
        .collect()
}

/// Confusion of scored pairs at the thresholds of `settings`.
pub fn confusion_at(pairs: &[Pair], scores: &[PairScore], settings: &Settings) -> Confusion {
    let mut c = Confusion::default();
    for (p, s) in pairs.iter().zip(scores) {
        c.record(s.stage_at(settings, settings.method).is_some(), p.duplicate);
    }
    c
}

/// The cluster (index of the kept record) of every record of one list
/// deduplicated on its own.
pub fn clusters(set: &RecordSet, settings: &Settings) -> Vec<usize> {
    let docs: Vec<Doc<'_>> = set.records.iter().map(doc).collect();
    dedup::dedup(&docs, settings)
        .into_iter()
        .map(|v| v.cluster)
        .collect()
}

/// Pairwise clustering confusion of one list given its predicted clusters.
pub fn pairwise(groups: &[String], clusters: &[usize]) -> Confusion {
    let mut c = Confusion::default();
    let n = groups.len().min(clusters.len());
    for i in 0..n {
        for j in i + 1..n {
            c.record(clusters[i] == clusters[j], groups[i] == groups[j]);
        }
    }
    c
}

/// Pairwise clustering confusion over labeled record sets. The lists go
/// through one stream, each under its own query, as `metasift dedup` would
/// see the file — so the pipeline's cross-query boilerplate rule applies.
pub fn evaluate_sets(sets: &[RecordSet], settings: &Settings) -> Confusion {
    let mut d = dedup::Deduper::new(settings);
    let mut c = Confusion::default();
    for set in sets {
        let clusters: Vec<usize> = set
            .records
            .iter()
            .map(|r| d.push_query(Some(&set.query), doc(r)).cluster)
            .collect();
        c.add(pairwise(&set.groups, &clusters));
    }
    c
}

/// Confusion of one setting on one data set.
pub fn evaluate(data: &Labeled, settings: &Settings) -> Confusion {
    match data {
        Labeled::Pairs(p) => evaluate_pairs(p, settings),
        Labeled::Sets(s) => evaluate_sets(s, settings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_counts_every_pair_once() {
        let groups: Vec<String> = ["a", "a", "b", "b"].map(String::from).to_vec();
        // Predicted: {0,1,2} and {3}.
        let c = pairwise(&groups, &[0, 0, 0, 3]);
        assert_eq!(
            c,
            Confusion {
                tp: 1,
                fp: 2,
                fn_: 1,
                tn: 2
            }
        );
        assert_eq!(c.total(), 6);
        assert!((c.precision() - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.recall() - 0.5).abs() < 1e-12);
        assert!((c.f1() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn empty_predictions_have_precision_one_and_f1_zero() {
        let c = Confusion {
            tp: 0,
            fp: 0,
            fn_: 3,
            tn: 5,
        };
        assert_eq!(c.precision(), 1.0);
        assert_eq!(c.recall(), 0.0);
        assert_eq!(c.f1(), 0.0);
    }

    /// On STS-B zh dev pairs of the team's data folder, or on our own
    /// Chinese pairs (`tests/data/lab/zh_pairs.tsv`) without it.
    #[test]
    fn pair_scores_decide_like_the_pipeline_on_real_pairs() {
        let path = metasift_data::for_test("pair scores on STS-B zh (our own pairs stand in)")
            .map(|root| root.join("pairs/stsb_multi_mt/zh_dev.tsv"))
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lab/zh_pairs.tsv")
            });
        let opts = super::super::data::LoadOptions {
            title_equal: false,
            limit: 150,
        };
        let file = super::super::data::load(&path, opts).unwrap();
        let Labeled::Pairs(pairs) = &file.data else {
            panic!("pairs expected")
        };
        for method in dedup::Method::ALL {
            for title_equal in [false, true] {
                let pairs: Vec<Pair> = pairs
                    .iter()
                    .cloned()
                    .map(|mut p| {
                        if title_equal {
                            p.b.title = p.a.title.clone();
                        }
                        p
                    })
                    .collect();
                let base = Settings {
                    method,
                    min_codes: 0,
                    ..Settings::default()
                };
                let scores = score_pairs(&pairs, &base);
                for t in [0.3, 0.5, 0.8] {
                    let s = Settings {
                        os1: t,
                        os2: t,
                        block_threshold: t,
                        max_distance: (64.0 * (1.0 - t)) as u32 / 2,
                        ..base.clone()
                    };
                    let direct: Vec<bool> = pairs.iter().map(|p| pair_merged(p, &s)).collect();
                    let scored: Vec<bool> = scores
                        .iter()
                        .map(|sc| sc.stage_at(&s, method).is_some())
                        .collect();
                    assert_eq!(direct, scored, "{method} t={t} titles equal={title_equal}");
                }
            }
        }
    }

    #[test]
    fn equal_urls_are_merged_by_any_method() {
        let rec = |snippet: &str| Rec {
            url: "https://example.org/page".into(),
            title: "t".into(),
            snippet: snippet.into(),
            engine: String::new(),
        };
        let pair = Pair {
            id: "p".into(),
            a: rec("one thing."),
            b: rec("something else entirely!"),
            duplicate: true,
        };
        for method in dedup::Method::ALL {
            let s = Settings {
                method,
                ..Settings::default()
            };
            assert!(pair_merged(&pair, &s), "{method}");
        }
    }
}
