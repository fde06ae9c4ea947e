//! A search, from the words typed to the fused page.
//!
//! A search is one [`SearchRequest`], built once ([`Searcher::request`]
//! from what a request asked for and the configuration, or
//! [`Searcher::prepare`] for a query made elsewhere): the query, the engines
//! chosen, the dedup settings. [`Searcher::run`] gives its fused page,
//! [`Searcher::compared`] the page with the comparison against `[dedup]`
//! (its own settings' fusion is the one the page was cut from, not fused
//! again). All walk one path:
//!
//! ```text
//! page cache ──miss──▶ answers cache ──miss──▶ fan-out (gather, fetch) ──▶ fuse
//!  (Searcher::page)     (Searcher::gathered)    under max_in_flight
//! ```
//!
//! Each cache also joins identical searches in flight to one producer, so a
//! burst of the same query asks the engines once; a page asked with other
//! dedup settings is fused again from cached answers instead of a new
//! fan-out. The jobs along the way live in their own files: `request` (the
//! one search request), `query` (bangs, page, engine choice), `gather` (the
//! fan-out under deadlines, into [`Gathered`]), `fetch` (HTTP to one
//! engine, decoding, failures) and [`recording`] (saved answers for offline
//! replay). The mechanisms — caches, limits, health — are [`crate::ops`]'s.
//!
//! **Paging.** A page is a slice of a *fused* list, never an engine page:
//! engine page 1's answers fuse into one list (36 results for `javascript
//! tutorial` from 67 records), served `[server] results_per_page` (or the
//! searcher's own page size, [`SearchOptions::per_page`]) at a time;
//! only the page after its last asks the engines for their page 2, whose
//! fused list starts a new page, and so on (`Searcher::walk`). Each engine
//! page's answers are cached, so walking to page 3 costs fusions, not
//! fan-outs. Results of engine page 2 that repeat one of page 1 are not
//! folded into it (each engine page is fused on its own).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Config, EngineConfig};
use crate::engines::Engine;
use crate::fusion::compare::SettingsComparison;
use crate::model::{Query, SearchResponse};
use crate::ops::budget::Budgets;
use crate::ops::cache::{Cache, Renders, SettingsJson, Source, answers_key, page_key};
use crate::ops::health::{Counters, Health, HealthPolicy};
use crate::ops::limit::{InFlight, Overloaded};
use metasift_dedup as dedup;

pub mod categories;
pub mod demo;
mod fetch;
mod gather;
mod hostnames;
mod operators;
mod proxy;
mod query;
pub mod recording;
mod request;

pub use fetch::{MAX_REDIRECTS, client_builder, http_client, is_local_ip};
pub use gather::Gathered;
pub use proxy::ProxySnapshot;
pub use query::{MAX_OPERATOR_CHARS, MAX_OPERATORS, asked_by, engine_text};
pub use request::{Asked, RequestError, SearchRequest};

/// Per-search options that do not change which engines are asked.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Dedup settings for this search (`method`, `os1`, `os2` from the query
    /// string); `None` = the configured ones.
    pub dedup: Option<dedup::Settings>,
    /// Fusion settings for this search (`fusion=`); `None` = `[fusion]`.
    pub fusion: Option<crate::config::FusionSettings>,
    /// Fill `shared_codes` of every duplicate.
    pub explain: bool,
    /// Told how each engine fared as soon as it has, when this search runs
    /// the fan-out itself (a cache hit or a search joined in flight tells
    /// nothing). The streamed results page lists them while it waits.
    pub progress: Option<Progress>,
    /// Results per page (a searcher's preference); `None` = `[server]
    /// results_per_page`. Capped by `[server] max_results_per_page`.
    pub per_page: Option<usize>,
    /// The searcher's own hostname rules (the preferences), laid over
    /// `[hostnames]`.
    pub hosts: Option<Arc<crate::hosts::Rules>>,
}

impl PartialEq for SearchOptions {
    /// The same search options: `progress` is who listens, not what is asked.
    fn eq(&self, other: &Self) -> bool {
        self.dedup == other.dedup
            && self.fusion == other.fusion
            && self.explain == other.explain
            && self.per_page == other.per_page
            && self.hosts.as_ref().map(|h| h.fingerprint())
                == other.hosts.as_ref().map(|h| h.fingerprint())
    }
}

/// Where a fan-out reports each engine's outcome as it comes.
pub type Progress = tokio::sync::mpsc::UnboundedSender<crate::model::EngineReport>;

/// Errors met while setting up a [`Searcher`].
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The HTTP client could not be built (TLS roots, bad User-Agent, …).
    #[error("cannot build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
    /// An engine's configuration was refused by its kind's builder.
    #[error("engine {engine:?}: {message}")]
    Engine {
        /// The engine's name.
        engine: String,
        /// What its builder said.
        message: String,
    },
}

/// Builds the engine of one `[[engine]]` table with its kind's builder.
fn build_engine(config: &EngineConfig) -> Result<Arc<dyn Engine>, String> {
    crate::engines::build(config).map(Arc::from)
}

/// Asks member engines and fuses their answers. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Searcher {
    inner: Arc<Inner>,
}

#[derive(Debug, Clone)]
struct Inner {
    config: Arc<Config>,
    client: reqwest::Client,
    /// Same order as `config.engines`; `None` where the builder refused it.
    engines: Vec<Option<Arc<dyn Engine>>>,
    /// Save every raw answer here (`--record`, `[server] record_dir`).
    record_dir: Option<PathBuf>,
    /// Answer every request from this recording (`--replay`); an engine's
    /// own `replay` folder wins over it.
    replay_dir: Option<PathBuf>,
    /// Outcomes of every engine; suspension.
    health: Health,
    /// Fused answers; coalescing of identical searches in flight.
    cache: Cache,
    /// The outbound budgets of the engines (`max_per_minute`).
    budgets: Budgets,
    /// The proxies engine requests go through, and their health.
    proxies: Arc<proxy::Proxies>,
    /// The `[limits] max_in_flight` cap on fan-outs.
    in_flight: InFlight,
    /// Fingerprint of what shapes an answer besides the query (engines,
    /// page size), mixed into cache keys so a reload never serves answers
    /// of the old engines, while processes on one file share entries.
    config_tag: u64,
    /// `[dedup]` as the page keys hash it, written once.
    dedup_json: Arc<SettingsJson>,
    /// `[hostnames]`, compiled once.
    hosts: Arc<crate::hosts::Rules>,
    /// Parses running at once: one per core. Parsing is pure CPU; more at
    /// once only slows each one and starves the threads that answer
    /// cached searches and 503s. A parse waiting here counts against its
    /// engine's timeout, so under overload engines time out instead of
    /// piling up.
    parse_slots: Arc<tokio::sync::Semaphore>,
    /// The moment every search happens at, when fixed
    /// ([`Searcher::with_clock`]); else the system clock. Time ranges are
    /// computed from it.
    fixed_now: Option<std::time::SystemTime>,
}

impl Inner {
    fn build(
        config: Arc<Config>,
        client: reqwest::Client,
        engines: Vec<Option<Arc<dyn Engine>>>,
    ) -> Inner {
        let health = Health::new(HealthPolicy::from(&config.health));
        health.register(config.engines.iter().map(|e| e.name.clone()));
        let in_flight = InFlight::new(config.limits.max_in_flight);
        let shape = (&config.engines, config.server.results_per_page);
        // Never one tag for every configuration: were the JSON to fail, the
        // (deterministic: no hash maps) debug form stands in.
        let config_tag = xxhash_rust::xxh3::xxh3_64(
            &serde_json::to_vec(&shape).unwrap_or_else(|_| format!("{shape:?}").into_bytes()),
        );
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let (hosts, refused) = config.hostnames.rules();
        // Only a configuration that skipped validation gets here with any.
        for e in refused {
            tracing::warn!(rule = %e, "hostname rule left out");
        }
        let proxies = Arc::new(proxy::Proxies::build(&config));
        Inner {
            hosts: Arc::new(hosts),
            dedup_json: Arc::new(SettingsJson::of(&config.dedup)),
            record_dir: config.server.record_dir.clone(),
            replay_dir: None,
            parse_slots: Arc::new(tokio::sync::Semaphore::new(cores)),
            config,
            client,
            engines,
            health,
            // Storage is opted into ([`Searcher::with_cache`]); identical
            // concurrent searches are coalesced regardless.
            cache: Cache::off(),
            budgets: Budgets::local(),
            proxies,
            in_flight,
            config_tag,
            fixed_now: None,
        }
    }
}

impl Searcher {
    /// A searcher over `config`'s engines sharing one HTTP client. Engines
    /// their builder refuses are left out (validation reports them first).
    pub fn new(config: Arc<Config>, client: reqwest::Client) -> Self {
        let engines = config
            .engines
            .iter()
            .map(|e| match build_engine(e) {
                Ok(engine) => Some(engine),
                Err(message) => {
                    tracing::warn!(engine = %e.name, %message, "engine left out");
                    None
                }
            })
            .collect();
        Searcher {
            inner: Arc::new(Inner::build(config, client, engines)),
        }
    }

    /// A searcher over a validated configuration, with its own client; fails
    /// if an engine cannot be built.
    pub fn from_config(config: Config) -> Result<Self, SearchError> {
        let client = http_client(&config.server)?;
        for e in &config.engines {
            build_engine(e).map_err(|message| SearchError::Engine {
                engine: e.name.clone(),
                message,
            })?;
        }
        Ok(Searcher::new(Arc::new(config), client))
    }

    /// A searcher over engines built elsewhere (tests, custom kinds). Engines
    /// are matched to `config.engines` by name; unmatched tables are left out.
    pub fn with_engines(
        config: Arc<Config>,
        client: reqwest::Client,
        engines: Vec<Arc<dyn Engine>>,
    ) -> Self {
        let engines = config
            .engines
            .iter()
            .map(|c| engines.iter().find(|e| e.config().name == c.name).cloned())
            .collect();
        Searcher {
            inner: Arc::new(Inner::build(config, client, engines)),
        }
    }

    /// The same searcher, saving every raw engine answer into `record` and
    /// answering from the recording `replay` instead of the network (either
    /// may be `None`; `record` = `None` keeps `[server] record_dir`).
    pub fn with_recording(mut self, record: Option<PathBuf>, replay: Option<PathBuf>) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        if record.is_some() {
            inner.record_dir = record;
        }
        inner.replay_dir = replay;
        self
    }

    /// The same searcher recording into `health` (shared with an earlier
    /// searcher across a reload, so counts and suspensions survive it).
    pub fn with_health(mut self, health: Health) -> Self {
        health.register(self.inner.config.engines.iter().map(|e| e.name.clone()));
        Arc::make_mut(&mut self.inner).health = health;
        self
    }

    /// The same searcher with its clock stopped at `now`: the dates a time
    /// range sends and checks are computed from it (tests).
    pub fn with_clock(mut self, now: std::time::SystemTime) -> Self {
        Arc::make_mut(&mut self.inner).fixed_now = Some(now);
        self
    }

    /// The moment a search happens at.
    pub(crate) fn now(&self) -> std::time::SystemTime {
        self.inner
            .fixed_now
            .unwrap_or_else(std::time::SystemTime::now)
    }

    /// The same searcher answering from and storing into `cache`.
    pub fn with_cache(mut self, cache: Cache) -> Self {
        Arc::make_mut(&mut self.inner).cache = cache;
        self
    }

    /// The same searcher taking the engines' outbound budgets from
    /// `budgets` (shared through Redis, or kept across a reload).
    pub fn with_budgets(mut self, budgets: Budgets) -> Self {
        Arc::make_mut(&mut self.inner).budgets = budgets;
        self
    }

    /// The outbound budgets this searcher takes from.
    pub fn budgets(&self) -> &Budgets {
        &self.inner.budgets
    }

    /// Every proxy's health at `now`, for `/stats` (no credentials).
    pub fn proxies(&self, now: std::time::SystemTime) -> Vec<ProxySnapshot> {
        self.inner.proxies.snapshot(now)
    }

    /// The health book this searcher records into.
    pub fn health(&self) -> &Health {
        &self.inner.health
    }

    /// Searches asking the engines right now, when `[limits]
    /// max_in_flight` caps them (`None`: no cap, nothing counted).
    pub fn in_flight(&self) -> Option<usize> {
        let max = self.config().limits.max_in_flight;
        self.inner
            .in_flight
            .available()
            .map(|a| max.saturating_sub(a))
    }

    /// The cache this searcher uses.
    pub(crate) fn cache(&self) -> &Cache {
        &self.inner.cache
    }

    /// The configuration in use.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The shared HTTP client.
    pub fn client(&self) -> &reqwest::Client {
        &self.inner.client
    }

    /// The hostname rules a search with `opts` follows: the searcher's own
    /// over `[hostnames]`.
    pub fn host_rules(&self, opts: &SearchOptions) -> crate::hosts::HostRules {
        crate::hosts::HostRules::new(self.inner.hosts.clone(), opts.hosts.clone())
    }

    /// The fused page for `query`: from the page cache, or joined to an
    /// identical search in flight, or fused from the engine answers (from
    /// their cache, or a new fan-out under the deadline). A search that
    /// would have to ask the engines while `[limits] max_in_flight` fan-outs
    /// already run is refused at once (the web layer answers 503).
    pub async fn search(
        &self,
        query: &Query,
        opts: &SearchOptions,
    ) -> Result<SearchResponse, Overloaded> {
        self.run(&self.prepare(query.clone(), opts.clone())).await
    }

    /// [`Searcher::search`] of a request built once.
    pub async fn run(&self, request: &SearchRequest) -> Result<SearchResponse, Overloaded> {
        self.page(request, None).await.map(|(r, _)| owned(r))
    }

    /// [`Searcher::run`] without copying the page out of the cache: the
    /// page as the cache holds it and, on a hit of the in-process cache,
    /// the entry's [`Renders`], where a response rendered from the page
    /// (a pure function of it) may be kept for the next hits.
    pub async fn run_shared(
        &self,
        request: &SearchRequest,
    ) -> Result<(Arc<SearchResponse>, Option<Renders>), Overloaded> {
        self.page(request, None).await
    }

    /// [`Searcher::search`], also giving the engine answers the page was
    /// fused from, so they can be fused again under other settings (the
    /// lab) with no new fan-out.
    pub async fn answers(
        &self,
        query: &Query,
        opts: &SearchOptions,
    ) -> Result<(SearchResponse, Arc<Gathered>), Overloaded> {
        let request = self.prepare(query.clone(), opts.clone());
        self.walked_page(&request)
            .await
            .map(|(response, walked)| (response, walked.gathered))
    }

    /// [`Searcher::run`] with what changed against the configured
    /// `[dedup]`: the engine answers the page came from fused under
    /// `[dedup]`, compared with their fusion under the request's settings
    /// — the list the page was cut from, not fused again.
    pub async fn compared(
        &self,
        request: &SearchRequest,
    ) -> Result<(SearchResponse, SettingsComparison), Overloaded> {
        let (response, walked) = self.walked_page(request).await?;
        // Off the async workers, each fusion within COMPARE_BUDGET.
        let configured = (self.config().dedup.clone(), self.config().fusion);
        let requested = (request.settings.clone(), request.fusion);
        let run = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + COMPARE_BUDGET;
            SettingsComparison::of_fused(
                &walked.gathered.answers,
                (&configured.0, &configured.1),
                (&requested.0, &requested.1),
                walked.whole.as_deref(),
                Some(deadline),
            )
        });
        let comparison = match run.await {
            Ok(c) => c,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        Ok((response, comparison))
    }

    /// The page of `request` and where it lies: the engine answers and,
    /// when the page's fused list is their whole fusion, that list.
    async fn walked_page(
        &self,
        request: &SearchRequest,
    ) -> Result<(SearchResponse, WalkedAnswers), Overloaded> {
        let walked = match self.walk(request).await {
            Ok(w) => w,
            Err(Overloaded) => {
                let counters = self.inner.health.counters();
                Counters::bump(&counters.searches);
                Counters::bump(&counters.overloaded);
                return Err(Overloaded);
            }
        };
        let answers = WalkedAnswers {
            gathered: walked.gathered.clone(),
            whole: walked.whole.then(|| walked.fused.clone()),
        };
        let (response, _) = self.page(request, Some(walked)).await?;
        Ok((owned(response), answers))
    }

    /// The one place that consults the page cache: the fused page, from
    /// the cache, or joined to an identical search in flight, or sliced
    /// from the fused list `walked` (when given) or [`Searcher::walk`]
    /// finds. A page fused from cached answers is kept only as long as they
    /// have left, and counts as a cache hit.
    async fn page(
        &self,
        request: &SearchRequest,
        walked: Option<Walked>,
    ) -> Result<(Arc<SearchResponse>, Option<Renders>), Overloaded> {
        let counters = self.inner.health.counters();
        Counters::bump(&counters.searches);
        let (query, opts) = (&request.query, &request.opts);
        let other_settings = opts.dedup.as_ref().map(SettingsJson::of);
        let settings = other_settings.as_ref().unwrap_or(&self.inner.dedup_json);
        // Another page size slices the same fused list otherwise: its own
        // entry (the configured size keeps the key it always had).
        let per_page = self.config().server.page_size(opts.per_page);
        let mut key = page_key(
            query,
            settings,
            &request.fusion,
            opts.explain,
            Some(self.inner.config_tag),
        );
        if per_page != self.config().server.results_per_page {
            key.push_str(&format!(":n{per_page}"));
        }
        let rules = self.host_rules(opts);
        if let Some(f) = rules.fingerprint() {
            key.push_str(&format!(":h{f:016x}"));
        }
        let this = self.clone();
        let request = request.clone();
        let found = self
            .inner
            .cache
            .get_or_try_for(&key, move || async move {
                let started = Instant::now();
                let walked = match walked {
                    Some(w) => w,
                    None => this.walk(&request).await?,
                };
                let mut response = walked.page(&request.query, per_page);
                hostnames::replace_links(&mut response.results, &rules);
                let (gathered, from_cache) = (walked.gathered, walked.from_cache);
                response.cached = from_cache;
                let keep_for = if from_cache {
                    response.elapsed_ms = millis(started.elapsed());
                    this.inner.cache.ttl().saturating_sub(gathered.age())
                } else {
                    response.elapsed_ms = gathered.elapsed_ms.max(millis(started.elapsed()));
                    Duration::MAX
                };
                Ok((response, keep_for))
            })
            .await;
        let answer = found.answer;
        Counters::bump(match found.source {
            Source::Hit => &counters.cache_hits,
            Source::Produced if answer.as_ref().is_ok_and(|r| r.cached) => &counters.cache_hits,
            Source::Produced => &counters.cache_misses,
            Source::Coalesced => &counters.coalesced,
            Source::Stale => &counters.cache_hits,
        });
        let stats = self.inner.cache.stats();
        for (to, from) in [
            (&counters.cache_errors, &stats.errors),
            (&counters.stale_served, &stats.stale),
            (&counters.refreshes, &stats.refreshes),
            (&counters.fleet_coalesced, &stats.fleet_joined),
        ] {
            to.store(
                from.load(std::sync::atomic::Ordering::Relaxed),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        match answer {
            Ok(r) => Ok((r, found.renders)),
            Err(Overloaded) => {
                Counters::bump(&counters.overloaded);
                Err(Overloaded)
            }
        }
    }

    /// The one place that consults the answers cache: the engine answers to
    /// `query`, before dedup, from the cache (then `true`), joined to an
    /// identical fan-out in flight, or from a new fan-out — refused at once
    /// when `[limits] max_in_flight` fan-outs are already running. The lab
    /// asks for these alone: it fuses them under each setting itself.
    pub(crate) async fn gathered(
        &self,
        request: &SearchRequest,
    ) -> Result<(Arc<Gathered>, bool), Overloaded> {
        self.gathered_watched(&request.query, &request.selected, None)
            .await
    }

    /// [`Searcher::gathered`] of `query` (a page of the request's) from the
    /// engines `selected`, telling `progress` how each engine fared as soon
    /// as it has when this call runs the fan-out.
    async fn gathered_watched(
        &self,
        query: &Query,
        selected: &[usize],
        progress: Option<Progress>,
    ) -> Result<(Arc<Gathered>, bool), Overloaded> {
        let key = answers_key(query, Some(self.inner.config_tag));
        let this = self.clone();
        let query = query.clone();
        let selected = selected.to_vec();
        // Another instance's fan-out of the same query is awaited about as
        // long as a fan-out takes (then fused and stored).
        let lock_for = Duration::from_millis(self.config().server.deadline_ms)
            .saturating_add(FLEET_LOCK_MARGIN);
        let found = self
            .inner
            .cache
            .get_or_refresh(
                &key,
                lock_for,
                move |previous: Option<Arc<Gathered>>| async move {
                    let _permit = this.inner.in_flight.try_enter().ok_or(Overloaded)?;
                    // A refresh runs in the background: no one listens.
                    let progress = if previous.is_some() { None } else { progress };
                    Ok((
                        this.gather(&query, &selected, progress, previous.as_deref())
                            .await,
                        Duration::MAX,
                    ))
                },
            )
            .await;
        let cached = matches!(found.source, Source::Hit | Source::Stale);
        found.answer.map(|g| (g, cached))
    }

    /// Finds the fused list `request.query.page` is a slice of: fuses
    /// engine page 1's answers under the request's dedup settings; while the pages asked lie past that list, asks the
    /// engines for their next page (from the answers cache when it holds
    /// it). Never asks beyond engine page `query.page`: each engine page
    /// with results gives at least one fused page. A result of a later
    /// engine page that the dedup method finds among the earlier pages'
    /// results is not shown again (engines repeat results across pages).
    async fn walk(&self, request: &SearchRequest) -> Result<Walked, Overloaded> {
        let (query, opts) = (&request.query, &request.opts);
        let settings = &request.settings;
        let per_page = self.config().server.page_size(opts.per_page);
        let wanted = query.page.max(1);
        let rules = self.host_rules(opts);
        let (mut skipped_pages, mut before) = (0u32, 0usize);
        let mut engine_page = 1u32;
        // The fused lists of the engine pages walked past, in order.
        let mut shown: Vec<crate::model::MergedResult> = Vec::new();
        loop {
            let asked = Query {
                page: engine_page,
                ..query.clone()
            };
            let (gathered, from_cache) = self
                .gathered_watched(&asked, &request.selected, opts.progress.clone())
                .await?;
            let (gathered, removed) = hostnames::without_removed(&gathered, &rules);
            // An engine page that brings nothing new ends the walk, as an
            // empty one does: the fan-outs stay bounded by what is new.
            let (mut fused, whole);
            (fused, shown, whole) = self
                .fuse_off_workers(
                    &gathered,
                    settings,
                    &request.fusion,
                    opts.explain,
                    shown,
                    &rules,
                )
                .await;
            let pages = u32::try_from(fused.len().div_ceil(per_page)).unwrap_or(u32::MAX);
            if fused.is_empty() || wanted - skipped_pages <= pages || engine_page >= wanted {
                return Ok(Walked {
                    gathered,
                    from_cache,
                    fused,
                    whole,
                    first_page: skipped_pages + 1,
                    before,
                    removed,
                });
            }
            skipped_pages += pages;
            before += fused.len();
            shown.append(&mut fused);
            engine_page += 1;
        }
    }
}

/// How much longer than the search deadline an instance waits for another
/// one's fan-out of the same query (its fusion and its write to Redis).
const FLEET_LOCK_MARGIN: Duration = Duration::from_millis(500);

/// The time one engine page's dedup may take before the records left fold
/// by URL alone ([`crate::fusion::fuse_until`]); far more than the dedup of
/// any answer under the answer cap takes (see docs/performance.md).
const FUSE_BUDGET: Duration = Duration::from_millis(500);

/// The time each of the two fusions of a settings comparison may take
/// before the records left fold by URL alone.
const COMPARE_BUDGET: Duration = Duration::from_millis(500);

impl Searcher {
    /// Fuses `gathered` (dropping what `shown` already shows) on a blocking
    /// thread, one of as many at once as there are cores (the parse
    /// slots), within [`FUSE_BUDGET`]: the async workers stay free to
    /// answer `/healthz`, cache hits and refusals meanwhile. Gives `shown`
    /// back, and whether the fused list is the answers' whole fusion
    /// (nothing of it was shown before).
    async fn fuse_off_workers(
        &self,
        gathered: &Arc<Gathered>,
        settings: &dedup::Settings,
        fusion: &crate::config::FusionSettings,
        explain: bool,
        shown: Vec<crate::model::MergedResult>,
        rules: &crate::hosts::HostRules,
    ) -> (
        Vec<crate::model::MergedResult>,
        Vec<crate::model::MergedResult>,
        bool,
    ) {
        let deadline = Instant::now() + FUSE_BUDGET;
        // Never closed; were it, the fuse would run unslotted.
        let _slot = self.inner.parse_slots.clone().acquire_owned().await.ok();
        let (gathered, settings, rules, fusion) =
            (gathered.clone(), settings.clone(), rules.clone(), *fusion);
        let run = tokio::task::spawn_blocking(move || {
            let factor = |link: &str| hostnames::factor(&rules, link);
            let factor: crate::fusion::hosts::Factor<'_> = if rules.weighs() {
                &factor
            } else {
                &crate::fusion::hosts::even
            };
            let mut fused = crate::fusion::fuse_weighed(
                &gathered.answers,
                &settings,
                &fusion,
                explain,
                Some(deadline),
                factor,
            );
            let fused_all = fused.len();
            crate::fusion::drop_shown(&shown, &mut fused, &settings);
            let whole = fused.len() == fused_all;
            (fused, shown, whole)
        });
        match run.await {
            Ok(done) => done,
            Err(e) => match e.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                // The runtime is shutting down: nothing to show.
                Err(_) => (Vec::new(), Vec::new(), false),
            },
        }
    }
}

/// The engine answers a page came from, and their whole fusion under the
/// page's settings when the page's fused list is that.
struct WalkedAnswers {
    gathered: Arc<Gathered>,
    whole: Option<Vec<crate::model::MergedResult>>,
}

/// Where a fused page lies: the fused list of one engine page, and how many
/// fused pages and results came before it.
#[derive(Debug)]
struct Walked {
    /// The engine page's answers.
    gathered: Arc<Gathered>,
    /// They came from the answers cache.
    from_cache: bool,
    /// Their fused list, without the results shown on earlier pages.
    fused: Vec<crate::model::MergedResult>,
    /// No result was left out of `fused` for being on an earlier page: it
    /// is the answers' whole fusion.
    whole: bool,
    /// The fused page number of its first result.
    first_page: u32,
    /// Fused results of the engine pages before it.
    before: usize,
    /// Distinct links the hostname rules removed from its answers.
    removed: usize,
}

impl Walked {
    /// Page `query.page` of `per_page` results.
    fn page(&self, query: &Query, per_page: usize) -> SearchResponse {
        let per_page = per_page.max(1);
        let offset = (query.page.max(1).saturating_sub(self.first_page) as usize)
            .saturating_mul(per_page)
            .min(self.fused.len());
        let end = offset.saturating_add(per_page).min(self.fused.len());
        let own_pages = u32::try_from(self.fused.len().div_ceil(per_page)).unwrap_or(u32::MAX);
        SearchResponse {
            query: query.clone(),
            results: self.fused[offset..end].to_vec(),
            total_results: self.before + self.fused.len(),
            pages: (self.first_page - 1).saturating_add(own_pages),
            engines: self.gathered.reports.clone(),
            suggestions: self.gathered.suggestions.clone(),
            estimate: self.gathered.estimate,
            time_range_dropped: self.gathered.time_range_dropped,
            elapsed_ms: 0,
            cached: false,
            broke_operators: self.gathered.broke_operators,
            hostnames_removed: self.removed,
            // The whole search's boxes and answers, on every page of it.
            infoboxes: crate::model::merge_infoboxes(self.gathered.infoboxes.clone(), query),
            answers: self.gathered.direct_answers.clone(),
            fetched_at_ms: self.gathered.fetched_at_ms,
        }
    }
}

/// The page itself when no one else holds it, else a copy.
fn owned(page: Arc<SearchResponse>) -> SearchResponse {
    Arc::try_unwrap(page).unwrap_or_else(|shared| (*shared).clone())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: an engine without a shortcut made the engine tables fail
    /// to serialize, so every configuration got the same tag and, after a
    /// reload, searches were answered from the old engines' cached answers
    /// (`tests/ops_serve_processes.rs` SIGHUP test, flaky once answers were cached).
    #[test]
    fn engine_tables_without_shortcuts_get_their_own_cache_tag() {
        let tag = |name: &str| {
            let text = format!(
                "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={{query}}\"\n"
            );
            let config = Config::parse(&text, std::path::Path::new("t.toml")).unwrap();
            Searcher::new(Arc::new(config), client_builder().build().unwrap())
                .inner
                .config_tag
        };
        assert_ne!(tag("a"), tag("b"));
        assert_eq!(tag("a"), tag("a"), "stable, so processes share entries");
    }
}
