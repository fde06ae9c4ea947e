//! Outbound budgets: how often the instances on one Redis may ask each
//! member engine (`[[engine]] max_per_minute`, `burst`).
//!
//! Engines block an address that asks too often (a CAPTCHA, HTTP 429), and
//! instances behind one proxy leave from one address: their requests add
//! up. So each engine's budget is one bucket for the whole fleet, kept in
//! Redis and taken from in one round trip (the GCRA script of
//! [`super::limit`], which uses Redis's clock: `max_per_minute` on average,
//! `burst` at once; in any minute an engine sees at most `max_per_minute +
//! burst` requests, so set the budget below the engine's own limit). Keys
//! are `metasift:budget:{engine}`, hash-tagged by engine so a Redis Cluster
//! keeps each on one slot.
//!
//! When Redis is not configured, or fails (one warning per 30 s, then a
//! pause, as for the cache), each process takes from a bucket of its own
//! of the same size: the budget is then per process, never "no budget".
//!
//! Only the decision lives here; what a search does with a refusal (an
//! answer from the cache, or the engine reported as resting) is the search
//! layer's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::limit::{GCRA_LUA, gcra};
use super::redis::{Breaker, REDIS_TIMEOUT, WarnGate, redis_manager};

/// The outbound budgets of every engine. Cheap to clone.
#[derive(Clone, Default)]
pub struct Budgets {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The theoretical arrival time of each engine's bucket, this process.
    local: Mutex<HashMap<String, Instant>>,
    redis: Option<(crate::ops::redis::Conn, redis::Script)>,
    breaker: Breaker,
    warn: WarnGate,
}

impl std::fmt::Debug for Budgets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budgets")
            .field("redis", &self.inner.redis.is_some())
            .finish()
    }
}

/// The Redis key of `engine`'s bucket.
pub fn budget_key(engine: &str) -> String {
    format!("metasift:budget:{{{engine}}}")
}

/// The time between two requests at `per_minute` a minute.
fn interval(per_minute: u32) -> Duration {
    Duration::from_secs(60) / per_minute.max(1)
}

impl Budgets {
    /// Budgets kept in this process alone.
    pub fn local() -> Self {
        Budgets::default()
    }

    /// Budgets shared through the Redis at `url` (connected lazily; this
    /// process's own buckets while it is unreachable). Fails only on a
    /// malformed URL.
    pub fn redis(url: &str) -> Result<Self, redis::RedisError> {
        Ok(Budgets {
            inner: Arc::new(Inner {
                redis: Some((redis_manager(url)?, redis::Script::new(GCRA_LUA))),
                ..Inner::default()
            }),
        })
    }

    /// Whether the buckets are shared through Redis.
    pub fn shared(&self) -> bool {
        self.inner.redis.is_some()
    }

    /// Takes one request from `engine`'s budget of `per_minute` a minute
    /// and `burst` at once: `true` when it may be asked now.
    pub async fn take(&self, engine: &str, per_minute: u32, burst: u32) -> bool {
        let t = interval(per_minute);
        if let Some((manager, script)) = &self.inner.redis
            && self.inner.breaker.allow()
        {
            let mut conn = manager.clone();
            let key = budget_key(engine);
            let mut invocation = script.key(&key);
            invocation
                .arg(u64::try_from(t.as_micros()).unwrap_or(u64::MAX))
                .arg(burst.max(1));
            let call = invocation.invoke_async::<(i64, i64)>(&mut conn);
            match tokio::time::timeout(REDIS_TIMEOUT, call).await {
                Ok(Ok((allowed, _))) => {
                    self.inner.breaker.succeeded();
                    return allowed == 1;
                }
                Ok(Err(e)) => {
                    self.inner.breaker.failed();
                    self.inner.warn.warn("outbound budget", &e.to_string());
                }
                Err(_) => {
                    self.inner.breaker.failed();
                    self.inner
                        .warn
                        .warn("outbound budget", "Redis did not answer in time");
                }
            }
        }
        self.take_local_at(engine, t, burst, Instant::now())
    }

    fn take_local_at(&self, engine: &str, t: Duration, burst: u32, now: Instant) -> bool {
        let mut local = self.inner.local.lock().unwrap_or_else(|p| p.into_inner());
        match gcra(local.get(engine).copied(), now, t, burst) {
            Ok(tat) => {
                local.insert(engine.to_string(), tat);
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_bucket_gives_its_burst_then_its_pace() {
        let b = Budgets::local();
        let t = interval(30);
        assert_eq!(t, Duration::from_secs(2));
        let now = Instant::now();
        let taken = (0..20).filter(|_| b.take_local_at("e", t, 5, now)).count();
        assert_eq!(taken, 5, "the burst, then nothing at the same instant");
        // Another engine has a bucket of its own.
        assert!(b.take_local_at("other", t, 5, now));
        // One interval later, one more.
        assert!(b.take_local_at("e", t, 5, now + t));
        assert!(!b.take_local_at("e", t, 5, now + t));
        // Over a minute: at most per_minute + burst.
        let minute: usize = (0..600)
            .filter(|i| b.take_local_at("m", t, 5, now + Duration::from_millis(100 * i)))
            .count();
        assert!(minute <= 30 + 5, "{minute}");
        assert!(minute >= 30, "{minute}");
    }

    #[test]
    fn keys_are_hash_tagged_by_engine() {
        assert_eq!(budget_key("google"), "metasift:budget:{google}");
    }
}
