//! The line pipeline every file verb runs on: normalize, purge, repair,
//! check and select here, and the engine verbs (pfms, pfga, pfts) of
//! `epd-engine`. One implementation of the line rules, serial or on
//! worker threads, with the output in input order:
//!
//! - a line is the bytes up to `\n`; a line longer than [`MAX_LINE`] is
//!   not parsed: it gets `E003` and is copied through in pieces (bounded
//!   memory whatever the bytes);
//! - a line of nothing but whitespace and NUL bytes is blank: it is
//!   written as an empty line and is not a record; a CR before the `\n`
//!   is whitespace to the record reader, and an invalid record keeps it
//!   when it is copied;
//! - in lenient mode a string continued on the next line is joined to it
//!   (`E026` warning), unless the next line starts a record of its own;
//! - an invalid record is copied through unchanged (or left out with
//!   `drop_invalid`), so no line is ever lost silently;
//! - a valid record goes to the verb's [`Processor`].
//!
//! A record is written as soon as it and every record before it are
//! done; with [`Config::flush_each`] (the slow verbs) each is flushed
//! too. When [`Config::stop`] is raised (a signal handler does it), the
//! run takes no new record, writes every finished one, and returns its
//! summary with [`Summary::interrupted`] set. Errors say which side
//! failed: [`PipelineError::Read`] or [`PipelineError::Write`].

use core::fmt;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

use crate::diag::{has_errors, Code, Diagnostic, Severity};
use crate::{ParseMode, Record};

/// Lines longer than this are not parsed: they are reported and copied
/// through in pieces, so memory stays bounded whatever the input.
///
/// 1 MiB, 256 times the 4096 bytes the specification asks readers to
/// handle: a parsed record can take some 25 times its line in memory (a
/// line of a million short operations), so a 16 MiB cap let one line take
/// 450 MB. The PGN reader caps its lines at the same size.
pub const MAX_LINE: usize = 1 << 20;

/// A record's work was cut short by a stop request: nothing is written
/// for it, and the run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

/// What a file verb does with each valid record.
///
/// One processor runs per worker thread; each keeps its own state (a
/// solver, an engine).
pub trait Processor: Send {
    /// The verb's own counts, added up over workers and batches.
    type Counts: Default + Clone + fmt::Debug + Send + core::ops::AddAssign;

    /// How records are read.
    fn mode(&self) -> ParseMode;

    /// `true` if the verb writes records (check writes none).
    fn writes(&self) -> bool {
        true
    }

    /// `true` if a blank line of the input is written as an empty line,
    /// so the output keeps one line per input line; `false` for a filter
    /// (select), which writes only the records it keeps.
    fn keeps_blank_lines(&self) -> bool {
        true
    }

    /// `true` if a valid record already in canonical form is written as
    /// it stands, with nothing counted: the pipeline then judges such a
    /// line without building its record, and never calls
    /// [`Processor::record`] for it.
    fn copies_canonical(&self) -> bool {
        false
    }

    /// `true` if the verb can handle a valid record already in canonical
    /// form from its line alone ([`Processor::canonical`]): the pipeline
    /// then offers it every line, in place, before parsing it.
    fn takes_canonical(&self) -> bool {
        false
    }

    /// Handles the record of line `job.text` as [`Processor::record`]
    /// would, if the verb can without the record being built (reading the
    /// line with [`Record::read_canonical`], `rec` lending its buffers);
    /// `None` when it cannot, with nothing written or counted: the line is
    /// then parsed and goes to [`Processor::record`] if valid. Called only
    /// when [`Processor::takes_canonical`] says so.
    fn canonical(&mut self, rec: &mut Record, job: Job<'_, Self::Counts>) -> Option<Result<(), Interrupted>> {
        let _ = (rec, job);
        None
    }

    /// Handles one valid record `rec`: appends the output line, `\n`
    /// included, to `job.out`, and may add diagnostics to `job.diags`
    /// (which do not make the record invalid).
    ///
    /// # Errors
    /// [`Interrupted`] when a stop request cut the work short; the output
    /// is then discarded.
    fn record(&mut self, rec: &mut Record, job: Job<'_, Self::Counts>) -> Result<(), Interrupted>;
}

/// One valid record's work, handed to [`Processor::record`] with the
/// record.
#[derive(Debug)]
pub struct Job<'a, C> {
    /// The record's 1-based line number in the input.
    pub line: u64,
    /// The text the record was read from (the line, or two joined lines).
    pub text: &'a [u8],
    /// The record's diagnostics so far; a processor may add its own.
    pub diags: &'a mut Vec<Diagnostic>,
    /// Where the output line goes.
    pub out: &'a mut Vec<u8>,
    /// The verb's counts for this record.
    pub counts: &'a mut C,
}

/// The counts of a verb that counts nothing of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoCounts;

impl core::ops::AddAssign for NoCounts {
    fn add_assign(&mut self, _: NoCounts) {}
}

/// How a run goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Config<'a> {
    /// Leave invalid records out of the output instead of copying them.
    pub drop_invalid: bool,
    /// Flush the output after each record (for verbs that take a while
    /// per record), and hand records to workers one at a time.
    pub flush_each: bool,
    /// Raised to stop the run: no new record is taken, every finished one
    /// is written.
    pub stop: Option<&'a AtomicBool>,
    /// Lines of the input already consumed before the run (a resumed
    /// run): line numbers start after them.
    pub lines_before: u64,
}

impl Config<'_> {
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// The counts of one run: the line accounting the pipeline keeps for
/// every verb, and the verb's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary<C> {
    /// Lines read (blank ones included; two joined lines count two).
    pub lines: u64,
    /// Records read (non-blank lines).
    pub records: u64,
    /// Records with at least one error (copied through or left out).
    pub invalid: u64,
    /// Warnings reported.
    pub warnings: u64,
    /// Errors reported.
    pub errors: u64,
    /// The run was stopped before the end of its input.
    pub interrupted: bool,
    /// The verb's own counts.
    pub counts: C,
}

impl<C: core::ops::AddAssign> core::ops::AddAssign for Summary<C> {
    /// Adds another run's counts (several files, several batches).
    fn add_assign(&mut self, other: Summary<C>) {
        self.lines += other.lines;
        self.records += other.records;
        self.invalid += other.invalid;
        self.warnings += other.warnings;
        self.errors += other.errors;
        self.interrupted |= other.interrupted;
        self.counts += other.counts;
    }
}

/// The diagnostics of one line, handed to the caller's renderer.
#[derive(Debug)]
pub struct LineReport<'a> {
    /// 1-based line number, from the start of the input.
    pub line_no: u64,
    /// The line's bytes (without its newline; the first 256 bytes of an
    /// over-long line).
    pub text: &'a [u8],
    /// What was found.
    pub diagnostics: &'a [Diagnostic],
}

/// The rendered diagnostics of some lines, in input order, as a run's
/// renderer made them on the worker threads: each diagnostic's text (in
/// whatever format the renderer writes) with the line, severity and code
/// it was made from, so the side that shows them can count and cap them
/// without reading the text back. One text buffer and one list of entries
/// hold a whole batch, whatever its number of diagnostics.
///
/// ```
/// use epd_core::pipeline::Rendered;
/// use epd_core::{Code, ParseMode, Record, Severity};
///
/// let (_, diags) = Record::parse(b"8/8/8/8/8/8/8/K6k w - - bm Qh8;", ParseMode::Strict);
/// let mut r = Rendered::default();
/// for d in &diags {
///     r.push(1, d, |text| text.extend_from_slice(format!("1: {}\n", d.message).as_bytes()));
/// }
/// let first = r.iter().next().unwrap();
/// assert_eq!((first.line, first.severity, first.code), (1, Severity::Error, Code::IllegalMove));
/// assert!(first.text.starts_with(b"1: "));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Every diagnostic's text, one after the other.
    text: Vec<u8>,
    entries: Vec<Entry>,
}

/// One diagnostic of a [`Rendered`], its text at `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    line: u64,
    severity: Severity,
    code: Code,
    start: usize,
    end: usize,
}

/// One diagnostic of a [`Rendered`] batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderedDiagnostic<'a> {
    /// The 1-based number of the line it is about.
    pub line: u64,
    /// The diagnostic's severity.
    pub severity: Severity,
    /// The diagnostic's code.
    pub code: Code,
    /// What the renderer wrote for it.
    pub text: &'a [u8],
}

impl Rendered {
    /// Adds `diagnostic`, found on line `line`: `write` appends its text
    /// to the buffer it is given (and removes nothing from it).
    pub fn push(&mut self, line: u64, diagnostic: &Diagnostic, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.text.len();
        write(&mut self.text);
        let (severity, code) = (diagnostic.severity, diagnostic.code);
        self.entries.push(Entry { line, severity, code, start, end: self.text.len() });
    }

    /// The diagnostics, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = RenderedDiagnostic<'_>> + '_ {
        self.entries.iter().map(|e| RenderedDiagnostic {
            line: e.line,
            severity: e.severity,
            code: e.code,
            // Within the buffer unless a `write` shortened it.
            text: self.text.get(e.start..e.end).unwrap_or_default(),
        })
    }

    /// The number of diagnostics.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` if no diagnostic was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every diagnostic, keeping the memory.
    pub fn clear(&mut self) {
        self.text.clear();
        self.entries.clear();
    }
}

/// A run that could not go on: reading the input or writing the output
/// failed. Bad records are diagnostics, never errors.
#[derive(Debug)]
pub enum PipelineError {
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

impl PipelineError {
    /// The I/O error underneath.
    #[must_use]
    pub fn io(&self) -> &io::Error {
        match self {
            PipelineError::Read(e) | PipelineError::Write(e) => e,
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Read(e) => write!(f, "cannot read the input: {e}"),
            PipelineError::Write(e) => write!(f, "cannot write the output: {e}"),
        }
    }
}

impl std::error::Error for PipelineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.io())
    }
}

impl From<PipelineError> for io::Error {
    fn from(e: PipelineError) -> io::Error {
        let kind = e.io().kind();
        io::Error::new(kind, e)
    }
}

/// Runs `workers` over `input` (one worker: on this thread, reading the
/// input in place; more: on that many threads), writing to `output`.
///
/// Each line's diagnostics are rendered by `render` (on the worker
/// threads) into a [`Rendered`] batch, and the batches that hold any
/// diagnostic are handed to `emit` in input order;
/// `progress` gets the counts so far after each record or batch written.
///
/// # Errors
/// Reading the input or writing the output failed; an error too if
/// `workers` is empty.
pub fn run<P: Processor, R: BufRead + Send, W: Write>(
    mut input: R,
    mut output: W,
    workers: &mut [P],
    config: &Config<'_>,
    render: &(dyn Fn(&LineReport<'_>, &mut Rendered) + Sync),
    emit: &mut dyn FnMut(&Rendered),
    progress: &mut dyn FnMut(&Summary<P::Counts>),
) -> Result<Summary<P::Counts>, PipelineError> {
    let jobs = match &mut *workers {
        [] => return Err(PipelineError::Read(io::Error::new(io::ErrorKind::InvalidInput, "no worker to run"))),
        [one] => {
            let mut rendered = Rendered::default();
            let mut sink = |r: &LineReport<'_>| {
                rendered.clear();
                render(r, &mut rendered);
                if !rendered.is_empty() {
                    emit(&rendered);
                }
            };
            return run_serial(input, output, one, config, &mut sink, progress);
        }
        _ => workers.len(),
    };
    // More workers: one thread each. Output, diagnostics and summary are
    // the same as the serial run's, byte for byte and in the same order;
    // memory stays bounded (a few batches per worker in flight).
    let target = if config.flush_each { 1 } else { BATCH_BYTES };
    let (batch_tx, batch_rx) = sync_channel::<Batch>(jobs * 2);
    let batch_rx: Arc<Mutex<Receiver<Batch>>> = Arc::new(Mutex::new(batch_rx));
    let (done_tx, done_rx) = sync_channel::<Result<Done<P::Counts>, PipelineError>>(jobs * 2);
    let mut total = Summary::<P::Counts>::default();
    let spare = &Spare::new(4 * jobs + 4);
    let copy = workers[0].writes() && !config.drop_invalid;
    // Raised when the writer stops early (a write error, or a stop
    // request), so the reader and the workers stop too.
    let halt = &AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<(), PipelineError> {
        for proc in workers.iter_mut() {
            let rx = Arc::clone(&batch_rx);
            let tx = done_tx.clone();
            scope.spawn(move || loop {
                let batch = match rx.lock() {
                    Ok(guard) => match guard.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    },
                    Err(_) => return,
                };
                let mut out = Output { inner: spare.take(), flush_each: false };
                let mut rendered = Rendered::default();
                let result = if batch.kind == Piece::Tail {
                    if copy {
                        out.inner.extend_from_slice(&batch.data);
                    }
                    Ok(Summary::default())
                } else {
                    out.inner.reserve(batch.data.len() + batch.data.len() / 8);
                    let before = batch.first_line - 1;
                    let mut sink = |r: &LineReport<'_>| render(r, &mut rendered);
                    let r = serial(&batch.data[..], &mut out, proc, config, before, &mut sink, &mut |_| {});
                    if batch.kind == Piece::LongHead && copy {
                        // The line goes on in the Tail pieces.
                        out.inner.pop();
                    }
                    r
                };
                spare.give(batch.data);
                let done = result.map(|summary| Done { index: batch.index, output: out.inner, rendered, summary });
                if tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        // Reader thread: batches in order; it stops when the workers do.
        let reader = scope.spawn(move || -> Result<(), PipelineError> {
            let mut batcher = Batcher::new(&mut input, target, config.lines_before);
            while !halt.load(Ordering::Relaxed) && !config.stopped() {
                let Some(b) = batcher.next_batch(spare.take())? else { break };
                if batch_tx.send(b).is_err() {
                    break;
                }
            }
            Ok(())
        });
        // This thread writes results in order.
        let mut pending: BTreeMap<u64, Done<P::Counts>> = BTreeMap::new();
        let mut next = 0u64;
        let mut failure: Option<PipelineError> = None;
        let mut ended = false;
        for done in done_rx.iter() {
            match done {
                Ok(d) => {
                    pending.insert(d.index, d);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                    halt.store(true, Ordering::Relaxed);
                    continue;
                }
            }
            while let Some(d) = pending.remove(&next) {
                next += 1;
                if failure.is_none() && !ended {
                    if !d.rendered.is_empty() {
                        emit(&d.rendered);
                    }
                    let written =
                        output.write_all(&d.output).and_then(
                            |()| {
                                if config.flush_each {
                                    output.flush()
                                } else {
                                    Ok(())
                                }
                            },
                        );
                    if let Err(e) = written {
                        failure = Some(PipelineError::Write(e));
                        halt.store(true, Ordering::Relaxed);
                    } else {
                        // A batch cut short by a stop request ends the
                        // output: what follows it is not in order.
                        ended = d.summary.interrupted;
                        total += d.summary;
                        progress(&total);
                        if ended {
                            halt.store(true, Ordering::Relaxed);
                        }
                    }
                }
                spare.give(d.output);
            }
        }
        let read_result =
            reader.join().unwrap_or_else(|_| Err(PipelineError::Read(io::Error::other("the reader thread panicked"))));
        if let Some(e) = failure {
            return Err(e);
        }
        read_result?;
        if config.stopped() {
            total.interrupted = true;
        }
        output.flush().map_err(PipelineError::Write)
    })?;
    Ok(total)
}

/// [`run`] with one worker on this thread, handing each line's
/// diagnostics to `report` as it goes: neither the input nor the
/// callbacks need to be sendable to other threads.
///
/// # Errors
/// Reading the input or writing the output failed.
pub fn run_serial<P: Processor, R: BufRead, W: Write>(
    input: R,
    output: W,
    proc: &mut P,
    config: &Config<'_>,
    report: &mut dyn FnMut(&LineReport<'_>),
    progress: &mut dyn FnMut(&Summary<P::Counts>),
) -> Result<Summary<P::Counts>, PipelineError> {
    let mut output = Output { inner: output, flush_each: config.flush_each };
    let s = serial(input, &mut output, proc, config, config.lines_before, report, progress)?;
    output.inner.flush().map_err(PipelineError::Write)?;
    Ok(s)
}

/// The output of a serial run, flushed after each record when asked.
struct Output<W> {
    inner: W,
    flush_each: bool,
}

impl<W: Write> Output<W> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), PipelineError> {
        self.inner.write_all(bytes).map_err(PipelineError::Write)
    }

    /// One record's output written.
    #[inline]
    fn done(&mut self) -> Result<(), PipelineError> {
        if self.flush_each {
            self.inner.flush().map_err(PipelineError::Write)?;
        }
        Ok(())
    }
}

/// Reads one line into `buf` (without `\n`), up to `MAX_LINE` bytes.
/// Returns `Ok(None)` at end of input, `Ok(Some(true))` for a line cut at
/// the limit (its tail not yet read).
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> Result<Option<bool>, PipelineError> {
    buf.clear();
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(PipelineError::Read(e)),
        };
        if available.is_empty() {
            return Ok(if buf.is_empty() { None } else { Some(false) });
        }
        let room = MAX_LINE - buf.len();
        let window = &available[..available.len().min(room)];
        match find_newline(window) {
            Some(i) => {
                buf.extend_from_slice(&available[..i]);
                input.consume(i + 1);
                return Ok(Some(false));
            }
            None => {
                let n = available.len().min(room);
                buf.extend_from_slice(&available[..n]);
                input.consume(n);
                if buf.len() >= MAX_LINE {
                    return Ok(Some(true));
                }
            }
        }
    }
}

/// A line with nothing but whitespace and NUL bytes (no record).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b.is_ascii_whitespace() || b == 0)
}

/// The diagnostic for a line longer than `MAX_LINE`, which is not parsed
/// (a parsed record takes many times its line).
fn line_too_long() -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        code: Code::LineTooLong,
        offset: MAX_LINE,
        opcode: None,
        operand: None,
        message: format!("line longer than {MAX_LINE} bytes: not parsed, copied through unchanged"),
    }
}

/// Copies the rest of an over-long line through (or skips it).
fn pass_tail<R: BufRead, W: Write>(input: &mut R, out: &mut Output<W>, copy: bool) -> Result<(), PipelineError> {
    loop {
        let available = input.fill_buf().map_err(PipelineError::Read)?;
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if copy {
                    out.put(&available[..i])?;
                }
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                if copy {
                    out.put(available)?;
                }
                input.consume(n);
            }
        }
    }
}

fn trim_end(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&b| !b.is_ascii_whitespace() && b != 0).map_or(0, |i| i + 1);
    &s[..end]
}

/// The serial run over `input`, whose first line is line `lines_before +
/// 1` of the whole input (a batch of a parallel run starts mid-input).
fn serial<P: Processor, R: BufRead, W: Write>(
    mut input: R,
    output: &mut Output<W>,
    proc: &mut P,
    config: &Config<'_>,
    lines_before: u64,
    report: &mut dyn FnMut(&LineReport<'_>),
    progress: &mut dyn FnMut(&Summary<P::Counts>),
) -> Result<Summary<P::Counts>, PipelineError> {
    let mode = proc.mode();
    let writes = proc.writes();
    let copy_invalid = writes && !config.drop_invalid;
    let mut summary = Summary::<P::Counts>::default();
    let mut line = Vec::with_capacity(256);
    let mut next = Vec::with_capacity(256);
    let mut have_next = false;
    let mut next_cut = false;
    let mut rec = Record::default();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut out: Vec<u8> = Vec::with_capacity(256);
    let mut joined: Vec<u8> = Vec::new();
    // A verb that copies canonical records takes a whole line from the
    // reader's buffer without copying it; a line that is not a valid
    // record already in canonical form is then copied and goes the
    // general way, parsed.
    let takes = proc.takes_canonical();
    let in_place = proc.copies_canonical() || takes;
    loop {
        if config.stopped() {
            summary.interrupted = true;
            break;
        }
        let mut parsed = false;
        let cut = if have_next {
            core::mem::swap(&mut line, &mut next);
            have_next = false;
            next_cut
        } else {
            let available: &[u8] = if in_place {
                match input.fill_buf() {
                    Ok(b) => b,
                    // read_line, below, retries.
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => &[],
                    Err(e) => return Err(PipelineError::Read(e)),
                }
            } else {
                &[]
            };
            // A line the buffer holds whole and shorter than MAX_LINE (as
            // read_line counts: a line of MAX_LINE bytes is cut); the end
            // of the input, a last line without a newline, a line across
            // the buffer's end or a long one go to read_line.
            match find_newline(&available[..available.len().min(MAX_LINE)]) {
                Some(i) => {
                    let text = &available[..i];
                    if is_blank(text) {
                        line.clear();
                    } else if takes {
                        diags.clear();
                        out.clear();
                        let mut counts = P::Counts::default();
                        let line_no = lines_before + summary.lines + 1;
                        let job = Job { line: line_no, text, diags: &mut diags, out: &mut out, counts: &mut counts };
                        match proc.canonical(&mut rec, job) {
                            Some(Ok(())) => {
                                summary.lines += 1;
                                summary.records += 1;
                                tally(&mut summary, line_no, text, &diags, counts, report);
                                if writes {
                                    output.put(&out)?;
                                }
                                input.consume(i + 1);
                                output.done()?;
                                if config.flush_each {
                                    progress(&summary);
                                }
                                continue;
                            }
                            Some(Err(Interrupted)) => {
                                summary.interrupted = true;
                                break;
                            }
                            // Not taken: read in full (the fast path has
                            // had its try).
                            None => {
                                diags.clear();
                                rec.parse_general(text, mode, &mut diags);
                                parsed = true;
                                line.clear();
                                line.extend_from_slice(text);
                            }
                        }
                    } else {
                        diags.clear();
                        // A canonical line is judged without building its
                        // record; any other is then read in full.
                        let as_is = rec.is_canonical_line(text) || {
                            rec.parse_general(text, mode, &mut diags);
                            diags.is_empty() && rec.is_source_canonical()
                        };
                        if as_is {
                            summary.lines += 1;
                            summary.records += 1;
                            if writes {
                                // The line and its newline, as they stand.
                                output.put(&available[..=i])?;
                            }
                            input.consume(i + 1);
                            continue;
                        }
                        parsed = true;
                        line.clear();
                        line.extend_from_slice(text);
                    }
                    input.consume(i + 1);
                    false
                }
                None => match read_line(&mut input, &mut line)? {
                    None => break,
                    Some(cut) => cut,
                },
            }
        };
        summary.lines += 1;
        let line_no = lines_before + summary.lines;
        if cut {
            summary.records += 1;
            summary.invalid += 1;
            summary.errors += 1;
            let d = [line_too_long()];
            report(&LineReport { line_no, text: &line[..256.min(line.len())], diagnostics: &d });
            if copy_invalid {
                output.put(&line)?;
            }
            pass_tail(&mut input, output, copy_invalid)?;
            if copy_invalid {
                output.put(b"\n")?;
            }
            output.done()?;
            continue;
        }
        if !parsed && is_blank(&line) {
            if writes && proc.keeps_blank_lines() {
                output.put(b"\n")?;
            }
            continue;
        }
        summary.records += 1;
        if !parsed {
            diags.clear();
            rec.parse_into(&line, mode, &mut diags);
        }
        let mut text: &[u8] = &line;
        let mut two_lines = false;
        // Lenient: a string continued on the next line.
        if mode == ParseMode::Lenient && diags.iter().any(|d| d.code == Code::UnterminatedString) {
            if let Some(c) = read_line(&mut input, &mut next)? {
                have_next = true;
                next_cut = c;
                // Join only a continuation: a next line that starts a
                // record of its own is never swallowed.
                let continuation = crate::parse_fields(&next, ParseMode::Lenient, crate::Counters::Optional).is_err();
                if !c && continuation {
                    joined.clear();
                    joined.extend_from_slice(trim_end(&line));
                    joined.push(b' ');
                    joined.extend_from_slice(next.trim_ascii_start());
                    let mut jd = Vec::new();
                    let mut jr = Record::default();
                    jr.parse_into(&joined, mode, &mut jd);
                    if !has_errors(&jd) {
                        jd.push(Diagnostic {
                            severity: Severity::Warning,
                            code: Code::UnterminatedString,
                            offset: trim_end(&line).len(),
                            opcode: None,
                            operand: None,
                            message: format!("string continues on line {}; the two lines were joined", line_no + 1),
                        });
                        rec = jr;
                        diags = jd;
                        have_next = false;
                        summary.lines += 1;
                        two_lines = true;
                        text = &joined;
                    }
                }
            }
        }
        let invalid = has_errors(&diags) || rec.position().is_none();
        out.clear();
        let mut counts = P::Counts::default();
        let job = Job { line: line_no, text, diags: &mut diags, out: &mut out, counts: &mut counts };
        if !invalid && proc.record(&mut rec, job).is_err() {
            // Not finished: neither counted nor written.
            summary.records -= 1;
            summary.lines -= if two_lines { 2 } else { 1 };
            summary.interrupted = true;
            break;
        }
        tally(&mut summary, line_no, text, &diags, counts, report);
        if invalid {
            summary.invalid += 1;
            if copy_invalid {
                output.put(text)?;
                output.put(b"\n")?;
            }
        } else if writes {
            output.put(&out)?;
        }
        output.done()?;
        if config.flush_each {
            progress(&summary);
        }
    }
    Ok(summary)
}

/// Adds one record's diagnostics (by severity) and the verb's counts to
/// `summary`, and hands the diagnostics, if any, to `report`: the same
/// for a line the canonical fast path took and for a parsed one.
#[inline]
fn tally<C: core::ops::AddAssign>(
    summary: &mut Summary<C>,
    line_no: u64,
    text: &[u8],
    diags: &[Diagnostic],
    counts: C,
    report: &mut dyn FnMut(&LineReport<'_>),
) {
    for d in diags {
        match d.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
        }
    }
    if !diags.is_empty() {
        report(&LineReport { line_no, text, diagnostics: diags });
    }
    summary.counts += counts;
}

/// The first `\n`. Blocks of 32 bytes are tested with a loop the compiler
/// turns into vector compares (no early exit inside a block, so it can);
/// the block holding the byte is then searched eight bytes at a time.
fn find_newline(s: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut base = 0;
    for block in s.chunks_exact(32) {
        if block.iter().fold(false, |hit, &b| hit | (b == b'\n')) {
            break;
        }
        base += 32;
    }
    let rest = &s[base..];
    let mut words = rest.chunks_exact(8);
    for c in &mut words {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ (LO * u64::from(b'\n'));
        let hit = x.wrapping_sub(LO) & !x & HI;
        if hit != 0 {
            // The lowest flagged byte is exact.
            return Some(base + (hit.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    words.remainder().iter().position(|&b| b == b'\n').map(|i| base + i)
}

struct Batch {
    index: u64,
    first_line: u64,
    data: Vec<u8>,
    kind: Piece,
}

/// What a batch holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// Whole lines (the last may lack its `\n` at the end of the input).
    Lines,
    /// The first `MAX_LINE` bytes of an over-long line: reported and, when
    /// records are copied, copied through; the line's end comes in `Tail`s.
    LongHead,
    /// More of an over-long line, copied through or skipped as is; the last
    /// one ends with the line's `\n`.
    Tail,
}

struct Done<C> {
    index: u64,
    output: Vec<u8>,
    rendered: Rendered,
    summary: Summary<C>,
}

/// Bytes of input per batch handed to a worker by the fast verbs; the
/// slow ones (`flush_each`) hand out one record at a time.
const BATCH_BYTES: usize = 1 << 18;

/// Cuts the input into batches of whole lines of about `target` bytes,
/// reading it in blocks (no per-line work but one newline count).
///
/// A batch never ends on a line with an odd number of `"`, so a string
/// continued on the next line is joined exactly as the serial run joins
/// it. Memory stays bounded whatever the bytes: a line longer than
/// `MAX_LINE` goes out as its first `MAX_LINE` bytes and then in pieces,
/// and a batch is cut at its last line end once it holds `target +
/// MAX_LINE` bytes without a place to end.
struct Batcher<R> {
    input: R,
    /// Bytes read but not yet in a batch.
    carry: Vec<u8>,
    index: u64,
    /// The line number of the next batch's first line.
    line: u64,
    /// Inside the tail of an over-long line.
    tail: bool,
    eof: bool,
    target: usize,
}

impl<R: BufRead> Batcher<R> {
    fn new(input: R, target: usize, lines_before: u64) -> Batcher<R> {
        Batcher { input, carry: Vec::new(), index: 0, line: 1 + lines_before, tail: false, eof: false, target }
    }

    /// Appends the carried bytes, or the next block of input, to `data`;
    /// `false` at the end of the input.
    fn more(&mut self, data: &mut Vec<u8>) -> Result<bool, PipelineError> {
        if !self.carry.is_empty() {
            data.append(&mut self.carry);
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        loop {
            match self.input.fill_buf() {
                Ok([]) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(block) => {
                    let n = block.len();
                    data.extend_from_slice(block);
                    self.input.consume(n);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(PipelineError::Read(e)),
            }
        }
    }

    fn batch(&mut self, mut data: Vec<u8>, keep: usize, lines: u64, kind: Piece) -> Batch {
        // `more` has moved every carried byte into `data` by now.
        debug_assert!(self.carry.is_empty());
        self.carry = data.split_off(keep);
        let b = Batch { index: self.index, first_line: self.line, data, kind };
        self.index += 1;
        self.line += lines;
        b
    }

    /// The next batch, built in `data` (an empty buffer, recycled).
    fn next_batch(&mut self, mut data: Vec<u8>) -> Result<Option<Batch>, PipelineError> {
        let target = self.target;
        data.clear();
        data.reserve(target.min(BATCH_BYTES) + (1 << 16));
        if self.tail {
            let mut ended = false;
            while data.len() < BATCH_BYTES && find_newline(&data).is_none() {
                if !self.more(&mut data)? {
                    ended = true;
                    break;
                }
            }
            if data.is_empty() {
                return Ok(None);
            }
            let keep = match find_newline(&data) {
                Some(i) => {
                    self.tail = false;
                    i + 1
                }
                None if !ended => BATCH_BYTES.min(data.len()),
                None => {
                    // The input ends inside the line: the serial run ends
                    // the copied line with a `\n` all the same.
                    self.tail = false;
                    data.push(b'\n');
                    data.len()
                }
            };
            return Ok(Some(self.batch(data, keep, 0, Piece::Tail)));
        }
        // Fill to the target, then look for the first line end after it
        // that closes a line with an even number of quotes.
        let mut searched = 0;
        loop {
            if data.len() >= target {
                let mut from = searched.max(target - 1);
                while let Some(i) = find_newline(&data[from..]) {
                    let end = from + i + 1;
                    let start = data[..end - 1].iter().rposition(|&b| b == b'\n').map_or(0, |j| j + 1);
                    if data[start..end].iter().filter(|&&b| b == b'"').count() % 2 == 0 {
                        let lines = count_newlines(&data[..end]);
                        return Ok(Some(self.batch(data, end, lines, Piece::Lines)));
                    }
                    from = end;
                }
                searched = data.len();
                if data.len() >= target + MAX_LINE {
                    return Ok(Some(self.forced(data)));
                }
            }
            if !self.more(&mut data)? {
                break;
            }
        }
        if data.is_empty() {
            return Ok(None);
        }
        let mut lines = count_newlines(&data);
        if data.last() != Some(&b'\n') {
            lines += 1;
        }
        let n = data.len();
        Ok(Some(self.batch(data, n, lines, Piece::Lines)))
    }

    /// No place to end a batch within bounds: the whole lines so far go
    /// out, or, when the batch starts with an over-long line, its head.
    fn forced(&mut self, data: Vec<u8>) -> Batch {
        match find_newline(&data) {
            // As `read_line` has it: a line is cut when no `\n` comes
            // within its first MAX_LINE bytes.
            Some(i) if i < MAX_LINE => {
                let end = data.iter().rposition(|&b| b == b'\n').map_or(0, |j| j + 1);
                let lines = count_newlines(&data[..end]);
                self.batch(data, end, lines, Piece::Lines)
            }
            _ => {
                self.tail = true;
                self.batch(data, MAX_LINE, 1, Piece::LongHead)
            }
        }
    }
}

/// Buffers handed back for reuse between the reader, the workers and the
/// writer: fresh 256 KiB buffers cost page faults on every batch.
struct Spare {
    free: Mutex<Vec<Vec<u8>>>,
    max: usize,
}

impl Spare {
    fn new(max: usize) -> Spare {
        Spare { free: Mutex::new(Vec::new()), max }
    }

    /// An empty buffer, recycled when one is free.
    fn take(&self) -> Vec<u8> {
        self.free.lock().ok().and_then(|mut f| f.pop()).unwrap_or_default()
    }

    /// Hands `buf` back (dropped when enough are kept already, or when it
    /// grew far beyond a batch).
    fn give(&self, mut buf: Vec<u8>) {
        if buf.capacity() > 4 * (BATCH_BYTES + MAX_LINE) {
            return;
        }
        buf.clear();
        if let Ok(mut f) = self.free.lock() {
            if f.len() < self.max {
                f.push(buf);
            }
        }
    }
}

/// The number of `\n` bytes, eight at a time.
fn count_newlines(s: &[u8]) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    let mut chunks = s.chunks_exact(8);
    let mut n = 0u64;
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ (LO * u64::from(b'\n'));
        // A zero byte of x is a newline. Adding 0x7f to each byte's low
        // seven bits sets its high bit unless they are all zero (no carry
        // between bytes); or-ing x in covers the high bit itself.
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let y = (x & LOW7) + LOW7;
        let zero = !(y | x | LOW7);
        n += u64::from(zero.count_ones());
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length around the block and word sizes, the newline at every
    /// position (and a second one after it, and none).
    #[test]
    fn find_newline_finds_the_first_newline() {
        for len in 0..100 {
            let plain: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert_eq!(find_newline(&plain), None, "{len}");
            for at in 0..len {
                let mut s = plain.clone();
                s[at] = b'\n';
                if at + 3 < len {
                    s[at + 3] = b'\n';
                }
                assert_eq!(find_newline(&s), Some(at), "{len} {at}");
                assert_eq!(find_newline(&s[at + 1..]), s[at + 1..].iter().position(|&b| b == b'\n'), "{len} {at}");
            }
        }
    }

    #[test]
    fn count_newlines_counts_every_newline() {
        for len in 0..40 {
            for step in 1..5 {
                let s: Vec<u8> = (0..len).map(|i| if i % step == 0 { b'\n' } else { 0x8a }).collect();
                assert_eq!(count_newlines(&s), s.iter().filter(|&&b| b == b'\n').count() as u64);
            }
        }
    }
}
