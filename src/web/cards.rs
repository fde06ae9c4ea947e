//! What the results page shows of SearXNG's result templates, and of the
//! infoboxes and direct answers: display data made from the model's
//! [`Extra`], [`Infobox`] and [`Answer`], for `results.html`.
//!
//! - `images.html`: a tile — the picture (its thumbnail, else the image,
//!   through the signed `/image_proxy`: the page's CSP allows images from
//!   this server alone), the resolution and where it comes from, a link to
//!   the full image. A page of images only is laid out as a grid.
//! - `videos.html`: a card with the thumbnail (through the proxy) and the
//!   playing time, linked to the video's page. Never an `<iframe>`: the
//!   page's CSP (`default-src 'none'`) forbids frames, and an engine's
//!   player is no part of our page.
//! - `paper.html`: the first [`AUTHORS_SHOWN`] authors and "et al.", the
//!   venue and year, the DOI as a `https://doi.org/` link, the PDF.
//! - `packages.html`: name, version, licence, home page and source.
//! - `map.html`: the address, the coordinates and a link to the place on
//!   openstreetmap.org, at a zoom that fits its bounding box.
//!
//! Every link shown passes [`safe_href`] (http and https only) again, even
//! though the model kept only such links: a `javascript:` home page is
//! never a link, and text is escaped by askama like all engine text.

use crate::model::{Address, Answer, Extra, Infobox, MergedResult, Template};

use super::i18n::Tr;
use super::ui::safe_href;

/// Authors named on a paper card before "et al.".
pub(super) const AUTHORS_SHOWN: usize = 3;
/// Facts shown in an infobox.
const FACTS_SHOWN: usize = 8;
/// Links shown in an infobox.
const LINKS_SHOWN: usize = 6;

/// How a result of a template other than `default.html` is shown: its
/// picture, its facts and its links. A web page has none of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Card {
    /// The CSS class of the result (`result-paper`); empty for a web page.
    pub class: &'static str,
    /// An image's picture or a video's thumbnail, before the title.
    pub picture: Option<Picture>,
    /// Short facts under the title (authors, version, address, …).
    pub facts: Vec<Fact>,
    /// Links under the snippet (DOI, PDF, home page, the map, …).
    pub links: Vec<CardLink>,
}

/// A picture on a card.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// `/image_proxy?…`.
    pub src: String,
    /// A video's playing time, shown on its thumbnail.
    pub duration: Option<String>,
}

/// One fact on a card.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Its CSS class (`authors`, `version`, …).
    pub class: &'static str,
    /// What it is, for screen readers (the card shows the value alone).
    pub label: String,
    /// The value.
    pub text: String,
}

/// One link on a card.
#[derive(Debug, Clone, PartialEq)]
pub struct CardLink {
    /// Its CSS class (`doi`, `pdf`, `osm`, …).
    pub class: &'static str,
    /// What is shown.
    pub text: String,
    /// The link, `http(s)` only: without one the text is shown unlinked.
    pub href: Option<String>,
}

impl Card {
    fn fact(&mut self, class: &'static str, label: String, text: Option<String>) {
        if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
            self.facts.push(Fact { class, label, text });
        }
    }

    fn link(&mut self, class: &'static str, text: String, url: Option<&str>) {
        if let Some(url) = url {
            self.links.push(CardLink {
                class,
                text,
                href: safe_href(url),
            });
        }
    }
}

/// The card of `r`; `thumbnails`: the searcher's preference (an image
/// result's picture is its content and is always shown).
pub(super) fn card(r: &MergedResult, tr: &Tr, thumbnails: bool) -> Card {
    let Some(x) = r.extra.as_deref() else {
        return Card::default();
    };
    let proxied = |u: Option<&str>| u.and_then(super::image_proxy::link);
    let mut c = Card::default();
    match x.template {
        Template::Default => {}
        Template::Images => {
            c.class = "result-image";
            let src = x
                .thumbnail_src
                .as_deref()
                .or(r.thumbnail.as_deref())
                .or(x.img_src.as_deref());
            c.picture = proxied(src).map(|src| Picture {
                src,
                duration: None,
            });
            c.fact(
                "resolution",
                tr.t("card-resolution"),
                x.resolution.as_deref().map(resolution),
            );
            c.fact(
                "source",
                tr.t("card-source"),
                Some(x.source.clone().unwrap_or_else(|| host(&r.url))),
            );
            c.fact("author", tr.t("card-author"), x.author.clone());
            c.link("full", tr.t("card-full-image"), x.img_src.as_deref());
        }
        Template::Videos => {
            c.class = "result-video";
            let thumb = r.thumbnail.as_deref().or(x.thumbnail_src.as_deref());
            c.picture = proxied(thumb.filter(|_| thumbnails)).map(|src| Picture {
                src,
                duration: x.length.clone(),
            });
            c.fact("author", tr.t("card-author"), x.author.clone());
            // On the thumbnail the length is seen; the fact is there for
            // screen readers (the picture's link is hidden from them), last
            // so no separator is seen for it.
            let class = if c.picture.is_some() {
                "length on-picture"
            } else {
                "length"
            };
            c.fact(class, tr.t("card-length"), x.length.clone());
        }
        Template::Paper => {
            c.class = "result-paper";
            c.fact("authors", tr.t("card-authors"), authors(&x.authors, tr));
            let venue = match (&x.journal, &x.volume) {
                (Some(j), Some(v)) => Some(tr.with(
                    "card-venue-volume",
                    &[("venue", j.clone()), ("volume", v.clone())],
                )),
                (j, _) => j.clone(),
            };
            c.fact("venue", tr.t("card-venue"), venue);
            c.fact(
                "year",
                tr.t("card-year"),
                r.published.as_deref().and_then(year),
            );
            c.fact("publisher", tr.t("card-publisher"), x.publisher.clone());
            if let Some(d) = &x.doi {
                c.links.push(CardLink {
                    class: "doi",
                    text: format!("DOI {d}"),
                    href: doi_href(d),
                });
            }
            c.link("pdf", "PDF".into(), x.pdf_url.as_deref());
        }
        Template::Packages => {
            c.class = "result-package";
            c.fact("package", tr.t("card-package"), x.package_name.clone());
            c.fact("version", tr.t("card-version"), x.version.clone());
            c.fact("license", tr.t("card-license"), x.license.clone());
            c.fact("maintainer", tr.t("card-maintainer"), x.maintainer.clone());
            c.fact("popularity", tr.t("card-popularity"), x.popularity.clone());
            if !x.tags.is_empty() {
                let tags = x
                    .tags
                    .iter()
                    .take(6)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                c.fact("tags", tr.t("card-tags"), Some(tags));
            }
            c.link("homepage", tr.t("card-homepage"), x.homepage.as_deref());
            c.link(
                "source-code",
                tr.t("card-source-code"),
                x.source_code_url.as_deref(),
            );
        }
        Template::Map => {
            c.class = "result-place";
            let (coordinates, osm) = coordinates(x);
            c.fact(
                "address",
                tr.t("card-address"),
                x.address.as_ref().and_then(address),
            );
            c.fact("coordinates", tr.t("card-coordinates"), coordinates);
            c.link("osm", tr.t("card-osm"), osm.as_deref());
        }
    }
    c
}

/// The first [`AUTHORS_SHOWN`] authors, and "et al." when there are more.
fn authors(all: &[String], tr: &Tr) -> Option<String> {
    match all.len() {
        0 => None,
        n if n <= AUTHORS_SHOWN => Some(all.join(", ")),
        _ => Some(tr.s("card-et-al", "authors", &all[..AUTHORS_SHOWN].join(", "))),
    }
}

/// `lat, lon` and the place's link on openstreetmap.org, when both are
/// numbers in range.
fn coordinates(x: &Extra) -> (Option<String>, Option<String>) {
    let coord = |v: &Option<String>, limit: f64| {
        v.as_deref()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && v.abs() <= limit)
    };
    match (coord(&x.latitude, 90.0), coord(&x.longitude, 180.0)) {
        (Some(lat), Some(lon)) => {
            let zoom = zoom_for(&x.boundingbox);
            (
                Some(format!("{lat}, {lon}")),
                Some(format!(
                    "https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map={zoom}/{lat}/{lon}"
                )),
            )
        }
        _ => (None, None),
    }
}

/// Street and number, postcode and locality, country: one line.
fn address(a: &Address) -> Option<String> {
    let joined =
        |parts: [Option<&str>; 2]| parts.into_iter().flatten().collect::<Vec<_>>().join(" ");
    let street = joined([a.road.as_deref(), a.house_number.as_deref()]);
    let town = joined([a.postcode.as_deref(), a.locality.as_deref()]);
    let line = [
        Some(street.as_str()),
        Some(town.as_str()),
        a.country.as_deref(),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.trim().is_empty())
    .collect::<Vec<_>>()
    .join(", ");
    (!line.is_empty()).then_some(line)
}

/// openstreetmap.org's zoom at which a bounding box `[min lat, max lat,
/// min lon, max lon]` fills a screen: each level halves the degrees shown;
/// a place without one is shown at street level.
fn zoom_for(bbox: &[String]) -> u32 {
    const STREET: u32 = 16;
    let v: Vec<f64> = bbox.iter().filter_map(|s| s.trim().parse().ok()).collect();
    if v.len() != 4 {
        return STREET;
    }
    let span = (v[1] - v[0]).abs().max((v[3] - v[2]).abs());
    if !span.is_finite() || span <= 0.0 {
        return STREET;
    }
    (360.0 / span).log2().floor().clamp(2.0, 18.0) as u32
}

/// `https://doi.org/DOI`, the DOI percent-encoded where a URL's path needs
/// it; `None` for what is not a DOI (`10.` prefix, a `/` after it).
pub(super) fn doi_href(doi: &str) -> Option<String> {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    // A path segment's reserved characters, and `/` kept: DOIs hold it.
    const DOI: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'[')
        .add(b'\\')
        .add(b']')
        .add(b'^')
        .add(b'`')
        .add(b'{')
        .add(b'|')
        .add(b'}');
    let d = doi.trim();
    let (prefix, suffix) = d.split_once('/')?;
    let registrant = prefix.strip_prefix("10.")?;
    if registrant.is_empty()
        || !registrant.chars().all(|c| c.is_ascii_digit() || c == '.')
        || suffix.trim().is_empty()
    {
        return None;
    }
    Some(format!("https://doi.org/{}", utf8_percent_encode(d, DOI)))
}

/// The year of an RFC 3339 date.
fn year(date: &str) -> Option<String> {
    let y = date.get(..4)?;
    y.chars().all(|c| c.is_ascii_digit()).then(|| y.to_string())
}

/// `1920x1080` and `1920 x 1080` as `1920 × 1080`.
fn resolution(s: &str) -> String {
    match s.split_once(['x', 'X', '×']) {
        Some((w, h)) if !w.trim().is_empty() && !h.trim().is_empty() => {
            format!("{} × {}", w.trim(), h.trim())
        }
        _ => s.to_string(),
    }
}

/// A link's host without `www.`, else the link.
fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_start_matches("www.").to_string())
        })
        .unwrap_or_else(|| url.to_string())
}

/// An infobox beside the results.
#[derive(Debug, Clone, PartialEq)]
pub struct InfoboxView {
    /// The entity's name.
    pub title: String,
    /// What it is.
    pub content: String,
    /// Its picture through `/image_proxy` (none when thumbnails are off).
    pub img: Option<String>,
    /// A few facts: label, value.
    pub facts: Vec<(String, String)>,
    /// Its links (the official site among them), safe ones only.
    pub links: Vec<(String, String)>,
    /// The engines that gave it, as pages name them.
    pub engines: String,
    /// `lang` of its text when in another script than the page's.
    pub lang: Option<&'static str>,
}

/// The infoboxes of a search as the page shows them.
pub(super) fn infoboxes(boxes: &[Infobox], tr: &Tr, thumbnails: bool) -> Vec<InfoboxView> {
    boxes
        .iter()
        .map(|b| InfoboxView {
            title: b.infobox.clone(),
            content: b.content.clone(),
            img: b
                .img_src
                .as_deref()
                .filter(|_| thumbnails)
                .and_then(super::image_proxy::link),
            facts: b
                .attributes
                .iter()
                .take(FACTS_SHOWN)
                .map(|a| (a.label.clone(), a.value.clone()))
                .collect(),
            links: b
                .urls
                .iter()
                .filter_map(|u| Some((u.title.clone(), safe_href(&u.url)?)))
                .take(LINKS_SHOWN)
                .collect(),
            engines: b
                .engines
                .iter()
                .map(|e| tr.engine(e))
                .collect::<Vec<_>>()
                .join(", "),
            lang: super::i18n::text_lang(&format!("{} {}", b.infobox, b.content), tr.code()),
        })
        .collect()
}

/// A direct answer above the results.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerView {
    /// The answer.
    pub text: String,
    /// Where it comes from.
    pub href: Option<String>,
    /// The engine, as pages name it.
    pub engine: String,
    /// `lang` of the text when in another script than the page's.
    pub lang: Option<&'static str>,
}

/// The direct answers of a search as the page shows them.
pub(super) fn answers(answers: &[Answer], tr: &Tr) -> Vec<AnswerView> {
    answers
        .iter()
        .map(|a| AnswerView {
            text: a.answer.clone(),
            href: a.url.as_deref().and_then(safe_href),
            engine: tr.engine(&a.engine),
            lang: super::i18n::text_lang(&a.answer, tr.code()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doi_links_are_encoded_and_only_for_dois() {
        assert_eq!(
            doi_href("10.1038/nature14539").as_deref(),
            Some("https://doi.org/10.1038/nature14539")
        );
        assert_eq!(
            doi_href("10.1002/(SICI)1097-4636<1::AID>3.0.CO;2-#").as_deref(),
            Some("https://doi.org/10.1002/(SICI)1097-4636%3C1::AID%3E3.0.CO;2-%23")
        );
        assert_eq!(
            doi_href("10.1/\"><script>x?y").as_deref(),
            Some("https://doi.org/10.1/%22%3E%3Cscript%3Ex%3Fy")
        );
        for bad in [
            "javascript:alert(1)",
            "10./x",
            "11.1/x",
            "10.12a/x",
            "10.1/",
            "10.1",
        ] {
            assert_eq!(doi_href(bad), None, "{bad}");
        }
    }

    #[test]
    fn zoom_fits_the_bounding_box() {
        let b = |v: [&str; 4]| v.map(String::from).to_vec();
        // A city (≈ 0.15°), a country (≈ 10°), a building, none.
        assert_eq!(zoom_for(&b(["48.81", "48.90", "2.22", "2.47"])), 10);
        assert_eq!(zoom_for(&b(["41.3", "51.1", "-5.2", "9.6"])), 4);
        assert_eq!(zoom_for(&b(["48.8582", "48.8583", "2.2944", "2.2945"])), 18);
        assert_eq!(zoom_for(&[]), 16);
        assert_eq!(zoom_for(&b(["1", "1", "2", "2"])), 16);
    }

    /// The model keeps only http(s) links, and the card checks again: a
    /// record that reaches the page unsanitized (from a cache written by an
    /// older version, say) still never links a script.
    #[test]
    fn links_that_are_not_web_links_stay_text() {
        let r = MergedResult {
            url: "https://crates.io/crates/x".into(),
            title: "x".into(),
            content: String::new(),
            engine: "e".into(),
            engines: vec!["e".into()],
            positions: vec![1],
            score: 1.0,
            category: "it".into(),
            duplicates: Vec::new(),
            published: None,
            thumbnail: Some("javascript:alert(1)".into()),
            key_url: None,
            display_url: None,
            extra: Some(Box::new(Extra {
                homepage: Some("javascript:alert(1)".into()),
                source_code_url: Some("https://github.com/o/x".into()),
                ..Extra::new(Template::Packages)
            })),
        };
        let c = card(&r, &Tr::default(), true);
        assert_eq!(c.class, "result-package");
        assert_eq!(c.links[0].href, None);
        assert_eq!(c.links[0].text, "Home page");
        assert_eq!(c.links[1].href.as_deref(), Some("https://github.com/o/x"));
        let r = MergedResult {
            extra: Some(Box::new(Extra {
                img_src: Some("javascript:alert(1)".into()),
                ..Extra::new(Template::Images)
            })),
            ..r
        };
        let c = card(&r, &Tr::default(), true);
        assert_eq!(c.picture, None, "no picture but through the proxy");
        assert_eq!(c.links[0].href, None);
    }

    #[test]
    fn resolutions_and_years() {
        assert_eq!(resolution("1920x1080"), "1920 × 1080");
        assert_eq!(resolution("640 X 480"), "640 × 480");
        assert_eq!(resolution("large"), "large");
        assert_eq!(year("2017-06-12T00:00:00Z").as_deref(), Some("2017"));
        assert_eq!(year("June"), None);
    }
}
