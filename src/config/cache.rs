//! `[cache]`: where fused results and the engine answers they came from are
//! kept (in process, or a shared Redis) and for how long.

use serde::{Deserialize, Serialize};

use super::Problem;

/// Cache backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheBackend {
    /// In-process, bounded.
    #[default]
    Memory,
    /// Shared Redis.
    Redis,
}

/// `[cache]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Backend.
    pub backend: CacheBackend,
    /// Redis URL when `backend = "redis"`.
    pub url: String,
    /// Seconds a fused result (and the engine answers it came from) stays cached.
    pub ttl_s: u64,
    /// Seconds past `ttl_s` the engine answers are still kept: such a stale
    /// entry answers at once and is refreshed in the background; 0 = none.
    pub stale_s: u64,
    /// Memory backend: approximate megabytes of results kept at most.
    pub memory_mb: u64,
    /// Redis backend: approximate megabytes of the in-process cache in
    /// front of Redis (read first, written with Redis), which keeps this
    /// process caching while Redis is gone; 0 = none.
    pub front_mb: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            backend: CacheBackend::Memory,
            url: "redis://127.0.0.1:6379/".into(),
            ttl_s: 300,
            stale_s: 3600,
            memory_mb: 64,
            front_mb: 16,
        }
    }
}

impl CacheConfig {
    /// Values of `[cache]` that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        if self.backend == CacheBackend::Redis {
            let ok = url::Url::parse(&self.url)
                .is_ok_and(|u| matches!(u.scheme(), "redis" | "rediss" | "unix"));
            if !ok {
                out.push(Problem::at(
                    &[&["cache", "url"], &["cache", "backend"]],
                    format!(
                        "cache.url: {:?} is not a redis://, rediss:// or unix:// URL",
                        self.url
                    ),
                ));
            }
        }
    }
}
