//! The title normalization as it was before [`fold_fast`] and the bounded
//! separator scans: the reference the fast paths are tested against.
//! (Test builds only.)

use super::sites::{known_sites, max_known_bytes};
use super::*;

/// The characters the fold took as their own NFKC before `…` and `→`
/// joined them: titles with any other character go through NFKC here.
fn skipped_nfkc(c: char) -> bool {
    skips_nfkc(c) && !matches!(c, '…' | '→')
}

fn fold_general(title: &str, out: &mut String) {
    out.clear();
    if !(title.chars().all(skipped_nfkc) && fold_checked::<true>(title.chars(), out)) {
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
}

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '|' | '_' | '·')
}

pub(super) fn normalize(title: &str) -> String {
    let mut out = String::new();
    fold_general(title, &mut out);
    strip_tail(&mut out);
    out
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
        let strip = (segment.len() <= max_known_bytes()
            && known_sites().binary_search(&segment).is_ok())
            || (pos == last && (ends_with_domain(segment) || generic_site(sep, segment, head)));
        if strip {
            let len = head.len();
            out.truncate(len);
            return;
        }
    }
}

/// Byte positions and lengths of separators, last first: the characters of
/// [`is_sep`], and `::` (a single `:` starts a subtitle, not a site name),
/// among the last `MAX_SEGMENT_BYTES + 2` bytes (a separator further back
/// leaves a segment no rule strips). Character by character, so it checks
/// the byte loop of [`super::separator_before`] rather than repeating it.
fn separators_rev(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let window = s.len().saturating_sub(MAX_SEGMENT_BYTES + 2);
    s.char_indices()
        .rev()
        .take_while(move |&(i, c)| i + c.len_utf8() > window)
        .filter_map(move |(i, c)| {
            if is_sep(c) {
                Some((i, c.len_utf8()))
            } else if c == ':' && s[i + 1..].starts_with(':') {
                Some((i, 2))
            } else {
                None
            }
        })
}

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

/// [`super::is_truncated`] for any title: the reference its byte checks are
/// tested against.
pub(super) fn is_truncated(title: &str) -> bool {
    super::is_truncated_general(title)
}

/// Real titles: the parsers' golden outputs of the saved result pages
/// (`tests/snapshots/`, every `title` field), the DuReader Baidu results,
/// the AG News, NLPCC headline and SearchSnippets corpora (every line, and
/// every field of the CSV), in every script and shape the fast paths see:
/// Baidu's `_百度知道` suffixes, ` - Wikipedia`, `(AP)`, cut titles. (The
/// corpora from the team's data folder; generated stand-ins without it.)
pub(crate) fn fixture_titles() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/");
    let mut titles = Vec::new();
    let snapshots = format!("{root}snapshots");
    let mut paths: Vec<_> = std::fs::read_dir(&snapshots)
        .unwrap_or_else(|e| panic!("{snapshots}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .collect();
    paths.sort();
    for path in paths {
        let text = crate::test_data::read(&path.to_string_lossy());
        // The value after the snapshot's header.
        let Some(json) = text.splitn(3, "---").nth(2) else {
            continue;
        };
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
            collect_titles(&v, &mut titles);
        }
    }
    for (title, _) in crate::test_data::dureader_results() {
        titles.push(title);
    }
    for rel in [
        "ag_news_en/test.csv",
        "nlpcc2017_headlines_zh/headlines.tsv",
        "searchsnippets_en/SearchSnippets.txt",
    ] {
        for line in &crate::test_data::corpus_lines(rel, 2000) {
            titles.push(line.to_string());
            titles.extend(line.split(['"', '\t']).map(str::to_string));
        }
    }
    assert!(titles.len() > 10_000, "{} titles", titles.len());
    titles
}

fn collect_titles(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match x.as_str() {
                    Some(t) if k == "title" => out.push(t.to_string()),
                    _ => collect_titles(x, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_titles(x, out)),
        _ => {}
    }
}
