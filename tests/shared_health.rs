//! Engine health shared through Redis (issue #15): two real `metasift
//! serve` processes on one real `redis-server`; a loopback engine answers
//! HTTP 429 (or a CAPTCHA page) to the first, and the second then stops
//! asking it — counted at the engine — and says on `/stats` which instance
//! met the block.

#[path = "support/redis.rs"]
mod redis_support;
#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;
#[path = "support/mod.rs"]
mod support;

use serve::Server;
use support::{Behavior, LoopbackEngine, test_page};

async fn json(client: &reqwest::Client, url: &str) -> serde_json::Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

async fn two_instances_rest_an_engine_that_blocked_one(tag: &str, blocker: Behavior, kind: &str) {
    let Some(redis) = redis_support::RedisServer::start(tag) else {
        return;
    };
    let blocky = LoopbackEngine::spawn(blocker).await;
    let good =
        LoopbackEngine::spawn(test_page(&[("https://example.org/g", "Good", "Fine.")])).await;
    let dir = support::fresh_dir(&format!("shared-{tag}"));
    let path = dir.join("engines.toml");
    let engine = |name: &str, base: &str| {
        format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}\"\ntimeout_ms = 2000\n[engine.parse]\nblocked = [\"captcha\"]\n\n"
        )
    };
    let text = format!(
        "use_defaults = false\n[server]\ndeadline_ms = 2500\n[cache]\nbackend = \"redis\"\nurl = \"{}\"\n[limits]\nper_minute = 0\n\n{}{}",
        redis.url(),
        engine("blocky", &blocky.base_url()),
        engine("good", &good.base_url())
    );
    std::fs::write(&path, text).unwrap();
    let a = Server::start(&path);
    let b = Server::start(&path);
    let client = metasift::search::client_builder().build().unwrap();

    // The first instance meets the block and rests the engine.
    let first = json(&client, &format!("{}/search?q=first&format=json", a.base)).await;
    assert_eq!(blocky.requests(), 1, "{first}");
    let a_port = a.base.rsplit(':').next().unwrap().to_string();

    // The second, asked other queries (no cache help), never asks it.
    for q in ["second", "third"] {
        let answer = json(&client, &format!("{}/search?q={q}&format=json", b.base)).await;
        let unresponsive = answer["unresponsive_engines"].to_string();
        assert!(unresponsive.contains("blocky"), "{answer}");
        assert_eq!(
            answer["results"][0]["url"], "https://example.org/g",
            "{answer}"
        );
    }
    assert_eq!(
        blocky.requests(),
        1,
        "the second instance asked the blocked engine"
    );
    assert_eq!(
        good.requests(),
        3,
        "the second instance searched the others"
    );

    // /stats of the second names the first as who met the block.
    let stats = json(&client, &format!("{}/stats?format=json", b.base)).await;
    let row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "blocky")
        .unwrap()
        .clone();
    assert_eq!(row["suspended"], true, "{row}");
    let by = row["suspended_by"].as_str().unwrap_or_default();
    assert!(
        by.ends_with(&format!(":{a_port}")),
        "suspended_by {by:?}, first instance on {a_port}"
    );
    // The first says it met it itself, and why.
    let stats = json(&client, &format!("{}/stats?format=json", a.base)).await;
    let row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "blocky")
        .unwrap()
        .clone();
    assert_eq!(row["last_failure"], kind, "{row}");
    assert!(
        row["suspended_by"]
            .as_str()
            .unwrap_or_default()
            .ends_with(&format!(":{a_port}"))
    );
    drop((a, b));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_429_seen_by_one_instance_rests_the_engine_on_both() {
    two_instances_rest_an_engine_that_blocked_one(
        "shared_health_429",
        Behavior::Status(429),
        "too_many_requests",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_captcha_seen_by_one_instance_rests_the_engine_on_both() {
    two_instances_rest_an_engine_that_blocked_one(
        "shared_health_captcha",
        Behavior::page(
            "<html><body>Please solve this captcha</body></html>",
            "text/html",
        ),
        "blocked",
    )
    .await;
}
