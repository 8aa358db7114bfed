//! A tuning run's history (`epd tune`'s `history.csv`), read and
//! reported: where each parameter went, and how the iterations'
//! results went, with their moving average.
//!
//! The history is read from its own format, not through the tuner's
//! code (this crate sits below it): a header line, then a line per
//! iteration. Its columns are `iteration`, `k` (the pairs counted after
//! the iteration), what the iteration measured — `wins,draws,losses` of
//! θ⁺ against θ⁻ in games, or `OBJ+,OBJ-` (the objective `OBJ` of θ⁺ and
//! of θ⁻) on a suite — then `result` (SPSA's: wins less losses, or `OBJ+`
//! less `OBJ-`), then for each parameter `NAME` six columns: `NAME` (its
//! value after the step), `NAME+` and `NAME-` (the probes), `c(NAME)`,
//! `a(NAME)` and `before(NAME)` (its value before the step). A column
//! `NAME` is a parameter's exactly when `c(NAME)` is there; names may
//! hold spaces and brackets, and each of a parameter's columns is looked
//! for nearest its `c(NAME)`.
//!
//! [`read`] gives the data as written ([`History`]), refusing what is not
//! a history with the line and column at fault; [`build`] works out the
//! report ([`Tuning`], serialisable: schema [`TUNING_SCHEMA`]); [`text`],
//! [`write_json`] and [`write_html`] render it. A header with no line
//! under it is a run with no iteration yet.
//!
//! The run's state (`tune.json`, beside the history) adds what the
//! history lacks: each parameter's range and its c and r at the end of
//! the run, and the iterations planned. [`read_state`] reads only those
//! fields of it, and [`Tuning::add_state`] puts them in the report.

use std::fmt;
use std::io;

use serde::{Deserialize, Serialize};

mod html;
mod text;

pub use html::{html, write_html};
pub use text::text;

/// The version of the JSON schema of [`Tuning`].
pub const TUNING_SCHEMA: &str = "epd-tuning/1";

/// A history that cannot be read: the message names the file, and the
/// line and column at fault when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TuningError(pub String);

impl fmt::Display for TuningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TuningError {}

/// What each iteration measured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Mode {
    /// Game pairs between θ⁺ and θ⁻ (`wins,draws,losses` of θ⁺).
    Games,
    /// A suite's objective under θ⁺ and θ⁻ (`OBJ+,OBJ-`).
    Suite {
        /// The objective's name: `solved_percent` or `points_percent`.
        objective: String,
    },
}

/// One iteration's measure, from θ⁺'s side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Measured {
    /// Its games.
    Games {
        /// θ⁺'s wins.
        wins: u64,
        /// Draws.
        draws: u64,
        /// θ⁺'s losses.
        losses: u64,
    },
    /// Both probes' objective.
    Suite {
        /// θ⁺'s.
        plus: f64,
        /// θ⁻'s.
        minus: f64,
    },
}

/// One parameter in one iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Its value before the step.
    pub before: f64,
    /// θ⁺'s value.
    pub plus: f64,
    /// θ⁻'s value.
    pub minus: f64,
    /// The perturbation c_k.
    pub c: f64,
    /// The gain a_k.
    pub a: f64,
    /// Its value after the step.
    pub value: f64,
}

/// One line of the history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Iteration {
    /// The iteration, from 1.
    pub iteration: u64,
    /// Pairs counted after it (SPSA's k).
    pub k: u64,
    /// What it measured.
    pub measured: Measured,
    /// SPSA's result: θ⁺'s wins less its losses, or its objective less θ⁻'s.
    pub result: f64,
    /// Each parameter, in the order of [`History::params`].
    pub steps: Vec<Step>,
}

/// A history as written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct History {
    /// What the iterations measured.
    pub mode: Mode,
    /// The parameters' names, in the order of their columns.
    pub params: Vec<String>,
    /// The iterations, in the order of the lines.
    pub iterations: Vec<Iteration>,
}

/// The longest field a message quotes, in characters.
const QUOTED: usize = 40;

fn quote(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > QUOTED {
        format!("{:?}…", s.chars().take(QUOTED).collect::<String>())
    } else {
        format!("{s:?}")
    }
}

/// A parameter's columns: value, plus, minus, c, a, before.
type Columns = [usize; 6];

/// Reads a history (`file` names it in messages).
///
/// # Errors
/// Bytes that are not a tuning history: no header line; no `iteration`,
/// `k` or `result` column; measure columns that are neither
/// `wins,draws,losses` nor `OBJ+,OBJ-`; no parameter, or a parameter
/// short of one of its six columns; a line with more or fewer fields than
/// the header; a field that is not a number (a finite one, a whole one for
/// `iteration`, `k` and the games), with its line and column.
pub fn read(bytes: &[u8], file: &str) -> Result<History, TuningError> {
    let err = |m: String| TuningError(format!("{file}: {m}"));
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut rec = csv::ByteRecord::new();
    let csv_err = |e: csv::Error| {
        let at = e.position().map_or(String::new(), |p| format!("{}: ", p.line()));
        TuningError(format!("{file}:{at}{e}"))
    };
    if !rdr.read_byte_record(&mut rec).map_err(csv_err)? {
        return Err(err("empty: not a tuning history (epd tune's history.csv has a header line)".into()));
    }
    let header: Vec<String> = rec.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    let at = |name: &str| header.iter().position(|h| h == name);
    let missing: Vec<&str> = ["iteration", "k", "result"].into_iter().filter(|n| at(n).is_none()).collect();
    let (Some(ic), Some(kc), Some(rc)) = (at("iteration"), at("k"), at("result")) else {
        return Err(err(format!(
            "not a tuning history (epd tune's history.csv): no column {}",
            missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
        )));
    };
    let measure: &[String] = if kc < rc { &header[kc + 1..rc] } else { &[] };
    let mode = match measure {
        [w, d, l] if w == "wins" && d == "draws" && l == "losses" => Mode::Games,
        [p, m] if p.len() > 1 && p.ends_with('+') && m.ends_with('-') && p[..p.len() - 1] == m[..m.len() - 1] => {
            Mode::Suite { objective: p[..p.len() - 1].to_owned() }
        }
        _ => {
            return Err(err(format!(
                "not a tuning history: the columns between `k` and `result` are {:?}, not wins,draws,losses (games) \
                 nor OBJ+,OBJ- (a suite's objective)",
                measure
            )))
        }
    };
    let (names, columns) = parameters(&header, rc).map_err(err)?;
    let mut iterations = Vec::new();
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_err(e)),
        }
        let line = rec.position().map_or(0, csv::Position::line);
        let at = |m: String| TuningError(format!("{file}:{line}: {m}"));
        if rec.len() != header.len() {
            return Err(at(format!("{} fields, where the header has {}", rec.len(), header.len())));
        }
        let field = |c: usize| rec.get(c).unwrap_or_default();
        let float = |c: usize| -> Result<f64, TuningError> {
            std::str::from_utf8(field(c))
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(format!("column {} ({}): {} is not a number", c + 1, header[c], quote(field(c)))))
        };
        let whole = |c: usize| -> Result<u64, TuningError> {
            std::str::from_utf8(field(c)).ok().and_then(|s| s.parse::<u64>().ok()).ok_or_else(|| {
                at(format!("column {} ({}): {} is not a whole number", c + 1, header[c], quote(field(c))))
            })
        };
        let measured = match mode {
            Mode::Games => Measured::Games { wins: whole(kc + 1)?, draws: whole(kc + 2)?, losses: whole(kc + 3)? },
            Mode::Suite { .. } => Measured::Suite { plus: float(kc + 1)?, minus: float(kc + 2)? },
        };
        let mut steps = Vec::with_capacity(columns.len());
        for cols in &columns {
            let [value, plus, minus, c, a, before] = cols.map(&float);
            steps.push(Step { before: before?, plus: plus?, minus: minus?, c: c?, a: a?, value: value? });
        }
        iterations.push(Iteration { iteration: whole(ic)?, k: whole(kc)?, measured, result: float(rc)?, steps });
    }
    Ok(History { mode, params: names, iterations })
}

/// The parameters of a header whose `result` is column `rc`: their names
/// and columns, found after `result`.
fn parameters(header: &[String], rc: usize) -> Result<(Vec<String>, Vec<Columns>), String> {
    let mut complete: Vec<(String, Columns)> = Vec::new();
    let mut short: Vec<(usize, String, String)> = Vec::new();
    for (j, h) in header.iter().enumerate().skip(rc + 1) {
        let Some(name) = h.strip_prefix("c(").and_then(|n| n.strip_suffix(')')) else { continue };
        let want = [
            name.to_owned(),
            format!("{name}+"),
            format!("{name}-"),
            h.clone(),
            format!("a({name})"),
            format!("before({name})"),
        ];
        // Each column nearest c(NAME), the nearer one before it on a tie.
        let find = |w: &str| {
            header
                .iter()
                .enumerate()
                .skip(rc + 1)
                .filter(|(_, x)| *x == w)
                .map(|(i, _)| i)
                .min_by_key(|&i| (i.abs_diff(j), i))
        };
        let mut cols = [j; 6];
        let mut lacking = None;
        for (slot, w) in cols.iter_mut().zip(&want) {
            match find(w) {
                Some(i) => *slot = i,
                None => {
                    lacking = Some(w.clone());
                    break;
                }
            }
        }
        match lacking {
            None => complete.push((name.to_owned(), cols)),
            Some(w) => short.push((j, name.to_owned(), w)),
        }
    }
    // A `c(…)` column that is another parameter's (one named `c(x)`, say)
    // is not a parameter short of its columns.
    if let Some((j, name, w)) = short.into_iter().find(|(j, _, _)| !complete.iter().any(|(_, c)| c.contains(j))) {
        return Err(format!("column {} (c({name})): the parameter {name:?} has no column {w:?}", j + 1));
    }
    if complete.is_empty() {
        return Err("no parameter: a tuned parameter NAME has the columns NAME, NAME+, NAME-, c(NAME), a(NAME) and \
                    before(NAME) after `result`"
            .into());
    }
    Ok(complete.into_iter().unzip())
}

/// The games of a history in all, from θ⁺'s side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GamesTotal {
    /// θ⁺'s wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// θ⁺'s losses.
    pub losses: u64,
    /// Games played.
    pub games: u64,
    /// θ⁺'s score in percent: (wins + draws / 2) / games; `None` without
    /// games.
    pub score_percent: Option<f64>,
}

/// The suite's objective over the iterations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteMeans {
    /// The objective's name.
    pub objective: String,
    /// The mean of θ⁺'s objective over the iterations.
    pub plus_mean: Option<f64>,
    /// The mean of θ⁻'s.
    pub minus_mean: Option<f64>,
}

/// One parameter over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamReport {
    /// Its name.
    pub name: String,
    /// Its value before the first iteration.
    pub start: Option<f64>,
    /// Its value after the last.
    pub end: Option<f64>,
    /// The least value it took (the start included; probes not).
    pub min: Option<f64>,
    /// The greatest value it took.
    pub max: Option<f64>,
    /// The last iteration's c_k.
    pub last_c: Option<f64>,
    /// The last iteration's a_k.
    pub last_a: Option<f64>,
    /// The range it is kept in, `[min, max]` (from the run's state).
    pub range: Option<[f64; 2]>,
    /// Its c at the end of the run (from the run's state).
    pub c_end: Option<f64>,
    /// Its r at the end of the run (from the run's state).
    pub r_end: Option<f64>,
    /// Each iteration: its number and the parameter's step.
    pub points: Vec<ParamPoint>,
}

/// A parameter in one iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ParamPoint {
    /// The iteration.
    pub iteration: u64,
    /// The parameter's step.
    #[serde(flatten)]
    pub step: Step,
}

/// A figure per iteration and its moving average.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// `result`, or the suite objective's name (the mean of both probes').
    pub name: String,
    /// What it is, in words.
    pub what: String,
    /// Each iteration.
    pub points: Vec<SeriesPoint>,
}

/// A series' figure in one iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// The iteration.
    pub iteration: u64,
    /// Pairs counted after it.
    pub k: u64,
    /// The figure.
    pub value: f64,
    /// The mean of the figure over the window ending here (fewer
    /// iterations at the start).
    pub moving_average: f64,
}

/// A tuning run's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tuning {
    /// [`TUNING_SCHEMA`].
    pub schema: &'static str,
    /// The history's file.
    pub file: String,
    /// What the iterations measured.
    #[serde(flatten)]
    pub mode: Mode,
    /// Iterations in the history.
    pub iterations: u64,
    /// What the run plans in all (from its state): SPSA's N, counted in
    /// pairs like [`Tuning::pairs`] (an iteration of `--batch B` plays B
    /// pairs; a suite counts an iteration as a pair).
    pub planned_iterations: Option<u64>,
    /// Pairs counted after the last (SPSA's k; a suite counts an
    /// iteration as a pair).
    pub pairs: u64,
    /// The games in all (games mode).
    pub games: Option<GamesTotal>,
    /// The objective's means (suite mode).
    pub suite: Option<SuiteMeans>,
    /// The moving averages' window, in iterations.
    pub window: usize,
    /// Each parameter.
    pub params: Vec<ParamReport>,
    /// SPSA's result per iteration; on a suite, then the objective (the
    /// mean of θ⁺'s and θ⁻'s) per iteration.
    pub series: Vec<Series>,
}

/// The window by default: a tenth of the iterations, at least 1.
#[must_use]
pub fn default_window(iterations: usize) -> usize {
    (iterations / 10).max(1)
}

/// The trailing moving average of `values` over `window` (at least 1):
/// the mean of the last `window` values, of all of them at the start.
#[must_use]
pub fn moving_average(values: &[f64], window: usize) -> Vec<f64> {
    let window = window.max(1);
    let mut out = Vec::with_capacity(values.len());
    let mut sum = 0.0;
    for (i, v) in values.iter().enumerate() {
        sum += v;
        if i >= window {
            sum -= values[i - window];
        }
        out.push(sum / (i + 1).min(window) as f64);
    }
    out
}

/// The report over `history` (read from `file`), its moving averages over
/// `window` iterations ([`default_window`] when `None`, at least 1).
#[must_use]
pub fn build(history: &History, file: &str, window: Option<usize>) -> Tuning {
    let its = &history.iterations;
    let window = window.unwrap_or_else(|| default_window(its.len())).max(1);
    let params = history
        .params
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let steps: Vec<Step> = its.iter().filter_map(|it| it.steps.get(i).copied()).collect();
            let start = steps.first().map(|s| s.before);
            let values = start.into_iter().chain(steps.iter().map(|s| s.value));
            let (min, max) = values.fold((None, None), |(lo, hi): (Option<f64>, Option<f64>), v| {
                (Some(lo.map_or(v, |l| l.min(v))), Some(hi.map_or(v, |h| h.max(v))))
            });
            ParamReport {
                name: name.clone(),
                start,
                end: steps.last().map(|s| s.value),
                min,
                max,
                last_c: steps.last().map(|s| s.c),
                last_a: steps.last().map(|s| s.a),
                range: None,
                c_end: None,
                r_end: None,
                points: its
                    .iter()
                    .zip(&steps)
                    .map(|(it, &step)| ParamPoint { iteration: it.iteration, step })
                    .collect(),
            }
        })
        .collect();
    let series = |name: &str, what: String, value: &dyn Fn(&Iteration) -> f64| {
        let values: Vec<f64> = its.iter().map(value).collect();
        let avg = moving_average(&values, window);
        Series {
            name: name.to_owned(),
            what,
            points: its
                .iter()
                .zip(values.iter().zip(avg))
                .map(|(it, (&value, moving_average))| SeriesPoint {
                    iteration: it.iteration,
                    k: it.k,
                    value,
                    moving_average,
                })
                .collect(),
        }
    };
    let mean = |f: &dyn Fn(&Measured) -> f64| {
        (!its.is_empty()).then(|| its.iter().map(|it| f(&it.measured)).sum::<f64>() / its.len() as f64)
    };
    let (games, suite, all) = match &history.mode {
        Mode::Games => {
            let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
            for it in its {
                if let Measured::Games { wins, draws, losses } = it.measured {
                    w = w.saturating_add(wins);
                    d = d.saturating_add(draws);
                    l = l.saturating_add(losses);
                }
            }
            let games = w.saturating_add(d).saturating_add(l);
            let score = (games > 0).then(|| 100.0 * (w as f64 + d as f64 / 2.0) / (w as f64 + d as f64 + l as f64));
            let result = series("result", "wins less losses of θ⁺ against θ⁻".into(), &|it| it.result);
            (Some(GamesTotal { wins: w, draws: d, losses: l, games, score_percent: score }), None, vec![result])
        }
        Mode::Suite { objective } => {
            let probe = |m: &Measured, plus: bool| match *m {
                Measured::Suite { plus: p, minus: n } => {
                    if plus {
                        p
                    } else {
                        n
                    }
                }
                Measured::Games { .. } => 0.0,
            };
            let means = SuiteMeans {
                objective: objective.clone(),
                plus_mean: mean(&|m| probe(m, true)),
                minus_mean: mean(&|m| probe(m, false)),
            };
            let result = series("result", format!("{objective} of θ⁺ less θ⁻'s"), &|it| it.result);
            let level = series(objective, format!("{objective}, the mean of θ⁺'s and θ⁻'s"), &|it| {
                (probe(&it.measured, true) + probe(&it.measured, false)) / 2.0
            });
            (None, Some(means), vec![result, level])
        }
    };
    Tuning {
        schema: TUNING_SCHEMA,
        file: file.to_owned(),
        mode: history.mode.clone(),
        iterations: its.len() as u64,
        planned_iterations: None,
        pairs: its.last().map_or(0, |it| it.k),
        games,
        suite,
        window,
        params,
        series: all,
    }
}

/// What [`read_state`] takes from a run's `tune.json`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RunState {
    /// Each parameter.
    pub params: Vec<StateParam>,
    /// The schedule.
    pub schedule: StateSchedule,
}

/// A parameter of a run's state.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct StateParam {
    /// Its name, as in the history.
    pub name: String,
    /// The least value it may take.
    pub min: f64,
    /// The greatest.
    pub max: f64,
    /// Its c at the end of the run.
    pub c_end: f64,
    /// Its r at the end of the run.
    pub r_end: f64,
}

/// A run's schedule.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct StateSchedule {
    /// The iterations planned.
    pub iterations: u64,
}

/// Reads a run's state (`epd tune`'s `tune.json`, read from `file`): the
/// fields [`RunState`] names; the others are left alone.
///
/// # Errors
/// Not JSON, or without those fields: the message names the file and the
/// line and column at fault.
pub fn read_state(bytes: &[u8], file: &str) -> Result<RunState, TuningError> {
    serde_json::from_slice(bytes).map_err(|e| {
        // serde_json's words end with " at line L column C": said first.
        let words = e.to_string();
        let words = words.split(" at line ").next().unwrap_or(&words).to_owned();
        TuningError(format!("{file}:{}:{}: not a tuning state (epd tune's tune.json): {words}", e.line(), e.column()))
    })
}

impl Tuning {
    /// Adds what the run's state tells: each parameter's range, c_end and
    /// r_end (matched by name; one the state lacks keeps none), and the
    /// iterations planned.
    pub fn add_state(&mut self, state: &RunState) {
        self.planned_iterations = Some(state.schedule.iterations);
        for p in &mut self.params {
            if let Some(s) = state.params.iter().find(|s| s.name == p.name) {
                p.range = Some([s.min, s.max]);
                p.c_end = Some(s.c_end);
                p.r_end = Some(s.r_end);
            }
        }
    }
}

/// Writes the report as JSON (pretty-printed, ending in a newline).
///
/// # Errors
/// Writing failed.
pub fn write_json(t: &Tuning, w: &mut dyn io::Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, t).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

/// The indexes of the iterations a text shows: the last of each tenth of
/// the run (each one when there are ten or fewer).
#[must_use]
pub fn checkpoints(n: usize) -> Vec<usize> {
    let mut out: Vec<usize> =
        (1..=10u128).map(|t| ((n as u128 * t).div_ceil(10)) as usize).filter(|&i| i > 0).map(|i| i - 1).collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
