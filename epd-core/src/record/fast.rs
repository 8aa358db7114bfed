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

use super::{
    find_any, Name, OpSlot, OperandSlot, Record, RecordVisitor, Span, Value, VisitedOperand, MAX_SPEC_LINE, MAX_STRING,
};
use crate::fen::{canonical_placement, castling_letter};
use crate::opcode::{Arity, CrossCheck, OperandType, Order};
use crate::{Bitboard, Color, Move, Opcode, Position, Role, Setup, Square};

/// String content the fast path takes as it stands: printing ASCII but
/// '"' and '\\'.
const STRING: u8 = 1;
static BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0x20;
    while b < 0x7f {
        let c = b as u8;
        if c != b'"' && c != b'\\' {
            t[b] |= STRING;
        }
        b += 1;
    }
    t
};

/// The first eight bytes of a name, little-endian, zero-padded.
const fn name_key(name: &[u8]) -> u64 {
    let mut k = 0;
    let mut i = 0;
    while i < name.len() && i < 8 {
        k |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// A perfect hash of the opcodes of fewer than eight letters (the others,
/// `draw_*`, are left to the general parser): `(key * MULTIPLIER) >> 56`
/// picks a slot holding that key and its opcode. The multiplier is
/// searched for at compile time.
struct OpcodeTable {
    multiplier: u64,
    keys: [u64; 256],
    lens: [u8; 256],
    ops: [Opcode; 256],
}

static OPCODES: OpcodeTable = {
    let mut multiplier: u64 = 0x9e37_79b9_7f4a_7c15;
    loop {
        let mut keys = [0u64; 256];
        let mut lens = [0u8; 256];
        let mut ops = [Opcode::Noop; 256];
        let mut ok = true;
        let mut i = 0;
        while i < Opcode::ALL.len() {
            let name = Opcode::ALL[i].name().as_bytes();
            if name.len() < 8 {
                let k = name_key(name);
                let slot = (k.wrapping_mul(multiplier) >> 56) as usize;
                if keys[slot] != 0 {
                    ok = false;
                    break;
                }
                keys[slot] = k;
                lens[slot] = name.len() as u8;
                ops[slot] = Opcode::ALL[i];
            }
            i += 1;
        }
        if ok {
            break OpcodeTable { multiplier, keys, lens, ops };
        }
        multiplier = multiplier.wrapping_add(0x0000_0100_0000_01b3 * 2);
    }
};

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `p` as a little-endian integer, zero-padded past the
/// line's end (a zero byte ends no name or token, so a text cut by the
/// line's end is never taken for a whole one).
#[inline(always)]
fn word_at(line: &[u8], p: usize) -> u64 {
    match line.get(p..p + 8) {
        Some(c) => u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        // Near the end: the line's last eight bytes, shifted down (no
        // copy, which costs a call to memcpy).
        None if line.len() >= 8 && p < line.len() => {
            let c = &line[line.len() - 8..];
            let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            x >> (8 * (p + 8 - line.len()))
        }
        None => {
            let mut x = 0;
            for (i, &b) in line.get(p..).unwrap_or_default().iter().enumerate() {
                x |= u64::from(b) << (8 * i);
            }
            x
        }
    }
}

/// Flags (exactly, in the lowest flagged byte) the bytes of `x` that are
/// ' ' or ';'.
#[inline(always)]
fn space_or_semicolon(x: u64) -> u64 {
    let space = x ^ (LO * u64::from(b' '));
    let semi = x ^ (LO * u64::from(b';'));
    ((space.wrapping_sub(LO) & !space) | (semi.wrapping_sub(LO) & !semi)) & HI
}

/// The known opcode of fewer than eight letters at `p`, ended by ' ', and
/// the offset of that byte; `None` for anything else (an opcode with no
/// operands, ended by ';', is left to the general parser).
#[inline]
fn opcode_at(line: &[u8], p: usize) -> Option<(Opcode, usize)> {
    let x = word_at(line, p);
    let space = x ^ (LO * u64::from(b' '));
    // The lowest flagged byte is exact.
    let hit = space.wrapping_sub(LO) & !space & HI;
    if hit == 0 {
        return None;
    }
    let len = (hit.trailing_zeros() / 8) as usize;
    let key = x & ((1u64 << (8 * len)) - 1);
    let slot = (key.wrapping_mul(OPCODES.multiplier) >> 56) as usize;
    // The length too: a NUL byte ending the text would give a shorter
    // name's key.
    (len > 0 && OPCODES.keys[slot] == key && usize::from(OPCODES.lens[slot]) == len)
        .then(|| (OPCODES.ops[slot], p + len))
}

/// The token at `p`, up to the first ' ' or ';' (or the line's end): its
/// end, and for a token of fewer than eight bytes ended by one of those,
/// its [`Memo`] key (its bytes and its length in the top byte, so that a
/// text with a NUL at its end has a key of its own).
#[inline(always)]
fn token_at(line: &[u8], p: usize) -> (usize, Option<u64>) {
    let x = word_at(line, p);
    let hit = space_or_semicolon(x);
    if hit == 0 {
        return (find_any(line, (p + 8).min(line.len()), [b' ', b';']), None);
    }
    let len = (hit.trailing_zeros() / 8) as usize;
    (p + len, Some((x & ((1u64 << (8 * len)) - 1)) | ((len as u64) << 56)))
}

/// An integer at `p` written as the encoder writes it (optional '-', no
/// leading zero, no `-0`, at most 18 digits so it cannot overflow): its
/// value and the offset of the first byte after its digits.
#[inline(always)]
fn integer_at(line: &[u8], mut p: usize) -> Option<(i64, usize)> {
    let neg = line.get(p) == Some(&b'-');
    if neg {
        p += 1;
    }
    let start = p;
    // Up to eight digits at once: `t` maps the digits to 0..=9 and every
    // other byte above 9, and the lowest byte flagged as not a digit is
    // exact (carries only move up).
    let t = word_at(line, p) ^ (LO * u64::from(b'0'));
    let other = (t.wrapping_add(LO * 0x76) | t) & HI;
    let n = if other == 0 { 8 } else { (other.trailing_zeros() / 8) as usize };
    if n == 0 {
        return None;
    }
    // The digits right-aligned (leading zeros above), then summed in
    // pairs, quadruples and the eight.
    let mut d = t << (8 * (8 - n));
    d = ((d & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561)) >> 8;
    d = ((d & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601)) >> 16;
    d = ((d & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001)) >> 32;
    let mut v = d as i64;
    p += n;
    if n == 8 {
        while let Some(&b) = line.get(p) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            // Past 18 bytes the general reader takes the integer (checked
            // before the digit is added, so the sum cannot overflow).
            if p + 1 - start > 18 {
                return None;
            }
            v = v * 10 + i64::from(digit);
            p += 1;
        }
    }
    if line[start] == b'0' && (n > 1 || neg) {
        return None;
    }
    Some((if neg { -v } else { v }, p))
}

/// The first byte at or after `p` that is not string content as the fast
/// path takes it (see [`STRING`]), or the line's end; eight bytes at a
/// time, as strings are the longest operands.
#[inline]
fn string_end(line: &[u8], mut p: usize) -> usize {
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
            return p + ((hit & HI).trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while p < line.len() && BYTES[line[p] as usize] & STRING != 0 {
        p += 1;
    }
    p
}

/// A quoted string at `p` as the fast path takes it (printing ASCII only:
/// no escapes, no control bytes, no bytes that need a UTF-8 check; under
/// [`MAX_STRING`] bytes): the span of its content. The closing quote is at
/// the span's end.
#[inline(always)]
fn quoted_at(line: &[u8], p: usize) -> Option<(usize, usize)> {
    if line.get(p) != Some(&b'"') {
        return None;
    }
    let content = p + 1;
    let end = string_end(line, content);
    // Anything else stops it: a control byte, a byte above 0x7e, a
    // backslash.
    (line.get(end) == Some(&b'"') && end - content < MAX_STRING).then_some((content, end))
}

/// Root-position moves remembered by text: `pm` and the first move of `pv`
/// are the same text in the same position, so one lookup serves both.
/// Texts of up to seven bytes (every SAN move but a rare few) are kept as
/// integers ([`token_at`] makes the keys).
struct Memo {
    len: usize,
    slots: [(u64, Move); 4],
}

impl Memo {
    #[inline]
    fn get(&self, key: u64) -> Option<Move> {
        self.slots[..self.len].iter().find(|s| s.0 == key).map(|s| s.1)
    }

    #[inline]
    fn put(&mut self, key: u64, m: Move) {
        if self.len < self.slots.len() {
            self.slots[self.len] = (key, m);
            self.len += 1;
        }
    }
}

/// What the fast path needs of an opcode, in one table indexed by opcode
/// (the catalog's `match` functions compile to jump tables, whose targets
/// depend on the data).
#[derive(Copy, Clone)]
struct Info {
    /// The operands' kind: `NONE` for the opcodes left to the general
    /// parser (their operands are rare in bulk data, or take part in
    /// cross-checks the fast path does not make).
    kind: u8,
    /// Operand count bounds.
    min: u8,
    max: u8,
    /// Operands sorted in canonical form (am, bm).
    set: bool,
    /// Moves played in sequence (pv, sv).
    sequence: bool,
    /// Slot in the first-move cross-check: pm 0, pv 1, sm 2, sv 3; else 4.
    head: u8,
    /// Inclusive integer range.
    lo: i64,
    hi: i64,
}

const NONE: u8 = 0;
const INTEGER: u8 = 1;
const MOVE: u8 = 2;
const QUOTED: u8 = 3;

static INFO: [Info; Opcode::ALL.len()] = {
    let blank = Info { kind: NONE, min: 0, max: 0, set: false, sequence: false, head: 4, lo: 0, hi: 0 };
    let mut t = [blank; Opcode::ALL.len()];
    let mut i = 0;
    while i < Opcode::ALL.len() {
        let op = Opcode::ALL[i];
        // The operands' kind from the catalog: opcodes whose operands are
        // of another type (clocks, dates, identifiers, anything) or that
        // take part in a cross-check this reader does not make are left
        // to the general parser.
        let kind = match (op.cross_check(), op.operand_type(0)) {
            (CrossCheck::Other, _) => NONE,
            (_, OperandType::Integer) => INTEGER,
            (_, OperandType::Move) => MOVE,
            (_, OperandType::String) => QUOTED,
            _ => NONE,
        };
        // Every operand of an opcode read here is of one type (the
        // reader reads them all as the first).
        let mut k = 1;
        while k < 4 && kind != NONE {
            assert!(op.operand_type(k) as u8 == op.operand_type(0) as u8);
            k += 1;
        }
        let (min, max) = match op.arity() {
            Arity::Exactly(k) => (k, k),
            Arity::Optional => (0, 1),
            Arity::Any => (0, u8::MAX),
            // Pairs: not read here (ptp has kind NONE).
            Arity::Pairs => (1, 0),
        };
        let (lo, hi) = match op.integer_range() {
            Some(r) => r,
            None => (i64::MIN, i64::MAX),
        };
        // This reader's first-move check holds four slots.
        let head = match op.cross_check() {
            CrossCheck::FirstMove(slot) => {
                assert!(slot < 4);
                slot
            }
            _ => 4,
        };
        let set = matches!(op.order(), Order::Set);
        // The reader checks a set's order among moves only.
        assert!(!set || kind == MOVE || kind == NONE);
        let sequence = op.plays_in_sequence();
        t[op as usize] = Info { kind, min, max, set, sequence, head, lo, hi };
        i += 1;
    }
    t
};

/// The four position fields of a canonical line: the setup, the offset
/// just past them and the XOR of the pieces' Zobrist keys.
#[inline(always)]
fn fields<const HASH: bool>(line: &[u8], scratch: &mut Vec<u8>) -> Option<(Setup, usize, u64)> {
    let (board, mut p, pieces_hash) = canonical_placement::<HASH>(line)?;
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
    Some((Setup { board, turn, castling_rights, ep_square: None, halfmoves: 0, fullmoves: 1 }, p, pieces_hash))
}

/// What the fast path does with a line as it reads it: one reader, three
/// uses. [`Build`] fills the record (`Record::parse_into`); [`Judge`] only
/// gives the verdict, writing no slot and hashing nothing (the stream
/// verbs copy a line they accept as it stands, and need no more);
/// [`Hand`] hands the position and each operation and operand to a
/// [`RecordVisitor`] as they are read, with no slot written
/// (`Record::read_canonical`).
pub(super) trait Reading<'a> {
    /// Fill the record's fields and slots.
    const BUILD: bool;
    /// Compute the position's hash.
    const HASH: bool;
    /// The position, before any operation.
    #[inline(always)]
    fn position(&mut self, _pos: &Position) {}
    /// An operation begins.
    #[inline(always)]
    fn operation(&mut self, _op: Opcode) {}
    /// Operand `index` of the operation begun last, at `offset`.
    #[inline(always)]
    fn operand(&mut self, _index: usize, _offset: usize, _text: &'a [u8], _value: Value) {}
}

/// Builds the record.
pub(super) struct Build;

impl Reading<'_> for Build {
    const BUILD: bool = true;
    const HASH: bool = true;
}

/// Judges the line only.
pub(super) struct Judge;

impl Reading<'_> for Judge {
    const BUILD: bool = false;
    const HASH: bool = false;
}

/// Hands the line's fields to a visitor.
pub(super) struct Hand<'v, V>(pub(super) &'v mut V);

impl<'a, V: RecordVisitor<'a>> Reading<'a> for Hand<'_, V> {
    const BUILD: bool = false;
    const HASH: bool = true;
    #[inline(always)]
    fn position(&mut self, pos: &Position) {
        self.0.position(pos);
    }
    #[inline(always)]
    fn operation(&mut self, op: Opcode) {
        self.0.operation(Some(op), op.name().as_bytes());
    }
    #[inline(always)]
    fn operand(&mut self, index: usize, offset: usize, text: &'a [u8], value: Value) {
        self.0.operand(VisitedOperand { index, offset, text, value });
    }
}

/// Reads `line` the way `R` says (into `rec`, cleared, its buffer holding
/// a copy of `line`, when it builds) if the fast path can; `false` leaves
/// `rec` to be cleared again, and a visitor may have been handed a part of
/// the line.
pub(super) fn parse<'a, R: Reading<'a>>(rec: &mut Record, line: &'a [u8], r: &mut R) -> bool {
    if line.len() > MAX_SPEC_LINE {
        return false;
    }
    let read =
        if R::HASH { fields::<true>(line, &mut rec.scratch.san) } else { fields::<false>(line, &mut rec.scratch.san) };
    let Some((setup, mut p, pieces_hash)) = read else { return false };
    let Some(checkers) = setup.plain_checkers() else { return false };
    // Judging, the position serves only to check moves: no hash.
    let root = if R::HASH {
        Position::from_plain_setup::<true>(&setup, checkers, pieces_hash)
    } else {
        Position::from_plain_setup::<false>(&setup, checkers, pieces_hash)
    };
    r.position(&root);
    if R::BUILD {
        rec.setup = setup;
        rec.position = Some(root);
    }
    let n = line.len();
    let mut prev: Option<Opcode> = None;
    let a1 = Square::from_index(0);
    let mut memo = Memo { len: 0, slots: [(0, Move::normal(Role::Pawn, a1, a1)); 4] };
    // First moves of pm, pv, sm and sv, for the cross-checks.
    let mut heads: [Option<Move>; 4] = [None; 4];
    while p < n {
        if line[p] != b' ' {
            return false;
        }
        p += 1;
        let op_start = p;
        let Some((op, end)) = opcode_at(line, p) else { return false };
        p = end;
        // Strictly increasing: in canonical order, and no opcode twice.
        if prev.is_some_and(|q| q >= op) {
            return false;
        }
        prev = Some(op);
        let info = INFO[op as usize];
        let kind = info.kind;
        if kind == NONE {
            return false;
        }
        r.operation(op);
        let first = rec.operands.len();
        if info.max == 1 && kind != MOVE {
            // One string or integer (most operations): read straight,
            // with no operand loop. opcode_at stopped at a ' '.
            let start = p + 1;
            let (span, value, after) = if kind == QUOTED {
                let Some((content, end)) = quoted_at(line, start) else { return false };
                (content..end, Value::String, end + 1)
            } else {
                let Some((v, end)) = integer_at(line, start) else { return false };
                if v < info.lo || v > info.hi {
                    return false;
                }
                (start..end, Value::Integer(v), end)
            };
            if line.get(after) != Some(&b';') {
                return false;
            }
            p = after + 1;
            r.operand(0, span.start, &line[span.clone()], value);
            if R::BUILD {
                rec.operands.push(OperandSlot {
                    span: Span { start: span.start as u32, end: span.end as u32 },
                    offset: span.start as u32,
                    value,
                });
                rec.ops.push(OpSlot {
                    name: Name::Known(op),
                    offset: op_start as u32,
                    end: p as u32,
                    operands: Span { start: first as u32, end: first as u32 + 1 },
                });
            }
            continue;
        }
        // Operands read, the first one's move (for the cross-checks) and
        // the previous one's text (for the order of a set).
        let mut count = 0usize;
        let mut head: Option<Move> = None;
        let mut prev_text = 0..0;
        let sequence = info.sequence;
        // The position a sequence has reached (pv, sv); copied only for them.
        let mut seq = if sequence { Some(root) } else { None };
        loop {
            let Some(&b) = line.get(p) else { return false };
            p += 1;
            if b == b';' {
                break;
            }
            if b != b' ' {
                return false;
            }
            let start = p;
            let value = if kind == QUOTED {
                let Some((content, end)) = quoted_at(line, p) else { return false };
                p = end;
                r.operand(count, content, &line[content..p], Value::String);
                if R::BUILD {
                    rec.operands.push(OperandSlot {
                        span: Span { start: content as u32, end: p as u32 },
                        offset: content as u32,
                        value: Value::String,
                    });
                }
                count += 1;
                p += 1;
                continue;
            } else if kind == INTEGER {
                // Read up to the first byte that is not a digit; the
                // operand loop then wants ' ' or ';' there.
                let Some((v, end)) = integer_at(line, p) else { return false };
                p = end;
                if v < info.lo || v > info.hi {
                    return false;
                }
                Value::Integer(v)
            } else {
                // A move. Any byte but ' ' and ';': the SAN reader rejects
                // what it does not expect.
                let (end, key) = token_at(line, p);
                p = end;
                let text = &line[start..p];
                let at_root = !sequence || count == 0;
                let key = if at_root { key } else { None };
                let m = match key.and_then(|k| memo.get(k)) {
                    Some(m) => m,
                    None => {
                        let Some(m) = seq.as_ref().unwrap_or(&root).strict_fast(text) else { return false };
                        if let Some(k) = key {
                            memo.put(k, m);
                        }
                        m
                    }
                };
                // Played only if a move follows.
                if let (Some(pos), Some(b' ')) = (seq.as_mut(), line.get(p)) {
                    // strict_fast verified the check mark.
                    pos.play_unhashed_known(m, matches!(text.last(), Some(b'+' | b'#')));
                }
                // A set's operands in ASCII order.
                if info.set && count > 0 && line[prev_text.clone()] > *text {
                    return false;
                }
                prev_text = start..p;
                if count == 0 {
                    head = Some(m);
                }
                Value::Move(Some(m))
            };
            r.operand(count, start, &line[start..p], value);
            if R::BUILD {
                rec.operands.push(OperandSlot {
                    span: Span { start: start as u32, end: p as u32 },
                    offset: start as u32,
                    value,
                });
            }
            count += 1;
        }
        if count < usize::from(info.min) || count > usize::from(info.max) {
            return false;
        }
        if info.head < 4 {
            heads[usize::from(info.head)] = head;
        }
        if R::BUILD {
            rec.ops.push(OpSlot {
                name: Name::Known(op),
                offset: op_start as u32,
                end: p as u32,
                operands: Span { start: first as u32, end: rec.operands.len() as u32 },
            });
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path reads only what it checks: every opcode taking part
    /// in a cross-check it does not make is left to the general parser,
    /// and the catalog's first-move pairs are the slots it compares.
    #[test]
    fn the_fast_path_takes_its_opcodes_and_checks_from_the_catalog() {
        for op in Opcode::ALL {
            let info = INFO[op as usize];
            if op.cross_check() == CrossCheck::Other {
                assert_eq!(info.kind, NONE, "{}", op.name());
            }
            assert_eq!(info.sequence, op.plays_in_sequence(), "{}", op.name());
            let readable = matches!(op.operand_type(0), OperandType::Integer | OperandType::Move | OperandType::String);
            assert_eq!(info.kind != NONE, readable && op.cross_check() != CrossCheck::Other, "{}", op.name());
        }
        for (i, (a, b)) in crate::opcode::FIRST_MOVE_PAIRS.iter().enumerate() {
            assert_eq!((INFO[*a as usize].head, INFO[*b as usize].head), (2 * i as u8, 2 * i as u8 + 1));
        }
        // Records the general parser reads clean, with an operation under
        // another cross-check: the fast path declines each.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        for ops in ["draw_offer; sm e4;", "draw_claim; sm e4;", "draw_accept;", "draw_reject;", "resign;"] {
            let line = format!("{start} {ops}");
            let (_, diags) = Record::parse(line.as_bytes(), crate::ParseMode::Strict);
            assert!(diags.is_empty(), "{line}: {diags:?}");
            let mut rec = Record::default();
            assert!(!parse(&mut rec, line.as_bytes(), &mut Judge), "{line}");
        }
    }

    /// The word-at-a-time scan stops exactly where a byte-by-byte one does,
    /// for every stop byte at every offset.
    #[test]
    fn string_end_stops_at_the_first_byte_a_string_cannot_hold() {
        let naive = |line: &[u8], p: usize| {
            line[p..].iter().position(|&b| BYTES[usize::from(b)] & STRING == 0).map_or(line.len(), |i| p + i)
        };
        for len in 0..40 {
            let plain: Vec<u8> =
                (0..len).map(|i| b' ' + (i * 7 % 95) as u8).filter(|&b| b != b'"' && b != b'\\').collect();
            for start in 0..plain.len().min(3) {
                assert_eq!(string_end(&plain, start), naive(&plain, start), "{plain:?}");
            }
            for at in 0..plain.len() {
                for stop in [b'"', b'\\', 0, 0x1f, 0x7f, 0x80, 0xff, b'\n'] {
                    let mut line = plain.clone();
                    line[at] = stop;
                    for start in 0..=at.min(9) {
                        assert_eq!(string_end(&line, start), at, "{line:?} from {start}");
                    }
                }
            }
        }
    }

    /// Every offset of every short line, in the middle, near the end (the
    /// shifted last word) and past it.
    #[test]
    fn word_at_reads_eight_bytes_zero_padded() {
        let text: Vec<u8> = (1..=24u8).map(|i| i * 7).collect();
        for len in 0..text.len() {
            let line = &text[..len];
            for p in 0..len + 3 {
                let mut want = [0u8; 8];
                for (i, w) in want.iter_mut().enumerate() {
                    *w = line.get(p + i).copied().unwrap_or(0);
                }
                assert_eq!(word_at(line, p), u64::from_le_bytes(want), "len {len}, p {p}");
            }
        }
    }

    #[test]
    fn integers_read_as_the_general_parser_reads_canonical_ones() {
        for text in [
            "12345678",
            "-12345678",
            "1234567",
            "123456789",
            "9999999999",
            "3516662676",
            "100000000",
            "999999999999999999",
            "12345678a",
            "1234567/",
            "1234567:",
            "0",
            "7",
            "-7",
            "10",
            "-32768",
            "32766",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "-0",
            "00",
            "007",
            "-07",
            "+5",
            "-",
            "",
            "5a",
            "-x",
            "9223372036854775807",
        ] {
            let want = super::super::canonical_integer(text.as_bytes()).map(|v| (v, text.len()));
            // At the end of a line and with a line that goes on.
            for rest in [&b";"[..], b"; acd 1; acn 123456789;", b" 12345678901234567890"] {
                let mut line = text.as_bytes().to_vec();
                line.extend_from_slice(rest);
                // A text with bytes after its digits stops there; the caller
                // then finds no ' ' or ';' and gives up, as canonical_integer
                // does by refusing the whole text.
                let got = integer_at(&line, 0).filter(|&(_, end)| end == text.len());
                assert_eq!(got, want, "{text:?} then {rest:?}");
            }
        }
    }

    #[test]
    fn opcode_table_finds_each_short_opcode_and_nothing_else() {
        for op in Opcode::ALL {
            let name = op.name().as_bytes();
            for end in [b' ', b';'] {
                let mut line = name.to_vec();
                line.push(end);
                line.extend_from_slice(b"acd 1;");
                let found = opcode_at(&line, 0);
                // An opcode ended by ';' (no operands) is left to the
                // general parser.
                let want = (name.len() < 8 && end == b' ').then_some((op, name.len()));
                assert_eq!(found, want, "{}", op.name());
                let mut shifted = b"x ".to_vec();
                shifted.extend_from_slice(&line);
                assert_eq!(opcode_at(&shifted, 2), want.map(|(o, e)| (o, e + 2)), "{}", op.name());
                // Not ended, or ended after a NUL or one more character.
                assert_eq!(opcode_at(name, 0), None, "{}", op.name());
                for extra in [0u8, b'x', b'_', b'9'] {
                    let mut longer = name.to_vec();
                    longer.push(extra);
                    longer.push(end);
                    assert_eq!(opcode_at(&longer, 0), None, "{} + {extra:#x}", op.name());
                }
            }
        }
        for text in [&b""[..], b" ", b";", b"BM ", b"b m;", b"b", b"\0\0 ", b"pv;"] {
            assert_eq!(opcode_at(text, 0), None, "{text:?}");
        }
    }
}
