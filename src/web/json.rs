//! `format=json`: SearXNG's shape, so programs written for SearXNG's API
//! read metasift's answers unchanged.
//!
//! The document itself is [`crate::format::SearxngResponse`], shared with
//! `metasift search --format json`; the web layer only applies `limit=`.

use crate::format::SearxngResponse;
use crate::model::SearchResponse;

/// The SearXNG-shaped answer for `resp`, keeping at most `limit` results.
pub fn answer(resp: &SearchResponse, limit: Option<usize>) -> SearxngResponse {
    let mut answer = SearxngResponse::from_response(resp);
    if let Some(limit) = limit {
        answer.results.truncate(limit);
        answer.number_of_results = answer.results.len();
    }
    answer
}
