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
//! imports it, never the other way round. [`load`] is the one way a
//! configuration is loaded (`serve`, `search`, `dedup`, `lab`,
//! `check-config`, reload); its caller hands it the engine check
//! (`engines::check`, the kind builders).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use metasift_dedup as dedup;

mod bangs;
mod cache;
mod connections;
mod controls;
mod each;
mod engine;
mod expand;
mod favicons;
mod fusion;
mod health;
mod hostnames;
mod lab;
mod layers;
mod limits;
mod locate;
mod operators;
mod outgoing;
mod server;
mod template;

pub use bangs::{BangName, BangUrl, BangsConfig, bang_target};
pub use cache::{CacheBackend, CacheConfig, RedisTarget};
pub use connections::ConnectionsConfig;
pub use controls::{Carrier, SafeSearchMap, TIME_RANGES, TimeRangeMap, fill_dates, range_start};
pub(crate) use engine::PLACEHOLDERS;
pub use engine::{EngineConfig, EngineKind, OneOrMany, ParseConfig};
pub use favicons::FaviconsConfig;
pub use fusion::{DEFAULT_RRF_K, FusionMethod, FusionSettings, MAX_RRF_K};
pub use health::HealthConfig;
pub use hostnames::{HostnamesConfig, Replacements};
pub use lab::{DEFAULT_PRECISION_FLOOR, LabConfig};
pub use layers::{BUILT_IN, ConfigOrigin, ConfigSource, SYSTEM_CONFIG};
pub use limits::LimitsConfig;
pub use operators::OperatorKind;
pub use outgoing::{OutgoingConfig, redact as redact_proxy};
pub(crate) use server::check_http_url;
pub use server::{FORMATS, ServerConfig};
pub use template::{
    FieldsConfig, FollowConfig, InfoboxConfig, InfoboxFactConfig, InfoboxLinkConfig, LINK_FIELDS,
    LIST_FIELDS,
};

use locate::{Doc, Step, locate, locate_in};

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
    /// `use_defaults = false`: the file is the whole configuration instead
    /// of being laid over the built-in defaults (read by the layering, see
    /// [`Config::load_layered`]; a file read alone always is whole).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_defaults: Option<bool>,
    /// `[server]`
    pub server: ServerConfig,
    /// `[dedup]`
    pub dedup: dedup::Settings,
    /// `[fusion]`: how the engines' lists become one ranking.
    pub fusion: FusionSettings,
    /// `[cache]`
    pub cache: CacheConfig,
    /// `[outgoing]`: the proxies engine requests go through.
    pub outgoing: OutgoingConfig,
    /// `[limits]`: per-client rate limit and the cap on searches in flight.
    pub limits: LimitsConfig,
    /// `[health]`: when failing engines are suspended, and for how long.
    pub health: HealthConfig,
    /// `[lab]`: the researcher's bench at `/lab`.
    pub lab: LabConfig,
    /// `[bangs]`: external bangs (`!!w rust` goes to that site's search).
    pub bangs: BangsConfig,
    /// `[hostnames]`: rules on the results' hosts (remove, replace, boost,
    /// lower).
    pub hostnames: HostnamesConfig,
    /// `[favicons]`: the site icons beside results on the page.
    pub favicons: FaviconsConfig,
    /// `[[engine]]`
    #[serde(rename = "engine")]
    pub engines: Vec<EngineConfig>,
}

/// A further check of one `[[engine]]` table that passed the table's own
/// checks: `Err` carries the message, which may name a `parse.FIELD` to
/// point at. The `engines` module passes its kind builders here.
pub type EngineCheck<'a> = &'a dyn Fn(&EngineConfig) -> Result<(), String>;

/// The [`EngineCheck`] that accepts every table.
fn no_engine_check(_: &EngineConfig) -> Result<(), String> {
    Ok(())
}

/// Loads the configuration `source` names (see [`ConfigSource::locate`]):
/// its file laid over the built-in defaults (unless it says `use_defaults =
/// false`), or the built-in defaults alone; validated, every engine also put
/// to `engine_check`, every problem reported with its file, line and key;
/// then the environment's overrides applied ([`Config::apply_env`]). The one
/// way every command and a reload load a configuration.
pub fn load(
    source: &ConfigSource,
    engine_check: EngineCheck<'_>,
) -> Result<Config, Vec<ConfigError>> {
    let mut config = Config::check_source_with(source, engine_check)?;
    config.apply_env();
    Ok(config)
}

impl Config {
    /// Reads and validates a file; the first problem is the error. Engines
    /// are not built: [`load`] also asks their builders.
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
        let file = Doc::parse(text, path).map_err(|e| vec![e])?;
        let table = toml::from_str::<toml::Table>(text)
            .map_err(|e| vec![file.invalid(e.span(), e.message().trim().into())])?;
        let env = |name: &str| std::env::var(name).ok();
        // The refused value (or key) where the file writes it, else the
        // nearest enclosing key it writes.
        let near = |r: &each::Refusal| {
            locate_in(&file.doc, &r.steps, r.on_value).or_else(|| {
                (1..=r.steps.len())
                    .rev()
                    .find_map(|len| locate(&file.doc, &r.steps[..len]))
            })
        };
        let mut each = each::deserialize_each(table);
        let mut errors: Vec<ConfigError> = each
            .refusals
            .iter()
            .map(|r| file.invalid(near(r), r.message.clone()))
            .collect();
        let deserialized = each.config.take();
        let at = |steps: &[Step]| {
            let span = locate(&file.doc, &each.original(steps))?;
            Some(file.invalid(Some(span), String::new()))
        };
        let sets = |steps: &[Step]| locate(&file.doc, steps).is_some();
        let finished = match deserialized {
            Some(config) => config.finish(
                engine_check,
                &env,
                &at,
                &sets,
                &file,
                serving.then_some(path),
            ),
            None => Err(Vec::new()),
        };
        merge_errors(finished, &mut errors, file.path)
    }

    /// Reads the configuration `source` names — its file laid over the
    /// built-in defaults (see `layers`), or the built-in defaults alone —
    /// and validates it; the first problem is the error. Engines are not
    /// built and the environment is not read ([`load`] does both).
    pub fn load_layered(source: &ConfigSource) -> Result<Config, ConfigError> {
        Config::check_source_with(source, &no_engine_check).map_err(|mut e| e.swap_remove(0))
    }

    /// [`Config::load_layered`], reporting every problem found, each
    /// engine also put to `engine_check`.
    pub(crate) fn check_source_with(
        source: &ConfigSource,
        engine_check: EngineCheck<'_>,
    ) -> Result<Config, Vec<ConfigError>> {
        let env = |name: &str| std::env::var(name).ok();
        let Some(path) = source.path() else {
            return Config::check_layered_with(None, &env, engine_check);
        };
        let text = read(path).map_err(|e| vec![e])?;
        let mut config = Config::check_layered_with(Some((&text, path)), &env, engine_check)?;
        config.resolve_paths(path);
        Ok(config)
    }

    /// The TOML the layers of `source` make, before defaults of absent keys
    /// are filled in and before `${VAR}` are read (so no secret from the
    /// environment is shown): what `check-config --print-merged` prints.
    /// Only syntax errors are reported here; validate with
    /// [`Config::load_layered`].
    pub fn layered_toml(source: &ConfigSource) -> Result<String, ConfigError> {
        let base: toml::Table = toml::from_str(layers::BUILT_IN).map_err(|e| {
            Doc::parse(layers::BUILT_IN, Path::new(layers::BUILT_IN_NAME))
                .err()
                .unwrap_or_else(|| ConfigError::Invalid {
                    path: layers::BUILT_IN_NAME.into(),
                    line: 1,
                    column: 1,
                    message: e.message().trim().into(),
                })
        })?;
        let table = match source.path() {
            None => base,
            Some(path) => {
                let text = read(path)?;
                let file = Doc::parse(&text, path)?;
                let mut user: toml::Table = toml::from_str(&text)
                    .map_err(|e| file.invalid(e.span(), e.message().trim().into()))?;
                if user.get("use_defaults").and_then(toml::Value::as_bool) == Some(false) {
                    user
                } else {
                    user.remove("use_defaults");
                    layers::lay_over(base, user).table
                }
            }
        };
        toml::to_string(&table).map_err(|e| ConfigError::Invalid {
            path: source
                .path()
                .unwrap_or(Path::new(layers::BUILT_IN_NAME))
                .into(),
            line: 1,
            column: 1,
            message: format!("cannot write the merged configuration: {e}"),
        })
    }

    /// The user's text (if any) laid over the built-in defaults, unless it
    /// says `use_defaults = false`, then validated as a whole. Errors name
    /// the user's file and line wherever the user wrote the offending key
    /// (the merge is done on TOML values, so a key's place in the merged
    /// document is traced back to the layer that set it); a problem only
    /// the built-in defaults hold names them.
    pub(crate) fn check_layered_with(
        user: Option<(&str, &Path)>,
        env: &dyn Fn(&str) -> Option<String>,
        engine_check: EngineCheck<'_>,
    ) -> Result<Config, Vec<ConfigError>> {
        let built_in_path = Path::new(layers::BUILT_IN_NAME);
        let built_in = Doc::parse(layers::BUILT_IN, built_in_path).map_err(|e| vec![e])?;
        let (user_table, user) = match user {
            None => (toml::Table::new(), None),
            Some((text, path)) => {
                let file = Doc::parse(text, path).map_err(|e| vec![e])?;
                let mut table = toml::from_str::<toml::Table>(text)
                    .map_err(|e| vec![file.invalid(e.span(), e.message().trim().into())])?;
                match table.remove("use_defaults") {
                    None | Some(toml::Value::Boolean(true)) => {}
                    Some(toml::Value::Boolean(false)) => {
                        // The file is the whole configuration.
                        return Config::check_with(text, path, engine_check, true);
                    }
                    Some(_) => {
                        let span = locate(&file.doc, &[Step::key("use_defaults")]);
                        return Err(vec![
                            file.invalid(span, "use_defaults: must be true or false".into()),
                        ]);
                    }
                }
                (table, Some(file))
            }
        };
        let base = toml::from_str::<toml::Table>(layers::BUILT_IN)
            .map_err(|e| vec![built_in.invalid(e.span(), e.message().trim().into())])?;
        let layered = layers::lay_over(base, user_table);
        // Where a path into the merged document is written: in the user's
        // file when it sets it, else in the built-in defaults; `prefix`
        // also accepts the nearest enclosing key that is written.
        let trace = |steps: &[Step], prefix: bool, value: bool| -> Option<ConfigError> {
            let mut candidates: Vec<(&Doc<'_>, Vec<Step>)> = Vec::new();
            match steps {
                [Step::Key(k), Step::Index(i), rest @ ..] if k == "engine" => {
                    let origin = layered.engines.get(*i).copied().unwrap_or_default();
                    let at = |j: usize| {
                        let mut p = vec![Step::key("engine"), Step::Index(j)];
                        p.extend(rest.iter().cloned());
                        p
                    };
                    if let (Some(file), Some(j)) = (user.as_ref(), origin.user) {
                        candidates.push((file, at(j)));
                    }
                    if let Some(j) = origin.built_in {
                        candidates.push((&built_in, at(j)));
                    }
                }
                _ => {
                    if let Some(file) = user.as_ref() {
                        candidates.push((file, steps.to_vec()));
                    }
                    candidates.push((&built_in, steps.to_vec()));
                }
            }
            let shortest = if prefix { 1 } else { usize::MAX };
            for (file, path) in &candidates {
                if value && let Some(span) = locate_in(&file.doc, path, true) {
                    return Some(file.invalid(Some(span), String::new()));
                }
                let mut len = path.len();
                while len >= 1 {
                    if let Some(span) = locate(&file.doc, &path[..len]) {
                        return Some(file.invalid(Some(span), String::new()));
                    }
                    // Never stop at `engine` alone: that names no table.
                    if len <= shortest
                        || (len == 2 && matches!(path[0], Step::Key(ref k) if k == "engine"))
                    {
                        break;
                    }
                    len -= 1;
                }
            }
            None
        };
        let fallback = user.as_ref().unwrap_or(&built_in);
        let mut each = each::deserialize_each(layered.table.clone());
        let mut errors: Vec<ConfigError> = each
            .refusals
            .iter()
            .map(|r| {
                trace(&r.steps, true, r.on_value)
                    .map(|at| at.with_message(r.message.clone()))
                    .unwrap_or_else(|| fallback.invalid(None, r.message.clone()))
            })
            .collect();
        let Some(config) = each.config.take() else {
            return merge_errors(Err(Vec::new()), &mut errors, fallback.path);
        };
        // What the user's file says (the built-in defaults' values of the
        // per-client limits are for public instances).
        let sets = |steps: &[Step]| {
            user.as_ref()
                .is_some_and(|f| locate(&f.doc, steps).is_some())
        };
        // Relative folders are checked against the user's file's folder.
        let finished = config.finish(
            engine_check,
            env,
            &|steps| trace(&each.original(steps), false, false),
            &sets,
            fallback,
            Some(fallback.path),
        );
        merge_errors(finished, &mut errors, fallback.path)
    }

    /// The checks after deserialising, shared by a file read alone and
    /// layers: `${VAR}` in header values, then every value that parses but
    /// cannot work. `at` says where a path into the document is written
    /// (an error with an empty message); `sets` whether the user's file
    /// writes a path; `fallback` is the file named when no path of a
    /// problem is written anywhere.
    fn finish(
        mut self,
        engine_check: EngineCheck<'_>,
        env: &dyn Fn(&str) -> Option<String>,
        at: &dyn Fn(&[Step]) -> Option<ConfigError>,
        sets: &dyn Fn(&[Step]) -> bool,
        fallback: &Doc<'_>,
        serving: Option<&Path>,
    ) -> Result<Config, Vec<ConfigError>> {
        // A private instance (the default) has no per-client rate limits
        // unless the user's file asks for them: its users are known, and a
        // team behind one NAT address would share one budget.
        if !self.server.public {
            let limits = &mut self.limits;
            for (key, value) in [
                ("per_minute", &mut limits.per_minute),
                (
                    "autocomplete_per_minute",
                    &mut limits.autocomplete_per_minute,
                ),
            ] {
                if !sets(&[Step::key("limits"), Step::key(key)]) {
                    *value = 0;
                }
            }
        }
        let mut problems = Vec::new();
        self.expand_header_vars(env, &mut problems);
        self.fill_contact();
        outgoing::expand_proxy_vars(&mut self, env, &mut problems);
        self.problems(engine_check, &mut problems);
        if let Some(file) = serving {
            self.serving_problems(file, &mut problems);
        }
        if problems.is_empty() {
            return Ok(self);
        }
        let mut errors: Vec<(bool, usize, ConfigError)> = problems
            .into_iter()
            .map(|p| {
                let found = p.paths.iter().find_map(|path| {
                    let steps: Vec<Step> = path.iter().map(Step::from).collect();
                    at(&steps)
                });
                let error = match found {
                    Some(e) => e.with_message(p.message),
                    // A problem of the whole file is reported after the
                    // others, at the file's last line.
                    None if p.whole_file => {
                        let end = fallback.text.trim_end().len();
                        fallback.invalid(Some(end..end), p.message)
                    }
                    None => fallback.invalid(None, p.message),
                };
                let order = error.order(fallback.path);
                (order.0, order.1, error)
            })
            .collect();
        errors.sort_by_key(|(other_file, start, _)| (*other_file, *start));
        Err(errors.into_iter().map(|(_, _, e)| e).collect())
    }

    /// Applies environment overrides: `METASIFT_BIND` (`[server] bind`) and
    /// `METASIFT_REDIS_URL` (`[cache] url`, and `backend = "redis"`: naming
    /// a Redis is asking for it), so secrets such as a Redis password stay
    /// out of the file. (`METASIFT_ADMIN_TOKEN` is read by `serve` itself;
    /// header values say `${VAR}`.)
    pub fn apply_env(&mut self) {
        self.apply_env_from(&|name| std::env::var(name).ok());
    }

    /// [`Config::apply_env`] with the environment given.
    pub fn apply_env_from(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        let set = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        if let Some(bind) = set("METASIFT_BIND") {
            self.server.bind = bind;
        }
        if let Some(url) = set("METASIFT_REDIS_URL") {
            self.cache.url = url;
            self.cache.backend = CacheBackend::Redis;
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
        for (key, message) in self.fusion.problems() {
            out.push(Problem::at(&[&["fusion", key], &["fusion"]], message));
        }
        self.cache.problems(out);
        self.outgoing.problems(out);
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
        self.hostnames.problems(out);
        self.favicons.problems(out);
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

/// The refusals of deserialising (`errors`) and what the checks after it
/// found, together in line order; the configuration only when there are none.
fn merge_errors(
    finished: Result<Config, Vec<ConfigError>>,
    errors: &mut Vec<ConfigError>,
    main: &Path,
) -> Result<Config, Vec<ConfigError>> {
    match finished {
        Ok(config) if errors.is_empty() => Ok(config),
        Ok(_) => Err(std::mem::take(errors)),
        Err(more) => {
            let mut all = std::mem::take(errors);
            all.extend(more);
            all.sort_by_key(|e| e.order(main));
            if all.is_empty() {
                // Never an empty list on `Err`.
                all.push(ConfigError::Invalid {
                    path: main.to_path_buf(),
                    line: 1,
                    column: 1,
                    message: "the configuration cannot be read".into(),
                });
            }
            Err(all)
        }
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    crate::files::read_capped(path, crate::files::MAX_CONFIG_BYTES).map_err(|source| {
        ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// One step of a path into the document.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(&'static str),
    Index(usize),
    /// A key the file names (a `[hostnames] replace` pattern).
    Name(String),
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

/// `url` with `{contact}` filled (see [`Config::fill_contact`]).
pub(crate) fn with_contact(url: &str, contact: &str) -> String {
    if !url.contains("{contact}") {
        return url.to_string();
    }
    if !contact.is_empty() {
        let encoded: String = url::form_urlencoded::byte_serialize(contact.as_bytes()).collect();
        return url.replace("{contact}", &encoded);
    }
    let Some((head, query)) = url.split_once('?') else {
        return url.replace("{contact}", "");
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| pair.split_once('=').is_none_or(|(_, v)| v != "{contact}"))
        .collect();
    let query = kept.join("&").replace("{contact}", "");
    if query.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{query}")
    }
}

#[cfg(test)]
mod contact_tests {
    #[test]
    fn contact_fills_or_leaves_its_parameter_out() {
        use super::with_contact as w;
        let u = "https://api.crossref.org/works?query={query}&mailto={contact}&rows=10";
        assert_eq!(
            w(u, "a+b@example.org"),
            "https://api.crossref.org/works?query={query}&mailto=a%2Bb%40example.org&rows=10"
        );
        assert_eq!(
            w(u, ""),
            "https://api.crossref.org/works?query={query}&rows=10"
        );
        assert_eq!(w("https://x.org/?mailto={contact}", ""), "https://x.org/");
        assert_eq!(
            w("https://x.org/?q={query}", ""),
            "https://x.org/?q={query}"
        );
    }
}
