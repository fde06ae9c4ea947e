//! The server's state: what every handler shares ([`AppState`]), built from
//! a configuration and reloaded in place.
//!
//! What can change at run time — the searcher (engines, cache) and the rate
//! limiter — lives in one [`Live`] behind a lock that is only held to clone
//! or swap it, never across an `.await`. A reload builds the new `Live`
//! completely from the new file before swapping, so a bad file changes
//! nothing: the running configuration stays and the error (file:line) is
//! returned. Searches already running finish on the searcher they started
//! with. The [`Health`] book is carried over, so counts and suspensions
//! survive a reload; the cache and the limiter are kept unless their tables
//! changed.

use std::path::PathBuf;

use crate::config::{CacheBackend, Config};
use crate::ops::cache::Cache;
use crate::ops::health::{Health, HealthPolicy};
use crate::ops::limit::RateLimiter;
use crate::search::Searcher;

/// What every handler shares. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Swapped whole by a reload; the lock is only held to clone or swap.
    pub(super) live: std::sync::Arc<std::sync::RwLock<Live>>,
    pub(super) ops: std::sync::Arc<OpsSettings>,
}

impl AppState {
    /// State over a searcher (which holds the config and the HTTP client),
    /// with an in-memory rate limiter from its `[limits]`; not reloadable.
    pub fn new(searcher: Searcher) -> AppState {
        let limits = &searcher.config().limits;
        let limiter = crate::ops::limit::RateLimiter::local(limits);
        let suggest_limiter = crate::ops::limit::RateLimiter::local(&limits.autocomplete());
        let lab_limiter = crate::ops::limit::RateLimiter::local(&limits.lab());
        AppState::from_live(
            Live {
                searcher,
                limiter,
                suggest_limiter,
                lab_limiter,
            },
            OpsSettings::default(),
        )
    }

    fn from_live(live: Live, settings: OpsSettings) -> AppState {
        AppState {
            live: std::sync::Arc::new(std::sync::RwLock::new(live)),
            ops: std::sync::Arc::new(settings),
        }
    }

    /// The searcher in force (a reload may replace it; this one stays valid).
    pub fn searcher(&self) -> Searcher {
        self.live().searcher
    }

    /// The searcher and limiter in force.
    pub fn live(&self) -> Live {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Opens `/stats` and `/metrics` of a public instance to requests with
    /// `Authorization: Bearer TOKEN` (empty = loopback only). Call before
    /// the state is shared.
    pub fn with_metrics_token(mut self, token: Option<String>) -> AppState {
        if let Some(ops) = std::sync::Arc::get_mut(&mut self.ops) {
            ops.metrics_token = token.filter(|t| !t.trim().is_empty());
        }
        self
    }

    fn swap(&self, live: Live) {
        *self.live.write().unwrap_or_else(|p| p.into_inner()) = live;
    }
}

/// What a reload swaps: the searcher and the rate limiters.
#[derive(Debug, Clone)]
pub struct Live {
    /// Engines, cache, health.
    pub searcher: Searcher,
    /// The per-client rate limit of `/search`.
    pub limiter: RateLimiter,
    /// The per-client rate limit of `/autocomplete` (a budget of its own).
    pub suggest_limiter: RateLimiter,
    /// The per-client rate limit of `/lab` sweeps (a budget of its own).
    pub lab_limiter: RateLimiter,
}

/// Errors of building or reloading the serving state.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// The configuration file was refused (every problem, one per line).
    #[error("{0}")]
    Config(String),
    /// The searcher could not be built (HTTP client, an engine's builder).
    #[error("{0}")]
    Search(#[from] crate::search::SearchError),
    /// The cache or the limiter could not be set up (a malformed Redis URL).
    #[error("{0}")]
    Cache(#[from] crate::ops::cache::CacheError),
    /// No configuration file is known to reload from.
    #[error("this server was not started from a configuration file")]
    NoFile,
}

impl Live {
    /// Builds everything `config` describes, reusing `previous`'s cache and
    /// limiter when their tables did not change. Needs a Tokio runtime (a
    /// Redis connection manager starts a task).
    pub fn build(
        config: Config,
        health: &Health,
        previous: Option<&Live>,
    ) -> Result<Live, OpsError> {
        let same_cache = previous.is_some_and(|p| {
            let old = &p.searcher.config().cache;
            (
                old.backend,
                &old.url,
                old.ttl_s,
                old.memory_mb,
                old.front_mb,
                old.stale_s,
            ) == (
                config.cache.backend,
                &config.cache.url,
                config.cache.ttl_s,
                config.cache.memory_mb,
                config.cache.front_mb,
                config.cache.stale_s,
            )
        });
        let cache = match previous {
            Some(p) if same_cache => p.searcher.cache().clone(),
            _ => Cache::from_config(&config.cache)?,
        };
        let limiter = match previous {
            Some(p) if same_cache && p.limiter.config() == &config.limits => p.limiter.clone(),
            _ if config.cache.backend == CacheBackend::Redis => {
                RateLimiter::redis(&config.limits, &config.cache.url).map_err(|source| {
                    crate::ops::cache::CacheError::RedisUrl {
                        url: config.cache.url.clone(),
                        source,
                    }
                })?
            }
            _ => RateLimiter::local(&config.limits),
        };
        let redis_url =
            (config.cache.backend == CacheBackend::Redis).then_some(config.cache.url.as_str());
        let suggest_limiter = match previous {
            Some(p)
                if same_cache && p.suggest_limiter.config() == &config.limits.autocomplete() =>
            {
                p.suggest_limiter.clone()
            }
            _ => RateLimiter::autocomplete(&config.limits, redis_url).map_err(|source| {
                crate::ops::cache::CacheError::RedisUrl {
                    url: config.cache.url.clone(),
                    source,
                }
            })?,
        };
        let lab_limiter = match previous {
            Some(p) if same_cache && p.lab_limiter.config() == &config.limits.lab() => {
                p.lab_limiter.clone()
            }
            _ => RateLimiter::lab(&config.limits, redis_url).map_err(|source| {
                crate::ops::cache::CacheError::RedisUrl {
                    url: config.cache.url.clone(),
                    source,
                }
            })?,
        };
        let policy = HealthPolicy::from(&config.health);
        // Block and 429 suspensions go through the same Redis as the cache.
        let shared = match previous {
            _ if config.cache.backend != CacheBackend::Redis => None,
            Some(_) if same_cache => health.shared().map(|_| None),
            _ => {
                let port = config
                    .server
                    .bind
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse().ok());
                let instance = config.server.instance_id.clone().unwrap_or_else(|| {
                    crate::ops::shared_health::default_instance_id(port.unwrap_or(0))
                });
                Some(Some(
                    crate::ops::shared_health::SharedHealth::redis(&config.cache.url, &instance)
                        .map_err(|source| crate::ops::cache::CacheError::RedisUrl {
                            url: config.cache.url.clone(),
                            source,
                        })?,
                ))
            }
        };
        // Outbound budgets: one bucket per engine for every instance on the
        // Redis; kept across a reload (a reload must not refill them).
        let budgets = match previous {
            Some(p) if same_cache => p.searcher.budgets().clone(),
            _ if config.cache.backend == CacheBackend::Redis => {
                crate::ops::budget::Budgets::redis(&config.cache.url).map_err(|source| {
                    crate::ops::cache::CacheError::RedisUrl {
                        url: config.cache.url.clone(),
                        source,
                    }
                })?
            }
            Some(p) if !p.searcher.budgets().shared() => p.searcher.budgets().clone(),
            _ => crate::ops::budget::Budgets::local(),
        };
        let searcher = Searcher::from_config(config)?
            .with_health(health.clone())
            .with_cache(cache)
            .with_budgets(budgets);
        // Only now that nothing can fail: a refused reload changes nothing.
        health.set_policy(policy);
        match shared {
            // Not Redis (any more): this instance alone.
            None => health.set_shared(None),
            // The same Redis: the running one stays.
            Some(None) => {}
            Some(Some(s)) => health.set_shared(Some(s)),
        }
        Ok(Live {
            searcher,
            limiter,
            suggest_limiter,
            lab_limiter,
        })
    }
}

/// Operator settings fixed for the life of the process.
#[derive(Debug, Default)]
pub(super) struct OpsSettings {
    /// Bearer token of `POST /admin/reload`; `None` = the route is off (404).
    pub admin_token: Option<String>,
    /// The file a reload reads.
    pub config_path: Option<PathBuf>,
    /// One reload at a time.
    pub(super) reload_lock: tokio::sync::Mutex<()>,
    /// Bearer token that opens `/stats` and `/metrics` of a public instance
    /// to a non-loopback client (`METASIFT_METRICS_TOKEN`).
    pub metrics_token: Option<String>,
    /// HTTP requests by route and status (kept across reloads).
    pub http: crate::ops::metrics::HttpMetrics,
}

impl AppState {
    /// The state `metasift serve` runs: cache, limiter and health as
    /// `config` says, reloadable from `config_path`, the admin route on when
    /// `admin_token` is set. Needs a Tokio runtime.
    pub fn serving(
        config: Config,
        config_path: Option<PathBuf>,
        admin_token: Option<String>,
    ) -> Result<AppState, OpsError> {
        let health = Health::new(HealthPolicy::from(&config.health));
        let live = Live::build(config, &health, None)?;
        Ok(AppState::from_live(
            live,
            OpsSettings {
                admin_token: admin_token.as_deref().and_then(admin_token_from),
                config_path,
                reload_lock: tokio::sync::Mutex::new(()),
                metrics_token: None,
                http: Default::default(),
            },
        ))
    }

    /// Re-reads the configuration file and swaps it in; on any problem the
    /// running configuration stays and the error says what (file:line).
    /// `[server] bind` changes need a restart.
    pub async fn reload(&self) -> Result<String, OpsError> {
        let _one_at_a_time = self.ops.reload_lock.lock().await;
        let path = self.ops.config_path.as_deref().ok_or(OpsError::NoFile)?;
        let source = crate::config::ConfigSource::file(path);
        let config = crate::config::load(&source, &crate::engines::check).map_err(|errors| {
            OpsError::Config(
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        })?;
        let current = self.live();
        let health = current.searcher.health().clone();
        let engines = config.engines.len();
        let live = Live::build(config, &health, Some(&current))?;
        self.swap(live);
        Ok(format!(
            "reloaded {}: {engines} engine{}\n",
            path.display(),
            if engines == 1 { "" } else { "s" }
        ))
    }
}

/// The reload token as given (`METASIFT_ADMIN_TOKEN`, often from a file
/// with a final newline): surrounding whitespace is removed — a header
/// value cannot carry it, so such a token could never match — and an empty
/// one turns the route off rather than letting an empty bearer in.
fn admin_token_from(given: &str) -> Option<String> {
    let token = given.trim();
    if token.is_empty() {
        tracing::warn!("METASIFT_ADMIN_TOKEN is empty: POST /admin/reload is off");
        return None;
    }
    if token.len() != given.len() {
        tracing::warn!(
            "METASIFT_ADMIN_TOKEN has whitespace around it; it is ignored (the token is the {} \
             characters between)",
            token.chars().count()
        );
    }
    Some(token.to_string())
}
