//! `epd analyze` (pfga, §7.2) and `epd target` (pfts, §7.5): analysis of
//! every record by an engine.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use epd_core::verbs::LineReport;
use epd_engine::analysis::{self, Options, Progress, Summary, Verb};
use epd_engine::{Engine, Limits, UciConfig, UciEngine};

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
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Soft depth target in plies: the engine stops when it reaches it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    depth: Option<u32>,
    /// Soft node target: the engine stops when it has searched about N nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Hard wall-clock cap per position in milliseconds: the engine is told
    /// to stop then and what it found is used (default: movetime + grace;
    /// none for a depth or node search without --movetime).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
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
    let options = Options { verb, limits, counters: args.counters, sm: args.sm, drop_invalid: args.drop_invalid };
    let mut engines = engines(&args).with_context(|| format!("engine {}", args.engine))?;
    let files: Vec<String> = if args.files.is_empty() { vec!["-".into()] } else { args.files.clone() };
    let mut err = BufWriter::new(io::stderr().lock());
    let mut file_out = match &args.output {
        Some(path) if path != "-" => {
            Some(BufWriter::new(File::create(path).with_context(|| format!("cannot create {path}"))?))
        }
        _ => None,
    };
    let terminal = io::stderr().is_terminal();
    let mut total = Summary::default();
    let start = Instant::now();
    for name in &files {
        let display = if name == "-" { "<stdin>" } else { name.as_str() };
        let input: Box<dyn Read> = if name == "-" {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(name).with_context(|| format!("cannot open {name}"))?)
        };
        let input = BufReader::with_capacity(1 << 16, input);
        let bar = if terminal && !args.quiet {
            let bar = match (name != "-").then(|| count_lines(name)).flatten() {
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
        let mut buf = Vec::new();
        let report = |r: &LineReport<'_>| {
            buf.clear();
            super::render_text(display, args.quiet, r, &mut buf);
            match &bar {
                Some(b) => b.suspend(|| {
                    let _ = err.write_all(&buf);
                    let _ = err.flush();
                }),
                None => {
                    let _ = err.write_all(&buf);
                }
            }
        };
        let progress = |p: &Progress| {
            if let Some(b) = &bar {
                b.set_position(p.lines);
                let faults = if p.faults > 0 { format!(", {} engine faults", p.faults) } else { String::new() };
                b.set_message(format!("solved {}/{}{faults}", p.solved, p.solved + p.missed));
            }
        };
        let s = match file_out.as_mut() {
            Some(w) => analysis::run(input, w, &options, &mut engines, report, progress),
            None => analysis::run(input, &mut *stdout, &options, &mut engines, report, progress),
        }
        .with_context(|| format!("while processing {display}"))?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if !args.quiet || verb == Verb::Target {
            let _ = writeln!(err, "{}", summary_line(display, verb, &s));
        }
        total += s;
    }
    if let Some(mut w) = file_out {
        w.flush()?;
    }
    stdout.flush()?;
    if files.len() > 1 && (!args.quiet || verb == Verb::Target) {
        let _ = writeln!(err, "{}", summary_line("total", verb, &total));
    }
    if !args.quiet {
        let secs = start.elapsed().as_secs_f64();
        let _ = writeln!(
            err,
            "engine {} x{}; {} nodes, {secs:.2}s, {:.0} nodes/s",
            engines.first().map_or("?", |e| e.name()),
            engines.len(),
            total.nodes,
            total.nodes as f64 / secs.max(1e-9)
        );
    }
    err.flush()?;
    if total.faults > 0 {
        bail!("the engine failed on {} record(s); they were written without analysis", total.faults);
    }
    Ok(if total.invalid > 0 { Outcome::Invalid } else { Outcome::Ok })
}

/// `wac.epd: 290/300 solved, 10 missed, 0 unscored; 300 analysed, 0 invalid, 0 engine faults`
fn summary_line(name: &str, verb: Verb, s: &Summary) -> String {
    let tail = format!("{} analysed, {} invalid, {} engine faults", s.analyzed, s.invalid, s.faults);
    match verb {
        Verb::Target => format!(
            "{name}: {}/{} solved, {} missed, {} unscored (no bm or am); {tail}",
            s.solved,
            s.solved + s.missed,
            s.missed,
            s.unscored
        ),
        Verb::Analyze => format!("{name}: {} records; {tail}", s.records),
    }
}
