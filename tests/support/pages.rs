//! The six saved `javascript tutorial` pages of 2026 that the load script,
//! the real-data list cases and the web, fan-out and parse benches serve
//! from loopback engines when the team's data folder is there: (shipped
//! preset in `engines.toml`, page under the data folder's `serp/`).
//! Shared so every one of them measures the same ~1.9 MB of real HTML.

pub const JS_PAGES: [(&str, &str); 6] = [
    ("bing", "bing/wsmcp2026_javascript-tutorial_http.html"),
    ("brave", "brave/wsmcp2026_javascript-tutorial.html"),
    ("mojeek", "mojeek/wsmcp2026_javascript-tutorial.html"),
    (
        "startpage",
        "startpage/wsmcp2026_javascript-tutorial_http.html",
    ),
    ("yahoo", "yahoo/wsmcp2026_javascript-tutorial.html"),
    ("ecosia", "ecosia/wsmcp2026_javascript-tutorial.html"),
];
