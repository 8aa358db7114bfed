//! The clients part: the connections the director knows, what each
//! signed on as and plays, and the ones dropped whose close has yet to go
//! out. A free client of a player (signed on as it, in no game, its quiet
//! time over) is found here, in one place, for pairing and for bringing a
//! returning player back into its game.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::{ConnId, Reach};

/// A connected client.
#[derive(Debug)]
pub(super) struct Conn {
    pub(super) peer: String,
    /// The player it signed on as.
    pub(super) player: Option<usize>,
    /// The game it plays.
    pub(super) game: Option<usize>,
    /// Not to be sent anything before (reset and conclude delays).
    pub(super) quiet_until: Instant,
    /// The heartbeat it asked for: a blank line when nothing else went
    /// out for that long.
    pub(super) heartbeat: Option<Duration>,
    /// Faults it may still run up, and when that was last counted.
    faults: (u32, Instant),
}

/// The connections, in the order of their ids.
#[derive(Debug, Default)]
pub(super) struct Clients {
    conns: BTreeMap<ConnId, Conn>,
    /// Connections dropped whose close has not gone out yet (their last
    /// records still do).
    closing: BTreeSet<ConnId>,
    /// The connections of players the referee runs itself, connected or
    /// closing: their records need not wait for the journal.
    local: BTreeSet<ConnId>,
}

impl Clients {
    /// A client connected from `peer` at `now`.
    pub(super) fn connect(&mut self, id: ConnId, peer: String, reach: Reach, now: Instant) {
        let faults = (super::FAULT_BURST, now);
        self.conns.insert(id, Conn { peer, player: None, game: None, quiet_until: now, heartbeat: None, faults });
        if reach == Reach::Local {
            self.local.insert(id);
        }
    }

    /// Charges a fault to `id` at `now`: whether it is still within its
    /// allowance ([`super::FAULT_BURST`] at once, one more every
    /// [`super::FAULT_REFILL`]). An unknown connection is within it.
    pub(super) fn charge_fault(&mut self, id: ConnId, now: Instant) -> bool {
        let Some(c) = self.conns.get_mut(&id) else { return true };
        let (left, since) = c.faults;
        let back = now.saturating_duration_since(since).as_nanos() / super::FAULT_REFILL.as_nanos().max(1);
        let back = u32::try_from(back).unwrap_or(u32::MAX);
        let left = left.saturating_add(back).min(super::FAULT_BURST);
        // The allowance's clock moves on by the faults given back only.
        let since = if left == super::FAULT_BURST { now } else { since + super::FAULT_REFILL * back };
        if left == 0 {
            c.faults = (0, since);
            return false;
        }
        c.faults = (left - 1, since);
        true
    }

    /// Whether `id` (connected or closing) is a player the referee runs
    /// itself, which dies with it.
    #[must_use]
    pub(super) fn is_local(&self, id: ConnId) -> bool {
        self.local.contains(&id)
    }

    #[must_use]
    pub(super) fn get(&self, id: ConnId) -> Option<&Conn> {
        self.conns.get(&id)
    }

    pub(super) fn get_mut(&mut self, id: ConnId) -> Option<&mut Conn> {
        self.conns.get_mut(&id)
    }

    #[must_use]
    pub(super) fn contains(&self, id: ConnId) -> bool {
        self.conns.contains_key(&id)
    }

    /// Whether records for `id` still go out: it is connected, or dropped
    /// with its close still to go.
    #[must_use]
    pub(super) fn reachable(&self, id: ConnId) -> bool {
        self.conns.contains_key(&id) || self.closing.contains(&id)
    }

    /// Drops a connection: its last records still go out, then its close.
    pub(super) fn drop_conn(&mut self, id: ConnId) -> Option<Conn> {
        let c = self.conns.remove(&id)?;
        self.closing.insert(id);
        Some(c)
    }

    /// Forgets a connection whose close goes out at once, not behind the
    /// journal.
    pub(super) fn forget(&mut self, id: ConnId) -> Option<Conn> {
        self.local.remove(&id);
        self.conns.remove(&id)
    }

    /// A dropped connection's close went out.
    pub(super) fn closed(&mut self, id: ConnId) {
        self.closing.remove(&id);
        self.local.remove(&id);
    }

    /// The free client of `player` with the lowest id, other than
    /// `except`: signed on as it, in no game, its quiet time over at `now`.
    #[must_use]
    pub(super) fn free(&self, player: usize, now: Instant, except: Option<ConnId>) -> Option<ConnId> {
        self.conns
            .iter()
            .filter(|(&id, c)| {
                c.player == Some(player) && c.game.is_none() && c.quiet_until <= now && Some(id) != except
            })
            .map(|(&id, _)| id)
            .next()
    }

    /// The connections signed on as `player`, oldest first.
    #[must_use]
    pub(super) fn signed_on(&self, player: usize) -> Vec<ConnId> {
        self.conns.iter().filter(|(_, c)| c.player == Some(player)).map(|(&id, _)| id).collect()
    }

    /// Every connection, in the order of their ids.
    pub(super) fn iter(&self) -> impl Iterator<Item = (ConnId, &Conn)> {
        self.conns.iter().map(|(&id, c)| (id, c))
    }

    /// Every connection's id, in order.
    #[must_use]
    pub(super) fn ids(&self) -> Vec<ConnId> {
        self.conns.keys().copied().collect()
    }

    #[must_use]
    pub(super) fn len(&self) -> usize {
        self.conns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A free client is signed on as the player, in no game, past its
    /// quiet time, and not the one excepted; the lowest id wins. A
    /// dropped client is reachable until its close goes out.
    #[test]
    fn free_clients_and_closing_ones() {
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(1);
        let mut c = Clients::default();
        for id in [4, 2, 3, 5] {
            c.connect(id, format!("peer {id}"), if id == 4 { Reach::Local } else { Reach::Remote }, t0);
        }
        assert_eq!(c.free(0, t0, None), None, "nobody signed on");
        for id in [2, 3, 4] {
            c.get_mut(id).unwrap().player = Some(0);
        }
        c.get_mut(5).unwrap().player = Some(1);
        assert_eq!(c.free(0, t0, None), Some(2));
        assert_eq!(c.free(0, t0, Some(2)), Some(3));
        c.get_mut(3).unwrap().game = Some(7);
        c.get_mut(2).unwrap().quiet_until = later;
        assert_eq!(c.free(0, t0, None), Some(4), "2 is quiet, 3 plays");
        assert_eq!(c.free(0, later, None), Some(2));
        assert_eq!(c.free(1, t0, Some(5)), None);

        assert!(c.drop_conn(4).is_some() && c.drop_conn(4).is_none());
        assert!(!c.contains(4) && c.reachable(4), "its last records still go");
        assert!(c.is_local(4) && !c.is_local(2), "a local player stays local until its close goes out");
        c.closed(4);
        assert!(!c.reachable(4) && !c.is_local(4));
        assert!(c.forget(5).is_some() && !c.reachable(5), "forgotten: closed at once");
        assert!(c.charge_fault(5, t0), "an unknown connection is not closed for faults");
        assert_eq!((c.ids(), c.len()), (vec![2, 3], 2));
    }

    /// A burst of faults is allowed up to FAULT_BURST, then the
    /// connection is past its allowance; the allowance comes back one
    /// fault every FAULT_REFILL, never above the burst.
    #[test]
    fn faults_are_allowed_in_bursts_and_come_back_slowly() {
        use super::super::{FAULT_BURST, FAULT_REFILL};
        let t0 = Instant::now();
        let mut c = Clients::default();
        c.connect(1, "p".into(), Reach::Remote, t0);
        for i in 0..FAULT_BURST {
            assert!(c.charge_fault(1, t0), "fault {i} of the burst");
        }
        assert!(!c.charge_fault(1, t0), "one more: past the allowance");
        // Two refills later: two faults more, not three.
        let t2 = t0 + FAULT_REFILL * 2 + FAULT_REFILL / 2;
        assert!(c.charge_fault(1, t2) && c.charge_fault(1, t2));
        assert!(!c.charge_fault(1, t2));
        // A long quiet time gives back the whole burst, no more.
        let later = t2 + FAULT_REFILL * 1000;
        for _ in 0..FAULT_BURST {
            assert!(c.charge_fault(1, later));
        }
        assert!(!c.charge_fault(1, later));
        // One fault every refill is kept up forever.
        let mut t = later;
        for _ in 0..100 {
            t += FAULT_REFILL;
            assert!(c.charge_fault(1, t));
        }
    }
}
