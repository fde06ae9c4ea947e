//! `[outgoing]`: how requests to the engines leave this host — the pool of
//! proxies they go through (an engine's own `proxy =` wins over it).

use serde::{Deserialize, Serialize};

use super::{Config, OneOrMany, Problem, layers};

/// `[outgoing]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutgoingConfig {
    /// Proxies every engine without its own `proxy` goes through, one per
    /// request in turn: `http://`, `https://`, `socks5://` or `socks5h://`
    /// URLs, credentials as `user:password@` (from the environment with
    /// `${VAR}`). Empty: engines are asked directly.
    pub proxies: Vec<String>,
}

impl OutgoingConfig {
    /// Values of `[outgoing]` that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        for p in &self.proxies {
            if let Err(m) = check_proxy_url(p) {
                out.push(Problem::at(
                    &[&["outgoing", "proxies"], &["outgoing"]],
                    format!("outgoing.proxies: {m}"),
                ));
            }
        }
    }
}

/// Whether `u` is a proxy URL reqwest can use: a scheme it speaks, a host,
/// nothing after the authority. The message never repeats credentials.
pub(crate) fn check_proxy_url(u: &str) -> Result<(), String> {
    let parsed = url::Url::parse(u).map_err(|e| format!("{:?} is not a URL ({e})", redact(u)))?;
    if !matches!(parsed.scheme(), "http" | "https" | "socks5" | "socks5h") {
        return Err(format!(
            "{:?}: a proxy is http://, https://, socks5:// or socks5h://",
            redact(u)
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("{:?}: a proxy URL needs a host", redact(u)));
    }
    if !matches!(parsed.path(), "" | "/") || parsed.query().is_some() {
        return Err(format!(
            "{:?}: a proxy URL is scheme://[user:password@]host:port, nothing after",
            redact(u)
        ));
    }
    Ok(())
}

/// Replaces `${VAR}` in the proxy URLs (`[outgoing] proxies`, each
/// engine's `proxy`), so their credentials stay out of the file. An
/// unset variable is a problem, named by the variable, never the URL.
pub(super) fn expand_proxy_vars(
    config: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut Vec<Problem>,
) {
    for p in &mut config.outgoing.proxies {
        match layers::expand_vars(p, env) {
            Ok(v) => *p = v,
            Err(layers::UnsetVar(var)) => out.push(Problem::at(
                &[&["outgoing", "proxies"], &["outgoing"]],
                format!("outgoing.proxies: needs the environment variable {var}, which is not set"),
            )),
        }
    }
    for (i, engine) in config.engines.iter_mut().enumerate() {
        let mut proxies = engine.proxy.to_vec();
        let mut missing = None;
        for p in &mut proxies {
            match layers::expand_vars(p, env) {
                Ok(v) => *p = v,
                Err(layers::UnsetVar(var)) => {
                    missing = Some(format!(
                        "proxy needs the environment variable {var}, which is not set"
                    ));
                    break;
                }
            }
        }
        match missing {
            None => {
                engine.proxy = match engine.proxy {
                    OneOrMany::One(_) => OneOrMany::One(proxies.remove(0)),
                    OneOrMany::Many(_) => OneOrMany::Many(proxies),
                    OneOrMany::None => OneOrMany::None,
                }
            }
            Some(what) if engine.enabled && engine.replay.is_none() => out.push(Problem::engine(
                i,
                "proxy",
                format!("engine.proxy of {:?}: {what}", engine.name),
            )),
            Some(what) => engine.unset_env = Some(what),
        }
    }
}

/// `u` without its credentials (`scheme://host:port`), to show or log.
pub fn redact(u: &str) -> String {
    match url::Url::parse(u) {
        Ok(parsed) => {
            let host = parsed.host_str().unwrap_or("");
            let port = match parsed.scheme() {
                "socks5" | "socks5h" => parsed.port().or(Some(1080)),
                _ => parsed.port_or_known_default(),
            };
            match port {
                Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
                None => format!("{}://{host}", parsed.scheme()),
            }
        }
        // Not a URL: whatever follows an `@` is kept, nothing before it.
        Err(_) => match u.rsplit_once('@') {
            Some((_, rest)) => format!("…@{rest}"),
            None => u.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked_and_redacted() {
        assert!(check_proxy_url("socks5://127.0.0.1:1080").is_ok());
        assert!(check_proxy_url("http://user:pw@proxy.example:3128").is_ok());
        assert!(check_proxy_url("socks5h://proxy.example:1080/").is_ok());
        let e = check_proxy_url("ftp://user:s3cret@proxy.example:21").unwrap_err();
        assert!(e.contains("socks5://") && !e.contains("s3cret"), "{e}");
        assert!(check_proxy_url("http://proxy.example:3128/path").is_err());
        assert!(check_proxy_url("127.0.0.1:3128").is_err());
        assert_eq!(
            redact("http://user:s3cret@proxy.example:3128"),
            "http://proxy.example:3128"
        );
        assert_eq!(redact("socks5://h"), "socks5://h:1080");
        assert!(!redact("not a url user:s3cret@h").contains("s3cret"));
    }
}
