//! `metasift dedup` starts from the configured `[dedup]` (issue #26): with
//! `os2 = 0.99` in the configuration it gives other verdicts than with the
//! defaults, and for the same records the same verdicts as the results page
//! (`/search?format=json`, its duplicates) under the same configuration.
//!
//! Run with `cargo test --test dedup_config`.

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use support::LoopbackEngine;
use support::router::{app_with, config, get_from};

/// One engine's page: a story, a retelling of it that shares most of its
/// clauses (similarity 12/13 by the shipped feature codes), an unrelated page and a copy of the story, each on its own site
/// (one engine's description of two links of one site is no evidence).
const RECORDS: [(&str, &str, &str); 4] = [
    (
        "https://one.example/rates",
        "Rates rise again",
        "The central bank raised rates on Tuesday, citing inflation, wages and energy \
         prices; it said more may follow, that growth is slowing, and that markets had \
         expected the move, according to analysts in London, Paris and Frankfurt.",
    ),
    (
        "https://two.example/bank",
        "Central bank lifts its rate",
        "The central bank raised rates on Tuesday, citing inflation, wages and energy \
         prices; it said more may follow, that growth is slowing, and that markets had \
         expected the move, according to traders in London, Paris and Frankfurt.",
    ),
    (
        "https://three.example/ferry",
        "Ferry timetable",
        "Boats leave at nine, ten and noon; the last one, in summer, at eight.",
    ),
    (
        "https://four.example/copy",
        "Bank raises rates",
        "The central bank raised rates on Tuesday, citing inflation, wages and energy \
         prices; it said more may follow, that growth is slowing, and that markets had \
         expected the move, according to analysts in London, Paris and Frankfurt.",
    ),
];

/// A folded record: (its link, its kept record's link, stage).
type Verdict = (String, String, String);

/// `metasift dedup --config CONFIG FLAGS` over [`RECORDS`], as the engine
/// `a` gave them: the records folded into another, and its stderr.
fn cli_verdicts(config: &Path, flags: &[&str]) -> (BTreeSet<Verdict>, String) {
    let input: String = RECORDS
        .iter()
        .enumerate()
        .map(|(i, (url, title, snippet))| {
            serde_json::json!({
                "id": i, "url": url, "title": title, "snippet": snippet,
                "engine": "a", "position": i + 1,
            })
            .to_string()
                + "\n"
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["dedup", "--config"])
        .arg(config)
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("metasift runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let verdicts = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| !v["stage"].is_null())
        .map(|v| {
            let id = v["id"].as_u64().unwrap() as usize;
            let kept = v["cluster"].as_u64().unwrap() as usize;
            (
                RECORDS[id].0.to_string(),
                RECORDS[kept].0.to_string(),
                v["stage"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (verdicts, stderr)
}

/// The same records answered by an engine `a` on loopback, searched through
/// the web app under a configuration with `dedup` as its `[dedup]` table:
/// the duplicates of `/search?format=json`.
async fn page_verdicts(dedup: &str) -> BTreeSet<Verdict> {
    let engine = LoopbackEngine::spawn(support::test_page(&RECORDS)).await;
    let mut config = config(dedup);
    config.engines = vec![support::test_engine_config("a", &engine.base_url())];
    let (head, body) = get_from(&app_with(config), "/search?format=json&q=rates").await;
    assert_eq!(head.status(), 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let mut verdicts = BTreeSet::new();
    for r in v["results"].as_array().unwrap() {
        for d in r["duplicates"].as_array().unwrap() {
            verdicts.insert((
                d["url"].as_str().unwrap().to_string(),
                r["url"].as_str().unwrap().to_string(),
                d["stage"].as_str().unwrap().to_string(),
            ));
        }
    }
    verdicts
}

#[tokio::test]
async fn dedup_starts_from_the_configured_settings_and_agrees_with_the_page() {
    let dir = std::env::temp_dir().join(format!("metasift-dedup-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let strict_table = "[dedup]\nos2 = 0.99\n";
    let (plain, strict) = (dir.join("plain.toml"), dir.join("strict.toml"));
    std::fs::write(&plain, "").unwrap();
    std::fs::write(&strict, strict_table).unwrap();

    let (by_default, _) = cli_verdicts(&plain, &[]);
    let (by_config, said) = cli_verdicts(&strict, &[]);
    assert!(
        said.contains(&strict.display().to_string()),
        "stderr names the configuration used: {said}"
    );
    // The retelling is folded at os2 0.8, not at 0.99; the copy at both.
    let retold = (
        RECORDS[1].0.to_string(),
        RECORDS[0].0.to_string(),
        "snippet".to_string(),
    );
    assert!(by_default.contains(&retold), "{by_default:?}");
    assert!(!by_config.contains(&retold), "{by_config:?}");
    assert_ne!(by_default, by_config);

    assert_eq!(page_verdicts("").await, by_default);
    assert_eq!(page_verdicts(strict_table).await, by_config);

    // The flags are laid over the configured table.
    let (again, _) = cli_verdicts(&strict, &["--os2", "0.8"]);
    assert_eq!(again, by_default);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lab_starts_from_the_configured_settings() {
    let dir = std::env::temp_dir().join(format!("metasift-lab-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("strict.toml");
    std::fs::write(&config, "[dedup]\nos2 = 0.99\nwindow = 3\n").unwrap();
    let pair = |a: (&str, &str, &str), b: (&str, &str, &str), duplicate: bool| {
        let record = |(url, title, snippet): (&str, &str, &str)| serde_json::json!({"url": url, "title": title, "snippet": snippet});
        serde_json::json!({"a": record(a), "b": record(b), "duplicate": duplicate}).to_string()
    };
    let data = dir.join("pairs.jsonl");
    std::fs::write(
        &data,
        [
            pair(RECORDS[0], RECORDS[1], true),
            pair(RECORDS[0], RECORDS[2], false),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["lab", "--method", "feature-code", "--sweep-os", "os1"])
        .args(["--sweep", "0.5:0.5:0.1", "--config"])
        .arg(&config)
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("metasift runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains(&config.display().to_string()), "{stderr}");
    // os2 is held where the configuration puts it while os1 is swept, and
    // the configured window is the one measured.
    let mut csv = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let measured: Vec<&csv::StringRecord> = rows
        .iter()
        .filter(|r| &r[col("method")] == "feature-code")
        .collect();
    assert!(!measured.is_empty(), "{rows:?}");
    for r in measured {
        assert_eq!(&r[col("os2")], "0.99", "{r:?}");
        assert_eq!(&r[col("window")], "3", "{r:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
