//! Helpers shared by the unit tests.

/// A xorshift64 generator (shifts 13, 7 and 17): a test that draws from it
/// replays exactly. The seed must not be 0.
#[derive(Clone, Debug)]
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next state.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next state reduced below `n` (which must not be 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Calls `visit` on every position of seeded random games: `games` games
/// from each of `starts`, of at most `plies` plies each (a game ends
/// early at mate or stalemate), with each position's legal moves.
pub(crate) fn random_play(
    starts: &[crate::Position],
    games: usize,
    plies: usize,
    seed: u64,
    mut visit: impl FnMut(&crate::Position, &crate::MoveList),
) {
    let mut rng = XorShift(seed);
    for start in starts {
        for _ in 0..games {
            let mut p = *start;
            for _ in 0..plies {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                visit(&p, &legal);
                p.play_unchecked(legal[rng.below(legal.len())]);
            }
        }
    }
}
