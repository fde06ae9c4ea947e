//! The shipped API presets on the results page (#27): their answers (ours,
//! in each API's documented shape, `tests/data/api/`) served by loopback
//! engines, parsed by the presets as shipped, rendered by the page — an
//! OpenAlex paper card with its `doi.org` link, a crates.io package card,
//! Openverse pictures in a grid through the proxy, a PeerTube video card,
//! Wikipedia's infobox — and their categories: the tabs and `/config` of
//! an instance that turns them on, `!science`, `!images` and `!arxiv`.
//!
//! Run with `cargo test --test web_cards_presets`.

#[path = "support/mod.rs"]
mod support;

use metasift::config::Config;
use support::router::{app_with, between, get_from};
use support::{Behavior, LoopbackEngine};

fn own(file: &str) -> Behavior {
    let path = support::crate_dir().join("tests/data/api").join(file);
    let body = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Behavior::page(body, "application/json; charset=utf-8")
}

/// The shipped presets `servers` names, each pointed at its server and on.
fn serving(servers: &[(&str, &LoopbackEngine)]) -> Config {
    let mut config = support::shipped_config();
    let names: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    for (name, server) in servers {
        support::point_at(&mut config, name, &server.base_url());
    }
    // The providers' budgets (arXiv: one request every three seconds) are
    // not what these tests count: each asks its loopback server freely.
    for e in &mut config.engines {
        e.max_per_minute = None;
        e.burst = None;
    }
    config
}

async fn html(app: &axum::Router, uri: &str) -> String {
    let (resp, body) = get_from(app, uri).await;
    assert_eq!(resp.status(), 200, "{uri}: {body}");
    assert!(
        !body.contains("<script") && !body.contains("<iframe"),
        "{body}"
    );
    body
}

fn proxied(url: &str) -> String {
    metasift::web::image_proxy_link(url)
        .unwrap()
        .replace('&', "&#38;")
}

#[tokio::test]
async fn the_presets_answers_render_as_their_templates() {
    let openalex = LoopbackEngine::spawn(own("openalex.json")).await;
    let crates = LoopbackEngine::spawn(own("crates.json")).await;
    let openverse = LoopbackEngine::spawn(own("openverse.json")).await;
    let peertube = LoopbackEngine::spawn(own("peertube.json")).await;
    let wikipedia = LoopbackEngine::spawn(own("wikipedia_summary.json")).await;
    let app = app_with(serving(&[
        ("openalex", &openalex),
        ("crates", &crates),
        ("openverse", &openverse),
        ("peertube", &peertube),
        ("wikipedia_summary", &wikipedia),
    ]));

    let page = html(&app, "/search?q=fold&categories=science").await;
    let card = between(&page, "<li class=\"result result-paper\"", "</li>");
    assert!(card.contains(">Ada Example, Lin Shiyan</span>"), "{card}");
    assert!(
        card.contains(">Journal of Search Examples, vol. 12</span>"),
        "{card}"
    );
    assert!(card.contains("</span>2024</span>"), "{card}");
    assert!(
        card.contains("<a class=\"doi\" href=\"https://doi.org/10.5555/metasift.0001\">DOI 10.5555/metasift.0001</a>"),
        "{card}"
    );
    assert!(
        card.contains("<a class=\"pdf\" href=\"https://repo.example.org/fold.pdf\">PDF</a>"),
        "{card}"
    );

    let page = html(&app, "/search?q=fold&categories=it").await;
    let card = between(&page, "<li class=\"result result-package\"", "</li>");
    assert!(card.contains(">metasift-example</span>"), "{card}");
    assert!(
        card.contains(">0.3.0-beta.1</span>") || card.contains(">0.2.1</span>"),
        "{card}"
    );
    assert!(
        card.contains("<a class=\"homepage\" href=\"https://metasift.example.org/\">"),
        "{card}"
    );
    assert!(
        card.contains(
            "<a class=\"source-code\" href=\"https://git.example.org/metasift/example\">"
        ),
        "{card}"
    );

    let page = html(&app, "/search?q=gears&categories=images").await;
    assert!(page.contains("<ol class=\"results image-grid\">"), "{page}");
    let tile = between(&page, "<li class=\"result result-image\"", "</li>");
    let thumb = "https://api.openverse.org/v1/images/00000000-0000-4000-8000-000000000001/thumb/";
    assert!(
        tile.contains(&format!("<img src=\"{}\"", proxied(thumb))),
        "{tile}"
    );
    assert!(tile.contains(">4000 × 3000</span>"), "{tile}");
    assert!(
        tile.contains("<a class=\"full\" href=\"https://photos.example.org/gears/full.jpg\">"),
        "{tile}"
    );

    let page = html(&app, "/search?q=rust&categories=videos").await;
    let card = between(&page, "<li class=\"result result-video\"", "</li>");
    assert!(
        card.contains(&proxied(
            "https://videos.example.org/lazy-static/thumbnails/abc.jpg"
        )),
        "{card}"
    );
    assert!(
        card.contains("<span class=\"duration\">45:12</span>"),
        "{card}"
    );
    assert!(
        !page.contains("evil.example") && !page.contains("/embed/"),
        "{page}"
    );

    let page = html(&app, "/search?q=rust").await;
    let infobox = between(&page, "<section class=\"panel infobox\"", "</section>");
    assert!(
        infobox.contains("Rust (programming language)</h2>"),
        "{infobox}"
    );
    assert!(
        infobox.contains("<img class=\"infobox-img\" src=\"/image_proxy?url="),
        "{infobox}"
    );
}

/// With the presets on, their categories are offered (in SearXNG's order)
/// and named in the query: `!science` asks the science presets, `!images`
/// the image ones, `!arxiv` arXiv alone.
#[tokio::test]
async fn the_presets_categories_are_tabs_config_and_bangs() {
    let feed = || {
        Behavior::page(
            "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"></feed>",
            "application/atom+xml",
        )
    };
    let wikipedia = LoopbackEngine::spawn(own("wikipedia_summary.json")).await;
    let arxiv = LoopbackEngine::spawn(feed()).await;
    let openalex = LoopbackEngine::spawn(own("openalex.json")).await;
    let openverse = LoopbackEngine::spawn(own("openverse.json")).await;
    let crates = LoopbackEngine::spawn(own("crates.json")).await;
    let app = app_with(serving(&[
        ("wikipedia_summary", &wikipedia),
        ("arxiv", &arxiv),
        ("openalex", &openalex),
        ("openverse", &openverse),
        ("crates", &crates),
    ]));
    let (_, body) = get_from(&app, "/config").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["categories"],
        serde_json::json!(["general", "images", "it", "science"])
    );

    let asked =
        |servers: &[&LoopbackEngine]| servers.iter().map(|s| s.requests()).collect::<Vec<_>>();
    let all = [&wikipedia, &arxiv, &openalex, &openverse, &crates];
    let page = html(&app, "/search?q=%21arxiv+attention").await;
    assert_eq!(asked(&all), [0, 1, 0, 0, 0], "!arxiv asks arXiv alone");
    let tabs = between(&page, "<nav class=\"tabs\"", "</nav>");
    assert!(
        tabs.contains(">Science</a>") && tabs.contains(">Images</a>"),
        "{tabs}"
    );
    html(&app, "/search?q=%21science+fold").await;
    assert_eq!(
        asked(&all),
        [0, 2, 1, 0, 0],
        "!science asks arXiv and OpenAlex"
    );
    let page = html(&app, "/search?q=gears+%21images").await;
    assert_eq!(asked(&all), [0, 2, 1, 1, 0], "!images asks Openverse");
    assert!(page.contains("<span class=\"tab current\" aria-current=\"page\">Images</span>"));
    let (_, json) = get_from(&app, "/search?q=gears&format=json&categories=images").await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["results"][0]["template"], "images.html", "{json}");
    assert_eq!(v["results"][0]["category"], "images", "{json}");
}
