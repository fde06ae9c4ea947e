//! The streamed results page.
//!
//! A search waits for its slowest engine (up to the deadline), but the page
//! need not: the head — the frame, the search box and the list of engines
//! being asked — is sent at once, then a line per engine as soon as it has
//! answered (when this request runs the fan-out), and the tail — results, duplicate groups,
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
use std::time::Duration;

use askama::Template;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, stream};

use super::i18n::Tr;

use super::pages::ResultsPage;
use super::params::SearchAsked;
use super::ui::Format;
use super::{AppError, admin};
use crate::config::Config;
use crate::fusion::compare::SettingsComparison;
use crate::model::{EngineReport, SearchResponse};
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

/// `GET /search` as HTML: whole when the search is ready within
/// [`HEAD_START`], else streamed in two parts. With settings other than
/// `[dedup]`, the page says what they changed.
pub(super) async fn results_page(
    searcher: Searcher,
    asked: SearchAsked,
) -> Result<Response, AppError> {
    // The streamed page lists each engine as it answers.
    let (progress, updates) = tokio::sync::mpsc::unbounded_channel();
    let request = asked.request.clone().with_progress(progress);
    let run = {
        let searcher = searcher.clone();
        async move {
            if request.other_settings {
                let compared = searcher.compared(&request).await;
                compared.map(|(resp, c)| (resp, Some(c)))
            } else {
                searcher.run(&request).await.map(|resp| (resp, None))
            }
        }
    };
    let updates = Some(updates);
    let mut run = Box::pin(run);
    if let Ok(answer) = tokio::time::timeout(HEAD_START, &mut run).await {
        let Ok((resp, comparison)) = answer else {
            return Ok(admin::overloaded(Format::Html));
        };
        let mut response = whole(&resp, comparison.as_ref(), &asked, searcher.config())?;
        // A page from the cache costs the client's budget nothing.
        if resp.cached && !asked.request.refits {
            response.extensions_mut().insert(admin::ServedFromCache);
        }
        return Ok(response);
    }
    let head = ResultsPage::head(&asked, searcher.config()).render()?;
    let tr = asked.ui.tr.clone();
    let tail = move |answer: Answer| {
        let config = searcher.config();
        let page = match answer {
            Ok((resp, comparison)) => {
                let mut page = ResultsPage::of(&resp, &asked, config).tail();
                if let Some(c) = &comparison {
                    page = page.with_comparison(c);
                }
                page
            }
            Err(Overloaded) => {
                ResultsPage::refused(&asked, config, asked.ui.tr.t("error-overloaded"))
            }
        };
        render_tail(&page, &asked, config)
    };
    // Between head and tail: a line per engine as it answers, until the
    // search is done; then the rest of those lines, the end of the list,
    // and the tail.
    let progress = stream::unfold(Some((run, updates, tail)), move |state| {
        let tr = tr.clone();
        async move {
            let (mut run, mut updates, tail) = state?;
            let next = match updates.as_mut() {
                Some(rx) => tokio::select! {
                    biased;
                    Some(report) = rx.recv() => Ok(report),
                    answer = &mut run => Err(answer),
                },
                None => Err((&mut run).await),
            };
            match next {
                Ok(report) => {
                    let line = answered_line(&report, &tr);
                    Some((
                        Ok::<_, Infallible>(Bytes::from(line)),
                        Some((run, updates, tail)),
                    ))
                }
                Err(answer) => {
                    let mut html = String::new();
                    if let Some(rx) = updates.as_mut() {
                        while let Ok(report) = rx.try_recv() {
                            html.push_str(&answered_line(&report, &tr));
                        }
                    }
                    html.push_str("</ul>\n</section>\n");
                    html.push_str(&tail(answer));
                    Some((Ok(Bytes::from(html)), None))
                }
            }
        }
    });
    let body =
        stream::once(std::future::ready(Ok::<_, Infallible>(Bytes::from(head)))).chain(progress);
    Ok(([HTML, NO_STORE], Body::from_stream(body)).into_response())
}

/// One engine's outcome, as it came, in the streamed list.
#[derive(Template)]
#[template(
    source = "<li class=\"{% if ok %}ok{% else %}problem{% endif %}\"><b>{{ engine }}</b> {{ what }} · {{ ms }}</li>\n",
    ext = "html"
)]
struct AnsweredLine {
    engine: String,
    ok: bool,
    what: String,
    ms: String,
}

fn answered_line(r: &EngineReport, tr: &Tr) -> String {
    // A replayed engine without this query was not asked: the page names
    // such engines on one quiet line, not one problem each.
    if r.failure == Some(crate::model::FailureKind::NotRecorded) {
        return String::new();
    }
    AnsweredLine {
        engine: tr.engine(&r.engine),
        ok: r.failure.is_none(),
        what: match r.failure {
            None => tr.n("results-count", r.results as u64),
            Some(kind) => tr.t(&format!("failure-{}", kind.as_str())),
        },
        ms: tr.n("elapsed-ms", r.elapsed_ms),
    }
    .render()
    .unwrap_or_default()
}

/// The tail, or — should rendering fail after the head was sent — a tail
/// that says so and still closes the page.
fn render_tail(page: &ResultsPage, asked: &SearchAsked, config: &Config) -> String {
    match page.render() {
        Ok(tail) => tail,
        Err(e) => {
            tracing::error!(error = %e, "results page tail failed to render");
            ResultsPage::refused(asked, config, asked.ui.tr.t("error-render"))
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
fn whole(
    resp: &SearchResponse,
    comparison: Option<&SettingsComparison>,
    asked: &SearchAsked,
    config: &Config,
) -> Result<Response, AppError> {
    let mut page = ResultsPage::of(resp, asked, config);
    if let Some(c) = comparison {
        page = page.with_comparison(c);
    }
    Ok(([HTML, NO_STORE], page.render()?).into_response())
}
