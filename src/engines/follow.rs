//! `[engine.follow]`: a second request built from the first answer, for
//! APIs that answer in two steps (PubMed's search gives ids, its summary
//! the papers; an API that hands out a token first). Kind-independent: the
//! first answer is read as JSON when it looks like JSON (paths as in
//! `[engine.parse.fields]`, `list[]` for every element), else as XML
//! (element paths, every match). The engine's parse table then reads the
//! follow-up's answer. The fetch layer makes the one follow-up under the
//! same deadline and size cap, and records it as `<engine>.follow`.

use super::fields::List;
use super::xml_path::{self, XmlPath};
use super::{ParseError, RequestSpec, fill_url};
use crate::config::{EngineConfig, FollowConfig};
use crate::model::Query;

/// One value read from the first answer.
#[derive(Debug, Clone)]
struct ValueSpec {
    name: String,
    json: List,
    xml: Option<XmlPath>,
}

/// A compiled `[engine.follow]`.
#[derive(Debug, Clone)]
pub(crate) struct Follow {
    url: String,
    values: Vec<ValueSpec>,
    join: String,
    max: usize,
}

/// The engine's `[engine.follow]` compiled (once, with the engine), its
/// error naming the engine.
pub(crate) fn compile(config: &EngineConfig) -> Result<Option<Follow>, String> {
    config
        .follow
        .as_ref()
        .map(Follow::new)
        .transpose()
        .map_err(|e| format!("engine {:?}: {e}", config.name))
}

/// [`super::Engine::follow_up`] with the compiled `follow`: no follow-up
/// without one.
pub(crate) fn request(
    follow: Option<&Follow>,
    engine: &EngineConfig,
    first: &str,
    query: &Query,
) -> Result<Option<RequestSpec>, ParseError> {
    match follow {
        None => Ok(None),
        Some(f) => f.request(engine, first, query),
    }
}

/// The most values one path may give (a cap on the follow-up URL).
const MAX_VALUES: usize = 200;

impl Follow {
    /// Checks `[engine.follow]`: its URL's placeholders are the `url`
    /// ones or its value names, and it is an absolute http(s) URL once
    /// filled; each value path reads as JSON or XML.
    pub(crate) fn new(config: &FollowConfig) -> Result<Follow, String> {
        if config.values.is_empty() {
            return Err(
                "follow.values names no value (the follow-up would not depend on the first answer)"
                    .into(),
            );
        }
        if config.max_values == 0 || config.max_values > MAX_VALUES {
            return Err(format!(
                "follow.max_values must be from 1 to {MAX_VALUES}, got {}",
                config.max_values
            ));
        }
        let mut values = Vec::new();
        for (name, spec) in &config.values {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "follow.values: {name:?} must be letters, digits or '_'"
                ));
            }
            if crate::config::PLACEHOLDERS.contains(&name.as_str()) {
                return Err(format!(
                    "follow.values: {name:?} is a placeholder of every URL already"
                ));
            }
            let json = List::parse(spec).map_err(|e| format!("follow.values.{name}: {e}"))?;
            let xml = XmlPath::parse(&spec.replace("[]", "")).ok();
            values.push(ValueSpec {
                name: name.clone(),
                json,
                xml,
            });
        }
        // Every `{…}` must be known, and the filled URL a web address.
        let mut probe = config.url.replace("{contact}", "x");
        for v in &values {
            probe = probe.replace(&format!("{{{}}}", v.name), "1");
        }
        let probe = fill_url(&probe, &Query::default(), 10);
        if let Some(open) = probe.find('{') {
            let rest = &probe[open..];
            let end = rest.find('}').map_or(rest.len(), |i| i + 1);
            return Err(format!(
                "follow.url: unknown placeholder {} (the url placeholders, or a name of follow.values)",
                &rest[..end]
            ));
        }
        crate::config::check_http_url(&probe).map_err(|e| format!("follow.url: {e}"))?;
        Ok(Follow {
            url: config.url.clone(),
            values,
            join: config.join.clone(),
            max: config.max_values,
        })
    }

    /// The follow-up for `first` (the first answer's text), or `None`
    /// when a value is missing (the first answer found nothing: no
    /// result, not an error). `Err` when the first answer is neither
    /// JSON nor XML, or says it is a bot check.
    pub(crate) fn request(
        &self,
        engine: &EngineConfig,
        first: &str,
        query: &Query,
    ) -> Result<Option<RequestSpec>, ParseError> {
        let looks_json = first
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with(['{', '[']);
        // An HTML page where an API answer was expected is a bot check or
        // an error page, never "nothing found".
        let head: String = first
            .trim_start()
            .chars()
            .take(512)
            .collect::<String>()
            .to_ascii_lowercase();
        if !looks_json && (head.starts_with("<!doctype html") || head.contains("<html")) {
            return Err(
                match super::generic_block_marker(&super::visible_text(first)) {
                    Some(m) => ParseError::Blocked(format!("page says {m:?}")),
                    None => ParseError::Invalid("the first answer is an HTML page".into()),
                },
            );
        }
        let doc = if looks_json {
            Some(super::json::parse_json(first, engine)?)
        } else {
            None
        };
        let mut url = self.url.clone();
        for v in &self.values {
            let found = match (&doc, &v.xml) {
                (Some(doc), _) => v.json.extract(doc, self.max),
                (None, Some(path)) => xml_path::values(first, path, self.max).map_err(|e| {
                    match super::generic_block_marker(&super::visible_text(first)) {
                        Some(m) => ParseError::Blocked(format!("page says {m:?}")),
                        None => ParseError::Invalid(format!("first answer: {e}")),
                    }
                })?,
                (None, None) => {
                    return Err(ParseError::Invalid(format!(
                        "first answer is not JSON, and follow.values.{} is no XML path",
                        v.name
                    )));
                }
            };
            if found.is_empty() {
                return Ok(None);
            }
            let joined = found.join(&self.join);
            let encoded: String = url::form_urlencoded::byte_serialize(joined.as_bytes()).collect();
            url = url.replace(&format!("{{{}}}", v.name), &encoded);
        }
        Ok(Some(RequestSpec {
            url: fill_url(&url, query, engine.page_size),
            headers: engine
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(follow: &str) -> (EngineConfig, Follow) {
        let config: EngineConfig = toml::from_str(&format!(
            "name = \"p\"\nkind = \"feed\"\nurl = \"https://e.example/s?term={{query}}\"\n[follow]\n{follow}"
        ))
        .unwrap();
        let f = Follow::new(config.follow.as_ref().unwrap()).unwrap();
        (config, f)
    }

    fn q() -> Query {
        Query {
            text: "cancer cells".into(),
            page: 1,
            ..Query::default()
        }
    }

    #[test]
    fn xml_and_json_first_answers_fill_the_follow_up() {
        let (c, f) = engine(
            "url = \"https://e.example/sum?id={ids}&q={query}\"\nvalues = { ids = \"IdList.Id\" }",
        );
        let xml = "<eSearchResult><IdList><Id>1</Id><Id>2</Id></IdList></eSearchResult>";
        let spec = f.request(&c, xml, &q()).unwrap().unwrap();
        assert_eq!(spec.url, "https://e.example/sum?id=1%2C2&q=cancer+cells");
        let json = r#"{"esearchresult": {"idlist": ["7", "8"]}}"#;
        let (c, f) = engine(
            "url = \"https://e.example/sum?id={ids}\"\nvalues = { ids = \"esearchresult.idlist[]\" }",
        );
        let spec = f.request(&c, json, &q()).unwrap().unwrap();
        assert_eq!(spec.url, "https://e.example/sum?id=7%2C8");
        // Nothing found: no follow-up, no error.
        let none = f
            .request(&c, r#"{"esearchresult": {"idlist": []}}"#, &q())
            .unwrap();
        assert!(none.is_none());
        // A bot check where JSON was expected.
        let r = f.request(
            &c,
            "<html><body>Are you a robot? captcha</body></html>",
            &q(),
        );
        assert!(matches!(r, Err(ParseError::Blocked(_))), "{r:?}");
    }

    #[test]
    fn bad_follow_tables_are_refused() {
        let bad = |follow: &str| {
            let config: EngineConfig = toml::from_str(&format!(
                "name = \"p\"\nkind = \"feed\"\nurl = \"https://e.example/s?term={{query}}\"\n[follow]\n{follow}"
            ))
            .unwrap();
            Follow::new(config.follow.as_ref().unwrap()).unwrap_err()
        };
        assert!(
            bad("url = \"https://e.example/{nope}\"\nvalues = { ids = \"a\" }").contains("{nope}")
        );
        assert!(bad("url = \"https://e.example/\"\nvalues = {}").contains("no value"));
        assert!(
            bad("url = \"ftp://e.example/{ids}\"\nvalues = { ids = \"a\" }").contains("follow.url")
        );
        assert!(
            bad("url = \"https://e.example/{query}\"\nvalues = { query = \"a\" }")
                .contains("placeholder")
        );
    }
}
