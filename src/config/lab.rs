//! `[lab]`: the researcher's bench at `/lab` — which folder of labeled
//! files it may offer, and the precision a "best setting" must reach.
//! Nothing outside the data folder is ever read.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The precision a setting must reach to be called the best one, unless
/// `[lab] precision_floor` or `--precision-floor` says otherwise: the
/// project's bar for real result lists (a wrong merge hides a page).
pub const DEFAULT_PRECISION_FLOOR: f64 = 0.98;

/// `[lab]`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabConfig {
    /// Folder whose `*.tsv` / `*.jsonl` labeled files `/lab` offers; none =
    /// uploads only. Nothing outside it is ever read.
    pub data_dir: Option<PathBuf>,
    /// The best setting of a sweep is the one with the highest recall among
    /// those with at least this precision (`/lab`'s default; 0–1).
    pub precision_floor: f64,
}

impl Default for LabConfig {
    fn default() -> Self {
        LabConfig {
            data_dir: None,
            precision_floor: DEFAULT_PRECISION_FLOOR,
        }
    }
}

impl LabConfig {
    /// What is wrong with the table, as (key, message).
    pub(crate) fn problems(&self) -> Vec<(&'static str, String)> {
        let f = self.precision_floor;
        if f.is_finite() && (0.0..=1.0).contains(&f) {
            Vec::new()
        } else {
            vec![(
                "precision_floor",
                format!("lab.precision_floor: must be between 0 and 1, got {f}"),
            )]
        }
    }
}
