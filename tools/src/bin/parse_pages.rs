//! A profiling driver: parses the six saved `javascript tutorial` pages of
//! the load test (Bing, Brave, Mojeek, Startpage, Yahoo, Ecosia; ≈ 1.9 MB)
//! through the shipped presets, `ROUNDS` times, asserting every page yields
//! results. Deterministic work, so instruction counts compare across builds
//! on a busy machine:
//!
//! ```text
//! cargo build --release -p metasift-tools --bin parse_pages
//! valgrind --tool=callgrind target/release/parse_pages 3
//! valgrind --tool=callgrind target/release/parse_pages 3 tree        # the tree path alone
//! valgrind --tool=callgrind target/release/parse_pages 3 stream bing # one preset's page
//! ```
//!
//! `parse_pages 3 tree baidu all` reads instead every saved results page the
//! golden table (`tests/data/parsers.toml`) lists for that preset, the pages
//! `cargo bench --bench parse` times.
//!
//! The second argument picks the path (`stream`, the default, is what a
//! search runs: the streaming path's fast front end, with html5ever on the
//! streaming path and then the tree path for pages it hands over;
//! `html5ever` is the streaming path without the fast front end; `tree` is
//! the reference alone); the third keeps one preset's page. It prints the
//! bytes read, so instructions per byte are the total ÷ that, and how many
//! pages the fast front end read and handed over (a page that is always
//! handed over shows here).

use std::path::Path;

use metasift::config::Config;

#[path = "../../../tests/support/pages.rs"]
mod pages;
use pages::JS_PAGES as PAGES;

/// Which path reads the pages.
#[derive(Clone, Copy)]
enum Reader {
    Stream,
    Html5ever,
    Tree,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(1), |s| s.parse())?;
    let path = match std::env::args().nth(2).as_deref() {
        None | Some("stream") => Reader::Stream,
        Some("html5ever") => Reader::Html5ever,
        Some("tree") => Reader::Tree,
        Some(other) => return Err(format!("path {other:?}: stream, html5ever or tree").into()),
    };
    let only = std::env::args().nth(3);
    let golden = std::env::args().nth(4).as_deref() == Some("all");
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let serp = metasift_data::file("serp").ok_or(metasift_data::ABSENT)?;
    let config = Config::load(&root.join("engines.toml"))?;
    let mut list: Vec<(String, String)> = PAGES
        .iter()
        .map(|(n, f)| (n.to_string(), f.to_string()))
        .collect();
    if golden {
        let table: toml::Table = toml::from_str(&std::fs::read_to_string(
            root.join("tests/data/parsers.toml"),
        )?)?;
        list = table["case"]
            .as_array()
            .ok_or("no cases")?
            .iter()
            .filter(|c| c["expect"].as_str() == Some("results"))
            .map(|c| {
                (
                    c["engine"].as_str().unwrap_or_default().to_string(),
                    c["file"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
    }
    let mut pages = Vec::new();
    for (name, file) in &list {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let ec = config
            .engines
            .iter()
            .find(|e| e.name == *name)
            .ok_or(format!("no preset {name}"))?;
        let engine = metasift::engines::html::HtmlEngine::new(ec.clone())?;
        let body = std::fs::read(serp.join(file))?;
        let text = metasift::engines::decode_body(&body, None);
        pages.push((name, engine, text));
    }
    let mut total = 0;
    let mut bytes = 0;
    for _ in 0..rounds {
        for (name, engine, text) in &pages {
            bytes += text.len();
            let parsed = match path {
                Reader::Tree => engine.parse_tree(text),
                Reader::Html5ever => engine
                    .parse_streamed(text)
                    .map_err(|why| format!("{name}: left the streaming path: {why:?}"))?,
                Reader::Stream => metasift::engines::Engine::parse(engine, text),
            }
            .map_err(|e| format!("{name}: {e}"))?;
            assert!(!parsed.hits.is_empty(), "{name}: no results");
            total += parsed.hits.len();
        }
    }
    println!("{total} results, {bytes} bytes in {rounds} rounds");
    let (read, handed) = metasift::engines::fast_parse::fast_counts();
    println!("fast front end: {read} pages read, {handed} handed over");
    Ok(())
}
