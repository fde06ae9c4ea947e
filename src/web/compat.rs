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
use crate::engines::restrict;

/// `GET`/`POST /`: the search page, or — when the query string or the form
/// body carries a non-empty `q` — a 308 to `/search` with the same query
/// string. A 308 keeps the method and the body, so a `POST` form is posted
/// again to `/search` unchanged, as SearXNG does.
pub(super) async fn root(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<Response, super::AppError> {
    let has_q = form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .chain(form_urlencoded::parse(&body))
        .any(|(k, v)| k == "q" && !v.trim().is_empty());
    if !has_q {
        return super::index(State(state), headers).await;
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

/// `303 See Other` to `target` (an external bang's destination), never
/// cached: the same words may go elsewhere after a reload.
pub(super) fn see_other(target: &str) -> Response {
    match axum::http::HeaderValue::from_str(target) {
        Ok(location) => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, location),
                (
                    header::CACHE_CONTROL,
                    axum::http::HeaderValue::from_static("no-store"),
                ),
                (
                    header::REFERRER_POLICY,
                    axum::http::HeaderValue::from_static("no-referrer"),
                ),
            ],
        )
            .into_response(),
        // A template is checked at load and the words percent-encoded,
        // so this is not met; refuse rather than send a broken header.
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

/// SearXNG's `/config` answer (the keys its clients read).
#[derive(Debug, Serialize)]
pub(super) struct InstanceConfig {
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
    /// metasift's own: the external bangs (`!!name` → URL template with
    /// `{query}`), `[bangs]` of the configuration.
    pub bangs: BTreeMap<String, String>,
}

/// One engine in `/config`.
#[derive(Debug, Serialize)]
pub(super) struct EngineInfo {
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
    /// A safe-search level reaches it (`[engine.safesearch]`), or it
    /// filters adult content by itself; else `safesearch=2` leaves it out.
    pub safesearch: bool,
    /// A time range reaches it (`[engine.time_range]`).
    pub time_range_support: bool,
    /// metasift's own: it gives dates, so with a time range its results'
    /// dates are checked (instead of asking it, or after it was asked);
    /// false for an engine such a search leaves out and for one whose
    /// answers have no date to check (boxes, places: asked as usual).
    pub time_range_checked: bool,
    /// Its timeout in seconds.
    pub timeout: f64,
    /// The fusion weight.
    pub weight: f64,
    /// metasift's own: the search operators it is sent (`site`, `exclude`,
    /// `phrase`, `intitle`, `filetype`); the others are enforced on its
    /// results.
    pub operators: Vec<&'static str>,
    /// metasift's own: why it is never asked over the network although
    /// configured (a key it reads from the environment is not set: the
    /// `needs_env` presets are off for that reason); absent when it can be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
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
            safesearch: restrict::takes_safesearch(e),
            time_range_support: restrict::takes_time_range(e),
            time_range_checked: restrict::gives_dates(e),
            timeout: e.timeout_ms as f64 / 1000.0,
            weight: e.weight,
            operators: e.operators.iter().map(|o| o.as_str()).collect(),
            // A replaying engine answers from its recordings: no key asked.
            unavailable: e.unset_env.clone().filter(|_| e.replay.is_none()),
        }
    }
}

impl InstanceConfig {
    /// The description of an instance running `config`.
    pub(super) fn of(config: &Config) -> InstanceConfig {
        InstanceConfig {
            categories: super::pages::served_categories(config)
                .into_iter()
                .map(String::from)
                .collect(),
            engines: config.engines.iter().map(EngineInfo::of).collect(),
            plugins: Vec::new(),
            instance_name: "metasift",
            locales: super::i18n::locales().collect(),
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
            bangs: config
                .bangs
                .iter()
                .map(|(name, url)| (name.to_string(), url.to_string()))
                .collect(),
        }
    }
}

/// `GET /config`.
pub(super) async fn config(State(state): State<AppState>) -> Response {
    let searcher = state.searcher();
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        axum::Json(InstanceConfig::of(searcher.config())),
    )
        .into_response()
}

/// The peer of a request, when the server recorded it.
pub(super) type Peer = Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>;

/// Where this server is, for the absolute links of OpenSearch and RSS:
/// `[server] base_url` when set; else the request's `Host` — or, when the
/// peer is a trusted proxy (`[limits] trust_forwarded` / `trusted_proxies`,
/// as for `X-Forwarded-For`), its `X-Forwarded-Host` and
/// `X-Forwarded-Proto` — and `bind` when the request names no usable host.
/// Ends with `/`.
pub(super) fn public_base(config: &Config, headers: &axum::http::HeaderMap, peer: &Peer) -> String {
    if !config.server.base_url.is_empty() {
        return config.server.base_url.clone();
    }
    let trusted = peer.as_ref().is_some_and(|p| {
        let ip = p.0.0.ip().to_canonical();
        config.limits.trusted_nets().iter().any(|n| n.contains(&ip))
    });
    let first = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let proto = match trusted.then(|| first("x-forwarded-proto")).flatten() {
        Some(p) if p.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    let host = trusted
        .then(|| first("x-forwarded-host"))
        .flatten()
        .or_else(|| first("host"));
    host.and_then(|h| checked_base(proto, h))
        .unwrap_or_else(|| format!("http://{}/", config.server.bind))
}

/// `proto://host/` when `host` is a host (and port) and nothing else: no
/// path, user, query or fragment smuggled in through a header.
fn checked_base(proto: &str, host: &str) -> Option<String> {
    if host
        .chars()
        .any(|c| matches!(c, '/' | '\\' | '@' | '?' | '#') || c.is_whitespace() || c.is_control())
    {
        return None;
    }
    let u = url::Url::parse(&format!("{proto}://{host}/")).ok()?;
    u.host()?;
    Some(u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn links_follow_the_request_unless_base_url_is_set() {
        use axum::extract::ConnectInfo;
        let proxy: Peer = Some(axum::Extension(ConnectInfo(
            "127.0.0.1:4000".parse().unwrap(),
        )));
        let public: Peer = Some(axum::Extension(ConnectInfo(
            "198.51.100.7:4000".parse().unwrap(),
        )));
        let public_base = |c: &Config, h: &HeaderMap| public_base(c, h, &proxy);
        let mut config = Config::default();
        config.server.bind = "127.0.0.1:18888".into();
        let h = headers(&[
            ("host", "127.0.0.1:18888"),
            ("x-forwarded-host", "search.example"),
            ("x-forwarded-proto", "https"),
        ]);
        // Forwarded headers count only behind a trusted proxy.
        assert_eq!(public_base(&config, &h), "http://127.0.0.1:18888/");
        config.limits.trust_forwarded = true;
        assert_eq!(public_base(&config, &h), "https://search.example/");
        // ... and only from a trusted peer.
        assert_eq!(
            super::public_base(&config, &h, &public),
            "http://127.0.0.1:18888/"
        );
        assert_eq!(
            super::public_base(&config, &h, &None),
            "http://127.0.0.1:18888/"
        );
        // Hosts that smuggle a path or credentials fall back to bind.
        config.limits.trust_forwarded = false;
        for bad in ["evil.example/x", "a@evil.example", "a b"] {
            let h = headers(&[("host", bad)]);
            assert_eq!(public_base(&config, &h), "http://127.0.0.1:18888/", "{bad}");
        }
        assert_eq!(
            public_base(&config, &HeaderMap::new()),
            "http://127.0.0.1:18888/"
        );
        config.server.base_url = "https://fixed.example/".into();
        assert_eq!(public_base(&config, &h), "https://fixed.example/");
    }

    #[test]
    fn a_local_base_url_on_another_port_is_reported() {
        let mut config = Config::default();
        let addr = "127.0.0.1:18888".parse().unwrap();
        assert_eq!(config.server.base_url_disagrees(addr), None, "unset");
        config.server.base_url = "http://127.0.0.1:8888/".into();
        let w = config.server.base_url_disagrees(addr).expect("disagrees");
        assert!(w.contains("8888") && w.contains("127.0.0.1:18888"), "{w}");
        config.server.base_url = "http://localhost:18888/".into();
        assert_eq!(config.server.base_url_disagrees(addr), None);
        config.server.base_url = "https://search.example/".into();
        assert_eq!(
            config.server.base_url_disagrees(addr),
            None,
            "a proxy's name"
        );
    }
}
