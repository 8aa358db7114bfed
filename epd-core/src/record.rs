//! EPD records: the four position fields and an ordered list of typed
//! operations; parsing with diagnostics, validation of every rule of §6,
//! editing under the same rules, and the canonical encoding of §7.1.
//!
//! A [`Record`] keeps all operand text in one byte arena and typed values
//! beside it, so parsing a file into one reused record allocates nothing
//! in the steady state.
//!
//! One job to a file: `model` (the record and its views), `parse` (the
//! reader), `fast` (the reader's one-pass path for canonical lines),
//! `visit` (a record's fields handed to a visitor, from a record or
//! straight from a canonical line), `check` (the operand checks), `cross`
//! (the cross-checks), `edit` (setting and removing operations) and
//! `encode` (the canonical text).
//! The reader and every edit go through the same operand checks and
//! cross-checks, so an edit is refused exactly when the reader would find
//! the record it leaves wrong, with the reader's code.

mod check;
mod cross;
mod edit;
mod encode;
mod fast;
mod model;
mod parse;
mod visit;

pub use edit::{OperandInput, SetError};
pub use model::{Operand, Operation, Record, Value, MAX_DIAGNOSTICS, MAX_SPEC_LINE, MAX_STRING};
pub use visit::{RecordVisitor, VisitedOperand};

// What the fast path takes from its parent.
#[cfg(test)]
use check::canonical_integer;
use model::{Name, OpSlot, OperandSlot, Span};
use parse::find_any;
