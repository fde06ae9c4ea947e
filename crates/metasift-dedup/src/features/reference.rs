//! Slow, plain references the fast scanner of [`super::Extractor`] is
//! tested against (test builds only).

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
}
