//! The web layer's cost: rendering one fused response (DuckDuckGo + Bing
//! answering "does caffeine affect sleep" with our pages in their markup, 11
//! results, 9 duplicates folded) as HTML, JSON, CSV and RSS, and a
//! whole `GET /search` through the router with the member engines on
//! loopback — from the cache, and with a fresh query every time (fan-out,
//! parse, dedup, fusion, render). Each bench asserts on its output so a broken
//! path cannot look fast.
//!
//! `recluster/*` (issue #6): six loopback engines answer their saved
//! `javascript tutorial` pages of the team's data folder (67 records), or our
//! `rust tutorial` pages without it (it says which), into a memory cache; then the
//! comparison alone (`SettingsComparison::of`: two fusions and the diff), and
//! whole `GET /search` pages whose `os2` differs from `[dedup]`: the same
//! `os2` (page from the page cache, comparison computed) and a new `os2`
//! every time (page fused from the cached answers, compared, rendered) —
//! never a fan-out, which the bench checks.
//!
//! Run with `cargo bench --bench web`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use askama::Template;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::BodyExt;
use metasift::config::Config;
use metasift::output::{self, searxng};
use metasift::search::{SearchOptions, Searcher};
use metasift::web::{self, AppState, SearchParams, pages};
use support::{Behavior, LoopbackEngine};
use tower::ServiceExt;

const QUERY: &str = "does caffeine affect sleep";

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (ddg, bing, config) = rt.block_on(async {
        let ddg = LoopbackEngine::spawn(Behavior::caffeine("duckduckgo")).await;
        let bing = LoopbackEngine::spawn(Behavior::caffeine("bing")).await;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/web_engines.toml");
        let mut config = Config::load(Path::new(path)).unwrap();
        support::point_at(&mut config, "duckduckgo", &ddg.base_url());
        support::point_at(&mut config, "bing", &bing.base_url());
        (ddg, bing, config)
    });
    let searcher = Searcher::new(
        Arc::new(config.clone()),
        metasift::search::client_builder().build().unwrap(),
    );
    let query = searcher.parse_query(QUERY, 1);
    let resp = rt
        .block_on(searcher.search(&query, &SearchOptions::default()))
        .unwrap();
    assert_eq!(
        resp.results.len(),
        11,
        "the caffeine pages fuse to 11 results"
    );
    let params = SearchParams::from_request(Some("q=does+caffeine+affect+sleep"), b"").unwrap();

    let mut g = c.benchmark_group("render");
    g.bench_function("html", |b| {
        b.iter(|| {
            let page = pages::ResultsPage::new(black_box(&resp), &params, &config);
            let html = page.render().unwrap();
            assert!(html.len() > 10_000);
            html
        })
    });
    g.bench_function("json", |b| {
        b.iter(|| {
            let s = serde_json::to_string(&searxng::answer(black_box(&resp), None)).unwrap();
            assert!(s.contains("\"duplicates\""));
            s
        })
    });
    let rows = resp.results.len();
    g.bench_function("csv", |b| {
        b.iter(|| {
            let s = output::csv::to_csv(black_box(&resp), None).unwrap();
            assert_eq!(s.matches(",result\n").count(), rows);
            s
        })
    });
    g.bench_function("rss", |b| {
        b.iter(|| {
            let s = output::rss::to_rss(black_box(&resp), None, "http://h/", "/search?q=x", 20)
                .unwrap();
            assert_eq!(s.matches("<item>").count(), rows);
            s
        })
    });
    g.finish();

    let app = web::router(AppState::new(searcher));
    let get = |uri: String| {
        let app = app.clone();
        async move {
            let body = ok_page(app, uri).await;
            assert!(body.windows(17).any(|w| w == b"<li class=\"result"));
            body.len()
        }
    };
    let mut g = c.benchmark_group("router");
    g.bench_function("search_html_cached", |b| {
        b.iter(|| rt.block_on(get("/search?q=does+caffeine+affect+sleep".into())))
    });
    let n = AtomicU64::new(0);
    g.bench_function("search_html_fresh_query", |b| {
        b.iter(|| {
            let i = n.fetch_add(1, Ordering::Relaxed);
            rt.block_on(get(format!("/search?q=caffeine+sleep+{i}")))
        })
    });
    g.finish();
    drop((ddg, bing));
}

/// The body of a `GET uri` that must answer 200.
async fn ok_page(app: axum::Router, uri: String) -> axum::body::Bytes {
    let resp = app
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    resp.into_body().collect().await.unwrap().to_bytes()
}

fn recluster(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut config = support::shipped_config();
    let pages = support::js_pages();
    let names: Vec<&str> = pages.iter().map(|(n, _, _)| *n).collect();
    support::keep_only(&mut config, &names);
    config.limits.per_minute = 0;
    // As in tests/web.rs: punctuation-only feature codes.
    config.dedup.word_anchors = 0;
    let servers: Vec<LoopbackEngine> = pages
        .into_iter()
        .map(|(name, body, content_type)| {
            let page = Behavior::Page {
                body: body.into(),
                content_type: content_type.into(),
            };
            let server = rt.block_on(LoopbackEngine::spawn(page));
            support::point_at(&mut config, name, &server.base_url());
            server
        })
        .collect();
    let configured = config.dedup.clone();
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(metasift::ops::cache::Cache::memory(
        std::time::Duration::from_secs(3600),
        64 << 20,
    ));
    let query = searcher.parse_query("javascript tutorial", 1);
    let (_, gathered) = rt
        .block_on(searcher.answers(&query, &SearchOptions::default()))
        .unwrap();
    let requested = metasift_dedup::Settings {
        os2: 0.2,
        ..configured.clone()
    };

    let mut g = c.benchmark_group("recluster");
    g.bench_function("compare_the_records", |b| {
        b.iter(|| {
            let c = metasift::fusion::compare::SettingsComparison::of(
                black_box(&gathered.answers),
                &configured,
                &requested,
            );
            // A looser os2 folds more: some group forms.
            assert!(c.diff.results_after < c.diff.results_before);
            c
        })
    });
    let app = web::router(AppState::new(searcher));
    let get = |uri: String| {
        let app = app.clone();
        async move {
            let body = ok_page(app, uri).await;
            let panel = b"<section class=\"compare\"";
            assert!(body.windows(panel.len()).any(|w| w == panel));
            body.len()
        }
    };
    g.bench_function("search_html_same_os2", |b| {
        b.iter(|| rt.block_on(get("/search?q=javascript+tutorial&os2=0.2".into())))
    });
    let n = AtomicU64::new(0);
    g.bench_function("search_html_new_os2", |b| {
        b.iter(|| {
            // A threshold no earlier iteration asked: a page-cache miss.
            let i = n.fetch_add(1, Ordering::Relaxed);
            rt.block_on(get(format!(
                "/search?q=javascript+tutorial&os2={}",
                0.2 + i as f64 * 1e-9
            )))
        })
    });
    g.finish();
    let asked: Vec<usize> = servers.iter().map(LoopbackEngine::requests).collect();
    assert_eq!(asked, [1; 6], "re-clustering never asked the engines again");
}

criterion_group!(benches, bench, recluster);
criterion_main!(benches);
