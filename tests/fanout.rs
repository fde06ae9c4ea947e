//! The fan-out against real HTTP servers on loopback: agreeing engines are
//! fused once with all their engines, and hostile engines (never answering,
//! trickling, a gigabyte, garbage, redirect loops, error statuses, CAPTCHA
//! pages, script in the answer) cost at most their own timeout and never
//! touch the others' results.

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use metasift::config::Config;
use metasift::engines::Engine;
use metasift::model::{FailureKind, SearchResponse};
use metasift::search::{SearchOptions, Searcher, http_client};
use support::own_pages::{self, Page};
use support::{Behavior, LoopbackEngine, TestEngine, test_page};

/// A searcher over `TestEngine`s, one per loopback server, named as given.
fn searcher(servers: &[(&str, &LoopbackEngine)], deadline_ms: u64, timeout_ms: u64) -> Searcher {
    let mut config = Config::default();
    config.server.deadline_ms = deadline_ms;
    let mut engines: Vec<Arc<dyn Engine>> = Vec::new();
    for (name, server) in servers {
        let mut ec = support::test_engine_config(name, &server.base_url());
        ec.timeout_ms = timeout_ms;
        config.engines.push(ec.clone());
        engines.push(Arc::new(TestEngine::from_config(ec)));
    }
    let client = http_client(&config.server).unwrap();
    Searcher::with_engines(Arc::new(config), client, engines)
}

fn report<'a>(resp: &'a SearchResponse, engine: &str) -> &'a metasift::model::EngineReport {
    resp.engines
        .iter()
        .find(|r| r.engine == engine)
        .unwrap_or_else(|| panic!("no report for {engine}"))
}

#[test]
fn rehost_keeps_path_and_placeholders() {
    assert_eq!(
        support::rehost(
            "https://html.duckduckgo.com/html/?q={query}&s={offset}",
            "http://127.0.0.1:9"
        ),
        "http://127.0.0.1:9/html/?q={query}&s={offset}"
    );
    assert_eq!(
        support::rehost("https://example.com?q={query}", "http://127.0.0.1:9"),
        "http://127.0.0.1:9?q={query}"
    );
}

#[tokio::test]
async fn agreeing_engines_are_fused_once_with_all_engines() {
    let a = LoopbackEngine::spawn(test_page(&[
        (
            "https://www.rust-lang.org/",
            "Rust Programming Language",
            "A language empowering everyone.",
        ),
        (
            "https://doc.rust-lang.org/book/",
            "The Rust Book",
            "Learn Rust.",
        ),
    ]))
    .await;
    let b = LoopbackEngine::spawn(test_page(&[
        (
            "https://en.wikipedia.org/wiki/Rust",
            "Rust - Wikipedia",
            "Rust is an iron oxide.",
        ),
        (
            "https://www.rust-lang.org/",
            "Rust Programming Language",
            "A language empowering everyone to build reliable software.",
        ),
    ]))
    .await;
    let s = searcher(&[("a", &a), ("b", &b)], 3000, 2000);
    let q = s.parse_query("rust lang", 1);
    // The score pinned below is the `position` method's (Σ weight / position).
    let position = metasift::config::FusionSettings::default()
        .with_method(metasift::config::FusionMethod::Position);
    let opts = SearchOptions {
        fusion: Some(position),
        ..SearchOptions::default()
    };
    let resp = s.search(&q, &opts).await.unwrap();

    assert!(
        resp.engines.iter().all(|r| r.failure.is_none()),
        "{:?}",
        resp.engines
    );
    assert_eq!(resp.results.len(), 3, "{:#?}", resp.results);
    let top = &resp.results[0];
    assert_eq!(top.url, "https://www.rust-lang.org/");
    assert_eq!(top.engines, vec!["a", "b"]);
    assert_eq!(top.positions, vec![1, 2]);
    assert!((top.score - 1.5).abs() < 1e-9);
    assert_eq!(
        top.content,
        "A language empowering everyone to build reliable software."
    );
    assert!(a.last_uri().unwrap().contains("q=rust+lang"));
    // Page 2 lies past the three fused results: the page number reaches the
    // engines, and what they repeat from their page 1 is not shown again.
    let q = s.parse_query("rust lang", 2);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    assert!(a.last_uri().unwrap().contains("p=2"), "{:?}", a.last_uri());
    assert!(b.last_uri().is_some());
    assert!(resp.results.is_empty(), "{:#?}", resp.results);
    assert_eq!(resp.total_results, 3);
}

#[tokio::test]
async fn shortcut_asks_one_engine_alone() {
    let a = LoopbackEngine::spawn(test_page(&[("https://a.example/", "A", "")])).await;
    let b = LoopbackEngine::spawn(test_page(&[("https://b.example/", "B", "")])).await;
    let s = searcher(&[("alpha", &a), ("beta", &b)], 3000, 2000);
    let q = s.parse_query("!beta hello", 1);
    assert_eq!(q.text, "hello");
    assert_eq!(q.engines, vec!["beta"]);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    assert_eq!(resp.engines.len(), 1);
    assert_eq!(resp.results[0].url, "https://b.example/");
    assert_eq!(a.requests(), 0);
}

/// One hostile engine per misbehaviour, beside a good one: each reported
/// with its kind, the good one's results intact, the whole search within
/// the deadline.
#[tokio::test]
async fn hostile_engines_cost_only_their_own_timeout() {
    let good = LoopbackEngine::spawn(test_page(&[
        ("https://good.example/1", "Good one", "fine"),
        ("https://good.example/2", "Good two", "fine"),
    ]))
    .await;
    let hang = LoopbackEngine::spawn(Behavior::Hang).await;
    let trickle = LoopbackEngine::spawn(Behavior::Trickle {
        chunk: Bytes::from_static(b"{"),
        every: Duration::from_millis(50),
    })
    .await;
    let huge = LoopbackEngine::spawn(Behavior::Huge { bytes: 1 << 30 }).await;
    let declared = LoopbackEngine::spawn(Behavior::HugeDeclared { bytes: 1 << 30 }).await;
    let garbage = LoopbackEngine::spawn(Behavior::page(
        "\u{0}\u{1}garbage }{ not json at all",
        "text/html",
    ))
    .await;
    let redirect = LoopbackEngine::spawn(Behavior::RedirectLoop).await;
    let e500 = LoopbackEngine::spawn(Behavior::Status(500)).await;
    let e429 = LoopbackEngine::spawn(Behavior::Status(429)).await;
    let e403 = LoopbackEngine::spawn(Behavior::Status(403)).await;
    let captcha = LoopbackEngine::spawn(Behavior::page(
        "<html><body>Please solve this CAPTCHA</body></html>",
        "text/html",
    ))
    .await;
    let script = LoopbackEngine::spawn(test_page(&[
        ("javascript:alert(1)", "<script>alert(1)</script>", "x"),
        (
            "https://inert.example/",
            "<img src=x onerror=alert(1)>",
            "<script>alert(2)</script>",
        ),
    ]))
    .await;
    let closed = {
        // A port nobody listens on: bind, note it, let it go.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let refused = format!("http://{closed}");

    let deadline_ms = 2000;
    let timeout_ms = 700;
    let s = {
        let mut config = Config::default();
        config.server.deadline_ms = deadline_ms;
        let mut engines: Vec<Arc<dyn Engine>> = Vec::new();
        let servers: Vec<(&str, String)> = vec![
            ("good", good.base_url()),
            ("hang", hang.base_url()),
            ("trickle", trickle.base_url()),
            ("huge", huge.base_url()),
            ("declared", declared.base_url()),
            ("garbage", garbage.base_url()),
            ("redirect", redirect.base_url()),
            ("e500", e500.base_url()),
            ("e429", e429.base_url()),
            ("e403", e403.base_url()),
            ("captcha", captcha.base_url()),
            ("script", script.base_url()),
            ("refused", refused),
        ];
        for (name, base) in servers {
            let mut ec = support::test_engine_config(name, &base);
            ec.timeout_ms = timeout_ms;
            config.engines.push(ec.clone());
            engines.push(Arc::new(TestEngine::from_config(ec)));
        }
        let client = http_client(&config.server).unwrap();
        Searcher::with_engines(Arc::new(config), client, engines)
    };

    let started = Instant::now();
    let q = s.parse_query("hello", 1);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    let took = started.elapsed();
    // Every engine was bounded by its own timeout; allow scheduling noise on
    // a loaded 2-core machine but far less than a second engine timeout.
    assert!(
        took < Duration::from_millis(timeout_ms + 600),
        "search took {took:?}"
    );

    let expect = [
        ("hang", FailureKind::Timeout),
        ("trickle", FailureKind::Timeout),
        ("huge", FailureKind::TooLarge),
        ("declared", FailureKind::TooLarge),
        ("garbage", FailureKind::Parse),
        ("redirect", FailureKind::Network),
        ("e500", FailureKind::Http5xx),
        ("e429", FailureKind::TooManyRequests),
        ("e403", FailureKind::Http4xx),
        ("captcha", FailureKind::Blocked),
        ("refused", FailureKind::Network),
    ];
    for (engine, kind) in expect {
        let r = report(&resp, engine);
        assert_eq!(r.failure, Some(kind), "{engine}: {r:?}");
        assert!(r.reason.as_deref().is_some_and(|s| !s.is_empty()), "{r:?}");
        assert_eq!(r.results, 0);
    }
    assert!(
        report(&resp, "redirect")
            .reason
            .as_deref()
            .unwrap()
            .contains("redirect")
    );
    assert!(
        report(&resp, "e500")
            .reason
            .as_deref()
            .unwrap()
            .contains("500")
    );
    // The redirect loop was cut short, not followed forever.
    assert!(redirect.requests() <= 1 + metasift::search::MAX_REDIRECTS);

    assert_eq!(report(&resp, "good").failure, None);
    assert_eq!(report(&resp, "script").failure, None);
    let urls: Vec<&str> = resp.results.iter().map(|r| r.url.as_str()).collect();
    assert!(urls.contains(&"https://good.example/1"), "{urls:?}");
    assert!(urls.contains(&"https://good.example/2"), "{urls:?}");
    // A javascript: link never becomes a result; script text stays text.
    assert!(urls.iter().all(|u| u.starts_with("http")), "{urls:?}");
    let inert = resp
        .results
        .iter()
        .find(|r| r.url == "https://inert.example/")
        .expect("the script engine's http result is kept");
    assert_eq!(inert.content, "<script>alert(2)</script>");
}

#[tokio::test]
async fn the_deadline_bounds_slow_engines_with_long_timeouts() {
    let slow = LoopbackEngine::spawn(Behavior::Delayed(
        Duration::from_secs(30),
        Box::new(test_page(&[("https://slow.example/", "Slow", "")])),
    ))
    .await;
    let fast = LoopbackEngine::spawn(test_page(&[("https://fast.example/", "Fast", "")])).await;
    // Engines allow 20 s, the search 500 ms.
    let s = searcher(&[("slow", &slow), ("fast", &fast)], 500, 20_000);
    let started = Instant::now();
    let resp = s
        .search(&s.parse_query("x", 1), &SearchOptions::default())
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(report(&resp, "slow").failure, Some(FailureKind::Timeout));
    assert_eq!(resp.results.len(), 1);
    assert_eq!(resp.results[0].url, "https://fast.example/");
}

/// `--record` saves every engine's answer; `--replay` answers the same
/// search from it, through the same parser, with the engines gone.
#[tokio::test]
async fn a_recorded_search_replays_without_the_engines() {
    let dir = std::env::temp_dir().join(format!("metasift-fanout-rec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let a = LoopbackEngine::spawn(test_page(&[
        ("https://one.example/", "One", "first"),
        ("https://two.example/", "Two", "second"),
    ]))
    .await;
    let b = LoopbackEngine::spawn(Behavior::Status(503)).await;
    let s = searcher(&[("a", &a), ("b", &b)], 3000, 2000);
    let q = s.parse_query("record me", 1);
    let live = s
        .clone()
        .with_recording(Some(dir.clone()), None)
        .search(&q, &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(live.results.len(), 2);
    drop((a, b));

    let replayed = s
        .with_recording(None, Some(dir.clone()))
        .search(&q, &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(replayed.results, live.results);
    assert_eq!(report(&replayed, "b").failure, Some(FailureKind::Http5xx));
    // A query never recorded is reported, not fetched.
    let other = s_missing(&dir).await;
    assert_eq!(other.failure, Some(FailureKind::NotRecorded));
    assert!(other.reason.as_deref().unwrap().contains("no recording"));
    let _ = std::fs::remove_dir_all(&dir);
}

async fn s_missing(dir: &std::path::Path) -> metasift::model::EngineReport {
    let a = LoopbackEngine::spawn(test_page(&[])).await;
    let s = searcher(&[("a", &a)], 3000, 2000).with_recording(None, Some(dir.to_path_buf()));
    let resp = s
        .search(&s.parse_query("never asked", 1), &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(a.requests(), 0);
    resp.engines[0].clone()
}

/// One loopback server per member, each serving its page (ours, in the
/// engine's markup) of one query, asked through the SHIPPED presets with
/// only the host replaced.
struct Members {
    servers: Vec<LoopbackEngine>,
    config: Config,
}

async fn shipped_members(members: &[(&str, Page)]) -> Members {
    let mut config = support::shipped_config();
    let names: Vec<&str> = members.iter().map(|(e, _)| *e).collect();
    support::keep_only(&mut config, &names);
    // Keep every fused result so overlaps can be checked in full.
    config.server.results_per_page = 1000;
    config.server.deadline_ms = 10_000;
    let mut servers = Vec::new();
    for (engine, page) in members {
        let server = LoopbackEngine::spawn(Behavior::own(page.clone())).await;
        support::point_at(&mut config, engine, &server.base_url());
        config
            .engines
            .iter_mut()
            .find(|e| e.name == *engine)
            .unwrap()
            .timeout_ms = 10_000;
        servers.push(server);
    }
    Members { servers, config }
}

/// Normalized URL keys of what `engine`'s preset parses from `page`, in page
/// order (what the fan-out should have received from it).
fn parsed_keys(config: &Config, engine: &str, page: &Page) -> Vec<metasift_dedup::UrlKey> {
    let ec = config.engines.iter().find(|e| e.name == engine).unwrap();
    let built = metasift::engines::build(ec).unwrap();
    let text = metasift::engines::decode_body(page.body.as_bytes(), Some(page.content_type));
    let parsed = built
        .parse(&text)
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    parsed
        .hits
        .iter()
        .map(|h| metasift_dedup::url_key(&h.url))
        .collect()
}

/// The invariants of a fused list: every engine answered;
/// no two results share a normalized URL; every (engine, position) of a
/// result points at a record of its group; every URL two engines share is
/// ONE result listing both; returns the number of such shared URLs per pair.
async fn check_fusion(members: &[(&str, Page)], query: &str) -> Vec<((String, String), usize)> {
    use metasift_dedup::url_key as key;
    let m = shipped_members(members).await;
    let client = http_client(&m.config.server).unwrap();
    let s = Searcher::new(Arc::new(m.config.clone()), client);
    let q = s.parse_query(query, 1);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    for r in &resp.engines {
        assert_eq!(r.failure, None, "{query}: {r:?}");
        assert!(r.results > 0, "{query}: {r:?}");
    }
    for ((engine, _), server) in members.iter().zip(&m.servers) {
        assert_eq!(server.requests(), 1, "{engine}: {:?}", server.last_uri());
    }
    assert_eq!(resp.engines.len(), members.len());

    let keys: Vec<_> = resp.results.iter().map(|r| key(&r.url)).collect();
    let unique: std::collections::HashSet<_> = keys.iter().collect();
    assert_eq!(
        unique.len(),
        keys.len(),
        "{query}: two results share a normalized URL"
    );

    let per_engine: Vec<(String, Vec<_>)> = members
        .iter()
        .map(|(e, page)| (e.to_string(), parsed_keys(&m.config, e, page)))
        .collect();
    for r in &resp.results {
        assert_eq!(r.engines.len(), r.positions.len());
        let mut group: Vec<_> = vec![key(&r.url)];
        group.extend(r.duplicates.iter().map(|d| key(&d.url)));
        for (e, p) in r.engines.iter().zip(&r.positions) {
            let hits = &per_engine.iter().find(|(n, _)| n == e).unwrap().1;
            let at = hits[*p as usize - 1];
            assert!(
                group.contains(&at),
                "{query}: {e} #{p} is not in the group of {}",
                r.url
            );
        }
    }

    // Agreement ranks: the top result is one several engines returned.
    assert!(
        resp.results[0].engines.len() >= 2,
        "{query}: {:?}",
        resp.results[0]
    );

    let mut overlaps = Vec::new();
    for (i, (a, ka)) in per_engine.iter().enumerate() {
        for (b, kb) in &per_engine[i + 1..] {
            let shared: std::collections::BTreeSet<_> =
                ka.iter().filter(|k| kb.contains(k)).collect();
            for k in &shared {
                let holders: Vec<_> = resp
                    .results
                    .iter()
                    .filter(|r| {
                        key(&r.url) == **k || r.duplicates.iter().any(|d| key(&d.url) == **k)
                    })
                    .collect();
                assert_eq!(
                    holders.len(),
                    1,
                    "{query}: a URL {a} and {b} share is not one result"
                );
                let r = holders[0];
                assert!(
                    r.engines.contains(a) && r.engines.contains(b),
                    "{query}: {} lists {:?}, not both {a} and {b}",
                    r.url,
                    r.engines
                );
            }
            overlaps.push(((a.clone(), b.clone()), shared.len()));
        }
    }
    overlaps
}

fn overlap(overlaps: &[((String, String), usize)], a: &str, b: &str) -> usize {
    overlaps
        .iter()
        .find(|((x, y), _)| (x == a && y == b) || (x == b && y == a))
        .map_or(0, |(_, n)| *n)
}

/// `engine`'s page of ours for a query ([`own_pages`]).
fn own(engine: &'static str, query: &str, hits: Vec<own_pages::Hit>) -> (&'static str, Page) {
    (engine, own_pages::results(engine, query, &hits))
}

#[tokio::test]
async fn caffeine_pages_fuse_bing_and_duckduckgo_agreement() {
    let q = own_pages::CAFFEINE;
    let overlaps = check_fusion(
        &[
            own("bing", q, own_pages::caffeine("bing")),
            own("duckduckgo", q, own_pages::caffeine("duckduckgo")),
            own("wikipedia", q, own_pages::news("wikipedia")),
            own("google_news", q, own_pages::news("google_news")),
        ],
        // google_news is in `news` only: ask both categories.
        "!general !news does caffeine affect sleep",
    )
    .await;
    eprintln!("caffeine overlaps: {overlaps:?}");
    // Nine of their ten pages are the same (one behind http:// and a slash).
    assert_eq!(overlap(&overlaps, "bing", "duckduckgo"), 9, "{overlaps:?}");
}

#[tokio::test]
async fn rust_tutorial_pages_fuse_six_engines() {
    let q = own_pages::RUST_TUTORIAL;
    let members: Vec<(&str, Page)> = own_pages::RUST_ENGINES
        .iter()
        .map(|e| own(e, q, own_pages::rust_tutorial(e)))
        .collect();
    let overlaps = check_fusion(&members, q).await;
    eprintln!("rust overlaps: {overlaps:?}");
    for (a, b) in [
        ("brave", "startpage"),
        ("brave", "mojeek"),
        ("brave", "yahoo"),
    ] {
        assert!(overlap(&overlaps, a, b) >= 5, "{a} {b}: {overlaps:?}");
    }
}

#[tokio::test]
async fn hello_pages_fuse_bing_duckduckgo_and_aol_yahoo() {
    let q = own_pages::HELLO;
    let overlaps = check_fusion(
        &[
            own("bing", q, own_pages::hello("bing")),
            own("duckduckgo", q, own_pages::hello("duckduckgo")),
            own("yahoo", q, own_pages::hello("yahoo")),
            own("aol", q, own_pages::hello("aol")),
            own("ask", q, own_pages::hello("ask")),
        ],
        q,
    )
    .await;
    eprintln!("hello overlaps: {overlaps:?}");
    // Links shared: eight pages less the one under a copy's link, nine less
    // the one under a mirror's (those fold by title and snippet).
    assert_eq!(overlap(&overlaps, "bing", "duckduckgo"), 7, "{overlaps:?}");
    assert_eq!(overlap(&overlaps, "yahoo", "aol"), 8, "{overlaps:?}");
}

/// The same misbehaviours through the SHIPPED presets and their real
/// parsers: each reported with its kind, the real page beside them fused
/// intact, the search over within the deadline.
#[tokio::test]
async fn hostile_engines_through_shipped_presets() {
    let script_page = r#"<html><body>
<div class="result"><a class="result__a" href="javascript:alert(1)">Click me</a>
  <a class="result__snippet">pwned</a></div>
<div class="result"><a class="result__a" href="https://inert.example/page"><script>alert(1)</script>Inert &lt;script&gt;alert(2)&lt;/script&gt;</a>
  <a class="result__snippet">&lt;img src=x onerror=alert(3)&gt; text</a></div>
</body></html>"#;
    let plan: Vec<(&str, Behavior)> = vec![
        ("brave", Behavior::rust_tutorial("brave")),
        ("mojeek", Behavior::Hang),
        (
            "wikipedia",
            Behavior::Trickle {
                chunk: Bytes::from_static(b" "),
                every: Duration::from_millis(40),
            },
        ),
        ("startpage", Behavior::Huge { bytes: 1 << 30 }),
        (
            "yahoo",
            Behavior::Page {
                body: Bytes::from((0..=255u8).cycle().take(200_000).collect::<Vec<u8>>()),
                content_type: "text/html".into(),
            },
        ),
        ("ecosia", Behavior::RedirectLoop),
        (
            "bing",
            Behavior::Page {
                body: Bytes::from(own_pages::blocked("bing").unwrap().body),
                content_type: "text/html; charset=utf-8".into(),
            },
        ),
        (
            "duckduckgo",
            Behavior::page(script_page, "text/html; charset=utf-8"),
        ),
        ("aol", Behavior::Status(500)),
        ("ask", Behavior::Status(429)),
    ];
    let names: Vec<&str> = plan.iter().map(|(n, _)| *n).collect();
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &names);
    config.server.deadline_ms = 1500;
    config.server.results_per_page = 1000;
    let mut servers = Vec::new();
    for (name, behavior) in plan {
        let server = LoopbackEngine::spawn(behavior).await;
        support::point_at(&mut config, name, &server.base_url());
        config
            .engines
            .iter_mut()
            .find(|e| e.name == name)
            .unwrap()
            .timeout_ms = 800;
        servers.push(server);
    }
    let client = http_client(&config.server).unwrap();
    let s = Searcher::new(Arc::new(config), client);
    let started = Instant::now();
    let q = s.parse_query("javascript tutorial", 1);
    let resp = s.search(&q, &SearchOptions::default()).await.unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(800 + 600),
        "search took {took:?}"
    );

    for (engine, kind) in [
        ("mojeek", FailureKind::Timeout),
        ("wikipedia", FailureKind::Timeout),
        ("startpage", FailureKind::TooLarge),
        ("yahoo", FailureKind::Parse),
        ("ecosia", FailureKind::Network),
        ("bing", FailureKind::Blocked),
        ("aol", FailureKind::Http5xx),
        ("ask", FailureKind::TooManyRequests),
    ] {
        let r = report(&resp, engine);
        assert_eq!(r.failure, Some(kind), "{engine}: {r:?}");
    }
    assert_eq!(report(&resp, "brave").failure, None);
    assert!(report(&resp, "brave").results >= 5);
    assert_eq!(report(&resp, "duckduckgo").failure, None);
    // Every one of Brave's records is there, kept or attached.
    let brave: usize = resp
        .results
        .iter()
        .map(|r| {
            usize::from(r.engine == "brave")
                + r.duplicates.iter().filter(|d| d.engine == "brave").count()
        })
        .sum();
    assert_eq!(brave, report(&resp, "brave").results);
    // The script page gave one inert text result and no javascript: link.
    assert!(resp.results.iter().all(|r| r.url.starts_with("http")));
    let inert = resp
        .results
        .iter()
        .find(|r| r.url == "https://inert.example/page")
        .expect("the http result of the script page");
    assert!(!inert.title.contains("<script>alert(1)"), "{}", inert.title);
    assert!(
        inert.content.contains("onerror"),
        "escaped text stays text: {}",
        inert.content
    );
}
