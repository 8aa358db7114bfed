//! Argus, the referee of the EPD specification (§3.2, §8): the parts of a
//! chess tournament that do not depend on how the players are reached,
//! and behind the default `server` feature the runtime that reaches them.
//! `epd referee`, `epd play` and `epd match` are its command line; the
//! guide to them, to the event file and to the protocol is docs/argus.md
//! in the repository.
//!
//! - [`TimeControl`] reads PGN `TimeControl` strings (`40/5400+30`,
//!   `300+3`, `*10`) and [`Clock`] keeps one side's time under one;
//! - [`Game`] plays moves by the rules and ends games: checkmate,
//!   stalemate, insufficient material, the 75-move rule and fivefold
//!   repetition automatically; 50-move and threefold claims verified;
//!   agreement, resignation, flag fall (a draw when the opponent cannot
//!   mate), disconnection and adjudication;
//! - [`pgn`] writes a finished game with the Seven Tag Roster,
//!   `TimeControl`, `Termination`, `PlyCount`, `FEN`/`SetUp`, the
//!   opening's `ECO` and `Opening` ([`eco`]) and
//!   `[%clk]`/`[%emt]` after every move;
//! - [`Event`] is the event file (TOML) and its schedule;
//! - [`Standings`] are the results: points, a crosstable, and Elo
//!   differences with 95 % intervals and the likelihood of superiority.
//!
//! - [`director`] takes every decision of a running event as a state
//!   machine without I/O: inputs in, outputs out, time given;
//! - [`journal`] is the write-ahead journal: frames on bytes, the file,
//!   its entries and their replay; [`standby`] the hot standby's lines.
//!
//! None of these reads a socket, a clock or starts a process: behind the
//! default `server` feature, [`runtime`] carries out the director's
//! outputs over TCP or serial lines (tokio), starts the players, runs the
//! hot standby and serves the live display.

pub mod book;
pub mod client;
mod clock;
pub mod director;
pub mod eco;
mod event;
mod game;
pub mod journal;
pub mod matches;
pub mod pgn;
pub mod player;
pub mod protocol;
pub mod redact;
#[cfg(feature = "server")]
pub mod runtime;
pub mod serial;
pub mod sprt;
pub mod standby;
mod standings;

pub use clock::{Clock, Flagged, Period, TimeControl, TimeControlError};
pub use event::{
    keys_markdown, keys_text, Adjudication, Affinity, Book, BookFormat, BookOrder, DrawRule, Event, EventError,
    HostLoss, JournalSync, Key, OptionValue, Pairing, Player, ResignRule, ScheduledGame, KEYS, PLAYER_KEYS,
};
pub use game::{ClaimError, DrawClaim, Ended, EngineFailure, Fault, Game, GameResult, PlayedMove, Termination};
pub use standings::{EloEstimate, Standings};
