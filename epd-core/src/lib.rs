//! # epd-core
//!
//! The EPD (Extended Position Description, Edwards 1995) standard in pure
//! Rust: a fast legal-move chess core, SAN, FEN and the EPD position
//! fields, perft.
//!
//! ```
//! use epd_core::{perft, Position, SanMode};
//!
//! let pos: Position = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -".parse().unwrap();
//! assert_eq!(perft(&pos, 2), 2039);
//! let castle = pos.parse_san(b"0-0", SanMode::Lenient).unwrap();
//! assert_eq!(pos.san(castle), "O-O");
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attacks;
mod bitboard;
mod board;
mod color;
mod fen;
mod movegen;
mod moves;
mod perft;
mod position;
mod role;
mod san;
mod square;
mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::Color;
pub use fen::{
    parse_fields, Counters, FenError, FenField, Fix, ParseError, ParseMode, ParsedFields,
};
pub use moves::{Move, MoveKind, MoveList, MAX_LEGAL_MOVES};
pub use perft::{
    parse_perft_record, perft, perft_divide, perft_full, PerftExpectation, PerftRecord,
    PerftRecordError,
};
pub use position::{History, IllegalMoveError, Position, PositionError, Setup, Status, Validation};
pub use role::{Piece, Role};
pub use san::{CastlingSide, San, SanError, SanMode, SanPlus, Suffix};
pub use square::{File, Rank, Square};
