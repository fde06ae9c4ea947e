//! Running it for real, end to end, through the whole router driven with
//! `oneshot`: member engines on loopback that fail on command are
//! suspended and asked again, all of them down is a clear page, and the
//! health table sets when and for how long.

#[path = "support/ops_app.rs"]
mod ops_app;

use std::time::Duration;

use axum::http::{StatusCode, header};
use metasift::config::Config;
use metasift::model::FailureKind;
use metasift::ops::health::{Health, HealthPolicy};
use metasift::search::{SearchOptions, Searcher};
use metasift::web::{self, AppState};
use ops_app::{Switchable, config, config_text, get, temp_dir};

fn quick_policy() -> HealthPolicy {
    HealthPolicy {
        base_backoff: Duration::from_millis(300),
        max_backoff: Duration::from_secs(2),
        blocked_backoff: Duration::from_millis(600),
        ..HealthPolicy::default()
    }
}

#[tokio::test]
async fn flapping_engine_is_suspended_then_asked_again() {
    let good = Switchable::spawn("good").await;
    let flaky = Switchable::spawn("flaky").await;
    let config = config(&[("good", good.base()), ("flaky", flaky.base())], "");
    let searcher = Searcher::from_config(config)
        .unwrap()
        .with_health(Health::new(quick_policy()));
    let opts = SearchOptions::default();
    flaky.set(500);
    for i in 0..3 {
        let q = searcher.parse_query(&format!("flap {i}"), 1);
        let r = searcher.search(&q, &opts).await.unwrap();
        let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
        assert_eq!(f.failure, Some(FailureKind::Http5xx));
        assert_eq!(r.results.len(), 5, "the good engine still answers");
    }
    assert_eq!(flaky.hits(), 3);

    // Suspended: not asked, reported with the time it comes back.
    flaky.set(200);
    let r = searcher
        .search(&searcher.parse_query("flap 3", 1), &opts)
        .await
        .unwrap();
    let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
    assert_eq!(f.failure, Some(FailureKind::Suspended));
    assert!(
        f.reason.as_deref().unwrap().contains("asked again after"),
        "{f:?}"
    );
    assert_eq!(flaky.hits(), 3, "a suspended engine is not asked");

    let app = web::router(AppState::new(searcher.clone()));
    let (status, headers, body) = get(&app, "/stats?format=json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    let row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "flaky")
        .unwrap();
    assert_eq!(row["suspended"], true);
    assert_eq!(row["errors"]["http_5xx"], 3);
    assert_eq!(row["skipped"], 1);
    let (_, _, page) = get(&app, "/stats").await;
    assert!(page.contains("suspended ("), "{page}");
    // Each engine's last failure message is on the page (and in the JSON).
    assert!(page.contains("<td class=\"msg\">HTTP 500"), "{page}");
    assert!(
        row["last_failure_message"]
            .as_str()
            .is_some_and(|m| m.starts_with("HTTP 500")),
        "{row}"
    );

    // Back after the backoff; one success clears it.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let r = searcher
        .search(&searcher.parse_query("flap 4", 1), &opts)
        .await
        .unwrap();
    let f = r.engines.iter().find(|e| e.engine == "flaky").unwrap();
    assert_eq!(f.failure, None, "{f:?}");
    assert_eq!(r.results.len(), 10);
    let (_, _, metrics) = get(&app, "/metrics").await;
    assert!(
        metrics.contains("metasift_engine_suspended{engine=\"flaky\"} 0"),
        "{metrics}"
    );
}

#[tokio::test]
async fn all_engines_down_is_a_clear_page_not_a_500() {
    let a = Switchable::spawn("a").await;
    let b = Switchable::spawn("b").await;
    a.set(503);
    b.set(429);
    let app = web::router(AppState::new(
        Searcher::from_config(config(&[("a", a.base()), ("b", b.base())], "")).unwrap(),
    ));
    let (status, _, body) = get(&app, "/search?q=anything").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("503") && body.contains("429"), "{body}");
    let (status, _, body) = get(&app, "/search?q=anything+else&format=json").await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["results"].as_array().unwrap().len(), 0);
    assert_eq!(json["unresponsive_engines"].as_array().unwrap().len(), 2);
}

/// Issue 5: the suspension numbers were hard-coded. With `[health]
/// failures_before_suspend = 1` one failure suspends the engine for
/// `backoff_s`; a reload with new numbers applies them to the running book.
#[tokio::test]
async fn health_table_sets_when_and_how_long_engines_are_suspended() {
    let good = Switchable::spawn("good").await;
    let flaky = Switchable::spawn("flaky").await;
    let engines = [("good", good.base()), ("flaky", flaky.base())];
    let dir = temp_dir("health");
    let path = dir.join("engines.toml");
    let health = "[limits]\nper_minute = 0\n[health]\nfailures_before_suspend = 1\n\
                  backoff_s = 42\nmax_backoff_s = 900\n";
    std::fs::write(&path, config_text(&engines, health)).unwrap();
    let state = AppState::serving(Config::load(&path).unwrap(), Some(path.clone()), None).unwrap();
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        1
    );
    let app = web::router(state.clone());
    flaky.set(500);
    assert_eq!(get(&app, "/search?q=one").await.0, StatusCode::OK);
    let (_, _, body) = get(&app, "/stats?format=json").await;
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    let row = |stats: &serde_json::Value, name: &str| {
        stats["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(stats["policy"]["failures_before_suspend"], 1, "{stats}");
    assert_eq!(stats["policy"]["backoff_s"], 42.0, "{stats}");
    // The page says the rules in force, not the defaults.
    let (_, _, page) = get(&app, "/stats").await;
    assert!(
        page.contains("suspended for 42 s after 1 failure in a row, doubling up to 15 min"),
        "{page}"
    );
    let flaky_row = row(&stats, "flaky");
    assert_eq!(flaky_row["suspended"], true, "{flaky_row}");
    let secs = flaky_row["suspended_for_s"].as_u64().unwrap();
    assert!(
        (40..=42).contains(&secs),
        "suspended for backoff_s: {flaky_row}"
    );
    assert_eq!(flaky.hits(), 1);

    // New numbers by reload: the book (and the running suspension) stays,
    // the next failures are judged by them.
    std::fs::write(
        &path,
        config_text(
            &engines,
            &health.replace("failures_before_suspend = 1", "failures_before_suspend = 5"),
        ),
    )
    .unwrap();
    state.reload().await.unwrap();
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        5
    );
    let (_, _, body) = get(&app, "/stats?format=json").await;
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(row(&stats, "flaky")["suspended"], true);
    // A bad table is refused and the numbers in force stay.
    std::fs::write(
        &path,
        config_text(&engines, &health.replace("backoff_s = 42", "backoff_s = 0")),
    )
    .unwrap();
    let err = state.reload().await.unwrap_err().to_string();
    assert!(err.contains("health.backoff_s"), "{err}");
    assert_eq!(
        state.searcher().health().policy().failures_before_suspend,
        5
    );
    let _ = std::fs::remove_dir_all(dir);
}
