//! A record's fields handed over one by one to a [`RecordVisitor`]: from
//! a parsed record ([`Record::visit`]), or straight from a canonical line
//! by the reader's fast path as it reads it ([`Record::read_canonical`]),
//! with no record built. Both hand over the same things in the same
//! order, so a verb that needs a few fields of every record (the report)
//! reads them with one visitor whichever way the line went.

use super::fast::{self, Hand};
use super::model::Name;
use super::{Record, Value};
use crate::{Opcode, Position};

/// What a record hands over, in order: its position, then each operation
/// (its opcode) followed by its operands.
///
/// ```
/// use epd_core::{Opcode, Position, Record, RecordVisitor, Value, VisitedOperand};
///
/// #[derive(Default)]
/// struct Depth {
///     in_acd: bool,
///     acd: Option<i64>,
/// }
///
/// impl<'a> RecordVisitor<'a> for Depth {
///     fn position(&mut self, _pos: &Position) {}
///     fn operation(&mut self, opcode: Option<Opcode>, _name: &'a [u8]) {
///         self.in_acd = opcode == Some(Opcode::Acd);
///     }
///     fn operand(&mut self, operand: VisitedOperand<'a>) {
///         if let (true, Value::Integer(v)) = (self.in_acd, operand.value) {
///             self.acd = Some(v);
///         }
///     }
/// }
///
/// let line = b"8/8/8/8/8/8/8/K6k w - - acd 12; bm Kb1;";
/// let mut rec = Record::default();
/// let mut fast = Depth::default();
/// assert!(rec.read_canonical(line, &mut fast));
/// let (parsed, _) = Record::parse(line, epd_core::ParseMode::Strict);
/// let mut slow = Depth::default();
/// parsed.visit(&mut slow);
/// assert_eq!((fast.acd, slow.acd), (Some(12), Some(12)));
/// ```
pub trait RecordVisitor<'a> {
    /// The record's position (with its hash), before any operation.
    fn position(&mut self, pos: &Position);
    /// An operation begins: its opcode when the catalog knows it, and its
    /// name.
    fn operation(&mut self, opcode: Option<Opcode>, name: &'a [u8]);
    /// An operand of the operation begun last.
    fn operand(&mut self, operand: VisitedOperand<'a>);
}

/// One operand, as a [`RecordVisitor`] is handed it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VisitedOperand<'a> {
    /// Its place among its operation's operands (0-based).
    pub index: usize,
    /// Its byte offset in the line read (as [`crate::Operand::offset`]).
    pub offset: usize,
    /// Its text (as [`crate::Operand::text`]: a string's content, a
    /// move's canonical SAN).
    pub text: &'a [u8],
    /// Its typed value.
    pub value: Value,
}

impl Record {
    /// Hands this record's position (if it has one), operations and
    /// operands to `visitor`, in record order.
    pub fn visit<'a, V: RecordVisitor<'a>>(&'a self, visitor: &mut V) {
        if let Some(pos) = &self.position {
            visitor.position(pos);
        }
        for op in &self.ops {
            let known = match op.name {
                Name::Known(o) => Some(o),
                Name::Other(_) => None,
            };
            visitor.operation(known, self.name_bytes(op.name));
            for (index, slot) in self.operands[op.operands.range()].iter().enumerate() {
                visitor.operand(VisitedOperand {
                    index,
                    offset: slot.offset as usize,
                    text: &self.buf[slot.span.range()],
                    value: slot.value,
                });
            }
        }
    }

    /// Reads `line` if it is a valid record already in canonical form that
    /// the reader's fast path takes (as for [`Record::parse_into`]), handing
    /// its fields to `visitor` as they are read, exactly as
    /// [`Record::visit`] would hand over the record parsed from it; no
    /// record is built (this one lends only its scratch buffers).
    ///
    /// `false` says nothing of the line, and `visitor` may have been handed
    /// a part of it: start the visitor again, parse the line and visit the
    /// record.
    pub fn read_canonical<'a, V: RecordVisitor<'a>>(&mut self, line: &'a [u8], visitor: &mut V) -> bool {
        fast::parse(self, line, &mut Hand(visitor))
    }
}
