//! [`super::html_to_text`]'s fast path: the text of the simple markup API
//! fields carry (Crossref's `<jats:p>` abstracts and `<scp>` titles, Hacker
//! News' `<p>` and `<a href>` comments, `&amp;` and `&#x27;` everywhere),
//! read in one pass over the bytes instead of through html5ever's tree
//! builder, which costs tens of microseconds a field.
//!
//! It reads only markup whose tree html5ever builds without any of its
//! repairs: elements closed in the order opened, none of the elements
//! whose start or end moves others (a `p` inside a `p`, a `div` in a `p`,
//! tables, forms, `pre`, raw-text elements, …), no comments, and character
//! references it can decode exactly as html5ever does. Anything else makes
//! it give up (`None`), and the tree builder reads the field: the
//! reference. `tests/real_data` reads every string of every saved answer
//! both ways, and a property test does it on generated markup.

/// Elements inserted and closed with no side effect on others (html5ever's
/// "any other start tag" and the formatting elements, which only need
/// repairs when misnested), plus the block elements whose start inserts a
/// break in the text ([`BREAKS`]).
fn plain_element(name: &str) -> bool {
    // A name with `:` or `-` is no HTML element (`jats:p`, custom elements).
    name.contains([':', '-'])
        || matches!(
            name,
            "abbr"
                | "b"
                | "bdi"
                | "bdo"
                | "big"
                | "cite"
                | "code"
                | "data"
                | "del"
                | "dfn"
                | "em"
                | "i"
                | "ins"
                | "kbd"
                | "mark"
                | "q"
                | "s"
                | "samp"
                | "scp"
                | "small"
                | "span"
                | "strike"
                | "strong"
                | "sub"
                | "sup"
                | "time"
                | "tt"
                | "u"
                | "var"
        )
}

/// The elements whose opening [`super::text::element_raw_text`] marks with
/// a space, that this path reads: each closes an open `p` when it starts,
/// so none may start inside one.
fn break_element(name: &str) -> bool {
    matches!(name, "p" | "div" | "li")
}

/// Deepest nesting read here (the tree builder refuses past 512).
const MAX_DEPTH: usize = 256;

/// Most elements read here (the tree builder refuses past 100,000).
const MAX_ELEMENTS: usize = 50_000;

/// The text of `s` before whitespace is collapsed, as
/// `element_raw_text(parse_fragment(s))` gives it, or `None` when the
/// markup needs the tree builder.
pub(crate) fn raw_text(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if memchr::memchr(0, b).is_some() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    // The open elements (lower-cased names).
    let mut stack: Vec<String> = Vec::new();
    let mut elements = 0;
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = memchr::memchr2(b'<', b'&', &b[i..]) {
        let at = i + found;
        out.push_str(&s[copied..at]);
        if b[at] == b'&' {
            let (text, len) = char_ref(&s[at..])?;
            out.push_str(text.as_deref().unwrap_or("&"));
            i = at + len;
            copied = i;
            continue;
        }
        match b.get(at + 1) {
            Some(c) if c.is_ascii_alphabetic() => {
                let (name, self_closing, len) = tag(&s[at + 1..])?;
                i = at + 1 + len;
                elements += 1;
                if name == "br" {
                    out.push(' ');
                } else if self_closing {
                    // `<span/>` opens a span: left to the tree builder.
                    return None;
                } else if name == "a" || plain_element(&name) {
                    // A second `a` would close the first; other misnesting
                    // is never reached, since end tags must match.
                    if name == "a" && stack.iter().any(|n| n == "a") {
                        return None;
                    }
                    stack.push(name);
                } else if break_element(&name) {
                    if stack
                        .iter()
                        .any(|n| n == "p" || (name == "li" && n == "li"))
                    {
                        return None;
                    }
                    out.push(' ');
                    stack.push(name);
                } else {
                    return None;
                }
                if stack.len() > MAX_DEPTH || elements > MAX_ELEMENTS {
                    return None;
                }
            }
            Some(b'/') if b.get(at + 2).is_some_and(u8::is_ascii_alphabetic) => {
                let (name, _, len) = tag(&s[at + 2..])?;
                if stack.last() != Some(&name) {
                    return None;
                }
                stack.pop();
                i = at + 2 + len;
            }
            // `<!--`, `<?`, `</>`, `</3`: comments and bogus comments.
            Some(b'!' | b'?' | b'/') => return None,
            // `a < b`, `<3`, a `<` at the end: text.
            _ => {
                out.push('<');
                i = at + 1;
            }
        }
        copied = i;
    }
    // Elements left open are closed by the end of input, text unchanged.
    out.push_str(&s[copied..]);
    Some(out)
}

/// A tag after its `<` (or `</`): its lower-cased name, whether it ends
/// with `/>`, and its length up to and including the `>`. Attributes are
/// stepped over as html5ever's tokenizer reads them (quotes only open a
/// value after `=`). `None` at the end of input (html5ever drops such a
/// tag) or for a name this path does not read.
fn tag(s: &str) -> Option<(String, bool, usize)> {
    let b = s.as_bytes();
    let end = b
        .iter()
        .position(|&c| matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))?;
    let name = s[..end].to_ascii_lowercase();
    #[derive(Clone, Copy, PartialEq)]
    enum St {
        BeforeName,
        Name,
        AfterName,
        BeforeValue,
        Quoted(u8),
        AfterQuoted,
        Unquoted,
        SelfClosing,
    }
    let mut st = St::BeforeName;
    let mut i = end;
    while let Some(&c) = b.get(i) {
        let space = matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
        st = match (st, c) {
            (St::Quoted(q), c) if c == q => St::AfterQuoted,
            (St::Quoted(q), _) => St::Quoted(q),
            (St::SelfClosing, b'>') => return Some((name, true, i + 1)),
            (_, b'>') => return Some((name, false, i + 1)),
            (St::SelfClosing, _) => {
                // Reconsumed before an attribute name.
                if space { St::BeforeName } else { St::Name }
            }
            (St::Unquoted, _) if space => St::BeforeName,
            (St::Unquoted, _) => St::Unquoted,
            (St::BeforeValue, _) if space => St::BeforeValue,
            (St::BeforeValue, b'"' | b'\'') => St::Quoted(c),
            (St::BeforeValue, _) => St::Unquoted,
            (_, b'/') => St::SelfClosing,
            (St::Name | St::AfterName, b'=') => St::BeforeValue,
            (St::BeforeName | St::AfterQuoted, _) if space => St::BeforeName,
            (St::Name | St::AfterName, _) if space => St::AfterName,
            // `=` first, or any other character: (part of) a name.
            (_, _) => St::Name,
        };
        i += 1;
    }
    None
}

/// A character reference at the start of `s` (its `&`): the text it
/// stands for (`None`: a lone `&`, kept as written) and its length. The
/// outer `None` for a reference this path does not decode.
fn char_ref(s: &str) -> Option<(Option<String>, usize)> {
    let b = s.as_bytes();
    match b.get(1) {
        // Not a reference: the `&` is text.
        None => Some((None, 1)),
        Some(c) if !c.is_ascii_alphanumeric() && *c != b'#' => Some((None, 1)),
        Some(b'#') => {
            let (digits, radix, start) = match b.get(2) {
                Some(b'x' | b'X') => (&b[3..], 16, 3),
                _ => (&b[2..], 10, 2),
            };
            let n = digits
                .iter()
                .position(|c| !(c.is_ascii_digit() || radix == 16 && c.is_ascii_hexdigit()))
                .unwrap_or(digits.len());
            if n == 0 || n > 6 || digits.get(n) != Some(&b';') {
                return None;
            }
            let code = u32::from_str_radix(&s[start..start + n], radix).ok()?;
            // Controls, C1 code points (mapped to Windows-1252), surrogates
            // and noncharacters are html5ever's to decide.
            let plain = matches!(code, 0x09 | 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFDCF | 0xFDF0..=0x10FFFF)
                && (code & 0xFFFE) != 0xFFFE;
            if !plain {
                return None;
            }
            Some((Some(char::from_u32(code)?.to_string()), start + n + 1))
        }
        Some(_) => {
            let n = b[1..]
                .iter()
                .position(|c| !c.is_ascii_alphanumeric())
                .unwrap_or(b.len() - 1);
            if b.get(1 + n) != Some(&b';') {
                return None;
            }
            let c = match &s[1..1 + n] {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => '\u{a0}',
                _ => return None,
            };
            Some((Some(c.to_string()), n + 2))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: html5ever's fragment and the tree walk.
    fn tree(s: &str) -> String {
        match super::super::dom::parse_fragment(s) {
            Ok(f) => super::super::text::element_raw_text(f.root_element()),
            Err(_) => "<refused>".into(),
        }
    }

    #[test]
    fn simple_markup_reads_as_the_tree_builder_reads_it() {
        for s in [
            "plain",
            "a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; f&nbsp;g",
            "AT&T & co, x&&y, a & b",
            "&#x27;quoted&#39; &#8212; &#x1F600;",
            "<p>one</p><p>two</p>",
            "line<br>break<br/>again<br />x",
            "<jats:title>Abstract</jats:title>\n <jats:p>Text <jats:italic>it</jats:italic>.</jats:p>",
            "<scp>T</scp>reebase: an<scp>R</scp>package",
            r#"See <a href="https://x.org/?a=1&amp;b=2" rel="nofollow">x.org</a> now"#,
            r#"<span class='a>b' data-x=y>q</span>"#,
            "<b>bold <i>both</i></b> <EM>em</EM>",
            "x < y and 3<4, <",
            "<div>block</div>after",
            "<ul><li>one</li><li>two</li></ul>",
            "<span>unclosed",
            "<p>para <b>bold</b> end",
            "<a title\"x>y\">z</a>",
            "<span a=1/>",
        ] {
            if let Some(fast) = raw_text(s) {
                assert_eq!(fast, tree(s), "{s:?}");
            }
        }
        // These are read here, not handed over.
        for s in [
            "a &amp; b",
            "<p>one</p><p>two</p>",
            "<jats:title>Abstract</jats:title> <jats:p>x</jats:p>",
            r#"See <a href="https://x.org/?a=1&amp;b=2">x.org</a>"#,
            "x < y",
        ] {
            assert!(raw_text(s).is_some(), "{s:?}");
        }
    }

    #[test]
    fn markup_with_repairs_is_left_to_the_tree_builder() {
        for s in [
            "<p>a<p>b",
            "<p>a<div>b</div></p>",
            "<b>a<i>b</b>c</i>",
            "<!-- c -->x",
            "<table><td>x</td></table>",
            "<pre>\nx</pre>",
            "<script>x</script>",
            "<title>a<b>b</b></title>",
            "&hellip;",
            "&amp",
            "&#128;",
            "&#0;",
            "a\0b",
            "</br>",
            "<span/>x",
            "<a>a<a>b</a></a>",
            "<li>a<li>b",
            "<span",
            "</>",
        ] {
            assert_eq!(raw_text(s), None, "{s:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Generated markup of the pieces API fields use: wherever this
        /// path reads it, it reads what the tree builder reads.
        #[test]
        fn agrees_with_the_tree_builder(pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "<p>", "</p>", "<b>", "</b>", "<i>", "</i>", "<a href=\"x\">", "</a>",
                "<jats:p>", "</jats:p>", "<div>", "</div>", "<li>", "</li>", "<br>",
                "<span class=a>", "</span>", "<em/>", "text", " ", "\n", "&amp;", "&lt;",
                "&#39;", "&", "<", ">", "é", "&nbsp;", "<!--x-->", "<pre>", "</pre>",
                "<table>", "<td>", "</td>", "=", "\"", "'",
            ]),
            0..24,
        )) {
            let s: String = pieces.concat();
            if let Some(fast) = raw_text(&s) {
                proptest::prop_assert_eq!(fast, tree(&s), "{:?}", s);
            }
        }
    }
}
