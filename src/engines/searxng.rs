//! `kind = "searxng"`: another SearXNG-compatible instance asked for
//! `/search?format=json`. Its `results` carry `url`, `title` and `content`;
//! its `suggestions` are passed on. Public instances often answer robots
//! with an HTML bot check (or 403 when JSON is disabled) — that is reported
//! as `Blocked`, never as zero results.

use serde_json::Value;

use super::json::{parse_json, string_list};
use super::{Engine, Hit, ParseError, Parsed, RequestSpec, html_to_text, resolve_link};
use crate::config::EngineConfig;
use crate::model::Query;

/// A SearXNG-compatible upstream.
#[derive(Debug)]
pub(crate) struct SearxngEngine {
    config: EngineConfig,
    base: url::Url,
}

impl SearxngEngine {
    /// A SearXNG upstream for `config` (only its `url` is checked).
    pub(crate) fn new(config: EngineConfig) -> Result<SearxngEngine, String> {
        let base = super::base_url(&config)?;
        Ok(SearxngEngine { config, base })
    }
}

impl Engine for SearxngEngine {
    fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn build_request(&self, query: &Query) -> RequestSpec {
        super::default_request(&self.config, query)
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        let doc = parse_json(body, &self.config)?;
        let Some(Value::Array(results)) = doc.get("results") else {
            return Err(ParseError::Invalid(
                "no \"results\" list — not a SearXNG JSON answer".into(),
            ));
        };
        let text = |item: &Value, key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .map(html_to_text)
                .unwrap_or_default()
        };
        let hits = results
            .iter()
            .filter_map(|item| {
                let url = resolve_link(&self.base, item.get("url")?.as_str()?)?;
                let title = text(item, "title");
                if title.is_empty() {
                    return None;
                }
                let field = |k: &str| item.get(k).and_then(Value::as_str);
                Some(Hit {
                    url,
                    title,
                    snippet: text(item, "content"),
                    published: field("publishedDate").and_then(super::published_date),
                    thumbnail: field("thumbnail")
                        .or_else(|| field("img_src"))
                        .filter(|t| !t.is_empty())
                        .and_then(|t| resolve_link(&self.base, t)),
                    ..Hit::default()
                })
            })
            .collect();
        let suggestions = doc.get("suggestions").map(string_list).unwrap_or_default();
        // SearXNG reports its engines' estimate; 0 means none was given.
        let estimate = doc
            .get("number_of_results")
            .and_then(Value::as_f64)
            .and_then(super::plausible_estimate);
        Ok(Parsed {
            hits,
            suggestions,
            estimate,
            ..Parsed::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> SearxngEngine {
        let config: EngineConfig = toml::from_str(
            r#"
            name = "sx"
            kind = "searxng"
            url = "https://searx.example.org/search?q={query}&format=json"
            "#,
        )
        .unwrap();
        SearxngEngine::new(config).unwrap()
    }

    #[test]
    fn reads_results_and_suggestions() {
        // The shape SearXNG answers to format=json (fields metasift reads).
        let body = r#"{
            "query": "rust", "number_of_results": 0,
            "results": [
                {"url": "https://www.rust-lang.org/", "title": "Rust &amp; <b>Cargo</b>",
                 "content": "A language empowering <span>everyone</span>", "engine": "bing"},
                {"url": "/relative/is/made/absolute", "title": "Rel", "content": ""},
                {"url": "javascript:alert(1)", "title": "skipped"},
                {"url": "https://no-title.example/", "title": "  "},
                {"title": "no url"}
            ],
            "suggestions": ["rust lang", "rust game"],
            "unresponsive_engines": []
        }"#;
        let parsed = engine().parse(body).unwrap();
        let titles: Vec<_> = parsed.hits.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, ["Rust & Cargo", "Rel"]);
        assert_eq!(parsed.hits[0].snippet, "A language empowering everyone");
        assert_eq!(
            parsed.hits[1].url,
            "https://searx.example.org/relative/is/made/absolute"
        );
        assert_eq!(parsed.suggestions, ["rust lang", "rust game"]);
    }

    #[test]
    fn html_instead_of_json_is_blocked_or_invalid() {
        let e = engine();
        assert!(matches!(
            e.parse("<html><body><h1>Too Many Requests</h1></body></html>"),
            Err(ParseError::Blocked(_))
        ));
        assert!(matches!(
            e.parse("<html>hello</html>"),
            Err(ParseError::Invalid(_))
        ));
        assert!(matches!(
            e.parse(r#"{"answers": []}"#),
            Err(ParseError::Invalid(_))
        ));
        assert_eq!(e.parse(r#"{"results": []}"#).unwrap(), Parsed::default());
    }
}
