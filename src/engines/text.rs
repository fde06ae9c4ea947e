//! Plain text out of engine markup: tags dropped, entities decoded,
//! whitespace collapsed. Titles and snippets are shown as text and fed to the
//! dedup's feature codes, so `<span class="searchmatch">` or `&amp;` left in
//! them would both look wrong and split anchors.

use scraper::{ElementRef, Html, node::Node};

/// Reduces an HTML fragment (or plain text) to display text.
pub fn html_to_text(s: &str) -> String {
    if !s.contains(['<', '&']) {
        return collapse_whitespace(s);
    }
    let fragment = Html::parse_fragment(s);
    element_text(fragment.root_element())
}

/// The visible text of an element: text nodes in order, skipping `script`,
/// `style`, `noscript` and `template`, with whitespace collapsed.
pub fn element_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    push_text(el, &mut out);
    collapse_whitespace(&out)
}

fn push_text(el: ElementRef<'_>, out: &mut String) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                if matches!(e.name(), "script" | "style" | "noscript" | "template") {
                    continue;
                }
                // Block-level breaks would otherwise glue words together.
                if matches!(e.name(), "br" | "p" | "div" | "li" | "td" | "tr") {
                    out.push(' ');
                }
                if let Some(child_el) = ElementRef::wrap(child) {
                    push_text(child_el, out);
                }
            }
            _ => {}
        }
    }
}

/// Trims and turns every run of whitespace (including NBSP) into one space.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(|c: char| c.is_whitespace() || c == '\u{a0}') {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_and_decodes_entities() {
        assert_eq!(
            html_to_text(
                r#"the <span class="searchmatch">caffeine</span> &amp; sleep&nbsp;&#8212; x"#
            ),
            "the caffeine & sleep — x"
        );
    }

    #[test]
    fn plain_text_only_collapses_whitespace() {
        assert_eq!(html_to_text("  a \n\t b  "), "a b");
        assert_eq!(html_to_text(""), "");
    }

    #[test]
    fn skips_scripts() {
        assert_eq!(html_to_text("a<script>var x = 1;</script> b"), "a b");
    }
}
