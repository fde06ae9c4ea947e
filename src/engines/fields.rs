//! SearXNG's template fields read from a JSON item (`[engine.parse.fields]`
//! of kind `json`), and the JSON side of `[engine.parse.infobox]` and
//! `parse.answer`.
//!
//! A scalar field is a path or template as `parse.title` is (templates over
//! text fields insert values as they are; over link fields they are encoded
//! by position), with `a || b` trying alternatives in order. A list field
//! (`authors`, `tags`, `boundingbox`) is `list[]` (the list's scalars) or
//! `list[].sub` / `list[].{a} {b}` (a path or template read on each element);
//! a scalar where the list was expected is a list of one.

use serde_json::Value;

use super::json::{FieldSpec, lookup, scalar_text};
use super::json_select::Needs;
use super::{html_to_text, resolve_link};
use crate::config::{FieldsConfig, InfoboxConfig, LINK_FIELDS, LIST_FIELDS};
use crate::model::{Address, Extra, Infobox, InfoboxAttribute, InfoboxUrl, Template, video_length};

/// A scalar spec: alternatives, the first that yields text wins.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scalar(pub(crate) Vec<FieldSpec>);

impl Scalar {
    /// `spec` read as alternatives; `link` = a URL (values encoded by
    /// position in templates) rather than text (values inserted as they are).
    pub(crate) fn parse(spec: &str, link: bool) -> Result<Scalar, String> {
        let alts = spec
            .split("||")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| FieldSpec::parse_as(s, !link))
            .collect::<Result<Vec<_>, _>>()?;
        if alts.is_empty() {
            return Err(format!("{spec:?} names no field"));
        }
        Ok(Scalar(alts))
    }

    /// Marks what [`Scalar::extract`] reads under `item`.
    pub(crate) fn need(&self, item: &mut Needs) {
        for spec in &self.0 {
            spec.need(item);
        }
    }

    /// The first alternative's non-empty text.
    pub(crate) fn extract(&self, item: &Value) -> Option<String> {
        self.0
            .iter()
            .filter_map(|s| s.extract(item))
            .find(|t| !t.trim().is_empty())
    }
}

/// A list spec: the list's path and what is read on each element.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct List {
    list: Vec<String>,
    each: Option<Scalar>,
}

impl List {
    pub(crate) fn parse(spec: &str) -> Result<List, String> {
        let spec = spec.trim();
        let (list, each) = match spec.split_once("[]") {
            Some((list, rest)) => {
                let rest = rest.strip_prefix('.').unwrap_or(rest).trim();
                let each = (!rest.is_empty())
                    .then(|| Scalar::parse(rest, false))
                    .transpose()?;
                (list, each)
            }
            None => (spec, None),
        };
        Ok(List {
            list: list
                .split('.')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            each,
        })
    }

    /// Marks what [`List::extract`] reads under `item`: each element, or
    /// the value itself where it is no list.
    pub(crate) fn need(&self, item: &mut Needs) {
        let list = item.at(&self.list);
        match &self.each {
            None => list.whole(),
            Some(each) => {
                each.need(list);
                each.need(list.every());
            }
        }
    }

    /// The texts of the list's elements (at most `max`), empty ones left out.
    pub(crate) fn extract(&self, item: &Value, max: usize) -> Vec<String> {
        let Some(v) = lookup(item, &self.list) else {
            return Vec::new();
        };
        let one = |e: &Value| match &self.each {
            Some(s) => s.extract(e),
            None => scalar_text(e),
        };
        let texts: Vec<String> = match v {
            Value::Array(a) => a.iter().filter_map(one).take(max).collect(),
            other => one(other).into_iter().collect(),
        };
        texts
            .into_iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect()
    }
}

/// The most elements read of one list field.
const MAX_LIST: usize = 64;

/// The compiled `[engine.parse.fields]` of a JSON engine.
#[derive(Debug, Clone)]
pub(crate) struct JsonFields {
    template: Template,
    scalars: Vec<(&'static str, Scalar)>,
    lists: Vec<(&'static str, List)>,
    address: Option<Vec<String>>,
}

impl JsonFields {
    /// `None` when the engine has no template and no field.
    pub(crate) fn new(
        template: Option<Template>,
        config: &FieldsConfig,
    ) -> Result<Option<JsonFields>, String> {
        let set = config.set();
        if template.is_none() && set.is_empty() {
            return Ok(None);
        }
        let mut out = JsonFields {
            template: template.unwrap_or_default(),
            scalars: Vec::new(),
            lists: Vec::new(),
            address: None,
        };
        for (name, spec) in set {
            let err = |e: String| format!("parse.fields.{name}: {e}");
            if name == "address" {
                out.address = Some(
                    spec.split('.')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                );
            } else if LIST_FIELDS.contains(&name) {
                out.lists.push((name, List::parse(spec).map_err(err)?));
            } else {
                let link = LINK_FIELDS.contains(&name);
                out.scalars
                    .push((name, Scalar::parse(spec, link).map_err(err)?));
            }
        }
        Ok(Some(out))
    }

    /// Marks what [`JsonFields::extract`] reads under `item`.
    pub(crate) fn need(&self, item: &mut Needs) {
        for (_, spec) in &self.scalars {
            spec.need(item);
        }
        for (_, spec) in &self.lists {
            spec.need(item);
        }
        if let Some(path) = &self.address {
            item.at(path).whole();
        }
    }

    /// The fields of one item; links made absolute against `base`.
    pub(crate) fn extract(&self, item: &Value, base: &url::Url) -> Box<Extra> {
        let mut e = Extra::new(self.template);
        for (name, spec) in &self.scalars {
            if let Some(v) = spec.extract(item) {
                set_scalar(&mut e, name, &v, base);
            }
        }
        for (name, spec) in &self.lists {
            let values = spec.extract(item, MAX_LIST);
            match *name {
                "authors" => e.authors = values.iter().map(|v| html_to_text(v)).collect(),
                "tags" => e.tags = values,
                "boundingbox" => e.boundingbox = values,
                _ => {}
            }
        }
        if let Some(path) = &self.address
            && let Some(Value::Object(a)) = lookup(item, path)
        {
            let get = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| a.get(*k).and_then(scalar_text))
                    .filter(|s| !s.trim().is_empty())
            };
            let address = Address {
                name: get(&["name"]),
                road: get(&["road", "street", "pedestrian"]),
                house_number: get(&["house_number", "housenumber"]),
                locality: get(&[
                    "city",
                    "town",
                    "village",
                    "hamlet",
                    "municipality",
                    "suburb",
                ]),
                postcode: get(&["postcode"]),
                country: get(&["country"]),
                country_code: get(&["country_code", "countrycode"]),
            };
            e.address = (!address.is_empty()).then_some(address);
        }
        Box::new(e)
    }
}

/// Sets the scalar template field `name` of `e` from the text an answer
/// gives for it: links made absolute against `base` (and dropped when not
/// http(s)), a video length read as one, other text reduced from markup
/// (dropped when empty). The one place both kinds (`json`, `feed`) fill
/// a field.
pub(crate) fn set_scalar(e: &mut Extra, name: &str, v: &str, base: &url::Url) {
    let link = || resolve_link(base, v);
    let text = || Some(html_to_text(v)).filter(|t| !t.is_empty());
    let (slot, value) = match name {
        "img_src" => (&mut e.img_src, link()),
        "thumbnail_src" => (&mut e.thumbnail_src, link()),
        "iframe_src" => (&mut e.iframe_src, link()),
        "pdf_url" => (&mut e.pdf_url, link()),
        "homepage" => (&mut e.homepage, link()),
        "source_code_url" => (&mut e.source_code_url, link()),
        "length" => (&mut e.length, video_length(v)),
        "resolution" => (&mut e.resolution, text()),
        "source" => (&mut e.source, text()),
        "author" => (&mut e.author, text()),
        "journal" => (&mut e.journal, text()),
        "doi" => (&mut e.doi, text()),
        "publisher" => (&mut e.publisher, text()),
        "volume" => (&mut e.volume, text()),
        "package_name" => (&mut e.package_name, text()),
        "version" => (&mut e.version, text()),
        "license" => (&mut e.license, text()),
        "maintainer" => (&mut e.maintainer, text()),
        "popularity" => (&mut e.popularity, text()),
        "latitude" => (&mut e.latitude, text()),
        "longitude" => (&mut e.longitude, text()),
        _ => return,
    };
    *slot = value;
}

/// The compiled `[engine.parse.infobox]`.
#[derive(Debug, Clone)]
pub(crate) struct JsonInfobox {
    results: String,
    title: Scalar,
    id: Option<Scalar>,
    content: Option<Scalar>,
    img_src: Option<Scalar>,
    skip: Vec<Vec<String>>,
    urls: Vec<(String, Scalar)>,
    attributes: Vec<(String, Scalar)>,
}

/// The most infoboxes read of one answer.
const MAX_INFOBOXES: usize = 3;

impl JsonInfobox {
    pub(crate) fn new(c: &InfoboxConfig) -> Result<JsonInfobox, String> {
        if !c.results.is_empty() && !c.results.starts_with('/') {
            return Err(format!(
                "parse.infobox.results must be a JSON pointer starting with '/', got {:?}",
                c.results
            ));
        }
        let opt = |what: &str, v: &Option<String>, link: bool| {
            v.as_deref()
                .map(|s| Scalar::parse(s, link))
                .transpose()
                .map_err(|e| format!("parse.infobox.{what}: {e}"))
        };
        let title = opt("title", &c.title, false)?
            .ok_or_else(|| "parse.infobox.title is required".to_string())?;
        let pairs = |what: &str, list: Vec<(&String, &String)>, link: bool| {
            list.into_iter()
                .map(|(label, spec)| {
                    Scalar::parse(spec, link)
                        .map(|s| (label.clone(), s))
                        .map_err(|e| format!("parse.infobox.{what} {label:?}: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(JsonInfobox {
            results: c.results.clone(),
            id: opt("id", &c.id, true)?,
            content: opt("content", &c.content, false)?,
            img_src: opt("img_src", &c.img_src, true)?,
            skip: c
                .skip
                .iter()
                .map(|p| {
                    p.split('.')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .collect(),
            urls: pairs(
                "urls",
                c.urls.iter().map(|u| (&u.title, &u.url)).collect(),
                true,
            )?,
            attributes: pairs(
                "attributes",
                c.attributes.iter().map(|a| (&a.label, &a.value)).collect(),
                false,
            )?,
            title,
        })
    }

    /// Marks what [`JsonInfobox::extract`] reads of a document under `root`.
    pub(crate) fn need(&self, root: &mut Needs) {
        // The boxes are the object found, or its members.
        self.need_item(root.at_pointer(&self.results));
        self.need_item(root.at_pointer(&self.results).every());
    }

    fn need_item(&self, item: &mut Needs) {
        let scalars = [&self.id, &self.content, &self.img_src];
        for spec in std::iter::once(&self.title)
            .chain(scalars.into_iter().flatten())
            .chain(self.urls.iter().map(|(_, s)| s))
            .chain(self.attributes.iter().map(|(_, s)| s))
        {
            spec.need(item);
        }
        for path in &self.skip {
            item.at(path).whole();
        }
    }

    /// The boxes of `doc`: each item with a title and something beyond
    /// its name and links (a text, an image or a fact), at most
    /// [`MAX_INFOBOXES`].
    pub(crate) fn extract(&self, doc: &Value, base: &url::Url) -> Vec<Infobox> {
        let Some(found) = doc.pointer(&self.results) else {
            return Vec::new();
        };
        let items: Vec<&Value> = match found {
            Value::Array(a) => a.iter().collect(),
            // The item itself, or a map of items (Wikidata's `entities`).
            Value::Object(_) if self.title.extract(found).is_some() => vec![found],
            Value::Object(m) => m.values().collect(),
            _ => Vec::new(),
        };
        items
            .into_iter()
            .filter(|item| {
                !self.skip.iter().any(|p| {
                    lookup(item, p).is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)))
                })
            })
            .filter_map(|item| self.one(item, base))
            .take(MAX_INFOBOXES)
            .collect()
    }

    fn one(&self, item: &Value, base: &url::Url) -> Option<Infobox> {
        let title = html_to_text(&self.title.extract(item)?);
        if title.is_empty() {
            return None;
        }
        let content = self
            .content
            .as_ref()
            .and_then(|c| c.extract(item))
            .map(|c| html_to_text(&c))
            .unwrap_or_default();
        let img_src = self
            .img_src
            .as_ref()
            .and_then(|s| s.extract(item))
            .and_then(|s| resolve_link(base, &s));
        let attributes: Vec<InfoboxAttribute> = self
            .attributes
            .iter()
            .filter_map(|(label, spec)| {
                let value = html_to_text(&spec.extract(item)?);
                (!value.is_empty()).then(|| InfoboxAttribute {
                    label: label.clone(),
                    value,
                })
            })
            .collect();
        if content.is_empty() && img_src.is_none() && attributes.is_empty() {
            return None;
        }
        let urls: Vec<InfoboxUrl> = self
            .urls
            .iter()
            .filter_map(|(title, spec)| {
                Some(InfoboxUrl {
                    title: title.clone(),
                    url: resolve_link(base, &spec.extract(item)?)?,
                })
            })
            .collect();
        let id = self
            .id
            .as_ref()
            .and_then(|s| s.extract(item))
            .and_then(|s| resolve_link(base, &s))
            .unwrap_or_else(|| title.clone());
        Some(Infobox {
            infobox: title,
            id,
            content,
            img_src,
            urls,
            attributes,
            ..Infobox::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> url::Url {
        url::Url::parse("https://api.example.org/search?q=").unwrap()
    }

    #[test]
    fn list_fields_read_each_element() {
        let item = json!({
            "author": [{"given": "Carl", "family": "Boettiger"}, {"family": "Solo"}, {"given": "A", "family": "B"}],
            "tags": ["x", "", "y"],
            "one": "alone"
        });
        let l = List::parse("author[].{given} {family} || family").unwrap();
        assert_eq!(l.extract(&item, 10), ["Carl Boettiger", "Solo", "A B"]);
        assert_eq!(
            List::parse("tags[]").unwrap().extract(&item, 10),
            ["x", "y"]
        );
        assert_eq!(List::parse("one[]").unwrap().extract(&item, 10), ["alone"]);
        assert_eq!(List::parse("tags[]").unwrap().extract(&item, 1), ["x"]);
        assert!(
            List::parse("nothing[]")
                .unwrap()
                .extract(&item, 10)
                .is_empty()
        );
    }

    #[test]
    fn fields_fill_the_template() {
        let config: FieldsConfig = toml::from_str(
            r#"
            authors = "authors[].name"
            doi = "externalIds.DOI"
            pdf_url = "openAccessPdf.url || https://arxiv.org/pdf/{externalIds.ArXiv}"
            journal = "venue"
            length = "duration"
            address = "address"
            "#,
        )
        .unwrap();
        let f = JsonFields::new(Some(Template::Paper), &config)
            .unwrap()
            .unwrap();
        let e = f.extract(
            &json!({
                "authors": [{"name": "Ada <b>Lovelace</b>"}],
                "externalIds": {"DOI": "10.1/x", "ArXiv": "1706.03762"},
                "openAccessPdf": null,
                "venue": "",
                "duration": 225,
                "address": {"town": "Ottawa", "country_code": "ca"}
            }),
            &base(),
        );
        assert_eq!(e.template, Template::Paper);
        assert_eq!(e.authors, ["Ada Lovelace"]);
        assert_eq!(e.doi.as_deref(), Some("10.1/x"));
        assert_eq!(
            e.pdf_url.as_deref(),
            Some("https://arxiv.org/pdf/1706.03762")
        );
        assert_eq!(e.journal, None);
        assert_eq!(e.length.as_deref(), Some("3:45"));
        let a = e.address.unwrap();
        assert_eq!(a.locality.as_deref(), Some("Ottawa"));
        assert_eq!(a.country_code.as_deref(), Some("ca"));
        assert!(
            JsonFields::new(None, &FieldsConfig::default())
                .unwrap()
                .is_none()
        );
        let bad: FieldsConfig = toml::from_str("doi = \"{unclosed\"").unwrap();
        let err = JsonFields::new(None, &bad).unwrap_err();
        assert!(err.contains("parse.fields.doi"), "{err}");
    }

    #[test]
    fn infoboxes_need_more_than_a_name() {
        let config: InfoboxConfig = toml::from_str(
            r#"
            results = "/entities"
            title = "labels.en.value"
            content = "descriptions.en.value"
            skip = ["missing"]
            [[urls]]
            title = "Official website"
            url = "claims.P856.0.mainsnak.datavalue.value"
            [[attributes]]
            label = "Inception"
            value = "claims.P571.0.mainsnak.datavalue.value.time"
            "#,
        )
        .unwrap();
        let ib = JsonInfobox::new(&config).unwrap();
        let doc = json!({"entities": {
            "Q1": {"labels": {"en": {"value": "Rust"}}, "descriptions": {"en": {"value": "a language"}},
                   "claims": {"P856": [{"mainsnak": {"datavalue": {"value": "https://www.rust-lang.org/"}}}]}},
            "Q2": {"labels": {"en": {"value": "Name only"}}},
            "-1": {"missing": ""}
        }});
        let boxes = ib.extract(&doc, &base());
        assert_eq!(boxes.len(), 1, "{boxes:?}");
        assert_eq!(boxes[0].infobox, "Rust");
        assert_eq!(boxes[0].urls[0].url, "https://www.rust-lang.org/");
        assert!(boxes[0].attributes.is_empty());
        // One object that is the item itself.
        let single: InfoboxConfig =
            toml::from_str("title = \"title\"\ncontent = \"extract\"").unwrap();
        let ib = JsonInfobox::new(&single).unwrap();
        let boxes = ib.extract(&json!({"title": "Paris", "extract": "Capital."}), &base());
        assert_eq!(boxes[0].infobox, "Paris");
        assert!(JsonInfobox::new(&InfoboxConfig::default()).is_err());
    }
}
