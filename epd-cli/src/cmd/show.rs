//! `epd show [RECORD|FILE] [--format ascii|unicode|svg]` and
//! `epd convert --to fen|epd [FILE...]`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use anyhow::Context;
use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, NoCounts, Processor};
use epd_core::{diagram, has_errors, ParseMode, Record};

use crate::diagnostics::{render, DiagFormat};
use crate::files::{Plan, Stop};
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
    input: Vec<String>,
    /// Diagram style.
    #[arg(long, value_enum, default_value_t = Style::Ascii)]
    format: Style,
    /// SVG size in pixels.
    #[arg(long, default_value_t = 400)]
    size: u32,
}

fn lines_of(input: &[String]) -> anyhow::Result<Vec<(String, usize, Vec<u8>)>> {
    let joined = input.join(" ");
    let mut out = Vec::new();
    // One argument is a file, `-` or a record; several words are a
    // record written without quotes.
    let source = if input.is_empty() {
        crate::input::Source::Stdin
    } else if input.len() == 1 {
        crate::input::source(&joined)?
    } else {
        crate::input::Source::Text(joined.clone())
    };
    let read: Option<(String, Box<dyn BufRead>)> = match source {
        crate::input::Source::Stdin => Some(("<stdin>".into(), Box::new(BufReader::new(io::stdin())))),
        crate::input::Source::File(path) => Some((
            path.clone(),
            Box::new(BufReader::new(File::open(&path).with_context(|| format!("cannot open {path}"))?)),
        )),
        crate::input::Source::Text(_) => None,
    };
    match read {
        Some((name, r)) => {
            for (i, line) in r.split(b'\n').enumerate() {
                let line = line.with_context(|| format!("cannot read {name}"))?;
                if !line.iter().all(|b| b.is_ascii_whitespace() || *b == 0) {
                    out.push((name.clone(), i + 1, line));
                }
            }
        }
        None => out.push(("<argument>".into(), 1, joined.into_bytes())),
    }
    Ok(out)
}

fn report(name: &str, line: usize, text: &[u8], diags: &[epd_core::Diagnostic]) {
    for d in diags.iter().filter(|d| d.severity == epd_core::Severity::Error) {
        eprintln!("{name}:{line}:{}: {d}\n  {}", d.column(), String::from_utf8_lossy(text));
    }
}

pub fn run_show(args: ShowArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome::Ok;
    let mut first = true;
    for (name, line, text) in lines_of(&args.input)? {
        let (rec, diags) = Record::parse(&text, ParseMode::Lenient);
        if has_errors(&diags) && !diags.iter().all(|d| d.code != epd_core::Code::PositionSyntax) {
            report(&name, line, &text, &diags);
            outcome = Outcome::Invalid;
            continue;
        }
        if !first && args.format != Style::Svg {
            writeln!(out)?;
        }
        first = false;
        let setup = rec.setup();
        match args.format {
            Style::Ascii => write!(out, "{}", diagram::ascii(setup))?,
            Style::Unicode => write!(out, "{}", diagram::unicode(setup))?,
            Style::Svg => write!(out, "{}", diagram::svg(setup, args.size.max(64)))?,
        }
        if args.format != Style::Svg {
            let mut caption = format!("{} to move", setup.turn);
            if let Some(id) = rec.id() {
                caption.push_str(&format!(", id \"{}\"", String::from_utf8_lossy(id)));
            }
            writeln!(out, "{caption}")?;
        }
    }
    Ok(outcome)
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
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
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
        let Job { out, .. } = job;
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

pub fn run_convert(args: ConvertArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let plan = Plan::new(&args.files, None, false)?;
    let stop = Stop::install()?;
    let config = Config { drop_invalid: false, flush_each: false, stop: Some(stop.flag()) };
    let mut err = io::BufWriter::new(io::stderr().lock());
    let mut proc = Convert { to: args.to };
    let total = plan.run(out, |display, input, _, out| {
        let input = BufReader::with_capacity(1 << 16, input);
        let mut report = |r: &LineReport<'_>| {
            let mut buf = Vec::new();
            render(DiagFormat::Text, false, display, r, &mut buf);
            let _ = err.write_all(&buf);
        };
        pipeline::run_serial(input, out, &mut proc, &config, &mut report, &mut |_| {})
    })?;
    err.flush()?;
    Ok(stop.outcome(&total))
}
