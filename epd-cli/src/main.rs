//! `epd`: the EPD Kit command line. A thin layer over epd-core: it reads
//! files and arguments, calls the library and presents the results.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod diagnostics;
mod files;
mod input;

/// EPD Kit: check, normalize and analyse EPD chess records.
#[derive(Parser, Debug)]
#[command(name = "epd", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour in diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, global = true, default_value_t = diagnostics::ColorChoice::Auto, value_name = "WHEN")]
    color: diagnostics::ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// pfdn: write each record in canonical form (checks legality; invalid records are copied unchanged).
    #[command(after_help = cmd::stream::NORMALIZE_EXAMPLES)]
    Normalize(cmd::stream::Common),
    /// pfop: remove the operations with the given opcodes from every record.
    #[command(after_help = cmd::stream::PURGE_EXAMPLES)]
    Purge(cmd::stream::PurgeArgs),
    /// pfdr: read leniently, repair what can be repaired, write canonical records.
    #[command(after_help = cmd::stream::REPAIR_EXAMPLES)]
    Repair(cmd::stream::Common),
    /// One EPD record for the initial position and after every move of every game.
    #[command(name = "from-pgn", after_help = cmd::from_pgn::EXAMPLES)]
    FromPgn(cmd::from_pgn::Args),
    /// Board diagrams of a record or of every record of a file.
    #[command(after_help = cmd::show::SHOW_EXAMPLES)]
    Show(cmd::show::ShowArgs),
    /// FEN to EPD and back, carrying the move counters as hmvc/fmvn.
    #[command(after_help = cmd::show::CONVERT_EXAMPLES)]
    Convert(cmd::show::ConvertArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  epd completions bash > /etc/bash_completion.d/epd\n  epd completions zsh > ~/.zfunc/_epd"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) generated from these definitions.
    #[command(after_help = "Examples:\n  epd man > epd.1 && man ./epd.1")]
    Man,
    /// Validate only: print diagnostics, write no records.
    #[command(after_help = cmd::stream::CHECK_EXAMPLES)]
    Check(cmd::stream::CheckArgs),
    /// Count leaf nodes of the legal move tree (perft), or verify a perft suite.
    #[command(after_help = cmd::perft::EXAMPLES)]
    Perft(cmd::perft::Args),
    /// List the legal moves of a position in canonical SAN, in ASCII order.
    #[command(after_help = cmd::moves::EXAMPLES)]
    Moves(cmd::moves::Args),
    /// pfms: search each record for a forced mate of at most N moves; add dm, pm, pv, acn, acs.
    #[command(after_help = cmd::mate::EXAMPLES)]
    Mate(cmd::mate::Args),
    /// pfga: analyse every record with an engine; add pv, ce, pm (and sm, acd, acn, acs on request).
    #[command(after_help = cmd::analyze::ANALYZE_EXAMPLES)]
    Analyze(cmd::analyze::Args),
    /// pfts: target search; add pm (with pv, ce) and report solved/missed against bm and am.
    #[command(after_help = cmd::analyze::TARGET_EXAMPLES)]
    Target(cmd::analyze::Args),
    /// Run the built-in engine as a UCI engine on stdin/stdout.
    #[command(after_help = "Examples:\n  epd uci\n  printf 'position startpos\\ngo depth 8\\n' | epd uci")]
    Uci,
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
    diagnostics::set_color(cli.color);
    if let Command::Uci = cli.command {
        // Before the stdout lock below: the engine's search thread writes too.
        return cmd::uci::run();
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    use epd_core::{verbs::Verb, ParseMode};
    use epd_engine::analysis::AnalysisVerb;
    let outcome = match cli.command {
        Command::Normalize(args) => cmd::stream::run(Verb::Normalize, args, ParseMode::Strict, &mut out)?,
        Command::Purge(args) => cmd::stream::run_purge(args, &mut out)?,
        Command::Repair(args) => cmd::stream::run(Verb::Repair, args, ParseMode::Lenient, &mut out)?,
        Command::Show(args) => cmd::show::run_show(args, &mut out)?,
        Command::Convert(args) => cmd::show::run_convert(args, &mut out)?,
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "epd", &mut out);
            Outcome::Ok
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd).render(&mut out)?;
            Outcome::Ok
        }
        Command::FromPgn(args) => cmd::from_pgn::run(args, &mut out)?,
        Command::Check(args) => cmd::stream::run(Verb::Check, args.into(), ParseMode::Strict, &mut out)?,
        Command::Perft(args) => cmd::perft::run(args, &mut out)?,
        Command::Moves(args) => cmd::moves::run(args, &mut out)?,
        Command::Mate(args) => cmd::mate::run(args, &mut out)?,
        Command::Analyze(args) => cmd::analyze::run(AnalysisVerb::Analyze, args, &mut out)?,
        Command::Target(args) => cmd::analyze::run(AnalysisVerb::Target, args, &mut out)?,
        Command::Uci => unreachable!("handled before the stdout lock"),
    };
    out.flush()?;
    Ok(outcome)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
                diagnostics::print_argument(&bad.text, &bad.diagnostic);
                return ExitCode::from(1);
            }
            eprintln!("epd: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
