//! The hostname rules applied to one search ([`crate::hosts`] decides what
//! matches): `remove` takes records out of the engine answers before they
//! are fused (a removed record never joins a group, nor lends it a title);
//! `boost` and `lower` are the factor fusion multiplies each group's score
//! by ([`crate::fusion::hosts`]); `replace` rewrites the links of the page
//! shown, after the fusion and its paging, so the dedup key, the folding
//! of duplicates and the results left out for being on an earlier page all
//! see the original links: a replaced link folds with its original by
//! construction. Every rule reads the host of a record's original link
//! (its real target, [`EngineResult::key`]).
//!
//! All three run inside the production of a fused page, whose cache key
//! carries the rules' fingerprint (`Searcher::page`): a page made under
//! one searcher's rules is never served to another.

use std::collections::HashSet;
use std::sync::Arc;

use super::Gathered;
use crate::hosts::{HostRules, host_of};
use crate::model::{EngineResult, MergedResult};
use metasift_dedup as dedup;

/// `gathered` without the records `remove` drops, and how many distinct
/// links were dropped. The answers themselves when nothing is dropped.
pub(super) fn without_removed(
    gathered: &Arc<Gathered>,
    rules: &HostRules,
) -> (Arc<Gathered>, usize) {
    let removes = |r: &EngineResult| host_of(r.key()).is_some_and(|h| rules.removes(&h));
    if rules.is_empty()
        || !gathered
            .answers
            .iter()
            .any(|a| a.results.iter().any(removes))
    {
        return (gathered.clone(), 0);
    }
    let mut dropped = HashSet::new();
    let mut kept = (**gathered).clone();
    for answer in &mut kept.answers {
        answer.results.retain(|r| {
            if removes(r) {
                dropped.insert(dedup::url_key(r.key()));
                false
            } else {
                true
            }
        });
    }
    (Arc::new(kept), dropped.len())
}

/// The factor of a group whose dedup key is built from `link`.
pub(super) fn factor(rules: &HostRules, link: &str) -> f64 {
    host_of(link).map_or(1.0, |h| rules.factor(&h))
}

/// Rewrites the links of `results` (and of their hidden duplicates) that a
/// `replace` rule matches. A result keeps its original link as its dedup
/// key (`key_url`), and its URL line shows the link written.
pub(super) fn replace_links(results: &mut [MergedResult], rules: &HostRules) {
    if !rules.replaces() {
        return;
    }
    for r in results {
        if let Some(link) = rules.replaced(r.key()) {
            if r.key_url.is_none() {
                r.key_url = Some(std::mem::take(&mut r.url));
            }
            r.url = link;
            r.display_url = None;
        }
        for d in &mut r.duplicates {
            if let Some(link) = rules.replaced(&d.url) {
                d.url = link;
            }
        }
    }
}
