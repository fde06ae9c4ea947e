//! `metasift lab` end to end on the team's real data: a synthetic
//! multi-engine set built from DuReader, and the precision floor on PAWS-X
//! zh (its first 200 dev pairs).

use std::path::Path;

use crate::lab_cli::{self, lab, out_dir};
use crate::real_data::Cases;

/// One case per data file.
pub fn cases(cases: &mut Cases) {
    cases.add(
        "lab::corpus/dureader_search_zh/search_results.jsonl",
        lab_builds_and_sweeps_a_synthetic_set,
    );
    cases.file(
        "lab",
        "pairs/pawsx_zh/dev.tsv",
        best_setting_is_chosen_under_the_precision_floor_on_real_pawsx_pairs,
    );
}

fn lab_builds_and_sweeps_a_synthetic_set(root: &Path) {
    lab_cli::check_synth_sweep("dureader", &["--data-root", root.to_str().unwrap()]);
}

fn best_setting_is_chosen_under_the_precision_floor_on_real_pawsx_pairs(path: &Path) {
    // 200 real PAWS-X zh dev pairs: paraphrases with swapped entities, where
    // a loose SimHash calls almost everything a duplicate.
    // The header and the first 200 rows, in a folder named `lab` as the
    // report names it.
    let text = std::fs::read_to_string(path).unwrap();
    let head: Vec<&str> = text.lines().take(201).collect();
    let dir = out_dir("floor-data").join("lab");
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("pawsx_zh_dev200.tsv");
    std::fs::write(&data, head.join("\n") + "\n").unwrap();
    let data = data.to_str().unwrap().to_string();
    let out = out_dir("floor");
    let run = |floor: &str| {
        let (ok, stderr) = lab(&[
            "--data",
            &data,
            "--method",
            "simhash",
            "--sweep",
            "0.1:0.9:0.1",
            "--precision-floor",
            floor,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{stderr}");
        std::fs::read_to_string(out.join("report.md")).unwrap()
    };
    let section = |report: &str, heading: &str| -> String {
        let start = report
            .find(heading)
            .unwrap_or_else(|| panic!("{heading}: {report}"));
        let rest = &report[start..];
        let line = rest
            .lines()
            .find(|l| l.contains("| simhash |"))
            .unwrap_or_else(|| panic!("no simhash row under {heading}: {report}"));
        line.to_string()
    };
    let report = run("0.9");
    let best = section(&report, "## Best setting per method");
    let max_f1 = section(&report, "## For comparison: the max-F1 setting");
    // | data set | method | setting | precision | … : the 4th cell.
    let precision = |line: &str| -> f64 { line.split('|').nth(4).unwrap().trim().parse().unwrap() };
    assert!(precision(&best) > precision(&max_f1), "{best}\n{max_f1}");
    assert!(report.contains("precision ≥ 0.9"), "{report}");
    // The all-duplicate baseline is the share of duplicates.
    let baseline = report
        .lines()
        .find(|l| l.starts_with("| lab/pawsx_zh_dev200.tsv |") && l.contains("/ 1.000 /"))
        .expect("a baseline row");
    assert!(baseline.contains("1.000 / 0.000"), "{baseline}");
    // A floor outside 0–1 is refused.
    let (ok, stderr) = lab(&[
        "--data",
        &data,
        "--precision-floor",
        "1.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("--precision-floor"), "{stderr}");
}
