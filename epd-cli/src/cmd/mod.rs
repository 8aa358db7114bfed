//! One module per subcommand.

pub mod from_pgn;
pub mod mate;
pub mod moves;
pub mod perft;
pub mod show;
pub mod stream;
pub mod uci;
