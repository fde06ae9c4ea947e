//! The `[limits]` table: the per-client rate limits and the cap on searches
//! in flight. Plain numbers; `ops::limit` enforces them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The `[limits]` table of `engines.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Sustained searches per minute per client; 0 turns the rate limit off.
    pub per_minute: u32,
    /// Searches a client may run at once before the rate applies.
    pub burst: u32,
    /// Concurrent uncached searches across all clients; excess gets 503.
    /// 0 = no cap.
    pub max_in_flight: usize,
    /// Take the client from the first `X-Forwarded-For` hop (only behind a
    /// proxy that sets it; otherwise clients could pick their own address).
    pub trust_forwarded: bool,
    /// `/autocomplete` requests per minute per client, a budget of its own
    /// (a browser asks on every keystroke); 0 turns that limit off.
    pub autocomplete_per_minute: u32,
    /// `/autocomplete` requests a client may make at once.
    pub autocomplete_burst: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            per_minute: 60,
            burst: 20,
            max_in_flight: 64,
            trust_forwarded: false,
            autocomplete_per_minute: 300,
            autocomplete_burst: 30,
        }
    }
}

impl LimitsConfig {
    /// The limits `/autocomplete` runs under: its own rate and burst.
    pub(crate) fn autocomplete(&self) -> LimitsConfig {
        LimitsConfig {
            per_minute: self.autocomplete_per_minute,
            burst: self.autocomplete_burst,
            ..self.clone()
        }
    }

    /// `T`, the time one search "costs"; `None` when the limit is off.
    pub(crate) fn emission_interval(&self) -> Option<Duration> {
        (self.per_minute > 0).then(|| Duration::from_secs(60) / self.per_minute)
    }

    /// Values that parse but cannot work, as `(key, message)`.
    pub(crate) fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.per_minute > 0 && self.burst == 0 {
            out.push((
                "burst",
                "limits.burst: must be at least 1 when per_minute is set".to_string(),
            ));
        }
        if self.per_minute > 60_000 {
            out.push((
                "per_minute",
                format!(
                    "limits.per_minute: at most 60000 (0 turns the limit off), got {}",
                    self.per_minute
                ),
            ));
        }
        if self.autocomplete_per_minute > 0 && self.autocomplete_burst == 0 {
            out.push((
                "autocomplete_burst",
                "limits.autocomplete_burst: must be at least 1 when autocomplete_per_minute is set"
                    .to_string(),
            ));
        }
        if self.autocomplete_per_minute > 60_000 {
            out.push((
                "autocomplete_per_minute",
                format!(
                    "limits.autocomplete_per_minute: at most 60000 (0 turns the limit off), got {}",
                    self.autocomplete_per_minute
                ),
            ));
        }
        out
    }
}
