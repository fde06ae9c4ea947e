//! The three stages in order (skeleton: URL stage only).

use std::collections::HashMap;

use super::features::FeatureCode;
use super::{Doc, Settings, Stage, url};

/// What the pipeline decided for one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Index (in push order) of the kept record of this record's group; its
    /// own index when it is kept.
    pub cluster: usize,
    /// The rule that attached it, `None` when it is kept.
    pub stage: Option<Stage>,
    /// The snippet similarity that matched, where a similarity applies.
    pub similarity: Option<f64>,
    /// Feature codes shared with the kept record (for `explain`).
    pub shared_codes: Vec<FeatureCode>,
}

/// Streaming deduplicator: push records in fused-rank order.
#[derive(Debug)]
pub struct Deduper {
    #[allow(dead_code)]
    settings: Settings,
    urls: HashMap<url::UrlKey, usize>,
    count: usize,
}

impl Deduper {
    /// A deduplicator with these settings.
    pub fn new(settings: &Settings) -> Self {
        Deduper {
            settings: settings.clone(),
            urls: HashMap::new(),
            count: 0,
        }
    }

    /// Decides for the next record.
    pub fn push(&mut self, doc: Doc<'_>) -> Verdict {
        let idx = self.count;
        self.count += 1;
        let k = url::key(doc.url);
        if let Some(&c) = self.urls.get(&k) {
            return Verdict {
                cluster: c,
                stage: Some(Stage::Url),
                similarity: None,
                shared_codes: Vec::new(),
            };
        }
        self.urls.insert(k, idx);
        Verdict {
            cluster: idx,
            stage: None,
            similarity: None,
            shared_codes: Vec::new(),
        }
    }
}

/// Deduplicates a whole list at once.
pub fn dedup(docs: &[Doc<'_>], settings: &Settings) -> Vec<Verdict> {
    let mut d = Deduper::new(settings);
    docs.iter().map(|doc| d.push(*doc)).collect()
}
