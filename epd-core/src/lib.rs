//! # epd-core
//!
//! The pure core of EPD Kit, the EPD (Extended Position Description,
//! Edwards 1995) standard in Rust: the board, legal moves and perft, FEN
//! and the four EPD position fields, SAN (strict and lenient), records
//! and opcodes with typed operands and diagnostics, [`Score`], the
//! registers, PGN, the line pipeline every file verb runs on, and the
//! stream verbs (normalize, purge, repair, check). It starts no process
//! and opens no socket; the engines are in `epd-engine`.
//!
//! The guide to the kit and its `epd` command is docs/kit.md in the
//! repository (this library in its section "The library"); the
//! diagnostic codes are in docs/diagnostics.md.
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
mod escape;
mod explain;
mod fen;
mod movegen;
mod moves;
mod opcode;
mod operand;
mod perft;
pub mod pgn;
pub mod pipeline;
mod position;
mod rays;
mod record;
mod registers;
mod role;
mod san;
mod score;
mod solution;
mod square;
pub mod verbs;
mod zobrist;

/// Hooks for tests that hold the record reader's two paths to one answer
/// (the integration tests and the fuzz targets); only with the
/// `test-hooks` feature, never part of the API.
#[cfg(feature = "test-hooks")]
pub mod test_hooks {
    use crate::{Diagnostic, ParseMode, Record};

    /// The record reader's internals, for tests.
    pub trait RecordTestHooks {
        /// The fast path's verdicts on `line`: building the record, and
        /// only judging it.
        fn fast_path_verdicts(&mut self, line: &[u8]) -> (bool, bool);
        /// `Record::parse_into` without its fast path.
        fn parse_into_general(&mut self, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>);
        /// The same fields, operations, operand slots and texts, offsets
        /// included.
        fn same_parse(&self, other: &Record) -> bool;
        /// `Record::append_canonical` always encoding, never copying the
        /// source line.
        fn append_canonical_encoded(&self, out: &mut Vec<u8>);
    }

    impl RecordTestHooks for Record {
        fn fast_path_verdicts(&mut self, line: &[u8]) -> (bool, bool) {
            self.fast_verdicts(line)
        }
        fn parse_into_general(&mut self, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>) {
            self.parse_general(line, mode, diags);
        }
        fn same_parse(&self, other: &Record) -> bool {
            self.is_same_parse(other)
        }
        fn append_canonical_encoded(&self, out: &mut Vec<u8>) {
            self.encode_canonical(out);
        }
    }
}

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::Color;
pub use diag::{has_errors, io_reason, Code, Diagnostic, Severity};
pub use escape::{escaped, push_escaped};
pub use explain::{Explanation, UnknownCode};
pub use fen::{parse_fields, Counters, FenError, FenField, Fix, ParseError, ParseMode, ParsedFields};
pub use moves::{Move, MoveKind, MoveList, MAX_LEGAL_MOVES};
pub use opcode::{
    is_valid_opcode, Arity, CrossCheck, Opcode, OperandType, Order, EXCLUSIVE_PAIRS, FIRST_MOVE_PAIRS, NEED_SM,
    REFCOM_COMMANDS, REFREQ_REQUESTS,
};
pub use operand::{append_quoted, is_float, is_identifier, parse_integer, Clock, Date, IntegerError, TimeOfDay};
pub use perft::{
    parse_perft_record, perft, perft_divide, perft_full, verify_perft_line, PerftCheck, PerftExpectation, PerftRecord,
    PerftRecordError,
};
pub use position::{History, IllegalMoveError, Position, PositionError, Setup, Status, Validation};
pub use record::{
    Operand, OperandInput, Operation, Record, RecordVisitor, SetError, Value, VisitedOperand, MAX_DIAGNOSTICS,
    MAX_SPEC_LINE, MAX_STRING,
};
pub use registers::Registers;
pub use role::{Piece, Role};
pub use san::{CastlingSide, San, SanError, SanMode, SanPlus, Suffix};
pub use score::{Score, ScoreError, CE_MATE_THRESHOLD, CE_MAX, CE_MIN};
pub use solution::{judge, played_move, verdict, Verdict, SOLVE_ACD, SOLVE_ACN, SOLVE_MS};
pub use square::{File, Rank, Square};
