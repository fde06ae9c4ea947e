//! The web front end and API, driven through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket): routes, content types, caching
//! headers, hostile input, and insta snapshots of the HTML, JSON, CSV and RSS
//! renderings of a fixed response (`tests/data/web_response.toml`).
//!
//! The second half asks member engines on loopback (`tests/data/web_engines.toml`
//! pointed at `tests/support` servers answering with saved real pages).
//!
//! Run with `cargo test --test web`.

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use metasift::config::Config;
use metasift::model::SearchResponse;
use metasift::output::{self, searxng};
use metasift::search::Searcher;
use metasift::web::{self, AppState, SearchParams, pages};
use support::router::{app_with, config, get_from, header_of, send};
use support::{Behavior, LoopbackEngine};
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

fn fixture_response() -> SearchResponse {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/web_response.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).expect("fixture parses")
}

fn fixture_config() -> Config {
    config(
        r#"
[server]
base_url = "https://metasift.example/"
[[engine]]
name = "duckduckgo"
kind = "html"
url = "http://127.0.0.1:9/html/?q={query}"
shortcut = "ddg"
[engine.parse]
results = "div.result"
title = "a.result__a"
url = "a.result__a@href"
snippet = ".result__snippet"
"#,
    )
}

/// The stylesheet's URL carries a content hash; snapshots must not churn
/// on every CSS edit.
fn redact(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find("?v=") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len());
        out.push_str("[hash]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn params(query: &str) -> SearchParams {
    SearchParams::from_request(Some(query), b"").unwrap()
}

// ---- renderings of a fixed response ---------------------------------------

#[test]
fn results_page_snapshot() {
    let resp = fixture_response();
    let page = pages::ResultsPage::new(
        &resp,
        &params("q=does+caffeine+affect+sleep&explain=1"),
        &fixture_config(),
    );
    let html = askama::Template::render(&page).unwrap();
    insta::assert_snapshot!("results_page", redact(&html));
}

#[test]
fn engine_text_is_inert_in_html() {
    let resp = fixture_response();
    let page = pages::ResultsPage::new(&resp, &params("q=x"), &fixture_config());
    let html = askama::Template::render(&page).unwrap();
    for payload in [
        "<script>",
        "<img src=x",
        "<svg onload",
        "<b onmouseover",
        "href=\"javascript:",
        "\"><script",
    ] {
        assert!(!html.contains(payload), "{payload} reached the page raw");
    }
    // The text itself is still shown, escaped.
    assert!(html.contains("Hostile title"));
    assert!(html.contains("&#60;script&#62;alert(") || html.contains("&lt;script&gt;alert("));
}

#[test]
fn results_page_shows_groups_failures_and_controls() {
    let resp = fixture_response();
    let page = pages::ResultsPage::new(&resp, &params("q=x&explain=1"), &fixture_config());
    let html = askama::Template::render(&page).unwrap();
    assert!(html.contains("<details class=\"dups\">"));
    assert!(html.contains("1 similar result</summary>"));
    assert!(html.contains("similarity <b>0.67</b>"));
    assert!(html.contains("<code>9f1c2a0b44e1d7a3</code>"));
    // Failed engines with kind, reason and time; bing is flagged as slow.
    assert!(html.contains(
        "<li class=\"problem\"><span class=\"engine-name\">Qwant</span> <span class=\"engine-time\">95 ms</span> \
         <span class=\"engine-line\"><span class=\"engine-status\">blocked</span>"
    ));
    assert!(html.contains("timeout after 2500 ms"));
    assert!(html.contains(
        "<li class=\"problem\"><span class=\"engine-name\">Bing</span> <span class=\"engine-time\">1730 ms</span> \
         <span class=\"engine-line\"><span class=\"engine-status\">slow</span>"
    ));
    assert!(html.contains("2 engines failed"));
    // Re-clustering works without JavaScript: a GET form with the controls.
    assert!(html.contains("<select id=\"method\" name=\"method\">"));
    assert!(html.contains("name=\"os1\""));
    assert!(html.contains("name=\"os2\""));
    assert!(!html.contains("<script"));
}

#[test]
fn limit_caps_every_format() {
    let resp = fixture_response();
    let p = params("q=x&limit=2");
    let page = pages::ResultsPage::new(&resp, &p, &fixture_config());
    assert_eq!(page.results.len(), 2);
    assert_eq!(searxng::answer(&resp, p.limit).results.len(), 2);
    let csv = output::csv::to_csv(&resp, p.limit).unwrap();
    assert_eq!(csv.matches(",result\n").count(), 2);
    let rss = output::rss::to_rss(&resp, p.limit, "http://h/", "/search?q=x", 20).unwrap();
    assert_eq!(rss.matches("<item>").count(), 2);
}

#[test]
fn json_snapshot() {
    let answer = searxng::answer(&fixture_response(), None);
    insta::assert_json_snapshot!("searxng_json", answer);
}

#[test]
fn csv_snapshot() {
    insta::assert_snapshot!(
        "csv",
        output::csv::to_csv(&fixture_response(), None).unwrap()
    );
}

#[test]
fn rss_snapshot() {
    let rss = output::rss::to_rss(
        &fixture_response(),
        None,
        "https://metasift.example/",
        "/search?q=does+caffeine+affect+sleep",
        20,
    )
    .unwrap();
    insta::assert_snapshot!("rss", rss);
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

// ---- with member engines on loopback --------------------------------------

const CAFFEINE: &str = "does caffeine affect sleep";

/// DuckDuckGo and Bing (`tests/data/web_engines.toml`), answering with their
/// saved pages for the same query (9 of their 10 results are shared).
async fn caffeine_engines(
    ddg: Behavior,
    bing: Behavior,
    edit: impl FnOnce(&mut Config),
) -> (axum::Router, LoopbackEngine, LoopbackEngine) {
    let ddg = LoopbackEngine::spawn(ddg).await;
    let bing = LoopbackEngine::spawn(bing).await;
    let mut config = support::web_engines();
    support::point_at(&mut config, "duckduckgo", &ddg.base_url());
    support::point_at(&mut config, "bing", &bing.base_url());
    edit(&mut config);
    (app_with(config), ddg, bing)
}

fn ddg_page() -> Behavior {
    Behavior::caffeine("duckduckgo")
}

fn bing_page() -> Behavior {
    Behavior::caffeine("bing")
}

async fn json_of(app: axum::Router, uri: &str) -> serde_json::Value {
    let (resp, body) = send(app, Request::get(uri).body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::OK, "{uri}: {body}");
    serde_json::from_str(&body).expect("JSON")
}

fn q(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn two_engines_are_fused_and_their_duplicates_folded() {
    let (app, _ddg, _bing) = caffeine_engines(ddg_page(), bing_page(), |_| {}).await;
    let v = json_of(
        app.clone(),
        &format!("/search?format=json&q={}", q(CAFFEINE)),
    )
    .await;
    let results = v["results"].as_array().unwrap();
    assert!(results.len() >= 8, "{} results", results.len());
    assert_eq!(v["number_of_results"], results.len());
    assert_eq!(v["unresponsive_engines"], serde_json::json!([]));

    let urls: Vec<&str> = results.iter().map(|r| r["url"].as_str().unwrap()).collect();
    let mut unique = urls.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), urls.len(), "a URL is shown twice");

    // Results both engines found carry both, with a hidden duplicate each.
    let both: Vec<_> = results
        .iter()
        .filter(|r| r["engines"].as_array().unwrap().len() == 2)
        .collect();
    assert!(both.len() >= 5, "{} results found by both", both.len());
    for r in &both {
        assert_eq!(r["positions"].as_array().unwrap().len(), 2, "{r}");
        let dups = r["duplicates"].as_array().unwrap();
        assert!(!dups.is_empty(), "{r}");
        for d in dups {
            assert!(["url", "title", "snippet"].contains(&d["stage"].as_str().unwrap()));
            assert!(d["url"].as_str().unwrap().starts_with("http"));
        }
        assert_eq!(r["parsed_url"][0], "https");
    }
    // Found by two engines ranks above found by one.
    let first_single = results
        .iter()
        .position(|r| r["engines"].as_array().unwrap().len() == 1)
        .unwrap_or(results.len());
    assert!(
        first_single >= 2,
        "a single-engine result ranks {first_single}"
    );

    // The page shows the same results with one closed group per result
    // that has duplicates.
    let (resp, html) = send(
        app,
        Request::get(format!("/search?q={}", q(CAFFEINE)))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(html.matches("<li class=\"result\"").count(), results.len());
    let with_dups = results
        .iter()
        .filter(|r| !r["duplicates"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(html.matches("<details class=\"dups\">").count(), with_dups);
    assert!(html.contains(&format!("{} results", results.len())));
}

/// Two engines returning the same snippet under different links and titles
/// (the snippet is DuckDuckGo's for the Stanford page in the caffeine
/// fixture; four punctuation anchors, enough for the snippet stage): only
/// the snippet stage can fold them.
async fn same_snippet_engines() -> (axum::Router, LoopbackEngine, LoopbackEngine) {
    let snippet = "The critical insight comes from how long caffeine actually impacts our bodies: \
                   Even if we can fall asleep after drinking caffeine, there are residual caffeine \
                   levels in the body that can impair sleep quality at a microscopic, cellular level.";
    let a = LoopbackEngine::spawn(support::test_page(&[(
        "https://knight-hennessy.stanford.edu/news/more-awake-less-rested-hidden-cost-caffeine-sleep-quality",
        "More awake, less rested: The hidden cost of caffeine on sleep quality",
        snippet,
    )]))
    .await;
    let b = LoopbackEngine::spawn(support::test_page(&[(
        "https://mirror.example/health/caffeine-sleep",
        "Why caffeine keeps you awake at night",
        snippet,
    )]))
    .await;
    let mut config = config("");
    config.engines = vec![
        support::test_engine_config("a", &a.base_url()),
        support::test_engine_config("b", &b.base_url()),
    ];
    (app_with(config), a, b)
}

#[tokio::test]
async fn the_query_string_reclusters_the_same_results() {
    let (app, _a, _b) = same_snippet_engines().await;
    let base = "/search?format=json&q=caffeine";
    let results = |v: &serde_json::Value| v["results"].as_array().unwrap().clone();

    // The paper's method folds the copied snippet.
    let default = json_of(app.clone(), base).await;
    assert_eq!(results(&default).len(), 1, "{default}");
    let dup = &results(&default)[0]["duplicates"][0];
    assert_eq!(dup["stage"], "snippet", "{dup}");
    assert_eq!(dup["similarity"], 1.0);
    assert_eq!(
        results(&default)[0]["engines"],
        serde_json::json!(["a", "b"])
    );

    // URL-only dedup (SearXNG's) keeps both.
    let none = json_of(app.clone(), &format!("{base}&method=none")).await;
    assert_eq!(results(&none).len(), 2, "{none}");
    for r in results(&none) {
        assert_eq!(r["duplicates"], serde_json::json!([]));
    }
    let simhash = json_of(app.clone(), &format!("{base}&method=simhash")).await;
    assert_eq!(results(&simhash).len(), 1, "{simhash}");

    // explain=1 names the feature codes the two snippets share.
    let explained = json_of(app.clone(), &format!("{base}&explain=1")).await;
    let codes = explained["results"][0]["duplicates"][0]["shared_codes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!codes.is_empty(), "{explained}");

    // And the page shows them, with the re-cluster form set to what was asked.
    let (_, html) = get_from(&app, "/search?q=caffeine&explain=1&method=rabin&os2=0.9").await;
    assert!(html.contains("<option value=\"rabin\" selected>"));
    assert!(html.contains("value=\"0.90\""));
    // The shared text around each shared code and the duplicate's own
    // snippet, not 16-digit hex codes.
    let dup = &explained["results"][0]["duplicates"][0];
    let shared: Vec<&str> = dup["shared_text"]
        .as_array()
        .expect("shared_text")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let snippet = dup["snippet"].as_str().expect("the duplicate's snippet");
    assert!(
        !shared.is_empty() && shared.iter().all(|t| snippet.contains(t)),
        "{dup}"
    );
    let (_, html) = get_from(&app, "/search?q=caffeine&explain=1").await;
    assert!(html.contains("shared text ("), "{html}");
    assert!(
        html.contains(&format!("<mark class=\"shared\">{}</mark>", shared[0])),
        "{html}"
    );
    assert!(
        html.contains("<q class=\"dup-snippet\">"),
        "the duplicate's snippet"
    );
    assert!(
        !html.contains("shared codes: <code>"),
        "no hex codes where text is known"
    );
    assert!(html.contains("similarity <b>1.00</b>"));
}

#[tokio::test]
async fn a_shortcut_asks_only_its_engine() {
    let (app, ddg, bing) = caffeine_engines(ddg_page(), bing_page(), |_| {}).await;
    let shortcut = support::web_engines()
        .engines
        .iter()
        .find(|e| e.name == "bing")
        .and_then(|e| e.shortcut.to_vec().first().cloned())
        .expect("bing has a shortcut");
    let v = json_of(
        app.clone(),
        &format!(
            "/search?format=json&q={}",
            q(&format!("!{shortcut} {CAFFEINE}"))
        ),
    )
    .await;
    assert_eq!(v["query"], CAFFEINE);
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        assert_eq!(r["engines"], serde_json::json!(["bing"]));
    }
    assert_eq!(ddg.requests(), 0);
    assert!(bing.requests() >= 1);

    // The page says whom it asked.
    let (_, html) = send(
        app,
        Request::get(format!(
            "/search?q={}",
            q(&format!("!{shortcut} {CAFFEINE}"))
        ))
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert!(html.contains("Only from: Bing"));
}

#[tokio::test]
async fn a_failing_engine_is_reported_and_the_other_still_answers() {
    let (app, _ddg, _bing) = caffeine_engines(Behavior::Status(503), bing_page(), |_| {}).await;
    let v = json_of(
        app.clone(),
        &format!("/search?format=json&q={}", q(CAFFEINE)),
    )
    .await;
    let failed = v["unresponsive_engines"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{v}");
    assert_eq!(failed[0][0], "duckduckgo");
    assert!(failed[0][1].as_str().unwrap().contains("503"), "{v}");
    assert!(v["results"].as_array().unwrap().len() >= 8);

    let (resp, html) = send(
        app,
        Request::get(format!("/search?q={}", q(CAFFEINE)))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("1 engine failed"));
    assert!(html.contains("<li class=\"problem\"><span class=\"engine-name\">DuckDuckGo</span>"));
}

#[tokio::test]
async fn pages_are_passed_to_the_engines() {
    let (app, ddg, _bing) = caffeine_engines(ddg_page(), bing_page(), |_| {}).await;
    let (resp, html) = send(
        app,
        Request::get(format!("/search?q={}&pageno=2", q(CAFFEINE)))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let asked = ddg.last_uri().expect("duckduckgo was asked");
    assert!(asked.contains("s=10"), "{asked}");
    assert!(html.contains("rel=\"prev\" href=\"/search?q=does+caffeine+affect+sleep\""));
    assert!(
        html.contains("aria-current=\"page\">2</span>"),
        "page numbers"
    );
}

#[tokio::test]
async fn hostile_engine_text_arrives_inert_and_suggestions_autocomplete() {
    let sx = LoopbackEngine::spawn(Behavior::page(
        serde_json::json!({
            "results": [{
                "url": "https://evil.example/a",
                "title": "Evil &lt;script&gt;alert(1)&lt;/script&gt; title",
                "content": "x &lt;img src=x onerror=alert(2)&gt; y"
            }],
            "suggestions": ["caffeine half life", "<b>bold</b> idea"]
        })
        .to_string(),
        "application/json",
    ))
    .await;
    let mut config = config("[server]\nautocomplete = \"sx\"\n");
    config.engines = vec![support::test_engine_config("sx", &sx.base_url())];
    let app = app_with(config);

    let (resp, html) = get_from(&app, "/search?q=caffeine").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("Evil"), "the result is shown");
    for raw in ["<script>alert(1)", "<img src=x", "<b>bold</b>"] {
        assert!(!html.contains(raw), "{raw} reached the page raw");
    }

    let (resp, body) = get_from(&app, "/autocomplete?q=caffeine").await;
    assert_eq!(resp.status(), StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v[0], "caffeine");
    assert_eq!(v[1][0], "caffeine half life");
}

// ---- re-clustering the cached answers (issue #6) ----------------------------

/// An app over the shipped presets pointed at loopback servers answering
/// `support::own_pages::rust_tutorial`, with an in-memory cache (as `metasift serve` has).
async fn js_engines() -> (axum::Router, Vec<LoopbackEngine>) {
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &support::own_pages::RUST_ENGINES);
    let mut engines = Vec::new();
    for name in support::own_pages::RUST_ENGINES {
        let engine = LoopbackEngine::spawn(Behavior::rust_tutorial(name)).await;
        support::point_at(&mut config, name, &engine.base_url());
        engines.push(engine);
    }
    config.limits.per_minute = 0;
    // The re-clustering stories below (similarities 0.25, who joins at
    // os2 = 0.2) were read off punctuation-only feature codes; the shipped
    // word anchors (issue #2) make the similarities finer and change them.
    config.dedup.word_anchors = 0;
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(metasift::ops::cache::Cache::memory(
        std::time::Duration::from_secs(60),
        16 << 20,
    ));
    (web::router(AppState::new(searcher)), engines)
}

fn asked(engines: &[LoopbackEngine]) -> Vec<usize> {
    engines.iter().map(LoopbackEngine::requests).collect()
}

/// Titles and `engine #position` of a change's members, kept one first.
fn members(change: &serde_json::Value) -> Vec<String> {
    change["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{} #{}", m["engine"].as_str().unwrap(), m["position"]))
        .collect()
}

/// The HTML of the "compared with the configured settings" panel.
fn compare_panel(html: &str) -> &str {
    let start = html
        .find("<section class=\"compare\"")
        .expect("the page has the comparison panel");
    let end = start + html[start..].find("</section>").unwrap() + "</section>".len();
    &html[start..end]
}

#[tokio::test]
async fn other_settings_recluster_the_cached_answers_and_name_what_changed() {
    let (app, engines) = js_engines().await;
    let q = q("rust tutorial");

    // The configured settings: one fan-out, no comparison.
    let plain = json_of(app.clone(), &format!("/search?format=json&q={q}")).await;
    assert_eq!(asked(&engines), [1; 6]);
    assert!(
        plain.get("comparison").is_none(),
        "only when settings differ"
    );
    let (_, html) = get_from(&app, &format!("/search?q={q}")).await;
    assert!(!html.contains("class=\"compare\""));
    assert_eq!(asked(&engines), [1; 6], "the page came from the cache");

    // os1 = os2 = 0.2: the same answers fused again, no fan-out. Two groups
    // form, each from a group of six and the two records of a partial copy
    // on another site (the same first clause, then other words): "Learn Rust
    // fast" joins Rust by Example at snippet similarity 0.43, "Summary of the
    // Rust book" joins the book at 0.40 (both < os2 0.8 before).
    let (resp, html) = get_from(&app, &format!("/search?q={q}&os1=0.2&os2=0.2")).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(asked(&engines), [1; 6], "re-clustered without asking again");
    assert!(html.contains(" · cached"), "answers from the cache");
    let panel = compare_panel(&html);
    assert!(panel.contains("Configured: <b>feature-code, os1 0.50, os2 0.80</b>"));
    assert!(panel.contains("This page: <b>feature-code, os1 0.20, os2 0.20</b>"));
    assert!(panel.contains("<b>40</b> results → <b>38</b>"), "{panel}");
    assert!(panel.contains("<span class=\"engine\">Brave Search #15</span> <span class=\"how\">snippet · similarity 0.43</span>"), "{panel}");
    assert!(panel.contains("2 formed</span>, <span class=\"count-joined\">0 joined"));
    assert!(panel.contains("8 records became one group, from records of 2 groups"));
    assert!(panel.contains("<span class=\"engine\">Mojeek #1</span> <span class=\"how\">title · similarity 1.00</span>"), "{panel}");
    assert!(!panel.contains("Groups split"));

    let v = json_of(
        app.clone(),
        &format!("/search?format=json&q={q}&os1=0.2&os2=0.2"),
    )
    .await;
    assert_eq!(asked(&engines), [1; 6]);
    let c = &v["comparison"];
    assert_eq!(
        (c["results_before"].as_u64(), c["results_after"].as_u64()),
        (Some(40), Some(38))
    );
    assert_eq!(c["records"], 94);
    assert_eq!(c["requested"]["os2"], 0.2);
    assert_eq!(c["configured"]["os2"], 0.8);
    let formed = c["formed"].as_array().unwrap();
    assert_eq!(formed.len(), 2, "{c}");
    assert_eq!(formed[0]["kind"], "formed");
    assert_eq!(
        members(&formed[0]),
        [
            "brave #1",
            "startpage #1",
            "ecosia #1",
            "bing #2",
            "mojeek #2",
            "yahoo #2",
            "brave #15",
            "yahoo #16"
        ]
    );
    assert_eq!(formed[0]["members"][1]["stage"], "url");
    assert_eq!(formed[0]["members"][6]["stage"], "snippet");
    // 3 of 7 codes.
    assert_eq!(formed[0]["members"][6]["similarity"], 3.0 / 7.0);
    assert_eq!(formed[1]["kind"], "formed");
    assert_eq!(
        members(&formed[1]),
        [
            "bing #1",
            "mojeek #1",
            "yahoo #1",
            "startpage #15",
            "ecosia #15",
            "brave #16",
            "startpage #16",
            "ecosia #16"
        ]
    );
    assert_eq!(formed[1]["members"][1]["stage"], "title");
    assert_eq!(formed[1]["members"][3]["stage"], "snippet");
    assert_eq!(c["split"], serde_json::json!([]));
    // SearXNG's keys are all still there.
    for key in [
        "query",
        "number_of_results",
        "results",
        "unresponsive_engines",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }

    // URL-only dedup (SearXNG's): the book under `/Book/` (Bing's and
    // Startpage's link), folded with `/book/` by its equal title, comes apart.
    let v = json_of(
        app.clone(),
        &format!("/search?format=json&q={q}&method=none"),
    )
    .await;
    assert_eq!(asked(&engines), [1; 6]);
    let c = &v["comparison"];
    assert_eq!(
        (c["results_before"].as_u64(), c["results_after"].as_u64()),
        (Some(40), Some(41)),
        "{c}"
    );
    assert_eq!(c["split"].as_array().map(Vec::len), Some(1), "{c}");
    assert_eq!(c["formed"], serde_json::json!([]));
    let (_, html) = get_from(&app, &format!("/search?q={q}&method=none")).await;
    let panel = compare_panel(&html);
    assert!(panel.contains("Groups split"), "{panel}");

    // explain=1 re-fuses the same answers too; page 2 is the rest of the
    // fused list (38 results at os2 = 0.2, 20 a page); page 3 lies past it:
    // a new fan-out for the engines' page 2.
    json_of(app.clone(), &format!("/search?format=json&q={q}&explain=1")).await;
    assert_eq!(asked(&engines), [1; 6]);
    let v = json_of(
        app.clone(),
        &format!("/search?format=json&q={q}&page=2&os2=0.2"),
    )
    .await;
    assert_eq!(asked(&engines), [1; 6], "page 2 is the fused list's rest");
    assert_eq!(
        (
            v["results"].as_array().unwrap().len(),
            &v["number_of_results"]
        ),
        (18, &serde_json::json!(38)),
        "{v}"
    );
    json_of(
        app.clone(),
        &format!("/search?format=json&q={q}&page=3&os2=0.2"),
    )
    .await;
    assert_eq!(asked(&engines), [2; 6], "page 3 is other answers");
    let (_, metrics) = get_from(&app, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "metasift_cache_misses_total 2"),
        "{metrics}"
    );
}

#[tokio::test]
async fn the_comparison_panel_snapshot() {
    let (app, _engines) = js_engines().await;
    let (_, html) = get_from(
        &app,
        &format!("/search?q={}&os1=0.3&os2=0.15", q("rust tutorial")),
    )
    .await;
    insta::assert_snapshot!("comparison_panel", compare_panel(&html));
    // The form keeps the search and shows the settings in use.
    assert!(html.contains("<input type=\"hidden\" name=\"q\" value=\"rust tutorial\">"));
    assert!(html.contains(
        "id=\"os1\" name=\"os1\" type=\"number\" min=\"0\" max=\"1\" step=\"0.05\" value=\"0.30\""
    ));
    assert!(html.contains("value=\"0.15\""));
}

/// A cached page's JSON (or CSV) is kept rendered with its cache entry
/// (`ops::cache::Renders`), so repeated hits send the same bytes without
/// rendering again — and each format and `limit` still gets its own answer.
#[tokio::test]
async fn cached_answers_are_sent_as_rendered_per_format_and_limit() {
    let (app, engines) = js_engines().await;
    let text = q("rust tutorial");
    let uri = format!("/search?format=json&q={text}");
    // The fan-out, the first hit (rendered and kept), a hit sent as kept.
    let answers = [
        get_from(&app, &uri).await,
        get_from(&app, &uri).await,
        get_from(&app, &uri).await,
    ];
    assert_eq!(asked(&engines), [1; 6]);
    for (resp, body) in &answers {
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(header_of(resp, header::CONTENT_TYPE), "application/json");
        assert_eq!(header_of(resp, header::CACHE_CONTROL), "private, no-store");
        assert_eq!(body, &answers[0].1, "the same answer, cached or not");
    }
    let full: serde_json::Value = serde_json::from_str(&answers[0].1).unwrap();
    let n = full["results"].as_array().unwrap().len();
    assert!(n > 2, "{n}");

    // Another limit on the same entry: its own answer, not the kept one.
    let v = json_of(app.clone(), &format!("{uri}&limit=2")).await;
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert_eq!(v["results"][1], full["results"][1]);
    assert_eq!(get_from(&app, &uri).await.1, answers[0].1);

    // Another format of the same entry: CSV, twice the same.
    let csv_uri = format!("/search?format=csv&q={text}");
    let (resp, csv) = get_from(&app, &csv_uri).await;
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "text/csv; charset=utf-8"
    );
    assert!(
        csv.starts_with("title,url,content,host,engine,score,type"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), n + 1);
    assert_eq!(get_from(&app, &csv_uri).await.1, csv);
    assert_eq!(asked(&engines), [1; 6]);
}
