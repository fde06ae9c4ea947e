//! Title normalization (skeleton; completed by the dedup issue).

/// The normalized title used only for comparison.
pub fn normalize(title: &str) -> String {
    title.trim().to_lowercase()
}
