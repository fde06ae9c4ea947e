//! What `/lab` shows of a finished sweep: the trivial baselines, the best
//! setting per method under the precision floor (with its true and false
//! positives), and one table per method with only the columns that apply to
//! it (`os1`/`os2` for feature codes, `max_distance` for SimHash,
//! `block_threshold` for Rabin, none for URL only). Cells are formatted as
//! `results.csv` formats them, and the column names are its column names, so
//! the two can be compared line by line.

use super::super::i18n::Tr;
use crate::lab::{self, data};
use metasift_dedup::Method;

/// The columns shown for a method, named as in `results.csv`.
pub(super) fn columns(method: Method) -> &'static [&'static str] {
    match method {
        Method::FeatureCode => &[
            "threshold",
            "os1",
            "os2",
            "precision",
            "recall",
            "f1",
            "tp",
            "fp",
            "seconds",
        ],
        Method::SimHash => &[
            "threshold",
            "max_distance",
            "precision",
            "recall",
            "f1",
            "tp",
            "fp",
            "seconds",
        ],
        Method::Rabin => &[
            "block_threshold",
            "precision",
            "recall",
            "f1",
            "tp",
            "fp",
            "seconds",
        ],
        Method::None => &["precision", "recall", "f1", "tp", "fp", "seconds"],
    }
}

/// One cell of a row, as `results.csv` writes the column `name`.
fn cell(r: &lab::Row, name: &str) -> String {
    let (s, c) = (&r.settings, &r.confusion);
    match name {
        "threshold" => r.threshold.map(|t| t.to_string()).unwrap_or_default(),
        "os1" => format!("{}", s.os1),
        "os2" => format!("{}", s.os2),
        "max_distance" => s.max_distance.to_string(),
        "block_threshold" => format!("{}", s.block_threshold),
        "precision" => format!("{:.6}", c.precision()),
        "recall" => format!("{:.6}", c.recall()),
        "f1" => format!("{:.6}", c.f1()),
        "tp" => c.tp.to_string(),
        "fp" => c.fp.to_string(),
        "seconds" => format!("{:.4}", r.seconds),
        _ => String::new(),
    }
}

/// One row of a method's table.
#[derive(Debug, Clone)]
pub(crate) struct RowView {
    /// The cells, in the order of the table's columns.
    pub cells: Vec<String>,
    /// Whether it is the method's best setting.
    pub best: bool,
}

/// One method's table.
#[derive(Debug, Clone)]
pub(crate) struct MethodTable {
    /// The series label.
    pub series: String,
    /// The table's id (`lab-rows-<series>`).
    pub id: String,
    /// Column headings: the `results.csv` name and, in the reader's
    /// language, what it is.
    pub columns: Vec<(&'static str, String)>,
    /// Its rows, in sweep order.
    pub rows: Vec<RowView>,
}

/// The best setting of a method.
#[derive(Debug, Clone)]
pub(crate) struct BestView {
    /// The series label.
    pub series: String,
    /// The knob(s) it moved, as `name=value`.
    pub setting: String,
    /// Precision, recall, F1 (3 decimals).
    pub precision: String,
    /// Recall.
    pub recall: String,
    /// F1.
    pub f1: String,
    /// True positives: duplicate pairs merged.
    pub tp: u64,
    /// False positives: distinct pairs merged.
    pub fp: u64,
    /// Whether it reaches the precision floor.
    pub meets_floor: bool,
}

/// The trivial deciders on the data set.
#[derive(Debug, Clone)]
pub(crate) struct BaselineView {
    /// Duplicate pairs.
    pub positives: u64,
    /// Distinct pairs.
    pub negatives: u64,
    /// Merge-everything precision (= the share of duplicates).
    pub all_precision: String,
    /// Merge-everything F1.
    pub all_f1: String,
}

/// A finished run, as the page shows it.
#[derive(Debug, Clone)]
pub(crate) struct RunView {
    /// The data set's name.
    pub dataset: String,
    /// Its layout.
    pub layout: String,
    /// Pairs judged per setting.
    pub pairs: u64,
    /// Lines skipped as bad.
    pub bad_lines: usize,
    /// The first few of them.
    pub bad_examples: Vec<String>,
    /// Graded rows dropped.
    pub dropped: usize,
    /// The chart, our own SVG markup (labels escaped by the plotter).
    pub svg: String,
    /// The baselines (none when nothing was measured).
    pub baseline: Option<BaselineView>,
    /// The precision floor the best settings were chosen under.
    pub floor: String,
    /// The best setting per method.
    pub best: Vec<BestView>,
    /// One table per method.
    pub tables: Vec<MethodTable>,
    /// `results.csv`'s link.
    pub csv_href: String,
    /// The sweep as text.
    pub sweep: String,
}

/// Builds the view of `rows` (one data set) under `floor`; the chart, the
/// CSV link and the sweep text are the caller's to fill in.
pub(super) fn run_view(
    file: &data::DataFile,
    series: &[lab::Series],
    rows: &[lab::Row],
    floor: f64,
    sweep_os: lab::SweepOs,
    tr: &Tr,
) -> RunView {
    let best = lab::best_under_floor(rows, floor);
    let is_best = |r: &lab::Row| best.iter().any(|b| std::ptr::eq(b.row, r));
    let tables = series
        .iter()
        .map(|s| {
            let columns = columns(s.method).to_vec();
            MethodTable {
                id: format!("lab-rows-{}", s.label.replace(' ', "-")),
                series: s.label.clone(),
                rows: rows
                    .iter()
                    .filter(|r| r.series == s.label)
                    .map(|r| RowView {
                        cells: columns.iter().map(|c| cell(r, c)).collect(),
                        best: is_best(r),
                    })
                    .collect(),
                columns: columns
                    .iter()
                    .map(|c| (*c, tr.t(&format!("lab-col-{c}"))))
                    .collect(),
            }
        })
        .collect();
    let baseline = rows.first().map(|r| {
        let b = lab::Baseline::of(&r.confusion);
        let all = b.all_duplicate();
        BaselineView {
            positives: b.positives,
            negatives: b.negatives,
            all_precision: format!("{:.3}", all.precision()),
            all_f1: format!("{:.3}", all.f1()),
        }
    });
    RunView {
        dataset: file.name.clone(),
        layout: tr.t(match file.format {
            data::Format::TsvPairs => "lab-layout-tsv-pairs",
            data::Format::JsonPairs => "lab-layout-json-pairs",
            data::Format::JsonSets => "lab-layout-record-sets",
        }),
        pairs: file.data.pair_count(),
        bad_lines: file.bad_lines.len(),
        bad_examples: file
            .bad_lines
            .iter()
            .take(5)
            .map(|e| e.to_string())
            .collect(),
        dropped: file.dropped,
        baseline,
        floor: format!("{floor}"),
        best: best
            .iter()
            .map(|b| {
                let c = &b.row.confusion;
                BestView {
                    series: b.row.series.clone(),
                    setting: lab::setting_text(b.row, sweep_os),
                    precision: format!("{:.3}", c.precision()),
                    recall: format!("{:.3}", c.recall()),
                    f1: format!("{:.3}", c.f1()),
                    tp: c.tp,
                    fp: c.fp,
                    meets_floor: b.meets_floor,
                }
            })
            .collect(),
        tables,
        svg: String::new(),
        csv_href: String::new(),
        sweep: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Headings are built from the column names at run time, so the
    /// catalog test cannot see them: every column of every method has one
    /// in every language.
    #[test]
    fn every_column_has_a_heading_in_every_language() {
        for (code, _) in super::super::super::i18n::locales() {
            let tr = Tr::new(code);
            for m in Method::ALL {
                for c in columns(m) {
                    assert!(tr.try_t(&format!("lab-col-{c}")).is_some(), "{code}: {c}");
                }
            }
        }
    }
}
