//! `/mcp`: the MCP server ([`crate::mcp`]) over Streamable HTTP, with the
//! searcher in force and the per-client rate limit of `/search`.
//!
//! The route exists when `[server] mcp` says so (unset: on, except on a
//! `public` instance); otherwise `/mcp` is a 404 like any unknown path, as
//! `/admin/reload` without its token. Whether it exists is decided at start:
//! a reload that changes `[server] mcp` takes effect at the next start.

use std::sync::Arc;

use axum::Router;

use super::AppState;
use crate::mcp::Door;
use crate::ops::limit::RateLimiter;
use crate::search::Searcher;

impl Door for AppState {
    fn searcher(&self) -> Searcher {
        AppState::searcher(self)
    }

    /// The `/search` limiter in force: a search over MCP spends the same
    /// budget as one over `/search`.
    fn limiter(&self) -> Option<RateLimiter> {
        Some(self.live().limiter)
    }
}

/// `app` with `/mcp` mounted when the configuration opens it.
pub(super) fn mount(app: Router<AppState>, state: &AppState) -> Router<AppState> {
    let searcher = state.searcher();
    let server = &searcher.config().server;
    if !server.mcp_enabled() {
        return app;
    }
    let door: Arc<dyn Door> = Arc::new(state.clone());
    app.route_service("/mcp", crate::mcp::http_service(door, server))
}
