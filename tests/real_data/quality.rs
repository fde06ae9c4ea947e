//! The quality bar (real data): on labeled multi-engine result lists built from real
//! text (`lab::synth`: DuReader Baidu result lists with PAWS-X hard
//! negatives, AG news stories of one category), the default method at the
//! shipped defaults reaches precision ≥ 0.98 and recall ≥ 0.95 (pairwise
//! clustering). URL-only dedup (SearXNG's way) is printed beside it.
//!
//! The sets are deterministic (seed 42), so a change to the dedup core that
//! merges different pages or misses copies moves these numbers and fails here.

use std::path::Path;

use metasift::config::Config;
use metasift::lab::metrics::{self, Confusion};
use metasift::lab::synth::{self, Corpus, SynthOptions};
use metasift_dedup::{Method, Settings};

use crate::real_data::Cases;

fn measure(
    root: &Path,
    corpus: Corpus,
    lists: usize,
    settings: &Settings,
) -> (Confusion, Confusion) {
    let records = synth::generate(
        corpus,
        root,
        SynthOptions {
            seed: 42,
            sets: lists,
        },
    )
    .expect("the corpora in the data folder");
    let sets = synth::to_sets(&records);
    assert!(
        sets.len() >= lists.min(100),
        "{corpus}: {} lists",
        sets.len()
    );
    let method = metrics::evaluate_sets(&sets, settings);
    let url_only = metrics::evaluate_sets(
        &sets,
        &Settings {
            method: Method::None,
            ..settings.clone()
        },
    );
    (method, url_only)
}

fn line(name: &str, c: &Confusion) -> String {
    format!(
        "{name:<14} precision {:.4}  recall {:.4}  F1 {:.4}  (tp {} fp {} fn {})",
        c.precision(),
        c.recall(),
        c.f1(),
        c.tp,
        c.fp,
        c.fn_
    )
}

fn shipped() -> Settings {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/engines.toml");
    let shipped = Config::load(Path::new(path)).expect("engines.toml").dedup;
    let d = Settings::default();
    // The bar is checked once, so the file and the code must ship one setting.
    assert_eq!(
        (
            shipped.method,
            shipped.os1,
            shipped.os2,
            shipped.window,
            shipped.unit,
            shipped.word_anchors
        ),
        (d.method, d.os1, d.os2, d.window, d.unit, d.word_anchors),
        "engines.toml [dedup] and Settings::default() disagree"
    );
    shipped
}

/// Measures `corpus` at the shipped settings and checks precision ≥ 0.98
/// and recall ≥ `min_recall`.
fn check(root: &Path, corpus: Corpus, lists: usize, min_recall: f64) {
    let settings = shipped();
    let (m, url) = measure(root, corpus, lists, &settings);
    eprintln!(
        "{corpus} ({lists} lists, os1={} os2={} window={} unit={:?}):",
        settings.os1, settings.os2, settings.window, settings.unit
    );
    eprintln!("  {}", line(settings.method.as_str(), &m));
    eprintln!("  {}", line("none (URL)", &url));
    assert!(m.total() > 10_000, "too few pairs judged: {}", m.total());
    assert!(
        m.precision() >= 0.98 && m.recall() >= min_recall,
        "{corpus}: {}",
        line(settings.method.as_str(), &m)
    );
    // The snippet stage must add something over URL-only dedup.
    assert!(m.recall() > url.recall(), "{corpus}: no gain over URL-only");
}

/// One case per corpus the bar is measured on, named by its file.
pub fn cases(cases: &mut Cases) {
    cases.add(
        "quality::corpus/dureader_search_zh/search_results.jsonl",
        |root| check(root, Corpus::DuReader, 300, 0.95),
    );
    // English news snippets carry few punctuation anchors, so the default
    // method relies on its content-defined word anchors (`word_anchors`) and
    // on news site names in titles here (issue #2; README, "Choosing the
    // defaults").
    cases.add("quality::corpus/ag_news_en/test.csv", |root| {
        check(root, Corpus::AgNews, 300, 0.95)
    });
}
