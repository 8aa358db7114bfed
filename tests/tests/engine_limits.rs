//! Hard limits of the built-in engine and the mate prover on positions
//! built to break them: every valid record of the shared corpora's
//! destruction-test.epd (18 rooks, 18 queens, 30 queens, 30 knights…)
//! and seeded random crowded positions. Each limit (movetime, the
//! engine timeout, a node budget, the stop flag raised from another
//! thread, and the mate prover's deadline and stop flag) must end the
//! search in time with a legal move. The worst overshoot of each limit
//! is printed (`cargo test --release -p epd-tests --test engine_limits
//! -- --nocapture`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use epd_core::{ParseMode, Position, Record};
use epd_engine::mate::MateSolver;
use epd_engine::search::{SearchLimits, Searcher, FIRST_BATCH};
use epd_engine::{Builtin, Engine, Limits};
use epd_testkit::{corpus, XorShift};

/// The time limit given to each search.
const LIMIT: Duration = Duration::from_millis(60);
/// How late a search may end. The engine polls every 1024 nodes (well
/// under a millisecond even here); the rest is room for a loaded
/// two-core machine running other tests at the same time.
const SLACK: Duration = Duration::from_millis(250);

/// Positions of destruction-test.epd that the lenient reader accepts,
/// with legal moves for the side to move.
fn destruction_positions() -> Vec<(String, Position)> {
    let text = corpus("destruction-test.epd");
    let mut out = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let (rec, _) = Record::parse(line, ParseMode::Lenient);
        if let Some(pos) = rec.position() {
            if pos.has_legal_moves() {
                out.push((format!("destruction-test.epd:{}", i + 1), *pos));
            }
        }
    }
    out
}

/// Seeded random positions with 20 to 30 pieces besides the kings, most
/// of them queens and rooks, read leniently (unreachable material
/// accepted); only those with a legal move are kept.
fn crowded_positions(seed: u64, count: usize) -> Vec<(String, Position)> {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut board = [b'.'; 64];
        let mut free: Vec<usize> = (0..64).collect();
        let mut take = |rng: &mut XorShift| free.swap_remove(rng.below(free.len()));
        board[take(&mut rng)] = b'K';
        board[take(&mut rng)] = b'k';
        let pieces = 20 + rng.below(11);
        for _ in 0..pieces {
            let sq = take(&mut rng);
            let kinds = b"QQQRRRBNP";
            let mut p = kinds[rng.below(kinds.len())];
            if p == b'P' && (sq / 8 == 0 || sq / 8 == 7) {
                p = b'Q';
            }
            board[sq] = if rng.below(2) == 0 { p } else { p.to_ascii_lowercase() };
        }
        let mut fen = String::new();
        for rank in 0..8 {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    b'.' => empty += 1,
                    c => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(char::from(c));
                    }
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank < 7 {
                fen.push('/');
            }
        }
        fen.push_str(if rng.below(2) == 0 { " w - -" } else { " b - -" });
        if let Ok(pos) = Position::from_fen_bytes(fen.as_bytes(), ParseMode::Lenient) {
            if pos.has_legal_moves() {
                out.push((fen, pos));
            }
        }
    }
    out
}

fn all_positions() -> Vec<(String, Position)> {
    let mut v = destruction_positions();
    assert!(v.len() >= 20, "destruction-test.epd: only {} usable positions", v.len());
    v.extend(crowded_positions(0x5EED_CAFE, 12));
    v
}

/// The worst overshoot seen for one limit.
#[derive(Default)]
struct Worst {
    over: Duration,
    at: String,
    searches: usize,
}

impl Worst {
    fn see(&mut self, name: &str, elapsed: Duration, limit: Duration) {
        self.searches += 1;
        let over = elapsed.saturating_sub(limit);
        if over >= self.over {
            self.over = over;
            self.at = name.to_owned();
        }
        assert!(elapsed <= limit + SLACK, "{name}: ran {elapsed:?} for a limit of {limit:?}");
    }

    fn report(&self, what: &str) {
        eprintln!("{what}: {} searches, worst overshoot {:?} ({})", self.searches, self.over, self.at);
    }
}

/// A stop flag and the thread that raises it after `after`.
fn raise_after(after: Duration) -> (Arc<AtomicBool>, thread::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let raiser = thread::spawn(move || {
        thread::sleep(after);
        flag.store(true, Ordering::Relaxed);
    });
    (stop, raiser)
}

fn assert_legal(name: &str, pos: &Position, best: Option<epd_core::Move>) {
    let m = best.unwrap_or_else(|| panic!("{name}: no move though the position has legal moves"));
    assert!(pos.is_legal(m), "{name}: {m:?} is not legal");
}

#[test]
fn movetime_and_node_limits_end_every_search() {
    let positions = all_positions();
    let mut searcher = Searcher::new(4);
    let stop = AtomicBool::new(false);
    let (mut by_time, mut by_nodes) = (Worst::default(), Worst::default());
    let mut worst_nodes = 0u64;
    for (name, pos) in &positions {
        searcher.clear();
        let limits = SearchLimits { movetime: Some(LIMIT), ..SearchLimits::default() };
        let t = Instant::now();
        let out = searcher.search(pos, &[], &limits, &stop, &mut |_| {});
        by_time.see(name, t.elapsed(), LIMIT);
        assert_legal(name, pos, out.best);

        searcher.clear();
        let budget = 20_000;
        let limits = SearchLimits { nodes: Some(budget), ..SearchLimits::default() };
        let out = searcher.search(pos, &[], &limits, &stop, &mut |_| {});
        assert!(out.nodes <= budget.max(FIRST_BATCH), "{name}: {} nodes for a budget of {budget}", out.nodes);
        worst_nodes = worst_nodes.max(out.nodes.saturating_sub(budget));
        by_nodes.searches += 1;
        assert_legal(name, pos, out.best);
    }
    by_time.report("movetime 60 ms");
    eprintln!("nodes 20000: {} searches, worst overshoot {worst_nodes} nodes", by_nodes.searches);
}

#[test]
fn the_stop_flag_ends_every_search() {
    let positions = all_positions();
    let mut searcher = Searcher::new(4);
    let mut worst = Worst::default();
    for (name, pos) in &positions {
        searcher.clear();
        let (stop, raiser) = raise_after(LIMIT);
        let t = Instant::now();
        let out = searcher.search(pos, &[], &SearchLimits::default(), &stop, &mut |_| {});
        worst.see(name, t.elapsed(), LIMIT);
        raiser.join().unwrap_or_else(|_| panic!("raiser thread"));
        assert_legal(name, pos, out.best);
    }
    worst.report("stop after 60 ms");
}

#[test]
fn the_engine_timeout_and_multipv_end_in_time() {
    // Through the Engine interface, as `epd analyze --timeout` and
    // `--multipv` use it: each further line is a search of its own.
    let positions = all_positions();
    let mut engine = Builtin::new(4);
    let stop = AtomicBool::new(false);
    let mut worst = Worst::default();
    for (name, pos) in positions.iter().step_by(2) {
        engine.new_game().unwrap_or_else(|e| panic!("{e}"));
        let limits = Limits { timeout: Some(LIMIT), multipv: 3, ..Limits::depth(30) };
        let t = Instant::now();
        let a = engine.analyze(pos, &limits, &stop).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Three lines sharing the timeout.
        worst.see(name, t.elapsed(), LIMIT);
        assert_legal(name, pos, a.best);
    }
    worst.report("engine timeout 60 ms, multipv 3");
}

#[test]
fn the_mate_prover_meets_its_deadline_and_stop_flag() {
    let positions = all_positions();
    let mut solver = MateSolver::with_table_bits(16);
    let (mut by_time, mut by_stop) = (Worst::default(), Worst::default());
    let mut abandoned = 0;
    for (name, pos) in &positions {
        solver.set_deadline(Some(Instant::now() + LIMIT));
        let t = Instant::now();
        let found = solver.find_mate(pos, 8);
        by_time.see(name, t.elapsed(), LIMIT);
        if let Some(m) = &found {
            // A mate reported under a deadline is still a proven mate.
            let mut q = *pos;
            for &mv in &m.pv {
                assert!(q.is_legal(mv), "{name}: illegal mate line");
                q.play_unchecked(mv);
            }
            assert!(q.is_checkmate(), "{name}: the line does not mate");
        }
        abandoned += usize::from(solver.aborted());
        solver.set_deadline(None);

        let (stop, raiser) = raise_after(LIMIT);
        solver.set_stop(stop);
        let t = Instant::now();
        let _ = solver.find_mate(pos, 8);
        let took = t.elapsed();
        raiser.join().unwrap_or_else(|_| panic!("raiser thread"));
        if solver.aborted() {
            by_stop.see(name, took, LIMIT);
        }
    }
    // Most of these positions have no short mate and cannot be searched
    // to 8 moves in 60 ms: the limits, not the search, ended them.
    assert!(abandoned * 2 >= positions.len(), "only {abandoned} of {} searches met the deadline", positions.len());
    by_time.report("mate prover deadline 60 ms");
    by_stop.report("mate prover stop after 60 ms");
}
