//! Punctuation-anchored snippet feature codes (the seed paper's method).
//!
//! A snippet is cut into *units* — CJK characters (or jieba words with
//! [`Unit::Word`]) and, in every other script, words found by Unicode word
//! boundaries — after normalization (NFKC, which folds full-width forms to
//! half-width, then lowercase). Punctuation marks are *anchors*. At each
//! anchor the `window` units before it and the `window` units after it are
//! hashed together: one [`FeatureCode`]. The snippet's codes, in order, are
//! its *feature string*.
//!
//! Decisions, and why:
//!
//! - **Anchors** are `，。！？；：,.!?;:`, the ellipses `…` / `...`, and the
//!   ideographic comma `、`. `、` separates the items of a Chinese list exactly
//!   where English puts `,`; leaving it out would make a Chinese list one long
//!   clause while its translation gets an anchor per item. Quotes, brackets,
//!   dashes, `|` and `/` are *not* anchors: sites swap them freely (`“”` vs
//!   `""`, `-` vs `—`) for the same text, so they only separate units. A run
//!   of anchors (`?!`, `...`, `。”，`) is one anchor. The typographic
//!   apostrophes `‘` `’` are folded to `'`, which Unicode word boundaries
//!   keep inside a word (`don’t` and `don't` are one unit, the same one).
//!   A `.` inside a word
//!   (`3.14`, `jingyan.baidu.com`, `U.S`) is not an anchor: Unicode word
//!   boundaries keep it in the word.
//! - **The snippet start and end are anchors too**, always: engines cut
//!   snippets at arbitrary points, so the first and last units behave like
//!   the text after and before a mark — and a snippet with no punctuation
//!   at all still gets two codes. The anchor mark itself is not hashed, so
//!   `,` vs `，` vs `。` at the same place give the same code.
//! - **Content-defined word anchors** (`word_anchors`, default 8): outside
//!   CJK text, a consecutive word pair (no mark between them) whose hash is
//!   `0 mod word_anchors` gets an anchor between its two words. English news
//!   descriptions often have one or two marks in 30 words, so two engines'
//!   windows of one story, cut at different words, kept only their start and
//!   end codes — which differ — and looked unrelated (AG news recall 0.89).
//!   The choice depends on the two words alone, not on where the snippet
//!   starts, so every cut of a text picks the same pairs (the idea of
//!   winnowing and content-defined chunking). A pair, not a single word,
//!   decides, so a frequent word (`the`) does not anchor everywhere. CJK text
//!   is left to punctuation: its marks are dense, and the thresholds were
//!   chosen on it. These codes add *resolution*, not *evidence*:
//!   [`Extractor::codes_into`] returns how many codes sit at marks or at the
//!   snippet ends, and `min_codes` judges that count, so a one-line question
//!   (`What are some tips on … at Capital Bank?`) does not turn into enough
//!   evidence for a different-title match by having many words.
//! - **Hashing** is per unit (a word: a 64-bit fold over its normalized
//!   characters, then a strong mix; a CJK character: its code point) and
//!   per window (the units folded in one by one, in order, with a marker at
//!   the anchor, then one strong mix), so `ab|c` and `a|bc` differ and order
//!   inside a window matters: word-set-equal sentences with swapped entities
//!   (PAWS-X) get different codes.
//!
//! Similarity is `K / M`: `K` is the number of codes two feature strings
//! share *counted as multisets* (a code twice in each counts twice, twice in
//! one and once in the other counts once), `M` the smaller code count. So it
//! is symmetric, in `[0, 1]`, and `1` when one snippet's codes are all found
//! in the other (a truncated copy of a longer snippet). Two snippets with no
//! codes have similarity `0`: no evidence is not equality.

#[cfg(feature = "jieba")]
use std::sync::LazyLock;

use crate::Unit;
use crate::hash::mix;

/// One feature code: the hash of a normalized window around a punctuation anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FeatureCode(pub u64);

impl std::fmt::Display for FeatureCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Built once: loading jieba's dictionary takes tens of milliseconds.
#[cfg(feature = "jieba")]
static JIEBA: LazyLock<jieba_rs::Jieba> = LazyLock::new(jieba_rs::Jieba::new);

/// The unit stream of one text as the scanners produce it: unit hashes in
/// order and the anchor positions between them (an anchor at `p` sits
/// between unit `p - 1` and unit `p`). The scanners call [`Stream::unit`],
/// [`Stream::word`] and [`Stream::mark`] as they go, so no intermediate list
/// of events is built and walked again.
#[derive(Debug, Default, PartialEq, Eq)]
struct Stream {
    units: Vec<u64>,
    /// Ascending, never empty after [`Stream::reset`]: the start is an anchor.
    anchors: Vec<usize>,
    /// Anchors at punctuation or at the start (the end is counted by
    /// [`Stream::finish`]): the evidence `min_codes` judges.
    punct: usize,
    last_punct: usize,
    /// The word before, inside the same clause, for content anchors.
    prev: Option<u64>,
    /// One word pair in about this many is an anchor; `0` for none.
    every: u64,
    /// `every - 1` when `every` is a power of two: a mask instead of a
    /// division (tens of cycles) per word.
    mask: Option<u64>,
}

impl Stream {
    fn reset(&mut self, every: usize) {
        self.units.clear();
        self.anchors.clear();
        self.anchors.push(0);
        self.punct = 1;
        self.last_punct = 0;
        self.prev = None;
        self.every = every as u64;
        self.mask = self.every.is_power_of_two().then(|| self.every - 1);
    }

    /// Anchors at `p` unless one is there already.
    #[inline]
    fn anchor_at(&mut self, p: usize) {
        if self.anchors.last().is_none_or(|&a| a != p) {
            self.anchors.push(p);
        }
    }

    /// A CJK unit (character or jieba word), by its hash.
    #[inline]
    fn unit(&mut self, h: u64) {
        self.units.push(h);
        self.prev = None;
    }

    /// A word of any other script, by its hash: only these can become
    /// content-defined anchors. The choice depends on the word pair alone,
    /// so every engine's window of the same text picks the same pairs.
    #[inline]
    fn word(&mut self, h: u64) {
        if let Some(w) = self.prev
            && self.picks(mix(w.rotate_left(23) ^ h ^ PAIR_SEED))
        {
            self.anchor_at(self.units.len());
        }
        self.units.push(h);
        self.prev = Some(h);
    }

    /// A word by its hash, unless it holds no letter or digit (`alnum`): a
    /// lone `_` is a segment of its own under Unicode word boundaries, and
    /// no word.
    #[inline]
    fn word_of(&mut self, h: UnitHash, alnum: bool) {
        if alnum {
            self.word(h.finish());
        }
    }

    /// Whether a word pair with this (mixed) hash is an anchor.
    #[inline]
    fn picks(&self, pair: u64) -> bool {
        match self.mask {
            Some(m) => pair & m == 0,
            None => self.every > 0 && pair.is_multiple_of(self.every),
        }
    }

    /// A punctuation anchor.
    #[inline]
    fn mark(&mut self) {
        let p = self.units.len();
        self.prev = None;
        if self.last_punct != p {
            self.last_punct = p;
            self.punct += 1;
            self.anchor_at(p);
        }
    }

    /// Closes the stream with the end anchor; returns the evidence count,
    /// `0` when there are no units.
    fn finish(&mut self) -> usize {
        let n = self.units.len();
        if n == 0 {
            return 0;
        }
        self.anchor_at(n);
        if self.last_punct != n {
            self.punct += 1;
        }
        self.punct
    }
}

const UNIT_SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const WINDOW_SEED: u64 = 0x2545_f491_4f6c_dd1d;
const ANCHOR_MARK: u64 = 0x6a09_e667_f3bc_c908;
const PAIR_SEED: u64 = 0xbb67_ae85_84ca_a73b;

/// The shipped rate of content-defined word anchors: about one word pair in
/// this many (see the module docs).
pub const WORD_ANCHORS: usize = 8;

/// Streaming hash of one unit's normalized characters.
#[derive(Clone, Copy)]
struct UnitHash(u64);

impl UnitHash {
    #[inline]
    fn new() -> Self {
        UnitHash(UNIT_SEED)
    }
    #[inline]
    fn push(&mut self, c: char) {
        self.0 = Self::step(self.0, c as u64);
    }
    /// One character (by its code point) into the state `h`.
    #[inline]
    fn step(h: u64, c: u64) -> u64 {
        (h ^ c).wrapping_mul(0x0000_0100_0000_01b3)
    }
    #[inline]
    fn finish(self) -> u64 {
        mix(self.0)
    }
}

fn hash_str(s: &str) -> u64 {
    let mut h = UnitHash::new();
    s.chars().for_each(|c| h.push(c));
    h.finish()
}

/// Turns snippets into feature strings; keeps its buffers between calls so
/// the hot path does not allocate.
#[derive(Debug)]
pub struct Extractor {
    /// One consecutive word pair in about this many is an extra anchor; `0`
    /// keeps punctuation anchors only.
    word_anchors: usize,
    stream: Stream,
    normalized: String,
    run: String,
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor::new()
    }
}

impl Extractor {
    /// A new extractor with empty buffers and the shipped
    /// [`WORD_ANCHORS`] rate.
    pub fn new() -> Self {
        Extractor {
            word_anchors: WORD_ANCHORS,
            stream: Stream::default(),
            normalized: String::new(),
            run: String::new(),
        }
    }

    /// Sets the rate of content-defined word anchors (`0` = punctuation only).
    pub fn with_word_anchors(mut self, every: usize) -> Self {
        self.word_anchors = every;
        self
    }

    /// The ordered feature codes of `snippet`, appended to `out` (cleared
    /// first). Returns how many of them sit at punctuation anchors or at the
    /// snippet's start and end — the count `min_codes` judges, since content
    /// anchors add resolution, not evidence that a snippet is long enough.
    pub fn codes_into(
        &mut self,
        snippet: &str,
        window: usize,
        unit: Unit,
        out: &mut Vec<FeatureCode>,
    ) -> usize {
        self.codes_keeping(snippet, window, unit, out, window.max(1))
    }

    /// [`Extractor::codes_into`], the stream keeping the units `keep` or
    /// fewer away from an anchor (`usize::MAX`: all; what the codes need:
    /// `window`).
    fn codes_keeping(
        &mut self,
        snippet: &str,
        window: usize,
        unit: Unit,
        out: &mut Vec<FeatureCode>,
        keep: usize,
    ) -> usize {
        self.scan(snippet, unit, keep);
        self.stream_codes(window, out)
    }

    /// The codes of the unit stream the last scan left, into `out`
    /// (cleared first); returns the evidence count (see
    /// [`Extractor::codes_into`]).
    fn stream_codes(&mut self, window: usize, out: &mut Vec<FeatureCode>) -> usize {
        out.clear();
        let window = window.max(1);
        let s = &mut self.stream;
        let punct = s.finish();
        if punct == 0 {
            return 0;
        }
        // Sized once and written in place: no capacity check per code.
        out.resize(s.anchors.len(), FeatureCode(0));
        // The shipped windows as constants: their loops unrolled.
        match window {
            1 => window_codes(&s.units, &s.anchors, 1, out),
            2 => window_codes(&s.units, &s.anchors, 2, out),
            3 => window_codes(&s.units, &s.anchors, 3, out),
            4 => window_codes(&s.units, &s.anchors, 4, out),
            w => window_codes(&s.units, &s.anchors, w, out),
        }
        punct
    }

    /// The hashes of `text`'s units in order (anchors dropped), for SimHash.
    /// SimHash was tuned (and its thresholds chosen) with every unit
    /// hashed, so a CJK character's code point (see `char_unit`) gets the
    /// hash of its one character here. A word hash below `0x110000` (one in
    /// 2^44) would be rehashed too, harmlessly.
    pub fn units(&mut self, text: &str, unit: Unit) -> &[u64] {
        self.scan(text, unit, usize::MAX);
        for u in &mut self.stream.units {
            if *u < 0x11_0000 {
                let mut h = UnitHash::new();
                h.0 = (h.0 ^ *u).wrapping_mul(0x0000_0100_0000_01b3);
                *u = h.finish();
            }
        }
        &self.stream.units
    }
}

/// The code of each anchor in `anchors`: the `window` units before it, a
/// marker, the `window` units after it (fewer at the ends), hashed.
#[inline(always)]
fn window_codes(units: &[u64], anchors: &[usize], window: usize, out: &mut [FeatureCode]) {
    // Each step (xor, multiply by an odd constant, rotate) is a bijection
    // of the state, so windows that differ in one unit differ before the
    // final mix; one full mix per code, not one per unit.
    let step = |h: u64, u: u64| (h ^ u).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31);
    let n = units.len();
    for (code, &p) in out.iter_mut().zip(anchors) {
        let mut h = WINDOW_SEED;
        // A whole window on both sides (the most of them): one slice of
        // `2 * window` units, one bounds check (`p < window` wraps the
        // start past the end: no slice).
        if let Some(both) = units.get(p.wrapping_sub(window)..p + window) {
            let (before, after) = both.split_at(window);
            for &u in before {
                h = step(h, u);
            }
            h = step(h, ANCHOR_MARK);
            for &u in after {
                h = step(h, u);
            }
        } else {
            for &u in &units[p.saturating_sub(window)..p] {
                h = step(h, u);
            }
            h = step(h, ANCHOR_MARK);
            for &u in &units[p..(p + window).min(n)] {
                h = step(h, u);
            }
        }
        *code = FeatureCode(mix(h));
    }
}

/// The ordered feature codes of `snippet` (see the module docs).
pub fn extract(snippet: &str, window: usize, unit: Unit) -> Vec<FeatureCode> {
    let mut out = Vec::new();
    Extractor::new().codes_into(snippet, window, unit, &mut out);
    out
}

/// The codes `a` and `b` share, counted as multisets, in ascending order.
pub fn shared_codes(a: &[FeatureCode], b: &[FeatureCode]) -> Vec<FeatureCode> {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// `K / M`: shared codes (multiset) over the smaller code count; `0` when
/// either side has no codes.
pub fn similarity(a: &[FeatureCode], b: &[FeatureCode]) -> f64 {
    let m = a.len().min(b.len());
    if m == 0 {
        return 0.0;
    }
    shared_codes(a, b).len() as f64 / m as f64
}

mod chinese;
mod scan;
mod spans;
mod words;
use scan::is_cjk;
#[cfg(test)]
use scan::{char_unit, is_anchor, is_fast_separator, push_jieba, push_lower};
pub use spans::{CodeSpan, MAX_SPAN_BYTES};

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use unicode_normalization::UnicodeNormalization;

    use super::reference::is_fast;
    use super::*;

    fn codes(s: &str) -> Vec<FeatureCode> {
        extract(s, 2, Unit::Char)
    }

    /// Punctuation anchors only, as the seed paper has them.
    fn punct_codes(s: &str) -> Vec<FeatureCode> {
        let mut out = Vec::new();
        Extractor::new()
            .with_word_anchors(0)
            .codes_into(s, 2, Unit::Char, &mut out);
        out
    }

    /// From `ag_news_en/test.csv` (line 32): one sentence, two commas.
    const AG: &str = "The Cleveland Indians pulled within one game of the AL Central lead \
        by beating the Minnesota Twins, 7-1, Saturday night with home runs by Travis \
        Hafner and Victor Martinez.";

    /// Codes with content anchors at one word pair in `every`.
    fn codes_every(s: &str, every: usize) -> Vec<FeatureCode> {
        let mut out = Vec::new();
        Extractor::new()
            .with_word_anchors(every)
            .codes_into(s, 2, Unit::Char, &mut out);
        out
    }

    #[test]
    fn word_anchors_survive_a_different_cut() {
        // A dense rate makes the property visible on one sentence; it holds
        // at any rate because the choice depends on the words alone.
        let full = codes_every(AG, 2);
        let words: Vec<&str> = AG.split_whitespace().collect();
        // Another engine's window: three words later, ten words shorter, with ellipses.
        let cut = format!("... {} ...", words[3..words.len() - 10].join(" "));
        let part = codes_every(&cut, 2);
        assert!(
            full.len() > punct_codes(AG).len() + 4,
            "{} codes",
            full.len()
        );
        // Only the codes at the cut ends (and windows reaching them) differ.
        let shared = shared_codes(&full, &part).len();
        assert!(
            shared + 4 >= part.len(),
            "{shared} of {} shared",
            part.len()
        );
        assert!(similarity(&full, &part) >= 0.7);
        // With punctuation anchors alone the cut copy shares almost nothing.
        assert!(similarity(&punct_codes(AG), &punct_codes(&cut)) <= 0.5);
    }

    #[test]
    fn word_anchors_leave_cjk_and_evidence_alone() {
        let zh = "延迟退休真的来了！你准备好了吗？";
        assert_eq!(codes(zh), punct_codes(zh));
        let mut ex = Extractor::new();
        let mut out = Vec::new();
        let evidence = ex.codes_into(AG, 2, Unit::Char, &mut out);
        assert_eq!(evidence, punct_codes(AG).len());
        assert!(out.len() > evidence);
    }

    #[test]
    fn start_and_end_are_anchors() {
        assert_eq!(punct_codes("no punctuation at all here").len(), 2);
        assert_eq!(codes("").len(), 0);
        assert_eq!(codes(" ,,, ").len(), 0);
        // The end mark merges with the end anchor.
        assert_eq!(punct_codes("one two three. four five six.").len(), 3);
    }

    #[test]
    fn width_and_case_do_not_matter() {
        assert_eq!(
            codes("延迟退休真的来了！你准备好了吗?"),
            codes("延迟退休真的来了!你准备好了吗？")
        );
        assert_eq!(codes("Hello, World"), codes("ＨＥＬＬＯ，ｗｏｒｌｄ"));
        assert_eq!(codes("Café, au lait"), codes("CAFÉ, AU LAIT"));
        // Typographic apostrophes, on the fast path and (`①`) the general one.
        assert_eq!(codes("don’t stop, it’s"), codes("don't stop, it's"));
        assert_eq!(codes("① don’t stop, it’s"), codes("① don't stop, it's"));
        assert_ne!(codes("don’t stop, it’s"), codes("don t stop, it s"));
    }

    #[test]
    fn dots_inside_words_are_not_anchors() {
        assert_eq!(codes("百度经验:jingyan.baidu.com").len(), 3);
        assert_eq!(punct_codes("pi is 3.14 and e is 2.71").len(), 2);
    }

    #[test]
    fn order_inside_a_window_matters() {
        assert_ne!(codes("a b, c d"), codes("b a, c d"));
    }

    #[test]
    fn ellipsis_forms_agree() {
        assert_eq!(
            codes("今天天气很好…我们去公园"),
            codes("今天天气很好...我们去公园")
        );
    }

    #[cfg(not(feature = "jieba"))]
    #[test]
    fn without_jieba_word_unit_is_char_unit() {
        let text = "我们今天去北京大学，看看风景。English, too.";
        assert_eq!(extract(text, 1, Unit::Word), extract(text, 1, Unit::Char));
    }

    #[cfg(feature = "jieba")]
    #[test]
    fn word_unit_uses_jieba() {
        let w = extract("我们今天去北京大学，看看风景。", 1, Unit::Word);
        let c = extract("我们今天去北京大学，看看风景。", 1, Unit::Char);
        assert_eq!(w.len(), c.len());
        assert_ne!(w, c);
    }

    #[test]
    fn one_pass_scanner_agrees_with_reference() {
        let mut texts: Vec<String> = [
            "a.b, 1,000; 3.14. e.g. don't 'quoted' x_y ,,, end.",
            "1,a 1;2 a;b trailing. trailing, 9, x.",
            "中文，English 混合：ＡＢＣ１２３。。。再见…",
            "",
            ".",
            "a",
            "a.",
            "1,",
            "中",
            "。中。",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        texts.extend(crate::test_data::corpus_lines(
            "dureader_search_zh/search_results.jsonl",
            usize::MAX,
        ));
        let mut a = Extractor::new();
        let mut b = Extractor::new();
        let mut compared = 0;
        for t in &texts {
            if !t.chars().all(is_fast) {
                continue;
            }
            compared += 1;
            for unit in [Unit::Char, Unit::Word] {
                a.stream.reset(WORD_ANCHORS);
                assert!(a.scan_fast(t, unit, usize::MAX));
                b.stream.reset(WORD_ANCHORS);
                b.scan_fast_reference(t, unit);
                assert_eq!(a.stream, b.stream, "{t:?} {unit:?}");
            }
        }
        assert!(compared >= 10, "{compared} texts compared");
        eprintln!("{compared} texts compared");
    }

    /// The general path: NFKC, lowercase, Unicode word boundaries.
    fn general_stream(ex: &mut Extractor, text: &str, unit: Unit) {
        ex.stream.reset(WORD_ANCHORS);
        let mut normalized = String::new();
        text.nfkc().for_each(|c| push_lower(&mut normalized, c));
        ex.scan_general(&normalized, unit);
    }

    #[test]
    fn fast_path_letters_agree_with_general_path() {
        let mut texts: Vec<String> = [
            "Café au lait, s'il vous plaît. Straße · Ελληνικά ΣΟΦΊΑ!",
            "l·l, a·b, 1·2, ·x, x·, 张三·李四。",
            "§ 3 © 2024 Ü-Bahn ® 40° «quoted» ¿qué? ¡sí!",
            "no\u{a0}break\u{a0}space; 3.14",
            "Çà et là… ÀÉÎÕÜ àéîõü ÿ Ÿ ŒUVRE œuvre Ǆ",
            "罚款金额:￥200 a￥b ￡3,￠5.￢x ￤ y ￥.",
            // (Not `℃.5`: the fast path joins `c.5` as it joins `a.7`.)
            "温度25℃，98.6℉; ℃abc x℃y 3.℃ ℃'s a.℃ 1,℃ ℃_x _℃ 中文℃中文 ℃",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (title, snippet) in crate::test_data::dureader_results() {
            texts.extend([title, snippet]);
        }
        for f in [
            "ag_news_en/test.csv",
            "searchsnippets_en/SearchSnippets.txt",
            "nlpcc2017_headlines_zh/headlines.tsv",
        ] {
            texts.extend(crate::test_data::corpus_lines(f, usize::MAX));
        }
        let (mut a, mut b) = (Extractor::new(), Extractor::new());
        let mut compared = 0;
        let mut differ = Vec::new();
        for t in &texts {
            // Only texts with a character outside the fast path's set.
            if t.chars().all(is_fast) {
                continue;
            }
            for unit in [Unit::Char, Unit::Word] {
                a.stream.reset(WORD_ANCHORS);
                if !a.scan_fast(t, unit, usize::MAX) {
                    continue;
                }
                compared += 1;
                general_stream(&mut b, t, unit);
                if a.stream != b.stream {
                    differ.push(t.clone());
                }
            }
        }
        eprintln!("{compared} texts compared");
        assert!(
            differ.is_empty(),
            "{} differ: {:?}",
            differ.len(),
            &differ[..differ.len().min(3)]
        );
        assert!(compared >= 20, "{compared} texts compared");
    }

    /// The codes `codes_into` computes from the units a window can reach
    /// (the middle of a long run of ideographs left out) are the codes of
    /// the whole unit stream, with the same evidence, at every window.
    #[test]
    fn codes_from_the_kept_units_are_the_codes_of_every_unit() {
        let mut texts: Vec<String> = [
            "一",
            "一二",
            "一二三",
            "一二三四",
            "一二三四五",
            "一二三四五六七八九十",
            "一二三四五，六七八九十一二。",
            "ab 一二三四五六 cd",
            "かな漢字漢字漢字漢字かな",
            "㐀一二三四五六七㐀",
            "一二三四五六七八 x.y 一二三四五六七八…",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (title, snippet) in crate::test_data::dureader_results() {
            texts.extend([title, snippet]);
        }
        texts.extend(crate::test_data::corpus_lines(
            "nlpcc2017_headlines_zh/headlines.tsv",
            3000,
        ));
        let (mut a, mut b) = (Extractor::new(), Extractor::new());
        let (mut ca, mut cb) = (Vec::new(), Vec::new());
        let mut left_out = 0;
        for t in &texts {
            for window in 1..=4 {
                let ea = a.codes_into(t, window, Unit::Char, &mut ca);
                let eb = b.codes_keeping(t, window, Unit::Char, &mut cb, usize::MAX);
                assert_eq!((ea, &ca), (eb, &cb), "{t:?} at window {window}");
                left_out += b.stream.units.len() - a.stream.units.len();
            }
        }
        assert!(left_out > 10_000, "{left_out} units left out");
    }

    /// The codes and evidence of `text` from the reference scanners: the
    /// plain one-pass reference where it covers the text, the general
    /// normalizer elsewhere; `None` when the fast path leaves the text to
    /// the general one (then there is nothing of its own to check).
    fn reference_codes(
        ex: &mut Extractor,
        text: &str,
        window: usize,
        unit: Unit,
        out: &mut Vec<FeatureCode>,
    ) -> Option<usize> {
        ex.stream.reset(ex.word_anchors);
        if !ex.scan_fast(text, unit, usize::MAX) {
            return None;
        }
        ex.stream.reset(ex.word_anchors);
        if text.chars().all(is_fast) {
            ex.scan_fast_reference(text, unit);
        } else {
            let mut normalized = String::new();
            text.nfkc().for_each(|c| push_lower(&mut normalized, c));
            ex.scan_general(&normalized, unit);
        }
        Some(ex.stream_codes(window, out))
    }

    /// Checks the fast path on `texts` at windows 1–4, both units, with
    /// shipped, no and dense word anchors: it takes the same texts as the
    /// previous scanner, gives the same whole stream (every unit kept), and
    /// the same codes and evidence with units left out as `codes_into`
    /// leaves them; and those codes are the reference's — the plain one
    /// for text it covers and, with `general`, the general path's for the
    /// rest. Returns how many codes lists were compared.
    fn check_codes(texts: &[String], general: bool) -> usize {
        let (mut cf, mut cp, mut cr) = (Vec::new(), Vec::new(), Vec::new());
        let mut compared = 0;
        for every in [WORD_ANCHORS, 0, 2] {
            let mut fast = Extractor::new().with_word_anchors(every);
            let mut prev = Extractor::new().with_word_anchors(every);
            let mut slow = Extractor::new().with_word_anchors(every);
            for t in texts {
                for unit in [Unit::Char, Unit::Word] {
                    fast.stream.reset(every);
                    prev.stream.reset(every);
                    let takes = fast.scan_fast(t, unit, usize::MAX);
                    assert_eq!(takes, prev.scan_fast_previous(t, unit), "{t:?} {unit:?}");
                    if !takes {
                        continue;
                    }
                    assert_eq!(fast.stream, prev.stream, "{t:?} {unit:?} {every}");
                    for window in 1..=4 {
                        let ef = fast.codes_into(t, window, unit, &mut cf);
                        prev.stream.reset(every);
                        prev.scan_fast_previous(t, unit);
                        let ep = prev.stream_codes(window, &mut cp);
                        let case =
                            format!("{t:?}: window {window}, {unit:?}, word anchors {every}");
                        assert_eq!((ef, &cf), (ep, &cp), "{case}");
                        if general || t.chars().all(is_fast) {
                            let er = reference_codes(&mut slow, t, window, unit, &mut cr);
                            assert_eq!(Some((ef, &cf)), er.map(|e| (e, &cr)), "{case}");
                        }
                        compared += 1;
                    }
                }
            }
        }
        compared
    }

    /// Every code the fast scanner gives on the fixture corpora (Chinese and
    /// English snippets, titles, headlines) is the code the references give:
    /// its separate loops for words, ideograph runs and Chinese marks decide
    /// exactly as the plain scanner and the general path.
    #[test]
    fn fast_codes_agree_with_the_references_on_the_corpora() {
        let mut texts: Vec<String> = Vec::new();
        for (title, snippet) in crate::test_data::dureader_results() {
            texts.extend([title, snippet]);
        }
        for (f, n) in [
            ("ag_news_en/test.csv", 1500),
            ("searchsnippets_en/SearchSnippets.txt", 1000),
            ("nlpcc2017_headlines_zh/headlines.tsv", 1000),
        ] {
            texts.extend(crate::test_data::corpus_lines(f, n));
        }
        let compared = check_codes(&texts, true);
        assert!(compared > 50_000, "{compared} compared");
    }

    /// Pieces of generated text: ASCII words and every joiner, full-width
    /// forms, ideographs at both ends of the common range and around it,
    /// kana, Hangul, Chinese marks and brackets; letters outside ASCII,
    /// compatibility forms, signs, typographic apostrophes and characters
    /// that send the text to the general path.
    const PIECES: &[&str] = &[
        "a",
        "Z",
        "7",
        "_",
        "x1",
        "3",
        " ",
        "  ",
        ".",
        ",",
        ";",
        ":",
        "!",
        "?",
        "'",
        "-",
        "\u{3000}",
        "\u{3001}",
        "\u{3002}",
        "\u{2026}",
        "\u{ff0c}",
        "\u{ff0e}",
        "\u{ff1b}",
        "\u{ff1a}",
        "\u{ff01}",
        "\u{ff08}",
        "\u{ff21}",
        "\u{ff41}",
        "\u{ff11}",
        "\u{ff3f}",
        "\u{ff07}",
        "\u{201c}",
        "\u{201d}",
        "\u{300a}",
        "\u{3010}",
        "\u{2014}",
        "\u{4e00}",
        "\u{4e01}",
        "\u{9fff}",
        "\u{4db5}",
        "\u{3400}",
        "\u{3041}",
        "\u{30a1}",
        "\u{ac00}",
        "\u{f900}",
        "\u{20000}",
        "中文",
        "北京大学",
        "延迟退休真的来了",
        "don't",
        "3.14",
        "1,000",
        "\u{b7}",
        "\u{2019}",
        "\u{2018}",
        "\u{a0}",
        "\u{e9}",
        "\u{c9}",
        "\u{3b2}",
        "\u{2460}",
        "\u{aa}",
        "\u{2160}",
        "\u{a7}",
        "\u{2192}",
        "\u{d7}",
        "\u{301}",
        "\u{2103}",
        "\u{440}",
        "\u{4dc0}",
        "\u{ffe5}",
        "\u{ffe1}",
        "\u{2109}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Against the previous scanner always, and the plain reference
        /// where it covers the text (Unicode word boundaries join `a'7`,
        /// `é가` differently from both scanners, so the general path is
        /// checked on the corpora only).
        #[test]
        fn fast_codes_agree_with_the_references_on_generated_text(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..24),
        ) {
            check_codes(&[parts.concat()], false);
        }
    }

    #[test]
    fn similarity_is_multiset() {
        let a = [FeatureCode(1), FeatureCode(1), FeatureCode(2)];
        let b = [FeatureCode(1), FeatureCode(3)];
        assert_eq!(similarity(&a, &b), 0.5);
        assert_eq!(similarity(&b, &a), 0.5);
        assert_eq!(similarity(&a, &[]), 0.0);
    }
}
