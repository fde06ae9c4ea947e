//! Driving `web::router` without a socket (tower's `oneshot`): an app over
//! a configuration's text, one request, its answer as text or bytes.
//!
//! Used by the web tests (`tests/web*.rs`, `tests/web_ui_*.rs`,
//! `tests/lab_web.rs`, `tests/image_proxy.rs`); the tests that need a real
//! socket start `metasift serve` instead (`support/serve.rs`).

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{Request, Response, header};
use http_body_util::BodyExt;
use metasift::config::Config;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use tower::ServiceExt;

/// A configuration from TOML text; panics (with the parser's error) when it
/// is not valid.
pub fn config(text: &str) -> Config {
    Config::parse(text, Path::new("test.toml")).expect("test config is valid")
}

/// An app over `config` with the project's HTTP client (engines, if any,
/// must be on loopback).
pub fn app_with(config: Config) -> axum::Router {
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    );
    web::router(AppState::new(searcher))
}

/// One request through `app`: the response's head and its whole body.
pub async fn send_bytes(app: axum::Router, req: Request<Body>) -> (Response<()>, Bytes) {
    let resp = app.oneshot(req).await.expect("router never fails");
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.expect("body").to_bytes();
    (Response::from_parts(parts, ()), bytes)
}

/// One request through `app`: the response's head and its body as text
/// (lossy, so a test can show a body that is not UTF-8).
pub async fn send(app: axum::Router, req: Request<Body>) -> (Response<()>, String) {
    let (head, bytes) = send_bytes(app, req).await;
    (head, String::from_utf8_lossy(&bytes).into_owned())
}

/// `GET uri` through `app`.
pub async fn get_from(app: &axum::Router, uri: &str) -> (Response<()>, String) {
    send(app.clone(), Request::get(uri).body(Body::empty()).unwrap()).await
}

/// A header's value, or "" when the response has none.
pub fn header_of(resp: &Response<()>, name: header::HeaderName) -> String {
    resp.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// The text between the first `start` and the `end` that follows it;
/// panics naming the marker that is missing.
pub fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let (_, rest) = text
        .split_once(start)
        .unwrap_or_else(|| panic!("{start:?} is not in the page"));
    rest.split_once(end)
        .unwrap_or_else(|| panic!("{end:?} does not follow {start:?}"))
        .0
}
