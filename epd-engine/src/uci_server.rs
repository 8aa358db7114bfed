//! The built-in engine as a UCI engine: [`serve`] reads commands, one per
//! line, and answers on the output (`epd uci` runs it on stdin/stdout).
//!
//! The search runs on a thread of its own, so `isready` and `stop` are
//! answered while it thinks. Malformed or unknown commands are ignored
//! with an `info string` saying why; nothing a GUI sends can panic it.
//!
//! ```
//! use epd_engine::uci_server::serve;
//! let mut out = Vec::new();
//! serve(&b"uci\nposition startpos moves e2e4 e7e5\ngo depth 3\nquit\n"[..], &mut out).unwrap();
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.contains("uciok"));
//! assert!(text.lines().any(|l| l.starts_with("bestmove ")));
//! ```

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::Duration;

use crate::search::{Params, SearchInfo, SearchLimits, Searcher};
use epd_core::{Move, Position, Score};

const DEFAULT_HASH_MB: usize = 16;
use crate::engine::MAX_HASH_MB;
const DEFAULT_OVERHEAD_MS: u64 = 10;
const MAX_OVERHEAD_MS: u64 = 5000;

/// Runs the UCI protocol: reads commands from `input` until `quit` or
/// the end of input, and writes the answers to `output`, flushing after
/// every line. At the end of input a running search finishes (an
/// infinite one is stopped) and its `bestmove` is written.
///
/// Supported: `uci`, `isready`, `setoption` (Hash, Clear Hash, Threads,
/// Move Overhead, UCI_Chess960), `ucinewgame`, `position startpos|fen …
/// [moves …]`, `go` with `depth`, `nodes`, `movetime`, `mate`,
/// `infinite`, `wtime`/`btime`/`winc`/`binc`/`movestogo` (and `ponder`,
/// searched as a normal `go`), `stop`, `ponderhit` (nothing to do, as
/// `go ponder` already searches normally), `quit`.
///
/// # Errors
/// The first read or write error.
pub fn serve<R: BufRead, W: Write + Send>(input: R, output: W) -> io::Result<()> {
    let out = Mutex::new(output);
    let searcher = Mutex::new(Searcher::new(DEFAULT_HASH_MB));
    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        let mut server = Server {
            scope,
            out: &out,
            searcher: &searcher,
            stop: &stop,
            running: None,
            pos: Position::startpos(),
            history: Vec::new(),
            chess960: false,
            overhead_ms: DEFAULT_OVERHEAD_MS,
        };
        let result = server.run(input);
        let finished = server.finish(false);
        result.and(finished)
    })
}

/// A lock that survives a panic elsewhere (there should be none).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn send<W: Write>(out: &Mutex<W>, line: &str) -> io::Result<()> {
    let mut w = lock(out);
    w.write_all(line.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()
}

struct Server<'scope, 'env, W: Write + Send> {
    scope: &'scope Scope<'scope, 'env>,
    out: &'env Mutex<W>,
    searcher: &'env Mutex<Searcher>,
    stop: &'env AtomicBool,
    /// The running search, with whether it was infinite.
    running: Option<(ScopedJoinHandle<'scope, io::Result<()>>, bool)>,
    pos: Position,
    history: Vec<u64>,
    chess960: bool,
    overhead_ms: u64,
}

impl<'scope, 'env, W: Write + Send> Server<'scope, 'env, W> {
    fn run<R: BufRead>(&mut self, input: R) -> io::Result<()> {
        for line in input.split(b'\n') {
            let line = line?;
            let line = String::from_utf8_lossy(&line);
            let tokens: Vec<&str> = line.split_whitespace().collect();
            let Some(&command) = tokens.first() else { continue };
            match command {
                "uci" => self.identify()?,
                "isready" => send(self.out, "readyok")?,
                "setoption" => self.set_option(&tokens)?,
                "ucinewgame" => {
                    self.finish(true)?;
                    lock(self.searcher).clear();
                    self.pos = Position::startpos();
                    self.history.clear();
                }
                "position" => self.position(&tokens)?,
                "go" => self.go(&tokens)?,
                "stop" => self.finish(true)?,
                "ponderhit" | "debug" | "register" => {}
                "quit" => {
                    self.finish(true)?;
                    return Ok(());
                }
                _ => self.info_string(&format!("unknown command: {}", clip(&line)))?,
            }
        }
        Ok(())
    }

    fn info_string(&self, text: &str) -> io::Result<()> {
        send(self.out, &format!("info string {text}"))
    }

    fn identify(&self) -> io::Result<()> {
        let tunable = Params::OPTIONS.iter().map(|(name, default, min, max)| {
            format!("option name {name} type spin default {default} min {min} max {max}")
        });
        let fixed = [
            concat!("id name EPD Kit ", env!("CARGO_PKG_VERSION")).to_owned(),
            "id author EPD Kit developers".to_owned(),
            format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"),
            "option name Clear Hash type button".to_owned(),
            "option name Threads type spin default 1 min 1 max 1".to_owned(),
            format!("option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max {MAX_OVERHEAD_MS}"),
            "option name UCI_Chess960 type check default false".to_owned(),
        ];
        for line in fixed.into_iter().chain(tunable) {
            send(self.out, &line)?;
        }
        send(self.out, "uciok")
    }

    /// Ends the running search, if any: stops it first when `stop` (or
    /// when it is infinite), then waits for its `bestmove`.
    fn finish(&mut self, stop: bool) -> io::Result<()> {
        if let Some((handle, infinite)) = self.running.take() {
            if stop || infinite {
                self.stop.store(true, Ordering::Relaxed);
            }
            match handle.join() {
                Ok(r) => r?,
                Err(_) => return Err(io::Error::other("search thread panicked")),
            }
        }
        Ok(())
    }

    fn set_option(&mut self, tokens: &[&str]) -> io::Result<()> {
        // setoption name <words...> [value <words...>]
        let value_at = tokens.iter().position(|&t| t == "value");
        let name = tokens.get(2..value_at.unwrap_or(tokens.len())).unwrap_or(&[]).join(" ");
        let value = value_at.map(|i| tokens[i + 1..].join(" "));
        if tokens.get(1) != Some(&"name") || name.is_empty() {
            return self.info_string("malformed setoption");
        }
        if self.running.is_some() {
            return self.info_string(&format!("option {name} ignored while searching"));
        }
        let number = || value.as_deref().and_then(|v| v.parse::<u64>().ok());
        match name.to_ascii_lowercase().as_str() {
            "hash" => match number() {
                Some(mb) if (1..=MAX_HASH_MB as u64).contains(&mb) => lock(self.searcher).resize(mb as usize),
                _ => return self.info_string(&format!("Hash must be 1 to {MAX_HASH_MB}")),
            },
            "clear hash" => lock(self.searcher).clear(),
            "threads" => {
                if number() != Some(1) {
                    return self.info_string("this engine searches on one thread");
                }
            }
            "move overhead" => match number() {
                Some(ms) if ms <= MAX_OVERHEAD_MS => self.overhead_ms = ms,
                _ => return self.info_string(&format!("Move Overhead must be 0 to {MAX_OVERHEAD_MS}")),
            },
            "uci_chess960" => match value.as_deref() {
                Some("true") => self.chess960 = true,
                Some("false") => self.chess960 = false,
                _ => return self.info_string("UCI_Chess960 must be true or false"),
            },
            other => {
                let Some(&(option, _, min, max)) = Params::OPTIONS.iter().find(|o| o.0.eq_ignore_ascii_case(other))
                else {
                    return self.info_string(&format!("no such option: {name}"));
                };
                let value = value.as_deref().and_then(|v| v.parse::<i64>().ok());
                let mut searcher = lock(self.searcher);
                let mut params = *searcher.params();
                if !value.is_some_and(|v| params.set(option, v)) {
                    drop(searcher);
                    return self.info_string(&format!("{option} must be {min} to {max}"));
                }
                searcher.set_params(params);
            }
        }
        Ok(())
    }

    fn position(&mut self, tokens: &[&str]) -> io::Result<()> {
        let moves_at = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
        let mut pos = match tokens.get(1) {
            Some(&"startpos") => Position::startpos(),
            Some(&"fen") => {
                let fen = tokens.get(2..moves_at).unwrap_or(&[]).join(" ");
                match Position::from_fen(&fen) {
                    Ok(p) => p,
                    Err(e) => return self.info_string(&format!("position ignored: {e}")),
                }
            }
            _ => return self.info_string("position needs startpos or fen"),
        };
        let mut history = Vec::new();
        for &text in tokens.get(moves_at + 1..).unwrap_or(&[]) {
            match pos.parse_uci(text.as_bytes()) {
                Ok(m) => {
                    history.push(pos.zobrist_hash());
                    pos.play_unchecked(m);
                }
                Err(e) => {
                    self.info_string(&format!("moves from {} on ignored: {e}", clip(text)))?;
                    break;
                }
            }
        }
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    fn go(&mut self, tokens: &[&str]) -> io::Result<()> {
        self.finish(true)?;
        let (limits, infinite) = match self.parse_go(tokens) {
            Ok(l) => l,
            Err(e) => return self.info_string(&e),
        };
        self.stop.store(false, Ordering::Relaxed);
        let (out, searcher, stop) = (self.out, self.searcher, self.stop);
        let (pos, history) = (self.pos, self.history.clone());
        let chess960 = self.chess960 || pos.is_chess960();
        let handle = self.scope.spawn(move || -> io::Result<()> {
            let mut engine = lock(searcher);
            let mut failed = None;
            let outcome = engine.search(&pos, &history, &limits, stop, &mut |info| {
                if failed.is_none() {
                    if let Err(e) = send(out, &info_line(&pos, info, chess960)) {
                        failed = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
            drop(engine);
            if let Some(e) = failed {
                return Err(e);
            }
            // UCI: after `go infinite`, bestmove waits for `stop`.
            while infinite && !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(2));
            }
            let Some(best) = outcome.best else {
                let score = match outcome.score {
                    Some(Score::Checkmated) => "mate 0",
                    _ => "cp 0",
                };
                send(out, &format!("info depth 0 score {score}"))?;
                return send(out, "bestmove (none)");
            };
            let mut line = format!("bestmove {}", best.to_uci(chess960));
            if let Some(reply) = outcome.pv.get(1) {
                line.push_str(" ponder ");
                line.push_str(&reply.to_uci(chess960));
            }
            send(out, &line)
        });
        self.running = Some((handle, infinite));
        Ok(())
    }

    /// The limits of a `go` command, and whether it searches until `stop`.
    fn parse_go(&self, tokens: &[&str]) -> Result<(SearchLimits, bool), String> {
        let mut limits = SearchLimits::default();
        let mut infinite = false;
        let (mut wtime, mut btime, mut winc, mut binc, mut movestogo) = (None, None, None, None, None);
        let mut i = 1;
        while i < tokens.len() {
            let key = tokens[i];
            let arg = tokens.get(i + 1).copied();
            let num = |name: &str| -> Result<u64, String> {
                // Clocks may go negative in some GUIs: read them as zero.
                match arg.map(|a| a.parse::<i64>()) {
                    Some(Ok(v)) => Ok(v.max(0) as u64),
                    _ => Err(format!("go {name} needs a number")),
                }
            };
            i += 2;
            match key {
                "depth" => limits.depth = Some(num(key)?.clamp(1, u64::from(u32::MAX)) as u32),
                "nodes" => limits.nodes = Some(num(key)?.max(1)),
                "movetime" => limits.movetime = Some(Duration::from_millis(num(key)?)),
                "mate" => limits.mate = Some(num(key)?.clamp(1, u64::from(u32::MAX)) as u32),
                "wtime" => wtime = Some(num(key)?),
                "btime" => btime = Some(num(key)?),
                "winc" => winc = Some(num(key)?),
                "binc" => binc = Some(num(key)?),
                "movestogo" => movestogo = Some(num(key)?),
                "infinite" => {
                    infinite = true;
                    i -= 1;
                }
                "ponder" => i -= 1,
                "searchmoves" => {
                    // Not supported: skip the moves.
                    i -= 1;
                    while tokens.get(i).is_some_and(|t| t.len() >= 4 && t.as_bytes()[1].is_ascii_digit()) {
                        i += 1;
                    }
                }
                _ => return Err(format!("go: unknown parameter {}", clip(key))),
            }
        }
        let (time, inc) = if self.pos.turn().is_white() { (wtime, winc) } else { (btime, binc) };
        if let Some(t) = time {
            let inc = inc.unwrap_or(0);
            let moves = movestogo.unwrap_or(30).clamp(1, 60);
            let share = (t / moves + inc * 3 / 4).min(t * 4 / 5);
            let budget = Duration::from_millis(share.saturating_sub(self.overhead_ms).max(1));
            limits.movetime = Some(limits.movetime.map_or(budget, |m| m.min(budget)));
        }
        if !infinite
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.movetime.is_none()
            && limits.mate.is_none()
        {
            infinite = true; // a bare `go`
        }
        if infinite {
            limits = SearchLimits { mate: limits.mate, ..SearchLimits::default() };
        }
        Ok((limits, infinite))
    }
}

/// At most 60 characters of untrusted text, for messages.
fn clip(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn info_line(_pos: &Position, info: &SearchInfo, chess960: bool) -> String {
    let (kind, value) = info.score.to_uci();
    let ms = info.elapsed.as_millis();
    let nps = (u128::from(info.nodes) * 1000).checked_div(ms).unwrap_or(0);
    let mut line = format!(
        "info depth {} seldepth {} score {kind} {value} nodes {} nps {nps} time {ms} pv",
        info.depth, info.seldepth, info.nodes
    );
    for m in &info.pv {
        line.push(' ');
        line.push_str(&Move::to_uci(*m, chess960));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(script: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve(script.as_bytes(), &mut out).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}")).lines().map(str::to_owned).collect()
    }

    fn bestmove(lines: &[String]) -> &str {
        lines.iter().rev().find_map(|l| l.strip_prefix("bestmove ")).unwrap_or_else(|| panic!("no bestmove: {lines:?}"))
    }

    #[test]
    fn handshake_lists_the_options() {
        let lines = session("uci\nisready\n");
        assert!(lines[0].starts_with("id name EPD Kit"));
        for opt in ["Hash", "Clear Hash", "Threads", "Move Overhead", "UCI_Chess960"] {
            assert!(lines.iter().any(|l| l.starts_with(&format!("option name {opt} type"))), "{opt}");
        }
        assert_eq!(&lines[lines.len() - 2..], ["uciok", "readyok"]);
    }

    #[test]
    fn moves_are_played_and_answers_are_legal() {
        // (script, position the bestmove must be legal in)
        for (script, fen) in [
            (
                "position startpos moves e2e4 e7e5 g1f3\ngo depth 4\n",
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            ),
            // Castling as the king's two-square move.
            (
                "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1\ngo depth 3\n",
                "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1",
            ),
            // Chess960 castling is king takes rook.
            (
                "setoption name UCI_Chess960 value true\nposition fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1\ngo depth 3\n",
                "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1",
            ),
        ] {
            let lines = session(script);
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
            let best = bestmove(&lines).split(' ').next().unwrap_or("");
            assert!(pos.parse_uci(best.as_bytes()).is_ok(), "{script}: {best} in {lines:?}");
        }
    }

    #[test]
    fn tunable_values_are_spin_options_that_change_the_play() {
        let lines = session("uci\n");
        for (name, default, min, max) in Params::OPTIONS {
            let want = format!("option name {name} type spin default {default} min {min} max {max}");
            assert!(lines.contains(&want), "{want}: {lines:?}");
        }
        // Out of range, not a number, no value: refused with the range,
        // and the search goes on with the old value.
        let lines = session(
            "setoption name KnightValue value 5000\nsetoption name MobilityWeight value x\nsetoption name FutilityMargin\nisready\n",
        );
        assert_eq!(
            lines,
            [
                "info string KnightValue must be 50 to 1000",
                "info string MobilityWeight must be 0 to 400",
                "info string FutilityMargin must be 0 to 1000",
                "readyok"
            ]
        );
        // A rook against a knight the rook cannot take at once: with the
        // knight worth 60, White's score rises by about the difference.
        let score = |script: &str| -> i32 {
            let lines = session(script);
            let last = lines.iter().rev().find(|l| l.contains(" score cp ")).unwrap_or_else(|| panic!("{lines:?}"));
            let rest = last.split(" score cp ").nth(1).unwrap_or("");
            rest.split(' ').next().unwrap_or("").parse().unwrap_or_else(|e| panic!("{last}: {e}"))
        };
        let pos = "position fen 4k3/8/8/1n6/8/8/8/4K2R w - - 0 1\n";
        let default = score(&format!("{pos}go depth 2\n"));
        let cheap = score(&format!("setoption name knightvalue value 60\n{pos}go depth 2\n"));
        assert!(cheap > default + 200, "{default} {cheap}");
    }

    #[test]
    fn garbage_is_ignored_with_a_reason() {
        let lines = session(
            "\nhello\nposition\nposition fen not/a/fen w - -\nposition startpos moves e2e5\ngo depth x\nsetoption name Hash value 0\nsetoption value\ngo wibble 3\nisready\n",
        );
        assert_eq!(lines.iter().filter(|l| l.starts_with("info string")).count(), 8, "{lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("readyok"));
        assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    }

    #[test]
    fn no_move_gives_bestmove_none() {
        for (fen, score) in
            [("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1", "mate 0"), ("8/8/8/8/8/2k5/1r6/K7 w - - 0 1", "cp 0")]
        {
            let lines = session(&format!("position fen {fen}\ngo depth 5\n"));
            assert_eq!(lines, [format!("info depth 0 score {score}"), "bestmove (none)".to_owned()]);
        }
    }

    #[test]
    fn clock_time_is_budgeted() {
        let server_limits = |go: &str| {
            let out = Mutex::new(Vec::new());
            let searcher = Mutex::new(Searcher::new(1));
            let stop = AtomicBool::new(false);
            thread::scope(|scope| {
                let s = Server {
                    scope,
                    out: &out,
                    searcher: &searcher,
                    stop: &stop,
                    running: None,
                    pos: Position::startpos(),
                    history: Vec::new(),
                    chess960: false,
                    overhead_ms: 10,
                };
                s.parse_go(&go.split(' ').collect::<Vec<_>>())
            })
        };
        // 60 s, no increment: 2 s a move (30 to go), less the overhead.
        let (l, inf) = server_limits("go wtime 60000 btime 1000").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((l.movetime, inf), (Some(Duration::from_millis(1990)), false));
        // One move to go gets at most four fifths of the clock.
        let (l, _) = server_limits("go wtime 1000 btime 1000 movestogo 1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(l.movetime, Some(Duration::from_millis(790)));
        let (l, inf) = server_limits("go").unwrap_or_else(|e| panic!("{e}"));
        assert!(inf && l.depth.is_none() && l.movetime.is_none());
        let (l, inf) = server_limits("go infinite searchmoves e2e4 d2d4").unwrap_or_else(|e| panic!("{e}"));
        assert!(inf && l.movetime.is_none());
    }
}
