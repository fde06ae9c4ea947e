//! The MCP server: metasift's fused, deduplicated list as tools an LLM
//! agent calls through the Model Context Protocol, built on the official
//! Rust SDK (`rmcp`).
//!
//! | tool | what |
//! | --- | --- |
//! | `search` | one search, the same as `/search` (built by [`Searcher::request`], run through the cache, the fan-out's deadlines and `max_in_flight`): the fused results with each one's hidden duplicates, as structured content and as readable text |
//! | `engines` | the engines configured, and from the health book `/stats` reads, which answer, which fail and which rest (suspended) |
//!
//! Two doors: `metasift mcp` over stdio ([`serve_stdio`]) and Streamable
//! HTTP at `/mcp` of `serve` (the web layer mounts [`http_service`] there;
//! it decides whether the route exists and gives the tool the client's
//! rate limit through a [`Door`]). A bad argument is a tool error whose
//! text says which argument and why, never a panic.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::SystemTime;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

use crate::model::{MergedResult, SearchResponse};
use crate::ops::limit::{Decision, RateLimiter};
use crate::search::{Asked, Searcher};

/// The longest query accepted, in characters (as `/search`).
pub const MAX_QUERY_CHARS: usize = 1000;

/// The last page that may be asked (as `/search`).
pub const MAX_PAGE: u32 = 50;

/// The most engines or categories one call may name.
pub const MAX_NAMES: usize = 64;

/// What a tool call needs from where it came in: the searcher in force (a
/// reload of `serve` may replace it) and, over HTTP, the per-client rate
/// limit `/search` is under.
pub trait Door: Send + Sync + 'static {
    /// The searcher in force now.
    fn searcher(&self) -> Searcher;
    /// The limiter searches from this door count against; `None`: no
    /// limit (stdio: the one user who started the process).
    fn limiter(&self) -> Option<RateLimiter>;
}

/// `metasift mcp`: one user, one searcher, no rate limit.
impl Door for Searcher {
    fn searcher(&self) -> Searcher {
        self.clone()
    }
    fn limiter(&self) -> Option<RateLimiter> {
        None
    }
}

/// The arguments of the `search` tool.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to search for, as typed in the search box: `!shortcut`s name
    /// engines, `:lang` a language. At most 1000 characters.
    pub query: String,
    /// Categories to search (`general`, `news`, …); none: the engines
    /// asked by default.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Engines to ask, by their configured name (the `engines` tool lists
    /// them); none: the engines asked by default.
    #[serde(default)]
    pub engines: Vec<String>,
    /// 1-based page of the fused list, 1 to 50.
    #[serde(default)]
    pub page: Option<u32>,
    /// Only results from the last `day`, `week`, `month` or `year`.
    #[serde(default)]
    pub time_range: Option<String>,
    /// Language code of the results wanted (`en`, `de`, `zh-CN`, …).
    #[serde(default)]
    pub language: Option<String>,
}

/// The arguments of the `engines` tool: none.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnginesArgs {}

/// One hidden duplicate of a result, as the tool gives it.
#[derive(Debug, Clone, Serialize)]
pub struct DuplicateLink {
    /// Its own link.
    pub url: String,
    /// Its own title.
    pub title: String,
    /// The engine that gave it.
    pub engine: String,
    /// The rule that folded it into the result: `url`, `title` or `snippet`.
    pub stage: &'static str,
}

/// One fused result, as the tool gives it.
#[derive(Debug, Clone, Serialize)]
pub struct ResultItem {
    /// The result's title.
    pub title: String,
    /// Its link.
    pub url: String,
    /// Its snippet.
    pub snippet: String,
    /// Every engine that found it (the kept record's first).
    pub engines: Vec<String>,
    /// Publication date (RFC 3339), when an engine gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The same page (or the same text) under other links, folded into
    /// this one.
    pub duplicates: Vec<DuplicateLink>,
}

/// An engine that gave nothing usable, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Unresponsive {
    /// The engine.
    pub engine: String,
    /// Why (`timeout`, `blocked`, `http_5xx`, …).
    pub reason: String,
}

/// The `search` tool's structured answer.
#[derive(Debug, Clone, Serialize)]
pub struct SearchAnswer {
    /// The query as the engines were asked it.
    pub query: String,
    /// The page given.
    pub page: u32,
    /// Fused results known for the query (this page and the ones before).
    pub number_of_results: usize,
    /// This page's results, best first.
    pub results: Vec<ResultItem>,
    /// Engines that gave nothing usable.
    pub unresponsive_engines: Vec<Unresponsive>,
    /// Other queries the engines suggested.
    pub suggestions: Vec<String>,
    /// Answered from the cache.
    pub cached: bool,
}

impl SearchAnswer {
    /// The answer of `response`, page `page`.
    pub fn of(response: &SearchResponse) -> SearchAnswer {
        SearchAnswer {
            query: response.query.text.clone(),
            page: response.query.page,
            number_of_results: response.number_of_results(),
            results: response.results.iter().map(ResultItem::of).collect(),
            unresponsive_engines: response
                .engines
                .iter()
                .filter_map(|r| {
                    r.failure.map(|f| Unresponsive {
                        engine: r.engine.clone(),
                        reason: f.as_str().to_string(),
                    })
                })
                .collect(),
            suggestions: response.suggestions.clone(),
            cached: response.cached,
        }
    }

    /// The same answer as plain text for a model to read: numbered results,
    /// each with its link, engines, date, snippet and duplicate links.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} result{} for \"{}\" (page {}, {} fused result{} known)",
            self.results.len(),
            if self.results.len() == 1 { "" } else { "s" },
            self.query,
            self.page,
            self.number_of_results,
            if self.number_of_results == 1 { "" } else { "s" },
        );
        for (i, r) in self.results.iter().enumerate() {
            let _ = write!(
                out,
                "\n{}. {}\n   {}\n   engines: {}",
                i + 1,
                r.title,
                r.url,
                r.engines.join(", ")
            );
            if let Some(date) = &r.date {
                let _ = write!(out, "; date: {date}");
            }
            out.push('\n');
            if !r.snippet.is_empty() {
                let _ = writeln!(out, "   {}", r.snippet);
            }
            for d in &r.duplicates {
                let _ = writeln!(
                    out,
                    "   duplicate ({}, {}): {} {}",
                    d.engine, d.stage, d.url, d.title
                );
            }
        }
        for u in &self.unresponsive_engines {
            let _ = write!(out, "\nno answer from {}: {}", u.engine, u.reason);
        }
        if !self.unresponsive_engines.is_empty() {
            out.push('\n');
        }
        if !self.suggestions.is_empty() {
            let _ = writeln!(out, "\nsuggestions: {}", self.suggestions.join("; "));
        }
        out
    }
}

impl ResultItem {
    fn of(r: &MergedResult) -> ResultItem {
        ResultItem {
            title: r.title.clone(),
            url: r.url.clone(),
            snippet: r.content.clone(),
            engines: r.engines.clone(),
            date: r.published.clone(),
            duplicates: r
                .duplicates
                .iter()
                .map(|d| DuplicateLink {
                    url: d.url.clone(),
                    title: d.title.clone(),
                    engine: d.engine.clone(),
                    stage: d.stage.as_str(),
                })
                .collect(),
        }
    }
}

/// One configured engine, as the `engines` tool gives it.
#[derive(Debug, Clone, Serialize)]
pub struct EngineState {
    /// Its configured name (what the `search` tool's `engines` takes).
    pub name: String,
    /// Its `!shortcut`s.
    pub shortcuts: Vec<String>,
    /// Its categories.
    pub categories: Vec<String>,
    /// Asked by default (`enabled`); otherwise only when named.
    pub enabled: bool,
    /// `ok` (answering, or not asked yet), `failing` (its last request
    /// failed) or `resting` (suspended: left out until `resting_for_s`
    /// has passed).
    pub status: &'static str,
    /// Seconds until a resting engine is asked again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resting_for_s: Option<u64>,
    /// Requests sent since the server started.
    pub requests: u64,
    /// Share of recent requests answered (0 to 1), once asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reliability: Option<f64>,
    /// Median latency of recent answers, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<u64>,
    /// What its last failure said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
}

/// The `engines` tool's structured answer.
#[derive(Debug, Clone, Serialize)]
pub struct EnginesAnswer {
    /// Every configured engine, in configuration order.
    pub engines: Vec<EngineState>,
}

impl EnginesAnswer {
    /// The engines of `searcher`'s configuration, with their health now.
    pub fn of(searcher: &Searcher) -> EnginesAnswer {
        let snapshot = searcher.health().snapshot(SystemTime::now());
        let engines = searcher
            .config()
            .engines
            .iter()
            .map(|e| {
                let health = snapshot.engines.iter().find(|h| h.name == e.name);
                let status = match health {
                    Some(h) if h.suspended => "resting",
                    Some(h) if h.consecutive_failures > 0 => "failing",
                    _ => "ok",
                };
                EngineState {
                    name: e.name.clone(),
                    shortcuts: e.shortcut.to_vec(),
                    categories: e.categories.clone(),
                    enabled: e.enabled,
                    status,
                    resting_for_s: health.and_then(|h| h.suspended.then_some(h.suspended_for_s)?),
                    requests: health.map_or(0, |h| h.requests),
                    reliability: health.and_then(|h| h.reliability),
                    p50_ms: health.and_then(|h| h.p50_ms),
                    last_failure: health.and_then(|h| h.last_failure_message.clone()),
                }
            })
            .collect();
        EnginesAnswer { engines }
    }

    /// The same as plain text: one line an engine.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for e in &self.engines {
            let _ = write!(out, "{}: {}", e.name, e.status);
            if let Some(s) = e.resting_for_s {
                let _ = write!(out, " (asked again in {s} s)");
            }
            if !e.enabled {
                out.push_str(", asked only when named");
            }
            if !e.categories.is_empty() {
                let _ = write!(out, "; categories: {}", e.categories.join(", "));
            }
            if !e.shortcuts.is_empty() {
                let _ = write!(out, "; shortcut: !{}", e.shortcuts.join(", !"));
            }
            let _ = write!(out, "; {} requests", e.requests);
            if let Some(r) = e.reliability {
                let _ = write!(out, ", {:.0} % answered", r * 100.0);
            }
            if let Some(m) = &e.last_failure {
                let _ = write!(out, "; last failure: {m}");
            }
            out.push('\n');
        }
        out
    }
}

/// Why a `search` call was refused, said to the agent as a tool error.
fn refused(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A tool's answer: the structured value, and the same as text.
fn answered(value: &impl Serialize, text: String) -> Result<CallToolResult, ErrorData> {
    let value = serde_json::to_value(value)
        .map_err(|e| ErrorData::internal_error(format!("cannot write the answer: {e}"), None))?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// Reads and checks the `search` tool's arguments: what `/search` would
/// refuse, refused with the argument's name.
pub fn read_search_args(arguments: JsonObject) -> Result<Asked, String> {
    let args: SearchArgs = serde_json::from_value(serde_json::Value::Object(arguments))
        .map_err(|e| format!("bad arguments: {e}"))?;
    let chars = args.query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(format!(
            "query: {chars} characters, at most {MAX_QUERY_CHARS} are accepted"
        ));
    }
    if args.query.trim().is_empty() {
        return Err("query: empty; say what to search for".into());
    }
    let page = args.page.unwrap_or(1);
    if !(1..=MAX_PAGE).contains(&page) {
        return Err(format!("page: {page} is out of range 1 to {MAX_PAGE}"));
    }
    let time_range = match args.time_range.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(t @ ("day" | "week" | "month" | "year")) => Some(t.to_string()),
        Some(other) => {
            return Err(format!(
                "time_range: {other:?} is not one of day, week, month, year"
            ));
        }
    };
    let language = match args.language.as_deref().map(str::trim) {
        None | Some("" | "all" | "auto") => None,
        Some(l) if l.len() <= 16 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') => {
            Some(l.to_string())
        }
        Some(other) => {
            return Err(format!(
                "language: {other:?} is not a language code such as en, de or zh-CN"
            ));
        }
    };
    let names = |what: &str, list: Vec<String>| -> Result<Vec<String>, String> {
        if list.len() > MAX_NAMES {
            return Err(format!("{what}: {} named, at most {MAX_NAMES}", list.len()));
        }
        Ok(list
            .into_iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect())
    };
    Ok(Asked {
        q: args.query,
        page,
        engines: names("engines", args.engines)?,
        categories: names("categories", args.categories)?,
        language,
        time_range,
        ..Asked::default()
    })
}

/// The client a tool call over HTTP counts as for the rate limit: the
/// connection's address (and `X-Forwarded-For` behind a trusted proxy),
/// as for `/search`.
fn client_of(limiter: &RateLimiter, ctx: &RequestContext<RoleServer>) -> IpAddr {
    let parts = ctx.extensions.get::<axum::http::request::Parts>();
    let peer = parts
        .and_then(|p| p.extensions.get::<axum::extract::ConnectInfo<SocketAddr>>())
        .map_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), |c| c.0);
    let forwarded: Vec<&str> = parts
        .map(|p| {
            p.headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect()
        })
        .unwrap_or_default();
    limiter.client(peer, &forwarded)
}

/// The MCP server: its tools over a [`Door`].
#[derive(Clone)]
pub struct Metasift {
    door: Arc<dyn Door>,
    tool_router: ToolRouter<Metasift>,
}

impl std::fmt::Debug for Metasift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metasift").finish_non_exhaustive()
    }
}

fn search_schema() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<SearchArgs>()
}

fn engines_schema() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<EnginesArgs>()
}

#[tool_router]
impl Metasift {
    /// The server over `door`.
    pub fn new(door: Arc<dyn Door>) -> Metasift {
        Metasift {
            door,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search the web through several search engines at once. Returns one fused, \
                       ranked list with duplicates removed: each result's title, URL, snippet, \
                       the engines that found it, its date when known, and the other links \
                       (duplicates) that were folded into it.",
        input_schema = search_schema(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn search(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let asked = match read_search_args(arguments) {
            Ok(asked) => asked,
            Err(message) => return Ok(refused(message)),
        };
        let searcher = self.door.searcher();
        let request = match searcher.request(asked) {
            Ok(request) => request,
            Err(e) => return Ok(refused(e.describe(searcher.config()))),
        };
        let limited = self.door.limiter().map(|l| {
            let client = client_of(&l, &ctx);
            (l, client)
        });
        if let Some((limiter, client)) = &limited
            && let Decision::Deny { retry_after_s } = limiter.check(*client).await
        {
            crate::ops::health::Counters::bump(&searcher.health().counters().rate_limited);
            return Ok(refused(format!(
                "too many searches from this client: try again in {retry_after_s} s"
            )));
        }
        let Ok((response, _)) = searcher.run_shared(&request).await else {
            return Ok(refused(
                "the server is busy with other searches: try again in a moment",
            ));
        };
        // An answer from the cache asked no engine: it costs nothing (as
        // on /search).
        if let Some((limiter, client)) = &limited
            && response.cached
        {
            limiter.refund(*client).await;
        }
        let answer = SearchAnswer::of(&response);
        let text = answer.text();
        answered(&answer, text)
    }

    #[tool(
        description = "List the search engines configured on this metasift: their names (for the \
                       search tool's `engines`), shortcuts, categories, whether they are asked by \
                       default, and their health: ok, failing, or resting (suspended after \
                       failures or a block, with the seconds until they are asked again).",
        input_schema = engines_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn engines(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(name) = arguments.keys().next() {
            return Ok(refused(format!(
                "bad arguments: the engines tool takes none, got {name:?}"
            )));
        }
        let answer = EnginesAnswer::of(&self.door.searcher());
        let text = answer.text();
        answered(&answer, text)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Metasift {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("metasift", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "metasift is a meta-search engine: `search` asks several web search engines \
                 and gives one fused list without duplicates; `engines` says which engines \
                 there are and whether they answer.",
            )
    }
}

/// Errors of running the MCP server.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The searcher could not be built.
    #[error("{0}")]
    Search(#[from] crate::search::SearchError),
    /// The cache could not be set up.
    #[error("{0}")]
    Cache(#[from] crate::ops::cache::CacheError),
    /// The MCP session could not start or ended with an error.
    #[error("MCP over stdio: {0}")]
    Session(String),
}

/// The searcher `metasift mcp` runs: `config`'s engines, cache and health
/// policy, as `serve` would build them (without the rate limits: one user).
pub fn searcher_for(config: crate::config::Config) -> Result<Searcher, McpError> {
    let cache = crate::ops::cache::Cache::from_config(&config.cache)?;
    let health =
        crate::ops::health::Health::new(crate::ops::health::HealthPolicy::from(&config.health));
    Ok(Searcher::from_config(config)?
        .with_health(health)
        .with_cache(cache))
}

/// `metasift mcp`: the server over stdin and stdout until the client
/// closes them. Logs go to stderr (stdout is the protocol's).
pub async fn serve_stdio(searcher: Searcher) -> Result<(), McpError> {
    use rmcp::ServiceExt as _;
    let server = Metasift::new(Arc::new(searcher))
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Session(e.to_string()))?;
    server
        .waiting()
        .await
        .map_err(|e| McpError::Session(e.to_string()))?;
    Ok(())
}

/// Streamable HTTP over `door`, for a router to mount at `/mcp`.
/// Stateless (no session kept between requests: memory stays bounded
/// whoever connects) and answering plain JSON. Requests from a browser page
/// (with an `Origin`) are refused; on a loopback address only loopback
/// `Host`s (and the host of `base_url`) are, against DNS rebinding.
pub fn http_service(
    door: Arc<dyn Door>,
    server: &crate::config::ServerConfig,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    Metasift,
    rmcp::transport::streamable_http_server::session::never::NeverSessionManager,
> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::never::NeverSessionManager,
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(64 * 1024)
        .enforce_origin_validation();
    if bind_is_loopback(&server.bind) {
        let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
        if let Some(host) = url::Url::parse(&server.base_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
        {
            hosts.push(host);
        }
        config = config.with_allowed_hosts(hosts);
    } else {
        // Reachable from the network anyway: the names it is reached by
        // are the proxy's and the operator's, not ours to list.
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(
        move || Ok(Metasift::new(door.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Whether `[server] bind` listens on loopback only.
fn bind_is_loopback(bind: &str) -> bool {
    let host = bind.rsplit_once(':').map_or(bind, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> Result<Asked, String> {
        let serde_json::Value::Object(map) = v else {
            panic!("an object")
        };
        read_search_args(map)
    }

    #[test]
    fn arguments_out_of_range_are_refused_by_name() {
        let e = args(serde_json::json!({"query": "rust", "page": 0})).unwrap_err();
        assert!(e.starts_with("page:"), "{e}");
        let e = args(serde_json::json!({"query": "rust", "page": 51})).unwrap_err();
        assert!(e.starts_with("page:"), "{e}");
        let e = args(serde_json::json!({"query": "  "})).unwrap_err();
        assert!(e.starts_with("query:"), "{e}");
        let e = args(serde_json::json!({"query": "x".repeat(1001)})).unwrap_err();
        assert!(e.starts_with("query: 1001"), "{e}");
        let e = args(serde_json::json!({"query": "rust", "time_range": "hour"})).unwrap_err();
        assert!(e.starts_with("time_range:"), "{e}");
        let e = args(serde_json::json!({"query": "rust", "language": "en; drop"})).unwrap_err();
        assert!(e.starts_with("language:"), "{e}");
        let e = args(serde_json::json!({"query": "rust", "colour": "red"})).unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = args(serde_json::json!({"query": 3})).unwrap_err();
        assert!(e.starts_with("bad arguments"), "{e}");
        let many: Vec<String> = (0..65).map(|i| format!("e{i}")).collect();
        let e = args(serde_json::json!({"query": "rust", "engines": many})).unwrap_err();
        assert!(e.starts_with("engines: 65"), "{e}");
    }

    #[test]
    fn good_arguments_make_the_request_asked() {
        let a = args(serde_json::json!({
            "query": "rust borrow", "page": 2, "engines": ["bing", " "],
            "categories": ["news"], "time_range": "week", "language": "de"
        }))
        .unwrap();
        assert_eq!(a.q, "rust borrow");
        assert_eq!(a.page, 2);
        assert_eq!(a.engines, ["bing"]);
        assert_eq!(a.categories, ["news"]);
        assert_eq!(a.time_range.as_deref(), Some("week"));
        assert_eq!(a.language.as_deref(), Some("de"));
        let a = args(serde_json::json!({"query": "rust", "language": "all"})).unwrap();
        assert_eq!((a.page, a.language), (1, None));
    }

    #[test]
    fn loopback_binds_are_told_apart() {
        assert!(bind_is_loopback("127.0.0.1:8888"));
        assert!(bind_is_loopback("[::1]:8888"));
        assert!(bind_is_loopback("localhost:8888"));
        assert!(!bind_is_loopback("0.0.0.0:8888"));
        assert!(!bind_is_loopback("[::]:8888"));
    }
}
