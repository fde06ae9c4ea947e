//! `[favicons]`: the small icon beside each result's host on the results
//! page, fetched by this server (through the image proxy's rules) from the
//! source `url` names.

use serde::{Deserialize, Serialize};

use super::Problem;
use super::server::check_http_url;

/// `[favicons]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaviconsConfig {
    /// Icons are shown (a searcher may still turn them off in the
    /// preferences).
    pub enabled: bool,
    /// Where a site's icon is fetched: `{origin}` is the result's scheme,
    /// host and port (`https://example.org`), `{host}` its host alone. The
    /// default is the site's own `/favicon.ico`; a resolver such as
    /// `https://icons.duckduckgo.com/ip3/{host}.ico` asks one server for
    /// every site instead.
    pub url: String,
}

impl Default for FaviconsConfig {
    fn default() -> Self {
        FaviconsConfig {
            enabled: true,
            url: "{origin}/favicon.ico".into(),
        }
    }
}

impl FaviconsConfig {
    /// The icon's URL for the site at `origin` (`scheme://host[:port]`)
    /// whose host is `host`.
    pub fn icon_url(&self, origin: &str, host: &str) -> String {
        self.url.replace("{origin}", origin).replace("{host}", host)
    }

    /// Values of `[favicons]` that parse but cannot work.
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        let mut rest = self.url.as_str();
        let mut named = false;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push(problem(format!("unclosed '{{' in {:?}", self.url)));
                return;
            };
            match &after[..close] {
                "origin" | "host" => named = true,
                other => {
                    out.push(problem(format!(
                        "unknown placeholder {{{other}}} in {:?} (known: {{origin}}, {{host}})",
                        self.url
                    )));
                    return;
                }
            }
            rest = &after[close + 1..];
        }
        if !named {
            out.push(problem(format!(
                "{:?} names no site: put {{origin}} or {{host}} in it",
                self.url
            )));
            return;
        }
        if let Err(m) = check_http_url(&self.icon_url("https://example.org", "example.org")) {
            out.push(problem(m));
        }
    }
}

fn problem(message: String) -> Problem {
    Problem::at(
        &[&["favicons", "url"], &["favicons"]],
        format!("favicons.url: {message}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_names_the_site_and_is_a_web_url() {
        let problems = |url: &str| {
            let mut out = Vec::new();
            FaviconsConfig {
                enabled: true,
                url: url.into(),
            }
            .problems(&mut out);
            out.len()
        };
        assert_eq!(problems("{origin}/favicon.ico"), 0);
        assert_eq!(problems("https://icons.duckduckgo.com/ip3/{host}.ico"), 0);
        assert_eq!(problems("https://icons.example/fixed.ico"), 1);
        assert_eq!(problems("https://icons.example/{site}.ico"), 1);
        assert_eq!(problems("ftp://{host}/favicon.ico"), 1);
        assert_eq!(problems("{origin/favicon.ico"), 1);
    }
}
