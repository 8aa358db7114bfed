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
