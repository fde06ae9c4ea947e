//! A real browser on `/lab` of a real `metasift serve`: Debian's headless
//! Chromium loads the lab page of the built binary (on a free loopback port,
//! `[lab] data_dir` pointing at `tests/data/lab`, pairs of our own), picks the Chinese file,
//! narrows the sweep, clicks "Run the sweep" (a real mouse event, no script
//! submits the form), and reads the chart and the table from the rendered
//! DOM; then the same page in Simplified Chinese, chosen the way a person
//! chooses it (a preferences link). Screenshots are saved under
//! `target/tmp/browser/` (`lab.png`, `lab-en.png`, `lab-zh-Hans.png`) for a
//! person to look at.
//!
//! The DevTools-pipe helpers are copied from `tests/browser.rs`.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser_lab`.

#[path = "support/chromium.rs"]
mod chromium;

use chromium::{Browser, Server, TempDir, chromium_or_skip, screenshots};
use serde_json::json;

#[test]
fn chromium_runs_a_lab_sweep() {
    let Some(chromium) = chromium_or_skip("tests/browser_lab.rs") else {
        return;
    };
    let dir = TempDir::new("lab-serve");
    let pairs = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lab");
    let config = dir.0.join("engines.toml");
    std::fs::write(
        &config,
        format!(
            r#"
use_defaults = false
[server]
deadline_ms = 500
[lab]
data_dir = "{pairs}"
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={{query}}"
[engine.parse]
results = "/items"
title = "title"
url = "url"
snippet = "snippet"
"#
        ),
    )
    .expect("write config");
    let server = Server::start(&config);
    let mut browser = Browser::launch(&chromium);
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
    );
    browser.navigate(&format!("{}/lab", server.base));
    let offered = browser
        .eval("Array.from(document.querySelectorAll('#file option')).map(o => o.value).join(' ')");
    let offered = offered.as_str().unwrap_or_default().to_string();
    assert!(offered.contains("zh_pairs.tsv"), "{offered}");
    assert!(offered.contains("en_pairs.tsv"), "{offered}");

    // Choose the file and a coarser range in the form's own controls.
    browser.eval(
        "document.querySelector('#file').value = 'zh_pairs.tsv'; \
         document.querySelector('#from').value = '0.3'; \
         document.querySelector('#step').value = '0.1'; \
         document.querySelector('input[value=none]').checked = false; true",
    );
    browser.forget_events("Page.loadEventFired");
    browser.click("#run");
    browser.wait_event("Page.loadEventFired");

    let state = browser.eval(
        "(() => ({ \
           svg: !!document.querySelector('#lab-chart svg polyline, #lab-chart svg path'), \
           rows: Array.from(document.querySelectorAll('#lab-rows tbody tr')) \
             .map(tr => Array.from(tr.cells).map(c => c.textContent)), \
           best: document.querySelectorAll('#lab-best tbody tr').length, \
           none_table: !!document.querySelector('#lab-rows-none'), \
           first_table: document.querySelector('#lab-rows table') && document.querySelector('#lab-rows table').id, \
           csv: document.querySelector('#csv') && document.querySelector('#csv').getAttribute('href'), \
           title: document.querySelector('#lab-run h2') && document.querySelector('#lab-run h2').textContent \
         }))()",
    );
    assert_eq!(state["svg"], json!(true), "no chart lines: {state}");
    let rows = state["rows"].as_array().expect("rows");
    // feature-code 7 thresholds, rabin 7, simhash up to 7; none unticked.
    assert!(rows.len() >= 14, "{state}");
    assert_eq!(
        state["none_table"],
        json!(false),
        "none was unticked: {state}"
    );
    assert_eq!(
        state["first_table"],
        json!("lab-rows-feature-code"),
        "{state}"
    );
    // The feature-code table: threshold, os1, os2, …
    assert_eq!(rows[0][0], "0.3");
    assert_eq!(state["best"], json!(3), "{state}");
    assert!(
        state["csv"]
            .as_str()
            .is_some_and(|h| h.starts_with("/lab/results.csv?id=")),
        "{state}"
    );
    assert_eq!(state["title"], json!("lab/zh_pairs.tsv"));

    let shots = screenshots("browser");
    browser.screenshot(&shots.join("lab.png"), 1280, 1500, false);
    browser.screenshot(&shots.join("lab-en.png"), 1280, 1500, false);
    eprintln!("screenshot: {}", shots.join("lab.png").display());

    // The same sweep in Simplified Chinese.
    browser.navigate(&format!(
        "{}/preferences?save=1&locale=zh-Hans",
        server.base
    ));
    browser.navigate(&format!(
        "{}/lab?file=zh_pairs.tsv&from=0.3&step=0.1\
         &method=feature-code&method=simhash&method=rabin",
        server.base
    ));
    let zh = browser.eval(
        "(() => ({ \
           lang: document.documentElement.lang, \
           h1: document.querySelector('h1').textContent, \
           run: document.querySelector('#run').textContent, \
           heads: Array.from(document.querySelectorAll('#lab-best th')).map(t => t.textContent), \
           cols: Array.from(document.querySelectorAll('#lab-best th')).map(t => t.dataset.col), \
           rows: document.querySelectorAll('#lab-rows tbody tr').length \
         }))()",
    );
    assert_eq!(zh["lang"], json!("zh-Hans"), "{zh}");
    assert_eq!(zh["h1"], json!("实验室：在标注数据上比较去重方法"), "{zh}");
    assert_eq!(zh["run"], json!("运行扫描"), "{zh}");
    assert_eq!(zh["heads"][2], json!("精确率"), "{zh}");
    assert_eq!(zh["cols"][2], json!("precision"), "{zh}");
    assert_eq!(zh["rows"], json!(rows.len()), "{zh}");
    browser.screenshot(&shots.join("lab-zh-Hans.png"), 1280, 1500, false);
    eprintln!("screenshot: {}", shots.join("lab-zh-Hans.png").display());
}
