//! The bounds on what one record costs, whatever an engine sends.
//!
//! Engines show people a title of a line and a snippet of a few lines
//! (under 1 KB in every real answer the team has: DuReader's longest
//! snippet is 882 bytes, AG News' longest description 830). A hostile or
//! broken engine can send megabytes in one field, and text that repeats
//! (`"a, b. c; d! "` over and over) makes every code of a record the same
//! few codes. Two bounds hold the work of a record linear in its bytes:
//!
//! - **Length.** A title is read up to [`MAX_TITLE_BYTES`], a snippet up
//!   to [`MAX_SNIPPET_BYTES`] ([`clip`]), before any feature, hash or
//!   normalized form is computed: every method (feature codes, SimHash,
//!   Rabin) and every entry point (the deduper, the pair score, so the lab
//!   and `metasift dedup`) sees the clipped text.
//! - **Repeats.** A code is counted at most [`MAX_REPEATS`] times in one
//!   record ([`cap_repeats`]): its `j`-th occurrence counts for `j` up to
//!   the cap, so a kept record's postings hold at most that many entries
//!   per code, and the shared-code count walks each code's postings once.

use crate::Doc;
use crate::features::FeatureCode;

/// The longest snippet read, in bytes (a few times what any engine shows).
pub const MAX_SNIPPET_BYTES: usize = 4096;

/// The longest title read, in bytes.
pub const MAX_TITLE_BYTES: usize = 1024;

/// The most times one feature code (or Rabin block) counts in one record.
pub const MAX_REPEATS: usize = 8;

/// How far back from the limit [`clip`] looks for a word's end.
const BOUNDARY_WINDOW: usize = 64;

/// `text` up to `max` bytes: whole when it fits, else cut at a character
/// boundary, and at the end of a word (after a space or punctuation) when
/// one lies in the last 64 bytes before the limit.
#[inline]
pub fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    clip_long(text, max)
}

/// [`clip`] of a text past the limit (rare: out of line).
#[inline(never)]
fn clip_long(text: &str, max: usize) -> &str {
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let floor = end.saturating_sub(BOUNDARY_WINDOW);
    let word_end = head
        .char_indices()
        .rev()
        .take_while(|&(i, _)| i >= floor)
        .find(|&(_, c)| c.is_whitespace() || !c.is_alphanumeric())
        .map(|(i, c)| i + c.len_utf8());
    &text[..word_end.unwrap_or(end)]
}

/// A snippet as the stages read it.
#[inline]
pub fn clip_snippet(snippet: &str) -> &str {
    clip(snippet, MAX_SNIPPET_BYTES)
}

/// A title as the stages read it.
#[inline]
pub fn clip_title(title: &str) -> &str {
    clip(title, MAX_TITLE_BYTES)
}

/// `doc` with its title and snippet clipped.
#[inline]
pub(crate) fn clip_doc(doc: Doc<'_>) -> Doc<'_> {
    Doc {
        title: clip_title(doc.title),
        snippet: clip_snippet(doc.snippet),
        ..doc
    }
}

/// Drops from `codes` (sorted) every occurrence of a code past its
/// [`MAX_REPEATS`]-th, keeping the order.
#[inline]
pub(crate) fn cap_repeats(codes: &mut Vec<FeatureCode>) {
    if codes.len() <= MAX_REPEATS {
        return;
    }
    cap_long(codes);
}

#[inline(never)]
fn cap_long(codes: &mut Vec<FeatureCode>) {
    // Sorted: a code held more than `MAX_REPEATS` times equals the one
    // `MAX_REPEATS` places before it somewhere. Most records have none: one
    // pass of compares, no writes.
    let over = codes[MAX_REPEATS..]
        .iter()
        .zip(codes.iter())
        .position(|(a, b)| a == b);
    let Some(first) = over else {
        return;
    };
    // Compact from there: a code kept `MAX_REPEATS` times already is the
    // one kept that many places before.
    let mut w = MAX_REPEATS + first;
    for r in MAX_REPEATS + first..codes.len() {
        let c = codes[r];
        if codes[w - MAX_REPEATS] != c {
            codes[w] = c;
            w += 1;
        }
    }
    codes.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_at_a_word_end() {
        assert_eq!(clip("short", 10), "short");
        let text = "alpha beta gamma delta";
        assert_eq!(clip(text, 13), "alpha beta ");
        // No word end in reach: a character boundary.
        let long = "x".repeat(200);
        assert_eq!(clip(&long, 100).len(), 100);
        // Never inside a character.
        let cjk = "据新华社报道".repeat(100);
        for max in 0..40 {
            let c = clip(&cjk, max);
            assert!(c.len() <= max && cjk.starts_with(c));
        }
        assert_eq!(clip("据新华社，报道消息", 20), "据新华社，");
    }

    proptest! {
        #[test]
        fn clip_is_a_prefix_within_the_limit(text in "\\PC{0,300}", max in 0usize..400) {
            let c = clip(&text, max);
            prop_assert!(c.len() <= max);
            prop_assert!(text.starts_with(c));
            if text.len() <= max {
                prop_assert_eq!(c, text.as_str());
            } else {
                prop_assert!(c.len() + BOUNDARY_WINDOW + 4 > max);
            }
        }

        #[test]
        fn cap_repeats_keeps_each_code_at_most_the_cap(mut xs in proptest::collection::vec(0u64..5, 0..60)) {
            xs.sort_unstable();
            let mut codes: Vec<FeatureCode> = xs.iter().map(|&x| FeatureCode(x)).collect();
            cap_repeats(&mut codes);
            let want: Vec<FeatureCode> = xs
                .chunk_by(|a, b| a == b)
                .flat_map(|r| r.iter().take(MAX_REPEATS).map(|&x| FeatureCode(x)))
                .collect();
            prop_assert_eq!(codes, want);
        }
    }
}
