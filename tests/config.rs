//! `engines.toml` validation: the shipped file loads, and every bad file of
//! `tests/data/bad_configs.toml` is refused with the right line and message.

#[path = "support/bad_configs.rs"]
mod bad_configs;

use std::path::{Path, PathBuf};

use metasift::config::{Config, ConfigError};
use metasift::engines;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_shipped_engines_toml_loads() {
    let path = crate_dir().join("engines.toml");
    let source = metasift::config::ConfigSource::file(&path);
    let config = metasift::config::load(&source, &engines::check).unwrap_or_else(|errors| {
        let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("engines.toml is refused:\n{}", all.join("\n"))
    });
    assert!(!config.engines.is_empty());
    assert!(config.engines.iter().any(|e| e.enabled));
}

#[test]
fn an_empty_file_is_all_defaults() {
    let config = Config::parse("", Path::new("empty.toml")).unwrap();
    assert_eq!(config.server.bind, "127.0.0.1:8888");
    assert_eq!(config.server.deadline_ms, 3000);
    assert_eq!(config.server.results_per_page, 20);
    assert_eq!(config.server.max_page_size(), 50);
    // A file from before the cap existed, with pages larger than its
    // default, still loads: the cap is then the page size.
    let big = Config::parse("[server]\nresults_per_page = 100\n", Path::new("big.toml")).unwrap();
    assert_eq!(big.server.max_page_size(), 100);
    assert_eq!(big.server.page_size(Some(500)), 100);
    assert_eq!(big.server.page_size(Some(0)), 1);
    assert_eq!(config.server.max_body_bytes, 4 * 1024 * 1024);
    assert!(config.engines.is_empty());
}

#[test]
fn bad_files_are_refused_with_file_line_and_key() {
    let cases = bad_configs::cases();
    assert!(cases.len() >= 30);
    let mut failures = Vec::new();
    for case in &cases {
        let path = Path::new("bad.toml");
        // Every problem is reported: the one the case names must be among
        // them (a file may have others, e.g. `titel` is also a missing
        // `title`).
        let found = |errors: Vec<ConfigError>| {
            let at = errors.iter().position(|e| {
                matches!(e, ConfigError::Invalid { line, message, .. }
                    if *line == case.line && message.contains(&case.message))
            });
            let mut errors = errors;
            errors.swap_remove(at.unwrap_or(0))
        };
        match engines::check_config(&case.text, path).map_err(found) {
            Ok(_) => failures.push(format!("{}: accepted", case.name)),
            Err(ConfigError::Invalid {
                path: p,
                line,
                message,
                ..
            }) => {
                let shown = format!("{}:{line}: {message}", p.display());
                if p != path || line != case.line || !message.contains(&case.message) {
                    failures.push(format!(
                        "{}: got {shown:?}, want line {} containing {:?}",
                        case.name, case.line, case.message
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: unexpected error {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A file with many problems of every sort (unknown keys and tables, type
/// errors, bad values, an engine its builder refuses) has them all reported
/// in one run, each at its own line (issue #25).
#[test]
fn every_problem_of_a_file_is_reported_in_one_run() {
    let cases: Vec<_> = bad_configs::cases()
        .into_iter()
        .filter(|c| !c.more.is_empty())
        .collect();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in &cases {
        let errors = engines::check_config(&case.text, Path::new("bad.toml"))
            .err()
            .unwrap_or_default();
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        if let Err(e) = bad_configs::reports_every_problem(case, "bad.toml", &shown) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_problem_is_reported_in_line_order() {
    let text = "[server]\ndeadline_ms = 0\n\n[[engine]]\nname = \"a\"\nkind = \"feed\"\nurl = \"https://a.example/?q={query}\"\nweight = 0.0\ntimeout_ms = 0\n";
    let errors = Config::check(text, Path::new("many.toml")).unwrap_err();
    let lines: Vec<usize> = errors
        .iter()
        .map(|e| match e {
            ConfigError::Invalid { line, .. } => *line,
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(lines, vec![2, 8, 9]);
    assert!(
        errors[0]
            .to_string()
            .starts_with("many.toml:2:1: server.deadline_ms")
    );
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let err = Config::load(Path::new("/nonexistent/engines.toml")).unwrap_err();
    assert!(matches!(err, ConfigError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/engines.toml"));
}
