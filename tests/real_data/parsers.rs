//! Golden tests of the shipped `engines.toml` presets on real saved pages
//! (the team's data folder, `serp/`).
//!
//! Every case of `tests/data/parsers.toml` names a saved page (sources in
//! the folder's `serp/SOURCES.md`), the preset that reads it and what a
//! person sees on it: the number of organic results and the first and last
//! title / URL, or that the page says "no results", or that it is a bot
//! check (`Blocked`) or a page the preset cannot read (`Invalid`). Every
//! parsed page must also keep the invariants a searcher relies on. The full
//! parsed output of every page is kept as an insta snapshot
//! (`tests/snapshots/parsers__*.snap`), so any change in what a preset reads
//! shows up in review. Every third page is also cut short and read by every
//! preset: no panic, no broken invariant.

use std::path::Path;

use metasift::engines;

use crate::golden::{self, check_case, invariant_errors, shipped_config, table};
use crate::real_data::Cases;

/// The decoded text of the saved page `file` (under `serp/`).
pub fn saved(root: &Path, file: &str) -> String {
    let path = root.join("serp").join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    engines::decode_body(&bytes, None)
}

/// One case per page of the golden table.
pub fn cases(cases: &mut Cases) {
    let table = table();
    assert!(table.case.len() >= 40, "the table lost cases");
    for (i, case) in table.case.into_iter().enumerate() {
        let rel = format!("serp/{}", case.file);
        cases.add(format!("parsers::{rel}"), move |root| {
            let config = shipped_config();
            let body = saved(root, &case.file);
            let errors = check_case(&config, &case, &body);
            assert!(
                errors.is_empty(),
                "{} problems:\n{}",
                errors.len(),
                errors.join("\n")
            );
            snapshot(&config, &case, &body);
            if i % 3 == 0 {
                cut_short(&config, &body);
            }
        });
    }
}

/// The parsed page against its snapshot, `tests/snapshots/parsers__<file>.snap`.
fn snapshot(config: &metasift::config::Config, case: &golden::Case, body: &str) {
    let result = golden::engine(config, &case.engine).parse(body);
    let value = match result {
        Ok(p) => serde_json::json!({
            "hits": p.hits.iter().map(|h| serde_json::json!({
                "title": h.title, "url": h.url, "snippet": h.snippet,
            })).collect::<Vec<_>>(),
            "suggestions": p.suggestions,
        }),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    let name = format!("parsers__{}", case.file.replace(['/', '.'], "__"));
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_json_snapshot!(name, value));
}

/// The page cut at a seventh and at half its length, read by every preset.
fn cut_short(config: &metasift::config::Config, page: &str) {
    for e in &config.engines {
        let engine = engines::build(e).unwrap();
        for cut in [page.len() / 7, page.len() / 2] {
            let mut cut = cut;
            while !page.is_char_boundary(cut) {
                cut -= 1;
            }
            if let Ok(parsed) = engine.parse(&page[..cut]) {
                let errors = invariant_errors(&e.name, &parsed);
                assert!(errors.is_empty(), "{errors:?}");
            }
        }
    }
}
