//! `epd perft DEPTH [RECORD] [--divide]` and
//! `epd perft --verify [--max-depth N] FILE...`

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context};
use epd_core::{perft, perft_divide, verify_perft_line, PerftCheck, Position};

use crate::{input, Outcome};

pub const EXAMPLES: &str = "Examples:
  epd perft 5
  epd perft 4 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -' --divide
  epd perft --verify --max-depth 4 perftsuite.epd
  epd perft --verify - < perftsuite.epd";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Check every depth operation (`D1 20` or `perft1 20`) of the files.
    #[arg(long)]
    verify: bool,
    /// With --verify: skip depths above N.
    #[arg(long, value_name = "N", requires = "verify")]
    max_depth: Option<u32>,
    /// Print the count below each legal move first.
    #[arg(long, conflicts_with = "verify")]
    divide: bool,
    /// Worker threads for --verify (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// DEPTH [RECORD], or with --verify the FILEs (`-` for stdin).
    #[arg(value_name = "DEPTH [RECORD] | FILE")]
    args: Vec<String>,
}

pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if args.verify {
        return verify(&args, out);
    }
    let Some(depth) = args.args.first() else { bail!("missing DEPTH (try `epd perft 5`)") };
    let depth: u32 = depth.parse().with_context(|| format!("DEPTH must be a whole number, not {depth:?}"))?;
    let pos = if args.args.len() > 1 { input::position_arg(&args.args[1..].join(" "))? } else { Position::startpos() };
    let total = if args.divide {
        let mut total = 0;
        for (m, n) in perft_divide(&pos, depth) {
            writeln!(out, "{}: {n}", pos.uci(m))?;
            total += n;
        }
        writeln!(out)?;
        total
    } else {
        perft(&pos, depth)
    };
    writeln!(out, "{total}")?;
    Ok(Outcome::Ok)
}

struct Job {
    file: String,
    line: usize,
    text: Vec<u8>,
}

fn read_jobs(files: &[String]) -> anyhow::Result<Vec<Job>> {
    let mut jobs = Vec::new();
    let names: Vec<String> = if files.is_empty() { vec!["-".into()] } else { files.to_vec() };
    for name in names {
        let reader = std::io::BufReader::new(crate::files::open_input(std::path::Path::new(&name))?.reader);
        let display = if name == "-" { "<stdin>".to_string() } else { name.clone() };
        for (i, line) in reader.split(b'\n').enumerate() {
            let text = line.map_err(|e| crate::input::file_error("read", &display, &e))?;
            if text.iter().all(|b| b.is_ascii_whitespace() || *b == 0) {
                continue;
            }
            jobs.push(Job { file: display.clone(), line: i + 1, text });
        }
    }
    Ok(jobs)
}

fn verify(args: &Args, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let jobs = read_jobs(&args.args)?;
    let max_depth = args.max_depth.unwrap_or(u32::MAX);
    let threads = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let next = AtomicUsize::new(0);
    // Each job's report, filled in by whichever worker ran it, printed in
    // file order afterwards.
    let reports: Mutex<Vec<Option<PerftCheck>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.min(jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let report = verify_perft_line(&job.text, max_depth);
                if let Ok(mut r) = reports.lock() {
                    r[i] = Some(report);
                }
            });
        }
    });
    let reports = reports.into_inner().unwrap_or_default();
    let (mut checked, mut failed, mut bad_records, mut skipped) = (0usize, 0usize, 0usize, 0usize);
    for (job, report) in jobs.iter().zip(reports) {
        let Some(report) = report else { continue };
        checked += report.checked;
        skipped += report.skipped;
        for d in &report.diagnostics {
            eprintln!("{}:{}:{}: {d}", job.file, job.line, d.column());
        }
        failed += report.mismatches;
        if report.unreadable {
            bad_records += 1;
        }
    }
    writeln!(
        out,
        "{} records, {checked} depths checked, {failed} mismatches, {bad_records} unreadable records, {skipped} depths skipped",
        jobs.len()
    )?;
    Ok(if failed == 0 && bad_records == 0 { Outcome::Ok } else { Outcome::Invalid })
}
