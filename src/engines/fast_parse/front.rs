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

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use html5ever::{LocalName, QualName, local_name, ns};

use super::entity::decode;
use super::select::Role;
pub(super) use super::tags::{Attrs, RawAttr, Tag};
use super::{Bail, Node, Sink, StreamPlan, Streamed};
use crate::engines::prefilter::{Keep, find_end_tag, is_space, skip_comment};

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
