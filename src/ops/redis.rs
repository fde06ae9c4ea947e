//! The Redis connection shared by the cache and the rate limiter.
//!
//! Redis is an optimisation, never a dependency: the manager connects
//! lazily and gives up quickly, so a missing Redis neither blocks start-up
//! nor stalls a search, and a Redis outage under load is logged once every
//! [`WARN_EVERY`] instead of once per request.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Shortest interval between two warnings about a failing backend.
pub(crate) const WARN_EVERY: Duration = Duration::from_secs(30);

/// How long one Redis call may take before it counts as failed.
pub(crate) const REDIS_TIMEOUT: Duration = Duration::from_millis(300);

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

/// A Redis connection manager that connects lazily and retries briefly, so
/// a missing Redis neither blocks start-up nor stalls a search.
pub(crate) fn redis_manager(url: &str) -> Result<redis::aio::ConnectionManager, redis::RedisError> {
    let client = redis::Client::open(url)?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(500))
        .set_connection_timeout(Some(Duration::from_millis(250)))
        .set_response_timeout(Some(REDIS_TIMEOUT));
    redis::aio::ConnectionManager::new_lazy_with_config(client, config)
}

#[cfg(test)]
mod tests {
    use super::*;

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
