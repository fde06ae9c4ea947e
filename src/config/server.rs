//! `[server]`: where metasift listens, how it presents itself, and the
//! limits of one fan-out (deadline, page size, largest engine answer).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Problem;

/// `[server]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on (`METASIFT_BIND` overrides).
    pub bind: String,
    /// Public base URL, used in OpenSearch and RSS links. Empty (the
    /// default): taken from each request's `Host` (and, behind a trusted
    /// proxy — `[limits] trust_forwarded` — its `X-Forwarded-Proto` /
    /// `X-Forwarded-Host`), so the links point where the server really is.
    pub base_url: String,
    /// Deadline of the whole fan-out, in milliseconds.
    pub deadline_ms: u64,
    /// Results per page, unless a searcher's preference says otherwise.
    pub results_per_page: usize,
    /// The most results per page a searcher's preference may ask for (the
    /// preferences page offers 10, 20, 30, 50, … up to it); unset:
    /// [`DEFAULT_MAX_RESULTS_PER_PAGE`], or `results_per_page` when that is
    /// larger (so a file written before this key still loads). A page never
    /// holds more than one engine page's fused list, so a large page may
    /// hold fewer.
    pub max_results_per_page: Option<usize>,
    /// Largest engine answer read, in bytes (decompressed); larger answers
    /// are reported as too large and dropped unread.
    pub max_body_bytes: usize,
    /// The User-Agent header sent to member engines.
    pub user_agent: String,
    /// The engine whose suggestions answer `/autocomplete`; none = no
    /// suggestions.
    pub autocomplete: Option<String>,
    /// Save every engine's raw answer into this folder (see
    /// `metasift::recording` for the format); `--record` overrides.
    pub record_dir: Option<PathBuf>,
    /// Log every query text (off by default: what people search for is
    /// theirs).
    pub log_queries: bool,
    /// `[server.connections]`: timeouts and the cap on client connections.
    pub connections: super::ConnectionsConfig,
    /// An open instance on the internet: the per-client rate limits are on
    /// (on a private instance they are off unless `[limits]` sets them),
    /// and `/metrics` and `/stats` answer only loopback clients or a bearer
    /// token (`METASIFT_METRICS_TOKEN`).
    pub public: bool,
    /// The result formats `/search` serves (SearXNG's `search.formats`); a
    /// format not listed is answered 403. All four by default.
    pub formats: Vec<String>,
    /// This instance's name on `/stats` when engine health is shared
    /// through Redis (who saw a block); default `HOSTNAME:PORT`.
    pub instance_id: Option<String>,
    /// How the APIs asked can reach the admin (an e-mail address or a
    /// URL): added to the User-Agent, and the value of `{contact}` in
    /// engine URLs (Crossref's and OpenAlex's `mailto=`, PubMed's
    /// `email=`); unset, a `name={contact}` parameter is left out.
    pub contact: Option<String>,
    /// The MCP server at `/mcp` (Streamable HTTP): unset = on, except on a
    /// `public` instance, where only `mcp = true` opens it.
    pub mcp: Option<bool>,
}

impl ServerConfig {
    /// The User-Agent sent to engines: `user_agent`, with the contact.
    pub fn user_agent_header(&self) -> String {
        match self
            .contact
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            Some(c) if !self.user_agent.contains(c) => format!("{} (+{c})", self.user_agent),
            _ => self.user_agent.clone(),
        }
    }
}

/// `[server] max_results_per_page` when unset (and `results_per_page` is
/// not larger).
pub(super) const DEFAULT_MAX_RESULTS_PER_PAGE: usize = 50;

/// Every result format `/search` knows.
pub const FORMATS: [&str; 4] = ["html", "json", "csv", "rss"];

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1:8888".into(),
            base_url: String::new(),
            deadline_ms: 3000,
            results_per_page: 20,
            max_results_per_page: None,
            max_body_bytes: 4 * 1024 * 1024,
            user_agent: concat!("metasift/", env!("CARGO_PKG_VERSION")).into(),
            autocomplete: None,
            record_dir: None,
            contact: None,
            log_queries: false,
            connections: super::ConnectionsConfig::default(),
            public: false,
            formats: FORMATS.iter().map(|f| f.to_string()).collect(),
            instance_id: None,
            mcp: None,
        }
    }
}

impl ServerConfig {
    /// Whether `serve` answers MCP at `/mcp`: as `mcp` says, else only on a
    /// private instance (an agent's searches on a public one are the
    /// operator's choice to offer).
    pub fn mcp_enabled(&self) -> bool {
        self.mcp.unwrap_or(!self.public)
    }

    /// Values of `[server]` that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        let s = self;
        s.connections.problems(out);
        if let Err(m) = check_bind(&s.bind) {
            out.push(Problem::at(
                &[&["server", "bind"]],
                format!("server.bind: {m}"),
            ));
        }
        if !s.base_url.is_empty()
            && let Err(m) = check_http_url(&s.base_url)
        {
            out.push(Problem::at(
                &[&["server", "base_url"]],
                format!("server.base_url: {m}"),
            ));
        }
        if s.deadline_ms == 0 {
            out.push(Problem::at(
                &[&["server", "deadline_ms"]],
                "server.deadline_ms: must be at least 1".into(),
            ));
        }
        if !(1..=1000).contains(&s.results_per_page) {
            out.push(Problem::at(
                &[&["server", "results_per_page"]],
                format!(
                    "server.results_per_page: must be 1 to 1000, got {}",
                    s.results_per_page
                ),
            ));
        }
        if let Some(most) = s.max_results_per_page
            && !(1..=1000).contains(&most)
        {
            out.push(Problem::at(
                &[&["server", "max_results_per_page"]],
                format!("server.max_results_per_page: must be 1 to 1000, got {most}"),
            ));
        } else if let Some(most) = s.max_results_per_page
            && most < s.results_per_page
        {
            out.push(Problem::at(
                &[
                    &["server", "max_results_per_page"],
                    &["server", "results_per_page"],
                ],
                format!(
                    "server.max_results_per_page ({}) is below server.results_per_page ({}): \
                     the cap on a searcher's page size cannot be smaller than the default \
                     page size; raise max_results_per_page or lower results_per_page",
                    most, s.results_per_page
                ),
            ));
        }
        if s.max_body_bytes == 0 {
            out.push(Problem::at(
                &[&["server", "max_body_bytes"]],
                "server.max_body_bytes: must be at least 1".into(),
            ));
        }
        if let Some(f) = s.formats.iter().find(|f| !FORMATS.contains(&f.as_str())) {
            out.push(Problem::at(
                &[&["server", "formats"]],
                format!("server.formats: {f:?} is not a format (html, json, csv, rss)"),
            ));
        }
        if s.instance_id
            .as_ref()
            .is_some_and(|id| id.trim().is_empty())
        {
            out.push(Problem::at(
                &[&["server", "instance_id"]],
                "server.instance_id: must not be empty".into(),
            ));
        }
        if let Some(c) = &s.contact
            && (c.trim().is_empty()
                || c.len() > 200
                || reqwest::header::HeaderValue::from_str(c).is_err())
        {
            out.push(Problem::at(
                &[&["server", "contact"]],
                "server.contact: an e-mail address or URL, at most 200 characters, no control characters".into(),
            ));
        }
        if s.user_agent.trim().is_empty()
            || reqwest::header::HeaderValue::from_str(&s.user_agent).is_err()
        {
            out.push(Problem::at(
                &[&["server", "user_agent"]],
                "server.user_agent: must be a non-empty header value".into(),
            ));
        }
    }
}

/// `host:port` or `[v6]:port` with a numeric port.
fn check_bind(bind: &str) -> Result<(), String> {
    if bind.parse::<std::net::SocketAddr>().is_ok() {
        return Ok(());
    }
    match bind.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(()),
        _ => Err(format!("{bind:?} is not an address like 127.0.0.1:8888")),
    }
}

impl ServerConfig {
    /// The page size for a searcher who asked for `wanted` results per page
    /// (none: the server's): at least 1, at most `max_results_per_page`.
    pub fn page_size(&self, wanted: Option<usize>) -> usize {
        wanted
            .unwrap_or(self.results_per_page)
            .clamp(1, self.max_page_size())
    }

    /// The most results per page a searcher may choose (`[server]
    /// max_results_per_page`, or its default).
    pub fn max_page_size(&self) -> usize {
        self.max_results_per_page
            .unwrap_or(DEFAULT_MAX_RESULTS_PER_PAGE)
            .max(self.results_per_page)
            .max(1)
    }

    /// A warning when an explicit `base_url` names a local address other
    /// than `listening` (say `serve --bind 127.0.0.1:18888` with `base_url`
    /// on port 8888): its OpenSearch and RSS links would point elsewhere. A
    /// public host name is taken to be a proxy's and not compared.
    pub fn base_url_disagrees(&self, listening: std::net::SocketAddr) -> Option<String> {
        let u = url::Url::parse(&self.base_url).ok()?;
        let local = match u.host()? {
            url::Host::Domain(d) => d.eq_ignore_ascii_case("localhost"),
            url::Host::Ipv4(ip) => ip.is_loopback() || std::net::IpAddr::V4(ip) == listening.ip(),
            url::Host::Ipv6(ip) => ip.is_loopback() || std::net::IpAddr::V6(ip) == listening.ip(),
        };
        let port = u.port_or_known_default()?;
        (local && port != listening.port()).then(|| {
            format!(
                "server.base_url {} names port {port}, but the server listens on {listening}: \
                 OpenSearch and RSS links point there (leave base_url unset to take links \
                 from each request)",
                self.base_url
            )
        })
    }
}

pub(crate) fn check_http_url(u: &str) -> Result<(), String> {
    match url::Url::parse(u) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => {
            Ok(())
        }
        Ok(_) => Err(format!("{u:?} is not an http(s) URL")),
        Err(e) => Err(format!("{u:?} is not a URL ({e})")),
    }
}
