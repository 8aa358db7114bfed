//! pfms against Stockfish's `go mate N`, side by side in one run.
//!
//! The positions: every matetrack.epd record labelled `bm #1`, `#2` or
//! `#3`, and every position of sunfish_mate2.fen and sunfish_mate3.fen.
//! For each one, EPD Kit's prover (`epd_engine::mate::MateSolver`, the
//! search behind `epd mate -n 3`) runs passes 1, 2, 3 as `epd mate` does;
//! then Stockfish (one thread, 64 MB hash, `ucinewgame` before each
//! position) is asked `go mate N` with N the position's known length, and
//! timed until its `bestmove`. A Stockfish search longer than
//! `EPD_BENCH_SF_CAP` seconds (default 600) is stopped and counted at the
//! cap, so Stockfish's total is then a lower bound.
//!
//! Run: `cargo bench -p epd-bench --bench mate_stockfish`
//! (`EPD_BENCH_STOCKFISH` overrides the engine path, default
//! /usr/games/stockfish; `EPDKIT_CORPORA` the corpus folder).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use epd_bench::median;
use epd_core::{Opcode, ParseMode, Position, Record};
use epd_engine::mate::MateSolver;

fn corpora() -> PathBuf {
    epd_testkit::corpus_dir()
}

/// (label, position, known mate length).
fn positions() -> Vec<(String, Position, u32)> {
    let dir = corpora();
    let mut out = Vec::new();
    let text = std::fs::read(dir.join("matetrack.epd")).expect("matetrack.epd");
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let (rec, _) = Record::parse(line, ParseMode::Lenient);
        // Lenient reading turns `bm #N` into dm N (a claim; re-proved here).
        let Some(dm) = rec.get_known(Opcode::Dm).and_then(|o| o.operand(0)?.as_integer()) else { continue };
        if !(1..=3).contains(&dm) {
            continue;
        }
        if let Some(pos) = rec.position() {
            out.push((format!("matetrack.epd:{}", i + 1), *pos, dm as u32));
        }
    }
    for (file, n) in [("sunfish_mate2.fen", 2), ("sunfish_mate3.fen", 3)] {
        let text = std::fs::read(dir.join(file)).expect(file);
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            let (rec, _) = Record::parse(line, ParseMode::Lenient);
            if let Some(pos) = rec.position() {
                out.push((format!("{file}:{}", i + 1), *pos, n));
            }
        }
    }
    out
}

struct Stockfish {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Stockfish {
    fn start(path: &str) -> Stockfish {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {path}: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut sf = Stockfish { child, stdin, lines };
        sf.send("uci");
        sf.wait_for("uciok", Duration::from_secs(10));
        sf.send("setoption name Threads value 1");
        sf.send("setoption name Hash value 64");
        sf.send("isready");
        sf.wait_for("readyok", Duration::from_secs(10));
        sf
    }

    fn send(&mut self, cmd: &str) {
        writeln!(self.stdin, "{cmd}").and_then(|()| self.stdin.flush()).expect("write to stockfish");
    }

    /// Waits for a line starting with `prefix`; returns it, or `None` at
    /// the timeout.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Some(line),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("stockfish exited"),
            }
        }
    }

    /// `go mate n`: the time to its bestmove and whether it came within
    /// the cap, plus the last `score mate` it printed.
    fn go_mate(&mut self, pos: &Position, n: u32, cap: Duration) -> (Duration, bool, Option<i64>) {
        self.send("ucinewgame");
        self.send(&format!("position fen {}", pos.fen()));
        self.send("isready");
        self.wait_for("readyok", Duration::from_secs(30));
        let start = Instant::now();
        self.send(&format!("go mate {n}"));
        let mut mate = None;
        loop {
            let left = cap.checked_sub(start.elapsed()).unwrap_or_default();
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with("bestmove") => return (start.elapsed(), true, mate),
                Ok(line) => {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    if let Some(i) = words.iter().position(|w| *w == "mate") {
                        if words.get(i.wrapping_sub(1)) == Some(&"score") {
                            mate = words.get(i + 1).and_then(|v| v.parse().ok());
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.send("stop");
                    self.wait_for("bestmove", Duration::from_secs(30));
                    return (cap, false, mate);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("stockfish exited"),
            }
        }
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

fn main() {
    let path = std::env::var("EPD_BENCH_STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    let cap = Duration::from_secs(std::env::var("EPD_BENCH_SF_CAP").ok().and_then(|s| s.parse().ok()).unwrap_or(600));
    let positions = positions();
    println!(
        "{} positions (mates in 1-3); Stockfish: {path}, 1 thread, 64 MB, cap {} s",
        positions.len(),
        cap.as_secs()
    );

    // EPD Kit: passes 1..=3 on each position, as `epd mate -n 3` does.
    let mut solver = MateSolver::with_table_bits(20);
    let mut ours = Vec::new();
    let mut wrong = 0;
    for (label, pos, n) in &positions {
        let start = Instant::now();
        let found = solver.find_mate(pos, 3);
        let t = start.elapsed();
        if found.as_ref().map(|m| m.moves) != Some(*n) {
            wrong += 1;
            println!("epd: {label}: expected mate in {n}, found {:?}", found.map(|m| m.moves));
        }
        ours.push(t.as_secs_f64());
    }

    let mut sf = Stockfish::start(&path);
    let mut theirs = Vec::new();
    let mut capped = 0;
    let mut sf_wrong = 0;
    for (label, pos, n) in &positions {
        let (t, finished, mate) = sf.go_mate(pos, *n, cap);
        if !finished {
            capped += 1;
            println!("stockfish: {label}: no bestmove within {} s", cap.as_secs());
        } else if mate != Some(i64::from(*n)) {
            sf_wrong += 1;
            println!("stockfish: {label}: expected score mate {n}, last printed {mate:?}");
        }
        theirs.push(t.as_secs_f64());
    }

    let total = |xs: &[f64]| xs.iter().sum::<f64>();
    let max = |xs: &[f64]| xs.iter().copied().fold(0.0, f64::max);
    println!();
    println!("| prover | proved | total | median | slowest |");
    println!("|---|--:|--:|--:|--:|");
    println!(
        "| EPD Kit pfms (passes 1..3) | {}/{} | {:.3} s | {:.2} ms | {:.1} ms |",
        positions.len() - wrong,
        positions.len(),
        total(&ours),
        median(&ours) * 1e3,
        max(&ours) * 1e3
    );
    println!(
        "| Stockfish `go mate N` | {}/{}{} | {:.3} s{} | {:.2} ms | {:.1} ms |",
        positions.len() - capped - sf_wrong,
        positions.len(),
        if capped > 0 { format!(" ({capped} stopped at the cap)") } else { String::new() },
        total(&theirs),
        if capped > 0 { " (lower bound)" } else { "" },
        median(&theirs) * 1e3,
        max(&theirs) * 1e3
    );
    println!("total time ratio (Stockfish / EPD Kit): {:.0}x", total(&theirs) / total(&ours).max(1e-9));
}
