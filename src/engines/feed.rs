//! `kind = "feed"`: RSS 2.0, Atom and OpenSearch answers (RSS or Atom with
//! the `opensearch:` namespace, whose extra elements are simply ignored).
//! Such answers describe themselves, so no parse table is needed.
//!
//! An item's `title`, its `link` (RSS text, or Atom `<link href>` with
//! `rel="alternate"` or no `rel`) and its `description` / `summary` /
//! `content` become a result; feed descriptions are usually escaped HTML
//! (Google News puts a list of links there), so they are reduced to text.
//! A feed with no items is a real "no results" answer; a body that is not a
//! feed is `Invalid`, or `Blocked` when it is a bot-check page.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::xml_path::{Open, XmlPath};
use super::{Engine, Hit, ParseError, Parsed, RequestSpec, html_to_text, resolve_link};
use crate::config::{EngineConfig, LINK_FIELDS, LIST_FIELDS};
use crate::model::{Extra, Query, Template};

/// An RSS / Atom / OpenSearch engine.
#[derive(Debug)]
pub(crate) struct FeedEngine {
    config: EngineConfig,
    base: url::Url,
    /// The parse table, when the engine has one (any XML answer with an
    /// item element, read by element paths).
    spec: Option<FeedSpec>,
    /// `[engine.follow]`, compiled once.
    follow: Option<super::follow::Follow>,
}

impl FeedEngine {
    /// A feed engine for `config`: its `url`, and the element paths of its
    /// parse table, are checked.
    pub(crate) fn new(config: EngineConfig) -> Result<FeedEngine, String> {
        let base = super::base_url(&config)?;
        let spec = FeedSpec::new(&config).map_err(|e| format!("engine {:?}: {e}", config.name))?;
        let follow = super::follow::compile(&config)?;
        Ok(FeedEngine {
            config,
            base,
            spec,
            follow,
        })
    }
}

/// One value of an item: alternatives, each a path or a template over paths
/// (indexes into [`FeedSpec::paths`]).
#[derive(Debug, Clone)]
struct XmlValue(Vec<Vec<Piece>>);

#[derive(Debug, Clone)]
enum Piece {
    Literal(String),
    Field(usize, super::json::Encode),
}

/// The compiled parse table of a feed engine: element paths under the item.
#[derive(Debug)]
pub(crate) struct FeedSpec {
    /// Local names of the item element (`item` and `entry` when empty).
    items: Vec<String>,
    paths: Vec<XmlPath>,
    /// The attributes the paths ask about (open elements keep only these).
    keep_attrs: Vec<String>,
    title: Option<XmlValue>,
    url: Option<XmlValue>,
    snippet: Option<XmlValue>,
    date: Option<XmlValue>,
    template: Template,
    scalars: Vec<(&'static str, XmlValue)>,
    lists: Vec<(&'static str, usize)>,
}

impl FeedSpec {
    fn new(config: &EngineConfig) -> Result<Option<FeedSpec>, String> {
        let p = &config.parse;
        let fields = p.fields.set();
        let any = p.results.is_some()
            || p.title.is_some()
            || p.url.is_some()
            || p.snippet.is_some()
            || p.date.is_some()
            || !fields.is_empty()
            || config.template.is_some();
        if !any {
            return Ok(None);
        }
        let mut spec = FeedSpec {
            items: p
                .results
                .as_deref()
                .map(|r| {
                    r.split(',')
                        .map(|n| {
                            n.trim()
                                .rsplit(':')
                                .next()
                                .unwrap_or("")
                                .to_ascii_lowercase()
                        })
                        .filter(|n| !n.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            paths: Vec::new(),
            keep_attrs: Vec::new(),
            title: None,
            url: None,
            snippet: None,
            date: None,
            template: config.template.unwrap_or_default(),
            scalars: Vec::new(),
            lists: Vec::new(),
        };
        if p.results.is_some() && spec.items.is_empty() {
            return Err("parse.results of a feed is the item element's name".into());
        }
        for (what, v, link) in [
            ("title", &p.title, false),
            ("url", &p.url, true),
            ("snippet", &p.snippet, false),
            ("date", &p.date, false),
        ] {
            let Some(v) = v.as_deref() else { continue };
            let value = spec
                .value(v, link)
                .map_err(|e| format!("parse.{what}: {e}"))?;
            match what {
                "title" => spec.title = Some(value),
                "url" => spec.url = Some(value),
                "snippet" => spec.snippet = Some(value),
                _ => spec.date = Some(value),
            }
        }
        for (name, v) in fields {
            let err = |e: String| format!("parse.fields.{name}: {e}");
            if name == "address" {
                return Err(err("kind feed reads no address object".into()));
            }
            if LIST_FIELDS.contains(&name) {
                let path = XmlPath::parse(&v.replace("[]", "")).map_err(err)?;
                let i = spec.add(path);
                spec.lists.push((name, i));
            } else {
                let value = spec.value(v, LINK_FIELDS.contains(&name)).map_err(err)?;
                spec.scalars.push((name, value));
            }
        }
        spec.keep_attrs = super::xml_path::attribute_names(&spec.paths);
        Ok(Some(spec))
    }

    fn add(&mut self, path: XmlPath) -> usize {
        if let Some(i) = self.paths.iter().position(|p| *p == path) {
            return i;
        }
        self.paths.push(path);
        self.paths.len() - 1
    }

    fn value(&mut self, spec: &str, link: bool) -> Result<XmlValue, String> {
        let mut alts = Vec::new();
        for alt in spec.split("||").map(str::trim).filter(|s| !s.is_empty()) {
            let pieces = match super::json::FieldSpec::parse_as(alt, !link)? {
                super::json::FieldSpec::Path(_) => {
                    vec![Piece::Field(
                        self.add(XmlPath::parse(alt)?),
                        super::json::Encode::Raw,
                    )]
                }
                super::json::FieldSpec::Template(parts) => {
                    let mut out = Vec::new();
                    for part in parts {
                        out.push(match part {
                            super::json::TemplatePart::Literal(l) => Piece::Literal(l),
                            super::json::TemplatePart::Field { path, encode } => {
                                Piece::Field(self.add(XmlPath::parse(&path.join("."))?), encode)
                            }
                        });
                    }
                    out
                }
            };
            alts.push(pieces);
        }
        if alts.is_empty() {
            return Err(format!("{spec:?} names no element"));
        }
        Ok(XmlValue(alts))
    }

    /// The item elements' names.
    fn items_or_default(&self) -> impl Iterator<Item = &str> {
        let default: &[&str] = if self.items.is_empty() {
            &["item", "entry"]
        } else {
            &[]
        };
        default
            .iter()
            .copied()
            .chain(self.items.iter().map(String::as_str))
    }

    fn is_item(&self, name: &str) -> bool {
        if self.items.is_empty() {
            matches!(name, "item" | "entry")
        } else {
            self.items.iter().any(|i| i == name)
        }
    }

    /// The first alternative whose every path has a value in `item`.
    fn get(&self, v: &XmlValue, item: &Item) -> Option<String> {
        v.0.iter().find_map(|pieces| {
            let mut out = String::new();
            for piece in pieces {
                match piece {
                    Piece::Literal(l) => out.push_str(l),
                    Piece::Field(i, encode) => {
                        let value = item.fields.get(*i)?.first()?;
                        super::json::encode_into(&mut out, value, *encode);
                    }
                }
            }
            (!out.trim().is_empty()).then_some(out)
        })
    }

    /// An element under the item opens: its attribute values are read,
    /// and the text paths it starts are collected until it ends.
    fn open(&self, name: &str, e: &BytesStart<'_>, stack: &mut Vec<Open>, item: &mut Item) {
        stack.push(super::xml_path::open_as(
            name.to_string(),
            e,
            &self.keep_attrs,
        ));
        let depth = stack.len();
        for (i, p) in self.paths.iter().enumerate() {
            if !p.matches_exactly(stack) {
                continue;
            }
            if p.reads_attribute() {
                if let Some(v) = p.attribute(&stack[depth - 1])
                    && item.fields[i].len() < MAX_VALUES
                {
                    item.fields[i].push(v.to_string());
                }
            } else {
                item.texts.push((i, depth, String::new()));
            }
        }
    }

    /// An empty element under the item: only attributes to read.
    fn empty(&self, e: &BytesStart<'_>, stack: &mut Vec<Open>, item: &mut Item) {
        stack.push(super::xml_path::open(e, &self.keep_attrs));
        for (i, p) in self.paths.iter().enumerate() {
            if p.reads_attribute()
                && p.matches_exactly(stack)
                && let Some(v) = p.attribute(&stack[stack.len() - 1])
                && item.fields[i].len() < MAX_VALUES
            {
                item.fields[i].push(v.to_string());
            }
        }
        stack.pop();
    }

    /// The element at the top of `stack` ends: the texts it collected are
    /// values.
    fn close(stack: &mut Vec<Open>, item: &mut Item) {
        let depth = stack.len();
        stack.pop();
        let mut k = 0;
        while k < item.texts.len() {
            if item.texts[k].1 == depth {
                let (i, _, text) = item.texts.swap_remove(k);
                let t = text.trim();
                if !t.is_empty() && item.fields[i].len() < MAX_VALUES {
                    item.fields[i].push(t.to_string());
                }
            } else {
                k += 1;
            }
        }
    }

    /// The template fields of an item.
    fn extra(&self, item: &Item, base: &url::Url) -> Box<Extra> {
        let mut e = Extra::new(self.template);
        for (name, v) in &self.scalars {
            if let Some(raw) = self.get(v, item) {
                super::fields::set_scalar(&mut e, name, &raw, base);
            }
        }
        for (name, i) in &self.lists {
            let values: Vec<String> = item.fields[*i].iter().map(|v| html_to_text(v)).collect();
            match *name {
                "authors" => e.authors = values,
                "tags" => e.tags = values,
                "boundingbox" => e.boundingbox = values,
                _ => {}
            }
        }
        Box::new(e)
    }
}

/// The most values one path collects in one item.
const MAX_VALUES: usize = 64;

/// Which part of an item the text being read belongs to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Title,
    Link,
    Snippet,
    /// RSS `pubDate`, Atom `published` / `updated`, Dublin Core `dc:date`.
    Date,
}

/// One item of a feed, as read.
#[derive(Debug, Default)]
pub(crate) struct Item {
    pub(crate) title: String,
    pub(crate) link: String,
    pub(crate) snippet: String,
    /// Atom: the `href` of the alternate link.
    href: Option<String>,
    /// The first date element's text.
    pub(crate) date: String,
    date_done: bool,
    /// `media:thumbnail`, or an image `media:content` / `enclosure`.
    pub(crate) image: Option<String>,
    /// The values of each of the parse table's paths ([`FeedSpec::paths`]).
    fields: Vec<Vec<String>>,
    /// Texts being collected: (path, depth of its element, text so far).
    texts: Vec<(usize, usize, String)>,
}

/// Reads every item of an RSS or Atom document (its link resolved from
/// Atom's `href`), or of any XML document whose item element `spec` names,
/// with the paths of `spec` collected in each item. `Err` when the body is
/// not a feed at all.
fn parse_items(body: &str, spec: Option<&FeedSpec>) -> Result<Vec<Item>, String> {
    let mut reader = Reader::from_str(body.trim_start_matches('\u{feff}'));
    // The open elements under the item, each with the text paths it collects.
    let mut stack: Vec<Open> = Vec::new();
    let new_item = || Item {
        fields: vec![Vec::new(); spec.map_or(0, |s| s.paths.len())],
        ..Item::default()
    };
    let mut saw_feed = false;
    let mut item: Option<Item> = None;
    let mut part: Option<Part> = None;
    let mut depth_in_part = 0usize;
    let mut items = Vec::new();
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not a feed: XML error at byte {}: {e}",
                reader.error_position()
            )
        })?;
        match event {
            Event::Start(e) => {
                let name = local(&e);
                if let (Some(s), Some(it)) = (spec, item.as_mut()) {
                    s.open(&name, &e, &mut stack, it);
                }
                if part.is_some() {
                    depth_in_part += 1;
                    continue;
                }
                match name.as_str() {
                    "rss" | "feed" | "rdf" | "channel" => saw_feed = true,
                    n if item.is_none()
                        && spec.map_or(matches!(n, "item" | "entry"), |s| s.is_item(n)) =>
                    {
                        // Any XML document is read when a parse table names
                        // its items; without one, only a feed is.
                        saw_feed |= spec.is_some();
                        item = Some(new_item());
                    }
                    _ if item.is_some() => {
                        part = part_of(&name);
                        depth_in_part = 0;
                        if name == "link" {
                            atom_link(&e, item.as_mut());
                        }
                        if matches!(name.as_str(), "thumbnail" | "enclosure") {
                            image(&e, item.as_mut());
                        }
                    }
                    _ => {}
                }
            }
            Event::Empty(e)
                if spec.is_some() && item.is_some() && {
                    if let (Some(s), Some(it)) = (spec, item.as_mut()) {
                        s.empty(&e, &mut stack, it);
                    }
                    false
                } => {}
            Event::Empty(e) if part.is_none() && local(&e) == "link" => {
                atom_link(&e, item.as_mut());
            }
            Event::Empty(e)
                if part.is_none()
                    && matches!(local(&e).as_str(), "thumbnail" | "content" | "enclosure") =>
            {
                image(&e, item.as_mut());
            }
            Event::End(e) => {
                if !stack.is_empty()
                    && let Some(it) = item.as_mut()
                {
                    FeedSpec::close(&mut stack, it);
                }
                if part.is_some() {
                    if depth_in_part > 0 {
                        depth_in_part -= 1;
                    } else {
                        if part == Some(Part::Date)
                            && let Some(it) = item.as_mut()
                        {
                            it.date_done = !it.date.trim().is_empty();
                        }
                        part = None;
                    }
                    continue;
                }
                let local = e.local_name();
                let local: &str = local.as_ref();
                let name = local.rsplit(':').next().unwrap_or("");
                let is_item = |n: &str| n.eq_ignore_ascii_case(name);
                if spec.map_or(is_item("item") || is_item("entry"), |s| {
                    s.items_or_default().any(is_item)
                }) && let Some(it) = item.take()
                {
                    let mut it = it;
                    if let Some(href) = it.href.take() {
                        it.link = href;
                    }
                    items.push(it);
                }
            }
            Event::Text(t) => {
                let t = t.xml10_content();
                collect(&mut item, &t);
                push(&mut item, part, &t);
            }
            Event::CData(c) => {
                let c = c.into_inner();
                collect(&mut item, &c);
                push(&mut item, part, &c);
            }
            Event::GeneralRef(r) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => match &*r {
                        "amp" => "&".into(),
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "quot" => "\"".into(),
                        "apos" => "'".into(),
                        // An HTML entity: keep it, html_to_text decodes it later.
                        other => format!("&{other};"),
                    },
                };
                collect(&mut item, &s);
                push(&mut item, part, &s);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !saw_feed {
        return Err("not an RSS or Atom feed".into());
    }
    Ok(items)
}

/// Text inside the item goes to every path being collected.
fn collect(item: &mut Option<Item>, text: &str) {
    if let Some(it) = item.as_mut() {
        for (_, _, t) in &mut it.texts {
            if t.len() < 64 * 1024 {
                t.push_str(text);
            }
        }
    }
}

fn local(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_ascii_lowercase()
}

fn part_of(name: &str) -> Option<Part> {
    match name {
        "title" => Some(Part::Title),
        "link" => Some(Part::Link),
        "description" | "summary" | "content" | "encoded" => Some(Part::Snippet),
        "pubdate" | "published" | "updated" | "date" => Some(Part::Date),
        _ => None,
    }
}

/// `media:thumbnail url`, or the `url` of a `media:content` / `enclosure`
/// that is an image (`medium="image"` or an `image/…` type): the item's
/// picture, the first one met.
fn image(e: &BytesStart<'_>, item: Option<&mut Item>) {
    let Some(item) = item else { return };
    if item.image.is_some() {
        return;
    }
    let thumbnail = local(e) == "thumbnail";
    let (mut url, mut is_image) = (None, thumbnail);
    for a in e.attributes().flatten() {
        let key = a.key.local_name().as_ref().to_ascii_lowercase();
        let Ok(value) = a.normalized_value(quick_xml::XmlVersion::Implicit1_0) else {
            continue;
        };
        match key.as_str() {
            "url" => url = Some(value.into_owned()),
            "medium" => is_image |= value.eq_ignore_ascii_case("image"),
            "type" => is_image |= value.to_ascii_lowercase().starts_with("image/"),
            _ => {}
        }
    }
    if is_image {
        item.image = url;
    }
}

/// Atom `<link href rel>`: the alternate (or rel-less) link is the target.
fn atom_link(e: &BytesStart<'_>, item: Option<&mut Item>) {
    // The first alternate link found is kept: the others change nothing.
    let Some(item) = item.filter(|it| it.href.is_none()) else {
        return;
    };
    let mut href = None;
    let mut rel = None;
    for a in e.attributes().flatten() {
        let key = a.key.local_name();
        let key: &str = key.as_ref();
        let slot = if key.eq_ignore_ascii_case("href") {
            &mut href
        } else if key.eq_ignore_ascii_case("rel") {
            &mut rel
        } else {
            continue;
        };
        *slot = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map(|v| v.into_owned())
            .ok();
    }
    if let Some(h) = href
        && rel.as_deref().is_none_or(|r| r == "alternate")
        && item.href.is_none()
    {
        item.href = Some(h);
    }
}

fn push(item: &mut Option<Item>, part: Option<Part>, text: &str) {
    let (Some(item), Some(part)) = (item.as_mut(), part) else {
        return;
    };
    match part {
        Part::Title => item.title.push_str(text),
        Part::Link => item.link.push_str(text),
        // The first of description / summary / content is enough.
        Part::Snippet => item.snippet.push_str(text),
        Part::Date if !item.date_done => item.date.push_str(text),
        Part::Date => {}
    }
}

impl Engine for FeedEngine {
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
        let items = match parse_items(body, self.spec.as_ref()) {
            Ok(items) => items,
            Err(e) => {
                return match super::generic_block_marker(&super::visible_text(body)) {
                    Some(m) => Err(ParseError::Blocked(format!("page says {m:?}"))),
                    None => Err(ParseError::Invalid(e)),
                };
            }
        };
        let items_given = items.len();
        let hits: Vec<Hit> = items
            .into_iter()
            .filter_map(|mut it| {
                let spec = self.spec.as_ref();
                // A path the parse table names wins over the feed's own element.
                let (mut link, mut title, mut snippet, mut date) = (
                    std::mem::take(&mut it.link),
                    std::mem::take(&mut it.title),
                    std::mem::take(&mut it.snippet),
                    std::mem::take(&mut it.date),
                );
                if let Some(s) = spec {
                    let own = |v: Option<&XmlValue>, default: &mut String| {
                        if let Some(v) = v {
                            *default = s.get(v, &it).unwrap_or_default();
                        }
                    };
                    own(s.url.as_ref(), &mut link);
                    own(s.title.as_ref(), &mut title);
                    own(s.snippet.as_ref(), &mut snippet);
                    own(s.date.as_ref(), &mut date);
                }
                let url = resolve_link(&self.base, &link)?;
                let title = html_to_text(&title);
                if title.is_empty() {
                    return None;
                }
                Some(Hit {
                    url,
                    title,
                    snippet: html_to_text(&snippet),
                    published: super::published_date(&date),
                    extra: spec.map(|s| s.extra(&it, &self.base)),
                    thumbnail: it.image.and_then(|i| resolve_link(&self.base, &i)),
                    ..Hit::default()
                })
            })
            .collect();
        // Items, none usable: not the silent zero of a feed without items.
        if hits.is_empty() && items_given > 0 {
            return Err(ParseError::Invalid(format!(
                "the feed's {items_given} item(s) were all refused: no http(s) link (or only the feed's own) or no title"
            )));
        }
        Ok(Parsed {
            hits,
            ..Parsed::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> FeedEngine {
        let config: EngineConfig = toml::from_str(
            r#"
            name = "f"
            kind = "feed"
            url = "https://feeds.example.org/search?q={query}"
            "#,
        )
        .unwrap();
        FeedEngine::new(config).unwrap()
    }

    #[test]
    fn reads_atom_and_opensearch() {
        let atom = r#"<?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"
                  xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
              <opensearch:totalResults>2</opensearch:totalResults>
              <entry>
                <title type="html">Caf&amp;eacute; &lt;b&gt;sleep&lt;/b&gt;</title>
                <link rel="self" href="https://feeds.example.org/self"/>
                <link rel="alternate" href="https://example.org/a?x=1&amp;y=2"/>
                <summary>Short &amp; <![CDATA[<i>sweet</i>]]></summary>
              </entry>
              <entry><title>Relative</title><link href="/b"/></entry>
              <entry><title></title><link href="https://example.org/no-title"/></entry>
            </feed>"#;
        let parsed = engine().parse(atom).unwrap();
        assert_eq!(parsed.hits.len(), 2);
        assert_eq!(parsed.hits[0].title, "Café sleep");
        assert_eq!(parsed.hits[0].url, "https://example.org/a?x=1&y=2");
        assert_eq!(parsed.hits[0].snippet, "Short & sweet");
        assert_eq!(parsed.hits[1].url, "https://feeds.example.org/b");
    }

    #[test]
    fn a_feed_whose_only_item_is_refused_says_so() {
        let e = engine();
        for item in [
            "<item><title>Bad link</title><link>javascript:alert(1)</link></item>",
            "<item><title>Fragment</title><link>#top</link></item>",
            "<item><title></title><link>https://example.org/a</link></item>",
        ] {
            let feed =
                format!("<rss version=\"2.0\"><channel><title>x</title>{item}</channel></rss>");
            match e.parse(&feed) {
                Err(ParseError::Invalid(why)) => assert!(why.contains("all refused"), "{why}"),
                other => panic!("{item}: {other:?}"),
            }
        }
    }

    #[test]
    fn empty_feed_is_no_results_and_html_is_not_a_feed() {
        let e = engine();
        let empty = "<rss version=\"2.0\"><channel><title>x</title></channel></rss>";
        assert_eq!(e.parse(empty).unwrap(), Parsed::default());
        assert!(matches!(
            e.parse("<html><body>hi</body></html>"),
            Err(ParseError::Invalid(_))
        ));
        assert!(matches!(
            e.parse("<html><body>Please complete the CAPTCHA</body></html>"),
            Err(ParseError::Blocked(_))
        ));
    }
}
