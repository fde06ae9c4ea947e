//! HTTP to one member engine: the request, its redirects, its body read
//! under the size cap, its decoding and parse — or the same from a
//! recording — ending in one [`Outcome`], a parsed page or a [`Failure`]
//! that says why for people and counts for health by its kind.
//!
//! Parsing is CPU work, so it runs on the blocking pool, one parse per core
//! at a time, and never stalls the runtime's network threads.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::StreamExt;

use super::millis;
use super::recording;
use crate::config::{EngineConfig, ServerConfig};
use crate::engines::{Engine, Parsed};
use crate::model::{FailureKind, Query};

/// Most redirects followed before an engine is reported as failing: enough
/// for a few hops inside the engine's own site, short of any loop.
pub const MAX_REDIRECTS: usize = 5;

/// The start of every HTTP client metasift builds (the engines' client,
/// `metasift healthcheck`, the tests' and benches' clients): reqwest's
/// builder, after rustls has been given its crypto provider, ring.
///
/// reqwest is built with `rustls-no-provider` (ring builds in seconds where
/// aws-lc-rs, reqwest 0.13's default, compiles a C library: see
/// docs/decisions.md), so a client built before a provider is installed
/// panics at its first use of TLS setup. Installing it here, once per
/// process, means no path can build a client without it; clippy's
/// `disallowed-methods` (clippy.toml) refuses `reqwest::Client::new`,
/// `Client::builder` and `reqwest::get` everywhere else. Roots come from the
/// operating system (rustls-platform-verifier), so HTTPS needs the system's
/// CA certificates (the `ca-certificates` package on Debian).
pub fn client_builder() -> reqwest::ClientBuilder {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // An error means another provider is installed already (by whoever
        // embeds this library): that one is used, as rustls intends.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    #[allow(clippy::disallowed_methods)] // the one place a builder is made
    reqwest::Client::builder()
}

/// The shared HTTP client every engine request goes through. It sends no
/// `Referer` (it would carry the user's query to wherever a page links) and
/// follows a redirect only inside the engine's own origin ([`redirect_refusal`]),
/// so the headers an engine is configured with (API tokens) never reach
/// another site.
pub fn http_client(server: &ServerConfig) -> Result<reqwest::Client, reqwest::Error> {
    http_client_via(server, None)
}

/// [`http_client`] through `proxy` (which then replaces any proxy of the
/// environment, `HTTPS_PROXY` and the like).
pub(super) fn http_client_via(
    server: &ServerConfig,
    proxy: Option<reqwest::Proxy>,
) -> Result<reqwest::Client, reqwest::Error> {
    let builder = match proxy {
        Some(p) => client_builder().proxy(p),
        None => client_builder(),
    };
    builder
        .user_agent(server.user_agent_header())
        .referer(false)
        .redirect(reqwest::redirect::Policy::custom(
            |attempt| match redirect_refusal(attempt.previous(), attempt.url()) {
                None => attempt.follow(),
                Some(why) => attempt.error(why),
            },
        ))
        .connect_timeout(Duration::from_millis(server.deadline_ms.clamp(1, 10_000)))
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .build()
}

/// Why a redirect to `next` is not followed, after the chain `previous`
/// (the engine's own URL first); `None` when it is. Followed are redirects
/// to the engine URL's origin (scheme, host, port) and, from `http` on the
/// default port, to `https` on the same host and default port — at most
/// [`MAX_REDIRECTS`] of them. Never followed: any other origin (the
/// configured headers and the query would go there) and, unless the engine
/// itself lives there, loopback, private or link-local addresses and
/// `localhost` (a public engine must not make the server fetch its
/// neighbours).
pub(super) fn redirect_refusal(previous: &[url::Url], next: &url::Url) -> Option<String> {
    if previous.len() > MAX_REDIRECTS {
        return Some(format!(
            "more than {MAX_REDIRECTS} redirects (a redirect loop?)"
        ));
    }
    let first = previous.first()?;
    let target = next.host_str().unwrap_or("");
    if is_local_host(next) && !is_local_host(first) {
        return Some(format!(
            "redirect to a local address ({target}) not followed"
        ));
    }
    let same_origin = next.origin() == first.origin();
    let upgrade = first.scheme() == "http"
        && next.scheme() == "https"
        && first.host() == next.host()
        && first.port().is_none()
        && next.port().is_none();
    if same_origin || upgrade {
        None
    } else {
        Some(format!(
            "redirect to another site ({}://{target}) not followed",
            next.scheme()
        ))
    }
}

/// Whether `url` names this machine or a private network: `localhost`
/// (and `*.localhost`), loopback, private, shared (CGNAT), link-local and
/// unspecified addresses, IPv4-mapped ones included. Names that resolve to
/// such addresses are not caught here.
fn is_local_host(url: &url::Url) -> bool {
    use std::net::IpAddr;
    let ip = match url.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            return d == "localhost" || d.ends_with(".localhost");
        }
        Some(url::Host::Ipv4(a)) => IpAddr::V4(a),
        Some(url::Host::Ipv6(a)) => IpAddr::V6(a),
        None => return false,
    };
    is_local_ip(ip)
}

/// Loopback, private, shared (CGNAT), link-local, unique-local, broadcast
/// and unspecified addresses, IPv4-mapped ones included: where a request
/// from the server would reach its own machine or its neighbours.
pub fn is_local_ip(ip: std::net::IpAddr) -> bool {
    use std::net::{IpAddr, Ipv4Addr};
    fn local_v4(a: Ipv4Addr) -> bool {
        let [b0, b1, ..] = a.octets();
        a.is_loopback()
            || a.is_private()
            || a.is_link_local()
            || a.is_unspecified()
            || a.is_broadcast()
            || (b0 == 100 && (64..128).contains(&b1))
    }
    match ip {
        IpAddr::V4(a) => local_v4(a),
        IpAddr::V6(a) => {
            let first = a.segments()[0];
            a.is_loopback()
                || a.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || a.to_ipv4_mapped().is_some_and(local_v4)
        }
    }
}

/// What asking one engine gave.
#[derive(Debug)]
pub(super) struct Outcome {
    /// The parsed page, or why there is none.
    pub(super) result: Result<Parsed, Failure>,
    /// Milliseconds from request to parsed answer or failure.
    pub(super) elapsed_ms: u64,
}

/// Why an engine gave nothing usable, with a reason for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    /// The kind, for counting.
    pub(super) kind: FailureKind,
    /// A human-readable reason.
    pub(super) reason: String,
    /// Whether it says anything about the engine's health. A replayed
    /// engine asked a query its recording does not hold has not failed: it
    /// was never asked, and suspending it would refuse the queries it does
    /// hold.
    pub(super) counts_for_health: bool,
    /// How long the engine asked to be left alone (a 429's `Retry-After`).
    pub(super) retry_after: Option<Duration>,
    /// The proxy the request went through failed it, not the engine.
    pub(super) by_proxy: bool,
}

impl Failure {
    pub(super) fn new(kind: FailureKind, reason: impl Into<String>) -> Self {
        Failure {
            kind,
            reason: reason.into(),
            counts_for_health: true,
            retry_after: None,
            by_proxy: false,
        }
    }

    /// An engine not asked because it cannot honour the time range or
    /// safe-search level asked: says nothing of its health.
    pub(super) fn left_out(kind: FailureKind, reason: &str) -> Self {
        Failure {
            counts_for_health: false,
            ..Failure::new(kind, reason)
        }
    }
}

/// Where an engine's answers come from and go to besides the network.
#[derive(Debug, Clone, Default)]
pub(super) struct Recording {
    pub(super) record: Option<PathBuf>,
    pub(super) replay: Option<PathBuf>,
}

/// The client a request leaves through, and whether it is a proxy's
/// (whose failures are then the proxy's, see [`blame_proxy`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Via<'a> {
    pub(super) client: &'a reqwest::Client,
    pub(super) proxy: bool,
}

/// An answer as received: status, headers and the body's bytes.
#[derive(Debug)]
struct RawAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawAnswer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request (or its recording), its body read under the cap, and its
/// parse, which stops at `deadline` (the search has stopped waiting then,
/// and the blocking pool would go on parsing for no one).
// Each argument is an input of its own (the moment of the request joined
// the others for the time range's dates); a struct would only rename them.
#[allow(clippy::too_many_arguments)]
pub(super) async fn fetch(
    via: Via<'_>,
    engine: Arc<dyn Engine>,
    query: &Query,
    cap: usize,
    recording: &Recording,
    parse_slots: Arc<tokio::sync::Semaphore>,
    deadline: Instant,
    now: std::time::SystemTime,
) -> Result<Parsed, Failure> {
    // The operators the engine does not understand are not sent to it.
    let spec = crate::engines::request_at(
        &*engine,
        &super::operators::for_engine(query, &engine.config().operators),
        now,
    );
    let name = engine.config().name.clone();
    let mut raw = answer(via, &*engine, query, &spec, &name, cap, recording).await?;
    // A two-step API: the first answer only says what to ask next. One
    // follow-up, under the same deadline (the caller's timeout covers both)
    // and the same size cap.
    if engine.config().follow.is_some() {
        let content_type = raw.header("content-type").map(str::to_string);
        let slot = parse_slots.clone().acquire_owned().await.ok();
        let first_engine = engine.clone();
        let first_query = query.clone();
        let next = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let text = crate::engines::decode_body_owned(raw.body, content_type.as_deref());
            first_engine.follow_up(&text, &first_query)
        })
        .await
        .map_err(|_| Failure::new(FailureKind::Parse, "the parser crashed on this answer"))?
        .map_err(|e| Failure::new(e.kind(), format!("first answer: {e}")))?;
        let Some(next) = next else {
            return Ok(Parsed::default());
        };
        let follow_name = format!("{name}.follow");
        raw = answer(via, &*engine, query, &next, &follow_name, cap, recording).await?;
    }
    let content_type = raw.header("content-type").map(str::to_string);
    // Never closed, so acquiring only waits. The slot goes with the parse:
    // a search that times out meanwhile does not free it early.
    let slot = parse_slots.acquire_owned().await.ok();
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let text = crate::engines::decode_body_owned(raw.body, content_type.as_deref());
        crate::engines::parse_until(&*engine, &text, deadline)
    })
    .await
    .map_err(|_| Failure::new(FailureKind::Parse, "the parser crashed on this answer"))?
    .map_err(|e| Failure::new(e.kind(), e.to_string()))
}

/// One answer of `engine` to `spec` (recorded or replayed under `name`:
/// the engine's, or `<engine>.follow` for a follow-up), with a status of
/// success.
async fn answer(
    via: Via<'_>,
    engine: &dyn Engine,
    query: &Query,
    spec: &crate::engines::RequestSpec,
    name: &str,
    cap: usize,
    recording: &Recording,
) -> Result<RawAnswer, Failure> {
    let raw = match &recording.replay {
        Some(dir) => replay(dir, name.to_string(), query).await?,
        None => {
            // A header needs a secret the environment lacks: sending its
            // `${VAR}` text would only earn a refusal from the engine.
            if let Some(missing) = &engine.config().unset_env {
                return Err(Failure::new(
                    FailureKind::Http4xx,
                    format!("not asked: {missing}"),
                ));
            }
            let Via {
                client,
                proxy: via_proxy,
            } = via;
            let started = Instant::now();
            let raw = fetch_raw(client, spec, cap)
                .await
                .map_err(|f| blame_proxy(f, via_proxy))?;
            if via_proxy && matches!(raw.status, 407 | 502 | 503) {
                return Err(Failure {
                    by_proxy: true,
                    counts_for_health: false,
                    ..Failure::new(FailureKind::Network, format!("proxy: HTTP {}", raw.status))
                });
            }
            if let Some(dir) = &recording.record {
                save_recording(
                    dir,
                    engine.config(),
                    name,
                    query,
                    spec,
                    &raw,
                    started.elapsed(),
                )
                .await;
            }
            raw
        }
    };
    let status = reqwest::StatusCode::from_u16(raw.status).map_err(|_| {
        Failure::new(
            FailureKind::Network,
            format!("invalid status {}", raw.status),
        )
    })?;
    if !status.is_success() {
        return Err(status_failure_with(status, raw.header("retry-after")));
    }
    Ok(raw)
}

/// The network part of [`fetch`]: the body is read as a stream and dropped
/// as soon as it passes the cap. Bodies of error statuses are read too (under
/// the same cap) so a recording keeps what the engine said.
async fn fetch_raw(
    client: &reqwest::Client,
    spec: &crate::engines::RequestSpec,
    cap: usize,
) -> Result<RawAnswer, Failure> {
    let mut request = client.get(&spec.url);
    for (name, value) in &spec.headers {
        request = request.header(name, value);
    }
    let response = request.send().await.map_err(|e| transport_failure(&e))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(len) = response.content_length()
        && len > cap as u64
    {
        return Err(if status.is_success() {
            too_large(cap)
        } else {
            status_failure_with(status, retry_after.as_deref())
        });
    }
    let headers = response
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    // Sized once when the engine says how much comes (no regrowth copies
    // of a megabyte page); never beyond the cap.
    let expected = response.content_length().unwrap_or(0).min(cap as u64);
    let mut body: Vec<u8> = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| transport_failure(&e))?;
        if body.len() + chunk.len() > cap {
            return Err(if status.is_success() {
                too_large(cap)
            } else {
                status_failure_with(status, retry_after.as_deref())
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawAnswer {
        status: status.as_u16(),
        headers,
        body,
    })
}

/// Reads the recorded answer of `engine` to `query` (file I/O off the runtime).
async fn replay(
    dir: &std::path::Path,
    engine: String,
    query: &Query,
) -> Result<RawAnswer, Failure> {
    let dir = dir.to_path_buf();
    let query = query.clone();
    let rec =
        tokio::task::spawn_blocking(move || recording::Recording::lookup(&dir, &engine, &query))
            .await
            .map_err(|_| Failure::new(FailureKind::Network, "reading the recording failed"))?
            .map_err(|e| {
                let missing = matches!(e, recording::RecordingError::Missing { .. });
                // The path is the admin's to see, not the client's.
                let kind = if missing {
                    FailureKind::NotRecorded
                } else {
                    FailureKind::Network
                };
                if missing {
                    tracing::debug!(error = %e, "replay");
                } else {
                    tracing::warn!(error = %e, "replay");
                }
                Failure {
                    counts_for_health: !missing,
                    ..Failure::new(kind, e.public_reason())
                }
            })?;
    let body = rec
        .response
        .body_bytes()
        .map_err(|e| Failure::new(FailureKind::Parse, format!("recording: {e}")))?;
    Ok(RawAnswer {
        status: rec.response.status,
        headers: rec.response.headers,
        body,
    })
}

/// The request headers a recording keeps: metasift's own as sent, and every
/// header the admin configured (an API key, a cookie, a token read from the
/// environment) by name only, so a recording folder can be shared or
/// committed without its secrets.
fn recorded_headers(
    configured: &std::collections::BTreeMap<String, String>,
    sent: &[(String, String)],
) -> Vec<(String, String)> {
    sent.iter()
        .map(|(name, value)| {
            if configured.keys().any(|c| c.eq_ignore_ascii_case(name)) {
                (name.clone(), "[redacted]".to_string())
            } else {
                (name.clone(), value.clone())
            }
        })
        .collect()
}

/// Saves one answer; a recording that cannot be written is logged, never a
/// failure of the search.
async fn save_recording(
    dir: &std::path::Path,
    engine: &EngineConfig,
    name: &str,
    query: &Query,
    spec: &crate::engines::RequestSpec,
    raw: &RawAnswer,
    elapsed: Duration,
) {
    let rec = recording::Recording {
        format: recording::FORMAT.into(),
        engine: name.to_string(),
        query: recording::RecordedQuery::from(query),
        request: recording::RecordedRequest {
            method: "GET".into(),
            url: spec.url.clone(),
            headers: recorded_headers(&engine.headers, &spec.headers),
        },
        response: recording::RecordedResponse::new(
            raw.status,
            raw.headers.clone(),
            millis(elapsed),
            &raw.body,
        ),
        recorded_at: httpdate::fmt_http_date(std::time::SystemTime::now()),
        source: None,
    };
    let dir = dir.to_path_buf();
    match tokio::task::spawn_blocking(move || rec.save(&dir)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(engine = %engine.name, error = %e, "recording not saved"),
        Err(e) => tracing::warn!(engine = %engine.name, error = %e, "recording not saved"),
    }
}

fn too_large(cap: usize) -> Failure {
    Failure::new(
        FailureKind::TooLarge,
        format!("answer larger than {cap} bytes"),
    )
}

/// The failure an unsuccessful status means.
fn status_failure(status: reqwest::StatusCode) -> Failure {
    let kind = if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
        FailureKind::TooManyRequests
    } else if status.is_client_error() {
        FailureKind::Http4xx
    } else if status.is_server_error() {
        FailureKind::Http5xx
    } else {
        // A 1xx/3xx that reqwest did not follow (no Location, 304, …).
        FailureKind::Network
    };
    let reason = match status.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    };
    Failure::new(kind, reason)
}

/// [`status_failure`] of an answer that may say when to come back: a
/// 429's `Retry-After` (seconds or an HTTP date) goes to health, which
/// suspends the engine that long (within bounds), and to the reason.
fn status_failure_with(status: reqwest::StatusCode, retry_after: Option<&str>) -> Failure {
    let mut failure = status_failure(status);
    if status == reqwest::StatusCode::TOO_MANY_REQUESTS
        && let Some(wait) = retry_after.and_then(|v| parse_retry_after(v, SystemTime::now()))
    {
        // Health keeps the suspension within its bounds; the reason says
        // what was asked, a silly wait (`1e20` s) as what it is.
        failure.reason = match wait.as_secs() {
            s if s > MAX_SHOWN_WAIT_S => {
                format!(
                    "{} (asks to wait over {MAX_SHOWN_WAIT_S} s: more than a day)",
                    failure.reason
                )
            }
            s => format!("{} (asks to wait {s} s)", failure.reason),
        };
        failure.retry_after = Some(wait);
    }
    failure
}

/// The longest `Retry-After` a reason repeats as a number of seconds.
const MAX_SHOWN_WAIT_S: u64 = 86_400;

/// A `Retry-After` value: delay seconds, or an HTTP date (a date already
/// past is no wait). `None` when it is neither.
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits beyond u64 are "very long": the suspension is capped anyway.
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A failure met through a proxy that says more of the proxy than of the
/// engine: no connection (to the proxy, or through it: a tunnel it
/// refused). With a 407 (credentials refused) or a 502/503 (it could not
/// reach the engine, or the engine refuses its address) answered through
/// it (see [`fetch`]), the proxy rests, the engine's health is untouched.
fn blame_proxy(mut f: Failure, via_proxy: bool) -> Failure {
    let connect = f.kind == FailureKind::Network && f.reason.starts_with("cannot connect");
    if via_proxy && connect {
        f.by_proxy = true;
        f.counts_for_health = false;
        f.reason = format!("proxy: {}", f.reason);
    }
    f
}

fn transport_failure(e: &reqwest::Error) -> Failure {
    if e.is_timeout() {
        return Failure::new(FailureKind::Timeout, "timed out");
    }
    // reqwest's top-level message is vague ("error sending request"); the
    // innermost cause says what happened ("connection refused", or why
    // `redirect_refusal` stopped a redirect).
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        reason = s.to_string();
        source = s.source();
    }
    let prefix = if e.is_connect() {
        "cannot connect: "
    } else {
        ""
    };
    Failure::new(FailureKind::Network, format!("{prefix}{reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_keep_configured_headers_by_name_only() {
        let configured = std::collections::BTreeMap::from([(
            "X-Subscription-Token".to_string(),
            "secret-key".to_string(),
        )]);
        let sent = vec![
            ("x-subscription-token".to_string(), "secret-key".to_string()),
            ("accept-language".to_string(), "en".to_string()),
        ];
        let kept = recorded_headers(&configured, &sent);
        assert_eq!(
            kept[0],
            ("x-subscription-token".into(), "[redacted]".into())
        );
        assert_eq!(kept[1], ("accept-language".into(), "en".into()));
        assert!(!format!("{kept:?}").contains("secret-key"));
    }

    #[test]
    fn statuses_map_to_kinds() {
        use reqwest::StatusCode;
        assert_eq!(
            status_failure(StatusCode::TOO_MANY_REQUESTS).kind,
            FailureKind::TooManyRequests
        );
        assert_eq!(
            status_failure(StatusCode::FORBIDDEN).kind,
            FailureKind::Http4xx
        );
        let f = status_failure(StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(f.kind, FailureKind::Http5xx);
        assert_eq!(f.reason, "HTTP 503 Service Unavailable");
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let s = Duration::from_secs;
        assert_eq!(parse_retry_after("120", now), Some(s(120)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(s(0)));
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(s(u64::MAX))
        );
        let later = httpdate::fmt_http_date(now + s(90));
        assert_eq!(parse_retry_after(&later, now), Some(s(90)));
        let earlier = httpdate::fmt_http_date(now - s(90));
        assert_eq!(parse_retry_after(&earlier, now), Some(s(0)));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("", now), None);
        let f = status_failure_with(reqwest::StatusCode::TOO_MANY_REQUESTS, Some("60"));
        assert_eq!(f.retry_after, Some(s(60)));
        assert_eq!(f.reason, "HTTP 429 Too Many Requests (asks to wait 60 s)");
        let huge = status_failure_with(
            reqwest::StatusCode::TOO_MANY_REQUESTS,
            Some("100000000000000000000"),
        );
        assert_eq!(
            huge.reason,
            "HTTP 429 Too Many Requests (asks to wait over 86400 s: more than a day)"
        );
        let f = status_failure_with(reqwest::StatusCode::SERVICE_UNAVAILABLE, Some("60"));
        assert_eq!(f.retry_after, None);
    }

    #[test]
    fn redirects_stay_at_the_engines_origin() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        let ok = |from: &str, to: &str| redirect_refusal(&[u(from)], &u(to)).is_none();
        assert!(ok("https://a.example/s?q=x", "https://a.example/other"));
        assert!(ok("http://a.example/s", "https://a.example/s"));
        assert!(ok("http://127.0.0.1:8080/s", "http://127.0.0.1:8080/t"));
        assert!(ok("http://localhost:8/s", "http://localhost:8/t"));
        // Another site, another port, a downgrade, a www. hop.
        assert!(!ok("https://a.example/s", "https://b.example/s"));
        assert!(!ok("https://a.example/s", "https://a.example:8443/s"));
        assert!(!ok("https://a.example/s", "http://a.example/s"));
        assert!(!ok("https://a.example/s", "https://www.a.example/s"));
        assert!(!ok("http://127.0.0.1:8080/s", "http://127.0.0.1:8081/s"));
        // Into this machine or the private network, from a public engine.
        for local in [
            "http://127.0.0.1/",
            "http://localhost/",
            "http://x.localhost/",
            "http://10.1.2.3/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
            "http://[::1]/",
            "http://[fe80::1]/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
        ] {
            let why = redirect_refusal(&[u("http://a.example/s")], &u(local)).unwrap();
            assert!(why.contains("local address"), "{local}: {why}");
        }
        assert!(!is_local_host(&u("http://8.8.8.8/")));
        assert!(!is_local_host(&u("http://[2001:db8::1]/")));
        // At most MAX_REDIRECTS hops.
        let chain = vec![u("https://a.example/"); MAX_REDIRECTS + 1];
        assert!(redirect_refusal(&chain, &u("https://a.example/")).is_some());
    }
}
