//! The processing verbs over streams of lines: normalize (pfdn), purge
//! (pfop), repair (pfdr) and check. Each keeps record order, holds one
//! line at a time (bounded memory), and never drops a line: an invalid
//! record is copied through unchanged unless the caller asks to drop it.

use std::io::{self, BufRead, Write};

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

/// What to do with each record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    /// Validate only; write nothing.
    Check,
    /// pfdn: write the canonical form of each valid record.
    Normalize,
    /// pfop: remove the operations with these opcodes, leaving the rest of
    /// the text as it was.
    Purge(Vec<String>),
    /// pfdr: read leniently, repair, write the canonical form.
    Repair,
}

/// Options for [`run`].
#[derive(Clone, Debug)]
pub struct Options {
    /// How strictly to read (repair is always lenient).
    pub mode: ParseMode,
    /// Leave invalid records out of the output instead of copying them.
    pub drop_invalid: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { mode: ParseMode::Strict, drop_invalid: false }
    }
}

/// Counts from one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines read (blank ones included).
    pub lines: u64,
    /// Records read (non-blank lines).
    pub records: u64,
    /// Records with at least one error.
    pub invalid: u64,
    /// Records changed by the verb.
    pub changed: u64,
    /// Warnings reported.
    pub warnings: u64,
    /// Errors reported.
    pub errors: u64,
}

impl core::ops::AddAssign for Summary {
    /// Adds another run's counts (several files, several batches).
    fn add_assign(&mut self, other: Summary) {
        self.lines += other.lines;
        self.records += other.records;
        self.invalid += other.invalid;
        self.changed += other.changed;
        self.warnings += other.warnings;
        self.errors += other.errors;
    }
}

/// The diagnostics of one line, handed to the caller's reporter.
#[derive(Debug)]
pub struct LineReport<'a> {
    /// 1-based line number.
    pub line_no: u64,
    /// The line's bytes (without its newline).
    pub text: &'a [u8],
    /// What was found.
    pub diagnostics: &'a [Diagnostic],
}

/// Reads one line into `buf` (without `\n`), up to `MAX_LINE` bytes.
/// Returns `Ok(None)` at end of input, `Ok(Some(true))` for a line cut at
/// the limit (its tail not yet read).
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<Option<bool>> {
    buf.clear();
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
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
pub(crate) fn line_too_long() -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        code: Code::LineTooLong,
        offset: MAX_LINE,
        opcode: None,
        operand: None,
        message: format!("line longer than {MAX_LINE} bytes: not parsed, copied through unchanged"),
    }
}

/// Parses `line` into `rec` as the engine verbs do, whose lines are read
/// whole: a line over `MAX_LINE` is not parsed and gets only the E003
/// error, so the caller copies it through as any invalid record.
pub fn parse_capped(rec: &mut Record, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>) {
    if line.len() > MAX_LINE {
        diags.push(line_too_long());
    } else {
        rec.parse_into(line, mode, diags);
    }
}

/// Copies the rest of an over-long line through (or skips it).
fn pass_tail<R: BufRead, W: Write>(input: &mut R, out: &mut W, copy: bool) -> io::Result<()> {
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if copy {
                    out.write_all(&available[..i])?;
                }
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                if copy {
                    out.write_all(available)?;
                }
                input.consume(n);
            }
        }
    }
}

/// Runs a verb over `input`, writing to `output` and handing each line's
/// diagnostics to `report`.
///
/// # Errors
/// Only I/O errors; bad records are diagnostics.
pub fn run<R: BufRead, W: Write>(
    input: R,
    output: W,
    verb: &Verb,
    options: &Options,
    report: impl FnMut(&LineReport<'_>),
) -> io::Result<Summary> {
    run_from(input, output, verb, options, 0, report)
}

/// [`run`] on a part of an input that starts after `lines_before` lines:
/// line numbers, in reports and in messages, count from the start of the
/// whole input.
fn run_from<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    verb: &Verb,
    options: &Options,
    lines_before: u64,
    mut report: impl FnMut(&LineReport<'_>),
) -> io::Result<Summary> {
    let mode = if *verb == Verb::Repair { ParseMode::Lenient } else { options.mode };
    let mut summary = Summary::default();
    let mut line = Vec::with_capacity(256);
    let mut next = Vec::with_capacity(256);
    let mut have_next = false;
    let mut next_cut = false;
    let mut rec = Record::default();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut out: Vec<u8> = Vec::with_capacity(256);
    let mut joined: Vec<u8> = Vec::new();
    let purge: Vec<&str> = match verb {
        Verb::Purge(ops) => ops.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    // Normalize, repair and check take a whole line from the reader's
    // buffer without copying it; a line that is not a valid record already
    // in canonical form is then copied and goes the general way, parsed.
    let in_place = matches!(verb, Verb::Normalize | Verb::Repair | Verb::Check);
    loop {
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
                    Err(e) => return Err(e),
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
                    } else {
                        diags.clear();
                        // A canonical line is judged without building its
                        // record; any other is then read in full.
                        let as_is = rec.is_canonical_line(text) || {
                            rec.parse_into_general(text, mode, &mut diags);
                            diags.is_empty() && rec.is_source_canonical()
                        };
                        if as_is {
                            summary.lines += 1;
                            summary.records += 1;
                            if *verb != Verb::Check {
                                // The line and its newline, as they stand.
                                output.write_all(&available[..=i])?;
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
            let copy = *verb != Verb::Check && !options.drop_invalid;
            if copy {
                output.write_all(&line)?;
            }
            pass_tail(&mut input, &mut output, copy)?;
            if copy {
                output.write_all(b"\n")?;
            }
            continue;
        }
        if !parsed && is_blank(&line) {
            if *verb != Verb::Check {
                output.write_all(b"\n")?;
            }
            continue;
        }
        summary.records += 1;
        if !parsed {
            diags.clear();
            rec.parse_into(&line, mode, &mut diags);
        }
        let mut text: &[u8] = &line;
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
                        text = &joined;
                    }
                }
            }
        }
        let invalid = has_errors(&diags);
        for d in &diags {
            match d.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
            }
        }
        if !diags.is_empty() {
            report(&LineReport { line_no, text, diagnostics: &diags });
        }
        if invalid {
            summary.invalid += 1;
        }
        if *verb == Verb::Check {
            continue;
        }
        if invalid {
            if !options.drop_invalid {
                output.write_all(text)?;
                output.write_all(b"\n")?;
            }
            continue;
        }
        if matches!(verb, Verb::Normalize | Verb::Repair) && rec.is_source_canonical() {
            // Already canonical: the line as it stands.
            output.write_all(text)?;
            output.write_all(b"\n")?;
            continue;
        }
        out.clear();
        let same = match verb {
            Verb::Purge(_) => {
                let ranges = rec.source_ranges(text, &purge);
                let mut at = 0;
                for r in &ranges {
                    out.extend_from_slice(&text[at..r.start]);
                    at = r.end;
                }
                out.extend_from_slice(&text[at..]);
                out.as_slice() == text
            }
            _ => {
                rec.append_canonical(&mut out);
                out.as_slice() == text
            }
        };
        if !same {
            summary.changed += 1;
        }
        out.push(b'\n');
        output.write_all(&out)?;
    }
    output.flush()?;
    Ok(summary)
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

fn trim_end(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&b| !b.is_ascii_whitespace() && b != 0).map_or(0, |i| i + 1);
    &s[..end]
}

/// Normalizes a whole text in memory (convenience for tests and small
/// inputs): returns the output and the summary.
#[must_use]
pub fn normalize_str(input: &[u8], mode: ParseMode) -> (Vec<u8>, Summary) {
    let mut out = Vec::new();
    let opts = Options { mode, drop_invalid: false };
    // Writing to a Vec cannot fail.
    let summary = run(input, &mut out, &Verb::Normalize, &opts, |_| {}).unwrap_or_default();
    (out, summary)
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

struct Done {
    index: u64,
    output: Vec<u8>,
    rendered: Vec<u8>,
    summary: Summary,
}

/// Bytes of input per batch handed to a worker.
const BATCH_BYTES: usize = 1 << 18;

/// Cuts the input into batches of whole lines of about `BATCH_BYTES`,
/// reading it in blocks (no per-line work but one newline count).
///
/// A batch never ends on a line with an odd number of `"`, so a string
/// continued on the next line is joined exactly as the serial run joins
/// it. Memory stays bounded whatever the bytes: a line longer than
/// `MAX_LINE` goes out as its first `MAX_LINE` bytes and then in pieces,
/// and a batch is cut at its last line end once it holds `BATCH_BYTES +
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
}

impl<R: BufRead> Batcher<R> {
    fn new(input: R) -> Batcher<R> {
        Batcher { input, carry: Vec::new(), index: 0, line: 1, tail: false, eof: false }
    }

    /// Appends the carried bytes, or the next block of input, to `data`;
    /// `false` at the end of the input.
    fn more(&mut self, data: &mut Vec<u8>) -> io::Result<bool> {
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
                Err(e) => return Err(e),
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
    fn next_batch(&mut self, mut data: Vec<u8>) -> io::Result<Option<Batch>> {
        data.clear();
        data.reserve(BATCH_BYTES + (1 << 16));
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
        // Fill to BATCH_BYTES, then look for the first line end after it
        // that closes a line with an even number of quotes.
        let mut searched = 0;
        loop {
            if data.len() >= BATCH_BYTES {
                let mut from = searched.max(BATCH_BYTES - 1);
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
                if data.len() >= BATCH_BYTES + MAX_LINE {
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
    free: std::sync::Mutex<Vec<Vec<u8>>>,
    max: usize,
}

impl Spare {
    fn new(max: usize) -> Spare {
        Spare { free: std::sync::Mutex::new(Vec::new()), max }
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

/// [`run`] on `jobs` worker threads. Output, diagnostics and summary are
/// the same as the serial run's, byte for byte and in the same order;
/// memory stays bounded (a few batches per worker in flight).
///
/// Diagnostics are rendered by `render` on the worker threads (the
/// report's `line_no` counts from the start of the whole input) and the
/// rendered bytes handed to `emit` in input order, so reporting does not
/// serialize the work.
///
/// # Errors
/// Only I/O errors.
pub fn run_parallel<R: BufRead + Send, W: Write>(
    mut input: R,
    mut output: W,
    verb: &Verb,
    options: &Options,
    jobs: usize,
    render: impl Fn(&LineReport<'_>, &mut Vec<u8>) + Sync,
    mut emit: impl FnMut(&[u8]),
) -> io::Result<Summary> {
    use std::collections::BTreeMap;
    use std::sync::mpsc::{sync_channel, Receiver};
    use std::sync::{Arc, Mutex};

    let jobs = jobs.max(1);
    let (batch_tx, batch_rx) = sync_channel::<Batch>(jobs * 2);
    let batch_rx: Arc<Mutex<Receiver<Batch>>> = Arc::new(Mutex::new(batch_rx));
    let (done_tx, done_rx) = sync_channel::<io::Result<Done>>(jobs * 2);
    let mut total = Summary::default();
    let spare = &Spare::new(4 * jobs + 4);
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..jobs {
            let rx = Arc::clone(&batch_rx);
            let tx = done_tx.clone();
            let render = &render;
            scope.spawn(move || loop {
                let batch = match rx.lock() {
                    Ok(guard) => match guard.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    },
                    Err(_) => return,
                };
                let copy = *verb != Verb::Check && !options.drop_invalid;
                let mut out = spare.take();
                let mut rendered = Vec::new();
                let result = if batch.kind == Piece::Tail {
                    if copy {
                        out.extend_from_slice(&batch.data);
                    }
                    Ok(Summary::default())
                } else {
                    out.reserve(batch.data.len() + batch.data.len() / 8);
                    let before = batch.first_line - 1;
                    let r = run_from(&batch.data[..], &mut out, verb, options, before, |r| render(r, &mut rendered));
                    if batch.kind == Piece::LongHead && copy {
                        // The line goes on in the Tail pieces.
                        out.pop();
                    }
                    r
                };
                spare.give(batch.data);
                let done = result.map(|summary| Done { index: batch.index, output: out, rendered, summary });
                if tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        // Reader thread: batches in order; it stops when the workers do.
        let reader = scope.spawn(move || -> io::Result<()> {
            let mut batcher = Batcher::new(&mut input);
            while let Some(b) = batcher.next_batch(spare.take())? {
                if batch_tx.send(b).is_err() {
                    break;
                }
            }
            Ok(())
        });
        // This thread writes results in order.
        let mut pending: BTreeMap<u64, Done> = BTreeMap::new();
        let mut next = 0u64;
        let mut failure: Option<io::Error> = None;
        for done in done_rx.iter() {
            match done {
                Ok(d) => {
                    pending.insert(d.index, d);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                    continue;
                }
            }
            while let Some(d) = pending.remove(&next) {
                next += 1;
                if failure.is_none() {
                    if !d.rendered.is_empty() {
                        emit(&d.rendered);
                    }
                    if let Err(e) = output.write_all(&d.output) {
                        failure = Some(e);
                    }
                }
                spare.give(d.output);
                total += d.summary;
            }
        }
        let read_result = reader.join().unwrap_or_else(|_| Err(io::Error::other("reader thread panicked")));
        if let Some(e) = failure {
            return Err(e);
        }
        read_result?;
        output.flush()
    })?;
    Ok(total)
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
}
