//! The searcher's side of the web front end, through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket): what SearXNG clients and
//! browsers read — the root-path search, `/config`, autocomplete,
//! OpenSearch and RSS links, dates, images and estimates.
//!
//! Run with `cargo test --test web_ui_searxng`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_ui_app.rs"]
mod web_ui_app;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use support::router::{app_with, header_of, send};
use web_ui_app::app;

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
