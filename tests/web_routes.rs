//! The web front end's routes, driven through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket): content types, caching headers,
//! 404s, and hostile input.
//!
//! Run with `cargo test --test web_routes`.

#[path = "support/mod.rs"]
mod support;

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use support::router::{app_with, config, header_of, send};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An app with one engine that nothing listens for: every search fails fast.
fn app() -> axum::Router {
    app_with(config(
        r#"
[server]
deadline_ms = 500
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={query}"
shortcut = "nw"
[engine.parse]
results = "/items"
title = "title"
url = "url"
snippet = "snippet"
"#,
    ))
}

async fn get(uri: &str) -> (Response<()>, String) {
    send(app(), Request::get(uri).body(Body::empty()).unwrap()).await
}
// ---- routes ---------------------------------------------------------------

#[tokio::test]
async fn home_page_has_a_labelled_search_form() {
    let (resp, body) = get("/").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "text/html; charset=utf-8"
    );
    assert!(body.contains("<form class=\"search-form\" role=\"search\" action=\"/search\""));
    assert!(body.contains("<label for=\"q\""));
    assert!(body.contains("<kbd>!nw</kbd> Nowhere"));
    let csp = header_of(&resp, header::CONTENT_SECURITY_POLICY);
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(!body.contains("<script"));
}

#[tokio::test]
async fn static_files_are_cached_and_typed() {
    let (resp, css) = get("/static/style.css").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "text/css; charset=utf-8"
    );
    assert!(header_of(&resp, header::CACHE_CONTROL).contains("immutable"));
    assert!(css.contains("prefers-color-scheme: dark"));
    let etag = header_of(&resp, header::ETAG);
    assert!(etag.starts_with('"'));

    let req = Request::get("/static/style.css")
        .header(header::IF_NONE_MATCH, &etag)
        .body(Body::empty())
        .unwrap();
    let (resp, body) = send(app(), req).await;
    assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());

    for icon in ["/favicon.ico", "/static/favicon.svg"] {
        let (resp, body) = get(icon).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(header_of(&resp, header::CONTENT_TYPE), "image/svg+xml");
        assert!(body.starts_with("<svg"));
    }
}

#[tokio::test]
async fn healthz_opensearch_and_autocomplete() {
    let (resp, body) = get("/healthz").await;
    assert_eq!((resp.status(), body.as_str()), (StatusCode::OK, "ok\n"));

    let (resp, body) = get("/opensearch.xml").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(
        header_of(&resp, header::CONTENT_TYPE).starts_with("application/opensearchdescription+xml")
    );
    assert!(body.contains(
        "type=\"application/x-suggestions+json\" method=\"get\" template=\"http://127.0.0.1:8888/autocomplete?q={searchTerms}\""
    ));

    // No autocomplete engine is configured: a valid, empty suggestion list.
    let (resp, body) = get("/autocomplete?q=caf%C3%A9").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "application/x-suggestions+json"
    );
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v, serde_json::json!(["café", []]));
}

#[tokio::test]
async fn unknown_paths_get_a_404_page() {
    let (resp, body) = get("/no/such/page").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(body.contains("404 Not Found"));
}

#[tokio::test]
async fn failed_engines_are_reported_in_json() {
    let (resp, body) = get("/search?q=hello&format=json").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(header_of(&resp, header::CONTENT_TYPE).starts_with("application/json"));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    for key in [
        "query",
        "number_of_results",
        "results",
        "answers",
        "corrections",
        "infoboxes",
        "suggestions",
        "unresponsive_engines",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {body}");
    }
    assert_eq!(v["query"], "hello");
}

#[tokio::test]
async fn post_with_a_form_body_works_like_get() {
    let req = Request::post("/search?format=json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(
            "q=caf%C3%A9+au+lait&pageno=2&language=fr&safesearch=1",
        ))
        .unwrap();
    let (resp, body) = send(app(), req).await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["query"], "café au lait");
}

#[tokio::test]
async fn every_format_has_its_content_type() {
    for (format, ct) in [
        ("html", "text/html; charset=utf-8"),
        ("json", "application/json"),
        ("csv", "text/csv; charset=utf-8"),
        ("rss", "application/rss+xml; charset=utf-8"),
    ] {
        let (resp, _) = get(&format!("/search?q=hello&format={format}")).await;
        assert_eq!(resp.status(), StatusCode::OK, "{format}");
        assert_eq!(header_of(&resp, header::CONTENT_TYPE), ct, "{format}");
        assert_eq!(header_of(&resp, header::CACHE_CONTROL), "private, no-store");
    }
}

// ---- hostile input --------------------------------------------------------

#[tokio::test]
async fn empty_queries_show_the_search_page_or_a_400() {
    for uri in ["/search", "/search?q=", "/search?q=+++"] {
        let (resp, body) = get(uri).await;
        assert_eq!(resp.status(), StatusCode::OK, "{uri}");
        assert!(body.contains("role=\"search\""), "{uri}");
    }
    let (resp, body) = get("/search?q=&format=json").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(v["error"].as_str().unwrap().contains("empty"));
}

#[tokio::test]
async fn a_100k_character_query_is_refused_clearly() {
    // `http::Uri` itself stops at 64 KiB, so the longest GET that can reach
    // the router is just under that; a real socket with a longer one is
    // tested below.
    let long = "a".repeat(60_000);
    let (resp, body) = get(&format!("/search?q={long}")).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("60000 characters long"), "{}", &body[..200]);
    assert!(body.len() < 20_000, "the error must not echo the query");

    let long = "a".repeat(100_000);
    let req = Request::post("/search")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("q={long}&format=csv")))
        .unwrap();
    let (resp, body) = send(app(), req).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(
        body.contains("100000 characters long"),
        "{}",
        &body[..200.min(body.len())]
    );
    // A program that asked for CSV gets a CSV: the reason in a column.
    assert_eq!(
        resp.headers()[header::CONTENT_TYPE],
        "text/csv; charset=utf-8"
    );
    assert!(
        body.starts_with("error\n\"the query is 100000 characters long"),
        "{}",
        &body[..200.min(body.len())]
    );

    // And one that asked for a feed gets a feed whose description says why.
    let (resp, body) = get("/search?q=x&page=0&format=rss").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        resp.headers()[header::CONTENT_TYPE],
        "application/rss+xml; charset=utf-8"
    );
    assert!(
        body.contains("<title>metasift: 400 Bad Request</title>") && body.contains("<description>"),
        "{body}"
    );
    assert!(!resp.headers().contains_key(header::RETRY_AFTER));
}

#[tokio::test]
async fn a_100k_character_get_over_a_real_socket_is_a_4xx() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app()).await });
    // reqwest refuses such a URL itself, so the request is written by hand.
    let long = "a".repeat(100_000);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET /search?q={long} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    // The server may answer and close before reading everything.
    let _ = stream.write_all(request.as_bytes()).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let status_line = String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned();
    assert!(status_line.starts_with("HTTP/1.1 4"), "{status_line:?}");
    // And the server is still up.
    let ok = metasift::search::client_builder()
        .build()
        .unwrap()
        .get(format!("http://{addr}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    server.abort();
}

#[tokio::test]
async fn out_of_range_pages_are_400_in_the_asked_format() {
    for page in ["0", "-1", "1000000000000", "abc", "1e3"] {
        let (resp, body) = get(&format!("/search?q=x&page={page}")).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{page}");
        assert!(body.contains("out of range"), "{page}");
        assert!(body.contains("<html"), "{page}: HTML error page expected");

        let (resp, body) = get(&format!("/search?q=x&pageno={page}&format=json")).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{page}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"].as_str().unwrap().contains("out of range"));
    }
}

#[tokio::test]
async fn invalid_utf8_and_broken_escapes_are_searched_as_text() {
    let (resp, body) = get("/search?q=%FF%FE%zz%&format=json").await;
    assert_eq!(resp.status(), StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["query"], "\u{FFFD}\u{FFFD}%zz%");
    let (resp, body) = get("/search?q=%3Cscript%3Ealert(1)%3C/script%3E").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(!body.contains("<script>alert(1)"));
    assert!(body.contains("&#60;script&#62;alert(1)") || body.contains("&lt;script&gt;alert(1)"));
}

#[tokio::test]
async fn unknown_formats_and_bad_knobs_are_400_unknown_params_ignored() {
    let (resp, body) = get("/search?q=x&format=xlsx").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("use html, json, csv or rss"));
    for bad in ["os1=2", "os2=-0.1", "method=magic", "limit=0", "limit=-3"] {
        let (resp, _) = get(&format!("/search?q=x&{bad}&format=json")).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let (resp, _) = get("/search?q=x&utm_source=feed&theme=simple&category_general=1").await;
    assert_eq!(resp.status(), StatusCode::OK);
}
