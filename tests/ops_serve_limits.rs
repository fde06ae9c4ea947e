//! Running it for real, end to end, through the whole router driven with
//! `oneshot`: rate limits (429 with `Retry-After`, in the asked format,
//! autocomplete's own), searches over `max_in_flight`, security headers.

#[path = "support/ops_app.rs"]
mod ops_app;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::http::{StatusCode, header};
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use ops_app::{Switchable, config, get, send};

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_and_counts_it() {
    let e = Switchable::spawn("e").await;
    let config = config(&[("e", e.base())], "[limits]\nper_minute = 30\nburst = 2\n");
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    assert_eq!(get(&app, "/search?q=one").await.0, StatusCode::OK);
    assert_eq!(get(&app, "/search?q=two").await.0, StatusCode::OK);
    let (status, headers, body) = get(&app, "/search?q=three&format=json").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers[header::RETRY_AFTER], "2");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        json["error"].as_str().unwrap().contains("wait 2 s"),
        "{json}"
    );
    // Other routes are not limited.
    let (status, headers, metrics) = get(&app, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[header::CONTENT_TYPE],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l == "metasift_rate_limited_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.lines().any(|l| l == "metasift_searches_total 2"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_over_max_in_flight_get_503_at_once() {
    let slow = Switchable::spawn("slow").await;
    slow.delay_ms.store(1200, Ordering::SeqCst);
    let config = config(
        &[("slow", slow.base())],
        "autocomplete = \"slow\"\n[limits]\nmax_in_flight = 1\nper_minute = 0\n",
    );
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    let first = tokio::spawn({
        let app = app.clone();
        async move { get(&app, "/search?q=first").await.0 }
    });
    while slow.hits() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let (status, headers, _) = get(&app, "/search?q=second").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "refused without waiting for the search in flight ({:?})",
        started.elapsed()
    );
    // Suggestions are not worth a fan-out over the cap: an empty list, at
    // once, and the engine is not asked.
    let started = Instant::now();
    let (status, _, body) = get(&app, "/autocomplete?q=sec").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, r#"["sec",[]]"#));
    assert!(started.elapsed() < Duration::from_millis(600));
    assert_eq!(slow.hits(), 1, "the suggestion did not reach the engine");
    assert_eq!(first.await.unwrap(), StatusCode::OK);
    // The same query as one in flight joins it instead of being refused.
    assert_eq!(get(&app, "/search?q=first").await.0, StatusCode::OK);
}

#[tokio::test]
async fn every_answer_carries_security_headers() {
    let e = Switchable::spawn("e").await;
    let app = web::router(AppState::new(
        Searcher::from_config(config(&[("e", e.base())], "")).unwrap(),
    ));
    for uri in [
        "/",
        "/search?q=x",
        "/stats",
        "/metrics",
        "/healthz",
        "/nowhere",
    ] {
        let (_, headers, _) = get(&app, uri).await;
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"),
            "{uri}: {csp}"
        );
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{uri}");
        assert_eq!(headers[header::REFERRER_POLICY], "no-referrer", "{uri}");
    }
}

/// Issue 5: a rate-limited `POST /search` whose form asked `format=json`
/// used to get an HTML 429. Every refusal now comes in the asked format,
/// whether `format` is in the query string or in a POST form body.
#[tokio::test]
async fn rate_limited_searches_answer_in_the_asked_format_get_and_post() {
    let e = Switchable::spawn("e").await;
    let config = config(&[("e", e.base())], "[limits]\nper_minute = 1\nburst = 1\n");
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    assert_eq!(get(&app, "/search?q=first").await.0, StatusCode::OK);
    let asked = e.hits();
    for (format, content_type, looks_right) in [
        ("json", "application/json", "\"retry_after\""),
        ("csv", "text/csv", "error,retry_after\n\"Too many searches"),
        (
            "rss",
            "application/rss+xml",
            "<rss version=\"2.0\"><channel><title>metasift: 429",
        ),
        ("html", "text/html", "429"),
    ] {
        for (method, uri, form) in [
            (
                "GET",
                format!("/search?q=again&format={format}"),
                String::new(),
            ),
            (
                "POST",
                "/search".to_string(),
                format!("q=again&format={format}"),
            ),
            // A blank query-string format counts as absent, as in a search.
            (
                "POST",
                "/search?format=".to_string(),
                format!("q=again&format={format}"),
            ),
        ] {
            let (status, headers, body) = send(&app, method, &uri, &form).await;
            let at = format!("{method} {uri} {form}");
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{at}");
            assert!(headers.contains_key(header::RETRY_AFTER), "{at}");
            let ct = headers[header::CONTENT_TYPE].to_str().unwrap();
            assert!(ct.starts_with(content_type), "{at}: {ct}");
            assert!(body.contains(looks_right), "{at}: {body}");
            if format == "json" {
                let json: serde_json::Value = serde_json::from_str(&body).unwrap();
                assert!(json["error"].as_str().unwrap().contains("wait"), "{json}");
            }
        }
    }
    assert_eq!(e.hits(), asked, "refused searches never reach an engine");
}

/// Issue 5: `/autocomplete` had no rate limit. It now has a budget of its
/// own (`autocomplete_per_minute`, `autocomplete_burst`), so typing never
/// uses up the search budget and a script cannot hammer the suggestion
/// engine through us.
#[tokio::test]
async fn autocomplete_has_a_rate_limit_of_its_own() {
    let e = Switchable::spawn("e").await;
    let config = config(
        &[("e", e.base())],
        "autocomplete = \"e\"\n[limits]\nper_minute = 60\nburst = 1\n\
         autocomplete_per_minute = 60\nautocomplete_burst = 3\n",
    );
    let app = web::router(AppState::new(Searcher::from_config(config).unwrap()));
    for i in 0..3 {
        let (status, _, body) = get(&app, &format!("/autocomplete?q=ty{i}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(body.starts_with(&format!("[\"ty{i}\"")), "{body}");
    }
    let asked = e.hits();
    assert_eq!(asked, 3, "each suggestion asks the engine");
    let (status, headers, body) = get(&app, "/autocomplete?q=ty3").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers[header::RETRY_AFTER], "1");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        json["error"].as_str().unwrap().contains("suggestion"),
        "{json}"
    );
    assert_eq!(
        e.hits(),
        asked,
        "a refused suggestion never reaches the engine"
    );
    // The search budget is untouched by the typing…
    assert_eq!(get(&app, "/search?q=typed").await.0, StatusCode::OK);
    // …and spent by searches only.
    assert_eq!(
        get(&app, "/search?q=again").await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
    let (_, _, metrics) = get(&app, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "metasift_rate_limited_total 2"),
        "{metrics}"
    );
}
