//! Where in a snippet each feature code comes from — for people reading an
//! explanation, never for deduplication.
//!
//! A code hashes the `window` units on each side of an anchor; its *span* is
//! the stretch of the original snippet those units cover, anchor mark
//! included (`"learn javascript. start"` for window 2). The extractor does not
//! record where units are (that would cost the hot path a store per unit), so
//! the spans are found from outside: [`Extractor::codes_into`] gives the codes
//! and their anchors, and the extractor's unit count of growing prefixes of
//! the snippet — a unit is counted as soon as its first character is in the
//! prefix — tells where each unit starts. That costs a scan of a prefix per
//! candidate unit start, so only the first [`MAX_SPAN_BYTES`] of a snippet are
//! mapped; codes of windows past them get no span.

use std::ops::Range;

use super::{Extractor, FeatureCode, is_cjk};
use crate::Unit;

/// The longest stretch of a snippet whose code spans are found (engines'
/// snippets are a few hundred bytes).
pub const MAX_SPAN_BYTES: usize = 2048;

/// A feature code and the byte range of the snippet its window covers
/// (`None` past [`MAX_SPAN_BYTES`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSpan {
    /// The code, as [`Extractor::codes_into`] gives it.
    pub code: FeatureCode,
    /// Its window in the snippet, trimmed of surrounding spaces.
    pub span: Option<Range<usize>>,
}

impl Extractor {
    /// The codes of `snippet` (the same, in the same order, as
    /// [`Extractor::codes_into`]) with the part of the snippet each window
    /// covers. For explanations only: it scans the snippet once per unit.
    pub fn code_spans(&mut self, snippet: &str, window: usize, unit: Unit) -> Vec<CodeSpan> {
        let window = window.max(1);
        let mut codes = Vec::new();
        // Every unit: the spans need each one's place.
        self.codes_keeping(snippet, window, unit, &mut codes, usize::MAX);
        let n = self.stream.units.len();
        let windows: Vec<(usize, usize)> = self
            .stream
            .anchors
            .iter()
            .map(|&p| (p.saturating_sub(window), (p + window).min(n)))
            .collect();
        // starts[k]: where unit k begins; unknown past the mapped stretch.
        let mut limit = snippet.len().min(MAX_SPAN_BYTES);
        while !snippet.is_char_boundary(limit) {
            limit -= 1;
        }
        let mut starts: Vec<Option<usize>> = vec![None; n];
        let mut found = 0;
        let mut prev: Option<char> = None;
        for (b, c) in snippet[..limit].char_indices() {
            // Inside a word, a unit cannot start.
            let inside = prev.is_some_and(|p| p.is_alphanumeric() && !is_cjk(p))
                && c.is_alphanumeric()
                && !is_cjk(c);
            prev = Some(c);
            if inside || found >= n {
                continue;
            }
            let count = self.units(&snippet[..b + c.len_utf8()], unit).len();
            while found < n.min(count) {
                starts[found] = Some(b);
                found += 1;
            }
        }
        codes
            .into_iter()
            .zip(windows)
            .map(|(code, (lo, hi))| {
                let start = starts.get(lo).copied().flatten();
                let end = if hi >= n {
                    Some(snippet.len())
                } else {
                    starts[hi]
                };
                let span = match (start, end) {
                    (Some(s), Some(e)) if s < e => {
                        let text = &snippet[s..e];
                        let lead = text.len() - text.trim_start().len();
                        let trail = text.len() - text.trim_end().len();
                        Some(s + lead..e - trail)
                    }
                    _ => None,
                };
                CodeSpan { code, span }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &str, window: usize, unit: Unit) -> Vec<String> {
        Extractor::new()
            .with_word_anchors(0)
            .code_spans(s, window, unit)
            .into_iter()
            .map(|c| c.span.map_or("?".into(), |r| s[r].to_string()))
            .collect()
    }

    #[test]
    fn spans_cover_the_window_around_each_anchor() {
        let s = "Learn JavaScript now. Start with the basics, then build apps.";
        assert_eq!(
            spans(s, 2, Unit::Char),
            [
                "Learn JavaScript",
                "JavaScript now. Start with",
                "the basics, then build",
                "build apps."
            ]
        );
        // The codes are the extractor's own, in its order.
        let mut codes = Vec::new();
        Extractor::new().codes_into(s, 2, Unit::Char, &mut codes);
        let got: Vec<FeatureCode> = Extractor::new()
            .code_spans(s, 2, Unit::Char)
            .into_iter()
            .map(|c| c.code)
            .collect();
        assert_eq!(got, codes);
    }

    #[test]
    fn chinese_and_joined_words_map_to_their_characters() {
        assert_eq!(
            spans("百度百科，全球最大的中文百科全书。", 2, Unit::Char),
            ["百度", "百科，全球", "全书。"]
        );
        // Text the general (NFKC, word-boundary) scanner reads.
        assert_eq!(
            spans("Привет мир, как дела.", 1, Unit::Char),
            ["Привет", "мир, как", "дела."]
        );
        // `don't` and `3.14` are one unit each.
        assert_eq!(
            spans("I don't know, pi is 3.14 or so.", 1, Unit::Char),
            ["I", "know, pi", "so."]
        );
    }

    #[test]
    fn long_snippets_are_mapped_up_to_the_limit() {
        let long = "word, ".repeat(1000);
        let got = Extractor::new().code_spans(&long, 2, Unit::Char);
        assert!(got.first().is_some_and(|c| c.span.is_some()));
        assert!(got.last().is_some_and(|c| c.span.is_none()));
        assert!(Extractor::new().code_spans("", 2, Unit::Char).is_empty());
    }
}
