//! How the sliding pieces move, written once for the crate and for its
//! build script: `attacks.rs` builds its empty-board ray tables from
//! [`slide`], and `build.rs` (which includes this file by path) searches
//! the magic multipliers over the same [`slide`] and [`relevant_mask`].
//! Plain integers only (squares `0..64`, bit sets as `u64`), so the file
//! compiles in both places.

// Each side uses only part of this file.
#![allow(dead_code)]

/// A rook's four directions as (file, rank) steps.
pub(crate) const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// A bishop's four directions as (file, rank) steps.
pub(crate) const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The squares a slider on `sq` attacks along `dirs` on a board whose
/// occupied squares are `occupied`: each ray stops at, and includes, the
/// first occupied square.
pub(crate) const fn slide(sq: usize, occupied: u64, dirs: &[(i32, i32); 4]) -> u64 {
    rays(sq, occupied, dirs, 0)
}

/// The squares whose occupancy can change what a slider on `sq` attacks
/// along `dirs`: its rays without their last square (an edge square never
/// blocks anything beyond it).
pub(crate) const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    rays(sq, 0, dirs, 1)
}

/// The rays from `sq` along `dirs`, each stopping at the first square of
/// `occupied` (included) and short of the board's edge by `margin`
/// squares.
const fn rays(sq: usize, occupied: u64, dirs: &[(i32, i32); 4], margin: i32) -> u64 {
    let mut out = 0u64;
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while on_board(f, r) && on_board(f + margin * df, r + margin * dr) {
            let b = 1u64 << (r * 8 + f);
            out |= b;
            if occupied & b != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    out
}

const fn on_board(file: i32, rank: i32) -> bool {
    file >= 0 && file < 8 && rank >= 0 && rank < 8
}
