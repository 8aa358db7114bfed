//! The record model: the position fields, the operations in record
//! order, their operands' texts in one byte arena and their typed values
//! beside it, and the borrowed views ([`Operation`], [`Operand`]) the API
//! hands out.

use crate::opcode::OperandType;
use crate::operand::{Clock, Date, TimeOfDay};
use crate::{Move, Opcode, Position, Score, Setup, Validation};
use core::ops::Range;

/// The longest line the specification asks readers to handle (§4).
pub const MAX_SPEC_LINE: usize = 4096;
/// Strings must be shorter than this (§5.1).
pub const MAX_STRING: usize = 256;
/// At most this many diagnostics are kept for one record; the rest are
/// folded into one last diagnostic that counts them, so a hostile line
/// (millions of bad operations) cannot make the report unbounded.
pub const MAX_DIAGNOSTICS: usize = 100;

/// A range of the record's byte arena (or of the line being read).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub(super) struct Span {
    pub(super) start: u32,
    pub(super) end: u32,
}

impl Span {
    pub(super) fn range(self) -> Range<usize> {
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

/// One operand: its text in the arena, its offset in the parsed line (0
/// for operands not read from the line) and its typed value.
#[derive(Clone, Debug)]
pub(super) struct OperandSlot {
    pub(super) span: Span,
    pub(super) offset: u32,
    pub(super) value: Value,
}

/// An operation's opcode: a catalog entry, or the text of another one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Name {
    Known(Opcode),
    Other(Span),
}

/// One operation: its opcode, where it stands in the parsed line, and the
/// range of its operands in the record's operand list.
#[derive(Clone, Debug)]
pub(super) struct OpSlot {
    pub(super) name: Name,
    pub(super) offset: u32,
    /// Offset just past the operation's text (its ';' if any) in the
    /// parsed line; 0 for operations not read from the line.
    pub(super) end: u32,
    pub(super) operands: Span,
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
    pub(super) setup: Setup,
    pub(super) position: Option<Position>,
    pub(super) buf: Vec<u8>,
    pub(super) ops: Vec<OpSlot>,
    pub(super) operands: Vec<OperandSlot>,
    /// Reused parser buffers (no meaning of their own).
    pub(super) scratch: Scratch,
    /// The parsed line was already the canonical encoding (it is then the
    /// first `source_len` bytes of `buf`).
    pub(super) source_canonical: bool,
    pub(super) source_len: u32,
}

/// Buffers the reader reuses from line to line.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    pub(super) tokens: Vec<Token>,
    pub(super) typed: Vec<Token>,
    pub(super) san: Vec<u8>,
}

/// A borrowed view of one operation.
#[derive(Copy, Clone, Debug)]
pub struct Operation<'a> {
    pub(super) record: &'a Record,
    pub(super) index: usize,
}

/// A borrowed view of one operand.
#[derive(Copy, Clone, Debug)]
pub struct Operand<'a> {
    pub(super) record: &'a Record,
    pub(super) slot: &'a OperandSlot,
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
}

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

    pub(super) fn name_bytes(&self, name: Name) -> &[u8] {
        match name {
            Name::Known(op) => op.name().as_bytes(),
            Name::Other(span) => &self.buf[span.range()],
        }
    }

    pub(super) fn find(&self, opcode: &str) -> Option<usize> {
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

    /// Appends `text` to the arena; its span there.
    pub(super) fn push_text(&mut self, text: &[u8]) -> Span {
        let start = self.buf.len() as u32;
        self.buf.extend_from_slice(text);
        Span { start, end: self.buf.len() as u32 }
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
}

/// A lexed operand before typing.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    /// Raw text span in the line (for strings: the content, escapes
    /// included).
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) quoted: bool,
    pub(super) escaped: bool,
    /// What an edit gave for the operand; `None` for the reader's tokens.
    pub(super) given: Option<Given>,
}

/// An operand an edit gave: its basetype (`Any` for verbatim text), and
/// for a move the move itself (its token's text is then only for
/// messages).
#[derive(Clone, Copy, Debug)]
pub(super) struct Given {
    pub(super) kind: OperandType,
    pub(super) mv: Option<Move>,
}
