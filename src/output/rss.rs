//! RSS 2.0 of a search (`format=rss`), with OpenSearch response elements,
//! like SearXNG's. XML 1.0 cannot carry most control characters even
//! escaped, so they are dropped from engine text before it goes in.

use askama::Template;

use super::FormatError;
use crate::model::SearchResponse;

#[derive(Template)]
#[template(path = "rss.xml")]
struct RssFeed<'a> {
    base_url: &'a str,
    query: String,
    search_href: String,
    total: usize,
    per_page: usize,
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
        total: resp.number_of_results(),
        per_page: items.len(),
        start_index: (page - 1) * per_page + 1,
        items,
    };
    Ok(feed.render()?)
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
    use crate::output::test_data::response;

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
