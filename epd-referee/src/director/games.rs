//! Games: the games part (the schedule, the games running, the games
//! over), and the director's pairing, starting, asking the side to move,
//! bringing a returning player back into its game, and the end of a
//! game.

use super::*;

/// A game being played.
#[derive(Debug)]
pub(super) struct Running {
    pub(super) sched: ScheduledGame,
    pub(super) game: Game,
    /// Each side's connection (White, Black); `None` while the side is
    /// away, or not yet back in a game resumed from the journal.
    pub(super) conns: [Option<ConnId>; 2],
    /// Waiting for the reset delay to pass before the first respond.
    pub(super) starts_at: Option<Instant>,
    /// When the side to move was sent its respond.
    pub(super) asked_at: Option<Instant>,
    /// The connection that respond went to (`None` when none did): a
    /// player back on a new connection is asked again.
    pub(super) asked_id: Option<ConnId>,
    /// The side whose draw offer awaits an answer.
    pub(super) offer: Option<Color>,
    /// A side away, and when its grace ends.
    pub(super) away: Option<(Color, Instant)>,
    /// Why the side away left (its connection's end), for a void game's
    /// reason.
    pub(super) left: Option<String>,
    /// `host_loss = "void"`: the remote mover's flag fell then; the
    /// verdict waits for [`super::LOST_HOST_WINDOW`] (no clock runs).
    pub(super) flag_held: Option<Instant>,
    /// Paused by the supervisor since then: no clock runs, no flag
    /// falls, no grace ends, and a move that arrives is played but the
    /// opponent is not asked until the game resumes.
    pub(super) paused: Option<Instant>,
    /// A move played during the pause, with the position before it: its
    /// respond to the opponent waits for the resumption.
    pub(super) played_in_pause: Option<(Position, epd_core::Move)>,
}

impl Running {
    /// A game starting with `conns` (or resumed with nobody).
    pub(super) fn new(sched: ScheduledGame, game: Game, conns: [Option<ConnId>; 2]) -> Running {
        Running {
            sched,
            game,
            conns,
            starts_at: None,
            asked_at: None,
            asked_id: None,
            offer: None,
            away: None,
            left: None,
            flag_held: None,
            paused: None,
            played_in_pause: None,
        }
    }

    /// The side connection `id` plays, if it plays this game.
    #[must_use]
    pub(super) fn side_of(&self, id: ConnId) -> Option<Color> {
        match self.conns {
            [Some(w), _] if w == id => Some(Color::White),
            [_, Some(b)] if b == id => Some(Color::Black),
            _ => None,
        }
    }

    /// The connection of the side to move.
    #[must_use]
    pub(super) fn mover(&self) -> Option<ConnId> {
        self.conns[side_index(self.game.position().turn())]
    }
}

/// The schedule and its games: those running, those over.
#[derive(Debug)]
pub(super) struct Games {
    schedule: Vec<ScheduledGame>,
    /// The first game of the schedule not over: pairing looks from here.
    next: usize,
    /// The games being played, by their index in the schedule.
    pub(super) running: BTreeMap<usize, Running>,
    /// The games over, by their index in the schedule.
    over: BTreeSet<usize>,
}

impl Games {
    pub(super) fn new(schedule: Vec<ScheduledGame>) -> Games {
        Games { schedule, next: 0, running: BTreeMap::new(), over: BTreeSet::new() }
    }

    /// Game `k` of the schedule.
    #[must_use]
    pub(super) fn scheduled(&self, k: usize) -> ScheduledGame {
        self.schedule[k]
    }

    /// How many games the schedule has.
    #[must_use]
    pub(super) fn len(&self) -> usize {
        self.schedule.len()
    }

    /// How many games are over.
    #[must_use]
    pub(super) fn over_count(&self) -> usize {
        self.over.len()
    }

    #[must_use]
    pub(super) fn is_over(&self, k: usize) -> bool {
        self.over.contains(&k)
    }

    /// Game `k` is over (it is no longer running).
    pub(super) fn mark_over(&mut self, k: usize) {
        self.over.insert(k);
    }

    /// Every game of the schedule is over.
    #[must_use]
    pub(super) fn all_over(&self) -> bool {
        self.over.len() >= self.schedule.len()
    }

    /// Some game from the first not over on may still start.
    #[must_use]
    pub(super) fn any_to_start(&self) -> bool {
        self.next < self.schedule.len()
    }

    /// The games that may start, in schedule order: neither running nor
    /// over and, after the SPRT's verdict (`decided`), only the second
    /// game of a pair already begun, so the pentanomial counts whole
    /// pairs.
    pub(super) fn to_start(&self, decided: bool) -> impl Iterator<Item = usize> + '_ {
        (self.next..self.schedule.len())
            .filter(move |&k| !self.running.contains_key(&k) && !self.is_over(k) && (!decided || self.pair_begun(k)))
    }

    /// Moves the first game not over past the games over.
    pub(super) fn skip_over(&mut self) {
        while self.next < self.schedule.len() && self.is_over(self.next) {
            self.next += 1;
        }
    }

    /// `true` if the other game of game `k`'s pair (games 2j and 2j + 1
    /// share an opening) is running or over.
    #[must_use]
    pub(super) fn pair_begun(&self, k: usize) -> bool {
        let other = k ^ 1;
        other < self.schedule.len() && (self.running.contains_key(&other) || self.is_over(other))
    }

    /// A game still to play after the SPRT's verdict: the second game of
    /// a pair whose first has begun.
    #[must_use]
    pub(super) fn half_pair_waiting(&self) -> bool {
        (self.next..self.schedule.len())
            .any(|k| !self.running.contains_key(&k) && !self.is_over(k) && self.pair_begun(k))
    }
}

impl Director {
    /// Starts every game the schedule, the free clients and the
    /// concurrency allow: the first scheduled game whose players both
    /// have a free client; games are started in schedule order otherwise.
    pub(super) fn pair(&mut self, now: Instant) {
        self.reattach(now);
        while self.games.running.len() < self.event.concurrency as usize && self.games.any_to_start() {
            let decided = self.tally.verdict().is_some();
            let found = self.games.to_start(decided).find_map(|k| {
                let g = self.games.scheduled(k);
                let w = self.clients.free(g.white, now, None)?;
                let b = self.clients.free(g.black, now, Some(w))?;
                Some((k, w, b))
            });
            let Some((k, w, b)) = found else { break };
            self.start(k, w, b, now);
        }
        self.games.skip_over();
    }

    /// Gives the games that miss a player (resumed from the journal, or
    /// a client dropped out) a free client of that player, and brings it
    /// into the game: reset, inform, one execute per move played, and a
    /// respond when it is its turn. The clocks stay stopped until both
    /// sides are there.
    pub(super) fn reattach(&mut self, now: Instant) {
        let missing: Vec<(usize, usize)> = self
            .games
            .running
            .iter()
            .flat_map(|(&k, r)| (0..2).filter(|&s| r.conns[s].is_none()).map(move |s| (k, s)))
            .collect();
        for (k, s) in missing {
            let (player, other) = {
                let r = &self.games.running[&k];
                (if s == 0 { r.sched.white } else { r.sched.black }, r.conns[1 - s])
            };
            let Some(id) = self.clients.free(player, now, other) else { continue };
            if let Some(c) = self.clients.get_mut(id) {
                c.game = Some(k);
            }
            let r = self.games.running.get_mut(&k).expect("running");
            r.conns[s] = Some(id);
            let number = r.sched.number;
            if other.is_none() {
                // Still waiting for the other side, within the same grace.
                if let Some((_, until)) = r.away {
                    r.away = Some((if s == 0 { Color::Black } else { Color::White }, until));
                }
                self.bring_back(k, id, now);
                self.rearm(k);
            } else {
                r.away = None;
                r.left = None;
                self.bring_back(k, id, now);
            }
            self.note(&format!("game {number}: {} is back", self.name_of(id)));
        }
    }

    /// Tells client `id` the game `k` so far; asks the side to move when
    /// both sides are there.
    pub(super) fn bring_back(&mut self, k: usize, id: ConnId, now: Instant) {
        let (tags, start, number, moves, both, started) = {
            let r = &self.games.running[&k];
            let moves: Vec<epd_core::Move> = r.game.moves().iter().map(|m| m.mv).collect();
            let side = r.side_of(id).map_or(0, side_index);
            (
                self.tags(r, "*", side),
                *r.game.start(),
                r.sched.number as u64,
                moves,
                r.conns.iter().all(Option::is_some),
                r.starts_at.is_none(),
            )
        };
        let mut o = Outgoing::new(Command::Reset, &start);
        o.game = Some(number);
        let line = o.to_line();
        self.send(id, line);
        if !started {
            return; // the game's own start (inform, respond) is still to come
        }
        let mut o = Outgoing::new(Command::Inform, &start);
        o.tags = &tags;
        o.game = Some(number);
        let line = o.to_line();
        self.send(id, line);
        // Every move but the last as execute; the last comes with the
        // respond (or as execute when it is the other side's turn).
        let last = self.send_moves(id, number, start, &moves, true);
        let (mover, asked_id) = {
            let r = &self.games.running[&k];
            (r.mover(), r.asked_id)
        };
        if mover != Some(id) {
            // The other side moves: this one learns the last move now.
            if let Some((p, m)) = last {
                let mut o = Outgoing::new(Command::Execute, &p);
                o.sm = Some(m);
                o.game = Some(number);
                let line = o.to_line();
                self.send(id, line);
            }
        }
        // With both sides there, the side to move is asked unless its
        // present connection already was (a respond sent to a connection
        // since gone, or to nobody, counts for nothing).
        if both && asked_id != mover {
            self.ask(k, last, now, None);
        }
    }

    pub(super) fn start(&mut self, k: usize, white: ConnId, black: ConnId, now: Instant) {
        self.write_ahead(&Entry::Start { game: k });
        if self.write_ahead.failed() {
            return;
        }
        let sched = self.games.scheduled(k);
        let (white_tc, black_tc) = (self.event.control(sched.white), self.event.control(sched.black));
        let game = match sched.opening {
            Some(i) => Game::from_opening(&self.openings[i], &white_tc, &black_tc),
            None => Game::with_controls(Position::startpos(), &white_tc, &black_tc),
        };
        let start = *game.start();
        for id in [white, black] {
            if let Some(c) = self.clients.get_mut(id) {
                c.game = Some(k);
            }
            let mut o = Outgoing::new(Command::Reset, &start);
            o.game = Some(sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
        }
        let (white_name, black_name) = (&self.event.players[sched.white].name, &self.event.players[sched.black].name);
        let progress = self
            .event
            .progress
            .then(|| format!("Started game {} of {} ({white_name} vs {black_name})", sched.number, self.games.len()));
        self.note(&format!("game {} starts: {white_name} - {black_name}", sched.number));
        if let Some(line) = progress {
            self.say(line);
        }
        let mut r = Running::new(sched, game, [Some(white), Some(black)]);
        r.starts_at = Some(now + self.event.reset_delay);
        self.games.running.insert(k, r);
        self.rearm(k);
    }

    /// The tags of an `inform` to the player of side `to` (0 White, 1
    /// Black): its `TimeControl` is its own (time odds).
    pub(super) fn tags(&self, r: &Running, result: &str, to: usize) -> Vec<(&'static str, String)> {
        let round = self.pgn_tags(r).round;
        let color = if to == 0 { Color::White } else { Color::Black };
        let mut tags = vec![
            ("Event", self.event.name.clone()),
            ("Site", self.event.site.clone()),
            ("Date", self.date.clone()),
            ("Round", round),
            ("White", self.event.players[r.sched.white].name.clone()),
            ("Black", self.event.players[r.sched.black].name.clone()),
            ("Result", result.to_owned()),
            ("TimeControl", r.game.clock(color).control().to_string()),
        ];
        if self.event.variant.is_chess960() {
            tags.push(("Variant", "Chess960".to_owned()));
        }
        // The opening book's moves, which a player's clock does not count.
        let book = r.game.book_plies();
        if book > 0 {
            tags.push((crate::protocol::BOOK_PLIES, book.to_string()));
        }
        tags
    }

    /// After the reset delay: the tags, the opening book's moves, then
    /// the first respond.
    pub(super) fn begin(&mut self, k: usize, now: Instant) {
        let (tags, conns, start, number, book) = {
            let r = &self.games.running[&k];
            let book: Vec<epd_core::Move> = r.game.moves().iter().map(|m| m.mv).collect();
            let tags = [self.tags(r, "*", 0), self.tags(r, "*", 1)];
            (tags, r.conns, *r.game.start(), r.sched.number as u64, book)
        };
        let mover = self.games.running[&k].mover();
        let mut last = None;
        for (side, id) in conns.into_iter().enumerate() {
            let Some(id) = id else { continue };
            let tags = &tags[side];
            let mut o = Outgoing::new(Command::Inform, &start);
            o.tags = tags;
            o.game = Some(number);
            let line = o.to_line();
            self.send(id, line);
            if let Some(l) = self.send_moves(id, number, start, &book, mover == Some(id)) {
                last = Some(l);
            }
        }
        if let Some(r) = self.games.running.get_mut(&k) {
            r.starts_at = None;
        }
        self.ask(k, last, now, None);
    }

    /// Sends client `id` the moves of game `number` from `start` as
    /// `execute`s, all but the last when it is `to_move` (the last then
    /// comes with its respond, which is returned).
    fn send_moves(
        &mut self,
        id: ConnId,
        number: u64,
        start: Position,
        moves: &[epd_core::Move],
        to_move: bool,
    ) -> Option<(Position, epd_core::Move)> {
        let mut pos = start;
        for (i, &m) in moves.iter().enumerate() {
            if to_move && i + 1 == moves.len() {
                return Some((pos, m));
            }
            let mut o = Outgoing::new(Command::Execute, &pos);
            o.sm = Some(m);
            o.game = Some(number);
            let line = o.to_line();
            self.send(id, line);
            pos.play_unchecked(m);
        }
        None
    }

    /// Sends respond to the side to move: the position before `last` and
    /// `last`, or the position alone; `answering`: the instants the reply
    /// it answers was read and taken up ([`Config::measure`]).
    pub(super) fn ask(
        &mut self,
        k: usize,
        last: Option<(Position, epd_core::Move)>,
        now: Instant,
        answering: Option<(Instant, Instant)>,
    ) {
        let r = &self.games.running[&k];
        let side = r.game.position().turn();
        let id = r.mover();
        let current = *r.game.position();
        let (pos, sm) = match last {
            Some((p, m)) => (p, Some(m)),
            None => (current, None),
        };
        let consumed = |c: Color| r.game.consumed(c);
        let mut o = Outgoing::new(Command::Respond, &pos);
        o.sm = sm;
        o.consumed = Some((consumed(Color::White), consumed(Color::Black)));
        // Clocks are told only where they run (not under `-`).
        let (white, black) = (r.game.clock(Color::White), r.game.clock(Color::Black));
        o.remaining = (white.is_running() && black.is_running()).then(|| (white.remaining(), black.remaining()));
        o.game = Some(r.sched.number as u64);
        o.draw_offer = r.offer == Some(side.other());
        let line = o.to_line();
        if let Some(id) = id {
            self.send_respond(id, line, k, answering);
        }
        if let Some(r) = self.games.running.get_mut(&k) {
            r.asked_at = Some(now);
            r.asked_id = id;
        }
        self.rearm(k);
    }

    /// Takes game `k` back into the schedule, unscored, to be played
    /// again from its start: aborted by the supervisor (`void` none), or
    /// void for `void`'s reason (`host_loss = "void"`). Its players still
    /// there are told to reset. Its number, unless the journal failed.
    pub(super) fn take_back(&mut self, k: usize, void: Option<String>) -> Option<usize> {
        self.write_ahead(&Entry::Abort { game: k, void: void.clone() });
        if self.write_ahead.failed() {
            return None;
        }
        let r = self.games.running.remove(&k)?;
        self.rearm(k);
        let start = *r.game.start();
        // The game goes back to the schedule: pair again.
        self.to_pair = true;
        for id in r.conns.into_iter().flatten() {
            let line = Outgoing::new(Command::Reset, &start).to_line();
            self.send(id, line);
            if let Some(c) = self.clients.get_mut(id) {
                c.game = None;
            }
            self.quiet(id, self.now + self.event.reset_delay);
        }
        if let Some(why) = void {
            self.tally.add_void(r.sched.number, why);
        }
        Some(r.sched.number)
    }

    pub(super) fn finish(&mut self, k: usize, e: Ended) {
        let Some(r) = self.games.running.get(&k) else { return };
        let result = e.result.pgn();
        let tags = [self.tags(r, result, 0), self.tags(r, result, 1)];
        let pgn_tags = self.pgn_tags(r);
        let text = pgn::write(&pgn_tags, &r.game);
        let fault = e.termination.fault();
        let entry = Entry::End {
            game: k,
            white: r.sched.white,
            black: r.sched.black,
            result: result.to_owned(),
            pgn: text,
            fault: fault.map(|(_, f)| f),
        };
        self.write_ahead(&entry);
        if self.write_ahead.failed() {
            return;
        }
        let Entry::End { pgn: text, .. } = entry else { unreachable!("just built") };
        let Some(r) = self.games.running.remove(&k) else { return };
        self.rearm(k);
        let fin = *r.game.position();
        let now = self.now;
        for (side, id) in r.conns.into_iter().enumerate() {
            let Some(id) = id.filter(|&id| self.clients.contains(id)) else { continue };
            let mut o = Outgoing::new(Command::Inform, &fin);
            o.tags = &tags[side];
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            let mut o = Outgoing::new(Command::Conclude, &fin);
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            if let Some(c) = self.clients.get_mut(id) {
                c.game = None;
            }
            self.quiet(id, now + self.event.conclude_delay);
        }
        self.write_ahead.queue(Transmit::Pgn(text));
        self.games.mark_over(k);
        if let Some((side, f)) = fault {
            self.tally.add_fault(if side == Color::White { r.sched.white } else { r.sched.black }, f);
        }
        let decided = self.count(k, (r.sched.white, r.sched.black), e.result);
        self.display.add_game_over(FinishedGame {
            number: r.sched.number,
            white: self.event.players[r.sched.white].name.clone(),
            black: self.event.players[r.sched.black].name.clone(),
            result: result.to_owned(),
            termination: e.termination.pgn_tag().to_owned(),
            reason: e.termination.describe(e.result),
            round: pgn_tags.round.clone(),
            round_name: self.round_name(&r.sched),
            plies: r.game.moves().len(),
        });
        self.note(&format!(
            "game {} over: {} ({}), {} plies",
            r.sched.number,
            result,
            e.termination.describe(e.result),
            r.game.moves().len()
        ));
        if self.event.progress {
            self.say(format!(
                "Finished game {} ({} vs {}): {result} {{{}}}",
                r.sched.number,
                self.event.players[r.sched.white].name,
                self.event.players[r.sched.black].name,
                e.termination.fastchess_words(e.result)
            ));
        }
        // After the game's line, as fastchess prints them: the block at
        // its interval, and once when the SPRT decides (not again for
        // each game of the pairs that finish after: the report at the end
        // has the last one). Over pairs, nothing before a pair
        // is complete: no `0 - 0 - 0` block after game 1. The `Score of`
        // line alone at its own interval, over every game (fastchess's
        // -scoreinterval); where the block is printed too, its first
        // line is that line, as cutechess prints them.
        let every = self.event.rating_interval as usize;
        let over = self.games.over_count();
        let two = self.event.players.len() == 2;
        let trials = match self.tally.counts() {
            crate::sprt::Counts::Pairs(p) => p.pairs(),
            crate::sprt::Counts::Games(g) => g.games(),
        };
        let block = every > 0 && trials > 0 && (over.is_multiple_of(every) || decided);
        if block {
            if let Some(block) = self.results() {
                self.out.push_back(Output::Say(block.trim_end().to_owned()));
            }
        } else if two && self.event.score_interval > 0 && over.is_multiple_of(self.event.score_interval as usize) {
            let names = (&self.event.players[0].name, &self.event.players[1].name);
            let line = crate::sprt::score_line(names.0, names.1, self.tally.games().wdl());
            self.out.push_back(Output::Say(line.trim_end().to_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(n: usize) -> Vec<ScheduledGame> {
        (0..n)
            .map(|k| ScheduledGame { number: k + 1, cycle: 1, white: k % 2, black: 1 - k % 2, opening: None })
            .collect()
    }

    /// Games start in schedule order from the first not over; after the
    /// SPRT's verdict only the second game of a pair begun may start, and
    /// the event waits for it.
    #[test]
    fn games_to_start_pairs_begun_and_games_over() {
        let mut g = Games::new(schedule(5));
        assert_eq!(g.to_start(false).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert_eq!(g.to_start(true).count(), 0, "no pair begun");
        let game = Game::new(Position::startpos(), &"60".parse().unwrap());
        g.running.insert(2, Running::new(g.scheduled(2), game, [Some(1), None]));
        g.mark_over(0);
        assert_eq!(g.to_start(false).collect::<Vec<_>>(), [1, 3, 4]);
        assert_eq!(g.to_start(true).collect::<Vec<_>>(), [1, 3], "the other halves of pairs 0 and 1");
        assert!(g.half_pair_waiting() && !g.pair_begun(4), "game 5 has no partner");
        g.skip_over();
        assert!(g.any_to_start());
        for k in [1, 3, 4] {
            g.mark_over(k);
        }
        g.running.remove(&2);
        assert!(!g.all_over() && g.over_count() == 4);
        g.mark_over(2);
        g.skip_over();
        assert!(g.all_over() && !g.any_to_start() && !g.half_pair_waiting());
        // A side's connection: which side it plays, and the mover's.
        let r = Running::new(g.scheduled(1), Game::new(Position::startpos(), &"60".parse().unwrap()), [None, Some(9)]);
        assert_eq!((r.side_of(9), r.side_of(1), r.mover()), (Some(Color::Black), None, None));
    }
}
