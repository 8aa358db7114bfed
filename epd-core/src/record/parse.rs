//! The record reader: a line lexed into the position fields and its
//! operations, each operation's operands typed by the operand checks
//! (`check`), the operations checked against each other (`cross`), every
//! finding a diagnostic with its code. Canonical lines take the fast path
//! (`fast`) first, which proves a line clean or hands it back here.

use super::check::mate_notation;
use super::cross;
use super::encode::itoa;
use super::fast;
use super::model::{Name, OpSlot, OperandSlot, Record, Span, Token, Value, MAX_DIAGNOSTICS, MAX_SPEC_LINE, MAX_STRING};
use crate::diag::{Code, Diagnostic, Severity};
use crate::opcode::is_valid_opcode;
use crate::{parse_fields, Counters, Opcode, ParseMode, Position, Score, Setup};

impl Record {
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
        fast::parse(self, line, &mut fast::Judge)
    }

    /// The fast path's verdicts on `line`, building the record and only
    /// judging it (for tests that hold the two to the same answer).
    #[cfg(feature = "test-hooks")]
    pub(crate) fn fast_verdicts(&mut self, line: &[u8]) -> (bool, bool) {
        let judged = self.is_canonical_line(line);
        self.start(line);
        let built = fast::parse(self, line, &mut fast::Build);
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
        if fast && fast::parse(self, line, &mut fast::Build) {
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
            shift: 0,
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
}

/// The reader's state for one line; also what an edit runs the operand
/// checks in (see `Parser::for_edit`), with the edit's operands as its
/// line.
pub(super) struct Parser<'a, 'd> {
    pub(super) line: &'a [u8],
    pub(super) mode: ParseMode,
    pub(super) diags: &'d mut Vec<Diagnostic>,
    /// `diags.len()` when this record began.
    pub(super) before: usize,
    /// Past [`MAX_DIAGNOSTICS`]: the first diagnostic left out (an error if
    /// any left out was one) and how many were.
    pub(super) omitted: Option<(Diagnostic, usize)>,
    pub(super) rec: &'a mut Record,
    /// Still byte-identical to the canonical encoding so far.
    pub(super) canonical: bool,
    /// The previous opcode's text in the line (for the order check).
    pub(super) last_op: Span,
    /// The line has no byte below 0x20 (TAB included) and no DEL, so no
    /// string in it needs the control byte check.
    pub(super) printing: bool,
    /// Scratch text (canonical SAN, integers), the record's buffer lent for
    /// the parse.
    pub(super) san: Vec<u8>,
    /// Where the line starts in the record's arena: 0 when reading (the
    /// arena begins with a copy of the line), past the record's texts
    /// when an edit's operands are checked. Operands kept as written are
    /// spans of that copy.
    pub(super) shift: u32,
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
pub(super) fn find_any<const N: usize>(line: &[u8], mut p: usize, stops: [u8; N]) -> usize {
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

impl<'a, 'd> Parser<'a, 'd> {
    /// A parser for an edit's operands: `text` (their texts one after the
    /// other, as [`Token`]s index them) has just been appended to the
    /// record's arena. Strict, as the canonical text the edit leaves must
    /// read back strictly; every string is checked for control bytes.
    pub(super) fn for_edit(text: &'a [u8], rec: &'a mut Record, diags: &'d mut Vec<Diagnostic>) -> Parser<'a, 'd> {
        let shift = (rec.buf.len() - text.len()) as u32;
        let san = core::mem::take(&mut rec.scratch.san);
        Parser {
            line: text,
            mode: ParseMode::Strict,
            diags,
            before: 0,
            omitted: None,
            rec,
            canonical: false,
            last_op: Span::default(),
            printing: false,
            san,
            shift,
        }
    }

    /// Hands the scratch buffer back to the record.
    pub(super) fn finish(mut self) {
        self.rec.scratch.san = core::mem::take(&mut self.san);
    }
}

impl Parser<'_, '_> {
    pub(super) fn lenient(&self) -> bool {
        self.mode == ParseMode::Lenient
    }

    #[cold]
    #[inline(never)]
    /// A diagnostic on operand `i` (0-based) of `opname`.
    pub(super) fn operand_diag(
        &mut self,
        sev: Severity,
        code: Code,
        offset: usize,
        opname: &str,
        i: usize,
        message: String,
    ) {
        self.diag(sev, code, offset, Some(opname), Some(i), message);
    }

    /// An error on operand `i` (0-based) of `opname`.
    pub(super) fn operand_error(&mut self, code: Code, offset: usize, opname: &str, i: usize, message: String) {
        self.diag(Severity::Error, code, offset, Some(opname), Some(i), message);
    }

    pub(super) fn diag(
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
    pub(super) fn deviation(
        &mut self,
        code: Code,
        offset: usize,
        opcode: Option<&str>,
        operand: Option<usize>,
        message: String,
    ) {
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
            if problem.is_impossible_check() {
                // Its own code, an error read strictly, a warning (and the
                // position kept) read leniently.
                let severity = if self.lenient() { Severity::Warning } else { Severity::Error };
                position_ok &= self.lenient();
                let verb = if self.lenient() { "unreachable position accepted" } else { "illegal position" };
                self.diag(severity, Code::ImpossibleCheck, 0, None, None, format!("{verb}: {problem}"));
            } else if problem.prevents_play() || !self.lenient() {
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
                let shown = shorten(&String::from_utf8_lossy(text));
                // Kept as noop strings only if it can be: a control byte
                // (tab included) is no string content, so its canonical
                // form would not read back. A text of MAX_STRING bytes or
                // more is kept as several strings, each within the limit.
                let stringable = !text.iter().any(|&b| b < 0x20 || b == 0x7f);
                if self.lenient() && !text.is_empty() && stringable {
                    let pieces = string_pieces(text);
                    let kept = if pieces.len() == 1 {
                        "kept as a noop operand".to_owned()
                    } else {
                        format!(
                            "its {} bytes kept as {} noop operands (a string holds at most {} bytes)",
                            text.len(),
                            pieces.len(),
                            MAX_STRING - 1
                        )
                    };
                    self.diag(
                        Severity::Warning,
                        Code::BadOpcode,
                        op_start,
                        None,
                        None,
                        format!("{shown} is not an operation; {kept}"),
                    );
                    noop_extra.extend(pieces.into_iter().map(|piece| (op_start, piece.to_vec())));
                } else {
                    let why = if self.lenient() || !stringable {
                        "it holds a control byte, so it cannot be kept as a noop string either"
                    } else {
                        "expected a letter, then up to 14 letters, digits or '_' (--lenient keeps such text as noop)"
                    };
                    self.error(Code::BadOpcode, op_start, format!("{shown} is not an opcode: {why}"));
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
                    tokens.push(Token { start: content, end: p, quoted: true, escaped, given: None });
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
                    tokens.push(Token { start: s, end: p, quoted: false, escaped: false, given: None });
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
        self.check_operands(known, name, tokens);
        let operands = Span { start: first, end: self.rec.operands.len() as u32 };
        self.rec.ops.push(OpSlot { name: name_slot, offset: op_start as u32, end: op_end as u32, operands });
    }

    /// The cross-checks, reported.
    fn cross_checks(&mut self) {
        for f in cross::findings(self.rec) {
            self.diag(Severity::Error, f.code, f.offset, f.opcode, None, f.message);
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

/// `text` cut into pieces of at most `MAX_STRING - 1` bytes, each cut
/// made before a UTF-8 lead byte so no character is split: the noop
/// strings that keep a text too long for one.
fn string_pieces(mut text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while text.len() > MAX_STRING - 1 {
        let mut cut = MAX_STRING - 1;
        while cut > 1 && (text[cut] & 0xc0) == 0x80 {
            cut -= 1;
        }
        out.push(&text[..cut]);
        text = &text[cut..];
    }
    out.push(text);
    out
}

/// A text quoted for a message: whole up to 60 characters, else its
/// first 40 and its length.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 60 {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(40).collect();
    format!("{head:?}… ({} bytes)", text.len())
}

fn trim_blanks(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&b| !is_blank(b) && b != 0).unwrap_or(s.len());
    let b = s.iter().rposition(|&b| !is_blank(b) && b != 0).map_or(a, |i| i + 1);
    &s[a..b.max(a)]
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A mate-suite file's free text longer than a string: read leniently,
    /// kept whole as several noop strings, with a warning that says so;
    /// read strictly, refused for what it is (not an opcode).
    #[test]
    fn free_text_longer_than_a_string_is_kept_in_pieces() {
        let words = "Duals(117) ".repeat(40);
        let line = format!("8/8/8/8/8/8/8/k1K5 w - - {}; id \"x\";", words.trim_end());
        let (rec, diags) = Record::parse(line.as_bytes(), ParseMode::Lenient);
        assert!(!crate::has_errors(&diags), "{diags:?}");
        let warning = diags.iter().find(|d| d.code == Code::BadOpcode).expect("a warning");
        assert_eq!(warning.severity, Severity::Warning);
        assert!(warning.message.contains("its 439 bytes kept as 2 noop operands"), "{}", warning.message);
        assert!(warning.message.contains("at most 255 bytes"), "{}", warning.message);
        let noop = rec.get("noop").expect("noop");
        let kept: Vec<&[u8]> = noop.operands().map(|o| o.text()).collect();
        assert_eq!(kept.concat(), words.trim_end().as_bytes());
        assert!(kept.iter().all(|k| k.len() < MAX_STRING), "{kept:?}");
        // The canonical text reads back strictly, unchanged.
        let text = rec.to_string();
        let (again, diags) = Record::parse(text.as_bytes(), ParseMode::Strict);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(again.to_string(), text);

        let (_, diags) = Record::parse(line.as_bytes(), ParseMode::Strict);
        let error = diags.iter().find(|d| d.code == Code::BadOpcode).expect("an error");
        assert_eq!(error.severity, Severity::Error);
        assert!(
            error.message.starts_with("\"Duals(117) Duals(117) Duals(117) Duals(1\"… (439 bytes)"),
            "{}",
            error.message
        );
    }

    #[test]
    fn string_pieces_never_split_a_character() {
        let text = "é".repeat(300);
        let pieces = string_pieces(text.as_bytes());
        assert_eq!(pieces.len(), 3);
        assert!(pieces.iter().all(|p| p.len() < MAX_STRING && std::str::from_utf8(p).is_ok()));
        assert_eq!(pieces.concat(), text.as_bytes());
        assert_eq!(string_pieces(b"short"), vec![&b"short"[..]]);
    }
}
