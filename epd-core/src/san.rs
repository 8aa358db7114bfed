//! SAN (Standard Algebraic Notation): canonical encoding, and decoding in
//! a strict and a lenient mode.
//!
//! Decoding never generates all legal moves to encode and compare them, as
//! the 1996 kit did: the text is parsed into its parts ([`San`]), the
//! candidate origin squares are found by reverse attack lookup, and only
//! those candidates are tested for legality.

use crate::attacks;
use crate::{Bitboard, File, Move, MoveKind, Position, Rank, Role, Square};
use core::fmt;

/// How strictly SAN is read.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum SanMode {
    /// Only the canonical form, check marks included and verified.
    Strict,
    /// Also `0-0`, missing or extra `x`, `+` and `#`, `e8Q`, `e8=q`,
    /// `e8(Q)`, over-disambiguation, coordinate and long algebraic moves,
    /// `ep`/`e.p.` suffixes and trailing annotations (`!`, `?`, `!?`).
    #[default]
    Lenient,
}

/// Why a SAN string was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SanError {
    /// The text is not a move at all.
    Syntax {
        /// Byte offset of the problem.
        offset: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// No legal move fits.
    Illegal {
        /// Why, in words ("no knight can reach f3").
        reason: String,
    },
    /// More than one legal move fits.
    Ambiguous {
        /// The origin squares that fit.
        candidates: Vec<Square>,
    },
    /// Strict mode: a legal move, but not written canonically.
    NotCanonical {
        /// The canonical SAN of the move meant.
        canonical: String,
    },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax { offset, expected } => {
                write!(f, "invalid san at column {}: expected {}", offset + 1, expected)
            }
            SanError::Illegal { reason } => write!(f, "illegal san: {reason}"),
            SanError::Ambiguous { candidates } => {
                f.write_str("ambiguous san: pieces on ")?;
                for (i, sq) in candidates.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{sq}")?;
                }
                f.write_str(" can all make it")
            }
            SanError::NotCanonical { canonical } => {
                write!(f, "non-canonical san: expected {canonical}")
            }
        }
    }
}

impl std::error::Error for SanError {}

/// Castling side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// `O-O`, towards the h-file.
    KingSide,
    /// `O-O-O`, towards the a-file.
    QueenSide,
}

/// The parts of a SAN (or coordinate) move, before it is matched against a
/// position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move.
    Normal {
        /// The moving role.
        role: Role,
        /// Origin file, if given.
        file: Option<File>,
        /// Origin rank, if given.
        rank: Option<Rank>,
        /// `x` was written.
        capture: bool,
        /// The target square.
        to: Square,
        /// The promotion role, if given.
        promotion: Option<Role>,
    },
    /// Castling.
    Castle(CastlingSide),
    /// A coordinate move (`e2e4`, `e7e8q`, `e1g1`): the role is whatever
    /// stands on `from`.
    Coordinate {
        /// Origin.
        from: Square,
        /// Target.
        to: Square,
        /// Promotion role.
        promotion: Option<Role>,
    },
}

/// A check mark written after a move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`
    Check,
    /// `#`
    Checkmate,
}

/// A parsed SAN with what was written around it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move part.
    pub san: San,
    /// The check mark, if any.
    pub suffix: Option<Suffix>,
}

fn syntax(offset: usize, expected: &'static str) -> SanError {
    SanError::Syntax { offset, expected }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

impl SanPlus {
    /// Parses SAN text. In strict mode only the canonical alphabet is
    /// accepted (whether the move is canonical for its position is checked
    /// by [`Position::parse_san`]).
    ///
    /// # Errors
    /// [`SanError::Syntax`] with the offset and what was expected.
    pub fn from_ascii(s: &[u8], mode: SanMode) -> Result<SanPlus, SanError> {
        parse_san_text(s, mode, false)
    }
}

/// One forward pass over the common shape
/// `[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=[NBRQ])?[+#]?`; `None` for anything
/// else (castling, lenient spellings, errors), which the general parser
/// handles.
#[inline]
fn parse_common_san(s: &[u8]) -> Option<SanPlus> {
    let mut i = 0;
    let n = s.len();
    let (role, explicit) = match s.first()? {
        b'N' => (Role::Knight, true),
        b'B' => (Role::Bishop, true),
        b'R' => (Role::Rook, true),
        b'Q' => (Role::Queen, true),
        b'K' => (Role::King, true),
        _ => (Role::Pawn, false),
    };
    if explicit {
        i = 1;
    }
    // Up to four square characters, an optional 'x' among them.
    let mut chars = [0u8; 4];
    let mut k = 0;
    let mut capture = false;
    let mut x_at = 0;
    while i < n && k < 4 {
        match s[i] {
            c @ (b'a'..=b'h' | b'1'..=b'8') => {
                chars[k] = c;
                k += 1;
            }
            b'x' if !capture && k <= 2 => {
                capture = true;
                x_at = k;
            }
            _ => break,
        }
        i += 1;
    }
    // The 'x' stands right before the target square.
    if k < 2 || (capture && x_at != k - 2) {
        return None;
    }
    let to = Square::from_ascii(&chars[k - 2..k])?;
    let (file, rank) = match &chars[..k - 2] {
        [] => (None, None),
        [c] if c.is_ascii_lowercase() => (File::from_char(*c), None),
        [c] => (None, Rank::from_char(*c)),
        [f, r] => (Some(File::from_char(*f)?), Some(Rank::from_char(*r)?)),
        _ => return None,
    };
    if !explicit && (rank.is_some() || file.is_some() != capture) {
        return None;
    }
    let mut promotion = None;
    if i + 1 < n && s[i] == b'=' {
        promotion = match s[i + 1] {
            b'N' => Some(Role::Knight),
            b'B' => Some(Role::Bishop),
            b'R' => Some(Role::Rook),
            b'Q' => Some(Role::Queen),
            _ => return None,
        };
        if explicit {
            return None;
        }
        i += 2;
    }
    let suffix = match s.get(i) {
        None => None,
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Checkmate),
        Some(_) => return None,
    };
    if i + usize::from(suffix.is_some()) != n {
        return None;
    }
    Some(SanPlus { san: San::Normal { role, file, rank, capture, to, promotion }, suffix })
}

/// The role index of a SAN piece letter (N B R Q K); 0 (a pawn move) for
/// any other byte.
static PIECE_LETTER: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'N' as usize] = Role::Knight as u8;
    t[b'B' as usize] = Role::Bishop as u8;
    t[b'R' as usize] = Role::Rook as u8;
    t[b'Q' as usize] = Role::Queen as u8;
    t[b'K' as usize] = Role::King as u8;
    t
};

/// The parts of a move of the role `Role::ALL[R]` written in the shape
/// canonical SAN of a piece or pawn move has,
/// `[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=[NBRQ])?[+#]?`, read from the end:
/// origin file and rank, capture mark, target, promotion and check mark.
/// The caller has read the piece letter (none for a pawn, `R == 0`). `None`
/// for any other text. Whether the parts are the canonical ones for the
/// position is for the caller to check.
#[allow(clippy::type_complexity)]
#[inline(always)]
fn split_canonical_shape<const R: usize>(
    s: &[u8],
) -> Option<(Option<File>, Option<Rank>, bool, Square, Option<Role>, Option<Suffix>)> {
    let start = usize::from(R != 0);
    let mut end = s.len();
    let suffix = match *s.last()? {
        b'+' => Some(Suffix::Check),
        b'#' => Some(Suffix::Checkmate),
        _ => None,
    };
    if suffix.is_some() {
        end -= 1;
    }
    let mut promotion = None;
    if R == 0 && end >= 4 && s[end - 2] == b'=' {
        promotion = Some(match s[end - 1] {
            b'N' => Role::Knight,
            b'B' => Role::Bishop,
            b'R' => Role::Rook,
            b'Q' => Role::Queen,
            _ => return None,
        });
        end -= 2;
    }
    if end < start + 2 {
        return None;
    }
    let to = Square::from_coords(File::from_char(s[end - 2])?, Rank::from_char(s[end - 1])?);
    end -= 2;
    let capture = end > start && s[end - 1] == b'x';
    if capture {
        end -= 1;
    }
    let (file, rank) = match s[start..end] {
        [] => (None, None),
        [c @ b'a'..=b'h'] => (File::from_char(c), None),
        [c @ b'1'..=b'8'] => (None, Rank::from_char(c)),
        [f, r] => (Some(File::from_char(f)?), Some(Rank::from_char(r)?)),
        _ => return None,
    };
    Some((file, rank, capture, to, promotion, suffix))
}

fn parse_san_text(s: &[u8], mode: SanMode, b_is_bishop: bool) -> Result<SanPlus, SanError> {
    if !b_is_bishop {
        if let Some(sp) = parse_common_san(s) {
            return Ok(sp);
        }
    }
    let lenient = mode == SanMode::Lenient;
    let mut end = s.len();
    if end == 0 {
        return Err(syntax(0, "a move"));
    }
    // Trailing annotations, then check marks, then en passant suffixes.
    if lenient {
        while end > 0 && matches!(s[end - 1], b'!' | b'?') {
            end -= 1;
        }
    }
    let mut suffix = None;
    while end > 0 && matches!(s[end - 1], b'+' | b'#') {
        let this = if s[end - 1] == b'#' { Suffix::Checkmate } else { Suffix::Check };
        if suffix.is_some() && !lenient {
            return Err(syntax(end - 1, "at most one check mark"));
        }
        // `#` wins over `+` when both are written (`++` means mate too).
        suffix = match (suffix, this) {
            (Some(Suffix::Checkmate), _) | (_, Suffix::Checkmate) => Some(Suffix::Checkmate),
            (Some(Suffix::Check), Suffix::Check) => Some(Suffix::Checkmate),
            _ => Some(Suffix::Check),
        };
        end -= 1;
    }
    if lenient {
        for ep in [&b"e.p."[..], b"ep"] {
            if end >= ep.len() + 2 && &s[end - ep.len()..end] == ep {
                end -= ep.len();
                while end > 0 && s[end - 1] == b' ' {
                    end -= 1;
                }
                break;
            }
        }
        // Annotations may also stand before the check mark (`Qxf7!+`).
        while end > 0 && matches!(s[end - 1], b'!' | b'?') {
            end -= 1;
        }
    }
    let body = &s[..end];
    if body.is_empty() {
        return Err(syntax(0, "a move before the check mark"));
    }
    let castle = match body {
        b"O-O" => Some(CastlingSide::KingSide),
        b"O-O-O" => Some(CastlingSide::QueenSide),
        b"0-0" | b"o-o" if lenient => Some(CastlingSide::KingSide),
        b"0-0-0" | b"o-o-o" if lenient => Some(CastlingSide::QueenSide),
        _ => None,
    };
    if let Some(side) = castle {
        return Ok(SanPlus { san: San::Castle(side), suffix });
    }
    if !lenient && matches!(body, b"0-0" | b"0-0-0") {
        return Err(syntax(0, "castling written with the letter O (O-O, O-O-O)"));
    }
    if matches!(body, b"--" | b"0000" | b"Z0" | b"@@@@" | b"null") {
        return Err(SanError::Illegal { reason: "a null move is not a legal move".into() });
    }

    let mut i = 0;
    // Piece letter.
    let mut role = Role::Pawn;
    let mut explicit_role = false;
    match body[0] {
        b'N' | b'B' | b'R' | b'Q' | b'K' => {
            role = Role::from_char(body[0]).unwrap_or(Role::Pawn);
            explicit_role = true;
            i = 1;
        }
        b'P' if lenient => {
            explicit_role = true;
            i = 1;
        }
        b'n' | b'r' | b'q' | b'k' if lenient => {
            role = Role::from_char(body[0]).unwrap_or(Role::Pawn);
            explicit_role = true;
            i = 1;
        }
        b'b' if lenient && b_is_bishop => {
            role = Role::Bishop;
            explicit_role = true;
            i = 1;
        }
        _ => {}
    }
    // Promotion, from the end: `=Q`, `Q`, `(Q)`, `/Q`, any case in lenient.
    let mut j = body.len();
    let mut promotion = None;
    if j >= 2 && body[j - 1] == b')' && lenient {
        if j >= 3 && body[j - 3] == b'(' {
            promotion = Role::from_char(body[j - 2]);
            if promotion.is_none() {
                return Err(syntax(j - 2, "a promotion piece (Q, R, B or N)"));
            }
            j -= 3;
        }
    } else if j >= 1 && !body[j - 1].is_ascii_digit() && j >= 3 {
        let c = body[j - 1];
        let r = if lenient { Role::from_char(c) } else { Role::from_upper_char(c) };
        if let Some(r) = r {
            if body[j - 2] == b'=' || (lenient && body[j - 2] == b'/') {
                promotion = Some(r);
                j -= 2;
            } else if lenient && body[j - 2].is_ascii_digit() {
                promotion = Some(r);
                j -= 1;
            } else if !lenient {
                return Err(syntax(j - 1, "'=' before the promotion piece"));
            }
        }
    }
    if matches!(promotion, Some(Role::Pawn | Role::King)) {
        return Err(syntax(j.saturating_sub(1), "a promotion piece (Q, R, B or N)"));
    }
    // Target square.
    if j < i + 2 {
        return Err(syntax(j.min(body.len()), "a target square such as e4"));
    }
    let to = match Square::from_ascii(&body[j - 2..j]) {
        Some(sq) => sq,
        None => {
            let at = if File::from_char(body[j - 2]).is_none() { j - 2 } else { j - 1 };
            return Err(syntax(at, "a target square such as e4"));
        }
    };
    j -= 2;
    // Capture / separator.
    let mut capture = false;
    let mut separator = false;
    if j > i {
        match body[j - 1] {
            b'x' => {
                capture = true;
                j -= 1;
            }
            b':' | b'-' if lenient => {
                separator = true;
                capture = body[j - 1] == b':';
                j -= 1;
            }
            _ => {}
        }
    }
    // Disambiguation: file, rank, or both.
    let mid = &body[i..j];
    let (file, rank) = match mid {
        [] => (None, None),
        [f] if File::from_char(*f).is_some() => (File::from_char(*f), None),
        [r] if Rank::from_char(*r).is_some() => (None, Rank::from_char(*r)),
        [f, r] if File::from_char(*f).is_some() && Rank::from_char(*r).is_some() => {
            (File::from_char(*f), Rank::from_char(*r))
        }
        _ => {
            return Err(syntax(i, "a piece letter (N, B, R, Q, K), a file or a rank before the target"));
        }
    };
    if separator && !(file.is_some() && rank.is_some()) {
        return Err(syntax(j, "a full origin square before '-'"));
    }
    if !explicit_role {
        if let (Some(f), Some(r)) = (file, rank) {
            // Coordinate or long algebraic without a piece letter.
            if !lenient {
                return Err(syntax(0, "SAN, not a coordinate move"));
            }
            let from = Square::from_coords(f, r);
            return Ok(SanPlus { san: San::Coordinate { from, to, promotion }, suffix });
        }
        if rank.is_some() && !lenient {
            return Err(syntax(i, "a file before a pawn capture"));
        }
    }
    if role != Role::Pawn && promotion.is_some() {
        return Err(syntax(j, "promotion only for a pawn move"));
    }
    Ok(SanPlus { san: San::Normal { role, file, rank, capture, to, promotion }, suffix })
}

impl Position {
    /// Decodes SAN into the legal move it names.
    ///
    /// Strict mode accepts only the canonical SAN of the move, check marks
    /// included. Lenient mode accepts what [`SanMode::Lenient`] lists.
    ///
    /// # Errors
    /// [`SanError`] saying why: syntax, no such legal move, ambiguity, or
    /// (strict) a non-canonical spelling.
    pub fn parse_san(&self, s: &[u8], mode: SanMode) -> Result<Move, SanError> {
        if mode == SanMode::Strict {
            if let Some(m) = self.strict_fast(s) {
                return Ok(m);
            }
        }
        let (m, rivals) = self.resolve_text(s, mode)?;
        if mode == SanMode::Strict {
            let mut canonical = SanBuf::default();
            self.append_canonical_san(m, rivals, &mut canonical);
            if canonical.as_slice() != s {
                return Err(SanError::NotCanonical {
                    canonical: String::from_utf8_lossy(canonical.as_slice()).into_owned(),
                });
            }
        }
        Ok(m)
    }

    /// Strict decoding of a piece or pawn move whose written form can be
    /// checked against the canonical one part by part (capture mark,
    /// minimal disambiguation, check mark) without encoding it. `None`
    /// when that is not enough to accept it; the caller then decodes the
    /// general way, which also produces the error.
    pub(crate) fn strict_fast(&self, s: &[u8]) -> Option<Move> {
        if s.first() == Some(&b'O') {
            let (body, suffix) = match s.last() {
                Some(b'+') => (&s[..s.len() - 1], Some(Suffix::Check)),
                Some(b'#') => (&s[..s.len() - 1], Some(Suffix::Checkmate)),
                _ => (s, None),
            };
            let side = match body {
                b"O-O" => CastlingSide::KingSide,
                b"O-O-O" => CastlingSide::QueenSide,
                _ => return None,
            };
            let m = self.resolve_castle(side).ok()?;
            return self.check_mark_ok(m, suffix).then_some(m);
        }
        // One jump on the piece letter (none: a pawn); each arm reads and
        // checks the move with its role a constant, so the role tests in it
        // (promotion, the origins' attack kind, the disambiguation rule,
        // the direct-check kind) fold away. Text of any other shape is
        // left to the caller's general decoding.
        match PIECE_LETTER[usize::from(*s.first()?)] {
            0 => self.strict_normal::<0>(s),
            1 => self.strict_normal::<1>(s),
            2 => self.strict_normal::<2>(s),
            3 => self.strict_normal::<3>(s),
            4 => self.strict_normal::<4>(s),
            _ => self.strict_normal::<5>(s),
        }
    }

    /// [`Position::strict_fast`] for a piece or pawn move of the role
    /// `Role::ALL[R]`: the one legal move `s` names, if `s` is its
    /// canonical spelling (capture mark, minimal disambiguation, check
    /// mark).
    #[inline(always)]
    fn strict_normal<const R: usize>(&self, s: &[u8]) -> Option<Move> {
        let (file, rank, capture, to, promotion, suffix) = split_canonical_shape::<R>(s)?;
        let role = Role::ALL[R];
        let (m, all) = self.match_normal(role, file, rank, to, promotion)?;
        let sq = m.from();
        let captures = self.is_capture(m);
        if capture != captures {
            return None;
        }
        let written = (file.is_some(), rank.is_some());
        let needed = match role {
            Role::Pawn => (captures, false),
            Role::King => (false, false),
            _ => {
                let rivals = all - Bitboard::from(sq);
                if rivals.is_empty() {
                    (false, false)
                } else if (rivals & Bitboard::from_file(sq.file())).is_empty() {
                    (true, false)
                } else if (rivals & Bitboard::from_rank(sq.rank())).is_empty() {
                    (false, true)
                } else {
                    (true, true)
                }
            }
        };
        if written != needed {
            return None;
        }
        self.check_mark_ok(m, suffix).then_some(m)
    }

    /// `true` if `suffix` is the check mark the legal move `m` gets.
    #[inline(always)]
    fn check_mark_ok(&self, m: Move, suffix: Option<Suffix>) -> bool {
        match (self.gives_check(m), suffix) {
            (false, None) => true,
            (true, Some(Suffix::Check)) => self.played_unhashed(m).has_evasion(),
            (true, Some(Suffix::Checkmate)) => !self.played_unhashed(m).has_evasion(),
            _ => false,
        }
    }

    /// The one legal move a piece or pawn SAN names, with every square its
    /// role could legally come from (for the canonical disambiguation).
    /// `None` when no move or several fit, or the promotion part is wrong;
    /// the general path then explains why.
    #[inline(always)]
    fn match_normal(
        &self,
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<(Move, Bitboard)> {
        let last = Bitboard::from_rank(Rank::EIGHTH.relative(self.turn)).contains(to);
        let promotion_ok = if role == Role::Pawn && last { promotion.is_some() } else { promotion.is_none() };
        if !promotion_ok {
            return None;
        }
        let all = self.origins(role, to);
        let mut from = all;
        if let Some(f) = file {
            from &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            from &= Bitboard::from_rank(r);
        }
        let sq = from.single_square()?;
        Some((self.make_move(role, sq, to, promotion), all))
    }

    /// Decodes SAN and writes its canonical form to `canonical`.
    ///
    /// # Errors
    /// As [`Position::parse_san`] in the given mode; strict mode fails on a
    /// non-canonical spelling.
    pub fn decode_san(&self, text: &[u8], mode: SanMode, canonical: &mut Vec<u8>) -> Result<Move, SanError> {
        let (m, rivals) = self.resolve_text(text, mode)?;
        canonical.clear();
        self.append_canonical_san(m, rivals, canonical);
        if mode == SanMode::Strict && canonical.as_slice() != text {
            return Err(SanError::NotCanonical { canonical: String::from_utf8_lossy(canonical).into_owned() });
        }
        Ok(m)
    }

    /// Parses and resolves SAN text: the move, and the other pieces of its
    /// role that could legally reach its target (for disambiguation).
    fn resolve_text(&self, text: &[u8], mode: SanMode) -> Result<(Move, Bitboard), SanError> {
        let parsed = match parse_common_san(text) {
            Some(sp) => Ok(sp),
            None => parse_san_text(text, mode, false),
        };
        // Fast path: a piece or pawn move whose origins are computed once,
        // for matching and for the canonical disambiguation alike.
        if let Ok(SanPlus { san: San::Normal { role, file, rank, to, promotion, .. }, .. }) = &parsed {
            if let Some((m, all)) = self.match_normal(*role, *file, *rank, *to, *promotion) {
                return Ok((m, all - Bitboard::from(m.from())));
            }
        }
        let m = match parsed.and_then(|sp| self.resolve(&sp, mode)) {
            Ok(m) => m,
            Err(e) => {
                let retry = (mode == SanMode::Lenient && text.first() == Some(&b'b'))
                    .then(|| parse_san_text(text, mode, true).and_then(|sp| self.resolve(&sp, mode)).ok())
                    .flatten();
                match retry {
                    Some(m) => m,
                    None => return Err(e),
                }
            }
        };
        let rivals = if m.is_castle() || m.role() == Role::Pawn || m.role() == Role::King {
            Bitboard::EMPTY
        } else {
            self.origins(m.role(), m.to()) - Bitboard::from(m.from())
        };
        Ok((m, rivals))
    }

    /// Appends the canonical SAN of `m`, check mark included; the move is
    /// played only to tell mate from check.
    fn append_canonical_san<B: ByteSink>(&self, m: Move, rivals: Bitboard, out: &mut B) {
        self.append_san_body_with(m, rivals, out);
        if self.gives_check(m) {
            out.put(if self.played_unhashed(m).has_evasion() { b'+' } else { b'#' });
        }
    }

    /// `true` if the legal move `m` gives check, found without playing it.
    #[must_use]
    #[inline(always)]
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.turn;
        let Some(king) = self.board.king_of(us.other()) else { return false };
        if m.is_castle() {
            return self.played_unhashed(m).is_check();
        }
        let from = m.from();
        let to = m.to();
        let mut occ = (self.board.occupied() - Bitboard::from(from)) | Bitboard::from(to);
        if m.is_en_passant() {
            occ.discard(Square::from_coords(to.file(), from.rank()));
        }
        let direct = match m.promotion_role().unwrap_or(m.role()) {
            Role::Pawn => attacks::pawn_attacks(us, to).contains(king),
            Role::Knight => attacks::knight_attacks(to).contains(king),
            Role::King => false,
            // A slider checks only along a line through the king: test the
            // line first, the blockers only then.
            Role::Bishop => attacks::bishop_rays(king).contains(to) && attacks::bishop_attacks(to, occ).contains(king),
            Role::Rook => {
                attacks::rook_rays(king).contains(to) && attacks::rook_attacks_compact(to, occ).contains(king)
            }
            Role::Queen => {
                (attacks::rook_rays(king) | attacks::bishop_rays(king)).contains(to)
                    && (attacks::rook_attacks_compact(to, occ) | attacks::bishop_attacks(to, occ)).contains(king)
            }
        };
        if direct {
            return true;
        }
        // A discovered check needs the vacated square (or, en passant, the
        // captured pawn's) on a line through the king.
        let lines = attacks::rook_rays(king) | attacks::bishop_rays(king);
        let vacated_on_line =
            lines.contains(from) || (m.is_en_passant() && lines.contains(Square::from_coords(to.file(), from.rank())));
        if !vacated_on_line {
            return false;
        }
        let ours = self.board.by_color(us) - Bitboard::from(from);
        ((attacks::rook_attacks_compact(king, occ) & self.board.rooks_and_queens() & ours)
            | (attacks::bishop_attacks(king, occ) & self.board.bishops_and_queens() & ours))
            .any()
    }

    /// Matches parsed SAN against the legal moves of this position.
    ///
    /// # Errors
    /// [`SanError::Illegal`] or [`SanError::Ambiguous`].
    pub fn resolve(&self, sp: &SanPlus, mode: SanMode) -> Result<Move, SanError> {
        match sp.san {
            San::Castle(side) => self.resolve_castle(side),
            San::Coordinate { from, to, promotion } => self.resolve_coordinate(from, to, promotion),
            San::Normal { role, file, rank, capture: _, to, promotion } => {
                let last = Bitboard::from_rank(Rank::EIGHTH.relative(self.turn)).contains(to);
                if role == Role::Pawn && last && promotion.is_none() {
                    return Err(SanError::Illegal {
                        reason: format!("a pawn move to {to} must name its promotion piece"),
                    });
                }
                if promotion.is_some() && !last {
                    return Err(SanError::Illegal {
                        reason: format!("a pawn promotes only on the last rank, not on {to}"),
                    });
                }
                let _ = mode;
                let mut from = self.origins(role, to);
                if let Some(f) = file {
                    from &= Bitboard::from_file(f);
                }
                if let Some(r) = rank {
                    from &= Bitboard::from_rank(r);
                }
                match from.single_square() {
                    Some(sq) => Ok(self.make_move(role, sq, to, promotion)),
                    None if from.is_empty() => {
                        Err(SanError::Illegal { reason: self.why_unreachable(role, file, rank, to) })
                    }
                    None => Err(SanError::Ambiguous { candidates: from.into_iter().collect() }),
                }
            }
        }
    }

    /// The squares from which a piece of `role` can legally move to `to`
    /// (castling excluded; a pawn reaching the last rank counts once).
    #[must_use]
    #[inline(always)]
    pub fn origins(&self, role: Role, to: Square) -> Bitboard {
        let us = self.turn;
        let ours = self.board.by_color(us);
        if ours.contains(to) {
            return Bitboard::EMPTY;
        }
        let pieces = self.board.by_role(role) & ours;
        let occ = self.board.occupied();
        let geometric = match role {
            Role::Pawn => {
                let dir: i32 = if us.is_white() { 8 } else { -8 };
                let mut c = Bitboard::EMPTY;
                if occ.contains(to) || Some(to) == self.ep_square {
                    c = attacks::pawn_attacks(us.other(), to);
                } else if let Some(one) = to.offset(-dir) {
                    if pieces.contains(one) {
                        c.add(one);
                    } else if !occ.contains(one) && to.rank() == Rank::new(3).map_or(Rank::FIRST, |r| r.relative(us)) {
                        if let Some(two) = one.offset(-dir) {
                            c.add(two);
                        }
                    }
                }
                c
            }
            r => attacks::piece_attacks_compact(r, to, occ),
        } & pieces;
        if geometric.is_empty() {
            return geometric;
        }
        if role == Role::King {
            // Each king is tested with itself lifted off the board (a
            // playable position has one, tested without a loop).
            if geometric.more_than_one() {
                return geometric.into_iter().filter(|&k| !self.attacked_by_them_compact(to, occ ^ k)).collect();
            }
            return if self.attacked_by_them_compact(to, occ ^ geometric) { Bitboard::EMPTY } else { geometric };
        }
        if role == Role::Pawn && Some(to) == self.ep_square && !occ.contains(to) {
            // En passant: the general test simulates the capture.
            return geometric.into_iter().filter(|&f| self.is_legal(Move::en_passant(f, to))).collect();
        }
        // Any other move: it must meet a check, and a pinned piece must stay
        // on its pin line.
        let king = self.our_king();
        if let Some(checker) = self.checkers.first() {
            if self.checkers.more_than_one() || (to != checker && !attacks::between(king, checker).contains(to)) {
                return Bitboard::EMPTY;
            }
        }
        let pinned = geometric & self.pinned;
        let mut legal = geometric - pinned;
        for from in pinned {
            if attacks::aligned(king, from, to) {
                legal.add(from);
            }
        }
        legal
    }

    /// Builds the move of `role` from `from` to `to`: en passant when a
    /// pawn captures onto the en passant square, a promotion (to
    /// `promotion`, else a queen) when a pawn reaches the last rank.
    fn make_move(&self, role: Role, from: Square, to: Square, promotion: Option<Role>) -> Move {
        if role == Role::Pawn {
            if Some(to) == self.ep_square && from.file() != to.file() && !self.board.occupied().contains(to) {
                return Move::en_passant(from, to);
            }
            if Bitboard::from_rank(Rank::EIGHTH.relative(self.turn)).contains(to) {
                return Move::promotion(from, to, promotion.unwrap_or(Role::Queen));
            }
        }
        Move::normal(role, from, to)
    }

    fn why_unreachable(&self, role: Role, file: Option<File>, rank: Option<Rank>, to: Square) -> String {
        let us = self.turn;
        let ours = self.board.by_color(us);
        let mut pieces = self.board.by_role(role) & ours;
        if let Some(f) = file {
            pieces &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            pieces &= Bitboard::from_rank(r);
        }
        if ours.contains(to) {
            return format!("{to} is occupied by a piece of the side to move");
        }
        let reach = match role {
            Role::Pawn => pieces.into_iter().filter(|&p| self.pawn_targets(p).contains(to)).collect::<Bitboard>(),
            r => attacks::attacks(us.other(), r, to, self.board.occupied()) & pieces,
        };
        match reach.first() {
            Some(from) if self.is_check() => {
                format!("{} {from} cannot move to {to}: the king is in check", role_name(role))
            }
            Some(from) => format!("{} {from} cannot move to {to}: it would leave the king in check", role_name(role)),
            None => format!("no {} can reach {to}", role_name(role)),
        }
    }

    fn resolve_castle(&self, side: CastlingSide) -> Result<Move, SanError> {
        let king = self.our_king();
        let rooks = self.castles & self.board.by_color(self.turn) & Bitboard::from_rank(king.rank());
        let rook = rooks.into_iter().find(|r| (r.index() > king.index()) == (side == CastlingSide::KingSide));
        let name = if side == CastlingSide::KingSide { "kingside" } else { "queenside" };
        let Some(rook) = rook else {
            return Err(SanError::Illegal { reason: format!("{} has no {name} castling right", self.turn) });
        };
        let m = Move::castle(king, rook);
        if self.is_legal(m) {
            Ok(m)
        } else if self.is_check() {
            Err(SanError::Illegal { reason: "cannot castle out of check".into() })
        } else {
            Err(SanError::Illegal { reason: format!("{name} castling is blocked or passes an attacked square") })
        }
    }

    fn resolve_coordinate(&self, from: Square, to: Square, promotion: Option<Role>) -> Result<Move, SanError> {
        let us = self.turn;
        let ours = self.board.by_color(us);
        let Some(role) = self.board.role_at(from).filter(|_| ours.contains(from)) else {
            return Err(SanError::Illegal { reason: format!("no piece of the side to move on {from}") });
        };
        let m = if role == Role::King && (self.castles & ours).contains(to) {
            Move::castle(from, to)
        } else if role == Role::King
            && from.rank() == to.rank()
            && (from.file().index() as i32 - to.file().index() as i32).abs() == 2
            && !self.is_chess960()
        {
            let side = if to.index() > from.index() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            return self.resolve_castle(side);
        } else if role == Role::Pawn && Some(to) == self.ep_square && from.file() != to.file() {
            Move::en_passant(from, to)
        } else if let Some(p) = promotion {
            if role != Role::Pawn {
                return Err(SanError::Illegal {
                    reason: format!("only a pawn promotes, not the {} on {from}", role_name(role)),
                });
            }
            Move::promotion(from, to, p)
        } else {
            Move::normal(role, from, to)
        };
        if self.is_legal(m) {
            return Ok(m);
        }
        if role == Role::Pawn && promotion.is_none() && Bitboard::from_rank(Rank::EIGHTH.relative(us)).contains(to) {
            return Err(SanError::Illegal { reason: format!("a pawn move to {to} must name its promotion piece") });
        }
        Err(SanError::Illegal { reason: format!("{} {from} cannot move to {to}", role_name(role)) })
    }

    /// Appends the canonical SAN of the legal move `m`, with `+` or `#`.
    pub fn append_san(&self, m: Move, out: &mut Vec<u8>) {
        let rivals = if m.is_castle() || m.role() == Role::Pawn || m.role() == Role::King {
            Bitboard::EMPTY
        } else {
            self.origins(m.role(), m.to()) - Bitboard::from(m.from())
        };
        self.append_canonical_san(m, rivals, out);
    }

    /// The canonical SAN of the legal move `m`, with `+` or `#`.
    #[must_use]
    pub fn san(&self, m: Move) -> String {
        let mut out = Vec::with_capacity(8);
        self.append_san(m, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Appends the SAN of `m` without a check mark.
    pub fn append_san_body(&self, m: Move, out: &mut Vec<u8>) {
        let rivals = if m.is_castle() || m.role() == Role::Pawn || m.role() == Role::King {
            Bitboard::EMPTY
        } else {
            self.origins(m.role(), m.to()) - Bitboard::from(m.from())
        };
        self.append_san_body_with(m, rivals, out);
    }

    /// Appends the SAN body of `m`, given the other pieces of its role that
    /// could legally move to its target (`rivals`).
    fn append_san_body_with<B: ByteSink>(&self, m: Move, rivals: Bitboard, out: &mut B) {
        match m.kind() {
            MoveKind::Castle => {
                out.put_all(if m.to().index() > m.from().index() { b"O-O" } else { b"O-O-O" });
                return;
            }
            MoveKind::EnPassant => {
                out.put(m.from().file().char() as u8);
                out.put(b'x');
                out.put_square(m.to());
                return;
            }
            _ => {}
        }
        let to = m.to();
        let capture = self.board.occupied().contains(to);
        if m.role() == Role::Pawn {
            if capture {
                out.put(m.from().file().char() as u8);
                out.put(b'x');
            }
            out.put_square(to);
            if let Some(p) = m.promotion_role() {
                out.put(b'=');
                out.put(p.upper_char() as u8);
            }
            return;
        }
        out.put(m.role().upper_char() as u8);
        if m.role() != Role::King && rivals.any() {
            let from = m.from();
            if (rivals & Bitboard::from_file(from.file())).is_empty() {
                out.put(from.file().char() as u8);
            } else if (rivals & Bitboard::from_rank(from.rank())).is_empty() {
                out.put(from.rank().char() as u8);
            } else {
                out.put_square(from);
            }
        }
        if capture {
            out.put(b'x');
        }
        out.put_square(to);
    }
}

/// Parses a UCI coordinate move and checks its legality.
pub(crate) fn parse_coordinate(pos: &Position, s: &[u8]) -> Result<Move, SanError> {
    if !(s.len() == 4 || s.len() == 5) {
        return Err(syntax(0, "a coordinate move such as e2e4 or e7e8q"));
    }
    let from = Square::from_ascii(&s[0..2]).ok_or_else(|| syntax(0, "an origin square"))?;
    let to = Square::from_ascii(&s[2..4]).ok_or_else(|| syntax(2, "a target square"))?;
    let promotion = match s.get(4) {
        None => None,
        Some(&c) => match Role::from_char(c) {
            Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(r),
            _ => return Err(syntax(4, "a promotion piece (q, r, b or n)")),
        },
    };
    pos.resolve_coordinate(from, to, promotion)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    /// The strict fast check accepts a castling text exactly when the
    /// general strict decoder (which re-encodes and compares) does, and
    /// names the same move: rights on both wings, blocked, out of check,
    /// through an attacked square, giving check, for Black, and X-FEN.
    #[test]
    fn strict_fast_castling_agrees_with_strict_decoding() {
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1",
            "r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "5rk1/5ppp/8/8/8/8/8/4K2R w K - 0 1",
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let p = pos(fen);
            for text in ["O-O", "O-O+", "O-O#", "O-O-O", "O-O-O+", "O-O-O#", "0-0", "O-O-O-O", "O-", "OO", "O-O++"] {
                let mut canonical = Vec::new();
                let general = p.decode_san(text.as_bytes(), SanMode::Strict, &mut canonical).ok();
                assert_eq!(p.strict_fast(text.as_bytes()), general, "{fen}: {text}");
            }
        }
    }

    /// The strict fast check, one specialized body per role, against the
    /// general strict decoder: on positions of seeded random play (every
    /// role, captures, checks, mates, promotions, en passant, pins) it
    /// takes the canonical SAN of every legal move as that move, and for
    /// each misspelling (check mark dropped, added or changed, capture mark
    /// dropped or added, an origin file or rank added, another promotion
    /// piece, a lower-case piece letter) it answers `None` (the caller then
    /// decodes the general way) or exactly what the strict decoder says.
    #[test]
    fn strict_fast_agrees_with_strict_decoding_on_every_move_and_misspelling() {
        let (mut positions, mut moves, mut roles) = (0, 0, [0usize; 6]);
        let starts = [Position::startpos(), pos(KIWIPETE), pos("8/2P5/8/KP5r/8/8/4p1k1/8 w - - 0 1")];
        epd_testkit::random_play(
            &starts,
            (6, 120, 0x2545_f491_4f6c_dd1d),
            Position::legal_moves,
            Position::play_unchecked,
            |p, legal| {
                positions += 1;
                for &m in legal {
                    let canonical = p.san(m);
                    assert_eq!(p.strict_fast(canonical.as_bytes()), Some(m), "{}: {canonical}", p.fen());
                    moves += 1;
                    roles[m.role() as usize] += 1;
                    let body = canonical.trim_end_matches(['+', '#']);
                    let mut variants = vec![
                        body.to_string(),
                        format!("{body}+"),
                        format!("{body}#"),
                        format!("{canonical}+"),
                        body.replacen('x', "", 1),
                        canonical.to_lowercase(),
                    ];
                    if let Some(i) = body.find(|c: char| c.is_ascii_lowercase()) {
                        // An origin file or rank, a capture mark, before the target.
                        let at = body.len() - body.trim_end_matches(['=', 'N', 'B', 'R', 'Q']).len();
                        let target = body.len() - at - 2;
                        for extra in [&m.from().to_string()[..1], &m.from().to_string()[1..], "x"] {
                            variants.push(format!("{}{extra}{}", &body[..target.max(i)], &body[target.max(i)..]));
                        }
                    }
                    for promo in ["=Q", "=N", "=K", "=P", ""] {
                        if let Some(i) = body.find('=') {
                            variants.push(format!("{}{promo}", &body[..i]));
                        }
                    }
                    for text in variants {
                        let mut out = Vec::new();
                        let general = p.decode_san(text.as_bytes(), SanMode::Strict, &mut out).ok();
                        let fast = p.strict_fast(text.as_bytes());
                        assert!(fast.is_none() || fast == general, "{}: {text}: {fast:?} vs {general:?}", p.fen());
                    }
                }
            },
        );
        assert!(positions > 1000 && moves > 20_000, "{positions} positions, {moves} moves");
        assert!(roles.iter().all(|&n| n > 500), "moves by role: {roles:?}");
    }

    #[test]
    fn encoding_is_canonical() {
        for (fen, uci, san) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "g1f3", "Nf3"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2e4", "e4"),
            (KIWIPETE, "e1g1", "O-O"),
            (KIWIPETE, "e1c1", "O-O-O"),
            (KIWIPETE, "e5f7", "Nxf7"),
            (KIWIPETE, "d5e6", "dxe6"),
            (KIWIPETE, "c3b5", "Nb5"),
            (KIWIPETE, "f3f6", "Qxf6"),
            // File, rank and full-square disambiguation.
            ("7k/8/8/8/8/8/8/KN3N2 w - - 0 1", "b1d2", "Nbd2"),
            ("7k/8/8/8/8/1N6/8/KN6 w - - 0 1", "b1d2", "N1d2"),
            ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "h4e1", "Qh4e1"),
            ("2k5/8/8/8/7Q/8/8/K6Q w - - 0 1", "h4e1", "Q4e1"),
            // Promotion with mate; en passant.
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e7e8q", "e8=Q#"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e7e8n", "e8=N"),
            ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "e5d6", "exd6"),
            // A pinned rival needs no disambiguation.
            ("4k3/4r3/8/8/8/8/4N3/2N1K3 w - - 0 1", "c1d3", "Nd3"),
            // Chess960 castling (king takes rook).
            ("4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 1", "f1g1", "O-O"),
            ("4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 1", "f1b1", "O-O-O"),
        ] {
            let p = pos(fen);
            let m = p.parse_uci(uci.as_bytes()).unwrap_or_else(|e| panic!("{fen} {uci}: {e}"));
            assert_eq!(p.san(m), san, "{fen} {uci}");
            assert_eq!(p.parse_san(san.as_bytes(), SanMode::Strict), Ok(m), "{fen} {san}");
            assert_eq!(p.parse_san(san.as_bytes(), SanMode::Lenient), Ok(m), "{fen} {san}");
        }
    }

    #[test]
    fn lenient_spellings() {
        for (fen, text, san) in [
            (KIWIPETE, "0-0", "O-O"),
            (KIWIPETE, "0-0-0", "O-O-O"),
            (KIWIPETE, "O-O+", "O-O"),
            (KIWIPETE, "Qf6", "Qxf6"),
            (KIWIPETE, "Qxf6+", "Qxf6"),
            (KIWIPETE, "Qf3xf6", "Qxf6"),
            (KIWIPETE, "Nc3b5", "Nb5"),
            (KIWIPETE, "Nc3-b5", "Nb5"),
            (KIWIPETE, "Ne5xf7", "Nxf7"),
            (KIWIPETE, "c3b5", "Nb5"),
            (KIWIPETE, "e1g1", "O-O"),
            (KIWIPETE, "e1h1", "O-O"),
            (KIWIPETE, "e1c1", "O-O-O"),
            (KIWIPETE, "d5xe6", "dxe6"),
            (KIWIPETE, "de6", "dxe6"),
            (KIWIPETE, "xe6", "dxe6"),
            (KIWIPETE, "Nf7!", "Nxf7"),
            (KIWIPETE, "Nxf7!?", "Nxf7"),
            (KIWIPETE, "Nxf7??", "Nxf7"),
            (KIWIPETE, "Nxg6", "Nxg6"),
            (KIWIPETE, "nxg6", "Nxg6"),
            (KIWIPETE, "bxa6", "Bxa6"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e8Q", "e8=Q#"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e8=q", "e8=Q#"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e8(Q)", "e8=Q#"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e7e8q", "e8=Q#"),
            ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", "e7-e8=Q+", "e8=Q#"),
            ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "exd6ep", "exd6"),
            ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "exd6 e.p.", "exd6"),
            ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "e5d6", "exd6"),
            ("k7/8/2p5/1P6/8/8/8/K7 w - - 0 1", "bxc6", "bxc6"),
        ] {
            let p = pos(fen);
            let m = p.parse_san(text.as_bytes(), SanMode::Lenient).unwrap_or_else(|e| panic!("{fen} {text}: {e}"));
            assert_eq!(p.san(m), san, "{fen} {text}");
            assert!(p.parse_san(text.as_bytes(), SanMode::Strict).is_err() || text == san, "{text} strict");
        }
    }

    #[test]
    fn errors_say_why() {
        let start = Position::startpos();
        for (text, mode, want) in [
            ("Nf4", SanMode::Lenient, "illegal san: no knight can reach f4"),
            ("e5", SanMode::Lenient, "illegal san: no pawn can reach e5"),
            ("O-O", SanMode::Lenient, "illegal san: kingside castling is blocked or passes an attacked square"),
            ("Nf3+", SanMode::Strict, "non-canonical san: expected Nf3"),
            ("Ngf3", SanMode::Strict, "non-canonical san: expected Nf3"),
            (
                "0-0",
                SanMode::Strict,
                "invalid san at column 1: expected castling written with the letter O (O-O, O-O-O)",
            ),
            ("", SanMode::Lenient, "invalid san at column 1: expected a move"),
            (
                "Zf3",
                SanMode::Lenient,
                "invalid san at column 1: expected a piece letter (N, B, R, Q, K), a file or a rank before the target",
            ),
            ("e2e4", SanMode::Strict, "invalid san at column 1: expected SAN, not a coordinate move"),
            ("--", SanMode::Lenient, "illegal san: a null move is not a legal move"),
        ] {
            let e = start.parse_san(text.as_bytes(), mode).unwrap_err();
            assert_eq!(e.to_string(), want, "{text}");
        }
        let p = pos("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1");
        assert!(matches!(p.parse_san(b"Qe1", SanMode::Lenient), Err(SanError::Ambiguous { .. })));
        assert!(matches!(p.parse_san(b"Qhe1", SanMode::Lenient), Err(SanError::Ambiguous { .. })));
        let p = pos("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
        assert_eq!(
            p.parse_san(b"Nd4", SanMode::Lenient).unwrap_err().to_string(),
            "illegal san: knight e2 cannot move to d4: it would leave the king in check"
        );
        let p = pos("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1");
        assert!(p.parse_san(b"e8", SanMode::Lenient).is_err());
    }

    #[test]
    fn common_shape_parser_agrees_with_the_general_one() {
        // Every string the fast parser accepts must parse the same way in
        // the general parser (strict and lenient).
        let alphabet = b"NBRQKabcdefgh12345678x=+#";
        let mut x = epd_testkit::XorShift::new(7);
        let mut accepted = 0;
        for len in 1..9 {
            for _ in 0..20_000 {
                let s: Vec<u8> = (0..len).map(|_| alphabet[x.below(alphabet.len())]).collect();
                if let Some(fast) = parse_common_san(&s) {
                    accepted += 1;
                    // The general path, bypassing the fast one.
                    let general = parse_san_text(&[&s[..], b"!"].concat(), SanMode::Lenient, false);
                    assert_eq!(general.as_ref().ok(), Some(&fast), "{}", String::from_utf8_lossy(&s));
                }
            }
        }
        assert!(accepted > 1000, "{accepted}");
    }

    #[test]
    fn any_bytes_give_an_error_not_a_panic() {
        let p = pos(KIWIPETE);
        let alphabet = b"NBRQKPnbrqkpabcdefgh12345678xX=+#-O0o()!?/:. e\0\xff";
        let mut x = epd_testkit::XorShift::new(99);
        for len in 0..12 {
            for _ in 0..3000 {
                let s: Vec<u8> = (0..len).map(|_| alphabet[x.below(alphabet.len())]).collect();
                for mode in [SanMode::Strict, SanMode::Lenient] {
                    if let Ok(m) = p.parse_san(&s, mode) {
                        assert!(p.is_legal(m));
                    }
                }
            }
        }
    }
}

/// Where SAN bytes go: a `Vec`, or a small stack buffer when decoding.
pub(crate) trait ByteSink {
    fn put(&mut self, b: u8);
    fn put_all(&mut self, s: &[u8]) {
        for &b in s {
            self.put(b);
        }
    }
    fn put_square(&mut self, sq: Square) {
        self.put(sq.file().char() as u8);
        self.put(sq.rank().char() as u8);
    }
}

impl ByteSink for Vec<u8> {
    #[inline(always)]
    fn put(&mut self, b: u8) {
        self.push(b);
    }
}

/// SAN is at most 7 bytes (`Qa1xh8+`, `exd8=Q#`); 16 leave room.
#[derive(Default)]
struct SanBuf {
    bytes: [u8; 16],
    len: usize,
}

impl SanBuf {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl ByteSink for SanBuf {
    #[inline(always)]
    fn put(&mut self, b: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }
}
