//! A profiling driver: parses the API presets' answers the parse bench
//! times (`tests/support/api_answers.rs`: the real ones of the data
//! folder's `api/`, ours for the presets with none) through the shipped
//! presets, `ROUNDS` times, asserting each answer's result count.
//! Deterministic work, so instruction counts compare across builds on a
//! busy machine:
//!
//! ```text
//! cargo build --release -p metasift-tools --bin parse_apis
//! valgrind --tool=callgrind target/release/parse_apis 20            # every preset
//! valgrind --tool=callgrind target/release/parse_apis 20 crossref   # one preset
//! ```
//!
//! It prints, per preset, the bytes read in all rounds, so instructions per
//! byte are the total (less the start-up of a run with zero rounds) ÷ that.

use std::path::Path;

use metasift::config::Config;

#[path = "../../../tests/support/api_answers.rs"]
mod api_answers;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(1), |s| s.parse())?;
    let only = std::env::args().nth(2);
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let config = Config::load(&root.join("engines.toml"))?;
    let pages = api_answers::api_pages(root);
    for (name, bodies) in &pages {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let ec = config
            .engines
            .iter()
            .find(|e| e.name == *name)
            .ok_or(format!("no preset {name}"))?;
        let engine = metasift::engines::build(ec)?;
        let mut bytes = 0;
        for _ in 0..rounds {
            for (body, count) in bodies {
                bytes += body.len();
                let parsed = engine.parse(body).map_err(|e| format!("{name}: {e}"))?;
                assert_eq!(parsed.hits.len(), *count, "{name}");
            }
        }
        println!("{name}: {bytes} bytes in {rounds} rounds");
    }
    Ok(())
}
