//! The Prometheus text exposition of `/metrics` (format 0.0.4).
//!
//! Rendered straight from the [`Health`] book under its lock, so one scrape
//! sees one consistent moment; the latency histogram uses the cumulative
//! buckets health keeps for this purpose ([`LATENCY_BUCKETS_MS`]), which
//! never forget, unlike the ring `/stats` takes percentiles from.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use super::health::{FAILURE_KINDS, Health, LATENCY_BUCKETS_MS};
use crate::model::FailureKind;

impl Health {
    /// The Prometheus text exposition (format 0.0.4) of every metric at `now`.
    pub fn render_prometheus(&self, now: SystemTime) -> String {
        let mut out = String::with_capacity(4096);
        let c = self.counters();
        let process: [(&str, &str, &AtomicU64); 10] = [
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
            (
                "metasift_stale_served_total",
                "Engine answers served stale while a background refresh asked again.",
                &c.stale_served,
            ),
            (
                "metasift_refreshes_total",
                "Background refreshes of stale engine answers.",
                &c.refreshes,
            ),
            (
                "metasift_fleet_coalesced_total",
                "Fan-outs left to another instance on the same Redis.",
                &c.fleet_coalesced,
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
        // `…_ratio` is Prometheus' suffix for a 0–1 share; the old name
        // is kept, marked deprecated, for dashboards made before (see
        // docs/decisions.md).
        for (metric, help) in [
            (
                "metasift_engine_success_ratio",
                "Share of successes among a member engine's recent requests (0-1).",
            ),
            (
                "metasift_engine_reliability",
                "Deprecated: the same as metasift_engine_success_ratio.",
            ),
        ] {
            family(&mut out, metric, "gauge", help);
            for (name, e) in engines.iter() {
                if let Some(r) = e.reliability() {
                    let _ = writeln!(out, "{metric}{{engine=\"{}\"}} {r}", escape_label(name));
                }
            }
        }
        drop(engines);
        let hits = c.cache_hits.load(Ordering::Relaxed);
        let misses = c.cache_misses.load(Ordering::Relaxed);
        if hits + misses > 0 {
            family(
                &mut out,
                "metasift_cache_hit_ratio",
                "gauge",
                "Share of searches answered from the cache since the start (0-1).",
            );
            let _ = writeln!(
                out,
                "metasift_cache_hit_ratio {}",
                hits as f64 / (hits + misses) as f64
            );
        }
        out
    }
}

/// The build of this binary: `metasift_build_info{version="…"} 1`.
pub fn render_build_info(out: &mut String) {
    let _ = writeln!(
        out,
        "# HELP metasift_build_info The running metasift's version (always 1).\n# TYPE metasift_build_info gauge\nmetasift_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
}

/// A gauge with one value, written only when known.
pub fn render_gauge(out: &mut String, name: &str, help: &str, value: Option<f64>) {
    if let Some(v) = value {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
    }
}

/// Upper bounds (seconds) of the HTTP request duration histogram.
const HTTP_BUCKETS_S: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// HTTP requests answered, by route (the route pattern, never the path
/// asked, so labels stay few) and status, with a duration histogram per
/// route. Lives as long as the process (a reload keeps it).
#[derive(Debug, Default)]
pub struct HttpMetrics {
    routes: Mutex<BTreeMap<String, RouteStats>>,
}

#[derive(Debug, Default, Clone)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    buckets: [u64; HTTP_BUCKETS_S.len()],
    count: u64,
    sum_s: f64,
}

impl HttpMetrics {
    /// Counts one answer of `route` with `status` that took `elapsed`.
    pub fn observe(&self, route: &str, status: u16, elapsed: Duration) {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        // The route's name is copied once, not per request.
        if !routes.contains_key(route) {
            routes.insert(route.to_string(), RouteStats::default());
        }
        let Some(r) = routes.get_mut(route) else {
            return;
        };
        *r.by_status.entry(status).or_default() += 1;
        let s = elapsed.as_secs_f64();
        if let Some(i) = HTTP_BUCKETS_S.iter().position(|b| s <= *b) {
            r.buckets[i] += 1;
        }
        r.count += 1;
        r.sum_s += s;
    }

    /// `metasift_http_requests_total{route,status}` and
    /// `metasift_http_request_duration_seconds{route}`.
    pub fn render(&self, out: &mut String) {
        let routes = self
            .routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let _ = writeln!(
            out,
            "# HELP metasift_http_requests_total HTTP requests answered, by route and status.\n# TYPE metasift_http_requests_total counter"
        );
        for (route, r) in &routes {
            for (status, n) in &r.by_status {
                let _ = writeln!(
                    out,
                    "metasift_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                    escape_label(route)
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP metasift_http_request_duration_seconds Time to answer an HTTP request (to its headers; a streamed body may go on).\n# TYPE metasift_http_request_duration_seconds histogram"
        );
        for (route, r) in &routes {
            let route = escape_label(route);
            let mut cumulative = 0;
            for (le, n) in HTTP_BUCKETS_S.iter().zip(r.buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "metasift_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "metasift_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}\nmetasift_http_request_duration_seconds_sum{{route=\"{route}\"}} {}\nmetasift_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                r.count, r.sum_s, r.count
            );
        }
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
    fn http_histogram_is_cumulative_and_counts_by_status() {
        let m = HttpMetrics::default();
        m.observe("/search", 200, Duration::from_millis(3));
        m.observe("/search", 200, Duration::from_millis(300));
        m.observe("/search", 429, Duration::from_millis(1));
        let mut out = String::new();
        m.render(&mut out);
        assert!(out.contains("metasift_http_requests_total{route=\"/search\",status=\"200\"} 2"));
        assert!(out.contains("metasift_http_requests_total{route=\"/search\",status=\"429\"} 1"));
        assert!(out.contains(
            "metasift_http_request_duration_seconds_bucket{route=\"/search\",le=\"0.005\"} 2"
        ));
        assert!(out.contains(
            "metasift_http_request_duration_seconds_bucket{route=\"/search\",le=\"0.5\"} 3"
        ));
        assert!(out.contains("metasift_http_request_duration_seconds_count{route=\"/search\"} 3"));
    }

    #[test]
    fn label_escaping() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
