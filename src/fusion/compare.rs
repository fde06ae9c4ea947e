//! Comparing two fusions of the same engine answers: which duplicate groups
//! *formed* and which *split* when the dedup settings change, and which
//! results *moved* when the fusion method does ([`Moved`]).
//!
//! The results page re-clusters one fan-out's answers under the configured
//! `[dedup]` settings ("before") and under the ones a reader asked for
//! ("after"), then shows the difference. Both fused lists partition the same
//! engine records into groups (a shown result and the duplicates folded into
//! it); a record is named by its engine and its position there, which is
//! unique within one fan-out.
//!
//! **The diff, precisely.** Only records present in both lists count (two
//! complete fusions of the same answers hold the same records).
//! - An after-group whose records lie in two or more before-groups *formed*
//!   something: records that were apart are now together. Its records are
//!   split into *parts* by their before-group. When exactly one part holds
//!   two or more records, that group carries on and the other parts
//!   **joined** it ([`ChangeKind::Joined`]); otherwise (only single records,
//!   or several pieces of groups coming together) the group **formed**
//!   ([`ChangeKind::Formed`]).
//! - Symmetrically, a before-group whose records lie in two or more
//!   after-groups *split*: when exactly one part keeps two or more records,
//!   the others **left** it ([`ChangeKind::Left`]); otherwise it **split**
//!   ([`ChangeKind::Split`]).
//! - A group whose records stay together (perhaps with another kept record
//!   or other similarities) is unchanged and not listed.
//!
//! A group that gained one record and lost another is listed twice — on the
//! formed side as the after-group the newcomer joined, on the split side as
//! the before-group the other left — since each is a change a reader may
//! want to judge. The counts obey `results_after = results_before +
//! Σ_split (parts − 1) − Σ_formed (parts − 1)`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::config::FusionSettings;
use crate::fusion::{self, EngineAnswer};
use crate::model::{EngineResult, MergedResult};
use metasift_dedup::{self as dedup, Stage};

/// What happened to a group; see the module docs for the exact rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Records (or pieces of groups) that were apart became one group.
    Formed,
    /// Records that were apart joined a group that carries on.
    Joined,
    /// A group came apart with no piece of two or more records carrying on
    /// alone.
    Split,
    /// Records left a group that carries on without them.
    Left,
}

impl ChangeKind {
    /// The name used in JSON and on pages.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Formed => "formed",
            ChangeKind::Joined => "joined",
            ChangeKind::Split => "split",
            ChangeKind::Left => "left",
        }
    }
}

/// One record of a changed group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The engine that returned it.
    pub engine: String,
    /// Its position on that engine's page (with `engine`, its identity).
    pub position: u32,
    /// Its own title. From the fused lists alone a kept record's own title
    /// is known only where it stands alone or is folded in one of them;
    /// otherwise this is its group's most complete title.
    /// [`SettingsComparison::of`] always gives the engine's own.
    pub title: String,
    /// Its link.
    pub url: String,
    /// The stage that folded it into the group's kept record, under the
    /// settings where the group exists; `None` for the kept record.
    pub stage: Option<Stage>,
    /// The similarity of that stage, where one applies.
    pub similarity: Option<f64>,
    /// Index of its part in [`GroupChange::parts`].
    pub part: usize,
}

/// Records of a changed group that share their group on the other side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Indexes into [`GroupChange::members`].
    pub members: Vec<usize>,
    /// How many records that group on the other side holds (1: the record
    /// was — or becomes — a result of its own).
    pub group_size: usize,
}

/// A group that formed or split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupChange {
    /// What happened.
    pub kind: ChangeKind,
    /// The group where it exists (after the change for formed / joined,
    /// before it for split / left), kept record first.
    pub members: Vec<Member>,
    /// Its records by their group on the other side, in member order.
    pub parts: Vec<Part>,
}

/// How many groups changed, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Groups of [`ChangeKind::Formed`].
    pub formed: usize,
    /// Groups of [`ChangeKind::Joined`].
    pub joined: usize,
    /// Groups of [`ChangeKind::Split`].
    pub split: usize,
    /// Groups of [`ChangeKind::Left`].
    pub left: usize,
}

/// The difference between two fusions of the same records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Records present in both lists (the ones compared).
    pub records: usize,
    /// Results (groups) in the list before.
    pub results_before: usize,
    /// Results (groups) in the list after.
    pub results_after: usize,
    /// Changes by kind.
    pub counts: Counts,
    /// Groups that formed or were joined, in the after-list's order.
    pub formed: Vec<GroupChange>,
    /// Groups that split or were left, in the before-list's order.
    pub split: Vec<GroupChange>,
}

impl Comparison {
    /// Whether no group changed.
    #[cfg(test)]
    pub(crate) fn is_unchanged(&self) -> bool {
        self.formed.is_empty() && self.split.is_empty()
    }
}

/// A result whose place changed between the two lists (listed when the
/// fusion settings differ): the same kept record, another rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moved {
    /// Its title (the after-list's).
    pub title: String,
    /// Its link.
    pub url: String,
    /// The engines that found it.
    pub engines: Vec<String>,
    /// 1-based rank in the list before.
    pub before: usize,
    /// 1-based rank in the list after.
    pub after: usize,
}

/// How many of the after-list's first results [`Moved`] looks at: a
/// page's worth and some.
pub const MOVED_WITHIN: usize = 20;

/// The comparison the results page and `format=json` show: one fan-out's
/// answers fused under the configured settings and under the requested
/// ones, whole (not cut to a page), and what changed between the two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingsComparison {
    /// The `[dedup]` settings of the configuration ("before").
    pub configured: dedup::Settings,
    /// The settings the request asked for ("after").
    pub requested: dedup::Settings,
    /// The `[fusion]` settings of the configuration ("before").
    #[serde(default)]
    pub configured_fusion: FusionSettings,
    /// The fusion settings the request asked for ("after").
    #[serde(default)]
    pub requested_fusion: FusionSettings,
    /// When the fusion settings differ: the results among the after-list's
    /// first [`MOVED_WITHIN`] whose rank changed, in the after-list's order.
    #[serde(default)]
    pub moved: Vec<Moved>,
    /// What changed.
    #[serde(flatten)]
    pub diff: Comparison,
}

impl SettingsComparison {
    /// Fuses `answers` under both dedup settings (the fusion method
    /// `[fusion]`'s default for both) and compares the two lists.
    pub fn of(
        answers: &[EngineAnswer],
        configured: &dedup::Settings,
        requested: &dedup::Settings,
    ) -> SettingsComparison {
        let fusion = FusionSettings::default();
        SettingsComparison::of_fused(
            answers,
            (configured, &fusion),
            (requested, &fusion),
            None,
            None,
        )
    }

    /// [`SettingsComparison::of`] when the fusion under `requested` is at
    /// hand (`after`: the whole fused list of `answers`, as the search that
    /// shows the comparison made it): only the configured settings' fusion
    /// is made here. The fusions made stop at `deadline`
    /// ([`fusion::fuse_until`]).
    pub fn of_fused(
        answers: &[EngineAnswer],
        configured: (&dedup::Settings, &FusionSettings),
        requested: (&dedup::Settings, &FusionSettings),
        after: Option<&[MergedResult]>,
        deadline: Option<std::time::Instant>,
    ) -> SettingsComparison {
        let before = fusion::fuse_until(answers, configured.0, configured.1, false, deadline);
        let fused;
        let after = match after {
            Some(after) => after,
            None => {
                fused = fusion::fuse_until(answers, requested.0, requested.1, false, deadline);
                &fused
            }
        };
        let moved = if configured.1 == requested.1 {
            Vec::new()
        } else {
            moves(&before, after)
        };
        let mut diff = compare(&before, after);
        // A fused result shows its group's most complete title, which may
        // be another member's: with the answers at hand every member gets
        // its own title and link, as its engine gave them.
        let records: HashMap<(&str, u32), &EngineResult> = answers
            .iter()
            .flat_map(|a| &a.results)
            .map(|r| ((r.engine.as_str(), r.position), r))
            .collect();
        for g in diff.formed.iter_mut().chain(diff.split.iter_mut()) {
            for m in &mut g.members {
                if let Some(r) = records.get(&(m.engine.as_str(), m.position)) {
                    m.title = r.title.clone();
                    m.url = r.url.clone();
                }
            }
        }
        SettingsComparison {
            configured: configured.0.clone(),
            requested: requested.0.clone(),
            configured_fusion: *configured.1,
            requested_fusion: *requested.1,
            moved,
            diff,
        }
    }
}

/// The results among `after`'s first [`MOVED_WITHIN`] whose rank differs in
/// `before`, a result named by its kept record (engine and position).
pub fn moves(before: &[MergedResult], after: &[MergedResult]) -> Vec<Moved> {
    let id = |r: &MergedResult| (r.engine.clone(), r.positions.first().copied().unwrap_or(0));
    let rank_before: HashMap<RecordId, usize> = before
        .iter()
        .enumerate()
        .map(|(i, r)| (id(r), i + 1))
        .collect();
    after
        .iter()
        .take(MOVED_WITHIN)
        .enumerate()
        .filter_map(|(i, r)| {
            let was = *rank_before.get(&id(r))?;
            (was != i + 1).then(|| Moved {
                title: r.title.clone(),
                url: r.url.clone(),
                engines: r.engines.clone(),
                before: was,
                after: i + 1,
            })
        })
        .collect()
}

/// Engine name and position: a record's identity within one fan-out.
type RecordId = (String, u32);

/// A fused list as groups of records.
struct Grouping {
    groups: Vec<Vec<Member>>,
    group_of: HashMap<RecordId, usize>,
}

impl Grouping {
    /// A record met twice (which a correct fusion never gives) counts once,
    /// where it was met first.
    fn of(list: &[MergedResult]) -> Grouping {
        let mut groups = Vec::with_capacity(list.len());
        let mut group_of = HashMap::new();
        for r in list {
            let g = groups.len();
            let mut members = Vec::with_capacity(1 + r.duplicates.len());
            let kept = (r.engine.clone(), r.positions.first().copied().unwrap_or(0));
            if group_of.insert(kept.clone(), g).is_none() {
                members.push(Member {
                    engine: kept.0,
                    position: kept.1,
                    title: r.title.clone(),
                    url: r.url.clone(),
                    stage: None,
                    similarity: None,
                    part: 0,
                });
            }
            for d in &r.duplicates {
                let id = (d.engine.clone(), d.position);
                if group_of.contains_key(&id) {
                    continue;
                }
                group_of.insert(id, g);
                members.push(Member {
                    engine: d.engine.clone(),
                    position: d.position,
                    title: d.title.clone(),
                    url: d.url.clone(),
                    stage: Some(d.stage),
                    similarity: d.similarity,
                    part: 0,
                });
            }
            groups.push(members);
        }
        Grouping { groups, group_of }
    }

    /// Records' own titles: a folded record's is its own, and so is a
    /// result's that folded nothing (a group's title is the most complete
    /// of its members', not necessarily its kept record's).
    fn own_titles(list: &[MergedResult], into: &mut HashMap<RecordId, String>) {
        for r in list {
            if r.duplicates.is_empty() {
                let id = (r.engine.clone(), r.positions.first().copied().unwrap_or(0));
                into.entry(id).or_insert_with(|| r.title.clone());
            }
            for d in &r.duplicates {
                into.entry((d.engine.clone(), d.position))
                    .or_insert_with(|| d.title.clone());
            }
        }
    }
}

/// The groups that formed and split from `before` to `after`, two fused
/// lists of the same records (see the module docs for the rules).
pub fn compare(before: &[MergedResult], after: &[MergedResult]) -> Comparison {
    let a = Grouping::of(before);
    let b = Grouping::of(after);
    let mut titles = HashMap::new();
    Grouping::own_titles(before, &mut titles);
    Grouping::own_titles(after, &mut titles);

    let formed = changes(&b, &a, &titles, ChangeKind::Joined, ChangeKind::Formed);
    let split = changes(&a, &b, &titles, ChangeKind::Left, ChangeKind::Split);
    let count = |list: &[GroupChange], kind| list.iter().filter(|c| c.kind == kind).count();
    Comparison {
        records: a
            .group_of
            .keys()
            .filter(|id| b.group_of.contains_key(*id))
            .count(),
        results_before: before.len(),
        results_after: after.len(),
        counts: Counts {
            formed: count(&formed, ChangeKind::Formed),
            joined: count(&formed, ChangeKind::Joined),
            split: count(&split, ChangeKind::Split),
            left: count(&split, ChangeKind::Left),
        },
        formed,
        split,
    }
}

/// The groups of `here` whose common records lie in two or more groups of
/// `there`: `carried` when exactly one part has two or more records, else
/// `otherwise`.
fn changes(
    here: &Grouping,
    there: &Grouping,
    titles: &HashMap<RecordId, String>,
    carried: ChangeKind,
    otherwise: ChangeKind,
) -> Vec<GroupChange> {
    let mut sizes = vec![0usize; there.groups.len()];
    for members in &there.groups {
        for m in members {
            if here.group_of.contains_key(&(m.engine.clone(), m.position))
                && let Some(&g) = there.group_of.get(&(m.engine.clone(), m.position))
            {
                sizes[g] += 1;
            }
        }
    }
    let mut out = Vec::new();
    for members in &here.groups {
        // Parts in order of first member; `slot` maps a group there to its part.
        let mut slot: HashMap<usize, usize> = HashMap::new();
        let mut parts: Vec<Part> = Vec::new();
        let mut kept: Vec<Member> = Vec::new();
        for m in members {
            let id = (m.engine.clone(), m.position);
            let Some(&g) = there.group_of.get(&id) else {
                continue;
            };
            let p = *slot.entry(g).or_insert_with(|| {
                parts.push(Part {
                    members: Vec::new(),
                    group_size: sizes[g],
                });
                parts.len() - 1
            });
            parts[p].members.push(kept.len());
            let mut m = m.clone();
            m.part = p;
            if m.stage.is_none()
                && let Some(t) = titles.get(&id)
            {
                m.title = t.clone();
            }
            kept.push(m);
        }
        if parts.len() < 2 {
            continue;
        }
        let cores = parts.iter().filter(|p| p.members.len() >= 2).count();
        out.push(GroupChange {
            kind: if cores == 1 { carried } else { otherwise },
            members: kept,
            parts,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Duplicate;

    /// A fused result kept from `(engine, position)` with these folded
    /// `(engine, position)` records; titles are `engine#position`.
    fn group(kept: (&str, u32), dups: &[(&str, u32)]) -> MergedResult {
        MergedResult {
            published: None,
            thumbnail: None,
            key_url: None,
            display_url: None,
            extra: None,
            url: format!("https://{}.example/{}", kept.0, kept.1),
            title: format!("{}#{}", kept.0, kept.1),
            content: String::new(),
            engine: kept.0.into(),
            engines: vec![kept.0.into()],
            positions: vec![kept.1],
            score: 1.0,
            category: "general".into(),
            duplicates: dups
                .iter()
                .map(|&(e, p)| Duplicate {
                    url: format!("https://{e}.example/{p}"),
                    title: format!("{e}#{p}"),
                    engine: e.into(),
                    position: p,
                    stage: Stage::Snippet,
                    similarity: Some(0.75),
                    shared_codes: Vec::new(),
                    shared_text: Vec::new(),
                    snippet: String::new(),
                })
                .collect(),
        }
    }

    fn ids(c: &GroupChange) -> Vec<String> {
        c.members.iter().map(|m| m.title.clone()).collect()
    }

    fn part_ids(c: &GroupChange) -> Vec<Vec<String>> {
        c.parts
            .iter()
            .map(|p| {
                p.members
                    .iter()
                    .map(|&i| c.members[i].title.clone())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn identical_lists_have_no_changes() {
        let list = vec![group(("a", 1), &[("b", 2)]), group(("a", 2), &[])];
        let c = compare(&list, &list);
        assert!(c.is_unchanged());
        assert_eq!((c.records, c.results_before, c.results_after), (3, 2, 2));
        assert_eq!(c.counts, Counts::default());
    }

    #[test]
    fn separate_records_merging_form_a_group() {
        let before = vec![
            group(("a", 1), &[]),
            group(("b", 1), &[]),
            group(("c", 1), &[]),
        ];
        let after = vec![group(("a", 1), &[("b", 1)]), group(("c", 1), &[])];
        let c = compare(&before, &after);
        assert_eq!(c.formed.len(), 1);
        assert!(c.split.is_empty());
        let f = &c.formed[0];
        assert_eq!(f.kind, ChangeKind::Formed);
        assert_eq!(ids(f), ["a#1", "b#1"]);
        assert_eq!(f.members[0].stage, None);
        assert_eq!(f.members[1].stage, Some(Stage::Snippet));
        assert_eq!(f.members[1].similarity, Some(0.75));
        assert_eq!(part_ids(f), [vec!["a#1"], vec!["b#1"]]);
        assert!(f.parts.iter().all(|p| p.group_size == 1));
        assert_eq!(c.counts.formed, 1);
        // And the reverse is a split.
        let r = compare(&after, &before);
        assert_eq!(r.split.len(), 1);
        assert_eq!(r.split[0].kind, ChangeKind::Split);
        assert_eq!(ids(&r.split[0]), ["a#1", "b#1"]);
        assert!(r.formed.is_empty());
    }

    #[test]
    fn a_group_that_only_grows_is_joined_and_shrinking_is_left() {
        let before = vec![group(("a", 1), &[("b", 1)]), group(("c", 3), &[])];
        let after = vec![group(("a", 1), &[("b", 1), ("c", 3)])];
        let c = compare(&before, &after);
        assert_eq!(c.formed.len(), 1);
        let j = &c.formed[0];
        assert_eq!(j.kind, ChangeKind::Joined);
        assert_eq!(part_ids(j), [vec!["a#1", "b#1"], vec!["c#3"]]);
        assert_eq!(j.parts[0].group_size, 2);
        assert!(c.split.is_empty(), "{:?}", c.split);
        assert_eq!((c.counts.joined, c.counts.formed), (1, 0));

        let r = compare(&after, &before);
        assert_eq!(r.split.len(), 1);
        assert_eq!(r.split[0].kind, ChangeKind::Left);
        assert_eq!(part_ids(&r.split[0]), [vec!["a#1", "b#1"], vec!["c#3"]]);
        assert_eq!(r.counts.left, 1);
    }

    /// Another fusion method keeps every group and moves results: the
    /// comparison lists the moves (ranks before and after), and none when
    /// only the dedup settings differ.
    #[test]
    fn another_fusion_method_lists_the_results_it_moved() {
        use crate::config::FusionMethod;
        let answer = |engine: &str, urls: &[&str]| -> EngineAnswer {
            let results: Vec<serde_json::Value> = urls
                .iter()
                .enumerate()
                .map(|(i, u)| {
                    serde_json::json!({"url": u, "title": format!("{engine} {i}"),
                        "snippet": format!("words {engine} {i} {u}"), "engine": engine,
                        "position": i + 1, "category": "general"})
                })
                .collect();
            serde_json::from_value(
                serde_json::json!({"engine": engine, "weight": 1.0, "results": results}),
            )
            .unwrap()
        };
        let odd = "https://odd.example/";
        let agreed = "https://agreed.example/";
        let answers = [
            answer("a", &[odd, "https://a.example/2", agreed]),
            answer("b", &["https://b.example/1", "https://b.example/2", agreed]),
        ];
        let s = dedup::Settings::default();
        let position = FusionSettings::default().with_method(FusionMethod::Position);
        let rrf = FusionSettings::default().with_method(FusionMethod::Rrf);
        let c = SettingsComparison::of_fused(&answers, (&s, &position), (&s, &rrf), None, None);
        assert!(c.diff.formed.is_empty() && c.diff.split.is_empty());
        assert_eq!(c.requested_fusion, rrf);
        let m = c
            .moved
            .iter()
            .find(|m| m.url == agreed)
            .expect("the agreed page moved");
        assert_eq!(m.after, 1);
        assert!(m.before > 1, "{m:?}");
        assert_eq!(m.engines.len(), 2);
        let same = SettingsComparison::of_fused(&answers, (&s, &rrf), (&s, &rrf), None, None);
        assert!(same.moved.is_empty());
    }

    #[test]
    fn two_groups_merging_form_and_a_swap_is_listed_on_both_sides() {
        let before = vec![group(("a", 1), &[("b", 1)]), group(("c", 1), &[("d", 1)])];
        let after = vec![group(("a", 1), &[("b", 1), ("c", 1), ("d", 1)])];
        let c = compare(&before, &after);
        assert_eq!(c.formed[0].kind, ChangeKind::Formed, "two cores: formed");
        assert_eq!(part_ids(&c.formed[0]).len(), 2);

        // {a,b,c} → {a,b,d} + {c}: d joined, c left.
        let before = vec![group(("a", 1), &[("b", 1), ("c", 1)]), group(("d", 1), &[])];
        let after = vec![group(("a", 1), &[("b", 1), ("d", 1)]), group(("c", 1), &[])];
        let c = compare(&before, &after);
        assert_eq!(c.formed.len(), 1);
        assert_eq!(c.formed[0].kind, ChangeKind::Joined);
        assert_eq!(part_ids(&c.formed[0]), [vec!["a#1", "b#1"], vec!["d#1"]]);
        assert_eq!(c.formed[0].parts[0].group_size, 3);
        assert_eq!(c.split.len(), 1);
        assert_eq!(c.split[0].kind, ChangeKind::Left);
        assert_eq!(part_ids(&c.split[0]), [vec!["a#1", "b#1"], vec!["c#1"]]);
    }

    #[test]
    fn the_kept_record_gets_its_own_title_when_known() {
        // Before: b#1 alone (its own title). After: kept under a group
        // whose title is another member's.
        let before = vec![group(("b", 1), &[]), group(("a", 1), &[])];
        let mut merged = group(("b", 1), &[("a", 1)]);
        merged.title = "the most complete title".into();
        let c = compare(&before, &[merged]);
        assert_eq!(ids(&c.formed[0]), ["b#1", "a#1"]);
    }

    #[test]
    fn records_missing_from_one_list_and_odd_input_do_not_panic() {
        let before = vec![group(("a", 1), &[("a", 1), ("b", 1)])];
        let mut odd = group(("x", 9), &[]);
        odd.positions.clear();
        let after = vec![group(("a", 1), &[]), odd];
        let c = compare(&before, &after);
        assert_eq!(c.records, 1, "only a#1 is in both");
        assert!(c.is_unchanged());
        assert!(compare(&[], &[]).is_unchanged());
    }

    /// Fused lists of records `(engine e{i % 3}, position i)` grouped by
    /// `labels` (records with one label form one group, first met kept).
    fn grouped(labels: &[u8]) -> Vec<MergedResult> {
        let mut order: Vec<u8> = Vec::new();
        for &l in labels {
            if !order.contains(&l) {
                order.push(l);
            }
        }
        let id = |i: usize| (format!("e{}", i % 3), i as u32 + 1);
        order
            .iter()
            .map(|&l| {
                let mut members = (0..labels.len()).filter(|&i| labels[i] == l).map(id);
                let (ke, kp) = members.next().unwrap_or(("e0".into(), 0));
                let dups: Vec<(String, u32)> = members.collect();
                let dups: Vec<(&str, u32)> = dups.iter().map(|(e, p)| (e.as_str(), *p)).collect();
                group((&ke, kp), &dups)
            })
            .collect()
    }

    proptest::proptest! {
        /// Any two groupings of the same records: the counting identity
        /// holds, swapping the lists swaps formed and split (joined ↔
        /// left), and a list compared with itself is unchanged.
        #[test]
        fn any_two_groupings(pairs in proptest::collection::vec((0u8..6, 0u8..6), 0..24)) {
            let (a, b): (Vec<u8>, Vec<u8>) = pairs.into_iter().unzip();
            let (before, after) = (grouped(&a), grouped(&b));
            let c = compare(&before, &after);
            proptest::prop_assert_eq!(c.records, a.len());
            let extra = |v: &[GroupChange]| v.iter().map(|g| g.parts.len() - 1).sum::<usize>();
            proptest::prop_assert_eq!(
                c.results_after + extra(&c.formed),
                c.results_before + extra(&c.split)
            );
            let r = compare(&after, &before);
            proptest::prop_assert_eq!(r.formed.len(), c.split.len());
            proptest::prop_assert_eq!(r.split.len(), c.formed.len());
            for (x, y) in c.formed.iter().zip(&r.split) {
                proptest::prop_assert_eq!(&x.members, &y.members);
                proptest::prop_assert_eq!(&x.parts, &y.parts);
                let swapped = match x.kind {
                    ChangeKind::Joined => ChangeKind::Left,
                    _ => ChangeKind::Split,
                };
                proptest::prop_assert_eq!(y.kind, swapped);
            }
            proptest::prop_assert!(compare(&before, &before).is_unchanged());
        }
    }

    /// The counting identity of the module docs, on fusions of synthetic
    /// answers under every method and a sweep of `os2`.
    #[test]
    fn result_counts_follow_the_parts() {
        let snippets = [
            "Coffee keeps you awake, for hours. It blocks adenosine; sleep comes later.",
            "Coffee keeps you awake, for hours. It blocks adenosine; rest comes later.",
            "Tea keeps you awake, for hours. It blocks adenosine; sleep comes later.",
            "Caffeine has a half-life of five hours, in adults. Avoid it after noon.",
            "Caffeine has a half-life of six hours, in adults. Avoid it after noon!",
        ];
        let answers: Vec<EngineAnswer> = (0..3)
            .map(|e| EngineAnswer {
                engine: format!("e{e}"),
                weight: 1.0,
                results: (0..snippets.len())
                    .map(|i| EngineResult {
                        published: None,
                        thumbnail: None,
                        key_url: None,
                        display_url: None,
                        extra: None,
                        url: format!("https://site{}.example/{e}", (i + e) % 4),
                        title: format!("Page {}", (i * (e + 1)) % 3),
                        snippet: snippets[(i + e) % snippets.len()].into(),
                        engine: format!("e{e}"),
                        position: i as u32 + 1,
                        category: "general".into(),
                    })
                    .collect(),
            })
            .collect();
        let lists: Vec<Vec<MergedResult>> = dedup::Method::ALL
            .iter()
            .flat_map(|&method| {
                [0.0, 0.3, 0.6, 0.9, 1.0].map(|os2| dedup::Settings {
                    method,
                    os2,
                    os1: os2 / 2.0,
                    min_codes: 0,
                    ..dedup::Settings::default()
                })
            })
            .map(|s| fusion::fuse(&answers, &s, &FusionSettings::default(), false))
            .collect();
        let mut changed = 0;
        for before in &lists {
            for after in &lists {
                let c = compare(before, after);
                assert_eq!(c.records, 15);
                let extra = |v: &[GroupChange]| v.iter().map(|g| g.parts.len() - 1).sum::<usize>();
                assert_eq!(
                    c.results_after + extra(&c.formed),
                    c.results_before + extra(&c.split),
                );
                for g in c.formed.iter().chain(&c.split) {
                    assert!(g.parts.len() >= 2);
                    let n: usize = g.parts.iter().map(|p| p.members.len()).sum();
                    assert_eq!(n, g.members.len());
                    for (i, m) in g.members.iter().enumerate() {
                        assert!(g.parts[m.part].members.contains(&i));
                    }
                }
                changed += usize::from(!c.is_unchanged());
            }
        }
        assert!(changed > 10, "the sweep must actually change groups");
    }
}
