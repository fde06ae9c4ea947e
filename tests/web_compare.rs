//! Re-clustering the cached engine answers under other dedup settings
//! (issue #6): what changed, the comparison panel, cached renderings.
//!
//! Run with `cargo test --test web_compare`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_app.rs"]
mod web_app;

use std::sync::Arc;

use axum::http::{StatusCode, header};
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::router::{get_from, header_of};
use support::{Behavior, LoopbackEngine};
use web_app::{json_of, q};

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
