//! `GET /image_proxy?url=…&h=…`: result thumbnails on the HTML page, as
//! SearXNG shows them, with the page's CSP left at `img-src 'self'`.
//!
//! The results page links each engine-given thumbnail through this route,
//! signed: `h` is the HMAC-SHA-256 of the URL under a server secret
//! (`METASIFT_SECRET_KEY`, else random at start), so the route fetches only
//! what a page of this server linked — it is no open proxy. What it fetches
//! is still an engine's word, so it is fetched under strict terms:
//!
//! - `http`/`https` only; at most [`MAX_REDIRECTS`] redirects, each hop
//!   checked again;
//! - never a loopback, private, link-local or otherwise local address —
//!   checked on the address actually connected to (names are resolved by
//!   [`GuardedResolver`], so a name that resolves to `127.0.0.1` or is
//!   rebound between two lookups is refused too) — unless a configured
//!   engine lives on that address itself (an intranet engine's own images;
//!   the loopback engines of the tests);
//! - [`FETCH_TIMEOUT`] for the whole fetch, [`MAX_IMAGE_BYTES`] of body
//!   (announced or counted), a `Content-Type` of `image/*` other than SVG;
//! - [`MAX_FETCHES`] at once (503 beyond), no cookie or referrer sent.
//!
//! The answer is the image with `Cache-Control: public, max-age=86400`
//! (the URL names the image and its signature, so it never changes) and the
//! router's headers (`nosniff`, a CSP that forbids everything). Refusals are
//! short plain-text answers saying why. `docs/decisions.md` has the
//! reasoning.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use super::AppState;
use crate::config::Config;
use crate::search::is_local_ip;

/// Largest image relayed, in bytes.
pub(super) const MAX_IMAGE_BYTES: usize = 1024 * 1024;
/// The whole fetch: connect, redirects, headers and body.
pub(super) const FETCH_TIMEOUT: Duration = Duration::from_secs(3);
/// Redirects followed.
pub(super) const MAX_REDIRECTS: usize = 3;
/// Images fetched at once; more wait for none (503).
pub(super) const MAX_FETCHES: usize = 32;
/// The environment variable holding the signing secret.
pub(super) const SECRET_ENV: &str = "METASIFT_SECRET_KEY";

pub(super) static FETCHES: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_FETCHES);

/// The signing key: `METASIFT_SECRET_KEY` when set (instances behind one
/// proxy share it), else 32 random bytes drawn at start (links die with the
/// process, which is harmless: pages are never cached with them).
static KEY: LazyLock<ring::hmac::Key> = LazyLock::new(|| {
    let secret = match std::env::var(SECRET_ENV) {
        Ok(s) if !s.trim().is_empty() => s.into_bytes(),
        _ => {
            let mut bytes = [0u8; 32];
            ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
                .expect("the system's random source");
            bytes.to_vec()
        }
    };
    ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &secret)
});

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// The signature of `url`.
pub(super) fn sign(url: &str) -> String {
    hex(ring::hmac::sign(&KEY, url.as_bytes()).as_ref())
}

/// The proxied link of an engine's image `url`; `None` unless it is an
/// absolute `http(s)` URL.
pub fn link(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return None;
    }
    let mut ser = url::form_urlencoded::Serializer::for_suffix(
        String::from("/image_proxy?"),
        "/image_proxy?".len(),
    );
    ser.append_pair("url", url).append_pair("h", &sign(url));
    Some(ser.finish())
}

pub(super) fn verify(url: &str, h: &str) -> bool {
    unhex(h).is_some_and(|tag| ring::hmac::verify(&KEY, url.as_bytes(), &tag).is_ok())
}

/// The local addresses images may come from: those the configured engines
/// live on (`localhost` counts as both loopback addresses).
pub(super) fn allowed_local(config: &Config) -> Vec<IpAddr> {
    let mut out = Vec::new();
    for e in &config.engines {
        let Ok(u) = url::Url::parse(&e.url.replace(['{', '}'], "")) else {
            continue;
        };
        match u.host() {
            Some(url::Host::Ipv4(a)) => out.push(IpAddr::V4(a)),
            Some(url::Host::Ipv6(a)) => out.push(IpAddr::V6(a)),
            Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
                out.push(IpAddr::from([127, 0, 0, 1]));
                out.push(IpAddr::from(std::net::Ipv6Addr::LOCALHOST));
            }
            _ => {}
        }
    }
    out.retain(|ip| is_local_ip(*ip));
    out.sort();
    out.dedup();
    out
}

/// Why the server must not connect to `ip`, if it must not.
fn refusal(ip: IpAddr, allowed: &[IpAddr]) -> Option<String> {
    // 0.0.0.0/8 ("this network") reaches the machine itself on Linux.
    let this_network = match ip {
        IpAddr::V4(a) => a.octets()[0] == 0,
        IpAddr::V6(a) => a.to_ipv4_mapped().is_some_and(|a| a.octets()[0] == 0),
    };
    let forbidden = is_local_ip(ip) || ip.is_multicast() || this_network;
    (forbidden && !allowed.contains(&ip))
        .then(|| format!("{ip} is a local address, and no engine lives there"))
}

/// Resolves names as the system does, then drops every address the server
/// must not connect to: the check is on the addresses reqwest connects to,
/// so a name rebound between two lookups cannot slip through.
struct GuardedResolver {
    allowed: Vec<IpAddr>,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allowed = self.allowed.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut why = None;
            let ok: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| match refusal(a.ip(), &allowed) {
                    Some(w) => {
                        why = Some(w);
                        false
                    }
                    None => true,
                })
                .collect();
            if ok.is_empty() {
                let why = why.unwrap_or_else(|| "no address".into());
                return Err(format!("{host}: {why}").into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(ok.into_iter());
            Ok(addrs)
        })
    }
}

/// Why a URL (the first or a redirect's) is not fetched, if it is not: a
/// scheme other than http(s), or a local address written in the URL (names
/// are checked by the resolver).
pub(super) fn url_refusal(u: &url::Url, allowed: &[IpAddr]) -> Option<String> {
    if !matches!(u.scheme(), "http" | "https") {
        return Some(format!("{}: only http and https images", u.scheme()));
    }
    let ip = match u.host()? {
        url::Host::Ipv4(a) => IpAddr::V4(a),
        url::Host::Ipv6(a) => IpAddr::V6(a),
        url::Host::Domain(_) => return None,
    };
    refusal(ip, allowed)
}

/// A client for images allowed to reach the local addresses in `allowed`
/// alone; kept while the engines' addresses stay the same.
pub(super) fn client(config: &Config) -> reqwest::Result<reqwest::Client> {
    /// The client last built, with the addresses it may reach.
    type Kept = Option<(Vec<IpAddr>, reqwest::Client)>;
    static CLIENTS: std::sync::Mutex<Kept> = std::sync::Mutex::new(None);
    let allowed = allowed_local(config);
    let mut kept = CLIENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((a, c)) = kept.as_ref()
        && *a == allowed
    {
        return Ok(c.clone());
    }
    let in_policy = allowed.clone();
    let c = crate::search::client_builder()
        .user_agent(config.server.user_agent.as_str())
        .referer(false)
        // A proxy from the environment would resolve names itself.
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver {
            allowed: allowed.clone(),
        }))
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
            }
            match url_refusal(attempt.url(), &in_policy) {
                Some(why) => attempt.error(why),
                None => attempt.follow(),
            }
        }))
        .connect_timeout(FETCH_TIMEOUT)
        .timeout(FETCH_TIMEOUT)
        .build()?;
    *kept = Some((allowed, c.clone()));
    Ok(c)
}

pub(super) fn refuse(status: StatusCode, why: impl std::fmt::Display) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        format!("{why}\n"),
    )
        .into_response()
}

/// The image's content type when it is one this route relays.
fn image_type(headers: &reqwest::header::HeaderMap) -> Option<String> {
    let ct = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = ct.split(';').next()?.trim().to_ascii_lowercase();
    let sub = essence.strip_prefix("image/")?;
    // SVG is a document (scripts, links, external loads), not a picture.
    let ok =
        !sub.is_empty() && !sub.starts_with("svg") && sub.chars().all(|c| c.is_ascii_graphic());
    ok.then_some(essence)
}

/// Every engine answers from recordings (the offline demo, `--replay`):
/// such a server asks the network for nothing, images and icons included.
pub(super) fn replays_only(config: &Config) -> bool {
    !config.engines.is_empty() && config.engines.iter().all(|e| e.replay.is_some())
}

/// `GET /image_proxy?url=…&h=…`.
pub(super) async fn image_proxy(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Response {
    let raw = raw.unwrap_or_default();
    let get = |name: &str| {
        url::form_urlencoded::parse(raw.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let (Some(target), Some(h)) = (get("url"), get("h")) else {
        return refuse(StatusCode::BAD_REQUEST, "expected url=…&h=…");
    };
    if !verify(&target, &h) {
        return refuse(
            StatusCode::FORBIDDEN,
            "bad signature: this server relays only the images its own pages link",
        );
    }
    let searcher = state.searcher();
    let config = searcher.config();
    if replays_only(config) {
        return refuse(
            StatusCode::NOT_FOUND,
            "this server answers from recordings: it fetches no images",
        );
    }
    let Ok(parsed) = url::Url::parse(&target) else {
        return refuse(StatusCode::BAD_REQUEST, "url is not a URL");
    };
    if let Some(why) = url_refusal(&parsed, &allowed_local(config)) {
        return refuse(StatusCode::FORBIDDEN, why);
    }
    let Ok(_slot) = FETCHES.try_acquire() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{MAX_FETCHES} images are being fetched already"),
        );
    };
    let client = match client(config) {
        Ok(c) => c,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    match tokio::time::timeout(FETCH_TIMEOUT, fetch(&client, parsed)).await {
        Ok(Ok((content_type, body))) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_str(&content_type)
                        .unwrap_or(HeaderValue::from_static("application/octet-stream")),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=86400"),
                ),
            ],
            body,
        )
            .into_response(),
        Ok(Err((status, why))) => refuse(status, why),
        Err(_) => refuse(
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the image did not arrive within {} s",
                FETCH_TIMEOUT.as_secs()
            ),
        ),
    }
}

type Failure = (StatusCode, String);

async fn fetch(client: &reqwest::Client, url: url::Url) -> Result<(String, Vec<u8>), Failure> {
    let bad = |why: String| (StatusCode::BAD_GATEWAY, why);
    let resp = client
        .get(url)
        .header(
            header::ACCEPT,
            "image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8",
        )
        .send()
        .await
        .map_err(|e| {
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                why = format!("{why}: {s}");
                source = s.source();
            }
            if e.is_timeout() {
                (StatusCode::GATEWAY_TIMEOUT, why)
            } else {
                bad(why)
            }
        })?;
    if !resp.status().is_success() {
        return Err(bad(format!(
            "the image's server answered {}",
            resp.status()
        )));
    }
    let Some(content_type) = image_type(resp.headers()) else {
        let ct = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none")
            .to_string();
        return Err(bad(format!("not an image (Content-Type: {ct})")));
    };
    let too_large = || bad(format!("the image is larger than {MAX_IMAGE_BYTES} bytes"));
    if resp
        .content_length()
        .is_some_and(|n| n > MAX_IMAGE_BYTES as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| bad(format!("the image broke off: {e}")))?;
        if body.len() + chunk.len() > MAX_IMAGE_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok((content_type, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_signed_and_only_their_own_signature_passes() {
        let u = "https://img.example/a.png?x=1&y=2";
        let l = link(u).unwrap();
        let q = l.strip_prefix("/image_proxy?").unwrap();
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(q.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(pairs[0], ("url".into(), u.into()));
        assert!(verify(u, &pairs[1].1));
        assert!(!verify("https://img.example/b.png", &pairs[1].1));
        assert!(!verify(u, "00"));
        assert!(!verify(u, "zz"));
        assert!(!verify(u, ""));
        for bad in [
            "javascript:alert(1)",
            "data:image/png;base64,AA",
            "/a.png",
            "file:///etc/passwd",
        ] {
            assert_eq!(link(bad), None, "{bad}");
        }
    }

    #[test]
    fn local_addresses_only_where_an_engine_lives() {
        let allowed = vec![IpAddr::from([127, 0, 0, 1])];
        assert_eq!(refusal(IpAddr::from([127, 0, 0, 1]), &allowed), None);
        assert_eq!(refusal(IpAddr::from([93, 184, 216, 34]), &[]), None);
        for ip in [
            IpAddr::from([127, 0, 0, 2]),
            IpAddr::from([10, 0, 0, 1]),
            IpAddr::from([169, 254, 169, 254]),
            IpAddr::from([192, 168, 1, 1]),
            IpAddr::from([0, 0, 0, 0]),
            IpAddr::from([0, 1, 2, 3]),
            IpAddr::from([224, 0, 0, 1]),
            IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
            "::ffff:127.0.0.1".parse().unwrap(),
            "fd00::1".parse().unwrap(),
        ] {
            assert!(refusal(ip, &allowed).is_some(), "{ip}");
        }
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert!(url_refusal(&u("ftp://a.example/x.png"), &[]).is_some());
        assert!(url_refusal(&u("http://[::1]:80/x.png"), &[]).is_some());
        assert!(url_refusal(&u("https://a.example/x.png"), &[]).is_none());
    }

    #[test]
    fn only_raster_images_are_relayed() {
        let of = |ct: &str| {
            let mut h = reqwest::header::HeaderMap::new();
            h.insert(header::CONTENT_TYPE, ct.parse().unwrap());
            image_type(&h)
        };
        assert_eq!(of("image/png").as_deref(), Some("image/png"));
        assert_eq!(of("Image/JPEG; charset=x").as_deref(), Some("image/jpeg"));
        assert_eq!(of("image/svg+xml"), None);
        assert_eq!(of("text/html"), None);
        assert_eq!(of("image/"), None);
    }
}
