//! What the HTML parser is fed: a results page with what no selector can
//! read cut out, in one pass before html5ever builds the tree.
//!
//! html5ever tokenizes every byte it is given, attribute values character by
//! character; profiles of the load test's pages put 70 % of a parse in the
//! tokenizer and tree builder. Most of a modern results page is never read:
//!
//! - the contents of `<script>`, `<style>` and `<noscript>` (raw text to the
//!   parser, with scripting on, so no selector can match inside them and the
//!   visible text skips them) and whole `<svg>` elements: 40–80 % of the
//!   bytes of Bing, Brave, Startpage, Yahoo and Ecosia;
//! - comments (Bing and Brave carry 12–16 KB of them);
//! - attributes no selector names: `style=`, `data-*`, `srcset`, `aria-*`,
//!   `src`… — about 40 % of what is left after the cuts above. The parser
//!   keeps `id`, `class`, `href`, the attributes the engine's selectors and
//!   `@attr` fields name ([`Keep::from_specs`]), and the few the tree builder
//!   itself looks at (`type` of `<input>` in tables, `color` / `face` / `size`
//!   of `<font>` and `encoding` of `<annotation-xml>` in foreign content);
//! - runs of whitespace (indentation is up to a third of some pages): each
//!   run is shortened to its first byte, since every text the parser reads
//!   is whitespace-collapsed anyway.
//!
//! Tags themselves are kept (a marker may name a script's `src`, and the
//! tree's shape must not change), tag syntax is read as the HTML tokenizer
//! reads it (quoted values may hold `>`), and whatever cannot be read — an
//! unclosed tag, a `<script>` without an end tag — is passed on as written,
//! so the parser sees what it would have seen. `tests/parsers.rs` keeps every
//! preset's output on the saved pages byte-identical, and the tests below
//! compare the tree's elements and kept attributes with and without the cut.

use memchr::memmem;

/// What the parser must keep: the attributes (`None` = all of them) and,
/// of `class` values, the class names (`None` = every class).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keep {
    attrs: Option<Vec<String>>,
    classes: Option<Vec<String>>,
}

/// Always kept: what selectors read most and what html5ever's tree builder
/// looks at.
const ALWAYS: [&str; 8] = [
    "id", "class", "href", "type", "color", "face", "size", "encoding",
];

/// Pseudo-classes that depend on no attribute outside [`ALWAYS`]; any other
/// (`:checked`, `:lang()`, …) keeps every attribute.
const PLAIN_PSEUDO: [&str; 18] = [
    "not",
    "is",
    "where",
    "has",
    "first-child",
    "last-child",
    "only-child",
    "nth-child",
    "nth-last-child",
    "first-of-type",
    "last-of-type",
    "only-of-type",
    "nth-of-type",
    "nth-last-of-type",
    "empty",
    "root",
    "link",
    "any-link",
];

impl Keep {
    /// Every attribute and class (no filtering).
    pub fn all() -> Keep {
        Keep {
            attrs: None,
            classes: None,
        }
    }

    /// The attributes the selector specs name, plus [`ALWAYS`], and the
    /// class names they name. A spec is a selector, a field (`"sel@attr ||
    /// sel"`) or a marker; anything this reader is unsure of (a CSS escape,
    /// an unknown pseudo-class) keeps everything, and a selector on the
    /// `class` attribute itself (`[class*=x]`) keeps every class, so a
    /// selector never loses what it matches on.
    pub fn from_specs<'a>(specs: impl IntoIterator<Item = &'a str>) -> Keep {
        let mut names: Vec<String> = ALWAYS.iter().map(|s| s.to_string()).collect();
        let mut classes = Vec::new();
        for spec in specs {
            if !named_attributes(spec, &mut names, &mut classes) {
                return Keep::all();
            }
        }
        // Only `.name` reads the class list: `[class]` needs it whole. (ALWAYS
        // holds `class` once; a selector naming it adds it again.)
        let class_read_whole = names.iter().filter(|n| *n == "class").count() > 1;
        names.sort();
        names.dedup();
        classes.sort();
        classes.dedup();
        Keep {
            attrs: Some(names),
            classes: (!class_read_whole).then_some(classes),
        }
    }

    /// The kept attribute names (lower case), `None` = all.
    pub fn names(&self) -> Option<Vec<&str>> {
        self.attrs
            .as_ref()
            .map(|v| v.iter().map(String::as_str).collect())
    }

    /// The kept class names, `None` = all.
    pub fn classes(&self) -> Option<Vec<&str>> {
        self.classes
            .as_ref()
            .map(|v| v.iter().map(String::as_str).collect())
    }

    pub(crate) fn keeps(&self, name: &[u8]) -> bool {
        match &self.attrs {
            None => true,
            Some(names) => names
                .iter()
                .any(|n| n.as_bytes().eq_ignore_ascii_case(name)),
        }
    }

    /// A `class` value as the prefilter writes it (only the class names
    /// kept, one space apart; `None` = no attribute left).
    pub(crate) fn class_value(&self, value: &str) -> Option<String> {
        if self.classes.is_none() {
            return Some(value.to_string());
        }
        let kept: Vec<&str> = value
            .split(|c: char| c.is_ascii_whitespace())
            .filter(|t| !t.is_empty() && !t.contains('"') && self.keeps_class(t.as_bytes()))
            .collect();
        (!kept.is_empty()).then(|| kept.join(" "))
    }

    /// Whether a class token must stay: named by a selector (ASCII case
    /// folded, since quirks-mode pages match classes that way), or holding
    /// a character reference this reader does not decode.
    fn keeps_class(&self, token: &[u8]) -> bool {
        match &self.classes {
            None => true,
            Some(names) => {
                token.contains(&b'&')
                    || names
                        .iter()
                        .any(|n| n.as_bytes().eq_ignore_ascii_case(token))
            }
        }
    }
}

/// Adds the attribute names `spec` reads to `names` and the class names to
/// `classes`; false when it cannot tell (then everything must be kept).
fn named_attributes(spec: &str, names: &mut Vec<String>, classes: &mut Vec<String>) -> bool {
    if spec.contains('\\') {
        return false;
    }
    let b = spec.as_bytes();
    let ident = |from: usize| -> usize {
        let mut j = from;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'-' | b'_')) {
            j += 1;
        }
        j
    };
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' | b'\'' => quote = Some(c),
            b'.' => {
                let end = ident(i + 1);
                if b.get(end).is_some_and(|&n| n >= 0x80) {
                    // A non-ASCII class name: not worth reading.
                    return false;
                }
                if end > i + 1 {
                    classes.push(spec[i + 1..end].to_string());
                }
                i = end.max(i + 1);
                continue;
            }
            b'[' | b'@' => {
                let mut from = i + 1;
                while from < b.len() && b[from].is_ascii_whitespace() {
                    from += 1;
                }
                let end = ident(from);
                let namespaced = b.get(end) == Some(&b'|') && b.get(end + 1) != Some(&b'=');
                if c == b'[' && (end == from || namespaced) {
                    // `[ns|attr]`, `[*|attr]`: not worth reading.
                    return false;
                }
                if end > from {
                    names.push(spec[from..end].to_ascii_lowercase());
                }
                i = end;
                continue;
            }
            b':' => {
                if b.get(i + 1) == Some(&b':') {
                    return false;
                }
                let end = ident(i + 1);
                let pseudo = spec[i + 1..end].to_ascii_lowercase();
                // `css:` is the marker prefix, not a pseudo-class.
                let marker_prefix = i == 3 && spec.starts_with("css:");
                if !marker_prefix && !PLAIN_PSEUDO.contains(&pseudo.as_str()) {
                    return false;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// `body` as the HTML parser should see it (see the module docs).
pub fn prefilter(body: &str, keep: &Keep) -> String {
    let b = body.as_bytes();
    let mut out = String::with_capacity(b.len() / 3);
    let mut i = 0;
    while i < b.len() {
        let Some(off) = memchr::memchr(b'<', &b[i..]) else {
            push_squeezed(&mut out, &body[i..]);
            break;
        };
        let lt = i + off;
        push_squeezed(&mut out, &body[i..lt]);
        let rest = &b[lt + 1..];
        i = match rest.first() {
            Some(b'!') if rest.starts_with(b"!--") => skip_comment(b, lt + 4),
            Some(b'!' | b'/' | b'?') => {
                // Doctype, end tag, bogus comment: passed on to their `>`.
                let end = memchr::memchr(b'>', rest).map_or(b.len(), |p| lt + 1 + p + 1);
                push_squeezed(&mut out, &body[lt..end]);
                end
            }
            Some(c) if c.is_ascii_alphabetic() => start_tag(body, lt, keep, &mut out),
            _ => {
                out.push('<');
                lt + 1
            }
        };
    }
    out
}

/// The offset after a comment whose `<!--` ends at `from`: html5ever ends a
/// comment at `-->`, `--!>`, and right away at `<!-->` / `<!--->`; one
/// without an end runs to the end of the page.
pub(crate) fn skip_comment(b: &[u8], from: usize) -> usize {
    let rest = &b[from..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    let mut at = from;
    while let Some(p) = memmem::find(&b[at..], b"--") {
        let dash = at + p + 2;
        match b.get(dash..) {
            Some([b'>', ..]) => return dash + 1,
            Some([b'!', b'>', ..]) => return dash + 2,
            _ => at = dash - 1,
        }
    }
    b.len()
}

/// What a byte is to the tokenizer's tag states (one table lookup per
/// byte instead of a chain of comparisons).
const SPACE: u8 = 1;
const SLASH: u8 = 2;
const GT: u8 = 4;
const EQ: u8 = 8;
static BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[0x0c] = SPACE;
    t[b'/' as usize] = SLASH;
    t[b'>' as usize] = GT;
    t[b'=' as usize] = EQ;
    t
};

/// Whether `c` is whitespace to the HTML tokenizer.
#[inline]
pub(crate) fn is_space(c: u8) -> bool {
    BYTE[c as usize] & SPACE != 0
}

/// The first offset at or after `from` whose byte is in `set` (or the end).
#[inline]
fn until(b: &[u8], from: usize, set: u8) -> usize {
    let mut j = from;
    while let Some(&c) = b.get(j) {
        if BYTE[c as usize] & set != 0 {
            break;
        }
        j += 1;
    }
    j
}

/// The first offset at or after `from` that is not whitespace (or the end).
/// Runs of spaces (the indentation of attributes written one per line) are
/// passed eight bytes at a time.
#[inline]
fn skip_space(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while let Some(&c) = b.get(j) {
        if BYTE[c as usize] & SPACE == 0 {
            break;
        }
        j += 1;
        while b.get(j..j + 8) == Some(b"        ") {
            j += 8;
        }
    }
    j
}

/// The offset where a tag name starting at `at` ends (whitespace, `/` or
/// `>`, or the end of the page).
pub(crate) fn tag_name_end(b: &[u8], at: usize) -> usize {
    until(b, at, SPACE | SLASH | GT)
}

/// One attribute of a tag, as the HTML tokenizer delimits it: offsets into
/// the page of its name, of its value without quotes (if it has one), and
/// of the byte after it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TagAttr {
    pub name: (usize, usize),
    pub value: Option<(usize, usize)>,
    pub end: usize,
}

/// What [`TagScan::next`] met.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TagStep {
    Attr(TagAttr),
    /// The tag's `>`; the offset after it.
    End(usize),
    /// The page ends inside the tag (html5ever then drops it).
    Unfinished,
}

/// The HTML tokenizer's attribute states, reduced to where each attribute
/// starts and ends: the one loop over a tag's attributes, shared by the
/// prefilter and the streaming path's fast front end (which must delimit
/// tags exactly as the prefilter does). Quoted values may hold `>`; a name
/// may begin with `=` (a parse error html5ever tolerates).
#[derive(Debug, Clone)]
pub(crate) struct TagScan<'a> {
    b: &'a [u8],
    at: usize,
    /// Whether the tag read so far ends in `/>`.
    pub self_closing: bool,
}

impl<'a> TagScan<'a> {
    /// A scan from `at`, the end of the tag's name.
    pub(crate) fn new(b: &'a [u8], at: usize) -> TagScan<'a> {
        TagScan {
            b,
            at,
            self_closing: false,
        }
    }

    /// The next attribute, or the end of the tag.
    #[inline]
    pub(crate) fn next_step(&mut self) -> TagStep {
        let b = self.b;
        let mut j = self.at;
        loop {
            j = skip_space(b, j);
            match b.get(j) {
                None => return TagStep::Unfinished,
                Some(b'>') => return TagStep::End(j + 1),
                Some(b'/') => {
                    j += 1;
                    self.self_closing = b.get(j) == Some(&b'>');
                    continue;
                }
                Some(_) => break,
            }
        }
        self.self_closing = false;
        let start = j;
        j = until(b, j + 1, SPACE | SLASH | GT | EQ);
        let name = (start, j);
        let mut value = None;
        let mut k = skip_space(b, j);
        if b.get(k) == Some(&b'=') {
            k = skip_space(b, k + 1);
            match b.get(k) {
                Some(&q @ (b'"' | b'\'')) => match memchr::memchr(q, &b[k + 1..]) {
                    Some(p) => {
                        value = Some((k + 1, k + 1 + p));
                        j = k + 1 + p + 1;
                    }
                    None => return TagStep::Unfinished,
                },
                Some(b'>') | None => j = k,
                Some(_) => {
                    let from = k;
                    k = until(b, k, SPACE | GT);
                    value = Some((from, k));
                    j = k;
                }
            }
        }
        self.at = j;
        TagStep::Attr(TagAttr {
            name,
            value,
            end: j,
        })
    }
}

/// Reads the start tag at `lt` and writes it with only the kept attributes,
/// then deals with its contents when it is a raw-text element; returns the
/// offset to go on from.
fn start_tag(body: &str, lt: usize, keep: &Keep, out: &mut String) -> usize {
    let b = body.as_bytes();
    let mark = out.len();
    let j = tag_name_end(b, lt + 1);
    let name = &body[lt + 1..j];
    out.push_str(&body[lt..j]);
    let mut scan = TagScan::new(b, j);
    let mut seen_class = false;
    // Whether the last attribute written has no value: then a next name
    // starting with `=` would read as its value once the `/` or the
    // attributes that stood between them are gone.
    let mut last_bare = false;
    let end = loop {
        let attr = match scan.next_step() {
            TagStep::Attr(a) => a,
            TagStep::End(end) => break Some(end),
            TagStep::Unfinished => break None,
        };
        let attr_name = &b[attr.name.0..attr.name.1];
        if !keep.keeps(attr_name) {
            continue;
        }
        let is_class = keep.classes.is_some() && attr_name.eq_ignore_ascii_case(b"class");
        if is_class && seen_class {
            // html5ever keeps the first; this one could only stand in for a
            // first one cut away below.
            continue;
        }
        seen_class |= is_class;
        if last_bare && attr_name.first() == Some(&b'=') {
            out.push_str(" /");
        }
        match attr.value {
            Some((from, to)) if is_class => {
                // Only the class names a selector asks about; none left = no
                // attribute (no selector reads the class attribute itself).
                // A token with a quote can never be a selector's class name.
                let mut tokens = body[from..to]
                    .split(|c: char| c.is_ascii_whitespace())
                    .filter(|t| {
                        !t.is_empty() && !t.contains('"') && keep.keeps_class(t.as_bytes())
                    });
                if let Some(first) = tokens.next() {
                    last_bare = false;
                    out.push_str(" class=\"");
                    out.push_str(first);
                    for t in tokens {
                        out.push(' ');
                        out.push_str(t);
                    }
                    out.push('"');
                }
            }
            value => {
                last_bare = value.is_none();
                out.push(' ');
                push_squeezed(out, &body[attr.name.0..attr.end]);
            }
        }
    };
    let self_closing = scan.self_closing;
    let Some(end) = end else {
        // An unfinished tag: html5ever drops it; give it the same bytes.
        out.truncate(mark);
        out.push_str(&body[lt..]);
        return b.len();
    };
    if self_closing {
        out.push_str(" /");
    }
    out.push('>');
    let is = |n: &str| name.eq_ignore_ascii_case(n);
    if is("script") || is("style") || is("noscript") {
        // Contents cut, tags kept.
        return match find_end_tag(b, end, name.as_bytes()) {
            Some(close) => close,
            None => end,
        };
    }
    if is("svg") && !self_closing {
        if let Some(close) = find_end_tag(b, end, b"svg")
            && let Some(gt) = memchr::memchr(b'>', &b[close..])
        {
            out.truncate(mark);
            return close + gt + 1;
        }
        return end;
    }
    if ["title", "textarea", "xmp", "iframe", "noembed", "noframes"]
        .iter()
        .any(|n| is(n))
    {
        // Raw text to the parser: a `<` inside is not a tag.
        let close = find_end_tag(b, end, name.as_bytes()).unwrap_or(b.len());
        push_squeezed(out, &body[end..close]);
        return close;
    }
    if is("plaintext") {
        out.push_str(&body[end..]);
        return b.len();
    }
    end
}

/// Offset of the first `</name` (any case) at or after `from` (where the
/// prefilter, and so the streaming path, ends a raw-text element's contents).
pub(crate) fn find_end_tag(b: &[u8], from: usize, n: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(p) = memmem::find(&b[at..], b"</") {
        let open = at + p;
        let rest = &b[open + 2..];
        if rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n) {
            return Some(open);
        }
        at = open + 2;
    }
    None
}

/// Appends `s` with every run of ASCII whitespace shortened to its first
/// byte. (Only `<pre>`-like content and attribute values with doubled
/// spaces would read differently; neither is read.)
fn push_squeezed(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j > i + 1 {
                // ASCII bytes are char boundaries, so these slices are valid.
                out.push_str(&s[last..=i]);
                last = j;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(s: &str) -> String {
        prefilter(s, &Keep::from_specs(["div.r > a@data-u"]))
    }

    #[test]
    fn squeezes_whitespace_runs() {
        assert_eq!(cut("<p>\n   a  b\t\tc </p>  "), "<p>\na b\tc </p> ");
        assert_eq!(cut("é  ü"), "é ü");
        assert_eq!(cut(""), "");
    }

    #[test]
    fn cuts_raw_text_svgs_and_comments() {
        let page = "<html><head><SCRIPT src=x.js>var a = '<b>';</Script><style>.a{}</style></head>\
                    <body><!-- x <p>no</p> --><svg viewBox='0'><path d='M0'/></svg><p>hi</p>\
                    <svg/><i>x</i><noscript><img src=y></noscript></body></html>";
        assert_eq!(
            cut(page),
            "<html><head><SCRIPT></Script><style></style></head>\
             <body><p>hi</p><svg /><i>x</i><noscript></noscript></body></html>"
        );
        // Comments end where html5ever ends them.
        assert_eq!(cut("a<!-->b<!--->c<!-- -- --!>d<!--x"), "abcd");
        // No end tag: left for the parser.
        assert_eq!(cut("<p>a<script>x"), "<p>a<script>x");
        // Names that only start like one are not cut.
        assert_eq!(cut("<scripts>a</scripts>"), "<scripts>a</scripts>");
    }

    #[test]
    fn keeps_only_named_attributes_as_written() {
        assert_eq!(
            cut(
                "<div  style=\"a>b\" class='R x' data-u=q/ hidden><a href=/x/ data-v=1 data-u=\"1  2\">t</a></div>"
            ),
            "<div class=\"R\" data-u=q/><a href=/x/ data-u=\"1 2\">t</a></div>"
        );
        // Only the class names selectors ask about; the first class
        // attribute stays the one html5ever reads.
        assert_eq!(
            cut("<p class=\"a r  b\"><p class=x><p class=\"x\" class=\"r\"><p class=r&amp;>"),
            "<p class=\"r\"><p><p><p class=\"r&amp;\">"
        );
        let keep = Keep::from_specs(["p[class*=r]"]);
        assert_eq!(prefilter("<p class=\"a r\">", &keep), "<p class=\"a r\">");
        assert_eq!(cut("<br/><img src=a />"), "<br /><img />");
        assert_eq!(cut("<input type=hidden value=1>"), "<input type=hidden>");
        // Raw text: a `<` inside is not a tag.
        assert_eq!(
            cut("<title>a <b style=x> c</title><textarea><i s=1></textarea>"),
            "<title>a <b style=x> c</title><textarea><i s=1></textarea>"
        );
        // An unfinished tag is passed on as written.
        assert_eq!(cut("<p>a<div style=\"x>"), "<p>a<div style=\"x>");
        assert_eq!(cut("<p>a<div style"), "<p>a<div style");
        // Not a tag.
        assert_eq!(cut("a < b <3 </>"), "a < b <3 </>");
    }

    #[test]
    fn reads_attribute_names_from_selectors() {
        let keep = Keep::from_specs([
            "div.snippet[data-type=\"web\"]",
            "a.result@href || @mu",
            "[ data-test-id = \"x:y\"]",
            "css:#b_captcha",
            "li:nth-child(2) > a:not(.x)",
        ]);
        assert!(keep.keeps(b"DATA-TYPE") && keep.keeps(b"mu") && keep.keeps(b"data-test-id"));
        assert!(keep.keeps(b"class") && !keep.keeps(b"style"));
        assert_eq!(
            keep.classes(),
            Some(vec!["result", "snippet", "x"]),
            "class names, not the marker prefix or pseudo-classes"
        );
        assert_eq!(Keep::from_specs(["a.résumé"]), Keep::all());
        assert_eq!(Keep::from_specs(["input:checked"]), Keep::all());
        assert_eq!(Keep::from_specs(["a[ns|x]"]), Keep::all());
        assert_eq!(Keep::from_specs(["a[*|x]"]), Keep::all());
        assert_eq!(Keep::from_specs(["a.\\31 x"]), Keep::all());
    }

    #[test]
    fn odd_input_never_panics() {
        for s in [
            "<",
            "<a",
            "<a ",
            "<a b",
            "<a b=",
            "<a b='",
            "<a b=c",
            "<a/",
            "<svg",
            "<svg/",
            "<svg>é",
            "<style>",
            "<script>é</scrip",
            "<!",
            "<!-",
            "<!--",
            "<!---",
            "</",
            "<?",
            "<a =b>",
            "<a b = 'c' / >",
            "<é>",
            "<title>",
            "<plaintext>x<y>",
        ] {
            let _ = prefilter(s, &Keep::all());
            let _ = cut(s);
        }
    }
}
