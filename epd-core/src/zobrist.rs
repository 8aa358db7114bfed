//! Zobrist keys for position hashing, generated at compile time.

use crate::{Color, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut s = seed;
    let mut i = 0;
    while i < N {
        let (ns, v) = splitmix(s);
        s = ns;
        out[i] = v;
        i += 1;
    }
    out
}

/// 12 piece kinds by 64 squares, then zero keys for indexes 12–15, "no
/// piece" (the placement reader's discarded sets, through
/// [`PIECE_READING`]). A power of two: [`piece`]'s index then needs no
/// bounds check (a 768-entry table cost 69 instructions a record).
static PIECE_SQUARE: [u64; 1024] = {
    let k = keys::<768>(0x45_50_44_4b_69_74_01);
    let mut t = [0u64; 1024];
    let mut i = 0;
    while i < 768 {
        t[i] = k[i];
        i += 1;
    }
    t
};
/// [`PIECE_SQUARE`] with the squares in FEN reading order (a8 = 0, h1 =
/// 63), for the placement reader.
static PIECE_READING: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut i = 0;
    while i < 1024 {
        t[i] = PIECE_SQUARE[i ^ 56];
        i += 1;
    }
    t
};
static CASTLE: [u64; 64] = keys::<64>(0x45_50_44_4b_69_74_02);
static EP_FILE: [u64; 8] = keys::<8>(0x45_50_44_4b_69_74_03);
/// Key toggled when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = 0xF8D6_26AA_AF27_8509;

#[inline(always)]
pub(crate) fn piece(color: Color, role: Role, sq: Square) -> u64 {
    PIECE_SQUARE[(color.index() * 6 + role.index()) * 64 + sq.index()]
}

/// The key of piece kind `index` (`colour * 6 + role`; 12–15 for none,
/// whose keys are zero) on the square `pos` in FEN reading order (a8 = 0,
/// h1 = 63; both masked into range).
#[inline(always)]
pub(crate) fn piece_reading(index: usize, pos: usize) -> u64 {
    PIECE_READING[(index & 15) * 64 + (pos & 63)]
}

#[inline(always)]
pub(crate) fn castle(rook: Square) -> u64 {
    CASTLE[rook.index()]
}

#[inline(always)]
pub(crate) fn ep_file(sq: Square) -> u64 {
    EP_FILE[sq.file().index()]
}
