//! Member engines: one [`Engine`] trait, one file per kind.
//!
//! Building a request is separate from a sync, pure [`Engine::parse`] of the
//! body, so parsers are tested on saved pages with no network.

use crate::config::EngineConfig;
use crate::model::{FailureKind, Query};

/// A parse failure or a page that is not a results page.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// A CAPTCHA, bot check or "service unavailable" page.
    #[error("blocked: {0}")]
    Blocked(String),
    /// The body is not what this kind of engine answers.
    #[error("cannot parse answer: {0}")]
    Invalid(String),
}

impl ParseError {
    /// The failure kind reported for this error.
    pub fn kind(&self) -> FailureKind {
        match self {
            ParseError::Blocked(_) => FailureKind::Blocked,
            ParseError::Invalid(_) => FailureKind::Parse,
        }
    }
}

/// One result as parsed from a page, before it is given an engine and position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hit {
    /// Target URL, absolute, redirect wrappers unwrapped.
    pub url: String,
    /// Plain-text title, entities decoded.
    pub title: String,
    /// Plain-text snippet, entities decoded (may be empty).
    pub snippet: String,
    /// Publication date, RFC 3339 in UTC ([`published_date`]), where given.
    pub published: Option<String>,
    /// An image of the result (absolute URL), where given.
    pub thumbnail: Option<String>,
    /// The page's real target where the engine's link is its own redirect
    /// that cannot be unwrapped (Baidu's `mu`, 360's `data-mdurl`): absolute
    /// http(s). Read for the dedup key and the readable URL line only; the
    /// link a user clicks stays `url`.
    pub key_url: Option<String>,
    /// Where the page says the result goes, as it shows it (Baidu's
    /// `c-showurl` text `www.hello.com/`), made an absolute http(s) URL:
    /// for the readable URL line only, when there is no `key_url`.
    pub display_url: Option<String>,
    /// SearXNG's template and its fields, where the engine's kind reads
    /// them (`[engine] template` and the parse table's template fields).
    pub extra: Option<Box<crate::model::Extra>>,
}

/// What a page yielded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Results in page order.
    pub hits: Vec<Hit>,
    /// Query suggestions the page offered.
    pub suggestions: Vec<String>,
    /// How many results the engine says it has for the query.
    pub estimate: Option<u64>,
    /// Boxes about the entity the query names (`[engine.parse.infobox]`).
    pub infoboxes: Vec<crate::model::Infobox>,
    /// Direct answers (`parse.answer`).
    pub answers: Vec<crate::model::Answer>,
}

/// The largest result count an engine's estimate is believed at: the
/// largest web engines say "about 25,000,000,000"; a count past this one
/// (`1e308`) is a broken or hostile answer, and no estimate.
pub const MAX_ESTIMATE: u64 = 10_000_000_000_000;

/// An engine's result count as shown: a whole number from 1 to
/// [`MAX_ESTIMATE`], else none.
pub(crate) fn plausible_estimate(n: f64) -> Option<u64> {
    (n.is_finite() && (1.0..=MAX_ESTIMATE as f64).contains(&n)).then_some(n as u64)
}

/// An HTTP request to make, built from a query (no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSpec {
    /// Absolute URL.
    pub url: String,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
}

/// A member engine.
pub trait Engine: Send + Sync + std::fmt::Debug {
    /// Its configuration.
    fn config(&self) -> &EngineConfig;
    /// The request for `query` (placeholders filled in).
    fn build_request(&self, query: &Query) -> RequestSpec;
    /// Parses a decoded body. Pure: no I/O, no panics on any input.
    fn parse(&self, body: &str) -> Result<Parsed, ParseError>;
    /// For an engine with `[engine.follow]`: the second request, built from
    /// the first answer's text (`None`: the first answer found nothing, so
    /// there is no result). Pure, like [`Engine::parse`].
    fn follow_up(&self, first: &str, query: &Query) -> Result<Option<RequestSpec>, ParseError> {
        match &self.config().follow {
            None => Ok(None),
            Some(f) => follow::Follow::new(f)
                .map_err(ParseError::Invalid)?
                .request(self.config(), first, query),
        }
    }
}

pub(crate) mod dates;
pub(crate) mod dom;
pub(crate) mod exclude;
mod fast_link;
pub mod fast_parse;
mod fast_text;
pub(crate) mod feed;
pub(crate) mod fields;
pub(crate) mod follow;
pub mod html;
pub(crate) mod json;
pub(crate) mod json_select;
pub(crate) mod markers;
pub mod prefilter;
pub mod restrict;
pub(crate) mod searxng;
mod text;
pub(crate) mod xml_path;

pub(crate) use text::html_to_text;

/// The readings the fast paths stand in for, for the tests that compare
/// the two on real answers (`tests/real_data`) and the parse bench.
#[doc(hidden)]
pub mod reference {
    use super::{ParseError, Parsed};
    use crate::config::EngineConfig;

    /// A parse's outcome.
    pub type Outcome = Result<Parsed, ParseError>;

    /// The `json` engine of `config` on `body`: (as a search reads it, as
    /// the whole answer read into one `serde_json::Value` reads it).
    pub fn json_both(config: &EngineConfig, body: &str) -> Result<(Outcome, Outcome), String> {
        let engine = super::json::JsonEngine::new(config.clone())?;
        Ok((engine.read(body, false), engine.read(body, true)))
    }

    /// A field's markup as text: (as a parse reads it, by html5ever's
    /// tree builder alone).
    pub fn html_text_both(s: &str) -> (String, String) {
        (super::html_to_text(s), super::text::html_to_text_tree(s))
    }

    /// A link an engine wrote, made the link a user clicks against the
    /// engine's URL `base`: (as a parse makes it, by the `url` crate alone).
    pub fn link_both(base: &url::Url, raw: &str) -> (Option<String>, Option<String>) {
        (
            super::resolve_link(base, raw),
            super::resolve_link_by_the_crate(base, raw),
        )
    }
}

use std::path::Path;

use crate::config::{Config, ConfigError, EngineKind};

/// Builds the engine an `[[engine]]` table describes: one match arm per kind.
/// Selectors, pointers and templates are checked here, so a bad preset is
/// refused at start (with the engine's name) instead of failing every search.
pub fn build(config: &EngineConfig) -> Result<Box<dyn Engine>, String> {
    let engine: Box<dyn Engine> = match config.kind {
        EngineKind::Json => Box::new(json::JsonEngine::new(config.clone())?),
        EngineKind::Html => Box::new(html::HtmlEngine::new(config.clone())?),
        EngineKind::Feed => Box::new(feed::FeedEngine::new(config.clone())?),
        EngineKind::Searxng => Box::new(searxng::SearxngEngine::new(config.clone())?),
    };
    if let Some(f) = &config.follow {
        follow::Follow::new(f).map_err(|e| format!("engine {:?}: {e}", config.name))?;
    }
    Ok(engine)
}

/// Whether the kind's builder accepts an `[[engine]]` table: the
/// [`crate::config::EngineCheck`] handed to [`crate::config::load`] and to
/// the text checks below.
pub fn check(config: &EngineConfig) -> Result<(), String> {
    build(config).map(drop)
}

/// The `html` engines that read every page with the tree path, each with
/// why: a selector the streaming path cannot decide when an element is
/// inserted (see [`fast_parse`]). `check-config` says it once per engine.
pub fn tree_only_engines(config: &Config) -> Vec<(String, String)> {
    config
        .engines
        .iter()
        .filter(|e| e.kind == EngineKind::Html)
        .filter_map(|e| {
            let engine = html::HtmlEngine::new(e.clone()).ok()?;
            let why = engine.tree_only()?.to_string();
            Some((e.name.clone(), why))
        })
        .collect()
}

/// A text read alone (no built-in defaults under it), every engine also
/// put to its kind's builder; `path` only names the file in errors.
pub fn check_config(text: &str, path: &Path) -> Result<Config, Vec<ConfigError>> {
    Config::check_with(text, path, &check, true)
}

/// A text laid over the built-in defaults as [`crate::config::load`] lays
/// a file, with `${VAR}` in header values read from `env`; `path` only names
/// the file in errors.
pub fn check_config_layered(
    text: &str,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, Vec<ConfigError>> {
    Config::check_layered_with(Some((text, path)), env, &check)
}

/// Fills the placeholders of an engine's `url` template: `{query}`
/// (percent-encoded form style, space = `+`), `{page}` (1-based), `{offset}` =
/// `(page - 1) * page_size` and `{lang}` (the query's language, `en` when none
/// was chosen); also `{page0}` (0-based page) and `{offset1}` (`offset + 1`),
/// because Brave/Ecosia count pages from 0 and Bing/Yahoo/Mojeek count
/// results from 1; `{time_range}` and `{safesearch}` are emptied when the
/// query asks for neither ([`request_at`] fills them otherwise). Unknown
/// `{…}` are left as they are.
pub(crate) fn fill_url(template: &str, query: &Query, page_size: u32) -> String {
    let page = query.page.max(1);
    let offset = (page - 1).saturating_mul(page_size);
    let encoded: String = url::form_urlencoded::byte_serialize(query.text.as_bytes()).collect();
    let lang = query.lang.as_deref().unwrap_or("en");
    let lang: String = url::form_urlencoded::byte_serialize(lang.as_bytes()).collect();
    let mut url = template
        .replace("{query}", &encoded)
        .replace("{page}", &page.to_string())
        .replace("{page0}", &(page - 1).to_string())
        .replace("{offset}", &offset.to_string())
        .replace("{offset1}", &(offset + 1).to_string())
        .replace("{lang}", &lang);
    // Nothing asked, nothing to send; what is asked is filled by
    // [`restrict::apply`], which knows the engine's values and the time.
    if query.time_range.is_none() {
        url = url.replace("{time_range}", "");
    }
    if query.safesearch.is_none() {
        url = url.replace("{safesearch}", "");
    }
    url
}

/// The request `engine` makes for `query` at `now`: its kind's request with
/// the query's time range and safe-search level added as the engine's
/// tables say ([`restrict::apply`]).
pub fn request_at(engine: &dyn Engine, query: &Query, now: std::time::SystemTime) -> RequestSpec {
    restrict::apply(engine.build_request(query), engine.config(), query, now)
}

/// The request every kind makes: the filled `url` and the configured headers.
pub(crate) fn default_request(config: &EngineConfig, query: &Query) -> RequestSpec {
    RequestSpec {
        url: fill_url(&config.url, query, config.page_size),
        headers: config
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}

/// The URL relative links on an engine's answers are resolved against: the
/// `url` template with its placeholders emptied.
pub(crate) fn base_url(config: &EngineConfig) -> Result<url::Url, String> {
    let probe = Query {
        text: String::new(),
        page: 1,
        ..Query::default()
    };
    let filled = fill_url(&config.url, &probe, config.page_size);
    let base = url::Url::parse(&filled).map_err(|e| {
        format!(
            "engine {:?}: url {:?} is not a URL: {e}",
            config.name, config.url
        )
    })?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(format!(
            "engine {:?}: url must be http or https, got {:?}",
            config.name,
            base.scheme()
        ));
    }
    Ok(base)
}

/// Turns a link as an engine wrote it into the link a user clicks: made
/// absolute against `base` (engines write `/l/?uddg=…` and protocol-relative
/// `//duckduckgo.com/l/?…`), redirect wrappers unwrapped, and kept only when
/// it is an http(s) URL.
pub(crate) fn resolve_link(base: &url::Url, raw: &str) -> Option<String> {
    let raw = raw.trim();
    // Most links are absolute and already as the crate writes them: kept
    // as they are, unless a redirect wrapper's target is to be read.
    if let Some(link) = fast_link::as_written(raw) {
        if link == base.as_str() {
            return None;
        }
        if !metasift_dedup::is_redirect(link) {
            return Some(link.to_string());
        }
    }
    resolve_link_by_the_crate(base, raw)
}

/// [`resolve_link`] with every link read by the `url` crate: the reference
/// of its fast path.
fn resolve_link_by_the_crate(base: &url::Url, raw: &str) -> Option<String> {
    // What the `url` crate reads of it: it drops tabs and line breaks
    // anywhere, and C0 controls and spaces at the ends. A link of nothing
    // else (`"\u0001"`) would resolve to the engine's own URL, keys and all.
    let read = raw.trim_matches(|c: char| c <= ' ');
    if read
        .chars()
        .all(|c| c <= ' ' || crate::model::is_hidden_char(c))
        || read.starts_with('#')
    {
        return None;
    }
    let joined = base.join(raw).ok()?;
    // Nor is a link that lands on the engine's own request URL a result.
    if joined == *base {
        return None;
    }
    if !matches!(joined.scheme(), "http" | "https") {
        return None;
    }
    let unwrapped = metasift_dedup::unwrap_redirect(joined.as_str());
    // Not a redirect (the common case): the link is already parsed, and
    // parsing its serialization again gives the same URL.
    let target = if unwrapped == joined.as_str() {
        joined
    } else {
        url::Url::parse(&unwrapped).ok()?
    };
    if !matches!(target.scheme(), "http" | "https") || target.host_str().is_none() {
        return None;
    }
    Some(target.into())
}

/// A display URL as a page shows it (`www.hello.com/`, `baike.baidu.com/item/…`,
/// `https://mcpcn.com/`) as an absolute http(s) URL, or `None` when the text
/// is not one: a source name (`deepdata_cn`, `站长之家`), words, a host
/// without a dot. A trailing ellipsis (a cut display URL) is dropped.
pub(crate) fn display_link(raw: &str) -> Option<String> {
    let text = raw.trim();
    let text = text
        .strip_suffix("...")
        .or_else(|| text.strip_suffix('…'))
        .unwrap_or(text)
        .trim_end();
    if text.is_empty() || text.contains(char::is_whitespace) {
        return None;
    }
    let absolute = if text.contains("://") {
        text.to_string()
    } else {
        format!("http://{text}")
    };
    let u = url::Url::parse(&absolute).ok()?;
    let host = u.host_str()?;
    let named = matches!(u.host(), Some(url::Host::Domain(_)));
    if !matches!(u.scheme(), "http" | "https")
        || !host.contains('.')
        || host.ends_with('.')
        || (named && !host.chars().any(|c| c.is_alphabetic()))
    {
        return None;
    }
    Some(u.into())
}

/// Markers that, on a page that yielded no results, mean the engine refused
/// to answer a robot rather than found nothing. Lower case; matched against
/// the lower-cased body.
pub(crate) const GENERIC_BLOCK_MARKERS: &[&str] = &[
    "captcha",
    "unusual traffic",
    "are you a robot",
    "not a robot",
    "verify you are human",
    "verify that you are human",
    "bot verification",
    "bots use duckduckgo",
    "one last step",
    "verifying your request",
    "请输入验证码",
    "安全验证",
    "访问过于频繁",
    "service unavailable",
    "temporarily unavailable",
    "access denied",
    "too many requests",
    "antispider",
    "anti-spider",
];

/// The first generic block marker in `text` (ASCII case folded), if any.
/// Pass visible text, not raw HTML: scripts mention "captcha" and "service
/// unavailable" on perfectly good pages.
pub(crate) fn generic_block_marker(text: &str) -> Option<&'static str> {
    static MARKERS: std::sync::LazyLock<markers::Markers> =
        std::sync::LazyLock::new(|| markers::Markers::new(GENERIC_BLOCK_MARKERS));
    MARKERS.first_in(text).map(|i| GENERIC_BLOCK_MARKERS[i])
}

/// The visible text of an HTML (or any) body: markup, scripts and styles
/// dropped; `""` for a body the tree builder refuses ([`dom`]'s limits).
pub(crate) fn visible_text(body: &str) -> String {
    dom::parse_document(body)
        .map(|doc| text::element_text(doc.root_element()))
        .unwrap_or_default()
}

/// [`Engine::parse`] that gives up at `deadline`: every tree the parse
/// builds checks the clock as it grows ([`dom::with_deadline`]), so a page
/// that costs more than its engine's time stops costing CPU when the search
/// stops waiting for it.
pub fn parse_until(
    engine: &dyn Engine,
    body: &str,
    deadline: std::time::Instant,
) -> Result<Parsed, ParseError> {
    dom::with_deadline(deadline, || engine.parse(body))
}

/// Decodes a response body to text, honouring its character set: a byte
/// order mark first, then the `charset` of the `Content-Type` header, then a
/// `<meta charset>` / `<meta http-equiv="Content-Type">` or `<?xml encoding>`
/// declaration near the top of the document, else UTF-8. Labels follow the
/// WHATWG Encoding Standard, so `gb2312` reads as GBK and `gb18030` as
/// GB18030. Invalid bytes become U+FFFD; this never fails.
pub fn decode_body(bytes: &[u8], content_type: Option<&str>) -> String {
    let (text, _, _) = body_encoding(bytes, content_type).decode(bytes);
    text.into_owned()
}

/// [`decode_body`] of a body the caller owns: a UTF-8 body (the usual
/// case) becomes the `String` in place, with no copy of its megabytes.
pub(crate) fn decode_body_owned(bytes: Vec<u8>, content_type: Option<&str>) -> String {
    let has_bom = encoding_rs::Encoding::for_bom(&bytes).is_some();
    if has_bom || body_encoding(&bytes, content_type) != encoding_rs::UTF_8 {
        return decode_body(&bytes, content_type);
    }
    String::from_utf8(bytes).unwrap_or_else(|e| decode_body(e.as_bytes(), content_type))
}

/// The character set of a body: BOM, then header, then declaration, else UTF-8.
fn body_encoding(bytes: &[u8], content_type: Option<&str>) -> &'static encoding_rs::Encoding {
    encoding_rs::Encoding::for_bom(bytes)
        .map(|(e, _)| e)
        .or_else(|| {
            // The header is outside the body: unlike a declaration in it,
            // its `utf-16` means UTF-16.
            content_type
                .and_then(charset_param)
                .and_then(|l| encoding_rs::Encoding::for_label(l.trim().as_bytes()))
        })
        .or_else(|| sniff_declared_charset(bytes))
        .unwrap_or(encoding_rs::UTF_8)
}

fn label_encoding(label: &str) -> Option<&'static encoding_rs::Encoding> {
    let e = encoding_rs::Encoding::for_label(label.trim().as_bytes())?;
    // A document that says UTF-16 in ASCII is not UTF-16 (HTML spec rule).
    if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE {
        Some(encoding_rs::UTF_8)
    } else {
        Some(e)
    }
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\''))
    })
}

/// Looks for a charset declared in the first 4 KiB: `<meta charset=…>`,
/// `<meta http-equiv content="…; charset=…">` or `<?xml … encoding="…"?>`.
fn sniff_declared_charset(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = &bytes[..bytes.len().min(4096)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    if lower.starts_with(b"<?xml") {
        let end = find(&lower, b"?>").unwrap_or(lower.len());
        let decl = &lower[..end];
        if let Some(i) = find(decl, b"encoding") {
            return value_after(&decl[i + 8..]).and_then(|v| label_encoding(&v));
        }
    }
    let mut from = 0;
    while let Some(i) = find(&lower[from..], b"<meta") {
        let start = from + i;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |p| start + p);
        let tag = &lower[start..end];
        if let Some(j) = find(tag, b"charset")
            && let Some(e) = value_after(&tag[j + 7..]).and_then(|v| label_encoding(&v))
        {
            return Some(e);
        }
        from = end;
    }
    None
}

/// The value after `=` (quoted or not), skipping spaces.
fn value_after(rest: &[u8]) -> Option<String> {
    let rest = rest.trim_ascii_start();
    let rest = rest.strip_prefix(b"=")?.trim_ascii_start();
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let end = rest
        .iter()
        .position(|&b| {
            matches!(
                b,
                b'"' | b'\'' | b';' | b' ' | b'/' | b'>' | b'\t' | b'\n' | b'\r'
            )
        })
        .unwrap_or(rest.len());
    let v = std::str::from_utf8(&rest[..end]).ok()?;
    (!v.is_empty()).then(|| v.to_string())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The error for a page that yielded no results and does not say it has
/// none: `Blocked` when its visible text carries a generic bot-check marker,
/// else `Invalid`, because the parser could not find results it should have
/// and the admin must hear of it instead of seeing a silent zero.
pub(crate) fn empty_page_error(visible: &str) -> ParseError {
    match generic_block_marker(visible) {
        Some(marker) => ParseError::Blocked(format!("page says {marker:?}")),
        None => ParseError::Invalid(
            "selectors matched nothing — the site's markup may have changed".into(),
        ),
    }
}

/// A date as engines give it — RFC 3339 / ISO 8601 with an offset, RFC 2822
/// (RSS `pubDate`, weekday optional), a bare `YYYY-MM-DD`, a year with a
/// month, season, day or range as bibliographic services write them
/// (PubMed's `1965 Aug`, `2020 Jan-Feb`: their first day, [`dates`]), or
/// Unix seconds — as RFC 3339 in UTC (`2024-07-13T19:09:59Z`). `None` for
/// anything else, or a date before 1970 or after 2100 (a misread number,
/// not a publication) unless its year is written out in the bibliographic
/// form (from 1000 to 2100).
pub fn published_date(raw: &str) -> Option<String> {
    let s = raw.trim();
    if s.is_empty() || s.len() > 64 {
        return None;
    }
    let ts: jiff::Timestamp = if let Ok(t) = s.parse::<jiff::Timestamp>() {
        t
    } else if let Ok(t) = jiff::fmt::rfc2822::DateTimeParser::new()
        .relaxed_weekday(true)
        .parse_timestamp(s)
    {
        t
    } else if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        // No offset (Brave's `page_age`): taken as UTC.
        format!("{dt}Z").parse::<jiff::Timestamp>().ok()?
    } else if let Ok(d) = s.parse::<jiff::civil::Date>() {
        format!("{d}T00:00:00Z").parse::<jiff::Timestamp>().ok()?
    } else if let Some(d) = dates::bibliographic_date(s) {
        // The year is written out: no misread number, so older years stand.
        return Some(format!("{d}T00:00:00Z"));
    } else if let Ok(secs) = s.parse::<i64>() {
        jiff::Timestamp::from_second(secs).ok()?
    } else {
        return None;
    };
    let secs = ts.as_second();
    (0..=4_102_444_800)
        .contains(&secs)
        .then(|| jiff::Timestamp::from_second(secs).unwrap_or(ts).to_string())
}

#[cfg(test)]
mod tests {
    /// What a page shows as a result's URL is a URL line only when it is one.
    #[test]
    fn display_links_are_urls_or_nothing() {
        use super::display_link;
        for (shown, link) in [
            ("www.hello.com/", Some("http://www.hello.com/")),
            (
                "  baike.baidu.com/item/hello ",
                Some("http://baike.baidu.com/item/hello"),
            ),
            ("https://mcpcn.com/", Some("https://mcpcn.com/")),
            ("www.example.com/a/b...", Some("http://www.example.com/a/b")),
            (
                "zh.wikipedia.org/wiki/你好…",
                Some("http://zh.wikipedia.org/wiki/%E4%BD%A0%E5%A5%BD"),
            ),
            ("deepdata_cn", None),
            ("站长之家", None),
            ("站长之家 https://www.chinaz.com/2...", None),
            ("javascript:alert(1)", None),
            ("ftp://files.example.org/", None),
            ("localhost/", None),
            ("example.", None),
            ("", None),
            ("...", None),
        ] {
            assert_eq!(display_link(shown).as_deref(), link, "{shown:?}");
        }
    }

    #[test]
    fn published_dates_are_read_in_every_shape_engines_use() {
        use super::published_date as d;
        let want = Some("2024-07-13T19:09:59Z".to_string());
        assert_eq!(d("Sat, 13 Jul 2024 15:09:59 -0400"), want, "RSS pubDate");
        assert_eq!(d("13 Jul 2024 19:09:59 GMT"), want, "no weekday");
        assert_eq!(d("Fri, 13 Jul 2024 19:09:59 GMT"), want, "a wrong weekday");
        assert_eq!(d("2024-07-13T19:09:59Z"), want, "Atom");
        assert_eq!(d("2024-07-13T21:09:59.250+02:00"), want, "offset, fraction");
        assert_eq!(d("1720897799"), want, "Unix seconds");
        assert_eq!(d("2024-07-13").as_deref(), Some("2024-07-13T00:00:00Z"));
        assert_eq!(d("2024-07-13T19:09:59"), want, "no offset: UTC");
        // PubMed's esummary dates: their first day, older years too.
        let day = |s: &str| Some(format!("{s}T00:00:00Z"));
        assert_eq!(d("1965 Aug"), day("1965-08-01"));
        assert_eq!(d("2001 Dec 15"), day("2001-12-15"));
        assert_eq!(d("2019 Spring"), day("2019-03-01"));
        assert_eq!(d("2020 Jan-Feb"), day("2020-01-01"));
        assert_eq!(d("2024"), day("2024-01-01"), "a year, not Unix seconds");
        for bad in [
            "",
            "yesterday",
            "3 days ago",
            "99999999999",
            "-5",
            "2024-13-40",
        ] {
            assert_eq!(d(bad), None, "{bad:?}");
        }
    }

    use super::*;

    fn query(text: &str, page: u32) -> Query {
        Query {
            text: text.into(),
            page,
            ..Query::default()
        }
    }

    #[test]
    fn fills_placeholders() {
        let url = fill_url(
            "https://x.org/s?q={query}&p={page}&o={offset}&hl={lang}",
            &query("rust & c++ 高考", 3),
            10,
        );
        assert_eq!(
            url,
            "https://x.org/s?q=rust+%26+c%2B%2B+%E9%AB%98%E8%80%83&p=3&o=20&hl=en"
        );
        // Page 0 is read as page 1, not an offset underflow.
        assert!(fill_url("{offset}", &query("a", 0), 10) == "0");
    }

    #[test]
    fn resolves_relative_and_protocol_relative_links() {
        let base = url::Url::parse("https://html.duckduckgo.com/html/?q=").unwrap();
        assert_eq!(
            resolve_link(&base, "//example.org/a").as_deref(),
            Some("https://example.org/a")
        );
        assert!(
            resolve_link(&base, "/l/?x=1")
                .unwrap()
                .starts_with("https://")
        );
        assert_eq!(resolve_link(&base, "javascript:void(0)"), None);
        assert_eq!(resolve_link(&base, "mailto:a@b.c"), None);
        assert_eq!(resolve_link(&base, "#top"), None);
        assert_eq!(resolve_link(&base, ""), None);
    }

    #[test]
    fn decodes_header_charset() {
        let (gbk, _, _) = encoding_rs::GBK.encode("高考 成绩");
        assert_eq!(
            decode_body(&gbk, Some("text/html; charset=GBK")),
            "高考 成绩"
        );
        assert_eq!(
            decode_body(&gbk, Some("text/html; charset=\"gb2312\"")),
            "高考 成绩"
        );
    }

    #[test]
    fn decodes_meta_charset_when_header_is_silent() {
        let page = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb18030\"></head><body>搜狗</body></html>";
        let (bytes, _, _) = encoding_rs::GB18030.encode(page);
        assert_eq!(decode_body(&bytes, Some("text/html")), page);
        let page = "<meta charset='gbk'><p>微信</p>";
        let (bytes, _, _) = encoding_rs::GBK.encode(page);
        assert_eq!(decode_body(&bytes, None), page);
    }

    #[test]
    fn bom_wins_and_utf8_is_the_default() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("héllo".as_bytes());
        assert_eq!(decode_body(&bytes, Some("text/html; charset=gbk")), "héllo");
        assert_eq!(decode_body("héllo".as_bytes(), None), "héllo");
        // Broken bytes never fail.
        assert_eq!(decode_body(&[0xff, b'a'], None), "\u{fffd}a");
        // The owned variant reads every body the same way.
        let (gbk, _, _) = encoding_rs::GBK.encode("高考 成绩");
        for (body, ct) in [
            (bytes.clone(), Some("text/html; charset=gbk")),
            ("héllo".as_bytes().to_vec(), None),
            (vec![0xff, b'a'], None),
            (gbk.into_owned(), Some("text/html; charset=GBK")),
            (b"<meta charset='gbk'>\xb8\xdf".to_vec(), None),
        ] {
            assert_eq!(
                decode_body_owned(body.clone(), ct),
                decode_body(&body, ct),
                "{body:?}"
            );
        }
    }

    #[test]
    fn xml_declaration_names_the_encoding() {
        let doc = "<?xml version=\"1.0\" encoding=\"GBK\"?><rss><channel><title>新闻</title></channel></rss>";
        let (bytes, _, _) = encoding_rs::GBK.encode(doc);
        assert_eq!(decode_body(&bytes, None), doc);
    }
}
