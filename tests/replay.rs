//! Record and replay: a search recorded from loopback engines serving real
//! saved pages (the `does caffeine affect sleep` captures of Bing, DuckDuckGo,
//! Wikipedia and Google News, through the SHIPPED presets) replays, with
//! those engines gone, to an identical fused list.

#[path = "support/mod.rs"]
mod support;

use std::path::PathBuf;

use metasift::model::{FailureKind, SearchResponse};
use metasift::search::recording::{Recording, import_saved_pages};
use metasift::search::{SearchOptions, Searcher};
use support::{Behavior, LoopbackEngine};

const PAGES: [(&str, &str); 4] = [
    ("bing", "bing/celina2026_does-caffeine-affect-sleep.html"),
    (
        "duckduckgo",
        "duckduckgo/celina2026_does-caffeine-affect-sleep_html.html",
    ),
    ("wikipedia", "wikipedia/celina2026_caffeine-sleep.json"),
    (
        "google_news",
        "google_news/celina2026_caffeine-sleep.rss.xml",
    ),
];

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("metasift-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// What must be equal between a live and a replayed search: everything but
/// timings and the cache flag.
fn comparable(resp: &SearchResponse) -> serde_json::Value {
    let mut v = serde_json::to_value(resp).unwrap();
    v["elapsed_ms"] = 0.into();
    v["cached"] = false.into();
    for e in v["engines"].as_array_mut().unwrap() {
        e["elapsed_ms"] = 0.into();
    }
    v
}

#[tokio::test]
async fn a_recorded_search_replays_identically_with_the_engines_gone() {
    let dir = temp_dir("replay");
    let mut config = support::shipped_config();
    let names: Vec<&str> = PAGES.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    let mut servers = Vec::new();
    for (name, page) in PAGES {
        let server = LoopbackEngine::spawn(Behavior::fixture(page)).await;
        support::point_at(&mut config, name, &server.base_url());
        servers.push(server);
    }
    let searcher = Searcher::from_config(config).unwrap();
    let mut query = searcher.parse_query("does caffeine affect sleep", 1);
    query.categories = vec!["general".into(), "news".into()];

    let live = searcher
        .clone()
        .with_recording(Some(dir.clone()), None)
        .search(&query, &SearchOptions::default())
        .await
        .unwrap();
    for report in &live.engines {
        assert!(
            report.failure.is_none() && report.results > 0,
            "live search: {report:?}"
        );
    }
    assert!(live.results.len() >= 10, "{} results", live.results.len());
    for (name, _) in PAGES {
        let rec = Recording::lookup(&dir, name, &query).unwrap();
        assert_eq!(rec.engine, name);
        assert_eq!(rec.response.status, 200);
        assert!(rec.request.url.starts_with("http://127.0.0.1:"));
    }

    // The engines go away: without the recording every one of them fails…
    drop(servers);
    let gone = searcher
        .search(&query, &SearchOptions::default())
        .await
        .unwrap();
    assert!(gone.results.is_empty());
    assert!(gone.engines.iter().all(|r| r.failure.is_some()));

    // …and with it the fused list is the same, bit for bit.
    let replayed = searcher
        .clone()
        .with_recording(None, Some(dir.clone()))
        .search(&query, &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(comparable(&replayed), comparable(&live));

    // A query that was never recorded is reported per engine, not invented.
    let mut other = searcher.parse_query("never recorded", 1);
    other.categories = query.categories.clone();
    let missing = searcher
        .clone()
        .with_recording(None, Some(dir.clone()))
        .search(&other, &SearchOptions::default())
        .await
        .unwrap();
    assert!(missing.results.is_empty());
    for r in &missing.engines {
        assert_eq!(r.failure, Some(FailureKind::NotRecorded), "{r:?}");
        assert!(
            r.reason.as_deref().unwrap().contains("no recording"),
            "{r:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn saved_pages_import_as_recordings_that_parse() {
    let out = temp_dir("import");
    let index = support::crate_dir().join("tests/fixtures/serp/index.json");
    let report = import_saved_pages(&index, &out, |engine, file| {
        // Only the caffeine captures, under the shipped preset names.
        file.contains("celina2026")
            .then(|| engine.to_string())
            .filter(|e| PAGES.iter().any(|(n, _)| n == e))
    })
    .unwrap();
    assert!(report.written.len() >= 4, "{report:?}");

    let mut config = support::shipped_config();
    let names: Vec<&str> = PAGES.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_recording(None, Some(out.clone()));
    // Each page was saved for its own query text (Google News: quoted).
    for (name, text) in [
        ("bing", "does caffeine affect sleep"),
        ("duckduckgo", "does caffeine affect sleep"),
        ("wikipedia", "caffeine sleep"),
        ("google_news", "\"caffeine sleep\""),
    ] {
        let query = searcher.parse_query(&format!("!{name} {text}"), 1);
        let resp = searcher
            .search(&query, &SearchOptions::default())
            .await
            .unwrap();
        let r = resp.engines.iter().find(|r| r.engine == name).unwrap();
        assert!(r.failure.is_none() && r.results >= 1, "{r:?}");
        assert!(!resp.results.is_empty());
    }
    std::fs::remove_dir_all(&out).ok();
}

#[tokio::test]
async fn a_folder_of_saved_pages_replays_directly() {
    // `--replay tests/fixtures/serp`: the index names engine, query and kind;
    // for `javascript tutorial` Bing was captured both blocked (browser) and
    // answering (plain HTTP): the answering page is used.
    let serp = support::crate_dir().join("tests/fixtures/serp");
    let engines = ["brave", "mojeek", "startpage", "yahoo", "bing"];
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &engines);
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_recording(None, Some(serp));
    let resp = searcher
        .search(
            &searcher.parse_query("javascript tutorial", 1),
            &SearchOptions::default(),
        )
        .await
        .unwrap();
    for name in engines {
        let r = resp.engines.iter().find(|r| r.engine == name).unwrap();
        assert!(r.failure.is_none() && r.results >= 5, "{r:?}");
    }
    // Several engines agree on w3schools and MDN: they are fused, not repeated.
    let agreed = resp.results.iter().filter(|r| r.engines.len() >= 3).count();
    assert!(agreed >= 3, "only {agreed} results found by 3+ engines");
}
