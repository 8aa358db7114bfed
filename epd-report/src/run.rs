//! One run: each result record judged against its key, and the run's
//! figures accumulated record by record. Memory grows with the themes and
//! the distinct values kept by the distributions, not with the records:
//! what is kept per record (ids and positions for duplicates, the lines
//! of missed records, the issues) goes to [`Spool`]s.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead};

use epd_core::{Record, Verdict};
use regex::Regex;
use serde::Serialize;

use crate::fields::Fields;
use crate::key::{KeyBook, Solution};
use crate::measure::{measure, Measured};
use crate::spool::{read_array, At, Item, Seen, Spool, Text};
use crate::stats::{wilson, Distribution, Summary, Z95};

pub use epd_core::{SOLVE_ACD, SOLVE_ACN, SOLVE_MS};

/// How records are grouped into themes.
#[derive(Clone, Debug, Default)]
pub enum Grouping {
    /// The id without its trailing number (`STS(v1.0) Undermine.001` is
    /// in `STS(v1.0) Undermine`, `WAC.001` in `WAC`, `test 1` in `test`).
    #[default]
    IdPrefix,
    /// The first capture group of a regular expression over the id (the
    /// whole match when it has no group); ids it does not match are in
    /// `(other)`.
    Regex(Regex),
    /// One theme per run file.
    File,
    /// By the opcodes that key the record: `bm`, `am`, `bm+am`, `dm`,
    /// `points` or `(none)`.
    Opcode,
}

/// A mate-in-N record's outcome, matetrack's classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MateClass {
    /// The mate found is the key's length.
    Best,
    /// A mate found, longer than the key's.
    Longer,
    /// A mate found shorter than the key's: the key is wrong.
    Shorter,
    /// A mate score, but against the side to move.
    WrongSign,
    /// No mate score.
    Missed,
}

/// One result record, judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judged {
    /// Its 1-based line.
    pub line: u64,
    /// Its id.
    pub id: Option<String>,
    /// Its theme.
    pub theme: String,
    /// Solved, missed or unscored (§7.5).
    #[serde(serialize_with = "verdict_name")]
    pub verdict: Verdict,
    /// The move played (pm, else pv's first), in SAN.
    pub played: Option<String>,
    /// The key's mate length.
    pub dm: Option<u32>,
    /// The mate outcome, when the key has dm.
    pub mate: Option<MateClass>,
    /// Points earned and the most available (STS).
    pub points: Option<(u32, u32)>,
    /// Depth, nodes, seconds and evaluation reported.
    pub acd: Option<i64>,
    /// See `acd`.
    pub acn: Option<i64>,
    /// See `acd`.
    pub acs: Option<i64>,
    /// See `acd`.
    pub ce: Option<i64>,
    /// When the move played was found, in seconds: the solve-time
    /// extension, else `acs` of a solved record; read as precisely as it
    /// is written (to the microsecond at most).
    pub time: Option<f64>,
    /// The resolution of `time`, in seconds: 0.001 from the extension
    /// written in whole milliseconds (finer when it is written with
    /// decimals, down to 0.000001), 1 from `acs`.
    #[serde(skip)]
    pub time_resolution: f64,
    /// Nodes when it was found: the extension, else `acn` of a solved
    /// record.
    pub nodes: Option<i64>,
    /// The record's identity for comparing runs: the hash of its id,
    /// else of its position.
    #[serde(skip)]
    pub key: u64,
}

/// What a comparison of runs keeps of a record.
#[derive(Clone, Debug, PartialEq)]
pub struct Brief {
    /// The record's identity (the hash of its id, else of its position;
    /// the n-th record of an identity is paired with the n-th of the
    /// other runs).
    pub key: u64,
    /// Its line, and where its id is in it (to read the id again).
    pub at: At,
    /// How it fared.
    pub verdict: Verdict,
    /// Its solution time, seconds.
    pub time: Option<f64>,
    /// The resolution of `time`, seconds.
    pub resolution: f64,
    /// `time` is when the move was found (the solve-time extension), not
    /// the whole search's time (acs).
    pub time_at_solve: bool,
}

/// A problem found in the results, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The line.
    pub line: u64,
    /// A short kind: `pm-not-pv`, `no-counters` (once per run, at the
    /// first result without acd, acn or acs, with the counts),
    /// `duplicate-id`, `duplicate-position`, `ce-sign`, `key-mate-longer`,
    /// `key-position`, `no-key`, `invalid`.
    pub kind: &'static str,
    /// What is wrong.
    pub message: String,
}

/// Themes in the order they first appear (serialised as a JSON object
/// in that order).
#[derive(Clone, Debug, Default)]
pub struct Themes {
    list: Vec<(String, Theme)>,
    index: HashMap<String, usize>,
    /// The theme last counted (records of a theme mostly come together).
    last: usize,
}

impl Themes {
    fn entry(&mut self, name: &str) -> &mut Theme {
        if self.list.get(self.last).is_some_and(|(n, _)| n == name) {
            return &mut self.list[self.last].1;
        }
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                self.list.push((name.to_owned(), Theme::default()));
                self.index.insert(name.to_owned(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        self.last = i;
        &mut self.list[i].1
    }

    /// The theme called `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Theme> {
        self.index.get(name).map(|&i| &self.list[i].1)
    }

    /// Each theme and its counts, in order of first appearance.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Theme)> {
        self.list.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// How many themes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// No theme.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

impl Serialize for Themes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.list.len()))?;
        for (n, t) in &self.list {
            m.serialize_entry(n, t)?;
        }
        m.end()
    }
}

/// A theme's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Theme {
    /// Records.
    pub records: u64,
    /// Records with bm or am.
    pub scored: u64,
    /// Solved.
    pub solved: u64,
    /// Points earned (STS).
    pub points: u64,
    /// Points available.
    pub max_points: u64,
}

/// The mate records' outcomes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Mates {
    /// Records whose key has dm.
    pub keyed: u64,
    /// Found at the key's length.
    pub best: u64,
    /// Found, longer.
    pub longer: u64,
    /// Found, shorter than the key (a key error).
    pub shorter: u64,
    /// A mate score against the side to move.
    pub wrong_sign: u64,
    /// No mate found.
    pub missed: u64,
    /// By the key's length: (records, mates found of any length).
    pub by_length: BTreeMap<u32, (u64, u64)>,
}

/// Points (STS) and the rating estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Points {
    /// Records with a points list.
    pub records: u64,
    /// Points earned.
    pub points: u64,
    /// Points available.
    pub max: u64,
    /// points / max, in percent.
    pub percent: f64,
    /// Its 95 % interval (normal, from the per-record points' variance).
    pub percent_ci: (f64, f64),
    /// STS-Rating's estimate, `44.523 × percent − 242.85`, and its interval.
    pub sts_rating: f64,
    /// See `sts_rating`.
    pub sts_rating_ci: (f64, f64),
}

/// A score computed from solution times.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeScore {
    /// Its name.
    pub name: &'static str,
    /// Its formula.
    pub formula: &'static str,
    /// The score.
    pub value: f64,
}

/// A distribution's summaries: all records, solved, missed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Every record with the value.
    pub all: Option<Summary>,
    /// Solved records.
    pub solved: Option<Summary>,
    /// Missed records.
    pub missed: Option<Summary>,
}

/// The distributions of one quantity, kept while reading.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dists {
    /// All records (made when the run is finished).
    pub all: Distribution,
    /// Solved ones.
    pub solved: Distribution,
    /// Missed ones.
    pub missed: Distribution,
    /// Unscored ones.
    unscored: Distribution,
}

impl Dists {
    /// One count per value: `all` is the sum of the three at the end.
    fn add(&mut self, v: Option<i64>, verdict: Verdict) {
        let Some(v) = v else { return };
        match verdict {
            Verdict::Solved => self.solved.add(v),
            Verdict::Missed => self.missed.add(v),
            Verdict::Unscored => self.unscored.add(v),
        }
    }

    fn finish(&mut self) {
        let mut all = Distribution::default();
        for d in [&self.solved, &self.missed, &self.unscored] {
            all.merge(d);
        }
        self.all = all;
    }

    fn spread(&self) -> Spread {
        Spread { all: self.all.summary(), solved: self.solved.summary(), missed: self.missed.summary() }
    }
}

/// What a run's solved records say of the effort they took: times and
/// nodes when the move was found (the Solve_ms and Solve_acn
/// extensions), or of the whole search (acs, acn), counted apart: the
/// two are not the same measure and are not compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Effort {
    /// Solved records timed when the move was found.
    pub time_at_solve: u64,
    /// Solved records timed by the whole search only (acs).
    pub time_whole: u64,
    /// Solved records with the nodes when the move was found.
    pub nodes_at_solve: u64,
    /// Solved records with the whole search's nodes only (acn).
    pub nodes_whole: u64,
}

/// What a run's solved records measure (their times, or their nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffortKind {
    /// None has one.
    None,
    /// When the move was found, every one (the extension).
    AtSolve,
    /// The whole search's, every one (acs, acn).
    Whole,
    /// Some of each.
    Mixed,
}

impl EffortKind {
    fn of(at_solve: u64, whole: u64) -> EffortKind {
        match (at_solve > 0, whole > 0) {
            (false, false) => EffortKind::None,
            (true, false) => EffortKind::AtSolve,
            (false, true) => EffortKind::Whole,
            (true, true) => EffortKind::Mixed,
        }
    }

    /// How a note says it, of times (`time`) or of nodes.
    #[must_use]
    pub fn describe(self, time: bool) -> &'static str {
        match (self, time) {
            (EffortKind::None, true) => "no solve time",
            (EffortKind::None, false) => "no node counts",
            (EffortKind::AtSolve, true) => "solve times (Solve_ms)",
            (EffortKind::AtSolve, false) => "nodes at the solve (Solve_acn)",
            (EffortKind::Whole, true) => "only the whole search's time (acs)",
            (EffortKind::Whole, false) => "only the whole search's nodes (acn)",
            (EffortKind::Mixed, true) => "solve times on some records and acs on others",
            (EffortKind::Mixed, false) => "Solve_acn on some records and acn on others",
        }
    }
}

impl Effort {
    /// What the solved records' times measure.
    #[must_use]
    pub fn time(&self) -> EffortKind {
        EffortKind::of(self.time_at_solve, self.time_whole)
    }

    /// What the solved records' nodes measure.
    #[must_use]
    pub fn nodes(&self) -> EffortKind {
        EffortKind::of(self.nodes_at_solve, self.nodes_whole)
    }
}

/// The figures of one run.
#[derive(Debug, Serialize)]
pub struct RunStats {
    /// The run's label.
    pub label: String,
    /// The file it was read from.
    pub file: String,
    /// Valid records read.
    pub records: u64,
    /// Invalid records (each listed among the issues).
    pub invalid: u64,
    /// Records with bm or am.
    pub scored: u64,
    /// Solved (§7.5).
    pub solved: u64,
    /// Missed.
    pub missed: u64,
    /// With neither bm nor am.
    pub unscored: u64,
    /// With a move played (pm, else pv's first): none means the file is
    /// a suite, not results.
    pub played: u64,
    /// What the report makes of the file as a whole, said before the
    /// figures (a suite given as results; scored records without a move).
    pub notes: Vec<Note>,
    /// Results (records with a move played) without the analysis
    /// counters: listed once, as one `no-counters` issue, not per record.
    pub missing_counters: Option<MissingCounters>,
    /// solved / scored with its Wilson 95 % interval, as proportions.
    pub solved_rate: Option<f64>,
    /// See `solved_rate`.
    pub solved_ci: (f64, f64),
    /// Ids of the missed records (`line N` when a record has no id), in
    /// line order.
    pub missed_ids: IdList,
    /// Counts per theme, in the order the themes first appear.
    pub themes: Themes,
    /// Mate records.
    pub mates: Mates,
    /// STS points, when the suite gives them.
    pub points: Option<Points>,
    /// Scores from solution times, when there are any.
    pub time_scores: Vec<TimeScore>,
    /// Summaries of acd, acn, acs and ce (ce without mate scores).
    pub distributions: BTreeMap<&'static str, Spread>,
    /// Records whose ce is a mate score, left out of ce's summary.
    pub ce_mates: u64,
    /// What the solved records' times and nodes are: when the move was
    /// found (the extensions) or the whole search's (acs, acn).
    pub effort: Effort,
    /// Problems found, in line order.
    pub issues: Issues,
    /// acd, acn, acs, ce.
    #[serde(skip)]
    pub(crate) dists: [Dists; 4],
    /// When each solved record was certainly found: its solution time
    /// plus the resolution it is written with (acs 0 is under a second:
    /// found within 1 s), in tenths of a millisecond ([`SOLVE_TIME_UNIT`]),
    /// rounded up; and the nodes of solved records.
    #[serde(skip)]
    pub solve_times: Distribution,
    /// See `solve_times`.
    #[serde(skip)]
    pub solve_nodes: Distribution,
    #[serde(skip)]
    points_sq: f64,
    /// Every id's hash and every position's, with their lines: the
    /// duplicates are found once the run is read.
    #[serde(skip)]
    pub(crate) seen_ids: Spool<Seen>,
    #[serde(skip)]
    pub(crate) seen_positions: Spool<Seen>,
    /// The first error writing a spool.
    #[serde(skip)]
    pub(crate) spool_error: Option<io::Error>,
    /// The record's own key, its buffers kept from record to record.
    #[serde(skip)]
    own: Solution,
    #[serde(skip)]
    bt_sum: f64,
    #[serde(skip)]
    lct_points: u64,
    #[serde(skip)]
    timed: u64,
    /// Scored records without a move.
    #[serde(skip)]
    unplayed_scored: u64,
    /// Work out BT-2630, BT-2450 and LCT II (their formulas were made for
    /// their own 30- and 35-position suites).
    #[serde(skip)]
    pub want_time_scores: bool,
}

/// Bytes of ids and positions seen that a run keeps in memory, each,
/// before it sorts them in chunks on disk: a run of 131,072 records
/// finds its duplicates without touching the disk.
const SEEN_MEMORY: usize = 1 << 21;

/// The unit of [`RunStats::solve_times`], seconds: a tenth of a
/// millisecond (kept exactly up to 10 s, to four significant digits
/// beyond).
pub const SOLVE_TIME_UNIT: f64 = 1e-4;

/// A note on a run as a whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// `not-results` (no record has pm or pv) or `unplayed` (scored
    /// records without a move, counted as missed).
    pub kind: &'static str,
    /// What it means and what to do.
    pub message: String,
}

/// Results without the analysis counters, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MissingCounters {
    /// Results (records with a move) missing at least one of them.
    pub records: u64,
    /// Of the results: without acd (depth).
    pub acd: u64,
    /// Without acn (nodes).
    pub acn: u64,
    /// Without acs (seconds) or the solve-time extension.
    pub acs: u64,
    /// The first such record's line.
    pub first_line: u64,
}

/// The issues a record's key gives it, listed before its others.
const KEY_ISSUES: [&str; 2] = ["key-position", "no-key"];

/// The distributions kept, in order.
const DIST_NAMES: [&str; 4] = ["acd", "acn", "acs", "ce"];

/// Caps on what BT and LCT count, seconds.
const BT_CAP: f64 = 900.0;

/// LCT II's points for a solution found within each number of seconds.
const LCT_BANDS: [(f64, u64); 6] = [(9.0, 30), (29.0, 25), (89.0, 20), (209.0, 15), (389.0, 10), (600.0, 5)];

impl RunStats {
    /// An empty run.
    #[must_use]
    pub fn new(label: &str, file: &str) -> RunStats {
        RunStats {
            label: label.to_owned(),
            file: file.to_owned(),
            records: 0,
            invalid: 0,
            scored: 0,
            solved: 0,
            missed: 0,
            unscored: 0,
            played: 0,
            notes: Vec::new(),
            missing_counters: None,
            solved_rate: None,
            solved_ci: (0.0, 1.0),
            missed_ids: IdList::default(),
            themes: Themes::default(),
            mates: Mates::default(),
            points: None,
            time_scores: Vec::new(),
            distributions: BTreeMap::new(),
            ce_mates: 0,
            effort: Effort::default(),
            issues: Issues::default(),
            dists: Default::default(),
            solve_times: Distribution::default(),
            solve_nodes: Distribution::default(),
            points_sq: 0.0,
            seen_ids: Spool::with_limit(SEEN_MEMORY),
            seen_positions: Spool::with_limit(SEEN_MEMORY),
            spool_error: None,
            own: Solution::default(),
            bt_sum: 0.0,
            lct_points: 0,
            timed: 0,
            unplayed_scored: 0,
            want_time_scores: false,
        }
    }

    pub(crate) fn issue(&mut self, line: u64, kind: &'static str, message: String) {
        if let Err(e) = self.issues.push(line, kind, message) {
            self.spool_error.get_or_insert(e);
        }
    }

    fn keep<T: Item>(spool: &mut Spool<T>, item: T, error: &mut Option<io::Error>) {
        if let Err(e) = spool.push(item) {
            error.get_or_insert(e);
        }
    }

    /// Counts an invalid record (its first error's code and message).
    pub fn invalid_record(&mut self, line: u64, message: String) {
        self.invalid += 1;
        self.issue(line, "invalid", message);
    }

    /// Judges a valid record and counts it: what a comparison of runs
    /// needs, and with `detail` the whole judgement (for CSV rows).
    pub fn add(
        &mut self,
        rec: &Record,
        line: u64,
        key: Option<&KeyBook>,
        grouping: &Grouping,
        detail: bool,
    ) -> (Brief, Option<Judged>) {
        let f = Fields::of(rec, std::mem::take(&mut self.own));
        let m = measure(&f, line, key, grouping, detail);
        let done = self.apply(&m, detail);
        drop(m);
        self.own = f.own;
        done
    }

    /// Counts a measured record (records are counted in line order):
    /// what a comparison of runs needs, and with `detail` the whole
    /// judgement (for CSV rows).
    pub(crate) fn apply(&mut self, m: &Measured<'_>, detail: bool) -> (Brief, Option<Judged>) {
        let line = m.line;
        self.records += 1;
        for (kind, message) in &m.issues[..m.issues.iter().take_while(|(k, _)| KEY_ISSUES.contains(k)).count()] {
            self.issue(line, kind, message.clone().into_owned());
        }
        let verdict = m.verdict;
        let at = At { line, offset: m.id_offset };
        // Identity and duplicates (found when the run is finished).
        Self::keep(&mut self.seen_positions, Seen::new(m.position_hash, line, At::NO_ID), &mut self.spool_error);
        let key_hash = match m.id_hash {
            Some(h) => {
                Self::keep(&mut self.seen_ids, Seen::new(h, line, m.id_offset), &mut self.spool_error);
                h
            }
            None => m.position_hash,
        };
        let (acd, acn, acs, ce, solve) = (m.acd, m.acn, m.acs, m.ce, m.solve);
        for (kind, message) in m.issues.iter().filter(|(k, _)| *k == "pm-not-pv") {
            self.issue(line, kind, message.clone().into_owned());
        }
        if m.played {
            self.played += 1;
            let (no_acd, no_acn, no_acs) = (acd.is_none(), acn.is_none(), acs.is_none() && solve.is_none());
            if no_acd || no_acn || no_acs {
                let c = self.missing_counters.get_or_insert(MissingCounters { first_line: line, ..Default::default() });
                c.records += 1;
                c.acd += u64::from(no_acd);
                c.acn += u64::from(no_acn);
                c.acs += u64::from(no_acs);
            }
        }
        // Mates.
        if let Some((dm, class, found)) = m.mate {
            self.mates.keyed += 1;
            match class {
                MateClass::Best => self.mates.best += 1,
                MateClass::Longer => self.mates.longer += 1,
                MateClass::Shorter => self.mates.shorter += 1,
                MateClass::WrongSign => self.mates.wrong_sign += 1,
                MateClass::Missed => self.mates.missed += 1,
            }
            let e = self.mates.by_length.entry(dm).or_insert((0, 0));
            e.0 += 1;
            e.1 += u64::from(found.is_some());
        }
        for (kind, message) in m.issues.iter().filter(|(k, _)| matches!(*k, "key-mate-longer" | "ce-sign")) {
            self.issue(line, kind, message.clone().into_owned());
        }
        // Points.
        let points = m.points;
        // Theme.
        let file = std::mem::take(&mut self.file);
        let theme = m.theme.name(m.id.as_deref(), &file);
        let theme_name = detail.then(|| theme.to_owned());
        let t = self.themes.entry(theme);
        t.records += 1;
        if verdict != Verdict::Unscored {
            t.scored += 1;
        }
        if verdict == Verdict::Solved {
            t.solved += 1;
        }
        if let Some((got, best)) = points {
            t.points += u64::from(got);
            t.max_points += u64::from(best);
            let p = self.points.get_or_insert(Points {
                records: 0,
                points: 0,
                max: 0,
                percent: 0.0,
                percent_ci: (0.0, 0.0),
                sts_rating: 0.0,
                sts_rating_ci: (0.0, 0.0),
            });
            p.records += 1;
            p.points += u64::from(got);
            p.max += u64::from(best);
            let frac = if best == 0 { 0.0 } else { f64::from(got) / f64::from(best) };
            self.points_sq += frac * frac;
        }
        self.file = file;
        match verdict {
            Verdict::Solved => self.solved += 1,
            Verdict::Missed => {
                self.missed += 1;
                let name = || m.id.as_deref().map_or_else(|| format!("line {line}"), str::to_owned);
                if let Err(e) = self.missed_ids.push_with(line, name) {
                    self.spool_error.get_or_insert(e);
                }
            }
            Verdict::Unscored => self.unscored += 1,
        }
        if verdict != Verdict::Unscored {
            self.scored += 1;
            self.unplayed_scored += u64::from(!m.played);
        }
        // Distributions and solution times.
        // Mate scores are counted among the mates, not averaged with
        // evaluations.
        let ce_eval = ce.filter(|c| c.abs() <= epd_core::CE_MATE_THRESHOLD);
        self.ce_mates += u64::from(ce.is_some() && ce_eval.is_none());
        for (d, v) in self.dists.iter_mut().zip([acd, acn, acs, ce_eval]) {
            d.add(v, verdict);
        }
        let solved = verdict == Verdict::Solved;
        // Microseconds and their resolution: the extension as written,
        // else acs in whole seconds.
        let micros = match solve {
            Some(s) if solved => Some(s),
            None if solved => acs.filter(|&s| s >= 0).map(|s| (s.saturating_mul(1_000_000), 1_000_000)),
            _ => None,
        };
        let time = micros.map(|(us, _)| us as f64 / 1e6);
        let resolution = solve.map_or(1.0, |(_, r)| r as f64 / 1e6);
        let nodes = if solved { m.solve_nodes.or(acn) } else { None };
        if let Some((us, res)) = micros {
            // Found within the time written plus its resolution, in
            // tenths of a millisecond, rounded up.
            let unit = (SOLVE_TIME_UNIT * 1e6) as i64;
            self.solve_times.add(us.saturating_add(res).saturating_add(unit - 1) / unit);
        }
        if let Some(n) = nodes {
            self.solve_nodes.add(n);
        }
        if solved {
            match (solve.is_some(), micros.is_some()) {
                (true, _) => self.effort.time_at_solve += 1,
                (false, true) => self.effort.time_whole += 1,
                _ => {}
            }
            match (m.solve_nodes.is_some(), nodes.is_some()) {
                (true, _) => self.effort.nodes_at_solve += 1,
                (false, true) => self.effort.nodes_whole += 1,
                _ => {}
            }
        }
        if verdict != Verdict::Unscored && (time.is_some() || solve.is_some() || acs.is_some()) {
            self.timed += 1;
        }
        if verdict != Verdict::Unscored {
            let t = time.map_or(BT_CAP, |t| t.min(BT_CAP));
            self.bt_sum += t;
            if let Some(t) = time {
                self.lct_points += LCT_BANDS.iter().find(|&&(s, _)| t <= s).map_or(0, |&(_, p)| p);
            }
        }
        let brief = Brief { key: key_hash, at, verdict, time, resolution, time_at_solve: solve.is_some() };
        if !detail {
            return (brief, None);
        }
        let judged = Judged {
            line,
            id: m.id.as_deref().map(str::to_owned),
            theme: theme_name.unwrap_or_default(),
            verdict,
            played: m.san.as_deref().map(str::to_owned),
            dm: m.mate.map(|(dm, _, _)| dm),
            mate: m.mate.map(|(_, class, _)| class),
            points,
            acd,
            acn,
            acs,
            ce,
            time,
            time_resolution: resolution,
            nodes,
            key: key_hash,
        };
        (brief, Some(judged))
    }

    /// Works out the figures that need every record: intervals, ratings,
    /// time scores, distribution summaries.
    pub fn finish(&mut self) {
        self.notes.clear();
        if self.records > 0 && self.played == 0 {
            self.notes.push(Note {
                kind: "not-results",
                message: format!(
                    "no record has pm or pv: {} does not look like results but like a test suite; `epd target` \
                     runs an engine over a suite and writes the results to report on (`epd target --counters \
                     SUITE.epd -o results.epd`, then `epd report results.epd`)",
                    self.file
                ),
            });
        } else if self.unplayed_scored > 0 {
            self.notes.push(Note {
                kind: "unplayed",
                message: format!(
                    "{} of {} scored records have neither pm nor pv: counted as missed",
                    self.unplayed_scored, self.scored
                ),
            });
        }
        if let Some(m) = self.missing_counters.clone() {
            let which: Vec<String> = [("acd", m.acd), ("acn", m.acn), ("acs", m.acs)]
                .iter()
                .filter(|&&(_, n)| n > 0)
                .map(|&(k, n)| format!("no {k} on {n}"))
                .collect();
            self.issue(
                m.first_line,
                "no-counters",
                format!(
                    "{} of {} results lack analysis counters ({}; the first is this line): `epd target \
                     --counters` (or `epd analyze --counters`) writes acd, acn and acs",
                    m.records,
                    self.played,
                    which.join(", ")
                ),
            );
        }
        if self.scored > 0 {
            self.solved_rate = Some(self.solved as f64 / self.scored as f64);
        }
        self.solved_ci = wilson(self.solved, self.scored);
        if let Some(p) = self.points.as_mut() {
            let n = p.records as f64;
            p.percent = if p.max == 0 { 0.0 } else { 100.0 * p.points as f64 / p.max as f64 };
            // The standard error of the mean of the per-record fractions
            // (each record's points over its best), in percent.
            let mean = p.percent / 100.0;
            let var = if n > 1.0 { (self.points_sq - n * mean * mean).max(0.0) / (n - 1.0) } else { 0.0 };
            let se = 100.0 * (var / n).sqrt();
            p.percent_ci = ((p.percent - Z95 * se).max(0.0), (p.percent + Z95 * se).min(100.0));
            let rating = |pct: f64| 44.523 * pct - 242.85;
            p.sts_rating = rating(p.percent);
            p.sts_rating_ci = (rating(p.percent_ci.0), rating(p.percent_ci.1));
        }
        self.time_scores.clear();
        if self.want_time_scores && self.timed > 0 {
            self.time_scores.push(TimeScore {
                name: "BT-2630",
                formula: "2630 - sum(t)/30, t the seconds to solve each record, 900 when unsolved or longer",
                value: 2630.0 - self.bt_sum / 30.0,
            });
            self.time_scores.push(TimeScore {
                name: "BT-2450",
                formula: "2450 - sum(t)/30, t as for BT-2630",
                value: 2450.0 - self.bt_sum / 30.0,
            });
            self.time_scores.push(TimeScore {
                name: "LCT II",
                formula: "1900 + points: 30 for a solution within 9 s, 25 within 29 s, 20 within 89 s, \
                          15 within 209 s, 10 within 389 s, 5 within 600 s",
                value: 1900.0 + self.lct_points as f64,
            });
        }
        for d in &mut self.dists {
            d.finish();
        }
        self.distributions = DIST_NAMES.iter().zip(&self.dists).map(|(&k, d)| (k, d.spread())).collect();
    }

    /// The duplicate positions, as issues; the duplicate ids, handed to
    /// `dup_id` as (the first line, with where its id is; the line) to be
    /// named once their ids are read again, the lines of one first line
    /// ascending.
    ///
    /// # Errors
    /// Reading or writing a spool failed.
    pub(crate) fn duplicates(&mut self, mut dup_id: impl FnMut(At, u64) -> io::Result<()>) -> io::Result<()> {
        let mut positions = std::mem::take(&mut self.seen_positions);
        let mut ids = std::mem::take(&mut self.seen_ids);
        positions.seal();
        ids.seal();
        // The two merges on two threads: the positions' duplicates go to
        // the issues, the ids' to `dup_id`, or, where only the first
        // issues are kept, to issues of their own, joined after.
        let mut id_issues = self.issues.0.kept().map(Issues::first);
        let (issues, spool_error) = (&mut self.issues, &mut self.spool_error);
        let by_position = move || -> io::Result<()> {
            let mut first: Option<Seen> = None;
            for s in positions.iter() {
                let s = s?;
                match first {
                    Some(f) if f.hash == s.hash => {
                        if let Err(e) = issues.push_duplicate_position(s.line(), f.line()) {
                            spool_error.get_or_insert(e);
                        }
                    }
                    _ => first = Some(s),
                }
            }
            Ok(())
        };
        let found = std::thread::scope(|scope| {
            let other = scope.spawn(by_position);
            let mut first: Option<Seen> = None;
            let mut by_id = || -> io::Result<()> {
                for s in ids.iter() {
                    let s = s?;
                    match first {
                        // The first line as the hash, the duplicate's
                        // line, and where the id is in the first line: the
                        // id is read there (ids of one hash are one id), so
                        // a run that repeats itself reads each id once.
                        // Where only the first issues are kept, only theirs
                        // are read, once the rest are in.
                        Some(f) if f.hash == s.hash => {
                            let at = At { line: f.line(), offset: f.offset() };
                            match id_issues.as_mut() {
                                None => dup_id(at, s.line())?,
                                Some(kept) => kept.push_unread_duplicate_id(s.line(), at)?,
                            }
                        }
                        _ => first = Some(s),
                    }
                }
                Ok(())
            };
            let done = by_id();
            let positions = other.join().unwrap_or_else(|_| Err(io::Error::other("finding duplicates panicked")));
            done.and(positions)
        });
        if let Some(kept) = id_issues {
            self.issues.0.join(kept.0);
        }
        found
    }

    /// The objective a tuner maximises: the points percentage where the
    /// suite gives points, else the solved percentage; and its standard
    /// error.
    #[must_use]
    pub fn objective(&self) -> Objective {
        if let Some(p) = &self.points {
            let se = (p.percent_ci.1 - p.percent_ci.0) / (2.0 * Z95);
            return Objective { name: "points_percent", value: p.percent, standard_error: se };
        }
        let n = self.scored as f64;
        let p = self.solved_rate.unwrap_or(0.0);
        let se = if n > 0.0 { (p * (1.0 - p) / n).sqrt() } else { 0.0 };
        Objective { name: "solved_percent", value: 100.0 * p, standard_error: 100.0 * se }
    }

    /// The distributions kept (for charts): `acd`, `acn`, `acs`, `ce`.
    #[must_use]
    pub fn distribution(&self, name: &str) -> Option<&Dists> {
        DIST_NAMES.iter().position(|&n| n == name).map(|i| &self.dists[i])
    }
}

/// A figure to maximise, with its standard error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Objective {
    /// What it is.
    pub name: &'static str,
    /// Its value, in percent.
    pub value: f64,
    /// Its standard error, in percent.
    pub standard_error: f64,
}

/// A verdict's name: `solved`, `missed`, `unscored`.
#[must_use]
pub fn verdict_str(v: Verdict) -> &'static str {
    match v {
        Verdict::Solved => "solved",
        Verdict::Missed => "missed",
        Verdict::Unscored => "unscored",
    }
}

fn verdict_name<S: serde::Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(verdict_str(*v))
}

/// The solved records' time and nodes, for a solved-against-effort curve:
/// (value, cumulative solved), ascending.
#[must_use]
pub fn cumulative(d: &Distribution) -> Vec<(i64, u64)> {
    let mut total = 0;
    d.values()
        .into_iter()
        .map(|(v, c)| {
            total += c;
            (v, total)
        })
        .collect()
}

/// Ids the report lists, in line order (a JSON array of strings),
/// spooled to disk past a bounded number in memory.
#[derive(Debug, Default)]
pub struct IdList(pub(crate) Spool<Text>);

impl IdList {
    /// A list of which only the first `n` ids in line order are kept,
    /// and the rest counted: what the text report shows.
    #[must_use]
    pub fn first(n: usize) -> IdList {
        IdList(Spool::first(n))
    }

    /// How many.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// None.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The ids, in line order.
    pub fn iter(&self) -> impl Iterator<Item = io::Result<String>> + '_ {
        self.0.iter().map(|t| t.map(|t| t.text))
    }

    /// The records' lines, ascending.
    pub fn lines(&self) -> impl Iterator<Item = io::Result<u64>> + '_ {
        self.0.iter().map(|t| t.map(|t| t.line))
    }

    pub(crate) fn push(&mut self, line: u64, id: String) -> io::Result<()> {
        self.0.push(Text { line, tag: 0, text: id })
    }

    /// Adds the id `id` makes, at `line`; made only if it is kept.
    pub(crate) fn push_with(&mut self, line: u64, id: impl FnOnce() -> String) -> io::Result<()> {
        let text = Text { line, tag: 0, text: String::new() };
        let at = (text.key(), text.tiebreak());
        self.0.push_with(at, || Text { text: id(), ..text })
    }
}

/// A spooled list as a JSON array, read as it is written.
fn serialize_spooled<S: serde::Serializer, T: Serialize>(
    s: S,
    len: u64,
    items: impl Iterator<Item = io::Result<T>>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeSeq};
    let mut seq = s.serialize_seq(usize::try_from(len).ok())?;
    for item in items {
        seq.serialize_element(&item.map_err(S::Error::custom)?)?;
    }
    seq.end()
}

impl Serialize for IdList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_spooled(s, self.len(), self.iter())
    }
}

/// The kinds of [`Issue`], in the order a line's issues are listed.
const ISSUE_KINDS: [&str; 9] = [
    "invalid",
    "key-position",
    "no-key",
    "duplicate-id",
    "duplicate-position",
    "pm-not-pv",
    "no-counters",
    "key-mate-longer",
    "ce-sign",
];

/// The issues of a run, in line order, spooled to disk past a bounded
/// number in memory.
#[derive(Debug, Default)]
pub struct Issues(Spool<KeptIssue>);

/// `ISSUE_KINDS`' index of each duplicate.
const DUPLICATE_ID: u8 = 3;
const DUPLICATE_POSITION: u8 = 4;

/// An issue as a spool keeps it: a duplicate as what its message is made
/// of (a run that repeats itself has one or two a record), written out
/// only when the issue is read; any other with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeptIssue {
    line: u64,
    /// Its kind's index in `ISSUE_KINDS`.
    tag: u8,
    /// A duplicate's first line.
    first: u64,
    /// The message; a duplicate id's id.
    text: String,
    /// A duplicate id whose id is not read yet: where it is in the first
    /// line. Only a spool of the first issues ([`Issues::first`]) holds
    /// such, in memory, until the run's file is read again.
    unread: Option<u32>,
}

impl KeptIssue {
    fn issue(self) -> Issue {
        let message = match self.tag {
            DUPLICATE_POSITION => format!("the position of line {} again", self.first),
            DUPLICATE_ID => format!("the id {:?} of line {} again", self.text, self.first),
            _ => self.text,
        };
        Issue { line: self.line, kind: ISSUE_KINDS[usize::from(self.tag)], message }
    }
}

impl Item for KeptIssue {
    /// By line, then by kind.
    fn key(&self) -> u64 {
        self.line.saturating_mul(256) | u64::from(self.tag)
    }
    fn size(&self) -> usize {
        std::mem::size_of::<Self>() + self.text.len()
    }
    fn encode(&self, out: &mut Vec<u8>) {
        debug_assert!(self.unread.is_none(), "an id not read is never written out");
        out.extend_from_slice(&self.line.to_le_bytes());
        out.push(self.tag);
        out.extend_from_slice(&self.first.to_le_bytes());
        out.extend_from_slice(&(self.text.len() as u64).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
    }
    fn decode(input: &mut impl BufRead) -> io::Result<Option<KeptIssue>> {
        let Some(b) = read_array::<25>(input)? else { return Ok(None) };
        let number = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let bad = || io::Error::from(io::ErrorKind::InvalidData);
        let tag = b[8];
        if usize::from(tag) >= ISSUE_KINDS.len() {
            return Err(bad());
        }
        let mut text = vec![0; usize::try_from(number(17)).map_err(|_| bad())?];
        input.read_exact(&mut text)?;
        let text = String::from_utf8(text).map_err(|_| bad())?;
        Ok(Some(KeptIssue { line: number(0), tag, first: number(9), text, unread: None }))
    }
}

impl Issues {
    /// Issues of which only the first `n` in line order are kept, with
    /// their messages, and the rest counted: what the text and HTML
    /// reports show.
    #[must_use]
    pub fn first(n: usize) -> Issues {
        Issues(Spool::first(n))
    }

    /// How many.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// None.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The issues, in line order; those of one line in the order
    /// invalid, key-position, no-key, duplicate-id, duplicate-position,
    /// pm-not-pv, no-counters, key-mate-longer, ce-sign.
    pub fn iter(&self) -> impl Iterator<Item = io::Result<Issue>> + '_ {
        self.0.iter().map(|t| t.map(KeptIssue::issue))
    }

    fn push(&mut self, line: u64, kind: &'static str, message: String) -> io::Result<()> {
        let tag = ISSUE_KINDS.iter().position(|&k| k == kind).expect("a known kind of issue") as u8;
        debug_assert!(tag != DUPLICATE_ID && tag != DUPLICATE_POSITION, "a duplicate is pushed as one");
        self.0.push(KeptIssue { line, tag, first: 0, text: message, unread: None })
    }

    /// Line `line` holds the position of line `first` again.
    fn push_duplicate_position(&mut self, line: u64, first: u64) -> io::Result<()> {
        self.0.push(KeptIssue { line, tag: DUPLICATE_POSITION, first, text: String::new(), unread: None })
    }

    /// Line `line` holds the id of line `first`, `id`, again.
    pub(crate) fn push_duplicate_id(&mut self, line: u64, first: u64, id: String) -> io::Result<()> {
        self.0.push(KeptIssue { line, tag: DUPLICATE_ID, first, text: id, unread: None })
    }

    /// Line `line` holds the id at `first` again, not read yet: with
    /// [`Issues::first`], where only the ids of the issues kept are read.
    fn push_unread_duplicate_id(&mut self, line: u64, first: At) -> io::Result<()> {
        let offset = Some(first.offset);
        self.0.push(KeptIssue { line, tag: DUPLICATE_ID, first: first.line, text: String::new(), unread: offset })
    }

    /// Takes out the duplicate ids kept whose ids are not read yet: (the
    /// duplicate's line, where the id is), to be pushed again with
    /// [`Issues::push_duplicate_id`] once read.
    pub(crate) fn take_unread(&mut self) -> Vec<(u64, At)> {
        if self.0.kept().is_none() {
            return Vec::new();
        }
        self.0
            .take_where(|i| i.unread.is_some())
            .into_iter()
            .filter_map(|i| Some((i.line, At { line: i.first, offset: i.unread? })))
            .collect()
    }

    pub(crate) fn seal(&mut self) {
        self.0.seal();
    }
}

impl Serialize for Issues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_spooled(s, self.len(), self.iter())
    }
}

#[cfg(test)]
mod tests {
    use crate::measure::{id_prefix, micros_of_millis};

    #[test]
    fn themes_are_ids_without_their_numbers() {
        for (id, theme) in [
            ("STS(v1.0) Undermine.001", "STS(v1.0) Undermine"),
            ("WAC.001", "WAC"),
            ("test 1", "test"),
            ("1.5.IQ.918", "1.5.IQ"),
            ("LCTPOS01 (d6!)", "LCTPOS01 (d6!)"),
            ("123", "123"),
        ] {
            assert_eq!(id_prefix(id), theme);
        }
    }

    #[test]
    fn solve_times_are_read_as_precisely_as_they_are_written() {
        // (text, microseconds, resolution in microseconds)
        for (text, us, res) in [
            ("1500", Some(1_500_000), 1000),
            ("0", Some(0), 1000),
            ("12.5", Some(12_500), 100),
            ("0.125", Some(125), 1),
            ("3.14159", Some(3141), 1),
            ("7.", Some(7000), 1000),
        ] {
            assert_eq!(micros_of_millis(text.as_bytes()), us.map(|u| (u, res)), "{text}");
        }
        for bad in ["", ".5", "-1", "1e3", "1.2.3", "abc", "12345678901234567"] {
            assert_eq!(micros_of_millis(bad.as_bytes()), None, "{bad}");
        }
    }
}
