//! Writes a JSON Lines stream of search records built from the real corpora,
//! for measuring `metasift dedup` at scale.
//!
//! Run with:
//! `cargo run --release -p metasift-tools --bin gen_records -- --records 1000000 > records.jsonl`
//! (`--no-query` puts every record in one scope, `--data DIR` points at
//! another folder laid out like the team's data folder (the default:
//! `METASIFT_DATA`, else `../shared/data`), `--seed N` changes the
//! arrangement).
//!
//! Each query is one result set — a DuReader question's Baidu results, or ten
//! AG news items of one class — answered by four "engines". Each engine
//! returns about 70 % of the set in its own order, and now and then a
//! variant: the link with `www.`, `http:` or a tracking parameter, the title
//! with a site suffix, the snippet cut short with `...`, and a quarter of
//! the links point at a mirror host, so only title and snippet can tell. Result sets repeat
//! under new query strings once the corpora run out, so a long stream keeps
//! the real texts' duplicate structure. With `--no-query` every repetition
//! also gets new links, so the stream is mostly distinct URLs.
//!
//! `--realistic` writes records shaped like real result lists instead: long
//! Baidu snippets, more Chinese text, five engines' windows of each page,
//! copy sites, the saved SERP pages' real lists (see `real.rs`):
//! `cargo run --release -p metasift-tools --bin gen_records -- --realistic --records 1000000 > real.jsonl`

use std::io::{BufWriter, Write};

use serde::Deserialize;

mod real;

/// A small deterministic generator (splitmix64): the stream is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 + f64::EPSILON < p
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[derive(Deserialize)]
struct Question {
    question: String,
    results: Vec<Hit>,
}

#[derive(Deserialize, Clone)]
struct Hit {
    title: String,
    snippet: String,
}

struct Set {
    query: String,
    hits: Vec<Hit>,
    zh: bool,
}

fn load(data: &str) -> std::io::Result<Vec<Set>> {
    let mut sets = Vec::new();
    let dureader = std::fs::read_to_string(format!(
        "{data}/corpus/dureader_search_zh/search_results.jsonl"
    ))?;
    for line in dureader.lines() {
        if let Ok(q) = serde_json::from_str::<Question>(line) {
            sets.push(Set {
                query: q.question,
                hits: q.results,
                zh: true,
            });
        }
    }
    let ag = std::fs::read_to_string(format!("{data}/corpus/ag_news_en/test.csv"))?;
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(ag.as_bytes());
    let mut by_class: Vec<Vec<Hit>> = vec![Vec::new(); 5];
    for r in rows.records().flatten() {
        let class: usize = r[0].parse().unwrap_or(0).min(4);
        by_class[class].push(Hit {
            title: r[1].to_string(),
            snippet: r[2].to_string(),
        });
    }
    for (class, hits) in by_class.into_iter().enumerate() {
        for (i, chunk) in hits.chunks(10).enumerate() {
            sets.push(Set {
                query: format!("news class {class} page {i}"),
                hits: chunk.to_vec(),
                zh: false,
            });
        }
    }
    Ok(sets)
}

/// Cuts `s` to about `share` of its characters and marks the cut.
fn truncate(s: &str, share: f64) -> String {
    let n = s.chars().count();
    let keep = ((n as f64) * share) as usize;
    let mut t: String = s.chars().take(keep.max(1)).collect();
    t.push_str("...");
    t
}

fn main() -> std::io::Result<()> {
    let mut records: u64 = 1_000_000;
    let mut with_query = true;
    let mut data = metasift_data::root()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let mut seed = 42u64;
    let mut realistic = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--records" => records = args.next().and_then(|v| v.parse().ok()).unwrap_or(records),
            "--no-query" => with_query = false,
            "--realistic" => realistic = true,
            "--data" => data = args.next().unwrap_or(data),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or(seed),
            other => {
                eprintln!("unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    if data.is_empty() {
        eprintln!(
            "gen_records: {} (or give --data DIR)",
            metasift_data::ABSENT
        );
        std::process::exit(2);
    }
    if realistic {
        return write_realistic(&data, seed, records);
    }
    let sets = load(&data)?;
    if sets.is_empty() {
        eprintln!("no corpora under {data}");
        std::process::exit(2);
    }
    let mut rng = Rng(seed);
    let out = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let engines = ["bing", "duckduckgo", "brave", "mojeek"];
    let mut written = 0u64;
    let mut q = 0usize;
    let mut order: Vec<usize> = Vec::new();
    'outer: loop {
        let set = &sets[q % sets.len()];
        let round = q / sets.len();
        let query = if round == 0 {
            set.query.clone()
        } else {
            format!("{} #{round}", set.query)
        };
        let site = |i: usize| {
            if with_query {
                format!(
                    "site{}.example/{}/{i}",
                    q % sets.len(),
                    (q % sets.len()) * 7 + i
                )
            } else {
                format!("site{}.example/{q}/{i}", q % 97)
            }
        };
        for engine in engines {
            order.clear();
            order.extend((0..set.hits.len()).filter(|_| rng.chance(0.7)));
            // Each engine ranks a little differently.
            for i in 1..order.len() {
                if rng.chance(0.3) {
                    order.swap(i - 1, i);
                }
            }
            for (pos, &i) in order.iter().enumerate() {
                let hit = &set.hits[i];
                // A quarter of the answers link a mirror of the page: only
                // the title and snippet stages can find those.
                let mut url = if rng.chance(0.25) {
                    format!("https://mirror{}.example/{}", rng.below(3), site(i))
                } else {
                    format!("https://{}", site(i))
                };
                if rng.chance(0.2) {
                    url = url.replacen("https://", "https://www.", 1);
                }
                if rng.chance(0.2) {
                    url = url.replacen("https://", "http://", 1);
                }
                if rng.chance(0.2) {
                    url.push_str(&format!("?utm_source={engine}"));
                }
                let mut title = hit.title.clone();
                if rng.chance(0.2) {
                    title.push_str(if set.zh {
                        "_百度知道"
                    } else {
                        " - Reuters"
                    });
                }
                let snippet = if rng.chance(0.2) {
                    truncate(&hit.snippet, 0.6 + rng.below(40) as f64 / 100.0)
                } else {
                    hit.snippet.clone()
                };
                let id = if written % 10 == 9 {
                    serde_json::Value::from(format!("r{written}"))
                } else {
                    serde_json::Value::from(written)
                };
                let mut rec = serde_json::json!({
                    "id": id,
                    "url": url,
                    "title": title,
                    "snippet": snippet,
                    "engine": engine,
                    "position": pos + 1,
                });
                if with_query {
                    rec["query"] = serde_json::Value::from(query.as_str());
                }
                serde_json::to_writer(&mut out, &rec)?;
                out.write_all(b"\n")?;
                written += 1;
                if written >= records {
                    break 'outer;
                }
            }
        }
        q += 1;
    }
    out.flush()
}

/// `--realistic`: see `real.rs`.
fn write_realistic(data: &str, seed: u64, records: u64) -> std::io::Result<()> {
    let engines_toml = concat!(env!("CARGO_MANIFEST_DIR"), "/../engines.toml");
    let pools = real::load(data, engines_toml).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut rng = Rng(seed);
    let out = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let mut written = 0u64;
    let mut recs = Vec::new();
    for q in 0.. {
        recs.clear();
        pools.list(&mut rng, q, &mut recs);
        for r in &recs {
            let id = if written % 10 == 9 {
                serde_json::Value::from(format!("r{written}"))
            } else {
                serde_json::Value::from(written)
            };
            let rec = serde_json::json!({
                "id": id,
                "url": r.url,
                "title": r.title,
                "snippet": r.snippet,
                "engine": r.engine,
                "position": r.position,
                "query": r.query,
            });
            serde_json::to_writer(&mut out, &rec)?;
            out.write_all(b"\n")?;
            written += 1;
            if written >= records {
                return out.flush();
            }
        }
    }
    out.flush()
}
