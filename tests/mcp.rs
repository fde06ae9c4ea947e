//! The MCP server with a real MCP client (the `rmcp` SDK's): `metasift mcp`
//! started as a child process and spoken to over stdio, and `metasift serve`
//! spoken to over Streamable HTTP at `/mcp`; the member engines are two
//! loopback servers answering our own SearXNG-shaped JSON, one link of
//! which both give (under two spellings: a duplicate group).
//!
//! Run with `cargo test --test mcp`.

#[path = "support/mod.rs"]
mod support;
// `signal` is for the tests that send signals.
#[allow(dead_code)]
#[path = "support/serve.rs"]
mod serve;

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use metasift::web::{self, AppState};
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use support::{Behavior, LoopbackEngine};
use tower::ServiceExt as _;

const BOOK: &str = "https://doc.rust-lang.org/book/";

/// One engine's answer: the book (under its own spelling of the link) and
/// a page of its own.
fn answer(tag: &str, book_link: &str) -> Behavior {
    let body = serde_json::json!({
        "results": [
            {
                "url": book_link,
                "title": "The Rust Programming Language",
                "content": "The book about Rust, by Steve Klabnik and Carol Nichols, with \
                            contributions from the Rust community.",
                "publishedDate": "2026-11-20T10:00:00Z"
            },
            {
                "url": format!("https://{tag}.example/only"),
                "title": format!("A page only {tag} knows"),
                "content": format!("Nothing else lists this page; {tag} found it alone.")
            }
        ]
    });
    Behavior::page(body.to_string(), "application/json")
}

/// The two loopback engines: `alpha` gives the book with a tracking
/// parameter, `beta` without (the same page: one group).
async fn engines() -> (LoopbackEngine, LoopbackEngine) {
    let alpha = LoopbackEngine::spawn(answer("alpha", &format!("{BOOK}?utm_source=alpha"))).await;
    let beta = LoopbackEngine::spawn(answer("beta", BOOK)).await;
    (alpha, beta)
}

/// The whole configuration (not laid over the built-in engines).
fn config_text(alpha: &LoopbackEngine, beta: &LoopbackEngine, extra: &str) -> String {
    let mut text = format!("use_defaults = false\n{extra}\n");
    for (name, engine) in [("alpha", alpha), ("beta", beta)] {
        text.push_str(&format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\n\
             url = \"{}/search?q={{query}}&p={{page}}\"\ntimeout_ms = 3000\n\n",
            engine.base_url()
        ));
    }
    text
}

fn temp_config(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "metasift-mcp-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("engines.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn arguments(v: serde_json::Value) -> JsonObject {
    let serde_json::Value::Object(map) = v else {
        panic!("arguments are an object")
    };
    map
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    args: serde_json::Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments(args)))
        .await
        .unwrap_or_else(|e| panic!("calling {tool}: {e}"))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What every client must see, whichever the transport: both tools listed
/// with their arguments, the fused list with the book once and its other
/// spelling as a duplicate link, the engines' health, and bad arguments
/// refused as tool errors that say which.
async fn lists_tools_and_gets_fused_results(client: &RunningService<RoleClient, ()>) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"search") && names.contains(&"engines"),
        "{names:?}"
    );
    let search = tools.iter().find(|t| t.name == "search").unwrap();
    let schema = serde_json::Value::Object((*search.input_schema).clone());
    for arg in [
        "query",
        "categories",
        "engines",
        "page",
        "time_range",
        "language",
    ] {
        assert!(schema["properties"].get(arg).is_some(), "{arg}: {schema}");
    }
    assert_eq!(schema["required"], serde_json::json!(["query"]), "{schema}");

    let result = call(client, "search", serde_json::json!({"query": "rust book"})).await;
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    let answer = result
        .structured_content
        .clone()
        .expect("structured content");
    let results = answer["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{answer}");
    let books: Vec<_> = results
        .iter()
        .filter(|r| r["url"].as_str().unwrap().starts_with(BOOK))
        .collect();
    assert_eq!(books.len(), 1, "the book is shown once: {answer}");
    let book = books[0];
    assert_eq!(book["title"], "The Rust Programming Language");
    assert!(book["snippet"].as_str().unwrap().contains("Steve Klabnik"));
    assert_eq!(book["date"], "2026-11-20T10:00:00Z");
    let mut engines: Vec<&str> = book["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    engines.sort();
    assert_eq!(engines, ["alpha", "beta"]);
    let duplicates = book["duplicates"].as_array().unwrap();
    assert_eq!(duplicates.len(), 1, "{book}");
    let duplicate = &duplicates[0];
    assert_eq!(duplicate["stage"], "url");
    let shown = book["url"].as_str().unwrap();
    let other = duplicate["url"].as_str().unwrap();
    assert!(
        other.starts_with(BOOK) && other != shown,
        "{shown} / {other}"
    );
    // The readable text carries the same: the duplicate's link included.
    let text = text_of(&result);
    assert!(text.contains("The Rust Programming Language"), "{text}");
    assert!(
        text.contains(&format!(
            "duplicate ({}, url): {other}",
            duplicate["engine"].as_str().unwrap()
        )),
        "{text}"
    );
    assert!(text.contains("https://alpha.example/only"), "{text}");

    let listed = call(client, "engines", serde_json::json!({})).await;
    assert_ne!(listed.is_error, Some(true), "{}", text_of(&listed));
    let listed = listed.structured_content.expect("structured content");
    let states = listed["engines"].as_array().unwrap();
    assert_eq!(states.len(), 2, "{listed}");
    for e in states {
        assert_eq!(e["status"], "ok", "{e}");
        assert_eq!(e["requests"], 1, "{e}");
    }

    for (args, says) in [
        (
            serde_json::json!({"query": "rust", "engines": ["nowhere"]}),
            "engines: none of nowhere",
        ),
        (serde_json::json!({"query": "   "}), "query: empty"),
        (
            serde_json::json!({"query": "rust", "page": 51}),
            "page: 51 is out of range",
        ),
        (
            serde_json::json!({"query": "rust", "time_range": "hour"}),
            "time_range:",
        ),
        (
            serde_json::json!({"query": "rust", "pages": 2}),
            "unknown field `pages`",
        ),
        (
            serde_json::json!({"query": "x".repeat(1001)}),
            "query: 1001 characters",
        ),
    ] {
        let refused = call(client, "search", args.clone()).await;
        assert_eq!(refused.is_error, Some(true), "{args}");
        let text = text_of(&refused);
        assert!(text.contains(says), "{args}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_stdio_lists_the_tools_and_gets_fused_results() {
    let (alpha, beta) = engines().await;
    let path = temp_config(
        "stdio",
        &config_text(&alpha, &beta, "[server]\ndeadline_ms = 5000"),
    );
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_metasift")).configure(|c| {
        c.args(["mcp", "--config"])
            .arg(&path)
            .env("RUST_LOG", "warn");
    });
    let transport = TokioChildProcess::new(command).expect("start metasift mcp");
    let client = ().serve(transport).await.expect("initialize over stdio");
    let info = client.peer_info().expect("the server said who it is");
    let name = info.server_info.as_ref().map(|s| s.name.as_str());
    assert_eq!(name, Some("metasift"));
    lists_tools_and_gets_fused_results(&client).await;
    // Each engine was asked once: the refused calls asked none.
    assert_eq!((alpha.requests(), beta.requests()), (1, 1));
    client.cancel().await.expect("close the session");
    cleanup(&path);
}

fn http_client(url: String) -> rmcp::transport::StreamableHttpClientTransport<reqwest::Client> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let client = metasift::search::client_builder().build().unwrap();
    rmcp::transport::StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_http_gets_fused_results_under_the_search_rate_limit() {
    let (alpha, beta) = engines().await;
    // Two searches at once, one more a minute: the same budget as /search.
    let extra = "[server]\ndeadline_ms = 5000\n[limits]\nper_minute = 1\nburst = 2\n";
    let path = temp_config("http", &config_text(&alpha, &beta, extra));
    let server = serve::Server::start(&path);
    let client =
        ().serve(http_client(format!("{}/mcp", server.base)))
            .await
            .expect("initialize over HTTP");
    lists_tools_and_gets_fused_results(&client).await;

    // The same search again comes from the cache: refunded, as on /search.
    let again = call(&client, "search", serde_json::json!({"query": "rust book"})).await;
    assert_ne!(again.is_error, Some(true), "{}", text_of(&again));
    assert_eq!(again.structured_content.unwrap()["cached"], true);
    let second = call(&client, "search", serde_json::json!({"query": "cargo"})).await;
    assert_ne!(second.is_error, Some(true), "{}", text_of(&second));
    let third = call(&client, "search", serde_json::json!({"query": "clippy"})).await;
    assert_eq!(third.is_error, Some(true), "{}", text_of(&third));
    assert!(
        text_of(&third).contains("too many searches"),
        "{}",
        text_of(&third)
    );
    // /search shares the budget: it is spent there too.
    let refused = metasift::search::client_builder()
        .build()
        .unwrap()
        .get(format!("{}/search?q=rustup&format=json", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 429);
    client.cancel().await.expect("close the session");
    drop(server);
    cleanup(&path);
}

fn cleanup(path: &Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// What a POST of an MCP `initialize` to `/mcp` of a router over `config`
/// answers.
async fn initialize_status(config_text: &str) -> StatusCode {
    let config = Config::parse(config_text, Path::new("t.toml")).expect("valid test config");
    let app = web::router(AppState::serving(config, None, None).unwrap());
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    let request = Request::post("/mcp")
        .header(header::HOST, "127.0.0.1")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.oneshot(request).await.unwrap().status()
}

#[tokio::test]
async fn mcp_is_off_on_a_public_instance_unless_the_operator_opens_it() {
    let base = "use_defaults = false\n[[engine]]\nname = \"e\"\nkind = \"searxng\"\n\
                url = \"http://127.0.0.1:9/search?q={query}\"\n";
    // A private instance: on.
    assert_eq!(initialize_status(base).await, StatusCode::OK);
    // Public: the route does not exist.
    let public = format!("{base}[server]\npublic = true\n");
    assert_eq!(initialize_status(&public).await, StatusCode::NOT_FOUND);
    // Public, opened by the operator.
    let opened = format!("{base}[server]\npublic = true\nmcp = true\n");
    assert_eq!(initialize_status(&opened).await, StatusCode::OK);
    // Private, closed by the operator.
    let closed = format!("{base}[server]\nmcp = false\n");
    assert_eq!(initialize_status(&closed).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn mcp_refuses_a_browser_page_and_a_foreign_host() {
    let config = "use_defaults = false\n[[engine]]\nname = \"e\"\nkind = \"searxng\"\n\
                  url = \"http://127.0.0.1:9/search?q={query}\"\n";
    let app = web::router(
        AppState::serving(
            Config::parse(config, Path::new("t.toml")).unwrap(),
            None,
            None,
        )
        .unwrap(),
    );
    let post = |host: &str, origin: Option<&str>| {
        let mut r = Request::post("/mcp")
            .header(header::HOST, host)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(o) = origin {
            r = r.header(header::ORIGIN, o);
        }
        r.body(Body::from(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        ))
        .unwrap()
    };
    // A page on another site, in the user's browser.
    let status = app
        .clone()
        .oneshot(post("127.0.0.1", Some("https://evil.example")))
        .await
        .unwrap()
        .status();
    assert!(status.is_client_error(), "{status}");
    // DNS rebinding: a foreign name resolving to loopback.
    let status = app
        .clone()
        .oneshot(post("evil.example", None))
        .await
        .unwrap()
        .status();
    assert!(status.is_client_error(), "{status}");
    let status = app
        .oneshot(post("localhost:8888", None))
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::OK);
}

// ---- the `mcp` package from PyPI ------------------------------------------

/// The Python SDK's client (`mcp` on PyPI, installed by `.ci/run` into
/// `.ci/venv`): over stdio (`stdio COMMAND ARGS…`) or Streamable HTTP
/// (`http URL`), it lists the tools, searches, and makes one bad call.
const PYTHON_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import Client, StdioServerParameters

async def main():
    kind, target = sys.argv[1], sys.argv[2]
    server = StdioServerParameters(command=target, args=sys.argv[3:]) if kind == "stdio" else target
    async with Client(server) as client:
        tools = await client.list_tools()
        found = await client.call_tool("search", {"query": "rust book"})
        bad = await client.call_tool("search", {"query": "rust", "page": 99})
        print(json.dumps({
            "tools": sorted(t.name for t in tools.tools),
            "found": found.model_dump(by_alias=True, mode="json"),
            "bad": bad.model_dump(by_alias=True, mode="json"),
        }))

asyncio.run(main())
"#;

fn venv_python() -> Option<PathBuf> {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/venv/bin/python");
    let has_mcp = std::process::Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has_mcp {
        return Some(python);
    }
    if support::services_required() {
        panic!("the `mcp` package is required (METASIFT_REQUIRE_SERVICES=1) but not in .ci/venv");
    }
    eprintln!("SKIPPED: no .ci/venv with the `mcp` package (bash .ci/run installs it)");
    None
}

async fn run_python(python: &Path, args: &[&str]) -> serde_json::Value {
    let out = tokio::process::Command::new(python)
        .arg("-c")
        .arg(PYTHON_CLIENT)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("run the python client");
    assert!(
        out.status.success(),
        "python client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the client prints JSON")
}

fn check_python_answer(v: &serde_json::Value) {
    assert_eq!(v["tools"], serde_json::json!(["engines", "search"]), "{v}");
    let found = &v["found"];
    assert_ne!(found["isError"], true, "{found}");
    let results = found["structuredContent"]["results"]
        .as_array()
        .expect("results");
    let book: Vec<_> = results
        .iter()
        .filter(|r| r["url"].as_str().unwrap().starts_with(BOOK))
        .collect();
    assert_eq!(book.len(), 1, "{found}");
    assert_eq!(
        book[0]["duplicates"].as_array().unwrap().len(),
        1,
        "{found}"
    );
    let text = found["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("duplicate ("), "{text}");
    assert_eq!(v["bad"]["isError"], true, "{v}");
    assert!(
        v["bad"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("page: 99"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_reads_both_transports() {
    let Some(python) = venv_python() else { return };
    let (alpha, beta) = engines().await;
    let path = temp_config(
        "python",
        &config_text(&alpha, &beta, "[server]\ndeadline_ms = 5000"),
    );
    let bin = env!("CARGO_BIN_EXE_metasift");
    let config = path.to_str().unwrap();
    let v = run_python(&python, &["stdio", bin, "mcp", "--config", config]).await;
    check_python_answer(&v);
    let server = serve::Server::start(&path);
    let v = run_python(&python, &["http", &format!("{}/mcp", server.base)]).await;
    check_python_answer(&v);
    drop(server);
    cleanup(&path);
}
