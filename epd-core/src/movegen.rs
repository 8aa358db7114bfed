//! Legal move generation.
//!
//! One generator, generic over a [`Sink`] that receives moves as sets: a
//! piece and all its target squares at once, or all pawns' pushes as one
//! shifted bitboard. Collecting into a [`MoveList`] expands the sets;
//! counting (perft's bulk counting) only takes their popcounts.

use crate::attacks::{self, between, line};
use crate::{Bitboard, Color, Move, MoveList, Position, Rank, Role, Square};

pub(crate) trait Sink {
    /// Moves of a non-pawn piece from `from` to every square of `to`.
    fn piece(&mut self, role: Role, from: Square, to: Bitboard);
    /// Non-promoting pawn moves to each square of `to`, each from the
    /// square `delta` index steps back.
    fn pawns(&mut self, to: Bitboard, delta: i32);
    /// Promotions (four each) to each square of `to`, from `delta` back.
    fn promotions(&mut self, to: Bitboard, delta: i32);
    /// One en passant capture.
    fn en_passant(&mut self, from: Square, to: Square);
    /// Castling with the rook on `rook`.
    fn castle(&mut self, king: Square, rook: Square);
    /// `true` once the sink needs no more moves (checked after the king's).
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
    /// The sink wants to know only whether a move exists: the king's
    /// targets are then tested only up to the first safe one.
    const ANY: bool = false;
}

impl Sink for MoveList {
    #[inline(always)]
    fn piece(&mut self, role: Role, from: Square, to: Bitboard) {
        for t in to {
            self.push(Move::normal(role, from, t));
        }
    }
    #[inline(always)]
    fn pawns(&mut self, to: Bitboard, delta: i32) {
        for t in to {
            self.push(Move::normal(Role::Pawn, Square::from_index((t.index() as i32 - delta) as u32), t));
        }
    }
    #[inline(always)]
    fn promotions(&mut self, to: Bitboard, delta: i32) {
        for t in to {
            let from = Square::from_index((t.index() as i32 - delta) as u32);
            for r in Role::PROMOTIONS {
                self.push(Move::promotion(from, t, r));
            }
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: Square, to: Square) {
        self.push(Move::en_passant(from, to));
    }
    #[inline(always)]
    fn castle(&mut self, king: Square, rook: Square) {
        self.push(Move::castle(king, rook));
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub(crate) u64);

impl Sink for Counter {
    #[inline(always)]
    fn piece(&mut self, _: Role, _: Square, to: Bitboard) {
        self.0 += to.count() as u64;
    }
    #[inline(always)]
    fn pawns(&mut self, to: Bitboard, _: i32) {
        self.0 += to.count() as u64;
    }
    #[inline(always)]
    fn promotions(&mut self, to: Bitboard, _: i32) {
        self.0 += 4 * to.count() as u64;
    }
    #[inline(always)]
    fn en_passant(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
    #[inline(always)]
    fn castle(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
}

/// Stops at the first move.
struct AnyMove(bool);

impl Sink for AnyMove {
    #[inline(always)]
    fn piece(&mut self, _: Role, _: Square, to: Bitboard) {
        self.0 |= to.any();
    }
    #[inline(always)]
    fn pawns(&mut self, to: Bitboard, _: i32) {
        self.0 |= to.any();
    }
    #[inline(always)]
    fn promotions(&mut self, to: Bitboard, _: i32) {
        self.0 |= to.any();
    }
    #[inline(always)]
    fn en_passant(&mut self, _: Square, _: Square) {
        self.0 = true;
    }
    #[inline(always)]
    fn castle(&mut self, _: Square, _: Square) {
        self.0 = true;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.0
    }
    const ANY: bool = true;
}

#[inline(always)]
fn shift(b: Bitboard, delta: i32) -> Bitboard {
    if delta >= 0 {
        Bitboard(b.0 << delta)
    } else {
        Bitboard(b.0 >> -delta)
    }
}

/// For the pawns of `us`: the index step of a push, the rank a single
/// push from the home rank reaches (a pawn there may push once more) and
/// the rank of promotion.
#[inline(always)]
fn pawn_ranks(us: Color) -> (i32, Bitboard, Bitboard) {
    match us {
        Color::White => {
            (8, Bitboard::from_rank(Rank::new(2).unwrap_or(Rank::FIRST)), Bitboard::from_rank(Rank::EIGHTH))
        }
        Color::Black => {
            (-8, Bitboard::from_rank(Rank::new(5).unwrap_or(Rank::FIRST)), Bitboard::from_rank(Rank::FIRST))
        }
    }
}

const NOT_FILE_A: Bitboard = Bitboard(0xfefe_fefe_fefe_fefe);
const NOT_FILE_H: Bitboard = Bitboard(0x7f7f_7f7f_7f7f_7f7f);

impl Position {
    #[inline(always)]
    pub(crate) fn generate<S: Sink>(&self, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let board = &self.board;
        let ours = board.by_color(us);
        let theirs = board.by_color(them);
        let occ = ours | theirs;
        let king = self.our_king();

        // King moves, each target tested with the king lifted off the board
        // so it cannot hide behind itself from a slider.
        let mut king_to = Bitboard::EMPTY;
        let occ_no_king = occ ^ king;
        for to in attacks::king_attacks(king) - ours {
            if board.attackers_of(to, them, occ_no_king).is_empty() {
                king_to.add(to);
                if S::ANY {
                    break;
                }
            }
        }
        sink.piece(Role::King, king, king_to);

        let checkers = self.checkers;
        if checkers.more_than_one() || sink.done() {
            return;
        }
        let target = match checkers.first() {
            Some(c) => between(king, c) | Bitboard::from(c),
            None => !ours,
        };
        let pinned = self.pinned;

        for from in (board.knights() & ours) - pinned {
            sink.piece(Role::Knight, from, attacks::knight_attacks(from) & target);
        }
        for from in board.bishops() & ours {
            let mut to = attacks::bishop_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            sink.piece(Role::Bishop, from, to);
        }
        for from in board.rooks() & ours {
            let mut to = attacks::rook_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            sink.piece(Role::Rook, from, to);
        }
        for from in board.queens() & ours {
            let mut to = attacks::queen_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            sink.piece(Role::Queen, from, to);
        }

        self.generate_pawns(sink, target, king);

        if checkers.is_empty() {
            let back = Bitboard::from_rank(Rank::FIRST.relative(us));
            for rook in self.castles & ours & back {
                if self.castle_is_legal(king, rook) {
                    sink.castle(king, rook);
                }
            }
        }
    }

    #[inline(always)]
    fn generate_pawns<S: Sink>(&self, sink: &mut S, target: Bitboard, king: Square) {
        let us = self.turn;
        let board = &self.board;
        let ours = board.by_color(us);
        let theirs = board.by_color(us.other());
        let occ = ours | theirs;
        let pawns = board.pawns() & ours;
        let pinned = self.pinned;
        let (up, third, last) = pawn_ranks(us);
        let empty = !occ;

        let free = pawns - pinned;
        let single = shift(free, up) & empty;
        let double = shift(single & third, up) & empty & target;
        let single = single & target;
        sink.pawns(single - last, up);
        sink.promotions(single & last, up);
        sink.pawns(double, 2 * up);
        // Captures towards the a-file and towards the h-file.
        let (left, right) = (up - 1, up + 1);
        let cap_left = shift(free & NOT_FILE_A, left) & theirs & target;
        let cap_right = shift(free & NOT_FILE_H, right) & theirs & target;
        sink.pawns(cap_left - last, left);
        sink.promotions(cap_left & last, left);
        sink.pawns(cap_right - last, right);
        sink.promotions(cap_right & last, right);

        // A pinned pawn moves only along its pin line, and never while in
        // check (no square of the pin line can block or capture a checker).
        if self.checkers.is_empty() {
            for from in pawns & pinned {
                let pin = line(king, from);
                let fb = Bitboard::from(from);
                let one = shift(fb, up) & empty & pin;
                let two = shift(one & third, up) & empty;
                let caps = attacks::pawn_attacks(us, from) & theirs & pin;
                sink.pawns(one - last, up);
                sink.promotions(one & last, up);
                sink.pawns(two, 2 * up);
                for to in caps {
                    let delta = to.index() as i32 - from.index() as i32;
                    let tb = Bitboard::from(to);
                    sink.pawns(tb - last, delta);
                    sink.promotions(tb & last, delta);
                }
            }
        }

        if let Some(ep) = self.ep_square {
            for from in attacks::pawn_attacks(us.other(), ep) & pawns {
                if self.ep_is_legal(from, ep) {
                    sink.en_passant(from, ep);
                }
            }
        }
    }

    /// All legal moves.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Appends all legal moves to `list`.
    pub fn append_legal_moves(&self, list: &mut MoveList) {
        self.generate(list);
    }

    /// The number of legal moves, without listing them.
    #[must_use]
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// `true` if the side to move has at least one legal move.
    #[must_use]
    pub fn has_legal_moves(&self) -> bool {
        let mut a = AnyMove(false);
        self.generate(&mut a);
        a.0
    }

    /// `true` if the side to move, which must be in check, has a legal
    /// move: what proving a check mark (`+`, not `#`) needs. The same answer
    /// as [`Position::has_legal_moves`], found the way a player looks: a
    /// king step to a safe square, then (against one checker) a capture of
    /// the checker or a piece put between. Rooks are looked up in the
    /// compact tables: the record reader asks this once in a few records,
    /// when the 800 KB rook magic table is out of cache. A position with an
    /// en passant square is left to the general generator.
    #[must_use]
    pub(crate) fn has_evasion(&self) -> bool {
        let us = self.turn;
        let board = &self.board;
        let ours = board.by_color(us);
        let occ = board.occupied();
        let king = self.our_king();
        for to in attacks::king_attacks(king) - ours {
            if !self.attacked_by_them_compact(to, occ ^ king) {
                return true;
            }
        }
        let Some(checker) = self.checkers.single_square() else {
            // Double check (only the king moves), or no check at all.
            return self.checkers.is_empty() && self.has_legal_moves();
        };
        if self.ep_square.is_some() {
            return self.has_legal_moves();
        }
        // A pinned piece has no move in check: no square of its pin line
        // blocks or takes a checker.
        let movers = ours - board.kings() - self.pinned;
        // The checker taken (by a pawn on the last rank: a promotion).
        if (board.attackers_with::<true>(checker, us, occ) & movers).any() {
            return true;
        }
        let gap = between(king, checker);
        if gap.is_empty() {
            return false;
        }
        // A pawn pushed between, one square or two.
        let pawns = board.pawns() & movers;
        let (up, third, _) = pawn_ranks(us);
        let single = shift(pawns, up) - occ;
        let double = shift(single & third, up) - occ;
        if ((single | double) & gap).any() {
            return true;
        }
        // A piece put between.
        let knights = board.knights() & movers;
        let diagonal = board.bishops_and_queens() & movers;
        let straight = board.rooks_and_queens() & movers;
        gap.into_iter().any(|sq| {
            (attacks::knight_attacks(sq) & knights).any()
                || (attacks::bishop_attacks(sq, occ) & diagonal).any()
                || (attacks::rook_attacks_compact(sq, occ) & straight).any()
        })
    }

    /// Legal moves of pieces of `role` to `to` (castling excluded; each
    /// promotion piece is a move of its own).
    #[must_use]
    pub fn legal_moves_to(&self, role: Role, to: Square) -> MoveList {
        let mut list = MoveList::new();
        let last = Bitboard::from_rank(Rank::EIGHTH.relative(self.turn)).contains(to);
        for from in self.origins(role, to) {
            if role == Role::Pawn && last {
                for r in Role::PROMOTIONS {
                    list.push(Move::promotion(from, to, r));
                }
            } else if role == Role::Pawn
                && self.ep_square == Some(to)
                && from.file() != to.file()
                && !self.board.occupied().contains(to)
            {
                list.push(Move::en_passant(from, to));
            } else {
                list.push(Move::normal(role, from, to));
            }
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use crate::Position;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// Each way out of check, and each way it is barred, against the
    /// general generator (which `has_evasion` must always agree with).
    #[test]
    fn has_evasion_finds_each_kind_of_evasion() {
        for (fen, evades) in [
            // Back-rank mate; the same with a rook that can interpose.
            ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", false),
            ("R5k1/5ppp/8/8/8/8/2r5/6K1 b - - 0 1", true),
            // Smothered mate (a knight: nothing to put between); the same
            // with a rook that takes the knight.
            ("6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1", false),
            ("6rk/5Npp/8/8/8/8/5r2/6K1 b - - 0 1", true),
            // Double check: only the king may move, and cannot.
            ("6rk/5Np1/8/8/8/8/8/6KR b - - 0 1", false),
            // Double check where the queen could take one checker or block
            // the other: still mate.
            ("6rk/5Np1/8/3q4/8/8/8/6KR b - - 0 1", false),
            // The only piece that could interpose is pinned.
            ("R5k1/5bpp/8/8/8/8/B7/6K1 b - - 0 1", false),
            // The only way out: a pawn pushed one square, or two, between.
            ("4k3/8/8/b7/8/8/2P1PP2/3BKB2 w - - 0 1", true),
            ("4k3/8/8/6PP/r6K/6pP/2P5/4b3 w - - 0 1", true),
            // The only way out: a promotion between; a pawn taking the checker.
            ("r6K/4P1PP/8/8/8/8/8/k7 w - - 0 1", true),
            ("7k/8/8/8/8/5n2/4RNP1/3RKB2 w - - 0 1", true),
            // En passant takes the checking pawn.
            ("8/8/8/2k5/3Pp3/8/8/K7 b - d3 0 1", true),
            // Fool's mate.
            ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", false),
        ] {
            let p = pos(fen);
            assert!(p.is_check(), "{fen}: not in check");
            assert_eq!(p.has_legal_moves(), evades, "{fen}: the general generator");
            assert_eq!(p.has_evasion(), evades, "{fen}");
        }
    }

    /// On every position in check reached by seeded random play (and after
    /// every checking move of every position visited), `has_evasion` says
    /// what the general generator says.
    #[test]
    fn has_evasion_agrees_with_the_generator() {
        let (mut checks, mut mates) = (0, 0);
        let starts = [
            Position::startpos(),
            pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
            pos("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
            pos("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
        ];
        epd_testkit::random_play(
            &starts,
            (40, 150, 0x9e37_79b9_7f4a_7c15),
            Position::legal_moves,
            Position::play_unchecked,
            |p, legal| {
                for &m in legal {
                    if p.gives_check(m) {
                        let mut q = *p;
                        q.play_unchecked(m);
                        let general = q.has_legal_moves();
                        assert_eq!(q.has_evasion(), general, "{} after {m:?}", p.fen());
                        checks += 1;
                        mates += usize::from(!general);
                    }
                }
            },
        );
        assert!(checks > 20_000 && mates > 200, "{checks} checks, {mates} mates");
    }
}
