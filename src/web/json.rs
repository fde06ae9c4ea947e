//! `format=json` in SearXNG's shape, so programs written for SearXNG's API
//! read metasift's answers unchanged.
//!
//! The keys, their types and their order follow SearXNG's `/search` answer:
//! `query`, `number_of_results`, `results`, `answers`, `corrections`,
//! `infoboxes`, `suggestions`, `unresponsive_engines` (`[[engine, reason]]`).
//! Each result carries `url`, `title`, `content`, `engine`, `engines`,
//! `positions`, `score`, `category`, `parsed_url` (the 6-element list of
//! Python's `urllib.parse.urlparse`), `template` and `publishedDate` as
//! SearXNG does, plus metasift's own `duplicates`.
//!
//! The types are public and plain so `metasift search --format json` can
//! print the same document.

use serde::Serialize;

use crate::model::{Duplicate, MergedResult, SearchResponse};

/// The whole answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearxngAnswer {
    /// The query text as asked.
    pub query: String,
    /// Number of results in `results`.
    pub number_of_results: usize,
    /// Fused results.
    pub results: Vec<SearxngResult>,
    /// Always empty: metasift has no answer engines.
    pub answers: Vec<String>,
    /// Always empty: metasift has no spelling engines.
    pub corrections: Vec<String>,
    /// Always empty: metasift has no infobox engines.
    pub infoboxes: Vec<serde_json::Value>,
    /// Query suggestions offered by engines.
    pub suggestions: Vec<String>,
    /// `[engine, reason]` for every engine that failed.
    pub unresponsive_engines: Vec<(String, String)>,
}

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearxngResult {
    /// The link.
    pub url: String,
    /// Title.
    pub title: String,
    /// Snippet.
    pub content: String,
    /// The engine of the kept record.
    pub engine: String,
    /// Every engine that returned it.
    pub engines: Vec<String>,
    /// Its position on each of `engines`.
    pub positions: Vec<u32>,
    /// Fused score.
    pub score: f64,
    /// Category.
    pub category: String,
    /// `[scheme, netloc, path, params, query, fragment]`.
    pub parsed_url: [String; 6],
    /// SearXNG's result template; always `default.html` here.
    pub template: &'static str,
    /// Publication date; metasift's engines do not report one.
    #[serde(rename = "publishedDate")]
    pub published_date: Option<String>,
    /// Hidden duplicates and why they were merged.
    pub duplicates: Vec<SearxngDuplicate>,
}

/// One hidden duplicate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearxngDuplicate {
    /// Its own link.
    pub url: String,
    /// Its own title.
    pub title: String,
    /// The engine that returned it.
    pub engine: String,
    /// `url` | `title` | `snippet`.
    pub stage: &'static str,
    /// Snippet similarity, where one applies.
    pub similarity: Option<f64>,
    /// Feature codes shared with the kept result, when explaining.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_codes: Vec<String>,
}

impl SearxngAnswer {
    /// The answer for `resp`, keeping at most `limit` results.
    pub fn from_response(resp: &SearchResponse, limit: Option<usize>) -> SearxngAnswer {
        let results: Vec<SearxngResult> = resp
            .results
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .map(SearxngResult::from_merged)
            .collect();
        SearxngAnswer {
            query: resp.query.text.clone(),
            number_of_results: results.len(),
            results,
            answers: Vec::new(),
            corrections: Vec::new(),
            infoboxes: Vec::new(),
            suggestions: resp.suggestions.clone(),
            unresponsive_engines: resp
                .engines
                .iter()
                .filter_map(|e| {
                    let kind = e.failure?;
                    let reason = e.reason.clone().unwrap_or_else(|| kind.as_str().into());
                    Some((e.engine.clone(), reason))
                })
                .collect(),
        }
    }
}

impl SearxngResult {
    fn from_merged(r: &MergedResult) -> SearxngResult {
        SearxngResult {
            url: r.url.clone(),
            title: r.title.clone(),
            content: r.content.clone(),
            engine: r.engine.clone(),
            engines: r.engines.clone(),
            positions: r.positions.clone(),
            score: if r.score.is_finite() { r.score } else { 0.0 },
            category: r.category.clone(),
            parsed_url: urlparse(&r.url),
            template: "default.html",
            published_date: None,
            duplicates: r.duplicates.iter().map(SearxngDuplicate::from).collect(),
        }
    }
}

impl From<&Duplicate> for SearxngDuplicate {
    fn from(d: &Duplicate) -> Self {
        SearxngDuplicate {
            url: d.url.clone(),
            title: d.title.clone(),
            engine: d.engine.clone(),
            stage: d.stage.as_str(),
            similarity: d.similarity.filter(|s| s.is_finite()),
            shared_codes: d.shared_codes.clone(),
        }
    }
}

/// Splits a URL as Python's `urllib.parse.urlparse` does — on the text as
/// given, with no normalization — into scheme, netloc, path, params, query
/// and fragment. Never fails: text that is not a URL ends up in `path`.
pub fn urlparse(url: &str) -> [String; 6] {
    let mut rest = url;
    let mut scheme = "";
    if let Some(i) = rest.find(':') {
        let s = &rest[..i];
        let valid = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if valid {
            scheme = s;
            rest = &rest[i + 1..];
        }
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = &after[..end];
        rest = &after[end..];
    }
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    // Python splits `;params` off the last path segment only.
    let last_slash = path.rfind('/').map_or(0, |i| i + 1);
    let (path, params) = match path[last_slash..].find(';') {
        Some(i) => (&path[..last_slash + i], &path[last_slash + i + 1..]),
        None => (path, ""),
    };
    [
        scheme.to_ascii_lowercase(),
        netloc.to_string(),
        path.to_string(),
        params.to_string(),
        query.to_string(),
        fragment.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::urlparse;

    // Expected values are what CPython 3.11's urllib.parse.urlparse returns.
    #[test]
    fn urlparse_matches_python() {
        let cases: [(&str, [&str; 6]); 5] = [
            (
                "https://en.wikipedia.org/wiki/Hello?x=1#top",
                ["https", "en.wikipedia.org", "/wiki/Hello", "", "x=1", "top"],
            ),
            (
                "http://user@h:8080/a;b/c;p?q",
                ["http", "user@h:8080", "/a;b/c", "p", "q", ""],
            ),
            ("HTTP://h", ["http", "h", "", "", "", ""]),
            ("not a url", ["", "", "not a url", "", "", ""]),
            ("", ["", "", "", "", "", ""]),
        ];
        for (url, want) in cases {
            assert_eq!(urlparse(url), want.map(String::from), "{url}");
        }
    }
}
