//! Redis that survives a node (issue #28): metasift on a primary with a
//! replica and three Sentinels keeps answering while the primary is killed
//! and a replica promoted, and its limits and budgets count on the new
//! primary afterwards; on a three-primary Redis Cluster it answers, and
//! one instance's cached answer is another's hit. Real `redis-server`
//! processes (skipped loudly when absent, unless
//! `METASIFT_REQUIRE_SERVICES=1`) and real `metasift serve` processes. Every
//! wait polls under a deadline; nothing asserts how long anything took.

#[path = "support/redis.rs"]
mod redis_support;
#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;
#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use redis_support::{RedisCluster, RedisServer};
use serve::Server;
use support::{LoopbackEngine, test_page};

/// Two engines (one with an outbound budget), a client rate limit, all on
/// the Redis at `url`. One request a minute with a burst of 1000: never
/// refused here, and each request moves the bucket a minute ahead, so its
/// key lives on for the whole test and changes with every request.
fn config(dir: &std::path::Path, url: &str, budgeted: &str, plain: &str) -> std::path::PathBuf {
    let path = dir.join("engines.toml");
    let engine = |name: &str, base: &str, extra: &str| {
        format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}\"\ntimeout_ms = 3000\n{extra}\n\n"
        )
    };
    let text = format!(
        "use_defaults = false\n[server]\ndeadline_ms = 3000\n[cache]\nbackend = \"redis\"\nurl = \"{url}\"\nttl_s = 600\n[limits]\nper_minute = 1\nburst = 1000\n\n{}{}",
        engine("budgeted", budgeted, "max_per_minute = 1\nburst = 1000"),
        engine("plain", plain, ""),
    );
    std::fs::write(&path, text).unwrap();
    path
}

async fn search(base: &str, q: &str) -> serde_json::Value {
    let client = metasift::search::client_builder().build().unwrap();
    let url = format!("{base}/search?format=json&q={}", q.replace(' ', "+"));
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.json().await.unwrap()
}

fn answered_by(answer: &serde_json::Value, engine: &str) -> bool {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["engines"].as_array().unwrap().iter().any(|e| e == engine))
}

fn connection(port: u16) -> Option<redis::Connection> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).ok()?;
    client
        .get_connection_with_timeout(Duration::from_millis(500))
        .ok()
}

/// A field of `SENTINEL master mymaster` on the Sentinel at `port`.
fn sentinel_field(port: u16, field: &str) -> Option<String> {
    let mut c = connection(port)?;
    let flat: Vec<String> = redis::cmd("SENTINEL")
        .arg("master")
        .arg("mymaster")
        .query(&mut c)
        .ok()?;
    flat.chunks(2)
        .find(|kv| kv[0] == field)
        .map(|kv| kv[1].clone())
}

/// The primary's port as the Sentinel at `port` says.
fn primary_of(port: u16) -> Option<u16> {
    let mut c = connection(port)?;
    let addr: Option<(String, String)> = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg("mymaster")
        .query(&mut c)
        .ok()?;
    addr?.1.parse().ok()
}

/// The keys matching `pattern` on the node at `port`, with their values.
fn values(port: u16, pattern: &str) -> Vec<(String, String)> {
    let Some(mut c) = connection(port) else {
        return Vec::new();
    };
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg(pattern)
        .query(&mut c)
        .unwrap_or_default();
    keys.sort();
    keys.into_iter()
        .filter_map(|k| {
            let v: Option<String> = redis::cmd("GET").arg(&k).query(&mut c).ok()?;
            Some((k, v?))
        })
        .collect()
}

/// Polls `ok` every 100 ms until it holds, for at most `limit`.
async fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !ok() {
        assert!(Instant::now() < deadline, "gave up waiting: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_go_on_through_a_sentinel_fail_over_and_limits_and_budgets_count_on_the_new_primary()
 {
    let test = "sentinel fail-over";
    let Some(primary) = RedisServer::start(test) else {
        return;
    };
    let replica_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let replica = RedisServer::start_with(
        test,
        replica_port,
        &["--replicaof", "127.0.0.1", &primary.port().to_string()],
    )
    .unwrap();
    let sentinels: Vec<RedisServer> = (0..3)
        .map(|_| RedisServer::sentinel(test, primary.port()).unwrap())
        .collect();
    let s: Vec<u16> = sentinels.iter().map(RedisServer::port).collect();
    // Before a fail-over can happen: the replica is in sync and every
    // Sentinel knows it and the two other Sentinels.
    wait_for("the replica in sync", Duration::from_secs(20), || {
        connection(replica.port()).is_some_and(|mut c| {
            redis::cmd("INFO")
                .arg("replication")
                .query::<String>(&mut c)
                .is_ok_and(|i| i.contains("master_link_status:up"))
        })
    })
    .await;
    for &port in &s {
        wait_for(
            "the Sentinels to know each other and the replica",
            Duration::from_secs(30),
            || {
                sentinel_field(port, "num-other-sentinels").as_deref() == Some("2")
                    && sentinel_field(port, "num-slaves").as_deref() == Some("1")
            },
        )
        .await;
    }

    let budgeted = LoopbackEngine::spawn(test_page(&[(
        "https://budgeted.example/a",
        "Budgeted",
        "A.",
    )]))
    .await;
    let plain =
        LoopbackEngine::spawn(test_page(&[("https://plain.example/a", "Plain", "A.")])).await;
    let dir = support::fresh_dir("ha-sentinel");
    let url = format!(
        "redis+sentinel://127.0.0.1:{},127.0.0.1:{},127.0.0.1:{}/mymaster",
        s[0], s[1], s[2]
    );
    let path = config(&dir, &url, &budgeted.base_url(), &plain.base_url());
    let (a, b) = (Server::start(&path), Server::start(&path));

    // Through the Sentinels' primary: a cached answer is the other
    // instance's hit, and the budget and the limit are kept there.
    let first = search(&a.base, "before").await;
    assert!(
        answered_by(&first, "budgeted") && answered_by(&first, "plain"),
        "{first}"
    );
    let again = search(&b.base, "before").await;
    assert!(answered_by(&again, "plain"), "{again}");
    assert_eq!(
        budgeted.requests(),
        1,
        "the second instance's search is a cache hit"
    );
    assert_eq!(values(primary.port(), "metasift:budget:*").len(), 1);
    assert!(!values(primary.port(), "metasift:rl:*").is_empty());

    // Kill the primary; search all through the fail-over.
    let old = primary.port();
    primary.stop();
    let mut during = 0;
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        for base in [&a.base, &b.base] {
            during += 1;
            let answer = search(base, &format!("during {during}")).await;
            assert!(
                answered_by(&answer, "plain"),
                "search {during} during the fail-over: {answer}"
            );
        }
        if primary_of(s[0]) == Some(replica.port()) && primary_of(s[1]) == Some(replica.port()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no fail-over in 40 s ({during} searches)"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_ne!(primary_of(s[2]), Some(old));

    // After it: both instances count on the new primary again (the budget
    // bucket and the client limit move there) and share its cache.
    let mut n = 0;
    for (who, base) in [("a", &a.base), ("b", &b.base)] {
        let mut before = values(replica.port(), "metasift:budget:*");
        let mut limits = values(replica.port(), "metasift:rl:*");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            n += 1;
            let answer = search(base, &format!("after {who} {n}")).await;
            assert!(answered_by(&answer, "plain"), "{answer}");
            let now = values(replica.port(), "metasift:budget:*");
            let now_limits = values(replica.port(), "metasift:rl:*");
            let moved =
                !now.is_empty() && now != before && !now_limits.is_empty() && now_limits != limits;
            if moved {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "instance {who} never counted on the new primary"
            );
            before = now;
            limits = now_limits;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let shared = search(&a.base, "shared after").await;
    assert!(answered_by(&shared, "budgeted"), "{shared}");
    let asked = budgeted.requests();
    let hit = search(&b.base, "shared after").await;
    assert!(answered_by(&hit, "budgeted"), "{hit}");
    assert_eq!(
        budgeted.requests(),
        asked,
        "a cache hit across instances on the new primary"
    );

    drop((a, b, sentinels, replica));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_primary_cluster_serves_searches_and_shares_the_cache() {
    let Some(cluster) = RedisCluster::start("redis cluster") else {
        return;
    };
    let budgeted = LoopbackEngine::spawn(test_page(&[(
        "https://budgeted.example/a",
        "Budgeted",
        "A.",
    )]))
    .await;
    let plain =
        LoopbackEngine::spawn(test_page(&[("https://plain.example/a", "Plain", "A.")])).await;
    let dir = support::fresh_dir("ha-cluster");
    let path = config(
        &dir,
        &cluster.url(),
        &budgeted.base_url(),
        &plain.base_url(),
    );
    let (a, b) = (Server::start(&path), Server::start(&path));
    // Twelve queries: their keys fall on all three primaries' slots.
    for i in 0..12 {
        let answer = search(&a.base, &format!("cluster {i}")).await;
        assert!(
            answered_by(&answer, "budgeted") && answered_by(&answer, "plain"),
            "{answer}"
        );
    }
    assert_eq!(budgeted.requests(), 12);
    for i in 0..12 {
        let answer = search(&b.base, &format!("cluster {i}")).await;
        assert!(answered_by(&answer, "plain"), "{answer}");
    }
    assert_eq!(
        budgeted.requests(),
        12,
        "every search on the second instance is a cache hit"
    );
    let holding = cluster
        .nodes
        .iter()
        .filter(|n| !values(n.port(), "metasift:answers:*").is_empty())
        .count();
    assert!(
        holding >= 2,
        "the answers are spread over the primaries ({holding})"
    );
    search(&b.base, "cluster fresh").await;
    let budget_keys: usize = cluster
        .nodes
        .iter()
        .map(|n| values(n.port(), "metasift:budget:*").len())
        .sum();
    assert_eq!(budget_keys, 1, "one budget bucket for the fleet");
    drop((a, b, cluster));
    let _ = std::fs::remove_dir_all(dir);
}
