//! The offline demo built into the binary, for `metasift serve --demo`:
//! `examples/offline.toml` and the recordings of `examples/demo/` (result
//! pages the team wrote in each engine's markup; see that folder's README).
//!
//! The replay reads a folder, so [`write_out`] writes the embedded files
//! into one — under the user's cache folder, named for their content — and
//! the server then runs exactly as `--config examples/offline.toml` does in
//! a checkout. Files already there are compared with the embedded ones and
//! written again when they differ, so a stale or altered copy never serves.

use std::path::{Path, PathBuf};

mod files;

/// `examples/offline.toml`, whose engines replay from `demo/` beside it.
pub const CONFIG: &str = include_str!("../../examples/offline.toml");

/// The recordings: (path under `examples/demo/`, content).
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    files::FILES
}

/// Where the demo is written out when no folder is named: the user's cache
/// folder (`$XDG_CACHE_HOME`, else `~/.cache`), else the temporary folder.
pub fn default_base() -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir)
        .join("metasift")
}

/// Writes the demo into a folder of `base` named for its content (what is
/// there already and equal is left alone) and returns its `offline.toml`.
pub fn write_out(base: &Path) -> std::io::Result<PathBuf> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(CONFIG.as_bytes());
    for (path, bytes) in files() {
        hasher.update(path.as_bytes());
        hasher.update(&[0]);
        hasher.update(bytes);
    }
    let dir = base.join(format!("demo-{:016x}", hasher.digest()));
    let put = |rel: &Path, bytes: &[u8]| -> std::io::Result<()> {
        let path = dir.join(rel);
        if std::fs::read(&path).is_ok_and(|old| old == bytes) {
            return Ok(());
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        // Written beside, then renamed: a second server starting at the
        // same time never reads half a file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)
    };
    for (rel, bytes) in files() {
        put(&Path::new("demo").join(rel), bytes)?;
    }
    put(Path::new("offline.toml"), CONFIG.as_bytes())?;
    Ok(dir.join("offline.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_out_once_and_repaired_when_altered() {
        let base = std::env::temp_dir().join(format!("metasift-demo-test-{}", std::process::id()));
        let config = write_out(&base).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), CONFIG);
        let (rel, bytes) = files()[0];
        let file = config.parent().unwrap().join("demo").join(rel);
        assert_eq!(std::fs::read(&file).unwrap(), bytes);
        std::fs::write(&file, b"altered").unwrap();
        assert_eq!(write_out(&base).unwrap(), config);
        assert_eq!(std::fs::read(&file).unwrap(), bytes);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
