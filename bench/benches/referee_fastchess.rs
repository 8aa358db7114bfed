//! Argus against fastchess, side by side in one run: the same two
//! engines (`epd uci`, the built-in engine, and Stockfish), the same time
//! control, the same openings (each with both colours), the same
//! concurrency. Reported: games per second, time losses, and the
//! manager's CPU time per move — fastchess's own process; for Argus the
//! referee alone, and the referee with its `epd play` bridges (each Argus
//! move crosses a socket and a bridge process).
//!
//! `EPD_BENCH_FASTCHESS=/path/to/fastchess cargo bench -p epd-bench --bench
//! referee_fastchess` (../shared/peers/README.md says how to build it;
//! skipped without it). `EPD_BENCH_GAMES` sets the games (default 40),
//! `EPD_BENCH_TC` the time control (default 1+0.01).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use epd_bench::{children, watch_process};
use std::time::Duration;

/// Games, plies and time losses in a PGN file.
fn pgn_counts(path: &Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let games = text.matches("[Result ").count();
    let losses = text.matches("[Termination \"time forfeit\"]").count();
    // Plies: SAN moves in the movetext (tokens that are not move numbers,
    // comments or results).
    let mut plies = 0;
    let mut depth = 0;
    for line in text.lines().filter(|l| !(l.starts_with('[') && l.ends_with("\"]"))) {
        for tok in line.split_whitespace() {
            let opens = tok.matches('{').count();
            let closes = tok.matches('}').count();
            if depth == 0 && opens == 0 {
                let t = tok.trim_end_matches(['+', '#']);
                let number = t.trim_end_matches('.').chars().all(|c| c.is_ascii_digit() || c == '.');
                if !number && !["1-0", "0-1", "1/2-1/2", "*"].contains(&t) && !t.is_empty() {
                    plies += 1;
                }
            }
            depth += opens;
            depth -= closes.min(depth);
        }
    }
    (games, plies, losses)
}

fn main() {
    let Some(fastchess) = std::env::var_os("EPD_BENCH_FASTCHESS").map(PathBuf::from) else {
        println!("EPD_BENCH_FASTCHESS is not set: skipped (see ../shared/peers/README.md)");
        return;
    };
    let stockfish = "/usr/games/stockfish";
    let games: usize = std::env::var("EPD_BENCH_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let tc = std::env::var("EPD_BENCH_TC").unwrap_or_else(|_| "1+0.01".into());
    let epd = std::env::var_os("EPD_BIN")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/epd"), PathBuf::from);
    assert!(epd.is_file(), "build the CLI first: cargo build --release -p epd-cli");
    let dir = std::env::temp_dir().join(format!("epd-vs-fastchess-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Openings: the first games/2 positions of the UHO book, each played
    // with both colours by both managers.
    let book = epd_testkit::corpus_path("UHO_4060_v3.epd");
    let lines: Vec<String> =
        std::fs::read_to_string(&book).unwrap().lines().take(games / 2).map(str::to_owned).collect();
    std::fs::write(dir.join("book.epd"), lines.join("\n") + "\n").unwrap();
    let wrapper = dir.join("epd-uci");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec {} uci\n", epd.display())).unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&wrapper).status().unwrap();

    // fastchess.
    let fc = Command::new(&fastchess)
        .args(["-engine", &format!("cmd={}", wrapper.display()), "name=epd"])
        .args(["-engine", &format!("cmd={stockfish}"), "name=sf", "option.Hash=16", "option.Threads=1"])
        .args(["-each", &format!("tc={tc}"), "-rounds", &(games / 2).to_string(), "-games", "2", "-repeat"])
        .args(["-concurrency", "2", "-openings", "file=book.epd", "format=epd", "order=sequential"])
        .args(["-pgnout", "file=fastchess.pgn"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (fc_wall, fc_cpu, _) = watch_process(fc, Duration::from_millis(20), |_| Vec::new());
    let (fc_games, fc_plies, fc_losses) = pgn_counts(&dir.join("fastchess.pgn"));

    // Argus: the same engines through epd play bridges.
    let event = format!(
        "event = \"bench\"\nlisten = \"127.0.0.1:0\"\ntime_control = \"{tc}\"\nrounds = 1\nconcurrency = 2\n\
         reset_delay = 0\nconclude_delay = 0\nopenings = \"book.epd\"\n\
         [[players]]\nname = \"epd\"\ninstances = 2\ncommand = [\"{epd}\", \"play\", \"--engine\", \"{wrapper}\"]\n\
         [[players]]\nname = \"sf\"\ninstances = 2\ncommand = [\"{epd}\", \"play\", \"--engine\", \"{stockfish}\", \"--hash\", \"16\", \"--threads\", \"1\"]\n",
        epd = epd.display(),
        wrapper = wrapper.display()
    );
    // Two players play games/2 pairs when the book has games/2 openings:
    // one cycle is 2 games, so the event runs games/2 cycles.
    let event = event.replace("rounds = 1", &format!("rounds = {}", games / 2));
    std::fs::write(dir.join("event.toml"), event).unwrap();
    let ar = Command::new(&epd)
        .args(["referee", "event.toml", "--background"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The bridges are the referee's children (`epd play`), not their
    // engines (grandchildren).
    let (ar_wall, ar_cpu, bridges_cpu) = watch_process(ar, Duration::from_millis(20), children);
    let (ar_games, ar_plies, ar_losses) = pgn_counts(&dir.join("games.pgn"));

    // Argus with local players: the referee drives both engines itself
    // (no bridge processes; the engines are its children, not counted).
    let local_dir = dir.join("local");
    std::fs::create_dir_all(&local_dir).unwrap();
    std::fs::copy(dir.join("book.epd"), local_dir.join("book.epd")).unwrap();
    let event = format!(
        "event = \"bench\"\nlisten = \"127.0.0.1:0\"\ntime_control = \"{tc}\"\nrounds = {}\nconcurrency = 2\n\
         reset_delay = 0\nconclude_delay = 0\nopenings = \"book.epd\"\njournal_sync = \"second\"\n\
         [[players]]\nname = \"epd\"\nuci = [\"{wrapper}\"]\n\
         [[players]]\nname = \"sf\"\nuci = [\"{stockfish}\"]\noptions = {{ Hash = 16, Threads = 1 }}\n",
        games / 2,
        wrapper = wrapper.display()
    );
    std::fs::write(local_dir.join("event.toml"), event).unwrap();
    let lo = Command::new(&epd)
        .args(["referee", "event.toml", "--background"])
        .current_dir(&local_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (lo_wall, lo_cpu, _) = watch_process(lo, Duration::from_millis(20), |_| Vec::new());
    let (lo_games, lo_plies, lo_losses) = pgn_counts(&local_dir.join("games.pgn"));

    println!("{games} games, tc {tc}, concurrency 2, epd uci vs Stockfish, {} openings x 2 colours", games / 2);
    println!(
        "{:<28} {:>6} {:>7} {:>8} {:>9} {:>7} {:>14}",
        "", "games", "plies", "wall s", "games/s", "losses", "CPU/move us"
    );
    let per = |c: Duration, plies: usize| c.as_secs_f64() * 1e6 / plies.max(1) as f64;
    println!(
        "{:<28} {fc_games:>6} {fc_plies:>7} {:>8.1} {:>9.3} {fc_losses:>7} {:>14.1}",
        "fastchess",
        fc_wall.as_secs_f64(),
        fc_games as f64 / fc_wall.as_secs_f64(),
        per(fc_cpu, fc_plies)
    );
    println!(
        "{:<28} {ar_games:>6} {ar_plies:>7} {:>8.1} {:>9.3} {ar_losses:>7} {:>14.1}",
        "Argus (referee)",
        ar_wall.as_secs_f64(),
        ar_games as f64 / ar_wall.as_secs_f64(),
        per(ar_cpu, ar_plies)
    );
    println!(
        "{:<28} {:>6} {:>7} {:>8} {:>9} {:>7} {:>14.1}",
        "Argus (referee + bridges)",
        "",
        "",
        "",
        "",
        "",
        per(ar_cpu + bridges_cpu, ar_plies)
    );
    println!(
        "{:<28} {lo_games:>6} {lo_plies:>7} {:>8.1} {:>9.3} {lo_losses:>7} {:>14.1}",
        "Argus (local players)",
        lo_wall.as_secs_f64(),
        lo_games as f64 / lo_wall.as_secs_f64(),
        per(lo_cpu, lo_plies)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
