//! The built-in defaults, where the user's file is looked for, and how it is
//! laid over them.
//!
//! The shipped `engines.toml` is compiled into the binary, so `cargo install`
//! gives a server that starts anywhere. A user's file does not replace it:
//! it is laid over it, as SearXNG's `use_default_settings` does —
//!
//! - tables merge key by key, nested tables too (`[server]` with one key
//!   keeps every other built-in `[server]` value);
//! - an `[[engine]]` whose `name` is a built-in engine's changes only the
//!   keys it sets (its `[engine.parse]` merges key by key as well);
//! - an `[[engine]]` with a new name is added after the built-in ones;
//! - any other value (a string, a number, a list such as `categories` or
//!   `blocked`) replaces the built-in one whole;
//! - `use_defaults = false` at the top of the file starts from nothing: the
//!   file is the whole configuration, as it was before layering.
//!
//! The merge is done on TOML values (`toml::Table`) before anything is
//! deserialised, so keys other modules add to `Config` merge with no code
//! here, and errors are still reported against the user's file and line
//! (see `Config::check_layered_with`).
//!
//! Lookup order of the file (the first that applies wins; a file named by
//! `--config` or `METASIFT_CONFIG` must exist, the others are skipped when
//! absent): `--config`, `METASIFT_CONFIG`, `./engines.toml`,
//! `$XDG_CONFIG_HOME/metasift/engines.toml` (`~/.config/…` when
//! `XDG_CONFIG_HOME` is unset or not absolute, as the XDG spec says),
//! `/etc/metasift/engines.toml`; none = the built-in defaults alone.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// The shipped `engines.toml`, built into the binary as the defaults.
pub const BUILT_IN: &str = include_str!("../../engines.toml");

/// How errors in the built-in defaults name their "file".
pub(crate) const BUILT_IN_NAME: &str = "(built-in engines.toml)";

/// The system-wide configuration file.
pub const SYSTEM_CONFIG: &str = "/etc/metasift/engines.toml";

/// Why a configuration file was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigOrigin {
    /// `--config` on the command line.
    Flag,
    /// The `METASIFT_CONFIG` environment variable.
    Env,
    /// `engines.toml` in the working directory.
    WorkDir,
    /// `$XDG_CONFIG_HOME/metasift/engines.toml` (or `~/.config/…`).
    UserConfig,
    /// `/etc/metasift/engines.toml`.
    System,
}

impl ConfigOrigin {
    /// How the origin is named in logs.
    pub fn describe(self) -> &'static str {
        match self {
            ConfigOrigin::Flag => "the command line",
            ConfigOrigin::Env => "METASIFT_CONFIG",
            ConfigOrigin::WorkDir => "./engines.toml",
            ConfigOrigin::UserConfig => "the user's config folder",
            ConfigOrigin::System => "the system config folder",
        }
    }
}

/// Where the running configuration comes from: a file (laid over the
/// built-in defaults unless it says `use_defaults = false`) or the built-in
/// defaults alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSource {
    /// The file and why it was chosen; `None` = built-in defaults only.
    pub file: Option<(PathBuf, ConfigOrigin)>,
}

impl ConfigSource {
    /// The built-in defaults alone.
    pub fn built_in() -> ConfigSource {
        ConfigSource { file: None }
    }

    /// A file named explicitly (as `--config` does).
    pub fn file(path: impl Into<PathBuf>) -> ConfigSource {
        ConfigSource {
            file: Some((path.into(), ConfigOrigin::Flag)),
        }
    }

    /// The file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|(p, _)| p.as_path())
    }

    /// Looks for the configuration in the documented order, with the real
    /// environment, working directory and `/etc`.
    pub fn locate(explicit: Option<&Path>) -> ConfigSource {
        ConfigSource::locate_with(
            explicit,
            &|name| std::env::var_os(name),
            Path::new(""),
            Path::new(SYSTEM_CONFIG),
        )
    }

    /// [`ConfigSource::locate`] with the environment, the working directory
    /// (`""` = the process's own) and the system file given.
    pub fn locate_with(
        explicit: Option<&Path>,
        env: &dyn Fn(&str) -> Option<OsString>,
        cwd: &Path,
        system: &Path,
    ) -> ConfigSource {
        let found = |path: PathBuf, origin| ConfigSource {
            file: Some((path, origin)),
        };
        if let Some(path) = explicit {
            return found(path.to_path_buf(), ConfigOrigin::Flag);
        }
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        if let Some(path) = set("METASIFT_CONFIG") {
            return found(PathBuf::from(path), ConfigOrigin::Env);
        }
        let here = cwd.join("engines.toml");
        if here.is_file() {
            return found(here, ConfigOrigin::WorkDir);
        }
        // XDG: a relative XDG_CONFIG_HOME is invalid and must be ignored.
        let config_home = set("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".config")));
        if let Some(home) = config_home {
            let user = home.join("metasift").join("engines.toml");
            if user.is_file() {
                return found(user, ConfigOrigin::UserConfig);
            }
        }
        if system.is_file() {
            return found(system.to_path_buf(), ConfigOrigin::System);
        }
        ConfigSource::built_in()
    }
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some((path, origin)) => write!(f, "{} (from {})", path.display(), origin.describe()),
            None => f.write_str("built-in defaults only (no configuration file found)"),
        }
    }
}

/// Where a merged `[[engine]]` came from: its index among the built-in
/// engines and among the user's, when it is in them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EngineOrigin {
    pub(crate) built_in: Option<usize>,
    pub(crate) user: Option<usize>,
}

/// A user's table laid over the built-in one, with where each engine came
/// from (in the merged order).
#[derive(Debug)]
pub(crate) struct Layered {
    pub(crate) table: toml::Table,
    pub(crate) engines: Vec<EngineOrigin>,
}

/// Lays `user` over `base` (see the module docs). An `[[engine]]` of the
/// user's whose name is a built-in engine's (the first user table of that
/// name only: a second is a duplicate, refused later with its line) merges
/// into it; every other is appended.
pub(crate) fn lay_over(base: toml::Table, mut user: toml::Table) -> Layered {
    let mut table = base;
    let mut base_engines = match table.remove("engine") {
        Some(toml::Value::Array(items)) => items,
        Some(other) => vec![other],
        None => Vec::new(),
    };
    let mut engines: Vec<EngineOrigin> = (0..base_engines.len())
        .map(|i| EngineOrigin {
            built_in: Some(i),
            user: None,
        })
        .collect();
    let user_engines = user.remove("engine");
    merge_tables(&mut table, user);
    match user_engines {
        Some(toml::Value::Array(items)) => {
            for (u, item) in items.into_iter().enumerate() {
                let name = item.get("name").and_then(|n| n.as_str());
                let target = name.and_then(|name| {
                    base_engines.iter().enumerate().position(|(i, e)| {
                        engines[i].user.is_none()
                            && e.get("name").and_then(|n| n.as_str()) == Some(name)
                    })
                });
                match (target, item) {
                    (Some(i), toml::Value::Table(over)) => {
                        if let toml::Value::Table(t) = &mut base_engines[i] {
                            merge_tables(t, over);
                        }
                        engines[i].user = Some(u);
                    }
                    (_, item) => {
                        base_engines.push(item);
                        engines.push(EngineOrigin {
                            built_in: None,
                            user: Some(u),
                        });
                    }
                }
            }
        }
        // Not a list of tables: left for deserialising to refuse, at the
        // user's line.
        Some(other) => {
            table.insert("engine".into(), other);
            return Layered {
                table,
                engines: Vec::new(),
            };
        }
        None => {}
    }
    if !base_engines.is_empty() {
        table.insert("engine".into(), toml::Value::Array(base_engines));
    }
    Layered { table, engines }
}

/// Deep merge: tables key by key, anything else replaced.
fn merge_tables(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// One `${NAME}` a header value needs and the environment lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnsetVar(pub(crate) String);

/// `value` with every `${NAME}` replaced by the variable's value (`NAME`:
/// ASCII letters, digits and `_`, not starting with a digit); any other `$`
/// is kept as written. The first unset variable is the error.
pub(crate) fn expand_vars(
    value: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, UnsetVar> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..start]);
        if valid {
            out.push_str(&env(name).ok_or_else(|| UnsetVar(name.to_string()))?);
        } else {
            out.push_str(&rest[start..start + 3 + end]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn nested_tables_merge_key_by_key_and_lists_are_replaced() {
        let base = table(
            "[server]\na = 1\nb = 2\n[[engine]]\nname = \"x\"\nkind = \"html\"\ncategories = [\"general\"]\n[engine.parse]\nresults = \"r\"\ntitle = \"t\"\n",
        );
        let user = table(
            "[server]\nb = 3\n[[engine]]\nname = \"x\"\ncategories = [\"news\"]\n[engine.parse]\ntitle = \"h2\"\n[[engine]]\nname = \"y\"\n",
        );
        let layered = lay_over(base, user);
        let merged = toml::Value::Table(layered.table);
        assert_eq!(merged["server"]["a"].as_integer(), Some(1));
        assert_eq!(merged["server"]["b"].as_integer(), Some(3));
        let x = &merged["engine"][0];
        assert_eq!(x["kind"].as_str(), Some("html"));
        assert_eq!(x["categories"].as_array().unwrap().len(), 1);
        assert_eq!(x["categories"][0].as_str(), Some("news"));
        assert_eq!(x["parse"]["results"].as_str(), Some("r"));
        assert_eq!(x["parse"]["title"].as_str(), Some("h2"));
        assert_eq!(merged["engine"][1]["name"].as_str(), Some("y"));
        assert_eq!(
            layered.engines,
            vec![
                EngineOrigin {
                    built_in: Some(0),
                    user: Some(0)
                },
                EngineOrigin {
                    built_in: None,
                    user: Some(1)
                }
            ]
        );
    }

    #[test]
    fn a_second_table_of_a_built_in_name_is_appended_not_merged() {
        let base = table("[[engine]]\nname = \"x\"\nweight = 1.0\n");
        let user = table(
            "[[engine]]\nname = \"x\"\nweight = 2.0\n[[engine]]\nname = \"x\"\nweight = 3.0\n",
        );
        let layered = lay_over(base, user);
        let engines = layered.table["engine"].as_array().unwrap();
        assert_eq!(engines.len(), 2);
        assert_eq!(engines[0]["weight"].as_float(), Some(2.0));
        assert_eq!(engines[1]["weight"].as_float(), Some(3.0));
    }

    /// The built-in `[dedup]` is the dedup library's `Settings::default()`
    /// (it sets no key), and the commented lines that show its values to
    /// whoever edits the file say what that default is.
    #[test]
    fn the_built_in_dedup_table_shows_the_library_defaults() {
        let built_in: toml::Table = toml::from_str(BUILT_IN).unwrap();
        let dedup = built_in["dedup"].as_table().expect("a [dedup] table");
        assert!(
            dedup.is_empty(),
            "[dedup] sets {dedup:?}: write defaults once"
        );
        let section = BUILT_IN
            .split("\n[dedup]\n")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .expect("a [dedup] section");
        let shown: String = section
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| {
                l.split_once(" = ").is_some_and(|(key, _)| {
                    !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                })
            })
            .map(|l| format!("{}\n", l.split(" #").next().unwrap_or(l).trim_end()))
            .collect();
        let shown: metasift_dedup::Settings = toml::from_str(&shown)
            .unwrap_or_else(|e| panic!("the shown [dedup] values do not read: {e}\n{shown}"));
        assert_eq!(shown, metasift_dedup::Settings::default());
        let every_key = toml::to_string(&metasift_dedup::Settings::default()).unwrap();
        for key in every_key.lines().filter_map(|l| l.split(" = ").next()) {
            assert!(
                section.contains(&format!("# {key} = ")),
                "engines.toml [dedup] does not show {key}"
            );
        }
    }

    #[test]
    fn variables_expand_and_an_unset_one_is_named() {
        let env = |name: &str| (name == "KEY").then(|| "s3cret".to_string());
        assert_eq!(expand_vars("${KEY}", &env).unwrap(), "s3cret");
        assert_eq!(
            expand_vars("Bearer ${KEY}; $x ${1A} ${", &env).unwrap(),
            "Bearer s3cret; $x ${1A} ${"
        );
        assert_eq!(expand_vars("plain", &env).unwrap(), "plain");
        assert_eq!(
            expand_vars("${KEY}-${MISSING}", &env).unwrap_err(),
            UnsetVar("MISSING".into())
        );
    }

    #[test]
    fn lookup_order_is_flag_env_workdir_user_system_built_in() {
        let dir = std::env::temp_dir().join(format!("metasift-lookup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (cwd, xdg, home) = (dir.join("cwd"), dir.join("xdg"), dir.join("home"));
        let system = dir.join("etc/engines.toml");
        for d in [
            &cwd,
            &xdg.join("metasift"),
            &home.join(".config/metasift"),
            &dir.join("etc"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let env: Vec<(&str, OsString)> = vec![
            ("METASIFT_CONFIG", "from-env.toml".into()),
            ("XDG_CONFIG_HOME", xdg.clone().into()),
            ("HOME", home.clone().into()),
        ];
        let locate = |explicit: Option<&Path>, unset: &[&str]| {
            let get = |name: &str| {
                env.iter()
                    .find(|(k, _)| *k == name && !unset.contains(k))
                    .map(|(_, v)| v.clone())
            };
            ConfigSource::locate_with(explicit, &get, &cwd, &system).file
        };
        // Nothing on disk: --config and METASIFT_CONFIG still win (a file
        // named explicitly must exist: loading it says so), then built-in.
        let flag = Some(Path::new("flag.toml"));
        assert_eq!(
            locate(flag, &[]),
            Some(("flag.toml".into(), ConfigOrigin::Flag))
        );
        assert_eq!(
            locate(None, &[]),
            Some(("from-env.toml".into(), ConfigOrigin::Env))
        );
        assert_eq!(locate(None, &["METASIFT_CONFIG"]), None);
        // Each file, from the last in the order to the first.
        let put = |p: &Path| std::fs::write(p, "").unwrap();
        put(&system);
        assert_eq!(
            locate(None, &["METASIFT_CONFIG"]),
            Some((system.clone(), ConfigOrigin::System))
        );
        let in_home = home.join(".config/metasift/engines.toml");
        put(&in_home);
        assert_eq!(
            locate(None, &["METASIFT_CONFIG", "XDG_CONFIG_HOME"]),
            Some((in_home.clone(), ConfigOrigin::UserConfig)),
            "~/.config when XDG_CONFIG_HOME is unset"
        );
        // XDG_CONFIG_HOME names a folder without the file: ~/.config is not
        // looked at (XDG_CONFIG_HOME replaces it), /etc is next.
        assert_eq!(
            locate(None, &["METASIFT_CONFIG"]),
            Some((system.clone(), ConfigOrigin::System))
        );
        let in_xdg = xdg.join("metasift/engines.toml");
        put(&in_xdg);
        assert_eq!(
            locate(None, &["METASIFT_CONFIG"]),
            Some((in_xdg, ConfigOrigin::UserConfig))
        );
        let here = cwd.join("engines.toml");
        put(&here);
        assert_eq!(
            locate(None, &["METASIFT_CONFIG"]),
            Some((here, ConfigOrigin::WorkDir))
        );
        assert_eq!(
            locate(None, &[]),
            Some(("from-env.toml".into(), ConfigOrigin::Env))
        );
        assert_eq!(
            locate(flag, &[]),
            Some(("flag.toml".into(), ConfigOrigin::Flag))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
