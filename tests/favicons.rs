//! Site icons beside results (issue #29): the page links each result
//! site's icon through `/favicon`, signed; the server fetches it under the
//! image proxy's rules — never from an address the proxy refuses (a server
//! listening there sees no request) — keeps it (and a site's lack of one)
//! in the cache, sends the type the bytes show, and a preference turns
//! icons off.
//!
//! Run with `cargo test --test favicons`.

#[path = "support/mod.rs"]
mod support;

#[path = "support/redis.rs"]
mod redis;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{Request, Response, header};
use metasift::config::Config;
use metasift::ops::cache::Cache;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::{Behavior, LoopbackEngine};

/// A 16×16 ICO header and one empty image entry: enough for the signature.
const ICO: &[u8] = &[
    0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 40, 0, 0, 0, 22, 0, 0, 0,
];

/// A site on `ip` (loopback): `/favicon.ico` answers `icon` with the type
/// `content_type`, counting requests.
struct Site {
    base: String,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Site {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn site(ip: &str, icon: &'static [u8], content_type: &'static str) -> Option<Site> {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let app = axum::Router::new().fallback(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        async move { ([(header::CONTENT_TYPE, content_type)], icon) }
    });
    // 127.0.0.2 is loopback too on Linux; elsewhere it may not bind.
    let listener = tokio::net::TcpListener::bind(format!("{ip}:0"))
        .await
        .ok()?;
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Some(Site {
        base: format!("http://{addr}"),
        hits,
        task,
    })
}

/// A SearXNG member on loopback whose results link to `links`; the app
/// over it, with a memory cache.
async fn app_over(links: &[String], extra: &str) -> (axum::Router, LoopbackEngine) {
    app_with_cache(
        links,
        extra,
        Cache::memory(Duration::from_secs(60), 1 << 20),
    )
    .await
}

async fn app_with_cache(
    links: &[String],
    extra: &str,
    cache: Cache,
) -> (axum::Router, LoopbackEngine) {
    let results: Vec<serde_json::Value> = links
        .iter()
        .enumerate()
        .map(|(i, u)| serde_json::json!({"url": u, "title": format!("Result {i}"), "content": "text"}))
        .collect();
    let engine = LoopbackEngine::spawn(Behavior::page(
        serde_json::json!({ "results": results }).to_string(),
        "application/json",
    ))
    .await;
    let mut config: Config = support::router::config(extra);
    config.engines = vec![support::test_engine_config("sx", &engine.base_url())];
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(cache);
    (web::router(AppState::new(searcher)), engine)
}

async fn get(app: &axum::Router, uri: &str) -> (Response<()>, Bytes) {
    support::router::send_bytes(app.clone(), Request::get(uri).body(Body::empty()).unwrap()).await
}

/// The `src` of every site icon on a results page, `&#38;` undone.
fn icons(html: &str) -> Vec<String> {
    html.split("<img class=\"favicon\" src=\"")
        .skip(1)
        .map(|rest| {
            rest[..rest.find('"').unwrap()]
                .replace("&#38;", "&")
                .replace("&amp;", "&")
        })
        .collect()
}

#[tokio::test]
async fn icons_are_linked_signed_fetched_once_and_sent_as_what_their_bytes_are() {
    // Served as application/octet-stream, as many sites do.
    let good = site("127.0.0.1", ICO, "application/octet-stream")
        .await
        .unwrap();
    let html = site("127.0.0.1", b"<!doctype html><p>not found</p>", "text/html")
        .await
        .unwrap();
    let links = vec![
        format!("{}/page/one", good.base),
        format!("{}/page/two", good.base),
        format!("{}/other", html.base),
    ];
    let (app, _engine) = app_over(&links, "").await;
    let (_, page) = get(&app, "/search?q=rust").await;
    let page = String::from_utf8_lossy(&page).into_owned();
    let srcs = icons(&page);
    assert_eq!(srcs.len(), 3, "{page}");
    assert!(
        srcs.iter().all(|s| s.starts_with("/favicon?site=")),
        "{srcs:?}"
    );
    assert_eq!(srcs[0], srcs[1], "one link per site");

    let (head, body) = get(&app, &srcs[0]).await;
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()[header::CONTENT_TYPE], "image/x-icon");
    assert_eq!(&body[..], ICO);
    assert!(
        head.headers()[header::CACHE_CONTROL]
            .to_str()
            .unwrap()
            .contains("max-age=86400")
    );
    // The page's other results of that site, and the next readers: cached.
    for _ in 0..3 {
        let (head, _) = get(&app, &srcs[1]).await;
        assert_eq!(head.status(), 200);
    }
    assert_eq!(good.hits.load(Ordering::SeqCst), 1, "fetched once");

    // An HTML page at /favicon.ico is no icon, whatever it is served as;
    // that answer is kept too.
    let (head, _) = get(&app, &srcs[2]).await;
    assert_eq!(head.status(), 404);
    let (head, _) = get(&app, &srcs[2]).await;
    assert_eq!(head.status(), 404);
    assert_eq!(html.hits.load(Ordering::SeqCst), 1);

    // A link this server did not sign is refused before any fetch.
    let forged = srcs[0].replace("h=", "h=00");
    let (head, _) = get(&app, &forged).await;
    assert_eq!(head.status(), 403);
    let other_site = format!(
        "/favicon?site={}&h={}",
        url::form_urlencoded::byte_serialize(html.base.as_bytes()).collect::<String>(),
        srcs[0].rsplit("h=").next().unwrap()
    );
    let (head, _) = get(&app, &other_site).await;
    assert_eq!(head.status(), 403, "a signature is for its own site");
}

#[tokio::test]
async fn icons_are_never_fetched_from_an_address_the_proxy_refuses() {
    let Some(hidden) = site("127.0.0.2", ICO, "image/x-icon").await else {
        eprintln!("127.0.0.2 cannot be bound here: the refused server is not started");
        return;
    };
    let links = vec![
        format!("{}/secret", hidden.base),
        "http://[::1]:9/admin".to_string(),
        "http://10.0.0.1/intranet".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
    ];
    let (app, _engine) = app_over(&links, "").await;
    let (_, page) = get(&app, "/search?q=rust").await;
    let srcs = icons(&String::from_utf8_lossy(&page));
    assert_eq!(srcs.len(), 4);
    for src in &srcs {
        let (head, body) = get(&app, src).await;
        assert_eq!(
            head.status(),
            403,
            "{src}: {}",
            String::from_utf8_lossy(&body)
        );
        assert!(
            String::from_utf8_lossy(&body).contains("local address"),
            "{src}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    assert_eq!(hidden.hits.load(Ordering::SeqCst), 0, "never fetched");
}

#[tokio::test]
async fn a_resolver_serves_every_site_and_a_preference_turns_icons_off() {
    let resolver = site("127.0.0.1", b"\x89PNG\r\n\x1a\n0000", "image/png")
        .await
        .unwrap();
    let extra = format!("[favicons]\nurl = \"{}/ip3/{{host}}.ico\"\n", resolver.base);
    let links = vec!["https://www.rust-lang.org/learn".to_string()];
    let (app, _engine) = app_over(&links, &extra).await;
    let (_, page) = get(&app, "/search?q=rust").await;
    let srcs = icons(&String::from_utf8_lossy(&page));
    assert_eq!(srcs.len(), 1);
    let (head, _) = get(&app, &srcs[0]).await;
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()[header::CONTENT_TYPE], "image/png");
    assert_eq!(resolver.hits.load(Ordering::SeqCst), 1);

    let req = Request::get("/search?q=rust")
        .header("cookie", "metasift_prefs=favicons%3D0")
        .body(Body::empty())
        .unwrap();
    let (_, page) = support::router::send(app.clone(), req).await;
    assert!(icons(&page).is_empty(), "{page}");
    // The preferences page keeps the choice.
    let req = Request::get("/preferences")
        .header("cookie", "metasift_prefs=favicons%3D0")
        .body(Body::empty())
        .unwrap();
    let (_, prefs) = support::router::send(app.clone(), req).await;
    assert!(prefs.contains("id=\"p-favicons\" type=\"checkbox\" name=\"favicons\" value=\"1\">"));

    // Off for the instance: no links, and the route says so.
    let (app, _engine) = app_over(&links, "[favicons]\nenabled = false\n").await;
    let (_, page) = get(&app, "/search?q=rust").await;
    assert!(icons(&String::from_utf8_lossy(&page)).is_empty());
    let (head, _) = get(&app, &srcs[0]).await;
    assert_eq!(head.status(), 404);
}

#[test]
fn a_source_that_names_no_site_is_refused_with_its_line() {
    let text = "[favicons]\nurl = \"https://icons.example/one.ico\"\n[[engine]]\nname = \"e\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\n";
    let err = Config::parse(text, std::path::Path::new("f.toml")).expect_err("refused");
    let shown = err.to_string();
    assert!(
        shown.starts_with("f.toml:2:") && shown.contains("favicons.url"),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_on_one_redis_share_the_icons() {
    let Some(server) = redis::RedisServer::start("tests/favicons.rs") else {
        return;
    };
    let good = site("127.0.0.1", ICO, "image/vnd.microsoft.icon")
        .await
        .unwrap();
    let links = vec![format!("{}/page", good.base)];
    let cache = || Cache::redis(&server.url(), Duration::from_secs(60)).unwrap();
    let (first, _e1) = app_with_cache(&links, "", cache()).await;
    let (second, _e2) = app_with_cache(&links, "", cache()).await;
    let (_, page) = get(&first, "/search?q=rust").await;
    let src = icons(&String::from_utf8_lossy(&page)).remove(0);
    let (head, _) = get(&first, &src).await;
    assert_eq!(head.status(), 200);
    let (head, body) = get(&second, &src).await;
    assert_eq!(head.status(), 200);
    assert_eq!(&body[..], ICO);
    assert_eq!(
        good.hits.load(Ordering::SeqCst),
        1,
        "the second instance read Redis"
    );
}
