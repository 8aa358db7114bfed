//! Reads a journal's entries back into what they describe: the games
//! over (with their PGN), the games in progress with their clocks, the
//! paused games, the epoch and the standby. Pure: the entries come as
//! bytes, from wherever they were kept.

use std::collections::BTreeMap;
use std::time::Duration;

use epd_core::{Color, Position};

use super::entry::Entry;
use crate::event::{Event, ScheduledGame};
use crate::game::{Fault, Game, GameResult};

/// What a journal holds: the games over, the games in progress.
pub(crate) struct Replayed {
    pub(crate) epoch: u64,
    pub(crate) date: Option<String>,
    pub(crate) done: Vec<usize>,
    /// White, Black, the result and what the loser lost to (a fault).
    pub(crate) results: Vec<(usize, usize, GameResult, Option<Fault>)>,
    pub(crate) pgn: Vec<String>,
    pub(crate) running: BTreeMap<usize, (Game, Option<Color>)>,
    /// The games in progress paused by the supervisor.
    pub(crate) paused: std::collections::BTreeSet<usize>,
    /// The last standby the journal names, and its heartbeat.
    pub(crate) standby: Option<(String, Duration)>,
    /// The games void, in order, and why.
    pub(crate) voids: Vec<(usize, String)>,
}

fn bad_journal(path: &std::path::Path, n: usize, why: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: entry {n}: {why}", path.display()))
}

/// Reads the journal's entries back into the games over and the games
/// in progress.
pub(crate) fn replay(
    event: &Event,
    openings: &[crate::book::Opening],
    schedule: &[ScheduledGame],
    entries: &[Vec<u8>],
) -> std::io::Result<Replayed> {
    let path = &event.journal;
    let mut r = Replayed {
        epoch: 0,
        date: None,
        done: Vec::new(),
        results: Vec::new(),
        pgn: Vec::new(),
        running: BTreeMap::new(),
        paused: std::collections::BTreeSet::new(),
        standby: None,
        voids: Vec::new(),
    };
    for (i, bytes) in entries.iter().enumerate() {
        let n = i + 1;
        let entry: Entry = serde_json::from_slice(bytes).map_err(|e| bad_journal(path, n, e))?;
        let scheduled = |k: usize| schedule.get(k).copied().ok_or_else(|| bad_journal(path, n, "no such game"));
        match entry {
            Entry::Begin { epoch, event: name, games, date, .. } => {
                if name != event.name || games != schedule.len() {
                    return Err(bad_journal(
                        path,
                        n,
                        format!("the journal of event {name:?} with {games} games, not of this event file"),
                    ));
                }
                r.epoch = epoch;
                r.date.get_or_insert(date);
            }
            Entry::Start { game } => {
                let sched = scheduled(game)?;
                let (white, black) = (event.control(sched.white), event.control(sched.black));
                let game_of = match sched.opening {
                    Some(o) => Game::from_opening(&openings[o], &white, &black),
                    None => Game::with_controls(Position::startpos(), &white, &black),
                };
                r.running.insert(game, (game_of, None));
            }
            Entry::Move { game, uci, ns, offer, eval } => {
                let Some((g, o)) = r.running.get_mut(&game) else {
                    return Err(bad_journal(path, n, "a move of a game not in progress"));
                };
                let side = g.position().turn();
                let mv = g.position().parse_uci(uci.as_bytes()).map_err(|e| bad_journal(path, n, e))?;
                g.play(mv, Duration::from_nanos(ns)).map_err(|e| bad_journal(path, n, e))?;
                g.set_last_eval(eval);
                *o = offer.then_some(side);
            }
            Entry::End { game, white, black, result, pgn, fault } => {
                let res = match result.as_str() {
                    "1-0" => GameResult::WhiteWins,
                    "0-1" => GameResult::BlackWins,
                    "1/2-1/2" => GameResult::Draw,
                    _ => return Err(bad_journal(path, n, format!("a result {result:?}"))),
                };
                scheduled(game)?;
                if white >= event.players.len() || black >= event.players.len() {
                    return Err(bad_journal(path, n, "no such player"));
                }
                r.running.remove(&game);
                r.paused.remove(&game);
                r.done.push(game);
                r.results.push((white, black, res, fault));
                r.pgn.push(pgn);
            }
            Entry::Abort { game, void } => {
                scheduled(game)?;
                r.running.remove(&game);
                r.paused.remove(&game);
                if let Some(why) = void {
                    r.voids.push((game, why));
                }
            }
            Entry::Pause { game } => {
                if r.running.contains_key(&game) {
                    r.paused.insert(game);
                }
            }
            Entry::Unpause { game } => {
                r.paused.remove(&game);
            }
            Entry::Over => {}
            Entry::Standby { listen, heartbeat_ms } => {
                r.standby = Some((listen, Duration::from_millis(heartbeat_ms)));
            }
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::entry::Entry;

    fn entries(list: &[Entry]) -> Vec<Vec<u8>> {
        list.iter().map(|e| serde_json::to_vec(e).unwrap()).collect()
    }

    /// A supervisor's pause outlives a crash: the journal's replay finds
    /// the game paused until an unpause, and forgets games that ended.
    #[test]
    fn pauses_are_replayed_from_the_journal() {
        let text = "event = \"e\"\ntime_control = \"60\"\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n";
        let event = Event::parse(text, std::path::Path::new(".")).unwrap();
        let schedule = event.schedule(0);
        let begin = Entry::Begin {
            epoch: 1,
            event: "e".into(),
            games: schedule.len(),
            date: "2026.11.24".into(),
            openings_seed: None,
        };
        let mv = |uci: &str| Entry::Move { game: 0, uci: uci.into(), ns: 1_000_000, offer: false, eval: None };
        let log = [begin, Entry::Start { game: 0 }, mv("e2e4"), Entry::Pause { game: 0 }, mv("e7e5")];
        let r = replay(&event, &[], &schedule, &entries(&log)).unwrap();
        assert!(r.paused.contains(&0));
        assert_eq!(r.running[&0].0.moves().len(), 2, "a move played during the pause is kept");
        let mut more: Vec<Entry> = log.into_iter().collect();
        more.push(Entry::Unpause { game: 0 });
        let r = replay(&event, &[], &schedule, &entries(&more)).unwrap();
        assert!(r.paused.is_empty());
        more.push(Entry::Pause { game: 0 });
        more.push(Entry::Abort { game: 0, void: None });
        more.push(Entry::Pause { game: 1 });
        let r = replay(&event, &[], &schedule, &entries(&more)).unwrap();
        assert!(r.paused.is_empty(), "an aborted game, or one not running, is not paused");
    }
}
