//! The cache of fused results, and coalescing of identical searches.
//!
//! A search is cached under a key that covers everything that changes its
//! answer: the query text, page, engines, categories, language, time range,
//! safe-search level, the dedup settings in force and whether duplicates are
//! explained ([`cache_key`]). An entry lives `[cache] ttl_s` seconds.
//!
//! Backends:
//! - `memory`: a moka cache bounded by the approximate bytes of its entries
//!   (`[cache] memory_mb`), so ten thousand distinct queries cannot grow the
//!   process without bound.
//! - `redis`: values are the JSON of [`SearchResponse`], written with
//!   `SET key value EX ttl`, so several processes share one cache. Redis
//!   going away never fails a search: every call has a short timeout, a
//!   failure counts as a miss (or a skipped write), one warning is logged at
//!   most every [`WARN_EVERY`], and the connection manager reconnects when
//!   Redis is back.
//!
//! **Coalescing.** Concurrent identical searches that miss share one
//! fan-out: the first one registers a shared future under the key and the
//! others await it instead of asking the engines again. This is what keeps a
//! burst of the same popular query from multiplying the load on member
//! engines (and their rate limits) by the number of users.
//!
//! Responses in which no engine answered are returned but not stored, so an
//! outage is not remembered for a whole TTL.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use serde::Serialize;

use crate::config::{CacheBackend, CacheConfig};
use crate::dedup;
use crate::limit::Overloaded;
use crate::model::{Query, SearchResponse};

/// Shortest interval between two warnings about a failing backend.
pub const WARN_EVERY: Duration = Duration::from_secs(30);

/// How long one Redis call may take before it counts as failed.
const REDIS_TIMEOUT: Duration = Duration::from_millis(300);

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

/// Lets one warning through per [`WARN_EVERY`] and counts the rest, so a
/// Redis outage under load writes a line every half minute, not thousands.
#[derive(Debug, Default)]
pub struct WarnGate {
    last: Mutex<Option<Instant>>,
    suppressed: AtomicU64,
}

impl WarnGate {
    /// Whether a warning may be written at `now`.
    pub fn allow_at(&self, now: Instant) -> bool {
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
    pub fn warn(&self, what: &str, error: &str) {
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

/// Everything that changes a search's answer, in a stable order.
#[derive(Serialize)]
struct KeyParts<'a> {
    text: &'a str,
    page: u32,
    lang: Option<&'a str>,
    engines: Vec<&'a str>,
    categories: Vec<&'a str>,
    time_range: Option<&'a str>,
    safesearch: Option<u8>,
    dedup: &'a dedup::Settings,
    explain: bool,
}

/// The cache key of a search: `metasift:v1:` and a 128-bit hash of every
/// part that changes the answer. Engine and category lists are sorted and
/// deduplicated first, since their order does not change the answer.
pub fn cache_key(query: &Query, settings: &dedup::Settings, explain: bool) -> String {
    fn sorted(v: &[String]) -> Vec<&str> {
        let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    let parts = KeyParts {
        text: &query.text,
        page: query.page,
        lang: query.lang.as_deref(),
        engines: sorted(&query.engines),
        categories: sorted(&query.categories),
        time_range: query.time_range.as_deref(),
        safesearch: query.safesearch,
        dedup: settings,
        explain,
    };
    let json = serde_json::to_vec(&parts).unwrap_or_default();
    format!("metasift:v1:{:032x}", xxhash_rust::xxh3::xxh3_128(&json))
}

/// Approximate heap bytes of a response, for the memory bound: its JSON
/// size (counted, not built) plus a fixed share for the struct headers,
/// allocator overhead and moka's bookkeeping, which on real answers comes
/// to about twice the JSON.
fn weight(r: &SearchResponse) -> u32 {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, r);
    let strings = r.results.len() * 8 + r.engines.len() * 2;
    u32::try_from(count.0 * 2 + strings * 32 + 512).unwrap_or(u32::MAX)
}

/// Whether a response is worth remembering: at least one engine answered.
pub fn cacheable(r: &SearchResponse) -> bool {
    r.engines.iter().any(|e| e.failure.is_none())
}

enum Backend {
    Memory(moka::future::Cache<String, Arc<SearchResponse>>),
    Redis(redis::aio::ConnectionManager),
    Off,
}

type SharedSearch = Shared<BoxFuture<'static, Result<Arc<SearchResponse>, Overloaded>>>;
type InFlightMap = Mutex<HashMap<String, SharedSearch>>;

struct Inner {
    backend: Backend,
    ttl: Duration,
    in_flight: InFlightMap,
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
}

/// How a response was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From the backend.
    Hit,
    /// This call ran the search.
    Produced,
    /// Joined an identical search in flight.
    Coalesced,
}

/// The fused-result cache. Cheap to clone.
#[derive(Clone)]
pub struct Cache {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backend = match self.inner.backend {
            Backend::Memory(_) => "memory",
            Backend::Redis(_) => "redis",
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
                in_flight: Mutex::new(HashMap::new()),
                warn: WarnGate::default(),
                stats: CacheStats::default(),
            }),
        }
    }

    /// The cache `[cache]` describes. A Redis cache connects lazily, so an
    /// unreachable Redis is not an error here (searches go on uncached).
    /// `ttl_s = 0` turns storage off (coalescing still applies).
    pub fn from_config(config: &CacheConfig) -> Result<Self, CacheError> {
        let ttl = Duration::from_secs(config.ttl_s);
        if config.ttl_s == 0 {
            return Ok(Cache::off());
        }
        match config.backend {
            CacheBackend::Memory => Ok(Cache::memory(
                ttl,
                config.memory_mb.saturating_mul(1024 * 1024),
            )),
            CacheBackend::Redis => Cache::redis(&config.url, ttl),
        }
    }

    /// An in-process cache holding at most about `max_bytes` of responses.
    pub fn memory(ttl: Duration, max_bytes: u64) -> Self {
        let cache = moka::future::Cache::builder()
            .max_capacity(max_bytes.max(1))
            .weigher(|_k: &String, v: &Arc<SearchResponse>| weight(v))
            .time_to_live(ttl)
            .build();
        Cache::with_backend(Backend::Memory(cache), ttl)
    }

    /// A cache in the Redis at `url`, shared by every process using it.
    pub fn redis(url: &str, ttl: Duration) -> Result<Self, CacheError> {
        let manager = redis_manager(url).map_err(|source| CacheError::RedisUrl {
            url: url.to_string(),
            source,
        })?;
        Ok(Cache::with_backend(Backend::Redis(manager), ttl))
    }

    /// No storage; identical concurrent searches are still coalesced.
    pub fn off() -> Self {
        Cache::with_backend(Backend::Off, Duration::ZERO)
    }

    /// Counters of what the cache did.
    pub fn stats(&self) -> &CacheStats {
        &self.inner.stats
    }

    /// The stored answer under `key`, if any (a backend failure is a miss).
    pub async fn get(&self, key: &str) -> Option<Arc<SearchResponse>> {
        self.inner.get(key).await
    }

    /// Stores `value` under `key` for the TTL (a backend failure is logged
    /// and skipped).
    pub async fn put(&self, key: &str, value: Arc<SearchResponse>) {
        self.inner.put(key, value).await;
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
        if let Some(hit) = self.inner.get(key).await {
            return (Ok(hit), Source::Hit);
        }
        let (shared, source) = {
            let mut in_flight = self
                .inner
                .in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            match in_flight.get(key) {
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
                        inner.stats.produced.fetch_add(1, Ordering::Relaxed);
                        let response = search.await.map(Arc::new);
                        if let Ok(r) = &response
                            && cacheable(r)
                        {
                            inner.put(&owned_key, r.clone()).await;
                        }
                        response
                    });
                    // A producer that panicked is answered like a refusal
                    // (503), never a hang.
                    let shared = async move { task.await.unwrap_or(Err(Overloaded)) }
                        .boxed()
                        .shared();
                    in_flight.insert(key.to_string(), shared.clone());
                    (shared, Source::Produced)
                }
            }
        };
        if source == Source::Coalesced {
            self.inner.stats.coalesced.fetch_add(1, Ordering::Relaxed);
        }
        (shared.await, source)
    }
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
    async fn get(&self, key: &str) -> Option<Arc<SearchResponse>> {
        let found = match &self.backend {
            Backend::Off => None,
            Backend::Memory(cache) => cache.get(key).await,
            Backend::Redis(manager) => {
                let mut conn = manager.clone();
                let mut cmd = redis::cmd("GET");
                cmd.arg(key);
                let call = cmd.query_async::<Option<Vec<u8>>>(&mut conn);
                match tokio::time::timeout(REDIS_TIMEOUT, call).await {
                    Ok(Ok(Some(bytes))) => match serde_json::from_slice::<SearchResponse>(&bytes) {
                        Ok(mut r) => {
                            r.cached = true;
                            Some(Arc::new(r))
                        }
                        // Written by another version: treat as absent; the
                        // fresh answer overwrites it.
                        Err(_) => None,
                    },
                    Ok(Ok(None)) => None,
                    Ok(Err(e)) => {
                        self.failed("cache read", &e.to_string());
                        None
                    }
                    Err(_) => {
                        self.failed("cache read", "no answer in time");
                        None
                    }
                }
            }
        };
        match found {
            Some(r) => {
                self.stats.hits.fetch_add(1, Ordering::Relaxed);
                if r.cached {
                    Some(r)
                } else {
                    let mut r = (*r).clone();
                    r.cached = true;
                    Some(Arc::new(r))
                }
            }
            None => {
                self.stats.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    async fn put(&self, key: &str, value: Arc<SearchResponse>) {
        match &self.backend {
            Backend::Off => {}
            Backend::Memory(cache) => {
                let mut stored = (*value).clone();
                stored.cached = true;
                cache.insert(key.to_string(), Arc::new(stored)).await;
            }
            Backend::Redis(manager) => {
                let Ok(json) = serde_json::to_vec(&*value) else {
                    return;
                };
                let mut conn = manager.clone();
                let mut cmd = redis::cmd("SET");
                cmd.arg(key)
                    .arg(json)
                    .arg("EX")
                    .arg(self.ttl.as_secs().max(1));
                let call = cmd.query_async::<()>(&mut conn);
                match tokio::time::timeout(REDIS_TIMEOUT, call).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => self.failed("cache write", &e.to_string()),
                    Err(_) => self.failed("cache write", "no answer in time"),
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

    #[test]
    fn key_covers_every_part_and_ignores_list_order() {
        let q = Query {
            text: "rust".into(),
            page: 1,
            engines: vec!["b".into(), "a".into()],
            ..Query::default()
        };
        let s = dedup::Settings::default();
        let k = cache_key(&q, &s, false);
        let mut q2 = q.clone();
        q2.engines = vec!["a".into(), "b".into(), "a".into()];
        assert_eq!(k, cache_key(&q2, &s, false));
        assert_ne!(k, cache_key(&q, &s, true));
        let mut other = q.clone();
        other.page = 2;
        assert_ne!(k, cache_key(&other, &s, false));
        let mut other = q.clone();
        other.safesearch = Some(2);
        assert_ne!(k, cache_key(&other, &s, false));
        let mut other = q.clone();
        other.lang = Some("zh-CN".into());
        assert_ne!(k, cache_key(&other, &s, false));
        let s2 = dedup::Settings {
            os2: 0.9,
            ..dedup::Settings::default()
        };
        assert_ne!(k, cache_key(&q, &s2, false));
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
