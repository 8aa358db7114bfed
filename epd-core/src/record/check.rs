//! The operand checks of §5 and §6: one operation's operands typed by its
//! opcode and checked against the catalog (count, basetype, range,
//! enumerated values, legal moves, string content). The reader runs them
//! on the operands of a line, and every edit on the operands it is given,
//! so that the two accept the same operands and refuse the others with
//! the same codes.

use super::encode::itoa;
use super::model::{OperandSlot, Span, Token, Value, MAX_STRING};
use super::parse::Parser;
use crate::diag::{Code, Severity};
use crate::opcode::{Arity, OperandType, Order, REFCOM_COMMANDS, REFREQ_REQUESTS};
use crate::operand::{is_float, is_identifier, parse_integer, Clock, Date, IntegerError, TimeOfDay};
use crate::{Move, Opcode, Position, SanError, SanMode};

impl Parser<'_, '_> {
    /// Types and checks the operands of one operation, appending them to
    /// the record's operands: verbatim for unknown opcodes and `noop`, by
    /// the catalog for the others. What is wrong is reported.
    pub(super) fn check_operands(&mut self, known: Option<Opcode>, name: &[u8], tokens: &[Token]) {
        match known {
            None | Some(Opcode::Noop) => {
                let opname = String::from_utf8_lossy(name).into_owned();
                self.raw_operands(&opname, tokens);
            }
            Some(op) => self.typed_operands(op, op.name(), tokens),
        }
    }

    /// The span of a token's text as it stands, in the record's arena.
    #[inline(always)]
    fn written(&self, t: &Token) -> Span {
        Span { start: t.start as u32 + self.shift, end: t.end as u32 + self.shift }
    }

    /// The operands of an unknown opcode or `noop`, kept as written.
    fn raw_operands(&mut self, opname: &str, tokens: &[Token]) {
        for (i, t) in tokens.iter().enumerate() {
            if let Some(m) = t.given.and_then(|g| g.mv) {
                // An edit's move: its SAN in the record's position, kept as
                // the reader keeps any word.
                if let Some(pos) = self.given_move(self.rec.position, m, t, opname, i) {
                    let mut san = core::mem::take(&mut self.san);
                    san.clear();
                    pos.append_san(m, &mut san);
                    let span = self.rec.push_text(&san);
                    self.san = san;
                    let value = Value::Raw { quoted: false };
                    self.rec.operands.push(OperandSlot { span, offset: t.start as u32, value });
                }
                continue;
            }
            self.check_raw_string(t, opname, i);
            if t.given.is_some() && !t.quoted && !one_word(&self.line[t.start..t.end]) {
                // An edit's word that would not read back as one operand
                // (the reader's words are so by construction).
                self.operand_error(
                    Code::OperandType,
                    t.start,
                    opname,
                    i,
                    format!(
                        "{opname} operand {} must be one word, without blanks or ';' and not starting with '\"'",
                        i + 1
                    ),
                );
            }
            let span = self.token_text(t);
            self.rec.operands.push(OperandSlot {
                span,
                offset: t.start as u32,
                value: Value::Raw { quoted: t.quoted },
            });
        }
    }

    /// An edit's move `m` for operand `i`: the position it is played in if
    /// it is legal there. Reports and returns `None` when it is not, or
    /// when the record has no position (`pos` is `None` then, or after an
    /// earlier move of a sequence that failed, already reported).
    fn given_move(&mut self, pos: Option<Position>, m: Move, t: &Token, opname: &str, i: usize) -> Option<Position> {
        match pos {
            Some(pos) if pos.is_legal(m) => Some(pos),
            Some(pos) => {
                self.operand_error(
                    Code::IllegalMove,
                    t.start,
                    opname,
                    i,
                    format!("{opname} operand {} ({}) is not a legal move", i + 1, pos.uci(m)),
                );
                None
            }
            None if self.rec.position.is_none() => {
                self.operand_error(
                    Code::IllegalPosition,
                    t.start,
                    opname,
                    i,
                    format!("{opname} operand {}: the record's position is not legal, so no move is", i + 1),
                );
                None
            }
            None => None,
        }
    }

    /// An operand kept verbatim (unknown opcodes, noop, draw_*) may not
    /// hold a control byte: the line-wide check guesses from the quotes
    /// before a byte whether a string check will see it, a guess glued
    /// lenient strings (`""""`) defeat, and a canonical form holding one
    /// would not read back (found by the `record` and `capi` fuzz
    /// targets).
    fn check_raw_string(&mut self, t: &Token, opname: &str, i: usize) {
        if let Some(&b) = self.line[t.start..t.end].iter().find(|&&b| b < 0x20 || b == 0x7f) {
            self.operand_error(Code::ControlByte, t.start, opname, i, format!("control byte 0x{b:02x} in an operand"));
        }
    }

    /// Copies a token's text to the arena, unescaping strings.
    fn token_text(&mut self, t: &Token) -> Span {
        let raw = &self.line[t.start..t.end];
        if !t.escaped {
            return self.written(t);
        }
        let start = self.rec.buf.len() as u32;
        let mut i = 0;
        while i < raw.len() {
            // Only the two escapes the lexer took as such: a lone
            // backslash stays.
            if raw[i] == b'\\' && i + 1 < raw.len() && (raw[i + 1] == b'"' || raw[i + 1] == b'\\') {
                i += 1;
            }
            self.rec.buf.push(raw[i]);
            i += 1;
        }
        Span { start, end: self.rec.buf.len() as u32 }
    }

    fn typed_operands(&mut self, op: Opcode, opname: &str, tokens: &[Token]) {
        let line = self.line;
        let first_operand = self.rec.operands.len();
        // Lenient: a check mark written apart from its move (`Qd1 +`).
        let mut filtered: Vec<Token> = Vec::new();
        let moves = op.operand_type(0) == OperandType::Move;
        let mark = |t: &Token| !t.quoted && t.given.is_none() && matches!(&line[t.start..t.end], b"+" | b"#" | b"++");
        let marks = moves && tokens.iter().any(mark);
        if marks {
            filtered = core::mem::take(&mut self.rec.scratch.typed);
            filtered.clear();
            for t in tokens {
                let detached = mark(t) && filtered.last().is_some_and(|l| !l.quoted);
                if detached {
                    self.deviation(
                        Code::DetachedCheckMark,
                        t.start,
                        Some(opname),
                        Some(filtered.len() - 1),
                        "check mark separated from its move by a space".into(),
                    );
                    // Reported once: the mark is not read as a move of its own.
                    continue;
                }
                filtered.push(*t);
            }
        }
        let toks: &[Token] = if marks { &filtered } else { tokens };
        let n = toks.len();
        if !op.arity().accepts(n) {
            let want = match op.arity() {
                Arity::Exactly(0) => "no operands".to_string(),
                Arity::Exactly(1) => "exactly one operand".to_string(),
                Arity::Exactly(k) => format!("exactly {k} operands"),
                Arity::Optional => "at most one operand".to_string(),
                Arity::Pairs => "an even number of operands (name and value pairs)".to_string(),
                Arity::Any => String::new(),
            };
            let off = toks.first().map_or(0, |t| t.start);
            self.diag(Severity::Error, Code::Arity, off, Some(opname), None, format!("{opname} takes {want}, not {n}"));
        }
        // Moves: sequence opcodes play each move in turn.
        let mut seq_pos = if moves { self.rec.position } else { None };
        let is_sequence = op.plays_in_sequence();
        for (i, t) in toks.iter().enumerate() {
            let text = &line[t.start..t.end];
            let want = op.operand_type(i);
            if t.given.is_some_and(|g| g.kind != want && want != OperandType::Any) {
                // An edit's operand of another basetype than the opcode's.
                self.operand_error(
                    Code::OperandType,
                    t.start,
                    opname,
                    i,
                    format!("{opname} operand {} must be {want}", i + 1),
                );
                let span = self.written(t);
                self.rec.operands.push(OperandSlot {
                    span,
                    offset: t.start as u32,
                    value: Value::Raw { quoted: t.quoted },
                });
                continue;
            }
            let value: Value = match want {
                OperandType::Move => {
                    if t.quoted {
                        self.operand_error(
                            Code::OperandType,
                            t.start,
                            opname,
                            i,
                            format!("{opname} operand {} must be a move, not a string", i + 1),
                        );
                        Value::Move(None)
                    } else if let Some(m) = t.given.and_then(|g| g.mv) {
                        // An edit's move: legal in the position the
                        // sequence has reached, written in canonical SAN.
                        match self.given_move(seq_pos, m, t, opname, i) {
                            Some(pos) => {
                                let mut san = core::mem::take(&mut self.san);
                                san.clear();
                                pos.append_san(m, &mut san);
                                let span = self.rec.push_text(&san);
                                self.san = san;
                                if let (true, Some(pos)) = (is_sequence, seq_pos.as_mut()) {
                                    pos.play_unhashed(m);
                                }
                                let value = Value::Move(Some(m));
                                self.rec.operands.push(OperandSlot { span, offset: t.start as u32, value });
                                continue;
                            }
                            None => {
                                if is_sequence {
                                    seq_pos = None;
                                }
                                Value::Move(None)
                            }
                        }
                    } else if let Some(mate) = mate_notation(text) {
                        self.operand_error(
                            Code::MateNotation,
                            t.start,
                            opname,
                            i,
                            format!(
                                "{} is mate notation, not a move (a mate in {mate} is written dm {mate})",
                                String::from_utf8_lossy(text)
                            ),
                        );
                        Value::Move(None)
                    } else if let Some(pos) = seq_pos.as_mut() {
                        // Strict: canonical SAN is accepted as written,
                        // checked part by part without encoding it.
                        let fast = if self.lenient() { None } else { pos.strict_fast(text) };
                        let found = match fast {
                            Some(m) => Some((m, true)),
                            None => {
                                let mut san = core::mem::take(&mut self.san);
                                let found = self.move_operand(pos, text, opname, i, t.start, &mut san);
                                self.san = san;
                                found.map(|m| (m, false))
                            }
                        };
                        match found {
                            Some((m, as_written)) => {
                                if is_sequence {
                                    // Only the moves that follow are read
                                    // in this position, never its hash.
                                    pos.play_unhashed(m);
                                }
                                let span = if as_written { self.written(t) } else { self.rec.push_text(&self.san) };
                                self.rec.operands.push(OperandSlot {
                                    span,
                                    offset: t.start as u32,
                                    value: Value::Move(Some(m)),
                                });
                                continue;
                            }
                            None => {
                                if is_sequence {
                                    seq_pos = None;
                                }
                                Value::Move(None)
                            }
                        }
                    } else {
                        // Position illegal, or an earlier pv move failed:
                        // already reported.
                        Value::Move(None)
                    }
                }
                OperandType::Integer => {
                    if t.quoted {
                        self.operand_error(
                            Code::OperandType,
                            t.start,
                            opname,
                            i,
                            format!("{opname} operand {} must be an integer, not a string", i + 1),
                        );
                        Value::Raw { quoted: true }
                    } else {
                        let fast = canonical_integer(text);
                        match fast.map_or_else(|| parse_integer(text), Ok) {
                            Ok(v) => {
                                if let Some((lo, hi)) = op.integer_range() {
                                    if !(lo..=hi).contains(&v) {
                                        let range = if hi == i64::MAX {
                                            format!("at least {lo}")
                                        } else {
                                            format!("from {lo} to {hi}")
                                        };
                                        self.operand_error(
                                            Code::OutOfRange,
                                            t.start,
                                            opname,
                                            i,
                                            format!("{opname} {v} is out of range: expected {range}"),
                                        );
                                    }
                                }
                                let span = if fast.is_some() || is_canonical_integer(text) {
                                    self.written(t)
                                } else {
                                    self.canonical = false;
                                    self.rec.push_text(itoa(v, &mut self.san))
                                };
                                self.rec.operands.push(OperandSlot {
                                    span,
                                    offset: t.start as u32,
                                    value: Value::Integer(v),
                                });
                                continue;
                            }
                            Err(IntegerError::Overflow) => {
                                self.operand_error(
                                    Code::OutOfRange,
                                    t.start,
                                    opname,
                                    i,
                                    format!("{opname} operand {} is beyond the 64-bit integer range", i + 1),
                                );
                                Value::Raw { quoted: false }
                            }
                            Err(IntegerError::Syntax) => {
                                self.operand_error(
                                    Code::OperandType,
                                    t.start,
                                    opname,
                                    i,
                                    format!(
                                        "{opname} operand {} must be an integer, not {:?}",
                                        i + 1,
                                        String::from_utf8_lossy(text)
                                    ),
                                );
                                Value::Raw { quoted: false }
                            }
                        }
                    }
                }
                OperandType::String => {
                    if !t.quoted {
                        self.deviation(
                            Code::UnquotedString,
                            t.start,
                            Some(opname),
                            Some(i),
                            format!(
                                "{opname} operand {} is a string and must be quoted: \"{}\"",
                                i + 1,
                                String::from_utf8_lossy(text)
                            ),
                        );
                    }
                    if t.escaped {
                        // EPD Kit writes such strings itself: a remark, in
                        // either mode, so canonical output reads back.
                        self.operand_diag(
                            Severity::Warning,
                            Code::Escape,
                            t.start,
                            opname,
                            i,
                            "backslash escape inside a string (an EPD Kit extension)".into(),
                        );
                    }
                    let span = self.token_text(t);
                    let span = self.check_string(span, t.start, opname, i);
                    self.rec.operands.push(OperandSlot { span, offset: t.start as u32, value: Value::String });
                    continue;
                }
                OperandType::Identifier => {
                    if t.quoted || !is_identifier(text) {
                        self.fixed_format(None, t, opname, i, "an identifier (1-15 letters, digits or '_')")
                    } else {
                        let allowed: &[&str] = match op {
                            Opcode::Refcom => &REFCOM_COMMANDS,
                            Opcode::Refreq => &REFREQ_REQUESTS,
                            _ => &[],
                        };
                        if !allowed.is_empty() && !allowed.iter().any(|a| a.as_bytes() == text) {
                            self.operand_error(
                                Code::EnumeratedOperand,
                                t.start,
                                opname,
                                i,
                                format!(
                                    "{opname} {} is not one of: {}",
                                    String::from_utf8_lossy(text),
                                    allowed.join(", ")
                                ),
                            );
                        }
                        Value::Identifier
                    }
                }
                OperandType::Date => {
                    self.fixed_format(Date::from_ascii(text).map(Value::Date), t, opname, i, "a date YYYY.MM.DD")
                }
                OperandType::TimeOfDay => self.fixed_format(
                    TimeOfDay::from_ascii(text).map(Value::TimeOfDay),
                    t,
                    opname,
                    i,
                    "a time of day HH:MM:SS",
                ),
                OperandType::Clock => {
                    self.fixed_format(Clock::from_ascii(text).map(Value::Clock), t, opname, i, "a clock DDD:HH:MM:SS")
                }
                OperandType::Float => {
                    let value = is_float(text).then(|| {
                        Value::Float(core::str::from_utf8(text).ok().and_then(|s| s.parse().ok()).unwrap_or(0.0))
                    });
                    self.fixed_format(value, t, opname, i, "a floating point number")
                }
                OperandType::Any => {
                    self.check_raw_string(t, opname, i);
                    Value::Raw { quoted: t.quoted }
                }
            };
            let span = self.token_text(t);
            self.rec.operands.push(OperandSlot { span, offset: t.start as u32, value });
        }
        if self.canonical && op.order() == Order::Set {
            let slots = &self.rec.operands[first_operand..];
            if slots.windows(2).any(|w| self.rec.buf[w[0].span.range()] > self.rec.buf[w[1].span.range()]) {
                self.canonical = false;
            }
        }
        if marks {
            self.rec.scratch.typed = filtered;
        }
    }

    /// An operand of a fixed-format basetype: its value if unquoted and
    /// well formed, else a diagnostic and the raw text.
    fn fixed_format(&mut self, value: Option<Value>, t: &Token, opname: &str, i: usize, what: &str) -> Value {
        match value {
            Some(v) if !t.quoted => v,
            _ => {
                self.operand_error(
                    Code::OperandType,
                    t.start,
                    opname,
                    i,
                    format!("{opname} operand {} must be {what}", i + 1),
                );
                Value::Raw { quoted: t.quoted }
            }
        }
    }

    /// Checks a string operand; returns the span to store (a converted
    /// copy for Latin-1 text in lenient mode).
    fn check_string(&mut self, span: Span, offset: usize, opname: &str, i: usize) -> Span {
        let len = span.range().len();
        if len >= MAX_STRING {
            self.deviation(
                Code::StringTooLong,
                offset,
                Some(opname),
                Some(i),
                format!("string of {len} bytes: the limit is 255"),
            );
        }
        let text = &self.rec.buf[span.range()];
        let control = if self.printing { None } else { text.iter().position(|&b| b < 0x20 || b == 0x7f) };
        if let Some(j) = control {
            let b = text[j];
            self.operand_error(Code::ControlByte, offset, opname, i, format!("control byte 0x{b:02x} inside a string"));
        } else if !text.is_ascii() && core::str::from_utf8(text).is_err() {
            if self.lenient() {
                // Read as Latin-1 and store as UTF-8.
                let converted: String = text.iter().map(|&b| b as char).collect();
                let start = self.rec.buf.len() as u32;
                self.rec.buf.extend_from_slice(converted.as_bytes());
                let new = Span { start, end: self.rec.buf.len() as u32 };
                self.operand_diag(
                    Severity::Warning,
                    Code::NotUtf8,
                    offset,
                    opname,
                    i,
                    "string is not UTF-8; read as Latin-1 and converted".into(),
                );
                return new;
            }
            self.operand_error(Code::NotUtf8, offset, opname, i, "string is not valid UTF-8 (Latin-1?)".into());
        }
        span
    }

    /// Reads a move operand in `pos`; writes its canonical SAN into
    /// `san` and returns the move with the position after it. Reports and
    /// returns `None` when it is not a legal move.
    fn move_operand(
        &mut self,
        pos: &Position,
        text: &[u8],
        opname: &str,
        i: usize,
        offset: usize,
        san: &mut Vec<u8>,
    ) -> Option<Move> {
        let san_mode = if self.lenient() { SanMode::Lenient } else { SanMode::Strict };
        match pos.decode_san(text, san_mode, san) {
            Ok(m) => {
                if san.as_slice() != text {
                    let code = if looks_like_coordinate(text) { Code::CoordinateMove } else { Code::NonCanonicalSan };
                    self.diag(
                        Severity::Warning,
                        code,
                        offset,
                        Some(opname),
                        Some(i),
                        format!("{} read as {}", String::from_utf8_lossy(text), String::from_utf8_lossy(san)),
                    );
                }
                Some(m)
            }
            Err(SanError::NotCanonical { canonical }) => {
                self.operand_error(
                    Code::NonCanonicalSan,
                    offset,
                    opname,
                    i,
                    format!("{opname} operand {} is not canonical SAN: expected {canonical}", i + 1),
                );
                None
            }
            Err(e) => {
                let code = if !self.lenient() && looks_like_coordinate(text) {
                    Code::CoordinateMove
                } else {
                    Code::IllegalMove
                };
                self.diag(
                    Severity::Error,
                    code,
                    offset,
                    Some(opname),
                    Some(i),
                    format!("{opname} operand {} ({}): {e}", i + 1, String::from_utf8_lossy(text)),
                );
                None
            }
        }
    }
}

/// `true` if `text`, written unquoted, reads back as one operand: not
/// empty, no blank or ';', and no '"' to open a string.
fn one_word(text: &[u8]) -> bool {
    !text.is_empty() && text[0] != b'"' && !text.iter().any(|&b| matches!(b, b' ' | b';'))
}

/// `true` if `text` is an integer as the encoder writes it: no `+`, no
/// leading zeros, no `-0`.
fn is_canonical_integer(text: &[u8]) -> bool {
    let digits = match text {
        [b'-', rest @ ..] => {
            if rest == b"0" {
                return false;
            }
            rest
        }
        t => t,
    };
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && (digits.len() == 1 || digits[0] != b'0')
}

/// The value of an integer written as the encoder writes it (see
/// [`is_canonical_integer`]) with at most 18 digits, so that it cannot
/// overflow; `None` for anything else.
pub(super) fn canonical_integer(text: &[u8]) -> Option<i64> {
    let (neg, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 || (digits[0] == b'0' && (digits.len() > 1 || neg)) {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        let x = d.wrapping_sub(b'0');
        if x > 9 {
            return None;
        }
        v = v * 10 + i64::from(x);
    }
    Some(if neg { -v } else { v })
}

/// `#3` or `#-3` in place of a move: the mate distance.
pub(super) fn mate_notation(text: &[u8]) -> Option<i64> {
    match text {
        [b'#', rest @ ..] if !rest.is_empty() => parse_integer(rest).ok(),
        _ => None,
    }
}

fn looks_like_coordinate(text: &[u8]) -> bool {
    let t: Vec<u8> = text.iter().copied().filter(|&b| b != b'-' && b != b'x').collect();
    t.len() >= 4
        && (b'a'..=b'h').contains(&t[0])
        && t[1].is_ascii_digit()
        && (b'a'..=b'h').contains(&t[2])
        && t[3].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_integer_reads_only_the_encoders_spelling() {
        for (text, want) in [
            (&b"0"[..], Some(0)),
            (b"7", Some(7)),
            (b"-7", Some(-7)),
            (b"32766", Some(32766)),
            (b"-32768", Some(-32768)),
            (b"123456789012345678", Some(123_456_789_012_345_678)),
            // 19 digits could overflow: left to the general parser.
            (b"1234567890123456789", None),
            (b"-0", None),
            (b"007", None),
            (b"-07", None),
            (b"+7", None),
            (b"", None),
            (b"-", None),
            (b"7a", None),
            (b"1.5", None),
        ] {
            assert_eq!(canonical_integer(text), want, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
