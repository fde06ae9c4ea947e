//! Running it for real: engine health and suspension, the result cache
//! (memory and a real redis-server, including Redis dying mid-run),
//! coalescing of identical searches, and the shared rate limit.

#[path = "support/redis.rs"]
mod redis_support;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metasift::config::LimitsConfig;
use metasift::model::{EngineReport, FailureKind, MergedResult, Query, SearchResponse};
use metasift::ops::cache::{Cache, Source, cache_key};
use metasift::ops::health::{Admission, Health, HealthPolicy, Outcome};
use metasift::ops::limit::{Decision, RateLimiter};
use metasift_dedup as dedup;
use redis_support::RedisServer;

fn t(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_800_000_000 + secs)
}

fn ok(ms: u64) -> Outcome {
    Outcome {
        elapsed: Duration::from_millis(ms),
        results: 10,
        failure: None,
        retry_after: None,
    }
}

fn fail(kind: FailureKind) -> Outcome {
    Outcome {
        elapsed: Duration::from_millis(2500),
        results: 0,
        failure: Some(kind),
        retry_after: None,
    }
}

#[test]
fn health_suspends_after_three_failures_with_growing_backoff() {
    let h = Health::default();
    h.register(["flaky", "steady"]);
    h.record("flaky", fail(FailureKind::Timeout), t(0));
    h.record("flaky", fail(FailureKind::Http5xx), t(1));
    assert_eq!(
        h.admission("flaky", t(2)),
        Admission::Allowed,
        "two failures are tolerated"
    );
    h.record("flaky", fail(FailureKind::Network), t(2));
    assert_eq!(
        h.admission("flaky", t(3)),
        Admission::Suspended { until: t(32) }
    );
    assert_eq!(h.admission("steady", t(3)), Admission::Allowed);

    // While suspended the search reports it as skipped, not as a request.
    h.record("flaky", fail(FailureKind::Suspended), t(10));
    let snap = h.snapshot(t(10));
    let e = snap.engines.iter().find(|e| e.name == "flaky").unwrap();
    assert_eq!((e.requests, e.skipped, e.consecutive_failures), (3, 1, 3));
    assert!(e.suspended);
    assert_eq!(e.suspended_for_s, Some(22));
    assert_eq!(
        e.suspended_until.as_deref(),
        Some(httpdate::fmt_http_date(t(32)).as_str())
    );
    assert_eq!(e.errors.get("timeout"), Some(&1));
    assert_eq!(e.errors.get("http_5xx"), Some(&1));

    // Time is up: asked again; another failure doubles the backoff.
    assert_eq!(h.admission("flaky", t(32)), Admission::Allowed);
    h.record("flaky", fail(FailureKind::Timeout), t(35));
    assert_eq!(
        h.admission("flaky", t(36)),
        Admission::Suspended { until: t(95) }
    );
    h.record("flaky", fail(FailureKind::Timeout), t(100));
    assert_eq!(
        h.admission("flaky", t(101)),
        Admission::Suspended { until: t(220) }
    );

    // One success resets everything.
    h.record("flaky", ok(80), t(300));
    assert_eq!(h.admission("flaky", t(301)), Admission::Allowed);
    h.record("flaky", fail(FailureKind::Timeout), t(302));
    assert_eq!(h.admission("flaky", t(303)), Admission::Allowed);
    let e = h
        .snapshot(t(303))
        .engines
        .into_iter()
        .find(|e| e.name == "flaky")
        .unwrap();
    assert_eq!(e.consecutive_failures, 1);
    assert_eq!(e.suspensions, 3);
}

#[test]
fn health_blocked_and_429_suspend_at_once_and_longer() {
    let h = Health::new(HealthPolicy::default());
    h.record("captcha", fail(FailureKind::Blocked), t(0));
    assert_eq!(
        h.admission("captcha", t(1)),
        Admission::Suspended { until: t(300) }
    );
    h.record("captcha", fail(FailureKind::Blocked), t(300));
    assert_eq!(
        h.admission("captcha", t(301)),
        Admission::Suspended { until: t(900) }
    );
    h.record("captcha", fail(FailureKind::Blocked), t(900));
    assert_eq!(
        h.admission("captcha", t(901)),
        Admission::Suspended { until: t(1500) },
        "capped at 10 minutes"
    );
    h.record("busy", fail(FailureKind::TooManyRequests), t(0));
    assert_eq!(
        h.admission("busy", t(0)),
        Admission::Suspended { until: t(300) }
    );
}

#[test]
fn health_metrics_render_prometheus_text() {
    let h = Health::default();
    h.record("wiki\"pedia", ok(40), t(0));
    h.record("wiki\"pedia", fail(FailureKind::Parse), t(1));
    for _ in 0..3 {
        h.record("dead", fail(FailureKind::Timeout), t(2));
    }
    h.counters().searches.fetch_add(5, Ordering::Relaxed);
    let text = h.render_prometheus(t(3));
    for line in [
        "metasift_searches_total 5",
        "metasift_engine_requests_total{engine=\"wiki\\\"pedia\"} 2",
        "metasift_engine_errors_total{engine=\"wiki\\\"pedia\",kind=\"parse\"} 1",
        "metasift_engine_errors_total{engine=\"dead\",kind=\"timeout\"} 3",
        "metasift_engine_latency_seconds_bucket{engine=\"wiki\\\"pedia\",le=\"0.05\"} 1",
        "metasift_engine_latency_seconds_bucket{engine=\"wiki\\\"pedia\",le=\"+Inf\"} 2",
        "metasift_engine_latency_seconds_count{engine=\"dead\"} 3",
        "metasift_engine_suspended{engine=\"dead\"} 1",
        "metasift_engine_suspended{engine=\"wiki\\\"pedia\"} 0",
        "metasift_engine_reliability{engine=\"wiki\\\"pedia\"} 0.5",
        "# TYPE metasift_engine_latency_seconds histogram",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    // Every sample line is `name{labels} value` with a numeric value.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let value = line.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "bad sample {line:?}");
    }
}

fn query(text: &str) -> Query {
    Query {
        text: text.into(),
        page: 1,
        ..Query::default()
    }
}

fn response(text: &str, answered: bool) -> SearchResponse {
    SearchResponse {
        estimate: None,
        hostnames_removed: 0,
        query: query(text),
        results: vec![MergedResult {
            published: None,
            thumbnail: None,
            key_url: None,
            display_url: None,
            extra: None,
            url: format!("https://example.org/{text}"),
            title: format!("About {text}"),
            content: "A snippet, with punctuation.".into(),
            engine: "e1".into(),
            engines: vec!["e1".into()],
            positions: vec![1],
            score: 1.0,
            category: "general".into(),
            duplicates: vec![],
        }],
        total_results: 1,
        pages: 1,
        engines: vec![EngineReport {
            engine: "e1".into(),
            elapsed_ms: 12,
            results: 1,
            failure: (!answered).then_some(FailureKind::Timeout),
            reason: None,
        }],
        suggestions: vec![],
        elapsed_ms: 12,
        cached: false,
        broke_operators: 0,
        time_range_dropped: 0,
        infoboxes: vec![],
        answers: vec![],
        fetched_at_ms: 0,
    }
}

fn key(text: &str) -> String {
    cache_key(
        &query(text),
        &dedup::Settings::default(),
        &metasift::config::FusionSettings::default(),
        false,
    )
}

/// Runs `get_or_search` with a producer that counts its runs.
async fn lookup(
    cache: &Cache,
    text: &str,
    runs: &Arc<AtomicUsize>,
) -> (Arc<SearchResponse>, Source) {
    let runs = runs.clone();
    let owned = text.to_string();
    cache
        .get_or_search(&key(text), move || async move {
            runs.fetch_add(1, Ordering::SeqCst);
            response(&owned, true)
        })
        .await
}

#[tokio::test]
async fn memory_cache_round_trip_and_ttl() {
    let cache = Cache::memory(Duration::from_secs(1), 16 << 20);
    let runs = Arc::new(AtomicUsize::new(0));
    let (first, source) = lookup(&cache, "rust", &runs).await;
    assert_eq!(source, Source::Produced);
    assert!(!first.cached);
    let (second, source) = lookup(&cache, "rust", &runs).await;
    assert_eq!(source, Source::Hit);
    assert!(second.cached);
    assert_eq!(second.results, first.results);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    lookup(&cache, "other", &runs).await;
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "another query is another key"
    );
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(
        lookup(&cache, "rust", &runs).await.1,
        Source::Produced,
        "expired"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn failed_searches_are_not_cached() {
    let cache = Cache::memory(Duration::from_secs(60), 16 << 20);
    let runs = Arc::new(AtomicUsize::new(0));
    for _ in 0..2 {
        let counter = runs.clone();
        let (r, source) = cache
            .get_or_search(&key("outage"), move || async move {
                counter.fetch_add(1, Ordering::SeqCst);
                response("outage", false)
            })
            .await;
        assert_eq!(source, Source::Produced);
        assert!(!r.cached);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_identical_searches_run_once() {
    for cache in [
        Cache::memory(Duration::from_secs(60), 16 << 20),
        Cache::off(),
    ] {
        let runs = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(tokio::sync::Notify::new());
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let (cache, runs, gate) = (cache.clone(), runs.clone(), gate.clone());
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_search(&key("popular"), move || async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        // Held open until every caller has arrived.
                        gate.notified().await;
                        response("popular", true)
                    })
                    .await
            }));
        }
        // Let every task reach the in-flight map, then release the producer.
        while cache.stats().coalesced.load(Ordering::SeqCst) < 19 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        gate.notify_one();
        let mut produced = 0;
        for task in tasks {
            let (r, source) = task.await.unwrap();
            assert_eq!(r.results[0].url, "https://example.org/popular");
            produced += usize::from(source == Source::Produced);
        }
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "{cache:?}: one fan-out for 20 searches"
        );
        assert_eq!(produced, 1);
        assert_eq!(cache.stats().coalesced.load(Ordering::SeqCst), 19);
    }
}

#[tokio::test]
async fn redis_cache_round_trip_ttl_and_shared_between_instances() {
    let Some(redis) = RedisServer::start("redis_cache_round_trip") else {
        return;
    };
    let a = Cache::redis(&redis.url(), Duration::from_secs(1)).unwrap();
    let b = Cache::redis(&redis.url(), Duration::from_secs(1)).unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let (first, source) = lookup(&a, "shared", &runs).await;
    assert_eq!(source, Source::Produced);
    let (from_b, source) = lookup(&b, "shared", &runs).await;
    assert_eq!(
        source,
        Source::Hit,
        "a second process sees the first one's entry"
    );
    assert!(from_b.cached);
    assert_eq!(from_b.results, first.results);
    assert_eq!(from_b.query, first.query);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        lookup(&b, "shared", &runs).await.1,
        Source::Produced,
        "EX ttl expired"
    );
    assert_eq!(a.stats().errors.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_dying_mid_run_degrades_to_per_process_caching_and_recovers() {
    let Some(redis) = RedisServer::start("redis_dying_mid_run") else {
        return;
    };
    let port = redis.port();
    let url = redis.url();
    let cache = Cache::redis(&url, Duration::from_secs(60)).unwrap();
    // A process with no front: what it finds, it found in Redis.
    let redis_only = Cache::redis_with_front(&url, Duration::from_secs(60), 0).unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    lookup(&cache, "before", &runs).await;
    assert_eq!(lookup(&cache, "before", &runs).await.1, Source::Hit);
    assert_eq!(lookup(&redis_only, "before", &runs).await.1, Source::Hit);
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    redis.stop();
    let started = std::time::Instant::now();
    // What was cached before is still answered from this process...
    assert_eq!(lookup(&cache, "before", &runs).await.1, Source::Hit);
    // ...and a new search is asked once, then answered from it.
    let (r, source) = lookup(&cache, "during", &runs).await;
    assert_eq!(source, Source::Produced);
    assert_eq!(r.results[0].url, "https://example.org/during");
    for i in 0..50 {
        let (r, source) = lookup(&cache, "during", &runs).await;
        assert_eq!(source, Source::Hit, "round {i}: cached in this process");
        assert_eq!(r.results[0].url, "https://example.org/during");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // Without a front, no cache but still an answer, and never slow: after
    // the first failure Redis is not asked for a while.
    for _ in 0..50 {
        assert_eq!(
            lookup(&redis_only, "nofront", &runs).await.1,
            Source::Produced
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "a dead Redis must not stall searches ({:?})",
        started.elapsed()
    );
    let errors = redis_only.stats().errors.load(Ordering::SeqCst);
    assert!(
        (1..=10).contains(&errors),
        "{errors} failed Redis calls for 50 lookups: it should have been left alone"
    );

    let redis = RedisServer::start_on("redis_dying_mid_run (restart)", port).unwrap();
    // Used again once back (after the breaker's pause): a write by one
    // process is read by the one that has no front.
    let mut recovered = false;
    for i in 0..100 {
        let text = format!("after-{i}");
        lookup(&cache, &text, &runs).await;
        if lookup(&redis_only, &text, &runs).await.1 == Source::Hit {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "Redis is used again once it is back");
    drop(redis);
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[tokio::test]
async fn redis_rate_limit_is_shared_between_instances() {
    let Some(redis) = RedisServer::start("redis_rate_limit_shared") else {
        return;
    };
    let limits = LimitsConfig {
        per_minute: 6,
        burst: 3,
        ..LimitsConfig::default()
    };
    let a = RateLimiter::redis(&limits, &redis.url()).unwrap();
    let b = RateLimiter::redis(&limits, &redis.url()).unwrap();
    let client = ip("198.51.100.4");
    assert_eq!(a.check(client).await, Decision::Allow);
    assert_eq!(b.check(client).await, Decision::Allow);
    assert_eq!(a.check(client).await, Decision::Allow);
    match b.check(client).await {
        Decision::Deny { retry_after_s } => {
            assert!(
                (9..=10).contains(&retry_after_s),
                "retry after {retry_after_s}"
            )
        }
        Decision::Allow => panic!("the burst of 3 is shared by both processes"),
    }
    assert_eq!(
        a.check(ip("198.51.100.5")).await,
        Decision::Allow,
        "per client"
    );

    // Redis gone: each process falls back to its own limiter, no errors.
    redis.stop();
    let other = ip("198.51.100.6");
    for _ in 0..3 {
        assert_eq!(a.check(other).await, Decision::Allow);
    }
    assert!(matches!(a.check(other).await, Decision::Deny { .. }));
}

#[test]
fn limits_table_is_validated_with_its_line() {
    use std::path::Path;

    use metasift::config::{Config, ConfigError};

    let text = "[server]\ndeadline_ms = 1000\n\n[limits]\nper_minute = 30\nburst = 0\n";
    let err = Config::parse(text, Path::new("ops.toml")).unwrap_err();
    match &err {
        ConfigError::Invalid { line, message, .. } => {
            assert_eq!(*line, 6, "{err}");
            assert!(message.contains("limits.burst"), "{err}");
        }
        other => panic!("unexpected {other}"),
    }
    let err = Config::parse("[limits]\nper_mintue = 3\n", Path::new("ops.toml")).unwrap_err();
    assert!(err.to_string().contains("ops.toml:2:"), "{err}");
    let ok = Config::parse(
        "[limits]\nper_minute = 0\nburst = 0\n",
        Path::new("ops.toml"),
    )
    .unwrap();
    assert_eq!(ok.limits.per_minute, 0);
    assert_eq!(Config::default().limits, LimitsConfig::default());
}

#[test]
fn health_table_is_validated_with_its_line_and_defaults_to_the_policy() {
    use std::path::Path;

    use metasift::config::HealthConfig;
    use metasift::config::{Config, ConfigError};

    // The defaults are today's numbers, and the shipped file says them.
    assert_eq!(
        HealthPolicy::from(&HealthConfig::default()),
        HealthPolicy::default()
    );
    assert_eq!(Config::default().health, HealthConfig::default());
    let shipped = Config::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/engines.toml"
    )))
    .unwrap();
    assert_eq!(shipped.health, HealthConfig::default());
    // Private (the shipped file leaves `public` off): the per-client limits
    // are off (tests/public.rs has the rule); every other number is the code's.
    assert_eq!(
        shipped.limits,
        LimitsConfig {
            per_minute: 0,
            autocomplete_per_minute: 0,
            ..LimitsConfig::default()
        }
    );

    let ok = Config::parse(
        "[health]\nfailures_before_suspend = 5\nbackoff_s = 10\nblocked_backoff_s = 60\n\
         max_backoff_s = 120\nreliability_window = 20\n",
        Path::new("ops.toml"),
    )
    .unwrap();
    let p = HealthPolicy::from(&ok.health);
    assert_eq!(p.failures_before_suspend, 5);
    assert_eq!(
        p.backoff(5, FailureKind::Timeout),
        Some(Duration::from_secs(10))
    );
    assert_eq!(
        p.backoff(6, FailureKind::Timeout),
        Some(Duration::from_secs(20))
    );
    assert_eq!(
        p.backoff(1, FailureKind::Blocked),
        Some(Duration::from_secs(60))
    );
    assert_eq!(
        p.backoff(9, FailureKind::Timeout),
        Some(Duration::from_secs(120))
    );
    assert_eq!(p.window, 20);

    for (text, line, key) in [
        (
            "[server]\ndeadline_ms = 900\n\n[health]\nfailures_before_suspend = 0\n",
            5,
            "health.failures_before_suspend",
        ),
        ("[health]\nbackoff_s = 0\n", 2, "health.backoff_s"),
        (
            "[health]\nblocked_backoff_s = 90000\n",
            2,
            "health.blocked_backoff_s",
        ),
        (
            "[health]\nbackoff_s = 60\nmax_backoff_s = 30\n",
            3,
            "health.max_backoff_s",
        ),
        (
            "[health]\nreliability_window = 0\n",
            2,
            "health.reliability_window",
        ),
    ] {
        let err = Config::parse(text, Path::new("ops.toml")).unwrap_err();
        match &err {
            ConfigError::Invalid {
                line: l, message, ..
            } => {
                assert_eq!(*l, line, "{text}: {err}");
                assert!(message.contains(key), "{text}: {err}");
            }
            other => panic!("unexpected {other}"),
        }
    }
    // Unknown keys and wrong types are refused with their line too.
    let err = Config::parse("[health]\nbackof_s = 3\n", Path::new("ops.toml")).unwrap_err();
    assert!(err.to_string().contains("ops.toml:2:"), "{err}");
    let err = Config::parse("[health]\nbackoff_s = \"30s\"\n", Path::new("ops.toml")).unwrap_err();
    assert!(err.to_string().contains("ops.toml:2:"), "{err}");
    // The autocomplete budget is checked like the search one.
    let err = Config::parse(
        "[limits]\nautocomplete_per_minute = 10\nautocomplete_burst = 0\n",
        Path::new("ops.toml"),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("ops.toml:3:") && err.to_string().contains("autocomplete_burst"),
        "{err}"
    );
}

/// Regression: a search whose callers all went away (clients that hung up)
/// once stayed paused in the in-flight map holding its `max_in_flight`
/// permit, so after enough hang-ups every new search got 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_searches_finish_and_release_their_permit() {
    use metasift::ops::limit::{InFlight, Overloaded};

    let cache = Cache::memory(Duration::from_secs(60), 16 << 20);
    let permits = InFlight::new(1);
    let runs = Arc::new(AtomicUsize::new(0));
    let search = |permits: InFlight, runs: Arc<AtomicUsize>| {
        move || async move {
            let _permit = permits.try_enter().ok_or(Overloaded)?;
            tokio::time::sleep(Duration::from_millis(150)).await;
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(response("abandoned", true))
        }
    };
    let abandoned = key("abandoned");
    let call = cache.get_or_try_search(&abandoned, search(permits.clone(), runs.clone()));
    // The caller hangs up long before the search ends.
    assert!(
        tokio::time::timeout(Duration::from_millis(20), call)
            .await
            .is_err()
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the search ran to its end");
    assert_eq!(permits.available(), Some(1), "and gave its permit back");
    let (r, source) = cache
        .get_or_try_search(&key("abandoned"), search(permits.clone(), runs.clone()))
        .await;
    assert_eq!(source, Source::Hit, "its answer was stored");
    assert!(r.is_ok());
    let (r, source) = cache
        .get_or_try_search(&key("next"), search(permits.clone(), runs.clone()))
        .await;
    assert_eq!(source, Source::Produced);
    assert!(r.is_ok(), "a new search is not refused");
}
