//! The result templates in headless Chromium (#27): a page per category —
//! general (with its answer and infobox), images, videos, science, it, map
//! — in English and Simplified Chinese, on a desktop and a phone, each
//! saved as a screenshot under `target/tmp/browser-ui/`
//! (`cards-{category}-{locale}-{desktop|phone}.png`, and the home page's
//! category choice, `home-categories-{locale}-{desktop|phone}.png`) for a
//! person to look at (and three in the dark theme, `cards-*-en-dark-desktop.png`). The engines are loopback servers answering in SearXNG's JSON shape
//! (`support/cards.rs`), the app is served in this process on a loopback
//! port; the language is set the way a person sets it, by opening a
//! preferences link. In the browser: every picture on screen has loaded
//! through `/image_proxy` under the page's CSP, no script and no frame.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser_cards`.

#[path = "support/mod.rs"]
mod support;

#[path = "support/chromium.rs"]
mod chromium;

#[path = "support/cards.rs"]
mod cards;

use std::time::{Duration, Instant};

use chromium::{Browser, chromium_or_skip, screenshots};
use serde_json::json;

/// Each page: category, query, a CSS selector its page must show.
const PAGES: [(&str, &str, &str); 6] = [
    ("general", "rust", ".infobox .infobox-img"),
    ("images", "rust", ".image-grid .result-image .pic img"),
    ("videos", "rust", ".result-video .duration"),
    ("science", "attention", ".result-paper a.doi"),
    ("it", "serde", ".result-package a.source-code"),
    ("map", "eiffel", ".result-place a.osm"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_template_in_both_languages_on_desktop_and_phone() {
    let Some(chromium) = chromium_or_skip("tests/browser_cards.rs") else {
        return;
    };
    let c = cards::Cards::start(false).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = c.app();
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    let shots = screenshots("browser-ui");

    let saved = tokio::task::spawn_blocking(move || {
        let mut b = Browser::launch(&chromium);
        let mut saved = Vec::new();
        for locale in ["en", "zh-Hans"] {
            b.navigate(&format!("{base}/preferences?save=1&locale={locale}&favicons=0"));
            for (device, width, height, mobile) in
                [("desktop", 1280, 1000, false), ("phone", 390, 844, true)]
            {
                b.call(
                    "Emulation.setDeviceMetricsOverride",
                    json!({ "width": width, "height": height,
                            "deviceScaleFactor": 1, "mobile": mobile }),
                );
                // The home page: the categories under the box.
                b.navigate(&format!("{base}/"));
                assert_eq!(
                    b.eval("document.querySelectorAll('.category-choice input[type=radio]').length"),
                    json!(6)
                );
                let file = shots.join(format!("home-categories-{locale}-{device}.png"));
                b.screenshot(&file, width, 600, mobile);
                b.call(
                    "Emulation.setDeviceMetricsOverride",
                    json!({ "width": width, "height": height,
                            "deviceScaleFactor": 1, "mobile": mobile }),
                );
                for (category, query, shown) in PAGES {
                    b.navigate(&format!("{base}/search?q={query}&categories={category}"));
                    assert_eq!(b.eval("document.documentElement.lang"), json!(locale));
                    assert_eq!(
                        b.eval(&format!("document.querySelectorAll({shown:?}).length > 0")),
                        json!(true),
                        "{category} {locale} {device}: {shown}"
                    );
                    assert_eq!(b.eval("document.scripts.length"), json!(0));
                    assert_eq!(b.eval("document.querySelectorAll('iframe').length"), json!(0));
                    // Every picture on screen comes through the proxy, and loads.
                    let srcs = b.eval("[...document.images].map(i => i.getAttribute('src'))");
                    assert!(
                        srcs.as_array().unwrap().iter().all(|s| s
                            .as_str()
                            .unwrap()
                            .starts_with("/image_proxy?url=")),
                        "{category}: {srcs}"
                    );
                    let on_screen = "[...document.images].filter(i => { \
                        const r = i.getBoundingClientRect(); \
                        return r.width > 0 && r.top < innerHeight && r.bottom > 0; })";
                    let started = Instant::now();
                    let mut loaded = json!(false);
                    while started.elapsed() < Duration::from_secs(10) {
                        loaded = b.eval(&format!(
                            "{on_screen}.every(i => i.complete && i.naturalWidth > 0)"
                        ));
                        if loaded == json!(true) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    assert_eq!(loaded, json!(true), "{category} {locale} {device}: pictures");
                    if category == "images" {
                        let n = b.eval(&format!("{on_screen}.length"));
                        assert!(n.as_u64().unwrap() >= 4, "{device}: {n} pictures on screen");
                    }
                    if category == "general" && mobile {
                        // On a phone the infobox comes before the results.
                        assert_eq!(
                            b.eval(
                                "document.querySelector('.infobox').getBoundingClientRect().top \
                                 < document.querySelector('ol.results').getBoundingClientRect().top"
                            ),
                            json!(true)
                        );
                    }
                    if category == "general" && !mobile {
                        // On a desktop it is beside them.
                        assert_eq!(
                            b.eval(
                                "document.querySelector('.infobox').getBoundingClientRect().left \
                                 > document.querySelector('ol.results').getBoundingClientRect().right"
                            ),
                            json!(true)
                        );
                    }
                    let file = shots.join(format!("cards-{category}-{locale}-{device}.png"));
                    b.screenshot(&file, width, height, mobile);
                    saved.push(file);
                }
            }
            b.call("Emulation.clearDeviceMetricsOverride", json!({}));
        }
        // The dark theme: the cards read on it too.
        b.navigate(&format!("{base}/preferences?save=1&locale=en&theme=dark&favicons=0"));
        for (category, query, _) in [PAGES[0], PAGES[2], PAGES[3]] {
            b.navigate(&format!("{base}/search?q={query}&categories={category}"));
            let file = shots.join(format!("cards-{category}-en-dark-desktop.png"));
            b.screenshot(&file, 1280, 1000, false);
        }
        saved
    })
    .await
    .expect("browser thread");
    eprintln!("{} screenshots in {}", saved.len(), shots_dir().display());
    assert_eq!(saved.len(), 24, "and four of the home page");
    server.abort();
    drop(c);
}

fn shots_dir() -> std::path::PathBuf {
    screenshots("browser-ui")
}
