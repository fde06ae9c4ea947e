//! The fast front end's tag reader: a tag's name and its attributes as
//! the HTML tokenizer delimits them ([`crate::engines::prefilter::TagScan`],
//! the loop the prefilter shares), with the kept attributes made into
//! values only when a selector may see the element ([`super::Gate`]).

use std::borrow::Cow;

use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, QualName, local_name, ns};

use super::Node;
use super::entity::attr_value;
use super::front::Front;
use crate::engines::prefilter::{TagScan, TagStep, tag_name_end};

/// The atoms of the commonest tag names, written in lower case (a match on
/// the bytes instead of hashing them into the atom table).
fn common_tag(raw: &[u8]) -> Option<LocalName> {
    Some(match raw {
        b"a" => local_name!("a"),
        b"b" => local_name!("b"),
        b"i" => local_name!("i"),
        b"p" => local_name!("p"),
        b"u" => local_name!("u"),
        b"br" => local_name!("br"),
        b"dd" => local_name!("dd"),
        b"dl" => local_name!("dl"),
        b"dt" => local_name!("dt"),
        b"em" => local_name!("em"),
        b"h1" => local_name!("h1"),
        b"h2" => local_name!("h2"),
        b"h3" => local_name!("h3"),
        b"h4" => local_name!("h4"),
        b"hr" => local_name!("hr"),
        b"li" => local_name!("li"),
        b"ol" => local_name!("ol"),
        b"td" => local_name!("td"),
        b"th" => local_name!("th"),
        b"tr" => local_name!("tr"),
        b"ul" => local_name!("ul"),
        b"div" => local_name!("div"),
        b"img" => local_name!("img"),
        b"nav" => local_name!("nav"),
        b"pre" => local_name!("pre"),
        b"svg" => local_name!("svg"),
        b"wbr" => local_name!("wbr"),
        b"body" => local_name!("body"),
        b"cite" => local_name!("cite"),
        b"code" => local_name!("code"),
        b"font" => local_name!("font"),
        b"form" => local_name!("form"),
        b"head" => local_name!("head"),
        b"html" => local_name!("html"),
        b"link" => local_name!("link"),
        b"main" => local_name!("main"),
        b"meta" => local_name!("meta"),
        b"span" => local_name!("span"),
        b"time" => local_name!("time"),
        b"aside" => local_name!("aside"),
        b"input" => local_name!("input"),
        b"label" => local_name!("label"),
        b"small" => local_name!("small"),
        b"style" => local_name!("style"),
        b"table" => local_name!("table"),
        b"tbody" => local_name!("tbody"),
        b"title" => local_name!("title"),
        b"button" => local_name!("button"),
        b"footer" => local_name!("footer"),
        b"header" => local_name!("header"),
        b"iframe" => local_name!("iframe"),
        b"option" => local_name!("option"),
        b"script" => local_name!("script"),
        b"select" => local_name!("select"),
        b"strong" => local_name!("strong"),
        b"article" => local_name!("article"),
        b"section" => local_name!("section"),
        b"noscript" => local_name!("noscript"),
        _ => return None,
    })
}

/// A tag's attributes as the tree construction passes them on.
#[derive(Debug, Clone)]
pub(super) enum Attrs {
    /// Made into values: the kept attributes, first of each name.
    Made(Vec<Attribute>),
    /// Not made, for an element no selector can see ([`super::Gate`]):
    /// where they start on the page (they are made again from there when
    /// the tree construction compares them, which is rare), and whether
    /// that was judged for a place inside a result.
    Lazy(u32, bool),
}

impl Attrs {
    pub(super) fn none() -> Attrs {
        Attrs::Made(Vec::new())
    }

    /// The attributes of an element already made, for a copy of it.
    pub(super) fn of(node: &Node) -> Attrs {
        match node.lazy {
            Some(at) => Attrs::Lazy(at, node.results_above.get() > 0),
            None => Attrs::Made(node.attrs.clone()),
        }
    }
}

/// A tag as the tokenizer read it.
pub(super) struct Tag {
    pub name: LocalName,
    /// The kept attributes (made only when a selector may see the element).
    pub attrs: Attrs,
    /// Whether it has a kept attribute.
    pub kept_any: bool,
    pub self_closing: bool,
    /// The offset after its `>`.
    pub end: usize,
}

/// A kept attribute as the tokenizer delimited it: its index in the kept
/// names (`usize::MAX` when every attribute is kept), its name's and its
/// value's offsets.
#[derive(Debug, Clone, Copy)]
pub(super) struct RawAttr {
    kept: usize,
    name: (usize, usize),
    value: Option<(usize, usize)>,
}

impl Front<'_, '_> {
    /// Reads the tag whose name starts at `at`; `None` when the page ends
    /// inside it (html5ever then drops it). The kept attributes of a start
    /// tag are made into values only when a selector may see its element
    /// ([`super::Gate`]).
    pub(super) fn tag(&mut self, at: usize, end_tag: bool) -> Option<Tag> {
        let s = self.page;
        let b = s.as_bytes();
        let j = tag_name_end(b, at);
        if j >= b.len() {
            return None;
        }
        let raw = &s[at..j];
        let name = match common_tag(raw.as_bytes()) {
            Some(name) => name,
            None if raw.bytes().any(|c| c.is_ascii_uppercase()) => {
                LocalName::from(raw.to_ascii_lowercase())
            }
            None => LocalName::from(raw),
        };
        if end_tag {
            let mut scan = TagScan::new(b, j);
            let end = loop {
                match scan.next_step() {
                    TagStep::Attr(_) => {}
                    TagStep::End(end) => break end,
                    TagStep::Unfinished => return None,
                }
            };
            return Some(Tag {
                name,
                attrs: Attrs::none(),
                kept_any: false,
                self_closing: scan.self_closing,
                end,
            });
        }
        // Judged for the current node's place (the element may end up
        // elsewhere: [`Self::element`] judges again when that matters).
        let inside = self.current().results_above.get() > 0;
        let mut raws = std::mem::take(&mut self.raws);
        let scanned = self.scan_attrs(j, Some(&name), inside, &mut raws);
        let out = scanned.map(|(end, self_closing, seen)| Tag {
            attrs: if seen {
                Attrs::Made(self.make_attrs(&raws))
            } else {
                Attrs::Lazy(j as u32, inside)
            },
            name,
            kept_any: !raws.is_empty(),
            self_closing,
            end,
        });
        self.raws = raws;
        out
    }

    /// Delimits the attributes of the start tag whose name ends at `at`,
    /// putting the kept ones (first of each name) in `raws`: the offset
    /// after the tag, whether it ends in `/>`, and whether a selector may
    /// see its element (named `name`, `None` = no need to ask) at a place
    /// inside a result or not.
    pub(super) fn scan_attrs(
        &self,
        at: usize,
        name: Option<&LocalName>,
        inside: bool,
        raws: &mut Vec<RawAttr>,
    ) -> Option<(usize, bool, bool)> {
        let b = self.page.as_bytes();
        let gate = self.sink.plan.gate.at(inside);
        let mut seen = name.is_none_or(|n| gate.name(n));
        raws.clear();
        let mut scan = TagScan::new(b, at);
        // Kept names met so far, by index (the first 64).
        let mut met: u64 = 0;
        let end = loop {
            let a = match scan.next_step() {
                TagStep::Attr(a) => a,
                TagStep::End(end) => break end,
                TagStep::Unfinished => return None,
            };
            let raw_name = &b[a.name.0..a.name.1];
            let (kept, role) = match &self.kept {
                Some(kept) => {
                    let Some(k) = kept.iter().position(|(n, _, _)| {
                        n.len() == raw_name.len() && n.as_bytes().eq_ignore_ascii_case(raw_name)
                    }) else {
                        continue;
                    };
                    let first = if k < 64 {
                        met & (1 << k) == 0
                    } else {
                        raws.iter().all(|r| r.kept != k)
                    };
                    if !first {
                        continue;
                    }
                    met |= 1u64.checked_shl(k as u32).unwrap_or(0);
                    (k, kept[k].2[inside as usize])
                }
                None => {
                    if raws
                        .iter()
                        .any(|r| b[r.name.0..r.name.1].eq_ignore_ascii_case(raw_name))
                    {
                        continue;
                    }
                    (usize::MAX, gate.role(raw_name))
                }
            };
            if !seen {
                seen = gate.admits(role, a.value.map(|(from, to)| &b[from..to]));
            }
            raws.push(RawAttr {
                kept,
                name: a.name,
                value: a.value,
            });
        };
        Some((end, scan.self_closing, seen))
    }

    /// The attributes `raws` delimits, made into values.
    pub(super) fn make_attrs(&self, raws: &[RawAttr]) -> Vec<Attribute> {
        let s = self.page;
        raws.iter()
            .map(|r| {
                let name = match &self.kept {
                    Some(kept) if r.kept != usize::MAX => kept[r.kept].1.clone(),
                    _ => {
                        // Only ASCII bytes end a name, so these are char
                        // boundaries.
                        let raw = &s[r.name.0..r.name.1];
                        if raw.bytes().any(|c| c.is_ascii_uppercase()) {
                            LocalName::from(raw.to_ascii_lowercase())
                        } else {
                            LocalName::from(raw)
                        }
                    }
                };
                let value = r.value.map_or(StrTendril::new(), |(from, to)| {
                    StrTendril::from_slice(&attr_value(&s[from..to]))
                });
                Attribute {
                    name: QualName::new(None, ns!(), name),
                    value,
                }
            })
            .collect()
    }

    /// Attributes as values, made from the page when they were not.
    pub(super) fn made<'x>(&self, attrs: &'x Attrs) -> Cow<'x, [Attribute]> {
        match attrs {
            Attrs::Made(v) => Cow::Borrowed(v),
            Attrs::Lazy(at, _) => Cow::Owned(self.lazy_attrs(*at)),
        }
    }

    /// An element's attributes as values, made from the page when they
    /// were not.
    pub(super) fn node_attrs<'n>(&self, node: &'n Node) -> Cow<'n, [Attribute]> {
        match node.lazy {
            Some(at) => Cow::Owned(self.lazy_attrs(at)),
            None => Cow::Borrowed(&node.attrs),
        }
    }

    fn lazy_attrs(&self, at: u32) -> Vec<Attribute> {
        let mut raws = Vec::new();
        // The tag was read to its end once, so it ends again.
        match self.scan_attrs(at as usize, None, false, &mut raws) {
            Some(_) => self.make_attrs(&raws),
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::fast_parse::{StreamPick, StreamPlan, compile};
    use crate::engines::prefilter::Keep;

    fn plan() -> StreamPlan {
        let pick = |s: &str, attr: Option<&str>| StreamPick {
            selector: Some(compile(s).unwrap()),
            attr: attr.map(LocalName::from),
        };
        StreamPlan {
            results: compile("ul.results > li").unwrap(),
            skip: None,
            fields: [
                vec![pick("h2 a.title", None)],
                vec![pick("h2 a.title", Some("href"))],
                vec![pick("p.s, #snip", None)],
                Vec::new(),
                Vec::new(),
            ],
            suggestions: Vec::new(),
            markers: vec![compile("[data-captcha]").unwrap()],
            exclude: Vec::new(),
            seen: Default::default(),
            gate: Default::default(),
        }
        .seal()
    }

    /// Whether the start tag at the start of `page`, inserted inside a
    /// result or not, has its attributes made into values, and how many.
    fn made(page: &str, inside: bool) -> Option<usize> {
        let plan = plan();
        let keep = Keep::from_specs([
            "ul.results > li",
            "h2 a.title@href",
            "p.s, #snip",
            "[data-captcha]",
        ]);
        let f = Front::new(&plan, page, &keep);
        let b = page.as_bytes();
        let end = tag_name_end(b, 1);
        let name = LocalName::from(&page[1..end]);
        let mut raws = Vec::new();
        let (_, _, seen) = f.scan_attrs(end, Some(&name), inside, &mut raws).unwrap();
        seen.then(|| f.make_attrs(&raws).len())
    }

    /// Elements no selector can see get no attribute values (the cost per
    /// element of dense pages); every element some compound may match
    /// gets them, with every kept attribute. The compounds fields read
    /// count only inside results.
    #[test]
    fn only_elements_a_selector_may_see_get_attribute_values() {
        for inside in [false, true] {
            // Seen by type alone (`li`, `h2`), by class, id or attribute name.
            assert_eq!(made("<li class=x href=/a>", inside), Some(2));
            assert_eq!(made("<h2>", inside), Some(0));
            assert_eq!(made("<span data-captcha>", inside), Some(1));
            assert_eq!(
                made("<div class=\"x results\" id=y href=/z>", inside),
                Some(3)
            );
            // A reference in a class or id may decode to a name: seen.
            assert_eq!(made("<div class=\"a&#32;s\">", inside), Some(1));
            // Not seen: no type, class, id or attribute a compound needs.
            // The type of a compound that also needs a class is not enough.
            assert_eq!(made("<div class=\"x y\" href=/a style=s>", inside), None);
            assert_eq!(made("<a href=/a>", inside), None);
            assert_eq!(made("<ul class=other>", inside), None);
            assert_eq!(made("<span id=snippet>", inside), None);
            assert_eq!(made("<p data-x=1>", inside), None);
        }
        // What fields read (`a.title`, `p.s`, `#snip`), only inside.
        assert_eq!(made("<div class=\"a Title b\" style=x>", false), None);
        assert_eq!(made("<div class=\"a Title b\" style=x>", true), Some(1));
        assert_eq!(made("<span id=SNIP>", false), None);
        assert_eq!(made("<span id=SNIP>", true), Some(1));
        // Made again from the page when the tree construction asks.
        let plan = plan();
        let keep = Keep::from_specs(["ul.results > li", "h2 a.title@href"]);
        let page = "<a class=x href=\"/a&amp;b\" HREF=/c>";
        let mut f = Front::new(&plan, page, &keep);
        let tag = f.tag(1, false).unwrap();
        assert!(matches!(tag.attrs, Attrs::Lazy(2, false)));
        let attrs = f.made(&tag.attrs);
        let values: Vec<(&str, &str)> = attrs.iter().map(|a| (&*a.name.local, &*a.value)).collect();
        assert_eq!(values, [("class", "x"), ("href", "/a&b")]);
    }

    #[test]
    fn a_compound_that_needs_nothing_lets_everything_through() {
        let mut plan = plan();
        plan.markers.push(compile("div > :not(.x)").unwrap());
        let plan = plan.seal();
        let keep = Keep::all();
        let mut f = Front::new(&plan, "<a style=x>", &keep);
        assert!(matches!(f.tag(1, false).unwrap().attrs, Attrs::Made(v) if v.len() == 1));
    }
}
