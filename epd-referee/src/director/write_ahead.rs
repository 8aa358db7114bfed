//! The write-ahead part: a step's journal entries and the records that
//! wait behind them. Entries are staged as the step decides; at its end
//! they go to the journal as one append (group commit) and the step's
//! records are held until that append is durable and, with a hot
//! standby, until the standby holds it too ([`Awaits`]). Held steps go
//! out oldest first, so no record overtakes one decided before it.
//! (Records to the players the referee runs itself are not held: the
//! director sends them at once, see `Director::commit`.)

use std::collections::VecDeque;
use std::time::Instant;

use super::ConnId;

/// What a step holds back until its entries are durable.
#[derive(Debug)]
pub(super) enum Transmit {
    /// A record, and the client's name for the log (none: a line of the
    /// standby protocol, or a heartbeat, not logged); `asks`: a respond
    /// in that game, whose clock starts when it goes out.
    Send { id: ConnId, line: Vec<u8>, answering: Option<(Instant, Instant)>, who: Option<String>, asks: Option<usize> },
    /// A connection closed after its last records.
    Close { id: ConnId },
    /// A finished game for the PGN file.
    Pgn(String),
}

impl Transmit {
    /// A line that is not a client's record (the standby protocol's, a
    /// heartbeat): not logged, starts no clock.
    pub(super) fn bare(id: ConnId, line: Vec<u8>) -> Transmit {
        Transmit::Send { id, line, answering: None, who: None, asks: None }
    }

    /// The connection it goes to (none: a game for the PGN file).
    #[must_use]
    pub(super) fn conn(&self) -> Option<ConnId> {
        match self {
            Transmit::Send { id, .. } | Transmit::Close { id } => Some(*id),
            Transmit::Pgn(_) => None,
        }
    }
}

/// What a held step waits for from the standby, besides its own append
/// being durable here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Awaits {
    /// Nothing: no standby follows (or the event is over).
    Nothing,
    /// The standby's acknowledgement of this batch (or a later one).
    Ack(u64),
    /// A standby that has just come: its first acknowledgement, of its
    /// copy of the journal or of a later batch.
    Copy,
    /// The answer to a probe of a lost standby: no acknowledgement
    /// releases it.
    Probe,
}

impl Awaits {
    /// Whether the standby's acknowledgements so far (`acked`: the last
    /// batch the present standby acknowledged) meet this.
    fn met(self, acked: Option<u64>) -> bool {
        match self {
            Awaits::Nothing => true,
            Awaits::Ack(n) => acked.is_some_and(|a| a >= n),
            Awaits::Copy => acked.is_some(),
            Awaits::Probe => false,
        }
    }
}

/// A step's records, sent once the journal holds its entries (append
/// `append` synced) and the standby has what `standby` says.
#[derive(Debug)]
struct Held {
    append: u64,
    standby: Awaits,
    since: Instant,
    records: Vec<Transmit>,
}

/// The journal's side of the director: staged entries, the step's
/// records, the steps held, the appends asked for and made durable.
#[derive(Debug, Default)]
pub(super) struct WriteAhead {
    /// This step's journal entries, appended together at its end.
    staged: Vec<Vec<u8>>,
    /// This step's records and closes, sent once its entries are durable.
    outbox: Vec<Transmit>,
    /// Steps' records held until they are durable, oldest first.
    held: VecDeque<Held>,
    /// The last append asked for.
    appended: u64,
    /// The last append asked to be synced at once (records wait for it);
    /// the ones after it may wait for their sync.
    urgent: u64,
    /// The last append reported durable.
    synced: u64,
    /// The journal could not be written: the event stops with this.
    failure: Option<String>,
    /// The deliberate defect: records go out before their append is
    /// durable.
    #[cfg(feature = "sim-defects")]
    pub(super) send_before_sync: bool,
}

impl WriteAhead {
    /// Stages a journal entry for the end of the step.
    pub(super) fn stage(&mut self, entry: Vec<u8>) {
        self.staged.push(entry);
    }

    /// Queues a record (or a close, a game for the PGN) of this step.
    pub(super) fn queue(&mut self, t: Transmit) {
        self.outbox.push(t);
    }

    /// Ends the step: its staged entries and its records.
    pub(super) fn take_step(&mut self) -> (Vec<Vec<u8>>, Vec<Transmit>) {
        (std::mem::take(&mut self.staged), std::mem::take(&mut self.outbox))
    }

    /// Numbers an append of the step's entries; `urgent`: records wait
    /// for it, so it is to be synced at once.
    pub(super) fn append(&mut self, urgent: bool) -> u64 {
        self.appended += 1;
        if urgent {
            self.urgent = self.appended;
        }
        self.appended
    }

    /// Whether the last append may still wait for its sync: not durable
    /// yet, and not asked to be synced at once. Records held behind it
    /// need an append that is.
    #[must_use]
    pub(super) fn lazy(&self) -> bool {
        self.appended > self.synced.max(self.urgent)
    }

    /// Holds a step's records behind the last append and `standby`.
    pub(super) fn hold(&mut self, records: Vec<Transmit>, standby: Awaits, now: Instant) {
        #[cfg(feature = "sim-defects")]
        let append = if self.send_before_sync { 0 } else { self.appended };
        #[cfg(not(feature = "sim-defects"))]
        let append = self.appended;
        self.held.push_back(Held { append, standby, since: now, records });
    }

    /// Append `seq`, and every one before it, is durable.
    pub(super) fn synced(&mut self, seq: u64) {
        self.synced = self.synced.max(seq);
    }

    /// Takes out the records of the held steps, oldest first, that are
    /// durable here and have what they await of the standby (`acked`:
    /// the last batch the present standby acknowledged).
    pub(super) fn release(&mut self, acked: Option<u64>) -> Vec<Transmit> {
        let mut out = Vec::new();
        while let Some(h) = self.held.front() {
            if h.append > self.synced || !h.standby.met(acked) {
                break;
            }
            let records = self.held.pop_front().expect("a front").records;
            // One step released (the usual case) costs no copy.
            if out.is_empty() {
                out = records;
            } else {
                out.extend(records);
            }
        }
        out
    }

    /// When the oldest step that waits for the standby was decided.
    #[must_use]
    pub(super) fn oldest_awaiting_standby(&self) -> Option<Instant> {
        self.held.iter().find(|h| h.standby != Awaits::Nothing).map(|h| h.since)
    }

    /// The standby was lost: every step that waited for it waits for the
    /// probe's answer instead.
    pub(super) fn await_probe(&mut self) {
        for h in &mut self.held {
            if h.standby != Awaits::Nothing {
                h.standby = Awaits::Probe;
            }
        }
    }

    /// A new standby follows: every held step waits for its copy, and
    /// its patience starts no earlier than `now`.
    pub(super) fn await_copy(&mut self, now: Instant) {
        for h in &mut self.held {
            h.standby = Awaits::Copy;
            h.since = h.since.max(now);
        }
    }

    /// No standby is waited for any more (it did not take over, or the
    /// event is over): held steps wait only for their appends.
    pub(super) fn await_nothing(&mut self) {
        for h in &mut self.held {
            h.standby = Awaits::Nothing;
        }
    }

    /// Drops every held and queued record (the event stops); how many
    /// there were.
    pub(super) fn drop_records(&mut self) -> usize {
        let n = self.held.iter().map(|h| h.records.len()).sum::<usize>() + self.outbox.len();
        self.held.clear();
        self.outbox.clear();
        n
    }

    /// Drops the held steps (the journal failed: nothing more goes out).
    pub(super) fn drop_held(&mut self) {
        self.held.clear();
    }

    /// Whether any step is held.
    #[must_use]
    pub(super) fn holds_any(&self) -> bool {
        !self.held.is_empty()
    }

    /// How many steps are held.
    #[must_use]
    pub(super) fn held_steps(&self) -> usize {
        self.held.len()
    }

    /// The journal could not be written: the first failure is kept.
    pub(super) fn fail(&mut self, msg: String) {
        self.failure.get_or_insert(msg);
        self.held.clear();
    }

    /// Whether the journal failed.
    #[must_use]
    pub(super) fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// The journal's failure, taken for the event's end.
    pub(super) fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn names(records: Vec<Transmit>) -> Vec<String> {
        records
            .into_iter()
            .map(|t| match t {
                Transmit::Pgn(s) => s,
                Transmit::Send { line, .. } => String::from_utf8(line).unwrap(),
                Transmit::Close { id } => format!("close {id}"),
            })
            .collect()
    }

    /// A step's records wait for its append, and for what the standby
    /// must have; held steps go out in order, never one before an older.
    #[test]
    fn records_wait_for_their_append_and_the_standby_in_order() {
        let t0 = Instant::now();
        let mut w = WriteAhead::default();
        // Step 1: an entry and a record, no standby.
        w.stage(b"{1}".to_vec());
        w.queue(Transmit::Pgn("one".into()));
        let (staged, records) = w.take_step();
        assert_eq!((staged.len(), w.append(true)), (1, 1));
        assert!(!w.lazy(), "asked to be synced at once");
        w.hold(records, Awaits::Nothing, t0);
        // Step 2: no entry, a record behind the standby's batch 4.
        w.queue(Transmit::bare(7, b"two".to_vec()));
        let (staged, records) = w.take_step();
        assert!(staged.is_empty());
        w.hold(records, Awaits::Ack(4), t0 + Duration::from_millis(5));
        assert!(names(w.release(Some(9))).is_empty(), "append 1 is not durable yet");
        w.synced(1);
        assert_eq!(names(w.release(Some(3))), ["one"], "step 2 waits for batch 4");
        assert_eq!(w.oldest_awaiting_standby(), Some(t0 + Duration::from_millis(5)));
        assert_eq!(names(w.release(Some(4))), ["two"]);
        assert!(!w.holds_any());

        // An append nothing waits for may wait for its sync; records
        // held behind it need one that does not.
        assert_eq!(w.append(false), 2);
        assert!(w.lazy());
        w.synced(2);
        assert!(!w.lazy(), "durable");
        w.append(false);
        w.append(true);
        assert!(!w.lazy(), "a later append asked at once covers it");
        w.synced(4);

        // A lost standby: only the steps that waited for it wait for the
        // probe, which no acknowledgement meets.
        w.queue(Transmit::Close { id: 7 });
        let (_, records) = w.take_step();
        w.hold(records, Awaits::Ack(5), t0);
        w.await_probe();
        assert!(w.release(Some(u64::MAX - 1)).is_empty(), "an acknowledgement does not answer a probe");
        w.await_nothing();
        assert_eq!(names(w.release(None)), ["close 7"]);

        // A new standby: everything held waits for its first
        // acknowledgement, whatever its number.
        w.queue(Transmit::Pgn("three".into()));
        let (_, records) = w.take_step();
        w.hold(records, Awaits::Nothing, t0);
        w.await_copy(t0 + Duration::from_secs(1));
        assert_eq!(w.oldest_awaiting_standby(), Some(t0 + Duration::from_secs(1)));
        assert!(w.release(None).is_empty());
        assert_eq!(names(w.release(Some(0))), ["three"]);

        // A failure keeps the first reason and drops what is held.
        w.queue(Transmit::Pgn("four".into()));
        let (_, records) = w.take_step();
        w.hold(records, Awaits::Nothing, t0);
        w.fail("disk full".into());
        w.fail("later".into());
        assert!(w.failed() && !w.holds_any());
        assert_eq!(w.take_failure().as_deref(), Some("disk full"));
    }
}
