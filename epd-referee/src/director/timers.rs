//! The director's deadlines, ordered by instant: each thing that can
//! fall due (a game's flag, its start after the reset delay, a departed
//! player's grace, a client's sign-on time, the end of a client's quiet
//! time) has at most one entry, replaced when it moves, so the next
//! deadline is the first entry and a step looks only at what is due
//! instead of at every game and client.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hash;

/// Deadlines keyed by `K`, at most one per key, at instants `T` (the
/// director's `Instant`s).
#[derive(Debug)]
pub(crate) struct Timers<K, T> {
    order: BTreeSet<(T, K)>,
    at: BTreeMap<K, T>,
}

impl<K: Copy + Ord + Hash, T: Copy + Ord> Timers<K, T> {
    pub(crate) fn new() -> Timers<K, T> {
        Timers { order: BTreeSet::new(), at: BTreeMap::new() }
    }

    /// Sets `key` to fall due at `when`, or clears it (`None`).
    pub(crate) fn set(&mut self, key: K, when: Option<T>) {
        let old = match when {
            Some(t) => self.at.insert(key, t),
            None => self.at.remove(&key),
        };
        if old == when {
            return;
        }
        if let Some(t) = old {
            self.order.remove(&(t, key));
        }
        if let Some(t) = when {
            self.order.insert((t, key));
        }
    }

    /// When `key` falls due, if it is set.
    #[must_use]
    pub(crate) fn get(&self, key: K) -> Option<T> {
        self.at.get(&key).copied()
    }

    /// The nearest deadline.
    #[must_use]
    pub(crate) fn next(&self) -> Option<T> {
        self.order.first().map(|&(t, _)| t)
    }

    /// Takes out the keys due at `now`, earliest first.
    pub(crate) fn take_due(&mut self, now: T) -> Vec<K> {
        let mut due = Vec::new();
        while let Some(&(t, k)) = self.order.first() {
            if t > now {
                break;
            }
            self.order.pop_first();
            self.at.remove(&k);
            due.push(k);
        }
        due
    }

    /// How many deadlines are set.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        debug_assert_eq!(self.order.len(), self.at.len());
        self.at.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_deadline_per_key_in_order() {
        let ms = |n: u64| n;
        let mut t = Timers::new();
        t.set('a', Some(ms(30)));
        t.set('b', Some(ms(10)));
        t.set('c', Some(ms(20)));
        assert_eq!(t.next(), Some(ms(10)));
        // Moving a key replaces its entry; clearing removes it.
        t.set('b', Some(ms(40)));
        t.set('c', None);
        t.set('c', None);
        assert_eq!((t.next(), t.len()), (Some(ms(30)), 2));
        t.set('a', Some(ms(30)));
        assert_eq!(t.len(), 2);
        assert_eq!(t.take_due(ms(29)), Vec::<char>::new());
        assert_eq!(t.take_due(ms(40)), vec!['a', 'b']);
        assert_eq!((t.next(), t.len()), (None, 0));
        // Keys due at the same instant come out in key order.
        t.set('z', Some(ms(5)));
        t.set('y', Some(ms(5)));
        assert_eq!(t.take_due(ms(5)), vec!['y', 'z']);
    }
}
