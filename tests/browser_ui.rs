//! What a searcher sees, in headless Chromium against a real `metasift
//! serve`: the streamed results page before and after a slow engine
//! answers, and the results and preferences pages in English and Simplified
//! Chinese, light and dark, desktop and phone. Screenshots are saved under
//! `target/tmp/browser-ui/` for a person to look at. The language and theme
//! are set the way a person sets them: by opening a preferences link.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser_ui`.

#[path = "support/mod.rs"]
mod support;

#[path = "support/chromium.rs"]
mod chromium;

use std::path::Path;
use std::time::{Duration, Instant};

use chromium::{Browser, Server, TempDir, chromium_or_skip};
use serde_json::json;
use support::{Behavior, LoopbackEngine};

const QUERY: &str = "does+caffeine+affect+sleep";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_streams_and_speaks_chinese_and_english() {
    let Some(chromium) = chromium_or_skip("tests/browser_ui.rs") else {
        return;
    };
    // DuckDuckGo answers after 2 s; Bing at once.
    let ddg = LoopbackEngine::spawn(Behavior::Delayed(
        Duration::from_secs(2),
        Box::new(Behavior::fixture(
            "duckduckgo/celina2026_does-caffeine-affect-sleep_html.html",
        )),
    ))
    .await;
    let bing = LoopbackEngine::spawn(Behavior::fixture(
        "bing/celina2026_does-caffeine-affect-sleep.html",
    ))
    .await;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/web_engines.toml");
    let mut config = metasift::config::Config::load(Path::new(path)).unwrap();
    support::point_at(&mut config, "duckduckgo", &ddg.base_url());
    support::point_at(&mut config, "bing", &bing.base_url());
    let dir = TempDir::new("browser-ui-config");
    let config_path = dir.0.join("engines.toml");
    // The whole configuration, not laid over the built-in engines.
    config.use_defaults = Some(false);
    std::fs::write(&config_path, toml::to_string(&config).unwrap()).unwrap();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-ui");
    std::fs::create_dir_all(&shots).unwrap();

    let result = tokio::task::spawn_blocking(move || {
        let server = Server::start(&config_path);
        let mut b = Browser::launch(&chromium);
        let search = format!("{}/search?q={QUERY}", server.base);

        // Before the slow engine answers: the head is on screen, with the
        // engines being asked, and no results yet.
        b.forget_events("Page.loadEventFired");
        let started = Instant::now();
        b.call("Page.navigate", json!({ "url": search }));
        let mut asking = json!(null);
        while started.elapsed() < Duration::from_millis(1500) {
            asking = b.eval(
                "(() => { const a = document.querySelector('.asking');
                    return a ? a.textContent : null; })()",
            );
            if !asking.is_null() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let shown_after = started.elapsed();
        assert!(
            asking.as_str().is_some_and(|t| t.contains("duckduckgo")),
            "{asking}"
        );
        assert!(shown_after < Duration::from_millis(1500), "{shown_after:?}");
        // Bing's line comes as soon as it has answered.
        let mut lines = json!(0);
        while started.elapsed() < Duration::from_millis(1800) {
            lines = b.eval("document.querySelectorAll('.answered-list li').length");
            if lines != json!(0) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(lines, json!(1), "bing answered, duckduckgo not yet");
        assert_eq!(
            b.eval("document.querySelectorAll('ol.results').length"),
            json!(0)
        );
        b.screenshot(&shots.join("streamed-before.png"), 1280, 800, false);

        // After: the fused results of both engines; the list hides itself.
        b.wait_event("Page.loadEventFired");
        assert!(started.elapsed() >= Duration::from_secs(2));
        let found = b.eval(
            "[...document.querySelectorAll('li.result .engine')].map(e => e.textContent).join(' ')",
        );
        assert!(found.as_str().unwrap().contains("duckduckgo #"), "{found}");
        assert!(found.as_str().unwrap().contains("bing #"), "{found}");
        assert_eq!(
            b.eval("getComputedStyle(document.querySelector('.asking')).display"),
            json!("none"),
            "the list of engines being asked hides once the results are in"
        );
        assert_eq!(b.eval("document.scripts.length"), json!(0));
        b.screenshot(&shots.join("streamed-after.png"), 1280, 800, false);

        // Each language and theme, set by opening a preferences link; the
        // search is cached now, so each page comes whole.
        for (locale, theme) in [
            ("en", "light"),
            ("en", "dark"),
            ("zh-Hans", "light"),
            ("zh-Hans", "dark"),
        ] {
            b.navigate(&format!(
                "{}/preferences?save=1&locale={locale}&theme={theme}",
                server.base
            ));
            assert_eq!(b.eval("document.documentElement.lang"), json!(locale));
            b.screenshot(
                &shots.join(format!("preferences-{locale}-{theme}.png")),
                1280,
                900,
                false,
            );
            b.navigate(&search);
            assert_eq!(b.eval("document.documentElement.lang"), json!(locale));
            let background = b.eval("getComputedStyle(document.body).backgroundColor");
            let dark = background == json!("rgb(17, 20, 24)");
            assert_eq!(dark, theme == "dark", "{locale} {theme}: {background}");
            let search_button =
                b.eval("document.querySelector('form[role=search] button').textContent");
            assert_eq!(
                search_button,
                json!(if locale == "en" { "Search" } else { "搜索" })
            );
            if locale == "zh-Hans" {
                // English snippets on a Chinese page carry their own lang.
                assert_eq!(
                    b.eval("document.querySelector('li.result p.snippet').lang"),
                    json!("und-Latn")
                );
            }
            b.screenshot(
                &shots.join(format!("results-{locale}-{theme}-desktop.png")),
                1280,
                1000,
                false,
            );
            b.eval("window.scrollTo(0, 0)");
            b.screenshot(
                &shots.join(format!("results-{locale}-{theme}-phone.png")),
                390,
                844,
                true,
            );
            b.call("Emulation.clearDeviceMetricsOverride", json!({}));
        }
        drop(b);
        drop(server);
        shots
    })
    .await
    .expect("browser thread");
    eprintln!("screenshots in {}", result.display());
    drop((ddg, bing, dir));
}
