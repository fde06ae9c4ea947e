//! `metasift lab --qrels FILE`: the fusion methods measured against
//! relevance judgements.
//!
//! Each judged query ([`super::qrels`]) is asked once of the engines that
//! have a recording of it (`--replay DIR`, by default the `recordings`
//! folder beside the qrels), so the run is offline and repeatable. The
//! gathered answers are then fused under every fusion method (the dedup
//! settings are the configuration's), and each engine's own list is taken
//! as it is; every list is judged and measured ([`super::ranking`]):
//! nDCG@k, P@k and AP per query, their means (MAP), and a paired
//! randomisation test of nDCG@k between every two fusion methods and
//! between the configured method and the best fixed single engine.
//!
//! **How a fused list is judged.** A fused result is a duplicate group: it
//! counts once, at the best grade among its members' links (the kept
//! record's and every hidden duplicate's), matched by URL key. A judged
//! document is credited once: a later result whose best member is a
//! document already credited counts 0 (it shows the searcher nothing new;
//! a fusion that failed to fold two copies is not paid twice). An engine's
//! own list is judged the same way, each record a group of one. A document
//! nobody judged counts 0, and the ideal list is every judged document.
//!
//! An engine is measured on every query: where it did not answer, its list
//! is empty and scores 0 — the "best fixed single engine" is the one
//! engine a searcher could have used instead for the whole set. The best
//! engine *per query*, chosen after the fact, is shown as an oracle bound.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::LabError;
pub use super::judged_out::{chart, report, runs_table, summary, tests_table, write};
use super::qrels::Topic;
use super::ranking::{average_precision, ndcg, precision, randomisation_test};
use crate::config::{Config, FusionMethod, FusionSettings};
use crate::fusion::EngineAnswer;
use crate::model::MergedResult;
use metasift_dedup::{self as dedup, UrlKey};

/// nDCG's and P's cut-off unless `--k` says otherwise.
pub const DEFAULT_K: usize = 10;

/// Sign flips of the randomisation test unless `--permutations` says
/// otherwise.
pub const DEFAULT_PERMUTATIONS: usize = 10_000;

/// The most permutations accepted (the test's time grows with them).
pub const MAX_PERMUTATIONS: usize = 1_000_000;

/// What a judged run measures, besides the judgements.
#[derive(Debug, Clone)]
pub struct Options {
    /// Cut-off of nDCG@k and P@k.
    pub k: usize,
    /// Sign flips of the randomisation test.
    pub permutations: usize,
    /// Its seed.
    pub seed: u64,
    /// RRF's `k` values to measure (empty: `[fusion] k` alone).
    pub rrf_k: Vec<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            k: DEFAULT_K,
            permutations: DEFAULT_PERMUTATIONS,
            seed: 42,
            rrf_k: Vec::new(),
        }
    }
}

impl Options {
    /// What is wrong with these options.
    pub fn check(&self) -> Result<(), LabError> {
        if self.k == 0 || self.k > 1000 {
            return Err(LabError::BadArgument(format!(
                "--k {}: must be 1 to 1000",
                self.k
            )));
        }
        if self.permutations == 0 || self.permutations > MAX_PERMUTATIONS {
            return Err(LabError::BadArgument(format!(
                "--permutations {}: must be 1 to {MAX_PERMUTATIONS}",
                self.permutations
            )));
        }
        if let Some(k) = self
            .rrf_k
            .iter()
            .find(|k| !(k.is_finite() && (0.0..=crate::config::MAX_RRF_K).contains(*k)))
        {
            return Err(LabError::BadArgument(format!(
                "--rrf-k {k}: must be a number from 0 to {}",
                crate::config::MAX_RRF_K
            )));
        }
        Ok(())
    }
}

/// One query's engine answers, as gathered.
#[derive(Debug, Clone)]
pub struct Answered {
    /// The answers of the engines that answered.
    pub answers: Vec<EngineAnswer>,
}

/// What kind of list a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// A fusion method over every engine's answer.
    Fusion,
    /// One engine's own list.
    Engine,
    /// The best engine of each query, chosen after the fact.
    Oracle,
}

/// One measured list producer and its means.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// `combmnz`, `rrf k=60`, `engine bing`, `best engine per query`.
    pub label: String,
    /// What it is.
    pub kind: RunKind,
    /// The fusion settings (fusion runs).
    #[serde(skip)]
    pub fusion: Option<FusionSettings>,
    /// Mean nDCG@k.
    pub ndcg: f64,
    /// Mean P@k.
    pub precision: f64,
    /// MAP.
    pub map: f64,
    /// Milliseconds per query the fusion took (dedup included; fusion runs).
    pub ms_per_query: Option<f64>,
}

/// One query's scores under every run.
#[derive(Debug, Clone, Serialize)]
pub struct QueryRow {
    /// Its id.
    pub id: String,
    /// The words asked.
    pub text: String,
    /// The intent written down.
    pub intent: String,
    /// Engines that answered.
    pub engines: Vec<String>,
    /// Judged documents with grade ≥ 1.
    pub relevant: usize,
    /// nDCG@k, P@k, AP under each run (in [`Evaluation::runs`]' order).
    pub scores: Vec<[f64; 3]>,
}

/// A paired test of nDCG@k between two runs.
#[derive(Debug, Clone, Serialize)]
pub struct PairTest {
    /// The first run's label.
    pub a: String,
    /// The second's.
    pub b: String,
    /// Mean nDCG@k of `a` minus `b`.
    pub mean_difference: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Queries where `a` scored higher / lower.
    pub wins: usize,
    /// Queries where `b` scored higher.
    pub losses: usize,
}

/// Everything a judged run measured.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// The cut-off.
    pub k: usize,
    /// Permutations of each test.
    pub permutations: usize,
    /// Their seed.
    pub seed: u64,
    /// The configured fusion's label.
    pub configured: String,
    /// Runs: fusion methods, then engines, then the oracle.
    pub runs: Vec<RunSummary>,
    /// Per query.
    pub queries: Vec<QueryRow>,
    /// Tests between every two fusion runs, then the configured one
    /// against the best fixed single engine.
    pub tests: Vec<PairTest>,
    /// The engine with the highest mean nDCG@k.
    pub best_engine: Option<String>,
    /// Judgements read.
    pub judgements: usize,
}

impl Evaluation {
    /// The run labelled `label`.
    pub fn run(&self, label: &str) -> Option<&RunSummary> {
        self.runs.iter().find(|r| r.label == label)
    }

    /// The configured fusion's run.
    pub fn configured_run(&self) -> Option<&RunSummary> {
        self.run(&self.configured)
    }

    /// The best fixed single engine's run.
    pub fn best_engine_run(&self) -> Option<&RunSummary> {
        self.best_engine
            .as_ref()
            .and_then(|e| self.run(&format!("engine {e}")))
    }
}

/// The grades of a fused list's places: each group once at its best
/// member's grade, a judged document credited once (see the module docs).
pub fn fused_grades(list: &[MergedResult], topic: &Topic) -> Vec<u8> {
    let mut credited: HashSet<UrlKey> = HashSet::new();
    list.iter()
        .map(|r| {
            let links = std::iter::once(r.key()).chain(r.duplicates.iter().map(|d| d.url.as_str()));
            credit(links, topic, &mut credited)
        })
        .collect()
}

/// The grades of one engine's own list, judged like a fused list.
pub fn engine_grades(answer: &EngineAnswer, topic: &Topic) -> Vec<u8> {
    let mut credited: HashSet<UrlKey> = HashSet::new();
    answer
        .results
        .iter()
        .map(|r| credit(std::iter::once(r.key()), topic, &mut credited))
        .collect()
}

fn credit<'a>(
    links: impl Iterator<Item = &'a str>,
    topic: &Topic,
    credited: &mut HashSet<UrlKey>,
) -> u8 {
    let mut best: Option<(u8, UrlKey)> = None;
    for link in links {
        let key = dedup::url_key(link);
        if credited.contains(&key) {
            continue;
        }
        if let Some(&g) = topic.grades.get(&key)
            && g > 0
            && best.is_none_or(|(b, _)| g > b)
        {
            best = Some((g, key));
        }
    }
    match best {
        Some((g, key)) => {
            credited.insert(key);
            g
        }
        None => 0,
    }
}

fn scores(grades: &[u8], topic: &Topic, k: usize) -> [f64; 3] {
    let ideal: Vec<u8> = topic.grades.values().copied().collect();
    [
        ndcg(grades, &ideal, k),
        precision(grades, k),
        average_precision(grades, topic.relevant()),
    ]
}

/// The fusion settings measured: every method with `[fusion]`'s `k`, and
/// RRF again with each other `k` asked.
pub fn fusion_runs(configured: &FusionSettings, rrf_k: &[f64]) -> Vec<FusionSettings> {
    let mut out: Vec<FusionSettings> = FusionMethod::ALL
        .iter()
        .map(|&m| configured.with_method(m))
        .collect();
    for &k in rrf_k {
        let s = FusionSettings {
            method: FusionMethod::Rrf,
            k,
        };
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Measures every run over the judged `topics` and their `answered`
/// engine answers (one per topic, same order).
pub fn evaluate(
    topics: &[Topic],
    answered: &[Answered],
    dedup: &dedup::Settings,
    configured: &FusionSettings,
    opts: &Options,
) -> Evaluation {
    let k = opts.k;
    let fusions = fusion_runs(configured, &opts.rrf_k);
    let engines: Vec<String> = answered
        .iter()
        .flat_map(|a| a.answers.iter().map(|x| x.engine.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut runs: Vec<RunSummary> = fusions
        .iter()
        .map(|f| RunSummary {
            label: f.label(),
            kind: RunKind::Fusion,
            fusion: Some(*f),
            ndcg: 0.0,
            precision: 0.0,
            map: 0.0,
            ms_per_query: Some(0.0),
        })
        .chain(engines.iter().map(|e| RunSummary {
            label: format!("engine {e}"),
            kind: RunKind::Engine,
            fusion: None,
            ndcg: 0.0,
            precision: 0.0,
            map: 0.0,
            ms_per_query: None,
        }))
        .chain(std::iter::once(RunSummary {
            label: "best engine per query".into(),
            kind: RunKind::Oracle,
            fusion: None,
            ndcg: 0.0,
            precision: 0.0,
            map: 0.0,
            ms_per_query: None,
        }))
        .collect();
    let mut queries = Vec::with_capacity(topics.len());
    for (topic, got) in topics.iter().zip(answered) {
        let mut row_scores: Vec<[f64; 3]> = Vec::with_capacity(runs.len());
        for f in &fusions {
            let list = crate::fusion::fuse(&got.answers, dedup, f, false);
            row_scores.push(scores(&fused_grades(&list, topic), topic, k));
        }
        let mut oracle = [0.0f64; 3];
        for e in &engines {
            let s = match got.answers.iter().find(|a| &a.engine == e) {
                Some(a) => scores(&engine_grades(a, topic), topic, k),
                None => [0.0; 3],
            };
            if s[0] > oracle[0] {
                oracle = s;
            }
            row_scores.push(s);
        }
        row_scores.push(oracle);
        queries.push(QueryRow {
            id: topic.id.clone(),
            text: topic.text.clone(),
            intent: topic.intent.clone(),
            engines: got.answers.iter().map(|a| a.engine.clone()).collect(),
            relevant: topic.relevant(),
            scores: row_scores,
        });
    }
    let n = queries.len().max(1) as f64;
    let seconds = fusion_seconds(answered, dedup, &fusions);
    for (r, run) in runs.iter_mut().enumerate() {
        run.ndcg = queries.iter().map(|q| q.scores[r][0]).sum::<f64>() / n;
        run.precision = queries.iter().map(|q| q.scores[r][1]).sum::<f64>() / n;
        run.map = queries.iter().map(|q| q.scores[r][2]).sum::<f64>() / n;
        if r < fusions.len() {
            run.ms_per_query = Some(seconds[r] * 1000.0 / n);
        }
    }
    let best_engine = runs
        .iter()
        .filter(|r| r.kind == RunKind::Engine)
        .max_by(|a, b| a.ndcg.total_cmp(&b.ndcg))
        .map(|r| r.label.trim_start_matches("engine ").to_string());
    let column = |r: usize| -> Vec<f64> { queries.iter().map(|q| q.scores[r][0]).collect() };
    let test = |a: usize, b: usize| {
        let (x, y) = (column(a), column(b));
        let t = randomisation_test(&x, &y, opts.permutations, opts.seed);
        PairTest {
            a: runs[a].label.clone(),
            b: runs[b].label.clone(),
            mean_difference: t.mean_difference,
            p_value: t.p_value,
            wins: x.iter().zip(&y).filter(|(p, q)| p > q).count(),
            losses: x.iter().zip(&y).filter(|(p, q)| p < q).count(),
        }
    };
    let mut tests = Vec::new();
    for a in 0..fusions.len() {
        for b in a + 1..fusions.len() {
            tests.push(test(a, b));
        }
    }
    let configured_index = fusions.iter().position(|f| f == configured);
    if let (Some(c), Some(e)) = (
        configured_index,
        best_engine
            .as_ref()
            .and_then(|e| runs.iter().position(|r| r.label == format!("engine {e}"))),
    ) {
        tests.push(test(c, e));
    }
    Evaluation {
        k,
        permutations: opts.permutations,
        seed: opts.seed,
        configured: configured.label(),
        runs,
        queries,
        tests,
        best_engine,
        judgements: topics.iter().map(|t| t.grades.len()).sum(),
    }
}

/// Passes over the whole set [`fusion_seconds`] times each method in; the
/// fastest counts, so a busy machine's pauses do not.
const TIMED_PASSES: usize = 5;

/// Seconds each fusion takes to fuse every query's answers (dedup
/// included): the fastest of [`TIMED_PASSES`] passes, the methods taking
/// turns within each pass so none is always first on cold caches.
fn fusion_seconds(
    answered: &[Answered],
    dedup: &dedup::Settings,
    fusions: &[FusionSettings],
) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fusions.len()];
    for pass in 0..TIMED_PASSES {
        for j in 0..fusions.len() {
            let i = (j + pass) % fusions.len();
            let start = Instant::now();
            for got in answered {
                std::hint::black_box(crate::fusion::fuse(&got.answers, dedup, &fusions[i], false));
            }
            best[i] = best[i].min(start.elapsed().as_secs_f64());
        }
    }
    best
}

/// The recording folder a qrels file goes with when `--replay` is not
/// given: `recordings` beside it.
pub fn recordings_beside(qrels: &Path) -> PathBuf {
    qrels.with_file_name("recordings")
}

/// Asks every topic of the engines with a recording of it in `replay`
/// (all at once through the configuration's engines and parsers, as a
/// search would), one query at a time.
pub fn gather(config: &Config, replay: &Path, topics: &[Topic]) -> Result<Vec<Answered>, LabError> {
    crate::search::recording::check_replay_dir(replay)
        .map_err(|e| LabError::BadArgument(format!("--replay: {e}")))?;
    let searcher = crate::search::Searcher::from_config(config.clone())
        .map_err(|e| LabError::BadArgument(format!("--config: {e}")))?
        .with_recording(None, Some(replay.to_path_buf()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| LabError::Io {
            path: PathBuf::from("(async runtime)"),
            source,
        })?;
    let mut out = Vec::with_capacity(topics.len());
    for topic in topics {
        // The query as a recording names it: its words, page 1, no
        // language; asked of the engines that recorded it.
        let mut query = crate::model::Query {
            text: topic.text.clone(),
            page: 1,
            ..Default::default()
        };
        query.engines = config
            .engines
            .iter()
            .filter(|e| e.enabled && crate::search::recording::is_recorded(replay, &e.name, &query))
            .map(|e| e.name.clone())
            .collect();
        if query.engines.is_empty() {
            eprintln!(
                "{} {:?}: no engine has a recording of it in {}",
                topic.id,
                topic.text,
                replay.display()
            );
            out.push(Answered {
                answers: Vec::new(),
            });
            continue;
        }
        let request = searcher.prepare(query, Default::default());
        let (gathered, _) = runtime
            .block_on(searcher.gathered(&request))
            .map_err(|_| LabError::BadArgument(format!("{}: refused for load", topic.id)))?;
        for r in gathered.reports.iter().filter(|r| r.failure.is_some()) {
            eprintln!(
                "{} {:?}: {} failed: {}",
                topic.id,
                topic.text,
                r.engine,
                r.reason.as_deref().unwrap_or("no reason given")
            );
        }
        out.push(Answered {
            answers: gathered.answers.clone(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn topic(grades: &[(&str, u8)]) -> Topic {
        let mut t = Topic {
            id: "q".into(),
            text: "q".into(),
            intent: String::new(),
            grades: BTreeMap::new(),
            urls: BTreeMap::new(),
        };
        for (u, g) in grades {
            t.grades.insert(dedup::url_key(u), *g);
            t.urls.insert(dedup::url_key(u), u.to_string());
        }
        t
    }

    fn answer(engine: &str, urls: &[&str]) -> EngineAnswer {
        let results: Vec<serde_json::Value> = urls
            .iter()
            .enumerate()
            .map(|(i, u)| {
                serde_json::json!({"url": u, "title": format!("{engine} {i}"),
                    "snippet": format!("text {engine} {i} {u}"), "engine": engine,
                    "position": i + 1, "category": "general"})
            })
            .collect();
        serde_json::from_value(
            serde_json::json!({"engine": engine, "weight": 1.0, "results": results}),
        )
        .unwrap()
    }

    #[test]
    fn a_group_counts_once_at_its_best_member_and_a_document_once() {
        let t = topic(&[("https://good.example/", 2), ("https://ok.example/", 1)]);
        // Same page under two links of one key: one group, credited once.
        let a = answer(
            "a",
            &[
                "http://www.good.example",
                "https://ok.example/",
                "https://none.example/",
            ],
        );
        let b = answer(
            "b",
            &["https://good.example/?utm_source=x", "https://ok.example/"],
        );
        let fused = crate::fusion::fuse(
            &[a.clone(), b],
            &dedup::Settings::default(),
            &FusionSettings::default(),
            false,
        );
        assert_eq!(fused_grades(&fused, &t), vec![2, 1, 0]);
        // An engine listing one page twice is credited once.
        let twice = answer("a", &["https://ok.example/", "https://ok.example/"]);
        assert_eq!(engine_grades(&twice, &t), vec![1, 0]);
        assert_eq!(engine_grades(&a, &t), vec![2, 1, 0]);
    }

    /// One engine's odd page at 1st and 2nd, the pages three engines
    /// agree on lower: CombMNZ ranks the agreed pages first, `position`
    /// keeps the odd page on top, and the measures tell them apart.
    #[test]
    fn evaluation_tells_agreement_from_one_engines_odd_page() {
        let t = topic(&[
            ("https://bun.sh/", 2),
            ("https://bun.sh/docs", 2),
            ("https://github.com/oven-sh/bun", 1),
        ]);
        let odd = "https://labs.example/blood-urea-nitrogen";
        let answered = vec![Answered {
            answers: vec![
                answer(
                    "a",
                    &[
                        odd,
                        "https://other.example/1",
                        "https://bun.sh/",
                        "https://bun.sh/docs",
                    ],
                ),
                answer(
                    "b",
                    &[
                        "https://x.example/",
                        "https://y.example/",
                        "https://bun.sh/",
                        "https://bun.sh/docs",
                        "https://github.com/oven-sh/bun",
                    ],
                ),
                answer(
                    "c",
                    &[
                        "https://z.example/",
                        "https://w.example/",
                        "https://bun.sh/",
                        "https://github.com/oven-sh/bun",
                        "https://bun.sh/docs",
                    ],
                ),
            ],
        }];
        let e = evaluate(
            &[t],
            &answered,
            &dedup::Settings::default(),
            &FusionSettings::default().with_method(FusionMethod::CombMnz),
            &Options {
                permutations: 100,
                ..Options::default()
            },
        );
        let mnz = e.run("combmnz").unwrap().ndcg;
        let pos = e.run("position").unwrap().ndcg;
        assert!(mnz > pos, "combmnz {mnz} position {pos}");
        assert_eq!(e.configured, "combmnz");
        assert_eq!(
            e.runs.iter().filter(|r| r.kind == RunKind::Engine).count(),
            3
        );
        let oracle = e.run("best engine per query").unwrap().ndcg;
        assert!(
            e.runs
                .iter()
                .filter(|r| r.kind == RunKind::Engine)
                .all(|r| r.ndcg <= oracle)
        );
        // Every pair of the five methods, then configured vs best engine.
        assert_eq!(e.tests.len(), 10 + 1);
        let text = runs_table(&e);
        assert!(
            text.contains("combmnz") && text.contains("(configured)"),
            "{text}"
        );
    }
}
