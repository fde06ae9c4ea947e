//! The work of one search's dedup is bounded by a linear function of its
//! bytes (issue #30), measured by the deduper's own work counter
//! ([`Deduper::work`]), never by a clock: for any records an engine
//! answer can hold — repetitive, punctuation-dense, CJK, of any length —
//! each record reads at most its clipped bytes, matches at most that many
//! codes, and walks at most `MAX_REPEATS` postings entries per code it
//! shares with each kept record.

use metasift_dedup::{
    Deduper, Doc, MAX_REPEATS, MAX_SNIPPET_BYTES, MAX_TITLE_BYTES, Method, Settings, clip_snippet,
    clip_title,
};
use proptest::prelude::*;

/// Text of `len` bytes or so, made of `pieces` in an order `seed` picks.
fn text(pieces: &[&str], seed: u64, len: usize) -> String {
    let mut out = String::new();
    let mut x = seed | 1;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(pieces[(x % pieces.len() as u64) as usize]);
    }
    out
}

const REPETITIVE: &[&str] = &["a, b. c; d! "];
const PUNCTUATION: &[&str] = &[",", ".", ";", "!", "?", " ", "a", "、", "。", "—", "(", ")"];
const CJK: &[&str] = &[
    "据", "新", "华", "社", "报", "道", "，", "。", "国", "家", "统", "计",
];
const WORDS: &[&str] = &[
    "rates ", "bank ", "rose, ", "fell. ", "markets ", "said; ", "the ",
];

fn kind() -> impl Strategy<Value = &'static [&'static str]> {
    prop::sample::select(vec![REPETITIVE, PUNCTUATION, CJK, WORDS])
}

/// The work of deduplicating `docs` as one search's list.
fn work_of(docs: &[Doc<'_>], s: &Settings) -> metasift_dedup::Work {
    let mut d = Deduper::new(s).sized_for(docs.len());
    for doc in docs {
        d.push(*doc);
    }
    d.work()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_search_costs_work_linear_in_its_bytes(
        records in prop::collection::vec(
            (kind(), any::<u64>(), 0usize..60_000, any::<bool>()),
            1..24,
        ),
        method in prop::sample::select(vec![Method::FeatureCode, Method::Rabin]),
    ) {
        let s = Settings { method, ..Settings::default() };
        let texts: Vec<(String, String, String)> = records
            .iter()
            .enumerate()
            .map(|(i, &(pieces, seed, len, same_title))| {
                let title = if same_title {
                    "One title".to_string()
                } else {
                    format!("Title {i}")
                };
                (format!("https://h{i}.example/p"), title, text(pieces, seed, len))
            })
            .collect();
        let docs: Vec<Doc<'_>> = texts.iter().map(|(u, t, s)| Doc::new(u, t, s)).collect();
        let clipped: u64 = docs
            .iter()
            .map(|d| (clip_title(d.title).len() + clip_snippet(d.snippet).len()) as u64)
            .sum();
        let w = work_of(&docs, &s);
        let n = docs.len() as u64;
        prop_assert!(w.bytes <= clipped, "{w:?} for {clipped} clipped bytes");
        prop_assert!(w.bytes <= n * (MAX_TITLE_BYTES + MAX_SNIPPET_BYTES) as u64);
        // At most a code per byte read, and each code's postings hold at
        // most MAX_REPEATS entries of each kept record.
        prop_assert!(w.codes <= w.bytes, "{w:?}");
        prop_assert!(w.postings <= MAX_REPEATS as u64 * n * w.codes.max(1), "{w:?}");
        // So: linear in the bytes, for a list of n records.
        prop_assert!(w.total() <= (2 + MAX_REPEATS as u64 * n) * clipped.max(1), "{w:?}");
    }
}

/// The answer: 5 records × 400 KB of `"a, b. c; d! "`. Its work is
/// that of 5 records of the first 4 KB of it: what lies past the clip
/// costs nothing.
#[test]
fn five_records_of_400_kb_cost_what_their_first_4_kb_cost() {
    let s = Settings::default();
    let long = "a, b. c; d! ".repeat(400_000 / 12);
    let short = clip_snippet(&long).to_string();
    let titles: Vec<String> = (0..5).map(|i| format!("Title {i}")).collect();
    let urls: Vec<String> = (0..5).map(|i| format!("https://h{i}.example/")).collect();
    let work = |snippet: &str| {
        let docs: Vec<Doc<'_>> = (0..5)
            .map(|i| Doc::new(&urls[i], &titles[i], snippet))
            .collect();
        work_of(&docs, &s)
    };
    let (w_long, w_short) = (work(&long), work(&short));
    assert_eq!(w_long, w_short);
    assert!(w_long.total() < 100_000, "{w_long:?}");
}
