//! What EPD Kit's tests and benchmarks share, written once: where the real
//! corpora are, one seeded generator, and seeded random play.
//!
//! Never published. `epd-core`'s own unit tests use it as a
//! dev-dependency: [`XorShift`] is plain data, and [`random_play`] takes
//! the position's move generator as functions, so it walks the test
//! build's `Position` too (a dev-dependency cycle sees two copies of the
//! type).

use std::path::PathBuf;

/// The first existing `shared/<sub>` folder beside the workspace or one of
/// its ancestors (CI clones the project with `shared/` beside it), or the
/// folder named by the environment variable `var`. Panics when neither
/// exists: the corpus tests must never be skipped silently.
fn shared_dir(var: &str, sub: &str, marker: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(var) {
        return PathBuf::from(dir);
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let hint =
        if sub == "corpora" { "; or fetch them: scripts/fetch-corpora DIR, then EPDKIT_CORPORA=DIR" } else { "" };
    manifest
        .ancestors()
        .map(|a| a.join("shared").join(sub))
        .find(|c| c.join(marker).is_file())
        .unwrap_or_else(|| panic!("shared/{sub} not found beside the workspace: set {var} to its directory{hint}"))
}

/// The directory of the real-world corpora (`shared/corpora`): the
/// directory named by `$EPDKIT_CORPORA`, else `shared/corpora` beside the
/// workspace or one of its ancestors. Panics if there is none.
#[must_use]
pub fn corpus_dir() -> PathBuf {
    shared_dir("EPDKIT_CORPORA", "corpora", "MANIFEST.tsv")
}

/// The path of one corpus file (which may not exist).
#[must_use]
pub fn corpus_path(name: &str) -> PathBuf {
    corpus_dir().join(name)
}

/// Reads a corpus file whole; panics if it cannot.
#[must_use]
pub fn corpus(name: &str) -> Vec<u8> {
    let path = corpus_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The benchmark corpus, `bench-100k.epd` (`shared/bench`, or the
/// directory named by `$EPDKIT_BENCH`). Panics if there is none.
#[must_use]
pub fn bench_corpus_path() -> PathBuf {
    shared_dir("EPDKIT_BENCH", "bench", "bench-100k.epd").join("bench-100k.epd")
}

/// A file of the benchmark peers' sources (`shared/peers`, or the
/// directory named by `$EPDKIT_PEERS`): fastchess's tarball, say. Panics
/// if the directory is not there.
#[must_use]
pub fn peer_path(name: &str) -> PathBuf {
    shared_dir("EPDKIT_PEERS", "peers", "README.md").join(name)
}

/// The workspace's target directory (`$CARGO_TARGET_DIR`, else `target`
/// beside the workspace), where tests cache what they build from the
/// peers' sources.
#[must_use]
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("target"),
    }
}

/// The fastchess sources of `shared/peers` (`fastchess-74deac2.tar.gz`),
/// unpacked once into `target/fastchess-74deac2/fastchess`, held under
/// an exclusive lock on `target/fastchess-74deac2/lock` for as long as
/// this value lives: the tests that build from the tree (the statistics
/// harness, the `fastchess` binary) may run at once, in two test
/// binaries or two `cargo test` runs, and each builds under the lock, so
/// none unpacks over a tree another compiles in.
#[derive(Debug)]
pub struct FastchessTree {
    /// `target/fastchess-74deac2`: where the tests keep what they build.
    pub dir: PathBuf,
    /// `target/fastchess-74deac2/fastchess`: the unpacked source tree.
    pub tree: PathBuf,
    _lock: std::fs::File,
}

/// The directory where the tests keep what they build from fastchess's
/// sources (`target/fastchess-74deac2`), without locking or unpacking: a
/// cached build there is used without waiting for the lock when it is
/// complete (each is written under a temporary name, then renamed).
#[must_use]
pub fn fastchess_dir() -> PathBuf {
    target_dir().join("fastchess-74deac2")
}

/// `true` when the programs that build fastchess's sources are there
/// (`tools`, each answering `--version`); `false`, said on stderr with
/// `what` would have been built, when not, and a panic when
/// `$EPDKIT_REQUIRE_FASTCHESS=1` says they must be (CI).
#[must_use]
pub fn fastchess_tools(tools: &[&str], what: &str) -> bool {
    let missing: Vec<&str> =
        tools.iter().copied().filter(|t| std::process::Command::new(t).arg("--version").output().is_err()).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("EPDKIT_REQUIRE_FASTCHESS").as_deref() != Ok("1"),
        "{} required to build {what} (EPDKIT_REQUIRE_FASTCHESS=1)",
        missing.join(" and ")
    );
    eprintln!("skipped: no {} to build {what}", missing.join(" or "));
    false
}

/// Takes the lock of [`FastchessTree`] (waiting for another test that
/// holds it) and unpacks the tarball if the tree is not complete.
///
/// # Panics
/// When the lock cannot be taken or `tar` fails.
#[must_use]
pub fn fastchess_tree() -> FastchessTree {
    let dir = fastchess_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let lock = std::fs::File::create(dir.join("lock")).unwrap_or_else(|e| panic!("{}/lock: {e}", dir.display()));
    lock.lock().unwrap_or_else(|e| panic!("{}/lock: {e}", dir.display()));
    let tree = dir.join("fastchess");
    // Unpacked beside, then moved: a tree that is there is whole, and
    // an interrupted unpack leaves nothing where the next run looks.
    if !tree.join("app/src/matchmaking/sprt/sprt.cpp").is_file() || !tree.join("Makefile").is_file() {
        let tmp = dir.join(format!("unpack-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        let tarball = peer_path("fastchess-74deac2.tar.gz");
        let status = std::process::Command::new("tar").arg("xzf").arg(&tarball).arg("-C").arg(&tmp).status();
        assert!(status.is_ok_and(|s| s.success()), "tar xzf {} failed", tarball.display());
        let _ = std::fs::remove_dir_all(&tree);
        std::fs::rename(tmp.join("fastchess"), &tree).unwrap();
        let _ = std::fs::remove_dir_all(&tmp);
    }
    FastchessTree { dir, tree, _lock: lock }
}

/// `true` if python-chess (the GPL test oracle, run as a separate
/// program) can be imported by `python3`; `false`, said on stderr, when
/// not, and a panic when `$EPDKIT_REQUIRE_PYTHON_CHESS=1` says it must be
/// there (CI).
#[must_use]
pub fn python_chess() -> bool {
    let found =
        std::process::Command::new("python3").args(["-c", "import chess"]).output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("EPDKIT_REQUIRE_PYTHON_CHESS").as_deref() != Ok("1"),
            "python-chess is required (EPDKIT_REQUIRE_PYTHON_CHESS=1): pip install chess==1.11.2"
        );
        eprintln!("skipped: python-chess is not installed (pip install chess==1.11.2)");
    }
    found
}

/// Debian's Chromium, for the tests of pages in a real browser; `None`
/// (said on stderr) when it is not installed, a panic when
/// `$EPDKIT_REQUIRE_CHROMIUM` says it must be (CI).
#[must_use]
pub fn chromium() -> Option<&'static str> {
    let p = "/usr/bin/chromium";
    if std::path::Path::new(p).is_file() {
        return Some(p);
    }
    assert!(std::env::var_os("EPDKIT_REQUIRE_CHROMIUM").is_none(), "chromium is required but missing");
    eprintln!("skipped: chromium is not installed (apt-get install chromium)");
    None
}

/// Stockfish (Debian's, or one on the usual paths), for the tests that
/// drive a real engine; `None` (said on stderr) when it is not installed,
/// a panic when `$EPDKIT_REQUIRE_STOCKFISH` says it must be (CI).
#[must_use]
pub fn stockfish() -> Option<&'static str> {
    let found = ["/usr/games/stockfish", "/usr/bin/stockfish", "/usr/local/bin/stockfish"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("EPDKIT_REQUIRE_STOCKFISH").is_none(),
            "stockfish is required but missing (apt-get install stockfish)"
        );
        eprintln!("skipped: stockfish is not installed (apt-get install stockfish)");
    }
    found
}

/// The flags headless Chromium needs on this kind of machine: no sandbox
/// (tests run as root), no GPU, and none of its background connections
/// (the network is closed).
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// xorshift64 (Marsaglia; shifts 13, 7, 17): tiny, seeded, the same
/// sequence on every platform, so a test that draws from it replays
/// exactly.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a seed; 0, which xorshift cannot leave, is
    /// replaced by a fixed odd constant.
    #[must_use]
    pub const fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` must not be 0; the modulo bias does not
    /// matter to a test).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

/// Calls `visit` on every position of seeded random games: `games` games
/// from each of `starts`, of at most `plies` plies each (a game ends early
/// at mate or stalemate), with each position's legal moves. `legal` lists
/// a position's legal moves and `play` plays one: so the walk serves any
/// position type, `epd-core`'s test build's included.
pub fn random_play<P: Clone, M: Copy, L: AsRef<[M]>>(
    starts: &[P],
    (games, plies, seed): (usize, usize, u64),
    legal: impl Fn(&P) -> L,
    play: impl Fn(&mut P, M),
    mut visit: impl FnMut(&P, &[M]),
) {
    let mut rng = XorShift::new(seed);
    for start in starts {
        for _ in 0..games {
            let mut p = start.clone();
            for _ in 0..plies {
                let moves = legal(&p);
                let moves = moves.as_ref();
                if moves.is_empty() {
                    break;
                }
                visit(&p, moves);
                let m = moves[rng.below(moves.len())];
                play(&mut p, m);
            }
        }
    }
}

/// Every position of seeded random play from the start position: `games`
/// games of at most `plies` plies.
#[must_use]
pub fn random_positions(seed: u64, games: usize, plies: usize) -> Vec<epd_core::Position> {
    let mut out = Vec::new();
    let start = [epd_core::Position::startpos()];
    random_play(
        &start,
        (games, plies, seed),
        epd_core::Position::legal_moves,
        epd_core::Position::play_unchecked,
        |p, _| {
            out.push(*p);
        },
    );
    out
}

/// The games of a PGN text as (tags in their order, movetext): for tests
/// that read back what a referee or a match wrote.
#[must_use]
pub fn pgn_games(pgn: &str) -> Vec<(Vec<(String, String)>, String)> {
    let mut out = Vec::new();
    for block in pgn.split("\n\n[").filter(|b| !b.trim().is_empty()) {
        let block = block.trim_start_matches('[');
        let (head, moves) = block.split_once("\n\n").unwrap_or((block, ""));
        let tags = head
            .lines()
            .filter_map(|l| {
                let l = l.trim_start_matches('[').trim_end_matches(']');
                let (k, v) = l.split_once(' ')?;
                Some((k.to_owned(), v.trim_matches('"').to_owned()))
            })
            .collect();
        out.push((tags, moves.to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_replays_and_never_sticks_at_zero() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        let xs: Vec<u64> = (0..100).map(|_| a.next()).collect();
        assert!(xs.iter().all(|&x| x != 0));
        assert_eq!(xs, (0..100).map(|_| b.next()).collect::<Vec<_>>());
        assert_ne!(XorShift::new(0).next(), 0);
        // Marsaglia's xorshift64 (13, 7, 17) from 1: a value worked out
        // by hand from the three shifts.
        let mut one = XorShift::new(1);
        let x = 1u64 ^ (1 << 13);
        let x = x ^ (x >> 7);
        let x = x ^ (x << 17);
        assert_eq!(one.next(), x);
        assert_eq!(XorShift::new(9).bytes(13).len(), 13);
    }

    #[test]
    fn random_positions_are_legal_play_from_the_start() {
        let ps = random_positions(3, 4, 30);
        assert_eq!(ps[0], epd_core::Position::startpos());
        assert!(ps.len() > 30 && ps.len() <= 120);
        // Each position but a game's first follows from the one before by
        // a legal move, or starts a new game.
        for w in ps.windows(2) {
            let follows = w[0].legal_moves().iter().any(|&m| {
                let mut p = w[0];
                p.play_unchecked(m);
                p == w[1]
            });
            assert!(follows || w[1] == epd_core::Position::startpos());
        }
    }
}
