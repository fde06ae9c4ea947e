//! The fan-out: one query to every selected member engine at once, under
//! deadlines, gathered into one [`Gathered`] before dedup and fusion.
//!
//! Each engine gets `min(timeout_ms, [server] deadline_ms)`: since all start
//! together, the whole fan-out ends by the deadline whatever the engines do.
//! An engine suspended after repeated failures is not asked and is reported
//! as `suspended` with the time it comes back; every other outcome is
//! recorded in the shared [`crate::ops::health::Health`].
//!
//! An engine with an outbound budget (`max_per_minute`) is asked only when
//! its bucket ([`crate::ops::budget`]) has a request left; otherwise it is
//! not asked and reported as resting (`budget`), which says nothing about
//! its health — or, when the fan-out refreshes a cached answer, that
//! engine's answer in the cached one is kept.

use std::collections::BTreeSet;
use std::time::{Duration, Instant, SystemTime};

use super::fetch::{Failure, Outcome, Recording, Via, fetch};
use super::operators::OperatorCheck;
use super::{Searcher, millis};
use crate::fusion::EngineAnswer;
use crate::model::{
    Answer, EngineReport, EngineResult, Extra, FailureKind, Infobox, Query, SearchResponse,
    iframe_allowed, merge_infoboxes,
};
use crate::ops::cache::{Cacheable, json_weight};
use crate::ops::health::{self, Admission};
use metasift_dedup as dedup;

/// What one fan-out gathered, before dedup and fusion. Cached (as JSON in
/// Redis) under [`crate::ops::cache::answers_key`], so other dedup
/// settings re-fuse it.
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
    /// The largest result count an engine estimated for the query.
    #[serde(default)]
    pub estimate: Option<u64>,
    /// Results left out for breaking one of the query's operators.
    #[serde(default)]
    pub broke_operators: usize,
    /// Results dropped for lying outside the query's time range (or having
    /// no date), from engines whose dates are checked here
    /// ([`crate::engines::restrict::keep_in_range`]).
    #[serde(default)]
    pub time_range_dropped: usize,
    /// The engines' infoboxes, in configuration order, not yet merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub infoboxes: Vec<Infobox>,
    /// The engines' direct answers, without repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub direct_answers: Vec<Answer>,
}

impl Gathered {
    /// How long ago the fan-out ended (zero for a clock set back).
    pub(crate) fn age(&self) -> Duration {
        Duration::from_millis(unix_millis(SystemTime::now()).saturating_sub(self.fetched_at_ms))
    }

    /// Fuses these answers under `settings` into one whole fused list (every
    /// result, not one page of them) — the same answers can be fused again
    /// under other settings (the lab, and re-clustering on the results page)
    /// with no new fan-out.
    pub(crate) fn fuse_all(
        &self,
        query: &Query,
        settings: &dedup::Settings,
        fusion: &crate::config::FusionSettings,
        explain: bool,
    ) -> SearchResponse {
        let results = crate::fusion::fuse(&self.answers, settings, fusion, explain);
        SearchResponse {
            estimate: self.estimate,
            time_range_dropped: self.time_range_dropped,
            query: query.clone(),
            total_results: results.len(),
            pages: 1,
            results,
            engines: self.reports.clone(),
            suggestions: self.suggestions.clone(),
            elapsed_ms: 0,
            cached: false,
            broke_operators: self.broke_operators,
            hostnames_removed: 0,
            infoboxes: merge_infoboxes(self.infoboxes.clone(), query),
            answers: self.direct_answers.clone(),
            fetched_at_ms: self.fetched_at_ms,
        }
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
        json_weight(self, records * 5 + self.reports.len() * 2)
    }

    /// Engine answers may be served stale (`[cache] stale_s`).
    fn made_at_ms(&self) -> Option<u64> {
        (self.fetched_at_ms > 0).then_some(self.fetched_at_ms)
    }
}

fn unix_millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Searcher {
    /// The fan-out alone: every selected engine's parsed answer (or why
    /// there is none), before dedup and fusion. When it refreshes
    /// `previous` (a stale cached answer to the same query), an engine
    /// whose budget is spent keeps its answer there.
    pub(super) async fn gather(
        &self,
        query: &Query,
        selected: &[usize],
        progress: Option<super::Progress>,
        previous: Option<&Gathered>,
    ) -> Gathered {
        let started = Instant::now();
        let config = self.config();
        let outcomes = self.ask(query, selected, progress).await;
        let now = self.now();
        let mut time_range_dropped = 0;

        let mut answers = Vec::new();
        let mut reports = Vec::new();
        let mut suggestions: Vec<String> = Vec::new();
        let mut seen_suggestions = BTreeSet::new();
        let mut estimate: Option<u64> = None;
        let check = OperatorCheck::new(&query.operators);
        let mut broke_operators = 0;
        let mut infoboxes: Vec<Infobox> = Vec::new();
        let mut direct_answers: Vec<Answer> = Vec::new();
        let (mut kept_any, mut answered_afresh) = (false, false);
        for (i, outcome) in selected.iter().copied().zip(outcomes) {
            let ec = &config.engines[i];
            let kept = previous
                .filter(|_| {
                    outcome
                        .result
                        .as_ref()
                        .is_err_and(|f| f.kind == FailureKind::Budget)
                })
                .and_then(|p| p.answers.iter().find(|a| a.engine == ec.name));
            if let Some(kept) = kept {
                reports.push(EngineReport {
                    engine: ec.name.clone(),
                    elapsed_ms: 0,
                    results: kept.results.len(),
                    failure: None,
                    reason: Some("kept from the cached answer: outbound budget spent".to_string()),
                });
                answers.push(kept.clone());
                kept_any = true;
                continue;
            }
            match outcome.result {
                Ok(mut parsed) => {
                    answered_afresh = true;
                    let dropped;
                    (parsed.hits, dropped) = crate::engines::restrict::keep_in_range(
                        ec,
                        query,
                        std::mem::take(&mut parsed.hits),
                        now,
                    );
                    time_range_dropped += dropped;
                    reports.push(EngineReport {
                        engine: ec.name.clone(),
                        elapsed_ms: outcome.elapsed_ms,
                        results: parsed.hits.len(),
                        failure: None,
                        reason: None,
                    });
                    estimate = estimate.max(parsed.estimate);
                    for s in parsed.suggestions.into_iter().map(crate::model::clean_text) {
                        if !s.trim().is_empty() && seen_suggestions.insert(s.clone()) {
                            suggestions.push(s);
                        }
                    }
                    for mut b in parsed.infoboxes {
                        b.engine = ec.name.clone();
                        infoboxes.extend(b.sanitized());
                    }
                    for mut a in parsed.answers {
                        a.engine = ec.name.clone();
                        if let Some(a) = a.sanitized()
                            && !direct_answers.iter().any(|x| x.answer == a.answer)
                        {
                            direct_answers.push(a);
                        }
                    }
                    // The category asked for, where the engine serves several
                    // (Hacker News on the IT and the news tab).
                    let category = ec
                        .categories
                        .iter()
                        .find(|c| query.categories.contains(c))
                        .or(ec.categories.first())
                        .cloned()
                        .unwrap_or_default();
                    let own_host = own_host(ec);
                    answers.push(EngineAnswer {
                        engine: ec.name.clone(),
                        weight: ec.weight,
                        results: parsed
                            .hits
                            .into_iter()
                            // A `javascript:` or relative link from a broken
                            // or hostile parser must never become a result.
                            .filter(|hit| is_web_link(&hit.url))
                            .map(|hit| {
                                // An image is one item by its own link: several
                                // images of one page are several results.
                                let image_key = hit
                                    .extra
                                    .as_ref()
                                    .filter(|e| e.template == crate::model::Template::Images)
                                    .and_then(|e| e.img_src.clone())
                                    .filter(|u| is_web_link(u));
                                EngineResult {
                                    published: hit.published,
                                    thumbnail: hit.thumbnail.filter(|t| is_web_link(t)),
                                    key_url: hit.key_url.filter(|u| is_web_link(u)).or(image_key),
                                    display_url: hit.display_url.filter(|u| is_web_link(u)),
                                    extra: hit
                                        .extra
                                        .or_else(|| ec.template.map(|t| Box::new(Extra::new(t))))
                                        .map(|mut e| {
                                            let hosts: Vec<&str> =
                                                own_host.iter().map(String::as_str).collect();
                                            e.iframe_src = e
                                                .iframe_src
                                                .filter(|src| iframe_allowed(src, &hosts));
                                            e
                                        }),
                                    url: hit.url,
                                    title: hit.title,
                                    snippet: hit.snippet,
                                    engine: ec.name.clone(),
                                    position: 0,
                                    category: category.clone(),
                                }
                                .sanitized()
                            })
                            // A title of controls alone is no title.
                            .filter(|r| !r.title.trim().is_empty())
                            .take(MAX_RESULTS)
                            // Positions count what is left: the engine's
                            // list as if it had kept the operators.
                            .filter(|r| {
                                let keeps = check.keeps(r, &ec.operators);
                                broke_operators += usize::from(!keeps);
                                keeps
                            })
                            .enumerate()
                            .map(|(pos, r)| EngineResult {
                                position: u32::try_from(pos + 1).unwrap_or(u32::MAX),
                                ..r
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

        // Answers all kept from the cached ones are as old as they were:
        // the entry stays stale, and is refreshed again when budgets allow.
        let fetched_at_ms = match previous {
            Some(p) if kept_any && !answered_afresh => p.fetched_at_ms,
            _ => unix_millis(SystemTime::now()),
        };
        Gathered {
            answers,
            reports,
            suggestions,
            fetched_at_ms,
            elapsed_ms: millis(started.elapsed()),
            estimate,
            broke_operators,
            time_range_dropped,
            infoboxes,
            direct_answers,
        }
    }

    /// Asks every enabled engine `text` once, whatever its category, and
    /// reports how each fared (for `metasift check-config --probe`). Apart
    /// from [`Searcher::search`] because it checks the configuration, not a
    /// query: no cache, no category choice, every enabled engine's own answer.
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
        let outcomes = self.ask(&query, &selected, None).await;
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
    async fn ask(
        &self,
        query: &Query,
        selected: &[usize],
        progress: Option<super::Progress>,
    ) -> Vec<Outcome> {
        let budgets = &self.inner.budgets;
        let config = self.config();
        let deadline = Duration::from_millis(config.server.deadline_ms);
        let cap = config.server.max_body_bytes;
        let health = &self.inner.health;
        let now = self.now();
        // Blocks another instance met rest these engines here too.
        let shared = health.shared();
        if let Some(shared) = &shared {
            let names: Vec<&str> = selected
                .iter()
                .map(|&i| config.engines[i].name.as_str())
                .collect();
            let now = SystemTime::now();
            for (name, s) in names.iter().zip(shared.suspensions(&names, now).await) {
                if let Some(s) = s
                    && s.instance != shared.instance()
                    && health.adopt(name, &s, now)
                {
                    tracing::warn!(engine = %name, by = %s.instance, kind = %s.kind, until = %httpdate::fmt_http_date(s.until), "engine suspended: another instance met a block");
                }
            }
        }
        let futures = selected.iter().map(|&i| {
            let ec = &config.engines[i];
            let engine = self.inner.engines.get(i).cloned().flatten();
            let timeout = Duration::from_millis(ec.timeout_ms).min(deadline);
            let route =
                if engine.is_some() && ec.replay.is_none() && self.inner.replay_dir.is_none() {
                    self.inner.proxies.route(i, SystemTime::now())
                } else {
                    super::proxy::Route::Direct
                };
            let proxies = &self.inner.proxies;
            let client = self.inner.client.clone();
            let recording = Recording {
                record: self.inner.record_dir.clone(),
                replay: ec.replay.clone().or_else(|| self.inner.replay_dir.clone()),
            };
            let slots = self.inner.parse_slots.clone();
            let admission = health.admission(&ec.name, SystemTime::now());
            let progress = progress.clone();
            let name = ec.name.clone();
            let left_out = crate::engines::restrict::left_out(ec, query);
            let budget = ec.budget();
            async move {
                // A suspended engine is not asked: it takes nothing from
                // its budget either (nor one whose proxies all rest).
                let refused = match budget {
                    Some((per_minute, burst))
                        if engine.is_some()
                            && left_out.is_none()
                            && recording.replay.is_none()
                            && matches!(admission, Admission::Allowed)
                            && !matches!(route, super::proxy::Route::AllResting(_)) =>
                    {
                        !budgets.take(&name, per_minute, burst).await
                    }
                    _ => false,
                };
                let started = Instant::now();
                let parse_deadline = started + timeout;
                let result = match (engine, left_out) {
                    (_, Some((kind, why))) => Err(Failure::left_out(kind, why)),
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
                    (None, _) => Err(Failure::new(
                        FailureKind::Parse,
                        "engine could not be built from its configuration",
                    )),
                    (Some(_), None) if let super::proxy::Route::AllResting(until) = route => {
                        Err(Failure {
                            counts_for_health: false,
                            ..Failure::new(
                                FailureKind::Network,
                                format!(
                                    "not asked: every proxy of this engine rests until {}",
                                    httpdate::fmt_http_date(until)
                                ),
                            )
                        })
                    }
                    (Some(_), None) if refused => Err(Failure {
                        counts_for_health: false,
                        ..Failure::new(
                            FailureKind::Budget,
                            "the outbound budget (max_per_minute) is spent: asked again as it refills",
                        )
                    }),
                    (Some(engine), None) => {
                        let (client, proxy) = match route {
                            super::proxy::Route::Proxy(p, c) => (c, Some(p)),
                            _ => (client, None),
                        };
                        let result = match tokio::time::timeout(
                            timeout,
                            fetch(
                                Via {
                                    client: &client,
                                    proxy: proxy.is_some(),
                                },
                                engine,
                                query,
                                cap,
                                &recording,
                                slots,
                                parse_deadline,
                                now,
                            ),
                        )
                        .await
                        {
                            Ok(r) => r,
                            Err(_) => Err(Failure::new(
                                FailureKind::Timeout,
                                format!("no complete answer within {} ms", millis(timeout)),
                            )),
                        };
                        if let Some(p) = proxy {
                            let blamed = result.as_ref().err().filter(|f| f.by_proxy);
                            proxies.record(
                                p,
                                blamed.map_or(Ok(()), |f| Err(f.reason.as_str())),
                                SystemTime::now(),
                            );
                        }
                        result
                    }
                };
                let elapsed_ms = millis(started.elapsed());
                if let Some(tx) = progress {
                    // A listener that went away is no reason to stop.
                    let _ = tx.send(EngineReport {
                        engine: name,
                        elapsed_ms,
                        results: result.as_ref().map_or(0, |p| p.hits.len()),
                        failure: result.as_ref().err().map(|f| f.kind),
                        reason: result.as_ref().err().map(|f| f.reason.clone()),
                    });
                }
                Outcome { result, elapsed_ms }
            }
        });
        let outcomes = futures::future::join_all(futures).await;
        let now = SystemTime::now();
        for (&i, outcome) in selected.iter().zip(&outcomes) {
            let name = &config.engines[i].name;
            // One log line per failure (a suspended engine not asked is
            // not a failure: its suspension was logged when it began; nor
            // is a replayed engine without this query, which `replay`
            // logs at debug level).
            if outcome
                .result
                .as_ref()
                .is_err_and(|f| f.kind == FailureKind::Budget)
            {
                health.refused_for_budget(name);
                continue;
            }
            if let Err(f) = &outcome.result
                && !matches!(f.kind, FailureKind::Suspended | FailureKind::NotRecorded)
                && !f.kind.is_left_out()
            {
                tracing::warn!(engine = %name, kind = f.kind.as_str(), ms = outcome.elapsed_ms, "engine failed: {}", f.reason);
            }
            if outcome.result.as_ref().is_err_and(|f| !f.counts_for_health) {
                continue;
            }
            if let Err(f) = &outcome.result
                && f.kind != FailureKind::Suspended
            {
                health.note_failure(name, &f.reason, now);
            }
            let suspended = health.record(
                name,
                health::Outcome {
                    elapsed: Duration::from_millis(outcome.elapsed_ms),
                    results: outcome.result.as_ref().map_or(0, |p| p.hits.len()),
                    failure: outcome.result.as_ref().err().map(|f| f.kind),
                    retry_after: outcome.result.as_ref().err().and_then(|f| f.retry_after),
                },
                now,
            );
            if let Some(until) = suspended {
                let secs = until.duration_since(now).unwrap_or_default().as_secs();
                tracing::warn!(engine = %name, until = %httpdate::fmt_http_date(until), "engine suspended for {secs} s");
                // A block or a 429 is meant for the address every instance
                // leaves from: tell them.
                if let (Some(shared), Err(f)) = (&shared, &outcome.result)
                    && crate::ops::shared_health::is_shared_kind(f.kind)
                {
                    shared.publish(name, until, f.kind, now).await;
                }
            }
        }
        outcomes
    }
}

/// The most results read of one engine's answer: more than any engine
/// shows on a page (100 at most), so the work of fusing an answer is
/// bounded by its bytes whatever it holds.
pub(crate) const MAX_RESULTS: usize = 200;

/// The host of an engine's own request URL: a video engine (a PeerTube
/// instance) may embed its own player, and no other engine's.
fn own_host(ec: &crate::config::EngineConfig) -> Option<String> {
    let videos = ec.template == Some(crate::model::Template::Videos);
    videos
        .then(|| crate::engines::base_url(ec).ok())
        .flatten()
        .and_then(|u| u.host_str().map(str::to_string))
}

/// An absolute http(s) link.
fn is_web_link(link: &str) -> bool {
    url::Url::parse(link)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}
