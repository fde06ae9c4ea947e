//! Title normalization: the comparison form of a result title.
//!
//! Two engines show the same page under slightly different titles: one adds
//! ` - Wikipedia`, another writes `？` where the first wrote `?`, a third cuts
//! the title with `...`. The title stage only asks whether two titles are the
//! *same*, and equal normalized titles merely select the looser snippet
//! threshold `os1`, so the normal form errs on the side of folding:
//!
//! 1. **Unicode**: NFKC (full-width `？，！：（）` become ASCII, `…` becomes
//!    `...`), then lower case with a little full case folding (`ß` → `ss`,
//!    `ς` → `σ`). CJK punctuation that NFKC keeps is mapped to its ASCII
//!    counterpart: `。`→`.`, `、`→`,`, `「」『』“”《》`→`"`, `【】`→`[]`,
//!    `—–`→`-`, `〜`→`~`. Zero-width and other format characters are dropped.
//! 2. **Whitespace**: runs of whitespace and control characters collapse; a
//!    space survives only *between two word characters* of a spaced script, so
//!    `Hello, World` ≡ `Hello，World`, `Rust - Wikipedia` ≡ `Rust-Wikipedia`
//!    and `百度 百科` ≡ `百度百科` (CJK ideographs and kana never need spaces;
//!    Hangul keeps them).
//! 3. **Site-name suffixes**: a trailing segment after a separator (`-`, `|`,
//!    `_`, `·`, `::`, in any width or spacing) goes when it is a known site name
//!    ([`KNOWN_SITES`]: `Wikipedia`, `百度百科`, `知乎`, `MDN`, `YouTube`, …), a
//!    domain name (`w3schools.com`, also at the end of a short segment), a
//!    short (≤ 4 words) segment after `|`, `·` or `::`, or a short CJK segment (≤ 6 characters) after `-` or `_`.
//!    A plain `-` before a Latin segment is kept unless the segment is known:
//!    `Star Wars: Episode IV - A New Hope` must not lose its subtitle. The
//!    head must keep at least 2 characters (and, for the short-segment
//!    rules, twice the segment's length), so a title is never emptied.
//! 4. **Truncation marks and final punctuation**: `...`, `…`, `⋯` and any
//!    final `.!?,;:` are removed (`People are near water.` ≡ `People are near
//!    water`). A truncated title therefore equals its full form
//!    only when the cut fell where the full form ends: the pipeline keeps
//!    only a hash per kept title, which cannot answer "is a prefix of". (A
//!    pairwise prefix test, `same_title`, was never used by the pipeline and
//!    was removed; a cut title only loses the looser `os1`: the copy must
//!    then reach `os2` on its snippet, as different titles do.)
//!
//! Steps 3 and 4 repeat until nothing changes, which makes the whole
//! normalization idempotent: `normalize(normalize(t)) == normalize(t)`.
//!
//! Speed: ASCII titles and titles made of common CJK, Latin-1, Hangul and
//! full-width characters skip the NFKC iterator (for them it is the identity or
//! the full-width shift done inline); everything is written in one pass into
//! one buffer.

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// Site names removed when they end a title after a separator, in normalized
/// form and sorted (binary search).
pub const KNOWN_SITES: &[&str] = &[
    "360百科",
    "360问答",
    "abc news",
    "afp",
    "al jazeera",
    "amazon.com",
    "ap news",
    "associated press",
    "bbc",
    "bbc news",
    "bbc.com",
    "bilibili",
    "bloomberg",
    "britannica",
    "cbs news",
    "cnn",
    "cnn.com",
    "crates.io",
    "csdn",
    "csdn.net",
    "csdn博客",
    "docs.rs",
    "ebay",
    "encyclopedia britannica",
    "espn",
    "facebook",
    "financial times",
    "forbes",
    "fox news",
    "github",
    "healthline",
    "imdb",
    "instagram",
    "linkedin",
    "los angeles times",
    "mayo clinic",
    "mdn",
    "mdn web docs",
    "medium",
    "merriam-webster",
    "mozilla",
    "msn",
    "nbc news",
    "npr",
    "politico",
    "python.org",
    "quora",
    "reddit",
    "reuters",
    "server fault",
    "sky news",
    "sleep foundation",
    "stack exchange",
    "stack overflow",
    "superuser",
    "techcrunch",
    "the associated press",
    "the canadian press",
    "the guardian",
    "the hill",
    "the independent",
    "the new york times",
    "the telegraph",
    "the verge",
    "the wall street journal",
    "the washington post",
    "tripadvisor",
    "twitter",
    "usa today",
    "w3schools",
    "w3schools.com",
    "wall street journal",
    "washington post",
    "webmd",
    "wikihow",
    "wikipedia",
    "wikipedia,the free encyclopedia",
    "wired",
    "yahoo",
    "yahoo finance",
    "yahoo news",
    "yahoo sports",
    "yelp",
    "youtube",
    "互动百科",
    "人民网",
    "今日头条",
    "优酷",
    "凤凰网",
    "凤凰网资讯",
    "博客园",
    "哔哩哔哩",
    "央视网",
    "微博",
    "快速问医生",
    "手机搜狐",
    "搜狐",
    "搜狐新闻",
    "搜狐网",
    "搜狗百科",
    "新华网",
    "新浪",
    "新浪博客",
    "新浪新闻",
    "新浪网",
    "新浪财经",
    "爱奇艺",
    "爱问知识人",
    "百度",
    "百度作业帮",
    "百度健康",
    "百度图片",
    "百度宝宝知道",
    "百度拇指医生",
    "百度文库",
    "百度新闻",
    "百度百科",
    "百度知道",
    "百度经验",
    "百度贴吧",
    "知乎",
    "知乎专栏",
    "简书",
    "维基百科",
    "维基百科,自由的百科全书",
    "网易",
    "网易新闻",
    "腾讯新闻",
    "腾讯网",
    "腾讯视频",
    "豆瓣",
    "豆瓣电影",
];

/// The normalized title used only for comparison.
pub fn normalize(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    normalize_into(title, &mut out);
    out
}

/// Writes the normalized form of `title` into `out` (cleared first), so a
/// caller normalizing many titles reuses one buffer.
pub fn normalize_into(title: &str, out: &mut String) {
    out.clear();
    // One pass checks and folds: a separate `all(skips_nfkc)` pass decoded
    // every character of a Chinese title twice.
    if !fold_checked::<true>(title.chars(), out) {
        out.clear();
        let nf: String = title.nfkc().collect();
        fold(nf.chars(), out);
        // Lower-casing can, for a few characters, leave a string that NFKC
        // would still change; one more round settles it.
        if !out.is_ascii() && is_nfkc_quick(out.chars()) != IsNormalized::Yes {
            let again: String = out.nfkc().collect();
            out.clear();
            fold(again.chars(), out);
        }
    }
    strip_tail(out);
}

/// Whether the title ends with a truncation mark (`...`, `…`, `⋯`), as engines
/// write when they cut a long title.
pub fn is_truncated(title: &str) -> bool {
    let t = title.trim_end();
    t.ends_with("..") || t.ends_with('…') || t.ends_with('⋯') || t.ends_with("．．")
}

/// Characters for which NFKC is the identity, or (full-width ASCII, the
/// ideographic space) does exactly what [`fold`] does inline.
fn skips_nfkc(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}'
        | '\0'..='\u{7f}'
        | '\u{b7}'
        | '\u{c0}'..='\u{ff}'
        | '\u{2013}' | '\u{2014}' | '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}'
        | '\u{3000}'..='\u{3002}'
        | '\u{3008}'..='\u{3011}'
        | '\u{3014}'..='\u{3017}'
        | '\u{301c}'
        | '\u{3041}'..='\u{3096}'
        | '\u{30a1}'..='\u{30fa}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{ac00}'..='\u{d7a3}'
        | '\u{ff01}'..='\u{ff5e}')
}

/// Ideographs and kana: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'
        | '\u{31f0}'..='\u{31ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{3ffff}')
}

/// A character that a space next to it separates from another word.
fn is_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        !is_cjk(c) && c.is_alphanumeric()
    }
}

/// Scripts without letter case that are common in titles: lower-casing them
/// is a table search that changes nothing.
fn is_caseless(c: char) -> bool {
    is_cjk(c) || matches!(c, '\u{ac00}'..='\u{d7a3}')
}

/// Zero-width and bidi format characters, the soft hyphen and the BOM: they
/// change nothing a reader sees.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}'
        | '\u{61c}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}')
}

/// CJK and typographic punctuation that NFKC leaves alone, as ASCII.
fn map_punct(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xfee0).unwrap_or(c),
        '。' | '｡' => '.',
        '、' | '､' => ',',
        '「' | '」' | '『' | '』' | '“' | '”' | '„' | '‟' | '〝' | '〞' | '《' | '》' | '〈'
        | '〉' | '«' | '»' => '"',
        '‘' | '’' | '‚' | '‛' => '\'',
        '【' | '〔' | '〖' => '[',
        '】' | '〕' | '〗' => ']',
        '‐' | '‑' | '‒' | '–' | '—' | '―' | '−' => '-',
        '〜' => '~',
        '・' | '･' => '·',
        _ => c,
    }
}

/// Maps, lower-cases and re-spaces `chars` into `out` in one pass.
fn fold(chars: impl Iterator<Item = char>, out: &mut String) {
    fold_checked::<false>(chars, out);
}

/// [`fold`]; with `CHECK`, stops and returns `false` at the first character
/// that needs NFKC first (not [`skips_nfkc`]), leaving `out` half written.
fn fold_checked<const CHECK: bool>(chars: impl Iterator<Item = char>, out: &mut String) -> bool {
    let mut pending_space = false;
    let emit = |o: char, out: &mut String, pending: &mut bool| {
        if *pending {
            if let Some(p) = out.chars().next_back()
                && is_word(p)
                && is_word(o)
            {
                out.push(' ');
            }
            *pending = false;
        }
        out.push(o);
    };
    for c in chars {
        if matches!(c, '\u{4e00}'..='\u{9fff}') {
            // The bulk of Chinese titles: no case, no mapping, never spaced.
            pending_space = false;
            out.push(c);
            continue;
        }
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() || c.is_ascii_punctuation() {
                emit(c.to_ascii_lowercase(), out, &mut pending_space);
            } else {
                pending_space = true;
            }
            continue;
        }
        if CHECK && !skips_nfkc(c) {
            return false;
        }
        if c.is_whitespace() || c.is_control() {
            pending_space = true;
            continue;
        }
        if is_invisible(c) {
            continue;
        }
        match map_punct(c) {
            '…' | '⋯' => {
                for _ in 0..3 {
                    emit('.', out, &mut pending_space);
                }
            }
            'ß' | 'ẞ' => {
                emit('s', out, &mut pending_space);
                emit('s', out, &mut pending_space);
            }
            'ς' => emit('σ', out, &mut pending_space),
            m if m.is_ascii() => emit(m.to_ascii_lowercase(), out, &mut pending_space),
            m if is_caseless(m) => emit(m, out, &mut pending_space),
            m => {
                for l in m.to_lowercase() {
                    emit(l, out, &mut pending_space);
                }
            }
        }
    }
    true
}

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '|' | '_' | '·')
}

/// Removes truncation marks and site-name suffixes until nothing changes.
fn strip_tail(out: &mut String) {
    // Each round removes at least one character, so this ends; the bound only
    // caps work on adversarial input.
    for _ in 0..64 {
        let before = out.len();
        strip_truncation(out);
        strip_site_suffix(out);
        if out.len() == before {
            break;
        }
    }
}

fn strip_truncation(out: &mut String) {
    // Terminal punctuation goes too: headlines and result titles differ in a
    // final `.` or `!` far more often than in meaning.
    let len = out
        .trim_end_matches([' ', '.', '!', '?', ',', ';', ':'])
        .len();
    if len > 0 {
        out.truncate(len);
    }
}

/// Longest segment any rule strips, in bytes: 30 characters of up to 4 bytes.
const MAX_SEGMENT_BYTES: usize = 120;

/// Longest entry of [`KNOWN_SITES`], in bytes.
const MAX_KNOWN_BYTES: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < KNOWN_SITES.len() {
        if KNOWN_SITES[i].len() > max {
            max = KNOWN_SITES[i].len();
        }
        i += 1;
    }
    max
};

fn strip_site_suffix(out: &mut String) {
    // Up to two separators back, so a known name containing a separator
    // (`merriam-webster`) is found whole.
    let candidates: [Option<(usize, usize)>; 2] = {
        let mut seps = separators_rev(out);
        [seps.next(), seps.next()]
    };
    let Some((last, _)) = candidates[0] else {
        return;
    };
    for (pos, sep_len) in candidates.into_iter().flatten() {
        let segment = &out[pos + sep_len..];
        if segment.is_empty() {
            continue;
        }
        let head = out[..pos].trim_end_matches(|c: char| is_sep(c) || c == ' ' || c == ':');
        let mut head_chars = head.chars();
        if head_chars.next().is_none() || head_chars.next().is_none() {
            continue;
        }
        let sep = out[pos..].chars().next().unwrap_or('-');
        let strip = (segment.len() <= MAX_KNOWN_BYTES
            && KNOWN_SITES.binary_search(&segment).is_ok())
            || (pos == last && (ends_with_domain(segment) || generic_site(sep, segment, head)));
        if strip {
            let len = head.len();
            out.truncate(len);
            return;
        }
    }
}

/// Byte positions and lengths of separators, last first: the characters of
/// [`is_sep`], and `::` (a single `:` starts a subtitle, not a site name).
/// Scans bytes: every separator is ASCII but `·` (`C2 B7`), and a `B7` byte
/// after `C2` can only be that character.
fn separators_rev(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = s.as_bytes();
    // A separator further back leaves a segment no rule strips.
    let window = b.len().saturating_sub(MAX_SEGMENT_BYTES + 2);
    let mut i = b.len();
    // A plain loop with a table test per byte: the iterator adaptor version
    // cost ~1,000 instructions per title (callgrind), most of a title's cost.
    std::iter::from_fn(move || {
        while i > window {
            i -= 1;
            let c = b[i];
            if !SEP_BYTE[usize::from(c)] {
                continue;
            }
            match c {
                b'-' | b'|' | b'_' => return Some((i, 1)),
                b':' if b.get(i + 1) == Some(&b':') => return Some((i, 2)),
                0xb7 if i > 0 && b[i - 1] == 0xc2 => {
                    i -= 1;
                    return Some((i, 2));
                }
                _ => {}
            }
        }
        None
    })
}

/// Bytes that may start or end a separator (see [`separators_rev`]).
static SEP_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    t[b'-' as usize] = true;
    t[b'|' as usize] = true;
    t[b'_' as usize] = true;
    t[b':' as usize] = true;
    t[0xb7] = true;
    t
};

/// The segment is a domain name, or a short name ending in one
/// (`游民星空 gamersky.com`, folded to `游民星空gamersky.com`).
fn ends_with_domain(segment: &str) -> bool {
    let name_len = segment
        .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '.')
        .len();
    segment.split(' ').count() <= 4
        && segment.chars().count() <= 30
        && is_domain(&segment[name_len..])
}

/// `w3schools.com`, `zh.wikipedia.org`: letters/digits/hyphens in dot-separated
/// labels ending in an alphabetic label of two or more letters.
fn is_domain(s: &str) -> bool {
    let Some((_, tld)) = s.rsplit_once('.') else {
        return false;
    };
    tld.len() >= 2
        && tld.bytes().all(|b| b.is_ascii_lowercase())
        && s.split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

/// The general rule for short segments that look like a site name.
fn generic_site(sep: char, segment: &str, head: &str) -> bool {
    let seg_chars = segment.chars().count();
    let fits = match sep {
        '|' | '·' | ':' => {
            seg_chars <= 30
                && segment.split(' ').count() <= 4
                && segment.chars().any(char::is_alphanumeric)
        }
        '-' | '_' => {
            seg_chars <= 6
                && segment.chars().any(is_cjk)
                && segment
                    .chars()
                    .all(|c| is_cjk(c) || c.is_ascii_alphanumeric())
        }
        _ => false,
    };
    // The head must be at least twice as long as the segment.
    fits && head
        .chars()
        .nth((2 * seg_chars).saturating_sub(1))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sites_are_sorted_and_normalized() {
        assert!(
            KNOWN_SITES.windows(2).all(|w| w[0] < w[1]),
            "KNOWN_SITES must be sorted"
        );
        for s in KNOWN_SITES {
            let mut o = String::new();
            fold(s.chars(), &mut o);
            assert_eq!(&o, s, "KNOWN_SITES entries must be in folded form");
        }
    }

    #[test]
    fn suffixes_and_marks_go() {
        assert_eq!(
            normalize("Rust (programming language) - Wikipedia"),
            "rust(programming language)"
        );
        assert_eq!(
            normalize("怎么可以在微信里面打开APP下载链接地址_百度经验"),
            "怎么可以在微信里面打开app下载链接地址"
        );
        assert_eq!(
            normalize("A very long title that was cut ..."),
            "a very long title that was cut"
        );
        assert_eq!(
            normalize("Star Wars: Episode IV - A New Hope"),
            "star wars:episode iv-a new hope"
        );
    }

    #[test]
    fn full_width_punctuation_folds() {
        assert_eq!(
            normalize("延迟退休真的来了！你准备好“慢慢变老”了吗?"),
            normalize("延迟退休真的来了！你准备好“慢慢变老”了吗？")
        );
    }
}
