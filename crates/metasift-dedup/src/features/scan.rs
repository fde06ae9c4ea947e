//! The scanners that turn a snippet into its unit stream: the one-pass fast
//! path over ASCII, CJK and the full-width forms, and the general path (NFKC,
//! lowercase, Unicode word boundaries) it falls back to. What they produce
//! and why is in the [module docs](super).

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

#[cfg(feature = "jieba")]
use super::JIEBA;
#[cfg(feature = "jieba")]
use super::hash_str;
use super::{Extractor, Stream, UnitHash};
use crate::Unit;

/// Marks that anchor a window.
#[inline]
pub(super) fn is_anchor(c: char) -> bool {
    matches!(
        c,
        ',' | '.'
            | '!'
            | '?'
            | ';'
            | ':'
            | '，'
            | '。'
            | '！'
            | '？'
            | '；'
            | '：'
            | '、'
            | '…'
            | '｡'
            | '､'
    )
}

/// Symbols that only separate units in both scanners: quotes, dashes,
/// brackets, arrows, math and box-drawing signs, bullets. Unicode word
/// boundaries give them the class `Other` (unlike `·` or `’`, which can join
/// letters), they are not letters or digits (`①`, `Ⅳ` are), and NFKC leaves
/// them alone — so a snippet with an arrow in it need not take the general
/// normalizer (it did for 65 of the 2,000 benchmark records).
#[inline]
pub(super) fn is_fast_separator(c: char) -> bool {
    match c as u32 {
        0x201A..=0x201D | 0x2013 | 0x2014 | 0x2022 | 0x2030 | 0x2039 | 0x203A => true,
        0x300A..=0x3011 | 0x3014..=0x3017 | 0xD7 | 0xF7 => true,
        0x2190..=0x21FF | 0x2200..=0x22FF | 0x2500..=0x25FF | 0x2600..=0x26FF => {
            !c.is_alphanumeric()
                && unicode_normalization::is_nfkc_quick(std::iter::once(c))
                    == unicode_normalization::IsNormalized::Yes
        }
        _ => false,
    }
}

/// Classes of an ASCII byte for the fast scanner, one table lookup for all.
const WORD: u8 = 1;
const DIGIT: u8 = 2;
pub(super) const ALNUM: u8 = 4;
const ANCHOR: u8 = 8;
const LETTER: u8 = 16;
/// `·`: joins two letters into one word, like `'` (Unicode's `MidLetter`).
const MID_LETTER: u8 = 32;

/// [`WORD`] (letter, digit or `_`), [`DIGIT`], [`ALNUM`], [`ANCHOR`] and
/// [`LETTER`] per ASCII byte.
static ASCII_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        let mut k = 0;
        if b.is_ascii_alphanumeric() || b == b'_' {
            k |= WORD;
        }
        if b.is_ascii_digit() {
            k |= DIGIT;
        }
        if b.is_ascii_alphanumeric() {
            k |= ALNUM;
        }
        if matches!(b, b',' | b'.' | b'!' | b'?' | b';' | b':') {
            k |= ANCHOR;
        }
        if b.is_ascii_alphabetic() {
            k |= LETTER;
        }
        t[i] = k;
        i += 1;
    }
    t
};

/// How the fast scanner takes a character outside ASCII, CJK and the
/// full-width forms, when it can.
enum Other {
    /// A Latin or Greek letter NFKC leaves alone, by its lowercase: it
    /// belongs to a word like an ASCII letter (`café`, `straße`, `β`).
    Letter(char),
    /// A sign that only separates units: those of [`is_fast_separator`],
    /// and Latin-1 signs such as `§` `©` `®` `°` `«` `»` that NFKC leaves
    /// alone (Unicode word boundaries give them the class `Other`).
    Separator,
    /// A compatibility form NFKC turns into one ASCII letter or digit
    /// (`①` → `1`, `²` → `2`, `ª` → `a`, `Ⅰ` → `i`), lowercased: it is that
    /// character to the word rules, as it is after the general path's NFKC.
    Ascii(u8),
}

/// [`Other`] for `code`, or `None` when the general normalizer must take
/// the snippet: compatibility forms of more than one character (`⑩`, `Ⅲ`,
/// `℃`), combining marks, other scripts. A character NFKC leaves alone on
/// its own stays so in any context unless a combining mark follows, and a
/// mark sends the snippet to the general path anyway; a form NFKC maps to
/// one ASCII character maps so in any context too (an ASCII character
/// composes with nothing before it).
fn other_char(code: u32) -> Option<Other> {
    let c = char::from_u32(code)?;
    if is_fast_separator(c) {
        return Some(Other::Separator);
    }
    let stable = || {
        unicode_normalization::is_nfkc_quick(std::iter::once(c))
            == unicode_normalization::IsNormalized::Yes
    };
    match code {
        0xC0..=0x24F | 0x370..=0x3FF if c.is_alphabetic() && stable() => {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) => Some(Other::Letter(l)),
                _ => None,
            }
        }
        // Not the soft hyphen: word boundaries skip it inside a word.
        0xA1..=0xBF if code != 0xAD && !c.is_alphanumeric() && stable() => Some(Other::Separator),
        _ if c.is_alphanumeric() && !stable() => {
            let mut nf = std::iter::once(c).nfkc();
            match (nf.next(), nf.next()) {
                (Some(a), None) if a.is_ascii_alphanumeric() => {
                    Some(Other::Ascii(a.to_ascii_lowercase() as u8))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The code point of the multi-byte UTF-8 sequence starting at `bytes[i]`
/// (valid: the bytes come from a `&str`), and its length.
#[inline]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let b0 = u32::from(bytes[i]);
    let cont = |j: usize| u32::from(bytes.get(i + j).copied().unwrap_or(0x80) & 0x3F);
    if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// Characters that are a unit each in `Unit::Char` mode: Han ideographs (and
/// the kana and Hangul syllables, which Unicode word boundaries would also
/// split or keep; we treat them like Han, one per unit).
#[inline]
pub(super) fn is_cjk(c: char) -> bool {
    is_cjk_code(c as u32)
}

/// [`is_cjk`] of a code point.
#[inline]
fn is_cjk_code(c: u32) -> bool {
    matches!(c,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2EBEF | 0xF900..=0xFAFF
        | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0xAC00..=0xD7A3)
}

/// The unit of a CJK character in `Unit::Char` mode: its code point. The
/// window hash mixes every unit in, and SimHash every pair of units, so a
/// hash of its own would only cost time (the bulk of a Chinese snippet is
/// such characters); words and jieba words are hashed, being strings.
#[inline]
pub(super) fn char_unit(c: u32) -> u64 {
    u64::from(c)
}

/// Hashes the run of common ideographs (U+4E00–U+9FFF, three bytes each)
/// at `bytes[i..]` into `units`, one unit each; returns where it stops.
/// The bulk of a Chinese snippet, without the scanner's per-character
/// dispatch.
///
/// `units` ends with the unit of the character just before the run (the
/// caller's CJK character), and with `keep` below `usize::MAX` only the
/// first and the last `keep` units of that stretch are pushed: no anchor
/// falls inside it, so a window of `keep` units on either side of an
/// anchor never reaches the middle of a longer stretch, and dropping the
/// middle leaves every window — every code — as it was (anchors are
/// positions in the units pushed). A Chinese clause runs ~10 characters
/// between marks: at `window = 2` most need no unit at all.
#[inline]
fn ideograph_run(bytes: &[u8], i: usize, units: &mut Vec<u64>, keep: usize) -> usize {
    let mut end = i;
    while let Some(&[b0, b1, _]) = bytes.get(end..end + 3) {
        // U+4E00 is E4 B8 80, U+9FFF is E9 BF BF.
        if !(0xE4..=0xE9).contains(&b0) || (b0 == 0xE4 && b1 < 0xB8) {
            break;
        }
        end += 3;
    }
    let unit_at = |k: usize| {
        let at = i + 3 * k;
        let (b0, b1, b2) = (bytes[at], bytes[at + 1], bytes[at + 2]);
        char_unit((u32::from(b0 & 0x0F) << 12) | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F))
    };
    let n = (end - i) / 3;
    // The stretch is the caller's unit and these `n`: its first `keep`
    // and last `keep` units, or all of them.
    let (head, tail) = if n < keep.saturating_mul(2) {
        (n, n)
    } else {
        (keep - 1, n - keep)
    };
    for k in 0..head {
        units.push(unit_at(k));
    }
    for k in tail..n {
        units.push(unit_at(k));
    }
    end
}

/// Hashes the run of ASCII word bytes (letters, digits, `_`) at `bytes[i..]`
/// into the word hash `h`, lowercased; returns where it stops, leaves the
/// class of the last byte in `last` and or-s all classes into `seen`.
#[inline]
fn ascii_word_run(
    bytes: &[u8],
    mut i: usize,
    h: &mut UnitHash,
    last: &mut u8,
    seen: &mut u8,
) -> usize {
    while let Some(&b) = bytes.get(i) {
        let k = ASCII_CLASS[usize::from(b & 0x7F)];
        if b >= 0x80 || k & WORD == 0 {
            break;
        }
        h.push(char::from(b.to_ascii_lowercase()));
        *last = k;
        *seen |= k;
        i += 1;
    }
    i
}

impl Extractor {
    /// Fills `self.stream` from `text`; with `keep` below `usize::MAX` the
    /// fast path may leave out units more than `keep` away from every
    /// anchor (see [`ideograph_run`]).
    pub(super) fn scan(&mut self, text: &str, unit: Unit, keep: usize) {
        self.stream.reset(self.word_anchors);
        if !self.scan_fast(text, unit, keep) {
            self.stream.reset(self.word_anchors);
            let mut normalized = std::mem::take(&mut self.normalized);
            normalized.clear();
            // Most snippets that reach here hold a letter such as `é` or `β`
            // that NFKC leaves alone: a quick check (a table lookup per
            // character) is then enough, and recomposition is skipped. ASCII
            // and Han need no lookup (both are NFKC starters, so leaving them
            // out can only turn a "yes" into a "maybe", never the reverse).
            let plain = |c: &char| c.is_ascii() || (0x4E00..=0x9FFF).contains(&u32::from(*c));
            if unicode_normalization::is_nfkc_quick(text.chars().filter(|c| !plain(c)))
                == unicode_normalization::IsNormalized::Yes
            {
                text.chars().for_each(|c| push_lower(&mut normalized, c));
            } else {
                text.nfkc().for_each(|c| push_lower(&mut normalized, c));
            }
            self.scan_general(&normalized, unit);
            self.normalized = normalized;
        }
    }

    /// ASCII, Han and full-width text, in one pass over the bytes: the
    /// normalization is a per-character map (full-width to ASCII, ASCII
    /// lowercase), and words follow the Unicode word-boundary rules that
    /// matter for ASCII (letters and digits, `_` joins, `.` `'` between
    /// letters or digits and `,` `;` between digits stay inside a word).
    /// Returns `false` at the first character that needs the general
    /// normalizer.
    pub(super) fn scan_fast(&mut self, text: &str, unit: Unit, keep: usize) -> bool {
        let bytes = text.as_bytes();
        let s = &mut self.stream;
        let mut h = UnitHash::new();
        let mut in_word = false;
        // A `.` `'` `,` `;` `·` right after a word character, waiting to see
        // whether the next character continues the word; `\0` for none.
        let mut pending = '\0';
        // The class of the word's last character.
        let mut last = 0u8;
        // The classes of all its characters, or-ed.
        let mut seen = 0u8;
        let mut run_start: Option<usize> = None;
        let mut i = 0;
        while i < bytes.len() {
            let at = i;
            let b = bytes[i];
            // One classification per character: CJK units are finished here,
            // everything else is mapped to the character the rules below see
            // and its class.
            let (c, k) = if b < 0x80 {
                i += 1;
                let c = b.to_ascii_lowercase();
                (char::from(c), ASCII_CLASS[usize::from(c)])
            } else {
                let (code, len) = decode(bytes, i);
                i += len;
                // The common ideographs first: one range test instead of the
                // seven-range match.
                if (0x4E00..=0x9FFF).contains(&code) || is_cjk_code(code) {
                    if in_word {
                        in_word = false;
                        s.word_of(h, seen);
                        if is_anchor(std::mem::take(&mut pending)) {
                            s.mark();
                        }
                    }
                    if unit == Unit::Word {
                        run_start.get_or_insert(at);
                    } else {
                        s.unit(char_unit(code));
                        i = ideograph_run(bytes, i, &mut s.units, keep);
                    }
                    continue;
                }
                match code {
                    // Full-width ASCII, by offset.
                    0xFF01..=0xFF5E => {
                        let c = ((code - 0xFEE0) as u8).to_ascii_lowercase();
                        (char::from(c), ASCII_CLASS[usize::from(c)])
                    }
                    // The ideographic and the no-break space (NFKC: a space).
                    0x3000 | 0xA0 => (' ', 0),
                    // `、` `。` `…`: anchors that never join a word, like `!`.
                    0x3001 | 0x3002 | 0x2026 => ('!', ANCHOR),
                    // The middle dot joins letters (`MidLetter`).
                    0xB7 => ('·', MID_LETTER),
                    // Typographic apostrophes: see [`push_lower`].
                    0x2018 | 0x2019 => ('\'', ASCII_CLASS[usize::from(b'\'')]),
                    _ => match other_char(code) {
                        Some(Other::Letter(l)) => (l, WORD | ALNUM | LETTER),
                        Some(Other::Separator) => (' ', 0),
                        Some(Other::Ascii(a)) => (char::from(a), ASCII_CLASS[usize::from(a)]),
                        None => return false,
                    },
                }
            };
            if let Some(start) = run_start.take() {
                push_jieba(s, &text[start..at]);
            }
            if in_word {
                if pending != '\0' {
                    let p = std::mem::take(&mut pending);
                    let joins = match p {
                        ',' | ';' => k & DIGIT != 0,
                        '·' => k & LETTER != 0,
                        _ => k & ALNUM != 0,
                    };
                    if joins {
                        h.push(p);
                        h.push(c);
                        last = k;
                        seen |= k;
                        continue;
                    }
                    in_word = false;
                    s.word_of(h, seen);
                    if is_anchor(p) {
                        s.mark();
                    }
                } else if k & WORD != 0 {
                    h.push(c);
                    last = k;
                    seen |= k;
                    i = ascii_word_run(bytes, i, &mut h, &mut last, &mut seen);
                    continue;
                } else if c == '.'
                    || c == '\''
                    || ((c == ',' || c == ';') && last & DIGIT != 0)
                    || (k & MID_LETTER != 0 && last & LETTER != 0)
                {
                    pending = c;
                    continue;
                } else {
                    in_word = false;
                    s.word_of(h, seen);
                }
            }
            if k & WORD != 0 {
                h = UnitHash::new();
                h.push(c);
                last = k;
                seen = k;
                in_word = true;
                i = ascii_word_run(bytes, i, &mut h, &mut last, &mut seen);
            } else if k & ANCHOR != 0 {
                s.mark();
            }
        }
        if in_word {
            s.word_of(h, seen);
            if is_anchor(pending) {
                s.mark();
            }
        }
        if let Some(start) = run_start {
            push_jieba(s, &text[start..]);
        }
        true
    }

    /// Any other text, already NFKC-normalized and lowercased: Unicode word
    /// boundaries from unicode-segmentation.
    pub(super) fn scan_general(&mut self, text: &str, unit: Unit) {
        let mut run = std::mem::take(&mut self.run);
        run.clear();
        for seg in text.split_word_bounds() {
            let mut cs = seg.chars();
            let first = cs.next().unwrap_or(' ');
            let single = cs.next().is_none();
            if single && is_cjk(first) {
                if unit == Unit::Word {
                    run.push(first);
                } else {
                    self.stream.unit(char_unit(u32::from(first)));
                }
                continue;
            }
            if !run.is_empty() {
                push_jieba(&mut self.stream, &run);
                run.clear();
            }
            if seg.chars().any(char::is_alphanumeric) {
                self.stream.word(hash_str(seg));
            } else if seg.chars().any(is_anchor) {
                self.stream.mark();
            }
        }
        if !run.is_empty() {
            push_jieba(&mut self.stream, &run);
            run.clear();
        }
        self.run = run;
    }
}

/// Pushes `c` lowercased, with the typographic apostrophes `‘` `’` folded
/// to `'`: sites print `don't` and `don’t` for the same text, and Unicode
/// word boundaries treat all three alike (between letters or digits they
/// join one word). `char::to_lowercase` searches a table of about 1,400
/// ranges; ASCII and CJK (the most of any snippet) skip it.
#[inline]
pub(super) fn push_lower(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if is_cjk(c) {
        out.push(c);
    } else if matches!(c, '\u{2018}' | '\u{2019}') {
        out.push('\'');
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Splits a run of CJK text into jieba words, one unit each. Built without
/// the `jieba` feature: one unit per character, exactly as `Unit::Char`.
pub(super) fn push_jieba(stream: &mut Stream, run: &str) {
    #[cfg(feature = "jieba")]
    for token in JIEBA.cut(run, false) {
        stream.unit(hash_str(token.word));
    }
    #[cfg(not(feature = "jieba"))]
    for c in run.chars() {
        stream.unit(char_unit(u32::from(c)));
    }
}
