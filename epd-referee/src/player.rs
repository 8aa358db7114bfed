//! A chess engine playing under a referee: for each `respond` it sets up
//! the game in an [`Engine`] (the whole game from its start, an opening
//! book's moves included, so a UCI engine gets `position startpos moves
//! ...` or `position fen START moves ...`, and the referee's clocks as
//! `go wtime ... btime ... winc ... binc ... [movestogo ...]`) and replies
//! with its move; it offers, accepts and claims draws and resigns as its
//! [`Conduct`] says.
//!
//! One rule for every engine that plays: `epd play` (an engine on another
//! machine, over TCP or a serial line) and the referee's own local
//! players (a UCI engine the referee drives itself, over a connection
//! inside its process) both run [`session`].

use core::fmt;
use std::io::ErrorKind;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use epd_core::{Color, Position};
use epd_engine::{Analysis, Engine, EngineError, GameClock, Limits};

use crate::client::{Client, Follower, Reply};
use crate::protocol::{Command, Eval};
use crate::Clock;

/// How an engine plays: its search limits in place of the clock, and
/// when it resigns, offers or accepts draws, and claims them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conduct {
    /// Search each move to this depth instead of by the clock.
    pub depth: Option<u32>,
    /// Search each move about this many nodes instead of by the clock.
    pub nodes: Option<u64>,
    /// Search each move this long instead of by the clock.
    pub movetime: Option<Duration>,
    /// Resign when the engine's score is at most minus this many
    /// centipawns for this many of its moves in a row.
    pub resign: Option<(i32, u32)>,
    /// Offer (from move 30) and accept draws when the score is within
    /// plus or minus this many centipawns for this many moves in a row.
    pub draw: Option<(i32, u32)>,
    /// Claim draws by threefold repetition and the 50-move rule when the
    /// rules allow.
    pub claims: bool,
}

impl Default for Conduct {
    fn default() -> Conduct {
        Conduct { depth: None, nodes: None, movetime: None, resign: None, draw: None, claims: true }
    }
}

/// How a session with a referee ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Session {
    /// The referee said disconnect: the event is over.
    Over,
    /// The connection broke; `heard`: after the referee had said
    /// something on it.
    Lost {
        /// What happened.
        why: String,
        /// Whether the referee had spoken on this connection.
        heard: bool,
    },
    /// The referee sent no heartbeat: frozen, or its host is gone.
    Silent,
    /// A newer sign-on of the player took this connection's place
    /// ([`crate::protocol::REPLACED`]): signing on again would only
    /// replace another of the player's connections.
    Replaced,
}

/// Why a session could not go on.
#[derive(Debug)]
pub enum Failure {
    /// The engine failed (crashed, hung, broke the protocol).
    Engine(EngineError),
    /// The engine's move could not be sent as a reply (not legal in the
    /// referee's position).
    Move(std::io::Error),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Engine(e) => write!(f, "{e}"),
            Failure::Move(e) => write!(f, "the engine's move: {e}"),
        }
    }
}

impl std::error::Error for Failure {}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Failure {
        Failure::Engine(e)
    }
}

/// The engine's state across one game.
#[derive(Default)]
pub(crate) struct GameState {
    /// Scores of the engine's last moves, its own point of view.
    scores: Vec<i32>,
}

/// Plays on `client` with `engine` until the referee says disconnect or
/// the connection ends; `say` hears what the player should tell its
/// operator (a record it could not read, a fault the referee reported).
///
/// # Errors
/// The engine failed, or its move could not be sent.
pub fn session(
    conduct: &Conduct,
    engine: &mut dyn Engine,
    mut client: Client,
    say: &mut dyn FnMut(&str),
) -> Result<Session, Failure> {
    let stop = AtomicBool::new(false);
    let mut state = GameState::default();
    loop {
        let command = match client.next_command() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::TimedOut => return Ok(Session::Silent),
            Err(e) if e.kind() == ErrorKind::InvalidData => {
                say(&e.to_string());
                continue;
            }
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                return Ok(Session::Lost { why: e.to_string(), heard: client.heard() })
            }
            Err(e) => return Ok(Session::Lost { why: format!("the connection broke: {e}"), heard: client.heard() }),
        };
        match command {
            Command::Reset => {
                state = GameState::default();
                engine.new_game()?;
            }
            Command::Respond => {
                let turn = turn(conduct, &client);
                engine.set_chess960(turn.chess960)?;
                let analysis = engine.play(&turn.start, client.moves(), &turn.limits, &stop)?;
                let (reply, eval) = answer(conduct, &mut state, &client, &analysis);
                if let Err(e) = client.reply_with(reply, eval) {
                    if e.kind() == ErrorKind::InvalidInput {
                        return Err(Failure::Move(e));
                    }
                    return Ok(Session::Lost { why: format!("cannot send the reply: {e}"), heard: true });
                }
            }
            Command::Fault => {
                let why = client.record().and_then(|r| r.message.clone()).unwrap_or_default();
                say(&format!("the referee reports a fault: {why}"));
                if why.starts_with(crate::protocol::REPLACED) {
                    return Ok(Session::Replaced);
                }
            }
            Command::Disconnect => return Ok(Session::Over),
            Command::Inform | Command::Execute | Command::Conclude => {}
        }
    }
}

/// A `respond` set up for the engine: where the game started (its moves
/// are [`Follower::moves`]), the search limits (the referee's clocks, or
/// the conduct's depth, nodes or time), and whether it is Chess960.
pub(crate) struct Turn {
    pub start: Position,
    pub limits: Limits,
    pub chess960: bool,
}

/// The engine's search for the last `respond`.
pub(crate) fn turn(conduct: &Conduct, client: &Follower) -> Turn {
    let pos = client.position();
    let mut limits =
        Limits { depth: conduct.depth, nodes: conduct.nodes, movetime: conduct.movetime, ..Limits::default() };
    let start = client.game_start().unwrap_or(pos);
    let moves = client.moves();
    if let Some((w, b)) = client.clocks() {
        let side = pos.turn();
        // The moves the side to move has made, as its clock counts
        // them: half the players' plies (it moved first if they are even,
        // second if odd), the book's not counted.
        let played = moves.len().saturating_sub(client.book_plies()) as u32;
        let own_moves = played / 2;
        let (winc, binc, movestogo) = match &client.time_control() {
            Some(tc) => {
                let clock =
                    Clock::resumed(tc, own_moves, Duration::from_millis(if side == Color::White { w } else { b }));
                (clock.increment(), clock.increment(), clock.moves_to_go())
            }
            None => (Duration::ZERO, Duration::ZERO, None),
        };
        limits.clock =
            Some(GameClock { wtime: Duration::from_millis(w), btime: Duration::from_millis(b), winc, binc, movestogo });
    } else if limits.is_infinite() {
        limits.movetime = Some(Duration::from_millis(1000));
    }
    Turn { start, limits, chess960: client.is_chess960() }
}

/// The answer to a respond from the engine's analysis `a`: a move, with
/// a draw offer or claim, or a draw acceptance or a resignation; and its
/// score, depth and nodes.
pub(crate) fn answer(
    conduct: &Conduct,
    state: &mut GameState,
    client: &Follower,
    a: &Analysis,
) -> (Reply, Option<Eval>) {
    let score = a.score.map(|s| s.to_ce() as i32);
    let eval = score.map(|ce| Eval {
        ce,
        depth: a.depth,
        nodes: a.nodes,
        pv: a.pv.iter().take(crate::protocol::MAX_PV).copied().collect(),
    });
    (choose(conduct, state, client, a, score), eval)
}

fn choose(conduct: &Conduct, state: &mut GameState, client: &Follower, a: &Analysis, score: Option<i32>) -> Reply {
    let pos = client.position();
    if let Some(s) = score {
        state.scores.push(s);
    }
    let recent = |n: u32, ok: &dyn Fn(i32) -> bool| {
        n > 0
            && state.scores.len() >= n as usize
            && state.scores[state.scores.len() - n as usize..].iter().all(|&s| ok(s))
    };
    if let Some((cp, n)) = conduct.resign {
        if recent(n, &|s| s <= -cp) {
            return Reply::Resign;
        }
    }
    let drawish = match conduct.draw {
        Some((cp, n)) => recent(n, &|s| s.abs() <= cp),
        None => false,
    };
    if client.draw_offered() && drawish {
        return Reply::AcceptDraw;
    }
    let Some(mv) = a.best.or_else(|| a.pv.first().copied()) else {
        // No legal move: the referee has already ended the game.
        return Reply::ClaimDraw;
    };
    if conduct.claims {
        let mut after = pos;
        after.play_unchecked(mv);
        // A threefold repetition needs eight reversible plies at least
        // (the position, and twice again four plies apart): the game's
        // history is replayed only then.
        let threefold = after.halfmoves() >= 8 && {
            let mut h = client.history();
            h.push(&after);
            h.is_threefold()
        };
        if threefold || after.is_fifty_moves() {
            return Reply::Move { mv, draw_offer: false, draw_claim: true };
        }
    }
    Reply::Move { mv, draw_offer: drawish && pos.fullmoves() >= 30, draw_claim: false }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Command, Outgoing};

    /// The search a follower of `start` and `moves` is set to run, told
    /// `tags`, the last move coming with the respond.
    fn movestogo(tags: &[(&str, String)], start: Position, moves: &[&str]) -> Option<u32> {
        let mut f = Follower::default();
        f.take(&Outgoing::new(Command::Reset, &start).to_line()).unwrap();
        f.take(&Outgoing { tags, ..Outgoing::new(Command::Inform, &start) }.to_line()).unwrap();
        let mut pos = start;
        for (i, u) in moves.iter().enumerate() {
            let m = pos.parse_uci(u.as_bytes()).unwrap();
            let remaining = Some((Duration::from_secs(60), Duration::from_secs(60)));
            let command = if i + 1 == moves.len() { Command::Respond } else { Command::Execute };
            f.take(&Outgoing { sm: Some(m), remaining, ..Outgoing::new(command, &pos) }.to_line()).unwrap();
            pos.play_unchecked(m);
        }
        turn(&Conduct::default(), &f).limits.clock.and_then(|c| c.movestogo)
    }

    /// `movestogo` counts the moves the side to move has made, as the
    /// referee's clock does: none for Black after White's first move, and
    /// none of an opening book's (fastchess's clocks start after the
    /// book).
    #[test]
    fn movestogo_counts_the_side_to_moves_own_moves_after_the_book() {
        let tc = |book: Option<&str>| {
            let mut t = vec![("TimeControl", "40/60".to_owned())];
            t.extend(book.map(|b| (crate::protocol::BOOK_PLIES, b.to_owned())));
            t
        };
        let start = Position::startpos();
        for (book, moves, want) in [
            (None, &["e2e4"][..], 40),
            (None, &["e2e4", "e7e5"], 39),
            (None, &["e2e4", "e7e5", "g1f3"], 39),
            (Some("3"), &["e2e4", "e7e5", "g1f3"], 40),
            (Some("3"), &["e2e4", "e7e5", "g1f3", "b8c6"], 40),
            (Some("3"), &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], 39),
        ] {
            assert_eq!(movestogo(&tc(book), start, moves), Some(want), "{book:?} {moves:?}");
        }
    }
}
