//! What one search costs through the whole server (`/search?format=json`,
//! routing, fan-out over loopback engines, parsing, dedup, fusion, the
//! SearXNG JSON), a general search against a `categories=science` one
//! (issue #27: "a category search adds no more than the general one").
//!
//! Run with: `cargo bench --bench category`
//!
//! `search/general`: the six shipped web presets of `tests/support`'s
//! `js_pages` (the real saved `javascript tutorial` pages of the team's data
//! folder, ≈ 1.9 MB of HTML, or our own smaller pages without it).
//! `search/science`: the science presets arXiv, Crossref, Semantic Scholar
//! and PubMed (its search, then its summary: two requests) answering with
//! their real saved answers (≈ 0.3 MB; skipped without the data folder).
//! Each iteration asks a new query (so no cache answers) and asserts every
//! engine answered. The providers' outbound budgets and the per-client
//! rate limit are lifted: they are not what is measured.
//!
//! For instruction counts, `METASIFT_CATEGORY_ROUNDS=N` runs N searches of
//! each kind outside criterion and prints their bytes (run it under
//! `valgrind --tool=callgrind` with N and with 0, and take the difference).

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use metasift::config::Config;
use serde_json::Value;
use support::{Behavior, LoopbackEngine, router};

/// A server's configuration: the shipped presets `servers` name, each at
/// its loopback engine, with no budgets or rate limits.
fn config(servers: &[(&str, &LoopbackEngine)]) -> Config {
    let mut config = support::shipped_config();
    let names: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    for (name, server) in servers {
        support::point_at(&mut config, name, &server.base_url());
    }
    for e in &mut config.engines {
        e.max_per_minute = None;
        e.burst = None;
    }
    config.limits.per_minute = 0;
    config.limits.max_in_flight = 0;
    config
}

struct Kind {
    name: &'static str,
    app: axum::Router,
    query: &'static str,
    categories: &'static str,
    engines: usize,
    _servers: Vec<LoopbackEngine>,
}

async fn general() -> Kind {
    let mut servers = Vec::new();
    for (name, body, content_type) in support::js_pages() {
        servers.push((
            name,
            LoopbackEngine::spawn(Behavior::Page {
                body: body.into(),
                content_type: content_type.into(),
            })
            .await,
        ));
    }
    let refs: Vec<(&str, &LoopbackEngine)> = servers.iter().map(|(n, s)| (*n, s)).collect();
    let app = router::app_with(config(&refs));
    Kind {
        name: "general",
        app,
        query: "javascript tutorial",
        categories: "general",
        engines: servers.len(),
        _servers: servers.into_iter().map(|(_, s)| s).collect(),
    }
}

async fn science(root: &Path) -> Kind {
    let serve = |rel: &str| {
        let path = root.join("api").join(rel);
        let body = std::fs::read(&path).unwrap();
        let ct = support::content_type_for(&path);
        async move {
            LoopbackEngine::spawn(Behavior::Page {
                body: body.into(),
                content_type: ct.into(),
            })
            .await
        }
    };
    let arxiv = serve("arxiv/arxivpy2026_testing_s0_m10.atom.xml").await;
    let crossref = serve("crossref/habanero2026_ecology_author-carl-boettiger.json").await;
    let s2 = serve("semantic_scholar/s2py2024_turing.json").await;
    let esearch = serve("pubmed/biopython_esearch1_biopython.xml").await;
    let esummary = serve("pubmed/biopython_esummary1_esummary-id-11850928-11482001.xml").await;
    let mut config = config(&[
        ("arxiv", &arxiv),
        ("crossref", &crossref),
        ("semantic_scholar", &s2),
        ("pubmed", &esearch),
    ]);
    support::point_follow_at(&mut config, "pubmed", &esummary.base_url());
    Kind {
        name: "science",
        app: router::app_with(config),
        query: "testing",
        categories: "science",
        engines: 4,
        _servers: vec![arxiv, crossref, s2, esearch, esummary],
    }
}

/// One search of `kind` for a query never asked before; its body's bytes.
async fn search(kind: &Kind, n: u64) -> usize {
    let uri = format!(
        "/search?q={}+{n}&format=json&categories={}",
        kind.query.replace(' ', "+"),
        kind.categories
    );
    let (resp, body) = router::get_from(&kind.app, &uri).await;
    assert_eq!(resp.status(), 200, "{}: {body}", kind.name);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["unresponsive_engines"],
        serde_json::json!([]),
        "{}",
        kind.name
    );
    let engines: std::collections::BTreeSet<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["engines"].as_array().unwrap())
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(engines.len(), kind.engines, "{}: {engines:?}", kind.name);
    body.len()
}

fn kinds(rt: &tokio::runtime::Runtime) -> Vec<Kind> {
    let mut kinds = vec![rt.block_on(general())];
    match metasift_data::root() {
        Some(root) => kinds.push(rt.block_on(science(&root))),
        None => eprintln!(
            "category bench: no science search; {}",
            metasift_data::ABSENT
        ),
    }
    kinds
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let kinds = kinds(&rt);
    if let Ok(rounds) = std::env::var("METASIFT_CATEGORY_ROUNDS") {
        let rounds: u64 = rounds.parse().unwrap();
        let only = std::env::var("METASIFT_CATEGORY_ONLY").ok();
        for kind in &kinds {
            if only.as_deref().is_some_and(|o| o != kind.name) {
                continue;
            }
            let mut bytes = 0;
            for n in 0..rounds {
                bytes += rt.block_on(search(kind, n));
            }
            println!("{}: {rounds} searches, {bytes} bytes of JSON", kind.name);
        }
        return;
    }
    let mut group = c.benchmark_group("search");
    for kind in &kinds {
        let mut n = 0u64;
        group.bench_function(kind.name, |b| {
            b.iter(|| {
                n += 1;
                black_box(rt.block_on(search(kind, n)))
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
