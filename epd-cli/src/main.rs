//! `epd`: the EPD Kit command line. A thin layer over epd-core,
//! epd-engine, epd-referee and epd-report: it reads files and arguments,
//! calls the libraries and presents the results. The guide is docs/kit.md
//! in the repository (every command), with docs/argus.md for `referee`,
//! `play` and `match` and docs/gastric.md for `report`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod diagnostics;
mod files;
mod flags;
mod input;

/// EPD Kit: check, clean up, convert and analyse EPD chess records (Extended
/// Position Description: a position plus operations such as `bm Nf3; id "WAC.001";`).
#[derive(Parser, Debug)]
#[command(name = "epd", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour in diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, global = true, default_value_t = diagnostics::ColorChoice::Auto, value_name = "WHEN", hide_possible_values = true, display_order = 21)]
    color: diagnostics::ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Rewrite records in canonical form, checking legality (the spec's pfdn).
    #[command(display_order = 2, after_help = cmd::stream::NORMALIZE_EXAMPLES)]
    Normalize(cmd::stream::Common),
    /// Remove operations by opcode from every record, such as acn acs (pfop).
    #[command(display_order = 4, after_help = cmd::stream::PURGE_EXAMPLES)]
    Purge(cmd::stream::PurgeArgs),
    /// Fix common dialects (unquoted ids, FEN counters, stray ';') and write canonical records (pfdr).
    #[command(display_order = 3, after_help = cmd::stream::REPAIR_EXAMPLES)]
    Repair(cmd::stream::Common),
    /// Keep the records that match (id, line range, opcode, operand value), unchanged.
    #[command(display_order = 5, after_help = cmd::select::EXAMPLES)]
    Select(cmd::select::Args),
    /// Turn PGN games into EPD records, one per position.
    #[command(name = "from-pgn", display_order = 7, after_help = cmd::from_pgn::EXAMPLES)]
    FromPgn(cmd::from_pgn::Args),
    /// Draw the board of a record, or of each record in a file.
    #[command(display_order = 8, after_help = cmd::show::SHOW_EXAMPLES)]
    Show(cmd::show::ShowArgs),
    /// Convert FEN to EPD and back (move counters become hmvc and fmvn).
    #[command(display_order = 6, after_help = cmd::show::CONVERT_EXAMPLES)]
    Convert(cmd::show::ConvertArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        display_order = 32,
        after_help = "Examples:\n  epd completions bash > /etc/bash_completion.d/epd\n  epd completions zsh > ~/.zfunc/_epd"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Explain a diagnostic code: what it means, the spec section, a bad and a good record.
    #[command(display_order = 30, after_help = cmd::explain::EXAMPLES)]
    Explain(cmd::explain::Args),
    /// Print a manual page (roff), or write them all with --dir.
    #[command(display_order = 31, after_help = cmd::man::EXAMPLES)]
    Man(cmd::man::Args),
    /// Check records and report what is wrong; write nothing (exit 1 if any is invalid).
    #[command(display_order = 1, after_help = cmd::stream::CHECK_EXAMPLES)]
    Check(cmd::stream::CheckArgs),
    /// Count the legal move tree of a position (perft), or verify a perft suite.
    #[command(display_order = 14, after_help = cmd::perft::EXAMPLES)]
    Perft(cmd::perft::Args),
    /// List the legal moves of a position in SAN.
    #[command(display_order = 13, after_help = cmd::moves::EXAMPLES)]
    Moves(cmd::moves::Args),
    /// Search each record for a forced mate in at most N moves; add dm, pm, pv (pfms).
    #[command(display_order = 12, after_help = cmd::mate::EXAMPLES)]
    Mate(cmd::mate::Args),
    /// Analyse each record with an engine; add pv, ce and pm (pfga).
    #[command(display_order = 10, after_help = cmd::analyze::ANALYZE_EXAMPLES)]
    Analyze(cmd::analyze::Args),
    /// Run a test suite: each record's move against its bm and am, solved and missed reported (pfts).
    #[command(display_order = 11, after_help = cmd::analyze::TARGET_EXAMPLES)]
    Target(cmd::analyze::Args),
    /// Run a tournament of chess programs that connect over TCP (Argus, §8).
    #[command(display_order = 16, after_help = cmd::referee::after_help())]
    Referee(cmd::referee::Args),
    /// Report on test-suite results: solved and missed, themes, mates,
    /// points, distributions, consistency, and comparisons of runs.
    #[command(display_order = 15, after_help = cmd::report::EXAMPLES)]
    Report(cmd::report::Args),
    /// Play a match of local UCI engines from one command line (fastchess's options).
    #[command(name = "match", display_order = 18, after_help = cmd::matches::EXAMPLES)]
    Match(Box<cmd::matches::Args>),
    /// Play in a referee's tournament with the built-in or any UCI engine.
    #[command(display_order = 17, after_help = cmd::play::EXAMPLES)]
    Play(cmd::play::Args),
    /// Run the built-in engine as a UCI engine on standard input and output.
    #[command(display_order = 20, after_help = cmd::uci::after_help())]
    Uci,
    /// Tune a UCI engine's options by SPSA, on game pairs played by Argus or on a test suite.
    #[command(display_order = 19, after_help = cmd::tune::EXAMPLES)]
    Tune(Box<cmd::tune::Args>),
}

/// What a command reports back to `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was fine (exit 0).
    Ok,
    /// The input had problems; diagnostics were printed (exit 1).
    Invalid,
    /// Stopped by this signal after writing every finished record (exit
    /// 128 + the signal: 130 for SIGINT, 143 for SIGTERM).
    Interrupted(i32),
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let color = cli.color;
    if let Command::Uci = cli.command {
        // Before the stdout lock below: the engine's search thread writes too.
        return cmd::uci::run();
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    use epd_core::{verbs::Verb, ParseMode};
    use epd_engine::analysis::AnalysisVerb;
    let outcome = match cli.command {
        Command::Normalize(args) => cmd::stream::run(Verb::Normalize, args, ParseMode::Strict, color, &mut out)?,
        Command::Purge(args) => cmd::stream::run_purge(args, color, &mut out)?,
        Command::Repair(args) => cmd::stream::run(Verb::Repair, args, ParseMode::Lenient, color, &mut out)?,
        Command::Show(args) => cmd::show::run_show(args, color, &mut out)?,
        Command::Convert(args) => cmd::show::run_convert(args, color, &mut out)?,
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "epd", &mut out);
            Outcome::Ok
        }
        Command::Man(args) => cmd::man::run(args, &mut out)?,
        Command::Explain(args) => cmd::explain::run(args, &mut out)?,
        Command::Select(args) => cmd::select::run(args, color, &mut out)?,
        Command::FromPgn(args) => cmd::from_pgn::run(args, &mut out)?,
        Command::Check(args) => cmd::stream::run(Verb::Check, args.into(), ParseMode::Strict, color, &mut out)?,
        Command::Perft(args) => cmd::perft::run(args, &mut out)?,
        Command::Moves(args) => cmd::moves::run(args, &mut out)?,
        Command::Mate(args) => cmd::mate::run(args, color, &mut out)?,
        Command::Analyze(args) => cmd::analyze::run(AnalysisVerb::Analyze, args, color, &mut out)?,
        Command::Target(args) => cmd::analyze::run(AnalysisVerb::Target, args, color, &mut out)?,
        Command::Referee(args) => cmd::referee::run(args, &mut out)?,
        Command::Report(args) => cmd::report::run(args, color, &mut out)?,
        Command::Play(args) => cmd::play::run(args)?,
        Command::Match(args) => cmd::matches::run(*args, &mut out)?,
        Command::Tune(args) => cmd::tune::run(*args, &mut out)?,
        Command::Uci => unreachable!("handled before the stdout lock"),
    };
    out.flush()?;
    Ok(outcome)
}

fn main() -> ExitCode {
    // `epd match` takes fastchess's one-dash options too.
    let argv = match cmd::matches::normalize(std::env::args_os().collect(), <Cli as clap::CommandFactory>::command) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("epd: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(argv);
    let color = cli.color;
    match run(cli) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid) => ExitCode::from(1),
        Ok(Outcome::Interrupted(sig)) => ExitCode::from(u8::try_from(128 + sig).unwrap_or(130)),
        Err(e) => {
            // A closed pipe (`epd moves ... | head`) is not an error.
            if e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
            {
                return ExitCode::SUCCESS;
            }
            // A record given on the command line that cannot be read is
            // invalid input (exit 1), reported as a diagnostic.
            if let Some(bad) = e.downcast_ref::<input::BadRecord>() {
                diagnostics::print_argument(&bad.text, &bad.diagnostic, color);
                return ExitCode::from(1);
            }
            eprintln!("epd: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
