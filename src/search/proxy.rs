//! Proxies engine requests go through (`[outgoing] proxies`, an engine's
//! own `proxy`): one HTTP client per proxy, built once, taken in turn per
//! request; a proxy that fails (cannot be reached, refuses the
//! credentials with a 407, answers 502/503 for the engine) rests like an
//! engine does, and the next one in the pool carries the later requests.
//! Each proxy is known by its scheme, host and port: its credentials are
//! never shown or logged.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::config::{Config, OneOrMany, redact_proxy};
use crate::ops::health::HealthPolicy;

/// One proxy: its client and what it did lately.
#[derive(Debug)]
struct Entry {
    /// `scheme://host:port`, without credentials.
    label: String,
    /// `None` when reqwest refused the proxy (then it is never used).
    client: Option<reqwest::Client>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    requests: u64,
    failures: u64,
    consecutive: u32,
    resting_until: Option<SystemTime>,
    last_error: Option<String>,
}

/// The proxies of one searcher and which engine goes through which.
#[derive(Debug, Default)]
pub(crate) struct Proxies {
    entries: Vec<Entry>,
    /// Per engine (configuration order): the indexes of its proxies in
    /// `entries` (empty: direct), and the turn counter.
    routes: Vec<(Vec<usize>, AtomicUsize)>,
    policy: HealthPolicy,
}

/// How one request leaves.
pub(crate) enum Route {
    /// Through the searcher's own client.
    Direct,
    /// Through this proxy (its index) and client.
    Proxy(usize, reqwest::Client),
    /// Every proxy of the engine rests: not asked.
    AllResting(SystemTime),
}

impl Proxies {
    /// The proxies `config` names, a client each (the same settings as the
    /// direct one, [`super::fetch::http_client`]).
    pub(crate) fn build(config: &Config) -> Proxies {
        let mut urls: Vec<String> = Vec::new();
        let mut index = |u: &String| match urls.iter().position(|x| x == u) {
            Some(i) => i,
            None => {
                urls.push(u.clone());
                urls.len() - 1
            }
        };
        let shared: Vec<usize> = config.outgoing.proxies.iter().map(&mut index).collect();
        let routes = config
            .engines
            .iter()
            .map(|e| {
                let own = match &e.proxy {
                    OneOrMany::None => shared.clone(),
                    p => p.to_vec().iter().map(&mut index).collect(),
                };
                (own, AtomicUsize::new(0))
            })
            .collect();
        let entries = urls
            .iter()
            .map(|u| {
                let label = redact_proxy(u);
                let client = reqwest::Proxy::all(u.as_str())
                    .and_then(|p| super::fetch::http_client_via(&config.server, Some(p)));
                let client = match client {
                    Ok(c) => Some(c),
                    Err(e) => {
                        tracing::warn!(proxy = %label, error = %e, "proxy left out");
                        None
                    }
                };
                Entry {
                    label,
                    client,
                    state: Mutex::new(State::default()),
                }
            })
            .collect();
        Proxies {
            entries,
            routes,
            policy: HealthPolicy::from(&config.health),
        }
    }

    /// The route of the next request of engine `i` at `now`: its proxies in
    /// turn, skipping those that rest.
    pub(crate) fn route(&self, i: usize, now: SystemTime) -> Route {
        let Some((pool, turn)) = self.routes.get(i) else {
            return Route::Direct;
        };
        if pool.is_empty() {
            return Route::Direct;
        }
        let start = turn.fetch_add(1, Ordering::Relaxed);
        let mut soonest: Option<SystemTime> = None;
        for k in 0..pool.len() {
            let p = pool[(start + k) % pool.len()];
            let entry = &self.entries[p];
            let Some(client) = &entry.client else {
                continue;
            };
            let state = entry.state.lock().unwrap_or_else(|e| e.into_inner());
            match state.resting_until {
                Some(until) if until > now => {
                    soonest = Some(soonest.map_or(until, |s| s.min(until)));
                }
                _ => return Route::Proxy(p, client.clone()),
            }
        }
        Route::AllResting(soonest.unwrap_or(now + self.policy.base_backoff))
    }

    /// Records what a request through proxy `p` gave: `Err` with why when
    /// the proxy failed it (it then rests), `Ok` otherwise.
    pub(crate) fn record(&self, p: usize, outcome: Result<(), &str>, now: SystemTime) {
        let Some(entry) = self.entries.get(p) else {
            return;
        };
        let mut s = entry.state.lock().unwrap_or_else(|e| e.into_inner());
        s.requests += 1;
        match outcome {
            Ok(()) => {
                s.consecutive = 0;
                s.resting_until = None;
            }
            Err(why) => {
                s.failures += 1;
                s.consecutive = s.consecutive.saturating_add(1);
                // Proxies stand in for each other: one rests from its first
                // failure, twice as long each time in a row.
                let factor = 1u32
                    .checked_shl(s.consecutive.saturating_sub(1).min(20))
                    .unwrap_or(u32::MAX);
                let rest = self
                    .policy
                    .base_backoff
                    .checked_mul(factor)
                    .unwrap_or(self.policy.max_backoff)
                    .min(self.policy.max_backoff.max(self.policy.base_backoff))
                    .max(Duration::from_secs(1));
                s.resting_until = Some(now + rest);
                s.last_error = Some(why.chars().take(200).collect());
                tracing::warn!(proxy = %entry.label, rest_s = rest.as_secs(), "proxy failed, resting: {why}");
            }
        }
    }

    /// Every proxy's line for `/stats`, at `now`.
    pub(crate) fn snapshot(&self, now: SystemTime) -> Vec<ProxySnapshot> {
        self.entries
            .iter()
            .map(|e| {
                let s = e.state.lock().unwrap_or_else(|e| e.into_inner());
                let until = s.resting_until.filter(|u| *u > now);
                ProxySnapshot {
                    proxy: e.label.clone(),
                    usable: e.client.is_some(),
                    requests: s.requests,
                    failures: s.failures,
                    resting: until.is_some(),
                    resting_until: until.map(httpdate::fmt_http_date),
                    resting_for_s: until.map(|u| {
                        u.duration_since(now)
                            .unwrap_or_default()
                            .as_secs_f64()
                            .ceil() as u64
                    }),
                    last_error: s.last_error.clone(),
                }
            })
            .collect()
    }
}

/// One proxy's line on `/stats` (never its credentials).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProxySnapshot {
    /// `scheme://host:port`.
    pub proxy: String,
    /// Whether a client could be built for it.
    pub usable: bool,
    /// Requests sent through it.
    pub requests: u64,
    /// Requests it failed.
    pub failures: u64,
    /// Whether it rests now.
    pub resting: bool,
    /// Until when (HTTP date).
    pub resting_until: Option<String>,
    /// Seconds left of its rest.
    pub resting_for_s: Option<u64>,
    /// What its last failure said.
    pub last_error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn engines_take_their_proxies_in_turn_and_skip_a_resting_one() {
        let c = config(
            "[outgoing]\nproxies = [\"http://a.example:1\", \"socks5://u:secret@b.example:2\"]\n\
             [[engine]]\nname = \"pooled\"\nkind = \"feed\"\nurl = \"https://x.example/?q={query}\"\n\
             [[engine]]\nname = \"own\"\nkind = \"feed\"\nurl = \"https://y.example/?q={query}\"\nproxy = \"http://c.example:3\"\n\
             [[engine]]\nname = \"direct\"\nkind = \"feed\"\nurl = \"https://z.example/?q={query}\"\nproxy = []\n",
        );
        let p = Proxies::build(&c);
        let now = SystemTime::now();
        let pick = |i| match p.route(i, now) {
            Route::Proxy(k, _) => Some(k),
            Route::Direct => None,
            Route::AllResting(_) => Some(usize::MAX),
        };
        assert_eq!((pick(0), pick(0), pick(0)), (Some(0), Some(1), Some(0)));
        assert_eq!(pick(1), Some(2));
        assert_eq!(pick(2), None);
        p.record(1, Err("cannot connect"), now);
        assert_eq!((pick(0), pick(0)), (Some(0), Some(0)));
        p.record(0, Err("HTTP 407"), now);
        assert!(matches!(p.route(0, now), Route::AllResting(_)));
        // The rest ends: asked again.
        let later = now + Duration::from_secs(3600);
        assert!(matches!(p.route(0, later), Route::Proxy(..)));
        let shown = p.snapshot(now);
        assert_eq!(shown.len(), 3);
        assert_eq!(shown[1].proxy, "socks5://b.example:2");
        assert!(shown[1].resting && shown[1].failures == 1);
        assert!(!format!("{shown:?}").contains("secret"));
    }
}
