//! The fusion methods: how a duplicate group's score is made from the
//! places its members hold in the engines' lists.
//!
//! Every member of a group — the kept record and each hidden duplicate —
//! adds its engine's *vote* `w · s`, where `w` is the engine's weight and
//! `s` what the method gives its place (an engine listing one page twice
//! votes twice, as it always has). Then the group's score is *settled*
//! ([`Scorer::settle`]), the one place where a whole-group factor applies,
//! and the groups are sorted by it.
//!
//! | method     | `s` of a member at rank `p` of a list of `n` | settled score |
//! |------------|----------------------------------------------|---------------|
//! | `position` | `1 / p`                                      | Σ votes |
//! | `rrf`      | `1 / (k + p)`                                | Σ votes |
//! | `combsum`  | `1 − (p − 1) / n`                            | Σ votes |
//! | `combmnz`  | `1 − (p − 1) / n`                            | Σ votes × engines that found it |
//! | `borda`    | `(N − p + 1) / N`, `N` the longest list      | Σ votes |
//!
//! `position` and `rrf` use the engine's own position (as shown on its
//! page); `combsum`, `combmnz` and `borda` the rank within the answer as
//! received, so a list of `n` results spans 1 … 1/n.
//!
//! **Why `1 − (p − 1)/n` for CombSum/CombMNZ.** Engines give no scores, only
//! ranks; the normalised score must put every engine on one scale. A linear
//! fall from 1 (first) to 1/n (last) is the rank-based form of min-max
//! normalisation that Lee (1997) and Montague & Aslam (2001) use: an
//! engine's last result still counts as found (MNZ's "non-zero"), and a
//! short list (a wiki's three articles) is stretched over the same range as
//! a long one. The min-max of `1/p` was the alternative: it falls so fast
//! that the second result of one engine beats the fourth of three — the
//! very shape that lets one engine's odd page outrank pages several engines
//! agree on. Borda differs from CombSum in not stretching: every list is
//! scored against the longest, so a short list's last result scores high.

use crate::config::{FusionMethod, FusionSettings};
use crate::model::MergedResult;

use super::EngineAnswer;

/// Scores the members of one fusion's groups under one method.
#[derive(Debug, Clone)]
pub struct Scorer {
    settings: FusionSettings,
    /// Each answer's length (in the answers' order).
    lens: Vec<usize>,
    /// The longest answer's length (Borda's `N`).
    longest: usize,
}

impl Scorer {
    /// The scorer of `settings` for these answers.
    pub fn new(settings: &FusionSettings, answers: &[EngineAnswer]) -> Scorer {
        let lens: Vec<usize> = answers.iter().map(|a| a.results.len()).collect();
        Scorer {
            settings: *settings,
            longest: lens.iter().copied().max().unwrap_or(0),
            lens,
        }
    }

    /// The vote of result `index` (0-based) of answer `answer`, whose
    /// engine has `weight` and showed it at `position`.
    pub fn vote(&self, answer: usize, index: usize, weight: f64, position: u32) -> f64 {
        let p = f64::from(position.max(1));
        // Rank within the answer as received; a list is at least as long
        // as the rank read from it.
        let rank = (index + 1) as f64;
        let n = self.lens.get(answer).copied().unwrap_or(0).max(index + 1) as f64;
        let s = match self.settings.method {
            FusionMethod::Position => 1.0 / p,
            FusionMethod::Rrf => 1.0 / (self.settings.k + p),
            FusionMethod::CombSum | FusionMethod::CombMnz => 1.0 - (rank - 1.0) / n,
            FusionMethod::Borda => {
                let longest = self.longest.max(index + 1) as f64;
                (longest - rank + 1.0) / longest
            }
        };
        weight * s
    }

    /// Settles a group's final score from the sum of its votes: the one
    /// place where a factor of the whole group applies (CombMNZ's count of
    /// engines). Called once per group, after its last member and before
    /// the groups are sorted.
    pub fn settle(&self, r: &mut MergedResult) {
        if self.settings.method == FusionMethod::CombMnz {
            r.score *= r.engines.len().max(1) as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(engine: &str, n: usize) -> EngineAnswer {
        let results: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                serde_json::json!({
                    "url": format!("https://{engine}.example/{i}"), "title": "", "snippet": "",
                    "engine": engine, "position": i + 1, "category": "general",
                })
            })
            .collect();
        serde_json::from_value(
            serde_json::json!({"engine": engine, "weight": 1.0, "results": results}),
        )
        .unwrap()
    }

    /// A group found by `engines` with votes summing to `score` (built from
    /// JSON so it holds whatever fields a result has).
    fn group(score: f64, engines: &[&str]) -> MergedResult {
        serde_json::from_value(serde_json::json!({
            "url": "https://x.example/", "title": "", "content": "", "engine": engines[0],
            "engines": engines, "positions": vec![1; engines.len()], "score": score,
            "category": "general", "duplicates": [],
        }))
        .unwrap()
    }

    fn scorer(method: FusionMethod) -> Scorer {
        let s = FusionSettings::default().with_method(method);
        Scorer::new(&s, &[answer("a", 10), answer("b", 4)])
    }

    #[test]
    fn each_method_scores_a_place_as_its_table_says() {
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        let pos = scorer(FusionMethod::Position);
        assert!(close(pos.vote(0, 1, 2.0, 2), 1.0));
        let rrf = scorer(FusionMethod::Rrf);
        assert!(close(rrf.vote(0, 0, 1.0, 1), 1.0 / 61.0));
        let sum = scorer(FusionMethod::CombSum);
        assert!(close(sum.vote(0, 0, 1.0, 1), 1.0));
        assert!(close(sum.vote(0, 9, 1.0, 10), 0.1));
        // A short list spans the same range.
        assert!(close(sum.vote(1, 3, 1.0, 4), 0.25));
        let borda = scorer(FusionMethod::Borda);
        // …Borda does not stretch it: scored against the longest list.
        assert!(close(borda.vote(1, 3, 1.0, 4), 0.7));
        assert!(close(borda.vote(0, 9, 1.0, 10), 0.1));
    }

    #[test]
    fn combmnz_multiplies_by_the_engines_that_found_the_group() {
        let mut r = group(1.5, &["a", "b", "c"]);
        scorer(FusionMethod::CombMnz).settle(&mut r);
        assert!((r.score - 4.5).abs() < 1e-12);
        scorer(FusionMethod::CombSum).settle(&mut r);
        assert!((r.score - 4.5).abs() < 1e-12, "combsum settles nothing");
    }

    /// The shape: one engine's 2nd result against a page two
    /// engines agree on at 4th. `position` puts the lone page first; the
    /// agreement-aware methods the agreed one.
    #[test]
    fn agreement_beats_one_engines_odd_page_except_under_position() {
        let answers = [answer("a", 10), answer("b", 10), answer("c", 10)];
        for (method, lone_wins) in [
            (FusionMethod::Position, true),
            (FusionMethod::Rrf, false),
            (FusionMethod::CombSum, false),
            (FusionMethod::CombMnz, false),
            (FusionMethod::Borda, false),
        ] {
            let s = Scorer::new(&FusionSettings::default().with_method(method), &answers);
            let mut lone = group(s.vote(0, 1, 1.0, 2), &["a"]);
            // Two engines agreeing at 4th.
            let mut agreed = group((0..2).map(|a| s.vote(a, 3, 1.0, 4)).sum(), &["a", "b"]);
            s.settle(&mut lone);
            s.settle(&mut agreed);
            assert_eq!(lone.score >= agreed.score, lone_wins, "{method}");
        }
    }
}
