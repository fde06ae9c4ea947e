//! A user's `engines.toml` laid over the built-in defaults (issue #15): what
//! merges, what is added, `use_defaults = false`, errors that still name the
//! user's file and line, `${VAR}` in header values and the environment
//! overrides. The lookup order and the binary alone are in
//! `tests/install.rs`.

#[path = "support/bad_configs.rs"]
mod bad_configs;

use std::path::{Path, PathBuf};

use metasift::config::{BUILT_IN, CacheBackend, Config, ConfigError, ConfigSource};
use metasift::engines;

fn no_env(_: &str) -> Option<String> {
    None
}

fn layered(text: &str) -> Config {
    engines::check_config_layered(text, Path::new("user.toml"), &no_env).unwrap_or_else(|e| {
        let all: Vec<String> = e.iter().map(ToString::to_string).collect();
        panic!("refused:\n{}", all.join("\n"))
    })
}

fn built_in() -> Config {
    metasift::config::load(&ConfigSource::built_in(), &engines::check)
        .expect("the built-in defaults load")
}

fn engine<'a>(config: &'a Config, name: &str) -> &'a metasift::config::EngineConfig {
    config
        .engines
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no engine {name}"))
}

#[test]
fn the_built_in_defaults_are_the_shipped_file() {
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/engines.toml"));
    assert_eq!(BUILT_IN, shipped.unwrap());
    let defaults = built_in();
    assert!(defaults.engines.len() >= 12);
    assert_eq!(defaults.use_defaults, None);
}

#[test]
fn a_file_with_one_server_key_keeps_every_built_in_engine() {
    let defaults = built_in();
    let config = layered("[server]\nresults_per_page = 7\n");
    assert_eq!(config.server.results_per_page, 7);
    // Everything else is the built-in value.
    assert_eq!(config.server.deadline_ms, defaults.server.deadline_ms);
    assert_eq!(config.dedup.word_anchors, defaults.dedup.word_anchors);
    let names = |c: &Config| c.engines.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&config), names(&defaults));
    assert_eq!(
        serde_json::to_value(&config.engines).unwrap(),
        serde_json::to_value(&defaults.engines).unwrap()
    );
}

#[test]
fn an_engine_with_a_built_in_name_changes_only_the_keys_it_sets() {
    let defaults = built_in();
    let before = engine(&defaults, "bing");
    let config =
        layered("[[engine]]\nname = \"bing\"\nweight = 2.5\n[engine.parse]\ntitle = \"h3\"\n");
    let after = engine(&config, "bing");
    assert_eq!(after.weight, 2.5);
    assert_eq!(after.parse.title.as_deref(), Some("h3"));
    // The keys it does not set, nested [engine.parse] ones too, stay.
    assert_eq!(after.url, before.url);
    assert_eq!(after.kind, before.kind);
    assert_eq!(after.shortcut, before.shortcut);
    assert_eq!(after.parse.results, before.parse.results);
    assert_eq!(after.parse.snippet, before.parse.snippet);
    assert_eq!(after.parse.blocked, before.parse.blocked);
    // Same place, same count.
    assert_eq!(config.engines.len(), defaults.engines.len());
    let pos = |c: &Config| c.engines.iter().position(|e| e.name == "bing");
    assert_eq!(pos(&config), pos(&defaults));
}

#[test]
fn a_built_in_engine_is_turned_off_and_a_new_one_added() {
    let defaults = built_in();
    let config = layered(
        "[[engine]]\nname = \"duckduckgo\"\nenabled = false\n\n[[engine]]\nname = \"mine\"\nkind = \"feed\"\nurl = \"https://feeds.example/?q={query}\"\nshortcut = \"mn\"\n",
    );
    assert!(!engine(&config, "duckduckgo").enabled);
    assert_eq!(config.engines.len(), defaults.engines.len() + 1);
    assert_eq!(config.engines.last().unwrap().name, "mine");
}

#[test]
fn use_defaults_false_starts_from_nothing() {
    let config = layered(
        "use_defaults = false\n[[engine]]\nname = \"mine\"\nkind = \"feed\"\nurl = \"https://feeds.example/?q={query}\"\n",
    );
    assert_eq!(config.engines.len(), 1);
    assert_eq!(config.use_defaults, Some(false));
    // Absent tables are the code's defaults, not the shipped file's.
    assert_eq!(
        config.dedup.word_anchors,
        Config::default().dedup.word_anchors
    );
    let err =
        engines::check_config_layered("use_defaults = \"no\"\n", Path::new("u.toml"), &no_env)
            .unwrap_err();
    assert!(
        err[0].to_string().starts_with("u.toml:1:1: use_defaults"),
        "{}",
        err[0]
    );
}

/// Every bad file of `tests/data/bad_configs.toml`, laid over the built-in
/// defaults, is refused at the same line of the user's file with the same
/// message as when read alone: the merge happens on TOML values, and the
/// keys found wrong in the merged document are traced back to the layer
/// that wrote them. The cases about a file with no (enabled) engine are the
/// exceptions: laid over the defaults they have the built-in engines, and
/// are accepted — that is what layering is for.
#[test]
fn layered_errors_still_name_the_users_file_line_and_key() {
    let cases = bad_configs::cases();
    // Good once the built-in engines are under them.
    const GOOD_LAYERED: [&str; 4] = [
        "an empty file serves nothing",
        "a file of settings and no engine",
        "every engine disabled",
        // `autocomplete = "duckduckgo"`: a built-in engine.
        "autocomplete names no engine",
    ];
    let mut failures = Vec::new();
    for case in &cases {
        let path = Path::new("bad.toml");
        // Every problem is reported: the one the case names must be among them.
        let unnumbered = |m: &str| match m.find(" #") {
            Some(i) => m[..i].to_string(),
            None => m.to_string(),
        };
        let found = |mut errors: Vec<ConfigError>| {
            let at = errors.iter().position(|e| {
                matches!(e, ConfigError::Invalid { line, message, .. }
                    if *line == case.line
                        && unnumbered(message).contains(&unnumbered(&case.message)))
            });
            errors.swap_remove(at.unwrap_or(0))
        };
        let result = engines::check_config_layered(&case.text, path, &no_env).map_err(found);
        if GOOD_LAYERED.contains(&case.name.as_str()) {
            if let Err(e) = result {
                failures.push(format!(
                    "{}: refused laid over the defaults: {e}",
                    case.name
                ));
            }
            continue;
        }
        match result {
            Ok(_) => failures.push(format!("{}: accepted", case.name)),
            Err(ConfigError::Invalid {
                path: p,
                line,
                message,
                ..
            }) => {
                // "engine #N" counts the merged engines (the built-in ones
                // first): the number differs, the line is the user's.
                let unnumbered = |m: &str| match m.find(" #") {
                    Some(i) => m[..i].to_string(),
                    None => m.to_string(),
                };
                if p != path
                    || line != case.line
                    || !unnumbered(&message).contains(&unnumbered(&case.message))
                {
                    failures.push(format!(
                        "{}: got {}:{line}: {message:?}, want line {} containing {:?}",
                        case.name,
                        p.display(),
                        case.line,
                        case.message
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: unexpected error {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Laid over the built-in defaults, a file with many problems still has
/// them all reported in one run, each at its own line of the user's file —
/// never at a line of the built-in one (issue #25).
#[test]
fn every_problem_of_a_layered_file_is_reported_at_the_users_lines() {
    let cases: Vec<_> = bad_configs::cases()
        .into_iter()
        .filter(|c| !c.more.is_empty())
        .collect();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in &cases {
        let errors = engines::check_config_layered(&case.text, Path::new("u.toml"), &no_env)
            .err()
            .unwrap_or_default();
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        if let Err(e) = bad_configs::reports_every_problem(case, "u.toml", &shown) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn an_error_in_a_merged_built_in_engine_points_at_the_users_key() {
    let text = "[server]\nresults_per_page = 7\n\n[[engine]]\nname = \"bing\"\nweight = -1.0\n[engine.parse]\nresults = \"[[[\"\n";
    let errors = engines::check_config_layered(text, Path::new("u.toml"), &no_env).unwrap_err();
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        shown[0].starts_with("u.toml:6:1: engine.weight"),
        "{shown:?}"
    );
    // An unknown key in a merged engine: the user's line, not the merged text's.
    let text = "\n\n[[engine]]\nname = \"wikipedia\"\ntimeout = 3\n";
    let errors = engines::check_config_layered(text, Path::new("u.toml"), &no_env).unwrap_err();
    assert!(
        errors[0].to_string().starts_with("u.toml:5:1:")
            && errors[0].to_string().contains("timeout"),
        "{}",
        errors[0]
    );
}

const NEEDS_KEY: &str = "[[engine]]\nname = \"brave_api\"\nenabled = true\n";

#[test]
fn an_unset_variable_in_a_header_of_an_enabled_engine_is_refused_naming_all() {
    let errors =
        engines::check_config_layered(NEEDS_KEY, Path::new("u.toml"), &no_env).unwrap_err();
    let shown = errors[0].to_string();
    // The header is written in the built-in defaults: they are named.
    for part in [
        "brave_api",
        "X-Subscription-Token",
        "BRAVE_API_KEY",
        "not set",
    ] {
        assert!(shown.contains(part), "{shown}");
    }
    // Set, it is filled in.
    let env = |name: &str| (name == "BRAVE_API_KEY").then(|| "k-123".to_string());
    let config = engines::check_config_layered(NEEDS_KEY, Path::new("u.toml"), &env).unwrap();
    let brave = engine(&config, "brave_api");
    assert_eq!(brave.headers["X-Subscription-Token"], "k-123");
    assert_eq!(brave.unset_env, None);
    // A header the user writes is pointed at in the user's file.
    let text = "[[engine]]\nname = \"mine\"\nkind = \"feed\"\nurl = \"https://f.example/?q={query}\"\nheaders = { Authorization = \"Bearer ${MINE_TOKEN}\" }\n";
    let errors = engines::check_config_layered(text, Path::new("u.toml"), &no_env).unwrap_err();
    let shown = errors[0].to_string();
    assert!(shown.starts_with("u.toml:5:1:"), "{shown}");
    assert!(
        shown.contains("MINE_TOKEN") && shown.contains("Authorization"),
        "{shown}"
    );
}

#[test]
fn a_disabled_engine_needing_an_unset_variable_is_kept_but_never_sent() {
    // The shipped brave_api preset needs BRAVE_API_KEY and is disabled: the
    // defaults load without the variable.
    let config = layered("");
    let brave = engine(&config, "brave_api");
    assert!(!brave.enabled);
    assert_eq!(brave.headers["X-Subscription-Token"], "${BRAVE_API_KEY}");
    assert!(
        brave
            .unset_env
            .as_deref()
            .is_some_and(|m| m.contains("BRAVE_API_KEY")),
        "{:?}",
        brave.unset_env
    );
}

#[test]
fn environment_overrides_the_bind_address_and_the_redis_url() {
    let mut config = layered("");
    assert_eq!(config.cache.backend, CacheBackend::Memory);
    let env = |name: &str| match name {
        "METASIFT_REDIS_URL" => Some("redis://:pw@10.0.0.5:6380/2".to_string()),
        "METASIFT_BIND" => Some(" 0.0.0.0:9000 ".to_string()),
        _ => None,
    };
    config.apply_env_from(&env);
    assert_eq!(config.cache.backend, CacheBackend::Redis);
    assert_eq!(config.cache.url, "redis://:pw@10.0.0.5:6380/2");
    assert_eq!(config.server.bind, "0.0.0.0:9000");
    // Empty values are ignored.
    let mut config = layered("");
    config.apply_env_from(&|_| Some(String::new()));
    assert_eq!(config.cache.backend, CacheBackend::Memory);
}

#[test]
fn the_printed_merge_keeps_placeholders_and_loads_back_to_the_same() {
    let dir = std::env::temp_dir().join(format!("metasift-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("user.toml");
    std::fs::write(
        &file,
        "[server]\nresults_per_page = 7\n[[engine]]\nname = \"bing\"\nweight = 2.5\n",
    )
    .unwrap();
    let merged = Config::layered_toml(&ConfigSource::file(&file)).unwrap();
    assert!(merged.contains("results_per_page = 7"));
    assert!(merged.contains("${BRAVE_API_KEY}"));
    // The printed merge, read alone, is the same configuration.
    let again = engines::check_config_layered(
        &format!("use_defaults = false\n{merged}"),
        Path::new("merged.toml"),
        &no_env,
    )
    .unwrap();
    let layered = metasift::config::load(&ConfigSource::file(&file), &engines::check).unwrap();
    assert_eq!(
        serde_json::to_value(&again.engines).unwrap(),
        serde_json::to_value(&layered.engines).unwrap()
    );
    assert_eq!(again.server.results_per_page, 7);
    let _ = std::fs::remove_dir_all(&dir);
}
