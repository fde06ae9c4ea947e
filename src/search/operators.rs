//! Search operators kept on the fused list. The query parser (`query`)
//! reads them; here they are put to work:
//!
//! - **Sent** ([`for_engine`]): an engine is sent the operators its
//!   `operators = [...]` names, as typed; the others are taken out of its
//!   query (a phrase or `intitle:` leaves its words).
//! - **Enforced** ([`OperatorCheck`]): every engine result is checked before
//!   fusion, so each fused result and each of its hidden duplicates keeps
//!   every operator; the results left out are counted and shown.
//!
//! What is checked, and against what:
//!
//! | operator | holds when | checked on results of |
//! | --- | --- | --- |
//! | `site:h` (several: any) | the URL's host is `h` or ends in `.h` | every engine |
//! | `-site:h` | the host is neither | every engine |
//! | `-word`, `-"a phrase"` | not in the title nor the snippet | every engine |
//! | `"a phrase"` | in the title or the snippet | engines not sent it |
//! | `intitle:w` | in the title | engines not sent it |
//! | `filetype:x` (several: any) | the URL path ends in `.x` | engines not sent it |
//!
//! The host and a word seen in a snippet are proof; a phrase missing from
//! a snippet is not (an engine that was sent the phrase matched it on the
//! whole page, and its snippet may show another part), so results of an
//! engine that was sent a positive operator are trusted for it.
//!
//! Text matching: both sides folded the same way (full-width forms to
//! ASCII, lower case by Unicode's rules, whitespace runs to one space);
//! a Latin word or phrase must sit between word boundaries (`-java` keeps
//! JavaScript), a CJK one is a substring (`借用检查` in `Rust的借用检查器`).
//! Titles and snippets are clipped before this (`EngineResult::sanitized`)
//! and the operators capped by the parser, so the work per result is
//! bounded.

use std::borrow::Cow;

use crate::config::OperatorKind;
use crate::model::{EngineResult, Operators, Query};

use super::query::{engine_text, is_cjk};

/// The query `understood` makes for an engine: `query` itself when it has
/// no operators or the engine understands them all, else with the text
/// [`engine_text`] gives.
pub(crate) fn for_engine<'a>(query: &'a Query, understood: &[OperatorKind]) -> Cow<'a, Query> {
    let ops = &query.operators;
    let needs = [
        (
            OperatorKind::Site,
            !ops.sites.is_empty() || !ops.not_sites.is_empty(),
        ),
        (OperatorKind::Exclude, !ops.excluded.is_empty()),
        (OperatorKind::Phrase, !ops.phrases.is_empty()),
        (OperatorKind::Intitle, !ops.intitle.is_empty()),
        (OperatorKind::Filetype, !ops.filetypes.is_empty()),
    ];
    if needs
        .iter()
        .all(|&(kind, used)| !used || understood.contains(&kind))
    {
        return Cow::Borrowed(query);
    }
    Cow::Owned(Query {
        text: engine_text(query, understood),
        ..query.clone()
    })
}

/// A query's operators made ready to check results against: needles
/// folded once per search, not once per result.
#[derive(Debug, Default)]
pub(crate) struct OperatorCheck {
    sites: Vec<String>,
    not_sites: Vec<String>,
    excluded: Vec<String>,
    phrases: Vec<String>,
    intitle: Vec<String>,
    filetypes: Vec<String>,
}

impl OperatorCheck {
    /// The check of `ops`.
    pub(crate) fn new(ops: &Operators) -> OperatorCheck {
        let folded = |v: &[String]| v.iter().map(|s| fold(s)).collect();
        OperatorCheck {
            sites: ops.sites.clone(),
            not_sites: ops.not_sites.clone(),
            excluded: folded(&ops.excluded),
            phrases: folded(&ops.phrases),
            intitle: folded(&ops.intitle),
            filetypes: ops.filetypes.clone(),
        }
    }

    /// Nothing to check.
    pub(crate) fn is_empty(&self) -> bool {
        self.sites.is_empty()
            && self.not_sites.is_empty()
            && self.excluded.is_empty()
            && self.phrases.is_empty()
            && self.intitle.is_empty()
            && self.filetypes.is_empty()
    }

    /// Whether `result`, from an engine that understands `understood`,
    /// keeps every operator (see the module docs for who is trusted for
    /// what).
    pub(crate) fn keeps(&self, result: &EngineResult, understood: &[OperatorKind]) -> bool {
        if self.is_empty() {
            return true;
        }
        let link = url::Url::parse(result.key()).ok();
        let host = link
            .as_ref()
            .and_then(|u| u.host_str())
            .map(|h| h.trim_end_matches('.').to_ascii_lowercase());
        let host = host.as_deref().unwrap_or("");
        let under = |site: &String| {
            host == site
                || host
                    .strip_suffix(site.as_str())
                    .is_some_and(|h| h.ends_with('.'))
        };
        if !self.sites.is_empty() && !self.sites.iter().any(under) {
            return false;
        }
        if self.not_sites.iter().any(under) {
            return false;
        }
        let title = fold(&result.title);
        let snippet = fold(&result.snippet);
        let shows = |needle: &String| contains(&title, needle) || contains(&snippet, needle);
        if self.excluded.iter().any(shows) {
            return false;
        }
        let trusted = |kind| understood.contains(&kind);
        if !trusted(OperatorKind::Phrase) && !self.phrases.iter().all(shows) {
            return false;
        }
        if !trusted(OperatorKind::Intitle) && !self.intitle.iter().all(|w| contains(&title, w)) {
            return false;
        }
        if !trusted(OperatorKind::Filetype) && !self.filetypes.is_empty() {
            let ext = link.as_ref().and_then(|u| {
                let last = u.path().rsplit('/').next()?;
                let (_, ext) = last.rsplit_once('.')?;
                Some(ext.to_ascii_lowercase())
            });
            if !ext.is_some_and(|e| self.filetypes.contains(&e)) {
                return false;
            }
        }
        true
    }
}

/// The form text is compared in: full-width ASCII forms and the
/// ideographic space to ASCII, lower case (Unicode's full mapping), runs of
/// whitespace to one space, trimmed.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        };
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Whether folded `needle` occurs in folded `hay`, at word boundaries where
/// its ends are letters or digits of a spaced script.
fn contains(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let word_char = |c: char| c.is_alphanumeric() && !is_cjk(c);
    let first = needle.chars().next().is_some_and(word_char);
    let last = needle.chars().next_back().is_some_and(word_char);
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        (!first || !before.is_some_and(word_char)) && (!last || !after.is_some_and(word_char))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(url: &str, title: &str, snippet: &str) -> EngineResult {
        EngineResult {
            url: url.into(),
            title: title.into(),
            snippet: snippet.into(),
            engine: "e".into(),
            position: 1,
            category: "general".into(),
            published: None,
            thumbnail: None,
            key_url: None,
            display_url: None,
            extra: None,
        }
    }

    fn ops(f: impl FnOnce(&mut Operators)) -> OperatorCheck {
        let mut o = Operators::default();
        f(&mut o);
        OperatorCheck::new(&o)
    }

    #[test]
    fn sites_match_the_host_and_hosts_under_it() {
        let check = ops(|o| o.sites = vec!["example.org".into()]);
        for (url, keeps) in [
            ("https://example.org/a", true),
            ("https://docs.Example.org./a", true),
            ("https://notexample.org/a", false),
            ("https://example.org.evil.com/a", false),
            ("not a url", false),
        ] {
            assert_eq!(check.keeps(&result(url, "t", "s"), &[]), keeps, "{url}");
        }
        let check = ops(|o| o.not_sites = vec!["pinterest.com".into()]);
        assert!(!check.keeps(&result("https://www.pinterest.com/x", "t", "s"), &[]));
        assert!(check.keeps(&result("https://example.com/x", "t", "s"), &[]));
        // Baidu's redirect links are judged by their real target.
        let mut r = result("https://www.baidu.com/link?url=x", "t", "s");
        r.key_url = Some("https://example.org/p".into());
        assert!(ops(|o| o.sites = vec!["example.org".into()]).keeps(&r, &[]));
    }

    #[test]
    fn words_and_phrases_respect_boundaries_and_scripts() {
        let java = ops(|o| o.excluded = vec!["Java".into()]);
        let u = "https://a.example/";
        assert!(!java.keeps(&result(u, "Learn JAVA today", ""), &[]));
        assert!(!java.keeps(&result(u, "t", "Rust vs. java."), &[]));
        assert!(java.keeps(&result(u, "JavaScript guide", "javascript"), &[]));
        assert!(
            !java.keeps(&result(u, "ＪＡＶＡ 入门", ""), &[]),
            "full width"
        );
        // Excluded words are checked even for engines sent them.
        assert!(!java.keeps(&result(u, "java", ""), &OperatorKind::ALL));

        let phrase = ops(|o| o.phrases = vec!["borrow checker".into()]);
        assert!(phrase.keeps(&result(u, "t", "The Borrow  Checker explained"), &[]));
        assert!(!phrase.keeps(&result(u, "borrow the checker", "checker borrow"), &[]));
        assert!(!phrase.keeps(&result(u, "borrow checkers", ""), &[]));
        assert!(
            phrase.keeps(&result(u, "t", "s"), &[OperatorKind::Phrase]),
            "trusted"
        );

        let zh = ops(|o| o.phrases = vec!["借用检查".into()]);
        assert!(zh.keeps(&result(u, "Rust的借用检查器", ""), &[]));
        assert!(!zh.keeps(&result(u, "借用 检查", "检查借用"), &[]));
        let ex_zh = ops(|o| o.excluded = vec!["广告".into()]);
        assert!(!ex_zh.keeps(&result(u, "t", "这是广告内容"), &[]));

        let intitle = ops(|o| o.intitle = vec!["rust".into()]);
        assert!(intitle.keeps(&result(u, "The Rust Book", ""), &[]));
        assert!(!intitle.keeps(&result(u, "The Book", "rust"), &[]));
        assert!(!intitle.keeps(&result(u, "Rusty", ""), &[]));
    }

    #[test]
    fn file_types_are_read_from_the_path() {
        let pdf = ops(|o| o.filetypes = vec!["pdf".into(), "ps".into()]);
        assert!(pdf.keeps(&result("https://a.example/d/Paper.PDF?x=1", "t", ""), &[]));
        assert!(pdf.keeps(&result("https://a.example/p.ps", "t", ""), &[]));
        assert!(!pdf.keeps(&result("https://a.example/pdf", "t", ""), &[]));
        assert!(!pdf.keeps(&result("https://a.example/x.pdf/", "t", ""), &[]));
        assert!(!pdf.keeps(&result("https://a.pdf/", "t", ""), &[]));
        assert!(pdf.keeps(
            &result("https://a.example/x", "t", ""),
            &[OperatorKind::Filetype]
        ));
    }

    proptest::proptest! {
        /// Any needle, any text: no panic, and a needle found in a text
        /// is found again with that text around it between spaces.
        #[test]
        fn matching_never_panics(
            needle in "\\PC{0,12}",
            hay in "\\PC{0,80}",
            url in "\\PC{0,40}",
        ) {
            let check = ops(|o| {
                o.excluded = vec![needle.clone()];
                o.phrases = vec![needle.clone()];
                o.intitle = vec![needle.clone()];
                o.filetypes = vec![needle.clone()];
                o.sites = vec![needle.clone()];
            });
            let _ = check.keeps(&result(&url, &hay, &hay), &[]);
            let (n, h) = (fold(&needle), fold(&hay));
            if contains(&h, &n) {
                let wrapped = format!("x {h} y");
                proptest::prop_assert!(contains(&wrapped, &n));
            }
        }
    }

    #[test]
    fn engines_sent_everything_get_the_query_itself() {
        let query = Query {
            text: "site:a.org rust".into(),
            operators: Operators {
                sites: vec!["a.org".into()],
                ..Operators::default()
            },
            ..Query::default()
        };
        assert!(matches!(
            for_engine(&query, &[OperatorKind::Site]),
            Cow::Borrowed(_)
        ));
        assert_eq!(for_engine(&query, &[]).text, "rust");
    }
}
