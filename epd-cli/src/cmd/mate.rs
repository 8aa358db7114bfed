//! `epd mate -n N [FILE...]`: pfms, the forced-mate search (§7.3).

use std::io::{self, BufWriter, Write};
use std::time::Instant;

use epd_core::pipeline::Config;
use epd_engine::mate::{MateOptions, MateProver};

use crate::diagnostics::ColorChoice;
use crate::files::{Plan, Stop};
use crate::flags::{Diagnostics, DropInvalid, Files, Output};
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd mate -n 3 matetrack.epd > solved.epd      # passes 1, 2, 3: dm is the shortest mate
  epd mate -n 2 --single-pass suite.epd         # the spec's one pass: dm 2 for any mate within 2
  epd mate -n 4 --jobs 4 -q - < positions.epd
  epd mate -n 5 --timeout 2000 hard.epd         # at most 2 s per record";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: Files,
    /// The mate length N, in fullmoves (1-60).
    #[arg(short = 'n', long = "moves", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=60))]
    moves: u32,
    /// One pass of length N (spec-literal: any mate within N is written dm N)
    /// instead of passes 1..N (dm is then the shortest mate).
    #[arg(long)]
    single_pass: bool,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    invalid: DropInvalid,
    #[command(flatten)]
    diagnostics: Diagnostics,
    /// The most the transposition table grows to: 2^BITS buckets of 32
    /// bytes (each worker's starts at 2^10 and grows with its work).
    #[arg(long, value_name = "BITS", default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=28))]
    hash_bits: u32,
    /// Give up on a record after MS milliseconds (all its passes): it is
    /// written unchanged with a warning and counted as timed out.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
    /// Worker threads (one table each); records, dm, pm and pv are the same as with one.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
}

pub fn run(args: Args, color: ColorChoice, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let options = MateOptions {
        moves: args.moves,
        single_pass: args.single_pass,
        table_bits: args.hash_bits,
        timeout: args.timeout.map(std::time::Duration::from_millis),
    };
    let plan = Plan::new(&args.input.files, args.output.file.as_deref(), false)?;
    let stop = Stop::install()?;
    let config =
        Config { drop_invalid: args.invalid.drop_invalid, flush_each: true, stop: Some(stop.flag()), lines_before: 0 };
    let mut err = BufWriter::new(io::stderr().lock());
    let start = Instant::now();
    let mut workers: Vec<MateProver<'_>> =
        (0..args.jobs.max(1)).map(|_| MateProver::new(&options).with_stop(stop.shared())).collect();
    let mut printer = args.diagnostics.printer(color);
    let mut total = plan
        .run(stdout, |display, input, _, out| printer.run_file(display, input, out, &mut workers, &config, &mut err))?;
    printer.finish(&total, epd_core::ParseMode::Lenient, &mut err);
    total.counts.solved.resize(args.moves as usize, 0);
    let secs = start.elapsed().as_secs_f64();
    let solved: Vec<String> =
        total.counts.solved.iter().enumerate().map(|(k, c)| format!("dm {}: {c}", k + 1)).collect();
    let _ = writeln!(
        err,
        "{} records, {} searched, {} skipped (dm <= {}), {}{} invalid; solved {} ({}); {} nodes, {:.2}s, {:.0} nodes/s",
        total.records,
        total.counts.searched,
        total.counts.skipped,
        args.moves,
        if args.timeout.is_some() { format!("{} timed out, ", total.counts.timed_out) } else { String::new() },
        total.invalid,
        total.counts.solved.iter().sum::<u64>(),
        solved.join(", "),
        total.counts.nodes,
        secs,
        total.counts.nodes as f64 / secs.max(1e-9),
    );
    if total.interrupted {
        let _ = writeln!(err, "interrupted: every record finished before the signal was written");
    }
    err.flush()?;
    Ok(stop.outcome(&total))
}
