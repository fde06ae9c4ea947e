//! `metasift lab --queries FILE --replay DIR`: the sweep on real engine output.
//!
//! Every query of FILE (one a line; blank lines and `#` comments skipped) is
//! asked once of the configured engines — answered from the recording DIR,
//! so the run is offline and repeatable — and the gathered answers are then
//! fused under every method and threshold of the sweep, with no new fan-out.
//! Written to the output folder:
//!
//! - `fused.jsonl`: one line per (query, series, threshold) with the fused
//!   list and every result's duplicate group (`url`, `title`, `engine`,
//!   `stage`, `similarity`), to read what a threshold does;
//! - `fused.csv`: per (query, series, threshold) the number of results,
//!   of groups with duplicates, and of hidden duplicates;
//! - `to-label.jsonl`: the merged pairs a person must decide (the rule is
//!   [`needs_label`]), once each, in the lab's pair format
//!   `{"a": {record}, "b": {record}, "duplicate": null, …}` with the
//!   settings that merged it (`merged_by`), how many settings the band
//!   around the configured thresholds holds (`band`) and how many of them
//!   merged it (`merged_in_band`) — set `duplicate` to `true`/`false` and feed it back with
//!   `metasift lab --data to-label.jsonl`. The most contested pairs (merged
//!   by about half the settings) come first.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::{LabError, SweepOs, points, series};
use crate::search::Searcher;
use metasift_dedup::{Method, Settings};

/// What `--queries` needs besides the sweep.
#[derive(Debug, Clone)]
pub(super) struct QueriesRun<'a> {
    /// The query file.
    pub queries: &'a Path,
    /// The configuration whose engines are asked.
    pub config: &'a crate::config::Config,
    /// The recording to answer from (`None` = the network, or each engine's
    /// own `replay`).
    pub replay: Option<&'a Path>,
    /// Methods (empty = all).
    pub methods: &'a [Method],
    /// Thresholds of the sweep.
    pub sweep: &'a [f64],
    /// Which feature-code threshold moves.
    pub sweep_os: SweepOs,
    /// Settings before the swept value is applied.
    pub base: Settings,
    /// Output folder.
    pub out: &'a Path,
}

/// How far (on the common threshold axis) a swept setting may be from the
/// configured one and still count for `to-label.jsonl`: the band a label
/// can move the chosen threshold within.
pub(super) const LABEL_BAND: f64 = 0.2;

/// Whether a merged pair goes to `to-label.jsonl`: the pairs a person must
/// decide, not every pair some setting merged.
///
/// - Two records with the same URL key are one page (the URL stage's
///   normalization: scheme, `www.`, tracking parameters, redirect wrappers):
///   nothing to judge, never offered. Most merged pairs on real lists are
///   these.
/// - Only the *band* counts: the sweep's settings within [`LABEL_BAND`] of
///   the configured threshold of their method ([`configured_threshold`];
///   all of a method's settings when none is that close). A pair merged only
///   by looser settings outside it (SimHash at distance 29, `os2 = 0.1`) is
///   far below any threshold worth choosing: left out.
/// - A pair every setting of the band merged (`merged == band`) is far above
///   the thresholds in question: its label could not change which is best,
///   so it is left out — unless the band has fewer than two settings, when
///   there is nothing to compare and every pair it merged is offered.
/// - The rest — merged by some settings of the band and not by others — are
///   near the threshold, where a label decides: offered.
///
/// `band` counts the band's settings of methods that read text (every method
/// but `none`, which merges equal URL keys only); `merged` those of them
/// that merged the pair.
pub(super) fn needs_label(same_url_key: bool, merged: usize, band: usize) -> bool {
    !same_url_key && merged > 0 && (band < 2 || merged < band)
}

/// A method's configured threshold on the common axis (feature codes: the
/// swept `os1`/`os2`; SimHash: `1 − max_distance / 32`; Rabin:
/// `block_threshold`); `None` for `none`.
pub(super) fn configured_threshold(
    method: Method,
    base: &Settings,
    sweep_os: SweepOs,
) -> Option<f64> {
    match method {
        Method::FeatureCode => Some(match sweep_os {
            SweepOs::Os1 => base.os1,
            SweepOs::Os2 => base.os2,
        }),
        Method::SimHash => Some(1.0 - f64::from(base.max_distance) / 32.0),
        Method::Rabin => Some(base.block_threshold),
        Method::None => None,
    }
}

/// Reads the query file: one query a line, `#` comments and blanks skipped.
pub(super) fn read_queries(path: &Path) -> Result<Vec<String>, LabError> {
    let text = crate::files::read_capped(path, crate::files::MAX_DATA_BYTES).map_err(|source| {
        LabError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(text
        .strip_prefix('\u{FEFF}')
        .unwrap_or(&text)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// Runs the queries, the sweep, and writes the three files; returns them.
pub(super) fn run(run: &QueriesRun<'_>) -> Result<Vec<PathBuf>, LabError> {
    let queries = read_queries(run.queries)?;
    if queries.is_empty() {
        return Err(LabError::BadArgument(format!(
            "{}: no queries (one a line)",
            run.queries.display()
        )));
    }
    if let Some(dir) = run.replay {
        crate::search::recording::check_replay_dir(dir)
            .map_err(|e| LabError::BadArgument(format!("--replay: {e}")))?;
    }
    let searcher = Searcher::from_config(run.config.clone())
        .map_err(|e| LabError::BadArgument(format!("--config: {e}")))?
        .with_recording(None, run.replay.map(Path::to_path_buf));
    let methods: Vec<Method> = if run.methods.is_empty() {
        Method::ALL.to_vec()
    } else {
        run.methods.to_vec()
    };
    let all_series = series(&methods, &run.base, &[], &[]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| LabError::Io {
            path: PathBuf::from("(async runtime)"),
            source,
        })?;

    let fused_path = run.out.join("fused.jsonl");
    let csv_path = run.out.join("fused.csv");
    let label_path = run.out.join("to-label.jsonl");
    let mut fused = Vec::new();
    let mut csv = csv::Writer::from_writer(Vec::new());
    let csv_err = |e: csv::Error| LabError::Io {
        path: csv_path.clone(),
        source: std::io::Error::other(e),
    };
    csv.write_record([
        "query",
        "series",
        "threshold",
        "results",
        "groups",
        "hidden",
        "engines_answered",
    ])
    .map_err(csv_err)?;
    // Each merged pair once (keyed by the two URL keys, in either order),
    // with every setting that merged it.
    let mut to_label: BTreeMap<(String, u64, u64), (serde_json::Value, Vec<String>)> =
        BTreeMap::new();
    // The settings (as `merged_by` names them) of the band around the
    // configured thresholds (see `needs_label`).
    let mut band: Vec<String> = Vec::new();
    for s in all_series.iter().filter(|s| s.method != Method::None) {
        let pts = points(s, run.sweep, run.sweep_os);
        let conf = configured_threshold(s.method, &run.base, run.sweep_os);
        let near = |t: Option<f64>| match (t, conf) {
            (Some(t), Some(c)) => (t - c).abs() <= LABEL_BAND + 1e-9,
            _ => true,
        };
        let any_near = pts.iter().any(|(t, _)| near(*t));
        for (t, _) in pts {
            if near(t) || !any_near {
                band.push(format!(
                    "{} {}",
                    s.label,
                    t.map_or(String::new(), |t| format!("{t}"))
                ));
            }
        }
    }
    let band_size = band.len();

    for text in &queries {
        let query = searcher.parse_query(text, 1);
        let request = searcher.prepare(query.clone(), Default::default());
        // One search at a time, so never refused for load.
        let (gathered, _) = runtime
            .block_on(searcher.gathered(&request))
            .map_err(|e| LabError::BadArgument(format!("{text:?}: {e}")))?;
        // Duplicates carry no snippet; the engines' own records do.
        let snippets: BTreeMap<(&str, &str), &str> = gathered
            .answers
            .iter()
            .flat_map(|a| a.results.iter())
            .map(|r| ((r.engine.as_str(), r.url.as_str()), r.snippet.as_str()))
            .collect();
        let snippet = |engine: &str, url: &str| -> String {
            snippets
                .get(&(engine, url))
                .copied()
                .unwrap_or("")
                .to_string()
        };
        let answered = gathered
            .reports
            .iter()
            .filter(|r| r.failure.is_none())
            .count();
        if answered == 0 {
            eprintln!("{text:?}: no engine answered (is it in the recording?)");
        }
        for s in &all_series {
            for (threshold, settings) in points(s, run.sweep, run.sweep_os) {
                // The whole fused list, not one page of it.
                let resp = gathered.fuse_all(&query, &settings, &run.config.fusion, false);
                let groups = resp
                    .results
                    .iter()
                    .filter(|r| !r.duplicates.is_empty())
                    .count();
                let hidden: usize = resp.results.iter().map(|r| r.duplicates.len()).sum();
                let threshold_text = threshold.map_or(String::new(), |t| format!("{t}"));
                csv.write_record([
                    &*crate::output::csv::cell(text),
                    s.label.as_str(),
                    threshold_text.as_str(),
                    &resp.results.len().to_string(),
                    &groups.to_string(),
                    &hidden.to_string(),
                    &answered.to_string(),
                ])
                .map_err(csv_err)?;
                let setting = format!("{} {}", s.label, threshold_text);
                for r in &resp.results {
                    for d in &r.duplicates {
                        let (ka, kb) = (
                            metasift_dedup::url_key(&r.url).0,
                            metasift_dedup::url_key(&d.url).0,
                        );
                        let key = (text.clone(), ka.min(kb), ka.max(kb));
                        let entry = to_label.entry(key).or_insert_with(|| {
                            (
                                json!({
                                    "query": text,
                                    "a": {"id": format!("{}#{}", r.engine, r.url), "url": r.url,
                                          "title": r.title, "snippet": snippet(&r.engine, &r.url),
                                          "engine": r.engine, "query": text},
                                    "b": {"id": format!("{}#{}", d.engine, d.url), "url": d.url,
                                          "title": d.title, "snippet": snippet(&d.engine, &d.url),
                                          "engine": d.engine, "position": d.position, "query": text},
                                    "stage": d.stage,
                                    "similarity": d.similarity,
                                    "duplicate": null,
                                }),
                                Vec::new(),
                            )
                        });
                        if !entry.1.contains(&setting) {
                            entry.1.push(setting.clone());
                        }
                    }
                }
                let line = json!({
                    "query": text,
                    "series": s.label,
                    "method": settings.method,
                    "threshold": threshold,
                    "settings": settings,
                    "results": resp.results.iter().map(|r| json!({
                        "url": r.url,
                        "title": r.title,
                        "engines": r.engines,
                        "positions": r.positions,
                        "score": r.score,
                        "duplicates": r.duplicates.iter().map(|d| json!({
                            "url": d.url, "title": d.title, "engine": d.engine,
                            "stage": d.stage, "similarity": d.similarity,
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "unresponsive_engines": resp.engines.iter()
                        .filter(|r| r.failure.is_some())
                        .map(|r| json!([r.engine, r.reason]))
                        .collect::<Vec<_>>(),
                });
                serde_json::to_writer(&mut fused, &line).map_err(|e| LabError::Io {
                    path: fused_path.clone(),
                    source: std::io::Error::other(e),
                })?;
                fused.push(b'\n');
            }
        }
    }

    let mut labels = Vec::new();
    let (mut same_page, mut far, mut sure) = (0usize, 0usize, 0usize);
    let mut offered: Vec<(usize, serde_json::Value)> = Vec::new();
    for ((_, ka, kb), (mut pair, settings)) in to_label {
        let merged = settings.iter().filter(|s| band.contains(s)).count();
        if !needs_label(ka == kb, merged, band_size) {
            if ka == kb {
                same_page += 1;
            } else if merged == 0 {
                far += 1;
            } else {
                sure += 1;
            }
            continue;
        }
        pair["merged_by"] = json!(settings);
        pair["band"] = json!(band_size);
        pair["merged_in_band"] = json!(merged);
        offered.push((merged, pair));
    }
    // The most contested pairs first: those about half the band merged (a
    // label there moves the best threshold most); ties keep query order.
    offered.sort_by_key(|(m, _)| (2 * m).abs_diff(band_size));
    for (_, pair) in &offered {
        serde_json::to_writer(&mut labels, pair).map_err(|e| LabError::Io {
            path: label_path.clone(),
            source: std::io::Error::other(e),
        })?;
        labels.push(b'\n');
    }
    let csv_bytes = csv.into_inner().map_err(|e| LabError::Io {
        path: csv_path.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    for (path, bytes) in [
        (&fused_path, &fused),
        (&csv_path, &csv_bytes),
        (&label_path, &labels),
    ] {
        let mut f = std::fs::File::create(path).map_err(|source| LabError::Io {
            path: path.clone(),
            source,
        })?;
        f.write_all(bytes).map_err(|source| LabError::Io {
            path: path.clone(),
            source,
        })?;
    }
    eprintln!(
        "to-label.jsonl: {} pairs to judge; left out {same_page} pairs of one page (same URL key), {far} merged only by settings more than {LABEL_BAND} from the configured thresholds, and {sure} that all {band_size} settings near them merged",
        labels.iter().filter(|&&b| b == b'\n').count()
    );
    Ok(vec![fused_path, csv_path, label_path])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pairs_a_person_must_decide_are_offered() {
        // One page under two links: never.
        assert!(!needs_label(true, 1, 5));
        assert!(!needs_label(true, 5, 5));
        // Merged by every setting of the band: its label changes nothing.
        assert!(!needs_label(false, 5, 5));
        // Merged only by settings far looser than the configured ones.
        assert!(!needs_label(false, 0, 5));
        // Near the threshold: some settings of the band merge it, others not.
        assert!(needs_label(false, 2, 5));
        // A band of one setting has nothing to compare: every pair it merged.
        assert!(needs_label(false, 1, 1));
        assert!(!needs_label(false, 0, 1));
    }

    #[test]
    fn configured_thresholds_sit_on_the_common_axis() {
        let s = Settings::default();
        assert_eq!(
            configured_threshold(Method::FeatureCode, &s, SweepOs::Os2),
            Some(s.os2)
        );
        assert_eq!(
            configured_threshold(Method::FeatureCode, &s, SweepOs::Os1),
            Some(s.os1)
        );
        let t = configured_threshold(Method::SimHash, &s, SweepOs::Os2).unwrap();
        assert_eq!(crate::lab::simhash_distance(t), s.max_distance);
        assert_eq!(configured_threshold(Method::None, &s, SweepOs::Os2), None);
    }
}
