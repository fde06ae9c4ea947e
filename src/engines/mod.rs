//! Member engines: one [`Engine`] trait, one file per kind.
//!
//! Building a request is separate from a sync, pure [`Engine::parse`] of the
//! body, so parsers are tested on saved pages with no network.

use crate::config::EngineConfig;
use crate::model::{FailureKind, Query};

/// A parse failure or a page that is not a results page.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// A CAPTCHA, bot check or "service unavailable" page.
    #[error("blocked: {0}")]
    Blocked(String),
    /// The body is not what this kind of engine answers.
    #[error("cannot parse answer: {0}")]
    Invalid(String),
}

impl ParseError {
    /// The failure kind reported for this error.
    pub fn kind(&self) -> FailureKind {
        match self {
            ParseError::Blocked(_) => FailureKind::Blocked,
            ParseError::Invalid(_) => FailureKind::Parse,
        }
    }
}

/// One result as parsed from a page, before it is given an engine and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Target URL, absolute, redirect wrappers unwrapped.
    pub url: String,
    /// Plain-text title, entities decoded.
    pub title: String,
    /// Plain-text snippet, entities decoded (may be empty).
    pub snippet: String,
}

/// What a page yielded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Results in page order.
    pub hits: Vec<Hit>,
    /// Query suggestions the page offered.
    pub suggestions: Vec<String>,
}

/// An HTTP request to make, built from a query (no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSpec {
    /// Absolute URL.
    pub url: String,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
}

/// A member engine.
pub trait Engine: Send + Sync + std::fmt::Debug {
    /// Its configuration.
    fn config(&self) -> &EngineConfig;
    /// The request for `query` (placeholders filled in).
    fn build_request(&self, query: &Query) -> RequestSpec;
    /// Parses a decoded body. Pure: no I/O, no panics on any input.
    fn parse(&self, body: &str) -> Result<Parsed, ParseError>;
}
