//! The languages of the interface.

/// UI locales: code → the language's own name.
pub const LOCALES: &[(&str, &str)] = &[("en", "English"), ("zh-Hans", "简体中文")];

/// The locale when the browser names none of [`LOCALES`].
pub const DEFAULT_LOCALE: &str = "en";
