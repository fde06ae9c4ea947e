//! Punctuation-anchored snippet feature codes (skeleton).

/// One feature code: the hash of a normalized window around a punctuation anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FeatureCode(pub u64);
