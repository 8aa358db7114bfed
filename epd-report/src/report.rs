//! A report over one or more runs: each run read through the kit's line
//! pipeline (so invalid records are diagnosed as everywhere else, and
//! counted) on a thread of its own, judged record by record, and the runs
//! compared pairwise as they are read, in step: a record is paired with
//! the same record of the other runs (by id, else by position) as soon as
//! every run has given it, so when the runs hold the same suite in the
//! same order, memory does not grow with the records. What a report keeps
//! per record (ids of missed records, lines of newly solved and newly
//! failed ones, ids and positions for duplicates, issues) is spooled to
//! disk past a bounded size ([`crate::spool`]). The ids of newly solved,
//! newly failed and duplicate records are read again from the files at
//! the end, by line; standard input is copied to a temporary file as it
//! is read, for that.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, Read, Seek, Write};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, NoCounts, Processor, Rendered};
use epd_core::{has_errors, Diagnostic, ParseMode, Record, Severity, Verdict};
use serde::Serialize;

use crate::fields::Fields;
use crate::key::{KeyBook, Solution};
use crate::measure::{measure, Measured};
use crate::run::{Brief, Effort, EffortKind, Grouping, IdList, Issues, Judged, Objective, RunStats};
use crate::spool::{At, Item, Spool};
use crate::stats::{binomial_two_sided, Distribution, FastHash};

/// The version of the JSON schema ([`Report`] serialised).
pub const SCHEMA: &str = "epd-report/1";

/// Diagnostics kept per run while the runs are read in parallel (the
/// rest are counted; the runs' issues list every invalid record).
pub const MAX_KEPT_DIAGNOSTICS: usize = 10_000;

/// Records a run's reader hands the comparison at a time.
const BATCH: usize = 256;
/// Batches a run's reader may be ahead of the comparison.
const AHEAD: usize = 16;

/// One run to read.
pub struct Input<'a> {
    /// Its label.
    pub label: String,
    /// Its file name, for messages.
    pub file: String,
    /// Its records.
    pub reader: Box<dyn BufRead + Send + 'a>,
    /// The file again, to read the ids the report lists; `None` (standard
    /// input): the input is copied to a temporary file as it is read.
    pub path: Option<PathBuf>,
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("label", &self.label).field("file", &self.file).finish_non_exhaustive()
    }
}

/// How the report is made.
#[derive(Debug, Default)]
pub struct Options {
    /// A separate solution key.
    pub key: Option<KeyBook>,
    /// How records are grouped into themes.
    pub grouping: Grouping,
    /// Read records strictly (default: leniently, as results files often
    /// need).
    pub strict: bool,
    /// Work out the time-based scores (BT-2630, BT-2450, LCT II).
    pub time_scores: bool,
    /// Threads that read records, all runs together (0: one per core).
    /// A run read alone gets them all; several runs read at once, a
    /// thread each, share them. The report is the same whatever their
    /// number.
    pub jobs: usize,
    /// The issues kept with their messages: the first this many of each
    /// run in line order, the others counted ([`Issues::first`]: what a
    /// text or HTML report shows); `None`, the default, keeps them all
    /// (JSON lists them all).
    pub issues_kept: Option<usize>,
    /// The same for each run's missed ids (what a text report shows).
    pub missed_kept: Option<usize>,
}

impl Options {
    /// The reading threads [`Options::jobs`] asks for.
    fn threads(&self) -> usize {
        match self.jobs {
            0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            n => n,
        }
    }
}

/// Two runs compared on the scored records they share (matched by id,
/// else by position).
#[derive(Debug, Serialize)]
pub struct Comparison {
    /// The first run's label.
    pub a: String,
    /// The second run's label.
    pub b: String,
    /// Records scored in both.
    pub paired: u64,
    /// Solved by both.
    pub both: u64,
    /// Solved by `a` only.
    pub a_only: u64,
    /// Solved by `b` only.
    pub b_only: u64,
    /// Solved by neither.
    pub neither: u64,
    /// McNemar's exact test on the discordant records (`a_only` against
    /// `b_only`): the two-sided binomial p-value.
    pub mcnemar_p: f64,
    /// Ids solved by `b` and not by `a`, in `b`'s line order.
    pub newly_solved: IdList,
    /// Ids solved by `a` and not by `b`, in `b`'s line order (their lines:
    /// the regressions).
    pub newly_failed: IdList,
    /// Scored records of `a` not in `b`, and of `b` not in `a`.
    pub unmatched: (u64, u64),
    /// Solve times on the records both solved, when both have them and
    /// they measure the same (solve times, or acs in both).
    pub times: Option<PairedTimes>,
    /// What the comparison left out, and why (runs that recorded their
    /// effort differently), in words.
    pub left_out: Vec<String>,
    /// Records both solved, one timed when the move was found and the
    /// other by its whole search (acs): not compared.
    #[serde(skip)]
    times_unlike: u64,
    /// Records both solved with a time in one run only.
    #[serde(skip)]
    times_one_side: u64,
    /// Where in `b` the records `b` solved and `a` missed are.
    #[serde(skip)]
    solved_lines: Spool<At>,
    /// Where in `b` the records `a` solved and `b` missed are.
    #[serde(skip)]
    failed_lines: Spool<At>,
    /// The first error writing a spool.
    #[serde(skip)]
    spool_error: Option<io::Error>,
    /// log2 of b's time over a's, in thousandths.
    #[serde(skip)]
    log_ratios: Distribution,
    #[serde(skip)]
    log_sum: f64,
    #[serde(skip)]
    faster: (u64, u64),
    /// The solve times (seconds, `a` then `b`) of the first
    /// [`MAX_TIME_PAIRS`] records both solved, for a scatter plot.
    #[serde(skip)]
    pub time_pairs: Vec<(f64, f64)>,
}

/// The most paired solve times a comparison keeps for plotting.
pub const MAX_TIME_PAIRS: usize = 10_000;

/// Solve times compared on the records both runs solved.
#[derive(Clone, Debug, Serialize)]
pub struct PairedTimes {
    /// Records with a time in both.
    pub n: u64,
    /// Faster in `b`.
    pub b_faster: u64,
    /// Faster in `a`.
    pub a_faster: u64,
    /// The median of `b`'s time over `a`'s.
    pub median_ratio: f64,
    /// The geometric mean of `b`'s time over `a`'s. Times are compared at
    /// the coarser resolution of the two (1 ms from the solve-time
    /// extension in whole milliseconds, finer when it is written with
    /// decimals; 1 s from acs), rounded to it and at least one unit.
    pub geometric_mean_ratio: f64,
    /// The sign test (exact binomial, two-sided) of faster against slower,
    /// ties left out.
    pub sign_test_p: f64,
}

/// The report.
#[derive(Debug, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The runs, in the order given.
    pub runs: Vec<RunStats>,
    /// Every pair of runs, in order (first with second, first with third
    /// …, second with third …); none when the records are streamed out
    /// (CSV).
    pub comparisons: Vec<Comparison>,
    /// The last run's objective, for tuners.
    pub objective: Option<Objective>,
    /// Records of the key file, when one was given.
    pub key_records: Option<u64>,
    /// Which runs the effort curves draw (solved against time, against
    /// nodes): those that measure alike.
    pub curves: Curves,
}

/// The runs the effort curves draw, by index: of runs that measure their
/// effort differently (solve times from the extension, the whole
/// search's acs; nodes at the solve, the whole search's acn), only those
/// that measure alike, the extension's first, and the others said.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Curves {
    /// The runs drawn against time.
    pub time: Vec<usize>,
    /// The runs drawn against nodes.
    pub nodes: Vec<usize>,
    /// The runs left out, and why, in words.
    pub left_out: Vec<String>,
}

impl Curves {
    /// The curves of `runs`.
    #[must_use]
    pub fn of(runs: &[RunStats]) -> Curves {
        let mut c = Curves::default();
        for (time, what) in [(true, "time"), (false, "nodes")] {
            let kinds: Vec<EffortKind> =
                runs.iter().map(|r| if time { r.effort.time() } else { r.effort.nodes() }).collect();
            let target = [EffortKind::AtSolve, EffortKind::Whole, EffortKind::Mixed]
                .into_iter()
                .find(|m| kinds.contains(m))
                .unwrap_or(EffortKind::None);
            let mut drawn = Vec::new();
            for (i, &k) in kinds.iter().enumerate() {
                if k == target {
                    drawn.push(i);
                } else if k != EffortKind::None {
                    c.left_out.push(format!(
                        "{} is left out of the solved-against-{what} curve: it has {}, the others {}",
                        runs[i].label,
                        k.describe(time),
                        target.describe(time)
                    ));
                }
            }
            if time {
                c.time = drawn;
            } else {
                c.nodes = drawn;
            }
        }
        c
    }
}

impl Comparison {
    fn new(a: &str, b: &str) -> Comparison {
        Comparison {
            a: a.to_owned(),
            b: b.to_owned(),
            paired: 0,
            both: 0,
            a_only: 0,
            b_only: 0,
            neither: 0,
            mcnemar_p: 1.0,
            newly_solved: IdList::default(),
            newly_failed: IdList::default(),
            unmatched: (0, 0),
            times: None,
            left_out: Vec::new(),
            times_unlike: 0,
            times_one_side: 0,
            solved_lines: Spool::default(),
            failed_lines: Spool::default(),
            spool_error: None,
            time_pairs: Vec::new(),
            log_ratios: Distribution::default(),
            log_sum: 0.0,
            faster: (0, 0),
        }
    }

    /// One record both runs scored.
    fn pair(&mut self, ea: &Brief, eb: &Brief) {
        self.paired += 1;
        match (ea.verdict == Verdict::Solved, eb.verdict == Verdict::Solved) {
            (true, true) => {
                self.both += 1;
                match (ea.time, eb.time) {
                    (Some(_), Some(_)) if ea.time_at_solve != eb.time_at_solve => self.times_unlike += 1,
                    (Some(_), None) | (None, Some(_)) => self.times_one_side += 1,
                    _ => {}
                }
                let alike = ea.time_at_solve == eb.time_at_solve;
                if let (Some(ta), Some(tb), true) = (ea.time, eb.time, alike) {
                    // Compared at the coarser resolution of the two (whole
                    // seconds from acs): acs 0 and acs 1 are a tie.
                    let res = ea.resolution.max(eb.resolution);
                    let at = |t: f64| ((t / res).round() * res).max(res);
                    let (ta, tb) = (at(ta), at(tb));
                    let l = (tb / ta).log2();
                    self.log_sum += l;
                    self.log_ratios.add((l * 1000.0).round() as i64);
                    if tb < ta {
                        self.faster.0 += 1;
                    } else if ta < tb {
                        self.faster.1 += 1;
                    }
                    if self.time_pairs.len() < MAX_TIME_PAIRS {
                        self.time_pairs.push((ta, tb));
                    }
                }
            }
            (true, false) => {
                self.a_only += 1;
                if let Err(e) = self.failed_lines.push(eb.at) {
                    self.spool_error.get_or_insert(e);
                }
            }
            (false, true) => {
                self.b_only += 1;
                if let Err(e) = self.solved_lines.push(eb.at) {
                    self.spool_error.get_or_insert(e);
                }
            }
            (false, false) => self.neither += 1,
        }
    }

    /// Works out the tests once every record is paired; `ea` and `eb`
    /// are what the two runs recorded of their effort.
    fn finish(&mut self, ea: &Effort, eb: &Effort) {
        self.mcnemar_p = binomial_two_sided(self.a_only, self.b_only);
        if self.times_unlike > 0 {
            self.left_out.push(format!(
                "solve times left out on {} records both solved: {} has {}, {} has {} (acs is the whole search's \
                 time, not when the move was found)",
                self.times_unlike,
                self.a,
                ea.time().describe(true),
                self.b,
                eb.time().describe(true)
            ));
        }
        if self.times_one_side > 0 {
            self.left_out.push(format!(
                "solve times left out on {} records both solved with a time in one run only",
                self.times_one_side
            ));
        }
        let n = self.log_ratios.len();
        if n > 0 {
            let median = self.log_ratios.quantile(0.5).unwrap_or(0.0) / 1000.0;
            self.times = Some(PairedTimes {
                n,
                b_faster: self.faster.0,
                a_faster: self.faster.1,
                median_ratio: median.exp2(),
                geometric_mean_ratio: (self.log_sum / n as f64).exp2(),
                sign_test_p: binomial_two_sided(self.faster.0, self.faster.1),
            });
        }
    }
}

/// A worker of a run's reading: measures each valid record and writes
/// it out as a frame, for [`Apply`] to count in line order.
#[derive(Clone)]
struct Measure<'a> {
    key: Option<&'a KeyBook>,
    grouping: &'a Grouping,
    mode: ParseMode,
    /// The record's own key, its buffers kept from record to record.
    own: Solution,
    /// The whole judgement is wanted (CSV rows).
    detail: bool,
}

impl Processor for Measure<'_> {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn keeps_blank_lines(&self) -> bool {
        false
    }

    fn takes_canonical(&self) -> bool {
        true
    }

    fn canonical(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Option<Result<(), Interrupted>> {
        let (key, grouping, detail) = (self.key, self.grouping, self.detail);
        self.read(rec, job.text, |f| measure(f, job.line, key, grouping, detail).encode(job.out))
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
        let f = Fields::of(rec, std::mem::take(&mut self.own));
        measure(&f, job.line, self.key, self.grouping, self.detail).encode(job.out);
        self.own = f.own;
        Ok(())
    }
}

impl Measure<'_> {
    /// Reads a canonical line's fields as the fast path hands them over
    /// and gives them to `then`; `None` when the fast path does not take
    /// the line (it is then parsed in full).
    fn read<'l>(
        &mut self,
        rec: &mut Record,
        line: &'l [u8],
        then: impl FnOnce(&Fields<'l>),
    ) -> Option<Result<(), Interrupted>> {
        let mut f = Fields::with_buffers(std::mem::take(&mut self.own));
        let taken = rec.read_canonical(line, &mut f);
        if taken {
            f.finish();
            then(&f);
        }
        self.own = f.own;
        taken.then_some(Ok(()))
    }
}

/// The counting side of a run's reading: counts the measured records as
/// they come, in line order, and sends what the comparison needs.
struct Counter {
    stats: RunStats,
    to_compare: Option<SyncSender<Vec<Brief>>>,
    /// Scored records not yet sent to the comparison.
    batch: Vec<Brief>,
}

impl Counter {
    /// Counts one measured record; with `detail`, returns its whole
    /// judgement.
    fn count(&mut self, m: &Measured<'_>, detail: bool) -> Option<Judged> {
        let (brief, judged) = self.stats.apply(m, detail);
        if brief.verdict != Verdict::Unscored && self.to_compare.is_some() {
            self.batch.push(brief);
            if self.batch.len() >= BATCH {
                self.send();
            }
        }
        judged
    }

    /// Hands the batch to the comparison (which, if it stopped on an
    /// error, is ignored: the run is read to its end anyway).
    fn send(&mut self) {
        if let Some(tx) = &self.to_compare {
            if !self.batch.is_empty() {
                let _ = tx.send(std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH)));
            }
        }
    }
}

/// A run read by one worker, for no CSV rows: each record measured and
/// counted at once, on the reading thread, with no frame between (the
/// order is the line order already).
struct Direct<'a, 'c> {
    measure: Measure<'a>,
    counter: &'c mut Counter,
}

impl Processor for Direct<'_, '_> {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        self.measure.mode
    }

    fn keeps_blank_lines(&self) -> bool {
        false
    }

    fn takes_canonical(&self) -> bool {
        true
    }

    fn canonical(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Option<Result<(), Interrupted>> {
        let (key, grouping) = (self.measure.key, self.measure.grouping);
        let counter = &mut *self.counter;
        self.measure.read(rec, job.text, |f| {
            counter.count(&measure(f, job.line, key, grouping, false), false);
        })
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
        let w = &mut self.measure;
        let f = Fields::of(rec, std::mem::take(&mut w.own));
        self.counter.count(&measure(&f, job.line, w.key, w.grouping, false), false);
        w.own = f.own;
        Ok(())
    }
}

/// The pipeline's output when records are measured on workers (or CSV
/// rows are wanted): reads the frames back in line order and counts
/// them.
struct Apply<'a> {
    counter: Counter,
    /// Where the whole judgement of each record goes (CSV).
    on_record: Option<&'a mut dyn FnMut(&Judged)>,
    /// The start of a frame not yet whole.
    carry: Vec<u8>,
}

impl io::Write for Apply<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.carry.is_empty() {
            let used = self.count(bytes)?;
            self.carry.extend_from_slice(&bytes[used..]);
        } else {
            let mut carry = std::mem::take(&mut self.carry);
            carry.extend_from_slice(bytes);
            let used = self.count(&carry)?;
            carry.drain(..used);
            self.carry = carry;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Apply<'_> {
    /// Counts the whole frames at the start of `bytes`; returns the bytes
    /// they take.
    fn count(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut at = 0;
        while let Some((m, n)) = Measured::decode(&bytes[at..])? {
            at += n;
            let judged = self.counter.count(&m, self.on_record.is_some());
            if let (Some(j), Some(f)) = (judged, self.on_record.as_mut()) {
                f(&j);
            }
        }
        Ok(at)
    }
}

/// A line's diagnostics written whole into a [`Rendered`] batch on a
/// worker (a parallel run renders there), for [`diagnostics_of`] to read
/// back in line order: each diagnostic an entry, the line's text in its
/// first.
fn diagnostics_to(r: &LineReport<'_>, out: &mut Rendered) {
    for (i, d) in r.diagnostics.iter().enumerate() {
        out.push(r.line_no, d, |t| {
            let put = |t: &mut Vec<u8>, b: &[u8]| {
                t.extend_from_slice(&(b.len() as u64).to_le_bytes());
                t.extend_from_slice(b);
            };
            t.push(u8::from(i == 0));
            if i == 0 {
                put(t, r.text);
            }
            t.extend_from_slice(&(d.offset as u64).to_le_bytes());
            t.extend_from_slice(&d.operand.map_or(u64::MAX, |o| o as u64).to_le_bytes());
            t.push(u8::from(d.opcode.is_some()));
            put(t, d.opcode.as_deref().unwrap_or("").as_bytes());
            put(t, d.message.as_bytes());
        });
    }
}

/// Hands each line of a batch [`diagnostics_to`] wrote to `report`.
fn diagnostics_of(batch: &Rendered, report: &mut dyn FnMut(&LineReport<'_>)) {
    fn read<'a>(t: &mut &'a [u8], n: usize) -> &'a [u8] {
        let (head, rest) = t.split_at(n.min(t.len()));
        *t = rest;
        head
    }
    fn number(t: &mut &[u8]) -> u64 {
        let mut b = [0; 8];
        let head = read(t, 8);
        b[..head.len()].copy_from_slice(head);
        u64::from_le_bytes(b)
    }
    fn bytes<'a>(t: &mut &'a [u8]) -> &'a [u8] {
        let n = number(t);
        read(t, usize::try_from(n).unwrap_or(usize::MAX))
    }
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut line = (0, Vec::new());
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    for e in batch.iter() {
        let mut t = e.text;
        if read(&mut t, 1) == [1] {
            if !diagnostics.is_empty() {
                report(&LineReport { line_no: line.0, text: &line.1, diagnostics: &diagnostics });
                diagnostics.clear();
            }
            line = (e.line, bytes(&mut t).to_vec());
        }
        let offset = usize::try_from(number(&mut t)).unwrap_or(usize::MAX);
        let operand = usize::try_from(number(&mut t)).ok().filter(|&o| o as u64 != u64::MAX);
        let has_opcode = read(&mut t, 1) == [1];
        let opcode = text(bytes(&mut t));
        let message = text(bytes(&mut t));
        diagnostics.push(Diagnostic {
            severity: e.severity,
            code: e.code,
            offset,
            opcode: has_opcode.then_some(opcode),
            operand,
            message,
        });
    }
    if !diagnostics.is_empty() {
        report(&LineReport { line_no: line.0, text: &line.1, diagnostics: &diagnostics });
    }
}

/// A line's diagnostics, owned (kept while runs are read in parallel).
#[derive(Clone, Debug)]
struct KeptReport {
    line_no: u64,
    text: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
}

/// Where a run's ids are read again: its file, or the copy of standard
/// input.
enum Source {
    Path(PathBuf),
    Copy(File),
}

impl Source {
    fn open(&self) -> io::Result<Box<dyn Read + '_>> {
        Ok(match self {
            Source::Path(p) => Box::new(File::open(p)?),
            Source::Copy(f) => {
                let mut f = f;
                f.rewind()?;
                Box::new(f)
            }
        })
    }
}

/// An input copied to a temporary file as it is read.
struct Tee<R> {
    inner: R,
    copy: io::BufWriter<File>,
    error: Option<io::Error>,
}

impl<R: BufRead> Read for Tee<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        crate::spool::read_buffered(self, out)
    }
}

impl<R: BufRead> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        // The bytes consumed are the front of the buffer just filled.
        if let Ok(b) = self.inner.fill_buf() {
            if let Err(e) = self.copy.write_all(&b[..n.min(b.len())]) {
                self.error.get_or_insert(e);
            }
        }
        self.inner.consume(n);
    }
}

/// What a run's reading gives back.
struct RunDone {
    stats: RunStats,
    kept: Vec<KeptReport>,
    dropped: u64,
    source: Source,
}

fn first_error(r: &LineReport<'_>) -> Option<String> {
    if !has_errors(r.diagnostics) {
        return None;
    }
    let d = r.diagnostics.iter().find(|d| d.severity == Severity::Error)?;
    Some(format!("{}: {}", d.code, d.message))
}

/// Reads one run to its end, its records measured by `jobs` workers
/// (one: on this thread) and counted here in line order.
fn read_run(
    input: Input<'_>,
    options: &Options,
    jobs: usize,
    to_compare: Option<SyncSender<Vec<Brief>>>,
    on_record: Option<&mut dyn FnMut(&Judged)>,
    mut on_diagnostics: Option<&mut dyn FnMut(&LineReport<'_>)>,
) -> io::Result<RunDone> {
    let mode = if options.strict { ParseMode::Strict } else { ParseMode::Lenient };
    let mut stats = RunStats::new(&input.label, &input.file);
    stats.want_time_scores = options.time_scores;
    if let Some(n) = options.issues_kept {
        stats.issues = Issues::first(n);
    }
    if let Some(n) = options.missed_kept {
        stats.missed_ids = IdList::first(n);
    }
    let worker = Measure {
        key: options.key.as_ref(),
        grouping: &options.grouping,
        mode,
        own: Solution::default(),
        detail: on_record.is_some(),
    };
    let mut workers = vec![worker; jobs.max(1)];
    let counter = Counter { stats, to_compare, batch: Vec::with_capacity(BATCH) };
    let mut apply = Apply { counter, on_record, carry: Vec::new() };
    let mut invalid = Vec::new();
    let mut kept = Vec::new();
    let mut dropped = 0;
    let mut report = |r: &LineReport<'_>| {
        if let Some(why) = first_error(r) {
            invalid.push((r.line_no, why));
        }
        match on_diagnostics.as_mut() {
            Some(f) => f(r),
            None if kept.len() < MAX_KEPT_DIAGNOSTICS => {
                kept.push(KeptReport { line_no: r.line_no, text: r.text.to_vec(), diagnostics: r.diagnostics.to_vec() })
            }
            None => dropped += 1,
        }
    };
    // Invalid records are counted from their diagnostics, not copied.
    let config = Config { drop_invalid: true, ..Config::default() };
    let input_file = input.file.clone();
    let mut read = |input: &mut (dyn BufRead + Send), apply: &mut Apply<'_>| {
        let done = match &mut workers[..] {
            // One worker and no CSV rows: measured and counted at once.
            [one] if apply.on_record.is_none() => {
                let mut direct = Direct { measure: one.clone(), counter: &mut apply.counter };
                pipeline::run_serial(input, io::sink(), &mut direct, &config, &mut report, &mut |_| {})
            }
            [one] => pipeline::run_serial(input, apply, one, &config, &mut report, &mut |_| {}),
            many => pipeline::run(
                input,
                apply,
                many,
                &config,
                &diagnostics_to,
                &mut |b| diagnostics_of(b, &mut report),
                &mut |_| {},
            ),
        };
        done.map(|_| ()).map_err(|e| io::Error::new(e.io().kind(), format!("{input_file}: {e}")))
    };
    let source = match input.path {
        Some(path) => {
            let mut reader = input.reader;
            read(&mut *reader, &mut apply)?;
            Source::Path(path)
        }
        None => {
            let file = tempfile::tempfile()?;
            let mut tee = Tee { inner: input.reader, copy: io::BufWriter::new(file.try_clone()?), error: None };
            read(&mut tee, &mut apply)?;
            if let Some(e) = tee.error.take() {
                return Err(io::Error::new(e.kind(), format!("{input_file}: {e}")));
            }
            tee.copy.flush()?;
            Source::Copy(file)
        }
    };
    // The last batch, then the channel closes: the comparison knows this
    // run is over.
    let mut counter = apply.counter;
    counter.send();
    drop(counter.to_compare.take());
    let mut stats = counter.stats;
    for (line, why) in invalid {
        stats.invalid_record(line, why);
    }
    stats.finish();
    Ok(RunDone { stats, kept, dropped, source })
}

/// One record of every run, as the runs give it.
struct Slot {
    briefs: Vec<Option<Brief>>,
    count: usize,
}

/// Counts one record of every run (`None`: not in that run) in each
/// comparison.
fn finalize<'b>(n: usize, briefs: impl Fn(usize) -> Option<&'b Brief>, comparisons: &mut [Comparison]) {
    let mut c = 0;
    for a in 0..n {
        for b in a + 1..n {
            match (briefs(a), briefs(b)) {
                (Some(x), Some(y)) => comparisons[c].pair(x, y),
                (Some(_), None) => comparisons[c].unmatched.0 += 1,
                (None, Some(_)) => comparisons[c].unmatched.1 += 1,
                (None, None) => {}
            }
            c += 1;
        }
    }
}

/// Pairs the runs' records as they arrive: the n-th record of an
/// identity (id, else position) in one run with the n-th of the others.
/// Runs that give the same records in the same order are paired straight
/// from their batches; the others wait in a table until every run has
/// given them.
fn compare_in_step(receivers: Vec<Receiver<Vec<Brief>>>, comparisons: &mut [Comparison]) {
    let n = receivers.len();
    let mut open: Vec<bool> = vec![true; n];
    let mut queues: Vec<VecDeque<Brief>> = (0..n).map(|_| VecDeque::new()).collect();
    // Per identity, its occurrences not yet given by every run, oldest
    // first.
    let mut pending: HashMap<u64, VecDeque<Slot>, FastHash> = HashMap::default();
    let mut row: Vec<Brief> = Vec::with_capacity(n);
    loop {
        for i in 0..n {
            while open[i] && queues[i].is_empty() {
                match receivers[i].recv() {
                    Ok(batch) => queues[i].extend(batch),
                    Err(_) => open[i] = false,
                }
            }
        }
        if queues.iter().all(VecDeque::is_empty) {
            break;
        }
        // In step: every run's next record is of one identity, and no
        // earlier occurrence of it waits.
        while let Some(k) = queues[0].front().map(|b| b.key) {
            if !queues.iter().all(|q| q.front().is_some_and(|b| b.key == k)) || pending.contains_key(&k) {
                break;
            }
            row.clear();
            row.extend(queues.iter_mut().map(|q| q.pop_front().expect("a front")));
            finalize(n, |i| row.get(i), comparisons);
        }
        // Out of step: one record of each run waits for the others.
        for (i, queue) in queues.iter_mut().enumerate() {
            let Some(brief) = queue.pop_front() else { continue };
            let key = brief.key;
            let q = pending.entry(key).or_default();
            let at = match q.iter().position(|s| s.briefs[i].is_none()) {
                Some(p) => p,
                None => {
                    q.push_back(Slot { briefs: (0..n).map(|_| None).collect(), count: 0 });
                    q.len() - 1
                }
            };
            q[at].briefs[i] = Some(brief);
            q[at].count += 1;
            // Only the oldest occurrence can be complete first.
            if q.front().is_some_and(|s| s.count == n) {
                let slot = q.pop_front().expect("a front");
                if q.is_empty() {
                    pending.remove(&key);
                }
                finalize(n, |i| slot.briefs[i].as_ref(), comparisons);
            }
        }
    }
    // What is left was not in every run.
    for (_, q) in pending.drain() {
        for slot in q {
            finalize(n, |i| slot.briefs[i].as_ref(), comparisons);
        }
    }
}

/// Where judged records go (run index, record): CSV rows.
pub type RecordSink<'a> = &'a mut dyn FnMut(usize, &Judged);

/// Reads every run and compares them.
///
/// With `on_record` (CSV rows), the runs are read one after another on
/// this thread, each record judged in full and handed over as it is read,
/// with its line's diagnostics to `on_diagnostics` as they come; the runs
/// are not compared. Without, the runs are read in parallel, one thread
/// each, and compared in step; each run's diagnostics reach
/// `on_diagnostics` after the reading, in run order (at most
/// [`MAX_KEPT_DIAGNOSTICS`] per run; the issues list every invalid record).
///
/// # Errors
/// Reading an input, or writing or reading a temporary file, failed.
pub fn build(
    inputs: Vec<Input<'_>>,
    options: &Options,
    on_record: Option<RecordSink<'_>>,
    on_diagnostics: &mut dyn FnMut(usize, &LineReport<'_>),
) -> io::Result<Report> {
    let labels: Vec<String> = inputs.iter().map(|i| i.label.clone()).collect();
    let key_records = options.key.as_ref().map(|k| k.records);
    if let Some(on_record) = on_record {
        let mut runs = Vec::new();
        let mut sources = Vec::new();
        for (i, input) in inputs.into_iter().enumerate() {
            let mut rec = |j: &Judged| on_record(i, j);
            let mut diag = |r: &LineReport<'_>| on_diagnostics(i, r);
            let done = read_run(input, options, options.threads(), None, Some(&mut rec), Some(&mut diag))?;
            runs.push(done.stats);
            sources.push(done.source);
        }
        let mut comparisons = Vec::new();
        resolve_all(&mut runs, &mut comparisons, &sources)?;
        let objective = runs.last().map(RunStats::objective);
        let curves = Curves::of(&runs);
        return Ok(Report { schema: SCHEMA, runs, comparisons, objective, key_records, curves });
    }
    let mut comparisons = Vec::new();
    for a in 0..labels.len() {
        for b in a + 1..labels.len() {
            comparisons.push(Comparison::new(&labels[a], &labels[b]));
        }
    }
    let compare = labels.len() > 1;
    // Each run is read on a thread of its own; the workers are shared out.
    let jobs = (options.threads() / labels.len().max(1)).max(1);
    let done: Vec<io::Result<RunDone>> = std::thread::scope(|scope| {
        let mut receivers = Vec::new();
        let mut handles = Vec::new();
        for input in inputs {
            let (tx, rx) = if compare {
                let (tx, rx) = sync_channel(AHEAD);
                (Some(tx), Some(rx))
            } else {
                (None, None)
            };
            receivers.extend(rx);
            handles.push(scope.spawn(move || read_run(input, options, jobs, tx, None, None)));
        }
        compare_in_step(receivers, &mut comparisons);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("a run's reader panicked"))))
            .collect()
    });
    let mut runs = Vec::new();
    let mut sources = Vec::new();
    for (i, d) in done.into_iter().enumerate() {
        let d = d?;
        for k in &d.kept {
            on_diagnostics(i, &LineReport { line_no: k.line_no, text: &k.text, diagnostics: &k.diagnostics });
        }
        if d.dropped > 0 {
            let note = Diagnostic {
                severity: Severity::Warning,
                code: epd_core::Code::EngineFault,
                offset: 0,
                opcode: None,
                operand: None,
                message: format!(
                    "{} more lines with diagnostics not shown (the issues list every invalid record)",
                    d.dropped
                ),
            };
            on_diagnostics(i, &LineReport { line_no: 0, text: b"", diagnostics: std::slice::from_ref(&note) });
        }
        runs.push(d.stats);
        sources.push(d.source);
    }
    let pairs = (0..runs.len()).flat_map(|a| (a + 1..runs.len()).map(move |b| (a, b)));
    for (c, (a, b)) in comparisons.iter_mut().zip(pairs) {
        c.finish(&runs[a].effort, &runs[b].effort);
    }
    resolve_all(&mut runs, &mut comparisons, &sources)?;
    let objective = runs.last().map(RunStats::objective);
    let curves = Curves::of(&runs);
    Ok(Report { schema: SCHEMA, runs, comparisons, objective, key_records, curves })
}

/// A line whose id the report lists, and in which list.
#[derive(Clone, Copy, Debug)]
struct Want {
    at: At,
    /// 1: a duplicate id (`at` its first line, `first` the duplicate's
    /// line); 2 + 2k and
    /// 3 + 2k: newly solved and newly failed of the k-th comparison whose
    /// `b` is this run.
    list: u32,
    first: u64,
}

impl Item for Want {
    fn key(&self) -> u64 {
        self.at.line
    }
    /// By list, the duplicates of one id by their lines (below 2^40).
    fn tiebreak(&self) -> u64 {
        u64::from(self.list) << 40 | self.first
    }
    fn encode(&self, out: &mut Vec<u8>) {
        self.at.encode(out);
        out.extend_from_slice(&self.list.to_le_bytes());
        out.extend_from_slice(&self.first.to_le_bytes());
    }
    fn decode(input: &mut impl BufRead) -> io::Result<Option<Want>> {
        let Some(at) = At::decode(input)? else { return Ok(None) };
        let mut b = [0; 12];
        input.read_exact(&mut b)?;
        Ok(Some(Want {
            at,
            list: u32::from_le_bytes(b[..4].try_into().expect("4 bytes")),
            first: u64::from_le_bytes(b[4..].try_into().expect("8 bytes")),
        }))
    }
}

/// Finds each run's duplicates and fills the ids the report lists of
/// them and of the comparisons (newly solved, newly failed) by reading
/// each file again, once, when it has any, the files on a thread each.
fn resolve_all(runs: &mut [RunStats], comparisons: &mut [Comparison], sources: &[Source]) -> io::Result<()> {
    let n = runs.len();
    // The comparisons whose b is each run.
    let mut of_b: Vec<Vec<&mut Comparison>> = (0..n).map(|_| Vec::new()).collect();
    // Runs streamed out (CSV) have no comparisons.
    if !comparisons.is_empty() {
        let mut it = comparisons.iter_mut();
        for a in 0..n {
            for list in of_b.iter_mut().skip(a + 1) {
                list.push(it.next().expect("a comparison per pair of runs"));
            }
        }
    }
    let results: Vec<io::Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter_mut()
            .zip(of_b)
            .zip(sources)
            .map(|((run, mine), source)| scope.spawn(move || resolve(run, mine, source)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("reading ids panicked"))))
            .collect()
    });
    results.into_iter().collect()
}

/// One run's part of [`resolve_all`].
fn resolve(run: &mut RunStats, mut mine: Vec<&mut Comparison>, source: &Source) -> io::Result<()> {
    if let Some(e) = run.spool_error.take() {
        return Err(e);
    }
    for c in &mut mine {
        if let Some(e) = c.spool_error.take() {
            return Err(e);
        }
    }
    let mut wanted: Spool<Want> = Spool::default();
    // The id is read at the first line; `first` holds the duplicate's.
    run.duplicates(|at, line| wanted.push(Want { at, list: 1, first: line }))?;
    // Those of the first issues, where only they are kept.
    for (line, at) in run.issues.take_unread() {
        wanted.push(Want { at, list: 1, first: line })?;
    }
    for (k, c) in mine.iter_mut().enumerate() {
        let k = 2 + 2 * k as u32;
        for (spool, list) in [(&mut c.solved_lines, k), (&mut c.failed_lines, k + 1)] {
            spool.seal();
            for at in spool.iter() {
                wanted.push(Want { at: at?, list, first: 0 })?;
            }
            *spool = Spool::default();
        }
    }
    wanted.seal();
    if !wanted.is_empty() {
        let mut lines = LineReader::new(source.open()?);
        for w in wanted.iter() {
            let w = w?;
            let id = lines.id_at(w.at)?;
            let name = || id.clone().unwrap_or_else(|| format!("line {}", w.at.line));
            match w.list {
                1 => {
                    let shown = id.unwrap_or_default();
                    if let Err(e) = run.issues.push_duplicate_id(w.first, w.at.line, shown) {
                        run.spool_error.get_or_insert(e);
                    }
                }
                l => {
                    let c = &mut mine[(l as usize - 2) / 2];
                    let list = if l % 2 == 0 { &mut c.newly_solved } else { &mut c.newly_failed };
                    list.push(w.at.line, name())?;
                }
            }
        }
    }
    if let Some(e) = run.spool_error.take() {
        return Err(e);
    }
    run.missed_ids.0.seal();
    run.issues.seal();
    for c in mine {
        c.newly_solved.0.seal();
        c.newly_failed.0.seal();
    }
    Ok(())
}

/// A file read again line by line, forward only, for the ids at given
/// lines.
struct LineReader<'a> {
    input: io::BufReader<Box<dyn Read + 'a>>,
    /// Lines read so far.
    line: u64,
    buf: Vec<u8>,
    /// The id of the line last read (several lists may want it).
    last: Option<(u64, Option<String>)>,
}

impl<'a> LineReader<'a> {
    fn new(input: Box<dyn Read + 'a>) -> LineReader<'a> {
        LineReader { input: io::BufReader::with_capacity(1 << 16, input), line: 0, buf: Vec::new(), last: None }
    }

    /// Skips whole lines up to line `to` (1-based), not included.
    fn skip_to(&mut self, to: u64) -> io::Result<()> {
        while self.line + 1 < to {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                return Ok(());
            }
            let mut used = avail.len();
            let mut it = memchr::memchr_iter(b'\n', avail);
            loop {
                if self.line + 1 >= to {
                    break;
                }
                match it.next() {
                    Some(i) => {
                        self.line += 1;
                        used = i + 1;
                    }
                    None => {
                        used = avail.len();
                        break;
                    }
                }
            }
            self.input.consume(used);
        }
        Ok(())
    }

    /// The id of the record at `at` (`None`: it has none).
    fn id_at(&mut self, at: At) -> io::Result<Option<String>> {
        if let Some((l, id)) = &self.last {
            if *l == at.line {
                return Ok(id.clone());
            }
        }
        self.skip_to(at.line)?;
        self.buf.clear();
        if self.input.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        let text = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        let id = if at.offset == At::NO_ID {
            None
        } else {
            match string_at(text, at.offset as usize) {
                Some(id) => Some(String::from_utf8_lossy(id).into_owned()),
                None => Record::parse(text, ParseMode::Lenient).0.id().map(|i| String::from_utf8_lossy(i).into_owned()),
            }
        };
        self.last = Some((at.line, id.clone()));
        Ok(id)
    }
}

/// The string operand whose content starts at `offset` of `line` (just
/// after its opening quote, or at that quote), when it holds no escape;
/// `None` otherwise.
fn string_at(line: &[u8], offset: usize) -> Option<&[u8]> {
    let start = if offset > 0 && line.get(offset - 1) == Some(&b'"') {
        offset
    } else if line.get(offset) == Some(&b'"') {
        offset + 1
    } else {
        return None;
    };
    if start > line.len() {
        return None;
    }
    let len = line[start..].iter().position(|&b| b == b'"' || b == b'\\')?;
    (line[start + len] == b'"').then(|| &line[start..start + len])
}

/// Copies the records of `input` that are `want` (solved or missed, by
/// the same judgement as the report) to `out`, byte for byte.
///
/// # Errors
/// Reading or writing failed.
pub fn copy_records(input: Input<'_>, options: &Options, want: Verdict, out: &mut dyn io::Write) -> io::Result<u64> {
    struct Copy<'a> {
        stats: RunStats,
        key: Option<&'a KeyBook>,
        grouping: &'a Grouping,
        mode: ParseMode,
        want: Verdict,
        copied: u64,
    }
    impl Processor for Copy<'_> {
        type Counts = NoCounts;
        fn mode(&self) -> ParseMode {
            self.mode
        }
        fn keeps_blank_lines(&self) -> bool {
            false
        }
        fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
            let (brief, _) = self.stats.add(rec, job.line, self.key, self.grouping, false);
            if brief.verdict == self.want {
                job.out.extend_from_slice(job.text);
                job.out.push(b'\n');
                self.copied += 1;
            }
            Ok(())
        }
    }
    let mut c = Copy {
        stats: RunStats::new(&input.label, &input.file),
        key: options.key.as_ref(),
        grouping: &options.grouping,
        mode: if options.strict { ParseMode::Strict } else { ParseMode::Lenient },
        want,
        copied: 0,
    };
    let config = Config { drop_invalid: true, ..Config::default() };
    pipeline::run_serial(input.reader, out, &mut c, &config, &mut |_| {}, &mut |_| {})
        .map_err(|e| io::Error::new(e.io().kind(), format!("{}: {e}", input.file)))?;
    Ok(c.copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The issues of a run read with `options`: how many, and the text
    /// of those kept; and its missed ids, how many and those kept.
    #[allow(clippy::type_complexity)]
    fn lists_of(text: &[u8], options: &Options) -> ((u64, Vec<(u64, String, String)>), (u64, Vec<String>)) {
        let input = Input { label: "r".into(), file: "r.epd".into(), reader: Box::new(text), path: None };
        let report = build(vec![input], options, None, &mut |_, _| {}).unwrap();
        let run = &report.runs[0];
        let kept = run.issues.iter().map(|i| i.map(|i| (i.line, i.kind.to_owned(), i.message)).unwrap()).collect();
        let missed = run.missed_ids.iter().map(Result::unwrap).collect();
        ((run.issues.len(), kept), (run.missed_ids.len(), missed))
    }

    #[test]
    fn a_report_that_keeps_the_first_of_its_lists_keeps_those_of_the_whole_lists() {
        // 64 positions (kings apart), 700 ids, 3,000 records, an invalid
        // line now and then: every kind of duplicate, out of line order
        // by hash, and issues found as the records are read.
        let mut text = String::new();
        for i in 0..3000u32 {
            if i % 97 == 13 {
                text.push_str("not a record\n");
                continue;
            }
            let (w, b) = ((i * 7) % 8, (i * 3 / 8) % 8);
            let rank = |f: u32, k: char| format!("{}{k}{}", if f > 0 { f.to_string() } else { String::new() }, 7 - f);
            let fen = format!("{}/8/8/8/8/8/8/{}", rank(b, 'k'), rank(w, 'K')).replace('0', "");
            // The king up a square is the key; every third record plays
            // it, the others a square aside; some have no id.
            let file = |f: u32| char::from(b'a' + f as u8);
            let bm = format!("K{}2", file(w));
            let pm = if i % 3 == 0 { bm.clone() } else { format!("K{}1", file(if w == 0 { 1 } else { w - 1 })) };
            let id = if i % 5 == 4 { String::new() } else { format!("id \"t.{:03}\"; ", (i * 11) % 700) };
            text.push_str(&format!("{fen} w - - acd 3; bm {bm}; {id}pm {pm};\n"));
        }
        let (all, missed) = lists_of(text.as_bytes(), &Options { jobs: 2, ..Options::default() });
        assert!(all.0 > 2000, "{} issues", all.0);
        assert!(missed.0 > 1500 && missed.1.iter().any(|m| m.starts_with("line ")), "{missed:?}");
        let kinds: std::collections::BTreeSet<&str> = all.1.iter().map(|i| i.1.as_str()).collect();
        for kind in ["invalid", "duplicate-id", "duplicate-position"] {
            assert!(kinds.contains(kind), "{kinds:?}");
        }
        for n in [0, 1, 2, 7, 30, 500, 5000] {
            for jobs in [1, 2] {
                let options = Options { jobs, issues_kept: Some(n), missed_kept: Some(n), ..Options::default() };
                let (first, first_missed) = lists_of(text.as_bytes(), &options);
                assert_eq!(first.0, all.0, "n {n}, -j {jobs}: every issue counted");
                assert_eq!(first.1[..], all.1[..n.min(all.1.len())], "n {n}, -j {jobs}");
                assert_eq!(first_missed.0, missed.0, "n {n}, -j {jobs}: every missed id counted");
                assert_eq!(first_missed.1[..], missed.1[..n.min(missed.1.len())], "n {n}, -j {jobs}");
            }
        }
    }

    #[test]
    fn ids_are_read_again_at_their_offsets() {
        // The offset the record model gives is the one string_at reads.
        for line in [
            "8/8/8/8/8/8/8/K6k w - - bm Kb1; id \"WAC.001\";",
            "8/8/8/8/8/8/8/K6k w - - c0 \"an id \\\"x\\\" inside\"; id \"a b\";",
            "8/8/8/8/8/8/8/K6k w - - id \"\";",
        ] {
            let (rec, _) = Record::parse(line.as_bytes(), ParseMode::Lenient);
            let op = rec.get_known(epd_core::Opcode::Id).unwrap();
            let at = string_at(line.as_bytes(), op.operand(0).unwrap().offset());
            assert_eq!(at, rec.id(), "{line}");
        }
        // An escape inside: not read here (the caller parses the line).
        assert_eq!(string_at(b"x id \"a\\\"b\";", 5), None);
        assert_eq!(string_at(b"x id \"ab", 5), None);
        assert_eq!(string_at(b"x", 7), None);
    }
}
