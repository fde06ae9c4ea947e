//! A real browser on `/lab` of a real `metasift serve`: Debian's headless
//! Chromium loads the lab page of the built binary (on a free loopback port,
//! `[lab] data_dir` pointing at `tests/fixtures/lab`), picks the PAWS-X file,
//! narrows the sweep, clicks "Run the sweep" (a real mouse event, no script
//! submits the form), and reads the chart and the table from the rendered
//! DOM. A screenshot is saved under `target/tmp/browser/lab.png` for a person
//! to look at.
//!
//! The DevTools-pipe helpers are copied from `tests/browser.rs`.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser_lab`.

#[path = "support/chromium.rs"]
mod chromium;

use std::path::Path;

use chromium::{Browser, Server, TempDir, chromium_or_skip};
use serde_json::json;

#[test]
fn chromium_runs_a_lab_sweep() {
    let Some(chromium) = chromium_or_skip("tests/browser_lab.rs") else {
        return;
    };
    let dir = TempDir::new("lab-serve");
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lab");
    let config = dir.0.join("engines.toml");
    std::fs::write(
        &config,
        format!(
            r#"
use_defaults = false
[server]
deadline_ms = 500
[lab]
data_dir = "{fixtures}"
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
    assert!(offered.contains("pawsx_zh_dev200.tsv"), "{offered}");
    assert!(offered.contains("stsb_en_dev200.tsv"), "{offered}");

    // Choose the file and a coarser range in the form's own controls.
    browser.eval(
        "document.querySelector('#file').value = 'pawsx_zh_dev200.tsv'; \
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
    assert_eq!(state["title"], json!("lab/pawsx_zh_dev200.tsv"));

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&shots).expect("screenshot dir");
    browser.screenshot(&shots.join("lab.png"), 1280, 1500, false);
    eprintln!("screenshot: {}", shots.join("lab.png").display());
}
