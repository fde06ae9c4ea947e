//! What `metasift lab --qrels` writes ([`super::judged`]): the tables on
//! stdout, and in `--out` the CSV files, the chart and `report.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::LabError;
use super::judged::{Evaluation, RunKind};
use super::qrels::Qrels;

/// The runs' table as text: one line per run, widths to fit.
pub fn runs_table(e: &Evaluation) -> String {
    let k = e.k;
    let width = e
        .runs
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(3)
        .max(3)
        + 2;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<width$}{:>9}{:>8}{:>8}{:>11}",
        "run",
        format!("nDCG@{k}"),
        format!("P@{k}"),
        "MAP",
        "ms/query"
    );
    for r in &e.runs {
        let mark = if r.label == e.configured {
            " (configured)"
        } else if Some(r.label.trim_start_matches("engine ")) == e.best_engine.as_deref()
            && r.kind == RunKind::Engine
        {
            " (best fixed engine)"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "{:<width$}{:>9.4}{:>8.4}{:>8.4}{:>11}{mark}",
            r.label,
            r.ndcg,
            r.precision,
            r.map,
            r.ms_per_query
                .map_or("-".to_string(), |m| format!("{m:.3}")),
        );
    }
    s
}

/// The paired tests as text.
pub fn tests_table(e: &Evaluation) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "paired randomisation test of nDCG@{} ({} permutations, seed {}, two-sided):",
        e.k, e.permutations, e.seed
    );
    let width = e
        .tests
        .iter()
        .map(|t| t.a.len() + t.b.len() + 4)
        .max()
        .unwrap_or(10)
        + 2;
    for t in &e.tests {
        let _ = writeln!(
            s,
            "{:<width$}Δ {:+.4}  p = {:.4}  wins/losses {}/{}",
            format!("{} vs {}", t.a, t.b),
            t.mean_difference,
            t.p_value,
            t.wins,
            t.losses
        );
    }
    s
}

/// What `metasift lab --qrels` prints.
pub fn summary(e: &Evaluation, qrels: &Qrels) -> String {
    format!(
        "judged set {}: {} queries, {} judgements\n\n{}\n{}",
        qrels.path.display(),
        e.queries.len(),
        e.judgements,
        runs_table(e),
        tests_table(e)
    )
}

fn csv_err(path: &Path) -> impl Fn(csv::Error) -> LabError + '_ {
    move |e| LabError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

/// `fusion-runs.csv`, `fusion-queries.csv`, `fusion-tests.csv`,
/// `fusion.svg` and `report.md` in `out`; returns the files written.
pub fn write(e: &Evaluation, qrels: &Qrels, out: &Path) -> Result<Vec<PathBuf>, LabError> {
    std::fs::create_dir_all(out).map_err(|source| LabError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let k = e.k;
    let mut written = Vec::new();

    let path = out.join("fusion-runs.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = csv_err(&path);
    w.write_record([
        "run".to_string(),
        "kind".into(),
        format!("ndcg@{k}"),
        format!("p@{k}"),
        "map".into(),
        "ms_per_query".into(),
    ])
    .map_err(&err)?;
    for r in &e.runs {
        w.write_record([
            r.label.clone(),
            format!("{:?}", r.kind).to_lowercase(),
            format!("{:.6}", r.ndcg),
            format!("{:.6}", r.precision),
            format!("{:.6}", r.map),
            r.ms_per_query.map_or(String::new(), |m| format!("{m:.4}")),
        ])
        .map_err(&err)?;
    }
    save(&path, w.into_inner().unwrap_or_default())?;
    written.push(path.clone());

    let path = out.join("fusion-queries.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = csv_err(&path);
    w.write_record([
        "query".to_string(),
        "text".into(),
        "run".into(),
        format!("ndcg@{k}"),
        format!("p@{k}"),
        "ap".into(),
    ])
    .map_err(&err)?;
    for q in &e.queries {
        for (r, s) in e.runs.iter().zip(&q.scores) {
            w.write_record([
                q.id.clone(),
                crate::output::csv::cell(&q.text).into_owned(),
                r.label.clone(),
                format!("{:.6}", s[0]),
                format!("{:.6}", s[1]),
                format!("{:.6}", s[2]),
            ])
            .map_err(&err)?;
        }
    }
    save(&path, w.into_inner().unwrap_or_default())?;
    written.push(path.clone());

    let path = out.join("fusion-tests.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = csv_err(&path);
    w.write_record(["a", "b", "mean_difference", "p_value", "wins", "losses"])
        .map_err(&err)?;
    for t in &e.tests {
        w.write_record([
            t.a.clone(),
            t.b.clone(),
            format!("{:.6}", t.mean_difference),
            format!("{:.6}", t.p_value),
            t.wins.to_string(),
            t.losses.to_string(),
        ])
        .map_err(&err)?;
    }
    save(&path, w.into_inner().unwrap_or_default())?;
    written.push(path.clone());

    let path = out.join("fusion.svg");
    save(&path, chart(e).into_bytes())?;
    written.push(path.clone());

    let path = out.join("report.md");
    save(&path, report(e, qrels).into_bytes())?;
    written.push(path);
    Ok(written)
}

fn save(path: &Path, bytes: Vec<u8>) -> Result<(), LabError> {
    std::fs::write(path, bytes).map_err(|source| LabError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The bar chart of mean nDCG@k per run.
pub fn chart(e: &Evaluation) -> String {
    let bars: Vec<(String, f64, usize)> = e
        .runs
        .iter()
        .map(|r| {
            let colour = match r.kind {
                RunKind::Fusion if r.label == e.configured => 0,
                RunKind::Fusion => 2,
                RunKind::Engine => 3,
                RunKind::Oracle => 5,
            };
            (r.label.clone(), r.ndcg, colour)
        })
        .collect();
    super::plot::bars_svg(
        &format!("mean nDCG@{} over {} judged queries", e.k, e.queries.len()),
        &bars,
    )
}

/// `report.md`: the runs, the tests and the per-query table.
pub fn report(e: &Evaluation, qrels: &Qrels) -> String {
    let k = e.k;
    let mut s = String::new();
    let _ = writeln!(s, "# Fusion methods on judged queries\n");
    let _ = writeln!(
        s,
        "Judged set `{}`: {} queries, {} judgements. Configured fusion: `{}`.\n",
        qrels.path.display(),
        e.queries.len(),
        e.judgements,
        e.configured
    );
    let _ = writeln!(s, "| run | nDCG@{k} | P@{k} | MAP | ms/query |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for r in &e.runs {
        let _ = writeln!(
            s,
            "| {} | {:.4} | {:.4} | {:.4} | {} |",
            r.label,
            r.ndcg,
            r.precision,
            r.map,
            r.ms_per_query
                .map_or("–".to_string(), |m| format!("{m:.3}"))
        );
    }
    let _ = writeln!(
        s,
        "\nPaired randomisation test of nDCG@{k}, two-sided, {} permutations, seed {}:\n",
        e.permutations, e.seed
    );
    let _ = writeln!(s, "| a | b | Δ mean | p | a better / worse |");
    let _ = writeln!(s, "|---|---|---:|---:|---:|");
    for t in &e.tests {
        let _ = writeln!(
            s,
            "| {} | {} | {:+.4} | {:.4} | {} / {} |",
            t.a, t.b, t.mean_difference, t.p_value, t.wins, t.losses
        );
    }
    let fusion_cols: Vec<usize> = e
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind != RunKind::Engine)
        .map(|(i, _)| i)
        .collect();
    let _ = writeln!(s, "\nnDCG@{k} per query:\n");
    let _ = write!(s, "| query | engines |");
    for &i in &fusion_cols {
        let _ = write!(s, " {} |", e.runs[i].label);
    }
    let _ = writeln!(s);
    let _ = write!(s, "|---|---:|");
    for _ in &fusion_cols {
        let _ = write!(s, "---:|");
    }
    let _ = writeln!(s);
    for q in &e.queries {
        let _ = write!(
            s,
            "| {} `{}` | {} |",
            q.id,
            q.text.replace('|', "\\|"),
            q.engines.len()
        );
        for &i in &fusion_cols {
            let _ = write!(s, " {:.3} |", q.scores[i][0]);
        }
        let _ = writeln!(s);
    }
    s
}
