//! A real browser against a real `metasift serve`: Debian's headless
//! Chromium loads the home page of the built binary (on a free loopback port,
//! its member engines loopback servers answering with saved real pages),
//! types a query, clicks Search, clicks open a "similar results" group, and
//! the test reads the rendered DOM. Screenshots (desktop light, desktop dark,
//! phone) are saved under `target/tmp/browser/` for a person to look at.
//!
//! Chromium is driven through the DevTools protocol over
//! `--remote-debugging-pipe` (JSON messages separated by NUL on fds 3 and 4,
//! wired to the child's stdin and stdout by `sh`), so no crate and no
//! download is needed. Clicks and typing are real input events
//! (`Input.dispatchMouseEvent`, `Input.insertText`), not scripted `submit()`.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser`.

#[path = "support/mod.rs"]
mod support;

#[path = "support/chromium.rs"]
mod chromium;

use chromium::{Browser, Server, TempDir, chromium_or_skip, screenshots};
use serde_json::json;
use support::{Behavior, LoopbackEngine};

const QUERY: &str = "does caffeine affect sleep";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_searches_and_opens_a_duplicate_group() {
    let Some(chromium) = chromium_or_skip("tests/browser.rs") else {
        return;
    };

    // Member engines: DuckDuckGo and Bing answering with their saved pages
    // for the same query (9 of 10 results in common).
    let ddg = LoopbackEngine::spawn(Behavior::caffeine("duckduckgo")).await;
    let bing = LoopbackEngine::spawn(Behavior::caffeine("bing")).await;
    // And a third that fails, to be reported on the page.
    let broken = LoopbackEngine::spawn(Behavior::Status(503)).await;
    let mut config = support::web_engines();
    support::point_at(&mut config, "duckduckgo", &ddg.base_url());
    support::point_at(&mut config, "bing", &bing.base_url());
    let mut mirror = support::test_engine_config("mirror", &broken.base_url());
    // `OneOrMany::None` does not serialize; the file is written as TOML.
    mirror.shortcut = metasift::config::OneOrMany::One("mi".into());
    config.engines.push(mirror);
    let dir = TempDir::new("browser-config");
    let config_path = dir.whole_config(config);
    let shots = screenshots("browser");

    // The browser blocks on pipes: keep it off the runtime's threads.
    let result = tokio::task::spawn_blocking(move || {
        let server = Server::start(&config_path);
        let mut b = Browser::launch(&chromium);

        b.navigate(&format!("{}/", server.base));
        assert_eq!(b.eval("document.title"), json!("metasift"));
        b.screenshot(&shots.join("home.png"), 1280, 800, false);

        // Type the query and click Search, like a person.
        b.click("#q");
        b.call("Input.insertText", json!({ "text": QUERY }));
        b.forget_events("Page.loadEventFired");
        b.click("form[role=search] button[type=submit]");
        b.wait_event("Page.loadEventFired");

        let location = b.eval("location.pathname + location.search");
        assert_eq!(
            location,
            json!("/search?q=does+caffeine+affect+sleep"),
            "the form submits a GET to /search"
        );
        let results = b.eval("document.querySelectorAll('ol.results > li.result').length");
        assert!(results.as_u64().unwrap() >= 8, "results shown: {results}");
        let titles = b.eval(
            "[...document.querySelectorAll('li.result h2 a')].map(a => a.textContent).join('\\n')",
        );
        assert!(
            titles.as_str().unwrap().contains("Caffeine and Sleep"),
            "{titles}"
        );

        // The failing engine is named with its reason.
        let failed = b.eval(
            "[...document.querySelectorAll('#engines li.problem')].map(li => li.textContent).join('|')",
        );
        assert!(failed.as_str().unwrap().contains("Mirror"), "{failed}");
        assert!(failed.as_str().unwrap().contains("503"), "{failed}");

        // A group of hidden duplicates, closed until clicked.
        let groups = b.eval("document.querySelectorAll('details.dups').length");
        assert!(
            groups.as_u64().unwrap() >= 1,
            "no duplicate group: {groups}"
        );
        assert_eq!(
            b.eval("document.querySelector('details.dups').open"),
            json!(false)
        );
        b.click("details.dups > summary");
        assert_eq!(
            b.eval("document.querySelector('details.dups').open"),
            json!(true)
        );
        let group = b.eval(
            "(() => { const d = document.querySelector('details.dups');
                const li = d.querySelector('ul > li');
                const r = li.getBoundingClientRect();
                return { summary: d.querySelector('summary').textContent,
                         engine: li.querySelector('.engine').textContent,
                         stage: li.querySelector('.stage').textContent,
                         visible: r.height > 0 }; })()",
        );
        assert!(
            group["summary"]
                .as_str()
                .unwrap()
                .contains("similar result"),
            "{group}"
        );
        assert!(
            ["DuckDuckGo", "Bing"].contains(&group["engine"].as_str().unwrap()),
            "{group}"
        );
        assert!(
            ["url", "title", "snippet"].contains(&group["stage"].as_str().unwrap()),
            "{group}"
        );
        assert_eq!(group["visible"], json!(true), "the opened group shows");

        b.eval("window.scrollTo(0, 0)");
        b.screenshot(&shots.join("results.png"), 1280, 1000, false);
        b.call(
            "Emulation.setEmulatedMedia",
            json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
        );
        b.screenshot(&shots.join("results-dark.png"), 1280, 1000, false);
        b.call(
            "Emulation.setEmulatedMedia",
            json!({ "features": [{ "name": "prefers-color-scheme", "value": "light" }] }),
        );
        b.eval("window.scrollTo(0, 0)");
        b.screenshot(&shots.join("results-phone.png"), 390, 844, true);

        // No script ran from engine text, and the page asked for none.
        assert_eq!(b.eval("document.scripts.length"), json!(0));
        drop(b);
        drop(server);
        shots
    })
    .await
    .expect("browser thread");
    eprintln!("screenshots in {}", result.display());
    drop((ddg, bing, broken, dir));
}

/// Issue #6: on a results page, a person changes `os2` in the re-cluster
/// form and submits it; the same cached answers are fused again (the member
/// engines are not asked a second time) and the page shows which groups
/// formed. Engines: the six of `tools/src/bin/loopback_engines.rs` answering
/// their saved `rust tutorial` pages through the shipped presets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_reclusters_with_another_os2() {
    let Some(chromium) = chromium_or_skip("tests/browser.rs") else {
        return;
    };
    let mut config = support::shipped_config();
    support::keep_only(&mut config, &support::own_pages::RUST_ENGINES);
    // The joins asserted below were read off punctuation-only feature codes
    // (as in tests/web_compare.rs); the shipped word anchors (issue #2) change them.
    config.dedup.word_anchors = 0;
    let mut engines = Vec::new();
    for name in support::own_pages::RUST_ENGINES {
        let engine = LoopbackEngine::spawn(Behavior::rust_tutorial(name)).await;
        support::point_at(&mut config, name, &engine.base_url());
        engines.push(engine);
    }
    let dir = TempDir::new("browser-recluster");
    let config_path = dir.whole_config(config);
    let shots = screenshots("browser");

    let asked = |engines: &[LoopbackEngine]| -> Vec<usize> {
        engines.iter().map(LoopbackEngine::requests).collect()
    };
    let (engines, panel) = tokio::task::spawn_blocking(move || {
        let server = Server::start(&config_path);
        let mut b = Browser::launch(&chromium);
        b.navigate(&format!("{}/search?q=rust+tutorial", server.base));
        assert_eq!(asked(&engines), [1; 6], "one fan-out");
        assert_eq!(
            b.eval("document.querySelector('#os2').value"),
            json!("0.80")
        );
        assert_eq!(
            b.eval("document.querySelector('section.compare')"),
            json!(null)
        );

        // Select the field's text with the keyboard and type over it.
        b.click("#os2");
        b.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyDown", "key": "a", "code": "KeyA", "modifiers": 2,
                    "commands": ["selectAll"] }),
        );
        b.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "key": "a", "code": "KeyA", "modifiers": 2 }),
        );
        b.call("Input.insertText", json!({ "text": "0.2" }));
        b.forget_events("Page.loadEventFired");
        b.click("form.recluster button[type=submit]");
        b.wait_event("Page.loadEventFired");

        let location = b.eval("location.pathname + location.search");
        let location = location.as_str().unwrap().to_string();
        assert!(
            location.starts_with("/search?q=rust+tutorial&"),
            "{location}"
        );
        assert!(location.contains("os2=0.2"), "{location}");
        assert_eq!(
            asked(&engines),
            [1; 6],
            "re-clustered from the cached answers"
        );

        let panel = b.eval(
            "(() => { const s = document.querySelector('section.compare');
                if (!s) return null;
                return { heading: s.querySelector('h2').textContent,
                         counts: s.querySelector('.compare-counts').textContent,
                         heads: [...s.querySelectorAll('.change-head')].map(p => p.textContent),
                         moved: [...s.querySelectorAll('li.moved .engine')].map(e => e.textContent),
                         visible: s.getBoundingClientRect().height > 0 }; })()",
        );
        assert!(!panel.is_null(), "the comparison panel is shown");
        assert_eq!(
            b.eval("document.querySelector('#os2').value"),
            json!("0.20")
        );
        b.eval("window.scrollTo(0, 0)");
        b.screenshot(&shots.join("recluster.png"), 1280, 1100, false);
        b.call(
            "Emulation.setEmulatedMedia",
            json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
        );
        b.eval("document.querySelector('section.compare').scrollIntoView()");
        b.screenshot(&shots.join("recluster-phone-dark.png"), 390, 844, true);
        drop(b);
        drop(server);
        (engines, panel)
    })
    .await
    .expect("browser thread");
    assert_eq!(panel["heading"], "Compared with the configured settings");
    assert_eq!(panel["visible"], json!(true));
    let counts = panel["counts"].as_str().unwrap();
    // The two partial copies join the groups of the pages they copy (as in
    // tests/web_compare.rs).
    assert!(counts.contains("40 results → 38"), "{counts}");
    assert!(counts.contains("2 formed"), "{counts}");
    assert_eq!(
        panel["heads"],
        json!([
            "formed 8 records became one group, from records of 2 groups",
            "formed 8 records became one group, from records of 2 groups"
        ]),
        "{panel}"
    );
    assert_eq!(panel["moved"], json!([]), "{panel}");
    drop((engines, dir));
}
