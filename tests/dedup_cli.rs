//! `metasift dedup` as a user runs it: the built binary, JSON Lines in and out.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .arg("dedup")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("metasift runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // Write from a thread: a large input must not deadlock against stdout.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("metasift finishes");
    writer.join().expect("writer");
    out
}

fn lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone())
        .expect("UTF-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect()
}

const STORY: &str = "The central bank raised rates on Tuesday, citing inflation. \
    Markets fell sharply; analysts said more hikes may follow, and bonds slid.";

fn rec(id: serde_json::Value, url: &str, title: &str, snippet: &str) -> String {
    serde_json::json!({"id": id, "url": url, "title": title, "snippet": snippet}).to_string()
}

#[test]
fn verdicts_in_input_order_with_id_types_kept() {
    let input = [
        rec(1.into(), "https://a.example/1", "Bank raises rates", STORY),
        rec("b".into(), "https://a.example/1?utm_source=x", "x", ""),
        rec(3.into(), "https://c.example/3", "Rates up again", STORY),
        rec(
            "d".into(),
            "https://d.example/4",
            "Bank raises rates",
            STORY,
        ),
        rec(
            5.into(),
            "https://e.example/5",
            "Other",
            "Nothing in common here, at all.",
        ),
    ]
    .join("\n");
    let out = run(&[], input.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = lines(&out);
    let got: Vec<_> = v
        .iter()
        .map(|l| (l["id"].clone(), l["cluster"].clone(), l["stage"].clone()))
        .collect();
    use serde_json::json;
    assert_eq!(
        got,
        vec![
            (json!(1), json!(1), json!(null)),
            (json!("b"), json!(1), json!("url")),
            (json!(3), json!(1), json!("snippet")),
            (json!("d"), json!(1), json!("title")),
            (json!(5), json!(5), json!(null)),
        ]
    );
    assert_eq!(v[2]["similarity"], json!(1.0));
    assert_eq!(v[1]["similarity"], json!(null));
}

#[test]
fn bad_lines_are_reported_and_skipped() {
    let mut input = Vec::new();
    input.extend_from_slice(rec(1.into(), "https://a/", "t", "s").as_bytes());
    input.extend_from_slice(b"\n{not json\n");
    input.extend_from_slice(b"{\"id\": 3, \"url\": \"https://c/\", \"title\": \"t\"}\n");
    input.extend_from_slice(
        b"{\"id\": 4.5, \"url\": \"https://d/\", \"title\": \"t\", \"snippet\": \"\"}\n",
    );
    input.extend_from_slice(
        b"{\"id\": 5, \"url\": \"https://e/\", \"title\": \"\xff\xfe\", \"snippet\": \"\"}\n",
    );
    input.extend_from_slice(b"{\"id\": 6, \"url\": 6, \"title\": \"t\", \"snippet\": \"\"}\n");
    input.extend_from_slice(b"[1, 2]\n\n");
    input.extend_from_slice(rec(8.into(), "https://a/", "t", "s").as_bytes());
    let out = run(&[], &input);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for n in [2, 3, 4, 5, 6, 7] {
        assert!(
            err.contains(&format!("line {n}: ")),
            "line {n} not reported:\n{err}"
        );
    }
    assert!(err.contains("line 5: invalid UTF-8"), "{err}");
    assert!(err.contains("missing field `snippet`"), "{err}");
    assert!(!err.contains("line 8"), "the blank line is not bad:\n{err}");
    let v = lines(&out);
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["id"], 8);
    assert_eq!(v[1]["cluster"], 1);
}

#[test]
fn empty_huge_and_control_character_snippets() {
    let huge: String = "这是一个很长的摘要，包含许多标点。Some English, too! "
        .repeat(20_000)
        .chars()
        .take(1 << 20)
        .collect();
    let control: String = (0u8..32).map(char::from).collect::<String>() + "\u{7f}\u{fffd}\u{202e}";
    let input = [
        rec(1.into(), "https://a/", "", ""),
        rec(2.into(), "https://b/", "", ""),
        rec(3.into(), "https://c/", "huge", &huge),
        rec(4.into(), "https://d/", "huge copy", &huge),
        rec(5.into(), &control, &control, &control),
        rec(6.into(), "", "", &control),
    ]
    .join("\n");
    let out = run(&[], input.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = lines(&out);
    assert_eq!(v.len(), 6);
    // Empty snippets and empty titles are no evidence.
    assert_eq!(v[1]["stage"], serde_json::json!(null));
    assert_eq!(v[3]["stage"], "snippet");
    assert_eq!(v[3]["cluster"], 3);
}

#[test]
fn unique_writes_kept_input_lines_verbatim() {
    let a = r#"{"id":1,"url":"https://a/","title":"T","snippet":"x","engine":"bing","position":1}"#;
    let b = r#"{"id":2,"url":"https://a/","title":"T","snippet":"x","engine":"ddg","position":3}"#;
    let c = r#"{"id":"c","url":"https://c/","title":"U","snippet":"y","extra":[1,{"z":null}]}"#;
    let out = run(&["--unique"], format!("{a}\n{b}\n{c}\n").as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{a}\n{c}\n"));
}

#[test]
fn stats_on_stderr() {
    let input = [
        rec(1.into(), "https://a/", "t", STORY),
        rec(2.into(), "https://a/", "t", STORY),
        rec(3.into(), "https://b/", "u", STORY),
    ]
    .join("\n")
        + "\nbad\n";
    let out = run(&["--stats"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let stats: serde_json::Value = err
        .lines()
        .find_map(|l| serde_json::from_str(l).ok())
        .expect("a JSON stats line");
    assert_eq!(stats["records"], 3);
    assert_eq!(stats["kept"], 1);
    assert_eq!(stats["bad_lines"], 1);
    assert_eq!(stats["stages"]["url"], 1);
    assert_eq!(stats["stages"]["snippet"], 1);
    assert!(stats["seconds"].as_f64().is_some());
    assert!(stats["records_per_second"].as_f64().is_some());
    if std::path::Path::new("/proc/self/status").exists() {
        assert!(stats["peak_memory_bytes"].as_u64().unwrap_or(0) > 0);
    }
}

#[test]
fn bloom_mode_clusters_are_null() {
    let input = [
        rec(1.into(), "https://a/", "t", "s"),
        rec(2.into(), "https://a/#frag", "t", "s"),
        rec(3.into(), "https://b/", "t2", "s2"),
    ]
    .join("\n");
    for method in ["none", "feature-code"] {
        let out = run(
            &[
                "--url-filter",
                "bloom",
                "--bloom-fpr",
                "0.001",
                "--expected",
                "10",
                "--method",
                method,
            ],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
        let v = lines(&out);
        assert_eq!(v[0]["cluster"], 1);
        assert_eq!(v[1]["stage"], "url");
        assert_eq!(v[1]["cluster"], serde_json::json!(null));
        assert_eq!(v[2]["cluster"], 3);
    }
}

#[test]
fn queries_never_merge_and_files_work() {
    let dir = std::env::temp_dir().join(format!("metasift-dedup-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("in.jsonl");
    let output = dir.join("out.jsonl");
    let q = |id: u32, query: &str| {
        serde_json::json!({"id": id, "url": "https://a/", "title": "t", "snippet": STORY, "query": query})
            .to_string()
    };
    std::fs::write(&input, [q(1, "rust"), q(2, "go"), q(3, "rust")].join("\n")).expect("write");
    let out = run(
        &[
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&output).expect("output file");
    let v: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[1]["cluster"], 2);
    assert_eq!(v[2]["cluster"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_options_fail() {
    let out = run(&["--os1", "2"], b"");
    assert_ne!(out.status.code(), Some(0));
    let out = run(&["--method", "magic"], b"");
    assert_ne!(out.status.code(), Some(0));
}
