//! Preferences without JavaScript, kept the way SearXNG keeps them: in a
//! cookie (`metasift_prefs`, the settings form-encoded), set by a plain form
//! on `/preferences`, and carried by a URL (`/preferences?save=1&…`) that
//! sets the same cookie for whoever opens it — the way to share them.
//!
//! They are defaults: a search's own parameters (`language=`, `method=`, a
//! `!shortcut`, …) win over them. The page that sets them is
//! `prefs_page`.

use axum::http::{HeaderMap, HeaderValue, header};
use url::form_urlencoded;

use super::i18n::{Tr, locales};
use super::prefs_hosts::HostPrefs;
use super::ui::Ui;
use metasift_dedup::{Method, SettingsPatch};

/// The cookie's name.
pub(super) const COOKIE: &str = "metasift_prefs";

/// The cookie's longest accepted value; a longer one is ignored.
pub(super) const MAX_COOKIE: usize = 4096;

/// The largest page size a preference can hold (`[server]
/// max_results_per_page` is at most this too); the server's cap applies.
const MAX_PAGE_SIZE: usize = 1000;

/// A year, in seconds: how long the cookie lives.
const MAX_AGE_S: u64 = 365 * 24 * 3600;

/// Every setting (empty / `None`: the server's default).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Prefs {
    /// Interface language (`en`, `zh-Hans`); none: the browser's.
    pub locale: Option<String>,
    /// `light` or `dark`; none: the browser's.
    pub theme: Option<&'static str>,
    /// Categories asked by default.
    pub categories: Vec<String>,
    /// Engines never asked unless named.
    pub disabled: Vec<String>,
    /// Search language passed to engines.
    pub language: Option<String>,
    /// Safe search level.
    pub safesearch: Option<u8>,
    /// Results per page (the server caps it at `[server]
    /// max_results_per_page` when it searches).
    pub results: Option<usize>,
    /// Default dedup method.
    pub method: Option<Method>,
    /// Default `os1`.
    pub os1: Option<f64>,
    /// Default `os2`.
    pub os2: Option<f64>,
    /// Default fusion method.
    pub fusion: Option<crate::config::FusionMethod>,
    /// `Some(false)`: no thumbnails on the results page (shown by default).
    pub thumbnails: Option<bool>,
    /// The searcher's own hostname rules.
    pub hostnames: HostPrefs,
    /// `Some(false)`: no site icons beside results (shown by default when
    /// `[favicons] enabled`).
    pub favicons: Option<bool>,
}

impl Prefs {
    /// The preferences of a request's cookie (none, or unreadable: defaults).
    pub(crate) fn from_headers(headers: &HeaderMap) -> Prefs {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().split_once('='))
            .find(|(k, _)| *k == COOKIE)
            .filter(|(_, v)| v.len() <= MAX_COOKIE)
            .map(|(_, v)| {
                let decoded = percent_encoding::percent_decode_str(v).decode_utf8_lossy();
                Prefs::from_pairs(decoded.as_bytes())
            })
            .unwrap_or_default()
    }

    /// Preferences from form-encoded pairs; unknown names and values that do
    /// not parse are dropped (a default, not an error: a stale cookie must
    /// never break searching).
    pub(crate) fn from_pairs(form: &[u8]) -> Prefs {
        let mut p = Prefs::default();
        for (k, v) in form_urlencoded::parse(form) {
            let v = v.trim();
            match &*k {
                "locale" => {
                    p.locale = locales()
                        .find(|(c, _)| c.eq_ignore_ascii_case(v))
                        .map(|(c, _)| c.to_string())
                }
                "theme" => {
                    p.theme = match v {
                        "light" => Some("light"),
                        "dark" => Some("dark"),
                        _ => None,
                    }
                }
                "categories" => p.categories.extend(list(v)),
                "disabled" => p.disabled.extend(list(v)),
                "language" => p.language = valid_lang(v).then(|| v.to_string()),
                "safesearch" => p.safesearch = v.parse().ok().filter(|s| *s <= 2),
                "results" => p.results = v.parse().ok().filter(|n| (1..=MAX_PAGE_SIZE).contains(n)),
                "method" => p.method = Method::ALL.iter().copied().find(|m| m.as_str() == v),
                "os1" => p.os1 = v.parse().ok().filter(|x: &f64| (0.0..=1.0).contains(x)),
                "os2" => p.os2 = v.parse().ok().filter(|x: &f64| (0.0..=1.0).contains(x)),
                "fusion" => p.fusion = v.parse().ok(),
                "thumbnails" => p.thumbnails = matches!(v, "0" | "off").then_some(false),
                "favicons" => p.favicons = matches!(v, "0" | "off").then_some(false),
                name => {
                    p.hostnames.read(name, v);
                }
            }
        }
        p.categories.dedup();
        p.disabled.dedup();
        p
    }

    /// The settings form-encoded (the cookie's value, and the share URL's
    /// query), only those set, in a fixed order.
    pub(crate) fn to_query(&self) -> String {
        let mut s = form_urlencoded::Serializer::new(String::new());
        if let Some(l) = &self.locale {
            s.append_pair("locale", l);
        }
        if let Some(t) = self.theme {
            s.append_pair("theme", t);
        }
        if !self.categories.is_empty() {
            s.append_pair("categories", &self.categories.join(","));
        }
        if !self.disabled.is_empty() {
            s.append_pair("disabled", &self.disabled.join(","));
        }
        if let Some(l) = &self.language {
            s.append_pair("language", l);
        }
        if let Some(x) = self.safesearch {
            s.append_pair("safesearch", &x.to_string());
        }
        if let Some(n) = self.results {
            s.append_pair("results", &n.to_string());
        }
        if let Some(m) = self.method {
            s.append_pair("method", m.as_str());
        }
        if let Some(x) = self.os1 {
            s.append_pair("os1", &format!("{x}"));
        }
        if let Some(x) = self.os2 {
            s.append_pair("os2", &format!("{x}"));
        }
        if let Some(f) = self.fusion {
            s.append_pair("fusion", f.as_str());
        }
        if self.thumbnails == Some(false) {
            s.append_pair("thumbnails", "0");
        }
        for (name, text) in self.hostnames.pairs() {
            s.append_pair(name, text);
        }
        if self.favicons == Some(false) {
            s.append_pair("favicons", "0");
        }
        s.finish()
    }

    /// The dedup values these preferences lay over `[dedup]`.
    pub(crate) fn dedup_patch(&self) -> SettingsPatch {
        SettingsPatch {
            method: self.method,
            os1: self.os1,
            os2: self.os2,
            ..SettingsPatch::default()
        }
    }

    /// The language and theme pages are shown in: the `locale` preference,
    /// else the browser's `Accept-Language`.
    pub(crate) fn ui(&self, headers: &HeaderMap) -> Ui {
        let accept = headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok());
        Ui {
            tr: Tr::negotiate(self.locale.as_deref(), accept),
            theme: self.theme.unwrap_or("auto"),
        }
    }

    /// The bytes of the cookie's value: past [`MAX_COOKIE`], a browser
    /// may not keep it and it is not read.
    pub(super) fn cookie_len(&self) -> usize {
        utf8_cookie_value(&self.to_query()).len()
    }

    pub(super) fn set_cookie(&self) -> HeaderValue {
        let value = utf8_cookie_value(&self.to_query());
        let cookie = if value.is_empty() {
            format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        } else {
            format!("{COOKIE}={value}; Path=/; Max-Age={MAX_AGE_S}; HttpOnly; SameSite=Lax")
        };
        HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
    }
}

/// A cookie value holds no `;`, `,`, space or quote: percent-encode them
/// (the form encoding already did the rest).
fn utf8_cookie_value(s: &str) -> String {
    s.replace('%', "%25")
        .replace(';', "%3B")
        .replace(',', "%2C")
        .replace(' ', "%20")
        .replace('"', "%22")
}

fn list(v: &str) -> impl Iterator<Item = String> + '_ {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 64)
        .map(str::to_string)
}

fn valid_lang(v: &str) -> bool {
    !v.is_empty() && v.len() <= 16 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_round_trip_and_bad_values_are_dropped() {
        let p = Prefs::from_pairs(
            b"locale=zh-hans&theme=dark&categories=general,news&disabled=bing&language=en\
              &safesearch=2&results=10&method=simhash&os1=0.4&os2=2&thumbnails=0&fusion=rrf&junk=1",
        );
        assert_eq!(p.locale.as_deref(), Some("zh-Hans"));
        assert_eq!(p.theme, Some("dark"));
        assert_eq!(p.categories, ["general", "news"]);
        assert_eq!(p.disabled, ["bing"]);
        assert_eq!(p.safesearch, Some(2));
        assert_eq!(p.results, Some(10));
        assert_eq!(p.method, Some(Method::SimHash));
        assert_eq!(p.os1, Some(0.4));
        assert_eq!(p.os2, None, "out of range");
        assert_eq!(p.thumbnails, Some(false));
        assert_eq!(p.fusion, Some(crate::config::FusionMethod::Rrf));
        assert_eq!(Prefs::from_pairs(p.to_query().as_bytes()), p);
        let bad =
            Prefs::from_pairs(b"locale=xx&theme=neon&safesearch=9&language=%3Cscript%3E&fusion=x");
        assert_eq!(bad, Prefs::default());
    }

    #[test]
    fn the_cookie_is_read_back() {
        let p = Prefs::from_pairs(b"locale=zh-Hans&categories=general,news");
        let set = p.set_cookie();
        let pair = set.to_str().unwrap().split(';').next().unwrap().to_string();
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("a=b; {pair}")).unwrap(),
        );
        assert_eq!(Prefs::from_headers(&h), p);
    }
}
