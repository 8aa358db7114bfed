//! `epd uci` driven as a child process, as a GUI or an analysis verb
//! drives an engine.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use epd_core::Position;

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start epd uci: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine { child, stdin: Some(stdin), lines }
    }

    fn send(&mut self, command: &str) {
        self.send_bytes(format!("{command}\n").as_bytes());
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap_or_else(|| panic!("input closed"));
        stdin.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
        stdin.flush().unwrap_or_else(|e| panic!("{e}"));
    }

    /// Lines up to and including the first that starts with `prefix`,
    /// failing after `timeout`.
    fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no `{prefix}` within {timeout:?} ({e}); got {seen:?}"),
            }
        }
    }

    fn quit(mut self) {
        self.send("quit");
        self.wait_exit();
    }

    fn wait_exit(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().unwrap_or_else(|e| panic!("{e}")) {
                assert!(status.success(), "{status}");
                return;
            }
            assert!(Instant::now() < deadline, "epd uci did not quit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bestmove(lines: &[String]) -> String {
    let last = lines.last().map(String::as_str).unwrap_or("");
    let rest = last.strip_prefix("bestmove ").unwrap_or_else(|| panic!("not a bestmove line: {last}"));
    rest.split(' ').next().unwrap_or("").to_owned()
}

const LONG: Duration = Duration::from_secs(60);

#[test]
fn handshake_and_isready() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok", Duration::from_secs(5));
    assert!(lines[0].starts_with("id name "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    assert!(lines.iter().any(|l| l == "option name Hash type spin default 16 min 1 max 4096"));
    e.send("setoption name Hash value 4");
    e.send("ucinewgame");
    e.send("isready");
    assert_eq!(e.until("readyok", Duration::from_secs(5)), ["readyok"]);
    e.quit();
}

#[test]
fn go_depth_answers_a_legal_move_after_fen_and_moves() {
    let mut e = Engine::start();
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    e.send(&format!("position fen {fen} moves f1b5 a7a6 b5a4 g8f6 e1g1"));
    e.send("go depth 6");
    let lines = e.until("bestmove", LONG);
    // The position after the moves, computed independently with epd-core.
    let mut pos = Position::from_fen(fen).unwrap_or_else(|err| panic!("{err}"));
    for uci in ["f1b5", "a7a6", "b5a4", "g8f6", "e1g1"] {
        let m = pos.parse_uci(uci.as_bytes()).unwrap_or_else(|err| panic!("{uci}: {err}"));
        pos.play_unchecked(m);
    }
    assert_eq!(pos.fen(), "r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 3 5");
    let best = bestmove(&lines);
    assert!(pos.parse_uci(best.as_bytes()).is_ok(), "{best} is not legal in {}", pos.fen());
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(infos.len(), 6, "{lines:?}");
    assert!(infos[5].starts_with("info depth 6 seldepth "), "{}", infos[5]);
    for field in [" score cp ", " nodes ", " nps ", " time ", " pv "] {
        assert!(infos[5].contains(field), "{field} missing: {}", infos[5]);
    }
    // The pv is legal from the position and starts with the best move.
    let pv: Vec<&str> = infos[5].split(" pv ").nth(1).unwrap_or("").split(' ').collect();
    assert_eq!(pv[0], best);
    let mut q = pos;
    for uci in pv {
        let m = q.parse_uci(uci.as_bytes()).unwrap_or_else(|err| panic!("pv move {uci}: {err}"));
        q.play_unchecked(m);
    }
    e.quit();
}

#[test]
fn go_infinite_answers_isready_and_stops_promptly() {
    let mut e = Engine::start();
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let before = e.until("readyok", Duration::from_secs(1));
    assert!(!before.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {before:?}");
    let stopped = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(1));
    assert!(stopped.elapsed() < Duration::from_secs(1));
    let mut pos = Position::startpos();
    for uci in ["d2d4", "d7d5", "c2c4"] {
        let m = pos.parse_uci(uci.as_bytes()).unwrap_or_else(|err| panic!("{err}"));
        pos.play_unchecked(m);
    }
    let best = bestmove(&lines);
    assert!(pos.parse_uci(best.as_bytes()).is_ok(), "{best}");
    e.quit();
}

#[test]
fn go_mate_finds_a_mate_in_two() {
    // 1.Nf6+ gxf6 2.Bxf7# (Stockfish: score mate 2, pv d5f6 g7f6 c4f7).
    let mut e = Engine::start();
    e.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    e.send("go mate 2");
    let lines = e.until("bestmove", LONG);
    assert_eq!(bestmove(&lines), "d5f6");
    let last_info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap_or_else(|| panic!("{lines:?}"));
    assert!(last_info.contains(" score mate 2 "), "{last_info}");
    assert!(last_info.ends_with(" pv d5f6 g7f6 c4f7"), "{last_info}");
    e.quit();
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Engine::start();
    for (fen, score) in [
        // Checkmated (back rank) and stalemated.
        ("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1", "mate 0"),
        ("8/8/8/8/8/2k5/1r6/K7 w - - 0 1", "cp 0"),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 4");
        let lines = e.until("bestmove", LONG);
        assert_eq!(lines, [format!("info depth 0 score {score}"), "bestmove (none)".to_owned()], "{fen}");
    }
    e.quit();
}

#[test]
fn garbage_lines_are_ignored() {
    let mut e = Engine::start();
    for junk in
        ["", "   ", "xyzzy", "go depth banana", "position fen 9/9 w", "position startpos moves e2e5", "setoption"]
    {
        e.send(junk);
    }
    e.send_bytes(b"\xff\xfe\x00 not utf-8\n");
    e.send("isready");
    let lines = e.until("readyok", Duration::from_secs(5));
    assert!(lines.iter().filter(|l| l.starts_with("info string")).count() >= 5, "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "{lines:?}");
    // Still a working engine afterwards; the bad move list left the start position.
    e.send("go depth 2");
    let lines = e.until("bestmove", LONG);
    assert!(Position::startpos().parse_uci(bestmove(&lines).as_bytes()).is_ok());
    e.quit();
}

#[test]
fn end_of_input_finishes_the_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 5");
    e.stdin = None; // the engine reads the end of its input
    let lines = e.until("bestmove", LONG);
    assert!(Position::startpos().parse_uci(bestmove(&lines).as_bytes()).is_ok());
    e.wait_exit();
}

/// Regression: on 18 rooks `go movetime 500` then `stop` gave no
/// bestmove within 10 s (depth 1 could not be interrupted).
#[test]
fn stop_answers_at_once_on_a_crowded_position() {
    let mut e = Engine::start();
    e.send("position fen rnbqkbnr/rrrrrrrr/8/8/8/8/RRRRRRRR/RNBQKBNR w KQkq - 0 1");
    e.send("go movetime 5000");
    std::thread::sleep(Duration::from_millis(100));
    let stopped = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(2));
    assert!(stopped.elapsed() < Duration::from_millis(500), "{:?}", stopped.elapsed());
    let pos = Position::from_fen("rnbqkbnr/rrrrrrrr/8/8/8/8/RRRRRRRR/RNBQKBNR w KQkq - 0 1").unwrap();
    let best = bestmove(&lines);
    assert!(pos.parse_uci(best.as_bytes()).is_ok(), "{best}");
    e.send("go movetime 300");
    let t = Instant::now();
    let lines = e.until("bestmove", Duration::from_secs(2));
    assert!(t.elapsed() < Duration::from_millis(800), "{:?}", t.elapsed());
    assert!(pos.parse_uci(bestmove(&lines).as_bytes()).is_ok());
    e.quit();
}
