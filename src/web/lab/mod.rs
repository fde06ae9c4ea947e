//! `/lab`: the researcher's bench in the browser.
//!
//! The same sweep as `metasift lab` ([`crate::lab`]), on one labeled data set
//! at a time: a file from the configured `[lab] data_dir` (listed, never a
//! path outside it) or an upload (a file or pasted text, TSV pairs or JSON
//! Lines). The answer is the lab's own SVG chart inline in the page, the
//! trivial baselines, the best setting per method under a precision floor
//! (the form's `floor`, by default `[lab] precision_floor`), one table per
//! method of every measured setting ([`view`]: the columns of
//! `results.csv` that apply to the method, with the same rounding) and a
//! link to `results.csv`.
//!
//! Everything a user can send wrong is refused *before* any work starts, with
//! the reason on the page: a body over [`MAX_UPLOAD`] (413), a binary file or
//! an image (415), a file in no labeled layout or with no usable line (422),
//! more than [`MAX_ITEMS`] pairs or records or more than [`MAX_PAIRS`]
//! record pairs to compare per setting (413), a sweep with a step ≤ 0 or
//! more than [`MAX_POINTS`] points (400). The sweep itself runs on the
//! blocking pool, at most [`MAX_RUNS`] at a time; one more gets a 503 saying
//! so rather than a queue that grows with every impatient reload. A client
//! that goes away stops its sweep (at the next setting), and each client
//! may start `[limits] lab_per_minute` sweeps a minute (429 beyond).
//!
//! Results are kept in memory for a while ([`kept`]) under a
//! random id, which is what the `results.csv` link names: an upload cannot be
//! recomputed from a URL.

mod fusion;
mod kept;
mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use askama::Template;
use axum::extract::{FromRequest, Multipart, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::i18n::Tr;
use super::ui::{Layout, Msg, Ui};
use crate::lab::{self, SweepOs, data};
pub(super) use fusion::lab_fusion;
pub(super) use kept::results_csv;
use kept::{keep, rand_id};
use metasift_dedup::{Method, Settings};
use view::RunView;

/// Largest upload, in bytes.
pub(super) const MAX_UPLOAD: usize = 2 * 1024 * 1024;
/// Largest request body of `POST /lab`: the upload plus the form around it.
pub(super) const MAX_BODY: usize = MAX_UPLOAD + 64 * 1024;
/// Most labeled pairs (or records of record sets) one run judges.
pub(super) const MAX_ITEMS: u64 = 20_000;
/// Most thresholds in one sweep.
pub(super) const MAX_POINTS: usize = 50;
/// Most record pairs one setting compares: a record set of `n` records is
/// `n(n-1)/2` pairs, so the cap on records alone let one set of 20,000
/// cost 2×10⁸ comparisons (seconds of CPU) per setting. About 50 ms a
/// setting at this cap.
pub(super) const MAX_PAIRS: u64 = 2_000_000;
/// Lab runs at once; the machine also has searches to answer.
pub(super) const MAX_RUNS: usize = 2;

static RUNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_RUNS);

/// What the form asked for.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LabForm {
    /// A file name from the data folder.
    pub file: String,
    /// The uploaded (or pasted) text's name and bytes.
    pub upload: Option<(String, Vec<u8>)>,
    /// The pasted text as sent, shown again in the form after a run.
    pub text: String,
    /// Methods to compare.
    pub methods: Vec<Method>,
    /// Sweep start.
    pub from: String,
    /// Sweep end.
    pub to: String,
    /// Sweep step.
    pub step: String,
    /// Which feature-code threshold moves.
    pub sweep_os: SweepOs,
    /// The precision floor of the best setting (empty: `[lab]
    /// precision_floor`).
    pub floor: String,
}

impl Default for LabForm {
    fn default() -> Self {
        LabForm {
            file: String::new(),
            upload: None,
            text: String::new(),
            methods: Method::ALL.to_vec(),
            from: "0.1".into(),
            to: "1".into(),
            step: "0.05".into(),
            sweep_os: SweepOs::Os2,
            floor: String::new(),
        }
    }
}

/// A refusal: the status and the sentence shown above the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refusal {
    /// HTTP status.
    pub status: StatusCode,
    /// What is wrong and what to do.
    pub message: Msg,
}

fn refuse(status: StatusCode, message: Msg) -> Refusal {
    Refusal { status, message }
}

impl LabForm {
    /// Reads one form field; `method` fields accumulate.
    fn set(&mut self, key: &str, value: &str, methods_seen: &mut bool) -> Result<(), Refusal> {
        match key {
            "file" => self.file = value.trim().to_string(),
            "from" => self.from = value.trim().to_string(),
            "to" => self.to = value.trim().to_string(),
            "step" => self.step = value.trim().to_string(),
            "floor" => self.floor = value.trim().to_string(),
            "sweep_os" => {
                self.sweep_os = match value {
                    "os1" => SweepOs::Os1,
                    "os2" => SweepOs::Os2,
                    _ => {
                        return Err(refuse(
                            StatusCode::BAD_REQUEST,
                            Msg::new("lab-err-sweep-os").arg("value", format!("{value:?}")),
                        ));
                    }
                }
            }
            "method" => {
                if !*methods_seen {
                    self.methods.clear();
                    *methods_seen = true;
                }
                let m: Method = value.parse().map_err(|_| {
                    refuse(
                        StatusCode::BAD_REQUEST,
                        Msg::new("lab-err-method").arg("value", format!("{value:?}")),
                    )
                })?;
                if !self.methods.contains(&m) {
                    self.methods.push(m);
                }
            }
            // A file upload wins over pasted text.
            "text" => {
                self.text = value.to_string();
                if !value.trim().is_empty() && self.upload.is_none() {
                    self.upload = Some(("pasted.txt".into(), value.as_bytes().to_vec()));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The form from a query string or an urlencoded body.
    pub(super) fn from_urlencoded(raw: &[u8]) -> Result<LabForm, Refusal> {
        let mut form = LabForm::default();
        let mut seen = false;
        for (k, v) in url::form_urlencoded::parse(raw) {
            form.set(&k, &v, &mut seen)?;
        }
        Ok(form)
    }

    /// The thresholds, validated.
    pub(super) fn sweep(&self) -> Result<Vec<f64>, Refusal> {
        let num = |name: &str, v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    refuse(
                        StatusCode::BAD_REQUEST,
                        Msg::new("lab-err-not-number")
                            .arg("name", name)
                            .arg("value", format!("{v:?}")),
                    )
                })
        };
        let (from, to, step) = (
            num("from", &self.from)?,
            num("to", &self.to)?,
            num("step", &self.step)?,
        );
        if step <= 0.0 {
            return Err(refuse(StatusCode::BAD_REQUEST, Msg::new("lab-err-step")));
        }
        if !(0.0..=1.0).contains(&from) || !(0.0..=1.0).contains(&to) || from > to {
            return Err(refuse(StatusCode::BAD_REQUEST, Msg::new("lab-err-range")));
        }
        lab::sweep_points(from, to, step, MAX_POINTS).map_err(|why| {
            refuse(
                StatusCode::BAD_REQUEST,
                Msg::new("lab-err-sweep").arg("detail", why),
            )
        })
    }

    /// The precision floor: the form's, else `default`; refused unless a
    /// number from 0 to 1.
    pub(super) fn floor(&self, default: f64) -> Result<f64, Refusal> {
        if self.floor.is_empty() {
            return Ok(default);
        }
        self.floor
            .parse::<f64>()
            .ok()
            .filter(|f| (0.0..=1.0).contains(f))
            .ok_or_else(|| {
                refuse(
                    StatusCode::BAD_REQUEST,
                    Msg::new("lab-err-floor").arg("value", format!("{:?}", self.floor)),
                )
            })
    }

    /// The sweep as `metasift lab --sweep` writes it.
    pub(super) fn sweep_text(&self) -> String {
        format!("{}:{}:{}", self.from, self.to, self.step)
    }
}

/// A data file offered by the data folder.
#[derive(Debug, Clone)]
pub(super) struct DataChoice {
    /// Its file name (what the form sends).
    pub name: String,
    /// Its size, for the list.
    pub size: String,
    /// Whether the form has it selected.
    pub selected: bool,
}

/// The `*.tsv` / `*.jsonl` files directly in `dir`, sorted by name.
pub(super) fn list_data(dir: &Path) -> Vec<(String, u64)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, u64)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let meta = e.metadata().ok()?;
            let ok = meta.is_file() && (name.ends_with(".tsv") || name.ends_with(".jsonl"));
            ok.then_some((name, meta.len()))
        })
        .collect();
    out.sort();
    out
}

/// The path of `name` in `dir`, only if it is one of the listed files and,
/// once symlinks are resolved, still inside `dir`.
pub(super) fn resolve_data(dir: &Path, name: &str) -> Result<PathBuf, Refusal> {
    let missing = || {
        refuse(
            StatusCode::NOT_FOUND,
            Msg::new("lab-err-not-offered").arg("name", format!("{name:?}")),
        )
    };
    if !list_data(dir).iter().any(|(n, _)| n == name) {
        return Err(missing());
    }
    let root = dir.canonicalize().map_err(|_| missing())?;
    let path = root.join(name).canonicalize().map_err(|_| missing())?;
    if !path.starts_with(&root) {
        return Err(missing());
    }
    Ok(path)
}

fn human_size(n: u64) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    } else if n >= 1024 {
        format!("{:.0} KB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// Why `bytes` cannot be labeled text, if it cannot.
pub(super) fn sniff(bytes: &[u8]) -> Option<Msg> {
    const MAGIC: [(&[u8], &str); 8] = [
        (b"\x89PNG", "lab-kind-png"),
        (b"\xff\xd8\xff", "lab-kind-jpeg"),
        (b"GIF8", "lab-kind-gif"),
        (b"RIFF", "lab-kind-riff"),
        (b"%PDF", "lab-kind-pdf"),
        (b"PK\x03\x04", "lab-kind-zip"),
        (b"\x1f\x8b", "lab-kind-gzip"),
        (b"BM", "lab-kind-bmp"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(Msg::new("lab-err-magic").arg_key("what", what));
    }
    if bytes.contains(&0) {
        return Some(Msg::new("lab-err-binary"));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Some(Msg::new("lab-err-utf8").arg("n", e.valid_up_to()));
    }
    None
}

/// Loads uploaded bytes, refusing anything that is not labeled text.
pub(super) fn load_upload(name: &str, bytes: &[u8]) -> Result<data::DataFile, Refusal> {
    if bytes.len() > MAX_UPLOAD {
        return Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            Msg::new("lab-err-upload-size")
                .arg("size", human_size(bytes.len() as u64))
                .arg("max", human_size(MAX_UPLOAD as u64)),
        ));
    }
    if let Some(why) = sniff(bytes) {
        return Err(refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, why));
    }
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    check_loaded(data::load_str(
        text,
        Path::new(name),
        data::LoadOptions::default(),
    ))
}

fn check_loaded(loaded: Result<data::DataFile, lab::LabError>) -> Result<data::DataFile, Refusal> {
    let file = loaded.map_err(|e| {
        refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            Msg::new("lab-err-load").arg("detail", e),
        )
    })?;
    let items = match &file.data {
        data::Labeled::Pairs(p) => p.len() as u64,
        data::Labeled::Sets(s) => s.iter().map(|s| s.records.len() as u64).sum(),
    };
    if items == 0 {
        let msg = match file.bad_lines.first() {
            Some(e) => Msg::new("lab-err-no-usable-first").arg("first", e),
            None => Msg::new("lab-err-no-usable"),
        };
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            msg.arg("file", file.path.display())
                .arg("bad", file.bad_lines.len())
                .arg("dropped", file.dropped),
        ));
    }
    if items > MAX_ITEMS {
        return Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            Msg::new("lab-err-too-many-items")
                .arg("file", file.path.display())
                .arg("n", items)
                .arg("max", MAX_ITEMS),
        ));
    }
    let pairs = file.data.pair_count();
    if pairs > MAX_PAIRS {
        let largest = match &file.data {
            data::Labeled::Sets(sets) => sets.iter().max_by_key(|s| s.pair_count()),
            data::Labeled::Pairs(_) => None,
        };
        let msg = match largest {
            Some(set) => Msg::new("lab-err-too-many-pairs-set")
                .arg("query", format!("{:?}", set.query))
                .arg("records", set.records.len())
                .arg("pairs", set.pair_count()),
            None => Msg::new("lab-err-too-many-pairs"),
        };
        return Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            msg.arg("file", file.path.display())
                .arg("n", pairs)
                .arg("max", MAX_PAIRS),
        ));
    }
    Ok(file)
}

/// `GET /lab` / `POST /lab`.
#[derive(Template)]
#[template(path = "lab.html")]
pub(super) struct LabPage {
    /// Frame.
    pub layout: Layout,
    /// Data folder files.
    pub files: Vec<DataChoice>,
    /// Whether a data folder is configured.
    pub has_dir: bool,
    /// The methods, with whether each is ticked.
    pub methods: Vec<(&'static str, bool)>,
    /// Range fields.
    pub from: String,
    /// Range end.
    pub to: String,
    /// Range step.
    pub step: String,
    /// Whether `os1` is the swept threshold.
    pub sweep_os1: bool,
    /// The precision floor field.
    pub floor: String,
    /// A refusal shown above the form, in the reader's language.
    pub error: Option<String>,
    /// The reader's language.
    pub tr: Tr,
    /// The results.
    pub run: Option<RunView>,
    /// Limits, for the help text.
    pub max_upload: String,
    /// Most pairs.
    pub max_items: u64,
    /// Most points.
    pub max_points: usize,
    /// The pasted text, kept in its box.
    pub text: String,
}

impl LabPage {
    /// The upload's label: "Or upload…" follows the data folder's list
    /// only when there is one.
    fn upload_label(&self) -> String {
        let key = if self.has_dir {
            "lab-upload-label"
        } else {
            "lab-upload-only-label"
        };
        self.tr.with(
            key,
            &[
                ("size", self.max_upload.clone()),
                ("n", self.tr.number(self.max_items)),
            ],
        )
    }
}

fn page(state: &AppState, form: &LabForm, error: Option<&Msg>, run: Option<RunView>) -> LabPage {
    // The reader's language, kept by the router's layer.
    let ui: Ui = super::error::reader();
    let searcher = state.searcher();
    let dir = searcher.config().lab.data_dir.clone();
    let files = dir
        .as_deref()
        .map(list_data)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, size)| DataChoice {
            selected: name == form.file,
            size: human_size(size),
            name,
        })
        .collect();
    LabPage {
        layout: Layout::of(&ui.tr.t("lab-title"), &ui),
        files,
        has_dir: dir.is_some(),
        methods: Method::ALL
            .iter()
            .map(|m| (m.as_str(), form.methods.contains(m)))
            .collect(),
        from: form.from.clone(),
        to: form.to.clone(),
        step: form.step.clone(),
        sweep_os1: form.sweep_os == SweepOs::Os1,
        floor: if form.floor.is_empty() {
            format!("{}", searcher.config().lab.precision_floor)
        } else {
            form.floor.clone()
        },
        error: error.map(|m| m.text(&ui.tr)),
        tr: ui.tr.clone(),
        run,
        max_upload: human_size(MAX_UPLOAD as u64),
        max_items: MAX_ITEMS,
        max_points: MAX_POINTS,
        text: form.text.clone(),
    }
}

fn render(status: StatusCode, page: LabPage) -> Response {
    match page.render() {
        Ok(body) => (
            status,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "private, no-store"),
            ],
            body,
        )
            .into_response(),
        Err(e) => super::AppError::from(e).into_response(),
    }
}

fn refused(state: &AppState, form: &LabForm, r: Refusal) -> Response {
    let mut resp = render(r.status, page(state, form, Some(&r.message), None));
    if r.status == StatusCode::SERVICE_UNAVAILABLE {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
    }
    resp
}

/// The rows of one sweep, computed as `metasift lab` computes them;
/// stops when `stop` is set (the client went away).
fn sweep_rows(
    file: &data::DataFile,
    base: &Settings,
    methods: &[Method],
    sweep: &[f64],
    sweep_os: SweepOs,
    stop: &AtomicBool,
) -> (Vec<lab::Series>, Vec<lab::Row>) {
    let series = lab::series(methods, base, &[], &[]);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_RUNS));
    let rows = lab::run_sweep_until(
        std::slice::from_ref(file),
        &series,
        sweep,
        sweep_os,
        jobs,
        &|| {},
        stop,
    );
    (series, rows)
}

/// Sets its flag when dropped: held by the request's future, so a client
/// that goes away (the future is dropped) stops the sweep it started.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

async fn run(
    state: &AppState,
    form: &LabForm,
    file: data::DataFile,
    sweep: Vec<f64>,
) -> Result<RunView, Refusal> {
    let Ok(permit) = RUNS.try_acquire() else {
        return Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            Msg::new("lab-err-busy").arg("n", MAX_RUNS),
        ));
    };
    let config = state.searcher().config().clone();
    let base = config.dedup.clone();
    let floor = form.floor(config.lab.precision_floor)?;
    let methods = form.methods.clone();
    let sweep_os = form.sweep_os;
    let sweep_text = form.sweep_text();
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_when_gone = StopOnDrop(stop.clone());
    let tr = super::error::reader().tr;
    let view = tokio::task::spawn_blocking(move || {
        // The slot is held as long as the work runs, even when the client
        // has gone and the request's future with it.
        let _permit = permit;
        let (series, rows) = sweep_rows(&file, &base, &methods, &sweep, sweep_os, &stop);
        if stop.load(Ordering::Relaxed) {
            lab::ABANDONED_RUNS.fetch_add(1, Ordering::Relaxed);
        }
        let x_label = tr.s(
            "lab-chart-x",
            "os",
            match sweep_os {
                SweepOs::Os1 => "os1",
                SweepOs::Os2 => "os2",
            },
        );
        let labels = lab::plot::Labels {
            x: x_label,
            precision: tr.t("lab-col-precision"),
            recall: tr.t("lab-col-recall"),
            f1: tr.t("lab-chart-f1"),
            floor: tr.t("lab-chart-floor"),
        };
        let svg = lab::plot::svg_with(
            &lab::panels(std::slice::from_ref(&file), &series, &rows),
            &labels,
            Some(floor),
        );
        let mut csv = Vec::new();
        let _ = lab::write_csv(&rows, &mut csv);
        let id = format!("{:016x}", rand_id());
        keep(&id, String::from_utf8(csv).unwrap_or_default());
        RunView {
            svg,
            csv_href: format!("/lab/results.csv?id={id}"),
            sweep: sweep_text,
            ..view::run_view(&file, &series, &rows, floor, sweep_os, &tr)
        }
    })
    .await;
    view.map_err(|_| {
        refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            Msg::new("lab-err-failed"),
        )
    })
}

/// Loads the form's data set: the upload if there is one, else the named
/// file of the data folder.
fn data_of(state: &AppState, form: &LabForm) -> Result<data::DataFile, Refusal> {
    if let Some((name, bytes)) = &form.upload {
        return load_upload(name, bytes);
    }
    if form.file.is_empty() {
        return Err(refuse(StatusCode::BAD_REQUEST, Msg::new("lab-err-choose")));
    }
    let searcher = state.searcher();
    let Some(dir) = searcher.config().lab.data_dir.as_deref() else {
        return Err(refuse(StatusCode::NOT_FOUND, Msg::new("lab-err-no-dir")));
    };
    let path = resolve_data(dir, &form.file)?;
    // Files an admin put there are trusted to be text, but not to be small.
    let text = crate::files::read_capped(&path, crate::files::MAX_DATA_BYTES).map_err(|e| {
        refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            Msg::new("lab-err-read")
                .arg("file", &form.file)
                .arg("detail", e),
        )
    })?;
    let name = dir.join(&form.file);
    check_loaded(data::load_str(
        &text,
        &name,
        data::LoadOptions {
            limit: MAX_ITEMS as usize,
            ..Default::default()
        },
    ))
}

async fn answer(state: &AppState, form: LabForm) -> Response {
    let prepared = form.sweep().and_then(|sweep| {
        if form.methods.is_empty() {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                Msg::new("lab-err-no-method"),
            ));
        }
        Ok((data_of(state, &form)?, sweep))
    });
    let (file, sweep) = match prepared {
        Ok(p) => p,
        Err(r) => return refused(state, &form, r),
    };
    match run(state, &form, file, sweep).await {
        Ok(view) => render(StatusCode::OK, page(state, &form, None, Some(view))),
        Err(r) => refused(state, &form, r),
    }
}

/// `GET /lab[?file=…&method=…&from=…&to=…&step=…]`: the form, and the sweep
/// of a data folder file when one is named.
pub(super) async fn lab_get(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let raw = raw.unwrap_or_default();
    let form = match LabForm::from_urlencoded(raw.as_bytes()) {
        Ok(f) => f,
        Err(r) => return refused(&state, &LabForm::default(), r),
    };
    if form.file.is_empty() {
        return render(StatusCode::OK, page(&state, &form, None, None));
    }
    answer(&state, form).await
}

/// `POST /lab`: a multipart form with an `upload` file, or an urlencoded one
/// with pasted `text`; either may name a data folder `file` instead.
pub(super) async fn lab_post(State(state): State<AppState>, req: Request) -> Response {
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let form = if multipart {
        match Multipart::from_request(req, &state).await {
            Ok(m) => read_multipart(m).await,
            Err(e) => Err(refuse(
                e.status(),
                Msg::new("lab-err-form").arg("detail", e.body_text()),
            )),
        }
    } else {
        match axum::body::Bytes::from_request(req, &state).await {
            Ok(body) => LabForm::from_urlencoded(&body),
            Err(e) => Err(too_large_or(e.status(), e.body_text())),
        }
    };
    match form {
        Ok(form) => answer(&state, form).await,
        Err(r) => refused(&state, &LabForm::default(), r),
    }
}

fn too_large_or(status: StatusCode, text: String) -> Refusal {
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        refuse(
            status,
            Msg::new("lab-err-upload-too-large").arg("max", human_size(MAX_UPLOAD as u64)),
        )
    } else {
        refuse(status, Msg::new("lab-err-form").arg("detail", text))
    }
}

async fn read_multipart(mut m: Multipart) -> Result<LabForm, Refusal> {
    let mut form = LabForm::default();
    let mut seen = false;
    loop {
        let field = match m.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => return Err(too_large_or(e.status(), e.body_text())),
        };
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = field
            .bytes()
            .await
            .map_err(|e| too_large_or(e.status(), e.body_text()))?;
        if name == "upload" {
            // A file input left empty still sends a part, with no name.
            if !bytes.is_empty() {
                let file_name = file_name
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| "upload".into());
                // Only the last path component, whatever a browser sends.
                let base = file_name
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or("upload")
                    .to_string();
                form.upload = Some((base, bytes.to_vec()));
            }
        } else {
            let text = String::from_utf8_lossy(&bytes);
            form.set(&name, &text, &mut seen)?;
        }
    }
    Ok(form)
}
