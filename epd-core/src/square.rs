//! Files, ranks and squares.

use core::fmt;

/// A line of the board (a file or a rank): the type, its index 0..8, and
/// the character of its first line, written once for both.
macro_rules! board_line {
    ($(#[$doc:meta])* $name:ident, $first:literal, $first_name:literal, $what:literal, $range:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u8);

        impl $name {
            #[doc = concat!("The ", $what, " with index 0..8 (", $first_name, " = 0).")]
            #[must_use]
            pub const fn new(index: u32) -> Option<$name> {
                if index < 8 {
                    Some($name(index as u8))
                } else {
                    None
                }
            }
            /// Index 0..8.
            #[must_use]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            #[doc = concat!("Parses `", $range, "`.")]
            #[must_use]
            pub const fn from_char(ch: u8) -> Option<$name> {
                let first: u8 = $first;
                if ch >= first && ch < first + 8 {
                    Some($name(ch - first))
                } else {
                    None
                }
            }
            #[doc = concat!("The character, `", $range, "`.")]
            #[must_use]
            pub const fn char(self) -> char {
                ($first + self.0) as char
            }
        }
    };
}

board_line!(
    /// A file, `a` to `h`.
    File,
    b'a',
    "a",
    "file",
    "a..h"
);
board_line!(
    /// A rank, `1` to `8`.
    Rank,
    b'1',
    "first rank",
    "rank",
    "1..8"
);

impl File {
    /// The `a` file.
    pub const A: File = File(0);
    /// The `b` file.
    pub const B: File = File(1);
    /// The `c` file.
    pub const C: File = File(2);
    /// The `d` file.
    pub const D: File = File(3);
    /// The `e` file.
    pub const E: File = File(4);
    /// The `f` file.
    pub const F: File = File(5);
    /// The `g` file.
    pub const G: File = File(6);
    /// The `h` file.
    pub const H: File = File(7);
}

impl Rank {
    /// The first rank.
    pub const FIRST: Rank = Rank(0);
    /// The eighth rank.
    pub const EIGHTH: Rank = Rank(7);

    /// The same rank seen from the other side of the board.
    #[must_use]
    pub const fn flip(self) -> Rank {
        Rank(7 - self.0)
    }
    /// The rank as seen by `color` (White's first rank is Black's eighth).
    #[must_use]
    pub const fn relative(self, color: crate::Color) -> Rank {
        match color {
            crate::Color::White => self,
            crate::Color::Black => self.flip(),
        }
    }
}

/// One of the 64 squares; `a1` = 0, `b1` = 1, …, `h8` = 63.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Square from index 0..64.
    #[must_use]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Square from an index the caller knows to be in 0..64.
    ///
    /// The index is masked, so an out-of-range value yields some square
    /// rather than undefined behaviour.
    #[must_use]
    #[inline(always)]
    pub const fn from_index(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The square on `file` and `rank`.
    #[must_use]
    #[inline(always)]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 8 + file.0)
    }

    /// Index 0..64.
    #[must_use]
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square's file.
    #[must_use]
    #[inline(always)]
    pub const fn file(self) -> File {
        File(self.0 & 7)
    }

    /// The square's rank.
    #[must_use]
    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank(self.0 >> 3)
    }

    /// Moves by `delta` squares of index if the result is on the board.
    #[must_use]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let v = self.0 as i32 + delta;
        if v >= 0 && v < 64 {
            Some(Square(v as u8))
        } else {
            None
        }
    }

    /// The square mirrored top to bottom (a1 ↔ a8).
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// `true` for dark squares (a1 is dark).
    #[must_use]
    pub const fn is_dark(self) -> bool {
        (self.0 / 8 + self.0 % 8).is_multiple_of(2)
    }

    /// Parses a square name such as `e4`.
    #[must_use]
    pub const fn from_ascii(s: &[u8]) -> Option<Square> {
        if s.len() != 2 {
            return None;
        }
        match (File::from_char(s[0]), Rank::from_char(s[1])) {
            (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
            _ => None,
        }
    }

    /// Appends the square's name to `out`.
    pub fn append_to(self, out: &mut Vec<u8>) {
        out.push(b'a' + (self.0 & 7));
        out.push(b'1' + (self.0 >> 3));
    }

    /// All squares, a1 to h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64u8).map(Square)
    }
}

macro_rules! squares {
    ($($name:ident = $i:expr),* $(,)?) => {
        impl Square {
            $(
                #[allow(missing_docs)]
                pub const $name: Square = Square($i);
            )*
        }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_ranks_read_exactly_their_eight_characters() {
        for b in 0..=255u8 {
            let file = File::from_char(b);
            assert_eq!(file.is_some(), (b'a'..=b'h').contains(&b), "{b}");
            let rank = Rank::from_char(b);
            assert_eq!(rank.is_some(), (b'1'..=b'8').contains(&b), "{b}");
            if let Some(f) = file {
                assert_eq!((f.char() as u8, File::new(f.index() as u32)), (b, Some(f)));
            }
            if let Some(r) = rank {
                assert_eq!((r.char() as u8, Rank::new(r.index() as u32)), (b, Some(r)));
            }
        }
        assert_eq!((File::new(8), Rank::new(8)), (None, None));
        assert_eq!((File::H.char(), Rank::EIGHTH.char()), ('h', '8'));
    }

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            let mut buf = Vec::new();
            sq.append_to(&mut buf);
            assert_eq!(Square::from_ascii(&buf), Some(sq));
            assert_eq!(sq.to_string().as_bytes(), &buf[..]);
        }
        for (name, idx) in [("a1", 0), ("h1", 7), ("e4", 28), ("h8", 63)] {
            assert_eq!(Square::from_ascii(name.as_bytes()).unwrap().index(), idx);
        }
        for bad in ["", "a", "i1", "a9", "a0", "e44", "E4"] {
            assert_eq!(Square::from_ascii(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn colours_of_squares() {
        assert!(Square::A1.is_dark());
        assert!(!Square::H1.is_dark());
        assert!(Square::H8.is_dark());
        assert!(!Square::E4.is_dark());
    }
}
