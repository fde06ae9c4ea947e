//! `[bangs]`: external bangs. `!!name the words` answers `303 See Other` to
//! the site's own search, its URL template with `{query}` filled; `!!name`
//! alone goes to the site's home page (the template's origin). The shipped
//! `engines.toml` holds a list of our own; a user's `[bangs]` is laid over
//! it key by key, and `name = ""` takes a shipped bang away.
//!
//! Names and templates are checked as they are read (serde's `try_from`),
//! so a bad one is reported at its own line.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The longest bang name.
const MAX_BANG_NAME: usize = 32;

/// The longest URL template.
const MAX_BANG_URL: usize = 2048;

/// `[bangs]`: name → URL template (an empty template: no such bang).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BangsConfig(pub BTreeMap<BangName, BangUrl>);

impl BangsConfig {
    /// The bangs in force (names in order), without the ones a layer took
    /// away with `""`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .filter(|(_, url)| !url.0.is_empty())
            .map(|(name, url)| (name.0.as_str(), url.0.as_str()))
    }

    /// The URL template of the bang `name` (any case), if there is one.
    pub fn get(&self, name: &str) -> Option<&str> {
        let name = BangName(name.to_lowercase());
        self.0
            .get(&name)
            .map(|u| u.0.as_str())
            .filter(|u| !u.is_empty())
    }
}

/// A bang's name: 1 to [`MAX_BANG_NAME`] lower-case letters (any script),
/// digits, `_`, `-`, `.` or `+`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BangName(String);

impl TryFrom<String> for BangName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        if name.is_empty() || name.chars().count() > MAX_BANG_NAME {
            return Err(format!(
                "bangs: the name {name:?} must be 1 to {MAX_BANG_NAME} characters"
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|&c| !(c.is_alphanumeric() || "_-.+".contains(c)) || c.is_uppercase())
        {
            return Err(format!(
                "bangs: the name {name:?} has {c:?}: names are lower-case letters, digits, \
                 `_`, `-`, `.` and `+` (typed `!!{}` in any case)",
                name.to_lowercase()
            ));
        }
        Ok(BangName(name))
    }
}

impl From<BangName> for String {
    fn from(name: BangName) -> String {
        name.0
    }
}

/// A bang's URL template: an absolute `http(s)` URL with `{query}` in it
/// (filled percent-encoded), at most [`MAX_BANG_URL`] bytes; or `""`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BangUrl(String);

impl TryFrom<String> for BangUrl {
    type Error = String;

    fn try_from(template: String) -> Result<Self, String> {
        if template.is_empty() {
            return Ok(BangUrl(template));
        }
        if template.len() > MAX_BANG_URL {
            return Err(format!(
                "bangs: a URL template is at most {MAX_BANG_URL} bytes (this one has {})",
                template.len()
            ));
        }
        if !template.contains("{query}") {
            return Err(format!(
                "bangs: the URL template {template:?} has no {{query}} (where the words go)"
            ));
        }
        match url::Url::parse(&template.replace("{query}", "q")) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
                Ok(BangUrl(template))
            }
            Ok(_) => Err(format!(
                "bangs: the URL template {template:?} is not an http(s) address"
            )),
            Err(e) => Err(format!("bangs: the URL template {template:?}: {e}")),
        }
    }
}

impl From<BangUrl> for String {
    fn from(url: BangUrl) -> String {
        url.0
    }
}

/// Where the bang with URL template `template` sends `words`: the template
/// with `{query}` filled (percent-encoded, space = `+`), or, when `words`
/// is blank, the template's origin (the site's home page).
pub fn bang_target(template: &str, words: &str) -> String {
    let words = words.trim();
    if words.is_empty() {
        return match url::Url::parse(&template.replace("{query}", "")) {
            Ok(u) => format!("{}/", u.origin().ascii_serialization()),
            Err(_) => template.replace("{query}", ""),
        };
    }
    let encoded: String = url::form_urlencoded::byte_serialize(words.as_bytes()).collect();
    let filled = template.replace("{query}", &encoded);
    // In its serialized form: a template's own non-ASCII characters
    // percent-encoded, its host in punycode, fit for a `Location` header.
    url::Url::parse(&filled).map_or(filled, String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_templates_are_checked() {
        assert!(BangName::try_from("w".to_string()).is_ok());
        assert!(BangName::try_from("docs.rs".to_string()).is_ok());
        assert!(BangName::try_from("百科".to_string()).is_ok());
        for bad in ["", "W", "a b", "!w", &"x".repeat(40)] {
            assert!(BangName::try_from(bad.to_string()).is_err(), "{bad:?}");
        }
        assert!(BangUrl::try_from("https://a.example/s?q={query}".to_string()).is_ok());
        assert!(BangUrl::try_from(String::new()).is_ok());
        for bad in [
            "https://a.example/s?q=",
            "javascript:alert({query})",
            "ftp://a.example/{query}",
            "not a url {query}",
        ] {
            assert!(BangUrl::try_from(bad.to_string()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn targets_fill_the_query_or_go_home() {
        let t = "https://en.wikipedia.org/w/index.php?search={query}";
        assert_eq!(
            bang_target(t, "rust & c++"),
            "https://en.wikipedia.org/w/index.php?search=rust+%26+c%2B%2B"
        );
        assert_eq!(bang_target(t, "  "), "https://en.wikipedia.org/");
        assert_eq!(
            bang_target("https://s.example:8443/{query}", ""),
            "https://s.example:8443/"
        );
        assert_eq!(
            bang_target("https://例子.测试/搜索?q={query}", "中文"),
            "https://xn--fsqu00a.xn--0zwm56d/%E6%90%9C%E7%B4%A2?q=%E4%B8%AD%E6%96%87"
        );
    }
}
