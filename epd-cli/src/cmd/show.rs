//! `epd show [RECORD|FILE] [--format ascii|unicode|svg]` and
//! `epd convert --to fen|epd [FILE...]`.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use epd_core::pipeline::{Config, Interrupted, Job, NoCounts, Processor};
use epd_core::{diagram, ParseMode, Record};

use crate::diagnostics::{ColorChoice, DiagFormat, Printer};
use crate::files::{Plan, Stop};
use crate::flags::Files;
use crate::Outcome;

pub const SHOW_EXAMPLES: &str = "Examples:
  epd show 'k2r4/ppp5/8/8/8/Q7/5PPP/7K b - -'
  epd show wac.epd --format unicode | less
  epd show 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -' --format svg > board.svg";
pub const CONVERT_EXAMPLES: &str = "Examples:
  epd convert --to fen suite.epd > suite.fen    # hmvc/fmvn become the counters
  epd convert --to epd positions.fen            # counters become hmvc/fmvn";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Letters, `*` for empty squares (the 1996 EPD help text's style).
    Ascii,
    /// Chess glyphs with coordinates.
    Unicode,
    /// An SVG image.
    Svg,
}

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// A FEN or EPD record, or a file of them (`-` for stdin).
    #[arg(value_name = "RECORD|FILE")]
    input: Vec<OsString>,
    /// Diagram style.
    #[arg(long, value_enum, default_value_t = Style::Ascii)]
    format: Style,
    /// SVG size in pixels.
    #[arg(long, default_value_t = 400)]
    size: u32,
}

/// `epd show` as a processor of the line pipeline: a diagram for each
/// valid record, a blank line between two (not for SVG).
#[derive(Clone, Copy, Debug)]
struct Show {
    format: Style,
    size: u32,
    first: bool,
}

impl Processor for Show {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        ParseMode::Lenient
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
        use std::fmt::Write as _;
        let Job { out, .. } = job;
        let mut text = String::new();
        if !self.first && self.format != Style::Svg {
            text.push('\n');
        }
        self.first = false;
        let setup = rec.setup();
        let _ = match self.format {
            Style::Ascii => write!(text, "{}", diagram::ascii(setup)),
            Style::Unicode => write!(text, "{}", diagram::unicode(setup)),
            Style::Svg => write!(text, "{}", diagram::svg(setup, self.size.max(64))),
        };
        if self.format != Style::Svg {
            let _ = write!(text, "{} to move", setup.turn);
            if let Some(id) = rec.id() {
                let _ = write!(text, ", id \"{}\"", String::from_utf8_lossy(id));
            }
            text.push('\n');
        }
        out.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

pub fn run_show(args: ShowArgs, color: ColorChoice, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    // One argument is a file, `-` or a record; several words of which the
    // first is not a file are one record written without quotes.
    let inputs: Vec<PathBuf> = match &args.input[..] {
        [first, _, ..] if first != "-" && std::fs::metadata(first).is_err() => {
            let mut record = OsString::new();
            for (i, word) in args.input.iter().enumerate() {
                if i > 0 {
                    record.push(" ");
                }
                record.push(word);
            }
            vec![record.into()]
        }
        _ => args.input.iter().map(PathBuf::from).collect(),
    };
    let mut proc = Show { format: args.format, size: args.size, first: true };
    run_lines(&inputs, &mut proc, true, color, out)
}

/// Runs a display verb (show, convert) over the inputs, with the one
/// diagnostic printer.
fn run_lines<P: Processor<Counts = NoCounts>>(
    inputs: &[PathBuf],
    proc: &mut P,
    drop_invalid: bool,
    color: ColorChoice,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let plan = Plan::new(inputs, None, false)?;
    let stop = Stop::install()?;
    let config = Config { drop_invalid, flush_each: false, stop: Some(stop.flag()), lines_before: 0 };
    let mut err = io::BufWriter::new(io::stderr().lock());
    let mut printer = Printer::new(DiagFormat::Text, None, false, color);
    let total = plan.run(out, |display, input, _, out| {
        printer.run_file(display, input, out, std::slice::from_mut(proc), &config, &mut err)
    })?;
    err.flush()?;
    Ok(stop.outcome(&total))
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Six-field FEN; hmvc and fmvn operations become the counters (other operations are left out).
    Fen,
    /// Canonical EPD; FEN counters become hmvc and fmvn.
    Epd,
}

#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The target notation.
    #[arg(long, value_enum)]
    to: Target,
    #[command(flatten)]
    input: Files,
}

/// `epd convert` as a processor of the line pipeline: each valid record
/// in the target notation; invalid records are copied through byte for
/// byte by the pipeline.
#[derive(Clone, Copy, Debug)]
struct Convert {
    to: Target,
}

impl Processor for Convert {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        ParseMode::Lenient
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> Result<(), Interrupted> {
        let Job { out, diags, .. } = job;
        // FEN's move counters are what convert reads, not a deviation
        // (E027 stays for a counter glued to the en passant field).
        diags.retain(|d| !(d.code == epd_core::Code::MoveCounters && d.message.starts_with("FEN move counters")));
        match self.to {
            Target::Epd => rec.append_canonical(out),
            Target::Fen => {
                let mut setup = rec.setup().clone();
                (setup.halfmoves, setup.fullmoves) = rec.move_counters();
                out.extend_from_slice(setup.fen().as_bytes());
            }
        }
        out.push(b'\n');
        Ok(())
    }
}

pub fn run_convert(args: ConvertArgs, color: ColorChoice, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    run_lines(&args.input.files, &mut Convert { to: args.to }, false, color, out)
}
