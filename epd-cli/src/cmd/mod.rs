//! One module per subcommand.

pub mod analyze;
pub mod from_pgn;
pub mod mate;
pub mod moves;
pub mod perft;
pub mod show;
pub mod stream;

/// The built-in engine, once it is part of epd-core.
pub fn builtin_engine(
    _hash_mb: Option<u32>,
    _options: &[(String, String)],
) -> anyhow::Result<Box<dyn epd_core::engine::Engine>> {
    anyhow::bail!("the built-in engine is not in this build yet: give --engine PATH")
}
