//! `metasift lab` run as a child process, and checks of what it writes:
//! shared by `tests/lab.rs` (our own pair files and the built-in sample)
//! and `tests/real_data/lab.rs` (the team's data).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lab-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn lab(args: &[&str]) -> (bool, String) {
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
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

pub fn check_plots(dir: &Path) {
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

/// `metasift lab --synth CORPUS` with `args` (a `--limit 4` set swept with
/// feature codes at windows 1 and 2 and with no dedup) wrote four queries'
/// records with every field, five result rows in three series, and plots.
pub fn check_synth_sweep(corpus: &str, args: &[&str]) {
    let dir = out_dir(&format!("synth-{corpus}"));
    let mut all = vec!["--synth", corpus];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
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
    let (ok, stderr) = lab(&all);
    assert!(ok, "{stderr}");
    let jsonl = std::fs::read_to_string(dir.join(format!("synth-{corpus}.jsonl"))).unwrap();
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
