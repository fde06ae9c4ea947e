//! What the deduper remembers of one query: its kept records ([`Kept`]),
//! their URL keys, the code index over their codes, the groups' sources and
//! site codes, and the titles the cut-title rule compares ([`Scope`]).

use super::keys::titles_alike;
use crate::bloom::ScalableBloom;
use crate::boilerplate::{QueryCounts, count_title};
use crate::features::FeatureCode;
use crate::hash::HashMap64;
use crate::index::{CodeFilter, CodeIndex, Lists, Occurrences};
use crate::simhash::{BandIndex, SimHash};
use crate::site::member_key;
use crate::url;

/// Kept record of one query scope.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    pub(super) index: usize,
    pub(super) title: u64,
    pub(super) codes: u32,
    pub(super) evidence: u32,
    pub(super) simhash: SimHash,
    /// Its source key: engine and host (`0`: unknown engine).
    pub(super) source: u64,
    /// Its link's host hash (`0`: none).
    pub(super) host: u64,
    /// How many of its codes (multiset) are site codes.
    pub(super) site: u32,
    /// Where its normalized title is in [`Scope::title_text`] (the kept
    /// prefix when an engine cut it; empty when not stored).
    pub(super) title_at: u32,
    pub(super) title_len: u16,
    /// Its title was cut by the engine ("…").
    pub(super) cut: bool,
}

impl Kept {
    pub(super) fn stored_title<'a>(&self, text: &'a str) -> &'a str {
        let at = self.title_at as usize;
        &text[at..at + usize::from(self.title_len)]
    }
}

/// Everything remembered for one query.
#[derive(Debug, Default)]
pub(super) struct Scope {
    pub(super) urls: HashMap64<url::UrlKey, usize>,
    pub(super) kept: Vec<Kept>,
    pub(super) postings: CodeIndex,
    /// The posting lists of codes held by more than one kept record.
    pub(super) lists: Lists,
    /// Which codes `postings` may hold, so most lookups skip the tree.
    pub(super) present: CodeFilter,
    pub(super) bands: Option<BandIndex>,
    /// Running `K` per kept record while one record is matched.
    pub(super) acc: Vec<u32>,
    /// The part of `acc` from site codes.
    pub(super) acc_site: Vec<u32>,
    /// Where in the new record's codes the codes `present` may hold are
    /// (a buffer of [`Scope::count_shared`]).
    pub(super) hits: Vec<u32>,
    /// [`member_key`]s: which source keys each group (by local index) holds.
    pub(super) members: HashMap64<u64, ()>,
    /// Codes a source gave to two of its links: no snippet-stage evidence.
    pub(super) site: HashMap64<u64, ()>,
    /// The first kept record of each informative normalized title.
    pub(super) titles: HashMap64<u64, u32>,
    /// The kept records' normalized titles, one after another.
    pub(super) title_text: String,
    /// Kept records whose titles an engine cut ("…").
    pub(super) cut: Vec<u32>,
    /// Postings entries [`Scope::count_shared`] walked (the deduper's
    /// [`Work`](super::Work)).
    pub(super) visited: u64,
}

impl Scope {
    /// A scope with room for about `records` records: their URL keys, the
    /// kept ones' entries (most records of a list are kept), and the code
    /// index and filter sized for 8 codes a record (the 2,000-record bench
    /// keeps ~7.8 distinct codes a kept record; past that they grow).
    pub(super) fn with_capacity(records: usize) -> Scope {
        Scope {
            postings: CodeIndex::with_capacity(records.saturating_mul(8)),
            present: CodeFilter::with_capacity(records.saturating_mul(8)),
            urls: HashMap64::with_capacity_and_hasher(records, Default::default()),
            kept: Vec::with_capacity(records),
            acc: Vec::with_capacity(records),
            acc_site: Vec::with_capacity(records),
            lists: Lists::with_capacity(records.saturating_mul(4)),
            title_text: String::with_capacity(records.saturating_mul(48)),
            ..Scope::default()
        }
    }

    /// Records that the group kept at push index `cluster` holds a record
    /// of source key `src`.
    pub(super) fn join(&mut self, cluster: usize, src: u64) {
        if src == 0 {
            return;
        }
        // Kept records are in push order.
        if let Ok(local) = self.kept.binary_search_by_key(&cluster, |k| k.index) {
            self.members.insert(member_key(src, local as u32), ());
        }
    }

    /// Whether the group of kept record `local` holds a record of `src`.
    pub(super) fn holds(&self, local: u32, src: u64) -> bool {
        src != 0 && self.members.contains_key(&member_key(src, local))
    }

    /// Makes the codes the new record (`codes`, sorted) shares with kept
    /// record `cand` site codes; returns whether any code was new.
    pub(super) fn flag_site_codes(&mut self, codes: &[FeatureCode], cand: u32) -> bool {
        let mut added = false;
        for code in shared_with(self, codes, cand).chunk_by(|a, b| a == b) {
            let code = code[0];
            if self.site.insert(code.0, ()).is_some() {
                continue;
            }
            added = true;
            if let Some(p) = self.postings.get(code) {
                for holder in p.holders(&self.lists).chunk_by(|a, b| a == b) {
                    if let Some(k) = self.kept.get_mut(holder[0] as usize) {
                        k.site += holder.len() as u32;
                    }
                }
            }
        }
        added
    }

    /// Fills `out` with the kept records whose titles are alike to `title`
    /// ([`titles_alike`]; `cut`: the new record's title was cut, `title` is
    /// its kept prefix). Only a cut title scans every kept title; a whole one
    /// is compared with the few cut ones.
    pub(super) fn alike_titles(&self, title: &str, cut: bool, out: &mut Vec<u32>) {
        if title.is_empty() {
            return;
        }
        if cut {
            for (local, k) in self.kept.iter().enumerate() {
                if titles_alike(title, true, k.stored_title(&self.title_text), k.cut) {
                    out.push(local as u32);
                }
            }
        } else {
            for &local in &self.cut {
                let k = &self.kept[local as usize];
                if titles_alike(title, false, k.stored_title(&self.title_text), true) {
                    out.push(local);
                }
            }
        }
    }

    /// Forgets the stored titles (the deduper's title store is full): no
    /// kept record of this scope is alike to a cut title from now on, until
    /// new ones are kept.
    pub(super) fn forget_titles(&mut self) {
        self.title_text = String::new();
        self.cut = Vec::new();
        for k in &mut self.kept {
            k.title_at = 0;
            k.title_len = 0;
            k.cut = false;
        }
    }

    /// Counts in `acc` (and `acc_site` for site codes) the codes of the
    /// new record (`codes`, sorted) each kept record shares, as a
    /// multiset, pushing to `touched` the kept records met; returns how
    /// many of `codes` are site codes.
    ///
    /// `K` counts a code `min(a, b)` times for a kept record when the new
    /// record holds it `a` times and the kept one `b`: at a code's first
    /// occurrence each holder's `j`-th entry counts for `j` up to `a`, so
    /// a code's postings are walked once whatever its repeats (with
    /// [`crate::MAX_REPEATS`], the walks of one record are linear in its
    /// codes and the kept records' codes). Most postings hold one record:
    /// no list walked. Not inlined: in its own function the loop
    /// keeps its values in registers; and a scope without site codes (most)
    /// takes a loop that never asks.
    #[inline(never)]
    pub(super) fn count_shared(&mut self, codes: &[FeatureCode], touched: &mut Vec<u32>) -> u32 {
        if self.site.is_empty() {
            self.count_shared_in::<false>(codes, touched)
        } else {
            self.count_shared_in::<true>(codes, touched)
        }
    }

    /// [`Scope::count_shared`], asking whether codes are site codes only
    /// when `SITE`.
    #[inline(always)]
    fn count_shared_in<const SITE: bool>(
        &mut self,
        codes: &[FeatureCode],
        touched: &mut Vec<u32>,
    ) -> u32 {
        let mut own_site = 0u32;
        let Scope {
            site,
            present,
            postings,
            lists,
            acc,
            acc_site,
            hits,
            visited,
            ..
        } = self;
        // First where the codes the filter may hold are (~15 %), written
        // without a branch on the filter's answer (no CPU predicts it);
        // then only those are looked up.
        if hits.len() < codes.len() {
            hits.resize(codes.len(), 0);
        }
        let mut n = 0;
        for (i, &code) in codes.iter().enumerate() {
            if SITE && site.contains_key(&code.0) {
                own_site += 1;
            }
            hits[n] = i as u32;
            n += usize::from(present.may_contain(code));
        }
        for &i in &hits[..n] {
            let i = i as usize;
            let code = codes[i];
            // A code's first occurrence counts them all: its later ones
            // take no lookup and no walk of its postings.
            if i > 0 && codes[i - 1] == code {
                continue;
            }
            let Some(&p) = postings.get(code) else {
                continue;
            };
            let is_site = SITE && site.contains_key(&code.0);
            let mut count = |cand: u32| {
                let Some(k) = acc.get_mut(cand as usize) else {
                    return;
                };
                if *k == 0 {
                    touched.push(cand);
                }
                *k += 1;
                if is_site {
                    acc_site[cand as usize] += 1;
                }
            };
            if let Some(cand) = p.single() {
                *visited += 1;
                count(cand);
            } else {
                // The new record holds the code `a` times: a kept record
                // holding it `b` times counts `min(a, b)`, one walk.
                let a = codes[i..].iter().take_while(|&&c| c == code).count() as u32;
                let holders = p.holders(lists);
                *visited += holders.len() as u64;
                let mut held = Occurrences::new(holders.first().copied().map(u64::from));
                for &cand in holders {
                    if held.next(u64::from(cand)) <= a {
                        count(cand);
                    }
                }
            }
        }
        own_site
    }

    /// Indexes the codes (sorted) of the new kept record `local`, and
    /// counts them under `title` for the boilerplate rule (`counts`).
    /// A code held `n` times is added `n` times (the same postings as
    /// adding `n` at once, without finding where runs end); titles are
    /// counted once a code. Not inlined, as [`Scope::count_shared`].
    #[inline(never)]
    pub(super) fn add_codes(
        &mut self,
        codes: &[FeatureCode],
        local: u32,
        title: u64,
        mut counts: Option<&mut (QueryCounts, ScalableBloom)>,
    ) {
        let Scope {
            postings,
            lists,
            present,
            ..
        } = self;
        for (i, &code) in codes.iter().enumerate() {
            if postings.add(code, local, 1, lists) {
                present.insert(code, postings);
            }
            if let Some((counts, pairs)) = &mut counts
                && (i == 0 || codes[i - 1] != code)
            {
                count_title(counts, pairs, code, title);
            }
        }
    }

    /// How many of `codes` (multiset) are site codes.
    pub(super) fn site_count(&self, codes: &[FeatureCode]) -> u32 {
        if self.site.is_empty() {
            return 0;
        }
        codes
            .iter()
            .filter(|c| self.site.contains_key(&c.0))
            .count() as u32
    }
}

/// The sorted codes of the new record that kept record `cand` also holds.
pub(super) fn shared_with(scope: &Scope, codes: &[FeatureCode], cand: u32) -> Vec<FeatureCode> {
    let mut out = Vec::new();
    for run in codes.chunk_by(|a, b| a == b) {
        if let Some(p) = scope.postings.get(run[0]) {
            let m = p
                .holders(&scope.lists)
                .iter()
                .filter(|&&x| x == cand)
                .count();
            out.extend(std::iter::repeat_n(run[0], run.len().min(m)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix;
    use proptest::prelude::*;

    fn sorted_codes(xs: &[u64]) -> Vec<FeatureCode> {
        let mut v: Vec<FeatureCode> = xs.iter().map(|&x| FeatureCode(mix(x))).collect();
        v.sort_unstable();
        v
    }

    /// `K` of two sorted code lists as a multiset: each code counted the
    /// fewer times it is in either (the runs `chunk_by` finds).
    fn k_by_runs(a: &[FeatureCode], b: &[FeatureCode]) -> u32 {
        a.chunk_by(|x, y| x == y)
            .map(|r| {
                let held = b.iter().filter(|&&c| c == r[0]).count();
                r.len().min(held) as u32
            })
            .sum()
    }

    proptest! {
        /// What `add_codes` indexed and `count_shared` counts, for any kept
        /// records and new record (codes repeated, some site codes, scopes
        /// sized or not): per kept record `K` and its site part as the
        /// runs give them, the kept records met once each, and the new
        /// record's site codes.
        #[test]
        fn count_shared_counts_k_as_runs_do(
            kept in proptest::collection::vec(proptest::collection::vec(0u64..24, 0..12), 0..20),
            new in proptest::collection::vec(0u64..24, 0..16),
            site in proptest::collection::vec(0u64..24, 0..4),
            sized in any::<bool>(),
        ) {
            let mut scope = if sized { Scope::with_capacity(300) } else { Scope::default() };
            let kept: Vec<Vec<FeatureCode>> = kept.iter().map(|k| sorted_codes(k)).collect();
            for (local, codes) in kept.iter().enumerate() {
                scope.add_codes(codes, local as u32, 0, None);
                scope.acc.push(0);
                scope.acc_site.push(0);
            }
            for &x in &site {
                scope.site.insert(mix(x), ());
            }
            let new = sorted_codes(&new);
            let mut touched = Vec::new();
            let own_site = scope.count_shared(&new, &mut touched);
            let is_site = |c: &FeatureCode| scope.site.contains_key(&c.0);
            prop_assert_eq!(own_site as usize, new.iter().filter(|c| is_site(c)).count());
            let site_new: Vec<FeatureCode> = new.iter().copied().filter(|c| is_site(c)).collect();
            let mut met = touched.clone();
            met.sort_unstable();
            met.dedup();
            prop_assert_eq!(met.len(), touched.len(), "each kept record met once");
            for (local, codes) in kept.iter().enumerate() {
                let k = k_by_runs(&new, codes);
                prop_assert_eq!(scope.acc[local], k);
                prop_assert_eq!(scope.acc_site[local], k_by_runs(&site_new, codes));
                prop_assert_eq!(touched.contains(&(local as u32)), k > 0);
            }
        }
    }
}
