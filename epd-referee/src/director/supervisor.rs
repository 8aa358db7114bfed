//! The supervisor's commands, from the console or the live display:
//! status, games, pause, resume, adjudicate, abort, disconnect, restart,
//! quit.

use super::*;

/// A supervisor's action from the live display (the fields of its
/// query: `action=pause&game=3`) as the console command it stands for;
/// `None` for anything else.
#[must_use]
pub fn supervisor_command(
    action: &str,
    game: Option<&str>,
    result: Option<&str>,
    player: Option<&str>,
) -> Option<String> {
    let game = game.filter(|g| *g == "all" || (g.len() <= 9 && g.parse::<usize>().is_ok()));
    match (action, game, result, player) {
        ("pause" | "resume", Some(g), None, None) => Some(format!("{action} {g}")),
        ("abort", Some(g), None, None) if g != "all" => Some(format!("abort {g}")),
        ("adjudicate", Some(g), Some(r @ ("1-0" | "0-1" | "1/2-1/2")), None) if g != "all" => {
            Some(format!("adjudicate {g} {r}"))
        }
        ("restart", None, None, Some(p))
            if !p.is_empty() && p.len() <= 256 && !p.chars().any(|c| c.is_whitespace() || c.is_control()) =>
        {
            Some(format!("restart {p}"))
        }
        _ => None,
    }
}

impl Director {
    pub(super) fn on_console(&mut self, cmd: &str) {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["status"] | [] => {
                self.say(format!(
                    "{} of {} games finished, {} running, {} clients",
                    self.games.over_count(),
                    self.games.len(),
                    self.games.running.len(),
                    self.clients.len()
                ));
            }
            ["games"] => {
                let lines: Vec<String> = self
                    .games
                    .running
                    .values()
                    .map(|r| {
                        format!(
                            "game {}: {} - {}, {} plies, clocks {} {}{}, {}",
                            r.sched.number,
                            self.event.players[r.sched.white].name,
                            self.event.players[r.sched.black].name,
                            r.game.moves().len(),
                            shown_clock(r.game.clock(Color::White)),
                            shown_clock(r.game.clock(Color::Black)),
                            if r.paused.is_some() { ", paused" } else { "" },
                            r.game.position().fen()
                        )
                    })
                    .collect();
                for line in lines {
                    self.say(line);
                }
            }
            ["adjudicate", n, res] => {
                let result = match *res {
                    "1-0" => Some(GameResult::WhiteWins),
                    "0-1" => Some(GameResult::BlackWins),
                    "1/2-1/2" => Some(GameResult::Draw),
                    _ => None,
                };
                match (self.game_by_number(n), result) {
                    (Some(k), Some(res)) => {
                        let e =
                            self.games.running.get_mut(&k).expect("running").game.adjudicate(res, "by the supervisor");
                        self.finish(k, e);
                    }
                    _ => self.say("adjudicate GAME 1-0|0-1|1/2-1/2 (a running game's number)".to_owned()),
                }
            }
            ["abort", n] => match self.game_by_number(n) {
                Some(k) => {
                    if let Some(number) = self.take_back(k, None) {
                        self.note(&format!("game {number} aborted by the supervisor"));
                    }
                }
                None => self.say("abort GAME (a running game's number)".to_owned()),
            },
            ["pause", n] => match self.games_named(n) {
                Some(ks) => ks.into_iter().for_each(|k| self.pause(k)),
                None => self.say("pause GAME|all (a running game's number)".to_owned()),
            },
            ["resume", n] => match self.games_named(n) {
                Some(ks) => ks.into_iter().for_each(|k| self.resume(k)),
                None => self.say("resume GAME|all (a running game's number)".to_owned()),
            },
            // restart: the player's clients are told to disconnect; a
            // program the referee started is started again (its keeper)
            // and is brought back into its game when it signs on.
            ["disconnect" | "restart", name] => {
                let ids: Vec<ConnId> = self
                    .clients
                    .iter()
                    .filter(|(_, c)| c.player.is_some_and(|p| self.event.players[p].name == *name))
                    .map(|(i, _)| i)
                    .collect();
                for id in ids {
                    let line = Outgoing::new(Command::Disconnect, &Position::startpos()).to_line();
                    self.send(id, line);
                    self.drop_conn(id, "disconnected by the supervisor");
                }
            }
            ["quit"] => {
                self.note("quit by the supervisor");
                self.phase.stop();
            }
            _ => self.say(
                "commands: status, games, pause GAME|all, resume GAME|all, adjudicate GAME RESULT, abort GAME, \
                 disconnect NAME, restart NAME, quit"
                    .to_owned(),
            ),
        }
    }

    /// `all` (every running game) or one running game's number.
    pub(super) fn games_named(&self, n: &str) -> Option<Vec<usize>> {
        if n == "all" {
            return Some(self.games.running.keys().copied().collect());
        }
        self.game_by_number(n).map(|k| vec![k])
    }

    /// Stops a game's clocks: the side to move's time stops now.
    pub(super) fn pause(&mut self, k: usize) {
        let Some(r) = self.games.running.get_mut(&k) else { return };
        if r.paused.is_some() {
            return;
        }
        self.write_ahead(&Entry::Pause { game: k });
        if self.write_ahead.failed() {
            return;
        }
        let Some(r) = self.games.running.get_mut(&k) else { return };
        r.paused = Some(self.now);
        let n = r.sched.number;
        self.rearm(k);
        self.note(&format!("game {n} paused by the supervisor"));
    }

    /// Starts a paused game's clocks again: the side to move's clock
    /// goes on from where the pause stopped it, or, when it moved during
    /// the pause, its opponent is asked now.
    pub(super) fn resume(&mut self, k: usize) {
        let now = self.now;
        if self.games.running.get(&k).is_none_or(|r| r.paused.is_none()) {
            return;
        }
        self.write_ahead(&Entry::Unpause { game: k });
        if self.write_ahead.failed() {
            return;
        }
        let Some(r) = self.games.running.get_mut(&k) else { return };
        let Some(since) = r.paused.take() else { return };
        let stopped = now.saturating_duration_since(since);
        if let Some(t) = r.asked_at.as_mut() {
            *t += stopped;
        }
        if let Some((_, until)) = r.away.as_mut() {
            *until += stopped;
        }
        let n = r.sched.number;
        let played = r.played_in_pause.take();
        self.note(&format!("game {n} resumed by the supervisor after {:.3} s", stopped.as_secs_f64()));
        self.rearm(k);
        if let Some(last) = played {
            self.ask(k, Some(last), now, None);
        }
    }

    pub(super) fn game_by_number(&self, n: &str) -> Option<usize> {
        let n: usize = n.parse().ok()?;
        self.games.running.iter().find(|(_, r)| r.sched.number == n).map(|(&k, _)| k)
    }
}

/// A clock for the console: its time, or `-` where none runs.
fn shown_clock(c: &crate::clock::Clock) -> String {
    if c.is_running() {
        crate::clock::hms(c.remaining())
    } else {
        "-".to_owned()
    }
}
