//! Running it for real, end to end: cached engine answers, re-fused under
//! other dedup settings (issue #6), expiring, not cached from an outage,
//! shared through a real redis-server, and redis dying.

#[path = "support/ops_app.rs"]
mod ops_app;
#[path = "support/redis.rs"]
mod redis_support;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use metasift::config::Config;
use metasift::ops::cache::Cache;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use ops_app::{Switchable, config, get};

// ---- cached engine answers, re-fused under other dedup settings (issue #6) --

/// A searcher with a memory cache of `ttl` over one switchable engine.
fn cached_app(engine: &Switchable, cache: Cache) -> axum::Router {
    let config = config(&[("e", engine.base())], "[limits]\nper_minute = 0\n");
    web::router(AppState::new(
        Searcher::from_config(config).unwrap().with_cache(cache),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_fused_from_cached_answers_expires_with_them() {
    let e = Switchable::spawn("e").await;
    let app = cached_app(&e, Cache::memory(Duration::from_secs(2), 16 << 20));
    assert_eq!(
        get(&app, "/search?q=ttl&format=json").await.0,
        StatusCode::OK
    );
    assert_eq!(e.hits(), 1);

    tokio::time::sleep(Duration::from_millis(1200)).await;
    // `explain=1` is another page of the same answers (no comparison: the
    // settings are the configured ones).
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 1, "fused again from the cached answers");
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 1, "and that page is cached");
    let (status, _, body) = get(&app, "/search?q=ttl&format=json&os2=0.6").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(e.hits(), 1, "compared on the cached answers");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["comparison"]["requested"]["os2"], 0.6, "{v}");

    // 2.4 s after the fan-out its answers are gone, and so is the page
    // fused from them at 1.2 s (kept for what the answers had left, not
    // for a TTL of its own).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    get(&app, "/search?q=ttl&format=json&explain=1").await;
    assert_eq!(e.hits(), 2, "nothing outlives the TTL of its fan-out");
    let (_, _, metrics) = get(&app, "/metrics").await;
    for line in [
        "metasift_searches_total 5",
        "metasift_cache_hits_total 3",
        "metasift_cache_misses_total 2",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line}: {metrics}");
    }
}

#[tokio::test]
async fn answers_of_an_outage_are_not_cached() {
    let e = Switchable::spawn("e").await;
    e.set(503);
    let app = cached_app(&e, Cache::memory(Duration::from_secs(60), 16 << 20));
    get(&app, "/search?q=down").await;
    get(&app, "/search?q=down&os2=0.6").await;
    assert_eq!(e.hits(), 2, "an engine failure is asked again");
    e.set(200);
    get(&app, "/search?q=down&method=none").await;
    get(&app, "/search?q=down&os2=0.6").await;
    assert_eq!(e.hits(), 3, "an answer is remembered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_answers_are_shared_through_redis_as_json_with_the_ttl() {
    let Some(redis) = redis_support::RedisServer::start("cached_answers_through_redis") else {
        return;
    };
    let e = Switchable::spawn("e").await;
    let cache = || Cache::redis(&redis.url(), Duration::from_secs(30)).unwrap();
    // Two searchers, as two processes on one Redis.
    let one = cached_app(&e, cache());
    let two = cached_app(&e, cache());
    assert_eq!(
        get(&one, "/search?q=shared+answers").await.0,
        StatusCode::OK
    );
    let (status, _, page) = get(&two, "/search?q=shared+answers&os2=0.3&os1=0.2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(e.hits(), 1, "the other process re-fused the stored answers");
    assert!(
        page.contains("Compared with the configured settings"),
        "{page}"
    );
    assert!(page.contains(" · cached"));

    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("metasift:answers:v1:*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl_ms: i64 = redis::cmd("PTTL")
        .arg(&keys[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!((1..=30_000).contains(&ttl_ms), "{ttl_ms}");
    let json: Vec<u8> = redis::cmd("GET")
        .arg(&keys[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    let stored: metasift::search::Gathered = serde_json::from_slice(&json).unwrap();
    assert_eq!(stored.answers.len(), 1);
    assert_eq!(stored.answers[0].results.len(), 5);
    assert_eq!(stored.reports[0].engine, "e");
}

/// #12, defect 12: with `backend = "redis"`, killing Redis used to turn
/// every repeated search into a new fan-out. Now a repeated search is
/// answered from the process's own front cache — the engine is not asked
/// again, and nothing fails — and Redis is used again once it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_search_is_not_asked_again_while_redis_is_dead() {
    let Some(redis) = redis_support::RedisServer::start("repeated_search_redis_dead") else {
        return;
    };
    let port = redis.port();
    let e = Switchable::spawn("e").await;
    let extra = format!(
        "[cache]\nbackend = \"redis\"\nurl = \"{}\"\nttl_s = 60\n[limits]\nper_minute = 0",
        redis.url()
    );
    let app = |config: Config| web::router(AppState::serving(config, None, None).unwrap());
    let one = app(config(&[("e", e.base())], &extra));
    let two = app(config(&[("e", e.base())], &extra));
    let answered = |page: &str| {
        let json: serde_json::Value = serde_json::from_str(page).unwrap();
        assert_eq!(
            json["unresponsive_engines"],
            serde_json::json!([]),
            "{page}"
        );
        json["results"].as_array().unwrap().len()
    };

    let (status, _, page) = get(&one, "/search?q=before&format=json").await;
    assert_eq!((status, answered(&page)), (StatusCode::OK, 5));
    assert_eq!(e.hits(), 1);

    redis.stop();
    let started = Instant::now();
    for round in 0..20 {
        for q in ["before", "during"] {
            let (status, _, page) = get(&one, &format!("/search?q={q}&format=json")).await;
            assert_eq!(status, StatusCode::OK, "round {round} {q}: {page}");
            assert_eq!(answered(&page), 5, "round {round} {q}");
        }
    }
    assert_eq!(
        e.hits(),
        2,
        "40 searches of two queries with Redis dead: only the new query asked the engine, once"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a dead Redis slowed searches down: {:?}",
        started.elapsed()
    );

    // Back: what one process stores, the other reads from Redis.
    let _redis =
        redis_support::RedisServer::start_on("repeated_search_redis_dead (restart)", port).unwrap();
    let mut shared = false;
    for i in 0..60 {
        let uri = format!("/search?q=after+{i}&format=json");
        assert_eq!(get(&one, &uri).await.0, StatusCode::OK);
        let asked = e.hits();
        assert_eq!(get(&two, &uri).await.0, StatusCode::OK);
        if e.hits() == asked {
            shared = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(shared, "Redis is used again once it is back");
}
