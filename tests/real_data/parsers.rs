//! Golden tests of the shipped `engines.toml` presets on real saved pages
//! (the team's data folder, `serp/`) and real API answers (`api/`).
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

/// The decoded text of the saved page of `case` (its file under its
/// folder, or the JSON value at its pointer, as the engine sent it).
pub fn saved(root: &Path, case: &golden::Case) -> String {
    let path = root.join(case.folder()).join(&case.file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = engines::decode_body(&bytes, None);
    match &case.pointer {
        None => text,
        Some(p) => {
            let v: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
            v.pointer(p)
                .unwrap_or_else(|| panic!("{}: nothing at {p}", path.display()))
                .to_string()
        }
    }
}

/// One case per page of the golden table.
pub fn cases(cases: &mut Cases) {
    let table = table();
    assert!(table.case.len() >= 40, "the table lost cases");
    for (i, case) in table.case.into_iter().enumerate() {
        cases.add(format!("parsers::{}", case.rel()), move |root| {
            let config = shipped_config();
            let body = saved(root, &case);
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
    // An API answer's snapshot also keeps what its template shows (the
    // fields, the date) and its boxes and answers.
    let api = case.folder() != "serp";
    let value = match result {
        Ok(p) if api => serde_json::json!({
            "hits": p.hits.iter().map(|h| serde_json::json!({
                "title": h.title, "url": h.url, "snippet": h.snippet,
                "published": h.published, "thumbnail": h.thumbnail, "extra": h.extra,
            })).collect::<Vec<_>>(),
            "estimate": p.estimate,
            "infoboxes": p.infoboxes,
            "answers": p.answers,
        }),
        Ok(p) => serde_json::json!({
            "hits": p.hits.iter().map(|h| serde_json::json!({
                "title": h.title, "url": h.url, "snippet": h.snippet,
            })).collect::<Vec<_>>(),
            "suggestions": p.suggestions,
        }),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    let mut name = case.file.replace(['/', '.'], "__");
    if api {
        name = format!("{}__{name}", case.folder());
    }
    if let Some(p) = &case.pointer {
        name.push_str(&p.replace('/', "__"));
    }
    let name = format!("parsers__{name}");
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
