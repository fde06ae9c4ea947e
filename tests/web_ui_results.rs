//! The searcher's side of the web front end, through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket) unless a test says otherwise:
//! the streamed results page, honest empty and failed states, results per
//! page and page numbers, the comparison panel in Chinese.
//!
//! Run with `cargo test --test web_ui_results`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_ui_app.rs"]
mod web_ui_app;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::router::{app_with, between, config, send};
use web_ui_app::{NOWHERE, app};

/// Serves `config` on a loopback port; the base URL and the server task.
async fn serve(config: Config) -> (String, tokio::task::JoinHandle<()>) {
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(metasift::ops::cache::Cache::memory(
        Duration::from_secs(60),
        16 << 20,
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, web::router(AppState::new(searcher)))
            .await
            .unwrap();
    });
    (format!("http://{addr}"), task)
}

/// The time to the first byte of the results page, over real sockets, with
/// one engine answering after 2 s: the head (search box, the engines being
/// asked) comes at once; the finished page holds the slow engine's results,
/// fused with the fast one's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_results_page_starts_at_once_and_ends_with_the_slow_engines_results() {
    const SLOW: Duration = Duration::from_secs(2);
    let slow = support::LoopbackEngine::spawn(support::Behavior::Delayed(
        SLOW,
        Box::new(support::Behavior::caffeine("duckduckgo")),
    ))
    .await;
    let fast = support::LoopbackEngine::spawn(support::Behavior::caffeine("bing")).await;
    let mut config = support::web_engines();
    support::point_at(&mut config, "duckduckgo", &slow.base_url());
    support::point_at(&mut config, "bing", &fast.base_url());
    let (base, server) = serve(config).await;
    let client = metasift::search::client_builder().build().unwrap();

    let started = Instant::now();
    let mut resp = client
        .get(format!("{base}/search?q=does+caffeine+affect+sleep"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let first = resp.chunk().await.unwrap().expect("a first chunk");
    let ttfb = started.elapsed();
    let head = String::from_utf8_lossy(&first).into_owned();
    eprintln!("time to first byte: {ttfb:?} ({} bytes)", first.len());
    // Before the slow engine could have answered (it waits 2 s): the head
    // does not wait for the engines, however fast the machine.
    assert!(ttfb < SLOW, "first byte after {ttfb:?}");
    assert!(head.starts_with("<!DOCTYPE html>"), "{head}");
    assert!(head.contains("name=\"q\""), "the search box comes first");
    assert!(
        head.contains("<li>DuckDuckGo</li>") && head.contains("<li>Bing</li>"),
        "the engines being asked are listed: {head}"
    );
    assert!(!head.contains("class=\"results\""), "no results yet");

    // Then a line per engine as it answers: Bing's long before DuckDuckGo's.
    let mut rest = Vec::new();
    let mut fast_line_at = None;
    while let Some(c) = resp.chunk().await.unwrap() {
        let text = String::from_utf8_lossy(&c);
        if fast_line_at.is_none() && text.contains("<li class=\"ok\"><b>Bing</b> 10 results") {
            fast_line_at = Some(started.elapsed());
            assert!(!text.contains("<b>DuckDuckGo</b>"), "{text}");
        }
        rest.extend_from_slice(&c);
    }
    let total = started.elapsed();
    assert!(total >= SLOW, "waited for the slow engine");
    let fast_line_at = fast_line_at.expect("a line for bing");
    assert!(fast_line_at < SLOW, "bing's line at {fast_line_at:?}");
    let tail = String::from_utf8_lossy(&rest);
    assert!(
        tail.contains("<li class=\"ok\"><b>DuckDuckGo</b> 10 results"),
        "{tail}"
    );
    assert!(
        tail.contains("</ul>\n</section>\n<div class=\"answered\" hidden></div>"),
        "{tail}"
    );
    assert!(tail.trim_end().ends_with("</html>"));
    assert!(tail.contains("class=\"results\""));
    // The slow engine's results are in, fused with the fast one's: some
    // result carries both engines.
    assert!(
        tail.contains("<span class=\"engine\">DuckDuckGo #"),
        "{tail}"
    );
    assert!(tail.contains("<span class=\"engine\">Bing #"));
    assert_eq!(slow.requests(), 1);

    // The same search again is a cache hit: ready at once, so one whole
    // document (no list of engines being asked).
    let again = client
        .get(format!("{base}/search?q=does+caffeine+affect+sleep"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!again.contains("class=\"asking\""));
    assert!(again.contains("<span class=\"engine\">DuckDuckGo #"));
    server.abort();
}

#[tokio::test]
async fn a_failed_search_says_so_and_why_on_every_page() {
    for uri in ["/search?q=rust", "/search?q=rust&page=2"] {
        let (resp, html) = send(app(), Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(resp.status(), StatusCode::OK, "{uri}");
        assert!(html.contains("No engine answered"), "{uri}: {html}");
        assert!(
            html.contains("<b>Nowhere</b>: unreachable"),
            "{uri}: {html}"
        );
        assert!(!html.contains("No results for"), "{uri}");
        assert!(!html.contains("fewer"), "{uri}: not the query's fault");
        assert!(html.contains("href=\"/stats\""), "{uri}");
    }
}

/// Engines that answer with nothing: "No results" on page 1 (with advice
/// about the words), "No more results" on a later page.
#[tokio::test]
async fn no_results_only_when_engines_answered_with_nothing() {
    let empty = support::LoopbackEngine::spawn(support::Behavior::page(
        r#"{"items": []}"#,
        "application/json",
    ))
    .await;
    let text = NOWHERE.replace("http://127.0.0.1:9", &empty.base_url());
    let (_, html) = send(
        app_with(config(&text)),
        Request::get("/search?q=rust").body(Body::empty()).unwrap(),
    )
    .await;
    assert!(html.contains("No results for"), "{html}");
    assert!(html.contains("answered, with nothing"));
    assert!(!html.contains("No engine answered"));
    let (_, html) = send(
        app_with(config(&text)),
        Request::get("/search?q=rust&page=3")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(html.contains("No more results"), "{html}");
    assert!(html.contains("page=2\">Back to page 2"), "{html}");
    assert!(!html.contains("fewer"));
}

/// The six engines of `rust tutorial` on loopback, with a cache, and
/// `[server] max_results_per_page = 50`.
async fn js_app() -> (axum::Router, Vec<support::LoopbackEngine>) {
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &support::own_pages::RUST_ENGINES);
    let mut engines = Vec::new();
    for name in support::own_pages::RUST_ENGINES {
        let engine = support::LoopbackEngine::spawn(support::Behavior::rust_tutorial(name)).await;
        support::point_at(&mut config, name, &engine.base_url());
        engines.push(engine);
    }
    config.limits.per_minute = 0;
    assert_eq!(
        (
            config.server.results_per_page,
            config.server.max_page_size()
        ),
        (20, 50),
        "the defaults this test reads"
    );
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(metasift::ops::cache::Cache::memory(
        Duration::from_secs(60),
        16 << 20,
    ));
    (web::router(AppState::new(searcher)), engines)
}

/// The result links of a JSON page, and its `number_of_results`.
async fn json_page(app: &axum::Router, uri: &str, cookie: Option<&str>) -> (Vec<String>, u64) {
    let mut req = Request::get(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    let (resp, body) = send(app.clone(), req.body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::OK, "{uri}: {body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let urls = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect();
    (urls, v["number_of_results"].as_u64().unwrap())
}

/// Results per page is the searcher's choice up to `[server]
/// max_results_per_page`, and pages of any size are slices of the same
/// fused list: together they hold every fused result once, in order, and
/// `number_of_results` does not change with the page size. (The preference
/// used to be applied as a `limit` on pages of the server's size, so with
/// 10 a page, page 2 started at result 21 and results 11–20 were never
/// shown.)
#[tokio::test]
async fn results_per_page_is_the_searchers_choice_and_paging_stays_whole() {
    let (app, engines) = js_app().await;
    let asked = || engines.iter().map(|e| e.requests()).collect::<Vec<_>>();
    let q = "/search?format=json&q=rust+tutorial";
    // The whole fused list of the engines' first page, 50 a page.
    let (all, total) = json_page(&app, q, Some("metasift_prefs=results%3D50")).await;
    assert!(all.len() > 30 && all.len() < 50, "{}", all.len());
    assert_eq!(total, all.len() as u64);
    assert_eq!(asked(), [1; 6]);
    for size in [10usize, 20, 30] {
        let cookie = format!("metasift_prefs=results%3D{size}");
        let mut seen = Vec::new();
        for page in 1..=all.len().div_ceil(size) {
            let (urls, n) = json_page(&app, &format!("{q}&page={page}"), Some(&cookie)).await;
            assert_eq!(n, total, "size {size} page {page}");
            assert_eq!(
                urls.len(),
                size.min(all.len() - seen.len()),
                "size {size} page {page}"
            );
            seen.extend(urls);
        }
        assert_eq!(seen, all, "pages of {size} are the fused list in order");
    }
    assert_eq!(asked(), [1; 6], "every page size slices the cached answers");
    // No preference: the server's 20; a preference above the cap: the cap.
    let (urls, _) = json_page(&app, q, None).await;
    assert_eq!(urls[..], all[..20]);
    let (urls, _) = json_page(&app, q, Some("metasift_prefs=results%3D1000")).await;
    assert_eq!(urls, all);
    // The HTML page numbers follow the page size: 10 a page, 4 pages.
    let (_, html) = send(
        app.clone(),
        Request::get("/search?q=rust+tutorial")
            .header(header::COOKIE, "metasift_prefs=results%3D10")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let pager = between(&html, "<nav class=\"pager\"", "</nav>");
    let last = all.len().div_ceil(10);
    assert!(
        pager.contains(&format!("page={last}\">{last}</a>")),
        "{pager}"
    );
    // The preferences page offers 10, 20 (the default), 30 and 50: the cap.
    let (_, form) = send(
        app.clone(),
        Request::get("/preferences")
            .header(header::COOKIE, "metasift_prefs=results%3D30")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let select = between(
        &form,
        "<select id=\"p-results\" name=\"results\">",
        "</select>",
    );
    assert_eq!(
        select,
        "<option value=\"10\">10</option><option value=\"20\">20 (the server&#39;s default)</option>\
         <option value=\"30\" selected>30</option><option value=\"50\">50</option>"
    );
}

/// The comparison panel's generated headlines and notes are in the
/// reader's language too.
#[tokio::test]
async fn the_comparison_panel_speaks_chinese() {
    let (app, _engines) = js_app().await;
    let (_, html) = send(
        app.clone(),
        Request::get("/search?q=rust+tutorial&os1=0.3&os2=0.15")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let start = html.find("<section class=\"compare\"").expect("the panel");
    let panel = &html[start..start + html[start..].find("</section>").unwrap()];
    assert!(panel.contains("与配置的设置相比"), "{panel}");
    assert!(
        panel.contains("合成一组") || panel.contains("并入了") || panel.contains("拆到了"),
        "{panel}"
    );
    for english in [
        "joined the group",
        "became one group",
        "came apart",
        "was a result of its own",
        "was in a group of",
        ">kept<",
    ] {
        assert!(!panel.contains(english), "{english}: {panel}");
    }
}
