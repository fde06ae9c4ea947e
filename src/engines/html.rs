//! `kind = "html"`: engines read with CSS selectors.
//!
//! `parse.results` selects one element per result; inside it `title`, `url`
//! and `snippet` are selectors. `"sel@attr"` reads an attribute (of the
//! first match) instead of the text, `"@attr"` reads it from the result
//! element itself, and `"a || b"` tries alternatives in order. Titles and
//! snippets are the visible text of every element the selector matches (not
//! inside an earlier match), in document order, entities decoded, joined as
//! [`super::text::join_pieces`] says: Baidu splits a 2026 abstract over
//! several `summary-text` spans. A link is one value: the first match's.
//!
//! Two optional fields say where a result really goes when the engine's
//! link is a redirect of its own that cannot be unwrapped (Baidu's
//! `/link?url=…`): `key_url` (a URL, such as Baidu's `@mu`) is used for the
//! dedup key and the readable URL line, `display_url` (the URL the page
//! shows, such as `.c-showurl`, read only when it looks like one) for the
//! URL line alone. The link a user clicks is always `url`.
//!
//! Every page is classified, never silently empty:
//!
//! 1. a `parse.blocked` marker → [`ParseError::Blocked`], checked first
//!    because bot checks can look like a results page;
//! 2. a `parse.no_results` marker → `Ok` with zero hits, even when the page
//!    goes on to show results for a relaxed query ("No results found for
//!    "x". Showing results for x (without quotes)") — they answer another
//!    question than the one asked;
//! 3. results found → `Ok`;
//! 4. nothing found, and a generic bot-check marker
//!    ([`super::GENERIC_BLOCK_MARKERS`]) in the page's visible text →
//!    `Blocked`;
//! 5. otherwise [`ParseError::Invalid`]: the selectors matched nothing on a
//!    page that does not say it has no results, so the site's markup may
//!    have changed (or the page is a JavaScript shell, like Swisscows') —
//!    the admin should see that, not a quiet zero.
//!
//! A marker is a CSS selector when it starts with `.`, `#` or `[` or is
//! written `css:li.b_no`; anything else is a case-insensitive substring of
//! the raw page (so it can name a script, like Sogou's `antispider`), found
//! by [`super::markers`] with no lower-cased copy of the page.
//!
//! The tree is built from the page as [`super::prefilter`] cuts it: the
//! selectors' view is the same, at well under half the parser's work. Then
//! the elements `parse.exclude` names are removed ([`super::exclude`] holds
//! the rule) before any marker selector, result, field or suggestion is read.

use html5ever::LocalName;
use scraper::{ElementRef, Html, Selector};

use super::exclude::Exclude;
use super::fast_parse::{self, Bail, StreamPick, StreamPlan, Streamed};
use super::markers::Markers;
use super::prefilter::{Keep, prefilter};
use super::text::{element_raw_text, element_text, join_pieces};
use super::{Engine, Hit, ParseError, Parsed, RequestSpec, display_link, resolve_link};
use crate::config::{EngineConfig, ParseConfig};
use crate::model::Query;

/// One way to read a value out of a result element.
#[derive(Debug)]
struct Pick {
    /// `None` = the result element itself.
    selector: Option<Selector>,
    /// `None` = the element's text.
    attr: Option<String>,
}

/// Alternatives tried in order; the first non-empty value wins.
#[derive(Debug)]
struct Field(Vec<Pick>);

/// The alternatives of a field spec: `(selector, attribute)`, an empty
/// selector meaning the result element itself.
fn split_field(spec: &str) -> Vec<(&str, Option<&str>)> {
    spec.split(" || ")
        .map(|alt| {
            let alt = alt.trim();
            match alt.rfind('@') {
                Some(i)
                    if alt[i + 1..]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
                        && i + 1 < alt.len() =>
                {
                    (alt[..i].trim(), Some(&alt[i + 1..]))
                }
                _ => (alt, None),
            }
        })
        .collect()
}

impl Field {
    fn parse(spec: &str) -> Result<Field, String> {
        let picks = split_field(spec)
            .into_iter()
            .map(|(sel, attr)| {
                let selector = if sel.is_empty() {
                    None
                } else {
                    Some(parse_selector(sel)?)
                };
                Ok(Pick {
                    selector,
                    attr: attr.map(str::to_string),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Field(picks))
    }

    /// The first non-empty value for `el`, as text (attributes are trimmed,
    /// element text is whitespace-collapsed). An attribute is read from the
    /// pick's first match; text, with `join`, from every match not inside an
    /// earlier one, in document order ([`join_pieces`]) — a snippet the page
    /// splits over several matching elements comes out whole — and without
    /// it from the first match alone (a link, a display URL: one value).
    fn value(&self, el: ElementRef<'_>, join: bool) -> Option<String> {
        self.0.iter().find_map(|pick| {
            let v = match (&pick.selector, &pick.attr) {
                (None, Some(a)) => el.value().attr(a)?.trim().to_string(),
                (None, None) => element_text(el),
                (Some(s), Some(a)) => el.select(s).next()?.value().attr(a)?.trim().to_string(),
                (Some(s), None) if !join => element_text(el.select(s).next()?),
                (Some(s), None) => {
                    let mut pieces = Vec::new();
                    let mut last: Option<ElementRef<'_>> = None;
                    for m in el.select(s) {
                        if last.is_some_and(|l| m.ancestors().any(|a| a.id() == l.id())) {
                            continue;
                        }
                        pieces.push(element_raw_text(m));
                        last = Some(m);
                    }
                    join_pieces(pieces.iter().map(String::as_str))
                }
            };
            (!v.is_empty()).then_some(v)
        })
    }
}

fn parse_selector(s: &str) -> Result<Selector, String> {
    Selector::parse(s).map_err(|e| format!("bad selector {s:?}: {}", selector_error(&e)))
}

/// What is wrong with a selector, in words: scraper's own message for most
/// errors is "Unexpected error occurred. Please report this to the
/// developer" and a multi-line dump, which tells an admin nothing.
pub(super) fn selector_error(e: &scraper::error::SelectorErrorKind) -> String {
    use scraper::error::SelectorErrorKind as K;
    let K::UnexpectedSelectorParseError(inner) = e else {
        return e.to_string().to_lowercase();
    };
    // `DanglingCombinator`, `UnsupportedPseudoClassOrElement("foo")`:
    // the variant's words, then what it carries.
    let debug = format!("{inner:?}");
    let (name, payload) = debug.split_at(debug.find('(').unwrap_or(debug.len()));
    let mut words = String::new();
    for c in name.chars() {
        if c.is_uppercase() && !words.is_empty() {
            words.push(' ');
        }
        words.push(c.to_ascii_lowercase());
    }
    let words = match words.as_str() {
        "empty selector" => "empty selector (or an empty part between commas)".to_string(),
        "dangling combinator" => "a combinator (>, +, ~) with nothing after it".to_string(),
        _ => words,
    };
    let payload = payload.trim_start_matches('(').trim_end_matches(')');
    if payload.is_empty() {
        words
    } else {
        format!("{words} at {payload}")
    }
}

/// The streaming path's picks of a field spec.
fn stream_field(spec: &str) -> Result<Vec<StreamPick>, String> {
    split_field(spec)
        .into_iter()
        .map(|(sel, attr)| {
            Ok(StreamPick {
                selector: (!sel.is_empty())
                    .then(|| fast_parse::compile(sel))
                    .transpose()?,
                attr: attr.map(LocalName::from),
            })
        })
        .collect()
}

/// What the streaming path reads for a parse table, or why it cannot read
/// it (then the engine takes the tree path).
fn stream_plan(p: &ParseConfig) -> Result<StreamPlan, String> {
    let field = |spec: &Option<String>| -> Result<Vec<StreamPick>, String> {
        spec.as_deref().map(stream_field).unwrap_or(Ok(Vec::new()))
    };
    Ok(StreamPlan {
        results: fast_parse::compile(p.results.as_deref().unwrap_or_default())?,
        skip: p.skip.as_deref().map(fast_parse::compile).transpose()?,
        fields: [
            field(&p.title)?,
            field(&p.url)?,
            field(&p.snippet)?,
            field(&p.key_url)?,
            field(&p.display_url)?,
        ],
        suggestions: field(&p.suggestions)?,
        markers: p
            .blocked
            .iter()
            .chain(&p.no_results)
            .filter_map(|m| marker_selector(m))
            .map(fast_parse::compile)
            .collect::<Result<_, _>>()?,
        exclude: p
            .exclude
            .iter()
            .map(|x| fast_parse::compile(x.trim()))
            .collect::<Result<_, _>>()?,
        seen: Default::default(),
        gate: Default::default(),
    }
    .seal())
}

/// Whether `el` is still in the document: `Html::select` walks every node
/// scraper ever made, so an element `exclude` detached (with everything
/// inside it) would still be found there.
fn in_tree(el: &ElementRef<'_>) -> bool {
    el.ancestors()
        .last()
        .is_some_and(|n| n.value().is_document())
}

/// A page marker: a CSS selector when it starts with `.`, `#` or `[` (or
/// is written `css:selector`), else a case-insensitive substring of the page.
/// The two are kept apart so `.no-results` never matches a stylesheet rule.
#[derive(Debug)]
enum Marker {
    Text(String),
    Css(String, Selector),
}

/// The selector of a marker written as one (see [`Marker`]), `None` for a
/// text marker.
fn marker_selector(s: &str) -> Option<&str> {
    s.strip_prefix("css:")
        .or_else(|| s.starts_with(['.', '#', '[']).then_some(s))
}

/// Every CSS selector a parse table reads: the field selectors and the
/// markers written as selectors. The prefilter keeps the attributes and
/// class names these name.
pub fn selectors_read(p: &ParseConfig) -> impl Iterator<Item = &str> {
    [
        &p.results,
        &p.title,
        &p.url,
        &p.snippet,
        &p.key_url,
        &p.display_url,
        &p.skip,
        &p.suggestions,
    ]
    .into_iter()
    .flatten()
    .map(String::as_str)
    .chain(p.exclude.iter().map(String::as_str))
    .chain(
        p.blocked
            .iter()
            .chain(&p.no_results)
            .filter_map(|m| marker_selector(m)),
    )
}

impl Marker {
    fn new(s: &str) -> Result<Marker, String> {
        Ok(match marker_selector(s) {
            Some(sel) => Marker::Css(sel.to_string(), parse_selector(sel)?),
            None => Marker::Text(s.to_lowercase()),
        })
    }

    fn name(&self) -> &str {
        match self {
            Marker::Text(t) => t,
            Marker::Css(s, _) => s,
        }
    }

    fn in_doc(&self, doc: &Html) -> bool {
        matches!(self, Marker::Css(_, s) if doc.select(s).any(|e| in_tree(&e)))
    }
}

/// An engine read with CSS selectors.
#[derive(Debug)]
pub struct HtmlEngine {
    config: EngineConfig,
    base: url::Url,
    results: Selector,
    title: Field,
    url: Field,
    snippet: Option<Field>,
    key_url: Option<Field>,
    display_url: Option<Field>,
    skip: Option<Selector>,
    blocked: Vec<Marker>,
    no_results: Vec<Marker>,
    /// The text markers of `blocked`, then those of `no_results`, searched
    /// in one pass over the page before it is parsed.
    text_markers: Markers,
    /// The names of the `blocked` ones (the first of the list), for the
    /// error.
    blocked_names: Vec<String>,
    suggestions: Option<Field>,
    exclude: Exclude,
    keep: Keep,
    /// The streaming path, or why this engine cannot take it.
    stream: Result<StreamPlan, String>,
    /// The names of the `blocked` markers written as selectors, in order.
    blocked_css: Vec<String>,
}

impl HtmlEngine {
    /// Compiles the selectors of `config`.
    pub fn new(config: EngineConfig) -> Result<HtmlEngine, String> {
        let base = super::base_url(&config)?;
        let name = config.name.clone();
        let p = &config.parse;
        let need = |what: &str, v: &Option<String>| -> Result<String, String> {
            v.clone()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| format!("engine {name:?}: kind html needs parse.{what}"))
        };
        let ctx = |what: &str| {
            let name = name.clone();
            let what = what.to_string();
            move |e: String| format!("engine {name:?}: parse.{what}: {e}")
        };
        let results = parse_selector(&need("results", &p.results)?).map_err(ctx("results"))?;
        let title = Field::parse(&need("title", &p.title)?).map_err(ctx("title"))?;
        let url = Field::parse(&need("url", &p.url)?).map_err(ctx("url"))?;
        let snippet = p
            .snippet
            .as_deref()
            .map(Field::parse)
            .transpose()
            .map_err(ctx("snippet"))?;
        let optional = |what: &str, spec: &Option<String>| {
            spec.as_deref()
                .map(Field::parse)
                .transpose()
                .map_err(ctx(what))
        };
        let key_url = optional("key_url", &p.key_url)?;
        let display_url = optional("display_url", &p.display_url)?;
        let skip = p
            .skip
            .as_deref()
            .map(parse_selector)
            .transpose()
            .map_err(ctx("skip"))?;
        let suggestions = p
            .suggestions
            .as_deref()
            .map(Field::parse)
            .transpose()
            .map_err(ctx("suggestions"))?;
        let exclude = Exclude::new(&p.exclude).map_err(ctx("exclude"))?;
        let blocked = p
            .blocked
            .iter()
            .map(|s| Marker::new(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(ctx("blocked"))?;
        let no_results = p
            .no_results
            .iter()
            .map(|s| Marker::new(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(ctx("no_results"))?;
        let text = |ms: &[Marker]| -> Vec<String> {
            ms.iter()
                .filter_map(|m| match m {
                    Marker::Text(t) => Some(t.clone()),
                    Marker::Css(..) => None,
                })
                .collect()
        };
        let blocked_names = text(&blocked);
        let text_markers = Markers::new(blocked_names.iter().chain(&text(&no_results)));
        let keep = Keep::from_specs(selectors_read(p));
        let stream = stream_plan(p);
        let blocked_css = blocked
            .iter()
            .filter_map(|m| match m {
                Marker::Css(name, _) => Some(name.clone()),
                Marker::Text(_) => None,
            })
            .collect();
        Ok(HtmlEngine {
            base,
            results,
            title,
            url,
            snippet,
            key_url,
            display_url,
            skip,
            blocked,
            no_results,
            text_markers,
            blocked_names,
            suggestions,
            exclude,
            keep,
            stream,
            blocked_css,
            config,
        })
    }

    /// Why this engine reads its pages with the tree path only, if it does:
    /// a selector the streaming path cannot decide when an element is
    /// inserted.
    pub fn tree_only(&self) -> Option<&str> {
        self.stream.as_ref().err().map(String::as_str)
    }

    /// The page read by the tree path alone (the reference).
    pub fn parse_tree(&self, body: &str) -> Result<Parsed, ParseError> {
        let empty = self.text_marks(body)?;
        self.outcome_of_tree(empty, &prefilter(body, &self.keep))
    }

    /// The page read by the streaming path alone: `Err` when it leaves it
    /// (an engine that cannot stream, a page html5ever rearranges, a page
    /// that yields no result and needs the tree to say why).
    pub fn parse_streamed(&self, body: &str) -> Result<Result<Parsed, ParseError>, Leave> {
        let empty = match self.text_marks(body) {
            Ok(empty) => empty,
            Err(e) => return Ok(Err(e)),
        };
        let plan = self.stream.as_ref().map_err(|_| Leave::TreeOnly)?;
        let out = plan
            .run(&prefilter(body, &self.keep))
            .map_err(Leave::Page)?;
        self.outcome_of_stream(empty, out).ok_or(Leave::NoResults)
    }

    /// The page read by the streaming path's fast front end alone (no
    /// prefilter, no html5ever): `Err` when it hands the page over or
    /// leaves the streaming path as [`Self::parse_streamed`] does.
    pub fn parse_fast(&self, body: &str) -> Result<Result<Parsed, ParseError>, Leave> {
        let empty = match self.text_marks(body) {
            Ok(empty) => empty,
            Err(e) => return Ok(Err(e)),
        };
        let plan = self.stream.as_ref().map_err(|_| Leave::TreeOnly)?;
        let out = plan.run_fast(body, &self.keep).map_err(Leave::Page)?;
        self.outcome_of_stream(empty, out).ok_or(Leave::NoResults)
    }

    /// The text markers in `body`, in one pass: `Err` for the first
    /// `blocked` one found (in list order), else whether a `no_results`
    /// one is there.
    fn text_marks(&self, body: &str) -> Result<bool, ParseError> {
        let found = self.text_markers.found_in(body);
        let (blocked, empty) = found.split_at(self.blocked_names.len());
        match blocked.iter().position(|&f| f) {
            Some(i) => Err(ParseError::Blocked(format!(
                "page says {:?}",
                self.blocked_names[i]
            ))),
            None => Ok(empty.iter().any(|&f| f)),
        }
    }

    /// The outcome of a streamed page, as [`Self::outcome_of_tree`] decides it;
    /// `None` when no result was found (the tree path then reads the
    /// page's whole text for a bot check).
    /// `empty` = a `no_results` text marker is on the page.
    fn outcome_of_stream(&self, empty: bool, out: Streamed) -> Option<Result<Parsed, ParseError>> {
        let (blocked, no_results) = out.markers.split_at(self.blocked_css.len());
        if let Some(i) = blocked.iter().position(|&m| m) {
            return Some(Err(ParseError::Blocked(format!(
                "page has {:?}",
                self.blocked_css[i]
            ))));
        }
        if empty || no_results.iter().any(|&m| m) {
            return Some(Ok(Parsed::default()));
        }
        let hits: Vec<Hit> = out
            .results
            .into_iter()
            .filter_map(|[title, url, snippet, key_url, display_url]| {
                let url = url.and_then(|u| resolve_link(&self.base, &u))?;
                Some(Hit {
                    url,
                    title: title?,
                    snippet: snippet.unwrap_or_default(),
                    key_url: key_url.and_then(|u| resolve_link(&self.base, &u)),
                    display_url: display_url.as_deref().and_then(display_link),
                    ..Hit::default()
                })
            })
            .collect();
        if hits.is_empty() {
            return None;
        }
        Some(Ok(Parsed {
            hits,
            suggestions: out.suggestions,
            estimate: None,
            ..Parsed::default()
        }))
    }

    /// The tree path on the prefiltered page `cut`.
    fn outcome_of_tree(&self, empty: bool, cut: &str) -> Result<Parsed, ParseError> {
        let mut doc = super::dom::parse_document(cut)?;
        self.exclude.remove_from(&mut doc);
        if let Some(m) = self.blocked.iter().find(|m| m.in_doc(&doc)) {
            return Err(ParseError::Blocked(format!("page has {:?}", m.name())));
        }
        // The engine's own "nothing found" wins over what it shows instead
        // (results for a relaxed query are not answers to this one).
        if empty || self.no_results.iter().any(|m| m.in_doc(&doc)) {
            return Ok(Parsed::default());
        }
        let hits = self.hits(&doc);
        if hits.is_empty() {
            return Err(super::empty_page_error(&element_text(doc.root_element())));
        }
        let suggestions = self.suggestions(&doc);
        Ok(Parsed {
            hits,
            suggestions,
            estimate: None,
            ..Parsed::default()
        })
    }

    fn hits(&self, doc: &Html) -> Vec<Hit> {
        let mut hits = Vec::new();
        for el in doc.select(&self.results).filter(in_tree) {
            if self.skip.as_ref().is_some_and(|s| s.matches(&el)) {
                continue;
            }
            let Some(url) = self
                .url
                .value(el, false)
                .and_then(|u| resolve_link(&self.base, &u))
            else {
                continue;
            };
            let Some(title) = self.title.value(el, true) else {
                continue;
            };
            let read =
                |field: &Option<Field>, join: bool| field.as_ref().and_then(|f| f.value(el, join));
            hits.push(Hit {
                url,
                title,
                snippet: read(&self.snippet, true).unwrap_or_default(),
                key_url: read(&self.key_url, false).and_then(|u| resolve_link(&self.base, &u)),
                display_url: read(&self.display_url, false)
                    .as_deref()
                    .and_then(display_link),
                ..Hit::default()
            });
        }
        hits
    }

    fn suggestions(&self, doc: &Html) -> Vec<String> {
        let Some(field) = &self.suggestions else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for pick in &field.0 {
            let Some(sel) = &pick.selector else { continue };
            for el in doc.select(sel).filter(in_tree) {
                let v = match &pick.attr {
                    Some(a) => el.value().attr(a).map(str::to_string),
                    None => Some(element_text(el)),
                };
                if let Some(v) = v.filter(|v| !v.is_empty() && !out.contains(v)) {
                    out.push(v);
                }
            }
        }
        out
    }
}

impl Engine for HtmlEngine {
    fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn build_request(&self, query: &Query) -> RequestSpec {
        super::default_request(&self.config, query)
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        let empty = self.text_marks(body)?;
        let Ok(plan) = &self.stream else {
            return self.outcome_of_tree(empty, &prefilter(body, &self.keep));
        };
        // The fast front end on the page as it came; a page it hands over
        // is read again by html5ever on the streaming path, then the tree.
        let fast = plan.run_fast(body, &self.keep);
        if let Ok(out) = fast {
            return match self.outcome_of_stream(empty, out) {
                Some(outcome) => outcome,
                None => self.outcome_of_tree(empty, &prefilter(body, &self.keep)),
            };
        }
        let cut = prefilter(body, &self.keep);
        if let Ok(out) = plan.run(&cut)
            && let Some(outcome) = self.outcome_of_stream(empty, out)
        {
            return outcome;
        }
        self.outcome_of_tree(empty, &cut)
    }
}

/// Why [`HtmlEngine::parse_streamed`] left the streaming path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// The engine uses a selector the streaming path cannot decide.
    TreeOnly,
    /// The page: html5ever rearranged it, or it passed a budget.
    Page(Bail),
    /// No result found: the tree path says why.
    NoResults,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn a_bad_selector_is_named_with_its_engine_and_key() {
        for (selector, what) in [
            ("h2 >", "combinator"),
            (":foo(", "unsupported pseudo class or element"),
            ("a,,b", "empty selector"),
            ("div[", "unexpected eol"),
        ] {
            let text = format!(
                "[[engine]]\nname = \"bad\"\nkind = \"html\"\nurl = \"https://x.example/?q={{query}}\"\n\
                 [engine.parse]\nresults = {selector:?}\ntitle = \"a\"\nurl = \"a@href\"\n"
            );
            let errors = super::super::check_config(&text, Path::new("engines.toml")).unwrap_err();
            let message = errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n");
            assert!(message.contains("\"bad\""), "{message}");
            assert!(message.contains("parse.results"), "{message}");
            assert!(message.contains(&format!("{selector:?}")), "{message}");
            assert!(message.contains(what), "{message}");
            assert!(!message.contains("report this"), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }

    /// The fast front end stops at the engine's deadline as the other paths
    /// do (the sink looks at the clock as elements are inserted), and the
    /// tree path then refuses the page with its reason.
    #[test]
    fn the_fast_front_end_stops_at_the_deadline() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let config = crate::config::Config::load(&root.join("engines.toml")).unwrap();
        let ddg = config
            .engines
            .into_iter()
            .find(|e| e.name == "duckduckgo")
            .unwrap();
        let engine = super::HtmlEngine::new(ddg).unwrap();
        let page = "<div class=result><a class=result__a href=https://e.org/a>a</a></div>";
        assert!(engine.parse_fast(page).is_ok());
        let past = std::time::Instant::now();
        let fast = crate::engines::dom::with_deadline(past, || engine.parse_fast(page));
        assert_eq!(fast, Err(super::Leave::Page(super::Bail::Deadline)));
        let parsed = crate::engines::parse_until(&engine, page, past);
        assert!(parsed.is_err(), "{parsed:?}");
    }
}
