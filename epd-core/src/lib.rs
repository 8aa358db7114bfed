//! # epd-core
//!
//! The EPD (Extended Position Description, Edwards 1995) standard in pure
//! Rust: a fast legal-move chess core, SAN, FEN and the EPD position
//! fields, perft, and a built-in chess engine (`search`, `epd uci`).
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
mod diag;
pub mod diagram;
mod fen;
mod movegen;
mod moves;
mod opcode;
mod operand;
mod perft;
pub mod pgn;
pub mod pipeline;
mod position;
mod record;
mod registers;
mod role;
mod san;
mod score;
mod square;
#[cfg(test)]
mod testing;
pub mod verbs;
mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::Color;
pub use diag::{has_errors, Code, Diagnostic, Severity};
pub use fen::{parse_fields, Counters, FenError, FenField, Fix, ParseError, ParseMode, ParsedFields};
pub use moves::{Move, MoveKind, MoveList, MAX_LEGAL_MOVES};
pub use opcode::{is_valid_opcode, Arity, Opcode, OperandType, Order, REFCOM_COMMANDS, REFREQ_REQUESTS};
pub use operand::{append_quoted, is_float, is_identifier, parse_integer, Clock, Date, IntegerError, TimeOfDay};
pub use perft::{parse_perft_record, perft, perft_divide, perft_full, PerftExpectation, PerftRecord, PerftRecordError};
pub use position::{History, IllegalMoveError, Position, PositionError, Setup, Status, Validation};
pub use record::{
    Operand, OperandInput, Operation, Record, SetError, Value, MAX_DIAGNOSTICS, MAX_SPEC_LINE, MAX_STRING,
};
pub use registers::Registers;
pub use role::{Piece, Role};
pub use san::{CastlingSide, San, SanError, SanMode, SanPlus, Suffix};
pub use score::{Score, ScoreError, CE_MATE_THRESHOLD, CE_MAX, CE_MIN};
pub use square::{File, Rank, Square};
