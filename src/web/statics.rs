//! The stylesheet and icon, embedded in the binary so `metasift serve` runs
//! from any directory.
//!
//! Pages link them under a URL carrying a hash of their content
//! (`/static/style.css?v=…`), so they are served `immutable` for a year: a new
//! build with a changed file gets a new URL, and an old URL still answers the
//! file it named while the process lives.

use std::sync::LazyLock;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The stylesheet.
pub(super) const STYLE_CSS: &str = include_str!("../../static/style.css");
/// The icon.
pub(super) const FAVICON_SVG: &str = include_str!("../../static/favicon.svg");

static CSS_TAG: LazyLock<String> = LazyLock::new(|| tag(STYLE_CSS.as_bytes()));
static ICON_TAG: LazyLock<String> = LazyLock::new(|| tag(FAVICON_SVG.as_bytes()));

fn tag(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// The stylesheet's versioned URL.
pub(super) fn css_href() -> String {
    format!("/static/style.css?v={}", &CSS_TAG[..10])
}

/// The icon's versioned URL.
pub(super) fn icon_href() -> String {
    format!("/static/favicon.svg?v={}", &ICON_TAG[..10])
}

/// `GET /static/style.css`.
pub(super) async fn style(headers: HeaderMap) -> Response {
    serve(&headers, "text/css; charset=utf-8", STYLE_CSS, &CSS_TAG)
}

/// `GET /static/favicon.svg` and `/favicon.ico` (every browser in use takes
/// an SVG icon under either name).
pub(super) async fn favicon(headers: HeaderMap) -> Response {
    serve(&headers, "image/svg+xml", FAVICON_SVG, &ICON_TAG)
}

fn serve(
    headers: &HeaderMap,
    content_type: &'static str,
    body: &'static str,
    tag: &str,
) -> Response {
    let etag = format!("\"{tag}\"");
    let cache = [
        (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let etag = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"0\""));
    if matches {
        return (StatusCode::NOT_MODIFIED, cache, [(header::ETAG, etag)]).into_response();
    }
    (
        cache,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::ETAG, etag),
        ],
        body,
    )
        .into_response()
}
