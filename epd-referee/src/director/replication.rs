//! The primary's side of the hot standby ([`crate::standby`]): the
//! standby's hello, its copy of the journal, every turn's entries as a
//! batch, heartbeats, acknowledgements, and the epochs that keep two
//! referees from both acting (a probe of a lost standby, a yield asked by
//! one that took over).

use super::*;
use crate::standby::wire::{Answer, Hello};

impl Director {
    /// Sends a turn's entries to the standby, as one batch.
    pub(super) fn replicate(&mut self, staged: &[Vec<u8>]) {
        let Some(f) = self.follower.as_mut() else { return };
        f.seq += 1;
        let msg = standby::batch(staged, f.seq);
        self.tell_follower(msg);
    }

    /// Sends a line to the standby at once (not logged, not held).
    pub(super) fn tell_follower(&mut self, msg: Vec<u8>) {
        let Some(f) = &self.follower else { return };
        self.out.push_back(Output::Send { id: f.id, line: msg, answering: None });
    }

    /// A line from the standby: it acknowledges a batch, or it is dropped.
    pub(super) fn on_follower_line(&mut self, id: ConnId, line: &[u8]) {
        match standby::parse_ack(line) {
            Some(n) if self.follower.as_ref().is_some_and(|f| n <= f.seq) => {
                self.acked = Some(self.acked.map_or(n, |a| a.max(n)));
                self.release();
            }
            _ => self.drop_conn(id, "a standby line that is not an acknowledgement"),
        }
    }

    /// The standby's connection is gone (or it stopped acknowledging): it
    /// may be taking over. Its answer to a probe decides whether the held
    /// records go out (it is a standby still, or gone) or this referee
    /// steps down (it took over).
    pub(super) fn follower_lost(&mut self) {
        let Some(f) = self.follower.take() else { return };
        self.acked = None;
        self.timers.set(Due::Heartbeat, None);
        self.timers.set(Due::Ack, None);
        self.note(&format!("the standby at {} is gone; asking whether it took over", f.listen));
        self.watch_standby(f.listen, Duration::ZERO);
    }

    /// Holds every record and asks the standby at `listen` for its epoch,
    /// again and again for `patience`: its answer (it took over: step
    /// down), a standby that follows again (its acknowledgements release
    /// the records), or no answer for that long (it is gone, or would
    /// answer: go on without it) decides.
    pub(super) fn watch_standby(&mut self, listen: String, patience: Duration) {
        self.probing = true;
        for h in &mut self.held {
            if h.remote.is_some() {
                h.remote = Some(u64::MAX);
            }
        }
        self.out.push_back(Output::Probe { addr: listen, patience });
    }

    /// The answer to a probe.
    pub(super) fn on_probed(&mut self, answer: Option<u64>) {
        if !std::mem::take(&mut self.probing) {
            return;
        }
        match answer {
            // A standby that follows answers no probe: an answer at this
            // epoch or a newer one is a take-over (ties go to the one that
            // took over, as with yield).
            Some(n) if n >= self.epoch => self.step_down(format!(
                "the standby took the event over (epoch {n}; this one's is {}): stepping down",
                self.epoch
            )),
            // It follows again: its acknowledgements release.
            _ if self.follower.is_some() => {}
            // This referee was stopped long enough for the standby to
            // take over, and the standby's address does not answer: it
            // may have taken over and run the event to its end. Going on
            // would play games already played; stopping costs only a
            // `--resume` if it did not.
            _ if self.suspended.is_some() => {
                let gap = self.suspended.unwrap_or_default();
                self.step_down(format!(
                    "this referee was stopped for {:.1} s, long enough for its standby to take over, and the \
                     standby does not answer: it may have run the event on; stepping down (resume with --resume \
                     if it did not)",
                    gap.as_secs_f64()
                ));
            }
            _ => {
                self.note("the standby did not take over; going on without it");
                for h in &mut self.held {
                    h.remote = None;
                }
                self.release();
            }
        }
    }

    /// Takes the time of an input or deadline: a gap since the last one
    /// as long as the standby's patience means this referee was not run
    /// (stopped, suspended) and the standby may have taken over. A
    /// referee with a standby is woken at least every quarter of that
    /// (its heartbeats), so a gap that long is no idle time.
    pub(super) fn advance(&mut self, now: Instant) {
        let gap = now.saturating_duration_since(self.now);
        self.now = self.now.max(now);
        if self.follower.as_ref().is_some_and(|f| gap >= f.every * 4) {
            self.suspended = Some(self.suspended.map_or(gap, |g| g.max(gap)));
            // Nothing goes out before the standby says whether it took
            // over: its answer to a probe decides.
            self.note(&format!("this referee was not run for {:.1} s: asking the standby", gap.as_secs_f64()));
            self.follower_lost();
        }
    }

    /// Leaves the event to a referee with a newer epoch: nothing more is
    /// written or sent.
    pub(super) fn step_down(&mut self, why: String) {
        self.note(&why);
        let held: usize = self.held.iter().map(|h| h.batch.len()).sum::<usize>() + self.outbox.len();
        if held > 0 {
            self.note(&format!("{held} records held for the standby are not sent"));
        }
        self.held.clear();
        self.outbox.clear();
        self.stepped_down = Some(why);
        self.quit = true;
    }

    /// A line from a standby, or from a referee that took over.
    pub(super) fn on_hello(&mut self, id: ConnId, line: &[u8]) {
        let hello = standby::parse_hello(line, self.event.supervisor_token.as_deref());
        let peer = self.conns.get(&id).map(|c| c.peer.clone()).unwrap_or_default();
        self.timers.set(Due::SignOn(id), None);
        match hello {
            Err(why) => {
                self.note(&format!("#{id} from {peer}: refused: {why}"));
                self.outbox.push(Transmit::Send {
                    id,
                    line: Answer::Refused(why).to_line(),
                    answering: None,
                    who: None,
                    asks: None,
                });
                self.drop_conn(id, "refused standby");
            }
            Ok(Hello::Probe) => {
                let line = Answer::Epoch(self.epoch).to_line();
                self.outbox.push(Transmit::Send { id, line, answering: None, who: None, asks: None });
                self.drop_conn(id, "probed");
            }
            Ok(Hello::Yield { epoch }) => {
                if self.epoch <= epoch {
                    // The answer goes out now: nothing else of this turn
                    // will.
                    self.conns.remove(&id);
                    self.out.push_back(Output::Send { id, line: Answer::Yielded.to_line(), answering: None });
                    self.out.push_back(Output::Close { id });
                    self.step_down(format!(
                        "the referee at {peer} took the event over (epoch {epoch}; this one's is {}): stepping down",
                        self.epoch
                    ));
                } else {
                    let line = Answer::Epoch(self.epoch).to_line();
                    self.outbox.push(Transmit::Send { id, line, answering: None, who: None, asks: None });
                    self.drop_conn(id, "refused yield");
                }
            }
            Ok(Hello::Follow { listen, heartbeat }) => {
                if let Some(old) = self.follower.take() {
                    self.acked = None;
                    self.drop_conn(old.id, "replaced by a new standby");
                }
                // A standby listening on every interface is reached at
                // the address it came from.
                let listen = standby::reachable(&listen, &peer);
                let every = heartbeat / 4;
                self.follower = Some(Follower { id, seq: 0, every, listen: listen.clone() });
                // A standby that follows this referee now has not taken
                // it over.
                self.suspended = None;
                self.acked = None;
                // The journal so far, then this turn's entries as batch 1.
                self.out.push_back(Output::CopyJournal { id });
                // Whatever was held waits for this one's copy now.
                for h in &mut self.held {
                    h.remote = Some(0);
                    h.since = h.since.max(self.now);
                }
                self.arm_ack();
                self.timers.set(Due::Heartbeat, Some(self.now + every));
                self.note(&format!("#{id} from {peer}: a standby follows the journal; it would take over at {listen}"));
                let heartbeat_ms = u64::try_from(heartbeat.as_millis()).unwrap_or(u64::MAX);
                self.write_ahead(&Entry::Standby { listen, heartbeat_ms });
            }
        }
    }
}
