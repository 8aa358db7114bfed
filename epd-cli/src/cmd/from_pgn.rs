//! `epd from-pgn [FILE...]`: one EPD record for the initial position and
//! after every move of every game.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};

use anyhow::Context;
use epd_core::pgn::{self, EpdOptions, PgnDiagnostic, PgnSummary};

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd from-pgn games.pgn > positions.epd
  epd from-pgn --sm --counters --id games.pgn -o positions.epd
  zcat big.pgn.gz | epd from-pgn - | epd check";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PGN files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Add sm: the move played from each position.
    #[arg(long)]
    sm: bool,
    /// Add hmvc and fmvn (the FEN move counters).
    #[arg(long)]
    counters: bool,
    /// Add id: "White - Black, Event Round, ply N".
    #[arg(long)]
    id: bool,
    /// Add c0: Event, Site, Date, Round and Result.
    #[arg(long)]
    c0: bool,
}

pub fn run(args: Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let options = EpdOptions { supplied_move: args.sm, counters: args.counters, id: args.id, comment: args.c0 };
    let files: Vec<String> = if args.files.is_empty() { vec!["-".into()] } else { args.files.clone() };
    let mut file_out;
    let out: &mut dyn Write = match &args.output {
        Some(path) if path != "-" => {
            file_out = BufWriter::new(File::create(path).with_context(|| format!("cannot create {path}"))?);
            &mut file_out
        }
        _ => stdout,
    };
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let mut total = PgnSummary::default();
    let mut errors = 0u64;
    for name in &files {
        let display = if name == "-" { "<stdin>" } else { name.as_str() };
        let mut reporter = |d: &PgnDiagnostic| {
            let kind = if d.error { "error" } else { "warning" };
            let code = if d.error { epd_core::Code::PgnError } else { epd_core::Code::PgnWarning }.as_str();
            if d.error {
                errors += 1;
            }
            let _ = writeln!(err, "{display}:{}:{}: {kind}[{code}]: {}", d.line, d.column.max(1), d.message);
        };
        let s = if name == "-" {
            let stdin = io::stdin();
            pgn::to_epd(BufReader::with_capacity(1 << 16, stdin.lock()), &mut *out, &options, &mut reporter)
        } else {
            let f = File::open(name).with_context(|| format!("cannot open {name}"))?;
            pgn::to_epd(BufReader::with_capacity(1 << 16, f), &mut *out, &options, &mut reporter)
        }
        .with_context(|| format!("while reading {display}"))?;
        total.games += s.games;
        total.complete += s.complete;
        total.records += s.records;
    }
    out.flush()?;
    if total.complete < total.games {
        let _ = writeln!(
            err,
            "{} games, {} converted whole, {} records written",
            total.games, total.complete, total.records
        );
    }
    err.flush()?;
    Ok(if errors > 0 { Outcome::Invalid } else { Outcome::Ok })
}
