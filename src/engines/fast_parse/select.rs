//! The streaming path's selectors: scraper's own compiled lists, which of
//! them can be decided when an element is inserted, what they can see of an
//! element, and the selectors crate's view of the sink's nodes.

use html5ever::{LocalName, ns};
use scraper::selector::{CssLocalName, CssString, NonTSPseudoClass, PseudoElement, Simple};
use selectors::attr::{
    AttrSelectorOperation, AttrSelectorOperator, CaseSensitivity, NamespaceConstraint,
};
use selectors::matching::{self, MatchingContext};
use selectors::parser::{Combinator, Component, ParseRelative, Selector, SelectorList};
use selectors::{Element, OpaqueElement};

use super::Node;

/// A compiled selector list, as scraper compiles it, with what an element
/// needs for one of its selectors to match (read before the selectors
/// crate is asked: most elements of a page fail it).
#[derive(Debug)]
pub(crate) struct List {
    pub list: SelectorList<Simple>,
    /// Per selector, the type, class and id its rightmost compound names
    /// (all of which its element must have); `None` = no quick answer.
    needs: Option<Vec<Need>>,
}

/// What an element must have for one selector to match it.
#[derive(Debug, Default)]
struct Need {
    /// The name as written and lower-cased (an element outside the HTML
    /// namespace is matched by the first).
    name: Option<(LocalName, LocalName)>,
    class: Option<LocalName>,
    id: Option<LocalName>,
}

impl List {
    fn new(list: SelectorList<Simple>) -> List {
        let mut needs = Vec::new();
        for sel in list.slice() {
            let mut need = Need::default();
            for c in sel.iter() {
                match c {
                    Component::LocalName(n) => {
                        need.name = Some((n.name.0.clone(), n.lower_name.0.clone()));
                    }
                    Component::Class(c) => need.class = Some(c.0.clone()),
                    Component::ID(id) => need.id = Some(id.0.clone()),
                    _ => {}
                }
            }
            if need.name.is_none() && need.class.is_none() && need.id.is_none() {
                return List { list, needs: None };
            }
            needs.push(need);
        }
        List {
            list,
            needs: Some(needs),
        }
    }

    /// False when no selector of the list can match `el`; true when one
    /// might (the selectors crate then decides).
    pub(super) fn may_match(&self, el: &Node) -> bool {
        let Some(needs) = &self.needs else {
            return true;
        };
        needs.iter().any(|n| {
            n.name
                .as_ref()
                .is_none_or(|(x, lower)| *x == el.name.local || *lower == el.name.local)
                && n.id.as_ref().is_none_or(|x| {
                    el.attrs
                        .iter()
                        .find(|a| &*a.name.local == "id")
                        .is_some_and(|a| *a.value == **x)
                })
                && n.class.as_ref().is_none_or(|x| {
                    el.attrs
                        .iter()
                        .filter(|a| &*a.name.local == "class")
                        .flat_map(|a| a.value.split_ascii_whitespace())
                        .any(|c| c == &**x)
                })
        })
    }

    pub(crate) fn slice(&self) -> &[Selector<Simple>] {
        self.list.slice()
    }
}

/// Compiles `s` with scraper's parser (the same `SelectorList` scraper
/// matches) and says why the streaming path cannot decide it on insertion,
/// if it cannot.
pub(crate) fn compile(s: &str) -> Result<List, String> {
    let mut parser = cssparser::Parser::new(s);
    let list = SelectorList::parse(&scraper::selector::Parser, &mut parser, ParseRelative::No)
        .map_err(|e| format!("bad selector {s:?}: {e:?}"))?;
    for sel in list.slice() {
        decidable(sel).map_err(|why| format!("selector {s:?} uses {why}"))?;
    }
    Ok(List::new(list))
}

/// Whether a selector can be matched when its element is inserted: only the
/// element itself and its ancestors may count.
fn decidable(sel: &Selector<Simple>) -> Result<(), String> {
    for c in sel.iter_raw_match_order() {
        match c {
            Component::Combinator(Combinator::Child | Combinator::Descendant) => {}
            Component::Combinator(c) => return Err(format!("the combinator {c:?}")),
            Component::LocalName(_)
            | Component::ID(_)
            | Component::Class(_)
            | Component::AttributeInNoNamespaceExists { .. }
            | Component::AttributeInNoNamespace { .. }
            | Component::AttributeOther(_)
            | Component::ExplicitUniversalType
            | Component::ExplicitAnyNamespace
            | Component::ExplicitNoNamespace
            | Component::DefaultNamespace(_)
            | Component::Namespace(..)
            | Component::Root => {}
            Component::Negation(list) | Component::Is(list) | Component::Where(list) => {
                for s in list.slice() {
                    decidable(s)?;
                }
            }
            other => return Err(format!("{other:?}, which depends on what follows")),
        }
    }
    Ok(())
}

/// What the plan's selectors can see of an element other than the element
/// a pick reads: the type, class, id and attribute names named anywhere in
/// the results, skip, marker and suggestion selectors, and in the ancestor
/// part of the field selectors. An element none of them names (and no
/// universal or negated compound) matches no compound those selectors test
/// it against, so html5ever may move it (see [`Sink::remove_from_parent`]).
#[derive(Default)]
pub(crate) struct Seen {
    names: Vec<LocalName>,
    classes: Vec<String>,
    ids: Vec<String>,
    attrs: Vec<LocalName>,
    /// Attribute selectors with a value: name, operator, value.
    values: Vec<(LocalName, AttrSelectorOperator, String)>,
    /// A compound matches elements by no name at all (`*`, `:not(…)`).
    everything: bool,
}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seen")
            .field("names", &self.names)
            .field("classes", &self.classes)
            .field("ids", &self.ids)
            .field("attrs", &self.attrs)
            .field("values", &self.values.len())
            .field("everything", &self.everything)
            .finish()
    }
}

impl Seen {
    /// Adds what `list` names; with `skip_target`, not the rightmost
    /// compound of each selector (the element a pick reads).
    pub(crate) fn add(&mut self, list: &List, skip_target: bool) {
        for sel in list.slice() {
            let mut in_target = skip_target;
            let mut named = false;
            for c in sel.iter_raw_match_order() {
                if let Component::Combinator(_) = c {
                    if !in_target && !named {
                        self.everything = true;
                    }
                    in_target = false;
                    named = false;
                    continue;
                }
                if in_target {
                    continue;
                }
                named |= self.component(c);
            }
            if !in_target && !named {
                self.everything = true;
            }
        }
    }

    /// Adds what one simple selector names; whether it names something.
    fn component(&mut self, c: &Component<Simple>) -> bool {
        match c {
            Component::LocalName(n) => {
                self.names.push(n.lower_name.0.clone());
                self.names.push(n.name.0.clone());
            }
            Component::ID(id) => self.ids.push(id.0.to_string()),
            Component::Class(c) => self.classes.push(c.0.to_string()),
            Component::AttributeInNoNamespaceExists {
                local_name_lower, ..
            } => self.attrs.push(local_name_lower.0.clone()),
            Component::AttributeInNoNamespace {
                local_name,
                operator,
                value,
                ..
            } => self
                .values
                .push((local_name.0.clone(), *operator, value.0.clone())),
            Component::AttributeOther(a) => self.attrs.push(a.local_name_lower.0.clone()),
            Component::Is(list) | Component::Where(list) => {
                for s in list.slice() {
                    let mut named = false;
                    for c in s.iter_raw_match_order() {
                        if !matches!(c, Component::Combinator(_)) {
                            named |= self.component(c);
                        }
                    }
                    if !named {
                        self.everything = true;
                    }
                }
                return true;
            }
            Component::Negation(_) => self.everything = true,
            _ => return false,
        }
        true
    }

    /// Whether some compound might match `el`.
    pub(super) fn sees(&self, el: &Node) -> bool {
        self.everything
            || self.names.contains(&el.name.local)
            || el.attrs.iter().any(|a| {
                self.attrs.contains(&a.name.local)
                    || self.values.iter().any(|(n, op, v)| {
                        *n == a.name.local
                            && op.eval_str(&a.value, v, CaseSensitivity::AsciiCaseInsensitive)
                    })
                    || (&*a.name.local == "id" && self.ids.iter().any(|i| **i == *a.value))
                    || (&*a.name.local == "class"
                        && a.value
                            .split_ascii_whitespace()
                            .any(|c| self.classes.iter().any(|k| k == c)))
            })
    }
}

/// What any compound of any of the plan's selectors needs of an element,
/// looked up by the fast front end before it makes an element's attribute
/// values: an element with none of these can match no compound of any
/// selector (as a target, or as an ancestor a combinator looks at), so it
/// is inserted with no attribute values and the sink matches nothing
/// against it ([`super::Node::seen`]). A compound needing a class, an id or
/// an attribute puts that in; one needing only a type name puts the name
/// in; one needing neither (`*`, `:not(…)` alone, `:is(…)`, `:root`) lets
/// every element through. Classes and ids are compared ASCII case-folded,
/// and a value holding a character reference lets its element through: the
/// gate may let through more than the selectors match, never less.
///
/// The compound a field reads (the rightmost of a field's selector: `a` in
/// `h2 a@href`) is matched only against elements inside a result, so it is
/// in [`Gate::inside`] only; outside every result [`Gate::out`] decides.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    pub(super) out: Needs,
    pub(super) inside: Needs,
}

impl Gate {
    /// Adds what the compounds of `list` need; with `field`, its selectors'
    /// rightmost compounds only inside results.
    pub(crate) fn add(&mut self, list: &List, field: bool) {
        for sel in list.slice() {
            self.inside.selector(sel, false);
            self.out.selector(sel, field);
        }
    }

    /// The needs for an element inserted inside a result or not.
    #[inline]
    pub(super) fn at(&self, inside: bool) -> &Needs {
        if inside { &self.inside } else { &self.out }
    }
}

/// One level of a [`Gate`].
#[derive(Debug, Default)]
pub(crate) struct Needs {
    /// Type names, as written and lower-cased.
    names: Vec<LocalName>,
    /// Class names and ids, lower-cased.
    classes: Vec<String>,
    ids: Vec<String>,
    /// Attribute names, lower-cased.
    attrs: Vec<String>,
    everything: bool,
    /// Bit `n` set: a class name is `n` bytes long (`n` < 64; bit 0 for
    /// any longer one).
    class_lens: u64,
}

/// The bit of [`Needs::class_lens`] for a class name of `n` bytes.
#[inline]
fn len_bit(n: usize) -> u64 {
    if n < 64 { 1 << n } else { 1 }
}

impl Needs {
    /// Adds what the compounds of `sel` need (not the rightmost one with
    /// `skip_target`).
    fn selector(&mut self, sel: &Selector<Simple>, skip_target: bool) {
        let mut skipping = skip_target;
        let mut needs = false;
        let mut names: Vec<LocalName> = Vec::new();
        for c in sel.iter_raw_match_order() {
            if let Component::Combinator(_) = c {
                if !skipping {
                    self.compound(needs, &mut names);
                }
                skipping = false;
                needs = false;
                names.clear();
                continue;
            }
            if skipping {
                continue;
            }
            match c {
                Component::LocalName(n) => {
                    names.push(n.name.0.clone());
                    names.push(n.lower_name.0.clone());
                }
                Component::ID(id) => {
                    self.ids.push(id.0.to_ascii_lowercase().to_string());
                    needs = true;
                }
                Component::Class(c) => {
                    self.classes.push(c.0.to_ascii_lowercase().to_string());
                    self.class_lens |= len_bit(c.0.len());
                    needs = true;
                }
                Component::AttributeInNoNamespaceExists {
                    local_name_lower, ..
                } => {
                    self.attrs
                        .push(local_name_lower.0.to_ascii_lowercase().to_string());
                    needs = true;
                }
                Component::AttributeInNoNamespace { local_name, .. } => {
                    self.attrs
                        .push(local_name.0.to_ascii_lowercase().to_string());
                    needs = true;
                }
                Component::AttributeOther(a) => {
                    self.attrs
                        .push(a.local_name_lower.0.to_ascii_lowercase().to_string());
                    needs = true;
                }
                Component::Negation(list) | Component::Is(list) | Component::Where(list) => {
                    // Not a need of this compound (a negation is met by
                    // what an element lacks); what the inner selectors'
                    // compounds need is added for their own matching.
                    for s in list.slice() {
                        self.selector(s, false);
                    }
                }
                _ => {}
            }
        }
        if !skipping {
            self.compound(needs, &mut names);
        }
    }

    /// The end of a compound: one that needs nothing but a type puts its
    /// names in; one that needs nothing at all lets everything through.
    fn compound(&mut self, needs: bool, names: &mut Vec<LocalName>) {
        if !needs {
            if names.is_empty() {
                self.everything = true;
            }
            self.names.append(names);
        }
        names.clear();
    }

    /// Whether an element of this name is seen whatever its attributes.
    #[inline]
    pub(super) fn name(&self, name: &LocalName) -> bool {
        self.everything || self.names.contains(name)
    }

    /// Whether a class attribute's value (as written) lets its element
    /// through.
    pub(super) fn class_value(&self, raw: &[u8]) -> bool {
        if self.classes.is_empty() {
            return false;
        }
        if memchr::memchr(b'&', raw).is_some() {
            return true;
        }
        // Token by token; only a token as long as some class name is
        // compared.
        let mut i = 0;
        while i < raw.len() {
            while i < raw.len() && raw[i].is_ascii_whitespace() {
                i += 1;
            }
            let start = i;
            while i < raw.len() && !raw[i].is_ascii_whitespace() {
                i += 1;
            }
            let t = &raw[start..i];
            if !t.is_empty()
                && self.class_lens & len_bit(t.len()) != 0
                && self
                    .classes
                    .iter()
                    .any(|k| k.as_bytes().eq_ignore_ascii_case(t))
            {
                return true;
            }
        }
        false
    }

    /// Whether an id attribute's value (as written) lets its element through.
    pub(super) fn id_value(&self, raw: &[u8]) -> bool {
        if self.ids.is_empty() {
            return false;
        }
        raw.contains(&b'&')
            || raw.contains(&b'\r')
            || self
                .ids
                .iter()
                .any(|k| k.as_bytes().eq_ignore_ascii_case(raw))
    }

    /// Whether an attribute of this name (as written) lets its element
    /// through, whatever its value.
    pub(super) fn attr_name(&self, name: &[u8]) -> bool {
        self.attrs
            .iter()
            .any(|a| a.as_bytes().eq_ignore_ascii_case(name))
    }

    /// What an attribute of this name (as written) asks of the gate.
    pub(super) fn role(&self, name: &[u8]) -> Role {
        if self.attr_name(name) {
            Role::Always
        } else if name.eq_ignore_ascii_case(b"class") {
            Role::Class
        } else if name.eq_ignore_ascii_case(b"id") {
            Role::Id
        } else {
            Role::Never
        }
    }

    /// Whether an attribute lets its element through.
    #[inline]
    pub(super) fn admits(&self, role: Role, value: Option<&[u8]>) -> bool {
        match role {
            Role::Always => true,
            Role::Class => value.is_some_and(|v| self.class_value(v)),
            Role::Id => value.is_some_and(|v| self.id_value(v)),
            Role::Never => false,
        }
    }
}

/// What an attribute tells the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A selector names the attribute: its element is seen.
    Always,
    /// Seen if one of its classes is named.
    Class,
    /// Seen if its id is named.
    Id,
    /// Tells nothing.
    Never,
}

/// An element as the selectors crate sees it: scraper's `Element` for
/// `ElementRef`, over the sink's nodes (siblings and children are never
/// asked for: [`decidable`] refuses the selectors that would).
#[derive(Clone, Copy)]
pub(super) struct El<'a>(pub(super) &'a Node);

impl std::fmt::Debug for El<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Element for El<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.0)
    }

    fn parent_element(&self) -> Option<Self> {
        self.0.parent().filter(|p| p.is_element()).map(El)
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn is_part(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_same_type(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }

    fn imported_part(&self, _: &CssLocalName) -> Option<CssLocalName> {
        None
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        None
    }

    fn next_sibling_element(&self) -> Option<Self> {
        None
    }

    fn first_element_child(&self) -> Option<Self> {
        None
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.0.name.ns == ns!(html)
    }

    fn has_local_name(&self, name: &CssLocalName) -> bool {
        self.0.name.local == name.0
    }

    fn has_namespace(&self, namespace: &html5ever::Namespace) -> bool {
        &self.0.name.ns == namespace
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&html5ever::Namespace>,
        local_name: &CssLocalName,
        operation: &AttrSelectorOperation<&CssString>,
    ) -> bool {
        self.0.attrs.iter().any(|a| {
            !matches!(*ns, NamespaceConstraint::Specific(url) if *url != a.name.ns)
                && local_name.0 == a.name.local
                && operation.eval_str(&a.value)
        })
    }

    fn match_non_ts_pseudo_class(
        &self,
        _pc: &NonTSPseudoClass,
        _context: &mut MatchingContext<'_, Simple>,
    ) -> bool {
        false
    }

    fn match_pseudo_element(
        &self,
        _pe: &PseudoElement,
        _context: &mut MatchingContext<'_, Simple>,
    ) -> bool {
        false
    }

    fn is_link(&self) -> bool {
        &*self.0.name.local == "link"
    }

    fn is_html_slot_element(&self) -> bool {
        true
    }

    fn has_id(&self, id: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.0
            .attrs
            .iter()
            .find(|a| &*a.name.local == "id")
            .is_some_and(|a| case_sensitivity.eq(id.0.as_bytes(), a.value.as_bytes()))
    }

    fn has_class(&self, name: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.0
            .attrs
            .iter()
            .filter(|a| &*a.name.local == "class")
            .flat_map(|a| a.value.split_ascii_whitespace())
            .any(|c| case_sensitivity.eq(c.as_bytes(), name.0.as_bytes()))
    }

    fn has_custom_state(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        false
    }

    fn is_root(&self) -> bool {
        self.0.parent().is_some_and(|p| !p.is_element())
    }

    fn apply_selector_flags(&self, _flags: matching::ElementSelectorFlags) {}

    fn add_element_unique_hashes(&self, _filter: &mut selectors::bloom::BloomFilter) -> bool {
        false
    }
}
