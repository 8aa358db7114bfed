//! `epd select`: keep the records that match, written exactly as they
//! were read.
//!
//! Filters of different kinds must all hold; several filters of one kind
//! (two `--id`, say) match when any of them does. `--invert` keeps the
//! records that do not match. Records are written byte for byte as read
//! (a non-canonical record stays as it is; a CRLF line keeps its CR);
//! nothing is added and blank lines are left out. Invalid records are
//! never selected: their diagnostics are printed as `epd check` prints
//! them, they are counted, and the exit code is 1.
//!
//! The filters and what is done with each record are the core's
//! (`epd_core::verbs::select`); this is the command line over them. Select
//! runs on the one line pipeline, so it has the line rules and `-j` of
//! every file verb.

use std::io::{self, BufWriter, Write};

use epd_core::pipeline::Config;
use epd_core::verbs::{Condition, LineRange, SelectError, SelectOptions, Selector};
use epd_core::ParseMode;

use crate::diagnostics::ColorChoice;
use crate::files::{Plan, Stop};
use crate::flags::{Output, Reading};
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd select --id 'WAC.0*' wacnew.epd            # ids by glob (* and ?)
  epd select --id '^STS\\(v1[0-5]' --regex sts.epd
  epd select --lines 10..20 suite.epd             # input lines 10 to 20
  epd select --has dm --where 'dm<=3' mates.epd   # mates in at most 3
  epd select --where bm=Nf3 --where bm=Nc3 suite.epd   # either move among bm
  epd select --lacks bm -v suite.epd              # the records that have bm";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Keep records whose id matches PATTERN: a glob (`*` any text, `?`
    /// one character) matched against the whole id, or a regular
    /// expression with --regex (found anywhere in the id). Records
    /// without id never match. Repeatable.
    #[arg(long, value_name = "PATTERN")]
    id: Vec<String>,
    /// Read --id patterns as regular expressions.
    #[arg(long)]
    regex: bool,
    /// Keep records on these input lines: `A..B`, `A..`, `..B` or `N`,
    /// 1-based and inclusive, as diagnostics number them. Repeatable.
    #[arg(long, value_name = "A..B", value_parser = line_range)]
    lines: Vec<LineRange>,
    /// Keep records that have this opcode. Repeatable.
    #[arg(long, value_name = "OPCODE")]
    has: Vec<String>,
    /// Keep records that lack this opcode. Repeatable.
    #[arg(long, value_name = "OPCODE")]
    lacks: Vec<String>,
    /// Keep records whose operand satisfies EXPR: `OPCODE=VALUE`,
    /// `OPCODE!=VALUE` (any operand equal; moves compared as moves, so
    /// `bm=Nf3` also finds `bm Ng1f3`), or `<`, `<=`, `>`, `>=` against
    /// an integer (`ce>100`, `acd>=12`, `dm<=3`). A record without the
    /// opcode never matches. Repeatable.
    #[arg(long = "where", value_name = "EXPR", value_parser = condition)]
    conditions: Vec<Condition>,
    /// Keep the records that do not match.
    #[arg(short = 'v', long)]
    invert: bool,
    #[command(flatten)]
    reading: Reading,
    #[command(flatten)]
    output: Output,
}

/// `A..B`, `A..`, `..B` or `N`: 1-based, inclusive.
fn line_range(s: &str) -> Result<LineRange, String> {
    s.parse().map_err(|e: SelectError| e.to_string())
}

/// One `--where` condition.
fn condition(s: &str) -> Result<Condition, String> {
    s.parse().map_err(|e: SelectError| e.to_string())
}

pub fn run(args: Args, color: ColorChoice, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let options = SelectOptions {
        mode: args.reading.mode(ParseMode::Strict),
        ids: args.id,
        regex: args.regex,
        lines: args.lines,
        has: args.has,
        lacks: args.lacks,
        conditions: args.conditions,
        invert: args.invert,
    };
    let select = Selector::new(&options).map_err(|e| match e {
        SelectError::Regex { pattern, message } => anyhow::anyhow!("--id {pattern:?}: {message}"),
        e => e.into(),
    })?;
    let plan = Plan::new(&args.reading.input.files, args.output.file.as_deref(), false)?;
    let stop = Stop::install()?;
    let config = Config { drop_invalid: true, flush_each: false, stop: Some(stop.flag()), lines_before: 0 };
    let mut err = BufWriter::new(io::stderr().lock());
    let mut printer = args.reading.diagnostics.printer(color);
    let mut workers = vec![select; args.reading.jobs.max(1)];
    let total = plan
        .run(stdout, |display, input, _, out| printer.run_file(display, input, out, &mut workers, &config, &mut err))?;
    printer.finish(&total, ParseMode::Lenient, &mut err);
    if !args.reading.diagnostics.quiet || total.invalid > 0 {
        writeln!(
            err,
            "{} of {} records selected; {} invalid (never selected){}",
            total.counts.selected,
            total.records,
            total.invalid,
            if total.interrupted { " (interrupted)" } else { "" }
        )?;
    }
    err.flush()?;
    Ok(stop.outcome(&total))
}
