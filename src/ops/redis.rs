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
