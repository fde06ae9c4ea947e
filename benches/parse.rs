//! Parsing speed of the shipped presets on the real saved pages of the
//! team's data folder, or on the pages we write in the engines' markup
//! without it (it says which; the figures of the two are not comparable).
//!
//! Run with: `cargo bench --bench parse`
//!
//! One benchmark per preset: every saved results page the golden table
//! (`tests/data/parsers.toml`) lists for it (or 20 pages of ours for it,
//! `tests/support/own_pages.rs`) is parsed in turn, and the
//! throughput is reported in bytes of HTML (or JSON / RSS) per second. Each
//! iteration asserts the result count the table expects, so a broken preset
//! cannot look fast. `parse/<preset>` is what a search runs (for the `html`
//! kind: the streaming path's fast front end, then html5ever on the
//! streaming path and the tree path for pages it hands over);
//! `parse_html5ever/<preset>` is the streaming path with html5ever's
//! tokenizer and tree builder (what `parse/` was before the fast front end);
//! `parse_tree/<preset>` is the tree path alone, the reference. Before any
//! timing, every page of every HTML preset is read by both paths and must
//! give the same outcome, read by the streaming path itself (not by its
//! fallback), and by its fast front end itself (not handed over).
//! `scraper_full_document` measures the plain approach (html5ever over the
//! whole page, no pre-cut) on the same HTML pages, as the
//! baseline the html kind is compared with.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use metasift::config::Config;
use metasift::config::EngineKind;
use metasift::engines::html::HtmlEngine;
use metasift::engines::{self, Engine};
use serde::Deserialize;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[path = "../tests/support/own_pages.rs"]
mod own_pages;

#[path = "../tests/support/api_answers.rs"]
mod api_answers;

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    file: String,
    engine: String,
    expect: String,
    count: Option<usize>,
    /// `api` for the API answers' cases (not timed here), else `serp`.
    folder: Option<String>,
}

/// Pages per preset: (body, expected result count).
/// Times `parse` (which gives the number of results) over a preset's pages,
/// checking each page's count on every iteration.
fn time_pages(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    bodies: &[(String, usize)],
    parse: impl Fn(&str) -> usize,
) {
    let bytes: usize = bodies.iter().map(|(b, _)| b.len()).sum();
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            for (body, count) in bodies {
                assert_eq!(parse(black_box(body)), *count, "{name}");
            }
        })
    });
}

fn pages() -> BTreeMap<String, Vec<(String, usize)>> {
    let mut out = api_answers::api_pages(Path::new(ROOT));
    let mut web = web_pages();
    web.append(&mut out);
    web
}

fn web_pages() -> BTreeMap<String, Vec<(String, usize)>> {
    let Some(data) = metasift_data::root() else {
        eprintln!(
            "parse bench: our own pages (20 queries x 5 results a preset); {}",
            metasift_data::ABSENT
        );
        let mut out: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
        for engine in own_pages::ENGINES {
            for q in 0..20 {
                let query = format!("query {q}");
                let hits = own_pages::generic(engine, &query);
                let body = own_pages::results(engine, &query, &hits).body;
                out.entry(engine.to_string())
                    .or_default()
                    .push((body, hits.len()));
            }
        }
        return out;
    };
    eprintln!("parse bench: the saved pages of {}", data.display());
    let text = std::fs::read_to_string(Path::new(ROOT).join("tests/data/parsers.toml")).unwrap();
    let table: Table = toml::from_str(&text).unwrap();
    let mut out: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for case in table
        .case
        .into_iter()
        .filter(|c| c.expect == "results" && c.folder.is_none())
    {
        let path = data.join("serp").join(&case.file);
        let body = engines::decode_body(&std::fs::read(path).unwrap(), None);
        out.entry(case.engine)
            .or_default()
            .push((body, case.count.unwrap()));
    }
    out
}

fn bench_presets(c: &mut Criterion) {
    let config = Config::load(&Path::new(ROOT).join("engines.toml")).unwrap();
    let pages = pages();
    // The two paths agree, and the streaming one reads every page itself.
    let mut html: BTreeMap<&str, HtmlEngine> = BTreeMap::new();
    for (name, bodies) in &pages {
        let ec = config.engines.iter().find(|e| &e.name == name).unwrap();
        if ec.kind != EngineKind::Html {
            continue;
        }
        let engine = HtmlEngine::new(ec.clone()).unwrap();
        for (body, count) in bodies {
            let tree = engine.parse_tree(body).unwrap();
            assert_eq!(tree.hits.len(), *count, "{name}");
            let streamed = engine
                .parse_streamed(body)
                .unwrap_or_else(|why| panic!("{name}: the streaming path left: {why:?}"));
            assert_eq!(streamed, Ok(tree.clone()), "{name}: the paths differ");
            let fast = engine
                .parse_fast(body)
                .unwrap_or_else(|why| panic!("{name}: the fast front end handed over: {why:?}"));
            assert_eq!(
                fast,
                Ok(tree),
                "{name}: the fast front end and the tree differ"
            );
        }
        html.insert(name, engine);
    }
    let mut group = c.benchmark_group("parse");
    for (name, bodies) in &pages {
        let ec = config.engines.iter().find(|e| &e.name == name).unwrap();
        let engine: Box<dyn Engine> = engines::build(ec).unwrap();
        time_pages(&mut group, name, bodies, |body| {
            engine.parse(body).unwrap().hits.len()
        });
    }
    group.finish();
    let mut group = c.benchmark_group("parse_html5ever");
    for (name, engine) in &html {
        time_pages(&mut group, name, &pages[*name], |body| {
            engine.parse_streamed(body).unwrap().unwrap().hits.len()
        });
    }
    group.finish();
    let mut group = c.benchmark_group("parse_tree");
    for (name, engine) in &html {
        time_pages(&mut group, name, &pages[*name], |body| {
            engine.parse_tree(body).unwrap().hits.len()
        });
    }
    group.finish();

    // The baseline: a full html5ever tree of every HTML results page.
    let html: Vec<&String> = pages
        .values()
        .flatten()
        .map(|(b, _)| b)
        .filter(|b| b.trim_start().starts_with('<') && !b.trim_start().starts_with("<?xml"))
        .collect();
    let bytes: usize = html.iter().map(|b| b.len()).sum();
    let mut group = c.benchmark_group("baseline");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("scraper_full_document", |b| {
        b.iter(|| {
            for body in &html {
                let doc = scraper::Html::parse_document(black_box(body));
                assert!(doc.tree.nodes().count() > 10);
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench_presets
}
criterion_main!(benches);
