//! The built-in engine: search speed (nodes per second, single thread)
//! on five middlegame and endgame positions, and tactical strength on the
//! first 50 Win At Chess positions (`bm` of the Arasan edition), at a
//! fixed node budget and at a fixed time per position.
//!
//! ```text
//! cargo bench -p epd-bench --bench engine               # depth 11, 100k nodes and 1 s per WAC position
//! cargo bench -p epd-bench --bench engine -- --quick    # depth 8, 10 WAC positions at 20k nodes
//! EPD_BENCH_WAC_MS=500 cargo bench -p epd-bench --bench engine
//! ```
//!
//! Wall-clock figures: run on an otherwise idle machine.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use epd_core::{Opcode, ParseMode, Position, Record};
use epd_engine::search::{SearchLimits, Searcher};

const POSITIONS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5pp1/p3p2p/3bP3/1p1B4/1P3PP1/r5KP/3R4 w - - 0 30",
];

fn corpora() -> PathBuf {
    epd_testkit::corpus_dir()
}

fn search(searcher: &mut Searcher, pos: &Position, limits: &SearchLimits) -> epd_engine::search::Outcome {
    searcher.search(pos, &[], limits, &AtomicBool::new(false), &mut |_| {})
}

fn wac(limits: &SearchLimits, count: usize, label: &str) {
    let path = corpora().join("wac_arasan.epd");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut searcher = Searcher::new(32);
    let (mut solved, mut total, mut nodes) = (0, 0, 0u64);
    let started = Instant::now();
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).take(count) {
        let (rec, _) = Record::parse(line, ParseMode::Strict);
        let Some(pos) = rec.position() else { continue };
        let bm: Vec<_> = rec.get_known(Opcode::Bm).map(|op| op.moves().flatten().collect()).unwrap_or_default();
        searcher.clear();
        let out = search(&mut searcher, pos, limits);
        total += 1;
        nodes += out.nodes;
        if out.best.is_some_and(|b| bm.contains(&b)) {
            solved += 1;
        }
    }
    println!(
        "| WAC 1-{total}, {label} | {solved}/{total} solved | {nodes} nodes | {:.1} s |",
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var_os("EPD_BENCH_QUICK").is_some()
        || cfg!(debug_assertions);
    let depth = if quick { 8 } else { 11 };
    let mut searcher = Searcher::new(16);
    let (mut nodes, mut time) = (0u64, Duration::ZERO);
    println!("| position | depth | nodes | time | nodes/s |\n|---|---|---|---|---|");
    for fen in POSITIONS {
        let pos: Position = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
        searcher.clear();
        let out = search(&mut searcher, &pos, &SearchLimits { depth: Some(depth), ..SearchLimits::default() });
        nodes += out.nodes;
        time += out.elapsed;
        let nps = out.nodes as f64 / out.elapsed.as_secs_f64().max(1e-9);
        println!("| `{fen}` | {} | {} | {:.3} s | {nps:.0} |", out.depth, out.nodes, out.elapsed.as_secs_f64());
    }
    println!(
        "| total | | {nodes} | {:.3} s | {:.0} |\n",
        time.as_secs_f64(),
        nodes as f64 / time.as_secs_f64().max(1e-9)
    );

    println!("| suite | result | nodes | time |\n|---|---|---|---|");
    if quick {
        wac(&SearchLimits { nodes: Some(20_000), ..SearchLimits::default() }, 10, "20k nodes each");
        return;
    }
    wac(&SearchLimits { nodes: Some(100_000), ..SearchLimits::default() }, 50, "100k nodes each");
    let ms = std::env::var("EPD_BENCH_WAC_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    wac(
        &SearchLimits { movetime: Some(Duration::from_millis(ms)), ..SearchLimits::default() },
        50,
        &format!("{ms} ms each"),
    );
}
