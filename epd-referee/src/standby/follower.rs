//! The standby's decisions, apart from I/O: what each line from the
//! primary asks of it, when the primary has been silent too long, and
//! whether there is anything to take over. The runtime's standby carries
//! them out over TCP and a journal file; the simulation drives the same
//! machine with a virtual clock.
//!
//! The follower never reads a clock: every call is given `now`.

use std::time::{Duration, Instant};

use super::wire::{parse_from_primary, FromPrimary};

/// How long a standby with nothing copied yet waits on a connection
/// before it tries again.
pub const UNSYNCED_PATIENCE: Duration = Duration::from_secs(5);

/// What a line from the primary asks of the standby.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing (an entry joined the batch).
    Nothing,
    /// The primary's journal starts again: replace the copy by an empty
    /// journal.
    Restart,
    /// Append these entries to the copy and sync them, then answer the
    /// primary [`ack_line`](super::wire::ack_line)`(seq)` and call [`Follower::committed`].
    Commit {
        /// The batch's number.
        seq: u64,
        /// The entries (JSON, no newline).
        entries: Vec<Vec<u8>>,
    },
    /// A heartbeat: the primary is alive (clients that came to the
    /// standby meanwhile are sent back to it).
    Alive,
    /// Stop following on this connection.
    End(Ended),
}

/// Why following ended on a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The event is over (`E`).
    Over,
    /// The primary's supervisor stopped it (`Q`).
    Quit,
    /// The primary refused this standby, or said something else: the
    /// standby gives up.
    Refused(String),
    /// The connection broke or went silent, or sent a line it should not
    /// have: follow again, or take over if the primary stays silent.
    Lost(String),
}

/// The standby's state across connections to the primary.
#[derive(Debug)]
pub struct Follower {
    heartbeat: Duration,
    /// A batch has been synced: there is an event to take over.
    synced: bool,
    /// When the primary was last heard.
    heard: Instant,
    /// The entries since the last commit.
    batch: Vec<Vec<u8>>,
    /// This connection's copy has started (`R` seen).
    copying: bool,
    /// This standby was not run for longer than its own patience (its
    /// process stopped, its host suspended): the primary may have gone on
    /// without it, so its copy may lack records clients heard. It takes
    /// nothing over until a fresh copy is committed.
    stale: bool,
    /// A fresh copy (an `R`) started after the copy went stale: its
    /// first commit makes the copy current again.
    refreshing: bool,
}

impl Follower {
    /// A standby that takes over after `heartbeat` of silence; started at
    /// `now`.
    #[must_use]
    pub fn new(heartbeat: Duration, now: Instant) -> Follower {
        Follower {
            heartbeat,
            synced: false,
            heard: now,
            batch: Vec::new(),
            copying: false,
            stale: false,
            refreshing: false,
        }
    }

    /// A new connection to the primary: its copy starts with its `R`.
    pub fn connected(&mut self) {
        self.batch.clear();
        self.copying = false;
    }

    /// A line from the primary (without its newline), read at `now`.
    pub fn on_line(&mut self, now: Instant, line: &[u8]) -> Step {
        // A line read well after the moment this standby should have
        // given the primary up: it was not run meanwhile.
        if self.synced && self.missed(now) {
            self.stale = true;
            self.refreshing = false;
        }
        let step = match parse_from_primary(line) {
            Ok(FromPrimary::Heartbeat) => Step::Alive,
            Ok(FromPrimary::Restart) => {
                self.batch.clear();
                self.copying = true;
                self.refreshing = self.stale;
                Step::Restart
            }
            Ok(FromPrimary::Entry(_) | FromPrimary::Commit(_)) if !self.copying => {
                Step::End(Ended::Lost("a batch before the journal's start".into()))
            }
            Ok(FromPrimary::Entry(e)) => {
                self.batch.push(e.to_vec());
                Step::Nothing
            }
            Ok(FromPrimary::Commit(seq)) => Step::Commit { seq, entries: std::mem::take(&mut self.batch) },
            Ok(FromPrimary::Over) => Step::End(Ended::Over),
            Ok(FromPrimary::Quit) => Step::End(Ended::Quit),
            Ok(FromPrimary::Dropped) => {
                self.stale = true;
                self.refreshing = false;
                Step::End(Ended::Lost("the primary goes on without this standby: following again".into()))
            }
            Err(why) => Step::End(Ended::Refused(why)),
        };
        if !matches!(step, Step::End(Ended::Refused(_) | Ended::Lost(_))) {
            self.heard = now;
        }
        step
    }

    /// The batch of [`Step::Commit`] is synced and acknowledged.
    pub fn committed(&mut self) {
        self.synced = true;
        if std::mem::take(&mut self.refreshing) {
            self.stale = false;
        }
    }

    /// `now` is a heartbeat past the deadline this standby should have
    /// acted at: it was not run in between.
    fn missed(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.heard) > self.heartbeat * 2
    }

    /// The copy may lack what the primary did while this standby was not
    /// run ([`Follower::takes_over`] says no until a fresh copy).
    #[must_use]
    pub fn stale(&self) -> bool {
        self.stale
    }

    /// Something has been copied and synced: there is an event to take
    /// over.
    #[must_use]
    pub fn synced(&self) -> bool {
        self.synced
    }

    /// The last moment to hear from the primary on this connection
    /// before it counts as silent: a heartbeat after the last line once
    /// a current copy is synced, else [`UNSYNCED_PATIENCE`] from `now`
    /// (there is nothing to take over: only patience).
    #[must_use]
    pub fn deadline(&self, now: Instant) -> Instant {
        if self.synced && !self.stale {
            self.heard + self.heartbeat
        } else {
            now + UNSYNCED_PATIENCE
        }
    }

    /// Whether to take over at `now`, the connection having ended
    /// (`refused`: the primary's address refuses connections, so its
    /// process is gone; else it broke or went silent): only with a
    /// synced copy, and on a silence only when the primary has not been
    /// heard for a heartbeat. Never with a copy that may be stale: asked
    /// a heartbeat or more after the deadline, or after the standby saw
    /// it was not run for that long, it leaves the event to the primary's
    /// own journal (`--resume`) rather than lose what clients heard.
    #[must_use]
    pub fn takes_over(&self, now: Instant, refused: bool) -> bool {
        let silent = now.saturating_duration_since(self.heard) >= self.heartbeat;
        self.synced && !self.stale && !self.missed(now) && (refused || silent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_batched_committed_and_taken_over_after_silence() {
        let t0 = Instant::now();
        let beat = Duration::from_secs(2);
        let mut f = Follower::new(beat, t0);
        f.connected();
        // Nothing synced: no take-over, and patience is fixed.
        assert!(!f.takes_over(t0 + Duration::from_secs(60), true));
        assert_eq!(f.deadline(t0), t0 + UNSYNCED_PATIENCE);
        assert_eq!(f.on_line(t0, b"J {}"), Step::End(Ended::Lost("a batch before the journal's start".into())));
        assert_eq!(f.on_line(t0, b"R"), Step::Restart);
        assert_eq!(f.on_line(t0, b"J {\"a\":1}"), Step::Nothing);
        assert_eq!(f.on_line(t0, b"J {\"b\":2}"), Step::Nothing);
        let t1 = t0 + Duration::from_millis(10);
        assert_eq!(
            f.on_line(t1, b"C 0"),
            Step::Commit { seq: 0, entries: vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()] }
        );
        assert!(!f.synced());
        f.committed();
        assert!(f.synced());
        assert_eq!(f.deadline(t1 + Duration::from_secs(1)), t1 + beat);
        let t2 = t1 + Duration::from_millis(1500);
        assert_eq!(f.on_line(t2, b"H"), Step::Alive);
        // Silent for less than a heartbeat: follow again.
        assert!(!f.takes_over(t2 + beat - Duration::from_millis(1), false));
        assert!(f.takes_over(t2 + beat, false));
        // A refusing address: at once.
        assert!(f.takes_over(t2, true));
        // Asked long after its deadline (it was not run): not with a copy
        // that may be stale.
        assert!(!f.takes_over(t2 + beat * 3, false));
        assert!(!f.takes_over(t2 + beat * 3, true));
        // A line that is not the protocol does not count as hearing.
        assert!(matches!(f.on_line(t2 + beat, b"F no"), Step::End(Ended::Refused(_))));
        assert!(f.takes_over(t2 + beat, false));
        // A new connection's copy starts with its own R.
        f.connected();
        assert!(matches!(f.on_line(t2, b"C 1"), Step::End(Ended::Lost(_))));
        assert_eq!(f.on_line(t2, b"E"), Step::End(Ended::Over));
        assert_eq!(f.on_line(t2, b"Q"), Step::End(Ended::Quit));
        // Dropped by the primary: stale until a fresh copy, and patient
        // meanwhile (its deadline no longer counts from the last line).
        assert!(matches!(f.on_line(t2, b"X"), Step::End(Ended::Lost(_))));
        assert!(f.stale() && !f.takes_over(t2, true));
        assert_eq!(f.deadline(t2 + beat * 5), t2 + beat * 5 + UNSYNCED_PATIENCE);
    }

    #[test]
    fn a_standby_that_was_not_run_takes_over_only_after_a_fresh_copy() {
        let t0 = Instant::now();
        let beat = Duration::from_secs(2);
        let mut f = Follower::new(beat, t0);
        f.connected();
        assert_eq!(f.on_line(t0, b"R"), Step::Restart);
        assert!(matches!(f.on_line(t0, b"C 0"), Step::Commit { seq: 0, .. }));
        f.committed();
        // Frozen for ten seconds: the lines buffered meanwhile arrive,
        // one of them a commit of the old connection.
        let thaw = t0 + Duration::from_secs(10);
        assert_eq!(f.on_line(thaw, b"H"), Step::Alive);
        assert!(f.stale());
        assert!(matches!(f.on_line(thaw, b"C 1"), Step::Commit { seq: 1, .. }));
        f.committed();
        assert!(f.stale(), "a commit of the old copy does not make it current");
        // Silent or refused afterwards: no take-over.
        assert!(!f.takes_over(thaw + beat, false));
        assert!(!f.takes_over(thaw, true));
        // A fresh copy on a new connection makes it current again.
        f.connected();
        assert_eq!(f.on_line(thaw, b"R"), Step::Restart);
        assert!(matches!(f.on_line(thaw, b"C 0"), Step::Commit { seq: 0, .. }));
        f.committed();
        assert!(!f.stale());
        assert!(f.takes_over(thaw + beat, false));
    }
}
