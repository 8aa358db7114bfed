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
//!   nodes, whole seconds).
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

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use crate::engine::{Analysis, Engine, Limits};
use epd_core::verbs::LineReport;
use epd_core::{has_errors, Code, Diagnostic};
use epd_core::{Move, Opcode, OperandInput, ParseMode, Record, Severity};

/// Which verb.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    /// pfga: general analysis.
    Analyze,
    /// pfts: target search.
    Target,
}

/// Options for [`run`].
#[derive(Clone, Debug)]
pub struct Options {
    /// The verb.
    pub verb: Verb,
    /// The effort per record.
    pub limits: Limits,
    /// Add `acd`, `acn` and `acs`.
    pub counters: bool,
    /// Add `sm` (the same move as pm).
    pub sm: bool,
    /// Leave invalid records out of the output instead of copying them.
    pub drop_invalid: bool,
}

impl Options {
    /// The verb with these limits, no counters, no sm.
    #[must_use]
    pub fn new(verb: Verb, limits: Limits) -> Options {
        Options { verb, limits, counters: false, sm: false, drop_invalid: false }
    }
}

/// How pm fared against the record's bm and am.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// pm is in bm (if present) and not in am (if present).
    Solved,
    /// pm misses a target, hits an avoidance move, or is absent.
    Missed,
    /// The record has neither bm nor am.
    Unscored,
}

/// Judges `pm` against the bm and am of `rec`.
#[must_use]
pub fn verdict(rec: &Record, pm: Option<Move>) -> Verdict {
    let moves = |op: Opcode| rec.get_known(op).map(|o| o.moves().flatten().collect::<Vec<Move>>());
    let (bm, am) = (moves(Opcode::Bm), moves(Opcode::Am));
    if bm.is_none() && am.is_none() {
        return Verdict::Unscored;
    }
    let Some(pm) = pm else { return Verdict::Missed };
    let hit = bm.map_or(true, |b| b.contains(&pm));
    let avoided = am.map_or(true, |a| !a.contains(&pm));
    if hit && avoided {
        Verdict::Solved
    } else {
        Verdict::Missed
    }
}

/// Counts from one [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Records read (non-blank lines).
    pub records: u64,
    /// Records with at least one error (copied unchanged).
    pub invalid: u64,
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
    /// Warnings reported.
    pub warnings: u64,
    /// Errors reported (engine faults included).
    pub errors: u64,
}

impl core::ops::AddAssign for Summary {
    /// Adds another run's counts (several files).
    fn add_assign(&mut self, o: Summary) {
        self.lines += o.lines;
        self.records += o.records;
        self.invalid += o.invalid;
        self.analyzed += o.analyzed;
        self.faults += o.faults;
        self.solved += o.solved;
        self.missed += o.missed;
        self.unscored += o.unscored;
        self.nodes += o.nodes;
        self.warnings += o.warnings;
        self.errors += o.errors;
    }
}

/// Writes the analysis into the record (see the module documentation).
///
/// # Errors
/// Never in practice: the moves are legal and the numbers in range.
pub fn apply(rec: &mut Record, a: &Analysis, options: &Options) -> Result<(), epd_core::SetError> {
    let pv: Vec<OperandInput<'_>> = a.pv.iter().map(|&m| OperandInput::Move(m)).collect();
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
    Ok(())
}

/// What became of one line.
#[derive(Debug, Default)]
struct LineResult {
    out: Vec<u8>,
    diags: Vec<Diagnostic>,
    blank: bool,
    invalid: bool,
    analyzed: bool,
    fault: bool,
    verdict: Option<Verdict>,
    nodes: u64,
}

fn engine_diag(severity: Severity, message: String) -> Diagnostic {
    Diagnostic { severity, code: Code::EngineFault, offset: 0, opcode: None, operand: None, message }
}

fn process_line<E: Engine + ?Sized>(
    line: &[u8],
    rec: &mut Record,
    engine: &mut E,
    options: &Options,
    stop: &AtomicBool,
) -> LineResult {
    let mut r = LineResult::default();
    if line.iter().all(|&b| b.is_ascii_whitespace() || b == 0) {
        r.blank = true;
        r.out.push(b'\n');
        return r;
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    epd_core::verbs::parse_capped(rec, line, ParseMode::Lenient, &mut r.diags);
    let pos = rec.position().copied();
    let Some(pos) = pos.filter(|_| !has_errors(&r.diags)) else {
        r.invalid = true;
        if !options.drop_invalid {
            r.out.extend_from_slice(line);
            r.out.push(b'\n');
        }
        return r;
    };
    let result = engine.new_game().and_then(|()| engine.analyze_record(rec, &pos, &options.limits, stop));
    match result {
        Ok(a) => {
            r.analyzed = true;
            r.nodes = a.nodes.unwrap_or(0);
            if a.score.is_none() {
                r.diags.push(engine_diag(
                    Severity::Warning,
                    format!("{} gave no exact score: ce left out", engine.name()),
                ));
            }
            if let Err(e) = apply(rec, &a, options) {
                r.diags.push(engine_diag(Severity::Error, format!("analysis not recordable: {e}")));
                r.fault = true;
            }
            r.verdict = Some(verdict(rec, a.pv.first().copied()));
        }
        Err(e) => {
            r.fault = true;
            r.diags
                .push(engine_diag(Severity::Error, format!("{}: {e}; record written without analysis", engine.name())));
        }
    }
    rec.append_canonical(&mut r.out);
    r.out.push(b'\n');
    r
}

/// Where a run stands, after each line written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Lines written.
    pub lines: u64,
    /// Records analysed so far.
    pub analyzed: u64,
    /// Solved so far.
    pub solved: u64,
    /// Missed so far.
    pub missed: u64,
    /// Engine faults so far.
    pub faults: u64,
}

/// Runs pfga or pfts over `input` (see the module documentation), one
/// worker thread per engine in `engines` (at least one). Each engine
/// analyses the records it is handed; output is in input order.
///
/// `report` gets each line's diagnostics; `progress` is called after each
/// line written.
///
/// # Errors
/// I/O errors; an error if `engines` is empty or a worker thread dies.
pub fn run<R: BufRead, W: Write, E: Engine>(
    mut input: R,
    mut output: W,
    options: &Options,
    engines: &mut [E],
    mut report: impl FnMut(&LineReport<'_>),
    mut progress: impl FnMut(&Progress),
) -> io::Result<Summary> {
    if engines.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no engine to analyse with"));
    }
    let window = engines.len() * 4;
    let stop = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Vec<u8>)>(window);
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<(u64, Vec<u8>, LineResult)>();
    let mut summary = Summary::default();
    let mut prog = Progress::default();
    std::thread::scope(|scope| {
        for engine in engines.iter_mut() {
            let (job_rx, res_tx, stop) = (&job_rx, res_tx.clone(), &stop);
            scope.spawn(move || {
                let mut rec = Record::default();
                loop {
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((i, line)) = job else { return };
                    let r = process_line(&line, &mut rec, engine, options, stop);
                    if res_tx.send((i, line, r)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(res_tx);
        let mut job_tx = Some(job_tx);
        let result = (|| -> io::Result<()> {
            let (mut read, mut written) = (0u64, 0u64);
            let mut pending: BTreeMap<u64, (Vec<u8>, LineResult)> = BTreeMap::new();
            loop {
                while job_tx.is_some() && read - written < window as u64 {
                    let mut line = Vec::with_capacity(128);
                    if input.read_until(b'\n', &mut line)? == 0 {
                        job_tx = None;
                        break;
                    }
                    if line.last() == Some(&b'\n') {
                        line.pop();
                    }
                    if let Some(tx) = &job_tx {
                        tx.send((read, line)).map_err(|_| io::Error::other("analysis workers stopped"))?;
                    }
                    read += 1;
                }
                if job_tx.is_none() && written == read {
                    return Ok(());
                }
                let (i, line, r) = res_rx.recv().map_err(|_| io::Error::other("an analysis worker died"))?;
                pending.insert(i, (line, r));
                while let Some((line, r)) = pending.remove(&written) {
                    written += 1;
                    summary.lines += 1;
                    summary.records += u64::from(!r.blank);
                    for d in &r.diags {
                        match d.severity {
                            Severity::Error => summary.errors += 1,
                            Severity::Warning => summary.warnings += 1,
                        }
                    }
                    summary.invalid += u64::from(r.invalid);
                    summary.analyzed += u64::from(r.analyzed);
                    summary.faults += u64::from(r.fault);
                    summary.nodes += r.nodes;
                    match r.verdict {
                        Some(Verdict::Solved) => summary.solved += 1,
                        Some(Verdict::Missed) => summary.missed += 1,
                        Some(Verdict::Unscored) => summary.unscored += 1,
                        None => {}
                    }
                    if !r.diags.is_empty() {
                        report(&LineReport { line_no: summary.lines, text: &line, diagnostics: &r.diags });
                    }
                    output.write_all(&r.out)?;
                    prog = Progress {
                        lines: summary.lines,
                        analyzed: summary.analyzed,
                        solved: summary.solved,
                        missed: summary.missed,
                        faults: summary.faults,
                    };
                    progress(&prog);
                }
            }
        })();
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        drop(job_tx);
        result
    })?;
    output.flush()?;
    Ok(summary)
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
            })
        }
    }

    fn run_str(input: &str, options: &Options, jobs: usize) -> (String, Summary, Vec<(u64, Code)>) {
        let mut engines: Vec<FirstMove> = (0..jobs).map(|_| FirstMove { calls: 0 }).collect();
        let mut out = Vec::new();
        let mut diags = Vec::new();
        let s = run(
            input.as_bytes(),
            &mut out,
            options,
            &mut engines,
            |r| diags.extend(r.diagnostics.iter().map(|d| (r.line_no, d.code))),
            |_| {},
        )
        .unwrap();
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
        let options = Options::new(Verb::Target, Limits::depth(1));
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
            assert_eq!((s.records, s.invalid, s.analyzed), (5, 1, 4));
            assert_eq!((s.solved, s.missed, s.unscored), (1, 1, 2));
            assert_eq!(diags.iter().map(|d| d.0).collect::<Vec<_>>().first(), Some(&5));
        }
    }

    #[test]
    fn a_fault_is_recorded_and_the_run_goes_on() {
        // White's only move, Kxb2, is a capture: the test engine fails there.
        let input = "k7/8/8/8/8/8/1q6/K7 w - - bm Kxb2;\n6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#;\n";
        let mut options = Options::new(Verb::Target, Limits::depth(1));
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
        assert_eq!((s.faults, s.errors, s.solved, s.missed), (1, 1, 0, 1));
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
