//! Programs written for SearXNG's JSON API read metasift unchanged.
//!
//! The client is `searxng_search` 0.1.2 from PyPI (JamePeng, MIT): its
//! `SearXNGSearch.text()` sends `POST /search?q=…&category=…&language=…&
//! pageno=…&format=json&safesearch=…` (parameters in the query string, empty
//! body) and reads `results[].title/url/content`. `.ci/run` installs it into
//! `.ci/venv`. This test serves metasift on a loopback port (member engines
//! are loopback servers answering with saved real pages), runs the client in
//! that venv, and checks it got every result of metasift's own JSON answer,
//! in order, with the client's whitespace normalization as the only change.
//!
//! The second client is LangChain's `SearxSearchWrapper` (PyPI
//! `langchain-community` 0.4.2, MIT): it sends `GET /?q=…&format=json&
//! language=en` to the root path, as SearXNG instances accept, and reads
//! `results[].title/url/content/engines/category`. metasift answers the root
//! path with a 308 to `/search` (as SearXNG does), which `requests` follows.
//!
//! Both are also asked for one category (#27): `searxng_search`'s
//! `category=` and LangChain's `categories=[…]` get that category's results.
//!
//! Skips loudly without `.ci/venv` unless `METASIFT_REQUIRE_SERVICES=1`.
//! Run with `cargo test --test searxng_client`.

#[path = "support/categories.rs"]
mod categories;
#[path = "support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::sync::Arc;

use metasift::search::Searcher;
use metasift::web::{self, AppState};
use serde_json::Value;
use support::{Behavior, LoopbackEngine};

const CLIENT: &str = r#"
import json, sys
from searxng_search import SearXNGSearch
base, query, page = sys.argv[1], sys.argv[2], int(sys.argv[3])
with SearXNGSearch(base_url=base, timeout=30, retries=0) as client:
    results = client.text(query, category="general", language="en-US", pageno=page, format="json")
print(json.dumps(results, ensure_ascii=False))
"#;

const LANGCHAIN: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
from langchain_community.utilities import SearxSearchWrapper
base, query = sys.argv[1], sys.argv[2]
wrapper = SearxSearchWrapper(searx_host=base, k=100)
print(json.dumps(wrapper.results(query, num_results=100), ensure_ascii=False))
"#;

/// Both clients asking one category: `searxng_search`'s `category=` and
/// LangChain's `categories=[…]`.
const CATEGORY: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
from searxng_search import SearXNGSearch
from langchain_community.utilities import SearxSearchWrapper
base, query, category = sys.argv[1], sys.argv[2], sys.argv[3]
with SearXNGSearch(base_url=base, timeout=30, retries=0) as client:
    one = client.text(query, category=category, language="en-US", pageno=1, format="json")
two = SearxSearchWrapper(searx_host=base, k=100).results(query, num_results=100, categories=[category])
print(json.dumps([one, two], ensure_ascii=False))
"#;

fn venv_python() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/venv/bin/python")
}

/// What the client does to text: `' '.join(text.split())`.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn run_client(base: &str, query: &str, page: u32) -> Vec<Value> {
    run_script(CLIENT, &[base, query, &page.to_string()]).await
}

async fn run_script(script: &str, args: &[&str]) -> Vec<Value> {
    let out = tokio::process::Command::new(venv_python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .await
        .expect("run the python client");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("client prints JSON")
}

/// Whether the venv with both clients is there; `false` after a loud skip
/// message (a failure under `METASIFT_REQUIRE_SERVICES=1`).
fn has_clients() -> bool {
    let python = venv_python();
    let has_client = python.is_file()
        && std::process::Command::new(&python)
            .args(["-c", "import searxng_search, langchain_community.utilities"])
            .status()
            .is_ok_and(|s| s.success());
    if !has_client {
        if support::services_required() {
            panic!(
                "the SearXNG client venv is required but {} is missing",
                python.display()
            );
        }
        eprintln!(
            "\n!!!!! SKIPPED tests/searxng_client.rs: no .ci/venv with searxng_search and langchain-community (run .ci/run or: \
             python3 -m venv .ci/venv && .ci/venv/bin/pip install searxng_search==0.1.2 \
             langchain-community==0.4.2) !!!!!\n"
        );
    }
    has_client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searxng_search_client_reads_metasift_unchanged() {
    if !has_clients() {
        return;
    }

    let ddg = LoopbackEngine::spawn(Behavior::caffeine("duckduckgo")).await;
    let bing = LoopbackEngine::spawn(Behavior::caffeine("bing")).await;
    let mut config = support::web_engines();
    support::point_at(&mut config, "duckduckgo", &ddg.base_url());
    support::point_at(&mut config, "bing", &bing.base_url());
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server =
        tokio::spawn(
            async move { axum::serve(listener, web::router(AppState::new(searcher))).await },
        );
    let base = format!("http://{addr}");

    let query = "does caffeine affect sleep";
    let ours: Value = metasift::search::client_builder()
        .build()
        .unwrap()
        .get(format!(
            "{base}/search?format=json&q={}",
            query.replace(' ', "+")
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ours = ours["results"].as_array().expect("results").clone();
    assert!(ours.len() >= 8, "metasift found {} results", ours.len());

    let theirs = run_client(&base, query, 1).await;
    assert_eq!(theirs.len(), ours.len(), "the client sees every result");
    for (t, o) in theirs.iter().zip(&ours) {
        assert_eq!(t["href"], o["url"]);
        assert_eq!(
            t["title"].as_str().unwrap(),
            normalize(o["title"].as_str().unwrap())
        );
        assert_eq!(
            t["body"].as_str().unwrap(),
            normalize(o["content"].as_str().unwrap())
        );
        assert!(t["href"].as_str().unwrap().starts_with("http"), "{t}");
    }

    // LangChain's wrapper asks the root path (a 308 to /search) and keeps
    // title, link, snippet, engines and category of each result.
    let chain = run_script(LANGCHAIN, &[&base, query]).await;
    assert_eq!(
        chain.len(),
        ours.len(),
        "LangChain sees every result: {chain:?}"
    );
    for (t, o) in chain.iter().zip(&ours) {
        assert_eq!(t["link"], o["url"]);
        assert_eq!(t["title"], o["title"]);
        assert_eq!(t["snippet"], o["content"]);
        assert_eq!(t["engines"], o["engines"]);
        assert_eq!(t["category"], o["category"]);
    }

    server.abort();
    drop((ddg, bing));
}

/// Both clients ask for a category (#27) and get that category's results
/// alone, each with its `category`: one loopback engine per category
/// (`support/categories.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_clients_ask_for_categories() {
    if !has_clients() {
        return;
    }
    let instance = categories::Instance::start().await;
    let searcher = Searcher::new(
        Arc::new(instance.config.clone()),
        metasift::search::client_builder().build().unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server =
        tokio::spawn(
            async move { axum::serve(listener, web::router(AppState::new(searcher))).await },
        );
    for (category, engine) in [("science", "scholar"), ("it", "code"), ("general", "web")] {
        let out = run_script(CATEGORY, &[&base, "rust", category]).await;
        let (one, two) = (out[0].as_array().unwrap(), out[1].as_array().unwrap());
        let links: Vec<&str> = one.iter().map(|r| r["href"].as_str().unwrap()).collect();
        assert_eq!(
            links,
            [categories::url_of(engine)],
            "searxng_search, {category}"
        );
        let links: Vec<&str> = two.iter().map(|r| r["link"].as_str().unwrap()).collect();
        assert_eq!(links, [categories::url_of(engine)], "LangChain, {category}");
        assert_eq!(two[0]["category"], category);
    }
    server.abort();
}
