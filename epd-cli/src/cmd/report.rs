//! `epd report`: Gastric, the report generator (§3.3, §9). Reads result
//! files (one run each) and reports solved and missed records, themes,
//! mates, STS points, time-based scores, distributions and consistency
//! checks, and compares the runs; with `--tuning`, reports on a tuning run's
//! history instead.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{bail, Context};
use epd_core::pipeline::{LineReport, Rendered};
use epd_core::{ParseMode, Verdict};
use epd_report::render::{self, CsvRows};
use epd_report::{Grouping, Input, KeyBook, Options, Report};

use crate::diagnostics::{ColorChoice, DiagFormat, Printer};
use crate::flags::{MaxErrors, Output};
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd target --counters suite.epd -o results.epd && epd report results.epd   # a suite has no pm: run it first
  epd analyze wacnew.epd --nodes 20000 -o a.epd && epd analyze wacnew.epd --nodes 200000 -o b.epd
  epd report a.epd b.epd --label 20k --label 200k      # each run, then the comparison
  epd report sts-results.epd                            # STS: themes from the ids, points, rating estimate
  epd report results.epd --key suite.epd                # the key from another file, by id, else by position
  epd report a.epd b.epd --format json                  # schema epd-report/1; `objective` for tuners
  epd report a.epd b.epd --format html -o report.html   # one page, charts inline, works offline
  epd report a.epd b.epd --write-regressions worse.epd  # records the first run solved and the last missed
  epd report --tuning tune-dev                          # a tuning run: its parameters, results and average
  epd report --tuning tune-dev/history.csv --format html -o tuning.html   # a chart per parameter";

/// What a report is printed as.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReportFormat {
    /// Tables for a terminal.
    #[default]
    Text,
    /// The report as JSON (schema `epd-report/1`).
    Json,
    /// One row per record per run.
    Csv,
    /// One self-contained page: inline SVG charts, sortable tables, no
    /// network.
    Html,
}

/// How records are grouped into themes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// The id without its trailing number (the default).
    Id,
    /// One theme per run file.
    File,
    /// By the opcodes that key the record (bm, am, bm+am, dm, points).
    Opcode,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Result files, one run each (`-`: standard input, once).
    #[arg(value_name = "RESULTS.epd", required_unless_present = "tuning")]
    files: Vec<String>,
    /// The solution key: each result record's bm, am, dm and points come
    /// from the key record with its id (when the positions agree), else
    /// from the key record of its position; records in neither keep their
    /// own.
    #[arg(long, value_name = "SUITE.epd")]
    key: Option<String>,
    /// A run's label, in the order of the files (default: its file name).
    /// Repeatable.
    #[arg(long, value_name = "NAME")]
    label: Vec<String>,
    /// Group records into themes by a regular expression over the id: its
    /// first capture group (the whole match without one).
    #[arg(long, value_name = "REGEX", conflicts_with = "group_by")]
    group: Option<String>,
    /// Group records into themes by the id without its trailing number
    /// (the default), by file, or by the opcodes that key them.
    #[arg(long, value_enum, value_name = "HOW")]
    group_by: Option<GroupBy>,
    /// What to print.
    #[arg(long, value_enum, default_value_t)]
    format: ReportFormat,
    /// Read records strictly (default: leniently, as result files often
    /// need; invalid records are counted and listed either way).
    #[arg(long)]
    strict: bool,
    /// Work out the time-based scores from solution times (the solve-time
    /// extension, else acs of solved records): BT-2630 and BT-2450
    /// (2630 or 2450 - sum(t)/30, t capped at 900 s and 900 s when
    /// unsolved) and LCT II (1900 + points by time band). Their formulas
    /// were made for their own 30 and 35 positions.
    #[arg(long)]
    time_scores: bool,
    /// Write the records the last run missed to FILE, unchanged.
    #[arg(long, value_name = "FILE")]
    write_missed: Option<String>,
    /// Write the records the last run solved to FILE, unchanged.
    #[arg(long, value_name = "FILE")]
    write_solved: Option<String>,
    /// Write the records the first run solved and the last missed to
    /// FILE, unchanged (the last run's lines).
    #[arg(long, value_name = "FILE")]
    write_regressions: Option<String>,
    /// Threads that read the records (default: one per core; 0: the
    /// same). Several runs share them, a run a thread at least. The report
    /// is the same with any number.
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    cap: MaxErrors,
    /// Report on a tuning run instead: its history, `epd tune`'s
    /// history.csv, or the run's directory that holds it (`-`: standard
    /// input). Each parameter's start, end, range and last c_k, its course
    /// (the HTML: a chart per parameter, its probes as a band), and the
    /// iterations' results with their moving average; the run's tune.json
    /// beside the history adds each parameter's bounds and the iterations
    /// planned.
    #[arg(
        long,
        value_name = "HISTORY",
        conflicts_with_all = [
            "files", "key", "label", "group", "group_by", "strict", "time_scores", "write_missed",
            "write_solved", "write_regressions", "max_errors", "jobs",
        ]
    )]
    tuning: Option<String>,
    /// With --tuning: the moving average's window, in iterations (default:
    /// a tenth of them, at least 1).
    #[arg(long, value_name = "N", value_parser = window)]
    window: Option<usize>,
}

/// `--window N`: a number of iterations, at least 1.
fn window(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a number of iterations, 1 or more".into()),
    }
}

fn open(path: &str) -> anyhow::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(BufReader::with_capacity(1 << 16, crate::files::open_input(Path::new(path))?.reader)))
}

fn load_key(path: &str) -> anyhow::Result<KeyBook> {
    let mut bad = 0u64;
    let book = KeyBook::load(open(path)?, |n, d| {
        bad += 1;
        if bad <= 5 {
            eprintln!(
                "{path}:{n}: warning: a key record that does not read, not used{}",
                d.map_or(String::new(), |d| format!(": {}: {}", d.code, d.message))
            );
        }
    })
    .with_context(|| format!("cannot read {path}"))?;
    if bad > 5 {
        eprintln!("{path}: {} more key records that do not read", bad - 5);
    }
    Ok(book)
}

/// Writes the lines of `file` whose numbers are in `lines` (ascending).
fn write_lines(file: &str, lines: impl Iterator<Item = io::Result<u64>>, to: &str) -> anyhow::Result<u64> {
    let mut input = open(file)?;
    let mut out = BufWriter::new(File::create(to).with_context(|| format!("cannot create {to}"))?);
    let mut line = Vec::new();
    let mut no = 0u64;
    let mut written = 0;
    // The wanted line numbers rise: read up to each and copy it.
    'wanted: for want in lines {
        let want = want?;
        if want <= no {
            continue; // a number already passed (each line is written once)
        }
        while no < want {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break 'wanted;
            }
            no += 1;
        }
        if no == want {
            out.write_all(&line)?;
            if !line.ends_with(b"\n") {
                out.write_all(b"\n")?;
            }
            written += 1;
        }
    }
    out.flush().with_context(|| format!("cannot write {to}"))?;
    Ok(written)
}

/// `--tuning HISTORY`: the report on a tuning run's history.
fn tuning(history: &str, args: &Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    use epd_report::tuning;
    if args.format == ReportFormat::Csv {
        bail!("--tuning reports as text, json or html: the history is CSV already");
    }
    let dir = std::path::Path::new(history);
    let path = if history != "-" && dir.is_dir() {
        let file = dir.join("history.csv");
        if !file.is_file() {
            bail!("{history} holds no history.csv: not the directory of an epd tune run");
        }
        file.to_string_lossy().into_owned()
    } else {
        history.to_owned()
    };
    let name = if path == "-" { "<stdin>" } else { &path };
    let mut bytes = Vec::new();
    crate::files::open_input(Path::new(&path))?
        .reader
        .read_to_end(&mut bytes)
        .map_err(|e| crate::input::file_error("read", name, &e))?;
    let history = tuning::read(&bytes, name)?;
    let mut report = tuning::build(&history, name, args.window);
    // The run's state beside its history adds the ranges and the plan; a
    // history read alone (from stdin, or copied away) goes without.
    let state = (path != "-").then(|| std::path::Path::new(&path).with_file_name("tune.json")).filter(|p| p.is_file());
    if let Some(state) = state {
        let shown = state.to_string_lossy();
        let read = std::fs::read(&state)
            .map_err(|e| format!("{shown}: {}", crate::files::io_reason(&e)))
            .and_then(|bytes| tuning::read_state(&bytes, &shown).map_err(|e| e.0));
        match read {
            Ok(s) => report.add_state(&s),
            Err(e) => eprintln!("epd: warning: {e}; reported without it"),
        }
    }
    let mut out: Box<dyn Write> = match args.output.file.as_deref().filter(|path| path.as_os_str() != "-") {
        None => Box::new(BufWriter::new(stdout)),
        Some(path) => {
            Box::new(BufWriter::new(File::create(path).with_context(|| format!("cannot create {}", path.display()))?))
        }
    };
    match args.format {
        ReportFormat::Text => out.write_all(tuning::text(&report).as_bytes())?,
        ReportFormat::Json => tuning::write_json(&report, &mut out)?,
        ReportFormat::Html => tuning::write_html(&report, &mut out)?,
        ReportFormat::Csv => {}
    }
    out.flush().context("cannot write the report")?;
    Ok(Outcome::Ok)
}

pub fn run(args: Args, color: ColorChoice, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    if let Some(history) = &args.tuning {
        return tuning(history, &args, stdout);
    }
    if args.window.is_some() {
        // Not clap's `requires`: it lets an argument that conflicts with
        // one given (the files) be missing.
        bail!("--window sets the moving average of --tuning: give --tuning HISTORY");
    }
    if args.files.iter().filter(|f| *f == "-").count() > 1 {
        bail!("standard input (-) can be one run only");
    }
    if args.label.len() > args.files.len() {
        bail!("{} labels for {} files", args.label.len(), args.files.len());
    }
    let grouping = match (&args.group, args.group_by) {
        (Some(re), _) => Grouping::Regex(regex::Regex::new(re).map_err(|e| anyhow::anyhow!("--group {re:?}: {e}"))?),
        (None, Some(GroupBy::File)) => Grouping::File,
        (None, Some(GroupBy::Opcode)) => Grouping::Opcode,
        (None, Some(GroupBy::Id) | None) => Grouping::IdPrefix,
    };
    let key = args.key.as_deref().map(load_key).transpose()?;
    let names: Vec<String> =
        args.files.iter().map(|f| if f == "-" { "<stdin>".to_owned() } else { f.clone() }).collect();
    let mut inputs = Vec::new();
    let mut heads: Vec<Vec<u8>> = Vec::new();
    for (i, f) in args.files.iter().enumerate() {
        let label = args.label.get(i).cloned().unwrap_or_else(|| {
            std::path::Path::new(&names[i]).file_name().map_or(names[i].clone(), |n| n.to_string_lossy().into_owned())
        });
        let path = (f != "-").then(|| std::path::PathBuf::from(f));
        let mut reader = open(f)?;
        // The first block, for the binary-data check of the diagnostics.
        heads.push(reader.fill_buf().map_err(|e| crate::input::file_error("read", &names[i], &e))?[..].to_vec());
        inputs.push(Input { label, file: names[i].clone(), reader, path });
    }
    let labels: Vec<String> = inputs.iter().map(|i| i.label.clone()).collect();
    // Each format keeps the issues and missed ids it shows (JSON lists
    // them all, HTML every missed id).
    let (issues_kept, missed_kept) = match args.format {
        ReportFormat::Text => (Some(render::TEXT_LIST), Some(render::TEXT_LIST)),
        ReportFormat::Html => (Some(render::HTML_ISSUES as usize), None),
        ReportFormat::Json | ReportFormat::Csv => (None, None),
    };
    let options = Options {
        key,
        grouping,
        strict: args.strict,
        time_scores: args.time_scores,
        jobs: args.jobs.unwrap_or(0),
        issues_kept,
        missed_kept,
    };
    let writes_back = args.write_missed.is_some() || args.write_solved.is_some() || args.write_regressions.is_some();
    if writes_back && args.files.last().is_some_and(|f| f == "-") {
        bail!("--write-missed, --write-solved and --write-regressions read the last run again: it must be a file");
    }
    let mut out: Box<dyn Write> = match args.output.file.as_deref().filter(|path| path.as_os_str() != "-") {
        None => Box::new(BufWriter::new(stdout)),
        Some(path) => {
            Box::new(BufWriter::new(File::create(path).with_context(|| format!("cannot create {}", path.display()))?))
        }
    };
    let mut printer = Printer::new(DiagFormat::Text, args.cap.max_errors, true, color);
    let mut err = BufWriter::new(io::stderr().lock());
    let report: Report = {
        // CSV rows go out as the records are read.
        let mut csv = (args.format == ReportFormat::Csv).then(|| CsvRows::new(&mut out));
        let mut csv_error: Option<io::Error> = None;
        let mut on_record = |run: usize, j: &epd_report::Judged| {
            if let Some(c) = csv.as_mut() {
                if let Err(e) = c.row(&labels[run], &names[run], j) {
                    csv_error.get_or_insert(e);
                }
            }
        };
        let mut started = None;
        let mut rendered = Rendered::default();
        let mut on_diag = |run: usize, r: &LineReport<'_>| {
            if started != Some(run) {
                // Binary input is said once, its line diagnostics counted.
                printer.start_file(&names[run], &heads[run][..heads[run].len().min(8192)], &mut err);
                started = Some(run);
            }
            rendered.clear();
            printer.render(&names[run]).line(r, &mut rendered);
            printer.emit(&rendered, &mut err);
        };
        let rows: Option<epd_report::RecordSink<'_>> =
            if args.format == ReportFormat::Csv { Some(&mut on_record) } else { None };
        let report = epd_report::build(inputs, &options, rows, &mut on_diag)?;
        printer.finish(&epd_core::pipeline::Summary::<()>::default(), ParseMode::Lenient, &mut err);
        err.flush()?;
        if let Some(e) = csv_error {
            return Err(e.into());
        }
        if let Some(mut c) = csv {
            c.flush()?;
        }
        report
    };
    match args.format {
        ReportFormat::Text => out.write_all(render::text(&report)?.as_bytes())?,
        ReportFormat::Json => render::write_json(&report, &mut out)?,
        ReportFormat::Html => render::write_html(&report, &mut out)?,
        ReportFormat::Csv => {}
    }
    out.flush().context("cannot write the report")?;
    drop(out);
    let last = args.files.len() - 1;
    for (to, want) in [(&args.write_missed, Verdict::Missed), (&args.write_solved, Verdict::Solved)] {
        let Some(to) = to else { continue };
        let input = Input {
            label: labels[last].clone(),
            file: names[last].clone(),
            reader: open(&args.files[last])?,
            path: None,
        };
        let mut out = BufWriter::new(File::create(to).with_context(|| format!("cannot create {to}"))?);
        epd_report::copy_records(input, &options, want, &mut out)?;
        out.flush().with_context(|| format!("cannot write {to}"))?;
    }
    if let Some(to) = &args.write_regressions {
        if report.runs.len() < 2 || report.comparisons.is_empty() {
            bail!("--write-regressions compares the first run with the last: give two runs or more (not with --format csv)");
        }
        // The comparisons of the first run come first, the last of them
        // with the last run.
        // Newly failed, in the last run's line order.
        write_lines(&args.files[last], report.comparisons[report.runs.len() - 2].newly_failed.lines(), to)?;
    }
    Ok(if report.runs.iter().any(|r| r.invalid > 0) { Outcome::Invalid } else { Outcome::Ok })
}
