//! The offline demo (`examples/offline.toml`, `metasift serve --demo`): every
//! engine of the built-in defaults answers from `examples/demo/`, result
//! pages the team wrote in each engine's own markup (rendered from
//! `examples/demo/pages.toml` by `offline_demo/render.rs`), so a newcomer
//! sees fused, deduplicated results with no network.
//!
//! The demo is loaded as the binary loads it: the file laid over the built-in
//! defaults, so an engine the defaults bring in without `replay` is caught.
//! `METASIFT_UPDATE_DEMO=1 cargo test --test offline_demo` writes the
//! recordings (and their embedding in `src/search/demo/files.rs`) again
//! after `pages.toml` or a preset changed.

#[path = "offline_demo/render.rs"]
mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use metasift::config::{Config, ConfigSource};
use metasift::model::{FailureKind, SearchResponse};
use metasift::search::{SearchOptions, Searcher};
use metasift_dedup::Stage;
use tower::ServiceExt as _;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `file` laid over the built-in defaults, validated as `serve` validates it.
fn load_as_the_binary_does(file: &Path) -> Config {
    let source = ConfigSource::locate(Some(file));
    metasift::config::load(&source, &metasift::engines::check).unwrap_or_else(|errors| {
        panic!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn demo() -> Config {
    load_as_the_binary_does(&crate_dir().join("examples/offline.toml"))
}

fn pages() -> render::Pages {
    let path = crate_dir().join("examples/demo/pages.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The queries README.md offers for the demo: the backticked words of its
/// offline section's "search for …" sentence.
fn readme_queries() -> Vec<String> {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    let section = readme
        .find("## No network? The offline demo")
        .expect("the README's offline demo section");
    let start = section + readme[section..].find("search for").expect("its queries");
    let end = start + readme[start..].find("Other queries").expect("their end");
    let queries: Vec<String> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert!(queries.len() >= 10, "{queries:?}");
    queries
}

async fn search(searcher: &Searcher, text: &str) -> SearchResponse {
    searcher
        .search(&searcher.parse_query(text, 1), &SearchOptions::default())
        .await
        .unwrap()
}

/// What the fused page of a query shows: engines that answered, and the
/// duplicate groups with a member folded at each stage.
#[derive(Debug, Default)]
struct Shown {
    engines: usize,
    groups: usize,
    by_stage: BTreeMap<&'static str, usize>,
}

fn shown(resp: &SearchResponse) -> Shown {
    let mut s = Shown {
        engines: resp
            .engines
            .iter()
            .filter(|r| r.failure.is_none() && r.results > 0)
            .count(),
        ..Shown::default()
    };
    for r in resp.results.iter().filter(|r| !r.duplicates.is_empty()) {
        s.groups += 1;
        let stages: BTreeSet<&'static str> = r
            .duplicates
            .iter()
            .map(|d| match d.stage {
                Stage::Url => "url",
                Stage::Title => "title",
                Stage::Snippet => "snippet",
            })
            .collect();
        for stage in stages {
            *s.by_stage.entry(stage).or_default() += 1;
        }
    }
    s
}

/// The recordings in `examples/demo/` are exactly `pages.toml` rendered in
/// each preset's markup, and `src/search/demo/files.rs` embeds each of them.
#[test]
fn the_recordings_are_pages_toml_rendered() {
    let config = metasift::config::Config::load_layered(&ConfigSource::built_in()).unwrap();
    let recordings = render::recordings(&pages(), &config);
    let dir = crate_dir().join("examples/demo");
    let mut want: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    for rec in &recordings {
        let rel = metasift::search::recording::relative_path(&rec.engine, &rec.query);
        let mut bytes = serde_json::to_vec_pretty(rec).unwrap();
        bytes.push(b'\n');
        assert!(
            want.insert(rel, bytes).is_none(),
            "two answers to one query"
        );
    }
    let files_rs = embedding(want.keys());
    let update = std::env::var_os("METASIFT_UPDATE_DEMO").is_some();
    let have = recorded_files(&dir);
    if update {
        for rel in have.keys() {
            std::fs::remove_file(dir.join(rel)).unwrap();
        }
        for (rel, bytes) in &want {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        std::fs::write(crate_dir().join("src/search/demo/files.rs"), &files_rs).unwrap();
        return;
    }
    let stale: Vec<_> = have.keys().filter(|k| !want.contains_key(*k)).collect();
    let missing: Vec<_> = want.keys().filter(|k| !have.contains_key(*k)).collect();
    let changed: Vec<_> = want
        .iter()
        .filter(|(k, v)| have.get(*k).is_some_and(|h| h != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        stale.is_empty() && missing.is_empty() && changed.is_empty(),
        "examples/demo/ is not pages.toml rendered (METASIFT_UPDATE_DEMO=1 cargo test --test \
         offline_demo writes it): stale {stale:?}, missing {missing:?}, changed {changed:?}"
    );
    assert_eq!(
        std::fs::read_to_string(crate_dir().join("src/search/demo/files.rs")).unwrap(),
        files_rs,
        "src/search/demo/files.rs does not embed examples/demo/ (METASIFT_UPDATE_DEMO=1)"
    );
    // What the binary embeds is what is in the folder.
    let embedded = metasift::search::demo::files();
    assert_eq!(embedded.len(), want.len());
    for (rel, bytes) in embedded {
        assert_eq!(Some(&bytes.to_vec()), want.get(Path::new(rel)), "{rel}");
    }
    assert_eq!(
        metasift::search::demo::CONFIG,
        std::fs::read_to_string(crate_dir().join("examples/offline.toml")).unwrap()
    );
}

/// The recordings under `dir` (engine folders of JSON files), by relative path.
fn recorded_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for engine in std::fs::read_dir(dir).unwrap().flatten() {
        if !engine.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(engine.path()).unwrap().flatten() {
            let path = file.path();
            if path.extension().is_some_and(|x| x == "json") {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// `src/search/demo/files.rs`: one `include_bytes!` per recording.
fn embedding<'a>(files: impl Iterator<Item = &'a PathBuf>) -> String {
    let mut out = String::from(
        "//! The recordings of `examples/demo/`, embedded for `metasift serve --demo`.\n\
         //! Written by `METASIFT_UPDATE_DEMO=1 cargo test --test offline_demo`; that\n\
         //! test fails when this list and the folder differ.\n\n\
         #[rustfmt::skip]\n\
         pub(super) const FILES: &[(&str, &[u8])] = &[\n",
    );
    for rel in files {
        let rel = rel.to_str().unwrap().replace('\\', "/");
        out.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?})),\n",
            format!("../../../examples/demo/{rel}")
        ));
    }
    out.push_str("];\n");
    out
}

/// Nothing of the demo asks the network: every engine the defaults and the
/// file make (disabled ones too: a `!bang` or the autocomplete names them)
/// replays from the demo folder, and the autocomplete engine is one of them.
#[test]
fn every_engine_of_the_demo_replays() {
    let config = demo();
    let builtin = metasift::config::Config::load_layered(&ConfigSource::built_in()).unwrap();
    assert_eq!(config.engines.len(), builtin.engines.len());
    let folder = crate_dir().join("examples/demo");
    let without: Vec<&str> = config
        .engines
        .iter()
        .filter(|e| e.replay.as_deref() != Some(folder.as_path()))
        .map(|e| e.name.as_str())
        .collect();
    assert!(
        without.is_empty(),
        "examples/offline.toml leaves these engines on the network: {without:?}"
    );
    let auto = config.server.autocomplete.as_deref();
    assert!(
        auto.is_none_or(|name| config.engines.iter().any(|e| e.name == name)),
        "autocomplete engine {auto:?}"
    );
    // The presets are the shipped ones: the file adds `replay`, and turns
    // on only shipped-disabled engines that pages.toml writes answers for.
    let written: BTreeSet<String> = pages().query.into_iter().flat_map(|q| q.engines).collect();
    for (demo, shipped) in config.engines.iter().zip(&builtin.engines) {
        let mut demo = demo.clone();
        demo.replay = None;
        if demo.enabled && !shipped.enabled {
            assert!(
                written.contains(&demo.name),
                "examples/offline.toml enables {}, which pages.toml never answers with",
                demo.name
            );
            demo.enabled = false;
        }
        assert_eq!(
            serde_json::to_value(&demo).unwrap(),
            serde_json::to_value(shipped).unwrap(),
            "{}",
            shipped.name
        );
    }
}

/// Each query the README offers is answered by at least four engines with at
/// least one duplicate group, and shows groups of each stage; no engine
/// fails (a network attempt would).
#[tokio::test]
async fn each_readme_query_is_answered_by_four_engines_with_every_stage() {
    let searcher = Searcher::from_config(demo()).unwrap();
    let mut report = Vec::new();
    let mut problems = Vec::new();
    for text in readme_queries() {
        let resp = search(&searcher, &text).await;
        let failed: Vec<String> = resp
            .engines
            .iter()
            .filter(|r| r.failure.is_some_and(|k| k != FailureKind::NotRecorded))
            .map(|r| format!("{}: {:?}", r.engine, r.reason))
            .collect();
        let s = shown(&resp);
        let answered: Vec<&str> = resp
            .engines
            .iter()
            .filter(|r| r.failure.is_none() && r.results > 0)
            .map(|r| r.engine.as_str())
            .collect();
        report.push(format!(
            "{text}: {} engines, {} groups, {:?} [{}]",
            s.engines,
            s.groups,
            s.by_stage,
            answered.join(" ")
        ));
        if !failed.is_empty() {
            problems.push(format!("{text}: failed {failed:?}"));
        }
        if s.engines < 4 || s.groups == 0 {
            problems.push(format!("{text}: {s:?}"));
        }
        for stage in ["url", "title", "snippet"] {
            if !s.by_stage.contains_key(stage) {
                problems.push(format!("{text}: no group folded by {stage}"));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Issue #31: every Chinese demo query is answered by Baidu, Sogou, 360 and
/// Bing CN, and their copies of one page fold: by URL across two or more of
/// them (Baidu's and 360's redirects through their real targets), and by
/// title and by snippet with one of them in the group.
#[tokio::test]
async fn chinese_queries_are_answered_and_folded_by_the_chinese_engines() {
    const CHINESE: [&str; 4] = ["baidu", "sogou", "so360", "bing_cn"];
    let searcher = Searcher::from_config(demo()).unwrap();
    let queries: Vec<String> = pages()
        .query
        .into_iter()
        .map(|q| q.text)
        .filter(|t| !t.is_ascii())
        .collect();
    assert!(queries.len() >= 2, "{queries:?}");
    let mut problems = Vec::new();
    for text in &queries {
        let resp = search(&searcher, text).await;
        for name in CHINESE {
            let answered = resp
                .engines
                .iter()
                .any(|r| r.engine == name && r.failure.is_none() && r.results > 0);
            if !answered {
                problems.push(format!("{text}: {name} gives no results"));
            }
        }
        // The Chinese engines of each URL group (its kept result and the
        // members folded by URL), and the stages that fold a Chinese
        // engine's result with another's.
        let mut url_groups = Vec::new();
        let mut stages = BTreeSet::new();
        for r in &resp.results {
            let chinese = |e: &str| CHINESE.contains(&e);
            let by_url: BTreeSet<&str> = std::iter::once(r.engine.as_str())
                .chain(
                    r.duplicates
                        .iter()
                        .filter(|d| d.stage == Stage::Url)
                        .map(|d| d.engine.as_str()),
                )
                .filter(|e| chinese(e))
                .collect();
            if by_url.len() >= 2 {
                url_groups.push(by_url);
            }
            for d in &r.duplicates {
                if chinese(&d.engine) || chinese(&r.engine) {
                    stages.insert(format!("{:?}", d.stage));
                }
            }
        }
        if !url_groups.iter().any(|m| m.contains("baidu")) {
            problems.push(format!(
                "{text}: no URL group folds Baidu with another Chinese engine: {url_groups:?}"
            ));
        }
        for stage in ["Url", "Title", "Snippet"] {
            if !stages.contains(stage) {
                problems.push(format!(
                    "{text}: no Chinese engine's result folded by {stage}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The README's queries are the demo's, and the demo holds no other.
#[test]
fn the_readme_offers_exactly_the_demo_queries() {
    let demo: BTreeSet<String> = pages().query.into_iter().map(|q| q.text).collect();
    let readme: BTreeSet<String> = readme_queries().into_iter().collect();
    assert_eq!(readme, demo);
}

/// The News tab: Google News answers every demo query from its feed.
#[tokio::test]
async fn the_news_tab_answers_each_demo_query() {
    let searcher = Searcher::from_config(demo()).unwrap();
    for text in readme_queries() {
        let mut q = searcher.parse_query(&text, 1);
        q.categories = vec!["news".into()];
        let resp = searcher
            .search(&q, &SearchOptions::default())
            .await
            .unwrap();
        assert!(
            resp.engines
                .iter()
                .any(|r| r.engine == "google_news" && r.failure.is_none() && r.results >= 3),
            "{text}: {:?}",
            resp.engines
        );
        assert!(
            resp.engines.iter().all(|r| r.failure.is_none()),
            "{text}: {:?}",
            resp.engines
        );
    }
}

async fn get(app: &axum::Router, uri: &str, lang: &str) -> (StatusCode, String) {
    let req = Request::get(uri)
        .header("accept-language", lang)
        .body(Body::empty())
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// `/autocomplete` answers the demo's prefixes from its recording, and any
/// other text with an empty list — never by asking the network.
#[tokio::test]
async fn autocomplete_answers_from_the_demo() {
    let config = demo();
    let name = config
        .server
        .autocomplete
        .clone()
        .expect("an autocomplete engine");
    let searcher = Searcher::from_config(config.clone()).unwrap();
    for (text, answered) in [("dedu", true), ("元", true), ("zzz unrecorded", false)] {
        let mut q = searcher.parse_query(text, 1);
        q.engines = vec![name.clone()];
        let resp = searcher
            .search(&q, &SearchOptions::default())
            .await
            .unwrap();
        let kinds: Vec<_> = resp.engines.iter().map(|r| r.failure).collect();
        let want = if answered {
            None
        } else {
            Some(FailureKind::NotRecorded)
        };
        assert_eq!(kinds, [want], "{text}");
    }
    let app = metasift::web::router(metasift::web::AppState::serving(config, None, None).unwrap());
    let (status, body) = get(&app, "/autocomplete?q=dedu", "en").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("deduplication"), "{body}");
    let (_, body) = get(&app, "/autocomplete?q=zzz", "en").await;
    assert_eq!(body, r#"["zzz",[]]"#);
}

/// A query the demo does not hold gets one quiet line naming the queries it
/// does (each a link), in English and Chinese — no failure, no "try again".
#[tokio::test]
async fn an_unrecorded_query_names_the_demo_queries() {
    let app = metasift::web::router(metasift::web::AppState::serving(demo(), None, None).unwrap());
    for (lang, intro) in [
        ("en", "which hold only these queries"),
        ("zh-CN", "录制中只有这些查询"),
    ] {
        let (status, body) = get(&app, "/search?q=nobody+recorded+this", lang).await;
        assert_eq!(status, StatusCode::OK);
        let line = body
            .lines()
            .find(|l| l.contains(intro))
            .unwrap_or_else(|| panic!("{lang}: no line naming the demo queries:\n{body}"));
        for q in readme_queries() {
            assert!(
                line.contains(&format!(">{q}</a>")),
                "{lang}: {q} not in {line}"
            );
        }
        assert!(!body.contains("empty-failed"), "{lang}: {body}");
        assert!(!body.contains("class=\"problem\""), "{lang}: {body}");
        // The demo records first pages: the next one is past the end, not
        // a query it lacks.
        let (_, body) = get(&app, "/search?q=rust&page=2", lang).await;
        assert!(body.contains("empty-past_end"), "{lang}: {body}");
    }
}

/// A query the recordings do not hold is not an engine failure: after more
/// such queries than the suspension threshold, the demo queries are still
/// answered and no engine is suspended.
#[tokio::test]
async fn queries_without_recordings_do_not_suspend_the_demo_engines() {
    let config = demo();
    let threshold = config.health.failures_before_suspend;
    let searcher = Searcher::from_config(config).unwrap();
    for n in 0..threshold + 2 {
        let text = format!("a query nobody recorded {n}");
        let resp = search(&searcher, &text).await;
        assert!(resp.results.is_empty(), "{text}: {:?}", resp.results);
        assert!(
            resp.engines
                .iter()
                .all(|r| r.failure == Some(FailureKind::NotRecorded)),
            "{text}: {:?}",
            resp.engines
        );
    }
    let resp = search(&searcher, "rust").await;
    assert!(
        resp.engines
            .iter()
            .all(|r| r.failure != Some(FailureKind::Suspended)),
        "{:?}",
        resp.engines
    );
    assert!(shown(&resp).engines >= 4, "{:?}", resp.engines);
}

/// A query typed in capitals or with a search language chosen finds the
/// demo's lower-case, language-less recording.
#[tokio::test]
async fn case_and_language_do_not_lose_the_demo() {
    let searcher = Searcher::from_config(demo()).unwrap();
    let mut q = searcher.parse_query("Rust Async", 1);
    q.lang = Some("en".into());
    let resp = searcher
        .search(&q, &SearchOptions::default())
        .await
        .unwrap();
    assert!(shown(&resp).engines >= 4, "{:?}", resp.engines);
}

/// The re-clustering examples docs/lab.md gives on the demo.
#[tokio::test]
async fn reclustering_the_demo_splits_what_docs_lab_md_says() {
    let app = metasift::web::router(metasift::web::AppState::serving(demo(), None, None).unwrap());
    for (uri, before, after, split) in [
        ("/search?q=rust&method=none&format=json", 7, 9, 2),
        (
            "/search?q=open+source&os1=0.9&os2=0.95&format=json",
            5,
            6,
            1,
        ),
    ] {
        let (status, body) = get(&app, uri, "en").await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        let c = &json["comparison"];
        assert_eq!(
            (
                c["results_before"].as_u64(),
                c["results_after"].as_u64(),
                c["counts"]["split"].as_u64()
            ),
            (Some(before), Some(after), Some(split)),
            "{uri}: {c}"
        );
    }
}

/// The category tabs answer from the demo's API presets, with SearXNG's
/// `template` and `category`, and no engine fails (one without a recording
/// of the query is not asked); the arXiv paper and OpenAlex's copy of it
/// under its arXiv DOI are one result; `rust` gets its box.
#[tokio::test]
async fn the_category_tabs_answer_from_the_demo() {
    let app = metasift::web::router(metasift::web::AppState::serving(demo(), None, None).unwrap());
    for (text, category, template, engines) in [
        (
            "deduplication",
            "science",
            "paper.html",
            &[
                "arxiv",
                "crossref",
                "semantic_scholar",
                "pubmed",
                "openalex",
            ][..],
        ),
        (
            "metasearch",
            "science",
            "paper.html",
            &["arxiv", "crossref"][..],
        ),
        (
            "rust",
            "it",
            "packages.html",
            &["github", "crates", "stackexchange", "hackernews"][..],
        ),
        ("rust async", "it", "packages.html", &["github", "npm"][..]),
        (
            "open source",
            "images",
            "images.html",
            &["brave_images", "wikimedia_commons", "openverse"][..],
        ),
        (
            "open source",
            "videos",
            "videos.html",
            &["brave_videos", "peertube"][..],
        ),
        ("rust", "map", "map.html", &["nominatim"][..]),
        (
            "rust",
            "news",
            "default.html",
            &["google_news", "brave_news", "hackernews"][..],
        ),
    ] {
        let uri = format!(
            "/search?q={}&categories={category}&format=json",
            text.replace(' ', "+")
        );
        let (status, body) = get(&app, &uri, "en").await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let results = v["results"].as_array().unwrap();
        assert!(results.len() >= 2, "{uri}: {results:?}");
        assert!(
            results.iter().any(|r| r["template"] == template),
            "{uri}: no {template}"
        );
        assert!(results.iter().all(|r| r["category"] == category), "{uri}");
        let answered: BTreeSet<&str> = results
            .iter()
            .flat_map(|r| r["engines"].as_array().unwrap())
            .filter_map(|e| e.as_str())
            .collect();
        for e in engines {
            assert!(answered.contains(e), "{uri}: {e} not among {answered:?}");
        }
        let unresponsive = v["unresponsive_engines"].as_array().unwrap();
        assert!(
            unresponsive
                .iter()
                .all(|u| u.to_string().contains("not recorded")
                    || u.to_string().to_lowercase().contains("record")),
            "{uri}: {unresponsive:?}"
        );
        if text == "deduplication" {
            assert!(
                results.iter().any(|r| {
                    let e = r["engines"].to_string();
                    e.contains("\"arxiv\"") && e.contains("\"openalex\"")
                }),
                "{uri}: the arXiv abstract and its arXiv DOI are not one result"
            );
        }
    }
    let (_, body) = get(&app, "/search?q=rust&format=json", "en").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    // English Wikipedia's summary, the Chinese article's and Wikidata's
    // facts are one box: Wikidata links both articles. An English query
    // reads the English summary; the Chinese article is one of its links.
    let boxes = v["infoboxes"].as_array().unwrap();
    assert_eq!(boxes.len(), 1, "{boxes:?}");
    let engines = boxes[0]["engines"].to_string();
    for e in [
        "wikipedia_summary",
        "wikipedia_summary_zh",
        "wikidata",
        "duckduckgo_instant",
    ] {
        assert!(engines.contains(e), "{e} not in {engines}");
    }
    assert!(
        boxes[0]["content"].as_str().unwrap().is_ascii(),
        "{boxes:?}"
    );
    assert!(
        boxes[0]["urls"].to_string().contains("zh.wikipedia.org"),
        "{boxes:?}"
    );
    // Brave's keyed presets answer from the recordings: on, nothing missing.
    let (_, body) = get(&app, "/config", "en").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let brave = v["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "brave_images")
        .unwrap();
    assert_eq!(brave["enabled"], true, "{brave}");
    assert!(brave.get("unavailable").is_none(), "{brave}");
}

/// The demo asks the network for nothing, images either: the image proxy
/// of a server that only replays refuses without fetching.
#[tokio::test]
async fn the_demo_fetches_no_images() {
    let app = metasift::web::router(metasift::web::AppState::serving(demo(), None, None).unwrap());
    let (_, page) = get(&app, "/search?q=open+source&categories=images", "en").await;
    let link = page
        .split("src=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .find(|s| s.starts_with("/image_proxy?"))
        .expect("the images tab links its pictures through the proxy")
        .replace("&amp;", "&")
        .replace("&#38;", "&");
    let (status, body) = get(&app, &link, "en").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("recordings"), "{body}");
}
