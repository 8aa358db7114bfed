//! epd-core against its peers, single-threaded, side by side in one run:
//!
//! 1. perft(6) of the start position and perft(5) of Kiwipete, with the same
//!    bulk-counting rule for all three libraries (at depth 1 the legal moves
//!    are counted, not played) and copy-make recursion;
//! 2. SAN encode and decode throughput, epd-core against shakmaty, on a
//!    fixed set of positions reached by seeded random play.
//!
//! Every measurement is repeated (libraries interleaved, their order rotated
//! from round to round) and the medians are reported as a Markdown table
//! for `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench -p epd-bench --bench perft_san              # full run
//! cargo bench -p epd-bench --bench perft_san -- --quick   # smoke run
//! EPD_BENCH_QUICK=1 cargo bench -p epd-bench --bench perft_san
//! EPD_BENCH_RUNS=15 cargo bench -p epd-bench --bench perft_san # 15 rounds (default 7)
//! cargo test -p epd-bench --benches                       # one unoptimized smoke round
//! ```
//!
//! Node counts are asserted, and the SAN data set is cross-checked between
//! epd-core and shakmaty before anything is timed.
//!
//! shakmaty is GPL-3.0-or-later: it is a dev-dependency of this
//! never-published benchmark crate only.

use std::collections::HashSet;
use std::hint::black_box;
use std::ops::Range;

use epd_bench::{mega, paired_ratio, ratio, timed, Measured};
use epd_testkit::XorShift;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Seed of the random games that make the SAN data set.
const SAN_SEED: u64 = 0x00E9_D0C0_FFEE_2024;

// ---------------------------------------------------------------------------
// Perft, one function per library, each in that library's idiom.

fn perft_epd(pos: &epd_core::Position, depth: u32) -> u64 {
    // The library's own perft: copy-make (`played`), bulk counting at depth 1.
    epd_core::perft(pos, depth)
}

fn perft_cozy(board: &cozy_chess::Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut n = 0u64;
            board.generate_moves(|mvs| {
                n += mvs.len() as u64;
                false
            });
            n
        }
        _ => {
            let mut n = 0u64;
            board.generate_moves(|mvs| {
                for mv in mvs {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    n += perft_cozy(&child, depth - 1);
                }
                false
            });
            n
        }
    }
}

fn perft_shak(pos: &shakmaty::Chess, depth: u32) -> u64 {
    use shakmaty::Position as _;
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => {
            let mut n = 0u64;
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                n += perft_shak(&child, depth - 1);
            }
            n
        }
    }
}

// ---------------------------------------------------------------------------
// The SAN data set.

/// (FEN, SAN of every legal move) for each distinct position visited by
/// seeded random games, SANs in epd-core's generation order.
struct SanData {
    fens: Vec<String>,
    /// All SAN strings, concatenated.
    bytes: Vec<u8>,
    /// Byte range of each SAN string in `bytes`.
    sans: Vec<Range<usize>>,
    /// Range of each position's SANs in `sans`.
    per_pos: Vec<Range<usize>>,
}

impl SanData {
    fn build(games: usize, max_plies: usize, seed: u64) -> SanData {
        let mut rng = XorShift::new(seed);
        let mut seen = HashSet::new();
        let mut data = SanData { fens: Vec::new(), bytes: Vec::new(), sans: Vec::new(), per_pos: Vec::new() };
        for _ in 0..games {
            let mut pos = epd_core::Position::startpos();
            for _ in 0..=max_plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let fen = pos.fen();
                if seen.insert(fen.clone()) {
                    let first = data.sans.len();
                    for &m in moves.iter() {
                        let start = data.bytes.len();
                        pos.append_san(m, &mut data.bytes);
                        data.sans.push(start..data.bytes.len());
                    }
                    data.per_pos.push(first..data.sans.len());
                    data.fens.push(fen);
                }
                let m = moves[rng.below(moves.len())];
                pos.play_unchecked(m);
            }
        }
        data
    }

    fn san(&self, i: usize) -> &[u8] {
        &self.bytes[self.sans[i].clone()]
    }

    fn moves(&self) -> u64 {
        self.sans.len() as u64
    }
}

struct EpdSan {
    positions: Vec<epd_core::Position>,
    /// Legal moves of each position (in the order of its SANs).
    moves: Vec<Vec<epd_core::Move>>,
}

struct ShakSan {
    positions: Vec<shakmaty::Chess>,
    /// Legal moves of each position, shakmaty's generation order.
    moves: Vec<Vec<shakmaty::Move>>,
}

fn shak_from_fen(fen: &str) -> shakmaty::Chess {
    use shakmaty::fen::Fen;
    let fen = Fen::from_ascii(fen.as_bytes()).expect("shakmaty reads the FEN");
    fen.into_position(shakmaty::CastlingMode::Standard).expect("shakmaty accepts the position")
}

impl EpdSan {
    fn build(data: &SanData) -> EpdSan {
        let positions: Vec<_> =
            data.fens.iter().map(|f| epd_core::Position::from_fen(f).expect("epd-core reads its own FEN")).collect();
        let moves = positions.iter().map(|p| p.legal_moves().to_vec()).collect();
        EpdSan { positions, moves }
    }
}

impl ShakSan {
    fn build(data: &SanData) -> ShakSan {
        use shakmaty::Position as _;
        let positions: Vec<_> = data.fens.iter().map(|f| shak_from_fen(f)).collect();
        let moves = positions.iter().map(|p| p.legal_moves().to_vec()).collect();
        ShakSan { positions, moves }
    }
}

/// Cross-checks the data set against both libraries before anything is
/// timed: each side's encoding of its own legal moves gives the same SAN
/// set, and every SAN decodes (strict, lenient, shakmaty) to a move that
/// encodes back to it.
fn verify(data: &SanData, epd: &EpdSan, shak: &ShakSan) {
    use shakmaty::san::SanPlus;
    let mut buf = Vec::new();
    for (i, range) in data.per_pos.iter().enumerate() {
        let (ep, sp) = (&epd.positions[i], &shak.positions[i]);
        let mut ours: Vec<&[u8]> = range.clone().map(|k| data.san(k)).collect();
        let mut theirs: Vec<Vec<u8>> = shak.moves[i]
            .iter()
            .map(|&m| {
                let mut v = Vec::new();
                SanPlus::from_move(sp.clone(), m).append_ascii_to(&mut v);
                v
            })
            .collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert!(
            ours.iter().copied().eq(theirs.iter().map(Vec::as_slice)),
            "SAN sets differ in {}:\n epd-core {:?}\n shakmaty {:?}",
            data.fens[i],
            ours.iter().map(|s| String::from_utf8_lossy(s)).collect::<Vec<_>>(),
            theirs.iter().map(|s| String::from_utf8_lossy(s)).collect::<Vec<_>>(),
        );
        assert_eq!(epd.moves[i].len(), range.len());
        for (j, k) in range.clone().enumerate() {
            let san = data.san(k);
            for mode in [epd_core::SanMode::Strict, epd_core::SanMode::Lenient] {
                let m = ep.parse_san(san, mode).unwrap_or_else(|e| {
                    panic!("epd-core {mode:?} rejects {} in {}: {e}", String::from_utf8_lossy(san), data.fens[i])
                });
                assert_eq!(m, epd.moves[i][j], "epd-core {mode:?} decodes {}", String::from_utf8_lossy(san));
            }
            let m = SanPlus::from_ascii(san).expect("shakmaty parses").san.to_move(sp).expect("shakmaty resolves");
            buf.clear();
            SanPlus::from_move(sp.clone(), m).append_ascii_to(&mut buf);
            assert_eq!(buf, san, "shakmaty round trip in {}", data.fens[i]);
        }
    }
}

// The timed SAN loops. Each returns a checksum so that nothing is optimized
// away, and the number of moves it handled.

fn encode_epd(epd: &EpdSan) -> (u64, u64) {
    let mut buf = Vec::with_capacity(16);
    let (mut bytes, mut n) = (0u64, 0u64);
    for (pos, moves) in epd.positions.iter().zip(&epd.moves) {
        for &m in moves {
            buf.clear();
            pos.append_san(m, &mut buf);
            bytes += buf.len() as u64;
            n += 1;
        }
    }
    (black_box(bytes), n)
}

fn encode_shak(shak: &ShakSan) -> (u64, u64) {
    use shakmaty::san::SanPlus;
    let mut buf = Vec::with_capacity(16);
    let (mut bytes, mut n) = (0u64, 0u64);
    for (pos, moves) in shak.positions.iter().zip(&shak.moves) {
        for &m in moves {
            buf.clear();
            SanPlus::from_move(pos.clone(), m).append_ascii_to(&mut buf);
            bytes += buf.len() as u64;
            n += 1;
        }
    }
    (black_box(bytes), n)
}

fn decode_epd(data: &SanData, epd: &EpdSan, mode: epd_core::SanMode) -> (u64, u64) {
    let (mut ok, mut n) = (0u64, 0u64);
    for (pos, range) in epd.positions.iter().zip(&data.per_pos) {
        for k in range.clone() {
            if let Ok(m) = pos.parse_san(black_box(data.san(k)), mode) {
                black_box(m);
                ok += 1;
            }
            n += 1;
        }
    }
    assert_eq!(ok, n, "epd-core failed to decode some SAN");
    (ok, n)
}

fn decode_shak(data: &SanData, shak: &ShakSan) -> (u64, u64) {
    use shakmaty::san::SanPlus;
    let (mut ok, mut n) = (0u64, 0u64);
    for (pos, range) in shak.positions.iter().zip(&data.per_pos) {
        for k in range.clone() {
            if let Ok(sp) = SanPlus::from_ascii(black_box(data.san(k))) {
                if let Ok(m) = sp.san.to_move(pos) {
                    black_box(m);
                    ok += 1;
                }
            }
            n += 1;
        }
    }
    assert_eq!(ok, n, "shakmaty failed to decode some SAN");
    (ok, n)
}

// ---------------------------------------------------------------------------
// Driver.

#[derive(Copy, Clone, PartialEq, Eq)]
enum Lib {
    Epd,
    Cozy,
    Shak,
}

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Epd => "epd-core",
            Lib::Cozy => "cozy-chess",
            Lib::Shak => "shakmaty",
        }
    }
}

/// The libraries in an order rotated by `round`, so that no library always
/// runs first (or right after the same other one).
fn rotated(libs: &[Lib], round: usize) -> Vec<Lib> {
    let mut v = libs.to_vec();
    v.rotate_left(round % libs.len());
    if (round / libs.len()) % 2 == 1 {
        v.reverse();
    }
    v
}

struct PerftCase {
    name: &'static str,
    depth: u32,
    expected: u64,
    epd: epd_core::Position,
    cozy: cozy_chess::Board,
    shak: shakmaty::Chess,
    samples: [Measured; 3],
}

impl PerftCase {
    fn new(name: &'static str, fen: &str, depth: u32, expected: u64) -> PerftCase {
        PerftCase {
            name,
            depth,
            expected,
            epd: epd_core::Position::from_fen(fen).expect("epd-core FEN"),
            cozy: cozy_chess::Board::from_fen(fen, false).expect("cozy-chess FEN"),
            shak: shak_from_fen(fen),
            samples: Default::default(),
        }
    }

    fn run(&mut self, lib: Lib) {
        let d = black_box(self.depth);
        let (nodes, t) = match lib {
            Lib::Epd => timed(|| perft_epd(black_box(&self.epd), d)),
            Lib::Cozy => timed(|| perft_cozy(black_box(&self.cozy), d)),
            Lib::Shak => timed(|| perft_shak(black_box(&self.shak), d)),
        };
        assert_eq!(nodes, self.expected, "{} perft({}) of {}", lib.name(), self.depth, self.name);
        self.samples[lib as usize].push(nodes, t);
    }
}

struct Config {
    quick: bool,
    runs: usize,
}

fn config() -> Config {
    let env_quick = std::env::var("EPD_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`,
    // which builds without optimizations) only a one-round smoke run is made.
    let benching = std::env::args().any(|a| a == "--bench");
    let quick = env_quick || !benching || std::env::args().any(|a| a == "--quick");
    let runs = std::env::var("EPD_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).filter(|&n: &usize| n > 0).unwrap_or(
        if !benching {
            1
        } else if quick {
            3
        } else {
            7
        },
    );
    Config { quick, runs }
}

fn main() {
    let cfg = config();
    let (sd, kd, games, plies) = if cfg.quick { (4, 3, 100, 80) } else { (6, 5, 2000, 80) };
    let expect = |depth, table: &[(u32, u64)]| table.iter().find(|e| e.0 == depth).map(|e| e.1).unwrap();
    let start_counts = [(3, 8_902), (4, 197_281), (5, 4_865_609), (6, 119_060_324)];
    let kiwi_counts = [(3, 97_862), (4, 4_085_603), (5, 193_690_690)];
    let startfen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut perfts = [
        PerftCase::new("start position", startfen, sd, expect(sd, &start_counts)),
        PerftCase::new("Kiwipete", KIWIPETE, kd, expect(kd, &kiwi_counts)),
    ];

    eprintln!("building the SAN data set ({games} games of up to {plies} plies, seed {SAN_SEED:#x}) ...");
    let data = SanData::build(games, plies, SAN_SEED);
    let epd = EpdSan::build(&data);
    let shak = ShakSan::build(&data);
    eprintln!("  {} distinct positions, {} (position, SAN) pairs; cross-checking ...", data.fens.len(), data.moves());
    verify(&data, &epd, &shak);
    eprintln!("  epd-core and shakmaty agree on every SAN");

    // Warm-up (caches, page faults of the attack tables, CPU clocks), not
    // recorded: perft(3) of each case, one SAN pass of each kind.
    for (case, counts) in perfts.iter_mut().zip([&start_counts[..], &kiwi_counts[..]]) {
        let saved = (case.depth, case.expected);
        (case.depth, case.expected) = (3, expect(3, counts));
        for lib in [Lib::Epd, Lib::Cozy, Lib::Shak] {
            case.run(lib);
        }
        (case.depth, case.expected) = saved;
        case.samples = Default::default();
    }
    black_box(encode_epd(&epd));
    black_box(encode_shak(&shak));
    black_box(decode_epd(&data, &epd, epd_core::SanMode::Strict));
    black_box(decode_shak(&data, &shak));

    // SAN cases: 0 encode epd-core, 1 encode shakmaty, 2 decode epd-core
    // Strict, 3 decode epd-core Lenient, 4 decode shakmaty.
    let mut san: [Measured; 5] = Default::default();
    let all = [Lib::Epd, Lib::Cozy, Lib::Shak];
    let t0 = std::time::Instant::now();
    for round in 0..cfg.runs {
        eprintln!("round {}/{} ...", round + 1, cfg.runs);
        for case in &mut perfts {
            for lib in rotated(&all, round) {
                case.run(lib);
            }
        }
        let mut order = [0usize, 1, 2, 3, 4];
        order.rotate_left(round % 5);
        for which in order {
            let ((_, n), t) = match which {
                0 => timed(|| encode_epd(&epd)),
                1 => timed(|| encode_shak(&shak)),
                2 => timed(|| decode_epd(&data, &epd, epd_core::SanMode::Strict)),
                3 => timed(|| decode_epd(&data, &epd, epd_core::SanMode::Lenient)),
                _ => timed(|| decode_shak(&data, &shak)),
            };
            san[which].push(n, t);
        }
    }
    eprintln!("measured in {:.0} s", t0.elapsed().as_secs_f64());

    // Report.
    let quick = if cfg.quick { " QUICK smoke run (shallow depths, small data set): not for the record." } else { "" };
    println!();
    println!("Single-threaded; medians of {} runs, libraries interleaved, order rotated per round.{quick}", cfg.runs);
    println!(
        "SAN data set: {games} games of up to {plies} plies of seeded xorshift64 random play (seed {SAN_SEED:#x}): \
         {} distinct positions, {} (position, SAN) pairs.",
        data.fens.len(),
        data.moves()
    );
    println!();
    println!("Throughput by wall-clock time (higher is better; a ratio above 1 means epd-core is faster):");
    println!();
    println!(
        "| Benchmark | unit | epd-core | cozy-chess | shakmaty | epd-core / cozy-chess | epd-core / shakmaty | goal |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|---|");
    // The ratio of the medians, then the median of the per-round ratios.
    let both = |a: &Measured, b: &Measured| {
        let (a, b) = (&a.wall, &b.wall);
        format!("{} ({})", ratio(a.median_rate(), b.median_rate()), ratio(paired_ratio(a, b), 1.0))
    };
    for case in &perfts {
        let [e, c, s] = &case.samples;
        println!(
            "| perft({}) {} ({} nodes) | Mnodes/s | {} | {} | {} | {} | {} | ≥1.0× cozy, ≥1.3× shakmaty |",
            case.depth,
            case.name,
            case.expected,
            mega(e.wall.median_rate()),
            mega(c.wall.median_rate()),
            mega(s.wall.median_rate()),
            both(e, c),
            both(e, s)
        );
    }
    let rows = [
        ("SAN encode: `append_san` / `SanPlus::from_move` (with +/#)", &san[0], &san[1]),
        ("SAN decode: `parse_san` Strict / `SanPlus::from_ascii` + `to_move`", &san[2], &san[4]),
        ("SAN decode: `parse_san` Lenient / `SanPlus::from_ascii` + `to_move`", &san[3], &san[4]),
    ];
    for (label, e, s) in rows {
        println!(
            "| {label} | Mmoves/s | {} | — | {} | — | {} | ≥1.5× shakmaty |",
            mega(e.wall.median_rate()),
            mega(s.wall.median_rate()),
            both(e, s)
        );
    }
    println!();
    println!("Ratios: ratio of the median throughputs, and in parentheses the median of the per-round ratios");
    println!("(each round runs the libraries back to back, so paired runs share the machine's momentary load).");

    println!();
    println!(
        "Run-to-run noise, wall clock (spread = (max − min) / median of the throughputs; \
         CPU/wall = median on-CPU time of the thread / median wall time, from /proc/thread-self/schedstat):"
    );
    println!();
    println!("| Case | library | median s/run | min–max M/s | spread | CPU/wall |");
    println!("|---|---|--:|--:|--:|--:|");
    let row = |case: &str, lib: &str, m: &Measured| {
        let (lo, hi) = m.wall.rate_range();
        // schedstat advances in scheduler ticks: meaningless for short runs.
        let busy = if m.cpu.len() != m.wall.len() || m.wall.median_secs() < 0.1 {
            "—".to_string()
        } else {
            format!("{:.0}%", 100.0 * m.cpu.median_secs() / m.wall.median_secs())
        };
        println!(
            "| {case} | {lib} | {:.3} | {}–{} | {:.0}% | {busy} |",
            m.wall.median_secs(),
            mega(lo),
            mega(hi),
            100.0 * m.wall.spread()
        );
    };
    for case in &perfts {
        let label = format!("perft({}) {}", case.depth, case.name);
        for lib in all {
            row(&label, lib.name(), &case.samples[lib as usize]);
        }
    }
    row("SAN encode", "epd-core", &san[0]);
    row("SAN encode", "shakmaty", &san[1]);
    row("SAN decode", "epd-core Strict", &san[2]);
    row("SAN decode", "epd-core Lenient", &san[3]);
    row("SAN decode", "shakmaty", &san[4]);
}
