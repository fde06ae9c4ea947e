//! The parse paths that stand in for slower references, compared with them
//! on every saved answer: the `json` kind's reading of only the paths its
//! parse table names (`engines::json_select`) against one whole
//! `serde_json::Value`, for every `json` preset on every JSON answer of the
//! data folder (and Hacker News' recorded replies, and our own answers);
//! and the fast paths of `html_to_text` (against html5ever's tree builder)
//! and of link resolution (against the `url` crate alone) on every string
//! those answers hold.

use std::path::Path;

use metasift::config::{Config, EngineKind};
use metasift::engines::reference;
use serde_json::Value;

use crate::real_data::Cases;
use crate::support;

/// Every `json` preset reads `body` the same both ways, and every string
/// in it is the same text both ways.
fn agree(config: &Config, what: &str, body: &str) {
    for ec in config.engines.iter().filter(|e| e.kind == EngineKind::Json) {
        let (fast, whole) = reference::json_both(ec, body).unwrap();
        assert_eq!(fast, whole, "{}: {what}", ec.name);
    }
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        let base = url::Url::parse("https://api.example.org/search?q=rust").unwrap();
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    let (fast, tree) = reference::html_text_both(s);
                    assert_eq!(fast, tree, "{what}: {s:?}");
                    let (fast, by_the_crate) = reference::link_both(&base, s);
                    assert_eq!(fast, by_the_crate, "{what}: link {s:?}");
                }
                Value::Array(a) => stack.extend(a),
                Value::Object(m) => stack.extend(m.values()),
                _ => {}
            }
        }
    }
}

fn read(path: &Path) -> String {
    metasift::engines::decode_body(&std::fs::read(path).unwrap(), None)
}

pub fn cases(cases: &mut Cases) {
    let json_files = metasift_data::listed("")
        .filter(|f| f.ends_with(".json") && (f.starts_with("api/") || f.starts_with("serp/")));
    for rel in json_files {
        cases.file("fast_paths", rel, |p| {
            let config = support::shipped_config();
            let body = read(p);
            agree(&config, &p.display().to_string(), &body);
            // A bundle of recorded exchanges (Hacker News): each reply too.
            if let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(&body) {
                for (i, e) in entries.iter().enumerate() {
                    if let Some(reply) = e.get("reply") {
                        agree(&config, &format!("reply {i}"), &reply.to_string());
                    }
                }
            }
        });
    }
    cases.own("fast_paths::own_answers_and_hostile_bodies", || {
        let config = support::shipped_config();
        let dir = support::crate_dir().join("tests/data/api");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        assert!(files.len() >= 10, "{files:?}");
        for p in &files {
            agree(&config, &p.display().to_string(), &read(p));
        }
        let deep = |n: usize| format!(r#"{{"results": [{}1{}]}}"#, "[".repeat(n), "]".repeat(n));
        for body in [
            String::new(),
            "{".into(),
            "null".into(),
            "[]".into(),
            r#"{"message": {"items": [{"title": ["a"], "URL": "https://e.org/", "x": [1,,2]}]}}"#
                .into(),
            r#"{"data": [{"title": "t\ud800", "url": "https://e.org/"}]}"#.into(),
            r#"{"hits": [{"title": "t", "url": "https://e.org/", "points": 1e400}]}"#.into(),
            r#"{"results": [{"title": "t", "url": "https://e.org/"}], "junk": 1e400}"#.into(),
            deep(100),
            deep(200),
            r#"{"items": {"a": {"title": "x"}}, "total_count": "12"}"#.into(),
            "<html><body>captcha</body></html>".into(),
        ] {
            agree(&config, &format!("{body:?}"), &body);
        }
    });
}
