//! `engines.toml`: types, defaults and validation.
//!
//! (Skeleton: validation with file:line errors is completed by the engines issue.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dedup;

/// Errors met while loading a configuration file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is not valid, at this line and column.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong, naming the key.
        message: String,
    },
}

/// The whole file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `[server]`
    pub server: ServerConfig,
    /// `[dedup]`
    pub dedup: dedup::Settings,
    /// `[cache]`
    pub cache: CacheConfig,
    /// `[limits]`: per-client rate limit and the cap on searches in flight.
    pub limits: crate::limit::LimitsConfig,
    /// `[[engine]]`
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// `[server]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on (`METASIFT_BIND` overrides).
    pub bind: String,
    /// Public base URL, used in OpenSearch and RSS links.
    pub base_url: String,
    /// Deadline of the whole fan-out, in milliseconds.
    pub deadline_ms: u64,
    /// Results per page.
    pub results_per_page: usize,
    /// The engine whose suggestions answer `/autocomplete`; none = no
    /// suggestions.
    pub autocomplete: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1:8888".into(),
            base_url: "http://127.0.0.1:8888/".into(),
            deadline_ms: 3000,
            results_per_page: 20,
            autocomplete: None,
        }
    }
}

/// Cache backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheBackend {
    /// In-process, bounded.
    #[default]
    Memory,
    /// Shared Redis.
    Redis,
}

/// `[cache]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Backend.
    pub backend: CacheBackend,
    /// Redis URL when `backend = "redis"`.
    pub url: String,
    /// Seconds a fused result stays cached.
    pub ttl_s: u64,
    /// Memory backend: approximate megabytes of results kept at most.
    pub memory_mb: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            backend: CacheBackend::Memory,
            url: "redis://127.0.0.1:6379/".into(),
            ttl_s: 300,
            memory_mb: 64,
        }
    }
}

/// The kind of an engine: which parser reads its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// JSON pointer to a list, then field paths or templates per item.
    Json,
    /// CSS selectors.
    Html,
    /// RSS 2.0, Atom or OpenSearch.
    Feed,
    /// Another SearXNG-compatible instance's `/search?format=json`.
    Searxng,
}

/// One string or a list of strings (`shortcut = "wp"` or `["wp", "w"]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single value.
    One(String),
    /// Several values.
    Many(Vec<String>),
    /// Absent.
    #[default]
    #[serde(skip)]
    None,
}

impl OneOrMany {
    /// The values as a slice-like vector.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
            OneOrMany::None => Vec::new(),
        }
    }
}

/// `[engine.parse]`: where the parts of a result are in an answer. Field
/// meaning depends on the kind (JSON pointer / field paths, or CSS selectors
/// with `sel@attr`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParseConfig {
    /// json: JSON pointer to the list; html: selector of one result.
    pub results: Option<String>,
    /// Title field path or selector.
    pub title: Option<String>,
    /// URL field path, template, or selector (`sel@href`).
    pub url: Option<String>,
    /// Snippet field path or selector.
    pub snippet: Option<String>,
    /// Selectors (html) or substrings that mark a CAPTCHA / bot-check page.
    pub blocked: Vec<String>,
    /// Selectors or substrings that mark an explicit "no results" page.
    pub no_results: Vec<String>,
    /// html: results matching this selector are skipped (ads, widgets).
    pub skip: Option<String>,
    /// Suggestions: JSON pointer or selector.
    pub suggestions: Option<String>,
}

/// One `[[engine]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Unique name.
    pub name: String,
    /// Parser kind.
    pub kind: EngineKind,
    /// Request URL template with `{query}`, `{page}`, `{offset}`, `{lang}`.
    pub url: String,
    /// Weight in fusion.
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Per-engine timeout.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Asked by default.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// `!shortcut` names.
    #[serde(default)]
    pub shortcut: OneOrMany,
    /// Categories (`general`, `news`, …).
    #[serde(default = "default_categories")]
    pub categories: Vec<String>,
    /// Results per page, for `{offset}`.
    #[serde(default = "default_page_size")]
    pub page_size: u32,
    /// Extra request headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Where the parts of a result are.
    #[serde(default)]
    pub parse: ParseConfig,
    /// Answer from this recording folder instead of the network.
    #[serde(default)]
    pub replay: Option<PathBuf>,
}

fn default_weight() -> f64 {
    1.0
}
fn default_timeout_ms() -> u64 {
    2500
}
fn default_true() -> bool {
    true
}
fn default_categories() -> Vec<String> {
    vec!["general".into()]
}
fn default_page_size() -> u32 {
    10
}

impl Config {
    /// Reads and validates a file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// Parses and validates text; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        toml::from_str::<Config>(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            ConfigError::Invalid {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().to_string(),
            }
        })
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
