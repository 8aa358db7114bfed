//! `epd match` against fastchess, the same command line through both
//! (issue 44): depth-limited games, the built-in engine (`epd uci`) and
//! Stockfish, at concurrency 1 and 2, `epd match` with its default
//! journal (each move written ahead, synced once a turn). Each case runs
//! both managers in turn, `EPD_BENCH_RUNS` rounds (default 3), in fresh
//! directories, and reports medians of:
//!
//! - wall time of the whole match;
//! - move time per ply: the mean of what each manager measured from
//!   `go` to `bestmove`, each move's time cut to whole milliseconds as
//!   fastchess cuts it (it keeps whole milliseconds only, and writes
//!   them after every move, `{+0.31/8 0.012s ...}`); `epd match`'s are
//!   read from its journal, which keeps each move's time to the
//!   nanosecond (its PGN rounds them, so that the clocks add up);
//! - the manager's own CPU time per ply (user + system of its process,
//!   its engines excluded), sampled from /proc every 5 ms;
//! - with `EPD_BENCH_LATENCY=1`, from each manager's `-show-latency` lines (`Engine sf8 latency: -1ms
//!   (elapsed: 2, reported: 3)`, both in whole milliseconds): the time
//!   the engine itself reported at its `bestmove` (its last `info ...
//!   time`), and the latency, the move time less that: what the manager
//!   and the machine added to the engine's own search. The engines'
//!   reported time grows when their searches overlap on a busy machine,
//!   the latency when the manager is slow to write `go` or to read
//!   `bestmove`. Off by default: fastchess writes these lines through
//!   its `info` log level, which raises its CPU per ply.
//!
//! Then `epd match` is killed with SIGKILL mid-match and run again with
//! `--resume`: every game finished before the kill is in the final PGN
//! as it was, and no round is played twice.
//!
//! `EPD_BENCH_FASTCHESS=/path/to/fastchess cargo bench -p epd-bench --bench
//! match_fastchess` (../shared/peers/README.md says how to build it;
//! skipped without it). `EPD_BENCH_GAMES` sets the games per match
//! (default 20, even); `EPD_BENCH_JOURNAL_SYNC` passes `--journal-sync`
//! to `epd match` (to see what the journal's syncs cost).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use epd_bench::{median, release_cli, watch_process};

/// One match's figures.
#[derive(Clone, Copy, Debug, Default)]
struct Figures {
    games: usize,
    plies: usize,
    wall: f64,
    /// Mean seconds per ply measured, each cut to whole milliseconds.
    move_time: f64,
    /// Manager CPU seconds per ply.
    cpu_per_ply: f64,
    /// Mean milliseconds the engine reported at its `bestmove`.
    reported: f64,
    /// Mean milliseconds of latency (elapsed less reported).
    latency: f64,
}

/// The `(latency, reported)` milliseconds of each `-show-latency` line
/// of `log` (fastchess's and `epd match`'s lines read alike).
fn latencies(log: &Path) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let number = |s: &str| s.trim_end_matches(['m', 's', ',', ')']).parse::<f64>().ok();
    text.lines()
        .filter_map(|line| {
            let rest = &line[line.find(" latency: ")? + 10..];
            let mut words = rest.split_whitespace();
            let latency = number(words.next()?)?;
            let reported = rest.split("reported: ").nth(1).and_then(number)?;
            Some((latency, reported))
        })
        .collect()
}

/// The games of a PGN (tags and movetext) in file order.
fn games(text: &str) -> Vec<(Vec<(String, String)>, String)> {
    let mut out = Vec::new();
    let mut tags = Vec::new();
    let mut moves = String::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")) {
            if !moves.trim().is_empty() {
                out.push((std::mem::take(&mut tags), std::mem::take(&mut moves)));
            }
            if let Some((k, v)) = t.split_once(" \"") {
                tags.push((k.to_owned(), v.to_owned()));
            }
        } else {
            moves.push_str(line);
            moves.push('\n');
        }
    }
    if !moves.trim().is_empty() {
        out.push((tags, moves));
    }
    out
}

/// Plies and the seconds written after each: the token `T.TTTs` that
/// follows a comment's `score/depth` (book moves carry none).
fn move_times(movetext: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut rest = movetext;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        let comment = &rest[open + 1..close];
        let mut words = comment.split_whitespace();
        if words.next().is_some_and(|w| w.contains('/')) {
            if let Some(t) = words.next().and_then(|w| w.trim_end_matches(',').strip_suffix('s')) {
                if let Ok(t) = t.parse::<f64>() {
                    out.push(t);
                }
            }
        }
        rest = &rest[(close + 1).min(rest.len())..];
    }
    out
}

/// Each move's time in `journal` (`epd match`'s), cut to whole
/// milliseconds; `None` without a journal (fastchess).
fn journal_move_times(journal: &Path) -> Option<Vec<f64>> {
    let entries = epd_referee::journal::read_entries(journal).ok()?;
    let times = entries.iter().filter_map(|e| match serde_json::from_slice(e) {
        Ok(epd_referee::journal::entry::Entry::Move { ns, .. }) => Some((ns / 1_000_000) as f64 / 1e3),
        _ => None,
    });
    Some(times.collect())
}

fn figures(dir: &Path, wall: Duration, cpu: Duration) -> Figures {
    let text = std::fs::read_to_string(dir.join("games.pgn")).unwrap_or_default();
    let g = games(&text);
    let written = || g.iter().flat_map(|(_, m)| move_times(m)).collect();
    let times: Vec<f64> = journal_move_times(&dir.join("referee.journal")).unwrap_or_else(written);
    let plies = times.len();
    let lat = latencies(&dir.join("latency.log"));
    let mean = |f: fn(&(f64, f64)) -> f64| lat.iter().map(f).sum::<f64>() / lat.len().max(1) as f64;
    Figures {
        games: g.len(),
        plies,
        wall: wall.as_secs_f64(),
        move_time: times.iter().sum::<f64>() / plies.max(1) as f64,
        cpu_per_ply: cpu.as_secs_f64() / plies.max(1) as f64,
        reported: mean(|l| l.1),
        latency: mean(|l| l.0),
    }
}

/// A case: the engines' options after `-engine`, and the concurrency.
struct Case {
    name: &'static str,
    engines: [Vec<String>; 2],
    concurrency: usize,
}

/// The common options of a match of `games` games.
fn common(games: usize, concurrency: usize) -> Vec<String> {
    let mut v: Vec<String> = ["-rounds", &(games / 2).to_string(), "-games", "2", "-repeat", "-concurrency"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    v.push(concurrency.to_string());
    v.extend(
        ["-openings", "file=book.epd", "format=epd", "order=sequential", "-pgnout", "file=games.pgn"]
            .iter()
            .map(|s| (*s).to_owned()),
    );
    v
}

fn args_of(case: &Case, games: usize) -> Vec<String> {
    let mut v = Vec::new();
    for e in &case.engines {
        v.push("-engine".to_owned());
        v.extend(e.iter().cloned());
    }
    v.extend(common(games, case.concurrency));
    v
}

/// Starts `program` with `args` in a fresh `dir` holding the book.
fn spawn_fresh(program: &Path, args: &[String], dir: &Path, book: &Path) -> std::process::Child {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(book, dir.join("book.epd")).unwrap();
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Runs `program` with `args` in a fresh `dir` (with the book); its
/// figures.
fn run(program: &Path, args: &[String], dir: &Path, book: &Path) -> Figures {
    let child = spawn_fresh(program, args, dir, book);
    let (wall, cpu, _) = watch_process(child, Duration::from_millis(5), |_| Vec::new());
    figures(dir, wall, cpu)
}

/// The rounds (`Round` tags) and texts of the games of a PGN file.
fn rounds(pgn: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(pgn).unwrap_or_default();
    games(&text)
        .into_iter()
        .map(|(tags, moves)| {
            let round = tags.iter().find(|(k, _)| k == "Round").map(|(_, v)| v.clone()).unwrap_or_default();
            (round, moves)
        })
        .collect()
}

/// SIGKILL mid-match, then `--resume`: the games finished before the
/// kill kept as they were, none twice, all played.
fn kill_and_resume(epd: &Path, case: &Case, games: usize, dir: &Path, book: &Path) {
    let mut args = vec!["match".to_owned()];
    args.extend(args_of(case, games));
    let mut child = spawn_fresh(epd, &args, dir, book);
    let pgn = dir.join("games.pgn");
    let start = Instant::now();
    while rounds(&pgn).len() < games / 2 {
        assert!(start.elapsed() < Duration::from_secs(600), "the match never reached half its games");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = rounds(&pgn);
    let status = Command::new(epd)
        .args(&args)
        .arg("--resume")
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the resumed match failed: {status}");
    let after = rounds(&pgn);
    let unique: BTreeSet<&str> = after.iter().map(|(r, _)| r.as_str()).collect();
    let kept = before.iter().filter(|g| after.contains(g)).count();
    println!(
        "kill -9 after {} games of {games}, then --resume: {} games in the PGN, {} rounds, {kept} of the {} \
         finished before the kill kept as they were",
        before.len(),
        after.len(),
        unique.len(),
        before.len()
    );
    assert_eq!(after.len(), games, "every game played");
    assert_eq!(unique.len(), games, "no round twice");
    assert_eq!(kept, before.len(), "every game finished before the kill kept");
}

fn main() {
    let Some(fastchess) = std::env::var_os("EPD_BENCH_FASTCHESS").map(PathBuf::from) else {
        println!("EPD_BENCH_FASTCHESS is not set: skipped (see ../shared/peers/README.md)");
        return;
    };
    let Some(epd) = release_cli() else {
        println!("no release CLI: cargo build --release -p epd-cli first (or set EPD_BIN)");
        return;
    };
    let games: usize = std::env::var("EPD_BENCH_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let runs: usize = std::env::var("EPD_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let latency = std::env::var_os("EPD_BENCH_LATENCY").is_some_and(|v| v == "1");
    let stockfish = "/usr/games/stockfish";
    let dir = std::env::temp_dir().join(format!("epd-match-vs-fastchess-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("book.epd");
    let lines: Vec<String> = std::fs::read_to_string(epd_testkit::corpus_path("UHO_4060_v3.epd"))
        .unwrap()
        .lines()
        .take(games / 2)
        .map(str::to_owned)
        .collect();
    std::fs::write(&book, lines.join("\n") + "\n").unwrap();
    // fastchess takes a command without arguments.
    let wrapper = dir.join("epd-uci");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec {} uci\n", epd.display())).unwrap();
    Command::new("chmod").arg("+x").arg(&wrapper).status().unwrap();
    let engine = |cmd: &str, name: &str, depth: u32, extra: &[&str]| -> Vec<String> {
        let mut v = vec![format!("cmd={cmd}"), format!("name={name}"), format!("depth={depth}")];
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v
    };
    let sf = ["option.Hash=16", "option.Threads=1"];
    let w = wrapper.display().to_string();
    let mut cases = Vec::new();
    for concurrency in [1, 2] {
        cases.push(Case {
            name: "built-in engine, depth 5 vs 4",
            engines: [engine(&w, "d5", 5, &[]), engine(&w, "d4", 4, &[])],
            concurrency,
        });
        cases.push(Case {
            name: "Stockfish, depth 8 vs 7",
            engines: [engine(stockfish, "sf8", 8, &sf), engine(stockfish, "sf7", 7, &sf)],
            concurrency,
        });
    }
    println!("{games} games a match, {runs} runs, interleaved; medians (range)");
    let (extra, rule) = if latency { (" engine-reported ms | latency ms |", "---|---|") } else { ("", "") };
    println!(
        "| case | concurrency | manager | games | plies | wall s | move time per ply ms (whole ms) | manager CPU per \
         ply µs |{extra}"
    );
    println!("|---|---|---|---|---|---|---|---|{rule}");
    for (k, case) in cases.iter().enumerate() {
        let args = args_of(case, games);
        let mut fc = Vec::new();
        let mut ep = Vec::new();
        for r in 0..runs {
            let mut a = args.clone();
            if latency {
                a.extend(["-show-latency", "-log", "file=latency.log", "level=info"].map(str::to_owned));
            }
            fc.push(run(&fastchess, &a, &dir.join(format!("fc-{k}-{r}")), &book));
            let mut a = vec!["match".to_owned()];
            a.extend(args.iter().cloned());
            if latency {
                a.extend(["-show-latency", "-log", "file=latency.log"].map(str::to_owned));
            }
            if let Ok(sync) = std::env::var("EPD_BENCH_JOURNAL_SYNC") {
                a.extend(["--journal-sync".to_owned(), sync]);
            }
            ep.push(run(&epd, &a, &dir.join(format!("epd-{k}-{r}")), &book));
        }
        for (who, f) in [("fastchess", &fc), ("epd match", &ep)] {
            let col = |g: fn(&Figures) -> f64, scale: f64| -> String {
                let xs: Vec<f64> = f.iter().map(|x| g(x) * scale).collect();
                let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!("{:.2} ({lo:.2}–{hi:.2})", median(&xs))
            };
            let games: Vec<String> = f.iter().map(|x| x.games.to_string()).collect();
            let plies: Vec<String> = f.iter().map(|x| x.plies.to_string()).collect();
            let lat = if latency {
                format!(" {} | {} |", col(|x| x.reported, 1.0), col(|x| x.latency, 1.0))
            } else {
                String::new()
            };
            println!(
                "| {} | {} | {who} | {} | {} | {} | {} | {} |{lat}",
                case.name,
                case.concurrency,
                games.join(", "),
                plies.join(", "),
                col(|x| x.wall, 1.0),
                col(|x| x.move_time, 1e3),
                col(|x| x.cpu_per_ply, 1e6),
            );
        }
    }
    // Stockfish at concurrency 2, killed at half-time and resumed.
    kill_and_resume(&epd, &cases[3], games, &dir.join("kill"), &book);
    let _ = std::fs::remove_dir_all(&dir);
}
