//! `kind = "json"`: engines that answer JSON (Wikipedia's API, Brave's API,
//! Sogou's JSON variant, …).
//!
//! `parse.results` is a JSON pointer (RFC 6901, `""` = the root) to the list
//! of results. In each item, `title`, `url` and `snippet` are either a dotted
//! field path (`a.b.0.c`) or a template with `{path}` placeholders over item
//! fields, such as `https://en.wikipedia.org/wiki/{title}`.
//!
//! Template values are percent-encoded for where they land: form style in the
//! query string, as a path segment before it. In a MediaWiki `/wiki/` path a
//! space becomes `_`, as MediaWiki writes its own links (other engines link
//! Wikipedia that way too, so the dedup sees equal URLs). `{path|raw}` inserts
//! a value unencoded (for fields that already hold a URL or path).
//!
//! HTML inside a field (Wikipedia's `<span class="searchmatch">`) is reduced
//! to text. An empty list is a real "no results" answer; a missing list is
//! `Invalid` (or `Blocked` when the body is a bot-check page).

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

use super::fields::Scalar;
use super::json_select::{self, Needs};
use super::{Engine, Hit, ParseError, Parsed, RequestSpec, html_to_text, resolve_link};
use crate::config::EngineConfig;
use crate::model::{Answer, Query};

/// Characters escaped in a path segment (RFC 3986 `pchar` complement).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A MediaWiki title in a path: `/` separates subpages and stays.
const WIKI_SEGMENT: &AsciiSet = &SEGMENT.remove(b'/');

/// Where a result's part is found in an item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldSpec {
    /// A dotted path (`a.b.0.c`).
    Path(Vec<String>),
    /// Literal text and placeholders.
    Template(Vec<TemplatePart>),
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TemplatePart {
    Literal(String),
    Field { path: Vec<String>, encode: Encode },
}

/// How a template value is escaped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Encode {
    Raw,
    Query,
    Segment,
    WikiSegment,
}

impl FieldSpec {
    #[cfg(test)]
    pub(crate) fn parse(spec: &str) -> Result<FieldSpec, String> {
        FieldSpec::parse_as(spec, false)
    }

    /// [`FieldSpec::parse`]; with `text`, a template's values go in as
    /// they are unless a filter says otherwise (the template builds text,
    /// not a URL).
    pub(crate) fn parse_as(spec: &str, text: bool) -> Result<FieldSpec, String> {
        if !spec.contains('{') {
            return Ok(FieldSpec::Path(split_path(spec)));
        }
        let mut parts = Vec::new();
        let mut rest = spec;
        while let Some(open) = rest.find('{') {
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .ok_or_else(|| format!("template {spec:?} has an unclosed '{{'"))?;
            if open > 0 {
                parts.push(TemplatePart::Literal(rest[..open].to_string()));
            }
            let inner = &rest[open + 1..close];
            let (path, filter) = match inner.split_once('|') {
                Some((p, f)) => (p, Some(f.trim())),
                None => (inner, None),
            };
            let before: String = parts
                .iter()
                .filter_map(|p| match p {
                    TemplatePart::Literal(l) => Some(l.as_str()),
                    TemplatePart::Field { .. } => None,
                })
                .collect();
            let encode = match filter {
                Some("raw") => Encode::Raw,
                Some("query") => Encode::Query,
                Some("path") => Encode::Segment,
                Some("wiki") => Encode::WikiSegment,
                Some(other) => {
                    return Err(format!(
                        "template {spec:?}: unknown filter {other:?} (raw, query, path or wiki)"
                    ));
                }
                None if text => Encode::Raw,
                None if before.contains('?') => Encode::Query,
                None if before.contains("/wiki/") => Encode::WikiSegment,
                None => Encode::Segment,
            };
            parts.push(TemplatePart::Field {
                path: split_path(path.trim()),
                encode,
            });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(TemplatePart::Literal(rest.to_string()));
        }
        Ok(FieldSpec::Template(parts))
    }

    /// Marks what [`FieldSpec::extract`] reads under `item`.
    pub(crate) fn need(&self, item: &mut Needs) {
        match self {
            FieldSpec::Path(p) => item.at(p).whole(),
            FieldSpec::Template(parts) => {
                for part in parts {
                    if let TemplatePart::Field { path, .. } = part {
                        item.at(path).whole();
                    }
                }
            }
        }
    }

    /// The text this spec yields for `item`; `None` when a field is missing.
    pub(crate) fn extract(&self, item: &Value) -> Option<String> {
        match self {
            FieldSpec::Path(p) => lookup(item, p).and_then(scalar_text),
            FieldSpec::Template(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        TemplatePart::Literal(l) => out.push_str(l),
                        TemplatePart::Field { path, encode } => {
                            // An empty value makes no link or text: the
                            // template's frame alone is not an answer.
                            let v = lookup(item, path)
                                .and_then(scalar_text)
                                .filter(|v| !v.is_empty())?;
                            encode_into(&mut out, &v, *encode);
                        }
                    }
                }
                Some(out)
            }
        }
    }
}

/// `v` appended to `out`, escaped as `encode` says.
pub(crate) fn encode_into(out: &mut String, v: &str, encode: Encode) {
    match encode {
        Encode::Raw => out.push_str(v),
        Encode::Query => out.extend(url::form_urlencoded::byte_serialize(v.as_bytes())),
        Encode::Segment => out.extend(utf8_percent_encode(v, SEGMENT)),
        Encode::WikiSegment => {
            // MediaWiki writes subpage slashes literally.
            let v = v.replace(' ', "_");
            out.extend(utf8_percent_encode(&v, WIKI_SEGMENT));
        }
    }
}

fn split_path(path: &str) -> Vec<String> {
    path.split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Follows a dotted path; numeric segments index arrays.
pub(crate) fn lookup<'v>(mut v: &'v Value, path: &[String]) -> Option<&'v Value> {
    for seg in path {
        v = match v {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A JSON API engine.
#[derive(Debug)]
pub(crate) struct JsonEngine {
    config: EngineConfig,
    base: url::Url,
    results: String,
    title: Scalar,
    url: Scalar,
    snippet: Option<Scalar>,
    suggestions: Option<String>,
    date: Option<Scalar>,
    thumbnail: Option<Scalar>,
    total: Option<String>,
    /// `[engine.parse.fields]` under `template`.
    fields: Option<super::fields::JsonFields>,
    /// `[engine.parse.infobox]`.
    infobox: Option<super::fields::JsonInfobox>,
    /// `parse.answer`: JSON pointer to a direct answer, and its source.
    answer: Option<(String, Option<String>)>,
    /// What of an answer the fields above read.
    needs: Needs,
    /// `[engine.follow]`, compiled once.
    follow: Option<super::follow::Follow>,
}

impl JsonEngine {
    /// Checks the parse table of `config`.
    pub(crate) fn new(config: EngineConfig) -> Result<JsonEngine, String> {
        let base = super::base_url(&config)?;
        let name = &config.name;
        let p = &config.parse;
        let results = p.results.clone().unwrap_or_default();
        if !results.is_empty() && !results.starts_with('/') {
            return Err(format!(
                "engine {name:?}: parse.results must be a JSON pointer starting with '/', got {results:?}"
            ));
        }
        // `a || b`: the first alternative that yields text.
        let field = |what: &str, v: &Option<String>| -> Result<Option<Scalar>, String> {
            v.as_deref()
                .map(|s| Scalar::parse(s, true))
                .transpose()
                .map_err(|e| format!("engine {name:?}: parse.{what}: {e}"))
        };
        // An engine that answers with a box or an answer alone (Wikidata)
        // reads no result list.
        let boxes_only = p.infobox.is_some() || p.answer.is_some();
        let title = field("title", &p.title)?
            .or_else(|| boxes_only.then(|| Scalar(vec![FieldSpec::Path(Vec::new())])))
            .ok_or_else(|| format!("engine {name:?}: kind json needs parse.title"))?;
        let url = field("url", &p.url)?
            .or_else(|| boxes_only.then(|| Scalar(vec![FieldSpec::Path(Vec::new())])))
            .ok_or_else(|| format!("engine {name:?}: kind json needs parse.url"))?;
        let fields = super::fields::JsonFields::new(config.template, &p.fields)
            .map_err(|e| format!("engine {name:?}: {e}"))?;
        let infobox = p
            .infobox
            .as_ref()
            .map(super::fields::JsonInfobox::new)
            .transpose()
            .map_err(|e| format!("engine {name:?}: {e}"))?;
        for (what, ptr) in [("answer", &p.answer), ("answer_url", &p.answer_url)] {
            if let Some(a) = ptr.as_deref().filter(|a| !a.starts_with('/')) {
                return Err(format!(
                    "engine {name:?}: parse.{what} must be a JSON pointer starting with '/', got {a:?}"
                ));
            }
        }
        let answer = p.answer.clone().map(|a| (a, p.answer_url.clone()));
        let snippet = field("snippet", &p.snippet)?;
        let date = field("date", &p.date)?;
        let thumbnail = field("thumbnail", &p.thumbnail)?;
        if let Some(t) = p.total.as_deref().filter(|t| !t.starts_with('/')) {
            return Err(format!(
                "engine {name:?}: parse.total must be a JSON pointer starting with '/', got {t:?}"
            ));
        }
        let mut engine = JsonEngine {
            fields,
            infobox,
            answer,
            date,
            thumbnail,
            total: p.total.clone(),
            base,
            results,
            title,
            url,
            snippet,
            suggestions: p.suggestions.clone(),
            follow: super::follow::compile(&config)?,
            config,
            needs: Needs::default(),
        };
        engine.needs = engine.needs();
        Ok(engine)
    }

    /// Every path of an answer [`JsonEngine::read`] may look at.
    fn needs(&self) -> Needs {
        let mut root = Needs::default();
        if let Some(b) = &self.infobox {
            b.need(&mut root);
        }
        if let Some((text, url)) = &self.answer {
            root.at_pointer(text).whole();
            if let Some(url) = url {
                root.at_pointer(url).whole();
            }
        }
        if !self.boxes_only() {
            let item = root.at_pointer(&self.results).every();
            for spec in [&self.url, &self.title].into_iter().chain(
                [&self.snippet, &self.date, &self.thumbnail]
                    .into_iter()
                    .flatten(),
            ) {
                spec.need(item);
            }
            if let Some(f) = &self.fields {
                f.need(item);
            }
            for pointer in [&self.suggestions, &self.total].into_iter().flatten() {
                root.at_pointer(pointer).whole();
            }
        }
        root.finish()
    }

    /// Whether the engine reads only boxes and answers, no result list.
    fn boxes_only(&self) -> bool {
        self.config.parse.results.is_none() && (self.infobox.is_some() || self.answer.is_some())
    }

    /// The answer `body` read: with `whole`, as one complete
    /// `serde_json::Value` (the reference); else only the parts the
    /// parse table reads ([`json_select`]), which must give the same.
    pub(crate) fn read(&self, body: &str, whole: bool) -> Result<Parsed, ParseError> {
        let doc = if whole {
            parse_json(body, &self.config)?
        } else {
            parse_json_with(body, &self.config, |b| json_select::parse(b, &self.needs))?
        };
        self.parse_doc(body, &doc)
    }
}

impl Engine for JsonEngine {
    fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn follow_up(&self, first: &str, query: &Query) -> Result<Option<RequestSpec>, ParseError> {
        super::follow::request(self.follow.as_ref(), &self.config, first, query)
    }

    fn build_request(&self, query: &Query) -> RequestSpec {
        super::default_request(&self.config, query)
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        self.read(body, false)
    }
}

impl JsonEngine {
    fn parse_doc(&self, body: &str, doc: &Value) -> Result<Parsed, ParseError> {
        let infoboxes = self
            .infobox
            .as_ref()
            .map(|b| b.extract(doc, &self.base))
            .unwrap_or_default();
        let answers: Vec<Answer> = self
            .answer
            .as_ref()
            .and_then(|(text, url)| {
                let answer = doc.pointer(text).and_then(scalar_text)?;
                let answer = html_to_text(&answer);
                (!answer.is_empty()).then(|| Answer {
                    answer,
                    url: url
                        .as_deref()
                        .and_then(|u| doc.pointer(u))
                        .and_then(scalar_text)
                        .and_then(|u| resolve_link(&self.base, &u)),
                    engine: self.config.name.clone(),
                })
            })
            .into_iter()
            .collect();
        if self.boxes_only() {
            return Ok(Parsed {
                infoboxes,
                answers,
                ..Parsed::default()
            });
        }
        let Some(list) = doc.pointer(&self.results) else {
            // An API that leaves the list out when nothing matched (Semantic
            // Scholar's `{"total": 0}`) says so in `parse.no_results`.
            let none = &self.config.parse.no_results;
            if super::markers::Markers::new(none).first_in(body).is_some() {
                return Ok(Parsed {
                    infoboxes,
                    answers,
                    ..Parsed::default()
                });
            }
            return Err(ParseError::Invalid(format!(
                "no {:?} in the answer — the API may have changed",
                self.results
            )));
        };
        let items: Vec<&Value> = match list {
            Value::Array(a) => a.iter().collect(),
            Value::Object(m) => m.values().collect(),
            Value::Null => Vec::new(),
            _ => {
                return Err(ParseError::Invalid(format!(
                    "{:?} is not a list",
                    self.results
                )));
            }
        };
        let mut hits = Vec::with_capacity(items.len());
        for item in items {
            let Some(url) = self
                .url
                .extract(item)
                .and_then(|u| resolve_link(&self.base, &u))
            else {
                continue;
            };
            let title = self
                .title
                .extract(item)
                .map(|t| html_to_text(&t))
                .unwrap_or_default();
            if title.is_empty() {
                continue;
            }
            let snippet = self
                .snippet
                .as_ref()
                .and_then(|s| s.extract(item))
                .map(|s| html_to_text(&s))
                .unwrap_or_default();
            let published = self
                .date
                .as_ref()
                .and_then(|d| d.extract(item))
                .and_then(|d| super::published_date(&d));
            let thumbnail = self
                .thumbnail
                .as_ref()
                .and_then(|t| t.extract(item))
                .and_then(|t| resolve_link(&self.base, &t));
            let extra = self.fields.as_ref().map(|f| f.extract(item, &self.base));
            hits.push(Hit {
                url,
                title,
                snippet,
                published,
                thumbnail,
                extra,
                ..Hit::default()
            });
        }
        let suggestions = self
            .suggestions
            .as_deref()
            .and_then(|p| doc.pointer(p))
            .map(string_list)
            .unwrap_or_default();
        let estimate = self
            .total
            .as_deref()
            .and_then(|p| doc.pointer(p))
            .and_then(|v| match v {
                Value::Number(n) => n
                    .as_u64()
                    .or_else(|| n.as_f64().and_then(super::plausible_estimate)),
                Value::String(s) => s.trim().replace([',', '_'], "").parse().ok(),
                _ => None,
            })
            .filter(|&n| n <= super::MAX_ESTIMATE);
        Ok(Parsed {
            hits,
            suggestions,
            estimate,
            infoboxes,
            answers,
        })
    }
}

/// Parses a JSON body; an HTML page where JSON was expected is usually a
/// bot check, so it is reported as such when it says so.
///
/// serde_json refuses a whole document for one lone UTF-16 surrogate
/// escape (`"\ud800"`, which JavaScript engines write happily when they cut
/// a string in the middle of an emoji): such an escape is read as U+FFFD, as
/// [`super::decode_body`] reads an invalid byte, and the other results stay.
/// So does a number past the range of `f64` (`1e400`, valid JSON): it is
/// read as `null`, which costs the field that holds it, not the answer.
pub(crate) fn parse_json(body: &str, config: &EngineConfig) -> Result<Value, ParseError> {
    parse_json_with(body, config, |b| serde_json::from_str(b))
}

/// [`parse_json`] with `read` reading the (repaired) text.
fn parse_json_with(
    body: &str,
    config: &EngineConfig,
    read: impl Fn(&str) -> serde_json::Result<Value>,
) -> Result<Value, ParseError> {
    let parsed = read(body).or_else(|e| {
        let surrogates = replace_lone_surrogates(body);
        let numbers = replace_huge_numbers(surrogates.as_deref().unwrap_or(body));
        match numbers.or(surrogates) {
            Some(repaired) => read(&repaired),
            None => Err(e),
        }
    });
    parsed.map_err(|e| {
        let blocked = &config.parse.blocked;
        if let Some(i) = super::markers::Markers::new(blocked).first_in(body) {
            return ParseError::Blocked(format!("page says {:?}", blocked[i]));
        }
        match super::generic_block_marker(&super::visible_text(body)) {
            Some(m) => ParseError::Blocked(format!("page says {m:?}")),
            None => ParseError::Invalid(format!("not JSON: {e}")),
        }
    })
}

/// `body` with every `\uXXXX` escape of a lone surrogate (a high one not
/// followed by a low one, or a low one alone) turned into `\ufffd`; `None`
/// when there is none. One pass; `\\` is read as the escaped backslash it
/// is, so `"\\ud800"` (a backslash and text) is left alone. The escapes
/// are the same length, so the document's shape does not change.
fn replace_lone_surrogates(body: &str) -> Option<String> {
    fn unit(b: &[u8], at: usize) -> Option<u16> {
        let hex = b.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    }
    let mut bytes = body.as_bytes().to_vec();
    let mut changed = false;
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + found;
        match unit(&bytes, at) {
            Some(0xD800..=0xDBFF) if matches!(unit(&bytes, at + 6), Some(0xDC00..=0xDFFF)) => {
                i = at + 12;
            }
            Some(0xD800..=0xDFFF) => {
                bytes[at + 2..at + 6].copy_from_slice(b"fffd");
                changed = true;
                i = at + 6;
            }
            // Any other escape: the backslash and the character it escapes.
            _ => i = at + 2,
        }
        if i >= bytes.len() {
            break;
        }
    }
    // Only ASCII hex digits were replaced by ASCII: still UTF-8.
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// `body` with every number literal outside strings that is past the range
/// of `f64` (which serde_json refuses, and with it the whole document)
/// written `null`; `None` when there is none.
fn replace_huge_numbers(body: &str) -> Option<String> {
    let b = body.as_bytes();
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                // To the closing quote; an escape skips the byte it escapes.
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                if body[start..i].parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&body[copied..start]);
                    out.push_str("null");
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&body[copied..]);
    Some(out)
}

/// Strings of a JSON list (objects contribute their `suggestion`/`title`/`query`
/// field); a lone string (Wikipedia's `searchinfo.suggestion`) is a list of one.
pub(crate) fn string_list(v: &Value) -> Vec<String> {
    let a = match v {
        Value::Array(a) => a.as_slice(),
        Value::String(_) => std::slice::from_ref(v),
        _ => return Vec::new(),
    };
    a.iter()
        .filter_map(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => ["suggestion", "query", "title", "text"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str).map(str::to_string)),
            _ => None,
        })
        .map(|s| html_to_text(&s))
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_paths_index_arrays() {
        let item = json!({"a": {"b": [{"c": "x"}, {"c": "y"}]}});
        assert_eq!(
            FieldSpec::parse("a.b.1.c").unwrap().extract(&item),
            Some("y".into())
        );
        assert_eq!(FieldSpec::parse("a.z").unwrap().extract(&item), None);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fix = |s: &str| replace_lone_surrogates(s);
        assert_eq!(fix(r#"["a\ud800b"]"#).as_deref(), Some(r#"["a\ufffdb"]"#));
        assert_eq!(fix(r#"["\udc00"]"#).as_deref(), Some(r#"["\ufffd"]"#));
        // A high one before another high one: the first is lone, the pair stays.
        assert_eq!(
            fix(r#"["\ud800\ud83d\ude00"]"#).as_deref(),
            Some(r#"["\ufffd\ud83d\ude00"]"#)
        );
        // Nothing to repair: a valid pair, an escaped backslash, a cut escape.
        assert_eq!(fix(r#"["\ud83d\ude00"]"#), None);
        assert_eq!(fix(r#"["\\ud800"]"#), None);
        assert_eq!(fix(r#"["\ud8"]"#), None);
        assert_eq!(fix("\\"), None);
        assert_eq!(fix("x\\"), None);
        let v: Value = serde_json::from_str(&fix(r#"["\\\ud800"]"#).unwrap()).unwrap();
        assert_eq!(v[0], "\\\u{fffd}");
    }

    #[test]
    fn numbers_past_f64_become_null_and_cost_their_field_only() {
        let fix = replace_huge_numbers;
        assert_eq!(
            fix(r#"{"a": 1e400, "b": "1e400", "c": -2E+999, "d": 1.5}"#).as_deref(),
            Some(r#"{"a": null, "b": "1e400", "c": null, "d": 1.5}"#)
        );
        assert_eq!(
            fix(r#"["\"1e400", 12]"#),
            None,
            "inside a string after an escaped quote"
        );
        assert_eq!(fix(r#"[1e308, 0.5e-400]"#), None);
        let big = format!("[{}]", "9".repeat(400));
        assert_eq!(fix(&big).as_deref(), Some("[null]"));
        assert_eq!(
            fix(r#"[1e400"#).as_deref(),
            Some("[null"),
            "a cut document stays cut"
        );
    }

    #[test]
    fn templates_encode_by_position() {
        let item = json!({"title": "Caffeine & sleep/x", "q": "a b&c"});
        let wiki = FieldSpec::parse("https://en.wikipedia.org/wiki/{title}").unwrap();
        assert_eq!(
            wiki.extract(&item).unwrap(),
            "https://en.wikipedia.org/wiki/Caffeine_&_sleep/x"
        );
        let q = FieldSpec::parse("https://x.org/s?q={q}").unwrap();
        assert_eq!(q.extract(&item).unwrap(), "https://x.org/s?q=a+b%26c");
        let p = FieldSpec::parse("https://x.org/p/{q}").unwrap();
        assert_eq!(p.extract(&item).unwrap(), "https://x.org/p/a%20b&c");
        assert!(FieldSpec::parse("https://x.org/{q|nope}").is_err());
        assert!(FieldSpec::parse("https://x.org/{q").is_err());
    }
}
