//! The `[[engine]]` keys of API engines: `[engine.parse.fields]` (where
//! SearXNG's result-template fields are in an item), `[engine.parse.infobox]`
//! (an answer read as a box about an entity), and `[engine.follow]` (a
//! second request built from the first answer). The kinds check the specs
//! themselves (`engines::fields`, `engines::follow`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

macro_rules! fields_config {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// `[engine.parse.fields]`: where each of SearXNG's template fields is
        /// in a result item. `json`: a dotted path or a template (as
        /// `parse.title`), `a || b` for alternatives, and for the list fields
        /// (`authors`, `tags`, `boundingbox`) `list[]` or `list[].sub` (a path
        /// or `{template}` read on each element). `feed`: an element path
        /// under the item (`author.name`, `Item[Name=Title]`, `link[title=pdf]@href`).
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct FieldsConfig {
            $($(#[$doc])* #[serde(skip_serializing_if = "Option::is_none")] pub $name: Option<String>,)*
        }

        impl FieldsConfig {
            /// Every field set, with its key.
            pub fn set(&self) -> Vec<(&'static str, &str)> {
                let mut out = Vec::new();
                $(if let Some(v) = self.$name.as_deref() { out.push((stringify!($name), v)); })*
                out
            }

            /// Whether no field is set.
            pub fn is_empty(&self) -> bool {
                self.set().is_empty()
            }
        }
    };
}

fields_config! {
    /// images: the full-size image (a link).
    img_src,
    /// images: its preview (a link).
    thumbnail_src,
    /// images: `1920 x 1080` (write `{width|raw} x {height|raw}`).
    resolution,
    /// images: the source's name.
    source,
    /// images, videos: the author or channel.
    author,
    /// videos: playing time (seconds, ISO 8601 `PT3M45S`, or `3:45`).
    length,
    /// videos: the embeddable player (kept for allowed hosts only).
    iframe_src,
    /// paper: the authors (a list field).
    authors,
    /// paper: journal or venue.
    journal,
    /// paper: the DOI.
    doi,
    /// paper: the PDF (a link).
    pdf_url,
    /// paper: publisher.
    publisher,
    /// paper: volume.
    volume,
    /// packages: the package's name.
    package_name,
    /// packages: latest version.
    version,
    /// packages: licence.
    license,
    /// packages: home page (a link).
    homepage,
    /// packages: source code (a link).
    source_code_url,
    /// packages: maintainer.
    maintainer,
    /// packages: stars, downloads or points.
    popularity,
    /// paper, packages: keywords (a list field).
    tags,
    /// map: latitude.
    latitude,
    /// map: longitude.
    longitude,
    /// map: bounding box (a list field: min lat, max lat, min lon, max lon).
    boundingbox,
    /// map: the path to an OSM-style address object (`road`, `house_number`,
    /// `city`/`town`/`village`, `postcode`, `country`, `country_code`).
    address,
}

/// Fields whose value is a list (`authors = "author[].name"`).
pub const LIST_FIELDS: [&str; 3] = ["authors", "tags", "boundingbox"];
/// Fields whose value is a link (made absolute, http(s) only).
pub const LINK_FIELDS: [&str; 6] = [
    "img_src",
    "thumbnail_src",
    "iframe_src",
    "pdf_url",
    "homepage",
    "source_code_url",
];

/// One link of `[engine.parse.infobox]`: a fixed label and where the URL is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfoboxLinkConfig {
    /// The label shown (`Official website`).
    pub title: String,
    /// The URL's path or template in the infobox item.
    pub url: String,
}

/// One fact of `[engine.parse.infobox]`: a fixed label and where its value is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfoboxFactConfig {
    /// The label shown (`Inception`).
    pub label: String,
    /// The value's path or template in the infobox item.
    pub value: String,
}

/// `[engine.parse.infobox]` (kind `json`): the answer read as boxes about
/// an entity. Paths and templates as in `[engine.parse]`, over each item.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InfoboxConfig {
    /// JSON pointer to the item, or to a list (or object) of items; `""` =
    /// the whole answer.
    pub results: String,
    /// The entity's name (required).
    pub title: Option<String>,
    /// What identifies it across engines (its Wikipedia URL, so boxes
    /// merge); the title when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its description or summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Its image (a link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub img_src: Option<String>,
    /// An item where this path holds anything but `null`/`false` is no
    /// box (a missing page, a disambiguation page).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
    /// Links, each kept when its URL is there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<InfoboxLinkConfig>,
    /// Facts, each kept when its value is there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<InfoboxFactConfig>,
}

/// `[engine.follow]`: a second request, built from the first answer, whose
/// answer is the one parsed (PubMed's search gives ids, its summary gives
/// the papers). One follow-up at most, under the same deadline and size cap;
/// recorded and replayed as `<engine>.follow`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowConfig {
    /// The follow-up's URL: the `[[engine]] url` placeholders, and `{NAME}`
    /// for each of `values`.
    pub url: String,
    /// `NAME = "path"`: the values read from the first answer (a JSON path,
    /// `list[]` for every element; or an XML element path, every match),
    /// joined with `join` and form-encoded. When a value is missing or
    /// empty, there is no follow-up and no result.
    pub values: BTreeMap<String, String>,
    /// What joins several values (`,` unless set).
    #[serde(default = "default_join")]
    pub join: String,
    /// The most values read of one path.
    #[serde(default = "default_max_values")]
    pub max_values: usize,
}

fn default_join() -> String {
    ",".into()
}

fn default_max_values() -> usize {
    20
}
