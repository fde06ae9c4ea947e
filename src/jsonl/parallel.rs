//! The stream on several threads, with the one-thread loop's output.
//!
//! What a record needs from itself alone — its line read as UTF-8 and JSON,
//! its URL key, title hash and codes ([`Preparer`]) — is computed by worker
//! threads, a batch of lines each; what depends on every record before it
//! ([`Deduper::push_prepared`]) and the writing stay on the calling thread,
//! which takes the batches back in input order. So the verdicts, the output
//! bytes and the order of messages on stderr are those of [`super::process`]
//! (a test checks it byte for byte). Memory stays bounded: each worker holds
//! at most two batches (one queued, one in hand) and the reader one.
//!
//! The reader cuts the input into batches of whole lines (about
//! [`BATCH_BYTES`] each; a longer line makes a longer batch).

use std::io::{self, BufRead, Write};
use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use metasift_dedup::{Deduper, Doc, Prepared, Preparer, Settings, UrlFilter};

use super::{BOM, Counts, NamedWriter, Names, Parsed, Verdicts, on_file, parse_line};

/// Bytes of input per batch (whole lines; a longer line makes a longer batch).
pub(super) const BATCH_BYTES: usize = 1 << 18;

/// One line's outcome, computed by a worker.
enum Item {
    /// A blank line: skipped silently.
    Blank,
    /// A bad line: its message (without the file name and line number).
    Bad(String),
    /// A record: its line's bytes (for `--unique`) and its id's JSON, in the
    /// batch's buffers; its prepared form is the next of `prepared`.
    Record {
        line: Range<usize>,
        id: Range<usize>,
    },
}

/// Lines on their way through the threads, and what the worker made of them.
#[derive(Default)]
struct Batch {
    /// Whole lines, each ending in `\n` (the last one may not).
    text: Vec<u8>,
    /// Line number of the first line.
    first_line: u64,
    items: Vec<Item>,
    prepared: Vec<Prepared>,
    /// The records' ids as JSON, one after another.
    ids: Vec<u8>,
}

/// Runs the stream with `workers` preparing threads; see the module docs.
#[allow(clippy::too_many_arguments)]
pub(super) fn process(
    input: impl BufRead + Send,
    output: &mut impl Write,
    settings: &Settings,
    filter: UrlFilter,
    unique: bool,
    names: &Names,
    workers: usize,
    batch_bytes: usize,
) -> io::Result<Counts> {
    let workers = workers.max(1);
    std::thread::scope(|scope| {
        // Reader → workers (round robin), workers → this thread, and the
        // used batches back to the reader.
        let mut to_workers = Vec::new();
        let mut from_workers = Vec::new();
        let (recycle_tx, recycle_rx) = sync_channel::<Batch>(2 * workers + 2);
        for _ in 0..workers {
            let (tx, rx) = sync_channel::<Batch>(1);
            let (done_tx, done_rx) = sync_channel::<Batch>(1);
            to_workers.push(tx);
            from_workers.push(done_rx);
            let settings = settings.clone();
            scope.spawn(move || work(rx, done_tx, &settings));
        }
        let reader = scope.spawn(move || read(input, to_workers, recycle_rx, batch_bytes));
        let counts = decide(
            &from_workers,
            recycle_tx,
            output,
            settings,
            filter,
            unique,
            names,
        );
        // On an early error the channels close and the reader stops.
        drop(from_workers);
        let read = reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")));
        let counts = counts?;
        read.map_err(|e| on_file(&names.input, e))?;
        Ok(counts)
    })
}

/// Cuts the input into batches of whole lines and hands them to the
/// workers in turn.
fn read(
    mut input: impl BufRead,
    workers: Vec<SyncSender<Batch>>,
    recycle: Receiver<Batch>,
    batch_bytes: usize,
) -> io::Result<()> {
    let mut line_no = 1u64;
    let mut eof = false;
    let mut turn = 0;
    while !eof {
        let mut batch = recycle.try_recv().unwrap_or_default();
        batch.text.clear();
        // Fill up to `batch_bytes`, then to the end of a line.
        loop {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                eof = true;
                break;
            }
            let full = batch.text.len() >= batch_bytes;
            let take = if full {
                match memchr::memchr(b'\n', buf) {
                    Some(i) => {
                        batch.text.extend_from_slice(&buf[..=i]);
                        input.consume(i + 1);
                        break;
                    }
                    None => buf.len(),
                }
            } else {
                buf.len().min(batch_bytes - batch.text.len()).max(1)
            };
            batch.text.extend_from_slice(&buf[..take]);
            input.consume(take);
        }
        // A batch that ended mid-line at `batch_bytes` went on to the end
        // of that line above, so only the last batch may end without `\n`.
        if batch.text.is_empty() {
            break;
        }
        batch.first_line = line_no;
        line_no += memchr::memchr_iter(b'\n', &batch.text).count() as u64;
        if workers[turn].send(batch).is_err() {
            // The deciding thread stopped (an output error): it reports.
            return Ok(());
        }
        turn = (turn + 1) % workers.len();
    }
    Ok(())
}

/// A worker: parses and prepares every line of each batch it is given.
fn work(batches: Receiver<Batch>, done: SyncSender<Batch>, settings: &Settings) {
    let mut preparer = Preparer::new(settings);
    while let Ok(mut batch) = batches.recv() {
        batch.items.clear();
        batch.ids.clear();
        let mut n = 0;
        let mut start = 0;
        let mut line_no = batch.first_line;
        let text = std::mem::take(&mut batch.text);
        while start < text.len() {
            let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i);
            let mut line = &text[start..end];
            let mut at = start;
            if line_no == 1 && line.starts_with(BOM) {
                line = &line[BOM.len()..];
                at += BOM.len();
            }
            let item = match parse_line(line) {
                Parsed::Blank => Item::Blank,
                Parsed::Bad(msg) => Item::Bad(msg),
                Parsed::Record(rec) => {
                    let doc = Doc::new(&rec.url, &rec.title, &rec.snippet)
                        .with_source(rec.engine.as_deref().unwrap_or_default());
                    if batch.prepared.len() == n {
                        batch.prepared.push(Prepared::default());
                    }
                    preparer.prepare_in_order(rec.query.as_deref(), doc, &mut batch.prepared[n]);
                    n += 1;
                    let id_start = batch.ids.len();
                    rec.id.write_json(&mut batch.ids);
                    let trimmed = super::trim_line_end(line).len();
                    Item::Record {
                        line: at..at + trimmed,
                        id: id_start..batch.ids.len(),
                    }
                }
            };
            batch.items.push(item);
            start = end + 1;
            line_no += 1;
        }
        batch.text = text;
        if done.send(batch).is_err() {
            return;
        }
    }
}

/// The deciding thread: takes the batches back in input order, decides and
/// writes.
fn decide(
    workers: &[Receiver<Batch>],
    recycle: SyncSender<Batch>,
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
    let mut stderr = io::stderr().lock();
    let mut turn = 0;
    while let Ok(batch) = workers[turn].recv() {
        turn = (turn + 1) % workers.len();
        let mut n = 0;
        for (i, item) in batch.items.iter().enumerate() {
            match item {
                Item::Blank => {}
                Item::Bad(msg) => {
                    verdicts.counts.bad += 1;
                    let line_no = batch.first_line + i as u64;
                    writeln!(stderr, "{}: line {line_no}: {msg}", names.input)?;
                }
                Item::Record { line, id } => {
                    let index = deduper.len();
                    let v = deduper.push_prepared(&batch.prepared[n]);
                    n += 1;
                    let id = &batch.ids[id.clone()];
                    verdicts.write(&v, index, id, &batch.text[line.clone()], output)?;
                }
            }
        }
        // The reader may have stopped; the batch is then dropped.
        let _ = recycle.try_send(batch);
    }
    Ok(verdicts.counts)
}
