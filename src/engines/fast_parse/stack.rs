//! The fast front end's open elements and active formatting elements:
//! scopes, implied end tags, the table modes' stack rules, reconstruction,
//! the "Noah's Ark" clause and the adoption agency, as html5ever 0.40 runs
//! them (`tree_builder/mod.rs`).

use std::rc::Rc;

use html5ever::{Attribute, LocalName, local_name};

use super::Bail;
use super::Node;
use super::front::{
    Attrs, BUTTON, CELL, Fmt, Front, IMPLIED, MAX_FORMATTING, Mode, Open, ROW_CTX, SCOPE, SPECIAL,
    TABLE_SCOPE, Tag,
};

type R = Result<(), Bail>;

fn outside(why: &'static str) -> Bail {
    Bail::Outside(why)
}

impl Front<'_, '_> {
    pub(super) fn in_table(&mut self, tag: Tag) -> Result<Option<usize>, Bail> {
        match tag.name {
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                self.clear_to(TABLE_SCOPE);
                self.insert(tag.name, tag.attrs, true)?;
                self.mode = Mode::InTableBody;
                Ok(None)
            }
            local_name!("td") | local_name!("th") | local_name!("tr") => {
                self.clear_to(TABLE_SCOPE);
                self.insert(local_name!("tbody"), Attrs::none(), true)?;
                self.mode = Mode::InTableBody;
                self.start_tag(tag)
            }
            local_name!("style") | local_name!("script") => self.in_head(tag),
            local_name!("input")
                if self.made(&tag.attrs).iter().any(|a| {
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

    pub(super) fn end_in_table(&mut self, name: LocalName) -> R {
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

    pub(super) fn any_other_end_tag(&mut self, name: &LocalName) {
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

    /// The adoption agency (html5ever's `adoption_agency`). When it moves
    /// nodes, it is followed only as the streaming sink follows it
    /// ([`super::Sink::remove_from_parent`]): the furthest block and the
    /// formatting element's clone must be elements no selector can see,
    /// outside every result, with nothing between the furthest block and
    /// its new parent that a selector sees, an exclude removes or a capture
    /// reads; then every ancestor chain that changes gains or loses only
    /// elements no selector sees, and no captured text changes order, so
    /// the sink's parent links may stay as they were. A formatting element
    /// between the two (which html5ever would clone too) hands the page over.
    pub(super) fn adoption_agency(&mut self, subject: &LocalName) -> R {
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
        for _ in 0..8 {
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
            let Some(bi) = (si..self.stack.len()).find(|&i| self.stack[i].classes & SPECIAL != 0)
            else {
                self.stack.truncate(si);
                self.afe.remove(fi);
                return Ok(());
            };
            self.move_furthest_block(fi, si, bi)?;
        }
        Ok(())
    }

    /// Steps 11–20 of the adoption agency, for formatting element
    /// `afe[fi]` = `stack[si]` and furthest block `stack[bi]`.
    fn move_furthest_block(&mut self, fi: usize, si: usize, bi: usize) -> R {
        let moved = || outside("misnested formatting (the adoption agency moves seen nodes)");
        if si == 0 {
            return Err(moved());
        }
        let common = self.stack[si - 1].node.clone();
        let fmt = self.stack[si].node.clone();
        let block = self.stack[bi].node.clone();
        // The nodes between them leave the stack; one that is a formatting
        // element would be cloned.
        for o in &self.stack[si + 1..bi] {
            if self
                .afe
                .iter()
                .any(|e| matches!(e, Fmt::El(n) if Rc::ptr_eq(n, &o.node)))
            {
                return Err(outside("misnested formatting (the adoption agency clones)"));
            }
        }
        let seen = &self.sink.plan.seen;
        if seen.sees(&block)
            || seen.sees(&fmt)
            || block.results_above.get() > 0
            || block.captures_above.get() != common.captures_above.get()
            || block.excluded.get() != common.excluded.get()
        {
            return Err(moved());
        }
        // Every element on the sink's chain from the block up to its new
        // parent must be one no selector sees.
        let mut at = block.parent();
        while let Some(n) = at {
            if std::ptr::eq(n, &*common) {
                break;
            }
            if seen.sees(n) {
                return Err(moved());
            }
            at = n.parent();
        }
        if at.is_none() {
            return Err(moved());
        }
        // The clone of the formatting element goes under the block, and
        // takes the block's place in the list and on the stack.
        self.stack.drain(si + 1..bi);
        let (name, attrs) = (fmt.name.local.clone(), Attrs::of(&fmt));
        self.stack.remove(si);
        // The block is now at `si`: the clone goes right above it.
        let clone = self.insert_at(si + 1, name, attrs)?;
        self.afe[fi] = Fmt::El(clone);
        Ok(())
    }

    /// Inserts a formatting element and enters it in the list (at most
    /// three equal ones after the last marker: the "Noah's Ark" clause).
    pub(super) fn formatting(&mut self, tag: Tag) -> R {
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
    pub(super) fn same_tag(&self, node: &Node, name: &LocalName, attrs: &Attrs) -> bool {
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
        let mut x: Vec<_> = self.node_attrs(node).iter().filter_map(norm).collect();
        let mut y: Vec<_> = self.made(attrs).iter().filter_map(norm).collect();
        x.sort();
        y.sort();
        x == y
    }

    /// Reconstructs the active formatting elements.
    pub(super) fn reconstruct(&mut self) -> R {
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
            let (name, attrs) = (old.name.local.clone(), Attrs::of(old));
            let el = self.insert(name, attrs, true)?;
            self.afe[i] = Fmt::El(el);
            if i == self.afe.len() - 1 {
                return Ok(());
            }
            i += 1;
        }
    }

    pub(super) fn marker_or_open(&self, e: &Fmt) -> bool {
        match e {
            Fmt::Marker => true,
            Fmt::El(n) => self.stack.iter().rev().any(|o| Rc::ptr_eq(&o.node, n)),
        }
    }

    /// The formatting elements after the last marker, last first.
    pub(super) fn afe_to_marker(&self) -> impl Iterator<Item = &Rc<Node>> {
        self.afe
            .iter()
            .rev()
            .take_while(|e| !matches!(e, Fmt::Marker))
            .filter_map(|e| match e {
                Fmt::El(n) => Some(n),
                Fmt::Marker => None,
            })
    }

    pub(super) fn clear_afe_to_marker(&mut self) {
        while let Some(e) = self.afe.pop() {
            if matches!(e, Fmt::Marker) {
                break;
            }
        }
    }

    pub(super) fn top_classes(&self) -> u16 {
        self.stack.last().map_or(0, |o| o.classes)
    }

    pub(super) fn in_scope(&self, scope: u16, pred: impl Fn(&Open) -> bool) -> bool {
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

    pub(super) fn in_scope_named(&self, scope: u16, name: &LocalName) -> bool {
        self.in_scope(scope, |o| o.node.name.local == *name)
    }

    pub(super) fn p_in_button_scope(&self) -> bool {
        self.in_scope_named(SCOPE | BUTTON, &local_name!("p"))
    }

    pub(super) fn table_body_in_scope(&self) -> bool {
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
    pub(super) fn implied_end_except(&mut self, except: Option<&LocalName>) {
        while let Some(o) = self.stack.last() {
            if o.classes & IMPLIED == 0 || except.is_some_and(|e| o.node.name.local == *e) {
                return;
            }
            self.stack.pop();
        }
    }

    pub(super) fn pop_until(&mut self, name: &LocalName) {
        while let Some(o) = self.stack.pop() {
            if o.node.name.local == *name {
                return;
            }
        }
    }

    pub(super) fn close_p(&mut self) {
        self.implied_end_except(Some(&local_name!("p")));
        self.pop_until(&local_name!("p"));
    }

    pub(super) fn close_p_in_button_scope(&mut self) {
        if self.p_in_button_scope() {
            self.close_p();
        }
    }

    /// Pops until the current node is in `set` (a table context).
    pub(super) fn clear_to(&mut self, set: u16) {
        while self.stack.len() > 1 && self.top_classes() & set == 0 {
            self.stack.pop();
        }
    }

    /// Closes the current row if one is in table scope.
    pub(super) fn close_row(&mut self) -> bool {
        if !self.in_scope_named(TABLE_SCOPE, &local_name!("tr")) {
            return false;
        }
        self.clear_to(ROW_CTX);
        self.stack.pop();
        self.mode = Mode::InTableBody;
        true
    }

    pub(super) fn close_cell(&mut self) {
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
    pub(super) fn reset_mode(&mut self) -> R {
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
