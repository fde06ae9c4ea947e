//! The fast front end of the streaming path: a hand-written HTML tokenizer
//! and a subset of HTML tree construction that feed the same [`Sink`] as
//! html5ever does on the streaming path, on the page as it came (no
//! prefilter pass).
//!
//! The tokenizer jumps with `memchr` from `<` to `<`; the contents of
//! `<script>`, `<style>`, `<noscript>` and whole `<svg>` elements are skipped
//! with `memmem` exactly as [`crate::engines::prefilter`] cuts them for the
//! tree path, comments are skipped as it skips them, and of each tag only
//! the attributes the engine's selectors name (the prefilter's [`Keep`])
//! are made into values. Character references are decoded only in what a
//! field captures and in the kept attributes ([`super::entity`]).
//!
//! The tree construction ([`super::rules`]) follows html5ever 0.40's own
//! rules (its insertion modes, scopes, implied end tags, `<p>` closed by
//! blocks, lists, `<select>`/`<option>`, well-formed tables, the list of
//! active formatting elements with its reconstruction and the adoption
//! agency when no node moves). Whatever it does not follow — a node html5ever
//! would move (adoption agency with a furthest block, foster parenting),
//! `<template>`, `<frameset>`, `<plaintext>`, MathML, a self-closing `<svg/>`,
//! late `<html>`/`<body>` attributes, NUL bytes, a raw-text element without
//! its end tag, a doctype whose quirks would matter — makes it stop with
//! [`Bail::Outside`]: the page is then read again from the start by the
//! html5ever streaming path (and the tree path after it), so the fast path
//! is never the only one to decide a page it does not fully follow.
//! `tests/parsers_stream.rs` checks it against the tree path.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, QualName, local_name, ns};

use super::entity::{attr_value, decode};
use super::select::Role;
use super::{Bail, Node, Sink, StreamPlan, Streamed};
use crate::engines::prefilter::{
    Keep, TagScan, TagStep, find_end_tag, is_space, skip_comment, tag_name_end,
};

/// Pages the fast front end read to the end, and pages it handed over.
static READ: AtomicU64 = AtomicU64::new(0);
static HANDED: AtomicU64 = AtomicU64::new(0);

/// (pages read by the fast front end, pages it handed over) in this
/// process, for the tools and benches that measure it.
pub fn counts() -> (u64, u64) {
    (READ.load(Ordering::Relaxed), HANDED.load(Ordering::Relaxed))
}

/// Where html5ever's tree builder would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    AfterHead,
    /// Also "after body" and "after after body", which read every token
    /// that reaches the sink as "in body" does.
    InBody,
    InTable,
    InTableBody,
    InRow,
    InCell,
}

/// The document's quirks mode, as far as it matters (`<table>` closes an
/// open `<p>` except in quirks mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quirks {
    No,
    Yes,
    /// A doctype this reader does not classify.
    Unknown,
}

/// Element classes for the tree construction's tag sets.
pub(super) const SPECIAL: u16 = 1;
pub(super) const SCOPE: u16 = 2;
pub(super) const BUTTON: u16 = 4;
pub(super) const LIST: u16 = 8;
pub(super) const TABLE_SCOPE: u16 = 16;
pub(super) const IMPLIED: u16 = 32;
pub(super) const HEADING: u16 = 64;
pub(super) const TBODY_CTX: u16 = 128;
pub(super) const ROW_CTX: u16 = 256;
pub(super) const CELL: u16 = 512;
pub(super) const TABLE_TEXT: u16 = 1024;

/// The classes of an HTML element name (html5ever's `tag_sets`).
pub(super) fn classes(name: &LocalName) -> u16 {
    match *name {
        local_name!("html") => SPECIAL | SCOPE | TABLE_SCOPE | TBODY_CTX | ROW_CTX,
        local_name!("table") => SPECIAL | SCOPE | TABLE_SCOPE | TABLE_TEXT,
        local_name!("template") => SPECIAL | SCOPE | TABLE_SCOPE | TBODY_CTX | ROW_CTX,
        local_name!("td") | local_name!("th") => SPECIAL | SCOPE | CELL,
        local_name!("applet")
        | local_name!("caption")
        | local_name!("marquee")
        | local_name!("object")
        | local_name!("select") => SPECIAL | SCOPE,
        local_name!("button") => SPECIAL | BUTTON,
        local_name!("ol") | local_name!("ul") => SPECIAL | LIST,
        local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
            SPECIAL | TBODY_CTX | TABLE_TEXT
        }
        local_name!("tr") => SPECIAL | ROW_CTX | TABLE_TEXT,
        local_name!("dd") | local_name!("dt") | local_name!("li") | local_name!("p") => {
            SPECIAL | IMPLIED
        }
        local_name!("option")
        | local_name!("optgroup")
        | local_name!("rb")
        | local_name!("rp")
        | local_name!("rt")
        | local_name!("rtc") => IMPLIED,
        local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6") => SPECIAL | HEADING,
        local_name!("address")
        | local_name!("area")
        | local_name!("article")
        | local_name!("aside")
        | local_name!("base")
        | local_name!("basefont")
        | local_name!("bgsound")
        | local_name!("blockquote")
        | local_name!("body")
        | local_name!("br")
        | local_name!("center")
        | local_name!("col")
        | local_name!("colgroup")
        | local_name!("details")
        | local_name!("dir")
        | local_name!("div")
        | local_name!("dl")
        | local_name!("embed")
        | local_name!("fieldset")
        | local_name!("figcaption")
        | local_name!("figure")
        | local_name!("footer")
        | local_name!("form")
        | local_name!("frame")
        | local_name!("frameset")
        | local_name!("head")
        | local_name!("header")
        | local_name!("hgroup")
        | local_name!("hr")
        | local_name!("iframe")
        | local_name!("img")
        | local_name!("input")
        | local_name!("isindex")
        | local_name!("link")
        | local_name!("listing")
        | local_name!("main")
        | local_name!("menu")
        | local_name!("meta")
        | local_name!("nav")
        | local_name!("noembed")
        | local_name!("noframes")
        | local_name!("noscript")
        | local_name!("param")
        | local_name!("plaintext")
        | local_name!("pre")
        | local_name!("script")
        | local_name!("section")
        | local_name!("source")
        | local_name!("style")
        | local_name!("summary")
        | local_name!("textarea")
        | local_name!("title")
        | local_name!("track")
        | local_name!("wbr")
        | local_name!("xmp") => SPECIAL,
        _ => 0,
    }
}

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

/// An open element.
pub(super) struct Open {
    pub node: Rc<Node>,
    pub classes: u16,
}

/// An entry of the list of active formatting elements.
pub(super) enum Fmt {
    Marker,
    El(Rc<Node>),
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

/// The fast front end's state: the tokenizer's place and the tree
/// builder's (the open elements, the active formatting elements, …).
pub(super) struct Front<'p, 'a> {
    pub sink: Sink<'p>,
    pub keep: &'a Keep,
    /// The kept attribute names, their atoms and what each tells the
    /// gate outside and inside results (`None` = every name).
    pub kept: Option<Vec<(&'a str, LocalName, [Role; 2])>>,
    /// The current tag's kept attributes (reused from tag to tag).
    pub raws: Vec<RawAttr>,
    pub page: &'a str,
    pub stack: Vec<Open>,
    pub afe: Vec<Fmt>,
    pub mode: Mode,
    pub head: Option<Rc<Node>>,
    pub form: Option<Rc<Node>>,
    pub quirks: Quirks,
    /// Elements and comments made so far (the tree path's count).
    pub nodes: usize,
    /// The next token, if characters, loses a leading newline.
    pub ignore_lf: bool,
}

/// Most entries the list of active formatting elements may hold here.
pub(super) const MAX_FORMATTING: usize = 64;

impl StreamPlan {
    /// Reads the page as it came (not prefiltered) with the fast front end;
    /// `Err` = the page must be read by the html5ever streaming path.
    pub(crate) fn run_fast(&self, page: &str, keep: &Keep) -> Result<Streamed, Bail> {
        let out = self.read_fast(page, keep);
        match &out {
            Ok(_) => READ.fetch_add(1, Ordering::Relaxed),
            Err(_) => HANDED.fetch_add(1, Ordering::Relaxed),
        };
        out
    }

    fn read_fast(&self, page: &str, keep: &Keep) -> Result<Streamed, Bail> {
        if memchr::memchr(0, page.as_bytes()).is_some() {
            return Err(Bail::Outside("a NUL byte"));
        }
        if u32::try_from(page.len()).is_err() {
            return Err(Bail::Outside("a page over 4 GiB"));
        }
        let mut f = Front::new(self, page, keep);
        f.tokens()?;
        f.eof()?;
        if let Some(b) = f.sink.state.bail.get() {
            return Err(b);
        }
        Ok(f.sink.into_streamed())
    }
}

impl<'p, 'a> Front<'p, 'a> {
    pub(super) fn new(plan: &'p StreamPlan, page: &'a str, keep: &'a Keep) -> Front<'p, 'a> {
        let gate = &plan.gate;
        Front {
            sink: Sink::new(plan, page.len()),
            keep,
            kept: keep.names().map(|names| {
                names
                    .into_iter()
                    .map(|n| {
                        let roles = [gate.out.role(n.as_bytes()), gate.inside.role(n.as_bytes())];
                        (n, LocalName::from(n), roles)
                    })
                    .collect()
            }),
            raws: Vec::new(),
            page,
            stack: Vec::with_capacity(64),
            afe: Vec::new(),
            mode: Mode::Initial,
            head: None,
            form: None,
            quirks: Quirks::Unknown,
            nodes: 0,
            ignore_lf: false,
        }
    }
}

impl Front<'_, '_> {
    /// Fails if the sink gave up.
    pub(super) fn check(&self) -> Result<(), Bail> {
        match self.sink.state.bail.get() {
            Some(b) => Err(b),
            None => Ok(()),
        }
    }

    /// One more element or comment; past the tree path's limit the page
    /// goes to the paths that refuse it with their reason.
    pub(super) fn count(&mut self) -> Result<(), Bail> {
        self.nodes += 1;
        if self.nodes > crate::engines::dom::MAX_NODES {
            return Err(Bail::Budget);
        }
        Ok(())
    }

    /// The tokenizer's loop over the page.
    fn tokens(&mut self) -> Result<(), Bail> {
        let s = self.page;
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let Some(off) = memchr::memchr(b'<', &b[i..]) else {
                self.chars(&s[i..])?;
                break;
            };
            let lt = i + off;
            if lt > i {
                self.chars(&s[i..lt])?;
            }
            i = self.markup(lt)?;
        }
        Ok(())
    }

    /// The markup at `lt` (a `<`); the offset after it.
    fn markup(&mut self, lt: usize) -> Result<usize, Bail> {
        let s = self.page;
        let b = s.as_bytes();
        let rest = &b[lt + 1..];
        match rest.first() {
            Some(b'!') if rest.starts_with(b"!--") => {
                // Cut by the prefilter: no token at all on the tree path.
                Ok(skip_comment(b, lt + 4))
            }
            Some(b'!') if rest.len() >= 8 && rest[1..8].eq_ignore_ascii_case(b"doctype") => {
                let end = memchr::memchr(b'>', rest).map_or(b.len(), |p| lt + 1 + p + 1);
                let inner = &b[lt + 9..end.saturating_sub(1).max(lt + 9)];
                self.doctype(inner.trim_ascii().eq_ignore_ascii_case(b"html"));
                Ok(end)
            }
            Some(b'!' | b'?') => self.bogus_comment(lt + 2),
            Some(b'/') => match rest.get(1) {
                Some(c) if c.is_ascii_alphabetic() => {
                    let Some(tag) = self.tag(lt + 2, true) else {
                        return Ok(b.len());
                    };
                    self.ignore_lf = false;
                    let end = tag.end;
                    self.end_tag(tag.name)?;
                    Ok(end)
                }
                Some(b'>') => Ok(lt + 3),
                None => {
                    self.chars(&s[lt..])?;
                    Ok(b.len())
                }
                Some(_) => self.bogus_comment(lt + 2),
            },
            Some(c) if c.is_ascii_alphabetic() => {
                let Some(tag) = self.tag(lt + 1, false) else {
                    return Ok(b.len());
                };
                if tag.name == local_name!("svg") && !tag.self_closing {
                    // The prefilter cuts the whole element.
                    return match find_end_tag(b, tag.end, b"svg")
                        .and_then(|close| memchr::memchr(b'>', &b[close..]).map(|p| close + p + 1))
                    {
                        Some(end) => Ok(end),
                        None => Err(Bail::Outside("an <svg> without its end tag")),
                    };
                }
                self.ignore_lf = false;
                let end = tag.end;
                Ok(self.start_tag(tag)?.unwrap_or(end))
            }
            _ => {
                self.chars(&s[lt..lt + 1])?;
                Ok(lt + 1)
            }
        }
    }

    /// A comment html5ever makes of `<!x>`, `<?x>`, `</1>`: no node the
    /// selectors see, but a node the tree path counts.
    fn bogus_comment(&mut self, from: usize) -> Result<usize, Bail> {
        let b = self.page.as_bytes();
        self.ignore_lf = false;
        self.count()?;
        Ok(memchr::memchr(b'>', &b[from.min(b.len())..]).map_or(b.len(), |p| from + p + 1))
    }

    fn doctype(&mut self, plain_html: bool) {
        self.ignore_lf = false;
        if self.mode == Mode::Initial {
            self.quirks = if plain_html {
                Quirks::No
            } else {
                Quirks::Unknown
            };
            self.mode = Mode::BeforeHtml;
        }
    }

    /// Reads the tag whose name starts at `at`; `None` when the page ends
    /// inside it (html5ever then drops it). The kept attributes of a start
    /// tag are made into values only when a selector may see its element
    /// ([`super::Gate`]).
    fn tag(&mut self, at: usize, end_tag: bool) -> Option<Tag> {
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
    fn scan_attrs(
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
    fn make_attrs(&self, raws: &[RawAttr]) -> Vec<Attribute> {
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

    /// The contents of a raw-text element whose start tag ended at `from`
    /// (its element is the current node): `text` says whether they are
    /// read (and `rcdata`, whether references in them are decoded), `lf`
    /// whether a leading newline is dropped. Pops the element; the offset
    /// after its end tag.
    pub(super) fn raw_text(
        &mut self,
        name: &LocalName,
        from: usize,
        text: bool,
        rcdata: bool,
        lf: bool,
    ) -> Result<usize, Bail> {
        let s = self.page;
        let b = s.as_bytes();
        let Some(close) = find_end_tag(b, from, name.as_bytes()) else {
            return Err(Bail::Outside("a raw-text element without its end tag"));
        };
        // html5ever ends the element only at an appropriate end tag.
        match b.get(close + 2 + name.len()) {
            Some(&c) if is_space(c) || c == b'/' || c == b'>' => {}
            _ => return Err(Bail::Outside("a raw-text end tag html5ever reads as text")),
        }
        let Some(end_tag) = self.tag(close + 2, true) else {
            return Err(Bail::Outside("a raw-text element without its end tag"));
        };
        if text {
            let mut content = &s[from..close];
            if lf && content.starts_with(['\n', '\r']) {
                content = content.trim_start_matches(|c: char| c.is_ascii_whitespace());
            }
            if !content.is_empty() {
                let node = self.current().clone();
                self.text_to(&node, content, rcdata);
            }
        }
        self.stack.pop();
        self.check()?;
        Ok(end_tag.end)
    }

    /// The current node.
    pub(super) fn current(&self) -> &Rc<Node> {
        self.stack.last().map_or(&self.sink.doc, |o| &o.node)
    }

    /// Text (`raw` as written; references decoded when `refs`) appended to
    /// `node`: read only if a field captures it.
    pub(super) fn text_to(&self, node: &Node, raw: &str, refs: bool) {
        if node.captures_above.get() == 0 || node.excluded.get() {
            return;
        }
        if refs {
            self.sink.push_text(node, &decode(raw, false));
        } else {
            self.sink.push_text(node, raw);
        }
    }

    /// A new HTML element: seen by the selectors when its attributes were
    /// made (the tokenizer makes them only then) or its name is one they
    /// see.
    ///
    /// An element judged not seen for a place outside every result, now
    /// inserted inside one, is judged again (the compounds fields read
    /// count there).
    fn element(&self, name: LocalName, attrs: Attrs, parent: &Node) -> Rc<Node> {
        let inside = parent.results_above.get() > 0;
        let (attrs, seen, lazy) = match attrs {
            Attrs::Made(v) => {
                let seen = !v.is_empty() || self.sink.plan.gate.at(inside).name(&name);
                (v, seen, None)
            }
            Attrs::Lazy(at, judged_inside) if inside && !judged_inside => {
                let mut raws = Vec::new();
                match self.scan_attrs(at as usize, Some(&name), true, &mut raws) {
                    Some((_, _, true)) => (self.make_attrs(&raws), true, None),
                    _ => (Vec::new(), false, Some(at)),
                }
            }
            Attrs::Lazy(at, _) => (Vec::new(), false, Some(at)),
        };
        self.sink
            .front_node(QualName::new(None, ns!(html), name), attrs, seen, lazy)
    }

    /// Inserts an element for `name` / `attrs` at the current node, pushed
    /// onto the open elements when `push`.
    pub(super) fn insert(
        &mut self,
        name: LocalName,
        attrs: Attrs,
        push: bool,
    ) -> Result<Rc<Node>, Bail> {
        self.count()?;
        let classes = classes(&name);
        let parent = self.current().clone();
        let el = self.element(name, attrs, &parent);
        self.sink.inserted(&parent, &el);
        self.check()?;
        if push {
            self.stack.push(Open {
                node: el.clone(),
                classes,
            });
        }
        Ok(el)
    }

    /// Inserts an element under the open element `stack[at - 1]` and puts
    /// it at `at` on the stack (the adoption agency's clone).
    pub(super) fn insert_at(
        &mut self,
        at: usize,
        name: LocalName,
        attrs: Attrs,
    ) -> Result<Rc<Node>, Bail> {
        self.count()?;
        let classes = classes(&name);
        let parent = self.stack[at - 1].node.clone();
        let el = self.element(name, attrs, &parent);
        self.sink.inserted(&parent, &el);
        self.check()?;
        self.stack.insert(
            at,
            Open {
                node: el.clone(),
                classes,
            },
        );
        Ok(el)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::stream::{StreamPick, compile};

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
