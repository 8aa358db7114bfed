//! Positions: the unvalidated [`Setup`] and the validated [`Position`],
//! making moves, and game status.

use crate::attacks::{self, between, line};
use crate::{zobrist, Bitboard, Board, Color, File, Move, MoveKind, Piece, Rank, Role, Square};
use core::fmt;

/// Raw position fields as read from FEN or EPD, not yet validated.
///
/// Castling rights are kept as the set of rook squares that may still
/// castle (`castling_rights`), which serves X-FEN (`KQkq`), Shredder-FEN
/// (`HAha`) and Chess960 alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Piece placement.
    pub board: Board,
    /// Side to move.
    pub turn: Color,
    /// Rooks (by square) that keep castling rights.
    pub castling_rights: Bitboard,
    /// The en passant target square, as given.
    pub ep_square: Option<Square>,
    /// Halfmove clock (plies since the last capture or pawn move).
    pub halfmoves: u32,
    /// Fullmove number, starting at 1.
    pub fullmoves: u32,
}

impl Setup {
    /// The standard starting position.
    #[must_use]
    pub fn standard() -> Setup {
        Setup {
            board: Board::standard(),
            turn: Color::White,
            castling_rights: Bitboard(0x8100_0000_0000_0081),
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// An empty board, White to move.
    #[must_use]
    pub fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            turn: Color::White,
            castling_rights: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// Every reason this setup is not a legal position; empty if it is one.
    #[must_use]
    pub fn problems(&self) -> Vec<PositionError> {
        let mut out = Vec::new();
        let board = &self.board;
        for color in Color::ALL {
            let kings = board.kings() & board.by_color(color);
            if kings.is_empty() {
                out.push(PositionError::MissingKing(color));
            } else if kings.more_than_one() {
                out.push(PositionError::TooManyKings(color));
            }
            let material = Material::of(board, color);
            if material.too_many_pawns {
                out.push(PositionError::TooManyPawns(color));
            }
            if material.too_many_pieces {
                out.push(PositionError::TooManyPieces(color));
            }
            if material.over_promotion_budget {
                out.push(PositionError::PromotionBudget(color));
            }
        }
        for sq in board.pawns() & Bitboard::BACKRANKS {
            out.push(PositionError::PawnOnBackRank(sq));
        }
        for rook in self.castling_rights {
            if !castling_right_valid(board, self.castling_rights, rook) {
                out.push(PositionError::InvalidCastlingRight(rook));
            }
        }
        if let Some(ep) = self.ep_square {
            if let Some(reason) = ep_problem(board, self.turn, ep) {
                out.push(PositionError::InvalidEnPassant(ep, reason));
            }
        }
        if let (Some(their_king), Some(our_king)) = (board.king_of(self.turn.other()), board.king_of(self.turn)) {
            if board.attackers_of(their_king, self.turn, board.occupied()).any() {
                out.push(PositionError::OppositeCheck);
            }
            if let Some(problem) = self.check_problem(our_king) {
                out.push(problem);
            }
        }
        out
    }

    /// Why the check on the side to move (whose king is on `our_king`)
    /// cannot have been given by the last move, if it cannot; python-chess's
    /// `Board.status()` rules (`TOO_MANY_CHECKERS`, `IMPOSSIBLE_CHECK`),
    /// and one more: two pawns or two knights never check together.
    ///
    /// A valid en passant square says the last move was the double step
    /// behind it; then only that pawn, or a piece the pawn uncovered on
    /// leaving its square, can give check, and only one of them.
    fn check_problem(&self, our_king: Square) -> Option<PositionError> {
        let board = &self.board;
        let occupied = board.occupied();
        let checkers = board.attackers_of(our_king, self.turn.other(), occupied);
        if checkers.is_empty() {
            return None;
        }
        if checkers.count() > 2 {
            return Some(PositionError::TooManyCheckers);
        }
        let ep = self.ep_square.filter(|&ep| ep_problem(board, self.turn, ep).is_none());
        if let Some(ep) = ep {
            let dir = if self.turn.is_white() { 8 } else { -8 };
            let (Some(pushed_to), Some(pushed_from)) = (ep.offset(-dir), ep.offset(dir)) else {
                return None;
            };
            // The same pieces, with the pawn back on its square.
            let before = (occupied & !Bitboard::from_square(pushed_to)) | Bitboard::from_square(pushed_from);
            let checked_before = board.attackers_of(our_king, self.turn.other(), before).any();
            if checkers.more_than_one() || (!checkers.contains(pushed_to) && checked_before) {
                return Some(PositionError::EnPassantCheck(ep));
            }
            return None;
        }
        if checkers.count() == 2 {
            // Two checkers arise only from a discovered check; two pieces
            // that could not both have been uncovered by one move (two
            // pawns, two knights, or aligned with the king) are impossible.
            let mut it = checkers.into_iter();
            let (a, b) = (it.next().unwrap_or(our_king), it.next().unwrap_or(our_king));
            let same_leaper = |r: Role| board.by_role(r).contains(a) && board.by_role(r).contains(b);
            if same_leaper(Role::Pawn) || same_leaper(Role::Knight) || attacks::aligned(a, b, our_king) {
                return Some(PositionError::ImpossibleCheck);
            }
        }
        None
    }

    /// The pieces checking the side to move, if this setup plainly has
    /// none of the [`Setup::problems`] (and no en passant square); `None`
    /// when it has one or might (a double check, which needs a closer
    /// look). For readers that then build the position with
    /// [`Position::from_plain_setup`], computing the checkers once.
    #[inline]
    pub(crate) fn plain_checkers(&self) -> Option<Bitboard> {
        let board = &self.board;
        let our_king = board.king_of(self.turn)?;
        let their_king = board.king_of(self.turn.other())?;
        if self.ep_square.is_some() || (board.pawns() & Bitboard::BACKRANKS).any() {
            return None;
        }
        for color in Color::ALL {
            if !Material::plainly_fine(board, color) {
                let m = Material::of(board, color);
                if m.too_many_pawns || m.too_many_pieces || m.over_promotion_budget {
                    return None;
                }
            }
        }
        for rook in self.castling_rights {
            if !castling_right_valid(board, self.castling_rights, rook) {
                return None;
            }
        }
        let occ = board.occupied();
        if board.attackers_with::<true>(their_king, self.turn, occ).any() {
            return None;
        }
        let checkers = board.attackers_with::<true>(our_king, self.turn.other(), occ);
        (!checkers.more_than_one()).then_some(checkers)
    }
}

/// What a side's material breaks of [`Setup::problems`]' rules.
struct Material {
    too_many_pawns: bool,
    too_many_pieces: bool,
    over_promotion_budget: bool,
}

impl Material {
    /// `true` when `color` (with one king) plainly keeps every material
    /// rule: no piece kind beyond its count in the initial array (so
    /// nothing needs a promotion, and there are at most 8 pieces besides
    /// pawns) and at most 8 pawns. Tested with bit tricks and one
    /// population count, where [`Material::of`] takes up to seven (the
    /// baseline x86-64 target has no popcount instruction). `false` says
    /// only "look closer".
    #[inline(always)]
    fn plainly_fine(board: &Board, color: Color) -> bool {
        let ours = board.by_color(color);
        let at_most_one = |b: Bitboard| !b.more_than_one();
        let at_most_two = |b: Bitboard| !Bitboard(b.0 & b.0.wrapping_sub(1)).more_than_one();
        let bishops = board.bishops() & ours;
        at_most_one(board.queens() & ours)
            && at_most_two(board.rooks() & ours)
            && at_most_two(board.knights() & ours)
            && at_most_one(bishops & Bitboard::DARK)
            && at_most_one(bishops & Bitboard::LIGHT)
            && (board.pawns() & ours).count() <= 8
    }

    #[inline(always)]
    fn of(board: &Board, color: Color) -> Material {
        let ours = board.by_color(color);
        let pieces = ours.count();
        // Pawns plus promoted pieces above 8 need at least 10 pieces: a
        // promoted piece stands beside the one it is an extra of.
        if pieces < 10 {
            return Material { too_many_pawns: false, too_many_pieces: false, over_promotion_budget: false };
        }
        let pawns = (board.pawns() & ours).count();
        // Extra pieces beyond the initial array must come from promotions.
        let extra = |n: usize, base: usize| n.saturating_sub(base);
        let bishops = board.bishops() & ours;
        let promoted = extra((board.queens() & ours).count(), 1)
            + extra((board.rooks() & ours).count(), 2)
            + extra((board.knights() & ours).count(), 2)
            + extra((bishops & Bitboard::DARK).count(), 1)
            + extra((bishops & Bitboard::LIGHT).count(), 1);
        Material {
            too_many_pawns: pawns > 8,
            too_many_pieces: pieces > 16,
            over_promotion_budget: pawns <= 8 && promoted + pawns > 8,
        }
    }
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::standard()
    }
}

fn castling_right_valid(board: &Board, rights: Bitboard, rook: Square) -> bool {
    let color = match rook.rank() {
        r if r == Rank::FIRST => Color::White,
        r if r == Rank::EIGHTH => Color::Black,
        _ => return false,
    };
    if !(board.rooks() & board.by_color(color)).contains(rook) {
        return false;
    }
    let Some(king) = board.king_of(color) else {
        return false;
    };
    if king.rank() != rook.rank() {
        return false;
    }
    // At most one right per side of the king.
    let back = Bitboard::from_rank(rook.rank()) & rights;
    let same_side = back.into_iter().filter(|&r| (r.index() > king.index()) == (rook.index() > king.index())).count();
    same_side == 1
}

fn ep_problem(board: &Board, turn: Color, ep: Square) -> Option<&'static str> {
    let rank = Rank::new(5).map(|r| r.relative(turn));
    if Some(ep.rank()) != rank {
        return Some(if turn.is_white() {
            "must be on rank 6 with White to move"
        } else {
            "must be on rank 3 with Black to move"
        });
    }
    let dir = if turn.is_white() { 8 } else { -8 };
    let pushed_to = ep.offset(-dir)?;
    let pushed_from = ep.offset(dir)?;
    if board.occupied().contains(ep) || board.occupied().contains(pushed_from) {
        return Some("the pawn's path is not empty");
    }
    if !board.by_piece(Piece { color: turn.other(), role: Role::Pawn }).contains(pushed_to) {
        return Some("no pawn stands where a double push would have put it");
    }
    None
}

/// Why a [`Setup`] is not a legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A side has more than eight pawns.
    TooManyPawns(Color),
    /// A side has more than sixteen pieces.
    TooManyPieces(Color),
    /// A side has more pieces beyond the initial array than its missing
    /// pawns could have promoted to.
    PromotionBudget(Color),
    /// A pawn on the first or eighth rank.
    PawnOnBackRank(Square),
    /// A castling right (given as its rook's square) without king and
    /// rook at home.
    InvalidCastlingRight(Square),
    /// An en passant square no double push could have produced.
    InvalidEnPassant(Square, &'static str),
    /// The side not to move is in check.
    OppositeCheck,
    /// More than two pieces give check: no move gives more than two.
    TooManyCheckers,
    /// Two checkers that one move could not have given together (aligned
    /// with the king, two pawns, two knights).
    ImpossibleCheck,
    /// The en passant square (given) says the last move was the double
    /// step behind it, and that move cannot have given this check: there
    /// are two checkers, or the checker is not the pawn and the king was
    /// already attacked with the pawn on its square.
    EnPassantCheck(Square),
}

impl PositionError {
    /// `true` if moves are not well defined in such a position (a missing
    /// king, the side not to move in check, a castling right or en
    /// passant square with nothing behind it, a pawn on a back rank);
    /// `false` for positions that are merely unreachable (too much
    /// material, an impossible check).
    #[must_use]
    pub fn prevents_play(&self) -> bool {
        !matches!(
            self,
            PositionError::TooManyPawns(_)
                | PositionError::TooManyPieces(_)
                | PositionError::PromotionBudget(_)
                | PositionError::TooManyCheckers
                | PositionError::ImpossibleCheck
                | PositionError::EnPassantCheck(_)
        )
    }

    /// `true` for the checks no legal last move gives
    /// ([`PositionError::TooManyCheckers`], [`PositionError::ImpossibleCheck`],
    /// [`PositionError::EnPassantCheck`]): diagnostic E035.
    #[must_use]
    pub fn is_impossible_check(&self) -> bool {
        matches!(
            self,
            PositionError::TooManyCheckers | PositionError::ImpossibleCheck | PositionError::EnPassantCheck(_)
        )
    }
}

/// Which rules [`Position::from_setup_with`] enforces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Validation {
    /// Every rule: the position must be reachable as far as these checks
    /// can tell.
    #[default]
    Full,
    /// Only what legal move generation needs.
    Playable,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MissingKing(c) => write!(f, "{c} has no king"),
            PositionError::TooManyKings(c) => write!(f, "{c} has more than one king"),
            PositionError::TooManyPawns(c) => write!(f, "{c} has more than 8 pawns"),
            PositionError::TooManyPieces(c) => write!(f, "{c} has more than 16 pieces"),
            PositionError::PromotionBudget(c) => {
                write!(f, "{c} has more promoted pieces than missing pawns")
            }
            PositionError::PawnOnBackRank(sq) => write!(f, "pawn on back rank at {sq}"),
            PositionError::InvalidCastlingRight(sq) => {
                write!(f, "castling right with rook {sq} needs king and rook at home")
            }
            PositionError::InvalidEnPassant(sq, why) => write!(f, "en passant square {sq} {why}"),
            PositionError::OppositeCheck => f.write_str("the side not to move is in check"),
            PositionError::TooManyCheckers => f.write_str("impossible check: more than two pieces give check"),
            PositionError::ImpossibleCheck => {
                f.write_str("impossible check: no single move gives check with both of these pieces")
            }
            PositionError::EnPassantCheck(ep) => write!(
                f,
                "impossible check: the en passant square {ep} says the last move was a double step, \
                 which cannot have given this check"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// The move is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMoveError {
    /// The rejected move.
    pub mv: Move,
}

impl fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move: {:?}", self.mv)
    }
}

impl std::error::Error for IllegalMoveError {}

/// Why a game is drawn or decided by the rules alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Play goes on.
    Ongoing,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can possibly checkmate.
    InsufficientMaterial,
    /// Fifty moves (100 plies) without a capture or pawn move; a draw may
    /// be claimed.
    FiftyMoves,
}

/// A legal chess position: placement, side to move, castling rights, en
/// passant square and move counters.
///
/// Built from a [`Setup`] by [`Position::from_setup`], which validates it.
/// `Copy`: playing a move on a copy is cheap.
///
/// ```
/// use epd_core::{Position, SanMode};
/// let pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 20);
/// let m = pos.parse_san(b"Nf3", SanMode::Strict).unwrap();
/// let after = pos.played(m);
/// assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
/// ```
#[derive(Copy, Clone, Debug)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) turn: Color,
    pub(crate) castles: Bitboard,
    pub(crate) ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) checkers: Bitboard,
    pub(crate) pinned: Bitboard,
    pub(crate) hash: u64,
}

impl PartialEq for Position {
    /// Two positions are equal when all their fields are (the en passant
    /// square as stored, counters included).
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.castles == other.castles
            && self.ep_square == other.ep_square
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
    }
}

impl Eq for Position {}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl Position {
    /// The standard starting position.
    #[must_use]
    pub fn startpos() -> Position {
        match Position::from_setup(Setup::standard()) {
            Ok(p) => p,
            Err(_) => unreachable!("the starting position is legal"),
        }
    }

    /// Validates `setup` and builds the position.
    ///
    /// # Errors
    /// The first [`PositionError`] found; [`Setup::problems`] lists all.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        Position::from_setup_with(setup, Validation::Full)
    }

    /// Builds the position, checking the rules `validation` names.
    ///
    /// [`Validation::Playable`] accepts positions no legal game reaches but
    /// on which moves are still well defined (perft suites contain some).
    ///
    /// # Errors
    /// The first [`PositionError`] that `validation` does not allow.
    pub fn from_setup_with(setup: Setup, validation: Validation) -> Result<Position, PositionError> {
        let first = setup.problems().into_iter().find(|e| validation == Validation::Full || e.prevents_play());
        if let Some(e) = first {
            return Err(e);
        }
        Ok(Position::from_checked_setup(setup))
    }

    /// Builds a position from a setup the caller has already validated
    /// (at least to [`Validation::Playable`]).
    pub(crate) fn from_checked_setup(setup: Setup) -> Position {
        let mut pos = Position::with_check_info(setup);
        pos.hash = pos.compute_hash();
        pos
    }

    /// The position of a setup [`Setup::plain_checkers`] passed, with those
    /// checkers, and (with `HASH`) its hash from the XOR of its pieces'
    /// Zobrist keys; without, the hash is 0, for a position used only to
    /// check moves.
    #[inline(always)]
    pub(crate) fn from_plain_setup<const HASH: bool>(setup: &Setup, checkers: Bitboard, pieces_hash: u64) -> Position {
        let mut pos = Position::bare(setup);
        pos.update_check_info::<true>(false);
        pos.checkers = checkers;
        if HASH {
            pos.hash = pos.hash_with_pieces(pieces_hash);
        }
        pos
    }

    /// The position of a checked setup, its hash not yet computed.
    #[inline(always)]
    fn with_check_info(setup: Setup) -> Position {
        let mut pos = Position::bare(&setup);
        pos.update_check_info::<false>(true);
        pos
    }

    /// The fields of `setup`, with no check information and no hash yet.
    #[inline(always)]
    fn bare(setup: &Setup) -> Position {
        Position {
            board: setup.board,
            turn: setup.turn,
            castles: setup.castling_rights,
            ep_square: setup.ep_square,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            hash: 0,
        }
    }

    /// The raw fields of this position.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            castling_rights: self.castles,
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// Piece placement.
    #[must_use]
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// Side to move.
    #[must_use]
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Rooks (by square) that keep castling rights.
    #[must_use]
    #[inline(always)]
    pub fn castling_rights(&self) -> Bitboard {
        self.castles
    }
    /// The en passant target square: set after every double pawn push
    /// (§4.4), or as read, whether or not a capture is possible.
    #[must_use]
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }
    /// The en passant square only if an en passant capture is legal.
    #[must_use]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let pawns = self.board.by_piece(Piece { color: self.turn, role: Role::Pawn });
        (attacks::pawn_attacks(self.turn.other(), ep) & pawns)
            .into_iter()
            .any(|from| self.ep_is_legal(from, ep))
            .then_some(ep)
    }
    /// Halfmove clock.
    #[must_use]
    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }
    /// Fullmove number.
    #[must_use]
    #[inline(always)]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }
    /// Pieces giving check to the side to move.
    #[must_use]
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }
    /// `true` if the side to move is in check.
    #[must_use]
    #[inline(always)]
    pub fn is_check(&self) -> bool {
        self.checkers.any()
    }
    /// Pieces of the side to move pinned to their king.
    #[must_use]
    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }
    /// The Zobrist key. It covers placement, side to move, castling rights
    /// and the en passant square only when an en passant capture is legal,
    /// so it identifies positions as the repetition rule does.
    #[must_use]
    #[inline(always)]
    pub fn zobrist_hash(&self) -> u64 {
        self.hash
    }

    /// The king of the side to move. Validated positions always have one.
    #[must_use]
    #[inline(always)]
    pub fn our_king(&self) -> Square {
        (self.board.kings() & self.board.by_color(self.turn)).first().unwrap_or(Square::A1)
    }

    /// `true` if a castling right's rook or king stands where standard
    /// chess would not put it, so the position needs Chess960 notation.
    #[must_use]
    pub fn is_chess960(&self) -> bool {
        self.castles.into_iter().any(|rook| {
            let home_king = Square::from_coords(File::E, rook.rank());
            let color = if rook.rank() == Rank::FIRST { Color::White } else { Color::Black };
            self.board.king_of(color) != Some(home_king) || (rook.file() != File::A && rook.file() != File::H)
        })
    }

    /// Sets the halfmove clock and fullmove number (as read from `hmvc`
    /// and `fmvn` operations, say).
    pub fn set_counters(&mut self, halfmoves: u32, fullmoves: u32) {
        self.halfmoves = halfmoves;
        self.fullmoves = fullmoves;
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        // One set of squares per piece kind: no per-square piece lookup.
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.board.by_piece(Piece { color, role }) {
                    h ^= zobrist::piece(color, role, sq);
                }
            }
        }
        self.hash_with_pieces(h)
    }

    /// The hash from the pieces' part of it (`pieces_hash`, the XOR of
    /// their keys) and the rest of the position.
    fn hash_with_pieces(&self, pieces_hash: u64) -> u64 {
        let mut h = pieces_hash;
        for rook in self.castles {
            h ^= zobrist::castle(rook);
        }
        if let Some(ep) = self.legal_ep_square() {
            h ^= zobrist::ep_file(ep);
        }
        if self.turn == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h
    }

    /// Checkers (looked for only if `may_be_check`; rooks by the compact
    /// tables when `COMPACT`) and pinned pieces of the side to move.
    #[inline(always)]
    fn update_check_info<const COMPACT: bool>(&mut self, may_be_check: bool) {
        let us = self.turn;
        let them = us.other();
        let king = self.our_king();
        let occ = self.board.occupied();
        let theirs = self.board.by_color(them);
        self.checkers =
            if may_be_check { self.board.attackers_with::<COMPACT>(king, them, occ) } else { Bitboard::EMPTY };
        let snipers = ((attacks::rook_rays(king) & self.board.rooks_and_queens())
            | (attacks::bishop_rays(king) & self.board.bishops_and_queens()))
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let b = between(king, sniper) & occ;
            if !b.more_than_one() {
                pinned |= b;
            }
        }
        self.pinned = pinned & self.board.by_color(us);
    }

    /// Plays a move known to be legal. Playing an illegal move leaves the
    /// position in an unspecified (but memory-safe) state; use
    /// [`Position::play`] for moves of unknown legality.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        self.play_with::<true>(m, None);
    }

    /// Plays a legal move without updating the Zobrist hash, which is then
    /// stale: for positions used only to check the moves that follow (a
    /// record's `pv`), where the hash is never read.
    pub(crate) fn play_unhashed(&mut self, m: Move) {
        self.play_with::<false>(m, None);
    }

    /// [`Position::play_unhashed`] for a move known to give check or not
    /// (its SAN's check mark was verified): the checkers are then looked
    /// for only after a check.
    #[inline(always)]
    pub(crate) fn play_unhashed_known(&mut self, m: Move, gives_check: bool) {
        self.play_with::<false>(m, Some(gives_check));
    }

    #[inline(always)]
    fn play_with<const HASH: bool>(&mut self, m: Move, gives_check: Option<bool>) {
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let role = m.role();
        let mut hash = self.hash ^ zobrist::BLACK_TO_MOVE;
        if self.ep_square.is_some() {
            if HASH {
                if let Some(ep) = self.legal_ep_square() {
                    hash ^= zobrist::ep_file(ep);
                }
            }
            self.ep_square = None;
        }
        self.halfmoves = self.halfmoves.saturating_add(1);
        let old_castles = self.castles;
        match m.kind() {
            MoveKind::Castle => {
                let rank = from.rank();
                let (kf, rf) = if to.index() > from.index() { (File::G, File::F) } else { (File::C, File::D) };
                let kd = Square::from_coords(kf, rank);
                let rd = Square::from_coords(rf, rank);
                self.board.toggle(us, Role::King, from);
                self.board.toggle(us, Role::Rook, to);
                self.board.toggle(us, Role::King, kd);
                self.board.toggle(us, Role::Rook, rd);
                hash ^= zobrist::piece(us, Role::King, from)
                    ^ zobrist::piece(us, Role::Rook, to)
                    ^ zobrist::piece(us, Role::King, kd)
                    ^ zobrist::piece(us, Role::Rook, rd);
                self.castles = self.castles - Bitboard::from_rank(rank);
            }
            MoveKind::EnPassant => {
                let captured = Square::from_coords(to.file(), from.rank());
                self.board.toggle(us, Role::Pawn, from);
                self.board.toggle(us, Role::Pawn, to);
                self.board.toggle(them, Role::Pawn, captured);
                hash ^= zobrist::piece(us, Role::Pawn, from)
                    ^ zobrist::piece(us, Role::Pawn, to)
                    ^ zobrist::piece(them, Role::Pawn, captured);
                self.halfmoves = 0;
            }
            MoveKind::Normal | MoveKind::Promotion(_) => {
                if let Some(captured) = self.board.role_at(to) {
                    self.board.toggle(them, captured, to);
                    hash ^= zobrist::piece(them, captured, to);
                    self.halfmoves = 0;
                }
                self.board.toggle(us, role, from);
                hash ^= zobrist::piece(us, role, from);
                let placed = m.promotion_role().unwrap_or(role);
                self.board.toggle(us, placed, to);
                hash ^= zobrist::piece(us, placed, to);
                if role == Role::Pawn {
                    self.halfmoves = 0;
                    if from.index() ^ to.index() == 16 {
                        self.ep_square = Some(Square::from_index((from.index() as u32 + to.index() as u32) / 2));
                    }
                } else if role == Role::King {
                    // The mover's own rights go, whatever rank its king stands on.
                    self.castles = self.castles - Bitboard::from_rank(Rank::FIRST.relative(us));
                }
                self.castles = self.castles - Bitboard::from_square(from) - Bitboard::from_square(to);
            }
        }
        if HASH && self.castles != old_castles {
            for rook in old_castles ^ self.castles {
                hash ^= zobrist::castle(rook);
            }
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        // The unhashed plays serve only to check moves (SAN check marks, a
        // record's pv), one position after another with no search to keep
        // the 800 KB rook magic table in cache: they look rooks up in the
        // compact tables.
        if HASH {
            self.update_check_info::<false>(gives_check != Some(false));
        } else {
            self.update_check_info::<true>(gives_check != Some(false));
        }
        if HASH {
            if self.ep_square.is_some() {
                if let Some(ep) = self.legal_ep_square() {
                    hash ^= zobrist::ep_file(ep);
                }
            }
            self.hash = hash;
        }
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is not a legal move here.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMoveError { mv: m })
        }
    }

    /// A copy of the position after the legal move `m`.
    #[must_use]
    #[inline]
    pub fn played(&self, m: Move) -> Position {
        let mut p = *self;
        p.play_unchecked(m);
        p
    }

    /// [`Position::played`] without the hash update: for a position only
    /// asked about its moves (the hash is then stale).
    #[must_use]
    pub(crate) fn played_unhashed(&self, m: Move) -> Position {
        let mut p = *self;
        p.play_unhashed(m);
        p
    }

    /// The position with the other side to move and no en passant square
    /// (a "null move"), or `None` if the side to move is in check.
    #[must_use]
    pub fn null_move(&self) -> Option<Position> {
        if self.is_check() {
            return None;
        }
        let mut s = self.to_setup();
        s.turn = s.turn.other();
        s.ep_square = None;
        Position::from_setup(s).ok()
    }

    /// The null move without revalidating the position (a search's fast
    /// path; [`Position::null_move`] checks). The side to move must not be
    /// in check: if it is, the result is an invalid position. The halfmove
    /// clock advances as for a move.
    #[must_use]
    pub fn null_move_unchecked(&self) -> Position {
        let mut p = *self;
        if p.ep_square.is_some() {
            if let Some(ep) = p.legal_ep_square() {
                p.hash ^= zobrist::ep_file(ep);
            }
            p.ep_square = None;
        }
        p.hash ^= zobrist::BLACK_TO_MOVE;
        p.turn = p.turn.other();
        p.halfmoves = p.halfmoves.saturating_add(1);
        p.update_check_info::<false>(true);
        p
    }

    /// `true` if `m` captures (en passant included; castling never does).
    #[must_use]
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Castle => false,
            _ => self.board.occupied().contains(m.to()),
        }
    }

    /// `true` if the side to move is checkmated.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// `true` if the side to move has no legal move and is not in check.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// `true` if neither side can checkmate by any sequence of legal moves
    /// (K v K, K+minor v K, and kings with bishops all on one colour).
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        if (b.pawns() | b.rooks_and_queens()).any() {
            return false;
        }
        let minors = b.knights() | b.bishops();
        if minors.count() <= 1 {
            return true;
        }
        if b.knights().is_empty() {
            // Only bishops: dead if they all stand on one colour.
            return (b.bishops() & Bitboard::DARK).is_empty() || (b.bishops() & Bitboard::LIGHT).is_empty();
        }
        false
    }

    /// `true` if `color` cannot checkmate by any sequence of legal moves,
    /// whatever the other side does (for flag falls: the other side then
    /// only draws).
    #[must_use]
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        let b = &self.board;
        let ours = b.by_color(color);
        let theirs = b.by_color(color.other());
        if ((b.pawns() | b.rooks_and_queens()) & ours).any() {
            return false;
        }
        let our_knights = b.knights() & ours;
        let our_bishops = b.bishops() & ours;
        if our_knights.is_empty() && our_bishops.is_empty() {
            return true;
        }
        let their_minors_pawns = (b.knights() | b.bishops() | b.pawns() | b.rooks()) & theirs;
        if our_knights.any() {
            // A lone knight mates only with the help of blocking pieces
            // other than queens.
            return our_bishops.is_empty() && our_knights.count() == 1 && their_minors_pawns.is_empty();
        }
        // Bishops only: mate needs an enemy piece that can block on the
        // other colour, or bishops of both colours.
        let all_bishops = b.bishops();
        let one_colour = (all_bishops & Bitboard::DARK).is_empty() || (all_bishops & Bitboard::LIGHT).is_empty();
        one_colour && (b.knights() & theirs).is_empty() && (b.pawns() & theirs).is_empty()
    }

    /// `true` once 100 or more plies have passed without a capture or pawn
    /// move (the fifty-move rule lets either side claim a draw).
    #[must_use]
    pub fn is_fifty_moves(&self) -> bool {
        self.halfmoves >= 100
    }

    /// `true` once 150 plies have passed without a capture or pawn move
    /// (the seventy-five-move rule ends the game automatically).
    #[must_use]
    pub fn is_seventy_five_moves(&self) -> bool {
        self.halfmoves >= 150
    }

    /// The game status by the rules on the board alone (checkmate first,
    /// then stalemate, insufficient material, the fifty-move rule).
    #[must_use]
    pub fn status(&self) -> Status {
        if !self.has_legal_moves() {
            if self.is_check() {
                Status::Checkmate
            } else {
                Status::Stalemate
            }
        } else if self.is_insufficient_material() {
            Status::InsufficientMaterial
        } else if self.is_fifty_moves() {
            Status::FiftyMoves
        } else {
            Status::Ongoing
        }
    }

    /// `true` if the king of the side to move would be attacked on `sq`
    /// with `occupied` as blockers.
    #[inline(always)]
    pub(crate) fn attacked_by_them(&self, sq: Square, occupied: Bitboard) -> bool {
        self.board.attackers_of(sq, self.turn.other(), occupied).any()
    }

    /// [`Position::attacked_by_them`] for the record reader's SAN checks
    /// (see [`attacks::rook_attacks_compact`]).
    #[inline(always)]
    pub(crate) fn attacked_by_them_compact(&self, sq: Square, occupied: Bitboard) -> bool {
        self.board.attackers_with::<true>(sq, self.turn.other(), occupied).any()
    }

    /// Whether the en passant capture from `from` to `ep` leaves the king
    /// safe.
    #[inline]
    pub(crate) fn ep_is_legal(&self, from: Square, ep: Square) -> bool {
        let captured = Square::from_coords(ep.file(), from.rank());
        let occ = (self.board.occupied() ^ from ^ captured) | Bitboard::from_square(ep);
        let king = self.our_king();
        (self.board.attackers_of(king, self.turn.other(), occ) - Bitboard::from_square(captured)).is_empty()
    }

    /// The squares the castling king and rook must cross, and whether
    /// castling with the rook on `rook` is legal now.
    pub(crate) fn castle_is_legal(&self, king: Square, rook: Square) -> bool {
        let rank = king.rank();
        let kingside = rook.index() > king.index();
        let kd = Square::from_coords(if kingside { File::G } else { File::C }, rank);
        let rd = Square::from_coords(if kingside { File::F } else { File::D }, rank);
        let occ = self.board.occupied();
        let must_be_empty =
            (between(king, kd) | kd | between(rook, rd) | rd) - Bitboard::from(king) - Bitboard::from(rook);
        if (occ & must_be_empty).any() {
            return false;
        }
        let occ_without = occ ^ king ^ rook;
        for sq in between(king, kd) | kd {
            if self.attacked_by_them(sq, occ_without) {
                return false;
            }
        }
        true
    }

    /// `true` if `m` is a legal move in this position. Any `Move` value is
    /// accepted, even one unrelated to the position.
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        let us = self.turn;
        let ours = self.board.by_color(us);
        let from = m.from();
        let to = m.to();
        if !(self.board.by_role(m.role()) & ours).contains(from) {
            return false;
        }
        let king = self.our_king();
        let occ = self.board.occupied();
        let last_rank = Bitboard::from_rank(Rank::EIGHTH.relative(us));
        match m.kind() {
            MoveKind::Castle => {
                return m.role() == Role::King
                    && self.checkers.is_empty()
                    && (self.castles & ours).contains(to)
                    && to.rank() == from.rank()
                    && self.castle_is_legal(from, to);
            }
            MoveKind::EnPassant => {
                return m.role() == Role::Pawn
                    && self.ep_square == Some(to)
                    && attacks::pawn_attacks(us, from).contains(to)
                    && self.ep_is_legal(from, to);
            }
            MoveKind::Promotion(r) => {
                if m.role() != Role::Pawn || !last_rank.contains(to) || matches!(r, Role::Pawn | Role::King) {
                    return false;
                }
            }
            MoveKind::Normal => {
                if m.role() == Role::Pawn && last_rank.contains(to) {
                    return false;
                }
            }
        }
        if ours.contains(to) {
            return false;
        }
        let reachable =
            if m.role() == Role::Pawn { self.pawn_targets(from) } else { attacks::attacks(us, m.role(), from, occ) };
        if !reachable.contains(to) {
            return false;
        }
        if m.role() == Role::King {
            return !self.attacked_by_them(to, occ ^ from);
        }
        if self.pinned.contains(from) && !line(king, from).contains(to) {
            return false;
        }
        match self.checkers.single_square() {
            _ if self.checkers.is_empty() => true,
            Some(checker) => to == checker || between(king, checker).contains(to),
            None => false,
        }
    }

    /// Squares a pawn on `from` can move to by pushing or capturing
    /// (en passant excluded), before pins and checks.
    pub(crate) fn pawn_targets(&self, from: Square) -> Bitboard {
        let us = self.turn;
        let occ = self.board.occupied();
        let mut out = attacks::pawn_attacks(us, from) & self.board.by_color(us.other());
        let dir = if us.is_white() { 8 } else { -8 };
        if let Some(one) = from.offset(dir) {
            if !occ.contains(one) {
                out.add(one);
                if from.rank() == Rank::new(1).map_or(Rank::FIRST, |r| r.relative(us)) {
                    if let Some(two) = one.offset(dir) {
                        if !occ.contains(two) {
                            out.add(two);
                        }
                    }
                }
            }
        }
        out
    }

    /// The UCI notation of `m`, in Chess960 form when the position needs it.
    #[must_use]
    pub fn uci(&self, m: Move) -> String {
        m.to_uci(self.is_chess960())
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`, `e1g1`, Chess960 `e1h1`) and
    /// checks that it is legal.
    ///
    /// # Errors
    /// [`crate::SanError`] if the text is not a coordinate move or the
    /// move is illegal.
    pub fn parse_uci(&self, uci: &[u8]) -> Result<Move, crate::SanError> {
        crate::san::parse_coordinate(self, uci)
    }
}

/// A sequence of positions, for the repetition rule.
///
/// Keeps the Zobrist keys of the positions since the last irreversible
/// move (capture or pawn move).
#[derive(Clone, Debug, Default)]
pub struct History {
    keys: Vec<u64>,
}

impl History {
    /// An empty history.
    #[must_use]
    pub fn new() -> History {
        History::default()
    }

    /// Records `pos`, which was reached by playing a move from the last
    /// recorded position (or is the first).
    pub fn push(&mut self, pos: &Position) {
        if pos.halfmoves() == 0 {
            self.keys.clear();
        }
        self.keys.push(pos.zobrist_hash());
    }

    /// How many times the latest position has occurred, itself included.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        match self.keys.last() {
            Some(&last) => self.keys.iter().rev().step_by(2).filter(|&&k| k == last).count(),
            None => 0,
        }
    }

    /// `true` if the latest position has occurred three times or more.
    #[must_use]
    pub fn is_threefold(&self) -> bool {
        self.repetitions() >= 3
    }

    /// `true` if the latest position has occurred five times or more.
    #[must_use]
    pub fn is_fivefold(&self) -> bool {
        self.repetitions() >= 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseMode, SanMode};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn play(p: &mut Position, sans: &[&str]) {
        for s in sans {
            let m = p.parse_san(s.as_bytes(), SanMode::Lenient).unwrap_or_else(|e| panic!("{s}: {e}"));
            p.play_unchecked(m);
        }
    }

    /// The fast readers' validity check passes only setups with no problem,
    /// and then gives the checkers the position computes itself.
    #[test]
    fn plain_checkers_pass_only_valid_setups() {
        for (fen, plain) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", true),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", true),
            ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", true),
            ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", true),
            ("4k3/8/8/8/8/3n4/8/4K3 w - - 0 1", true),
            // A double check may be possible, but is left to the full check.
            ("4k3/8/8/8/8/3n4/8/r3K3 w - - 0 1", false),
            ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2", false),
            // Ten or more pieces: the pawn and promotion counts apply.
            ("k7/8/8/8/8/8/PPPPPPPP/KNN5 w - - 0 1", true),
            ("k7/8/8/8/8/8/PPPPPPPP/KNNN4 w - - 0 1", false),
            ("k7/pppppppp/p7/8/8/8/8/K7 w - - 0 1", false),
            ("k7/8/8/8/8/8/8/KK6 w - - 0 1", false),
            ("8/8/8/8/8/8/8/K7 w - - 0 1", false),
            ("k7/8/8/8/8/8/8/K6P w - - 0 1", false),
            ("k7/8/8/8/8/8/8/K7 w K - 0 1", false),
            ("k7/8/8/8/8/8/8/R6K w - - 0 1", false),
            ("k7/8/8/8/8/1n6/2n5/K7 w - - 0 1", false),
        ] {
            let setup =
                match crate::fen::parse_fields(fen.as_bytes(), ParseMode::Strict, crate::fen::Counters::Required) {
                    Ok(f) => f.setup,
                    Err(e) => panic!("{fen}: {e}"),
                };
            let checkers = setup.plain_checkers();
            assert_eq!(checkers.is_some(), plain, "{fen}");
            if let Some(c) = checkers {
                assert!(setup.problems().is_empty(), "{fen}");
                assert_eq!(c, Position::from_fen(fen).unwrap().checkers(), "{fen}");
                let hash = Position::from_plain_setup::<true>(&setup, c, 0).zobrist_hash();
                assert_eq!(hash ^ Position::from_fen(fen).unwrap().zobrist_hash(), pieces_hash(&setup.board), "{fen}");
            }
        }
    }

    fn pieces_hash(board: &Board) -> u64 {
        board.pieces().fold(0, |h, (sq, p)| h ^ zobrist::piece(p.color, p.role, sq))
    }

    #[test]
    fn repetition_counting_over_a_game() {
        let mut p = Position::startpos();
        let mut h = History::new();
        h.push(&p);
        assert_eq!(h.repetitions(), 1);
        for (i, s) in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"].iter().enumerate() {
            play(&mut p, &[s]);
            h.push(&p);
            if i == 3 {
                assert_eq!(h.repetitions(), 2);
                assert!(!h.is_threefold());
            }
        }
        assert_eq!(h.repetitions(), 3);
        assert!(h.is_threefold());
        assert!(!h.is_fivefold());
        // An irreversible move starts the count afresh.
        play(&mut p, &["e4"]);
        h.push(&p);
        assert_eq!(h.repetitions(), 1);
    }

    #[test]
    fn en_passant_rights_distinguish_positions_only_when_a_capture_is_legal() {
        // After 1. e4 the e3 square is written (§4.4) but no capture is
        // possible, so the key equals that of the same placement without it.
        let mut p = Position::startpos();
        play(&mut p, &["e4"]);
        assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(p.legal_ep_square(), None);
        let same = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(p.zobrist_hash(), same.zobrist_hash());
        // With a black pawn on d4 the capture is legal and the keys differ.
        let with = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
        let without = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
        assert_eq!(with.legal_ep_square(), Some(Square::E3));
        assert_ne!(with.zobrist_hash(), without.zobrist_hash());
        // A pinned pawn cannot capture en passant: no right.
        let pinned = pos("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1");
        assert_eq!(pinned.legal_ep_square(), None);
        assert_eq!(pinned.ep_square(), Some(Square::E3));
    }

    /// Regression: a king move cleared the castling rights on the rank it
    /// left, so a black king leaving c1 took white's queenside right.
    #[test]
    fn king_moves_clear_only_their_own_castling_rights() {
        let mut p = pos("8/3p2P1/1Pp5/2P1P3/3B2P1/2p5/p7/RNk1K3 b Q - 0 1");
        play(&mut p, &["Kc2"]);
        assert_eq!(p.castling_rights(), Bitboard::from_square(Square::A1));
        let mut p = Position::startpos();
        play(&mut p, &["e4", "e5", "Ke2"]);
        assert_eq!(p.castling_rights(), Bitboard(0x8100_0000_0000_0000));
        assert!(p.fen().contains(" b kq "));
    }

    #[test]
    fn insufficient_material_table() {
        for (fen, dead, white_cannot_win, black_cannot_win) in [
            ("8/8/8/8/8/8/8/K6k w - - 0 1", true, true, true),
            ("8/8/8/8/8/8/8/KN5k w - - 0 1", true, true, true),
            ("8/8/8/8/8/8/8/KB5k w - - 0 1", true, true, true),
            // Bishops all on one colour: dead.
            ("8/8/8/8/8/8/b7/KB5k w - - 0 1", true, true, true),
            // Bishops of both colours: a mate exists.
            ("8/8/8/8/8/8/1b6/KB5k w - - 0 1", false, false, false),
            ("8/8/8/8/8/8/8/KNN4k w - - 0 1", false, false, true),
            ("8/8/8/8/8/8/8/KNB4k w - - 0 1", false, false, true),
            ("8/8/8/8/8/8/P7/K6k w - - 0 1", false, false, true),
            ("7k/8/8/8/8/8/8/KR6 w - - 0 1", false, false, true),
            // A knight against a pawn can mate (the pawn blocks).
            ("8/8/8/8/8/8/p7/KN5k w - - 0 1", false, false, false),
        ] {
            let p = pos(fen);
            assert_eq!(p.is_insufficient_material(), dead, "{fen}");
            assert_eq!(p.has_insufficient_material(Color::White), white_cannot_win, "{fen} white");
            assert_eq!(p.has_insufficient_material(Color::Black), black_cannot_win, "{fen} black");
        }
    }

    #[test]
    fn status_and_move_rules() {
        assert_eq!(pos("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").status(), Status::Checkmate);
        assert_eq!(pos("7k/8/6QK/8/8/8/8/8 b - - 0 1").status(), Status::Stalemate);
        assert_eq!(pos("8/8/8/8/8/8/8/KB5k w - - 0 1").status(), Status::InsufficientMaterial);
        let fifty = pos("7k/8/8/8/8/8/8/KR6 w - - 100 80");
        assert_eq!(fifty.status(), Status::FiftyMoves);
        assert!(fifty.is_fifty_moves() && !fifty.is_seventy_five_moves());
        assert!(pos("7k/8/8/8/8/8/8/KR6 w - - 150 80").is_seventy_five_moves());
        assert_eq!(Position::startpos().status(), Status::Ongoing);
        // Counters advance and reset as the rules say.
        let mut p = Position::startpos();
        play(&mut p, &["Nf3", "Nf6", "Nc3"]);
        assert_eq!((p.halfmoves(), p.fullmoves()), (3, 2));
        play(&mut p, &["e5"]);
        assert_eq!((p.halfmoves(), p.fullmoves()), (0, 3));
    }

    #[test]
    fn megabytes_of_input_are_rejected_quickly_and_cleanly() {
        let big = vec![b'8'; 4 << 20];
        assert!(Position::from_fen_bytes(&big, ParseMode::Lenient).is_err());
        let mut fen = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ".to_vec();
        fen.extend(std::iter::repeat_n(b'x', 2 << 20));
        assert!(Position::from_fen_bytes(&fen, ParseMode::Strict).is_err());
        assert!(Position::startpos().parse_san(&big, SanMode::Lenient).is_err());
    }
}
