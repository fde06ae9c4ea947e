//! Slow, plain references the fast scanner of [`super::Extractor`] is
//! tested against (test builds only).

use super::scan::{
    ALNUM, ANCHOR, ASCII_CLASS, DIGIT, LETTER, MID_LETTER, Other, WORD, decode, is_cjk_code,
    other_char,
};
use super::{Extractor, UnitHash, char_unit, is_anchor, is_cjk, is_fast_separator, push_jieba};
use crate::Unit;

/// Characters NFKC leaves alone (or that the fast path maps itself), so a
/// snippet made only of them skips the general normalizer (what
/// [`Extractor::scan_fast`] accepts, spelled out for the tests).
pub(super) fn is_fast(c: char) -> bool {
    c.is_ascii()
        || is_cjk(c)
        || matches!(c as u32,
            0xFF01..=0xFF5E      // full-width ASCII: mapped by offset
            | 0x3000..=0x3002    // ideographic space, 、 and 。
            | 0x2026 // ellipsis
        )
        || is_fast_separator(c)
}

impl Extractor {
    /// The plain version of [`Extractor::scan_fast`], kept as the reference
    /// the one-pass scanner must agree with.
    pub(super) fn scan_fast_reference(&mut self, text: &str, unit: Unit) {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let norm = |c: char| -> char {
            let c = match c as u32 {
                0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                0x3000 => ' ',
                _ => c,
            };
            c.to_ascii_lowercase()
        };
        let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut i = 0;
        while i < chars.len() {
            let (start, raw) = chars[i];
            let c = norm(raw);
            if word_char(c) {
                let mut h = UnitHash::new();
                h.push(c);
                // A lone `_` is no word (no letter or digit).
                let mut alnum = c.is_ascii_alphanumeric();
                i += 1;
                while i < chars.len() {
                    let c = norm(chars[i].1);
                    if word_char(c) {
                        h.push(c);
                        alnum |= c.is_ascii_alphanumeric();
                        i += 1;
                        continue;
                    }
                    let joins = match c {
                        '.' | '\'' => true,
                        ',' | ';' => chars
                            .get(i.wrapping_sub(1))
                            .is_some_and(|p| norm(p.1).is_ascii_digit()),
                        _ => false,
                    };
                    let next = chars.get(i + 1).map(|n| norm(n.1));
                    let next_ok = match c {
                        ',' | ';' => next.is_some_and(|n| n.is_ascii_digit()),
                        _ => next.is_some_and(|n| n.is_ascii_alphanumeric()),
                    };
                    if joins && next_ok {
                        h.push(c);
                        i += 1;
                    } else {
                        break;
                    }
                }
                if alnum {
                    self.stream.word(h.finish());
                }
            } else if is_cjk(c) {
                if unit == Unit::Word {
                    let mut end = i;
                    while end < chars.len() && is_cjk(chars[end].1) {
                        end += 1;
                    }
                    let stop = chars.get(end).map_or(text.len(), |e| e.0);
                    push_jieba(&mut self.stream, &text[start..stop]);
                    i = end;
                } else {
                    self.stream.unit(char_unit(u32::from(c)));
                    i += 1;
                }
            } else {
                if is_anchor(c) {
                    self.stream.mark();
                }
                i += 1;
            }
        }
    }

    /// The one-pass scanner as it was before its separate word, ideograph
    /// and Chinese-mark loops (every unit kept: `keep = usize::MAX`), kept
    /// verbatim as the reference the faster one must match bit for bit — it
    /// decides every word boundary exactly as shipped, including where the
    /// general path's Unicode rules differ (`a.7` is one word here).
    pub(super) fn scan_fast_previous(&mut self, text: &str, unit: Unit) -> bool {
        // `℃` `℉` as NFKC has them, a sign and a letter: the sign (`°`,
        // a Latin-1 separator) and the letter are then characters of their
        // own here.
        let spelled;
        let text = if text.contains(['\u{2103}', '\u{2109}']) {
            spelled = text
                .replace('\u{2103}', "\u{b0}C")
                .replace('\u{2109}', "\u{b0}F");
            spelled.as_str()
        } else {
            text
        };
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
                        s.word_of(h, seen & ALNUM != 0);
                        if is_anchor(std::mem::take(&mut pending)) {
                            s.mark();
                        }
                    }
                    if unit == Unit::Word {
                        run_start.get_or_insert(at);
                    } else {
                        s.unit(char_unit(code));
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
                        // Spelled out before the loop.
                        Some(Other::SignThenLetter(_)) => return false,
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
                    s.word_of(h, seen & ALNUM != 0);
                    if is_anchor(p) {
                        s.mark();
                    }
                } else if k & WORD != 0 {
                    h.push(c);
                    last = k;
                    seen |= k;
                    i = previous_word_run(bytes, i, &mut h, &mut last, &mut seen);
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
                    s.word_of(h, seen & ALNUM != 0);
                }
            }
            if k & WORD != 0 {
                h = UnitHash::new();
                h.push(c);
                last = k;
                seen = k;
                in_word = true;
                i = previous_word_run(bytes, i, &mut h, &mut last, &mut seen);
            } else if k & ANCHOR != 0 {
                s.mark();
            }
        }
        if in_word {
            s.word_of(h, seen & ALNUM != 0);
            if is_anchor(pending) {
                s.mark();
            }
        }
        if let Some(start) = run_start {
            push_jieba(s, &text[start..]);
        }
        true
    }
}

/// The previous scanner's word loop: the run of ASCII word bytes at
/// `bytes[i..]` into `h`, lowercased; the class of the last byte in `last`,
/// all classes or-ed into `seen`.
fn previous_word_run(
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
