//! Why the default method misses copies on the synthetic lists: for every
//! record left in a cluster of its own although an earlier record of its
//! ground-truth group was kept, the best-scoring earlier kept record of that
//! group is compared with it and the miss is put in one bucket (no codes, too
//! few codes for different titles, similarity below `os1` / `os2`, or a
//! match the stream should have found).
//!
//! Run with: `cargo run --release -p metasift-tools --bin why_missed -- ag-news 300 [samples]`
//! (`score` prints the scoreboard, `fp FILE` a pair file's false merges; the
//! data is the team's data folder, `METASIFT_DATA` or `../shared/data`).

use std::collections::BTreeMap;

use metasift::lab::data::{LoadOptions, load};
use metasift::lab::metrics;
use metasift::lab::synth::{self, Corpus, SynthOptions};
use metasift_dedup::{Deduper, Doc, Settings, similarity};

/// The team's data folder; exits naming `METASIFT_DATA` when it is absent.
fn data_root() -> std::path::PathBuf {
    metasift_data::root().unwrap_or_else(|| {
        eprintln!("why_missed: {}", metasift_data::ABSENT);
        std::process::exit(2)
    })
}

/// Precision / recall of the default settings on both synthetic corpora
/// and on the real pair files (the false-merge guards).
fn scoreboard(s: &Settings) {
    let root = data_root();
    for corpus in Corpus::ALL {
        let recs = synth::generate(corpus, &root, SynthOptions { seed: 42, sets: 0 }).unwrap();
        let c = metrics::evaluate_sets(&synth::to_sets(&recs), s);
        println!(
            "{corpus:<40} P {:.4} R {:.4} (tp {} fp {} fn {})",
            c.precision(),
            c.recall(),
            c.tp,
            c.fp,
            c.fn_
        );
    }
    for f in [
        "pawsx_zh/dev.tsv",
        "stsb_multi_mt/zh_dev.tsv",
        "stsb_multi_mt/en_dev.tsv",
        "sts_news/2014_headlines.tsv",
        "mrpc/test.tsv",
        "quora_qp/test_first5000.tsv",
    ] {
        let path = root.join("pairs").join(f);
        if !path.is_file() {
            println!("{f:<40} (not in the data folder)");
            continue;
        }
        let data = load(&path, LoadOptions::default()).unwrap();
        let c = metrics::evaluate(&data.data, s);
        println!(
            "{f:<40} P {:.4} R {:.4} (tp {} fp {} fn {})",
            c.precision(),
            c.recall(),
            c.tp,
            c.fp,
            c.fn_
        );
    }
}

/// Precision / recall on both synthetic corpora (all lists) for each seed
/// (held-out-style lists: the tests use seed 42), with the records' engines
/// given (the shipped pipeline) and withheld (every rule that needs a
/// source off: the pipeline before issue #13).
fn seeds_board(seeds: &[u64], s: &Settings) {
    let root = data_root();
    for corpus in Corpus::ALL {
        let mut totals = [metrics::Confusion::default(); 2];
        for &seed in seeds {
            let recs = synth::generate(corpus, &root, SynthOptions { seed, sets: 0 }).unwrap();
            let with = synth::to_sets(&recs);
            let mut without = with.clone();
            for set in &mut without {
                for r in &mut set.records {
                    r.engine.clear();
                }
            }
            for (i, sets) in [&without, &with].into_iter().enumerate() {
                let c = metrics::evaluate_sets(sets, s);
                totals[i].add(c);
                println!(
                    "{corpus:<9} seed {seed:<4} {:<10} P {:.4} R {:.4} (tp {} fp {} fn {})",
                    ["no engines", "engines"][i],
                    c.precision(),
                    c.recall(),
                    c.tp,
                    c.fp,
                    c.fn_
                );
            }
        }
        for (i, c) in totals.iter().enumerate() {
            println!(
                "{corpus:<9} all seeds {:<10} P {:.4} R {:.4} (tp {} fp {} fn {})",
                ["no engines", "engines"][i],
                c.precision(),
                c.recall(),
                c.tp,
                c.fp,
                c.fn_
            );
        }
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("fp") {
        let root = data_root().join("pairs");
        let f = std::env::args().nth(2).unwrap();
        let data = load(&root.join(f), LoadOptions::default()).unwrap();
        let s = Settings::default();
        if let metasift::lab::data::Labeled::Pairs(pairs) = &data.data {
            for p in pairs {
                if !p.duplicate && metrics::pair_merged(p, &s) {
                    let sc = similarity(
                        Doc::new(&p.a.url, &p.a.title, &p.a.snippet),
                        Doc::new(&p.b.url, &p.b.title, &p.b.snippet),
                        &s,
                    );
                    println!(
                        "{:.2} M{}  {}\n          {}",
                        sc.similarity.unwrap_or(0.0),
                        sc.codes,
                        p.a.snippet,
                        p.b.snippet
                    );
                }
            }
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("score") {
        scoreboard(&Settings::default());
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("seeds") {
        let seeds: Vec<u64> = std::env::args()
            .nth(2)
            .unwrap_or_else(|| "1,2,3,4,5".into())
            .split(',')
            .map(|s| s.parse().unwrap())
            .collect();
        seeds_board(&seeds, &Settings::default());
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let corpus: Corpus = args
        .get(1)
        .map_or("ag-news", String::as_str)
        .parse()
        .unwrap();
    let lists: usize = args.get(2).map_or(300, |s| s.parse().unwrap());
    let samples: usize = args.get(3).map_or(0, |s| s.parse().unwrap());
    let root = data_root();
    let recs = synth::generate(
        corpus,
        &root,
        SynthOptions {
            seed: std::env::var("SEED").map_or(42, |s| s.parse().unwrap()),
            sets: lists,
        },
    )
    .unwrap();
    let sets = synth::to_sets(&recs);
    let s = Settings::default();
    let mut d = Deduper::new(&s);
    let mut buckets: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    for set in &sets {
        let docs: Vec<Doc<'_>> = set
            .records
            .iter()
            .map(|r| Doc::new(&r.url, &r.title, &r.snippet).with_source(&r.engine))
            .collect();
        let clusters: Vec<usize> = docs
            .iter()
            .map(|doc| d.push_query(Some(&set.query), *doc).cluster)
            .collect();
        let base = clusters.iter().copied().min().unwrap_or(0);
        for i in 0..docs.len() {
            if clusters[i] != base + i {
                continue; // attached to something
            }
            // Earlier kept records of the same group: a missed merge.
            let earlier: Vec<usize> = (0..i)
                .filter(|&j| clusters[j] == base + j && set.groups[j] == set.groups[i])
                .collect();
            if earlier.is_empty() {
                continue;
            }
            let size = clusters.iter().filter(|&&c| c == base + i).count();
            let (j, p) = earlier
                .iter()
                .map(|&j| (j, similarity(docs[j], docs[i], &s)))
                .max_by(|a, b| {
                    a.1.similarity
                        .unwrap_or(-1.0)
                        .total_cmp(&b.1.similarity.unwrap_or(-1.0))
                })
                .unwrap();
            let sim = p.similarity.unwrap_or(0.0);
            let bucket = if p.similarity.is_none() {
                "no codes"
            } else if !p.title_equal && p.evidence < s.min_codes {
                if sim >= s.os2 {
                    "few codes (sim >= os2)"
                } else {
                    "few codes (sim < os2)"
                }
            } else if p.title_equal && sim < s.os1 {
                "titles equal, sim < os1"
            } else if !p.title_equal && sim < s.os2 {
                if sim >= s.os1 {
                    "titles differ, os1 <= sim < os2"
                } else {
                    "titles differ, sim < os1"
                }
            } else {
                "should match"
            };
            let e = buckets.entry(bucket).or_default();
            e.0 += 1;
            e.1 += size;
            let n = shown.entry(bucket).or_default();
            if *n < samples {
                *n += 1;
                println!(
                    "--- {bucket}: sim {sim:.2} M {} title_equal {}",
                    p.codes, p.title_equal
                );
                println!(
                    "  A title: {}\n  A snip:  {}",
                    docs[j].title, docs[j].snippet
                );
                println!(
                    "  B title: {}\n  B snip:  {}",
                    docs[i].title, docs[i].snippet
                );
            }
        }
    }
    println!("bucket: missed kept records (records in their clusters)");
    for (b, (n, r)) in &buckets {
        println!("{b:<34} {n:>5} {r:>6}");
    }
}
