//! Fusion: one ranked list from several engines' answers.
//!
//! 1. **Interleave by position.** Every engine's first result comes before any
//!    second result, and within one position engines go in weight order (ties:
//!    configuration order). This is the "fused-rank order" the dedup pipeline
//!    needs: the record it keeps for a group is the best-placed one, from the
//!    most trusted engine.
//! 2. **Dedup** with [`metasift_dedup::Deduper`]; every later member of a group
//!    is attached to the kept record as a [`Duplicate`], never dropped.
//! 3. **Score** a group by the fusion method asked ([`methods`]: `position`
//!    is Σ `weight / position`; `rrf`, `combsum`, `combmnz`, `borda`): every
//!    member, hidden duplicates too, adds its engine's vote, so a result
//!    several engines agree on climbs; then the group's score is settled
//!    ([`methods::Scorer::settle`]) — the one place a factor of the whole
//!    group applies.
//! 4. **Present** the group as one page: the kept record's own link
//!    (normalization only builds the dedup key), with the most complete title
//!    and snippet (the longest that is not cut off with an ellipsis) among the
//!    members *with the kept record's URL key*. A member found by its title or
//!    snippet is another link, maybe another page: its title never goes on
//!    the kept record's link ("Javascript 2015 (ES6)" on `js_examples.asp`).
//! 5. **Sort** by score, ties keeping first-seen order.
//!
//! [`compare`] diffs two fusions of the same answers: which duplicate groups
//! formed or split when the dedup settings change, and which results moved
//! when the fusion method does.

pub mod compare;
pub mod explain;
pub mod hosts;
pub mod methods;

use crate::config::FusionSettings;
use crate::model::{Duplicate, EngineResult, MergedResult};
use metasift_dedup::{self as dedup, Deduper, Doc};

/// The dedup work ([`metasift_dedup::Work::total`]) of every fusion this
/// process ran: a count that does not depend on the machine's speed.
static DEDUP_WORK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// [`DEDUP_WORK`] so far: what the bounds on a search's CPU are checked
/// against.
pub fn dedup_work() -> u64 {
    DEDUP_WORK.load(std::sync::atomic::Ordering::Relaxed)
}

/// One engine's answer as fusion sees it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EngineAnswer {
    /// The engine's name.
    pub engine: String,
    /// Its fusion weight (finite and > 0 after config validation).
    pub weight: f64,
    /// Its results in page order (`position` 1-based).
    pub results: Vec<EngineResult>,
}

/// Orders records for the dedup pipeline: all position-1 results first (in
/// engine-weight order, ties in the order given), then position 2, and so on.
/// Returns `(answer index, result index)` pairs.
pub(crate) fn interleave(answers: &[EngineAnswer]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..answers.len()).collect();
    // Stable sort keeps configuration order among equal weights; `total_cmp`
    // gives NaN a place rather than a panic should validation be bypassed.
    order.sort_by(|&a, &b| answers[b].weight.total_cmp(&answers[a].weight));
    let longest = answers.iter().map(|a| a.results.len()).max().unwrap_or(0);
    let mut out = Vec::with_capacity(answers.iter().map(|a| a.results.len()).sum());
    for rank in 0..longest {
        for &a in &order {
            if rank < answers[a].results.len() {
                out.push((a, rank));
            }
        }
    }
    out
}

/// Drops from `fused` (a later engine page's fused list) the results that
/// duplicate one of `shown` (the earlier pages' results, already on the
/// searcher's screen), under the same method and settings.
pub fn drop_shown(
    shown: &[MergedResult],
    fused: &mut Vec<MergedResult>,
    settings: &dedup::Settings,
) {
    if shown.is_empty() || fused.is_empty() {
        return;
    }
    let mut deduper = Deduper::new(settings);
    // Each shown result and the duplicates it hides (their links too are on
    // the screen), each with its engine as the source, as in `fuse`: the
    // one-site rules hold across pages too.
    for r in shown {
        deduper.push(Doc::new(r.key(), &r.title, &r.content).with_source(&r.engine));
        for d in &r.duplicates {
            deduper.push(Doc::new(&d.url, &d.title, &d.snippet).with_source(&d.engine));
        }
    }
    let pushed = deduper.len();
    fused.retain(|r| {
        let v = deduper.push(Doc::new(r.key(), &r.title, &r.content).with_source(&r.engine));
        v.stage.is_none() || v.cluster >= pushed
    });
}

/// Fuses engines' answers into one ranked, deduplicated list.
///
/// `explain` fills every duplicate's `shared_codes` (hex feature codes),
/// `shared_text` (the words of the duplicate's snippet around each shared
/// code, see [`explain::shared_text`]) and `snippet` (its own snippet).
pub fn fuse(
    answers: &[EngineAnswer],
    settings: &dedup::Settings,
    fusion: &FusionSettings,
    explain: bool,
) -> Vec<MergedResult> {
    fuse_until(answers, settings, fusion, explain, None)
}

/// [`fuse`] that stops comparing snippets at `deadline`: the records left
/// then fold by their URL keys alone (into any group of the same key),
/// so a search past its time still shows every result, at once. The
/// dedup's work is bounded by construction ([`metasift_dedup::clip`]);
/// the deadline is the guard for a machine too busy to do even that.
pub fn fuse_until(
    answers: &[EngineAnswer],
    settings: &dedup::Settings,
    fusion: &FusionSettings,
    explain: bool,
    deadline: Option<std::time::Instant>,
) -> Vec<MergedResult> {
    fuse_weighed(answers, settings, fusion, explain, deadline, &hosts::even)
}

/// [`fuse_until`], each group's final score multiplied by `factor` of its
/// link before the sort ([`hosts::weigh`]: the hostname rules' `boost`
/// and `lower`).
pub fn fuse_weighed(
    answers: &[EngineAnswer],
    settings: &dedup::Settings,
    fusion: &FusionSettings,
    explain: bool,
    deadline: Option<std::time::Instant>,
    factor: hosts::Factor<'_>,
) -> Vec<MergedResult> {
    let order = interleave(answers);
    let scorer = methods::Scorer::new(fusion, answers);
    let mut deduper = Deduper::new(settings)
        .explain(explain)
        .sized_for(order.len());
    let mut extractor =
        explain.then(|| dedup::Extractor::new().with_word_anchors(settings.word_anchors));
    // Index of the group (in `groups`) each pushed record landed in.
    let mut group_of: Vec<usize> = Vec::with_capacity(order.len());
    let mut groups: Vec<Group> = Vec::new();

    // Past the deadline: the group of each URL key, and where each pushed
    // record's group is (a record decided late is no cluster target).
    let mut late: Option<std::collections::HashMap<dedup::UrlKey, usize>> = None;
    for &(a, r) in &order {
        let answer = &answers[a];
        let rec = &answer.results[r];
        let contribution = scorer.vote(a, r, answer.weight, rec.position);
        if late.is_none() && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            late = Some(groups.iter().enumerate().map(|(g, x)| (x.key, g)).collect());
        }
        if let Some(by_key) = &mut late {
            let key = dedup::url_key(rec.key());
            match by_key.get(&key) {
                Some(&g) => {
                    group_of.push(g);
                    groups[g].absorb(rec, key, contribution, late_duplicate(rec));
                }
                None => {
                    by_key.insert(key, groups.len());
                    group_of.push(groups.len());
                    groups.push(Group::new(rec, key, contribution));
                }
            }
            continue;
        }
        // The deduper's URL key of the record (of its real target where the
        // engine gave one): the group's key, or whether the record lends the
        // group its title and snippet.
        let (verdict, key) = deduper
            .push_keyed(Doc::new(rec.key(), &rec.title, &rec.snippet).with_source(&rec.engine));
        match verdict.stage {
            // A kept record, or a verdict pointing at itself/forward (which
            // a correct pipeline never gives, but must not crash us).
            None => {
                group_of.push(groups.len());
                groups.push(Group::new(rec, key, contribution));
            }
            Some(stage) => match group_of.get(verdict.cluster).copied() {
                Some(g) => {
                    group_of.push(g);
                    let shared_codes = if explain {
                        verdict
                            .shared_codes
                            .iter()
                            .map(|c| format!("{:016x}", c.0))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let shared_text = extractor
                        .as_mut()
                        .map(|x| {
                            explain::shared_text(x, &rec.snippet, &verdict.shared_codes, settings)
                        })
                        .unwrap_or_default();
                    groups[g].absorb(
                        rec,
                        key,
                        contribution,
                        Duplicate {
                            url: rec.url.clone(),
                            title: rec.title.clone(),
                            engine: rec.engine.clone(),
                            position: rec.position,
                            stage,
                            similarity: verdict.similarity,
                            shared_codes,
                            shared_text,
                            snippet: if explain {
                                rec.snippet.clone()
                            } else {
                                String::new()
                            },
                        },
                    );
                }
                None => {
                    group_of.push(groups.len());
                    groups.push(Group::new(rec, key, contribution));
                }
            },
        }
    }

    DEDUP_WORK.fetch_add(deduper.work().total(), std::sync::atomic::Ordering::Relaxed);
    let mut merged: Vec<MergedResult> = groups.into_iter().map(Group::finish).collect();
    // Every group's score is final here, before the sort.
    for r in &mut merged {
        scorer.settle(r);
    }
    hosts::weigh(&mut merged, factor);
    // `sort_by` is stable: equal scores stay in first-seen order.
    merged.sort_by(|a, b| b.score.total_cmp(&a.score));
    merged
}

/// A record folded by its URL key after the deadline ([`fuse_until`]).
fn late_duplicate(rec: &EngineResult) -> Duplicate {
    Duplicate {
        url: rec.url.clone(),
        title: rec.title.clone(),
        engine: rec.engine.clone(),
        position: rec.position,
        stage: dedup::Stage::Url,
        similarity: None,
        shared_codes: Vec::new(),
        shared_text: Vec::new(),
        snippet: String::new(),
    }
}

/// A duplicate group being built.
struct Group {
    result: MergedResult,
    /// The kept record's URL key: only members with this key lend the
    /// group their title and snippet.
    key: dedup::UrlKey,
    /// The own title and position of the record whose link is shown (the
    /// kept one, or a member with the same key and a more useful link).
    shown: (String, u32),
}

impl Group {
    fn new(rec: &EngineResult, key: dedup::UrlKey, contribution: f64) -> Self {
        Group {
            key,
            shown: (rec.title.clone(), rec.position),
            result: MergedResult {
                url: dedup::unwrap_redirect(&rec.url),
                title: rec.title.clone(),
                content: rec.snippet.clone(),
                engine: rec.engine.clone(),
                engines: vec![rec.engine.clone()],
                positions: vec![rec.position],
                score: contribution,
                category: rec.category.clone(),
                duplicates: Vec::new(),
                published: rec.published.clone(),
                thumbnail: rec.thumbnail.clone(),
                key_url: rec.key_url.clone(),
                display_url: rec.key_url.clone().or_else(|| rec.display_url.clone()),
                extra: rec.extra.clone(),
            },
        }
    }

    fn absorb(
        &mut self,
        rec: &EngineResult,
        key: dedup::UrlKey,
        contribution: f64,
        mut dup: Duplicate,
    ) {
        let r = &mut self.result;
        // One item under a more useful link (the abstract page over the
        // PDF, the watch page over the embed): that link is shown, and the
        // record it replaces is listed among the duplicates in its place.
        if key == self.key && dedup::more_useful_link(rec.key(), r.key()) {
            dup.url = std::mem::replace(&mut r.url, dedup::unwrap_redirect(&rec.url));
            dup.engine = std::mem::replace(&mut r.engine, rec.engine.clone());
            dup.title = std::mem::replace(&mut self.shown.0, rec.title.clone());
            dup.position = std::mem::replace(&mut self.shown.1, rec.position);
            r.key_url = rec.key_url.clone();
            r.display_url = rec.key_url.clone().or_else(|| rec.display_url.clone());
        }
        r.score += contribution;
        // One entry per engine, at its best (first met) position: an engine
        // listing the same page twice still "agrees" only once.
        if !r.engines.contains(&rec.engine) {
            r.engines.push(rec.engine.clone());
            r.positions.push(rec.position);
        }
        // Title, link and snippet shown must be one page's.
        if key == self.key {
            if more_complete(&rec.title, &r.title) {
                r.title = rec.title.clone();
            }
            if more_complete(&rec.snippet, &r.content) {
                r.content = rec.snippet.clone();
            }
        }
        if r.published.is_none() {
            r.published = rec.published.clone();
        }
        if r.thumbnail.is_none() {
            r.thumbnail = rec.thumbnail.clone();
        }
        match (&mut r.extra, &rec.extra) {
            (Some(kept), Some(theirs)) => kept.fill_from(theirs),
            (None, Some(theirs)) => r.extra = Some(theirs.clone()),
            _ => {}
        }
        r.duplicates.push(dup);
    }

    fn finish(self) -> MergedResult {
        self.result
    }
}

/// Whether text ends the way engines mark a cut-off title or snippet.
pub fn is_truncated(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with('…') || t.ends_with("...") || t.ends_with("…)") || t.ends_with("⋯")
}

/// Whether `candidate` is more complete than `current`: a whole text beats
/// a truncated one, then the longer (in characters) wins; ties keep `current`.
pub(crate) fn more_complete(candidate: &str, current: &str) -> bool {
    let (cand, cur) = (candidate.trim(), current.trim());
    if cand.is_empty() {
        return false;
    }
    if cur.is_empty() {
        return true;
    }
    match (is_truncated(cand), is_truncated(cur)) {
        (false, true) => true,
        (true, false) => false,
        _ => cand.chars().count() > cur.chars().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests pin today's scores: the `position` method's.
    const POSITION: FusionSettings = FusionSettings {
        method: crate::config::FusionMethod::Position,
        k: crate::config::DEFAULT_RRF_K,
    };

    fn rec(engine: &str, position: u32, url: &str, title: &str, snippet: &str) -> EngineResult {
        EngineResult {
            published: None,
            thumbnail: None,
            key_url: None,
            display_url: None,
            extra: None,
            url: url.into(),
            title: title.into(),
            snippet: snippet.into(),
            engine: engine.into(),
            position,
            category: "general".into(),
        }
    }

    fn answer(engine: &str, weight: f64, items: &[(&str, &str, &str)]) -> EngineAnswer {
        EngineAnswer {
            engine: engine.into(),
            weight,
            results: items
                .iter()
                .enumerate()
                .map(|(i, (u, t, s))| rec(engine, i as u32 + 1, u, t, s))
                .collect(),
        }
    }

    /// Past its deadline a fusion folds the records left by URL key only:
    /// every result still shown, the same link once, copies by snippet not
    /// looked for.
    #[test]
    fn past_the_deadline_records_fold_by_url_alone() {
        let text = "The central bank raised rates on Tuesday, citing inflation. Markets fell.";
        let answers = [
            answer("a", 1.0, &[("https://x.example/1", "One", text)]),
            answer(
                "b",
                1.0,
                &[
                    ("https://x.example/1", "One again", "other words"),
                    ("https://copy.example/2", "Copy", text),
                ],
            ),
        ];
        let s = dedup::Settings::default();
        let on_time = fuse_until(&answers, &s, &POSITION, false, None);
        assert_eq!(on_time.len(), 1, "the copy folds by its snippet");
        let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
        let late = fuse_until(&answers, &s, &POSITION, false, Some(past));
        assert_eq!(late.len(), 2, "{late:?}");
        assert_eq!(late[0].duplicates.len(), 1);
        assert_eq!(late[0].duplicates[0].stage, dedup::Stage::Url);
    }

    #[test]
    fn a_later_engine_page_shows_only_what_is_new() {
        let settings = dedup::Settings::default();
        let story = "The central bank raised rates on Tuesday, citing inflation, and said more may follow soon.";
        // Page 1: a folds b's copy of its first result (same link).
        let page1 = fuse(
            &[
                answer(
                    "a",
                    1.0,
                    &[("https://news.example/rates", "Rates rise", story)],
                ),
                answer(
                    "b",
                    1.0,
                    &[(
                        "https://news.example/rates?utm_source=x",
                        "Rates rise",
                        story,
                    )],
                ),
            ],
            &settings,
            &POSITION,
            false,
        );
        assert_eq!(page1.len(), 1);
        // Page 2: the shown result again (a's link, with b's mirror copy
        // folded into it), and one new page.
        let mut page2 = fuse(
            &[
                answer(
                    "a",
                    1.0,
                    &[
                        ("https://news.example/rates", "Rates rise", story),
                        (
                            "https://other.example/",
                            "Ferry timetable",
                            "Boats leave at nine, ten and noon.",
                        ),
                    ],
                ),
                answer(
                    "b",
                    1.0,
                    &[("https://mirror.example/copy.html", "Rates rise", story)],
                ),
            ],
            &settings,
            &POSITION,
            false,
        );
        assert_eq!(page2.len(), 2, "{page2:#?}");
        drop_shown(&page1, &mut page2, &settings);
        let urls: Vec<&str> = page2.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(urls, ["https://other.example/"]);
        // Nothing shown yet: nothing dropped.
        let mut again = page1.clone();
        drop_shown(&[], &mut again, &settings);
        assert_eq!(again.len(), 1);
    }

    #[test]
    fn interleave_goes_by_position_then_weight() {
        let a = answer(
            "a",
            1.0,
            &[("http://a/1", "t", ""), ("http://a/2", "t", "")],
        );
        let b = answer("b", 2.0, &[("http://b/1", "t", "")]);
        let c = answer(
            "c",
            1.0,
            &[("http://c/1", "t", ""), ("http://c/2", "t", "")],
        );
        let order = interleave(&[a, b, c]);
        assert_eq!(order, vec![(1, 0), (0, 0), (2, 0), (0, 1), (2, 1)]);
    }

    #[test]
    fn agreement_adds_weights_and_keeps_every_engine() {
        let a = answer(
            "a",
            1.0,
            &[
                ("https://x.example/only-a", "Only A", "alone"),
                ("https://shared.example/page", "Shared", "short…"),
            ],
        );
        let b = answer(
            "b",
            0.5,
            &[(
                "https://shared.example/page",
                "Shared page title",
                "the whole snippet",
            )],
        );
        let out = fuse(&[a, b], &dedup::Settings::default(), &POSITION, false);
        assert_eq!(out.len(), 2);
        // shared: 1.0/2 + 0.5/1 = 1.0 ties with only-a (1.0/1); only-a was seen first.
        assert_eq!(out[0].url, "https://x.example/only-a");
        let shared = &out[1];
        assert!((shared.score - 1.0).abs() < 1e-9);
        // b's record came first in fused order (position 1), so it is kept.
        assert_eq!(shared.engines, vec!["b", "a"]);
        assert_eq!(shared.positions, vec![1, 2]);
        assert_eq!(shared.title, "Shared page title");
        assert_eq!(shared.content, "the whole snippet");
        assert_eq!(shared.duplicates.len(), 1);
        assert_eq!(shared.duplicates[0].engine, "a");
        assert_eq!(shared.duplicates[0].stage, dedup::Stage::Url);
    }

    #[test]
    fn score_sorts_and_duplicates_contribute() {
        let a = answer(
            "a",
            1.0,
            &[
                ("https://one.example/", "One", ""),
                ("https://two.example/", "Two", ""),
            ],
        );
        let b = answer("b", 1.0, &[("https://two.example/", "Two", "")]);
        let c = answer("c", 1.0, &[("https://two.example/", "Two", "")]);
        let out = fuse(&[a, b, c], &dedup::Settings::default(), &POSITION, false);
        assert_eq!(out[0].url, "https://two.example/");
        assert!((out[0].score - 2.5).abs() < 1e-9);
        assert_eq!(out[0].engines, vec!["b", "c", "a"]);
        assert_eq!(out[1].url, "https://one.example/");
    }

    #[test]
    fn same_engine_twice_counts_once_in_engines_but_twice_in_score() {
        let a = answer(
            "a",
            1.0,
            &[
                ("https://same.example/", "Same", ""),
                ("https://same.example/", "Same", ""),
            ],
        );
        let out = fuse(&[a], &dedup::Settings::default(), &POSITION, false);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].engines, vec!["a"]);
        assert_eq!(out[0].positions, vec![1]);
        assert!((out[0].score - 1.5).abs() < 1e-9);
        assert_eq!(out[0].duplicates.len(), 1);
    }

    /// Regression (issue #13): a group formed at the snippet stage showed
    /// the longest member title on the kept record's link ("Javascript 2015
    /// (ES6) - W3Schools" linking to `js_examples.asp`). Title, link and
    /// snippet now come from one page: the kept record, or a member with
    /// its URL key.
    #[test]
    fn title_link_and_snippet_come_from_one_page() {
        let about = "Well organized and easy to understand Web building tutorials with lots \
            of examples of how to use HTML, CSS, JavaScript, SQL, Python, PHP, Bootstrap, Java, XML.";
        let a = answer(
            "a",
            1.0,
            &[(
                "https://w3.example/js/js_examples.asp",
                "JS Examples",
                about,
            )],
        );
        let b = answer(
            "b",
            1.0,
            &[(
                "https://w3.example/js/js_es6.asp",
                "Javascript 2015 (ES6) - W3Schools",
                about,
            )],
        );
        let c = answer(
            "c",
            1.0,
            &[(
                "http://www.w3.example/js/js_examples.asp/",
                "JavaScript Examples - W3Schools",
                "Short.",
            )],
        );
        let out = fuse(&[a, b, c], &dedup::Settings::default(), &POSITION, false);
        assert_eq!(out.len(), 1, "{out:?}");
        let r = &out[0];
        assert_eq!(r.duplicates.len(), 2);
        assert_eq!(r.duplicates[0].stage, dedup::Stage::Snippet);
        assert_eq!(r.url, "https://w3.example/js/js_examples.asp");
        // The same page's longer title (a URL-key member), not the other page's.
        assert_eq!(r.title, "JavaScript Examples - W3Schools");
        assert_eq!(r.content, about);
    }

    #[test]
    fn completeness_prefers_whole_then_longer() {
        assert!(more_complete("full text", "a much longer but cut text..."));
        assert!(!more_complete("a much longer but cut text…", "full"));
        assert!(more_complete("longer whole text", "short"));
        assert!(!more_complete("", "x"));
        assert!(more_complete("x", "  "));
        assert!(!more_complete("same", "same"));
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert!(fuse(&[], &dedup::Settings::default(), &POSITION, true).is_empty());
        let a = answer("a", 1.0, &[]);
        assert!(fuse(&[a], &dedup::Settings::default(), &POSITION, true).is_empty());
    }
}
