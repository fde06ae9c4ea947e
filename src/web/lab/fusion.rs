//! `GET /lab/fusion`: the fusion methods measured on a judged set, as
//! `metasift lab --qrels` measures them ([`crate::lab::judged`]).
//!
//! The sets offered are the `*.qrels` files (TREC form, each with its
//! `NAME.topics.tsv`) and `*.qrels.json` files (the JSON form) of `[lab]
//! data_dir`; their engine answers are the recordings in the `recordings`
//! folder beside them, so nothing is asked of a live engine. `?set=NAME`
//! runs it (on the blocking pool, sharing `/lab`'s slots and rate limit)
//! and `&k=` sets the cut-off. The page shows the runs' table, the chart of
//! mean nDCG@k, the paired tests and the per-query table.

use std::path::Path;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::form_urlencoded;

use super::super::AppState;
use super::super::i18n::Tr;
use super::super::ui::{Layout, Msg, Ui};
use super::{RUNS, Refusal, refuse};
use crate::lab::judged::{self, Evaluation, RunKind};

/// One row of the runs' table.
pub(super) struct RunRow {
    pub label: String,
    pub kind: &'static str,
    pub ndcg: String,
    pub precision: String,
    pub map: String,
    pub ms: String,
    pub note: String,
}

/// One paired test.
pub(super) struct TestRow {
    pub a: String,
    pub b: String,
    pub delta: String,
    pub p: String,
    pub wins: String,
}

/// One query's nDCG@k under the fusion runs and the oracle.
pub(super) struct QueryRowView {
    pub id: String,
    pub text: String,
    pub intent: String,
    pub engines: usize,
    pub cells: Vec<String>,
}

/// A measured set.
pub(super) struct Measured {
    pub k: usize,
    pub queries: usize,
    pub judgements: usize,
    pub permutations: usize,
    pub seed: u64,
    pub svg: String,
    pub runs: Vec<RunRow>,
    pub tests: Vec<TestRow>,
    pub columns: Vec<String>,
    pub rows: Vec<QueryRowView>,
}

/// `GET /lab/fusion`.
#[derive(Template)]
#[template(path = "lab_fusion.html")]
pub(super) struct FusionLabPage {
    pub layout: Layout,
    pub tr: Tr,
    pub has_dir: bool,
    pub sets: Vec<(String, bool)>,
    pub k: usize,
    pub error: Option<String>,
    pub measured: Option<Measured>,
}

/// The judged sets `dir` offers: `*.qrels` and `*.qrels.json`, sorted.
fn list_sets(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter(|e| e.metadata().is_ok_and(|m| m.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".qrels") || n.ends_with(".qrels.json"))
        .collect();
    out.sort();
    out
}

fn view(e: &Evaluation, tr: &Tr) -> Measured {
    let fmt = |x: f64| format!("{x:.4}");
    let runs = e
        .runs
        .iter()
        .map(|r| RunRow {
            label: r.label.clone(),
            kind: match r.kind {
                RunKind::Fusion => "fusion",
                RunKind::Engine => "engine",
                RunKind::Oracle => "oracle",
            },
            ndcg: fmt(r.ndcg),
            precision: fmt(r.precision),
            map: fmt(r.map),
            ms: r.ms_per_query.map_or(String::new(), |m| format!("{m:.3}")),
            note: if r.label == e.configured {
                tr.t("lab-fusion-configured")
            } else if r.kind == RunKind::Engine
                && Some(r.label.trim_start_matches("engine ")) == e.best_engine.as_deref()
            {
                tr.t("lab-fusion-best-engine")
            } else {
                String::new()
            },
        })
        .collect();
    let tests = e
        .tests
        .iter()
        .map(|t| TestRow {
            a: t.a.clone(),
            b: t.b.clone(),
            delta: format!("{:+.4}", t.mean_difference),
            p: format!("{:.4}", t.p_value),
            wins: format!("{} / {}", t.wins, t.losses),
        })
        .collect();
    let shown: Vec<usize> = e
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind != RunKind::Engine)
        .map(|(i, _)| i)
        .collect();
    Measured {
        k: e.k,
        queries: e.queries.len(),
        judgements: e.judgements,
        permutations: e.permutations,
        seed: e.seed,
        svg: judged::chart(e),
        runs,
        tests,
        columns: shown.iter().map(|&i| e.runs[i].label.clone()).collect(),
        rows: e
            .queries
            .iter()
            .map(|q| QueryRowView {
                id: q.id.clone(),
                text: q.text.clone(),
                intent: q.intent.clone(),
                engines: q.engines.len(),
                cells: shown
                    .iter()
                    .map(|&i| format!("{:.3}", q.scores[i][0]))
                    .collect(),
            })
            .collect(),
    }
}

/// What the query string asks: the set's name and the cut-off.
fn asked(raw: &str) -> Result<(String, usize), Refusal> {
    let mut set = String::new();
    let mut k = judged::DEFAULT_K;
    for (name, value) in form_urlencoded::parse(raw.as_bytes()) {
        match &*name {
            "set" => set = value.trim().to_string(),
            "k" if !value.trim().is_empty() => {
                k = value
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|k| (1..=100).contains(k))
                    .ok_or_else(|| {
                        refuse(
                            StatusCode::BAD_REQUEST,
                            Msg::new("lab-fusion-err-k").arg("value", format!("{value:?}")),
                        )
                    })?;
            }
            _ => {}
        }
    }
    Ok((set, k))
}

/// Measures the set `name` of `dir` on the blocking pool.
async fn measure(state: &AppState, dir: &Path, name: &str, k: usize) -> Result<Measured, Refusal> {
    let not_offered = || {
        refuse(
            StatusCode::NOT_FOUND,
            Msg::new("lab-err-not-offered").arg("name", format!("{name:?}")),
        )
    };
    if !list_sets(dir).iter().any(|n| n == name) {
        return Err(not_offered());
    }
    let root = dir.canonicalize().map_err(|_| not_offered())?;
    let path = root.join(name).canonicalize().map_err(|_| not_offered())?;
    if !path.starts_with(&root) {
        return Err(not_offered());
    }
    let Ok(permit) = RUNS.try_acquire() else {
        return Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            Msg::new("lab-err-busy").arg("n", super::MAX_RUNS),
        ));
    };
    let config = state.searcher().config().clone();
    let tr = super::super::error::reader().tr;
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let set = crate::lab::qrels::load(&path, None).map_err(|e| e.to_string())?;
        let replay = judged::recordings_beside(&path);
        let answered = judged::gather(&config, &replay, &set.topics).map_err(|e| e.to_string())?;
        let opts = judged::Options {
            k,
            ..judged::Options::default()
        };
        let e = judged::evaluate(&set.topics, &answered, &config.dedup, &config.fusion, &opts);
        Ok::<Measured, String>(view(&e, &tr))
    })
    .await;
    match done {
        Ok(Ok(m)) => Ok(m),
        Ok(Err(why)) => Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            Msg::new("lab-err-read")
                .arg("file", name.to_string())
                .arg("detail", why),
        )),
        Err(_) => Err(refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            Msg::new("lab-err-failed"),
        )),
    }
}

/// `GET /lab/fusion[?set=NAME&k=K]`.
pub(in crate::web) async fn lab_fusion(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Response {
    let ui: Ui = super::super::error::reader();
    let dir = state.searcher().config().lab.data_dir.clone();
    let (status, set, k, error, measured) = match asked(&raw.unwrap_or_default()) {
        Err(r) => (
            r.status,
            String::new(),
            judged::DEFAULT_K,
            Some(r.message),
            None,
        ),
        Ok((set, k)) if set.is_empty() => (StatusCode::OK, set, k, None, None),
        Ok((set, k)) => match dir.as_deref() {
            None => (
                StatusCode::NOT_FOUND,
                set,
                k,
                Some(Msg::new("lab-err-no-dir")),
                None,
            ),
            Some(d) => match measure(&state, d, &set, k).await {
                Ok(m) => (StatusCode::OK, set, k, None, Some(m)),
                Err(r) => (r.status, set, k, Some(r.message), None),
            },
        },
    };
    let page = FusionLabPage {
        layout: Layout::of(&ui.tr.t("lab-fusion-title"), &ui),
        has_dir: dir.is_some(),
        sets: dir
            .as_deref()
            .map(list_sets)
            .unwrap_or_default()
            .into_iter()
            .map(|n| {
                let chosen = n == set;
                (n, chosen)
            })
            .collect(),
        k,
        error: error.map(|m| m.text(&ui.tr)),
        measured,
        tr: ui.tr.clone(),
    };
    match page.render() {
        Ok(body) => (
            status,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "private, no-store"),
            ],
            body,
        )
            .into_response(),
        Err(e) => super::super::AppError::from(e).into_response(),
    }
}
