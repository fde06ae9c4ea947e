//! The command line against careless and hostile files (#12): `dedup` with
//! a byte order mark and with files that are not there, `lab --sweep` with
//! a step that would allocate 80 GB, `check-config` on an empty file. The
//! built binary, as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn metasift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(args)
        .output()
        .expect("metasift runs")
}

fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("metasift-hostile-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn dedup_keeps_the_first_record_of_a_file_with_a_byte_order_mark() {
    let dir = scratch("bom");
    let input = dir.join("bom.jsonl");
    let a = r#"{"id":"first","url":"https://a.example/x","title":"Alpha","snippet":"one"}"#;
    let b = r#"{"id":"second","url":"https://a.example/x","title":"Alpha","snippet":"one"}"#;
    std::fs::write(&input, format!("\u{FEFF}{a}\n{b}\n")).unwrap();
    let out = metasift(&["dedup", "--input", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["id"], "first");
    assert_eq!(lines[0]["cluster"], "first");
    assert_eq!(lines[1]["cluster"], "first");
}

#[test]
fn dedup_errors_name_the_file() {
    let dir = scratch("names");
    let missing = dir.join("no-such-input.jsonl");
    let out = metasift(&["dedup", "--input", missing.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: ", missing.display())) && err.contains("No such file"),
        "{err}"
    );

    let input = dir.join("ok.jsonl");
    std::fs::write(
        &input,
        "{\"id\":1,\"url\":\"https://a.example/\",\"title\":\"A\",\"snippet\":\"s\"}\nnot json\n",
    )
    .unwrap();
    let out_file = dir.join("no-such-folder").join("out.jsonl");
    let out = metasift(&[
        "dedup",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out_file.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.contains(&format!("{}: ", out_file.display())), "{err}");

    // A bad line: the file and the line.
    let out = metasift(&["dedup", "--input", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: line 2: ", input.display())),
        "{err}"
    );
}

#[test]
fn lab_refuses_a_sweep_of_a_billion_points_before_allocating() {
    let dir = scratch("sweep");
    let data = dir.join("pairs.tsv");
    std::fs::write(&data, "text_a\ttext_b\tlabel\nAlpha one\tAlpha one\t1\n").unwrap();
    for (sweep, says) in [
        ("0:1:1e-9", "below 0.000001"),
        ("0:1:0.00001", "is 100001 thresholds; at most 1000"),
    ] {
        let out = metasift(&[
            "lab",
            "--data",
            data.to_str().unwrap(),
            "--sweep",
            sweep,
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{sweep}: {err}");
        assert!(err.contains(says), "{sweep}: {err}");
    }
}

#[test]
fn check_config_refuses_an_empty_file() {
    let dir = scratch("empty");
    let empty = dir.join("empty.toml");
    // An empty file is laid over the built-in defaults (issue #15): those
    // engines, a working configuration.
    std::fs::write(&empty, "").unwrap();
    let out = metasift(&["check-config", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Empty on its own: no engine at all, refused.
    std::fs::write(&empty, "use_defaults = false\n").unwrap();
    let out = metasift(&["check-config", empty.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}:1:", empty.display())) && err.contains("no engine"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ok"));
}
