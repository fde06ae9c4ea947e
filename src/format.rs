//! Output shapes of a [`SearchResponse`] shared by the command line and the
//! web layer: SearXNG's JSON (so SearXNG API clients work unchanged) and the
//! terminal's plain text.
//!
//! The JSON keeps SearXNG's top-level keys (`query`, `number_of_results`,
//! `results`, `answers`, `corrections`, `infoboxes`, `suggestions`,
//! `unresponsive_engines` as `[[engine, reason], …]`) and per-result keys
//! (`url`, `title`, `content`, `engine`, `engines`, `positions`, `score`,
//! `category`, `parsed_url` as Python's 6-part `urlparse`), plus metasift's
//! own `duplicates`, and — only when a request asks for dedup settings other
//! than `[dedup]` — a top-level `comparison` (see [`crate::fusion::compare`]), which
//! SearXNG clients ignore.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::model::{EngineReport, MergedResult, SearchResponse};

/// A whole answer in SearXNG's `format=json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngResponse {
    /// The query text as run (shortcuts removed).
    pub query: String,
    /// Number of results in `results`.
    pub number_of_results: usize,
    /// The fused results.
    pub results: Vec<SearxngResult>,
    /// Direct answers (none yet; kept for clients that read the key).
    pub answers: Vec<String>,
    /// Spelling corrections (none yet).
    pub corrections: Vec<String>,
    /// Infoboxes (none yet).
    pub infoboxes: Vec<serde_json::Value>,
    /// Query suggestions offered by engines.
    pub suggestions: Vec<String>,
    /// `[engine, reason]` for every engine that gave nothing usable.
    pub unresponsive_engines: Vec<(String, String)>,
    /// metasift's own, only when the request's `method` / `os1` / `os2`
    /// differ from `[dedup]`: the same answers fused both ways and which
    /// groups formed or split ([`crate::fusion::compare`] defines it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<crate::fusion::compare::SettingsComparison>,
}

/// One result in SearXNG's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngResult {
    /// The link to click.
    pub url: String,
    /// Title.
    pub title: String,
    /// Snippet.
    pub content: String,
    /// The engine of the kept record.
    pub engine: String,
    /// Every engine that returned the result.
    pub engines: Vec<String>,
    /// Position on each of `engines`.
    pub positions: Vec<u32>,
    /// Fusion score.
    pub score: f64,
    /// Category.
    pub category: String,
    /// Python `urlparse` parts: scheme, netloc, path, params, query, fragment.
    pub parsed_url: [String; 6],
    /// SearXNG's result template name; clients use it to pick a renderer.
    pub template: String,
    /// Hidden duplicates merged into this result.
    pub duplicates: Vec<SearxngDuplicate>,
}

/// A hidden duplicate in the JSON output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngDuplicate {
    /// Its own link.
    pub url: String,
    /// Its own title.
    pub title: String,
    /// The engine that returned it.
    pub engine: String,
    /// `url` | `title` | `snippet`.
    pub stage: String,
    /// Snippet similarity, where one applies.
    pub similarity: Option<f64>,
    /// Shared feature codes (hex), when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_codes: Vec<String>,
}

impl SearxngResponse {
    /// The SearXNG shape of a response.
    pub fn from_response(response: &SearchResponse) -> Self {
        SearxngResponse {
            query: response.query.text.clone(),
            number_of_results: response.results.len(),
            results: response
                .results
                .iter()
                .map(SearxngResult::from_merged)
                .collect(),
            answers: Vec::new(),
            corrections: Vec::new(),
            infoboxes: Vec::new(),
            suggestions: response.suggestions.clone(),
            unresponsive_engines: response
                .engines
                .iter()
                .filter_map(|r| {
                    let kind = r.failure?;
                    let reason = r
                        .reason
                        .clone()
                        .unwrap_or_else(|| kind.as_str().to_string());
                    Some((r.engine.clone(), reason))
                })
                .collect(),
            comparison: None,
        }
    }
}

impl SearxngResult {
    /// The SearXNG shape of a fused result.
    pub fn from_merged(m: &MergedResult) -> Self {
        SearxngResult {
            url: m.url.clone(),
            title: m.title.clone(),
            content: m.content.clone(),
            engine: m.engine.clone(),
            engines: m.engines.clone(),
            positions: m.positions.clone(),
            score: m.score,
            category: m.category.clone(),
            parsed_url: parsed_url(&m.url),
            template: "default.html".into(),
            duplicates: m
                .duplicates
                .iter()
                .map(|d| SearxngDuplicate {
                    url: d.url.clone(),
                    title: d.title.clone(),
                    engine: d.engine.clone(),
                    stage: d.stage.as_str().into(),
                    similarity: d.similarity,
                    shared_codes: d.shared_codes.clone(),
                })
                .collect(),
        }
    }
}

/// Python's `urllib.parse.urlparse` parts of a link: scheme, netloc, path,
/// params, query, fragment. A link that does not parse is all path.
pub fn parsed_url(link: &str) -> [String; 6] {
    let Ok(u) = url::Url::parse(link) else {
        return [
            String::new(),
            String::new(),
            link.to_string(),
            String::new(),
            String::new(),
            String::new(),
        ];
    };
    let mut netloc = String::new();
    if !u.username().is_empty() {
        netloc.push_str(u.username());
        if let Some(p) = u.password() {
            netloc.push(':');
            netloc.push_str(p);
        }
        netloc.push('@');
    }
    if let Some(host) = u.host_str() {
        netloc.push_str(host);
    }
    if let Some(port) = u.port() {
        let _ = write!(netloc, ":{port}");
    }
    // The url crate gives every http(s) link at least `/`; urlparse keeps
    // the path as written, so `http://h` and `http://h?q` have none.
    let full_path = if u.path() == "/" && !path_written(link) {
        ""
    } else {
        u.path()
    };
    // urlparse splits `;params` off the last path segment only.
    let last_slash = full_path.rfind('/').map_or(0, |i| i + 1);
    let (path, params) = match full_path[last_slash..].find(';') {
        Some(i) => (
            &full_path[..last_slash + i],
            &full_path[last_slash + i + 1..],
        ),
        None => (full_path, ""),
    };
    [
        u.scheme().to_string(),
        netloc,
        path.to_string(),
        params.to_string(),
        u.query().unwrap_or("").to_string(),
        u.fragment().unwrap_or("").to_string(),
    ]
}

/// Whether `link` has a path after its authority (`http://h/` does,
/// `http://h` and `http://h?q=1` do not).
fn path_written(link: &str) -> bool {
    let Some(start) = link.find("//").map(|i| i + 2) else {
        return true;
    };
    let rest = &link[start..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    rest[end..].starts_with('/')
}

/// The terminal listing: rank, title, link, snippet, engines with
/// positions, and the duplicates hidden under each result.
pub fn render_text(response: &SearchResponse) -> String {
    let mut out = String::new();
    if response.results.is_empty() {
        out.push_str("no results\n");
    }
    for (rank, r) in response.results.iter().enumerate() {
        let _ = writeln!(out, "{:>2}. {}", rank + 1, one_line(&r.title));
        let _ = writeln!(out, "    {}", r.url);
        if !r.content.trim().is_empty() {
            let _ = writeln!(out, "    {}", one_line(&r.content));
        }
        let engines: Vec<String> = r
            .engines
            .iter()
            .zip(&r.positions)
            .map(|(e, p)| format!("{e} #{p}"))
            .collect();
        let _ = writeln!(
            out,
            "    engines: {}   score {:.3}",
            engines.join(", "),
            r.score
        );
        for d in &r.duplicates {
            let sim = d.similarity.map(|s| format!(" {s:.2}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "      = {} #{} by {}{}: {}",
                d.engine,
                d.position,
                d.stage.as_str(),
                sim,
                d.url
            );
        }
    }
    out
}

/// One line per unresponsive engine, for standard error.
pub fn render_failures(response: &SearchResponse) -> String {
    let mut out = String::new();
    for r in &response.engines {
        if let Some(kind) = r.failure {
            let _ = writeln!(
                out,
                "{}: {} after {} ms: {}",
                r.engine,
                kind.as_str(),
                r.elapsed_ms,
                r.reason.as_deref().unwrap_or("")
            );
        }
    }
    out
}

/// The `check-config --probe` table: engine, status, time, results.
pub fn render_probe(reports: &[EngineReport]) -> String {
    let status = |r: &EngineReport| match r.failure {
        None => "ok".to_string(),
        Some(kind) => format!("{}: {}", kind.as_str(), r.reason.as_deref().unwrap_or("")),
    };
    let name_w = reports
        .iter()
        .map(|r| r.engine.chars().count())
        .chain([6])
        .max()
        .unwrap_or(6);
    let mut out = format!(
        "{:<name_w$}  {:>8}  {:>7}  status\n",
        "engine", "time", "results"
    );
    for r in reports {
        let _ = writeln!(
            out,
            "{:<name_w$}  {:>5} ms  {:>7}  {}",
            r.engine,
            r.elapsed_ms,
            r.results,
            one_line(&status(r))
        );
    }
    out
}

/// Engine text on one terminal line: newlines and control characters (an
/// engine could send escape sequences) become spaces.
fn one_line(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Duplicate, FailureKind};
    use metasift_dedup::Stage;

    #[test]
    fn urlparse_parts() {
        assert_eq!(
            parsed_url("https://user:pw@example.com:8443/a/b;p=1?x=1&y=2#frag"),
            [
                "https".to_string(),
                "user:pw@example.com:8443".into(),
                "/a/b".into(),
                "p=1".into(),
                "x=1&y=2".into(),
                "frag".into()
            ]
        );
        assert_eq!(parsed_url("not a url")[2], "not a url");
        // As Python's urlparse: no path written, none given.
        assert_eq!(parsed_url("http://example.com")[2], "");
        assert_eq!(parsed_url("http://example.com?q=1")[2], "");
        assert_eq!(parsed_url("http://example.com?q=1")[4], "q=1");
        assert_eq!(parsed_url("http://example.com#top")[2], "");
        assert_eq!(parsed_url("http://example.com/")[2], "/");
        assert_eq!(parsed_url("https://example.com/a;p")[2], "/a");
    }

    fn sample() -> SearchResponse {
        SearchResponse {
            results: vec![MergedResult {
                url: "https://example.com/".into(),
                title: "Example\n\u{1b}[31mtitle".into(),
                content: "snippet".into(),
                engine: "a".into(),
                engines: vec!["a".into(), "b".into()],
                positions: vec![1, 3],
                score: 1.333,
                category: "general".into(),
                duplicates: vec![Duplicate {
                    url: "https://www.example.com".into(),
                    title: "Example".into(),
                    engine: "b".into(),
                    position: 3,
                    stage: Stage::Url,
                    similarity: None,
                    shared_codes: vec![],
                }],
            }],
            engines: vec![
                EngineReport {
                    engine: "a".into(),
                    elapsed_ms: 5,
                    results: 1,
                    failure: None,
                    reason: None,
                },
                EngineReport {
                    engine: "c".into(),
                    elapsed_ms: 3000,
                    results: 0,
                    failure: Some(FailureKind::Timeout),
                    reason: Some("no complete answer within 3000 ms".into()),
                },
            ],
            ..SearchResponse::default()
        }
    }

    #[test]
    fn searxng_shape_has_the_keys_clients_read() {
        let v = serde_json::to_value(SearxngResponse::from_response(&sample())).unwrap();
        for key in [
            "query",
            "number_of_results",
            "results",
            "answers",
            "corrections",
            "infoboxes",
            "suggestions",
            "unresponsive_engines",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert_eq!(
            v["unresponsive_engines"],
            serde_json::json!([["c", "no complete answer within 3000 ms"]])
        );
        let r = &v["results"][0];
        assert_eq!(r["engines"], serde_json::json!(["a", "b"]));
        assert_eq!(r["positions"], serde_json::json!([1, 3]));
        assert_eq!(r["parsed_url"][1], "example.com");
        assert_eq!(r["duplicates"][0]["stage"], "url");
        assert!(r["duplicates"][0].get("shared_codes").is_none());
    }

    #[test]
    fn text_is_one_line_per_field_without_control_characters() {
        let text = render_text(&sample());
        assert!(text.contains(" 1. Example [31mtitle"));
        assert!(!text.contains('\u{1b}'));
        assert!(text.contains("engines: a #1, b #3"));
        assert!(text.contains("= b #3 by url: https://www.example.com"));
        let failures = render_failures(&sample());
        assert_eq!(
            failures,
            "c: timeout after 3000 ms: no complete answer within 3000 ms\n"
        );
    }

    #[test]
    fn probe_table_has_one_row_per_engine() {
        let table = render_probe(&sample().engines);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].starts_with("a ") && lines[1].ends_with("ok"),
            "{table}"
        );
        assert!(
            lines[2].contains("3000 ms") && lines[2].contains("timeout: no complete"),
            "{table}"
        );
    }
}
