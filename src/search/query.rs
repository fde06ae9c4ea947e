//! The query a person typed, made into the query the engines are asked:
//! `!shortcut`, `!engine` and `!category` words pick engines, a `:lang` word
//! the language, and whatever names nothing known stays search text (so
//! `!important` and `:)` are searched for as typed). [`Searcher::select`]
//! then turns the picked names into the engines actually asked, once per
//! search (see `request`).

use crate::model::Query;

use super::Searcher;

impl Searcher {
    /// Splits `!shortcut`, `!engine-name` and `!category` words and a
    /// `:lang` word off a raw query and returns the query to run. Words that
    /// name nothing known stay in the text (`!important` is a search term).
    pub fn parse_query(&self, raw: &str, page: u32) -> Query {
        let config = self.config();
        let mut engines: Vec<String> = Vec::new();
        let mut categories: Vec<String> = Vec::new();
        let mut lang = None;
        let mut words: Vec<&str> = Vec::new();
        for word in raw.split_whitespace() {
            if let Some(bang) = word.strip_prefix('!').filter(|b| !b.is_empty()) {
                if let Some(e) = config
                    .engines
                    .iter()
                    .find(|e| e.name == bang || e.shortcut.to_vec().iter().any(|s| s == bang))
                {
                    if !engines.contains(&e.name) {
                        engines.push(e.name.clone());
                    }
                    continue;
                }
                // `!social_media` names the category "social media".
                let spaced = bang.replace('_', " ");
                if let Some(c) = config
                    .engines
                    .iter()
                    .flat_map(|e| &e.categories)
                    .find(|c| **c == bang || **c == spaced)
                {
                    if !categories.contains(c) {
                        categories.push(c.clone());
                    }
                    continue;
                }
            }
            if let Some(code) = word.strip_prefix(':').filter(|c| is_lang_code(c)) {
                lang = Some(code.to_string());
                continue;
            }
            words.push(word);
        }
        Query {
            text: words.join(" "),
            page: page.max(1),
            lang,
            engines,
            categories,
            ..Query::default()
        }
    }

    /// The engines a query asks (see [`asked_by`]).
    pub(super) fn select(&self, query: &Query) -> Vec<usize> {
        asked_by(self.config(), query)
    }
}

/// The engines of `config` a query asks, in configuration order: the named
/// ones (even if disabled: naming one is asking for it) plus the enabled
/// engines of the named categories; with neither, the enabled engines of
/// `general` (what the home page counts).
pub fn asked_by(config: &crate::config::Config, query: &Query) -> Vec<usize> {
    let default_category = ["general".to_string()];
    let categories: &[String] = if query.categories.is_empty() && query.engines.is_empty() {
        &default_category
    } else {
        &query.categories
    };
    config
        .engines
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            query.engines.contains(&e.name)
                || (e.enabled && e.categories.iter().any(|c| categories.contains(c)))
        })
        .map(|(i, _)| i)
        .collect()
}

/// `en`, `de-CH`, `zh-Hans-CN`: a BCP-47-looking code, so `:)` stays text.
fn is_lang_code(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_codes() {
        assert!(is_lang_code("en"));
        assert!(is_lang_code("zh-CN"));
        assert!(!is_lang_code(")"));
        assert!(!is_lang_code("e"));
        assert!(!is_lang_code("english"));
    }
}
