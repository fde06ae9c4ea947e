//! The code index of one query scope: which kept records hold a code.
//!
//! The snippet stage never compares two records blindly: it looks each code
//! of a new record up here and counts, per kept record met on the way, the
//! codes they share (`K`, as a multiset). Three pieces:
//!
//! - [`Postings`]: the kept records holding one code, four bytes (one record
//!   inline, or where its list starts in the scope's [`Lists`]).
//! - [`CodeIndex`]: the ordered code → postings `BTreeMap`, split 256 ways by
//!   the code's top byte past 1,024 codes, or as many ways as a scope told
//!   its size needs (why: see its docs).
//! - [`CodeFilter`]: a one-hash Bloom filter over the index's codes, so most
//!   codes of a new record, held by no kept record, skip the tree descent.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use crate::features::FeatureCode;

/// Kept records (local indices) holding one code, ascending, one entry per
/// occurrence so `K` can be counted as a multiset: one record inline (most
/// codes), or, with [`Postings::LIST`] set, where its list starts in the
/// scope's [`Lists`]. Four bytes, so the tree's nodes stay small: an enum
/// holding a `Vec` would be 24 bytes a value, shifted on every insert and
/// dropped one by one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Postings(u32);

impl Postings {
    const LIST: u32 = 1 << 31;

    /// The kept records of `self`, with `lists` the scope's.
    #[inline]
    pub(crate) fn holders<'a>(&'a self, lists: &'a Lists) -> &'a [u32] {
        if self.0 & Self::LIST == 0 {
            std::slice::from_ref(&self.0)
        } else {
            lists.get(self.0 & !Self::LIST)
        }
    }

    /// The one kept record of `self` when it holds one occurrence of one
    /// record (most codes), without a look at the lists.
    #[inline]
    pub(crate) fn single(self) -> Option<u32> {
        (self.0 & Self::LIST == 0).then_some(self.0)
    }

    /// `n` occurrences of kept record `x`, a new entry.
    #[inline]
    fn new(x: u32, n: usize, lists: &mut Lists) -> Postings {
        if n == 1 {
            Postings(x)
        } else {
            Postings(Self::LIST | lists.add(None, x, n))
        }
    }

    /// Adds `n` occurrences of kept record `x`.
    #[inline]
    fn push(&mut self, x: u32, n: usize, lists: &mut Lists) {
        let at = if self.0 & Self::LIST == 0 {
            lists.start(self.0, x, n)
        } else {
            lists.add(Some(self.0 & !Self::LIST), x, n)
        };
        self.0 = Self::LIST | at;
    }
}

/// The posting lists of the codes more than one kept record holds (or one
/// record twice), one after another in one buffer: each is its length, its
/// capacity, then that many slots. A list that outgrows its slots moves to
/// the end with twice as many, leaving the old ones unused (fewer in all
/// than twice the slots in use, and their headers). One buffer, not a `Vec` per list: a list costs no
/// allocation of its own, and dropping a scope frees one block.
#[derive(Debug, Default)]
pub(crate) struct Lists {
    buf: Vec<u32>,
}

impl Lists {
    /// Room for about `slots` slots before the buffer grows.
    pub(crate) fn with_capacity(slots: usize) -> Lists {
        Lists {
            buf: Vec::with_capacity(slots),
        }
    }

    /// The list starting at `at`.
    #[inline]
    fn get(&self, at: u32) -> &[u32] {
        let at = at as usize;
        let len = self.buf[at] as usize;
        &self.buf[at + 2..at + 2 + len]
    }

    /// A new list of `first` then `n` times `x`; returns where it starts.
    fn start(&mut self, first: u32, x: u32, n: usize) -> u32 {
        let at = self.open(n + 1);
        let slots = &mut self.buf[at as usize + 2..];
        slots[0] = first;
        slots[1..=n].fill(x);
        self.buf[at as usize] = (n + 1) as u32;
        at
    }

    /// Adds `n` times `x` to the list at `at` (a new list for `None`);
    /// returns where the list now starts.
    fn add(&mut self, at: Option<u32>, x: u32, n: usize) -> u32 {
        let Some(at) = at else {
            let at = self.open(n);
            self.buf[at as usize + 2..at as usize + 2 + n].fill(x);
            self.buf[at as usize] = n as u32;
            return at;
        };
        let (i, len, cap) = {
            let i = at as usize;
            (i, self.buf[i] as usize, self.buf[i + 1] as usize)
        };
        let (to, slots) = if len + n <= cap {
            (at, i + 2)
        } else {
            let to = self.open((2 * cap).max(len + n));
            let t = to as usize;
            self.buf.copy_within(i + 2..i + 2 + len, t + 2);
            (to, t + 2)
        };
        let t = to as usize;
        self.buf[slots + len..slots + len + n].fill(x);
        self.buf[t] = (len + n) as u32;
        to
    }

    /// Room for a list of `cap` slots at the end (length 0); where it starts.
    fn open(&mut self, cap: usize) -> u32 {
        let cap = cap.max(2);
        let at = self.buf.len();
        assert!(
            at + 2 + cap < Postings::LIST as usize,
            "posting lists over 2^31 slots"
        );
        // One resize (zeroed: length 0), then the capacity.
        self.buf.resize(at + 2 + cap, 0);
        self.buf[at + 1] = cap as u32;
        at as u32
    }
}

/// The code → postings `BTreeMap` of one scope, split by the top bits of
/// the code once it is large: one tree up to 1,024 codes (most scopes: a
/// query's result list), then 256; a scope told its size up front
/// ([`CodeIndex::with_capacity`]) starts with about 8 codes a tree (at most
/// 2,048 trees).
/// Codes are uniform hashes, so the trees share them evenly, and walking
/// the trees in order walks the codes in order: the same ordered index with
/// a radix step for its first level. Why: in one tree of 14,000 codes (the
/// 2,000-record bench) a lookup descends 4 levels, and each level's linear
/// node search ends at a branch no CPU can predict on random keys; 256
/// trees of ~55 codes are 2 levels, and trees of ~8 codes are about one
/// leaf node (11 keys): one level, and fewer nodes than half-full leaves
/// under a root. More trees cost more: their sparse leaves take longer to
/// allocate and drop than the level they save (the measurements are in
/// docs/performance.md, "Why the split").
#[derive(Debug)]
pub(crate) struct CodeIndex {
    /// A power of two of them, the first holding the smallest codes.
    trees: Vec<BTreeMap<FeatureCode, Postings>>,
    codes: usize,
    /// The code count past which the one tree splits (`usize::MAX` once
    /// there are more: one compare a new code, not two).
    split_at: usize,
}

impl Default for CodeIndex {
    fn default() -> Self {
        CodeIndex {
            trees: vec![BTreeMap::new()],
            codes: 0,
            split_at: Self::SPLIT_AT,
        }
    }
}

impl CodeIndex {
    /// Codes in the one tree before it splits (moving them is cheap then).
    const SPLIT_AT: usize = 1 << 10;
    /// log2 of the number of trees after the split.
    const SPLIT_BITS: u32 = 8;
    /// log2 of the most trees a scope told its size starts with.
    const MAX_BITS: u32 = 11;

    /// An index for about `codes` codes: one tree up to the split point,
    /// else about 8 codes a tree from the start (no codes moved later).
    pub(crate) fn with_capacity(codes: usize) -> CodeIndex {
        if codes <= Self::SPLIT_AT {
            return CodeIndex::default();
        }
        let bits = (codes / 8).next_power_of_two().ilog2().min(Self::MAX_BITS);
        CodeIndex {
            trees: (0..1usize << bits).map(|_| BTreeMap::new()).collect(),
            codes: 0,
            split_at: usize::MAX,
        }
    }

    /// The tree of `code`: its top bits, as many as the trees take (a
    /// multiply, not a shift that would be by 64 for one tree: 0.17 M fewer
    /// instructions per `dedup()` of the 2,000-record bench).
    #[inline]
    fn tree_of(&self, code: FeatureCode) -> usize {
        ((u128::from(code.0) * self.trees.len() as u128) >> 64) as usize
    }

    #[inline]
    pub(crate) fn get(&self, code: FeatureCode) -> Option<&Postings> {
        self.trees[self.tree_of(code)].get(&code)
    }

    /// The codes in ascending order, with their postings.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&FeatureCode, &Postings)> {
        self.trees.iter().flat_map(|t| t.iter())
    }

    /// Adds `n` occurrences of kept record `local` under `code`; returns
    /// whether the code is new to the index. (Inlined into the one loop
    /// that adds: a call per code cost more than the body around the
    /// tree's insert.)
    #[inline(always)]
    pub(crate) fn add(
        &mut self,
        code: FeatureCode,
        local: u32,
        n: usize,
        lists: &mut Lists,
    ) -> bool {
        let t = self.tree_of(code);
        let new = match self.trees[t].entry(code) {
            Entry::Vacant(v) => {
                v.insert(Postings::new(local, n, lists));
                true
            }
            Entry::Occupied(mut o) => {
                o.get_mut().push(local, n, lists);
                false
            }
        };
        if new {
            self.codes += 1;
            if self.codes > self.split_at {
                self.split();
            }
        }
        new
    }

    /// How many trees the codes are spread over.
    #[cfg(test)]
    pub(crate) fn tree_count(&self) -> usize {
        self.trees.len()
    }

    /// Distinct codes held.
    #[inline]
    pub(crate) fn code_count(&self) -> usize {
        self.codes
    }

    /// From one tree to 256, each code moved to its new one.
    #[cold]
    #[inline(never)]
    fn split(&mut self) {
        self.split_at = usize::MAX;
        let old = std::mem::take(&mut self.trees);
        self.trees = (0..1usize << Self::SPLIT_BITS)
            .map(|_| BTreeMap::new())
            .collect();
        for (code, p) in old.into_iter().flatten() {
            let t = self.tree_of(code);
            self.trees[t].insert(code, p);
        }
    }
}

/// A one-hash Bloom filter over the codes in a scope's postings. Most codes
/// of a new record are in no kept record, and a tree descent that finds
/// nothing cost more than everything else done per code (callgrind); a bit
/// test answers "not there" for almost all of them. It grows (rebuilt from
/// the postings' keys) to keep at least 8 bits per code, so ≤ ~12 % of
/// absent codes still take the tree; memory is 1 bit per 8 … 16 codes'
/// worth of postings.
#[derive(Debug, Default)]
pub(crate) struct CodeFilter {
    /// A power of two of them (none in the default filter: it says "not
    /// there" to every code until the first insert sizes it).
    bits: Vec<u64>,
    /// 64 − log2 of the bit count: a code's top bits pick its bit (`0`
    /// when empty: every code's word is then out of range).
    shift: u32,
    /// The most codes the bits take (8 bits a code) before a rebuild.
    limit: usize,
}

impl CodeFilter {
    /// First size: 512 bits, a 64-byte line for a small scope.
    const MIN_WORDS: usize = 8;

    /// A filter sized for about `codes` codes: it grows (by a rebuild that
    /// walks the whole index) only past them.
    pub(crate) fn with_capacity(codes: usize) -> CodeFilter {
        let mut f = CodeFilter::default();
        f.resize(codes);
        f
    }

    /// Empty bits for about `codes` codes.
    fn resize(&mut self, codes: usize) {
        let words = Self::words_for(codes);
        self.bits.clear();
        self.bits.resize(words, 0);
        self.shift = 64 - (words * 64).ilog2();
        self.limit = words * 8;
    }

    /// Words for 16 bits a code, a power of two.
    fn words_for(codes: usize) -> usize {
        (codes * 16)
            .div_ceil(64)
            .max(Self::MIN_WORDS)
            .next_power_of_two()
    }

    /// The word and bit of `code`. Codes are already uniform hashes: the
    /// high bits pick the bit (a shift, not a multiply by the bit count
    /// and its high half, which is the same bit for a power of two).
    #[inline]
    fn slot(&self, code: FeatureCode) -> (usize, u64) {
        let i = code.0 >> self.shift;
        ((i >> 6) as usize, 1u64 << (i & 63))
    }

    #[inline]
    pub(crate) fn may_contain(&self, code: FeatureCode) -> bool {
        let (w, b) = self.slot(code);
        self.bits.get(w).is_some_and(|&x| x & b != 0)
    }

    /// Records a code newly added to `postings` (which already holds it:
    /// its code count is this filter's).
    #[inline(always)]
    pub(crate) fn insert(&mut self, code: FeatureCode, postings: &CodeIndex) {
        if postings.code_count() > self.limit {
            self.rebuild(postings);
        } else {
            let (w, b) = self.slot(code);
            self.bits[w] |= b;
        }
    }

    /// Grows the bits for the codes of `postings` and sets theirs.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, postings: &CodeIndex) {
        self.resize(postings.code_count());
        for (&c, _) in postings.iter() {
            let (w, b) = self.slot(c);
            self.bits[w] |= b;
        }
    }
}

/// Which occurrence of its value each value of a sorted sequence is: `1`
/// for the first of a run of equal values, `2` for the next, and so on.
/// One compare with the value before, no look ahead: a walk over the
/// values leaves its loop once, where `chunk_by` tests twice a run whether
/// the slice ends (a branch no CPU predicts, ~10,000 mispredictions a
/// `dedup()` of the 2,000-record bench over its three walks).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Occurrences {
    prev: u64,
    j: u32,
}

impl Occurrences {
    /// For a sequence starting with `first` (`None`: empty).
    #[inline]
    pub(crate) fn new(first: Option<u64>) -> Occurrences {
        // Something other than the first value, so it starts a run.
        Occurrences {
            prev: first.map_or(0, |x| !x),
            j: 0,
        }
    }

    /// The occurrence of `x`, the next value.
    #[inline]
    pub(crate) fn next(&mut self, x: u64) -> u32 {
        self.j = if x == self.prev { self.j + 1 } else { 1 };
        self.prev = x;
        self.j
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix;
    use proptest::prelude::*;

    proptest! {
        /// Occurrence numbers are the places in `chunk_by`'s runs, and
        /// counting a code's `j`-th occurrence once for each kept record
        /// holding it at least `j` times gives `min` of the two run
        /// lengths, as the runs did (the match's `K`).
        #[test]
        fn occurrences_are_places_in_runs(
            mut xs in proptest::collection::vec(0u64..6, 0..40),
            mut ys in proptest::collection::vec(0u64..6, 0..40),
        ) {
            xs.sort_unstable();
            ys.sort_unstable();
            let want: Vec<u32> = xs
                .chunk_by(|a, b| a == b)
                .flat_map(|r| 1..=r.len() as u32)
                .collect();
            let mut occ = Occurrences::new(xs.first().copied());
            let got: Vec<u32> = xs.iter().map(|&x| occ.next(x)).collect();
            prop_assert_eq!(got, want);
            let runs = |v: &[u64]| -> Vec<(u64, usize)> {
                v.chunk_by(|a, b| a == b).map(|r| (r[0], r.len())).collect()
            };
            let k_runs: usize = runs(&xs)
                .iter()
                .map(|&(x, a)| runs(&ys).iter().find(|r| r.0 == x).map_or(0, |r| a.min(r.1)))
                .sum();
            let mut occ = Occurrences::new(xs.first().copied());
            let mut k_occ = 0;
            for &x in &xs {
                let j = occ.next(x);
                let mut held = Occurrences::new(ys.first().copied());
                k_occ += ys.iter().filter(|&&y| held.next(y) == j && y == x).count();
            }
            prop_assert_eq!(k_occ, k_runs);
        }
    }

    /// The filter never says "not there" for a code the index holds, from
    /// the empty default and from a sized start, through its rebuilds; and
    /// its bit is the one the multiply by the bit count picked.
    #[test]
    fn code_filter_holds_every_indexed_code() {
        for start in [None, Some(0), Some(100), Some(5000)] {
            let mut idx = CodeIndex::default();
            let mut lists = Lists::default();
            let mut f = start.map_or_else(CodeFilter::default, CodeFilter::with_capacity);
            for i in 0..3000u64 {
                let c = FeatureCode(mix(i));
                assert!(idx.add(c, i as u32, 1, &mut lists));
                f.insert(c, &idx);
                assert!(f.bits.len().is_power_of_two());
                let n = (f.bits.len() * 64) as u128;
                let bit = ((u128::from(c.0) * n) >> 64) as usize;
                assert_eq!(f.slot(c), (bit / 64, 1 << (bit % 64)));
            }
            assert!((0..3000u64).all(|i| f.may_contain(FeatureCode(mix(i)))));
        }
        assert!(!CodeFilter::default().may_contain(FeatureCode(mix(1))));
    }

    /// Lists grown in any order hold what a `Vec` per list would, and the
    /// slots left behind by moves stay within what is in use.
    #[test]
    fn posting_lists_in_one_buffer_hold_what_vecs_would() {
        let mut lists = Lists::default();
        let mut postings: Vec<Postings> = Vec::new();
        let mut want: Vec<Vec<u32>> = Vec::new();
        for step in 0..20_000u64 {
            let r = mix(step);
            let n = 1 + (r % 3) as usize;
            let x = step as u32;
            if want.is_empty() || r.is_multiple_of(5) {
                postings.push(Postings::new(x, n, &mut lists));
                want.push(vec![x; n]);
            } else {
                // Lists early in the vector grow long; later ones stay short.
                let i = ((r >> 8) as usize % want.len()).min((r >> 40) as usize % want.len());
                postings[i].push(x, n, &mut lists);
                want[i].extend(std::iter::repeat_n(x, n));
            }
        }
        for (p, w) in postings.iter().zip(&want) {
            assert_eq!(p.holders(&lists), &w[..]);
        }
        let in_use: usize = want
            .iter()
            .filter(|w| w.len() > 1)
            .map(|w| w.len() + 2)
            .sum();
        assert!(
            lists.buf.len() <= 4 * in_use,
            "{} slots for {in_use} in use",
            lists.buf.len()
        );
    }

    #[test]
    fn code_index_splits_and_still_finds_every_code() {
        let mut idx = CodeIndex::default();
        let mut lists = Lists::default();
        let codes: Vec<FeatureCode> = (0..3000u64).map(|i| FeatureCode(mix(i))).collect();
        for (i, &c) in codes.iter().enumerate() {
            assert!(idx.add(c, i as u32, 1, &mut lists));
            assert_eq!(
                idx.trees.len(),
                if i < CodeIndex::SPLIT_AT { 1 } else { 256 }
            );
        }
        for (i, &c) in codes.iter().enumerate() {
            let p = idx.get(c).expect("every code is found after the split");
            assert_eq!(p.holders(&lists), &[i as u32]);
        }
        assert!(!idx.add(codes[5], 7, 2, &mut lists));
        assert_eq!(
            idx.get(codes[5]).map(|p| p.holders(&lists)),
            Some(&[5, 7, 7][..])
        );
        assert!(idx.get(FeatureCode(mix(5000))).is_none());
        // Told its size: ~8 codes a tree from the start, never split again.
        for (want, codes) in [(1, 1000), (256, 2048), (2048, 16_000), (2048, 1_000_000)] {
            assert_eq!(
                CodeIndex::with_capacity(codes).tree_count(),
                want,
                "{codes}"
            );
        }
        let mut sized = CodeIndex::with_capacity(16_000);
        for (i, &c) in codes.iter().enumerate() {
            assert!(sized.add(c, i as u32, 1, &mut lists));
        }
        assert_eq!(sized.tree_count(), 2048);
        let sized_keys: Vec<FeatureCode> = sized.iter().map(|(&c, _)| c).collect();
        let keys: Vec<FeatureCode> = idx.iter().map(|(&c, _)| c).collect();
        assert_eq!(keys.len(), 3000);
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "codes in order");
        assert_eq!(
            sized_keys, keys,
            "the sized index holds the same codes in order"
        );
    }
}
