//! `epd from-pgn [FILE...]`: one EPD record for the initial position and
//! after every move of every game; with `--label`, the quiet ones labelled
//! with their game's result (Texel tuning data).

use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;

use epd_core::pgn::{self, EpdOptions, LabelFormat, PgnDiagnostic, PgnSummary};

use crate::flags::Output;
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd from-pgn games.pgn > positions.epd
  epd from-pgn --unique --plies 8..30 8moves_v3.pgn -o book.epd   # distinct positions, plies 8 to 30
  epd from-pgn --final --id games.pgn                             # the last position of each game
  epd from-pgn --sm --counters --id games.pgn -o positions.epd
  epd from-pgn --label --unique --plies 16.. games.pgn -o quiet-labeled.epd   # Texel tuning data
  epd from-pgn --label --label-format fen-result --pieces 6.. games.pgn > tune.txt
  zcat big.pgn.gz | epd from-pgn - | epd check";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PGN files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    output: Output,
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
    /// Write each position only the first time it occurs, in all the
    /// games of all the files (positions compared by their four EPD
    /// fields).
    #[arg(long)]
    unique: bool,
    /// Only positions whose ply in the game is in the range, both ends
    /// included: 0 is the start position, 1 the position after the first
    /// move. `A..B`, `A..`, `..B` or `N`.
    #[arg(long, value_name = "A..B", value_parser = ply_range, conflicts_with = "final_")]
    plies: Option<(u32, u32)>,
    /// Only the last position of each game (after its last mainline move).
    #[arg(long = "final", id = "final_")]
    final_: bool,
    /// Only positions with this many pieces on the board, kings and pawns
    /// included (32 at the start). `A..B`, `A..`, `..B` or `N`.
    #[arg(long, value_name = "A..B", value_parser = piece_range)]
    pieces: Option<(u32, u32)>,
    /// Only quiet positions, each labelled with its game's result, for
    /// Texel tuning. Quiet: the side to move is not in check, no capture
    /// wins material by static exchange, and the built-in engine's
    /// quiescence search stands pat (no capture sequence improves on its
    /// static evaluation). Games without a result (`*`) are skipped and
    /// counted. With --unique, a position is labelled with the result of
    /// the first game it occurs in.
    #[arg(long)]
    label: bool,
    /// The labelled layout. zurichess: the EPD record with c9 "1-0",
    /// "0-1" or "1/2-1/2" (quiet-labeled.epd's layout), with any other
    /// operations asked for. fen-result: the FEN, then [1.0], [0.0] or
    /// [0.5], White's score, and nothing else (the most common layout:
    /// Ethereal's tuner reads it, and many after it).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "zurichess", requires = "label")]
    label_format: Format,
}

/// `--label-format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Zurichess,
    FenResult,
}

/// `A..B`, `A..`, `..B` or `N` plies, inclusive.
fn ply_range(s: &str) -> Result<(u32, u32), String> {
    range(s, "ply", "a ply number (0 is the start position)")
}

/// `A..B`, `A..`, `..B` or `N` pieces, inclusive.
fn piece_range(s: &str) -> Result<(u32, u32), String> {
    range(s, "count", "a number of pieces")
}

/// `A..B`, `A..`, `..B` or `N`, inclusive; `noun` names an end in the
/// messages, `unit` what it must be.
fn range(s: &str, noun: &str, unit: &str) -> Result<(u32, u32), String> {
    let num = |t: &str, what: &str| -> Result<u32, String> {
        t.trim().parse::<u32>().map_err(|_| format!("{what} must be {unit}, not {t:?}"))
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (
            if a.trim().is_empty() { 0 } else { num(a, &format!("the first {noun}"))? },
            if b.trim().is_empty() { u32::MAX } else { num(b, &format!("the last {noun}"))? },
        ),
        None => {
            let n = num(s, &format!("the {noun}"))?;
            (n, n)
        }
    };
    if a > b {
        return Err(format!("the range {s} is empty: {a} comes after {b}"));
    }
    Ok((a, b))
}

pub fn run(args: Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    let format = args.label.then_some(match args.label_format {
        Format::Zurichess => LabelFormat::C9,
        Format::FenResult => LabelFormat::FenResult,
    });
    if format == Some(LabelFormat::FenResult) && (args.sm || args.counters || args.id || args.c0) {
        anyhow::bail!(
            "--label-format fen-result writes the FEN and the result only: --sm, --counters, --id and --c0 need \
             --label-format zurichess"
        );
    }
    let options = EpdOptions {
        supplied_move: args.sm,
        counters: args.counters,
        id: args.id,
        comment: args.c0,
        unique: args.unique,
        plies: args.plies,
        final_only: args.final_,
        pieces: args.pieces,
        label: format,
    };
    let stop = crate::files::Stop::install()?;
    let mut converter = pgn::Converter::new(options).with_stop(stop.shared());
    let files: Vec<PathBuf> = if args.files.is_empty() { vec!["-".into()] } else { args.files.clone() };
    let out_path = args.output.file.as_deref().filter(|path| path.as_os_str() != "-");
    let mut file_out = match out_path {
        Some(path) => Some(crate::files::OutputFile::create(path, false)?),
        None => None,
    };
    let out: &mut dyn Write = match file_out.as_mut() {
        Some(f) => f,
        None => stdout,
    };
    let stderr = io::stderr();
    let mut err = BufWriter::new(stderr.lock());
    let mut total = PgnSummary::default();
    let mut errors = 0u64;
    for name in &files {
        let display = if name.as_os_str() == "-" { "<stdin>".into() } else { name.to_string_lossy() };
        let display = &*display;
        let mut reporter = |d: &PgnDiagnostic| {
            let kind = if d.error { "error" } else { "warning" };
            let code = if d.error { epd_core::Code::PgnError } else { epd_core::Code::PgnWarning }.as_str();
            if d.error {
                errors += 1;
            }
            // The message may quote the PGN's bytes: escaped, like every
            // diagnostic's text.
            let mut line = Vec::new();
            crate::diagnostics::push_escaped(
                format!("{display}:{}:{}: {kind}[{code}]: {}", d.line, d.column.max(1), d.message).as_bytes(),
                &mut line,
            );
            line.push(b'\n');
            let _ = err.write_all(&line);
        };
        let mut input = BufReader::with_capacity(1 << 16, crate::files::open_input(name)?.reader);
        let head = io::BufRead::fill_buf(&mut input).map_err(|e| crate::input::file_error("read", display, &e))?;
        if let Some(why) = crate::diagnostics::sniff(head) {
            // Not PGN: converting it would invent a start-position game.
            let mut line = Vec::new();
            crate::diagnostics::push_escaped(display.as_bytes(), &mut line);
            let _ = writeln!(
                err,
                "{}: error: this looks like binary data, not PGN ({why}); skipped",
                String::from_utf8_lossy(&line)
            );
            errors += 1;
            continue;
        }
        let s = converter
            .convert_filtered(input, &mut *out, &mut reporter, |p| !args.label || epd_engine::is_quiet(p))
            .map_err(|e| {
                // The converter also writes: a closed output pipe (`| head`)
                // is no read error, and main ends quietly on it.
                if e.kind() == io::ErrorKind::BrokenPipe {
                    anyhow::Error::from(e)
                } else {
                    crate::input::file_error("read", display, &e)
                }
            })?;
        total.games += s.games;
        total.complete += s.complete;
        total.records += s.records;
        total.repeated += s.repeated;
        total.rejected += s.rejected;
        total.unlabelled += s.unlabelled;
        if s.interrupted {
            total.interrupted = true;
            break;
        }
    }
    out.flush()?;
    if let (Some(f), Some(path)) = (file_out, out_path) {
        f.finish().map_err(|e| crate::input::file_error("write", path.display(), &e))?;
    }
    let filtered = args.unique || args.plies.is_some() || args.final_ || args.pieces.is_some();
    if args.label {
        let _ = writeln!(
            err,
            "{} games, {} records written; {} not quiet, {} repeated positions left out; {} games without a \
             result skipped",
            total.games, total.records, total.rejected, total.repeated, total.unlabelled
        );
    } else if filtered {
        let repeated =
            if args.unique { format!("; {} repeated positions left out", total.repeated) } else { String::new() };
        let _ = writeln!(err, "{} games, {} records written{repeated}", total.games, total.records);
    }
    if total.complete < total.games {
        let _ = writeln!(
            err,
            "{} games, {} converted whole, {} records written",
            total.games, total.complete, total.records
        );
    }
    if total.interrupted {
        let _ = writeln!(err, "interrupted: every game converted before the signal was written");
    }
    err.flush()?;
    Ok(match stop.signal() {
        Some(sig) if total.interrupted => Outcome::Interrupted(sig),
        _ if errors > 0 => Outcome::Invalid,
        _ => Outcome::Ok,
    })
}
