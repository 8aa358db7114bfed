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

/// The table starts with this many buckets (96 KiB) and grows fourfold,
/// up to the size asked for, whenever half its entries are in use: its
/// memory follows the search (an engine per worker makes `--jobs 16`
/// over short searches cost what they do, not sixteen full tables, and
/// a new game starts small again).
const FIRST_BUCKETS: usize = 1 << 10;

/// A hash table of search results, of at most a given size.
#[derive(Debug)]
pub(crate) struct Table {
    buckets: Vec<Bucket>,
    /// The most buckets the table may grow to.
    max_buckets: usize,
    /// Entries in use.
    filled: usize,
    generation: u8,
}

impl Table {
    /// A table of at most about `mb` mebibytes (at least one bucket).
    pub(crate) fn new(mb: usize) -> Table {
        let bytes = mb.saturating_mul(1 << 20);
        let max_buckets = (bytes / std::mem::size_of::<Bucket>()).max(1);
        Table { buckets: empty_buckets(max_buckets.min(FIRST_BUCKETS)), max_buckets, filled: 0, generation: 0 }
    }

    /// Forgets every entry; the table starts small again.
    pub(crate) fn clear(&mut self) {
        self.buckets = empty_buckets(self.max_buckets.min(FIRST_BUCKETS));
        self.filled = 0;
        self.generation = 0;
    }

    /// Grows the table fourfold (up to its most), each entry kept where
    /// its new bucket has room.
    fn grow(&mut self) {
        let n = self.buckets.len().saturating_mul(4).min(self.max_buckets);
        let old = std::mem::replace(&mut self.buckets, empty_buckets(n));
        let generation = self.generation;
        for w in old.into_iter().flatten().filter(|w| depth_of(w) >= 0) {
            let i = self.index(w[0]);
            let bucket = &mut self.buckets[i];
            if let Some(free) = bucket.iter_mut().find(|s| depth_of(s) < 0) {
                *free = w;
            } else {
                let s = least_worth(bucket, generation);
                if worth(&w, generation) > worth(&bucket[s], generation) {
                    bucket[s] = w;
                }
                self.filled -= 1;
            }
        }
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
        if self.filled * 2 >= self.buckets.len() * BUCKET && self.buckets.len() < self.max_buckets {
            self.grow();
        }
        let generation = self.generation;
        let i = self.index(key);
        let bucket = &mut self.buckets[i];
        let slot = match bucket.iter().position(|w| w[0] == key) {
            Some(s) => s,
            None => least_worth(bucket, generation),
        };
        let old = Entry::unpack(bucket[slot]);
        let was_empty = depth_of(&bucket[slot]) < 0;
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
        self.filled += usize::from(was_empty);
    }
}

/// What keeping an entry is worth: stale generations go first, then
/// shallow ones (an empty slot is worth least).
#[inline(always)]
fn worth(w: &Slot, generation: u8) -> i32 {
    let age = i32::from(generation.wrapping_sub(generation_of(w)));
    i32::from(depth_of(w)) - 8 * age
}

/// The slot of a bucket to give a new entry: the least worth keeping.
#[inline(always)]
fn least_worth(bucket: &Bucket, generation: u8) -> usize {
    let mut best = 0;
    for s in 1..BUCKET {
        if worth(&bucket[s], generation) < worth(&bucket[best], generation) {
            best = s;
        }
    }
    best
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
    fn the_table_grows_with_the_search_to_its_most() {
        let mut t = Table::new(1); // at most 1 MiB: 10,922 buckets
        assert_eq!((t.buckets.len(), t.max_buckets), (FIRST_BUCKETS, (1 << 20) / 96));
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut keys = Vec::new();
        for i in 0..30_000 {
            // splitmix64: keys spread as Zobrist hashes are.
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            keys.push(z ^ (z >> 31));
            let m = Move::normal(Role::Knight, Square::G1, Square::F3);
            t.store(keys[i], Some(m), i as i32 % 100, (i % 20) as i32, Bound::Exact);
            if i % 1000 == 999 {
                let live = t.buckets.iter().flatten().filter(|w| depth_of(w) >= 0).count();
                assert_eq!(t.filled, live, "after {} stores", i + 1);
            }
            if i == 1_500 {
                // Not grown yet (under half full); growing keeps every entry.
                assert_eq!(t.buckets.len(), FIRST_BUCKETS);
                let known: Vec<u64> = keys.iter().copied().filter(|&k| t.probe(k).is_some()).collect();
                assert_eq!(known.len(), t.filled);
                t.grow();
                assert_eq!((t.buckets.len(), t.filled), (4 * FIRST_BUCKETS, known.len()));
                assert!(known.iter().all(|&k| t.probe(k).is_some_and(|e| e.mv == Some(m))));
            }
        }
        assert_eq!(t.buckets.len(), t.max_buckets, "grown to its most, never past it");
        let found = keys.iter().filter(|&&k| t.probe(k).is_some()).count();
        assert_eq!(found, t.filled);
        assert!(found > 25_000, "{found}");
        t.clear();
        assert_eq!((t.buckets.len(), t.filled), (FIRST_BUCKETS, 0));
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
    }

    #[test]
    fn entries_pack_into_words_and_back() {
        for mv in [
            None,
            Some(Move::normal(Role::Queen, Square::D1, Square::H5)),
            Some(Move::promotion(Square::B7, Square::A8, Role::Knight)),
            Some(Move::en_passant(Square::E5, Square::D6)),
            Some(Move::castle(Square::E1, Square::H1)),
        ] {
            for (score, depth, bound, generation) in
                [(-32_768i16, 0i8, Bound::Exact, 0u8), (32_767, 127, Bound::Lower, 255), (0, 5, Bound::Upper, 7)]
            {
                let e = Entry { key: 0xDEAD_BEEF, mv, score, depth, bound, generation };
                let back = Entry::unpack(e.pack());
                assert_eq!(
                    (back.key, back.mv, back.score, back.depth, back.bound, back.generation),
                    (e.key, e.mv, e.score, e.depth, e.bound, e.generation)
                );
            }
        }
        assert_eq!(Entry::unpack([0; 3]).depth, -1, "all zero is empty");
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
