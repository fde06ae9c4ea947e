//! What an instance open to the internet needs beyond the pages: telling
//! crawlers to stay out, keeping the operator's pages (`/stats`,
//! `/metrics`) to the operator, serving only the result formats the admin
//! lists, and an access log with per-route metrics.
//!
//! - `/robots.txt` allows the front page only, and every other answer
//!   carries `X-Robots-Tag: noindex, nofollow` (as SearXNG sends): a result
//!   page indexed by a search engine is a loop nobody wants.
//! - With `[server] public = true`, `/stats` and `/metrics` answer only a
//!   loopback client (behind trusted proxies, the client they name)
//!   or a request with `Authorization: Bearer $METASIFT_METRICS_TOKEN`;
//!   others get 403. A private instance (the default) leaves them open.
//! - `[server] formats` lists the formats `/search` serves; another gets
//!   403, as SearXNG answers a format missing from its `search.formats`.
//! - The access log is one line per request (method, route, path, status,
//!   time) at `info` under the `metasift::access` target; never the query
//!   string (what people search for is theirs; `log_queries` logs it
//!   separately) nor the client's address.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::ui::Format;
use crate::ops::limit::ClientKey;

/// The front page may be indexed; nothing else.
const ROBOTS_TXT: &str = "User-agent: *\nAllow: /$\nDisallow: /\n";

/// `GET /robots.txt`.
pub(super) async fn robots() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        ROBOTS_TXT,
    )
        .into_response()
}

/// Whether a request is for the front page without a query (or
/// `robots.txt` itself): the only answers without `X-Robots-Tag`.
fn indexable(uri: &axum::http::Uri) -> bool {
    let path = uri.path();
    (path == "/" && uri.query().is_none_or(str::is_empty)) || path == "/robots.txt"
}

/// Middleware of `/stats` and `/metrics`: on a public instance, loopback
/// clients or the bearer token only.
pub(super) async fn operator_only(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let searcher = state.searcher();
    let config = searcher.config();
    if !config.server.public {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)), |c| c.0);
    let forwarded = super::admin::forwarded_for(&request);
    // The client itself, after the trusted proxies ([limits]).
    let client = ClientKey::new(&config.limits).address(peer, &forwarded);
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(super::admin::bearer_token);
    let token_ok = match (state.ops.metrics_token.as_deref(), bearer) {
        (Some(want), Some(got)) => super::admin::same_secret(want.as_bytes(), got.as_bytes()),
        _ => false,
    };
    if client.is_loopback() || token_ok {
        return next.run(request).await;
    }
    (
        StatusCode::FORBIDDEN,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        "This page is for the operator of this public instance (loopback, or \
         Authorization: Bearer with METASIFT_METRICS_TOKEN).\n",
    )
        .into_response()
}

/// The 403 of a format `[server] formats` does not list, or `None`.
pub(super) fn refuse_format(state: &AppState, format: Format) -> Option<Response> {
    let searcher = state.searcher();
    let formats = &searcher.config().server.formats;
    if formats.iter().any(|f| f == format.as_str()) {
        return None;
    }
    let shown = if formats.iter().any(|f| f == "html") {
        Format::Html
    } else {
        format
    };
    Some(super::error::error_response(
        StatusCode::FORBIDDEN,
        &super::ui::Msg::new("error-format-refused")
            .arg("format", format.as_str())
            .arg("formats", formats.join(", ")),
        shown,
        None,
    ))
}

/// Middleware: one access-log line and the HTTP metrics per request, the
/// security headers ([`super::SECURITY_HEADERS`]) where the handler set
/// none, and `X-Robots-Tag: noindex, nofollow` on every answer but the
/// front page without a query (and `robots.txt` itself). One layer for
/// all: every layer costs each request a clone of its service and a
/// future of its own.
pub(super) async fn access_log(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    // Shares the request's bytes: no copy unless the line is written.
    let uri = request.uri().clone();
    // The route pattern keeps the metric labels few (every unknown path is
    // one "unmatched").
    let route = request.extensions().get::<MatchedPath>().cloned();
    let route = route.as_ref().map_or("unmatched", MatchedPath::as_str);
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in &super::SECURITY_HEADERS {
        if !headers.contains_key(name) {
            headers.insert(name, value.clone());
        }
    }
    if !indexable(&uri) {
        response.headers_mut().insert(
            "x-robots-tag",
            HeaderValue::from_static("noindex, nofollow"),
        );
    }
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    state.ops.http.observe(route, status, elapsed);
    tracing::info!(
        target: "metasift::access",
        method = %method,
        route = %route,
        path = %uri.path(),
        status,
        ms = elapsed.as_secs_f64() * 1000.0,
        "request"
    );
    response
}
