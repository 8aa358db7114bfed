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
