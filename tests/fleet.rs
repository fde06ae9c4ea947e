//! A fleet of instances on one Redis (issue #28): outbound budgets shared
//! by every instance keep a burst of searches under an engine's block,
//! identical new searches on two instances reach each engine once, and a
//! stale answer is served at once while it is refreshed in the background
//! (memory and Redis caches). Real `metasift serve` processes on a real
//! `redis-server`; the engines are loopback servers that count what they
//! are asked. No assertion depends on the machine's speed: what is checked
//! is what the engines saw, and what each answer says.

#[path = "support/blocking_engine.rs"]
mod blocking_engine;
#[path = "support/redis.rs"]
mod redis_support;
#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;
#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use blocking_engine::{Block, BlockingEngine, json_results};
use serve::Server;
use support::{Behavior, LoopbackEngine, test_page};

/// An `[[engine]]` of the SearXNG kind at `base`, with `extra` lines.
fn engine(name: &str, base: &str, extra: &str) -> String {
    format!(
        "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}\"\ntimeout_ms = 3000\n{extra}\n[engine.parse]\nblocked = [\"captcha\"]\n\n"
    )
}

/// A configuration of `engines` with the `[cache]` table `cache` (no
/// client limits).
fn config(dir: &std::path::Path, cache: &str, engines: &str) -> std::path::PathBuf {
    let path = dir.join("engines.toml");
    let text = format!(
        "use_defaults = false\n[server]\ndeadline_ms = 3000\n[cache]\n{cache}\n[limits]\nper_minute = 0\n\n{engines}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A `[cache]` table on the Redis at `url`, with `rest`.
fn on_redis(url: &str, rest: &str) -> String {
    format!("backend = \"redis\"\nurl = \"{url}\"\n{rest}")
}

async fn search(client: &reqwest::Client, base: &str, q: &str) -> serde_json::Value {
    let url = format!("{base}/search?format=json&q={}", q.replace(' ', "+"));
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.json().await.unwrap()
}

/// The 200 searches of the burst: 60 distinct queries, each first asked
/// in the first 60, then asked again in a shuffled order.
fn burst() -> Vec<String> {
    (0..200)
        .map(|i| format!("topic {}", (i * 37) % 60))
        .collect()
}

/// Replays [`burst`] on the instances in turn, ten at a time; gives every
/// answer.
async fn replay(bases: &[String]) -> Vec<serde_json::Value> {
    let client = metasift::search::client_builder().build().unwrap();
    let queries = burst();
    let mut answers = Vec::new();
    for (chunk_no, chunk) in queries.chunks(10).enumerate() {
        let calls = chunk.iter().enumerate().map(|(i, q)| {
            let base = bases[(chunk_no + i) % bases.len()].clone();
            let client = client.clone();
            let q = q.clone();
            async move { search(&client, &base, &q).await }
        });
        answers.extend(futures::future::join_all(calls).await);
    }
    answers
}

/// Whether `answer` has a result from `engine`, or names it resting on
/// its outbound budget.
fn answered_or_resting(answer: &serde_json::Value, engine: &str) -> bool {
    let from_it = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["engines"].as_array().unwrap().iter().any(|e| e == engine));
    let resting = answer["unresponsive_engines"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u[0] == engine && u[1].as_str().unwrap_or("").contains("outbound budget"));
    from_it || resting
}

async fn burst_on_two_instances(
    tag: &str,
    budget: &str,
) -> Option<(BlockingEngine, Vec<serde_json::Value>, serde_json::Value)> {
    let redis = redis_support::RedisServer::start(tag)?;
    // Blocks past 30 requests in any minute, as the engine does.
    let limited = BlockingEngine::spawn(
        30,
        Duration::from_secs(60),
        Block::TooManyRequests,
        Duration::ZERO,
        json_results(3),
    )
    .await;
    let plain = LoopbackEngine::spawn(test_page(&[(
        "https://example.com/p",
        "Plain",
        "Always here.",
    )]))
    .await;
    let dir = support::fresh_dir(&format!("fleet-{tag}"));
    let engines = format!(
        "{}{}",
        engine("limited", &limited.base_url(), budget),
        engine("plain", &plain.base_url(), "")
    );
    let path = config(&dir, &on_redis(&redis.url(), "ttl_s = 600"), &engines);
    let (a, b) = (Server::start(&path), Server::start(&path));
    let answers = replay(&[a.base.clone(), b.base.clone()]).await;
    let client = metasift::search::client_builder().build().unwrap();
    let stats: serde_json::Value = client
        .get(format!("{}/stats?format=json", a.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(dir);
    Some((limited, answers, stats))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_budget_keeps_a_burst_of_two_instances_under_the_block() {
    // 20 a minute and 10 at once: at most 30 in any minute, whatever the
    // machine's speed.
    let Some((limited, answers, stats)) =
        burst_on_two_instances("fleet_budget", "max_per_minute = 20\nburst = 10").await
    else {
        return;
    };
    assert_eq!(answers.len(), 200);
    assert_eq!(limited.blocked(), 0, "the engine blocked us");
    assert!(limited.requests() <= 30, "{}", limited.requests());
    assert!(
        limited.requests() >= 10,
        "the burst was spent: {}",
        limited.requests()
    );
    for answer in &answers {
        assert!(answered_or_resting(answer, "limited"), "{answer}");
        assert!(
            !answer["results"].as_array().unwrap().is_empty(),
            "{answer}"
        );
    }
    // Some searches found the budget spent, and the engine rests on
    // /stats under `budget`, not as a failure of its own.
    let resting = answers
        .iter()
        .filter(|a| {
            a["unresponsive_engines"]
                .to_string()
                .contains("outbound budget")
        })
        .count();
    assert!(resting > 0, "60 distinct queries, at most 30 asked");
    let row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "limited")
        .unwrap()
        .clone();
    assert!(row["errors"]["budget"].as_u64().unwrap_or(0) > 0, "{row}");
    assert_eq!(row["suspended"], false, "{row}");
    assert_eq!(row["consecutive_failures"], 0, "{row}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_budgets_the_same_burst_meets_the_block() {
    let Some((limited, answers, _)) = burst_on_two_instances("fleet_no_budget", "").await else {
        return;
    };
    assert_eq!(answers.len(), 200);
    assert!(
        limited.blocked() > 0,
        "asked {} times, never blocked",
        limited.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_identical_new_searches_on_two_instances_ask_each_engine_once() {
    let Some(redis) = redis_support::RedisServer::start("fleet_coalesce") else {
        return;
    };
    // Slow enough that the searches overlap on most machines; were they
    // not to, the later ones are cache hits and the count is the same.
    let slow = |title: &'static str| {
        Behavior::Delayed(
            Duration::from_millis(400),
            Box::new(test_page(&[("https://example.org/x", title, "A snippet.")])),
        )
    };
    let one = LoopbackEngine::spawn(slow("One")).await;
    let two = LoopbackEngine::spawn(slow("Two")).await;
    let dir = support::fresh_dir("fleet-coalesce");
    let engines = format!(
        "{}{}",
        engine("one", &one.base_url(), ""),
        engine("two", &two.base_url(), "")
    );
    let path = config(&dir, &on_redis(&redis.url(), "ttl_s = 600"), &engines);
    let (a, b) = (Server::start(&path), Server::start(&path));
    let client = metasift::search::client_builder().build().unwrap();
    let bases = [a.base.clone(), b.base.clone()];
    let calls = (0..10).map(|i| {
        let (client, base) = (client.clone(), bases[i % 2].clone());
        async move { search(&client, &base, "one new query").await }
    });
    let answers = futures::future::join_all(calls).await;
    for answer in &answers {
        assert_eq!(
            answer["results"][0]["url"], "https://example.org/x",
            "{answer}"
        );
        assert_eq!(
            answer["unresponsive_engines"],
            serde_json::json!([]),
            "{answer}"
        );
    }
    assert_eq!(one.requests(), 1, "engine one");
    assert_eq!(two.requests(), 1, "engine two");
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(dir);
}

/// An engine answering "Old" to its first request and, to later ones,
/// "New" after `delay`.
async fn old_then_new(delay: Duration) -> BlockingEngine {
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let answer: blocking_engine::Answer = Arc::new(move |_q: &str| {
        let n = asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let title = if n == 0 { "Old" } else { "New" };
        let body = serde_json::json!({
            "results": [{"url": format!("https://example.org/{title}"), "title": title, "content": "A snippet."}],
            "suggestions": []
        });
        ("application/json", body.to_string().into())
    });
    // The delay applies to every answer; the first is asked before the
    // test waits on anything.
    BlockingEngine::spawn(
        1000,
        Duration::from_secs(60),
        Block::TooManyRequests,
        delay,
        answer,
    )
    .await
}

async fn a_stale_answer_is_served_at_once_and_refreshed(tag: &str, redis_backend: bool) {
    let redis = if redis_backend {
        match redis_support::RedisServer::start(tag) {
            Some(r) => Some(r),
            None => return,
        }
    } else {
        None
    };
    let engine_at = old_then_new(Duration::from_millis(300)).await;
    let dir = support::fresh_dir(&format!("fleet-{tag}"));
    let cache = match &redis {
        Some(r) => on_redis(&r.url(), "ttl_s = 1\nstale_s = 600"),
        None => "backend = \"memory\"\nttl_s = 1\nstale_s = 600".to_string(),
    };
    let path = config(&dir, &cache, &engine("e", &engine_at.base_url(), ""));
    let server = Server::start(&path);
    let client = metasift::search::client_builder().build().unwrap();
    let first = search(&client, &server.base, "stale q").await;
    assert_eq!(first["results"][0]["title"], "Old", "{first}");
    assert_eq!(engine_at.requests(), 1);
    // Past the TTL: the entry is stale.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stale = search(&client, &server.base, "stale q").await;
    // Served from the stale entry, not from the refresh it started (which
    // would say "New").
    assert_eq!(stale["results"][0]["title"], "Old", "{stale}");
    assert!(stale["age_s"].as_u64().unwrap() >= 1, "{stale}");
    // The refresh asks the engine in the background and lands.
    let mut fresh = serde_json::Value::Null;
    for _ in 0..100 {
        fresh = search(&client, &server.base, "stale q").await;
        if fresh["results"][0]["title"] == "New" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(fresh["results"][0]["title"], "New", "{fresh}");
    assert!(fresh["age_s"].as_u64().unwrap() < 600, "{fresh}");
    // One refresh, not one per stale hit.
    assert_eq!(engine_at.requests(), 2);
    let html = client
        .get(format!("{}/search?q=stale+q", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("cached"),
        "the page says it came from the cache"
    );
    drop((server, redis));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_answer_in_memory_is_served_at_once_and_refreshed() {
    a_stale_answer_is_served_at_once_and_refreshed("fleet_stale_memory", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_answer_in_redis_is_served_at_once_and_refreshed() {
    a_stale_answer_is_served_at_once_and_refreshed("fleet_stale_redis", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_with_the_budget_spent_keeps_the_cached_answer_and_its_age() {
    // One request a minute, one at once: the first search spends it.
    let engine_at = old_then_new(Duration::ZERO).await;
    let dir = support::fresh_dir("fleet-kept");
    let path = config(
        &dir,
        "backend = \"memory\"\nttl_s = 1\nstale_s = 600",
        &engine("e", &engine_at.base_url(), "max_per_minute = 1\nburst = 1"),
    );
    let server = Server::start(&path);
    let client = metasift::search::client_builder().build().unwrap();
    let first = search(&client, &server.base, "kept q").await;
    assert_eq!(first["results"][0]["title"], "Old", "{first}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Stale: served, and a refresh starts, which finds the budget spent.
    let stale = search(&client, &server.base, "kept q").await;
    assert_eq!(stale["results"][0]["title"], "Old", "{stale}");
    let stats_url = format!("{}/stats?format=json", server.base);
    let mut stats = serde_json::Value::Null;
    for _ in 0..100 {
        stats = client
            .get(&stats_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if stats["engines"][0]["errors"]["budget"]
            .as_u64()
            .unwrap_or(0)
            >= 1
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stats["engines"][0]["errors"]["budget"], 1, "{stats}");
    assert_eq!(engine_at.requests(), 1, "the budget was spent");
    // The engine's cached answer was kept, still as old as it was.
    let after = search(&client, &server.base, "kept q").await;
    assert_eq!(after["results"][0]["title"], "Old", "{after}");
    assert!(after["age_s"].as_u64().unwrap() >= 1, "{after}");
    assert_eq!(
        after["unresponsive_engines"],
        serde_json::json!([]),
        "{after}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_zero_budget_or_a_burst_without_one_is_refused_by_name() {
    for (lines, word) in [
        ("max_per_minute = 0", "max_per_minute"),
        ("burst = 0\nmax_per_minute = 5", "burst"),
        ("burst = 5", "needs max_per_minute"),
    ] {
        let text = format!(
            "use_defaults = false\n{}",
            engine("e", "http://127.0.0.1:9", lines)
        );
        let err = metasift::config::Config::parse(&text, std::path::Path::new("fleet.toml"))
            .expect_err(lines)
            .to_string();
        assert!(err.contains(word) && err.contains("fleet.toml"), "{err}");
    }
}
