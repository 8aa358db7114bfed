//! The primary's side of the hot standby ([`crate::standby`]): the
//! replication part of the director (this run's epoch, the standby that
//! follows the journal, its acknowledgements, a probe of a lost one, a
//! step-down), and the director's handling of the standby's hello, its
//! copy of the journal, every step's entries as a batch, heartbeats,
//! acknowledgements, and the epochs that keep two referees from both
//! acting (a probe of a lost standby, a yield asked by one that took
//! over).

use super::*;
use crate::standby::wire::{Answer, Hello};

/// A hot standby following the journal.
#[derive(Debug)]
struct Follower {
    id: ConnId,
    /// The last batch of entries sent.
    seq: u64,
    /// How often it hears a heartbeat.
    every: Duration,
    /// Where it would take over.
    listen: String,
}

/// The replication part: who else holds the journal, and whether this
/// referee may still act.
#[derive(Debug)]
pub(super) struct Replication {
    /// This run's epoch: one more than the journal's last.
    epoch: u64,
    /// The hot standby following the journal, if one is.
    follower: Option<Follower>,
    /// The last batch the present standby acknowledged.
    acked: Option<u64>,
    /// The standby was lost: asking it whether it took over (records
    /// stay held until the answer).
    probing: bool,
    /// The longest time this referee was not run (its process stopped,
    /// its host suspended) while a standby followed, if long enough for
    /// the standby to take over.
    suspended: Option<Duration>,
    /// A newer referee took the event over: why this one stopped.
    stepped_down: Option<String>,
}

impl Replication {
    pub(super) fn new(epoch: u64) -> Replication {
        Replication { epoch, follower: None, acked: None, probing: false, suspended: None, stepped_down: None }
    }

    #[must_use]
    pub(super) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The standby's connection, if one follows.
    #[must_use]
    pub(super) fn follower(&self) -> Option<ConnId> {
        self.follower.as_ref().map(|f| f.id)
    }

    #[must_use]
    pub(super) fn is_follower(&self, id: ConnId) -> bool {
        self.follower() == Some(id)
    }

    /// How often the standby hears a heartbeat, if one follows.
    #[must_use]
    pub(super) fn heartbeat_every(&self) -> Option<Duration> {
        self.follower.as_ref().map(|f| f.every)
    }

    /// Numbers the next batch for the standby, if one follows.
    pub(super) fn next_batch(&mut self) -> Option<(ConnId, u64)> {
        let f = self.follower.as_mut()?;
        f.seq += 1;
        Some((f.id, f.seq))
    }

    /// The last batch sent to the standby, if one follows.
    #[must_use]
    pub(super) fn last_batch(&self) -> Option<u64> {
        self.follower.as_ref().map(|f| f.seq)
    }

    /// The standby acknowledges batch `n`: whether that is an
    /// acknowledgement of a batch sent.
    pub(super) fn acknowledge(&mut self, n: u64) -> bool {
        if self.follower.as_ref().is_none_or(|f| n > f.seq) {
            return false;
        }
        self.acked = Some(self.acked.map_or(n, |a| a.max(n)));
        true
    }

    /// The last batch the present standby acknowledged.
    #[must_use]
    pub(super) fn acked(&self) -> Option<u64> {
        self.acked
    }

    /// A new standby follows on `id`, heartbeats every `every`, would take
    /// over at `listen`; the one it replaces, if any, is returned. It has
    /// not taken this referee over.
    pub(super) fn follow(&mut self, id: ConnId, every: Duration, listen: String) -> Option<ConnId> {
        let old = self.follower.take().map(|f| f.id);
        self.follower = Some(Follower { id, seq: 0, every, listen });
        self.suspended = None;
        self.acked = None;
        old
    }

    /// The standby is lost (its connection gone, or silent): where it
    /// would take over, if one followed.
    pub(super) fn lose(&mut self) -> Option<String> {
        let f = self.follower.take()?;
        self.acked = None;
        Some(f.listen)
    }

    /// The event is over: the standby, if one follows, is let go.
    pub(super) fn release_follower(&mut self) -> Option<ConnId> {
        self.follower.take().map(|f| f.id)
    }

    /// A probe of the standby goes out.
    pub(super) fn start_probe(&mut self) {
        self.probing = true;
    }

    /// The probe's answer came: whether one was out.
    pub(super) fn end_probe(&mut self) -> bool {
        std::mem::take(&mut self.probing)
    }

    #[must_use]
    pub(super) fn probing(&self) -> bool {
        self.probing
    }

    /// This referee was not run for `gap`: if a standby follows and the
    /// gap is four of its heartbeats (its patience) or more, it may have
    /// taken over: the gap is kept, and `true` returned.
    pub(super) fn was_suspended(&mut self, gap: Duration) -> bool {
        if self.follower.as_ref().is_none_or(|f| gap < f.every * 4) {
            return false;
        }
        self.suspended = Some(self.suspended.map_or(gap, |g| g.max(gap)));
        true
    }

    /// The longest gap kept by [`Replication::was_suspended`].
    #[must_use]
    pub(super) fn suspended(&self) -> Option<Duration> {
        self.suspended
    }

    /// A newer referee took the event over.
    pub(super) fn step_down(&mut self, why: String) {
        self.stepped_down = Some(why);
    }

    #[must_use]
    pub(super) fn stepped_down(&self) -> bool {
        self.stepped_down.is_some()
    }

    /// Why this referee stepped down, taken for the event's end.
    pub(super) fn take_stepped_down(&mut self) -> Option<String> {
        self.stepped_down.take()
    }
}

impl Director {
    /// Sends a step's entries to the standby, as one batch.
    pub(super) fn replicate(&mut self, staged: &[Vec<u8>]) {
        let Some((id, seq)) = self.replication.next_batch() else { return };
        let line = standby::batch(staged, seq);
        self.out.push_back(Output::Send { id, line, answering: None });
    }

    /// Sends a line to the standby at once (not logged, not held).
    pub(super) fn tell_follower(&mut self, line: &FromPrimary<'_>) {
        let Some(id) = self.replication.follower() else { return };
        self.out.push_back(Output::Send { id, line: line.to_line(), answering: None });
    }

    /// A line from the standby: it acknowledges a batch, or it is dropped.
    pub(super) fn on_follower_line(&mut self, id: ConnId, line: &[u8]) {
        if standby::parse_ack(line).is_some_and(|n| self.replication.acknowledge(n)) {
            self.release();
        } else {
            self.drop_conn(id, "a standby line that is not an acknowledgement");
        }
    }

    /// The standby's connection is gone (or it stopped acknowledging): it
    /// may be taking over. Its answer to a probe decides whether the held
    /// records go out (it is a standby still, or gone) or this referee
    /// steps down (it took over).
    pub(super) fn follower_lost(&mut self) {
        let Some(listen) = self.replication.lose() else { return };
        self.timers.set(Due::Heartbeat, None);
        self.timers.set(Due::Ack, None);
        self.note(&format!("the standby at {listen} is gone; asking whether it took over"));
        self.watch_standby(listen, Duration::ZERO);
    }

    /// Holds every record and asks the standby at `listen` for its epoch,
    /// again and again for `patience`: its answer (it took over: step
    /// down), a standby that follows again (its acknowledgements release
    /// the records), or no answer for that long (it is gone, or would
    /// answer: go on without it) decides.
    pub(super) fn watch_standby(&mut self, listen: String, patience: Duration) {
        self.replication.start_probe();
        self.write_ahead.await_probe();
        self.out.push_back(Output::Probe { addr: listen, patience });
    }

    /// The answer to a probe.
    pub(super) fn on_probed(&mut self, answer: Option<u64>) {
        if !self.replication.end_probe() {
            return;
        }
        let epoch = self.replication.epoch();
        match answer {
            // A standby that follows answers no probe: an answer at this
            // epoch or a newer one is a take-over (ties go to the one that
            // took over, as with yield).
            Some(n) if n >= epoch => {
                self.step_down(format!(
                    "the standby took the event over (epoch {n}; this one's is {epoch}): stepping down"
                ));
            }
            // It follows again: its acknowledgements release.
            _ if self.replication.follower().is_some() => {}
            // This referee was stopped long enough for the standby to
            // take over, and the standby's address does not answer: it
            // may have taken over and run the event to its end. Going on
            // would play games already played; stopping costs only a
            // `--resume` if it did not.
            _ if self.replication.suspended().is_some() => {
                let gap = self.replication.suspended().unwrap_or_default();
                self.step_down(format!(
                    "this referee was stopped for {:.1} s, long enough for its standby to take over, and the \
                     standby does not answer: it may have run the event on; stepping down (resume with --resume \
                     if it did not)",
                    gap.as_secs_f64()
                ));
            }
            _ => {
                self.note("the standby did not take over; going on without it");
                self.write_ahead.await_nothing();
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
        if self.replication.was_suspended(gap) {
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
        let held = self.write_ahead.drop_records();
        if held > 0 {
            self.note(&format!("{held} records held for the standby are not sent"));
        }
        self.replication.step_down(why);
        self.phase.stop();
    }

    /// A line from a standby, or from a referee that took over.
    pub(super) fn on_hello(&mut self, id: ConnId, line: &[u8]) {
        let hello = standby::parse_hello(line, self.event.supervisor_token.as_deref());
        let peer = self.clients.get(id).map(|c| c.peer.clone()).unwrap_or_default();
        let epoch = self.replication.epoch();
        self.timers.set(Due::SignOn(id), None);
        match hello {
            Err(why) => {
                self.note(&format!("#{id} from {peer}: refused: {why}"));
                self.write_ahead.queue(Transmit::bare(id, Answer::Refused(why).to_line()));
                self.drop_conn(id, "refused standby");
            }
            Ok(Hello::Probe) => {
                self.write_ahead.queue(Transmit::bare(id, Answer::Epoch(epoch).to_line()));
                self.drop_conn(id, "probed");
            }
            Ok(Hello::Yield { epoch: theirs }) => {
                if epoch <= theirs {
                    // The answer goes out now: nothing else of this step
                    // will.
                    self.clients.forget(id);
                    self.out.push_back(Output::Send { id, line: Answer::Yielded.to_line(), answering: None });
                    self.out.push_back(Output::Close { id });
                    self.step_down(format!(
                        "the referee at {peer} took the event over (epoch {theirs}; this one's is {epoch}): stepping down"
                    ));
                } else {
                    self.write_ahead.queue(Transmit::bare(id, Answer::Epoch(epoch).to_line()));
                    self.drop_conn(id, "refused yield");
                }
            }
            Ok(Hello::Follow { listen, heartbeat }) => {
                // A standby listening on every interface is reached at
                // the address it came from.
                let listen = standby::reachable(&listen, &peer);
                let every = heartbeat / 4;
                if let Some(old) = self.replication.follow(id, every, listen.clone()) {
                    self.drop_conn(old, "replaced by a new standby");
                }
                // The journal so far, then this step's entries as batch 1.
                self.out.push_back(Output::CopyJournal { id });
                // Whatever was held waits for this one's copy now.
                self.write_ahead.await_copy(self.now);
                self.arm_ack();
                self.timers.set(Due::Heartbeat, Some(self.now + every));
                self.note(&format!("#{id} from {peer}: a standby follows the journal; it would take over at {listen}"));
                let heartbeat_ms = u64::try_from(heartbeat.as_millis()).unwrap_or(u64::MAX);
                self.write_ahead(&Entry::Standby { listen, heartbeat_ms });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Batches are numbered per standby from 1; only an acknowledgement
    /// of a batch sent counts; a lost standby is forgotten with its
    /// acknowledgements; a gap of four heartbeats is a suspension.
    #[test]
    fn a_standby_follows_acknowledges_and_is_lost() {
        let beat = Duration::from_millis(500);
        let mut r = Replication::new(3);
        assert_eq!((r.next_batch(), r.acknowledge(0), r.was_suspended(beat * 100)), (None, false, false));
        assert_eq!(r.follow(7, beat, "10.0.0.2:9".into()), None);
        assert_eq!((r.next_batch(), r.next_batch(), r.last_batch()), (Some((7, 1)), Some((7, 2)), Some(2)));
        assert!(!r.acknowledge(3), "batch 3 was never sent");
        assert!(r.acknowledge(2) && r.acknowledge(1));
        assert_eq!(r.acked(), Some(2), "acknowledgements only go forward");
        assert!(!r.was_suspended(beat * 4 - Duration::from_millis(1)));
        assert!(r.was_suspended(beat * 4) && r.was_suspended(beat * 5) && !r.was_suspended(beat));
        assert_eq!(r.suspended(), Some(beat * 5));
        // A new standby replaces the old: numbered afresh, not suspended.
        assert_eq!(r.follow(8, beat, "10.0.0.3:9".into()), Some(7));
        assert_eq!((r.acked(), r.suspended(), r.next_batch()), (None, None, Some((8, 1))));
        assert!(r.acknowledge(1));
        assert_eq!(r.lose().as_deref(), Some("10.0.0.3:9"));
        assert_eq!((r.follower(), r.acked(), r.lose()), (None, None, None));
        // A probe is answered once; a step-down is kept for the end.
        r.start_probe();
        assert!(r.probing() && r.end_probe() && !r.end_probe());
        r.step_down("newer epoch".into());
        assert!(r.stepped_down());
        assert_eq!((r.take_stepped_down().as_deref(), r.epoch()), (Some("newer epoch"), 3));
    }
}
