//! The event file: who plays, how long, where, and the schedule.
//!
//! ```toml
//! event = "Argus test"          # PGN Event; also site, date, round
//! site = "localhost"
//! listen = "127.0.0.1:16101"    # where the referee accepts clients (this by default)
//! time_control = "5+0.05"       # PGN TimeControl syntax
//! rounds = 1                    # round-robin cycles; each pairing plays both colours in a cycle
//! pairing = "round-robin"       # or "gauntlet": the first player against each other
//! concurrency = 2               # games played at once
//! openings = "book.epd"         # optional: start positions, used in order, each with both colours
//! pgn = "games.pgn"
//! log = "referee.log"
//! report = "report.txt"
//! journal = "referee.journal"   # every state change, made durable first (epd referee --resume)
//! supervisor_token = "..."      # optional: a hot standby (epd referee --standby) and the web
//!                               # display's supervisor actions must present it
//! web = "127.0.0.1:16180"       # optional: the live display (a page, /api/state, /api/events, /pgn)
//! [[players]]
//! name = "alpha"
//! command = ["epd", "play", "--engine", "builtin", "--depth", "3"]  # optional
//! token = "..."                 # optional
//! instances = 2                 # optional: copies of command to start (default 1)
//! ```
//!
//! Unknown keys are refused (a misspelt key would otherwise be ignored).
//! Relative paths are taken from the event file's directory. Protocol
//! settings have defaults: `conclude_delay` and `reset_delay` (seconds,
//! 5, §8.1.1 and §8.1.6), `lag_ms` (a lag allowance per move, 0),
//! `disconnect_grace` (seconds a client may be away mid-game, 10),
//! `host_loss` (`"forfeit"` or `"void"`: a game whose player is away past
//! the grace is lost by abandonment, or void and played again),
//! `illegal_move` (`"forfeit"` or `"retry"`: an illegal move loses, or is
//! refused and the client may try again within its time) and
//! `false_claim` (`"continue"` or `"forfeit"`).

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::clock::TimeControl;

/// How players are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// Everyone against everyone.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
}

/// The rules the games are played by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum Variant {
    /// Standard chess.
    #[default]
    #[serde(rename = "standard")]
    Standard,
    /// Chess960 (Fischer Random) and Double Fischer Random: openings with
    /// the pieces anywhere on the back ranks, X-FEN or Shredder-FEN
    /// castling rights, castling king-takes-rook for UCI engines
    /// (`UCI_Chess960`), PGN with `[Variant "Chess960"]`.
    #[serde(rename = "fischerandom", alias = "chess960")]
    FischerRandom,
}

/// Which CPUs the engines the referee runs may use (`affinity`, `epd
/// match -use-affinity`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Affinity {
    /// Wherever the system puts them.
    #[default]
    Off,
    /// Instance `k` of every `uci` player on the `k`-th CPU the referee
    /// itself may use.
    All,
    /// Instance `k` of every `uci` player on the `k`-th CPU of the list.
    Cpus(Vec<usize>),
}

/// `affinity` as the file writes it: `true`, or a list of CPUs.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
enum AffinityFile {
    On(bool),
    Cpus(Vec<usize>),
}

impl Variant {
    /// `true` for Chess960.
    #[must_use]
    pub fn is_chess960(self) -> bool {
        self == Variant::FischerRandom
    }
}

/// What an illegal move or a false claim costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// The game is lost.
    Forfeit,
    /// Refused with a fault record; the client may try again within its time.
    Retry,
    /// Refused; the game goes on.
    Continue,
}

/// How an opening book is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BookFormat {
    /// One position a line (EPD or FEN).
    Epd,
    /// PGN games: each game's start (its `FEN` tag, else the standard
    /// position) and its moves (or `openings_plies` of them), which the
    /// games then begin with, as fastchess plays them.
    Pgn,
}

/// The order openings are used in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BookOrder {
    /// The book's order, from `openings_start`.
    Sequential,
    /// Shuffled with `openings_seed` (the same seed, the same order: a
    /// resumed event plays the same openings).
    Random,
}

/// An opening book: where, how it is written, and the order its
/// positions are used in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    /// The file.
    pub path: PathBuf,
    /// How it is written.
    pub format: BookFormat,
    /// The order.
    pub order: BookOrder,
    /// PGN: at most this many plies of each game's moves.
    pub plies: Option<u32>,
    /// The first opening used (1-based, in the book's order).
    pub start: u32,
    /// The shuffle's seed (random order).
    pub seed: u64,
    /// Chess960 positions are allowed (the event's variant).
    pub chess960: bool,
}

/// When the journal's entries reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JournalSync {
    /// Each turn's entries are synced (`fdatasync`) before the referee
    /// acts on them: a power cut loses nothing that a player was told.
    Turn,
    /// Each turn's entries are written to the operating system before the
    /// referee acts on them (a referee killed, even with SIGKILL, loses
    /// nothing) and synced at most a second later: a crash of the machine
    /// may lose the last second, and `--resume` goes on from before it.
    Second,
}

/// What a game counts as when a remote player's connection is lost and
/// the player is not back within the disconnect grace (its host killed,
/// its link cut).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostLoss {
    /// Lost by abandonment (§8): a tournament's rule.
    #[default]
    Forfeit,
    /// Void: not scored, played again from the same opening by the
    /// players' connections still there (engine testing across hosts,
    /// where the infrastructure, not the engine, lost the game).
    Void,
}

/// A player of the event.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// The name it signs on with (PGN White/Black).
    pub name: String,
    /// The program the referee starts for it, if any (the referee appends
    /// `--referee HOST:PORT --name NAME`).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A UCI engine (program and arguments) the referee drives itself,
    /// without a bridge: a connection inside the referee's process that
    /// enters the event as a TCP client does.
    #[serde(default)]
    pub uci: Option<Vec<String>>,
    /// The UCI engine's options (`setoption`), by name.
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, OptionValue>,
    /// The UCI engine's working directory.
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// A UCI engine searches each move to this depth instead of by the
    /// clock.
    #[serde(default)]
    pub depth: Option<u32>,
    /// ... or about this many nodes.
    #[serde(default)]
    pub nodes: Option<u64>,
    /// ... or this many seconds.
    #[serde(default)]
    pub movetime: Option<f64>,
    /// The player's own time control (time odds), in PGN TimeControl
    /// syntax; the event's when not given.
    #[serde(default)]
    pub time_control: Option<String>,
    /// The token it must present to sign on under this name.
    #[serde(default)]
    pub token: Option<String>,
    /// How many copies of `command` or `uci` the referee starts (each
    /// connection plays one game at a time, so concurrency needs
    /// instances): 1 for a command, the event's concurrency for a UCI
    /// engine unless given.
    #[serde(default)]
    pub instances: Option<u32>,
}

/// The most connections a player served over the network (no `command`
/// or `uci`) may keep signed on at once: its `instances`, at most this.
pub const MAX_NETWORK_INSTANCES: u32 = 4096;

/// The value of a UCI option in the event file: a number (spin), true or
/// false (check), or text (string, combo).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// A spin option's value.
    Int(i64),
    /// A check option's value.
    Bool(bool),
    /// A string or combo option's value.
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Int(v) => write!(f, "{v}"),
            OptionValue::Bool(v) => write!(f, "{v}"),
            OptionValue::Text(v) => f.write_str(v),
        }
    }
}

impl Player {
    /// How many copies of the player the referee starts (after
    /// [`Event::parse`], which fills in the default).
    #[must_use]
    pub fn instances(&self) -> u32 {
        self.instances.unwrap_or(1)
    }

    /// The UCI options to send, in order of name.
    #[must_use]
    pub fn uci_options(&self) -> Vec<(String, String)> {
        self.options.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    event: String,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    round: Option<String>,
    #[serde(default = "default_listen")]
    listen: String,
    time_control: String,
    #[serde(default = "one")]
    rounds: u32,
    #[serde(default = "round_robin")]
    pairing: Pairing,
    #[serde(default = "one")]
    concurrency: u32,
    #[serde(default)]
    openings: Option<PathBuf>,
    #[serde(default)]
    openings_format: Option<BookFormat>,
    #[serde(default = "sequential")]
    openings_order: BookOrder,
    #[serde(default)]
    openings_plies: Option<u32>,
    #[serde(default = "one")]
    openings_start: u32,
    #[serde(default = "one_u64")]
    openings_seed: u64,
    #[serde(default)]
    pgn: Option<PathBuf>,
    #[serde(default)]
    epdout: Option<PathBuf>,
    #[serde(default)]
    log: Option<PathBuf>,
    #[serde(default)]
    report: Option<PathBuf>,
    #[serde(default)]
    journal: Option<PathBuf>,
    #[serde(default = "turn")]
    journal_sync: JournalSync,
    #[serde(default = "five")]
    conclude_delay: f64,
    #[serde(default = "five")]
    reset_delay: f64,
    #[serde(default)]
    lag_ms: u64,
    #[serde(default = "ten")]
    disconnect_grace: f64,
    #[serde(default)]
    host_loss: HostLoss,
    #[serde(default = "forfeit")]
    illegal_move: Policy,
    #[serde(default = "continue_")]
    false_claim: Policy,
    #[serde(default)]
    supervisor_token: Option<String>,
    #[serde(default)]
    web: Option<String>,
    #[serde(default = "five")]
    linger: f64,
    #[serde(default)]
    sprt: Option<SprtFile>,
    #[serde(default)]
    rating_interval: u32,
    #[serde(default)]
    draw_adjudication: Option<DrawRule>,
    #[serde(default)]
    resign_adjudication: Option<ResignRule>,
    #[serde(default)]
    max_moves: Option<u32>,
    #[serde(default)]
    variant: Variant,
    #[serde(default)]
    noswap: bool,
    #[serde(default)]
    reverse: bool,
    #[serde(default = "yes")]
    recover: bool,
    #[serde(default)]
    progress: bool,
    #[serde(default = "yes")]
    report_penta: bool,
    #[serde(default)]
    score_interval: u32,
    #[serde(default)]
    affinity: Option<AffinityFile>,
    #[serde(default)]
    engine_log: bool,
    #[serde(default)]
    show_latency: bool,
    players: Vec<Player>,
}

/// `draw_adjudication`: a draw when the last `2 × movecount` plies, none
/// before the last capture or pawn move, scored within `score`
/// centipawns of 0, once the move number less one reaches `movenumber`
/// (fastchess's rule and units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRule {
    /// The rule applies once the board's move number less one (the full
    /// moves behind) reaches it.
    #[serde(default)]
    pub movenumber: u32,
    /// Moves of each side in a row.
    pub movecount: u32,
    /// Centipawns.
    pub score: i32,
}

/// `resign_adjudication`: the side that just moved loses when its last
/// `movecount` moves scored `score` centipawns or more against it; with
/// `twosided`, when the last `2 × movecount` plies of both sides scored
/// `score` or more from 0 and its own score is below 0 (fastchess's
/// rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignRule {
    /// Moves of the losing side in a row.
    pub movecount: u32,
    /// Centipawns.
    pub score: i32,
    /// Both engines must agree.
    #[serde(default)]
    pub twosided: bool,
}

/// How the referee ends games from the engines' scores (their replies'
/// `ce`) or their length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Draws from scores near 0.
    pub draw: Option<DrawRule>,
    /// Losses from scores far below 0.
    pub resign: Option<ResignRule>,
    /// A draw after this many full moves.
    pub max_moves: Option<u32>,
}

/// The `[sprt]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SprtFile {
    elo0: f64,
    elo1: f64,
    #[serde(default = "five_percent")]
    alpha: f64,
    #[serde(default = "five_percent")]
    beta: f64,
    #[serde(default = "normalized")]
    model: crate::sprt::Model,
}

fn five_percent() -> f64 {
    0.05
}
fn normalized() -> crate::sprt::Model {
    crate::sprt::Model::Normalized
}

/// A key of the event file, documented once: `epd referee --help`, its
/// manual page and the guide's docs/argus.md are written from [`KEYS`] and
/// [`PLAYER_KEYS`], and a test holds them to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub name: &'static str,
    /// Its default, or `required`, or `none`.
    pub default: &'static str,
    /// Its unit or form.
    pub unit: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// A value it may take, as TOML.
    pub example: &'static str,
}

const fn key(
    name: &'static str,
    default: &'static str,
    unit: &'static str,
    meaning: &'static str,
    example: &'static str,
) -> Key {
    Key { name, default, unit, meaning, example }
}

/// The event file's keys.
pub const KEYS: &[Key] = &[
    key("event", "required", "text", "the event's name (PGN Event)", "\"Argus test\""),
    key("site", "?", "text", "PGN Site", "\"localhost\""),
    key("date", "the day it starts (UTC)", "YYYY.MM.DD", "PGN Date", "\"2026.11.25\""),
    key("round", "none", "text", "a prefix for PGN Round (ROUND.GAME instead of CYCLE.GAME)", "\"5\""),
    key("listen", DEFAULT_LISTEN, "HOST:PORT", "where the referee accepts clients", "\"127.0.0.1:16101\""),
    key(
        "time_control",
        "required",
        "PGN TimeControl",
        "40/5400+30, 300+3, *10 (moves/seconds+increment), or - (no clock: the players' depth, nodes or movetime)",
        "\"5+0.05\"",
    ),
    key("rounds", "1", "count", "round-robin cycles; each pairing plays both colours in a cycle", "2"),
    key(
        "pairing",
        "round-robin",
        "round-robin, gauntlet",
        "everyone against everyone, or the first player against each other",
        "\"gauntlet\"",
    ),
    key("concurrency", "1", "games", "games played at once", "2"),
    key(
        "openings",
        "none",
        "file",
        "an opening book: each opening is played by a pair of games with colours swapped; a book that runs out \
         is used again from its first opening",
        "\"book.epd\"",
    ),
    key(
        "openings_format",
        "pgn for .pgn, else epd",
        "epd, pgn",
        "positions one a line (EPD or FEN), or PGN games whose moves the games begin with ({book} in the PGN)",
        "\"pgn\"",
    ),
    key("openings_order", "sequential", "sequential, random", "the book's order, or shuffled", "\"random\""),
    key("openings_plies", "all", "plies", "PGN: at most this many plies of each game's moves", "8"),
    key("openings_start", "1", "index", "the first opening used (1-based, in the book's order)", "1"),
    key("openings_seed", "1", "number", "the shuffle's seed (the same seed, the same order)", "42"),
    key("pgn", "games.pgn", "file", "the finished games, with [%clk] and [%emt]", "\"games.pgn\""),
    key(
        "epdout",
        "none",
        "file",
        "each finished game's final position as EPD, with hmvc, fmvn, id and c0 (Event, Site, Date, Round, \
         Result), as epd from-pgn --final --counters --id --c0 writes it from the PGN",
        "\"final.epd\"",
    ),
    key(
        "log",
        "referee.log",
        "file",
        "every record sent to and received from a client of the network or a serial line (tokens shown as *; a \
         local player's are not), and the referee's notes",
        "\"referee.log\"",
    ),
    key(
        "report",
        "report.txt",
        "file",
        "the standings at the end: points, crosstable, Elo with 95 % intervals",
        "\"report.txt\"",
    ),
    key(
        "journal",
        "referee.journal",
        "file",
        "every state change, made durable first (epd referee --resume)",
        "\"referee.journal\"",
    ),
    key(
        "journal_sync",
        "turn",
        "turn, second",
        "each turn's entries synced to disk before a record that needs them goes out (a turn only local players \
         heard of within a second), or written to the system then and synced within a second (a killed referee \
         loses nothing either way; a machine crash may lose the last second)",
        "\"second\"",
    ),
    key(
        "conclude_delay",
        "5",
        "seconds",
        "pause after a game's conclude before the players' next game (§8.1.1)",
        "0.5",
    ),
    key("reset_delay", "5", "seconds", "pause after reset before the game's first respond (§8.1.6)", "0.5"),
    key("lag_ms", "0", "milliseconds", "allowance per move for transmission, not charged to the clock", "20"),
    key(
        "disconnect_grace",
        "10",
        "seconds",
        "how long a player may be away mid-game before it loses by abandonment (or the game is void, host_loss)",
        "30",
    ),
    key(
        "host_loss",
        "forfeit",
        "forfeit, void",
        "a game whose remote player is away past disconnect_grace (host killed, link cut), or loses its connection \
         as its flag falls: lost, or void: not scored, played again from the same opening (testing across hosts)",
        "\"void\"",
    ),
    key(
        "illegal_move",
        "forfeit",
        "forfeit, retry",
        "an illegal move or a broken record loses, or is refused and may be tried again",
        "\"retry\"",
    ),
    key(
        "false_claim",
        "continue",
        "continue, forfeit",
        "a draw claim that does not hold is refused, or loses",
        "\"forfeit\"",
    ),
    key(
        "supervisor_token",
        "none",
        "text, no spaces",
        "what a hot standby and the live display's supervisor actions must present",
        "\"s3cret\"",
    ),
    key("web", "none", "HOST:PORT", "the live display: a page, /api/state, /api/events, /pgn", "\"127.0.0.1:16180\""),
    key(
        "linger",
        "5",
        "seconds",
        "how long the live display outlives the event in the background (foreground: until quit)",
        "60",
    ),
    key(
        "sprt",
        "none",
        "table: elo0, elo1, alpha (0.05), beta (0.05), model (normalized, logistic)",
        "two players: a GSPRT over game pairs that ends the event once H0 or H1 is accepted (games under way finish)",
        "{ elo0 = 0, elo1 = 5 }",
    ),
    key(
        "rating_interval",
        "0 (never)",
        "games",
        "print the results block (score, Elo, nElo, LOS, pentanomial counts, SPRT) every this many games",
        "10",
    ),
    key(
        "draw_adjudication",
        "none",
        "table: movenumber, movecount, score",
        "a draw when the last 2 x movecount plies, none before a capture or pawn move, scored within score cp, once the move number less one reaches movenumber",
        "{ movenumber = 34, movecount = 8, score = 20 }",
    ),
    key(
        "resign_adjudication",
        "none",
        "table: movecount, score, twosided",
        "a loss for the side whose last movecount replies scored -score cp or less (twosided: the last 2 x movecount plies scored score cp or more from 0, the loser's below 0)",
        "{ movecount = 3, score = 600 }",
    ),
    key("max_moves", "none", "full moves", "a draw by adjudication when the game reaches this many moves", "200"),
    key(
        "variant",
        "standard",
        "standard, fischerandom",
        "standard chess, or Chess960/DFRC: X-FEN or Shredder-FEN books, UCI_Chess960 set on uci players, PGN \
         [Variant \"Chess960\"]",
        "\"fischerandom\"",
    ),
    key("noswap", "false", "true, false", "both games of a pair with the same colours (not swapped)", "true"),
    key("reverse", "false", "true, false", "each pair begins with the second player of the pairing as White", "true"),
    key(
        "recover",
        "true",
        "true, false",
        "after a game lost to a crashed or stalled engine the referee runs, play on with the engine started afresh, \
         or stop the event (epd match without -recover, as fastchess)",
        "false",
    ),
    key(
        "progress",
        "false",
        "true, false",
        "a line on standard error as each game starts and ends, as fastchess prints them (epd match: on)",
        "true",
    ),
    key(
        "report_penta",
        "true",
        "true, false",
        "two players: the results block and the SPRT over game pairs (pentanomial), or over games (trinomial, as \
         fastchess's -report penta=false)",
        "false",
    ),
    key(
        "score_interval",
        "0 (never)",
        "games",
        "two players: print the Score of line (wins, losses, draws) every this many games",
        "1",
    ),
    key(
        "affinity",
        "none",
        "true, or list of CPUs",
        "pin instance k of every uci player to the k-th CPU (true: of those the referee may use; Linux), as \
         fastchess's -use-affinity; one CPU per game at once",
        "[0, 1]",
    ),
    key(
        "engine_log",
        "false",
        "true, false",
        "write every line to and from the uci players' engines to the log (name <--- line, name ---> line)",
        "true",
    ),
    key(
        "show_latency",
        "false",
        "true, false",
        "log each uci player's move latency: the time it took less the time its engine reported",
        "true",
    ),
    key("players", "required", "[[players]] tables", "the players, two at least", ""),
];

/// The keys of a `[[players]]` table.
pub const PLAYER_KEYS: &[Key] = &[
    key("name", "required", "text", "the name it signs on with (PGN White, Black)", "\"alpha\""),
    key(
        "command",
        "none",
        "list of words",
        "a program the referee starts and keeps running; it adds --referee HOST:PORT --name NAME, and the token in the environment variable EPD_TOKEN (never on the command line)",
        "[\"epd\", \"play\", \"--depth\", \"3\"]",
    ),
    key(
        "uci",
        "none",
        "list of words",
        "a UCI engine the referee drives itself, without a bridge (program, then its arguments)",
        "[\"/usr/games/stockfish\"]",
    ),
    key("options", "none", "table", "the UCI engine's options (setoption)", "{ Hash = 16, Threads = 1 }"),
    key("dir", "none", "directory", "the UCI engine's working directory", "\".\""),
    key("depth", "none", "plies", "a UCI engine searches each move to this depth instead of by the clock", "8"),
    key("nodes", "none", "count", "... or about this many nodes", "20000"),
    key("movetime", "none", "seconds", "... or this long", "0.1"),
    key(
        "time_control",
        "the event's",
        "PGN TimeControl",
        "the player's own time control (time odds), for a command player and a uci player alike",
        "\"10+0.1\"",
    ),
    key("token", "none", "text", "what a client must present to sign on as this player", "\"t0ken\""),
    key(
        "instances",
        "1; uci: concurrency",
        "1 to 256 (a player the referee does not start: 1 to 4096)",
        "copies of command or uci to start (each plays one game at a time); for any player, the most connections it may keep signed on at once",
        "2",
    ),
];

/// [`KEYS`] and [`PLAYER_KEYS`] as aligned text, for `--help` and the
/// manual page.
#[must_use]
pub fn keys_text() -> String {
    let mut out = String::from("Event file keys: meaning (default; unit)\n");
    for (title, keys) in [("", KEYS), ("[[players]] keys:\n", PLAYER_KEYS)] {
        out.push_str(title);
        for k in keys {
            out.push_str(&format!("  {:<17} {} ({}; {})\n", k.name, k.meaning, k.default, k.unit));
        }
    }
    out
}

/// [`KEYS`] and [`PLAYER_KEYS`] as Markdown tables, for the guide
/// (docs/argus.md).
#[must_use]
pub fn keys_markdown() -> String {
    let mut out = String::new();
    for (title, keys) in [
        ("| key | default | unit | meaning |\n", KEYS),
        ("| `[[players]]` key | default | unit | meaning |\n", PLAYER_KEYS),
    ] {
        out.push_str(title);
        out.push_str("| --- | --- | --- | --- |\n");
        for k in keys {
            out.push_str(&format!("| `{}` | {} | {} | {} |\n", k.name, k.default, k.unit, k.meaning));
        }
        out.push('\n');
    }
    out
}

/// Where the referee listens when the event file does not say:
/// loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:16101";

fn default_listen() -> String {
    DEFAULT_LISTEN.to_owned()
}

fn one() -> u32 {
    1
}
fn five() -> f64 {
    5.0
}
fn ten() -> f64 {
    10.0
}
fn yes() -> bool {
    true
}
fn sequential() -> BookOrder {
    BookOrder::Sequential
}
fn one_u64() -> u64 {
    1
}
fn turn() -> JournalSync {
    JournalSync::Turn
}
fn round_robin() -> Pairing {
    Pairing::RoundRobin
}
fn forfeit() -> Policy {
    Policy::Forfeit
}
fn continue_() -> Policy {
    Policy::Continue
}

/// An event, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// PGN Event.
    pub name: String,
    /// PGN Site (`?` when not given).
    pub site: String,
    /// PGN Date (`????.??.??` when not given: the referee fills in the day).
    pub date: Option<String>,
    /// PGN Round prefix, if given.
    pub round: Option<String>,
    /// Where clients connect (default 127.0.0.1:16101; unused in
    /// serial mode).
    pub listen: String,
    /// The time control.
    pub time_control: TimeControl,
    /// Round-robin cycles.
    pub rounds: u32,
    /// How players are paired.
    pub pairing: Pairing,
    /// Games at once.
    pub concurrency: u32,
    /// The opening book, if any.
    pub openings: Option<Book>,
    /// Where the games go.
    pub pgn: PathBuf,
    /// Where each game's final position goes, as EPD, if anywhere.
    pub epdout: Option<PathBuf>,
    /// The record log.
    pub log: PathBuf,
    /// The standings at the end.
    pub report: PathBuf,
    /// The write-ahead journal (`epd referee --resume` reads it).
    pub journal: PathBuf,
    /// When the journal's entries reach the disk.
    pub journal_sync: JournalSync,
    /// Pause after conclude (§8.1.1).
    pub conclude_delay: Duration,
    /// Pause after reset (§8.1.6).
    pub reset_delay: Duration,
    /// Allowance per move for transmission.
    pub lag: Duration,
    /// How long a client may be away mid-game.
    pub disconnect_grace: Duration,
    /// A game whose remote player is away past the grace: lost by
    /// abandonment, or void and played again.
    pub host_loss: HostLoss,
    /// What an illegal move costs (forfeit or retry).
    pub illegal_move: Policy,
    /// What a false draw claim costs (continue or forfeit).
    pub false_claim: Policy,
    /// The supervisor's credential: a hot standby must present it to
    /// follow this referee, and the web display to act (pause, resume,
    /// adjudicate). Without it there is no standby and the web display
    /// is read-only.
    pub supervisor_token: Option<String>,
    /// Where the live web display listens (HOST:PORT), if anywhere.
    pub web: Option<String>,
    /// How long the live display outlives the event in the background
    /// (in the foreground: until `quit`).
    pub linger: Duration,
    /// A GSPRT over game pairs (two players only).
    pub sprt: Option<crate::sprt::Sprt>,
    /// Print the results block every this many games (0: never).
    pub rating_interval: u32,
    /// Games ended from the engines' scores or their length.
    pub adjudication: Adjudication,
    /// Standard chess or Chess960.
    pub variant: Variant,
    /// Both games of a pair have the same colours (the first player of
    /// the pairing White), instead of swapped.
    pub noswap: bool,
    /// Each pair begins with the second player of the pairing as White.
    pub reverse: bool,
    /// After a game lost to a crashed or stalled local engine: play on
    /// (the engine started afresh), or stop the event.
    pub recover: bool,
    /// A line on standard error as each game starts and ends
    /// (`Started game 1 of 4 (a vs b)`, `Finished game 1 (a vs b): 1-0
    /// {White mates}`, fastchess's words).
    pub progress: bool,
    /// Two players: the results block and the SPRT over pairs
    /// (pentanomial), or over games (trinomial).
    pub report_penta: bool,
    /// Two players: the `Score of` line every this many games (0: never).
    pub score_interval: u32,
    /// Where the local engines run.
    pub affinity: Affinity,
    /// The local engines' UCI traffic goes to the log.
    pub engine_log: bool,
    /// Each local engine's move latency goes to the log.
    pub show_latency: bool,
    /// The players, in the file's order.
    pub players: Vec<Player>,
}

/// A problem with the event file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventError {
    /// 1-based line and column, when the problem is at a place.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{l}:{c}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for EventError {}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) + 1;
    (line, col)
}

fn seconds(what: &str, v: f64) -> Result<Duration, EventError> {
    if !(0.0..=86_400.0).contains(&v) {
        return Err(EventError { at: None, message: format!("{what} must be between 0 and 86400 seconds, not {v}") });
    }
    Ok(Duration::from_secs_f64(v))
}

impl Event {
    /// The time control of player `player` (its own, or the event's).
    #[must_use]
    pub fn control(&self, player: usize) -> TimeControl {
        self.players
            .get(player)
            .and_then(|p| p.time_control.as_deref())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| self.time_control.clone())
    }

    /// Reads an event file's text; relative paths are taken from `dir`.
    ///
    /// # Errors
    /// TOML syntax, a missing or unknown key, a bad value (with its line
    /// and column when TOML gives them), fewer than two players, two
    /// players with one name.
    pub fn parse(text: &str, dir: &Path) -> Result<Event, EventError> {
        let f: File = toml::from_str(text).map_err(|e| EventError {
            at: e.span().map(|s| line_col(text, s.start)),
            message: e.message().trim().to_owned(),
        })?;
        let key_at = |key: &str| text.find(&format!("{key} =")).or_else(|| text.find(key)).map(|o| line_col(text, o));
        let time_control: TimeControl = f
            .time_control
            .parse()
            .map_err(|e| EventError { at: key_at("time_control"), message: format!("time_control: {e}") })?;
        if f.players.len() < 2 {
            return Err(EventError { at: None, message: "an event needs at least two [[players]]".into() });
        }
        for (i, p) in f.players.iter().enumerate() {
            if p.name.trim().is_empty() || p.name.chars().any(char::is_control) {
                return Err(EventError {
                    at: None,
                    message: format!("player {}: the name must be printable text", i + 1),
                });
            }
            if f.players[..i].iter().any(|q| q.name == p.name) {
                return Err(EventError { at: None, message: format!("two players are named {:?}", p.name) });
            }
            // The referee starts at most 256 copies of a program; a
            // player served over the network (worker hosts) may keep up
            // to MAX_NETWORK_INSTANCES connections.
            let most = if p.command.is_some() || p.uci.is_some() { 256 } else { MAX_NETWORK_INSTANCES };
            if p.instances.is_some_and(|n| n == 0 || n > most) {
                return Err(EventError {
                    at: None,
                    message: format!("player {:?}: instances must be 1 to {most}", p.name),
                });
            }
            if p.command.as_ref().is_some_and(Vec::is_empty) {
                return Err(EventError { at: None, message: format!("player {:?}: command is empty", p.name) });
            }
            if p.uci.as_ref().is_some_and(|u| u.first().is_none_or(|w| w.trim().is_empty())) {
                return Err(EventError { at: None, message: format!("player {:?}: uci is empty", p.name) });
            }
            if p.command.is_some() && p.uci.is_some() {
                return Err(EventError {
                    at: None,
                    message: format!(
                        "player {:?}: command and uci both given; command starts a program that connects (epd \
                         play), uci an engine the referee drives itself",
                        p.name
                    ),
                });
            }
            let engine_keys = [
                ("options", !p.options.is_empty()),
                ("dir", p.dir.is_some()),
                ("depth", p.depth.is_some()),
                ("nodes", p.nodes.is_some()),
                ("movetime", p.movetime.is_some()),
            ];
            if let Some((key, _)) = engine_keys.iter().find(|(_, given)| *given).filter(|_| p.uci.is_none()) {
                return Err(EventError {
                    at: None,
                    message: format!(
                        "player {:?}: {key} is for a uci player; a command player takes its engine's settings on \
                         its command line (epd play --depth, --option)",
                        p.name
                    ),
                });
            }
            if let Some(tc) = &p.time_control {
                if let Err(e) = tc.parse::<TimeControl>() {
                    return Err(EventError { at: None, message: format!("player {:?}: time_control: {e}", p.name) });
                }
            }
            if p.depth == Some(0) || p.nodes == Some(0) || p.movetime.is_some_and(|t| !(t > 0.0 && t <= 86_400.0)) {
                return Err(EventError {
                    at: None,
                    message: format!(
                        "player {:?}: depth and nodes are at least 1, movetime above 0 and at most 86400 seconds",
                        p.name
                    ),
                });
            }
            // The referee appends these itself: given twice, the program
            // would get the wrong ones, or refuse to start, again and
            // again.
            let added = ["--token", "--referee", "--name"];
            if let Some(flag) = p.command.iter().flatten().skip(1).find(|a| {
                added.iter().any(|f| a.as_str() == *f || a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
            }) {
                return Err(EventError {
                    at: None,
                    message: format!(
                        "player {:?}: command has {flag}; the referee adds --referee, --name and --token (from the \
                         player's token) itself",
                        p.name
                    ),
                });
            }
        }
        if f.openings_start == 0 {
            return Err(EventError { at: key_at("openings_start"), message: "openings_start is 1 or more".into() });
        }
        if f.openings_plies.is_some()
            && !matches!(f.openings_format, Some(BookFormat::Pgn))
            && !f.openings.as_ref().is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn")))
        {
            return Err(EventError {
                at: key_at("openings_plies"),
                message: "openings_plies is for a PGN book (openings_format = \"pgn\")".into(),
            });
        }
        if f.rounds == 0 || f.concurrency == 0 {
            return Err(EventError {
                at: key_at(if f.rounds == 0 { "rounds" } else { "concurrency" }),
                message: "rounds and concurrency must be at least 1".into(),
            });
        }
        if let Some(AffinityFile::Cpus(cpus)) = &f.affinity {
            // fastchess: "No cores available" when a game has none.
            if cpus.len() < f.concurrency as usize {
                return Err(EventError {
                    at: key_at("affinity"),
                    message: format!(
                        "affinity lists {} CPUs for {} games at once: one CPU per game at least",
                        cpus.len(),
                        f.concurrency
                    ),
                });
            }
        }
        if f.listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(EventError {
                at: key_at("listen"),
                message: format!(
                    "listen must be HOST:PORT with an IP address, such as 127.0.0.1:16101, not {:?}",
                    f.listen
                ),
            });
        }
        if matches!(f.illegal_move, Policy::Continue) {
            return Err(EventError {
                at: key_at("illegal_move"),
                message: "illegal_move is \"forfeit\" or \"retry\"".into(),
            });
        }
        if matches!(f.false_claim, Policy::Retry) {
            return Err(EventError {
                at: key_at("false_claim"),
                message: "false_claim is \"continue\" or \"forfeit\"".into(),
            });
        }
        if let Some(web) = &f.web {
            if web.parse::<std::net::SocketAddr>().is_err() {
                return Err(EventError {
                    at: key_at("web"),
                    message: format!("web must be HOST:PORT with an IP address, such as 127.0.0.1:16180, not {web:?}"),
                });
            }
        }
        if f.supervisor_token.as_deref().is_some_and(|t| t.is_empty() || t.chars().any(|c| c.is_whitespace())) {
            return Err(EventError {
                at: key_at("supervisor_token"),
                message: "supervisor_token must be non-empty, without spaces".into(),
            });
        }
        let bad_rule = f.draw_adjudication.is_some_and(|d| d.movecount == 0 || d.score < 0)
            || f.resign_adjudication.is_some_and(|r| r.movecount == 0 || r.score <= 0)
            || f.max_moves == Some(0);
        if bad_rule {
            return Err(EventError {
                at: None,
                message: "adjudication: movecount and max_moves are at least 1, a draw score 0 or more, a resign \
                          score above 0"
                    .into(),
            });
        }
        let sprt = match &f.sprt {
            Some(t) => {
                if f.players.len() != 2 {
                    return Err(EventError {
                        at: key_at("sprt"),
                        message: format!("sprt is for a match of two players, not {}", f.players.len()),
                    });
                }
                let s = crate::sprt::Sprt::new(t.elo0, t.elo1, t.alpha, t.beta, t.model)
                    .map_err(|m| EventError { at: key_at("sprt"), message: format!("sprt: {m}") })?;
                Some(s)
            }
            None => None,
        };
        let path = |p: Option<PathBuf>, default: &str| dir.join(p.unwrap_or_else(|| default.into()));
        let concurrency = f.concurrency;
        let players = f
            .players
            .into_iter()
            .map(|mut p| {
                let default = if p.uci.is_some() { concurrency.min(256) } else { 1 };
                p.instances = Some(p.instances.unwrap_or(default));
                p.dir = p.dir.map(|d| dir.join(d));
                p
            })
            .collect();
        Ok(Event {
            name: f.event,
            site: f.site.unwrap_or_else(|| "?".into()),
            date: f.date,
            round: f.round,
            listen: f.listen,
            time_control,
            rounds: f.rounds,
            pairing: f.pairing,
            concurrency: f.concurrency,
            openings: f.openings.map(|p| Book {
                format: f.openings_format.unwrap_or(if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn")) {
                    BookFormat::Pgn
                } else {
                    BookFormat::Epd
                }),
                path: dir.join(p),
                order: f.openings_order,
                plies: f.openings_plies,
                start: f.openings_start,
                seed: f.openings_seed,
                chess960: f.variant.is_chess960(),
            }),
            pgn: path(f.pgn, "games.pgn"),
            epdout: f.epdout.map(|p| dir.join(p)),
            log: path(f.log, "referee.log"),
            report: path(f.report, "report.txt"),
            journal: path(f.journal, "referee.journal"),
            journal_sync: f.journal_sync,
            conclude_delay: seconds("conclude_delay", f.conclude_delay)?,
            reset_delay: seconds("reset_delay", f.reset_delay)?,
            lag: Duration::from_millis(f.lag_ms),
            disconnect_grace: seconds("disconnect_grace", f.disconnect_grace)?,
            host_loss: f.host_loss,
            illegal_move: f.illegal_move,
            false_claim: f.false_claim,
            supervisor_token: f.supervisor_token,
            web: f.web,
            linger: seconds("linger", f.linger)?,
            sprt,
            rating_interval: f.rating_interval,
            adjudication: Adjudication {
                draw: f.draw_adjudication,
                resign: f.resign_adjudication,
                max_moves: f.max_moves,
            },
            variant: f.variant,
            noswap: f.noswap,
            reverse: f.reverse,
            recover: f.recover,
            progress: f.progress,
            report_penta: f.report_penta,
            score_interval: f.score_interval,
            affinity: match f.affinity {
                None | Some(AffinityFile::On(false)) => Affinity::Off,
                Some(AffinityFile::On(true)) => Affinity::All,
                Some(AffinityFile::Cpus(cpus)) => Affinity::Cpus(cpus),
            },
            engine_log: f.engine_log,
            show_latency: f.show_latency,
            players,
        })
    }

    /// The games of the event in the order they start: for each cycle,
    /// each pairing plays a pair of games with one opening, colours
    /// swapped; openings (`count` of them, none: the standard position)
    /// are used in order across the pairs, from the first again when they
    /// run out.
    #[must_use]
    pub fn schedule(&self, openings: usize) -> Vec<ScheduledGame> {
        let n = self.players.len();
        let pairs: Vec<(usize, usize)> = match self.pairing {
            Pairing::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Pairing::RoundRobin => round_robin_pairs(n),
        };
        let mut games = Vec::new();
        let mut pair_no = 0usize;
        for cycle in 0..self.rounds {
            for &(a, b) in &pairs {
                let opening = (openings > 0).then(|| pair_no % openings);
                let (first, second) = if self.reverse { ((b, a), (a, b)) } else { ((a, b), (b, a)) };
                let second = if self.noswap { first } else { second };
                for (white, black) in [first, second] {
                    games.push(ScheduledGame { number: games.len() + 1, cycle: cycle + 1, white, black, opening });
                }
                pair_no += 1;
            }
        }
        games
    }
}

/// Round-robin pairings by the circle method, round after round, so that
/// games at once involve different players where possible.
fn round_robin_pairs(n: usize) -> Vec<(usize, usize)> {
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut ring: Vec<usize> = (0..m).collect();
    let mut out = Vec::new();
    for _ in 0..m - 1 {
        for k in 0..m / 2 {
            let (a, b) = (ring[k], ring[m - 1 - k]);
            if a < n && b < n {
                out.push((a.min(b), a.max(b)));
            }
        }
        ring[1..].rotate_right(1);
    }
    out
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 1-based number in the schedule (the PGN Round's last part).
    pub number: usize,
    /// The round-robin cycle, from 1.
    pub cycle: u32,
    /// Index of White in the players.
    pub white: usize,
    /// Index of Black.
    pub black: usize,
    /// Index of the opening, if openings are used.
    pub opening: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
event = "Argus test"
site = "localhost"
listen = "127.0.0.1:16101"
time_control = "5+0.05"
rounds = 1
pairing = "round-robin"
concurrency = 2
openings = "book.epd"
pgn = "games.pgn"
log = "referee.log"
report = "report.txt"
[[players]]
name = "alpha"
command = ["epd", "play", "--engine", "builtin", "--depth", "3"]
token = "secret"
[[players]]
name = "beta"
[[players]]
name = "gamma"
[[players]]
name = "delta"
"#;

    #[test]
    fn reads_the_issue_example() {
        let e = Event::parse(EXAMPLE, Path::new("/ev")).unwrap();
        assert_eq!(e.name, "Argus test");
        assert_eq!(e.time_control.to_string(), "5+0.05");
        assert_eq!((e.rounds, e.concurrency, e.pairing), (1, 2, Pairing::RoundRobin));
        let book = e.openings.as_ref().unwrap();
        assert_eq!(
            (book.path.as_path(), book.format, book.order),
            (Path::new("/ev/book.epd"), BookFormat::Epd, BookOrder::Sequential)
        );
        assert_eq!(e.pgn, Path::new("/ev/games.pgn"));
        assert_eq!(e.players[0].token.as_deref(), Some("secret"));
        assert_eq!(e.players[0].command.as_ref().unwrap()[0], "epd");
        assert_eq!(e.reset_delay, Duration::from_secs(5));
        assert_eq!(e.illegal_move, Policy::Forfeit);
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        for (text, wanted) in [
            (EXAMPLE.replace("rounds = 1", "roundz = 1"), "unknown field `roundz`"),
            (EXAMPLE.replace("\"5+0.05\"", "\"5+\""), "time_control"),
            (EXAMPLE.replace("\"beta\"", "\"alpha\""), "two players are named \"alpha\""),
            (EXAMPLE.replace("127.0.0.1:16101", "localhost"), "listen must be HOST:PORT"),
            (EXAMPLE.replace("\"round-robin\"", "\"swiss\""), "unknown variant `swiss`"),
            (EXAMPLE.replace("concurrency = 2", "concurrency = \"two\""), "invalid type"),
            (
                EXAMPLE.replace("\"--depth\", \"3\"]", "\"--depth\", \"3\", \"--token\", \"x\"]"),
                "command has --token; the referee adds",
            ),
            (
                EXAMPLE.replace("\"--depth\", \"3\"]", "\"--depth\", \"3\", \"--referee=1.2.3.4:5\"]"),
                "command has --referee=1.2.3.4:5",
            ),
        ] {
            let e = Event::parse(&text, Path::new(".")).unwrap_err();
            assert!(e.to_string().contains(wanted), "{wanted}: {e}");
        }
        let e = Event::parse(&EXAMPLE.replace("roundS", "x").replace("rounds = 1", "roundz = 1"), Path::new("."))
            .unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(6), "{e}");
    }

    /// A player the referee starts has at most 256 copies; one served
    /// over the network (worker hosts) may keep up to
    /// MAX_NETWORK_INSTANCES connections.
    #[test]
    fn instances_are_bounded_by_who_starts_the_player() {
        let event = |player: &str| {
            format!("event = \"e\"\ntime_control = \"5+0\"\nconcurrency = 600\n[[players]]\nname = \"a\"\n{player}\n[[players]]\nname = \"b\"\n")
        };
        let net = Event::parse(&event("instances = 600"), Path::new(".")).unwrap();
        assert_eq!(net.players[0].instances(), 600);
        let most = MAX_NETWORK_INSTANCES;
        let e = Event::parse(&event(&format!("instances = {}", most + 1)), Path::new(".")).unwrap_err();
        assert!(e.to_string().contains(&format!("instances must be 1 to {most}")), "{e}");
        let e = Event::parse(&event("instances = 600\ncommand = [\"epd\", \"play\"]"), Path::new(".")).unwrap_err();
        assert!(e.to_string().contains("instances must be 1 to 256"), "{e}");
    }

    /// The key table is the event file's: each key's example parses,
    /// and every field of the file (and of a player) is in the table.
    #[test]
    fn the_key_table_is_the_files() {
        let mut text = String::new();
        for k in KEYS.iter().filter(|k| !k.example.is_empty()) {
            text.push_str(&format!("{} = {}\n", k.name, k.example));
        }
        for i in 0..2 {
            text.push_str("[[players]]\n");
            // command and uci exclude each other: the examples' player
            // has uci (command is in EXAMPLE).
            for k in PLAYER_KEYS.iter().filter(|k| k.name != "command") {
                let v = if k.name == "name" { format!("\"p{i}\"") } else { k.example.to_owned() };
                text.push_str(&format!("{} = {v}\n", k.name));
            }
        }
        let e = Event::parse(&text, Path::new(".")).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(e.linger, Duration::from_secs(60));
        let source = include_str!("event.rs");
        for (start, keys) in [("struct File {", KEYS), ("pub struct Player {", PLAYER_KEYS)] {
            let body = &source[source.find(start).unwrap()..];
            let body = &body[..body.find("\n}").unwrap()];
            let fields: Vec<&str> = body
                .lines()
                .filter_map(|l| l.trim().strip_prefix("pub ").or(Some(l.trim())))
                .filter_map(|l| l.split_once(':').map(|(n, _)| n))
                .filter(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !n.is_empty())
                .collect();
            let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
            assert_eq!(fields, names, "the table's keys, in the file's order");
        }
    }

    #[test]
    fn schedules_pairs_with_both_colours() {
        let e = Event::parse(EXAMPLE, Path::new(".")).unwrap();
        let s = e.schedule(3);
        // 4 players: 6 pairings, 2 games each.
        assert_eq!(s.len(), 12);
        let mut seen = std::collections::HashSet::new();
        for g in &s {
            assert!(g.white != g.black);
            assert!(seen.insert((g.white, g.black)), "each colour once: {g:?}");
        }
        // Pairs share an opening; openings go round in order.
        let openings: Vec<_> = s.iter().map(|g| g.opening.unwrap()).collect();
        assert_eq!(openings, [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
        // The first round of the circle method: two games with four
        // different players, so concurrency 2 keeps everyone busy.
        let first: std::collections::HashSet<usize> = [s[0].white, s[0].black, s[2].white, s[2].black].into();
        assert_eq!(first.len(), 4);
        let mut g = e.clone();
        g.pairing = Pairing::Gauntlet;
        g.rounds = 2;
        let s = g.schedule(0);
        assert_eq!(s.len(), 12);
        assert!(s.iter().all(|x| (x.white == 0) != (x.black == 0) && x.opening.is_none()));
        // Five players (odd): every pairing once.
        assert_eq!(round_robin_pairs(5).len(), 10);
    }

    /// `noswap` keeps a pair's colours, `reverse` starts each pair with
    /// the pairing's second player as White; the openings are unchanged.
    #[test]
    fn noswap_and_reverse_set_a_pairs_colours() {
        let mut e = Event::parse(EXAMPLE, Path::new(".")).unwrap();
        e.pairing = Pairing::Gauntlet;
        let colours = |e: &Event| -> Vec<(usize, usize)> { e.schedule(2).iter().map(|g| (g.white, g.black)).collect() };
        assert_eq!(colours(&e), [(0, 1), (1, 0), (0, 2), (2, 0), (0, 3), (3, 0)]);
        e.noswap = true;
        assert_eq!(colours(&e), [(0, 1), (0, 1), (0, 2), (0, 2), (0, 3), (0, 3)]);
        e.reverse = true;
        assert_eq!(colours(&e), [(1, 0), (1, 0), (2, 0), (2, 0), (3, 0), (3, 0)]);
        e.noswap = false;
        assert_eq!(colours(&e), [(1, 0), (0, 1), (2, 0), (0, 2), (3, 0), (0, 3)]);
        assert!(e.schedule(2).iter().map(|g| g.opening).eq([0, 0, 1, 1, 0, 0].map(Some)));
        let parsed = |extra: &str| Event::parse(&format!("{extra}\n{EXAMPLE}"), Path::new("."));
        let v = parsed("variant = \"fischerandom\"\nnoswap = true\nreverse = true").unwrap();
        assert!(v.variant.is_chess960() && v.noswap && v.reverse);
        assert!(parsed("variant = \"chess960\"").unwrap().variant.is_chess960());
        assert!(!Event::parse(EXAMPLE, Path::new(".")).unwrap().variant.is_chess960());
        let e = parsed("variant = \"crazyhouse\"").unwrap_err();
        assert!(e.message.contains("unknown variant `crazyhouse`"), "{}", e.message);
    }
}
