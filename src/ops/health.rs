//! Engine health: what each member engine did lately, and whether to ask it.
//!
//! Every engine outcome of every search is recorded here: requests, results,
//! errors by [`FailureKind`], latency and a *reliability* (the share of
//! successes among the last [`HealthPolicy::window`] outcomes).
//!
//! **Suspension.** An engine that keeps failing is not asked for a while, so
//! a dead or blocking site does not cost every search its timeout and we do
//! not hammer a site that told us to stop. After
//! [`HealthPolicy::failures_before_suspend`] consecutive failures the engine
//! is suspended for [`HealthPolicy::base_backoff`] (30 s), doubling with every
//! further consecutive failure up to [`HealthPolicy::max_backoff`] (10 min).
//! A block (CAPTCHA, bot check) or an HTTP 429 suspends at once, starting at
//! [`HealthPolicy::blocked_backoff`] (5 min): asking again sooner only
//! prolongs a block — unless a 429 says how long to wait (`Retry-After`),
//! which is then the suspension, kept between [`MIN_RETRY_AFTER`] and
//! [`HealthPolicy::max_backoff`]. When the time is up the engine is asked again; one
//! success clears the failure count and the suspension.
//!
//! **Latency.** Two views of the same samples: a ring of the last
//! [`LATENCY_RING`] samples gives exact recent p50/p95/p99 for `/stats`, and
//! cumulative fixed buckets ([`LATENCY_BUCKETS_MS`]) feed the Prometheus
//! histogram, which must never forget.
//!
//! The numbers are the admin's: `[health]` in `engines.toml`
//! ([`HealthConfig`]; a reload applies new values to the running book, and
//! the counts carry over).
//!
//! All logic takes the time as an argument (`SystemTime`, which is also what
//! `/stats` shows), so it is tested without sleeping. [`Health`] is a cheap,
//! thread-safe handle; its lock is never held across an `.await`.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::config::HealthConfig;
use crate::model::FailureKind;

/// Upper bounds (ms) of the latency histogram buckets; `+Inf` is implied.
pub(crate) const LATENCY_BUCKETS_MS: [u64; 11] =
    [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

/// How many recent latency samples the percentiles are computed over.
pub(crate) const LATENCY_RING: usize = 256;

/// Every failure kind, in a fixed order (for arrays and stable output).
pub(crate) const FAILURE_KINDS: [FailureKind; 13] = [
    FailureKind::Timeout,
    FailureKind::Network,
    FailureKind::TooManyRequests,
    FailureKind::Http4xx,
    FailureKind::Http5xx,
    FailureKind::Blocked,
    FailureKind::Parse,
    FailureKind::TooLarge,
    FailureKind::NotRecorded,
    FailureKind::NoSafeSearch,
    FailureKind::NoTimeRange,
    FailureKind::Suspended,
    FailureKind::Budget,
];

fn kind_index(kind: FailureKind) -> usize {
    FAILURE_KINDS
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(FAILURE_KINDS.len() - 1)
}

/// The shortest suspension a 429's `Retry-After` sets (`0` would mean
/// asking again at once, and being told the same).
pub const MIN_RETRY_AFTER: Duration = Duration::from_secs(5);

/// When to suspend an engine and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthPolicy {
    /// Consecutive ordinary failures before the first suspension.
    pub failures_before_suspend: u32,
    /// The first suspension after ordinary failures.
    pub base_backoff: Duration,
    /// The longest suspension.
    pub max_backoff: Duration,
    /// The first suspension after a block or an HTTP 429.
    pub blocked_backoff: Duration,
    /// How many recent outcomes the reliability is computed over.
    pub window: usize,
}

impl Default for HealthPolicy {
    fn default() -> Self {
        HealthPolicy {
            failures_before_suspend: 3,
            base_backoff: Duration::from_secs(30),
            max_backoff: Duration::from_secs(600),
            blocked_backoff: Duration::from_secs(300),
            window: 100,
        }
    }
}

/// The policy the `[health]` table describes.
impl From<&HealthConfig> for HealthPolicy {
    fn from(c: &HealthConfig) -> Self {
        HealthPolicy {
            failures_before_suspend: c.failures_before_suspend,
            base_backoff: Duration::from_secs(c.backoff_s),
            max_backoff: Duration::from_secs(c.max_backoff_s),
            blocked_backoff: Duration::from_secs(c.blocked_backoff_s),
            window: c.reliability_window,
        }
    }
}

impl HealthPolicy {
    /// The suspension after `consecutive` failures, the last one of `kind`;
    /// `None` when the engine is still asked.
    pub fn backoff(&self, consecutive: u32, kind: FailureKind) -> Option<Duration> {
        let (base, excess) = if matches!(kind, FailureKind::Blocked | FailureKind::TooManyRequests)
        {
            // A block counts from its first occurrence.
            (self.blocked_backoff, consecutive.saturating_sub(1))
        } else if consecutive >= self.failures_before_suspend.max(1) {
            (
                self.base_backoff,
                consecutive - self.failures_before_suspend.max(1),
            )
        } else {
            return None;
        };
        // 2^excess, saturating long before it could overflow.
        let factor = 1u32.checked_shl(excess.min(20)).unwrap_or(u32::MAX);
        Some(
            base.checked_mul(factor)
                .unwrap_or(self.max_backoff)
                .min(self.max_backoff.max(base)),
        )
    }

    /// The suspension after a failure of `kind` whose answer asked to be
    /// left alone for `retry_after` (an HTTP 429's `Retry-After`): that
    /// wait, kept between [`MIN_RETRY_AFTER`] and the longest suspension,
    /// else [`HealthPolicy::backoff`].
    pub fn backoff_after(
        &self,
        consecutive: u32,
        kind: FailureKind,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        match retry_after {
            Some(wait) if kind == FailureKind::TooManyRequests => {
                let longest = self
                    .max_backoff
                    .max(self.blocked_backoff)
                    .max(MIN_RETRY_AFTER);
                Some(wait.clamp(MIN_RETRY_AFTER, longest))
            }
            _ => self.backoff(consecutive, kind),
        }
    }
}

/// One engine's answer to one search, as health sees it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Outcome {
    /// Time from request to parsed answer or failure.
    pub elapsed: Duration,
    /// Results parsed (0 on failure).
    pub results: usize,
    /// `None` when it answered.
    pub failure: Option<FailureKind>,
    /// How long the engine asked to be left alone (a 429's `Retry-After`).
    pub retry_after: Option<Duration>,
}

/// Whether to ask an engine now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Ask it.
    Allowed,
    /// Do not ask it before `until`.
    Suspended {
        /// When it is asked again.
        until: SystemTime,
    },
}

/// One engine's line in the book (read by [`super::metrics`] too).
#[derive(Debug, Clone)]
pub(super) struct EngineState {
    pub(super) requests: u64,
    pub(super) results: u64,
    successes: u64,
    pub(super) skipped: u64,
    pub(super) errors: [u64; FAILURE_KINDS.len()],
    pub(super) buckets: [u64; LATENCY_BUCKETS_MS.len()],
    pub(super) latency_sum_ms: u64,
    pub(super) latency_count: u64,
    ring: VecDeque<u32>,
    recent: VecDeque<bool>,
    consecutive_failures: u32,
    last_failure: Option<FailureKind>,
    /// What the last failure said and when (kept after a recovery).
    last_message: Option<(SystemTime, String)>,
    suspended_until: Option<SystemTime>,
    /// The instance that met the failure behind the suspension (with
    /// shared health; `None` on a lone instance).
    suspended_by: Option<String>,
    suspensions: u64,
}

impl EngineState {
    fn new() -> Self {
        EngineState {
            requests: 0,
            results: 0,
            successes: 0,
            skipped: 0,
            errors: [0; FAILURE_KINDS.len()],
            buckets: [0; LATENCY_BUCKETS_MS.len()],
            latency_sum_ms: 0,
            latency_count: 0,
            ring: VecDeque::with_capacity(LATENCY_RING),
            recent: VecDeque::new(),
            consecutive_failures: 0,
            last_failure: None,
            last_message: None,
            suspended_until: None,
            suspended_by: None,
            suspensions: 0,
        }
    }

    /// Counts `outcome`; a suspension it starts is returned (its end).
    fn record(
        &mut self,
        policy: &HealthPolicy,
        outcome: Outcome,
        now: SystemTime,
    ) -> Option<SystemTime> {
        if outcome.failure == Some(FailureKind::Suspended) {
            // Not asked: not a request, and not a fresh failure either.
            self.skipped += 1;
            return None;
        }
        self.requests += 1;
        let ms = u64::try_from(outcome.elapsed.as_millis()).unwrap_or(u64::MAX);
        self.latency_sum_ms = self.latency_sum_ms.saturating_add(ms);
        self.latency_count += 1;
        if let Some(i) = LATENCY_BUCKETS_MS.iter().position(|b| ms <= *b) {
            self.buckets[i] += 1;
        }
        if self.ring.len() == LATENCY_RING {
            self.ring.pop_front();
        }
        self.ring.push_back(u32::try_from(ms).unwrap_or(u32::MAX));
        if self.recent.len() >= policy.window.max(1) {
            self.recent.pop_front();
        }
        self.recent.push_back(outcome.failure.is_none());
        match outcome.failure {
            None => {
                self.successes += 1;
                self.results += outcome.results as u64;
                self.consecutive_failures = 0;
                self.last_failure = None;
                self.suspended_until = None;
                self.suspended_by = None;
                None
            }
            Some(kind) => {
                self.errors[kind_index(kind)] += 1;
                self.consecutive_failures = self.consecutive_failures.saturating_add(1);
                self.last_failure = Some(kind);
                let backoff =
                    policy.backoff_after(self.consecutive_failures, kind, outcome.retry_after)?;
                self.suspended_until = Some(now + backoff);
                self.suspensions += 1;
                self.suspended_until
            }
        }
    }

    pub(super) fn suspended_at(&self, now: SystemTime) -> Option<SystemTime> {
        self.suspended_until.filter(|until| *until > now)
    }

    fn percentile(&self, p: f64) -> Option<u64> {
        if self.ring.is_empty() {
            return None;
        }
        let mut sorted: Vec<u32> = self.ring.iter().copied().collect();
        sorted.sort_unstable();
        // Nearest rank: the smallest sample with at least p of them at or below.
        let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        Some(u64::from(sorted[rank - 1]))
    }

    pub(super) fn reliability(&self) -> Option<f64> {
        if self.recent.is_empty() {
            return None;
        }
        let ok = self.recent.iter().filter(|ok| **ok).count();
        Some(ok as f64 / self.recent.len() as f64)
    }
}

/// Process-wide counters (searches, cache, limits), lock-free.
#[derive(Debug, Default)]
pub struct Counters {
    /// Searches asked for (cached or not).
    pub searches: AtomicU64,
    /// Searches answered from the cache.
    pub cache_hits: AtomicU64,
    /// Searches that missed the cache.
    pub cache_misses: AtomicU64,
    /// Searches that waited on an identical search in flight instead of
    /// asking the engines again.
    pub coalesced: AtomicU64,
    /// Cache operations that failed (Redis away) and were skipped.
    pub cache_errors: AtomicU64,
    /// Requests refused with 429 by the per-client rate limit.
    pub rate_limited: AtomicU64,
    /// Requests refused with 503 because too many searches were in flight.
    pub overloaded: AtomicU64,
    /// Engine answers served stale (`[cache] stale_s`) while refreshed.
    pub stale_served: AtomicU64,
    /// Background refreshes of stale answers this process ran.
    pub refreshes: AtomicU64,
    /// Fan-outs left to another instance on the same Redis (its lock).
    pub fleet_coalesced: AtomicU64,
}

impl Counters {
    /// Adds one to a counter.
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Debug)]
struct Inner {
    /// Replaced by a reload; read once per recorded outcome.
    policy: std::sync::RwLock<HealthPolicy>,
    engines: Mutex<BTreeMap<String, EngineState>>,
    counters: Counters,
    started: SystemTime,
    /// Suspensions shared with the other instances on one Redis.
    shared: std::sync::RwLock<Option<Arc<super::shared_health::SharedHealth>>>,
}

/// The shared health book of every engine. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Health {
    inner: Arc<Inner>,
}

impl Default for Health {
    fn default() -> Self {
        Health::new(HealthPolicy::default())
    }
}

impl Health {
    /// An empty book with this policy.
    pub fn new(policy: HealthPolicy) -> Self {
        Health {
            inner: Arc::new(Inner {
                policy: std::sync::RwLock::new(policy),
                engines: Mutex::new(BTreeMap::new()),
                counters: Counters::default(),
                started: SystemTime::now(),
                shared: std::sync::RwLock::new(None),
            }),
        }
    }

    /// The policy in force.
    pub fn policy(&self) -> HealthPolicy {
        self.inner
            .policy
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Applies a new policy (a reload): counts, failure streaks and running
    /// suspensions stay; the next failures are judged by the new numbers.
    pub(crate) fn set_policy(&self, policy: HealthPolicy) {
        *self.inner.policy.write().unwrap_or_else(|p| p.into_inner()) = policy;
    }

    /// Shares block and 429 suspensions through Redis (`None`: this
    /// instance alone). Kept by a reload unless the Redis changes.
    pub fn set_shared(&self, shared: Option<super::shared_health::SharedHealth>) {
        *self.inner.shared.write().unwrap_or_else(|p| p.into_inner()) = shared.map(Arc::new);
    }

    /// The shared suspensions, when configured.
    pub fn shared(&self) -> Option<Arc<super::shared_health::SharedHealth>> {
        self.inner
            .shared
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Takes on a suspension another instance published, unless this book
    /// already rests the engine as long. Returns whether it was new here.
    pub fn adopt(
        &self,
        engine: &str,
        s: &super::shared_health::SharedSuspension,
        now: SystemTime,
    ) -> bool {
        let mut engines = self.lock();
        let e = engines
            .entry(engine.to_string())
            .or_insert_with(EngineState::new);
        if e.suspended_at(now).is_some_and(|until| until >= s.until) {
            return false;
        }
        e.suspended_until = Some(s.until);
        e.suspended_by = Some(s.instance.clone());
        e.suspensions += 1;
        true
    }

    /// Process-wide counters.
    pub fn counters(&self) -> &Counters {
        &self.inner.counters
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, BTreeMap<String, EngineState>> {
        // A panic elsewhere while holding the lock leaves counters that are
        // still meaningful; keep serving them.
        self.inner
            .engines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Makes engines known, so `/stats` lists them before their first request.
    pub fn register<I, S>(&self, names: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut engines = self.lock();
        for name in names {
            engines.entry(name.into()).or_insert_with(EngineState::new);
        }
    }

    /// Whether to ask `engine` at `now`.
    pub fn admission(&self, engine: &str, now: SystemTime) -> Admission {
        match self.lock().get(engine).and_then(|e| e.suspended_at(now)) {
            Some(until) => Admission::Suspended { until },
            None => Admission::Allowed,
        }
    }

    /// Keeps `message` as what `engine`'s last failure said (at most 200
    /// characters), for `/stats`.
    pub fn note_failure(&self, engine: &str, message: &str, now: SystemTime) {
        let mut m: String = message.chars().take(200).collect();
        if m.len() < message.len() {
            m.push('…');
        }
        self.lock()
            .entry(engine.to_string())
            .or_insert_with(EngineState::new)
            .last_message = Some((now, m));
    }

    /// Counts a search that left `engine` out because its outbound budget
    /// was spent: shown under `budget` on `/stats` and `/metrics`, never a
    /// request or a failure (the engine did nothing wrong).
    pub fn refused_for_budget(&self, engine: &str) {
        let mut engines = self.lock();
        let e = engines
            .entry(engine.to_string())
            .or_insert_with(EngineState::new);
        e.errors[kind_index(FailureKind::Budget)] += 1;
    }

    /// Records one outcome of `engine` at `now`. A `Suspended` outcome counts
    /// as skipped, not as a request or a failure. Returns the end of the
    /// suspension this outcome starts, if it starts one.
    pub fn record(&self, engine: &str, outcome: Outcome, now: SystemTime) -> Option<SystemTime> {
        let policy = self.policy();
        let by = self.shared().map(|s| s.instance().to_string());
        let mut engines = self.lock();
        let e = engines
            .entry(engine.to_string())
            .or_insert_with(EngineState::new);
        let until = e.record(&policy, outcome, now);
        if until.is_some() {
            e.suspended_by = by;
        }
        until
    }

    /// A serializable picture of every engine and counter at `now`.
    pub fn snapshot(&self, now: SystemTime) -> HealthSnapshot {
        let engines = self
            .lock()
            .iter()
            .map(|(name, e)| {
                let until = e.suspended_at(now);
                EngineSnapshot {
                    name: name.clone(),
                    requests: e.requests,
                    successes: e.successes,
                    results: e.results,
                    skipped: e.skipped,
                    errors: FAILURE_KINDS
                        .iter()
                        .zip(e.errors)
                        .filter(|(_, n)| *n > 0)
                        .map(|(k, n)| (k.as_str().to_string(), n))
                        .collect(),
                    p50_ms: e.percentile(0.50),
                    p95_ms: e.percentile(0.95),
                    p99_ms: e.percentile(0.99),
                    reliability: e.reliability(),
                    consecutive_failures: e.consecutive_failures,
                    last_failure: e.last_failure.map(|k| k.as_str().to_string()),
                    last_failure_message: e.last_message.as_ref().map(|(_, m)| m.clone()),
                    last_failure_at: e
                        .last_message
                        .as_ref()
                        .map(|(t, _)| httpdate::fmt_http_date(*t)),
                    suspended: until.is_some(),
                    suspended_until: until.map(httpdate::fmt_http_date),
                    suspended_until_unix: until.map(unix_secs),
                    suspended_for_s: until.map(|t| {
                        t.duration_since(now)
                            .unwrap_or_default()
                            .as_secs_f64()
                            .ceil() as u64
                    }),
                    suspensions: e.suspensions,
                    suspended_by: until.and(e.suspended_by.clone()),
                }
            })
            .collect();
        let c = &self.inner.counters;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        HealthSnapshot {
            uptime_s: now
                .duration_since(self.inner.started)
                .unwrap_or_default()
                .as_secs(),
            searches: load(&c.searches),
            cache_hits: load(&c.cache_hits),
            cache_misses: load(&c.cache_misses),
            coalesced: load(&c.coalesced),
            cache_errors: load(&c.cache_errors),
            rate_limited: load(&c.rate_limited),
            overloaded: load(&c.overloaded),
            stale_served: load(&c.stale_served),
            refreshes: load(&c.refreshes),
            fleet_coalesced: load(&c.fleet_coalesced),
            policy: PolicySnapshot::from(&self.policy()),
            engines,
        }
    }
}

fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// Everything `/stats` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthSnapshot {
    /// Seconds since the process started.
    pub uptime_s: u64,
    /// Searches asked for.
    pub searches: u64,
    /// Served from the cache.
    pub cache_hits: u64,
    /// Missed the cache.
    pub cache_misses: u64,
    /// Served by an identical search in flight.
    pub coalesced: u64,
    /// Cache operations skipped on backend failure.
    pub cache_errors: u64,
    /// Refused with 429.
    pub rate_limited: u64,
    /// Refused with 503.
    pub overloaded: u64,
    /// Engine answers served stale while refreshed in the background.
    pub stale_served: u64,
    /// Background refreshes run.
    pub refreshes: u64,
    /// Fan-outs left to another instance on the same Redis.
    pub fleet_coalesced: u64,
    /// The suspension rules in force (`[health]`).
    pub policy: PolicySnapshot,
    /// One entry per engine, by name.
    pub engines: Vec<EngineSnapshot>,
}

/// The [`HealthPolicy`] in force, as `/stats` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicySnapshot {
    /// Failures in a row before the first suspension.
    pub failures_before_suspend: u32,
    /// The first suspension after them, in seconds.
    pub backoff_s: f64,
    /// The first suspension after a block or an HTTP 429, in seconds.
    pub blocked_backoff_s: f64,
    /// The longest suspension, in seconds.
    pub max_backoff_s: f64,
    /// Outcomes the reliability is computed over.
    pub reliability_window: usize,
}

impl From<&HealthPolicy> for PolicySnapshot {
    fn from(p: &HealthPolicy) -> Self {
        PolicySnapshot {
            failures_before_suspend: p.failures_before_suspend,
            backoff_s: p.base_backoff.as_secs_f64(),
            blocked_backoff_s: p.blocked_backoff.as_secs_f64(),
            max_backoff_s: p.max_backoff.as_secs_f64(),
            reliability_window: p.window,
        }
    }
}

/// One engine's line on `/stats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineSnapshot {
    /// Engine name.
    pub name: String,
    /// Requests sent.
    pub requests: u64,
    /// Requests answered.
    pub successes: u64,
    /// Results parsed.
    pub results: u64,
    /// Searches it was left out of while suspended.
    pub skipped: u64,
    /// Failures by kind (only kinds seen).
    pub errors: BTreeMap<String, u64>,
    /// Median latency over the recent samples.
    pub p50_ms: Option<u64>,
    /// 95th percentile latency.
    pub p95_ms: Option<u64>,
    /// 99th percentile latency.
    pub p99_ms: Option<u64>,
    /// Share of successes among recent requests.
    pub reliability: Option<f64>,
    /// Failures in a row.
    pub consecutive_failures: u32,
    /// Kind of the last failure, while failing.
    pub last_failure: Option<String>,
    /// What the last failure said ("HTTP 503", "no complete answer within
    /// 2500 ms", …), kept after the engine recovers.
    pub last_failure_message: Option<String>,
    /// When that was (HTTP date).
    pub last_failure_at: Option<String>,
    /// Suspended now.
    pub suspended: bool,
    /// When it is asked again (HTTP date).
    pub suspended_until: Option<String>,
    /// The same as Unix seconds.
    pub suspended_until_unix: Option<u64>,
    /// Seconds until it is asked again.
    pub suspended_for_s: Option<u64>,
    /// Times it was suspended.
    pub suspensions: u64,
    /// The instance that met the block behind the suspension in force,
    /// when health is shared through Redis.
    pub suspended_by: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(kind: FailureKind) -> Outcome {
        Outcome {
            elapsed: Duration::from_millis(100),
            results: 0,
            failure: Some(kind),
            retry_after: None,
        }
    }

    #[test]
    fn backoff_grows_and_caps() {
        let p = HealthPolicy::default();
        assert_eq!(p.backoff(2, FailureKind::Timeout), None);
        assert_eq!(
            p.backoff(3, FailureKind::Timeout),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            p.backoff(4, FailureKind::Http5xx),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            p.backoff(7, FailureKind::Network),
            Some(Duration::from_secs(480))
        );
        assert_eq!(
            p.backoff(8, FailureKind::Network),
            Some(Duration::from_secs(600))
        );
        assert_eq!(
            p.backoff(u32::MAX, FailureKind::Parse),
            Some(Duration::from_secs(600))
        );
        assert_eq!(
            p.backoff(1, FailureKind::Blocked),
            Some(Duration::from_secs(300))
        );
        assert_eq!(
            p.backoff(2, FailureKind::TooManyRequests),
            Some(Duration::from_secs(600))
        );
    }

    #[test]
    fn retry_after_sets_a_429s_suspension_within_bounds() {
        let p = HealthPolicy::default();
        let s = Duration::from_secs;
        let too_many = FailureKind::TooManyRequests;
        assert_eq!(p.backoff_after(1, too_many, Some(s(120))), Some(s(120)));
        assert_eq!(
            p.backoff_after(1, too_many, Some(s(0))),
            Some(MIN_RETRY_AFTER)
        );
        assert_eq!(p.backoff_after(1, too_many, Some(s(86_400))), Some(s(600)));
        assert_eq!(p.backoff_after(1, too_many, None), Some(s(300)));
        // Only a 429 says how long: other kinds keep their own backoff.
        assert_eq!(p.backoff_after(1, FailureKind::Http5xx, Some(s(120))), None);
        let h = Health::default();
        let t = UNIX_EPOCH + s(1_000_000);
        h.record(
            "e",
            Outcome {
                failure: Some(too_many),
                retry_after: Some(s(42)),
                ..Outcome::default()
            },
            t,
        );
        assert_eq!(
            h.admission("e", t),
            Admission::Suspended { until: t + s(42) }
        );
        assert_eq!(h.admission("e", t + s(42)), Admission::Allowed);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let h = Health::default();
        let t = UNIX_EPOCH + Duration::from_secs(1_000_000);
        for ms in 1..=100 {
            h.record(
                "e",
                Outcome {
                    elapsed: Duration::from_millis(ms),
                    results: 1,
                    failure: None,
                    retry_after: None,
                },
                t,
            );
        }
        let s = h.snapshot(t);
        let e = &s.engines[0];
        assert_eq!(
            (e.p50_ms, e.p95_ms, e.p99_ms),
            (Some(50), Some(95), Some(99))
        );
        assert_eq!(e.reliability, Some(1.0));
        h.record("e", fail(FailureKind::Timeout), t);
        let e = &h.snapshot(t).engines[0];
        assert!(
            (e.reliability.unwrap() - 99.0 / 100.0).abs() < 1e-9,
            "window of 100"
        );
    }
}
