//! The web front end and the API: an axum router built by [`router`], so
//! tests drive the whole application with `tower::ServiceExt::oneshot` and no
//! socket.
//!
//! | route | what |
//! | --- | --- |
//! | `GET /` | the search page; `GET`/`POST /` with `q`: 308 to `/search` (as SearXNG) |
//! | `GET /config` | the instance in SearXNG's `/config` shape |
//! | `GET`/`POST /preferences` | preferences form; `?save=1&…` stores a shared set (see [`prefs_page`]) |
//! | `GET`/`POST /search` | results as `html` (default), `json` (SearXNG's shape), `csv` or `rss` |
//! | `GET /autocomplete?q=` | OpenSearch suggestions `["q", ["s1", …]]` |
//! | `GET /opensearch.xml` | OpenSearch description |
//! | `GET /healthz` | liveness |
//! | `GET /image_proxy?url=&h=` | a result's thumbnail, fetched for the page (signed links only; see [`image_proxy`]) |
//! | `GET /favicon?site=&h=` | a result site's icon, fetched under the image proxy's rules and cached (see [`favicon`]) |
//! | `GET`/`POST /lab`, `GET /lab/results.csv?id=` | threshold sweeps on labeled data (see [`lab`]) |
//! | `GET /lab/fusion?set=` | fusion methods measured on a judged set of `[lab] data_dir` |
//! | `GET /stats`, `/stats?format=json` | per-engine health (see [`admin`]) |
//! | `GET /metrics` | Prometheus text |
//! | `POST /admin/reload` | re-read `engines.toml` (only with `METASIFT_ADMIN_TOKEN`) |
//! | `POST /mcp` | the MCP server over Streamable HTTP (see [`mcp_route`]; off on a public instance unless `[server] mcp = true`) |
//! | `GET /static/style.css`, `/static/favicon.svg`, `/favicon.ico` | embedded assets |
//!
//! The HTML results page is streamed (see [`streamed`]): its head, search box
//! and the engines being asked at once, the fused results when every engine
//! has answered or the search deadline has passed. No script: the page works
//! in any browser and in the text-mode ones. JSON, CSV and RSS are whole
//! documents sent when the answers are in.
//! Every HTML answer carries a Content-Security-Policy that forbids scripts, a
//! second fence behind askama's escaping of engine text.

mod admin;
mod cards;
mod compare_view;
mod compat;
mod error;
mod favicon;
mod i18n;
mod image_proxy;
mod lab;
mod mcp_route;
pub mod pages;
mod params;
mod prefs;
mod prefs_hosts;
mod prefs_page;
mod public;
mod result_view;
pub mod serve;
mod state;
mod statics;
mod streamed;
mod ui;

use askama::Template;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::fusion::compare::SettingsComparison;
use crate::search::{RequestError, SearchOptions, Searcher};

pub use error::AppError;
pub use image_proxy::link as image_proxy_link;
pub use params::SearchParams;
pub use state::AppState;
pub use ui::Format;

/// Largest request body accepted (`POST /search` forms are tiny).
const MAX_BODY: usize = 256 * 1024;

/// Most suggestions `/autocomplete` returns.
const MAX_SUGGESTIONS: usize = 10;

/// The whole application.
pub fn router(state: AppState) -> Router {
    let limited = axum::middleware::from_fn_with_state(state.clone(), admin::rate_limit);
    let suggest_limited =
        axum::middleware::from_fn_with_state(state.clone(), admin::rate_limit_autocomplete);
    let lab_limited = axum::middleware::from_fn_with_state(state.clone(), admin::rate_limit_lab);
    let operator_only = axum::middleware::from_fn_with_state(state.clone(), public::operator_only);
    let mut app = Router::new();
    // Without a token the route does not exist (404), rather than a door
    // anyone may knock on.
    if state.ops.admin_token.is_some() {
        app = app.route("/admin/reload", post(admin::admin_reload));
    }
    app = mcp_route::mount(app, &state);
    app.route("/search", get(search).post(search).route_layer(limited))
        // SearXNG clients: `/` with a `q` is a search (308 to /search);
        // `/config` describes the instance.
        .route("/", get(compat::root).post(compat::root))
        .route("/config", get(compat::config))
        .route(
            "/preferences",
            get(prefs_page::get_preferences).post(prefs_page::post_preferences),
        )
        .route(
            "/stats",
            get(admin::stats).route_layer(operator_only.clone()),
        )
        .route("/metrics", get(admin::metrics).route_layer(operator_only))
        .route("/robots.txt", get(public::robots))
        .route(
            "/autocomplete",
            get(autocomplete).route_layer(suggest_limited),
        )
        .route("/opensearch.xml", get(opensearch))
        .route("/healthz", get(admin::healthz))
        .route("/image_proxy", get(image_proxy::image_proxy))
        .route("/favicon", get(favicon::favicon))
        .route(
            "/lab",
            get(lab::lab_get)
                .post(lab::lab_post)
                .layer(DefaultBodyLimit::max(lab::MAX_BODY))
                .route_layer(lab_limited.clone()),
        )
        .route("/lab/fusion", get(lab::lab_fusion).route_layer(lab_limited))
        .route("/lab/results.csv", get(lab::results_csv))
        .route("/static/style.css", get(statics::style))
        .route("/static/favicon.svg", get(statics::favicon))
        .route("/favicon.ico", get(statics::favicon))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(error::in_readers_language))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            public::access_log,
        ))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// The security headers every answer carries unless its handler set its
/// own: no sniffing, no referrer, and a Content-Security-Policy that
/// forbids scripts. Set by the access-log layer ([`public::access_log`]):
/// one layer for all, not a layer each.
const SECURITY_HEADERS: [(header::HeaderName, HeaderValue); 3] = [
    (
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ),
    (
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    ),
    (
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; img-src 'self' data:; \
             form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    ),
];

fn html(body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn index(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, AppError> {
    let searcher = state.searcher();
    let prefs = prefs::Prefs::from_headers(&headers);
    let page = pages::IndexPage::of(searcher.config(), &prefs.ui(&headers))
        .with_categories(&prefs.categories);
    Ok(html(page.render()?))
}

async fn search(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    peer: compat::Peer,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, AppError> {
    let searcher = state.searcher();
    let asked = match read_search(&state, &searcher, raw.as_deref(), &headers, body)? {
        Read::Search(asked) => *asked,
        Read::Answered(response) => return Ok(response),
        // A browser that submits an empty box gets the search page back.
        Read::EmptyBox => return index(State(state), headers).await,
    };
    let (query, format) = (&asked.request.query, asked.params.format);
    if searcher.config().server.log_queries {
        tracing::info!(q = %query.text, page = query.page, "search");
    }
    let Some(document) = Document::of(format) else {
        return streamed::results_page(searcher, asked).await;
    };
    // Settings other than `[dedup]` on a page a program reads: say what
    // they changed. The comparison is made for this request: never kept.
    let answered = if document == Document::Json && asked.request.other_settings {
        let compared = searcher.compared(&asked.request).await;
        compared.map(|(resp, c)| (std::sync::Arc::new(resp), None, Some(c)))
    } else {
        let shared = searcher.run_shared(&asked.request).await;
        shared.map(|(resp, renders)| (resp, renders, None))
    };
    let Ok((resp, renders, comparison)) = answered else {
        return Ok(admin::overloaded(format));
    };
    let base = || compat::public_base(searcher.config(), &headers, &peer);
    let rendered = Rendered {
        resp: &resp,
        renders,
        comparison,
        params: &asked.params,
    };
    let mut response = rendered.document(document, searcher.config(), base)?;
    // A page from the cache costs the client's budget nothing, unless it
    // was fused again (other settings, `explain`).
    if resp.cached && !asked.request.refits {
        response.extensions_mut().insert(admin::ServedFromCache);
    }
    Ok(response)
}

/// What reading a `/search` request gave.
enum Read {
    /// A search to run.
    Search(Box<params::SearchAsked>),
    /// Nothing to search for, from a browser.
    EmptyBox,
    /// A refusal already answered (a body too large or too slow, a format
    /// this instance does not serve).
    Answered(Response),
}

/// Reads a `/search` request once: its parameters, the preferences cookie's
/// defaults under them, and the search they make with the configuration
/// ([`crate::search::Searcher::request`]). A parameter or setting out of
/// range is a 400 in the format asked for.
fn read_search(
    state: &AppState,
    searcher: &Searcher,
    raw: Option<&str>,
    headers: &HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Read, AppError> {
    // A body too large (413) or not sent in time (400) is answered in the
    // format the query string asks for, like every other refusal — not as
    // axum's plain text.
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let format = admin::wanted_format(raw, b"", headers);
            let message = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ui::Msg::new("error-body-too-large").arg("n", MAX_BODY)
            } else {
                ui::Msg::new("error-body-unreadable").arg("detail", rejection.body_text())
            };
            let refused = error::error_response(rejection.status(), &message, format, None);
            return Ok(Read::Answered(refused));
        }
    };
    let mut params = SearchParams::from_request(raw, &body)?;
    if let Some(refused) = public::refuse_format(state, params.format) {
        return Ok(Read::Answered(refused));
    }
    // Preferences are defaults: the request's own parameters win.
    let prefs = prefs::Prefs::from_headers(headers);
    params.apply_defaults(&prefs);
    let bad = |message: ui::Msg| AppError::bad_request(message, params.format);
    let mut asked = params.asked(&prefs.disabled);
    asked.hosts = prefs.hostnames.rules();
    let request = match searcher.request(asked) {
        Ok(request) => request,
        Err(RequestError::EmptyQuery) if params.format == Format::Html => {
            return Ok(Read::EmptyBox);
        }
        Err(RequestError::EmptyQuery) => return Err(bad(ui::Msg::new("error-query-empty"))),
        Err(RequestError::Settings(field, why)) => {
            let message = ui::Msg::new("error-dedup-settings");
            return Err(bad(message.arg("field", field).arg("why", why)));
        }
        Err(RequestError::UnknownEngines(names)) => {
            let message = ui::Msg::new("error-unknown-engines");
            return Err(bad(message.arg("names", names.join(", "))));
        }
        // As SearXNG: the redirect whatever the format asked for.
        Err(RequestError::ExternalBang(target)) => {
            return Ok(Read::Answered(compat::see_other(&target)));
        }
        Err(RequestError::OperatorsOnly) => {
            return Err(bad(ui::Msg::new("error-operators-only")));
        }
    };
    // Only a page is shown in a language: documents keep the default.
    let ui = match params.format {
        Format::Html => prefs.ui(headers),
        _ => ui::Ui::default(),
    };
    Ok(Read::Search(Box::new(params::SearchAsked {
        params,
        request,
        ui,
    })))
}

/// The formats sent as one document when the answers are in (the results
/// page is streamed, see [`streamed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Document {
    Json,
    Csv,
    Rss,
}

impl Document {
    fn of(format: Format) -> Option<Document> {
        match format {
            Format::Html => None,
            Format::Json => Some(Document::Json),
            Format::Csv => Some(Document::Csv),
            Format::Rss => Some(Document::Rss),
        }
    }
}

/// A fused page and what its documents are rendered from.
struct Rendered<'a> {
    resp: &'a crate::model::SearchResponse,
    /// Where the cache keeps renderings of this page (a cache hit).
    renders: Option<crate::ops::cache::Renders>,
    comparison: Option<SettingsComparison>,
    params: &'a SearchParams,
}

impl Rendered<'_> {
    /// The page as `document`; `base`: this instance's public address.
    fn document(
        self,
        document: Document,
        config: &crate::config::Config,
        base: impl Fn() -> String,
    ) -> Result<Response, AppError> {
        let (resp, params) = (self.resp, self.params);
        // A JSON or CSV answer is a pure function of the page and `limit`:
        // repeated hits send the bytes rendered at the first.
        let rendered = |render: &dyn Fn() -> Result<Vec<u8>, crate::output::FormatError>| {
            let render = || render().map(Bytes::from);
            match &self.renders {
                Some(renders) => {
                    renders.get_or_render(rendering_tag(params.format, params.limit), render)
                }
                None => render(),
            }
        };
        let no_store = (header::CACHE_CONTROL, "private, no-store");
        Ok(match document {
            Document::Json => {
                let body = match self.comparison {
                    Some(c) => Bytes::from(crate::output::searxng::to_json(
                        resp,
                        params.limit,
                        Some(c),
                    )?),
                    None => {
                        rendered(&|| crate::output::searxng::to_json(resp, params.limit, None))?
                    }
                };
                // How old the answers are changes with every second, so it
                // is put in front of the kept bytes, not rendered into them.
                let body = crate::output::searxng::with_age(
                    body,
                    (resp.fetched_at_ms > 0).then(|| resp.age_s(std::time::SystemTime::now())),
                );
                ([(header::CONTENT_TYPE, "application/json"), no_store], body).into_response()
            }
            Document::Csv => {
                let text = rendered(&|| {
                    crate::output::csv::to_csv(resp, params.limit).map(String::into_bytes)
                })?;
                (
                    [
                        (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                        (
                            header::CONTENT_DISPOSITION,
                            "attachment; filename=\"metasift-results.csv\"",
                        ),
                        no_store,
                    ],
                    text,
                )
                    .into_response()
            }
            Document::Rss => {
                let xml = crate::output::rss::to_rss(
                    resp,
                    params.limit,
                    &base(),
                    &params.link(params.page, Format::Html),
                    config.server.page_size(params.per_page),
                )?;
                (
                    [
                        (header::CONTENT_TYPE, "application/rss+xml; charset=utf-8"),
                        no_store,
                    ],
                    xml,
                )
                    .into_response()
            }
        })
    }
}

/// The name under which a rendering of a cached page is kept
/// ([`crate::ops::cache::Renders`]): the format and `limit`, all it depends
/// on besides the page.
fn rendering_tag(format: Format, limit: Option<usize>) -> u64 {
    let format: u64 = match format {
        Format::Html => 0,
        Format::Json => 1,
        Format::Csv => 2,
        Format::Rss => 3,
    };
    // Limits past 2^62 cut nothing a page holds: one tag for all of them.
    let limit = limit.map_or(0, |n| {
        u64::try_from(n)
            .unwrap_or(u64::MAX)
            .saturating_add(1)
            .min((1 << 62) - 1)
    });
    (format << 62) | limit
}

async fn autocomplete(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let q = url::form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    // A query too long to search is not echoed whole either.
    let too_long = q.chars().count() > params::MAX_QUERY_CHARS;
    let q = if too_long {
        q.chars().take(params::MAX_QUERY_CHARS).collect()
    } else {
        q
    };
    let searcher = state.searcher();
    let config = searcher.config();
    let mut suggestions: Vec<String> = Vec::new();
    let engine = config
        .server
        .autocomplete
        .as_ref()
        .filter(|name| config.engines.iter().any(|e| &e.name == *name));
    if let Some(engine) = engine
        && !q.trim().is_empty()
        && !too_long
    {
        let mut query = searcher.parse_query(&q, 1);
        query.engines = vec![engine.clone()];
        // Suggestions are a nicety: when `max_in_flight` fan-outs already
        // run, the box gets none rather than adding to the overload.
        let resp = searcher
            .search(&query, &SearchOptions::default())
            .await
            .unwrap_or_default();
        for s in resp.suggestions {
            if suggestions.len() < MAX_SUGGESTIONS && !suggestions.contains(&s) {
                suggestions.push(s);
            }
        }
    }
    let body = serde_json::json!([q, suggestions]);
    (
        [
            (header::CONTENT_TYPE, "application/x-suggestions+json"),
            (header::CACHE_CONTROL, "private, max-age=60"),
        ],
        body.to_string(),
    )
        .into_response()
}

async fn opensearch(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    peer: compat::Peer,
) -> Result<Response, AppError> {
    let searcher = state.searcher();
    let base = compat::public_base(searcher.config(), &headers, &peer);
    let xml = crate::output::opensearch::opensearch_xml(&base)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/opensearchdescription+xml; charset=utf-8",
            ),
            (header::CACHE_CONTROL, "public, max-age=86400"),
            // Its links follow the request's host when base_url is unset.
            (header::VARY, "Host, X-Forwarded-Host, X-Forwarded-Proto"),
        ],
        xml,
    )
        .into_response())
}

async fn not_found() -> Response {
    let msg = ui::Msg::new("error-not-found");
    let page = error::ErrorPage::of(StatusCode::NOT_FOUND, &msg, &error::reader());
    match page.render() {
        Ok(body) => (StatusCode::NOT_FOUND, html(body)).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}
