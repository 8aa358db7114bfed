//! The display's budget of connections: how many may be open at once, in
//! all and from one address, counted apart for plain requests and for
//! event streams, so that neither can crowd out the other.
//!
//! A [`Slot`] is one connection's place in the budget; it gives its place
//! back when dropped.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

/// What a connection is counted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A connection for plain requests (the page, `/api/state`, `/pgn`,
    /// the supervisor), from its accept to its close.
    Request,
    /// An event stream (`/api/events`), from its request to its close.
    Stream,
}

/// How many connections of one kind may be open at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limit {
    /// In all.
    pub total: usize,
    /// From one address (IPv6: one /64, which one client usually holds).
    pub per_address: usize,
}

/// Why a slot was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every slot of the kind is taken.
    Total,
    /// The address holds its share already.
    Address,
}

/// Open connections of each kind, in all and by address.
#[derive(Debug, Default)]
struct Counts {
    requests: usize,
    streams: usize,
    /// Addresses with an open connection: (requests, streams).
    by_address: BTreeMap<IpAddr, (usize, usize)>,
}

/// The budget: the limits and what is open.
#[derive(Debug)]
pub(crate) struct Budget {
    requests: Limit,
    streams: Limit,
    open: Mutex<Counts>,
}

/// One connection's place in the [`Budget`], given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    budget: Arc<Budget>,
    kind: Kind,
    address: IpAddr,
}

/// The address a client is counted under: IPv4 (also mapped into IPv6)
/// as it is, IPv6 by its /64.
#[must_use]
pub(crate) fn address_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
        v4 => v4,
    }
}

impl Budget {
    pub(crate) fn new(requests: Limit, streams: Limit) -> Arc<Budget> {
        Arc::new(Budget { requests, streams, open: Mutex::new(Counts::default()) })
    }

    /// A slot of `kind` for a client at `ip`, if the budget has one.
    ///
    /// # Errors
    ///
    /// [`Refused`] says which limit is reached.
    pub(crate) fn take(self: &Arc<Self>, kind: Kind, ip: IpAddr) -> Result<Slot, Refused> {
        let address = address_of(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.by_address.get(&address).copied().unwrap_or_default();
        let (limit, total, from) = match kind {
            Kind::Request => (self.requests, open.requests, held.0),
            Kind::Stream => (self.streams, open.streams, held.1),
        };
        if total >= limit.total {
            return Err(Refused::Total);
        }
        if from >= limit.per_address {
            return Err(Refused::Address);
        }
        let entry = open.by_address.entry(address).or_default();
        match kind {
            Kind::Request => entry.0 += 1,
            Kind::Stream => entry.1 += 1,
        }
        match kind {
            Kind::Request => open.requests += 1,
            Kind::Stream => open.streams += 1,
        }
        Ok(Slot { budget: Arc::clone(self), kind, address })
    }

    /// How many connections of each kind are open: (requests, streams).
    #[cfg(test)]
    pub(crate) fn open(&self) -> (usize, usize) {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        (open.requests, open.streams)
    }

    /// How many addresses hold a slot.
    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).by_address.len()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.budget.open.lock().unwrap_or_else(PoisonError::into_inner);
        match self.kind {
            Kind::Request => open.requests -= 1,
            Kind::Stream => open.streams -= 1,
        }
        if let Some(entry) = open.by_address.get_mut(&self.address) {
            match self.kind {
                Kind::Request => entry.0 -= 1,
                Kind::Stream => entry.1 -= 1,
            }
            if *entry == (0, 0) {
                open.by_address.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn budget() -> Arc<Budget> {
        Budget::new(Limit { total: 5, per_address: 3 }, Limit { total: 4, per_address: 2 })
    }

    #[test]
    fn an_address_takes_its_share_and_no_more() {
        let b = budget();
        let mine: Vec<Slot> = (0..3).map(|_| b.take(Kind::Request, ip("10.0.0.1")).unwrap()).collect();
        assert_eq!(b.take(Kind::Request, ip("10.0.0.1")).unwrap_err(), Refused::Address);
        // Another address still has room, up to the total.
        let theirs: Vec<Slot> = (0..2).map(|_| b.take(Kind::Request, ip("10.0.0.2")).unwrap()).collect();
        assert_eq!(b.take(Kind::Request, ip("10.0.0.3")).unwrap_err(), Refused::Total);
        assert_eq!(b.open(), (5, 0));
        drop(mine);
        assert!(b.take(Kind::Request, ip("10.0.0.3")).is_ok());
        drop(theirs);
        assert_eq!((b.open(), b.addresses()), ((0, 0), 0), "every slot given back, no address kept");
    }

    #[test]
    fn streams_and_requests_are_counted_apart() {
        let b = budget();
        let streams: Vec<Slot> = ["10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2"]
            .iter()
            .map(|a| b.take(Kind::Stream, ip(a)).unwrap())
            .collect();
        assert_eq!(b.take(Kind::Stream, ip("10.0.0.3")).unwrap_err(), Refused::Total);
        // Every stream slot taken, requests from the same addresses go on.
        let requests: Vec<Slot> = (0..3).map(|_| b.take(Kind::Request, ip("10.0.0.1")).unwrap()).collect();
        assert_eq!(b.open(), (3, 4));
        drop((streams, requests));
        assert_eq!((b.open(), b.addresses()), ((0, 0), 0));
    }

    #[test]
    fn addresses_as_counted() {
        for (given, counted) in [
            ("192.0.2.7", "192.0.2.7"),
            ("::ffff:192.0.2.7", "192.0.2.7"),
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"),
            ("2001:db8:1:2::1", "2001:db8:1:2::"),
            ("::1", "::"),
        ] {
            assert_eq!(address_of(ip(given)), ip(counted), "{given}");
        }
        // One /64 shares one share.
        let b = budget();
        let _held: Vec<Slot> = (1..=2).map(|i| b.take(Kind::Stream, ip(&format!("2001:db8::{i}"))).unwrap()).collect();
        assert_eq!(b.take(Kind::Stream, ip("2001:db8::ffff")).unwrap_err(), Refused::Address);
        assert!(b.take(Kind::Stream, ip("2001:db8:0:1::1")).is_ok());
    }
}
