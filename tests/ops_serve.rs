//! Running it for real, end to end: loopback member engines that fail on
//! command, the whole router driven with `oneshot`, and two real
//! `metasift serve` processes sharing one redis-server.

#[path = "support/redis.rs"]
mod redis_support;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/mod.rs"]
mod support;

use serve::Server as Serve;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use metasift::model::FailureKind;
use metasift::ops::cache::Cache;
use metasift::ops::health::{Health, HealthPolicy};
use metasift::search::{SearchOptions, Searcher};
use metasift::web::{self, AppState};
use tower::ServiceExt;

/// A member engine whose HTTP status can be changed while it runs; 200
/// answers a SearXNG-style JSON page naming the query.
struct Switchable {
    addr: std::net::SocketAddr,
    status: Arc<AtomicU16>,
    hits: Arc<AtomicUsize>,
    delay_ms: Arc<AtomicU16>,
    task: tokio::task::JoinHandle<()>,
}

impl Switchable {
    async fn spawn(tag: &'static str) -> Switchable {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let status = Arc::new(AtomicU16::new(200));
        let hits = Arc::new(AtomicUsize::new(0));
        let delay_ms = Arc::new(AtomicU16::new(0));
        let (s, h, d) = (status.clone(), hits.clone(), delay_ms.clone());
        let app = axum::Router::new().fallback(move |req: Request<Body>| {
            let (s, h, d) = (s.clone(), h.clone(), d.clone());
            async move {
                h.fetch_add(1, Ordering::SeqCst);
                let delay = d.load(Ordering::SeqCst);
                if delay > 0 {
                    tokio::time::sleep(Duration::from_millis(u64::from(delay))).await;
                }
                let code = s.load(Ordering::SeqCst);
                let q = req.uri().query().unwrap_or("").to_string();
                let body = serde_json::json!({
                    "results": (1..=5).map(|i| serde_json::json!({
                        "url": format!("https://{tag}.example/{i}?{q}"),
                        "title": format!("{tag} result {i}"),
                        "content": format!("Snippet {i} from {tag}, for testing.")
                    })).collect::<Vec<_>>()
                });
                (
                    StatusCode::from_u16(code).unwrap(),
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
            }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Switchable {
            addr,
            status,
            hits,
            delay_ms,
            task,
        }
    }

    fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn set(&self, code: u16) {
        self.status.store(code, Ordering::SeqCst);
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

impl Drop for Switchable {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An `engines.toml` text over these (name, base URL) engines.
fn config_text(engines: &[(&str, String)], extra: &str) -> String {
    // The whole configuration, not laid over the built-in engines.
    let mut text = format!("use_defaults = false\n[server]\ndeadline_ms = 1500\n{extra}\n",);
    for (name, base) in engines {
        text.push_str(&format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}&p={{page}}\"\ntimeout_ms = 1500\n\n"
        ));
    }
    text
}

fn config(engines: &[(&str, String)], extra: &str) -> Config {
    Config::parse(&config_text(engines, extra), Path::new("test.toml")).expect("valid test config")
}

fn quick_policy() -> HealthPolicy {
    HealthPolicy {
        base_backoff: Duration::from_millis(300),
        max_backoff: Duration::from_secs(2),
        blocked_backoff: Duration::from_millis(600),
        ..HealthPolicy::default()
    }
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, axum::http::HeaderMap, String) {
    send(app, "GET", uri, "").await
}

#[tokio::test]
async fn flapping_engine_is_suspended_then_asked_again() {
    let good = Switchable::spawn("good").await;
    let flaky = Switchable::spawn("flaky").await;
    let config = config(&[("good", good.base()), ("flaky", flaky.base())], "");
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_health(Health::new(quick_policy()));
    let opts = SearchOptions::default();
    flaky.set(500);
    for i in 0..3 {
        let q = searcher.parse_query(&format!("flap {i}"), 1);
        let r = searcher.search(&q, &opts).await.unwrap();
        let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
        assert_eq!(f.failure, Some(FailureKind::Http5xx));
        assert_eq!(r.results.len(), 5, "the good engine still answers");
    }
    assert_eq!(flaky.hits(), 3);

    // Suspended: not asked, reported with the time it comes back.
    flaky.set(200);
    let r = searcher
        .search(&searcher.parse_query("flap 3", 1), &opts)
        .await
        .unwrap();
    let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
    assert_eq!(f.failure, Some(FailureKind::Suspended));
    assert!(
        f.reason.as_deref().unwrap().contains("asked again after"),
        "{f:?}"
    );
    assert_eq!(flaky.hits(), 3, "a suspended engine is not asked");

    let app = web::router(AppState::new(searcher.clone()));
    let (status, headers, body) = get(&app, "/stats?format=json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    let row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "flaky")
        .unwrap();
    assert_eq!(row["suspended"], true);
    assert_eq!(row["errors"]["http_5xx"], 3);
    assert_eq!(row["skipped"], 1);
    let (_, _, page) = get(&app, "/stats").await;
    assert!(page.contains("suspended ("), "{page}");
    // Each engine's last failure message is on the page (and in the JSON).
    assert!(page.contains("<td class=\"msg\">HTTP 500"), "{page}");
    assert!(
        row["last_failure_message"]
            .as_str()
            .is_some_and(|m| m.starts_with("HTTP 500")),
        "{row}"
    );

    // Back after the backoff; one success clears it.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let r = searcher
        .search(&searcher.parse_query("flap 4", 1), &opts)
        .await
        .unwrap();
    let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
    assert_eq!(f.failure, None, "{f:?}");
    assert_eq!(r.results.len(), 10);
    let (_, _, metrics) = get(&app, "/metrics").await;
    assert!(
        metrics.contains("metasift_engine_suspended{engine=\"flaky\"} 0"),
        "{metrics}"
    );
}

#[tokio::test]
async fn all_engines_down_is_a_clear_page_not_a_500() {
    let a = Switchable::spawn("a").await;
    let b = Switchable::spawn("b").await;
    a.set(503);
    b.set(429);
    let app = web::router(AppState::new(
        Searcher::from_config(config(&[("a", a.base()), ("b", b.base())], "")).unwrap(),
    ));
    let (status, _, body) = get(&app, "/search?q=anything").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("503") && body.contains("429"), "{body}");
    let (status, _, body) = get(&app, "/search?q=anything+else&format=json").await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["results"].as_array().unwrap().len(), 0);
    assert_eq!(json["unresponsive_engines"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_and_counts_it() {
    let e = Switchable::spawn("e").await;
    let config = config(&[("e", e.base())], "[limits]\nper_minute = 30\nburst = 2\n");
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    assert_eq!(get(&app, "/search?q=one").await.0, StatusCode::OK);
    assert_eq!(get(&app, "/search?q=two").await.0, StatusCode::OK);
    let (status, headers, body) = get(&app, "/search?q=three&format=json").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers[header::RETRY_AFTER], "2");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        json["error"].as_str().unwrap().contains("wait 2 s"),
        "{json}"
    );
    // Other routes are not limited.
    let (status, headers, metrics) = get(&app, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[header::CONTENT_TYPE],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l == "metasift_rate_limited_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.lines().any(|l| l == "metasift_searches_total 2"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_over_max_in_flight_get_503_at_once() {
    let slow = Switchable::spawn("slow").await;
    slow.delay_ms.store(1200, Ordering::SeqCst);
    let config = config(
        &[("slow", slow.base())],
        "autocomplete = \"slow\"\n[limits]\nmax_in_flight = 1\nper_minute = 0\n",
    );
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    let first = tokio::spawn({
        let app = app.clone();
        async move { get(&app, "/search?q=first").await.0 }
    });
    while slow.hits() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let (status, headers, _) = get(&app, "/search?q=second").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "refused without waiting for the search in flight ({:?})",
        started.elapsed()
    );
    // Suggestions are not worth a fan-out over the cap: an empty list, at
    // once, and the engine is not asked.
    let started = Instant::now();
    let (status, _, body) = get(&app, "/autocomplete?q=sec").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, r#"["sec",[]]"#));
    assert!(started.elapsed() < Duration::from_millis(600));
    assert_eq!(slow.hits(), 1, "the suggestion did not reach the engine");
    assert_eq!(first.await.unwrap(), StatusCode::OK);
    // The same query as one in flight joins it instead of being refused.
    assert_eq!(get(&app, "/search?q=first").await.0, StatusCode::OK);
}

#[tokio::test]
async fn every_answer_carries_security_headers() {
    let e = Switchable::spawn("e").await;
    let app = web::router(AppState::new(
        Searcher::from_config(config(&[("e", e.base())], "")).unwrap(),
    ));
    for uri in [
        "/",
        "/search?q=x",
        "/stats",
        "/metrics",
        "/healthz",
        "/nowhere",
    ] {
        let (_, headers, _) = get(&app, uri).await;
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"),
            "{uri}: {csp}"
        );
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{uri}");
        assert_eq!(headers[header::REFERRER_POLICY], "no-referrer", "{uri}");
    }
}

// ---- cached engine answers, re-fused under other dedup settings (issue #6) --

/// A searcher with a memory cache of `ttl` over one switchable engine.
fn cached_app(engine: &Switchable, cache: Cache) -> axum::Router {
    let config = config(&[("e", engine.base())], "[limits]\nper_minute = 0\n");
    web::router(AppState::new(
        Searcher::from_config(config).unwrap().with_cache(cache),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_fused_from_cached_answers_expires_with_them() {
    let e = Switchable::spawn("e").await;
    let app = cached_app(&e, Cache::memory(Duration::from_secs(2), 16 << 20));
    assert_eq!(
        get(&app, "/search?q=ttl&format=json").await.0,
        StatusCode::OK
    );
    assert_eq!(e.hits(), 1);

    tokio::time::sleep(Duration::from_millis(1200)).await;
    // `explain=1` is another page of the same answers (no comparison: the
    // settings are the configured ones).
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 1, "fused again from the cached answers");
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 1, "and that page is cached");
    let (status, _, body) = get(&app, "/search?q=ttl&format=json&os2=0.6").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(e.hits(), 1, "compared on the cached answers");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["comparison"]["requested"]["os2"], 0.6, "{v}");

    // 2.4 s after the fan-out its answers are gone, and so is the page
    // fused from them at 1.2 s (kept for what the answers had left, not
    // for a TTL of its own).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 2, "nothing outlives the TTL of its fan-out");
    let (_, _, metrics) = get(&app, "/metrics").await;
    for line in [
        "metasift_searches_total 5",
        "metasift_cache_hits_total 3",
        "metasift_cache_misses_total 2",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line}: {metrics}");
    }
}

#[tokio::test]
async fn answers_of_an_outage_are_not_cached() {
    let e = Switchable::spawn("e").await;
    e.set(503);
    let app = cached_app(&e, Cache::memory(Duration::from_secs(60), 16 << 20));
    get(&app, "/search?q=down").await;
    get(&app, "/search?q=down&os2=0.6").await;
    assert_eq!(e.hits(), 2, "an engine failure is asked again");
    e.set(200);
    get(&app, "/search?q=down&method=none").await;
    get(&app, "/search?q=down&os2=0.6").await;
    assert_eq!(e.hits(), 3, "an answer is remembered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_answers_are_shared_through_redis_as_json_with_the_ttl() {
    let Some(redis) = redis_support::RedisServer::start("cached_answers_through_redis") else {
        return;
    };
    let e = Switchable::spawn("e").await;
    let cache = || Cache::redis(&redis.url(), Duration::from_secs(30)).unwrap();
    // Two searchers, as two processes on one Redis.
    let one = cached_app(&e, cache());
    let two = cached_app(&e, cache());
    assert_eq!(
        get(&one, "/search?q=shared+answers").await.0,
        StatusCode::OK
    );
    let (status, _, page) = get(&two, "/search?q=shared+answers&os2=0.3&os1=0.2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(e.hits(), 1, "the other process re-fused the stored answers");
    assert!(
        page.contains("Compared with the configured settings"),
        "{page}"
    );
    assert!(page.contains(" · cached"));

    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("metasift:answers:v1:*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl_ms: i64 = redis::cmd("PTTL")
        .arg(&keys[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!((1..=30_000).contains(&ttl_ms), "{ttl_ms}");
    let json: Vec<u8> = redis::cmd("GET")
        .arg(&keys[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    let stored: metasift::search::Gathered = serde_json::from_slice(&json).unwrap();
    assert_eq!(stored.answers.len(), 1);
    assert_eq!(stored.answers[0].results.len(), 5);
    assert_eq!(stored.reports[0].engine, "e");
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "metasift-ops-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn post(app: &axum::Router, uri: &str, token: Option<&str>) -> (StatusCode, String) {
    let mut request = Request::post(uri);
    if let Some(t) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn reload_swaps_a_good_file_and_refuses_a_broken_one() {
    let a = Switchable::spawn("a").await;
    let b = Switchable::spawn("b").await;
    let dir = temp_dir("reload");
    let path = dir.join("engines.toml");
    std::fs::write(&path, config_text(&[("a", a.base())], "")).unwrap();
    let config = Config::load(&path).unwrap();

    // Without a token the route does not exist.
    let closed = web::router(AppState::serving(config.clone(), Some(path.clone()), None).unwrap());
    assert_eq!(
        post(&closed, "/admin/reload", Some("x")).await.0,
        StatusCode::NOT_FOUND
    );

    let state = AppState::serving(config, Some(path.clone()), Some("s3cret".into())).unwrap();
    let app = web::router(state.clone());
    assert_eq!(
        post(&app, "/admin/reload", None).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        post(&app, "/admin/reload", Some("wrong")).await.0,
        StatusCode::UNAUTHORIZED
    );

    // A broken file: refused with file:line, the old engines keep serving.
    std::fs::write(
        &path,
        config_text(&[("a", a.base())], "").replace("timeout_ms = 1500", "timeout_ms = \"soon\""),
    )
    .unwrap();
    let (status, body) = post(&app, "/admin/reload", Some("s3cret")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let line = format!("{}:9:14: engine.timeout_ms", path.display());
    assert!(body.contains(&line), "names file and line: {body}");
    get(&app, "/search?q=kept").await;
    assert_eq!((a.hits(), b.hits()), (1, 0));

    // A good file: swapped in; health carries over.
    std::fs::write(&path, config_text(&[("b", b.base())], "")).unwrap();
    let (status, body) = post(&app, "/admin/reload", Some("s3cret")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("1 engine"), "{body}");
    get(&app, "/search?q=swapped").await;
    assert_eq!((a.hits(), b.hits()), (1, 1));
    assert_eq!(state.searcher().config().engines[0].name, "b");
    let (_, _, stats) = get(&app, "/stats?format=json").await;
    assert!(
        stats.contains("\"name\":\"a\"") && stats.contains("\"name\":\"b\""),
        "{stats}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_serve_processes_share_cache_and_rate_limit_through_redis() {
    let Some(redis) = redis_support::RedisServer::start("two_serve_processes") else {
        return;
    };
    let engine = Switchable::spawn("shared").await;
    let dir = temp_dir("two-serve");
    let path = dir.join("engines.toml");
    let extra = format!(
        "[cache]\nbackend = \"redis\"\nurl = \"{}\"\nttl_s = 60\n[limits]\nper_minute = 1\nburst = 4\n",
        redis.url()
    );
    std::fs::write(&path, config_text(&[("shared", engine.base())], &extra)).unwrap();
    let one = Serve::start(&path);
    let two = Serve::start(&path);
    let client = metasift::search::client_builder().build().unwrap();
    let ask = |base: &str, q: &str| {
        let url = format!("{base}/search?q={q}&format=json");
        let client = client.clone();
        async move {
            let r = client.get(url).send().await.unwrap();
            let status = r.status().as_u16();
            let retry = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            let body: serde_json::Value = r.json().await.unwrap_or_default();
            (status, retry, body)
        }
    };
    let (status, _, first) = ask(&one.base, "redis+shared").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["results"].as_array().unwrap().len(), 5);
    let (status, _, second) = ask(&two.base, "redis+shared").await;
    assert_eq!(status, 200);
    assert_eq!(second["results"], first["results"]);
    assert_eq!(
        engine.hits(),
        1,
        "the second process answered from the shared cache"
    );

    // Burst 4 shared by both processes: one used (the second process's
    // answer came from the cache and was refunded, issue #15), three
    // left, then 429. One search a minute: no token comes back while a
    // loaded machine crawls through these searches.
    assert_eq!(ask(&one.base, "three").await.0, 200);
    assert_eq!(ask(&two.base, "four").await.0, 200);
    assert_eq!(ask(&one.base, "five").await.0, 200);
    let (status, retry, _) = ask(&one.base, "six").await;
    assert_eq!(status, 429);
    // T = 60 s, less the time the four allowed searches took.
    let wait: u64 = retry.as_deref().and_then(|r| r.parse().ok()).unwrap_or(0);
    assert!((30..=60).contains(&wait), "{retry:?}");
    assert_eq!(ask(&two.base, "six").await.0, 429);

    let stats = client
        .get(format!("{}/metrics", two.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        stats.lines().any(|l| l == "metasift_cache_hits_total 1"),
        "{stats}"
    );
    drop((one, two));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_reloads_on_sighup_and_finishes_searches_on_sigterm() {
    let a = Switchable::spawn("a").await;
    let b = Switchable::spawn("b").await;
    let dir = temp_dir("signals");
    let path = dir.join("engines.toml");
    // The probing below must not meet the rate limit, and the slow search
    // (700 ms) must not meet the deadline when a loaded CI machine starves
    // the debug server.
    let limits = "[limits]\nper_minute = 0\n";
    let roomy = |text: String| {
        text.replace("deadline_ms = 1500", "deadline_ms = 8000")
            .replace("timeout_ms = 1500", "timeout_ms = 8000")
    };
    std::fs::write(&path, roomy(config_text(&[("a", a.base())], limits))).unwrap();
    let mut serve = Serve::start(&path);
    let client = metasift::search::client_builder().build().unwrap();
    let search = |q: &str| {
        let request = client.get(format!("{}/search?q={q}&format=json", serve.base));
        async move {
            let r = request.send().await.unwrap();
            let status = r.status().as_u16();
            let body: serde_json::Value = r.json().await.unwrap();
            (status, body)
        }
    };
    assert_eq!(search("one").await.0, 200);
    assert_eq!((a.hits(), b.hits()), (1, 0));

    // SIGHUP re-reads the file.
    std::fs::write(&path, roomy(config_text(&[("b", b.base())], limits))).unwrap();
    serve.signal("HUP");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert_eq!(search("probe").await.0, 200);
        if b.hits() > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "SIGHUP did not reload the file");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // SIGTERM while a search is in flight: it still gets its answer.
    b.delay_ms.store(700, Ordering::SeqCst);
    let before = b.hits();
    let slow = tokio::spawn(search("slow"));
    while b.hits() == before {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    serve.signal("TERM");
    let (status, body) = slow.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(body["results"].as_array().unwrap().len(), 5, "{body}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(code) = serve.child.try_wait().unwrap() {
            break code;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(code.success(), "clean exit: {code}");
    drop(serve);
    let _ = std::fs::remove_dir_all(dir);
}

/// One request with an optional form body; status, headers, body.
async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    form: &str,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut request = Request::builder().method(method).uri(uri);
    if !form.is_empty() {
        request = request.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::from(form.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 8 << 20)
        .await
        .unwrap();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

/// Issue 5: a rate-limited `POST /search` whose form asked `format=json`
/// used to get an HTML 429. Every refusal now comes in the asked format,
/// whether `format` is in the query string or in a POST form body.
#[tokio::test]
async fn rate_limited_searches_answer_in_the_asked_format_get_and_post() {
    let e = Switchable::spawn("e").await;
    let config = config(&[("e", e.base())], "[limits]\nper_minute = 1\nburst = 1\n");
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    assert_eq!(get(&app, "/search?q=first").await.0, StatusCode::OK);
    let asked = e.hits();
    for (format, content_type, looks_right) in [
        ("json", "application/json", "\"retry_after\""),
        ("csv", "text/csv", "error,retry_after\n\"Too many searches"),
        (
            "rss",
            "application/rss+xml",
            "<rss version=\"2.0\"><channel><title>metasift: 429",
        ),
        ("html", "text/html", "429"),
    ] {
        for (method, uri, form) in [
            (
                "GET",
                format!("/search?q=again&format={format}"),
                String::new(),
            ),
            (
                "POST",
                "/search".to_string(),
                format!("q=again&format={format}"),
            ),
            // A blank query-string format counts as absent, as in a search.
            (
                "POST",
                "/search?format=".to_string(),
                format!("q=again&format={format}"),
            ),
        ] {
            let (status, headers, body) = send(&app, method, &uri, &form).await;
            let at = format!("{method} {uri} {form}");
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{at}");
            assert!(headers.contains_key(header::RETRY_AFTER), "{at}");
            let ct = headers[header::CONTENT_TYPE].to_str().unwrap();
            assert!(ct.starts_with(content_type), "{at}: {ct}");
            assert!(body.contains(looks_right), "{at}: {body}");
            if format == "json" {
                let json: serde_json::Value = serde_json::from_str(&body).unwrap();
                assert!(json["error"].as_str().unwrap().contains("wait"), "{json}");
            }
        }
    }
    assert_eq!(e.hits(), asked, "refused searches never reach an engine");
}

/// Issue 5: `/autocomplete` had no rate limit. It now has a budget of its
/// own (`autocomplete_per_minute`, `autocomplete_burst`), so typing never
/// uses up the search budget and a script cannot hammer the suggestion
/// engine through us.
#[tokio::test]
async fn autocomplete_has_a_rate_limit_of_its_own() {
    let e = Switchable::spawn("e").await;
    let config = config(
        &[("e", e.base())],
        "autocomplete = \"e\"\n[limits]\nper_minute = 60\nburst = 1\n\
         autocomplete_per_minute = 60\nautocomplete_burst = 3\n",
    );
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    for i in 0..3 {
        let (status, _, body) = get(&app, &format!("/autocomplete?q=ty{i}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(body.starts_with(&format!("[\"ty{i}\"")), "{body}");
    }
    let asked = e.hits();
    assert_eq!(asked, 3, "each suggestion asks the engine");
    let (status, headers, body) = get(&app, "/autocomplete?q=ty3").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers[header::RETRY_AFTER], "1");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        json["error"].as_str().unwrap().contains("suggestion"),
        "{json}"
    );
    assert_eq!(
        e.hits(),
        asked,
        "a refused suggestion never reaches the engine"
    );
    // The search budget is untouched by the typing…
    assert_eq!(get(&app, "/search?q=typed").await.0, StatusCode::OK);
    // …and spent by searches only.
    assert_eq!(
        get(&app, "/search?q=again").await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
    let (_, _, metrics) = get(&app, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "metasift_rate_limited_total 2"),
        "{metrics}"
    );
}

/// Issue 5: the suspension numbers were hard-coded. With `[health]
/// failures_before_suspend = 1` one failure suspends the engine for
/// `backoff_s`; a reload with new numbers applies them to the running book.
#[tokio::test]
async fn health_table_sets_when_and_how_long_engines_are_suspended() {
    let good = Switchable::spawn("good").await;
    let flaky = Switchable::spawn("flaky").await;
    let engines = [("good", good.base()), ("flaky", flaky.base())];
    let dir = temp_dir("health");
    let path = dir.join("engines.toml");
    let health = "[limits]\nper_minute = 0\n[health]\nfailures_before_suspend = 1\n\
                  backoff_s = 42\nmax_backoff_s = 900\n";
    std::fs::write(&path, config_text(&engines, health)).unwrap();
    let state = AppState::serving(Config::load(&path).unwrap(), Some(path.clone()), None).unwrap();
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        1
    );
    let app = web::router(state.clone());
    flaky.set(500);
    assert_eq!(get(&app, "/search?q=one").await.0, StatusCode::OK);
    let (_, _, body) = get(&app, "/stats?format=json").await;
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    let row = |stats: &serde_json::Value, name: &str| {
        stats["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(stats["policy"]["failures_before_suspend"], 1, "{stats}");
    assert_eq!(stats["policy"]["backoff_s"], 42.0, "{stats}");
    // The page says the rules in force, not the defaults.
    let (_, _, page) = get(&app, "/stats").await;
    assert!(
        page.contains("suspended for 42 s after 1 failure in a row, doubling up to 15 min"),
        "{page}"
    );
    let flaky_row = row(&stats, "flaky");
    assert_eq!(flaky_row["suspended"], true, "{flaky_row}");
    let secs = flaky_row["suspended_for_s"].as_u64().unwrap();
    assert!(
        (40..=42).contains(&secs),
        "suspended for backoff_s: {flaky_row}"
    );
    assert_eq!(flaky.hits(), 1);

    // New numbers by reload: the book (and the running suspension) stays,
    // the next failures are judged by them.
    std::fs::write(
        &path,
        config_text(
            &engines,
            &health.replace("failures_before_suspend = 1", "failures_before_suspend = 5"),
        ),
    )
    .unwrap();
    state.reload().await.unwrap();
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        5
    );
    let (_, _, body) = get(&app, "/stats?format=json").await;
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(row(&stats, "flaky")["suspended"], true);
    // A bad table is refused and the numbers in force stay.
    std::fs::write(
        &path,
        config_text(&engines, &health.replace("backoff_s = 42", "backoff_s = 0")),
    )
    .unwrap();
    let err = state.reload().await.unwrap_err().to_string();
    assert!(err.contains("health.backoff_s"), "{err}");
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        5
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// #12, defect 12: with `backend = "redis"`, killing Redis used to turn
/// every repeated search into a new fan-out. Now a repeated search is
/// answered from the process's own front cache — the engine is not asked
/// again, and nothing fails — and Redis is used again once it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_search_is_not_asked_again_while_redis_is_dead() {
    let Some(redis) = redis_support::RedisServer::start("repeated_search_redis_dead") else {
        return;
    };
    let port = redis.port();
    let e = Switchable::spawn("e").await;
    let extra = format!(
        "[cache]\nbackend = \"redis\"\nurl = \"{}\"\nttl_s = 60\n[limits]\nper_minute = 0",
        redis.url()
    );
    let app = |config: Config| web::router(AppState::serving(config, None, None).unwrap());
    let one = app(config(&[("e", e.base())], &extra));
    let two = app(config(&[("e", e.base())], &extra));
    let answered = |page: &str| {
        let json: serde_json::Value = serde_json::from_str(page).unwrap();
        assert_eq!(
            json["unresponsive_engines"],
            serde_json::json!([]),
            "{page}"
        );
        json["results"].as_array().unwrap().len()
    };

    let (status, _, page) = get(&one, "/search?q=before&format=json").await;
    assert_eq!((status, answered(&page)), (StatusCode::OK, 5));
    assert_eq!(e.hits(), 1);

    redis.stop();
    let started = Instant::now();
    for round in 0..20 {
        for q in ["before", "during"] {
            let (status, _, page) = get(&one, &format!("/search?q={q}&format=json")).await;
            assert_eq!(status, StatusCode::OK, "round {round} {q}: {page}");
            assert_eq!(answered(&page), 5, "round {round} {q}");
        }
    }
    assert_eq!(
        e.hits(),
        2,
        "40 searches of two queries with Redis dead: only the new query asked the engine, once"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a dead Redis slowed searches down: {:?}",
        started.elapsed()
    );

    // Back: what one process stores, the other reads from Redis.
    let _redis =
        redis_support::RedisServer::start_on("repeated_search_redis_dead (restart)", port).unwrap();
    let mut shared = false;
    for i in 0..60 {
        let uri = format!("/search?q=after+{i}&format=json");
        assert_eq!(get(&one, &uri).await.0, StatusCode::OK);
        let asked = e.hits();
        assert_eq!(get(&two, &uri).await.0, StatusCode::OK);
        if e.hits() == asked {
            shared = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(shared, "Redis is used again once it is back");
}
