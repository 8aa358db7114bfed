//! The analysis verbs: pfga (EPD §7.2, "process file: general analysis")
//! and pfts (§7.5, "process file: target search"), over any [`Engine`].
//!
//! Each valid record is analysed by an engine within the same
//! [`Limits`] and written in canonical form with:
//!
//! - `pv`: the principal variation in SAN (no operands when the side to
//!   move has no legal move);
//! - `ce`: the engine's last exact score, from the side to move's point of
//!   view, with §6.7's mate arithmetic (checkmated −32767, stalemate 0);
//! - `pm`: the engine's move, the first move of pv (absent when the side
//!   to move has no legal move);
//! - optionally `sm` (the same move), and `acd`, `acn`, `acs` (depth,
//!   nodes, whole seconds);
//! - with MultiPV ([`Limits::multipv`] N > 1), for each further line K
//!   (2..N) the extension operations `pvK` (its moves in SAN) and `ceK`
//!   (its score, as ce), e.g. `ce2 -15; pv2 d4 d5;`. Any `pvK`/`ceK` the
//!   record held (K up to [`MAX_MULTIPV`]) is replaced.
//!
//! Every other operation of the record is kept; these opcodes replace
//! what the record held. Invalid records are copied unchanged (or left
//! out), with their diagnostics reported. Records keep their order.
//!
//! pfts also judges `pm` against the record's targets: a record is
//! *solved* when pm is one of the bm moves (if bm is present) and none of
//! the am moves (if am is present); *missed* otherwise; a record with
//! neither bm nor am is *unscored*. pfga judges the same way, so the
//! progress report can show a solved count for both.
//!
//! An engine fault on a record (a crash, a hang, a protocol error) is
//! reported as a diagnostic `E034` on that record, and the record is
//! written without new analysis (canonical, its own operations kept); the
//! engine restarts and the run goes on. A search that ends without an
//! exact score gets pv and pm but no ce, and a warning `E034`.
//!
//! With several engines (`--jobs`), records are handed out one at a time
//! to whichever engine is free; output stays in input order, and at most
//! a few records per engine are held in memory.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::{Analysis, Engine, Limits};
use epd_core::pipeline::{Interrupted, Job, Processor, Summary};
use epd_core::{Code, Diagnostic, Move, OperandInput, ParseMode, Record, Severity};

/// Which analysis verb.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AnalysisVerb {
    /// pfga: general analysis.
    Analyze,
    /// pfts: target search.
    Target,
}

/// Options of an [`Analyzer`].
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    /// The verb.
    pub verb: AnalysisVerb,
    /// The effort per record.
    pub limits: Limits,
    /// Add `acd`, `acn` and `acs`.
    pub counters: bool,
    /// Add `sm` (the same move as pm).
    pub sm: bool,
    /// Add when the move played first led the principal variation and
    /// then held it: [`SOLVE_MS`], [`SOLVE_ACN`], [`SOLVE_ACD`].
    pub solution_time: bool,
}

pub use epd_core::{SOLVE_ACD, SOLVE_ACN, SOLVE_MS};

impl AnalysisOptions {
    /// The verb with these limits, no counters, no sm.
    #[must_use]
    pub fn new(verb: AnalysisVerb, limits: Limits) -> AnalysisOptions {
        AnalysisOptions { verb, limits, counters: false, sm: false, solution_time: false }
    }
}

pub use epd_core::{verdict, Verdict};

/// What the analysis verbs count beyond the pipeline's line accounting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisCounts {
    /// Records analysed.
    pub analyzed: u64,
    /// Records on which the engine failed.
    pub faults: u64,
    /// Analysed records whose pm is a target and not an avoidance move.
    pub solved: u64,
    /// Analysed records with bm or am that were not solved.
    pub missed: u64,
    /// Analysed records with neither bm nor am.
    pub unscored: u64,
    /// Nodes the engines reported, all records.
    pub nodes: u64,
    /// Every scored record (with bm or am), in input order: where it is,
    /// its id and how it fared. Grows with the scored records only, so a
    /// run over unscored positions keeps none.
    pub scored: Vec<Scored>,
}

/// One scored record of an analysis run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scored {
    /// Its 1-based line in the input.
    pub line: u64,
    /// Its `id` operand, if it has one.
    pub id: Option<String>,
    /// Solved (pm in bm, not in am) or missed.
    pub solved: bool,
}

impl core::ops::AddAssign for AnalysisCounts {
    fn add_assign(&mut self, o: AnalysisCounts) {
        self.analyzed += o.analyzed;
        self.faults += o.faults;
        self.solved += o.solved;
        self.missed += o.missed;
        self.unscored += o.unscored;
        self.nodes += o.nodes;
        self.scored.extend(o.scored);
    }
}

impl AnalysisCounts {
    /// Judges `pm` against the bm and am of `rec` (on input line `line`)
    /// and counts the verdict: solved, missed or unscored, and the scored
    /// record's id.
    pub fn judge(&mut self, rec: &Record, pm: Option<Move>, line: u64) -> Verdict {
        let v = verdict(rec, pm);
        match v {
            Verdict::Solved => self.solved += 1,
            Verdict::Missed => self.missed += 1,
            Verdict::Unscored => self.unscored += 1,
        }
        if v != Verdict::Unscored {
            let id = rec.id().map(|id| String::from_utf8_lossy(id).into_owned());
            self.scored.push(Scored { line, id, solved: v == Verdict::Solved });
        }
        v
    }
}

/// The summary of an analysis run.
pub type AnalysisSummary = Summary<AnalysisCounts>;

/// The most principal variations a record gets.
pub const MAX_MULTIPV: u32 = 64;

/// Writes the analysis into the record (see the module documentation).
///
/// # Errors
/// Never in practice: the moves are legal and the numbers in range.
pub fn apply(rec: &mut Record, a: &Analysis, options: &AnalysisOptions) -> Result<(), epd_core::SetError> {
    let pv: Vec<OperandInput<'_>> = a.pv.iter().map(|&m| OperandInput::Move(m)).collect();
    // The old pm goes first: pm must be the first move of pv (E012), and
    // is written again below from the new pv.
    rec.remove("pm");
    rec.set("pv", &pv)?;
    match a.score {
        Some(s) => rec.set("ce", &[OperandInput::Integer(s.to_ce())])?,
        None => {
            rec.remove("ce");
        }
    }
    for (wanted, op) in [(true, "pm"), (options.sm, "sm")] {
        if !wanted {
            continue;
        }
        match pv.first() {
            Some(m) => rec.set(op, &[*m])?,
            None => {
                rec.remove(op);
            }
        }
    }
    for k in 2..=MAX_MULTIPV as usize {
        rec.remove(&format!("pv{k}"));
        rec.remove(&format!("ce{k}"));
    }
    let start = rec.position().copied();
    for (i, line) in a.lines.iter().enumerate().take(options.limits.multipv.saturating_sub(1) as usize) {
        let k = i + 2;
        // An extension opcode's moves are not checked in sequence by the
        // record, so they go in as their canonical SAN, played through.
        let Some(mut pos) = start else { break };
        let sans: Vec<String> = line
            .pv
            .iter()
            .map(|&m| {
                let san = pos.san(m);
                pos.play_unchecked(m);
                san
            })
            .collect();
        let moves: Vec<OperandInput<'_>> = sans.iter().map(|s| OperandInput::Raw(s.as_bytes())).collect();
        rec.set(&format!("pv{k}"), &moves)?;
        if let Some(s) = line.score {
            rec.set(&format!("ce{k}"), &[OperandInput::Integer(s.to_ce())])?;
        }
    }
    if options.counters {
        let clamp = |v: u64| OperandInput::Integer(v.min(i64::MAX as u64) as i64);
        // A counter the engine did not report is removed, not left stale.
        match a.depth {
            Some(d) => rec.set("acd", &[clamp(u64::from(d))])?,
            None => {
                rec.remove("acd");
            }
        }
        match a.nodes {
            Some(n) => rec.set("acn", &[clamp(n)])?,
            None => {
                rec.remove("acn");
            }
        }
        rec.set("acs", &[clamp(a.elapsed.as_secs())])?;
    }
    if options.solution_time {
        let clamp = |v: u64| OperandInput::Integer(v.min(i64::MAX as u64) as i64);
        // A move that never led a reported line was found at the end.
        let at = a.found.unwrap_or(crate::engine::Found { elapsed: Some(a.elapsed), nodes: a.nodes, depth: a.depth });
        let t = at.elapsed.unwrap_or(a.elapsed);
        // Milliseconds to 0.1 ms where the time was measured that finely
        // (the built-in engine); whole when it came in whole milliseconds
        // (a UCI engine's `info time`).
        let tenths = t.as_micros().div_ceil(100);
        match a.best {
            Some(_) if tenths.is_multiple_of(10) => {
                rec.set(SOLVE_MS, &[clamp((tenths / 10).try_into().unwrap_or(u64::MAX))])?
            }
            Some(_) => {
                let text = format!("{}.{}", tenths / 10, tenths % 10);
                rec.set(SOLVE_MS, &[OperandInput::Raw(text.as_bytes())])?;
            }
            None => {
                rec.remove(SOLVE_MS);
            }
        }
        for (op, v) in [(SOLVE_ACN, at.nodes), (SOLVE_ACD, at.depth.map(u64::from))] {
            match v {
                Some(v) if a.best.is_some() => rec.set(op, &[clamp(v)])?,
                _ => {
                    rec.remove(op);
                }
            }
        }
    }
    Ok(())
}

fn engine_diag(severity: Severity, message: String) -> Diagnostic {
    Diagnostic { severity, code: Code::EngineFault, offset: 0, opcode: None, operand: None, message }
}

/// pfga or pfts with one engine, as a [`Processor`] of the line pipeline
/// (`epd_core::pipeline::run`): one analyzer per worker thread, each with
/// its own engine. Records are read leniently.
///
/// When `stop` is raised, the search in progress is told to stop and its
/// record is not written (the pipeline ends the run there).
#[derive(Debug)]
pub struct Analyzer<'a, E: Engine + ?Sized> {
    engine: &'a mut E,
    options: &'a AnalysisOptions,
    stop: &'a AtomicBool,
}

impl<'a, E: Engine + ?Sized> Analyzer<'a, E> {
    /// An analyzer over `engine`.
    pub fn new(engine: &'a mut E, options: &'a AnalysisOptions, stop: &'a AtomicBool) -> Analyzer<'a, E> {
        Analyzer { engine, options, stop }
    }
}

impl<E: Engine + ?Sized> Processor for Analyzer<'_, E> {
    type Counts = AnalysisCounts;

    fn mode(&self) -> ParseMode {
        ParseMode::Lenient
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, AnalysisCounts>) -> Result<(), Interrupted> {
        let Job { line, diags, out, counts, .. } = job;
        let Some(pos) = rec.position().copied() else { return Ok(()) };
        let engine = &mut *self.engine;
        let result = engine.new_game().and_then(|()| engine.analyze_record(rec, &pos, &self.options.limits, self.stop));
        if self.stop.load(Ordering::Relaxed) {
            return Err(Interrupted);
        }
        match result {
            Ok(a) => {
                counts.analyzed += 1;
                counts.nodes += a.nodes.unwrap_or(0);
                if a.score.is_none() {
                    diags.push(engine_diag(
                        Severity::Warning,
                        format!("{} gave no exact score: ce left out", engine.name()),
                    ));
                }
                if let Err(e) = apply(rec, &a, self.options) {
                    diags.push(engine_diag(Severity::Error, format!("analysis not recordable: {e}")));
                    counts.faults += 1;
                }
                counts.judge(rec, a.pv.first().copied(), line);
            }
            Err(e) => {
                counts.faults += 1;
                diags.push(engine_diag(
                    Severity::Error,
                    format!("{}: {e}; record written without analysis", engine.name()),
                ));
            }
        }
        rec.append_canonical(out);
        out.push(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineError;
    use epd_core::{Position, Score};
    use std::time::Duration;

    /// An engine that plays the first legal move in ASCII SAN order and
    /// scores it 12, or fails on positions whose first move is a capture.
    struct FirstMove {
        calls: u32,
    }

    impl Engine for FirstMove {
        fn name(&self) -> &str {
            "first"
        }
        fn new_game(&mut self) -> Result<(), EngineError> {
            Ok(())
        }
        fn analyze(&mut self, pos: &Position, _: &Limits, _: &AtomicBool) -> Result<Analysis, EngineError> {
            self.calls += 1;
            if !pos.has_legal_moves() {
                return Ok(Analysis::no_moves(pos));
            }
            let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            moves.sort_by_key(|&m| pos.san(m));
            let m = moves[0];
            if pos.is_capture(m) {
                return Err(EngineError::Crashed { detail: "test crash".into() });
            }
            Ok(Analysis {
                pv: vec![m],
                score: Some(Score::Centipawns(12)),
                best: Some(m),
                depth: Some(3),
                seldepth: None,
                nodes: Some(100),
                elapsed: Duration::ZERO,
                lines: Vec::new(),
                found: None,
            })
        }
    }

    fn run_str(input: &str, options: &AnalysisOptions, jobs: usize) -> (String, AnalysisSummary, Vec<(u64, Code)>) {
        let mut engines: Vec<FirstMove> = (0..jobs).map(|_| FirstMove { calls: 0 }).collect();
        let stop = AtomicBool::new(false);
        let mut workers: Vec<_> = engines.iter_mut().map(|e| Analyzer::new(e, options, &stop)).collect();
        let mut out = Vec::new();
        let mut diags = Vec::new();
        // Each diagnostic's line and code, in order.
        let render = |r: &epd_core::pipeline::LineReport<'_>, out: &mut epd_core::pipeline::Rendered| {
            for d in r.diagnostics {
                out.push(r.line_no, d, |_| {});
            }
        };
        let mut emit =
            |rendered: &epd_core::pipeline::Rendered| diags.extend(rendered.iter().map(|d| (d.line, d.code)));
        let config = epd_core::pipeline::Config { flush_each: true, ..Default::default() };
        let s =
            epd_core::pipeline::run(input.as_bytes(), &mut out, &mut workers, &config, &render, &mut emit, &mut |_| {})
                .unwrap();
        assert_eq!(s.lines, input.lines().count() as u64);
        (String::from_utf8(out).unwrap(), s, diags)
    }

    #[test]
    fn writes_pv_ce_pm_and_judges_targets() {
        // Start position: the first legal SAN in ASCII order is "Na3".
        let input = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Na3; id \"a\";\n\
                     \n\
                     rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - am Na3; id \"b\";\n\
                     rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"c\"; ce 5;\n\
                     this is not a record\n\
                     rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - id \"mated\"; ce 3;\n";
        let options = AnalysisOptions::new(AnalysisVerb::Target, Limits::depth(1));
        for jobs in [1, 3] {
            let (out, s, diags) = run_str(input, &options, jobs);
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(
                lines[0],
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Na3; ce 12; id \"a\"; pm Na3; pv Na3;"
            );
            assert_eq!(lines[1], "");
            assert_eq!(
                lines[3],
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 12; id \"c\"; pm Na3; pv Na3;"
            );
            assert_eq!(lines[4], "this is not a record");
            // Checkmated: empty pv, ce -32767 replacing the old ce.
            assert_eq!(
                lines[5],
                "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - ce -32767; id \"mated\"; pv;"
            );
            assert_eq!((s.records, s.invalid, s.counts.analyzed), (5, 1, 4));
            assert_eq!((s.counts.solved, s.counts.missed, s.counts.unscored), (1, 1, 2));
            assert_eq!(diags.iter().map(|d| d.0).collect::<Vec<_>>().first(), Some(&5));
        }
    }

    /// An earlier analysis's pm and pv are replaced together: the record
    /// refuses a new pv that its old pm does not start (E012).
    #[test]
    fn earlier_pm_and_pv_are_replaced_together() {
        let input = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 30; pm e4; pv e4 e5;\n";
        let options = AnalysisOptions::new(AnalysisVerb::Target, Limits::depth(1));
        let (out, s, diags) = run_str(input, &options, 1);
        assert_eq!(out, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 12; pm Na3; pv Na3;\n");
        assert_eq!((diags.len(), s.counts.faults), (0, 0));
    }

    #[test]
    fn a_fault_is_recorded_and_the_run_goes_on() {
        // White's only move, Kxb2, is a capture: the test engine fails there.
        let input = "k7/8/8/8/8/8/1q6/K7 w - - bm Kxb2;\n6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#;\n";
        let mut options = AnalysisOptions::new(AnalysisVerb::Target, Limits::depth(1));
        options.counters = true;
        options.sm = true;
        let (out, s, diags) = run_str(input, &options, 2);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "k7/8/8/8/8/8/1q6/K7 w - - bm Kxb2;");
        assert_eq!(
            lines[1],
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - acd 3; acn 100; acs 0; bm Ra8#; ce 12; pm Kf1; pv Kf1; sm Kf1;"
        );
        assert_eq!(diags, [(1, Code::EngineFault)]);
        assert_eq!((s.counts.faults, s.errors, s.counts.solved, s.counts.missed), (1, 1, 0, 1));
    }

    #[test]
    fn verdicts() {
        for (line, pm, expected) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#;", "Ra8#", Verdict::Solved),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8# Ra7;", "Ra7", Verdict::Solved),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#;", "Ra7", Verdict::Missed),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra7;", "Ra8#", Verdict::Solved),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra7;", "Ra7", Verdict::Missed),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; am Ra8#;", "Ra8#", Verdict::Missed),
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"x\";", "Ra8#", Verdict::Unscored),
        ] {
            let (rec, _) = Record::parse(line.as_bytes(), ParseMode::Lenient);
            let pos = *rec.position().unwrap();
            let m = pos.parse_san(pm.as_bytes(), epd_core::SanMode::Lenient).unwrap();
            assert_eq!(verdict(&rec, Some(m)), expected, "{line} {pm}");
        }
    }
}
