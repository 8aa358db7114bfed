//! The clients part: the connections the director knows, what each
//! signed on as and plays, and the ones dropped whose close has yet to go
//! out. A free client of a player (signed on as it, in no game, its quiet
//! time over) is found here, in one place, for pairing and for bringing a
//! returning player back into its game. Connections that have not
//! signed on are bounded here too: per address and in all, the oldest
//! go first ([`Clients::over_the_caps`]), and what they cost the log is
//! an [`Allowance`] of notes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::{ConnId, Reach};

/// A token bucket: `burst` at once, then one more every `refill`, never
/// above the burst. Faults per connection and the log's notes about
/// connections that have not signed on are counted by one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Allowance {
    left: u32,
    /// When the allowance was last counted.
    since: Instant,
    burst: u32,
    refill: Duration,
}

impl Allowance {
    /// A full allowance at `now`.
    #[must_use]
    pub(super) fn new(burst: u32, refill: Duration, now: Instant) -> Allowance {
        Allowance { left: burst, since: now, burst, refill }
    }

    /// Takes one at `now`: false when none is left.
    pub(super) fn take(&mut self, now: Instant) -> bool {
        let back = now.saturating_duration_since(self.since).as_nanos() / self.refill.as_nanos().max(1);
        let back = u32::try_from(back).unwrap_or(u32::MAX);
        let left = self.left.saturating_add(back).min(self.burst);
        // The clock moves on by what was given back only.
        self.since = if left == self.burst { now } else { self.since + self.refill * back };
        if left == 0 {
            self.left = 0;
            return false;
        }
        self.left = left - 1;
        true
    }
}

/// The address a peer connects from: a socket address's host without
/// its port (`10.0.0.1:4000`, `[::1]:4000`), or the whole name (a serial
/// line's path). Read from the text: the director does no I/O.
#[must_use]
pub(super) fn address_of(peer: &str) -> String {
    let port = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if let Some((host, p)) = peer.strip_prefix('[').and_then(|r| r.split_once("]:")) {
        if port(p) {
            return host.to_owned();
        }
    }
    match peer.rsplit_once(':') {
        Some((host, p)) if port(p) && !host.is_empty() && !host.contains(':') => host.to_owned(),
        _ => peer.to_owned(),
    }
}

/// A connected client.
#[derive(Debug)]
pub(super) struct Conn {
    pub(super) peer: String,
    /// The address it connects from ([`address_of`]).
    addr: String,
    /// When it connected.
    since: Instant,
    /// The player it signed on as.
    pub(super) player: Option<usize>,
    /// The game it plays.
    pub(super) game: Option<usize>,
    /// Not to be sent anything before (reset and conclude delays).
    pub(super) quiet_until: Instant,
    /// The heartbeat it asked for: a blank line when nothing else went
    /// out for that long.
    pub(super) heartbeat: Option<Duration>,
    /// Faults it may still run up.
    faults: Allowance,
}

/// The connections, in the order of their ids (the order they came in).
#[derive(Debug)]
pub(super) struct Clients {
    conns: BTreeMap<ConnId, Conn>,
    /// Connections dropped whose close has not gone out yet (their last
    /// records still do).
    closing: BTreeSet<ConnId>,
    /// The connections of players the referee runs itself, connected or
    /// closing: their records need not wait for the journal.
    local: BTreeSet<ConnId>,
    /// Notes the log may still take about connections not signed on.
    notes: Allowance,
    /// Such notes left out since the last one logged.
    notes_left_out: u64,
}

impl Clients {
    /// No connection yet, at `now`.
    #[must_use]
    pub(super) fn new(now: Instant) -> Clients {
        Clients {
            conns: BTreeMap::new(),
            closing: BTreeSet::new(),
            local: BTreeSet::new(),
            notes: Allowance::new(super::CONNECTION_NOTES, super::CONNECTION_NOTE_REFILL, now),
            notes_left_out: 0,
        }
    }

    /// A client connected from `peer` at `now`.
    pub(super) fn connect(&mut self, id: ConnId, peer: String, reach: Reach, now: Instant) {
        let faults = Allowance::new(super::FAULT_BURST, super::FAULT_REFILL, now);
        let addr = address_of(&peer);
        let conn = Conn { peer, addr, since: now, player: None, game: None, quiet_until: now, heartbeat: None, faults };
        self.conns.insert(id, conn);
        if reach == Reach::Local {
            self.local.insert(id);
        }
    }

    /// A note for the log about a connection not signed on, at `now`: the
    /// text (with the count of such notes left out before it), or `None`
    /// past the allowance ([`super::CONNECTION_NOTES`] at once, one more
    /// every [`super::CONNECTION_NOTE_REFILL`]), when it is counted. A
    /// flood of connections costs the log a bounded amount a second.
    pub(super) fn connection_note(&mut self, now: Instant, text: &str) -> Option<String> {
        if !self.notes.take(now) {
            self.notes_left_out += 1;
            return None;
        }
        match std::mem::take(&mut self.notes_left_out) {
            0 => Some(text.to_owned()),
            n => Some(format!("{text} ({n} notes about connections not signed on left out before this one)")),
        }
    }

    /// Connections waiting to sign on since `before` or earlier (the
    /// ones the caps count), as (id, address), oldest first; and when the
    /// first of the others comes to count.
    fn waiting_since(
        &self,
        before: Instant,
        exempt: impl Fn(ConnId) -> bool,
    ) -> (Vec<(ConnId, &str)>, Option<Instant>) {
        let mut next: Option<Instant> = None;
        let mut old = Vec::new();
        for (&id, c) in &self.conns {
            if c.player.is_some() || self.local.contains(&id) || exempt(id) {
                continue;
            }
            if c.since <= before {
                old.push((id, c.addr.as_str()));
            } else {
                next = Some(next.map_or(c.since, |n| n.min(c.since)));
            }
        }
        (old, next)
    }

    /// Connections that have waited to sign on since `before` or earlier:
    /// in all, and the most from one address.
    #[must_use]
    pub(super) fn waiting(&self, before: Instant, exempt: impl Fn(ConnId) -> bool) -> (usize, usize) {
        let (old, _) = self.waiting_since(before, exempt);
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, a) in old {
            *count.entry(a).or_default() += 1;
        }
        (count.values().sum(), count.values().copied().max().unwrap_or(0))
    }

    /// The connections to close of those that have waited to sign on
    /// since `before` or earlier (a connection that signs on at once is
    /// never counted, however many come together), oldest first: an
    /// address's oldest beyond `per_address`, then the oldest of all
    /// beyond `total`; and when the first of the others will have waited
    /// as long (`None`: nobody else waits). Players the referee runs
    /// itself and the connections `exempt` names (a standby's) are not
    /// counted.
    pub(super) fn over_the_caps(
        &self,
        per_address: usize,
        total: usize,
        before: Instant,
        exempt: impl Fn(ConnId) -> bool,
    ) -> (Vec<ConnId>, Option<Instant>) {
        let (waiting, next) = self.waiting_since(before, exempt);
        if waiting.len() <= per_address.min(total) {
            return (Vec::new(), next);
        }
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for &(_, a) in &waiting {
            *count.entry(a).or_default() += 1;
        }
        let mut shed = BTreeSet::new();
        for &(id, a) in &waiting {
            let n = count.get_mut(a).expect("counted");
            if *n > per_address {
                *n -= 1;
                shed.insert(id);
            }
        }
        let mut kept = waiting.len() - shed.len();
        for &(id, _) in &waiting {
            if kept <= total {
                break;
            }
            if shed.insert(id) {
                kept -= 1;
            }
        }
        (shed.into_iter().collect(), next)
    }

    /// Charges a fault to `id` at `now`: whether it is still within its
    /// allowance ([`super::FAULT_BURST`] at once, one more every
    /// [`super::FAULT_REFILL`]). An unknown connection is within it.
    pub(super) fn charge_fault(&mut self, id: ConnId, now: Instant) -> bool {
        self.conns.get_mut(&id).is_none_or(|c| c.faults.take(now))
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
        let mut c = Clients::new(t0);
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
        let mut c = Clients::new(t0);
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

    /// The caps close the oldest connections that have waited to sign
    /// on long enough: an address's beyond its share first, then the
    /// oldest of all beyond the total. Younger, signed-on, local and
    /// exempt connections are not counted; the next instant one comes to
    /// count is told.
    #[test]
    fn the_oldest_unsigned_connections_go_first() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut c = Clients::new(t0);
        // 1-5 from one address, 6-8 from others, 9 local, 10 signed on,
        // 11 a standby, 12 and 13 later.
        for id in 1..=5 {
            c.connect(id, format!("10.0.0.1:{}", 4000 + id), Reach::Remote, ms(id));
        }
        for id in 6..=8 {
            c.connect(id, format!("10.0.0.{id}:4000"), Reach::Remote, ms(id));
        }
        c.connect(9, "engine".into(), Reach::Local, ms(9));
        c.connect(10, "10.0.0.1:5000".into(), Reach::Remote, ms(10));
        c.get_mut(10).unwrap().player = Some(0);
        c.connect(11, "10.0.0.1:5001".into(), Reach::Remote, ms(11));
        c.connect(12, "[::1]:4000".into(), Reach::Remote, ms(12));
        c.connect(13, "10.0.0.1:4013".into(), Reach::Remote, ms(13));
        let standby = |id| id == 11;
        assert_eq!(c.over_the_caps(3, 100, ms(0), standby), (vec![], Some(ms(1))), "nobody has waited");
        assert_eq!(c.over_the_caps(3, 100, ms(8), standby), (vec![1, 2], Some(ms(12))), "two of 10.0.0.1's five");
        assert_eq!(c.waiting(ms(8), standby), (8, 5));
        // A total of 4 closes the oldest four of the eight; 12 and 13
        // have not waited long enough to count.
        assert_eq!(c.over_the_caps(5, 4, ms(8), standby), (vec![1, 2, 3, 4], Some(ms(12))));
        // Both: 10.0.0.1's six less two, then the oldest of all to four.
        assert_eq!(c.over_the_caps(4, 4, ms(13), standby), (vec![1, 2, 3, 4, 5, 6], None));
        assert_eq!(address_of("[::1]:4000"), "::1");
        assert_eq!(address_of("/dev/ttyS0"), "/dev/ttyS0");
        assert_eq!(address_of("10.0.0.1:4000"), "10.0.0.1");
        assert_eq!(address_of("sim:7x"), "sim:7x");
        assert_eq!(address_of("::1"), "::1");
    }

    /// Notes about connections not signed on come in a burst, then one
    /// per refill; the next one logged says how many were left out.
    #[test]
    fn notes_about_a_flood_of_connections_are_bounded() {
        use super::super::{CONNECTION_NOTES, CONNECTION_NOTE_REFILL};
        let t0 = Instant::now();
        let mut c = Clients::new(t0);
        let logged = (0..1000).filter(|_| c.connection_note(t0, "x").is_some()).count();
        assert_eq!(logged, CONNECTION_NOTES as usize);
        let later = t0 + CONNECTION_NOTE_REFILL;
        let n = u64::from(1000 - CONNECTION_NOTES);
        assert_eq!(
            c.connection_note(later, "x").as_deref(),
            Some(format!("x ({n} notes about connections not signed on left out before this one)").as_str())
        );
        assert_eq!(c.connection_note(later, "y"), None);
    }
}
