//! The OpenSearch description (`/opensearch.xml`) that lets a browser add
//! metasift to its search bar.

use askama::Template;

use super::FormatError;

#[derive(Template)]
#[template(path = "opensearch.xml")]
struct OpenSearch<'a> {
    base_url: &'a str,
}

/// The OpenSearch description, with search and suggestion URLs under
/// `base_url`.
pub(crate) fn opensearch_xml(base_url: &str) -> Result<String, FormatError> {
    Ok(OpenSearch {
        base_url: base_url.trim_end_matches('/'),
    }
    .render()?)
}
