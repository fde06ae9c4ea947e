//! Page structs for the askama templates, and the display data they hold.
//!
//! Templates only show what these structs prepared: readable URL lines,
//! formatted similarities, pagination links. Every string that came from an
//! engine is escaped by askama (no `|safe` on engine text anywhere), so a
//! snippet holding `<script>` arrives as inert text.

use askama::Template;
use url::Url;

use crate::config::Config;
use crate::model::SearchResponse;
use metasift_dedup::Method;

use super::cards::{AnswerView, InfoboxView};
use super::i18n::Tr;
use super::params::{SearchAsked, SearchParams};
use super::result_view::result_view;
pub use super::result_view::{DuplicateView, ResultView, display_url};
use super::ui::{Format, Layout, Ui};

/// An engine with its `!shortcut`s, for the home page's list.
#[derive(Debug, Clone)]
pub struct ShortcutView {
    /// Engine name.
    pub engine: String,
    /// Its shortcuts, each with the `!`.
    pub shortcuts: String,
}

/// `GET /`.
#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    /// Frame.
    pub layout: Layout,
    /// Engines that have shortcuts.
    pub shortcuts: Vec<ShortcutView>,
    /// How many engines a search with no category or engine named asks.
    pub engine_count: usize,
    /// The external bangs (`[bangs]`): `!!name` and the site it goes to.
    pub bangs: Vec<(String, String)>,
    /// The bang the help shows in its example (`!!w` when there is one).
    pub bang_example: String,
    /// The categories to search in, under the box: value, label, chosen
    /// (shown when the enabled engines serve more than one).
    pub categories: Vec<(String, String, bool)>,
}

impl IndexPage {
    /// The home page for `config`.
    pub fn new(config: &Config) -> IndexPage {
        IndexPage::of(config, &Ui::default())
    }

    /// The home page for `config` in `ui`'s language and theme.
    pub fn of(config: &Config, ui: &Ui) -> IndexPage {
        let shortcuts = config
            .engines
            .iter()
            .filter(|e| e.enabled)
            .filter_map(|e| {
                let s = e.shortcut.to_vec();
                (!s.is_empty()).then(|| ShortcutView {
                    engine: ui.tr.engine(&e.name),
                    shortcuts: s
                        .iter()
                        .map(|s| format!("!{s}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                })
            })
            .collect();
        let bang_example = match config.bangs.get("w") {
            Some(_) => "!!w".to_string(),
            None => config
                .bangs
                .iter()
                .next()
                .map(|(name, _)| format!("!!{name}"))
                .unwrap_or_default(),
        };
        IndexPage {
            layout: Layout::of("metasift", ui),
            bang_example,
            shortcuts,
            engine_count: crate::search::asked_by(config, &default_query(config)).len(),
            bangs: config
                .bangs
                .iter()
                .map(|(name, template)| {
                    let site = Url::parse(&template.replace("{query}", ""))
                        .ok()
                        .and_then(|u| u.host_str().map(str::to_string))
                        .unwrap_or_default();
                    (format!("!!{name}"), site)
                })
                .collect(),
            // The first served: `general`, where an enabled engine serves it.
            categories: served_categories(config)
                .into_iter()
                .enumerate()
                .map(|(i, c)| (c.to_string(), ui.tr.category(c), i == 0))
                .collect(),
        }
    }

    /// The page with `defaults` (the preferences' categories) chosen under
    /// the box: one of them, or none when they are several (the form then
    /// sends none, and the preferences apply).
    pub fn with_categories(mut self, defaults: &[String]) -> IndexPage {
        if !defaults.is_empty() {
            for (value, _, chosen) in &mut self.categories {
                *chosen = defaults.len() == 1 && defaults[0] == *value;
            }
        }
        self
    }
}

/// What a search that names no engine and no category asks: `general`, or
/// the first category served where no enabled engine serves `general` (as
/// `Searcher::request` decides).
fn default_query(config: &Config) -> crate::model::Query {
    let first = served_categories(config).into_iter().next();
    crate::model::Query {
        categories: first
            .filter(|c| *c != "general")
            .map(|c| vec![c.to_string()])
            .unwrap_or_default(),
        ..crate::model::Query::default()
    }
}

/// One engine's outcome, for the status list.
#[derive(Debug, Clone)]
pub struct EngineView {
    /// Engine name.
    pub engine: String,
    /// `ok`, `slow` or the failure kind.
    pub status: String,
    /// Reason or result count.
    pub detail: String,
    /// Milliseconds.
    pub elapsed_ms: u64,
    /// Failed or slow: shown prominently.
    pub problem: bool,
}

/// Engines that failed the same way, said once on a page where every
/// engine failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureGroup {
    /// "All 11 engines", or the engines' names.
    pub engines: String,
    /// The failure kind, as the engine panel says it.
    pub status: String,
    /// What they said.
    pub detail: String,
}

/// The failed engines of `engines` grouped by what they said, in first
/// seen order; a group holding every failed engine is named by its count.
fn failure_groups(engines: &[EngineView], tr: &Tr) -> Vec<FailureGroup> {
    let failed: Vec<&EngineView> = engines.iter().filter(|e| e.problem).collect();
    let mut groups: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for e in &failed {
        match groups
            .iter_mut()
            .find(|(status, detail, _)| *status == e.status && *detail == e.detail)
        {
            Some((_, _, names)) => names.push(&e.engine),
            None => groups.push((&e.status, &e.detail, vec![&e.engine])),
        }
    }
    groups
        .into_iter()
        .map(|(status, detail, names)| FailureGroup {
            engines: if names.len() > 1 && names.len() == failed.len() {
                tr.n("failures-every-engine", names.len() as u64)
            } else {
                names.join(", ")
            },
            status: status.to_string(),
            detail: detail.to_string(),
        })
        .collect()
}

/// A choice in the method `<select>`.
pub struct MethodOption {
    /// Value.
    pub name: &'static str,
    /// Currently in use.
    pub selected: bool,
}

/// `GET /search` as HTML.
#[derive(Template)]
#[template(path = "results.html")]
pub struct ResultsPage {
    /// Frame.
    pub layout: Layout,
    /// The raw query, for the search box.
    pub q: String,
    /// Engines a `!shortcut` or `engines=` limited the search to.
    pub only_engines: String,
    /// How many engine results were left out for breaking the query's
    /// operators, said in the reader's language; `None` when none were.
    pub operators_dropped: Option<String>,
    /// Results.
    pub results: Vec<ResultView>,
    /// Hidden duplicates in total.
    pub duplicate_count: usize,
    /// Results the hostname rules removed.
    pub hostnames_removed: usize,
    /// Engine outcomes, failures first.
    pub engines: Vec<EngineView>,
    /// Number of engines that failed.
    pub failed_count: usize,
    /// Total time.
    pub elapsed_ms: u64,
    /// Served from the cache.
    pub cached: bool,
    /// How old the engine answers of a page from the cache are ("answers
    /// 12 min old"), shown after "cached".
    pub age: Option<String>,
    /// Suggestions with their search links.
    pub suggestions: Vec<(String, String)>,
    /// Current page.
    pub page: u32,
    /// Fused results known (`SearchResponse::total_results`): the pages
    /// before this one and the whole fused list this page is a slice of.
    pub total_results: usize,
    /// The count the page shows: `SearchResponse::number_of_results`, as
    /// JSON and RSS give it.
    pub number_of_results: usize,
    /// Pages of fused results known (`SearchResponse::pages`); a page past
    /// it asks the engines for their next page, so more may exist.
    pub fused_pages: u32,
    /// Link to the previous page.
    pub prev_href: Option<String>,
    /// Link to the next page.
    pub next_href: Option<String>,
    /// Links to the other formats.
    pub json_href: String,
    /// CSV link.
    pub csv_href: String,
    /// RSS link.
    pub rss_href: String,
    /// Dedup method choices.
    pub methods: Vec<MethodOption>,
    /// `os1` in use.
    pub os1: String,
    /// `os2` in use.
    pub os2: String,
    /// Explain mode.
    pub explain: bool,
    /// Hidden fields that keep the search when re-clustering.
    pub keep: Vec<(&'static str, String)>,
    /// The same answers under the configured settings, when the request
    /// asked for others.
    pub comparison: Option<ComparisonView>,
    /// Render the head part (frame, search box, engines being asked).
    pub show_head: bool,
    /// Render the tail part (everything the answers decide).
    pub show_tail: bool,
    /// The page is streamed: the head lists the engines being asked.
    pub streaming: bool,
    /// Names of the engines being asked (the streamed head's list).
    pub asking: Vec<String>,
    /// The search deadline in seconds, for the streamed head.
    pub deadline_s: String,
    /// Why the list is empty: `results` (it is not), `none` (engines
    /// answered with nothing), `past_end` (a later page with nothing),
    /// `failed` (every engine asked failed), `not_recorded` (offline replay
    /// holds no answer to this query), `no_engines` (none to ask),
    /// `refused` (the search never ran; `notice` says why).
    pub empty_state: &'static str,
    /// A problem discovered after the head was sent, shown in the page.
    pub notice: Option<String>,
    /// Engines with no recording of this query (offline replay), named on
    /// one quiet line instead of one failure each.
    pub not_recorded: Vec<String>,
    /// When nothing answered from a recording: the queries its engines
    /// hold, each with its link, so an offline demo says what it knows.
    pub recorded: Vec<(String, String)>,
    /// Page numbers around this one, each with its link (`None`: this page).
    pub pages: Vec<(u32, Option<String>)>,
    /// The interface language (the layout's).
    pub tr: Tr,
    /// Category tabs: label, link, this one.
    pub tabs: Vec<(String, String, bool)>,
    /// Language choices: value, label, chosen.
    pub languages: Vec<(String, String, bool)>,
    /// Time range choices.
    pub time_ranges: Vec<(String, String, bool)>,
    /// Safe search choices.
    pub safe_levels: Vec<(String, String, bool)>,
    /// "about 679 found": the engines' estimate, where one was given.
    pub estimate: Option<String>,
    /// Every engine failed: each different failure once, with the engines
    /// that met it.
    pub failure_groups: Vec<FailureGroup>,
    /// Every engine failed without reaching its site (network, timeout):
    /// the machine may be offline, and the demo needs no network.
    pub offline_hint: bool,
    /// Engines left out because they cannot honour the time range or safe
    /// search asked: why and which, in the reader's language.
    pub left_out: Vec<String>,
    /// How many results were dropped for lying outside the time range (or
    /// having no date), said in the reader's language, when any were.
    pub time_range_dropped: Option<String>,
    /// Direct answers, above the results.
    pub answers: Vec<AnswerView>,
    /// Boxes about the entity the query names, beside the results.
    pub infoboxes: Vec<InfoboxView>,
    /// Every result is an image: the list is a grid of pictures.
    pub image_grid: bool,
}

/// Page numbers shown: up to four before `page`, and after it up to `last`
/// (the last page known to hold results), at most nine in all.
pub fn page_numbers(page: u32, last: u32) -> std::ops::RangeInclusive<u32> {
    let last = last.max(page);
    let first = page.saturating_sub(4).max(1);
    first..=last.min(first + 8)
}

pub use super::compare_view::{ChangeView, ComparisonView, MemberView};

/// The categories the enabled engines serve, each once, in SearXNG's order
/// ([`crate::search::categories::served`]): the tabs, the preferences and
/// `/config` list these.
pub(super) fn served_categories(config: &Config) -> Vec<&str> {
    crate::search::categories::served(config)
}

/// The queries the recordings of the engines that had none of this one
/// hold (each once, in order), with their links; at most 24.
fn recorded_queries(resp: &SearchResponse, config: &Config) -> Vec<(String, String)> {
    let mut texts: Vec<String> = Vec::new();
    for report in &resp.engines {
        let Some(dir) = config
            .engines
            .iter()
            .find(|e| e.name == report.engine)
            .and_then(|e| e.replay.as_deref())
        else {
            continue;
        };
        for text in crate::search::recording::recorded_queries(dir, &report.engine).iter() {
            if !texts.contains(text) {
                texts.push(text.clone());
            }
        }
    }
    texts.sort();
    texts.truncate(24);
    texts
        .into_iter()
        .map(|q| {
            let link = SearchParams {
                q: q.clone(),
                ..SearchParams::default()
            }
            .link(1, Format::Html);
            (q, link)
        })
        .collect()
}

/// Engines slower than this are flagged on the page even when they answered.
pub const SLOW_MS: u64 = 1500;

impl ResultsPage {
    /// The page for `resp`, answering `params` (in English, under the
    /// settings `params` lays over `[dedup]`).
    pub fn new(resp: &SearchResponse, params: &SearchParams, config: &Config) -> ResultsPage {
        let settings = params.dedup_patch().over(&config.dedup);
        ResultsPage::build(resp, params, &settings, config, &Ui::default())
    }

    /// The page for `resp`, answering the search `asked`: its settings are
    /// the request's, shown in its reader's language and theme.
    pub fn of(resp: &SearchResponse, asked: &SearchAsked, config: &Config) -> ResultsPage {
        let request = &asked.request;
        ResultsPage::build(resp, &asked.params, &request.settings, config, &asked.ui)
    }

    fn build(
        resp: &SearchResponse,
        params: &SearchParams,
        settings: &metasift_dedup::Settings,
        config: &Config,
        ui: &Ui,
    ) -> ResultsPage {
        let tr = &ui.tr;
        let results: Vec<ResultView> = resp
            .results
            .iter()
            .take(params.limit.unwrap_or(usize::MAX))
            .enumerate()
            .map(|(i, r)| {
                let icons = (!params.no_favicons).then_some(&config.favicons);
                result_view(i + 1, r, &ui.tr, !params.no_thumbnails, icons)
            })
            .collect();
        let duplicate_count = results.iter().map(|r| r.duplicates.len()).sum();
        let image_grid =
            !results.is_empty() && results.iter().all(|r| r.card.class == "result-image");

        use crate::model::FailureKind;
        let not_recorded: Vec<String> = resp
            .engines
            .iter()
            .filter(|e| e.failure == Some(FailureKind::NotRecorded))
            .map(|e| tr.engine(&e.engine))
            .collect();
        let mut engines: Vec<EngineView> = resp
            .engines
            .iter()
            .filter(|e| e.failure != Some(FailureKind::NotRecorded))
            .map(|e| {
                let count = tr.n("results-count", e.results as u64);
                let (status, detail, problem) = match e.failure {
                    // Said in the reader's language; the reason is English.
                    Some(kind) if kind.is_left_out() => (
                        tr.t(&format!("failure-{}", kind.as_str())),
                        String::new(),
                        true,
                    ),
                    Some(kind) => (
                        tr.t(&format!("failure-{}", kind.as_str())),
                        e.reason.clone().unwrap_or_default(),
                        true,
                    ),
                    None if e.elapsed_ms > SLOW_MS => (tr.t("status-slow"), count, true),
                    None => (tr.t("status-ok"), count, false),
                };
                EngineView {
                    engine: tr.engine(&e.engine),
                    status,
                    detail,
                    elapsed_ms: e.elapsed_ms,
                    problem,
                }
            })
            .collect();
        engines.sort_by_key(|e| !e.problem);
        let failed_count = resp
            .engines
            .iter()
            .filter(|e| {
                e.failure
                    .is_some_and(|k| k != FailureKind::NotRecorded && !k.is_left_out())
            })
            .count();
        let left_out = [FailureKind::NoSafeSearch, FailureKind::NoTimeRange]
            .into_iter()
            .filter_map(|kind| {
                let names: Vec<String> = resp
                    .engines
                    .iter()
                    .filter(|e| e.failure == Some(kind))
                    .map(|e| tr.engine(&e.engine))
                    .collect();
                (!names.is_empty()).then(|| {
                    let key = format!("left-out-{}", kind.as_str());
                    tr.s(&key, "engines", &names.join(", "))
                })
            })
            .collect();
        let answered = resp.engines.iter().any(|e| e.failure.is_none());
        let unreachable = |k: FailureKind| matches!(k, FailureKind::Network | FailureKind::Timeout);
        let offline_hint = failed_count > 0
            && !answered
            && resp
                .engines
                .iter()
                .filter_map(|e| e.failure)
                .filter(|&k| k != FailureKind::NotRecorded)
                .all(unreachable);
        let empty_state = if !results.is_empty() {
            "results"
        } else if resp.engines.is_empty() {
            "no_engines"
        } else if answered && params.page > 1 {
            "past_end"
        } else if answered {
            "none"
        } else if engines.is_empty() && params.page > 1 {
            // A recording of page 1 only: the next page is past its end.
            "past_end"
        } else if engines.is_empty() {
            "not_recorded"
        } else {
            "failed"
        };
        let recorded = if empty_state == "not_recorded" {
            recorded_queries(resp, config)
        } else {
            Vec::new()
        };
        let failure_groups = if empty_state == "failed" {
            failure_groups(&engines, tr)
        } else {
            Vec::new()
        };
        let has_next = !resp.results.is_empty() && params.page < super::params::MAX_PAGE;
        // Every fused page known is numbered; past the last one, the next
        // asks the engines for their next page.
        let last = if has_next {
            resp.pages.max(params.page + 1)
        } else {
            params.page
        };
        let pages = page_numbers(params.page, last)
            .map(|n| (n, (n != params.page).then(|| params.link(n, Format::Html))))
            .collect();

        let mut only: Vec<String> = resp.query.engines.clone();
        if only.is_empty() {
            only = params.engines.clone();
        }

        let suggestions = resp
            .suggestions
            .iter()
            .map(|s| {
                let p = SearchParams {
                    q: s.clone(),
                    ..SearchParams::default()
                };
                (s.clone(), p.link(1, Format::Html))
            })
            .collect();

        // The same page of the same search: only the dedup knobs change.
        let mut keep = params.link_pairs(params.page, Format::Html);
        keep.retain(|(k, _)| !matches!(*k, "method" | "os1" | "os2" | "explain"));

        ResultsPage {
            layout: Layout::of(&format!("{} — metasift", params.q), ui),
            q: params.q.clone(),
            only_engines: only
                .iter()
                .map(|e| tr.engine(e))
                .collect::<Vec<_>>()
                .join(", "),
            operators_dropped: (resp.broke_operators > 0)
                .then(|| tr.n("operators-dropped", resp.broke_operators as u64)),
            duplicate_count,
            hostnames_removed: resp.hostnames_removed,
            engines,
            failed_count,
            elapsed_ms: resp.elapsed_ms,
            cached: resp.cached,
            age: resp
                .cached
                .then(|| answer_age(resp.age_s(std::time::SystemTime::now()), tr))
                .flatten(),
            suggestions,
            page: params.page,
            total_results: resp.total_results,
            number_of_results: resp.number_of_results(),
            fused_pages: resp.pages,
            prev_href: (params.page > 1).then(|| params.link(params.page - 1, Format::Html)),
            next_href: has_next.then(|| params.link(params.page + 1, Format::Html)),
            json_href: params.link(params.page, Format::Json),
            csv_href: params.link(params.page, Format::Csv),
            rss_href: params.link(params.page, Format::Rss),
            methods: Method::ALL
                .iter()
                .map(|m| MethodOption {
                    name: m.as_str(),
                    selected: *m == settings.method,
                })
                .collect(),
            os1: format!("{:.2}", settings.os1),
            os2: format!("{:.2}", settings.os2),
            explain: params.explain,
            keep,
            results,
            comparison: None,
            show_head: true,
            show_tail: true,
            streaming: false,
            asking: Vec::new(),
            deadline_s: format!("{:.1}", config.server.deadline_ms as f64 / 1000.0),
            empty_state,
            notice: None,
            not_recorded,
            recorded,
            pages,
            tr: tr.clone(),
            tabs: category_tabs(config, params, &resp.query, tr),
            languages: choices(
                &[("", "lang-any"), ("en", "lang-en"), ("zh-CN", "lang-zh")],
                params.language.as_deref().unwrap_or(""),
                tr,
            ),
            time_ranges: choices(
                &[
                    ("", "time-any"),
                    ("day", "time-day"),
                    ("week", "time-week"),
                    ("month", "time-month"),
                    ("year", "time-year"),
                ],
                params.time_range.as_deref().unwrap_or(""),
                tr,
            ),
            safe_levels: choices(
                &[
                    ("", "safe-default"),
                    ("0", "safe-off"),
                    ("1", "safe-moderate"),
                    ("2", "safe-strict"),
                ],
                &params.safesearch.map(|s| s.to_string()).unwrap_or_default(),
                tr,
            ),
            estimate: resp
                .estimate
                .map(|n| tr.s("estimate-line", "n", &tr.number(n))),
            failure_groups,
            offline_hint,
            left_out,
            time_range_dropped: (resp.time_range_dropped > 0)
                .then(|| tr.n("time-range-dropped", resp.time_range_dropped as u64)),
            answers: super::cards::answers(&resp.answers, tr),
            infoboxes: super::cards::infoboxes(&resp.infoboxes, tr, !params.no_thumbnails),
            image_grid,
        }
    }

    /// The head part alone, sent at once while the request's engines are
    /// asked.
    pub fn head(asked: &SearchAsked, config: &Config) -> ResultsPage {
        let mut page = ResultsPage::of(&SearchResponse::default(), asked, config);
        // No answer yet: the tabs follow the search asked.
        page.tabs = category_tabs(config, &asked.params, &asked.request.query, &asked.ui.tr);
        page.show_tail = false;
        page.streaming = true;
        page.asking = asked
            .request
            .engines
            .iter()
            .map(|e| asked.ui.tr.engine(e))
            .collect();
        page
    }

    /// The tail part alone, sent when the answers are in.
    pub fn tail(mut self) -> ResultsPage {
        self.show_head = false;
        self
    }

    /// The tail of a search that never ran (refused for load, or the page
    /// failed to render after the head was sent): `why` is shown in-page.
    pub fn refused(asked: &SearchAsked, config: &Config, why: String) -> ResultsPage {
        let mut page = ResultsPage::of(&SearchResponse::default(), asked, config).tail();
        page.empty_state = "refused";
        page.notice = Some(why);
        page
    }

    /// The page with the "compared with the configured settings" panel.
    pub fn with_comparison(
        mut self,
        c: &crate::fusion::compare::SettingsComparison,
    ) -> ResultsPage {
        self.comparison = Some(ComparisonView::new(c, &self.tr));
        self
    }
}

/// "answers N s / min / h old" for answers `age_s` seconds old; `None`
/// under a second.
fn answer_age(age_s: u64, tr: &Tr) -> Option<String> {
    match age_s {
        0 => None,
        s if s < 120 => Some(tr.n("answer-age-s", s)),
        s if s < 2 * 3600 => Some(tr.n("answer-age-min", s / 60)),
        s => Some(tr.n("answer-age-h", s / 3600)),
    }
}

/// `(value, label, chosen)` for a `<select>`: labels are catalog keys.
fn choices(options: &[(&str, &str)], chosen: &str, tr: &Tr) -> Vec<(String, String, bool)> {
    options
        .iter()
        .map(|(value, key)| (value.to_string(), tr.t(key), *value == chosen))
        .collect()
}

/// A tab per category the enabled engines serve (SearXNG's order), each a
/// link to the same words in that category (the words that picked engines
/// or a category, `!images`, `!arxiv`, left out: the tab picks); the
/// current one marked.
fn category_tabs(
    config: &Config,
    params: &SearchParams,
    query: &crate::model::Query,
    tr: &Tr,
) -> Vec<(String, String, bool)> {
    let categories = served_categories(config);
    // The categories the search asked (unknown names were left out); none,
    // and no engine named either: `general`.
    let current = match query.categories.first() {
        Some(c) => Some(c.as_str()),
        None if query.engines.is_empty() => categories.first().copied(),
        None => None,
    };
    let q = crate::search::categories::without_picks(config, &params.q);
    categories
        .into_iter()
        .map(|c| {
            let mut p = params.clone();
            p.q = q.clone();
            p.categories = vec![c.to_string()];
            p.engines.clear();
            p.page = 1;
            let label = tr.category(c);
            (label, p.link(1, Format::Html), Some(c) == current)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::display_url;

    #[test]
    fn display_url_is_readable() {
        assert_eq!(
            display_url("https://www.w3schools.com/js/js_intro.asp?x=1#a"),
            "w3schools.com › js › js_intro.asp"
        );
        assert_eq!(
            display_url("https://zh.wikipedia.org/wiki/%E4%BD%A0%E5%A5%BD"),
            "zh.wikipedia.org › wiki › 你好"
        );
        assert_eq!(display_url("not a url"), "not a url");
    }

    #[test]
    fn only_web_links_are_linked() {
        use super::super::ui::safe_href;
        assert!(safe_href("https://a.example/").is_some());
        assert!(safe_href("HTTP://a.example/").is_some());
        for bad in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "data:text/html,x",
            "//a",
            "a",
        ] {
            assert_eq!(safe_href(bad), None, "{bad}");
        }
    }
}
