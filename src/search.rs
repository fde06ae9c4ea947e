//! The fan-out: one query to every selected member engine at once, under
//! deadlines, then dedup and fusion.
//!
//! Every engine is asked concurrently through ONE shared [`reqwest::Client`]
//! (connection reuse, rustls, gzip/brotli, a bounded redirect chain). Each
//! engine gets `min(timeout_ms, [server] deadline_ms)`: since all start
//! together, the whole search ends by the deadline whatever the engines do.
//! An engine that does not answer in time, answers with an error status, a
//! body over the cap (`[server] max_body_bytes`, read as a stream so a huge
//! body is never held), a blocked page or garbage is reported in
//! [`SearchResponse::engines`] with a [`FailureKind`]; the others' results
//! are used. Parsing is CPU work, so it runs on the blocking pool and never
//! stalls the runtime's network threads.
//!
//! Around the fan-out sit the operational pieces (see [`crate::health`],
//! [`crate::cache`], [`crate::limit`]): an engine suspended after repeated
//! failures is not asked and is reported as `suspended` with the time it
//! comes back; every engine outcome is recorded in the shared [`Health`];
//! a search is answered from the cache when it can be — its fused page, or
//! else the engine answers of an earlier fan-out for the same query, fused
//! again under this search's dedup settings ([`Searcher::answers`]) — and
//! identical searches in flight share one fan-out. [`Searcher::try_search`] also
//! respects the `[limits] max_in_flight` cap and refuses the excess at once.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::StreamExt;

use crate::cache::{Cache, Cacheable, Source, answers_key, cache_key};
use crate::config::{Config, EngineConfig, ServerConfig};
use crate::engines::{Engine, Parsed};
use crate::fusion::{self, EngineAnswer};
use crate::health::{Admission, Counters, Health};
use crate::limit::{InFlight, Overloaded};
use crate::model::{EngineReport, EngineResult, FailureKind, Query, SearchResponse};
use crate::recording;
use metasift_dedup as dedup;

/// Most redirects followed before an engine is reported as failing: enough
/// for `http → https → www.` hops, short of any loop.
pub const MAX_REDIRECTS: usize = 5;

/// Per-search options that do not change which engines are asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchOptions {
    /// Dedup settings for this search (`method`, `os1`, `os2` from the query
    /// string); `None` = the configured ones.
    pub dedup: Option<dedup::Settings>,
    /// Fill `shared_codes` of every duplicate.
    pub explain: bool,
}

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

/// The shared HTTP client every engine request goes through.
pub fn http_client(server: &ServerConfig) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(server.user_agent.as_str())
        .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
        .connect_timeout(Duration::from_millis(server.deadline_ms.clamp(1, 10_000)))
        .pool_idle_timeout(Duration::from_secs(90))
        .tcp_nodelay(true)
        .build()
}

/// Builds the engine of one `[[engine]]` table with its kind's builder.
pub fn build_engine(config: &EngineConfig) -> Result<Arc<dyn Engine>, String> {
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
    /// The `[limits] max_in_flight` cap of [`Searcher::try_search`].
    in_flight: InFlight,
    /// Fingerprint of what shapes an answer besides the query (engines,
    /// page size), mixed into cache keys so a reload never serves answers
    /// of the old engines, while processes on one file share entries.
    config_tag: u64,
    /// Parses running at once: one per core. Parsing is pure CPU; more at
    /// once only slows each one and starves the threads that answer
    /// cached searches and 503s. A parse waiting here counts against its
    /// engine's timeout, so under overload engines time out instead of
    /// piling up.
    parse_slots: Arc<tokio::sync::Semaphore>,
}

impl Inner {
    fn build(
        config: Arc<Config>,
        client: reqwest::Client,
        engines: Vec<Option<Arc<dyn Engine>>>,
    ) -> Inner {
        let health = Health::new(config.health.policy());
        health.register(config.engines.iter().map(|e| e.name.clone()));
        let in_flight = InFlight::new(config.limits.max_in_flight);
        let shape = (&config.engines, config.server.results_per_page);
        // Never one tag for every configuration: were the JSON to fail, the
        // (deterministic: no hash maps) debug form stands in.
        let config_tag = xxhash_rust::xxh3::xxh3_64(
            &serde_json::to_vec(&shape).unwrap_or_else(|_| format!("{shape:?}").into_bytes()),
        );
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Inner {
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
            in_flight,
            config_tag,
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

    /// The same searcher answering from and storing into `cache`.
    pub fn with_cache(mut self, cache: Cache) -> Self {
        Arc::make_mut(&mut self.inner).cache = cache;
        self
    }

    /// The health book this searcher records into.
    pub fn health(&self) -> &Health {
        &self.inner.health
    }

    /// The cache this searcher uses.
    pub fn cache(&self) -> &Cache {
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

    /// Splits `!shortcut`, `!engine-name` and `!category` words and a
    /// `:lang` word off a raw query and returns the query to run. Words that
    /// name nothing known stay in the text (`!important` is a search term).
    pub fn parse_query(&self, raw: &str, page: u32) -> Query {
        let config = self.config();
        let mut engines: Vec<String> = Vec::new();
        let mut categories: Vec<String> = Vec::new();
        let mut lang = None;
        let mut words: Vec<&str> = Vec::new();
        for word in raw.split_whitespace() {
            if let Some(bang) = word.strip_prefix('!').filter(|b| !b.is_empty()) {
                if let Some(e) = config
                    .engines
                    .iter()
                    .find(|e| e.name == bang || e.shortcut.to_vec().iter().any(|s| s == bang))
                {
                    if !engines.contains(&e.name) {
                        engines.push(e.name.clone());
                    }
                    continue;
                }
                // `!social_media` names the category "social media".
                let spaced = bang.replace('_', " ");
                if let Some(c) = config
                    .engines
                    .iter()
                    .flat_map(|e| &e.categories)
                    .find(|c| **c == bang || **c == spaced)
                {
                    if !categories.contains(c) {
                        categories.push(c.clone());
                    }
                    continue;
                }
            }
            if let Some(code) = word.strip_prefix(':').filter(|c| is_lang_code(c)) {
                lang = Some(code.to_string());
                continue;
            }
            words.push(word);
        }
        Query {
            text: words.join(" "),
            page: page.max(1),
            lang,
            engines,
            categories,
            ..Query::default()
        }
    }

    /// The engines a query asks, in configuration order: the named ones
    /// (even if disabled: naming one is asking for it) plus the enabled
    /// engines of the named categories; with neither, the enabled engines
    /// of `general`.
    pub fn select(&self, query: &Query) -> Vec<usize> {
        let config = self.config();
        let default_category = ["general".to_string()];
        let categories: &[String] = if query.categories.is_empty() && query.engines.is_empty() {
            &default_category
        } else {
            &query.categories
        };
        config
            .engines
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                query.engines.contains(&e.name)
                    || (e.enabled && e.categories.iter().any(|c| categories.contains(c)))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Runs one search: from the cache, or joined to an identical search in
    /// flight, or fan-out under the deadline, dedup and fusion. Never
    /// refused (the command line and autocomplete use it).
    pub async fn search(&self, query: &Query, opts: &SearchOptions) -> SearchResponse {
        match self.cached(query, opts, false, None).await {
            Ok(r) => r,
            // Unreachable without a cap; total anyway.
            Err(Overloaded) => self.search_uncached(query, opts).await,
        }
    }

    /// [`Searcher::search`], but a search that would have to ask the
    /// engines while `[limits] max_in_flight` searches already do is
    /// refused at once (the web layer answers 503).
    pub async fn try_search(
        &self,
        query: &Query,
        opts: &SearchOptions,
    ) -> Result<SearchResponse, Overloaded> {
        self.cached(query, opts, true, None).await
    }

    /// [`Searcher::try_search`], also giving the engine answers the page
    /// was fused from, so they can be fused again under other settings
    /// (the comparison on the results page) with no new fan-out.
    pub async fn try_search_with_answers(
        &self,
        query: &Query,
        opts: &SearchOptions,
    ) -> Result<(SearchResponse, Arc<Gathered>), Overloaded> {
        let answers = match self.answers(query, true).await {
            Ok(a) => a,
            Err(Overloaded) => {
                let counters = self.inner.health.counters();
                Counters::bump(&counters.searches);
                Counters::bump(&counters.overloaded);
                return Err(Overloaded);
            }
        };
        let gathered = answers.0.clone();
        let response = self.cached(query, opts, true, Some(answers)).await?;
        Ok((response, gathered))
    }

    /// The engine answers to `query`, before dedup: from the cache (then
    /// `true`), joined to an identical fan-out in flight, or from a new
    /// fan-out — refused at once when `capped` and `[limits]
    /// max_in_flight` fan-outs are already running.
    pub async fn answers(
        &self,
        query: &Query,
        capped: bool,
    ) -> Result<(Arc<Gathered>, bool), Overloaded> {
        let key = format!("{}:{:016x}", answers_key(query), self.inner.config_tag);
        let this = self.clone();
        let query = query.clone();
        let (answer, source) = self
            .inner
            .cache
            .get_or_try_for(&key, move || async move {
                let _permit = if capped {
                    this.inner.in_flight.try_enter().ok_or(Overloaded)?
                } else {
                    None
                };
                Ok((this.gather(&query).await, Duration::MAX))
            })
            .await;
        answer.map(|g| (g, source == Source::Hit))
    }

    /// The fused page: from the cache, or joined to an identical search in
    /// flight, or fused from `answers` (when given) or from
    /// [`Searcher::answers`]. A page fused from cached answers is kept only
    /// as long as they have left, and counts as a cache hit.
    async fn cached(
        &self,
        query: &Query,
        opts: &SearchOptions,
        capped: bool,
        answers: Option<(Arc<Gathered>, bool)>,
    ) -> Result<SearchResponse, Overloaded> {
        let counters = self.inner.health.counters();
        Counters::bump(&counters.searches);
        let settings = opts.dedup.as_ref().unwrap_or(&self.config().dedup);
        let key = format!(
            "{}:{:016x}",
            cache_key(query, settings, opts.explain),
            self.inner.config_tag
        );
        let this = self.clone();
        let (query, opts) = (query.clone(), opts.clone());
        let (answer, source) = self
            .inner
            .cache
            .get_or_try_for(&key, move || async move {
                let started = Instant::now();
                let (gathered, from_cache) = match answers {
                    Some(a) => a,
                    None => this.answers(&query, capped).await?,
                };
                let mut response = this.fuse(&query, &gathered, &opts);
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
        Counters::bump(match source {
            Source::Hit => &counters.cache_hits,
            Source::Produced if answer.as_ref().is_ok_and(|r| r.cached) => &counters.cache_hits,
            Source::Produced => &counters.cache_misses,
            Source::Coalesced => &counters.coalesced,
        });
        counters.cache_errors.store(
            self.inner
                .cache
                .stats()
                .errors
                .load(std::sync::atomic::Ordering::Relaxed),
            std::sync::atomic::Ordering::Relaxed,
        );
        match answer {
            Ok(r) => Ok(Arc::try_unwrap(r).unwrap_or_else(|shared| (*shared).clone())),
            Err(Overloaded) => {
                Counters::bump(&counters.overloaded);
                Err(Overloaded)
            }
        }
    }

    /// Fan-out under the deadline, dedup, fusion: no cache.
    pub async fn search_uncached(&self, query: &Query, opts: &SearchOptions) -> SearchResponse {
        let started = Instant::now();
        let gathered = self.gather(query).await;
        let mut response = self.fuse(query, &gathered, opts);
        response.elapsed_ms = millis(started.elapsed());
        response
    }

    /// Fuses gathered answers with `opts`' dedup settings into one page of
    /// results — the same answers can be fused again under other settings
    /// (the lab, and re-clustering on the results page) with no new fan-out.
    pub fn fuse(&self, query: &Query, gathered: &Gathered, opts: &SearchOptions) -> SearchResponse {
        let config = self.config();
        let settings = opts.dedup.as_ref().unwrap_or(&config.dedup);
        let mut results = fusion::fuse(&gathered.answers, settings, opts.explain);
        results.truncate(config.server.results_per_page.max(1));
        SearchResponse {
            query: query.clone(),
            results,
            engines: gathered.reports.clone(),
            suggestions: gathered.suggestions.clone(),
            elapsed_ms: 0,
            cached: false,
        }
    }

    /// The fan-out alone: every selected engine's parsed answer (or why
    /// there is none), before dedup and fusion.
    pub async fn gather(&self, query: &Query) -> Gathered {
        let started = Instant::now();
        let config = self.config();
        let selected = self.select(query);
        let outcomes = self.ask(query, &selected).await;

        let mut answers = Vec::new();
        let mut reports = Vec::new();
        let mut suggestions: Vec<String> = Vec::new();
        let mut seen_suggestions = BTreeSet::new();
        for (i, outcome) in selected.iter().copied().zip(outcomes) {
            let ec = &config.engines[i];
            match outcome.result {
                Ok(parsed) => {
                    reports.push(EngineReport {
                        engine: ec.name.clone(),
                        elapsed_ms: outcome.elapsed_ms,
                        results: parsed.hits.len(),
                        failure: None,
                        reason: None,
                    });
                    for s in parsed.suggestions {
                        if seen_suggestions.insert(s.clone()) {
                            suggestions.push(s);
                        }
                    }
                    let category = ec.categories.first().cloned().unwrap_or_default();
                    answers.push(EngineAnswer {
                        engine: ec.name.clone(),
                        weight: ec.weight,
                        results: parsed
                            .hits
                            .into_iter()
                            // A `javascript:` or relative link from a broken
                            // or hostile parser must never become a result.
                            .filter(|hit| is_web_link(&hit.url) && !hit.title.trim().is_empty())
                            .enumerate()
                            .map(|(pos, hit)| EngineResult {
                                url: hit.url,
                                title: hit.title,
                                snippet: hit.snippet,
                                engine: ec.name.clone(),
                                position: u32::try_from(pos + 1).unwrap_or(u32::MAX),
                                category: category.clone(),
                            })
                            .collect(),
                    });
                }
                Err(failure) => reports.push(EngineReport {
                    engine: ec.name.clone(),
                    elapsed_ms: outcome.elapsed_ms,
                    results: 0,
                    failure: Some(failure.kind),
                    reason: Some(failure.reason),
                }),
            }
        }

        Gathered {
            answers,
            reports,
            suggestions,
            fetched_at_ms: unix_millis(SystemTime::now()),
            elapsed_ms: millis(started.elapsed()),
        }
    }

    /// Asks every enabled engine `text` once, whatever its category, and
    /// reports how each fared (for `metasift check-config --probe`).
    pub async fn probe(&self, text: &str) -> Vec<EngineReport> {
        let query = Query {
            text: text.trim().to_string(),
            page: 1,
            ..Query::default()
        };
        let config = self.config();
        let selected: Vec<usize> = (0..config.engines.len())
            .filter(|&i| config.engines[i].enabled)
            .collect();
        let outcomes = self.ask(&query, &selected).await;
        selected
            .iter()
            .zip(outcomes)
            .map(|(&i, o)| {
                let engine = config.engines[i].name.clone();
                match o.result {
                    Ok(parsed) => EngineReport {
                        engine,
                        elapsed_ms: o.elapsed_ms,
                        results: parsed.hits.len(),
                        failure: None,
                        reason: None,
                    },
                    Err(f) => EngineReport {
                        engine,
                        elapsed_ms: o.elapsed_ms,
                        results: 0,
                        failure: Some(f.kind),
                        reason: Some(f.reason),
                    },
                }
            })
            .collect()
    }

    /// Asks the engines at these indexes of `config.engines` at once and
    /// returns one outcome each, in the same order. Never takes longer than
    /// the deadline (plus scheduling noise).
    pub async fn ask(&self, query: &Query, selected: &[usize]) -> Vec<Outcome> {
        let config = self.config();
        let deadline = Duration::from_millis(config.server.deadline_ms);
        let cap = config.server.max_body_bytes;
        let health = &self.inner.health;
        let futures = selected.iter().map(|&i| {
            let ec = &config.engines[i];
            let engine = self.inner.engines.get(i).cloned().flatten();
            let budget = Duration::from_millis(ec.timeout_ms).min(deadline);
            let client = self.inner.client.clone();
            let recording = Recording {
                record: self.inner.record_dir.clone(),
                replay: ec.replay.clone().or_else(|| self.inner.replay_dir.clone()),
            };
            let slots = self.inner.parse_slots.clone();
            let admission = health.admission(&ec.name, SystemTime::now());
            async move {
                let started = Instant::now();
                let result = match engine {
                    _ if matches!(admission, Admission::Suspended { .. }) => {
                        let until = match admission {
                            Admission::Suspended { until } => until,
                            Admission::Allowed => SystemTime::now(),
                        };
                        Err(Failure::new(
                            FailureKind::Suspended,
                            format!(
                                "suspended after repeated failures; asked again after {}",
                                httpdate::fmt_http_date(until)
                            ),
                        ))
                    }
                    None => Err(Failure::new(
                        FailureKind::Parse,
                        "engine could not be built from its configuration",
                    )),
                    Some(engine) => {
                        match tokio::time::timeout(
                            budget,
                            fetch(&client, engine, query, cap, &recording, slots),
                        )
                        .await
                        {
                            Ok(r) => r,
                            Err(_) => Err(Failure::new(
                                FailureKind::Timeout,
                                format!("no complete answer within {} ms", millis(budget)),
                            )),
                        }
                    }
                };
                Outcome {
                    result,
                    elapsed_ms: millis(started.elapsed()),
                }
            }
        });
        let outcomes = futures::future::join_all(futures).await;
        let now = SystemTime::now();
        for (&i, outcome) in selected.iter().zip(&outcomes) {
            if outcome.result.as_ref().is_err_and(|f| !f.counts_for_health) {
                continue;
            }
            health.record(
                &config.engines[i].name,
                crate::health::Outcome {
                    elapsed: Duration::from_millis(outcome.elapsed_ms),
                    results: outcome.result.as_ref().map_or(0, |p| p.hits.len()),
                    failure: outcome.result.as_ref().err().map(|f| f.kind),
                },
                now,
            );
        }
        outcomes
    }
}

/// What one fan-out gathered, before dedup and fusion. Cached (as JSON in
/// Redis) under [`answers_key`], so other dedup settings re-fuse it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Gathered {
    /// The answers of the engines that answered, in configuration order.
    pub answers: Vec<EngineAnswer>,
    /// One report per engine asked.
    pub reports: Vec<EngineReport>,
    /// Suggestions, first seen first, without repeats.
    pub suggestions: Vec<String>,
    /// When the fan-out ended, in milliseconds since the Unix epoch (wall
    /// clock, so processes sharing a Redis agree on an entry's age).
    #[serde(default)]
    pub fetched_at_ms: u64,
    /// Milliseconds the fan-out took.
    #[serde(default)]
    pub elapsed_ms: u64,
}

impl Gathered {
    /// How long ago the fan-out ended (zero for a clock set back).
    pub fn age(&self) -> Duration {
        Duration::from_millis(unix_millis(SystemTime::now()).saturating_sub(self.fetched_at_ms))
    }
}

impl Cacheable for Gathered {
    /// Like a page: only when at least one engine answered.
    fn worth_storing(&self) -> bool {
        self.reports.iter().any(|r| r.failure.is_none())
    }

    fn mark_cached(&mut self) {}

    fn weight(&self) -> u32 {
        let records: usize = self.answers.iter().map(|a| a.results.len()).sum();
        crate::cache::json_weight(self, records * 5 + self.reports.len() * 2)
    }
}

fn unix_millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What asking one engine gave.
#[derive(Debug)]
pub struct Outcome {
    /// The parsed page, or why there is none.
    pub result: Result<Parsed, Failure>,
    /// Milliseconds from request to parsed answer or failure.
    pub elapsed_ms: u64,
}

/// Why an engine gave nothing usable, with a reason for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The kind, for counting.
    pub kind: FailureKind,
    /// A human-readable reason.
    pub reason: String,
    /// Whether it says anything about the engine's health. A replayed
    /// engine asked a query its recording does not hold has not failed: it
    /// was never asked, and suspending it would refuse the queries it does
    /// hold.
    pub counts_for_health: bool,
}

impl Failure {
    fn new(kind: FailureKind, reason: impl Into<String>) -> Self {
        Failure {
            kind,
            reason: reason.into(),
            counts_for_health: true,
        }
    }
}

/// Where an engine's answers come from and go to besides the network.
#[derive(Debug, Clone, Default)]
struct Recording {
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
}

/// An answer as received: status, headers and the body's bytes.
#[derive(Debug)]
struct RawAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawAnswer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request (or its recording), its body read under the cap, and its parse.
async fn fetch(
    client: &reqwest::Client,
    engine: Arc<dyn Engine>,
    query: &Query,
    cap: usize,
    recording: &Recording,
    parse_slots: Arc<tokio::sync::Semaphore>,
) -> Result<Parsed, Failure> {
    let spec = engine.build_request(query);
    let raw = match &recording.replay {
        Some(dir) => replay(dir, engine.config().name.clone(), query).await?,
        None => {
            let started = Instant::now();
            let raw = fetch_raw(client, &spec, cap).await?;
            if let Some(dir) = &recording.record {
                save_recording(dir, engine.config(), query, &spec, &raw, started.elapsed()).await;
            }
            raw
        }
    };
    let status = reqwest::StatusCode::from_u16(raw.status).map_err(|_| {
        Failure::new(
            FailureKind::Network,
            format!("invalid status {}", raw.status),
        )
    })?;
    if !status.is_success() {
        return Err(status_failure(status));
    }
    let content_type = raw.header("content-type").map(str::to_string);
    // Never closed, so acquiring only waits. The slot goes with the parse:
    // a search that times out meanwhile does not free it early.
    let slot = parse_slots.acquire_owned().await.ok();
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let text = crate::engines::decode_body_owned(raw.body, content_type.as_deref());
        engine.parse(&text)
    })
    .await
    .map_err(|_| Failure::new(FailureKind::Parse, "the parser crashed on this answer"))?
    .map_err(|e| Failure::new(e.kind(), e.to_string()))
}

/// The network part of [`fetch`]: the body is read as a stream and dropped
/// as soon as it passes the cap. Bodies of error statuses are read too (under
/// the same cap) so a recording keeps what the engine said.
async fn fetch_raw(
    client: &reqwest::Client,
    spec: &crate::engines::RequestSpec,
    cap: usize,
) -> Result<RawAnswer, Failure> {
    let mut request = client.get(&spec.url);
    for (name, value) in &spec.headers {
        request = request.header(name, value);
    }
    let response = request.send().await.map_err(|e| transport_failure(&e))?;
    let status = response.status();
    if let Some(len) = response.content_length()
        && len > cap as u64
    {
        return Err(if status.is_success() {
            too_large(cap)
        } else {
            status_failure(status)
        });
    }
    let headers = response
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    // Sized once when the engine says how much comes (no regrowth copies
    // of a megabyte page); never beyond the cap.
    let expected = response.content_length().unwrap_or(0).min(cap as u64);
    let mut body: Vec<u8> = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| transport_failure(&e))?;
        if body.len() + chunk.len() > cap {
            return Err(if status.is_success() {
                too_large(cap)
            } else {
                status_failure(status)
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawAnswer {
        status: status.as_u16(),
        headers,
        body,
    })
}

/// Reads the recorded answer of `engine` to `query` (file I/O off the runtime).
async fn replay(
    dir: &std::path::Path,
    engine: String,
    query: &Query,
) -> Result<RawAnswer, Failure> {
    let dir = dir.to_path_buf();
    let query = query.clone();
    let rec =
        tokio::task::spawn_blocking(move || recording::Recording::lookup(&dir, &engine, &query))
            .await
            .map_err(|_| Failure::new(FailureKind::Network, "reading the recording failed"))?
            .map_err(|e| {
                let missing = matches!(e, recording::RecordingError::Missing { .. });
                Failure {
                    counts_for_health: !missing,
                    ..Failure::new(FailureKind::Network, e.to_string())
                }
            })?;
    let body = rec
        .response
        .body_bytes()
        .map_err(|e| Failure::new(FailureKind::Parse, format!("recording: {e}")))?;
    Ok(RawAnswer {
        status: rec.response.status,
        headers: rec.response.headers,
        body,
    })
}

/// Saves one answer; a recording that cannot be written is logged, never a
/// failure of the search.
async fn save_recording(
    dir: &std::path::Path,
    engine: &EngineConfig,
    query: &Query,
    spec: &crate::engines::RequestSpec,
    raw: &RawAnswer,
    elapsed: Duration,
) {
    let rec = recording::Recording {
        format: recording::FORMAT.into(),
        engine: engine.name.clone(),
        query: recording::RecordedQuery::from(query),
        request: recording::RecordedRequest {
            method: "GET".into(),
            url: spec.url.clone(),
            headers: spec.headers.clone(),
        },
        response: recording::RecordedResponse::new(
            raw.status,
            raw.headers.clone(),
            millis(elapsed),
            &raw.body,
        ),
        recorded_at: httpdate::fmt_http_date(std::time::SystemTime::now()),
        source: None,
    };
    let dir = dir.to_path_buf();
    match tokio::task::spawn_blocking(move || rec.save(&dir)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(engine = %engine.name, error = %e, "recording not saved"),
        Err(e) => tracing::warn!(engine = %engine.name, error = %e, "recording not saved"),
    }
}

fn too_large(cap: usize) -> Failure {
    Failure::new(
        FailureKind::TooLarge,
        format!("answer larger than {cap} bytes"),
    )
}

/// The failure an unsuccessful status means.
pub fn status_failure(status: reqwest::StatusCode) -> Failure {
    let kind = if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
        FailureKind::TooManyRequests
    } else if status.is_client_error() {
        FailureKind::Http4xx
    } else if status.is_server_error() {
        FailureKind::Http5xx
    } else {
        // A 1xx/3xx that reqwest did not follow (no Location, 304, …).
        FailureKind::Network
    };
    let reason = match status.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    };
    Failure::new(kind, reason)
}

fn transport_failure(e: &reqwest::Error) -> Failure {
    if e.is_timeout() {
        return Failure::new(FailureKind::Timeout, "timed out");
    }
    if e.is_redirect() {
        return Failure::new(
            FailureKind::Network,
            format!("more than {MAX_REDIRECTS} redirects (a redirect loop?)"),
        );
    }
    // reqwest's top-level message is vague ("error sending request"); the
    // innermost cause says what happened ("connection refused").
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        reason = s.to_string();
        source = s.source();
    }
    let prefix = if e.is_connect() {
        "cannot connect: "
    } else {
        ""
    };
    Failure::new(FailureKind::Network, format!("{prefix}{reason}"))
}

/// An absolute http(s) link.
fn is_web_link(link: &str) -> bool {
    url::Url::parse(link)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `en`, `de-CH`, `zh-Hans-CN`: a BCP-47-looking code, so `:)` stays text.
fn is_lang_code(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_codes() {
        assert!(is_lang_code("en"));
        assert!(is_lang_code("zh-CN"));
        assert!(!is_lang_code(")"));
        assert!(!is_lang_code("e"));
        assert!(!is_lang_code("english"));
    }

    /// Regression: an engine without a shortcut made the engine tables fail
    /// to serialize, so every configuration got the same tag and, after a
    /// reload, searches were answered from the old engines' cached answers
    /// (`tests/ops_serve.rs` SIGHUP test, flaky once answers were cached).
    #[test]
    fn engine_tables_without_shortcuts_get_their_own_cache_tag() {
        let tag = |name: &str| {
            let text = format!(
                "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"http://127.0.0.1:9/?q={{query}}\"\n"
            );
            let config = Config::parse(&text, std::path::Path::new("t.toml")).unwrap();
            Searcher::new(Arc::new(config), reqwest::Client::new())
                .inner
                .config_tag
        };
        assert_ne!(tag("a"), tag("b"));
        assert_eq!(tag("a"), tag("a"), "stable, so processes share entries");
    }

    #[test]
    fn statuses_map_to_kinds() {
        use reqwest::StatusCode;
        assert_eq!(
            status_failure(StatusCode::TOO_MANY_REQUESTS).kind,
            FailureKind::TooManyRequests
        );
        assert_eq!(
            status_failure(StatusCode::FORBIDDEN).kind,
            FailureKind::Http4xx
        );
        let f = status_failure(StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(f.kind, FailureKind::Http5xx);
        assert_eq!(f.reason, "HTTP 503 Service Unavailable");
    }
}
