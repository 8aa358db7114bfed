//! `epd referee EVENT.toml`: Argus, the referee of EPD §8.

use std::path::PathBuf;

use anyhow::Context;
use epd_referee::runtime::{self, Options};
use epd_referee::Event;

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd referee event.toml                 # console on stdin: status, games, pause, resume, adjudicate, abort, quit
  epd referee event.toml --background    # from the event file alone; exit 0 when the event is complete
  epd referee event.toml --resume        # after a crash or kill: go on from the journal
  epd referee event.toml --listen 0.0.0.0:16101 -v
  epd referee event.toml --serial /dev/ttyS0,/dev/ttyS1 --baud 9600   # one pair over two serial lines
  epd referee event.toml --standby 10.0.0.1:16101 --listen 10.0.0.2:16101   # hot standby of the referee at 10.0.0.1

An event file:
  event = \"Argus test\"
  listen = \"127.0.0.1:16101\"
  time_control = \"5+0.05\"      # PGN TimeControl: 40/5400+30, 300+3, *10
  rounds = 1
  pairing = \"round-robin\"      # or \"gauntlet\"
  concurrency = 2
  pgn = \"games.pgn\"
  log = \"referee.log\"
  report = \"report.txt\"
  supervisor_token = \"...\"     # a standby presents it (and the web display's supervisor)
  web = \"127.0.0.1:16180\"      # the live display: a page, /api/state, /api/events, /pgn
  [[players]]
  name = \"alpha\"
  command = [\"epd\", \"play\", \"--depth\", \"3\"]   # started with --referee HOST:PORT --name alpha
  [[players]]
  name = \"beta\"
  token = \"s3cret\"             # a client must present it: epd play --token s3cret";

/// The examples, then every key of the event file (from the referee's
/// own table).
pub fn after_help() -> String {
    format!("{EXAMPLES}\n\n{}", epd_referee::keys_text())
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The event file (TOML): players, time control, pairing, files.
    #[arg(value_name = "EVENT.toml")]
    event: PathBuf,
    /// Run from the event file alone: no console, progress in the log
    /// only; exit 0 when every game is played.
    #[arg(long)]
    background: bool,
    /// Listen on HOST:PORT instead of the event file's `listen`.
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Print the event's progress on standard error (the default in the
    /// foreground).
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Go on from the event's journal after the referee stopped (killed,
    /// crashed, quit): finished games are kept, games in progress go on
    /// from their last move with their clocks, the rest are played.
    #[arg(long)]
    resume: bool,
    /// Serial mode: mediate the players over these serial lines (terminal
    /// devices, comma-separated, one per player) instead of TCP; each
    /// client signs on over its line with `epd play --serial`.
    #[arg(long, value_name = "TTY,TTY", value_delimiter = ',', conflicts_with = "listen")]
    serial: Vec<PathBuf>,
    /// The serial lines' baud rate.
    #[arg(long, value_name = "N", default_value_t = runtime::DEFAULT_BAUD, requires = "serial")]
    baud: u32,
    /// Hot standby: follow the referee at HOST:PORT (the address its
    /// clients use), keep its journal, and take the event over on this
    /// one's listen address when it stops answering. The event file must
    /// have a supervisor_token.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["resume", "serial"])]
    standby: Option<String>,
    /// With --standby: how long (seconds) the primary may be silent
    /// before the standby takes over.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, requires = "standby")]
    heartbeat: f64,
}

pub fn run(args: Args, out: &mut dyn std::io::Write) -> anyhow::Result<Outcome> {
    let name = args.event.display().to_string();
    let text = std::fs::read_to_string(&args.event).with_context(|| format!("cannot read {name}"))?;
    let dir = args.event.parent().map(PathBuf::from).unwrap_or_default();
    let event = Event::parse(&text, &dir).map_err(|e| match e.at {
        Some(_) => anyhow::anyhow!("{name}:{e}"),
        None => anyhow::anyhow!("{name}: {e}"),
    })?;
    let options = Options {
        console: !args.background,
        listen: args.listen,
        verbose: args.verbose || !args.background,
        measure_latency: false,
        resume: args.resume,
        serial: args.serial,
        baud: Some(args.baud),
    };
    let outcome = match args.standby {
        Some(primary) => {
            anyhow::ensure!(
                (0.1..=60.0).contains(&args.heartbeat),
                "--heartbeat: between 0.1 and 60 seconds, not {}",
                args.heartbeat
            );
            let beat = std::time::Duration::from_secs_f64(args.heartbeat);
            epd_referee::runtime::standby::run_blocking(event, options, primary, beat)?
        }
        None => runtime::run_blocking(event, options)?,
    };
    if !args.background {
        write!(out, "{}", outcome.report)?;
    }
    // SIGTERM, SIGINT: stopped cleanly before the end (exit 128 + the
    // signal); --resume goes on.
    Ok(outcome.interrupted.map_or(Outcome::Ok, Outcome::Interrupted))
}
