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

use chromium::{Browser, Server, TempDir, chromium_or_skip, screenshots};
use serde_json::json;
use support::{Behavior, LoopbackEngine};

const QUERY: &str = "does+caffeine+affect+sleep";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_streams_and_speaks_chinese_and_english() {
    let Some(chromium) = chromium_or_skip("tests/browser_ui.rs") else {
        return;
    };
    // DuckDuckGo answers after 4 s, Bing at once: room for a loaded CI
    // machine to paint the page's head before DuckDuckGo's answer.
    let ddg = LoopbackEngine::spawn(Behavior::Delayed(
        Duration::from_secs(4),
        Box::new(Behavior::caffeine("duckduckgo")),
    ))
    .await;
    let bing = LoopbackEngine::spawn(Behavior::caffeine("bing")).await;
    let mut config = support::web_engines();
    support::point_at(&mut config, "duckduckgo", &ddg.base_url());
    support::point_at(&mut config, "bing", &bing.base_url());
    // DuckDuckGo's 4 s within its own timeout and the search's deadline.
    config.server.deadline_ms = 9000;
    for engine in &mut config.engines {
        engine.timeout_ms = 8000;
    }
    let dir = TempDir::new("browser-ui-config");
    let config_path = dir.whole_config(config);
    let shots = screenshots("browser-ui");

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
        while started.elapsed() < Duration::from_millis(3000) {
            asking = b.eval(
                "(() => { const a = document.querySelector('.asking');
                    return a ? a.textContent : null; })()",
            );
            // The section's head and its list of engines can reach the
            // parser in two pieces: wait for the list, not just the head.
            if asking.as_str().is_some_and(|t| t.contains("DuckDuckGo")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let shown_after = started.elapsed();
        assert!(
            asking.as_str().is_some_and(|t| t.contains("DuckDuckGo")),
            "{asking}"
        );
        assert!(shown_after < Duration::from_millis(3000), "{shown_after:?}");
        // Bing's line comes as soon as it has answered.
        let mut lines = json!(0);
        while started.elapsed() < Duration::from_millis(3500) {
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
        assert!(started.elapsed() >= Duration::from_secs(4));
        let found = b.eval(
            "[...document.querySelectorAll('li.result .engine')].map(e => e.textContent).join(' ')",
        );
        assert!(found.as_str().unwrap().contains("DuckDuckGo #"), "{found}");
        assert!(found.as_str().unwrap().contains("Bing #"), "{found}");
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

/// A 1×1 PNG (a red pixel), written out byte by byte; the page scales it
/// to its 80×80 box.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Thumbnails in a real browser: an engine's results carry images on
/// another (loopback) host; the page shows them through `/image_proxy`
/// under the unchanged CSP (`img-src 'self'`), in English and Chinese, and
/// not at all once the preference turns them off; an error page in the
/// same two languages. Screenshots: `results-thumbnails-{en,zh-Hans}.png`,
/// `error-400-{en,zh-Hans}.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thumbnails_show_through_the_image_proxy() {
    let Some(chromium) = chromium_or_skip("tests/browser_ui.rs") else {
        return;
    };
    let picture = || Behavior::Page {
        body: PNG.into(),
        content_type: "image/png".into(),
    };
    let images = [
        LoopbackEngine::spawn(picture()).await,
        LoopbackEngine::spawn(picture()).await,
    ];
    let results: Vec<serde_json::Value> = [
        (
            "https://www.rust-lang.org/",
            "Rust Programming Language",
            "A language empowering everyone to build reliable and efficient software.",
            Some(0),
        ),
        (
            "https://doc.rust-lang.org/book/",
            "The Rust Programming Language (the book)",
            "An introductory book about Rust, from installation to advanced features.",
            Some(1),
        ),
        (
            "https://zh.wikipedia.org/wiki/Rust",
            "Rust — 维基百科，自由的百科全书",
            "Rust 是由 Mozilla 主导开发的通用、编译型编程语言。",
            None,
        ),
    ]
    .iter()
    .map(|(url, title, content, image)| {
        let mut r = json!({ "url": url, "title": title, "content": content });
        if let Some(i) = image {
            r["thumbnail"] = json!(format!("{}/thumb.png", images[*i].base_url()));
        }
        r
    })
    .collect();
    let engine = LoopbackEngine::spawn(Behavior::page(
        json!({ "results": results }).to_string(),
        "application/json",
    ))
    .await;
    let mut config =
        metasift::config::Config::parse("use_defaults = false\n", Path::new("t.toml")).unwrap();
    config.engines = vec![support::test_engine_config("searx", &engine.base_url())];
    let dir = TempDir::new("browser-ui-thumbs");
    let config_path = dir.whole_config(config);
    let shots = screenshots("browser-ui");

    tokio::task::spawn_blocking(move || {
        let server = Server::start(&config_path);
        let mut b = Browser::launch(&chromium);
        let search = format!("{}/search?q=rust", server.base);
        for locale in ["en", "zh-Hans"] {
            b.navigate(&format!("{}/preferences?save=1&locale={locale}", server.base));
            b.navigate(&search);
            // Wait for the pictures (lazy images need not hold the load event).
            let started = Instant::now();
            let mut loaded = json!(null);
            while started.elapsed() < Duration::from_secs(5) {
                loaded = b.eval(
                    "[...document.querySelectorAll('img.thumb')].map(i => i.complete && i.naturalWidth > 0)",
                );
                if loaded == json!([true, true]) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            assert_eq!(loaded, json!([true, true]), "{locale}");
            let srcs = b.eval("[...document.querySelectorAll('img.thumb')].map(i => i.getAttribute('src'))");
            assert!(
                srcs.as_array().unwrap().iter().all(|s| s.as_str().unwrap().starts_with("/image_proxy?url=")),
                "{srcs}"
            );
            assert_eq!(b.eval("document.documentElement.lang"), json!(locale));
            b.screenshot(
                &shots.join(format!("results-thumbnails-{locale}.png")),
                1280,
                700,
                false,
            );
            // An error page speaks the same language.
            b.navigate(&format!("{}/search?q=rust&page=99", server.base));
            assert_eq!(b.eval("document.documentElement.lang"), json!(locale));
            let h1 = b.eval("document.querySelector('h1').textContent");
            assert_eq!(
                h1,
                json!(if locale == "en" { "400 Bad Request" } else { "400 请求有误" })
            );
            b.screenshot(&shots.join(format!("error-400-{locale}.png")), 1280, 400, false);
        }
        b.navigate(&format!("{}/preferences?save=1&thumbnails=0", server.base));
        b.navigate(&search);
        assert_eq!(b.eval("document.querySelectorAll('img.thumb').length"), json!(0));
        drop(b);
        drop(server);
    })
    .await
    .expect("browser thread");
    drop((images, engine, dir));
}

/// Site icons in a real browser (issue #29): each result's site icon shows
/// beside its host, fetched by the server through `/favicon` under the
/// unchanged CSP; a result on an address the image proxy refuses
/// (127.0.0.2, where no engine lives) gets no icon and its server is never
/// asked; the preference turns icons off. Screenshot:
/// `results-favicons-en.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn site_icons_show_beside_results_through_the_server() {
    let Some(chromium) = chromium_or_skip("tests/browser_ui.rs") else {
        return;
    };
    let picture = || Behavior::Page {
        body: PNG.into(),
        content_type: "image/png".into(),
    };
    let sites = [
        LoopbackEngine::spawn(picture()).await,
        LoopbackEngine::spawn(picture()).await,
    ];
    // A site on another loopback address: the proxy refuses it.
    let hidden_hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hidden_hits.clone();
    let hidden_app = axum::Router::new().fallback(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move { ([(axum::http::header::CONTENT_TYPE, "image/png")], PNG) }
    });
    let hidden = match tokio::net::TcpListener::bind("127.0.0.2:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("127.0.0.2 cannot be bound here ({e}): test skipped");
            return;
        }
    };
    let hidden_base = format!("http://{}", hidden.local_addr().unwrap());
    let hidden_task = tokio::spawn(async move {
        let _ = axum::serve(hidden, hidden_app).await;
    });
    let results: Vec<serde_json::Value> = [
        (
            format!("{}/learn", sites[0].base_url()),
            "Learn Rust",
            "Get started with Rust: the book, the examples and the exercises.",
        ),
        (
            format!(
                "{}/book/ch04-01-what-is-ownership.html",
                sites[1].base_url()
            ),
            "What is ownership? — The Rust Programming Language",
            "Ownership is a set of rules that govern how a Rust program manages memory.",
        ),
        (
            format!("{hidden_base}/intranet"),
            "An intranet page",
            "A result on an address the server must not reach.",
        ),
    ]
    .iter()
    .map(|(url, title, content)| json!({ "url": url, "title": title, "content": content }))
    .collect();
    let engine = LoopbackEngine::spawn(Behavior::page(
        json!({ "results": results }).to_string(),
        "application/json",
    ))
    .await;
    let mut config =
        metasift::config::Config::parse("use_defaults = false\n", Path::new("t.toml")).unwrap();
    config.engines = vec![support::test_engine_config("searx", &engine.base_url())];
    let dir = TempDir::new("browser-ui-favicons");
    let config_path = dir.whole_config(config);
    let shots = screenshots("browser-ui");

    let hits = hidden_hits.clone();
    tokio::task::spawn_blocking(move || {
        let server = Server::start(&config_path);
        let mut b = Browser::launch(&chromium);
        let search = format!("{}/search?q=rust", server.base);
        b.navigate(&search);
        let started = Instant::now();
        let mut state = json!(null);
        while started.elapsed() < Duration::from_secs(5) {
            state = b.eval(
                "[...document.querySelectorAll('img.favicon')].map(i => i.complete ? i.naturalWidth > 0 : null)",
            );
            if state == json!([true, true, false]) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(state, json!([true, true, false]), "two icons shown, the refused one not");
        let srcs = b.eval("[...document.querySelectorAll('img.favicon')].map(i => i.getAttribute('src'))");
        assert!(
            srcs.as_array().unwrap().iter().all(|s| s.as_str().unwrap().starts_with("/favicon?site=")),
            "{srcs}"
        );
        b.screenshot(&shots.join("results-favicons-en.png"), 1280, 600, false);
        b.navigate(&format!("{}/preferences?save=1&favicons=0", server.base));
        b.navigate(&search);
        assert_eq!(b.eval("document.querySelectorAll('img.favicon').length"), json!(0));
        drop(b);
        drop(server);
    })
    .await
    .expect("browser thread");
    assert_eq!(
        hits.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the refused site was never asked"
    );
    hidden_task.abort();
    drop((sites, engine, dir));
}
