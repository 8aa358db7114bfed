//! `epd uci`: the built-in engine as a UCI engine on stdin/stdout.

use std::io;

use crate::Outcome;

/// The help's end: examples, and the values open to tuning, from the
/// engine's own table (so the help cannot drift from it).
pub fn after_help() -> String {
    let mut text = String::from(
        "Examples:\n  epd uci\n  printf 'position startpos\\ngo depth 8\\n' | epd uci\n\n\
         Options: Hash, Clear Hash, Threads (1), Move Overhead, UCI_Chess960, and the values open\n\
         to tuning (`epd tune`), spin options as NAME (default, min..max):\n",
    );
    for (name, default, min, max) in epd_engine::search::Params::OPTIONS {
        text.push_str(&format!("  {name} ({default}, {min}..{max})\n"));
    }
    text.push_str("A piece's value is its middlegame value; its endgame value keeps the built-in difference.");
    text
}

/// Serves the UCI protocol until `quit` or the end of standard input.
///
/// # Errors
/// A read or write error on the standard streams.
pub fn run() -> anyhow::Result<Outcome> {
    // The search thread writes too, so each line takes the stdout lock
    // itself rather than one writer holding it for the whole session.
    epd_engine::uci_server::serve(io::stdin().lock(), io::stdout())?;
    Ok(Outcome::Ok)
}
