//! Fan-out overhead: what metasift adds on top of its slowest engine.
//!
//! Run with: `cargo bench --bench fanout`
//!
//! Six loopback engines (real HTTP servers on 127.0.0.1, tests/support)
//! answer at once with the real saved pages of `javascript tutorial` (brave,
//! mojeek, startpage, yahoo, ecosia, bing — ≈ 1.9 MB of HTML) of the team's
//! data folder, or without it with our own `rust tutorial` pages of those
//! engines (much smaller: the bench says which, and the figures of the two
//! are not comparable), through the SHIPPED presets with only the host
//! replaced. Three measurements:
//!
//! - `fetch_only`: the six GETs at once through the same client, bodies read,
//!   nothing parsed — the floor set by the engines and the loopback network;
//! - `search`: a whole `Searcher::search` (fan-out, streamed bodies,
//!   charset decoding, parsing on the blocking pool, dedup, fusion);
//! - `parse_and_fuse`: the CPU work alone, on one thread, no HTTP.
//!
//! `search − fetch_only` is the overhead the target (< 15 ms at the median)
//! is about; `parse_and_fuse` per MB of HTML is the CPU cost. The bench
//! prints both after the runs, and every iteration asserts that all six
//! engines answered and the fused list holds their agreement, so a broken
//! path cannot look fast.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use metasift::config::Config;
use metasift::fusion::{self, EngineAnswer};
use metasift::model::EngineResult;
use metasift::search::{SearchOptions, Searcher, http_client};
use support::{Behavior, LoopbackEngine};

struct Setup {
    runtime: tokio::runtime::Runtime,
    _servers: Vec<LoopbackEngine>,
    config: Config,
    searcher: Searcher,
    urls: Vec<String>,
    bytes: usize,
}

fn setup() -> Setup {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut config = support::shipped_config();
    let members = support::js_pages();
    let names: Vec<&str> = members.iter().map(|(n, _, _)| *n).collect();
    support::keep_only(&mut config, &names);
    // The loopback engines are asked many times a minute: the presets'
    // outbound budgets (for the real sites) would rest them.
    for e in &mut config.engines {
        e.max_per_minute = None;
        e.burst = None;
    }
    config.server.results_per_page = 1000;
    let mut servers = Vec::new();
    let mut bytes = 0;
    for (name, body, content_type) in members {
        bytes += body.len();
        let page = Behavior::Page {
            body: body.into(),
            content_type: content_type.into(),
        };
        let server = runtime.block_on(LoopbackEngine::spawn(page));
        support::point_at(&mut config, name, &server.base_url());
        servers.push(server);
    }
    let client = http_client(&config.server).unwrap();
    let searcher = Searcher::new(Arc::new(config.clone()), client);
    let q = searcher.parse_query("javascript tutorial", 1);
    let urls = config
        .engines
        .iter()
        .map(|e| metasift::engines::build(e).unwrap().build_request(&q).url)
        .collect();
    Setup {
        runtime,
        _servers: servers,
        config,
        searcher,
        urls,
        bytes,
    }
}

async fn fetch_only(client: &reqwest::Client, urls: &[String]) -> usize {
    let gets = urls.iter().map(|u| async move {
        let r = client.get(u).send().await.unwrap();
        r.bytes().await.unwrap().len()
    });
    futures::future::join_all(gets).await.into_iter().sum()
}

async fn search(s: &Searcher) -> usize {
    let q = s.parse_query("javascript tutorial", 1);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    assert!(
        resp.engines.iter().all(|r| r.failure.is_none()),
        "{:?}",
        resp.engines
    );
    assert!(resp.results.len() >= 20, "{}", resp.results.len());
    assert!(resp.results[0].engines.len() >= 3, "{:?}", resp.results[0]);
    resp.results.len()
}

/// Decoding, parsing and fusion of the six pages on this thread.
fn parse_and_fuse(config: &Config, pages: &[(String, Vec<u8>)]) -> usize {
    let answers: Vec<EngineAnswer> = pages
        .iter()
        .map(|(name, body)| {
            let ec = config.engines.iter().find(|e| &e.name == name).unwrap();
            let engine = metasift::engines::build(ec).unwrap();
            let text = metasift::engines::decode_body(body, Some("text/html; charset=utf-8"));
            let parsed = engine.parse(&text).unwrap();
            EngineAnswer {
                engine: name.clone(),
                weight: ec.weight,
                results: parsed
                    .hits
                    .into_iter()
                    .enumerate()
                    .map(|(i, h)| EngineResult {
                        published: None,
                        thumbnail: None,
                        key_url: None,
                        display_url: None,
                        extra: None,
                        url: h.url,
                        title: h.title,
                        snippet: h.snippet,
                        engine: name.clone(),
                        position: i as u32 + 1,
                        category: "general".into(),
                    })
                    .collect(),
            }
        })
        .collect();
    let fused = fusion::fuse(&answers, &config.dedup, &config.fusion, false);
    assert!(fused.len() >= 30, "{}", fused.len());
    fused.len()
}

/// Median of `n` timed runs of `f`.
fn median(n: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2]
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let client = s.searcher.client().clone();
    let pages: Vec<(String, Vec<u8>)> = support::js_pages()
        .into_iter()
        .map(|(n, body, _)| (n.to_string(), body))
        .collect();
    // Warm the connection pool and the page cache of the servers.
    s.runtime.block_on(search(&s.searcher));
    assert_eq!(s.runtime.block_on(fetch_only(&client, &s.urls)), s.bytes);

    let mut group = c.benchmark_group("fanout");
    group.throughput(Throughput::Bytes(s.bytes as u64));
    group.bench_function("fetch_only", |b| {
        b.iter(|| black_box(s.runtime.block_on(fetch_only(&client, &s.urls))))
    });
    group.bench_function("search", |b| {
        b.iter(|| black_box(s.runtime.block_on(search(&s.searcher))))
    });
    group.bench_function("parse_and_fuse", |b| {
        b.iter(|| black_box(parse_and_fuse(&s.config, &pages)))
    });
    group.finish();

    // The two figures the README quotes, from medians of plain runs.
    let runs = 60;
    let fetch = median(runs, || {
        s.runtime.block_on(fetch_only(&client, &s.urls));
    });
    let full = median(runs, || {
        s.runtime.block_on(search(&s.searcher));
    });
    let cpu = median(runs, || {
        parse_and_fuse(&s.config, &pages);
    });
    let mb = s.bytes as f64 / 1e6;
    println!(
        "fan-out over {} engines, {:.2} MB of HTML: fetch only {:.2} ms, search {:.2} ms, \
         overhead {:.2} ms (median of {runs}); parse+fuse {:.2} ms on one thread = {:.2} ms CPU per MB",
        pages.len(),
        mb,
        fetch.as_secs_f64() * 1e3,
        full.as_secs_f64() * 1e3,
        (full.as_secs_f64() - fetch.as_secs_f64()) * 1e3,
        cpu.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3 / mb,
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
