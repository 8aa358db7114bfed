//! One module per subcommand.

pub mod analyze;
pub mod explain;
pub mod from_pgn;
pub mod man;
pub mod matches;
pub mod mate;
pub mod moves;
pub mod perft;
pub mod play;
pub mod referee;
pub mod report;
pub mod select;
pub mod show;
pub mod stream;
pub mod tune;
pub mod uci;

/// The built-in engine (`--engine builtin`): one thread, `--hash` MiB
/// (default 16); UCI options other than Threads and Hash do not apply.
pub fn builtin_engine(
    hash_mb: Option<u32>,
    options: &[(String, String)],
) -> anyhow::Result<Box<dyn epd_engine::Engine>> {
    if let Some((name, _)) = options.iter().find(|(n, _)| n != "Threads" && n != "Hash" && n != "MultiPV") {
        anyhow::bail!("--option {name}: options are for UCI engines; the built-in engine takes --hash only");
    }
    Ok(Box::new(epd_engine::Builtin::new(hash_mb.unwrap_or(16) as usize)))
}
