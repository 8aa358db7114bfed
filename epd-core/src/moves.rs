//! Moves and move lists.

use crate::{Role, Square};
use core::fmt;
use core::ops::{Deref, DerefMut};

/// What kind of move a [`Move`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move that is not one of the others (captures included).
    Normal,
    /// A pawn promotion, to the given role.
    Promotion(Role),
    /// An en passant capture; `to` is the square the pawn moves to.
    EnPassant,
    /// Castling, stored as king-takes-own-rook: `from` is the king's
    /// square and `to` the castling rook's square. This one form serves
    /// standard chess and Chess960 alike.
    Castle,
}

/// A move: the role that moves, its squares and its kind.
///
/// Four bytes; `Copy`. Whether it captures is a question for the position
/// it is played in ([`crate::Position::is_capture`]).
#[derive(Copy, Clone, Eq)]
pub struct Move {
    role: Role,
    from: Square,
    to: Square,
    kind: MoveKind,
}

// What the derives write, but inlined (the derived equality is an
// out-of-line call in the record readers' hot loops). Both use every field.
impl PartialEq for Move {
    #[inline]
    fn eq(&self, other: &Move) -> bool {
        self.role == other.role && self.from == other.from && self.to == other.to && self.kind == other.kind
    }
}

impl core::hash::Hash for Move {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.role.hash(state);
        self.from.hash(state);
        self.to.hash(state);
        self.kind.hash(state);
    }
}

impl Move {
    /// A move of `role` from `from` to `to` (not a promotion).
    #[must_use]
    #[inline(always)]
    pub const fn normal(role: Role, from: Square, to: Square) -> Move {
        Move { role, from, to, kind: MoveKind::Normal }
    }

    /// A pawn promotion.
    #[must_use]
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, promotion: Role) -> Move {
        Move { role: Role::Pawn, from, to, kind: MoveKind::Promotion(promotion) }
    }

    /// An en passant capture.
    #[must_use]
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move { role: Role::Pawn, from, to, kind: MoveKind::EnPassant }
    }

    /// Castling, as king `king` takes own rook `rook`.
    #[must_use]
    #[inline(always)]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move { role: Role::King, from: king, to: rook, kind: MoveKind::Castle }
    }

    /// The moving role (a promoting pawn is a pawn).
    #[must_use]
    #[inline(always)]
    pub const fn role(self) -> Role {
        self.role
    }
    /// The origin square.
    #[must_use]
    #[inline(always)]
    pub const fn from(self) -> Square {
        self.from
    }
    /// The target square (the rook's square for castling).
    #[must_use]
    #[inline(always)]
    pub const fn to(self) -> Square {
        self.to
    }
    /// The kind.
    #[must_use]
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        self.kind
    }
    /// The promotion role, if any.
    #[must_use]
    #[inline(always)]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind {
            MoveKind::Promotion(r) => Some(r),
            _ => None,
        }
    }
    /// `true` for castling.
    #[must_use]
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        matches!(self.kind, MoveKind::Castle)
    }
    /// `true` for an en passant capture.
    #[must_use]
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        matches!(self.kind, MoveKind::EnPassant)
    }
    /// `true` for a promotion.
    #[must_use]
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        matches!(self.kind, MoveKind::Promotion(_))
    }
    /// `true` if castling towards the h-file.
    #[must_use]
    pub const fn is_kingside_castle(self) -> bool {
        self.is_castle() && self.to.index() > self.from.index()
    }

    /// The square the king ends on (castling) or `to` (any other move).
    #[must_use]
    pub const fn king_destination(self) -> Square {
        if let MoveKind::Castle = self.kind {
            let rank = self.from.index() as u32 & !7;
            let file = if self.to.index() > self.from.index() { 6 } else { 2 };
            Square::from_index(rank + file)
        } else {
            self.to
        }
    }

    /// The move in UCI coordinate notation. Castling is written as the
    /// king's two-square move (`e1g1`) unless `chess960`, where it is
    /// king-takes-rook (`e1h1`).
    #[must_use]
    pub fn to_uci(self, chess960: bool) -> String {
        let mut out = Vec::with_capacity(5);
        self.append_uci(chess960, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Appends the UCI notation to a string (see [`Move::to_uci`]).
    pub fn append_uci_to(self, chess960: bool, out: &mut String) {
        let to = if self.is_castle() && !chess960 { self.king_destination() } else { self.to };
        for sq in [self.from, to] {
            out.push(sq.file().char());
            out.push(sq.rank().char());
        }
        if let MoveKind::Promotion(r) = self.kind {
            out.push(r.lower_char());
        }
    }

    /// Appends the UCI notation (see [`Move::to_uci`]).
    pub fn append_uci(self, chess960: bool, out: &mut Vec<u8>) {
        self.from.append_to(out);
        let to = if self.is_castle() && !chess960 { self.king_destination() } else { self.to };
        to.append_to(out);
        if let MoveKind::Promotion(r) = self.kind {
            out.push(r.lower_char() as u8);
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.role.upper_char(), self.from, self.to)?;
        match self.kind {
            MoveKind::Normal => Ok(()),
            MoveKind::Promotion(r) => write!(f, "={}", r.upper_char()),
            MoveKind::EnPassant => f.write_str("ep"),
            MoveKind::Castle => f.write_str("(castle)"),
        }
    }
}

impl fmt::Display for Move {
    /// UCI notation in the standard-chess form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_uci(false))
    }
}

/// The most legal moves any reachable position has is 218.
pub const MAX_LEGAL_MOVES: usize = 256;

/// A fixed-capacity list of moves, kept on the stack.
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_LEGAL_MOVES],
}

impl MoveList {
    /// An empty list.
    #[must_use]
    #[inline]
    pub fn new() -> MoveList {
        MoveList { len: 0, moves: [Move::normal(Role::Pawn, Square::A1, Square::A1); MAX_LEGAL_MOVES] }
    }

    /// Appends a move. A full list ignores the push: a position has at most
    /// 218 legal moves, well under the capacity.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        if self.len < MAX_LEGAL_MOVES {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    /// Removes every move for which `keep` is false.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut w = 0;
        for r in 0..self.len {
            if keep(&self.moves[r]) {
                self.moves[w] = self.moves[r];
                w += 1;
            }
        }
        self.len = w;
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    #[inline(always)]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl AsRef<[Move]> for MoveList {
    #[inline(always)]
    fn as_ref(&self) -> &[Move] {
        self
    }
}

impl DerefMut for MoveList {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_is_four_bytes() {
        assert_eq!(core::mem::size_of::<Move>(), 4);
    }

    #[test]
    fn uci_notation() {
        for (m, std, c960) in [
            (Move::normal(Role::Knight, Square::G1, Square::F3), "g1f3", "g1f3"),
            (Move::promotion(Square::E7, Square::E8, Role::Queen), "e7e8q", "e7e8q"),
            (Move::castle(Square::E1, Square::H1), "e1g1", "e1h1"),
            (Move::castle(Square::E8, Square::A8), "e8c8", "e8a8"),
            (Move::castle(Square::B1, Square::A1), "b1c1", "b1a1"),
        ] {
            assert_eq!(m.to_uci(false), std);
            assert_eq!(m.to_uci(true), c960);
            for (chess960, want) in [(false, std), (true, c960)] {
                let mut s = String::from("x ");
                m.append_uci_to(chess960, &mut s);
                assert_eq!(s, format!("x {want}"));
            }
        }
    }
}
