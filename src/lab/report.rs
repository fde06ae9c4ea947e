//! What a sweep is worth: `results.csv`, the trivial baselines, the best
//! setting per method under a precision floor and `report.md`.

use std::fmt::Write as _;

use metasift_dedup::Method;

use super::data::DataFile;
use super::metrics::Confusion;
use super::{Row, SweepOs, unit_str};

/// The CSV header of `results.csv`.
pub const CSV_HEADER: [&str; 20] = [
    "method",
    "os1",
    "os2",
    "precision",
    "recall",
    "f1",
    "seconds",
    "threshold",
    "series",
    "window",
    "unit",
    "max_distance",
    "block_threshold",
    "min_codes",
    "word_anchors",
    "tp",
    "fp",
    "fn",
    "tn",
    "dataset",
];

/// Writes the rows as CSV.
pub fn write_csv(rows: &[Row], w: impl std::io::Write) -> csv::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(CSV_HEADER)?;
    for r in rows {
        let s = &r.settings;
        let c = &r.confusion;
        out.write_record([
            s.method.as_str().to_string(),
            format!("{}", s.os1),
            format!("{}", s.os2),
            format!("{:.6}", c.precision()),
            format!("{:.6}", c.recall()),
            format!("{:.6}", c.f1()),
            format!("{:.4}", r.seconds),
            r.threshold.map(|t| t.to_string()).unwrap_or_default(),
            crate::output::csv::cell(&r.series).into_owned(),
            s.window.to_string(),
            unit_str(s.unit).to_string(),
            s.max_distance.to_string(),
            format!("{}", s.block_threshold),
            s.min_codes.to_string(),
            s.word_anchors.to_string(),
            c.tp.to_string(),
            c.fp.to_string(),
            c.fn_.to_string(),
            c.tn.to_string(),
            // An uploaded file's name: anyone's text, neutralised like
            // every text cell of a CSV metasift writes.
            crate::output::csv::cell(&r.dataset).into_owned(),
        ])?;
    }
    out.flush()?;
    Ok(())
}

/// The knob a row's series moves, as `name=value` for the report.
pub fn setting_text(r: &Row, sweep_os: SweepOs) -> String {
    let s = &r.settings;
    match s.method {
        Method::FeatureCode => format!(
            "os1={} os2={} window={} unit={} min_codes={} word_anchors={}{}",
            s.os1,
            s.os2,
            s.window,
            unit_str(s.unit),
            s.min_codes,
            s.word_anchors,
            match sweep_os {
                SweepOs::Os1 => " (os1 swept)",
                SweepOs::Os2 => "",
            }
        ),
        Method::SimHash => format!("max_distance={}", s.max_distance),
        Method::Rabin => format!("block_threshold={}", s.block_threshold),
        Method::None => "URL only".to_string(),
    }
}

/// What the trivial deciders score on a data set: "everything is a
/// duplicate" (recall 1, precision = the share of duplicates) and "nothing
/// is" (recall 0, precision 1 by the lab's convention). A setting is only
/// worth its name where it beats both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Baseline {
    /// Truly duplicate pairs.
    pub positives: u64,
    /// Truly distinct pairs.
    pub negatives: u64,
}

impl Baseline {
    /// The baseline of the data a row was measured on (every row of a data
    /// set judges the same pairs).
    pub fn of(c: &Confusion) -> Baseline {
        Baseline {
            positives: c.tp + c.fn_,
            negatives: c.fp + c.tn,
        }
    }

    /// The counts of merging every pair.
    pub fn all_duplicate(&self) -> Confusion {
        Confusion {
            tp: self.positives,
            fp: self.negatives,
            fn_: 0,
            tn: 0,
        }
    }

    /// The counts of merging nothing.
    pub fn none(&self) -> Confusion {
        Confusion {
            tp: 0,
            fp: 0,
            fn_: self.positives,
            tn: self.negatives,
        }
    }
}

/// The best setting of one (data set, series) and whether it reaches the
/// precision floor.
#[derive(Debug, Clone, Copy)]
pub struct Best<'a> {
    /// The row.
    pub row: &'a Row,
    /// Whether its precision is at least the floor (with something merged).
    pub meets_floor: bool,
}

/// The best row of each (data set, series) under a precision floor: among
/// the settings that merge something with precision ≥ `floor`, the one
/// with the highest recall (ties: higher precision, then the earlier row of
/// the sweep). Where no setting reaches the floor, the most precise setting
/// that merges something (ties: higher recall), marked `meets_floor =
/// false`; where nothing merges anything, the first row. Max-F1 is not the
/// rule: on PAWS-X it picks SimHash `max_distance = 29`, which calls almost
/// every pair a duplicate (P 0.43, R 0.98 — the all-duplicate baseline's
/// precision).
pub fn best_under_floor(rows: &[Row], floor: f64) -> Vec<Best<'_>> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let k = (r.dataset.as_str(), r.series.as_str());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|(d, s)| {
            let group = rows.iter().filter(|r| r.dataset == d && r.series == s);
            let merging = group
                .clone()
                .filter(|r| r.confusion.tp + r.confusion.fp > 0);
            // The first row with the greatest key (so ties go to the sweep's
            // earlier setting).
            fn first_max<'r>(
                it: impl Iterator<Item = &'r Row>,
                key: impl Fn(&Row) -> (f64, f64),
            ) -> Option<&'r Row> {
                it.fold(None, |best: Option<&Row>, r| match best {
                    Some(b) if key(r) <= key(b) => Some(b),
                    _ => Some(r),
                })
            }
            let above = merging.clone().filter(|r| r.confusion.precision() >= floor);
            if let Some(row) = first_max(above, |r| (r.confusion.recall(), r.confusion.precision()))
            {
                return Some(Best {
                    row,
                    meets_floor: true,
                });
            }
            let row = first_max(merging, |r| (r.confusion.precision(), r.confusion.recall()))
                .or_else(|| group.clone().next())?;
            Some(Best {
                row,
                meets_floor: false,
            })
        })
        .collect()
}

/// The row with the highest F1 for each (data set, series), ties to the
/// higher precision, then the lower threshold.
pub fn best_rows(rows: &[Row]) -> Vec<&Row> {
    let mut best: Vec<&Row> = Vec::new();
    for r in rows {
        match best
            .iter_mut()
            .find(|b| b.dataset == r.dataset && b.series == r.series)
        {
            Some(b) => {
                let key = |x: &Row| (x.confusion.f1(), x.confusion.precision());
                if key(r) > key(b) {
                    *b = r;
                }
            }
            None => best.push(r),
        }
    }
    best
}

/// The Markdown report: the data, the trivial baselines, the best setting
/// per method under the precision floor (with its true / false positive
/// counts), and the max-F1 setting for comparison.
pub fn report(
    files: &[DataFile],
    rows: &[Row],
    sweep_text: &str,
    sweep_os: SweepOs,
    floor: f64,
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# metasift lab report\n");
    let _ = writeln!(
        md,
        "Sweep `{sweep_text}`; precision/recall/F1 of \"is a duplicate\" decisions (pairwise for record sets).\n"
    );
    let _ = writeln!(md, "## Data\n");
    let _ = writeln!(
        md,
        "| data set | file | layout | pairs judged | dropped (middle band / unlabeled) | bad lines |"
    );
    let _ = writeln!(md, "| --- | --- | --- | ---: | ---: | ---: |");
    for f in files {
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | {} | {} |",
            f.name,
            f.path.display(),
            f.format.as_str(),
            f.data.pair_count(),
            f.dropped,
            f.bad_lines.len()
        );
    }
    let _ = writeln!(md, "\n## Trivial baselines\n");
    let _ = writeln!(
        md,
        "A setting is worth its name where it beats both: merging every pair, and merging none.\n"
    );
    let _ = writeln!(
        md,
        "| data set | duplicates | distinct | all duplicate: precision / recall / F1 | none: precision / recall |"
    );
    let _ = writeln!(md, "| --- | ---: | ---: | --- | --- |");
    let mut seen: Vec<&str> = Vec::new();
    for r in rows {
        if seen.contains(&r.dataset.as_str()) {
            continue;
        }
        seen.push(&r.dataset);
        let b = Baseline::of(&r.confusion);
        let all = b.all_duplicate();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} / 1.000 / {:.3} | 1.000 / 0.000 |",
            r.dataset,
            b.positives,
            b.negatives,
            all.precision(),
            all.f1()
        );
    }
    let _ = writeln!(
        md,
        "\n## Best setting per method and data set (highest recall at precision ≥ {floor})\n"
    );
    let _ = writeln!(
        md,
        "| data set | method | best setting | precision | recall | F1 | TP | FP | reaches {floor} |"
    );
    let _ = writeln!(
        md,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    for b in best_under_floor(rows, floor) {
        let (r, c) = (b.row, &b.row.confusion);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
            r.dataset,
            r.series,
            setting_text(r, sweep_os),
            c.precision(),
            c.recall(),
            c.f1(),
            c.tp,
            c.fp,
            if b.meets_floor {
                "yes"
            } else {
                "no: the most precise setting"
            }
        );
    }
    let _ = writeln!(
        md,
        "\n## For comparison: the max-F1 setting (ignores precision)\n"
    );
    let _ = writeln!(
        md,
        "| data set | method | setting | precision | recall | F1 | TP | FP |"
    );
    let _ = writeln!(md, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for r in best_rows(rows) {
        let c = &r.confusion;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} |",
            r.dataset,
            r.series,
            setting_text(r, sweep_os),
            c.precision(),
            c.recall(),
            c.f1(),
            c.tp,
            c.fp
        );
    }
    let bad: Vec<String> = files
        .iter()
        .flat_map(|f| f.bad_lines.iter().take(20).map(|e| format!("- `{e}`")))
        .collect();
    if !bad.is_empty() {
        let _ = writeln!(
            md,
            "\n## Skipped lines (first 20 per file)\n\n{}",
            bad.join("\n")
        );
    }
    let _ = writeln!(
        md,
        "\nAll rows: `results.csv`; plot: `plot.svg` / `plot.png`."
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use metasift_dedup::Settings;

    fn row(series: &str, t: f64, tp: u64, fp: u64, fn_: u64, tn: u64) -> Row {
        Row {
            dataset: "pawsx".into(),
            series: series.into(),
            threshold: Some(t),
            settings: Settings::default(),
            confusion: Confusion { tp, fp, fn_, tn },
            seconds: 0.0,
        }
    }

    #[test]
    fn the_best_setting_is_the_highest_recall_above_the_floor_not_max_f1() {
        // 1,000 duplicates, 1,320 distinct pairs, as in a paraphrase set.
        let rows = vec![
            // "Everything is a duplicate": the max-F1 row.
            row("simhash", 0.1, 980, 1300, 20, 20),
            row("simhash", 0.5, 300, 3, 700, 1317),
            row("simhash", 0.7, 350, 5, 650, 1315),
            row("simhash", 0.9, 100, 0, 900, 1320),
        ];
        assert_eq!(best_rows(&rows)[0].threshold, Some(0.1));
        let best = best_under_floor(&rows, 0.98);
        assert_eq!(best.len(), 1);
        assert!(best[0].meets_floor);
        // 350/355 = 0.986 ≥ 0.98 with the most recall; 300/303 = 0.990 too,
        // but finds less.
        assert_eq!(best[0].row.threshold, Some(0.7));
        // A floor of 0.99 leaves 0.5 (0.990) and 0.9 (1.0): recall decides.
        assert_eq!(best_under_floor(&rows, 0.99)[0].row.threshold, Some(0.5));
    }

    #[test]
    fn without_a_setting_above_the_floor_the_most_precise_one_is_shown_and_marked() {
        let rows = vec![
            row("rabin", 0.5, 500, 100, 500, 1220),
            row("rabin", 0.8, 200, 20, 800, 1300),
            // Merges nothing: precision 1 by convention, but no evidence.
            row("none", 0.0, 0, 0, 1000, 1320),
        ];
        let best = best_under_floor(&rows, 0.98);
        assert_eq!(best.len(), 2);
        assert_eq!(best[0].row.threshold, Some(0.8));
        assert!(!best[0].meets_floor);
        assert_eq!(best[1].row.series, "none");
        assert!(
            !best[1].meets_floor,
            "merging nothing never reaches the floor"
        );
    }

    #[test]
    fn baselines_come_from_the_labels() {
        let b = Baseline::of(&Confusion {
            tp: 30,
            fp: 5,
            fn_: 400,
            tn: 565,
        });
        assert_eq!((b.positives, b.negatives), (430, 570));
        let all = b.all_duplicate();
        assert!((all.precision() - 0.43).abs() < 1e-9);
        assert_eq!(all.recall(), 1.0);
        assert_eq!(b.none().recall(), 0.0);
        assert_eq!(b.none().precision(), 1.0);
    }
}
