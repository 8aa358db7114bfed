//! A report over one or more runs: each run read through the kit's line
//! pipeline (so invalid records are diagnosed as everywhere else, and
//! counted), judged record by record, then runs compared pairwise on the
//! records they share.

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::sync::{Arc, Mutex};

use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, NoCounts, Processor};
use epd_core::{has_errors, ParseMode, Record, Severity, Verdict};
use serde::Serialize;

use crate::key::KeyBook;
use crate::run::{Grouping, Judged, Objective, RunStats};
use crate::stats::binomial_two_sided;

/// The version of the JSON schema ([`Report`] serialised).
pub const SCHEMA: &str = "epd-report/1";

/// One run to read.
pub struct Input<'a> {
    /// Its label.
    pub label: String,
    /// Its file name, for messages.
    pub file: String,
    /// Its records.
    pub reader: Box<dyn BufRead + 'a>,
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
    /// Ids solved by `b` and not by `a`.
    pub newly_solved: Vec<String>,
    /// Ids solved by `a` and not by `b`.
    pub newly_failed: Vec<String>,
    /// Scored records of `a` not in `b`, and of `b` not in `a`.
    pub unmatched: (u64, u64),
    /// Solve times on the records both solved, when both have them.
    pub times: Option<PairedTimes>,
    /// Lines of `b` that `a` solved and `b` missed.
    #[serde(skip)]
    pub regression_lines: Vec<u64>,
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
    /// …, second with third …).
    pub comparisons: Vec<Comparison>,
    /// The last run's objective, for tuners.
    pub objective: Option<Objective>,
    /// Records of the key file, when one was given.
    pub key_records: Option<u64>,
    /// Per run, each scored record's line and verdict, in order (for
    /// writing records back).
    #[serde(skip)]
    pub verdicts: Vec<Vec<(u64, Verdict)>>,
}

/// What the report keeps of each scored record to compare runs.
#[derive(Clone, Debug)]
struct Entry {
    key: u64,
    line: u64,
    solved: bool,
    time: Option<f64>,
    resolution: f64,
    id: Option<Box<str>>,
}

struct Reader<'a> {
    stats: RunStats,
    key: Option<&'a KeyBook>,
    grouping: &'a Grouping,
    mode: ParseMode,
    entries: Vec<Entry>,
    verdicts: Vec<(u64, Verdict)>,
    /// Judged records not yet handed to the caller (the pipeline's
    /// progress callback, on this thread, takes them after each record).
    pending: Arc<Mutex<Vec<Judged>>>,
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
        let j = self.stats.add(rec, job.line, self.key, self.grouping);
        if j.verdict != Verdict::Unscored {
            self.entries.push(Entry {
                key: j.key,
                line: j.line,
                solved: j.verdict == Verdict::Solved,
                time: j.time,
                resolution: j.time_resolution,
                id: j.id.as_deref().map(Box::from),
            });
            self.verdicts.push((j.line, j.verdict));
        }
        self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(j);
        Ok(())
    }
}

/// Reads every run and compares them. `on_record` hears each judged
/// record (run index, record) as it is read; `on_diagnostics` each line's
/// diagnostics (run index, line), invalid records included.
///
/// # Errors
/// Reading an input failed.
pub fn build(
    inputs: Vec<Input<'_>>,
    options: &Options,
    on_record: &mut dyn FnMut(usize, &Judged),
    on_diagnostics: &mut dyn FnMut(usize, &LineReport<'_>),
) -> io::Result<Report> {
    let mode = if options.strict { ParseMode::Strict } else { ParseMode::Lenient };
    let mut runs = Vec::new();
    let mut all_entries = Vec::new();
    let mut verdicts = Vec::new();
    for (i, input) in inputs.into_iter().enumerate() {
        let pending = Arc::new(Mutex::new(Vec::new()));
        let mut reader = Reader {
            stats: RunStats::new(&input.label, &input.file),
            key: options.key.as_ref(),
            grouping: &options.grouping,
            mode,
            entries: Vec::new(),
            verdicts: Vec::new(),
            pending: Arc::clone(&pending),
        };
        let mut hand_over = || {
            let mut p = pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for j in p.drain(..) {
                on_record(i, &j);
            }
        };
        let mut invalid = Vec::new();
        let mut report = |r: &LineReport<'_>| {
            if has_errors(r.diagnostics) {
                let first = r.diagnostics.iter().find(|d| d.severity == Severity::Error);
                let why = first.map_or_else(String::new, |d| format!("{}: {}", d.code, d.message));
                invalid.push((r.line_no, why));
            }
            on_diagnostics(i, r);
        };
        pipeline::run_serial(input.reader, io::sink(), &mut reader, &Config::default(), &mut report, &mut |_| {
            hand_over();
        })
        .map_err(|e| io::Error::new(e.io().kind(), format!("{}: {e}", input.file)))?;
        hand_over();
        let mut stats = reader.stats;
        stats.want_time_scores = options.time_scores;
        for (line, why) in invalid {
            stats.invalid_record(line, why);
        }
        stats.finish();
        runs.push(stats);
        all_entries.push(reader.entries);
        verdicts.push(reader.verdicts);
    }
    let mut comparisons = Vec::new();
    for a in 0..runs.len() {
        for b in a + 1..runs.len() {
            comparisons.push(compare(&runs[a].label, &all_entries[a], &runs[b].label, &all_entries[b]));
        }
    }
    let objective = runs.last().map(RunStats::objective);
    Ok(Report {
        schema: SCHEMA,
        runs,
        comparisons,
        objective,
        key_records: options.key.as_ref().map(|k| k.records),
        verdicts,
    })
}

fn name(e: &Entry) -> String {
    e.id.as_deref().map_or_else(|| format!("line {}", e.line), str::to_owned)
}

fn compare(la: &str, a: &[Entry], lb: &str, b: &[Entry]) -> Comparison {
    let index: HashMap<u64, usize> = a.iter().enumerate().map(|(i, e)| (e.key, i)).collect();
    let mut c = Comparison {
        a: la.to_owned(),
        b: lb.to_owned(),
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
        time_pairs: Vec::new(),
    };
    let mut ratios = Vec::new();
    let (mut b_faster, mut a_faster) = (0, 0);
    let mut matched = vec![false; a.len()];
    for eb in b {
        let Some(&i) = index.get(&eb.key) else {
            c.unmatched.1 += 1;
            continue;
        };
        matched[i] = true;
        let ea = &a[i];
        c.paired += 1;
        match (ea.solved, eb.solved) {
            (true, true) => {
                c.both += 1;
                if let (Some(ta), Some(tb)) = (ea.time, eb.time) {
                    // Compared at the coarser resolution of the two (whole
                    // seconds from acs): acs 0 and acs 1 are a tie.
                    let res = ea.resolution.max(eb.resolution);
                    let at = |t: f64| ((t / res).round() * res).max(res);
                    let (ta, tb) = (at(ta), at(tb));
                    ratios.push(tb / ta);
                    if c.time_pairs.len() < MAX_TIME_PAIRS {
                        c.time_pairs.push((ta, tb));
                    }
                    if tb < ta {
                        b_faster += 1;
                    } else if ta < tb {
                        a_faster += 1;
                    }
                }
            }
            (true, false) => {
                c.a_only += 1;
                c.newly_failed.push(name(eb));
                c.regression_lines.push(eb.line);
            }
            (false, true) => {
                c.b_only += 1;
                c.newly_solved.push(name(eb));
            }
            (false, false) => c.neither += 1,
        }
    }
    c.unmatched.0 = matched.iter().filter(|&&m| !m).count() as u64;
    c.mcnemar_p = binomial_two_sided(c.a_only, c.b_only);
    if !ratios.is_empty() {
        let n = ratios.len();
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp();
        ratios.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 { ratios[n / 2] } else { (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0 };
        c.times = Some(PairedTimes {
            n: n as u64,
            b_faster,
            a_faster,
            median_ratio: median,
            geometric_mean_ratio: geo,
            sign_test_p: binomial_two_sided(b_faster, a_faster),
        });
    }
    c
}
