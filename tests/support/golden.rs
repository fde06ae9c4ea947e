//! The golden table of the parsers (`tests/data/parsers.toml`: one real
//! saved page of the team's data folder a case) and the invariants every
//! parsed page keeps, shared by `tests/parsers.rs` (pages we write) and the
//! real-data cases (`tests/real_data/parsers.rs`).
//!
//! Include it with `#[path = "support/golden.rs"] mod golden;`.

#![allow(dead_code)]

use metasift::config::Config;
use metasift::engines::{self, Engine, ParseError, Parsed};
use serde::Deserialize;

/// `tests/data/parsers.toml`.
#[derive(Debug, Deserialize)]
pub struct Table {
    pub case: Vec<Case>,
}

/// One saved page (`file`, under `serp/` of the data folder, or under
/// `folder`), the preset that reads it and what a person sees on it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub file: String,
    /// The data folder's subfolder that holds `file`: `serp` (the default)
    /// or `api` (the API answers).
    pub folder: Option<String>,
    /// A JSON pointer into `file`: the case reads the value there, for a
    /// file that bundles several answers (`api/hn_algolia/`'s `[{url, reply}]`).
    pub pointer: Option<String>,
    pub engine: String,
    pub expect: Expect,
    pub count: Option<usize>,
    pub first: Option<Expected>,
    pub last: Option<Expected>,
    #[allow(dead_code)]
    pub note: Option<String>,
    #[serde(default)]
    pub check: Vec<Check>,
}

/// What a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Results,
    NoResults,
    Blocked,
    Invalid,
}

/// A result's title and link.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub title: String,
    pub url: String,
}

/// An extra expectation at one position, copied by hand from the source
/// repository's own tests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub position: usize,
    pub title: Option<String>,
    pub url: Option<String>,
    pub snippet_starts: Option<String>,
}

impl Case {
    /// The data folder's subfolder of the file.
    pub fn folder(&self) -> &str {
        self.folder.as_deref().unwrap_or("serp")
    }

    /// The case's name: the file under the data folder, and the pointer.
    pub fn rel(&self) -> String {
        let mut rel = format!("{}/{}", self.folder(), self.file);
        if let Some(p) = &self.pointer {
            rel.push('#');
            rel.push_str(p);
        }
        rel
    }
}

/// The shipped `engines.toml`.
pub fn shipped_config() -> Config {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    Config::load(&path).expect("the shipped engines.toml loads")
}

/// The preset `name` of `config`, built.
pub fn engine(config: &Config, name: &str) -> Box<dyn Engine> {
    let ec = config
        .engines
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no preset named {name:?} in engines.toml"));
    engines::build(ec).unwrap_or_else(|e| panic!("preset {name:?} does not build: {e}"))
}

/// The cases of `tests/data/parsers.toml`.
pub fn table() -> Table {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/parsers.toml");
    let text = std::fs::read_to_string(path).unwrap();
    toml::from_str(&text).expect("tests/data/parsers.toml is valid")
}

/// Hosts and paths of the redirect wrappers engines put around links.
pub const WRAPPERS: &[&str] = &[
    "duckduckgo.com/l/",
    "bing.com/ck/a",
    "r.search.yahoo.com",
    "google.com/url?",
];

/// Why a parsed page breaks the invariants, if it does.
pub fn invariant_errors(file: &str, parsed: &Parsed) -> Vec<String> {
    let mut errors = Vec::new();
    for (i, hit) in parsed.hits.iter().enumerate() {
        let at = format!("{file} #{}", i + 1);
        match url::Url::parse(&hit.url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {}
            _ => errors.push(format!("{at}: not an absolute http(s) URL: {:?}", hit.url)),
        }
        if let Some(w) = WRAPPERS.iter().find(|w| hit.url.contains(*w)) {
            errors.push(format!("{at}: redirect wrapper {w} left on {:?}", hit.url));
        }
        if hit.title.trim().is_empty() {
            errors.push(format!("{at}: empty title"));
        }
        for (what, text) in [("title", &hit.title), ("snippet", &hit.snippet)] {
            if let Some(bad) = markup_left(text) {
                errors.push(format!("{at}: {what} still has {bad:?}: {text:?}"));
            }
            if text != text.trim() || text.contains("  ") || text.contains('\n') {
                errors.push(format!("{at}: {what} whitespace not collapsed: {text:?}"));
            }
            // Zero-width and bidi controls (a real one: the ZWSP in the 2021
            // Bing "The Matrix" page's Wikipedia snippet).
            if let Some(c) = text.chars().find(|&c| {
                matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
                    | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
            }) {
                errors.push(format!("{at}: {what} still has invisible {c:?}: {text:?}"));
            }
        }
    }
    // Boxes (and answers): plain text, absolute http(s) links.
    let absolute = |u: &str| {
        url::Url::parse(u)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
    };
    for (i, b) in parsed.infoboxes.iter().enumerate() {
        let at = format!("{file} box #{}", i + 1);
        if b.infobox.trim().is_empty() {
            errors.push(format!("{at}: empty title"));
        }
        for (what, text) in [("title", &b.infobox), ("content", &b.content)] {
            if let Some(bad) = markup_left(text) {
                errors.push(format!("{at}: {what} still has {bad:?}: {text:?}"));
            }
            if text != text.trim() {
                errors.push(format!("{at}: {what} whitespace not trimmed: {text:?}"));
            }
        }
        let links = b
            .urls
            .iter()
            .map(|u| u.url.as_str())
            .chain(b.img_src.as_deref());
        for link in links {
            if !absolute(link) {
                errors.push(format!("{at}: not an absolute http(s) URL: {link:?}"));
            }
        }
        for a in &b.attributes {
            if a.value.trim().is_empty() || markup_left(&a.value).is_some() {
                errors.push(format!("{at}: fact {:?} is {:?}", a.label, a.value));
            }
        }
    }
    for a in &parsed.answers {
        if a.answer.trim().is_empty() || markup_left(&a.answer).is_some() {
            errors.push(format!("{file}: answer {:?}", a.answer));
        }
        if a.url.as_deref().is_some_and(|u| !absolute(u)) {
            errors.push(format!("{file}: answer link {:?}", a.url));
        }
    }
    errors
}

/// Tags engines put in titles and snippets. Text like "<some person
/// knocked>" (a dictionary's usage example) is real text, not markup.
pub const TAGS: &[&str] = &[
    "b", "i", "em", "strong", "span", "a", "div", "p", "br", "wbr", "mark", "cite", "li", "ul",
    "h2", "h3", "img", "script", "style", "!--",
];

/// A tag (`<b>`, `</span>`) or an entity (`&amp;`, `&#39;`) left in text.
pub fn markup_left(text: &str) -> Option<String> {
    for (i, c) in text.char_indices() {
        let rest = &text[i..];
        if c == '<' {
            let name: String = rest[1..]
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '!' || *c == '-')
                .collect::<String>()
                .to_ascii_lowercase();
            let after = rest[1..].trim_start_matches('/')[name.len()..]
                .chars()
                .next();
            if TAGS.contains(&name.as_str()) && matches!(after, Some('>' | ' ' | '/') | None) {
                return Some(rest.chars().take(12).collect());
            }
        }
        if c == '&' {
            let end = rest.find(';').filter(|&e| (2..=10).contains(&e));
            if let Some(e) = end {
                let name = &rest[1..e];
                let is_named = name.chars().all(|c| c.is_ascii_alphanumeric());
                let is_numeric = name.starts_with('#')
                    && name[1..].chars().all(|c| c.is_ascii_hexdigit() || c == 'x');
                if is_named || is_numeric {
                    return Some(rest[..=e].to_string());
                }
            }
        }
    }
    None
}

pub fn outcome(result: &Result<Parsed, ParseError>) -> Expect {
    match result {
        Ok(p) if p.hits.is_empty() => Expect::NoResults,
        Ok(_) => Expect::Results,
        Err(ParseError::Blocked(_)) => Expect::Blocked,
        Err(ParseError::Invalid(_)) => Expect::Invalid,
    }
}

/// What is wrong with `case` read from `body` (the page's decoded text).
pub fn check_case(config: &Config, case: &Case, body: &str) -> Vec<String> {
    let f = &case.file;
    let result = engine(config, &case.engine).parse(body);
    let got = outcome(&result);
    if got != case.expect {
        return vec![format!(
            "{f}: expected {:?}, got {got:?} ({result:?})",
            case.expect
        )];
    }
    let Ok(parsed) = result else {
        return Vec::new();
    };
    let mut errors = invariant_errors(f, &parsed);
    let hits = &parsed.hits;
    if let Some(n) = case.count
        && hits.len() != n
    {
        errors.push(format!("{f}: expected {n} results, got {}", hits.len()));
    }
    for (which, want, got) in [
        ("first", &case.first, hits.first()),
        ("last", &case.last, hits.last()),
    ] {
        if let (Some(want), Some(got)) = (want, got)
            && (want.title != got.title || want.url != got.url)
        {
            errors.push(format!(
                "{f}: {which} result is {:?} {:?}, expected {:?} {:?}",
                got.title, got.url, want.title, want.url
            ));
        }
    }
    for check in &case.check {
        let Some(hit) = hits.get(check.position.wrapping_sub(1)) else {
            errors.push(format!("{f}: no result #{}", check.position));
            continue;
        };
        let p = check.position;
        if check.title.as_ref().is_some_and(|t| *t != hit.title) {
            errors.push(format!(
                "{f} #{p}: title {:?}, expected {:?}",
                hit.title, check.title
            ));
        }
        if check.url.as_ref().is_some_and(|u| *u != hit.url) {
            errors.push(format!(
                "{f} #{p}: url {:?}, expected {:?}",
                hit.url, check.url
            ));
        }
        if let Some(s) = &check.snippet_starts
            && !hit.snippet.starts_with(s.as_str())
        {
            errors.push(format!(
                "{f} #{p}: snippet {:?} should start {s:?}",
                hit.snippet
            ));
        }
    }
    errors
}

/// The tree as the selectors see it: every HTML-namespace element in
/// document order with the attributes `keep` names (whitespace collapsed),
/// of `class` only the names in `classes` (when given: the only ones a
/// class selector can match).
pub fn selector_view(doc: &scraper::Html, keep: &[&str], classes: Option<&[&str]>) -> Vec<String> {
    let html_ns = "http://www.w3.org/1999/xhtml";
    doc.root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
        .filter(|e| &*e.value().name.ns == html_ns)
        .map(|e| {
            let mut attrs: Vec<String> = e
                .value()
                .attrs()
                .filter(|(k, _)| keep.contains(k))
                .filter_map(|(k, v)| {
                    let words = v.split_ascii_whitespace().filter(|w| {
                        k != "class"
                            || classes.is_none_or(|c| c.iter().any(|n| n.eq_ignore_ascii_case(w)))
                    });
                    let v = words.collect::<Vec<_>>().join(" ");
                    (k != "class" || !v.is_empty()).then(|| format!("{k}={v}"))
                })
                .collect();
            attrs.sort();
            format!("{} {}", e.value().name(), attrs.join(" "))
        })
        .collect()
}

/// The text of the page outside SVG, scripts, styles, `noscript` and
/// `template` (what the empty-page check reads; SVGs were cut before the
/// prefilter too), whitespace collapsed.
pub fn html_text(doc: &scraper::Html) -> String {
    let html_ns = "http://www.w3.org/1999/xhtml";
    // Text nodes are joined as `element_text` joins them (a comment between
    // two leaves them glued once the comment is cut).
    let mut text = String::new();
    for node in doc.tree.root().descendants() {
        let scraper::Node::Text(t) = node.value() else {
            continue;
        };
        let hidden = node.ancestors().any(|a| {
            a.value().as_element().is_some_and(|e| {
                &*e.name.ns != html_ns
                    || matches!(e.name(), "script" | "style" | "noscript" | "template")
            })
        });
        if !hidden {
            text.push_str(t);
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the prefilter must keep: the union of the attributes and class
/// names the shipped HTML presets read, and those as lists.
pub struct PrefilterView {
    /// The prefilter's keep set.
    pub keep: engines::prefilter::Keep,
    /// The attribute names kept.
    pub names: Vec<String>,
    /// The class names kept.
    pub classes: Vec<String>,
}

/// One union over the presets, so each page is parsed twice, not once per
/// preset. Baidu's `[class^="content-right"]` reads class attributes whole
/// (its own engine keeps every class); left out here so that the class
/// filtering is checked too.
pub fn prefilter_view() -> PrefilterView {
    let config = shipped_config();
    let specs: Vec<&str> = config
        .engines
        .iter()
        .filter(|e| e.kind == metasift::config::EngineKind::Html)
        .flat_map(|e| engines::html::selectors_read(&e.parse))
        .collect();
    let keep = engines::prefilter::Keep::from_specs(
        specs.iter().copied().filter(|s| !s.contains("[class")),
    );
    let names = keep
        .names()
        .expect("the shipped presets name their attributes");
    let classes = keep
        .classes()
        .expect("no shipped preset reads the class attribute whole");
    assert!(
        classes.contains(&"b_algo") && classes.contains(&"result"),
        "{classes:?}"
    );
    assert!(
        names.contains(&"data-type") && names.contains(&"mu"),
        "{names:?}"
    );
    let names = names.into_iter().map(str::to_string).collect();
    let classes = classes.into_iter().map(str::to_string).collect();
    PrefilterView {
        keep,
        names,
        classes,
    }
}

/// The prefilter (`src/engines/prefilter.rs`) cuts scripts, styles, SVGs,
/// comments, unread attributes and unread class names out before html5ever
/// builds the tree: on `body` (a page named `name`) the elements, the
/// attributes and class names the shipped presets read and the visible text
/// must be the same as in the tree of the page as it is. Returns the bytes
/// before and after the cut.
pub fn check_prefilter(view: &PrefilterView, name: &str, body: &str) -> (usize, usize) {
    let names: Vec<&str> = view.names.iter().map(String::as_str).collect();
    let classes: Vec<&str> = view.classes.iter().map(String::as_str).collect();
    let (names, classes) = (&names[..], &classes[..]);
    let cut = engines::prefilter::prefilter(body, &view.keep);
    let whole = selector_view(&scraper::Html::parse_document(body), names, Some(classes));
    let seen = selector_view(&scraper::Html::parse_document(&cut), names, Some(classes));
    assert_eq!(whole.len(), seen.len(), "{name}: element count");
    for (a, b) in whole.iter().zip(&seen) {
        assert_eq!(a, b, "{name}: first differing element");
    }
    assert_eq!(
        html_text(&scraper::Html::parse_document(body)),
        html_text(&scraper::Html::parse_document(&cut)),
        "{name}: visible text"
    );
    (body.len(), cut.len())
}
