//! Move ordering: static exchange evaluation, MVV-LVA, and the scored
//! move list the search picks from best first.

use epd_core::{Bitboard, Move, MoveKind, MoveList, Position, Role, MAX_LEGAL_MOVES};

/// Piece values for exchanges (the king's is large: it is never lost).
pub(crate) const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

/// The role captured by `m`, if any.
#[inline(always)]
pub(crate) fn captured(pos: &Position, m: Move) -> Option<Role> {
    match m.kind() {
        MoveKind::EnPassant => Some(Role::Pawn),
        MoveKind::Castle => None,
        _ => pos.board().role_at(m.to()),
    }
}

/// Static exchange evaluation: the material `m` wins (or loses, when
/// negative) if both sides then capture on its target square with their
/// least valuable attacker for as long as it pays. Pins are ignored.
#[must_use]
pub(crate) fn see(pos: &Position, m: Move) -> i32 {
    if m.is_castle() {
        return 0;
    }
    let b = pos.board();
    let to = m.to();
    let mut occ = b.occupied() ^ Bitboard::from(m.from());
    let mut gain = [0i32; 34];
    gain[0] = captured(pos, m).map_or(0, |r| SEE_VALUE[r.index()]);
    let mut on_square = SEE_VALUE[m.role().index()];
    if let Some(p) = m.promotion_role() {
        gain[0] += SEE_VALUE[p.index()] - SEE_VALUE[0];
        on_square = SEE_VALUE[p.index()];
    }
    if m.is_en_passant() {
        occ ^= Bitboard::from(epd_core::Square::from_coords(to.file(), m.from().rank()));
    }
    let mut side = pos.turn().other();
    let mut d = 0;
    loop {
        let attackers = b.attackers_to(to, occ) & occ;
        let ours = attackers & b.by_color(side);
        if ours.is_empty() {
            break;
        }
        let Some((role, sq)) = Role::ALL.iter().find_map(|&r| (ours & b.by_role(r)).first().map(|s| (r, s))) else {
            break;
        };
        if role == Role::King && (attackers & b.by_color(side.other())).any() {
            break; // the king cannot capture into a defended square
        }
        d += 1;
        gain[d] = on_square - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 || d == gain.len() - 1 {
            break;
        }
        on_square = SEE_VALUE[role.index()];
        occ ^= Bitboard::from(sq);
        side = side.other();
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Most valuable victim, then least valuable attacker.
#[inline(always)]
pub(crate) fn mvv_lva(pos: &Position, m: Move) -> i32 {
    let victim = captured(pos, m).map_or(0, |r| SEE_VALUE[r.index()].min(1000));
    let promo = m.promotion_role().map_or(0, |r| SEE_VALUE[r.index()]);
    (victim + promo) * 16 - m.role().index() as i32
}

/// Ordering bands, highest first.
pub(crate) const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: [i32; 2] = [1 << 27, (1 << 27) - 1];
/// Ordering scores at or above this are killers, good captures or the table move.
pub(crate) const KILLER_MIN: i32 = KILLER[1];
const BAD_CAPTURE: i32 = -(1 << 28);
const UNDERPROMOTION: i32 = -(1 << 29);

/// A move list with a score per move, handed out best first.
pub(crate) struct Picker {
    moves: MoveList,
    scores: [i32; MAX_LEGAL_MOVES],
    next: usize,
}

impl Picker {
    /// Scores every move of `moves` for the main search.
    pub(crate) fn new(
        pos: &Position,
        moves: MoveList,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        history: &[[i32; 64]; 12],
    ) -> Picker {
        let mut scores = [0i32; MAX_LEGAL_MOVES];
        let us = pos.turn().index() * 6;
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                TT_MOVE
            } else if matches!(m.promotion_role(), Some(r) if r != Role::Queen) {
                UNDERPROMOTION + mvv_lva(pos, m)
            } else if captured(pos, m).is_some() || m.is_promotion() {
                let victim = captured(pos, m).map_or(0, |r| SEE_VALUE[r.index()]);
                if victim >= SEE_VALUE[m.role().index()] || see(pos, m) >= 0 {
                    GOOD_CAPTURE + mvv_lva(pos, m)
                } else {
                    BAD_CAPTURE + mvv_lva(pos, m)
                }
            } else if Some(m) == killers[0] {
                KILLER[0]
            } else if Some(m) == killers[1] {
                KILLER[1]
            } else {
                history[us + m.role().index()][m.to().index()]
            };
        }
        Picker { moves, scores, next: 0 }
    }

    /// Captures and queen promotions for quiescence, by MVV-LVA; moves
    /// that lose material by SEE are left out.
    pub(crate) fn quiescence(pos: &Position, mut moves: MoveList) -> Picker {
        moves.retain(|&m| {
            let tactical = captured(pos, m).is_some() || m.promotion_role() == Some(Role::Queen);
            tactical && !matches!(m.promotion_role(), Some(r) if r != Role::Queen)
        });
        let mut scores = [0i32; MAX_LEGAL_MOVES];
        let mut w = 0;
        for r in 0..moves.len() {
            let m = moves[r];
            let victim = captured(pos, m).map_or(0, |r| SEE_VALUE[r.index()]);
            if victim < SEE_VALUE[m.role().index()] && see(pos, m) < 0 {
                continue;
            }
            moves[w] = m;
            scores[w] = mvv_lva(pos, m);
            w += 1;
        }
        moves.retain({
            let mut i = 0;
            move |_| {
                i += 1;
                i <= w
            }
        });
        Picker { moves, scores, next: 0 }
    }

    /// Every move, in generation order with equal scores (check evasions
    /// in quiescence), captures first.
    pub(crate) fn evasions(pos: &Position, moves: MoveList) -> Picker {
        let mut scores = [0i32; MAX_LEGAL_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if captured(pos, m).is_some() { GOOD_CAPTURE + mvv_lva(pos, m) } else { 0 };
        }
        Picker { moves, scores, next: 0 }
    }

    /// The number of moves in the list.
    pub(crate) fn len(&self) -> usize {
        self.moves.len()
    }

    /// The best remaining move and its ordering score.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<(Move, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let out = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_exchange_values() {
        // (fen, uci move, expected gain)
        for (fen, uci, gain) in [
            // Pawn takes an undefended knight.
            ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320),
            // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
            ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 100 - 950),
            // Rook takes a rook defended by a rook, with a second rook behind (x-ray).
            ("3r3k/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 500),
            // The same with the king beside d7: it takes last, and the trade is even.
            ("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 0),
            // Knight takes a pawn defended by a bishop.
            ("4k3/8/5b2/4p3/8/3N4/8/4K3 w - - 0 1", "d3e5", 100 - 320),
            // En passant, undefended.
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),
            // A quiet move onto an attacked square loses the piece.
            ("4k3/8/8/8/3p4/8/8/1N2K3 w - - 0 1", "b1a3", 0),
            ("4k3/8/8/8/3p4/8/8/1N2K3 w - - 0 1", "b1c3", -320),
        ] {
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            let m = pos.parse_uci(uci.as_bytes()).unwrap_or_else(|e| panic!("{fen} {uci}: {e}"));
            assert_eq!(see(&pos, m), gain, "{fen} {uci}");
        }
    }

    #[test]
    fn quiescence_keeps_winning_captures_best_first() {
        let pos = Position::from_fen("4k3/8/2p5/1q1p4/2P5/8/8/3QK3 w - - 0 1").unwrap_or_else(|e| panic!("{e}"));
        let mut p = Picker::quiescence(&pos, pos.legal_moves());
        let mut got = Vec::new();
        while let Some((m, _)) = p.next() {
            got.push(pos.uci(m));
        }
        // cxb5 wins a queen, cxd5 trades pawns evenly; Qxd5 loses the queen.
        assert_eq!(got, ["c4b5", "c4d5"]);
    }
}
