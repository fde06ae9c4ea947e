//! The interface's message catalogs (`locales/<code>/main.ftl`): every key
//! of the English catalog exists in every other catalog and no catalog has
//! keys English lacks, so adding a language is adding one complete file;
//! and every key a template or page asks for exists.
//!
//! Run with `cargo test --test i18n`.

use std::collections::{BTreeMap, BTreeSet};
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
    // First words that start at least three keys (`lab-`, `error-`, …).
    let mut starts: BTreeMap<&str, usize> = BTreeMap::new();
    for k in en.iter().filter(|k| k.contains('-')) {
        *starts.entry(k.split('-').next().unwrap()).or_default() += 1;
    }
    let prefixes: BTreeSet<&str> = starts
        .into_iter()
        .filter(|(_, n)| *n >= 3)
        .map(|(p, _)| p)
        .collect();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("templates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // src/web and its folders (src/web/lab/).
    let mut dirs = vec![root().join("src/web")];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources.push(path);
            }
        }
    }
    let mut asked = BTreeSet::new();
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for call in [
            ".t(\"",
            ".n(\"",
            ".s(\"",
            ".with(\"",
            ".with_n(\"",
            "Msg::new(\"",
            ".try_t(\"",
        ] {
            for piece in text.split(call).skip(1) {
                let key = piece.split('"').next().unwrap();
                if !key.is_empty() && !key.contains('{') {
                    asked.insert((key.to_string(), path.clone()));
                }
            }
        }
        // Keys given as data in the code (`("", "lang-any")`,
        // `Msg::new(what)` with `what = "error-rate-limited-lab"`,
        // `(b"GIF8", "lab-kind-gif")`): every string literal shaped like a
        // key whose first word starts keys of the catalog (`lab-…`,
        // `error-…`). (Templates name CSS classes so; their keys are asked
        // for by the calls above.)
        let is_code = path.extension().is_some_and(|e| e == "rs");
        for literal in text.split('"').skip(1).step_by(2).filter(|_| is_code) {
            let shaped = literal.contains('-')
                && literal
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
                && !literal.ends_with('-');
            let first = literal.split('-').next().unwrap_or("");
            if shaped && prefixes.contains(first) {
                asked.insert((literal.to_string(), path.clone()));
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
        "budget",
    ] {
        assert!(en.contains(&format!("failure-{kind}")), "{kind}");
    }
    for m in 1..=12 {
        assert!(en.contains(&format!("month-{m}")));
    }
}

/// The messages of a Fluent file: `id = value` with its indented
/// continuation lines.
fn messages(path: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut key: Option<String> = None;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        if line.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && let Some((k, v)) = line.split_once('=')
        {
            let k = k.trim().to_string();
            out.insert(k.clone(), v.trim().to_string());
            key = Some(k);
        } else if line.starts_with(' ')
            && let Some(k) = &key
        {
            out.get_mut(k).unwrap().push_str(line);
        }
    }
    out
}

/// The words of a message a reader reads: placeholders (`{ $n }`,
/// selectors), the name metasift and code names with digits (`os1`) left
/// out.
fn words(value: &str) -> Vec<String> {
    let mut text = String::new();
    let mut depth = 0usize;
    for c in value.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic))
        .filter(|w| *w != "metasift" && !w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// A catalog that copies an English sentence instead of translating it
/// fails: a message may equal the English one only when it has no words
/// to translate (`{ $field } { $why }`, `os1`, `,`) or is an engine's
/// name.
#[test]
fn no_catalog_leaves_an_english_sentence_untranslated() {
    let en = messages(&root().join("locales/en/main.ftl"));
    for (code, _) in catalogs().iter().filter(|(c, _)| c != "en") {
        let other = messages(&root().join("locales").join(code).join("main.ftl"));
        let copied: Vec<(&String, &String)> = other
            .iter()
            // Engine names are brands: "DuckDuckGo" is DuckDuckGo in every language.
            .filter(|(k, v)| {
                en.get(*k) == Some(*v) && !words(v).is_empty() && !k.starts_with("engine-")
            })
            .collect();
        assert!(
            copied.is_empty(),
            "locales/{code} has English sentences untranslated: {copied:?}"
        );
    }
    assert_eq!(words("{ $n } ms"), ["ms"]);
    assert!(words("{ $field } { $why }").is_empty());
    assert!(words("{ $status } — metasift").is_empty());
}

/// Adding a language is one catalog file: every folder of `locales/` is
/// offered (`/config`'s `locales`, the preferences' menu), named by its own
/// `locale-name`, with nothing else to register.
#[tokio::test]
async fn every_catalog_is_offered() {
    use tower::ServiceExt;
    let config = metasift::config::Config::parse("", Path::new("empty.toml")).unwrap();
    let searcher = metasift::search::Searcher::new(
        std::sync::Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    );
    let app = metasift::web::router(metasift::web::AppState::new(searcher));
    let resp = app
        .oneshot(
            axum::http::Request::get("/config")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let body = http_body_util::BodyExt::collect(resp.into_body())
        .await
        .unwrap()
        .to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let offered: BTreeMap<String, String> = v["locales"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let folders: BTreeMap<String, String> = catalogs()
        .into_iter()
        .map(|(code, _)| {
            let name =
                messages(&root().join("locales").join(&code).join("main.ftl"))["locale-name"]
                    .clone();
            (code, name)
        })
        .collect();
    assert_eq!(offered, folders);
}

/// Every engine and category of the shipped `engines.toml` has a name of
/// its own in every catalog (`engine-sogou_weixin`, `category-social_media`),
/// so no page shows a raw `engines.toml` id; an engine a user adds without
/// one is shown title-cased (issue #25).
#[test]
fn every_shipped_engine_and_category_has_a_display_name_in_every_catalog() {
    let config =
        metasift::config::Config::load_layered(&metasift::config::ConfigSource::built_in())
            .expect("the built-in engines.toml loads");
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    for e in &config.engines {
        wanted.insert(format!("engine-{}", e.name));
        for c in &e.categories {
            wanted.insert(format!("category-{c}"));
        }
    }
    assert!(wanted.contains("engine-sogou_weixin"), "{wanted:?}");
    assert!(wanted.contains("category-social_media"), "{wanted:?}");
    for (code, keys) in catalogs() {
        let missing: Vec<&String> = wanted.difference(&keys).collect();
        assert!(
            missing.is_empty(),
            "locales/{code} has no name for {missing:?}"
        );
    }
}
