//! `metasift dedup`: JSON Lines in, one verdict per record out, streaming.
//!
//! Input, one record per line: `{"id": str|int, "url", "title", "snippet"}`
//! plus optional `"engine"`, `"position"` and `"query"` (other fields are
//! ignored). Output, one line per good input record, in input order:
//! `{"id", "cluster", "stage", "similarity"}` — `id` and `cluster` keep the
//! JSON type the input gave the id. With `--unique` only kept records are
//! written, each as its whole input line.
//!
//! The input is read line by line as bytes, so invalid UTF-8 is one bad
//! line, not the end of the run; output goes through a `BufWriter`. With
//! `--threads` other than 1 (the default is one per core) worker threads
//! parse and prepare batches of lines while the main thread decides and
//! writes ([`parallel`]); the one-thread loop ([`process`]) is the reference
//! it is tested against, byte for byte. `--stats` reports wall-clock and CPU seconds (so a run on
//! a busy machine still shows the work done) and the peak resident memory
//! (`VmHWM`). Nothing of a record but what the [`Deduper`] keeps (codes,
//! hashes) and the id of a kept record (to name clusters) outlives its line.
//!
//! Bad lines — invalid UTF-8 or JSON, a missing field, a wrong type — are
//! reported on stderr as `line N: what` and skipped; blank lines are skipped
//! silently. The exit code is `0` when every line was good and `1` when some
//! were bad (the rest is processed all the same); an I/O error stops the run
//! with an error.
//!
//! With `--url-filter bloom` a URL duplicate's kept record is unknown, so its
//! `cluster` is `null` (stage `"url"`). With `--url-filter bloom --method
//! none` no id is kept at all, which is how 10 million records fit in a few
//! tens of megabytes.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use metasift_dedup::UrlFilter;
use metasift_dedup::{Deduper, Doc, Method, Settings, SettingsPatch, Stage, Unit, Verdict};

mod parallel;

/// Arguments of `metasift dedup`.
#[derive(Debug, Clone, clap::Args)]
pub struct DedupArgs {
    /// Input JSON Lines file, `-` for standard input.
    #[arg(long, default_value = "-")]
    pub input: PathBuf,
    /// Output file, `-` for standard output.
    #[arg(long, default_value = "-")]
    pub output: PathBuf,
    /// The configuration whose `[dedup]` the flags below are laid over
    /// (looked for as `serve` does when absent).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Snippet method: feature-code, simhash, rabin or none (URL only).
    #[arg(long)]
    pub method: Option<Method>,
    /// Snippet similarity threshold when normalized titles are equal.
    #[arg(long)]
    pub os1: Option<f64>,
    /// Snippet similarity threshold when titles differ.
    #[arg(long)]
    pub os2: Option<f64>,
    /// Units taken on each side of a punctuation anchor.
    #[arg(long)]
    pub window: Option<usize>,
    /// Unit of CJK text: char or word (jieba).
    #[arg(long, value_parser = ["char", "word"])]
    pub unit: Option<String>,
    /// SimHash: largest Hamming distance counted a duplicate.
    #[arg(long)]
    pub max_distance: Option<u32>,
    /// Rabin: smallest share of equal blocks counted a duplicate.
    #[arg(long)]
    pub block_threshold: Option<f64>,
    /// Fewest codes a snippet needs before a match between different titles counts.
    #[arg(long)]
    pub min_codes: Option<usize>,
    /// About one word pair in N (outside CJK text) is an extra content-defined anchor; 0 = off.
    #[arg(long)]
    pub word_anchors: Option<usize>,
    /// Write only the kept records (each as its whole input line).
    #[arg(long)]
    pub unique: bool,
    /// Print a JSON summary on stderr at the end.
    #[arg(long)]
    pub stats: bool,
    /// How URL keys are remembered: exact (a map) or bloom (a scalable Bloom filter).
    #[arg(long, default_value = "exact", value_parser = ["exact", "bloom"])]
    pub url_filter: String,
    /// Bloom filter: overall false-positive rate.
    #[arg(long, default_value_t = 0.01)]
    pub bloom_fpr: f64,
    /// Bloom filter: number of records expected (it grows past it).
    #[arg(long, default_value_t = 1_000_000)]
    pub expected: u64,
    /// Threads that parse and prepare records while the main thread decides
    /// and writes (0: one per core; 1: no such thread, the one-thread loop).
    /// The output is the same whatever the number.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

impl DedupArgs {
    /// The values these arguments lay over the configured `[dedup]`.
    pub fn patch(&self) -> SettingsPatch {
        SettingsPatch {
            method: self.method,
            os1: self.os1,
            os2: self.os2,
            window: self.window,
            unit: self.unit.as_deref().map(|u| match u {
                "word" => Unit::Word,
                _ => Unit::Char,
            }),
            max_distance: self.max_distance,
            block_threshold: self.block_threshold,
            min_codes: self.min_codes,
            word_anchors: self.word_anchors,
            boilerplate_titles: None,
        }
    }

    /// The dedup settings these arguments ask for: `configured` (the
    /// configuration's `[dedup]`) with the flags laid over it.
    pub fn settings(&self, configured: &Settings) -> Settings {
        self.patch().over(configured)
    }
}

/// A record id as the input gave it.
#[derive(Debug)]
enum Id<'a> {
    Int(i64),
    UInt(u64),
    Str(Cow<'a, str>),
}

impl Id<'_> {
    /// Writes the id as JSON.
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Id::Int(i) => out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes()),
            Id::UInt(u) => out.extend_from_slice(itoa::Buffer::new().format(*u).as_bytes()),
            Id::Str(s) => {
                // Serializing a str into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, s.as_ref());
            }
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Id<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Id<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id<'a>, E> {
                Ok(Id::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id<'a>, E> {
                Ok(Id::UInt(v))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Id<'a>, E> {
                Ok(Id::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Id<'a>, E> {
                Ok(Id::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Id<'a>, E> {
                Ok(Id::Str(Cow::Owned(v)))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One input line.
#[derive(Debug, Deserialize)]
struct InRecord<'a> {
    #[serde(borrow)]
    id: Id<'a>,
    #[serde(borrow)]
    url: Cow<'a, str>,
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow)]
    snippet: Cow<'a, str>,
    #[serde(default, borrow)]
    query: Option<Text<'a>>,
    #[serde(default, borrow)]
    engine: Option<Text<'a>>,
    #[allow(dead_code)]
    #[serde(default)]
    position: Option<u64>,
}

/// An optional string field, borrowed from the line when it has no escape.
/// serde borrows a `Cow<str>` field marked `borrow`, but not one inside an
/// `Option`: that one was copied into a new `String` for every record (two
/// allocations a line for `query` and `engine`).
#[derive(Debug, Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// Ids of kept records, by record index: one byte arena, no per-id allocation.
#[derive(Debug, Default)]
struct KeptIds {
    /// Record index of each kept record, ascending.
    index: Vec<u64>,
    /// End of each id's JSON text in `text`.
    ends: Vec<u64>,
    text: Vec<u8>,
}

impl KeptIds {
    /// Remembers the id (as JSON) of kept record `index`.
    fn push(&mut self, index: usize, id: &[u8]) {
        self.text.extend_from_slice(id);
        self.index.push(index as u64);
        self.ends.push(self.text.len() as u64);
    }

    /// The id of kept record `index`. A duplicate's kept record is almost
    /// always a recent one (a query's records come together), so the last
    /// [`KeptIds::RECENT`] kept records, whose cache lines are warm, are
    /// searched first: a binary search over all of them (367,000 for the
    /// realistic million) takes ~19 steps over lines long out of the
    /// first-level cache, on the thread that decides, for every duplicate
    /// (the measured gain is in docs/performance.md, "The stream, second
    /// round").
    fn get(&self, index: usize) -> Option<&[u8]> {
        let key = index as u64;
        let recent = self.index.len().saturating_sub(Self::RECENT);
        let i = if self.index.get(recent).is_some_and(|&first| first <= key) {
            recent + self.index[recent..].binary_search(&key).ok()?
        } else {
            self.index[..recent].binary_search(&key).ok()?
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..self.ends[i] as usize)
    }

    /// Kept records searched first by [`KeptIds::get`].
    const RECENT: usize = 256;
}

/// Counts for `--stats`.
#[derive(Debug, Default)]
struct Counts {
    records: u64,
    kept: u64,
    bad: u64,
    url: u64,
    title: u64,
    snippet: u64,
}

/// How a file is named in messages: its path, or `stdin` / `stdout` for `-`.
fn shown(path: &Path, dash: &str) -> String {
    if path.as_os_str() == "-" {
        dash.to_string()
    } else {
        path.display().to_string()
    }
}

/// `e` with the file it happened on in front, so the message says where.
fn on_file(name: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{name}: {e}"))
}

fn open_input(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    // One line is one record: a line past the bound (`/dev/zero` has no
    // line end) stops the run, naming the file and the line.
    let name = shown(path, "stdin");
    Ok(if path.as_os_str() == "-" {
        Box::new(crate::files::line_capped(io::stdin(), 1 << 18))
    } else {
        let file = File::open(path).map_err(|e| on_file(&name, e))?;
        Box::new(crate::files::line_capped(file, 1 << 18))
    })
}

fn open_output(path: &Path) -> io::Result<Box<dyn Write>> {
    Ok(if path.as_os_str() == "-" {
        Box::new(BufWriter::with_capacity(1 << 18, io::stdout()))
    } else {
        let file = File::create(path).map_err(|e| on_file(&shown(path, "stdout"), e))?;
        Box::new(BufWriter::with_capacity(1 << 18, file))
    })
}

/// Peak resident memory of this process in bytes (`VmHWM`), where Linux tells.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time this process has used so far, all threads, in seconds (Linux
/// `/proc/self/stat`: user + system time, in ticks of 1/100 s). On a busy
/// machine it tells the work done apart from the time spent waiting.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let mut fields = after.split_whitespace().skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}

/// Runs the command with the flags laid over `configured` (the
/// configuration's `[dedup]`); returns the process exit code (`0`: every
/// line good, `1`: some lines were bad and skipped).
pub fn run(args: &DedupArgs, configured: &Settings) -> Result<i32, io::Error> {
    let settings = args.settings(configured);
    if let Err((field, why)) = settings.validate() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("--{}: {why}", field.replace('_', "-")),
        ));
    }
    let filter = if args.url_filter == "bloom" {
        UrlFilter::Bloom {
            fpr: args.bloom_fpr,
            expected: args.expected,
        }
    } else {
        UrlFilter::Exact
    };
    let input = open_input(&args.input)?;
    let mut output = open_output(&args.output)?;
    let started = Instant::now();
    let cpu_start = cpu_seconds();
    let names = Names {
        input: shown(&args.input, "stdin"),
        output: shown(&args.output, "stdout"),
    };
    let workers = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let threads = workers.max(1);
    let counts = if workers <= 1 {
        process(input, &mut output, &settings, filter, args.unique, &names)?
    } else {
        // One preparing thread per core; this one decides and writes (a
        // quarter of the work on the realistic stream), sharing the cores.
        parallel::process(
            input,
            &mut output,
            &settings,
            filter,
            args.unique,
            &names,
            workers,
            parallel::BATCH_BYTES,
        )?
    };
    output.flush().map_err(|e| on_file(&names.output, e))?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds()
        .zip(cpu_start)
        .map(|(end, start)| (end - start).max(0.0));
    if args.stats {
        let stats = serde_json::json!({
            "records": counts.records,
            "kept": counts.kept,
            "bad_lines": counts.bad,
            "stages": { "url": counts.url, "title": counts.title, "snippet": counts.snippet },
            "method": settings.method.as_str(),
            "url_filter": args.url_filter,
            "seconds": seconds,
            "records_per_second": if seconds > 0.0 { counts.records as f64 / seconds } else { 0.0 },
            "cpu_seconds": cpu,
            "threads": threads,
            "records_per_cpu_second": cpu.filter(|c| *c > 0.0).map(|c| counts.records as f64 / c),
            "peak_memory_bytes": peak_memory_bytes(),
        });
        eprintln!("{stats}");
    }
    Ok(if counts.bad > 0 { 1 } else { 0 })
}

/// The input and output as messages name them.
struct Names {
    input: String,
    output: String,
}

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The streaming loop, separate from file handling so tests can drive it.
/// Every error names the file (and, for a bad line, the line).
fn process(
    mut input: impl BufRead,
    output: &mut impl Write,
    settings: &Settings,
    filter: UrlFilter,
    unique: bool,
    names: &Names,
) -> io::Result<Counts> {
    let mut output = NamedWriter {
        inner: output,
        name: &names.output,
    };
    let output = &mut output;
    let mut deduper = Deduper::new(settings).url_filter(filter);
    let mut verdicts = Verdicts::new(settings, filter, unique);
    let mut buf = Vec::with_capacity(4096);
    let mut id_json = Vec::with_capacity(32);
    let mut stderr = io::stderr().lock();
    let mut line_no = 0u64;
    loop {
        buf.clear();
        if input
            .read_until(b'\n', &mut buf)
            .map_err(|e| on_file(&names.input, e))?
            == 0
        {
            break;
        }
        line_no += 1;
        let mut line = buf.as_slice();
        if line_no == 1 {
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        let rec = match parse_line(line) {
            Parsed::Blank => continue,
            Parsed::Bad(msg) => {
                verdicts.counts.bad += 1;
                writeln!(stderr, "{}: line {line_no}: {msg}", names.input)?;
                continue;
            }
            Parsed::Record(rec) => rec,
        };
        let doc = Doc::new(&rec.url, &rec.title, &rec.snippet)
            .with_source(rec.engine.as_deref().unwrap_or_default());
        let index = deduper.len();
        let v = deduper.push_query(rec.query.as_deref(), doc);
        id_json.clear();
        rec.id.write_json(&mut id_json);
        verdicts.write(&v, index, &id_json, trim_line_end(line), output)?;
    }
    Ok(verdicts.counts)
}

/// `line` without its line end (`\n`, `\r`).
fn trim_line_end(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// What one input line is.
enum Parsed<'a> {
    /// Only white space: skipped silently.
    Blank,
    /// Not a record: why (the caller adds the file and line).
    Bad(String),
    Record(InRecord<'a>),
}

/// Reads one line (its BOM already stripped). UTF-8 is checked by
/// `simdutf8` (the fast check std's agrees with; std's finds the position of
/// an error), then the record is read by serde, borrowing its strings.
fn parse_line(line: &[u8]) -> Parsed<'_> {
    let line = trim_line_end(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Blank;
    }
    let text = match simdutf8::basic::from_utf8(line) {
        Ok(t) => t,
        Err(_) => {
            let at = std::str::from_utf8(line)
                .err()
                .map_or(0, |e| e.valid_up_to());
            return Parsed::Bad(format!("invalid UTF-8 at byte {at}"));
        }
    };
    match serde_json::from_str(text) {
        Ok(r) => Parsed::Record(r),
        Err(e) => Parsed::Bad(e.to_string()),
    }
}

/// What the deciding loop keeps between records: the counts, the kept
/// records' ids (for the `cluster` field) and the output line's buffer. One
/// for both loops, the one-thread reference ([`process`]) and the threaded
/// one ([`parallel`]).
struct Verdicts {
    unique: bool,
    /// URL-only with a Bloom filter never names another record's id.
    keep_ids: bool,
    ids: KeptIds,
    counts: Counts,
    line_out: Vec<u8>,
}

impl Verdicts {
    fn new(settings: &Settings, filter: UrlFilter, unique: bool) -> Self {
        Verdicts {
            unique,
            keep_ids: !(settings.method == Method::None
                && matches!(filter, UrlFilter::Bloom { .. })),
            ids: KeptIds::default(),
            counts: Counts::default(),
            line_out: Vec::with_capacity(256),
        }
    }

    /// Counts a verdict and writes its output line (`--unique`: the kept
    /// record's input line); `id` is the record's id as JSON.
    fn write(
        &mut self,
        v: &Verdict,
        index: usize,
        id: &[u8],
        line: &[u8],
        output: &mut impl Write,
    ) -> io::Result<()> {
        self.counts.records += 1;
        match v.stage {
            None => {
                self.counts.kept += 1;
                if self.keep_ids {
                    self.ids.push(index, id);
                }
            }
            Some(Stage::Url) => self.counts.url += 1,
            Some(Stage::Title) => self.counts.title += 1,
            Some(Stage::Snippet) => self.counts.snippet += 1,
        }
        if self.unique {
            if v.is_kept() {
                output.write_all(line)?;
                output.write_all(b"\n")?;
            }
            return Ok(());
        }
        self.line_out.clear();
        self.line_out.extend_from_slice(b"{\"id\":");
        self.line_out.extend_from_slice(id);
        self.line_out.extend_from_slice(b",\"cluster\":");
        if v.is_kept() {
            self.line_out.extend_from_slice(id);
        } else if !v.cluster_known {
            self.line_out.extend_from_slice(b"null");
        } else {
            match self.ids.get(v.cluster) {
                Some(id) => self.line_out.extend_from_slice(id),
                None => self.line_out.extend_from_slice(b"null"),
            }
        }
        self.line_out.extend_from_slice(b",\"stage\":");
        match v.stage {
            Some(stage) => {
                self.line_out.push(b'"');
                self.line_out.extend_from_slice(stage.as_str().as_bytes());
                self.line_out.push(b'"');
            }
            None => self.line_out.extend_from_slice(b"null"),
        }
        self.line_out.extend_from_slice(b",\"similarity\":");
        match v.similarity {
            Some(s) if s.is_finite() => {
                // serde_json writes `1.0`, not `1`: the field stays a float.
                let _ = serde_json::to_writer(&mut self.line_out, &s);
            }
            _ => self.line_out.extend_from_slice(b"null"),
        }
        self.line_out.extend_from_slice(b"}\n");
        output.write_all(&self.line_out)
    }
}

/// A writer whose errors name its file.
struct NamedWriter<'a, W> {
    inner: &'a mut W,
    name: &'a str,
}

impl<W: Write> Write for NamedWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| on_file(self.name, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| on_file(self.name, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| on_file(self.name, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_str(input: &str, settings: &Settings) -> (String, Counts) {
        let mut out = Vec::new();
        let c = process(
            input.as_bytes(),
            &mut out,
            settings,
            UrlFilter::Exact,
            false,
            &Names {
                input: "in.jsonl".into(),
                output: "out.jsonl".into(),
            },
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), c)
    }

    #[test]
    fn a_byte_order_mark_does_not_cost_the_first_record() {
        let line = r#"{"id":1,"url":"https://a.example/","title":"A","snippet":"s"}"#;
        let (out, c) = run_str(&format!("\u{FEFF}{line}\n{line}\n"), &Settings::default());
        assert_eq!((c.records, c.bad, c.kept), (2, 0, 1), "{out}");
        assert!(
            out.starts_with(r#"{"id":1,"cluster":1,"stage":null"#),
            "{out}"
        );
    }

    /// The strings of a line are borrowed from it, `query` and `engine`
    /// too (they were copied into a `String` each, per record), unless an
    /// escape needs them rewritten; a wrong type is still a clear error.
    #[test]
    fn optional_strings_are_borrowed_from_the_line() {
        let line = br#"{"id": 1, "url": "u", "title": "t", "snippet": "s", "query": "q", "engine": "bing"}"#;
        let Parsed::Record(rec) = parse_line(line) else {
            panic!("not a record");
        };
        assert!(
            matches!(rec.query, Some(Text(Cow::Borrowed("q")))),
            "{rec:?}"
        );
        assert!(
            matches!(rec.engine, Some(Text(Cow::Borrowed("bing")))),
            "{rec:?}"
        );
        let line = br#"{"id": 1, "url": "u", "title": "t", "snippet": "s", "query": "a\"b", "engine": null}"#;
        let Parsed::Record(rec) = parse_line(line) else {
            panic!("not a record");
        };
        assert_eq!(rec.query.as_deref(), Some("a\"b"));
        assert!(rec.engine.is_none());
        let line = br#"{"id": 1, "url": "u", "title": "t", "snippet": "s", "query": 5}"#;
        let Parsed::Bad(msg) = parse_line(line) else {
            panic!("a number for a query is no record");
        };
        assert!(msg.contains("expected a string"), "{msg}");
    }

    #[test]
    fn ids_keep_their_type() {
        let input = concat!(
            r#"{"id": 7, "url": "https://a/", "title": "t", "snippet": "s"}"#,
            "\n",
            r#"{"id": "x\"y", "url": "https://a/", "title": "t", "snippet": "s"}"#,
            "\n"
        );
        let (out, c) = run_str(input, &Settings::default());
        assert_eq!(c.records, 2);
        assert_eq!(
            out,
            concat!(
                r#"{"id":7,"cluster":7,"stage":null,"similarity":null}"#,
                "\n",
                r#"{"id":"x\"y","cluster":7,"stage":"url","similarity":null}"#,
                "\n"
            )
        );
    }

    #[test]
    fn kept_ids_found_by_index() {
        let mut ids = KeptIds::default();
        ids.push(3, b"30");
        ids.push(9, b"\"nine\"");
        assert_eq!(ids.get(3), Some(&b"30"[..]));
        assert_eq!(ids.get(9), Some(&b"\"nine\""[..]));
        assert_eq!(ids.get(4), None);
        // Past the recent window too: every kept id found, no other.
        let mut ids = KeptIds::default();
        let n = 3 * KeptIds::RECENT;
        for k in 0..n {
            ids.push(2 * k + 1, k.to_string().as_bytes());
        }
        for k in 0..n {
            assert_eq!(ids.get(2 * k + 1), Some(k.to_string().as_bytes()), "{k}");
            assert_eq!(ids.get(2 * k), None, "{k}");
        }
        assert_eq!(ids.get(2 * n + 1), None);
    }

    /// Lines from the real corpora (DuReader's Baidu lists under their
    /// questions, with engines, shared and copied links; AG news in one
    /// scope) of the team's data folder — or, without it, generated lists in
    /// DuReader's shape — with bad, blank and CRLF lines among them.
    fn corpus_input() -> Vec<u8> {
        let root = metasift_data::for_test("the stream on DuReader (generated lists stand in)")
            .map(|r| r.join("corpus"));
        let du = match &root {
            Some(root) => {
                std::fs::read_to_string(root.join("dureader_search_zh/search_results.jsonl"))
                    .expect("DuReader in the data folder")
            }
            // 600 lists of five generated results, every seventh result
            // a copy of the one before it under its own title.
            None => {
                let results = metasift_data::generated::results(0x57e4, 3000);
                let mut out = String::new();
                for (q, list) in results.chunks(5).enumerate() {
                    let list: Vec<serde_json::Value> = list
                        .iter()
                        .enumerate()
                        .map(|(i, (title, snippet))| {
                            let k = q * 5 + i;
                            let snippet = if k % 7 == 6 && i > 0 {
                                &list[i - 1].1
                            } else {
                                snippet
                            };
                            serde_json::json!({"title": title, "snippet": snippet})
                        })
                        .collect();
                    out.push_str(&serde_json::json!({ "results": list }).to_string());
                    out.push('\n');
                }
                out
            }
        };
        let mut out = Vec::from(BOM);
        let engines = ["baidu", "bing", "sogou"];
        let mut n = 0u64;
        for (q, line) in du.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).expect("DuReader line");
            for (e, engine) in engines.iter().enumerate() {
                for (i, r) in v["results"].as_array().expect("results").iter().enumerate() {
                    if (i + e) % 3 == 2 {
                        continue;
                    }
                    // The same page across engines; every fifth on a copy site.
                    let url = if (i + e) % 5 == 0 {
                        format!("https://copy{e}.example/{q}/{i}")
                    } else {
                        format!("https://site{}.example/{q}/{i}", i % 4)
                    };
                    let id = if n % 7 == 3 {
                        serde_json::json!(format!("r{n}"))
                    } else {
                        serde_json::json!(n)
                    };
                    let rec = serde_json::json!({
                        "id": id, "url": url, "title": r["title"], "snippet": r["snippet"],
                        "engine": engine, "query": v["question"],
                    });
                    out.extend_from_slice(rec.to_string().as_bytes());
                    out.extend_from_slice(match n % 97 {
                        5 => b"\r\n\n",
                        9 => b"\n{\"id\": 1, \"url\": 3}\n",
                        11 => b"\n\xff\xfe not UTF-8\n",
                        _ => b"\n",
                    });
                    n += 1;
                }
            }
        }
        let ag = match &root {
            Some(root) => {
                std::fs::read_to_string(root.join("ag_news_en/test.csv")).expect("AG news")
            }
            None => String::new(),
        };
        for (i, row) in ag.lines().take(3000).enumerate() {
            let cells: Vec<&str> = row.splitn(3, "\",\"").collect();
            if cells.len() < 3 {
                continue;
            }
            let rec = serde_json::json!({
                "id": n, "url": format!("https://news{}.example/{}", i % 3, i / 2),
                "title": cells[1], "snippet": cells[2].trim_end_matches('"'),
            });
            out.extend_from_slice(rec.to_string().as_bytes());
            out.push(b'\n');
            n += 1;
        }
        // The last line without its line end.
        out.extend_from_slice(
            br#"{"id":"last","url":"https://z.example/","title":"t","snippet":"s"}"#,
        );
        out
    }

    /// The threaded stream writes exactly what the one-thread loop writes,
    /// whatever the number of workers and wherever the batches are cut.
    #[test]
    fn the_threaded_stream_writes_what_the_one_thread_loop_writes() {
        let input = corpus_input();
        let names = Names {
            input: "in.jsonl".into(),
            output: "out.jsonl".into(),
        };
        for settings in [
            Settings::default(),
            Settings {
                method: Method::SimHash,
                ..Settings::default()
            },
        ] {
            for unique in [false, true] {
                let mut want = Vec::new();
                let c = process(
                    &input[..],
                    &mut want,
                    &settings,
                    UrlFilter::Exact,
                    unique,
                    &names,
                )
                .unwrap();
                assert!(c.records > 5_000 && c.bad > 20, "{c:?}");
                assert!(c.kept < c.records * 4 / 5, "{c:?}");
                assert!(c.snippet > 0 && c.title > 0 && c.url > 0, "{c:?}");
                for (workers, batch) in [(1, 1 << 18), (2, 4096), (3, 777), (2, 1)] {
                    let mut got = Vec::new();
                    let g = parallel::process(
                        &input[..],
                        &mut got,
                        &settings,
                        UrlFilter::Exact,
                        unique,
                        &names,
                        workers,
                        batch,
                    )
                    .unwrap();
                    assert_eq!(
                        format!("{g:?}"),
                        format!("{c:?}"),
                        "{workers} workers, {batch} B"
                    );
                    assert!(
                        got == want,
                        "{workers} workers, batches of {batch} B: output differs"
                    );
                }
            }
        }
    }
}
