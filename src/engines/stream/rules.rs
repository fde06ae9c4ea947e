//! The fast front end's tree construction: html5ever 0.40's insertion modes
//! (`tree_builder/rules.rs`) for the tokens results pages are made of, each
//! rule as html5ever applies it; anything else hands the page over
//! ([`Bail::Outside`]).

use std::borrow::Cow;
use std::rc::Rc;

use html5ever::{Attribute, LocalName, local_name};

use super::Bail;
use super::Node;
use super::entity::decode;
use super::front::{
    BUTTON, CELL, Fmt, Front, HEADING, IMPLIED, LIST, MAX_FORMATTING, Mode, Open, Quirks,
    ROW_CTX, SCOPE, SPECIAL, TABLE_SCOPE, TABLE_TEXT, TBODY_CTX, Tag,
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
                self.insert(local_name!("html"), Vec::new(), true)?;
                self.mode = Mode::BeforeHead;
            }
            Mode::BeforeHead => {
                self.head = Some(self.insert(local_name!("head"), Vec::new(), true)?);
                self.mode = Mode::InHead;
            }
            Mode::InHead => {
                self.stack.pop();
                self.mode = Mode::AfterHead;
            }
            Mode::AfterHead => {
                self.insert(local_name!("body"), Vec::new(), true)?;
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
                        self.insert(local_name!("tr"), Vec::new(), true)?;
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
        if tag.attrs.is_empty() {
            Ok(())
        } else {
            Err(outside("late <html>/<body> attributes"))
        }
    }

    /// The "in head" rules for the tags [`in_head_tag`] names.
    fn in_head(&mut self, tag: Tag) -> Result<Option<usize>, Bail> {
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

    fn in_table(&mut self, tag: Tag) -> Result<Option<usize>, Bail> {
        match tag.name {
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                self.clear_to(TABLE_SCOPE);
                self.insert(tag.name, tag.attrs, true)?;
                self.mode = Mode::InTableBody;
                Ok(None)
            }
            local_name!("td") | local_name!("th") | local_name!("tr") => {
                self.clear_to(TABLE_SCOPE);
                self.insert(local_name!("tbody"), Vec::new(), true)?;
                self.mode = Mode::InTableBody;
                self.start_tag(tag)
            }
            local_name!("style") | local_name!("script") => self.in_head(tag),
            local_name!("input")
                if tag.attrs.iter().any(|a| {
                    a.name.local == local_name!("type") && a.value.eq_ignore_ascii_case("hidden")
                }) =>
            {
                self.insert(tag.name, tag.attrs, false)?;
                Ok(None)
            }
            local_name!("form") => {
                if self.form.is_none() {
                    self.form = Some(self.insert(tag.name, tag.attrs, false)?);
                }
                Ok(None)
            }
            _ => Err(outside("a start tag in a table (foster parenting)")),
        }
    }

    /// An end tag.
    pub(super) fn end_tag(&mut self, name: LocalName) -> R {
        loop {
            match self.mode {
                Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => {
                    if matches!(
                        name,
                        local_name!("head")
                            | local_name!("body")
                            | local_name!("html")
                            | local_name!("br")
                    ) {
                        self.anything_else_before_body()?;
                    } else if self.mode == Mode::Initial {
                        self.anything_else_before_body()?;
                    } else {
                        return Ok(());
                    }
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

    fn end_in_table(&mut self, name: LocalName) -> R {
        match name {
            local_name!("table") => {
                if self.in_scope_named(TABLE_SCOPE, &local_name!("table")) {
                    self.pop_until(&local_name!("table"));
                    self.reset_mode()?;
                }
                Ok(())
            }
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => Ok(()),
            _ => Err(outside("an end tag in a table (foster parenting)")),
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
                    self.insert(local_name!("p"), Vec::new(), true)?;
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
                self.insert(local_name!("br"), Vec::new(), false)?;
            }
            _ => self.any_other_end_tag(&name),
        }
        Ok(())
    }

    fn any_other_end_tag(&mut self, name: &LocalName) {
        for i in (0..self.stack.len()).rev() {
            let o = &self.stack[i];
            if o.node.name.local == *name {
                self.implied_end_except(Some(name));
                self.stack.truncate(i);
                return;
            }
            if o.classes & SPECIAL != 0 {
                return;
            }
        }
    }

    /// The adoption agency when it moves nothing; a page where it would
    /// move nodes is handed over.
    fn adoption_agency(&mut self, subject: &LocalName) -> R {
        let current = self.current().clone();
        if current.name.local == *subject
            && !self
                .afe
                .iter()
                .any(|e| matches!(e, Fmt::El(n) if Rc::ptr_eq(n, &current)))
        {
            self.stack.pop();
            return Ok(());
        }
        let mut found = None;
        for (i, e) in self.afe.iter().enumerate().rev() {
            match e {
                Fmt::Marker => break,
                Fmt::El(n) if n.name.local == *subject => {
                    found = Some((i, n.clone()));
                    break;
                }
                Fmt::El(_) => {}
            }
        }
        let Some((fi, fmt)) = found else {
            self.any_other_end_tag(subject);
            return Ok(());
        };
        let Some(si) = self.stack.iter().rposition(|o| Rc::ptr_eq(&o.node, &fmt)) else {
            self.afe.remove(fi);
            return Ok(());
        };
        if !self.in_scope(SCOPE, |o| Rc::ptr_eq(&o.node, &fmt)) {
            return Ok(());
        }
        if self.stack[si..].iter().any(|o| o.classes & SPECIAL != 0) {
            return Err(outside("misnested formatting (the adoption agency moves nodes)"));
        }
        self.stack.truncate(si);
        self.afe.remove(fi);
        Ok(())
    }

    /// Inserts a formatting element and enters it in the list (at most
    /// three equal ones after the last marker: the "Noah's Ark" clause).
    fn formatting(&mut self, tag: Tag) -> R {
        let mut first = None;
        let mut count = 0;
        for (i, e) in self.afe.iter().enumerate().rev() {
            match e {
                Fmt::Marker => break,
                Fmt::El(n) if self.same_tag(n, &tag.name, &tag.attrs) => {
                    first = Some(i);
                    count += 1;
                }
                Fmt::El(_) => {}
            }
        }
        if count >= 3
            && let Some(i) = first
        {
            self.afe.remove(i);
        }
        let el = self.insert(tag.name, tag.attrs, true)?;
        self.afe.push(Fmt::El(el));
        if self.afe.len() > MAX_FORMATTING {
            return Err(outside("too many formatting elements"));
        }
        Ok(())
    }

    /// Whether html5ever would hold `node`'s tag and this one equal: same
    /// name and attributes, as the prefiltered page has them (of `class`
    /// values only the class names the selectors name).
    fn same_tag(&self, node: &Node, name: &LocalName, attrs: &[Attribute]) -> bool {
        let norm = |a: &Attribute| -> Option<(LocalName, String)> {
            if a.name.local == local_name!("class") {
                let v = self.keep.class_value(&a.value)?;
                return Some((a.name.local.clone(), v));
            }
            Some((a.name.local.clone(), a.value.to_string()))
        };
        if node.name.local != *name {
            return false;
        }
        let mut x: Vec<_> = node.attrs.iter().filter_map(norm).collect();
        let mut y: Vec<_> = attrs.iter().filter_map(norm).collect();
        x.sort();
        y.sort();
        x == y
    }

    /// Reconstructs the active formatting elements.
    fn reconstruct(&mut self) -> R {
        let Some(last) = self.afe.last() else {
            return Ok(());
        };
        if self.marker_or_open(last) {
            return Ok(());
        }
        let mut i = self.afe.len() - 1;
        while i > 0 {
            i -= 1;
            if self.marker_or_open(&self.afe[i]) {
                i += 1;
                break;
            }
        }
        loop {
            let Fmt::El(old) = &self.afe[i] else {
                return Err(outside("a marker while reconstructing"));
            };
            let (name, attrs) = (old.name.local.clone(), old.attrs.clone());
            let el = self.insert(name, attrs, true)?;
            self.afe[i] = Fmt::El(el);
            if i == self.afe.len() - 1 {
                return Ok(());
            }
            i += 1;
        }
    }

    fn marker_or_open(&self, e: &Fmt) -> bool {
        match e {
            Fmt::Marker => true,
            Fmt::El(n) => self.stack.iter().rev().any(|o| Rc::ptr_eq(&o.node, n)),
        }
    }

    /// The formatting elements after the last marker, last first.
    fn afe_to_marker(&self) -> impl Iterator<Item = &Rc<Node>> {
        self.afe
            .iter()
            .rev()
            .take_while(|e| !matches!(e, Fmt::Marker))
            .filter_map(|e| match e {
                Fmt::El(n) => Some(n),
                Fmt::Marker => None,
            })
    }

    fn clear_afe_to_marker(&mut self) {
        while let Some(e) = self.afe.pop() {
            if matches!(e, Fmt::Marker) {
                break;
            }
        }
    }

    fn top_classes(&self) -> u16 {
        self.stack.last().map_or(0, |o| o.classes)
    }

    fn in_scope(&self, scope: u16, pred: impl Fn(&Open) -> bool) -> bool {
        for o in self.stack.iter().rev() {
            if pred(o) {
                return true;
            }
            if o.classes & scope != 0 {
                return false;
            }
        }
        false
    }

    fn in_scope_named(&self, scope: u16, name: &LocalName) -> bool {
        self.in_scope(scope, |o| o.node.name.local == *name)
    }

    fn p_in_button_scope(&self) -> bool {
        self.in_scope_named(SCOPE | BUTTON, &local_name!("p"))
    }

    fn table_body_in_scope(&self) -> bool {
        // html5ever's set: table, tbody, tfoot.
        self.in_scope(TABLE_SCOPE, |o| {
            matches!(
                o.node.name.local,
                local_name!("table") | local_name!("tbody") | local_name!("tfoot")
            )
        })
    }

    /// Pops elements implied closed (dd, dt, li, option, optgroup, p, rb,
    /// rp, rt, rtc), but not `except`.
    fn implied_end_except(&mut self, except: Option<&LocalName>) {
        while let Some(o) = self.stack.last() {
            if o.classes & IMPLIED == 0 || except.is_some_and(|e| o.node.name.local == *e) {
                return;
            }
            self.stack.pop();
        }
    }

    fn pop_until(&mut self, name: &LocalName) {
        while let Some(o) = self.stack.pop() {
            if o.node.name.local == *name {
                return;
            }
        }
    }

    fn close_p(&mut self) {
        self.implied_end_except(Some(&local_name!("p")));
        self.pop_until(&local_name!("p"));
    }

    fn close_p_in_button_scope(&mut self) {
        if self.p_in_button_scope() {
            self.close_p();
        }
    }

    /// Pops until the current node is in `set` (a table context).
    fn clear_to(&mut self, set: u16) {
        while self.stack.len() > 1 && self.top_classes() & set == 0 {
            self.stack.pop();
        }
    }

    /// Closes the current row if one is in table scope.
    fn close_row(&mut self) -> bool {
        if !self.in_scope_named(TABLE_SCOPE, &local_name!("tr")) {
            return false;
        }
        self.clear_to(ROW_CTX);
        self.stack.pop();
        self.mode = Mode::InTableBody;
        true
    }

    fn close_cell(&mut self) {
        self.implied_end_except(None);
        while let Some(o) = self.stack.pop() {
            if o.classes & CELL != 0 {
                break;
            }
        }
        self.clear_afe_to_marker();
        self.mode = Mode::InRow;
    }

    /// "Reset the insertion mode appropriately" after a table closed.
    fn reset_mode(&mut self) -> R {
        for (i, o) in self.stack.iter().enumerate().rev() {
            let last = i == 0;
            self.mode = match o.node.name.local {
                local_name!("td") | local_name!("th") if !last => Mode::InCell,
                local_name!("tr") => Mode::InRow,
                local_name!("tbody") | local_name!("thead") | local_name!("tfoot") => {
                    Mode::InTableBody
                }
                local_name!("table") => Mode::InTable,
                local_name!("body") => Mode::InBody,
                local_name!("caption")
                | local_name!("colgroup")
                | local_name!("template")
                | local_name!("head")
                | local_name!("frameset") => return Err(outside("an unusual table context")),
                local_name!("html") => Mode::AfterHead,
                _ => continue,
            };
            return Ok(());
        }
        self.mode = Mode::InBody;
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
