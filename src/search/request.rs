//! One search, built once: what a request asked for ([`Asked`]: the words
//! typed, the page, the engines and categories named, the language, time
//! range and safe search, the dedup values laid over `[dedup]`, …) and the
//! configuration make a [`SearchRequest`] in [`Searcher::request`] — the
//! query (bangs and `:lang` read), the engines chosen, the dedup settings in
//! force — which is then handed down whole: the fan-out asks the engines it
//! names, fusion uses its settings, and the page shows both.

use metasift_dedup::{self as dedup, SettingsPatch};

use super::{Progress, SearchOptions, Searcher};
use crate::model::Query;

/// What a request asked for, before the configuration is consulted. The web
/// layer fills it from the parameters with the preferences cookie's values
/// under them; the command line from its arguments.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// The words typed, `!shortcut`s and `:lang` included.
    pub q: String,
    /// 1-based page.
    pub page: u32,
    /// Engines named (`engines=`); a `!shortcut` in `q` wins over them.
    pub engines: Vec<String>,
    /// Categories named (`categories=`); a `!category` in `q` wins.
    pub categories: Vec<String>,
    /// Engines left out unless named (the preferences' unticked ones).
    pub disabled: Vec<String>,
    /// Language code; wins over a `:lang` word.
    pub language: Option<String>,
    /// `day` | `week` | `month` | `year`.
    pub time_range: Option<String>,
    /// 0 | 1 | 2.
    pub safesearch: Option<u8>,
    /// Values laid over the configured `[dedup]`.
    pub dedup: SettingsPatch,
    /// The fusion method asked for (`fusion=`), with `[fusion]`'s other
    /// values.
    pub fusion: Option<crate::config::FusionMethod>,
    /// Fill `shared_codes` of every duplicate.
    pub explain: bool,
    /// Results per page; `None` = `[server] results_per_page`.
    pub per_page: Option<usize>,
    /// The searcher's own hostname rules, laid over `[hostnames]`.
    pub hosts: Option<std::sync::Arc<crate::hosts::Rules>>,
}

/// Why a request makes no search.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestError {
    /// Nothing to search for once `!shortcut`s and `:lang` are read.
    EmptyQuery,
    /// The dedup settings asked for are out of range: the field and why.
    Settings(&'static str, String),
    /// Engines were named and none of them is configured: their names.
    UnknownEngines(Vec<String>),
    /// An external bang (`!!w rust`): the searcher goes to this address
    /// (the site's own search, or its home page) instead.
    ExternalBang(String),
    /// The query is made of operators alone (`site:example.org`) and none
    /// of the engines it would ask understands them: nothing to search for.
    OperatorsOnly,
}

impl RequestError {
    /// What the refusal says to a person or an agent, naming the argument
    /// at fault (`query:`, `engines:`, or a dedup field); `config` gives
    /// the engines there are when none of those named is configured.
    pub fn describe(&self, config: &crate::config::Config) -> String {
        match self {
            RequestError::EmptyQuery => {
                "query: nothing to search for once !shortcuts and :lang are read".into()
            }
            RequestError::Settings(field, why) => format!("{field}: {why}"),
            RequestError::UnknownEngines(names) => {
                let known: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
                format!(
                    "engines: none of {} is configured here; the engines are: {}",
                    names.join(", "),
                    known.join(", ")
                )
            }
            RequestError::ExternalBang(to) => {
                format!("query: an external bang goes to that site's own search: {to}")
            }
            RequestError::OperatorsOnly => {
                "query: it holds only operators (site:, -word, filetype:, …) and none of the \
                 engines it would ask understands them; add words to search for"
                    .into()
            }
        }
    }
}

/// One search, with everything decided that the configuration decides.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query the engines are asked.
    pub query: Query,
    /// How it is fused and paged (`opts.dedup`: the settings asked for
    /// when they change anything of `[dedup]`).
    pub opts: SearchOptions,
    /// The dedup settings in force: `[dedup]` with the request's values
    /// laid over it.
    pub settings: dedup::Settings,
    /// The fusion settings in force: `[fusion]` with the request's method.
    pub fusion: crate::config::FusionSettings,
    /// Whether the request's settings differ from `[dedup]` or `[fusion]`
    /// (the page then shows the comparison with the configured ones).
    pub other_settings: bool,
    /// Whether answering costs a fusion even when the answers are cached
    /// (other dedup or fusion settings, or `explain`): such a request is
    /// never refunded to the client's rate limit.
    pub refits: bool,
    /// Indexes into `config.engines` of the engines asked, in
    /// configuration order: chosen once, here.
    pub(super) selected: Vec<usize>,
    /// Their names, in the same order.
    pub engines: Vec<String>,
}

impl SearchRequest {
    /// The same request, telling `progress` how each engine fared as soon
    /// as it has.
    pub fn with_progress(mut self, progress: Progress) -> SearchRequest {
        self.opts.progress = Some(progress);
        self
    }
}

impl Searcher {
    /// The one place a request becomes a search: reads `!shortcut`s and
    /// `:lang` off the words typed, lays the named engines, categories,
    /// language, time range and safe search over them, leaves out the
    /// disabled engines (unless that leaves none, or engines are named),
    /// chooses the engines asked, and lays the dedup values over `[dedup]`.
    pub fn request(&self, asked: Asked) -> Result<SearchRequest, RequestError> {
        let config = self.config();
        let mut query = self.parse_query(&asked.q, asked.page);
        if let Some(target) = query.external_bang.take() {
            return Err(RequestError::ExternalBang(target));
        }
        if query.text.trim().is_empty() {
            return Err(RequestError::EmptyQuery);
        }
        // The words typed win: a `!shortcut` or `!category` in them picks
        // the engines, and `engines=` / `categories=` apply only without.
        if query.engines.is_empty() && query.categories.is_empty() {
            query.engines = asked.engines;
            // As SearXNG: names no enabled engine serves are left out.
            query.categories = super::categories::known(config, &asked.categories);
            // Nothing named, and no enabled engine serves `general` (an
            // instance of science engines only): the first category served.
            if query.engines.is_empty() && query.categories.is_empty() {
                let served = super::categories::served(config);
                if let Some(first) = served.first().filter(|c| **c != "general") {
                    query.categories = vec![first.to_string()];
                }
            }
        }
        if asked.language.is_some() {
            query.lang = asked.language;
        }
        if asked.time_range.is_some() {
            query.time_range = asked.time_range;
        }
        if asked.safesearch.is_some() {
            query.safesearch = asked.safesearch;
        }
        let mut selected = self.select(&query);
        if selected.is_empty() && !query.operators.is_empty() && !self.asked(&query).is_empty() {
            return Err(RequestError::OperatorsOnly);
        }
        // Engines named, none of them configured: say so, not a silent zero.
        if selected.is_empty() && !query.engines.is_empty() {
            return Err(RequestError::UnknownEngines(query.engines));
        }
        // Engines switched off in the preferences are left out, unless named.
        if query.engines.is_empty() && !asked.disabled.is_empty() {
            let kept: Vec<usize> = selected
                .iter()
                .copied()
                .filter(|&i| !asked.disabled.contains(&config.engines[i].name))
                .collect();
            if !kept.is_empty() {
                query.engines = kept
                    .iter()
                    .map(|&i| config.engines[i].name.clone())
                    .collect();
                selected = kept;
            }
        }
        let requested = (!asked.dedup.is_empty()).then(|| asked.dedup.over(&config.dedup));
        if let Some(s) = &requested
            && let Err((field, why)) = s.validate()
        {
            return Err(RequestError::Settings(field, why));
        }
        let fusion = asked
            .fusion
            .map(|m| config.fusion.with_method(m))
            .filter(|f| *f != config.fusion);
        let opts = SearchOptions {
            dedup: requested,
            fusion,
            explain: asked.explain,
            progress: None,
            per_page: asked.per_page,
            hosts: asked.hosts,
        };
        Ok(self.with_selection(query, opts, selected))
    }

    /// A request for a query made elsewhere (`parse_query` and its own
    /// choice of engines): the engines are chosen here, once.
    pub fn prepare(&self, query: Query, opts: SearchOptions) -> SearchRequest {
        let selected = self.select(&query);
        self.with_selection(query, opts, selected)
    }

    fn with_selection(
        &self,
        query: Query,
        opts: SearchOptions,
        selected: Vec<usize>,
    ) -> SearchRequest {
        let config = self.config();
        let settings = opts.dedup.clone().unwrap_or_else(|| config.dedup.clone());
        let fusion = opts.fusion.unwrap_or(config.fusion);
        let other = settings != config.dedup || fusion != config.fusion;
        SearchRequest {
            other_settings: other,
            refits: other || opts.explain,
            settings,
            fusion,
            engines: selected
                .iter()
                .map(|&i| config.engines[i].name.clone())
                .collect(),
            selected,
            query,
            opts,
        }
    }
}
