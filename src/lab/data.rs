//! Loading labeled data: pair files and labeled record sets.
//!
//! Three layouts are recognised by their first data line:
//!
//! * **TSV pairs** (the team's data folder's `pairs/`; ours in `tests/data/lab/`): header `id, text_a, text_b, label,
//!   score`, tab-separated, *no quoting*. `label` (0/1) decides where it is
//!   filled; otherwise the graded `score` does: `score ≥ 4` is a duplicate,
//!   `score ≤ 1` is distinct, and the middle band (and rows with neither) is
//!   dropped and counted, because "related" is neither answer. The two texts
//!   are two *snippets* of two different pages (`https://a.invalid/<id>` and
//!   `https://b.invalid/<id>`) with *different* titles, so the feature-code
//!   method is judged on `os2`; with `title_equal` both get the same title and
//!   `os1` is the threshold that matters.
//! * **JSON Lines pairs**: `{"a": {record}, "b": {record}, "duplicate": bool}`.
//! * **Labeled record sets**: JSON Lines records (`id`, `url`, `title`,
//!   `snippet`) with a `"group"` label and an optional `"query"`; records of
//!   one query form one result list, in file (fused-rank) order.
//!
//! A bad line never stops a run: it is reported as `file:line: what`, skipped
//! and counted.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::LabError;

/// One record as the lab feeds it to the dedup core.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rec {
    /// The link.
    #[serde(default)]
    pub url: String,
    /// The title.
    #[serde(default)]
    pub title: String,
    /// The snippet.
    #[serde(default)]
    pub snippet: String,
    /// The engine (list) it came from; empty when unknown. Two records of
    /// one engine with different links and titles are different pages.
    #[serde(default)]
    pub engine: String,
}

/// One labeled pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The pair's id in its file (or its line number).
    pub id: String,
    /// The earlier record.
    pub a: Rec,
    /// The later record, asked whether it duplicates `a`.
    pub b: Rec,
    /// The label.
    pub duplicate: bool,
}

/// One result list whose records carry a ground-truth group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordSet {
    /// The query the list answers (`""` when the file has none).
    pub query: String,
    /// The records in fused-rank order.
    pub records: Vec<Rec>,
    /// The group label of each record, same order.
    pub groups: Vec<String>,
}

impl RecordSet {
    /// Number of record pairs in the set.
    pub fn pair_count(&self) -> u64 {
        let n = self.records.len() as u64;
        n * n.saturating_sub(1) / 2
    }
}

/// What a file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Labeled {
    /// Labeled pairs.
    Pairs(Vec<Pair>),
    /// Labeled result lists.
    Sets(Vec<RecordSet>),
}

impl Labeled {
    /// Pairs judged by one evaluation (labeled pairs, or record pairs in sets).
    pub fn pair_count(&self) -> u64 {
        match self {
            Labeled::Pairs(p) => p.len() as u64,
            Labeled::Sets(s) => s.iter().map(RecordSet::pair_count).sum(),
        }
    }
}

/// The layout a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `id, text_a, text_b, label, score`.
    TsvPairs,
    /// `{"a", "b", "duplicate"}` lines.
    JsonPairs,
    /// Records with a `group`.
    JsonSets,
}

impl Format {
    /// Short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::TsvPairs => "tsv pairs",
            Format::JsonPairs => "json pairs",
            Format::JsonSets => "record sets",
        }
    }
}

/// A line that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// One loaded data file.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// A short name for tables (parent folder and file name).
    pub name: String,
    /// The detected layout.
    pub format: Format,
    /// The labeled data.
    pub data: Labeled,
    /// Lines skipped as bad.
    pub bad_lines: Vec<LineError>,
    /// Graded rows dropped because they are in the middle band (1 < score < 4)
    /// or carry no label at all.
    pub dropped: usize,
}

/// How text-only pairs become records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Give both sides of a TSV pair the same title (judges `os1`).
    pub title_equal: bool,
    /// Read at most this many usable pairs or record sets (0 = all).
    pub limit: usize,
}

/// A short display name: `parent/file`.
pub fn short_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match path
        .parent()
        .and_then(|p| p.file_name())
        .map(|p| p.to_string_lossy().into_owned())
    {
        Some(parent) if !parent.is_empty() && parent != "." => format!("{parent}/{file}"),
        _ => file,
    }
}

/// Reads one file, detecting its layout.
pub fn load(path: &Path, opts: LoadOptions) -> Result<DataFile, LabError> {
    let text = crate::files::read_capped(path, crate::files::MAX_DATA_BYTES).map_err(|source| {
        LabError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    load_str(&text, path, opts)
}

/// Parses text already read; `path` names the file in errors.
pub fn load_str(text: &str, path: &Path, opts: LoadOptions) -> Result<DataFile, LabError> {
    // A byte order mark (an editor's, a spreadsheet's export) is not part
    // of the first line.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut file = DataFile {
        path: path.to_path_buf(),
        name: short_name(path),
        format: Format::TsvPairs,
        data: Labeled::Pairs(Vec::new()),
        bad_lines: Vec::new(),
        dropped: 0,
    };
    if first.trim_start().starts_with('{') {
        let probe: serde_json::Value =
            serde_json::from_str(first).unwrap_or(serde_json::Value::Null);
        if probe.get("a").is_some() && probe.get("b").is_some() {
            file.format = Format::JsonPairs;
            file.data = Labeled::Pairs(json_pairs(text, &mut file.bad_lines, path, opts));
        } else if probe.get("group").is_some() {
            file.format = Format::JsonSets;
            file.data = Labeled::Sets(json_sets(text, &mut file.bad_lines, path, opts));
        } else {
            return Err(LabError::UnknownFormat {
                path: path.to_path_buf(),
                why: "the first JSON line has neither \"a\"/\"b\" (pairs) nor \"group\" (record sets)"
                    .into(),
            });
        }
    } else {
        let (pairs, dropped) = tsv_pairs(text, &mut file.bad_lines, path, opts)?;
        file.dropped = dropped;
        file.data = Labeled::Pairs(pairs);
    }
    Ok(file)
}

fn tsv_pairs(
    text: &str,
    bad: &mut Vec<LineError>,
    path: &Path,
    opts: LoadOptions,
) -> Result<(Vec<Pair>, usize), LabError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let unknown = |why: String| LabError::UnknownFormat {
        path: path.to_path_buf(),
        why,
    };
    let headers = reader
        .headers()
        .map_err(|e| unknown(format!("cannot read the header row: {e}")))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(ia), Some(ib)) = (col("text_a"), col("text_b")) else {
        return Err(unknown(
            "expected a tab-separated header with text_a and text_b (or JSON Lines)".into(),
        ));
    };
    let (iid, ilabel, iscore) = (col("id"), col("label"), col("score"));
    if ilabel.is_none() && iscore.is_none() {
        return Err(unknown("the header has neither label nor score".into()));
    }
    let mut pairs = Vec::new();
    let mut dropped = 0;
    let mut record = csv::StringRecord::new();
    loop {
        if opts.limit > 0 && pairs.len() >= opts.limit {
            break;
        }
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                bad.push(LineError {
                    path: path.to_path_buf(),
                    line,
                    message: e.to_string(),
                });
                continue;
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        if record.len() != headers.len() {
            bad.push(LineError {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "expected {} tab-separated fields, found {}",
                    headers.len(),
                    record.len()
                ),
            });
            continue;
        }
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("").trim();
        let duplicate = match (field(ilabel), field(iscore)) {
            ("1", _) => Some(true),
            ("0", _) => Some(false),
            ("", "") => None,
            ("", score) => match score.parse::<f64>() {
                Ok(s) if s >= 4.0 => Some(true),
                Ok(s) if s <= 1.0 => Some(false),
                Ok(_) => None,
                Err(_) => {
                    bad.push(LineError {
                        path: path.to_path_buf(),
                        line,
                        message: format!("score {score:?} is not a number"),
                    });
                    continue;
                }
            },
            (label, _) => {
                bad.push(LineError {
                    path: path.to_path_buf(),
                    line,
                    message: format!("label {label:?} is not 0 or 1"),
                });
                continue;
            }
        };
        let Some(duplicate) = duplicate else {
            dropped += 1;
            continue;
        };
        let id = match field(iid) {
            "" => format!("line{line}"),
            id => id.to_string(),
        };
        let (ta, tb) = if opts.title_equal {
            (id.clone(), id.clone())
        } else {
            (format!("{id} a"), format!("{id} b"))
        };
        pairs.push(Pair {
            a: Rec {
                url: format!("https://a.invalid/{id}"),
                title: ta,
                snippet: field(Some(ia)).to_string(),
                engine: String::new(),
            },
            b: Rec {
                url: format!("https://b.invalid/{id}"),
                title: tb,
                snippet: field(Some(ib)).to_string(),
                engine: String::new(),
            },
            id,
            duplicate,
        });
    }
    Ok((pairs, dropped))
}

#[derive(Deserialize)]
struct JsonPair {
    #[serde(default)]
    id: Option<serde_json::Value>,
    a: Rec,
    b: Rec,
    duplicate: bool,
}

fn json_pairs(text: &str, bad: &mut Vec<LineError>, path: &Path, opts: LoadOptions) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if opts.limit > 0 && pairs.len() >= opts.limit {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<JsonPair>(line) {
            Ok(p) => pairs.push(Pair {
                id: match p.id {
                    Some(serde_json::Value::String(s)) => s,
                    Some(v) => v.to_string(),
                    None => format!("line{}", i + 1),
                },
                a: p.a,
                b: p.b,
                duplicate: p.duplicate,
            }),
            Err(e) => bad.push(LineError {
                path: path.to_path_buf(),
                line: i as u64 + 1,
                message: e.to_string(),
            }),
        }
    }
    pairs
}

#[derive(Deserialize)]
struct JsonRecord {
    #[serde(flatten)]
    rec: Rec,
    group: serde_json::Value,
    #[serde(default)]
    query: Option<String>,
}

fn json_sets(
    text: &str,
    bad: &mut Vec<LineError>,
    path: &Path,
    opts: LoadOptions,
) -> Vec<RecordSet> {
    // Query → set, in order of first appearance.
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut sets: Vec<RecordSet> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = match serde_json::from_str::<JsonRecord>(line) {
            Ok(r) => r,
            Err(e) => {
                bad.push(LineError {
                    path: path.to_path_buf(),
                    line: i as u64 + 1,
                    message: e.to_string(),
                });
                continue;
            }
        };
        let group = match r.group {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            other => {
                bad.push(LineError {
                    path: path.to_path_buf(),
                    line: i as u64 + 1,
                    message: format!("\"group\" must be a string or number, got {other}"),
                });
                continue;
            }
        };
        let query = r.query.unwrap_or_default();
        let at = match index.get(&query) {
            Some(&at) => at,
            None => {
                if opts.limit > 0 && sets.len() >= opts.limit {
                    continue;
                }
                index.insert(query.clone(), sets.len());
                sets.push(RecordSet {
                    query,
                    ..RecordSet::default()
                });
                sets.len() - 1
            }
        };
        sets[at].records.push(r.rec);
        sets[at].groups.push(group);
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_graded_scores_drop_the_middle_band_and_report_bad_lines() {
        let text = "id\ttext_a\ttext_b\tlabel\tscore\n\
                    x1\ta.\tb.\t\t5.0\n\
                    x2\ta.\tb.\t\t2.5\n\
                    x3\ta.\tb.\t\t0.2\n\
                    x4\tonly two\n\
                    x5\ta.\tb.\t\tmany\n\
                    x6\ta.\tb.\t\t\n";
        let f = load_str(text, Path::new("d/s.tsv"), LoadOptions::default()).unwrap();
        let Labeled::Pairs(p) = &f.data else {
            panic!("pairs expected")
        };
        assert_eq!(
            p.iter()
                .map(|p| (p.id.as_str(), p.duplicate))
                .collect::<Vec<_>>(),
            [("x1", true), ("x3", false)]
        );
        assert_eq!(f.dropped, 2);
        let lines: Vec<u64> = f.bad_lines.iter().map(|e| e.line).collect();
        assert_eq!(lines, [5, 6]);
        assert!(f.bad_lines[0].to_string().starts_with("d/s.tsv:5: "));
        assert_ne!(p[0].a.url, p[0].b.url);
        assert_ne!(p[0].a.title, p[0].b.title);
    }

    #[test]
    fn tsv_reads_quotes_literally() {
        let text = "id\ttext_a\ttext_b\tlabel\tscore\nq\t\"He said\t'no'\"\t1\t\n";
        let f = load_str(text, Path::new("q.tsv"), LoadOptions::default()).unwrap();
        let Labeled::Pairs(p) = &f.data else {
            panic!("pairs expected")
        };
        assert_eq!(p[0].a.snippet, "\"He said");
        assert!(p[0].duplicate);
    }

    #[test]
    fn json_sets_group_by_query_in_order() {
        let text = concat!(
            r#"{"id":1,"url":"u1","title":"t","snippet":"s","group":"g1","query":"q1"}"#,
            "\n",
            r#"{"id":2,"url":"u2","title":"t","snippet":"s","group":"g1","query":"q2"}"#,
            "\n",
            "not json\n",
            r#"{"id":3,"url":"u3","title":"t","snippet":"s","group":7,"query":"q1"}"#,
            "\n"
        );
        let f = load_str(text, Path::new("s.jsonl"), LoadOptions::default()).unwrap();
        assert_eq!(f.format, Format::JsonSets);
        let Labeled::Sets(s) = &f.data else {
            panic!("sets expected")
        };
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].query, "q1");
        assert_eq!(s[0].groups, ["g1", "7"]);
        assert_eq!(f.bad_lines.len(), 1);
        assert_eq!(f.bad_lines[0].line, 3);
    }

    #[test]
    fn a_byte_order_mark_does_not_cost_the_first_line() {
        let sets = "\u{FEFF}{\"group\":\"g\",\"id\":1,\"url\":\"https://a.example/\",\"title\":\"A\",\"snippet\":\"s\"}\n\
                    {\"group\":\"g\",\"id\":2,\"url\":\"https://b.example/\",\"title\":\"B\",\"snippet\":\"t\"}\n";
        let f = load_str(sets, Path::new("s.jsonl"), LoadOptions::default()).unwrap();
        assert_eq!(f.format, Format::JsonSets);
        assert!(f.bad_lines.is_empty(), "{:?}", f.bad_lines);
        let tsv = "\u{FEFF}text_a\ttext_b\tlabel\nA title\tB title\t1\n";
        let f = load_str(tsv, Path::new("p.tsv"), LoadOptions::default()).unwrap();
        assert!(f.bad_lines.is_empty(), "{:?}", f.bad_lines);
        assert_eq!(f.data.pair_count(), 1);
    }

    #[test]
    fn json_pairs_are_detected() {
        let text = r#"{"a":{"url":"x","title":"t","snippet":"s"},"b":{"url":"y","title":"t","snippet":"s"},"duplicate":true}"#;
        let f = load_str(text, Path::new("p.jsonl"), LoadOptions::default()).unwrap();
        assert_eq!(f.format, Format::JsonPairs);
        assert_eq!(f.data.pair_count(), 1);
    }
}
