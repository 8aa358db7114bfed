//! `epd mate -n N [FILE...]`: pfms, the forced-mate search (§7.3).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::time::Instant;

use anyhow::Context;
use epd_core::verbs::LineReport;
use epd_engine::mate::{self, Options, Summary};

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd mate -n 3 matetrack.epd > solved.epd      # passes 1, 2, 3: dm is the shortest mate
  epd mate -n 2 --single-pass suite.epd         # the spec's one pass: dm 2 for any mate within 2
  epd mate -n 4 --jobs 4 -q - < positions.epd";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// The mate length N, in fullmoves (1-60).
    #[arg(short = 'n', long = "moves", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=60))]
    moves: u32,
    /// One pass of length N (spec-literal: any mate within N is written dm N)
    /// instead of passes 1..N (dm is then the shortest mate).
    #[arg(long)]
    single_pass: bool,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Leave invalid records out of the output (default: copy them unchanged).
    #[arg(long)]
    drop_invalid: bool,
    /// Print no warnings, only errors.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Transposition table size: 2^BITS buckets of 32 bytes.
    #[arg(long, value_name = "BITS", default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=28))]
    hash_bits: u32,
    /// Worker threads (one table each); records, dm, pm and pv are the same as with one.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
}

pub fn run(args: Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let options = Options {
        moves: args.moves,
        single_pass: args.single_pass,
        drop_invalid: args.drop_invalid,
        table_bits: args.hash_bits,
    };
    let files: Vec<String> = if args.files.is_empty() { vec!["-".into()] } else { args.files.clone() };
    let mut err = BufWriter::new(io::stderr().lock());
    let mut file_out = match &args.output {
        Some(path) if path != "-" => {
            Some(BufWriter::new(File::create(path).with_context(|| format!("cannot create {path}"))?))
        }
        _ => None,
    };
    let start = Instant::now();
    let mut total = Summary { solved: vec![0; args.moves as usize], ..Summary::default() };
    for name in &files {
        let display = if name == "-" { "<stdin>" } else { name.as_str() };
        let input: Box<dyn Read> = if name == "-" {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(name).with_context(|| format!("cannot open {name}"))?)
        };
        let input = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        let report = |r: &LineReport<'_>| {
            buf.clear();
            super::render_text(display, args.quiet, r, &mut buf);
            let _ = err.write_all(&buf);
        };
        let s = match file_out.as_mut() {
            Some(w) => mate::run_parallel(input, w, &options, args.jobs, report),
            None => mate::run_parallel(input, &mut *stdout, &options, args.jobs, report),
        }
        .with_context(|| format!("while processing {display}"))?;
        total.lines += s.lines;
        total.records += s.records;
        total.invalid += s.invalid;
        total.searched += s.searched;
        total.skipped += s.skipped;
        total.nodes += s.nodes;
        total.warnings += s.warnings;
        total.errors += s.errors;
        for (t, k) in total.solved.iter_mut().zip(&s.solved) {
            *t += k;
        }
    }
    if let Some(mut w) = file_out {
        w.flush()?;
    }
    stdout.flush()?;
    let secs = start.elapsed().as_secs_f64();
    let solved: Vec<String> = total.solved.iter().enumerate().map(|(k, c)| format!("dm {}: {c}", k + 1)).collect();
    let _ = writeln!(
        err,
        "{} records, {} searched, {} skipped (dm <= {}), {} invalid; solved {} ({}); {} nodes, {:.2}s, {:.0} nodes/s",
        total.records,
        total.searched,
        total.skipped,
        args.moves,
        total.invalid,
        total.solved.iter().sum::<u64>(),
        solved.join(", "),
        total.nodes,
        secs,
        total.nodes as f64 / secs.max(1e-9),
    );
    err.flush()?;
    Ok(if total.invalid > 0 { Outcome::Invalid } else { Outcome::Ok })
}
