//! `operators = ["site", "phrase", …]` on an `[[engine]]`: the search
//! operators the engine understands. Those are sent to it in its query as
//! the searcher typed them; the others are taken out of its query (the words
//! of a phrase or an `intitle:` stay, unquoted), and every result is checked
//! against all of them (see `search::operators`).

use serde::{Deserialize, Serialize};

/// One kind of search operator an engine may understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperatorKind {
    /// `site:host` and `-site:host`.
    Site,
    /// `-word` and `-"a phrase"`.
    Exclude,
    /// `"a phrase"`.
    Phrase,
    /// `intitle:word`.
    Intitle,
    /// `filetype:pdf` (also typed `ext:pdf`).
    Filetype,
}

impl OperatorKind {
    /// Every kind, in the order `/config` lists them.
    pub const ALL: [OperatorKind; 5] = [
        OperatorKind::Site,
        OperatorKind::Exclude,
        OperatorKind::Phrase,
        OperatorKind::Intitle,
        OperatorKind::Filetype,
    ];

    /// The name written in `engines.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            OperatorKind::Site => "site",
            OperatorKind::Exclude => "exclude",
            OperatorKind::Phrase => "phrase",
            OperatorKind::Intitle => "intitle",
            OperatorKind::Filetype => "filetype",
        }
    }
}
