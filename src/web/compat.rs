//! What SearXNG clients read besides `/search`: the root path as a search
//! (SearXNG answers `GET`/`POST /` with a `q` by a 308 to `/search`, which
//! keeps the method and the body, and LangChain's `SearxSearchWrapper` calls
//! the root path) and `GET /config`, the instance description clients read
//! to build their menus of categories, engines and languages.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use url::form_urlencoded;

use super::AppState;
use crate::config::{Config, EngineConfig};

/// `GET`/`POST /`: the search page, or — when the query string or the form
/// body carries a non-empty `q` — a 308 to `/search` with the same query
/// string. A 308 keeps the method and the body, so a `POST` form is posted
/// again to `/search` unchanged, as SearXNG does.
pub async fn root(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Result<Response, super::AppError> {
    let has_q = form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .chain(form_urlencoded::parse(&body))
        .any(|(k, v)| k == "q" && !v.trim().is_empty());
    if !has_q {
        return super::index(State(state)).await;
    }
    let location = match raw.as_deref() {
        Some(qs) if !qs.is_empty() => format!("/search?{qs}"),
        _ => "/search".to_string(),
    };
    Ok((
        StatusCode::PERMANENT_REDIRECT,
        [
            (header::LOCATION, location),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response())
}

/// SearXNG's `/config` answer (the keys its clients read).
#[derive(Debug, Serialize)]
pub struct InstanceConfig {
    /// Every category some enabled engine serves, `general` first.
    pub categories: Vec<String>,
    /// Every configured engine.
    pub engines: Vec<EngineInfo>,
    /// Plugins (none).
    pub plugins: Vec<serde_json::Value>,
    /// The instance's name.
    pub instance_name: &'static str,
    /// UI locales: code → name in that language.
    pub locales: BTreeMap<&'static str, &'static str>,
    /// The locale when the browser names none we have.
    pub default_locale: &'static str,
    /// The autocomplete source (an engine name), empty when none.
    pub autocomplete: String,
    /// Default safe-search level.
    pub safe_search: u8,
    /// The theme name SearXNG clients expect.
    pub default_theme: &'static str,
    /// metasift's version.
    pub version: &'static str,
    /// Links of the instance.
    pub brand: BTreeMap<&'static str, &'static str>,
    /// DOI resolvers (none).
    pub doi_resolvers: Vec<String>,
    /// Default DOI resolver (none).
    pub default_doi_resolver: &'static str,
}

/// One engine in `/config`.
#[derive(Debug, Serialize)]
pub struct EngineInfo {
    /// Its name in `engines.toml`.
    pub name: String,
    /// Its categories.
    pub categories: Vec<String>,
    /// Its first `!shortcut`, without the `!` (SearXNG's key is one string).
    pub shortcut: String,
    /// Enabled in `engines.toml`.
    pub enabled: bool,
    /// Its URL carries `{page}` or `{offset}`.
    pub paging: bool,
    /// Its URL carries `{lang}`.
    pub language_support: bool,
    /// Languages it is known to take (empty: any code is passed on).
    pub languages: Vec<String>,
    /// Safe search is not passed to engines yet.
    pub safesearch: bool,
    /// Time ranges are not passed to engines yet.
    pub time_range_support: bool,
    /// Its timeout in seconds.
    pub timeout: f64,
    /// The fusion weight.
    pub weight: f64,
}

impl EngineInfo {
    fn of(e: &EngineConfig) -> EngineInfo {
        EngineInfo {
            name: e.name.clone(),
            categories: e.categories.clone(),
            shortcut: e
                .shortcut
                .to_vec()
                .first()
                .map(|s| s.trim_start_matches('!').to_string())
                .unwrap_or_default(),
            enabled: e.enabled,
            paging: e.url.contains("{page}") || e.url.contains("{offset}"),
            language_support: e.url.contains("{lang}"),
            languages: Vec::new(),
            safesearch: false,
            time_range_support: false,
            timeout: e.timeout_ms as f64 / 1000.0,
            weight: e.weight,
        }
    }
}

impl InstanceConfig {
    /// The description of an instance running `config`.
    pub fn of(config: &Config) -> InstanceConfig {
        let mut categories: Vec<String> = Vec::new();
        for e in config.engines.iter().filter(|e| e.enabled) {
            for c in &e.categories {
                if !categories.contains(c) {
                    categories.push(c.clone());
                }
            }
        }
        categories.sort_by_key(|c| (c != "general", c.clone()));
        InstanceConfig {
            categories,
            engines: config.engines.iter().map(EngineInfo::of).collect(),
            plugins: Vec::new(),
            instance_name: "metasift",
            locales: super::i18n::LOCALES.iter().copied().collect(),
            default_locale: super::i18n::DEFAULT_LOCALE,
            autocomplete: config.server.autocomplete.clone().unwrap_or_default(),
            safe_search: 0,
            default_theme: "simple",
            version: env!("CARGO_PKG_VERSION"),
            brand: BTreeMap::from([
                ("GIT_URL", ""),
                ("DOCS_URL", ""),
                ("ISSUE_URL", ""),
                ("PUBLIC_INSTANCES", ""),
                ("CONTACT_URL", ""),
                ("WIKI_URL", ""),
            ]),
            doi_resolvers: Vec::new(),
            default_doi_resolver: "",
        }
    }
}

/// `GET /config`.
pub async fn config(State(state): State<AppState>) -> Response {
    let searcher = state.searcher();
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        axum::Json(InstanceConfig::of(searcher.config())),
    )
        .into_response()
}
