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
        let (up, third, last) = match us {
            Color::White => {
                (8, Bitboard::from_rank(Rank::new(2).unwrap_or(Rank::FIRST)), Bitboard::from_rank(Rank::EIGHTH))
            }
            Color::Black => {
                (-8, Bitboard::from_rank(Rank::new(5).unwrap_or(Rank::FIRST)), Bitboard::from_rank(Rank::FIRST))
            }
        };
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
