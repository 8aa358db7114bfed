//! The live display: its part of the director (whether it is on, when
//! it is published next, the games over it lists) and its state
//! ([`State`]), published from the director's own data at most ten times
//! a second.

use super::*;
use serde::Serialize;

/// How often the display is published at most.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// The display's part of the director.
#[derive(Debug)]
pub(super) struct Display {
    /// Publish the live display's state.
    on: bool,
    /// The state changed since it was last published.
    dirty: bool,
    /// When it is published next.
    publish_at: Option<Instant>,
    /// The published state's version.
    version: u64,
    /// The games over, in the order they ended.
    games_over: Vec<FinishedGame>,
}

impl Display {
    pub(super) fn new(on: bool) -> Display {
        Display { on, dirty: true, publish_at: None, version: 0, games_over: Vec::new() }
    }

    /// Something changed.
    pub(super) fn touch(&mut self) {
        self.dirty = true;
    }

    /// When to publish, if it is on, something changed and no publication
    /// is due yet: at most ten times a second.
    pub(super) fn schedule(&mut self, now: Instant) -> Option<Instant> {
        if self.on && self.dirty && self.publish_at.is_none() {
            let at = now + PUBLISH_EVERY;
            self.publish_at = Some(at);
            return Some(at);
        }
        None
    }

    /// The publication scheduled is due.
    pub(super) fn due(&mut self) {
        self.publish_at = None;
    }

    /// A publication now: its version, if the display is on.
    pub(super) fn publish(&mut self) -> Option<u64> {
        if !self.on {
            return None;
        }
        self.dirty = false;
        self.version += 1;
        Some(self.version)
    }

    /// A game over, for the list.
    pub(super) fn add_game_over(&mut self, g: FinishedGame) {
        self.games_over.push(g);
    }

    /// The last 500 games over.
    #[must_use]
    pub(super) fn recent_games_over(&self) -> &[FinishedGame] {
        &self.games_over[self.games_over.len().saturating_sub(500)..]
    }
}

impl Director {
    /// Publishes the display's state at most ten times a second.
    pub(super) fn schedule_publish(&mut self) {
        if let Some(at) = self.display.schedule(self.now) {
            self.timers.set(Due::Publish, Some(at));
        }
    }

    /// A game's place in the event in words, for people: `round 1, game
    /// 2 of 4` where PGN Round says `1.2` (the round-robin cycle, or the
    /// event's `round`, then the game's number in the schedule), with the
    /// number of cycles when there are several (`round 2 of 3, ...`).
    pub(super) fn round_name(&self, sched: &crate::event::ScheduledGame) -> String {
        let games = self.games.len();
        match &self.event.round {
            Some(p) => format!("round {p}, game {} of {games}", sched.number),
            None if self.event.rounds > 1 => {
                format!("round {} of {}, game {} of {games}", sched.cycle, self.event.rounds, sched.number)
            }
            None => format!("round {}, game {} of {games}", sched.cycle, sched.number),
        }
    }

    /// The PGN tags of a game in progress or just over.
    pub(super) fn pgn_tags(&self, r: &Running) -> Tags {
        let round = match &self.event.round {
            Some(p) => format!("{p}.{}", r.sched.number),
            None => format!("{}.{}", r.sched.cycle, r.sched.number),
        };
        Tags {
            event: self.event.name.clone(),
            site: self.event.site.clone(),
            date: self.date.clone(),
            round,
            white: self.event.players[r.sched.white].name.clone(),
            black: self.event.players[r.sched.black].name.clone(),
            chess960: self.event.variant.is_chess960(),
        }
    }

    /// Publishes the live display's state (`live`: the event goes on).
    pub(super) fn publish(&mut self, live: bool) {
        let Some(version) = self.display.publish() else { return };
        let now = self.now;
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let side = |c: Color| if c == Color::White { "white" } else { "black" };
        let mut live_pgn = String::new();
        let mut running = Vec::with_capacity(self.games.running.len());
        for r in self.games.running.values() {
            let g = &r.game;
            let last = g.moves().last().map(|m| {
                let to = if m.mv.is_castle() { m.mv.king_destination() } else { m.mv.to() };
                [m.mv.from().to_string(), to.to_string()]
            });
            let ticking = r.paused.is_none() && r.away.is_none() && r.starts_at.is_none() && g.ended().is_none();
            let tags = self.pgn_tags(r);
            live_pgn.push_str(&pgn::write(&tags, g));
            running.push(LiveGame {
                number: r.sched.number,
                round: tags.round,
                round_name: self.round_name(&r.sched),
                white: tags.white,
                black: tags.black,
                start: g.start().fen(),
                fen: g.position().fen(),
                moves: g.moves().iter().map(|m| m.san.clone()).collect(),
                last,
                turn: side(g.position().turn()),
                white_ms: g.clock(Color::White).is_running().then(|| ms(g.clock(Color::White).remaining())),
                black_ms: g.clock(Color::Black).is_running().then(|| ms(g.clock(Color::Black).remaining())),
                thinking_ms: r.asked_at.filter(|_| ticking).map(|t| ms(now.saturating_duration_since(t))),
                paused: r.paused.is_some(),
                away: r.away.map(|(c, _)| side(c)),
                engine: engine_line(g),
            });
        }
        running.sort_by_key(|g| g.number);
        let table = self.tally.standings();
        let standings = table
            .order()
            .into_iter()
            .map(|i| {
                let [wins, draws, losses] = table.wdl(i);
                Standing {
                    name: table.name(i).to_owned(),
                    points: f64::from(table.half_points(i)) / 2.0,
                    games: table.games(i),
                    wins,
                    draws,
                    losses,
                }
            })
            .collect();
        let state = State {
            version,
            event: self.event.name.clone(),
            site: self.event.site.clone(),
            time_control: self.event.time_control.to_string(),
            epoch: self.replication.epoch(),
            games: self.games.len(),
            finished_count: self.games.over_count(),
            live,
            running,
            finished: self.display.recent_games_over().to_vec(),
            standings,
            supervised: self.event.supervisor_token.is_some(),
            results: self.match_state(),
        };
        let json = serde_json::to_string(&state).unwrap_or_default();
        self.out.push_back(Output::Publish(Snapshot { json, live_pgn }));
    }
}

/// A match of two players, as `/api/state` gives it: the results block
/// and its numbers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MatchState {
    /// The cutechess/fastchess results block, as the log and the report
    /// have it.
    pub text: String,
    /// The first player's wins, draws and losses.
    pub wdl: [u64; 3],
    /// Pairs scoring 0, ½, 1, 1½ and 2 points for the first player.
    pub pentanomial: [u64; 5],
    /// Elo of the first player against the second, with its 95 % interval.
    pub elo: Option<(f64, f64, f64)>,
    /// Normalized Elo, with its 95 % interval.
    pub nelo: Option<(f64, f64, f64)>,
    /// The likelihood of superiority.
    pub los: Option<f64>,
    /// With an SPRT: its LLR, lower and upper bounds.
    pub llr: Option<(f64, f64, f64)>,
    /// `H0`, `H1`, or none while it goes on.
    pub verdict: Option<String>,
}

/// What the display shows, as `/api/state` gives it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct State {
    /// One more each time the state changes.
    pub version: u64,
    /// The event's name, site and time control.
    pub event: String,
    /// PGN Site.
    pub site: String,
    /// PGN TimeControl.
    pub time_control: String,
    /// The referee's epoch (one more after each resumption or take-over).
    pub epoch: u64,
    /// Games in the schedule.
    pub games: usize,
    /// Games over.
    pub finished_count: usize,
    /// `false` once the event is over.
    pub live: bool,
    /// The games in progress, by number.
    pub running: Vec<LiveGame>,
    /// The games over, the latest last (at most the last 500).
    pub finished: Vec<FinishedGame>,
    /// Two players: the match's results and SPRT.
    pub results: Option<MatchState>,
    /// The players, best first.
    pub standings: Vec<Standing>,
    /// Whether supervisor actions are possible (the event has a token).
    pub supervised: bool,
}

/// A game in progress.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LiveGame {
    /// Its number in the schedule (PGN Round's last part).
    pub number: usize,
    /// PGN Round (`1.2`: the cycle or the event's `round`, then `number`).
    pub round: String,
    /// The same in words: `round 1, game 2 of 4`.
    pub round_name: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The start position (FEN).
    pub start: String,
    /// The current position (FEN).
    pub fen: String,
    /// The moves so far, in SAN.
    pub moves: Vec<String>,
    /// The last move's squares, `["e2", "e4"]`.
    pub last: Option<[String; 2]>,
    /// `"white"` or `"black"`.
    pub turn: &'static str,
    /// White's time left, in milliseconds, before the move being thought;
    /// `null` where no clock runs (time control `-`).
    pub white_ms: Option<u64>,
    /// Black's.
    pub black_ms: Option<u64>,
    /// How long the side to move has been thinking, in milliseconds,
    /// when its clock runs (it was asked, the game is not paused and no
    /// one is away); the page counts down from here.
    pub thinking_ms: Option<u64>,
    /// Paused by the supervisor.
    pub paused: bool,
    /// A side that is away (`"white"`, `"black"`).
    pub away: Option<&'static str>,
    /// The last engine's score, depth, nodes and principal variation, as
    /// its reply gave them.
    pub engine: Option<EngineLine>,
}

/// What an engine said with its last move, for the live display.
#[derive(Clone, Debug, Serialize)]
pub struct EngineLine {
    /// Whose engine: `"white"` or `"black"`.
    pub side: &'static str,
    /// Its score in centipawns from White's side (an evaluation bar);
    /// mates as ±(32767 − plies).
    pub white_cp: i32,
    /// The score as cutechess and fastchess write it, from the mover's side
    /// (`+0.35`, `0.00`, `-M6`: mated in six plies).
    pub text: String,
    /// The depth reached.
    pub depth: Option<u32>,
    /// The nodes searched.
    pub nodes: Option<u64>,
    /// The principal variation in SAN, from the position before the move.
    pub pv: Vec<String>,
}

/// A game over.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FinishedGame {
    /// Its number in the schedule.
    pub number: usize,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// PGN Termination: `normal`, `time forfeit`, `abandoned`, `rules
    /// infraction` or `adjudication`.
    pub termination: String,
    /// How it ended in the referee's words, as the PGN's last comment
    /// has it: `Black checkmated`, `threefold repetition, claimed`,
    /// `insufficient material`, `White forfeits on time`, ...
    pub reason: String,
    /// PGN Round.
    pub round: String,
    /// The same in words: `round 1, game 2 of 4`.
    pub round_name: String,
    /// Plies played.
    pub plies: usize,
}

impl FinishedGame {
    /// A game over as the journal keeps it: its PGN gives its round, how
    /// it ended (the Termination tag, and the referee's words in the last
    /// comment) and its length.
    pub(crate) fn from_pgn(
        number: usize,
        round_name: String,
        white: String,
        black: String,
        result: &str,
        pgn: &str,
    ) -> FinishedGame {
        let tag = |name: &str| {
            let key = format!("[{name} \"");
            pgn.find(&key).and_then(|i| pgn[i + key.len()..].split('"').next()).map(str::to_owned)
        };
        FinishedGame {
            number,
            white,
            black,
            result: result.to_owned(),
            termination: tag("Termination").unwrap_or_default(),
            reason: last_comment(pgn).unwrap_or_default(),
            round: tag("Round").unwrap_or_default(),
            round_name,
            plies: tag("PlyCount").and_then(|n| n.parse().ok()).unwrap_or(0),
        }
    }
}

/// The referee's words on how a game ended: the last comment of its
/// movetext (the PGN writer puts them there, after every move's own
/// comment of `[%clk]` and `[%emt]`), its lines joined again.
fn last_comment(pgn: &str) -> Option<String> {
    let body = &pgn[pgn.find("\n\n")?..];
    let open = body.rfind('{')?;
    let text = &body[open + 1..open + body[open..].find('}')?];
    (!text.contains("[%clk")).then(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A player's standing.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// Its name.
    pub name: String,
    /// Points.
    pub points: f64,
    /// Games played.
    pub games: u32,
    /// Wins, draws, losses.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

/// The published state: its JSON, and the games in progress as PGN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// [`State`] as JSON.
    pub json: String,
    /// The games in progress as PGN (result `*`).
    pub live_pgn: String,
}

impl Director {
    fn match_state(&self) -> Option<MatchState> {
        let text = self.results()?;
        let penta = self.tally.penta();
        let counts = self.tally.counts();
        let e = counts.estimate();
        let llr = self.event.sprt.map(|s| {
            let (lo, hi) = s.bounds();
            (counts.llr(&s), lo, hi)
        });
        Some(MatchState {
            text,
            wdl: counts.wdl(),
            pentanomial: penta.counts,
            elo: e.map(|e| e.elo),
            nelo: e.map(|e| e.nelo),
            los: e.map(|e| e.los),
            llr,
            verdict: self.tally.verdict().map(|v| if v == crate::sprt::Verdict::H1 { "H1" } else { "H0" }.to_owned()),
        })
    }
}

/// The last scored move of `g`, for the display.
fn engine_line(g: &crate::game::Game) -> Option<EngineLine> {
    let moves = g.moves();
    let i = moves.iter().rposition(|m| m.eval.is_some())?;
    let e = moves[i].eval.as_ref()?;
    let mut pos = *g.start();
    for m in &moves[..i] {
        pos.play_unchecked(m.mv);
    }
    let mover = pos.turn();
    let mut pv = Vec::new();
    for &m in &e.pv {
        if !pos.is_legal(m) {
            break;
        }
        pv.push(pos.san(m));
        pos.play_unchecked(m);
    }
    let text = crate::pgn::score_text(e.ce);
    Some(EngineLine {
        side: if mover == Color::White { "white" } else { "black" },
        white_cp: if mover == Color::White { e.ce } else { -e.ce },
        text,
        depth: e.depth,
        nodes: e.nodes,
        pv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{DrawClaim, Game};
    use epd_core::{Position, SanMode};

    /// A game ended by `end` after `moves`, as the PGN writer writes it.
    fn written(moves: &str, end: impl FnOnce(&mut Game)) -> String {
        let mut g = Game::new(Position::startpos(), &"600".parse().unwrap());
        for s in moves.split_whitespace() {
            let m = g.position().parse_san(s.as_bytes(), SanMode::Strict).unwrap();
            g.play(m, Duration::from_millis(1234)).unwrap();
        }
        end(&mut g);
        let tags = Tags { round: "2.3".into(), white: "a".into(), black: "b".into(), ..Tags::default() };
        pgn::write(&tags, &g)
    }

    /// The display is published at most ten times a second, only when
    /// on and changed, each time with a new version; its list keeps the
    /// last 500 games over.
    #[test]
    fn the_display_publishes_changes_at_most_ten_times_a_second() {
        let t0 = Instant::now();
        let mut d = Display::new(true);
        assert_eq!(d.schedule(t0), Some(t0 + PUBLISH_EVERY));
        assert_eq!(d.schedule(t0 + PUBLISH_EVERY / 2), None, "one publication is due already");
        d.due();
        assert_eq!(d.publish(), Some(1));
        assert_eq!(d.schedule(t0 + PUBLISH_EVERY), None, "nothing changed");
        d.touch();
        assert_eq!(d.schedule(t0 + PUBLISH_EVERY), Some(t0 + PUBLISH_EVERY * 2));
        d.due();
        assert_eq!(d.publish(), Some(2));
        let mut off = Display::new(false);
        off.touch();
        assert_eq!((off.schedule(t0), off.publish()), (None, None));
        for n in 0..600 {
            d.add_game_over(FinishedGame { number: n, ..FinishedGame::default() });
        }
        let recent = d.recent_games_over();
        assert_eq!((recent.len(), recent[0].number), (500, 100));
    }

    /// A referee resumed from its journal rebuilds its finished games
    /// from their PGN: how each ended must come back in the referee's
    /// words, not as the Termination tag's `normal`.
    #[test]
    fn finished_games_read_back_from_pgn_keep_the_referees_words() {
        let long = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6";
        for (pgn, termination, reason) in [
            (written("f3 e5 g4 Qh4#", |_| {}), "normal", "White checkmated"),
            (
                written("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1", |g| {
                    let m = g.position().parse_san(b"Ng8", SanMode::Strict).unwrap();
                    g.claim_draw(epd_core::Color::Black, DrawClaim::Threefold, Some((m, Duration::ZERO))).unwrap();
                }),
                "normal",
                "threefold repetition, claimed",
            ),
            // A long reason wraps over lines of the movetext.
            (
                written(long, |g| {
                    g.adjudicate(crate::game::GameResult::Draw, "the supervisor saw a dead draw, both sides agree");
                }),
                "adjudication",
                "adjudicated: the supervisor saw a dead draw, both sides agree",
            ),
            (written("e4", |g| drop(g.resign(epd_core::Color::Black))), "normal", "Black resigns"),
        ] {
            let f = FinishedGame::from_pgn(3, "round 2, game 3 of 4".into(), "a".into(), "b".into(), "1-0", &pgn);
            assert_eq!((f.termination.as_str(), f.reason.as_str()), (termination, reason), "{pgn}");
            assert_eq!((f.round.as_str(), f.round_name.as_str()), ("2.3", "round 2, game 3 of 4"));
        }
        // Unterminated, the last comment is a move's: no reason.
        let pgn = written("e4 e5", |_| {});
        assert_eq!(FinishedGame::from_pgn(1, String::new(), "a".into(), "b".into(), "*", &pgn).reason, "");
    }
}
