//! The snippet stage of the `simhash` method: the nearest kept record by
//! Hamming distance, through the scope's band index.

use super::scope::Kept;
use super::{Deduper, Verdict, decide};
use crate::simhash::{self, BandIndex, SimHash};
use crate::site::member_key;
use crate::{Method, Stage};

impl Deduper {
    pub(super) fn simhash_stage(
        &mut self,
        idx: usize,
        title: u64,
        h: SimHash,
        n: usize,
        src: u64,
    ) -> Verdict {
        let settings = &self.settings;
        let Some(scope) = self.scopes.get_mut(self.cur) else {
            return Verdict::kept(idx);
        };
        let members = &scope.members;
        let bands = scope
            .bands
            .get_or_insert_with(|| BandIndex::new(settings.max_distance));
        let kept = &scope.kept;
        let found = if n == 0 {
            None
        } else {
            bands.nearest_where(h, |id| {
                let k = &kept[id as usize];
                let title_equal = title != 0 && k.title == title;
                if !title_equal && src != 0 && members.contains_key(&member_key(src, id)) {
                    return false;
                }
                let m = n.min(k.codes as usize);
                let d = simhash::hamming_distance(h, k.simhash);
                decide(Method::SimHash, settings, title_equal, 0.0, m, m, Some(d)).is_some()
            })
        };
        if let Some((id, d)) = found {
            if src != 0 {
                scope.members.insert(member_key(src, id), ());
            }
            let k = &scope.kept[id as usize];
            let stage = if title != 0 && k.title == title {
                Stage::Title
            } else {
                Stage::Snippet
            };
            return Verdict {
                cluster: k.index,
                stage: Some(stage),
                canonical: None,
                similarity: Some(1.0 - f64::from(d) / 64.0),
                shared_codes: Vec::new(),
                cluster_known: true,
            };
        }
        bands.insert(h);
        scope.kept.push(Kept {
            index: idx,
            title,
            codes: n as u32,
            evidence: n as u32,
            simhash: h,
            source: src,
            host: 0,
            site: 0,
            title_at: 0,
            title_len: 0,
            cut: false,
        });
        Verdict::kept(idx)
    }
}
