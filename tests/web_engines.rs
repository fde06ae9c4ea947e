//! The web front end asking member engines on loopback
//! (`tests/data/web_engines.toml` pointed at `tests/support` servers
//! answering with saved real pages): fusion, re-clustering by query string,
//! shortcuts, failures, pages, hostile engine text.
//!
//! Run with `cargo test --test web_engines`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_app.rs"]
mod web_app;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use metasift::config::Config;
use support::router::{app_with, config, get_from, send};
use support::{Behavior, LoopbackEngine};
use web_app::{json_of, q};

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
