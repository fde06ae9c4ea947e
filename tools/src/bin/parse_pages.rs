//! A profiling driver: parses the six saved `javascript tutorial` pages of
//! the load test (Bing, Brave, Mojeek, Startpage, Yahoo, Ecosia; ≈ 1.9 MB)
//! through the shipped presets, `ROUNDS` times, asserting every page yields
//! results. Deterministic work, so instruction counts compare across builds
//! on a busy machine:
//!
//! ```text
//! cargo build --release -p metasift-tools --bin parse_pages
//! valgrind --tool=callgrind target/release/parse_pages 3
//! ```

use std::path::Path;

use metasift::config::Config;

#[path = "../../../tests/support/pages.rs"]
mod pages;
use pages::JS_PAGES as PAGES;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(1), |s| s.parse())?;
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let config = Config::load(&root.join("engines.toml"))?;
    let mut pages = Vec::new();
    for (name, file) in PAGES {
        let ec = config
            .engines
            .iter()
            .find(|e| e.name == name)
            .ok_or(format!("no preset {name}"))?;
        let engine = metasift::engines::build(ec)?;
        let body = std::fs::read(root.join("tests/fixtures/serp").join(file))?;
        pages.push((name, engine, body));
    }
    let mut total = 0;
    for _ in 0..rounds {
        for (name, engine, body) in &pages {
            let text = metasift::engines::decode_body(body, Some("text/html; charset=utf-8"));
            let parsed = engine.parse(&text).map_err(|e| format!("{name}: {e}"))?;
            assert!(!parsed.hits.is_empty(), "{name}: no results");
            total += parsed.hits.len();
        }
    }
    println!("{total} results in {rounds} rounds");
    Ok(())
}
