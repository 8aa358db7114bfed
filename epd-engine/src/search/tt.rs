//! The transposition table: buckets of four entries keyed by the Zobrist
//! hash, replacing the shallowest or oldest entry of a full bucket.

use epd_core::{Move, MoveKind, Role, Square};

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

/// An entry as the table keeps it: three words, all zero when empty, so
/// that a table is allocated zeroed and costs memory only where a search
/// writes (an engine per worker makes `--jobs 16` cost what the work
/// does, not sixteen full tables). Word 0 is the key; word 1 the move
/// (bit 20 set when there is one: from, to, role, kind, promotion); word
/// 2 the score, depth + 1 (0: empty), bound and generation.
type Slot = [u64; 3];

type Bucket = [Slot; BUCKET];

impl Entry {
    fn pack(self) -> Slot {
        let mv = self.mv.map_or(0, |m| {
            let (kind, promotion) = match m.kind() {
                MoveKind::Normal => (0, 0),
                MoveKind::Promotion(r) => (1, r.index() as u64),
                MoveKind::EnPassant => (2, 0),
                MoveKind::Castle => (3, 0),
            };
            1 << 20
                | m.from().index() as u64
                | (m.to().index() as u64) << 6
                | (m.role().index() as u64) << 12
                | kind << 15
                | promotion << 17
        });
        let bound = match self.bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let rest = u64::from(self.score as u16)
            | u64::from((i16::from(self.depth) + 1) as u8) << 16
            | bound << 24
            | u64::from(self.generation) << 32;
        [self.key, mv, rest]
    }

    fn unpack(w: Slot) -> Entry {
        let [key, mv, rest] = w;
        let depth = depth_of(&w);
        if depth < 0 {
            return EMPTY;
        }
        let mv = (mv & 1 << 20 != 0).then(|| {
            let from = Square::from_index((mv & 63) as u32);
            let to = Square::from_index((mv >> 6 & 63) as u32);
            let role = Role::ALL[(mv >> 12 & 7) as usize % 6];
            match mv >> 15 & 3 {
                1 => Move::promotion(from, to, Role::ALL[(mv >> 17 & 7) as usize % 6]),
                2 => Move::en_passant(from, to),
                3 => Move::castle(from, to),
                _ => Move::normal(role, from, to),
            }
        });
        let bound = match rest >> 24 & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        Entry { key, mv, score: rest as u16 as i16, depth: depth as i8, bound, generation: (rest >> 32) as u8 }
    }
}

/// `n` empty buckets, allocated zeroed (the standard library asks the
/// allocator for zeroed pages for a vector of zero integers).
fn empty_buckets(n: usize) -> Vec<Bucket> {
    vec![[[0u64; 3]; BUCKET]; n]
}

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
        Table { buckets: empty_buckets(n), generation: 0 }
    }

    /// Forgets every entry (a fresh zeroed table: the pages the old one
    /// touched go back to the system).
    pub(crate) fn clear(&mut self) {
        self.buckets = empty_buckets(self.buckets.len());
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
        self.buckets[self.index(key)].iter().find(|w| w[0] == key && depth_of(w) >= 0).map(|&w| Entry::unpack(w))
    }

    /// Stores a result, keeping the old move when the new one has none.
    #[inline]
    pub(crate) fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let i = self.index(key);
        let bucket = &mut self.buckets[i];
        let slot = match bucket.iter().position(|w| w[0] == key) {
            Some(s) => s,
            None => {
                // The least valuable: stale generations first, then shallow.
                let worth = |w: &Slot| {
                    let age = i32::from(generation.wrapping_sub(generation_of(w)));
                    i32::from(depth_of(w)) - 8 * age
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
        let old = Entry::unpack(bucket[slot]);
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
        }
        .pack();
    }
}

/// A kept entry's depth (-1: empty), read without unpacking it.
#[inline(always)]
fn depth_of(w: &Slot) -> i16 {
    i16::from((w[2] >> 16) as u8) - 1
}

/// A kept entry's generation, read without unpacking it.
#[inline(always)]
fn generation_of(w: &Slot) -> u8 {
    (w[2] >> 32) as u8
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
