//! The API presets with no real saved answer in the team's data folder,
//! on answers we wrote in each API's documented shape (`tests/data/api/`):
//! their template fields, their infoboxes and answers, the two-call
//! Wikidata preset and the merged box over loopback engines, the iframe
//! allow-list, and the "off without its key" rule. (The presets with real
//! answers are checked on them in `tests/real_data/apis.rs`.)

mod support;

use std::path::Path;

use metasift::config::Config;
use metasift::engines::{self, Engine, Parsed};
use metasift::model::{Query, Template};
use serde_json::Value;

use support::{Behavior, LoopbackEngine, router};

fn answer(file: &str) -> String {
    let path = support::crate_dir().join("tests/data/api").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn preset(name: &str) -> Box<dyn Engine> {
    let config = support::shipped_config();
    let ec = config
        .engines
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no preset {name:?}"));
    engines::build(ec).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse(name: &str, file: &str) -> Parsed {
    preset(name)
        .parse(&answer(file))
        .unwrap_or_else(|e| panic!("{name} on {file}: {e}"))
}

fn extra(p: &Parsed, i: usize) -> &metasift::model::Extra {
    p.hits[i].extra.as_deref().expect("template fields")
}

#[test]
fn science_and_it_presets_read_their_documented_shapes() {
    let p = parse("openalex", "openalex.json");
    assert_eq!(p.hits.len(), 2);
    assert_eq!(p.estimate, Some(2));
    assert_eq!(p.hits[0].url, "https://doi.org/10.5555/metasift.0001");
    assert_eq!(
        p.hits[1].url, "https://openalex.org/W1000000002",
        "no DOI: the id"
    );
    let e = extra(&p, 0);
    assert_eq!(e.template, Template::Paper);
    assert_eq!(e.authors, ["Ada Example", "Lin Shiyan"]);
    assert_eq!(e.journal.as_deref(), Some("Journal of Search Examples"));
    assert_eq!(
        e.pdf_url.as_deref(),
        Some("https://repo.example.org/fold.pdf")
    );
    assert_eq!(e.volume.as_deref(), Some("12"));
    assert_eq!(p.hits[0].published.as_deref(), Some("2024-03-05T00:00:00Z"));

    let p = parse("stackexchange", "stackexchange.json");
    assert_eq!(p.hits.len(), 2);
    assert_eq!(
        p.hits[0].title,
        "How do I fold duplicate links in Rust & keep the first?"
    );
    assert_eq!(extra(&p, 0).template, Template::Default);
    assert_eq!(extra(&p, 0).tags, ["rust", "async-await"]);
    assert_eq!(p.hits[0].published.as_deref(), Some("2023-11-14T22:13:20Z"));

    let p = parse("crates", "crates.json");
    assert_eq!(p.hits[0].url, "https://crates.io/crates/metasift-example");
    let e = extra(&p, 0);
    assert_eq!(e.template, Template::Packages);
    assert_eq!(
        e.version.as_deref(),
        Some("0.2.1"),
        "the stable version first"
    );
    assert_eq!(e.popularity.as_deref(), Some("4321"));
    assert_eq!(
        e.source_code_url.as_deref(),
        Some("https://git.example.org/metasift/example")
    );
    assert_eq!(
        extra(&p, 1).version.as_deref(),
        Some("1.0.0"),
        "else the newest"
    );

    let p = parse("npm", "npm.json");
    assert_eq!(
        p.hits[0].url,
        "https://www.npmjs.com/package/%40metasift%2Ffold"
    );
    assert_eq!(
        p.hits[1].url, "https://www.npmjs.com/package/sleep-note",
        "no links: the package page from the name"
    );
    let e = extra(&p, 0);
    assert_eq!(e.package_name.as_deref(), Some("@metasift/fold"));
    assert_eq!(e.license.as_deref(), Some("MIT"));
    assert_eq!(e.tags, ["search", "dedup"]);
    assert_eq!(e.maintainer.as_deref(), Some("ada"));
}

#[test]
fn image_video_and_news_presets_read_their_documented_shapes() {
    let p = parse("wikimedia_commons", "wikimedia_commons.json");
    assert_eq!(p.hits.len(), 2);
    let e = extra(&p, 0);
    assert_eq!(e.template, Template::Images);
    assert_eq!(e.resolution.as_deref(), Some("1200 x 800"));
    assert_eq!(e.author.as_deref(), Some("Example Artist"), "HTML to text");
    assert!(
        e.img_src
            .as_deref()
            .unwrap()
            .ends_with("/Rust_gear_example.png")
    );
    assert!(e.thumbnail_src.as_deref().unwrap().contains("/320px-"));

    let p = parse("openverse", "openverse.json");
    let e = extra(&p, 0);
    assert_eq!(e.resolution.as_deref(), Some("4000 x 3000"));
    assert_eq!(e.source.as_deref(), Some("examplesource"));
    assert_eq!(e.author.as_deref(), Some("Ada Example"));
    let e = extra(&p, 1);
    assert_eq!(e.resolution, None, "no size: no resolution, not \" x \"");
    assert_eq!(
        e.source.as_deref(),
        Some("exampleprovider"),
        "the alternative"
    );

    let p = parse("peertube", "peertube.json");
    assert_eq!(p.hits.len(), 3);
    let e = extra(&p, 0);
    assert_eq!(e.template, Template::Videos);
    assert_eq!(e.length.as_deref(), Some("45:12"));
    assert_eq!(e.author.as_deref(), Some("Example Talks"));
    assert_eq!(extra(&p, 2).length.as_deref(), Some("1:02:03"));
    assert_eq!(extra(&p, 1).author.as_deref(), Some("lin"));

    let p = parse("brave_news", "brave_news.json");
    assert_eq!(p.hits.len(), 2);
    assert_eq!(p.hits[0].published.as_deref(), Some("2026-11-26T09:00:00Z"));
    assert!(p.hits[0].thumbnail.is_some());
}

#[test]
fn infobox_presets_give_boxes_and_answers_not_results() {
    let p = parse("wikipedia_summary", "wikipedia_summary.json");
    assert!(p.hits.is_empty());
    assert_eq!(p.infoboxes.len(), 1);
    let b = &p.infoboxes[0];
    assert_eq!(b.infobox, "Rust (programming language)");
    assert_eq!(
        b.id,
        "https://en.wikipedia.org/wiki/Rust_(programming_language)"
    );
    assert!(b.content.starts_with("Rust is a general-purpose"));
    assert!(b.img_src.is_some());
    assert_eq!(
        b.attributes[0].value,
        "General-purpose programming language"
    );
    let missing = parse("wikipedia_summary", "wikipedia_summary_missing.json");
    assert!(missing.infoboxes.is_empty(), "a missing page is no box");
    let zh = parse("wikipedia_summary_zh", "wikipedia_summary_zh.json");
    assert_eq!(zh.infoboxes[0].infobox, "元搜索引擎");
    assert_eq!(zh.infoboxes[0].urls[0].title, "维基百科");

    let wd = preset("wikidata");
    let q = Query {
        text: "rust".into(),
        page: 1,
        ..Query::default()
    };
    let next = wd
        .follow_up(&answer("wikidata_search.json"), &q)
        .unwrap()
        .expect("a follow-up");
    assert!(next.url.contains("action=wbgetentities"), "{}", next.url);
    assert!(next.url.contains("ids=Q575650&"), "{}", next.url);
    assert!(
        wd.follow_up(&answer("wikidata_search_none.json"), &q)
            .unwrap()
            .is_none()
    );
    let p = wd.parse(&answer("wikidata_entities.json")).unwrap();
    let b = &p.infoboxes[0];
    assert_eq!(b.infobox, "Rust");
    assert!(
        b.urls
            .iter()
            .any(|u| u.title == "Official website" && u.url == "https://www.rust-lang.org/")
    );
    assert_eq!(
        b.img_src.as_deref(),
        Some(
            "https://commons.wikimedia.org/wiki/Special:FilePath/Rust_programming_language_black_logo.svg?width=320"
        )
    );
    assert!(
        b.attributes
            .iter()
            .any(|a| a.label == "中文名" && a.value == "Rust语言")
    );

    let p = parse("duckduckgo_instant", "duckduckgo_instant.json");
    assert_eq!(p.answers.len(), 1);
    assert_eq!(p.answers[0].answer, "Metasearch: one query, many engines");
    assert_eq!(
        p.answers[0].url.as_deref(),
        Some("https://en.wikipedia.org/wiki/Metasearch_engine")
    );
    assert_eq!(
        p.infoboxes[0].img_src.as_deref(),
        Some("https://duckduckgo.com/i/example.png")
    );
}

fn serving(servers: &[(&str, &LoopbackEngine)]) -> Config {
    let mut config = support::shipped_config();
    let names: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    for (name, server) in servers {
        support::point_at(&mut config, name, &server.base_url());
    }
    config
}

async fn json_search(config: Config, uri: &str) -> Value {
    let app = router::app_with(config);
    let (resp, body) = router::get_from(&app, uri).await;
    assert_eq!(resp.status(), 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

fn own(file: &str) -> Behavior {
    Behavior::page(answer(file), "application/json; charset=utf-8")
}

/// Wikipedia's and Wikidata's boxes about one entity are one infobox in
/// SearXNG's JSON, Wikidata's after its two calls.
#[tokio::test]
async fn an_entity_query_gets_one_merged_infobox() {
    let wp = LoopbackEngine::spawn(own("wikipedia_summary.json")).await;
    let search = LoopbackEngine::spawn(own("wikidata_search.json")).await;
    let entities = LoopbackEngine::spawn(own("wikidata_entities.json")).await;
    let mut config = serving(&[("wikipedia_summary", &wp), ("wikidata", &search)]);
    support::point_follow_at(&mut config, "wikidata", &entities.base_url());
    let v = json_search(config, "/search?q=rust&format=json&categories=general").await;
    assert_eq!(v["unresponsive_engines"], serde_json::json!([]));
    let boxes = v["infoboxes"].as_array().unwrap();
    assert_eq!(boxes.len(), 1, "{boxes:#?}");
    let b = &boxes[0];
    assert_eq!(b["infobox"], "Rust (programming language)");
    assert_eq!(
        b["engines"],
        serde_json::json!(["wikipedia_summary", "wikidata"])
    );
    let urls: Vec<&str> = b["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    assert!(urls.contains(&"https://www.rust-lang.org/"), "{urls:?}");
    assert!(
        urls.contains(&"https://zh.wikipedia.org/wiki/Rust"),
        "{urls:?}"
    );
    assert_eq!(entities.requests(), 1);
    assert!(
        entities.last_uri().unwrap().contains("ids=Q575650"),
        "the follow-up asks for the id the search gave"
    );
    assert_eq!(v["results"], serde_json::json!([]), "boxes, not results");
}

/// A video engine's players: a known player host is kept, any other host
/// (another PeerTube, a hostile page) is dropped before any output.
#[tokio::test]
async fn only_allowed_players_reach_iframe_src() {
    let pt = LoopbackEngine::spawn(own("peertube.json")).await;
    let v = json_search(
        serving(&[("peertube", &pt)]),
        "/search?q=rust&format=json&categories=videos",
    )
    .await;
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let iframes: Vec<&Value> = results.iter().map(|r| &r["iframe_src"]).collect();
    assert_eq!(
        iframes,
        [
            &Value::Null,
            &Value::String("https://www.youtube-nocookie.com/embed/abcdefghijk".into()),
            &Value::Null
        ]
    );
    for r in results {
        assert_eq!(r["template"], "videos.html");
        assert_eq!(r["category"], "videos");
    }
}

/// An engine that says it needs a key is off without it (no error), and
/// on, with the key in its header, when the variable is set.
#[test]
fn a_keyed_preset_is_off_without_its_key() {
    let text = "[[engine]]\nname = \"brave_images\"\nenabled = true\n";
    let none = engines::check_config_layered(text, Path::new("t.toml"), &|_| None)
        .expect("no key is no error");
    let e = none
        .engines
        .iter()
        .find(|e| e.name == "brave_images")
        .unwrap();
    assert!(!e.enabled);
    assert!(e.unset_env.as_deref().unwrap().contains("BRAVE_API_KEY"));
    let set = engines::check_config_layered(text, Path::new("t.toml"), &|v| {
        (v == "BRAVE_API_KEY").then(|| "k3y".to_string())
    })
    .unwrap();
    let e = set
        .engines
        .iter()
        .find(|e| e.name == "brave_images")
        .unwrap();
    assert!(e.enabled);
    assert_eq!(e.headers["X-Subscription-Token"], "k3y");
    // Without `needs_env`, an enabled engine whose key is missing is
    // still refused, as before.
    let strict = "[[engine]]\nname = \"brave_api\"\nenabled = true\n";
    assert!(engines::check_config_layered(strict, Path::new("t.toml"), &|_| None).is_err());
}

/// The shipped file offers every category, and `/config` says why a keyed
/// preset is off without its key (and names no reason for the others).
#[tokio::test]
async fn config_says_why_a_keyed_preset_is_off() {
    let config = engines::check_config_layered("", Path::new("t.toml"), &|_| None).unwrap();
    let app = router::app_with(config);
    let (_, body) = router::get_from(&app, "/config").await;
    let v: Value = serde_json::from_str(&body).unwrap();
    let categories: Vec<&str> = v["categories"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for c in [
        "general", "images", "videos", "news", "science", "it", "map",
    ] {
        assert!(categories.contains(&c), "{c} not offered: {categories:?}");
    }
    let engine = |name: &str| {
        v["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in /config"))
            .clone()
    };
    for name in ["brave_images", "brave_videos", "brave_news"] {
        let e = engine(name);
        assert_eq!(e["enabled"], false, "{name}");
        let why = e["unavailable"].as_str().unwrap_or_default();
        assert!(why.contains("BRAVE_API_KEY"), "{name}: {e}");
    }
    for name in ["arxiv", "github", "nominatim", "wikidata"] {
        let e = engine(name);
        assert_eq!(e["enabled"], true, "{name}");
        assert!(e.get("unavailable").is_none(), "{name}: {e}");
    }
}

/// `[server] contact` fills `mailto=` and the User-Agent; unset, the
/// parameter is left out.
#[test]
fn the_contact_fills_mailto_or_is_left_out() {
    let with = "[server]\ncontact = \"admin@example.org\"\n";
    let c = engines::check_config_layered(with, Path::new("t.toml"), &|_| None).unwrap();
    let crossref = c.engines.iter().find(|e| e.name == "crossref").unwrap();
    assert!(
        crossref.url.ends_with("&mailto=admin%40example.org"),
        "{}",
        crossref.url
    );
    assert!(
        c.server
            .user_agent_header()
            .ends_with("(+admin@example.org)")
    );
    let c = engines::check_config_layered("", Path::new("t.toml"), &|_| None).unwrap();
    let crossref = c.engines.iter().find(|e| e.name == "crossref").unwrap();
    assert!(!crossref.url.contains("mailto"), "{}", crossref.url);
    let pubmed = c.engines.iter().find(|e| e.name == "pubmed").unwrap();
    assert!(!pubmed.follow.as_ref().unwrap().url.contains("email"));
}

/// A two-call engine's follow-up is recorded beside its first answer (as
/// `<engine>.follow`) and replayed from there: the same box with the
/// servers gone.
#[tokio::test]
async fn a_follow_up_is_recorded_and_replayed() {
    use metasift::search::recording::Recording;
    use metasift::search::{SearchOptions, Searcher};
    let dir = support::fresh_dir("follow");
    let search = LoopbackEngine::spawn(own("wikidata_search.json")).await;
    let entities = LoopbackEngine::spawn(own("wikidata_entities.json")).await;
    let mut config = serving(&[("wikidata", &search)]);
    support::point_follow_at(&mut config, "wikidata", &entities.base_url());
    let searcher = Searcher::from_config(config).unwrap();
    let query = searcher.parse_query("rust", 1);
    let live = searcher
        .clone()
        .with_recording(Some(dir.clone()), None)
        .search(&query, &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(live.infoboxes.len(), 1, "{:?}", live.engines);
    let first = Recording::lookup(&dir, "wikidata", &query).unwrap();
    assert!(first.request.url.contains("wbsearchentities"));
    let second = Recording::lookup(&dir, "wikidata.follow", &query).unwrap();
    assert!(second.request.url.contains("wbgetentities"));
    drop((search, entities));
    let replayed = searcher
        .with_recording(None, Some(dir.clone()))
        .search(&query, &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(replayed.infoboxes, live.infoboxes);
    let _ = std::fs::remove_dir_all(&dir);
}
