//! Static evaluation: a tapered (middlegame/endgame) sum of material,
//! piece-square terms, pawn structure, mobility, king safety and a few
//! piece bonuses, in centipawns from the side to move's point of view.
//!
//! Every term is computed for both colours on squares seen from that
//! colour's side of the board, so the evaluation is colour-symmetric: a
//! position and its mirror image with the colours swapped score the same.
//! The values are this project's own, set by chess sense (centralised
//! knights, advanced passed pawns, a sheltered king in the middlegame and
//! an active one in the endgame), not taken from another engine.

use epd_core::attacks;
use epd_core::{Bitboard, Color, Position, Role, Square};

/// Game phase weights of knight, bishop, rook and queen; 24 is a full
/// middlegame, 0 a pawn (or bare) ending.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const PHASE_MAX: i32 = 24;

/// Material, middlegame and endgame (pawn, knight, bishop, rook, queen,
/// king): the defaults of [`Params`].
const MATERIAL_MG: [i32; 6] = [100, 325, 335, 480, 960, 0];
const MATERIAL_EG: [i32; 6] = [120, 305, 325, 530, 990, 0];

/// The evaluation and search values open to tuning, each a UCI spin
/// option of `epd uci` (see [`Params::OPTIONS`]) so that a tuner (`epd
/// tune`, fishtest's SPSA, a Texel tuner) can move them without a
/// rebuild. [`Params::default`] holds the values the engine plays with.
///
/// ```
/// use epd_engine::search::{evaluate, evaluate_with, Params};
/// use epd_core::Position;
/// let p: Position = "4k3/8/8/8/8/8/P7/3NK3 w - - 0 1".parse().unwrap();
/// let mut cheap = Params::default();
/// assert!(cheap.set("KnightValue", 60));
/// assert!(evaluate_with(&p, &cheap) < evaluate(&p) - 200);
/// assert!(!cheap.set("KnightValue", 5000), "out of the option's range");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Material in the middlegame, by role (pawn .. king).
    pub material_mg: [i32; 6],
    /// Material in the endgame, by role.
    pub material_eg: [i32; 6],
    /// Mobility's weight, in percent of the built-in one.
    pub mobility: i32,
    /// Futility pruning's margin per ply of depth, in centipawns: a quiet
    /// move at depth 3 or less is not searched when the static evaluation
    /// plus this margin times the depth cannot reach alpha.
    pub futility_margin: i32,
}

/// The default futility margin per ply.
const FUTILITY_MARGIN: i32 = 110;

impl Default for Params {
    fn default() -> Params {
        Params::DEFAULT
    }
}

impl Params {
    /// The values the engine plays with.
    pub const DEFAULT: Params =
        Params { material_mg: MATERIAL_MG, material_eg: MATERIAL_EG, mobility: 100, futility_margin: FUTILITY_MARGIN };

    /// The UCI spin options, as (name, default, min, max). A piece's
    /// value is its middlegame value; its endgame value keeps the
    /// built-in difference from it.
    pub const OPTIONS: [(&'static str, i32, i32, i32); 7] = [
        ("PawnValue", MATERIAL_MG[0], 10, 400),
        ("KnightValue", MATERIAL_MG[1], 50, 1000),
        ("BishopValue", MATERIAL_MG[2], 50, 1000),
        ("RookValue", MATERIAL_MG[3], 100, 1500),
        ("QueenValue", MATERIAL_MG[4], 200, 3000),
        ("MobilityWeight", 100, 0, 400),
        ("FutilityMargin", FUTILITY_MARGIN, 0, 1000),
    ];

    /// Sets the option `name` (compared without regard to case) to
    /// `value`; `false`, changing nothing, if there is no such option or
    /// the value is outside its range.
    pub fn set(&mut self, name: &str, value: i64) -> bool {
        let Some(i) = Params::OPTIONS.iter().position(|o| o.0.eq_ignore_ascii_case(name)) else { return false };
        let (_, _, lo, hi) = Params::OPTIONS[i];
        let Ok(v) = i32::try_from(value) else { return false };
        if !(lo..=hi).contains(&v) {
            return false;
        }
        match i {
            0..=4 => {
                self.material_mg[i] = v;
                self.material_eg[i] = v + MATERIAL_EG[i] - MATERIAL_MG[i];
            }
            5 => self.mobility = v,
            _ => self.futility_margin = v,
        }
        true
    }
}

/// Mobility per safe square, around a typical count for the piece.
const MOBILITY_MG: [i32; 6] = [0, 4, 5, 2, 1, 0];
const MOBILITY_EG: [i32; 6] = [0, 4, 5, 4, 2, 0];
const MOBILITY_BASE: [i32; 6] = [0, 4, 6, 6, 12, 0];

/// Weight of one attacked square next to the enemy king, per attacker role.
const KING_ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Passed pawn bonus by rank, seen from the pawn's side (index 1 = second rank).
const PASSED_MG: [i32; 8] = [0, 4, 8, 14, 28, 48, 80, 0];
const PASSED_EG: [i32; 8] = [0, 10, 18, 32, 58, 95, 145, 0];

const DOUBLED: (i32, i32) = (-10, -22);
const ISOLATED: (i32, i32) = (-12, -16);
const BISHOP_PAIR: (i32, i32) = (28, 52);
const ROOK_OPEN_FILE: (i32, i32) = (26, 10);
const ROOK_HALF_OPEN_FILE: (i32, i32) = (12, 6);
const PAWN_SHIELD: i32 = 11;
const TEMPO: i32 = 10;

/// One piece-square value, for White (a1 = 0); Black reads the square
/// mirrored. Built from distances to the edges rather than typed in.
const fn pst_value(role: usize, sq: usize, endgame: bool) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    let fc = if f < 4 { f } else { 7 - f }; // 0 on the a/h files, 3 on d/e
    let rc = if r < 4 { r } else { 7 - r };
    let centre = fc + rc; // 0 in a corner, 6 on the four centre squares
    match role {
        // Pawns: advance, and in the middlegame occupy the centre.
        0 => {
            if r == 0 || r == 7 {
                0
            } else if endgame {
                (r - 1) * 7
            } else {
                let central = if f == 3 || f == 4 {
                    if r == 3 || r == 4 {
                        16
                    } else if r == 2 {
                        6
                    } else {
                        -4
                    }
                } else {
                    0
                };
                (r - 1) * 3 + central
            }
        }
        // Knights: strongly prefer the centre, dislike rims and corners.
        1 => {
            if endgame {
                centre * 7 - 21
            } else {
                centre * 9 - 26 + if r == 0 { -6 } else { 0 }
            }
        }
        // Bishops: centre and long diagonals.
        2 => {
            let diagonal = if f == r || f + r == 7 { 6 } else { 0 };
            if endgame {
                centre * 4 - 12
            } else {
                centre * 4 - 12 + diagonal + if r == 0 { -6 } else { 0 }
            }
        }
        // Rooks: the seventh rank, the central files.
        3 => {
            let seventh = if r == 6 { 1 } else { 0 };
            if endgame {
                seventh * 12
            } else {
                seventh * 20 + if fc == 3 { 6 } else { 0 } - if fc == 0 && r > 0 { 4 } else { 0 }
            }
        }
        // Queens: a little centralisation; much more in the endgame.
        4 => {
            if endgame {
                centre * 5 - 15
            } else {
                centre * 2 - 6 + if r == 0 { -2 } else { 0 }
            }
        }
        // King: tucked away on the wing in the middlegame, central later.
        _ => {
            if endgame {
                centre * 9 - 27
            } else {
                let advance = if r > 3 { 3 } else { r };
                let wing = if r == 0 && (f <= 2 || f >= 6) { 18 } else { 0 };
                -advance * 18 + wing - if f == 3 || f == 4 { 6 } else { 0 }
            }
        }
    }
}

const fn pst_table(endgame: bool) -> [[i32; 64]; 6] {
    let mut t = [[0; 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            t[role][sq] = pst_value(role, sq, endgame);
            sq += 1;
        }
        role += 1;
    }
    t
}

static PST_MG: [[i32; 64]; 6] = pst_table(false);
static PST_EG: [[i32; 64]; 6] = pst_table(true);

const FILE_A: u64 = 0x0101_0101_0101_0101;

#[inline(always)]
fn file_mask(file: usize) -> Bitboard {
    Bitboard(FILE_A << file)
}

#[inline(always)]
fn adjacent_files(file: usize) -> Bitboard {
    let mut b = 0;
    if file > 0 {
        b |= FILE_A << (file - 1);
    }
    if file < 7 {
        b |= FILE_A << (file + 1);
    }
    Bitboard(b)
}

/// Squares strictly in front of `sq` (towards the eighth rank for White)
/// on all files.
#[inline(always)]
fn ranks_ahead(color: Color, sq: Square) -> Bitboard {
    let r = sq.rank().index();
    match color {
        Color::White => Bitboard(if r >= 7 { 0 } else { !0u64 << (8 * (r + 1)) }),
        Color::Black => Bitboard(if r == 0 { 0 } else { !0u64 >> (8 * (8 - r)) }),
    }
}

/// Squares attacked by the pawns `pawns` of `color`.
#[inline(always)]
pub(crate) fn pawn_attack_set(color: Color, pawns: Bitboard) -> Bitboard {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let p = pawns.0;
    Bitboard(match color {
        Color::White => ((p & NOT_A) << 7) | ((p & NOT_H) << 9),
        Color::Black => ((p & NOT_A) >> 9) | ((p & NOT_H) >> 7),
    })
}

#[inline(always)]
fn relative(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => sq.flip_vertical().index(),
    }
}

/// Middlegame and endgame sums for one side.
#[derive(Default, Clone, Copy)]
struct Pair {
    mg: i32,
    eg: i32,
}

impl Pair {
    #[inline(always)]
    fn add(&mut self, (mg, eg): (i32, i32)) {
        self.mg += mg;
        self.eg += eg;
    }
}

/// Non-pawn material of `color` in middlegame units (for draw scaling and
/// null-move decisions).
#[must_use]
pub(crate) fn non_pawn_material(pos: &Position, color: Color) -> i32 {
    non_pawn_material_with(pos, color, &MATERIAL_MG)
}

fn non_pawn_material_with(pos: &Position, color: Color, material: &[i32; 6]) -> i32 {
    let b = pos.board();
    let ours = b.by_color(color);
    [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .iter()
        .map(|&r| material[r.index()] * (b.by_role(r) & ours).count() as i32)
        .sum()
}

fn side_terms(pos: &Position, color: Color, params: &Params) -> Pair {
    let b = pos.board();
    let them = color.other();
    let ours = b.by_color(color);
    let theirs = b.by_color(them);
    let occ = b.occupied();
    let our_pawns = b.pawns() & ours;
    let their_pawns = b.pawns() & theirs;
    let mut s = Pair::default();

    // Pawns: material, squares, structure.
    for sq in our_pawns {
        let rel = relative(color, sq);
        s.add((params.material_mg[0] + PST_MG[0][rel], params.material_eg[0] + PST_EG[0][rel]));
        let file = sq.file().index();
        let ahead = ranks_ahead(color, sq);
        if (our_pawns & file_mask(file) & ahead).any() {
            s.add(DOUBLED);
        }
        if (our_pawns & adjacent_files(file)).is_empty() {
            s.add(ISOLATED);
        }
        let span = (file_mask(file) | adjacent_files(file)) & ahead;
        if (their_pawns & span).is_empty() && (our_pawns & file_mask(file) & ahead).is_empty() {
            let rank = rel / 8;
            s.add((PASSED_MG[rank], PASSED_EG[rank]));
        }
    }

    // Pieces: material, squares, mobility, attacks on the enemy king.
    let enemy_pawn_attacks = pawn_attack_set(them, their_pawns);
    let mobility_area = !(ours | enemy_pawn_attacks);
    let their_king = b.king_of(them);
    let king_zone = their_king.map_or(Bitboard::EMPTY, |k| attacks::king_attacks(k) | Bitboard::from(k));
    let mut attack_units = 0;
    let mut attackers = 0;
    let mut mobility = Pair::default();
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let i = role.index();
        for sq in b.by_role(role) & ours {
            let rel = relative(color, sq);
            s.add((params.material_mg[i] + PST_MG[i][rel], params.material_eg[i] + PST_EG[i][rel]));
            let att = attacks::attacks(color, role, sq, occ);
            let mob = (att & mobility_area).count() as i32 - MOBILITY_BASE[i];
            mobility.add((MOBILITY_MG[i] * mob, MOBILITY_EG[i] * mob));
            let on_zone = (att & king_zone).count() as i32;
            if on_zone > 0 {
                attackers += 1;
                attack_units += KING_ATTACK_WEIGHT[i] * on_zone;
            }
            if role == Role::Rook {
                let file = file_mask(sq.file().index());
                if (b.pawns() & file).is_empty() {
                    s.add(ROOK_OPEN_FILE);
                } else if (our_pawns & file).is_empty() {
                    s.add(ROOK_HALF_OPEN_FILE);
                }
            }
        }
    }
    if params.mobility == 100 {
        s.add((mobility.mg, mobility.eg));
    } else {
        s.add((mobility.mg * params.mobility / 100, mobility.eg * params.mobility / 100));
    }
    if (b.bishops() & ours).more_than_one() {
        s.add(BISHOP_PAIR);
    }
    // An attack by several pieces, with a queen among them, grows fast.
    if attackers >= 2 && (b.queens() & ours).any() {
        let bonus = (attack_units * attack_units / 3).min(450);
        s.add((bonus, bonus / 4));
    }

    // King: squares, and the pawn shield in front of a castled king.
    if let Some(k) = b.king_of(color) {
        let rel = relative(color, k);
        s.add((PST_MG[5][rel], PST_EG[5][rel]));
        let file = k.file().index();
        let files = file_mask(file) | adjacent_files(file);
        let near =
            attacks::king_attacks(k) | attacks::king_attacks(k).shift_up() | attacks::king_attacks(k).shift_down();
        let shield = (our_pawns & files & ranks_ahead(color, k) & near).count() as i32;
        s.mg += PAWN_SHIELD * shield.min(3);
        // Open files next to the king in the middlegame.
        for f in file.saturating_sub(1)..=(file + 1).min(7) {
            if (our_pawns & file_mask(f)).is_empty() {
                s.mg -= 14;
            }
        }
    }
    s
}

/// Chebyshev distance of `sq` from the centre (0 on d4/e4/d5/e5 .. 3 in a corner).
fn centre_distance(sq: Square) -> i32 {
    let f = sq.file().index() as i32;
    let r = sq.rank().index() as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    df.max(dr)
}

fn king_distance(a: Square, b: Square) -> i32 {
    let df = (a.file().index() as i32 - b.file().index() as i32).abs();
    let dr = (a.rank().index() as i32 - b.rank().index() as i32).abs();
    df.max(dr)
}

/// The static evaluation of `pos` in centipawns, from the side to move's
/// point of view. Dead positions (insufficient material) score 0.
///
/// ```
/// use epd_core::Position;
/// use epd_engine::search::evaluate;
/// assert!(evaluate(&Position::startpos()).abs() < 50);
/// let up_a_queen: Position = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1".parse().unwrap();
/// assert!(evaluate(&up_a_queen) > 800);
/// ```
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &Params::DEFAULT)
}

/// [`evaluate`] with the values of `params`.
#[must_use]
pub fn evaluate_with(pos: &Position, params: &Params) -> i32 {
    if pos.is_insufficient_material() {
        return 0;
    }
    let b = pos.board();
    let phase = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .iter()
        .map(|&r| PHASE_WEIGHT[r.index()] * b.by_role(r).count() as i32)
        .sum::<i32>()
        .min(PHASE_MAX);
    let white = side_terms(pos, Color::White, params);
    let black = side_terms(pos, Color::Black, params);
    let mg = white.mg - black.mg;
    let mut eg = white.eg - black.eg;

    // Endgame adjustments: drive a bare king to the edge; a material edge
    // of less than a minor piece without pawns rarely wins.
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    let weak = strong.other();
    let strong_pawns = (b.pawns() & b.by_color(strong)).count();
    let material = &params.material_mg;
    let material_edge = non_pawn_material_with(pos, strong, material) - non_pawn_material_with(pos, weak, material);
    if strong_pawns == 0 && material_edge <= material[Role::Bishop.index()] {
        eg /= 6;
    } else if (b.by_color(weak) - b.kings()).is_empty() && material_edge >= material[Role::Rook.index()] {
        if let (Some(sk), Some(wk)) = (b.king_of(strong), b.king_of(weak)) {
            let push = 20 * centre_distance(wk) + 10 * (7 - king_distance(sk, wk));
            eg += if strong == Color::White { push } else { -push };
        }
    }

    let score = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    let score = score.clamp(-20_000, 20_000);
    match pos.turn() {
        Color::White => score + TEMPO,
        Color::Black => -score + TEMPO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::{Board, Piece, Setup};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// The position with the board mirrored top to bottom and the colours
    /// swapped: the same game from the other side.
    pub(crate) fn flipped(p: &Position) -> Position {
        let s = p.to_setup();
        let mut board = Board::empty();
        for (sq, piece) in s.board.pieces() {
            board.set_piece_at(sq.flip_vertical(), Piece { color: piece.color.other(), role: piece.role });
        }
        let setup = Setup {
            board,
            turn: s.turn.other(),
            castling_rights: s.castling_rights.into_iter().map(Square::flip_vertical).collect(),
            ep_square: s.ep_square.map(Square::flip_vertical),
            halfmoves: s.halfmoves,
            fullmoves: s.fullmoves,
        };
        Position::from_setup(setup).unwrap_or_else(|e| panic!("flip of {}: {e}", p.fen()))
    }

    #[test]
    fn evaluation_is_colour_symmetric_on_random_positions() {
        // A xorshift generator so the test replays exactly.
        let mut rng = epd_testkit::XorShift::new(0x2545_F491_4F6C_DD1D);
        let mut next = move || rng.next();
        let mut checked = 0;
        for _ in 0..60 {
            let mut p = Position::startpos();
            for _ in 0..120 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let f = flipped(&p);
                assert_eq!(evaluate(&p), evaluate(&f), "{} vs {}", p.fen(), f.fen());
                checked += 1;
                p.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
            }
        }
        assert!(checked > 3000, "{checked}");
    }

    #[test]
    fn evaluations_follow_chess_sense() {
        // (fen, lower bound, upper bound) for the side to move.
        for (fen, lo, hi) in [
            // The start position is about level (tempo only).
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, 30),
            // Dead positions are exactly zero.
            ("8/8/4k3/8/8/3KB3/8/8 w - - 0 1", 0, 0),
            ("8/8/4k3/8/8/3KN3/8/8 b - - 0 1", 0, 0),
            ("8/8/4k3/2b5/8/3KB3/8/8 w - - 0 1", 0, 0),
            // A clean extra rook, either side to move.
            ("4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1", 400, 800),
            ("4k3/pppp4/8/8/8/8/PPPP4/R3K3 b - - 0 1", -800, -400),
            // A far-advanced passed pawn in a pawn ending is worth more than a pawn.
            ("8/1P6/8/8/8/5k2/8/4K3 w - - 0 1", 200, 600),
            // Rook versus bishop without pawns is scaled towards a draw.
            ("8/8/4k3/8/3b4/8/8/R3K3 w - - 0 1", 0, 60),
        ] {
            let e = evaluate(&pos(fen));
            assert!((lo..=hi).contains(&e), "{fen}: {e} not in {lo}..={hi}");
        }
    }

    #[test]
    fn structure_terms_have_the_right_sign() {
        // (better for White, worse for White), same material, White to move.
        for (better, worse) in [
            // Connected versus isolated and doubled pawns.
            ("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1", "4k3/8/8/8/8/P7/P3P3/4K3 w - - 0 1"),
            // A centralised knight versus one in the corner.
            ("4k3/pppp4/8/8/3N4/8/PPPP4/4K3 w - - 0 1", "4k3/pppp4/8/8/8/8/PPPP4/N3K3 w - - 0 1"),
            // Rook on the open file versus behind its own pawn.
            ("4k3/1ppp4/8/8/8/8/1PPP4/R3K3 w - - 0 1", "4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1"),
            // The bishop pair versus bishop and knight.
            ("4k3/pppp4/8/8/8/8/PPPP4/2B1KB2 w - - 0 1", "4k3/pppp4/8/8/8/8/PPPP4/2B1KN2 w - - 0 1"),
        ] {
            let (b, w) = (evaluate(&pos(better)), evaluate(&pos(worse)));
            assert!(b > w, "{better}: {b} should beat {worse}: {w}");
        }
    }
}
