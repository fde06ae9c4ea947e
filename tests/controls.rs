//! Time range and safe search for real (issues #29 and #27): the shipped
//! presets, pointed at recording servers on loopback, receive
//! `time_range=day` and `safesearch=2` as their own parameter or cookie;
//! `/config` says which engines take them; an engine that cannot be asked
//! for a time range has its dated results checked (undated ones dropped),
//! and one that gives no dates — or cannot filter adult content under
//! strict safe search — is left out, said on the page and in JSON.
//!
//! Run with `cargo test --test controls`.

#[path = "support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::http::{HeaderMap, Request};
use metasift::config::Config;
use metasift::model::{FailureKind, Query, SearchResponse};
use metasift::search::{SearchOptions, Searcher};
use metasift::web::{self, AppState};

/// Every request a recording server saw: path and query, and its `Cookie`.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A server on loopback that records each request and answers `body`.
struct Recorder {
    base: String,
    seen: Seen,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Recorder {
    async fn spawn(body: String, content_type: &'static str) -> Recorder {
        let seen: Seen = Arc::default();
        let log = seen.clone();
        let app = axum::Router::new().fallback(move |headers: HeaderMap, uri: axum::http::Uri| {
            let cookie = headers
                .get("cookie")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            log.lock().unwrap().push((uri.to_string(), cookie));
            let body = body.clone();
            async move { ([(axum::http::header::CONTENT_TYPE, content_type)], body) }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Recorder { base, seen, task }
    }

    fn requests(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

/// 2024-07-13T19:09:59Z, the moment every search of these tests happens at.
fn clock() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_720_897_799)
}

fn searcher(config: Config) -> Searcher {
    Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_clock(clock())
}

async fn search(s: &Searcher, range: Option<&str>, level: Option<u8>) -> SearchResponse {
    // Every engine configured, whatever its category (Google News is news).
    let query = Query {
        text: "rust borrow".into(),
        page: 1,
        engines: s.config().engines.iter().map(|e| e.name.clone()).collect(),
        time_range: range.map(str::to_string),
        safesearch: level,
        ..Query::default()
    };
    s.search(&query, &SearchOptions::default()).await.unwrap()
}

/// The shipped presets that take both, what each must receive for
/// `time_range=day&safesearch=2` at [`clock`]: a piece of the request's
/// path and query, and of its cookie.
const DAY_STRICT: &[(&str, &[&str], &str)] = &[
    ("duckduckgo", &["df=d", "kp=1"], ""),
    ("bing", &["filters=ex1%3A%22ez1%22", "adlt=strict"], ""),
    ("brave", &["tf=pd"], "safesearch=strict"),
    ("brave_api", &["freshness=pd", "safesearch=strict"], ""),
    ("mojeek", &["since=20240712", "safe=1"], ""),
    (
        "startpage",
        &["with_date=d"],
        "preferences=disable_family_filterEEE0N1Ndisable_video_family_filterEEE0",
    ),
    ("yahoo", &["btf=d"], "sB=v=1&vm=r"),
    (
        "baidu",
        &["gpc=stf%3D1720811399%2C1720897799%7Cstftype%3D1"],
        "",
    ),
    ("google_news", &["q=rust+borrow+when%3A1d&"], ""),
    ("searxng", &["time_range=day", "safesearch=2"], ""),
];

#[tokio::test]
async fn each_preset_receives_the_time_range_and_safe_search_as_its_own_parameter() {
    let mut config = support::shipped_config();
    let names: Vec<&str> = DAY_STRICT.iter().map(|(n, _, _)| *n).collect();
    support::keep_only(&mut config, &names);
    let mut servers = Vec::new();
    for name in &names {
        let server = Recorder::spawn(String::new(), "text/html").await;
        support::point_at(&mut config, name, &server.base);
        servers.push(server);
    }
    // Brave's API key is a header from the environment; the loopback
    // server needs none.
    for e in &mut config.engines {
        e.unset_env = None;
    }
    let s = searcher(config);
    let resp = search(&s, Some("day"), Some(2)).await;
    for ((name, pieces, cookie), server) in DAY_STRICT.iter().zip(&servers) {
        let seen = server.requests();
        assert_eq!(seen.len(), 1, "{name} asked once: {seen:?}");
        let (uri, sent_cookie) = &seen[0];
        for piece in *pieces {
            assert!(uri.contains(piece), "{name}: {piece:?} not in {uri}");
        }
        assert!(
            sent_cookie.contains(cookie),
            "{name}: cookie {cookie:?} not in {sent_cookie:?}"
        );
        let report = resp.engines.iter().find(|r| r.engine == *name).unwrap();
        assert!(
            !report.failure.is_some_and(FailureKind::is_left_out),
            "{name} was left out: {report:?}"
        );
    }

    // Nothing asked, nothing sent: the same requests without the two.
    let s2 = {
        let mut config = support::shipped_config();
        support::keep_only(&mut config, &names);
        for (name, server) in names.iter().zip(&servers) {
            support::point_at(&mut config, name, &server.base);
        }
        for e in &mut config.engines {
            e.unset_env = None;
        }
        searcher(config)
    };
    search(&s2, None, None).await;
    for ((name, pieces, cookie), server) in DAY_STRICT.iter().zip(&servers) {
        let seen = server.requests();
        let (uri, sent_cookie) = seen.last().unwrap();
        for piece in *pieces {
            assert!(
                !uri.contains(piece),
                "{name}: {piece:?} sent unasked: {uri}"
            );
        }
        if !cookie.is_empty() {
            assert!(!sent_cookie.contains(cookie), "{name}: {sent_cookie}");
        }
        assert!(!uri.contains("{time_range}"), "{name}: {uri}");
    }
}

#[tokio::test]
async fn a_year_is_a_computed_range_where_the_engine_takes_dates() {
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &["bing", "mojeek", "yahoo"]);
    let bing = Recorder::spawn(String::new(), "text/html").await;
    let mojeek = Recorder::spawn(String::new(), "text/html").await;
    let yahoo = Recorder::spawn(String::new(), "text/html").await;
    support::point_at(&mut config, "bing", &bing.base);
    support::point_at(&mut config, "mojeek", &mojeek.base);
    support::point_at(&mut config, "yahoo", &yahoo.base);
    let resp = search(&searcher(config), Some("year"), None).await;
    // 2023-07-13T19:09:59Z to 2024-07-13T19:09:59Z, in days since 1970.
    assert!(
        bing.requests()[0]
            .0
            .contains("filters=ex1%3A%22ez5_19551_19917%22"),
        "{:?}",
        bing.requests()
    );
    assert!(mojeek.requests()[0].0.contains("since=20230713"));
    // Yahoo has no past-year filter and gives no dates: left out, not asked.
    assert!(yahoo.requests().is_empty());
    let report = resp.engines.iter().find(|r| r.engine == "yahoo").unwrap();
    assert_eq!(report.failure, Some(FailureKind::NoTimeRange));
}

async fn get_json(app: &axum::Router, uri: &str) -> serde_json::Value {
    let (head, body) =
        support::router::send(app.clone(), Request::get(uri).body(Body::empty()).unwrap()).await;
    assert_eq!(head.status(), 200, "{uri}: {body}");
    serde_json::from_str(&body).unwrap()
}

#[tokio::test]
async fn config_says_which_engines_take_a_time_range_and_safe_search() {
    let app = support::router::app_with(support::shipped_config());
    let config = get_json(&app, "/config").await;
    let engine = |name: &str| {
        config["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} in /config"))
            .clone()
    };
    for name in [
        "duckduckgo",
        "bing",
        "brave",
        "mojeek",
        "startpage",
        "brave_api",
        "searxng",
    ] {
        let e = engine(name);
        assert_eq!(e["time_range_support"], true, "{name}");
        assert_eq!(e["safesearch"], true, "{name}");
    }
    let news = engine("google_news");
    assert_eq!(news["time_range_support"], true);
    assert_eq!(news["safesearch"], true, "always filtered");
    assert_eq!(news["time_range_checked"], true, "a feed gives dates");
    for name in ["wikipedia", "ecosia", "ask"] {
        let e = engine(name);
        assert_eq!(e["time_range_support"], false, "{name}");
        assert_eq!(e["safesearch"], false, "{name}");
        assert_eq!(e["time_range_checked"], false, "{name}");
    }
}

/// An RSS feed of three items: one an hour before [`clock`], one three
/// days before, one undated.
fn feed() -> String {
    r#"<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>
<item><title>Fresh borrow checker news</title><link>https://fresh.example/a</link><description>An hour old.</description><pubDate>Sat, 13 Jul 2024 18:09:59 GMT</pubDate></item>
<item><title>Older borrow checker news</title><link>https://older.example/b</link><description>Three days old.</description><pubDate>Wed, 10 Jul 2024 19:09:59 GMT</pubDate></item>
<item><title>Undated borrow checker page</title><link>https://undated.example/c</link><description>No date.</description></item>
</channel></rss>"#
        .to_string()
}

fn two_engines(feed: &Recorder, html: &Recorder, searx: &Recorder) -> Config {
    support::router::config(&format!(
        r#"
[[engine]]
name = "newsfeed"
kind = "feed"
url = "{}/rss?q={{query}}"

[[engine]]
name = "plainweb"
kind = "html"
url = "{}/s?q={{query}}"
[engine.parse]
results = "li"
title = "a"
url = "a@href"

[[engine]]
name = "upstream"
kind = "searxng"
url = "{}/search?q={{query}}&format=json"
[engine.safesearch]
param = "safesearch"
0 = "0"
1 = "1"
2 = "2"
"#,
        feed.base, html.base, searx.base
    ))
}

async fn servers() -> (Recorder, Recorder, Recorder) {
    let html = "<ul><li><a href=\"https://plain.example/p\">Plain borrow page</a></li></ul>";
    let searx = serde_json::json!({"results": [
        {"url": "https://upstream.example/u", "title": "Upstream borrow result", "content": "from upstream",
         "publishedDate": "2024-07-01T00:00:00Z"}
    ]});
    (
        Recorder::spawn(feed(), "application/rss+xml").await,
        Recorder::spawn(html.to_string(), "text/html").await,
        Recorder::spawn(searx.to_string(), "application/json").await,
    )
}

fn app(config: Config) -> axum::Router {
    web::router(AppState::new(searcher(config)))
}

#[tokio::test]
async fn a_time_range_is_checked_on_dated_results_and_engines_without_dates_are_left_out() {
    let (feed, html, searx) = servers().await;
    let app = app(two_engines(&feed, &html, &searx));
    let json = get_json(&app, "/search?q=borrow&format=json&time_range=day").await;
    let urls: Vec<&str> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    // The feed's hour-old item stays; the three-day-old and the undated ones
    // go; so does the upstream's result from 1 July (its dates are checked:
    // this one has no time range table).
    assert_eq!(urls, ["https://fresh.example/a"], "{json}");
    assert_eq!(json["time_range_dropped"], 3, "{json}");
    // The HTML engine gives no dates: left out, never asked, and said.
    assert!(html.requests().is_empty(), "{:?}", html.requests());
    assert!(
        json["unresponsive_engines"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!([
                "plainweb",
                "left out: cannot filter by date"
            ])),
        "{json}"
    );
    let (_, page) = support::router::get_from(&app, "/search?q=borrow&time_range=day").await;
    assert!(
        page.contains("3 results were left out: dated before the time range"),
        "{page}"
    );
    assert!(
        page.contains("The time range left out the engines that can neither be asked for one nor give dates: Plainweb"),
        "{page}"
    );
    assert!(!page.contains("engines failed"), "left out is not failed");

    // A week keeps the three-day-old item; without a range nothing is dropped.
    let week = get_json(&app, "/search?q=borrow&format=json&time_range=week").await;
    assert_eq!(week["results"].as_array().unwrap().len(), 2, "{week}");
    let any = get_json(&app, "/search?q=borrow&format=json").await;
    assert_eq!(any["results"].as_array().unwrap().len(), 5, "{any}");
    assert!(any.get("time_range_dropped").is_none());
}

#[tokio::test]
async fn strict_safe_search_leaves_out_engines_that_cannot_filter_and_says_so() {
    let (feed, html, searx) = servers().await;
    let app = app(two_engines(&feed, &html, &searx));
    let json = get_json(&app, "/search?q=borrow&format=json&safesearch=2").await;
    let unresponsive = json["unresponsive_engines"].as_array().unwrap();
    for name in ["newsfeed", "plainweb"] {
        assert!(
            unresponsive.contains(&serde_json::json!([
                name,
                "left out: cannot filter adult content"
            ])),
            "{json}"
        );
    }
    assert!(feed.requests().is_empty() && html.requests().is_empty());
    // The engine that takes it was asked for it.
    assert!(
        searx.requests()[0].0.contains("safesearch=2"),
        "{:?}",
        searx.requests()
    );
    assert_eq!(json["results"].as_array().unwrap().len(), 1, "{json}");

    for (locale, line) in [
        (
            "en",
            "Strict safe search left out the engines that cannot filter adult content: Newsfeed, Plainweb",
        ),
        (
            "zh-Hans",
            "严格安全搜索未询问这些无法过滤成人内容的引擎：Newsfeed, Plainweb",
        ),
    ] {
        let req = Request::get("/search?q=borrow&safesearch=2")
            .header("cookie", format!("metasift_prefs=locale%3D{locale}"))
            .body(Body::empty())
            .unwrap();
        let (_, page) = support::router::send(app.clone(), req).await;
        assert!(page.contains(line), "{locale}: {page}");
    }
    // Moderate is sent where it can be and asks everyone.
    let moderate = get_json(&app, "/search?q=borrow&format=json&safesearch=1").await;
    assert!(
        moderate["unresponsive_engines"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{moderate}"
    );
    assert!(searx.requests().last().unwrap().0.contains("safesearch=1"));
}

#[test]
fn a_bad_mapping_is_refused_with_its_line() {
    let text = r#"[[engine]]
name = "e"
kind = "html"
url = "https://e.example/s?q={query}"
[engine.parse]
results = "li"
title = "a"
url = "a@href"
[engine.time_range]
param = "df"
day = "{since:%Y-%m-%d"
"#;
    let errors = metasift::engines::check_config(text, std::path::Path::new("bad.toml"))
        .expect_err("refused");
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert!(
        shown
            .iter()
            .any(|e| e.starts_with("bad.toml:11:") && e.contains("engine.time_range")),
        "{shown:?}"
    );
    let text = text.replace(
        "url = \"https://e.example/s?q={query}\"",
        "url = \"https://e.example/s?q={query}{safesearch}\"",
    );
    let errors = metasift::engines::check_config(&text, std::path::Path::new("bad.toml"))
        .expect_err("refused");
    assert!(
        errors.iter().any(|e| e
            .to_string()
            .contains("{safesearch} needs an [engine.safesearch] table")),
        "{errors:?}"
    );
}
