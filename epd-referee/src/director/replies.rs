//! What clients send: sign-on, sign-off, faults and replies (moves,
//! claims, offers, resignations), each checked against the game.

use super::*;

impl Director {
    pub(super) fn on_line(&mut self, id: ConnId, line: &[u8], at: Instant) {
        let Some(conn) = self.clients.get(id) else { return };
        let game = conn.game;
        // A blank line (a client's keep-alive, a stray newline) says
        // nothing and costs nothing.
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let req = match parse_request(line) {
            Ok(r) => r,
            Err(e) => {
                let pos = game
                    .and_then(|k| self.games.running.get(&k))
                    .map_or_else(Position::startpos, |r| *r.game.position());
                self.fault(id, &pos, &e.0);
                self.misbehaved(id, &e.0, at);
                return;
            }
        };
        match req {
            Request::SignOn { name, token, heartbeat_ms } => self.sign_on(id, &name, token.as_deref(), heartbeat_ms),
            Request::SignOff => {
                self.note(&format!("{} signs off", self.name_of(id)));
                self.drop_conn(id, "signed off");
            }
            Request::Fault(why) => {
                self.note(&format!("{} reports a fault: {why}", self.name_of(id)));
            }
            Request::Reply(reply) => self.on_reply(id, reply, at),
        }
    }

    pub(super) fn sign_on(&mut self, id: ConnId, name: &str, token: Option<&str>, heartbeat_ms: Option<u64>) {
        let pos = Position::startpos();
        if self.clients.get(id).is_some_and(|c| c.player.is_some()) {
            self.fault(id, &pos, "already signed on");
            return;
        }
        let Some(p) = self.event.players.iter().position(|pl| pl.name == name) else {
            self.fault(id, &pos, &format!("no player {name:?} in this event"));
            self.drop_conn(id, "unknown player");
            return;
        };
        if let Some(want) = &self.event.players[p].token {
            if token != Some(want.as_str()) {
                self.fault(id, &pos, &format!("sign_on as {name:?} needs its token"));
                self.drop_conn(id, "wrong token");
                return;
            }
        }
        // A player has at most `instances` connections. One more, with
        // the player's token, replaces the oldest (a program restarted
        // while its old connection is still open here): that one is
        // closed and the new one takes over its game at once. Without a
        // token nothing proves it is the same player: refused.
        let live = self.clients.signed_on(p);
        let instances = self.event.players[p].instances() as usize;
        if live.len() >= instances {
            if self.event.players[p].token.is_none() {
                let why = format!(
                    "{name:?} has {} connection(s) signed on already (instances = {instances}); a player with a token \
                     may replace its oldest",
                    live.len()
                );
                self.fault(id, &pos, &why);
                self.drop_conn(id, "over its instances");
                return;
            }
            let old = live[0];
            self.note(&format!(
                "{} is replaced by #{id}, a newer sign-on of {name} ({} of {instances} connections)",
                self.name_of(old),
                live.len()
            ));
            self.fault_record(old, &pos, &format!("{} of {name:?}", crate::protocol::REPLACED));
            self.drop_conn(old, crate::protocol::REPLACED);
        }
        let heartbeat = heartbeat_ms.map(Duration::from_millis);
        if let Some(c) = self.clients.get_mut(id) {
            c.player = Some(p);
            c.heartbeat = heartbeat;
        }
        self.timers.set(Due::SignOn(id), None);
        self.timers.set(Due::Beat(id), heartbeat.map(|h| self.now + h));
        self.to_pair = true;
        let peer = self.clients.get(id).map(|c| c.peer.to_string()).unwrap_or_default();
        self.note(&format!("#{id} signs on as {name} from {peer}"));
    }

    /// A record that broke the protocol from `id`: in a game where it is
    /// its turn, the illegal-move policy decides.
    pub(super) fn misbehaved(&mut self, id: ConnId, why: &str, _at: Instant) {
        self.breach(id, why, false);
    }

    /// `misbehaved` for a move the game refused: the forfeit is an
    /// illegal move's (PGN Termination "illegal move").
    fn illegal(&mut self, id: ConnId, why: &str) {
        self.breach(id, why, true);
    }

    fn breach(&mut self, id: ConnId, why: &str, illegal_move: bool) {
        let Some(k) = self.clients.get(id).and_then(|c| c.game) else { return };
        let Some(r) = self.games.running.get_mut(&k) else { return };
        let side = r.game.position().turn();
        if r.mover() == Some(id) && r.asked_at.is_some() && self.event.illegal_move == Policy::Forfeit {
            let e = if illegal_move { r.game.illegal_move(side, why) } else { r.game.forfeit(side, why) };
            self.finish(k, e);
        }
    }

    pub(super) fn on_reply(&mut self, id: ConnId, reply: crate::protocol::Reply, at: Instant) {
        let taken = self.now;
        let Some(k) = self.clients.get(id).and_then(|c| c.game) else {
            let pos = Position::startpos();
            self.fault(id, &pos, "a reply with no game in progress");
            return;
        };
        let lag = self.event.lag;
        let (side, mine, asked, current, number) = {
            let Some(r) = self.games.running.get(&k) else { return };
            let side = r.game.position().turn();
            (side, r.mover() == Some(id), r.asked_at, *r.game.position(), r.sched.number)
        };
        // A reply answers a request: one that names another game (a late
        // reply for a game over, say) or another position answers none
        // of this game's, and is refused without touching any game.
        if let Some(g) = reply.game.filter(|&g| g != number as u64) {
            let why = format!("a reply for game {g}; this connection plays game {number}");
            self.fault(id, &current, &why);
            return;
        }
        let same = reply.position.to_setup().board == current.to_setup().board
            && reply.position.turn() == current.turn()
            && reply.position.castling_rights() == current.castling_rights()
            && reply.position.legal_ep_square() == current.legal_ep_square()
            && reply.counters.0.is_none_or(|h| h == current.halfmoves())
            && reply.counters.1.is_none_or(|f| f == current.fullmoves());
        if !same {
            let why = format!("the reply's position is not the game's ({})", current.fen());
            self.fault(id, &current, &why);
            return;
        }
        if mine && self.games.running[&k].flag_held.is_some() {
            // Its host is alive: the flag that fell stands.
            self.flag(k);
            return;
        }
        let opponent_answering_offer = {
            let r = &self.games.running[&k];
            r.offer.is_some() && r.offer != Some(side) && mine
        };
        if !mine || asked.is_none() {
            // Out of turn: refused; the game is not affected unless the
            // event forfeits protocol breaches.
            self.fault(id, &current, "a reply out of turn");
            if self.event.illegal_move == Policy::Forfeit
                && self.games.running.get(&k).is_some_and(|r| r.starts_at.is_none())
            {
                let color = if self.games.running[&k].conns[0] == Some(id) { Color::White } else { Color::Black };
                let e = self.games.running.get_mut(&k).expect("running").game.forfeit(color, "a reply out of turn");
                self.finish(k, e);
            }
            return;
        }
        // A pause stops the clock: time after it is not charged.
        let stop = self.games.running.get(&k).and_then(|r| r.paused).map_or(at, |p| p.min(at));
        let used = stop.saturating_duration_since(asked.unwrap_or(at)).saturating_sub(lag);
        let r = self.games.running.get_mut(&k).expect("running");
        if reply.resign {
            let e = r.game.resign(side);
            self.finish(k, e);
            return;
        }
        if reply.draw_accept && opponent_answering_offer {
            let e = r.game.agree_draw();
            self.finish(k, e);
            return;
        }
        // Any other answer lapses an offer made to this side.
        if r.offer == Some(side.other()) {
            r.offer = None;
        }
        if reply.draw_claim {
            let mv = reply.mv.map(|m| (m, used));
            for kind in [DrawClaim::Threefold, DrawClaim::FiftyMoves] {
                if let Ok(e) = r.game.claim_draw(side, kind, mv) {
                    if mv.is_some() {
                        r.game.set_last_eval(reply.eval.clone());
                    }
                    // The move that came with the claim is the game's too:
                    // journalled like any other, before the end.
                    if let Some((m, used)) = mv {
                        let entry = Entry::Move {
                            game: k,
                            uci: current.uci(m),
                            ns: u64::try_from(used.as_nanos()).unwrap_or(u64::MAX),
                            offer: false,
                            eval: reply.eval.clone().map(|e| crate::protocol::Eval { pv: Vec::new(), ..e }),
                        };
                        self.write_ahead(&entry);
                    }
                    self.finish(k, e);
                    return;
                }
            }
            let why = "a draw claim that does not hold (neither threefold repetition nor 50 moves)".to_owned();
            self.fault(id, &current, &why);
            if self.event.false_claim == Policy::Forfeit {
                let e = self.games.running.get_mut(&k).expect("running").game.forfeit(side, why);
                self.finish(k, e);
                return;
            }
        }
        let Some(mv) = reply.mv else {
            if !reply.draw_claim {
                let why = "a reply with no move, no claim and no resignation";
                self.fault(id, &current, why);
                self.misbehaved(id, why, at);
            }
            return;
        };
        let r = self.games.running.get_mut(&k).expect("running");
        let before = *r.game.position();
        let plies = r.game.moves().len();
        let played = r.game.play(mv, used);
        // A move that came after the flag fell is not played: the game's
        // end says so, not a move.
        if played.is_ok() && r.game.moves().len() > plies {
            r.game.set_last_eval(reply.eval.clone());
            let entry = Entry::Move {
                game: k,
                uci: before.uci(mv),
                ns: u64::try_from(used.as_nanos()).unwrap_or(u64::MAX),
                offer: reply.draw_offer,
                eval: reply.eval.clone().map(|e| crate::protocol::Eval { pv: Vec::new(), ..e }),
            };
            self.write_ahead(&entry);
            if self.write_ahead.failed() {
                return;
            }
        }
        // The engines' scores may end the game (the event's adjudication).
        let played = match played {
            Ok(None) => Ok(self.adjudication(k)),
            other => other,
        };
        let r = self.games.running.get_mut(&k).expect("running");
        match played {
            Ok(Some(e)) => self.finish(k, e),
            Ok(None) => {
                if reply.draw_offer {
                    r.offer = Some(side);
                }
                if r.paused.is_some() {
                    r.asked_at = None;
                    r.played_in_pause = Some((before, mv));
                    let n = r.sched.number;
                    self.rearm(k);
                    self.note(&format!("game {n}: {} played during the pause", before.san(mv)));
                    return;
                }
                let answering = self.measure.then_some((at, taken));
                self.ask(k, Some((before, mv)), taken, answering);
            }
            Err(why) => {
                self.fault(id, &current, &why);
                self.illegal(id, &why);
            }
        }
    }
}
