//! `epd normalize|purge|repair|check [FILE...]`: the stream verbs.

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;

use anyhow::bail;
use epd_core::pipeline::Config;
use epd_core::verbs::{StreamVerb, Verb};
use epd_core::ParseMode;

use crate::diagnostics::ColorChoice;
use crate::files::{Plan, Stop};
use crate::flags::{DropInvalid, Output, Reading};
use crate::Outcome;

pub const NORMALIZE_EXAMPLES: &str = "Examples:
  epd normalize suite.epd > suite.norm.epd
  epd normalize --lenient old.epd -o new.epd
  epd normalize --in-place --jobs 2 big.epd
  cat a.epd b.epd | epd normalize - 2>errors.txt";
pub const PURGE_EXAMPLES: &str = "Examples:
  epd purge acn acs suite.epd
  epd purge c0 c1 c2 --lenient games.epd -o clean.epd";
pub const REPAIR_EXAMPLES: &str = "Examples:
  epd repair bratko-kopec.epd > bk.epd     # unquoted ids, detached '+', stray ';'
  epd repair perft.epd -o perft.fixed.epd  # FEN counters become hmvc/fmvn
  epd repair --in-place old.epd";
pub const CHECK_EXAMPLES: &str = "Examples:
  epd check suite.epd && echo valid
  epd check --lenient *.epd
  epd check --format json suite.epd | jq .code";

/// Options of the stream verbs that write records.
#[derive(clap::Args, Debug)]
pub struct Common {
    #[command(flatten)]
    reading: Reading,
    #[command(flatten)]
    output: Output,
    /// Rewrite each FILE in place, atomically (temporary file, then rename).
    #[arg(short = 'i', long, conflicts_with = "output")]
    in_place: bool,
    #[command(flatten)]
    invalid: DropInvalid,
}

/// Options of `epd check`, which writes no records: no output file, no
/// in-place rewrite, nothing to drop.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    reading: Reading,
}

impl From<CheckArgs> for Common {
    fn from(a: CheckArgs) -> Common {
        Common { reading: a.reading, output: Output::default(), in_place: false, invalid: DropInvalid::default() }
    }
}

#[derive(clap::Args, Debug)]
pub struct PurgeArgs {
    /// The opcodes to remove, then the input files (the first word that is
    /// not an opcode, or names a file, starts the files). Use `--` before
    /// a file named like an opcode.
    #[arg(required = true, value_name = "OPCODE")]
    opcode: String,
    #[command(flatten)]
    common: Common,
}

fn is_opcode(s: &str) -> bool {
    epd_core::is_valid_opcode(s.as_bytes())
}

pub fn run_purge(args: PurgeArgs, color: ColorChoice, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    // clap gives all positionals to the first list; split opcodes from
    // files at the first word that is not an opcode or names a file.
    let mut common = args.common;
    let mut opcodes = Vec::new();
    let mut files = Vec::new();
    for w in std::iter::once(PathBuf::from(args.opcode)).chain(std::mem::take(&mut common.reading.input.files)) {
        match w.to_str() {
            Some(opcode) if files.is_empty() && is_opcode(opcode) && !w.exists() => opcodes.push(opcode.to_owned()),
            _ => files.push(w),
        }
    }
    if opcodes.is_empty() {
        bail!("purge needs at least one OPCODE");
    }
    common.reading.input.files = files;
    run(Verb::Purge(opcodes), common, ParseMode::Strict, color, stdout)
}

pub fn run(
    verb: Verb,
    args: Common,
    default_mode: ParseMode,
    color: ColorChoice,
    stdout: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let read = &args.reading;
    let mode = read.mode(default_mode);
    if args.in_place && verb == Verb::Check {
        bail!("--in-place needs a verb that writes records");
    }
    let plan = Plan::new(&read.input.files, args.output.file.as_deref(), args.in_place)?;
    let stop = Stop::install()?;
    let config =
        Config { drop_invalid: args.invalid.drop_invalid, flush_each: false, stop: Some(stop.flag()), lines_before: 0 };
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let mut printer = read.diagnostics.printer(color);
    let several = plan.inputs() > 1;
    let mut workers = vec![StreamVerb::new(verb.clone(), mode); read.jobs.max(1)];
    let total = plan.run(stdout, |display, input, size, out| {
        let input = Progress::wrap(input, size, display);
        let s = printer.run_file(display, input, out, &mut workers, &config, &mut err)?;
        if several && (verb == Verb::Check || s.invalid > 0 || s.interrupted) {
            printer.summary_line(display, &s, &mut err);
        }
        Ok(s)
    })?;
    if verb == Verb::Check || total.invalid > 0 || total.interrupted {
        let name = if several { "total".into() } else { plan.name(0) };
        printer.summary_line(&name, &total, &mut err);
    }
    printer.finish(&total, mode, &mut err);
    err.flush()?;
    Ok(stop.outcome(&total))
}

/// Counts bytes read and shows a progress bar on a terminal for inputs
/// large enough to take a while.
struct Progress<R> {
    inner: R,
    bar: Option<indicatif::ProgressBar>,
}

impl<R: Read> Progress<R> {
    fn wrap(inner: R, size: Option<u64>, name: &str) -> Progress<R> {
        let bar = match size {
            Some(n) if n >= 8 << 20 && io::stderr().is_terminal() => {
                let bar = indicatif::ProgressBar::new(n);
                if let Ok(style) = indicatif::ProgressStyle::with_template(
                    "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_message(name.to_string());
                Some(bar)
            }
            _ => None,
        };
        Progress { inner, bar }
    }
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            if n == 0 {
                bar.finish_and_clear();
            } else {
                bar.inc(n as u64);
            }
        }
        Ok(n)
    }
}
