//! The preferences page (`/preferences`): a plain form that sets the
//! preferences cookie ([`super::prefs`]), and the share link that sets the
//! same cookie for whoever opens it.

use askama::Template;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use url::form_urlencoded;

use super::AppState;
use super::i18n::{Tr, locales};
use super::prefs::Prefs;
use super::prefs_hosts;
use super::ui::{Layout, Ui};
use crate::config::Config;
use metasift_dedup::{Method, SettingsPatch};

/// The page sizes the preferences page offers, up to the server's cap.
const PAGE_SIZES: [usize; 8] = [10, 20, 30, 50, 100, 200, 500, 1000];

/// A choice on the preferences page.
#[derive(Debug, Clone)]
pub(super) struct Choice {
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
pub(super) struct PreferencesPage {
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
    /// Site icons shown beside results.
    pub favicons: bool,
    /// Dedup methods.
    pub methods: Vec<Choice>,
    /// Fusion methods.
    pub fusions: Vec<Choice>,
    /// `os1` now.
    pub os1: String,
    /// `os2` now.
    pub os2: String,
    /// A link that sets these preferences for whoever opens it.
    pub share_href: String,
    /// The searcher's hostname rules, a text area per kind.
    pub hostnames: Vec<prefs_hosts::Field>,
    /// Why the preferences sent were not saved (each naming its list and
    /// line).
    pub errors: Vec<String>,
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
            // What a search that names none asks: the first served.
            categories.iter().take(1).map(|c| c.to_string()).collect()
        } else {
            prefs.categories.clone()
        };
        let lang = prefs.language.as_deref().unwrap_or("");
        let safe = prefs.safesearch.map(|s| s.to_string()).unwrap_or_default();
        let dedup = prefs.dedup_patch().over(&config.dedup);
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
            favicons: prefs.favicons != Some(false),
            methods: Method::ALL
                .iter()
                .map(|m| choice(m.as_str(), m.as_str().to_string(), *m == dedup.method))
                .collect(),
            fusions: crate::config::FusionMethod::ALL
                .iter()
                .map(|m| {
                    let now = prefs.fusion.unwrap_or(config.fusion.method);
                    choice(m.as_str(), m.as_str().to_string(), *m == now)
                })
                .collect(),
            os1: format!("{:.2}", dedup.os1),
            os2: format!("{:.2}", dedup.os2),
            share_href: format!("/preferences?save=1&{}", prefs.to_query()),
            hostnames: prefs_hosts::fields(&prefs.hostnames, tr),
            errors: Vec::new(),
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
        let icons = form_urlencoded::parse(body).any(|(k, v)| k == "favicons" && v == "1");
        p.favicons = (!icons).then_some(false);
    }
    if p.categories == ["general"] {
        p.categories.clear();
    }
    // Above the cap is the cap; the server's default is not stored.
    p.results = p.results.map(|n| config.server.page_size(Some(n)));
    if p.results == Some(config.server.results_per_page) {
        p.results = None;
    }
    // Only what differs from `[dedup]` is stored.
    let chosen = SettingsPatch::between(&config.dedup, &p.dedup_patch().over(&config.dedup));
    (p.method, p.os1, p.os2) = (chosen.method, chosen.os1, chosen.os2);
    if p.fusion == Some(config.fusion.method) {
        p.fusion = None;
    }
    p
}

/// `GET /preferences`: the form; with `save=1`, the query's settings are
/// stored (the share link) and the browser sent back to the form.
pub(super) async fn get_preferences(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let raw = raw.unwrap_or_default();
    let searcher = state.searcher();
    let config = searcher.config();
    if form_urlencoded::parse(raw.as_bytes()).any(|(k, v)| k == "save" && v == "1") {
        return save(&from_form(raw.as_bytes(), config), &headers, config);
    }
    let prefs = Prefs::from_headers(&headers);
    let just_saved = form_urlencoded::parse(raw.as_bytes()).any(|(k, _)| k == "saved");
    render(&prefs, &prefs.ui(&headers), config, just_saved)
}

/// `POST /preferences`: store the form's settings in the cookie.
pub(super) async fn post_preferences(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let searcher = state.searcher();
    save(
        &from_form(&body, searcher.config()),
        &headers,
        searcher.config(),
    )
}

/// What keeps `prefs` from being stored, in the page's language: each
/// hostname rule that cannot work (its list and line), a cookie too big
/// for a browser to keep.
fn problems(prefs: &Prefs, tr: &Tr) -> Vec<String> {
    let mut out: Vec<String> = prefs
        .hostnames
        .check()
        .into_iter()
        .map(|e| {
            let list = tr.t(&format!("prefs-hn-{}", e.kind.as_str()));
            match e.line {
                Some(line) => tr.with(
                    "prefs-hn-error-line",
                    &[
                        ("list", list),
                        ("line", line.to_string()),
                        ("why", e.message),
                    ],
                ),
                None => tr.with("prefs-hn-error", &[("list", list), ("why", e.message)]),
            }
        })
        .collect();
    let len = prefs.cookie_len();
    if len > super::prefs::MAX_COOKIE {
        out.push(tr.with(
            "prefs-too-big",
            &[
                ("n", len.to_string()),
                ("max", super::prefs::MAX_COOKIE.to_string()),
            ],
        ));
    }
    out
}

/// Stores `prefs`, unless a hostname rule cannot work or the cookie would
/// be too big to keep: then the form again (400), what was sent in it,
/// each problem named.
fn save(prefs: &Prefs, headers: &HeaderMap, config: &Config) -> Response {
    let ui = prefs.ui(headers);
    let errors = problems(prefs, &ui.tr);
    if errors.is_empty() {
        return saved(prefs);
    }
    let mut page = PreferencesPage::new(prefs, &ui, config, false);
    page.errors = errors;
    match page.render() {
        Ok(body) => (
            StatusCode::BAD_REQUEST,
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
