//! The cross-checks of §6: the rules between the operations of one
//! record (an opcode once, pm the first move of pv and sm of sv, opcodes
//! that exclude each other, draw offers and claims with their move). The
//! reader reports what they find; an edit is refused when it would leave a
//! finding the record did not have.

use super::model::{Name, Operation, Record};
use crate::diag::Code;
use crate::opcode::{EXCLUSIVE_PAIRS, FIRST_MOVE_PAIRS, NEED_SM};
use crate::Opcode;

/// One broken rule between operations.
#[derive(Clone, Debug)]
pub(super) struct Finding {
    pub(super) code: Code,
    /// The offset in the parsed line of the operation concerned (0 for
    /// operations not read from a line).
    pub(super) offset: usize,
    /// The opcode the rule is reported on, if one.
    pub(super) opcode: Option<&'static str>,
    pub(super) message: String,
}

impl Finding {
    /// The same rule broken the same way, wherever the operations stand
    /// (an edited operation has no offset).
    pub(super) fn same(&self, other: &Finding) -> bool {
        self.code == other.code && self.opcode == other.opcode && self.message == other.message
    }
}

/// Every cross-check the record fails, in the order the reader reports
/// them (before sorting by column).
pub(super) fn findings(rec: &Record) -> Vec<Finding> {
    let mut seen_known: u64 = 0;
    // Index of the first operation of each known opcode seen.
    let mut first_at = [0usize; 64];
    let mut dups: Vec<(usize, String)> = Vec::new();
    for (i, op) in rec.ops.iter().enumerate() {
        match op.name {
            Name::Known(k) => {
                let bit = 1u64 << (k as u32);
                if seen_known & bit != 0 {
                    dups.push((op.offset as usize, k.name().to_string()));
                } else {
                    first_at[k as usize] = i;
                }
                seen_known |= bit;
            }
            Name::Other(span) => {
                let name = &rec.buf[span.range()];
                if rec.ops[..i].iter().any(|o| rec.name_bytes(o.name) == name) {
                    dups.push((op.offset as usize, String::from_utf8_lossy(name).into_owned()));
                }
            }
        }
    }
    let has = |op: Opcode| seen_known & (1u64 << (op as u32)) != 0;
    let first_move = |op: Opcode| {
        has(op)
            .then(|| Operation { record: rec, index: first_at[op as usize] }.operand(0))
            .flatten()
            .map(|o| (o.as_move(), o.offset()))
    };
    let mut findings = Vec::new();
    for (offset, name) in dups {
        let message = format!("opcode {name} appears more than once");
        findings.push(Finding { code: Code::DuplicateOpcode, offset, opcode: None, message });
    }
    for (single, seq) in FIRST_MOVE_PAIRS {
        let code = if single == Opcode::Pm { Code::PmNotPvHead } else { Code::SmNotSvHead };
        if !has(single) || !has(seq) {
            continue;
        }
        if let (Some((Some(a), offset)), Some((Some(b), _))) = (first_move(single), first_move(seq)) {
            if a != b {
                findings.push(Finding {
                    code,
                    offset,
                    opcode: Some(single.name()),
                    message: format!("{} is not the first move of {}", single.name(), seq.name()),
                });
            }
        }
    }
    for (a, b) in EXCLUSIVE_PAIRS {
        if has(a) && has(b) {
            findings.push(Finding {
                code: Code::ConflictingOpcodes,
                offset: rec.get_known(b).map_or(0, |o| o.offset()),
                opcode: Some(b.name()),
                message: format!("{} and {} exclude each other", a.name(), b.name()),
            });
        }
    }
    for op in NEED_SM {
        if has(op) && !has(Opcode::Sm) {
            findings.push(Finding {
                code: Code::MissingSm,
                offset: rec.get_known(op).map_or(0, |o| o.offset()),
                opcode: Some(op.name()),
                message: format!("{} needs an sm (supplied move) operation", op.name()),
            });
        }
    }
    findings
}
