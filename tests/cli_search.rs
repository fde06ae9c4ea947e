//! `metasift search` asks what `/search` asks: categories, engines, time
//! range, safe search, language and fusion method as flags, through the
//! same request the server builds (`Searcher::request`), and its refusals
//! in the same words. The binary runs against loopback engines.

#[path = "support/mod.rs"]
mod support;

use std::process::{Command, Output};

use support::{LoopbackEngine, test_page};

/// Two engines of the SearXNG kind: `web` in `general`, `papers` in
/// `science`, the latter with a time-range and safe-search mapping.
fn config(dir: &std::path::Path, web: &str, papers: &str) -> std::path::PathBuf {
    let path = dir.join("engines.toml");
    std::fs::write(
        &path,
        format!(
            "use_defaults = false\n[server]\ndeadline_ms = 3000\n\n\
             [[engine]]\nname = \"web\"\nkind = \"searxng\"\nurl = \"{web}/search?q={{query}}\"\n\
             categories = [\"general\"]\n\n\
             [[engine]]\nname = \"papers\"\nkind = \"searxng\"\nurl = \"{papers}/search?q={{query}}\"\n\
             categories = [\"science\"]\n\
             [engine.time_range]\nparam = \"since\"\nday = \"d\"\nweek = \"w\"\nmonth = \"m\"\nyear = \"y\"\n\
             [engine.safesearch]\nparam = \"safe\"\n0 = \"off\"\n1 = \"moderate\"\n2 = \"strict\"\n"
        ),
    )
    .unwrap();
    path
}

/// `metasift search ARGS`, off the async runtime (the loopback engines it
/// asks run on it).
async fn run(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_metasift"))
            .arg("search")
            .args(args)
            .env("RUST_LOG", "error")
            .output()
            .expect("run metasift search")
    })
    .await
    .unwrap()
}

fn args(list: &[&str], config: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.push("--config".into());
    v.push(config.to_str().unwrap().into());
    v
}

fn engines_of(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let mut names: Vec<String> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["engines"].as_array().unwrap().clone())
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn flags_choose_the_category_engines_time_range_and_safe_search() {
    let web = LoopbackEngine::spawn(test_page(&[(
        "https://web.example/rust",
        "Rust on the web",
        "A page about the Rust language.",
    )]))
    .await;
    let papers = LoopbackEngine::spawn(test_page(&[(
        "https://papers.example/rust",
        "A paper on Rust",
        "Ownership types, studied.",
    )]))
    .await;
    let dir = support::fresh_dir("cli-search");
    let file = config(&dir, &web.base_url(), &papers.base_url());

    // No flag: the general engine alone.
    let out = run(args(&["rust", "--format", "json"], &file)).await;
    assert_eq!(engines_of(&out), ["web"]);
    assert_eq!(papers.requests(), 0);

    // A category by flag, with a time range and safe search the engine
    // maps to its own parameters.
    let out = run(args(
        &[
            "rust",
            "--format",
            "json",
            "--categories",
            "science",
            "--time-range",
            "week",
            "--safesearch",
            "2",
            "--fusion",
            "borda",
        ],
        &file,
    ))
    .await;
    assert_eq!(engines_of(&out), ["papers"]);
    let uri = papers.last_uri().expect("papers was asked");
    assert!(uri.contains("since=w"), "{uri}");
    assert!(uri.contains("safe=strict"), "{uri}");

    // Engines by name, comma-separated.
    let out = run(args(
        &["ownership", "--format", "json", "--engines", "web,papers"],
        &file,
    ))
    .await;
    assert_eq!(engines_of(&out), ["papers", "web"]);

    // A `!category` in the query wins over the flag, as on /search.
    let out = run(args(
        &[
            "!science borrow",
            "--format",
            "json",
            "--categories",
            "general",
        ],
        &file,
    ))
    .await;
    assert_eq!(engines_of(&out), ["papers"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_the_flag_or_the_query() {
    let dir = support::fresh_dir("cli-search-refused");
    // Nothing listens here: every refusal below comes before any request.
    let file = config(&dir, "http://127.0.0.1:9", "http://127.0.0.1:9");

    let out = run(args(&["rust", "--engines", "nosuch"], &file)).await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("engines: none of nosuch"), "{stderr}");
    assert!(stderr.contains("web, papers"), "{stderr}");

    for (flag, value) in [
        ("--time-range", "hour"),
        ("--safesearch", "3"),
        ("--fusion", "nosuch"),
        ("--lang", "en us"),
    ] {
        let out = run(args(&["rust", flag, value], &file)).await;
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{flag}: {stderr}");
    }

    let out = run(args(&[":en"], &file)).await;
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("query: nothing to search for"),
        "{out:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
