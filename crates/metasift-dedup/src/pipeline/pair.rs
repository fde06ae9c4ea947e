//! The similarity of two records as the pipeline sees them ([`similarity`],
//! [`PairScore`]): what `dedup(&[a, b])` would decide for `b`, for the lab's
//! pair evaluation, threshold sweeps and `explain`.

use super::decide;
use super::keys::{informative, title_form, title_hash, titles_alike};
use crate::features::{Extractor, FeatureCode};
use crate::pipeline::fill_codes;
use crate::simhash;
use crate::{Doc, Method, Settings, Stage, title, url};

/// The similarity of two records as the pipeline sees it (for the lab's pair
/// evaluation and `explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct PairScore {
    /// Equal URL keys.
    pub url_equal: bool,
    /// Equal, non-empty normalized titles (selects `os1`).
    pub title_equal: bool,
    /// One title is the other as an engine cut it ("…"): it selects `os1`
    /// as equal titles do (the site rules still want equal titles).
    pub title_cut: bool,
    /// The method's snippet similarity (`K / M`, share of blocks, or
    /// `1 − distance/64`); `None` for method `none` or when a snippet has no
    /// codes.
    pub similarity: Option<f64>,
    /// `M`: the smaller code (block, unit) count of the two snippets.
    pub codes: usize,
    /// The smaller count of codes at punctuation anchors or a snippet's ends
    /// (what `min_codes` judges; content-defined word anchors add codes but
    /// not evidence). Equal to `codes` for Rabin and SimHash.
    pub evidence: usize,
    /// SimHash only: the Hamming distance.
    pub distance: Option<u32>,
    /// Both records name the same source (engine) and their links the same
    /// host: with different URL keys and titles they are different pages
    /// (see [`Doc::source`]).
    pub same_source: bool,
    /// Equal informative titles (six or more words of a spaced script) on
    /// two hosts: the same story, whatever the snippets share (feature codes
    /// and Rabin only, as in the stream).
    pub named_copy: bool,
    /// The stage that would attach `b` to `a` with the settings given, or
    /// `None` when they would both be kept.
    pub stage: Option<Stage>,
    /// Codes the two snippets share, ascending (multiset).
    pub shared_codes: Vec<FeatureCode>,
}

impl PairScore {
    /// The stage that would attach the pair under other thresholds (the
    /// method stays the one the score was computed with) — lets a threshold
    /// sweep reuse one score.
    pub fn stage_at(&self, settings: &Settings, method: Method) -> Option<Stage> {
        if self.url_equal {
            return Some(Stage::Url);
        }
        if self.named_copy && matches!(method, Method::FeatureCode | Method::Rabin) {
            let by_snippet = self.similarity.and_then(|sim| {
                decide(method, settings, true, sim, self.codes, self.evidence, None)
            });
            return by_snippet.or(Some(Stage::Title));
        }
        let sim = self.similarity?;
        if self.same_source && !self.title_equal {
            return None;
        }
        decide(
            method,
            settings,
            self.title_equal || self.title_cut,
            sim,
            self.codes,
            self.evidence,
            self.distance,
        )
    }
}

/// The codes of `snippet` the method in `settings` compares (feature codes
/// or Rabin block fingerprints as codes, ascending, each at most
/// [`crate::MAX_REPEATS`] times; empty for SimHash and `none`), and how many
/// of them count as evidence for `min_codes`.
pub(super) fn codes_and_evidence(snippet: &str, settings: &Settings) -> (Vec<FeatureCode>, usize) {
    let mut out = Vec::new();
    let evidence = fill_codes(
        &mut Extractor::new().with_word_anchors(settings.word_anchors),
        &mut Vec::new(),
        &mut String::new(),
        snippet,
        settings,
        &mut out,
    );
    // As the stream keeps them: sorted, each code at most `MAX_REPEATS` times.
    out.sort_unstable();
    crate::clip::cap_repeats(&mut out);
    let evidence = evidence.min(out.len());
    (out, evidence)
}

/// How record `b` relates to record `a` under `settings`: what
/// `dedup(&[a, b])` would decide for `b`, plus the raw similarity so a
/// threshold sweep can reuse it ([`PairScore::stage_at`]).
pub fn similarity(a: Doc<'_>, b: Doc<'_>, settings: &Settings) -> PairScore {
    let (a, b) = (crate::clip::clip_doc(a), crate::clip::clip_doc(b));
    let url_equal =
        !a.url.trim().is_empty() && !b.url.trim().is_empty() && url::key(a.url) == url::key(b.url);
    let mut buf = String::new();
    let (ta, tb) = (title_hash(a.title, &mut buf), title_hash(b.title, &mut buf));
    let title_equal = ta != 0 && ta == tb;
    let (ha, hb) = (url::host(a.url), url::host(b.url));
    buf.clear();
    title::normalize_into(a.title, &mut buf);
    let mut other = String::new();
    title::normalize_into(b.title, &mut other);
    let (fa, fb) = (
        title_form(ta, a.title, &buf),
        title_form(tb, b.title, &other),
    );
    let (sa, sb) = (&buf[..fa.len], &other[..fb.len]);
    let title_cut = !title_equal && titles_alike(sa, fa.cut, sb, fb.cut);
    // As in the stream: each cut title's prefix must be informative.
    let informative_titles = if title_cut {
        (!fa.cut || informative(sa)) && (!fb.cut || informative(sb))
    } else {
        title_equal && informative(&buf)
    };
    let named_copy = informative_titles && ha.is_some() && hb.is_some() && ha != hb;
    let mut score = PairScore {
        title_cut,
        named_copy,
        url_equal,
        title_equal,
        same_source: !a.source.is_empty() && a.source == b.source && ha == hb,
        similarity: None,
        codes: 0,
        evidence: 0,
        distance: None,
        stage: None,
        shared_codes: Vec::new(),
    };
    match settings.method {
        Method::None => {}
        Method::SimHash => {
            let mut ex = Extractor::new();
            let ua = ex.units(a.snippet, settings.unit).to_vec();
            let ub = ex.units(b.snippet, settings.unit).to_vec();
            if !ua.is_empty() && !ub.is_empty() {
                let (ha, hb) = (simhash::of_units(&ua), simhash::of_units(&ub));
                score.distance = Some(simhash::hamming_distance(ha, hb));
                score.similarity = Some(simhash::similarity(ha, hb));
                score.codes = ua.len().min(ub.len());
                score.evidence = score.codes;
            }
        }
        Method::FeatureCode | Method::Rabin => {
            let (ca, ea) = codes_and_evidence(a.snippet, settings);
            let (cb, eb) = codes_and_evidence(b.snippet, settings);
            let m = ca.len().min(cb.len());
            if m > 0 {
                score.shared_codes = crate::features::shared_codes(&ca, &cb);
                score.similarity = Some(score.shared_codes.len() as f64 / m as f64);
                score.codes = m;
                score.evidence = ea.min(eb);
            }
        }
    }
    score.stage = score.stage_at(settings, settings.method);
    score
}
