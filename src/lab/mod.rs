//! `metasift lab`: threshold sweeps of the dedup methods on labeled data.
//!
//! For every data file and every method the lab runs the dedup core over a
//! sweep of thresholds and measures precision, recall and F1 against the
//! labels ([`metrics`]). What is swept:
//!
//! * `feature-code`: `os2` (titles differ) — or `os1` with `--sweep-os os1`,
//!   the other held at its `--os1`/`--os2` value — once per `--window` and
//!   `--unit` asked for;
//! * `simhash`: `max_distance = round((1 − t) · 32)` for each threshold `t`,
//!   so all methods share one axis (32 bits is where unrelated texts sit);
//! * `rabin`: `block_threshold = t`;
//! * `none` (URL only): one measurement, drawn as a flat line.
//!
//! Output in `--out`: `results.csv`, `plot.svg`, `plot.png`, `report.md`.
//! `--synth dureader|ag-news` also builds a labeled multi-engine set from the
//! real corpora ([`synth`]), writes it as `synth-<name>.jsonl` and sweeps it.
//!
//! `--qrels FILE` measures the fusion methods instead: relevance
//! judgements ([`qrels`]) against recorded engine answers ([`judged`]).

pub mod data;
pub mod judged;
mod judged_out;
pub mod metrics;
pub(crate) mod plot;
pub mod qrels;
mod queries;
pub mod ranking;
mod report;
mod sweep;
pub mod synth;

pub use report::{
    Baseline, Best, CSV_HEADER, best_rows, best_under_floor, report, setting_text, write_csv,
};
pub use sweep::{MAX_SWEEP_POINTS, parse_sweep, sweep_points};

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use metasift_dedup::{Method, Settings, SettingsPatch, Unit};

use data::{DataFile, Labeled, LoadOptions};
use metrics::Confusion;

/// Errors that stop a lab run (bad lines in data files do not: they are
/// reported and skipped).
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A data file is in no layout the lab knows.
    #[error("{path}: not a labeled data file: {why}")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// What was expected.
        why: String,
    },
    /// A data file gave no pair to judge (every line bad, dropped, or a
    /// record set of one record): precision and recall of nothing would
    /// read as a perfect score.
    #[error(
        "{}: no pair to judge ({bad} bad lines, {dropped} rows dropped): nothing to measure",
        path.display()
    )]
    NoPairs {
        /// The file.
        path: PathBuf,
        /// Lines skipped as bad.
        bad: usize,
        /// Rows dropped (middle band or unlabeled).
        dropped: usize,
    },
    /// A command-line value is out of range or malformed.
    #[error("{0}")]
    BadArgument(String),
    /// The plot could not be rasterized.
    #[error("cannot render plot.png: {0}")]
    Plot(String),
}

/// Which feature-code threshold the sweep moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SweepOs {
    /// `os1`: the threshold used when titles are equal.
    Os1,
    /// `os2`: the threshold used when titles differ.
    #[default]
    Os2,
}

/// Arguments of `metasift lab`.
#[derive(Debug, Clone, clap::Args)]
pub struct LabArgs {
    /// Labeled data: pair TSV / JSON Lines, or record sets with a `group`
    /// (repeatable).
    #[arg(long)]
    pub data: Vec<PathBuf>,
    /// Methods to compare (repeatable; default all).
    #[arg(long = "method")]
    pub methods: Vec<Method>,
    /// Threshold sweep `FROM:TO:STEP`.
    #[arg(long, default_value = "0.1:1:0.05")]
    pub sweep: String,
    /// Which feature-code threshold moves.
    #[arg(long, value_enum, default_value_t = SweepOs::Os2)]
    pub sweep_os: SweepOs,
    /// `os1` while `os2` is swept (default: the configured one).
    #[arg(long)]
    pub os1: Option<f64>,
    /// `os2` while `os1` is swept (default: the configured one).
    #[arg(long)]
    pub os2: Option<f64>,
    /// Feature-code windows to compare, e.g. `1,2,3,4` (default: the configured one).
    #[arg(long, value_delimiter = ',')]
    pub window: Vec<usize>,
    /// Feature-code CJK units to compare: `char`, `word` or `char,word`.
    #[arg(long, value_delimiter = ',', value_parser = parse_unit)]
    pub unit: Vec<Unit>,
    /// Override the pipeline's `min_codes` (codes a snippet needs before a
    /// match between different titles counts; 0 = off).
    #[arg(long)]
    pub min_codes: Option<usize>,
    /// Override `word_anchors` (about one word pair in N, outside CJK text,
    /// is an extra content-defined anchor; 0 = punctuation anchors only).
    #[arg(long)]
    pub word_anchors: Option<usize>,
    /// Give both texts of a TSV pair the same title (then `os1` decides:
    /// implies `--sweep-os os1`).
    #[arg(long)]
    pub title_equal: bool,
    /// Read at most N pairs or result lists per file (0 = all).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Also build a labeled multi-engine set from a corpus and sweep it
    /// (repeatable), written to `OUT/synth-NAME.jsonl`: `sample` (result
    /// lists this team wrote, built in), or the real `dureader` and
    /// `ag-news` of the team's data folder.
    #[arg(long)]
    pub synth: Vec<synth::Corpus>,
    /// The folder the real `--synth` corpora are read from, laid out like the
    /// team's data folder (default: `METASIFT_DATA`, else `../shared/data`
    /// beside the checkout metasift was built from).
    #[arg(long)]
    pub data_root: Option<PathBuf>,
    /// RNG seed of `--synth`, and of `--qrels`' randomisation test.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// The best setting per method is the one with the highest recall
    /// among those with at least this precision (0–1).
    #[arg(long, default_value_t = crate::config::DEFAULT_PRECISION_FLOOR)]
    pub precision_floor: f64,
    /// Worker threads (default: the cores there are).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Queries (one a line) to ask the engines and fuse under every
    /// setting of the sweep (see `lab::queries`); replaces `--data`.
    #[arg(long)]
    pub queries: Option<PathBuf>,
    /// With `--queries`: answer every engine from this recording (a
    /// `--record` folder, or saved pages with an `index.json`).
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// The configuration: its `[dedup]` is where the flags start from, and
    /// with `--queries` its engines are asked (looked for as `serve` does
    /// when absent).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Relevance judgements (TREC qrels `qid 0 URL grade`, or the JSON
    /// form): measure the fusion methods and each engine alone on the
    /// recorded answers (`--replay`, else `recordings/` beside the file).
    #[arg(long, conflicts_with_all = ["data", "synth", "queries"])]
    pub qrels: Option<PathBuf>,
    /// With TREC `--qrels`: the queries' texts, `qid<TAB>text[<TAB>intent]`
    /// (default: `NAME.topics.tsv` beside `NAME.qrels`).
    #[arg(long, requires = "qrels")]
    pub topics: Option<PathBuf>,
    /// With `--qrels`: the cut-off of nDCG@k and P@k.
    #[arg(long, default_value_t = judged::DEFAULT_K)]
    pub k: usize,
    /// With `--qrels`: sign flips of the paired randomisation test.
    #[arg(long, default_value_t = judged::DEFAULT_PERMUTATIONS)]
    pub permutations: usize,
    /// With `--qrels`: RRF's `k` values to measure besides `[fusion] k`
    /// (e.g. `1,10,60`).
    #[arg(long, value_delimiter = ',')]
    pub rrf_k: Vec<f64>,
    /// Output folder (optional with `--qrels`: the table is printed).
    #[arg(long, required_unless_present = "qrels")]
    pub out: Option<PathBuf>,
}

fn parse_unit(s: &str) -> Result<Unit, String> {
    match s {
        "char" => Ok(Unit::Char),
        "word" => Ok(Unit::Word),
        _ => Err(format!("unknown unit {s:?} (expected char or word)")),
    }
}

fn unit_str(u: Unit) -> &'static str {
    match u {
        Unit::Char => "char",
        Unit::Word => "word",
    }
}

/// One line family of a sweep: a method with its fixed knobs.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend and CSV label (`feature-code w2 char`, `simhash`, …).
    pub label: String,
    /// The method.
    pub method: Method,
    /// Settings before the swept value is applied.
    pub base: Settings,
}

/// One measured setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The data file's short name.
    pub dataset: String,
    /// The series label.
    pub series: String,
    /// The threshold on the common axis (`None` for `none`).
    pub threshold: Option<f64>,
    /// The full settings used.
    pub settings: Settings,
    /// The counts.
    pub confusion: Confusion,
    /// Wall-clock seconds of this evaluation.
    pub seconds: f64,
}

/// The series to run for the chosen methods, windows and units.
pub fn series(
    methods: &[Method],
    base: &Settings,
    windows: &[usize],
    units: &[Unit],
) -> Vec<Series> {
    let windows = if windows.is_empty() {
        vec![base.window]
    } else {
        windows.to_vec()
    };
    let units = if units.is_empty() {
        vec![base.unit]
    } else {
        units.to_vec()
    };
    let many = windows.len() * units.len() > 1;
    let mut out = Vec::new();
    for &method in methods {
        if method == Method::FeatureCode {
            for &unit in &units {
                for &window in &windows {
                    let label = if many {
                        format!("feature-code w{window} {}", unit_str(unit))
                    } else {
                        "feature-code".to_string()
                    };
                    out.push(Series {
                        label,
                        method,
                        base: Settings {
                            method,
                            window,
                            unit,
                            ..base.clone()
                        },
                    });
                }
            }
        } else {
            out.push(Series {
                label: method.as_str().to_string(),
                method,
                base: Settings {
                    method,
                    ..base.clone()
                },
            });
        }
    }
    out
}

/// The simhash distance standing for threshold `t` on the common axis.
pub fn simhash_distance(t: f64) -> u32 {
    ((1.0 - t.clamp(0.0, 1.0)) * 32.0).round() as u32
}

/// The settings a series uses at threshold `t`.
pub fn settings_at(series: &Series, t: f64, sweep_os: SweepOs) -> Settings {
    let mut s = series.base.clone();
    match series.method {
        Method::FeatureCode => match sweep_os {
            SweepOs::Os1 => s.os1 = t,
            SweepOs::Os2 => s.os2 = t,
        },
        Method::SimHash => s.max_distance = simhash_distance(t),
        Method::Rabin => s.block_threshold = t,
        Method::None => {}
    }
    s
}

/// The (threshold, settings) points of one series.
pub fn points(series: &Series, sweep: &[f64], sweep_os: SweepOs) -> Vec<(Option<f64>, Settings)> {
    match series.method {
        Method::None => vec![(None, series.base.clone())],
        Method::SimHash => {
            // Several thresholds can map to one distance: measure it once.
            let mut seen = Vec::new();
            sweep
                .iter()
                .filter(|&&t| {
                    let d = simhash_distance(t);
                    let new = !seen.contains(&d);
                    seen.push(d);
                    new
                })
                .map(|&t| (Some(t), settings_at(series, t, sweep_os)))
                .collect()
        }
        _ => sweep
            .iter()
            .map(|&t| (Some(t), settings_at(series, t, sweep_os)))
            .collect(),
    }
}

/// Runs every (file, series, threshold) evaluation on `jobs` threads;
/// `tick` is called after each threshold. Pairs are scored once per series
/// and judged at every threshold (their `seconds` is that scoring time plus
/// the judging); record sets are deduplicated afresh at every threshold.
pub fn run_sweep(
    files: &[DataFile],
    series: &[Series],
    sweep: &[f64],
    sweep_os: SweepOs,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Vec<Row> {
    run_sweep_until(
        files,
        series,
        sweep,
        sweep_os,
        jobs,
        tick,
        &std::sync::atomic::AtomicBool::new(false),
    )
}

/// Sweep points evaluated in this process, by every sweep (the tests watch
/// a sweep's progress with it, and with [`ABANDONED_RUNS`]).
pub static POINTS_EVALUATED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Web lab runs stopped because their client went away.
pub static ABANDONED_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// [`run_sweep`] that stops starting evaluations once `stop` is set (the
/// web lab sets it when its client goes away) and returns the rows done.
pub fn run_sweep_until(
    files: &[DataFile],
    series: &[Series],
    sweep: &[f64],
    sweep_os: SweepOs,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Row> {
    let work: Vec<(usize, usize)> = (0..files.len())
        .flat_map(|fi| (0..series.len()).map(move |si| (fi, si)))
        .collect();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Vec<Row>>> = Mutex::new(vec![Vec::new(); work.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(fi, si)) = work.get(i) else {
                        break;
                    };
                    let rows = sweep_one(&files[fi], &series[si], sweep, sweep_os, tick, stop);
                    if let Ok(mut r) = results.lock() {
                        r[i] = rows;
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

fn sweep_one(
    file: &DataFile,
    series: &Series,
    sweep: &[f64],
    sweep_os: SweepOs,
    tick: &(dyn Fn() + Sync),
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Row> {
    let stopped = || stop.load(Ordering::Relaxed);
    let row = |t: Option<f64>, settings: Settings, confusion, seconds| Row {
        dataset: file.name.clone(),
        series: series.label.clone(),
        threshold: t,
        settings,
        confusion,
        seconds,
    };
    let mut rows = Vec::new();
    match &file.data {
        Labeled::Pairs(pairs) => {
            if stopped() {
                return rows;
            }
            let start = Instant::now();
            let scores = metrics::score_pairs(pairs, &series.base);
            let scoring = start.elapsed().as_secs_f64();
            for (t, settings) in points(series, sweep, sweep_os) {
                if stopped() {
                    break;
                }
                let start = Instant::now();
                let c = metrics::confusion_at(pairs, &scores, &settings);
                rows.push(row(t, settings, c, scoring + start.elapsed().as_secs_f64()));
                POINTS_EVALUATED.fetch_add(1, Ordering::Relaxed);
                tick();
            }
        }
        Labeled::Sets(sets) => {
            for (t, settings) in points(series, sweep, sweep_os) {
                if stopped() {
                    break;
                }
                let start = Instant::now();
                let c = metrics::evaluate_sets(sets, &settings);
                rows.push(row(t, settings, c, start.elapsed().as_secs_f64()));
                POINTS_EVALUATED.fetch_add(1, Ordering::Relaxed);
                tick();
            }
        }
    }
    rows
}

/// The plot panels, one per data file.
pub fn panels(files: &[DataFile], series: &[Series], rows: &[Row]) -> Vec<plot::Panel> {
    files
        .iter()
        .map(|f| plot::Panel {
            title: f.name.clone(),
            curves: series
                .iter()
                .map(|s| plot::Curve {
                    label: s.label.clone(),
                    points: rows
                        .iter()
                        .filter(|r| r.dataset == f.name && r.series == s.label)
                        .map(|r| (r.threshold.unwrap_or(0.0), r.confusion))
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), LabError> {
    std::fs::write(path, bytes).map_err(|source| LabError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl LabArgs {
    /// The values these arguments lay over the configured `[dedup]` (the
    /// first `--window`; the others are series of their own).
    pub fn patch(&self) -> SettingsPatch {
        SettingsPatch {
            os1: self.os1,
            os2: self.os2,
            min_codes: self.min_codes,
            word_anchors: self.word_anchors,
            window: self.window.first().copied(),
            ..SettingsPatch::default()
        }
    }
}

/// `--qrels`: the fusion methods measured on judged queries; the table
/// printed, the files written to `--out` when given.
fn run_judged(
    args: &LabArgs,
    qrels: &Path,
    config: &crate::config::Config,
) -> Result<(), LabError> {
    let opts = judged::Options {
        k: args.k,
        permutations: args.permutations,
        seed: args.seed,
        rrf_k: args.rrf_k.clone(),
    };
    opts.check()?;
    let set = qrels::load(qrels, args.topics.as_deref())?;
    let replay = args
        .replay
        .clone()
        .unwrap_or_else(|| judged::recordings_beside(qrels));
    let answered = judged::gather(config, &replay, &set.topics)?;
    let evaluation = judged::evaluate(
        &set.topics,
        &answered,
        &args.patch().over(&config.dedup),
        &config.fusion,
        &opts,
    );
    print!("{}", judged::summary(&evaluation, &set));
    if let Some(out) = &args.out {
        for path in judged::write(&evaluation, &set, out)? {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Runs the command over `config` (its `[dedup]` under the flags; with
/// `--queries`, its engines).
pub fn run(args: &LabArgs, config: &crate::config::Config) -> Result<(), LabError> {
    if let Some(qrels) = &args.qrels {
        return run_judged(args, qrels, config);
    }
    if args.data.is_empty() && args.synth.is_empty() && args.queries.is_none() {
        return Err(LabError::BadArgument(
            "nothing to measure: give --data FILE, --synth CORPUS, --queries FILE or --qrels FILE"
                .into(),
        ));
    }
    let out = args
        .out
        .as_deref()
        .ok_or_else(|| LabError::BadArgument("--out DIR is needed".into()))?;
    let sweep = parse_sweep(&args.sweep)?;
    if !(0.0..=1.0).contains(&args.precision_floor) {
        return Err(LabError::BadArgument(format!(
            "--precision-floor {}: must be between 0 and 1",
            args.precision_floor
        )));
    }
    let sweep_os = if args.title_equal {
        SweepOs::Os1
    } else {
        args.sweep_os
    };
    let base = args.patch().over(&config.dedup);
    for &w in &args.window {
        let s = Settings {
            window: w,
            ..base.clone()
        };
        s.validate()
            .map_err(|(field, why)| LabError::BadArgument(format!("--{field}: {why}")))?;
    }
    base.validate()
        .map_err(|(field, why)| LabError::BadArgument(format!("--{field}: {why}")))?;
    std::fs::create_dir_all(out).map_err(|source| LabError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    if let Some(queries) = &args.queries {
        let written = queries::run(&queries::QueriesRun {
            queries,
            config,
            replay: args.replay.as_deref(),
            methods: &args.methods,
            sweep: &sweep,
            sweep_os,
            base: base.clone(),
            out,
        })?;
        for path in written {
            eprintln!("wrote {}", path.display());
        }
        return Ok(());
    }

    let opts = LoadOptions {
        title_equal: args.title_equal,
        limit: args.limit,
    };
    let mut files = Vec::new();
    for corpus in &args.synth {
        let data_root = match (&args.data_root, corpus) {
            (Some(dir), _) => dir.clone(),
            (None, synth::Corpus::Sample) => PathBuf::new(),
            (None, _) => metasift_data::root().ok_or_else(|| {
                LabError::BadArgument(format!(
                    "--synth {corpus}: {}; or give --data-root DIR, or use --synth sample",
                    metasift_data::ABSENT
                ))
            })?,
        };
        let records = synth::generate(
            *corpus,
            &data_root,
            synth::SynthOptions {
                seed: args.seed,
                sets: args.limit,
            },
        )?;
        let path = out.join(format!("synth-{corpus}.jsonl"));
        let mut buf = Vec::new();
        synth::write_jsonl(&records, &mut buf).map_err(|source| LabError::Io {
            path: path.clone(),
            source,
        })?;
        write_file(&path, &buf)?;
        eprintln!("wrote {} records to {}", records.len(), path.display());
        files.push(data::load(&path, opts)?);
    }
    for path in &args.data {
        files.push(data::load(path, opts)?);
    }
    for f in &files {
        for e in &f.bad_lines {
            eprintln!("{e}");
        }
        if !f.bad_lines.is_empty() || f.dropped > 0 {
            eprintln!(
                "{}: {} bad lines skipped, {} rows dropped (middle band or unlabeled)",
                f.path.display(),
                f.bad_lines.len(),
                f.dropped
            );
        }
    }
    if let Some(f) = files.iter().find(|f| f.data.pair_count() == 0) {
        return Err(LabError::NoPairs {
            path: f.path.clone(),
            bad: f.bad_lines.len(),
            dropped: f.dropped,
        });
    }

    let methods = if args.methods.is_empty() {
        Method::ALL.to_vec()
    } else {
        args.methods.clone()
    };
    let series = series(&methods, &base, &args.window, &args.unit);
    let total: usize = files.len()
        * series
            .iter()
            .map(|s| points(s, &sweep, sweep_os).len())
            .sum::<usize>();
    let bar = indicatif::ProgressBar::new(total as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} settings  {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let rows = run_sweep(&files, &series, &sweep, sweep_os, jobs, &|| bar.inc(1));
    bar.finish_and_clear();

    let csv_path = out.join("results.csv");
    let mut buf = Vec::new();
    write_csv(&rows, &mut buf).map_err(|e| LabError::Io {
        path: csv_path.clone(),
        source: std::io::Error::other(e),
    })?;
    write_file(&csv_path, &buf)?;
    let x_label = match sweep_os {
        SweepOs::Os1 => {
            "threshold (feature-code os1, rabin block_threshold; simhash distance = (1-t)*32)"
        }
        SweepOs::Os2 => {
            "threshold (feature-code os2, rabin block_threshold; simhash distance = (1-t)*32)"
        }
    };
    let svg = plot::svg(
        &panels(&files, &series, &rows),
        x_label,
        Some(args.precision_floor),
    );
    write_file(&out.join("plot.svg"), svg.as_bytes())?;
    // A build without the `png` feature writes the SVG alone.
    #[cfg(feature = "png")]
    write_file(
        &out.join("plot.png"),
        &plot::png(&svg).map_err(LabError::Plot)?,
    )?;
    let md = report(&files, &rows, &args.sweep, sweep_os, args.precision_floor);
    write_file(&out.join("report.md"), md.as_bytes())?;
    eprintln!("{}", md.trim_end());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_parses_and_rounds() {
        assert_eq!(parse_sweep("0.1:0.3:0.1").unwrap(), [0.1, 0.2, 0.3]);
        assert_eq!(parse_sweep("0.5:1:0.25").unwrap(), [0.5, 0.75, 1.0]);
        assert!(parse_sweep("0.5:0.1:0.1").is_err());
        // Counted after rounding, before allocating.
        assert_eq!(sweep_points(0.0, 1.0, 0.0204, 50).unwrap().len(), 50);
        assert_eq!(sweep_points(0.0, 1.0, 0.02, 51).unwrap().len(), 51);
        let e = sweep_points(0.0, 1.0, 0.02, 50).unwrap_err();
        assert!(e.contains("is 51 thresholds; at most 50"), "{e}");
        let e = parse_sweep("0:1:1e-9").unwrap_err().to_string();
        assert!(e.contains("below 0.000001"), "{e}");
        let e = parse_sweep("0:1:0.00001").unwrap_err().to_string();
        assert!(e.contains("is 100001 thresholds; at most 1000"), "{e}");
        assert!(parse_sweep("0:1:NaN").is_err());
        assert!(parse_sweep("0:inf:0.1").is_err());
        assert!(parse_sweep("0:1:0").is_err());
        assert!(parse_sweep("a:b").is_err());
    }

    #[test]
    fn series_expand_windows_and_units_for_feature_code_only() {
        let s = series(
            &[Method::FeatureCode, Method::SimHash],
            &Settings::default(),
            &[1, 2],
            &[Unit::Char, Unit::Word],
        );
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "feature-code w1 char",
                "feature-code w2 char",
                "feature-code w1 word",
                "feature-code w2 word",
                "simhash"
            ]
        );
    }

    #[test]
    fn simhash_points_are_distinct_distances() {
        let s = &series(&[Method::SimHash], &Settings::default(), &[], &[])[0];
        let pts = points(s, &parse_sweep("0:1:0.01").unwrap(), SweepOs::Os2);
        let mut d: Vec<u32> = pts.iter().map(|p| p.1.max_distance).collect();
        let n = d.len();
        d.dedup();
        assert_eq!(d.len(), n);
        assert_eq!(d.first(), Some(&32));
        assert_eq!(d.last(), Some(&0));
    }
}
