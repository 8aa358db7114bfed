//! `epd uci`: the built-in engine as a UCI engine on stdin/stdout.

use std::io;

use crate::Outcome;

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
