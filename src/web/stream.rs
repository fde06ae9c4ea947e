//! The streamed results page.
//!
//! A search waits for its slowest engine (up to the deadline), but the page
//! need not: the head — the frame, the search box and the list of engines
//! being asked — is sent at once, and the tail — results, duplicate groups,
//! engine states, pager, re-clustering form — when every engine has answered
//! or the deadline has passed. Dedup and ranking still run over the whole
//! set: the tail is the same fusion as an unstreamed page. No script and no
//! change to the CSP: the head's list hides itself by CSS (`:has`) once the
//! tail's first element has arrived.
//!
//! The status line and headers go first, so a problem found later (a search
//! refused for load, a render error) is said inside the page. A search that
//! is ready at once (a cache hit, a refusal) is sent whole instead, with its
//! real status: streaming is only worth its cost when there is a wait.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use askama::Template;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::{FutureExt, StreamExt, stream};

use super::pages::{ResultsPage, Ui};
use super::{AppError, Format, SearchParams, ops};
use crate::config::Config;
use crate::fusion::compare::SettingsComparison;
use crate::model::{Query, SearchResponse};
use crate::ops::limit::Overloaded;
use crate::search::Searcher;

/// How long a search may take and still be sent as one whole page.
/// Cache hits and refusals are ready well within it; a fan-out is not.
const HEAD_START: Duration = Duration::from_millis(20);

/// What a search yields for the page: the response, and the comparison
/// with the configured settings when the request asked for others.
type Answer = Result<(SearchResponse, Option<SettingsComparison>), Overloaded>;

const NO_STORE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "private, no-store");
const HTML: (header::HeaderName, &str) = (header::CONTENT_TYPE, "text/html; charset=utf-8");

/// `GET /search` as HTML: whole when `run` is ready within [`HEAD_START`],
/// else streamed in two parts.
pub(super) async fn results_page(
    searcher: Searcher,
    query: Query,
    params: SearchParams,
    ui: Ui,
    run: impl Future<Output = Answer> + Send + 'static,
) -> Result<Response, AppError> {
    let mut run = Box::pin(run);
    if let Ok(answer) = tokio::time::timeout(HEAD_START, &mut run).await {
        let Ok((resp, comparison)) = answer else {
            return Ok(ops::overloaded(Format::Html));
        };
        return whole(&resp, comparison.as_ref(), &params, searcher.config(), &ui);
    }
    let head = ResultsPage::head(
        &params,
        searcher.config(),
        &ui,
        searcher.engines_for(&query),
    )
    .render()?;
    let tail = async move {
        let config = searcher.config();
        let page = match run.await {
            Ok((resp, comparison)) => {
                let mut page = ResultsPage::of(&resp, &params, config, &ui).tail();
                if let Some(c) = &comparison {
                    page = page.with_comparison(c);
                }
                page
            }
            Err(Overloaded) => ResultsPage::refused(
                &params,
                config,
                &ui,
                "Too many searches are running right now. Please try again in a moment.".into(),
            ),
        };
        Ok::<_, Infallible>(Bytes::from(render_tail(&page, &params, config, &ui)))
    };
    let body = stream::once(std::future::ready(Ok::<_, Infallible>(Bytes::from(head))))
        .chain(stream::once(tail.boxed()));
    Ok(([HTML, NO_STORE], Body::from_stream(body)).into_response())
}

/// The tail, or — should rendering fail after the head was sent — a tail
/// that says so and still closes the page.
fn render_tail(page: &ResultsPage, params: &SearchParams, config: &Config, ui: &Ui) -> String {
    match page.render() {
        Ok(tail) => tail,
        Err(e) => {
            tracing::error!(error = %e, "results page tail failed to render");
            ResultsPage::refused(
                params,
                config,
                ui,
                "The results could not be shown (an error in the page). Please try again.".into(),
            )
            .render()
            .unwrap_or_else(|_| {
                "<p class=\"notice warn\" role=\"alert\">The results could not be shown.</p>\
                 </main></div></body></html>"
                    .into()
            })
        }
    }
}

/// The whole page at once (a search that was ready without a wait).
pub(super) fn whole(
    resp: &SearchResponse,
    comparison: Option<&SettingsComparison>,
    params: &SearchParams,
    config: &Config,
    ui: &Ui,
) -> Result<Response, AppError> {
    let mut page = ResultsPage::of(resp, params, config, ui);
    if let Some(c) = comparison {
        page = page.with_comparison(c);
    }
    Ok(([HTML, NO_STORE], page.render()?).into_response())
}
