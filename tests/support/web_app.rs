//! Helpers shared by the web tests that ask member engines on loopback
//! (`web_engines.rs`, `web_compare.rs`). Include it after `support` with
//!
//! ```ignore
//! #[path = "support/web_app.rs"]
//! mod web_app;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, StatusCode};

use crate::support::router::send;

pub async fn json_of(app: axum::Router, uri: &str) -> serde_json::Value {
    let (resp, body) = send(app, Request::get(uri).body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::OK, "{uri}: {body}");
    serde_json::from_str(&body).expect("JSON")
}

/// `/search?format=json` for the words `text`, answered 200, as JSON.
pub async fn searched(app: axum::Router, text: &str) -> serde_json::Value {
    json_of(app, &format!("/search?format=json&q={}", q(text))).await
}

pub fn q(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
