//! A searcher's own hostname rules, kept in the preferences cookie: one
//! text per rule kind (`hn_remove`, `hn_replace`, `hn_boost`, `hn_lower`),
//! one pattern a line (`replace`: `pattern = host`), laid over the
//! configuration's `[hostnames]` for that searcher's searches. The cookie
//! bounds them (at most [`super::prefs`]'s 4096 bytes, else it is not read);
//! the patterns are compiled under [`hosts::PREFS_CAPS`], and a compiled
//! set is kept for the next searches with the same text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::i18n::Tr;
use crate::hosts::{self, Kind, Lists, Rules};

/// Lines kept of one list (the cookie's cap bounds them first; this bounds
/// a form or a share link).
const MAX_LINES: usize = 256;

/// Compiled rule sets kept (one per distinct text); all are dropped when
/// full.
const MAX_COMPILED: usize = 256;

/// The four lists as the searcher wrote them: lines trimmed, blank lines
/// dropped, in [`Kind::ALL`]'s order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HostPrefs {
    texts: [String; 4],
}

/// One line the searcher wrote that cannot work: its list, its line
/// (1-based, in the text as kept) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineError {
    pub kind: Kind,
    /// `None`: the list as a whole.
    pub line: Option<usize>,
    pub message: String,
}

/// One list's text area on the preferences page.
#[derive(Debug, Clone)]
pub(super) struct Field {
    /// The form field.
    pub name: &'static str,
    /// Its label.
    pub label: String,
    /// The list now.
    pub text: String,
}

/// The text areas of `prefs`' lists.
pub(super) fn fields(prefs: &HostPrefs, tr: &Tr) -> Vec<Field> {
    Kind::ALL
        .into_iter()
        .map(|kind| Field {
            name: field(kind),
            label: tr.t(&format!("prefs-hn-{}", kind.as_str())),
            text: prefs.text(kind).to_string(),
        })
        .collect()
}

/// The form and cookie field of a kind's list.
pub(super) fn field(kind: Kind) -> &'static str {
    match kind {
        Kind::Remove => "hn_remove",
        Kind::Replace => "hn_replace",
        Kind::Boost => "hn_boost",
        Kind::Lower => "hn_lower",
    }
}

fn slot(kind: Kind) -> usize {
    Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

impl HostPrefs {
    /// Reads the field `name` when it is one of the lists; false otherwise.
    pub(super) fn read(&mut self, name: &str, value: &str) -> bool {
        let Some(kind) = Kind::ALL.into_iter().find(|k| field(*k) == name) else {
            return false;
        };
        let lines: Vec<&str> = value
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(MAX_LINES)
            .collect();
        self.texts[slot(kind)] = lines.join("\n");
        true
    }

    /// The text of a kind's list.
    pub(super) fn text(&self, kind: Kind) -> &str {
        &self.texts[slot(kind)]
    }

    /// No rule written.
    pub(super) fn is_empty(&self) -> bool {
        self.texts.iter().all(String::is_empty)
    }

    /// The lists' fields, those not empty, for the cookie.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (&'static str, &str)> {
        Kind::ALL
            .into_iter()
            .map(|k| (field(k), self.text(k)))
            .filter(|(_, t)| !t.is_empty())
    }

    /// The lists, and for each entry of each list the line it is on; a
    /// `replace` line that is no `pattern = host` is an error.
    fn lists(&self) -> (Lists, HashMap<(Kind, usize), usize>, Vec<LineError>) {
        let mut lists = Lists::default();
        let mut lines = HashMap::new();
        let mut errors = Vec::new();
        for kind in Kind::ALL {
            for (n, line) in self.text(kind).lines().enumerate() {
                let entry = match kind {
                    Kind::Replace => match line.rsplit_once('=') {
                        Some((p, h)) => {
                            lists
                                .replace
                                .push((p.trim().to_string(), h.trim().to_string()));
                            lists.replace.len()
                        }
                        None => {
                            errors.push(LineError {
                                kind,
                                line: Some(n + 1),
                                message: format!("{line:?}: write `pattern = host`"),
                            });
                            continue;
                        }
                    },
                    Kind::Remove => push(&mut lists.remove, line),
                    Kind::Boost => push(&mut lists.boost, line),
                    Kind::Lower => push(&mut lists.lower, line),
                };
                lines.insert((kind, entry - 1), n + 1);
            }
        }
        (lists, lines, errors)
    }

    /// Every line that cannot work, in list and line order.
    pub(super) fn check(&self) -> Vec<LineError> {
        let (lists, lines, mut errors) = self.lists();
        let (_, refused) = compile(&lists);
        errors.extend(refused.into_iter().map(|e| LineError {
            kind: e.kind,
            line: e.index.and_then(|i| lines.get(&(e.kind, i)).copied()),
            message: match e.index {
                Some(_) => format!("{:?}: {}", e.pattern, e.message),
                None => e.message,
            },
        }));
        errors.sort_by_key(|e| (slot(e.kind), e.line));
        errors
    }

    /// The rules these lists make (the lines that cannot work left out: a
    /// stale cookie never breaks searching); `None` when there are none.
    pub(crate) fn rules(&self) -> Option<Arc<Rules>> {
        if self.is_empty() {
            return None;
        }
        let key = self.texts.join("\u{0}");
        let kept = KEPT.get_or_init(Mutex::default);
        if let Some(r) = kept.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Some(r);
        }
        let (lists, _, _) = self.lists();
        let rules = Arc::new(compile(&lists).0);
        if let Ok(mut m) = kept.lock() {
            if m.len() >= MAX_COMPILED {
                m.clear();
            }
            m.insert(key, rules.clone());
        }
        Some(rules)
    }
}

/// Compiled rule sets by their lists' text.
static KEPT: OnceLock<Mutex<HashMap<String, Arc<Rules>>>> = OnceLock::new();

fn push(list: &mut Vec<String>, line: &str) -> usize {
    list.push(line.to_string());
    list.len()
}

fn compile(lists: &Lists) -> (Rules, Vec<hosts::RuleError>) {
    // A searcher's lists carry no factors: the configuration's apply.
    Rules::compile(
        lists,
        &hosts::PREFS_CAPS,
        hosts::DEFAULT_BOOST_FACTOR,
        hosts::DEFAULT_LOWER_FACTOR,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefs(pairs: &[(&str, &str)]) -> HostPrefs {
        let mut p = HostPrefs::default();
        for (k, v) in pairs {
            assert!(p.read(k, v), "{k}");
        }
        p
    }

    #[test]
    fn lines_are_kept_trimmed_and_every_bad_one_is_named_by_its_line() {
        let p = prefs(&[
            (
                "hn_remove",
                "  pinterest.com \r\n\r\n*.quora.com\nexample.net",
            ),
            (
                "hn_replace",
                "(.*\\.)?youtube\\.com = invidious.example\nreddit.com",
            ),
            ("hn_lower", "(a"),
        ]);
        assert_eq!(
            p.text(Kind::Remove),
            "pinterest.com\n*.quora.com\nexample.net"
        );
        let errors = p.check();
        let found: Vec<(Kind, Option<usize>)> = errors.iter().map(|e| (e.kind, e.line)).collect();
        assert_eq!(
            found,
            [
                (Kind::Remove, Some(2)),
                (Kind::Replace, Some(2)),
                (Kind::Lower, Some(1))
            ],
            "{errors:?}"
        );
        assert!(
            errors[0].message.contains("write \"quora.com\""),
            "{errors:?}"
        );
        // The good lines still make rules.
        let rules = p.rules().expect("rules");
        let host = hosts::HostRules::new(Arc::default(), Some(rules));
        assert!(host.removes("www.pinterest.com") && !host.removes("quora.com"));
        assert_eq!(
            host.replaced("https://m.youtube.com/watch?v=1").as_deref(),
            Some("https://invidious.example/watch?v=1")
        );
    }

    #[test]
    fn a_list_is_bounded() {
        let many: String = (0..10_000).map(|i| format!("h{i}.example\n")).collect();
        let p = prefs(&[("hn_boost", &many)]);
        assert_eq!(p.text(Kind::Boost).lines().count(), MAX_LINES);
        let errors = p.check();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].line, None);
        assert!(!HostPrefs::default().read("hn_other", "x"));
        assert!(HostPrefs::default().rules().is_none());
    }
}
