//! Piece kinds (roles) and coloured pieces.

use crate::Color;

/// The kind of a piece, regardless of colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
}

impl Role {
    /// All roles, pawn to king.
    pub const ALL: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];
    /// The roles a pawn may promote to, in the order moves are generated.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// Index 0..6.
    #[must_use]
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The upper-case SAN letter; `'P'` for a pawn.
    #[must_use]
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// The lower-case letter.
    #[must_use]
    pub const fn lower_char(self) -> char {
        (self.upper_char() as u8 + 32) as char
    }

    /// Parses a piece letter of either case.
    #[must_use]
    pub const fn from_char(ch: u8) -> Option<Role> {
        match ch {
            b'p' | b'P' => Some(Role::Pawn),
            b'n' | b'N' => Some(Role::Knight),
            b'b' | b'B' => Some(Role::Bishop),
            b'r' | b'R' => Some(Role::Rook),
            b'q' | b'Q' => Some(Role::Queen),
            b'k' | b'K' => Some(Role::King),
            _ => None,
        }
    }

    /// Parses an upper-case piece letter (`N`, `B`, `R`, `Q`, `K`, `P`).
    #[must_use]
    pub const fn from_upper_char(ch: u8) -> Option<Role> {
        if ch.is_ascii_uppercase() {
            Role::from_char(ch)
        } else {
            None
        }
    }

    /// Ordinary material value in pawns (king: 0).
    #[must_use]
    pub const fn value(self) -> u32 {
        match self {
            Role::Pawn => 1,
            Role::Knight | Role::Bishop => 3,
            Role::Rook => 5,
            Role::Queen => 9,
            Role::King => 0,
        }
    }
}

/// A piece: a colour and a role.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its colour.
    pub color: Color,
    /// Its role.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: upper case for White.
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.lower_char(),
        }
    }

    /// Parses a FEN letter (`PNBRQK` White, `pnbrqk` Black).
    #[must_use]
    pub const fn from_char(ch: u8) -> Option<Piece> {
        match Role::from_char(ch) {
            Some(role) => Some(Piece { color: Color::from_white(ch.is_ascii_uppercase()), role }),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters() {
        for (ch, color, role) in [
            (b'P', Color::White, Role::Pawn),
            (b'n', Color::Black, Role::Knight),
            (b'B', Color::White, Role::Bishop),
            (b'r', Color::Black, Role::Rook),
            (b'Q', Color::White, Role::Queen),
            (b'k', Color::Black, Role::King),
        ] {
            let p = Piece::from_char(ch).unwrap();
            assert_eq!((p.color, p.role), (color, role));
            assert_eq!(p.char() as u8, ch);
        }
        assert_eq!(Piece::from_char(b'x'), None);
        assert_eq!(Role::from_upper_char(b'n'), None);
    }
}
