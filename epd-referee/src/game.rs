//! One game by the rules: moves, clocks and every way a game ends.
//!
//! [`Game::play`] takes a legal move with the time it took, charges the
//! mover's clock and ends the game on its own when the board says so:
//! checkmate, stalemate, insufficient material, the 75-move rule and
//! fivefold repetition (FIDE Laws 5.2, 9.6). Draws that must be claimed
//! (50 moves, threefold repetition, Law 9.2-9.3) go through
//! [`Game::claim_draw`], which verifies them, with or without the move
//! the claimant is about to make. A flag fall ([`Game::flag`]) loses,
//! unless the opponent cannot mate by any series of legal moves
//! (Law 6.9), when it draws.

use std::time::Duration;

use epd_core::{Color, History, Move, Position, Status};

use crate::clock::{Clock, Flagged, TimeControl};

/// The result of a game, as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The PGN text.
    #[must_use]
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The win of `color`.
    #[must_use]
    pub fn win(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The points `color` scores: 1, 0.5 or 0 (in halves: 2, 1, 0).
    #[must_use]
    pub fn half_points(self, color: Color) -> u32 {
        match (self, color) {
            (GameResult::Draw, _) => 1,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 2,
            _ => 0,
        }
    }
}

/// What a player lost a game to, of the failures a match counts per
/// engine at its end (fastchess's "Timeouts" and "Crashed", with stalls
/// and illegal moves apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fault {
    /// Its engine crashed.
    Crash,
    /// Its engine stopped answering.
    Stall,
    /// Its flag fell.
    Time,
    /// It made an illegal move.
    Illegal,
}

/// How an engine the referee runs itself failed mid-game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// It exited, or broke the UCI protocol.
    Crashed,
    /// It stopped answering (no `bestmove`, no `readyok` in time).
    Stalled,
    /// It answered with a move that is not legal in the game.
    IllegalMove,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// 75 moves by each side without a capture or pawn move.
    SeventyFiveMoves,
    /// The same position for the fifth time.
    FivefoldRepetition,
    /// A verified claim under the 50-move rule.
    FiftyMoveClaim,
    /// A verified claim of threefold repetition.
    ThreefoldClaim,
    /// A draw offered and accepted.
    Agreement,
    /// A side resigned.
    Resignation(Color),
    /// A side's flag fell.
    TimeForfeit(Color),
    /// A side's flag fell but the opponent could not mate: a draw.
    TimeoutVersusInsufficientMaterial(Color),
    /// A side left the game (disconnected past its grace, signed off).
    Abandoned(Color),
    /// A side broke the rules or the protocol (a false claim when that
    /// forfeits, a reply out of turn): it loses.
    RulesInfraction(Color, String),
    /// A side answered with a move that is not legal (or not a move),
    /// when that forfeits: it loses.
    IllegalMove(Color, String),
    /// A side's engine, run by the referee itself, died or broke its
    /// protocol mid-game: it loses at once (fastchess's "disconnects").
    Crashed(Color),
    /// A side's engine, run by the referee itself, stopped answering
    /// mid-game: it loses at once (fastchess's "connection stalls").
    Stalled(Color),
    /// The supervisor decided the result.
    Adjudication(String),
}

impl Termination {
    /// The PGN `Termination` tag: `normal`, `time forfeit`, `abandoned`
    /// (a crashed or stalled engine too, as fastchess writes),
    /// `illegal move` (fastchess's and cutechess's word), `rules
    /// infraction` or `adjudication`.
    #[must_use]
    pub fn pgn_tag(&self) -> &'static str {
        match self {
            Termination::TimeForfeit(_) | Termination::TimeoutVersusInsufficientMaterial(_) => "time forfeit",
            Termination::Abandoned(_) | Termination::Crashed(_) | Termination::Stalled(_) => "abandoned",
            Termination::IllegalMove(..) => "illegal move",
            Termination::RulesInfraction(..) => "rules infraction",
            Termination::Adjudication(_) => "adjudication",
            _ => "normal",
        }
    }

    /// The side that lost the game to a failure, and which failure; none
    /// for a game decided on the board, by agreement or by the
    /// supervisor (and for a flag that fell against a bare king: a draw).
    #[must_use]
    pub fn fault(&self) -> Option<(Color, Fault)> {
        match *self {
            Termination::Crashed(c) => Some((c, Fault::Crash)),
            Termination::Stalled(c) => Some((c, Fault::Stall)),
            Termination::TimeForfeit(c) => Some((c, Fault::Time)),
            Termination::IllegalMove(c, _) => Some((c, Fault::Illegal)),
            _ => None,
        }
    }

    /// A sentence for the game's final comment: `Black checkmated`.
    #[must_use]
    pub fn describe(&self, result: GameResult) -> String {
        let loser = match result {
            GameResult::WhiteWins => "Black",
            GameResult::BlackWins => "White",
            GameResult::Draw => "",
        };
        let name = |c: &Color| if *c == Color::White { "White" } else { "Black" };
        match self {
            Termination::Checkmate => format!("{loser} checkmated"),
            Termination::Stalemate => "stalemate".into(),
            Termination::InsufficientMaterial => "insufficient material".into(),
            Termination::SeventyFiveMoves => "75-move rule".into(),
            Termination::FivefoldRepetition => "fivefold repetition".into(),
            Termination::FiftyMoveClaim => "50-move rule, claimed".into(),
            Termination::ThreefoldClaim => "threefold repetition, claimed".into(),
            Termination::Agreement => "draw agreed".into(),
            Termination::Resignation(c) => format!("{} resigns", name(c)),
            Termination::TimeForfeit(c) => format!("{} forfeits on time", name(c)),
            Termination::TimeoutVersusInsufficientMaterial(c) => {
                format!("{} ran out of time, but the opponent cannot mate", name(c))
            }
            Termination::Abandoned(c) => format!("{} abandoned the game", name(c)),
            Termination::RulesInfraction(c, why) => format!("{} forfeits: {why}", name(c)),
            Termination::IllegalMove(c, why) => format!("{} makes an illegal move: {why}", name(c)),
            Termination::Crashed(c) => format!("{} disconnects", name(c)),
            Termination::Stalled(c) => format!("{}'s connection stalls", name(c)),
            Termination::Adjudication(why) => format!("adjudicated: {why}"),
        }
    }

    /// The end of a game in fastchess's words, for the `Finished game`
    /// line `epd match` prints as fastchess prints it (`White mates`,
    /// `Draw by 3-fold repetition`, `Black wins by adjudication`, `White
    /// disconnects`); the ends fastchess has no words for (resignation,
    /// agreement, a client's faults) in [`Termination::describe`]'s.
    /// fastchess adds the overrun to a time loss (`White loses on time
    /// (12ms overrun)`), which the referee does not keep.
    #[must_use]
    pub fn fastchess_words(&self, result: GameResult) -> String {
        let winner = match result {
            GameResult::WhiteWins => "White",
            GameResult::BlackWins => "Black",
            GameResult::Draw => "",
        };
        let name = |c: &Color| if *c == Color::White { "White" } else { "Black" };
        match self {
            Termination::Checkmate => format!("{winner} mates"),
            Termination::Stalemate => "Draw by stalemate".into(),
            Termination::InsufficientMaterial => "Draw by insufficient mating material".into(),
            Termination::FiftyMoveClaim => "Draw by fifty moves rule".into(),
            Termination::ThreefoldClaim => "Draw by 3-fold repetition".into(),
            Termination::TimeForfeit(c) => format!("{} loses on time", name(c)),
            Termination::IllegalMove(c, _) => format!("{} makes an illegal move", name(c)),
            Termination::Adjudication(_) if result == GameResult::Draw => "Draw by adjudication".into(),
            Termination::Adjudication(_) => format!("{winner} wins by adjudication"),
            _ => self.describe(result),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ended {
    /// The result.
    pub result: GameResult,
    /// Why.
    pub termination: Termination,
}

/// A move of the game with its timing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// Its canonical SAN in the position it was played from.
    pub san: String,
    /// The time it took (charged to the mover's clock).
    pub emt: Duration,
    /// The mover's time left after it (increment included).
    pub clock: Duration,
    /// The engine's score, depth and nodes, when its reply said.
    pub eval: Option<crate::protocol::Eval>,
    /// A move of the opening book, played before the players took over
    /// (no time, no clock charged; `{book}` in the PGN).
    pub book: bool,
}

/// The draw a claim asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawClaim {
    /// Threefold repetition.
    Threefold,
    /// The 50-move rule.
    FiftyMoves,
}

/// Why a draw claim was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimError {
    /// Neither the position nor the one after the claimant's move
    /// qualifies.
    Unfounded(String),
    /// The claim came from the side not to move (claims are made on the
    /// claimant's turn, with or without a move).
    NotYourTurn,
    /// The game is over.
    GameOver,
}

/// A game: the start, the moves, both clocks, and the end once reached.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    history: History,
    moves: Vec<PlayedMove>,
    clocks: [Clock; 2],
    /// Time each side's moves took, in all.
    used: [Duration; 2],
    ended: Option<Ended>,
}

fn idx(c: Color) -> usize {
    usize::from(c == Color::Black)
}

impl Game {
    /// A game from `start` under `control` (both clocks alike).
    #[must_use]
    pub fn new(start: Position, control: &TimeControl) -> Game {
        Game::with_controls(start, control, control)
    }

    /// A game from an opening's start with its book moves played, and a
    /// time control for each side; the clocks start after the book, as
    /// fastchess's do.
    ///
    /// # Panics
    /// A book move that is not legal (a book's moves are checked as the
    /// book is read).
    #[must_use]
    pub fn from_opening(opening: &crate::book::Opening, white: &TimeControl, black: &TimeControl) -> Game {
        let mut g = Game::with_controls(opening.start, white, black);
        for &mv in &opening.moves {
            assert!(g.pos.is_legal(mv), "a book move that is not legal");
            let side = g.pos.turn();
            let san = g.pos.san(mv);
            g.pos.play_unchecked(mv);
            g.history.push(&g.pos);
            let clock = g.clocks[idx(side)].remaining();
            g.moves.push(PlayedMove { mv, san, emt: Duration::ZERO, clock, eval: None, book: true });
        }
        g
    }

    /// How many of the first moves are the opening book's.
    #[must_use]
    pub fn book_plies(&self) -> usize {
        self.moves.iter().take_while(|m| m.book).count()
    }

    /// A game from `start` with a time control for each side (time odds).
    #[must_use]
    pub fn with_controls(start: Position, white: &TimeControl, black: &TimeControl) -> Game {
        let mut history = History::new();
        history.push(&start);
        Game {
            start,
            pos: start,
            history,
            moves: Vec::new(),
            clocks: [Clock::new(white), Clock::new(black)],
            used: [Duration::ZERO; 2],
            ended: None,
        }
    }

    /// The starting position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The moves so far.
    #[must_use]
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The clock of `color`.
    #[must_use]
    pub fn clock(&self, color: Color) -> &Clock {
        &self.clocks[idx(color)]
    }

    /// The time the moves of `color` took, in all (`cc`, §6.6).
    #[must_use]
    pub fn consumed(&self, color: Color) -> Duration {
        self.used[idx(color)]
    }

    /// Sets the clock of `color` (a game resumed with its clocks).
    pub fn set_clock(&mut self, color: Color, clock: Clock) {
        self.clocks[idx(color)] = clock;
    }

    /// How the game ended, once it has.
    #[must_use]
    pub fn ended(&self) -> Option<&Ended> {
        self.ended.as_ref()
    }

    fn end(&mut self, result: GameResult, termination: Termination) -> Ended {
        let e = Ended { result, termination };
        self.ended = Some(e.clone());
        e
    }

    /// Plays `mv`, which took `used`, for the side to move. The clock is
    /// charged first: a move made after the flag fell is not played and
    /// the game ends on time. Returns how the game ended, if it did.
    ///
    /// # Errors
    /// The move is not legal (nothing changes), or the game is over.
    pub fn play(&mut self, mv: Move, used: Duration) -> Result<Option<Ended>, String> {
        if self.ended.is_some() {
            return Err("the game is over".into());
        }
        if !self.pos.is_legal(mv) {
            return Err(format!("{} is not legal here", self.pos.uci(mv)));
        }
        let side = self.pos.turn();
        if let Err(Flagged { .. }) = self.clocks[idx(side)].charge(used) {
            return Ok(Some(self.flag(side)));
        }
        self.used[idx(side)] += used;
        let san = self.pos.san(mv);
        self.pos.play_unchecked(mv);
        self.history.push(&self.pos);
        let clock = self.clocks[idx(side)].remaining();
        self.moves.push(PlayedMove { mv, san, emt: used, clock, eval: None, book: false });
        Ok(self.automatic_end())
    }

    /// The endings the rules apply without a claim.
    fn automatic_end(&mut self) -> Option<Ended> {
        let status = self.pos.status();
        let mover = self.pos.turn().other();
        match status {
            Status::Checkmate => return Some(self.end(GameResult::win(mover), Termination::Checkmate)),
            Status::Stalemate => return Some(self.end(GameResult::Draw, Termination::Stalemate)),
            Status::InsufficientMaterial => {
                return Some(self.end(GameResult::Draw, Termination::InsufficientMaterial));
            }
            _ => {}
        }
        if self.pos.is_seventy_five_moves() {
            return Some(self.end(GameResult::Draw, Termination::SeventyFiveMoves));
        }
        if self.history.is_fivefold() {
            return Some(self.end(GameResult::Draw, Termination::FivefoldRepetition));
        }
        None
    }

    /// The flag of `color` fell: a loss, or a draw when the opponent
    /// cannot mate by any series of legal moves.
    pub fn flag(&mut self, color: Color) -> Ended {
        if self.pos.has_insufficient_material(color.other()) {
            self.end(GameResult::Draw, Termination::TimeoutVersusInsufficientMaterial(color))
        } else {
            self.end(GameResult::win(color.other()), Termination::TimeForfeit(color))
        }
    }

    /// `claimant` claims a draw, on its turn, optionally with the move it
    /// is about to make (which is then played if the claim holds through
    /// it, taking `used`). Threefold: the position (or the one after the
    /// move) has occurred three times; 50 moves: 100 plies (or 100 after
    /// the move) without a capture or pawn move.
    ///
    /// # Errors
    /// [`ClaimError`]: the claim is refused and nothing changes.
    pub fn claim_draw(
        &mut self,
        claimant: Color,
        kind: DrawClaim,
        with_move: Option<(Move, Duration)>,
    ) -> Result<Ended, ClaimError> {
        if self.ended.is_some() {
            return Err(ClaimError::GameOver);
        }
        if claimant != self.pos.turn() {
            return Err(ClaimError::NotYourTurn);
        }
        let holds = |pos: &Position, history: &History| match kind {
            DrawClaim::Threefold => history.is_threefold(),
            DrawClaim::FiftyMoves => pos.is_fifty_moves(),
        };
        if let Some((mv, used)) = with_move {
            if !self.pos.is_legal(mv) {
                return Err(ClaimError::Unfounded(format!("{} is not legal here", self.pos.uci(mv))));
            }
            let mut after = self.pos;
            after.play_unchecked(mv);
            let mut history = self.history.clone();
            history.push(&after);
            if holds(&after, &history) {
                // The move is made (and its time charged), then the draw.
                match self.play(mv, used) {
                    Ok(Some(e)) => return Ok(e),
                    Ok(None) => {}
                    Err(e) => return Err(ClaimError::Unfounded(e)),
                }
                let t = match kind {
                    DrawClaim::Threefold => Termination::ThreefoldClaim,
                    DrawClaim::FiftyMoves => Termination::FiftyMoveClaim,
                };
                return Ok(self.end(GameResult::Draw, t));
            }
        } else if holds(&self.pos, &self.history) {
            let t = match kind {
                DrawClaim::Threefold => Termination::ThreefoldClaim,
                DrawClaim::FiftyMoves => Termination::FiftyMoveClaim,
            };
            return Ok(self.end(GameResult::Draw, t));
        }
        Err(ClaimError::Unfounded(match kind {
            DrawClaim::Threefold => {
                format!("the position has occurred {} time(s), not three", self.history.repetitions())
            }
            DrawClaim::FiftyMoves => format!("{} plies without a capture or pawn move, not 100", self.pos.halfmoves()),
        }))
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) -> Ended {
        self.end(GameResult::win(color.other()), Termination::Resignation(color))
    }

    /// A draw offer accepted.
    pub fn agree_draw(&mut self) -> Ended {
        self.end(GameResult::Draw, Termination::Agreement)
    }

    /// `color` left the game.
    pub fn abandon(&mut self, color: Color) -> Ended {
        self.end(GameResult::win(color.other()), Termination::Abandoned(color))
    }

    /// `color` broke the rules or the protocol and loses.
    pub fn forfeit(&mut self, color: Color, why: impl Into<String>) -> Ended {
        self.end(GameResult::win(color.other()), Termination::RulesInfraction(color, why.into()))
    }

    /// `color` answered with an illegal move and loses.
    pub fn illegal_move(&mut self, color: Color, why: impl Into<String>) -> Ended {
        self.end(GameResult::win(color.other()), Termination::IllegalMove(color, why.into()))
    }

    /// `color`'s engine failed (`why`, for an illegal move) and loses.
    pub fn engine_failed(&mut self, color: Color, failure: EngineFailure, why: &str) -> Ended {
        let t = match failure {
            EngineFailure::Crashed => Termination::Crashed(color),
            EngineFailure::Stalled => Termination::Stalled(color),
            EngineFailure::IllegalMove => Termination::IllegalMove(color, why.to_owned()),
        };
        self.end(GameResult::win(color.other()), t)
    }

    /// Records what the engine said of the last move played.
    pub fn set_last_eval(&mut self, eval: Option<crate::protocol::Eval>) {
        if let Some(m) = self.moves.last_mut() {
            m.eval = eval;
        }
    }

    /// Ends the game with `result`, decided by the referee or the
    /// supervisor for the reason `why`.
    pub fn adjudicate(&mut self, result: GameResult, why: impl Into<String>) -> Ended {
        self.end(result, Termination::Adjudication(why.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::SanMode;

    /// The `Finished game` line's words are fastchess's (`{White mates}`;
    /// it printed Argus's `{Black checkmated}`), checked against fastchess
    /// itself in epd-cli/tests/fastchess_diff.rs.
    #[test]
    fn game_ends_in_fastchess_words() {
        use GameResult::{BlackWins, Draw, WhiteWins};
        let illegal = Termination::IllegalMove(Color::Black, "bestmove a1a5".into());
        let resigns = Termination::Adjudication("Black resigns, its engine's score -600 cp or less for 3 moves".into());
        for (t, result, words) in [
            (Termination::Checkmate, WhiteWins, "White mates"),
            (Termination::Checkmate, BlackWins, "Black mates"),
            (Termination::Stalemate, Draw, "Draw by stalemate"),
            (Termination::InsufficientMaterial, Draw, "Draw by insufficient mating material"),
            (Termination::FiftyMoveClaim, Draw, "Draw by fifty moves rule"),
            (Termination::ThreefoldClaim, Draw, "Draw by 3-fold repetition"),
            (Termination::TimeForfeit(Color::White), BlackWins, "White loses on time"),
            (illegal, WhiteWins, "Black makes an illegal move"),
            (Termination::Crashed(Color::White), BlackWins, "White disconnects"),
            (Termination::Stalled(Color::Black), WhiteWins, "Black's connection stalls"),
            (Termination::Adjudication("a draw, the game reached 40 moves".into()), Draw, "Draw by adjudication"),
            (resigns, WhiteWins, "White wins by adjudication"),
            (Termination::Agreement, Draw, "draw agreed"),
        ] {
            assert_eq!(t.fastchess_words(result), words, "{t:?}");
        }
    }

    fn game(fen: &str, tc: &str) -> Game {
        Game::new(Position::from_fen(fen).unwrap(), &tc.parse().unwrap())
    }

    fn san(g: &Game, s: &str) -> Move {
        g.position().parse_san(s.as_bytes(), SanMode::Strict).unwrap()
    }

    fn play(g: &mut Game, moves: &str) -> Option<Ended> {
        let mut last = None;
        for s in moves.split_whitespace() {
            let m = san(g, s);
            last = g.play(m, Duration::from_millis(10)).unwrap();
        }
        last
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn the_board_ends_games() {
        let mut g = game(START, "60+0");
        let e = play(&mut g, "f3 e5 g4 Qh4#").unwrap();
        assert_eq!((e.result, e.termination), (GameResult::BlackWins, Termination::Checkmate));
        assert!(g.play(san(&game(START, "60"), "e4"), Duration::ZERO).is_err(), "over");

        let mut g = game("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", "60");
        assert_eq!(play(&mut g, "Qf6+").map(|e| e.termination), None);
        let mut g = game("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "60");
        assert_eq!(play(&mut g, "Qf7").map(|e| e.termination), Some(Termination::Stalemate));
        let mut g = game("7k/8/8/8/8/8/1r6/K7 w - - 0 1", "60");
        assert_eq!(play(&mut g, "Kxb2").map(|e| e.termination), Some(Termination::InsufficientMaterial));
        // 75-move rule: the 150th ply without capture or pawn move.
        let mut g = game("7k/8/8/8/8/8/8/KR6 w - - 149 100", "60");
        assert_eq!(play(&mut g, "Rb2").map(|e| e.termination), Some(Termination::SeventyFiveMoves));
        // Fivefold: the start position after four knight dances.
        let mut g = game(START, "600");
        for _ in 0..3 {
            assert_eq!(play(&mut g, "Nf3 Nf6 Ng1 Ng8"), None);
        }
        assert_eq!(play(&mut g, "Nf3 Nf6 Ng1 Ng8").map(|e| e.termination), Some(Termination::FivefoldRepetition));
    }

    #[test]
    fn claims_are_verified() {
        let mut g = game(START, "600");
        play(&mut g, "Nf3 Nf6 Ng1 Ng8");
        // Twice so far: refused, and the game goes on.
        assert!(matches!(g.claim_draw(Color::White, DrawClaim::Threefold, None), Err(ClaimError::Unfounded(_))));
        assert_eq!(g.claim_draw(Color::Black, DrawClaim::Threefold, None), Err(ClaimError::NotYourTurn));
        play(&mut g, "Nf3 Nf6 Ng1");
        // Black claims with the move that repeats the start a third time.
        let m = san(&g, "Ng8");
        let e = g.claim_draw(Color::Black, DrawClaim::Threefold, Some((m, Duration::ZERO))).unwrap();
        assert_eq!((e.result, e.termination), (GameResult::Draw, Termination::ThreefoldClaim));
        assert_eq!(g.moves().len(), 8);

        let mut g = game("7k/8/8/8/8/8/8/KR6 w - - 99 80", "60");
        assert!(g.claim_draw(Color::White, DrawClaim::FiftyMoves, None).is_err());
        let m = san(&g, "Rb2");
        assert_eq!(
            g.claim_draw(Color::White, DrawClaim::FiftyMoves, Some((m, Duration::ZERO))).map(|e| e.termination),
            Ok(Termination::FiftyMoveClaim)
        );
        // A pawn move resets the count: the claim with it fails.
        let mut g = game("7k/8/8/8/8/8/P7/KR6 w - - 99 80", "60");
        let m = san(&g, "a3");
        assert!(g.claim_draw(Color::White, DrawClaim::FiftyMoves, Some((m, Duration::ZERO))).is_err());
        assert_eq!(g.moves().len(), 0, "a refused claim changes nothing");
    }

    /// A game from a PGN book's opening begins with the book's moves,
    /// which take no time and leave the clocks as they were.
    #[test]
    fn a_book_opening_is_the_games_first_moves() {
        let start = Position::startpos();
        let mut pos = start;
        let moves: Vec<Move> = ["e4", "e5", "Nf3"]
            .iter()
            .map(|s| {
                let m = pos.parse_san(s.as_bytes(), SanMode::Strict).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect();
        let opening = crate::book::Opening { start, moves };
        let tc: TimeControl = "40/60+1".parse().unwrap();
        let mut g = Game::from_opening(&opening, &tc, &tc);
        assert_eq!(*g.start(), start);
        assert_eq!(*g.position(), pos);
        assert_eq!(g.book_plies(), 3);
        assert_eq!(g.moves().iter().map(|m| m.san.as_str()).collect::<Vec<_>>(), ["e4", "e5", "Nf3"]);
        assert!(g.moves().iter().all(|m| m.book && m.emt == Duration::ZERO && m.clock == Duration::from_secs(60)));
        assert_eq!((g.consumed(Color::White), g.clock(Color::Black).moves_to_go()), (Duration::ZERO, Some(40)));
        play(&mut g, "Nc6");
        assert_eq!((g.book_plies(), g.moves().len(), g.clock(Color::Black).moves_to_go()), (3, 4, Some(39)));
    }

    #[test]
    fn flags_lose_or_draw() {
        let mut g = game(START, "1+0");
        let m = san(&g, "e4");
        let e = g.play(m, Duration::from_millis(1001)).unwrap().unwrap();
        assert_eq!((e.result, e.termination), (GameResult::BlackWins, Termination::TimeForfeit(Color::White)));
        assert!(g.moves().is_empty(), "a move after the flag is not played");
        // Black's flag falls: White can mate, so White wins.
        let mut g = game("7k/8/8/8/8/8/8/KQ6 b - - 0 1", "1");
        let e = g.flag(Color::Black);
        assert_eq!((e.result, e.termination), (GameResult::WhiteWins, Termination::TimeForfeit(Color::Black)));
        // White's flag falls against a lone king: a draw.
        let mut g = game("7k/8/8/8/8/8/8/KQ6 w - - 0 1", "1");
        let e = g.flag(Color::White);
        assert_eq!(
            (e.result, e.termination),
            (GameResult::Draw, Termination::TimeoutVersusInsufficientMaterial(Color::White))
        );
        // Clocks: the increment is in the recorded clock.
        let mut g = game(START, "10+2");
        play(&mut g, "e4");
        assert_eq!(g.moves()[0].clock, Duration::from_millis(11_990));
    }
}
