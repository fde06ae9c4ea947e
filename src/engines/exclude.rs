//! `[engine.parse] exclude`: elements an html engine removes from the page
//! before it reads anything — the one definition of what excluding means.
//!
//! Engines glue things into the elements a preset reads: Bing puts a `WEB`
//! label (`span.algoSlug_icon`) in front of its snippets, Yahoo writes the
//! display URL inside the title link, Baidu nests widgets in its cards. An
//! admin names such elements in `exclude` and the preset reads the page as if
//! they were not there — no code change.
//!
//! The rule, which every way of reading a page (the tree path here, a
//! streaming path) must follow so that both give the same records:
//!
//! 1. Matching is decided on the page as parsed (after the prefilter), in
//!    full document context: a selector may name ancestors
//!    (`#b_results .algoSlug_icon`) and structural pseudo-classes see the
//!    page before any removal. Every element matched by any selector of the
//!    list is removed; the order of the list does not matter.
//! 2. A removed element goes with everything inside it: its text, its
//!    attributes and its descendants are gone for every later step — the
//!    `results` selector, every field (`title`, `url`, `snippet`, both text
//!    and `@attr` reads), `skip`, the CSS `blocked` / `no_results` markers,
//!    `suggestions` and the visible text an empty page is judged by. (Text
//!    markers are substrings of the raw page and are looked for before the
//!    page is parsed, so `exclude` does not hide them.)
//! 3. A removed element leaves nothing behind: no text and no word break.
//!    `<p><span>WEB</span>Microsoft</p>` reads `Microsoft`; `a<b>x</b>c`
//!    with `b` excluded reads `ac`.
//! 4. A removed result element is no result at all (as `skip` would do).

use scraper::{ElementRef, Html, Selector};

/// The compiled `exclude` list of one engine.
#[derive(Debug, Default)]
pub(crate) struct Exclude {
    /// Every selector of the list as one selector list (`None`: empty list).
    any: Option<Selector>,
}

impl Exclude {
    /// Compiles the list; a selector that does not parse is named in the
    /// error (with the engine and key added by the caller).
    pub(crate) fn new(specs: &[String]) -> Result<Exclude, String> {
        let mut valid = Vec::with_capacity(specs.len());
        for spec in specs {
            let spec = spec.trim();
            if spec.is_empty() {
                return Err("an empty selector".into());
            }
            Selector::parse(spec).map_err(|e| {
                format!("bad selector {spec:?}: {}", super::html::selector_error(&e))
            })?;
            valid.push(spec);
        }
        if valid.is_empty() {
            return Ok(Exclude::default());
        }
        let any = Selector::parse(&valid.join(", ")).map_err(|e| {
            format!(
                "bad selector list {:?}: {}",
                valid.join(", "),
                super::html::selector_error(&e)
            )
        })?;
        Ok(Exclude { any: Some(any) })
    }

    /// Whether `el` is excluded (rule 1: matched in document context). A
    /// streaming reader asks this of each element as it opens and skips the
    /// element's subtree when it is.
    pub(crate) fn matches(&self, el: &ElementRef<'_>) -> bool {
        self.any.as_ref().is_some_and(|s| s.matches(el))
    }

    /// Removes every excluded element, with its subtree, from `doc`. All
    /// matches are found first, on the untouched tree, then removed.
    pub(crate) fn remove_from(&self, doc: &mut Html) {
        if self.any.is_none() {
            return;
        }
        let ids: Vec<_> = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|el| self.matches(el))
            .map(|el| el.id())
            .collect();
        for id in ids {
            if let Some(mut node) = doc.tree.get_mut(id) {
                node.detach();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::text::element_text;

    fn text_after(html: &str, specs: &[&str]) -> String {
        let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
        let mut doc = Html::parse_document(html);
        Exclude::new(&specs).unwrap().remove_from(&mut doc);
        element_text(doc.root_element())
    }

    #[test]
    fn removes_the_element_and_everything_inside_it() {
        let html = r#"<p class="b_lineclamp2"><span class="algoSlug_icon" data-priority="2">WEB</span>Microsoft Windows is <b>an OS</b></p>"#;
        assert_eq!(
            text_after(html, &[".algoSlug_icon"]),
            "Microsoft Windows is an OS"
        );
        assert_eq!(text_after(html, &[]), "WEBMicrosoft Windows is an OS");
        // Nested matches and overlapping selectors are fine.
        let nested = "<div class=x>a<div class=x>b</div></div>c";
        assert_eq!(text_after(nested, &[".x", "div .x"]), "c");
    }

    #[test]
    fn matches_in_document_context_before_any_removal() {
        let html = "<ul><li>one</li><li>two</li><li>three</li></ul>";
        // `:first-child` is decided on the page as parsed: removing the first
        // item does not make the second one first.
        assert_eq!(text_after(html, &["li:first-child"]), "two three");
        assert_eq!(
            text_after("<div id=r><i>x</i></div><i>y</i>", &["#r i"]),
            "y"
        );
    }

    #[test]
    fn leaves_no_word_break_behind() {
        assert_eq!(text_after("a<b>x</b>c", &["b"]), "ac");
    }

    #[test]
    fn bad_selectors_are_named() {
        let e = Exclude::new(&["span..x".into()]).unwrap_err();
        assert!(e.contains("span..x"), "{e}");
        // In words, not the selector library's "please report this".
        let e = Exclude::new(&["h2 >".into()]).unwrap_err();
        assert!(e.contains("combinator") && !e.contains("report"), "{e}");
        assert!(Exclude::new(&["  ".into()]).is_err());
        assert!(Exclude::new(&[]).unwrap().any.is_none());
    }
}
