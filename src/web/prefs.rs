//! Preferences without JavaScript, kept the way SearXNG keeps them: in a
//! cookie (`metasift_prefs`, the settings form-encoded), set by a plain form
//! on `/preferences`, and carried by a URL (`/preferences?save=1&…`) that
//! sets the same cookie for whoever opens it — the way to share them.
//!
//! They are defaults: a search's own parameters (`language=`, `method=`, a
//! `!shortcut`, …) win over them.

use askama::Template;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::form_urlencoded;

use super::AppState;
use super::i18n::{Tr, locales};
use super::pages::{Layout, Ui};
use crate::config::Config;
use metasift_dedup::Method;

/// The cookie's name.
pub const COOKIE: &str = "metasift_prefs";

/// The cookie's longest accepted value; a longer one is ignored.
const MAX_COOKIE: usize = 4096;

/// The largest page size a preference can hold (`[server]
/// max_results_per_page` is at most this too); the server's cap applies.
const MAX_PAGE_SIZE: usize = 1000;

/// The page sizes the preferences page offers, up to the server's cap.
const PAGE_SIZES: [usize; 8] = [10, 20, 30, 50, 100, 200, 500, 1000];

/// A year, in seconds: how long the cookie lives.
const MAX_AGE_S: u64 = 365 * 24 * 3600;

/// Every setting (empty / `None`: the server's default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefs {
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
    /// `Some(false)`: no thumbnails on the results page (shown by default).
    pub thumbnails: Option<bool>,
}

impl Prefs {
    /// The preferences of a request's cookie (none, or unreadable: defaults).
    pub fn from_headers(headers: &HeaderMap) -> Prefs {
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
    pub fn from_pairs(form: &[u8]) -> Prefs {
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
                "thumbnails" => p.thumbnails = matches!(v, "0" | "off").then_some(false),
                _ => {}
            }
        }
        p.categories.dedup();
        p.disabled.dedup();
        p
    }

    /// The settings form-encoded (the cookie's value, and the share URL's
    /// query), only those set, in a fixed order.
    pub fn to_query(&self) -> String {
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
        if self.thumbnails == Some(false) {
            s.append_pair("thumbnails", "0");
        }
        s.finish()
    }

    /// The language and theme pages are shown in: the `locale` preference,
    /// else the browser's `Accept-Language`.
    pub fn ui(&self, headers: &HeaderMap) -> Ui {
        let accept = headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok());
        Ui {
            tr: Tr::negotiate(self.locale.as_deref(), accept),
            theme: self.theme.unwrap_or("auto"),
        }
    }

    fn set_cookie(&self) -> HeaderValue {
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

/// A choice on the preferences page.
#[derive(Debug, Clone)]
pub struct Choice {
    /// Value sent.
    pub value: String,
    /// Label shown.
    pub label: String,
    /// Chosen now.
    pub chosen: bool,
}

/// `GET /preferences`.
#[derive(Template)]
#[template(path = "preferences.html")]
pub struct PreferencesPage {
    /// Frame.
    pub layout: Layout,
    /// The strings.
    pub tr: Tr,
    /// Just saved.
    pub saved: bool,
    /// Interface languages.
    pub locales: Vec<Choice>,
    /// Themes.
    pub themes: Vec<Choice>,
    /// Categories the enabled engines serve (chosen: asked by default).
    pub categories: Vec<Choice>,
    /// Enabled engines (chosen: asked).
    pub engines: Vec<Choice>,
    /// Search languages.
    pub languages: Vec<Choice>,
    /// Safe search levels.
    pub safe_levels: Vec<Choice>,
    /// Page sizes offered (10, 20, 30, 50, … up to `[server]
    /// max_results_per_page`, the server's default marked).
    pub page_sizes: Vec<Choice>,
    /// Thumbnails shown on the results page.
    pub thumbnails: bool,
    /// Dedup methods.
    pub methods: Vec<Choice>,
    /// `os1` now.
    pub os1: String,
    /// `os2` now.
    pub os2: String,
    /// A link that sets these preferences for whoever opens it.
    pub share_href: String,
}

fn choice(value: &str, label: String, chosen: bool) -> Choice {
    Choice {
        value: value.to_string(),
        label,
        chosen,
    }
}

impl PreferencesPage {
    fn new(prefs: &Prefs, ui: &Ui, config: &Config, saved: bool) -> PreferencesPage {
        let tr = &ui.tr;
        let categories = super::pages::served_categories(config);
        let default_categories = if prefs.categories.is_empty() {
            vec!["general".to_string()]
        } else {
            prefs.categories.clone()
        };
        let lang = prefs.language.as_deref().unwrap_or("");
        let safe = prefs.safesearch.map(|s| s.to_string()).unwrap_or_default();
        let method = prefs.method.unwrap_or(config.dedup.method);
        PreferencesPage {
            layout: Layout::of(&format!("{} — metasift", tr.t("prefs-title")), ui),
            tr: tr.clone(),
            saved,
            locales: std::iter::once(choice(
                "",
                tr.t("prefs-locale-browser"),
                prefs.locale.is_none(),
            ))
            .chain(
                locales().map(|(c, name)| {
                    choice(c, name.to_string(), prefs.locale.as_deref() == Some(c))
                }),
            )
            .collect(),
            themes: [
                ("", "theme-auto"),
                ("light", "theme-light"),
                ("dark", "theme-dark"),
            ]
            .iter()
            .map(|(v, k)| choice(v, tr.t(k), prefs.theme.unwrap_or("") == *v))
            .collect(),
            categories: categories
                .iter()
                .map(|c| choice(c, tr.category(c), default_categories.iter().any(|d| d == c)))
                .collect(),
            engines: config
                .engines
                .iter()
                .filter(|e| e.enabled)
                .map(|e| {
                    choice(
                        &e.name,
                        tr.engine(&e.name),
                        !prefs.disabled.contains(&e.name),
                    )
                })
                .collect(),
            languages: [("", "lang-any"), ("en", "lang-en"), ("zh-CN", "lang-zh")]
                .iter()
                .map(|(v, k)| choice(v, tr.t(k), lang == *v))
                .collect(),
            safe_levels: [
                ("", "safe-default"),
                ("0", "safe-off"),
                ("1", "safe-moderate"),
                ("2", "safe-strict"),
            ]
            .iter()
            .map(|(v, k)| choice(v, tr.t(k), safe == *v))
            .collect(),
            page_sizes: page_sizes(prefs, config, tr),
            thumbnails: prefs.thumbnails != Some(false),
            methods: Method::ALL
                .iter()
                .map(|m| choice(m.as_str(), m.as_str().to_string(), *m == method))
                .collect(),
            os1: format!("{:.2}", prefs.os1.unwrap_or(config.dedup.os1)),
            os2: format!("{:.2}", prefs.os2.unwrap_or(config.dedup.os2)),
            share_href: format!("/preferences?save=1&{}", prefs.to_query()),
        }
    }
}

/// The page sizes offered: the usual ones up to the server's cap, the
/// server's default (marked) and the one chosen now, in order.
fn page_sizes(prefs: &Prefs, config: &Config, tr: &Tr) -> Vec<Choice> {
    let server = &config.server;
    let now = server.page_size(prefs.results);
    let most = server.max_page_size();
    let mut sizes: Vec<usize> = PAGE_SIZES.iter().copied().filter(|n| *n <= most).collect();
    sizes.extend([server.results_per_page, now, most]);
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|n| {
            let label = if n == server.results_per_page {
                tr.s("prefs-results-default", "n", &tr.number(n as u64))
            } else {
                tr.number(n as u64)
            };
            choice(&n.to_string(), label, n == now)
        })
        .collect()
}

/// The form's fields as preferences: checkboxes list what is on, so the
/// engines left unticked are the disabled ones; values equal to the
/// server's defaults are not stored.
fn from_form(body: &[u8], config: &Config) -> Prefs {
    let mut p = Prefs::from_pairs(body);
    let on: Vec<String> = form_urlencoded::parse(body)
        .filter(|(k, _)| k == "engine")
        .map(|(_, v)| v.into_owned())
        .collect();
    let is_form = form_urlencoded::parse(body).any(|(k, _)| k == "form");
    if is_form {
        p.disabled = config
            .engines
            .iter()
            .filter(|e| e.enabled && !on.contains(&e.name))
            .map(|e| e.name.clone())
            .collect();
        p.categories = form_urlencoded::parse(body)
            .filter(|(k, _)| k == "category")
            .map(|(_, v)| v.into_owned())
            .collect();
        // An unticked checkbox sends nothing.
        let shown = form_urlencoded::parse(body).any(|(k, v)| k == "thumbnails" && v == "1");
        p.thumbnails = (!shown).then_some(false);
    }
    if p.categories == ["general"] {
        p.categories.clear();
    }
    // Above the cap is the cap; the server's default is not stored.
    p.results = p.results.map(|n| config.server.page_size(Some(n)));
    if p.results == Some(config.server.results_per_page) {
        p.results = None;
    }
    if p.method == Some(config.dedup.method) {
        p.method = None;
    }
    if p.os1 == Some(config.dedup.os1) {
        p.os1 = None;
    }
    if p.os2 == Some(config.dedup.os2) {
        p.os2 = None;
    }
    p
}

/// `GET /preferences`: the form; with `save=1`, the query's settings are
/// stored (the share link) and the browser sent back to the form.
pub async fn get_preferences(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let raw = raw.unwrap_or_default();
    let searcher = state.searcher();
    let config = searcher.config();
    if form_urlencoded::parse(raw.as_bytes()).any(|(k, v)| k == "save" && v == "1") {
        return saved(&from_form(raw.as_bytes(), config));
    }
    let prefs = Prefs::from_headers(&headers);
    let just_saved = form_urlencoded::parse(raw.as_bytes()).any(|(k, _)| k == "saved");
    render(&prefs, &prefs.ui(&headers), config, just_saved)
}

/// `POST /preferences`: store the form's settings in the cookie.
pub async fn post_preferences(State(state): State<AppState>, body: Bytes) -> Response {
    let searcher = state.searcher();
    saved(&from_form(&body, searcher.config()))
}

fn saved(prefs: &Prefs) -> Response {
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, prefs.set_cookie()),
            (
                header::LOCATION,
                HeaderValue::from_static("/preferences?saved=1"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
    )
        .into_response()
}

fn render(prefs: &Prefs, ui: &Ui, config: &Config, saved: bool) -> Response {
    match PreferencesPage::new(prefs, ui, config, saved).render() {
        Ok(body) => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "private, no-store"),
            ],
            body,
        )
            .into_response(),
        Err(e) => super::AppError::from(e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_round_trip_and_bad_values_are_dropped() {
        let p = Prefs::from_pairs(
            b"locale=zh-hans&theme=dark&categories=general,news&disabled=bing&language=en\
              &safesearch=2&results=10&method=simhash&os1=0.4&os2=2&thumbnails=0&junk=1",
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
        assert_eq!(Prefs::from_pairs(p.to_query().as_bytes()), p);
        let bad = Prefs::from_pairs(b"locale=xx&theme=neon&safesearch=9&language=%3Cscript%3E");
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
