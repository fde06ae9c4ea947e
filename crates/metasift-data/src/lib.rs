//! Where the team's real data lies.
//!
//! Real data no one on the team wrote (saved engine pages, saved API answers,
//! labeled pairs, corpora) never enters the repository. It lives in the team's
//! data folder: `METASIFT_DATA=DIR` when set, else `../shared/data` beside the
//! checkout. This crate is the one place that names it; tests, benches, tools
//! and the lab ask [`root`] or [`file`].
//!
//! Where the folder is absent, tests that need it report themselves ignored,
//! naming [`ENV`]; under `METASIFT_REQUIRE_SERVICES=1` (CI) its absence is a
//! failure ([`required`]).

#![warn(missing_docs, unreachable_pub)]

use std::path::{Path, PathBuf};

pub mod generated;

/// The environment variable that names the data folder.
pub const ENV: &str = "METASIFT_DATA";

/// Why a real-data case did not run, for an ignore message.
pub const ABSENT: &str =
    "real data absent: set METASIFT_DATA=DIR (or put the team's data in ../shared/data)";

/// The data folder beside the checkout this crate was built from.
fn beside_checkout() -> PathBuf {
    // crates/metasift-data -> the workspace root -> its parent.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// The data folder, if it exists: `METASIFT_DATA` when set (and not empty),
/// else `../shared/data` beside the checkout. `None` when that folder is not
/// there. A `METASIFT_DATA` that names a missing folder is `None` too, never
/// a silent fall back to the other place.
pub fn root() -> Option<PathBuf> {
    let dir = match std::env::var_os(ENV) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => beside_checkout(),
    };
    if dir.is_dir() {
        Some(std::fs::canonicalize(&dir).unwrap_or(dir))
    } else {
        None
    }
}

/// `root()/rel`, if the data folder is there and holds that path.
pub fn file(rel: impl AsRef<Path>) -> Option<PathBuf> {
    let p = root()?.join(rel);
    p.exists().then_some(p)
}

/// Whether the run requires every outside service and data set
/// (`METASIFT_REQUIRE_SERVICES=1`, as CI sets it).
pub fn required() -> bool {
    std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

/// Every file of the team's data folder, by its path under the folder
/// (`serp/bing/sep2021_hello.html`), one a line: the names only, so that a
/// clone without the folder still names each real-data case it cannot run.
/// [`unlisted`] tells when the folder and this list part.
pub const FILES: &str = include_str!("../files.txt");

/// The files of [`FILES`] under `dir` (`"serp/"`, `"corpus/ag_news_en/"`),
/// in the list's order (sorted).
pub fn listed(dir: &str) -> impl Iterator<Item = &'static str> + '_ {
    FILES
        .lines()
        .filter(move |f| !f.is_empty() && f.starts_with(dir))
}

/// What the data folder `root` and [`FILES`] disagree on: listed files
/// missing from the folder, then files in the folder the list lacks (both
/// as paths under the folder, sorted). Empty when they agree.
pub fn unlisted(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    // Bounded: a folder of the team's data has hundreds of files, not
    // millions; a link loop stops at the bound.
    let mut budget = 100_000usize;
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                break;
            }
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(rel) = path.strip_prefix(root) {
                found.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    let listed: Vec<&str> = listed("").collect();
    let mut out: Vec<String> = listed
        .iter()
        .filter(|f| found.binary_search_by(|x| x.as_str().cmp(f)).is_err())
        .map(|f| format!("missing from the folder: {f}"))
        .collect();
    out.extend(
        found
            .iter()
            .filter(|f| listed.binary_search(&f.as_str()).is_err())
            .map(|f| format!("not in crates/metasift-data/files.txt: {f}")),
    );
    out
}

/// The data folder for a test: `Some(dir)` when present; `None` (and a loud
/// line on stderr) when absent; a panic naming [`ENV`] when absent under
/// `METASIFT_REQUIRE_SERVICES=1`.
pub fn for_test(what: &str) -> Option<PathBuf> {
    match root() {
        Some(dir) => Some(dir),
        None if required() => {
            panic!("{what}: {ABSENT}, and METASIFT_REQUIRE_SERVICES=1 requires it")
        }
        None => {
            eprintln!("SKIPPED {what}: {ABSENT}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_relative_and_unique() {
        let all: Vec<&str> = listed("").collect();
        assert!(all.len() > 100, "{} files", all.len());
        assert!(all.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        assert!(all.iter().all(|f| !f.starts_with('/') && !f.contains("..")));
        assert!(listed("serp/").all(|f| f.starts_with("serp/")));
        assert!(listed("serp/").any(|f| f == "serp/index.json"));
    }

    #[test]
    fn a_folder_is_compared_with_the_list() {
        let dir = std::env::temp_dir().join(format!("metasift-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("serp")).unwrap();
        std::fs::write(dir.join("serp/index.json"), "[]").unwrap();
        std::fs::write(dir.join("serp/new.html"), "").unwrap();
        let diff = unlisted(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(diff.contains(&"not in crates/metasift-data/files.txt: serp/new.html".into()));
        assert!(!diff.iter().any(|d| d.ends_with(" serp/index.json")));
        assert!(
            diff.iter()
                .any(|d| d == "missing from the folder: corpus/SOURCES.md")
        );
    }

    #[test]
    fn a_missing_folder_is_none_not_a_fallback() {
        // The variable is set in a child run of this test, never in this
        // process (set_var is unsafe while other test threads run).
        let exe = std::env::current_exe().unwrap();
        if std::env::var_os("METASIFT_DATA_CHILD").is_some() {
            assert_eq!(root(), None);
            assert_eq!(file("serp"), None);
            return;
        }
        let out = std::process::Command::new(exe)
            .args(["--exact", "tests::a_missing_folder_is_none_not_a_fallback"])
            .env("METASIFT_DATA_CHILD", "1")
            .env(ENV, "/nonexistent/metasift-data")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
