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

use super::{Engine, Hit, ParseError, Parsed, RequestSpec, html_to_text, resolve_link};
use crate::config::EngineConfig;
use crate::model::Query;

/// An RSS / Atom / OpenSearch engine.
#[derive(Debug)]
pub(crate) struct FeedEngine {
    config: EngineConfig,
    base: url::Url,
}

impl FeedEngine {
    /// A feed engine for `config` (only its `url` is checked).
    pub(crate) fn new(config: EngineConfig) -> Result<FeedEngine, String> {
        let base = super::base_url(&config)?;
        Ok(FeedEngine { config, base })
    }
}

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
}

/// Reads every item of an RSS or Atom document (its link resolved from
/// Atom's `href`). `Err` when the body is not a feed at all.
pub(crate) fn parse_feed(body: &str) -> Result<Vec<Item>, String> {
    let mut reader = Reader::from_str(body.trim_start_matches('\u{feff}'));
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
                if part.is_some() {
                    depth_in_part += 1;
                    continue;
                }
                match name.as_str() {
                    "rss" | "feed" | "rdf" | "channel" => saw_feed = true,
                    "item" | "entry" => item = Some(Item::default()),
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
                let name = e.local_name().as_ref().to_ascii_lowercase();
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
                if matches!(name.as_str(), "item" | "entry")
                    && let Some(it) = item.take()
                {
                    let mut it = it;
                    if let Some(href) = it.href.take() {
                        it.link = href;
                    }
                    items.push(it);
                }
            }
            Event::Text(t) => push(&mut item, part, &t.xml10_content()),
            Event::CData(c) => push(&mut item, part, &c.into_inner()),
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
    let Some(item) = item else { return };
    let mut href = None;
    let mut rel = None;
    for a in e.attributes().flatten() {
        let key = a.key.local_name().as_ref().to_ascii_lowercase();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map(|v| v.into_owned())
            .ok();
        match key.as_str() {
            "href" => href = value,
            "rel" => rel = value,
            _ => {}
        }
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

    fn build_request(&self, query: &Query) -> RequestSpec {
        super::default_request(&self.config, query)
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        let items = match parse_feed(body) {
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
            .filter_map(|it| {
                let url = resolve_link(&self.base, &it.link)?;
                let title = html_to_text(&it.title);
                if title.is_empty() {
                    return None;
                }
                Some(Hit {
                    url,
                    title,
                    snippet: html_to_text(&it.snippet),
                    published: super::published_date(&it.date),
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
