//! The results page renders SearXNG's result templates (#27): image tiles
//! (a grid) with their pictures through the signed `/image_proxy`, video
//! cards with thumbnail and duration and never a frame, paper cards with
//! the first authors and "et al.", venue, year, a `doi.org` link and the
//! PDF, package cards, places with an openstreetmap.org link; a direct
//! answer above the results and an infobox beside them; in English and in
//! Chinese; and hostile field values stay text. Loopback engines answer in
//! SearXNG's JSON shape (`support/cards.rs`); the page is asked through
//! `web::router` without a socket, as a browser asks it.
//!
//! Run with `cargo test --test web_cards`.

#[path = "support/cards.rs"]
mod cards;
#[path = "support/mod.rs"]
mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use cards::{Cards, DOI};
use support::router::{between, send};

/// `/search?…` as HTML in `lang` (`en` or `zh-CN`).
async fn page(app: &axum::Router, query: &str, lang: &str) -> String {
    let (resp, html) = send(
        app.clone(),
        Request::get(format!("/search?{query}"))
            .header(header::ACCEPT_LANGUAGE, lang)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK, "{query}: {html}");
    assert!(!html.contains("<script"), "{query}: a script on the page");
    assert!(!html.contains("<iframe"), "{query}: a frame on the page");
    html
}

/// The signed proxy link of `url`, as it stands in an attribute.
fn proxied(url: &str) -> String {
    metasift::web::image_proxy_link(url)
        .expect("an http link")
        .replace('&', "&#38;")
}

/// The `<li>` of the result titled `title`.
fn item<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html
        .find(&format!(">{title}</a></h2>"))
        .unwrap_or_else(|| panic!("no result titled {title:?}"));
    let start = html[..at].rfind("<li class=\"result").unwrap();
    let end = at + html[at..].find("</li>\n").unwrap();
    &html[start..end]
}

#[tokio::test]
async fn images_are_a_grid_of_proxied_pictures_with_resolution_and_source() {
    let c = Cards::start(false).await;
    let app = c.app();
    let html = page(&app, "q=rust&categories=images", "en").await;
    assert!(html.contains("<ol class=\"results image-grid\">"), "{html}");
    assert_eq!(html.matches("<li class=\"result result-image\"").count(), 6);
    let ferris = item(&html, "Ferris the crab, Rust&#39;s mascot");
    let thumb = format!("{}/thumb/0.png", c.pictures[0]);
    assert!(
        ferris.contains(&format!("<img src=\"{}\"", proxied(&thumb))),
        "the thumbnail through the proxy: {ferris}"
    );
    assert!(
        !ferris.contains(&format!("src=\"{}", c.pictures[0])),
        "never the engine's link: {ferris}"
    );
    assert!(ferris.contains(">1200 × 800</span>"), "{ferris}");
    assert!(ferris.contains(">Wikimedia Commons</span>"), "{ferris}");
    assert!(
        ferris.contains(&format!(
            "<a class=\"full\" href=\"{}/full/0.png\">Full image</a>",
            c.pictures[0]
        )),
        "{ferris}"
    );
    assert!(
        ferris.contains("href=\"https://commons.wikimedia.org/wiki/File:Rust_0.jpg\""),
        "{ferris}"
    );
    // The picture is shown through the proxy, which fetches it.
    let src = metasift::web::image_proxy_link(&thumb).unwrap();
    let (resp, _) = send(app.clone(), Request::get(src).body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()[header::CONTENT_TYPE], "image/png");

    let zh = page(&app, "q=rust&categories=images", "zh-CN").await;
    assert!(zh.contains(">查看原图</a>"), "{zh}");
    assert!(
        zh.contains("<span class=\"visually-hidden\">分辨率: </span>1200 × 800"),
        "{zh}"
    );
}

#[tokio::test]
async fn videos_are_cards_with_thumbnail_and_duration_and_no_frame() {
    let c = Cards::start(false).await;
    let app = c.app();
    let html = page(&app, "q=rust&categories=videos", "en").await;
    assert!(html.contains("<ol class=\"results\">"), "not a grid");
    let first = item(&html, "Rust in 100 seconds");
    assert!(
        first.starts_with("<li class=\"result result-video\""),
        "{first}"
    );
    let thumb = format!("{}/video/0.png", c.pictures[0]);
    assert!(
        first.contains(&format!(
            "<a class=\"pic\" href=\"https://framatube.org/w/9c9de5e8-0a1e-484a-b099-e80766180a6d\" tabindex=\"-1\" aria-hidden=\"true\"><img src=\"{}\"",
            proxied(&thumb)
        )),
        "{first}"
    );
    assert!(
        first.contains("<span class=\"duration\">1:47</span>"),
        "{first}"
    );
    assert!(first.contains("Fireship"), "{first}");
    // Seen on the thumbnail; said to screen readers as a fact.
    assert!(
        first.contains("<span class=\"fact length on-picture\"><span class=\"visually-hidden\">Length: </span>1:47</span>"),
        "{first}"
    );
    assert!(
        !html.contains("evil.example"),
        "an engine's own player is dropped"
    );
    assert!(
        !html.contains("youtube-nocookie"),
        "even an allowed player is a link, not a frame"
    );
    let long = item(&html, "Learning Rust ownership the hard way");
    assert!(
        long.contains("<span class=\"duration\">1:02:03</span>"),
        "{long}"
    );
    // The JSON keeps the allowed player for clients that embed it.
    let (_, json) = send(
        app.clone(),
        Request::get("/search?q=rust&categories=videos&format=json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let results = v["results"].as_array().unwrap();
    assert!(
        results.iter().all(|r| r["template"] == "videos.html"),
        "{json}"
    );
    assert_eq!(results[0].get("iframe_src"), None, "{json}");
    assert_eq!(
        results[1]["iframe_src"],
        "https://www.youtube-nocookie.com/embed/abc"
    );
    // Thumbnails off: the card stays, without its picture.
    let (_, off) = send(
        app.clone(),
        Request::get("/search?q=rust&categories=videos")
            .header(header::COOKIE, "metasift_prefs=thumbnails%3D0")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(off.contains("result-video"));
    assert!(!off.contains("/image_proxy"), "{off}");
}

#[tokio::test]
async fn papers_show_authors_venue_year_doi_and_pdf() {
    let c = Cards::start(false).await;
    let app = c.app();
    let html = page(&app, "q=attention&categories=science", "en").await;
    let paper = item(&html, "Attention Is All You Need");
    assert!(
        paper.starts_with("<li class=\"result result-paper\""),
        "{paper}"
    );
    assert!(
        paper.contains("<span class=\"fact authors\"><span class=\"visually-hidden\">Authors: </span>Ashish Vaswani, Noam Shazeer, Niki Parmar et al.</span>"),
        "{paper}"
    );
    assert!(!paper.contains("Jakob Uszkoreit"), "{paper}");
    assert!(
        paper.contains(">Advances in Neural Information Processing Systems, vol. 30</span>"),
        "{paper}"
    );
    assert!(paper.contains("</span>2017</span>"), "{paper}");
    assert!(
        paper.contains(&format!(
            "<a class=\"doi\" href=\"https://doi.org/{DOI}\">DOI {DOI}</a>"
        )),
        "{paper}"
    );
    assert!(
        paper.contains("<a class=\"pdf\" href=\"https://arxiv.org/pdf/1706.03762\">PDF</a>"),
        "{paper}"
    );
    // Two authors: no "et al."; a DOI given as a link is shown bare.
    let other = item(&html, "RustBelt meets relaxed memory");
    assert!(
        other.contains("Hoang-Hai Dang, Jacques-Henri Jourdan</span>"),
        "{other}"
    );
    assert!(!other.contains("et al."), "{other}");
    assert!(
        other.contains(
            "href=\"https://doi.org/10.1145/3385412.3386036\">DOI 10.1145/3385412.3386036</a>"
        ),
        "{other}"
    );
    let zh = page(&app, "q=attention&categories=science", "zh-CN").await;
    let paper = item(&zh, "Attention Is All You Need");
    assert!(
        paper.contains("Ashish Vaswani, Noam Shazeer, Niki Parmar 等</span>"),
        "{paper}"
    );
    assert!(
        paper.contains("Advances in Neural Information Processing Systems，第 30 卷"),
        "{paper}"
    );
    assert!(paper.contains("作者: </span>"), "{paper}");
}

#[tokio::test]
async fn packages_show_name_version_licence_home_and_source() {
    let c = Cards::start(false).await;
    let html = page(&c.app(), "q=serde&categories=it", "en").await;
    let serde = item(&html, "serde");
    assert!(
        serde.starts_with("<li class=\"result result-package\""),
        "{serde}"
    );
    for fact in [
        "<span class=\"fact package\"><span class=\"visually-hidden\">Package: </span>serde</span>",
        "<span class=\"fact version\"><span class=\"visually-hidden\">Version: </span>1.0.228</span>",
        "<span class=\"fact license\"><span class=\"visually-hidden\">Licence: </span>MIT OR Apache-2.0</span>",
        ">712,345,678 downloads</span>",
        ">serde, serialization, no_std</span>",
    ] {
        assert!(serde.contains(fact), "{fact}: {serde}");
    }
    assert!(
        serde.contains("<a class=\"homepage\" href=\"https://serde.rs\">Home page</a>"),
        "{serde}"
    );
    assert!(
        serde.contains(
            "<a class=\"source-code\" href=\"https://github.com/serde-rs/serde\">Source code</a>"
        ),
        "{serde}"
    );
    let zh = page(&c.app(), "q=serde&categories=it", "zh-CN").await;
    assert!(
        zh.contains(">主页</a>") && zh.contains(">源代码</a>"),
        "{zh}"
    );
}

#[tokio::test]
async fn places_show_the_address_coordinates_and_an_openstreetmap_link() {
    let c = Cards::start(false).await;
    let html = page(&c.app(), "q=eiffel&categories=map", "en").await;
    let tower = item(&html, "Tour Eiffel");
    assert!(
        tower.starts_with("<li class=\"result result-place\""),
        "{tower}"
    );
    assert!(
        tower.contains(">Avenue Gustave Eiffel 5, 75007 Paris, France</span>"),
        "{tower}"
    );
    assert!(tower.contains(">48.8582599, 2.2945006</span>"), "{tower}");
    // A building's box: the closest zoom; a city's: a city's.
    assert!(
        tower.contains("<a class=\"osm\" href=\"https://www.openstreetmap.org/?mlat=48.8582599&#38;mlon=2.2945006#map=17/48.8582599/2.2945006\">Open in OpenStreetMap</a>"),
        "{tower}"
    );
    let paris = item(&html, "Paris");
    assert!(paris.contains("#map=10/48.8534951/2.3483915\""), "{paris}");
    assert!(paris.contains(">Paris, France</span>"), "{paris}");
    let zh = page(&c.app(), "q=eiffel&categories=map", "zh-CN").await;
    assert!(zh.contains(">在 OpenStreetMap 中查看</a>"), "{zh}");
}

/// The general tab: the direct answer above the results, the infobox at
/// the top of the side column with its picture through the proxy, its
/// facts and its links.
#[tokio::test]
async fn an_entity_query_has_its_answer_above_and_its_infobox_beside() {
    let c = Cards::start(false).await;
    let html = page(&c.app(), "q=rust", "en").await;
    let main = between(&html, "<main", "</main>");
    let answers = between(main, "<section class=\"answers\"", "</section>");
    assert!(
        answers.contains("Rust is a multi-paradigm, general-purpose programming language.</span> <a class=\"answer-source\" href=\"https://en.wikipedia.org/wiki/Rust_(programming_language)\">Wiki</a>"),
        "{answers}"
    );
    assert!(
        main.find("class=\"answers\"").unwrap() < main.find("<ol class=\"results\">").unwrap(),
        "the answer comes first"
    );
    let side = between(&html, "<aside class=\"side\"", "</aside>");
    let infobox = between(side, "<section class=\"panel infobox\"", "</section>");
    assert!(
        side.find("panel infobox").unwrap() < side.find("class=\"recluster\"").unwrap(),
        "first in the side column: {side}"
    );
    assert!(
        infobox.contains(&format!(
            "<img class=\"infobox-img\" src=\"{}\"",
            proxied(&format!("{}/infobox/rust.png", c.pictures[0]))
        )),
        "{infobox}"
    );
    assert!(infobox.contains(">Rust</h2>"), "{infobox}");
    assert!(
        infobox.contains("<dt>Designed by</dt><dd>Graydon Hoare</dd>"),
        "{infobox}"
    );
    assert!(
        infobox.contains("<li><a href=\"https://www.rust-lang.org/\">Official website</a></li>"),
        "{infobox}"
    );
    assert!(infobox.contains("From Wiki"), "{infobox}");
    let zh = page(&c.app(), "q=rust", "zh-CN").await;
    assert!(zh.contains("aria-label=\"直接答案\""), "{zh}");
    assert!(zh.contains("来自 Wiki"), "{zh}");
    // The JSON has them in SearXNG's shape.
    let (_, json) = send(
        c.app(),
        Request::get("/search?q=rust&format=json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["infoboxes"][0]["infobox"], "Rust", "{json}");
    assert_eq!(v["answers"].as_array().unwrap().len(), 1, "{json}");
}

/// Hostile values in every template's fields: text stays text, a link
/// that is not http(s) is never a link, no picture but through the proxy,
/// no frame, no script.
#[tokio::test]
async fn hostile_fields_stay_text_and_never_become_links() {
    let c = Cards::start(true).await;
    for lang in ["en", "zh-CN"] {
        let html = page(&c.app(), "q=rust", lang).await;
        assert!(
            html.contains("result-package") && html.contains("result-paper"),
            "{html}"
        );
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(
            html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
            "escaped: {html}"
        );
        for attr in ["href=\"", "src=\""] {
            for value in html.split(attr).skip(1) {
                let link = value.split('"').next().unwrap();
                assert!(
                    link.starts_with("https://")
                        || link.starts_with("http://127.0.0.1")
                        || link.starts_with('/')
                        || link.starts_with('#'),
                    "{attr}{link}"
                );
            }
        }
        assert!(!html.contains("evil.example/player"), "{html}");
        // A DOI that would close the attribute is encoded in the link.
        assert!(
            html.contains("href=\"https://doi.org/10.1/%22%3E%3Cscript%3Ealert(1)%3C/script%3E\""),
            "{html}"
        );
        // The bad coordinates give no map link.
        assert!(!html.contains("openstreetmap.org/?mlat=NaN"), "{html}");
        let infobox = html
            .split("<section class=\"panel infobox\"")
            .map(|s| s.split("</section>").next().unwrap())
            .find(|s| s.contains("ok.example"))
            .expect("the hostile infobox");
        assert!(
            infobox.contains("<li><a href=\"https://ok.example/\">ok</a></li>"),
            "{infobox}"
        );
        assert!(!infobox.contains("<img"), "{infobox}");
    }
}
