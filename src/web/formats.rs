//! The machine formats of `/search` besides JSON: CSV and RSS, plus the
//! OpenSearch description that lets a browser add metasift to its search bar.
//!
//! CSV has SearXNG's columns (`title,url,content,host,engine,score,type`),
//! one `result` row per fused result and one `suggestion` row per suggestion.
//! RSS is RSS 2.0 with OpenSearch response elements, like SearXNG's. XML 1.0
//! cannot carry most control characters even escaped, so they are dropped from
//! engine text before it goes into RSS.

use askama::Template;

use crate::model::SearchResponse;

use crate::format::parsed_url;

/// Errors of the machine formats.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The CSV writer failed (only on a broken in-memory buffer).
    #[error("cannot write CSV: {0}")]
    Csv(#[from] csv::Error),
    /// A template failed to render.
    #[error("cannot render: {0}")]
    Render(#[from] askama::Error),
}

/// The CSV document for `resp`, at most `limit` results.
pub fn to_csv(resp: &SearchResponse, limit: Option<usize>) -> Result<String, FormatError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["title", "url", "content", "host", "engine", "score", "type"])?;
    for r in resp.results.iter().take(limit.unwrap_or(usize::MAX)) {
        let host = parsed_url(&r.url)[1].clone();
        let score = format!("{}", if r.score.is_finite() { r.score } else { 0.0 });
        w.write_record([
            r.title.as_str(),
            &r.url,
            &r.content,
            &host,
            &r.engine,
            &score,
            "result",
        ])?;
    }
    for s in &resp.suggestions {
        w.write_record(["", "", s.as_str(), "", "", "", "suggestion"])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    // Every field written was a `&str`, so the buffer is UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[derive(Template)]
#[template(path = "rss.xml")]
struct RssFeed<'a> {
    base_url: &'a str,
    query: String,
    search_href: String,
    total: usize,
    start_index: usize,
    items: Vec<RssItem>,
}

struct RssItem {
    title: String,
    link: String,
    description: String,
    engines: String,
}

/// The RSS document for `resp`; `search_href` is the HTML page of the same
/// search relative to `base_url`.
pub fn to_rss(
    resp: &SearchResponse,
    limit: Option<usize>,
    base_url: &str,
    search_href: &str,
    per_page: usize,
) -> Result<String, FormatError> {
    let items: Vec<RssItem> = resp
        .results
        .iter()
        .take(limit.unwrap_or(usize::MAX))
        .map(|r| RssItem {
            title: xml_text(&r.title),
            link: xml_text(&r.url),
            description: xml_text(&r.content),
            engines: xml_text(&r.engines.join(", ")),
        })
        .collect();
    let page = resp.query.page.max(1) as usize;
    let feed = RssFeed {
        base_url: base_url.trim_end_matches('/'),
        query: xml_text(&resp.query.text),
        search_href: xml_text(search_href),
        total: items.len(),
        start_index: (page - 1) * per_page + 1,
        items,
    };
    Ok(feed.render()?)
}

#[derive(Template)]
#[template(path = "opensearch.xml")]
struct OpenSearch<'a> {
    base_url: &'a str,
}

/// The OpenSearch description, with search and suggestion URLs under
/// `base_url`.
pub fn opensearch_xml(base_url: &str) -> Result<String, FormatError> {
    Ok(OpenSearch {
        base_url: base_url.trim_end_matches('/'),
    }
    .render()?)
}

/// Drops the characters XML 1.0 cannot carry at all.
fn xml_text(s: &str) -> String {
    s.chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r')
                || ('\u{20}'..='\u{D7FF}').contains(&c)
                || ('\u{E000}'..='\u{FFFD}').contains(&c)
                || c >= '\u{10000}'
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MergedResult, Query};

    fn response(title: &str) -> SearchResponse {
        SearchResponse {
            query: Query {
                text: "q".into(),
                page: 1,
                ..Query::default()
            },
            results: vec![MergedResult {
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

    #[test]
    fn csv_quotes_commas_quotes_and_newlines() {
        let text = to_csv(&response("a, \"b\""), None).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "a, \"b\"");
        assert_eq!(&row[2], "line one\nline \"two\", three");
        assert_eq!(&row[3], "example.org");
        assert_eq!(&row[4], "e");
        assert_eq!(&row[6], "result");
    }

    #[test]
    fn rss_escapes_and_drops_control_characters() {
        let xml = to_rss(
            &response("<b>x</b>\u{1}&"),
            None,
            "http://h/",
            "/search?q=q",
            20,
        )
        .unwrap();
        assert!(
            xml.contains("&#60;b&#62;x&#60;/b&#62;&#38;")
                || xml.contains("&lt;b&gt;x&lt;/b&gt;&amp;"),
            "{xml}"
        );
        assert!(!xml.contains('\u{1}'));
        assert!(
            xml.contains("b=1&#38;c=2") || xml.contains("b=1&amp;c=2"),
            "{xml}"
        );
    }
}
