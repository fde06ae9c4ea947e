//! Output: the documents a search becomes, other than the HTML page.
//!
//! Each format is a pure function of a [`crate::model::SearchResponse`]
//! (and, for the results page's comparison, a [`crate::fusion::compare`]
//! diff): SearXNG's JSON shape ([`searxng`], shared by `format=json` and
//! `metasift search --format json`, so SearXNG API clients work unchanged),
//! CSV and RSS with SearXNG's columns and elements ([`csv`], [`rss`]), the
//! terminal's text ([`text`]) and the OpenSearch description a browser's
//! search bar reads ([`opensearch`]). The web layer only picks one and sets
//! the content type.

pub mod csv;
pub mod opensearch;
pub mod rss;
pub mod searxng;
pub mod text;

/// Errors of the machine formats.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The CSV writer failed (only on a broken in-memory buffer).
    #[error("cannot write CSV: {0}")]
    Csv(#[from] ::csv::Error),
    /// A template failed to render.
    #[error("cannot render: {0}")]
    Render(#[from] askama::Error),
    /// The JSON writer failed (it cannot on these types; kept total).
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Responses for the formats' tests.
#[cfg(test)]
mod test_data {
    use crate::model::{Duplicate, EngineReport, FailureKind, MergedResult, Query, SearchResponse};
    use metasift_dedup::Stage;

    /// One result (and a duplicate), one answering and one timed-out
    /// engine.
    pub(super) fn sample() -> SearchResponse {
        SearchResponse {
            results: vec![MergedResult {
                published: None,
                thumbnail: None,
                key_url: None,
                display_url: None,
                extra: None,
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
                    shared_text: vec![],
                    snippet: String::new(),
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

    /// One result whose title is `title`, with a query string in its link
    /// and a snippet of several lines.
    pub(super) fn response(title: &str) -> SearchResponse {
        SearchResponse {
            query: Query {
                text: "q".into(),
                page: 1,
                ..Query::default()
            },
            results: vec![MergedResult {
                published: None,
                thumbnail: None,
                key_url: None,
                display_url: None,
                extra: None,
                url: "https://example.org/a?b=1&c=2".into(),
                title: title.into(),
                content: "line one\nline \"two\", three".into(),
                engine: "e".into(),
                engines: vec!["e".into(), "f".into()],
                positions: vec![1, 2],
                score: 1.5,
                category: "general".into(),
                duplicates: vec![],
            }],
            ..SearchResponse::default()
        }
    }
}
