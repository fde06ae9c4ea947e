//! Engine suspensions shared by every instance on one Redis.
//!
//! Instances behind one proxy usually leave from one address, so a CAPTCHA
//! or an HTTP 429 that one of them meets is meant for all of them: asking
//! again from a sibling only prolongs the block. When an instance starts a
//! suspension for a block or a 429, it writes it to Redis; before a fan-out
//! every instance reads the suspensions of the engines it is about to ask
//! (one `MGET`) and adopts those it did not know, with the name of the
//! instance that saw the block (shown on `/stats`).
//!
//! Only *where* a suspension is kept lives here: how long it lasts is
//! [`super::health::HealthPolicy::backoff`]'s, computed by the instance that
//! saw the failure. Ordinary failures (timeouts, 5xx, parse errors) stay
//! local: they may be one instance's network path.
//!
//! Keys are `metasift:{health}:suspended:ENGINE` holding
//! `"{until_unix_ms} {kind} {instance}"` and expiring with the suspension,
//! all hash-tagged `{health}` so the one `MGET` finds them on one Redis
//! Cluster slot;
//! so Redis holds nothing stale. Redis is an optimisation: when it fails
//! (one warning per 30 s) each instance goes on with its own book; after a
//! Redis restart the keys are gone, instances that had adopted a
//! suspension keep it until it ends, and the others learn of a block again
//! from the engine itself.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::redis::{REDIS_TIMEOUT, WarnGate, redis_manager};
use crate::model::FailureKind;

/// A suspension another instance (or this one) published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedSuspension {
    /// When the engine is asked again.
    pub until: SystemTime,
    /// What was met (`blocked`, `too_many_requests`).
    pub kind: String,
    /// The instance that met it.
    pub instance: String,
}

/// The suspensions in Redis, seen as one instance.
pub struct SharedHealth {
    manager: crate::ops::redis::Conn,
    instance: String,
    warn: WarnGate,
}

impl std::fmt::Debug for SharedHealth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedHealth")
            .field("instance", &self.instance)
            .finish()
    }
}

fn key(engine: &str) -> String {
    format!("metasift:{{health}}:suspended:{engine}")
}

fn unix_ms(t: SystemTime) -> u64 {
    u64::try_from(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
}

/// Whether a failure of this kind is shared (it is about the address all
/// instances leave from, not about one instance's path).
pub fn is_shared_kind(kind: FailureKind) -> bool {
    matches!(kind, FailureKind::Blocked | FailureKind::TooManyRequests)
}

impl SharedHealth {
    /// Suspensions in the Redis at `url`, published as `instance`
    /// (connected lazily; fails only on a malformed URL).
    pub fn redis(url: &str, instance: &str) -> Result<SharedHealth, redis::RedisError> {
        Ok(SharedHealth {
            manager: redis_manager(url)?,
            instance: instance.to_string(),
            warn: WarnGate::default(),
        })
    }

    /// This instance's name.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Publishes that `engine` is suspended until `until` after `kind`.
    pub async fn publish(
        &self,
        engine: &str,
        until: SystemTime,
        kind: FailureKind,
        now: SystemTime,
    ) {
        let Ok(left) = until.duration_since(now) else {
            return;
        };
        let ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1);
        let value = format!("{} {} {}", unix_ms(until), kind.as_str(), self.instance);
        let mut conn = self.manager.clone();
        let mut cmd = redis::cmd("SET");
        cmd.arg(key(engine)).arg(value).arg("PX").arg(ms);
        let call = cmd.query_async::<()>(&mut conn);
        match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.warn.warn("shared engine health", &e.to_string()),
            Err(_) => self
                .warn
                .warn("shared engine health", "Redis did not answer in time"),
        }
    }

    /// The suspensions in force at `now` of `engines`, in their order
    /// (`None`: none, or Redis could not say).
    pub async fn suspensions(
        &self,
        engines: &[&str],
        now: SystemTime,
    ) -> Vec<Option<SharedSuspension>> {
        if engines.is_empty() {
            return Vec::new();
        }
        let mut conn = self.manager.clone();
        let keys: Vec<String> = engines.iter().map(|e| key(e)).collect();
        let mut cmd = redis::cmd("MGET");
        cmd.arg(&keys);
        let call = cmd.query_async::<Vec<Option<String>>>(&mut conn);
        let values = match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok(values)) => values,
            Ok(Err(e)) => {
                self.warn.warn("shared engine health", &e.to_string());
                Vec::new()
            }
            Err(_) => {
                self.warn
                    .warn("shared engine health", "Redis did not answer in time");
                Vec::new()
            }
        };
        let mut out: Vec<Option<SharedSuspension>> = values
            .into_iter()
            .map(|v| v.and_then(|v| parse(&v)).filter(|s| s.until > now))
            .collect();
        out.resize(engines.len(), None);
        out
    }
}

/// `"{until_unix_ms} {kind} {instance}"` (the instance may hold spaces).
fn parse(value: &str) -> Option<SharedSuspension> {
    let mut parts = value.splitn(3, ' ');
    let ms: u64 = parts.next()?.parse().ok()?;
    let kind = parts.next()?.to_string();
    let instance = parts.next()?.to_string();
    Some(SharedSuspension {
        until: UNIX_EPOCH + Duration::from_millis(ms),
        kind,
        instance,
    })
}

/// The default name of this instance: `HOSTNAME:PORT`.
pub fn default_instance_id(port: u16) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "localhost".to_string());
    format!("{host}:{port}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_junk_is_ignored() {
        let s = parse("1700000000123 blocked web-1:8888").unwrap();
        assert_eq!(
            s.until,
            UNIX_EPOCH + Duration::from_millis(1_700_000_000_123)
        );
        assert_eq!(s.kind, "blocked");
        assert_eq!(s.instance, "web-1:8888");
        assert_eq!(parse("x blocked a"), None);
        assert_eq!(parse("12"), None);
        assert_eq!(parse("12 blocked a b").unwrap().instance, "a b");
    }
}
