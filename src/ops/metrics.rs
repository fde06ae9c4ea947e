//! The Prometheus text exposition of `/metrics` (format 0.0.4).
//!
//! Rendered straight from the [`Health`] book under its lock, so one scrape
//! sees one consistent moment; the latency histogram uses the cumulative
//! buckets health keeps for this purpose ([`LATENCY_BUCKETS_MS`]), which
//! never forget, unlike the ring `/stats` takes percentiles from.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use super::health::{FAILURE_KINDS, Health, LATENCY_BUCKETS_MS};
use crate::model::FailureKind;

impl Health {
    /// The Prometheus text exposition (format 0.0.4) of every metric at `now`.
    pub fn render_prometheus(&self, now: SystemTime) -> String {
        let mut out = String::with_capacity(4096);
        let c = self.counters();
        let process: [(&str, &str, &AtomicU64); 7] = [
            (
                "metasift_searches_total",
                "Searches asked for, cached or not.",
                &c.searches,
            ),
            (
                "metasift_cache_hits_total",
                "Searches answered from the cache.",
                &c.cache_hits,
            ),
            (
                "metasift_cache_misses_total",
                "Searches that missed the cache.",
                &c.cache_misses,
            ),
            (
                "metasift_coalesced_total",
                "Searches served by an identical search already in flight.",
                &c.coalesced,
            ),
            (
                "metasift_cache_errors_total",
                "Cache operations skipped because the backend failed.",
                &c.cache_errors,
            ),
            (
                "metasift_rate_limited_total",
                "Requests refused with 429 by the per-client rate limit.",
                &c.rate_limited,
            ),
            (
                "metasift_overloaded_total",
                "Requests refused with 503 because too many searches were in flight.",
                &c.overloaded,
            ),
        ];
        for (name, help, value) in process {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            let _ = writeln!(out, "{name} {}", value.load(Ordering::Relaxed));
        }

        let engines = self.lock();
        let family = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        family(
            &mut out,
            "metasift_engine_requests_total",
            "counter",
            "Requests sent to a member engine.",
        );
        for (name, e) in engines.iter() {
            let _ = writeln!(
                out,
                "metasift_engine_requests_total{{engine=\"{}\"}} {}",
                escape_label(name),
                e.requests
            );
        }
        family(
            &mut out,
            "metasift_engine_results_total",
            "counter",
            "Results parsed from a member engine's answers.",
        );
        for (name, e) in engines.iter() {
            let _ = writeln!(
                out,
                "metasift_engine_results_total{{engine=\"{}\"}} {}",
                escape_label(name),
                e.results
            );
        }
        family(
            &mut out,
            "metasift_engine_errors_total",
            "counter",
            "Failed requests to a member engine, by kind (suspended = not asked).",
        );
        for (name, e) in engines.iter() {
            for (kind, n) in FAILURE_KINDS.iter().zip(e.errors) {
                let n = if *kind == FailureKind::Suspended {
                    e.skipped
                } else {
                    n
                };
                let _ = writeln!(
                    out,
                    "metasift_engine_errors_total{{engine=\"{}\",kind=\"{}\"}} {n}",
                    escape_label(name),
                    kind.as_str()
                );
            }
        }
        family(
            &mut out,
            "metasift_engine_latency_seconds",
            "histogram",
            "Time from request to parsed answer or failure.",
        );
        for (name, e) in engines.iter() {
            let name = escape_label(name);
            let mut cumulative = 0;
            for (le, n) in LATENCY_BUCKETS_MS.iter().zip(e.buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "metasift_engine_latency_seconds_bucket{{engine=\"{name}\",le=\"{}\"}} {cumulative}",
                    *le as f64 / 1000.0
                );
            }
            let _ = writeln!(
                out,
                "metasift_engine_latency_seconds_bucket{{engine=\"{name}\",le=\"+Inf\"}} {}",
                e.latency_count
            );
            let _ = writeln!(
                out,
                "metasift_engine_latency_seconds_sum{{engine=\"{name}\"}} {}",
                e.latency_sum_ms as f64 / 1000.0
            );
            let _ = writeln!(
                out,
                "metasift_engine_latency_seconds_count{{engine=\"{name}\"}} {}",
                e.latency_count
            );
        }
        family(
            &mut out,
            "metasift_engine_suspended",
            "gauge",
            "1 while a member engine is suspended after repeated failures.",
        );
        for (name, e) in engines.iter() {
            let _ = writeln!(
                out,
                "metasift_engine_suspended{{engine=\"{}\"}} {}",
                escape_label(name),
                u8::from(e.suspended_at(now).is_some())
            );
        }
        family(
            &mut out,
            "metasift_engine_reliability",
            "gauge",
            "Share of successes among a member engine's recent requests.",
        );
        for (name, e) in engines.iter() {
            if let Some(r) = e.reliability() {
                let _ = writeln!(
                    out,
                    "metasift_engine_reliability{{engine=\"{}\"}} {r}",
                    escape_label(name)
                );
            }
        }
        out
    }
}

/// Escapes a Prometheus label value (`\`, `"` and newlines).
fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_escaping() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
