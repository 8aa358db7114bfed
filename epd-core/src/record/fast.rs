//! The fast path of [`Record::parse_into`]: a record already written
//! exactly as the canonical encoder writes it, valid, and made only of the
//! common opcodes, is read in one pass with no token list, no diagnostics
//! bookkeeping and no copies.
//!
//! The fast path proves or gives up: it accepts a line only when the
//! general parser would accept it with no diagnostic at all and mark it
//! source-canonical, and it then builds the same record, slot for slot.
//! At the first byte it is not sure of it returns `false`, and the caller
//! clears the record and runs the general parser, which explains. So the
//! diagnostics of every line come from one place, and the fast path needs
//! no error handling of its own. `tests/tests/records_corpora.rs` checks
//! the two paths agree on every corpus line in both modes.

use super::{canonical_integer, find_any, Name, OpSlot, OperandSlot, Record, Span, Value, MAX_SPEC_LINE, MAX_STRING};
use crate::fen::{canonical_placement, castling_letter};
use crate::opcode::{Arity, OperandType, Order};
use crate::{Bitboard, Color, Move, Opcode, Position, Role, Setup, Square};

/// Opcode characters.
const OPCODE: u8 = 1;
/// String content the fast path takes as it stands: printing ASCII but
/// '"' and '\\'.
const STRING: u8 = 2;
static BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0x20;
    while b < 0x7f {
        let c = b as u8;
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' {
            t[b] |= OPCODE;
        }
        if c != b'"' && c != b'\\' {
            t[b] |= STRING;
        }
        b += 1;
    }
    t
};

/// The first byte at or after `p` that is not string content as the fast
/// path takes it (see [`STRING`]), or the line's end; eight bytes at a
/// time, as strings are the longest operands.
#[inline]
fn string_end(line: &[u8], mut p: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while p + 8 <= line.len() {
        let c = &line[p..p + 8];
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Flags (exactly, in the lowest flagged byte) a byte below 0x20,
        // above 0x7e, '"' or '\\'.
        let quote = x ^ (LO * u64::from(b'"'));
        let backslash = x ^ (LO * u64::from(b'\\'));
        let low = x.wrapping_sub(LO * 0x20);
        let high = x.wrapping_add(LO);
        let hit = (quote.wrapping_sub(LO) & !quote) | (backslash.wrapping_sub(LO) & !backslash) | (low & !x) | high | x;
        if hit & HI != 0 {
            break;
        }
        p += 8;
    }
    while p < line.len() && BYTES[line[p] as usize] & STRING != 0 {
        p += 1;
    }
    p
}

/// Root-position moves remembered by text: `pm` and the first move of `pv`
/// are the same text in the same position, so one lookup serves both.
struct Memo {
    len: usize,
    slots: [(u32, u32, Move); 4],
}

impl Memo {
    #[inline]
    fn get(&self, line: &[u8], text: &[u8]) -> Option<Move> {
        self.slots[..self.len].iter().find(|s| &line[s.0 as usize..s.1 as usize] == text).map(|s| s.2)
    }

    #[inline]
    fn put(&mut self, start: usize, end: usize, m: Move) {
        if self.len < self.slots.len() {
            self.slots[self.len] = (start as u32, end as u32, m);
            self.len += 1;
        }
    }
}

/// The kind of operation the fast path reads; `None` for the opcodes it
/// leaves to the general parser (their operands are rare in bulk data or
/// take part in cross-checks it does not make).
#[inline]
fn kind(op: Opcode) -> Option<OperandType> {
    use Opcode::*;
    match op {
        Cc | Ptp | Refcom | Refreq | Ts | DrawAccept | DrawClaim | DrawOffer | DrawReject | Resign | Noop => None,
        _ => Some(op.operand_type(0)),
    }
}

/// The four position fields of a canonical line: the setup and the offset
/// just past them.
#[inline]
fn fields(line: &[u8], scratch: &mut Vec<u8>) -> Option<(Setup, usize)> {
    let (board, mut p) = canonical_placement(line)?;
    let turn = match line.get(p..p + 3)? {
        b" w " => Color::White,
        b" b " => Color::Black,
        _ => return None,
    };
    p += 3;
    let start = p;
    while *line.get(p)? != b' ' {
        p += 1;
    }
    let field = &line[start..p];
    let castling_rights = if field == b"-" {
        Bitboard::EMPTY
    } else {
        // Letters in strict order (each once), then the field must be what
        // the encoder writes for the rights they name.
        let mut rights = Bitboard::EMPTY;
        let mut last: Option<(usize, u8)> = None;
        for &c in field {
            let (rook, key) = castling_letter(&board, c)?;
            if rights.contains(rook) || last.is_some_and(|l| key <= l) {
                return None;
            }
            last = Some(key);
            rights.add(rook);
        }
        scratch.clear();
        crate::fen::append_castling(&board, rights, scratch);
        if scratch.as_slice() != field {
            return None;
        }
        rights
    };
    // En passant squares are rare: the general parser checks them.
    if line.get(p..p + 2)? != b" -" {
        return None;
    }
    p += 2;
    Some((Setup { board, turn, castling_rights, ep_square: None, halfmoves: 0, fullmoves: 1 }, p))
}

/// Reads `line` into `rec` (cleared, its buffer holding a copy of `line`)
/// if the fast path can; `false` leaves `rec` to be cleared again.
pub(super) fn parse(rec: &mut Record, line: &[u8]) -> bool {
    if line.len() > MAX_SPEC_LINE {
        return false;
    }
    let Some((setup, mut p)) = fields(line, &mut rec.scratch.san) else { return false };
    if !setup.problems().is_empty() {
        return false;
    }
    let root = Position::from_checked_setup(setup.clone());
    rec.setup = setup;
    rec.position = Some(root);
    let n = line.len();
    let mut prev: Option<Opcode> = None;
    let a1 = Square::from_index(0);
    let mut memo = Memo { len: 0, slots: [(0, 0, Move::normal(Role::Pawn, a1, a1)); 4] };
    // First moves of pm, pv, sm and sv, for the cross-checks.
    let mut heads: [Option<Move>; 4] = [None; 4];
    while p < n {
        if line[p] != b' ' {
            return false;
        }
        p += 1;
        let op_start = p;
        while p < n && BYTES[line[p] as usize] & OPCODE != 0 {
            p += 1;
        }
        let Some(op) = Opcode::from_name(&line[op_start..p]) else { return false };
        // Strictly increasing: in canonical order, and no opcode twice.
        if prev.is_some_and(|q| q >= op) {
            return false;
        }
        prev = Some(op);
        let Some(kind) = kind(op) else { return false };
        let first = rec.operands.len();
        let sequence = matches!(op, Opcode::Pv | Opcode::Sv);
        // The position a sequence has reached (pv, sv); copied only for them.
        let mut seq = if sequence { Some(root) } else { None };
        loop {
            match line.get(p) {
                Some(b';') => {
                    p += 1;
                    break;
                }
                Some(b' ') => p += 1,
                _ => return false,
            }
            let start = p;
            let value = match kind {
                OperandType::String => {
                    if line.get(p) != Some(&b'"') {
                        return false;
                    }
                    p += 1;
                    let content = p;
                    // Printing ASCII only: no escapes, no control bytes, no
                    // bytes that need a UTF-8 check.
                    p = string_end(line, p);
                    if line.get(p) != Some(&b'"') {
                        // A control byte, a byte above 0x7e, a backslash.
                        return false;
                    }
                    if p - content >= MAX_STRING {
                        return false;
                    }
                    rec.operands.push(OperandSlot {
                        span: Span { start: content as u32, end: p as u32 },
                        offset: content as u32,
                        value: Value::String,
                    });
                    p += 1;
                    continue;
                }
                _ => {
                    // Any byte but ' ' and ';': the operand's reader (SAN,
                    // integer) rejects what it does not expect.
                    p = find_any(line, p, [b' ', b';']);
                    let text = &line[start..p];
                    if kind == OperandType::Integer {
                        let Some(v) = canonical_integer(text) else { return false };
                        if let Some((lo, hi)) = op.integer_range() {
                            if !(lo..=hi).contains(&v) {
                                return false;
                            }
                        }
                        Value::Integer(v)
                    } else if kind == OperandType::Move {
                        let at_root = !sequence || rec.operands.len() == first;
                        let m = match at_root.then(|| memo.get(line, text)).flatten() {
                            Some(m) => m,
                            None => {
                                let Some(m) = seq.as_ref().unwrap_or(&root).strict_fast(text) else { return false };
                                if at_root {
                                    memo.put(start, p, m);
                                }
                                m
                            }
                        };
                        // Played only if a move follows.
                        if let (Some(pos), Some(b' ')) = (seq.as_mut(), line.get(p)) {
                            pos.play_unhashed(m);
                        }
                        Value::Move(Some(m))
                    } else {
                        return false;
                    }
                }
            };
            rec.operands.push(OperandSlot {
                span: Span { start: start as u32, end: p as u32 },
                offset: start as u32,
                value,
            });
        }
        let count = rec.operands.len() - first;
        let arity_ok = match op.arity() {
            Arity::Exactly(k) => count == k as usize,
            Arity::Optional => count <= 1,
            Arity::Any => true,
            Arity::Pairs => count % 2 == 0,
        };
        if !arity_ok {
            return false;
        }
        if op.order() == Order::Set {
            let slots = &rec.operands[first..];
            if slots.windows(2).any(|w| line[w[0].span.range()] > line[w[1].span.range()]) {
                return false;
            }
        }
        let head = match op {
            Opcode::Pm => Some(0),
            Opcode::Pv => Some(1),
            Opcode::Sm => Some(2),
            Opcode::Sv => Some(3),
            _ => None,
        };
        if let (Some(h), Some(slot)) = (head, rec.operands.get(first)) {
            if let Value::Move(m) = slot.value {
                heads[h] = m;
            }
        }
        rec.ops.push(OpSlot {
            name: Name::Known(op),
            offset: op_start as u32,
            end: p as u32,
            operands: Span { start: first as u32, end: rec.operands.len() as u32 },
        });
    }
    // pm must be the first move of pv, sm the first of sv.
    if let (Some(a), Some(b)) = (heads[0], heads[1]) {
        if a != b {
            return false;
        }
    }
    if let (Some(a), Some(b)) = (heads[2], heads[3]) {
        if a != b {
            return false;
        }
    }
    true
}
