//! The fast front end's tree construction: html5ever 0.40's insertion modes
//! (`tree_builder/rules.rs`) for the tokens results pages are made of, each
//! rule as html5ever applies it; anything else hands the page over
//! ([`Bail::Outside`]).

use std::borrow::Cow;
use std::rc::Rc;

use html5ever::{LocalName, local_name};

use super::Bail;
use super::entity::decode;
use super::front::{
    Attrs, CELL, Fmt, Front, HEADING, LIST, Mode, Open, Quirks, ROW_CTX, SCOPE, SPECIAL,
    TABLE_SCOPE, TABLE_TEXT, TBODY_CTX, Tag,
};

type R = Result<(), Bail>;

fn outside(why: &'static str) -> Bail {
    Bail::Outside(why)
}

fn is_ws(c: char) -> bool {
    c.is_ascii_whitespace()
}

impl Front<'_, '_> {
    /// Characters as written on the page.
    pub(super) fn chars(&mut self, raw: &str) -> R {
        let mut raw = raw;
        if std::mem::take(&mut self.ignore_lf) && raw.starts_with(['\n', '\r']) {
            // The prefilter squeezed the run to its first byte, which
            // html5ever then dropped.
            raw = raw.trim_start_matches(is_ws);
            if raw.is_empty() {
                return Ok(());
            }
        }
        match self.mode {
            Mode::InBody | Mode::InCell => {
                self.reconstruct()?;
                let node = self.current().clone();
                self.text_to(&node, raw, true);
                return self.check();
            }
            Mode::InTable | Mode::InTableBody | Mode::InRow => {
                let top = self.stack.last().map_or(0, |o| o.classes);
                if top & TABLE_TEXT == 0 || !raw.bytes().all(|c| c.is_ascii_whitespace()) {
                    return Err(outside("text in a table (foster parenting)"));
                }
                let node = self.current().clone();
                self.text_to(&node, raw, false);
                return self.check();
            }
            _ => {}
        }
        // Before the body: leading whitespace is dropped or goes to the
        // head / html element; anything else opens the body.
        let text: Cow<'_, str> = decode(raw, false);
        let mut t: &str = &text;
        loop {
            let rest = t.trim_start_matches(is_ws);
            let ws = &t[..t.len() - rest.len()];
            if !ws.is_empty() && matches!(self.mode, Mode::InHead | Mode::AfterHead) {
                let node = self.current().clone();
                self.text_to(&node, ws, false);
                self.check()?;
            }
            if rest.is_empty() {
                return Ok(());
            }
            self.anything_else_before_body()?;
            if self.mode == Mode::InBody {
                self.reconstruct()?;
                let node = self.current().clone();
                self.text_to(&node, rest, false);
                return self.check();
            }
            t = rest;
        }
    }

    /// One step of the "anything else" of the modes before the body.
    fn anything_else_before_body(&mut self) -> R {
        match self.mode {
            Mode::Initial => {
                self.quirks = Quirks::Yes;
                self.mode = Mode::BeforeHtml;
            }
            Mode::BeforeHtml => {
                self.insert(local_name!("html"), Attrs::none(), true)?;
                self.mode = Mode::BeforeHead;
            }
            Mode::BeforeHead => {
                self.head = Some(self.insert(local_name!("head"), Attrs::none(), true)?);
                self.mode = Mode::InHead;
            }
            Mode::InHead => {
                self.stack.pop();
                self.mode = Mode::AfterHead;
            }
            Mode::AfterHead => {
                self.insert(local_name!("body"), Attrs::none(), true)?;
                self.mode = Mode::InBody;
            }
            _ => {}
        }
        Ok(())
    }

    /// The end of the page: html5ever still makes the html, head and body
    /// elements a page lacks.
    pub(super) fn eof(&mut self) -> R {
        while matches!(
            self.mode,
            Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead | Mode::InHead | Mode::AfterHead
        ) {
            self.anything_else_before_body()?;
        }
        self.check()
    }

    /// A start tag; `Some(offset)` when it read on past the tag (raw text).
    pub(super) fn start_tag(&mut self, tag: Tag) -> Result<Option<usize>, Bail> {
        loop {
            match self.mode {
                Mode::Initial | Mode::BeforeHtml if tag.name == local_name!("html") => {
                    if self.mode == Mode::Initial {
                        self.quirks = Quirks::Yes;
                    }
                    self.insert(tag.name, tag.attrs, true)?;
                    self.mode = Mode::BeforeHead;
                    return Ok(None);
                }
                Mode::Initial | Mode::BeforeHtml => self.anything_else_before_body()?,
                Mode::BeforeHead => match tag.name {
                    local_name!("html") => return self.late_attributes(&tag).map(|_| None),
                    local_name!("head") => {
                        self.head = Some(self.insert(tag.name, tag.attrs, true)?);
                        self.mode = Mode::InHead;
                        return Ok(None);
                    }
                    _ => self.anything_else_before_body()?,
                },
                Mode::InHead => match tag.name {
                    local_name!("html") => return self.late_attributes(&tag).map(|_| None),
                    local_name!("head") => return Ok(None),
                    local_name!("template") => return Err(outside("<template>")),
                    _ if in_head_tag(&tag.name) => return self.in_head(tag),
                    _ => self.anything_else_before_body()?,
                },
                Mode::AfterHead => match tag.name {
                    local_name!("html") => return self.late_attributes(&tag).map(|_| None),
                    local_name!("body") => {
                        self.insert(tag.name, tag.attrs, true)?;
                        self.mode = Mode::InBody;
                        return Ok(None);
                    }
                    local_name!("frameset") => return Err(outside("<frameset>")),
                    local_name!("head") => return Ok(None),
                    local_name!("template") => return Err(outside("<template>")),
                    _ if in_head_tag(&tag.name) && tag.name != local_name!("noscript") => {
                        let head = self.head.clone().ok_or(outside("no head element"))?;
                        self.stack.push(Open {
                            node: head.clone(),
                            classes: SPECIAL,
                        });
                        let out = self.in_head(tag);
                        if let Some(i) = self.stack.iter().rposition(|o| Rc::ptr_eq(&o.node, &head))
                        {
                            self.stack.remove(i);
                        }
                        return out;
                    }
                    _ => self.anything_else_before_body()?,
                },
                Mode::InBody => return self.in_body(tag),
                Mode::InTable => return self.in_table(tag),
                Mode::InTableBody => match tag.name {
                    local_name!("tr") => {
                        self.clear_to(TBODY_CTX);
                        self.insert(tag.name, tag.attrs, true)?;
                        self.mode = Mode::InRow;
                        return Ok(None);
                    }
                    local_name!("th") | local_name!("td") => {
                        self.clear_to(TBODY_CTX);
                        self.insert(local_name!("tr"), Attrs::none(), true)?;
                        self.mode = Mode::InRow;
                    }
                    local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("tbody")
                    | local_name!("tfoot")
                    | local_name!("thead") => {
                        if !self.table_body_in_scope() {
                            return Ok(None);
                        }
                        self.clear_to(TBODY_CTX);
                        self.stack.pop();
                        self.mode = Mode::InTable;
                    }
                    _ => return self.in_table(tag),
                },
                Mode::InRow => match tag.name {
                    local_name!("th") | local_name!("td") => {
                        self.clear_to(ROW_CTX);
                        self.insert(tag.name, tag.attrs, true)?;
                        self.mode = Mode::InCell;
                        self.afe.push(Fmt::Marker);
                        return Ok(None);
                    }
                    local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("tbody")
                    | local_name!("tfoot")
                    | local_name!("thead")
                    | local_name!("tr") => {
                        if !self.close_row() {
                            return Ok(None);
                        }
                    }
                    _ => return self.in_table(tag),
                },
                Mode::InCell => match tag.name {
                    local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("tbody")
                    | local_name!("td")
                    | local_name!("tfoot")
                    | local_name!("th")
                    | local_name!("thead")
                    | local_name!("tr") => {
                        if !self.in_scope(TABLE_SCOPE, |o| o.classes & CELL != 0) {
                            return Ok(None);
                        }
                        self.close_cell();
                    }
                    _ => return self.in_body(tag),
                },
            }
        }
    }

    /// `<html>` / `<body>` met again: html5ever adds their attributes to the
    /// element, which the streaming path does not follow.
    fn late_attributes(&mut self, tag: &Tag) -> R {
        if !tag.kept_any {
            Ok(())
        } else {
            Err(outside("late <html>/<body> attributes"))
        }
    }

    /// The "in head" rules for the tags [`in_head_tag`] names.
    pub(super) fn in_head(&mut self, tag: Tag) -> Result<Option<usize>, Bail> {
        let end = tag.end;
        match tag.name {
            local_name!("title") => {
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                self.raw_text(&name, end, true, true, false).map(Some)
            }
            local_name!("script") | local_name!("style") | local_name!("noscript") => {
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                self.raw_text(&name, end, false, false, false).map(Some)
            }
            local_name!("noframes") => {
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                self.raw_text(&name, end, true, false, false).map(Some)
            }
            _ => {
                // base, basefont, bgsound, link, meta
                self.insert(tag.name, tag.attrs, false)?;
                Ok(None)
            }
        }
    }

    fn in_body(&mut self, mut tag: Tag) -> Result<Option<usize>, Bail> {
        let end = tag.end;
        match tag.name {
            local_name!("html") | local_name!("body") => self.late_attributes(&tag)?,
            local_name!("template") => return Err(outside("<template>")),
            _ if in_head_tag(&tag.name) => return self.in_head(tag),
            local_name!("frameset") => return Err(outside("<frameset>")),
            local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("main")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("search")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("ul")
            | local_name!("menu") => {
                self.close_p_in_button_scope();
                self.insert(tag.name, tag.attrs, true)?;
            }
            local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6") => {
                self.close_p_in_button_scope();
                if self.top_classes() & HEADING != 0 {
                    self.stack.pop();
                }
                self.insert(tag.name, tag.attrs, true)?;
            }
            local_name!("pre") | local_name!("listing") => {
                self.close_p_in_button_scope();
                self.insert(tag.name, tag.attrs, true)?;
                self.ignore_lf = true;
            }
            local_name!("form") => {
                if self.form.is_none() {
                    self.close_p_in_button_scope();
                    self.form = Some(self.insert(tag.name, tag.attrs, true)?);
                }
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let list = tag.name == local_name!("li");
                let mut to_close = None;
                for o in self.stack.iter().rev() {
                    let n = &o.node.name.local;
                    let hit = if list {
                        *n == local_name!("li")
                    } else {
                        *n == local_name!("dd") || *n == local_name!("dt")
                    };
                    if hit {
                        to_close = Some(n.clone());
                        break;
                    }
                    if o.classes & SPECIAL != 0
                        && !matches!(
                            *n,
                            local_name!("address") | local_name!("div") | local_name!("p")
                        )
                    {
                        break;
                    }
                }
                if let Some(name) = to_close {
                    self.implied_end_except(Some(&name));
                    self.pop_until(&name);
                }
                self.close_p_in_button_scope();
                self.insert(tag.name, tag.attrs, true)?;
            }
            local_name!("button") => {
                if self.in_scope_named(SCOPE, &local_name!("button")) {
                    self.implied_end_except(None);
                    self.pop_until(&local_name!("button"));
                }
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, true)?;
            }
            local_name!("a") => {
                let open_a = self
                    .afe_to_marker()
                    .find(|n| n.name.local == local_name!("a"))
                    .cloned();
                if let Some(node) = open_a {
                    self.adoption_agency(&local_name!("a"))?;
                    self.afe
                        .retain(|e| !matches!(e, Fmt::El(n) if Rc::ptr_eq(n, &node)));
                    if let Some(i) = self.stack.iter().rposition(|o| Rc::ptr_eq(&o.node, &node)) {
                        self.stack.remove(i);
                    }
                }
                self.reconstruct()?;
                self.formatting(tag)?;
            }
            local_name!("b")
            | local_name!("big")
            | local_name!("code")
            | local_name!("em")
            | local_name!("font")
            | local_name!("i")
            | local_name!("s")
            | local_name!("small")
            | local_name!("strike")
            | local_name!("strong")
            | local_name!("tt")
            | local_name!("u") => {
                self.reconstruct()?;
                self.formatting(tag)?;
            }
            local_name!("nobr") => {
                self.reconstruct()?;
                if self.in_scope_named(SCOPE, &local_name!("nobr")) {
                    self.adoption_agency(&local_name!("nobr"))?;
                    self.reconstruct()?;
                }
                self.formatting(tag)?;
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, true)?;
                self.afe.push(Fmt::Marker);
            }
            local_name!("table") => {
                if self.quirks != Quirks::Yes {
                    if self.quirks == Quirks::Unknown && self.p_in_button_scope() {
                        return Err(outside("a doctype's quirks mode"));
                    }
                    self.close_p_in_button_scope();
                }
                self.insert(tag.name, tag.attrs, true)?;
                self.mode = Mode::InTable;
            }
            local_name!("area")
            | local_name!("br")
            | local_name!("embed")
            | local_name!("img")
            | local_name!("keygen")
            | local_name!("wbr") => {
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, false)?;
            }
            local_name!("image") => {
                tag.name = local_name!("img");
                return self.in_body(tag);
            }
            local_name!("input") => {
                if self.in_scope_named(SCOPE, &local_name!("select")) {
                    self.pop_until(&local_name!("select"));
                }
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, false)?;
            }
            local_name!("param") | local_name!("source") | local_name!("track") => {
                self.insert(tag.name, tag.attrs, false)?;
            }
            local_name!("hr") => {
                self.close_p_in_button_scope();
                if self.in_scope_named(SCOPE, &local_name!("select")) {
                    self.implied_end_except(None);
                }
                self.insert(tag.name, tag.attrs, false)?;
            }
            local_name!("textarea") => {
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                return self.raw_text(&name, end, true, true, true).map(Some);
            }
            local_name!("xmp") => {
                self.close_p_in_button_scope();
                self.reconstruct()?;
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                return self.raw_text(&name, end, true, false, false).map(Some);
            }
            local_name!("iframe") | local_name!("noembed") => {
                let name = tag.name.clone();
                self.insert(tag.name, tag.attrs, true)?;
                return self.raw_text(&name, end, true, false, false).map(Some);
            }
            local_name!("select") => {
                if self.in_scope_named(SCOPE, &local_name!("select")) {
                    self.pop_until(&local_name!("select"));
                } else {
                    self.reconstruct()?;
                    self.insert(tag.name, tag.attrs, true)?;
                }
            }
            local_name!("option") | local_name!("optgroup") => {
                if self.in_scope_named(SCOPE, &local_name!("select")) {
                    if tag.name == local_name!("option") {
                        self.implied_end_except(Some(&local_name!("optgroup")));
                    } else {
                        self.implied_end_except(None);
                    }
                } else if self.current().name.local == local_name!("option") {
                    self.stack.pop();
                }
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, true)?;
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("frame")
            | local_name!("head")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => {}
            local_name!("plaintext") => return Err(outside("<plaintext>")),
            local_name!("math") | local_name!("svg") => {
                return Err(outside("foreign content"));
            }
            local_name!("rb") | local_name!("rtc") | local_name!("rp") | local_name!("rt") => {
                return Err(outside("ruby"));
            }
            local_name!("selectedcontent") => return Err(outside("<selectedcontent>")),
            _ => {
                self.reconstruct()?;
                self.insert(tag.name, tag.attrs, true)?;
            }
        }
        Ok(None)
    }

    /// An end tag.
    pub(super) fn end_tag(&mut self, name: LocalName) -> R {
        loop {
            match self.mode {
                Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => {
                    // Initial takes every token on; the other two only these.
                    let on = self.mode == Mode::Initial
                        || matches!(
                            name,
                            local_name!("head")
                                | local_name!("body")
                                | local_name!("html")
                                | local_name!("br")
                        );
                    if !on {
                        return Ok(());
                    }
                    self.anything_else_before_body()?;
                }
                Mode::InHead => match name {
                    local_name!("head") => {
                        self.stack.pop();
                        self.mode = Mode::AfterHead;
                        return Ok(());
                    }
                    local_name!("body") | local_name!("html") | local_name!("br") => {
                        self.anything_else_before_body()?;
                    }
                    local_name!("template") => return Err(outside("<template>")),
                    _ => return Ok(()),
                },
                Mode::AfterHead => match name {
                    local_name!("body") | local_name!("html") | local_name!("br") => {
                        self.anything_else_before_body()?;
                    }
                    local_name!("template") => return Err(outside("<template>")),
                    _ => return Ok(()),
                },
                Mode::InBody => return self.end_in_body(name),
                Mode::InTable => return self.end_in_table(name),
                Mode::InTableBody => match name {
                    local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                        if self.in_scope_named(TABLE_SCOPE, &name) {
                            self.clear_to(TBODY_CTX);
                            self.stack.pop();
                            self.mode = Mode::InTable;
                        }
                        return Ok(());
                    }
                    local_name!("table") => {
                        if !self.table_body_in_scope() {
                            return Ok(());
                        }
                        self.clear_to(TBODY_CTX);
                        self.stack.pop();
                        self.mode = Mode::InTable;
                    }
                    local_name!("body")
                    | local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("html")
                    | local_name!("td")
                    | local_name!("th")
                    | local_name!("tr") => return Ok(()),
                    _ => return self.end_in_table(name),
                },
                Mode::InRow => match name {
                    local_name!("tr") => {
                        self.close_row();
                        return Ok(());
                    }
                    local_name!("table") => {
                        if !self.close_row() {
                            return Ok(());
                        }
                    }
                    local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                        if !self.in_scope_named(TABLE_SCOPE, &name) || !self.close_row() {
                            return Ok(());
                        }
                    }
                    local_name!("body")
                    | local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("html")
                    | local_name!("td")
                    | local_name!("th") => return Ok(()),
                    _ => return self.end_in_table(name),
                },
                Mode::InCell => match name {
                    local_name!("td") | local_name!("th") => {
                        if self.in_scope_named(TABLE_SCOPE, &name) {
                            self.implied_end_except(None);
                            self.pop_until(&name);
                            self.clear_afe_to_marker();
                            self.mode = Mode::InRow;
                        }
                        return Ok(());
                    }
                    local_name!("body")
                    | local_name!("caption")
                    | local_name!("col")
                    | local_name!("colgroup")
                    | local_name!("html") => return Ok(()),
                    local_name!("table")
                    | local_name!("tbody")
                    | local_name!("tfoot")
                    | local_name!("thead")
                    | local_name!("tr") => {
                        if !self.in_scope_named(TABLE_SCOPE, &name) {
                            return Ok(());
                        }
                        self.close_cell();
                    }
                    _ => return self.end_in_body(name),
                },
            }
        }
    }

    fn end_in_body(&mut self, name: LocalName) -> R {
        match name {
            local_name!("template") => return Err(outside("<template>")),
            // "After body" reads what follows as "in body" does.
            local_name!("body") | local_name!("html") => {}
            local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("button")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("menu")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("pre")
            | local_name!("search")
            | local_name!("section")
            | local_name!("select")
            | local_name!("summary")
            | local_name!("ul") => {
                if self.in_scope_named(SCOPE, &name) {
                    self.implied_end_except(None);
                    self.pop_until(&name);
                }
            }
            local_name!("form") => {
                if let Some(node) = self.form.take()
                    && self.in_scope(SCOPE, |o| Rc::ptr_eq(&o.node, &node))
                {
                    self.implied_end_except(None);
                    if let Some(i) = self.stack.iter().rposition(|o| Rc::ptr_eq(&o.node, &node)) {
                        self.stack.remove(i);
                    }
                }
            }
            local_name!("p") => {
                if !self.p_in_button_scope() {
                    self.insert(local_name!("p"), Attrs::none(), true)?;
                }
                self.close_p();
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let scope = if name == local_name!("li") {
                    SCOPE | LIST
                } else {
                    SCOPE
                };
                if self.in_scope_named(scope, &name) {
                    self.implied_end_except(Some(&name));
                    self.pop_until(&name);
                }
            }
            local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6") => {
                if self.in_scope(SCOPE, |o| o.classes & HEADING != 0) {
                    self.implied_end_except(None);
                    while let Some(o) = self.stack.pop() {
                        if o.classes & HEADING != 0 {
                            break;
                        }
                    }
                }
            }
            local_name!("a")
            | local_name!("b")
            | local_name!("big")
            | local_name!("code")
            | local_name!("em")
            | local_name!("font")
            | local_name!("i")
            | local_name!("nobr")
            | local_name!("s")
            | local_name!("small")
            | local_name!("strike")
            | local_name!("strong")
            | local_name!("tt")
            | local_name!("u") => self.adoption_agency(&name)?,
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                if self.in_scope_named(SCOPE, &name) {
                    self.implied_end_except(None);
                    self.pop_until(&name);
                    self.clear_afe_to_marker();
                }
            }
            local_name!("br") => {
                self.reconstruct()?;
                self.insert(local_name!("br"), Attrs::none(), false)?;
            }
            _ => self.any_other_end_tag(&name),
        }
        Ok(())
    }
}

/// The start tags the "in head" rules take (other than `<template>`).
fn in_head_tag(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("title")
            | local_name!("noframes")
            | local_name!("style")
            | local_name!("script")
            | local_name!("noscript")
    )
}
