//! Gastric as feedback: the specification planned the report generator's
//! output "as feedback into self-adjusting chessplaying programs" (EPD
//! §3.3). This crate is the adjusting: SPSA (simultaneous perturbation
//! stochastic approximation) over an engine's UCI spin options, with
//! fishtest's schedules, a state that is saved after every iteration (a
//! run killed at any point goes on where it was), and a history of every
//! step. `epd tune` drives it, with game pairs between the two probes
//! played by Argus. The guide is docs/gastric.md in the repository.
//!
//! ```
//! use epd_tune::spsa::{Param, Schedule, Spsa};
//! let p = Param::new("Margin", 100.0, 0.0, 400.0, 20.0, 0.002).unwrap();
//! let mut s = Spsa::new(vec![p], Schedule::new(1000), 7).unwrap();
//! let probe = s.probe();
//! // The probes are the values less and more c_k, each way at random.
//! assert!((probe.plus[0] - probe.minus[0]).abs() > 39.0);
//! // Say θ+ won 3 pairs more than it lost.
//! let step = s.update(&probe, 3.0, 1);
//! assert_eq!(step.k, 1);
//! ```

use core::fmt;

pub mod games;
pub mod run;
pub mod spsa;
pub mod suite;

/// The engine a run tunes, as both probes run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuned {
    /// Its program, then its arguments.
    pub command: Vec<String>,
    /// Options given to both probes alike, not tuned.
    pub options: Vec<(String, String)>,
}

impl Tuned {
    /// How to start it with `tuned` (a probe's values) after the fixed
    /// options.
    ///
    /// # Errors
    /// An empty command.
    pub fn config(&self, tuned: Vec<(String, String)>) -> Result<epd_engine::UciConfig, TuneError> {
        let Some((program, args)) = self.command.split_first() else {
            return Err(TuneError::Usage("no engine command".into()));
        };
        let mut options = self.options.clone();
        options.extend(tuned);
        Ok(epd_engine::UciConfig {
            args: args.to_vec(),
            options,
            ..epd_engine::UciConfig::new(epd_engine::find_program(program))
        })
    }

    /// The program, for messages.
    #[must_use]
    pub fn program(&self) -> &str {
        self.command.first().map_or("", String::as_str)
    }
}

/// Why a tuning run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneError {
    /// The command line or a parameter does not fit the engine.
    Usage(String),
    /// The engine failed, or an iteration's games could not be played.
    Engine(String),
    /// The run's files.
    Io(String),
    /// A signal stopped the run mid-iteration (SIGINT 2, SIGTERM 15): it
    /// goes on with `--resume`.
    Interrupted(i32),
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Usage(m) | TuneError::Engine(m) | TuneError::Io(m) => f.write_str(m),
            TuneError::Interrupted(s) => write!(f, "stopped by signal {s} (go on with --resume)"),
        }
    }
}

impl std::error::Error for TuneError {}
