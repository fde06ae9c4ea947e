//! The lab's measurement on the synthetic multi-engine lists: one pass of
//! every method over the DuReader and AG news lists of `lab::synth` (the same
//! sets `tests/quality.rs` judges), timing the dedup and checking its
//! quality inside the bench so a broken path cannot look fast.
//!
//! Run with: `cargo bench --bench lab`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use metasift::lab::metrics;
use metasift::lab::synth::{self, Corpus, SynthOptions};
use metasift_dedup::{Method, Settings};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn bench(c: &mut Criterion) {
    for corpus in Corpus::ALL {
        let records = synth::generate(
            corpus,
            Path::new(FIXTURES),
            SynthOptions {
                seed: 42,
                sets: 300,
            },
        )
        .expect("the corpora in tests/fixtures");
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
            assert!(q.total() > 10_000, "{corpus} {method}: {} pairs", q.total());
            group.bench_function(method.as_str(), |b| {
                b.iter(|| black_box(metrics::evaluate_sets(black_box(&sets), &settings)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
