//! EPD records: the four position fields and an ordered list of typed
//! operations; parsing with diagnostics, validation of every rule of §6,
//! and the canonical encoding of §7.1.
//!
//! A [`Record`] keeps all operand text in one byte arena and typed values
//! beside it, so parsing a file into one reused record allocates nothing
//! in the steady state.

use crate::diag::{Code, Diagnostic, Severity};
use crate::opcode::{
    is_valid_opcode, Arity, OperandType, Order, EXCLUSIVE_PAIRS, FIRST_MOVE_PAIRS, NEED_SM, REFCOM_COMMANDS,
    REFREQ_REQUESTS,
};
use crate::operand::{append_quoted, is_float, is_identifier, parse_integer, Clock, Date, IntegerError, TimeOfDay};
use crate::{parse_fields, Counters, Move, Opcode, ParseMode, Position, SanError, SanMode, Score, Setup, Validation};
use core::fmt;
use core::ops::Range;

mod fast;

/// The longest line the specification asks readers to handle (§4).
pub const MAX_SPEC_LINE: usize = 4096;
/// Strings must be shorter than this (§5.1).
pub const MAX_STRING: usize = 256;
/// At most this many diagnostics are kept for one record; the rest are
/// folded into one last diagnostic that counts them, so a hostile line
/// (millions of bad operations) cannot make the report unbounded.
pub const MAX_DIAGNOSTICS: usize = 100;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The typed value of an operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    /// An identifier; the text is the value.
    Identifier,
    /// A move; `None` when it could not be matched to a legal move (the
    /// record is then invalid).
    Move(Option<Move>),
    /// An integer.
    Integer(i64),
    /// A floating point number (the text is kept for exact round trips).
    Float(f64),
    /// A date.
    Date(Date),
    /// A time of day.
    TimeOfDay(TimeOfDay),
    /// A clock value.
    Clock(Clock),
    /// A string; the text is its content, without quotes or escapes.
    String,
    /// An untyped operand of an unknown opcode (or of `noop`), kept as
    /// written; `quoted` if it was a string.
    Raw {
        /// Written with quotes.
        quoted: bool,
    },
}

#[derive(Clone, Debug)]
struct OperandSlot {
    span: Span,
    offset: u32,
    value: Value,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Name {
    Known(Opcode),
    Other(Span),
}

#[derive(Clone, Debug)]
struct OpSlot {
    name: Name,
    offset: u32,
    /// Offset just past the operation's text (its ';' if any) in the
    /// parsed line; 0 for operations not read from the line.
    end: u32,
    operands: Span,
}

/// An EPD record: position fields plus operations.
///
/// ```
/// use epd_core::{ParseMode, Record};
/// let (rec, diags) = Record::parse(b"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\"; bm Qg6;", ParseMode::Strict);
/// assert!(diags.is_empty());
/// assert_eq!(rec.to_string(), "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";");
/// ```
#[derive(Clone, Debug)]
pub struct Record {
    setup: Setup,
    position: Option<Position>,
    buf: Vec<u8>,
    ops: Vec<OpSlot>,
    operands: Vec<OperandSlot>,
    /// Reused parser buffers (no meaning of their own).
    scratch: Scratch,
    /// The parsed line was already the canonical encoding (it is then the
    /// first `source_len` bytes of `buf`).
    source_canonical: bool,
    source_len: u32,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    tokens: Vec<Token>,
    typed: Vec<Token>,
    san: Vec<u8>,
}

/// A borrowed view of one operation.
#[derive(Copy, Clone, Debug)]
pub struct Operation<'a> {
    record: &'a Record,
    index: usize,
}

/// A borrowed view of one operand.
#[derive(Copy, Clone, Debug)]
pub struct Operand<'a> {
    record: &'a Record,
    slot: &'a OperandSlot,
}

impl<'a> Operation<'a> {
    fn slot(&self) -> &'a OpSlot {
        &self.record.ops[self.index]
    }

    /// The mnemonic.
    #[must_use]
    pub fn opcode(&self) -> &'a str {
        match self.slot().name {
            Name::Known(op) => op.name(),
            // Opcodes are ASCII by construction.
            Name::Other(span) => core::str::from_utf8(&self.record.buf[span.range()]).unwrap_or(""),
        }
    }

    /// The catalog entry, if the opcode is a known one.
    #[must_use]
    pub fn known(&self) -> Option<Opcode> {
        match self.slot().name {
            Name::Known(op) => Some(op),
            Name::Other(_) => None,
        }
    }

    /// Byte offset of the opcode in the parsed line.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.slot().offset as usize
    }

    /// The number of operands.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slot().operands.range().len()
    }

    /// `true` if there are no operands.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The operand at `index`.
    #[must_use]
    pub fn operand(&self, index: usize) -> Option<Operand<'a>> {
        let r = self.slot().operands.range();
        let i = r.start + index;
        (i < r.end).then(|| Operand { record: self.record, slot: &self.record.operands[i] })
    }

    /// The operands in order.
    pub fn operands(&self) -> impl Iterator<Item = Operand<'a>> + 'a {
        let record = self.record;
        record.operands[self.slot().operands.range()].iter().map(move |slot| Operand { record, slot })
    }

    /// The moves of a move opcode (`None` for unresolved ones).
    pub fn moves(&self) -> impl Iterator<Item = Option<Move>> + 'a {
        self.operands().map(|o| match o.value() {
            Value::Move(m) => m,
            _ => None,
        })
    }
}

impl<'a> Operand<'a> {
    /// The operand's text: for strings the content (unquoted, unescaped);
    /// for moves the canonical SAN when the move is legal.
    #[must_use]
    pub fn text(&self) -> &'a [u8] {
        &self.record.buf[self.slot.span.range()]
    }

    /// The typed value.
    #[must_use]
    pub fn value(&self) -> Value {
        self.slot.value
    }

    /// Byte offset in the parsed line.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.slot.offset as usize
    }

    /// The integer value, if an integer.
    #[must_use]
    pub fn as_integer(&self) -> Option<i64> {
        match self.slot.value {
            Value::Integer(v) => Some(v),
            _ => None,
        }
    }

    /// The move, if a legal move.
    #[must_use]
    pub fn as_move(&self) -> Option<Move> {
        match self.slot.value {
            Value::Move(m) => m,
            _ => None,
        }
    }

    /// Appends the operand as written in canonical EPD.
    pub fn append_to(&self, out: &mut Vec<u8>) {
        match self.slot.value {
            Value::String | Value::Raw { quoted: true } => append_quoted(self.text(), out),
            _ => out.extend_from_slice(self.text()),
        }
    }
}

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

impl Default for Record {
    fn default() -> Record {
        Record::new(Setup::standard())
    }
}

impl Record {
    /// A record with no operations.
    #[must_use]
    pub fn new(setup: Setup) -> Record {
        let position = Position::from_setup_with(setup.clone(), Validation::Playable).ok();
        Record::empty(setup, position)
    }

    /// A record for a position, with no operations.
    #[must_use]
    pub fn from_position(pos: &Position) -> Record {
        Record::empty(pos.to_setup(), Some(*pos))
    }

    fn empty(setup: Setup, position: Option<Position>) -> Record {
        Record {
            setup,
            position,
            buf: Vec::new(),
            ops: Vec::new(),
            operands: Vec::new(),
            scratch: Scratch::default(),
            source_canonical: false,
            source_len: 0,
        }
    }

    /// Parses one line (without its line terminator).
    #[must_use]
    pub fn parse(line: &[u8], mode: ParseMode) -> (Record, Vec<Diagnostic>) {
        let mut rec = Record::default();
        let mut diags = Vec::new();
        rec.parse_into(line, mode, &mut diags);
        (rec, diags)
    }

    /// Parses one line into this record, reusing its buffers, appending
    /// diagnostics to `diags`. The record is invalid if an error
    /// diagnostic was added; it then holds what could be read.
    pub fn parse_into(&mut self, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>) {
        self.parse_with(line, mode, diags, true);
    }

    /// `true` if `line` is a record [`Record::parse_into`] would read with
    /// no diagnostic and find already canonical, as decided by its fast
    /// path, which does not build the record: the stream verbs then copy
    /// the line as it stands. `false` says nothing of the line, which
    /// [`Record::parse_general`] then reads. The record is left as it
    /// was.
    pub(crate) fn is_canonical_line(&mut self, line: &[u8]) -> bool {
        fast::parse::<false>(self, line)
    }

    /// The fast path's verdicts on `line`, building the record and only
    /// judging it (for tests that hold the two to the same answer).
    #[cfg(feature = "test-hooks")]
    pub(crate) fn fast_verdicts(&mut self, line: &[u8]) -> (bool, bool) {
        let judged = self.is_canonical_line(line);
        self.start(line);
        let built = fast::parse::<true>(self, line);
        (built, judged)
    }

    /// [`Record::parse_into`] without its fast path for canonical lines:
    /// for tests that hold the two paths to the same result, and for the
    /// stream verbs once [`Record::is_canonical_line`] has turned a line
    /// down (the fast path is then not tried again).
    pub(crate) fn parse_general(&mut self, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>) {
        self.parse_with(line, mode, diags, false);
    }

    /// `true` if the two records hold the same fields, operations, operand
    /// slots and texts, offsets included (for tests of the fast path).
    #[must_use]
    #[cfg(feature = "test-hooks")]
    pub(crate) fn is_same_parse(&self, other: &Record) -> bool {
        let ops = |r: &Record| {
            r.ops
                .iter()
                .map(|o| {
                    let operands: Vec<_> = r.operands[o.operands.range()]
                        .iter()
                        .map(|s| (r.buf[s.span.range()].to_vec(), s.offset, format!("{:?}", s.value)))
                        .collect();
                    (r.name_bytes(o.name).to_vec(), o.offset, o.end, operands)
                })
                .collect::<Vec<_>>()
        };
        self.setup == other.setup
            && self.position == other.position
            && self.position.map(|p| p.hash) == other.position.map(|p| p.hash)
            && self.source_canonical == other.source_canonical
            && ops(self) == ops(other)
    }

    /// Clears the record for `line`, holding a copy of it.
    fn start(&mut self, line: &[u8]) {
        self.buf.clear();
        self.ops.clear();
        self.operands.clear();
        self.position = None;
        // The line is copied once: operands written as they stand are
        // spans of this copy; converted texts are appended after it.
        self.buf.extend_from_slice(line);
        self.source_len = line.len() as u32;
    }

    fn parse_with(&mut self, line: &[u8], mode: ParseMode, diags: &mut Vec<Diagnostic>, fast: bool) {
        self.start(line);
        if fast && fast::parse::<true>(self, line) {
            self.source_canonical = true;
            return;
        }
        self.ops.clear();
        self.operands.clear();
        self.position = None;
        let before = diags.len();
        let san = core::mem::take(&mut self.scratch.san);
        let mut p = Parser {
            line,
            mode,
            diags,
            before,
            omitted: None,
            rec: self,
            canonical: true,
            last_op: Span::default(),
            printing: false,
            san,
        };
        p.run();
        let canonical = p.canonical;
        let omitted = p.omitted.take();
        let san = core::mem::take(&mut p.san);
        self.scratch.san = san;
        // Any remark means the text differs from what the encoder writes.
        self.source_canonical = canonical && diags.len() == before;
        // Report in column order (stable, so one column keeps its order).
        if diags.len() - before > 1 {
            diags[before..].sort_by_key(|d| d.offset);
        }
        // Past the cap, last: the first diagnostic left out (the first
        // error, if one was), counting the others.
        if let Some((mut first, count)) = omitted {
            first.message = format!("{} (and {} more diagnostics for this record not shown)", first.message, count - 1);
            diags.push(first);
        }
    }

    /// `true` if the line this record was parsed from is already its
    /// canonical encoding, byte for byte (so normalizing may copy it).
    /// Editing the record clears the flag.
    #[must_use]
    pub fn is_source_canonical(&self) -> bool {
        self.source_canonical
    }

    /// The position fields.
    #[must_use]
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The position, if the fields describe one on which moves are
    /// defined.
    #[must_use]
    pub fn position(&self) -> Option<&Position> {
        self.position.as_ref()
    }

    /// The move counters the record carries: the halfmove clock from
    /// `hmvc` and the fullmove number from `fmvn` (§6.9, §6.11), each where
    /// present and within `u32` (fmvn at least 1), else those of the
    /// position fields (0 and 1: EPD has no counter fields).
    #[must_use]
    pub fn move_counters(&self) -> (u32, u32) {
        let int = |op: Opcode| {
            self.get_known(op)
                .and_then(|o| o.operand(0))
                .and_then(|o| o.as_integer())
                .and_then(|v| u32::try_from(v).ok())
        };
        let halfmoves = int(Opcode::Hmvc).unwrap_or(self.setup.halfmoves);
        let fullmoves = int(Opcode::Fmvn).filter(|&f| f >= 1).unwrap_or(self.setup.fullmoves);
        (halfmoves, fullmoves)
    }

    /// The position with the counters of [`Record::move_counters`]: what
    /// the record describes, as a FEN would give it.
    #[must_use]
    pub fn position_with_counters(&self) -> Option<Position> {
        let mut pos = *self.position.as_ref()?;
        let (h, f) = self.move_counters();
        pos.set_counters(h, f);
        Some(pos)
    }

    /// The number of operations.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// `true` if there are no operations.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operations in their order in the record.
    pub fn operations(&self) -> impl Iterator<Item = Operation<'_>> {
        (0..self.ops.len()).map(move |index| Operation { record: self, index })
    }

    fn name_bytes(&self, name: Name) -> &[u8] {
        match name {
            Name::Known(op) => op.name().as_bytes(),
            Name::Other(span) => &self.buf[span.range()],
        }
    }

    fn find(&self, opcode: &str) -> Option<usize> {
        self.ops.iter().position(|o| self.name_bytes(o.name) == opcode.as_bytes())
    }

    /// The first operation with this opcode.
    #[must_use]
    pub fn get(&self, opcode: &str) -> Option<Operation<'_>> {
        self.find(opcode).map(|index| Operation { record: self, index })
    }

    /// The operation of a known opcode.
    #[must_use]
    pub fn get_known(&self, opcode: Opcode) -> Option<Operation<'_>> {
        self.ops.iter().position(|o| o.name == Name::Known(opcode)).map(|index| Operation { record: self, index })
    }

    /// The score of the `ce` operation, if present and in range.
    #[must_use]
    pub fn score(&self) -> Option<Score> {
        let ce = self.get_known(Opcode::Ce)?.operand(0)?.as_integer()?;
        Score::from_ce(ce).ok()
    }

    /// The string of the `id` operation.
    #[must_use]
    pub fn id(&self) -> Option<&[u8]> {
        Some(self.get_known(Opcode::Id)?.operand(0)?.text())
    }

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

    fn push_text(&mut self, text: &[u8]) -> Span {
        let start = self.buf.len() as u32;
        self.buf.extend_from_slice(text);
        Span { start, end: self.buf.len() as u32 }
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

    /// The byte ranges, in the parsed line, of the operations with these
    /// opcodes (each with the blank before it), for removing them from the
    /// text without touching the rest (pfop).
    #[must_use]
    pub fn source_ranges<S: AsRef<str>>(&self, line: &[u8], opcodes: &[S]) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = self
            .ops
            .iter()
            .filter(|o| o.end > o.offset && opcodes.iter().any(|c| c.as_ref().as_bytes() == self.name_bytes(o.name)))
            .map(|o| {
                let mut start = o.offset as usize;
                while start > 0 && matches!(line.get(start - 1), Some(b' ' | b'\t')) {
                    start -= 1;
                }
                start..(o.end as usize).min(line.len())
            })
            .collect();
        out.sort_by_key(|r| r.start);
        out
    }

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

struct Parser<'a, 'd> {
    line: &'a [u8],
    mode: ParseMode,
    diags: &'d mut Vec<Diagnostic>,
    /// `diags.len()` when this record began.
    before: usize,
    /// Past [`MAX_DIAGNOSTICS`]: the first diagnostic left out (an error if
    /// any left out was one) and how many were.
    omitted: Option<(Diagnostic, usize)>,
    rec: &'a mut Record,
    /// Still byte-identical to the canonical encoding so far.
    canonical: bool,
    /// The previous opcode's text in the line (for the order check).
    last_op: Span,
    /// The line has no byte below 0x20 (TAB included) and no DEL, so no
    /// string in it needs the control byte check.
    printing: bool,
    /// Scratch text (canonical SAN, integers), the record's buffer lent for
    /// the parse.
    san: Vec<u8>,
}

/// A lexed operand before typing.
#[derive(Clone, Copy, Debug)]
struct Token {
    /// Raw text span in the line (for strings: the content, escapes
    /// included).
    start: usize,
    end: usize,
    quoted: bool,
    escaped: bool,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Byte classes for the operation lexer: one table lookup per byte
/// instead of a chain of comparisons.
const GAP: u8 = 1; // ' ', '\t' and NUL separate tokens
const SEMI: u8 = 2;
const QUOTE: u8 = 4;
const BACKSLASH: u8 = 8;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = GAP;
    t[b'\t' as usize] = GAP;
    t[0] = GAP;
    t[b';' as usize] = SEMI;
    t[b'"' as usize] = QUOTE;
    t[b'\\' as usize] = BACKSLASH;
    t
};

/// Advances from `p` over the bytes that are in one of `classes` (`skip`)
/// or in none of them (`!skip`); returns the first other index.
#[inline(always)]
fn scan(line: &[u8], p: usize, classes: u8, skip: bool) -> usize {
    let rest = line.get(p..).unwrap_or_default();
    match rest.iter().position(|&b| ((CLASS[b as usize] & classes) != 0) != skip) {
        Some(i) => p + i,
        None => p + rest.len(),
    }
}

/// The first byte at or after `p` that is not a gap (blank or NUL):
/// gaps are short, so one byte at a time.
#[inline(always)]
fn skip_gaps(line: &[u8], mut p: usize) -> usize {
    while p < line.len() && CLASS[line[p] as usize] & GAP != 0 {
        p += 1;
    }
    p
}

/// The first of `stops` at or after `p` (or the line's end), eight bytes
/// at a time.
#[inline(always)]
fn find_any<const N: usize>(line: &[u8], mut p: usize, stops: [u8; N]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while p + 8 <= line.len() {
        let c = &line[p..p + 8];
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let mut hit = 0;
        for stop in stops {
            let y = x ^ (LO * u64::from(stop));
            hit |= y.wrapping_sub(LO) & !y;
        }
        // The lowest flagged byte is exact (only bytes above a match can
        // be flagged falsely, by the borrow).
        hit &= HI;
        if hit != 0 {
            return p + (hit.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    match line.get(p..).unwrap_or_default().iter().position(|b| stops.contains(b)) {
        Some(i) => p + i,
        None => line.len().max(p),
    }
}

impl Parser<'_, '_> {
    fn lenient(&self) -> bool {
        self.mode == ParseMode::Lenient
    }

    #[cold]
    #[inline(never)]
    fn diag(
        &mut self,
        sev: Severity,
        code: Code,
        offset: usize,
        opcode: Option<&str>,
        operand: Option<usize>,
        message: String,
    ) {
        if self.diags.len() - self.before + 1 >= MAX_DIAGNOSTICS {
            // Keep the count bounded; the summary is the first error left
            // out if there is one, so an invalid record stays invalid.
            match &mut self.omitted {
                Some((first, count)) => {
                    *count += 1;
                    if sev == Severity::Error && first.severity != Severity::Error {
                        *first = Diagnostic {
                            severity: sev,
                            code,
                            offset,
                            opcode: opcode.map(str::to_owned),
                            operand,
                            message,
                        };
                    }
                }
                None => {
                    let d =
                        Diagnostic { severity: sev, code, offset, opcode: opcode.map(str::to_owned), operand, message };
                    self.omitted = Some((d, 1));
                }
            }
            return;
        }
        self.diags.push(Diagnostic {
            severity: sev,
            code,
            offset,
            opcode: opcode.map(str::to_owned),
            operand,
            message,
        });
    }

    #[cold]
    #[inline(never)]
    fn error(&mut self, code: Code, offset: usize, message: String) {
        self.diag(Severity::Error, code, offset, None, None, message);
    }

    /// An error in strict mode, a warning (the deviation was accepted) in
    /// lenient mode.
    #[cold]
    #[inline(never)]
    fn deviation(&mut self, code: Code, offset: usize, opcode: Option<&str>, operand: Option<usize>, message: String) {
        let sev = if self.lenient() { Severity::Warning } else { Severity::Error };
        self.diag(sev, code, offset, opcode, operand, message);
    }

    fn run(&mut self) {
        // A NUL terminator or CR left at the end of the line by the file's
        // writer is not part of the record.
        let full = self.line;
        let end = full.iter().rposition(|&b| b != 0 && b != b'\r').map_or(0, |i| i + 1);
        if end < full.len() && full[end..].contains(&0) && !self.lenient() {
            self.diag(Severity::Warning, Code::ControlByte, end, None, None, "NUL byte at the end of the line".into());
        }
        self.line = &full[..end];
        if end < full.len() {
            self.canonical = false;
        }
        let line = self.line;
        if line.len() > MAX_SPEC_LINE && !self.lenient() {
            self.diag(
                Severity::Warning,
                Code::LineTooLong,
                MAX_SPEC_LINE,
                None,
                None,
                format!(
                    "line of {} bytes is longer than the 4096 the specification asks readers to handle",
                    line.len()
                ),
            );
        }
        let (control, printing) = first_control_byte(line);
        self.printing = printing;
        if let Some(i) = control {
            // Control bytes inside strings are reported there; here only
            // those outside any string matter, so report the first one and
            // let the lexer treat it as a separator.
            if line[..i].iter().filter(|&&b| b == b'"').count() % 2 == 1 {
                // inside a string: reported by the string check
            } else {
                self.error(Code::ControlByte, i, format!("control byte 0x{:02x} in the record", line[i]));
            }
        }
        // Leading blanks: pfdn removes them (§7.1), so they are a remark.
        let lead = line.iter().take_while(|&&b| is_blank(b)).count();
        if lead > 0 && lead < line.len() {
            self.diag(
                Severity::Warning,
                Code::Whitespace,
                0,
                None,
                None,
                "leading whitespace before the position".into(),
            );
        }
        let parsed = match parse_fields(&line[lead..], self.mode, Counters::Optional) {
            Ok(p) => p,
            Err(e) => {
                self.error(Code::PositionSyntax, e.offset + lead, e.to_string());
                self.rec.setup = Setup::empty();
                return;
            }
        };
        for fix in &parsed.fixes {
            let code = if fix.field == crate::FenField::Halfmoves && fix.what.starts_with("space") {
                Code::MoveCounters
            } else {
                Code::PositionSyntax
            };
            self.diag(Severity::Warning, code, fix.offset + lead, None, None, fix.to_string());
        }
        self.rec.setup = parsed.setup;
        if lead > 0 || parsed.has_counters || !parsed.fixes.is_empty() || !self.castling_text_canonical(lead) {
            self.canonical = false;
        }
        let problems = self.rec.setup.problems();
        let mut position_ok = true;
        for problem in &problems {
            if problem.prevents_play() || !self.lenient() {
                self.error(Code::IllegalPosition, 0, format!("illegal position: {problem}"));
                position_ok = false;
            } else {
                self.diag(
                    Severity::Warning,
                    Code::PositionWarning,
                    0,
                    None,
                    None,
                    format!("unreachable position accepted: {problem}"),
                );
            }
        }
        if position_ok {
            // `problems` found nothing that prevents play.
            self.rec.position = Some(Position::from_checked_setup(self.rec.setup.clone()));
        }
        let counters = parsed.has_counters.then_some((self.rec.setup.halfmoves, self.rec.setup.fullmoves));
        if parsed.has_counters {
            // Column of the counters: the first non-blank after the fields.
            let off = line[..parsed.end + lead].iter().rposition(|&b| is_blank(b)).map_or(0, |i| i + 1);
            let off = line[..off.saturating_sub(1)].iter().rposition(|&b| is_blank(b)).map_or(off, |i| i + 1);
            self.deviation(
                Code::MoveCounters,
                off,
                None,
                None,
                "FEN move counters in an EPD record; expected operations (hmvc and fmvn hold them)".into(),
            );
        }
        self.operations(parsed.end + lead);
        if let Some((h, f)) = counters {
            if self.lenient() {
                // Counters become hmvc/fmvn unless the record has them.
                for (op, v) in [(Opcode::Hmvc, i64::from(h)), (Opcode::Fmvn, i64::from(f))] {
                    if self.rec.get_known(op).is_none() {
                        let span = self.rec.push_text(v.to_string().as_bytes());
                        let first = self.rec.operands.len() as u32;
                        self.rec.operands.push(OperandSlot { span, offset: 0, value: Value::Integer(v) });
                        self.rec.ops.push(OpSlot {
                            name: Name::Known(op),
                            offset: 0,
                            end: 0,
                            operands: Span { start: first, end: first + 1 },
                        });
                    }
                }
            }
        }
        self.cross_checks();
    }

    /// Lexes and types the operations from `start`.
    fn operations(&mut self, start: usize) {
        let line = self.line;
        let n = line.len();
        let mut p = start;
        let mut noop_extra: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut tokens: Vec<Token> = core::mem::take(&mut self.rec.scratch.tokens);
        let mut first = true;
        loop {
            let ws = p;
            p = skip_gaps(line, p);
            if p >= n {
                if ws < n {
                    // Trailing blanks.
                    self.canonical = false;
                }
                break;
            }
            let gap = &line[ws..p];
            if gap.len() != 1 || gap[0] != b' ' {
                self.canonical = false;
                if gap.is_empty() {
                    if first {
                        self.deviation(
                            Code::Whitespace,
                            p,
                            None,
                            None,
                            "expected a space after the position fields".into(),
                        );
                    }
                } else if !self.lenient() {
                    self.diag(
                        Severity::Warning,
                        Code::Whitespace,
                        ws,
                        None,
                        None,
                        "separator is not a single space".into(),
                    );
                }
            }
            first = false;
            if line[p] == b';' {
                self.deviation(
                    Code::EmptyOperation,
                    p,
                    None,
                    None,
                    "empty operation: a ';' with no opcode before it".into(),
                );
                p += 1;
                continue;
            }
            // The opcode.
            let op_start = p;
            p = if self.printing {
                // No TAB or NUL in the line: only ' ', ';' and '"' end it.
                find_any(line, p, [b' ', b';', b'"'])
            } else {
                scan(line, p, GAP | SEMI | QUOTE, false)
            };
            let name = &line[op_start..p];
            // Every catalog name is a valid opcode.
            let known = Opcode::from_name(name);
            if known.is_none() && !is_valid_opcode(name) {
                // Not an operation: take the text up to the next ';' as it
                // stands (quotes in free text do not open strings here).
                while p < n && line[p] != b';' {
                    p += 1;
                }
                let text = trim_blanks(&line[op_start..p]);
                if p < n {
                    p += 1;
                }
                let shown = String::from_utf8_lossy(text).into_owned();
                // Kept as a noop string only if it can be one: a control
                // byte (tab included) is no string content, so its
                // canonical form would not read back.
                let stringable = !text.iter().any(|&b| b < 0x20 || b == 0x7f);
                if self.lenient() && !text.is_empty() && text.len() < MAX_STRING && stringable {
                    self.diag(
                        Severity::Warning,
                        Code::BadOpcode,
                        op_start,
                        None,
                        None,
                        format!("{shown:?} is not an operation; kept as a noop operand"),
                    );
                    noop_extra.push((op_start, text.to_vec()));
                } else {
                    self.error(
                        Code::BadOpcode,
                        op_start,
                        format!("{shown:?} is not an opcode: expected a letter, then up to 14 letters, digits or '_'"),
                    );
                }
                continue;
            }
            // Operands up to ';'.
            tokens.clear();
            let mut terminated = false;
            let mut broken = false;
            loop {
                // The canonical cases first: one space, then an operand
                // that starts with neither a gap nor ';'; or ';' at once.
                let next = line.get(p + 1).copied().unwrap_or(b';');
                if p < n && line[p] == b' ' && CLASS[next as usize] & (GAP | SEMI) == 0 {
                    p += 1;
                } else if p >= n || line[p] != b';' {
                    let blank_start = p;
                    p = skip_gaps(line, p);
                    if p >= n {
                        break;
                    }
                    // Canonical: one space before each operand, none before ';'.
                    let gap = p - blank_start;
                    let canonical_gap = if line[p] == b';' { gap == 0 } else { gap == 1 && line[blank_start] == b' ' };
                    if !canonical_gap {
                        self.canonical = false;
                    }
                }
                if line[p] == b';' {
                    p += 1;
                    terminated = true;
                    break;
                }
                if line[p] == b'"' {
                    let q = p;
                    p += 1;
                    let content = p;
                    let mut escaped = false;
                    let mut closed = false;
                    while p < n {
                        p = find_any(line, p, [b'"', b'\\']);
                        if p >= n {
                            break;
                        }
                        match line[p] {
                            b'\\' if p + 1 < n && (line[p + 1] == b'"' || line[p + 1] == b'\\') => {
                                escaped = true;
                                p += 2;
                            }
                            b'\\' => {
                                // A lone backslash is itself; the encoder
                                // writes it escaped, so the text is not
                                // canonical (found by the `record` fuzz
                                // target).
                                self.canonical = false;
                                p += 1;
                            }
                            b'"' => {
                                closed = true;
                                break;
                            }
                            _ => p += 1,
                        }
                    }
                    if !closed {
                        self.error(Code::UnterminatedString, q, "unterminated string: expected a closing '\"'".into());
                        broken = true;
                        break;
                    }
                    tokens.push(Token { start: content, end: p, quoted: true, escaped });
                    p += 1;
                    if p < n && !is_blank(line[p]) && line[p] != b';' {
                        self.deviation(
                            Code::Whitespace,
                            p,
                            None,
                            None,
                            "expected a space or ';' after a string".into(),
                        );
                    }
                } else {
                    let s = p;
                    p = if self.printing { find_any(line, p, [b' ', b';']) } else { scan(line, p, GAP | SEMI, false) };
                    tokens.push(Token { start: s, end: p, quoted: false, escaped: false });
                }
            }
            if broken {
                // Nothing after an unterminated string can be read.
                self.rec.scratch.tokens = tokens;
                return;
            }
            if !terminated {
                let opname = String::from_utf8_lossy(name).into_owned();
                self.deviation(
                    Code::MissingSemicolon,
                    p,
                    Some(&opname),
                    None,
                    format!("operation {opname} is not closed: expected ';'"),
                );
            }
            self.add_operation(op_start, p, name, known, &tokens);
        }
        self.rec.scratch.tokens = tokens;
        if !noop_extra.is_empty() {
            self.merge_noop(noop_extra);
        }
    }

    fn merge_noop(&mut self, extra: Vec<(usize, Vec<u8>)>) {
        // Existing noop operands first, then the kept texts, as strings.
        let mut slots: Vec<OperandSlot> = Vec::new();
        if let Some(i) = self.rec.ops.iter().position(|o| o.name == Name::Known(Opcode::Noop)) {
            let op = self.rec.ops.remove(i);
            slots.extend_from_slice(&self.rec.operands[op.operands.range()]);
        }
        for (offset, text) in extra {
            let span = self.rec.push_text(&text);
            slots.push(OperandSlot { span, offset: offset as u32, value: Value::Raw { quoted: true } });
        }
        let first = self.rec.operands.len() as u32;
        self.rec.operands.extend(slots);
        let operands = Span { start: first, end: self.rec.operands.len() as u32 };
        self.rec.ops.push(OpSlot { name: Name::Known(Opcode::Noop), offset: 0, end: 0, operands });
    }

    fn add_operation(&mut self, op_start: usize, op_end: usize, name: &[u8], known: Option<Opcode>, tokens: &[Token]) {
        if self.canonical {
            let prev = &self.line[self.last_op.range()];
            if !prev.is_empty() && !bytes_less(prev, name) {
                self.canonical = false;
            }
            self.last_op = Span { start: op_start as u32, end: (op_start + name.len()) as u32 };
        }
        // Lenient: `bm #3` (mate in 3) and `bm #-3` (mated in 3), as mate
        // collections write them, become dm 3 and ce -32761.
        if self.lenient() && known == Some(Opcode::Bm) && tokens.len() == 1 && !tokens[0].quoted {
            let text = &self.line[tokens[0].start..tokens[0].end];
            if let Some(n) = mate_notation(text).filter(|&n| n != 0 && n.unsigned_abs() <= 10_000) {
                let (op, v) =
                    if n > 0 { (Opcode::Dm, n) } else { (Opcode::Ce, Score::MatedIn(n.unsigned_abs() as u32).to_ce()) };
                let shown = String::from_utf8_lossy(text).into_owned();
                self.diag(
                    Severity::Warning,
                    Code::MateNotation,
                    tokens[0].start,
                    Some("bm"),
                    Some(0),
                    format!("bm {shown} is mate notation; read as {} {v}", op.name()),
                );
                let mut buf = Vec::new();
                let span = self.rec.push_text(itoa(v, &mut buf));
                let first = self.rec.operands.len() as u32;
                self.rec.operands.push(OperandSlot { span, offset: tokens[0].start as u32, value: Value::Integer(v) });
                self.rec.ops.push(OpSlot {
                    name: Name::Known(op),
                    offset: op_start as u32,
                    end: op_end as u32,
                    operands: Span { start: first, end: first + 1 },
                });
                return;
            }
        }
        let name_slot = match known {
            Some(op) => Name::Known(op),
            None => Name::Other(Span { start: op_start as u32, end: (op_start + name.len()) as u32 }),
        };
        let first = self.rec.operands.len() as u32;
        match known {
            None | Some(Opcode::Noop) => {
                let opname = String::from_utf8_lossy(name).into_owned();
                for (i, t) in tokens.iter().enumerate() {
                    self.check_raw_string(t, &opname, i);
                    let span = self.token_text(t);
                    self.rec.operands.push(OperandSlot {
                        span,
                        offset: t.start as u32,
                        value: Value::Raw { quoted: t.quoted },
                    });
                }
            }
            Some(op) => self.typed_operands(op, op.name(), tokens),
        }
        let operands = Span { start: first, end: self.rec.operands.len() as u32 };
        self.rec.ops.push(OpSlot { name: name_slot, offset: op_start as u32, end: op_end as u32, operands });
    }

    /// An operand kept verbatim (unknown opcodes, noop, draw_*) may not
    /// hold a control byte: the line-wide check guesses from the quotes
    /// before a byte whether a string check will see it, a guess glued
    /// lenient strings (`""""`) defeat, and a canonical form holding one
    /// would not read back (found by the `record` and `capi` fuzz
    /// targets).
    fn check_raw_string(&mut self, t: &Token, opname: &str, i: usize) {
        if let Some(&b) = self.line[t.start..t.end].iter().find(|&&b| b < 0x20 || b == 0x7f) {
            self.diag(
                Severity::Error,
                Code::ControlByte,
                t.start,
                Some(opname),
                Some(i),
                format!("control byte 0x{b:02x} in an operand"),
            );
        }
    }

    /// Copies a token's text to the arena, unescaping strings.
    fn token_text(&mut self, t: &Token) -> Span {
        let raw = &self.line[t.start..t.end];
        if !t.escaped {
            return Span { start: t.start as u32, end: t.end as u32 };
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
        let marks = moves && tokens.iter().any(|t| !t.quoted && matches!(&line[t.start..t.end], b"+" | b"#" | b"++"));
        if marks {
            filtered = core::mem::take(&mut self.rec.scratch.typed);
            filtered.clear();
            for t in tokens {
                let text = &line[t.start..t.end];
                let detached =
                    !t.quoted && matches!(text, b"+" | b"#" | b"++") && filtered.last().is_some_and(|l| !l.quoted);
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
            let value: Value = match want {
                OperandType::Move => {
                    if t.quoted {
                        self.diag(
                            Severity::Error,
                            Code::OperandType,
                            t.start,
                            Some(opname),
                            Some(i),
                            format!("{opname} operand {} must be a move, not a string", i + 1),
                        );
                        Value::Move(None)
                    } else if let Some(mate) = mate_notation(text) {
                        self.diag(
                            Severity::Error,
                            Code::MateNotation,
                            t.start,
                            Some(opname),
                            Some(i),
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
                                let span = if as_written {
                                    Span { start: t.start as u32, end: t.end as u32 }
                                } else {
                                    self.rec.push_text(&self.san)
                                };
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
                        self.diag(
                            Severity::Error,
                            Code::OperandType,
                            t.start,
                            Some(opname),
                            Some(i),
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
                                        self.diag(
                                            Severity::Error,
                                            Code::OutOfRange,
                                            t.start,
                                            Some(opname),
                                            Some(i),
                                            format!("{opname} {v} is out of range: expected {range}"),
                                        );
                                    }
                                }
                                let span = if fast.is_some() || is_canonical_integer(text) {
                                    Span { start: t.start as u32, end: t.end as u32 }
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
                                self.diag(
                                    Severity::Error,
                                    Code::OutOfRange,
                                    t.start,
                                    Some(opname),
                                    Some(i),
                                    format!("{opname} operand {} is beyond the 64-bit integer range", i + 1),
                                );
                                Value::Raw { quoted: false }
                            }
                            Err(IntegerError::Syntax) => {
                                self.diag(
                                    Severity::Error,
                                    Code::OperandType,
                                    t.start,
                                    Some(opname),
                                    Some(i),
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
                        self.diag(
                            Severity::Warning,
                            Code::Escape,
                            t.start,
                            Some(opname),
                            Some(i),
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
                            self.diag(
                                Severity::Error,
                                Code::EnumeratedOperand,
                                t.start,
                                Some(opname),
                                Some(i),
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
                self.diag(
                    Severity::Error,
                    Code::OperandType,
                    t.start,
                    Some(opname),
                    Some(i),
                    format!("{opname} operand {} must be {what}", i + 1),
                );
                Value::Raw { quoted: t.quoted }
            }
        }
    }

    /// `true` if the castling field as written is what the encoder writes.
    fn castling_text_canonical(&mut self, lead: usize) -> bool {
        let line = &self.line[lead..];
        // The third field as split at single spaces.
        let a = find_any(line, 0, [b' ']);
        let b = if a < line.len() { find_any(line, a + 1, [b' ']) } else { a };
        if b >= line.len() {
            return false;
        }
        let field = &line[b + 1..find_any(line, b + 1, [b' '])];
        if field == b"-" {
            return self.rec.setup.castling_rights.is_empty();
        }
        let mut buf = core::mem::take(&mut self.san);
        buf.clear();
        crate::fen::append_castling(&self.rec.setup.board, self.rec.setup.castling_rights, &mut buf);
        let same = buf == field;
        self.san = buf;
        same
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
            self.diag(
                Severity::Error,
                Code::ControlByte,
                offset,
                Some(opname),
                Some(i),
                format!("control byte 0x{b:02x} inside a string"),
            );
        } else if !text.is_ascii() && core::str::from_utf8(text).is_err() {
            if self.lenient() {
                // Read as Latin-1 and store as UTF-8.
                let converted: String = text.iter().map(|&b| b as char).collect();
                let start = self.rec.buf.len() as u32;
                self.rec.buf.extend_from_slice(converted.as_bytes());
                let new = Span { start, end: self.rec.buf.len() as u32 };
                self.diag(
                    Severity::Warning,
                    Code::NotUtf8,
                    offset,
                    Some(opname),
                    Some(i),
                    "string is not UTF-8; read as Latin-1 and converted".into(),
                );
                return new;
            }
            self.diag(
                Severity::Error,
                Code::NotUtf8,
                offset,
                Some(opname),
                Some(i),
                "string is not valid UTF-8 (Latin-1?)".into(),
            );
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
                self.diag(
                    Severity::Error,
                    Code::NonCanonicalSan,
                    offset,
                    Some(opname),
                    Some(i),
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

    fn cross_checks(&mut self) {
        let rec = &*self.rec;
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
        let mut findings: Vec<(Code, usize, Option<&str>, String)> = Vec::new();
        for (off, name) in &dups {
            findings.push((Code::DuplicateOpcode, *off, None, format!("opcode {name} appears more than once")));
        }
        for (single, seq) in FIRST_MOVE_PAIRS {
            let code = if single == Opcode::Pm { Code::PmNotPvHead } else { Code::SmNotSvHead };
            if !has(single) || !has(seq) {
                continue;
            }
            if let (Some((Some(a), off)), Some((Some(b), _))) = (first_move(single), first_move(seq)) {
                if a != b {
                    findings.push((
                        code,
                        off,
                        Some(single.name()),
                        format!("{} is not the first move of {}", single.name(), seq.name()),
                    ));
                }
            }
        }
        for (a, b) in EXCLUSIVE_PAIRS {
            if has(a) && has(b) {
                let off = rec.get_known(b).map_or(0, |o| o.offset());
                findings.push((
                    Code::ConflictingOpcodes,
                    off,
                    Some(b.name()),
                    format!("{} and {} exclude each other", a.name(), b.name()),
                ));
            }
        }
        for op in NEED_SM {
            if has(op) && !has(Opcode::Sm) {
                let off = rec.get_known(op).map_or(0, |o| o.offset());
                findings.push((
                    Code::MissingSm,
                    off,
                    Some(op.name()),
                    format!("{} needs an sm (supplied move) operation", op.name()),
                ));
            }
        }
        for (code, off, op, msg) in findings {
            self.diag(Severity::Error, code, off, op, None, msg);
        }
    }
}

/// The first byte below 0x20 other than TAB, or DEL; and `true` if the
/// line has no byte below 0x20 at all (TAB included) and no DEL. Eight
/// bytes at a time: lines are mostly printing ASCII.
fn first_control_byte(line: &[u8]) -> (Option<usize>, bool) {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let control = |b: u8| (b < 0x20 && b != b'\t') || b == 0x7f;
    // A byte < 0x20 has its high bit set after subtracting 0x20 (for bytes
    // < 0x80); DEL (0x7f) becomes 0x80 after adding 1.
    let flags = |c: &[u8]| {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let below = x.wrapping_sub(LO * 0x20) & !x & HI;
        let del = (x ^ (LO * 0x7f)).wrapping_sub(LO) & !(x ^ (LO * 0x7f)) & HI;
        below | del
    };
    let mut chunks = line.chunks_exact(8);
    let rest = chunks.remainder();
    // First over the whole line without stopping: nearly every line is all
    // printing bytes, and then only the tail needs a look.
    if line.chunks_exact(8).fold(0, |any, c| any | flags(c)) == 0 {
        let base = line.len() - rest.len();
        return match rest.iter().position(|&b| control(b)) {
            Some(i) => (Some(base + i), false),
            None => (None, !rest.iter().any(|&b| b < 0x20)),
        };
    }
    let mut base = 0;
    for c in &mut chunks {
        if flags(c) != 0 {
            if let Some(i) = c.iter().position(|&b| control(b)) {
                return (Some(base + i), false);
            }
        }
        base += 8;
    }
    match rest.iter().position(|&b| control(b)) {
        Some(i) => (Some(base + i), false),
        None => (None, false),
    }
}

/// `a < b` in byte order, inline: opcodes are a few bytes long, too short
/// for a `memcmp` call to pay.
#[inline(always)]
fn bytes_less(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x < y;
        }
    }
    a.len() < b.len()
}

fn trim_blanks(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&b| !is_blank(b) && b != 0).unwrap_or(s.len());
    let b = s.iter().rposition(|&b| !is_blank(b) && b != 0).map_or(a, |i| i + 1);
    &s[a..b.max(a)]
}

fn itoa(v: i64, buf: &mut Vec<u8>) -> &[u8] {
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
fn canonical_integer(text: &[u8]) -> Option<i64> {
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
fn mate_notation(text: &[u8]) -> Option<i64> {
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

    #[test]
    fn control_bytes_and_all_printing_lines() {
        for (line, first, printing) in [
            (&b"8/8/8/8/8/8/8/8 w - - id \"x\";"[..], None, true),
            (b"", None, true),
            (b"ab\tcd", None, false),
            (b"abcdefgh\tij", None, false),
            (b"abcdefghij\x01", Some(10), false),
            (b"a\x7fbcdefghijklmnop", Some(1), false),
            (b"abcdefgh\x00", Some(8), false),
            (b"abcdefgh\tijklmnop\x1f", Some(17), false),
        ] {
            assert_eq!(first_control_byte(line), (first, printing), "{:?}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn bytes_less_is_byte_order() {
        for (a, b) in [("acd", "acn"), ("am", "bm"), ("c0", "ce"), ("pv", "pm"), ("ac", "acd"), ("id", "id"), ("", "a")]
        {
            assert_eq!(bytes_less(a.as_bytes(), b.as_bytes()), a < b, "{a} < {b}");
        }
    }
}
