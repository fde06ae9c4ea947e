//! SearXNG's JSON shape of a [`SearchResponse`] (`format=json` and
//! `metasift search --format json`), so SearXNG API clients work unchanged.
//!
//! The JSON keeps SearXNG's top-level keys (`query`, `number_of_results`,
//! `results`, `answers`, `corrections`, `infoboxes`, `suggestions`,
//! `unresponsive_engines` as `[[engine, reason], …]`) and per-result keys
//! (`url`, `title`, `content`, `engine`, `engines`, `positions`, `score`,
//! `category`, `parsed_url` as Python's 6-part `urlparse`), plus metasift's
//! own `duplicates`, `operators` and `dropped_by_operators` (the search
//! operators read and the results left out for breaking them), `age_s`
//! (seconds since the engine answers were fetched, put in front of the
//! rendered bytes by [`with_age`], since it changes while the rendering is
//! kept), and — only when a request asks for dedup settings other
//! than `[dedup]` — a top-level `comparison` (see [`crate::fusion::compare`]), which
//! SearXNG clients ignore.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::model::{
    Address, Answer, Extra, Infobox, MergedResult, Operators, SearchResponse, Template,
};

/// A whole answer in SearXNG's `format=json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngResponse {
    /// The query text as run (shortcuts removed).
    pub query: String,
    /// The results there are (SearXNG: the total, not this page's count):
    /// [`SearchResponse::number_of_results`], the count the HTML page and
    /// RSS show too.
    pub number_of_results: u64,
    /// The largest count an engine said it has for the query (its own
    /// estimate), when any engine said; metasift's key, not SearXNG's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_results: Option<u64>,
    /// metasift's own: the search operators read from the query (`sites`,
    /// `not_sites`, `excluded`, `phrases`, `intitle`, `filetypes`), when
    /// it has any.
    #[serde(default, skip_serializing_if = "Operators::is_empty")]
    pub operators: Operators,
    /// metasift's own: engine results left out for breaking one of them.
    #[serde(default)]
    pub dropped_by_operators: usize,
    /// The fused results.
    pub results: Vec<SearxngResult>,
    /// Direct answers, as SearXNG's answer results
    /// (`{"answer", "url", "engine", "template"}`).
    pub answers: Vec<SearxngAnswer>,
    /// Spelling corrections (none yet).
    pub corrections: Vec<String>,
    /// Infoboxes (`infobox`, `id`, `content`, `img_src`, `urls`,
    /// `attributes`, `engine`, `engines`), those of one entity merged.
    pub infoboxes: Vec<Infobox>,
    /// Query suggestions offered by engines.
    pub suggestions: Vec<String>,
    /// `[engine, reason]` for every engine that gave nothing usable, and
    /// every engine left out because it cannot honour the time range or
    /// safe search asked (`"left out: cannot filter adult content"`).
    pub unresponsive_engines: Vec<(String, String)>,
    /// metasift's own, when any: results dropped for lying outside the time
    /// range asked (or having no date), from engines that cannot be asked
    /// for one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_range_dropped: usize,
    /// metasift's own, only when the request's `method` / `os1` / `os2`
    /// differ from `[dedup]`: the same answers fused both ways and which
    /// groups formed or split ([`crate::fusion::compare`] defines it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<crate::fusion::compare::SettingsComparison>,
}

/// One result in SearXNG's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngResult {
    /// The link to click.
    pub url: String,
    /// Title.
    pub title: String,
    /// Snippet.
    pub content: String,
    /// The engine of the kept record.
    pub engine: String,
    /// Every engine that returned the result.
    pub engines: Vec<String>,
    /// Position on each of `engines`.
    pub positions: Vec<u32>,
    /// Fusion score.
    pub score: f64,
    /// Category.
    pub category: String,
    /// Python `urlparse` parts: scheme, netloc, path, params, query, fragment.
    pub parsed_url: [String; 6],
    /// SearXNG's result template name; clients use it to pick a renderer.
    pub template: String,
    /// Publication date (RFC 3339, UTC), where an engine gave one.
    #[serde(rename = "publishedDate", default)]
    pub published_date: Option<String>,
    /// An image of the result, where an engine gave one.
    #[serde(default)]
    pub thumbnail: Option<String>,
    /// The same image, under the key SearXNG's image results use; for an
    /// `images.html` result, the full-size image.
    #[serde(default)]
    pub img_src: Option<String>,
    /// The template's own fields, under SearXNG's keys; none for
    /// `default.html`.
    #[serde(flatten)]
    pub fields: TemplateFields,
    /// Hidden duplicates merged into this result.
    pub duplicates: Vec<SearxngDuplicate>,
}

/// A result's template fields under the keys SearXNG's result templates
/// (`searx/templates/simple/result_templates/*.html`) and its JSON use.
/// Each is written only when set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TemplateFields {
    /// images: a preview of the image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail_src: Option<String>,
    /// images: `1920 x 1080`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// images: where the image comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// images, videos: author or channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// videos: playing time, `m:ss` or `h:mm:ss`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<String>,
    /// videos: an embeddable player of an allowed host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iframe_src: Option<String>,
    /// paper: authors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// paper: journal or venue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// paper: the DOI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// paper: the PDF.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pdf_url: Option<String>,
    /// paper: publisher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    /// paper: volume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    /// packages: the package's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package_name: Option<String>,
    /// packages: latest version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// packages: the licence's name (SearXNG's key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license_name: Option<String>,
    /// packages: the same, under the key metasift's design names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// packages: home page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// packages: source code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_code_url: Option<String>,
    /// packages: maintainer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maintainer: Option<String>,
    /// packages: stars, downloads or points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub popularity: Option<String>,
    /// paper, packages: keywords.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// map: latitude.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<String>,
    /// map: longitude.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<String>,
    /// map: Nominatim's bounding box.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boundingbox: Vec<String>,
    /// map: the address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<Address>,
}

impl TemplateFields {
    fn from_extra(e: &Extra, thumbnail: Option<&String>) -> TemplateFields {
        TemplateFields {
            thumbnail_src: e.thumbnail_src.clone().or_else(|| {
                thumbnail
                    .filter(|_| e.template == Template::Images)
                    .cloned()
            }),
            resolution: e.resolution.clone(),
            source: e.source.clone(),
            author: e.author.clone(),
            length: e.length.clone(),
            iframe_src: e.iframe_src.clone(),
            authors: e.authors.clone(),
            journal: e.journal.clone(),
            doi: e.doi.clone(),
            pdf_url: e.pdf_url.clone(),
            publisher: e.publisher.clone(),
            volume: e.volume.clone(),
            package_name: e.package_name.clone(),
            version: e.version.clone(),
            license_name: e.license.clone(),
            license: e.license.clone(),
            homepage: e.homepage.clone(),
            source_code_url: e.source_code_url.clone(),
            maintainer: e.maintainer.clone(),
            popularity: e.popularity.clone(),
            tags: e.tags.clone(),
            latitude: e.latitude.clone(),
            longitude: e.longitude.clone(),
            boundingbox: e.boundingbox.clone(),
            address: e.address.clone(),
        }
    }
}

/// A direct answer in SearXNG's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngAnswer {
    /// The answer's text.
    pub answer: String,
    /// Where it comes from.
    #[serde(default)]
    pub url: Option<String>,
    /// The engine that gave it.
    #[serde(default)]
    pub engine: String,
    /// SearXNG's template of a plain answer.
    #[serde(default)]
    pub template: String,
}

impl SearxngAnswer {
    fn from_answer(a: &Answer) -> SearxngAnswer {
        SearxngAnswer {
            answer: a.answer.clone(),
            url: a.url.clone(),
            engine: a.engine.clone(),
            template: "answer/legacy.html".into(),
        }
    }
}

/// A hidden duplicate in the JSON output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearxngDuplicate {
    /// Its own link.
    pub url: String,
    /// Its own title.
    pub title: String,
    /// The engine that returned it.
    pub engine: String,
    /// `url` | `title` | `snippet`.
    pub stage: String,
    /// Snippet similarity, where one applies.
    pub similarity: Option<f64>,
    /// Shared feature codes (hex), when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_codes: Vec<String>,
    /// The duplicate's text around each shared code, when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_text: Vec<String>,
    /// The duplicate's own snippet, when explaining.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// The JSON object `body` with metasift's `age_s` (seconds since the
/// engine answers behind it were fetched) as its first key, when known.
pub fn with_age(body: bytes::Bytes, age_s: Option<u64>) -> bytes::Bytes {
    match (age_s, body.first()) {
        (Some(age), Some(b'{')) => {
            let head = format!("{{\"age_s\":{age}");
            let rest = &body[1..];
            let mut out = Vec::with_capacity(head.len() + body.len() + 1);
            out.extend_from_slice(head.as_bytes());
            if rest.first().is_some_and(|&c| c != b'}') {
                out.push(b',');
            }
            out.extend_from_slice(rest);
            bytes::Bytes::from(out)
        }
        _ => body,
    }
}

impl SearxngResponse {
    /// The SearXNG shape of a response.
    pub fn from_response(response: &SearchResponse) -> Self {
        SearxngResponse {
            query: response.query.text.clone(),
            number_of_results: response.number_of_results() as u64,
            estimated_results: response.estimate,
            operators: response.query.operators.clone(),
            dropped_by_operators: response.broke_operators,
            results: response
                .results
                .iter()
                .map(SearxngResult::from_merged)
                .collect(),
            answers: response
                .answers
                .iter()
                .map(SearxngAnswer::from_answer)
                .collect(),
            corrections: Vec::new(),
            infoboxes: response.infoboxes.clone(),
            suggestions: response.suggestions.clone(),
            unresponsive_engines: response
                .engines
                .iter()
                .filter_map(|r| {
                    let kind = r.failure?;
                    let reason = r
                        .reason
                        .clone()
                        .unwrap_or_else(|| kind.as_str().to_string());
                    Some((r.engine.clone(), reason))
                })
                .collect(),
            time_range_dropped: response.time_range_dropped,
            comparison: None,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SearxngResult {
    /// The SearXNG shape of a fused result.
    pub(crate) fn from_merged(m: &MergedResult) -> Self {
        let extra = m.extra.as_deref();
        let template = extra.map_or(Template::Default, |e| e.template);
        // An image result's `img_src` is the image itself, its
        // `thumbnail` the preview; elsewhere both are the one image.
        let img_src = extra
            .and_then(|e| e.img_src.clone())
            .or_else(|| m.thumbnail.clone());
        let thumbnail = match extra {
            Some(e) if e.template == Template::Images => e
                .thumbnail_src
                .clone()
                .or_else(|| m.thumbnail.clone())
                .or_else(|| e.img_src.clone()),
            _ => m.thumbnail.clone(),
        };
        SearxngResult {
            url: m.url.clone(),
            title: m.title.clone(),
            content: m.content.clone(),
            engine: m.engine.clone(),
            engines: m.engines.clone(),
            positions: m.positions.clone(),
            score: m.score,
            category: m.category.clone(),
            parsed_url: parsed_url(&m.url),
            template: template.as_str().into(),
            published_date: m.published.clone(),
            fields: extra
                .map(|e| TemplateFields::from_extra(e, thumbnail.as_ref()))
                .unwrap_or_default(),
            thumbnail,
            img_src,
            duplicates: m
                .duplicates
                .iter()
                .map(|d| SearxngDuplicate {
                    url: d.url.clone(),
                    title: d.title.clone(),
                    engine: d.engine.clone(),
                    stage: d.stage.as_str().into(),
                    similarity: d.similarity,
                    shared_codes: d.shared_codes.clone(),
                    shared_text: d.shared_text.clone(),
                    snippet: d.snippet.clone(),
                })
                .collect(),
        }
    }
}

/// The SearXNG-shaped answer for `resp`, keeping at most `limit` results
/// (`limit=` of `/search`).
pub fn answer(resp: &SearchResponse, limit: Option<usize>) -> SearxngResponse {
    let mut answer = SearxngResponse::from_response(resp);
    if let Some(limit) = limit {
        answer.results.truncate(limit);
    }
    answer
}

/// [`answer`] as the JSON text of `format=json`, with the settings
/// comparison when one was asked for.
pub fn to_json(
    resp: &SearchResponse,
    limit: Option<usize>,
    comparison: Option<crate::fusion::compare::SettingsComparison>,
) -> Result<Vec<u8>, super::FormatError> {
    let mut answer = answer(resp, limit);
    answer.comparison = comparison;
    Ok(serde_json::to_vec(&answer)?)
}

/// Python's `urllib.parse.urlparse` parts of a link: scheme, netloc, path,
/// params, query, fragment. A link that does not parse is all path.
pub fn parsed_url(link: &str) -> [String; 6] {
    let Ok(u) = url::Url::parse(link) else {
        return [
            String::new(),
            String::new(),
            link.to_string(),
            String::new(),
            String::new(),
            String::new(),
        ];
    };
    let mut netloc = String::new();
    if !u.username().is_empty() {
        netloc.push_str(u.username());
        if let Some(p) = u.password() {
            netloc.push(':');
            netloc.push_str(p);
        }
        netloc.push('@');
    }
    if let Some(host) = u.host_str() {
        netloc.push_str(host);
    }
    if let Some(port) = u.port() {
        let _ = write!(netloc, ":{port}");
    }
    // The url crate gives every http(s) link at least `/`; urlparse keeps
    // the path as written, so `http://h` and `http://h?q` have none.
    let full_path = if u.path() == "/" && !path_written(link) {
        ""
    } else {
        u.path()
    };
    // urlparse splits `;params` off the last path segment only.
    let last_slash = full_path.rfind('/').map_or(0, |i| i + 1);
    let (path, params) = match full_path[last_slash..].find(';') {
        Some(i) => (
            &full_path[..last_slash + i],
            &full_path[last_slash + i + 1..],
        ),
        None => (full_path, ""),
    };
    [
        u.scheme().to_string(),
        netloc,
        path.to_string(),
        params.to_string(),
        u.query().unwrap_or("").to_string(),
        u.fragment().unwrap_or("").to_string(),
    ]
}

/// Whether `link` has a path after its authority (`http://h/` does,
/// `http://h` and `http://h?q=1` do not).
fn path_written(link: &str) -> bool {
    let Some(start) = link.find("//").map(|i| i + 2) else {
        return true;
    };
    let rest = &link[start..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    rest[end..].starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_data::sample;

    #[test]
    fn the_age_goes_in_front_of_the_rendered_object() {
        let body = bytes::Bytes::from(to_json(&sample(), None, None).unwrap());
        let aged = with_age(body.clone(), Some(42));
        let v: serde_json::Value = serde_json::from_slice(&aged).unwrap();
        assert_eq!(v["age_s"], 42);
        let plain: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["results"], plain["results"]);
        assert_eq!(with_age(body.clone(), None), body);
        let empty = with_age(bytes::Bytes::from_static(b"{}"), Some(1));
        assert_eq!(&empty[..], b"{\"age_s\":1}");
    }

    #[test]
    fn urlparse_parts() {
        assert_eq!(
            parsed_url("https://user:pw@example.com:8443/a/b;p=1?x=1&y=2#frag"),
            [
                "https".to_string(),
                "user:pw@example.com:8443".into(),
                "/a/b".into(),
                "p=1".into(),
                "x=1&y=2".into(),
                "frag".into()
            ]
        );
        assert_eq!(parsed_url("not a url")[2], "not a url");
        // As Python's urlparse: no path written, none given.
        assert_eq!(parsed_url("http://example.com")[2], "");
        assert_eq!(parsed_url("http://example.com?q=1")[2], "");
        assert_eq!(parsed_url("http://example.com?q=1")[4], "q=1");
        assert_eq!(parsed_url("http://example.com#top")[2], "");
        assert_eq!(parsed_url("http://example.com/")[2], "/");
        assert_eq!(parsed_url("https://example.com/a;p")[2], "/a");
    }

    #[test]
    fn searxng_shape_has_the_keys_clients_read() {
        let v = serde_json::to_value(SearxngResponse::from_response(&sample())).unwrap();
        for key in [
            "query",
            "number_of_results",
            "results",
            "answers",
            "corrections",
            "infoboxes",
            "suggestions",
            "unresponsive_engines",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert_eq!(
            v["unresponsive_engines"],
            serde_json::json!([["c", "no complete answer within 3000 ms"]])
        );
        let r = &v["results"][0];
        assert_eq!(r["engines"], serde_json::json!(["a", "b"]));
        assert_eq!(r["positions"], serde_json::json!([1, 3]));
        assert_eq!(r["parsed_url"][1], "example.com");
        assert_eq!(r["duplicates"][0]["stage"], "url");
        assert!(r["duplicates"][0].get("shared_codes").is_none());
        assert_eq!(r["template"], "default.html");
        for key in ["authors", "doi", "latitude", "iframe_src", "thumbnail_src"] {
            assert!(r.get(key).is_none(), "a web result has no {key}");
        }
    }

    /// Each template's fields go out under the keys SearXNG's templates
    /// read; infoboxes and answers in SearXNG's shape.
    #[test]
    fn template_fields_infoboxes_and_answers_have_searxng_keys() {
        use crate::model::{Address, Extra, Infobox, InfoboxUrl, Template};
        let mut resp = sample();
        let base = resp.results[0].clone();
        let with = |extra: Extra| {
            let mut m = base.clone();
            m.thumbnail = Some("https://t.example/small.jpg".into());
            m.extra = Some(Box::new(extra));
            m
        };
        resp.results = vec![
            with(Extra {
                img_src: Some("https://i.example/full.jpg".into()),
                resolution: Some("1920 x 1080".into()),
                source: Some("Wikimedia Commons".into()),
                ..Extra::new(Template::Images)
            }),
            with(Extra {
                length: Some("3:45".into()),
                iframe_src: Some("https://www.youtube-nocookie.com/embed/x".into()),
                ..Extra::new(Template::Videos)
            }),
            with(Extra {
                authors: vec!["A. Vaswani".into(), "N. Shazeer".into()],
                journal: Some("NeurIPS".into()),
                doi: Some("10.48550/arXiv.1706.03762".into()),
                pdf_url: Some("https://arxiv.org/pdf/1706.03762".into()),
                ..Extra::new(Template::Paper)
            }),
            with(Extra {
                package_name: Some("serde".into()),
                version: Some("1.0.200".into()),
                license: Some("MIT OR Apache-2.0".into()),
                source_code_url: Some("https://github.com/serde-rs/serde".into()),
                ..Extra::new(Template::Packages)
            }),
            with(Extra {
                latitude: Some("48.8566".into()),
                longitude: Some("2.3522".into()),
                boundingbox: vec!["48.8".into(), "48.9".into(), "2.2".into(), "2.4".into()],
                address: Some(Address {
                    locality: Some("Paris".into()),
                    country_code: Some("fr".into()),
                    ..Address::default()
                }),
                ..Extra::new(Template::Map)
            }),
        ];
        resp.infoboxes = vec![Infobox {
            infobox: "Paris".into(),
            id: "https://en.wikipedia.org/wiki/Paris".into(),
            content: "Capital of France.".into(),
            urls: vec![InfoboxUrl {
                title: "Wikipedia".into(),
                url: "https://en.wikipedia.org/wiki/Paris".into(),
            }],
            engine: "wikipedia".into(),
            engines: vec!["wikipedia".into()],
            ..Infobox::default()
        }];
        resp.answers = vec![crate::model::Answer {
            answer: "42".into(),
            url: None,
            engine: "e".into(),
        }];
        let v = serde_json::to_value(SearxngResponse::from_response(&resp)).unwrap();
        let r = &v["results"];
        assert_eq!(r[0]["template"], "images.html");
        assert_eq!(r[0]["img_src"], "https://i.example/full.jpg");
        assert_eq!(r[0]["thumbnail_src"], "https://t.example/small.jpg");
        assert_eq!(r[0]["thumbnail"], "https://t.example/small.jpg");
        assert_eq!(r[0]["resolution"], "1920 x 1080");
        assert_eq!(r[0]["source"], "Wikimedia Commons");
        assert_eq!(r[1]["template"], "videos.html");
        assert_eq!(r[1]["length"], "3:45");
        assert_eq!(r[1]["thumbnail"], "https://t.example/small.jpg");
        assert_eq!(
            r[1]["iframe_src"],
            "https://www.youtube-nocookie.com/embed/x"
        );
        assert_eq!(r[2]["template"], "paper.html");
        assert_eq!(
            r[2]["authors"],
            serde_json::json!(["A. Vaswani", "N. Shazeer"])
        );
        assert_eq!(r[2]["journal"], "NeurIPS");
        assert_eq!(r[2]["doi"], "10.48550/arXiv.1706.03762");
        assert_eq!(r[2]["pdf_url"], "https://arxiv.org/pdf/1706.03762");
        assert_eq!(r[3]["template"], "packages.html");
        assert_eq!(r[3]["package_name"], "serde");
        assert_eq!(r[3]["license_name"], "MIT OR Apache-2.0");
        assert_eq!(r[3]["license"], "MIT OR Apache-2.0");
        assert_eq!(r[4]["template"], "map.html");
        assert_eq!(r[4]["latitude"], "48.8566");
        assert_eq!(r[4]["boundingbox"][3], "2.4");
        assert_eq!(r[4]["address"]["locality"], "Paris");
        assert!(r[4]["address"].get("road").is_none());
        let ib = &v["infoboxes"][0];
        assert_eq!(ib["infobox"], "Paris");
        assert_eq!(ib["urls"][0]["url"], "https://en.wikipedia.org/wiki/Paris");
        assert_eq!(ib["attributes"], serde_json::json!([]));
        assert_eq!(v["answers"][0]["answer"], "42");
        assert_eq!(v["answers"][0]["template"], "answer/legacy.html");
    }
}
