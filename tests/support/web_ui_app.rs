//! The app the `web_ui_*` tests share: one engine that nothing listens
//! for. Include it after `support` with
//!
//! ```ignore
//! #[path = "support/web_ui_app.rs"]
//! mod web_ui_app;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use crate::support::router::{app_with, config};

/// One engine that nothing listens for: every search fails fast.
pub const NOWHERE: &str = r#"
[server]
deadline_ms = 500
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={query}&p={page}&hl={lang}"
shortcut = ["nw", "nowhere"]
categories = ["general", "it"]
[engine.parse]
results = "/items"
title = "title"
url = "url"
[[engine]]
name = "news-off"
kind = "json"
url = "http://127.0.0.1:9/?q={query}"
enabled = false
categories = ["news"]
[engine.parse]
results = "/items"
title = "title"
url = "url"
"#;

pub fn app() -> axum::Router {
    app_with(config(NOWHERE))
}
