//! Analysis engines behind one interface, for the pfga and pfts verbs
//! (EPD §7.2, §7.5).
//!
//! An [`Engine`] analyses one position under [`Limits`] and returns an
//! [`Analysis`]: a principal variation of legal moves, an exact score and
//! the search counters. Three kinds implement it:
//!
//! - [`UciEngine`]: any UCI engine run as a child process;
//! - [`Builtin`]: the built-in searcher ([`crate::search`]);
//! - a C engine, through the C ABI's analysis hook (the trait asks only
//!   for a position and limits in, moves and numbers out, so a callback
//!   can implement it).
//!
//! # Limits: hard and soft (§7.2)
//!
//! - `movetime` is a **hard** per-position limit: the engine is told to
//!   stop after it (UCI `go movetime`; the built-in search checks the
//!   clock), so every record gets the same effort.
//! - `depth` and `nodes` are **soft** targets: the engine stops when it
//!   reaches them, however long that takes (UCI `go depth` / `go nodes`;
//!   an engine may finish its current iteration first).
//! - `timeout` is a **hard wall-clock cap** on top of the others: when
//!   it passes, the engine is told to stop and what it found so far is
//!   used. It is also how a hung engine is caught: an engine that does
//!   not answer within [`Limits::grace`] after being told to stop is
//!   killed and the record gets [`EngineError::Timeout`].
//!
//! When no timeout is given the cap is `movetime + grace` (a hard limit
//! needs no more), or none at all for a pure depth or node search.

use core::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use epd_core::{Move, Position, Record, Score};

mod builtin;
mod uci_client;

pub use builtin::{Builtin, MAX_HASH_MB};
pub use uci_client::{
    find_program, pin_this_thread, Direction, PositionCommand, SearchAction, Traffic, UciConfig, UciEngine, UciParts,
    UciSearch,
};

/// How much effort one position gets. See the module documentation for
/// which limits are hard and which soft.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Hard time per position.
    pub movetime: Option<Duration>,
    /// Soft depth target (plies).
    pub depth: Option<u32>,
    /// Soft node target.
    pub nodes: Option<u64>,
    /// Hard wall-clock cap: the engine is told to stop then.
    pub timeout: Option<Duration>,
    /// How long an engine may take to answer after it should have stopped
    /// before it counts as hung.
    pub grace: Duration,
    /// Principal variations wanted (MultiPV), at least 1: the best move's
    /// line and the next best moves' lines, in [`Analysis::lines`]. A UCI
    /// engine that declares the `MultiPV` option is sent it before a
    /// search when it is not already set so; the built-in engine searches
    /// the lines one after another, each move excluded from the searches
    /// that follow, each within these limits.
    pub multipv: u32,
    /// Stop as soon as a mate in at most this many moves is found (UCI
    /// `go mate N`). Not a bound by itself: where there is no such mate
    /// the search goes on to the other limits.
    pub mate: Option<u32>,
    /// In a game: both clocks, for the engine's own time management
    /// (UCI `go wtime ... btime ... winc ... binc ... movestogo ...`;
    /// the built-in engine turns them into a time for this move).
    pub clock: Option<GameClock>,
}

/// The clocks of a game in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// White's time left.
    pub wtime: Duration,
    /// Black's time left.
    pub btime: Duration,
    /// White's increment per move.
    pub winc: Duration,
    /// Black's increment per move.
    pub binc: Duration,
    /// Moves to the next time control, if the period has a move count.
    pub movestogo: Option<u32>,
}

impl GameClock {
    /// A time for one move of `side`: its time left shared over the moves
    /// to go (or 30), plus most of the increment, never more than half
    /// of what is left, and at least a millisecond.
    #[must_use]
    pub fn allocate(&self, side: epd_core::Color) -> Duration {
        let (left, inc) = match side {
            epd_core::Color::White => (self.wtime, self.winc),
            epd_core::Color::Black => (self.btime, self.binc),
        };
        let moves = self.movestogo.unwrap_or(30).clamp(1, 50);
        let share = left / (moves + 1) + inc * 3 / 4;
        share.min(left / 2).max(Duration::from_millis(1))
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            movetime: None,
            depth: None,
            nodes: None,
            timeout: None,
            grace: Duration::from_secs(5),
            multipv: 1,
            mate: None,
            clock: None,
        }
    }
}

impl Limits {
    /// A hard time limit per position.
    #[must_use]
    pub fn movetime(time: Duration) -> Limits {
        Limits { movetime: Some(time), ..Limits::default() }
    }

    /// A soft depth target.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// A soft node target.
    #[must_use]
    pub fn nodes(nodes: u64) -> Limits {
        Limits { nodes: Some(nodes), ..Limits::default() }
    }

    /// `true` if no limit is set: the search would run until stopped.
    #[must_use]
    pub fn is_infinite(&self) -> bool {
        self.movetime.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.timeout.is_none()
            && self.clock.is_none()
    }

    /// When the engine is told to stop, counted from the start of the
    /// search: the timeout if given, else `movetime + grace`.
    #[must_use]
    pub fn stop_after(&self) -> Option<Duration> {
        self.timeout.or_else(|| self.movetime.map(|t| t + self.grace))
    }
}

/// What an engine found in one position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The principal variation, legal from the position (empty when the
    /// side to move has no legal move).
    pub pv: Vec<Move>,
    /// The last exact score (never a lower or upper bound), from the side
    /// to move's point of view.
    pub score: Option<Score>,
    /// The move the engine chose (`pv[0]` when the pv is not empty).
    pub best: Option<Move>,
    /// Nominal depth reached (plies).
    pub depth: Option<u32>,
    /// Selective depth reached (plies).
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// With [`Limits::multipv`] above 1: the lines after the first (which
    /// is `pv` and `score`), best first, each starting with another move.
    pub lines: Vec<PvLine>,
    /// When `best` first led the principal variation and then held it to
    /// the end of the search, where the engine reported its progress.
    pub found: Option<Found>,
}

/// The point of a search from which its final move led every principal
/// variation reported: the solution time of test suites.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Time since the search began.
    pub elapsed: Option<Duration>,
    /// Nodes searched by then.
    pub nodes: Option<u64>,
    /// The iteration's depth.
    pub depth: Option<u32>,
}

/// Follows the first move of each principal variation a search reports
/// and remembers where the current run of one move began.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FirstHeld {
    streak: Option<(Move, Found)>,
}

impl FirstHeld {
    /// A principal variation starting with `first`, reported at `at`.
    pub(crate) fn see(&mut self, first: Move, at: Found) {
        if self.streak.map(|(m, _)| m) != Some(first) {
            self.streak = Some((first, at));
        }
    }

    /// Where `best` began to hold, if it led the last variation seen.
    pub(crate) fn found(&self, best: Option<Move>) -> Option<Found> {
        match (self.streak, best) {
            (Some((m, f)), Some(b)) if m == b => Some(f),
            _ => None,
        }
    }
}

/// One more principal variation of a MultiPV search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PvLine {
    /// The moves, legal from the position; never empty.
    pub pv: Vec<Move>,
    /// Its exact score, from the side to move's point of view.
    pub score: Option<Score>,
}

impl Analysis {
    /// The analysis of a position with no legal move: an empty pv, and
    /// checkmated (ce −32767) or, for stalemate, 0.
    #[must_use]
    pub fn no_moves(pos: &Position) -> Analysis {
        let score = if pos.is_check() { Score::Checkmated } else { Score::Centipawns(0) };
        Analysis { score: Some(score), ..Analysis::default() }
    }
}

/// Why an engine could not analyse a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The engine could not be started.
    Spawn {
        /// The program.
        program: String,
        /// Why.
        detail: String,
    },
    /// The engine exited or closed its output.
    Crashed {
        /// What was seen (exit status, last line).
        detail: String,
    },
    /// The engine did not answer in time (it was killed).
    Timeout {
        /// What it was waiting for (`uciok`, `readyok`, `bestmove`).
        waiting_for: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The engine said something that breaks the protocol.
    Protocol {
        /// The offending line.
        line: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Writing to the engine failed.
    Io {
        /// The error.
        detail: String,
    },
    /// The engine does not declare an option it was given: it would
    /// ignore it without a word, so it is not started.
    UnknownOption {
        /// The option given.
        name: String,
        /// The options the engine declares, in its order.
        declared: Vec<String>,
    },
    /// An option's value the engine does not take (the built-in engine
    /// checks its options; a UCI engine's are checked against the type
    /// and range it declares).
    OptionValue {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// What the option takes: `a whole number from 1 to 4096`.
        expected: String,
    },
    /// The engine cannot analyse this position (a C hook's refusal, a
    /// position it does not support).
    Refused {
        /// Why.
        detail: String,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn { program, detail } => write!(f, "cannot run {program}: {detail}"),
            EngineError::Crashed { detail } => write!(f, "engine crashed: {detail}"),
            EngineError::Timeout { waiting_for, after } => {
                write!(f, "engine hung: no {waiting_for} after {:.1}s (killed)", after.as_secs_f64())
            }
            EngineError::Protocol { line, detail } => write!(f, "engine protocol error: {detail}: {line:?}"),
            EngineError::Io { detail } => write!(f, "cannot talk to the engine: {detail}"),
            EngineError::UnknownOption { name, declared } => {
                let declared = if declared.is_empty() { "none".to_owned() } else { declared.join(", ") };
                write!(f, "the engine has no option {name:?} (it declares: {declared})")
            }
            EngineError::OptionValue { name, value, expected } => {
                write!(f, "option {name}: {value:?} is not {expected}")
            }
            EngineError::Refused { detail } => write!(f, "engine refused the position: {detail}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// An analysis engine: the one interface every backend implements.
pub trait Engine: Send {
    /// The engine's name (UCI `id name`, or `builtin`).
    fn name(&self) -> &str;

    /// Forgets what earlier searches learned (UCI `ucinewgame`), so each
    /// record is analysed on its own.
    ///
    /// # Errors
    /// [`EngineError`] if the engine cannot be reached.
    fn new_game(&mut self) -> Result<(), EngineError>;

    /// Plays Chess960 from now on (`on`), or standard chess: a UCI engine
    /// is told with `UCI_Chess960` and gets castling as king-takes-rook.
    /// Called between games. The default does nothing: an engine that
    /// reads positions as the kit's [`Position`] plays both already.
    ///
    /// # Errors
    /// [`EngineError`] if the engine cannot play Chess960 or be reached.
    fn set_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        let _ = on;
        Ok(())
    }

    /// Sets an option of the running engine (UCI `setoption name N value
    /// V`, sent only when the value differs from the one the engine has),
    /// kept for its restarts. The default refuses: an engine that takes
    /// options only when it starts.
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`] or [`EngineError::OptionValue`] for
    /// an option the engine does not declare or a value it does not
    /// take; [`EngineError::Refused`] from an engine without live
    /// options; an error reaching the engine.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let _ = value;
        Err(EngineError::Refused { detail: format!("option {name} cannot be set while the engine runs") })
    }

    /// Analyses `pos` within `limits`. Setting `stop` asks the engine to
    /// stop early and return what it has.
    ///
    /// # Errors
    /// [`EngineError`] on a crash, a hang, a protocol error. An engine
    /// that can restart (a child process) does so on the next call.
    fn analyze(&mut self, pos: &Position, limits: &Limits, stop: &AtomicBool) -> Result<Analysis, EngineError>;

    /// Analyses the position of `rec` (given as `pos`): what the verbs
    /// call. An engine that wants the record's operations (a C hook that
    /// reads bm or id) overrides it; the default ignores the record.
    ///
    /// # Errors
    /// As [`Engine::analyze`].
    fn analyze_record(
        &mut self,
        rec: &Record,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        let _ = rec;
        self.analyze(pos, limits, stop)
    }

    /// Chooses a move in a game: `start` and the `moves` played from it,
    /// so the engine knows the history (repetitions). The default replays
    /// the moves and analyses the position reached.
    ///
    /// # Errors
    /// As [`Engine::analyze`].
    fn play(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        let mut pos = *start;
        for &m in moves {
            pos.play_unchecked(m);
        }
        self.analyze(&pos, limits, stop)
    }
}

impl<E: Engine + ?Sized> Engine for Box<E> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn new_game(&mut self) -> Result<(), EngineError> {
        (**self).new_game()
    }
    fn set_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        (**self).set_chess960(on)
    }
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        (**self).set_option(name, value)
    }
    fn analyze(&mut self, pos: &Position, limits: &Limits, stop: &AtomicBool) -> Result<Analysis, EngineError> {
        (**self).analyze(pos, limits, stop)
    }
    fn analyze_record(
        &mut self,
        rec: &Record,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        (**self).analyze_record(rec, pos, limits, stop)
    }
    fn play(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        (**self).play(start, moves, limits, stop)
    }
}
