//! The offline demo (`examples/offline.toml`): the shipped presets answering
//! from the saved pages in `tests/fixtures/serp/`, so a newcomer sees real
//! fused results with no network. Its engine tables must stay those of
//! `engines.toml`.

#[path = "support/mod.rs"]
mod support;

use metasift::config::Config;
use metasift::model::FailureKind;
use metasift::search::{SearchOptions, Searcher};

fn offline() -> Config {
    Config::load(&support::crate_dir().join("examples/offline.toml")).unwrap()
}

#[test]
fn the_demo_engines_are_the_shipped_presets() {
    let shipped = support::shipped_config();
    let demo = offline();
    assert!(demo.engines.len() >= 12);
    for engine in &demo.engines {
        let replay = engine.replay.as_ref().expect("every demo engine replays");
        assert!(replay.join("index.json").is_file(), "{}", replay.display());
        let preset = shipped
            .engines
            .iter()
            .find(|e| e.name == engine.name)
            .unwrap_or_else(|| panic!("{} is not a shipped preset", engine.name));
        let comparable = |e: &metasift::config::EngineConfig| {
            let mut e = e.clone();
            e.replay = None;
            e.enabled = true;
            serde_json::to_value(e).unwrap()
        };
        assert_eq!(
            comparable(engine),
            comparable(preset),
            "examples/offline.toml's {} differs from engines.toml",
            engine.name
        );
    }
}

#[tokio::test]
async fn the_demo_answers_saved_queries_with_fused_results() {
    let searcher = Searcher::from_config(offline()).unwrap();
    for (text, min_engines) in [("javascript tutorial", 5), ("Hello", 5)] {
        let resp = searcher
            .search(&searcher.parse_query(text, 1), &SearchOptions::default())
            .await
            .unwrap();
        let answered: Vec<&str> = resp
            .engines
            .iter()
            .filter(|r| r.failure.is_none() && r.results > 0)
            .map(|r| r.engine.as_str())
            .collect();
        assert!(
            answered.len() >= min_engines,
            "{text}: only {answered:?} answered: {:?}",
            resp.engines
        );
        assert!(
            resp.results.iter().any(|r| r.engines.len() >= 2),
            "{text}: no result found by two engines"
        );
    }
}

/// The queries the README offers for the demo (the backticked words of its
/// offline paragraph) each get results, and a query nobody recorded is
/// reported as `not_recorded` by every engine, not as a network failure.
#[tokio::test]
async fn the_readmes_demo_queries_have_answers() {
    let readme = std::fs::read_to_string(support::crate_dir().join("README.md")).unwrap();
    let start = readme
        .find("instead of the network: search for")
        .expect("the README's offline paragraph");
    let end = start + readme[start..].find("Other queries").expect("its end");
    let queries: Vec<&str> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|q| !q.contains('/') && !q.ends_with(".rs"))
        .collect();
    assert!(queries.len() >= 5, "{queries:?}");
    let searcher = Searcher::from_config(offline()).unwrap();
    for text in &queries {
        let resp = searcher
            .search(&searcher.parse_query(text, 1), &SearchOptions::default())
            .await
            .unwrap();
        assert!(
            !resp.results.is_empty(),
            "README offers {text:?}, which has no answer"
        );
    }
    let resp = searcher
        .search(
            &searcher.parse_query("a query nobody recorded", 1),
            &SearchOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        resp.engines
            .iter()
            .all(|r| r.failure == Some(FailureKind::NotRecorded)),
        "{:?}",
        resp.engines
    );
}

/// A query the recordings do not hold is not an engine failure: after more
/// such queries than the suspension threshold, the saved queries are still
/// answered by every engine that holds them, and none is suspended.
#[tokio::test]
async fn queries_without_recordings_do_not_suspend_the_demo_engines() {
    let config = offline();
    let threshold = config.health.failures_before_suspend;
    let searcher = Searcher::from_config(config).unwrap();
    for n in 0..threshold + 2 {
        let text = format!("a query nobody recorded {n}");
        let resp = searcher
            .search(&searcher.parse_query(&text, 1), &SearchOptions::default())
            .await
            .unwrap();
        assert!(resp.results.is_empty(), "{text}: {:?}", resp.results);
        assert!(
            resp.engines.iter().all(|r| r.failure.is_some()),
            "{text}: {:?}",
            resp.engines
        );
    }
    let resp = searcher
        .search(
            &searcher.parse_query("javascript tutorial", 1),
            &SearchOptions::default(),
        )
        .await
        .unwrap();
    let suspended: Vec<&str> = resp
        .engines
        .iter()
        .filter(|r| r.failure == Some(FailureKind::Suspended))
        .map(|r| r.engine.as_str())
        .collect();
    assert!(suspended.is_empty(), "suspended: {suspended:?}");
    let answered = resp.engines.iter().filter(|r| r.results > 0).count();
    assert!(answered >= 5, "{:?}", resp.engines);
}
