//! `metasift lab` end to end on the team's real data: a synthetic
//! multi-engine set built from DuReader, and the precision floor on PAWS-X
//! zh (its first 200 dev pairs).

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lab-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lab(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .arg("lab")
        .args(args)
        .output()
        .expect("run metasift");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Header and rows of a CSV file.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

pub(crate) fn check_plots(dir: &Path) {
    let svg = std::fs::read_to_string(dir.join("plot.svg")).unwrap();
    assert!(svg.contains("<polyline"), "plot.svg has no curves");
    // A build without the `png` feature writes the SVG alone.
    #[cfg(not(feature = "png"))]
    assert!(!dir.join("plot.png").exists());
    #[cfg(feature = "png")]
    check_png(dir, &svg);
}

#[cfg(feature = "png")]
fn check_png(dir: &Path, svg: &str) {
    let doc = resvg::usvg::roxmltree::Document::parse(svg).expect("plot.svg is XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let png = std::fs::read(dir.join("plot.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "plot.png signature");
    assert_eq!(&png[12..16], b"IHDR");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(width >= 600 && height >= 300, "{width}x{height}");
    assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
}

fn lab_builds_and_sweeps_a_synthetic_set(root: &Path) {
    let dir = out_dir("synth");
    let (ok, stderr) = lab(&[
        "--synth",
        "dureader",
        "--data-root",
        root.to_str().unwrap(),
        "--limit",
        "4",
        "--method",
        "feature-code",
        "--method",
        "none",
        "--window",
        "1,2",
        "--sweep",
        "0.6:0.8:0.2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let jsonl = std::fs::read_to_string(dir.join("synth-dureader.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(records.len() > 20, "{}", records.len());
    for r in &records {
        for field in ["id", "url", "title", "snippet", "group", "query", "engine"] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
    }
    let queries: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r["query"].as_str().unwrap())
        .collect();
    assert_eq!(queries.len(), 4);

    let (_, rows) = read_csv(&dir.join("results.csv"));
    let series: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[8].as_str()).collect();
    assert_eq!(
        series.into_iter().collect::<Vec<_>>(),
        ["feature-code w1 char", "feature-code w2 char", "none"]
    );
    assert_eq!(rows.len(), 5);
    check_plots(&dir);
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
