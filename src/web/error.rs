//! The one error type that crosses the HTTP edge.
//!
//! Handlers return `Result<Response, AppError>`; every failure a user can
//! cause is a 4xx with a sentence saying what to change, rendered in the
//! format the request asked for (an HTML page, a JSON object, a CSV or a feed),
//! so neither a browser nor an API client ever sees a bare 500.
//!
//! Every sentence is a catalog message ([`Msg`]): the HTML page speaks the
//! reader's language (chosen by [`in_readers_language`], a layer around
//! every route), JSON, CSV and RSS keep English, what API clients have
//! always read.

use askama::Template;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ui::{Format, Layout, Msg, Ui};

tokio::task_local! {
    /// The headers that choose the language and theme of the request being
    /// answered (read only when a page needs them: most answers never do).
    static READER: HeaderMap;
    /// The request's `q`, so an error page keeps it in its search box.
    static ASKED: String;
}

/// Layer: answers every request in its reader's language (the preferences
/// cookie, else `Accept-Language`), so an error page built deep in a
/// handler or a middleware — which sees no headers — speaks it too.
pub(super) async fn in_readers_language(request: Request, next: Next) -> Response {
    let mut kept = HeaderMap::new();
    for name in [header::COOKIE, header::ACCEPT_LANGUAGE] {
        for v in request.headers().get_all(&name) {
            kept.append(name.clone(), v.clone());
        }
    }
    let q = asked_query(request.uri().query().unwrap_or(""));
    READER.scope(kept, ASKED.scope(q, next.run(request))).await
}

/// The `q` of a query string, cut at the search box's 1000 characters.
fn asked_query(raw: &str) -> String {
    url::form_urlencoded::parse(raw.as_bytes())
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.chars().take(1000).collect())
        .unwrap_or_default()
}

/// The `q` of the request being answered (empty outside a request).
pub(super) fn reader_query() -> String {
    ASKED.try_with(Clone::clone).unwrap_or_default()
}

/// The reader's language and theme (English and auto outside a request).
pub(super) fn reader() -> Ui {
    READER
        .try_with(|h| super::prefs::Prefs::from_headers(h).ui(h))
        .unwrap_or_default()
}

/// An error page.
#[derive(Template)]
#[template(path = "error.html")]
pub(super) struct ErrorPage {
    /// Frame.
    pub layout: Layout,
    /// HTTP status code.
    pub status: u16,
    /// Its reason phrase, in the reader's language.
    pub reason: String,
    /// What to change, in the reader's language.
    pub message: String,
    /// The query the refused request asked, kept in the search box.
    pub q: String,
}

impl ErrorPage {
    /// The page of `status` saying `msg`, in `ui`'s language and theme.
    pub(super) fn of(status: StatusCode, msg: &Msg, ui: &Ui) -> ErrorPage {
        let tr = &ui.tr;
        let code = status.as_u16();
        let reason = tr
            .try_t(&format!("status-{code}"))
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("Error").to_string());
        ErrorPage {
            layout: Layout::of(&tr.s("error-title", "status", &reason), ui),
            status: code,
            reason,
            message: msg.text(tr),
            q: reader_query(),
        }
    }
}

/// What went wrong while answering one request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A parameter is missing, malformed or out of range.
    #[error("{message}")]
    BadRequest {
        /// What is wrong and what is accepted instead.
        message: Msg,
        /// The format the error is rendered in.
        format: Format,
    },
    /// A page template failed to render (a bug, not the user's fault).
    #[error("cannot render page: {0}")]
    Render(#[from] askama::Error),
    /// A CSV, RSS or OpenSearch document failed to render (a bug too).
    #[error("{0}")]
    Output(#[from] crate::output::FormatError),
}

impl AppError {
    /// A 400 answer with `message`, rendered as `format`.
    pub fn bad_request(message: Msg, format: Format) -> Self {
        AppError::BadRequest { message, format }
    }

    fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::Render(_) | AppError::Output(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn format(&self) -> Format {
        match self {
            AppError::BadRequest { format, .. } => *format,
            AppError::Render(_) | AppError::Output(_) => Format::Html,
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let format = self.format();
        let message = match self {
            AppError::BadRequest { message, .. } => message,
            other => {
                tracing::error!(message = %other, "request failed");
                Msg::new("error-internal").arg("detail", other)
            }
        };
        error_response(status, &message, format, None)
    }
}

/// An error answer in the format the client asked for: an HTML page, a JSON
/// object, a CSV with the reason in a column, or a feed whose description
/// is the reason — so a program reading CSV or RSS still gets a document
/// of its kind. `retry_after_s` (429, 503) adds a `retry_after` field, the
/// feed's `ttl` and the `Retry-After` header.
pub(super) fn error_response(
    status: StatusCode,
    msg: &Msg,
    format: Format,
    retry_after_s: Option<u64>,
) -> Response {
    let english = msg.to_string();
    let message = english.as_str();
    let mut response = match format {
        Format::Json => {
            let body = match retry_after_s {
                Some(s) => serde_json::json!({ "error": message, "retry_after": s }),
                None => serde_json::json!({ "error": message }),
            };
            (status, axum::Json(body)).into_response()
        }
        Format::Html => {
            let page = ErrorPage::of(status, msg, &reader());
            match page.render() {
                Ok(html) => (
                    status,
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    html,
                )
                    .into_response(),
                Err(_) => (
                    status,
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    format!("{message}\n"),
                )
                    .into_response(),
            }
        }
        Format::Csv => {
            let reason = crate::output::csv::cell(message).replace('"', "\"\"");
            let body = match retry_after_s {
                Some(s) => format!("error,retry_after\n\"{reason}\",{s}\n"),
                None => format!("error\n\"{reason}\"\n"),
            };
            (
                status,
                [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
                body,
            )
                .into_response()
        }
        Format::Rss => {
            let escape = |s: &str| {
                s.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            };
            let ttl = retry_after_s.map_or(String::new(), |s| {
                format!("<ttl>{}</ttl>", s.div_ceil(60).max(1))
            });
            (
                status,
                [(header::CONTENT_TYPE, "application/rss+xml; charset=utf-8")],
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>\
                     <title>metasift: {} {}</title><link>/</link><description>{}</description>\
                     {ttl}</channel></rss>\n",
                    status.as_u16(),
                    escape(status.canonical_reason().unwrap_or("Error")),
                    escape(message),
                ),
            )
                .into_response()
        }
    };
    if let Some(s) = retry_after_s {
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, HeaderValue::from(s));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
