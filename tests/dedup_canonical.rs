//! One item under many links (issue #27): `metasift dedup` on the mixed
//! example (57 records of 28 items, `tests/data/canonical_mixed.jsonl`,
//! written by us in the link forms engines use), and the fused result
//! showing the most useful link of its group.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use metasift::fusion::{EngineAnswer, fuse};
use metasift::model::EngineResult;

const MIXED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/canonical_mixed.jsonl"
);

/// The item of a record: its id up to `#`.
fn item(id: &str) -> &str {
    id.split_once('#').map_or(id, |(i, _)| i)
}

#[test]
fn the_mixed_example_folds_every_true_pair_and_no_false_one() {
    let input = std::fs::read(MIXED).expect("the mixed example");
    let mut child = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .arg("dedup")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("metasift runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("metasift finishes");
    writer.join().expect("writer").expect("input written");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 57);
    let ids: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("string id").to_string())
        .collect();
    let cluster: HashMap<&str, &str> = lines
        .iter()
        .zip(&ids)
        .map(|(l, id)| (id.as_str(), l["cluster"].as_str().expect("cluster id")))
        .collect();
    let items: std::collections::HashSet<&str> = ids.iter().map(|i| item(i)).collect();
    assert_eq!(items.len(), 28);
    let (mut true_pairs, mut folded, mut false_folds) = (0, 0, Vec::new());
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            let same_cluster = cluster[a.as_str()] == cluster[b.as_str()];
            if item(a) == item(b) {
                true_pairs += 1;
                folded += usize::from(same_cluster);
            } else if same_cluster {
                false_folds.push(format!("{a} ~ {b}"));
            }
        }
    }
    assert_eq!(true_pairs, 57);
    assert_eq!(folded, 57, "{folded} of {true_pairs} true pairs folded");
    assert!(false_folds.is_empty(), "false folds: {false_folds:?}");
    // The canonical stage is the URL stage in the JSON Lines contract.
    for l in &lines {
        let stage = &l["stage"];
        assert!(stage.is_null() || stage == "url" || stage == "title" || stage == "snippet");
    }
    let by_url = lines.iter().filter(|l| l["stage"] == "url").count();
    assert_eq!(
        by_url,
        57 - 28,
        "every attached record is attached by its link"
    );
}

fn rec(engine: &str, url: &str, title: &str) -> EngineResult {
    EngineResult {
        published: None,
        thumbnail: None,
        key_url: None,
        display_url: None,
        extra: None,
        url: url.into(),
        title: title.into(),
        snippet: format!("{title}: what {engine} says of it."),
        engine: engine.into(),
        position: 1,
        category: "general".into(),
    }
}

/// The best-placed record is the PDF (or the embed), yet the result shows
/// the abstract page (the watch page), and lists the PDF among its
/// duplicates under the engine that gave it.
#[test]
fn the_kept_result_shows_the_most_useful_link_and_lists_the_others() {
    let answers = |a: EngineResult, b: EngineResult| {
        [
            EngineAnswer {
                engine: a.engine.clone(),
                weight: 2.0,
                results: vec![a],
            },
            EngineAnswer {
                engine: b.engine.clone(),
                weight: 1.0,
                results: vec![b],
            },
        ]
    };
    let s = metasift_dedup::Settings::default();
    for (worse, better) in [
        (
            "https://arxiv.org/pdf/1706.03762v7",
            "https://arxiv.org/abs/1706.03762",
        ),
        (
            "https://www.youtube.com/embed/dQw4w9WgXcQ",
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        ),
        (
            "https://github.com/rust-lang/rust.git",
            "https://github.com/rust-lang/rust",
        ),
    ] {
        let fused = fuse(
            &answers(
                rec("first", worse, "PDF"),
                rec("second", better, "Abstract"),
            ),
            &s,
            &metasift::config::FusionSettings::default(),
            false,
        );
        assert_eq!(fused.len(), 1, "{fused:?}");
        let r = &fused[0];
        assert_eq!(r.url, better);
        assert_eq!(r.engine, "second");
        assert_eq!(r.engines, ["first", "second"]);
        assert_eq!(r.duplicates.len(), 1);
        let d = &r.duplicates[0];
        assert_eq!((d.url.as_str(), d.engine.as_str()), (worse, "first"));
        assert_eq!(d.stage, metasift_dedup::Stage::Url);
        // The more useful link first: nothing moves.
        let fused = fuse(
            &answers(
                rec("first", better, "Abstract"),
                rec("second", worse, "PDF"),
            ),
            &s,
            &metasift::config::FusionSettings::default(),
            false,
        );
        assert_eq!(fused[0].url, better);
        assert_eq!(fused[0].duplicates[0].url, worse);
    }
}
