//! Coalescing across the instances on one Redis: the first to miss a key
//! takes its lock (`SET {key}:lock token NX PX lock_for`) and fans out;
//! the others poll for its answer instead of asking the engines again.
//!
//! The holder stores its answer before it deletes the lock, and a waiter
//! checks the lock before the key, so a waiter that finds the lock gone
//! finds the answer too, if there was one to keep (an answer in which no
//! engine answered is not stored: the waiters then fan out themselves). A
//! holder that dies leaves a lock that expires after `lock_for` (about the
//! search deadline), when the waiters stop waiting and fan out: a lost
//! holder costs them one deadline at most. Redis away (or failing) means
//! no lock: each process fans out on its own, as without Redis.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::store::Cacheable;
use super::{Backend, Inner};
use crate::ops::redis::REDIS_TIMEOUT;

/// How often a waiter looks for the holder's answer.
const POLL: Duration = Duration::from_millis(25);

/// What claiming a key gave.
pub(super) enum Claim<V> {
    /// No lock (no Redis, or it failed): fan out alone.
    Alone,
    /// This process holds the lock under this token.
    Held(String),
    /// Another instance answered meanwhile.
    Answered(Arc<V>),
}

fn lock_key(key: &str) -> String {
    format!("{key}:lock")
}

/// A token no other lock holder uses.
fn token() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}:{}:{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Deletes the lock only if it is still ours (it may have expired and been
/// taken by another instance).
const RELEASE_LUA: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl Inner {
    /// `SET lock token NX PX`: `Some(true)` taken, `Some(false)` held by
    /// another, `None` Redis failed or is paused (then fan out alone).
    async fn try_lock(&self, key: &str, token: &str, lock_for: Duration) -> Option<bool> {
        let Backend::Redis {
            manager, breaker, ..
        } = &self.backend
        else {
            return None;
        };
        if !breaker.allow() {
            return None;
        }
        let mut conn = manager.clone();
        let mut cmd = redis::cmd("SET");
        cmd.arg(lock_key(key))
            .arg(token)
            .arg("NX")
            .arg("PX")
            .arg(millis(lock_for));
        let call = cmd.query_async::<Option<String>>(&mut conn);
        match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok(set)) => {
                breaker.succeeded();
                Some(set.is_some())
            }
            Ok(Err(e)) => {
                breaker.failed();
                self.failed("fan-out lock", &e.to_string());
                None
            }
            Err(_) => {
                breaker.failed();
                self.failed("fan-out lock", "no answer in time");
                None
            }
        }
    }

    /// A fresh value under `key` in Redis itself (not the front).
    async fn fresh_in_redis<V: Cacheable>(&self, key: &str) -> Option<Arc<V>> {
        let Backend::Redis {
            manager,
            front,
            breaker,
        } = &self.backend
        else {
            return None;
        };
        let (v, _) = self
            .redis_get::<V>(manager, breaker, front.as_ref(), key)
            .await?;
        (!self.is_stale(&*v)).then_some(v)
    }

    /// Whether the lock of `key` is still held; `None` when Redis failed.
    async fn locked(&self, key: &str) -> Option<bool> {
        let Backend::Redis {
            manager, breaker, ..
        } = &self.backend
        else {
            return None;
        };
        let mut conn = manager.clone();
        let mut cmd = redis::cmd("EXISTS");
        cmd.arg(lock_key(key));
        let call = cmd.query_async::<i64>(&mut conn);
        match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok(n)) => {
                breaker.succeeded();
                Some(n > 0)
            }
            _ => {
                breaker.failed();
                None
            }
        }
    }

    /// Before a fan-out for `key`: takes the fleet's lock (and looks once
    /// more for an answer stored just before), or waits — at most
    /// `lock_for` — for the instance holding it to store its answer.
    pub(super) async fn claim_or_wait<V: Cacheable>(
        &self,
        key: &str,
        lock_for: Duration,
    ) -> Claim<V> {
        let token = token();
        match self.try_lock(key, &token, lock_for).await {
            None => Claim::Alone,
            Some(true) => {
                let held = Claim::Held(token);
                // Another instance may have stored its answer and let go
                // of the lock between our miss and our lock.
                match self.fresh_in_redis::<V>(key).await {
                    Some(v) => {
                        self.release(key, held).await;
                        Claim::Answered(v)
                    }
                    None => held,
                }
            }
            Some(false) => {
                let until = Instant::now() + lock_for;
                while Instant::now() < until {
                    tokio::time::sleep(POLL).await;
                    // The lock first: gone means the answer, if any, is in.
                    let Some(locked) = self.locked(key).await else {
                        return Claim::Alone;
                    };
                    if let Some(v) = self.fresh_in_redis::<V>(key).await {
                        return Claim::Answered(v);
                    }
                    if !locked {
                        return Claim::Alone;
                    }
                }
                Claim::Alone
            }
        }
    }

    /// Before refreshing the stale entry of `key`: the claim to refresh
    /// it, or `None` when another instance is refreshing it (holds the
    /// lock) or has just done so.
    pub(super) async fn claim_refresh<V: Cacheable>(
        &self,
        key: &str,
        lock_for: Duration,
    ) -> Option<Claim<V>> {
        let token = token();
        match self.try_lock(key, &token, lock_for).await {
            None => Some(Claim::Alone),
            Some(false) => None,
            Some(true) => {
                let held = Claim::Held(token);
                if self.fresh_in_redis::<V>(key).await.is_some() {
                    self.release(key, held).await;
                    return None;
                }
                Some(held)
            }
        }
    }

    /// Lets go of the lock of `key`, if this claim holds it.
    pub(super) async fn release<V>(&self, key: &str, claim: Claim<V>) {
        let (
            Claim::Held(token),
            Backend::Redis {
                manager, breaker, ..
            },
        ) = (claim, &self.backend)
        else {
            return;
        };
        let mut conn = manager.clone();
        let script = redis::Script::new(RELEASE_LUA);
        let mut invocation = script.key(lock_key(key));
        invocation.arg(token);
        let call = invocation.invoke_async::<i64>(&mut conn);
        match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok(_)) => breaker.succeeded(),
            // The lock expires on its own.
            Ok(Err(e)) => self.failed("fan-out unlock", &e.to_string()),
            Err(_) => self.failed("fan-out unlock", "no answer in time"),
        }
    }
}
