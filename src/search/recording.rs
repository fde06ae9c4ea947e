//! Recordings of engine answers: save every raw answer, answer again from it.
//!
//! A recording is a folder with one JSON file per engine, query and page:
//!
//! ```text
//! DIR/<engine>/<slug>-p<page>-<hash>.json
//! ```
//!
//! `<slug>` is a readable, file-system-safe form of the query text, `<hash>` 16
//! hex digits of the xxh3 hash of (query text, page, language), so the name is a
//! pure function of the query and a replay finds its file without an index.
//! Each file is one [`Recording`]:
//!
//! ```json
//! {
//!   "format": "metasift-recording/1",
//!   "engine": "bing",
//!   "query": {"text": "hello", "page": 1, "lang": null},
//!   "request": {"method": "GET", "url": "https://…", "headers": [["accept-language", "en"]]},
//!   "response": {"status": 200, "headers": [["content-type", "text/html; charset=utf-8"]],
//!                "elapsed_ms": 412, "body": "<!doctype html>…"},
//!   "recorded_at": "Sun, 22 Nov 2026 21:30:00 GMT",
//!   "source": null
//! }
//! ```
//!
//! The body is kept byte for byte: as `body` when it is UTF-8, otherwise as
//! `body_base64` (a GBK page stays GBK, so replay goes through the same charset
//! decoding as the live answer). `source` names where an imported page came
//! from. Replay reads the file and hands status, headers and body to the same
//! parser as a live answer, so a whole search runs again offline, bit for bit.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::model::Query;

/// The `format` value of this version of the file layout.
pub const FORMAT: &str = "metasift-recording/1";

/// Errors of reading or writing recordings.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// No recording exists for this engine and query.
    #[error("no recording for engine {engine:?} and query {query:?} (page {page}) in {dir}")]
    Missing {
        /// The recording folder.
        dir: PathBuf,
        /// Engine name.
        engine: String,
        /// Query text.
        query: String,
        /// Page.
        page: u32,
    },
    /// A recording folder named on the command line does not exist.
    #[error("no such folder: {}", dir.display())]
    NoFolder {
        /// The folder.
        dir: PathBuf,
    },
    /// A file is not a recording of this format.
    #[error("{path}: not a metasift recording: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl RecordingError {
    /// What a search's client may be told: no server path (the full error,
    /// with its path, goes to the log).
    pub fn public_reason(&self) -> String {
        match self {
            RecordingError::Io { source, .. } => {
                format!("the recording could not be read ({})", source.kind())
            }
            RecordingError::Missing { query, page, .. } => {
                format!("no recording of the query {query:?} (page {page})")
            }
            RecordingError::Invalid { .. } => "the recording is not a metasift recording".into(),
            RecordingError::NoFolder { .. } => "the recording folder does not exist".into(),
        }
    }
}

/// The query part of a recording: what the file is looked up by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedQuery {
    /// Query text (without `!shortcuts`).
    pub text: String,
    /// 1-based page.
    pub page: u32,
    /// Language, when one was asked for.
    pub lang: Option<String>,
}

impl From<&Query> for RecordedQuery {
    fn from(q: &Query) -> Self {
        RecordedQuery {
            text: q.text.clone(),
            page: q.page.max(1),
            lang: q.lang.clone(),
        }
    }
}

/// The request that was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Absolute URL.
    pub url: String,
    /// Headers metasift added (name, value).
    pub headers: Vec<(String, String)>,
}

/// The answer, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedResponse {
    /// HTTP status.
    pub status: u16,
    /// Response headers (name, value), in the order received.
    pub headers: Vec<(String, String)>,
    /// Milliseconds from sending the request to the end of the body.
    pub elapsed_ms: u64,
    /// The body when it is valid UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The body in standard base64 when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<String>,
}

impl RecordedResponse {
    /// A response holding `body` in whichever field keeps it exact.
    pub fn new(status: u16, headers: Vec<(String, String)>, elapsed_ms: u64, body: &[u8]) -> Self {
        let (body, body_base64) = match std::str::from_utf8(body) {
            Ok(text) => (Some(text.to_string()), None),
            Err(_) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(body)),
            ),
        };
        RecordedResponse {
            status,
            headers,
            elapsed_ms,
            body,
            body_base64,
        }
    }

    /// The body's bytes exactly as received.
    pub fn body_bytes(&self) -> Result<Vec<u8>, String> {
        match (&self.body, &self.body_base64) {
            (Some(text), _) => Ok(text.as_bytes().to_vec()),
            (None, Some(b64)) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| format!("body_base64: {e}")),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// The first header of this name (case-insensitive).
    #[cfg(test)]
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One engine's answer to one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    /// Always [`FORMAT`].
    pub format: String,
    /// Engine name in `engines.toml`.
    pub engine: String,
    /// The query it answered.
    pub query: RecordedQuery,
    /// The request made.
    pub request: RecordedRequest,
    /// The answer.
    pub response: RecordedResponse,
    /// HTTP date of the recording.
    pub recorded_at: String,
    /// Where an imported page came from (repository, path, commit), if imported.
    #[serde(default)]
    pub source: Option<String>,
}

/// The file name (relative to the recording folder) of an engine's answer to a query.
pub fn relative_path(engine: &str, query: &RecordedQuery) -> PathBuf {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(query.text.as_bytes());
    hasher.update(&[0]);
    hasher.update(&query.page.to_le_bytes());
    hasher.update(&[0]);
    hasher.update(query.lang.as_deref().unwrap_or("").as_bytes());
    let hash = hasher.digest();
    PathBuf::from(safe_component(engine)).join(format!(
        "{}-p{}-{hash:016x}.json",
        slug(&query.text),
        query.page
    ))
}

/// A short file-name-safe form of a query: letters and digits (any script), `-`
/// between words, at most 40 characters.
fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
        if out.chars().count() >= 40 {
            break;
        }
    }
    if out.is_empty() {
        out.push('q');
    }
    out
}

/// An engine name as one path component (no separators, no `..`).
fn safe_component(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

/// `--replay DIR` checked before any engine is asked: a folder that is not
/// there is one error, not one "no recording" per engine.
pub fn check_replay_dir(dir: &Path) -> Result<(), RecordingError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(RecordingError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other("not a folder"),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(RecordingError::NoFolder {
            dir: dir.to_path_buf(),
        }),
        Err(source) => Err(RecordingError::Io {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

/// `--record DIR` made ready before any engine is asked: the folder is
/// created and a file written in it and removed, so a folder that cannot
/// take the answers is said at once (a search only logs a file it could
/// not write, never failing for it).
pub fn prepare_record_dir(dir: &Path) -> Result<(), RecordingError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RecordingError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let probe = dir.join(format!(".metasift-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(io(&probe))?;
    std::fs::remove_file(&probe).map_err(io(&probe))
}

/// Whether `dir` holds `engine`'s answer to `query` (as [`Recording::save`]
/// names it).
pub fn is_recorded(dir: &Path, engine: &str, query: &Query) -> bool {
    dir.join(relative_path(engine, &RecordedQuery::from(query)))
        .is_file()
}

impl Recording {
    /// Writes the recording into `dir` at its [`relative_path`]; returns the file.
    pub(crate) fn save(&self, dir: &Path) -> Result<PathBuf, RecordingError> {
        let path = dir.join(relative_path(&self.engine, &self.query));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| RecordingError::Io { path, source }
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let json = serde_json::to_vec_pretty(self).map_err(|e| RecordingError::Invalid {
            path: path.clone(),
            message: e.to_string(),
        })?;
        // Write then rename, so a replay never reads a half-written file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// Reads one recording file.
    pub(crate) fn read(path: &Path) -> Result<Recording, RecordingError> {
        let bytes = std::fs::read(path).map_err(|source| RecordingError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let rec: Recording =
            serde_json::from_slice(&bytes).map_err(|e| RecordingError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        if rec.format != FORMAT {
            return Err(RecordingError::Invalid {
                path: path.to_path_buf(),
                message: format!("format is {:?}, expected {FORMAT:?}", rec.format),
            });
        }
        Ok(rec)
    }

    /// Finds the recording of `engine`'s answer to `query` in `dir`.
    ///
    /// `dir` may also be a folder of saved pages described by an `index.json`
    /// (the layout of `serp/` in the team's data folder): then the page saved for this
    /// engine (the index's engine folder name), query text (case-insensitive)
    /// and page is answered, preferring a `results` page over a blocked one.
    ///
    /// A query typed in another case or with a language chosen finds the
    /// recording of its lower-case form made with no language, when that
    /// is all there is: a recording answers what a searcher types, not
    /// only the exact bytes it was made with.
    pub fn lookup(dir: &Path, engine: &str, query: &Query) -> Result<Recording, RecordingError> {
        let q = RecordedQuery::from(query);
        let mut path = dir.join(relative_path(engine, &q));
        if !path.exists() {
            let plain = RecordedQuery {
                text: q.text.trim().to_lowercase(),
                page: q.page,
                lang: None,
            };
            let other = dir.join(relative_path(engine, &plain));
            if plain != q && other.exists() {
                path = other;
            }
        }
        if !path.exists() {
            if dir.join("index.json").is_file()
                && let Some(rec) = saved_page(dir, engine, &q)?
            {
                return Ok(rec);
            }
            return Err(RecordingError::Missing {
                dir: dir.to_path_buf(),
                engine: engine.to_string(),
                query: q.text,
                page: q.page,
            });
        }
        Recording::read(&path)
    }
}

/// The most recordings of one engine [`recorded_queries`] reads.
const MAX_LISTED_FILES: usize = 2_000;

/// The query texts `engine` has a first-page recording of in `dir`, sorted
/// and each once: what a replaying server can answer, said when a query it
/// cannot answer comes. Read once per folder and engine (a replay folder is
/// not written while it is replayed), at most [`MAX_LISTED_FILES`] files.
pub fn recorded_queries(dir: &Path, engine: &str) -> std::sync::Arc<Vec<String>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Listed = Mutex<HashMap<PathBuf, Arc<Vec<String>>>>;
    static LISTED: OnceLock<Listed> = OnceLock::new();
    let folder = dir.join(safe_component(engine));
    let listed = LISTED.get_or_init(Listed::default);
    if let Some(list) = listed.lock().ok().and_then(|m| m.get(&folder).cloned()) {
        return list;
    }
    #[derive(Deserialize)]
    struct Head {
        format: String,
        query: RecordedQuery,
    }
    let mut texts: Vec<String> = std::fs::read_dir(&folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("-p1-"))
        })
        .take(MAX_LISTED_FILES)
        .filter_map(|p| {
            let head: Head = serde_json::from_slice(&std::fs::read(p).ok()?).ok()?;
            (head.format == FORMAT && head.query.page == 1).then_some(head.query.text)
        })
        .collect();
    texts.sort();
    texts.dedup();
    let list = Arc::new(texts);
    if let Ok(mut m) = listed.lock() {
        m.insert(folder, list.clone());
    }
    list
}

/// One entry of a saved-pages `index.json` (the data folder's
/// `serp/index.json`; the fields import needs).
#[derive(Debug, Clone, Deserialize)]
struct IndexEntry {
    file: String,
    engine: String,
    query: String,
    kind: String,
    format: String,
    #[serde(default)]
    request_url: Option<String>,
    #[serde(default)]
    repo: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    license: Option<String>,
    #[serde(default)]
    captured: Option<String>,
}

/// What [`import_saved_pages`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Files written.
    pub written: Vec<PathBuf>,
    /// Index entries skipped, with why.
    pub skipped: Vec<(String, String)>,
}

/// Imports saved result pages described by an `index.json` (the layout of
/// `serp/` in the team's data folder) as recordings in `out`.
///
/// `engine_for` maps the index's engine folder and file name to the engine
/// name in `engines.toml` (or `None` to skip the page): saved pages are
/// usually named for the site while presets may have other names. Page numbers
/// are read from a `_p<N>` suffix of the file name; pages that are not UTF-8
/// keep their bytes.
pub fn import_saved_pages(
    index: &Path,
    out: &Path,
    engine_for: impl Fn(&str, &str) -> Option<String>,
) -> Result<ImportReport, RecordingError> {
    let mut entries = read_index(index)?;
    // Where an engine was captured both blocked and answering for the same
    // query and page, the answering page is written last and so is kept.
    entries.sort_by_key(|e| e.kind == "results");
    let base = index.parent().unwrap_or(Path::new("."));
    let mut report = ImportReport::default();
    for e in entries {
        let Some(engine) = engine_for(&e.engine, &e.file) else {
            report
                .skipped
                .push((e.file.clone(), "no engine maps to it".into()));
            continue;
        };
        match entry_recording(base, &e, engine) {
            Ok(rec) => report.written.push(rec.save(out)?),
            Err(err) => report.skipped.push((e.file.clone(), err.to_string())),
        }
    }
    Ok(report)
}

/// Reads the index of a saved-pages folder.
fn read_index(index: &Path) -> Result<Vec<IndexEntry>, RecordingError> {
    let text = std::fs::read(index).map_err(|source| RecordingError::Io {
        path: index.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&text).map_err(|e| RecordingError::Invalid {
        path: index.to_path_buf(),
        message: e.to_string(),
    })
}

/// The recording form of one saved page.
fn entry_recording(
    base: &Path,
    e: &IndexEntry,
    engine: String,
) -> Result<Recording, RecordingError> {
    let page_path = base.join(&e.file);
    let body = std::fs::read(&page_path).map_err(|source| RecordingError::Io {
        path: page_path.clone(),
        source,
    })?;
    let content_type = match e.format.as_str() {
        "json" => "application/json",
        "rss" | "xml" | "atom" => "application/xml",
        _ => "text/html",
    };
    let source = [
        e.repo.as_deref(),
        e.path.as_deref(),
        e.commit.as_deref(),
        e.license.as_deref(),
    ]
    .iter()
    .flatten()
    .copied()
    .collect::<Vec<_>>()
    .join(" ");
    Ok(Recording {
        format: FORMAT.into(),
        engine,
        query: RecordedQuery {
            text: e.query.clone(),
            page: page_from_file_name(&e.file),
            lang: None,
        },
        request: RecordedRequest {
            method: "GET".into(),
            url: e.request_url.clone().unwrap_or_default(),
            headers: Vec::new(),
        },
        response: RecordedResponse::new(
            200,
            vec![("content-type".into(), content_type.into())],
            0,
            &body,
        ),
        recorded_at: e.captured.clone().unwrap_or_default(),
        source: Some(format!("{} ({}; kind {})", e.file, source, e.kind)),
    })
}

/// The saved page of `engine` for `query` in a saved-pages folder, if any.
fn saved_page(
    dir: &Path,
    engine: &str,
    query: &RecordedQuery,
) -> Result<Option<Recording>, RecordingError> {
    let entries = read_index(&dir.join("index.json"))?;
    let wanted = query.text.trim().to_lowercase();
    let mut matching: Vec<&IndexEntry> = entries
        .iter()
        .filter(|e| {
            e.engine == engine
                && e.query.trim().to_lowercase() == wanted
                && page_from_file_name(&e.file) == query.page
                && dir.join(&e.file).is_file()
        })
        .collect();
    // A results page is what a replay should show when the engine was
    // captured both answering and blocked for the same query.
    matching.sort_by_key(|e| e.kind != "results");
    match matching.first() {
        Some(e) => {
            let mut rec = entry_recording(dir, e, engine.to_string())?;
            rec.query.lang = query.lang.clone();
            Ok(Some(rec))
        }
        None => Ok(None),
    }
}

/// `…_p2.html` → 2; anything else → 1.
fn page_from_file_name(file: &str) -> u32 {
    let stem = file.rsplit('/').next().unwrap_or(file);
    let stem = stem.split('.').next().unwrap_or(stem);
    stem.rsplit_once("_p")
        .and_then(|(_, n)| n.parse::<u32>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str, page: u32) -> Query {
        Query {
            text: text.into(),
            page,
            ..Query::default()
        }
    }

    #[test]
    fn path_is_stable_and_distinguishes_pages_and_languages() {
        let a = relative_path("bing", &RecordedQuery::from(&query("Hello world", 1)));
        assert_eq!(
            a,
            relative_path("bing", &RecordedQuery::from(&query("Hello world", 1)))
        );
        assert!(a.to_string_lossy().starts_with("bing/hello-world-p1-"));
        let b = relative_path("bing", &RecordedQuery::from(&query("Hello world", 2)));
        assert_ne!(a, b);
        let mut zh = query("Hello world", 1);
        zh.lang = Some("zh".into());
        assert_ne!(a, relative_path("bing", &RecordedQuery::from(&zh)));
    }

    #[test]
    fn hostile_names_stay_inside_the_folder() {
        let p = relative_path("../../etc", &RecordedQuery::from(&query("../../passwd", 1)));
        assert!(
            p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        );
        assert_eq!(p.components().count(), 2);
        let cjk = relative_path("baidu", &RecordedQuery::from(&query("高考 2017", 1)));
        assert!(cjk.to_string_lossy().starts_with("baidu/高考-2017-p1-"));
    }

    #[test]
    fn save_then_lookup_gives_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("metasift-rec-{}", std::process::id()));
        let gbk: Vec<u8> = vec![0xc4, 0xe3, 0xba, 0xc3, b'<', 0xff];
        for (engine, body) in [("utf8", "héllo <b>".as_bytes().to_vec()), ("gbk", gbk)] {
            let q = query("caffeine sleep", 1);
            let rec = Recording {
                format: FORMAT.into(),
                engine: engine.into(),
                query: RecordedQuery::from(&q),
                request: RecordedRequest {
                    method: "GET".into(),
                    url: "http://127.0.0.1:1/s?q=caffeine+sleep".into(),
                    headers: vec![],
                },
                response: RecordedResponse::new(
                    200,
                    vec![("Content-Type".into(), "text/html".into())],
                    12,
                    &body,
                ),
                recorded_at: httpdate::fmt_http_date(std::time::SystemTime::now()),
                source: None,
            };
            rec.save(&dir).unwrap();
            let back = Recording::lookup(&dir, engine, &q).unwrap();
            assert_eq!(back, rec);
            assert_eq!(back.response.body_bytes().unwrap(), body);
            assert_eq!(back.response.header("content-type"), Some("text/html"));
        }
        let missing = Recording::lookup(&dir, "utf8", &query("other", 1)).unwrap_err();
        assert!(matches!(missing, RecordingError::Missing { .. }));
        // The client's reason names no server path; the log's does.
        let dir_text = dir.display().to_string();
        assert!(missing.to_string().contains(&dir_text));
        assert!(!missing.public_reason().contains(&dir_text));
        assert!(missing.public_reason().contains("no recording"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn page_numbers_come_from_file_names() {
        assert_eq!(
            page_from_file_name("bing/sescraper2020_test-keyword_p3.html"),
            3
        );
        assert_eq!(page_from_file_name("bing/sep2021_hello.html"), 1);
        assert_eq!(page_from_file_name("x/a_px.html"), 1);
    }
}
