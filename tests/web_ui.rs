//! The searcher's side of the web front end, through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket) unless a test says otherwise:
//! SearXNG's root-path search and `/config`, the streamed results page,
//! honest empty and failed states, page numbers.
//!
//! Run with `cargo test --test web_ui`.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use metasift::config::Config;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use tower::ServiceExt;

fn config(text: &str) -> Config {
    Config::parse(text, Path::new("test.toml")).expect("test config is valid")
}

fn app_with(config: Config) -> axum::Router {
    let searcher = Searcher::new(Arc::new(config), reqwest::Client::new());
    web::router(AppState::new(searcher))
}

/// One engine that nothing listens for: every search fails fast.
const NOWHERE: &str = r#"
[server]
deadline_ms = 500
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={query}&p={page}&hl={lang}"
shortcut = ["nw", "nowhere"]
categories = ["general", "it"]
[engine.parse]
results = "/items"
title = "title"
url = "url"
[[engine]]
name = "news-off"
kind = "json"
url = "http://127.0.0.1:9/?q={query}"
enabled = false
categories = ["news"]
[engine.parse]
results = "/items"
title = "title"
url = "url"
"#;

fn app() -> axum::Router {
    app_with(config(NOWHERE))
}

async fn send(app: axum::Router, req: Request<Body>) -> (Response<()>, String) {
    let resp = app.oneshot(req).await.expect("router never fails");
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.expect("body").to_bytes();
    (
        Response::from_parts(parts, ()),
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

fn header_of(resp: &Response<()>, name: header::HeaderName) -> String {
    resp.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn root_with_q_is_a_308_to_search_keeping_the_query_and_method() {
    let (resp, _) = send(
        app(),
        Request::get("/?q=rust+lang&format=json&language=en")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(
        header_of(&resp, header::LOCATION),
        "/search?q=rust+lang&format=json&language=en"
    );

    // A form posted to `/` is posted again to `/search` (308 keeps the
    // method and the body): the query string is empty, the body has q.
    let (resp, _) = send(
        app(),
        Request::post("/")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from("q=rust&format=json"))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(header_of(&resp, header::LOCATION), "/search");

    // Without a q (or with a blank one) it is the search page.
    for uri in ["/", "/?q=", "/?q=+&format=json"] {
        let (resp, body) = send(app(), Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(resp.status(), StatusCode::OK, "{uri}");
        assert!(body.contains("<form"), "{uri}");
    }
}

#[tokio::test]
async fn config_has_searxngs_shape() {
    let (resp, body) = send(app(), Request::get("/config").body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(header_of(&resp, header::CONTENT_TYPE).starts_with("application/json"));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    // Categories of the enabled engines only, general first.
    assert_eq!(v["categories"], serde_json::json!(["general", "it"]));
    let engines = v["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 2);
    let e = &engines[0];
    assert_eq!(e["name"], "nowhere");
    assert_eq!(e["categories"], serde_json::json!(["general", "it"]));
    assert_eq!(e["shortcut"], "nw");
    assert_eq!(e["enabled"], true);
    assert_eq!(e["paging"], true);
    assert_eq!(e["language_support"], true);
    assert_eq!(engines[1]["enabled"], false);
    assert_eq!(engines[1]["language_support"], false);
    assert!(v["locales"]["en"].is_string());
    assert!(v["locales"]["zh-Hans"].is_string());
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["instance_name"].is_string());
}
