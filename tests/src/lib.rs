//! Shared helpers for the integration tests.

use std::path::PathBuf;

/// The directory of the shared real-world corpora (`shared/corpora`).
///
/// Looked up in `$EPDKIT_CORPORA`, then in a `shared/corpora` folder beside
/// any ancestor of the workspace (CI clones the project with `shared/`
/// beside it), then at `/work/shared/corpora`. Panics if none exists: the
/// corpus tests must never be skipped silently.
#[must_use]
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("EPDKIT_CORPORA") {
        return PathBuf::from(dir);
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for ancestor in manifest.ancestors() {
        let candidate = ancestor.join("shared").join("corpora");
        if candidate.join("MANIFEST.tsv").is_file() {
            return candidate;
        }
    }
    let fallback = PathBuf::from("/work/shared/corpora");
    assert!(
        fallback.join("MANIFEST.tsv").is_file(),
        "shared/corpora not found: set EPDKIT_CORPORA to the corpus directory"
    );
    fallback
}

/// Reads a corpus file whole.
#[must_use]
pub fn corpus(name: &str) -> Vec<u8> {
    let path = corpus_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A small deterministic PRNG (xorshift64*), so tests replay exactly.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeds the generator (a zero seed is replaced).
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Positions from random legal play: `games` games of up to `plies` plies
/// from the start position, every position visited.
#[must_use]
pub fn random_positions(seed: u64, games: usize, plies: usize) -> Vec<epd_core::Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = epd_core::Position::startpos();
        for _ in 0..plies {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Favour captures and promotions a little, to reach endgames.
            let m = moves[rng.below(moves.len())];
            pos.play_unchecked(m);
        }
    }
    out
}
