//! A report over one or more runs: each run read through the kit's line
//! pipeline (so invalid records are diagnosed as everywhere else, and
//! counted) on a thread of its own, judged record by record, and the runs
//! compared pairwise as they are read, in step: a record is paired with
//! the same record of the other runs (by id, else by position) as soon as
//! every run has given it, so when the runs hold the same suite in the
//! same order, memory does not grow with the records. The ids a report
//! lists (missed, newly solved, newly failed) are read again from the
//! files at the end, by line; an input that cannot be read twice keeps
//! them in memory instead.

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, NoCounts, Processor};
use epd_core::{has_errors, Diagnostic, ParseMode, Record, Severity, Verdict};
use serde::Serialize;

use crate::key::KeyBook;
use crate::run::{Brief, Grouping, Judged, Objective, RunStats};
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
    /// input) keeps them in memory.
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
}

/// Two runs compared on the scored records they share (matched by id,
/// else by position).
#[derive(Clone, Debug, Serialize)]
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
    pub newly_solved: Vec<String>,
    /// Ids solved by `a` and not by `b`, in `b`'s line order.
    pub newly_failed: Vec<String>,
    /// Scored records of `a` not in `b`, and of `b` not in `a`.
    pub unmatched: (u64, u64),
    /// Solve times on the records both solved, when both have them.
    pub times: Option<PairedTimes>,
    /// Lines of `b` that `a` solved and `b` missed, ascending.
    #[serde(skip)]
    pub regression_lines: Vec<u64>,
    /// Lines of `b` that `b` solved and `a` missed (and their ids when
    /// kept in memory).
    #[serde(skip)]
    solved_lines: Vec<(u64, Option<Box<str>>, Option<u32>)>,
    #[serde(skip)]
    failed_ids: Vec<(Option<Box<str>>, Option<u32>)>,
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
    /// extension, 1 s from acs), rounded to it and at least one unit.
    pub geometric_mean_ratio: f64,
    /// The sign test (exact binomial, two-sided) of faster against slower,
    /// ties left out.
    pub sign_test_p: f64,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
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
            newly_solved: Vec::new(),
            newly_failed: Vec::new(),
            unmatched: (0, 0),
            times: None,
            regression_lines: Vec::new(),
            solved_lines: Vec::new(),
            failed_ids: Vec::new(),
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
                if let (Some(ta), Some(tb)) = (ea.time, eb.time) {
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
                self.regression_lines.push(eb.line);
                self.failed_ids.push((eb.id.clone(), eb.id_offset));
            }
            (false, true) => {
                self.b_only += 1;
                self.solved_lines.push((eb.line, eb.id.clone(), eb.id_offset));
            }
            (false, false) => self.neither += 1,
        }
    }

    fn finish(&mut self) {
        self.mcnemar_p = binomial_two_sided(self.a_only, self.b_only);
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

/// Reads one run: judges its records, sends what the comparison needs.
struct Reader<'a> {
    stats: RunStats,
    key: Option<&'a KeyBook>,
    grouping: &'a Grouping,
    mode: ParseMode,
    to_compare: Option<SyncSender<Vec<Brief>>>,
    /// Scored records not yet sent to the comparison.
    batch: Vec<Brief>,
    /// Judged records for the caller (CSV), taken after each record.
    detail: Option<Arc<Mutex<Vec<Judged>>>>,
}

impl Processor for Reader<'_> {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn writes(&self) -> bool {
        false
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
        let (brief, judged) = self.stats.add(rec, job.line, self.key, self.grouping, self.detail.is_some());
        if let (Some(j), Some(out)) = (judged, &self.detail) {
            out.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(j);
        }
        if brief.verdict != Verdict::Unscored && self.to_compare.is_some() {
            self.batch.push(brief);
            if self.batch.len() >= BATCH {
                self.send();
            }
        }
        Ok(())
    }
}

impl Reader<'_> {
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

/// A line's diagnostics, owned (kept while runs are read in parallel).
#[derive(Clone, Debug)]
struct KeptReport {
    line_no: u64,
    text: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
}

/// What a run's reading gives back.
struct RunDone {
    stats: RunStats,
    kept: Vec<KeptReport>,
    dropped: u64,
}

fn first_error(r: &LineReport<'_>) -> Option<String> {
    if !has_errors(r.diagnostics) {
        return None;
    }
    let d = r.diagnostics.iter().find(|d| d.severity == Severity::Error)?;
    Some(format!("{}: {}", d.code, d.message))
}

/// Reads one run to its end.
fn read_run(
    input: Input<'_>,
    options: &Options,
    to_compare: Option<SyncSender<Vec<Brief>>>,
    on_record: Option<&mut dyn FnMut(&Judged)>,
    mut on_diagnostics: Option<&mut dyn FnMut(&LineReport<'_>)>,
) -> io::Result<RunDone> {
    let mode = if options.strict { ParseMode::Strict } else { ParseMode::Lenient };
    let mut stats = RunStats::new(&input.label, &input.file);
    stats.keep_ids = input.path.is_none();
    stats.want_time_scores = options.time_scores;
    let detail = on_record.is_some().then(|| Arc::new(Mutex::new(Vec::new())));
    let mut reader = Reader {
        stats,
        key: options.key.as_ref(),
        grouping: &options.grouping,
        mode,
        to_compare,
        batch: Vec::with_capacity(BATCH),
        detail: detail.clone(),
    };
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
    let mut on_record = on_record;
    let mut hand_over = || {
        if let (Some(d), Some(f)) = (&detail, on_record.as_mut()) {
            let mut p = d.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for j in p.drain(..) {
                f(&j);
            }
        }
    };
    pipeline::run_serial(input.reader, io::sink(), &mut reader, &Config::default(), &mut report, &mut |_| {
        hand_over();
    })
    .map_err(|e| io::Error::new(e.io().kind(), format!("{}: {e}", input.file)))?;
    hand_over();
    // The last batch, then the channel closes: the comparison knows this
    // run is over.
    reader.send();
    drop(reader.to_compare.take());
    let mut stats = reader.stats;
    for (line, why) in invalid {
        stats.invalid_record(line, why);
    }
    stats.finish();
    Ok(RunDone { stats, kept, dropped })
}

/// One record of every run, as the runs give it.
struct Slot {
    briefs: Vec<Option<Brief>>,
    count: usize,
}

/// Pairs the runs' records as they arrive.
fn compare_in_step(receivers: Vec<Receiver<Vec<Brief>>>, comparisons: &mut [Comparison]) {
    let n = receivers.len();
    let mut open: Vec<bool> = vec![true; n];
    let mut pending: HashMap<u64, Slot, FastHash> = HashMap::default();
    let finalize = |slot: Slot, comparisons: &mut [Comparison]| {
        let mut c = 0;
        for a in 0..n {
            for b in a + 1..n {
                match (&slot.briefs[a], &slot.briefs[b]) {
                    (Some(x), Some(y)) => comparisons[c].pair(x, y),
                    (Some(_), None) => comparisons[c].unmatched.0 += 1,
                    (None, Some(_)) => comparisons[c].unmatched.1 += 1,
                    (None, None) => {}
                }
                c += 1;
            }
        }
    };
    while open.iter().any(|&o| o) {
        for i in 0..n {
            if !open[i] {
                continue;
            }
            let Ok(batch) = receivers[i].recv() else {
                open[i] = false;
                continue;
            };
            for brief in batch {
                let key = brief.key;
                let slot = pending.entry(key).or_insert_with(|| Slot { briefs: vec![None; n], count: 0 });
                if slot.briefs[i].is_none() {
                    slot.count += 1;
                }
                slot.briefs[i] = Some(brief);
                if slot.count == n {
                    let slot = pending.remove(&key).expect("just filled");
                    finalize(slot, comparisons);
                }
            }
        }
    }
    // What is left was not in every run.
    for (_, slot) in pending.drain() {
        finalize(slot, comparisons);
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
/// Reading an input failed.
pub fn build(
    inputs: Vec<Input<'_>>,
    options: &Options,
    on_record: Option<RecordSink<'_>>,
    on_diagnostics: &mut dyn FnMut(usize, &LineReport<'_>),
) -> io::Result<Report> {
    let labels: Vec<String> = inputs.iter().map(|i| i.label.clone()).collect();
    let paths: Vec<Option<PathBuf>> = inputs.iter().map(|i| i.path.clone()).collect();
    let key_records = options.key.as_ref().map(|k| k.records);
    if let Some(on_record) = on_record {
        let mut runs = Vec::new();
        for (i, input) in inputs.into_iter().enumerate() {
            let mut rec = |j: &Judged| on_record(i, j);
            let mut diag = |r: &LineReport<'_>| on_diagnostics(i, r);
            runs.push(read_run(input, options, None, Some(&mut rec), Some(&mut diag))?.stats);
        }
        resolve_ids(&mut runs, &mut [], &paths)?;
        let objective = runs.last().map(RunStats::objective);
        return Ok(Report { schema: SCHEMA, runs, comparisons: Vec::new(), objective, key_records });
    }
    let mut comparisons = Vec::new();
    for a in 0..labels.len() {
        for b in a + 1..labels.len() {
            comparisons.push(Comparison::new(&labels[a], &labels[b]));
        }
    }
    let compare = labels.len() > 1;
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
            handles.push(scope.spawn(move || read_run(input, options, tx, None, None)));
        }
        compare_in_step(receivers, &mut comparisons);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("a run's reader panicked"))))
            .collect()
    });
    let mut runs = Vec::new();
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
    }
    for c in &mut comparisons {
        c.finish();
    }
    resolve_ids(&mut runs, &mut comparisons, &paths)?;
    let objective = runs.last().map(RunStats::objective);
    Ok(Report { schema: SCHEMA, runs, comparisons, objective, key_records })
}

/// Fills the ids the report lists (missed, newly solved, newly failed)
/// from the lines kept: from memory, or by reading each file again (the
/// files on a thread each).
fn resolve_ids(runs: &mut [RunStats], comparisons: &mut [Comparison], paths: &[Option<PathBuf>]) -> io::Result<()> {
    let n = runs.len();
    let compared = !comparisons.is_empty();
    // The comparisons whose b is run `r`.
    let of_b = |r: usize| {
        let mut out = Vec::new();
        if !compared {
            return out;
        }
        let mut c = 0;
        for a in 0..n {
            for b in a + 1..n {
                if b == r {
                    out.push(c);
                }
                c += 1;
            }
        }
        out
    };
    // Per run, the (line, id offset) to read again.
    let mut wanted: Vec<Vec<(u64, u32)>> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let mut w: Vec<(u64, u32)> =
            run.missed_lines.iter().filter(|(_, id, _)| id.is_none()).filter_map(|&(l, _, o)| Some((l, o?))).collect();
        for c in of_b(r) {
            let cmp = &comparisons[c];
            w.extend(cmp.solved_lines.iter().filter(|(_, id, _)| id.is_none()).filter_map(|&(l, _, o)| Some((l, o?))));
            w.extend(
                cmp.regression_lines
                    .iter()
                    .zip(&cmp.failed_ids)
                    .filter(|(_, (id, _))| id.is_none())
                    .filter_map(|(&l, &(_, o))| Some((l, o?))),
            );
        }
        w.sort_unstable();
        w.dedup();
        wanted.push(w);
    }
    let found: Vec<io::Result<HashMap<u64, String>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = wanted
            .iter()
            .zip(paths)
            .map(|(w, p)| {
                scope.spawn(move || match p {
                    Some(path) if !w.is_empty() => ids_at(path, w),
                    _ => Ok(HashMap::new()),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("reading ids panicked"))))
            .collect()
    });
    for (r, ids) in found.into_iter().enumerate() {
        let ids = ids?;
        let name = |line: u64, kept: &Option<Box<str>>| -> String {
            kept.as_deref()
                .map(str::to_owned)
                .or_else(|| ids.get(&line).cloned())
                .unwrap_or_else(|| format!("line {line}"))
        };
        let missed = std::mem::take(&mut runs[r].missed_lines);
        runs[r].missed_ids = missed.iter().map(|(l, id, _)| name(*l, id)).collect();
        for c in of_b(r) {
            let cmp = &mut comparisons[c];
            let mut solved = std::mem::take(&mut cmp.solved_lines);
            solved.sort_by_key(|(l, _, _)| *l);
            cmp.newly_solved = solved.iter().map(|(l, id, _)| name(*l, id)).collect();
            let mut failed: Vec<(u64, Option<Box<str>>)> = cmp
                .regression_lines
                .iter()
                .copied()
                .zip(std::mem::take(&mut cmp.failed_ids).into_iter().map(|(id, _)| id))
                .collect();
            failed.sort_by_key(|(l, _)| *l);
            cmp.newly_failed = failed.iter().map(|(l, id)| name(*l, id)).collect();
            cmp.regression_lines = failed.iter().map(|(l, _)| *l).collect();
        }
    }
    Ok(())
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

/// The ids of the records at `wanted` (line, offset of the id operand),
/// ascending, in the file at `path`. An id is taken from its offset when
/// it is a plain string there, else the line is read as a record again.
fn ids_at(path: &std::path::Path, wanted: &[(u64, u32)]) -> io::Result<HashMap<u64, String>> {
    let mut input = io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let mut out = HashMap::new();
    let mut buf = Vec::new();
    let mut no = 0u64;
    let mut want = wanted.iter().peekable();
    while let Some(&&(next, offset)) = want.peek() {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        no += 1;
        if no < next {
            continue;
        }
        want.next();
        let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let id = match string_at(text, offset as usize) {
            Some(id) => Some(String::from_utf8_lossy(id).into_owned()),
            None => Record::parse(text, ParseMode::Lenient).0.id().map(|i| String::from_utf8_lossy(i).into_owned()),
        };
        if let Some(id) = id {
            out.insert(no, id);
        }
    }
    Ok(out)
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
