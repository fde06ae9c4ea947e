//! `[lab]`: the researcher's bench at `/lab` — which folder of labeled
//! files it may offer. Nothing outside that folder is ever read.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `[lab]`
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabConfig {
    /// Folder whose `*.tsv` / `*.jsonl` labeled files `/lab` offers; none =
    /// uploads only. Nothing outside it is ever read.
    pub data_dir: Option<PathBuf>,
}
