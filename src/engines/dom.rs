//! Trees built from engine markup under limits: every answer is hostile
//! until parsed.
//!
//! html5ever has no limit of its own, and two shapes of page hurt it:
//!
//! - **Deep nesting.** The tree builder looks for scope boundaries by
//!   walking its stack of open elements, so `<div>` nested 60,000 deep costs
//!   time quadratic in the depth (about 8 s of CPU in a release build), and
//!   every walk over such a tree must not recurse. A tree is refused once an
//!   element would sit deeper than [`MAX_DEPTH`] levels (Chromium's parser
//!   stops nesting at 512 too; the saved results pages nest at most 43 deep).
//! - **Sheer size.** A page of nothing but tags becomes millions of nodes,
//!   each a hundred bytes or more; a tree is refused past [`MAX_NODES`]
//!   elements and comments.
//!
//! Markup is fed to the parser in [`CHUNK`]-byte pieces and the limits and
//! the parse's deadline ([`with_deadline`]) are checked between pieces and
//! every [`CHECK_EVERY`] nodes, so a refused page costs at most one more
//! piece's work. The tree the parser builds when no limit is hit is the one
//! [`scraper::Html::parse_document`] builds (same sink, same options):
//! `tests/parsers.rs` keeps every preset's output on the saved pages.

use std::borrow::Cow;
use std::cell::{Cell, Ref};
use std::time::Instant;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName, ns};
use scraper::{Html, HtmlTreeSink};

use super::ParseError;

/// Deepest an element may sit in a tree (the document is level 0).
pub(crate) const MAX_DEPTH: usize = 512;

/// Most elements and comments one tree may hold (the saved results pages have at most
/// about 2,000; a 4 MiB page of bare tags would make 1.3 million, about
/// 200 MB of tree).
pub(crate) const MAX_NODES: usize = 100_000;

/// Bytes given to the parser at a time: at most about 800 tags, so what a
/// refused page costs past the limit stays small even when each tag costs
/// the tree builder a walk over a deep stack.
const CHUNK: usize = 4 * 1024;

/// Nodes created between two looks at the clock.
const CHECK_EVERY: u32 = 512;

thread_local! {
    /// When the parse running on this thread must give up (see
    /// [`with_deadline`]).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with every tree built on this thread during it stopping at
/// `deadline` (a parse runs on the blocking pool, where a dropped search
/// cannot reach it otherwise).
pub(crate) fn with_deadline<R>(deadline: Instant, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEADLINE.set(self.0);
        }
    }
    let _restore = Restore(DEADLINE.replace(Some(deadline)));
    f()
}

/// Whether this thread's deadline (if any) has passed.
pub(crate) fn past_deadline() -> bool {
    DEADLINE.get().is_some_and(|d| Instant::now() >= d)
}

/// Why a tree was not built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    TooDeep,
    TooManyNodes,
    Deadline,
}

impl From<Refused> for ParseError {
    fn from(r: Refused) -> ParseError {
        ParseError::Invalid(match r {
            Refused::TooDeep => format!("markup nested more than {MAX_DEPTH} elements deep"),
            Refused::TooManyNodes => {
                format!("markup with more than {MAX_NODES} elements and comments")
            }
            Refused::Deadline => "parse stopped at the engine's deadline".into(),
        })
    }
}

/// [`scraper::Html::parse_document`] under the limits.
pub(crate) fn parse_document(text: &str) -> Result<Html, Refused> {
    let sink = Bounded::new(Html::new_document());
    run(
        html5ever::driver::parse_document(sink, Default::default()),
        text,
    )
}

/// [`scraper::Html::parse_fragment`] under the limits.
pub(crate) fn parse_fragment(text: &str) -> Result<Html, Refused> {
    let sink = Bounded::new(Html::new_fragment());
    let parser = html5ever::driver::parse_fragment(
        sink,
        Default::default(),
        QualName::new(None, ns!(html), html5ever::local_name!("body")),
        Vec::new(),
        false,
    );
    run(parser, text)
}

fn run(mut parser: html5ever::driver::Parser<Bounded>, text: &str) -> Result<Html, Refused> {
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(CHUNK);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
        let sink = &parser.tokenizer.sink.sink;
        sink.check_clock();
        if let Some(refused) = sink.refused.get() {
            return Err(refused);
        }
    }
    let html = parser.finish();
    // The end of input can still add elements (implied end tags do not, but
    // an adoption agency run may): the limits hold for the finished tree.
    html.1.map_or(Ok(html.0), Err)
}

/// Scraper's sink, counting and measuring as the tree grows.
struct Bounded {
    inner: HtmlTreeSink,
    nodes: Cell<usize>,
    since_check: Cell<u32>,
    refused: Cell<Option<Refused>>,
}

impl Bounded {
    fn new(html: Html) -> Bounded {
        Bounded {
            inner: HtmlTreeSink::new(html),
            nodes: Cell::new(0),
            since_check: Cell::new(0),
            refused: Cell::new(None),
        }
    }

    fn refuse(&self, why: Refused) {
        if self.refused.get().is_none() {
            self.refused.set(Some(why));
        }
    }

    /// Counts an element or comment (text between them is at most one
    /// node per two of them), refusing the tree past [`MAX_NODES`], and
    /// looks at the clock every [`CHECK_EVERY`] of them.
    fn count_node(&self) {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > MAX_NODES {
            self.refuse(Refused::TooManyNodes);
        }
        let since = self.since_check.get() + 1;
        self.since_check.set(since);
        if since >= CHECK_EVERY {
            self.check_clock();
        }
    }

    fn check_clock(&self) {
        self.since_check.set(0);
        if past_deadline() {
            self.refuse(Refused::Deadline);
        }
    }

    /// Notes a node placed under `parent` (an element, a comment), refusing
    /// the tree when it would sit deeper than [`MAX_DEPTH`]. The walk up is
    /// itself cut at the limit, so it costs at most `MAX_DEPTH` steps.
    fn placed_under(&self, parent: &Handle) {
        self.placed_at(parent, 1);
    }

    /// Notes a node placed beside `sibling`, at its level.
    fn placed_beside(&self, sibling: &Handle) {
        self.placed_at(sibling, 0);
    }

    /// The level of `node` (its ancestors, counted up to the limit) plus
    /// `below` is where the new node sits.
    fn placed_at(&self, node: &Handle, below: usize) {
        let html = self.inner.0.borrow();
        let ancestors = html
            .tree
            .get(*node)
            .map_or(0, |n| n.ancestors().take(MAX_DEPTH).count());
        if ancestors + below > MAX_DEPTH {
            self.refuse(Refused::TooDeep);
        }
    }
}

/// The handle of scraper's sink (an `ego_tree` node id).
type Handle = <HtmlTreeSink as TreeSink>::Handle;

impl TreeSink for Bounded {
    type Handle = Handle;
    type Output = (Html, Option<Refused>);
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self::Output {
        let refused = self.refused.get();
        (self.inner.finish(), refused)
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        self.inner.parse_error(msg);
    }

    fn get_document(&self) -> Handle {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Ref<'a, QualName> {
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        self.count_node();
        self.inner.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.count_node();
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.count_node();
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        if matches!(child, NodeOrText::AppendNode(_)) {
            self.placed_under(parent);
        }
        self.inner.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        if matches!(child, NodeOrText::AppendNode(_)) {
            self.placed_under(prev_element);
        }
        self.inner
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &Handle) {
        self.inner.mark_script_already_started(node);
    }

    fn pop(&self, node: &Handle) {
        self.inner.pop(node);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        if matches!(new_node, NodeOrText::AppendNode(_)) {
            self.placed_beside(sibling);
        }
        self.inner.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(
        &self,
        target: &Handle,
        form: &Handle,
        nodes: (&Handle, Option<&Handle>),
    ) {
        self.inner.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.inner.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        self.inner.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.inner
            .is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line_number: u64) {
        self.inner.set_current_line(line_number);
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &Handle) -> bool {
        self.inner.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &Handle,
        template: &Handle,
        attrs: &[Attribute],
    ) -> bool {
        self.inner
            .attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Handle) {
        self.inner
            .maybe_clone_an_option_into_selectedcontent(option);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn nested(tag: &str, n: usize, inner: &str) -> String {
        format!(
            "{}{inner}{}",
            format!("<{tag}>").repeat(n),
            format!("</{tag}>").repeat(n)
        )
    }

    #[test]
    fn the_trees_of_ordinary_markup_are_scrapers() {
        for text in [
            "<p>a<b>b<i>c</b>d</i><table><tr><td>x</table><template>t</template>",
            "<!doctype html><html><body><div><ul><li>1<li>2</ul></div></body></html>",
            &nested("div", MAX_DEPTH - 3, "deep but allowed"),
        ] {
            let ours = parse_document(text).unwrap();
            assert_eq!(ours.html(), Html::parse_document(text).html());
            let ours = parse_fragment(text).unwrap();
            assert_eq!(ours.html(), Html::parse_fragment(text).html());
        }
    }

    #[test]
    fn deep_nesting_is_refused_early() {
        let spans = nested("span", 20_000, "x");
        assert_eq!(parse_fragment(&spans).err(), Some(Refused::TooDeep));
        let started = Instant::now();
        let divs = nested("div", 60_000, "x");
        assert_eq!(parse_document(&divs).err(), Some(Refused::TooDeep));
        // Unbounded, html5ever takes seconds here; the refusal comes after
        // one chunk past the limit (generous bound for debug builds).
        assert!(started.elapsed() < Duration::from_secs(5));
        // Unclosed formatting elements nest too.
        let bold = "<b>".repeat(5_000);
        assert_eq!(parse_document(&bold).err(), Some(Refused::TooDeep));
    }

    #[test]
    fn too_many_elements_are_refused() {
        let flat = "<i></i>".repeat(MAX_NODES + 10);
        assert_eq!(parse_document(&flat).err(), Some(Refused::TooManyNodes));
        let comments = "<!---->x".repeat(MAX_NODES + 10);
        assert_eq!(parse_fragment(&comments).err(), Some(Refused::TooManyNodes));
    }

    #[test]
    fn the_deadline_stops_a_parse() {
        let flat = "<p>word</p>".repeat(50_000);
        let past = Instant::now();
        assert_eq!(
            with_deadline(past, || parse_document(&flat).err()),
            Some(Refused::Deadline)
        );
        // The deadline is the parse's alone: none outside `with_deadline`.
        assert!(parse_document(&flat).is_ok());
        let later = Instant::now() + Duration::from_secs(3600);
        assert!(with_deadline(later, || parse_document(&flat)).is_ok());
    }
}
