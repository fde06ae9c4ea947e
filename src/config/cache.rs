//! `[cache]`: where fused results and the engine answers they came from are
//! kept (in process, or a shared Redis) and for how long.

use serde::{Deserialize, Serialize};

use super::Problem;

/// Cache backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheBackend {
    /// In-process, bounded.
    #[default]
    Memory,
    /// Shared Redis.
    Redis,
}

/// `[cache]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Backend.
    pub backend: CacheBackend,
    /// Redis URL when `backend = "redis"`: one node (`redis://`,
    /// `rediss://`, `unix://`), a primary found through Sentinel
    /// (`redis+sentinel://h1:26379,h2:26379/service[/db]`) or a Cluster
    /// (`redis+cluster://h1:6379,h2:6379,h3:6379`); see [`RedisTarget`].
    pub url: String,
    /// Seconds a fused result (and the engine answers it came from) stays cached.
    pub ttl_s: u64,
    /// Seconds past `ttl_s` the engine answers are still kept: such a stale
    /// entry answers at once and is refreshed in the background; 0 = none.
    pub stale_s: u64,
    /// Memory backend: approximate megabytes of results kept at most.
    pub memory_mb: u64,
    /// Redis backend: approximate megabytes of the in-process cache in
    /// front of Redis (read first, written with Redis), which keeps this
    /// process caching while Redis is gone; 0 = none.
    pub front_mb: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            backend: CacheBackend::Memory,
            url: "redis://127.0.0.1:6379/".into(),
            ttl_s: 300,
            stale_s: 3600,
            memory_mb: 64,
            front_mb: 16,
        }
    }
}

impl CacheConfig {
    /// Values of `[cache]` that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        if self.backend == CacheBackend::Redis
            && let Err(m) = RedisTarget::parse(&self.url)
        {
            out.push(Problem::at(
                &[&["cache", "url"], &["cache", "backend"]],
                format!("cache.url: {m}"),
            ));
        }
    }
}

/// Where the Redis of `[cache] url` is, and how it survives a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisTarget {
    /// One node: `redis://`, `rediss://` or `unix://` (the URL as given).
    Single(String),
    /// A primary and its replicas watched by Sentinels:
    /// `redis+sentinel://[user:password@]host[:port][,host[:port]…]/service[/db]`
    /// (port 26379 by default). The credentials are the data nodes' and
    /// the Sentinels' alike.
    Sentinel {
        /// The Sentinels, `(host, port)`.
        sentinels: Vec<(String, u16)>,
        /// The name the Sentinels know the primary by (`mymaster`).
        service: String,
        /// The database number.
        db: i64,
        /// User name, when one is given.
        username: Option<String>,
        /// Password, when one is given.
        password: Option<String>,
    },
    /// A Redis Cluster, found from any of its nodes:
    /// `redis+cluster://[user:password@]host[:port][,host[:port]…]`
    /// (port 6379 by default).
    Cluster {
        /// Nodes to learn the cluster from, `(host, port)`.
        nodes: Vec<(String, u16)>,
        /// User name, when one is given.
        username: Option<String>,
        /// Password, when one is given.
        password: Option<String>,
    },
}

impl RedisTarget {
    /// Reads a `[cache] url`; the error says what is wrong without
    /// repeating a password.
    pub fn parse(url: &str) -> Result<RedisTarget, String> {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        match scheme {
            "redis" | "rediss" | "unix" if url::Url::parse(url).is_ok() => {
                Ok(RedisTarget::Single(url.to_string()))
            }
            "redis+sentinel" => {
                let (auth, hosts, path) = split_many(rest, 26379)?;
                let mut parts = path.split('/').filter(|p| !p.is_empty());
                let service = parts
                    .next()
                    .ok_or("a redis+sentinel:// URL names the primary after the hosts (/mymaster)")?
                    .to_string();
                let db = match parts.next() {
                    None => 0,
                    Some(d) => d.parse::<i64>().ok().filter(|d| *d >= 0).ok_or_else(|| {
                        format!("the database after /{service}/ is a number, got {d:?}")
                    })?,
                };
                if parts.next().is_some() {
                    return Err("a redis+sentinel:// URL ends with /service or /service/db".into());
                }
                Ok(RedisTarget::Sentinel {
                    sentinels: hosts,
                    service,
                    db,
                    username: auth.0,
                    password: auth.1,
                })
            }
            "redis+cluster" => {
                let (auth, hosts, path) = split_many(rest, 6379)?;
                if !path.trim_matches('/').is_empty() {
                    return Err(
                        "a redis+cluster:// URL has no path (a cluster has one database)".into(),
                    );
                }
                Ok(RedisTarget::Cluster {
                    nodes: hosts,
                    username: auth.0,
                    password: auth.1,
                })
            }
            _ => Err(format!(
                "{:?} is not a redis://, rediss://, unix://, redis+sentinel:// or redis+cluster:// URL",
                super::redact_proxy(url)
            )),
        }
    }
}

type Auth = (Option<String>, Option<String>);

/// What [`split_many`] reads: credentials, `(host, port)`s and the path.
type Parts<'a> = (Auth, Vec<(String, u16)>, &'a str);

/// `[user[:password]@]h1[:p1],h2[:p2][/path]` into the credentials
/// (percent-decoded), the hosts and the path.
fn split_many(rest: &str, default_port: u16) -> Result<Parts<'_>, String> {
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (auth, hosts) = match authority.rsplit_once('@') {
        Some((auth, hosts)) => {
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8()
                    .map(|c| c.into_owned())
                    .map_err(|_| "the credentials are not UTF-8 once decoded".to_string())
            };
            let (user, password) = match auth.split_once(':') {
                Some((u, p)) => (decode(u)?, Some(decode(p)?)),
                None => (decode(auth)?, None),
            };
            ((Some(user).filter(|u| !u.is_empty()), password), hosts)
        }
        None => ((None, None), authority),
    };
    let mut out = Vec::new();
    for h in hosts.split(',') {
        let h = h.trim();
        let (host, port) = match h.rsplit_once(':') {
            Some((host, port))
                if !host.ends_with(':') && (host.starts_with('[') || !host.contains(':')) =>
            {
                let port = port
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| format!("{h:?} has no valid port"))?;
                (host, port)
            }
            _ => (h, default_port),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains(['/', '@', ' ']) {
            return Err(format!("{h:?} is not host[:port]"));
        }
        out.push((host.to_string(), port));
    }
    Ok((auth, out, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_urls_of_one_node_sentinel_and_cluster() {
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:6379/"),
            Ok(RedisTarget::Single("redis://127.0.0.1:6379/".into()))
        );
        assert_eq!(
            RedisTarget::parse("redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster/2"),
            Ok(RedisTarget::Sentinel {
                sentinels: vec![("127.0.0.1".into(), 26379), ("127.0.0.1".into(), 26380)],
                service: "mymaster".into(),
                db: 2,
                username: None,
                password: None,
            })
        );
        assert_eq!(
            RedisTarget::parse("redis+sentinel://:p%40ss@s1,[::1]:26380/m"),
            Ok(RedisTarget::Sentinel {
                sentinels: vec![("s1".into(), 26379), ("::1".into(), 26380)],
                service: "m".into(),
                db: 0,
                username: None,
                password: Some("p@ss".into()),
            })
        );
        assert_eq!(
            RedisTarget::parse("redis+cluster://u:pw@h1:7000,h2:7001,h3"),
            Ok(RedisTarget::Cluster {
                nodes: vec![
                    ("h1".into(), 7000),
                    ("h2".into(), 7001),
                    ("h3".into(), 6379)
                ],
                username: Some("u".into()),
                password: Some("pw".into()),
            })
        );
        for bad in [
            "redis+sentinel://h1:26379",
            "redis+sentinel://h1/m/x",
            "redis+sentinel://h1:0/m",
            "redis+cluster://h1,,h2",
            "redis+cluster://h1/3",
            "http://u:s3cret@h:1",
            "memcached://h",
        ] {
            let e = RedisTarget::parse(bad).unwrap_err();
            assert!(!e.contains("s3cret"), "{bad}: {e}");
        }
    }
}
