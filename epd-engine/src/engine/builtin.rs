//! The built-in engine ([`crate::search::Searcher`]) behind the
//! [`Engine`] interface: the analysis verbs work with nothing installed.
//!
//! Limits map directly: `movetime` (hard; the search checks the clock),
//! `depth` and `nodes` (soft targets the search stops at). A `timeout`
//! caps the time as a hard limit too (the smaller of the two is used).
//! With MultiPV the lines share that time: each further line gets what
//! the earlier ones left, and none is started once it is spent.
//! `new_game` clears the transposition table and the move-ordering
//! history, so each record is analysed on its own. The search cannot
//! crash or hang, so this backend never returns an error.

use std::sync::atomic::AtomicBool;

use super::{Analysis, Engine, EngineError, Limits};
use crate::search::{self, Searcher};
use epd_core::{Move, Position};

/// The built-in alpha-beta searcher as an analysis engine.
#[derive(Debug)]
pub struct Builtin {
    searcher: Searcher,
}

/// The largest transposition table the built-in engine takes, in MiB
/// (its UCI option Hash, here and in `epd uci`).
pub const MAX_HASH_MB: usize = 4096;

impl Builtin {
    /// An engine with a transposition table of about `hash_mb` MiB.
    #[must_use]
    pub fn new(hash_mb: usize) -> Builtin {
        Builtin { searcher: Searcher::new(hash_mb) }
    }

    /// An engine with a table of `hash_mb` MiB and the UCI options
    /// `options` (names compared without regard to case), as `epd uci`
    /// takes them: Hash (1 to [`MAX_HASH_MB`] MiB, in place of
    /// `hash_mb`), Threads (it searches on one thread whatever the
    /// count), MultiPV (the lines are asked for per search) and the spin
    /// options of [`search::Params::OPTIONS`] (piece values, mobility,
    /// futility margin).
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`] for any other name;
    /// [`EngineError::OptionValue`] for a value that is not a whole
    /// number in the option's range.
    pub fn with_options(hash_mb: usize, options: &[(String, String)]) -> Result<Builtin, EngineError> {
        let mut hash = hash_mb;
        let mut params = search::Params::DEFAULT;
        for (name, value) in options {
            let bad =
                |expected: String| EngineError::OptionValue { name: name.clone(), value: value.clone(), expected };
            let number = value.trim().parse::<i64>().ok();
            match name.to_ascii_lowercase().as_str() {
                "hash" => match number {
                    Some(mb) if (1..=MAX_HASH_MB as i64).contains(&mb) => hash = mb as usize,
                    _ => return Err(bad(format!("a whole number from 1 to {MAX_HASH_MB} (MiB)"))),
                },
                "threads" | "multipv" => {
                    if number.is_none_or(|n| n < 1) {
                        return Err(bad("a whole number of at least 1".to_owned()));
                    }
                }
                other => {
                    let Some(&(option, _, min, max)) =
                        search::Params::OPTIONS.iter().find(|o| o.0.eq_ignore_ascii_case(other))
                    else {
                        return Err(EngineError::UnknownOption { name: name.clone(), declared: builtin_options() });
                    };
                    if !number.is_some_and(|v| params.set(option, v)) {
                        return Err(bad(format!("a whole number from {min} to {max}")));
                    }
                }
            }
        }
        let mut engine = Builtin::new(hash);
        engine.searcher.set_params(params);
        Ok(engine)
    }
}

/// The options [`Builtin::with_options`] takes, in `epd uci`'s order.
fn builtin_options() -> Vec<String> {
    let fixed = ["Hash", "Threads", "MultiPV"].map(str::to_owned);
    fixed.into_iter().chain(search::Params::OPTIONS.iter().map(|o| o.0.to_owned())).collect()
}

impl Default for Builtin {
    fn default() -> Builtin {
        Builtin::new(16)
    }
}

impl Engine for Builtin {
    fn name(&self) -> &str {
        "builtin"
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.searcher.clear();
        Ok(())
    }

    fn analyze(&mut self, pos: &Position, limits: &Limits, stop: &AtomicBool) -> Result<Analysis, EngineError> {
        self.search(pos, &[], limits, stop)
    }

    fn play(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        // The game's earlier positions, so a repetition scores as a draw.
        let mut pos = *start;
        let mut keys = Vec::with_capacity(moves.len());
        for &m in moves {
            keys.push(pos.zobrist_hash());
            pos.play_unchecked(m);
        }
        self.search(&pos, &keys, limits, stop)
    }
}

impl Builtin {
    fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        // In a game, a time for this move from the clocks.
        let from_clock = limits.clock.map(|c| c.allocate(pos.turn()));
        let movetime = [limits.movetime, limits.timeout, from_clock].into_iter().flatten().min();
        let deadline = movetime.map(|t| std::time::Instant::now() + t);
        let mut l = search::SearchLimits { depth: limits.depth, nodes: limits.nodes, movetime, mate: limits.mate };
        let mut held = super::FirstHeld::default();
        let out = self.searcher.search(pos, history, &l, stop, &mut |info| {
            if let Some(&first) = info.pv.first() {
                let at = super::Found { elapsed: Some(info.elapsed), nodes: Some(info.nodes), depth: Some(info.depth) };
                held.see(first, at);
            }
        });
        if !pos.has_legal_moves() {
            return Ok(Analysis { nodes: Some(out.nodes), elapsed: out.elapsed, ..Analysis::no_moves(pos) });
        }
        let mut a = Analysis {
            best: out.pv.first().copied().or(out.best),
            pv: if out.pv.is_empty() { out.best.into_iter().collect() } else { out.pv },
            score: out.score,
            depth: Some(out.depth),
            seldepth: Some(out.seldepth),
            nodes: Some(out.nodes),
            elapsed: out.elapsed,
            lines: Vec::new(),
            found: None,
        };
        a.found = held.found(a.best);
        // MultiPV: each further line is a search with the moves already
        // found excluded at the root.
        let mut excluded: Vec<_> = a.pv.first().copied().into_iter().collect();
        let legal = pos.legal_moves().len();
        while a.lines.len() + 1 < limits.multipv as usize && excluded.len() < legal {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            // The lines share the time: each further one gets what is left.
            if let Some(d) = deadline {
                match d.checked_duration_since(std::time::Instant::now()) {
                    Some(left) if !left.is_zero() => l.movetime = Some(left),
                    _ => break,
                }
            }
            let more = self.searcher.search_excluding(pos, &[], &l, &excluded, stop, &mut |_| {});
            let pv = if more.pv.is_empty() { more.best.into_iter().collect() } else { more.pv };
            let Some(&first) = pv.first() else { break };
            excluded.push(first);
            a.nodes = a.nodes.map(|n| n + more.nodes);
            a.elapsed += more.elapsed;
            a.lines.push(super::PvLine { pv, score: more.score });
        }
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::Score;

    #[test]
    fn finds_mates_and_reports_no_move_positions() {
        let stop = AtomicBool::new(false);
        let mut e = Builtin::new(4);
        for (fen, ce, first) in [
            // Back-rank mate in one: ce 32766 (§6.7).
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - -", 32766, Some("Ra8#")),
            // Fool's mate, White checkmated: ce -32767, no move.
            ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq -", -32767, None),
            // Stalemate: 0, no move.
            ("7k/5Q2/6K1/8/8/8/8/8 b - -", 0, None),
        ] {
            let pos: Position = fen.parse().unwrap();
            e.new_game().unwrap();
            let a = e.analyze(&pos, &Limits::depth(4), &stop).unwrap();
            assert_eq!(a.score.map(Score::to_ce), Some(ce), "{fen}");
            assert_eq!(a.pv.first().map(|&m| pos.san(m)).as_deref(), first, "{fen}");
            assert_eq!(a.best, a.pv.first().copied(), "{fen}");
        }
    }
}
