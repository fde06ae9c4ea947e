//! The one error type that crosses the HTTP edge.
//!
//! Handlers return `Result<Response, AppError>`; every failure a user can
//! cause is a 4xx with a sentence saying what to change, rendered in the
//! format the request asked for (an HTML page, a JSON object or plain text),
//! so neither a browser nor an API client ever sees a bare 500.

use askama::Template;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::pages::{ErrorPage, Layout};
use super::params::Format;

/// What went wrong while answering one request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A parameter is missing, malformed or out of range.
    #[error("{message}")]
    BadRequest {
        /// What is wrong and what is accepted instead.
        message: String,
        /// The format the error is rendered in.
        format: Format,
    },
    /// A page template failed to render (a bug, not the user's fault).
    #[error("cannot render page: {0}")]
    Render(#[from] askama::Error),
    /// A CSV, RSS or OpenSearch document failed to render (a bug too).
    #[error("{0}")]
    Output(#[from] super::formats::FormatError),
}

impl AppError {
    /// A 400 answer with `message`, rendered as `format`.
    pub fn bad_request(message: impl Into<String>, format: Format) -> Self {
        AppError::BadRequest {
            message: message.into(),
            format,
        }
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
        let message = self.to_string();
        if status.is_server_error() {
            tracing::error!(%message, "request failed");
        }
        match self.format() {
            Format::Json => {
                let body = serde_json::json!({ "error": message });
                (status, axum::Json(body)).into_response()
            }
            Format::Html => {
                let page = ErrorPage {
                    layout: Layout::new(&format!("{} — metasift", status.as_u16())),
                    status: status.as_u16(),
                    reason: status.canonical_reason().unwrap_or("Error"),
                    message: &message,
                };
                match page.render() {
                    Ok(html) => (
                        status,
                        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                        html,
                    )
                        .into_response(),
                    Err(_) => plain(status, message),
                }
            }
            Format::Csv | Format::Rss => plain(status, message),
        }
    }
}

fn plain(status: StatusCode, message: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message + "\n",
    )
        .into_response()
}
