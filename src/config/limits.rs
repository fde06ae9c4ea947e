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
    /// Trust `X-Forwarded-For` from a proxy on this host or a private
    /// network (loopback, 10/8, 172.16/12, 192.168/16, fc00::/7), as well
    /// as from `trusted_proxies`. The client is the rightmost hop that is
    /// not a trusted proxy: the one the proxy itself appended, never a hop
    /// the client wrote.
    pub trust_forwarded: bool,
    /// Proxies (addresses or CIDR ranges, `"203.0.113.7"`,
    /// `"10.1.0.0/16"`) whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<String>,
    /// IPv6 clients are counted by this prefix (a home or a host gets a
    /// whole /48 or /56 and could use a new address per request); 128 =
    /// every address alone. SearXNG's default is 48.
    pub ipv6_prefix: u8,
    /// `/lab` sweeps per minute per client (each costs seconds of CPU); 0
    /// turns that limit off.
    pub lab_per_minute: u32,
    /// `/lab` sweeps a client may start at once.
    pub lab_burst: u32,
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
            trusted_proxies: Vec::new(),
            ipv6_prefix: 48,
            lab_per_minute: 6,
            lab_burst: 3,
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

    /// The limits `/lab` sweeps run under: their own rate and burst.
    pub(crate) fn lab(&self) -> LimitsConfig {
        LimitsConfig {
            per_minute: self.lab_per_minute,
            burst: self.lab_burst,
            ..self.clone()
        }
    }

    /// The proxies whose `X-Forwarded-For` is believed, parsed (entries
    /// that do not parse are reported by [`LimitsConfig::problems`] and
    /// left out here).
    pub(crate) fn trusted_nets(&self) -> Vec<ipnet::IpNet> {
        let mut nets: Vec<ipnet::IpNet> = self
            .trusted_proxies
            .iter()
            .filter_map(|p| parse_net(p).ok())
            .collect();
        if self.trust_forwarded {
            nets.extend(
                [
                    "127.0.0.0/8",
                    "::1/128",
                    "10.0.0.0/8",
                    "172.16.0.0/12",
                    "192.168.0.0/16",
                    "fc00::/7",
                ]
                .iter()
                .filter_map(|n| n.parse::<ipnet::IpNet>().ok()),
            );
        }
        nets
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
        for p in &self.trusted_proxies {
            if let Err(why) = parse_net(p) {
                out.push(("trusted_proxies", format!("limits.trusted_proxies: {why}")));
            }
        }
        if !(1..=128).contains(&self.ipv6_prefix) {
            out.push((
                "ipv6_prefix",
                format!(
                    "limits.ipv6_prefix: must be 1 to 128, got {}",
                    self.ipv6_prefix
                ),
            ));
        }
        if self.lab_per_minute > 0 && self.lab_burst == 0 {
            out.push((
                "lab_burst",
                "limits.lab_burst: must be at least 1 when lab_per_minute is set".to_string(),
            ));
        }
        if self.lab_per_minute > 60_000 {
            out.push((
                "lab_per_minute",
                format!(
                    "limits.lab_per_minute: at most 60000 (0 turns the limit off), got {}",
                    self.lab_per_minute
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

/// An address (`203.0.113.7`, `::1`) or a CIDR range (`10.0.0.0/8`).
fn parse_net(text: &str) -> Result<ipnet::IpNet, String> {
    let t = text.trim();
    t.parse::<ipnet::IpNet>()
        .or_else(|_| t.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is not an address or a CIDR range like 10.0.0.0/8"))
}
