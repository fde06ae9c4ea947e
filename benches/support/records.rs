//! The 2,000 real records of the dedup benchmark (`benches/dedup.rs`) and
//! of its CPU-time twin (`tools/src/bin/dedup_cpu.rs`): all 1,393 DuReader Baidu
//! results (300 result lists), 407 AG news items, and 200 planted copies of
//! earlier records — 100 with the link decorated (`www.`, `http:`,
//! `utm_source`, a fragment) and 100 with the snippet cut to 80 % plus `...`
//! under a different title. Include it with
//! `#[path = "…/benches/support/records.rs"] mod records;`.

use metasift_dedup::Doc;
use serde::Deserialize;

const DUREADER: &str = "corpus/dureader_search_zh/search_results.jsonl";
const AG_NEWS: &str = "corpus/ag_news_en/test.csv";

/// The text of the repository's `tests/fixtures/<rel>`; a missing file
/// panics naming it. This file is compiled into the root crate's benches and
/// into `tools/`, one folder down, so the root is looked up.
fn fixture(rel: &str) -> String {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest
        .ancestors()
        .find(|d| d.join("tests/fixtures").is_dir())
        .unwrap_or(manifest);
    let path = root.join("tests/fixtures").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Deserialize)]
struct Question {
    question_id: u64,
    results: Vec<Hit>,
}

#[derive(Deserialize)]
struct Hit {
    pub title: String,
    pub snippet: String,
}

pub struct Rec {
    pub query: String,
    pub url: String,
    pub title: String,
    pub snippet: String,
}

pub fn records() -> Vec<Rec> {
    let mut out = Vec::new();
    let text = fixture(DUREADER);
    for line in text.lines() {
        let q: Question = serde_json::from_str(line).expect("DuReader line");
        for (pos, h) in q.results.into_iter().enumerate() {
            out.push(Rec {
                query: q.question_id.to_string(),
                url: format!("https://zhidao.example/{}/{pos}", q.question_id),
                title: h.title,
                snippet: h.snippet,
            });
        }
    }
    let ag = fixture(AG_NEWS);
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(ag.as_bytes());
    for (i, r) in rows.records().flatten().take(407).enumerate() {
        out.push(Rec {
            query: format!("news {}", i / 20),
            url: format!("https://news.example/story/{i}"),
            title: r[1].to_string(),
            snippet: r[2].to_string(),
        });
    }
    // Planted copies: every 13th record, from a long-snippet record.
    let mut planted = Vec::new();
    let long: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].snippet.chars().count() >= 60)
        .collect();
    for k in 0..200 {
        let src = &out[long[(k * 13) % long.len()]];
        planted.push(if k % 2 == 0 {
            Rec {
                query: src.query.clone(),
                url: format!(
                    "{}?utm_source=bench#top",
                    src.url.replacen("https://", "http://www.", 1)
                ),
                title: format!("{} (copy)", src.title),
                snippet: String::new(),
            }
        } else {
            let n = src.snippet.chars().count() * 4 / 5;
            Rec {
                query: src.query.clone(),
                url: format!("{}/mirror", src.url),
                title: format!("Mirror: {}", src.title),
                snippet: src.snippet.chars().take(n).collect::<String>() + "...",
            }
        });
    }
    out.extend(planted);
    assert_eq!(out.len(), 2000);
    out
}

pub fn docs(recs: &[Rec]) -> Vec<Doc<'_>> {
    recs.iter()
        .map(|r| Doc::new(&r.url, &r.title, &r.snippet))
        .collect()
}
