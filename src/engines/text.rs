//! Plain text out of engine markup: tags dropped, entities decoded,
//! whitespace collapsed. Titles and snippets are shown as text and fed to the
//! dedup's feature codes, so `<span class="searchmatch">` or `&amp;` left in
//! them would both look wrong and split anchors.

use scraper::{ElementRef, Html, node::Node};

/// Reduces an HTML fragment (or plain text) to display text.
pub(crate) fn html_to_text(s: &str) -> String {
    if !s.contains(['<', '&']) {
        return collapse_whitespace(s);
    }
    let fragment = Html::parse_fragment(s);
    element_text(fragment.root_element())
}

/// The visible text of an element: text nodes in order, skipping `script`,
/// `style`, `noscript` and `template`, with whitespace collapsed.
pub(crate) fn element_text(el: ElementRef<'_>) -> String {
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
/// Entities still present after the HTML parser decoded the markup were
/// escaped twice by the engine (DuckDuckGo writes `&amp;nbsp;`); a person
/// would read them as noise, so they are decoded once more.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    let decoded;
    let s = if s.contains('&') {
        decoded = decode_stray_entities(s);
        decoded.as_str()
    } else {
        s
    };
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

/// Decodes numeric entities and the named ones engines double-escape;
/// anything else (a lone `&`, an unknown name) is left as written.
fn decode_stray_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest
            .get(1..rest.len().min(12))
            .and_then(|r| r.find(';'))
            .and_then(|end| entity_char(&rest[1..=end]).map(|c| (c, end + 2)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity_char(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| !c.is_control() || c.is_whitespace());
    }
    Some(match name {
        "nbsp" => '\u{a0}',
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "hellip" => '…',
        "mdash" => '—',
        "ndash" => '–',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "middot" => '·',
        "raquo" => '»',
        "laquo" => '«',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        _ => return None,
    })
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
    fn decodes_entities_escaped_twice() {
        assert_eq!(
            html_to_text("Russia Today&amp;nbsp;or Fox &amp;amp; &amp;#39;x&amp;#x27;"),
            "Russia Today or Fox & 'x'"
        );
        // Not entities: left alone.
        assert_eq!(html_to_text("AT&amp;T &amp; R&amp;D;"), "AT&T & R&D;");
        assert_eq!(
            collapse_whitespace("a &unknown; b &#xZZ; &"),
            "a &unknown; b &#xZZ; &"
        );
    }

    #[test]
    fn skips_scripts() {
        assert_eq!(html_to_text("a<script>var x = 1;</script> b"), "a b");
    }
}
