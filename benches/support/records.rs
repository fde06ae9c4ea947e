//! The 2,000 records of the dedup benchmark (`benches/dedup.rs`) and of its
//! CPU-time twin (`tools/src/bin/dedup_cpu.rs`): with the team's data folder
//! (`metasift_data`), all 1,393 DuReader Baidu results (300 result lists)
//! and 407 AG news items; without it, 1,800 generated results
//! (`metasift_data::generated`) under as many lists. Then 200 planted
//! copies of earlier records — 100 with the link decorated (`www.`,
//! `http:`, `utm_source`, a fragment) and 100 with the snippet cut to 80 %
//! plus `...` under a different title. [`records`] says on stderr which
//! it used: figures of the two are not comparable. Include it with
//! `#[path = "…/benches/support/records.rs"] mod records;`.

use metasift_dedup::Doc;
use serde::Deserialize;

const DUREADER: &str = "corpus/dureader_search_zh/search_results.jsonl";
const AG_NEWS: &str = "corpus/ag_news_en/test.csv";

/// The text of `<data folder>/<rel>`; a missing file panics naming it.
fn real(root: &std::path::Path, rel: &str) -> String {
    let path = root.join(rel);
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
    let mut out = match metasift_data::root() {
        Some(root) => {
            eprintln!(
                "records: the real corpora of {} (DuReader, AG news)",
                root.display()
            );
            real_records(&root)
        }
        None => {
            eprintln!(
                "records: generated text (metasift_data::generated); {}",
                metasift_data::ABSENT
            );
            metasift_data::generated::results(0xbe7c, 1800)
                .into_iter()
                .enumerate()
                .map(|(i, (title, snippet))| Rec {
                    query: format!("q{}", i / 6),
                    url: format!("https://site{}.example/{}/{i}", i % 7, i / 6),
                    title,
                    snippet,
                })
                .collect()
        }
    };
    plant_copies(&mut out);
    assert_eq!(out.len(), 2000);
    out
}

/// The DuReader results and the first 407 AG news items.
fn real_records(root: &std::path::Path) -> Vec<Rec> {
    let mut out = Vec::new();
    let text = real(root, DUREADER);
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
    let ag = real(root, AG_NEWS);
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
    out
}

/// 200 planted copies: every 13th record, from a long-snippet record.
fn plant_copies(out: &mut Vec<Rec>) {
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
}

pub fn docs(recs: &[Rec]) -> Vec<Doc<'_>> {
    recs.iter()
        .map(|r| Doc::new(&r.url, &r.title, &r.snippet))
        .collect()
}
