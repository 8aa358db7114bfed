//! The suite objective: each iteration searches a test suite (or a
//! seeded sample of it) with θ⁺ and with θ⁻, as `epd target` does, and
//! scores both results files as `epd report` does; SPSA's result is θ⁺'s
//! objective less θ⁻'s.
//!
//! The objective is the report's: the STS points percentage where the
//! suite gives points, else the solved percentage (a record is solved
//! when the engine's move is one of its bm and none of its am, EPD §7.5).
//! An iteration keeps its sample (`suite.epd`) and both results files
//! (`plus.epd`, `minus.epd`) in its directory, so any step can be looked
//! at again with `epd report`.

use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use epd_core::pipeline::{self, Config};
use epd_core::{ParseMode, Record, Severity};
use epd_engine::analysis::{AnalysisOptions, AnalysisVerb, Analyzer};
use epd_engine::{Engine, Limits, UciEngine};

use crate::run::Objective;
use crate::spsa::Param;
use crate::{TuneError, Tuned};

/// Which of the report's figures an iteration maximises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Aim {
    /// The report's objective: points where the suite gives them, else
    /// solved.
    #[default]
    Auto,
    /// The solved percentage.
    Solved,
    /// The STS points percentage (the suite must give points).
    Points,
}

/// How the suite of an iteration is searched.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The engine.
    pub engine: Tuned,
    /// The search of each record.
    pub limits: Limits,
    /// Engines searching at once, for each probe.
    pub jobs: u32,
    /// The suite's records, one line each, as read (every record has bm
    /// or am).
    pub records: Vec<String>,
    /// Records searched per iteration, drawn with the iteration's seed;
    /// `None`: all of them.
    pub sample: Option<usize>,
    /// The figure maximised.
    pub aim: Aim,
}

impl Suite {
    /// Reads the suite at `path`: every valid record with bm or am (§7.5's
    /// targets). Records without either, and invalid lines, cannot be
    /// scored and are left out, counted in the second value.
    ///
    /// # Errors
    /// The file cannot be read, or no record in it has bm or am.
    pub fn read(path: &Path) -> Result<(Vec<String>, u64), TuneError> {
        let bytes = std::fs::read(path).map_err(|e| TuneError::Io(format!("{}: {e}", path.display())))?;
        let mut records = Vec::new();
        let mut left_out = 0;
        for line in bytes.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let (rec, diags) = Record::parse(line, ParseMode::Lenient);
            let valid = !diags.iter().any(|d| d.severity == Severity::Error) && rec.position().is_some();
            let scored = valid && (rec.get("bm").is_some() || rec.get("am").is_some());
            if scored {
                records.push(String::from_utf8_lossy(line).into_owned());
            } else {
                left_out += 1;
            }
        }
        if records.is_empty() {
            return Err(TuneError::Usage(format!(
                "{}: no record has bm or am, so no move can be judged: a suite objective needs a key (EPD §7.5)",
                path.display()
            )));
        }
        Ok((records, left_out))
    }

    /// The records of the iteration with this seed: all, or a sample
    /// drawn without replacement, in the suite's order.
    #[must_use]
    pub fn sample_for(&self, seed: u64) -> Vec<&str> {
        let n = self.records.len();
        let Some(k) = self.sample.filter(|&k| k < n) else {
            return self.records.iter().map(String::as_str).collect();
        };
        // Floyd's algorithm over a splitmix64 stream: k distinct indices.
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut chosen = std::collections::BTreeSet::new();
        for j in n - k..n {
            let t = (next() % (j as u64 + 1)) as usize;
            if !chosen.insert(t) {
                chosen.insert(j);
            }
        }
        chosen.into_iter().map(|i| self.records[i].as_str()).collect()
    }

    /// Plays an iteration in `dir` (made afresh): the sample searched with
    /// each probe's values, both results scored.
    ///
    /// A record the engine failed on under either probe (a crash, a hang,
    /// `bestmove (none)`) is left out of both probes' scores, as `epd
    /// target` writes it without analysis and goes on: the objective
    /// compares the same positions. `progress` is told which.
    ///
    /// # Errors
    /// The directory cannot be written; an engine could not start, or
    /// failed on half the sample or more (the iteration is then played
    /// again by the run); `stop` was raised ([`TuneError::Interrupted`]
    /// with 0: the caller knows the signal).
    pub fn play(
        &self,
        dir: &Path,
        params: &[Param],
        plus: &[f64],
        minus: &[f64],
        seed: u64,
        stop: &AtomicBool,
    ) -> Result<Objective, TuneError> {
        let io = |p: &Path, e: std::io::Error| TuneError::Io(format!("{}: {e}", p.display()));
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let sample = self.sample_for(seed);
        let suite = dir.join("suite.epd");
        let mut text = sample.join("\n");
        text.push('\n');
        std::fs::write(&suite, text).map_err(|e| io(&suite, e))?;
        let mut failed = std::collections::BTreeMap::new();
        for label in ["plus", "minus"] {
            let out = dir.join(format!("{label}.epd"));
            let probe = if label == "plus" { plus } else { minus };
            for (line, why) in self.search(&suite, &out, params, probe, stop, label)? {
                failed.entry(line).or_insert(format!("θ{}: {why}", sign(label)));
            }
        }
        if failed.len() * 2 >= sample.len() {
            return Err(TuneError::Engine(format!(
                "the engine failed on {} of {} records ({})",
                failed.len(),
                sample.len(),
                failed.values().next().map_or("", String::as_str)
            )));
        }
        let mut values = [0.0; 2];
        let mut name = "";
        for (i, label) in ["plus", "minus"].into_iter().enumerate() {
            let out = dir.join(format!("{label}.epd"));
            if !failed.is_empty() {
                // Both results without the records either probe failed
                // on: the output has one line per record of the sample.
                let text = std::fs::read_to_string(&out).map_err(|e| io(&out, e))?;
                let kept: Vec<&str> =
                    text.lines().enumerate().filter(|(k, _)| !failed.contains_key(&(k + 1))).map(|(_, l)| l).collect();
                std::fs::write(&out, kept.join("\n") + "\n").map_err(|e| io(&out, e))?;
            }
            let (n, v) = self.score(&out)?;
            name = n;
            values[i] = v;
        }
        let skipped = failed.len() as u64;
        if !failed.is_empty() {
            // What was left out, and why, beside the iteration's results.
            let list = dir.join("skipped.txt");
            let text: String = failed.iter().map(|(l, w)| format!("{}\t{w}\n", sample[l - 1])).collect();
            std::fs::write(&list, text).map_err(|e| io(&list, e))?;
        }
        Ok(Objective {
            name: name.to_owned(),
            plus: values[0],
            minus: values[1],
            positions: sample.len() as u64,
            skipped,
        })
    }

    /// Searches `suite` with these values of the parameters into `out`;
    /// the records the engine failed on, by line, with the reason.
    fn search(
        &self,
        suite: &Path,
        out: &Path,
        params: &[Param],
        values: &[f64],
        stop: &AtomicBool,
        label: &str,
    ) -> Result<Vec<(usize, String)>, TuneError> {
        let tuned = params.iter().zip(values).map(|(p, v)| (p.name.clone(), p.option_value(*v))).collect();
        let config = self.engine.config(tuned)?;
        let program = self.engine.program();
        let mut engines = (0..self.jobs.max(1))
            .map(|_| UciEngine::start(config.clone()).map(|e| Box::new(e) as Box<dyn Engine>))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TuneError::Engine(format!("θ{}: {program}: {e}", sign(label))))?;
        let options = AnalysisOptions::new(AnalysisVerb::Target, self.limits.clone());
        let mut workers: Vec<_> = engines.iter_mut().map(|e| Analyzer::new(&mut **e, &options, stop)).collect();
        let input = std::fs::File::open(suite).map_err(|e| TuneError::Io(format!("{}: {e}", suite.display())))?;
        let output = std::fs::File::create(out).map_err(|e| TuneError::Io(format!("{}: {e}", out.display())))?;
        let config = Config { stop: Some(stop), ..Config::default() };
        let mut faults = Vec::new();
        // Each fault's message, with its line.
        let render = |r: &pipeline::LineReport<'_>, out: &mut pipeline::Rendered| {
            for d in r.diagnostics.iter().filter(|d| d.severity == epd_core::Severity::Error) {
                out.push(r.line_no, d, |text| text.extend_from_slice(d.message.as_bytes()));
            }
        };
        let mut emit = |rendered: &pipeline::Rendered| {
            for d in rendered.iter() {
                let line = usize::try_from(d.line).unwrap_or(usize::MAX);
                faults.push((line, String::from_utf8_lossy(d.text).into_owned()));
            }
        };
        let summary = pipeline::run(
            BufReader::new(input),
            BufWriter::new(output),
            &mut workers,
            &config,
            &render,
            &mut emit,
            &mut |_| {},
        );
        let summary = summary.map_err(|e| TuneError::Io(format!("{}: {e}", out.display())))?;
        if summary.interrupted {
            return Err(TuneError::Interrupted(0));
        }
        Ok(faults)
    }

    /// The objective of a results file, as the report computes it.
    fn score(&self, results: &Path) -> Result<(&'static str, f64), TuneError> {
        let io = |e: std::io::Error| TuneError::Io(format!("{}: {e}", results.display()));
        let file = std::fs::File::open(results).map_err(io)?;
        let input = epd_report::Input {
            label: "probe".into(),
            file: results.display().to_string(),
            reader: Box::new(BufReader::new(file)),
            path: Some(results.to_owned()),
        };
        let report =
            epd_report::build(vec![input], &epd_report::Options::default(), None, &mut |_, _| {}).map_err(io)?;
        let Some(run) = report.runs.first() else {
            return Err(TuneError::Io(format!("{}: no run", results.display())));
        };
        let solved = || {
            let n = run.scored as f64;
            ("solved_percent", if n > 0.0 { 100.0 * run.solved as f64 / n } else { 0.0 })
        };
        match self.aim {
            Aim::Auto => {
                let o = run.objective();
                Ok((o.name, o.value))
            }
            Aim::Solved => Ok(solved()),
            Aim::Points => match &run.points {
                Some(p) => Ok(("points_percent", p.percent)),
                None => Err(TuneError::Usage(format!(
                    "{}: the suite gives no points (STS's c0 \"move=points\" lists): use --objective solved",
                    results.display()
                ))),
            },
        }
    }
}

fn sign(label: &str) -> char {
    if label == "plus" {
        '⁺'
    } else {
        '⁻'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, text: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("epd-tune-suite-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_suite_without_targets_is_refused_and_unscorable_lines_are_counted() {
        let none = temp(
            "none",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";\n8/8/8/8/8/8/8/8 w - - bm e4;\n",
        );
        let e = Suite::read(&none).unwrap_err().to_string();
        assert!(e.contains("no record has bm or am"), "{e}");
        let some = temp(
            "some",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"a\";\r\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"b\";\n\
             \n\
             not a record\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - am a3; id \"c\";",
        );
        let (records, left_out) = Suite::read(&some).unwrap();
        assert_eq!(records.len(), 2, "{records:?}");
        assert!(records[0].ends_with("id \"a\";"), "the CR is not kept: {records:?}");
        assert_eq!(left_out, 2);
        for p in [none, some] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn samples_are_distinct_in_suite_order_and_replay_by_seed() {
        let suite = Suite {
            engine: Tuned { command: Vec::new(), options: Vec::new() },
            limits: Limits::default(),
            jobs: 1,
            records: (0..50).map(|i| format!("r{i:02}")).collect(),
            sample: Some(7),
            aim: Aim::Auto,
        };
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let s = suite.sample_for(seed);
            assert_eq!(s.len(), 7);
            assert!(s.windows(2).all(|w| w[0] < w[1]), "distinct and in order: {s:?}");
            assert_eq!(s, suite.sample_for(seed));
            seen.extend(s.iter().map(|r| (*r).to_owned()));
        }
        assert_eq!(seen.len(), 50, "every record is drawn sometime");
        let all = Suite { sample: Some(50), ..suite.clone() };
        assert_eq!(all.sample_for(3).len(), 50);
        let none = Suite { sample: None, ..suite };
        assert_eq!(none.sample_for(3).len(), 50);
    }
}
