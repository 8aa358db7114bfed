//! Editing a record: setting and removing operations under the reader's
//! rules. An edit's operands go through the reader's operand checks, as
//! the text the reader would meet in the record's canonical encoding, and
//! the record it leaves through the reader's cross-checks; an edit the
//! reader would find wrong is refused with the code the reader gives, and
//! leaves the record as it was. So a record built by edits from a valid
//! one always reads back, strictly, as itself.

use super::cross::{self, Finding};
use super::encode::itoa;
use super::model::{Given, Name, OpSlot, Record, Span, Token};
use super::parse::Parser;
use crate::diag::{Code, Diagnostic, Severity};
use crate::opcode::{is_valid_opcode, CrossCheck, OperandType};
use crate::operand::{Clock, Date, TimeOfDay};
use crate::{Move, Opcode};
use core::fmt;
use std::io::Write as _;

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

/// Why an edit ([`Record::set`], [`Record::try_remove`]) was refused: the
/// diagnostic the reader would give the record the edit would leave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetError {
    /// What was wrong.
    pub message: String,
    code: Code,
}

impl SetError {
    /// The reader's code for what was wrong (E012 for a pm that is not the
    /// first move of pv, say).
    #[must_use]
    pub fn code(&self) -> Code {
        self.code
    }
}

impl From<&Diagnostic> for SetError {
    fn from(d: &Diagnostic) -> SetError {
        SetError { message: d.message.clone(), code: d.code }
    }
}

impl From<Finding> for SetError {
    fn from(f: Finding) -> SetError {
        SetError { message: f.message, code: f.code }
    }
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SetError {}

impl Record {
    /// Removes every operation with this opcode; returns how many. A
    /// removal the reader would find wrong (sm while a draw_offer or
    /// draw_claim needs it) removes nothing and returns 0:
    /// [`Record::try_remove`] says why.
    pub fn remove(&mut self, opcode: &str) -> usize {
        self.try_remove(opcode).unwrap_or(0)
    }

    /// Removes every operation with this opcode; returns how many.
    ///
    /// # Errors
    /// [`SetError`] when the record left would break a cross-check it did
    /// not break before (E024: sm removed while a draw_offer or draw_claim
    /// needs it); the record is then unchanged.
    pub fn try_remove(&mut self, opcode: &str) -> Result<usize, SetError> {
        if self.find(opcode).is_none() {
            self.source_canonical = false;
            return Ok(0);
        }
        let before = self.cross_checked(opcode).then(|| (cross::findings(self), self.ops.clone()));
        let removed = self.drop_ops(opcode);
        if let Some((findings, ops)) = before {
            if let Some(f) = new_finding(self, &findings, &[]) {
                self.ops = ops;
                return Err(f.into());
            }
        }
        self.source_canonical = false;
        Ok(removed)
    }

    /// Sets an operation, replacing any with the same opcode. The operands
    /// go through the reader's checks for the opcode (for known opcodes:
    /// count, basetype, range, enumerated values, legal moves, strings the
    /// encoding can hold; for others: text that reads back as written);
    /// moves are written in canonical SAN. Then the record must pass the
    /// reader's cross-checks it passed before (pm the first move of pv, sm
    /// of sv, draw_offer and draw_claim with sm, no two opcodes that
    /// exclude each other).
    ///
    /// # Errors
    /// [`SetError`], with the reader's code, for an invalid opcode, wrong
    /// operand count or type, an out-of-range integer, a string the
    /// encoding cannot hold, an illegal move, or a broken cross-check; the
    /// record is then unchanged.
    pub fn set(&mut self, opcode: &str, operands: &[OperandInput<'_>]) -> Result<(), SetError> {
        self.set_allowing(opcode, operands, &[])
    }

    /// [`Record::set`], but a cross-check whose code is in `allowed` does
    /// not refuse the edit: for a protocol that knowingly relaxes a rule
    /// between operations and reads its records the same way (the
    /// referee's draw_claim without sm, §8). The operand checks are never
    /// relaxed.
    ///
    /// # Errors
    /// As [`Record::set`].
    pub fn set_allowing(
        &mut self,
        opcode: &str,
        operands: &[OperandInput<'_>],
        allowed: &[Code],
    ) -> Result<(), SetError> {
        if !is_valid_opcode(opcode.as_bytes()) {
            return Err(SetError {
                message: format!(
                    "{opcode:?} is not an opcode: expected a letter, then up to 14 letters, digits or '_'"
                ),
                code: Code::BadOpcode,
            });
        }
        let known = Opcode::from_name(opcode.as_bytes());
        let (text, tokens) = lexemes(operands);
        // Checked where the reader checks them: as text in the arena.
        let (buf_len, first) = (self.buf.len(), self.operands.len());
        self.buf.extend_from_slice(&text);
        let mut diags = Vec::new();
        let mut p = Parser::for_edit(&text, self, &mut diags);
        p.check_operands(known, opcode.as_bytes(), &tokens);
        p.finish();
        if let Some(d) = diags.iter().find(|d| d.severity == Severity::Error) {
            self.buf.truncate(buf_len);
            self.operands.truncate(first);
            return Err(d.into());
        }
        // Not read from a line: no offsets.
        for slot in &mut self.operands[first..] {
            slot.offset = 0;
        }
        let operands = Span { start: first as u32, end: self.operands.len() as u32 };
        let name = match known {
            Some(op) => Name::Known(op),
            None => Name::Other(self.push_text(opcode.as_bytes())),
        };
        let before = self.cross_checked(opcode).then(|| (cross::findings(self), self.ops.clone()));
        self.drop_ops(opcode);
        self.ops.push(OpSlot { name, offset: 0, end: 0, operands });
        if let Some((findings, ops)) = before {
            if let Some(f) = new_finding(self, &findings, allowed) {
                self.ops = ops;
                self.buf.truncate(buf_len);
                self.operands.truncate(first);
                return Err(f.into());
            }
        }
        self.source_canonical = false;
        Ok(())
    }

    /// `true` if an edit of `opcode` can change what the cross-checks find
    /// (an edit replaces every operation of its opcode, so it never makes
    /// one appear twice).
    fn cross_checked(&self, opcode: &str) -> bool {
        Opcode::from_name(opcode.as_bytes()).is_some_and(|op| op.cross_check() != CrossCheck::None)
    }

    /// Drops every operation with this opcode; how many.
    fn drop_ops(&mut self, opcode: &str) -> usize {
        let before = self.ops.len();
        let buf = &self.buf;
        self.ops.retain(|o| {
            let n = match o.name {
                Name::Known(op) => op.name().as_bytes(),
                Name::Other(span) => &buf[span.range()],
            };
            n != opcode.as_bytes()
        });
        before - self.ops.len()
    }
}

/// The first cross-check `rec` fails that it did not fail `before` (and
/// whose code is not `allowed`).
fn new_finding(rec: &Record, before: &[Finding], allowed: &[Code]) -> Option<Finding> {
    cross::findings(rec).into_iter().find(|f| !allowed.contains(&f.code) && !before.iter().any(|b| b.same(f)))
}

/// An edit's operands as the reader meets them: their texts one after the
/// other (a string's content unquoted, no text for a move), and a token
/// for each saying where its text is and what the edit gave.
fn lexemes(operands: &[OperandInput<'_>]) -> (Vec<u8>, Vec<Token>) {
    let mut text = Vec::new();
    let mut tokens = Vec::with_capacity(operands.len());
    let mut digits = Vec::new();
    for input in operands {
        let start = text.len();
        let (kind, quoted, mv) = match *input {
            OperandInput::Identifier(s) => {
                text.extend_from_slice(s.as_bytes());
                (OperandType::Identifier, false, None)
            }
            OperandInput::Move(m) => (OperandType::Move, false, Some(m)),
            OperandInput::Integer(v) => {
                text.extend_from_slice(itoa(v, &mut digits));
                (OperandType::Integer, false, None)
            }
            // Writing to a Vec cannot fail.
            OperandInput::Date(d) => {
                let _ = write!(text, "{d}");
                (OperandType::Date, false, None)
            }
            OperandInput::TimeOfDay(t) => {
                let _ = write!(text, "{t}");
                (OperandType::TimeOfDay, false, None)
            }
            OperandInput::Clock(c) => {
                let _ = write!(text, "{c}");
                (OperandType::Clock, false, None)
            }
            OperandInput::String(s) => {
                text.extend_from_slice(s);
                (OperandType::String, true, None)
            }
            OperandInput::Raw(s) => {
                text.extend_from_slice(s);
                (OperandType::Any, false, None)
            }
        };
        let given = Some(Given { kind, mv });
        tokens.push(Token { start, end: text.len(), quoted, escaped: false, given });
    }
    (text, tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Order;
    use crate::{has_errors, ParseMode, Position, Role, SanMode, Square, Value};

    const WAC1: &str = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";";

    fn strict(line: &str) -> Record {
        let (rec, diags) = Record::parse(line.as_bytes(), ParseMode::Strict);
        assert!(diags.is_empty(), "{line}: {diags:?}");
        rec
    }

    fn san(rec: &Record, text: &str) -> OperandInput<'static> {
        OperandInput::Move(rec.position().unwrap().parse_san(text.as_bytes(), SanMode::Strict).unwrap())
    }

    /// The first error the reader gives `line`.
    fn reader_code(line: &str) -> Code {
        let (_, diags) = Record::parse(line.as_bytes(), ParseMode::Strict);
        diags.iter().find(|d| d.severity == Severity::Error).map(|d| d.code).unwrap()
    }

    #[test]
    fn set_refuses_refcom_and_refreq_values_the_reader_refuses() {
        let mut rec = Record::from_position(&Position::startpos());
        for (op, good, bad) in [("refcom", "respond", "responds"), ("refreq", "sign_on", "sign_in")] {
            assert!(rec.set(op, &[OperandInput::Identifier(good)]).is_ok());
            let e = rec.set(op, &[OperandInput::Identifier(bad)]).unwrap_err();
            assert!(e.message.contains("is not one of"), "{}", e.message);
            assert_eq!(e.code(), Code::EnumeratedOperand);
            // What set writes reads back without a diagnostic.
            let (_, diags) = Record::parse(&rec.to_canonical(), ParseMode::Strict);
            assert!(diags.is_empty(), "{diags:?}");
        }
    }

    /// Issue 33: `set pm e4` then `set pv d4` left a record whose
    /// canonical text did not read back. The second edit is refused with
    /// the reader's code for that text, and the record is as it was.
    #[test]
    fn set_pm_e4_then_pv_d4_is_refused_as_the_reader_refuses_it() {
        let mut rec = Record::from_position(&Position::startpos());
        rec.set("pm", &[san(&rec, "e4")]).unwrap();
        let before = rec.to_canonical();
        let e = rec.set("pv", &[san(&rec, "d4")]).unwrap_err();
        let text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - pm e4; pv d4;";
        assert_eq!((e.code(), reader_code(text)), (Code::PmNotPvHead, Code::PmNotPvHead), "{e}");
        assert_eq!(e.message, "pm is not the first move of pv");
        assert_eq!(rec.to_canonical(), before);
        // The other way round too; and a pv that starts with pm is taken.
        let mut rec = Record::from_position(&Position::startpos());
        rec.set("pv", &[san(&rec, "d4")]).unwrap();
        assert_eq!(rec.set("pm", &[san(&rec, "e4")]).unwrap_err().code(), Code::PmNotPvHead);
        rec.set("pm", &[san(&rec, "d4")]).unwrap();
        let e5 = Position::startpos().played(san_of("e4")).parse_san(b"e5", SanMode::Strict).unwrap();
        let pv = [san(&rec, "e4"), OperandInput::Move(e5)];
        assert_eq!(rec.set("pv", &pv).unwrap_err().code(), Code::PmNotPvHead);
        rec.remove("pm");
        rec.set("pv", &pv).unwrap();
        assert_eq!(rec.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - pv e4 e5;");
    }

    /// Issue 33: pm Rae1 on WAC.001 with a pv that starts with Qg6.
    #[test]
    fn pm_rae1_when_pv_starts_with_qg6_is_refused_with_e012() {
        let mut rec = strict(&WAC1.replace("bm Qg6;", "bm Qg6; pv Qg6 fxg6;"));
        let before = rec.to_canonical();
        let e = rec.set("pm", &[san(&rec, "Rae1")]).unwrap_err();
        let text = format!("{} pm Rae1;", String::from_utf8_lossy(&before));
        assert_eq!((e.code(), reader_code(&text)), (Code::PmNotPvHead, Code::PmNotPvHead), "{e}");
        assert_eq!(rec.to_canonical(), before);
        rec.set("pm", &[san(&rec, "Qg6")]).unwrap();
        strict(&rec.to_string());
    }

    /// The other cross-checks, each refused with the reader's code, and a
    /// removal that would break one refused too.
    #[test]
    fn edits_keep_the_other_cross_checks() {
        let mut rec = Record::from_position(&Position::startpos());
        assert_eq!(rec.set("draw_offer", &[]).unwrap_err().code(), Code::MissingSm);
        rec.set("sm", &[san(&rec, "e4")]).unwrap();
        rec.set("draw_offer", &[]).unwrap();
        assert_eq!(rec.set("draw_claim", &[]).unwrap_err().code(), Code::ConflictingOpcodes);
        assert_eq!(rec.set("resign", &[]).unwrap_err().code(), Code::ConflictingOpcodes);
        let e = rec.set("sv", &[san(&rec, "d4")]).unwrap_err();
        assert_eq!(e.code(), Code::SmNotSvHead);
        let before = rec.to_canonical();
        assert_eq!(rec.try_remove("sm").unwrap_err().code(), Code::MissingSm);
        assert_eq!(rec.remove("sm"), 0);
        assert_eq!(rec.to_canonical(), before);
        assert_eq!(rec.try_remove("draw_offer"), Ok(1));
        assert_eq!(rec.try_remove("sm"), Ok(1));
        // A protocol that relaxes a rule says which.
        rec.set_allowing("draw_claim", &[], &[Code::MissingSm]).unwrap();
        assert_eq!(rec.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - draw_claim;");
        assert_eq!(rec.set_allowing("resign", &[], &[Code::MissingSm]).unwrap_err().code(), Code::ConflictingOpcodes);
    }

    /// Each operand check refuses with the code the reader gives the text
    /// the edit would write.
    #[test]
    fn operand_checks_refuse_with_the_readers_codes() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let mut rec = Record::from_position(&Position::startpos());
        let e4 = san(&rec, "e4");
        let illegal =
            OperandInput::Move(crate::Move::normal(Role::Pawn, Square::from_index(12), Square::from_index(36)));
        let long = [b'x'; 256];
        for (op, operands, text, code) in [
            ("1bad", vec![], "c0; 1bad;", Code::BadOpcode),
            ("ce", vec![OperandInput::Integer(32767)], "ce 32767;", Code::OutOfRange),
            ("acd", vec![OperandInput::Integer(-1)], "acd -1;", Code::OutOfRange),
            ("pm", vec![e4, e4], "pm e4 e4;", Code::Arity),
            ("id", vec![OperandInput::String(&long)], "", Code::StringTooLong),
            ("id", vec![OperandInput::String(b"a\tb")], "id \"a\tb\";", Code::ControlByte),
            ("id", vec![OperandInput::String(b"caf\xe9")], "", Code::NotUtf8),
            ("ce", vec![OperandInput::String(b"1")], "ce \"1\";", Code::OperandType),
            ("bm", vec![illegal], "", Code::IllegalMove),
            ("refcom", vec![OperandInput::Identifier("not one")], "", Code::OperandType),
            ("noop", vec![OperandInput::Raw(b"a b")], "", Code::OperandType),
            ("noop", vec![OperandInput::Raw(b"a\x01")], "noop a\x01;", Code::ControlByte),
            ("pv", vec![OperandInput::Raw(b"e4")], "", Code::OperandType),
            (
                "ts",
                vec![
                    OperandInput::Date(Date { year: 1995, month: 13, day: 1 }),
                    OperandInput::TimeOfDay(TimeOfDay { hour: 1, minute: 2, second: 3 }),
                ],
                "ts 1995.13.01 01:02:03;",
                Code::OperandType,
            ),
        ] {
            let e = rec.set(op, &operands).unwrap_err();
            assert_eq!(e.code(), code, "{op}: {e}");
            if !text.is_empty() {
                assert_eq!(reader_code(&format!("{start} {text}")), code, "{text}");
            }
        }
        assert!(rec.is_empty());
        // A record without a position takes no move.
        let mut rec = Record::new(crate::Setup::empty());
        assert_eq!(rec.set("bm", &[e4]).unwrap_err().code(), Code::IllegalPosition);
        rec.set("id", &[OperandInput::String(b"x")]).unwrap();
    }

    /// What an edit stores is what the reader reads from the text it
    /// writes, values included: any word of an unknown opcode or `noop`
    /// is verbatim text, as the reader keeps it.
    #[test]
    fn an_edit_stores_what_the_reader_reads() {
        let mut rec = Record::from_position(&Position::startpos());
        rec.set("x_ms", &[OperandInput::Integer(12)]).unwrap();
        rec.set("noop", &[OperandInput::String(b"say \"hi\""), OperandInput::Move(san_of("e4"))]).unwrap();
        rec.set(
            "ts",
            &[
                OperandInput::Date(Date { year: 1995, month: 11, day: 26 }),
                OperandInput::TimeOfDay(TimeOfDay { hour: 9, minute: 5, second: 0 }),
            ],
        )
        .unwrap();
        rec.set("cc", &[OperandInput::Clock(Clock::from_seconds(90)), OperandInput::Clock(Clock::from_seconds(5))])
            .unwrap();
        let back = strict(&rec.to_string());
        assert_eq!(model(&back), model(&rec));
        assert_eq!(rec.get("x_ms").unwrap().operand(0).unwrap().value(), Value::Raw { quoted: false });
        assert!(rec.operations().all(|o| o.offset() == 0 && o.operands().all(|x| x.offset() == 0)));
    }

    fn san_of(text: &str) -> crate::Move {
        Position::startpos().parse_san(text.as_bytes(), SanMode::Strict).unwrap()
    }

    /// The operations as [`model`] gives them: each opcode, and each
    /// operand's text and value.
    type Model = Vec<(String, Vec<(Vec<u8>, String)>)>;

    /// What a record holds, in canonical order: opcodes, operand texts and
    /// values (a set opcode's operands sorted, as the encoder writes them).
    fn model(rec: &Record) -> Model {
        let mut ops: Vec<_> = rec
            .operations()
            .map(|o| {
                let mut operands: Vec<_> =
                    o.operands().map(|x| (x.text().to_vec(), format!("{:?}", x.value()))).collect();
                if o.known().is_some_and(|k| k.order() == Order::Set) {
                    operands.sort();
                }
                (o.opcode().to_string(), operands)
            })
            .collect();
        ops.sort_by(|a, b| a.0.cmp(&b.0));
        ops
    }

    /// A deterministic generator (xorshift64*), so that a failing case
    /// comes back on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }
    }

    const OPCODES: [&str; 36] = [
        "bm",
        "am",
        "pm",
        "pv",
        "sm",
        "sv",
        "ce",
        "dm",
        "acd",
        "acn",
        "acs",
        "id",
        "c0",
        "c1",
        "c2",
        "c3",
        "c4",
        "c5",
        "c6",
        "c7",
        "c8",
        "c9",
        "refcom",
        "refreq",
        "noop",
        "draw_offer",
        "draw_claim",
        "draw_accept",
        "resign",
        "hmvc",
        "ts",
        "cc",
        "x_ms",
        "Solve_ms",
        "1bad",
        "",
    ];

    /// One random operand for operand `i` of `op`: mostly of the kind the
    /// opcode takes, in or out of its range; often of another kind, or
    /// text the encoding cannot hold. Moves come from `pos` (the position
    /// a sequence has reached), or are illegal.
    fn operand<'a>(g: &mut Rng, op: &str, i: usize, pos: Option<Position>, bytes: &'a [Vec<u8>]) -> OperandInput<'a> {
        let want = Opcode::from_name(op.as_bytes()).map_or(OperandType::Any, |o| o.operand_type(i));
        let kind = if g.below(10) < 7 {
            want
        } else {
            g.pick(&[
                OperandType::Move,
                OperandType::Integer,
                OperandType::String,
                OperandType::Identifier,
                OperandType::Any,
                OperandType::Date,
                OperandType::Clock,
            ])
        };
        match kind {
            OperandType::Move => {
                let legal = pos.map(|p| p.legal_moves()).filter(|l| !l.is_empty());
                match legal {
                    Some(l) if g.below(10) < 8 => OperandInput::Move(l[g.below(l.len())]),
                    _ => {
                        let (from, to) =
                            (Square::from_index(g.below(64) as u32), Square::from_index(g.below(64) as u32));
                        OperandInput::Move(crate::Move::normal(g.pick(&Role::ALL), from, to))
                    }
                }
            }
            OperandType::Integer => OperandInput::Integer(match g.below(6) {
                0 => i64::MIN + g.below(2) as i64,
                1 => i64::MAX - g.below(2) as i64,
                2 => g.below(80_000) as i64 - 40_000,
                3 => 32_760 + g.below(10) as i64,
                _ => g.below(30) as i64 - 3,
            }),
            OperandType::Identifier => OperandInput::Identifier(g.pick(&[
                "respond",
                "execute",
                "sign_on",
                "reply",
                "fault",
                "x",
                "responds",
                "bad word",
                "",
                "a_very_long_identifier",
                "e4",
                "semi;colon",
            ])),
            OperandType::Date => OperandInput::Date(Date {
                year: 1990 + g.below(20) as u16,
                month: 1 + g.below(13) as u8,
                day: 1 + g.below(31) as u8,
            }),
            OperandType::TimeOfDay => OperandInput::TimeOfDay(TimeOfDay {
                hour: g.below(25) as u8,
                minute: g.below(60) as u8,
                second: g.below(61) as u8,
            }),
            OperandType::Clock => OperandInput::Clock(Clock {
                days: g.below(1001) as u16,
                hours: g.below(25) as u8,
                minutes: g.below(60) as u8,
                seconds: g.below(60) as u8,
            }),
            OperandType::Any if g.below(2) == 0 => OperandInput::Raw(&bytes[g.below(bytes.len())]),
            _ => OperandInput::String(&bytes[g.below(bytes.len())]),
        }
    }

    /// Texts for strings and raw operands: plain, with quotes and
    /// backslashes, blanks and ';', control bytes, UTF-8 and not, empty,
    /// at and past the string limit.
    fn texts(g: &mut Rng) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = [
            &b"WAC.001"[..],
            b"",
            b"a b",
            b"say \"hi\"",
            b"back\\slash",
            b"semi;colon",
            b"tab\there",
            b"nul\0",
            b"del\x7f",
            b"caf\xc3\xa9",
            b"caf\xe9",
            b"\"lead",
            b"x=1",
            b"+",
            b"#3",
            b"e4",
            b"trail\\",
        ]
        .iter()
        .map(|t| t.to_vec())
        .collect();
        for len in [254, 255, 256, 300] {
            out.push((0..len).map(|_| b' ' + g.below(95) as u8).collect());
        }
        for _ in 0..20 {
            let len = g.below(12);
            out.push(
                (0..len)
                    .map(|_| if g.below(20) == 0 { g.below(256) as u8 } else { b' ' + g.below(95) as u8 })
                    .collect(),
            );
        }
        out
    }

    /// Issue 33: any sequence of edits (set and remove of the common
    /// opcodes, the cross-checked ones, unknown and invalid ones, with
    /// valid and invalid operands) is either refused, leaving the record
    /// as it was, or leaves a record whose canonical text reads back
    /// strictly to an equal record.
    #[test]
    fn any_sequence_of_edits_is_refused_or_reads_back_strictly() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -".to_string(),
            WAC1.replace("bm Qg6;", "bm Qg6; pm Qg6; pv Qg6 fxg6;"),
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - id \"kiwipete\";".to_string(),
            "8/P6k/8/8/8/8/6p1/K7 w - - c0 \"promotions\";".to_string(),
            "7k/6Q1/6K1/8/8/8/8/8 b - - ce -32767;".to_string(),
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 sm dxe3; draw_offer;".to_string(),
        ];
        let mut g = Rng(0x9e37_79b9_7f4a_7c15);
        let bytes = texts(&mut g);
        let (sequences, steps) = (10_000, 16);
        let (mut applied, mut refused) = (0usize, 0usize);
        let mut codes = std::collections::BTreeMap::new();
        for case in 0..sequences {
            let start = &starts[case % starts.len()];
            let mut rec = strict(start);
            for step in 0..steps {
                let op = g.pick(&OPCODES);
                let before = (rec.to_canonical(), model(&rec));
                let result = if g.below(4) == 0 {
                    rec.try_remove(op).map(|_| ())
                } else {
                    let known = Opcode::from_name(op.as_bytes());
                    let arity = match known.map(Opcode::arity) {
                        Some(crate::Arity::Exactly(k)) => usize::from(k),
                        Some(crate::Arity::Optional) => g.below(2),
                        Some(crate::Arity::Pairs) => 2 * g.below(2),
                        _ => g.below(5),
                    };
                    let n = if g.below(10) == 0 { g.below(4) } else { arity };
                    let sequence = known.is_some_and(Opcode::plays_in_sequence);
                    let mut pos = rec.position().copied();
                    let mut operands = Vec::new();
                    for i in 0..n {
                        let o = operand(&mut g, op, i, pos, &bytes);
                        if let (true, OperandInput::Move(m), Some(p)) = (sequence, o, pos.as_mut()) {
                            if p.is_legal(m) {
                                p.play_unchecked(m);
                            }
                        }
                        operands.push(o);
                    }
                    rec.set(op, &operands)
                };
                let what = format!("case {case} step {step}: {op} on {}", String::from_utf8_lossy(&before.0));
                match result {
                    Ok(()) => {
                        applied += 1;
                        let text = rec.to_canonical();
                        let (back, diags) = Record::parse(&text, ParseMode::Strict);
                        assert!(!has_errors(&diags), "{what}: {} gives {diags:?}", String::from_utf8_lossy(&text));
                        assert_eq!(model(&back), model(&rec), "{what}: {}", String::from_utf8_lossy(&text));
                        if let Ok(shown) = String::from_utf8(text) {
                            assert_eq!(rec.to_string(), shown, "{what}");
                        }
                    }
                    Err(e) => {
                        refused += 1;
                        *codes.entry(e.code().as_str()).or_insert(0usize) += 1;
                        assert_eq!((rec.to_canonical(), model(&rec)), before, "{what}: refused ({e}) but changed");
                    }
                }
            }
        }
        println!(
            "edit property: {sequences} sequences, {} edits: {applied} applied and read back, {refused} refused {codes:?}",
            sequences * steps
        );
        assert!(applied > sequences && refused > sequences);
    }
}
