//! The transposition table: buckets of four entries keyed by the Zobrist
//! hash, replacing the shallowest or oldest entry of a full bucket.

use epd_core::Move;

/// What a stored score means relative to the true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true value.
    Exact,
    /// The true value is at least the score (a fail high).
    Lower,
    /// The true value is at most the score (a fail low).
    Upper,
}

/// One stored search result. Mate scores are stored relative to the
/// node, not the root (see `to_tt`/`from_tt` in the search).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    key: u64,
    pub(crate) mv: Option<Move>,
    pub(crate) score: i16,
    pub(crate) depth: i8,
    pub(crate) bound: Bound,
    generation: u8,
}

const EMPTY: Entry = Entry { key: 0, mv: None, score: 0, depth: -1, bound: Bound::Upper, generation: 0 };
const BUCKET: usize = 4;

type Bucket = [Entry; BUCKET];

/// A fixed-size hash table of search results.
#[derive(Debug)]
pub(crate) struct Table {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl Table {
    /// A table of about `mb` mebibytes (at least one bucket).
    pub(crate) fn new(mb: usize) -> Table {
        let bytes = mb.saturating_mul(1 << 20);
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        Table { buckets: vec![[EMPTY; BUCKET]; n], generation: 0 }
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.buckets.iter_mut().for_each(|b| *b = [EMPTY; BUCKET]);
        self.generation = 0;
    }

    /// Starts a new search: older entries become the first to go.
    pub(crate) fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        self.buckets[self.index(key)].iter().find(|e| e.key == key && e.depth >= 0).copied()
    }

    /// Stores a result, keeping the old move when the new one has none.
    #[inline]
    pub(crate) fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let i = self.index(key);
        let bucket = &mut self.buckets[i];
        let slot = match bucket.iter().position(|e| e.key == key) {
            Some(s) => s,
            None => {
                // The least valuable: stale generations first, then shallow.
                let worth = |e: &Entry| {
                    let age = i32::from(generation.wrapping_sub(e.generation));
                    i32::from(e.depth) - 8 * age
                };
                let mut best = 0;
                for s in 1..BUCKET {
                    if worth(&bucket[s]) < worth(&bucket[best]) {
                        best = s;
                    }
                }
                best
            }
        };
        let old = bucket[slot];
        let keep_deeper =
            old.key == key && old.generation == generation && i32::from(old.depth) > depth + 2 && bound != Bound::Exact;
        if keep_deeper {
            return;
        }
        bucket[slot] = Entry {
            key,
            mv: mv.or(if old.key == key { old.mv } else { None }),
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth: depth.clamp(0, 127) as i8,
            bound,
            generation,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::{Role, Square};

    #[test]
    fn stores_probes_and_replaces() {
        let mut t = Table::new(1);
        let m = Move::normal(Role::Knight, Square::G1, Square::F3);
        assert!(t.probe(42).is_none());
        t.store(42, Some(m), -31_000, 7, Bound::Exact);
        let e = t.probe(42).unwrap_or_else(|| panic!("stored entry missing"));
        assert_eq!((e.mv, e.score, e.depth, e.bound), (Some(m), -31_000, 7, Bound::Exact));
        // A later store without a move keeps the known move.
        t.store(42, None, 12, 9, Bound::Lower);
        let e = t.probe(42).unwrap_or_else(|| panic!("stored entry missing"));
        assert_eq!((e.mv, e.score, e.depth, e.bound), (Some(m), 12, 9, Bound::Lower));
        t.clear();
        assert!(t.probe(42).is_none());
    }

    #[test]
    fn a_full_bucket_keeps_the_deepest_entries() {
        let mut t = Table::new(0); // one bucket: every key collides
        for (k, d) in [(1u64, 10), (2, 3), (3, 12), (4, 8)] {
            t.store(k, None, 0, d, Bound::Exact);
        }
        t.store(5, None, 0, 5, Bound::Exact);
        assert!(t.probe(2).is_none(), "the shallowest entry goes");
        for k in [1, 3, 4, 5] {
            assert!(t.probe(k).is_some(), "{k}");
        }
    }
}
