//! The web front end's renderings of a fixed response
//! (`tests/data/web_response.toml`): insta snapshots of the HTML, JSON, CSV
//! and RSS, inert engine text, `limit`.
//!
//! Routes and hostile input are in `web_routes.rs`, member engines on
//! loopback in `web_engines.rs`, re-clustering cached answers in
//! `web_compare.rs`.
//!
//! Run with `cargo test --test web`.

#[path = "support/mod.rs"]
mod support;

use metasift::config::Config;
use metasift::model::SearchResponse;
use metasift::output::{self, searxng};
use metasift::web::{SearchParams, pages};
use support::router::config;

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
    // Signed links (site icons, thumbnails) carry a signature made with a
    // key drawn at start.
    let mut signed = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(i) = rest.find(";h=") {
        signed.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len());
        signed.push_str("[signature]");
        rest = &rest[end..];
    }
    signed.push_str(rest);
    signed
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
