//! An instance with one loopback engine per category, for the tests of
//! categories (`web_categories.rs`): `web` (general), `scholar` (science,
//! `!sch`), `pics` (images), `code` (it), and `atlas` (map) switched off, so
//! `map` is a category no enabled engine serves. Each engine answers every
//! query with one result of its own, so a page says which engines were
//! asked. Include it after `support` with
//!
//! ```ignore
//! #[path = "support/categories.rs"]
//! mod categories;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::path::Path;

use metasift::config::Config;

use crate::support::{LoopbackEngine, test_page};

/// Each engine: name, categories, shortcut, enabled, its one result's URL.
pub const ENGINES: [(&str, &str, &str, bool, &str); 5] = [
    ("web", "general", "", true, "https://www.rust-lang.org/"),
    (
        "scholar",
        "science",
        "sch",
        true,
        "https://arxiv.org/abs/1706.03762",
    ),
    (
        "pics",
        "images",
        "",
        true,
        "https://commons.wikimedia.org/wiki/File:Rust.png",
    ),
    ("code", "it", "", true, "https://github.com/rust-lang/rust"),
    (
        "atlas",
        "map",
        "",
        false,
        "https://www.openstreetmap.org/node/1",
    ),
];

/// The one result of engine `name`.
pub fn url_of(name: &str) -> &'static str {
    ENGINES
        .iter()
        .find(|e| e.0 == name)
        .unwrap_or_else(|| panic!("no engine {name}"))
        .4
}

/// The running engines and the configuration that asks them.
pub struct Instance {
    /// The configuration (engines on loopback, nothing else).
    pub config: Config,
    /// The engines, in [`ENGINES`] order.
    pub engines: Vec<LoopbackEngine>,
}

impl Instance {
    /// Starts the engines.
    pub async fn start() -> Instance {
        let mut engines = Vec::new();
        let mut text = String::from("use_defaults = false\n[server]\ndeadline_ms = 5000\n");
        for (name, category, shortcut, enabled, url) in ENGINES {
            let engine = LoopbackEngine::spawn(test_page(&[(
                url,
                &format!("{name} result"),
                &format!("What {name} found."),
            )]))
            .await;
            text.push_str(&format!(
                "[[engine]]\nname = {name:?}\nkind = \"searxng\"\n\
                 url = \"{}/search?q={{query}}&p={{page}}\"\ncategories = [{category:?}]\n\
                 enabled = {enabled}\n",
                engine.base_url()
            ));
            if !shortcut.is_empty() {
                text.push_str(&format!("shortcut = {shortcut:?}\n"));
            }
            engines.push(engine);
        }
        Instance {
            config: Config::parse(&text, Path::new("categories.toml")).expect("a valid config"),
            engines,
        }
    }

    /// The app over the configuration (no socket).
    pub fn app(&self) -> axum::Router {
        crate::support::router::app_with(self.config.clone())
    }

    /// How many requests engine `name` has had.
    pub fn asked(&self, name: &str) -> usize {
        let i = ENGINES.iter().position(|e| e.0 == name).unwrap();
        self.engines[i].requests()
    }
}
