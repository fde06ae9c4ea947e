//! The operator's side of the web layer: `/stats`, `/metrics`, the rate
//! limits in front of `/search` and `/autocomplete`, the 503 for load, and
//! `POST /admin/reload`.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::SystemTime;

use askama::Template;
use axum::extract::{ConnectInfo, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::i18n::Tr;
use super::ui::{Format, Layout, Ui};
use crate::config::Config;
use crate::ops::health::{EngineSnapshot, HealthSnapshot};
use crate::ops::limit::{Decision, RateLimiter};

/// The format an answer that never reaches the handler should use: the
/// `format=` of the query string or of a form body (the query string wins,
/// an empty value counts as absent, as in [`super::SearchParams`]), else JSON
/// for clients that only accept it.
pub(super) fn wanted_format(raw_query: Option<&str>, body: &[u8], headers: &HeaderMap) -> Format {
    let asked = url::form_urlencoded::parse(raw_query.unwrap_or("").as_bytes())
        .chain(url::form_urlencoded::parse(body))
        .find(|(k, v)| k == "format" && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_ascii_lowercase());
    match asked.as_deref() {
        Some(f) => Format::parse(f).unwrap_or(Format::Html),
        None => {
            let accept = headers
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if accept.contains("application/json") && !accept.contains("text/html") {
                Format::Json
            } else {
                Format::Html
            }
        }
    }
}

/// A refusal (429, 503) in the format the client asked for.
pub(super) fn refusal(
    status: StatusCode,
    message: &super::ui::Msg,
    format: Format,
    retry_after_s: u64,
) -> Response {
    super::error::error_response(status, message, format, Some(retry_after_s))
}

/// The 503 for a search refused because too many are in flight.
pub(super) fn overloaded(format: Format) -> Response {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        &super::ui::Msg::new("error-overloaded"),
        format,
        1,
    )
}

/// Middleware: the per-client rate limit of `/search` (429 with
/// `Retry-After`, in the format the search asked for).
pub(super) async fn rate_limit(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let limiter = state.live().limiter;
    admit(&state, &limiter, request, next, Limited::Search).await
}

/// Middleware: the per-client rate limit of `/autocomplete`, on its own
/// budget (`[limits] autocomplete_per_minute`); refusals are JSON.
pub(super) async fn rate_limit_autocomplete(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let limiter = state.live().suggest_limiter;
    admit(&state, &limiter, request, next, Limited::Autocomplete).await
}

/// Middleware: the per-client rate limit of `/lab` sweeps (`[limits]
/// lab_per_minute`); showing the empty form is free, running a sweep
/// (`POST`, or `GET` with a query) counts.
pub(super) async fn rate_limit_lab(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == axum::http::Method::GET
        && request.uri().query().is_none_or(str::is_empty)
    {
        return next.run(request).await;
    }
    let limiter = state.live().lab_limiter;
    admit(&state, &limiter, request, next, Limited::Lab).await
}

/// The token of an `Authorization: Bearer TOKEN` value: the scheme is
/// case-insensitive (RFC 9110 §11.1), spaces around the token are not
/// part of it.
pub(super) fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim_start().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Marks a response answered from the cache, which asked no engine.
#[derive(Debug, Clone, Copy)]
pub(super) struct ServedFromCache;

/// Which route a limiter guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limited {
    Search,
    Autocomplete,
    Lab,
}

/// The `X-Forwarded-For` headers of `request`, in order (which hop to
/// believe is `ops::limit::ClientKey`'s to decide, from the trusted proxies).
pub(super) fn forwarded_for(request: &Request) -> Vec<&str> {
    request
        .headers()
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect()
}

async fn admit(
    state: &AppState,
    limiter: &RateLimiter,
    request: Request,
    next: Next,
    route: Limited,
) -> Response {
    // No limit (`per_minute = 0`): nothing to count or take back.
    if limiter.config().emission_interval().is_none() {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), |c| c.0);
    let forwarded = forwarded_for(&request);
    let client = limiter.client(peer, &forwarded);
    let Decision::Deny { retry_after_s } = limiter.check(client).await else {
        let response = next.run(request).await;
        // Only searches that reach the engines spend the budget.
        if response.extensions().get::<ServedFromCache>().is_some() {
            limiter.refund(client).await;
        }
        return response;
    };
    crate::ops::health::Counters::bump(&state.searcher().health().counters().rate_limited);
    let (format, what) = match route {
        // Suggestions are JSON whatever else the request says.
        Limited::Autocomplete => (Format::Json, "error-rate-limited-suggestions"),
        // The lab is a page: its refusal is one.
        Limited::Lab => (Format::Html, "error-rate-limited-lab"),
        Limited::Search => {
            let (parts, body) = request.into_parts();
            // The request is refused, so its body may be read: a POST form
            // names its format there. (Bounded like every body.)
            let body = axum::body::to_bytes(body, super::MAX_BODY)
                .await
                .unwrap_or_default();
            (
                wanted_format(parts.uri.query(), &body, &parts.headers),
                "error-rate-limited-searches",
            )
        }
    };
    refusal(
        StatusCode::TOO_MANY_REQUESTS,
        &super::ui::Msg::new(what).arg("n", retry_after_s),
        format,
        retry_after_s,
    )
}

/// One engine's row on the `/stats` page, formatted for display.
#[derive(Debug, Clone)]
pub(super) struct EngineRow {
    /// Its name on the page.
    pub name: String,
    /// Its `engines.toml` name.
    pub id: String,
    /// `enabled = false`: asked only when a search names it.
    pub disabled: bool,
    /// Suspended now.
    pub suspended: bool,
    /// Last request failed.
    pub failing: bool,
    /// "ok", "failing (2 in a row: timeout)", "suspended until … (in 25 s)".
    pub status: String,
    /// Requests sent.
    pub requests: u64,
    /// "98 %" or "–".
    pub reliability: String,
    /// Results parsed.
    pub results: u64,
    /// "120 / 340 / 900" or "–".
    pub latency: String,
    /// "timeout 3, http_5xx 1" or "–".
    pub errors: String,
    /// What the last failure said, kept after a recovery.
    pub last_message: Option<String>,
    /// When (HTTP date).
    pub last_at: String,
}

impl EngineRow {
    fn new(e: &EngineSnapshot, tr: &Tr) -> EngineRow {
        let status = if let (true, Some(secs)) = (e.suspended, e.suspended_for_s) {
            let status = tr.n("stats-suspended", secs);
            // Which instance met the block, when instances share health.
            match &e.suspended_by {
                Some(by) => format!("{status} — {by}"),
                None => status,
            }
        } else if e.consecutive_failures > 0 {
            tr.with(
                "stats-failing",
                &[
                    ("n", e.consecutive_failures.to_string()),
                    (
                        "kind",
                        e.last_failure
                            .as_deref()
                            .map(|k| tr.t(&format!("failure-{k}")))
                            .unwrap_or_default(),
                    ),
                ],
            )
        } else if e.requests == 0 {
            tr.t("stats-not-asked")
        } else {
            tr.t("status-ok")
        };
        let ms = |v: Option<u64>| v.map_or("–".to_string(), |v| v.to_string());
        EngineRow {
            name: tr.engine(&e.name),
            id: e.name.clone(),
            disabled: false,
            suspended: e.suspended,
            failing: e.consecutive_failures > 0,
            status,
            requests: e.requests,
            reliability: e
                .reliability
                .map_or("–".into(), |r| format!("{:.0} %", r * 100.0)),
            results: e.results,
            latency: if e.p50_ms.is_some() {
                format!("{} / {} / {}", ms(e.p50_ms), ms(e.p95_ms), ms(e.p99_ms))
            } else {
                "–".into()
            },
            last_message: e.last_failure_message.clone(),
            last_at: e.last_failure_at.clone().unwrap_or_default(),
            errors: if e.errors.is_empty() {
                "–".into()
            } else {
                e.errors
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        }
    }
}

/// `GET /stats` as HTML.
#[derive(Template)]
#[template(path = "stats.html")]
pub(super) struct StatsPage {
    /// Frame.
    pub layout: Layout,
    /// The strings.
    pub tr: Tr,
    /// "2 h 5 min".
    pub uptime: String,
    /// Searches asked for.
    pub searches: u64,
    /// Cache hits.
    pub cache_hits: u64,
    /// Cache misses.
    pub cache_misses: u64,
    /// "73 %" or "–".
    pub hit_rate: String,
    /// Joined a search in flight.
    pub coalesced: u64,
    /// 429s.
    pub rate_limited: u64,
    /// 503s.
    pub overloaded: u64,
    /// Cache backend failures.
    pub cache_errors: u64,
    /// Engines suspended now.
    pub suspended_count: usize,
    /// One row per engine.
    pub engines: Vec<EngineRow>,
    /// The suspension rules in force, in words (they come from `[health]`).
    pub policy: String,
    /// One row per proxy (`[outgoing]`, `proxy =`): never its credentials.
    pub proxies: Vec<ProxyRow>,
}

/// One proxy's row on `/stats`.
pub(super) struct ProxyRow {
    /// `scheme://host:port`.
    pub proxy: String,
    /// "resting (25 s more)", "ok", "not used yet".
    pub status: String,
    /// Requests sent through it.
    pub requests: u64,
    /// Requests it failed.
    pub failures: u64,
    /// What its last failure said.
    pub last_error: Option<String>,
    /// Whether it rests now.
    pub resting: bool,
}

impl StatsPage {
    /// The same page with the proxies' rows.
    pub(super) fn with_proxies(mut self, proxies: &[crate::search::ProxySnapshot]) -> StatsPage {
        self.proxies = proxies
            .iter()
            .map(|p| ProxyRow {
                proxy: p.proxy.clone(),
                status: match p.resting_for_s {
                    Some(n) => self.tr.with_n("stats-proxy-resting", n, &[]),
                    None if p.requests == 0 => self.tr.t("stats-not-asked"),
                    None => "ok".into(),
                },
                requests: p.requests,
                failures: p.failures,
                last_error: p.last_error.clone(),
                resting: p.resting,
            })
            .collect();
        self
    }
}

/// "30 s", "10 min", "1 h 30 min", "0.3 s".
fn span(secs: f64) -> String {
    let whole = secs.round() as u64;
    match whole {
        _ if secs < 1.0 => format!("{secs:.1} s"),
        t if t < 60 || t % 60 != 0 && t < 3600 => format!("{t} s"),
        t if t < 3600 => format!("{} min", t / 60),
        t if t % 3600 == 0 => format!("{} h", t / 3600),
        t => format!("{} h {} min", t / 3600, t % 3600 / 60),
    }
}

impl StatsPage {
    /// The same page with the engines `config` disables said so: one that
    /// was never asked is "disabled", not "not asked yet" (a search that
    /// names it still asks it, and then its row counts as any other).
    pub(super) fn with_disabled(mut self, config: &Config) -> StatsPage {
        for row in &mut self.engines {
            let off = config
                .engines
                .iter()
                .any(|e| e.name == row.id && !e.enabled);
            if off {
                row.disabled = true;
                if row.requests == 0 && !row.suspended && !row.failing {
                    row.status = self.tr.t("stats-disabled");
                }
            }
        }
        self
    }

    /// The page for a snapshot, in `ui`'s language and theme.
    pub(super) fn new(s: &HealthSnapshot, ui: &Ui) -> StatsPage {
        let tr = &ui.tr;
        let lookups = s.cache_hits + s.cache_misses;
        StatsPage {
            layout: Layout::of(&format!("{} — metasift", tr.t("stats-title")), ui),
            tr: tr.clone(),
            uptime: match s.uptime_s {
                t if t < 60 => format!("{t} s"),
                t if t < 3600 => format!("{} min", t / 60),
                t => format!("{} h {} min", t / 3600, t % 3600 / 60),
            },
            searches: s.searches,
            cache_hits: s.cache_hits,
            cache_misses: s.cache_misses,
            hit_rate: if lookups == 0 {
                "–".into()
            } else {
                format!("{:.0} %", s.cache_hits as f64 * 100.0 / lookups as f64)
            },
            coalesced: s.coalesced,
            rate_limited: s.rate_limited,
            overloaded: s.overloaded,
            cache_errors: s.cache_errors,
            suspended_count: s.engines.iter().filter(|e| e.suspended).count(),
            engines: s.engines.iter().map(|e| EngineRow::new(e, tr)).collect(),
            policy: {
                let p = &s.policy;
                tr.with_n(
                    "stats-policy",
                    u64::from(p.failures_before_suspend),
                    &[
                        ("ring", crate::ops::health::LATENCY_RING.to_string()),
                        ("window", p.reliability_window.to_string()),
                        ("backoff", span(p.backoff_s)),
                        ("max", span(p.max_backoff_s)),
                        ("blocked", span(p.blocked_backoff_s)),
                    ],
                )
            },
            proxies: Vec::new(),
        }
    }
}

/// `GET /stats`: per-engine health as a page, or `?format=json`.
pub(super) async fn stats(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let now = SystemTime::now();
    let snapshot = state.searcher().health().snapshot(now);
    let proxies = state.searcher().proxies(now);
    let no_store = (header::CACHE_CONTROL, "no-store");
    if wanted_format(raw.as_deref(), b"", &HeaderMap::new()) == Format::Json {
        #[derive(serde::Serialize)]
        struct Stats {
            #[serde(flatten)]
            health: crate::ops::health::HealthSnapshot,
            proxies: Vec<crate::search::ProxySnapshot>,
        }
        let body = Stats {
            health: snapshot,
            proxies,
        };
        return ([no_store], axum::Json(body)).into_response();
    }
    let ui = super::prefs::Prefs::from_headers(&headers).ui(&headers);
    let page = StatsPage::new(&snapshot, &ui)
        .with_disabled(state.searcher().config())
        .with_proxies(&proxies);
    match page.render() {
        Ok(html) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8"), no_store],
            html,
        )
            .into_response(),
        Err(e) => super::AppError::from(e).into_response(),
    }
}

/// `GET /metrics`: Prometheus text format 0.0.4.
pub(super) async fn metrics(State(state): State<AppState>) -> Response {
    let searcher = state.searcher();
    let mut text = searcher.health().render_prometheus(SystemTime::now());
    crate::ops::metrics::render_build_info(&mut text);
    crate::ops::metrics::render_gauge(
        &mut text,
        "metasift_searches_in_flight",
        "Searches asking the engines right now (under [limits] max_in_flight).",
        searcher.in_flight().map(|n| n as f64),
    );
    crate::ops::metrics::render_gauge(
        &mut text,
        "metasift_cache_entries",
        "Answers held by the in-memory cache (absent with Redis).",
        searcher.cache().entries().map(|n| n as f64),
    );
    state.ops.http.render(&mut text);
    (
        [
            (
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        text,
    )
        .into_response()
}

/// Compares without an early exit, so timing does not reveal the token.
pub(super) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `POST /admin/reload` (mounted only with a token): re-reads the file.
pub(super) async fn admin_reload(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let text = |status: StatusCode, body: String| {
        (
            status,
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            body,
        )
            .into_response()
    };
    let Some(token) = state.ops.admin_token.as_deref() else {
        return text(StatusCode::NOT_FOUND, "not found\n".into());
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token)
        .unwrap_or("");
    if !same_secret(given.as_bytes(), token.as_bytes()) {
        let mut r = text(
            StatusCode::UNAUTHORIZED,
            "a valid `Authorization: Bearer <METASIFT_ADMIN_TOKEN>` header is required\n".into(),
        );
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    }
    match state.reload().await {
        Ok(message) => {
            tracing::info!("{}", message.trim_end());
            text(StatusCode::OK, message)
        }
        Err(e) => {
            tracing::warn!("reload refused, running configuration kept: {e}");
            text(
                StatusCode::BAD_REQUEST,
                format!("reload refused; the running configuration is kept:\n{e}\n"),
            )
        }
    }
}

/// Liveness: the process answers.
pub(super) async fn healthz() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        "ok\n",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::health::Health;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }

    #[test]
    fn spans_read_like_a_person_writes_them() {
        assert_eq!(span(30.0), "30 s");
        assert_eq!(span(90.0), "90 s");
        assert_eq!(span(600.0), "10 min");
        assert_eq!(span(3600.0), "1 h");
        assert_eq!(span(5400.0), "1 h 30 min");
        assert_eq!(span(0.3), "0.3 s");
        // The defaults read as the page read before `[health]` existed.
        let page = StatsPage::new(
            &Health::default().snapshot(SystemTime::now()),
            &Ui::default(),
        );
        assert!(
            page.policy.contains(
                "suspended for 30 s after 3 failures in a row, doubling up to 10 min; \
                 a CAPTCHA or HTTP 429 suspends it for 5 min at once"
            ),
            "{}",
            page.policy
        );
    }

    #[test]
    fn refusals_name_the_format() {
        let h = HeaderMap::new();
        assert_eq!(
            wanted_format(Some("q=x&format=json"), b"", &h),
            Format::Json
        );
        assert_eq!(wanted_format(Some("q=x"), b"", &h), Format::Html);
        // A form body names it too; the query string wins, blanks are absent.
        assert_eq!(wanted_format(None, b"q=x&format=csv", &h), Format::Csv);
        assert_eq!(
            wanted_format(Some("format=rss"), b"format=json", &h),
            Format::Rss
        );
        assert_eq!(
            wanted_format(Some("format="), b"format=JSON", &h),
            Format::Json
        );
        assert_eq!(wanted_format(None, b"format=xml", &h), Format::Html);
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(wanted_format(None, b"", &h), Format::Json);
    }
}
