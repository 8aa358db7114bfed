//! # epd-engine
//!
//! Chess engines for EPD Kit, over the pure core of `epd-core`:
//!
//! - the [`Engine`] trait, its [`Limits`] and [`Analysis`], with three
//!   kinds behind it: any UCI engine run as a child process
//!   ([`UciEngine`]), the built-in searcher ([`Builtin`], [`search`]), and
//!   a C engine through the C ABI's analysis hook;
//! - [`uci_server`]: the built-in searcher served over UCI (`epd uci`);
//! - [`mate`]: the exact forced-mate prover and the pfms verb (EPD §7.3);
//! - [`analysis`]: the pfga and pfts verbs (EPD §7.2, §7.5);
//! - [`is_quiet`]: whether the built-in quiescence search stands pat on a
//!   position (the quiet positions Texel tuning wants).
//!
//! This crate starts processes (UCI engines) and threads; `epd-core`
//! starts neither. The `epd` commands over it (`analyze`, `target`,
//! `mate`, `uci`) are described in docs/kit.md in the repository, in its
//! section "Engines".
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use epd_core::Position;
//! use epd_engine::{Builtin, Engine, Limits};
//!
//! let pos: Position = "6k1/5ppp/8/8/8/8/8/R5K1 w - -".parse().unwrap();
//! let mut engine = Builtin::default();
//! let a = engine.analyze(&pos, &Limits::depth(3), &AtomicBool::new(false)).unwrap();
//! assert_eq!(pos.san(a.pv[0]), "Ra8#");
//! ```

// One `poll(2)` call (the UCI client's wait on an engine's output) is
// the only unsafe code, allowed where it is.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
mod engine;
pub mod mate;
pub mod search;
pub mod uci_server;

pub use engine::{
    find_program, pin_this_thread, Analysis, Builtin, Direction, Engine, EngineError, Found, GameClock, Limits,
    PositionCommand, PvLine, SearchAction, Traffic, UciConfig, UciEngine, UciParts, UciSearch, MAX_HASH_MB,
};
pub use search::is_quiet;
