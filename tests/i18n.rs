//! The interface's message catalogs (`locales/<code>/main.ftl`): every key
//! of the English catalog exists in every other catalog and no catalog has
//! keys English lacks, so adding a language is adding one complete file;
//! and every key a template or page asks for exists.
//!
//! Run with `cargo test --test i18n`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The message ids of a Fluent file: lines `id = …` at column 0.
fn keys(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
        .collect()
}

fn catalogs() -> Vec<(String, BTreeSet<String>)> {
    let mut out: Vec<(String, BTreeSet<String>)> = std::fs::read_dir(root().join("locales"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let code = p.file_name().unwrap().to_string_lossy().into_owned();
            (code, keys(&p.join("main.ftl")))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_catalog_has_every_key() {
    let all = catalogs();
    assert!(all.len() >= 2, "{all:?}");
    let en = &all
        .iter()
        .find(|(c, _)| c == "en")
        .expect("an English catalog")
        .1;
    assert!(en.len() > 100, "{} keys", en.len());
    for (code, keys) in &all {
        let missing: Vec<&String> = en.difference(keys).collect();
        let extra: Vec<&String> = keys.difference(en).collect();
        assert!(missing.is_empty(), "locales/{code} lacks {missing:?}");
        assert!(
            extra.is_empty(),
            "locales/{code} has keys English lacks: {extra:?}"
        );
    }
}

/// Every `t("…")` / `n("…")` / `s("…")` key in the templates and in the
/// web code is in the English catalog (so in all of them).
#[test]
fn every_key_asked_for_exists() {
    let en = keys(&root().join("locales/en/main.ftl"));
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("templates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.extend(
        std::fs::read_dir(root().join("src/web"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    let mut asked = BTreeSet::new();
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for call in [".t(\"", ".n(\"", ".s(\"", ".with(\"", ".with_n(\""] {
            for piece in text.split(call).skip(1) {
                let key = piece.split('"').next().unwrap();
                if !key.is_empty() && !key.contains('{') {
                    asked.insert((key.to_string(), path.clone()));
                }
            }
        }
        // Keys given as data: `("", "lang-any")`, `("theme-auto")`.
        for piece in text.split("\", \"").skip(1) {
            let key = piece.split('"').next().unwrap();
            if ["lang-", "time-", "safe-", "theme-"]
                .iter()
                .any(|p| key.starts_with(p))
            {
                asked.insert((key.to_string(), path.clone()));
            }
        }
    }
    assert!(asked.len() > 50, "{}", asked.len());
    let missing: Vec<_> = asked.iter().filter(|(k, _)| !en.contains(k)).collect();
    assert!(
        missing.is_empty(),
        "keys asked for but missing: {missing:?}"
    );
    // Keys built at run time: one per failure kind, one per month.
    for kind in [
        "timeout",
        "network",
        "too_many_requests",
        "http_4xx",
        "http_5xx",
        "blocked",
        "parse",
        "too_large",
        "suspended",
        "not_recorded",
    ] {
        assert!(en.contains(&format!("failure-{kind}")), "{kind}");
    }
    for m in 1..=12 {
        assert!(en.contains(&format!("month-{m}")));
    }
}
