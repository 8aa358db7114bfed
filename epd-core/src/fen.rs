//! FEN (six fields) and the four EPD position fields: parsing and writing.
//!
//! The strict parser follows the EPD specification (§4) to the letter. The
//! lenient parser also reads what real files contain (legacy short ranks,
//! a trailing solidus, castling letters in any order, an en passant square
//! given as the pawn's square, fullmove number 0, runs of blanks) and
//! reports every change it made as a [`Fix`].

use crate::{Bitboard, Board, Color, File, Piece, Position, PositionError, Rank, Role, Setup, Square, Validation};
use core::fmt;

/// How strictly to read text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ParseMode {
    /// Exactly the specification; every deviation is an error.
    Strict,
    /// Accept what a careful reader can, and report each change.
    #[default]
    Lenient,
}

/// Which field a [`FenError`] concerns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FenField {
    /// Piece placement (field 1).
    Placement,
    /// Active colour (field 2).
    Turn,
    /// Castling availability (field 3).
    Castling,
    /// En passant target square (field 4).
    EnPassant,
    /// Halfmove clock (FEN field 5).
    Halfmoves,
    /// Fullmove number (FEN field 6).
    Fullmoves,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Placement => "piece placement",
            FenField::Turn => "active colour",
            FenField::Castling => "castling availability",
            FenField::EnPassant => "en passant square",
            FenField::Halfmoves => "halfmove clock",
            FenField::Fullmoves => "fullmove number",
        })
    }
}

/// A syntax error in FEN or EPD position fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    /// Byte offset of the offending text (0-based) in the parsed input.
    pub offset: usize,
    /// The field.
    pub field: FenField,
    /// What was expected there.
    pub expected: &'static str,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} at column {}: expected {}", self.field, self.offset + 1, self.expected)
    }
}

impl std::error::Error for FenError {}

/// A change the lenient parser made to read its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// Byte offset of the text it concerns.
    pub offset: usize,
    /// The field.
    pub field: FenField,
    /// What was changed, in words.
    pub what: &'static str,
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at column {}: {}", self.field, self.offset + 1, self.what)
    }
}

/// The result of reading position fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedFields {
    /// The fields read.
    pub setup: Setup,
    /// Byte offset just past the last field read.
    pub end: usize,
    /// `true` if halfmove clock and fullmove number were present.
    pub has_counters: bool,
    /// Changes made by the lenient parser (always empty in strict mode).
    pub fixes: Vec<Fix>,
}

/// A FEN could not be read as a legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The text is not FEN/EPD.
    Syntax(FenError),
    /// The fields read describe no legal position.
    Position(PositionError),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax(e) => e.fmt(f),
            ParseError::Position(e) => write!(f, "illegal position: {e}"),
        }
    }
}

impl std::error::Error for ParseError {}

impl From<FenError> for ParseError {
    fn from(e: FenError) -> ParseError {
        ParseError::Syntax(e)
    }
}

impl From<PositionError> for ParseError {
    fn from(e: PositionError) -> ParseError {
        ParseError::Position(e)
    }
}

struct Reader<'a> {
    s: &'a [u8],
    pos: usize,
    mode: ParseMode,
    fixes: Vec<Fix>,
    /// The halfmove clock follows the en passant field without a blank.
    glued: bool,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<'a> Reader<'a> {
    fn err(&self, offset: usize, field: FenField, expected: &'static str) -> FenError {
        FenError { offset, field, expected }
    }

    fn fix(&mut self, offset: usize, field: FenField, what: &'static str) {
        self.fixes.push(Fix { offset, field, what });
    }

    /// The field starting at the current position (non-blank bytes).
    fn field(&mut self) -> (usize, &'a [u8]) {
        let s: &'a [u8] = self.s;
        let start = self.pos;
        // A ';' ends a field too: `... 0 1; D1 20` puts an operation
        // straight after the fullmove number.
        while self.pos < s.len() && !is_blank(s[self.pos]) && s[self.pos] != b';' {
            self.pos += 1;
        }
        (start, &s[start..self.pos])
    }

    /// Skips the separator before a field. Returns false at end of input.
    fn separator(&mut self, field: FenField) -> Result<bool, FenError> {
        let start = self.pos;
        while self.pos < self.s.len() && is_blank(self.s[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return Ok(false);
        }
        let n = self.pos - start;
        if n == 0 {
            return Err(self.err(self.pos, field, "a space between fields"));
        }
        if n > 1 || self.s[start] != b' ' {
            if self.mode == ParseMode::Strict {
                return Err(self.err(start, field, "a single space between fields"));
            }
            self.fix(start, field, "blanks between fields collapsed to one space");
        }
        Ok(true)
    }
}

/// Placement bytes as bit fields: the piece set to mark (`colour * 6 +
/// role`, or 12, a discarded set, for a digit or a slash), the files
/// advanced, and flags. A piece letter has no flag set.
const ADVANCE: u32 = 16;
const IS_DIGIT: u32 = 1 << 8;
const IS_SLASH: u32 = 1 << 9;
const IS_END: u32 = 1 << 10;
const IS_OTHER: u32 = 1 << 11;
static PLACE: [u32; 256] = {
    let mut t = [IS_OTHER; 256];
    let letters = *b"PNBRQK";
    let mut i = 0;
    while i < letters.len() {
        t[letters[i] as usize] = i as u32 | ADVANCE;
        t[letters[i].to_ascii_lowercase() as usize] = (6 + i as u32) | ADVANCE;
        i += 1;
    }
    let mut d = 1;
    while d <= 8 {
        t[(b'0' + d) as usize] = 12 | (ADVANCE * d as u32) | IS_DIGIT;
        d += 1;
    }
    t[b'/' as usize] = 12 | IS_SLASH;
    t[b' ' as usize] = IS_END;
    t
};

/// The squares a placement byte advances (a table of its own, so the
/// branch-free reader adds it without unpacking [`PLACE`]).
static PLACE_ADVANCE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (PLACE[b] / ADVANCE) & 15;
        b += 1;
    }
    t
};

/// 1 for '/', else 0.
static PLACE_SLASH: [u32; 256] = {
    let mut t = [0u32; 256];
    t[b'/' as usize] = 1;
    t
};

/// The piece placement at the start of `s` if it is written exactly as the
/// encoder writes it (8 ranks of 8 squares, no two digits in a row) and is
/// followed by a space; the board, the offset of that space and the XOR
/// of the pieces' Zobrist keys. `None` for anything else, which
/// [`parse_fields`] then explains.
///
/// Branch-free per byte but for the end: pieces, digits and slashes are
/// data a branch predictor cannot learn. `pos` counts the squares in
/// reading order (a8 = 0, h1 = 63: the square with its rank flipped, so
/// the sets are byte-swapped at the end); a piece advances it by one, a
/// digit by its count, a slash not at all. Each byte stores `pos` in the
/// slot of the rank it is in, so after the loop slot `k` holds where the
/// `k`-th slash stood: the placement is well formed when those are 8, 16,
/// …, 56, there are 7 slashes and `pos` ends at 64 (`pos` never decreases,
/// so no square was out of range).
// Out of line: inlined, it leaves the record reader's loop short of
// registers.
#[inline(never)]
pub(crate) fn canonical_placement<const HASH: bool>(s: &[u8]) -> Option<(Board, usize, u64)> {
    // Indexed by the low four bits: 12 piece kinds, then discards. In
    // reading order: flipped to squares (a byte swap) at the end.
    let mut sets = [0u64; 16];
    let mut hash = 0u64;
    let mut pos: u32 = 0;
    let mut slashes: u32 = 0;
    let mut at = [0u8; 8];
    // Bit `IS_DIGIT` of `twice` is set by two counts in a row.
    let mut prev: u32 = 0;
    let mut twice: u32 = 0;
    let mut stop = None;
    for (i, &b) in s.iter().enumerate() {
        let e = PLACE[usize::from(b)];
        if e >= IS_END {
            stop = Some((i, e));
            break;
        }
        twice |= prev & e;
        prev = e;
        let index = (e & 15) as usize;
        sets[index] |= 1u64.wrapping_shl(pos);
        if HASH {
            hash ^= crate::zobrist::piece_reading(index, pos as usize);
        }
        at[(slashes & 7) as usize] = pos as u8;
        slashes += PLACE_SLASH[usize::from(b)];
        pos += PLACE_ADVANCE[usize::from(b)];
    }
    let (i, e) = stop?;
    const SLASHES_AT: u64 = u64::from_le_bytes([8, 16, 24, 32, 40, 48, 56, 0]);
    if e & IS_OTHER != 0
        || twice & IS_DIGIT != 0
        || pos != 64
        || slashes != 7
        || u64::from_le_bytes(at) & (u64::MAX >> 8) != SLASHES_AT
    {
        return None;
    }
    let mut by_role = [Bitboard::EMPTY; 6];
    for (r, set) in by_role.iter_mut().enumerate() {
        *set = Bitboard((sets[r] | sets[6 + r]).swap_bytes());
    }
    let white = sets[..6].iter().fold(0, |a, &b| a | b).swap_bytes();
    let black = sets[6..12].iter().fold(0, |a, &b| a | b).swap_bytes();
    Some((Board::from_sets(by_role, [Bitboard(white), Bitboard(black)]), i, hash))
}

fn parse_placement(r: &mut Reader<'_>) -> Result<Board, FenError> {
    let (start, text) = r.field();
    let f = FenField::Placement;
    if text.is_empty() {
        return Err(r.err(start, f, "piece placement such as rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"));
    }
    let strict = r.mode == ParseMode::Strict;
    let mut board = Board::empty();
    let mut rank: u32 = 7;
    let mut file: u32 = 0;
    let mut prev_digit = false;
    let mut fixes: Vec<(usize, &'static str)> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let at = start + i;
        let code = PLACE[c as usize];
        // Pieces first: most bytes of a placement are piece letters.
        if code < IS_DIGIT {
            if file >= 8 {
                return Err(r.err(at, f, "at most 8 squares in a rank"));
            }
            // Each square is written once, on an empty board.
            let index = (code & 15) as usize;
            let color = if index >= 6 { Color::Black } else { Color::White };
            board.toggle(color, Role::ALL[index % 6], Square::from_index(rank * 8 + file));
            file += 1;
            prev_digit = false;
            i += 1;
            continue;
        }
        match c {
            b'/' => {
                if file < 8 {
                    if strict {
                        return Err(r.err(at, f, "8 squares in each rank before '/'"));
                    }
                    fixes.push((at, "short rank padded with empty squares"));
                }
                if rank == 0 {
                    if i + 1 == text.len() && !strict {
                        fixes.push((at, "trailing '/' removed"));
                        i += 1;
                        continue;
                    }
                    return Err(r.err(at, f, "exactly 7 '/' separators"));
                }
                rank -= 1;
                file = 0;
                prev_digit = false;
            }
            b'1'..=b'8' => {
                if prev_digit {
                    if strict {
                        return Err(r.err(at, f, "a piece letter or '/' after an empty-square count"));
                    }
                    fixes.push((at, "adjacent empty-square counts merged"));
                }
                file += u32::from(c - b'0');
                if file > 8 {
                    return Err(r.err(at, f, "at most 8 squares in a rank"));
                }
                prev_digit = true;
            }
            _ => {
                let Some(piece) = Piece::from_char(c) else {
                    return Err(r.err(at, f, "a piece letter (PNBRQK, pnbrqk), a digit 1-8 or '/'"));
                };
                if file >= 8 {
                    return Err(r.err(at, f, "at most 8 squares in a rank"));
                }
                // Each square is written once, on an empty board.
                board.toggle(piece.color, piece.role, Square::from_index(rank * 8 + file));
                file += 1;
                prev_digit = false;
            }
        }
        i += 1;
    }
    if rank != 0 {
        return Err(r.err(start + text.len(), f, "exactly 7 '/' separators (8 ranks)"));
    }
    if file < 8 {
        if strict {
            return Err(r.err(start + text.len(), f, "8 squares in the last rank"));
        }
        fixes.push((start + text.len(), "short rank padded with empty squares"));
    }
    for (at, what) in fixes {
        r.fix(at, f, what);
    }
    Ok(board)
}

fn parse_turn(r: &mut Reader<'_>) -> Result<Color, FenError> {
    let (start, text) = r.field();
    match text {
        b"w" => Ok(Color::White),
        b"b" => Ok(Color::Black),
        b"W" | b"B" if r.mode == ParseMode::Lenient => {
            let c = if text == b"W" { Color::White } else { Color::Black };
            r.fix(start, FenField::Turn, "upper-case active colour read as lower case");
            Ok(c)
        }
        _ => Err(r.err(start, FenField::Turn, "'w' or 'b'")),
    }
}

/// The rook a castling letter names (X-FEN: `K`/`Q` the outermost rook on
/// that side of the king, else the file's rook square) and its order key
/// (colour, then kingside first); `None` for a byte that is no castling
/// letter.
#[inline]
pub(crate) fn castling_letter(board: &Board, c: u8) -> Option<(Square, (usize, u8))> {
    let color = Color::from_white(c.is_ascii_uppercase());
    let rank = Rank::FIRST.relative(color);
    let king = board.king_of(color);
    let lower = c.to_ascii_lowercase();
    match lower {
        b'k' | b'q' => {
            let kingside = lower == b'k';
            let rooks = board.rooks() & board.by_color(color) & Bitboard::from_rank(rank);
            // X-FEN: the outermost rook on that side of the king.
            let side = match king {
                Some(k) if k.rank() == rank => {
                    rooks.into_iter().filter(|r| (r.index() > k.index()) == kingside).collect::<Bitboard>()
                }
                _ => Bitboard::EMPTY,
            };
            let default_file = if kingside { File::H } else { File::A };
            let sq =
                if kingside { side.last() } else { side.first() }.unwrap_or(Square::from_coords(default_file, rank));
            Some((sq, (color.index(), if kingside { 0 } else { 1 })))
        }
        b'a'..=b'h' => {
            let file = File::from_char(lower).unwrap_or(File::A);
            let sq = Square::from_coords(file, rank);
            let kingside = king.is_some_and(|k| file > k.file());
            Some((sq, (color.index(), if kingside { 0 } else { 1 })))
        }
        _ => None,
    }
}

fn parse_castling(r: &mut Reader<'_>, board: &Board) -> Result<Bitboard, FenError> {
    let (start, text) = r.field();
    let f = FenField::Castling;
    if text == b"-" {
        return Ok(Bitboard::EMPTY);
    }
    if text.is_empty() {
        return Err(r.err(start, f, "'-' or castling letters (KQkq, or files such as HAha)"));
    }
    let strict = r.mode == ParseMode::Strict;
    let mut rights = Bitboard::EMPTY;
    // Order key of the previous letter: colour, then kingside first.
    let mut last_key: Option<(usize, u8)> = None;
    let mut reordered = false;
    for (i, &c) in text.iter().enumerate() {
        let at = start + i;
        let (rook, key) = match c {
            b'-' => return Err(r.err(at, f, "'-' alone, not mixed with castling letters")),
            _ => match castling_letter(board, c) {
                Some(found) => found,
                None => return Err(r.err(at, f, "castling letters K, Q, k, q or a file letter A-H, a-h")),
            },
        };
        if rights.contains(rook) {
            if strict {
                return Err(r.err(at, f, "each castling letter at most once"));
            }
            r.fix(at, f, "repeated castling letter ignored");
            continue;
        }
        if let Some(prev) = last_key {
            if key <= prev {
                if strict {
                    return Err(r.err(at, f, "castling letters in the order K, Q, k, q"));
                }
                reordered = true;
            }
        }
        last_key = Some(key);
        rights.add(rook);
    }
    if reordered {
        r.fix(start, f, "castling letters put in KQkq order");
    }
    Ok(rights)
}

fn parse_ep(r: &mut Reader<'_>, turn: Color, board: &Board) -> Result<Option<Square>, FenError> {
    let (start, text) = r.field();
    let f = FenField::EnPassant;
    if text == b"-" {
        return Ok(None);
    }
    // `-0 1`: the halfmove clock glued to the en passant field.
    if r.mode == ParseMode::Lenient && text.len() > 1 && text[0] == b'-' && text[1..].iter().all(u8::is_ascii_digit) {
        r.pos = start + 1;
        r.glued = true;
        r.fix(start + 1, FenField::Halfmoves, "space inserted between en passant field and halfmove clock");
        return Ok(None);
    }
    let Some(sq) = Square::from_ascii(text) else {
        return Err(r.err(start, f, "'-' or a square such as e3 or e6"));
    };
    let want = Rank::new(5).map_or(Rank::EIGHTH, |x| x.relative(turn));
    if sq.rank() == want {
        return Ok(Some(sq));
    }
    // Legacy dialect: the square of the pawn that may be captured.
    let pawn_rank = Rank::new(4).map_or(Rank::EIGHTH, |x| x.relative(turn));
    if r.mode == ParseMode::Lenient
        && sq.rank() == pawn_rank
        && board.by_piece(Piece { color: turn.other(), role: Role::Pawn }).contains(sq)
    {
        let target = Square::from_coords(sq.file(), want);
        r.fix(start, f, "pawn's square converted to the en passant target square");
        return Ok(Some(target));
    }
    Err(r.err(
        start,
        f,
        if turn.is_white() { "a square on rank 6 (White to move)" } else { "a square on rank 3 (Black to move)" },
    ))
}

fn parse_counter(r: &mut Reader<'_>, field: FenField) -> Result<u32, FenError> {
    let (start, text) = r.field();
    let digits = match text {
        [b'+', rest @ ..] if r.mode == ParseMode::Lenient => rest,
        t => t,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(r.err(start, field, "a non-negative integer"));
    }
    if digits.len() > 1 && digits[0] == b'0' && r.mode == ParseMode::Strict {
        return Err(r.err(start, field, "an integer without leading zeros"));
    }
    let mut v: u32 = 0;
    for &d in digits {
        v = match v.checked_mul(10).and_then(|v| v.checked_add(u32::from(d - b'0'))) {
            Some(v) => v,
            None => return Err(r.err(start, field, "an integer below 2^32")),
        };
    }
    Ok(v)
}

/// Reads the four EPD position fields at the start of `s`, and the two FEN
/// counters if `counters` allows and they follow.
///
/// Reading stops after the fourth field (or the sixth); what follows is
/// left to the caller (EPD operations, say). Leading blanks are an error in
/// strict mode.
///
/// # Errors
/// [`FenError`] with the offset and what was expected.
pub fn parse_fields(s: &[u8], mode: ParseMode, counters: Counters) -> Result<ParsedFields, FenError> {
    let mut r = Reader { s, pos: 0, mode, fixes: Vec::new(), glued: false };
    while r.pos < s.len() && is_blank(s[r.pos]) {
        r.pos += 1;
    }
    if r.pos > 0 {
        if mode == ParseMode::Strict {
            return Err(r.err(0, FenField::Placement, "the piece placement at the start of the line"));
        }
        r.fix(0, FenField::Placement, "leading blanks removed");
    }
    let board = parse_placement(&mut r)?;
    let need = |r: &mut Reader<'_>, field: FenField, expected: &'static str| -> Result<(), FenError> {
        if r.separator(field)? {
            Ok(())
        } else {
            Err(r.err(r.pos, field, expected))
        }
    };
    need(&mut r, FenField::Turn, "the active colour field ('w' or 'b')")?;
    let turn = parse_turn(&mut r)?;
    need(&mut r, FenField::Castling, "the castling availability field")?;
    let castling_rights = parse_castling(&mut r, &board)?;
    need(&mut r, FenField::EnPassant, "the en passant square field")?;
    let ep_square = parse_ep(&mut r, turn, &board)?;
    let mut setup = Setup { board, turn, castling_rights, ep_square, halfmoves: 0, fullmoves: 1 };
    let mut end = r.pos;
    let mut has_counters = false;
    if counters != Counters::Forbidden {
        let save = (r.pos, r.fixes.len());
        let next_is_digit = r.glued || {
            let mut p = r.pos;
            while p < s.len() && is_blank(s[p]) {
                p += 1;
            }
            p > r.pos && p < s.len() && (s[p].is_ascii_digit() || (s[p] == b'+' && mode == ParseMode::Lenient))
        };
        if next_is_digit {
            if !r.glued {
                r.separator(FenField::Halfmoves)?;
            }
            let halfmoves = parse_counter(&mut r, FenField::Halfmoves)?;
            need(&mut r, FenField::Fullmoves, "the fullmove number field")?;
            let at = r.pos;
            let mut fullmoves = parse_counter(&mut r, FenField::Fullmoves)?;
            if fullmoves == 0 {
                if mode == ParseMode::Strict {
                    return Err(r.err(at, FenField::Fullmoves, "a fullmove number of 1 or more"));
                }
                r.fix(at, FenField::Fullmoves, "fullmove number 0 read as 1");
                fullmoves = 1;
            }
            setup.halfmoves = halfmoves;
            setup.fullmoves = fullmoves;
            has_counters = true;
            end = r.pos;
        } else if counters == Counters::Required {
            if mode == ParseMode::Strict {
                return Err(r.err(r.pos, FenField::Halfmoves, "the halfmove clock and fullmove number"));
            }
            r.fix(r.pos, FenField::Halfmoves, "missing move counters read as 0 1");
            r.pos = save.0;
        } else {
            r.pos = save.0;
            r.fixes.truncate(save.1);
        }
    }
    Ok(ParsedFields { setup, end, has_counters, fixes: r.fixes })
}

/// Whether [`parse_fields`] reads the two FEN move counters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Counters {
    /// FEN: six fields. Lenient mode accepts their absence with a fix.
    Required,
    /// Read them if the fifth field is a number (FEN or EPD).
    Optional,
    /// EPD: four fields only.
    Forbidden,
}

impl Setup {
    /// Parses a FEN (six fields; in lenient mode four suffice). Nothing but
    /// blanks may follow the last field.
    ///
    /// # Errors
    /// [`FenError`] with the offset and what was expected.
    pub fn from_fen(fen: &[u8], mode: ParseMode) -> Result<Setup, FenError> {
        let parsed = parse_fields(fen, mode, Counters::Required)?;
        let rest = &fen[parsed.end..];
        let trailing = rest.iter().position(|&b| !is_blank(b) && b != b'\r' && b != b'\n');
        if let Some(i) = trailing {
            return Err(FenError {
                offset: parsed.end + i,
                field: FenField::Fullmoves,
                expected: "the end of the FEN",
            });
        }
        if mode == ParseMode::Strict && !rest.is_empty() {
            return Err(FenError { offset: parsed.end, field: FenField::Fullmoves, expected: "the end of the FEN" });
        }
        Ok(parsed.setup)
    }

    /// Appends the four EPD position fields.
    pub fn append_epd_fields(&self, out: &mut Vec<u8>) {
        self.board.append_placement(out);
        out.push(b' ');
        out.push(self.turn.char() as u8);
        out.push(b' ');
        append_castling(&self.board, self.castling_rights, out);
        out.push(b' ');
        match self.ep_square {
            Some(sq) => sq.append_to(out),
            None => out.push(b'-'),
        }
    }

    /// Appends the six FEN fields.
    pub fn append_fen(&self, out: &mut Vec<u8>) {
        self.append_epd_fields(out);
        out.push(b' ');
        out.extend_from_slice(self.halfmoves.to_string().as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.fullmoves.to_string().as_bytes());
    }

    /// The six FEN fields.
    #[must_use]
    pub fn fen(&self) -> String {
        let mut v = Vec::with_capacity(90);
        self.append_fen(&mut v);
        String::from_utf8(v).unwrap_or_default()
    }

    /// The four EPD position fields.
    #[must_use]
    pub fn epd(&self) -> String {
        let mut v = Vec::with_capacity(80);
        self.append_epd_fields(&mut v);
        String::from_utf8(v).unwrap_or_default()
    }
}

/// Writes castling rights in X-FEN: `K`/`Q` (`k`/`q`) for the outermost
/// rook on a side, the rook's file letter otherwise.
pub(crate) fn append_castling(board: &Board, rights: Bitboard, out: &mut Vec<u8>) {
    let start = out.len();
    for color in Color::ALL {
        let rank = Rank::FIRST.relative(color);
        let ours = rights & Bitboard::from_rank(rank);
        let rooks = board.rooks() & board.by_color(color) & Bitboard::from_rank(rank);
        let king = board.king_of(color).filter(|k| k.rank() == rank);
        let is_kingside = |rook: Square| king.map_or(rook.file() >= File::E, |k| rook.index() > k.index());
        // Kingside rights from the h-file inwards, then queenside ones from
        // the a-file inwards.
        let kingside = ours.into_iter().rev().filter(|&r| is_kingside(r)).map(|r| (r, b'K', true));
        let queenside = ours.into_iter().filter(|&r| !is_kingside(r)).map(|r| (r, b'Q', false));
        for (rook, letter, kingside) in kingside.chain(queenside) {
            let outermost = if kingside {
                (rooks & Bitboard(!0u64 << rook.index() << 1)).is_empty()
            } else {
                (rooks & Bitboard((1u64 << rook.index()) - 1)).is_empty()
            };
            let plain = outermost && rooks.contains(rook);
            let ch = if plain { letter } else { rook.file().char() as u8 - b'a' + b'A' };
            out.push(if color.is_white() { ch } else { ch.to_ascii_lowercase() });
        }
    }
    if out.len() == start {
        out.push(b'-');
    }
}

impl Position {
    /// Parses a FEN or the four EPD position fields (strict syntax, then
    /// validation). Anything after the fields is an error.
    ///
    /// # Errors
    /// [`ParseError`]: a syntax error or an illegal position.
    pub fn from_fen(fen: &str) -> Result<Position, ParseError> {
        Position::from_fen_bytes(fen.as_bytes(), ParseMode::Strict)
    }

    /// Parses a FEN or EPD position fields in the given mode. Lenient
    /// reading means what it means for records: the legacy dialects of the
    /// fields, and a position no legal game reaches but on which moves are
    /// defined ([`Validation::Playable`]; a record read leniently gets
    /// warning E032 for it). Strict reading wants a reachable position
    /// ([`Validation::Full`]).
    ///
    /// # Errors
    /// [`ParseError`]: a syntax error or an illegal position.
    pub fn from_fen_bytes(fen: &[u8], mode: ParseMode) -> Result<Position, ParseError> {
        let parsed = parse_fields(fen, mode, Counters::Optional)?;
        if let Some(i) = fen[parsed.end..].iter().position(|&b| !is_blank(b) && b != b'\r' && b != b'\n') {
            return Err(ParseError::Syntax(FenError {
                offset: parsed.end + i,
                field: if parsed.has_counters { FenField::Fullmoves } else { FenField::EnPassant },
                expected: "the end of the position",
            }));
        }
        let validation = match mode {
            ParseMode::Strict => Validation::Full,
            ParseMode::Lenient => Validation::Playable,
        };
        Ok(Position::from_setup_with(parsed.setup, validation)?)
    }

    /// The six FEN fields.
    #[must_use]
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// The four EPD position fields.
    #[must_use]
    pub fn epd(&self) -> String {
        self.to_setup().epd()
    }

    /// Appends the four EPD position fields.
    pub fn append_epd_fields(&self, out: &mut Vec<u8>) {
        self.to_setup().append_epd_fields(out);
    }

    /// Appends the six FEN fields.
    pub fn append_fen(&self, out: &mut Vec<u8>) {
        self.to_setup().append_fen(out);
    }
}

impl core::str::FromStr for Position {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Position, ParseError> {
        Position::from_fen(s)
    }
}

impl fmt::Display for Position {
    /// The FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free reader accepts exactly the placements the strict
    /// reader accepts and the encoder would write, with the same board.
    #[test]
    fn canonical_placement_reads_what_the_encoder_writes() {
        for (placement, canonical) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", true),
            ("8/8/8/8/8/8/8/8", true),
            ("k7/8/8/8/8/8/8/7K", true),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R", true),
            ("44/8/8/8/8/8/8/8", false),
            ("8/8/8/8/8/8/8", false),
            ("8/8/8/8/8/8/8/8/8", false),
            ("9/8/8/8/8/8/8/8", false),
            ("7/8/8/8/8/8/8/8", false),
            ("rnbqkbnrr/8/8/8/8/8/8/8", false),
            ("k8/8/8/8/8/8/8/8", false),
            ("8k/8/8/8/8/8/8/8", false),
            ("7k1/8/8/8/8/8/8/8", false),
            ("8/8/8/8/8/8/8/7", false),
            ("8/8/8/8/8/8/8/8/", false),
            ("8//8/8/8/8/8/8", false),
            ("x7/8/8/8/8/8/8/8", false),
            ("", false),
            // Full ranks (the word holds no end), '0' and '9', long ranks.
            ("rnbqkbnr/pppppppp/PPPPPPPP/RNBQKBNR/8/8/8/8", true),
            ("8/8/8/8/8/8/8/RNBQKBNR", true),
            ("8/8/8/8/8/8/8/RNBQKBNRR", false),
            ("ppp0pppp/8/8/8/8/8/8/8", false),
            ("pppp0pppp/8/8/8/8/8/8/8", false),
            ("p0ppppppp/8/8/8/8/8/8/8", false),
            ("08/8/8/8/8/8/8/8", false),
            ("80/8/8/8/8/8/8/8", false),
            ("1p1p1p1p/p1p1p1p1/8/8/8/8/8/8", true),
            ("1p1p1p1p/p1p1p11/8/8/8/8/8/8", false),
            ("8/8/8/8/8/8/8/8/8/8", false),
            ("8/8/8/8 8/8/8/8", false),
            ("8/8/8/8/8/8/8/k\u{0}6", false),
            ("8/8/8/8/8/8/8/k\u{e9}6", false),
            ("8/8/8/8/8/8/8/K6\u{7f}", false),
        ] {
            let line = format!("{placement} w - -");
            let fast = canonical_placement::<true>(line.as_bytes());
            assert_eq!(fast.is_some(), canonical, "{placement:?}");
            if let Some((board, end, hash)) = fast {
                assert_eq!(end, placement.len(), "{placement:?}");
                let keys = board.pieces().fold(0, |h, (sq, p)| h ^ crate::zobrist::piece(p.color, p.role, sq));
                assert_eq!(hash, keys, "{placement:?}");
                let strict = parse_fields(line.as_bytes(), ParseMode::Strict, Counters::Forbidden).unwrap();
                assert_eq!(board, strict.setup.board, "{placement:?}");
            }
        }
    }

    #[test]
    fn round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "8/8/8/8/8/8/8/K6k b - - 99 150",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "1r2k1r1/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(pos.fen(), fen);
        }
    }

    #[test]
    fn shredder_letters_read_and_written_as_x_fen() {
        let pos = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
        assert_eq!(pos.castling_rights().count(), 4);
        assert!(pos.is_chess960());
        assert!(pos.fen().contains(" KQkq "));
        // Two rooks on one side: the inner one is named by its file.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4KRR1 w F - 0 1").unwrap();
        assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1");
    }

    #[test]
    fn strict_errors_name_column_and_expectation() {
        for (fen, offset, field) in [
            ("", 0, FenField::Placement),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", 34, FenField::Placement),
            ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 18, FenField::Placement),
            ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 16, FenField::Placement),
            ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 19, FenField::Placement),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", 43, FenField::Placement),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", 44, FenField::Turn),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QKkq - 0 1", 47, FenField::Castling),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", 51, FenField::EnPassant),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -  0 1", 52, FenField::Halfmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", 55, FenField::Fullmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", 55, FenField::Fullmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", 52, FenField::Halfmoves),
        ] {
            let e = Setup::from_fen(fen.as_bytes(), ParseMode::Strict).expect_err(fen);
            assert_eq!((e.offset, e.field), (offset, field), "{fen}: {e}");
        }
    }

    #[test]
    fn lenient_reads_legacy_dialect_and_reports_fixes() {
        // The 1996 help text's example: short ranks and a trailing '/'.
        let parsed = parse_fields(b"k2r/ppp5/8/8/8/Q/5PPP/7K/ b -  -", ParseMode::Lenient, Counters::Optional).unwrap();
        assert_eq!(parsed.setup.epd(), "k2r4/ppp5/8/8/8/Q7/5PPP/7K b - -");
        assert!(parsed.fixes.len() >= 3);
        // En passant given as the pawn's square; castling out of order.
        let parsed = parse_fields(
            b"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w qkQK e5 0 1",
            ParseMode::Lenient,
            Counters::Optional,
        )
        .unwrap();
        assert_eq!(parsed.setup.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 1");
        assert_eq!(parsed.fixes.len(), 2);
        // Halfmove clock glued to the en passant field.
        let parsed =
            parse_fields(b"8/8/8/8/8/8/8/K6k w - -0 1 bm Ka2;", ParseMode::Lenient, Counters::Optional).unwrap();
        assert_eq!(parsed.setup.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(&b"8/8/8/8/8/8/8/K6k w - -0 1 bm Ka2;"[parsed.end..], b" bm Ka2;");
        assert!(parse_fields(b"8/8/8/8/8/8/8/K6k w - -0 1", ParseMode::Strict, Counters::Optional).is_err());
        // Fullmove number 0.
        let s = Setup::from_fen(b"8/8/8/8/8/8/8/K6k w - - 1 0", ParseMode::Lenient).unwrap();
        assert_eq!(s.fullmoves, 1);
        assert!(Setup::from_fen(b"8/8/8/8/8/8/8/K6k w - - 1 0", ParseMode::Strict).is_err());
    }

    #[test]
    fn any_bytes_give_an_error_not_a_panic() {
        let mut x = epd_testkit::XorShift::new(12345);
        let a = b"rnbqkpRNBQKP12345678/ wb-KQkqe3 \0\xff";
        let start = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (mut ok, mut err) = (0, 0);
        for len in 0..400 {
            // Random strings of the FEN alphabet, and the start position
            // with one byte replaced (which often stays valid).
            let bytes: Vec<u8> = if len % 2 == 0 {
                (0..len / 2).map(|_| a[x.below(a.len())]).collect()
            } else {
                let mut b = start.to_vec();
                let at = x.below(b.len());
                b[at] = a[x.below(a.len())];
                b
            };
            let strict = Position::from_fen_bytes(&bytes, ParseMode::Strict);
            let lenient = Position::from_fen_bytes(&bytes, ParseMode::Lenient);
            match (&strict, &lenient) {
                // What strict reading accepts, lenient reading accepts the same.
                (Ok(s), Ok(l)) => assert_eq!(s, l, "{}", String::from_utf8_lossy(&bytes)),
                (Ok(_), Err(e)) => panic!("lenient rejects what strict accepts: {e}"),
                _ => {}
            }
            for (r, mode) in [(strict, ParseMode::Strict), (lenient, ParseMode::Lenient)] {
                match r {
                    // A position read is written back and read again the
                    // same, in the same mode.
                    Ok(p) => {
                        ok += 1;
                        assert_eq!(Position::from_fen_bytes(p.fen().as_bytes(), mode).ok(), Some(p));
                    }
                    Err(e) => {
                        err += 1;
                        assert!(!e.to_string().is_empty());
                    }
                }
            }
        }
        assert!(ok > 20 && err > 200, "{ok} read, {err} refused");
    }

    #[test]
    fn position_errors() {
        for (fen, err) in [
            ("8/8/8/8/8/8/8/K7 w - - 0 1", PositionError::MissingKing(Color::Black)),
            ("k7/8/8/8/8/8/8/KK6 w - - 0 1", PositionError::TooManyKings(Color::White)),
            ("k7/8/8/8/8/8/8/K6P w - - 0 1", PositionError::PawnOnBackRank(Square::H1)),
            ("k7/pppppppp/p7/8/8/8/8/K7 w - - 0 1", PositionError::TooManyPawns(Color::Black)),
            ("k7/8/8/8/8/8/PPPPPPPP/KNNN4 w - - 0 1", PositionError::PromotionBudget(Color::White)),
            ("k7/8/8/8/8/8/8/K7 w K - 0 1", PositionError::InvalidCastlingRight(Square::H1)),
            (
                "k7/8/8/8/8/8/8/K7 w - e6 0 1",
                PositionError::InvalidEnPassant(Square::E6, "no pawn stands where a double push would have put it"),
            ),
            ("k7/8/8/8/8/8/8/R6K w - - 0 1", PositionError::OppositeCheck),
            ("k7/8/8/8/8/1n6/2n5/K7 w - - 0 1", PositionError::ImpossibleCheck),
        ] {
            assert!(Position::from_fen("k7/8/8/8/8/8/8/4K2R w K - 0 1").is_ok());
            let e = Position::from_fen(fen).expect_err(fen);
            let want = match err {
                PositionError::InvalidEnPassant(sq, _) => {
                    assert!(
                        matches!(e, ParseError::Position(PositionError::InvalidEnPassant(s, _)) if s == sq),
                        "{fen}: {e}"
                    );
                    continue;
                }
                e => e,
            };
            assert_eq!(e, ParseError::Position(want), "{fen}");
        }
    }
}
