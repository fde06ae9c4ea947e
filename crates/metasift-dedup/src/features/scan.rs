//! The scanners that turn a snippet into its unit stream: the one-pass fast
//! path over ASCII, CJK and the full-width forms, and the general path (NFKC,
//! lowercase, Unicode word boundaries) it falls back to. What they produce
//! and why is in the [module docs](super).

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

#[cfg(feature = "jieba")]
use super::JIEBA;
use super::chinese::{LastStops, chinese_at};
use super::hash_str;
use super::words::ascii_word_run;
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
///
/// In the arrow, math, box-drawing and symbol blocks (U+2190–U+22FF,
/// U+2500–U+26FF) that is every character but `∬` `∭` `∯` `∰`, which NFKC
/// turns into two or three integrals: spelled out, since asking Unicode
/// tables (`char::is_alphanumeric` walks its ranges) cost ~700 instructions
/// a character (`→` is common in Chinese snippets). A test checks it
/// against that definition ([`is_fast_separator_by_tables`]).
#[inline]
pub(super) fn is_fast_separator(c: char) -> bool {
    match c as u32 {
        code if is_plain_separator(code) => true,
        0x222C | 0x222D | 0x222F | 0x2230 => false,
        0x2190..=0x22FF | 0x2500..=0x26FF => true,
        _ => false,
    }
}

/// [`is_fast_separator`] by its definition: a plain separator, or a sign of
/// those blocks that is no letter or digit and that NFKC leaves alone.
#[cfg(test)]
pub(super) fn is_fast_separator_by_tables(c: char) -> bool {
    match c as u32 {
        code if is_plain_separator(code) => true,
        0x2190..=0x21FF | 0x2200..=0x22FF | 0x2500..=0x25FF | 0x2600..=0x26FF => {
            !c.is_alphanumeric()
                && unicode_normalization::is_nfkc_quick(std::iter::once(c))
                    == unicode_normalization::IsNormalized::Yes
        }
        _ => false,
    }
}

/// The [`is_fast_separator`] signs that need no table: quotes (`“` `”`),
/// dashes, bullets, the CJK brackets (`《》` `【】` `「」`), `×` `÷`.
#[inline]
pub(super) const fn is_plain_separator(code: u32) -> bool {
    matches!(code,
        0x201A..=0x201D | 0x2013 | 0x2014 | 0x2022 | 0x2030 | 0x2039 | 0x203A
        | 0x300A..=0x3011 | 0x3014..=0x3017 | 0xD7 | 0xF7)
}

/// Classes of an ASCII byte for the fast scanner, one table lookup for all.
pub(super) const WORD: u8 = 1;
pub(super) const DIGIT: u8 = 2;
pub(super) const ALNUM: u8 = 4;
pub(super) const ANCHOR: u8 = 8;
pub(super) const LETTER: u8 = 16;
/// `·`: joins two letters into one word, like `'` (Unicode's `MidLetter`).
pub(super) const MID_LETTER: u8 = 32;
/// Only from [`map_other`], never in [`ASCII_CLASS`]: a sign and an ASCII
/// letter after it (`℃` → `°c`, see [`Other::SignThenLetter`]). To the
/// word rules inside a word it is the sign (the word ends); the main loop
/// then starts a word at the letter.
pub(super) const SIGN_THEN_LETTER: u8 = 64;

/// [`WORD`] (letter, digit or `_`), [`DIGIT`], [`ALNUM`], [`ANCHOR`] and
/// [`LETTER`] per ASCII byte.
pub(super) static ASCII_CLASS: [u8; 128] = {
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

/// What the fast scanner's main loop does with the byte that starts a
/// character: one table lookup and one jump. Continuation bytes never start
/// a character (the text is a `&str`).
const B_SEPARATOR: u8 = 0;
/// An ASCII letter, digit or `_`: a word starts.
const B_WORD: u8 = 1;
/// `,` `.` `!` `?` `;` `:` outside a word.
const B_ANCHOR: u8 = 2;
/// `E4`–`E9`, the lead byte of U+4000–U+9FFF: mostly the common ideographs.
const B_HAN: u8 = 3;
/// The lead byte of any other character.
const B_OTHER: u8 = 4;

/// [`B_SEPARATOR`] … [`B_OTHER`] per byte.
static BYTE_KIND: [u8; 256] = {
    let mut t = [B_OTHER; 256];
    let mut i = 0;
    while i < 128 {
        let k = ASCII_CLASS[i];
        t[i] = if k & WORD != 0 {
            B_WORD
        } else if k & ANCHOR != 0 {
            B_ANCHOR
        } else {
            B_SEPARATOR
        };
        i += 1;
    }
    let mut b = 0xE4;
    while b <= 0xE9 {
        t[b] = B_HAN;
        b += 1;
    }
    t
};

/// An ASCII word byte (letter, digit, `_`) lowercased; `0` for every other
/// byte: the word loop's one lookup per byte.
pub(super) static WORD_LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 128 {
        if ASCII_CLASS[i] & WORD != 0 {
            t[i] = (i as u8).to_ascii_lowercase();
        }
        i += 1;
    }
    t
};

/// How the fast scanner takes a character outside ASCII, CJK and the
/// full-width forms, when it can.
pub(super) enum Other {
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
    /// `℃` and `℉`, which NFKC turns into `°` and a capital letter: a sign
    /// that separates, then the letter (lowercased), which starts a word
    /// (`25℃` is the words `25` and `c`, `℃abc` the word `cabc`).
    SignThenLetter(u8),
}

/// [`Other`] for `code`, or `None` when the general normalizer must take
/// the snippet: compatibility forms of more than one character (`⑩`, `Ⅲ`,
/// `℃`), combining marks, other scripts. A character NFKC leaves alone on
/// its own stays so in any context unless a combining mark follows, and a
/// mark sends the snippet to the general path anyway; a form NFKC maps to
/// one ASCII character maps so in any context too (an ASCII character
/// composes with nothing before it).
pub(super) fn other_char(code: u32) -> Option<Other> {
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
        // The full-width cent, pound, not, broken bar and yen signs: NFKC
        // turns each into its Latin-1 sign above (`￥` → `¥`), in any
        // context (a sign composes with nothing before it).
        0xFFE0 | 0xFFE1 | 0xFFE2 | 0xFFE4 | 0xFFE5 => Some(Other::Separator),
        // `°` composes with nothing before it, and a combining mark after
        // the letter sends the snippet to the general path anyway.
        0x2103 => Some(Other::SignThenLetter(b'c')),
        0x2109 => Some(Other::SignThenLetter(b'f')),
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
pub(super) fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
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
pub(super) fn is_cjk_code(c: u32) -> bool {
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

/// Whether a character starting with the bytes `b0 b1` is a common
/// ideograph (U+4E00 is E4 B8 80, U+9FFF is E9 BF BF): one comparison of
/// the two bytes. Every loop that reads ideographs asks this, so they agree.
#[inline]
fn is_ideograph(b0: u8, b1: u8) -> bool {
    u16::from_be_bytes([b0, b1]).wrapping_sub(0xE4B8) <= 0xE9BF - 0xE4B8
}

/// The code point of the three-byte UTF-8 sequence `b0 b1 b2` (a lead byte
/// `1110xxxx` and two continuation bytes `10xxxxxx`: their marker bits are
/// subtracted at once). Other bytes give a meaningless value, never a
/// panic (the subtraction wraps, even in a debug build).
#[inline]
pub(super) fn ideograph_code(b0: u8, b1: u8, b2: u8) -> u32 {
    ((u32::from(b0) << 12) + (u32::from(b1) << 6) + u32::from(b2)).wrapping_sub(0xE2080)
}

/// Where the run of CJK characters at `bytes[i..]` ends.
fn cjk_run_end(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|&b| b >= 0x80) {
        let (code, len) = decode(bytes, i);
        if !is_cjk_code(code) {
            break;
        }
        i += len;
    }
    i
}

/// Pushes the units of the run of common ideographs (U+4E00–U+9FFF, three
/// bytes each) at `bytes[i..]`, one each; returns where the run stops.
/// The bulk of a Chinese snippet, without the scanner's per-character
/// dispatch.
///
/// The run, with the `lead` units just before it (`0` or `1`: a CJK
/// character the caller pushed), is a stretch of CJK units with no anchor
/// inside; with `keep` below `usize::MAX` only its first and its last
/// `keep` units are pushed: a window of `keep` units on either side of an
/// anchor never reaches the middle of a longer stretch, so dropping the
/// middle leaves every window — every code — as it was (anchors are
/// positions in the units pushed). A Chinese clause runs ~10 characters
/// between marks: at `window = 2` most need no unit at all.
#[inline]
fn ideograph_run(bytes: &[u8], i: usize, units: &mut Vec<u64>, keep: usize, lead: usize) -> usize {
    let rest = bytes.get(i..).unwrap_or_default();
    let len = ideograph_run_len(rest);
    let run = &rest[..len];
    // The shipped windows (`keep` is the window) as constants: a fixed
    // number of slots written, with no branch on the run's length.
    match keep {
        1 => push_run::<1>(run, lead, units),
        2 => push_run::<2>(run, lead, units),
        3 => push_run::<3>(run, lead, units),
        4 => push_run::<4>(run, lead, units),
        _ => push_ends_any(run.as_chunks::<3>().0, keep, lead, units),
    }
    i + len
}

/// The length in bytes of the run of common ideographs at the start of
/// `rest`, three characters a step.
#[inline]
fn ideograph_run_len(rest: &[u8]) -> usize {
    let ideograph = |c: &[u8]| is_ideograph(c[0], c[1]);
    let mut len = 0;
    let mut triples = rest.chunks_exact(9);
    loop {
        let Some(c) = triples.next() else {
            while rest.get(len..len + 3).is_some_and(ideograph) {
                len += 3;
            }
            return len;
        };
        if !ideograph(c) {
            return len;
        }
        if !ideograph(&c[3..]) {
            return len + 3;
        }
        if !ideograph(&c[6..]) {
            return len + 6;
        }
        len += 9;
    }
}

/// [`push_run`] by characters: the first `K - lead` and the last `K` of
/// the run's `chars`, or all of them when they are no more (the reference
/// the tests hold it to).
#[cfg(test)]
pub(super) fn push_ends<const K: usize>(chars: &[[u8; 3]], lead: usize, units: &mut Vec<u64>) {
    let n = chars.len();
    let Some(last) = n.checked_sub(1) else {
        return;
    };
    let kept = 2 * K - lead;
    let skip = n.saturating_sub(kept);
    let mut slots = [0u64; 8];
    for (j, slot) in slots[..2 * K].iter_mut().enumerate() {
        let at = if j + lead >= K { j + skip } else { j };
        let [b0, b1, b2] = chars[at.min(last)];
        *slot = char_unit(ideograph_code(b0, b1, b2));
    }
    let base = units.len();
    units.extend_from_slice(&slots[..2 * K]);
    units.truncate(base + n.min(kept));
}

/// The units of a run of common ideographs for `keep = K` (`run`: whole
/// ideographs, three bytes each), after `lead` (0 or 1) units of its
/// stretch already pushed: the first `K - lead` and the last `K` of its
/// characters, or all of them when they are no more. All `2 K` slots are
/// computed (a slot past the run repeats its last character) and written
/// at once, then the vector is cut to the units kept: no branch on the
/// run's length, no capacity check per unit. The slots are byte offsets,
/// so the run's length in characters (a division by three) is only needed
/// for how many units are kept.
#[inline(always)]
pub(super) fn push_run<const K: usize>(run: &[u8], lead: usize, units: &mut Vec<u64>) {
    let len = run.len();
    let Some(last) = len.checked_sub(3) else {
        return;
    };
    let kept = 2 * K - lead;
    let mut slots = [0u64; 8];
    for (j, slot) in slots[..2 * K].iter_mut().enumerate() {
        // Slot `j < K - lead`: character `j`; the others: character
        // `n - kept + j`, or `j` when the run has no more than `kept`.
        let o = if j + lead < K {
            3 * j
        } else {
            (len + 3 * (j + lead)).saturating_sub(6 * K).max(3 * j)
        }
        .min(last);
        let [b0, b1, b2] = [run[o], run[o + 1], run[o + 2]];
        *slot = char_unit(ideograph_code(b0, b1, b2));
    }
    let base = units.len();
    units.extend_from_slice(&slots[..2 * K]);
    units.truncate(base + len.min(3 * kept) / 3);
}

/// [`push_run`] for any `keep` (`usize::MAX`: every unit), by characters.
pub(super) fn push_ends_any(chars: &[[u8; 3]], keep: usize, lead: usize, units: &mut Vec<u64>) {
    let n = chars.len();
    let mut push = |part: &[[u8; 3]]| {
        units.extend(
            part.iter()
                .map(|&[b0, b1, b2]| char_unit(ideograph_code(b0, b1, b2))),
        );
    };
    if lead + n <= keep.saturating_mul(2) {
        push(chars);
    } else {
        push(&chars[..keep - lead]);
        push(&chars[n - keep..]);
    }
}

/// The character the word rules see for the non-ASCII, non-CJK `code` and
/// its class; `None` when the general normalizer must take the snippet.
#[inline]
fn map_other(code: u32) -> Option<(char, u8)> {
    Some(match code {
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
        // Quotes, dashes, brackets: the common separators of Chinese text.
        _ if is_plain_separator(code) => (' ', 0),
        _ => match other_char(code)? {
            Other::Letter(l) => (l, WORD | ALNUM | LETTER),
            Other::Separator => (' ', 0),
            Other::Ascii(a) => (char::from(a), ASCII_CLASS[usize::from(a)]),
            Other::SignThenLetter(l) => (char::from(l), SIGN_THEN_LETTER),
        },
    })
}

/// The character at `bytes[i]` as the word rules see it (lowercased,
/// full-width folded), its class and its length; CJK characters and those
/// the fast path cannot take are separators here (the main loop meets them
/// next). `None` at the end of the text.
#[inline]
fn mapped_at(bytes: &[u8], i: usize) -> Option<(char, u8, usize)> {
    let b = *bytes.get(i)?;
    if b < 0x80 {
        let c = b.to_ascii_lowercase();
        return Some((char::from(c), ASCII_CLASS[usize::from(c)], 1));
    }
    Some(mapped_multi(bytes, i))
}

/// [`mapped_at`] of a character outside ASCII: rare inside a word, so out
/// of line.
#[inline(never)]
fn mapped_multi(bytes: &[u8], i: usize) -> (char, u8, usize) {
    let (code, len) = decode(bytes, i);
    if is_cjk_code(code) {
        return (' ', 0, len);
    }
    let (c, k) = map_other(code).unwrap_or((' ', 0));
    (c, k, len)
}

/// Reads the rest of a word at `bytes[i..]`: `h` holds the hash of its
/// characters so far, `last` the class of the last one, and `alnum` whether
/// any is a letter or digit (a lone `_` is a segment of its own under
/// Unicode word boundaries, and no word). Pushes the word, and the anchor
/// of a mark right after it; returns where the main loop goes on.
///
/// A `.` `'` `,` `;` `·` after a word character joins the word when the
/// character after it continues the word (a digit after `,` `;`, a letter
/// after `·`, a letter or digit after `.` `'`; `,` `;` only after a digit,
/// `·` only after a letter) — the Unicode word-boundary rules that matter
/// for ASCII. Otherwise the word ends, and the mark is an anchor if it is
/// one.
#[inline(always)]
fn word_at(
    s: &mut Stream,
    bytes: &[u8],
    mut i: usize,
    mut h: UnitHash,
    mut last: u8,
    mut alnum: bool,
) -> usize {
    'words: loop {
        let start = i;
        i = ascii_word_run(bytes, i, &mut h);
        if !alnum && i > start {
            alnum = bytes[start..i].iter().any(|&b| b != b'_');
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let (c, k, len) = if b < 0x80 {
            // Not a word byte: a joiner or the word's end.
            if !matches!(b, b'.' | b'\'' | b',' | b';') {
                // A space and another word, English's most common step,
                // without the main loop.
                if b == b' '
                    && let Some(&next) = bytes.get(i + 1)
                    && WORD_LOWER[usize::from(next)] != 0
                {
                    s.word_of(h, alnum);
                    h = UnitHash::new();
                    alnum = next != b'_';
                    i += 1;
                    continue 'words;
                }
                break;
            }
            (char::from(b), 0, 1)
        } else {
            // Most often an ideograph after a number in Chinese text.
            if bytes.get(i + 1).is_some_and(|&b1| is_ideograph(b, b1)) {
                break;
            }
            let (c, k, len) = mapped_multi(bytes, i);
            if k & WORD != 0 {
                // A word character from outside ASCII (`ａ`, `é`, `①`).
                h.push(c);
                last = k;
                alnum |= k & ALNUM != 0;
                i += len;
                continue;
            }
            (c, k, len)
        };
        // The class of the word's last character: the run's last byte, or
        // what was pushed before an empty run.
        if i > start {
            last = ASCII_CLASS[usize::from(bytes[i - 1] & 0x7F)];
        }
        let joiner = match c {
            '.' | '\'' => true,
            ',' | ';' => last & DIGIT != 0,
            _ => k & MID_LETTER != 0 && last & LETTER != 0,
        };
        if !joiner {
            break;
        }
        let after = i + len;
        let (next, nk, nlen) = mapped_at(bytes, after).unwrap_or((' ', 0, 0));
        let joins = match c {
            ',' | ';' => nk & DIGIT != 0,
            '·' => nk & LETTER != 0,
            _ => nk & ALNUM != 0,
        };
        if joins {
            h.push(c);
            h.push(next);
            last = nk;
            alnum = true;
            i = after + nlen;
            continue;
        }
        s.word_of(h, alnum);
        if is_anchor(c) {
            s.mark();
        }
        return after;
    }
    s.word_of(h, alnum);
    i
}

impl Extractor {
    /// Fills `self.stream` from `text`; with `keep` below `usize::MAX` the
    /// fast path may leave out units more than `keep` away from every
    /// anchor (see [`ideograph_run`]).
    pub(super) fn scan(&mut self, text: &str, unit: Unit, keep: usize) {
        self.stream.reset(self.word_anchors);
        if !self.scan_fast(text, unit, keep) {
            self.scan_slow(text, unit);
        }
    }

    /// The general path for `text` (see [`Extractor::scan_general`]), on
    /// the few snippets the fast path leaves: out of line, so its iterators
    /// do not crowd the fast scanner's registers.
    #[cold]
    #[inline(never)]
    fn scan_slow(&mut self, text: &str, unit: Unit) {
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

    /// ASCII, Han and full-width text, in one pass over the bytes: the
    /// normalization is a per-character map (full-width to ASCII, ASCII
    /// lowercase), and words follow the Unicode word-boundary rules that
    /// matter for ASCII (letters and digits, `_` joins, `.` `'` between
    /// letters or digits and `,` `;` between digits stay inside a word).
    /// Returns `false` at the first character that needs the general
    /// normalizer.
    ///
    /// The loop dispatches on the first byte of each character outside a
    /// word; a word is read to its end by [`word_at`] and a run of common
    /// ideographs by [`ideograph_run`], each in a loop of its own.
    pub(super) fn scan_fast(&mut self, text: &str, unit: Unit, keep: usize) -> bool {
        let bytes = text.as_bytes();
        let s = &mut self.stream;
        let mut last = LastStops::NONE;
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match BYTE_KIND[usize::from(b)] {
                B_SEPARATOR => i += 1,
                B_WORD => i = word_at(s, bytes, i, UnitHash::new(), 0, b != b'_'),
                B_ANCHOR => {
                    s.mark();
                    i += 1;
                }
                kind => {
                    // A common ideograph (U+4E00–U+9FFF: E4 B8 80 to E9 BF
                    // BF) needs no general decoding.
                    if kind == B_HAN
                        && unit == Unit::Char
                        && bytes.get(i + 1).is_some_and(|&b1| is_ideograph(b, b1))
                    {
                        // The shipped windows as constants (see `push_run`).
                        i = match keep {
                            1 => chinese_at::<1>(s, bytes, i, keep, &mut last),
                            2 => chinese_at::<2>(s, bytes, i, keep, &mut last),
                            3 => chinese_at::<3>(s, bytes, i, keep, &mut last),
                            4 => chinese_at::<4>(s, bytes, i, keep, &mut last),
                            _ => chinese_at::<0>(s, bytes, i, keep, &mut last),
                        };
                        continue;
                    }
                    let (code, len) = decode(bytes, i);
                    if is_cjk_code(code) {
                        if unit == Unit::Word {
                            let end = cjk_run_end(bytes, i + len);
                            push_jieba(s, &text[i..end]);
                            i = end;
                        } else {
                            s.unit(char_unit(code));
                            i = ideograph_run(bytes, i + len, &mut s.units, keep, 1);
                        }
                        continue;
                    }
                    let Some((c, k)) = map_other(code) else {
                        return false;
                    };
                    if k & (WORD | SIGN_THEN_LETTER) != 0 {
                        // A word character, or a sign and the letter that
                        // starts a word (`℃`: `c`, a letter).
                        let k = match k & WORD {
                            0 => ASCII_CLASS[usize::from(c as u8 & 0x7F)],
                            _ => k,
                        };
                        let mut h = UnitHash::new();
                        h.push(c);
                        i = word_at(s, bytes, i + len, h, k, k & ALNUM != 0);
                    } else {
                        if k & ANCHOR != 0 {
                            s.mark();
                        }
                        i += len;
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Ideographs at both ends of the common range and inside it.
    const IDEOGRAPHS: &[char] = &['\u{4e00}', '\u{4e01}', '中', '文', '\u{9fff}', '\u{8000}'];

    /// The characters NFKC turns into one Latin-1 sign that only
    /// separates (`0xA1..=0xBF`, not the soft hyphen or the middle dot,
    /// no letter or digit) are those `other_char` takes as the sign.
    #[test]
    fn full_width_signs_are_all_the_forms_of_latin1_signs() {
        let mut forms = Vec::new();
        for c in (0..0x11_0000).filter_map(char::from_u32) {
            let mut nf = std::iter::once(c).nfkc();
            if let (Some(a), None) = (nf.next(), nf.next())
                && a != c
                && matches!(a as u32, 0xA1..=0xBF)
                && !matches!(a, '\u{ad}' | '\u{b7}')
                && !a.is_alphanumeric()
            {
                forms.push(c as u32);
                assert!(
                    matches!(other_char(c as u32), Some(Other::Separator)),
                    "U+{:04X}",
                    c as u32
                );
            }
        }
        assert_eq!(forms, [0xFFE0, 0xFFE1, 0xFFE2, 0xFFE4, 0xFFE5]);
    }

    #[test]
    fn fast_separators_are_those_of_the_definition() {
        for c in (0..0x11_0000).filter_map(char::from_u32) {
            assert_eq!(
                is_fast_separator(c),
                is_fast_separator_by_tables(c),
                "U+{:04X}",
                c as u32
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The byte-offset pick of a run's ends keeps the units the
        /// character pick keeps, for every shipped window and run length,
        /// after units already pushed.
        #[test]
        fn run_ends_by_offset_are_the_character_ends(
            chars in proptest::collection::vec(proptest::sample::select(IDEOGRAPHS), 0..20),
            before in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..3),
            lead in 0..2usize,
        ) {
            let run: String = chars.iter().collect();
            let (triples, rest) = run.as_bytes().as_chunks::<3>();
            proptest::prop_assert!(rest.is_empty());
            macro_rules! check {
                ($k:literal) => {{
                    let (mut a, mut b) = (before.clone(), before.clone());
                    push_run::<$k>(run.as_bytes(), lead, &mut a);
                    push_ends::<$k>(triples, lead, &mut b);
                    proptest::prop_assert_eq!(&a, &b, "K = {}", $k);
                }};
            }
            check!(1);
            check!(2);
            check!(3);
            check!(4);
        }
    }
}
