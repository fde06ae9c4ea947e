//! The streaming extraction path of the `html` kind: the page is read as a
//! stream of tokens and no tree is built.
//!
//! The tree path ([`super::html`]) gives html5ever's tree builder a sink that
//! keeps every node, then runs the selectors over the whole tree. This path
//! gives the same tree builder (so every rule of HTML tree construction —
//! implied end tags, `<p>` closed by a block, `<li>` closing the last `<li>`,
//! tables, formatting elements rebuilt after a block — is html5ever's own)
//! a sink, [`Sink`], that keeps nothing but the open elements' names and
//! attributes and their parent links. Each element is matched when it is
//! inserted, against its ancestors (the selectors crate's own matching, the
//! crate scraper uses, with scraper's settings), and only the text of the
//! elements a field reads is kept. Memory is the open elements, not the page.
//!
//! The tree path stays the reference. An element's place is final when it is
//! inserted, except when html5ever moves nodes already inserted (the
//! adoption agency for misnested formatting elements, foster parenting out
//! of tables, `<template>` contents, attributes added to `<html>` / `<body>`
//! later): then the sink stops and the page goes to the tree path, as it
//! does past the budgets below. A selector whose match depends on what
//! comes after an element (`:last-child`, `:has()`, `:empty`, sibling
//! combinators, …) cannot be decided on insertion: an engine that uses one
//! reads every page with the tree path ([`StreamPlan::new`] says which, and
//! `check-config` says it once). `tests/parsers_stream.rs` checks that both
//! paths give the same records on every saved page and on generated ones.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{Attribute, ExpandedName, LocalName, QualName, local_name, ns};
use selectors::Element;
use selectors::matching::{
    self, MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags,
    SelectorCaches,
};

use super::text::{collapse_whitespace, join_pieces};

mod entity;
mod front;
mod rules;
mod select;
mod stack;
mod tags;
pub use front::counts as fast_counts;
use select::El;
pub(crate) use select::{Gate, List, Seen, compile};

/// Deepest element the streaming path follows (html5ever has no limit; a
/// page nested deeper goes to the tree path).
const MAX_DEPTH: u32 = 512;
/// Most results one page may have on this path.
const MAX_RESULTS: usize = 4096;
/// Bytes fed to the parser between two looks at whether the sink gave up.
const CHUNK: usize = 32 * 1024;

/// The fields of a result, in [`StreamPlan::fields`] order: title, url,
/// snippet, key_url, display_url.
pub(crate) const FIELDS: usize = 5;

/// Which fields take the text of every element they match (the tree path's
/// `join`): the title and the snippet; a link is one element's.
const JOINED: [bool; FIELDS] = [true, false, true, false, false];

/// One way to read a field: an optional selector (`None` = the result
/// element itself) and an optional attribute (`None` = the text).
#[derive(Debug)]
pub(crate) struct StreamPick {
    pub selector: Option<List>,
    pub attr: Option<LocalName>,
}

/// What the streaming path reads from a page, compiled once per engine.
#[derive(Debug)]
pub(crate) struct StreamPlan {
    pub results: List,
    pub skip: Option<List>,
    /// title, url, snippet, key_url, display_url (all but the first two
    /// may have no picks).
    pub fields: [Vec<StreamPick>; FIELDS],
    pub suggestions: Vec<StreamPick>,
    /// The markers written as selectors (`blocked` then `no_results`).
    pub markers: Vec<List>,
    /// `[engine.parse] exclude`: an element one of these matches (on
    /// insertion, in document context) is not there for anything else, nor
    /// is anything inside it (the rule of `engines::exclude`).
    pub exclude: Vec<List>,
    /// What the selectors can see (filled by [`StreamPlan::seal`]).
    pub seen: Seen,
    /// What any compound of any selector needs (filled by
    /// [`StreamPlan::seal`]).
    pub gate: Gate,
}

/// A value a pick found: an attribute's value as written, or the text of a
/// capture.
#[derive(Debug, Clone)]
enum Found {
    Pending,
    Attr(Option<String>),
    Text(usize),
    /// The captures of every target of a joined field's pick, in page
    /// order, and the last one's element (`id`, `depth`): a match inside
    /// it is part of its text already.
    Texts(Vec<usize>, u32, u32),
}

/// One result element met on the page.
#[derive(Debug)]
struct Slot {
    /// The target(s) of each pick of each field.
    picks: [Vec<Found>; FIELDS],
}

/// What a streamed page gave: per result, per field, the first non-empty
/// value; whether each marker selector matched; the suggestions.
#[derive(Debug, Default)]
pub(crate) struct Streamed {
    pub results: Vec<[Option<String>; FIELDS]>,
    pub markers: Vec<bool>,
    pub suggestions: Vec<String>,
}

/// Why a page left the streaming path (for tests and benches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bail {
    /// html5ever moved a node already inserted, or added attributes to one.
    Moved,
    /// A `<template>`: its contents are a tree of their own.
    Template,
    /// Deeper than the streaming path follows.
    Depth,
    /// More results, or more captured text, than the budget.
    Budget,
    /// The engine's deadline passed (the tree path then says so).
    Deadline,
    /// The fast front end met markup outside the subset it follows
    /// ([`front`]); the html5ever streaming path reads the page instead.
    Outside(&'static str),
}

impl StreamPlan {
    /// Fills [`StreamPlan::seen`] from the selectors.
    pub(crate) fn seal(mut self) -> StreamPlan {
        let mut seen = Seen::default();
        let mut gate = Gate::default();
        self.each_selector(|list, in_result| {
            seen.add(list, in_result);
            gate.add(list, in_result);
        });
        self.seen = seen;
        self.gate = gate;
        self
    }

    /// Every selector of the plan, and whether it is a field's (matched
    /// inside a result only).
    fn each_selector(&self, mut f: impl FnMut(&List, bool)) {
        f(&self.results, false);
        for list in self.skip.iter().chain(&self.markers).chain(&self.exclude) {
            f(list, false);
        }
        for pick in self.fields.iter().flatten() {
            if let Some(list) = &pick.selector {
                f(list, true);
            }
        }
        for pick in &self.suggestions {
            if let Some(list) = &pick.selector {
                f(list, false);
            }
        }
    }

    /// Reads `page` (already [`super::prefilter`]ed); `Err` = the page must
    /// take the tree path.
    pub(crate) fn run(&self, page: &str) -> Result<Streamed, Bail> {
        let sink = Sink::new(self, page.len());
        let state = sink.state.clone();
        let mut parser = html5ever::parse_document(sink, Default::default());
        let mut rest = page;
        while !rest.is_empty() {
            let mut cut = rest.len().min(CHUNK);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            parser.process(StrTendril::from_slice(&rest[..cut]));
            rest = &rest[cut..];
            if let Some(b) = state.bail.get() {
                return Err(b);
            }
        }
        let st = parser.finish();
        if st.moving.get() != 0 {
            st.bail(Bail::Moved);
        }
        if let Some(b) = st.state.bail.get() {
            return Err(b);
        }
        Ok(st.into_streamed())
    }
}

/// Whether `el` is the element `id` at `depth` or inside it (walks up from
/// `el` at most to that depth).
fn is_inside(el: &Node, id: u32, depth: u32) -> bool {
    let mut at = Some(el);
    while let Some(n) = at {
        let d = n.depth.get();
        if d < depth {
            return false;
        }
        if d == depth {
            return n.id == id;
        }
        at = n.parent();
    }
    false
}

/// An element as the sink keeps it.
pub(crate) struct Node {
    name: QualName,
    /// Sorted as scraper sorts them.
    attrs: Vec<Attribute>,
    parent: OnceCell<Rc<Node>>,
    /// Creation order, from 1; 0 = the document.
    id: u32,
    depth: Cell<u32>,
    mathml_ip: bool,
    /// How many result elements are this node or above it.
    results_above: Cell<u32>,
    /// How many capturing elements are this node or above it.
    captures_above: Cell<u32>,
    /// The id of the nearest `script` / `style` / `noscript` / `template`
    /// that is this node or above it (0 = none): text below one is not
    /// read by the elements above it.
    skip_id: Cell<u32>,
    /// The result slot this element is, if it is one.
    slot: Cell<Option<u32>>,
    /// The captures this element's text goes to.
    captures: RefCell<Vec<u32>>,
    /// Taken out of its parent by html5ever, to be put back elsewhere.
    moving: Cell<bool>,
    /// Removed by `exclude`, or inside such an element.
    excluded: Cell<bool>,
    /// Whether a selector may match it ([`Gate`]); when not, the sink
    /// matches nothing against it.
    seen: bool,
    /// When its attributes were not made into values (an element the fast
    /// front end found no selector can see): where they start on the page.
    lazy: Option<u32>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}#{}>", self.name.local, self.id)
    }
}

impl Node {
    fn new(name: QualName, attrs: Vec<Attribute>, id: u32, mathml_ip: bool) -> Rc<Node> {
        Node::with(name, attrs, id, mathml_ip, true, None)
    }

    fn with(
        name: QualName,
        mut attrs: Vec<Attribute>,
        id: u32,
        mathml_ip: bool,
        seen: bool,
        lazy: Option<u32>,
    ) -> Rc<Node> {
        if attrs.len() > 1 {
            attrs.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        }
        Rc::new(Node {
            name,
            attrs,
            parent: OnceCell::new(),
            id,
            depth: Cell::new(0),
            mathml_ip,
            results_above: Cell::new(0),
            captures_above: Cell::new(0),
            skip_id: Cell::new(0),
            slot: Cell::new(None),
            captures: RefCell::new(Vec::new()),
            moving: Cell::new(false),
            excluded: Cell::new(false),
            seen,
            lazy,
        })
    }

    /// `Element::attr` of scraper: the attribute in no namespace, by exact name.
    fn attr(&self, name: &LocalName) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && a.name.prefix.is_none() && &a.name.local == name)
            .map(|a| &*a.value)
    }

    fn is_element(&self) -> bool {
        self.id != 0
    }

    fn parent(&self) -> Option<&Node> {
        self.parent.get().map(|p| &**p)
    }

    /// The document, or an element with a parent.
    fn attached(&self) -> bool {
        !self.is_element() || self.parent.get().is_some()
    }
}

/// What the sink learns, shared with [`StreamPlan::run`].
pub(crate) struct State {
    bail: Cell<Option<Bail>>,
}

/// The tree sink that keeps no tree.
pub(crate) struct Sink<'p> {
    plan: &'p StreamPlan,
    doc: Rc<Node>,
    next: Cell<u32>,
    state: Rc<State>,
    slots: RefCell<Vec<Slot>>,
    texts: RefCell<Vec<String>>,
    text_budget: Cell<usize>,
    markers: RefCell<Vec<bool>>,
    /// Per suggestion pick, its targets in page order.
    suggestions: RefCell<Vec<Vec<Found>>>,
    caches: RefCell<SelectorCaches>,
    /// Nodes taken out of their parent and not put back yet.
    moving: Cell<u32>,
    /// Elements inserted so far: the deadline is checked every 512.
    inserted: Cell<u32>,
}

impl<'p> Sink<'p> {
    fn new(plan: &'p StreamPlan, page_len: usize) -> Sink<'p> {
        Sink {
            plan,
            doc: Node::new(
                QualName::new(None, ns!(), local_name!("")),
                Vec::new(),
                0,
                false,
            ),
            next: Cell::new(1),
            inserted: Cell::new(0),
            state: Rc::new(State {
                bail: Cell::new(None),
            }),
            slots: RefCell::new(Vec::new()),
            texts: RefCell::new(Vec::new()),
            // Every capture may hold the page's text once over, a few deep.
            text_budget: Cell::new(page_len.saturating_mul(4).saturating_add(1 << 16)),
            markers: RefCell::new(vec![false; plan.markers.len()]),
            suggestions: RefCell::new(plan.suggestions.iter().map(|_| Vec::new()).collect()),
            caches: RefCell::new(SelectorCaches::default()),
            moving: Cell::new(0),
        }
    }

    fn bail(&self, why: Bail) {
        if self.state.bail.get().is_none() {
            self.state.bail.set(Some(why));
        }
    }

    fn failed(&self) -> bool {
        self.state.bail.get().is_some()
    }

    fn node(&self, name: QualName, attrs: Vec<Attribute>, mathml_ip: bool) -> Rc<Node> {
        let id = self.next.get();
        self.next.set(id.saturating_add(1));
        Node::new(name, attrs, id, mathml_ip)
    }

    /// An element of the fast front end: `seen` = a selector may match it;
    /// `lazy` = where its attributes start, when they were not made.
    fn front_node(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        seen: bool,
        lazy: Option<u32>,
    ) -> Rc<Node> {
        let id = self.next.get();
        self.next.set(id.saturating_add(1));
        Node::with(name, attrs, id, false, seen, lazy)
    }

    fn matches(&self, list: &List, el: &Node, scope: Option<&Node>) -> bool {
        if !list.may_match(el) {
            return false;
        }
        let mut caches = self.caches.borrow_mut();
        let mut cx = MatchingContext::new(
            MatchingMode::Normal,
            None,
            &mut caches,
            matching::QuirksMode::NoQuirks,
            NeedsSelectorFlags::No,
            MatchingForInvalidation::No,
        );
        cx.scope_element = scope.map(|s| El(s).opaque());
        matching::matches_selector_list(&list.list, &El(el), &mut cx)
    }

    /// A new capture of `el`'s text; its index.
    fn capture(&self, el: &Node) -> usize {
        let mut texts = self.texts.borrow_mut();
        texts.push(String::new());
        let i = texts.len() - 1;
        let mut caps = el.captures.borrow_mut();
        if caps.is_empty() {
            el.captures_above.set(el.captures_above.get() + 1);
        }
        caps.push(i as u32);
        i
    }

    /// What a pick reads from its target `el`.
    fn take(&self, pick: &StreamPick, el: &Node) -> Found {
        match &pick.attr {
            Some(a) => Found::Attr(el.attr(a).map(str::to_string)),
            None => Found::Text(self.capture(el)),
        }
    }

    /// `s` to every capture of an element at or above `from` whose reading
    /// does not pass through a skipped element (see [`Node::skip_id`]).
    fn push_text(&self, from: &Node, s: &str) {
        let mut left = from.captures_above.get();
        if left == 0 || from.excluded.get() {
            return;
        }
        let skip = from.skip_id.get();
        let budget = self.text_budget.get();
        let mut used = 0usize;
        let mut texts = self.texts.borrow_mut();
        let mut at = Some(from);
        while let Some(n) = at {
            let caps = n.captures.borrow();
            if !caps.is_empty() {
                if skip <= n.id {
                    for &c in caps.iter() {
                        texts[c as usize].push_str(s);
                        used += s.len();
                    }
                }
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            at = n.parent();
        }
        if used > budget {
            drop(texts);
            self.bail(Bail::Budget);
        } else {
            self.text_budget.set(budget - used);
        }
    }

    /// An element inserted under `parent`: its place is final, so it is
    /// matched now.
    fn inserted(&self, parent: &Rc<Node>, el: &Rc<Node>) {
        if el.parent.get().is_some() {
            // Put back after `remove_from_parent` allowed the move: what
            // was decided for it and below it stands.
            if el.moving.replace(false) && parent.attached() {
                self.moving.set(self.moving.get() - 1);
                return;
            }
            return self.bail(Bail::Moved);
        }
        if !parent.attached() {
            // A clone the adoption agency builds bottom-up: its ancestors
            // are not known yet.
            return self.bail(Bail::Moved);
        }
        let _ = el.parent.set(parent.clone());
        let depth = parent.depth.get() + 1;
        if depth > MAX_DEPTH {
            return self.bail(Bail::Depth);
        }
        el.depth.set(depth);
        let inserted = self.inserted.get();
        self.inserted.set(inserted.wrapping_add(1));
        if inserted.is_multiple_of(512) && crate::engines::dom::past_deadline() {
            return self.bail(Bail::Deadline);
        }
        if parent.excluded.get()
            || (el.seen && self.plan.exclude.iter().any(|x| self.matches(x, el, None)))
        {
            // Gone with its subtree: no match, no text, no word break.
            el.excluded.set(true);
            return;
        }
        // By local name in any namespace, as `element_text` skips them (an
        // SVG `<style>` too).
        let skipped = matches!(
            el.name.local,
            local_name!("script")
                | local_name!("style")
                | local_name!("noscript")
                | local_name!("template")
        );
        el.skip_id
            .set(if skipped { el.id } else { parent.skip_id.get() });
        el.captures_above.set(parent.captures_above.get());
        el.results_above.set(parent.results_above.get());
        // `element_text` puts a space before these (by local name).
        if matches!(
            el.name.local,
            local_name!("br")
                | local_name!("p")
                | local_name!("div")
                | local_name!("li")
                | local_name!("td")
                | local_name!("tr")
        ) {
            self.push_text(parent, " ");
        }
        if !el.seen {
            // No selector can match it: nothing to decide.
            return;
        }
        let plan = self.plan;
        // The picks of the results this element is inside.
        if parent.results_above.get() > 0 {
            let mut left = parent.results_above.get();
            let mut at = Some(&**parent);
            while let Some(n) = at {
                if let Some(s) = n.slot.get() {
                    for (f, picks) in plan.fields.iter().enumerate() {
                        for (k, pick) in picks.iter().enumerate() {
                            let Some(sel) = &pick.selector else { continue };
                            let open = match &self.slots.borrow()[s as usize].picks[f][k] {
                                Found::Pending => true,
                                // A joined pick takes every match not inside
                                // the last one it took.
                                Found::Texts(_, id, depth) => !is_inside(el, *id, *depth),
                                _ => false,
                            };
                            if open && self.matches(sel, el, Some(n)) {
                                let found = match self.take(pick, el) {
                                    Found::Text(c) if JOINED[f] => {
                                        let mut slots = self.slots.borrow_mut();
                                        let at = &mut slots[s as usize].picks[f][k];
                                        let mut caps = match std::mem::replace(at, Found::Pending) {
                                            Found::Texts(caps, ..) => caps,
                                            _ => Vec::new(),
                                        };
                                        caps.push(c);
                                        Found::Texts(caps, el.id, el.depth.get())
                                    }
                                    found => found,
                                };
                                self.slots.borrow_mut()[s as usize].picks[f][k] = found;
                            }
                        }
                    }
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
                at = n.parent();
            }
        }
        if self.matches(&plan.results, el, None)
            && !plan
                .skip
                .as_ref()
                .is_some_and(|s| self.matches(s, el, None))
        {
            let mut slots = self.slots.borrow_mut();
            if slots.len() >= MAX_RESULTS {
                drop(slots);
                return self.bail(Bail::Budget);
            }
            el.slot.set(Some(slots.len() as u32));
            el.results_above.set(el.results_above.get() + 1);
            let picks = plan.fields.each_ref().map(|picks| {
                picks
                    .iter()
                    .map(|p| match p.selector {
                        Some(_) => Found::Pending,
                        None => self.take(p, el),
                    })
                    .collect()
            });
            slots.push(Slot { picks });
        }
        for (i, m) in plan.markers.iter().enumerate() {
            if !self.markers.borrow()[i] && self.matches(m, el, None) {
                self.markers.borrow_mut()[i] = true;
            }
        }
        for (i, pick) in plan.suggestions.iter().enumerate() {
            if let Some(sel) = &pick.selector
                && self.matches(sel, el, None)
            {
                let found = self.take(pick, el);
                self.suggestions.borrow_mut()[i].push(found);
            }
        }
    }

    fn into_streamed(self) -> Streamed {
        let raw = self.texts.into_inner();
        // Fields read attributes trimmed, suggestions as written (as the
        // tree path does).
        let value = |f: &Found, trim: bool| -> Option<String> {
            match f {
                Found::Pending => None,
                Found::Attr(v) if trim => v.as_deref().map(|v| v.trim().to_string()),
                Found::Attr(v) => v.clone(),
                Found::Text(i) => Some(collapse_whitespace(&raw[*i])),
                Found::Texts(caps, ..) => Some(join_pieces(caps.iter().map(|&c| raw[c].as_str()))),
            }
        };
        let results = self
            .slots
            .into_inner()
            .iter()
            .map(|slot| {
                slot.picks.each_ref().map(|picks| {
                    picks
                        .iter()
                        .find_map(|f| value(f, true).filter(|v| !v.is_empty()))
                })
            })
            .collect();
        let mut suggestions: Vec<String> = Vec::new();
        for found in self.suggestions.into_inner() {
            for f in &found {
                if let Some(v) =
                    value(f, false).filter(|v| !v.is_empty() && !suggestions.contains(v))
                {
                    suggestions.push(v);
                }
            }
        }
        Streamed {
            results,
            markers: self.markers.into_inner(),
            suggestions,
        }
    }
}

impl TreeSink for Sink<'_> {
    type Handle = Rc<Node>;
    type Output = Self;
    type ElemName<'a>
        = ExpandedName<'a>
    where
        Self: 'a;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Rc<Node> {
        self.doc.clone()
    }

    fn elem_name<'a>(&'a self, target: &'a Rc<Node>) -> ExpandedName<'a> {
        target.name.expanded()
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> Rc<Node> {
        if flags.template {
            self.bail(Bail::Template);
        }
        self.node(name, attrs, flags.mathml_annotation_xml_integration_point)
    }

    fn create_comment(&self, _text: StrTendril) -> Rc<Node> {
        self.node(
            QualName::new(None, ns!(), local_name!("")),
            Vec::new(),
            false,
        )
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Rc<Node> {
        self.node(
            QualName::new(None, ns!(), local_name!("")),
            Vec::new(),
            false,
        )
    }

    fn append(&self, parent: &Rc<Node>, child: NodeOrText<Rc<Node>>) {
        if self.failed() {
            return;
        }
        match child {
            NodeOrText::AppendNode(n) if n.name.local.is_empty() && n.name.ns == ns!() => {}
            NodeOrText::AppendNode(n) => self.inserted(parent, &n),
            NodeOrText::AppendText(t) => self.push_text(parent, &t),
        }
    }

    fn append_based_on_parent_node(
        &self,
        _element: &Rc<Node>,
        _prev_element: &Rc<Node>,
        _child: NodeOrText<Rc<Node>>,
    ) {
        self.bail(Bail::Moved);
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &Rc<Node>) -> Rc<Node> {
        self.bail(Bail::Template);
        target.clone()
    }

    fn same_node(&self, x: &Rc<Node>, y: &Rc<Node>) -> bool {
        Rc::ptr_eq(x, y)
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, _sibling: &Rc<Node>, _new_node: NodeOrText<Rc<Node>>) {
        self.bail(Bail::Moved);
    }

    fn add_attrs_if_missing(&self, target: &Rc<Node>, attrs: Vec<Attribute>) {
        if attrs
            .iter()
            .any(|a| target.attrs.iter().all(|t| t.name != a.name))
        {
            self.bail(Bail::Moved);
        }
    }

    /// The adoption agency moves the furthest block out of a misnested
    /// formatting element. Allowed for an element no selector can see,
    /// outside every result, when it comes back under an element in place:
    /// then every ancestor chain that changes loses or gains only elements
    /// no selector can see, and no text changes order (the block was the
    /// last of its old parent's descendants, and goes after it).
    fn remove_from_parent(&self, target: &Rc<Node>) {
        if target.parent.get().is_none() {
            return;
        }
        if self.plan.seen.sees(target) || target.results_above.get() > 0 {
            return self.bail(Bail::Moved);
        }
        if !target.moving.replace(true) {
            self.moving.set(self.moving.get() + 1);
        }
    }

    /// The adoption agency moves the furthest block's children under a
    /// clone of the formatting element; allowed on the same terms.
    fn reparent_children(&self, node: &Rc<Node>, new_parent: &Rc<Node>) {
        let seen = &self.plan.seen;
        if seen.sees(node) || seen.sees(new_parent) || node.results_above.get() > 0 {
            self.bail(Bail::Moved);
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Rc<Node>) -> bool {
        handle.mathml_ip
    }
}
