//! The fleet, measured (issue #28): `N` real `metasift serve` instances on
//! one `redis-server`, in front of loopback engines that answer with our
//! own pages in the shipped presets' markup (`tests/support/own_pages.rs`)
//! and **block** once asked more than `--engine-limit` times in a minute
//! (Bing and Brave with HTTP 429, DuckDuckGo and Startpage with their bot
//! check page). A generated query log is replayed at a fixed arrival rate,
//! spread over the instances in turn, and the same log is replayed for
//! each setup:
//!
//! - `redis + budgets`: one Redis, each engine with `max_per_minute` and
//!   `burst` (one bucket for the fleet);
//! - `redis, no budget`: one Redis, no budgets;
//! - `no redis + budgets`: each instance alone (memory cache, its own
//!   buckets of the same size);
//! - `no redis, no budget`: each instance alone, no budgets.
//!
//! **The query log** (`--seed`): `--searches` searches; a share
//! `--tail` of them are queries asked once (the long tail), the rest are
//! drawn from `--popular` popular queries with Zipf weights `1 / rank^s`
//! (`--zipf`, 1.0 by default: the shape of web query logs), by inverse
//! transform over a splitmix64 stream. The same seed gives the same log.
//!
//! For every setup it reports engine requests per 1,000 searches, blocks
//! met, searches answered fresh / stale / partial / empty (from each JSON
//! answer: `age_s` past `ttl_s` is stale; an engine in
//! `unresponsive_engines` makes it partial; no results, empty), errors
//! (not HTTP 200) and the p50 / p99 latency seen by the client, as one
//! Markdown table. Run with
//!
//! ```text
//! cargo build --release --bin metasift -p metasift-tools --bin fleet
//! target/release/fleet --instances 3 --searches 480 --rate 8
//! ```

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "../../../tests/support/blocking_engine.rs"]
mod blocking_engine;
#[path = "../../../tests/support/own_pages.rs"]
mod own_pages;
#[path = "../../../tests/support/redis.rs"]
mod redis_support;

use blocking_engine::{Block, BlockingEngine};

/// The presets behind the loopback engines, and how each blocks.
const ENGINES: [(&str, bool); 4] = [
    ("bing", true),
    ("duckduckgo", false),
    ("brave", true),
    ("startpage", false),
];

struct Args {
    instances: usize,
    searches: usize,
    rate: f64,
    popular: usize,
    tail: f64,
    zipf: f64,
    seed: u64,
    engine_limit: usize,
    max_per_minute: u32,
    burst: u32,
    ttl_s: u64,
    binary: PathBuf,
}

fn args() -> Result<Args, String> {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let mut a = Args {
        instances: 3,
        searches: 480,
        rate: 8.0,
        popular: 300,
        tail: 0.3,
        zipf: 1.0,
        seed: 28,
        engine_limit: 60,
        max_per_minute: 40,
        burst: 10,
        ttl_s: 10,
        binary: PathBuf::from(target).join("release/metasift"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value:?}: {e}");
        match flag.as_str() {
            "--instances" => a.instances = value.parse().map_err(|e| bad(&e))?,
            "--searches" => a.searches = value.parse().map_err(|e| bad(&e))?,
            "--rate" => a.rate = value.parse().map_err(|e| bad(&e))?,
            "--popular" => a.popular = value.parse().map_err(|e| bad(&e))?,
            "--tail" => a.tail = value.parse().map_err(|e| bad(&e))?,
            "--zipf" => a.zipf = value.parse().map_err(|e| bad(&e))?,
            "--seed" => a.seed = value.parse().map_err(|e| bad(&e))?,
            "--engine-limit" => a.engine_limit = value.parse().map_err(|e| bad(&e))?,
            "--max-per-minute" => a.max_per_minute = value.parse().map_err(|e| bad(&e))?,
            "--burst" => a.burst = value.parse().map_err(|e| bad(&e))?,
            "--ttl-s" => a.ttl_s = value.parse().map_err(|e| bad(&e))?,
            "--binary" => a.binary = PathBuf::from(value),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if !(1..=8).contains(&a.instances) {
        return Err("--instances: 1 to 8".into());
    }
    if !((1..=100_000).contains(&a.searches) && a.rate > 0.0 && a.rate <= 1000.0) {
        return Err("--searches 1..100000, --rate above 0 and at most 1000".into());
    }
    if !(0.0..=1.0).contains(&a.tail) || a.popular == 0 || a.zipf < 0.0 {
        return Err("--tail 0..1, --popular at least 1, --zipf at least 0".into());
    }
    if a.max_per_minute == 0 || a.burst == 0 || a.ttl_s == 0 {
        return Err("--max-per-minute, --burst and --ttl-s: at least 1".into());
    }
    if !a.binary.is_file() {
        return Err(format!(
            "{}: no metasift binary (cargo build --release --bin metasift, or --binary PATH)",
            a.binary.display()
        ));
    }
    Ok(a)
}

/// splitmix64: a small, seeded, well-mixed stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The query log: Zipf-drawn popular queries and a long tail asked once.
fn query_log(a: &Args) -> Vec<String> {
    let mut rng = Rng(a.seed);
    let weights: Vec<f64> = (1..=a.popular)
        .map(|rank| 1.0 / (rank as f64).powf(a.zipf))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(weights.len());
    let mut sum = 0.0;
    for w in weights {
        sum += w / total;
        cumulative.push(sum);
    }
    (0..a.searches)
        .map(|i| {
            if rng.unit() < a.tail {
                format!("rare question {i}")
            } else {
                let u = rng.unit();
                let rank = cumulative.partition_point(|&c| c < u).min(a.popular - 1);
                format!("popular topic {rank}")
            }
        })
        .collect()
}

/// One setup of the table.
#[derive(Clone, Copy)]
struct Setup {
    name: &'static str,
    redis: bool,
    budgets: bool,
}

const SETUPS: [Setup; 4] = [
    Setup {
        name: "redis + budgets",
        redis: true,
        budgets: true,
    },
    Setup {
        name: "redis, no budget",
        redis: true,
        budgets: false,
    },
    Setup {
        name: "no redis + budgets (per instance)",
        redis: false,
        budgets: true,
    },
    Setup {
        name: "no redis, no budget",
        redis: false,
        budgets: false,
    },
];

/// The `[[engine]]` tables written for `metasift serve`.
#[derive(serde::Serialize)]
struct Engines {
    engine: Vec<metasift::config::EngineConfig>,
}

/// A `metasift serve` child; killed when dropped.
struct Instance {
    child: Child,
    base: String,
}

impl Instance {
    fn start(binary: &PathBuf, config: &PathBuf) -> Result<Instance, String> {
        let mut child = Command::new(binary)
            .args(["serve", "--config"])
            .arg(config)
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = tx.send(url.trim_end_matches('/').to_string());
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(base) => Ok(Instance { child, base }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("metasift serve did not say where it listens: {e}"))
            }
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one search gave.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Fresh,
    Stale,
    Partial,
    Empty,
    Error,
}

fn classify(status: u16, body: &str, ttl_s: u64) -> Outcome {
    if status != 200 {
        return Outcome::Error;
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return Outcome::Error;
    };
    let results = v["results"].as_array().map_or(0, Vec::len);
    let unresponsive = v["unresponsive_engines"].as_array().map_or(0, Vec::len);
    let age = v["age_s"].as_u64().unwrap_or(0);
    if results == 0 {
        Outcome::Empty
    } else if age >= ttl_s {
        Outcome::Stale
    } else if unresponsive > 0 {
        Outcome::Partial
    } else {
        Outcome::Fresh
    }
}

/// The integer after `name` (`total_commands_processed:`, `db0:keys=`)
/// in the text of an `INFO` reply.
fn info_field(text: &str, name: &str) -> Option<u64> {
    let at = text.find(name)? + name.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The text of `INFO section` of the Redis on `port`.
fn redis_info(port: u16, section: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(
        &([127, 0, 0, 1], port).into(),
        Duration::from_millis(500),
    )
    .ok()?;
    s.set_read_timeout(Some(Duration::from_millis(500))).ok()?;
    s.write_all(format!("INFO {section}\r\n").as_bytes()).ok()?;
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    for _ in 0..64 {
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        // A bulk reply: `$len\r\n` then the text; read it whole.
        let whole = text.split_once("\r\n").is_some_and(|(len, rest)| {
            len.trim_start_matches('$')
                .parse::<usize>()
                .is_ok_and(|n| rest.len() >= n)
        });
        if whole {
            return Some(text);
        }
    }
    None
}

struct Row {
    setup: Setup,
    /// Redis commands per search, with Redis.
    redis_per_search: Option<f64>,
    engine_requests: usize,
    blocks: usize,
    outcomes: Vec<Outcome>,
    latencies_ms: Vec<f64>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

async fn run(a: &Args, setup: Setup, log: &[String]) -> Result<Row, String> {
    // Fresh engines (their block windows empty), Redis and instances.
    let mut engines = Vec::new();
    let shipped = metasift::config::Config::load(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engines.toml"
    )))
    .map_err(|e| e.to_string())?;
    let mut tables = Engines { engine: Vec::new() };
    for (name, answers_429) in ENGINES {
        let block = if answers_429 {
            Block::TooManyRequests
        } else {
            let page = own_pages::blocked(name).ok_or(format!("no bot check page of {name}"))?;
            Block::Page(page.body.into())
        };
        let answer: blocking_engine::Answer = Arc::new(move |q: &str| {
            let page = own_pages::results(name, q, &own_pages::generic(name, q));
            (page.content_type, page.body.into())
        });
        let engine = BlockingEngine::spawn(
            a.engine_limit,
            Duration::from_secs(60),
            block,
            Duration::from_millis(30),
            answer,
        )
        .await;
        let mut preset = shipped
            .engines
            .iter()
            .find(|e| e.name == name)
            .ok_or(format!("no preset {name:?} in engines.toml"))?
            .clone();
        preset.url = format!("{}/search?q={{query}}&p={{page}}", engine.base_url());
        preset.timeout_ms = 2000;
        preset.enabled = true;
        (preset.max_per_minute, preset.burst) = if setup.budgets {
            (Some(a.max_per_minute), Some(a.burst))
        } else {
            (None, None)
        };
        tables.engine.push(preset);
        engines.push(engine);
    }
    let redis = if setup.redis {
        Some(redis_support::RedisServer::start("fleet").ok_or("redis-server is not installed")?)
    } else {
        None
    };
    let cache = match &redis {
        Some(r) => format!("backend = \"redis\"\nurl = \"{}\"", r.url()),
        None => "backend = \"memory\"".to_string(),
    };
    let dir = std::env::temp_dir().join(format!("metasift-fleet-tool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let config = dir.join("engines.toml");
    let text = format!(
        "use_defaults = false\n[server]\ndeadline_ms = 2500\n[cache]\n{cache}\nttl_s = {}\nstale_s = 3600\n[limits]\nper_minute = 0\nmax_in_flight = 256\n\n{}",
        a.ttl_s,
        toml::to_string(&tables).map_err(|e| e.to_string())?
    );
    std::fs::write(&config, text).map_err(|e| e.to_string())?;
    let instances: Vec<Instance> = (0..a.instances)
        .map(|_| Instance::start(&a.binary, &config))
        .collect::<Result<_, _>>()?;
    let bases: Vec<String> = instances.iter().map(|i| i.base.clone()).collect();

    let client = metasift::search::client_builder()
        .pool_max_idle_per_host(64)
        .build()
        .map_err(|e| e.to_string())?;
    let every = Duration::from_secs_f64(1.0 / a.rate);
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(log.len());
    for (i, q) in log.iter().enumerate() {
        tokio::time::sleep_until(start + every * u32::try_from(i).unwrap_or(u32::MAX)).await;
        let url = format!(
            "{}/search?format=json&q={}",
            bases[i % bases.len()],
            q.replace(' ', "+")
        );
        let client = client.clone();
        let ttl_s = a.ttl_s;
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let outcome = match client.get(&url).send().await {
                Ok(r) => {
                    let status = r.status().as_u16();
                    let body = r.text().await.unwrap_or_default();
                    classify(status, &body, ttl_s)
                }
                Err(_) => Outcome::Error,
            };
            (outcome, t.elapsed().as_secs_f64() * 1000.0)
        }));
    }
    let mut outcomes = Vec::new();
    let mut latencies_ms = Vec::new();
    for t in tasks {
        let (o, ms) = t.await.map_err(|e| e.to_string())?;
        outcomes.push(o);
        latencies_ms.push(ms);
    }
    latencies_ms.sort_by(f64::total_cmp);
    let redis_per_search = redis
        .as_ref()
        .and_then(|r| redis_info(r.port(), "stats"))
        .and_then(|t| info_field(&t, "total_commands_processed:"))
        .map(|n| n as f64 / log.len() as f64);
    if let Some(r) = &redis {
        let used = redis_info(r.port(), "memory").and_then(|t| info_field(&t, "used_memory:"));
        let keys = redis_info(r.port(), "keyspace").and_then(|t| info_field(&t, "db0:keys="));
        eprintln!(
            "{}: Redis used_memory {} bytes, {} keys",
            setup.name,
            used.unwrap_or(0),
            keys.unwrap_or(0)
        );
    }
    let row = Row {
        setup,
        redis_per_search,
        engine_requests: engines.iter().map(BlockingEngine::requests).sum(),
        blocks: engines.iter().map(BlockingEngine::blocked).sum(),
        outcomes,
        latencies_ms,
    };
    drop(instances);
    drop(redis);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(row)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = args()?;
    let log = query_log(&a);
    let distinct: std::collections::BTreeSet<&String> = log.iter().collect();
    println!(
        "{} searches ({} distinct; {} popular queries, Zipf s = {}, {:.0} % long tail, seed {}) at {} a second over {} instances; {} engines blocking past {} requests a minute; budgets {} a minute, burst {}; ttl_s = {}, stale_s = 3600\n",
        log.len(),
        distinct.len(),
        a.popular,
        a.zipf,
        a.tail * 100.0,
        a.seed,
        a.rate,
        a.instances,
        ENGINES.len(),
        a.engine_limit,
        a.max_per_minute,
        a.burst,
        a.ttl_s
    );
    println!(
        "| setup | engine requests / 1,000 searches | blocks met | fresh | stale | partial | empty | errors | p50 ms | p99 ms | Redis commands / search |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for setup in SETUPS {
        let row = run(&a, setup, &log).await?;
        let count = |o: Outcome| row.outcomes.iter().filter(|x| **x == o).count();
        println!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} |",
            row.setup.name,
            row.engine_requests as f64 * 1000.0 / log.len() as f64,
            row.blocks,
            count(Outcome::Fresh),
            count(Outcome::Stale),
            count(Outcome::Partial),
            count(Outcome::Empty),
            count(Outcome::Error),
            percentile(&row.latencies_ms, 0.50),
            percentile(&row.latencies_ms, 0.99),
            row.redis_per_search
                .map_or("–".to_string(), |n| format!("{n:.1}")),
        );
    }
    Ok(())
}
