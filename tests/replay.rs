//! Record and replay: a search recorded from loopback engines serving pages
//! we write in the engines' markup (`does caffeine affect sleep` on Bing,
//! DuckDuckGo, Wikipedia and Google News, through the SHIPPED presets)
//! replays, with those engines gone, to an identical fused list; a folder of
//! saved pages with an `index.json` (the layout of the team's data folder's
//! `serp/`) imports as recordings and replays directly.

#[path = "support/mod.rs"]
mod support;

use std::path::PathBuf;

use metasift::model::{FailureKind, SearchResponse};
use metasift::search::recording::{Recording, import_saved_pages};
use metasift::search::{SearchOptions, Searcher};
use support::{Behavior, LoopbackEngine};

const PAGES: [&str; 4] = ["bing", "duckduckgo", "wikipedia", "google_news"];

/// `engine`'s page of ours for the caffeine query.
fn page_of(engine: &str) -> support::own_pages::Page {
    use support::own_pages as own;
    match engine {
        "bing" | "duckduckgo" => own::results(engine, own::CAFFEINE, &own::caffeine(engine)),
        _ => own::results(engine, own::CAFFEINE, &own::news(engine)),
    }
}

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
    // When the answers were fetched is the run's, not the recording's.
    if let Some(o) = v.as_object_mut() {
        o.remove("fetched_at_ms");
    }
    for e in v["engines"].as_array_mut().unwrap() {
        e["elapsed_ms"] = 0.into();
    }
    v
}

#[tokio::test]
async fn a_recorded_search_replays_identically_with_the_engines_gone() {
    let dir = temp_dir("replay");
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &PAGES);
    let mut servers = Vec::new();
    for name in PAGES {
        let server = LoopbackEngine::spawn(Behavior::own(page_of(name))).await;
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
    for name in PAGES {
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
    let saved = temp_dir("import-saved");
    let queries = [
        ("bing", "does caffeine affect sleep"),
        ("duckduckgo", "does caffeine affect sleep"),
        ("wikipedia", "caffeine sleep"),
        ("google_news", "\"caffeine sleep\""),
    ];
    let pages: Vec<_> = queries.iter().map(|(e, q)| (*e, *q, page_of(e))).collect();
    let index = support::write_serp_folder(&saved, &pages).join("index.json");
    let report = import_saved_pages(&index, &out, |engine, file| {
        // Our pages only, under the shipped preset names.
        file.contains("ours_")
            .then(|| engine.to_string())
            .filter(|e| PAGES.contains(&e.as_str()))
    })
    .unwrap();
    assert_eq!(report.written.len(), 4, "{report:?}");

    let mut config = support::shipped_config();
    support::keep_only(&mut config, &PAGES);
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_recording(None, Some(out.clone()));
    // Each page was saved for its own query text (Google News: quoted).
    for (name, text) in queries {
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
    std::fs::remove_dir_all(&saved).ok();
}

#[tokio::test]
async fn a_folder_of_saved_pages_replays_directly() {
    // `--replay DIR` of saved pages: the index names engine, query and kind;
    // Bing is saved both blocked and answering for the query: the
    // answering page is used.
    use support::own_pages as own;
    let engines = ["brave", "mojeek", "startpage", "yahoo", "bing"];
    let dir = temp_dir("replay-folder");
    let pages: Vec<_> = engines
        .iter()
        .map(|e| {
            (
                *e,
                own::RUST_TUTORIAL,
                own::results(e, own::RUST_TUTORIAL, &own::rust_tutorial(e)),
            )
        })
        .collect();
    let serp = support::write_serp_folder(&dir, &pages);
    std::fs::write(
        serp.join("bing/ours_blocked.html"),
        own::blocked("bing").unwrap().body,
    )
    .unwrap();
    let mut index: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(serp.join("index.json")).unwrap()).unwrap();
    index.insert(
        0,
        serde_json::json!({"file": "bing/ours_blocked.html", "engine": "bing",
            "query": own::RUST_TUTORIAL, "kind": "captcha", "format": "html"}),
    );
    std::fs::write(serp.join("index.json"), serde_json::to_vec(&index).unwrap()).unwrap();
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &engines);
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_recording(None, Some(serp));
    let resp = searcher
        .search(
            &searcher.parse_query("Rust Tutorial", 1),
            &SearchOptions::default(),
        )
        .await
        .unwrap();
    for name in engines {
        let r = resp.engines.iter().find(|r| r.engine == name).unwrap();
        assert!(r.failure.is_none() && r.results >= 5, "{r:?}");
    }
    // Several engines agree on the book and the tutorials: they are fused,
    // not repeated.
    let agreed = resp.results.iter().filter(|r| r.engines.len() >= 3).count();
    assert!(agreed >= 3, "only {agreed} results found by 3+ engines");
    std::fs::remove_dir_all(&dir).ok();
}
