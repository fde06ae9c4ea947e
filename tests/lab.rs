//! `metasift lab` end to end: the binary on pair files of our own
//! (`tests/data/lab/`) and on a synthetic multi-engine set built from the
//! built-in sample, checking every output file. The same on the team's
//! real data is in `tests/real_data/lab.rs`.

#[path = "support/lab_cli.rs"]
mod lab_cli;

use std::process::Command;

use lab_cli::{check_plots, lab, out_dir, read_csv};

const OWN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lab");

#[test]
fn lab_sweeps_a_pair_file_and_reports_bad_lines() {
    // 40 STS-B-shaped pairs of ours, plus two broken lines, as a user's file would be.
    let source = std::fs::read_to_string(format!("{OWN}/en_pairs.tsv"))
        .expect("tests/data/lab/en_pairs.tsv");
    let mut lines: Vec<&str> = source.lines().take(41).collect();
    lines.insert(5, "broken-line\twith only two fields");
    lines.push("bad-score\tA man.\tA man.\t\tfive");
    let dir = out_dir("pairs");
    let data = dir.join("stsb_en_dev_head.tsv");
    std::fs::write(&data, lines.join("\n") + "\n").unwrap();

    let out = dir.join("out");
    let (ok, stderr) = lab(&[
        "--data",
        data.to_str().unwrap(),
        "--sweep",
        "0.5:1:0.25",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let shown = data.display().to_string();
    assert!(
        stderr.contains(&format!("{shown}:6: expected 5 tab-separated fields")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{shown}:43: score \"five\"")),
        "{stderr}"
    );

    let (header, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(
        header[..7],
        [
            "method",
            "os1",
            "os2",
            "precision",
            "recall",
            "f1",
            "seconds"
        ]
    );
    // feature-code, rabin: 3 thresholds; simhash: 3 distances; none: 1.
    assert_eq!(rows.len(), 10, "{rows:?}");
    let count = |m: &str| rows.iter().filter(|r| r[0] == m).count();
    assert_eq!(
        (
            count("feature-code"),
            count("simhash"),
            count("rabin"),
            count("none")
        ),
        (3, 3, 3, 1)
    );
    for r in &rows {
        for v in &r[3..6] {
            let v: f64 = v.parse().unwrap();
            assert!((0.0..=1.0).contains(&v), "{r:?}");
        }
    }
    // os2 moves with the threshold for feature-code.
    let os2: Vec<&str> = rows
        .iter()
        .filter(|r| r[0] == "feature-code")
        .map(|r| r[2].as_str())
        .collect();
    assert_eq!(os2, ["0.5", "0.75", "1"]);

    check_plots(&out);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("stsb_en_dev_head.tsv"), "{report}");
    assert!(report.contains("Best setting"), "{report}");
    // The floor, the baselines and the true / false positives are stated.
    assert!(report.contains("precision ≥ 0.98"), "{report}");
    assert!(report.contains("## Trivial baselines"), "{report}");
    assert!(report.contains("| TP | FP |"), "{report}");
    let best = report
        .lines()
        .find(|l| l.contains("| feature-code |"))
        .expect("a best feature-code row");
    assert!(best.contains("os2="), "{best}");
    assert!(report.contains(":6: expected 5 tab-separated fields"));
}

#[test]
fn lab_builds_and_sweeps_a_synthetic_set() {
    lab_cli::check_synth_sweep("sample", &[]);
}

#[test]
fn lab_refuses_unknown_layouts_naming_the_file() {
    let dir = out_dir("unknown");
    let data = dir.join("notes.txt");
    std::fs::write(&data, "just some text\nno header\n").unwrap();
    let (ok, stderr) = lab(&[
        "--data",
        data.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("notes.txt"), "{stderr}");
    assert!(stderr.contains("text_a"), "{stderr}");
}

/// Without the team's data folder (`METASIFT_DATA` naming a missing one)
/// a real corpus is refused, naming the variable and the built-in sample.
#[test]
fn a_real_corpus_without_the_data_folder_is_refused_naming_the_way_out() {
    let dir = out_dir("no-data");
    let out = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["lab", "--synth", "ag-news", "--out"])
        .arg(&dir)
        .env("METASIFT_DATA", dir.join("nowhere"))
        .output()
        .expect("run metasift");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("METASIFT_DATA") && stderr.contains("--synth sample"),
        "{stderr}"
    );
}
