//! The stages in order: URL, then title and snippet, for a stream of records.
//!
//! [`Deduper::push`] takes records in fused-rank order and returns a
//! [`Verdict`] for each at once: the first record of a group is kept, a later
//! one is attached to the kept record it matches, with the stage and the
//! similarity that matched. Only what later comparisons need is kept per kept
//! record — its URL key, a title hash, its code count and its codes inside
//! the postings map — never its text, so a stream of millions of records fits
//! in memory.
//!
//! 1. **URL.** [`crate::url::key`] compared exactly (a map from key to kept index),
//!    or by a [`ScalableBloom`] filter ([`UrlFilter::Bloom`]), which cannot
//!    say which record a URL duplicates: the verdict then has
//!    `cluster_known = false`.
//! 2. **Title + snippet.** The snippet's codes (feature codes, or Rabin block
//!    fingerprints) are looked up in a `BTreeMap<FeatureCode, postings>` over
//!    the kept records' codes (split 256 ways by the code's top byte once a
//!    query holds over 1,024 codes, or as a list's size needs, see
//!    [`crate::index`]); every kept record sharing a code is a
//!    candidate, and its `K` (multiset) is counted on the way, so no pair of
//!    records is ever compared blindly. With equal normalized titles the
//!    record is a duplicate at similarity ≥ `os1` (stage `title`), otherwise
//!    at ≥ `os2` (stage `snippet`; Rabin uses `block_threshold`). SimHash
//!    uses its band index and `max_distance` for both. The best candidate
//!    wins (highest similarity, then the earliest).
//!
//! **Boilerplate.** Snippets some sites put on every page are no evidence:
//! a snippet-stage match needs `min_codes` codes of evidence, and codes kept
//! under `boilerplate_titles` different titles are ignored once the stream
//! carries several queries (see [`crate::boilerplate`]).
//!
//! **Sources.** A record from the same source (engine) and host as a member
//! of a group, under another URL key and another title, never joins that
//! group at the snippet stage, and the codes it shares with the group's kept
//! record of that engine and host become *site codes*, no evidence at the
//! snippet stage from then on (see [`crate::site`]).
//!
//! **Queries.** Records of different queries are never duplicates: each
//! query has its own URL map, postings and kept list (a `query` of `None` is
//! one more scope). Queries are told apart by a 64-bit hash of their text.
//!
//! Empty links skip the URL stage, empty titles never count as equal
//! titles, and a snippet without codes has no snippet evidence at all.

use super::bloom::ScalableBloom;
use super::features::{Extractor, FeatureCode};
use super::rabin::{self, RabinFingerprint};
use super::simhash::SimHash;
use std::collections::VecDeque;
use std::collections::hash_map::Entry;

use super::{Doc, Method, Settings, Stage};
use crate::boilerplate::{QueryCounts, count_title};
use crate::hash::{HashMap64, mix};
use crate::prepare::{Prepared, Preparer};
use crate::site::member_key;
use crate::url::{self, UrlKey};

mod keys;
mod pair;
mod scope;
mod simhash_stage;

pub(crate) use keys::{TitleForm, informative, title_form, title_hash, url_key_host};
pub use pair::{PairScore, similarity};
use scope::{Kept, Scope, shared_with};

/// What the pipeline decided for one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Index (in push order) of the kept record of this record's group; its
    /// own index when it is kept, and also when `cluster_known` is false.
    pub cluster: usize,
    /// The rule that attached it, `None` when it is kept.
    pub stage: Option<Stage>,
    /// For a record the URL stage attached by a canonical identifier (an
    /// arXiv ID, a DOI, a video ID, …: see [`crate::canonical_id`]), the
    /// identifier's namespace (`arxiv`, `doi`, `youtube`, …): what
    /// `explain` names. `None` otherwise.
    pub canonical: Option<&'static str>,
    /// The snippet similarity that matched, where a similarity applies.
    pub similarity: Option<f64>,
    /// Feature codes shared with the kept record (for `explain`).
    pub shared_codes: Vec<FeatureCode>,
    /// `false` when a Bloom URL filter says "seen" but cannot say by which
    /// record: `cluster` is then meaningless (the stream writes `null`).
    pub cluster_known: bool,
}

impl Verdict {
    /// Whether the record is the kept one of its group.
    pub fn is_kept(&self) -> bool {
        self.stage.is_none()
    }

    fn kept(index: usize) -> Verdict {
        Verdict {
            cluster: index,
            stage: None,
            canonical: None,
            similarity: None,
            shared_codes: Vec::new(),
            cluster_known: true,
        }
    }
}

/// The work a [`Deduper`] did so far, in units that do not depend on the
/// machine: what bounds a search's CPU by construction (see
/// [`crate::clip`]) is checked against these, never against a clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Bytes of titles and snippets its own preparer read (after clipping;
    /// records pushed prepared elsewhere are not counted here).
    pub bytes: u64,
    /// Codes (feature codes, Rabin blocks) of records matched against the
    /// code index.
    pub codes: u64,
    /// Postings entries walked while counting shared codes.
    pub postings: u64,
}

impl Work {
    /// All three counts added: one number to bound.
    pub fn total(&self) -> u64 {
        self.bytes
            .saturating_add(self.codes)
            .saturating_add(self.postings)
    }
}

/// How the URL stage remembers keys.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum UrlFilter {
    /// A map from URL key to kept index: exact, ~16 bytes per URL.
    #[default]
    Exact,
    /// A scalable Bloom filter: ~10 bits per URL at 1 %, but a duplicate's
    /// kept record is unknown and a share `fpr` of new URLs is called seen.
    Bloom {
        /// Overall false-positive rate.
        fpr: f64,
        /// Number of URLs expected (the first slice's capacity).
        expected: u64,
    },
}

/// The one decision rule, shared by the stream and the pair score.
fn decide(
    method: Method,
    s: &Settings,
    title_equal: bool,
    sim: f64,
    m: usize,
    evidence: usize,
    distance: Option<u32>,
) -> Option<Stage> {
    if m == 0 || method == Method::None {
        return None;
    }
    let stage = if title_equal {
        Stage::Title
    } else {
        Stage::Snippet
    };
    if !title_equal && evidence < s.min_codes {
        return None;
    }
    let ok = match method {
        Method::SimHash => distance.is_some_and(|d| d <= s.max_distance),
        Method::Rabin if !title_equal => sim >= s.block_threshold,
        _ if title_equal => sim >= s.os1,
        _ => sim >= s.os2,
    };
    ok.then_some(stage)
}

/// Streaming deduplicator: push records in fused-rank order.
#[derive(Debug)]
pub struct Deduper {
    settings: Settings,
    explain: bool,
    bloom: Option<ScalableBloom>,
    /// The scopes in the order their queries first came, and where each
    /// query's is: a record's stages reach its scope by index (`cur`), not
    /// by a hash lookup each.
    scopes: Vec<Scope>,
    scope_of: HashMap64<u64, usize>,
    /// The scope of the record being decided (set by `begin`), and its
    /// query key: records of one query come together, so most find their
    /// scope without a lookup.
    cur: usize,
    cur_key: Option<u64>,
    /// Records expected in the next new scope ([`Deduper::sized_for`]).
    expected: usize,
    count: usize,
    /// Per code, the number of different titles it was kept under, and the
    /// (code, title) pairs already counted.
    counts: Option<(QueryCounts, ScalableBloom)>,
    /// [`Deduper::push_query`]'s preparer and record.
    preparer: Preparer,
    /// Boxed: taken out and put back per record, a pointer moves, not the
    /// record (~150 bytes, twice a record).
    prepared: Option<Box<Prepared>>,
    codes: Vec<FeatureCode>,
    touched: Vec<u32>,
    /// Kept records whose titles are the new record's once a cut is allowed.
    alike: Vec<u32>,
    /// Bytes of normalized titles the scopes store for the cut-title rule,
    /// and the scopes storing some, in the order they stored their first
    /// (see [`TITLE_BUDGET`]).
    title_bytes: usize,
    title_order: VecDeque<u64>,
    /// [`TITLE_BUDGET`], smaller in tests.
    title_budget: usize,
    /// [`Work::codes`].
    codes_matched: u64,
}

/// Bytes of normalized titles kept for the cut-title rule over all scopes.
/// Past it the scopes that stored their first title earliest (never the
/// current record's) forget theirs: their kept records are then alike to no
/// cut title. A stream takes its queries' records together, so the queries
/// forgotten are those done long before: the 1,000,000 realistic records
/// of `gen_records --realistic` keep 366,915 records under 36,754 queries,
/// ~20 MB of titles, ~560 bytes a query, so 1 MiB holds the last ~1,800
/// queries' titles (before, the store grew with the stream: VmHWM 237 MB).
const TITLE_BUDGET: usize = 1 << 20;

impl Deduper {
    /// A deduplicator with these settings.
    pub fn new(settings: &Settings) -> Self {
        Deduper {
            settings: settings.clone(),
            explain: false,
            bloom: None,
            scopes: Vec::new(),
            scope_of: HashMap64::default(),
            cur: 0,
            cur_key: None,
            expected: 0,
            count: 0,
            counts: None,
            preparer: Preparer::new(settings),
            prepared: None,
            codes: Vec::new(),
            touched: Vec::new(),
            alike: Vec::new(),
            title_bytes: 0,
            title_order: VecDeque::new(),
            title_budget: TITLE_BUDGET,
            codes_matched: 0,
        }
    }

    /// A deduplicator that fills [`Verdict::shared_codes`].
    pub fn with_explain(settings: &Settings) -> Self {
        Deduper::new(settings).explain(true)
    }

    /// Turns filling [`Verdict::shared_codes`] on or off.
    pub fn explain(mut self, on: bool) -> Self {
        self.explain = on;
        self
    }

    /// Chooses how the URL stage remembers keys (call before the first push).
    pub fn url_filter(mut self, filter: UrlFilter) -> Self {
        self.bloom = match filter {
            UrlFilter::Exact => None,
            UrlFilter::Bloom { fpr, expected } => Some(ScalableBloom::new(expected, fpr)),
        };
        self
    }

    /// Says that about `records` records of one query come next, so the
    /// next query's memory is set aside once rather than grown record by
    /// record (a whole result list, say); a hint only, decisions are the
    /// same without it.
    pub fn sized_for(mut self, records: usize) -> Self {
        self.expected = records;
        self
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Records pushed so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// The work done so far ([`Work`]).
    pub fn work(&self) -> Work {
        Work {
            bytes: self.preparer.bytes_read(),
            codes: self.codes_matched,
            postings: self.scopes.iter().map(|s| s.visited).sum(),
        }
    }

    /// Whether nothing was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Decides for the next record (all records in one scope).
    pub fn push(&mut self, doc: Doc<'_>) -> Verdict {
        self.push_query(None, doc)
    }

    /// [`Deduper::push`], also giving the record's URL key ([`url_key`] of
    /// its link) as the URL stage computed it, for callers that group
    /// records by it too.
    ///
    /// [`url_key`]: crate::url_key
    pub fn push_keyed(&mut self, doc: Doc<'_>) -> (Verdict, UrlKey) {
        let verdict = self.push_query(None, doc);
        let key = match &self.prepared {
            Some(p) => p.ukey,
            None => url::key(doc.url),
        };
        (verdict, key)
    }

    /// Decides for the next record of `query`; records of different queries
    /// are never duplicates.
    pub fn push_query(&mut self, query: Option<&str>, doc: Doc<'_>) -> Verdict {
        let mut p = self.prepared.take().unwrap_or_default();
        self.preparer.url_half(query, doc, &mut p);
        let idx = self.begin(&p);
        // The snippet half only when the URL stage leaves the record.
        let verdict = match self.url_stage(idx, &p) {
            Some(v) => v,
            None => {
                if self.settings.method != Method::None {
                    self.preparer.snippet_half(doc, &mut p);
                }
                self.after_url(idx, &p)
            }
        };
        self.prepared = Some(p);
        verdict
    }

    /// Decides for the next record, prepared by a [`Preparer`] with the same
    /// settings (on another thread, say): the verdict [`Deduper::push_query`]
    /// gives for the same record, by the same code.
    ///
    /// A record [`Preparer::prepare_in_order`] left without its snippet half
    /// is one the URL stage decides; pushed out of that order, it would be
    /// judged as if its snippet had no codes (a debug build panics).
    pub fn push_prepared(&mut self, p: &Prepared) -> Verdict {
        let idx = self.begin(p);
        match self.url_stage(idx, p) {
            Some(v) => v,
            None => {
                debug_assert!(
                    p.snippet_done || self.settings.method == Method::None,
                    "a record without its snippet half reached the snippet stage"
                );
                self.after_url(idx, p)
            }
        }
    }

    /// The next record's index; opens its query's scope.
    fn begin(&mut self, p: &Prepared) -> usize {
        let idx = self.count;
        self.count += 1;
        // URL-only with a Bloom filter keeps nothing per query: no scope.
        let needs_scope = self.bloom.is_none() || self.settings.method != Method::None;
        if needs_scope && self.cur_key != Some(p.qkey) {
            self.cur_key = Some(p.qkey);
            let next = self.scopes.len();
            self.cur = *self.scope_of.entry(p.qkey).or_insert(next);
            if self.cur == next {
                self.scopes
                    .push(Scope::with_capacity(std::mem::take(&mut self.expected)));
            }
        }
        idx
    }

    /// The URL stage (the first): its verdict when it decides. An empty
    /// link is no evidence: it would match every other empty link.
    fn url_stage(&mut self, idx: usize, p: &Prepared) -> Option<Verdict> {
        if !p.has_url {
            return None;
        }
        if let Some(bloom) = &mut self.bloom {
            if bloom.check_and_insert(mix(p.ukey.0 ^ p.qkey)) {
                return Some(Verdict {
                    cluster: idx,
                    stage: Some(Stage::Url),
                    canonical: p.canon,
                    similarity: None,
                    shared_codes: Vec::new(),
                    cluster_known: false,
                });
            }
        } else if let Some(scope) = self.scopes.get_mut(self.cur) {
            // One hash and probe for the lookup and the insert: a new key
            // is remembered here under the record's own index, which
            // `after_url` corrects when a later stage attaches the record.
            match scope.urls.entry(p.ukey) {
                Entry::Occupied(o) => {
                    let c = *o.get();
                    scope.join(c, p.src);
                    return Some(
                        Verdict {
                            cluster: c,
                            canonical: p.canon,
                            ..Verdict::kept(c)
                        }
                        .with_stage(Stage::Url),
                    );
                }
                Entry::Vacant(v) => {
                    v.insert(idx);
                }
            }
        }
        None
    }

    /// The title and snippet stages, then the URL key remembered.
    fn after_url(&mut self, idx: usize, p: &Prepared) -> Verdict {
        let verdict = if self.settings.method == Method::None {
            Verdict::kept(idx)
        } else {
            self.snippet_stage(idx, p)
        };
        // `url_stage` remembered the key under `idx`; an attached record's
        // key points to its group's kept record.
        if verdict.cluster != idx
            && p.has_url
            && self.bloom.is_none()
            && let Some(scope) = self.scopes.get_mut(self.cur)
            && let Some(c) = scope.urls.get_mut(&p.ukey)
        {
            *c = verdict.cluster;
        }
        verdict
    }

    fn snippet_stage(&mut self, idx: usize, p: &Prepared) -> Verdict {
        let s = &self.settings;
        let method = s.method;
        let (qkey, title, src, host) = (p.qkey, p.title, p.src, p.host);
        if method == Method::SimHash {
            return self.simhash_stage(idx, title, p.simhash, p.units, src);
        }
        let named = p.named;
        let form = p.form;
        let mut alike = std::mem::take(&mut self.alike);
        alike.clear();
        if let Some(scope) = self.scopes.get(self.cur) {
            scope.alike_titles(&p.title_text, form.cut, &mut alike);
        }
        let mut kept_codes = std::mem::take(&mut self.codes);
        // The prepared codes as they are, unless boilerplate ones go.
        let codes: &[FeatureCode] = if self.scopes.len() > 1
            && s.boilerplate_titles > 0
            && let Some((counts, _)) = &self.counts
        {
            let limit = s.boilerplate_titles.min(255) as u8;
            kept_codes.clear();
            kept_codes.extend(p.codes.iter().filter(|&&c| counts.get(c) < limit));
            &kept_codes
        } else {
            &p.codes
        };
        // Boilerplate codes dropped above take their evidence with them.
        let evidence = p.evidence.min(codes.len()) as u32;
        self.codes_matched += codes.len() as u64;
        let mut verdict = self.match_codes(idx, title, codes, evidence, src, &alike);
        if verdict.is_kept() && (named || !alike.is_empty()) {
            let cut = form.cut.then(|| informative(&p.title_text));
            verdict = self.match_title(idx, title, named, cut, &alike, codes, host, src);
        }
        if verdict.is_kept() {
            self.index_codes(
                qkey,
                idx,
                title,
                codes,
                evidence,
                src,
                host,
                named,
                form,
                &p.title_text,
            );
        }
        self.codes = kept_codes;
        self.alike = alike;
        verdict
    }

    #[allow(clippy::too_many_arguments)]
    fn match_codes(
        &mut self,
        idx: usize,
        title: u64,
        codes: &[FeatureCode],
        evidence: u32,
        src: u64,
        alike: &[u32],
    ) -> Verdict {
        let Some(scope) = self.scopes.get_mut(self.cur) else {
            return Verdict::kept(idx);
        };
        let touched = &mut self.touched;
        // A second round only when the first found new site codes.
        let mut best: Option<(f64, u32, Stage)> = None;
        for _round in 0..2 {
            touched.clear();
            let own_site = scope.count_shared(codes, touched);
            best = None;
            // Kept records of this record's source met under another title.
            let mut same_source: Vec<u32> = Vec::new();
            for &cand in touched.iter() {
                let k = std::mem::take(&mut scope.acc[cand as usize]);
                let k_site = std::mem::take(&mut scope.acc_site[cand as usize]);
                let kept = &scope.kept[cand as usize];
                let title_equal = title != 0 && kept.title == title;
                if !title_equal && scope.holds(cand, src) {
                    if kept.source == src && k > k_site {
                        same_source.push(cand);
                    }
                    continue;
                }
                // Site codes count for equal titles only.
                let (k, own, theirs, ev) = if title_equal {
                    (
                        k,
                        codes.len() as u32,
                        kept.codes,
                        evidence.min(kept.evidence),
                    )
                } else {
                    let own = codes.len() as u32 - own_site;
                    let theirs = kept.codes.saturating_sub(kept.site);
                    (
                        k - k_site,
                        own,
                        theirs,
                        evidence.min(own).min(kept.evidence.min(theirs)),
                    )
                };
                let m = own.min(theirs) as usize;
                if m == 0 {
                    continue;
                }
                let sim = f64::from(k) / m as f64;
                // A title an engine cut counts as its full form here; the
                // site rules above still want the titles themselves equal.
                let Some(stage) = decide(
                    self.settings.method,
                    &self.settings,
                    title_equal || alike.contains(&cand),
                    sim,
                    m,
                    ev as usize,
                    None,
                ) else {
                    continue;
                };
                if best.is_none_or(|(bs, bc, _)| sim > bs || (sim == bs && cand < bc)) {
                    best = Some((sim, cand, stage));
                }
            }
            let mut added = false;
            for cand in same_source {
                added |= scope.flag_site_codes(codes, cand);
            }
            if !added {
                break;
            }
        }
        let Some((sim, cand, stage)) = best else {
            return Verdict::kept(idx);
        };
        let shared_codes = if self.explain {
            shared_with(scope, codes, cand)
        } else {
            Vec::new()
        };
        // Only a known source is ever asked about (`Scope::holds`), as in
        // `join`, `match_title` and `index_codes`.
        if src != 0 {
            scope.members.insert(member_key(src, cand), ());
        }
        Verdict {
            cluster: scope.kept[cand as usize].index,
            stage: Some(stage),
            canonical: None,
            similarity: Some(sim),
            shared_codes,
            cluster_known: true,
        }
    }

    /// An informative title equal to a kept record's on another host: the
    /// same page (a story and its copy), whatever windows of its text the
    /// two engines show. A title an engine cut ("…") is equal to the titles
    /// it begins ([`alike`](Scope::alike_titles)) when what is left of it
    /// is informative on its own (`cut`: the new record's title was cut, and
    /// whether its kept prefix is informative).
    #[allow(clippy::too_many_arguments)]
    fn match_title(
        &mut self,
        idx: usize,
        title: u64,
        named: bool,
        cut: Option<bool>,
        alike: &[u32],
        codes: &[FeatureCode],
        host: u64,
        src: u64,
    ) -> Verdict {
        let Some(scope) = self.scopes.get_mut(self.cur) else {
            return Verdict::kept(idx);
        };
        let other_host = |k: &Kept| k.host != host && k.host != 0;
        let exact = named
            .then(|| scope.titles.get(&title).copied())
            .flatten()
            .filter(|&c| other_host(&scope.kept[c as usize]));
        // The shorter of the two titles must say enough alone: a cut title's
        // kept prefix, or the kept record's when that one was cut.
        let cut_copy = || {
            alike.iter().copied().find(|&c| {
                let k = &scope.kept[c as usize];
                // Alike titles: at least one was cut, and each cut one's prefix
                // (the shorter title) must be informative.
                let informative_cuts = cut.unwrap_or(true)
                    && (!k.cut || informative(k.stored_title(&scope.title_text)));
                host != 0 && other_host(k) && informative_cuts
            })
        };
        let Some(cand) = exact.or_else(cut_copy) else {
            return Verdict::kept(idx);
        };
        let kept = &scope.kept[cand as usize];
        let shared = shared_with(scope, codes, cand);
        let m = codes.len().min(kept.codes as usize);
        let index = kept.index;
        let sim = if m == 0 {
            0.0
        } else {
            shared.len() as f64 / m as f64
        };
        if src != 0 {
            scope.members.insert(member_key(src, cand), ());
        }
        Verdict {
            cluster: index,
            stage: Some(Stage::Title),
            canonical: None,
            similarity: Some(sim),
            shared_codes: if self.explain { shared } else { Vec::new() },
            cluster_known: true,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn index_codes(
        &mut self,
        qkey: u64,
        idx: usize,
        title: u64,
        codes: &[FeatureCode],
        evidence: u32,
        src: u64,
        host: u64,
        named: bool,
        form: TitleForm,
        title_text: &str,
    ) {
        let multi = self.scopes.len() > 1 && self.settings.boilerplate_titles > 0;
        if multi && self.counts.is_none() {
            // Backfill: the first scope's codes were indexed before anyone counted.
            let mut counts = QueryCounts::new();
            let mut pairs = ScalableBloom::new(1 << 16, 0.001);
            for scope in &self.scopes {
                for (&code, p) in scope.postings.iter() {
                    for local in p.holders(&scope.lists).chunk_by(|a, b| a == b) {
                        let t = scope.kept.get(local[0] as usize).map_or(0, |k| k.title);
                        count_title(&mut counts, &mut pairs, code, t);
                    }
                }
            }
            self.counts = Some((counts, pairs));
        }
        let Some(scope) = self.scopes.get_mut(self.cur) else {
            return;
        };
        let local = scope.kept.len() as u32;
        let site = scope.site_count(codes);
        if src != 0 {
            scope.members.insert(member_key(src, local), ());
        }
        if named {
            scope.titles.entry(title).or_insert(local);
        }
        let title_at = scope.title_text.len() as u32;
        let first_title = scope.title_text.is_empty() && !title_text.is_empty();
        scope.title_text.push_str(title_text);
        if form.cut {
            scope.cut.push(local);
        }
        scope.kept.push(Kept {
            index: idx,
            title,
            codes: codes.len() as u32,
            evidence,
            simhash: SimHash(0),
            source: src,
            host,
            site,
            title_at,
            title_len: form.len as u16,
            cut: form.cut,
        });
        scope.acc.push(0);
        scope.acc_site.push(0);
        scope.add_codes(codes, local, title, self.counts.as_mut());
        if first_title {
            self.title_order.push_back(qkey);
        }
        self.title_bytes += title_text.len();
        if self.title_bytes > self.title_budget {
            self.forget_titles(qkey);
        }
    }

    /// Makes the scopes that stored titles first forget them until the
    /// store is within [`TITLE_BUDGET`], sparing the scope `current`.
    fn forget_titles(&mut self, current: u64) {
        while self.title_bytes > self.title_budget && self.title_order.len() > 1 {
            let Some(q) = self.title_order.pop_front() else {
                break;
            };
            if q == current {
                self.title_order.push_back(q);
                continue;
            }
            if let Some(scope) = self.scope_of.get(&q).map(|&i| &mut self.scopes[i]) {
                self.title_bytes -= scope.title_text.len();
                scope.forget_titles();
            }
        }
    }
}

impl Verdict {
    fn with_stage(mut self, stage: Stage) -> Verdict {
        self.stage = Some(stage);
        self
    }
}

/// The codes (feature codes, or Rabin blocks as codes) of a snippet for the
/// method in `settings`, in text order; returns the evidence count (codes
/// at punctuation anchors and snippet ends; every block for Rabin).
pub(crate) fn fill_codes(
    extractor: &mut Extractor,
    blocks: &mut Vec<RabinFingerprint>,
    normalized: &mut String,
    snippet: &str,
    s: &Settings,
    out: &mut Vec<FeatureCode>,
) -> usize {
    out.clear();
    match s.method {
        Method::FeatureCode => extractor.codes_into(snippet, s.window, s.unit, out),
        Method::Rabin => {
            rabin::normalize_into(snippet, normalized);
            rabin::blocks_into(normalized.as_bytes(), blocks);
            out.extend(blocks.iter().map(|b| FeatureCode(b.0)));
            out.len()
        }
        Method::SimHash | Method::None => 0,
    }
}

/// Deduplicates a whole list at once (one scope).
pub fn dedup(docs: &[Doc<'_>], settings: &Settings) -> Vec<Verdict> {
    let mut d = Deduper::new(settings).sized_for(docs.len());
    docs.iter().map(|doc| d.push(*doc)).collect()
}

#[cfg(test)]
mod tests {
    use super::pair::codes_and_evidence;
    use super::*;

    /// The codes of `snippet` the method in `settings` compares: feature codes in
    /// text order, or Rabin block fingerprints (as codes); empty for SimHash and
    /// `none`.
    fn codes(snippet: &str, settings: &Settings) -> Vec<FeatureCode> {
        codes_and_evidence(snippet, settings).0
    }

    fn doc<'a>(url: &'a str, title: &'a str, snippet: &'a str) -> Doc<'a> {
        Doc::new(url, title, snippet)
    }

    const NEWS: &str = "The central bank raised rates on Tuesday, citing inflation. \
        Markets fell sharply; analysts said more hikes may follow, and bonds slid.";

    /// One scope past the split (all DuReader results, ~17,000 codes): a
    /// copy of the first record under a new link and title is still found.
    #[test]
    fn a_large_scope_finds_an_early_record() {
        let results = crate::test_data::dureader_results();
        let snippets: Vec<String> = results.into_iter().map(|(_, s)| s).collect();
        let first = snippets
            .iter()
            .position(|s| s.chars().count() >= 80)
            .expect("a long snippet");
        let mut d = Deduper::new(&Settings::default());
        for (i, s) in snippets.iter().enumerate() {
            d.push(doc(&format!("https://a.example/{i}"), &format!("t{i}"), s));
        }
        let scope = d.scopes.first().expect("one scope");
        assert_eq!(
            scope.postings.tree_count(),
            256,
            "{} codes",
            scope.postings.code_count()
        );
        let v = d.push(doc(
            "https://b.example/copy",
            "another title",
            &snippets[first],
        ));
        assert_eq!(v.stage, Some(Stage::Snippet));
        assert_eq!(v.cluster, first);
    }

    #[test]
    fn stages_in_order() {
        let s = Settings::default();
        let docs = [
            doc("https://a.example/1", "Bank raises rates", NEWS),
            doc("https://a.example/1", "Other", "other"),
            doc("https://b.example/2", "Bank raises rates", NEWS),
            doc("https://c.example/3", "Rates up again", NEWS),
            doc(
                "https://d.example/4",
                "Unrelated",
                "Completely different text, nothing shared.",
            ),
        ];
        let v = dedup(&docs, &s);
        assert_eq!(v[0], Verdict::kept(0));
        assert_eq!((v[1].cluster, v[1].stage), (0, Some(Stage::Url)));
        assert_eq!((v[2].cluster, v[2].stage), (0, Some(Stage::Title)));
        assert_eq!((v[3].cluster, v[3].stage), (0, Some(Stage::Snippet)));
        assert_eq!(v[3].similarity, Some(1.0));
        assert!(v[4].is_kept());
    }

    #[test]
    fn short_snippets_need_equal_titles() {
        let s = Settings::default();
        let docs = [
            doc(
                "https://j.example/1",
                "怎么打开链接_百度经验",
                "百度经验:jingyan.baidu.com",
            ),
            doc(
                "https://j.example/2",
                "如何修改密码_百度经验",
                "百度经验:jingyan.baidu.com",
            ),
            doc(
                "https://j.example/3",
                "怎么打开链接_百度经验",
                "百度经验:jingyan.baidu.com",
            ),
        ];
        let v = dedup(&docs, &s);
        assert!(v[1].is_kept());
        assert_eq!(v[2].stage, Some(Stage::Title));
    }

    const SITE: &str = "W3Schools offers free online tutorials, references and exercises in \
        all the major languages of the web. Covering popular subjects like HTML, CSS, \
        JavaScript, Python, SQL, Java, and many, many more.";

    /// Issue #13: Bing gives W3Schools' site description to three pages.
    #[test]
    fn one_source_two_links_two_titles_are_two_pages() {
        let s = Settings::default();
        let mut d = Deduper::new(&s);
        let bing = |url, title| doc(url, title, SITE).with_source("bing");
        assert!(
            d.push(bing("https://w3.example/js_intro", "JS Introduction"))
                .is_kept()
        );
        assert!(
            d.push(bing("https://w3.example/js_syntax", "JS Syntax"))
                .is_kept()
        );
        // The same engine's equal title (another case of the path) still folds …
        let v = d.push(bing("https://w3.example/JS_intro", "JS Introduction"));
        assert_eq!((v.cluster, v.stage), (0, Some(Stage::Title)));
        // … and so does another engine's copy of a page by its link.
        let v = d.push(doc("https://w3.example/js_syntax", "Syntax", "x").with_source("brave"));
        assert_eq!((v.cluster, v.stage), (1, Some(Stage::Url)));
        // One engine's story and its syndicated copy on another host: the
        // shared text is the story's, not a site's.
        let mut d2 = Deduper::new(&s);
        d2.push(doc("https://news.example/a", "Bank raises rates", NEWS).with_source("bing"));
        let v = d2.push(doc("https://wire.example/b", "Rates up - Wire", NEWS).with_source("bing"));
        assert_eq!(v.stage, Some(Stage::Snippet));
        // Unknown sources are judged by their snippets, as before.
        let mut d = Deduper::new(&s);
        d.push(doc("https://w3.example/js_intro", "JS Introduction", SITE));
        let v = d.push(doc("https://w3.example/js_syntax", "JS Syntax", SITE));
        assert_eq!(v.stage, Some(Stage::Snippet));
    }

    /// A group holding a record of one engine takes no other link of that
    /// engine by snippet, even when its kept record is another engine's.
    #[test]
    fn a_group_with_a_member_of_the_source_refuses_its_other_links() {
        let s = Settings::default();
        let mut d = Deduper::new(&s);
        d.push(doc("https://w3.example/js_intro", "Intro", NEWS).with_source("brave"));
        let v = d.push(doc("https://w3.example/js_intro", "Intro", "").with_source("bing"));
        assert_eq!(v.stage, Some(Stage::Url));
        let v = d.push(doc("https://w3.example/other", "Other", NEWS).with_source("bing"));
        assert!(v.is_kept(), "{v:?}");
        let v = d.push(doc("https://mirror.example/x", "Copy", NEWS).with_source("ddg"));
        assert_eq!(v.stage, Some(Stage::Snippet), "other engines still fold");
    }

    /// Once an engine gave a description to two of its links, the codes are
    /// the site's: a third engine's record carrying them folds with neither,
    /// while its equal-title copy still does, and real text still counts.
    #[test]
    fn site_codes_are_no_evidence_for_other_engines() {
        let s = Settings::default();
        let mut d = Deduper::new(&s);
        let bing = |url, title| doc(url, title, SITE).with_source("bing");
        d.push(bing("https://w3.example/js_intro", "JS Introduction"));
        d.push(bing("https://w3.example/js_syntax", "JS Syntax"));
        let other =
            d.push(doc("https://w3.example/js_classes", "JS Classes", SITE).with_source("ddg"));
        assert!(other.is_kept(), "{other:?}");
        let same =
            d.push(doc("https://w3.example/JS_intro", "JS Introduction", SITE).with_source("ddg"));
        assert_eq!((same.cluster, same.stage), (0, Some(Stage::Title)));
        let long = format!("{NEWS} {SITE}");
        d.push(doc("https://news.example/a", "Bank", &long).with_source("bing"));
        let v = d.push(doc("https://mirror.example/a", "Rates", NEWS).with_source("ddg"));
        assert_eq!((v.cluster, v.stage), (4, Some(Stage::Snippet)), "{v:?}");
    }

    /// Issue #13, cut copies: one story under one headline on two hosts,
    /// where the engines show windows of its text that do not overlap.
    /// Stream and pair score agree on a pair: `b` pushed after `a`.
    fn stream_and_pair(a: Doc<'_>, b: Doc<'_>, s: &Settings) -> (Verdict, PairScore) {
        let mut d = Deduper::new(s);
        d.push(a);
        let v = d.push(b);
        let pair = similarity(a, b, s);
        assert_eq!(v.stage, pair.stage, "stream {v:?} and pair {pair:?} agree");
        (v, pair)
    }

    #[test]
    fn a_title_an_engine_cut_is_the_whole_title_on_another_host() {
        let s = Settings::default();
        let lead =
            "The central bank raised rates on Tuesday, citing inflation, and said more may follow.";
        let later =
            "Bonds slid; analysts at three banks expect two more hikes before the summer ends.";
        let whole = doc(
            "https://news.example/a",
            "Central bank raises rates again on Tuesday as inflation stays high - Reuters",
            lead,
        );
        // Cut inside a word ("infl"), the site name gone with the cut.
        let cut = doc(
            "https://wire.example/b",
            "Central bank raises rates again on Tuesday as infl...",
            later,
        );
        for (a, b) in [(whole, cut), (cut, whole)] {
            let (v, pair) = stream_and_pair(a, b, &s);
            assert_eq!((v.cluster, v.stage), (0, Some(Stage::Title)), "{v:?}");
            assert!(pair.title_cut && pair.named_copy, "{pair:?}");
        }
        // Two cuts of one headline at different lengths.
        let shorter = doc(
            "https://third.example/c",
            "Central bank raises rates again on Tue…",
            "Markets had priced it in.",
        );
        let (v, _) = stream_and_pair(cut, shorter, &s);
        assert_eq!(v.stage, Some(Stage::Title), "{v:?}");
    }

    /// The cut-title store is bounded: past its budget the queries that
    /// stored titles first forget them (their records are then alike to no
    /// cut title), never the current query, and the bytes held stay within
    /// the budget and the current query's titles.
    #[test]
    fn the_title_store_forgets_the_oldest_queries_past_its_budget() {
        let s = Settings::default();
        let whole = doc(
            "https://news.example/a",
            "Central bank raises rates again on Tuesday as inflation stays high",
            "The central bank raised rates on Tuesday, citing inflation.",
        );
        let cut = doc(
            "https://wire.example/b",
            "Central bank raises rates again on Tuesday as infl...",
            "Bonds slid; analysts at three banks expect two more hikes.",
        );
        let filler = |i: usize| format!("Other story number {i} about markets and the weather");
        for (budget, folds) in [(TITLE_BUDGET, true), (400, false)] {
            let mut d = Deduper::new(&s);
            d.title_budget = budget;
            assert!(d.push_query(Some("rates"), whole).is_kept());
            for i in 0..20 {
                let (url, title) = (format!("https://x.example/{i}"), filler(i));
                let other = doc(&url, &title, "Something else entirely, said nobody.");
                assert!(d.push_query(Some(&format!("q{i}")), other).is_kept());
                assert!(
                    d.title_bytes <= budget.max(60),
                    "{} bytes held",
                    d.title_bytes
                );
            }
            let v = d.push_query(Some("rates"), cut);
            assert_eq!(
                v.stage == Some(Stage::Title),
                folds,
                "budget {budget}: {v:?}"
            );
        }
        // The current query's titles are never forgotten, even past the budget.
        let mut d = Deduper::new(&s);
        d.title_budget = 10;
        assert!(d.push_query(Some("rates"), whole).is_kept());
        let v = d.push_query(Some("rates"), cut);
        assert_eq!(v.stage, Some(Stage::Title), "{v:?}");
    }

    #[test]
    fn a_cut_title_must_say_enough_and_fit_the_whole_one() {
        let s = Settings::default();
        let a = "Learn the basics of the language with runnable examples and exercises.";
        let b = "A free course: variables, loops, functions and the DOM, one step at a time.";
        let kept = |title| doc("https://a.example/js", title, a);
        let other = |title| doc("https://b.example/learn", title, b);
        for (whole, cut, why) in [
            (
                "JavaScript Tutorial for Beginners",
                "JavaScript Tutorial fo…",
                "two words left: too little to name a page",
            ),
            (
                "Supreme Court hears the borderlands water rights case today",
                "Supreme Court hears the border …",
                "the prefix must end where a word of the whole title ends",
            ),
            (
                "Supreme Court hears the border case",
                "Supreme Court hears the border case on water rights to…",
                "the cut title had more words than the whole one",
            ),
            (
                "Supreme Court hears the border case on water rights today",
                "Supreme Court hears the border dispute over wat…",
                "not a prefix",
            ),
        ] {
            for (x, y) in [(kept(whole), other(cut)), (other(cut), kept(whole))] {
                let (v, pair) = stream_and_pair(x, y, &s);
                assert!(v.is_kept(), "{why}: {v:?}");
                assert!(!pair.named_copy && !pair.title_cut, "{why}: {pair:?}");
            }
        }
        // One site, one engine: cut titles of two of its pages stay two.
        let mut d = Deduper::new(&s);
        d.push(
            doc(
                "https://a.example/one",
                "Supreme Court hears the border case on water rights today",
                a,
            )
            .with_source("bing"),
        );
        let v = d.push(
            doc(
                "https://a.example/two",
                "Supreme Court hears the border case on wa…",
                b,
            )
            .with_source("bing"),
        );
        assert!(v.is_kept(), "{v:?}");
    }

    #[test]
    fn a_cut_chinese_title_selects_os1_as_its_whole_title_does() {
        let s = Settings::default();
        let text = "据新华社报道，国家统计局今天发布数据，十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二，农村上涨百分之二点四。";
        let copy = "据新华社报道，国家统计局今天发布数据，十月份全国居民消费价格同比上涨百分之二点一，食品价格涨幅有所回落，能源价格小幅下降。";
        let whole = "国家统计局发布十月份全国居民消费价格数据解读";
        let pair = |title_b: &str| {
            similarity(
                doc("https://a.example/1", whole, text),
                doc("https://b.example/2", title_b, copy),
                &s,
            )
        };
        let equal = pair(whole);
        let sim = equal.similarity.unwrap();
        assert!(
            sim >= s.os1 && sim < s.os2,
            "the snippets sit between os1 and os2: {sim}"
        );
        assert_eq!(equal.stage, Some(Stage::Title));
        let cut = pair("国家统计局发布十月份全国居民消...");
        assert!(cut.title_cut, "{cut:?}");
        assert_eq!(cut.stage, Some(Stage::Title), "{cut:?}");
        assert!(
            !cut.named_copy,
            "unspaced titles never fold on the title alone"
        );
        assert_eq!(
            pair("国家统计局发布...").stage,
            None,
            "ten characters are the least"
        );
        assert_eq!(pair("十月份居民消费价格同比上涨").stage, None);
        let (v, _) = stream_and_pair(
            doc("https://a.example/1", whole, text),
            doc(
                "https://b.example/2",
                "国家统计局发布十月份全国居民消...",
                copy,
            ),
            &s,
        );
        assert_eq!(v.stage, Some(Stage::Title), "{v:?}");
    }

    #[test]
    fn an_informative_title_on_another_host_is_the_same_story() {
        let s = Settings::default();
        let lead =
            "The central bank raised rates on Tuesday, citing inflation, and said more may follow.";
        let later =
            "Bonds slid; analysts at three banks expect two more hikes before the summer ends.";
        let mut d = Deduper::new(&s);
        d.push(doc(
            "https://news.example/a",
            "Central bank raises rates again on Tuesday",
            lead,
        ));
        let v = d.push(doc(
            "https://wire.example/b",
            "Central bank raises rates again on Tuesday - Reuters",
            later,
        ));
        assert_eq!((v.cluster, v.stage), (0, Some(Stage::Title)), "{v:?}");
        let pair = similarity(
            doc(
                "https://news.example/a",
                "Central bank raises rates again on Tuesday",
                lead,
            ),
            doc(
                "https://wire.example/b",
                "Central bank raises rates again on Tuesday",
                later,
            ),
            &s,
        );
        assert!(pair.named_copy);
        assert_eq!(pair.stage, Some(Stage::Title), "the pair score agrees");
        // The same host: two pages under one headline (a live blog's updates).
        let v = d.push(doc(
            "https://news.example/c",
            "Central bank raises rates again on Tuesday",
            "Other text.",
        ));
        assert!(v.is_kept(), "{v:?}");
        // A short generic title names no page: three sites' tutorials.
        let mut d = Deduper::new(&s);
        d.push(doc("https://a.example/", "JavaScript Tutorial", lead));
        assert!(
            d.push(doc("https://b.example/", "JavaScript Tutorial", later))
                .is_kept()
        );
    }

    #[test]
    fn pair_score_knows_sources() {
        let s = Settings::default();
        let a = doc("https://w3.example/a", "A", SITE).with_source("bing");
        let b = doc("https://w3.example/b", "B", SITE).with_source("bing");
        assert!(similarity(a, b, &s).same_source);
        assert_eq!(similarity(a, b, &s).stage, None);
        assert_eq!(dedup(&[a, b], &s)[1].stage, None);
        let b = b.with_source("ddg");
        assert_eq!(similarity(a, b, &s).stage, Some(Stage::Snippet));
    }

    #[test]
    fn queries_are_separate_scopes() {
        let s = Settings::default();
        let mut d = Deduper::new(&s);
        let a = doc("https://a.example/", "T", NEWS);
        assert!(d.push_query(Some("q1"), a).is_kept());
        assert!(d.push_query(Some("q2"), a).is_kept());
        assert_eq!(d.push_query(Some("q1"), a).cluster, 0);
        assert_eq!(d.push_query(Some("q2"), a).cluster, 1);
    }

    #[test]
    fn boilerplate_across_queries_is_ignored() {
        let s = Settings::default();
        let mut d = Deduper::new(&s);
        let warn = "该经验图片、文字中可能存在外站链接或电话号码等,请注意识别,谨防上当受骗!";
        for q in ["q1", "q2", "q3"] {
            d.push_query(
                Some(q),
                doc(&format!("https://x/{q}/a"), &format!("{q} a"), warn),
            );
        }
        let v = d.push_query(Some("q4"), doc("https://x/4/a", "title a", warn));
        assert!(v.is_kept());
        let v = d.push_query(Some("q4"), doc("https://x/4/b", "title b", warn));
        assert!(v.is_kept(), "{v:?}");
    }

    #[test]
    fn bloom_mode_has_no_cluster() {
        let s = Settings {
            method: Method::None,
            ..Settings::default()
        };
        let mut d = Deduper::new(&s).url_filter(UrlFilter::Bloom {
            fpr: 0.01,
            expected: 10,
        });
        assert!(d.push(doc("https://a.example/", "", "")).is_kept());
        let v = d.push(doc("https://a.example/", "", ""));
        assert_eq!((v.stage, v.cluster_known), (Some(Stage::Url), false));
    }

    #[test]
    fn explain_lists_shared_codes() {
        let s = Settings::default();
        let mut d = Deduper::with_explain(&s);
        d.push(doc("https://a/", "x", NEWS));
        let v = d.push(doc("https://b/", "y", NEWS));
        assert_eq!(v.shared_codes.len(), codes(NEWS, &s).len());
    }

    #[test]
    fn pair_score_matches_pipeline() {
        for method in Method::ALL {
            let s = Settings {
                method,
                ..Settings::default()
            };
            let a = doc("https://a/", "Bank raises rates", NEWS);
            let b = doc("https://b/", "Rates up", NEWS);
            let p = similarity(a, b, &s);
            let v = dedup(&[a, b], &s);
            assert_eq!(p.stage, v[1].stage, "{method}");
        }
    }

    #[test]
    fn simhash_and_rabin_find_copies() {
        for method in [Method::SimHash, Method::Rabin] {
            let s = Settings {
                method,
                ..Settings::default()
            };
            let v = dedup(
                &[doc("https://a/", "A", NEWS), doc("https://b/", "B", NEWS)],
                &s,
            );
            assert_eq!(v[1].stage, Some(Stage::Snippet), "{method}");
        }
    }
}
