//! Runs `tests/data/near_duplicates.toml`: real near-duplicate and distinct
//! cases, each with the verdict its last record must get.

use metasift_dedup::{Deduper, Doc, Method, Settings, Stage};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    source: String,
    expect: String,
    #[serde(default)]
    cluster: usize,
    method: Option<Method>,
    known_miss: Option<String>,
    records: Vec<Record>,
}

#[derive(Debug, Deserialize)]
struct Record {
    query: Option<String>,
    url: String,
    title: String,
    snippet: String,
}

fn matches(expect: &str, stage: Option<Stage>) -> bool {
    match expect {
        "kept" => stage.is_none(),
        "url" => stage == Some(Stage::Url),
        "title" => stage == Some(Stage::Title),
        "snippet" => stage == Some(Stage::Snippet),
        "duplicate" => matches!(stage, Some(Stage::Title | Stage::Snippet)),
        other => panic!("unknown expectation {other:?}"),
    }
}

#[test]
fn near_duplicate_table() {
    let text = include_str!("data/near_duplicates.toml");
    let table: Table = toml::from_str(text).expect("near_duplicates.toml parses");
    assert!(table.case.len() >= 20, "the table lost cases");
    let mut failures = Vec::new();
    for case in &table.case {
        assert!(case.records.len() >= 2, "{}: needs two records", case.name);
        let settings = Settings {
            method: case.method.unwrap_or_default(),
            ..Settings::default()
        };
        let mut d = Deduper::new(&settings);
        let mut last = None;
        for r in &case.records {
            let doc = Doc::new(&r.url, &r.title, &r.snippet);
            last = Some(d.push_query(r.query.as_deref(), doc));
        }
        let v = last.expect("records");
        let base = case.records.len() - 2;
        let expected_cluster = if case.expect == "kept" {
            case.records.len() - 1
        } else if case.records.iter().any(|r| r.query.is_some()) {
            // Warm-up records of other queries come first: count from the pair.
            base + case.cluster
        } else {
            case.cluster
        };
        let right = matches(&case.expect, v.stage) && v.cluster == expected_cluster;
        let line = format!(
            "{} [{}]: expected {}, got {:?} (cluster {}, similarity {:?})",
            case.name, case.source, case.expect, v.stage, v.cluster, v.similarity
        );
        match (&case.known_miss, right) {
            (None, true) | (Some(_), false) => eprintln!("ok   {line}"),
            (None, false) => failures.push(format!("WRONG {line}")),
            (Some(why), true) => failures.push(format!(
                "FIXED {line} — listed as a known miss ({why}); remove `known_miss`"
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
