//! What a newcomer meets in the first minutes (issue #25), each thing with
//! a test that fails when it breaks again: `--record` writes every answer
//! or says which it could not; `--replay` of a missing folder is one clear
//! error; `check-config` reports every problem of a file in one run; a lab
//! run that judged no pair is an error and `docs/lab.md`'s examples parse;
//! `/lab` without a data folder; the home page's engine count; `/stats` on
//! disabled engines; one number of results in every format; a page where
//! every engine failed says it once; a 400 page keeps the query.
//!
//! Run with `cargo test --test first_minutes`.

#[path = "support/bad_configs.rs"]
mod bad_configs;
#[path = "support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use support::router::{app_with, config, get_from, send};
use support::{Behavior, LoopbackEngine, test_page};

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("first-minutes-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `metasift ARGS`, run off the async runtime (the loopback engines it asks
/// run on it).
async fn metasift(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_metasift"))
            .args(&args)
            .env_remove("RUST_LOG")
            .env_remove("METASIFT_CONFIG")
            .stdin(Stdio::null())
            .output()
            .expect("run metasift")
    })
    .await
    .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A `searxng`-kind engine table asking `base`.
fn engine_table(name: &str, base: &str) -> String {
    format!(
        "[[engine]]\nname = {name:?}\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}&format=json\"\n"
    )
}

/// A port nothing listens on (bound, then let go).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

// ---- metasift search --record / --replay ----------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_record_writes_every_answer_or_says_which_it_could_not() {
    let up = LoopbackEngine::spawn(test_page(&[(
        "https://example.org/a",
        "A page",
        "Some text",
    )]))
    .await;
    let dir = temp_dir("record");
    let down = format!("http://127.0.0.1:{}", closed_port());
    let cfg = dir.join("engines.toml");
    let write_config = |engines: &[(&str, &str)]| {
        let mut text = String::from("use_defaults = false\n");
        for (name, base) in engines {
            text.push_str(&engine_table(name, base));
        }
        std::fs::write(&cfg, text).unwrap();
    };
    let run = |rec: &Path| {
        metasift(vec![
            "search".into(),
            "hello".into(),
            "--config".into(),
            cfg.display().to_string(),
            "--record".into(),
            rec.display().to_string(),
        ])
    };

    // Every engine answered: every answer is written, and said.
    write_config(&[("up", &up.base_url())]);
    let rec = dir.join("all");
    let out = run(&rec).await;
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("recorded 1 of 1 engine answers"), "{err}");
    let files: Vec<_> = std::fs::read_dir(rec.join("up")).unwrap().collect();
    assert_eq!(files.len(), 1, "{err}");

    // One engine gave no answer to write: the run says which and why, and
    // fails, so a script never takes a partial recording for a whole one.
    write_config(&[("up", &up.base_url()), ("down", &down)]);
    let rec = dir.join("partial");
    let out = run(&rec).await;
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("recorded 1 of 2 engine answers"), "{err}");
    assert!(
        err.contains("not recorded: down: no answer to save (network)"),
        "{err}"
    );
    assert!(err.contains("down: network"), "why, once: {err}");
    assert!(rec.join("up").is_dir(), "{err}");

    // A folder that cannot be written is said before anything is asked.
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let asked = up.requests();
    let out = run(&file.join("rec")).await;
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("--record: cannot write recordings"), "{err}");
    assert_eq!(up.requests(), asked, "no engine asked: {err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_of_a_missing_folder_is_one_clear_error() {
    let dir = temp_dir("replay");
    let cfg = dir.join("engines.toml");
    std::fs::write(
        &cfg,
        format!(
            "use_defaults = false\n{}{}",
            engine_table("one", "http://127.0.0.1:9"),
            engine_table("two", "http://127.0.0.1:9")
        ),
    )
    .unwrap();
    let missing = dir.join("no-such-recording");
    let out = metasift(vec![
        "search".into(),
        "hello".into(),
        "--config".into(),
        cfg.display().to_string(),
        "--replay".into(),
        missing.display().to_string(),
    ])
    .await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("no such folder: {}", missing.display())),
        "{stderr}"
    );
    assert!(
        !stderr.contains("WARN"),
        "one error, not a line per engine: {stderr}"
    );
    assert!(!stdout.contains("no results"), "{stdout}");

    // `serve` refuses it the same way instead of serving failures.
    let child = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .args(["serve", "--bind", "127.0.0.1:0", "--config"])
        .arg(&cfg)
        .arg("--replay")
        .arg(&missing)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || wait_bounded(child, Duration::from_secs(60)))
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no such folder"),
        "{}",
        text(&out.stderr)
    );
}

/// The child's output once it exits; killed (and the test failed) when it
/// is still running after `limit`.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---- check-config ---------------------------------------------------------

/// The binary prints every problem of a file in one run, each as
/// `FILE:LINE:COLUMN: message` at the user's file (laid over the built-in
/// defaults as `serve` reads it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_config_prints_every_problem_of_a_file_at_its_line() {
    let case = bad_configs::cases()
        .into_iter()
        .find(|c| c.more.len() >= 8)
        .expect("a case with many problems");
    let dir = temp_dir("check-config");
    let file = dir.join("bad.toml");
    std::fs::write(&file, &case.text).unwrap();
    let out = metasift(vec!["check-config".into(), file.display().to_string()]).await;
    assert!(!out.status.success());
    let shown: Vec<String> = text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with(&file.display().to_string()))
        .map(str::to_string)
        .collect();
    bad_configs::reports_every_problem(&case, &file.display().to_string(), &shown)
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- the lab ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lab_run_that_judged_no_pair_is_an_error() {
    let dir = temp_dir("lab-none");
    // Every row in the middle band, or a record set of one record each.
    let tsv = dir.join("pairs.tsv");
    std::fs::write(
        &tsv,
        "id\ttext_a\ttext_b\tscore\n1\ta b\ta c\t2.5\n2\tx\ty\t3\n",
    )
    .unwrap();
    let jsonl = dir.join("pairs.jsonl");
    std::fs::write(
        &jsonl,
        "{\"a\": \"text\", \"b\": \"text\", \"duplicate\": true}\n{\"a\": {}, \"b\": {}}\n",
    )
    .unwrap();
    let sets = dir.join("sets.jsonl");
    std::fs::write(
        &sets,
        "{\"group\": \"g\", \"url\": \"https://a.example/\"}\n",
    )
    .unwrap();
    for file in [&tsv, &jsonl, &sets] {
        let out = metasift(vec![
            "lab".into(),
            "--data".into(),
            file.display().to_string(),
            "--out".into(),
            dir.join("out").display().to_string(),
        ])
        .await;
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{}: {err}", file.display());
        assert!(
            err.contains("no pair to judge"),
            "{}: {err}",
            file.display()
        );
        assert!(!err.contains("1.000"), "{err}");
    }
}

/// Every `tsv` and `jsonl` block of `docs/lab.md` loads as the lab reads a
/// file: no bad line, at least one pair to judge.
#[test]
fn the_input_examples_of_docs_lab_md_parse() {
    let doc = std::fs::read_to_string(support::crate_dir().join("docs/lab.md")).unwrap();
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in doc.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_string(), String::new())),
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    let examples: Vec<&(String, String)> = blocks
        .iter()
        .filter(|(info, _)| info == "tsv" || info == "jsonl")
        .collect();
    assert!(examples.len() >= 3, "{blocks:?}");
    let mut formats = Vec::new();
    for (i, (info, body)) in examples.iter().enumerate() {
        let name = format!("docs/lab.md example {} ({info})", i + 1);
        let file = metasift::lab::data::load_str(body, Path::new(&name), Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(file.bad_lines.is_empty(), "{name}: {:?}", file.bad_lines);
        assert!(file.data.pair_count() > 0, "{name}");
        formats.push(file.format);
    }
    use metasift::lab::data::Format;
    for f in [Format::TsvPairs, Format::JsonPairs, Format::JsonSets] {
        assert!(formats.contains(&f), "docs/lab.md shows no {f:?} example");
    }
}

const ONE_ENGINE: &str =
    "[[engine]]\nname = \"a\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/search?q={query}\"\n";

#[tokio::test]
async fn the_lab_without_a_data_folder_asks_for_an_upload_and_keeps_pasted_text() {
    let app = app_with(config(ONE_ENGINE));
    let (resp, body) = get_from(&app, "/lab").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(!body.contains("Or upload"), "no list to follow: {body}");
    assert!(body.contains("Upload TSV pairs"), "{body}");

    let pasted = "id\ttext_a\ttext_b\tlabel\n1\tthe cat & the hat\tthe cat and the hat\t1\n2\tred\tblue\t0\n";
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("text", pasted)
        .append_pair("method", "feature-code")
        .append_pair("from", "0.5")
        .append_pair("to", "0.6")
        .append_pair("step", "0.1")
        .finish();
    let (resp, body) = send(
        app.clone(),
        Request::post("/lab")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(form))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    assert!(body.contains("id=\"lab-run\""), "the run happened");
    let escaped = pasted.replace('&', "&#38;");
    assert!(
        body.contains(&format!("spellcheck=\"false\">{escaped}</textarea>")),
        "the pasted text stays in its box: {body}"
    );
}

// ---- the home page and /stats ----------------------------------------------

#[tokio::test]
async fn the_home_page_counts_what_general_asks_and_stats_says_disabled() {
    let text = "[[engine]]\nname = \"g1\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\n\
                [[engine]]\nname = \"g2\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={query}\"\n\
                [[engine]]\nname = \"news_only\"\nkind = \"searxng\"\ncategories = [\"news\"]\nurl = \"http://127.0.0.1:9/?q={query}\"\n\
                [[engine]]\nname = \"off\"\nkind = \"searxng\"\nenabled = false\nurl = \"http://127.0.0.1:9/?q={query}\"\n";
    let app = app_with(config(text));
    let (_, body) = get_from(&app, "/").await;
    assert!(body.contains("Searches 2 engines"), "{body}");

    let (_, body) = get_from(&app, "/stats").await;
    let row = |name: &str| {
        let at = body
            .find(&format!("title=\"{name}\""))
            .unwrap_or_else(|| panic!("no row for {name}: {body}"));
        body[at..].split("</tr>").next().unwrap().to_string()
    };
    assert!(row("off").contains("disabled"), "{}", row("off"));
    assert!(row("g1").contains("not asked yet"), "{}", row("g1"));
    // Display names: the title-cased name for an engine the catalogs lack.
    assert!(
        row("news_only").contains(">News Only<"),
        "{}",
        row("news_only")
    );
}

// ---- results -----------------------------------------------------------------

/// One search, three formats, one number: the page's count, JSON's
/// `number_of_results` and RSS's `opensearch:totalResults` agree, and count
/// every fused result known, not the page's slice (docs/decisions.md).
#[tokio::test]
async fn every_format_gives_one_number_of_results() {
    // Words of their own for every record, so nothing folds.
    let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zu", "pi"];
    let mut seed = 7u64;
    let mut word = |n: usize| -> String {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                syllables[(seed >> 33) as usize % syllables.len()]
            })
            .collect()
    };
    let records: Vec<(String, String, String)> = (0..25)
        .map(|i| {
            let title = format!("{} {} {}", word(3), word(2), word(3));
            let snippet = format!(
                "{} {} {} {} {} {}",
                word(2),
                word(3),
                word(2),
                word(4),
                word(2),
                word(3)
            );
            (
                format!("https://site{i}.example/{}", word(2)),
                title,
                snippet,
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|(u, t, c)| (u.as_str(), t.as_str(), c.as_str()))
        .collect();
    let engine = LoopbackEngine::spawn(test_page(&borrowed)).await;
    let text = format!(
        "[server]\nresults_per_page = 10\n{}",
        engine_table("e", &engine.base_url())
    );
    let app = app_with(config(&text));
    let (_, json) = get_from(&app, "/search?q=topic&format=json").await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 10);
    assert_eq!(v["number_of_results"], 25, "{json}");
    let (_, rss) = get_from(&app, "/search?q=topic&format=rss").await;
    assert!(
        rss.contains("<opensearch:totalResults>25</opensearch:totalResults>"),
        "{rss}"
    );
    let (_, html) = get_from(&app, "/search?q=topic").await;
    assert!(
        html.contains("<span class=\"count\">25 results</span>"),
        "{html}"
    );
    // `limit=` caps the list, never the count.
    let (_, json) = get_from(&app, "/search?q=topic&format=json&limit=3").await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["number_of_results"], 25);
}

#[tokio::test]
async fn a_page_where_every_engine_failed_says_it_once_with_a_hint() {
    let port = closed_port();
    let mut text = String::new();
    for name in ["one", "two", "three"] {
        text.push_str(&engine_table(name, &format!("http://127.0.0.1:{port}")));
    }
    let app = app_with(config(&text));
    let (_, body) = get_from(&app, "/search?q=hello").await;
    assert!(body.contains("empty-failed"), "{body}");
    assert_eq!(
        body.matches("cannot connect").count(),
        1,
        "the same failure once: {body}"
    );
    assert!(body.contains("All 3 engines"), "{body}");
    assert!(
        !body.contains("class=\"pager\""),
        "no lone \"1\" pager: {body}"
    );
    assert!(body.contains("id=\"offline-hint\""), "{body}");
    assert!(body.contains("metasift serve --demo"), "{body}");

    // Failures that differ are each said once, naming their engines.
    let blocked = LoopbackEngine::spawn(Behavior::Status(503)).await;
    let text = format!(
        "{}{}{}",
        engine_table("one", &format!("http://127.0.0.1:{port}")),
        engine_table("two", &format!("http://127.0.0.1:{port}")),
        engine_table("busy", &blocked.base_url())
    );
    let app = app_with(config(&text));
    let (_, body) = get_from(&app, "/search?q=hello").await;
    assert_eq!(body.matches("cannot connect").count(), 1, "{body}");
    assert!(body.contains("<b>One, Two</b>"), "{body}");
    assert!(body.contains("<b>Busy</b>"), "{body}");
    assert!(
        !body.contains("id=\"offline-hint\""),
        "an engine was reached: {body}"
    );
}

#[tokio::test]
async fn a_400_page_keeps_the_query_in_the_search_box() {
    let app = app_with(config(ONE_ENGINE));
    let (resp, body) = get_from(&app, "/search?q=caf%C3%A9+%26+%22tea%22&page=abc").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(
        body.contains("value=\"café &#38; &#34;tea&#34;\""),
        "the query, escaped, in the box: {body}"
    );
}
