//! The judged set (`tests/data/judged/`): queries with their intent, pages
//! graded 0/1/2 by hand, and each engine's list of them — rendered in each
//! engine's own markup into recordings (as the offline demo's are), with
//! the TREC qrels and topics files written from the same source. And the
//! check the shipped fusion default must pass on it: a mean nDCG@10 at least
//! that of RRF and CombMNZ, and above the best fixed single engine.
//!
//! `METASIFT_UPDATE_JUDGED=1 cargo test --test judged_set` writes the
//! recordings, `judged.qrels` and `judged.topics.tsv` again after
//! `pages.toml` or a preset changed.

#[path = "offline_demo/render.rs"]
#[allow(dead_code)]
mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use metasift::config::{Config, ConfigSource, FusionMethod};
use metasift::lab::judged;
use metasift::lab::qrels;
use serde::Deserialize;

/// `tests/data/judged/pages.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pages {
    query: Vec<JudgedQuery>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgedQuery {
    id: String,
    text: String,
    intent: String,
    /// `[id, grade, url, title, snippet]`.
    pages: Vec<(String, u8, String, String, String)>,
    /// Engine name → page ids, best first, separated by spaces.
    lists: BTreeMap<String, String>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/judged")
}

fn pages() -> Pages {
    let path = dir().join("pages.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn built_in() -> Config {
    Config::load_layered(&ConfigSource::built_in()).unwrap()
}

/// Every file the set should hold, by path under `tests/data/judged/`.
fn rendered(pages: &Pages, config: &Config) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut qrels = String::new();
    let mut topics = String::from(
        "# The judged set's queries: id, the words asked, the intent (written from pages.toml).\n",
    );
    for q in &pages.query {
        topics.push_str(&format!("{}\t{}\t{}\n", q.id, q.text, q.intent));
        for (_, grade, url, _, _) in &q.pages {
            qrels.push_str(&format!("{} 0 {url} {grade}\n", q.id));
        }
        for (engine, list) in &q.lists {
            let ec = config
                .engines
                .iter()
                .find(|e| &e.name == engine)
                .unwrap_or_else(|| panic!("{}: no engine {engine:?} in engines.toml", q.id));
            let hits: Vec<(&str, &str, &str)> = list
                .split_whitespace()
                .map(|id| {
                    let p = q
                        .pages
                        .iter()
                        .find(|p| p.0 == id)
                        .unwrap_or_else(|| panic!("{} {engine}: no page {id:?}", q.id));
                    (p.3.as_str(), p.2.as_str(), p.4.as_str())
                })
                .collect();
            let rec = render::list_recording(ec, &q.text, &hits);
            let rel = Path::new("recordings").join(metasift::search::recording::relative_path(
                &rec.engine,
                &rec.query,
            ));
            let mut bytes = serde_json::to_vec_pretty(&rec).unwrap();
            bytes.push(b'\n');
            assert!(out.insert(rel, bytes).is_none(), "{}: two answers", q.id);
        }
    }
    out.insert(PathBuf::from("judged.qrels"), qrels.into_bytes());
    out.insert(PathBuf::from("judged.topics.tsv"), topics.into_bytes());
    out
}

/// The set's files now on disk (the recordings and the two written files).
fn on_disk() -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let base = dir();
    for name in ["judged.qrels", "judged.topics.tsv"] {
        if let Ok(b) = std::fs::read(base.join(name)) {
            out.insert(PathBuf::from(name), b);
        }
    }
    let rec = base.join("recordings");
    for engine in std::fs::read_dir(&rec).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(engine.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|x| x == "json") {
                let rel = path.strip_prefix(&base).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_set_is_well_formed() {
    let pages = pages();
    assert!(pages.query.len() >= 30, "at least 30 queries");
    let chinese = pages
        .query
        .iter()
        .filter(|q| {
            q.text
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
        })
        .count();
    assert!(
        chinese >= 5 && pages.query.len() - chinese >= 5,
        "English and Chinese"
    );
    let mut ids = BTreeSet::new();
    for q in &pages.query {
        assert!(ids.insert(&q.id), "{} twice", q.id);
        assert!(
            !q.intent.trim().is_empty(),
            "{}: the intent is written down",
            q.id
        );
        let mut page_ids = BTreeSet::new();
        let mut keys = BTreeSet::new();
        for (id, grade, url, title, snippet) in &q.pages {
            assert!(page_ids.insert(id), "{}: page {id} twice", q.id);
            assert!(*grade <= 2, "{} {id}: grades are 0, 1 or 2", q.id);
            assert!(
                keys.insert(metasift_dedup::url_key(url)),
                "{} {id}: one page, one URL",
                q.id
            );
            assert!(!title.is_empty() && !snippet.is_empty(), "{} {id}", q.id);
        }
        assert!(
            q.pages.iter().any(|p| p.1 == 2),
            "{}: something answers the intent",
            q.id
        );
        assert!(q.lists.len() >= 3, "{}: three engines or more", q.id);
        for (engine, list) in &q.lists {
            let ids: Vec<&str> = list.split_whitespace().collect();
            let unique: BTreeSet<&str> = ids.iter().copied().collect();
            assert_eq!(unique.len(), ids.len(), "{} {engine}: a page twice", q.id);
            for id in ids {
                assert!(
                    page_ids.contains(&id.to_string()),
                    "{} {engine}: {id}",
                    q.id
                );
            }
        }
    }
}

#[test]
fn the_recordings_and_qrels_are_pages_toml_rendered() {
    let want = rendered(&pages(), &built_in());
    let have = on_disk();
    if std::env::var_os("METASIFT_UPDATE_JUDGED").is_some() {
        for rel in have.keys() {
            std::fs::remove_file(dir().join(rel)).unwrap();
        }
        for (rel, bytes) in &want {
            let path = dir().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        return;
    }
    let stale: Vec<_> = have.keys().filter(|k| !want.contains_key(*k)).collect();
    let missing: Vec<_> = want.keys().filter(|k| !have.contains_key(*k)).collect();
    let changed: Vec<_> = want
        .iter()
        .filter(|(k, v)| have.get(*k).is_some_and(|h| h != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        stale.is_empty() && missing.is_empty() && changed.is_empty(),
        "tests/data/judged is not pages.toml rendered (METASIFT_UPDATE_JUDGED=1 cargo test \
         --test judged_set writes it): stale {stale:?}, missing {missing:?}, changed {changed:?}"
    );
}

/// The lab on the judged set, with the shipped configuration: every engine
/// list recorded is parsed back whole, and the shipped default's mean
/// nDCG@10 is at least RRF's and CombMNZ's and above the best fixed single
/// engine's.
#[test]
fn the_shipped_default_ranks_best_on_the_judged_set() {
    let config = built_in();
    let set = qrels::load(&dir().join("judged.qrels"), None).unwrap();
    let pages = pages();
    assert_eq!(set.topics.len(), pages.query.len());
    let answered = judged::gather(&config, &dir().join("recordings"), &set.topics).unwrap();
    // Each engine answered each query it has a list for, with the whole list.
    for (q, got) in pages.query.iter().zip(&answered) {
        for (engine, list) in &q.lists {
            let a = got
                .answers
                .iter()
                .find(|a| &a.engine == engine)
                .unwrap_or_else(|| panic!("{} {engine}: no answer", q.id));
            assert_eq!(
                a.results.len(),
                list.split_whitespace().count(),
                "{} {engine}",
                q.id
            );
        }
    }
    let opts = judged::Options::default();
    let e = judged::evaluate(&set.topics, &answered, &config.dedup, &config.fusion, &opts);
    eprintln!("{}", judged::summary(&e, &set));
    let configured = e.configured_run().unwrap().ndcg;
    let rrf = e
        .run(&config.fusion.with_method(FusionMethod::Rrf).label())
        .unwrap()
        .ndcg;
    let mnz = e.run("combmnz").unwrap().ndcg;
    let engine = e.best_engine_run().unwrap().ndcg;
    assert!(configured >= rrf, "default {configured} < rrf {rrf}");
    assert!(configured >= mnz, "default {configured} < combmnz {mnz}");
    assert!(
        configured > engine,
        "default {configured} <= best engine {engine}"
    );
}

/// `metasift lab --qrels tests/data/judged/judged.qrels` prints the table
/// and writes the files asked for.
#[test]
fn the_lab_command_prints_the_table_and_writes_its_files() {
    let out = std::env::temp_dir().join(format!("metasift-judged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_metasift"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "lab",
            "--qrels",
            "tests/data/judged/judged.qrels",
            "--permutations",
            "2000",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    for label in [
        "position",
        "rrf k=60",
        "combsum",
        "combmnz",
        "borda",
        "engine bing",
        "nDCG@10",
    ] {
        assert!(stdout.contains(label), "{label}: {stdout}");
    }
    assert!(stdout.contains("p = "), "{stdout}");
    for f in [
        "fusion-runs.csv",
        "fusion-queries.csv",
        "fusion-tests.csv",
        "fusion.svg",
        "report.md",
    ] {
        let bytes = std::fs::read(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(!bytes.is_empty(), "{f}");
    }
    let svg = std::fs::read_to_string(out.join("fusion.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("combmnz"), "{svg}");
    let _ = std::fs::remove_dir_all(&out);
}
