//! SearXNG's JSON shape of a [`SearchResponse`] (`format=json` and
//! `metasift search --format json`), so SearXNG API clients work unchanged.
//!
//! The JSON keeps SearXNG's top-level keys (`query`, `number_of_results`,
//! `results`, `answers`, `corrections`, `infoboxes`, `suggestions`,
//! `unresponsive_engines` as `[[engine, reason], …]`) and per-result keys
//! (`url`, `title`, `content`, `engine`, `engines`, `positions`, `score`,
//! `category`, `parsed_url` as Python's 6-part `urlparse`), plus metasift's
//! own `duplicates` and `age_s` (seconds since the engine answers were
//! fetched, put in front of the rendered bytes by [`with_age`], since it
//! changes while the rendering is kept), and — only when a request asks for dedup settings other
//! than `[dedup]` — a top-level `comparison` (see [`crate::fusion::compare`]), which
//! SearXNG clients ignore.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::model::{MergedResult, SearchResponse};

/// A whole answer in SearXNG's `format=json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngResponse {
    /// The query text as run (shortcuts removed).
    pub query: String,
    /// The results there are (SearXNG: the total, not this page's count):
    /// [`SearchResponse::number_of_results`], the count the HTML page and
    /// RSS show too.
    pub number_of_results: u64,
    /// The largest count an engine said it has for the query (its own
    /// estimate), when any engine said; metasift's key, not SearXNG's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_results: Option<u64>,
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
    /// Publication date (RFC 3339, UTC), where an engine gave one.
    #[serde(rename = "publishedDate", default)]
    pub published_date: Option<String>,
    /// An image of the result, where an engine gave one.
    #[serde(default)]
    pub thumbnail: Option<String>,
    /// The same image, under the key SearXNG's image results use.
    #[serde(default)]
    pub img_src: Option<String>,
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
    /// The duplicate's text around each shared code, when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_text: Vec<String>,
    /// The duplicate's own snippet, when explaining.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// The JSON object `body` with metasift's `age_s` (seconds since the
/// engine answers behind it were fetched) as its first key, when known.
pub fn with_age(body: bytes::Bytes, age_s: Option<u64>) -> bytes::Bytes {
    match (age_s, body.first()) {
        (Some(age), Some(b'{')) => {
            let head = format!("{{\"age_s\":{age}");
            let rest = &body[1..];
            let mut out = Vec::with_capacity(head.len() + body.len() + 1);
            out.extend_from_slice(head.as_bytes());
            if rest.first().is_some_and(|&c| c != b'}') {
                out.push(b',');
            }
            out.extend_from_slice(rest);
            bytes::Bytes::from(out)
        }
        _ => body,
    }
}

impl SearxngResponse {
    /// The SearXNG shape of a response.
    pub fn from_response(response: &SearchResponse) -> Self {
        SearxngResponse {
            query: response.query.text.clone(),
            number_of_results: response.number_of_results() as u64,
            estimated_results: response.estimate,
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
    pub(crate) fn from_merged(m: &MergedResult) -> Self {
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
            published_date: m.published.clone(),
            thumbnail: m.thumbnail.clone(),
            img_src: m.thumbnail.clone(),
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
                    shared_text: d.shared_text.clone(),
                    snippet: d.snippet.clone(),
                })
                .collect(),
        }
    }
}

/// The SearXNG-shaped answer for `resp`, keeping at most `limit` results
/// (`limit=` of `/search`).
pub fn answer(resp: &SearchResponse, limit: Option<usize>) -> SearxngResponse {
    let mut answer = SearxngResponse::from_response(resp);
    if let Some(limit) = limit {
        answer.results.truncate(limit);
    }
    answer
}

/// [`answer`] as the JSON text of `format=json`, with the settings
/// comparison when one was asked for.
pub fn to_json(
    resp: &SearchResponse,
    limit: Option<usize>,
    comparison: Option<crate::fusion::compare::SettingsComparison>,
) -> Result<Vec<u8>, super::FormatError> {
    let mut answer = answer(resp, limit);
    answer.comparison = comparison;
    Ok(serde_json::to_vec(&answer)?)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_data::sample;

    #[test]
    fn the_age_goes_in_front_of_the_rendered_object() {
        let body = bytes::Bytes::from(to_json(&sample(), None, None).unwrap());
        let aged = with_age(body.clone(), Some(42));
        let v: serde_json::Value = serde_json::from_slice(&aged).unwrap();
        assert_eq!(v["age_s"], 42);
        let plain: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["results"], plain["results"]);
        assert_eq!(with_age(body.clone(), None), body);
        let empty = with_age(bytes::Bytes::from_static(b"{}"), Some(1));
        assert_eq!(&empty[..], b"{\"age_s\":1}");
    }

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
}
