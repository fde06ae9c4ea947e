//! `fusion=` on `/search` in every format and on the comparison panel, and
//! `/lab/fusion`, over the judged set's recordings (`tests/data/judged/`):
//! every engine answers from them, nothing asks the network.
//!
//! Run with `cargo test --test web_fusion`.

#[path = "support/mod.rs"]
mod support;

use std::path::PathBuf;

use axum::http::StatusCode;
use metasift::config::{Config, ConfigSource};
use support::router::{app_with, get_from};

fn judged() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/judged")
}

/// The built-in configuration answering from the judged set's recordings,
/// its folder the lab's data folder.
fn app() -> axum::Router {
    let mut config = Config::load_layered(&ConfigSource::built_in()).unwrap();
    config.apply_recording(None, Some(judged().join("recordings")));
    config.lab.data_dir = Some(judged());
    config.limits.per_minute = 0;
    app_with(config)
}

fn q(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn urls_json(app: &axum::Router, query: &str) -> (Vec<String>, serde_json::Value) {
    let (resp, body) = get_from(app, &format!("/search?format=json&q={query}")).await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let urls = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect();
    (urls, v)
}

#[tokio::test]
async fn fusion_reorders_every_format_and_the_panel_lists_what_moved() {
    let app = app();
    // A judged query whose order the configured method and `position` disagree on.
    let mut found = None;
    for text in [
        "bun javascript runtime",
        "jaguar top speed",
        "mercury retrograde meaning",
        "apple m3 benchmark",
        "crane operator certification",
    ] {
        let (configured, plain) = urls_json(&app, &q(text)).await;
        assert!(
            plain.get("comparison").is_none(),
            "the configured method: no panel"
        );
        let (position, v) = urls_json(&app, &format!("{}&fusion=position", q(text))).await;
        assert_eq!(
            configured.iter().collect::<std::collections::BTreeSet<_>>(),
            position.iter().collect(),
            "{text}: the same results, in another order"
        );
        if configured != position {
            found = Some((text, position, v));
            break;
        }
    }
    let (text, position, v) = found.expect("some judged query is ordered otherwise by position");
    let c = &v["comparison"];
    assert_eq!(c["requested_fusion"]["method"], "position", "{c}");
    assert_eq!(c["configured_fusion"]["method"], "rrf", "{c}");
    assert!(!c["moved"].as_array().unwrap().is_empty(), "{c}");

    // CSV and RSS list the same order as JSON under fusion=position.
    let (resp, csv) = get_from(
        &app,
        &format!("/search?format=csv&q={}&fusion=position", q(text)),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let at = |hay: &str, url: &str| hay.find(url).unwrap_or_else(|| panic!("{url} in {hay}"));
    assert!(at(&csv, &position[0]) < at(&csv, &position[1]), "{csv}");
    let last = position.len() - 1;
    assert!(at(&csv, &position[last - 1]) < at(&csv, &position[last]));
    let (resp, rss) = get_from(
        &app,
        &format!("/search?format=rss&q={}&fusion=position", q(text)),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let xml = |u: &str| u.replace('&', "&amp;");
    assert!(
        at(&rss, &xml(&position[0])) < at(&rss, &xml(&position[1])),
        "{rss}"
    );

    // The page: the panel names both methods and lists the moves; its links
    // keep fusion=.
    let (resp, html) = get_from(&app, &format!("/search?q={}&fusion=position", q(text))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("class=\"compare\""), "{html}");
    assert!(
        html.contains("Results moved by the fusion method"),
        "{html}"
    );
    assert!(
        html.contains("Fusion rrf k=60") && html.contains("Fusion position"),
        "{html}"
    );
    assert!(html.contains("fusion=position"), "links keep the method");

    // An unknown method is refused in the format asked, naming the ones there are.
    let (resp, body) = get_from(&app, "/search?format=json&q=x&fusion=magic").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("combmnz"), "{body}");
    // The preferences offer the methods and keep the choice.
    let (_, prefs) = get_from(&app, "/preferences").await;
    assert!(
        prefs.contains("name=\"fusion\"") && prefs.contains("borda"),
        "{prefs}"
    );
}

#[tokio::test]
async fn the_fusion_lab_page_measures_a_judged_set_of_the_data_folder() {
    let app = app();
    let (resp, html) = get_from(&app, "/lab/fusion").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("judged.qrels"), "the set is offered: {html}");
    let (resp, html) = get_from(&app, "/lab/fusion?set=judged.qrels&k=10").await;
    assert_eq!(resp.status(), StatusCode::OK, "{html}");
    for want in [
        "<svg",
        "nDCG@10",
        "rrf k=60",
        "combmnz",
        "engine bing",
        "q01 bun javascript runtime",
    ] {
        assert!(html.contains(want), "{want}: {html}");
    }
    // Nothing outside the offered sets is read.
    let (resp, _) = get_from(&app, "/lab/fusion?set=..%2F..%2FCargo.toml").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    let (resp, _) = get_from(&app, "/lab/fusion?set=judged.qrels&k=0").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
}
