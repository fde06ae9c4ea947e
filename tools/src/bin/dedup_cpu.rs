//! CPU time of the `one_list/feature-code` benchmark's work (`benches/dedup.rs`:
//! the same 2,000 records), for a machine too busy for wall-clock figures:
//! run it under `/usr/bin/time` and compare the user seconds of
//! `ITERATIONS` runs with those of `0` (building the records only).
//!
//! Run with: `cargo build --release -p metasift-tools --bin dedup_cpu &&
//! /usr/bin/time -f %U target/release/dedup_cpu 1000`
//!
//! It also prints a checksum of every verdict (cluster, stage, similarity
//! bits, in order): a change meant to be faster only must leave it as it was.

use std::hint::black_box;

use metasift_dedup::{Settings, Stage, Verdict, dedup};

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
    let mut sum = 0u64;
    for _ in 0..n {
        let verdicts = dedup(black_box(&docs), &s);
        kept = verdicts.iter().filter(|v| v.is_kept()).count();
        sum = checksum(&verdicts);
    }
    println!(
        "{n} runs over {} records, {kept} kept, verdicts {sum:016x}",
        docs.len()
    );
}

/// FNV-1a over each verdict's cluster, stage and similarity bits.
fn checksum(verdicts: &[Verdict]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for v in verdicts {
        eat(v.cluster as u64);
        eat(match v.stage {
            None => 0,
            Some(Stage::Url) => 1,
            Some(Stage::Title) => 2,
            Some(Stage::Snippet) => 3,
        });
        eat(v.similarity.map_or(u64::MAX, f64::to_bits));
        eat(u64::from(v.cluster_known));
    }
    h
}
