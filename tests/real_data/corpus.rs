//! The real-data traps, on whole corpora of the team's data folder:
//! DuReader's boilerplate snippets (`百度经验:jingyan.baidu.com`, a site's
//! warning about outside links) must not merge different pages, and AG
//! news' wire stories reached through several feeds must merge; DuReader's
//! titles normalize idempotently.

use std::collections::HashMap;

use metasift_dedup::{Deduper, Doc, Settings, Stage};
use serde::Deserialize;
use std::path::Path;

use crate::real_data::Cases;

/// One case per corpus file.
pub fn cases(cases: &mut Cases) {
    cases.file(
        "dedup_corpus",
        "corpus/dureader_search_zh/search_results.jsonl",
        dureader_boilerplate_never_merges_different_titles,
    );
    cases.file(
        "dedup_corpus",
        "corpus/ag_news_en/test.csv",
        ag_news_wire_stories_merge_across_feeds,
    );
    cases.file(
        "normalize",
        "corpus/dureader_search_zh/search_results.jsonl",
        real_titles_normalize_idempotently,
    );
}

fn real_titles_normalize_idempotently(path: &Path) {
    use metasift_dedup::normalize_title;
    let text = read(path);
    let mut n = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("jsonl line");
        for r in v["results"].as_array().into_iter().flatten() {
            let t = r["title"].as_str().unwrap_or_default();
            let once = normalize_title(t);
            assert_eq!(normalize_title(&once), once, "title {t:?}");
            if !t.trim().is_empty() {
                assert!(!once.is_empty(), "title {t:?} normalized to nothing");
            }
            n += 1;
        }
    }
    assert!(n > 1000, "only {n} titles read");
}

#[derive(Deserialize)]
struct Question {
    question_id: u64,
    results: Vec<Result>,
}

#[derive(Deserialize)]
struct Result {
    title: String,
    snippet: String,
}

/// The file's text; a missing file fails the test.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dureader_boilerplate_never_merges_different_titles(path: &Path) {
    let text = read(path);
    let questions: Vec<Question> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("DuReader line"))
        .collect();
    let mut d = Deduper::new(&Settings::default());
    let mut records = Vec::new();
    let mut verdicts = Vec::new();
    for q in &questions {
        let query = q.question_id.to_string();
        // Ranks repeat inside some lists, so the link is made from the position.
        for (pos, r) in q.results.iter().enumerate() {
            let url = format!("https://dureader.example/{}/{pos}", q.question_id);
            let doc = Doc::new(&url, &r.title, &r.snippet);
            verdicts.push(d.push_query(Some(&query), doc));
            records.push((q.question_id, r));
        }
    }
    assert_eq!(verdicts.len(), 1393);
    let boilerplate = [
        "百度经验:jingyan.baidu.com",
        "该经验图片、文字中可能存在外站链接或电话号码等,请注意识别,谨防上当受骗!",
        "暂无评价|0人阅读|0次下载|举报文档",
    ];
    let mut by_stage: HashMap<Option<Stage>, usize> = HashMap::new();
    for (i, v) in verdicts.iter().enumerate() {
        *by_stage.entry(v.stage).or_default() += 1;
        let (qid, r) = records[i];
        if v.is_kept() {
            continue;
        }
        let (kqid, kept) = records[v.cluster];
        assert_eq!(qid, kqid, "merged across questions");
        if v.stage == Some(Stage::Snippet) {
            assert!(
                !boilerplate.contains(&r.snippet.as_str()),
                "boilerplate merged: {:?} into {:?}",
                r.title,
                kept.title
            );
        }
    }
    eprintln!("DuReader verdicts by stage: {by_stage:?}");
    // Real copies exist in the set (85 repeated titles, copied answers):
    // the method must find a good share of them, not just refuse everything.
    let merged = by_stage.get(&Some(Stage::Title)).copied().unwrap_or(0)
        + by_stage.get(&Some(Stage::Snippet)).copied().unwrap_or(0);
    assert!(merged >= 20, "only {merged} duplicates found");
}

fn ag_news_wire_stories_merge_across_feeds(path: &Path) {
    let text = read(path);
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let recs: Vec<(String, String)> = rows
        .records()
        .map(|r| {
            let r = r.expect("AG row");
            (r[1].to_string(), r[2].to_string())
        })
        .collect();
    let mut d = Deduper::new(&Settings::default());
    let mut first_by_desc: HashMap<&str, usize> = HashMap::new();
    let (mut expected, mut found, mut implausible, mut other) = (0, 0, 0, 0);
    for (i, (title, desc)) in recs.iter().enumerate() {
        let url = format!("https://feed.example/{i}");
        let v = d.push(Doc::new(&url, title, desc));
        match first_by_desc.get(desc.as_str()) {
            Some(&first) => {
                expected += 1;
                if !v.is_kept() && v.cluster == first {
                    found += 1;
                }
            }
            None => {
                first_by_desc.insert(desc, i);
                if !v.is_kept() && recs[v.cluster].1 != *desc {
                    // Most such merges are one story from two feeds with a
                    // dateline or a word changed; call a merge implausible
                    // when the two texts share under half their words.
                    other += 1;
                    if word_overlap(desc, &recs[v.cluster].1) < 0.5 {
                        implausible += 1;
                        eprintln!("implausible merge:\n  {desc}\n  {}", recs[v.cluster].1);
                    }
                }
            }
        }
    }
    eprintln!(
        "AG news: {found} of {expected} repeated descriptions merged; \
         {other} merges of different descriptions, {implausible} implausible"
    );
    assert!(expected >= 5);
    assert!(found * 10 >= expected * 8, "{found} of {expected}");
    assert!(other >= 10, "near-identical feed copies should merge too");
    assert!(implausible <= 2, "{implausible} implausible merges");
}

/// Share of the smaller text's lowercase words found in the other.
fn word_overlap(a: &str, b: &str) -> f64 {
    use std::collections::HashSet;
    let words = |s: &str| -> HashSet<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    let m = wa.len().min(wb.len()).max(1);
    wa.intersection(&wb).count() as f64 / m as f64
}
