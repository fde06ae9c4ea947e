//! A profiling driver for hostile answers: parses the pathological pages of
//! issue #12 through shipped presets and prints the wall time of each, so
//! the cost of a refused page is measured in a release build (instruction
//! counts with callgrind, as for `parse_pages`):
//!
//! ```text
//! cargo build --release -p metasift-tools --bin hostile_parse
//! target/release/hostile_parse
//! valgrind --tool=callgrind target/release/hostile_parse "60,000 nested divs"
//! ```
//!
//! With a name, only that page is parsed; `--unbounded` first times
//! scraper's own `Html::parse_document` of each page (html5ever with no
//! limit: the tree the presets built before the limits).

use std::path::Path;
use std::time::Instant;

use metasift::config::Config;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let unbounded = args.iter().any(|a| a == "--unbounded");
    args.retain(|a| a != "--unbounded");
    let only = args.first().cloned();
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let config = Config::load(&root.join("engines.toml"))?;
    let deep = |tag: &str, n: usize| format!("{}x", format!("<{tag}>").repeat(n));
    let spans = deep("span", 20_000);
    let json = format!(
        r#"{{"web":{{"results":[{{"title":"{spans}","url":"https://x.example/","description":"d"}},{{"title":"ok","url":"https://y.example/","description":"d"}}]}}}}"#
    );
    let pages: [(&str, &str, String); 4] = [
        ("60,000 nested divs", "duckduckgo", deep("div", 60_000)),
        ("20,000 nested spans in a JSON title", "brave_api", json),
        (
            "110,000 flat elements",
            "duckduckgo",
            "<i></i>".repeat(110_000),
        ),
        ("50,000 unclosed <b>", "bing", deep("b", 50_000)),
    ];
    for (what, preset, body) in pages {
        if only.as_deref().is_some_and(|o| o != what) {
            continue;
        }
        let ec = config
            .engines
            .iter()
            .find(|e| e.name == preset)
            .ok_or(format!("no preset {preset}"))?;
        let engine = metasift::engines::build(ec)?;
        if unbounded {
            let started = Instant::now();
            let doc = scraper::Html::parse_document(&body);
            println!(
                "{what}: unbounded tree of {} nodes in {:.1} ms",
                doc.tree.nodes().count(),
                started.elapsed().as_secs_f64() * 1000.0
            );
        }
        let started = Instant::now();
        let outcome = match engine.parse(&body) {
            Ok(p) => format!("{} results", p.hits.len()),
            Err(e) => e.to_string(),
        };
        println!(
            "{what} ({} KiB, {preset}): {:.1} ms: {outcome}",
            body.len() / 1024,
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
