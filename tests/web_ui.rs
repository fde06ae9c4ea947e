//! The searcher's side of the web front end, through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket) unless a test says otherwise:
//! SearXNG's root-path search and `/config`, the streamed results page,
//! honest empty and failed states, page numbers.
//!
//! Run with `cargo test --test web_ui`.

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::router::{app_with, between, config, header_of, send};

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

/// The shipped `engines.toml` names an autocomplete source, so a browser
/// that adds metasift gets suggestions: Wikipedia's title prefix search
/// (here a loopback server answering in the MediaWiki API's shape).
#[tokio::test]
async fn the_shipped_config_has_an_autocomplete_source() {
    let mut config = support::shipped_config();
    let name = config
        .server
        .autocomplete
        .clone()
        .expect("an autocomplete source");
    let preset = config
        .engines
        .iter()
        .find(|e| e.name == name)
        .expect("a preset");
    assert!(
        preset.parse.suggestions.is_some(),
        "{name} gives suggestions"
    );
    assert!(!preset.enabled, "{name} is not asked by searches");
    let api = support::LoopbackEngine::spawn(support::Behavior::page(
        r#"{"batchcomplete":"","query":{"prefixsearch":[
            {"ns":0,"title":"Rust (programming language)","pageid":29414838},
            {"ns":0,"title":"Rust","pageid":26196}]}}"#,
        "application/json",
    ))
    .await;
    support::point_at(&mut config, &name, &api.base_url());
    support::keep_only(&mut config, &[name.as_str()]);
    let (resp, body) = send(
        app_with(config),
        Request::get("/autocomplete?q=rus")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(body, r#"["rus",["Rust (programming language)","Rust"]]"#);
    assert!(api.last_uri().unwrap().contains("pssearch=rus"));
}

/// OpenSearch and RSS links point where the request reached the server
/// when `base_url` is unset (`serve --bind 127.0.0.1:18888` no longer
/// advertises port 8888).
#[tokio::test]
async fn opensearch_and_rss_links_follow_the_request() {
    let (_, xml) = send(
        app(),
        Request::get("/opensearch.xml")
            .header(header::HOST, "127.0.0.1:18888")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(
        xml.contains("template=\"http://127.0.0.1:18888/search?q={searchTerms}\""),
        "{xml}"
    );
    assert!(!xml.contains(":8888/"), "{xml}");
    let (_, rss) = send(
        app(),
        Request::get("/search?q=rust&format=rss")
            .header(header::HOST, "127.0.0.1:18888")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(rss.contains("http://127.0.0.1:18888/"), "{rss}");
    assert!(!rss.contains(":8888/"), "{rss}");
}

/// `publishedDate`, `thumbnail` / `img_src` and `number_of_results` in the
/// JSON, from real saved answers: Google News' RSS (`pubDate`), Brave's API
/// (`page_age`, `thumbnail.src` through `[engine.parse] date / thumbnail`)
/// and Wikipedia's (`totalhits` through `total`).
#[tokio::test]
async fn dates_images_and_estimates_reach_searxng_clients() {
    let news = support::LoopbackEngine::spawn(support::Behavior::news("google_news")).await;
    let brave = support::LoopbackEngine::spawn(support::Behavior::news("brave_api")).await;
    let wiki = support::LoopbackEngine::spawn(support::Behavior::news("wikipedia")).await;
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &["google_news", "brave_api", "wikipedia"]);
    support::point_at(&mut config, "google_news", &news.base_url());
    support::point_at(&mut config, "brave_api", &brave.base_url());
    support::point_at(&mut config, "wikipedia", &wiki.base_url());
    // The preset reads its token from BRAVE_API_KEY; give it one, as an
    // admin would (an engine whose variable is unset is never asked).
    let brave_api = config.engines.iter_mut().find(|e| e.name == "brave_api");
    let brave_api = brave_api.unwrap();
    brave_api
        .headers
        .insert("X-Subscription-Token".into(), "YOUR-TOKEN".into());
    brave_api.unset_env = None;
    let (_, body) = send(
        app_with(config),
        Request::get("/search?q=x&format=json&engines=google_news,brave_api,wikipedia")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let results = v["results"].as_array().unwrap();
    let of = |engine: &str| {
        results
            .iter()
            .filter(|r| r["engines"].as_array().unwrap().iter().any(|e| e == engine))
            .collect::<Vec<_>>()
    };
    // RSS pubDate "Sat, 30 May 2026 07:00:00 GMT" → RFC 3339.
    let dated: Vec<&str> = of("google_news")
        .iter()
        .filter_map(|r| r["publishedDate"].as_str())
        .collect();
    assert!(dated.contains(&"2026-05-30T07:00:00Z"), "{dated:?}");
    // Brave: page_age "2024-01-10T08:30:00" and an imgs.search.brave.com picture.
    let brave_results = of("brave_api");
    assert!(
        brave_results
            .iter()
            .any(|r| r["publishedDate"] == "2024-01-10T08:30:00Z"
                && r["thumbnail"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("https://imgs.search.brave.com/"))
                && r["img_src"] == r["thumbnail"]),
        "{brave_results:?}"
    );
    // A result without a date has publishedDate null, as in SearXNG.
    assert!(of("wikipedia").iter().all(|r| r["publishedDate"].is_null()));
    // Wikipedia's own estimate (`totalhits`, 85 pages) is the engines'
    // estimate, under its own key; `number_of_results` counts the fused
    // results (issue #25).
    assert_eq!(v["estimated_results"], 85);
    let count = v["number_of_results"].as_u64().unwrap();
    assert!(count >= results.len() as u64 && count != 85, "{count}");
}

/// The interface follows `Accept-Language` unless the preferences cookie
/// says otherwise; `lang` is on `<html>`.
#[tokio::test]
async fn the_page_speaks_the_browsers_language_unless_told_otherwise() {
    let get = |accept: &'static str, cookie: Option<&'static str>| {
        let mut req = Request::get("/").header(header::ACCEPT_LANGUAGE, accept);
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, c);
        }
        send(app(), req.body(Body::empty()).unwrap())
    };
    let (_, zh) = get("zh-CN,zh;q=0.9,en;q=0.8", None).await;
    assert!(
        zh.contains("<html lang=\"zh-Hans\" class=\"theme-auto\">"),
        "{zh}"
    );
    assert!(zh.contains("搜索网页") && zh.contains("偏好设置"), "{zh}");
    let (_, en) = get("en-GB,en;q=0.9", None).await;
    assert!(en.contains("<html lang=\"en\"") && en.contains("Search the web"));
    let (_, chosen) = get("zh-CN", Some("metasift_prefs=locale%3Den%26theme%3Ddark")).await;
    assert!(
        chosen.contains("<html lang=\"en\" class=\"theme-dark\">"),
        "{chosen}"
    );
}

/// The preferences form stores a cookie (303 back to the form, which shows
/// the stored values), the share link stores the same, and searches take
/// the stored settings as defaults.
#[tokio::test]
async fn preferences_are_a_plain_form_a_cookie_and_a_link() {
    let (resp, html) = send(
        app(),
        Request::get("/preferences").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("<form class=\"prefs-form\" action=\"/preferences\" method=\"post\">"));
    assert!(!html.contains("<script"));
    let (resp, _) = send(
        app(),
        Request::post("/preferences")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(
                "form=1&locale=zh-Hans&theme=light&category=general&category=it\
                 &language=en&safesearch=2&results=5&method=simhash&os1=0.4&os2=0.8",
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let cookie = header_of(&resp, header::SET_COOKIE);
    assert!(
        cookie.starts_with("metasift_prefs=") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    // The engine left unticked ("nowhere") is switched off.
    let pair = cookie.split(';').next().unwrap().to_string();
    let (_, form) = send(
        app(),
        Request::get("/preferences")
            .header(header::COOKIE, pair.clone())
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(
        form.contains("<html lang=\"zh-Hans\" class=\"theme-light\">"),
        "{form}"
    );
    assert!(form.contains("value=\"it\" checked"), "{form}");
    assert!(
        form.contains("name=\"engine\" value=\"nowhere\">"),
        "unticked: {form}"
    );
    assert!(form.contains("<option value=\"simhash\" selected>"));
    let share = form
        .split("<p class=\"share\">")
        .nth(1)
        .and_then(|s| s.split("href=\"").nth(1))
        .and_then(|s| s.split('"').next())
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    assert!(share.starts_with("/preferences?save=1&"), "{share}");
    // Opening the share link stores the same settings.
    let (resp, _) = send(app(), Request::get(&share).body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        header_of(&resp, header::SET_COOKIE)
            .split(';')
            .next()
            .unwrap(),
        pair
    );
    // A search with the cookie: the stored defaults are in its links.
    let (_, page) = send(
        app(),
        Request::get("/search?q=rust&format=json")
            .header(header::COOKIE, pair)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&page).unwrap();
    assert!(
        v["comparison"].is_object(),
        "simhash differs from [dedup]: {v}"
    );
}

/// Category tabs list the categories the enabled engines serve; the
/// current one is marked; language, time and safe-search selectors keep the
/// request's values.
#[tokio::test]
async fn category_tabs_and_selectors_need_no_script() {
    let (_, html) = send(
        app(),
        Request::get("/search?q=rust&categories=it&time_range=week&safesearch=1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let tabs = between(&html, "<nav class=\"tabs\"", "</nav>");
    assert!(tabs.contains(">General</a>"), "{tabs}");
    assert!(
        tabs.contains("<span class=\"tab current\" aria-current=\"page\">IT</span>"),
        "{tabs}"
    );
    assert!(!tabs.contains("News"), "news-off is disabled: {tabs}");
    assert!(html.contains("<option value=\"week\" selected>"));
    assert!(html.contains("<option value=\"1\" selected>"));
    assert!(!html.contains("<script"));
}

/// `/stats` speaks the reader's language too, and its table headers stay
/// on one line each (`white-space: nowrap` in the stylesheet).
#[tokio::test]
async fn stats_is_readable_in_both_languages() {
    let (_, zh) = send(
        app(),
        Request::get("/stats")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(zh.contains("<html lang=\"zh-Hans\""), "{zh}");
    assert!(
        zh.contains("<h1>引擎状态</h1>") && zh.contains("最近一次失败"),
        "{zh}"
    );
    let (_, en) = send(app(), Request::get("/stats").body(Body::empty()).unwrap()).await;
    assert!(en.contains("<th scope=\"col\">Last failure</th>"), "{en}");
    let (_, css) = send(
        app(),
        Request::get("/static/style.css")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(css.contains(".stats-table thead th { white-space: nowrap;"));
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

/// Error pages speak the reader's language (the preferences cookie, else
/// `Accept-Language`): the title, the status and the sentence; JSON keeps
/// English, what API clients have always read.
#[tokio::test]
async fn error_pages_speak_the_readers_language() {
    let zh = |uri: &str| {
        send(
            app(),
            Request::get(uri)
                .header(header::ACCEPT_LANGUAGE, "zh-CN,zh;q=0.9")
                .body(Body::empty())
                .unwrap(),
        )
    };
    let (resp, page) = zh("/no/such/page").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(page.contains("<html lang=\"zh-Hans\""), "{page}");
    assert!(page.contains("<title>未找到 — metasift</title>"), "{page}");
    assert!(page.contains("<h1>404 未找到</h1>"), "{page}");
    assert!(page.contains("这个地址没有页面"), "{page}");
    let (resp, page) = zh("/search?q=rust&page=99").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(page.contains("<h1>400 请求有误</h1>"), "{page}");
    assert!(
        page.contains("页码 &#34;99&#34; 超出范围：请用 1 到 50 之间的整数")
            || page.contains("页码 &quot;99&quot; 超出范围：请用 1 到 50 之间的整数"),
        "{page}"
    );
    let (_, json) = zh("/search?q=rust&page=99&format=json").await;
    assert!(json.contains("page \\\"99\\\" is out of range"), "{json}");
    // The cookie's language wins over the browser's.
    let (_, page) = send(
        app(),
        Request::get("/no/such/page")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .header(header::COOKIE, "metasift_prefs=locale%3Den")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(page.contains("<h1>404 Not Found</h1>") && page.contains("There is no page"));
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
