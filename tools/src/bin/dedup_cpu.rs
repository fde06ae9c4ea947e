//! CPU time of the `one_list/feature-code` benchmark's work (`benches/dedup.rs`:
//! the same 2,000 records), for a machine too busy for wall-clock figures:
//! run it under `/usr/bin/time` and compare the user seconds of
//! `ITERATIONS` runs with those of `0` (building the records only).
//!
//! Run with: `cargo build --release -p metasift-tools --bin dedup_cpu &&
//! /usr/bin/time -f %U target/release/dedup_cpu 1000`

use std::hint::black_box;

use metasift_dedup::{Settings, dedup};

#[path = "../../../benches/support/records.rs"]
mod records;

use records::{docs, records};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let recs = records();
    let docs = docs(&recs);
    let s = Settings::default();
    let mut kept = 0;
    for _ in 0..n {
        kept = dedup(black_box(&docs), &s)
            .iter()
            .filter(|v| v.is_kept())
            .count();
    }
    println!("{n} runs over {} records, {kept} kept", docs.len());
}
