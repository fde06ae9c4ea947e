//! Categories, as SearXNG names them: `general`, `images`, `videos`,
//! `news`, `map`, `music`, `it`, `science` (and any other name an engine's
//! `categories` gives, such as `social_media`). A category exists for a
//! searcher when some enabled engine serves it: only those are offered (the
//! tabs, the preferences, `/config`), and a `categories=` naming anything
//! else is read as SearXNG reads it — the unknown names are left out, and
//! with none left the search is a `general` one.

use crate::config::Config;

/// SearXNG's order of its categories (its tabs' order); other names
/// follow, in name order.
pub const ORDER: [&str; 10] = [
    "general",
    "images",
    "videos",
    "news",
    "map",
    "music",
    "it",
    "science",
    "files",
    "social_media",
];

/// The categories the enabled engines of `config` serve, each once, in
/// [`ORDER`] and then by name.
pub fn served(config: &Config) -> Vec<&str> {
    let mut categories: Vec<&str> = Vec::new();
    for e in config.engines.iter().filter(|e| e.enabled) {
        for c in &e.categories {
            if !categories.contains(&c.as_str()) {
                categories.push(c);
            }
        }
    }
    categories.sort_by_key(|c| (ORDER.iter().position(|o| o == c).unwrap_or(ORDER.len()), *c));
    categories
}

/// The names of `asked` that some enabled engine serves, each once, in the
/// order asked (`social media` is read as `social_media` when that is the
/// category's name).
pub fn known(config: &Config, asked: &[String]) -> Vec<String> {
    let served = served(config);
    let mut out: Vec<String> = Vec::new();
    for a in asked {
        let a = a.trim();
        let underscored = a.replace(' ', "_");
        if let Some(c) = served.iter().find(|c| **c == a || **c == underscored)
            && !out.iter().any(|o| o == c)
        {
            out.push(c.to_string());
        }
    }
    out
}

/// `q` without its words that pick engines or categories (`!images`,
/// `!arxiv`, `!wp`): the same search, for a link that picks its own
/// category. `!!` bangs and words that name nothing known stay, as the
/// query parser keeps them.
pub fn without_picks(config: &Config, q: &str) -> String {
    let picks = |bang: &str| {
        let spaced = bang.replace('_', " ");
        config.engines.iter().any(|e| {
            e.name == bang
                || e.shortcut.to_vec().iter().any(|s| s == bang)
                || e.categories.iter().any(|c| *c == bang || *c == spaced)
        })
    };
    q.split_whitespace()
        .filter(|w| {
            !w.strip_prefix('!')
                .is_some_and(|b| !b.is_empty() && !b.starts_with('!') && picks(b))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::parse(
            r#"
use_defaults = false
[[engine]]
name = "arxiv"
kind = "feed"
url = "http://127.0.0.1:9/?q={query}"
shortcut = "arx"
categories = ["science"]
[[engine]]
name = "web"
kind = "feed"
url = "http://127.0.0.1:9/?q={query}"
categories = ["general", "zeta", "it"]
[[engine]]
name = "pics"
kind = "feed"
url = "http://127.0.0.1:9/?q={query}"
categories = ["images", "social_media"]
[[engine]]
name = "maps_off"
kind = "feed"
url = "http://127.0.0.1:9/?q={query}"
enabled = false
categories = ["map"]
"#,
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    #[test]
    fn served_in_searxng_order_then_by_name_enabled_engines_only() {
        assert_eq!(
            served(&config()),
            ["general", "images", "it", "science", "social_media", "zeta"]
        );
    }

    #[test]
    fn unknown_and_unserved_names_are_left_out() {
        let c = config();
        let asked = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(known(&c, &asked(&["science", "nope", "map"])), ["science"]);
        assert_eq!(
            known(&c, &asked(&["social media", " it ", "it"])),
            ["social_media", "it"]
        );
        assert!(
            known(&c, &asked(&["SCIENCE"])).is_empty(),
            "names are exact"
        );
    }

    #[test]
    fn picks_are_taken_off_the_words_other_bangs_stay() {
        let c = config();
        assert_eq!(without_picks(&c, "!science  rust !arx"), "rust");
        assert_eq!(without_picks(&c, "rust !images !!mdn"), "rust !!mdn");
        assert_eq!(without_picks(&c, "!important ! !map x"), "!important ! x");
        assert_eq!(without_picks(&c, "!social_media x"), "x");
    }
}
