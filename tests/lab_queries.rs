//! `metasift lab --queries FILE --replay DIR`: recorded queries fused under
//! every method and threshold, written for reading and labeling.

use std::process::Command;

#[test]
fn recorded_queries_are_fused_under_every_setting() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::env::temp_dir().join(format!("metasift-labq-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let queries = out.join("queries.txt");
    std::fs::write(
        &queries,
        "# saved in tests/fixtures/serp\njavascript tutorial\n\nHello\n",
    )
    .unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["lab", "--queries"])
        .arg(&queries)
        .args(["--replay", &format!("{root}/tests/fixtures/serp")])
        .args(["--config", &format!("{root}/engines.toml")])
        .args(["--method", "feature-code", "--method", "none"])
        .args(["--sweep", "0.5:0.9:0.2", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());

    // 2 queries × (3 feature-code thresholds + 1 for `none`).
    let csv = std::fs::read_to_string(out.join("fused.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 8, "{csv}");
    let fused = std::fs::read_to_string(out.join("fused.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = fused
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 8);
    for line in &lines {
        let results = line["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{}", line["query"]);
        for r in results {
            for d in r["duplicates"].as_array().unwrap() {
                // URL-only never merges on text.
                if line["series"] == "none" {
                    assert_eq!(d["stage"], "url");
                }
            }
        }
    }
    // Feature codes merge more than URL-only on real output, and a looser
    // os2 never hides fewer records than a stricter one here.
    let hidden = |q: &str, series: &str, t: &str| -> usize {
        rows.iter()
            .map(|r| r.split(',').collect::<Vec<_>>())
            .find(|c| c[0] == q && c[1] == series && c[2] == t)
            .map(|c| c[5].parse().unwrap())
            .unwrap()
    };
    for q in ["javascript tutorial", "Hello"] {
        assert!(hidden(q, "feature-code", "0.5") >= hidden(q, "feature-code", "0.9"));
        assert!(hidden(q, "feature-code", "0.5") > hidden(q, "none", ""));
    }
    // Every merged pair is offered for labeling once, with who merged it.
    let labels = std::fs::read_to_string(out.join("to-label.jsonl")).unwrap();
    assert!(labels.lines().count() > 0);
    for l in labels.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["duplicate"].is_null());
        assert!(v["a"]["url"].is_string() && v["b"]["title"].is_string());
        assert!(!v["merged_by"].as_array().unwrap().is_empty());
    }
    std::fs::remove_dir_all(&out).ok();
}
