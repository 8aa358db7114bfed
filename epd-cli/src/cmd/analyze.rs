//! `epd analyze` (pfga, §7.2) and `epd target` (pfts, §7.5): analysis of
//! every record by an engine.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use epd_core::pipeline::{self, Config, LineReport, PipelineError, Rendered};
use epd_engine::analysis::{AnalysisOptions, AnalysisSummary, AnalysisVerb as Verb, Analyzer, Scored};
use epd_engine::{Engine, Limits};

use crate::diagnostics::{ColorChoice, Printer};
use crate::files::{Plan, Stop};
use crate::flags::{DiagArgs, DropInvalid, EngineCommand, EngineOptions, Files, Output};
use crate::Outcome;

mod resume;

pub const ANALYZE_EXAMPLES: &str = "Examples:
  epd analyze --movetime 500 suite.epd > analysed.epd       # the built-in engine
  epd analyze --engine /usr/games/stockfish --depth 18 --counters suite.epd
  epd analyze --engine stockfish --threads 2 --hash 256 --option 'Skill Level=10' -j 2 suite.epd
  epd analyze --engine ./epd --engine-arg uci --nodes 20000 suite.epd   # any UCI engine with arguments";
pub const TARGET_EXAMPLES: &str = "Examples:
  epd target --engine /usr/games/stockfish --movetime 200 wac.epd > wac.out.epd
  epd target --depth 6 --jobs 2 bratko-kopec.epd
  epd target --engine stockfish --nodes 100000 -q wac.epd 2>&1 >/dev/null | tail -1";

/// A time in milliseconds, at least 1, with a message a person would
/// write when it is not.
fn at_least_one_ms(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1 ms".into()),
        Ok(v) => Ok(v),
        Err(_) => Err("must be a whole number of milliseconds, such as 500".into()),
    }
}

/// A node count, at least 1.
fn at_least_one_node(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1 node".into()),
        Ok(v) => Ok(v),
        Err(_) => Err("must be a whole number of nodes, such as 100000".into()),
    }
}

/// Options shared by `analyze` and `target`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: Files,
    #[command(flatten)]
    engine: EngineCommand,
    /// Hard time per position, in milliseconds (default 1000 when no
    /// --depth or --nodes is given).
    #[arg(long, value_name = "MS", value_parser = at_least_one_ms)]
    movetime: Option<u64>,
    /// Soft depth target in plies: the engine stops when it reaches it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    depth: Option<u32>,
    /// Soft node target: the engine stops when it has searched about N nodes.
    #[arg(long, value_name = "N", value_parser = at_least_one_node)]
    nodes: Option<u64>,
    /// Hard wall-clock cap per position in milliseconds: the engine is told
    /// to stop then and what it found is used (default: movetime + grace;
    /// none for a depth or node search without --movetime).
    #[arg(long, value_name = "MS", value_parser = at_least_one_ms)]
    timeout: Option<u64>,
    /// How long an engine may take to answer after it should have stopped
    /// before it is killed as hung, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    grace: u64,
    #[command(flatten)]
    engine_options: EngineOptions,
    /// Engines run in parallel, one record each at a time; output keeps input order.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
    /// Add the analysis counters acd (depth), acn (nodes) and acs (seconds).
    #[arg(long)]
    counters: bool,
    /// Add when the move played first led the principal variation and then
    /// held it to the end (the solution time of test suites), as the
    /// extension operations `Solve_ms` (milliseconds), `Solve_acn` (nodes)
    /// and `Solve_acd` (depth); `epd report` scores times from them.
    #[arg(long)]
    solution_time: bool,
    /// Principal variations per record (MultiPV, 1-64): the best line is
    /// pv and ce as always; line K (2..N) is written as the extension
    /// operations `pvK` (its moves) and `ceK` (its score), e.g. `ce2 -15;
    /// pv2 d4 d5;`. UCI engines get the MultiPV option; the built-in engine
    /// searches each line in turn within the same limits.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    multipv: u32,
    /// Add sm (supplied move), the same move as pm.
    #[arg(long)]
    sm: bool,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    invalid: DropInvalid,
    /// Quiet: no warnings, no progress bar and no summary (unless
    /// --summary asks for one), only errors.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// The summary on standard error at the end: `text` (the default,
    /// with the ids of missed records), or `json` (one object on the last
    /// line: counts, and the ids of solved and missed records).
    #[arg(long, value_enum, value_name = "FORMAT")]
    summary: Option<SummaryFormat>,
    /// Go on with an interrupted run: `-o FILE` holds the first records of
    /// this input's output (a torn last line is dropped); they are checked
    /// against the input, kept, and the run goes on from the next record.
    #[arg(long, requires = "output")]
    resume: bool,
    #[command(flatten)]
    diag: DiagArgs,
}

/// How the run's summary is printed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
}

fn limits(args: &Args) -> Limits {
    let ms = Duration::from_millis;
    let mut l = Limits {
        movetime: args.movetime.map(ms),
        depth: args.depth,
        nodes: args.nodes,
        timeout: args.timeout.map(ms),
        grace: ms(args.grace),
        multipv: args.multipv,
        mate: None,
        clock: None,
    };
    if l.movetime.is_none() && l.depth.is_none() && l.nodes.is_none() {
        l.movetime = Some(ms(1000));
    }
    l
}

/// The engines, one a job.
fn engines(args: &Args) -> anyhow::Result<Vec<Box<dyn Engine>>> {
    let options = args.engine_options.uci(args.multipv)?;
    (0..args.jobs).map(|_| args.engine.start(args.engine_options.hash, &options)).collect()
}

/// Lines in a regular file (for the progress bar's length).
fn count_lines(path: &str) -> Option<u64> {
    let f = File::open(path).ok()?;
    let mut r = BufReader::with_capacity(1 << 16, f);
    let mut n = 0u64;
    loop {
        let buf = r.fill_buf().ok()?;
        if buf.is_empty() {
            return Some(n);
        }
        n += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        let len = buf.len();
        r.consume(len);
    }
}

pub fn run(verb: Verb, args: Args, color: ColorChoice, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let limits = limits(&args);
    let options =
        AnalysisOptions { verb, limits, counters: args.counters, sm: args.sm, solution_time: args.solution_time };
    let mut plan = Plan::new(&args.input.files, args.output.file.as_deref(), false)?;
    let mut resumed = None;
    if args.resume {
        if plan.inputs() > 1 {
            bail!("--resume takes one input");
        }
        let out = args.output.file.as_deref().filter(|out| out.as_os_str() != "-");
        let Some(out) = out else {
            bail!("--resume needs -o FILE, the output of the interrupted run");
        };
        resumed = Some(resume::prepare(out)?);
        plan.append();
    }
    let mut engines = engines(&args).with_context(|| format!("engine {}", args.engine.engine))?;
    let stop = Stop::install()?;
    let mut err = BufWriter::new(io::stderr().lock());
    let terminal = io::stderr().is_terminal();
    let start = Instant::now();
    let engine_name = engines.first().map_or("?", |e| e.name()).to_owned();
    let jobs = engines.len();
    let mut workers: Vec<_> = engines.iter_mut().map(|e| Analyzer::new(&mut **e, &options, stop.flag())).collect();
    let quiet = args.quiet;
    let summary = args.summary.or((!quiet).then_some(SummaryFormat::Text));
    let mut printer = Printer::new(args.diag.format, args.diag.cap.max_errors, quiet, color);
    let mut per_file = Vec::new();
    let drop_invalid = args.invalid.drop_invalid;
    let total = plan.run(stdout, |display, input, _, out| {
        let mut input = BufReader::with_capacity(1 << 16, input);
        // A resumed run: the records already in the output are checked
        // against the input, counted, and skipped.
        let (lines_before, mut earlier) = match resumed.take() {
            Some(r) => {
                let earlier = r.skip(&mut input, drop_invalid).map_err(PipelineError::Read)?;
                (earlier.lines, earlier)
            }
            None => (0, AnalysisSummary::default()),
        };
        let config = Config { drop_invalid, flush_each: true, stop: Some(stop.flag()), lines_before };
        let head = input.fill_buf().map_err(PipelineError::Read)?;
        printer.start_file(display, head, &mut err);
        let bar = if terminal && !quiet {
            let bar = match (display != "<stdin>").then(|| count_lines(display)).flatten() {
                Some(n) => indicatif::ProgressBar::new(n),
                None => indicatif::ProgressBar::new_spinner(),
            };
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} records, {elapsed_precise} elapsed, ETA {eta} {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(display.to_owned());
            bar.set_position(lines_before);
            Some(bar)
        } else {
            None
        };
        let render = printer.render(display);
        let render = |r: &LineReport<'_>, out: &mut Rendered| render.line(r, out);
        let mut emit = |rendered: &Rendered| {
            let mut show = || {
                printer.emit(rendered, &mut err);
                let _ = err.flush();
            };
            match &bar {
                Some(b) => b.suspend(show),
                None => show(),
            }
        };
        let base = earlier.counts.clone();
        let mut progress = |p: &AnalysisSummary| {
            if let Some(b) = &bar {
                b.set_position(lines_before + p.lines);
                let c = &p.counts;
                let faults = if c.faults > 0 { format!(", {} engine faults", c.faults) } else { String::new() };
                let (solved, scored) = (base.solved + c.solved, base.solved + base.missed + c.solved + c.missed);
                b.set_message(format!("solved {solved}/{scored}{faults}"));
            }
        };
        let s = pipeline::run(input, out, &mut workers, &config, &render, &mut emit, &mut progress);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let s = s?;
        earlier += s;
        per_file.push((display.to_owned(), earlier.clone()));
        Ok(earlier)
    })?;
    printer.finish(&total, epd_core::ParseMode::Lenient, &mut err);
    let secs = start.elapsed().as_secs_f64();
    match summary {
        Some(SummaryFormat::Text) => {
            for (name, s) in &per_file {
                let _ = writeln!(err, "{}", summary_line(name, verb, s));
                if verb == Verb::Target || s.counts.missed > 0 {
                    missed_lines(s, terminal, &mut err);
                }
            }
            if per_file.len() > 1 {
                let _ = writeln!(err, "{}", summary_line("total", verb, &total));
            }
            let nodes = total.counts.nodes;
            let _ = writeln!(
                err,
                "engine {engine_name} x{jobs}; {nodes} nodes, {secs:.2}s, {:.0} nodes/s",
                nodes as f64 / secs.max(1e-9)
            );
        }
        Some(SummaryFormat::Json) => {
            let json = JsonSummary {
                kind: "summary",
                verb: match verb {
                    Verb::Analyze => "analyze",
                    Verb::Target => "target",
                },
                engine: &engine_name,
                jobs,
                seconds: secs,
                files: per_file.iter().map(|(name, s)| JsonCounts::new(name, s)).collect(),
                total: JsonCounts::new("total", &total),
            };
            serde_json::to_writer(&mut err, &json)?;
            writeln!(err)?;
        }
        None => {}
    }
    if total.interrupted && !quiet {
        let _ = writeln!(err, "interrupted: every record finished before the signal was written");
    }
    err.flush()?;
    let outcome = stop.outcome(&total);
    if total.counts.faults > 0 && !matches!(outcome, Outcome::Interrupted(_)) {
        bail!("the engine failed on {} record(s); they were written without analysis", total.counts.faults);
    }
    Ok(outcome)
}

/// How a scored record is named in summaries: its id, else `line N`.
fn name_of(s: &Scored) -> String {
    s.id.clone().unwrap_or_else(|| format!("line {}", s.line))
}

/// The most missed ids listed on a terminal.
const MISSED_ON_TERMINAL: usize = 30;

/// `  missed: WAC.002, WAC.100, ...` (capped on a terminal).
fn missed_lines(s: &AnalysisSummary, terminal: bool, err: &mut dyn Write) {
    let missed: Vec<String> = s.counts.scored.iter().filter(|r| !r.solved).map(name_of).collect();
    if missed.is_empty() {
        return;
    }
    let cap = if terminal { MISSED_ON_TERMINAL } else { usize::MAX };
    let shown = missed.len().min(cap);
    let mut text = format!("  missed: {}", missed[..shown].join(", "));
    if shown < missed.len() {
        text.push_str(&format!(", and {} more (--summary json lists them all)", missed.len() - shown));
    }
    let mut escaped = Vec::new();
    crate::diagnostics::push_escaped(text.as_bytes(), &mut escaped);
    let _ = err.write_all(&escaped);
    let _ = writeln!(err);
}

/// The JSON summary: `{"type":"summary", "verb", "engine", "jobs",
/// "seconds", "files":[counts...], "total":counts}`.
#[derive(serde::Serialize)]
struct JsonSummary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    verb: &'static str,
    engine: &'a str,
    jobs: usize,
    seconds: f64,
    files: Vec<JsonCounts>,
    total: JsonCounts,
}

/// The counts of one file (or of all): records, their fate, and the ids
/// (or `line N`) of the solved and missed records in input order.
#[derive(serde::Serialize)]
struct JsonCounts {
    file: String,
    records: u64,
    invalid: u64,
    analysed: u64,
    engine_faults: u64,
    solved: u64,
    missed: u64,
    unscored: u64,
    nodes: u64,
    interrupted: bool,
    solved_ids: Vec<String>,
    missed_ids: Vec<String>,
}

impl JsonCounts {
    fn new(name: &str, s: &AnalysisSummary) -> JsonCounts {
        let c = &s.counts;
        let ids = |solved: bool| c.scored.iter().filter(|r| r.solved == solved).map(name_of).collect();
        JsonCounts {
            file: name.to_owned(),
            records: s.records,
            invalid: s.invalid,
            analysed: c.analyzed,
            engine_faults: c.faults,
            solved: c.solved,
            missed: c.missed,
            unscored: c.unscored,
            nodes: c.nodes,
            interrupted: s.interrupted,
            solved_ids: ids(true),
            missed_ids: ids(false),
        }
    }
}

/// `wac.epd: 290/300 solved, 10 missed, 0 unscored; 300 analysed, 0 invalid, 0 engine faults`
fn summary_line(name: &str, verb: Verb, s: &AnalysisSummary) -> String {
    let c = &s.counts;
    let tail = format!("{} analysed, {} invalid, {} engine faults", c.analyzed, s.invalid, c.faults);
    let mut escaped = Vec::new();
    crate::diagnostics::push_escaped(name.as_bytes(), &mut escaped);
    let name = String::from_utf8_lossy(&escaped);
    match verb {
        Verb::Target => format!(
            "{name}: {}/{} solved, {} missed, {} unscored (no bm or am); {tail}",
            c.solved,
            c.solved + c.missed,
            c.missed,
            c.unscored
        ),
        Verb::Analyze => format!("{name}: {} records; {tail}", s.records),
    }
}
