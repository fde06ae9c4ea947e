//! The hostname rules' `boost` and `lower` in the fused score: one
//! multiplication of each group's final score, whatever the scoring method
//! made it, before the fused list is sorted. Which factor a link gets is
//! the caller's (`crate::hosts` through the search layer): fusion only
//! multiplies.

use crate::model::MergedResult;

/// The factor of a group, from the URL its dedup key is built from (the
/// kept record's original link, [`MergedResult::key`]).
pub type Factor<'a> = &'a dyn Fn(&str) -> f64;

/// The factor of fusions without rules: 1 for every link.
pub fn even(_: &str) -> f64 {
    1.0
}

/// Multiplies each group's score by its factor. A factor that is not
/// finite or not > 0 (never one of a validated configuration's) leaves
/// the score as it is.
pub fn weigh(merged: &mut [MergedResult], factor: Factor<'_>) {
    for r in merged {
        let f = factor(r.key());
        if f.is_finite() && f > 0.0 && f != 1.0 {
            r.score *= f;
        }
    }
}
