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
    let q = s.parse_query("rust lang", 2);
    let resp = s.search(&q, &SearchOptions::default()).await;

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
    // The page number reached the engines.
    assert!(a.last_uri().unwrap().contains("p=2"), "{:?}", a.last_uri());
    assert!(a.last_uri().unwrap().contains("q=rust+lang"));
}

#[tokio::test]
async fn shortcut_asks_one_engine_alone() {
    let a = LoopbackEngine::spawn(test_page(&[("https://a.example/", "A", "")])).await;
    let b = LoopbackEngine::spawn(test_page(&[("https://b.example/", "B", "")])).await;
    let s = searcher(&[("alpha", &a), ("beta", &b)], 3000, 2000);
    let q = s.parse_query("!beta hello", 1);
    assert_eq!(q.text, "hello");
    assert_eq!(q.engines, vec!["beta"]);
    let resp = s.search(&q, &SearchOptions::default()).await;
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
    let resp = s.search(&q, &SearchOptions::default()).await;
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
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(report(&resp, "slow").failure, Some(FailureKind::Timeout));
    assert_eq!(resp.results.len(), 1);
    assert_eq!(resp.results[0].url, "https://fast.example/");
}
