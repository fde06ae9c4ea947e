//! The API presets' answers the parse bench times and the `parse_apis`
//! profiling driver reads: the real ones of the data folder's `api/` when it
//! is there, and ours (`tests/data/api/`) for the presets with no real one.
//! Each with the result count its preset must read from it.

use std::collections::BTreeMap;
use std::path::Path;

/// The real answers: (preset, file under the data folder's `api/`, results).
pub const API_ANSWERS: &[(&str, &str, usize)] = &[
    ("arxiv", "arxiv/arxivpy2026_testing_s0_m10.atom.xml", 10),
    ("arxiv", "arxiv/arxivpy2016_au-del_maestro.atom.xml", 10),
    (
        "crossref",
        "crossref/habanero2026_ecology_author-carl-boettiger.json",
        20,
    ),
    (
        "semantic_scholar",
        "semantic_scholar/s2py2024_turing.json",
        100,
    ),
    (
        "pubmed",
        "pubmed/biopython_esummary1_esummary-id-11850928-11482001.xml",
        2,
    ),
    (
        "github",
        "github/github3py2017_github3-language-python.json",
        8,
    ),
    (
        "brave_images",
        "brave_api/bravepy2025_hello-world_images.json",
        20,
    ),
    (
        "brave_videos",
        "brave_api/bravepy2025_hello-world_videos.json",
        20,
    ),
    ("nominatim", "nominatim/geocoder2017_ottawa-ontario.json", 1),
];

/// Hacker News (Algolia): the data folder holds a bundle of recorded
/// exchanges; the replies to `/search` requests are the answers.
pub const HN_BUNDLE: &str = "hn_algolia/hnapi2014_fixtures-bundle_26-responses.json";

/// Our answers (`tests/data/api/`), for the presets with no real one:
/// (preset, file, results).
pub const OWN_API_ANSWERS: &[(&str, &str, usize)] = &[
    ("openalex", "openalex.json", 2),
    ("stackexchange", "stackexchange.json", 2),
    ("crates", "crates.json", 2),
    ("npm", "npm.json", 2),
    ("wikimedia_commons", "wikimedia_commons.json", 2),
    ("openverse", "openverse.json", 2),
    ("peertube", "peertube.json", 3),
    ("brave_news", "brave_news.json", 2),
];

/// Every answer by preset: (body, results). `root` is the repository's.
pub fn api_pages(root: &Path) -> BTreeMap<String, Vec<(String, usize)>> {
    let mut out: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for (preset, file, count) in OWN_API_ANSWERS {
        let body = std::fs::read_to_string(root.join("tests/data/api").join(file)).unwrap();
        out.entry(preset.to_string())
            .or_default()
            .push((body, *count));
    }
    let Some(data) = metasift_data::root() else {
        return out;
    };
    for (preset, file, count) in API_ANSWERS {
        let body = metasift::engines::decode_body(
            &std::fs::read(data.join("api").join(file)).unwrap(),
            None,
        );
        out.entry(preset.to_string())
            .or_default()
            .push((body, *count));
    }
    let bundle: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(data.join("api").join(HN_BUNDLE)).unwrap()).unwrap();
    for entry in &bundle {
        let url = entry["url"].as_str().unwrap_or_default();
        if !url.contains("/search") {
            continue;
        }
        let reply = entry["reply"].to_string();
        let hits = entry["reply"]["hits"].as_array().map_or(0, Vec::len);
        out.entry("hackernews".to_string())
            .or_default()
            .push((reply, hits));
    }
    out
}
