//! `engines.toml`: types, defaults and validation.
//!
//! Everything but the engines has a default, so a file may hold only
//! `[[engine]]` tables. A file is checked once, at start, in two passes:
//! serde refuses unknown keys and wrong types (toml's errors carry the
//! span), then [`Config::check`] refuses values that parse but cannot work —
//! duplicate names or shortcuts, URL templates with unknown placeholders,
//! weights ≤ 0 or NaN, zero timeouts, bad CSS selectors or JSON pointers,
//! missing parse fields for a kind, dedup thresholds out of range. Those
//! checks find the offending key's line in a spanned parse of the same text,
//! so every error names the FILE, LINE and KEY.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use metasift_dedup as dedup;

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
    /// `[health]`: when failing engines are suspended, and for how long.
    pub health: crate::health::HealthConfig,
    /// `[lab]`: the researcher's bench at `/lab`.
    pub lab: LabConfig,
    /// `[[engine]]`
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// `[lab]`
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabConfig {
    /// Folder whose `*.tsv` / `*.jsonl` labeled files `/lab` offers; none =
    /// uploads only. Nothing outside it is ever read.
    pub data_dir: Option<PathBuf>,
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
    /// Largest engine answer read, in bytes (decompressed); larger answers
    /// are reported as too large and dropped unread.
    pub max_body_bytes: usize,
    /// The User-Agent header sent to member engines.
    pub user_agent: String,
    /// The engine whose suggestions answer `/autocomplete`; none = no
    /// suggestions.
    pub autocomplete: Option<String>,
    /// Save every engine's raw answer into this folder (see
    /// `metasift::recording` for the format); `--record` overrides.
    pub record_dir: Option<PathBuf>,
    /// Log every query text (off by default: what people search for is
    /// theirs).
    pub log_queries: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1:8888".into(),
            base_url: "http://127.0.0.1:8888/".into(),
            deadline_ms: 3000,
            results_per_page: 20,
            max_body_bytes: 4 * 1024 * 1024,
            user_agent: concat!("metasift/", env!("CARGO_PKG_VERSION")).into(),
            autocomplete: None,
            record_dir: None,
            log_queries: false,
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
    /// Seconds a fused result (and the engine answers it came from) stays cached.
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
    /// Whether it is absent (then it is not written out: an untagged unit
    /// variant has no TOML or JSON form).
    pub fn is_none(&self) -> bool {
        matches!(self, OneOrMany::None)
    }

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
    #[serde(default, skip_serializing_if = "OneOrMany::is_none")]
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

/// The placeholders a URL template may use.
/// (`{page0}` is the 0-based page, `{offset1}` the 1-based offset: some
/// engines count from 0, others from 1.)
pub const PLACEHOLDERS: [&str; 6] = ["query", "page", "offset", "lang", "page0", "offset1"];

impl Config {
    /// Reads and validates a file; the first problem is the error.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = read(path)?;
        let mut config = Config::parse(&text, path)?;
        config.resolve_paths(path);
        Ok(config)
    }

    /// Applies `--record DIR` (every raw answer saved there) and `--replay
    /// DIR` (every engine without its own `replay` answers from DIR).
    pub fn apply_recording(&mut self, record: Option<PathBuf>, replay: Option<PathBuf>) {
        if record.is_some() {
            self.server.record_dir = record;
        }
        if let Some(dir) = replay {
            for engine in &mut self.engines {
                engine.replay.get_or_insert_with(|| dir.clone());
            }
        }
    }

    /// Makes relative folders in the file (`replay`, `record_dir`) relative
    /// to the file's own folder, so a config works from any directory.
    pub fn resolve_paths(&mut self, file: &Path) {
        let base = file.parent().unwrap_or(Path::new(""));
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        if let Some(dir) = self.server.record_dir.as_mut() {
            resolve(dir);
        }
        if let Some(dir) = self.lab.data_dir.as_mut() {
            resolve(dir);
        }
        for engine in &mut self.engines {
            if let Some(dir) = engine.replay.as_mut() {
                resolve(dir);
            }
        }
    }

    /// Parses and validates text; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Config::check(text, path).map_err(|mut errors| errors.swap_remove(0))
    }

    /// Reads and validates a file, reporting every problem found.
    pub fn check_file(path: &Path) -> Result<Config, Vec<ConfigError>> {
        let text = read(path).map_err(|e| vec![e])?;
        let mut config = Config::check(&text, path)?;
        config.resolve_paths(path);
        Ok(config)
    }

    /// Parses and validates text, reporting every problem found (in line
    /// order; never an empty list on `Err`).
    pub fn check(text: &str, path: &Path) -> Result<Config, Vec<ConfigError>> {
        let invalid = |span: Option<std::ops::Range<usize>>, message: String| {
            let (line, column) = span.map_or((1, 1), |s| line_col(text, s.start));
            ConfigError::Invalid {
                path: path.to_path_buf(),
                line,
                column,
                message,
            }
        };
        // A spanned parse of the text, to name and point at keys.
        let doc = toml::de::DeTable::parse(text)
            .map_err(|e| vec![invalid(e.span(), e.message().trim().to_string())])?;
        let config = toml::from_str::<Config>(text).map_err(|e| {
            let message = e.message().trim();
            // serde's type errors name the value, not the key: add it.
            let message = match e.span().and_then(|s| key_at(doc.get_ref(), s.start)) {
                Some(key) if !message.contains(&format!("`{key}`")) => {
                    format!("{key}: {message}")
                }
                _ => message.to_string(),
            };
            vec![invalid(e.span(), message)]
        })?;
        let mut problems = Vec::new();
        config.problems(&mut problems);
        if problems.is_empty() {
            return Ok(config);
        }
        let mut errors: Vec<(usize, ConfigError)> = problems
            .into_iter()
            .map(|p| {
                let span = p.paths.iter().find_map(|path| locate(doc.get_ref(), path));
                let start = span.as_ref().map_or(0, |s| s.start);
                (start, invalid(span, p.message))
            })
            .collect();
        errors.sort_by_key(|(start, _)| *start);
        Err(errors.into_iter().map(|(_, e)| e).collect())
    }

    /// Applies environment overrides (`METASIFT_BIND`).
    pub fn apply_env(&mut self) {
        if let Ok(bind) = std::env::var("METASIFT_BIND")
            && !bind.trim().is_empty()
        {
            self.server.bind = bind.trim().to_string();
        }
    }

    /// Every value that parses but cannot work, with where to point.
    fn problems(&self, out: &mut Vec<Problem>) {
        let s = &self.server;
        if let Err(m) = check_bind(&s.bind) {
            out.push(Problem::at(
                &[&["server", "bind"]],
                format!("server.bind: {m}"),
            ));
        }
        if let Err(m) = check_http_url(&s.base_url) {
            out.push(Problem::at(
                &[&["server", "base_url"]],
                format!("server.base_url: {m}"),
            ));
        }
        if s.deadline_ms == 0 {
            out.push(Problem::at(
                &[&["server", "deadline_ms"]],
                "server.deadline_ms: must be at least 1".into(),
            ));
        }
        if !(1..=1000).contains(&s.results_per_page) {
            out.push(Problem::at(
                &[&["server", "results_per_page"]],
                format!(
                    "server.results_per_page: must be 1 to 1000, got {}",
                    s.results_per_page
                ),
            ));
        }
        if s.max_body_bytes == 0 {
            out.push(Problem::at(
                &[&["server", "max_body_bytes"]],
                "server.max_body_bytes: must be at least 1".into(),
            ));
        }
        if s.user_agent.trim().is_empty()
            || reqwest::header::HeaderValue::from_str(&s.user_agent).is_err()
        {
            out.push(Problem::at(
                &[&["server", "user_agent"]],
                "server.user_agent: must be a non-empty header value".into(),
            ));
        }
        if let Err((field, m)) = self.dedup.validate() {
            out.push(Problem::at(
                &[&["dedup", field], &["dedup"]],
                format!("dedup.{field}: {m}"),
            ));
        }
        if self.cache.backend == CacheBackend::Redis {
            let ok = url::Url::parse(&self.cache.url)
                .is_ok_and(|u| matches!(u.scheme(), "redis" | "rediss" | "unix"));
            if !ok {
                out.push(Problem::at(
                    &[&["cache", "url"], &["cache", "backend"]],
                    format!(
                        "cache.url: {:?} is not a redis://, rediss:// or unix:// URL",
                        self.cache.url
                    ),
                ));
            }
        }
        for (key, message) in self.limits.problems() {
            out.push(Problem::at(&[&["limits", key], &["limits"]], message));
        }
        for (key, message) in self.health.problems() {
            // `max_backoff_s` may be wrong because of a backoff the file
            // sets while it keeps the default: point at what is written.
            out.push(Problem::at(
                &[
                    &["health", key],
                    &["health", "max_backoff_s"],
                    &["health", "backoff_s"],
                    &["health", "blocked_backoff_s"],
                    &["health"],
                ],
                message,
            ));
        }
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        let mut shortcuts: BTreeMap<String, usize> = BTreeMap::new();
        for (i, e) in self.engines.iter().enumerate() {
            if let Some(&first) = names.get(e.name.as_str()) {
                out.push(Problem::engine(
                    i,
                    "name",
                    format!(
                        "engine.name: {:?} is already the name of engine #{} (names must be unique)",
                        e.name,
                        first + 1
                    ),
                ));
            } else {
                names.insert(&e.name, i);
            }
            for sc in e.shortcut.to_vec() {
                if let Some(&first) = shortcuts.get(&sc) {
                    if first != i {
                        out.push(Problem::engine(
                            i,
                            "shortcut",
                            format!(
                                "engine.shortcut: {sc:?} of engine {:?} is already the shortcut of engine {:?}",
                                e.name, self.engines[first].name
                            ),
                        ));
                    }
                } else {
                    shortcuts.insert(sc, i);
                }
            }
            let before = out.len();
            e.problems(i, out);
            // The kind's builder knows more (selector dialects, templates
            // over item fields); ask it once the table passed our checks.
            if out.len() == before
                && let Err(message) = crate::engines::build(e)
            {
                out.push(builder_problem(i, message));
            }
        }
    }
}

impl EngineConfig {
    /// Problems of one engine table (the `i`-th `[[engine]]`).
    fn problems(&self, i: usize, out: &mut Vec<Problem>) {
        let who = &self.name;
        if !is_word(&self.name) {
            out.push(Problem::engine(
                i,
                "name",
                format!("engine.name: {who:?} must be non-empty, without spaces or '!'"),
            ));
        }
        for sc in self.shortcut.to_vec() {
            if !is_word(&sc) {
                out.push(Problem::engine(
                    i,
                    "shortcut",
                    format!("engine.shortcut: {sc:?} of engine {who:?} must be non-empty, without spaces or '!'"),
                ));
            }
        }
        if let Err(m) = check_template(&self.url) {
            out.push(Problem::engine(
                i,
                "url",
                format!("engine.url of {who:?}: {m}"),
            ));
        }
        if !(self.weight.is_finite() && self.weight > 0.0) {
            out.push(Problem::engine(
                i,
                "weight",
                format!(
                    "engine.weight of {who:?}: must be a number above 0, got {}",
                    self.weight
                ),
            ));
        }
        if self.timeout_ms == 0 {
            out.push(Problem::engine(
                i,
                "timeout_ms",
                format!("engine.timeout_ms of {who:?}: must be at least 1"),
            ));
        }
        if self.page_size == 0 {
            out.push(Problem::engine(
                i,
                "page_size",
                format!("engine.page_size of {who:?}: must be at least 1"),
            ));
        }
        if self.categories.is_empty()
            || self
                .categories
                .iter()
                .any(|c| c.trim().is_empty() || c.contains('!'))
        {
            out.push(Problem::engine(
                i,
                "categories",
                format!(
                    "engine.categories of {who:?}: needs at least one non-empty name, without '!'"
                ),
            ));
        }
        for (name, value) in &self.headers {
            let ok = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
                && reqwest::header::HeaderValue::from_str(value).is_ok();
            if !ok {
                out.push(Problem::engine(
                    i,
                    "headers",
                    format!(
                        "engine.headers of {who:?}: {name:?} = {value:?} is not a valid HTTP header"
                    ),
                ));
            }
        }
        self.parse_problems(i, out);
    }

    /// Whether the `[engine.parse]` table can work for the kind.
    fn parse_problems(&self, i: usize, out: &mut Vec<Problem>) {
        let who = &self.name;
        let p = &self.parse;
        // What each kind cannot do without; the kind's builder checks the
        // values themselves (selector syntax, pointers, templates).
        let needs: &[(&str, &Option<String>)] = match self.kind {
            EngineKind::Html => &[
                ("results", &p.results),
                ("title", &p.title),
                ("url", &p.url),
            ],
            EngineKind::Json => &[("title", &p.title), ("url", &p.url)],
            EngineKind::Feed | EngineKind::Searxng => &[],
        };
        for (field, value) in needs {
            if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                out.push(Problem {
                    paths: vec![
                        path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("parse")]),
                        path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("kind")]),
                    ],
                    message: format!(
                        "engine.parse.{field} of {who:?}: required for kind {:?}",
                        kind_name(self.kind)
                    ),
                });
            }
        }
    }
}

/// A builder's refusal, pointed at the `parse.FIELD` it names, if any.
fn builder_problem(i: usize, message: String) -> Problem {
    const FIELDS: [&str; 8] = [
        "results",
        "title",
        "url",
        "snippet",
        "skip",
        "suggestions",
        "blocked",
        "no_results",
    ];
    let field = message.split("parse.").skip(1).find_map(|rest| {
        FIELDS
            .iter()
            .copied()
            .filter(|f| rest.starts_with(f))
            .max_by_key(|f| f.len())
    });
    let mut paths = Vec::new();
    if let Some(f) = field {
        paths.push(path(&[
            Seg::Key("engine"),
            Seg::Index(i),
            Seg::Key("parse"),
            Seg::Key(f),
        ]));
        paths.push(path(&[
            Seg::Key("engine"),
            Seg::Index(i),
            Seg::Key("parse"),
        ]));
    }
    paths.push(path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("name")]));
    Problem { paths, message }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn kind_name(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Json => "json",
        EngineKind::Html => "html",
        EngineKind::Feed => "feed",
        EngineKind::Searxng => "searxng",
    }
}

/// Names used after `!` in queries: one word.
fn is_word(s: &str) -> bool {
    !s.is_empty() && !s.contains('!') && !s.chars().any(char::is_whitespace)
}

/// `host:port` or `[v6]:port` with a numeric port.
fn check_bind(bind: &str) -> Result<(), String> {
    if bind.parse::<std::net::SocketAddr>().is_ok() {
        return Ok(());
    }
    match bind.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(()),
        _ => Err(format!("{bind:?} is not an address like 127.0.0.1:8888")),
    }
}

fn check_http_url(u: &str) -> Result<(), String> {
    match url::Url::parse(u) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => {
            Ok(())
        }
        Ok(_) => Err(format!("{u:?} is not an http(s) URL")),
        Err(e) => Err(format!("{u:?} is not a URL ({e})")),
    }
}

/// Checks a request URL template: known placeholders only, `{query}`
/// present, and an absolute http(s) URL once filled in.
pub fn check_template(template: &str) -> Result<(), String> {
    let mut rest = template;
    let mut filled = String::with_capacity(template.len());
    let mut has_query = false;
    while let Some(open) = rest.find(['{', '}']) {
        filled.push_str(&rest[..open]);
        if rest[open..].starts_with('}') {
            return Err(format!("unmatched '}}' in {template:?}"));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in {template:?}"))?;
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}} (known: {{query}}, {{page}}, {{offset}}, {{lang}}, {{page0}}, {{offset1}})"
            ));
        }
        has_query |= name == "query";
        filled.push_str(match name {
            "query" => "q",
            "lang" => "en",
            _ => "1",
        });
        rest = &after[close + 1..];
    }
    filled.push_str(rest);
    if !has_query {
        return Err(format!("{template:?} has no {{query}} placeholder"));
    }
    check_http_url(&filled)
}

/// One step of a path into the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    Key(&'static str),
    Index(usize),
}

fn path(segs: &[Seg]) -> Vec<Seg> {
    segs.to_vec()
}

/// A problem found after deserializing, with where it may be in the file
/// (paths tried in order; the first that exists is pointed at).
#[derive(Debug)]
struct Problem {
    paths: Vec<Vec<Seg>>,
    message: String,
}

impl Problem {
    fn at(paths: &[&[&'static str]], message: String) -> Self {
        Problem {
            paths: paths
                .iter()
                .map(|p| p.iter().map(|k| Seg::Key(k)).collect())
                .collect(),
            message,
        }
    }

    /// At `key` of the `i`-th engine, else at the engine's name.
    fn engine(i: usize, key: &'static str, message: String) -> Self {
        Problem {
            paths: vec![
                path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key(key)]),
                path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("name")]),
            ],
            message,
        }
    }
}

/// The span of the key at the end of `path` (or of the array element, when
/// the path ends with an index), if the file spells it out.
fn locate(root: &toml::de::DeTable<'_>, path: &[Seg]) -> Option<std::ops::Range<usize>> {
    let mut table = root;
    let mut iter = path.iter().peekable();
    while let Some(seg) = iter.next() {
        let Seg::Key(key) = seg else { return None };
        let (k, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == *key)?;
        let mut value = v;
        if iter.peek().is_none() {
            return Some(k.span());
        }
        if let Some(Seg::Index(i)) = iter.peek() {
            iter.next();
            let toml::de::DeValue::Array(items) = value.get_ref() else {
                return None;
            };
            value = items.get(*i)?;
            if iter.peek().is_none() {
                return Some(value.span());
            }
        }
        let toml::de::DeValue::Table(t) = value.get_ref() else {
            return None;
        };
        table = t;
    }
    None
}

/// The dotted path (`engine.parse.title`) of the innermost key whose key or
/// value covers byte `offset`.
fn key_at(table: &toml::de::DeTable<'_>, offset: usize) -> Option<String> {
    fn walk(table: &toml::de::DeTable<'_>, offset: usize, prefix: &str) -> Option<String> {
        for (k, v) in table.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            // Header tables' spans do not cover their keys: always look in.
            let inner = match v.get_ref() {
                toml::de::DeValue::Table(t) => walk(t, offset, &path),
                toml::de::DeValue::Array(items) => {
                    items.iter().find_map(|item| match item.get_ref() {
                        toml::de::DeValue::Table(t) => walk(t, offset, &path),
                        _ => None,
                    })
                }
                _ => None,
            };
            if inner.is_some() {
                return inner;
            }
            if k.span().contains(&offset) || v.span().contains(&offset) {
                return Some(path);
            }
        }
        None
    }
    walk(table, offset, "")
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
