//! The `[health]` table: when a failing member engine is suspended and for
//! how long. Plain numbers the admin writes; `ops::health` turns them
//! into the policy it applies (so config never depends on the ops layer).

use serde::{Deserialize, Serialize};

/// The `[health]` table of `engines.toml`: when a failing engine is
/// suspended and for how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HealthConfig {
    /// Consecutive ordinary failures (timeouts, network, HTTP 4xx/5xx,
    /// parse, too large) before the first suspension.
    pub failures_before_suspend: u32,
    /// The first suspension after them, in seconds; doubles with every
    /// further failure in a row.
    pub backoff_s: u64,
    /// The first suspension after a block (CAPTCHA, bot check) or an HTTP
    /// 429, in seconds: these suspend at the first occurrence.
    pub blocked_backoff_s: u64,
    /// The longest suspension, in seconds.
    pub max_backoff_s: u64,
    /// How many recent outcomes the reliability is computed over.
    pub reliability_window: usize,
}

impl Default for HealthConfig {
    /// The same numbers as `ops::health::HealthPolicy::default` (a test in
    /// `tests/ops.rs` keeps the two equal).
    fn default() -> Self {
        HealthConfig {
            failures_before_suspend: 3,
            backoff_s: 30,
            blocked_backoff_s: 300,
            max_backoff_s: 600,
            reliability_window: 100,
        }
    }
}

impl HealthConfig {
    /// Values that parse but cannot work, as `(key, message)`.
    pub(crate) fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.failures_before_suspend == 0 {
            out.push((
                "failures_before_suspend",
                "health.failures_before_suspend: must be at least 1".to_string(),
            ));
        }
        // A day is far beyond any sensible backoff; more is a typo (ms for s).
        const DAY: u64 = 86_400;
        for (key, v) in [
            ("backoff_s", self.backoff_s),
            ("blocked_backoff_s", self.blocked_backoff_s),
            ("max_backoff_s", self.max_backoff_s),
        ] {
            if !(1..=DAY).contains(&v) {
                out.push((
                    key,
                    format!("health.{key}: must be 1 to {DAY} seconds, got {v}"),
                ));
            }
        }
        // Judged only between valid values, so one typo is one error.
        if out.is_empty() && self.max_backoff_s < self.backoff_s.max(self.blocked_backoff_s) {
            out.push((
                "max_backoff_s",
                format!(
                    "health.max_backoff_s: {} is shorter than backoff_s ({}) or blocked_backoff_s ({})",
                    self.max_backoff_s, self.backoff_s, self.blocked_backoff_s
                ),
            ));
        }
        if !(1..=10_000).contains(&self.reliability_window) {
            out.push((
                "reliability_window",
                format!(
                    "health.reliability_window: must be 1 to 10000, got {}",
                    self.reliability_window
                ),
            ));
        }
        out
    }
}
