//! Games: pairing, starting, asking the side to move, bringing a
//! returning player back into its game, and the end of a game.

use super::*;

impl Director {
    /// Starts every game the schedule, the free clients and the
    /// concurrency allow.
    pub(super) fn pair(&mut self, now: Instant) {
        self.reattach(now);
        while self.running.len() < self.event.concurrency as usize && self.next_game < self.schedule.len() {
            // The first scheduled game whose players both have a free
            // client; games are started in schedule order otherwise.
            // After the SPRT's verdict only the second game of a pair
            // already begun starts, so the pentanomial counts whole pairs.
            let mut started = false;
            for k in self.next_game..self.schedule.len() {
                if self.running.contains_key(&k) || self.is_done(k) {
                    continue;
                }
                if self.verdict.is_some() && !self.pair_begun(k) {
                    continue;
                }
                let g = self.schedule[k];
                let free = |p: usize, except: Option<ConnId>| {
                    self.conns
                        .iter()
                        .filter(|(&id, c)| {
                            c.player == Some(p) && c.game.is_none() && c.quiet_until <= now && Some(id) != except
                        })
                        .map(|(&id, _)| id)
                        .min()
                };
                let Some(w) = free(g.white, None) else { continue };
                let Some(b) = free(g.black, Some(w)) else { continue };
                self.start(k, w, b, now);
                started = true;
                break;
            }
            if !started {
                break;
            }
        }
        while self.next_game < self.schedule.len() && self.is_done(self.next_game) {
            self.next_game += 1;
        }
    }

    /// Gives the games that miss a player (resumed from the journal, or
    /// a client dropped out) a free client of that player, and brings it
    /// into the game: reset, inform, one execute per move played, and a
    /// respond when it is its turn. The clocks stay stopped until both
    /// sides are there.
    pub(super) fn reattach(&mut self, now: Instant) {
        let missing: Vec<(usize, usize)> = self
            .running
            .iter()
            .flat_map(|(&k, r)| (0..2).filter(|&s| r.conns[s] == NOBODY).map(move |s| (k, s)))
            .collect();
        for (k, s) in missing {
            let (player, other) = {
                let r = &self.running[&k];
                (if s == 0 { r.sched.white } else { r.sched.black }, r.conns[1 - s])
            };
            let Some(id) = self
                .conns
                .iter()
                .filter(|(&id, c)| c.player == Some(player) && c.game.is_none() && c.quiet_until <= now && id != other)
                .map(|(&id, _)| id)
                .min()
            else {
                continue;
            };
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = Some(k);
            }
            let r = self.running.get_mut(&k).expect("running");
            r.conns[s] = id;
            let number = r.sched.number;
            if other == NOBODY {
                // Still waiting for the other side, within the same grace.
                if let Some((_, until)) = r.away {
                    r.away = Some((if s == 0 { Color::Black } else { Color::White }, until));
                }
                self.bring_back(k, id, now);
                self.rearm(k);
            } else {
                r.away = None;
                self.bring_back(k, id, now);
            }
            self.note(&format!("game {number}: {} is back", self.name_of(id)));
        }
    }

    /// Tells client `id` the game `k` so far; asks the side to move when
    /// both sides are there.
    pub(super) fn bring_back(&mut self, k: usize, id: ConnId, now: Instant) {
        let (tags, start, number, moves, both, started) = {
            let r = &self.running[&k];
            let moves: Vec<epd_core::Move> = r.game.moves().iter().map(|m| m.mv).collect();
            let side = r.conns.iter().position(|&c| c == id).unwrap_or(0);
            (
                self.tags(r, "*", side),
                *r.game.start(),
                r.sched.number as u64,
                moves,
                !r.conns.contains(&NOBODY),
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
        let mut pos = start;
        let mut last = None;
        for (i, &m) in moves.iter().enumerate() {
            if i + 1 == moves.len() {
                last = Some((pos, m));
                break;
            }
            let mut o = Outgoing::new(Command::Execute, &pos);
            o.sm = Some(m);
            o.game = Some(number);
            let line = o.to_line();
            self.send(id, line);
            pos.play_unchecked(m);
        }
        let (mover, asked_id) = {
            let r = &self.running[&k];
            (r.conns[side_index(r.game.position().turn())], r.asked_id)
        };
        if mover != id {
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
            self.ask(k, last, now);
        }
    }

    pub(super) fn is_done(&self, k: usize) -> bool {
        self.done.contains(&k)
    }

    /// `true` if the other game of game `k`'s pair (games 2j and 2j + 1
    /// share an opening) is running or over.
    pub(super) fn pair_begun(&self, k: usize) -> bool {
        let other = k ^ 1;
        other < self.schedule.len() && (self.running.contains_key(&other) || self.is_done(other))
    }

    /// A game still to play after the SPRT's verdict: the second game of
    /// a pair whose first has begun.
    pub(super) fn half_pair_waiting(&self) -> bool {
        (self.next_game..self.schedule.len())
            .any(|k| !self.running.contains_key(&k) && !self.is_done(k) && self.pair_begun(k))
    }

    pub(super) fn start(&mut self, k: usize, white: ConnId, black: ConnId, now: Instant) {
        self.write_ahead(&Entry::Start { game: k });
        if self.failure.is_some() {
            return;
        }
        let sched = self.schedule[k];
        let start = sched.opening.map_or_else(Position::startpos, |i| self.openings[i]);
        let game = Game::with_controls(start, &self.event.control(sched.white), &self.event.control(sched.black));
        for id in [white, black] {
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = Some(k);
            }
            let mut o = Outgoing::new(Command::Reset, &start);
            o.game = Some(sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
        }
        self.note(&format!(
            "game {} starts: {} - {}",
            sched.number, self.event.players[sched.white].name, self.event.players[sched.black].name
        ));
        self.running.insert(
            k,
            Running {
                sched,
                game,
                conns: [white, black],
                starts_at: Some(now + self.event.reset_delay),
                asked_at: None,
                asked_id: NOBODY,
                offer: None,
                away: None,
                paused: None,
                held: None,
            },
        );
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
        tags
    }

    /// After the reset delay: the tags, then the first respond.
    pub(super) fn begin(&mut self, k: usize, now: Instant) {
        let (tags, conns, start) = {
            let r = &self.running[&k];
            ([self.tags(r, "*", 0), self.tags(r, "*", 1)], r.conns, *r.game.position())
        };
        for (side, id) in conns.into_iter().enumerate() {
            let tags = &tags[side];
            let mut o = Outgoing::new(Command::Inform, &start);
            o.tags = tags;
            o.game = Some(self.running[&k].sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
        }
        if let Some(r) = self.running.get_mut(&k) {
            r.starts_at = None;
        }
        self.ask(k, None, now);
    }

    /// Sends respond to the side to move: the position before `last` and
    /// `last`, or the position alone.
    pub(super) fn ask(&mut self, k: usize, last: Option<(Position, epd_core::Move)>, now: Instant) {
        let r = &self.running[&k];
        let side = r.game.position().turn();
        let id = r.conns[side_index(side)];
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
        self.asking = Some(k);
        self.send(id, line);
        self.asking = None;
        if let Some(r) = self.running.get_mut(&k) {
            r.asked_at = Some(now);
            r.asked_id = id;
        }
        self.rearm(k);
    }

    pub(super) fn finish(&mut self, k: usize, e: Ended) {
        let Some(r) = self.running.get(&k) else { return };
        let result = e.result.pgn();
        let tags = [self.tags(r, result, 0), self.tags(r, result, 1)];
        let pgn_tags = self.pgn_tags(r);
        let text = pgn::write(&pgn_tags, &r.game);
        let entry =
            Entry::End { game: k, white: r.sched.white, black: r.sched.black, result: result.to_owned(), pgn: text };
        self.write_ahead(&entry);
        if self.failure.is_some() {
            return;
        }
        let Entry::End { pgn: text, .. } = entry else { unreachable!("just built") };
        let Some(r) = self.running.remove(&k) else { return };
        self.rearm(k);
        let fin = *r.game.position();
        let now = self.now;
        for (side, id) in r.conns.into_iter().enumerate() {
            if !self.conns.contains_key(&id) {
                continue;
            }
            let mut o = Outgoing::new(Command::Inform, &fin);
            o.tags = &tags[side];
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            let mut o = Outgoing::new(Command::Conclude, &fin);
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = None;
            }
            self.quiet(id, now + self.event.conclude_delay);
        }
        self.outbox.push(Transmit::Pgn(text));
        self.standings.add(r.sched.white, r.sched.black, e.result);
        self.finished += 1;
        self.done.insert(k);
        let undecided = self.verdict.is_none();
        self.count(k, r.sched.white, e.result);
        // The block at its interval, and once when the SPRT decides (not
        // again for each game of the pairs that finish after: the report
        // at the end has the last one). Nothing before a pair is complete
        // (the counts are of pairs): no `0 - 0 - 0` block after game 1.
        let decided = undecided && self.verdict.is_some();
        let every = self.event.rating_interval as usize;
        if every > 0 && self.penta.pairs() > 0 && (self.finished.is_multiple_of(every) || decided) {
            if let Some(block) = self.results() {
                self.out.push_back(Output::Say(block.trim_end().to_owned()));
            }
        }
        self.ended.push(FinishedGame {
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
    }
}
