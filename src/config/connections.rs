//! `[server.connections]`: what one client connection may cost the server —
//! how long it may take to send a request head and body, how long a
//! response may stall on a client that does not read, how many connections
//! are open at once, and how long a shutdown waits for the last ones.
//! `web::serve` enforces them; every key is optional.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Problem;

/// `[server.connections]`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectionsConfig {
    /// Seconds a client has to send a whole request head (request line and
    /// headers), counted from the moment the connection opens or its
    /// previous response ended: also the keep-alive idle timeout.
    pub header_timeout_s: u64,
    /// Seconds a client has to send a whole request body, counted from the
    /// end of its head.
    pub body_timeout_s: u64,
    /// Seconds a response may wait on a client that does not read it before
    /// the connection is dropped.
    pub send_timeout_s: u64,
    /// Client connections open at once; further clients wait in the
    /// listen backlog until one closes. Keep it well under `ulimit -n`:
    /// engines, Redis and the log need descriptors too.
    pub max_connections: usize,
    /// Seconds a shutdown (SIGTERM, Ctrl-C) waits for requests in flight;
    /// the connections still open then are dropped.
    pub shutdown_grace_s: u64,
}

impl Default for ConnectionsConfig {
    fn default() -> Self {
        ConnectionsConfig {
            header_timeout_s: 10,
            body_timeout_s: 30,
            send_timeout_s: 30,
            max_connections: 512,
            shutdown_grace_s: 10,
        }
    }
}

impl ConnectionsConfig {
    /// [`ConnectionsConfig::header_timeout_s`] as a duration.
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout_s)
    }

    /// [`ConnectionsConfig::body_timeout_s`] as a duration.
    pub fn body_timeout(&self) -> Duration {
        Duration::from_secs(self.body_timeout_s)
    }

    /// [`ConnectionsConfig::send_timeout_s`] as a duration.
    pub fn send_timeout(&self) -> Duration {
        Duration::from_secs(self.send_timeout_s)
    }

    /// [`ConnectionsConfig::shutdown_grace_s`] as a duration.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_s)
    }

    /// Values that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        let day = 86_400;
        for (key, value) in [
            ("header_timeout_s", self.header_timeout_s),
            ("body_timeout_s", self.body_timeout_s),
            ("send_timeout_s", self.send_timeout_s),
        ] {
            if !(1..=day).contains(&value) {
                out.push(Problem::at(
                    &[&["server", "connections", key], &["server", "connections"]],
                    format!("server.connections.{key}: must be 1 to {day} seconds, got {value}"),
                ));
            }
        }
        if self.shutdown_grace_s > 3600 {
            out.push(Problem::at(
                &[
                    &["server", "connections", "shutdown_grace_s"],
                    &["server", "connections"],
                ],
                format!(
                    "server.connections.shutdown_grace_s: at most 3600 seconds, got {}",
                    self.shutdown_grace_s
                ),
            ));
        }
        if !(1..=1_000_000).contains(&self.max_connections) {
            out.push(Problem::at(
                &[
                    &["server", "connections", "max_connections"],
                    &["server", "connections"],
                ],
                format!(
                    "server.connections.max_connections: must be 1 to 1000000, got {}",
                    self.max_connections
                ),
            ));
        }
    }
}
