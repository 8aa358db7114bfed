//! `epd analyze` (pfga, §7.2) and `epd target` (pfts, §7.5): analysis of
//! every record by an engine.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use epd_core::pipeline::{self, Config, LineReport};
use epd_engine::analysis::{AnalysisOptions, AnalysisSummary, AnalysisVerb as Verb, Analyzer};
use epd_engine::{Engine, Limits, UciConfig, UciEngine};

use crate::diagnostics::{render, DiagFormat};
use crate::files::{Plan, Stop};
use crate::Outcome;

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
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// The engine: `builtin` (the default), or the path of a UCI engine
    /// (a bare name is looked up on PATH).
    #[arg(long, value_name = "PATH|builtin", default_value = "builtin")]
    engine: String,
    /// An argument for the UCI engine's command line (repeatable, in order):
    /// `--engine epd --engine-arg uci` runs `epd uci`.
    #[arg(long = "engine-arg", value_name = "ARG", allow_hyphen_values = true)]
    engine_args: Vec<String>,
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
    /// Engine threads (UCI option Threads; the built-in engine uses one).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Transposition table size in MiB (UCI option Hash).
    #[arg(long, value_name = "MB")]
    hash: Option<u32>,
    /// A UCI option, `NAME=VALUE` (repeatable), sent after Threads and Hash.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Engines run in parallel, one record each at a time; output keeps input order.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
    /// Add the analysis counters acd (depth), acn (nodes) and acs (seconds).
    #[arg(long)]
    counters: bool,
    /// Add sm (supplied move), the same move as pm.
    #[arg(long)]
    sm: bool,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Leave invalid records out of the output (default: copy them unchanged).
    #[arg(long)]
    drop_invalid: bool,
    /// Print no warnings and no summary, only errors.
    #[arg(short = 'q', long)]
    quiet: bool,
}

fn limits(args: &Args) -> Limits {
    let ms = Duration::from_millis;
    let mut l = Limits {
        movetime: args.movetime.map(ms),
        depth: args.depth,
        nodes: args.nodes,
        timeout: args.timeout.map(ms),
        grace: ms(args.grace),
    };
    if l.movetime.is_none() && l.depth.is_none() && l.nodes.is_none() {
        l.movetime = Some(ms(1000));
    }
    l
}

/// The UCI options to send, in order.
fn uci_options(args: &Args) -> anyhow::Result<Vec<(String, String)>> {
    let mut v = Vec::new();
    if let Some(t) = args.threads {
        v.push(("Threads".to_owned(), t.to_string()));
    }
    if let Some(h) = args.hash {
        v.push(("Hash".to_owned(), h.to_string()));
    }
    for o in &args.options {
        let Some((name, value)) = o.split_once('=') else { bail!("--option {o:?}: expected NAME=VALUE") };
        if name.trim().is_empty() {
            bail!("--option {o:?}: the name is empty");
        }
        v.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    Ok(v)
}

fn engines(args: &Args) -> anyhow::Result<Vec<Box<dyn Engine>>> {
    let options = uci_options(args)?;
    (0..args.jobs)
        .map(|_| -> anyhow::Result<Box<dyn Engine>> {
            if args.engine == "builtin" {
                return crate::cmd::builtin_engine(args.hash, &options);
            }
            let config = UciConfig {
                args: args.engine_args.clone(),
                options: options.clone(),
                ..UciConfig::new(program(&args.engine))
            };
            Ok(Box::new(UciEngine::start(config)?))
        })
        .collect()
}

/// A bare engine name is looked up on PATH, then in the games directories
/// where Debian installs engines (`stockfish` is /usr/games/stockfish).
fn program(engine: &str) -> String {
    if engine.contains('/') {
        return engine.to_owned();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain(["/usr/games".into(), "/usr/local/games".into()]);
    for dir in dirs {
        let candidate = dir.join(engine);
        if candidate.is_file() {
            return candidate.to_string_lossy().into_owned();
        }
    }
    engine.to_owned()
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

pub fn run(verb: Verb, args: Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let limits = limits(&args);
    let options = AnalysisOptions { verb, limits, counters: args.counters, sm: args.sm };
    let plan = Plan::new(&args.files, args.output.as_deref(), false)?;
    let mut engines = engines(&args).with_context(|| format!("engine {}", args.engine))?;
    let stop = Stop::install()?;
    let config = Config { drop_invalid: args.drop_invalid, flush_each: true, stop: Some(stop.flag()) };
    let mut err = BufWriter::new(io::stderr().lock());
    let terminal = io::stderr().is_terminal();
    let start = Instant::now();
    let engine_name = engines.first().map_or("?", |e| e.name()).to_owned();
    let jobs = engines.len();
    let mut workers: Vec<_> = engines.iter_mut().map(|e| Analyzer::new(&mut **e, &options, stop.flag())).collect();
    let mut files = 0;
    let quiet = args.quiet;
    let total = plan.run(stdout, |display, input, _, out| {
        files += 1;
        let input = BufReader::with_capacity(1 << 16, input);
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
            Some(bar)
        } else {
            None
        };
        let render = |r: &LineReport<'_>, buf: &mut Vec<u8>| render(DiagFormat::Text, quiet, display, r, buf);
        let mut emit = |bytes: &[u8]| match &bar {
            Some(b) => b.suspend(|| {
                let _ = err.write_all(bytes);
                let _ = err.flush();
            }),
            None => {
                let _ = err.write_all(bytes);
                let _ = err.flush();
            }
        };
        let mut progress = |p: &AnalysisSummary| {
            if let Some(b) = &bar {
                b.set_position(p.lines);
                let c = &p.counts;
                let faults = if c.faults > 0 { format!(", {} engine faults", c.faults) } else { String::new() };
                b.set_message(format!("solved {}/{}{faults}", c.solved, c.solved + c.missed));
            }
        };
        let s = pipeline::run(input, out, &mut workers, &config, &render, &mut emit, &mut progress);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if let Ok(s) = &s {
            if !quiet || verb == Verb::Target {
                let _ = writeln!(err, "{}", summary_line(display, verb, s));
            }
        }
        s
    })?;
    if files > 1 && (!args.quiet || verb == Verb::Target) {
        let _ = writeln!(err, "{}", summary_line("total", verb, &total));
    }
    if !args.quiet {
        let secs = start.elapsed().as_secs_f64();
        let nodes = total.counts.nodes;
        let _ = writeln!(
            err,
            "engine {engine_name} x{jobs}; {nodes} nodes, {secs:.2}s, {:.0} nodes/s",
            nodes as f64 / secs.max(1e-9)
        );
    }
    if total.interrupted {
        let _ = writeln!(err, "interrupted: every record finished before the signal was written");
    }
    err.flush()?;
    let outcome = stop.outcome(&total);
    if total.counts.faults > 0 && !matches!(outcome, Outcome::Interrupted(_)) {
        bail!("the engine failed on {} record(s); they were written without analysis", total.counts.faults);
    }
    Ok(outcome)
}

/// `wac.epd: 290/300 solved, 10 missed, 0 unscored; 300 analysed, 0 invalid, 0 engine faults`
fn summary_line(name: &str, verb: Verb, s: &AnalysisSummary) -> String {
    let c = &s.counts;
    let tail = format!("{} analysed, {} invalid, {} engine faults", c.analyzed, s.invalid, c.faults);
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
