//! Fan-out under deadlines, engine health and suspension, cache.
//!
//! (Skeleton API: the engines issue fills it in; the web layer codes against it.)

use std::sync::Arc;

use crate::config::Config;
use crate::dedup;
use crate::model::{Query, SearchResponse};

/// Per-search options that do not change which engines are asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchOptions {
    /// Dedup settings for this search (`method`, `os1`, `os2` from the query
    /// string); `None` = the configured ones.
    pub dedup: Option<dedup::Settings>,
    /// Fill `shared_codes` of every duplicate.
    pub explain: bool,
}

/// Asks member engines and fuses their answers. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Searcher {
    config: Arc<Config>,
}

impl Searcher {
    /// A searcher over `config`'s engines sharing one HTTP client.
    pub fn new(config: Arc<Config>, _client: reqwest::Client) -> Self {
        Searcher { config }
    }

    /// The configuration in use.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Splits `!shortcut` words off a raw query and returns the query to run.
    pub fn parse_query(&self, raw: &str, page: u32) -> Query {
        Query {
            text: raw.trim().to_string(),
            page: page.max(1),
            ..Query::default()
        }
    }

    /// Runs one search: fan-out under the deadline, dedup, fusion.
    pub async fn search(&self, query: &Query, _opts: &SearchOptions) -> SearchResponse {
        SearchResponse {
            query: query.clone(),
            ..SearchResponse::default()
        }
    }
}
