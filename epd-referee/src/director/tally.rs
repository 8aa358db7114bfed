//! The tally part: the results of the games over. Standings for every
//! event; for a match of two players, the pentanomial counts of its
//! pairs (games 2j and 2j + 1 share an opening) and the SPRT's verdict,
//! once reached.

use std::collections::BTreeMap;

use crate::game::{Fault, GameResult};
use crate::sprt::{Counts, Games, Penta, Sprt, Verdict};
use crate::standings::Standings;

/// A trial of a match completed by a game over, with an SPRT: a pair,
/// or with `report_penta = false` the game itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PairOver {
    /// The pair's number from 0 (over games: the game's).
    pub(super) pair: usize,
    /// The SPRT's log-likelihood ratio after it.
    pub(super) llr: f64,
    /// The LLR's lower and upper bounds.
    pub(super) bounds: (f64, f64),
    /// The verdict this pair reached, if it is the one that reached it.
    pub(super) decided: Option<Verdict>,
}

/// The results so far.
#[derive(Debug)]
pub(super) struct Tally {
    standings: Standings,
    /// Two players: the pentanomial counts of the pairs over, from the
    /// first player's side.
    penta: Penta,
    /// Two players: the games over, from the first player's side.
    games: Games,
    /// The statistics and the SPRT over pairs (else over games).
    over_pairs: bool,
    /// The first player's points in the games over of pairs not yet
    /// complete, by pair.
    pair_points: BTreeMap<usize, [Option<f64>; 2]>,
    /// The SPRT's verdict, once reached: no game starts after it.
    verdict: Option<Verdict>,
    /// Per player, the games it lost to a failure: crashes, stalls, time
    /// losses, illegal moves.
    faults: BTreeMap<usize, [u32; 4]>,
    /// The games void (`host_loss = "void"`), in the order they were:
    /// the game's number and why. Not scored; each was played again.
    voids: Vec<(usize, String)>,
}

impl Tally {
    /// No game over yet, between the players named; a match's
    /// statistics over pairs (`over_pairs`) or over games.
    pub(super) fn new(names: Vec<String>, over_pairs: bool) -> Tally {
        Tally {
            standings: Standings::new(names),
            penta: Penta::default(),
            games: Games::default(),
            over_pairs,
            pair_points: BTreeMap::new(),
            verdict: None,
            faults: BTreeMap::new(),
            voids: Vec::new(),
        }
    }

    /// Adds game `k` of the schedule, `white` against `black`, over with
    /// `res`. In a match of two players (`pairs`) its pair, once both of
    /// its games are over, goes to the pentanomial counts and, with an
    /// SPRT, to its test: what that said is returned. Over games (not
    /// `over_pairs`) each game is a trial, tested at once.
    pub(super) fn add(
        &mut self,
        k: usize,
        (white, black): (usize, usize),
        res: GameResult,
        pairs: bool,
        sprt: Option<&Sprt>,
    ) -> Option<PairOver> {
        self.standings.add(white, black, res);
        if !pairs {
            return None;
        }
        let white_points = match res {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        };
        let first = if white == 0 { white_points } else { 1.0 - white_points };
        self.games.add(first);
        if !self.over_pairs {
            return self.test(k, sprt);
        }
        let slot = self.pair_points.entry(k / 2).or_default();
        slot[k % 2] = Some(first);
        let [Some(a), Some(b)] = *slot else { return None };
        self.pair_points.remove(&(k / 2));
        self.penta.add_pair(a, b);
        self.test(k / 2, sprt)
    }

    /// The SPRT after trial `trial` (a pair, or a game).
    fn test(&mut self, trial: usize, sprt: Option<&Sprt>) -> Option<PairOver> {
        let sprt = sprt?;
        let llr = self.counts().llr(sprt);
        let mut decided = None;
        if self.verdict.is_none() {
            let v = sprt.verdict(llr);
            if v != Verdict::Continue {
                self.verdict = Some(v);
                decided = Some(v);
            }
        }
        Some(PairOver { pair: trial, llr, bounds: sprt.bounds(), decided })
    }

    /// What a match's statistics are taken over: its pairs, or its games.
    #[must_use]
    pub(super) fn counts(&self) -> Counts<'_> {
        if self.over_pairs {
            Counts::Pairs(&self.penta)
        } else {
            Counts::Games(&self.games)
        }
    }

    /// The games over of a match, from the first player's side.
    #[must_use]
    pub(super) fn games(&self) -> &Games {
        &self.games
    }

    #[must_use]
    pub(super) fn standings(&self) -> &Standings {
        &self.standings
    }

    #[must_use]
    pub(super) fn penta(&self) -> &Penta {
        &self.penta
    }

    /// The SPRT's verdict, once reached.
    #[must_use]
    pub(super) fn verdict(&self) -> Option<Verdict> {
        self.verdict
    }

    /// `player` lost a game to `fault`.
    pub(super) fn add_fault(&mut self, player: usize, fault: Fault) {
        let i = match fault {
            Fault::Time => 0,
            Fault::Crash => 1,
            Fault::Stall => 2,
            Fault::Illegal => 3,
        };
        self.faults.entry(player).or_default()[i] += 1;
    }

    /// Game `number` was void for `why`: not scored, played again.
    pub(super) fn add_void(&mut self, number: usize, why: String) {
        self.voids.push((number, why));
    }

    /// How many games were void.
    #[must_use]
    pub(super) fn voids(&self) -> usize {
        self.voids.len()
    }

    /// The games void, one line each, after a count; empty when none
    /// was.
    #[must_use]
    pub(super) fn voids_report(&self) -> String {
        if self.voids.is_empty() {
            return String::new();
        }
        let mut out = format!("Void (not scored, played again): {}\n", self.voids.len());
        for (number, why) in &self.voids {
            out.push_str(&format!("  game {number}: {why}\n"));
        }
        out
    }

    /// The failures per player who had any, in the players' order, as
    /// fastchess lists them at a match's end (`Player:`, `Timeouts:`,
    /// `Crashed:`), with stalls and illegal moves apart; empty when no
    /// game was lost to one.
    #[must_use]
    pub(super) fn faults_report(&self, names: &[String]) -> String {
        let mut out = String::new();
        for (&p, &[time, crash, stall, illegal]) in &self.faults {
            let name = names.get(p).map_or("?", String::as_str);
            out.push_str(&format!(
                "Player: {name}\n  Timeouts: {time}\n  Crashed: {crash}\n  Stalled: {stall}\n  Illegal moves: {illegal}\n"
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs count once both their games are over, from the first
    /// player's side whichever colour it had; the verdict is reached
    /// once, by the pair that reaches it.
    #[test]
    fn pairs_count_when_complete_and_the_verdict_is_reached_once() {
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05, crate::sprt::Model::Logistic).unwrap();
        let mut t = Tally::new(vec!["a".into(), "b".into()], true);
        assert_eq!(t.add(0, (0, 1), GameResult::WhiteWins, true, Some(&sprt)), None, "half a pair");
        let p = t.add(1, (1, 0), GameResult::BlackWins, true, Some(&sprt)).expect("pair 0 over");
        assert_eq!((p.pair, p.decided), (0, None));
        assert_eq!(t.penta().counts, [0, 0, 0, 0, 1], "two wins for the first player");
        // Games of other pairs in any order; the verdict comes once.
        let mut verdicts = Vec::new();
        for k in 2..200 {
            // The first player (White in even games) wins the first game
            // of each pair and wins, draws or loses the second in turn.
            let res = match (k % 2, k / 2 % 3) {
                (0, _) => GameResult::WhiteWins,
                (_, 0) => GameResult::BlackWins,
                (_, 1) => GameResult::Draw,
                _ => GameResult::WhiteWins,
            };
            let white = k % 2;
            if let Some(p) = t.add(k, (white, 1 - white), res, true, Some(&sprt)) {
                verdicts.extend(p.decided);
            }
        }
        assert_eq!(verdicts, [Verdict::H1]);
        assert_eq!(t.verdict(), Some(Verdict::H1));
        assert_eq!(t.standings().games(0), 200);
        // Failures per player, in the players' order.
        assert_eq!(t.faults_report(&["a".into(), "b".into()]), "");
        t.add_fault(1, Fault::Crash);
        t.add_fault(0, Fault::Time);
        t.add_fault(1, Fault::Crash);
        t.add_fault(1, Fault::Illegal);
        t.add_fault(1, Fault::Stall);
        assert_eq!(
            t.faults_report(&["a".into(), "b".into()]),
            "Player: a\n  Timeouts: 1\n  Crashed: 0\n  Stalled: 0\n  Illegal moves: 0\n\
             Player: b\n  Timeouts: 0\n  Crashed: 2\n  Stalled: 1\n  Illegal moves: 1\n"
        );
        // Void games: counted apart, never scored.
        assert_eq!(t.voids_report(), "");
        t.add_void(7, "b (black) away past the disconnect grace (connection reset)".into());
        assert_eq!(t.voids(), 1);
        assert_eq!(
            t.voids_report(),
            "Void (not scored, played again): 1\n  game 7: b (black) away past the disconnect grace (connection reset)\n"
        );
        assert_eq!(t.standings().games(0), 200, "a void game is not scored");
        // Over games (report_penta = false): each game a trial, the
        // SPRT tested after each, from the first player's side.
        let mut g = Tally::new(vec!["a".into(), "b".into()], false);
        let p = g.add(0, (0, 1), GameResult::WhiteWins, true, Some(&sprt)).expect("a game is a trial");
        assert_eq!(p.pair, 0);
        let p = g.add(1, (1, 0), GameResult::Draw, true, Some(&sprt)).expect("a game is a trial");
        assert_eq!((p.pair, g.games().counts, g.penta().pairs()), (1, [0, 1, 1], 0));
        assert!((p.llr - sprt.llr_games(g.games())).abs() < 1e-12 && p.llr != t.counts().llr(&sprt));
        // More than two players: standings only.
        let mut t = Tally::new(vec!["a".into(), "b".into(), "c".into()], true);
        assert_eq!(t.add(1, (2, 0), GameResult::Draw, false, None), None);
        assert_eq!((t.penta().pairs(), t.standings().half_points(2)), (0, 1));
    }
}
