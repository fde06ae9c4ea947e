//! One fused result as the results page shows it: its link, readable URL
//! line, engines, score, date, pictures and hidden duplicates.

use url::Url;

use crate::model::MergedResult;

use super::cards::Card;
use super::i18n::{Tr, text_lang};
use super::ui::safe_href;

/// A hidden duplicate as shown in its group.
#[derive(Debug, Clone)]
pub struct DuplicateView {
    /// Link.
    pub url: String,
    /// The link when it is safe to follow (`http`/`https` only).
    pub href: Option<String>,
    /// Title.
    pub title: String,
    /// `host › path › segments`.
    pub display_url: String,
    /// Engine.
    pub engine: String,
    /// `url` | `title` | `snippet`.
    pub stage: &'static str,
    /// What the stage means, for the tooltip-free explanation.
    pub why: String,
    /// Similarity as a two-decimal number, where one applies.
    pub similarity: Option<String>,
    /// Shared feature codes (explain mode).
    pub shared_codes: Vec<String>,
    /// The duplicate's text around each shared code (explain mode).
    pub shared_text: Vec<String>,
    /// The duplicate's own snippet (explain mode).
    pub snippet: String,
}

/// One result on the page.
#[derive(Debug, Clone)]
pub struct ResultView {
    /// `r1`, `r2`, …: anchors for links and for auto-opening a group.
    pub id: String,
    /// Link, as the engine gave it.
    pub url: String,
    /// The link when it is safe to follow (`http`/`https` only).
    pub href: Option<String>,
    /// Title.
    pub title: String,
    /// `host › path › segments`.
    pub display_url: String,
    /// Snippet.
    pub content: String,
    /// `engine #position` for each engine that found it.
    pub found_by: Vec<String>,
    /// Fused score, two decimals.
    pub score: String,
    /// Publication date: RFC 3339 and as the locale writes it.
    pub published: Option<(String, String)>,
    /// The engine's thumbnail, through `/image_proxy` (the page's CSP
    /// allows images from this server alone).
    pub thumbnail: Option<String>,
    /// The site's icon, through `/favicon` (fetched by this server).
    pub favicon: Option<String>,
    /// `lang` of a title and snippet in another script than the page's.
    pub lang: Option<&'static str>,
    /// Hidden duplicates.
    pub duplicates: Vec<DuplicateView>,
    /// Its template's picture, facts and links (`images.html`, …).
    pub card: Card,
}

pub(super) fn result_view(
    n: usize,
    r: &MergedResult,
    tr: &Tr,
    thumbnails: bool,
    favicons: Option<&crate::config::FaviconsConfig>,
) -> ResultView {
    let card = super::cards::card(r, tr, thumbnails);
    // An image's or a video's picture is its card's, not a thumbnail beside it.
    let own_picture = matches!(card.class, "result-image" | "result-video");
    ResultView {
        id: format!("r{n}"),
        url: r.url.clone(),
        href: safe_href(&r.url),
        title: if r.title.trim().is_empty() {
            r.url.clone()
        } else {
            r.title.clone()
        },
        display_url: display_url(r.shown_url()),
        content: r.content.clone(),
        found_by: r
            .engines
            .iter()
            .zip(r.positions.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|(e, p)| match p {
                Some(p) => format!("{} #{p}", tr.engine(e)),
                None => tr.engine(e),
            })
            .collect(),
        score: {
            let s = if r.score.is_finite() { r.score } else { 0.0 };
            // RRF's scores are hundredths: four places tell them apart.
            if s.abs() < 0.1 {
                format!("{s:.4}")
            } else {
                format!("{s:.2}")
            }
        },
        published: r.published.as_ref().map(|p| (p.clone(), tr.date(p))),
        thumbnail: r
            .thumbnail
            .as_deref()
            .filter(|_| thumbnails && !own_picture)
            .and_then(super::image_proxy::link),
        favicon: favicons.and_then(|f| super::favicon::link(f, r.shown_url())),
        lang: text_lang(&format!("{} {}", r.title, r.content), tr.code()),
        duplicates: r
            .duplicates
            .iter()
            .map(|d| DuplicateView {
                url: d.url.clone(),
                href: safe_href(&d.url),
                display_url: display_url(&d.url),
                title: if d.title.trim().is_empty() {
                    d.url.clone()
                } else {
                    d.title.clone()
                },
                engine: tr.engine(&d.engine),
                stage: d.stage.as_str(),
                why: match d.stage {
                    // One item under two links: the rule that knew both.
                    metasift_dedup::Stage::Url => match metasift_dedup::canonical_id(&d.url) {
                        Some(id) => tr.s("dup-why-canonical", "rule", id.namespace),
                        None => tr.t("dup-why-url"),
                    },
                    metasift_dedup::Stage::Title => tr.t("dup-why-title"),
                    metasift_dedup::Stage::Snippet => tr.t("dup-why-snippet"),
                },
                similarity: d
                    .similarity
                    .filter(|s| s.is_finite())
                    .map(|s| format!("{s:.2}")),
                shared_codes: d.shared_codes.clone(),
                shared_text: d.shared_text.clone(),
                snippet: d.snippet.clone(),
            })
            .collect(),
        card,
    }
}

/// A readable form of a link: `host › path › segments`, percent-escapes
/// decoded, query and fragment dropped; the link itself is never changed.
pub fn display_url(url: &str) -> String {
    let Ok(u) = Url::parse(url) else {
        return url.to_string();
    };
    let Some(host) = u.host_str() else {
        return url.to_string();
    };
    let host = host.strip_prefix("www.").unwrap_or(host);
    let mut parts = vec![host.to_string()];
    if let Some(segments) = u.path_segments() {
        for s in segments.filter(|s| !s.is_empty()) {
            let decoded = percent_encoding::percent_decode_str(s).decode_utf8_lossy();
            // Decoded escapes may spell controls (`%E2%80%AE` reorders the
            // line, spoofing a file name): the link's line shows none.
            parts.push(crate::model::clean_text(decoded.into_owned()));
        }
    }
    let mut line = parts.join(" › ");
    if line.chars().count() > 90 {
        line = line.chars().take(89).collect::<String>() + "…";
    }
    line
}
