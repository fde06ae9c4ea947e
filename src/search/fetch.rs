//! HTTP to one member engine: the request, its redirects, its body read
//! under the size cap, its decoding and parse — or the same from a
//! recording — ending in one [`Outcome`], a parsed page or a [`Failure`]
//! that says why for people and counts for health by its kind.
//!
//! Parsing is CPU work, so it runs on the blocking pool, one parse per core
//! at a time, and never stalls the runtime's network threads.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;

use super::millis;
use super::recording;
use crate::config::{EngineConfig, ServerConfig};
use crate::engines::{Engine, Parsed};
use crate::model::{FailureKind, Query};

/// Most redirects followed before an engine is reported as failing: enough
/// for `http → https → www.` hops, short of any loop.
pub const MAX_REDIRECTS: usize = 5;

/// The shared HTTP client every engine request goes through.
pub fn http_client(server: &ServerConfig) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(server.user_agent.as_str())
        .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
        .connect_timeout(Duration::from_millis(server.deadline_ms.clamp(1, 10_000)))
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .build()
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
}

impl Failure {
    pub(super) fn new(kind: FailureKind, reason: impl Into<String>) -> Self {
        Failure {
            kind,
            reason: reason.into(),
            counts_for_health: true,
        }
    }
}

/// Where an engine's answers come from and go to besides the network.
#[derive(Debug, Clone, Default)]
pub(super) struct Recording {
    pub(super) record: Option<PathBuf>,
    pub(super) replay: Option<PathBuf>,
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

/// One request (or its recording), its body read under the cap, and its parse.
pub(super) async fn fetch(
    client: &reqwest::Client,
    engine: Arc<dyn Engine>,
    query: &Query,
    cap: usize,
    recording: &Recording,
    parse_slots: Arc<tokio::sync::Semaphore>,
) -> Result<Parsed, Failure> {
    let spec = engine.build_request(query);
    let raw = match &recording.replay {
        Some(dir) => replay(dir, engine.config().name.clone(), query).await?,
        None => {
            let started = Instant::now();
            let raw = fetch_raw(client, &spec, cap).await?;
            if let Some(dir) = &recording.record {
                save_recording(dir, engine.config(), query, &spec, &raw, started.elapsed()).await;
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
        return Err(status_failure(status));
    }
    let content_type = raw.header("content-type").map(str::to_string);
    // Never closed, so acquiring only waits. The slot goes with the parse:
    // a search that times out meanwhile does not free it early.
    let slot = parse_slots.acquire_owned().await.ok();
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let text = crate::engines::decode_body_owned(raw.body, content_type.as_deref());
        engine.parse(&text)
    })
    .await
    .map_err(|_| Failure::new(FailureKind::Parse, "the parser crashed on this answer"))?
    .map_err(|e| Failure::new(e.kind(), e.to_string()))
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
    if let Some(len) = response.content_length()
        && len > cap as u64
    {
        return Err(if status.is_success() {
            too_large(cap)
        } else {
            status_failure(status)
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
                status_failure(status)
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
                let kind = if missing {
                    FailureKind::NotRecorded
                } else {
                    FailureKind::Network
                };
                Failure {
                    counts_for_health: !missing,
                    ..Failure::new(kind, e.to_string())
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

/// Saves one answer; a recording that cannot be written is logged, never a
/// failure of the search.
async fn save_recording(
    dir: &std::path::Path,
    engine: &EngineConfig,
    query: &Query,
    spec: &crate::engines::RequestSpec,
    raw: &RawAnswer,
    elapsed: Duration,
) {
    let rec = recording::Recording {
        format: recording::FORMAT.into(),
        engine: engine.name.clone(),
        query: recording::RecordedQuery::from(query),
        request: recording::RecordedRequest {
            method: "GET".into(),
            url: spec.url.clone(),
            headers: spec.headers.clone(),
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

fn transport_failure(e: &reqwest::Error) -> Failure {
    if e.is_timeout() {
        return Failure::new(FailureKind::Timeout, "timed out");
    }
    if e.is_redirect() {
        return Failure::new(
            FailureKind::Network,
            format!("more than {MAX_REDIRECTS} redirects (a redirect loop?)"),
        );
    }
    // reqwest's top-level message is vague ("error sending request"); the
    // innermost cause says what happened ("connection refused").
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
}
