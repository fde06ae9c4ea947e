//! The "compared with the configured settings" panel of the results page:
//! which groups formed or split when a request re-clusters with other dedup
//! settings, and which results moved when it asks for another fusion
//! method, as display data for `results.html`.

use super::i18n::Tr;
use super::ui::safe_href;

/// "Compared with the configured settings": what re-clustering changed.
#[derive(Debug, Clone)]
pub struct ComparisonView {
    /// `method, os1, os2` of `[dedup]` (and the `[fusion]` method when
    /// this page's differs).
    pub configured: String,
    /// `method, os1, os2` of this page (and its fusion method when it
    /// differs).
    pub requested: String,
    /// Results that moved under another fusion method.
    pub moved: Vec<MovedView>,
    /// Engine records compared.
    pub records: usize,
    /// Results under the configured settings (all pages).
    pub results_before: usize,
    /// Results under the requested settings (all pages).
    pub results_after: usize,
    /// Groups formed / joined / split / left.
    pub formed: usize,
    /// Groups that records joined.
    pub joined: usize,
    /// Groups that split.
    pub split: usize,
    /// Groups that records left.
    pub left: usize,
    /// Formed and joined groups.
    pub formed_groups: Vec<ChangeView>,
    /// Split and left groups.
    pub split_groups: Vec<ChangeView>,
}

/// One result whose rank another fusion method changed.
#[derive(Debug, Clone)]
pub struct MovedView {
    /// Its title (its link when it has none).
    pub title: String,
    /// Its link, when safe to show.
    pub href: Option<String>,
    /// How many engines found it.
    pub engines: usize,
    /// Rank under the configured method.
    pub before: usize,
    /// Rank on this page's.
    pub after: usize,
    /// `up` or `down`.
    pub way: &'static str,
}

/// One group that formed or split.
#[derive(Debug, Clone)]
pub struct ChangeView {
    /// `formed` | `joined` | `split` | `left`.
    pub kind: &'static str,
    /// The kind as the reader's language says it.
    pub kind_label: String,
    /// One line saying what happened.
    pub headline: String,
    /// Its records, kept one first.
    pub members: Vec<MemberView>,
}

/// A record of a changed group.
#[derive(Debug, Clone)]
pub struct MemberView {
    /// Title.
    pub title: String,
    /// The link when it is safe to follow.
    pub href: Option<String>,
    /// `engine #position`.
    pub found_by: String,
    /// `kept`, or the stage that folded it and its similarity.
    pub how: String,
    /// Where it was (formed side) or goes (split side).
    pub note: String,
    /// It joined or left the group that carries on.
    pub moved: bool,
    /// `joined` / `left` (in the reader's language) for a record that
    /// moved, else empty.
    pub tag: String,
}

impl ComparisonView {
    /// The display form of a comparison.
    pub fn new(c: &crate::fusion::compare::SettingsComparison, tr: &Tr) -> ComparisonView {
        let d = &c.diff;
        let fusion_line = |f: &crate::config::FusionSettings| {
            if c.configured_fusion == c.requested_fusion {
                String::new()
            } else {
                format!("; {} {}", tr.t("fusion"), f.label())
            }
        };
        ComparisonView {
            configured: settings_line(&c.configured) + &fusion_line(&c.configured_fusion),
            requested: settings_line(&c.requested) + &fusion_line(&c.requested_fusion),
            moved: c
                .moved
                .iter()
                .map(|m| MovedView {
                    title: if m.title.trim().is_empty() {
                        m.url.clone()
                    } else {
                        m.title.clone()
                    },
                    href: safe_href(&m.url),
                    engines: m.engines.len(),
                    before: m.before,
                    after: m.after,
                    way: if m.after < m.before { "up" } else { "down" },
                })
                .collect(),
            records: d.records,
            results_before: d.results_before,
            results_after: d.results_after,
            formed: d.counts.formed,
            joined: d.counts.joined,
            split: d.counts.split,
            left: d.counts.left,
            formed_groups: d.formed.iter().map(|g| change_view(g, true, tr)).collect(),
            split_groups: d.split.iter().map(|g| change_view(g, false, tr)).collect(),
        }
    }
}

fn settings_line(s: &metasift_dedup::Settings) -> String {
    format!("{}, os1 {:.2}, os2 {:.2}", s.method.as_str(), s.os1, s.os2)
}

/// `formed_side`: the group exists under the requested settings and its
/// parts are where its records were before; else the reverse.
fn change_view(g: &crate::fusion::compare::GroupChange, formed_side: bool, tr: &Tr) -> ChangeView {
    use crate::fusion::compare::ChangeKind;
    let carried = g.parts.iter().position(|p| p.members.len() >= 2);
    let carried = match g.kind {
        ChangeKind::Joined | ChangeKind::Left => carried,
        ChangeKind::Formed | ChangeKind::Split => None,
    };
    let kept_title = g.members.first().map_or("", |m| m.title.as_str());
    let moved = g.members.iter().filter(|m| Some(m.part) != carried).count();
    let n = g.members.len();
    let title = || vec![("title", kept_title.to_string())];
    let headline = match g.kind {
        ChangeKind::Joined => tr.with_n("compare-headline-joined", moved as u64, &title()),
        ChangeKind::Left => tr.with_n("compare-headline-left", moved as u64, &title()),
        ChangeKind::Formed => {
            let groups = g.parts.iter().filter(|p| p.group_size >= 2).count();
            let alone = g.parts.len() - groups;
            let mut from = Vec::new();
            if alone > 0 {
                from.push(tr.n("compare-from-alone", alone as u64));
            }
            if groups > 0 {
                from.push(tr.n("compare-from-groups", groups as u64));
            }
            let from = match &from[..] {
                [a, b] => tr.with("compare-from-and", &[("a", a.clone()), ("b", b.clone())]),
                _ => from.concat(),
            };
            tr.with_n("compare-headline-formed", n as u64, &[("from", from)])
        }
        ChangeKind::Split => tr.with_n(
            "compare-headline-split",
            n as u64,
            &[("parts", g.parts.len().to_string())],
        ),
    };
    let members = g
        .members
        .iter()
        .map(|m| {
            let size = g.parts.get(m.part).map_or(1, |p| p.group_size);
            let note = match (formed_side, size) {
                (true, 1) => tr.t("compare-note-was-alone"),
                (true, n) => tr.n("compare-note-was-in", n as u64),
                (false, 1) => tr.t("compare-note-now-alone"),
                (false, n) => tr.n("compare-note-now-in", n as u64),
            };
            let how = match m.stage {
                None => tr.t("compare-kept"),
                Some(stage) => match m.similarity.filter(|s| s.is_finite()) {
                    Some(s) => format!("{} · {} {s:.2}", stage.as_str(), tr.t("similarity")),
                    None => stage.as_str().to_string(),
                },
            };
            MemberView {
                title: if m.title.trim().is_empty() {
                    m.url.clone()
                } else {
                    m.title.clone()
                },
                href: safe_href(&m.url),
                found_by: format!("{} #{}", tr.engine(&m.engine), m.position),
                how,
                note,
                moved: carried.is_some() && Some(m.part) != carried,
                tag: match g.kind {
                    _ if carried.is_none() || Some(m.part) == carried => String::new(),
                    ChangeKind::Left => tr.t("compare-left"),
                    _ => tr.t("compare-joined"),
                },
            }
        })
        .collect();
    ChangeView {
        kind: g.kind.as_str(),
        kind_label: tr.t(&format!("compare-{}", g.kind.as_str())),
        headline,
        members,
    }
}
