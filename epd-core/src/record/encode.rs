//! The canonical encoding (§7.1): the text every writer of the kit gives
//! a record, and that the reader reads back to the same record.

use super::model::{Name, Operand, Record, Value};
use crate::opcode::Order;
use crate::operand::append_quoted;
use core::fmt;

impl Operand<'_> {
    /// Appends the operand as written in canonical EPD.
    pub fn append_to(&self, out: &mut Vec<u8>) {
        match self.slot.value {
            Value::String | Value::Raw { quoted: true } => append_quoted(self.text(), out),
            _ => out.extend_from_slice(self.text()),
        }
    }
}

impl Record {
    /// Appends the canonical encoding (§7.1): the four fields, then the
    /// operations in ASCII order of opcode, operands of set opcodes (`am`,
    /// `bm`) in ASCII order, single spaces, strings quoted. A record parsed
    /// from a line that was already canonical, and not edited since, copies
    /// that line.
    pub fn append_canonical(&self, out: &mut Vec<u8>) {
        if self.source_canonical {
            out.extend_from_slice(&self.buf[..self.source_len as usize]);
            return;
        }
        self.encode_canonical(out);
    }

    /// [`Record::append_canonical`] always encoding, never copying the
    /// source line: for tests that check the source-canonical flag.
    pub(crate) fn encode_canonical(&self, out: &mut Vec<u8>) {
        self.setup.append_epd_fields(out);
        let mut order: [u16; 64] = [0; 64];
        let mut heap;
        let idx: &mut [u16] = if self.ops.len() <= 64 {
            &mut order[..self.ops.len()]
        } else {
            heap = vec![0u16; self.ops.len()];
            &mut heap[..]
        };
        for (i, v) in idx.iter_mut().enumerate() {
            *v = i as u16;
        }
        // Stable: equal opcodes (only in invalid records) keep their order.
        let sorted = idx
            .windows(2)
            .all(|w| self.name_bytes(self.ops[w[0] as usize].name) <= self.name_bytes(self.ops[w[1] as usize].name));
        if !sorted {
            idx.sort_by(|&a, &b| {
                self.name_bytes(self.ops[a as usize].name).cmp(self.name_bytes(self.ops[b as usize].name))
            });
        }
        for &i in idx.iter() {
            let op = &self.ops[i as usize];
            out.push(b' ');
            out.extend_from_slice(self.name_bytes(op.name));
            let slots = &self.operands[op.operands.range()];
            let is_set = matches!(op.name, Name::Known(k) if k.order() == Order::Set);
            if is_set && slots.len() > 1 {
                let mut texts: Vec<Vec<u8>> = slots
                    .iter()
                    .map(|s| {
                        let mut v = Vec::new();
                        Operand { record: self, slot: s }.append_to(&mut v);
                        v
                    })
                    .collect();
                texts.sort();
                for t in texts {
                    out.push(b' ');
                    out.extend_from_slice(&t);
                }
            } else {
                for s in slots {
                    out.push(b' ');
                    Operand { record: self, slot: s }.append_to(out);
                }
            }
            out.push(b';');
        }
    }

    /// The canonical encoding as bytes.
    #[must_use]
    pub fn to_canonical(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        self.append_canonical(&mut out);
        out
    }
}

impl fmt::Display for Record {
    /// The canonical encoding (non-UTF-8 bytes replaced).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.to_canonical()))
    }
}

/// The decimal text of `v` as the encoder writes it, in `buf`.
pub(super) fn itoa(v: i64, buf: &mut Vec<u8>) -> &[u8] {
    buf.clear();
    let mut n = v.unsigned_abs();
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(&tmp[i..]);
    buf
}
