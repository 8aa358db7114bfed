//! `epd moves RECORD`

use std::io::Write;

use crate::{input, Outcome};

pub const EXAMPLES: &str = "Examples:
  epd moves 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -'
  epd moves 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' | wc -l";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A FEN or an EPD record (operations are ignored).
    #[arg(required = true, num_args = 1.., value_name = "RECORD")]
    record: Vec<String>,
}

pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let pos = input::position_arg(&args.record.join(" "))?;
    let mut sans: Vec<String> = pos.legal_moves().iter().map(|&m| pos.san(m)).collect();
    sans.sort_unstable();
    for s in sans {
        writeln!(out, "{s}")?;
    }
    Ok(Outcome::Ok)
}
