//! What a record's link and title become for the stages: the URL key and
//! its host's hash, the title hash, whether a title is informative, and the
//! form a title an engine cut ("…") is compared by ([`title_form`],
//! [`titles_alike`]; the rule is in docs/dedup.md, "Titles an engine cut").

use crate::{title, url};

/// 64-bit hash of a normalized title; `0` for an empty one (never equal).
/// `buf` is scratch space, reused so the hot path does not allocate.
pub(crate) fn title_hash(t: &str, buf: &mut String) -> u64 {
    buf.clear();
    title::normalize_into(t, buf);
    if buf.is_empty() {
        0
    } else {
        crate::hash::xxh3(buf.as_bytes()) | 1
    }
}

/// Whether a normalized title says enough to name one page on its own: at
/// least [`INFORMATIVE_WORDS`] words of a spaced script. "JavaScript
/// Tutorial" (two words, on three sites) is not; a news headline is.
/// Unspaced (CJK) titles never are: on the DuReader lists, long question
/// titles repeat over different answers (counting titles of 14 characters
/// cost precision; docs/dedup.md has the figures).
pub(crate) fn informative(normalized: &str) -> bool {
    // Normalized titles have one space between words; a byte ≥ 0xE2 starts
    // a character from U+2000 on (CJK, kana, Hangul, and some signs: such
    // titles are left out, conservatively). Sixteen bytes at a time, each
    // block in one branch-free pass the compiler turns into vector code,
    // stopping at the first block with such a byte (a CJK title's first).
    let mut spaces = 0;
    for block in normalized.as_bytes().chunks(16) {
        let (max, block_spaces) = block
            .iter()
            .fold((0u8, 0u8), |(m, n), &b| (m.max(b), n + u8::from(b == b' ')));
        if max >= 0xE2 {
            return false;
        }
        spaces += usize::from(block_spaces);
    }
    spaces + 1 >= INFORMATIVE_WORDS
}

/// Words of a spaced-script title that make it [`informative`].
const INFORMATIVE_WORDS: usize = 6;

/// How much of the normalized title `normalized` of a title an engine cut
/// ("Supreme Court rules on the new border ca…") is sure to be the page's:
/// the length of that prefix, or `None` when it says too little to compare.
/// A spaced-script title loses its last word, which the cut may have split
/// ("ca" of "case"), unless the engine cut after it (`last_word_whole`: a
/// space before the mark); an unspaced (CJK) one keeps every character. What is
/// left must be [`CUT_WORDS`] words or [`CUT_CHARS`] characters, so a cut
/// "JavaScript Tutorial…" matches nothing.
fn cut_prefix_len(normalized: &str, last_word_whole: bool) -> Option<usize> {
    let last = normalized.chars().next_back()?;
    let len = if last_word_whole || title_char_is_unspaced(last) {
        normalized.len()
    } else {
        normalized.rfind(' ')?
    };
    let head = &normalized[..len];
    let spaced_words = head.split(' ').count();
    let chars = head.chars().count();
    let unspaced = head.chars().filter(|&c| title_char_is_unspaced(c)).count();
    (spaced_words >= CUT_WORDS || unspaced >= CUT_CHARS || chars >= 4 * CUT_CHARS).then_some(len)
}

/// Words a cut title's kept prefix needs to be compared ([`cut_prefix_len`]).
const CUT_WORDS: usize = 4;
/// Unspaced (CJK) characters a cut title's kept prefix needs instead.
const CUT_CHARS: usize = 10;

/// Characters of scripts written without spaces (normalized titles keep no
/// space next to them): ideographs, kana, and the CJK symbols block.
fn title_char_is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{30ff}'
        | '\u{31f0}'..='\u{31ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{3ffff}')
}

/// Whether the normalized title `full` begins with `prefix`, the kept part of
/// a cut title, and goes on (if at all) with a new word: `prefix` ends with a
/// whole word, so "border" must not match "borderlands".
fn extends(full: &str, prefix: &str) -> bool {
    if prefix.is_empty() || !full.starts_with(prefix) {
        return false;
    }
    let rest = &full[prefix.len()..];
    match (prefix.chars().next_back(), rest.chars().next()) {
        (_, None) => true,
        (Some(p), Some(r)) => {
            r == ' '
                || title_char_is_unspaced(p)
                || title_char_is_unspaced(r)
                || !r.is_alphanumeric()
        }
        (None, _) => false,
    }
}

/// Whether two normalized titles name one page once an engine's cut is
/// allowed for: `a` and `b` are the stored titles
/// ([`Kept::title_at`](super::scope::Kept::title_at)), the kept prefix for a
/// cut one. A whole title must go on past a cut one's
/// prefix (the cut title had more: the word it split, at least): "Border
/// case ruling in the Supreme Court" is no cut of "Border case ruling in the
/// Supreme…". Two cut titles are alike when one prefix begins the other.
/// Equal whole titles are the hash's business.
pub(super) fn titles_alike(a: &str, a_cut: bool, b: &str, b_cut: bool) -> bool {
    match (a_cut, b_cut) {
        (true, true) => extends(a, b) || extends(b, a),
        (true, false) => b.len() > a.len() && extends(b, a),
        (false, true) => a.len() > b.len() && extends(a, b),
        (false, false) => false,
    }
}

/// Longest normalized title kept for the cut-title comparison (bytes).
const MAX_STORED_TITLE: usize = 1024;

/// What of the normalized title in `normalized` (hash `title`, raw form
/// `raw`) a record stores and compares for cut titles.
/// Inlined into the caller, with the rare cut title out of line.
#[inline]
pub(crate) fn title_form(title: u64, raw: &str, normalized: &str) -> TitleForm {
    if title == 0 || normalized.len() > MAX_STORED_TITLE {
        return TitleForm::default();
    }
    if title::is_truncated(raw) {
        cut_title_form(raw, normalized)
    } else {
        TitleForm {
            len: normalized.len(),
            cut: false,
        }
    }
}

/// [`title_form`] of a title an engine cut.
#[inline(never)]
fn cut_title_form(raw: &str, normalized: &str) -> TitleForm {
    // "… the border …": the cut fell between words, the last one is whole.
    let before_mark = raw.trim_end().trim_end_matches(['.', '…', '⋯', '．']);
    let last_word_whole = before_mark.ends_with(char::is_whitespace);
    match cut_prefix_len(normalized, last_word_whole) {
        Some(len) => TitleForm { len, cut: true },
        None => TitleForm::default(),
    }
}

/// The hash of the host of the normalized link `url_key` left in `buf`
/// (`0` when there is none).
pub(crate) fn host_hash(buf: &str) -> u64 {
    let Some(n) = buf.strip_prefix("https://") else {
        return 0;
    };
    // Bytes, not a `char` pattern (which decoded every character).
    let end = n
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(n.len());
    hash_host(&n.as_bytes()[..end])
}

/// The hash of a normalized host (`0` for none), given as bytes (no
/// `char` boundary to check).
#[inline]
fn hash_host(host: &[u8]) -> u64 {
    if host.is_empty() {
        0
    } else {
        crate::hash::xxh3(host) | 1
    }
}

/// Whether `link` is a link at all (not blank), its [`url::key`] (with the
/// reused buffer `buf`), the [`host_hash`] of its normalized form (`0` for
/// a blank link), and the namespace of its canonical identifier when a rule
/// recognises it (the key is then the identifier's). A link that
/// is its own normal form ([`url::normal_host_end`], the common case) is
/// hashed where it lies, not written to `buf` (which may then be left as it
/// was).
pub(crate) fn url_key_host(
    link: &str,
    buf: &mut String,
) -> (bool, url::UrlKey, u64, Option<&'static str>) {
    if let Some(end) = url::normal_host_end(link) {
        let host = hash_host(&link.as_bytes()["https://".len()..end]);
        return match url::canonical_key(link, end) {
            Some((key, rule)) => (true, key, host, Some(rule.ns)),
            None => (true, url::key_of_normalized(link), host, None),
        };
    }
    buf.clear();
    if url::normalize_into(link, buf) {
        // An http(s) link is not blank.
        let host = host_hash(buf);
        match url::canonical_key(buf, url::host_end(buf)) {
            Some((key, rule)) => (true, key, host, Some(rule.ns)),
            None => (true, url::key_of_normalized(buf), host, None),
        }
    } else {
        let has_url = !link.trim().is_empty();
        let host = if has_url { host_hash(buf) } else { 0 };
        (has_url, url::key_of_normalized(link.trim()), host, None)
    }
}

/// The normalized title a record brings to the cut-title comparison.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TitleForm {
    /// Bytes of the normalized title to store and compare: the kept prefix
    /// for a cut title, `0` for none.
    pub(crate) len: usize,
    pub(crate) cut: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`informative`] as it was, one byte at a time: its reference.
    fn informative_bytewise(normalized: &str) -> bool {
        let mut spaces = 0;
        for &b in normalized.as_bytes() {
            if b >= 0xE2 {
                return false;
            }
            spaces += usize::from(b == b' ');
        }
        spaces + 1 >= INFORMATIVE_WORDS
    }

    /// The key is [`url::key`]'s, the host hash that of [`url::host`] (`0`
    /// for none), on the URL cases, blank links and the bench's shapes.
    #[test]
    fn url_key_host_is_the_key_and_the_host() {
        let fields = crate::test_data::url_case_fields();
        let mut buf = String::from("stale");
        let mut n = 0;
        for link in fields.iter().map(String::as_str).chain([
            "",
            "  ",
            "\u{3000}",
            "javascript:void(0)",
            "https://",
            "https://:80/x",
            "http://[::1",
            "https://zhidao.example/123/4",
            "http://www.zhidao.example/123/4?utm_source=bench#top",
            "https://a.com/x?b=1&a=2&utm_source=y",
            "https://a.com/x?b=1&&",
        ]) {
            let (has_url, key, host, _) = url_key_host(link, &mut buf);
            assert_eq!(has_url, !link.trim().is_empty(), "{link:?}");
            assert_eq!(key, url::key(link), "{link:?}");
            let want = url::host(link).map_or(0, |h| hash_host(h.as_bytes()));
            assert_eq!(host, want, "{link:?}");
            n += 1;
        }
        assert!(n > 100, "{n} links");
    }

    #[test]
    fn informative_agrees_with_the_bytewise_count() {
        let mut buf = String::new();
        let (mut yes, mut no) = (0, 0);
        for t in crate::title::fixture_titles() {
            crate::title::normalize_into(&t, &mut buf);
            // Words at and around the limit, and a late CJK character.
            for s in [
                buf.clone(),
                format!("{buf} a b c d e"),
                format!("a b c d {buf}"),
                format!("{} 中", "word ".repeat(7)),
            ] {
                let got = informative(&s);
                assert_eq!(got, informative_bytewise(&s), "{s:?}");
                if got { yes += 1 } else { no += 1 }
            }
        }
        assert!(yes > 1000 && no > 1000, "{yes} informative, {no} not");
    }
}
