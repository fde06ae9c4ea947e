//! The Redis connection every Redis user of `ops` goes through (cache,
//! fan-out lock, limits, budgets, shared health): [`Conn`], one node, a
//! primary found through Sentinel, or a Cluster, as `[cache] url` says
//! ([`RedisTarget`]).
//!
//! Redis is an optimisation, never a dependency: the manager connects
//! lazily and gives up quickly, so a missing Redis neither blocks start-up
//! nor stalls a search, and a Redis outage under load is logged once every
//! [`WARN_EVERY`] instead of once per request. Behind Sentinel, a call that
//! fails drops the connection and the next one asks the Sentinels where
//! the primary is now, so a fail-over costs the calls made while it runs
//! (they fall back to this process alone), nothing after. A Cluster
//! connection follows slot moves and fail-overs itself.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::{Cmd, ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisFuture, Value};

use crate::config::RedisTarget;

/// Shortest interval between two warnings about a failing backend.
pub(crate) const WARN_EVERY: Duration = Duration::from_secs(30);

/// How long one Redis call may take before it counts as failed.
pub(crate) const REDIS_TIMEOUT: Duration = Duration::from_millis(300);

/// The first pause after a failed Redis call.
const BREAKER_MIN: Duration = Duration::from_millis(500);
/// The longest pause between two tries of a Redis that keeps failing.
const BREAKER_MAX: Duration = Duration::from_secs(5);

/// Stops asking a Redis that just failed: after a failure no call is made
/// for [`BREAKER_MIN`], then one call tries (the others still skip Redis);
/// each further failure doubles the pause up to [`BREAKER_MAX`], and one
/// success closes it. So a dead Redis costs one timed-out call every few
/// seconds, not a connection attempt per request.
#[derive(Debug, Default)]
pub(crate) struct Breaker {
    state: Mutex<BreakerState>,
}

#[derive(Debug, Default)]
struct BreakerState {
    /// `None`: Redis is believed up. `Some(t)`: skip it until `t`.
    retry_at: Option<Instant>,
    pause: Duration,
}

impl Breaker {
    /// Whether a Redis call may be made at `now`. When the pause is over,
    /// the caller that gets `true` is the one try; the next window starts
    /// at once, so the callers after it skip Redis until that try is known.
    pub(crate) fn allow_at(&self, now: Instant) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match s.retry_at {
            None => true,
            Some(t) if now >= t => {
                let pause = s.pause;
                s.retry_at = Some(now + pause);
                true
            }
            Some(_) => false,
        }
    }

    /// [`Breaker::allow_at`] now.
    pub(crate) fn allow(&self) -> bool {
        self.allow_at(Instant::now())
    }

    /// A call succeeded: Redis is up.
    pub(crate) fn succeeded(&self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.retry_at = None;
        s.pause = Duration::ZERO;
    }

    /// A call failed at `now`: pause, longer each time in a row.
    pub(crate) fn failed_at(&self, now: Instant) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.pause = if s.retry_at.is_none() {
            BREAKER_MIN
        } else {
            (s.pause * 2).clamp(BREAKER_MIN, BREAKER_MAX)
        };
        s.retry_at = Some(now + s.pause);
    }

    /// [`Breaker::failed_at`] now.
    pub(crate) fn failed(&self) {
        self.failed_at(Instant::now());
    }
}

/// Lets one warning through per [`WARN_EVERY`] and counts the rest, so a
/// Redis outage under load writes a line every half minute, not thousands.
#[derive(Debug, Default)]
pub(crate) struct WarnGate {
    last: Mutex<Option<Instant>>,
    suppressed: AtomicU64,
}

impl WarnGate {
    /// Whether a warning may be written at `now`.
    pub(crate) fn allow_at(&self, now: Instant) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match *last {
            Some(t) if now.saturating_duration_since(t) < WARN_EVERY => {
                self.suppressed.fetch_add(1, Ordering::Relaxed);
                false
            }
            _ => {
                *last = Some(now);
                true
            }
        }
    }

    /// Logs `what failed: error` unless a warning was logged lately.
    pub(crate) fn warn(&self, what: &str, error: &str) {
        if self.allow_at(Instant::now()) {
            let suppressed = self.suppressed.swap(0, Ordering::Relaxed);
            tracing::warn!(
                suppressed,
                "{what}: Redis unavailable ({error}); going on without it"
            );
        }
    }
}

/// How long connecting to one node may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(250);

/// A Redis connection manager that connects lazily and retries briefly, so
/// a missing Redis neither blocks start-up nor stalls a search: one node,
/// a Sentinel-managed primary or a Cluster, as `url` says.
pub(crate) fn redis_manager(url: &str) -> Result<Conn, redis::RedisError> {
    let invalid = |m: String| {
        redis::RedisError::from((
            redis::ErrorKind::InvalidClientConfig,
            "invalid Redis URL",
            m,
        ))
    };
    match RedisTarget::parse(url).map_err(invalid)? {
        RedisTarget::Single(url) => {
            let client = redis::Client::open(url.as_str())?;
            let config = redis::aio::ConnectionManagerConfig::new()
                .set_number_of_retries(1)
                .set_min_delay(Duration::from_millis(50))
                .set_max_delay(Duration::from_millis(500))
                .set_connection_timeout(Some(CONNECT_TIMEOUT))
                .set_response_timeout(Some(REDIS_TIMEOUT));
            Ok(Conn::Single(
                redis::aio::ConnectionManager::new_lazy_with_config(client, config)?,
            ))
        }
        RedisTarget::Sentinel {
            sentinels,
            service,
            db,
            username,
            password,
        } => {
            let node = credentials(redis::RedisConnectionInfo::default(), &username, &password);
            let infos = sentinels
                .into_iter()
                .map(|(h, p)| {
                    Ok(ConnectionAddr::Tcp(h, p)
                        .into_connection_info()?
                        .set_redis_settings(node.clone()))
                })
                .collect::<Result<Vec<ConnectionInfo>, redis::RedisError>>()?;
            let primary = redis::sentinel::SentinelNodeConnectionInfo::default()
                .set_redis_connection_info(node.set_db(db));
            let client = redis::sentinel::SentinelClient::build(
                infos,
                service,
                Some(primary),
                redis::sentinel::SentinelServerType::Master,
            )?;
            Ok(Conn::Sentinel(Arc::new(Lazy {
                connector: tokio::sync::Mutex::new(client),
                current: Mutex::new(None),
            })))
        }
        RedisTarget::Cluster {
            nodes,
            username,
            password,
        } => {
            let infos = nodes
                .into_iter()
                .map(|(h, p)| ConnectionAddr::Tcp(h, p).into_connection_info())
                .collect::<Result<Vec<ConnectionInfo>, redis::RedisError>>()?;
            let mut builder = redis::cluster::ClusterClient::builder(infos)
                .connection_timeout(CONNECT_TIMEOUT)
                .response_timeout(REDIS_TIMEOUT)
                .retries(1)
                .min_retry_wait(20)
                .max_retry_wait(200);
            if let Some(u) = username {
                builder = builder.username(u);
            }
            if let Some(p) = password {
                builder = builder.password(p);
            }
            Ok(Conn::Cluster(Arc::new(Lazy {
                connector: tokio::sync::Mutex::new(builder.build()?),
                current: Mutex::new(None),
            })))
        }
    }
}

fn credentials(
    info: redis::RedisConnectionInfo,
    username: &Option<String>,
    password: &Option<String>,
) -> redis::RedisConnectionInfo {
    let info = match username {
        Some(u) => info.set_username(u),
        None => info,
    };
    match password {
        Some(p) => info.set_password(p),
        None => info,
    }
}

/// The one Redis connection of every user in `ops`: cheap to clone, and a
/// [`ConnectionLike`], so commands, pipelines and scripts run on it as on
/// any connection of the `redis` crate.
#[derive(Clone)]
pub(crate) enum Conn {
    /// One node, reconnected by the crate's manager.
    Single(redis::aio::ConnectionManager),
    /// The primary the Sentinels name, looked up again after a failure.
    Sentinel(Arc<Lazy<redis::sentinel::SentinelClient, MultiplexedConnection>>),
    /// A Cluster, connected at first use.
    Cluster(Arc<Lazy<redis::cluster::ClusterClient, redis::cluster_async::ClusterConnection>>),
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Conn::Single(_) => "Conn::Single",
            Conn::Sentinel(_) => "Conn::Sentinel",
            Conn::Cluster(_) => "Conn::Cluster",
        })
    }
}

/// A connection made at first use by `connector` (one attempt at a time)
/// and kept until a failure says it is gone.
pub(crate) struct Lazy<C, T> {
    connector: tokio::sync::Mutex<C>,
    current: Mutex<Option<T>>,
}

impl<C, T: Clone> Lazy<C, T> {
    fn cached(&self) -> Option<T> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn keep(&self, t: &T) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(t.clone());
    }

    fn forget(&self) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Lazy<redis::sentinel::SentinelClient, MultiplexedConnection> {
    async fn connection(&self) -> redis::RedisResult<MultiplexedConnection> {
        if let Some(c) = self.cached() {
            return Ok(c);
        }
        let mut client = self.connector.lock().await;
        if let Some(c) = self.cached() {
            return Ok(c);
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT));
        let c = client.get_async_connection_with_config(&config).await?;
        self.keep(&c);
        Ok(c)
    }
}

impl Lazy<redis::cluster::ClusterClient, redis::cluster_async::ClusterConnection> {
    async fn connection(&self) -> redis::RedisResult<redis::cluster_async::ClusterConnection> {
        if let Some(c) = self.cached() {
            return Ok(c);
        }
        let client = self.connector.lock().await;
        if let Some(c) = self.cached() {
            return Ok(c);
        }
        let c = client.get_async_connection().await?;
        self.keep(&c);
        Ok(c)
    }
}

/// Whether a failed call says the primary is no longer where the
/// connection points: anything but an answer of the server about the
/// command itself (a script not loaded yet is asked for again at once).
fn lost_primary(e: &redis::RedisError) -> bool {
    !matches!(e.code(), Some("NOSCRIPT"))
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(m) => m.req_packed_command(cmd),
            Conn::Sentinel(lazy) => Box::pin(async move {
                let mut c = lazy.connection().await?;
                let r = c.req_packed_command(cmd).await;
                if r.as_ref().is_err_and(lost_primary) {
                    lazy.forget();
                }
                r
            }),
            Conn::Cluster(lazy) => Box::pin(async move {
                let mut c = lazy.connection().await?;
                c.req_packed_command(cmd).await
            }),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(m) => m.req_packed_commands(pipeline, offset, count),
            Conn::Sentinel(lazy) => Box::pin(async move {
                let mut c = lazy.connection().await?;
                let r = c.req_packed_commands(pipeline, offset, count).await;
                if r.as_ref().is_err_and(lost_primary) {
                    lazy.forget();
                }
                r
            }),
            Conn::Cluster(lazy) => Box::pin(async move {
                let mut c = lazy.connection().await?;
                c.req_packed_commands(pipeline, offset, count).await
            }),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(m) => m.get_db(),
            Conn::Sentinel(_) | Conn::Cluster(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaker_pauses_after_failures_and_closes_on_success() {
        let b = Breaker::default();
        let t = Instant::now();
        assert!(b.allow_at(t));
        b.failed_at(t);
        assert!(!b.allow_at(t + Duration::from_millis(100)));
        // The pause is over: one try, the others skip.
        let t1 = t + BREAKER_MIN;
        assert!(b.allow_at(t1));
        assert!(!b.allow_at(t1));
        // That try failed: twice the pause.
        b.failed_at(t1);
        assert!(!b.allow_at(t1 + BREAKER_MIN));
        assert!(b.allow_at(t1 + BREAKER_MIN * 2));
        // Never longer than the cap.
        let mut now = t1;
        for _ in 0..20 {
            b.failed_at(now);
            now += BREAKER_MAX;
            assert!(b.allow_at(now));
        }
        b.succeeded();
        assert!(b.allow_at(now) && b.allow_at(now));
    }

    #[test]
    fn warn_gate_lets_one_through_per_interval() {
        let g = WarnGate::default();
        let t = Instant::now();
        assert!(g.allow_at(t));
        assert!(!g.allow_at(t + Duration::from_secs(1)));
        assert!(!g.allow_at(t + Duration::from_secs(29)));
        assert!(g.allow_at(t + Duration::from_secs(31)));
    }
}
