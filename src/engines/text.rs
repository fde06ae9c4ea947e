//! Plain text out of engine markup: tags dropped, entities decoded,
//! whitespace collapsed. Titles and snippets are shown as text and fed to the
//! dedup's feature codes, so `<span class="searchmatch">` or `&amp;` left in
//! them would both look wrong and split anchors.

use ego_tree::iter::Edge;
use scraper::{ElementRef, node::Node};

/// Reduces an HTML fragment (or plain text) to display text. A fragment
/// the tree builder refuses (nested past [`super::dom::MAX_DEPTH`], …) is
/// no text anyone reads: it yields `""`, so that field alone is lost.
pub(crate) fn html_to_text(s: &str) -> String {
    if memchr::memchr2(b'<', b'&', s.as_bytes()).is_none() {
        return collapse_whitespace(s);
    }
    if let Some(raw) = super::fast_text::raw_text(s) {
        return collapse_whitespace(&raw);
    }
    html_to_text_tree(s)
}

/// [`html_to_text`] by html5ever's tree builder alone: the reference of
/// its fast path.
pub(crate) fn html_to_text_tree(s: &str) -> String {
    match super::dom::parse_fragment(s) {
        Ok(fragment) => element_text(fragment.root_element()),
        Err(_) => String::new(),
    }
}

/// The visible text of an element: text nodes in order, skipping `script`,
/// `style`, `noscript` and `template`, with whitespace collapsed. A walk
/// with no recursion, so no depth of tree can exhaust the stack.
pub(crate) fn element_text(el: ElementRef<'_>) -> String {
    collapse_whitespace(&element_raw_text(el))
}

/// [`element_text`] before whitespace is collapsed: what
/// [`join_pieces`] needs to see whether the markup puts whitespace at an
/// element's edges.
pub(crate) fn element_raw_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    // Inside a skipped element: the number of its open descendants + 1.
    let mut skipping = 0usize;
    let root = el.id();
    for edge in el.traverse() {
        match edge {
            Edge::Open(node) if node.id() == root => {}
            Edge::Open(node) => match node.value() {
                Node::Element(_) if skipping > 0 => skipping += 1,
                _ if skipping > 0 => {}
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => {
                    if matches!(e.name(), "script" | "style" | "noscript" | "template") {
                        skipping = 1;
                    } else if matches!(e.name(), "br" | "p" | "div" | "li" | "td" | "tr") {
                        // Block-level breaks would otherwise glue words together.
                        out.push(' ');
                    }
                }
                _ => {}
            },
            Edge::Close(node) if skipping > 0 && node.value().is_element() => skipping -= 1,
            Edge::Close(_) => {}
        }
    }
    out
}

/// The texts of several elements one field matched (raw, in document
/// order) as one text: each collapsed as [`collapse_whitespace`] does,
/// empty ones dropped, joined by one space where a reader needs one.
///
/// Two pieces are separated by a space when the markup puts whitespace at
/// their meeting edges; otherwise only when both sides are words of a script
/// written with spaces: nothing between Chinese or Japanese text and its
/// neighbours (`模型` + `协议`, `协议（` + `Model`), nothing before closing
/// or after opening punctuation (`MCP` + `, a protocol`), a space between
/// two Latin words (`Context` + `Protocol`: separate elements, usually
/// separate blocks, are not parts of one word). One piece gives exactly
/// `collapse_whitespace` of it.
pub(crate) fn join_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    // Whether the last piece ended with whitespace in the markup.
    let mut trailing_space = false;
    for raw in pieces {
        let text = collapse_whitespace(raw);
        if text.is_empty() {
            // An element of nothing but whitespace still separates words.
            trailing_space |= raw.chars().any(is_space);
            continue;
        }
        if let (Some(before), Some(after)) = (out.chars().last(), text.chars().next()) {
            let markup_space = trailing_space || raw.starts_with(is_space);
            if markup_space || needs_space(before, after) {
                out.push(' ');
            }
        }
        out.push_str(&text);
        trailing_space = raw.ends_with(is_space);
    }
    out
}

/// The whitespace [`collapse_whitespace`] collapses.
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{a0}'
}

/// Whether two pieces meeting at `before` | `after` with no whitespace in
/// the markup need a space to be read right (see [`join_pieces`]).
fn needs_space(before: char, after: char) -> bool {
    !(is_spaceless_script(before)
        || is_spaceless_script(after)
        || matches!(
            after,
            ',' | '.' | ';' | ':' | '!' | '?' | ')' | ']' | '}' | '%' | '…'
        )
        || matches!(before, '(' | '[' | '{' | '/' | '#' | '@'))
}

/// Characters of scripts written without spaces between words (Chinese,
/// Japanese kana), and the full-width punctuation and forms set with them.
/// Hangul is written with spaces, so it is not one of them.
pub(crate) fn is_spaceless_script(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'     // CJK radicals, Kangxi radicals
        | '\u{3000}'..='\u{303F}'   // CJK symbols and punctuation
        | '\u{3040}'..='\u{30FF}'   // hiragana, katakana
        | '\u{3100}'..='\u{312F}'   // bopomofo
        | '\u{31A0}'..='\u{31FF}'   // bopomofo extended, strokes, kana extension
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FE30}'..='\u{FE4F}'   // CJK compatibility forms
        | '\u{FF00}'..='\u{FF60}'   // full-width forms
        | '\u{FF61}'..='\u{FF9F}'   // half-width kana and CJK punctuation
        | '\u{20000}'..='\u{3134F}' // CJK extensions B–G
    )
}

/// Trims and turns every run of whitespace (including NBSP) into one space,
/// and drops the invisible format characters of [`is_invisible_control`].
/// Entities still present after the HTML parser decoded the markup were
/// escaped twice by the engine (DuckDuckGo writes `&amp;nbsp;`); a person
/// would read them as noise, so they are decoded once more.
///
/// Every title and snippet of every engine kind ends here (`html_to_text`,
/// `element_text`), so this is the one place text is normalised.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    let decoded;
    let s = if s.contains('&') {
        decoded = decode_stray_entities(s);
        decoded.as_str()
    } else {
        s
    };
    collapse_decoded(s)
}

/// What a character is to [`collapse_whitespace`].
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Visible,
    Space,
    Invisible,
}

/// Bytes that are visible text whatever follows: not ASCII whitespace,
/// and not the lead byte of a whitespace or invisible character.
const PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = !matches!(
            i as u8,
            b'\t'
                | b'\n'
                | b'\x0b'
                | b'\x0c'
                | b'\r'
                | b' '
                | 0xC2
                | 0xD8
                | 0xE1
                | 0xE2
                | 0xE3
                | 0xEF
        );
        i += 1;
    }
    t
};

/// [`collapse_whitespace`] after entities: one pass over the bytes that
/// copies runs of visible text whole. Every whitespace and invisible
/// character outside ASCII starts with one of six lead bytes, so only
/// those are decoded.
fn collapse_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    // Whitespace was met since the last visible character.
    let mut gap = false;
    // Start of the visible run not yet copied.
    let mut run: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        if PLAIN[b[i] as usize] {
            if run.is_none() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                run = Some(i);
            }
            i += 1;
            while i < b.len() && PLAIN[b[i] as usize] {
                i += 1;
            }
            continue;
        }
        let c = b[i];
        let (class, len) = match c {
            b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' => (Class::Space, 1),
            b' ' => {
                // One space between two visible ASCII characters stays in the run.
                if run.is_some() && b.get(i + 1).is_some_and(|n| (0x21..0x80).contains(n)) {
                    i += 1;
                    continue;
                }
                (Class::Space, 1)
            }
            0xC2 | 0xD8 | 0xE1 | 0xE2 | 0xE3 | 0xEF => {
                let ch = s[i..].chars().next().expect("a lead byte");
                let class = if ch.is_whitespace() || ch == '\u{a0}' {
                    Class::Space
                } else if is_invisible_control(ch) {
                    Class::Invisible
                } else {
                    Class::Visible
                };
                (class, ch.len_utf8())
            }
            _ => (Class::Visible, 1),
        };
        match class {
            Class::Visible => {
                if run.is_none() {
                    if gap && !out.is_empty() {
                        out.push(' ');
                    }
                    gap = false;
                    run = Some(i);
                }
            }
            Class::Space | Class::Invisible => {
                if let Some(start) = run.take() {
                    out.push_str(&s[start..i]);
                }
                gap |= class == Class::Space;
            }
        }
        i += len;
    }
    if let Some(start) = run {
        out.push_str(&s[start..]);
    }
    out
}

/// Zero-width and bidirectional control characters: invisible on the page,
/// but they split feature-code windows and make equal titles unequal
/// (Baidu's 2026 titles carry U+200C between words). Dropped from every
/// title and snippet: soft hyphen U+00AD, Arabic letter mark U+061C,
/// Mongolian vowel separator U+180E, zero-width space / non-joiner / joiner
/// U+200B–U+200D, LRM / RLM U+200E–U+200F, the bidi embeddings and
/// overrides U+202A–U+202E, word joiner and invisible operators
/// U+2060–U+2064, the bidi isolates U+2066–U+2069 and the BOM / zero-width
/// no-break space U+FEFF. (Dropping ZWNJ / ZWJ costs Persian and Indic text
/// a joining hint and splits emoji sequences into their parts; both stay
/// readable, and duplicates that differ only in them now fold.)
pub(crate) fn is_invisible_control(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
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

    /// The plain reading [`collapse_decoded`] stands in for: words split
    /// on whitespace, invisible controls dropped, words of nothing else
    /// dropped, joined by one space.
    fn collapse_reference(s: &str) -> String {
        let words: Vec<String> = s
            .split(|c: char| c.is_whitespace() || c == '\u{a0}')
            .map(|w| w.chars().filter(|&c| !is_invisible_control(c)).collect())
            .filter(|w: &String| !w.is_empty())
            .collect();
        words.join(" ")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn collapsing_agrees_with_the_plain_reading(chars in proptest::collection::vec(
            proptest::prop_oneof![proptest::char::any(), proptest::sample::select(vec![
                'a', 'Z', '.', ' ', ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{a0}',
                '\u{ad}', '\u{61c}', '\u{1680}', '\u{180e}', '\u{2003}', '\u{200b}', '\u{200d}',
                '\u{2028}', '\u{202a}', '\u{202f}', '\u{205f}', '\u{2062}', '\u{2067}', '\u{3000}',
                '\u{feff}', 'é', '高', '\u{2010}', '\u{e1}', '\u{fe0f}', '😀', '\u{c2}',
                '\u{1c}', '\u{1f}', '\u{0}', '\u{7f}',
            ])],
            0..40,
        )) {
            let s: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(collapse_decoded(&s), collapse_reference(&s), "{:?}", s);
        }
    }

    #[test]
    fn drops_zero_width_and_bidi_controls() {
        // Baidu's 2026 titles: U+200C between the words of a title.
        assert_eq!(
            html_to_text("Model\u{200c} Context\u{200c}Protocol"),
            "Model ContextProtocol"
        );
        assert_eq!(
            html_to_text("<em>a\u{200b}b</em> \u{200e}\u{202b}c\u{202c}\u{2066}d\u{2069} \u{feff}"),
            "ab cd"
        );
        // A word of nothing but controls leaves no double space.
        assert_eq!(collapse_whitespace("x \u{200d} \u{00ad} y"), "x y");
        // Visible text, CJK and emoji without joiners are untouched.
        assert_eq!(collapse_whitespace("高考 成绩 😀 é"), "高考 成绩 😀 é");
        for c in [
            '\u{200b}', '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}',
            '\u{2060}', '\u{2066}', '\u{2069}', '\u{feff}', '\u{00ad}', '\u{061c}',
        ] {
            assert!(is_invisible_control(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{a0}', '高', '\u{2010}', '\u{2028}'] {
            assert!(!is_invisible_control(c), "{c:?}");
        }
    }

    #[test]
    fn nesting_past_the_limit_loses_the_field_not_the_stack() {
        let deep = format!("{}x{}", "<span>".repeat(20_000), "</span>".repeat(20_000));
        assert_eq!(html_to_text(&deep), "");
        let ok = format!("{}x{}", "<span>".repeat(300), "</span>".repeat(300));
        assert_eq!(html_to_text(&ok), "x");
        // A walk over a deep tree, as html pages give it, needs no stack.
        let divs = format!("{}y", "<div>".repeat(500));
        let doc = scraper::Html::parse_document(&divs);
        assert_eq!(element_text(doc.root_element()), "y");
    }

    #[test]
    fn pieces_join_with_the_spacing_a_reader_needs() {
        // Chinese pieces: no space where the markup has none.
        assert_eq!(join_pieces(["模型上下文", "协议"]), "模型上下文协议");
        assert_eq!(
            join_pieces(["模型上下文协议（", "Model Context Protocol", "）是"]),
            "模型上下文协议（Model Context Protocol）是"
        );
        assert_eq!(join_pieces(["MCP", "是一种开放协议"]), "MCP是一种开放协议");
        // Latin words in separate elements are separate words...
        assert_eq!(join_pieces(["Model", "Context"]), "Model Context");
        // ...but punctuation stays on its word.
        assert_eq!(
            join_pieces(["MCP", ", an open protocol."]),
            "MCP, an open protocol."
        );
        assert_eq!(join_pieces(["(", "MCP", ")"]), "(MCP)");
        // Whitespace in the markup at the edges is one space, CJK or not.
        assert_eq!(join_pieces(["你好 ", "世界"]), "你好 世界");
        assert_eq!(join_pieces(["is", "\u{a0}open"]), "is open");
        assert_eq!(join_pieces(["a", " ", "b"]), "a b");
        assert_eq!(join_pieces(["中", " ", "文"]), "中 文");
        // Empty pieces vanish; one piece is collapse_whitespace of it.
        assert_eq!(join_pieces(["", "  x  y ", "\u{200c}"]), "x y");
        assert_eq!(
            join_pieces(["  a &amp;amp; b "]),
            collapse_whitespace("  a &amp;amp; b ")
        );
        assert_eq!(join_pieces(std::iter::empty()), "");
        // Hangul is written with spaces.
        assert_eq!(join_pieces(["안녕", "하세요"]), "안녕 하세요");
    }

    #[test]
    fn skips_scripts() {
        assert_eq!(html_to_text("a<script>var x = 1;</script> b"), "a b");
    }
}
