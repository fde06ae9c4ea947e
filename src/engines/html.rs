//! `kind = "html"`: engines read with CSS selectors.
//!
//! `parse.results` selects one element per result; inside it `title`, `url`
//! and `snippet` are selectors whose first match is used. `"sel@attr"` reads
//! an attribute instead of the text, `"@attr"` reads it from the result
//! element itself, and `"a || b"` tries alternatives in order (Baidu keeps
//! the real target in the result's `mu` attribute only on some results).
//! Titles and snippets are the elements' visible text, entities decoded.
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

use scraper::{ElementRef, Html, Selector};

use super::exclude::Exclude;
use super::markers::Markers;
use super::prefilter::{Keep, prefilter};
use super::text::element_text;
use super::{Engine, Hit, ParseError, Parsed, RequestSpec, resolve_link};
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

impl Field {
    fn parse(spec: &str) -> Result<Field, String> {
        let picks = spec
            .split(" || ")
            .map(|alt| {
                let alt = alt.trim();
                let (sel, attr) = match alt.rfind('@') {
                    Some(i)
                        if alt[i + 1..]
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
                            && i + 1 < alt.len() =>
                    {
                        (alt[..i].trim(), Some(alt[i + 1..].to_string()))
                    }
                    _ => (alt, None),
                };
                let selector = if sel.is_empty() {
                    None
                } else {
                    Some(parse_selector(sel)?)
                };
                Ok(Pick { selector, attr })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Field(picks))
    }

    /// The first non-empty value for `el`, as text (attributes are trimmed,
    /// element text is whitespace-collapsed).
    fn value(&self, el: ElementRef<'_>) -> Option<String> {
        self.0.iter().find_map(|pick| {
            let target = match &pick.selector {
                None => Some(el),
                Some(s) => el.select(s).next(),
            }?;
            let v = match &pick.attr {
                Some(a) => target.value().attr(a)?.trim().to_string(),
                None => element_text(target),
            };
            (!v.is_empty()).then_some(v)
        })
    }
}

fn parse_selector(s: &str) -> Result<Selector, String> {
    Selector::parse(s).map_err(|e| format!("bad selector {s:?}: {e}"))
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
        matches!(self, Marker::Css(_, s) if doc.select(s).next().is_some())
    }
}

/// An engine read with CSS selectors.
#[derive(Debug)]
pub(crate) struct HtmlEngine {
    config: EngineConfig,
    base: url::Url,
    results: Selector,
    title: Field,
    url: Field,
    snippet: Option<Field>,
    skip: Option<Selector>,
    blocked: Vec<Marker>,
    no_results: Vec<Marker>,
    /// The text markers of `blocked` (searched before the page is parsed).
    blocked_text: Markers,
    /// Their names, for the error.
    blocked_names: Vec<String>,
    /// The text markers of `no_results`.
    no_results_text: Markers,
    suggestions: Option<Field>,
    exclude: Exclude,
    keep: Keep,
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
        let blocked_text = Markers::new(&blocked_names);
        let no_results_text = Markers::new(text(&no_results));
        let keep = Keep::from_specs(selectors_read(p));
        Ok(HtmlEngine {
            base,
            results,
            title,
            url,
            snippet,
            skip,
            blocked,
            no_results,
            blocked_text,
            blocked_names,
            no_results_text,
            suggestions,
            exclude,
            keep,
            config,
        })
    }

    fn hits(&self, doc: &Html) -> Vec<Hit> {
        let mut hits = Vec::new();
        for el in doc.select(&self.results) {
            if self.skip.as_ref().is_some_and(|s| s.matches(&el)) {
                continue;
            }
            let Some(url) = self
                .url
                .value(el)
                .and_then(|u| resolve_link(&self.base, &u))
            else {
                continue;
            };
            let Some(title) = self.title.value(el) else {
                continue;
            };
            let snippet = self
                .snippet
                .as_ref()
                .and_then(|s| s.value(el))
                .unwrap_or_default();
            hits.push(Hit {
                url,
                title,
                snippet,
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
            for el in doc.select(sel) {
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
        if let Some(i) = self.blocked_text.first_in(body) {
            return Err(ParseError::Blocked(format!(
                "page says {:?}",
                self.blocked_names[i]
            )));
        }
        let mut doc = Html::parse_document(&prefilter(body, &self.keep));
        self.exclude.remove_from(&mut doc);
        if let Some(m) = self.blocked.iter().find(|m| m.in_doc(&doc)) {
            return Err(ParseError::Blocked(format!("page has {:?}", m.name())));
        }
        // The engine's own "nothing found" wins over what it shows instead
        // (results for a relaxed query are not answers to this one).
        if self.no_results_text.first_in(body).is_some()
            || self.no_results.iter().any(|m| m.in_doc(&doc))
        {
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
        })
    }
}
