//! The cache of fused results and of the engine answers they were fused
//! from, and coalescing of identical searches.
//!
//! Two kinds of entries, both living at most `[cache] ttl_s` seconds:
//! - **fused pages** ([`SearchResponse`]), under a key that covers everything
//!   that changes the page: the query text, page, engines, categories,
//!   language, time range, safe-search level, the dedup settings in force and
//!   whether duplicates are explained ([`cache_key`]);
//! - **engine answers** (what one fan-out gathered, before dedup), under a
//!   key without the dedup settings and `explain` ([`answers_key`]), so a
//!   page asked with another `method` / `os1` / `os2` is fused again from the
//!   same answers instead of asking the engines again. A page fused from
//!   cached answers is kept only as long as those answers have left
//!   ([`Cache::get_or_try_for`] takes that bound), so nothing an engine said
//!   — or failed to say — outlives the TTL of its fan-out.
//!
//! Backends:
//! - `memory`: a moka cache bounded by the approximate bytes of its entries
//!   (`[cache] memory_mb`), so ten thousand distinct queries cannot grow the
//!   process without bound.
//! - `redis`: values are JSON, written with `SET key value PX ms`, so
//!   several processes share one cache, behind a small in-process cache of
//!   the memory kind (`[cache] front_mb`, 16 by default) that is read first
//!   and written with Redis (a value read from Redis is kept there for what
//!   Redis has left of its TTL). Redis going away never fails a search and
//!   never turns caching off: the front still answers repeated searches, so
//!   an outage degrades to per-process caching, not to a fan-out per
//!   request. Every Redis call has a short timeout; a failure counts as a
//!   miss (or a skipped write), pauses Redis calls for a while
//!   ([`super::redis::Breaker`]: half a second, doubling to 5 s) so a dead
//!   Redis costs no connection attempt per request, and one warning is
//!   logged at most every [`super::redis::WARN_EVERY`]; the connection
//!   manager reconnects when Redis is back.
//!
//! **Coalescing.** Concurrent identical searches that miss share one
//! fan-out: the first one registers a shared future under the key and the
//! others await it instead of asking the engines again. This is what keeps a
//! burst of the same popular query from multiplying the load on member
//! engines (and their rate limits) by the number of users.
//!
//! **Across instances.** With Redis, the engine answers are also coalesced
//! across the processes sharing it ([`Cache::get_or_refresh`]): the first
//! process to miss takes a short lock in Redis (`SET {key}:lock NX PX`,
//! about the search deadline), the others poll for its answer instead of
//! asking the engines, and fan out themselves only when the lock goes
//! without an answer or outlives its time — a lost lock holder costs them at
//! most one deadline (see `fleet`).
//!
//! **Stale while revalidate.** Engine answers are kept `[cache] stale_s`
//! past their TTL: such a stale entry is served at once while one
//! background refresh per key (and, with Redis, per fleet) asks the
//! engines again. Fused pages are never served stale: one fused from stale
//! answers is not stored, so it is fused again until the refresh lands.
//!
//! Responses (and answer sets) in which no engine answered are returned but
//! not stored, so an outage is not remembered for a whole TTL.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};

use super::limit::Overloaded;
use super::redis::{Breaker, REDIS_TIMEOUT, WarnGate, redis_manager};
use crate::config::{CacheBackend, CacheConfig};
use crate::model::SearchResponse;

mod fleet;
mod keys;
mod store;

pub use keys::{SettingsJson, cache_key};
pub(crate) use keys::{answers_key, page_key};
pub use store::Renders;
pub(crate) use store::{Cacheable, json_weight};
use store::{Memory, memory_cache, memory_get, memory_put};

/// Errors met while setting up a cache.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The Redis URL is malformed.
    #[error("cache: bad Redis URL {url:?}: {source}")]
    RedisUrl {
        /// The URL as configured.
        url: String,
        /// What the client said.
        source: redis::RedisError,
    },
}

enum Backend {
    Memory(Memory),
    Redis {
        manager: crate::ops::redis::Conn,
        /// The in-process cache read before Redis and written with it.
        front: Option<Memory>,
        breaker: Breaker,
    },
    Off,
}

type SharedSearch<V> = Shared<BoxFuture<'static, Result<Arc<V>, Overloaded>>>;
/// The searches in flight by key; each value is the [`SharedSearch`] of
/// its key's value type.
type InFlightMap = Mutex<HashMap<String, Box<dyn Any + Send>>>;

struct Inner {
    backend: Backend,
    ttl: Duration,
    /// How long past `ttl` values that know their age are kept, stale.
    stale: Duration,
    in_flight: InFlightMap,
    /// Keys whose stale entry is being refreshed by this process.
    refreshing: Mutex<HashSet<String>>,
    warn: WarnGate,
    stats: CacheStats,
}

/// What the cache did, counted.
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Answers served from the backend.
    pub hits: AtomicU64,
    /// Lookups that found nothing (or failed).
    pub misses: AtomicU64,
    /// Searches that joined an identical search in flight.
    pub coalesced: AtomicU64,
    /// Producer runs (fan-outs actually made through the cache).
    pub produced: AtomicU64,
    /// Backend calls that failed or timed out.
    pub errors: AtomicU64,
    /// Stale entries served while a refresh was due.
    pub stale: AtomicU64,
    /// Background refreshes of stale entries run by this process.
    pub refreshes: AtomicU64,
    /// Misses answered by another instance's fan-out (the Redis lock).
    pub fleet_joined: AtomicU64,
}

/// How a response was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From the backend.
    Hit,
    /// This call ran the search.
    Produced,
    /// Joined an identical search in flight (in this process, or another
    /// instance's through Redis).
    Coalesced,
    /// A stale entry, served while a background refresh asks again.
    Stale,
}

/// The cache of fused pages and engine answers. Cheap to clone.
#[derive(Clone)]
pub struct Cache {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backend = match self.inner.backend {
            Backend::Memory(_) => "memory",
            Backend::Redis { .. } => "redis",
            Backend::Off => "off",
        };
        f.debug_struct("Cache")
            .field("backend", &backend)
            .field("ttl", &self.inner.ttl)
            .finish()
    }
}

impl Cache {
    fn with_backend(backend: Backend, ttl: Duration) -> Self {
        Cache {
            inner: Arc::new(Inner {
                backend,
                ttl,
                stale: Duration::ZERO,
                in_flight: Mutex::new(HashMap::new()),
                refreshing: Mutex::new(HashSet::new()),
                warn: WarnGate::default(),
                stats: CacheStats::default(),
            }),
        }
    }

    /// The cache `[cache]` describes. A Redis cache connects lazily, so an
    /// unreachable Redis is not an error here (searches go on uncached).
    /// `ttl_s = 0` turns storage off (coalescing still applies).
    pub(crate) fn from_config(config: &CacheConfig) -> Result<Self, CacheError> {
        let ttl = Duration::from_secs(config.ttl_s);
        if config.ttl_s == 0 {
            return Ok(Cache::off());
        }
        let cache = match config.backend {
            CacheBackend::Memory => {
                Cache::memory(ttl, config.memory_mb.saturating_mul(1024 * 1024))
            }
            CacheBackend::Redis => Cache::redis_with_front(
                &config.url,
                ttl,
                config.front_mb.saturating_mul(1024 * 1024),
            )?,
        };
        Ok(cache.with_stale(Duration::from_secs(config.stale_s)))
    }

    /// The same cache keeping values that know their age `stale` past the
    /// TTL, served stale and refreshed ([`Cache::get_or_refresh`]). Only on
    /// a cache not shared yet (as built); otherwise unchanged.
    pub fn with_stale(mut self, stale: Duration) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner)
            && !matches!(inner.backend, Backend::Off)
        {
            inner.stale = stale;
        }
        self
    }

    /// An in-process cache holding at most about `max_bytes` of responses.
    pub fn memory(ttl: Duration, max_bytes: u64) -> Self {
        Cache::with_backend(Backend::Memory(memory_cache(max_bytes)), ttl)
    }

    /// A cache in the Redis at `url`, shared by every process using it,
    /// behind the default in-process front (`[cache] front_mb`).
    pub fn redis(url: &str, ttl: Duration) -> Result<Self, CacheError> {
        let front = CacheConfig::default().front_mb * 1024 * 1024;
        Cache::redis_with_front(url, ttl, front)
    }

    /// A cache in the Redis at `url` behind an in-process cache of about
    /// `front_bytes` (0 = none, every lookup asks Redis).
    pub fn redis_with_front(
        url: &str,
        ttl: Duration,
        front_bytes: u64,
    ) -> Result<Self, CacheError> {
        let manager = redis_manager(url).map_err(|source| CacheError::RedisUrl {
            url: url.to_string(),
            source,
        })?;
        Ok(Cache::with_backend(
            Backend::Redis {
                manager,
                front: (front_bytes > 0).then(|| memory_cache(front_bytes)),
                breaker: Breaker::default(),
            },
            ttl,
        ))
    }

    /// No storage; identical concurrent searches are still coalesced.
    pub fn off() -> Self {
        Cache::with_backend(Backend::Off, Duration::ZERO)
    }

    /// How long entries live (zero when nothing is stored).
    pub(crate) fn ttl(&self) -> Duration {
        self.inner.ttl
    }

    /// Answers held in process (an estimate moka keeps); `None` for Redis
    /// (its size is Redis' to report) and for no cache.
    pub fn entries(&self) -> Option<u64> {
        match &self.inner.backend {
            Backend::Memory(cache) => Some(cache.entry_count()),
            Backend::Redis { .. } | Backend::Off => None,
        }
    }

    /// Counters of what the cache did.
    pub fn stats(&self) -> &CacheStats {
        &self.inner.stats
    }

    /// The answer under `key`: from the backend, from an identical search
    /// in flight, or by running `produce` (then stored when
    /// [`cacheable`]). A hit comes back with `cached = true`.
    pub async fn get_or_search<F, Fut>(
        &self,
        key: &str,
        produce: F,
    ) -> (Arc<SearchResponse>, Source)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = SearchResponse> + Send + 'static,
    {
        let mut produce = Some(produce);
        let (answer, source) = self
            .get_or_try_search(key, || {
                let search = produce.take().map(|p| p());
                async move {
                    match search {
                        Some(search) => Ok(search.await),
                        None => Err(Overloaded),
                    }
                }
            })
            .await;
        match (answer, produce.take()) {
            (Ok(r), _) => (r, source),
            // Joined an identical search that was refused for load: this
            // caller may not be refused, so it runs its own.
            (Err(Overloaded), Some(p)) => (Arc::new(p().await), Source::Produced),
            // Our own producer never refuses; kept total rather than panicking.
            (Err(Overloaded), None) => (Arc::new(SearchResponse::default()), source),
        }
    }

    /// Like [`Cache::get_or_search`], for a producer that may refuse
    /// ([`Overloaded`]): a refusal is shared with the searches that joined
    /// it and never stored.
    pub async fn get_or_try_search<F, Fut>(
        &self,
        key: &str,
        produce: F,
    ) -> (Result<Arc<SearchResponse>, Overloaded>, Source)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<SearchResponse, Overloaded>> + Send + 'static,
    {
        let found = self
            .get_or_try_for(key, move || {
                let search = produce();
                async move { search.await.map(|r| (r, Duration::MAX)) }
            })
            .await;
        (found.answer, found.source)
    }

    /// The value under `key`: from the backend, from an identical search in
    /// flight, or by running `produce`, which gives the value and the
    /// longest it may be kept (the TTL caps it too; [`Duration::MAX`] = the
    /// TTL). A refusal ([`Overloaded`]) is shared with the searches that
    /// joined it and never stored; so is a value not
    /// [`Cacheable::worth_storing`].
    pub(crate) async fn get_or_try_for<V, F, Fut>(&self, key: &str, produce: F) -> Found<V>
    where
        V: Cacheable,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(V, Duration), Overloaded>> + Send + 'static,
    {
        if let Some((hit, renders)) = self.inner.get::<V>(key).await
            && !self.inner.is_stale(&*hit)
        {
            return Found {
                answer: Ok(hit),
                source: Source::Hit,
                renders,
            };
        }
        self.join_or_produce(key, None, produce).await
    }

    /// Joins the search in flight under `key`, or runs `produce` in a task
    /// of its own (stored when worth it); with `fleet_lock`, the run first
    /// takes the fleet's lock of the key or waits for the instance that
    /// holds it (see `fleet`).
    async fn join_or_produce<V, F, Fut>(
        &self,
        key: &str,
        fleet_lock: Option<Duration>,
        produce: F,
    ) -> Found<V>
    where
        V: Cacheable,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(V, Duration), Overloaded>> + Send + 'static,
    {
        let (shared, source) = {
            let mut in_flight = self
                .inner
                .in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            match in_flight
                .get(key)
                .and_then(|s| s.downcast_ref::<SharedSearch<V>>())
            {
                Some(shared) => (shared.clone(), Source::Coalesced),
                None => {
                    let inner = self.inner.clone();
                    let owned_key = key.to_string();
                    let search = produce();
                    // A task of its own: the search runs to its end (and is
                    // stored, and leaves the map) even when every caller
                    // waiting on it went away — otherwise it would sit paused
                    // in the map, holding its in-flight permit, forever.
                    let task = tokio::spawn(async move {
                        let _leave = LeaveOnDrop {
                            inner: inner.clone(),
                            key: owned_key.clone(),
                        };
                        let claim = match fleet_lock {
                            Some(lock_for) => {
                                match inner.claim_or_wait::<V>(&owned_key, lock_for).await {
                                    fleet::Claim::Answered(v) => {
                                        inner.stats.fleet_joined.fetch_add(1, Ordering::Relaxed);
                                        return Ok(v);
                                    }
                                    claim => claim,
                                }
                            }
                            None => fleet::Claim::Alone,
                        };
                        inner.stats.produced.fetch_add(1, Ordering::Relaxed);
                        let produced = search.await;
                        let value = match produced {
                            Ok((v, keep_for)) => {
                                let value = Arc::new(v);
                                if value.worth_storing() {
                                    inner.put(&owned_key, value.clone(), keep_for).await;
                                }
                                Ok(value)
                            }
                            Err(Overloaded) => Err(Overloaded),
                        };
                        inner.release(&owned_key, claim).await;
                        value
                    });
                    // A producer that panicked is answered like a refusal
                    // (503), never a hang.
                    let shared: SharedSearch<V> =
                        async move { task.await.unwrap_or(Err(Overloaded)) }
                            .boxed()
                            .shared();
                    // Keys of one kind hold one type, so this replaces
                    // nothing but a finished entry of the same key.
                    in_flight.insert(key.to_string(), Box::new(shared.clone()));
                    (shared, Source::Produced)
                }
            }
        };
        if source == Source::Coalesced {
            self.inner.stats.coalesced.fetch_add(1, Ordering::Relaxed);
        }
        Found {
            answer: shared.await,
            source,
            renders: None,
        }
    }
}

impl Cache {
    /// The value under `key` for values that know their age: a fresh one
    /// from the backend; a stale one (older than the TTL, younger than
    /// TTL + `stale_s`) at once, while one background run of `produce`
    /// (given the stale value) refreshes it; else from an identical search
    /// in flight here or — with Redis — in another instance (the fleet's
    /// lock, held at most `lock_for`), or by running `produce` (given
    /// `None`).
    pub(crate) async fn get_or_refresh<V, F, Fut>(
        &self,
        key: &str,
        lock_for: Duration,
        produce: F,
    ) -> Found<V>
    where
        V: Cacheable,
        F: FnOnce(Option<Arc<V>>) -> Fut,
        Fut: Future<Output = Result<(V, Duration), Overloaded>> + Send + 'static,
    {
        match self.inner.get::<V>(key).await {
            Some((hit, renders)) if !self.inner.is_stale(&*hit) => Found {
                answer: Ok(hit),
                source: Source::Hit,
                renders,
            },
            Some((stale, renders)) => {
                self.inner.stats.stale.fetch_add(1, Ordering::Relaxed);
                self.refresh(key, lock_for, produce(Some(stale.clone())));
                Found {
                    answer: Ok(stale),
                    source: Source::Stale,
                    renders,
                }
            }
            None => {
                self.join_or_produce(key, Some(lock_for), move || produce(None))
                    .await
            }
        }
    }

    /// Runs `search` in the background and stores its value under `key`,
    /// unless a refresh of `key` already runs here or, with Redis, in
    /// another instance (whoever holds the fleet's lock refreshes).
    fn refresh<V, Fut>(&self, key: &str, lock_for: Duration, search: Fut)
    where
        V: Cacheable,
        Fut: Future<Output = Result<(V, Duration), Overloaded>> + Send + 'static,
    {
        {
            let mut refreshing = self
                .inner
                .refreshing
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if !refreshing.insert(key.to_string()) {
                return;
            }
        }
        let inner = self.inner.clone();
        let key = key.to_string();
        tokio::spawn(async move {
            let _done = RefreshDone {
                inner: inner.clone(),
                key: key.clone(),
            };
            let Some(claim) = inner.claim_refresh::<V>(&key, lock_for).await else {
                return;
            };
            inner.stats.refreshes.fetch_add(1, Ordering::Relaxed);
            if let Ok((value, keep_for)) = search.await
                && value.worth_storing()
            {
                inner.put(&key, Arc::new(value), keep_for).await;
            }
            inner.release(&key, claim).await;
        });
    }
}

/// Takes a key out of the refreshing set when its refresh ends.
struct RefreshDone {
    inner: Arc<Inner>,
    key: String,
}

impl Drop for RefreshDone {
    fn drop(&mut self) {
        self.inner
            .refreshing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

/// What [`Cache::get_or_try_for`] found.
pub(crate) struct Found<V> {
    /// The value, or the refusal of the search that was to produce it.
    pub answer: Result<Arc<V>, Overloaded>,
    /// Where it came from.
    pub source: Source,
    /// The entry's renderings, on a hit of the in-process cache (memory,
    /// or the front of Redis, where a value read from Redis is put).
    pub renders: Option<Renders>,
}

/// Takes a search out of the in-flight map when its task ends, by any path.
struct LeaveOnDrop {
    inner: Arc<Inner>,
    key: String,
}

impl Drop for LeaveOnDrop {
    fn drop(&mut self) {
        self.inner
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

impl Inner {
    /// The longest `value` may be kept from now: the TTL, or — for values
    /// that know their age — what is left of the TTL plus the stale time.
    fn keep_limit<V: Cacheable>(&self, value: &V) -> Duration {
        match value.made_at_ms() {
            Some(made) => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                let age = Duration::from_millis(now.saturating_sub(made));
                self.ttl.saturating_add(self.stale).saturating_sub(age)
            }
            None => self.ttl,
        }
    }

    /// Whether `value` is older than the TTL (only values that know their
    /// age ever are).
    fn is_stale<V: Cacheable>(&self, value: &V) -> bool {
        value.made_at_ms().is_some_and(|made| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            Duration::from_millis(now.saturating_sub(made)) >= self.ttl
        })
    }

    async fn get<V: Cacheable>(&self, key: &str) -> Option<(Arc<V>, Option<Renders>)> {
        let in_process = |(v, r)| (v, Some(r));
        let found = match &self.backend {
            Backend::Off => None,
            Backend::Memory(cache) => memory_get(cache, key).await.map(in_process),
            Backend::Redis {
                manager,
                front,
                breaker,
            } => match front {
                Some(front) => match memory_get(front, key).await {
                    Some(hit) => Some(in_process(hit)),
                    None => self.redis_get(manager, breaker, Some(front), key).await,
                },
                None => self.redis_get(manager, breaker, None, key).await,
            },
        };
        let counter = if found.is_some() {
            &self.stats.hits
        } else {
            &self.stats.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// `GET` and `PTTL` in one round trip; a hit is kept in `front` for
    /// what Redis has left of its life (with that entry's [`Renders`]).
    async fn redis_get<V: Cacheable>(
        &self,
        manager: &crate::ops::redis::Conn,
        breaker: &Breaker,
        front: Option<&Memory>,
        key: &str,
    ) -> Option<(Arc<V>, Option<Renders>)> {
        if !breaker.allow() {
            return None;
        }
        let mut conn = manager.clone();
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(key).cmd("PTTL").arg(key);
        let call = pipe.query_async::<(Option<Vec<u8>>, i64)>(&mut conn);
        match tokio::time::timeout(REDIS_TIMEOUT, call).await {
            Ok(Ok((Some(bytes), left_ms))) => {
                breaker.succeeded();
                // Written by another version: treat as absent; the fresh
                // answer overwrites it.
                let mut v = serde_json::from_slice::<V>(&bytes).ok()?;
                v.mark_cached();
                let mut renders = None;
                if let Some(front) = front {
                    let limit = self.keep_limit(&v);
                    let left = u64::try_from(left_ms)
                        .map_or(limit, Duration::from_millis)
                        .min(limit);
                    if left >= Duration::from_millis(1) {
                        renders = Some(memory_put(front, key, &v, left).await);
                    }
                }
                Some((Arc::new(v), renders))
            }
            Ok(Ok((None, _))) => {
                breaker.succeeded();
                None
            }
            Ok(Err(e)) => {
                breaker.failed();
                self.failed("cache read", &e.to_string());
                None
            }
            Err(_) => {
                breaker.failed();
                self.failed("cache read", "no answer in time");
                None
            }
        }
    }

    /// Stores `value` for `keep_for`, at most the TTL; a value with less
    /// than a millisecond left is not stored.
    async fn put<V: Cacheable>(&self, key: &str, value: Arc<V>, keep_for: Duration) {
        let keep_for = keep_for.min(self.keep_limit(&*value));
        if keep_for < Duration::from_millis(1) {
            return;
        }
        match &self.backend {
            Backend::Off => {}
            Backend::Memory(cache) => {
                memory_put(cache, key, &*value, keep_for).await;
            }
            Backend::Redis {
                manager,
                front,
                breaker,
            } => {
                if let Some(front) = front {
                    memory_put(front, key, &*value, keep_for).await;
                }
                if !breaker.allow() {
                    return;
                }
                let Ok(json) = serde_json::to_vec(&*value) else {
                    return;
                };
                let mut conn = manager.clone();
                let mut cmd = redis::cmd("SET");
                cmd.arg(key)
                    .arg(json)
                    .arg("PX")
                    .arg(u64::try_from(keep_for.as_millis()).unwrap_or(u64::MAX));
                let call = cmd.query_async::<()>(&mut conn);
                match tokio::time::timeout(REDIS_TIMEOUT, call).await {
                    Ok(Ok(())) => breaker.succeeded(),
                    Ok(Err(e)) => {
                        breaker.failed();
                        self.failed("cache write", &e.to_string());
                    }
                    Err(_) => {
                        breaker.failed();
                        self.failed("cache write", "no answer in time");
                    }
                }
            }
        }
    }

    fn failed(&self, what: &str, error: &str) {
        self.stats.errors.fetch_add(1, Ordering::Relaxed);
        self.warn.warn(what, error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hit_gives_its_entry_renders_and_the_weight_counts_one_rendering() {
        let cache = Cache::memory(Duration::from_secs(60), 1 << 20);
        let page = SearchResponse {
            engines: vec![crate::model::EngineReport {
                engine: "e".into(),
                elapsed_ms: 1,
                results: 0,
                failure: None,
                reason: None,
            }],
            ..SearchResponse::default()
        };
        let produced = cache
            .get_or_try_for("k", || {
                let page = page.clone();
                async move { Ok((page, Duration::MAX)) }
            })
            .await;
        assert_eq!(produced.source, Source::Produced);
        assert!(produced.renders.is_none(), "a miss renders for itself");
        let hit = cache
            .get_or_try_for::<SearchResponse, _, _>("k", || async { Err(Overloaded) })
            .await;
        assert_eq!(hit.source, Source::Hit);
        let renders = hit.renders.expect("a hit of the memory cache");
        renders
            .get_or_render(7, || Ok::<_, ()>(bytes::Bytes::from_static(b"{}")))
            .unwrap();
        let again = cache
            .get_or_try_for::<SearchResponse, _, _>("k", || async { Err(Overloaded) })
            .await;
        let kept = again
            .renders
            .unwrap()
            .get_or_render(7, || Err(()))
            .expect("the same entry's rendering");
        assert_eq!(kept, "{}");
        assert_eq!(page.render_weight(), page.weight() / 2);
    }
}
