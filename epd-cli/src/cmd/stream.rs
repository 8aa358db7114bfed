//! `epd normalize|purge|repair|check [FILE...]`: the stream verbs.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};

use anyhow::Context;
use epd_core::verbs::{self, LineReport, Options, Summary, Verb};
use epd_core::ParseMode;

use crate::Outcome;

pub const NORMALIZE_EXAMPLES: &str = "Examples:
  epd normalize suite.epd > suite.norm.epd
  epd normalize --lenient old.epd -o new.epd
  cat a.epd b.epd | epd normalize - 2>errors.txt";
pub const PURGE_EXAMPLES: &str = "Examples:
  epd purge acn acs suite.epd
  epd purge c0 c1 c2 --lenient games.epd -o clean.epd";
pub const REPAIR_EXAMPLES: &str = "Examples:
  epd repair bratko-kopec.epd > bk.epd     # unquoted ids, detached '+', stray ';'
  epd repair perft.epd -o perft.fixed.epd  # FEN counters become hmvc/fmvn";
pub const CHECK_EXAMPLES: &str = "Examples:
  epd check suite.epd && echo valid
  epd check --lenient *.epd";

/// Options shared by the stream verbs.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Follow the specification to the letter (default for all but repair).
    #[arg(long, conflicts_with = "lenient")]
    strict: bool,
    /// Accept the dialects real files contain, reporting each change.
    #[arg(long)]
    lenient: bool,
    /// Leave invalid records out of the output (default: copy them unchanged).
    #[arg(long)]
    drop_invalid: bool,
    /// Print no warnings, only errors.
    #[arg(short = 'q', long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
pub struct PurgeArgs {
    /// The opcodes to remove, then the input files. Use `--` before a file
    /// named like an opcode.
    #[arg(required = true, value_name = "OPCODE")]
    opcodes: Vec<String>,
    #[command(flatten)]
    common: Common,
}

fn is_opcode(s: &str) -> bool {
    epd_core::is_valid_opcode(s.as_bytes())
}

pub fn run_purge(args: PurgeArgs, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    // clap gives all positionals to the first list; split opcodes from
    // files at the first word that is not an opcode (a path with '.' or
    // '/', or `-`).
    let mut common = args.common;
    let mut opcodes = Vec::new();
    let mut files = Vec::new();
    for w in args.opcodes.into_iter().chain(std::mem::take(&mut common.files)) {
        if files.is_empty() && is_opcode(&w) && !std::path::Path::new(&w).exists() {
            opcodes.push(w);
        } else {
            files.push(w);
        }
    }
    if opcodes.is_empty() {
        anyhow::bail!("purge needs at least one OPCODE");
    }
    common.files = files;
    run(Verb::Purge(opcodes), common, ParseMode::Strict, stdout)
}

pub fn run(verb: Verb, args: Common, default_mode: ParseMode, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mode = if args.strict {
        ParseMode::Strict
    } else if args.lenient {
        ParseMode::Lenient
    } else {
        default_mode
    };
    let options = Options { mode, drop_invalid: args.drop_invalid };
    let files: Vec<String> = if args.files.is_empty() { vec!["-".into()] } else { args.files.clone() };
    let mut file_out;
    let out: &mut dyn Write = match &args.output {
        Some(path) if path != "-" => {
            file_out = BufWriter::new(File::create(path).with_context(|| format!("cannot create {path}"))?);
            &mut file_out
        }
        _ => stdout,
    };
    let mut total = Summary::default();
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    for name in &files {
        let display = if name == "-" { "<stdin>" } else { name.as_str() };
        let mut reporter = |r: &LineReport<'_>| {
            for d in r.diagnostics {
                if args.quiet && d.severity == epd_core::Severity::Warning {
                    continue;
                }
                let _ = writeln!(err, "{display}:{}:{}: {d}", r.line_no, d.column());
                let _ = writeln!(err, "  {}", String::from_utf8_lossy(&excerpt(r.text)));
            }
        };
        let summary = if name == "-" {
            let stdin = io::stdin();
            verbs::run(BufReader::with_capacity(1 << 16, stdin.lock()), &mut *out, &verb, &options, &mut reporter)
        } else {
            let f = File::open(name).with_context(|| format!("cannot open {name}"))?;
            verbs::run(BufReader::with_capacity(1 << 16, f), &mut *out, &verb, &options, &mut reporter)
        }
        .with_context(|| format!("while processing {display}"))?;
        total.lines += summary.lines;
        total.records += summary.records;
        total.invalid += summary.invalid;
        total.changed += summary.changed;
        total.warnings += summary.warnings;
        total.errors += summary.errors;
    }
    out.flush()?;
    if verb == Verb::Check || total.invalid > 0 {
        let _ = writeln!(
            err,
            "{} records, {} invalid, {} errors, {} warnings",
            total.records, total.invalid, total.errors, total.warnings
        );
    }
    err.flush()?;
    Ok(if total.invalid > 0 { Outcome::Invalid } else { Outcome::Ok })
}

/// The line as shown under a diagnostic: at most 200 bytes, NULs and CRs
/// left out.
fn excerpt(text: &[u8]) -> Vec<u8> {
    text.iter().copied().filter(|&b| b != 0 && b != b'\r').take(200).collect()
}
