//! What a result carries beyond a link, a title and a snippet: SearXNG's
//! result templates (`images.html`, `videos.html`, `paper.html`,
//! `packages.html`, `map.html`) and their fields, and the infoboxes and
//! direct answers of a search. Plain data; every text field is made safe
//! and bounded by a `sanitized` method here, the one place they pass
//! through before any output.

use serde::{Deserialize, Serialize};

use super::clean_text;

/// Which SearXNG result template shows a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Template {
    /// A web page: link, title, snippet.
    #[default]
    #[serde(rename = "default.html")]
    Default,
    /// An image: `img_src`, `thumbnail_src`, `resolution`, `source`.
    #[serde(rename = "images.html")]
    Images,
    /// A video: `thumbnail`, `length`, `iframe_src`.
    #[serde(rename = "videos.html")]
    Videos,
    /// A scholarly work: `authors`, `journal`, `doi`, `pdf_url`.
    #[serde(rename = "paper.html")]
    Paper,
    /// A software package: `package_name`, `version`, `license_name`, …
    #[serde(rename = "packages.html")]
    Packages,
    /// A place: `latitude`, `longitude`, `boundingbox`, `address`.
    #[serde(rename = "map.html")]
    Map,
}

impl Template {
    /// Every template, for error messages and checks.
    pub const ALL: [Template; 6] = [
        Template::Default,
        Template::Images,
        Template::Videos,
        Template::Paper,
        Template::Packages,
        Template::Map,
    ];

    /// SearXNG's name of the template (`paper.html`).
    pub fn as_str(self) -> &'static str {
        match self {
            Template::Default => "default.html",
            Template::Images => "images.html",
            Template::Videos => "videos.html",
            Template::Paper => "paper.html",
            Template::Packages => "packages.html",
            Template::Map => "map.html",
        }
    }

    /// The template SearXNG names `name`, if any.
    pub fn from_name(name: &str) -> Option<Template> {
        Template::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// A place's address, in the keys SearXNG's `map.html` reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Address {
    /// The place's own name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Street.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub road: Option<String>,
    /// House number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub house_number: Option<String>,
    /// City, town or village.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality: Option<String>,
    /// Postal code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postcode: Option<String>,
    /// Country name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code, lower case as OSM writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
}

impl Address {
    fn fields(&mut self) -> [&mut Option<String>; 7] {
        [
            &mut self.name,
            &mut self.road,
            &mut self.house_number,
            &mut self.locality,
            &mut self.postcode,
            &mut self.country,
            &mut self.country_code,
        ]
    }

    /// Whether no field is set.
    pub fn is_empty(&self) -> bool {
        [
            &self.name,
            &self.road,
            &self.house_number,
            &self.locality,
            &self.postcode,
            &self.country,
            &self.country_code,
        ]
        .iter()
        .all(|f| f.is_none())
    }
}

/// SearXNG's template fields of one result. Only the fields of its
/// `template` are expected to be set; a field an engine does not give stays
/// `None` (or empty), and is not written out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Extra {
    /// The template that shows the result.
    pub template: Template,
    /// images: the full-size image (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub img_src: Option<String>,
    /// images: a small preview of it (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail_src: Option<String>,
    /// images: `1920 x 1080`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// images: where the image comes from (a site or collection name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// images, videos: the author or channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// videos: playing time, `m:ss` or `h:mm:ss` ([`video_length`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<String>,
    /// videos: an embeddable player, kept only for allowed hosts
    /// ([`iframe_allowed`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iframe_src: Option<String>,
    /// paper: the authors, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// paper: journal, conference or venue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// paper: the DOI, bare (`10.1038/nature14539`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// paper: the full text as PDF (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pdf_url: Option<String>,
    /// paper: the publisher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    /// paper: the volume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    /// packages: the package's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package_name: Option<String>,
    /// packages: its latest version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// packages: its licence (SPDX expression or name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// packages: the project's home page (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// packages: where its source code is (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_code_url: Option<String>,
    /// packages: its maintainer or owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maintainer: Option<String>,
    /// packages: stars, downloads or points, as a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub popularity: Option<String>,
    /// paper, packages: keywords.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// map: latitude in degrees, a decimal number from -90 to 90.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<String>,
    /// map: longitude in degrees, a decimal number from -180 to 180.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<String>,
    /// map: Nominatim's bounding box, `[min lat, max lat, min lon, max
    /// lon]`, four decimal numbers (as SearXNG's OpenStreetMap engine
    /// passes it on), else empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boundingbox: Vec<String>,
    /// map: the place's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<Address>,
}

/// The longest text field kept, in bytes (a title-length string is far
/// below; an abstract goes in the snippet, not here).
const MAX_FIELD_BYTES: usize = 1024;
/// The most authors or tags kept of one result.
const MAX_LIST: usize = 64;

/// `s` cut to at most `max` bytes at a character boundary, without hidden
/// characters, trimmed; `None` when nothing is left.
fn clean_field(s: String, max: usize) -> Option<String> {
    let mut s = clean_text(s);
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    let t = s.trim();
    if t.is_empty() {
        None
    } else if t.len() == s.len() {
        Some(s)
    } else {
        Some(t.to_string())
    }
}

/// An absolute http(s) link with a host, cleaned; else `None`.
fn web_link(s: String) -> Option<String> {
    let s = clean_field(s, 4096)?;
    let u = url::Url::parse(&s).ok()?;
    (matches!(u.scheme(), "http" | "https") && u.host_str().is_some()).then_some(s)
}

/// A decimal number in `-limit..=limit`, written as given.
fn coordinate(s: String, limit: f64) -> Option<String> {
    let s = clean_field(s, 32)?;
    let v: f64 = s.parse().ok()?;
    (v.is_finite() && (-limit..=limit).contains(&v)).then_some(s)
}

impl Extra {
    /// An empty set of fields under `template`.
    pub fn new(template: Template) -> Extra {
        Extra {
            template,
            ..Extra::default()
        }
    }

    /// Whether it says nothing beyond a plain web result.
    pub fn is_empty(&self) -> bool {
        *self == Extra::default()
    }

    /// Every text field without hidden characters and within bounds,
    /// every link an absolute http(s) URL (else dropped), coordinates
    /// numbers in range (else dropped, and a bounding box of anything but
    /// four of them dropped).
    pub fn sanitized(mut self) -> Extra {
        let text = |v: Option<String>| v.and_then(|s| clean_field(s, MAX_FIELD_BYTES));
        let link = |v: Option<String>| v.and_then(web_link);
        let list = |v: Vec<String>| -> Vec<String> {
            v.into_iter()
                .filter_map(|s| clean_field(s, MAX_FIELD_BYTES))
                .take(MAX_LIST)
                .collect()
        };
        self.img_src = link(self.img_src);
        self.thumbnail_src = link(self.thumbnail_src);
        self.resolution = text(self.resolution);
        self.source = text(self.source);
        self.author = text(self.author);
        self.length = self.length.and_then(|l| video_length(&l));
        self.iframe_src = link(self.iframe_src);
        self.authors = list(self.authors);
        self.journal = text(self.journal);
        self.doi = text(self.doi).map(|d| bare_doi(&d).to_string());
        self.pdf_url = link(self.pdf_url);
        self.publisher = text(self.publisher);
        self.volume = text(self.volume);
        self.package_name = text(self.package_name);
        self.version = text(self.version);
        self.license = text(self.license);
        self.homepage = link(self.homepage);
        self.source_code_url = link(self.source_code_url);
        self.maintainer = text(self.maintainer);
        self.popularity = text(self.popularity);
        self.tags = list(self.tags);
        self.latitude = self.latitude.and_then(|v| coordinate(v, 90.0));
        self.longitude = self.longitude.and_then(|v| coordinate(v, 180.0));
        let bbox: Vec<String> = std::mem::take(&mut self.boundingbox)
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| coordinate(v, if i < 2 { 90.0 } else { 180.0 }))
            .collect();
        self.boundingbox = if bbox.len() == 4 { bbox } else { Vec::new() };
        self.address = self.address.and_then(|mut a| {
            for f in a.fields() {
                *f = f.take().and_then(|s| clean_field(s, MAX_FIELD_BYTES));
            }
            (!a.is_empty()).then_some(a)
        });
        self
    }

    /// Fills each field this one lacks from `other`, when both show under
    /// the same template (a paper's DOI from Crossref, its PDF from arXiv).
    pub fn fill_from(&mut self, other: &Extra) {
        if self.template != other.template {
            return;
        }
        fn opt(mine: &mut Option<String>, theirs: &Option<String>) {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
        fn list(mine: &mut Vec<String>, theirs: &[String]) {
            if mine.is_empty() {
                mine.extend_from_slice(theirs);
            }
        }
        opt(&mut self.img_src, &other.img_src);
        opt(&mut self.thumbnail_src, &other.thumbnail_src);
        opt(&mut self.resolution, &other.resolution);
        opt(&mut self.source, &other.source);
        opt(&mut self.author, &other.author);
        opt(&mut self.length, &other.length);
        opt(&mut self.iframe_src, &other.iframe_src);
        list(&mut self.authors, &other.authors);
        opt(&mut self.journal, &other.journal);
        opt(&mut self.doi, &other.doi);
        opt(&mut self.pdf_url, &other.pdf_url);
        opt(&mut self.publisher, &other.publisher);
        opt(&mut self.volume, &other.volume);
        opt(&mut self.package_name, &other.package_name);
        opt(&mut self.version, &other.version);
        opt(&mut self.license, &other.license);
        opt(&mut self.homepage, &other.homepage);
        opt(&mut self.source_code_url, &other.source_code_url);
        opt(&mut self.maintainer, &other.maintainer);
        opt(&mut self.popularity, &other.popularity);
        list(&mut self.tags, &other.tags);
        if self.latitude.is_none() && self.longitude.is_none() {
            self.latitude.clone_from(&other.latitude);
            self.longitude.clone_from(&other.longitude);
        }
        list(&mut self.boundingbox, &other.boundingbox);
        if self.address.is_none() {
            self.address.clone_from(&other.address);
        }
    }
}

/// A DOI without the resolver or scheme engines put before it
/// (`https://doi.org/`, `doi:`).
pub fn bare_doi(doi: &str) -> &str {
    let d = doi.trim();
    for prefix in [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
        "DOI:",
    ] {
        if let Some(rest) = d.strip_prefix(prefix) {
            return rest.trim();
        }
    }
    d
}

/// A video's playing time as engines give it — seconds (`225`, `225.4`),
/// ISO 8601 (`PT3M45S`, `PT1H2M`), or already `3:45` / `1:02:03` — as
/// `m:ss` or `h:mm:ss`; `None` for anything else or past 1000 hours.
pub fn video_length(raw: &str) -> Option<String> {
    let s = raw.trim();
    let secs: u64 = if let Some(iso) = s.strip_prefix("PT").or_else(|| s.strip_prefix("pt")) {
        let mut total = 0u64;
        let mut num = String::new();
        for c in iso.chars() {
            match c {
                '0'..='9' | '.' => num.push(c),
                'H' | 'h' | 'M' | 'm' | 'S' | 's' => {
                    let v: f64 = num.parse().ok()?;
                    num.clear();
                    let unit = match c.to_ascii_uppercase() {
                        'H' => 3600.0,
                        'M' => 60.0,
                        _ => 1.0,
                    };
                    total = total.checked_add((v * unit) as u64)?;
                }
                _ => return None,
            }
        }
        if !num.is_empty() {
            return None;
        }
        total
    } else if s.contains(':') {
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty() || p.len() > 4) {
            return None;
        }
        let mut total = 0u64;
        for p in parts {
            total = total.checked_mul(60)?.checked_add(p.parse().ok()?)?;
        }
        total
    } else {
        let v: f64 = s.parse().ok()?;
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        v.round() as u64
    };
    if secs == 0 || secs >= 1000 * 3600 {
        return None;
    }
    let (h, m, sec) = (secs / 3600, secs / 60 % 60, secs % 60);
    Some(if h > 0 {
        format!("{h}:{m:02}:{sec:02}")
    } else {
        format!("{m}:{sec:02}")
    })
}

/// The players a result's `iframe_src` may point at: https, one of these
/// hosts, under this path (the host's embed player, nothing else on it).
const IFRAME_PLAYERS: &[(&str, &str)] = &[
    ("www.youtube-nocookie.com", "/embed/"),
    ("player.vimeo.com", "/video/"),
    ("www.dailymotion.com", "/embed/video/"),
    ("geo.dailymotion.com", "/player"),
    ("player.bilibili.com", "/player.html"),
];

/// Whether `src` may be embedded as a video player: an https URL of a
/// known player ([`IFRAME_PLAYERS`]) or of one of `peertube_hosts` (the
/// PeerTube instances configured as engines) under `/videos/embed/`. Any
/// other iframe an engine asks for is dropped: a hostile engine must not
/// put its own page inside ours.
pub fn iframe_allowed(src: &str, peertube_hosts: &[&str]) -> bool {
    let Ok(u) = url::Url::parse(src) else {
        return false;
    };
    if u.scheme() != "https" || !u.username().is_empty() || u.port().is_some() {
        return false;
    }
    let Some(host) = u.host_str() else {
        return false;
    };
    let path = u.path();
    IFRAME_PLAYERS
        .iter()
        .any(|(h, p)| host.eq_ignore_ascii_case(h) && path.starts_with(p))
        || (peertube_hosts.iter().any(|h| host.eq_ignore_ascii_case(h))
            && path.starts_with("/videos/embed/"))
}

/// One link of an infobox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfoboxUrl {
    /// What the link is (`Official website`, `Wikipedia`).
    pub title: String,
    /// The link (http(s)).
    pub url: String,
}

/// One fact of an infobox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfoboxAttribute {
    /// What the fact is (`Inception`, `Country`).
    pub label: String,
    /// Its value, as text.
    pub value: String,
}

/// A box about the entity a query names, in SearXNG's shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Infobox {
    /// The entity's name (SearXNG's key for the title is `infobox`).
    pub infobox: String,
    /// What identifies the entity across engines: its Wikipedia page's
    /// URL where known, so Wikipedia's and Wikidata's boxes merge.
    pub id: String,
    /// A short description or the article's first paragraph.
    pub content: String,
    /// An image of the entity (http(s)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub img_src: Option<String>,
    /// Links about it.
    pub urls: Vec<InfoboxUrl>,
    /// Facts about it.
    pub attributes: Vec<InfoboxAttribute>,
    /// The engine that gave it (the first, when merged).
    pub engine: String,
    /// Every engine that gave part of it.
    pub engines: Vec<String>,
}

/// The longest infobox content kept, in bytes.
const MAX_INFOBOX_CONTENT: usize = 4096;
/// The most links or facts kept of one infobox.
const MAX_INFOBOX_ITEMS: usize = 24;

impl Infobox {
    /// Text without hidden characters and bounded, links http(s) (else
    /// dropped); `None` when it has no name left.
    pub fn sanitized(self) -> Option<Infobox> {
        let infobox = clean_field(self.infobox, MAX_FIELD_BYTES)?;
        let urls = self
            .urls
            .into_iter()
            .filter_map(|u| {
                Some(InfoboxUrl {
                    url: web_link(u.url)?,
                    title: clean_field(u.title, MAX_FIELD_BYTES)?,
                })
            })
            .take(MAX_INFOBOX_ITEMS)
            .collect();
        let attributes = self
            .attributes
            .into_iter()
            .filter_map(|a| {
                Some(InfoboxAttribute {
                    label: clean_field(a.label, MAX_FIELD_BYTES)?,
                    value: readable_value(clean_field(a.value, MAX_FIELD_BYTES)?),
                })
            })
            .take(MAX_INFOBOX_ITEMS)
            .collect();
        let engine = clean_text(self.engine);
        Some(Infobox {
            id: clean_field(self.id, 4096).unwrap_or_else(|| infobox.clone()),
            infobox,
            content: clean_field(self.content, MAX_INFOBOX_CONTENT).unwrap_or_default(),
            img_src: self.img_src.and_then(web_link),
            urls,
            attributes,
            engines: vec![engine.clone()],
            engine,
        })
    }

    /// The `id` compared ([`id_key`]).
    fn id_key(&self) -> String {
        id_key(&self.id)
    }
}

/// A box's `id` or link as compared: scheme, `www.`/`m.` and a trailing
/// slash left out, the host's case folded, `_` and `%20` read as a space,
/// so the same article linked two ways is one entity.
fn id_key(id: &str) -> String {
    let id = id.trim();
    let rest = id
        .strip_prefix("https://")
        .or_else(|| id.strip_prefix("http://"))
        .unwrap_or(id);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host
        .to_ascii_lowercase()
        .replace(".m.wikipedia.", ".wikipedia.");
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let path = path
        .trim_end_matches('/')
        .replace("%20", " ")
        .replace('_', " ");
    format!("{host}/{path}")
}

/// A fact's value as a person reads it: a signed quantity or a midnight
/// timestamp in the machine form knowledge bases give (Wikidata's
/// `+2010-07-07T00:00:00Z`, `+1455`, a year-precision `+1969-00-00T00:00:00Z`)
/// becomes `2010-07-07`, `1455`, `1969`; anything else is kept as it is.
fn readable_value(value: String) -> String {
    let v = value.strip_prefix('+').unwrap_or(&value);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if value.starts_with('+') {
        let number = v.split_once('.').map_or(v, |(whole, _)| whole);
        if digits(number) && v.split_once('.').is_none_or(|(_, frac)| digits(frac)) {
            return v.to_string();
        }
    }
    let Some(date) = v.strip_suffix("T00:00:00Z") else {
        return value;
    };
    let mut parts = date.splitn(3, '-');
    let (Some(y), Some(m), Some(d)) = (parts.next(), parts.next(), parts.next()) else {
        return value;
    };
    if !(digits(y) && y.len() >= 4 && m.len() == 2 && digits(m) && d.len() == 2 && digits(d)) {
        return value;
    }
    match (m, d) {
        ("00", _) => y.to_string(),
        (_, "00") => format!("{y}-{m}"),
        _ => format!("{y}-{m}-{d}"),
    }
}

/// Infoboxes about one entity merged into one box. Two boxes are about the
/// same entity when one's [`Infobox::id`] is the other's, or among the
/// other's links (Wikidata's box links both the English and the Chinese
/// article, so it joins the two Wikipedias' boxes), and so on transitively.
/// A group is led by its first box met — or, for a Chinese query (asked
/// in `zh`, or typed in Han characters), its first box written in Chinese: the leader keeps its name and
/// text, takes a missing text or image from the next, and the links and
/// facts not yet shown are appended. Groups keep the order they were met.
pub fn merge_infoboxes(boxes: Vec<Infobox>, query: &super::Query) -> Vec<Infobox> {
    let prefer_han = query
        .lang
        .as_deref()
        .is_some_and(|l| l.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("zh")))
        || has_han(&query.text);
    let keys: Vec<(String, Vec<String>)> = boxes
        .iter()
        .map(|b| {
            let links = b.urls.iter().map(|u| id_key(&u.url)).collect();
            (b.id_key(), links)
        })
        .collect();
    let same = |i: usize, j: usize| {
        keys[i].0 == keys[j].0 || keys[j].1.contains(&keys[i].0) || keys[i].1.contains(&keys[j].0)
    };
    // Each box's group, by the first box of it: a few boxes a search, so
    // relabelling whole groups on each join is cheap.
    let mut group: Vec<usize> = (0..boxes.len()).collect();
    for i in 0..boxes.len() {
        for j in 0..i {
            if group[i] != group[j] && same(i, j) {
                let (keep, gone) = (group[i].min(group[j]), group[i].max(group[j]));
                for g in group.iter_mut().filter(|g| **g == gone) {
                    *g = keep;
                }
            }
        }
    }
    let mut slots: Vec<Option<Infobox>> = boxes.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for first in 0..slots.len() {
        if group[first] != first {
            continue;
        }
        let members: Vec<usize> = (first..slots.len())
            .filter(|&i| group[i] == first)
            .collect();
        let lead = members
            .iter()
            .copied()
            .find(|&i| {
                prefer_han
                    && slots[i]
                        .as_ref()
                        .is_some_and(|b| has_han(&b.content) || has_han(&b.infobox))
            })
            .unwrap_or(first);
        let mut merged = slots[lead].take().expect("each box is taken once");
        for i in members {
            if let Some(b) = slots[i].take() {
                absorb_box(&mut merged, b);
            }
        }
        out.push(merged);
    }
    out
}

/// Whether `text` holds a Han character (Chinese, or Japanese kanji).
fn has_han(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'))
}

/// `b` merged into `first`: a missing text or image taken, links and facts
/// not yet shown appended, its engines added.
fn absorb_box(first: &mut Infobox, b: Infobox) {
    if first.content.is_empty() {
        first.content = b.content;
    }
    if first.img_src.is_none() {
        first.img_src = b.img_src;
    }
    for u in b.urls {
        if first.urls.len() < MAX_INFOBOX_ITEMS && !first.urls.iter().any(|x| x.url == u.url) {
            first.urls.push(u);
        }
    }
    for a in b.attributes {
        if first.attributes.len() < MAX_INFOBOX_ITEMS
            && !first.attributes.iter().any(|x| x.label == a.label)
        {
            first.attributes.push(a);
        }
    }
    for e in b.engines {
        if !first.engines.contains(&e) {
            first.engines.push(e);
        }
    }
}

/// A direct answer to the query (a definition, a conversion, a fact).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The answer's text.
    pub answer: String,
    /// Where it comes from (http(s)), when the engine says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The engine that gave it.
    #[serde(default)]
    pub engine: String,
}

impl Answer {
    /// Text without hidden characters and bounded, the link http(s) (else
    /// dropped); `None` when no text is left.
    pub fn sanitized(self) -> Option<Answer> {
        Some(Answer {
            answer: clean_field(self.answer, MAX_INFOBOX_CONTENT)?,
            url: self.url.and_then(web_link),
            engine: clean_text(self.engine),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Query;

    #[test]
    fn lengths_in_every_shape_engines_use() {
        for (raw, want) in [
            ("225", Some("3:45")),
            ("225.4", Some("3:45")),
            ("PT3M45S", Some("3:45")),
            ("PT1H2M3S", Some("1:02:03")),
            ("PT1H", Some("1:00:00")),
            ("3:45", Some("3:45")),
            ("01:02:03", Some("1:02:03")),
            ("0", None),
            ("-5", None),
            ("NaN", None),
            ("PT3X", None),
            ("1:2:3:4", None),
            ("soon", None),
            ("99999999999", None),
        ] {
            assert_eq!(video_length(raw).as_deref(), want, "{raw:?}");
        }
    }

    #[test]
    fn only_known_players_are_embedded() {
        let peertube = ["framatube.org"];
        for ok in [
            "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
            "https://player.vimeo.com/video/76979871",
            "https://www.dailymotion.com/embed/video/x8abc",
            "https://framatube.org/videos/embed/9c9de5e8-0a1e-484a-b099-e80766180a6d",
        ] {
            assert!(iframe_allowed(ok, &peertube), "{ok}");
        }
        for bad in [
            "http://www.youtube-nocookie.com/embed/x",
            "https://www.youtube-nocookie.com.evil.example/embed/x",
            "https://evil.example/embed/x",
            "https://player.vimeo.com/login",
            "https://framatube.org/about",
            "https://other.peertube.example/videos/embed/x",
            "https://user@player.vimeo.com/video/1",
            "https://player.vimeo.com:8443/video/1",
            "javascript:alert(1)",
            "",
        ] {
            assert!(!iframe_allowed(bad, &peertube), "{bad}");
        }
    }

    #[test]
    fn sanitizing_cleans_bounds_and_drops_what_is_not_a_link_or_a_number() {
        let e = Extra {
            template: Template::Map,
            img_src: Some("javascript:alert(1)".into()),
            pdf_url: Some("https://arxiv.org/pdf/1706.03762\u{7}".into()),
            authors: (0..500).map(|i| format!("A\u{202e}{i}")).collect(),
            doi: Some("https://doi.org/10.1038/X".into()),
            latitude: Some("48.85".into()),
            longitude: Some("200".into()),
            boundingbox: vec!["1".into(), "2".into(), "3".into()],
            journal: Some("x".repeat(10_000)),
            address: Some(Address {
                road: Some("  ".into()),
                ..Address::default()
            }),
            ..Extra::default()
        }
        .sanitized();
        assert_eq!(e.img_src, None);
        assert_eq!(
            e.pdf_url.as_deref(),
            Some("https://arxiv.org/pdf/1706.03762")
        );
        assert_eq!(e.authors.len(), MAX_LIST);
        assert_eq!(e.authors[0], "A0");
        assert_eq!(e.doi.as_deref(), Some("10.1038/X"));
        assert_eq!(e.latitude.as_deref(), Some("48.85"));
        assert_eq!(e.longitude, None);
        assert!(e.boundingbox.is_empty());
        assert!(e.journal.unwrap().len() <= MAX_FIELD_BYTES);
        assert_eq!(e.address, None);
    }

    #[test]
    fn filling_takes_missing_fields_of_the_same_template_only() {
        let mut kept = Extra {
            doi: Some("10.1/a".into()),
            ..Extra::new(Template::Paper)
        };
        kept.fill_from(&Extra {
            doi: Some("10.1/b".into()),
            pdf_url: Some("https://x.org/a.pdf".into()),
            ..Extra::new(Template::Paper)
        });
        assert_eq!(kept.doi.as_deref(), Some("10.1/a"));
        assert_eq!(kept.pdf_url.as_deref(), Some("https://x.org/a.pdf"));
        kept.fill_from(&Extra {
            img_src: Some("https://x.org/i.png".into()),
            ..Extra::new(Template::Images)
        });
        assert_eq!(kept.img_src, None);
    }

    #[test]
    fn infoboxes_of_one_entity_merge() {
        let wp = Infobox {
            infobox: "Rust".into(),
            id: "https://en.wikipedia.org/wiki/Rust_(programming_language)".into(),
            content: "A language.".into(),
            urls: vec![InfoboxUrl {
                title: "Wikipedia".into(),
                url: "https://en.wikipedia.org/wiki/Rust_(programming_language)".into(),
            }],
            engine: "wikipedia".into(),
            ..Infobox::default()
        }
        .sanitized()
        .unwrap();
        let wd = Infobox {
            infobox: "Rust".into(),
            id: "https://en.m.wikipedia.org/wiki/Rust%20(programming%20language)/".into(),
            img_src: Some("https://upload.wikimedia.org/r.svg".into()),
            urls: vec![InfoboxUrl {
                title: "Official website".into(),
                url: "https://www.rust-lang.org/".into(),
            }],
            attributes: vec![InfoboxAttribute {
                label: "Inception".into(),
                value: "2010".into(),
            }],
            engine: "wikidata".into(),
            ..Infobox::default()
        }
        .sanitized()
        .unwrap();
        let other = Infobox {
            infobox: "Rust (fungus)".into(),
            id: "https://en.wikipedia.org/wiki/Rust_(fungus)".into(),
            engine: "wikipedia".into(),
            ..Infobox::default()
        };
        let merged = merge_infoboxes(vec![wp, wd, other], &Query::default());
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].content, "A language.");
        assert_eq!(merged[0].urls.len(), 2);
        assert_eq!(merged[0].attributes.len(), 1);
        assert!(merged[0].img_src.is_some());
        assert_eq!(merged[0].engines, ["wikipedia", "wikidata"]);
        assert!(
            Infobox {
                infobox: "\u{7}".into(),
                ..Infobox::default()
            }
            .sanitized()
            .is_none()
        );
    }

    #[test]
    fn knowledge_base_values_read_as_a_person_writes_them() {
        for (raw, shown) in [
            ("+2010-07-07T00:00:00Z", "2010-07-07"),
            ("+1969-00-00T00:00:00Z", "1969"),
            ("+1848-03-00T00:00:00Z", "1848-03"),
            ("2001-01-01T00:00:00Z", "2001-01-01"),
            ("+1455", "1455"),
            ("+21.5", "21.5"),
            ("-12", "-12"),
            ("+49 30 1234", "+49 30 1234"),
            ("2010-07-07T12:30:00Z", "2010-07-07T12:30:00Z"),
            ("+12-07-07T00:00:00Z", "+12-07-07T00:00:00Z"),
            ("+.5", "+.5"),
            ("1.0.2", "1.0.2"),
        ] {
            assert_eq!(readable_value(raw.to_string()), shown, "{raw}");
        }
    }

    fn boxed(id: &str, name: &str, content: &str, links: &[&str], engine: &str) -> Infobox {
        Infobox {
            infobox: name.into(),
            id: id.into(),
            content: content.into(),
            urls: links
                .iter()
                .map(|u| InfoboxUrl {
                    title: "link".into(),
                    url: u.to_string(),
                })
                .collect(),
            engine: engine.into(),
            engines: vec![engine.into()],
            ..Infobox::default()
        }
    }

    #[test]
    fn one_entity_in_two_languages_is_one_box_led_by_the_query_s_language() {
        let en_url = "https://en.wikipedia.org/wiki/Rust_(programming_language)";
        let zh_url = "https://zh.wikipedia.org/wiki/Rust";
        let boxes = || {
            vec![
                boxed(
                    en_url,
                    "Rust (programming language)",
                    "A language.",
                    &[en_url],
                    "wp",
                ),
                boxed(zh_url, "Rust", "一门编程语言。", &[zh_url], "wp_zh"),
                boxed(
                    "https://en.wikipedia.org/wiki/Rust_(fungus)",
                    "Rust (fungus)",
                    "A fungus.",
                    &[],
                    "wp",
                ),
                // Wikidata's box comes last and links both articles: it
                // joins the two boxes met before it.
                boxed(
                    en_url,
                    "Rust",
                    "",
                    &[en_url, zh_url, "https://www.rust-lang.org/"],
                    "wd",
                ),
            ]
        };
        let english = Query {
            text: "rust".into(),
            ..Query::default()
        };
        let merged = merge_infoboxes(boxes(), &english);
        assert_eq!(merged.len(), 2, "{merged:#?}");
        assert_eq!(merged[0].content, "A language.");
        assert_eq!(merged[0].engines, ["wp", "wp_zh", "wd"]);
        assert!(merged[0].urls.iter().any(|u| u.url == zh_url));
        assert!(
            merged[0]
                .urls
                .iter()
                .any(|u| u.url == "https://www.rust-lang.org/")
        );
        assert_eq!(merged[1].infobox, "Rust (fungus)");

        for chinese in [
            Query {
                text: "rust".into(),
                lang: Some("zh-CN".into()),
                ..Query::default()
            },
            Query {
                text: "rust 语言".into(),
                ..Query::default()
            },
        ] {
            let merged = merge_infoboxes(boxes(), &chinese);
            assert_eq!(merged.len(), 2);
            assert_eq!(merged[0].content, "一门编程语言。");
            assert_eq!(merged[0].engines, ["wp_zh", "wp", "wd"]);
            assert!(merged[0].urls.iter().any(|u| u.url == en_url));
        }
        // Boxes that share only a link to a third site stay apart.
        let apart = merge_infoboxes(
            vec![
                boxed(
                    "https://a.example/x",
                    "X",
                    "x",
                    &["https://shared.example/"],
                    "a",
                ),
                boxed(
                    "https://b.example/y",
                    "Y",
                    "y",
                    &["https://shared.example/"],
                    "b",
                ),
            ],
            &english,
        );
        assert_eq!(apart.len(), 2);
    }
}
