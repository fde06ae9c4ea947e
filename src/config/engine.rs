//! `[[engine]]`: one member engine — its kind, request URL template,
//! weight, timeout, shortcuts and categories, and the `[engine.parse]` table
//! that says where a result's parts are in its answers.
//!
//! The checks here are the ones a table can fail on its own (names, template
//! placeholders, numbers, required parse fields). Whether selectors,
//! pointers and item templates work is for the kind's builder in
//! the `engines` module, handed in as an `EngineCheck`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::controls::{SafeSearchMap, TimeRangeMap};
use super::server::check_http_url;
use super::template::{FieldsConfig, FollowConfig, InfoboxConfig};
use super::{EngineCheck, Problem, Seg, path};

/// The kind of an engine: which parser reads its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// JSON pointer to a list, then field paths or templates per item.
    Json,
    /// CSS selectors.
    Html,
    /// RSS 2.0, Atom or OpenSearch.
    Feed,
    /// Another SearXNG-compatible instance's `/search?format=json`.
    Searxng,
}

/// One string or a list of strings (`shortcut = "wp"` or `["wp", "w"]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single value.
    One(String),
    /// Several values.
    Many(Vec<String>),
    /// Absent.
    #[default]
    #[serde(skip)]
    None,
}

impl OneOrMany {
    /// Whether it is absent (then it is not written out: an untagged unit
    /// variant has no TOML or JSON form).
    pub fn is_none(&self) -> bool {
        matches!(self, OneOrMany::None)
    }

    /// The values as a slice-like vector.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
            OneOrMany::None => Vec::new(),
        }
    }
}

/// `[engine.parse]`: where the parts of a result are in an answer. Field
/// meaning depends on the kind (JSON pointer / field paths, or CSS selectors
/// with `sel@attr`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParseConfig {
    /// json: JSON pointer to the list; html: selector of one result.
    pub results: Option<String>,
    /// Title field path or selector.
    pub title: Option<String>,
    /// URL field path, template, or selector (`sel@href`).
    pub url: Option<String>,
    /// Snippet field path or selector.
    pub snippet: Option<String>,
    /// html: where the result's real target is when `url` is the engine's
    /// own redirect (`@mu`): used for the dedup key and the readable URL
    /// line, never as the link clicked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_url: Option<String>,
    /// html: the URL the page shows for the result (`.c-showurl`), for the
    /// readable URL line when there is no `key_url`; ignored when it is not
    /// a URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_url: Option<String>,
    /// Selectors (html) or substrings that mark a CAPTCHA / bot-check page.
    pub blocked: Vec<String>,
    /// Selectors or substrings that mark an explicit "no results" page.
    pub no_results: Vec<String>,
    /// html: results matching this selector are skipped (ads, widgets).
    pub skip: Option<String>,
    /// Suggestions: JSON pointer or selector.
    pub suggestions: Option<String>,
    /// html: CSS selectors of elements removed, with everything inside
    /// them, before anything is read (labels glued to snippets, display URLs
    /// inside title links, widgets); see `engines::html` for the exact rule.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// json: the publication date's field path (RFC 3339, RFC 2822, a bare
    /// date or Unix seconds), reported as SearXNG's `publishedDate`.
    pub date: Option<String>,
    /// json: the field path (or URL template) of the result's image,
    /// reported as `thumbnail` / `img_src`.
    pub thumbnail: Option<String>,
    /// json: JSON pointer to the engine's estimate of its result count,
    /// reported as `number_of_results`.
    pub total: Option<String>,
    /// json, feed: where SearXNG's template fields are in an item
    /// (`[engine.parse.fields]`, read under `[[engine]] template`).
    #[serde(skip_serializing_if = "FieldsConfig::is_empty")]
    pub fields: FieldsConfig,
    /// json: the answer read as boxes about an entity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infobox: Option<InfoboxConfig>,
    /// json: JSON pointer to a direct answer's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// json: JSON pointer to the direct answer's source link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_url: Option<String>,
}

/// One `[[engine]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Unique name.
    pub name: String,
    /// Parser kind.
    pub kind: EngineKind,
    /// Request URL template with `{query}`, `{page}`, `{offset}`, `{lang}`.
    pub url: String,
    /// Weight in fusion.
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Per-engine timeout.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Asked by default.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// `!shortcut` names.
    #[serde(default, skip_serializing_if = "OneOrMany::is_none")]
    pub shortcut: OneOrMany,
    /// Categories (`general`, `news`, …).
    #[serde(default = "default_categories")]
    pub categories: Vec<String>,
    /// Results per page, for `{offset}`.
    #[serde(default = "default_page_size")]
    pub page_size: u32,
    /// Search operators it understands (`site`, `exclude`, `phrase`,
    /// `intitle`, `filetype`): sent to it as typed; the others are taken
    /// out of its query. Results are checked against every operator.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operators: Vec<super::OperatorKind>,
    /// Outbound budget: requests a minute on average, shared by every
    /// instance on one Redis (`None`: no budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_minute: Option<u32>,
    /// Outbound budget: requests at once before the pace of
    /// `max_per_minute` applies (`None`: a sixth of `max_per_minute`, ten
    /// seconds' worth, at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
    /// The proxy (or proxies, taken in turn) this engine's requests go
    /// through, instead of `[outgoing] proxies`; `[]`: always direct.
    #[serde(default, skip_serializing_if = "OneOrMany::is_none")]
    pub proxy: OneOrMany,
    /// Extra request headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Where the parts of a result are.
    #[serde(default)]
    pub parse: ParseConfig,
    /// SearXNG's result template of this engine's results (`paper.html`,
    /// `images.html`, `videos.html`, `packages.html`, `map.html`); none is
    /// `default.html`. The parse table's template fields are read under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<crate::model::Template>,
    /// A second request built from the first answer, whose answer is the
    /// one parsed (`[engine.follow]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow: Option<FollowConfig>,
    /// The engine needs a key from the environment (`${VAR}` in a header):
    /// without it the engine is off, instead of the configuration refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_env: bool,
    /// Answer from this recording folder instead of the network.
    #[serde(default)]
    pub replay: Option<PathBuf>,
    /// How a query's time range reaches the engine (`[engine.time_range]`);
    /// none: it cannot be asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_range: Option<TimeRangeMap>,
    /// How a query's safe-search level reaches the engine
    /// (`[engine.safesearch]`); none: it cannot be asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safesearch: Option<SafeSearchMap>,
    /// Set by loading when a header value's `${VAR}` names an unset
    /// variable and the engine is disabled or replays (an enabled engine
    /// that asks the network is refused instead): what is missing. The
    /// header keeps its `${VAR}` text and the engine is never asked over
    /// the network, even by name.
    #[serde(skip)]
    pub unset_env: Option<String>,
}

impl EngineConfig {
    /// The outbound budget, `(per_minute, burst)`, when one is set.
    pub fn budget(&self) -> Option<(u32, u32)> {
        let per_minute = self.max_per_minute.filter(|&n| n > 0)?;
        let burst = self.burst.unwrap_or(per_minute.div_ceil(6)).max(1);
        Some((per_minute, burst))
    }
}

fn default_weight() -> f64 {
    1.0
}
fn default_timeout_ms() -> u64 {
    2500
}
fn default_true() -> bool {
    true
}
fn default_categories() -> Vec<String> {
    vec!["general".into()]
}
fn default_page_size() -> u32 {
    10
}

/// The placeholders a URL template may use.
/// (`{page0}` is the 0-based page, `{offset1}` the 1-based offset: some
/// engines count from 0, others from 1; `{time_range}` and `{safesearch}`
/// are the values of `[engine.time_range]` and `[engine.safesearch]`,
/// empty when none is asked.)
pub(crate) const PLACEHOLDERS: [&str; 9] = [
    "query",
    "page",
    "offset",
    "lang",
    "page0",
    "offset1",
    "time_range",
    "safesearch",
    "contact",
];

/// Problems of every `[[engine]]`: each table's own, names and shortcuts
/// used twice, and what `engine_check` refuses of a table that passed.
pub(super) fn problems(
    engines: &[EngineConfig],
    engine_check: EngineCheck<'_>,
    out: &mut Vec<Problem>,
) {
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut shortcuts: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in engines.iter().enumerate() {
        if let Some(&first) = names.get(e.name.as_str()) {
            out.push(Problem::engine(
                i,
                "name",
                format!(
                    "engine.name: {:?} is already the name of engine #{} (names must be unique)",
                    e.name,
                    first + 1
                ),
            ));
        } else {
            names.insert(&e.name, i);
        }
        for sc in e.shortcut.to_vec() {
            if let Some(&first) = shortcuts.get(&sc) {
                if first != i {
                    out.push(Problem::engine(
                            i,
                            "shortcut",
                            format!(
                                "engine.shortcut: {sc:?} of engine {:?} is already the shortcut of engine {:?}",
                                e.name, engines[first].name
                            ),
                        ));
                }
            } else {
                shortcuts.insert(sc, i);
            }
        }
        let before = out.len();
        e.problems(i, out);
        // The kind's builder knows more (selector dialects, templates
        // over item fields); ask it once the table passed our checks.
        if out.len() == before
            && let Err(message) = engine_check(e)
        {
            out.push(builder_problem(i, message));
        }
    }
}

impl EngineConfig {
    /// Problems of one engine table (the `i`-th `[[engine]]`).
    fn problems(&self, i: usize, out: &mut Vec<Problem>) {
        let who = &self.name;
        if !is_word(&self.name) {
            out.push(Problem::engine(
                i,
                "name",
                format!("engine.name: {who:?} must be non-empty, without spaces or '!'"),
            ));
        }
        for sc in self.shortcut.to_vec() {
            if !is_word(&sc) {
                out.push(Problem::engine(
                    i,
                    "shortcut",
                    format!("engine.shortcut: {sc:?} of engine {who:?} must be non-empty, without spaces or '!'"),
                ));
            }
        }
        if let Err(m) = check_template(&self.url) {
            out.push(Problem::engine(
                i,
                "url",
                format!("engine.url of {who:?}: {m}"),
            ));
        }
        if !(self.weight.is_finite() && self.weight > 0.0) {
            out.push(Problem::engine(
                i,
                "weight",
                format!(
                    "engine.weight of {who:?}: must be a number above 0, got {}",
                    self.weight
                ),
            ));
        }
        if self.timeout_ms == 0 {
            out.push(Problem::engine(
                i,
                "timeout_ms",
                format!("engine.timeout_ms of {who:?}: must be at least 1"),
            ));
        }
        if self.page_size == 0 {
            out.push(Problem::engine(
                i,
                "page_size",
                format!("engine.page_size of {who:?}: must be at least 1"),
            ));
        }
        if self.max_per_minute == Some(0) {
            out.push(Problem::engine(
                i,
                "max_per_minute",
                format!("engine.max_per_minute of {who:?}: must be at least 1 (leave it out for no budget)"),
            ));
        }
        if self.burst == Some(0) {
            out.push(Problem::engine(
                i,
                "burst",
                format!("engine.burst of {who:?}: must be at least 1"),
            ));
        }
        for p in self.proxy.to_vec() {
            if let Err(m) = super::outgoing::check_proxy_url(&p) {
                out.push(Problem::engine(
                    i,
                    "proxy",
                    format!("engine.proxy of {who:?}: {m}"),
                ));
            }
        }
        if self.burst.is_some() && self.max_per_minute.is_none() {
            out.push(Problem::engine(
                i,
                "burst",
                format!(
                    "engine.burst of {who:?}: needs max_per_minute (the budget it is the burst of)"
                ),
            ));
        }
        if self.categories.is_empty()
            || self
                .categories
                .iter()
                .any(|c| c.trim().is_empty() || c.contains('!'))
        {
            out.push(Problem::engine(
                i,
                "categories",
                format!(
                    "engine.categories of {who:?}: needs at least one non-empty name, without '!'"
                ),
            ));
        }
        for (name, value) in &self.headers {
            let ok = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
                && reqwest::header::HeaderValue::from_str(value).is_ok();
            if !ok {
                out.push(Problem::engine(
                    i,
                    "headers",
                    format!(
                        "engine.headers of {who:?}: {name:?} = {value:?} is not a valid HTTP header"
                    ),
                ));
            }
        }
        self.parse_problems(i, out);
        self.control_problems(i, out);
    }

    /// Whether `[engine.time_range]` and `[engine.safesearch]` can work, and
    /// a `{time_range}` / `{safesearch}` in the url has its table.
    fn control_problems(&self, i: usize, out: &mut Vec<Problem>) {
        let who = &self.name;
        let tables = [
            (
                "time_range",
                self.time_range.as_ref().map(|m| m.problems(&self.url)),
            ),
            (
                "safesearch",
                self.safesearch.as_ref().map(|m| m.problems(&self.url)),
            ),
        ];
        for (table, problems) in tables {
            match problems {
                None if self.url.contains(&format!("{{{table}}}")) => out.push(Problem::engine(
                    i,
                    "url",
                    format!(
                        "engine.url of {who:?}: {{{table}}} needs an [engine.{table}] table giving the engine's values"
                    ),
                )),
                None => {}
                Some(problems) => {
                    for (key, message) in problems {
                        out.push(Problem {
                            paths: vec![
                                path(&[
                                    Seg::Key("engine"),
                                    Seg::Index(i),
                                    Seg::Key(table),
                                    Seg::Key(key),
                                ]),
                                path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key(table)]),
                                path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("name")]),
                            ],
                            message: format!("engine.{table} of {who:?}: {message}"),
                            whole_file: false,
                        });
                    }
                }
            }
        }
    }

    /// Whether the `[engine.parse]` table can work for the kind.
    fn parse_problems(&self, i: usize, out: &mut Vec<Problem>) {
        let who = &self.name;
        let p = &self.parse;
        // What each kind cannot do without; the kind's builder checks the
        // values themselves (selector syntax, pointers, templates).
        let needs: &[(&str, &Option<String>)] = match self.kind {
            EngineKind::Html => &[
                ("results", &p.results),
                ("title", &p.title),
                ("url", &p.url),
            ],
            // An engine that gives boxes or answers alone reads no list.
            EngineKind::Json if p.infobox.is_some() || p.answer.is_some() => &[],
            EngineKind::Json => &[("title", &p.title), ("url", &p.url)],
            EngineKind::Feed | EngineKind::Searxng => &[],
        };
        if self.kind != EngineKind::Html && !p.exclude.is_empty() {
            out.push(Problem {
                paths: vec![
                    path(&[
                        Seg::Key("engine"),
                        Seg::Index(i),
                        Seg::Key("parse"),
                        Seg::Key("exclude"),
                    ]),
                    path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("kind")]),
                ],
                message: format!(
                    "engine.parse.exclude of {who:?}: only kind \"html\" reads selectors, this engine is kind {:?}",
                    kind_name(self.kind)
                ),
                whole_file: false,
            });
        }
        for (field, value) in needs {
            if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                out.push(Problem {
                    paths: vec![
                        path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("parse")]),
                        path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("kind")]),
                    ],
                    message: format!(
                        "engine.parse.{field} of {who:?}: required for kind {:?}",
                        kind_name(self.kind)
                    ),
                    whole_file: false,
                });
            }
        }
        // Read by html engines alone: elsewhere they would be ignored.
        if self.kind != EngineKind::Html {
            for (field, value) in [("key_url", &p.key_url), ("display_url", &p.display_url)] {
                if value.is_some() {
                    out.push(Problem {
                        paths: vec![path(&[
                            Seg::Key("engine"),
                            Seg::Index(i),
                            Seg::Key("parse"),
                            Seg::Key(field),
                        ])],
                        message: format!(
                            "engine.parse.{field} of {who:?}: read only by kind \"html\", not {:?}",
                            kind_name(self.kind)
                        ),
                        whole_file: false,
                    });
                }
            }
        }
        // Read by json engines alone (feeds and SearXNG answers carry their
        // images themselves; a feed's date and template fields are element
        // paths): elsewhere they would be ignored.
        let feed = self.kind == EngineKind::Feed;
        if self.kind != EngineKind::Json {
            for (field, set) in [
                ("date", p.date.is_some() && !feed),
                ("thumbnail", p.thumbnail.is_some()),
                ("total", p.total.is_some()),
                ("fields", !p.fields.is_empty() && !feed),
                ("infobox", p.infobox.is_some()),
                ("answer", p.answer.is_some()),
                ("answer_url", p.answer_url.is_some()),
            ] {
                if set {
                    out.push(Problem {
                        paths: vec![path(&[
                            Seg::Key("engine"),
                            Seg::Index(i),
                            Seg::Key("parse"),
                            Seg::Key(field),
                        ])],
                        message: format!(
                            "engine.parse.{field} of {who:?}: not read by kind {:?}",
                            kind_name(self.kind)
                        ),
                        whole_file: false,
                    });
                }
            }
        }
    }
}

/// A builder's refusal, pointed at the `parse.FIELD` it names, if any.
fn builder_problem(i: usize, message: String) -> Problem {
    const FIELDS: [&str; 18] = [
        "fields",
        "infobox",
        "answer_url",
        "answer",
        "exclude",
        "results",
        "title",
        "url",
        "snippet",
        "key_url",
        "display_url",
        "skip",
        "suggestions",
        "blocked",
        "no_results",
        "date",
        "thumbnail",
        "total",
    ];
    let field = message.split("parse.").skip(1).find_map(|rest| {
        FIELDS
            .iter()
            .copied()
            .filter(|f| rest.starts_with(f))
            .max_by_key(|f| f.len())
    });
    let mut paths = Vec::new();
    if let Some(f) = field {
        paths.push(path(&[
            Seg::Key("engine"),
            Seg::Index(i),
            Seg::Key("parse"),
            Seg::Key(f),
        ]));
        paths.push(path(&[
            Seg::Key("engine"),
            Seg::Index(i),
            Seg::Key("parse"),
        ]));
    }
    paths.push(path(&[Seg::Key("engine"), Seg::Index(i), Seg::Key("name")]));
    Problem {
        paths,
        message,
        whole_file: false,
    }
}

fn kind_name(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Json => "json",
        EngineKind::Html => "html",
        EngineKind::Feed => "feed",
        EngineKind::Searxng => "searxng",
    }
}

/// Names used after `!` in queries: one word.
fn is_word(s: &str) -> bool {
    !s.is_empty() && !s.contains('!') && !s.chars().any(char::is_whitespace)
}

/// Checks a request URL template: known placeholders only, `{query}`
/// present, and an absolute http(s) URL once filled in.
pub(crate) fn check_template(template: &str) -> Result<(), String> {
    let mut rest = template;
    let mut filled = String::with_capacity(template.len());
    let mut has_query = false;
    while let Some(open) = rest.find(['{', '}']) {
        filled.push_str(&rest[..open]);
        if rest[open..].starts_with('}') {
            return Err(format!("unmatched '}}' in {template:?}"));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in {template:?}"))?;
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}} (known: {{query}}, {{page}}, {{offset}}, {{lang}}, {{page0}}, {{offset1}}, {{time_range}}, {{safesearch}}, {{contact}})"
            ));
        }
        has_query |= name == "query";
        filled.push_str(match name {
            "query" => "q",
            "lang" => "en",
            "time_range" | "safesearch" => "",
            "contact" => "x",
            _ => "1",
        });
        rest = &after[close + 1..];
    }
    filled.push_str(rest);
    if !has_query {
        return Err(format!("{template:?} has no {{query}} placeholder"));
    }
    check_http_url(&filled)
}
