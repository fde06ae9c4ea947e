//! `engines.toml`: types, defaults and validation — one file per table.
//!
//! Everything but the engines has a default, so a file may hold only
//! `[[engine]]` tables. A file is checked once, at start, in two passes:
//! serde refuses unknown keys and wrong types (toml's errors carry the
//! span), then `Config::check_with` refuses values that parse but cannot
//! work — duplicate names or shortcuts, URL templates with unknown
//! placeholders, weights ≤ 0 or NaN, zero timeouts, missing parse fields for
//! a kind, dedup thresholds out of range — and asks the caller's
//! `EngineCheck` about each engine that passed (the kind's builder: bad CSS
//! selectors or JSON pointers). Those checks find the offending key's line
//! in a spanned parse of the same text, so every error names the FILE, LINE
//! and KEY.
//!
//! This module knows nothing of how engines are built: the `engines` module
//! imports it, never the other way round, and its `check_config_file` is
//! the entry point that asks the builders too.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use metasift_dedup as dedup;

mod cache;
mod connections;
mod engine;
mod health;
mod lab;
mod limits;
mod server;

pub use cache::{CacheBackend, CacheConfig};
pub use connections::ConnectionsConfig;
pub use engine::{EngineConfig, EngineKind, OneOrMany, ParseConfig};
pub use health::HealthConfig;
pub use lab::{DEFAULT_PRECISION_FLOOR, LabConfig};
pub use limits::LimitsConfig;
pub use server::ServerConfig;

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
    pub limits: LimitsConfig,
    /// `[health]`: when failing engines are suspended, and for how long.
    pub health: HealthConfig,
    /// `[lab]`: the researcher's bench at `/lab`.
    pub lab: LabConfig,
    /// `[[engine]]`
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// A further check of one `[[engine]]` table that passed the table's own
/// checks: `Err` carries the message, which may name a `parse.FIELD` to
/// point at. The `engines` module passes its kind builders here.
pub(crate) type EngineCheck<'a> = &'a dyn Fn(&EngineConfig) -> Result<(), String>;

/// The [`EngineCheck`] that accepts every table.
fn no_engine_check(_: &EngineConfig) -> Result<(), String> {
    Ok(())
}

impl Config {
    /// Reads and validates a file; the first problem is the error. Engines
    /// are not built: `engines::check_config_file` also asks their builders.
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
    pub(crate) fn resolve_paths(&mut self, file: &Path) {
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
    /// Engines are not built (see [`Config::load`]).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Config::check(text, path).map_err(|mut errors| errors.swap_remove(0))
    }

    /// Reads and validates a file, reporting every problem found; each
    /// engine that passed its table's checks is also put to `engine_check`.
    pub(crate) fn check_file_with(
        path: &Path,
        engine_check: EngineCheck<'_>,
    ) -> Result<Config, Vec<ConfigError>> {
        let text = read(path).map_err(|e| vec![e])?;
        let mut config = Config::check_with(&text, path, engine_check, true)?;
        config.resolve_paths(path);
        Ok(config)
    }

    /// Parses and validates text, reporting every problem found (in line
    /// order; never an empty list on `Err`). Engines are not built.
    pub fn check(text: &str, path: &Path) -> Result<Config, Vec<ConfigError>> {
        Config::check_with(text, path, &no_engine_check, false)
    }

    /// [`Config::check`], each engine that passed its table's checks also
    /// put to `engine_check`, whose refusals are reported like the others.
    /// With `serving`, the file must also be one a server can run: an
    /// enabled engine, an `autocomplete` engine that exists, and `replay` /
    /// `data_dir` folders that exist (relative to the file's folder).
    pub(crate) fn check_with(
        text: &str,
        path: &Path,
        engine_check: EngineCheck<'_>,
        serving: bool,
    ) -> Result<Config, Vec<ConfigError>> {
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
        config.problems(engine_check, &mut problems);
        if serving {
            config.serving_problems(path, &mut problems);
        }
        if problems.is_empty() {
            return Ok(config);
        }
        let mut errors: Vec<(usize, ConfigError)> = problems
            .into_iter()
            .map(|p| {
                let span = p.paths.iter().find_map(|path| locate(doc.get_ref(), path));
                let start = match &span {
                    Some(s) => s.start,
                    // A problem of the whole file is reported after the
                    // others, at the file's last line.
                    None if p.whole_file => text.len(),
                    None => 0,
                };
                let end = text.trim_end().len();
                let span = span.or(p.whole_file.then_some(end..end));
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
    fn problems(&self, engine_check: EngineCheck<'_>, out: &mut Vec<Problem>) {
        self.server.problems(out);
        if let Err((field, m)) = self.dedup.validate() {
            out.push(Problem::at(
                &[&["dedup", field], &["dedup"]],
                format!("dedup.{field}: {m}"),
            ));
        }
        self.cache.problems(out);
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
        for (key, message) in self.lab.problems() {
            out.push(Problem::at(&[&["lab", key], &["lab"]], message));
        }
        engine::problems(&self.engines, engine_check, out);
    }

    /// What keeps a file that is valid from serving: no enabled engine (every
    /// search would return nothing), an `autocomplete` engine that does not
    /// exist, a `replay` or `data_dir` folder that does not exist.
    fn serving_problems(&self, file: &Path, out: &mut Vec<Problem>) {
        if !self.engines.iter().any(|e| e.enabled) {
            let message = if self.engines.is_empty() {
                "no engine: every search would return nothing; add an [[engine]] table \
                 (see the shipped engines.toml)"
                    .to_string()
            } else {
                format!(
                    "no enabled engine: all {} are `enabled = false`, so every search would \
                     return nothing; enable at least one",
                    self.engines.len()
                )
            };
            let mut problem = Problem::at(&[], message);
            problem.paths = (0..self.engines.len())
                .map(|i| path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("enabled")]))
                .collect();
            problem.whole_file = true;
            out.push(problem);
        }
        if let Some(name) = &self.server.autocomplete
            && !self.engines.iter().any(|e| &e.name == name)
        {
            let names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
            out.push(Problem::at(
                &[&["server", "autocomplete"], &["server"]],
                format!(
                    "server.autocomplete: there is no engine named {name:?} (engines: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        let base = file.parent().unwrap_or(Path::new(""));
        let missing = |dir: &Path| {
            let full = if dir.is_relative() {
                base.join(dir)
            } else {
                dir.to_path_buf()
            };
            match std::fs::metadata(&full) {
                Ok(m) if m.is_dir() => None,
                Ok(_) => Some(format!("{} is not a folder", full.display())),
                Err(e) => Some(format!("cannot open folder {}: {e}", full.display())),
            }
        };
        if let Some(why) = self.lab.data_dir.as_deref().and_then(missing) {
            out.push(Problem::at(
                &[&["lab", "data_dir"], &["lab"]],
                format!("lab.data_dir: {why}"),
            ));
        }
        for (i, engine) in self.engines.iter().enumerate() {
            if let Some(why) = engine.replay.as_deref().and_then(missing) {
                out.push(Problem::engine(
                    i,
                    "replay",
                    format!("engine {:?}: replay: {why}", engine.name),
                ));
            }
        }
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })
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
    /// Not about one key: when no path is in the file, point at its end.
    whole_file: bool,
}

impl Problem {
    fn at(paths: &[&[&'static str]], message: String) -> Self {
        Problem {
            paths: paths
                .iter()
                .map(|p| p.iter().map(|k| Seg::Key(k)).collect())
                .collect(),
            message,
            whole_file: false,
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
            whole_file: false,
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
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
