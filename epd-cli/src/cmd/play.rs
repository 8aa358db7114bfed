//! `epd play --referee HOST:PORT --name NAME`: the client bridge of EPD
//! §8. It signs on to a referee, and for each `respond` sets up the game
//! in an engine (the built-in one, or any UCI engine with `position fen
//! START moves ...` and `go wtime ... btime ... winc ... binc ...
//! [movestogo ...]` from the referee's clocks) and replies with its move;
//! it offers, accepts and claims draws and resigns as its options say.
//! The protocol side is `epd_referee::client`, as in the C ABI.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use epd_engine::Engine;
use epd_referee::client::{retry_from, Client, SignOn};
use epd_referee::player::{self, Conduct, Session};

use crate::flags::{EngineCommand, EngineOptions};
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd play --referee 127.0.0.1:16101 --name alpha                       # the built-in engine, on the clock
  epd play --referee 127.0.0.1:16101 --name sf --engine stockfish --hash 64
  epd play --referee host:16101 --name beta --token s3cret --depth 6 --resign-score 600 --resign-moves 3
  epd play --serial /dev/ttyUSB0 --baud 9600 --name alpha              # a referee in serial mode
  epd play --referee host:16101 --name dev --engine ./dev --instances --use-affinity  # a worker: a slot per CPU";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The referee's address; several, comma-separated, for failover
    /// (`A,B`: when A is gone, B is tried, as when a second referee takes
    /// the event over with `--resume`).
    #[arg(long, value_name = "HOST:PORT[,HOST:PORT...]", required_unless_present = "serial")]
    referee: Option<String>,
    /// Reach the referee over this serial line (a terminal device) instead
    /// of TCP: `epd referee --serial` on the other end.
    #[arg(long, value_name = "TTY", conflicts_with = "referee")]
    serial: Option<PathBuf>,
    /// The serial line's baud rate.
    #[arg(long, value_name = "N", default_value_t = epd_referee::runtime::DEFAULT_BAUD, requires = "serial")]
    baud: u32,
    /// The player name to sign on as (the event file's players.name).
    #[arg(long)]
    name: String,
    /// The token the event file requires for this player; read from the
    /// environment variable EPD_TOKEN when not given (where a referee
    /// puts it for the players it starts: a command line is visible to
    /// every user of the machine, an environment only to its owner).
    #[arg(long, env = "EPD_TOKEN", hide_env_values = true)]
    token: Option<String>,
    #[command(flatten)]
    engine: EngineCommand,
    /// Search each move to this depth instead of by the clock (the clock
    /// still caps the built-in engine's time).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    depth: Option<u32>,
    /// Search each move about this many nodes instead of by the clock.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Search each move this many milliseconds instead of by the clock.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    #[command(flatten)]
    engine_options: EngineOptions,
    /// Resign when the engine's score is at most -CP ...
    #[arg(long, value_name = "CP", requires = "resign_moves")]
    resign_score: Option<i32>,
    /// ... for N of its moves in a row.
    #[arg(long, value_name = "N", requires = "resign_score")]
    resign_moves: Option<u32>,
    /// Offer (and accept) a draw when the score is within +-CP ...
    #[arg(long, value_name = "CP", requires = "draw_moves")]
    draw_score: Option<i32>,
    /// ... for N of its moves in a row (offers from move 30 on).
    #[arg(long, value_name = "N", requires = "draw_score")]
    draw_moves: Option<u32>,
    /// Never claim draws by threefold repetition or the 50-move rule
    /// (claimed by default when the rules allow).
    #[arg(long)]
    no_claims: bool,
    /// How many times to try connecting (one second apart, then longer).
    #[arg(long, value_name = "N", default_value_t = 10)]
    retries: u32,
    /// Ask the referee for a heartbeat every SECONDS (over TCP), and give
    /// it up as gone (frozen, or its host lost) after three missed beats:
    /// the next address of --referee is tried. 0: no heartbeat, wait for
    /// ever.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    heartbeat: f64,
    /// Keep N game slots of the player connected (a worker host serving
    /// an event): each slot has its own engine, started once and kept
    /// between games, and its own connection, with the heartbeat and
    /// failover of one. Without N: one slot per CPU this process may run
    /// on. The event's `instances` for the player is the most the
    /// referee takes at once.
    #[arg(long, value_name = "N", num_args = 0..=1, default_value_t = 1, default_missing_value = "0",
          conflicts_with = "serial")]
    instances: usize,
    /// Pin slot k to the k-th CPU of CPUS (`0,2,4-7`; without CPUS the
    /// CPUs this process may run on), as `epd match -use-affinity` pins
    /// its engines: a UCI engine before its program runs, the built-in
    /// engine's thread.
    #[arg(long, value_name = "CPUS", num_args = 0..=1, default_missing_value = "")]
    use_affinity: Option<String>,
}

/// The slot's engine, pinned to `cpu` when given.
fn engine(args: &Args, cpu: Option<usize>) -> anyhow::Result<Box<dyn Engine>> {
    let options = args.engine_options.uci(1)?;
    let cpus: Vec<usize> = cpu.into_iter().collect();
    if !cpus.is_empty() && args.engine.engine == "builtin" {
        epd_engine::pin_this_thread(&cpus)
            .with_context(|| format!("cannot pin the built-in engine to CPU {cpus:?}"))?;
    }
    args.engine
        .start_on(args.engine_options.hash, &options, &cpus)
        .with_context(|| format!("engine {}", args.engine.engine))
}

/// The slots' CPUs: `None` without --use-affinity, else one per slot.
fn slot_cpus(args: &Args, slots: usize) -> anyhow::Result<Option<Vec<usize>>> {
    let Some(list) = &args.use_affinity else { return Ok(None) };
    let cpus = if list.is_empty() {
        epd_referee::matches::allowed_cpus().map_err(anyhow::Error::msg)?
    } else {
        epd_referee::matches::cpu_list(list).map_err(|e| anyhow::anyhow!("--use-affinity: {e}"))?
    };
    if cpus.len() < slots {
        anyhow::bail!("--use-affinity: {} CPUs for {slots} slots: one CPU per slot", cpus.len());
    }
    Ok(Some(cpus))
}

/// The heartbeat asked of the referee, if any (TCP only).
fn heartbeat(args: &Args) -> Option<Duration> {
    (args.serial.is_none() && args.heartbeat > 0.0).then(|| Duration::from_secs_f64(args.heartbeat.clamp(0.1, 3600.0)))
}

/// The addresses of --referee, in order.
fn addresses(args: &Args) -> Vec<&str> {
    let referee = args.referee.as_deref().unwrap_or_default();
    referee.split(',').map(str::trim).filter(|a| !a.is_empty()).collect()
}

/// Connects to the referee and signs on: over the serial line, or to
/// the first of the addresses that answers, starting at `first` (after a
/// referee that went silent, the next one is tried first).
fn connect(args: &Args, first: &mut usize) -> anyhow::Result<Client> {
    let sign_on = SignOn { name: &args.name, token: args.token.as_deref(), heartbeat: heartbeat(args) };
    if let Some(path) = &args.serial {
        let line = epd_referee::serial::open_raw(path, args.baud)
            .with_context(|| format!("cannot open the serial line {}", path.display()))?;
        let writer = line.try_clone()?;
        return Ok(Client::over((Box::new(line), Box::new(writer)), &sign_on)?);
    }
    let referee = args.referee.as_deref().unwrap_or_default();
    let addrs = addresses(args);
    anyhow::ensure!(!addrs.is_empty(), "--referee: no address");
    let mut wait = Duration::from_millis(200);
    let mut last = None;
    for _ in 0..args.retries.max(1) {
        // Each attempt tries every address in order.
        for k in 0..addrs.len() {
            let i = (*first + k) % addrs.len();
            match Client::connect_with(addrs[i], &sign_on, Duration::from_secs(5)) {
                Ok(c) => {
                    *first = i;
                    return Ok(c);
                }
                Err(e) => last = Some(e),
            }
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(Duration::from_secs(5));
    }
    Err(anyhow::Error::new(last.expect("tried")).context(format!("cannot reach the referee at {referee}")))
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let slots = match args.instances {
        0 => epd_referee::matches::allowed_cpus()
            .map(|c| c.len())
            .or_else(|_| std::thread::available_parallelism().map(usize::from))
            .unwrap_or(1),
        n => n,
    };
    let cpus = slot_cpus(&args, slots)?;
    if slots == 1 {
        return serve(&args, cpus.as_ref().map(|c| c[0]), "epd play");
    }
    // Each slot on a thread of its own; the run ends when every slot is
    // told to disconnect (or gives up), its first failure reported.
    let failures: Vec<anyhow::Error> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..slots)
            .map(|k| {
                let (args, cpu) = (&args, cpus.as_ref().map(|c| c[k]));
                scope.spawn(move || serve(args, cpu, &format!("epd play (slot {})", k + 1)))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| match h.join() {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some(anyhow::anyhow!("a slot panicked")),
            })
            .collect()
    });
    match failures.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(Outcome::Ok),
    }
}

/// One slot: its engine (on `cpu`), connected and signed on until the
/// referee says disconnect. A lost connection (the referee restarted,
/// the network broke) is tried again with backoff (--retries attempts);
/// the referee brings a player that signs on again back into its game.
fn serve(args: &Args, cpu: Option<usize>, who: &str) -> anyhow::Result<Outcome> {
    let mut engine = engine(args, cpu)?;
    let mut first = 0;
    let count = addresses(args).len().max(1);
    loop {
        let client = connect(args, &mut first)?;
        match session(args, &mut *engine, client, who)? {
            Session::Over => return Ok(Outcome::Ok),
            Session::Replaced => {
                eprintln!("{who}: a newer sign-on of {} took this connection's place; this slot stops", args.name);
                return Ok(Outcome::Ok);
            }
            Session::Lost { why, heard } => {
                eprintln!("{who}: {why}; connecting again");
                first = retry_from(first, count, heard, false);
                std::thread::sleep(Duration::from_millis(200));
            }
            Session::Silent => {
                eprintln!("{who}: the referee has been silent past its heartbeat; trying the next address");
                first = retry_from(first, count, true, true);
            }
        }
    }
}

fn conduct(args: &Args) -> Conduct {
    Conduct {
        depth: args.depth,
        nodes: args.nodes,
        movetime: args.movetime.map(Duration::from_millis),
        resign: args.resign_score.zip(args.resign_moves),
        draw: args.draw_score.zip(args.draw_moves),
        claims: !args.no_claims,
    }
}

fn session(args: &Args, engine: &mut dyn Engine, client: Client, who: &str) -> anyhow::Result<Session> {
    let mut say = |text: &str| eprintln!("{who}: {text}");
    match player::session(&conduct(args), engine, client, &mut say) {
        Ok(s) => Ok(s),
        Err(e) => Err(anyhow::Error::new(e)),
    }
}
