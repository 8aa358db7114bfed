//! The clients part: the connections the director knows, what each
//! signed on as and plays, and the ones dropped whose close has yet to go
//! out. A free client of a player (signed on as it, in no game, its quiet
//! time over) is found here, in one place, for pairing and for bringing a
//! returning player back into its game.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::ConnId;

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
}

/// The connections, in the order of their ids.
#[derive(Debug, Default)]
pub(super) struct Clients {
    conns: BTreeMap<ConnId, Conn>,
    /// Connections dropped whose close has not gone out yet (their last
    /// records still do).
    closing: BTreeSet<ConnId>,
}

impl Clients {
    /// A client connected from `peer` at `now`.
    pub(super) fn connect(&mut self, id: ConnId, peer: String, now: Instant) {
        self.conns.insert(id, Conn { peer, player: None, game: None, quiet_until: now, heartbeat: None });
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
        self.conns.remove(&id)
    }

    /// A dropped connection's close went out.
    pub(super) fn closed(&mut self, id: ConnId) {
        self.closing.remove(&id);
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
            c.connect(id, format!("peer {id}"), t0);
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
        c.closed(4);
        assert!(!c.reachable(4));
        assert!(c.forget(5).is_some() && !c.reachable(5), "forgotten: closed at once");
        assert_eq!((c.ids(), c.len()), (vec![2, 3], 2));
    }
}
