//! The lab's measurement on the synthetic multi-engine lists: one pass of
//! every method over the DuReader and AG news lists of `lab::synth` (the same
//! sets `tests/real_data/quality.rs` judges) when the team's data folder is
//! there, else over the lists of the built-in sample (and it says which),
//! timing the dedup and checking its quality inside the bench so a broken
//! path cannot look fast.
//!
//! Run with: `cargo bench --bench lab`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use metasift::lab::metrics;
use metasift::lab::synth::{self, Corpus, SynthOptions};
use metasift_dedup::{Method, Settings};

fn bench(c: &mut Criterion) {
    let root = metasift_data::root();
    let (corpora, min_pairs) = match &root {
        Some(root) => {
            eprintln!("lab bench: the real corpora of {}", root.display());
            (vec![Corpus::DuReader, Corpus::AgNews], 10_000)
        }
        None => {
            eprintln!(
                "lab bench: the built-in sample only; {}",
                metasift_data::ABSENT
            );
            (vec![Corpus::Sample], 100)
        }
    };
    for corpus in corpora {
        let records = synth::generate(
            corpus,
            root.as_deref().unwrap_or(Path::new("")),
            SynthOptions {
                seed: 42,
                sets: 300,
            },
        )
        .expect("the corpora in the data folder");
        let sets = synth::to_sets(&records);
        let mut group = c.benchmark_group(format!("lab/{corpus}"));
        group.throughput(Throughput::Elements(records.len() as u64));
        group.sample_size(10);
        for method in Method::ALL {
            let settings = Settings {
                method,
                ..Settings::default()
            };
            let q = metrics::evaluate_sets(&sets, &settings);
            eprintln!(
                "{corpus} {method}: {} records, precision {:.4} recall {:.4} F1 {:.4}",
                records.len(),
                q.precision(),
                q.recall(),
                q.f1()
            );
            // The shipped method must keep the precision bar; the others are
            // measured, and must at least have judged the pairs.
            if method == Method::FeatureCode {
                assert!(
                    q.precision() >= 0.98,
                    "{corpus}: precision {}",
                    q.precision()
                );
            }
            assert!(
                q.total() > min_pairs,
                "{corpus} {method}: {} pairs",
                q.total()
            );
            group.bench_function(method.as_str(), |b| {
                b.iter(|| black_box(metrics::evaluate_sets(black_box(&sets), &settings)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
