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
    fn a_missing_folder_is_none_not_a_fallback() {
        // Only this test in this crate touches the variable.
        // SAFETY-free: set_var is unsafe in edition 2024; use a child process
        // instead of mutating our own environment.
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
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    }
}
