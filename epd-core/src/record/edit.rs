//! Editing a record: setting and removing operations.

use super::encode::itoa;
use super::model::{Name, OpSlot, OperandSlot, Record, Span, Value, MAX_STRING};
use crate::opcode::{is_valid_opcode, OperandType, Order, REFCOM_COMMANDS, REFREQ_REQUESTS};
use crate::operand::{is_identifier, Clock, Date, TimeOfDay};
use crate::{Move, Opcode};
use core::fmt;

/// An operand to store with [`Record::set`].
#[derive(Copy, Clone, Debug)]
pub enum OperandInput<'a> {
    /// An identifier.
    Identifier(&'a str),
    /// A move, legal in the record's position (for `pv` and `sv`: in the
    /// position reached by the moves before it).
    Move(Move),
    /// An integer.
    Integer(i64),
    /// A date.
    Date(Date),
    /// A time of day.
    TimeOfDay(TimeOfDay),
    /// A clock value.
    Clock(Clock),
    /// A string (any bytes but NUL).
    String(&'a [u8]),
    /// Verbatim text for an unknown opcode.
    Raw(&'a [u8]),
}

/// Why [`Record::set`] refused an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetError {
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SetError {}

impl Record {
    /// Removes every operation with this opcode; returns how many.
    pub fn remove(&mut self, opcode: &str) -> usize {
        self.source_canonical = false;
        let before = self.ops.len();
        let name = opcode.as_bytes().to_vec();
        let buf = &self.buf;
        self.ops.retain(|o| {
            let n = match o.name {
                Name::Known(op) => op.name().as_bytes(),
                Name::Other(span) => &buf[span.range()],
            };
            n != name.as_slice()
        });
        before - self.ops.len()
    }

    /// Sets an operation, replacing any with the same opcode. Operands are
    /// checked against the catalog for known opcodes; moves are written in
    /// canonical SAN.
    ///
    /// # Errors
    /// [`SetError`] for an invalid opcode, wrong operand count or type, an
    /// out-of-range integer, a string the encoding cannot hold, or an
    /// illegal move.
    pub fn set(&mut self, opcode: &str, operands: &[OperandInput<'_>]) -> Result<(), SetError> {
        self.source_canonical = false;
        let err = |m: String| Err(SetError { message: m });
        if !is_valid_opcode(opcode.as_bytes()) {
            return err(format!("{opcode:?} is not an opcode"));
        }
        let known = Opcode::from_name(opcode.as_bytes());
        if let Some(op) = known {
            let n = operands.len();
            if !op.arity().accepts(n) {
                return err(format!("{opcode}: wrong number of operands ({n})"));
            }
        }
        let mut slots = Vec::with_capacity(operands.len());
        let mut pos = self.position;
        let mut scratch = Vec::new();
        for (i, input) in operands.iter().enumerate() {
            let want = known.map_or(OperandType::Any, |op| op.operand_type(i));
            let (text, value): (Vec<u8>, Value) = match *input {
                OperandInput::Move(m) => {
                    if want != OperandType::Move && want != OperandType::Any {
                        return err(format!("{opcode}: operand {} must be {want}", i + 1));
                    }
                    let Some(p) = pos else {
                        return err("the record's position is not legal".into());
                    };
                    if !p.is_legal(m) {
                        return err(format!("{opcode}: operand {} is not a legal move", i + 1));
                    }
                    scratch.clear();
                    p.append_san(m, &mut scratch);
                    if known.is_some_and(|op| op.order() == Order::Sequence) {
                        pos = Some(p.played(m));
                    }
                    (scratch.clone(), Value::Move(Some(m)))
                }
                OperandInput::Integer(v) => {
                    if want != OperandType::Integer && want != OperandType::Any {
                        return err(format!("{opcode}: operand {} must be {want}", i + 1));
                    }
                    if let Some((lo, hi)) = known.and_then(Opcode::integer_range) {
                        if !(lo..=hi).contains(&v) {
                            let range =
                                if hi == i64::MAX { format!("at least {lo}") } else { format!("from {lo} to {hi}") };
                            return err(format!("{opcode}: {v} is not {range}"));
                        }
                    }
                    (itoa(v, &mut scratch).to_vec(), Value::Integer(v))
                }
                OperandInput::Identifier(s) => {
                    if !is_identifier(s.as_bytes()) || !matches!(want, OperandType::Identifier | OperandType::Any) {
                        return err(format!("{opcode}: operand {} must be {want}", i + 1));
                    }
                    // The enumerated operands (§6.23, §6.24), as the reader
                    // checks them.
                    let allowed: &[&str] = match known {
                        Some(Opcode::Refcom) => &REFCOM_COMMANDS,
                        Some(Opcode::Refreq) => &REFREQ_REQUESTS,
                        _ => &[],
                    };
                    if !allowed.is_empty() && !allowed.contains(&s) {
                        return err(format!("{opcode} {s} is not one of: {}", allowed.join(", ")));
                    }
                    (s.as_bytes().to_vec(), Value::Identifier)
                }
                OperandInput::String(s) => {
                    if !matches!(want, OperandType::String | OperandType::Any) {
                        return err(format!("{opcode}: operand {} must be {want}", i + 1));
                    }
                    if s.len() >= MAX_STRING || s.iter().any(|&b| b < 0x20 || b == 0x7f) {
                        return err(format!("{opcode}: a string must be under 256 bytes of printing characters"));
                    }
                    (s.to_vec(), Value::String)
                }
                OperandInput::Date(d) => (d.to_string().into_bytes(), Value::Date(d)),
                OperandInput::TimeOfDay(t) => (t.to_string().into_bytes(), Value::TimeOfDay(t)),
                OperandInput::Clock(c) => (c.to_string().into_bytes(), Value::Clock(c)),
                OperandInput::Raw(s) => {
                    if known.is_some() && known != Some(Opcode::Noop) {
                        return err(format!("{opcode}: raw operands only for unknown opcodes"));
                    }
                    if s.is_empty() || s.iter().any(|&b| b <= b' ' || b == b';' || b == 0x7f) || s[0] == b'"' {
                        return err("a raw operand is one run of printing characters without ';'".into());
                    }
                    (s.to_vec(), Value::Raw { quoted: false })
                }
            };
            let typed_ok = match (want, &value) {
                (OperandType::Date, Value::Date(_))
                | (OperandType::TimeOfDay, Value::TimeOfDay(_))
                | (OperandType::Clock, Value::Clock(_)) => true,
                (OperandType::Date | OperandType::TimeOfDay | OperandType::Clock, _) => false,
                (_, Value::Date(_) | Value::TimeOfDay(_) | Value::Clock(_)) => want == OperandType::Any,
                _ => true,
            };
            if !typed_ok {
                return err(format!("{opcode}: operand {} must be {want}", i + 1));
            }
            slots.push((text, value));
        }
        self.remove(opcode);
        let name = match known {
            Some(op) => Name::Known(op),
            None => Name::Other(self.push_text(opcode.as_bytes())),
        };
        let first = self.operands.len() as u32;
        for (text, value) in slots {
            let span = self.push_text(&text);
            self.operands.push(OperandSlot { span, offset: 0, value });
        }
        let operands = Span { start: first, end: self.operands.len() as u32 };
        self.ops.push(OpSlot { name, offset: 0, end: 0, operands });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseMode, Position};

    #[test]
    fn set_refuses_refcom_and_refreq_values_the_reader_refuses() {
        let mut rec = Record::from_position(&Position::startpos());
        for (op, good, bad) in [("refcom", "respond", "responds"), ("refreq", "sign_on", "sign_in")] {
            assert!(rec.set(op, &[OperandInput::Identifier(good)]).is_ok());
            let e = rec.set(op, &[OperandInput::Identifier(bad)]).unwrap_err();
            assert!(e.message.contains("is not one of"), "{}", e.message);
            // What set writes reads back without a diagnostic.
            let (_, diags) = Record::parse(&rec.to_canonical(), ParseMode::Strict);
            assert!(diags.is_empty(), "{diags:?}");
        }
    }
}
