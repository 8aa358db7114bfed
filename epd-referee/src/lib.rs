//! Argus, the referee of the EPD specification (§3.2, §8): the parts of a
//! chess tournament that do not depend on how the players are reached.
//!
//! - [`TimeControl`] reads PGN `TimeControl` strings (`40/5400+30`,
//!   `300+3`, `*10`) and [`Clock`] keeps one side's time under one;
//! - [`Game`] plays moves by the rules and ends games: checkmate,
//!   stalemate, insufficient material, the 75-move rule and fivefold
//!   repetition automatically; 50-move and threefold claims verified;
//!   agreement, resignation, flag fall (a draw when the opponent cannot
//!   mate), disconnection and adjudication;
//! - [`pgn`] writes a finished game with the Seven Tag Roster,
//!   `TimeControl`, `Termination`, `PlyCount`, `FEN`/`SetUp` and
//!   `[%clk]`/`[%emt]` after every move;
//! - [`Event`] is the event file (TOML) and its schedule;
//! - [`Standings`] are the results: points, a crosstable, and Elo
//!   differences with 95 % intervals and the likelihood of superiority.
//!
//! It reads no socket and starts no process: the server that relays
//! records between clients is built over these.

pub mod client;
mod clock;
mod event;
mod game;
pub mod journal;
pub mod pgn;
pub mod protocol;
pub mod serial;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod standby;
mod standings;
#[cfg(feature = "server")]
mod timers;
#[cfg(feature = "server")]
pub mod web;

pub use clock::{Clock, Flagged, Period, TimeControl, TimeControlError};
pub use event::{Event, EventError, Pairing, Player, ScheduledGame};
pub use game::{ClaimError, DrawClaim, Ended, Game, GameResult, PlayedMove, Termination};
pub use standings::{EloEstimate, Standings};
