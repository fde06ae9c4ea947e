//! Hostile member engines against the real fan-out and the real server
//! (issue #12, the engine side): every answer is hostile until parsed.
//!
//! - a title nested 20,000 `<span>`s deep no longer aborts the process
//!   (the real `metasift serve`, then `/healthz`);
//! - 60,000 nested `<div>`s are refused by the tree builder early, and a
//!   parse stops at its engine's deadline;
//! - a redirect to another origin is not followed: the configured token
//!   and the query never reach it, and no `Referer` is ever sent;
//! - one lone surrogate escape costs one field, not the whole answer
//!   (json and searxng kinds);
//! - a 429's `Retry-After` is the engine's suspension;
//! - a replayed engine's failure names no server path.

#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;
#[path = "support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Body;
use axum::http::{HeaderMap, Request, Response, StatusCode, header};
use metasift::config::Config;
use metasift::model::{EngineReport, FailureKind, SearchResponse};
use metasift::ops::health::Admission;
use metasift::search::{SearchOptions, Searcher, http_client};
use support::{Behavior, LoopbackEngine};

/// A loopback server that keeps every request's path and headers and
/// answers each with `answer(path_and_query)`.
struct Recorder {
    addr: std::net::SocketAddr,
    seen: Arc<Mutex<Vec<(String, HeaderMap)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Recorder {
    async fn spawn(
        answer: impl Fn(&str) -> Response<Body> + Clone + Send + Sync + 'static,
    ) -> Recorder {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen: Arc<Mutex<Vec<(String, HeaderMap)>>> = Arc::default();
        let log = seen.clone();
        let app = axum::Router::new().fallback(move |req: Request<Body>| {
            let uri = req.uri().to_string();
            log.lock()
                .unwrap()
                .push((uri.clone(), req.headers().clone()));
            let answer = answer.clone();
            async move { answer(&uri) }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Recorder { addr, seen, task }
    }

    fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<(String, HeaderMap)> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn redirect_to(location: &str) -> Response<Body> {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::FOUND;
    r.headers_mut()
        .insert(header::LOCATION, location.parse().unwrap());
    r
}

fn json(body: String) -> Response<Body> {
    let mut r = Response::new(Body::from(body));
    r.headers_mut()
        .insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
    r
}

/// A Brave API answer (the shipped `brave_api` preset's shape) of `n` results.
fn brave_answer(n: usize) -> String {
    let results: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "title": format!("Result {i}"),
                "url": format!("https://r{i}.example/"),
                "description": format!("About {i}"),
            })
        })
        .collect();
    serde_json::json!({"web": {"results": results}}).to_string()
}

/// The shipped config with only `names`, each pointed at its server.
fn shipped_with(servers: &[(&str, String)], timeout_ms: u64) -> Config {
    let names: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &names);
    config.server.deadline_ms = 2500;
    config.server.results_per_page = 1000;
    for (name, base) in servers {
        support::point_at(&mut config, name, base);
        let engine = config.engines.iter_mut().find(|e| e.name == *name).unwrap();
        engine.timeout_ms = timeout_ms;
        // The preset reads its token from the environment; the tests give
        // it one, as an admin would.
        if let Some(token) = engine.headers.get_mut("X-Subscription-Token") {
            *token = "YOUR-TOKEN".into();
            engine.unset_env = None;
        }
    }
    config
}

async fn search(s: &Searcher, text: &str) -> SearchResponse {
    let q = s.parse_query(text, 1);
    s.search(&q, &SearchOptions::default()).await.unwrap()
}

fn report<'a>(resp: &'a SearchResponse, engine: &str) -> &'a EngineReport {
    resp.engines
        .iter()
        .find(|r| r.engine == engine)
        .unwrap_or_else(|| panic!("no report for {engine}: {:?}", resp.engines))
}

/// Defect 3: a 302 to another origin gets neither the token nor the query
/// (as a `Referer` or otherwise): it is not followed at all.
#[tokio::test]
async fn a_redirect_to_another_origin_gets_nothing() {
    let thief = Recorder::spawn(|_| json(brave_answer(3))).await;
    let steal = format!("{}/steal", thief.base_url());
    let engine = Recorder::spawn(move |_| redirect_to(&steal)).await;
    let config = shipped_with(&[("brave_api", engine.base_url())], 2000);
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap());
    let resp = search(&s, "my secret query").await;

    assert!(
        thief.requests().is_empty(),
        "the other origin was asked: {:?}",
        thief.requests()
    );
    let r = report(&resp, "brave_api");
    assert_eq!(r.failure, Some(FailureKind::Network), "{r:?}");
    let reason = r.reason.as_deref().unwrap();
    assert!(reason.contains("another site"), "{reason}");
    assert!(resp.results.is_empty());
    // The engine itself got its token, and no Referer.
    let asked = engine.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1["x-subscription-token"], "YOUR-TOKEN");
    assert!(asked[0].1.get(header::REFERER).is_none());
}

/// Same-origin redirects are followed, with the configured headers and
/// still no `Referer`.
#[tokio::test]
async fn a_redirect_inside_the_engine_is_followed_without_referer() {
    let engine = Recorder::spawn(|uri| {
        if uri.starts_with("/final") {
            json(brave_answer(4))
        } else {
            redirect_to("/final?moved=1")
        }
    })
    .await;
    let config = shipped_with(&[("brave_api", engine.base_url())], 2000);
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap());
    let resp = search(&s, "my secret query").await;
    assert_eq!(
        report(&resp, "brave_api").failure,
        None,
        "{:?}",
        resp.engines
    );
    assert_eq!(resp.results.len(), 4);
    let asked = engine.requests();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[1].0.starts_with("/final"));
    for (_, headers) in &asked {
        assert_eq!(headers["x-subscription-token"], "YOUR-TOKEN");
        assert!(headers.get(header::REFERER).is_none(), "{headers:?}");
    }
}

/// Defect 9: one lone surrogate in one result of ten; the json (Brave API
/// preset) and searxng kinds keep all ten.
#[tokio::test]
async fn one_lone_surrogate_costs_one_field_not_the_answer() {
    let brave = brave_answer(10).replacen("Result 3", "Result \\ud800 3", 1);
    assert!(serde_json::from_str::<serde_json::Value>(&brave).is_err());
    let searx = {
        let results: Vec<String> = (0..10)
            .map(|i| {
                let title = if i == 5 {
                    "Cut emoji \\ud83d".to_string()
                } else {
                    format!("Searx {i}")
                };
                format!(
                    r#"{{"url": "https://s{i}.example/", "title": "{title}", "content": "c\\ud800 {i}"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"results": [{}], "suggestions": []}}"#,
            results.join(",")
        )
    };
    assert!(serde_json::from_str::<serde_json::Value>(&searx).is_err());
    let b = LoopbackEngine::spawn(Behavior::page(brave, "application/json")).await;
    let x = LoopbackEngine::spawn(Behavior::page(searx, "application/json")).await;
    let config = shipped_with(
        &[("brave_api", b.base_url()), ("searxng", x.base_url())],
        2000,
    );
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap());
    let resp = search(&s, "surrogates").await;
    for engine in ["brave_api", "searxng"] {
        let r = report(&resp, engine);
        assert_eq!((r.failure, r.results), (None, 10), "{engine}: {r:?}");
    }
    let titles: Vec<&str> = resp.results.iter().map(|r| r.title.as_str()).collect();
    assert!(titles.contains(&"Result \u{fffd} 3"), "{titles:?}");
    assert!(titles.contains(&"Cut emoji \u{fffd}"), "{titles:?}");
    // An escaped backslash before `ud800` is text, not an escape.
    assert!(
        resp.results.iter().any(|r| r.content == "c\\ud800 0"),
        "{:?}",
        resp.results
    );
}

/// Defect 4: 60,000 nested `<div>`s served to an html preset are refused
/// by the tree builder as too deep, quickly, and the other engine answers.
#[tokio::test]
async fn deep_nesting_is_refused_without_burning_the_deadline() {
    let deep = format!(
        "<html><body>{}<a class=\"result__a\" href=\"https://x.example/\">x</a></body></html>",
        "<div>".repeat(60_000)
    );
    let bad = LoopbackEngine::spawn(Behavior::page(deep.clone(), "text/html")).await;
    let good = LoopbackEngine::spawn(Behavior::page(brave_answer(3), "application/json")).await;
    let config = shipped_with(
        &[
            ("duckduckgo", bad.base_url()),
            ("brave_api", good.base_url()),
        ],
        // Long enough (the engine's and the search's) that only the depth
        // limit can refuse the page, even on a loaded machine (the deadline
        // has its own test below).
        10_000,
    );
    let mut config = config;
    config.server.deadline_ms = 10_000;
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap());
    let resp = search(&s, "deep").await;
    let r = report(&resp, "duckduckgo");
    assert_eq!(r.failure, Some(FailureKind::Parse), "{r:?}");
    assert!(
        r.reason
            .as_deref()
            .unwrap()
            .contains("nested more than 512"),
        "{r:?}"
    );
    assert_eq!(report(&resp, "brave_api").results, 3);

    // The parse alone, with no deadline at all: refused by the depth limit
    // (unbounded, html5ever spends about 8 s of CPU on this page). Its
    // reason says which bound fired; no wall-clock bound, which a loaded
    // machine breaks.
    let engine = metasift::engines::build(&s.config().engines[0]).unwrap();
    let err = engine.parse(&deep).expect_err("refused");
    assert!(err.to_string().contains("nested more than 512"), "{err}");
}

/// Defect 4, the deadline: a parse still running when its engine's time
/// is up stops (it runs on the blocking pool, where the dropped search
/// cannot reach it).
#[test]
fn a_parse_stops_at_its_deadline() {
    let config = support::shipped_config();
    let ddg = config
        .engines
        .iter()
        .find(|e| e.name == "duckduckgo")
        .unwrap();
    let engine = metasift::engines::build(ddg).unwrap();
    let hits: Vec<_> = (0..6)
        .flat_map(|i| support::own_pages::generic("duckduckgo", &format!("test keyword {i}")))
        .collect();
    let page = support::own_pages::results("duckduckgo", "test keyword", &hits).body;
    let parsed =
        metasift::engines::parse_until(&*engine, &page, Instant::now() + Duration::from_secs(600));
    assert!(parsed.is_ok_and(|p| !p.hits.is_empty()));
    let late = metasift::engines::parse_until(&*engine, &page, Instant::now());
    let err = late.unwrap_err().to_string();
    assert!(err.contains("deadline"), "{err}");
}

/// Defect 1, in the real server: a JSON title nested 20,000 `<span>`s deep
/// used to overflow the stack and abort the process. The result with that
/// title is lost, the other nine are shown, and the server lives on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deeply_nested_title_does_not_abort_the_server() {
    let mut answer: serde_json::Value = serde_json::from_str(&brave_answer(10)).unwrap();
    answer["web"]["results"][2]["title"] = format!(
        "{}deep{}",
        "<span>".repeat(20_000),
        "</span>".repeat(20_000)
    )
    .into();
    let engine =
        LoopbackEngine::spawn(Behavior::page(answer.to_string(), "application/json")).await;
    let dir = std::env::temp_dir().join(format!("metasift-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("engines.toml");
    std::fs::write(
        &path,
        format!(
            "use_defaults = false\n[server]\ndeadline_ms = 2500\n\n[[engine]]\nname = \"deep\"\nkind = \"json\"\n\
             url = \"{}/s?q={{query}}\"\n[engine.parse]\nresults = \"/web/results\"\n\
             title = \"title\"\nurl = \"url\"\nsnippet = \"description\"\n",
            engine.base_url()
        ),
    )
    .unwrap();
    let server = serve::Server::start(&path);
    let client = metasift::search::client_builder().build().unwrap();
    let resp: serde_json::Value = client
        .get(format!("{}/search?q=deep&format=json", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let results = resp["results"].as_array().unwrap();
    assert_eq!(results.len(), 9, "{resp}");
    let health = client
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert!(health.status().is_success());
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// A 429 with `Retry-After` suspends the engine that long, not a fixed
/// five minutes.
#[tokio::test]
async fn retry_after_sets_the_suspension() {
    let engine = Recorder::spawn(|_| {
        let mut r = Response::new(Body::from("slow down"));
        *r.status_mut() = StatusCode::TOO_MANY_REQUESTS;
        r.headers_mut()
            .insert(header::RETRY_AFTER, "42".parse().unwrap());
        r
    })
    .await;
    let config = shipped_with(&[("brave_api", engine.base_url())], 2000);
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap());
    let before = SystemTime::now();
    let resp = search(&s, "busy").await;
    let r = report(&resp, "brave_api");
    assert_eq!(r.failure, Some(FailureKind::TooManyRequests), "{r:?}");
    assert!(r.reason.as_deref().unwrap().contains("42 s"), "{r:?}");
    let Admission::Suspended { until } = s.health().admission("brave_api", SystemTime::now())
    else {
        panic!("not suspended");
    };
    let for_s = until.duration_since(before).unwrap().as_secs();
    assert!((41..=44).contains(&for_s), "suspended for {for_s} s");
}

/// A replayed engine asked a query its recording does not hold says so
/// without the server's folder.
#[tokio::test]
async fn a_missing_recording_names_no_server_path() {
    let dir = std::env::temp_dir().join(format!("metasift-missing-rec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let page = support::own_pages::results(
        "duckduckgo",
        "foo",
        &support::own_pages::generic("duckduckgo", "foo"),
    );
    support::write_serp_folder(&dir, &[("duckduckgo", "foo", page)]);
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &["duckduckgo"]);
    let s = Searcher::new(Arc::new(config), http_client(&Default::default()).unwrap())
        .with_recording(None, Some(dir.clone()));
    let resp = search(&s, "a query nobody recorded").await;
    let reason = report(&resp, "duckduckgo").reason.clone().unwrap();
    assert!(reason.contains("no recording"), "{reason}");
    assert!(!reason.contains(dir.to_str().unwrap()), "{reason}");
    assert!(!reason.contains("metasift-missing-rec"), "{reason}");
    std::fs::remove_dir_all(&dir).ok();
}
