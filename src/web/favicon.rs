//! `GET /favicon?site=ORIGIN&h=SIG`: the small icon beside each result's
//! host on the results page, with the page's CSP left at `img-src 'self'`.
//!
//! The page links one icon per result site (`scheme://host[:port]`), signed
//! like the image proxy's links: `h` is the HMAC of the icon's URL, which
//! `[favicons] url` makes from the site (its own `/favicon.ico` by default,
//! or a resolver such as DuckDuckGo's), so this route fetches only what a
//! page of this server linked. The fetch follows the image proxy's rules
//! ([`super::image_proxy`]): `http`/`https` only, never a local address (the
//! names resolved and every redirect checked), one deadline for it all, the
//! same cap on fetches at once — and a smaller body cap, [`MAX_ICON_BYTES`].
//! The bytes must be a raster image by their own signature (ICO, PNG, GIF,
//! JPEG, WebP, BMP): sites serve `favicon.ico` under every content type, so
//! the type sent is the one the bytes show, never the one the site claims.
//!
//! Icons are kept in the search cache (in Redis when there is one, so
//! instances share them) for `[cache] ttl_s`, a site without one too, so a
//! page of ten results from one site costs one fetch; a fetch that failed
//! for a while (timeout, 5xx) is not kept. Browsers keep an icon a day.

use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::image_proxy::{
    FETCH_TIMEOUT, FETCHES, allowed_local, client, refuse, sign, url_refusal, verify,
};
use crate::config::FaviconsConfig;
use crate::ops::cache::{Cacheable, json_weight};
use crate::ops::limit::Overloaded;

/// Largest icon relayed, in bytes (a multi-size `favicon.ico` is tens of
/// kilobytes).
pub(super) const MAX_ICON_BYTES: usize = 256 * 1024;

/// The site (`scheme://host[:port]`) of a result's link, and its host.
fn site_of(link: &str) -> Option<(String, String)> {
    let u = url::Url::parse(link).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let host = u.host_str()?.to_string();
    let origin = u.origin().ascii_serialization();
    (origin != "null").then_some((origin, host))
}

/// The icon's link for a result whose shown URL is `link`: `None` when
/// icons are off or the link is not an http(s) URL with a host.
pub(super) fn link(config: &FaviconsConfig, link: &str) -> Option<String> {
    if !config.enabled {
        return None;
    }
    let (origin, host) = site_of(link)?;
    let icon = config.icon_url(&origin, &host);
    let mut ser =
        url::form_urlencoded::Serializer::for_suffix(String::from("/favicon?"), "/favicon?".len());
    ser.append_pair("site", &origin)
        .append_pair("h", &sign(&icon));
    Some(ser.finish())
}

/// What the cache keeps of a site's icon.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Icon {
    /// The icon's type (as its bytes show) and its bytes in base64; none
    /// when the site has no icon, or none could be had.
    found: Option<(String, String)>,
    /// Why there is none, when there is none.
    why: String,
    /// The absence is the site's answer (404, not an image, too large),
    /// not a passing failure: worth remembering.
    settled: bool,
}

impl Cacheable for Icon {
    fn worth_storing(&self) -> bool {
        self.found.is_some() || self.settled
    }

    fn mark_cached(&mut self) {}

    fn weight(&self) -> u32 {
        json_weight(self, 3)
    }
}

/// The raster type `bytes` begin like, if any.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(&[0, 0, 1, 0]) {
        Some("image/x-icon")
    } else if starts(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some("image/gif")
    } else if starts(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if starts(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if starts(b"BM") && bytes.len() > 26 {
        Some("image/bmp")
    } else {
        None
    }
}

/// `GET /favicon?site=…&h=…`.
pub(super) async fn favicon(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let raw = raw.unwrap_or_default();
    let get = |name: &str| {
        url::form_urlencoded::parse(raw.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let (Some(site), Some(h)) = (get("site"), get("h")) else {
        return refuse(StatusCode::BAD_REQUEST, "expected site=…&h=…");
    };
    let searcher = state.searcher();
    let config = searcher.config();
    if !config.favicons.enabled {
        return refuse(StatusCode::NOT_FOUND, "site icons are off on this server");
    }
    if super::image_proxy::replays_only(config) {
        return refuse(
            StatusCode::NOT_FOUND,
            "this server answers from recordings: it fetches no icons",
        );
    }
    let Some((origin, host)) = site_of(&site).filter(|(o, _)| *o == site) else {
        return refuse(StatusCode::BAD_REQUEST, "site is not an http(s) origin");
    };
    let icon_url = config.favicons.icon_url(&origin, &host);
    if !verify(&icon_url, &h) {
        return refuse(
            StatusCode::FORBIDDEN,
            "bad signature: this server fetches only the icons its own pages link",
        );
    }
    let Ok(parsed) = url::Url::parse(&icon_url) else {
        return refuse(StatusCode::BAD_REQUEST, "the icon's url is not a URL");
    };
    // Refused before the cache is asked: a local address is never fetched,
    // and never looked up either.
    let allowed = allowed_local(config);
    if let Some(why) = url_refusal(&parsed, &allowed) {
        return refuse(StatusCode::FORBIDDEN, why);
    }
    let client = match client(config) {
        Ok(c) => c,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    let key = format!(
        "metasift:favicon:v1:{:032x}",
        xxhash_rust::xxh3::xxh3_128(icon_url.as_bytes())
    );
    let found = searcher
        .cache()
        .get_or_try_for(&key, move || async move {
            let Ok(_slot) = FETCHES.try_acquire() else {
                return Err(Overloaded);
            };
            let icon = match tokio::time::timeout(FETCH_TIMEOUT, fetch(&client, parsed)).await {
                Ok(icon) => icon,
                Err(_) => Icon {
                    found: None,
                    why: format!(
                        "the icon did not arrive within {} s",
                        FETCH_TIMEOUT.as_secs()
                    ),
                    settled: false,
                },
            };
            Ok((icon, Duration::MAX))
        })
        .await;
    match found.answer {
        Err(Overloaded) => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many images are being fetched already",
        ),
        Ok(icon) => match &icon.found {
            Some((content_type, data)) => {
                let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
                    return refuse(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "a cached icon is unreadable",
                    );
                };
                (
                    [
                        (
                            header::CONTENT_TYPE,
                            HeaderValue::from_str(content_type)
                                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
                        ),
                        (
                            header::CACHE_CONTROL,
                            HeaderValue::from_static("public, max-age=86400"),
                        ),
                    ],
                    bytes,
                )
                    .into_response()
            }
            None if icon.settled => (
                StatusCode::NOT_FOUND,
                [
                    (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                    (header::CACHE_CONTROL, "public, max-age=3600"),
                ],
                format!("{}\n", icon.why),
            )
                .into_response(),
            None => refuse(StatusCode::BAD_GATEWAY, &icon.why),
        },
    }
}

/// One icon fetch under the image proxy's client (its resolver refuses
/// local addresses, its redirect policy checks every hop), the body read up
/// to [`MAX_ICON_BYTES`].
async fn fetch(client: &reqwest::Client, url: url::Url) -> Icon {
    let none = |why: String, settled: bool| Icon {
        found: None,
        why,
        settled,
    };
    let resp = match client
        .get(url)
        .header(
            header::ACCEPT,
            "image/avif,image/webp,image/png,image/*;q=0.8",
        )
        .send()
        .await
    {
        Ok(r) => r,
        Err(e) => {
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                why = format!("{why}: {s}");
                source = s.source();
            }
            return none(why, false);
        }
    };
    let status = resp.status();
    if !status.is_success() {
        // A 4xx is the site's answer; a 5xx may pass.
        return none(
            format!("the icon's server answered {status}"),
            status.is_client_error(),
        );
    }
    let too_large = || {
        none(
            format!("the icon is larger than {MAX_ICON_BYTES} bytes"),
            true,
        )
    };
    if resp
        .content_length()
        .is_some_and(|n| n > MAX_ICON_BYTES as u64)
    {
        return too_large();
    }
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => return none(format!("the icon broke off: {e}"), false),
        };
        if body.len() + chunk.len() > MAX_ICON_BYTES {
            return too_large();
        }
        body.extend_from_slice(&chunk);
    }
    match sniff(&body) {
        Some(content_type) => Icon {
            found: Some((
                content_type.to_string(),
                base64::engine::general_purpose::STANDARD.encode(&body),
            )),
            why: String::new(),
            settled: true,
        },
        None => none("not an icon: the bytes are no raster image".into(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_the_site_and_sign_the_icon_it_makes() {
        let config = FaviconsConfig::default();
        let l = link(&config, "https://www.rust-lang.org/learn?x=1").unwrap();
        let q = l.strip_prefix("/favicon?").unwrap();
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(q.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(
            pairs[0],
            ("site".into(), "https://www.rust-lang.org".into())
        );
        assert!(verify("https://www.rust-lang.org/favicon.ico", &pairs[1].1));
        let ddg = FaviconsConfig {
            enabled: true,
            url: "https://icons.duckduckgo.com/ip3/{host}.ico".into(),
        };
        let l = link(&ddg, "http://127.0.0.1:8080/a").unwrap();
        let h = l.rsplit("h=").next().unwrap();
        assert!(verify("https://icons.duckduckgo.com/ip3/127.0.0.1.ico", h));
        assert_eq!(link(&config, "javascript:alert(1)"), None);
        assert_eq!(link(&config, "file:///etc/passwd"), None);
        let off = FaviconsConfig {
            enabled: false,
            ..config
        };
        assert_eq!(link(&off, "https://a.example/"), None);
    }

    #[test]
    fn only_raster_bytes_are_icons() {
        assert_eq!(sniff(&[0, 0, 1, 0, 1, 0]), Some("image/x-icon"));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff(b"GIF89a..."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"<svg xmlns='http://www.w3.org/2000/svg'/>"), None);
        assert_eq!(sniff(b"<!doctype html><title>404</title>"), None);
        assert_eq!(sniff(b""), None);
    }
}
