//! Relevance judgements: which documents are relevant to which query, and
//! how much — read from TREC-style qrels or their JSON form.
//!
//! **TREC form** (`*.qrels`, whitespace-separated, as `trec_eval` reads it):
//!
//! ```text
//! q01 0 https://bun.sh/ 2
//! q01 0 https://en.wikipedia.org/wiki/Blood_urea_nitrogen 0
//! ```
//!
//! `qid iteration docid grade`: the iteration is ignored, the docid is the
//! document's URL, the grade 0 (not relevant), 1 (relevant) or 2 (highly
//! relevant; any grade up to [`MAX_GRADE`] is read). The query texts are in
//! a *topics* file: `qid<TAB>query text[<TAB>intent]` a line, `#` comments
//! and blank lines skipped — `--topics FILE`, else the file beside the
//! qrels named like it with `.topics.tsv` for `.qrels`.
//!
//! **JSON form** (`*.json`): the texts and judgements in one file:
//!
//! ```json
//! {"queries": [{"id": "q01", "text": "bun javascript runtime",
//!   "intent": "the Bun JavaScript runtime: its site, docs, install",
//!   "judgements": {"https://bun.sh/": 2}}]}
//! ```
//!
//! Documents are matched by the dedup crate's URL key
//! ([`metasift_dedup::url_key`]), so `http://`/`https://`, `www.`, a
//! trailing slash or tracking parameters do not make another document. Two
//! judged URLs with one key keep the higher grade.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::LabError;
use metasift_dedup::{self as dedup, UrlKey};

/// The highest grade read.
pub const MAX_GRADE: u8 = 4;

/// Most queries one file may hold.
pub const MAX_QUERIES: usize = 10_000;

/// One judged query.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// Its id (`q01`).
    pub id: String,
    /// The words asked.
    pub text: String,
    /// What the searcher wanted, as the judge wrote it down.
    pub intent: String,
    /// Grade of each judged document, by URL key.
    pub grades: BTreeMap<UrlKey, u8>,
    /// Each judged URL key's URL as the file wrote it (its first).
    pub urls: BTreeMap<UrlKey, String>,
}

impl Topic {
    /// The grade of a link (0 when not judged).
    pub fn grade(&self, url: &str) -> u8 {
        self.grades.get(&dedup::url_key(url)).copied().unwrap_or(0)
    }

    /// Judged documents with grade ≥ 1.
    pub fn relevant(&self) -> usize {
        self.grades.values().filter(|g| **g > 0).count()
    }
}

/// A judged set: its queries, in the file's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Qrels {
    /// The file read.
    pub path: PathBuf,
    /// The queries.
    pub topics: Vec<Topic>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonFile {
    queries: Vec<JsonQuery>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonQuery {
    id: String,
    text: String,
    #[serde(default)]
    intent: String,
    judgements: BTreeMap<String, u8>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |source| LabError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn bad(path: &Path, line: usize, why: impl std::fmt::Display) -> LabError {
    LabError::BadArgument(format!("{}:{line}: {why}", path.display()))
}

/// The topics file the qrels at `qrels` go with when none is named.
pub fn topics_beside(qrels: &Path) -> PathBuf {
    let stem = qrels
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    qrels.with_file_name(format!("{stem}.topics.tsv"))
}

/// Reads a judged set: JSON when the file's first non-blank character is
/// `{`, else TREC qrels with `topics` (or the topics file beside it).
pub fn load(path: &Path, topics: Option<&Path>) -> Result<Qrels, LabError> {
    let text = crate::files::read_capped(path, crate::files::MAX_DATA_BYTES).map_err(io(path))?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let topics = if text.trim_start().starts_with('{') {
        from_json(path, text)?
    } else {
        let topics_path = topics.map_or_else(|| topics_beside(path), Path::to_path_buf);
        let topics_text = crate::files::read_capped(&topics_path, crate::files::MAX_DATA_BYTES)
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => LabError::BadArgument(format!(
                    "{}: no topics file {} (qid<TAB>query text a line); name it with --topics",
                    path.display(),
                    topics_path.display()
                )),
                _ => LabError::Io {
                    path: topics_path.clone(),
                    source,
                },
            })?;
        from_trec(path, text, &topics_path, &topics_text)?
    };
    if topics.is_empty() {
        return Err(LabError::BadArgument(format!(
            "{}: no judged query",
            path.display()
        )));
    }
    Ok(Qrels {
        path: path.to_path_buf(),
        topics,
    })
}

fn judge(topic: &mut Topic, url: &str, grade: u8) {
    let key = dedup::url_key(url);
    let g = topic.grades.entry(key).or_insert(grade);
    *g = (*g).max(grade);
    topic.urls.entry(key).or_insert_with(|| url.to_string());
}

fn check_url(url: &str) -> Result<(), String> {
    match dedup::normalize_url(url) {
        Some(_) => Ok(()),
        None => Err(format!("{url:?} is not an http(s) URL")),
    }
}

fn from_json(path: &Path, text: &str) -> Result<Vec<Topic>, LabError> {
    let file: JsonFile = serde_json::from_str(text).map_err(|e| bad(path, e.line(), e))?;
    if file.queries.len() > MAX_QUERIES {
        return Err(bad(path, 1, format!("more than {MAX_QUERIES} queries")));
    }
    let mut out: Vec<Topic> = Vec::with_capacity(file.queries.len());
    for q in file.queries {
        let at = |why: String| bad(path, 1, format!("query {:?}: {why}", q.id));
        if q.id.trim().is_empty() || q.text.trim().is_empty() {
            return Err(at("an id and a text are needed".into()));
        }
        if out.iter().any(|t| t.id == q.id) {
            return Err(at("given twice".into()));
        }
        let mut topic = Topic {
            id: q.id.clone(),
            text: q.text.trim().to_string(),
            intent: q.intent.trim().to_string(),
            grades: BTreeMap::new(),
            urls: BTreeMap::new(),
        };
        for (url, grade) in &q.judgements {
            check_url(url).map_err(at)?;
            if *grade > MAX_GRADE {
                return Err(at(format!("grade {grade} of {url:?} is above {MAX_GRADE}")));
            }
            judge(&mut topic, url, *grade);
        }
        out.push(topic);
    }
    Ok(out)
}

fn from_trec(
    path: &Path,
    text: &str,
    topics_path: &Path,
    topics_text: &str,
) -> Result<Vec<Topic>, LabError> {
    let mut out: Vec<Topic> = Vec::new();
    for (i, line) in topics_text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('\t');
        let id = cols.next().unwrap_or("").trim();
        let words = cols.next().unwrap_or("").trim();
        let intent = cols.next().unwrap_or("").trim();
        if id.is_empty() || words.is_empty() {
            return Err(bad(
                topics_path,
                i + 1,
                "expected qid<TAB>query text[<TAB>intent]",
            ));
        }
        if out.iter().any(|t| t.id == id) {
            return Err(bad(topics_path, i + 1, format!("query {id:?} given twice")));
        }
        if out.len() == MAX_QUERIES {
            return Err(bad(
                topics_path,
                i + 1,
                format!("more than {MAX_QUERIES} queries"),
            ));
        }
        out.push(Topic {
            id: id.to_string(),
            text: words.to_string(),
            intent: intent.to_string(),
            grades: BTreeMap::new(),
            urls: BTreeMap::new(),
        });
    }
    let index: BTreeMap<String, usize> = out
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        let [qid, _iteration, docid, grade] = cols[..] else {
            return Err(bad(
                path,
                i + 1,
                format!("expected `qid 0 docid grade`, got {} fields", cols.len()),
            ));
        };
        let Some(&t) = index.get(qid) else {
            return Err(bad(
                path,
                i + 1,
                format!("query {qid:?} is not in {}", topics_path.display()),
            ));
        };
        check_url(docid).map_err(|e| bad(path, i + 1, e))?;
        let grade: u8 = match grade.parse::<i64>() {
            Ok(g) if (0..=i64::from(MAX_GRADE)).contains(&g) => g as u8,
            // trec_eval reads negative grades as "not relevant".
            Ok(g) if g < 0 => 0,
            _ => {
                return Err(bad(
                    path,
                    i + 1,
                    format!("grade {grade:?}: expected a whole number 0 to {MAX_GRADE}"),
                ));
            }
        };
        judge(&mut out[t], docid, grade);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("metasift-qrels-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn trec_and_json_forms_read_the_same_and_urls_match_by_key() {
        let dir = scratch("forms");
        let q = write(
            &dir,
            "set.qrels",
            "q1 0 https://bun.sh/ 2\nq1 0 http://www.bun.sh 1\n\nq1 0 https://x.example/a 0\n",
        );
        write(
            &dir,
            "set.topics.tsv",
            "# id\ttext\nq1\tbun runtime\tthe JS runtime\n",
        );
        let trec = load(&q, None).unwrap();
        let j = write(
            &dir,
            "set.json",
            r#"{"queries": [{"id": "q1", "text": "bun runtime", "intent": "the JS runtime",
                "judgements": {"https://bun.sh/": 2, "https://x.example/a": 0}}]}"#,
        );
        let json = load(&j, None).unwrap();
        assert_eq!(trec.topics[0].grades, json.topics[0].grades);
        let t = &trec.topics[0];
        assert_eq!(t.intent, "the JS runtime");
        assert_eq!(
            t.grade("https://www.bun.sh/?utm_source=x"),
            2,
            "best grade of one key"
        );
        assert_eq!(t.grade("https://unjudged.example/"), 0);
        assert_eq!(t.relevant(), 1);
    }

    #[test]
    fn bad_lines_are_named_with_their_file_and_line() {
        let dir = scratch("bad");
        write(&dir, "a.topics.tsv", "q1\tbun\n");
        for (text, want) in [
            ("q1 0 https://bun.sh/\n", "a.qrels:1: expected"),
            (
                "q1 0 https://bun.sh/ 2\nq9 0 https://bun.sh/ 1\n",
                "a.qrels:2: query \"q9\"",
            ),
            ("q1 0 not-a-url 1\n", "not an http(s) URL"),
            ("q1 0 https://bun.sh/ high\n", "a.qrels:1: grade \"high\""),
            ("q1 0 https://bun.sh/ 9\n", "grade \"9\""),
        ] {
            let q = write(&dir, "a.qrels", text);
            let e = load(&q, None).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let lonely = write(&dir, "b.qrels", "q1 0 https://bun.sh/ 1\n");
        let e = load(&lonely, None).unwrap_err().to_string();
        assert!(e.contains("b.topics.tsv"), "{e}");
        let j = write(
            &dir,
            "c.json",
            r#"{"queries": [{"id": "q", "text": "t", "judgements": {"https://a.example/": 7}}]}"#,
        );
        assert!(load(&j, None).unwrap_err().to_string().contains("above"));
        let j = write(&dir, "d.json", r#"{"queries": [], "extra": 1}"#);
        assert!(load(&j, None).unwrap_err().to_string().contains("d.json:1"));
    }
}
