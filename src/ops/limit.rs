//! Admission control: a per-client rate limit and a global cap on searches
//! in flight.
//!
//! **Rate limit.** A client (its IP address from the socket or, when the
//! socket's peer is a trusted proxy — `[limits] trust_forwarded` for one on
//! this host or a private network, `trusted_proxies` for others — the
//! rightmost `X-Forwarded-For` hop that is no trusted proxy; an IPv6 client
//! by its `/ipv6_prefix`, 48 by default) may run `per_minute` searches a minute on
//! average, with up to `burst` at once. This is GCRA (the generic cell rate
//! algorithm): each client has one *theoretical arrival time* (TAT); a
//! request is allowed when `max(TAT, now) + T − now ≤ T·burst` with
//! `T = 60 s / per_minute`, and then moves the TAT on by `T`. One number per
//! client, no timers, and the refusal says exactly how long to wait
//! (`Retry-After`). The defaults (60 a minute, burst 20) never get in the
//! way of a person or an API client that paces itself — unlike SearXNG's 4
//! JSON requests an hour — while a script hammering the server is slowed
//! to one search a second.
//!
//! `/autocomplete` has a limiter of its own (`autocomplete_per_minute`,
//! `autocomplete_burst`: 300 a minute, 30 at once by default), because a
//! browser asks on every keystroke: typing must never eat the search budget,
//! while a script cannot turn the server into a free proxy for the
//! suggestion engine either.
//!
//! With `[cache] backend = "redis"` the TAT lives in Redis, updated by one
//! Lua script using Redis's own clock, so every process behind a load
//! balancer shares one limit. When Redis is unreachable each process falls
//! back to its in-memory limiter: the limit is then per process, never
//! "no limit" and never an error for the user, and Redis is left alone for
//! a while after a failure (`ops::redis::Breaker`), so a dead one costs no
//! timeout per request.
//!
//! **In flight.** `max_in_flight` caps concurrent uncached searches across
//! all clients; the excess is refused at once with 503 rather than queued,
//! so memory stays bounded at ten times the sustainable load.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::LimitsConfig;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A search refused because `max_in_flight` searches are already running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("too many searches in flight; try again in a moment")]
pub struct Overloaded;

/// The answer to "may this client search now?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Go ahead.
    Allow,
    /// Refuse with 429; the client may retry after this many seconds (≥ 1).
    Deny {
        /// `Retry-After` value.
        retry_after_s: u64,
    },
}

impl Decision {
    fn deny_after(wait: Duration) -> Decision {
        Decision::Deny {
            retry_after_s: wait.as_secs_f64().ceil().max(1.0) as u64,
        }
    }
}

/// Who a request counts against: the socket's peer, or — when that peer is
/// a trusted proxy — the rightmost `X-Forwarded-For` hop that is not a
/// trusted proxy (the address the proxies saw, never one the client wrote
/// at the left of the header); IPv6 clients by their `/ipv6_prefix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientKey {
    trusted: Vec<ipnet::IpNet>,
    ipv6_prefix: u8,
}

impl ClientKey {
    /// The rule `[limits]` sets (`trust_forwarded`, `trusted_proxies`,
    /// `ipv6_prefix`).
    pub(crate) fn new(config: &LimitsConfig) -> Self {
        ClientKey {
            trusted: config.trusted_nets(),
            ipv6_prefix: config.ipv6_prefix.clamp(1, 128),
        }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|n| n.contains(&ip))
    }

    /// The key of a request from `peer` with these `X-Forwarded-For`
    /// values (every header, in order).
    pub(crate) fn of(&self, peer: SocketAddr, forwarded_for: &[&str]) -> IpAddr {
        let client = self.address(peer, forwarded_for);
        match client {
            IpAddr::V6(v6) => ipnet::Ipv6Net::new(v6, self.ipv6_prefix)
                .map_or(client, |n| IpAddr::V6(n.network())),
            v4 => v4,
        }
    }

    /// The client's own address (the key before IPv6 clients are grouped
    /// by prefix): what "is it loopback?" is asked of.
    pub(crate) fn address(&self, peer: SocketAddr, forwarded_for: &[&str]) -> IpAddr {
        let mut client = peer.ip().to_canonical();
        if self.trusts(client) {
            let hops = forwarded_for.iter().flat_map(|h| h.split(',')).rev();
            for hop in hops {
                // A hop that is not an address ends the walk: the proxy
                // that appended it is the best we know.
                let Ok(ip) = hop.trim().parse::<IpAddr>() else {
                    break;
                };
                client = ip.to_canonical();
                if !self.trusts(client) {
                    break;
                }
            }
        }
        client
    }
}

/// [`ClientKey::of`] under the rule of `config` (one header value).
#[cfg(test)]
pub(crate) fn client_ip(
    peer: SocketAddr,
    forwarded_for: Option<&str>,
    config: &LimitsConfig,
) -> IpAddr {
    ClientKey::new(config).of(peer, forwarded_for.as_slice())
}

/// Pure GCRA step: the new TAT if allowed, or how long to wait.
pub(super) fn gcra(
    tat: Option<Instant>,
    now: Instant,
    t: Duration,
    burst: u32,
) -> Result<Instant, Duration> {
    let start = tat.map_or(now, |tat| tat.max(now));
    let new_tat = start + t;
    let allowance = t * burst.max(1);
    let ahead = new_tat - now;
    if ahead <= allowance {
        Ok(new_tat)
    } else {
        Err(ahead - allowance)
    }
}

/// Client tables larger than this are swept of clients that are back to a
/// clean slate, so a spray of addresses cannot grow memory without bound.
const SWEEP_AT: usize = 10_000;

/// The in-memory limiter of one process.
#[derive(Debug)]
pub(crate) struct LocalLimiter {
    interval: Option<Duration>,
    burst: u32,
    clients: Mutex<HashMap<IpAddr, Instant>>,
}

impl LocalLimiter {
    /// A limiter for these limits.
    pub(crate) fn new(config: &LimitsConfig) -> Self {
        LocalLimiter {
            interval: config.emission_interval(),
            burst: config.burst,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Decides for `client` at `now` (and counts the search when allowed).
    pub(crate) fn check_at(&self, client: IpAddr, now: Instant) -> Decision {
        let Some(t) = self.interval else {
            return Decision::Allow;
        };
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if clients.len() >= SWEEP_AT {
            clients.retain(|_, tat| *tat > now);
        }
        match gcra(clients.get(&client).copied(), now, t, self.burst) {
            Ok(tat) => {
                clients.insert(client, tat);
                Decision::Allow
            }
            Err(wait) => Decision::deny_after(wait),
        }
    }

    /// Gives `client` back the search last counted (a cached answer cost
    /// the engines nothing): its TAT moves back by one interval, never
    /// before `now`.
    pub(crate) fn refund_at(&self, client: IpAddr, now: Instant) {
        let Some(t) = self.interval else { return };
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tat) = clients.get_mut(&client) {
            *tat = tat.checked_sub(t).unwrap_or(now).max(now);
        }
    }

    /// Clients currently tracked.
    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.clients.lock().map_or(0, |c| c.len())
    }
}

/// GCRA over Redis: `KEYS[1]` client key, `ARGV[1]` T in µs, `ARGV[2]`
/// burst. Returns `{1, 0}` when allowed, `{0, wait_µs}` when not. Uses the
/// server's clock so processes with skewed clocks still agree.
pub(super) const GCRA_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local ahead = new_tat - now
local allowance = interval * burst
if ahead > allowance then
  return {0, ahead - allowance}
end
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil(ahead / 1000) + 1000)
return {1, 0}
";

/// A refund over Redis: `KEYS[1]` client key, `ARGV[1]` T in µs. Moves the
/// TAT back by T, never before now (then the key goes).
const REFUND_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then return 0 end
local new_tat = tat - tonumber(ARGV[1])
if new_tat <= now then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1000)
end
return 1
";

/// How long one Redis call may take before the local limiter decides.
const REDIS_TIMEOUT: Duration = Duration::from_millis(250);

/// The rate limiter a server uses: Redis-shared when configured, local
/// otherwise and whenever Redis fails. Cheap to clone.
#[derive(Clone)]
pub struct RateLimiter {
    inner: Arc<LimiterInner>,
}

struct LimiterInner {
    config: LimitsConfig,
    /// Redis keys are `metasift:rl:{scope}{client}`.
    scope: &'static str,
    local: LocalLimiter,
    key: ClientKey,
    redis: Option<(crate::ops::redis::Conn, redis::Script)>,
    /// Skips a Redis that just failed, so a dead one costs no timeout per
    /// request.
    breaker: super::redis::Breaker,
    warn: super::redis::WarnGate,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("config", &self.inner.config)
            .field("redis", &self.inner.redis.is_some())
            .finish()
    }
}

impl RateLimiter {
    /// An in-memory limiter.
    pub(crate) fn local(config: &LimitsConfig) -> Self {
        RateLimiter::build(config, None, "")
    }

    /// A limiter shared through the Redis at `url` (connected lazily; an
    /// unreachable Redis falls back to the local limiter). Fails only on a
    /// malformed URL.
    pub fn redis(config: &LimitsConfig, url: &str) -> Result<Self, redis::RedisError> {
        Ok(RateLimiter::build(
            config,
            Some(super::redis::redis_manager(url)?),
            "",
        ))
    }

    /// The `/autocomplete` limiter: `config.autocomplete()`'s budget, in
    /// Redis (under keys of its own) when `redis_url` is given.
    pub(crate) fn autocomplete(
        config: &LimitsConfig,
        redis_url: Option<&str>,
    ) -> Result<Self, redis::RedisError> {
        let manager = redis_url.map(super::redis::redis_manager).transpose()?;
        Ok(RateLimiter::build(&config.autocomplete(), manager, "ac:"))
    }

    fn build(
        config: &LimitsConfig,
        manager: Option<crate::ops::redis::Conn>,
        scope: &'static str,
    ) -> Self {
        RateLimiter {
            inner: Arc::new(LimiterInner {
                config: config.clone(),
                scope,
                local: LocalLimiter::new(config),
                key: ClientKey::new(config),
                redis: manager.map(|m| (m, redis::Script::new(GCRA_LUA))),
                breaker: super::redis::Breaker::default(),
                warn: super::redis::WarnGate::default(),
            }),
        }
    }

    /// The limits in force.
    pub(crate) fn config(&self) -> &LimitsConfig {
        &self.inner.config
    }

    /// The client a request from `peer` with these `X-Forwarded-For`
    /// values counts as (see [`ClientKey`]).
    pub fn client(&self, peer: SocketAddr, forwarded_for: &[&str]) -> IpAddr {
        self.inner.key.of(peer, forwarded_for)
    }

    /// The `/lab` limiter: `config.lab()`'s budget, in Redis (under keys of
    /// its own) when `redis_url` is given.
    pub(crate) fn lab(
        config: &LimitsConfig,
        redis_url: Option<&str>,
    ) -> Result<Self, redis::RedisError> {
        let manager = redis_url.map(super::redis::redis_manager).transpose()?;
        Ok(RateLimiter::build(&config.lab(), manager, "lab:"))
    }

    /// Takes back the search [`RateLimiter::check`] last counted for
    /// `client`: it was answered from the cache and asked no engine, so it
    /// does not spend the client's budget. Where the check was counted
    /// (Redis, or the local limiter when Redis failed) is not known here:
    /// both are refunded, a no-op where nothing was counted.
    pub async fn refund(&self, client: IpAddr) {
        let Some(t) = self.inner.config.emission_interval() else {
            return;
        };
        self.inner.local.refund_at(client, Instant::now());
        if let Some((manager, _)) = &self.inner.redis
            && self.inner.breaker.allow()
        {
            let mut conn = manager.clone();
            let key = format!("metasift:rl:{}{client}", self.inner.scope);
            let script = redis::Script::new(REFUND_LUA);
            let mut invocation = script.key(&key);
            invocation.arg(u64::try_from(t.as_micros()).unwrap_or(u64::MAX));
            let call = invocation.invoke_async::<i64>(&mut conn);
            match tokio::time::timeout(REDIS_TIMEOUT, call).await {
                Ok(Ok(_)) => self.inner.breaker.succeeded(),
                Ok(Err(e)) => {
                    self.inner.breaker.failed();
                    self.inner.warn.warn("rate limit refund", &e.to_string());
                }
                Err(_) => {
                    self.inner.breaker.failed();
                    self.inner
                        .warn
                        .warn("rate limit refund", "Redis did not answer in time");
                }
            }
        }
    }

    /// Decides for `client` now (and counts the search when allowed).
    pub async fn check(&self, client: IpAddr) -> Decision {
        let Some(t) = self.inner.config.emission_interval() else {
            return Decision::Allow;
        };
        if let Some((manager, script)) = &self.inner.redis
            && self.inner.breaker.allow()
        {
            let mut conn = manager.clone();
            let key = format!("metasift:rl:{}{client}", self.inner.scope);
            let mut invocation = script.key(&key);
            invocation
                .arg(u64::try_from(t.as_micros()).unwrap_or(u64::MAX))
                .arg(self.inner.config.burst.max(1));
            let call = invocation.invoke_async::<(i64, i64)>(&mut conn);
            let outcome = tokio::time::timeout(REDIS_TIMEOUT, call).await;
            if matches!(outcome, Ok(Ok(_))) {
                self.inner.breaker.succeeded();
            } else {
                self.inner.breaker.failed();
            }
            match outcome {
                Ok(Ok((1, _))) => return Decision::Allow,
                Ok(Ok((_, wait_us))) => {
                    return Decision::deny_after(Duration::from_micros(wait_us.max(0) as u64));
                }
                Ok(Err(e)) => self.inner.warn.warn("rate limit", &e.to_string()),
                Err(_) => self
                    .inner
                    .warn
                    .warn("rate limit", "Redis did not answer in time"),
            }
        }
        self.inner.local.check_at(client, Instant::now())
    }
}

/// The global cap on searches in flight. Cheap to clone.
#[derive(Debug, Clone)]
pub struct InFlight {
    permits: Option<Arc<Semaphore>>,
}

impl InFlight {
    /// A cap of `max` (0 = none).
    pub fn new(max: usize) -> Self {
        InFlight {
            permits: (max > 0).then(|| Arc::new(Semaphore::new(max))),
        }
    }

    /// A permit to search, held until dropped; `None` when the cap is
    /// reached (answer 503 at once). `Some(None)` means "no cap".
    pub fn try_enter(&self) -> Option<Option<OwnedSemaphorePermit>> {
        match &self.permits {
            None => Some(None),
            Some(s) => s.clone().try_acquire_owned().ok().map(Some),
        }
    }

    /// Searches that may still start.
    pub fn available(&self) -> Option<usize> {
        self.permits.as_ref().map(|s| s.available_permits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn burst_then_rate_then_recovers() {
        let config = LimitsConfig {
            per_minute: 60,
            burst: 5,
            ..LimitsConfig::default()
        };
        let l = LocalLimiter::new(&config);
        let t0 = Instant::now();
        let a = ip("192.0.2.1");
        for i in 0..5 {
            assert_eq!(l.check_at(a, t0), Decision::Allow, "burst request {i}");
        }
        assert_eq!(l.check_at(a, t0), Decision::Deny { retry_after_s: 1 });
        // Another client is not affected.
        assert_eq!(l.check_at(ip("192.0.2.2"), t0), Decision::Allow);
        // One second later exactly one more fits.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(l.check_at(a, t1), Decision::Allow);
        assert!(matches!(l.check_at(a, t1), Decision::Deny { .. }));
        // After a quiet while the whole burst is back.
        let t2 = t1 + Duration::from_secs(10);
        for _ in 0..5 {
            assert_eq!(l.check_at(a, t2), Decision::Allow);
        }
        assert!(matches!(l.check_at(a, t2), Decision::Deny { .. }));
    }

    #[test]
    fn retry_after_grows_with_debt_not_with_refusals() {
        let config = LimitsConfig {
            per_minute: 6,
            burst: 1,
            ..LimitsConfig::default()
        };
        let l = LocalLimiter::new(&config);
        let t0 = Instant::now();
        let a = ip("2001:db8::1");
        assert_eq!(l.check_at(a, t0), Decision::Allow);
        // Refusals are not counted, so hammering does not extend the wait.
        for _ in 0..100 {
            assert_eq!(l.check_at(a, t0), Decision::Deny { retry_after_s: 10 });
        }
        assert_eq!(
            l.check_at(a, t0 + Duration::from_secs(4)),
            Decision::Deny { retry_after_s: 6 }
        );
        assert_eq!(l.check_at(a, t0 + Duration::from_secs(10)), Decision::Allow);
    }

    #[test]
    fn off_when_per_minute_is_zero() {
        let l = LocalLimiter::new(&LimitsConfig {
            per_minute: 0,
            ..LimitsConfig::default()
        });
        let now = Instant::now();
        for _ in 0..1000 {
            assert_eq!(l.check_at(ip("192.0.2.9"), now), Decision::Allow);
        }
        assert_eq!(l.tracked(), 0);
    }

    #[test]
    fn client_from_forwarded_only_when_trusted() {
        let off = LimitsConfig::default();
        let on = LimitsConfig {
            trust_forwarded: true,
            ..LimitsConfig::default()
        };
        let peer: SocketAddr = "10.0.0.1:5555".parse().unwrap();
        let xff = Some(" 203.0.113.7 , 10.0.0.1");
        assert_eq!(client_ip(peer, xff, &off), ip("10.0.0.1"));
        assert_eq!(client_ip(peer, xff, &on), ip("203.0.113.7"));
        assert_eq!(client_ip(peer, Some("garbage"), &on), ip("10.0.0.1"));
        assert_eq!(client_ip(peer, None, &on), ip("10.0.0.1"));
    }

    #[test]
    fn the_client_cannot_choose_its_own_address() {
        let on = LimitsConfig {
            trust_forwarded: true,
            ..LimitsConfig::default()
        };
        // Behind nginx's `proxy_add_x_forwarded_for`, a client that sends
        // its own header gets the proxy's hop appended after it: the
        // rightmost untrusted hop is the real one.
        let proxy: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let forged = Some("1.2.3.4, 198.51.100.9");
        assert_eq!(client_ip(proxy, forged, &on), ip("198.51.100.9"));
        // Two proxies: both skipped.
        let chain = Some("6.6.6.6, 198.51.100.9, 10.2.3.4");
        assert_eq!(client_ip(proxy, chain, &on), ip("198.51.100.9"));
        // A public peer is no proxy of ours: its header is ignored.
        let direct: SocketAddr = "203.0.113.50:1234".parse().unwrap();
        assert_eq!(client_ip(direct, forged, &on), ip("203.0.113.50"));
        // A listed proxy on a public address.
        let listed = LimitsConfig {
            trusted_proxies: vec!["203.0.113.0/24".into()],
            ..LimitsConfig::default()
        };
        assert_eq!(client_ip(direct, forged, &listed), ip("198.51.100.9"));
        assert_eq!(
            client_ip(proxy, forged, &listed),
            ip("127.0.0.1"),
            "loopback is trusted only with trust_forwarded"
        );
        // Several headers read as one list, in order.
        let key = ClientKey::new(&on);
        assert_eq!(
            key.of(proxy, &["1.2.3.4", "198.51.100.9, 10.0.0.7"]),
            ip("198.51.100.9")
        );
    }

    #[test]
    fn ipv6_clients_count_by_prefix() {
        let peer = |s: &str| SocketAddr::new(ip(s), 443);
        let d = LimitsConfig::default();
        assert_eq!(
            client_ip(peer("2001:db8:aaaa:1::1"), None, &d),
            ip("2001:db8:aaaa::")
        );
        assert_eq!(
            client_ip(peer("2001:db8:aaaa:ffff:1:2:3:4"), None, &d),
            ip("2001:db8:aaaa::")
        );
        assert_ne!(
            client_ip(peer("2001:db8:aaab::1"), None, &d),
            ip("2001:db8:aaaa::")
        );
        let each = LimitsConfig {
            ipv6_prefix: 128,
            ..LimitsConfig::default()
        };
        assert_eq!(
            client_ip(peer("2001:db8::5"), None, &each),
            ip("2001:db8::5")
        );
        // An IPv4 client on a dual-stack socket is an IPv4 client.
        assert_eq!(
            client_ip(peer("::ffff:192.0.2.8"), None, &d),
            ip("192.0.2.8")
        );
    }

    #[test]
    fn in_flight_cap() {
        let f = InFlight::new(2);
        let a = f.try_enter().unwrap();
        let _b = f.try_enter().unwrap();
        assert!(f.try_enter().is_none());
        drop(a);
        assert!(f.try_enter().is_some());
        assert!(InFlight::new(0).try_enter().is_some());
    }
}
