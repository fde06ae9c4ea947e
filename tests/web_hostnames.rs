//! Hostname rules (`[hostnames]` and a searcher's own lists in the
//! preferences cookie) through the web app, with member engines on
//! loopback: `remove`, `replace`, `boost` and `lower` each change the fused
//! list as docs/hostnames.md says; a replaced link still folds with its
//! original; a bad pattern is refused with its file and line (the
//! configuration) or its list and line (the preferences page); a hostile
//! cookie is bounded; a page made under one searcher's rules is never
//! served to another from the cache.
//!
//! Run with `cargo test --test web_hostnames`.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::{Config, ConfigError};
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::router::{config, header_of, send};
use support::{LoopbackEngine, test_engine_config, test_page};

/// Engine `a`'s page: a content farm, a video, documentation, a page.
const A: [(&str, &str, &str); 4] = [
    (
        "https://www.pinterest.com/pin/1",
        "Rust crab pins",
        "Pins about the Rust crab mascot and stickers.",
    ),
    (
        "https://www.youtube.com/watch?v=abc",
        "Rust in 100 seconds",
        "A short video about the Rust programming language.",
    ),
    (
        "https://docs.rs/serde",
        "serde - Rust",
        "A generic serialization and deserialization framework.",
    ),
    (
        "https://example.org/one",
        "Page one",
        "The first page of the example site, about ownership.",
    ),
];

/// Engine `b`'s page: the same video under another form of its link, a
/// page, and a host that only ends like the content farm's.
const B: [(&str, &str, &str); 3] = [
    (
        "http://youtube.com/watch?v=abc",
        "Rust in 100 seconds - YouTube",
        "Learn the basics of Rust in one hundred seconds.",
    ),
    (
        "https://example.org/two",
        "Page two",
        "The second page of the example site, about borrowing.",
    ),
    (
        "https://notpinterest.com/x",
        "Not a content farm",
        "A host whose name merely ends in pinterest.com.",
    ),
];

struct Engines {
    a: LoopbackEngine,
    b: LoopbackEngine,
}

async fn engines() -> Engines {
    Engines {
        a: LoopbackEngine::spawn(test_page(&A)).await,
        b: LoopbackEngine::spawn(test_page(&B)).await,
    }
}

/// An app over `table` (the configuration's text, `[hostnames]` in it)
/// asking engines `a` and `b`, with a page cache.
fn app(table: &str, e: &Engines) -> axum::Router {
    let mut config = config(table);
    config.engines = vec![
        test_engine_config("a", &e.a.base_url()),
        test_engine_config("b", &e.b.base_url()),
    ];
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(metasift::ops::cache::Cache::memory(
        Duration::from_secs(60),
        1 << 22,
    ));
    web::router(AppState::new(searcher))
}

async fn get(app: &axum::Router, uri: &str, cookie: Option<&str>) -> (StatusCode, String) {
    let mut req = Request::get(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    let (head, body) = send(app.clone(), req.body(Body::empty()).unwrap()).await;
    (head.status(), body)
}

/// The fused list of `q=rust` as JSON results.
async fn results(app: &axum::Router, cookie: Option<&str>) -> Vec<serde_json::Value> {
    let (status, body) = get(app, "/search?format=json&q=rust", cookie).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    v["results"].as_array().unwrap().clone()
}

fn urls(results: &[serde_json::Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect()
}

fn position(results: &[serde_json::Value], part: &str) -> usize {
    urls(results)
        .iter()
        .position(|u| u.contains(part))
        .unwrap_or_else(|| panic!("no {part} in {:?}", urls(results)))
}

/// The preferences cookie the page sets for `form` (form-encoded).
async fn cookie_for(app: &axum::Router, form: &str) -> String {
    let req = Request::post("/preferences")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form.to_string()))
        .unwrap();
    let (head, body) = send(app.clone(), req).await;
    assert_eq!(head.status(), StatusCode::SEE_OTHER, "{body}");
    let set = header_of(&head, header::SET_COOKIE);
    set.split(';').next().unwrap().to_string()
}

fn engines_of(r: &serde_json::Value) -> Vec<String> {
    let mut e: Vec<String> = r["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    e.sort();
    e
}

fn score(list: &[serde_json::Value], part: &str) -> f64 {
    list[position(list, part)]["score"].as_f64().unwrap()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn without_rules_the_list_is_as_fused() {
    let e = engines().await;
    let r = results(&app("", &e), None).await;
    let all = urls(&r);
    // The video's two links fold by their URL key: the fold the replaced
    // link must keep.
    assert_eq!(r.len(), 6, "{all:?}");
    let video = &r[position(&r, "youtube.com/watch")];
    assert_eq!(engines_of(video), ["a", "b"], "{video}");
    assert!(all.iter().any(|u| u.contains("www.pinterest.com")));
    assert!(position(&r, "pinterest.com/pin") < position(&r, "docs.rs"));
}

#[tokio::test]
async fn remove_drops_the_hosts_results_and_the_page_says_how_many() {
    let e = engines().await;
    let app = app("[hostnames]\nremove = [\"pinterest.com\"]\n", &e);
    let r = results(&app, None).await;
    let all = urls(&r);
    assert_eq!(r.len(), 5, "{all:?}");
    assert!(
        !all.iter().any(|u| u.contains("www.pinterest.com")),
        "{all:?}"
    );
    // A suffix is a whole label: notpinterest.com stays.
    assert!(
        all.iter().any(|u| u.contains("notpinterest.com")),
        "{all:?}"
    );
    let (status, page) = get(&app, "/search?q=rust", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("1 result removed by hostname rules"),
        "{page}"
    );
}

#[tokio::test]
async fn replace_rewrites_the_link_shown_and_it_still_folds_with_its_original() {
    let e = engines().await;
    let app = app(
        "[hostnames]\nreplace = { \"(.*\\\\.)?youtube\\\\.com\" = \"invidious.example\" }\n",
        &e,
    );
    let r = results(&app, None).await;
    let all = urls(&r);
    assert_eq!(r.len(), 6, "{all:?}");
    assert!(!all.iter().any(|u| u.contains("youtube.com")), "{all:?}");
    let video = &r[position(&r, "invidious.example")];
    // The kept record's link (engine b's, first on its page), its scheme,
    // path and query kept.
    assert_eq!(video["url"], "http://invidious.example/watch?v=abc");
    // Both engines' links are one result: the fold ran on the originals.
    assert_eq!(engines_of(video), ["a", "b"], "{video}");
    for d in video["duplicates"].as_array().unwrap() {
        let u = d["url"].as_str().unwrap();
        assert!(
            u.contains("invidious.example"),
            "a hidden link shown as is: {u}"
        );
    }
    // The page shows the link written, on the link and on the URL line.
    let (_, page) = get(&app, "/search?q=rust", None).await;
    assert!(page.contains("http://invidious.example/watch?v=abc"));
    assert!(
        !page.contains("youtube.com/watch"),
        "the original link leaks"
    );
}

#[tokio::test]
async fn boost_and_lower_multiply_the_fused_score() {
    let e = engines().await;
    let plain = results(&app("", &e), None).await;
    let app = app(
        "[hostnames]\nboost = [\"docs.rs\"]\nlower = [\"pinterest.com\"]\n\
         boost_factor = 10.0\nlower_factor = 0.2\n",
        &e,
    );
    let r = results(&app, None).await;
    assert_eq!(r.len(), plain.len());
    assert_eq!(position(&r, "docs.rs"), 0, "{:?}", urls(&r));
    assert_eq!(
        position(&r, "www.pinterest.com"),
        r.len() - 1,
        "{:?}",
        urls(&r)
    );
    let ratio = score(&r, "docs.rs") / score(&plain, "docs.rs");
    assert!((ratio - 10.0).abs() < 1e-9, "{ratio}");
    let ratio = score(&r, "www.pinterest.com") / score(&plain, "www.pinterest.com");
    assert!((ratio - 0.2).abs() < 1e-9, "{ratio}");
    // Untouched hosts keep their score, notpinterest.com among them.
    for part in ["notpinterest.com", "example.org/one", "youtube.com"] {
        assert_eq!(score(&r, part), score(&plain, part), "{part}");
    }
}

#[tokio::test]
async fn the_searchers_own_rules_apply_to_their_searches_only() {
    let e = engines().await;
    // The configuration lowers docs.rs; the searcher raises it, removes the
    // content farm and sends the video to their front end.
    // Scores below are Σ weight / position: the `position` fusion method.
    let app = app(
        "[fusion]\nmethod = \"position\"\n[hostnames]\nlower = [\"docs.rs\"]\n",
        &e,
    );
    let configured = results(&app, None).await;
    let form = format!(
        "hn_remove={}&hn_replace={}&hn_boost={}&hn_lower={}",
        enc("pinterest.com"),
        enc("youtube.com = yt.example:8443"),
        enc("docs.rs"),
        enc("example.org"),
    );
    let cookie = cookie_for(&app, &form).await;
    let own = results(&app, Some(&cookie)).await;
    let all = urls(&own);
    assert!(
        !all.iter().any(|u| u.contains("www.pinterest.com")),
        "{all:?}"
    );
    assert!(
        all.contains(&"https://yt.example:8443/watch?v=abc".to_string()),
        "{all:?}"
    );
    // docs.rs, third on engine a's page (1/3): the configuration lowers it
    // (x 0.5), the searcher's boost wins (x 2).
    assert!((score(&configured, "docs.rs") - 1.0 / 6.0).abs() < 1e-9);
    assert!((score(&own, "docs.rs") - 2.0 / 3.0).abs() < 1e-9, "{all:?}");
    assert!(position(&own, "docs.rs") < position(&configured, "docs.rs"));
    // example.org lowered (x 0.5): two (1/2) falls below notpinterest.com (1/3).
    assert!((score(&own, "example.org/two") - 0.25).abs() < 1e-9);
    assert!(position(&own, "example.org/two") > position(&own, "notpinterest.com"));
    // The same query without the cookie, after it (the page cache holds
    // the searcher's page): the configuration's rules alone.
    let again = results(&app, None).await;
    assert_eq!(urls(&again), urls(&configured));
    assert!(urls(&again).iter().any(|u| u.contains("www.pinterest.com")));
    assert_eq!(score(&again, "docs.rs"), score(&configured, "docs.rs"));
    // The preferences page shows the lists back.
    let (_, page) = get(&app, "/preferences", Some(&cookie)).await;
    assert!(page.contains("youtube.com = yt.example:8443"), "{page}");
}

#[tokio::test]
async fn a_bad_pattern_on_the_preferences_page_is_named_by_its_line_and_not_saved() {
    let e = engines().await;
    let app = app("", &e);
    let form = format!(
        "hn_remove={}&hn_replace={}",
        enc("pinterest.com\n*.quora.com\nexample.net"),
        enc("youtube.com"),
    );
    let req = Request::post("/preferences")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let (head, page) = send(app.clone(), req).await;
    assert_eq!(head.status(), StatusCode::BAD_REQUEST, "{page}");
    assert_eq!(header_of(&head, header::SET_COOKIE), "", "nothing saved");
    assert!(
        page.contains("Remove, line 2: &#34;*.quora.com&#34;: not a valid regex"),
        "{page}"
    );
    assert!(page.contains("write &#34;quora.com&#34;"), "{page}");
    assert!(
        page.contains(
            "Replace (pattern = host), line 1: &#34;youtube.com&#34;: write `pattern = host`"
        ),
        "{page}"
    );
    // What was sent is in the form again, to be fixed.
    assert!(
        page.contains("pinterest.com\n*.quora.com\nexample.net</textarea>"),
        "{page}"
    );

    // Rules too long for a cookie a browser keeps: refused, said why.
    let long: String = (0..50)
        .map(|i| format!("site-{i:02}-{}.example\n", "a".repeat(80)))
        .collect();
    let req = Request::post("/preferences")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("hn_lower={}", enc(&long))))
        .unwrap();
    let (head, page) = send(app.clone(), req).await;
    assert_eq!(head.status(), StatusCode::BAD_REQUEST);
    assert!(page.contains("bytes in their cookie"), "{page}");
}

#[tokio::test]
async fn hostile_cookies_are_bounded_and_never_break_searching() {
    let e = engines().await;
    let app = app("", &e);
    let plain = urls(&results(&app, None).await);
    let bomb = format!(
        "metasift_prefs=hn_remove={}",
        enc(&enc(
            "\\w{1000}{1000}\n(a\n((((((((((((((((((((a))))))))))))))))))))\n"
        ))
    );
    let huge = format!("metasift_prefs=hn_remove={}", "a.example%0A".repeat(2000));
    let lines = format!("metasift_prefs=hn_boost={}", "x%0A".repeat(1000));
    let garbage = "metasift_prefs=hn_replace=%FF%FE%00%0A%3D%3D%3D%0A=%25%25%25; x=%";
    for cookie in [&bomb, &huge, &lines, &garbage.to_string()] {
        let r = results(&app, Some(cookie)).await;
        assert_eq!(urls(&r), plain, "{cookie:.80}");
        let (status, _) = get(&app, "/preferences", Some(cookie)).await;
        assert_eq!(status, StatusCode::OK);
    }
}

// ---- the configuration ----------------------------------------------------

/// Every error of `text` (a file read alone) as (line, message).
fn errors(text: &str) -> Vec<(usize, String)> {
    match Config::check(text, Path::new("rules.toml")) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(errors) => errors
            .into_iter()
            .map(|e| match e {
                ConfigError::Invalid {
                    path,
                    line,
                    message,
                    ..
                } => {
                    assert_eq!(path, Path::new("rules.toml"));
                    (line, message)
                }
                other => panic!("{other}"),
            })
            .collect(),
    }
}

const BAD: &str = r#"[hostnames]
remove = [
  "pinterest.com",
  "(a",
]
boost = ["docs.rs", '\w{1000}{1000}']
replace = { "youtube.com" = "invidious.example", '(.*\.)?reddit\.com' = "a/b" }
lower = ["*.quora.com"]
lower_factor = 2.0
"#;

#[test]
fn a_bad_pattern_is_refused_at_load_with_its_line() {
    let found = errors(BAD);
    let at = |line: usize, part: &str| {
        assert!(
            found.iter().any(|(l, m)| *l == line && m.contains(part)),
            "no error with {part:?} at line {line}: {found:?}"
        );
    };
    at(4, "hostnames.remove \"(a\": not a valid regex");
    at(6, "too big");
    at(7, "not a host");
    at(8, "write \"quora.com\"");
    at(9, "hostnames.lower_factor");
    assert_eq!(found.len(), 5, "{found:?}");
    // A good table loads, in a file laid over the built-in defaults too.
    let good = "[hostnames]\nremove = [\"pinterest.com\"]\nreplace = { '(.*\\.)?youtube\\.com' = \"invidious.example:3000\" }\n";
    let config = Config::parse(good, Path::new("good.toml")).unwrap();
    assert_eq!(config.hostnames.remove, ["pinterest.com"]);
}

#[test]
fn a_bad_pattern_in_a_layered_file_names_that_file_and_line() {
    let dir = std::env::temp_dir().join(format!("metasift-hostnames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.toml");
    std::fs::write(&file, BAD).unwrap();
    let source = metasift::config::ConfigSource::file(&file);
    let error = Config::load_layered(&source).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{}:4:", file.display())),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_config_reports_every_bad_rule_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("metasift-hostnames-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.toml");
    std::fs::write(&file, BAD).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["check-config", file.to_str().unwrap()])
        .output()
        .expect("metasift runs");
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    for line in [4, 6, 7, 8, 9] {
        let at = format!("{}:{line}:", file.display());
        assert!(said.contains(&at), "{at} missing in:\n{said}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_pattern_count_is_capped() {
    let many: Vec<String> = (0..300)
        .map(|i| format!("\"(h{i})\\\\.example\""))
        .collect();
    let text = format!("[hostnames]\nboost = [{}]\n", many.join(", "));
    let found = errors(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 2);
    assert!(found[0].1.contains("300 regexes; at most 256"), "{found:?}");
}
