//! The duplicate-removal method — pure: plain records in, clusters out.
//!
//! No async, no HTTP, no templates, no logging and no panics on odd input:
//! this crate's manifest names no web or async crate, so the compiler keeps
//! it that way.
//!
//! Records are processed in fused-rank order. The first record of a duplicate
//! group is kept; every later one is attached to it with the [`Stage`] and
//! similarity that matched it (never silently dropped). The stages:
//!
//! 1. **URL**: [`url_key`] of the normalized link (redirect wrappers
//!    unwrapped, see [`unwrap_redirect`]), or of its canonical identifier
//!    when a rule of the table recognises the link ([`canonical_id`]: an
//!    arXiv ID, a DOI, a video ID, …), compared exactly, or by a Bloom
//!    filter for streams too large for an exact set ([`UrlFilter`],
//!    [`ScalableBloom`]).
//! 2. **Title**: [`normalize_title`]; equal titles select the looser snippet
//!    threshold `os1` instead of `os2`.
//! 3. **Snippet**: punctuation-anchored [`FeatureCode`]s ([`Extractor`]),
//!    looked up in a code index; similarity `K / M` ([`code_similarity`]).
//!    SimHash and Rabin blocks are alternatives for comparison ([`Method`]),
//!    `none` stops after the URL stage. Boilerplate snippets are no evidence.
//!
//! [`Deduper`] runs the stages on a stream, [`dedup`] on a list, and
//! [`similarity`] scores one pair the way the stream would decide it.
//!
//! # Modules, one concept each (all private; the API is re-exported here)
//!
//! | module | concept |
//! | --- | --- |
//! | `pipeline` | the stages tied together: `Deduper`, `Verdict`, `PairScore`, `UrlFilter`, `dedup`, `similarity` |
//! | `prepare` | what the stages compute from a record alone (`Preparer`, `Prepared`), so a stream can prepare on one core and decide on another |
//! | `url` | the URL key and normalization; `url/redirect.rs` unwraps engine redirects; `url/canonical.rs` matches the canonical identifier rules of `url/canonical/rules.rs` |
//! | `title` | title folding; `title/sites.txt` lists the site names a title loses |
//! | `features` | the feature-code extractor and `FeatureCode` |
//! | `patch` | `SettingsPatch`: values a request, a cookie or a command line lays over `Settings` |
//! | `index` | the code index of a query scope: postings, split `BTreeMap`, code filter |
//! | `boilerplate` | why frequent or short snippets are no evidence: title counts, count-min sketch |
//! | `site` | why a description one engine gives to two of its links is no evidence: sources, site codes |
//! | `simhash` | `SimHash` and its band index |
//! | `rabin` | Rabin fingerprints of content-defined blocks |
//! | `clip` | the bounds on one record's work: clipped titles and snippets, capped repeats |
//! | `bloom` | the scalable Bloom filter of the URL stage |
//! | `hash` | the shared hashing: `mix`, `HashMap64`, xxh3 |
//!
//! Fast paths are checked against slow references that live in test-only
//! `reference.rs` files beside them.

#![warn(unreachable_pub)]

mod bloom;
mod boilerplate;
mod clip;
mod features;
mod hash;
mod index;
mod patch;
mod pipeline;
mod prepare;
mod rabin;
mod simhash;
mod site;
mod title;
mod url;

use serde::{Deserialize, Serialize};

pub use bloom::ScalableBloom;
pub use clip::{MAX_REPEATS, MAX_SNIPPET_BYTES, MAX_TITLE_BYTES, clip, clip_snippet, clip_title};
pub use features::{
    CodeSpan, Extractor, FeatureCode, MAX_SPAN_BYTES, WORD_ANCHORS, extract as feature_codes,
    shared_codes, similarity as code_similarity,
};
pub use patch::SettingsPatch;
pub use pipeline::{Deduper, PairScore, UrlFilter, Verdict, Work, dedup, similarity};
pub use prepare::{Prepared, Preparer};
pub use title::{
    is_truncated as is_truncated_title, normalize as normalize_title,
    normalize_into as normalize_title_into,
};
pub use url::{
    CanonicalId, UrlKey, canonical_id, host as url_host, is_redirect, key as url_key, link_rank,
    more_useful_link, normalize as normalize_url, unwrap_redirect,
};

/// One record as the dedup core sees it. Borrowed so a caller never copies
/// strings just to ask whether two records are the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Doc<'a> {
    /// The link as the engine gave it (redirect wrappers may still be on it).
    pub url: &'a str,
    /// The title as displayed.
    pub title: &'a str,
    /// The snippet as plain text.
    pub snippet: &'a str,
    /// Which list the record comes from (the engine's name); empty when
    /// unknown. Two records of one source on one host with different URL
    /// keys and different titles are different pages whatever their
    /// snippets say: a description one engine gives to two links of a site
    /// describes the site or the author, not the page (see the `pipeline`
    /// module).
    pub source: &'a str,
}

impl<'a> Doc<'a> {
    /// A record of unknown source.
    pub const fn new(url: &'a str, title: &'a str, snippet: &'a str) -> Self {
        Doc {
            url,
            title,
            snippet,
            source: "",
        }
    }

    /// The same record, from the list `source` (an engine's name).
    pub const fn with_source(mut self, source: &'a str) -> Self {
        self.source = source;
        self
    }
}

/// Which rule attached a record to the kept record of its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Equal normalized URL keys.
    Url,
    /// Equal normalized titles, and snippet similarity ≥ `os1`.
    Title,
    /// Different titles, and snippet similarity ≥ `os2`.
    Snippet,
}

impl Stage {
    /// The name used in JSON and on pages.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Url => "url",
            Stage::Title => "title",
            Stage::Snippet => "snippet",
        }
    }
}

/// The snippet-similarity method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Punctuation-anchored feature codes (the seed paper's method).
    #[default]
    FeatureCode,
    /// 64-bit SimHash, duplicate when the Hamming distance ≤ `max_distance`.
    #[serde(rename = "simhash")]
    SimHash,
    /// Rabin fingerprints of blocks, duplicate when the share of equal blocks
    /// ≥ `block_threshold`.
    Rabin,
    /// URL only, like SearXNG.
    None,
}

impl Method {
    /// Every method, in the order reports list them.
    pub const ALL: [Method; 4] = [
        Method::FeatureCode,
        Method::SimHash,
        Method::Rabin,
        Method::None,
    ];

    /// The name used on the command line and in `engines.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::FeatureCode => "feature-code",
            Method::SimHash => "simhash",
            Method::Rabin => "rabin",
            Method::None => "none",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Method::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown dedup method {s:?} (expected feature-code, simhash, rabin or none)"
                )
            })
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The unit a window counts in CJK text (other scripts always use words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// CJK characters.
    #[default]
    Char,
    /// jieba words.
    Word,
}

/// The `[dedup]` table of `engines.toml`, and the knobs of `metasift dedup`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Snippet-similarity method.
    pub method: Method,
    /// Snippet similarity threshold when normalized titles are equal.
    pub os1: f64,
    /// Snippet similarity threshold when titles differ.
    pub os2: f64,
    /// Units taken on each side of a punctuation anchor.
    pub window: usize,
    /// Unit for CJK text.
    pub unit: Unit,
    /// SimHash: largest Hamming distance still counted a duplicate.
    pub max_distance: u32,
    /// Rabin: smallest share of equal blocks counted a duplicate.
    pub block_threshold: f64,
    /// Feature codes (or Rabin blocks; SimHash: units) the shorter snippet
    /// must have before a match between *different* titles counts: short
    /// snippets such as `百度经验:jingyan.baidu.com` (3 codes) are site
    /// boilerplate, not evidence. `0` turns the rule off.
    pub min_codes: usize,
    /// A code kept under this many different titles in a stream with
    /// several queries is boilerplate and ignored (`0` = never); see
    /// the `boilerplate` module.
    pub boilerplate_titles: u32,
    /// Feature codes, other scripts than CJK: about one consecutive word
    /// pair in this many, chosen by a hash of the two words, is an extra
    /// anchor (`0` = punctuation anchors only); see [`Extractor`].
    pub word_anchors: usize,
}

/// The one place the defaults are written: `engines.toml`'s `[dedup]` only
/// shows them, commented out (a test of the server's `config` keeps the two
/// equal).
impl Default for Settings {
    fn default() -> Self {
        Settings {
            method: Method::FeatureCode,
            os1: 0.5,
            os2: 0.8,
            window: 2,
            unit: Unit::Char,
            max_distance: 3,
            block_threshold: 0.7,
            min_codes: 4,
            boilerplate_titles: 3,
            word_anchors: features::WORD_ANCHORS,
        }
    }
}

impl Settings {
    /// Checks ranges; returns the name of the bad field and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (name, v) in [
            ("os1", self.os1),
            ("os2", self.os2),
            ("block_threshold", self.block_threshold),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err((name, format!("must be between 0 and 1, got {v}")));
            }
        }
        if self.window == 0 || self.window > 16 {
            return Err(("window", format!("must be 1 to 16, got {}", self.window)));
        }
        if self.word_anchors > 64 {
            return Err((
                "word_anchors",
                format!("must be 0 to 64, got {}", self.word_anchors),
            ));
        }
        if self.max_distance > 64 {
            return Err((
                "max_distance",
                format!("must be 0 to 64, got {}", self.max_distance),
            ));
        }
        Ok(())
    }
}

/// Data for the unit tests of the files of this crate: the real corpora of
/// the team's data folder (found by `metasift_data`, never named here) when
/// it is there, else text generated from pools of our own of about the same
/// size and mix (Chinese and English, full-width and ASCII punctuation,
/// digits, site names in titles), so every differential test still runs in
/// a clone without the folder; the skip of the real text is said once, and
/// is a failure under `METASIFT_REQUIRE_SERVICES=1`.
#[cfg(test)]
pub(crate) mod test_data {
    use std::sync::OnceLock;

    /// The URL cases: real links with queries, escapes, redirect wrappers,
    /// fragments, and the odd hostile one, with what they normalize to.
    pub(crate) const URL_CASES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/url_cases.toml"
    );

    /// Every piece of the URL cases' text between two `"` (each link and
    /// expected form, and the TOML between them: hostile input too).
    pub(crate) fn url_case_fields() -> Vec<String> {
        read(URL_CASES).split('"').map(str::to_string).collect()
    }

    /// The text of `path`; panics, naming it, when it cannot be read.
    pub(crate) fn read(path: &str) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }

    /// The team's data folder, looked up (and its absence said) once.
    pub(crate) fn data_root() -> Option<std::path::PathBuf> {
        static ROOT: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
        ROOT.get_or_init(|| {
            metasift_data::for_test(
                "metasift-dedup unit tests on the real corpora (generated text stands in)",
            )
        })
        .clone()
    }

    /// The text of `rel` in the data folder, if it is there.
    pub(crate) fn real(rel: &str) -> Option<String> {
        let path = data_root()?.join(rel);
        Some(read(&path.to_string_lossy()))
    }

    /// `(title, snippet)` of every DuReader Baidu result, or of 1,400
    /// generated ones.
    pub(crate) fn dureader_results() -> Vec<(String, String)> {
        let Some(text) = real("corpus/dureader_search_zh/search_results.jsonl") else {
            return metasift_data::generated::results(0x5eed, 1400);
        };
        let mut out = Vec::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("DuReader line");
            for r in v["results"].as_array().into_iter().flatten() {
                let field = |k: &str| r[k].as_str().unwrap_or_default().to_string();
                out.push((field("title"), field("snippet")));
            }
        }
        out
    }

    /// The first `n` lines of the corpus file `rel` (under `corpus/`), or
    /// `n` (at most 3,000) generated lines in the shape of such a file's
    /// lines (fields between quotes and tabs).
    pub(crate) fn corpus_lines(rel: &str, n: usize) -> Vec<String> {
        if let Some(text) = real(&format!("corpus/{rel}")) {
            return text.lines().take(n).map(str::to_string).collect();
        }
        metasift_data::generated::lines(rel.len() as u64 * 7919, n.min(3000))
    }

    /// `n` generated links (`metasift_data::generated::links`).
    pub(crate) fn links(n: usize) -> Vec<String> {
        metasift_data::generated::links(n)
    }
}
