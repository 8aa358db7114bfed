//! Piece placement: which piece stands on which square.

use crate::{attacks, Bitboard, Color, Piece, Role, Square};

/// The placement of pieces, without side to move or any other state.
///
/// A `Board` may hold any placement, even one that is not a legal chess
/// position; [`crate::Position`] is the validated type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
}

impl Board {
    /// The empty board.
    #[must_use]
    pub const fn empty() -> Board {
        Board { by_role: [Bitboard::EMPTY; 6], by_color: [Bitboard::EMPTY; 2] }
    }

    /// A board from its piece sets by role and by colour (consistent, as
    /// the placement reader builds them).
    #[must_use]
    pub(crate) const fn from_sets(by_role: [Bitboard; 6], by_color: [Bitboard; 2]) -> Board {
        Board { by_role, by_color }
    }

    /// The standard starting array.
    #[must_use]
    pub const fn standard() -> Board {
        Board {
            by_role: [
                Bitboard(0x00ff_0000_0000_ff00),
                Bitboard(0x4200_0000_0000_0042),
                Bitboard(0x2400_0000_0000_0024),
                Bitboard(0x8100_0000_0000_0081),
                Bitboard(0x0800_0000_0000_0008),
                Bitboard(0x1000_0000_0000_0010),
            ],
            by_color: [Bitboard(0xffff), Bitboard(0xffff_0000_0000_0000)],
        }
    }

    /// All occupied squares.
    #[must_use]
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares with a piece of `color`.
    #[must_use]
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares with a piece of `role`, of either colour.
    #[must_use]
    #[inline(always)]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// Squares with `piece`.
    #[must_use]
    #[inline(always)]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role[piece.role.index()] & self.by_color[piece.color.index()]
    }

    /// Pawns of both colours.
    #[must_use]
    #[inline(always)]
    pub fn pawns(&self) -> Bitboard {
        self.by_role[0]
    }
    /// Knights of both colours.
    #[must_use]
    #[inline(always)]
    pub fn knights(&self) -> Bitboard {
        self.by_role[1]
    }
    /// Bishops of both colours.
    #[must_use]
    #[inline(always)]
    pub fn bishops(&self) -> Bitboard {
        self.by_role[2]
    }
    /// Rooks of both colours.
    #[must_use]
    #[inline(always)]
    pub fn rooks(&self) -> Bitboard {
        self.by_role[3]
    }
    /// Queens of both colours.
    #[must_use]
    #[inline(always)]
    pub fn queens(&self) -> Bitboard {
        self.by_role[4]
    }
    /// Kings of both colours.
    #[must_use]
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.by_role[5]
    }
    /// Rooks and queens.
    #[must_use]
    #[inline(always)]
    pub fn rooks_and_queens(&self) -> Bitboard {
        self.by_role[3] | self.by_role[4]
    }
    /// Bishops and queens.
    #[must_use]
    #[inline(always)]
    pub fn bishops_and_queens(&self) -> Bitboard {
        self.by_role[2] | self.by_role[4]
    }

    /// The king of `color`, if there is exactly one.
    #[must_use]
    #[inline(always)]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.by_role[5] & self.by_color[color.index()]).single_square()
    }

    /// The colour of the piece on `sq`.
    #[must_use]
    #[inline(always)]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`.
    #[must_use]
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            None
        } else if self.by_role[0].contains(sq) {
            Some(Role::Pawn)
        } else if self.by_role[1].contains(sq) {
            Some(Role::Knight)
        } else if self.by_role[2].contains(sq) {
            Some(Role::Bishop)
        } else if self.by_role[3].contains(sq) {
            Some(Role::Rook)
        } else if self.by_role[4].contains(sq) {
            Some(Role::Queen)
        } else {
            Some(Role::King)
        }
    }

    /// The piece on `sq`.
    #[must_use]
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = self.color_at(sq)?;
        let role = self.role_at(sq)?;
        Some(Piece { color, role })
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.remove_piece_at(sq);
        self.by_role[piece.role.index()].add(sq);
        self.by_color[piece.color.index()].add(sq);
    }

    /// Removes and returns the piece on `sq`.
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.by_role[piece.role.index()].discard(sq);
        self.by_color[piece.color.index()].discard(sq);
        Some(piece)
    }

    /// Toggles a piece known to be (or not to be) on `sq`: the fast path
    /// of move making.
    #[inline(always)]
    pub(crate) fn toggle(&mut self, color: Color, role: Role, sq: Square) {
        self.by_role[role.index()].toggle(sq);
        self.by_color[color.index()].toggle(sq);
    }

    /// Pieces of either colour that attack `sq`, with `occupied` as the
    /// blockers.
    #[must_use]
    #[inline]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        (attacks::rook_attacks(sq, occupied) & self.rooks_and_queens())
            | (attacks::bishop_attacks(sq, occupied) & self.bishops_and_queens())
            | (attacks::knight_attacks(sq) & self.knights())
            | (attacks::king_attacks(sq) & self.kings())
            | (attacks::pawn_attacks(Color::White, sq) & self.pawns() & self.by_color[1])
            | (attacks::pawn_attacks(Color::Black, sq) & self.pawns() & self.by_color[0])
    }

    /// Pieces of `attacker` that attack `sq`, with `occupied` as blockers.
    #[must_use]
    #[inline(always)]
    pub fn attackers_of(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        self.attackers_with::<false>(sq, attacker, occupied)
    }

    /// [`Board::attackers_of`], with rooks by
    /// [`attacks::rook_attacks_compact`] when `COMPACT` (for the record
    /// reader, which looks up scattered squares).
    #[must_use]
    #[inline(always)]
    pub(crate) fn attackers_with<const COMPACT: bool>(
        &self,
        sq: Square,
        attacker: Color,
        occupied: Bitboard,
    ) -> Bitboard {
        let them = self.by_color[attacker.index()];
        let rook =
            if COMPACT { attacks::rook_attacks_compact(sq, occupied) } else { attacks::rook_attacks(sq, occupied) };
        ((rook & self.rooks_and_queens())
            | (attacks::bishop_attacks(sq, occupied) & self.bishops_and_queens())
            | (attacks::knight_attacks(sq) & self.knights())
            | (attacks::king_attacks(sq) & self.kings())
            | (attacks::pawn_attacks(attacker.other(), sq) & self.pawns()))
            & them
    }

    /// Iterates over occupied squares and their pieces, a1 to h8.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied().into_iter().filter_map(move |sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// The number of pieces of `piece`.
    #[must_use]
    pub fn count(&self, piece: Piece) -> usize {
        self.by_piece(piece).count()
    }

    /// Writes the FEN piece placement field.
    pub fn append_placement(&self, out: &mut Vec<u8>) {
        let mut squares = [0u8; 64];
        for color in Color::ALL {
            for role in Role::ALL {
                let ch = Piece { color, role }.char() as u8;
                for sq in self.by_role[role.index()] & self.by_color[color.index()] {
                    squares[sq.index()] = ch;
                }
            }
        }
        for rank in (0..8usize).rev() {
            let mut empty = 0u8;
            for &ch in &squares[rank * 8..rank * 8 + 8] {
                if ch == 0 {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push(b'0' + empty);
                        empty = 0;
                    }
                    out.push(ch);
                }
            }
            if empty > 0 {
                out.push(b'0' + empty);
            }
            if rank > 0 {
                out.push(b'/');
            }
        }
    }
}
