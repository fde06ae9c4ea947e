//! Issue #30: every step's work bounded, and the last leaks of hostile
//! text — hostile engines as real loopback servers, the real router and
//! the real binary.
//!
//! - 5 results × 400 KB of `"a, b. c; d! "` from a JSON engine: two
//!   concurrent searches end within the deadline, `/healthz` answers
//!   meanwhile, and their dedup work (a count, not a clock) is that of
//!   the clipped text;
//! - re-clustering from cached answers counts against the client's limit;
//! - a link of a control character never becomes the engine's own URL;
//! - no C0 or bidi control reaches HTML, CSV, JSON, RSS or the link line;
//! - `1e400` costs its field, `charset=utf-16` in the header is read;
//! - links of a request without `Host` name the address listened on;
//! - unknown `engines=`, lower-case `bearer`, `number_of_results: 1e308`,
//!   a 50 KB `/autocomplete` query;
//! - `/dev/zero` as a configuration, a dedup input or lab data stops at
//!   the cap with the file's name.

#[path = "support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use metasift::config::Config;
use metasift::web::{self, AppState};
use support::{Behavior, LoopbackEngine};
use tower::ServiceExt;

/// A whole configuration (no built-in engines) with `engines` and `extra`.
fn config(engines: &str, extra: &str) -> Config {
    let text = format!("use_defaults = false\n{extra}\n{engines}");
    Config::parse(&text, Path::new("bounds.toml")).expect("a valid configuration")
}

/// A `kind = "json"` engine named `name` reading `/results` items' `title`,
/// `url` and `content`, at `url`.
fn json_engine(name: &str, url: &str) -> String {
    format!(
        "[[engine]]\nname = \"{name}\"\nkind = \"json\"\nurl = \"{url}\"\ntimeout_ms = 3000\n\
         [engine.parse]\nresults = \"/results\"\ntitle = \"title\"\nurl = \"url\"\n\
         snippet = \"content\"\ntotal = \"/total\"\n"
    )
}

fn json_page(body: impl Into<String>) -> Behavior {
    Behavior::page(body, "application/json")
}

fn app_of(config: Config) -> axum::Router {
    web::router(AppState::serving(config, None, None).expect("a state"))
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, header::HeaderMap, String) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, header::HeaderMap, String) {
    let mut req = Request::get(uri).body(Body::empty()).unwrap();
    req.extensions_mut().insert(ConnectInfo(
        "127.0.0.1:40000".parse::<SocketAddr>().unwrap(),
    ));
    send(app, req).await
}

/// User and system CPU seconds of this process so far, where Linux tells.
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The issue's answer: 5 results, each a 400 KB snippet of punctuated text
/// that repeats.
fn repetitive_answer() -> String {
    let snippet = "a, b. c; d! ".repeat(400_000 / 12);
    let results: Vec<serde_json::Value> = (0..5)
        .map(|i| {
            serde_json::json!({
                "title": format!("Result {i}"),
                "url": format!("https://r{i}.example/page"),
                "content": snippet,
            })
        })
        .collect();
    serde_json::json!({ "results": results }).to_string()
}

/// The headline of #30: two concurrent searches of an engine answering
/// 2 MB of repeated punctuated text end within the deadline (plus a
/// generous margin for a loaded machine: the bar itself is a figure in
/// docs/performance.md), `/healthz` answers while they run, and the dedup
/// work of both is the work of their clipped text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_searches_of_2_mb_of_repeated_text_stay_bounded_and_healthz_answers() {
    let engine = LoopbackEngine::spawn(json_page(repetitive_answer())).await;
    let deadline_ms = 3000;
    let config = config(
        &json_engine("rep", &format!("{}/s?q={{query}}", engine.base_url())),
        &format!("[server]\ndeadline_ms = {deadline_ms}\n"),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = config.server.connections.clone();
    let router = app_of(config);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        web::serve::serve(listener, router, &connections, async {
            let _ = stopped.await;
        })
        .await
    });
    let client = metasift::search::client_builder().build().unwrap();
    let work_before = metasift::fusion::dedup_work();
    let cpu_before = process_cpu_s();
    let started = Instant::now();
    let search = |q: &'static str| {
        let client = client.clone();
        tokio::spawn(async move {
            let t = Instant::now();
            let r = client
                .get(format!("http://{addr}/search?q={q}&format=json"))
                .send()
                .await
                .expect("the search answers");
            let status = r.status();
            let body = r.text().await.unwrap();
            (status, body, t.elapsed())
        })
    };
    let (a, b) = (search("one"), search("two"));
    // /healthz while they run.
    let mut health = Vec::new();
    while !(a.is_finished() && b.is_finished()) && started.elapsed() < Duration::from_secs(60) {
        let t = Instant::now();
        let r = client
            .get(format!("http://{addr}/healthz"))
            .send()
            .await
            .expect("/healthz answers");
        assert!(r.status().is_success());
        health.push((t.elapsed(), a.is_finished() && b.is_finished()));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    let cpu = process_cpu_s().zip(cpu_before).map(|(x, y)| x - y);
    let work = metasift::fusion::dedup_work() - work_before;
    for (status, body, elapsed) in [&a, &b] {
        assert_eq!(*status, StatusCode::OK, "{body}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        let results = v["results"].as_array().unwrap();
        // One text under five links: one group.
        assert!(!results.is_empty(), "{body}");
        for r in results {
            let content = r["content"].as_str().unwrap();
            assert!(
                content.len() <= metasift_dedup::MAX_SNIPPET_BYTES,
                "clipped"
            );
        }
        assert!(
            *elapsed < Duration::from_millis(deadline_ms) + Duration::from_secs(10),
            "a search took {elapsed:?}"
        );
    }
    assert!(
        health.iter().any(|(_, done)| !done),
        "/healthz answered while the searches ran: {health:?}"
    );
    // 2 searches × 5 records × (4 KB read, ~1,400 codes, ≤ 8 postings
    // entries per code and kept record): well under 200,000.
    assert!(work > 0 && work < 200_000, "dedup work {work}");
    let slowest_health = health.iter().map(|(d, _)| *d).max().unwrap_or_default();
    eprintln!(
        "two searches: {:?} and {:?}; /healthz slowest {slowest_health:?} of {}; \
         process CPU {cpu:?} s; dedup work {work}",
        a.2,
        b.2,
        health.len()
    );
    let _ = stop.send(());
    let _ = server.await;
}

/// Re-clustering (other `os1`) from cached answers is refused past the
/// per-client limit, as a fan-out is.
#[tokio::test]
async fn reclustering_from_cached_answers_counts_against_the_limit() {
    let engine = LoopbackEngine::spawn(json_page(
        serde_json::json!({"results": [
            {"title": "A", "url": "https://a.example/", "content": "Rates rose, markets fell."},
            {"title": "B", "url": "https://b.example/", "content": "Rates rose; markets fell!"},
        ]})
        .to_string(),
    ))
    .await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "[limits]\nper_minute = 2\nburst = 2\n",
    ));
    let mut statuses = Vec::new();
    for i in 0..6 {
        let (status, _, _) = get(&app, &format!("/search?q=rates&format=json&os1=0.5{i}")).await;
        statuses.push(status);
    }
    assert_eq!(engine.requests(), 1, "one fan-out, then cached answers");
    assert!(
        statuses.contains(&StatusCode::TOO_MANY_REQUESTS),
        "re-clustering is limited: {statuses:?}"
    );
    // Plain searches from the cache are still refunded (#15): a burst of 2
    // takes any number of them.
    let plain = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "[limits]\nper_minute = 2\nburst = 2\n",
    ));
    for _ in 0..5 {
        let (status, _, body) = get(&plain, "/search?q=again&format=json").await;
        assert_eq!(status, StatusCode::OK, "a cache hit costs nothing: {body}");
    }
}

/// A link made of a control character (the `url` crate drops it, leaving
/// the empty reference) never shows the engine's own URL and its key.
#[tokio::test]
async fn a_control_character_link_never_resolves_to_the_engine_url() {
    let engine = LoopbackEngine::spawn(json_page(
        r#"{"results": [
            {"title": "Control", "url": "\u0001", "content": "x"},
            {"title": "Controls", "url": "\u0001\t\u001f ", "content": "x"},
            {"title": "Bidi", "url": "\u202e", "content": "x"},
            {"title": "Good", "url": "https://good.example/", "content": "y"}
        ]}"#,
    ))
    .await;
    let app = app_of(config(
        &json_engine(
            "e",
            &format!("{}/relurls?api_key=SECRET&q={{query}}", engine.base_url()),
        ),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!body.contains("SECRET"), "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 1, "{body}");
}

/// C0 and bidi controls in every field an engine gives reach no output.
#[tokio::test]
async fn no_control_or_bidi_character_reaches_any_output() {
    let engine = LoopbackEngine::spawn(json_page(
        r#"{"results": [{
            "title": "Bell\u0007 and\u0000 escape\u001b[31m \u202eexe.txt\u2066",
            "url": "https://ex.example/%E2%80%AEexe.txt/%E2%81%A6x",
            "content": "nul\u0000 bel\u0007 esc\u001b lrm\u200e alm\u061c\u0085 end"
        }]}"#,
    ))
    .await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "",
    ));
    let hidden = |c: char| {
        (c < ' ' && !matches!(c, '\n' | '\r' | '\t'))
            || matches!(c, '\u{7f}'..='\u{9f}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
                | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    for format in ["html", "csv", "json", "rss"] {
        let (status, _, body) = get(&app, &format!("/search?q=bell&format={format}")).await;
        assert_eq!(status, StatusCode::OK, "{format}: {body}");
        assert!(
            body.contains("Bell"),
            "{format}: the result is there\n{body}"
        );
        assert!(!body.chars().any(hidden), "{format}: {body:?}");
        // Nor written as JSON escapes.
        for esc in ["\\u0000", "\\u0007", "\\u001b", "\\u202e", "\\u2066"] {
            assert!(
                !body.to_lowercase().contains(esc),
                "{format}: {esc} in {body}"
            );
        }
    }
}

/// One number past `f64` (valid JSON) costs its field, not the answer; the
/// estimate of `1e308` is no estimate.
#[tokio::test]
async fn an_out_of_range_number_costs_one_field() {
    let engine = LoopbackEngine::spawn(json_page(
        r#"{"total": 1e308, "results": [
            {"title": "A", "url": "https://a.example/", "content": "a", "score": 1e400},
            {"title": "B", "url": "https://b.example/", "content": -1e999}
        ]}"#,
    ))
    .await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2, "{body}");
    assert!(
        v["number_of_results"].as_f64().unwrap_or(0.0) < 1e15,
        "an estimate of 1e308 is no estimate: {body}"
    );
}

/// A searxng member's `number_of_results: 1e308` is no estimate either.
#[tokio::test]
async fn a_members_huge_estimate_is_ignored() {
    let engine = LoopbackEngine::spawn(json_page(
        r#"{"number_of_results": 1e308, "results": [
            {"url": "https://a.example/", "title": "A", "content": "a"}]}"#,
    ))
    .await;
    let app = app_of(config(
        &format!(
            "[[engine]]\nname = \"m\"\nkind = \"searxng\"\nurl = \"{}/search?q={{query}}\"\n",
            engine.base_url()
        ),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!body.contains("18446744073709551615"), "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        v["number_of_results"].as_f64().unwrap_or(0.0) < 1e15,
        "{body}"
    );
}

/// `charset=utf-16` in the header is UTF-16 (little-endian, no BOM).
#[tokio::test]
async fn a_utf16_charset_in_the_header_is_honoured() {
    let text =
        r#"{"results": [{"title": "Café 中文", "url": "https://a.example/", "content": "é"}]}"#;
    let body: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let engine = LoopbackEngine::spawn(Behavior::Page {
        body: Bytes::from(body),
        content_type: "application/json; charset=utf-16".into(),
    })
    .await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("Café 中文"), "{body}");
}

/// A feed whose only item was refused says so: no silent zero.
#[tokio::test]
async fn a_feed_whose_only_item_is_refused_reports_it() {
    let engine = LoopbackEngine::spawn(Behavior::page(
        "<rss version=\"2.0\"><channel><title>f</title><item><title>Bad</title>\
         <link>javascript:alert(1)</link></item></channel></rss>",
        "application/rss+xml",
    ))
    .await;
    let app = app_of(config(
        &format!(
            "[[engine]]\nname = \"f\"\nkind = \"feed\"\nurl = \"{}/rss?q={{query}}\"\n",
            engine.base_url()
        ),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("all refused"), "{body}");
}

/// `engines=` naming no configured engine is refused with the names.
#[tokio::test]
async fn engines_naming_only_unknown_engines_are_refused() {
    let engine = LoopbackEngine::spawn(json_page(r#"{"results": []}"#)).await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "",
    ));
    let (status, _, body) = get(&app, "/search?q=x&format=json&engines=nope,nada").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("nope, nada"), "{body}");
    assert_eq!(engine.requests(), 0);
    let (status, _, _) = get(&app, "/search?q=x&format=json&engines=e").await;
    assert_eq!(status, StatusCode::OK);
}

/// The scheme of `Authorization` is case-insensitive.
#[tokio::test]
async fn a_lower_case_bearer_is_a_bearer() {
    let config = config(
        &json_engine("e", "http://127.0.0.1:9/s?q={query}"),
        "[server]\npublic = true\n",
    );
    let app = web::router(
        AppState::serving(config, None, None)
            .unwrap()
            .with_metrics_token(Some("tok".into())),
    );
    for (auth, want) in [
        ("bearer tok", StatusCode::OK),
        ("BEARER  tok ", StatusCode::OK),
        ("Bearer tok", StatusCode::OK),
        ("bearer nope", StatusCode::FORBIDDEN),
        ("Basic tok", StatusCode::FORBIDDEN),
    ] {
        let mut req = Request::get("/stats")
            .header(header::AUTHORIZATION, auth)
            .body(Body::empty())
            .unwrap();
        req.extensions_mut().insert(ConnectInfo(
            "203.0.113.9:5000".parse::<SocketAddr>().unwrap(),
        ));
        let (status, _, body) = send(&app, req).await;
        assert_eq!(
            status == StatusCode::OK,
            want == StatusCode::OK,
            "{auth}: {status} {body}"
        );
    }
}

/// A 50 KB `q` is neither searched nor echoed whole.
#[tokio::test]
async fn autocomplete_caps_its_query() {
    let engine = LoopbackEngine::spawn(json_page(r#"{"results": []}"#)).await;
    let app = app_of(config(
        &json_engine("e", &format!("{}/s?q={{query}}", engine.base_url())),
        "[server]\nautocomplete = \"e\"\n",
    ));
    let q = "a".repeat(50_000);
    let (status, _, body) = get(&app, &format!("/autocomplete?q={q}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.len() < 2_000, "{} bytes", body.len());
    assert_eq!(engine.requests(), 0);
}

/// A request without `Host` (HTTP/1.0) gets links to the address the
/// server listens on, not `[server] bind`.
#[tokio::test]
async fn links_without_a_host_name_the_listening_address() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = config(
        &json_engine("e", "http://127.0.0.1:9/s?q={query}"),
        "[server]\nbind = \"127.0.0.1:8888\"\n",
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = config.server.connections.clone();
    let router = app_of(config);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        web::serve::serve(listener, router, &connections, async {
            let _ = stopped.await;
        })
        .await
    });
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /opensearch.xml HTTP/1.0\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_string(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    assert!(answer.contains(&format!("http://{addr}/")), "{answer}");
    assert!(!answer.contains(":8888"), "{answer}");
    let _ = stop.send(());
    let _ = server.await;
}

/// The binary's input files stop at their caps with the file's name.
#[test]
fn dev_zero_inputs_stop_at_the_cap_with_the_files_name() {
    if !Path::new("/dev/zero").exists() {
        eprintln!("no /dev/zero: skipped");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_metasift");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounds-lab");
    let runs: [(&str, Vec<&str>); 4] = [
        ("check-config", vec!["check-config", "/dev/zero"]),
        (
            "serve --config",
            vec!["serve", "--config", "/dev/zero", "--bind", "127.0.0.1:0"],
        ),
        (
            "dedup --input",
            vec!["dedup", "--input", "/dev/zero", "--output", "/dev/null"],
        ),
        (
            "lab --data",
            vec![
                "lab",
                "--data",
                "/dev/zero",
                "--out",
                out_dir.to_str().unwrap(),
            ],
        ),
    ];
    for (what, args) in runs {
        let out = Command::new(bin)
            .args(&args)
            .output()
            .expect("metasift runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what}: {stderr}");
        assert!(stderr.contains("/dev/zero"), "{what}: {stderr}");
        assert!(
            stderr.contains("larger than") || stderr.contains("longer than"),
            "{what}: {stderr}"
        );
    }
}

/// `metasift dedup` of three 200 KB lines of repeated punctuated text
/// (timed in docs/performance.md): their verdicts, each record its own.
#[test]
fn dedup_of_three_200_kb_lines_runs_on_clipped_text() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounds-dedup");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.jsonl");
    let snippet = "a, b. c; d! ".repeat(200_000 / 12);
    let lines: Vec<String> = (0..3)
        .map(|i| {
            serde_json::json!({"id": i, "url": format!("https://h{i}.example/"),
                "title": format!("T{i}"), "snippet": snippet})
            .to_string()
        })
        .collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["dedup", "--input"])
        .arg(&input)
        .output()
        .expect("metasift runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    // The same snippet under three titles: the second and third join the first.
    let stages: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["stage"].clone())
        .collect();
    assert_eq!(
        stages,
        [serde_json::Value::Null, "snippet".into(), "snippet".into()]
    );
}
