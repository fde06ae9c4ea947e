//! Search operators kept on the fused list, and external bangs (#29):
//! shipped presets pointed at loopback servers answering with pages we
//! wrote (`support::own_pages`). Brave's preset understands no operator (its
//! HTML search ignores them), DuckDuckGo's understands them all.
//!
//! Run with `cargo test --test operators`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_app.rs"]
mod web_app;

use std::path::Path;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use support::own_pages::{Hit, hit};
use support::router::{app_with, get_from, header_of, send};
use support::{Behavior, LoopbackEngine};
use web_app::{json_of, q, searched};

/// Five results about Rust: two on example.org (one on a subdomain), one
/// comparing it with Java, one where "borrow" and "checker" only appear
/// apart, one for JavaScript developers.
fn rust_hits() -> Vec<Hit> {
    vec![
        hit(
            "https://example.org/rust/ownership",
            "Ownership in Rust",
            "The borrow checker makes sure every reference is valid.",
        ),
        hit(
            "https://docs.example.org/book/lifetimes",
            "The Rust book: lifetimes",
            "Chapters on lifetimes and on the Borrow Checker.",
        ),
        hit(
            "https://other.example/java-vs-rust",
            "Java or Rust for services?",
            "A comparison of Java and Rust on a web service.",
        ),
        hit(
            "https://notexample.org/checker",
            "Rust: borrow and checker",
            "A checker borrows nothing; to borrow is not to check.",
        ),
        hit(
            "https://third.example/rust-for-js",
            "Rust for JavaScript developers",
            "From JavaScript to Rust in a week.",
        ),
    ]
}

/// The shipped `brave` and `duckduckgo` presets (in that order of
/// `names`) on loopback servers answering with `hits`.
async fn engines(names: &[&str], hits: &[Hit]) -> (axum::Router, Vec<LoopbackEngine>, Config) {
    let mut config = support::shipped_config();
    support::keep_only(&mut config, names);
    let mut servers = Vec::new();
    for name in names {
        let server = LoopbackEngine::spawn(Behavior::results(name, "rust", hits)).await;
        support::point_at(&mut config, name, &server.base_url());
        servers.push(server);
    }
    (app_with(config.clone()), servers, config)
}

fn urls(v: &serde_json::Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn site_keeps_only_that_sites_results_from_an_engine_that_ignores_it() {
    let (app, servers, _) = engines(&["brave"], &rust_hits()).await;
    let v = searched(app.clone(), "site:example.org rust").await;
    assert_eq!(
        urls(&v),
        [
            "https://example.org/rust/ownership",
            "https://docs.example.org/book/lifetimes"
        ]
    );
    assert_eq!(v["dropped_by_operators"], 3);
    assert_eq!(v["operators"]["sites"], serde_json::json!(["example.org"]));
    assert_eq!(v["query"], "site:example.org rust");
    // Brave was asked for the words alone.
    let asked = servers[0].last_uri().unwrap();
    assert!(asked.contains("q=rust&"), "{asked}");
    assert!(!asked.to_lowercase().contains("site"), "{asked}");

    // The page says how many were left out, in English and in Chinese.
    let (resp, page) = get_from(&app, &format!("/search?q={}", q("site:example.org rust"))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(
        page.contains("3 engine results were left out for breaking the query&#39;s operators."),
        "{page}"
    );
    assert!(!page.contains("other.example/java-vs-rust"));
    let zh = Request::get(format!("/search?q={}", q("site:example.org rust")))
        .header(header::ACCEPT_LANGUAGE, "zh-CN,zh;q=0.9")
        .body(Body::empty())
        .unwrap();
    let (_, page) = send(app.clone(), zh).await;
    assert!(
        page.contains("有 3 条引擎结果因不符合查询中的运算符而被略去。"),
        "{page}"
    );

    // Nothing dropped, nothing said.
    let (_, page) = get_from(&app, "/search?q=rust").await;
    assert!(!page.contains("operators-dropped"), "{page}");
}

#[tokio::test]
async fn excluded_words_and_phrases_filter_at_word_boundaries() {
    let (app, _servers, _) = engines(&["brave"], &rust_hits()).await;
    let v = searched(app.clone(), "rust -java").await;
    let got = urls(&v);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(!got.iter().any(|u| u.contains("java-vs-rust")), "{got:?}");
    assert!(
        got.iter().any(|u| u.contains("rust-for-js")),
        "JavaScript is not Java"
    );
    assert_eq!(v["dropped_by_operators"], 1);

    let v = searched(app.clone(), "\"borrow checker\" rust").await;
    assert_eq!(
        urls(&v),
        [
            "https://example.org/rust/ownership",
            "https://docs.example.org/book/lifetimes"
        ]
    );
    assert_eq!(v["dropped_by_operators"], 3);

    // All at once, and the answers cache keys on the operators: the same
    // words without them are another search.
    let v = json_of(
        app.clone(),
        &format!(
            "/search?format=json&q={}",
            q("rust -site:docs.example.org -java intitle:rust")
        ),
    )
    .await;
    let got = urls(&v);
    assert_eq!(
        got,
        [
            "https://example.org/rust/ownership",
            "https://notexample.org/checker",
            "https://third.example/rust-for-js"
        ]
    );
    let v = json_of(app, "/search?format=json&q=rust").await;
    assert_eq!(urls(&v).len(), 5);
    assert_eq!(v["dropped_by_operators"], 0);
}

#[tokio::test]
async fn a_phrase_without_spaces_filters_chinese_results() {
    let hits = vec![
        hit(
            "https://zh.example/borrow",
            "Rust 的借用检查器",
            "借用检查器在编译时检查引用。",
        ),
        hit(
            "https://zh.example/apart",
            "借用与检查",
            "先借用，再检查：两件事。",
        ),
    ];
    let (app, _servers, _) = engines(&["brave"], &hits).await;
    for typed in [
        "\"借用检查\"",
        "“借用检查”",
        "「借用检查」",
        "什么是“借用检查”",
    ] {
        let v = searched(app.clone(), typed).await;
        assert_eq!(urls(&v), ["https://zh.example/borrow"], "{typed}");
        assert_eq!(v["operators"]["phrases"], serde_json::json!(["借用检查"]));
    }
}

#[tokio::test]
async fn engines_that_understand_operators_are_sent_them_and_the_others_are_not() {
    let (app, servers, _) = engines(&["brave", "duckduckgo"], &rust_hits()).await;
    let typed = "site:example.org \"borrow checker\" filetype:html rust";
    let v = searched(app.clone(), typed).await;
    let brave = servers[0].last_uri().unwrap();
    let ddg = servers[1].last_uri().unwrap();
    assert!(
        brave.contains("q=borrow+checker+rust&"),
        "brave gets the words alone: {brave}"
    );
    assert!(
        ddg.contains("q=site%3Aexample.org+%22borrow+checker%22+filetype%3Ahtml+rust&"),
        "duckduckgo gets them all: {ddg}"
    );
    // Both engines' off-site results are left out (a host is proof); the
    // file type is trusted from DuckDuckGo, which was sent it, and the
    // pages that are not `.html` from Brave are left out.
    assert_eq!(
        urls(&v),
        [
            "https://example.org/rust/ownership",
            "https://docs.example.org/book/lifetimes"
        ]
    );
    let only_ddg = &v["results"][0]["engines"];
    assert_eq!(only_ddg, &serde_json::json!(["duckduckgo"]), "{v}");

    // A query of operators alone asks only the engines that understand them.
    let before = servers[0].requests();
    let v = searched(app.clone(), "site:example.org").await;
    assert_eq!(
        servers[0].requests(),
        before,
        "brave had nothing to search for"
    );
    assert_eq!(urls(&v).len(), 2);
}

#[tokio::test]
async fn a_query_of_operators_no_engine_understands_is_refused_clearly() {
    let (app, servers, _) = engines(&["brave"], &rust_hits()).await;
    let (resp, body) = get_from(
        &app,
        &format!("/search?format=json&q={}", q("site:example.org -java")),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("only operators"), "{body}");
    assert_eq!(servers[0].requests(), 0);
}

#[tokio::test]
async fn hostile_operator_queries_are_answered() {
    let (app, _servers, _) = engines(&["brave"], &rust_hits()).await;
    let hostile = [
        "\"".repeat(999),
        "“".repeat(500) + "rust",
        (0..200).map(|i| format!("-w{i} ")).collect::<String>() + "rust",
        format!("site:{}.org rust", "a".repeat(900)),
        "intitle:\"\" ext: -site: 「」 rust".to_string(),
    ];
    for typed in hostile {
        let (resp, _) = get_from(&app, &format!("/search?format=json&q={}", q(&typed))).await;
        assert!(
            matches!(resp.status(), StatusCode::OK | StatusCode::BAD_REQUEST),
            "{typed:?}: {}",
            resp.status()
        );
    }
}

// ---- external bangs ---------------------------------------------------------

#[tokio::test]
async fn an_external_bang_answers_303_to_the_sites_search_in_every_format() {
    let app = app_with(support::shipped_config());
    for uri in [
        format!("/search?q={}", q("!!w rust")),
        format!("/search?q={}&format=json", q("!!w rust")),
        format!("/search?q={}&format=csv", q("rust !!W")),
    ] {
        let (resp, _) = get_from(&app, &uri).await;
        assert_eq!(resp.status(), StatusCode::SEE_OTHER, "{uri}");
        assert_eq!(
            header_of(&resp, header::LOCATION),
            "https://en.wikipedia.org/w/index.php?search=rust",
            "{uri}"
        );
        assert_eq!(header_of(&resp, header::CACHE_CONTROL), "no-store");
    }
    // POST, as SearXNG clients send it; the root path goes to /search first.
    let post = Request::post("/search")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("q={}", q("!!gh serde json"))))
        .unwrap();
    let (resp, _) = send(app.clone(), post).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        header_of(&resp, header::LOCATION),
        "https://github.com/search?q=serde+json"
    );
    let (resp, _) = get_from(&app, &format!("/?q={}", q("!!w rust"))).await;
    assert_eq!(resp.status(), StatusCode::PERMANENT_REDIRECT);
    let (resp, _) = get_from(&app, &header_of(&resp, header::LOCATION)).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);

    // Alone: the site's home page. The words keep their operators.
    let (resp, _) = get_from(&app, &format!("/search?q={}", q("!!w"))).await;
    assert_eq!(
        header_of(&resp, header::LOCATION),
        "https://en.wikipedia.org/"
    );
    let (resp, _) = get_from(
        &app,
        &format!("/search?q={}", q("!!bd 借用检查 site:zhihu.com")),
    )
    .await;
    assert_eq!(
        header_of(&resp, header::LOCATION),
        "https://www.baidu.com/s?wd=%E5%80%9F%E7%94%A8%E6%A3%80%E6%9F%A5+site%3Azhihu.com"
    );
    // In quotes it is a phrase, not a bang.
    let (resp, _) = get_from(
        &app,
        &format!("/search?q={}&format=json", q("\"!!w rust\" x")),
    )
    .await;
    assert_ne!(resp.status(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn an_unknown_bang_is_searched_for_as_typed() {
    let (app, servers, _) = engines(&["brave"], &rust_hits()).await;
    let v = json_of(
        app,
        &format!("/search?format=json&q={}", q("!!nosuch rust")),
    )
    .await;
    assert_eq!(v["query"], "!!nosuch rust");
    assert!(
        servers[0]
            .last_uri()
            .unwrap()
            .contains("q=%21%21nosuch+rust")
    );
}

#[tokio::test]
async fn config_lists_the_bangs_and_what_each_engine_is_sent() {
    let app = app_with(support::shipped_config());
    let v = json_of(app.clone(), "/config").await;
    assert_eq!(
        v["bangs"]["w"],
        "https://en.wikipedia.org/w/index.php?search={query}"
    );
    let bangs = v["bangs"].as_object().unwrap();
    for name in [
        "wp", "gh", "so", "mdn", "rs", "docs.rs", "crates", "npm", "pypi", "yt", "ddg", "g", "b",
        "bd", "zh",
    ] {
        assert!(bangs.contains_key(name), "{name}");
    }
    assert!(bangs.len() >= 30, "{} bangs", bangs.len());
    let engine = |name: &str| {
        v["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(engine("brave")["operators"], serde_json::json!([]));
    assert_eq!(
        engine("duckduckgo")["operators"],
        serde_json::json!(["site", "exclude", "phrase", "intitle", "filetype"])
    );
    // The home page's help lists operators and bangs.
    let (_, home) = get_from(&app, "/").await;
    assert!(home.contains("<kbd>site:docs.rs</kbd>"), "{home}");
    assert!(home.contains("<kbd>!!w</kbd> en.wikipedia.org"), "{home}");
}

#[test]
fn user_bangs_are_laid_over_the_shipped_ones() {
    let text = "[bangs]\nw = \"\"\nmine = \"https://search.example/find?q={query}\"\n";
    let config = metasift::engines::check_config_layered(text, Path::new("user.toml"), &|_| None)
        .expect("valid");
    assert_eq!(config.bangs.get("w"), None, "taken away");
    assert_eq!(
        config.bangs.get("mine"),
        Some("https://search.example/find?q={query}")
    );
    assert!(config.bangs.get("gh").is_some(), "shipped ones stay");
}

#[test]
fn a_bad_bang_or_capability_is_refused_with_file_and_line() {
    for (text, line, says) in [
        (
            "[bangs]\ngh = \"https://github.com/search\"\n",
            2,
            "{query}",
        ),
        ("[bangs]\nw = \"ftp://x.example/{query}\"\n", 2, "http"),
        (
            "[bangs]\n\"a b\" = \"https://x.example/{query}\"\n",
            2,
            "name",
        ),
        (
            "[[engine]]\nname = \"e\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\noperators = [\"site\", \"inurl\"]\n",
            5,
            "inurl",
        ),
    ] {
        let errors = Config::check(text, Path::new("bad.toml")).expect_err(text);
        let first = errors[0].to_string();
        assert!(
            first.starts_with(&format!("bad.toml:{line}:")) && first.contains(says),
            "{text}: {first}"
        );
    }
}

#[test]
fn the_command_line_prints_where_a_bang_goes() {
    let dir = std::env::temp_dir().join(format!("metasift-bang-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.toml");
    std::fs::write(
        &file,
        "[[engine]]\nname = \"e\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["search", "!!w rust"])
        .arg("--config")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "https://en.wikipedia.org/w/index.php?search=rust"
    );
    // Operators alone that no engine asked understands: said, not searched.
    let only =
        "[[engine]]\nname = \"e\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\n";
    let alone = dir.join("alone.toml");
    std::fs::write(&alone, format!("use_defaults = false\n{only}")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["search", "site:example.org"])
        .arg("--config")
        .arg(&alone)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only operators"),
        "{out:?}"
    );
}
