//! A tuning run in a directory: its state (`tune.json`, written whole to
//! a temporary file and renamed over the old one after every iteration,
//! so a kill at any instant leaves the last iteration's state or the one
//! before), its history (`history.csv` and `history.jsonl`, a line per
//! iteration), and each iteration's games (`iterations/NNNNNN/`).
//!
//! A run killed mid-iteration goes on with that iteration again, from
//! the same probes (the state before it is the one saved); history lines
//! of iterations the state does not count are dropped on resuming, so the
//! history of a resumed run equals an uninterrupted one's. An iteration
//! whose games could not be played (an engine crashed or hung for good)
//! is logged and played again, at most [`RETRIES`] times in a row.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::games::{Games, Score};
use crate::spsa::{Probe, Spsa, Step};
use crate::TuneError;

/// What plays an iteration: in its directory, from the state before it,
/// its probes and its number of game pairs; what it measured, from θ⁺'s
/// side.
pub type Play<'a> = dyn FnMut(&Path, &Spsa, &Probe, u32) -> Result<Measure, TuneError> + 'a;

/// What an iteration measured, from θ⁺'s side: its games, or both
/// probes' objective on the iteration's sample of a suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Game pairs between θ⁺ and θ⁻.
    Games(Score),
    /// A suite's objective under θ⁺ and θ⁻.
    Suite(Objective),
}

impl Measure {
    /// SPSA's result: θ⁺'s wins less its losses, or its objective less
    /// θ⁻'s.
    #[must_use]
    pub fn result(&self) -> f64 {
        match self {
            Measure::Games(s) => s.result(),
            Measure::Suite(o) => o.plus - o.minus,
        }
    }

    /// The history's columns for it, and its fields in a line.
    fn columns(&self) -> (Vec<String>, Vec<String>) {
        match self {
            Measure::Games(s) => (
                vec!["wins".into(), "draws".into(), "losses".into()],
                vec![s.wins.to_string(), s.draws.to_string(), s.losses.to_string()],
            ),
            Measure::Suite(o) => {
                (vec![format!("{}+", o.name), format!("{}-", o.name)], vec![o.plus.to_string(), o.minus.to_string()])
            }
        }
    }
}

impl From<Score> for Measure {
    fn from(s: Score) -> Measure {
        Measure::Games(s)
    }
}

/// A suite's objective (`epd report`'s) under both probes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    /// Which: `solved_percent` or `points_percent`, as the report names it.
    pub name: String,
    /// θ⁺'s.
    pub plus: f64,
    /// θ⁻'s.
    pub minus: f64,
    /// The positions of the sample, those skipped included.
    pub positions: u64,
    /// Positions left out of both probes' scores because the engine
    /// failed on them under either (as `epd target` writes such a record
    /// without analysis and goes on).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Times in a row an iteration is tried before the run gives up.
pub const RETRIES: u32 = 3;

/// One line of the history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The iteration, from 1.
    pub iteration: u64,
    /// The probes played.
    pub probe: Probe,
    /// What they measured, from θ⁺'s side.
    #[serde(flatten)]
    pub measure: Measure,
    /// The update.
    pub step: Step,
}

/// What a run was asked to do and where it keeps its files.
#[derive(Debug)]
pub struct Run {
    /// The run's directory.
    pub dir: PathBuf,
    /// Game pairs per iteration (1 for a suite: an iteration counts as
    /// a pair).
    pub batch: u32,
    /// The run's seed (openings of iteration k: seed + k).
    pub seed: u64,
}

impl Run {
    fn state_path(&self) -> PathBuf {
        self.dir.join("tune.json")
    }

    /// The state to go on from: the saved one with `resume` (its history
    /// trimmed to it), else `fresh` (refused if a state is there).
    ///
    /// # Errors
    /// A state that exists without `resume`, or none with it; a state or
    /// history that cannot be read or written.
    pub fn begin(&self, fresh: Spsa, resume: bool) -> Result<Spsa, TuneError> {
        let path = self.state_path();
        let io = |e: std::io::Error| TuneError::Io(format!("{}: {e}", path.display()));
        if !resume {
            if path.exists() {
                return Err(TuneError::Usage(format!(
                    "{} exists: go on with --resume, or choose another --dir",
                    path.display()
                )));
            }
            std::fs::create_dir_all(&self.dir).map_err(io)?;
            for f in ["history.csv", "history.jsonl"] {
                let _ = std::fs::remove_file(self.dir.join(f));
            }
            self.save(&fresh)?;
            return Ok(fresh);
        }
        let text = std::fs::read_to_string(&path).map_err(io)?;
        let state: Spsa = serde_json::from_str(&text)
            .map_err(|e| TuneError::Io(format!("{}: not a tuning state: {e}", path.display())))?;
        state.check().map_err(|e| TuneError::Usage(format!("{}: {e}", path.display())))?;
        self.trim_history(state.k)?;
        Ok(state)
    }

    /// Keeps the history lines of iterations the state counts.
    fn trim_history(&self, k: u64) -> Result<(), TuneError> {
        let jsonl = self.dir.join("history.jsonl");
        let text = std::fs::read_to_string(&jsonl).unwrap_or_default();
        let entries: Vec<Entry> =
            text.lines().filter_map(|l| serde_json::from_str::<Entry>(l).ok()).filter(|e| e.step.k <= k).collect();
        for f in ["history.csv", "history.jsonl"] {
            let _ = std::fs::remove_file(self.dir.join(f));
        }
        let names: Vec<String> = state_names(&self.state_path());
        for e in &entries {
            self.append(e, &names)?;
        }
        Ok(())
    }

    /// Writes the state: to a temporary file, synced, renamed over.
    fn save(&self, state: &Spsa) -> Result<(), TuneError> {
        let path = self.state_path();
        let tmp = self.dir.join("tune.json.tmp");
        let io = |e: std::io::Error| TuneError::Io(format!("{}: {e}", path.display()));
        let text = serde_json::to_string_pretty(state).map_err(|e| TuneError::Io(e.to_string()))?;
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(text.as_bytes()).and_then(|()| f.write_all(b"\n")).and_then(|()| f.sync_all()).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)
    }

    /// Appends an iteration to the history (CSV and JSON lines). The CSV
    /// has the iteration, the pairs counted after it, what it measured
    /// (`wins,draws,losses` or the objective of each probe, `NAME+` and
    /// `NAME-`) and its `result`; then for each parameter its value after
    /// the step (`NAME`), its probes (`NAME+`, `NAME-`), `c(NAME)`,
    /// `a(NAME)` and its value before the step, `before(NAME)`.
    fn append(&self, e: &Entry, names: &[String]) -> Result<(), TuneError> {
        let csv_path = self.dir.join("history.csv");
        let fresh = !csv_path.exists();
        let io = |p: &Path, err: String| TuneError::Io(format!("{}: {err}", p.display()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&csv_path)
            .map_err(|x| io(&csv_path, x.to_string()))?;
        let mut w = csv::Writer::from_writer(file);
        let mut row = |fields: Vec<String>| w.write_record(&fields).map_err(|x| io(&csv_path, x.to_string()));
        let (measured, values) = e.measure.columns();
        if fresh {
            let mut head: Vec<String> = vec!["iteration".into(), "k".into()];
            head.extend(measured);
            head.push("result".into());
            for n in names {
                head.extend([
                    n.clone(),
                    format!("{n}+"),
                    format!("{n}-"),
                    format!("c({n})"),
                    format!("a({n})"),
                    format!("before({n})"),
                ]);
            }
            row(head)?;
        }
        let mut fields = vec![e.iteration.to_string(), e.step.k.to_string()];
        fields.extend(values);
        fields.push(e.step.result.to_string());
        for i in 0..e.step.after.len() {
            fields.extend(
                [e.step.after[i], e.probe.plus[i], e.probe.minus[i], e.probe.c[i], e.probe.a[i], e.step.before[i]]
                    .map(|v| v.to_string()),
            );
        }
        row(fields)?;
        w.flush().map_err(|x| io(&csv_path, x.to_string()))?;
        let jsonl = self.dir.join("history.jsonl");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&jsonl)
            .map_err(|x| io(&jsonl, x.to_string()))?;
        let line = serde_json::to_string(e).map_err(|x| TuneError::Io(x.to_string()))?;
        f.write_all(line.as_bytes()).and_then(|()| f.write_all(b"\n")).map_err(|x| io(&jsonl, x.to_string()))
    }

    /// Runs iterations until the schedule is done, each played by `play`
    /// (the games, or a test's stand-in); `progress` hears each one.
    ///
    /// # Errors
    /// An iteration that failed [`RETRIES`] times in a row, or a state
    /// or history that cannot be written.
    pub fn go(&self, mut state: Spsa, play: &mut Play<'_>, progress: &mut dyn FnMut(&str)) -> Result<Spsa, TuneError> {
        let mut failures = 0;
        while !state.is_done() {
            let before = state.clone();
            let probe = state.probe();
            let left = state.schedule.iterations - state.k;
            let pairs = u32::try_from(left.min(u64::from(self.batch.max(1)))).unwrap_or(1);
            let iteration = self.iteration(&before);
            let dir = self.dir.join("iterations").join(format!("{iteration:06}"));
            let measure = match play(&dir, &state, &probe, pairs) {
                Ok(s) => s,
                Err(e @ (TuneError::Interrupted(_) | TuneError::Usage(_))) => return Err(e),
                Err(e) => {
                    failures += 1;
                    progress(&format!("iteration {iteration}: {e}; playing it again ({failures} of {RETRIES})"));
                    if failures >= RETRIES {
                        return Err(e);
                    }
                    state = before;
                    continue;
                }
            };
            failures = 0;
            let step = state.update(&probe, measure.result(), u64::from(pairs));
            let entry = Entry { iteration, probe, measure, step };
            // The history line first: a kill between the two leaves a line
            // the state does not count, dropped on resuming.
            let names: Vec<String> = state.params.iter().map(|p| p.name.clone()).collect();
            self.append(&entry, &names)?;
            self.save(&state)?;
            progress(&describe(&state, &entry));
        }
        Ok(state)
    }

    /// The number of the iteration that starts from `state`, from 1.
    fn iteration(&self, state: &Spsa) -> u64 {
        state.k / u64::from(self.batch.max(1)) + 1
    }
}

/// The parameters' names in a saved state.
fn state_names(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Spsa>(&t).ok())
        .map(|s| s.params.into_iter().map(|p| p.name).collect())
        .unwrap_or_default()
}

/// A progress line: the iteration, its games and the values now.
fn describe(state: &Spsa, e: &Entry) -> String {
    let values: Vec<String> = state
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{} {:.2} ({:.0}/{:.0})", p.name, p.value, e.probe.plus[i], e.probe.minus[i]))
        .collect();
    let (n, of) = (state.k, state.schedule.iterations);
    let values = values.join(", ");
    match &e.measure {
        Measure::Games(s) => {
            format!("iteration {} (pairs {n}/{of}): +{} ={} -{}, {values}", e.iteration, s.wins, s.draws, s.losses)
        }
        Measure::Suite(o) => {
            let skipped = if o.skipped > 0 {
                format!(" ({} skipped: the engine failed on them)", o.skipped)
            } else {
                String::new()
            };
            format!(
                "iteration {}/{of}: {} {:.2} against {:.2} on {} positions{skipped}, {values}",
                e.iteration,
                o.name,
                o.plus,
                o.minus,
                o.positions - o.skipped
            )
        }
    }
}

/// Plays an iteration's games with `games` (for [`Run::go`]).
///
/// # Errors
/// As [`Games::play`].
pub fn play_games(
    games: &Games,
    seed: u64,
) -> impl FnMut(&Path, &Spsa, &Probe, u32) -> Result<Measure, TuneError> + '_ {
    move |dir, state, probe, pairs| {
        games.play(dir, &state.params, &probe.plus, &probe.minus, pairs, seed.wrapping_add(probe.k)).map(Measure::Games)
    }
}
