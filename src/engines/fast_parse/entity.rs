//! Character references as html5ever's tokenizer decodes them, for the fast
//! front end ([`super::front`]): only the text and attribute values a
//! selector or a field reads are decoded, with html5ever's own table of
//! named references (`markup5ever::data::NAMED_ENTITIES`, which also lists
//! every prefix of a name, with the value 0) and its rules for numeric ones.

use std::borrow::Cow;

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// The longest name in the table, `;` included.
const LONGEST: usize = 33;

/// `raw` with its character references decoded (in an attribute value when
/// `attr`: then a reference without `;` followed by `=` or a letter or
/// digit is left as written, as the HTML tokenizer leaves it).
pub(super) fn decode(raw: &str, attr: bool) -> Cow<'_, str> {
    let Some(first) = memchr::memchr(b'&', raw.as_bytes()) else {
        return Cow::Borrowed(raw);
    };
    let mut out = String::with_capacity(raw.len());
    out.push_str(&raw[..first]);
    let mut i = first;
    let b = raw.as_bytes();
    while i < b.len() {
        // b[i] == b'&'
        let used = reference(&raw[i + 1..], attr, &mut out);
        if used == 0 {
            out.push('&');
        }
        i += 1 + used;
        let next = memchr::memchr(b'&', &b[i..]).map_or(b.len(), |p| i + p);
        out.push_str(&raw[i..next]);
        i = next;
    }
    Cow::Owned(out)
}

/// Decodes the reference after an `&` at the start of `s` into `out`;
/// the bytes it used (0 = not a reference: the `&` stands as written).
fn reference(s: &str, attr: bool, out: &mut String) -> usize {
    let b = s.as_bytes();
    // The commonest ones, ended by `;` (no longer name can match then).
    for (name, c) in [
        ("amp;", '&'),
        ("quot;", '"'),
        ("lt;", '<'),
        ("gt;", '>'),
        ("nbsp;", '\u{a0}'),
    ] {
        if b.starts_with(name.as_bytes()) {
            out.push(c);
            return name.len();
        }
    }
    match b.first() {
        Some(b'#') => numeric(b, out),
        Some(c) if c.is_ascii_alphanumeric() => named(s, attr, out),
        _ => 0,
    }
}

fn numeric(b: &[u8], out: &mut String) -> usize {
    let (base, mut i) = match b.get(1) {
        Some(b'x' | b'X') => (16, 2),
        _ => (10, 1),
    };
    let start = i;
    let mut num: u32 = 0;
    let mut too_big = false;
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(base)) {
        num = num.wrapping_mul(base);
        if num > 0x10FFFF {
            too_big = true;
        }
        num = num.wrapping_add(d);
        i += 1;
    }
    if i == start {
        return 0;
    }
    if b.get(i) == Some(&b';') {
        i += 1;
    }
    let c = match num {
        n if n > 0x10FFFF || too_big => '\u{fffd}',
        0 | 0xD800..=0xDFFF => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(num - 0x80) as usize]
            .unwrap_or_else(|| char::from_u32(num).unwrap_or('\u{fffd}')),
        n => char::from_u32(n).unwrap_or('\u{fffd}'),
    };
    out.push(c);
    i
}

fn named(s: &str, attr: bool, out: &mut String) -> usize {
    // The longest full match along the chain of prefixes in the table.
    let mut best: Option<(usize, (u32, u32))> = None;
    for (at, c) in s.char_indices().take(LONGEST) {
        let end = at + c.len_utf8();
        match NAMED_ENTITIES.get(&s[..end]) {
            Some(&m) => {
                if m.0 != 0 {
                    best = Some((end, m));
                }
            }
            None => break,
        }
    }
    let Some((len, (c1, c2))) = best else {
        return 0;
    };
    if attr
        && !s[..len].ends_with(';')
        && let Some(&next) = s.as_bytes().get(len)
        && (next == b'=' || next.is_ascii_alphanumeric())
    {
        return 0;
    }
    for c in [c1, c2] {
        if c != 0
            && let Some(c) = char::from_u32(c)
        {
            out.push(c);
        }
    }
    len
}

/// An attribute value as the tree path's parser reads it: runs of ASCII
/// whitespace shortened to their first byte (the prefilter's squeeze, which
/// the tree path's page went through), CR and CRLF read as LF (the HTML
/// input stream's rule), then the references decoded.
pub(super) fn attr_value(raw: &str) -> Cow<'_, str> {
    if plain(raw.as_bytes()) {
        return decode(raw, true);
    }
    let mut squeezed = String::with_capacity(raw.len());
    let mut prev_ws = false;
    for c in raw.chars() {
        let ws = c.is_ascii_whitespace();
        if !(ws && prev_ws) {
            squeezed.push(if c == '\r' { '\n' } else { c });
        }
        prev_ws = ws;
    }
    Cow::Owned(decode(&squeezed, true).into_owned())
}

/// No CR and no run of two whitespace bytes.
fn plain(b: &[u8]) -> bool {
    let mut prev = false;
    for &c in b {
        let ws = matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
        if c == b'\r' || (ws && prev) {
            return false;
        }
        prev = ws;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_html5ever_does() {
        for (raw, attr, want) in [
            ("a &amp; b", false, "a & b"),
            ("&amp", false, "&"),
            ("&ampx", false, "&x"),
            ("&ampx", true, "&ampx"),
            ("&amp=", true, "&amp="),
            ("&amp;x", true, "&x"),
            ("&notin;", false, "∉"),
            ("&notit;", false, "¬it;"),
            ("&#39;&#x27;&#X27", false, "'''"),
            ("&#;&#x;&#xg", false, "&#;&#x;&#xg"),
            (
                "&#128;&#0;&#xD800;&#x110000;",
                false,
                "€\u{fffd}\u{fffd}\u{fffd}",
            ),
            ("&zz; & &", false, "&zz; & &"),
            ("&nbsp;&NotEqualTilde;", false, "\u{a0}≂\u{338}"),
        ] {
            assert_eq!(decode(raw, attr), want, "{raw:?} attr={attr}");
        }
    }

    #[test]
    fn squeezes_attribute_values_as_the_prefilter_does() {
        assert_eq!(attr_value("a  b\r\nc\rd"), "a b\nc\nd");
        assert_eq!(attr_value("x&amp;y"), "x&y");
    }
}
