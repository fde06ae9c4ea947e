//! Time range and safe search for real (issues #29 and #27): the shipped
//! presets, pointed at recording servers on loopback, receive
//! `time_range=day` and `safesearch=2` as their own parameter or cookie;
//! so does every API preset that has a mapping, with the dates computed
//! from the stopped clock, and nothing when neither is asked; `/config`
//! says which engines take them; an engine that cannot be asked for a time
//! range has its dated results checked (undated ones dropped), one that was
//! asked has what it dates before the range dropped, boxes and places are
//! not concerned, and one that gives no dates — or cannot filter adult
//! content under strict safe search — is left out, said on the page and in
//! JSON.
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

// --- The API presets (#27) ------------------------------------------------

// Every API preset of the shipped file, in its order.
use support::own_pages::API_ENGINES as API_PRESETS;

/// The shipped presets `names`, each pointed at its server and on (they
/// ship off), their providers' budgets lifted (these tests count requests,
/// not pace) and the Brave key's absence forgiven (the loopback server asks
/// for none).
fn presets_at(names: &[&str], servers: &[&Recorder]) -> Config {
    let mut config = support::shipped_config();
    support::keep_only(&mut config, names);
    for (name, server) in names.iter().zip(servers) {
        support::point_at(&mut config, name, &server.base);
    }
    for e in &mut config.engines {
        e.max_per_minute = None;
        e.burst = None;
        e.unset_env = None;
    }
    config
}

/// The decoded query pairs of a request's path and query.
fn pairs(uri: &str) -> Vec<(String, String)> {
    let query = uri.split_once('?').map(|(_, q)| q).unwrap_or("");
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The one value of `key` in `uri`, which must hold it exactly once.
fn only_value(uri: &str, key: &str) -> Option<String> {
    let values: Vec<String> = pairs(uri)
        .into_iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v)
        .collect();
    assert!(values.len() <= 1, "{key} sent twice: {uri}");
    values.into_iter().next()
}

/// What each preset must receive for `time_range=week` (and
/// `safesearch=2` where it takes a level) at [`clock`]: each parameter's
/// exact decoded value. Dates are computed here from the clock, apart from
/// the code under test: a week is seven days of seconds.
fn week_strict_expected() -> Vec<(&'static str, Vec<(&'static str, String)>)> {
    let now = jiff::Timestamp::try_from(clock()).unwrap();
    let since = jiff::Timestamp::from_second(now.as_second() - 7 * 86_400).unwrap();
    let f = |t: jiff::Timestamp, fmt: &str| t.strftime(fmt).to_string();
    let day = f(since, "%Y-%m-%d");
    assert_eq!(day, "2024-07-06", "the clock is stopped");
    vec![
        (
            "arxiv",
            vec![(
                "search_query",
                format!(
                    "all:rust borrow AND submittedDate:[{} TO {}]",
                    f(since, "%Y%m%d%H%M"),
                    f(now, "%Y%m%d%H%M")
                ),
            )],
        ),
        ("crossref", vec![("filter", format!("from-pub-date:{day}"))]),
        (
            "semantic_scholar",
            vec![("publicationDateOrYear", format!("{day}:"))],
        ),
        (
            "pubmed",
            vec![(
                "term",
                format!("rust borrow AND {}:3000[dp]", f(since, "%Y/%m/%d")),
            )],
        ),
        (
            "openalex",
            vec![("filter", format!("from_publication_date:{day}"))],
        ),
        ("github", vec![("q", format!("rust borrow pushed:>={day}"))]),
        (
            "stackexchange",
            vec![("fromdate", since.as_second().to_string())],
        ),
        (
            "hackernews",
            vec![(
                "numericFilters",
                format!("created_at_i>{}", since.as_second()),
            )],
        ),
        (
            "brave_videos",
            vec![
                ("freshness", "pw".to_string()),
                ("safesearch", "strict".to_string()),
            ],
        ),
        (
            "peertube",
            vec![
                ("startDate", f(since, "%Y-%m-%dT%H:%M:%SZ")),
                ("nsfw", "false".to_string()),
            ],
        ),
        (
            "brave_news",
            vec![
                ("freshness", "pw".to_string()),
                ("safesearch", "strict".to_string()),
            ],
        ),
    ]
}

/// The parameters that carry a time range or a safe-search level in any
/// API preset: none may be sent when neither is asked.
const CONTROL_KEYS: [&str; 9] = [
    "filter",
    "publicationDateOrYear",
    "fromdate",
    "numericFilters",
    "freshness",
    "startDate",
    "safesearch",
    "nsfw",
    "mature",
];

/// The failure each preset reports for a search (none: it was asked).
fn failures(resp: &SearchResponse) -> std::collections::BTreeMap<String, Option<FailureKind>> {
    resp.engines
        .iter()
        .map(|r| (r.engine.clone(), r.failure.filter(|f| f.is_left_out())))
        .collect()
}

#[tokio::test]
async fn each_api_preset_receives_its_documented_time_range_and_safe_search() {
    let mut servers = Vec::new();
    for _ in API_PRESETS {
        servers.push(Recorder::spawn(String::new(), "application/json").await);
    }
    let refs: Vec<&Recorder> = servers.iter().collect();
    let server = |name: &str| {
        let i = API_PRESETS.iter().position(|n| *n == name).unwrap();
        &servers[i]
    };
    // A fresh searcher for each search: the empty answers count as
    // failures, and three would rest an engine.
    let run = |range: Option<&'static str>, level: Option<u8>| {
        let s = searcher(presets_at(&API_PRESETS, &refs));
        async move { search(&s, range, level).await }
    };
    let asked = |before: &[usize]| -> Vec<&str> {
        API_PRESETS
            .iter()
            .zip(&servers)
            .zip(before)
            .filter(|((_, s), b)| s.requests().len() > **b)
            .map(|((n, _), _)| *n)
            .collect()
    };
    let counts = || {
        servers
            .iter()
            .map(|s| s.requests().len())
            .collect::<Vec<_>>()
    };
    let first_uri = |name: &str, from: usize| server(name).requests()[from].0.clone();

    // A week, strict.
    let resp = run(Some("week"), Some(2)).await;
    let expected = week_strict_expected();
    for (name, sent) in &expected {
        let uri = first_uri(name, 0);
        for (key, value) in sent {
            assert_eq!(
                only_value(&uri, key).as_deref(),
                Some(value.as_str()),
                "{name}: {key} in {uri}"
            );
        }
    }
    let left = failures(&resp);
    let left_out = |kind| -> Vec<&str> {
        API_PRESETS
            .iter()
            .copied()
            .filter(|n| left[*n] == Some(kind))
            .collect()
    };
    // Boxes from Wikipedia, Wikidata and DuckDuckGo and Commons' pictures
    // cannot filter adult content; Brave's images and Openverse can, but
    // have no date filter and give no dates.
    assert_eq!(
        left_out(FailureKind::NoSafeSearch),
        [
            "wikimedia_commons",
            "wikipedia_summary",
            "wikipedia_summary_zh",
            "wikidata",
            "duckduckgo_instant"
        ]
    );
    assert_eq!(
        left_out(FailureKind::NoTimeRange),
        ["brave_images", "openverse"]
    );
    let none = vec![0; API_PRESETS.len()];
    assert_eq!(
        asked(&none),
        [
            "arxiv",
            "crossref",
            "semantic_scholar",
            "pubmed",
            "openalex",
            "github",
            "stackexchange",
            "crates",
            "npm",
            "hackernews",
            "brave_videos",
            "peertube",
            "brave_news",
            "nominatim"
        ],
        "the others are not asked"
    );
    // Crates and npm have no date filter: asked as usual, their dates
    // checked here.
    for name in ["crates", "npm", "nominatim"] {
        let uri = first_uri(name, 0);
        for key in CONTROL_KEYS {
            assert!(only_value(&uri, key).is_none(), "{name}: {key} in {uri}");
        }
    }

    // A week alone: the boxes and places are asked (a time range does not
    // concern them), the undated pictures are not.
    let before = counts();
    let resp = run(Some("week"), None).await;
    let left = failures(&resp);
    for name in API_PRESETS {
        let want = ["brave_images", "wikimedia_commons", "openverse"]
            .contains(&name)
            .then_some(FailureKind::NoTimeRange);
        assert_eq!(left[name], want, "{name}");
    }
    for name in [
        "nominatim",
        "wikipedia_summary",
        "wikipedia_summary_zh",
        "wikidata",
        "duckduckgo_instant",
    ] {
        assert!(asked(&before).contains(&name), "{name} asked");
    }
    for name in ["brave_videos", "brave_news", "peertube"] {
        let uri = first_uri(
            name,
            before[API_PRESETS.iter().position(|n| *n == name).unwrap()],
        );
        for key in ["safesearch", "nsfw"] {
            assert!(only_value(&uri, key).is_none(), "{name}: {uri}");
        }
    }

    // Strict alone: Brave's images and Openverse are asked for it.
    let before = counts();
    let resp = run(None, Some(2)).await;
    assert!(failures(&resp)["brave_images"].is_none());
    let at = |name: &str| before[API_PRESETS.iter().position(|n| *n == name).unwrap()];
    let uri = first_uri("brave_images", at("brave_images"));
    assert_eq!(
        only_value(&uri, "safesearch").as_deref(),
        Some("strict"),
        "{uri}"
    );
    let uri = first_uri("openverse", at("openverse"));
    assert_eq!(
        only_value(&uri, "mature").as_deref(),
        Some("false"),
        "{uri}"
    );
    let uri = first_uri("peertube", at("peertube"));
    assert_eq!(only_value(&uri, "startDate"), None, "{uri}");

    // Nothing asked, nothing sent; the placeholders are emptied.
    let before = counts();
    let resp = run(None, None).await;
    assert!(failures(&resp).values().all(Option::is_none));
    assert_eq!(asked(&before).len(), API_PRESETS.len(), "every one asked");
    for name in API_PRESETS {
        let uri = first_uri(name, at_of(&before, name));
        for key in CONTROL_KEYS {
            assert!(
                only_value(&uri, key).is_none(),
                "{name}: {key} sent unasked: {uri}"
            );
        }
        assert!(
            !uri.contains("time_range") && !uri.contains("safesearch%7D"),
            "{uri}"
        );
    }
    for (name, key) in [
        ("arxiv", "search_query"),
        ("pubmed", "term"),
        ("github", "q"),
    ] {
        let uri = first_uri(name, at_of(&before, name));
        let plain = if name == "arxiv" {
            "all:rust borrow"
        } else {
            "rust borrow"
        };
        assert_eq!(only_value(&uri, key).as_deref(), Some(plain), "{name}");
    }
}

/// Where `name`'s requests of a search began, given the counts before it.
fn at_of(before: &[usize], name: &str) -> usize {
    before[API_PRESETS.iter().position(|n| *n == name).unwrap()]
}

#[tokio::test]
async fn config_tells_each_api_preset_s_time_range_and_safe_search_truthfully() {
    let mut config = support::shipped_config();
    for e in &mut config.engines {
        if API_PRESETS.contains(&e.name.as_str()) {
            e.enabled = true;
            e.unset_env = None;
        }
    }
    let app = support::router::app_with(config);
    let json = get_json(&app, "/config").await;
    // (name, time_range_support, safesearch, time_range_checked)
    let want: [(&str, bool, bool, bool); 21] = [
        ("arxiv", true, true, true),
        ("crossref", true, true, true),
        ("semantic_scholar", true, true, true),
        ("pubmed", true, true, true),
        ("openalex", true, true, true),
        ("github", true, true, true),
        ("stackexchange", true, true, true),
        ("crates", false, true, true),
        ("npm", false, true, true),
        ("hackernews", true, true, true),
        ("brave_images", false, true, false),
        ("wikimedia_commons", false, false, false),
        ("openverse", false, true, false),
        ("brave_videos", true, true, true),
        ("peertube", true, true, true),
        ("brave_news", true, true, true),
        ("nominatim", false, true, false),
        ("wikipedia_summary", false, false, false),
        ("wikipedia_summary_zh", false, false, false),
        ("wikidata", false, false, false),
        ("duckduckgo_instant", false, false, false),
    ];
    for (name, time_range, safe, checked) in want {
        let e = json["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} in /config"));
        assert_eq!(e["time_range_support"], time_range, "{name}");
        assert_eq!(e["safesearch"], safe, "{name}");
        assert_eq!(e["time_range_checked"], checked, "{name}");
    }
}

/// The science presets' answers, ours, in each API's documented shape: for
/// each engine a paper from March 2024 (inside a year before [`clock`]) and
/// one from May 2022 (outside); Semantic Scholar also one without a date.
fn science_answers() -> Vec<(&'static str, String, &'static str)> {
    let entry = |id: &str, date: &str, title: &str| {
        format!(
            r#"<entry><id>http://arxiv.org/abs/{id}v1</id><updated>{date}</updated><published>{date}</published>
<title>{title}</title><summary>{title}, explained for the working programmer.</summary><author><name>A. Author</name></author>
<link href="http://arxiv.org/abs/{id}v1" rel="alternate" type="text/html"/>
<link title="pdf" href="http://arxiv.org/pdf/{id}v1" rel="related" type="application/pdf"/></entry>"#
        )
    };
    let arxiv = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
<title>arXiv Query: search_query=all:rust borrow</title><id>http://arxiv.org/api/q</id>
<updated>2024-07-13T00:00:00-04:00</updated><opensearch:totalResults>2</opensearch:totalResults>
{}
{}
</feed>"#,
        entry(
            "2403.01234",
            "2024-03-01T10:00:00Z",
            "Polonius: a new borrow checker for Rust"
        ),
        entry(
            "2205.05678",
            "2022-05-01T10:00:00Z",
            "Stacked borrows as an aliasing model"
        )
    );
    let crossref = serde_json::json!({"status": "ok", "message-type": "work-list", "message": {
    "total-results": 2,
    "items": [
        {"DOI": "10.1000/cr-recent", "URL": "https://doi.org/10.1000/cr-recent",
         "title": ["Ownership types in systems languages"], "published": {"date-parts": [[2024, 3, 1]]},
         "created": {"date-parts": [[2024, 3, 2]], "date-time": "2024-03-02T08:00:00Z", "timestamp": 1709366400000_i64},
         "author": [{"given": "Ada", "family": "Byron"}], "container-title": ["J. Rust"]},
        {"DOI": "10.1000/cr-old", "URL": "https://doi.org/10.1000/cr-old",
         "title": ["Linear capabilities for memory safety"], "published": {"date-parts": [[2022, 5, 1]]},
         "created": {"date-parts": [[2022, 5, 2]], "date-time": "2022-05-02T08:00:00Z", "timestamp": 1651478400000_i64},
         "author": [{"given": "Bo", "family": "Chen"}], "container-title": ["J. Rust"]}
    ]}});
    let s2 = serde_json::json!({"total": 3, "offset": 0, "data": [
        {"paperId": "s2recent", "title": "Verifying unsafe code with separation logic", "abstract": "Recent.",
         "publicationDate": "2024-03-01", "authors": [{"name": "C. D."}]},
        {"paperId": "s2old", "title": "Region inference revisited", "abstract": "Old.",
         "publicationDate": "2022-05-01", "authors": [{"name": "E. F."}]},
        {"paperId": "s2undated", "title": "A survey of affine type systems", "abstract": "Undated.",
         "publicationDate": null, "authors": [{"name": "G. H."}]}
    ]});
    let openalex = serde_json::json!({"meta": {"count": 2}, "results": [
        {"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1000/oa-recent",
         "display_name": "Lifetime elision in practice", "publication_date": "2024-03-01", "authorships": []},
        {"id": "https://openalex.org/W2", "doi": "https://doi.org/10.1000/oa-old",
         "display_name": "Garbage collection versus ownership", "publication_date": "2022-05-01", "authorships": []}
    ]});
    let esearch = r#"<?xml version="1.0" encoding="UTF-8" ?>
<eSearchResult><Count>2</Count><RetMax>2</RetMax><RetStart>0</RetStart><IdList>
<Id>39000001</Id>
<Id>35000002</Id>
</IdList><TranslationSet/></eSearchResult>"#
        .to_string();
    let docsum = |id: &str, pubdate: &str, sort: &str, title: &str| {
        format!(
            r#"<DocSum><Id>{id}</Id><Item Name="PubDate" Type="Date">{pubdate}</Item><Item Name="EPubDate" Type="Date"></Item>
<Item Name="Source" Type="String">J Rust Med</Item><Item Name="AuthorList" Type="List"><Item Name="Author" Type="String">Doe J</Item></Item>
<Item Name="Title" Type="String">{title}</Item><Item Name="FullJournalName" Type="String">Journal of Rust Medicine</Item>
<Item Name="SortPubDate" Type="Date">{sort}</Item></DocSum>"#
        )
    };
    let esummary = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<eSummaryResult>\n{}\n{}\n</eSummaryResult>",
        docsum(
            "39000001",
            "2024 Mar 1",
            "2024/03/01 00:00",
            "Memory-safe firmware for medical devices"
        ),
        docsum(
            "35000002",
            "2022 May",
            "2022/05/01 00:00",
            "Static analysis of pacemaker software"
        )
    );
    vec![
        ("arxiv", arxiv, "application/atom+xml"),
        ("crossref", crossref.to_string(), "application/json"),
        ("semantic_scholar", s2.to_string(), "application/json"),
        ("openalex", openalex.to_string(), "application/json"),
        ("pubmed", esearch, "text/xml"),
        ("pubmed_summary", esummary, "text/xml"),
    ]
}

#[tokio::test]
async fn a_science_search_for_the_past_year_returns_no_paper_dated_before_it() {
    let mut servers = Vec::new();
    for (_, body, content_type) in science_answers() {
        servers.push(Recorder::spawn(body, content_type).await);
    }
    let names = [
        "arxiv",
        "crossref",
        "semantic_scholar",
        "openalex",
        "pubmed",
    ];
    let refs: Vec<&Recorder> = servers.iter().take(names.len()).collect();
    let mut config = presets_at(&names, &refs);
    // PubMed's second call goes to a server of its own.
    support::point_follow_at(&mut config, "pubmed", &servers[5].base);
    let app = app(config);

    let json = get_json(
        &app,
        "/search?q=rust+borrow&format=json&categories=science&time_range=year",
    )
    .await;
    // A calendar year before the clock, from the start of its day.
    let now = jiff::Timestamp::try_from(clock()).unwrap();
    let start = now
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .checked_sub(jiff::Span::new().years(1))
        .unwrap();
    let start_day = start.date().to_string();
    assert_eq!(start_day, "2023-07-13", "the clock is stopped");
    // Each engine was asked for the year its own way.
    let uri = |i: usize| servers[i].requests()[0].0.clone();
    assert_eq!(
        only_value(&uri(1), "filter").as_deref(),
        Some("from-pub-date:2023-07-13")
    );
    assert_eq!(
        only_value(&uri(2), "publicationDateOrYear").as_deref(),
        Some("2023-07-13:")
    );
    assert_eq!(
        only_value(&uri(3), "filter").as_deref(),
        Some("from_publication_date:2023-07-13")
    );
    assert!(
        only_value(&uri(0), "search_query")
            .unwrap()
            .ends_with(&format!(
                " AND submittedDate:[{} TO {}]",
                start.strftime("%Y%m%d%H%M"),
                now.strftime("%Y%m%d%H%M")
            )),
        "{}",
        uri(0)
    );
    assert!(
        only_value(&uri(4), "term")
            .unwrap()
            .ends_with(" AND 2023/07/13:3000[dp]")
    );

    // The loopback engines ignored the filter; the fused list did not.
    let results = json["results"].as_array().unwrap();
    let urls: Vec<&str> = results.iter().map(|r| r["url"].as_str().unwrap()).collect();
    for r in results {
        assert_eq!(r["template"], "paper.html", "{r}");
        if let Some(date) = r["publishedDate"].as_str() {
            assert!(
                date >= start_day.as_str(),
                "{} dated {date}, before the year asked",
                r["url"]
            );
        }
    }
    let has = |id: &str| urls.iter().any(|u| u.contains(id));
    for recent in [
        "2403.01234",
        "cr-recent",
        "s2recent",
        "oa-recent",
        "39000001",
    ] {
        assert!(has(recent), "{recent} kept: {urls:?}");
    }
    // An engine that was passed the range keeps what it gives undated.
    assert!(has("s2undated"), "{urls:?}");
    let old = ["2205.05678", "cr-old", "s2old", "oa-old"];
    for o in old {
        assert!(!has(o), "{o} left out: {urls:?}");
    }
    // PubMed's old paper goes too once its dates are read; either way what
    // was dropped is counted.
    let pubmed_old = has("35000002");
    assert_eq!(
        json["time_range_dropped"],
        old.len() + usize::from(!pubmed_old),
        "{json}"
    );

    // Without a range every paper is there.
    let all = get_json(&app, "/search?q=rust+borrow&format=json&categories=science").await;
    assert_eq!(all["results"].as_array().unwrap().len(), 11, "{all}");
}

/// One of our own answers in `tests/data/api/`.
fn own_answer(file: &str) -> String {
    let path = support::crate_dir().join("tests/data/api").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test]
async fn an_it_search_for_the_past_year_checks_the_packages_dates_and_passes_stack_exchange_its_own()
 {
    let names = ["crates", "npm", "stackexchange"];
    let mut servers = Vec::new();
    for name in names {
        servers
            .push(Recorder::spawn(own_answer(&format!("{name}.json")), "application/json").await);
    }
    let refs: Vec<&Recorder> = servers.iter().collect();
    let app = app(presets_at(&names, &refs));
    let with = get_json(
        &app,
        "/search?q=rust&format=json&categories=it&time_range=year",
    )
    .await;
    let without = get_json(&app, "/search?q=rust&format=json&categories=it").await;

    // Stack Exchange was sent the year's start in Unix seconds; crates.io
    // and npm, which have no date filter, nothing.
    let now = jiff::Timestamp::try_from(clock()).unwrap();
    let start = now
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .checked_sub(jiff::Span::new().years(1))
        .unwrap()
        .timestamp();
    let first = |i: usize| servers[i].requests()[0].0.clone();
    assert_eq!(
        only_value(&first(2), "fromdate"),
        Some(start.as_second().to_string())
    );
    for i in [0, 1] {
        for key in CONTROL_KEYS {
            assert!(only_value(&first(i), key).is_none(), "{}", first(i));
        }
    }
    let start_day = start.strftime("%Y-%m-%d").to_string();
    let results = with["results"].as_array().unwrap();
    for r in results {
        let date = r["publishedDate"]
            .as_str()
            .unwrap_or_else(|| panic!("dated: {r}"));
        assert!(date >= start_day.as_str(), "{r}");
    }
    for name in names {
        assert!(
            results.iter().any(|r| r["engine"] == name),
            "{name} keeps its recent ones: {with}"
        );
    }
    let dropped = with["time_range_dropped"].as_u64().unwrap_or(0);
    assert!(dropped > 0, "{with}");
    assert_eq!(
        results.len() as u64 + dropped,
        without["results"].as_array().unwrap().len() as u64,
        "every result is either shown or counted as dropped"
    );
}
