//! The referee as a TCP server (EPD §8), on tokio.
//!
//! Shaped like tokio's mini-redis: a listener task accepts clients (at
//! most [`MAX_CLIENTS`] at once); each connection has a reader task and a
//! writer task; every state change goes through one owner, the director
//! task, which alone holds the players, the connections, the games and
//! the schedule, so no lock is needed and every decision is taken in one
//! order. The director waits on its inbox and on the nearest deadline (a
//! flag, the end of a reset or conclude delay, a disconnected player's
//! grace), so a client that never answers loses on time when its flag
//! falls, not when it next speaks.
//!
//! Everything a client sends is untrusted: lines are capped at
//! [`MAX_RECORD`] bytes (an over-long line costs the client its
//! connection), a line must be finished within [`LINE_TIMEOUT`] of its
//! first byte, a client must sign on within [`SIGN_ON_TIMEOUT`], its
//! outgoing queue is bounded (a client that does not read is dropped),
//! and a sign-on under a name whose entry has a token must present it.
//!
//! Time is measured by the referee: from the moment a `respond` record is
//! written to the moment the reply's last byte is read, less the event's
//! lag allowance.
//!
//! Every state change (a game started, each move with the time it took, a
//! game's end with its PGN, an abort) is written to the event's journal
//! and synced before the referee acts on it (write-ahead), so after a
//! crash at any instant `--resume` ([`Options::resume`]) finds every
//! finished game as it was, continues the games in progress from their
//! last move with the clocks they had (the time of the move in flight is
//! not charged), and plays the games not started. Players sign on again;
//! a returning player is brought back into its game with reset, inform
//! and one execute record per move played (§8.1.3), then asked to
//! respond when it is its turn. The same happens when a client drops out
//! mid-game and signs on again within the event's disconnect grace.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use epd_core::{Color, Position};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::event::{Event, Policy, ScheduledGame};
use crate::game::{DrawClaim, Ended, Game, GameResult};
use crate::journal::Journal;
use crate::pgn::{self, Tags};
use crate::protocol::{parse_request, Command, Outgoing, Request, MAX_RECORD};
use crate::standings::Standings;
use crate::timers::Timers;

/// The most clients connected at once.
pub const MAX_CLIENTS: usize = 1024;
/// How long a line may take from its first byte to its newline.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a new connection has to sign on.
pub const SIGN_ON_TIMEOUT: Duration = Duration::from_secs(30);
/// Records queued for a client before it counts as not reading.
const QUEUE: usize = 256;
/// Messages the director takes in one turn at most.
const BATCH: usize = 256;

/// How the referee runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Read supervisor commands from standard input.
    pub console: bool,
    /// Listen here instead of the event's address (tests use port 0).
    pub listen: Option<String>,
    /// Print what happens on standard error.
    pub verbose: bool,
    /// Measure the referee's latency per move: from a reply's last byte
    /// read to the opponent's respond written ([`Outcome::latencies`]).
    pub measure_latency: bool,
    /// Go on from the event's journal after the referee stopped (a crash,
    /// a kill, `quit`): without it, an existing journal is refused.
    pub resume: bool,
    /// Serial mode: the players' serial lines (terminal devices), one
    /// per player, instead of a TCP listener; the players sign on over
    /// them as over TCP.
    pub serial: Vec<PathBuf>,
    /// The serial lines' baud rate (default [`DEFAULT_BAUD`]).
    pub baud: Option<u32>,
}

/// The baud rate of serial lines unless told otherwise.
pub const DEFAULT_BAUD: u32 = 9600;

/// What a finished event reports.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Games played to an end.
    pub games: usize,
    /// The standings report.
    pub report: String,
    /// With [`Options::measure_latency`]: each move's latency, from the
    /// reply read to the respond written, and from the director taking
    /// the reply up to the respond written (the first less the wait in
    /// the director's inbox).
    pub latencies: Vec<(Duration, Duration)>,
}

type ConnId = u64;

/// The connection of a side that has none (a game resumed from the
/// journal, or a player away): no client has this id.
const NOBODY: ConnId = ConnId::MAX;

/// One state change, as the journal keeps it (JSON).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Entry {
    /// The referee starts (`epoch` 1) or resumes (one more each time).
    Begin { epoch: u64, event: String, games: usize, date: String },
    /// Scheduled game `game` (its index in the schedule) starts.
    Start { game: usize },
    /// A move of a game in progress, the time it took, and whether its
    /// player offered a draw with it.
    Move { game: usize, uci: String, ns: u64, offer: bool },
    /// A game is over: its result and its PGN as written.
    End { game: usize, white: usize, black: usize, result: String, pgn: String },
    /// A game aborted by the supervisor: back in the schedule.
    Abort { game: usize },
    /// The supervisor paused a game: its clocks stay stopped, after a
    /// resumption too, until it is unpaused.
    Pause { game: usize },
    /// The supervisor resumed a paused game.
    Unpause { game: usize },
    /// A hot standby follows this journal and would take over at
    /// `listen` after `heartbeat_ms` of silence: a referee resumed from
    /// the journal asks it first, and holds its records until it follows
    /// again or cannot have taken over.
    Standby {
        listen: String,
        #[serde(default)]
        heartbeat_ms: u64,
    },
}

/// What a journal holds: the games over, the games in progress.
struct Replayed {
    epoch: u64,
    date: Option<String>,
    done: Vec<usize>,
    results: Vec<(usize, usize, GameResult)>,
    pgn: Vec<String>,
    /// The games over, for the display.
    ended: Vec<crate::web::FinishedGame>,
    running: BTreeMap<usize, (Game, Option<Color>)>,
    /// The games in progress paused by the supervisor.
    paused: std::collections::BTreeSet<usize>,
    /// The last standby the journal names, and its heartbeat.
    standby: Option<(String, Duration)>,
}

fn bad_journal(path: &std::path::Path, n: usize, why: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: entry {n}: {why}", path.display()))
}

/// A record for a client, and (when latency is measured) the instants
/// the reply it answers was read and taken up by the director.
type Out = (Vec<u8>, Option<(Instant, Instant)>);

/// Where the writers put measured latencies: (read to written, taken up
/// to written).
type Latencies = Arc<std::sync::Mutex<Vec<(Duration, Duration)>>>;

/// What the director hears.
#[derive(Debug)]
enum Inbox {
    Connected {
        id: ConnId,
        tx: mpsc::Sender<Out>,
        /// The client's address, or the serial line's device.
        peer: String,
    },
    Line {
        id: ConnId,
        line: Vec<u8>,
        at: Instant,
    },
    TooLong {
        id: ConnId,
    },
    Closed {
        id: ConnId,
        why: String,
    },
    Console(String),
    /// A line for the log from another task (the players' keeper).
    Note(String),
    Bound(SocketAddr),
    /// The epoch of the lost standby, if it answered (it took over).
    Probed(Option<u64>),
    /// What the fencer of a referee that took over heard.
    Fenced(crate::standby::Fenced),
    /// A supervisor action from the web display, and who sent it.
    Supervisor(String, String),
}

/// Runs `event` to its end on a tokio runtime of its own.
///
/// # Errors
/// The address cannot be bound, the openings or output files cannot be
/// read or written.
pub fn run_blocking(event: Event, options: Options) -> std::io::Result<Outcome> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let outcome = rt.block_on(run(event, options, None));
    // The console's read of stdin blocks a thread that no task can
    // cancel: do not wait for it.
    rt.shutdown_background();
    outcome
}

/// Runs `event` to its end. `bound`, if given, hears the address the
/// listener bound (for tests that listen on port 0).
///
/// # Errors
/// The address cannot be bound, the openings or output files cannot be
/// read or written.
pub async fn run(
    event: Event,
    options: Options,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
) -> std::io::Result<Outcome> {
    serve(event, options, bound, None, None).await
}

/// [`run`], on `listener` if given (a standby's, bound when it started),
/// and, after a standby's take-over, telling the old primary at `fence`
/// to yield.
pub(crate) async fn serve(
    event: Event,
    options: Options,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
    listener: Option<TcpListener>,
    fence: Option<String>,
) -> std::io::Result<Outcome> {
    if options.resume && fence.is_none() {
        step_down_to_standby(&event, options.listen.as_deref()).await?;
    }
    let openings = match &event.openings {
        Some(path) => load_openings(path)?,
        None => Vec::new(),
    };
    let (tx, rx) = mpsc::channel::<Inbox>(4096);
    let latencies: Option<Latencies> = options.measure_latency.then(Latencies::default);
    let local = if options.serial.is_empty() {
        let addr = options.listen.clone().unwrap_or_else(|| event.listen.clone());
        let listener = match listener {
            Some(l) => l,
            None => TcpListener::bind(&addr).await?,
        };
        let local = listener.local_addr()?;
        if let Some(tx) = bound {
            let _ = tx.send(local);
        }
        let _ = tx.send(Inbox::Bound(local)).await;
        tokio::spawn(listen(listener, tx.clone(), latencies.clone()));
        Some(local)
    } else {
        if let Some(p) = event.players.iter().find(|p| p.command.is_some()) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("serial mode: player {} has a command; players come over the serial lines", p.name),
            ));
        }
        let baud = options.baud.unwrap_or(DEFAULT_BAUD);
        // A bad rate is said now, not in a log line per attempt.
        crate::serial::BAUD_RATES.contains(&baud).then_some(()).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{baud} baud: not a serial line rate"))
        })?;
        #[cfg(unix)]
        {
            let n = options.serial.len() as u64;
            for (k, path) in options.serial.iter().enumerate() {
                tokio::spawn(serial_line(path.clone(), baud, k as u64, n, tx.clone()));
            }
        }
        #[cfg(not(unix))]
        return Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "serial mode needs a Unix system"));
        #[cfg(unix)]
        None
    };
    if options.console {
        tokio::spawn(console(tx.clone()));
    }
    // The players the referee starts: each instance kept running until
    // the event is over (a program that exits or crashes mid-event is
    // started again, after a growing pause; it signs on and is brought
    // back into its game).
    let (over_tx, over_rx) = tokio::sync::watch::channel(false);
    let mut keepers = Vec::new();
    for p in &event.players {
        let Some(cmd) = &p.command else { continue };
        let Some(local) = local else { continue };
        for i in 0..p.instances {
            let mut args: Vec<String> = cmd[1..].to_vec();
            args.extend(["--referee".to_owned(), local.to_string(), "--name".to_owned(), p.name.clone()]);
            if let Some(t) = &p.token {
                args.extend(["--token".to_owned(), t.clone()]);
            }
            let who = if p.instances > 1 { format!("{} #{}", p.name, i + 1) } else { p.name.clone() };
            let first = spawn_player(&cmd[0], &args, options.verbose)
                .map_err(|e| std::io::Error::new(e.kind(), format!("player {}: {}: {e}", p.name, cmd[0])))?;
            keepers.push(tokio::spawn(keep_player(
                first,
                cmd[0].clone(),
                args,
                who,
                options.verbose,
                tx.clone(),
                over_rx.clone(),
            )));
        }
    }
    // The live display: bound before the event starts, so a bad address
    // is said at once.
    let web = match &event.web {
        Some(addr) => {
            let l = TcpListener::bind(addr)
                .await
                .map_err(|e| std::io::Error::new(e.kind(), format!("web = {addr:?}: {e}")))?;
            let local = l.local_addr()?;
            Some((l, local))
        }
        None => None,
    };
    // A resumed primary watches the standby its journal names; a standby
    // that took over does not watch itself.
    let own = local.map(|a| a.to_string()).filter(|_| fence.is_none());
    let mut director = Director::new(event, openings, options.verbose, options.resume, tx.clone(), own.as_deref())?;
    director.measure = options.measure_latency;
    if let Some((listener, local)) = web {
        let (state_tx, state_rx) = tokio::sync::watch::channel(Arc::new(crate::web::Snapshot::default()));
        director.web = Some(state_tx);
        director.publish(true);
        let (act_tx, mut act_rx) = mpsc::channel::<(String, String)>(16);
        let inbox = tx.clone();
        tokio::spawn(async move {
            while let Some((cmd, from)) = act_rx.recv().await {
                if inbox.send(Inbox::Supervisor(cmd, from)).await.is_err() {
                    return;
                }
            }
        });
        let (pgn, token) = (director.event.pgn.clone(), director.event.supervisor_token.clone());
        tokio::spawn(crate::web::serve(listener, state_rx, pgn, token, act_tx));
        director.note(&format!("live display on http://{local}/"));
    }
    if let (Some(old), Some(token)) = (fence, director.event.supervisor_token.clone()) {
        let (ftx, mut frx) = mpsc::channel(1);
        tokio::spawn(crate::standby::fence(old, token, director.epoch, ftx));
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(f) = frx.recv().await {
                if tx.send(Inbox::Fenced(f)).await.is_err() {
                    return;
                }
            }
        });
    }
    let mut outcome = director.run(rx).await;
    if let (Ok(_), Some(e)) = (&outcome, director.failure.take()) {
        outcome = Err(e);
    }
    if let (Ok(o), Some(l)) = (outcome.as_mut(), latencies) {
        o.latencies = std::mem::take(&mut *l.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    }
    // Asked to disconnect; the keepers give them a moment, then stop them.
    let _ = over_tx.send(true);
    for k in keepers {
        let _ = k.await;
    }
    outcome
}

/// Before a resumption: when the journal names a standby and it answers
/// with a newer epoch than the journal's, it took the event over while
/// this referee was down: this one steps down rather than play on.
async fn step_down_to_standby(event: &Event, listen: Option<&str>) -> std::io::Result<()> {
    let Some(token) = &event.supervisor_token else { return Ok(()) };
    let Ok(entries) = crate::journal::read_entries(&event.journal) else { return Ok(()) };
    let (mut epoch, mut standby) = (0, None);
    for e in &entries {
        match serde_json::from_slice::<Entry>(e) {
            Ok(Entry::Begin { epoch: n, .. }) => epoch = n,
            Ok(Entry::Standby { listen, .. }) => standby = Some(listen),
            _ => {}
        }
    }
    let Some(standby) = standby else { return Ok(()) };
    if Some(standby.as_str()) == listen.or(Some(event.listen.as_str())) {
        return Ok(()); // this referee is the standby the journal names
    }
    match crate::standby::probe(&standby, token).await {
        Some(n) if n > epoch => Err(std::io::Error::other(format!(
            "the standby at {standby} took the event over (epoch {n}; this journal's is {epoch}):              this referee steps down; start it as --standby {standby}"
        ))),
        _ => Ok(()),
    }
}

fn spawn_player(program: &str, args: &[String], verbose: bool) -> std::io::Result<tokio::process::Child> {
    let mut c = tokio::process::Command::new(program);
    c.args(args).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).kill_on_drop(true);
    if !verbose {
        c.stderr(std::process::Stdio::null());
    }
    c.spawn()
}

/// Keeps one player program running until the event is over: when it
/// exits early it is started again after a pause (1 s, doubling up to
/// 30 s while it keeps failing within a minute). At the end it has two
/// seconds to leave on its own, then it is stopped.
async fn keep_player(
    mut child: tokio::process::Child,
    program: String,
    args: Vec<String>,
    who: String,
    verbose: bool,
    inbox: mpsc::Sender<Inbox>,
    mut over: tokio::sync::watch::Receiver<bool>,
) {
    let mut pause = Duration::from_secs(1);
    loop {
        let started = Instant::now();
        tokio::select! {
            status = child.wait() => {
                if *over.borrow() {
                    return;
                }
                let how = status.map_or_else(|e| e.to_string(), |s| s.to_string());
                let _ = inbox.send(Inbox::Note(format!(
                    "player {who} exited ({how}); starting it again in {:.0} s", pause.as_secs_f64()
                ))).await;
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    _ = over.changed() => return,
                }
                pause = if started.elapsed() > Duration::from_secs(60) {
                    Duration::from_secs(1)
                } else {
                    (pause * 2).min(Duration::from_secs(30))
                };
                match spawn_player(&program, &args, verbose) {
                    Ok(c) => child = c,
                    Err(e) => {
                        let _ = inbox.send(Inbox::Note(format!("player {who}: cannot start {program}: {e}"))).await;
                        return;
                    }
                }
            }
            _ = over.changed() => {
                if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                    let _ = child.kill().await;
                }
                return;
            }
        }
    }
}

/// Reads the openings: one position per line (FEN or EPD; blank lines
/// and invalid ones are refused with their line number).
fn load_openings(path: &std::path::Path) -> std::io::Result<Vec<Position>> {
    let text = std::fs::read(path).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (rec, diags) = epd_core::Record::parse(line, epd_core::ParseMode::Lenient);
        match rec.position_with_counters() {
            Some(p) if !epd_core::has_errors(&diags) => out.push(p),
            _ => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}:{}: not a position", path.display(), i + 1),
                ))
            }
        }
    }
    Ok(out)
}

async fn listen(listener: TcpListener, tx: mpsc::Sender<Inbox>, latencies: Option<Latencies>) {
    let mut next: ConnId = 1;
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CLIENTS));
    loop {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else { return };
        let Ok((stream, peer)) = listener.accept().await else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let id = next;
        next += 1;
        let tx = tx.clone();
        let latencies = latencies.clone();
        tokio::spawn(async move {
            let (read, write) = stream.into_split();
            connection(id, read, write, peer.to_string(), tx, latencies).await;
            drop(permit);
        });
    }
}

/// One client, over TCP or a serial line: a reader (this task) and a
/// writer task. It ends when the client closes, misbehaves, or the
/// director drops it.
async fn connection<R, W>(
    id: ConnId,
    read: R,
    mut write: W,
    peer: String,
    tx: mpsc::Sender<Inbox>,
    latencies: Option<Latencies>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(QUEUE);
    if tx.send(Inbox::Connected { id, tx: out_tx, peer }).await.is_err() {
        return;
    }
    let writer = tokio::spawn(async move {
        while let Some((mut line, since)) = out_rx.recv().await {
            line.push(b'\n');
            let sent = async {
                write.write_all(&line).await?;
                write.flush().await
            };
            match tokio::time::timeout(Duration::from_secs(10), sent).await {
                Ok(Ok(())) => {}
                _ => break,
            }
            if let (Some((read, taken)), Some(l)) = (since, &latencies) {
                let d = (read.elapsed(), taken.elapsed());
                l.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(d);
            }
        }
        let _ = write.shutdown().await;
    });
    let mut writer = writer;
    let mut reader = BufReader::with_capacity(8192, read);
    let mut line = Vec::with_capacity(256);
    let reading = async {
        loop {
            line.clear();
            // The first byte may take as long as it likes (games wait for
            // pairings); the rest of the line must follow promptly.
            let first = match reader.fill_buf().await {
                Ok([]) => break "closed by the client".to_owned(),
                Ok(_) => Instant::now(),
                Err(e) => break format!("read error: {e}"),
            };
            let read_line = async {
                loop {
                    let buf = match reader.fill_buf().await {
                        Ok([]) => return Err("closed in the middle of a line".to_owned()),
                        Ok(b) => b,
                        Err(e) => return Err(format!("read error: {e}")),
                    };
                    if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                        line.extend_from_slice(&buf[..i]);
                        reader.consume(i + 1);
                        return Ok(true);
                    }
                    let n = buf.len();
                    line.extend_from_slice(buf);
                    reader.consume(n);
                    if line.len() > MAX_RECORD + 1 {
                        return Ok(false);
                    }
                }
            };
            match tokio::time::timeout_at((first + LINE_TIMEOUT).into(), read_line).await {
                Ok(Ok(true)) => {
                    if tx.send(Inbox::Line { id, line: line.clone(), at: Instant::now() }).await.is_err() {
                        break "referee stopped".to_owned();
                    }
                }
                Ok(Ok(false)) => {
                    let _ = tx.send(Inbox::TooLong { id }).await;
                    break format!("a line longer than {MAX_RECORD} bytes");
                }
                Ok(Err(why)) => break why,
                Err(_) => break format!("a line unfinished after {} s", LINE_TIMEOUT.as_secs()),
            }
        }
    };
    // The writer ends when the director drops this client (or the client
    // stops reading): then the connection is over.
    let (why, written) = tokio::select! {
        why = reading => (why, false),
        _ = &mut writer => ("dropped by the referee".to_owned(), true),
    };
    let _ = tx.send(Inbox::Closed { id, why }).await;
    // The director drops this client's queue when it hears of the close:
    // the writer then sends what is queued (a fault saying why) and ends.
    // A client that does not read gets two seconds.
    if !written {
        let abort = writer.abort_handle();
        if tokio::time::timeout(Duration::from_secs(2), writer).await.is_err() {
            abort.abort();
        }
    }
}

/// One direction of a serial line, non-blocking, driven by the event
/// loop (no read left pending on a thread when a connection ends).
#[cfg(unix)]
struct Line(tokio::io::unix::AsyncFd<std::fs::File>);

#[cfg(unix)]
impl Line {
    fn new(file: std::fs::File) -> std::io::Result<Line> {
        // SAFETY: the File owns its descriptor, which stays open and the
        // same while the AsyncFd holds it.
        let fd = unsafe { tokio::io::unix::AsyncFd::register(file) };
        Ok(Line(fd.map_err(std::io::Error::from)?))
    }
}

#[cfg(unix)]
impl AsyncRead for Line {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::io::Read as _;
        loop {
            let mut guard = std::task::ready!(self.0.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|f| f.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return std::task::Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return std::task::Poll::Ready(Err(e)),
                Err(_would_block) => {}
            }
        }
    }
}

#[cfg(unix)]
impl AsyncWrite for Line {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        data: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::io::Write as _;
        loop {
            let mut guard = std::task::ready!(self.0.poll_write_ready(cx))?;
            match guard.try_io(|f| f.get_ref().write(data)) {
                Ok(r) => return std::task::Poll::Ready(r),
                Err(_would_block) => {}
            }
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// A serial line (`--serial`): opened in raw mode, its client served as
/// a TCP client is; opened again after it closes or its client is
/// dropped, as a new connection. Line `k` of `n` takes the connection ids
/// k + 1, k + 1 + n, ...
#[cfg(unix)]
async fn serial_line(path: PathBuf, baud: u32, k: u64, n: u64, tx: mpsc::Sender<Inbox>) {
    let mut id = k + 1;
    let mut wait = Duration::from_millis(200);
    loop {
        let opened = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || crate::serial::open_raw(&path, baud)).await
        };
        match opened {
            Ok(Ok(file)) => {
                wait = Duration::from_millis(200);
                let halves = (|| {
                    crate::serial::set_nonblocking(&file)?;
                    Ok::<_, std::io::Error>((Line::new(file.try_clone()?)?, Line::new(file)?))
                })();
                let (read, write) = match halves {
                    Ok(h) => h,
                    Err(e) => {
                        let _ = tx.send(Inbox::Note(format!("{}: {e}", path.display()))).await;
                        return;
                    }
                };
                connection(id, read, write, path.display().to_string(), tx.clone(), None).await;
                id += n;
            }
            Ok(Err(e)) => {
                let _ = tx.send(Inbox::Note(format!("cannot open the serial line {}: {e}", path.display()))).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            Err(_) => return,
        }
        if tx.is_closed() {
            return;
        }
        tokio::time::sleep(wait).await;
    }
}

async fn console(tx: mpsc::Sender<Inbox>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(l)) = lines.next_line().await {
        if tx.send(Inbox::Console(l)).await.is_err() {
            return;
        }
    }
}

/// A connected client.
#[derive(Debug)]
struct Conn {
    tx: mpsc::Sender<Out>,
    peer: String,
    /// The player it signed on as.
    player: Option<usize>,
    /// The game it plays.
    game: Option<usize>,
    /// Not to be sent anything before (reset and conclude delays).
    quiet_until: Instant,
}

/// A game being played.
#[derive(Debug)]
struct Running {
    sched: ScheduledGame,
    game: Game,
    conns: [ConnId; 2],
    /// Waiting for the reset delay to pass before the first respond.
    starts_at: Option<Instant>,
    /// When the side to move was sent its respond.
    asked_at: Option<Instant>,
    /// The connection that respond went to ([`NOBODY`] when none did): a
    /// player back on a new connection is asked again.
    asked_id: ConnId,
    /// The side whose draw offer awaits an answer.
    offer: Option<Color>,
    /// A side away, and when its grace ends.
    away: Option<(Color, Instant)>,
    /// Paused by the supervisor since then: no clock runs, no flag
    /// falls, no grace ends, and a move that arrives is played but the
    /// opponent is not asked until the game resumes.
    paused: Option<Instant>,
    /// The respond held back by a pause: the position before the move
    /// and the move.
    held: Option<(Position, epd_core::Move)>,
}

/// What can fall due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Due {
    /// The side to move's flag in a game.
    Flag(usize),
    /// A game's first respond, after the reset delay.
    Start(usize),
    /// The end of a departed player's grace in a game.
    Away(usize),
    /// A client that has not signed on in time.
    SignOn(ConnId),
    /// The end of a client's quiet time: it may be paired again.
    Quiet(ConnId),
    /// The next heartbeat to the standby.
    Heartbeat,
    /// The oldest held turn waited too long for the standby.
    Ack,
    /// The live display's state is published.
    Publish,
}

struct Director {
    event: Event,
    /// Every deadline, nearest first.
    timers: Timers<Due>,
    /// Something happened that may let a game start (a sign-on, a game
    /// over, a quiet time ended): pair at the end of the turn.
    to_pair: bool,
    openings: Vec<Position>,
    schedule: Vec<ScheduledGame>,
    next_game: usize,
    conns: HashMap<ConnId, Conn>,
    running: BTreeMap<usize, Running>,
    finished: usize,
    /// Schedule indices of the games over.
    done: std::collections::HashSet<usize>,
    standings: Standings,
    log: std::io::BufWriter<std::fs::File>,
    pgn: std::fs::File,
    verbose: bool,
    date: String,
    listen: Option<SocketAddr>,
    quit: bool,
    /// Attach the reply's instant to the respond that answers it.
    measure: bool,
    /// The instants of the reply being answered (read, taken up).
    answering: Option<(Instant, Instant)>,
    /// Where every state change goes first.
    journal: Journal,
    /// This turn's journal entries, synced together at its end
    /// ([`Director::commit`]) before any of its records goes out.
    staged: Vec<Vec<u8>>,
    /// This turn's records for the clients, sent once its entries are
    /// durable.
    outbox: Vec<Queued>,
    /// Connections dropped this turn: their last records (a fault, a
    /// disconnect) still go out at the turn's end, then they close.
    closing: Vec<(ConnId, mpsc::Sender<Out>)>,
    /// A journal write that failed: the event stops with it.
    failure: Option<std::io::Error>,
    /// This run's epoch: one more than the journal's last.
    epoch: u64,
    /// The hot standby following the journal, if one is.
    follower: Option<Follower>,
    /// Turns' records held until the standby has their entries, oldest
    /// first.
    held: std::collections::VecDeque<Held>,
    /// The standby was lost: asking it whether it took over (records
    /// stay held until the answer).
    probing: bool,
    /// A newer referee took the event over: why this one stopped.
    stepped_down: Option<String>,
    /// The director's own inbox, for the tasks it starts.
    me: mpsc::Sender<Inbox>,
    /// Where the live display's state is published, if there is one.
    web: Option<tokio::sync::watch::Sender<Arc<crate::web::Snapshot>>>,
    /// The state changed since it was last published.
    web_dirty: bool,
    /// When it is published next.
    publish_at: Option<Instant>,
    /// The published state's version.
    version: u64,
    /// The games over, for the display.
    ended: Vec<crate::web::FinishedGame>,
}

/// A record queued for a client, and the client's name for the log (none:
/// a line of the standby protocol, not logged).
type Queued = (ConnId, Out, Option<String>);

/// A hot standby ([`crate::standby`]) following the journal.
#[derive(Debug)]
struct Follower {
    id: ConnId,
    /// The last batch of entries sent.
    seq: u64,
    /// How often it hears a heartbeat.
    every: Duration,
    /// Where it would take over.
    listen: String,
}

/// A turn's records, sent once the standby holds the entries up to `seq`.
#[derive(Debug)]
struct Held {
    seq: u64,
    since: Instant,
    outbox: Vec<Queued>,
    closing: Vec<(ConnId, mpsc::Sender<Out>)>,
}

fn side_index(c: Color) -> usize {
    usize::from(c == Color::Black)
}

/// UTC now as `2026-11-23T12:34:56.789Z`, and the PGN date `2026.11.23`.
pub(crate) fn utc_now() -> (String, String) {
    let d = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = secs / 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let rest = secs % 86_400;
    (
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            rest / 3600,
            rest / 60 % 60,
            rest % 60,
            d.subsec_millis()
        ),
        format!("{year:04}.{month:02}.{day:02}"),
    )
}

impl Director {
    fn new(
        event: Event,
        openings: Vec<Position>,
        verbose: bool,
        resume: bool,
        me: mpsc::Sender<Inbox>,
        own: Option<&str>,
    ) -> std::io::Result<Director> {
        let open = |p: &PathBuf| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))
        };
        let schedule = event.schedule(openings.len());
        let (journal, replayed) = if resume {
            let (j, rec) = Journal::open(&event.journal)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
            let replayed = Self::replay(&event, &openings, &schedule, &rec.entries)?;
            if rec.dropped_bytes > 0 && verbose {
                eprintln!("argus: the journal's last entry was torn ({} bytes): dropped", rec.dropped_bytes);
            }
            (j, Some(replayed))
        } else {
            if event.journal.exists() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    format!(
                        "{}: the journal of an earlier run: go on with --resume, or remove it (and the PGN) to start again",
                        event.journal.display()
                    ),
                ));
            }
            let j = Journal::create(&event.journal)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", event.journal.display())))?;
            (j, None)
        };
        if let Some(r) = &replayed {
            // The PGN holds exactly the games over, as they were written:
            // whatever a crash left in it is replaced, atomically.
            let mut tmp = event.pgn.as_os_str().to_owned();
            tmp.push(".resume");
            let tmp = PathBuf::from(tmp);
            std::fs::write(&tmp, r.pgn.concat())
                .and_then(|()| std::fs::rename(&tmp, &event.pgn))
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", event.pgn.display())))?;
        }
        let log = std::io::BufWriter::new(open(&event.log)?);
        let pgn = open(&event.pgn)?;
        let mut standings = Standings::new(event.players.iter().map(|p| p.name.clone()).collect());
        let date = replayed
            .as_ref()
            .and_then(|r| r.date.clone())
            .or_else(|| event.date.clone())
            .unwrap_or_else(|| utc_now().1);
        let mut d = Director {
            event,
            timers: Timers::new(),
            to_pair: true,
            openings,
            schedule,
            next_game: 0,
            conns: HashMap::new(),
            running: BTreeMap::new(),
            finished: 0,
            done: std::collections::HashSet::new(),
            standings: Standings::new(Vec::new()),
            log,
            pgn,
            verbose,
            date,
            listen: None,
            quit: false,
            measure: false,
            answering: None,
            journal,
            staged: Vec::new(),
            outbox: Vec::new(),
            closing: Vec::new(),
            failure: None,
            epoch: replayed.as_ref().map_or(0, |r| r.epoch) + 1,
            follower: None,
            held: std::collections::VecDeque::new(),
            probing: false,
            stepped_down: None,
            me,
            web: None,
            web_dirty: true,
            publish_at: None,
            version: 0,
            ended: Vec::new(),
        };
        let epoch = d.epoch;
        if let Some(r) = &replayed {
            // The standby the journal names may have taken over while this
            // referee was down, or may be about to: nothing goes out until
            // it follows again or cannot have.
            if let (Some((listen, beat)), Some(own)) = (&r.standby, own) {
                if listen != own {
                    d.note(&format!("the journal names a standby at {listen}: holding records until it answers"));
                    d.watch_standby(listen.clone(), *beat + crate::standby::ACK_TIMEOUT * 2);
                }
            }
        }
        if let Some(r) = replayed {
            for (w, b, res) in r.results {
                standings.add(w, b, res);
            }
            d.finished = r.done.len();
            d.done = r.done.into_iter().collect();
            d.ended = r.ended;
            let now = Instant::now();
            let until = now + d.event.disconnect_grace;
            for (k, (game, offer)) in r.running {
                let sched = d.schedule[k];
                let paused = r.paused.contains(&k).then_some(now);
                d.running.insert(
                    k,
                    Running {
                        sched,
                        game,
                        conns: [NOBODY, NOBODY],
                        starts_at: None,
                        asked_at: None,
                        asked_id: NOBODY,
                        offer,
                        // Both players must sign on again within the grace.
                        away: Some((Color::White, until)),
                        paused,
                        held: None,
                    },
                );
                d.rearm(k);
            }
        }
        d.standings = standings;
        let begin = Entry::Begin { epoch, event: d.event.name.clone(), games: d.schedule.len(), date: d.date.clone() };
        d.write_ahead(&begin);
        d.commit();
        if let Some(e) = d.failure.take() {
            return Err(e);
        }
        if epoch > 1 {
            let n = d.running.len();
            d.note(&format!(
                "resumed from the journal (epoch {epoch}): {} games over, {n} in progress, {} to play",
                d.finished,
                d.schedule.len() - d.finished - n
            ));
            // Games whose last move ended them, with the crash before
            // their end was written: ended now, as they would have been.
            let ended: Vec<(usize, Ended)> =
                d.running.iter().filter_map(|(&k, r)| r.game.ended().cloned().map(|e| (k, e))).collect();
            for (k, e) in ended {
                d.finish(k, e);
            }
            d.commit();
        }
        Ok(d)
    }

    /// Reads the journal's entries back into the games over and the games
    /// in progress.
    fn replay(
        event: &Event,
        openings: &[Position],
        schedule: &[ScheduledGame],
        entries: &[Vec<u8>],
    ) -> std::io::Result<Replayed> {
        let path = &event.journal;
        let mut r = Replayed {
            epoch: 0,
            date: None,
            done: Vec::new(),
            results: Vec::new(),
            pgn: Vec::new(),
            ended: Vec::new(),
            running: BTreeMap::new(),
            paused: std::collections::BTreeSet::new(),
            standby: None,
        };
        for (i, bytes) in entries.iter().enumerate() {
            let n = i + 1;
            let entry: Entry = serde_json::from_slice(bytes).map_err(|e| bad_journal(path, n, e))?;
            let scheduled = |k: usize| schedule.get(k).copied().ok_or_else(|| bad_journal(path, n, "no such game"));
            match entry {
                Entry::Begin { epoch, event: name, games, date } => {
                    if name != event.name || games != schedule.len() {
                        return Err(bad_journal(
                            path,
                            n,
                            format!("the journal of event {name:?} with {games} games, not of this event file"),
                        ));
                    }
                    r.epoch = epoch;
                    r.date.get_or_insert(date);
                }
                Entry::Start { game } => {
                    let sched = scheduled(game)?;
                    let start = sched.opening.map_or_else(Position::startpos, |o| openings[o]);
                    r.running.insert(game, (Game::new(start, &event.time_control), None));
                }
                Entry::Move { game, uci, ns, offer } => {
                    let Some((g, o)) = r.running.get_mut(&game) else {
                        return Err(bad_journal(path, n, "a move of a game not in progress"));
                    };
                    let side = g.position().turn();
                    let mv = g.position().parse_uci(uci.as_bytes()).map_err(|e| bad_journal(path, n, e))?;
                    g.play(mv, Duration::from_nanos(ns)).map_err(|e| bad_journal(path, n, e))?;
                    *o = offer.then_some(side);
                }
                Entry::End { game, white, black, result, pgn } => {
                    let res = match result.as_str() {
                        "1-0" => GameResult::WhiteWins,
                        "0-1" => GameResult::BlackWins,
                        "1/2-1/2" => GameResult::Draw,
                        _ => return Err(bad_journal(path, n, format!("a result {result:?}"))),
                    };
                    let sched = scheduled(game)?;
                    let tag = |name: &str| {
                        let key = format!("[{name} \"");
                        pgn.find(&key).and_then(|i| pgn[i + key.len()..].split('"').next()).map(str::to_owned)
                    };
                    r.ended.push(crate::web::FinishedGame {
                        number: sched.number,
                        white: event.players.get(white).map_or_else(String::new, |p| p.name.clone()),
                        black: event.players.get(black).map_or_else(String::new, |p| p.name.clone()),
                        result: result.clone(),
                        termination: tag("Termination").unwrap_or_default(),
                        plies: tag("PlyCount").and_then(|n| n.parse().ok()).unwrap_or(0),
                    });
                    r.running.remove(&game);
                    r.paused.remove(&game);
                    r.done.push(game);
                    r.results.push((white, black, res));
                    r.pgn.push(pgn);
                }
                Entry::Abort { game } => {
                    r.running.remove(&game);
                    r.paused.remove(&game);
                }
                Entry::Pause { game } => {
                    if r.running.contains_key(&game) {
                        r.paused.insert(game);
                    }
                }
                Entry::Unpause { game } => {
                    r.paused.remove(&game);
                }
                Entry::Standby { listen, heartbeat_ms } => {
                    r.standby = Some((listen, Duration::from_millis(heartbeat_ms)));
                }
            }
        }
        Ok(r)
    }

    /// Stages `entry` for the journal: it is made durable at the end of
    /// the turn, before any record of the turn goes out (group commit: one
    /// sync per turn, however many moves the turn took up).
    fn write_ahead(&mut self, entry: &Entry) {
        match serde_json::to_vec(entry) {
            Ok(bytes) => self.staged.push(bytes),
            Err(e) => self.fail(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        }
    }

    /// Ends a turn: syncs its journal entries, then sends its records. If
    /// the journal cannot be written, nothing of the turn goes out and the
    /// event stops: nothing may be acted on that the journal does not hold.
    /// With a hot standby, the entries go to it too, and the records wait
    /// until it has acknowledged them (or is gone, and has not taken
    /// over).
    fn commit(&mut self) {
        let staged = std::mem::take(&mut self.staged);
        if !staged.is_empty() && self.failure.is_none() {
            let entries: Vec<&[u8]> = staged.iter().map(Vec::as_slice).collect();
            if let Err(e) = self.journal.append_all(&entries) {
                self.fail(e);
            }
        }
        if self.failure.is_some() || self.stepped_down.is_some() {
            self.outbox.clear();
            self.closing.clear();
            return;
        }
        let outbox = std::mem::take(&mut self.outbox);
        let closing = std::mem::take(&mut self.closing);
        if !staged.is_empty() {
            self.replicate(&staged);
        }
        let waiting = self.follower.is_some() || self.probing;
        if waiting && (!staged.is_empty() || !self.held.is_empty()) {
            let seq = self.follower.as_ref().map_or(u64::MAX, |f| f.seq);
            let since = Instant::now();
            if self.held.is_empty() && self.follower.is_some() {
                self.timers.set(Due::Ack, Some(since + crate::standby::ACK_TIMEOUT));
            }
            self.held.push_back(Held { seq, since, outbox, closing });
            return;
        }
        self.deliver(outbox, closing);
    }

    /// Sends a turn's records (a client whose queue is full is not
    /// reading, and is dropped); then drops the senders of the clients
    /// that closed, which ends their writers once they have written what
    /// they hold.
    /// A record is logged as it goes out: one held for the standby and
    /// then dropped (this referee stepped down) never shows as sent.
    fn deliver(&mut self, outbox: Vec<Queued>, closing: Vec<(ConnId, mpsc::Sender<Out>)>) {
        for (id, out, who) in outbox {
            let tx = match self.conns.get(&id) {
                Some(c) => Some(&c.tx),
                None => closing.iter().find(|(c, _)| *c == id).map(|(_, tx)| tx),
            };
            if let (Some(who), Some(_)) = (&who, tx) {
                let (now, _) = utc_now();
                let _ = writeln!(self.log, "{now} {who} > {}", String::from_utf8_lossy(&out.0));
            }
            let full = tx.is_some_and(|tx| tx.try_send(out).is_err());
            if full && self.conns.contains_key(&id) {
                let who = self.name_of(id);
                self.note(&format!("{who}: not reading its records; dropped"));
                self.drop_conn(id, "not reading");
            }
        }
        drop(closing);
    }

    /// Sends the held turns whose entries the standby holds (`upto`).
    fn release(&mut self, upto: u64) {
        while self.held.front().is_some_and(|h| h.seq <= upto) {
            let h = self.held.pop_front().expect("a front");
            self.deliver(h.outbox, h.closing);
        }
        let next = match (&self.follower, self.held.front()) {
            (Some(_), Some(h)) => Some(h.since + crate::standby::ACK_TIMEOUT),
            _ => None,
        };
        self.timers.set(Due::Ack, next);
    }

    /// Sends a turn's entries to the standby, as one batch.
    fn replicate(&mut self, staged: &[Vec<u8>]) {
        let Some(f) = self.follower.as_mut() else { return };
        f.seq += 1;
        let mut msg = Vec::with_capacity(staged.iter().map(|e| e.len() + 3).sum::<usize>() + 24);
        for e in staged {
            msg.extend_from_slice(b"J ");
            msg.extend_from_slice(e);
            msg.push(b'\n');
        }
        msg.extend_from_slice(format!("C {}", f.seq).as_bytes());
        self.tell_follower(msg);
    }

    /// Queues a line for the standby (not logged); a standby that does not
    /// read is dropped.
    fn tell_follower(&mut self, msg: Vec<u8>) {
        let Some(f) = &self.follower else { return };
        let id = f.id;
        let sent = self.conns.get(&id).is_some_and(|c| c.tx.try_send((msg, None)).is_ok());
        if !sent {
            self.note("the standby is not reading the journal; dropped");
            self.drop_conn(id, "standby not reading");
        }
    }

    /// The standby's connection is gone (or it stopped acknowledging): it
    /// may be taking over. Its answer to a probe decides whether the held
    /// records go out (it is a standby still, or gone) or this referee
    /// steps down (it took over).
    fn follower_lost(&mut self) {
        let Some(f) = self.follower.take() else { return };
        self.timers.set(Due::Heartbeat, None);
        self.timers.set(Due::Ack, None);
        self.note(&format!("the standby at {} is gone; asking whether it took over", f.listen));
        self.watch_standby(f.listen, Duration::ZERO);
    }

    /// Holds every record and asks the standby at `listen` for its epoch,
    /// again and again for `patience`: its answer (it took over: step
    /// down), a standby that follows again (its acknowledgements release
    /// the records), or no answer for that long (it is gone, or would
    /// answer: go on without it) decides.
    fn watch_standby(&mut self, listen: String, patience: Duration) {
        self.probing = true;
        let token = self.event.supervisor_token.clone().unwrap_or_default();
        let me = self.me.clone();
        tokio::spawn(async move {
            let start = Instant::now();
            loop {
                let epoch = crate::standby::probe(&listen, &token).await;
                if epoch.is_some() || start.elapsed() >= patience {
                    let _ = me.send(Inbox::Probed(epoch)).await;
                    return;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
    }

    /// Leaves the event to a referee with a newer epoch: nothing more is
    /// written or sent.
    fn step_down(&mut self, why: String) {
        self.note(&why);
        let held: usize = self.held.iter().map(|h| h.outbox.len()).sum();
        if held > 0 {
            self.note(&format!("{held} records held for the standby are not sent"));
        }
        self.held.clear();
        self.stepped_down = Some(why);
        self.quit = true;
    }

    /// A line from a standby, or from a referee that took over.
    fn on_hello(&mut self, id: ConnId, line: &[u8]) {
        use crate::standby::Hello;
        let hello = crate::standby::parse_hello(line, self.event.supervisor_token.as_deref());
        let peer = self.conns.get(&id).map(|c| c.peer.clone()).unwrap_or_default();
        self.timers.set(Due::SignOn(id), None);
        match hello {
            Err(why) => {
                self.note(&format!("#{id} from {peer}: refused: {why}"));
                self.outbox.push((id, (format!("F {why}").into_bytes(), None), None));
                self.drop_conn(id, "refused standby");
            }
            Ok(Hello::Probe) => {
                self.outbox.push((id, (format!("P {}", self.epoch).into_bytes(), None), None));
                self.drop_conn(id, "probed");
            }
            Ok(Hello::Yield { epoch }) => {
                if self.epoch <= epoch {
                    // The answer goes out now: nothing else of this turn
                    // will.
                    if let Some(c) = self.conns.get(&id) {
                        let _ = c.tx.try_send((b"D".to_vec(), None));
                    }
                    self.drop_conn(id, "yielded");
                    self.step_down(format!(
                        "the referee at {peer} took the event over (epoch {epoch}; this one's is {}): stepping down",
                        self.epoch
                    ));
                } else {
                    self.outbox.push((id, (format!("P {}", self.epoch).into_bytes(), None), None));
                    self.drop_conn(id, "refused yield");
                }
            }
            Ok(Hello::Follow { listen, heartbeat }) => {
                if let Some(old) = self.follower.take() {
                    self.drop_conn(old.id, "replaced by a new standby");
                }
                // A standby listening on every interface is reached at
                // the address it came from.
                let listen = match (listen.parse::<SocketAddr>(), peer.parse::<SocketAddr>()) {
                    (Ok(l), Ok(p)) if l.ip().is_unspecified() => SocketAddr::new(p.ip(), l.port()).to_string(),
                    _ => listen,
                };
                let entries = match crate::journal::read_entries(self.journal.path()) {
                    Ok(e) => e,
                    Err(e) => {
                        self.note(&format!("cannot read the journal for a standby: {e}"));
                        self.drop_conn(id, "journal unreadable");
                        return;
                    }
                };
                let mut msg = b"R\n".to_vec();
                for e in &entries {
                    msg.extend_from_slice(b"J ");
                    msg.extend_from_slice(e);
                    msg.push(b'\n');
                }
                msg.extend_from_slice(b"C 0");
                let every = heartbeat / 4;
                self.follower = Some(Follower { id, seq: 0, every, listen: listen.clone() });
                // Whatever was held waits for this one's copy now.
                for h in &mut self.held {
                    h.seq = 0;
                }
                if let Some(h) = self.held.front() {
                    self.timers.set(Due::Ack, Some(h.since.max(Instant::now()) + crate::standby::ACK_TIMEOUT));
                }
                self.tell_follower(msg);
                self.timers.set(Due::Heartbeat, Some(Instant::now() + every));
                self.note(&format!(
                    "#{id} from {peer}: a standby follows the journal ({} entries so far); it would take over at {listen}",
                    entries.len()
                ));
                let heartbeat_ms = u64::try_from(heartbeat.as_millis()).unwrap_or(u64::MAX);
                self.write_ahead(&Entry::Standby { listen, heartbeat_ms });
            }
        }
    }

    /// Publishes the display's state at most ten times a second.
    fn schedule_publish(&mut self) {
        if self.web.is_some() && self.web_dirty && self.publish_at.is_none() {
            let at = Instant::now() + Duration::from_millis(100);
            self.publish_at = Some(at);
            self.timers.set(Due::Publish, Some(at));
        }
    }

    /// The PGN tags of a game in progress or just over.
    fn pgn_tags(&self, r: &Running) -> Tags {
        let round = match &self.event.round {
            Some(p) => format!("{p}.{}", r.sched.number),
            None => format!("{}.{}", r.sched.cycle, r.sched.number),
        };
        Tags {
            event: self.event.name.clone(),
            site: self.event.site.clone(),
            date: self.date.clone(),
            round,
            white: self.event.players[r.sched.white].name.clone(),
            black: self.event.players[r.sched.black].name.clone(),
        }
    }

    /// Publishes the live display's state (`live`: the event goes on).
    fn publish(&mut self, live: bool) {
        use crate::web::{LiveGame, Snapshot, Standing, State};
        if self.web.is_none() {
            return;
        }
        self.web_dirty = false;
        self.version += 1;
        let now = Instant::now();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let side = |c: Color| if c == Color::White { "white" } else { "black" };
        let mut live_pgn = String::new();
        let mut running = Vec::with_capacity(self.running.len());
        for r in self.running.values() {
            let g = &r.game;
            let last = g.moves().last().map(|m| {
                let to = if m.mv.is_castle() { m.mv.king_destination() } else { m.mv.to() };
                [m.mv.from().to_string(), to.to_string()]
            });
            let ticking = r.paused.is_none() && r.away.is_none() && r.starts_at.is_none() && g.ended().is_none();
            let tags = self.pgn_tags(r);
            live_pgn.push_str(&pgn::write(&tags, g, &self.event.time_control));
            running.push(LiveGame {
                number: r.sched.number,
                round: tags.round,
                white: tags.white,
                black: tags.black,
                start: g.start().fen(),
                fen: g.position().fen(),
                moves: g.moves().iter().map(|m| m.san.clone()).collect(),
                last,
                turn: side(g.position().turn()),
                white_ms: ms(g.clock(Color::White).remaining()),
                black_ms: ms(g.clock(Color::Black).remaining()),
                thinking_ms: r.asked_at.filter(|_| ticking).map(|t| ms(now.saturating_duration_since(t))),
                paused: r.paused.is_some(),
                away: r.away.map(|(c, _)| side(c)),
            });
        }
        running.sort_by_key(|g| g.number);
        let standings = self
            .standings
            .order()
            .into_iter()
            .map(|i| {
                let [wins, draws, losses] = self.standings.wdl(i);
                Standing {
                    name: self.standings.name(i).to_owned(),
                    points: f64::from(self.standings.half_points(i)) / 2.0,
                    games: self.standings.games(i),
                    wins,
                    draws,
                    losses,
                }
            })
            .collect();
        let state = State {
            version: self.version,
            event: self.event.name.clone(),
            site: self.event.site.clone(),
            time_control: self.event.time_control.to_string(),
            epoch: self.epoch,
            games: self.schedule.len(),
            finished_count: self.finished,
            live,
            running,
            finished: self.ended[self.ended.len().saturating_sub(500)..].to_vec(),
            standings,
            supervised: self.event.supervisor_token.is_some(),
        };
        let json = serde_json::to_string(&state).unwrap_or_default();
        if let Some(tx) = &self.web {
            tx.send_replace(Arc::new(Snapshot { json, live_pgn }));
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        let msg = format!("{}: cannot write the journal: {e}", self.journal.path().display());
        let _ = writeln!(self.log, "{} referee {msg}; the event stops", utc_now().0);
        eprintln!("argus: {msg}; the event stops");
        self.failure.get_or_insert(std::io::Error::new(e.kind(), msg));
        self.quit = true;
    }

    fn note(&mut self, text: &str) {
        let (now, _) = utc_now();
        let _ = writeln!(self.log, "{now} referee {text}");
        if self.verbose {
            eprintln!("argus: {text}");
        }
    }

    fn name_of(&self, id: ConnId) -> String {
        match self.conns.get(&id).and_then(|c| c.player) {
            Some(p) => format!("#{id} {}", self.event.players[p].name),
            None => format!("#{id}"),
        }
    }

    /// Sends a record to a client (logged); a client whose queue is full
    /// is not reading and is dropped.
    fn send(&mut self, id: ConnId, line: Vec<u8>) {
        if !self.conns.contains_key(&id) && !self.closing.iter().any(|(c, _)| *c == id) {
            return; // a side away, or a game resumed before its players came back
        }
        let who = self.name_of(id);
        let answering = self.answering.take();
        self.outbox.push((id, (line, answering), Some(who)));
    }

    fn fault(&mut self, id: ConnId, pos: &Position, why: &str) {
        let mut o = Outgoing::new(Command::Fault, pos);
        o.message = Some(why);
        let line = o.to_line();
        let who = self.name_of(id);
        self.note(&format!("{who}: fault: {why}"));
        self.send(id, line);
    }

    async fn run(&mut self, mut rx: mpsc::Receiver<Inbox>) -> std::io::Result<Outcome> {
        self.note(&format!(
            "event {:?}: {} players, {} games, time control {}",
            self.event.name,
            self.event.players.len(),
            self.schedule.len(),
            self.event.time_control
        ));
        while !self.quit && self.finished < self.schedule.len() {
            let deadline = self.next_deadline();
            let msg = match deadline {
                Some(d) => match tokio::time::timeout_at(d.into(), rx.recv()).await {
                    Ok(m) => m,
                    Err(_) => {
                        self.tick(Instant::now());
                        self.commit();
                        self.schedule_publish();
                        let _ = self.log.flush();
                        continue;
                    }
                },
                None => rx.recv().await,
            };
            let Some(msg) = msg else { break };
            self.handle(msg);
            // Whatever else is waiting is taken in the same turn (at most
            // a bounded batch), so the per-turn work below (deadlines,
            // pairing, the log flush) is shared by a busy inbox.
            for _ in 0..BATCH {
                match rx.try_recv() {
                    Ok(m) => self.handle(m),
                    Err(_) => break,
                }
            }
            self.tick(Instant::now());
            // The turn's journal entries are synced, then its records go
            // out; its log lines reach the file before the next turn.
            self.commit();
            self.schedule_publish();
            let _ = self.log.flush();
        }
        if let Some(why) = self.stepped_down.take() {
            // Clients are not told to disconnect (they would stop): their
            // connections close with this referee, and they fail over.
            let _ = self.log.flush();
            return Err(std::io::Error::other(why));
        }
        // The end: standings, then everyone is told to disconnect; the
        // standby hears that the event is over (or stopped).
        self.release(u64::MAX);
        self.tell_follower(if self.finished < self.schedule.len() { b"Q".to_vec() } else { b"E".to_vec() });
        if let Some(f) = self.follower.take() {
            if let Some(c) = self.conns.remove(&f.id) {
                self.closing.push((f.id, c.tx));
            }
        }
        self.publish(false);
        let report = self.standings.report();
        let header = format!(
            "{}\n{} games of {}; time control {}\n\n",
            self.event.name,
            self.finished,
            self.schedule.len(),
            self.event.time_control
        );
        std::fs::write(&self.event.report, format!("{header}{report}"))
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", self.event.report.display())))?;
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        let pos = Position::startpos();
        for id in ids {
            let line = Outgoing::new(Command::Disconnect, &pos).to_line();
            self.send(id, line);
        }
        self.commit();
        self.note("event over");
        self.log.flush()?;
        // Let the writers drain.
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(Outcome { games: self.finished, report, latencies: Vec::new() })
    }

    fn handle(&mut self, msg: Inbox) {
        self.web_dirty = true;
        match msg {
            Inbox::Bound(a) => {
                self.listen = Some(a);
                self.note(&format!("listening on {a}"));
            }
            Inbox::Connected { id, tx, peer } => {
                let now = Instant::now();
                self.note(&format!("#{id} connected from {peer}"));
                self.conns.insert(id, Conn { tx, peer, player: None, game: None, quiet_until: now });
                self.timers.set(Due::SignOn(id), Some(now + SIGN_ON_TIMEOUT));
            }
            Inbox::Line { id, line, at } => {
                if self.follower.as_ref().is_some_and(|f| f.id == id) {
                    // The standby acknowledges a batch.
                    let seq = line.strip_prefix(b"A ").and_then(|n| std::str::from_utf8(n).ok()?.parse::<u64>().ok());
                    match seq {
                        Some(n) if self.follower.as_ref().is_some_and(|f| n <= f.seq) => self.release(n),
                        _ => self.drop_conn(id, "a standby line that is not an acknowledgement"),
                    }
                    return;
                }
                if line.starts_with(crate::standby::HELLO) && self.conns.get(&id).is_some_and(|c| c.player.is_none()) {
                    self.on_hello(id, &line);
                    return;
                }
                let (now, _) = utc_now();
                let who = self.name_of(id);
                let _ = writeln!(self.log, "{now} {who} < {}", escaped(&line));
                self.on_line(id, &line, at);
            }
            Inbox::TooLong { id } => {
                let pos = Position::startpos();
                self.fault(id, &pos, &format!("a line longer than {MAX_RECORD} bytes; disconnected"));
                self.drop_conn(id, "over-long line");
            }
            Inbox::Closed { id, why } => {
                if self.conns.contains_key(&id) {
                    let who = self.name_of(id);
                    self.note(&format!("{who} disconnected: {why}"));
                    self.drop_conn(id, &why);
                }
            }
            Inbox::Console(cmd) => self.on_console(&cmd),
            Inbox::Note(text) => self.note(&text),
            Inbox::Probed(answer) => {
                if !std::mem::take(&mut self.probing) {
                    return;
                }
                match answer {
                    // A standby that follows answers no probe: an answer
                    // at this epoch or a newer one is a take-over (ties
                    // go to the one that took over, as with yield).
                    Some(n) if n >= self.epoch => self.step_down(format!(
                        "the standby took the event over (epoch {n}; this one's is {}): stepping down",
                        self.epoch
                    )),
                    // It follows again: its acknowledgements release.
                    _ if self.follower.is_some() => {}
                    _ => {
                        self.note("the standby did not take over; going on without it");
                        self.release(u64::MAX);
                    }
                }
            }
            Inbox::Supervisor(cmd, from) => {
                self.note(&format!("supervisor (web, {from}): {cmd}"));
                self.on_console(&cmd);
            }
            Inbox::Fenced(crate::standby::Fenced::Yielded) => self.note("the old primary stepped down"),
            Inbox::Fenced(crate::standby::Fenced::Newer(n)) => self.step_down(format!(
                "the old primary has a newer epoch ({n}; this one's is {}): stepping down",
                self.epoch
            )),
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.timers.next()
    }

    /// Sets game `k`'s deadlines from its state: its flag, its start, its
    /// departed player's grace (none while it is paused or over).
    fn rearm(&mut self, k: usize) {
        let (flag, start, away) = match self.running.get(&k) {
            Some(r) if r.paused.is_none() => (self.flag_time(r), r.starts_at, r.away.map(|(_, t)| t)),
            _ => (None, None, None),
        };
        self.timers.set(Due::Flag(k), flag);
        self.timers.set(Due::Start(k), start);
        self.timers.set(Due::Away(k), away);
    }

    /// Sets client `id`'s quiet time; it may be paired when it ends.
    fn quiet(&mut self, id: ConnId, until: Instant) {
        self.to_pair = true;
        if let Some(c) = self.conns.get_mut(&id) {
            c.quiet_until = until;
            self.timers.set(Due::Quiet(id), Some(until));
        }
    }

    /// When the side to move's flag falls.
    fn flag_time(&self, r: &Running) -> Option<Instant> {
        let asked = r.asked_at?;
        if r.game.ended().is_some() || r.away.is_some() || r.paused.is_some() {
            return None;
        }
        let side = r.game.position().turn();
        Some(asked + r.game.clock(side).remaining() + self.event.lag)
    }

    /// Acts on what has fallen due (each checked against the state: a
    /// deadline is only a reminder), then pairs.
    fn tick(&mut self, now: Instant) {
        for due in self.timers.take_due(now) {
            match due {
                Due::SignOn(id) => {
                    if self.conns.get(&id).is_some_and(|c| c.player.is_none()) {
                        let pos = Position::startpos();
                        self.fault(id, &pos, "no sign_on in time");
                        self.drop_conn(id, "no sign_on");
                    }
                }
                Due::Flag(k) => {
                    if self.running.get(&k).and_then(|r| self.flag_time(r)).is_some_and(|t| now >= t) {
                        let r = self.running.get_mut(&k).expect("running");
                        let side = r.game.position().turn();
                        let e = r.game.flag(side);
                        self.finish(k, e);
                    }
                }
                Due::Away(k) => {
                    let Some(r) = self.running.get_mut(&k) else { continue };
                    if let (Some((side, until)), None) = (r.away, r.paused) {
                        if now >= until {
                            let e = r.game.abandon(side);
                            self.finish(k, e);
                        }
                    }
                }
                Due::Start(k) => {
                    let Some(r) = self.running.get(&k) else { continue };
                    if r.paused.is_none() && r.starts_at.is_some_and(|t| now >= t) {
                        self.begin(k, now);
                    }
                }
                Due::Quiet(_) => self.to_pair = true,
                Due::Heartbeat => {
                    if let Some(every) = self.follower.as_ref().map(|f| f.every) {
                        self.tell_follower(b"H".to_vec());
                        self.timers.set(Due::Heartbeat, Some(now + every));
                    }
                }
                Due::Publish => {
                    self.publish_at = None;
                    self.publish(true);
                }
                Due::Ack => {
                    let late = self.held.front().is_some_and(|h| now >= h.since + crate::standby::ACK_TIMEOUT);
                    if let (true, Some(id)) = (late, self.follower.as_ref().map(|f| f.id)) {
                        self.note("the standby did not acknowledge the journal in time; dropped");
                        self.drop_conn(id, "standby too slow");
                    }
                }
            }
        }
        if std::mem::take(&mut self.to_pair) {
            // A fresh instant: games finished above freed their clients
            // just now.
            self.pair(Instant::now());
        }
    }

    /// Starts every game the schedule, the free clients and the
    /// concurrency allow.
    fn pair(&mut self, now: Instant) {
        self.reattach(now);
        while self.running.len() < self.event.concurrency as usize && self.next_game < self.schedule.len() {
            // The first scheduled game whose players both have a free
            // client; games are started in schedule order otherwise.
            let mut started = false;
            for k in self.next_game..self.schedule.len() {
                if self.running.contains_key(&k) || self.is_done(k) {
                    continue;
                }
                let g = self.schedule[k];
                let free = |p: usize, except: Option<ConnId>| {
                    self.conns
                        .iter()
                        .filter(|(&id, c)| {
                            c.player == Some(p) && c.game.is_none() && c.quiet_until <= now && Some(id) != except
                        })
                        .map(|(&id, _)| id)
                        .min()
                };
                let Some(w) = free(g.white, None) else { continue };
                let Some(b) = free(g.black, Some(w)) else { continue };
                self.start(k, w, b, now);
                started = true;
                break;
            }
            if !started {
                break;
            }
        }
        while self.next_game < self.schedule.len() && self.is_done(self.next_game) {
            self.next_game += 1;
        }
    }

    /// Gives the games that miss a player (resumed from the journal, or
    /// a client dropped out) a free client of that player, and brings it
    /// into the game: reset, inform, one execute per move played, and a
    /// respond when it is its turn. The clocks stay stopped until both
    /// sides are there.
    fn reattach(&mut self, now: Instant) {
        let missing: Vec<(usize, usize)> = self
            .running
            .iter()
            .flat_map(|(&k, r)| (0..2).filter(|&s| r.conns[s] == NOBODY).map(move |s| (k, s)))
            .collect();
        for (k, s) in missing {
            let (player, other) = {
                let r = &self.running[&k];
                (if s == 0 { r.sched.white } else { r.sched.black }, r.conns[1 - s])
            };
            let Some(id) = self
                .conns
                .iter()
                .filter(|(&id, c)| c.player == Some(player) && c.game.is_none() && c.quiet_until <= now && id != other)
                .map(|(&id, _)| id)
                .min()
            else {
                continue;
            };
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = Some(k);
            }
            let r = self.running.get_mut(&k).expect("running");
            r.conns[s] = id;
            let number = r.sched.number;
            if other == NOBODY {
                // Still waiting for the other side, within the same grace.
                if let Some((_, until)) = r.away {
                    r.away = Some((if s == 0 { Color::Black } else { Color::White }, until));
                }
                self.bring_back(k, id, now);
                self.rearm(k);
            } else {
                r.away = None;
                self.bring_back(k, id, now);
            }
            self.note(&format!("game {number}: {} is back", self.name_of(id)));
        }
    }

    /// Tells client `id` the game `k` so far; asks the side to move when
    /// both sides are there.
    fn bring_back(&mut self, k: usize, id: ConnId, now: Instant) {
        let (tags, start, number, moves, both, started) = {
            let r = &self.running[&k];
            let moves: Vec<epd_core::Move> = r.game.moves().iter().map(|m| m.mv).collect();
            (
                self.tags(r, "*"),
                *r.game.start(),
                r.sched.number as u64,
                moves,
                !r.conns.contains(&NOBODY),
                r.starts_at.is_none(),
            )
        };
        let mut o = Outgoing::new(Command::Reset, &start);
        o.game = Some(number);
        let line = o.to_line();
        self.send(id, line);
        if !started {
            return; // the game's own start (inform, respond) is still to come
        }
        let mut o = Outgoing::new(Command::Inform, &start);
        o.tags = &tags;
        o.game = Some(number);
        let line = o.to_line();
        self.send(id, line);
        // Every move but the last as execute; the last comes with the
        // respond (or as execute when it is the other side's turn).
        let mut pos = start;
        let mut last = None;
        for (i, &m) in moves.iter().enumerate() {
            if i + 1 == moves.len() {
                last = Some((pos, m));
                break;
            }
            let mut o = Outgoing::new(Command::Execute, &pos);
            o.sm = Some(m);
            o.game = Some(number);
            let line = o.to_line();
            self.send(id, line);
            pos.play_unchecked(m);
        }
        let (mover, asked_id) = {
            let r = &self.running[&k];
            (r.conns[side_index(r.game.position().turn())], r.asked_id)
        };
        if mover != id {
            // The other side moves: this one learns the last move now.
            if let Some((p, m)) = last {
                let mut o = Outgoing::new(Command::Execute, &p);
                o.sm = Some(m);
                o.game = Some(number);
                let line = o.to_line();
                self.send(id, line);
            }
        }
        // With both sides there, the side to move is asked unless its
        // present connection already was (a respond sent to a connection
        // since gone, or to nobody, counts for nothing).
        if both && asked_id != mover {
            self.ask(k, last, now);
        }
    }

    fn is_done(&self, k: usize) -> bool {
        self.done.contains(&k)
    }

    fn start(&mut self, k: usize, white: ConnId, black: ConnId, now: Instant) {
        self.write_ahead(&Entry::Start { game: k });
        if self.failure.is_some() {
            return;
        }
        let sched = self.schedule[k];
        let start = sched.opening.map_or_else(Position::startpos, |i| self.openings[i]);
        let game = Game::new(start, &self.event.time_control);
        for id in [white, black] {
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = Some(k);
            }
            let mut o = Outgoing::new(Command::Reset, &start);
            o.game = Some(sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
        }
        self.note(&format!(
            "game {} starts: {} - {}",
            sched.number, self.event.players[sched.white].name, self.event.players[sched.black].name
        ));
        self.running.insert(
            k,
            Running {
                sched,
                game,
                conns: [white, black],
                starts_at: Some(now + self.event.reset_delay),
                asked_at: None,
                asked_id: NOBODY,
                offer: None,
                away: None,
                paused: None,
                held: None,
            },
        );
        self.rearm(k);
    }

    fn tags(&self, r: &Running, result: &str) -> Vec<(&'static str, String)> {
        let round = self.pgn_tags(r).round;
        vec![
            ("Event", self.event.name.clone()),
            ("Site", self.event.site.clone()),
            ("Date", self.date.clone()),
            ("Round", round),
            ("White", self.event.players[r.sched.white].name.clone()),
            ("Black", self.event.players[r.sched.black].name.clone()),
            ("Result", result.to_owned()),
            ("TimeControl", self.event.time_control.to_string()),
        ]
    }

    /// After the reset delay: the tags, then the first respond.
    fn begin(&mut self, k: usize, now: Instant) {
        let (tags, conns, start) = {
            let r = &self.running[&k];
            (self.tags(r, "*"), r.conns, *r.game.position())
        };
        for id in conns {
            let mut o = Outgoing::new(Command::Inform, &start);
            o.tags = &tags;
            o.game = Some(self.running[&k].sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
        }
        if let Some(r) = self.running.get_mut(&k) {
            r.starts_at = None;
        }
        self.ask(k, None, now);
    }

    /// Sends respond to the side to move: the position before `last` and
    /// `last`, or the position alone.
    fn ask(&mut self, k: usize, last: Option<(Position, epd_core::Move)>, now: Instant) {
        let r = &self.running[&k];
        let side = r.game.position().turn();
        let id = r.conns[side_index(side)];
        let current = *r.game.position();
        let (pos, sm) = match last {
            Some((p, m)) => (p, Some(m)),
            None => (current, None),
        };
        let consumed = |c: Color| r.game.consumed(c);
        let mut o = Outgoing::new(Command::Respond, &pos);
        o.sm = sm;
        o.consumed = Some((consumed(Color::White), consumed(Color::Black)));
        o.remaining = Some((r.game.clock(Color::White).remaining(), r.game.clock(Color::Black).remaining()));
        o.game = Some(r.sched.number as u64);
        o.draw_offer = r.offer == Some(side.other());
        let line = o.to_line();
        self.send(id, line);
        if let Some(r) = self.running.get_mut(&k) {
            r.asked_at = Some(now);
            r.asked_id = id;
        }
        self.rearm(k);
    }

    fn on_line(&mut self, id: ConnId, line: &[u8], at: Instant) {
        let Some(conn) = self.conns.get(&id) else { return };
        let game = conn.game;
        let req = match parse_request(line) {
            Ok(r) => r,
            Err(e) => {
                let pos =
                    game.and_then(|k| self.running.get(&k)).map_or_else(Position::startpos, |r| *r.game.position());
                self.fault(id, &pos, &e.0);
                self.misbehaved(id, &e.0, at);
                return;
            }
        };
        match req {
            Request::SignOn { name, token } => self.sign_on(id, &name, token.as_deref()),
            Request::SignOff => {
                self.note(&format!("{} signs off", self.name_of(id)));
                self.drop_conn(id, "signed off");
            }
            Request::Fault(why) => {
                self.note(&format!("{} reports a fault: {why}", self.name_of(id)));
            }
            Request::Reply(reply) => self.on_reply(id, reply, at),
        }
    }

    fn sign_on(&mut self, id: ConnId, name: &str, token: Option<&str>) {
        let pos = Position::startpos();
        if self.conns.get(&id).is_some_and(|c| c.player.is_some()) {
            self.fault(id, &pos, "already signed on");
            return;
        }
        let Some(p) = self.event.players.iter().position(|pl| pl.name == name) else {
            self.fault(id, &pos, &format!("no player {name:?} in this event"));
            self.drop_conn(id, "unknown player");
            return;
        };
        if let Some(want) = &self.event.players[p].token {
            if token != Some(want.as_str()) {
                self.fault(id, &pos, &format!("sign_on as {name:?} needs its token"));
                self.drop_conn(id, "wrong token");
                return;
            }
        }
        if let Some(c) = self.conns.get_mut(&id) {
            c.player = Some(p);
        }
        self.timers.set(Due::SignOn(id), None);
        self.to_pair = true;
        let peer = self.conns.get(&id).map(|c| c.peer.to_string()).unwrap_or_default();
        self.note(&format!("#{id} signs on as {name} from {peer}"));
        // A player back within its grace finds its game where it was; for
        // now the game is lost when the grace ends (resumption: see the
        // journal).
    }

    /// A record that broke the protocol from `id`: in a game where it is
    /// its turn, the illegal-move policy decides.
    fn misbehaved(&mut self, id: ConnId, why: &str, _at: Instant) {
        let Some(k) = self.conns.get(&id).and_then(|c| c.game) else { return };
        let Some(r) = self.running.get_mut(&k) else { return };
        let side = r.game.position().turn();
        if r.conns[side_index(side)] == id && r.asked_at.is_some() && self.event.illegal_move == Policy::Forfeit {
            let e = r.game.forfeit(side, why.to_owned());
            self.finish(k, e);
        }
    }

    fn on_reply(&mut self, id: ConnId, reply: crate::protocol::Reply, at: Instant) {
        let taken = Instant::now();
        let Some(k) = self.conns.get(&id).and_then(|c| c.game) else {
            let pos = Position::startpos();
            self.fault(id, &pos, "a reply with no game in progress");
            return;
        };
        let lag = self.event.lag;
        let (side, mine, asked, current) = {
            let Some(r) = self.running.get(&k) else { return };
            let side = r.game.position().turn();
            (side, r.conns[side_index(side)] == id, r.asked_at, *r.game.position())
        };
        let opponent_answering_offer = {
            let r = &self.running[&k];
            r.offer.is_some() && r.offer != Some(side) && mine
        };
        if !mine || asked.is_none() {
            // Out of turn: refused; the game is not affected unless the
            // event forfeits protocol breaches.
            self.fault(id, &current, "a reply out of turn");
            if self.event.illegal_move == Policy::Forfeit && self.running.get(&k).is_some_and(|r| r.starts_at.is_none())
            {
                let color = if self.running[&k].conns[0] == id { Color::White } else { Color::Black };
                let e = self.running.get_mut(&k).expect("running").game.forfeit(color, "a reply out of turn");
                self.finish(k, e);
            }
            return;
        }
        // A pause stops the clock: time after it is not charged.
        let stop = self.running.get(&k).and_then(|r| r.paused).map_or(at, |p| p.min(at));
        let used = stop.saturating_duration_since(asked.unwrap_or(at)).saturating_sub(lag);
        // The position must be the game's.
        let same = reply.position.to_setup().board == current.to_setup().board
            && reply.position.turn() == current.turn()
            && reply.position.castling_rights() == current.castling_rights()
            && reply.position.legal_ep_square() == current.legal_ep_square()
            && reply.counters.0.is_none_or(|h| h == current.halfmoves())
            && reply.counters.1.is_none_or(|f| f == current.fullmoves());
        if !same {
            let why = format!("the reply's position is not the game's ({})", current.fen());
            self.fault(id, &current, &why);
            self.misbehaved(id, &why, at);
            return;
        }
        let r = self.running.get_mut(&k).expect("running");
        if reply.resign {
            let e = r.game.resign(side);
            self.finish(k, e);
            return;
        }
        if reply.draw_accept && opponent_answering_offer {
            let e = r.game.agree_draw();
            self.finish(k, e);
            return;
        }
        // Any other answer lapses an offer made to this side.
        if r.offer == Some(side.other()) {
            r.offer = None;
        }
        if reply.draw_claim {
            let mv = reply.mv.map(|m| (m, used));
            for kind in [DrawClaim::Threefold, DrawClaim::FiftyMoves] {
                if let Ok(e) = r.game.claim_draw(side, kind, mv) {
                    self.finish(k, e);
                    return;
                }
            }
            let why = "a draw claim that does not hold (neither threefold repetition nor 50 moves)".to_owned();
            self.fault(id, &current, &why);
            if self.event.false_claim == Policy::Forfeit {
                let e = self.running.get_mut(&k).expect("running").game.forfeit(side, why);
                self.finish(k, e);
                return;
            }
        }
        let Some(mv) = reply.mv else {
            if !reply.draw_claim {
                let why = "a reply with no move, no claim and no resignation";
                self.fault(id, &current, why);
                self.misbehaved(id, why, at);
            }
            return;
        };
        let r = self.running.get_mut(&k).expect("running");
        let before = *r.game.position();
        let played = r.game.play(mv, used);
        if played.is_ok() {
            let entry = Entry::Move {
                game: k,
                uci: before.uci(mv),
                ns: u64::try_from(used.as_nanos()).unwrap_or(u64::MAX),
                offer: reply.draw_offer,
            };
            self.write_ahead(&entry);
            if self.failure.is_some() {
                return;
            }
        }
        let r = self.running.get_mut(&k).expect("running");
        match played {
            Ok(Some(e)) => self.finish(k, e),
            Ok(None) => {
                if reply.draw_offer {
                    r.offer = Some(side);
                }
                if r.paused.is_some() {
                    r.asked_at = None;
                    r.held = Some((before, mv));
                    let n = r.sched.number;
                    self.rearm(k);
                    self.note(&format!("game {n}: {} played during the pause", before.san(mv)));
                    return;
                }
                self.answering = self.measure.then_some((at, taken));
                self.ask(k, Some((before, mv)), Instant::now());
                self.answering = None;
            }
            Err(why) => {
                self.fault(id, &current, &why);
                self.misbehaved(id, &why, at);
            }
        }
    }

    fn finish(&mut self, k: usize, e: Ended) {
        let Some(r) = self.running.get(&k) else { return };
        let result = e.result.pgn();
        let tags = self.tags(r, result);
        let pgn_tags = self.pgn_tags(r);
        let text = pgn::write(&pgn_tags, &r.game, &self.event.time_control);
        let entry =
            Entry::End { game: k, white: r.sched.white, black: r.sched.black, result: result.to_owned(), pgn: text };
        self.write_ahead(&entry);
        if self.failure.is_some() {
            return;
        }
        let Entry::End { pgn: text, .. } = entry else { unreachable!("just built") };
        let Some(r) = self.running.remove(&k) else { return };
        self.rearm(k);
        let fin = *r.game.position();
        let now = Instant::now();
        for id in r.conns {
            if !self.conns.contains_key(&id) {
                continue;
            }
            let mut o = Outgoing::new(Command::Inform, &fin);
            o.tags = &tags;
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            let mut o = Outgoing::new(Command::Conclude, &fin);
            o.game = Some(r.sched.number as u64);
            let line = o.to_line();
            self.send(id, line);
            if let Some(c) = self.conns.get_mut(&id) {
                c.game = None;
            }
            self.quiet(id, now + self.event.conclude_delay);
        }
        if let Err(err) = self.pgn.write_all(text.as_bytes()).and_then(|()| self.pgn.flush()) {
            self.note(&format!("cannot write the PGN: {err}"));
        }
        self.standings.add(r.sched.white, r.sched.black, e.result);
        self.finished += 1;
        self.done.insert(k);
        self.ended.push(crate::web::FinishedGame {
            number: r.sched.number,
            white: self.event.players[r.sched.white].name.clone(),
            black: self.event.players[r.sched.black].name.clone(),
            result: result.to_owned(),
            termination: e.termination.pgn_tag().to_owned(),
            plies: r.game.moves().len(),
        });
        self.note(&format!(
            "game {} over: {} ({}), {} plies",
            r.sched.number,
            result,
            e.termination.describe(e.result),
            r.game.moves().len()
        ));
    }

    fn drop_conn(&mut self, id: ConnId, why: &str) {
        let Some(c) = self.conns.remove(&id) else { return };
        if self.follower.as_ref().is_some_and(|f| f.id == id) {
            self.closing.push((id, c.tx));
            self.follower_lost();
            return;
        }
        // Its sender is dropped at the end of the turn, after its last
        // records; the writer then closes the socket.
        self.closing.push((id, c.tx));
        self.timers.set(Due::SignOn(id), None);
        self.timers.set(Due::Quiet(id), None);
        let Some(k) = c.game else { return };
        let grace = self.event.disconnect_grace;
        if let Some(r) = self.running.get_mut(&k) {
            let side = if r.conns[0] == id { Color::White } else { Color::Black };
            r.conns[side_index(side)] = NOBODY;
            if r.away.is_none() {
                r.away = Some((side, Instant::now() + grace));
            }
        }
        self.rearm(k);
        let _ = why;
    }

    fn on_console(&mut self, cmd: &str) {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["status"] | [] => {
                eprintln!(
                    "{} of {} games finished, {} running, {} clients",
                    self.finished,
                    self.schedule.len(),
                    self.running.len(),
                    self.conns.len()
                );
            }
            ["games"] => {
                for r in self.running.values() {
                    eprintln!(
                        "game {}: {} - {}, {} plies, clocks {} {}{}, {}",
                        r.sched.number,
                        self.event.players[r.sched.white].name,
                        self.event.players[r.sched.black].name,
                        r.game.moves().len(),
                        crate::clock::hms(r.game.clock(Color::White).remaining()),
                        crate::clock::hms(r.game.clock(Color::Black).remaining()),
                        if r.paused.is_some() { ", paused" } else { "" },
                        r.game.position().fen()
                    );
                }
            }
            ["adjudicate", n, res] => {
                let result = match *res {
                    "1-0" => Some(GameResult::WhiteWins),
                    "0-1" => Some(GameResult::BlackWins),
                    "1/2-1/2" => Some(GameResult::Draw),
                    _ => None,
                };
                match (self.game_by_number(n), result) {
                    (Some(k), Some(res)) => {
                        let e = self.running.get_mut(&k).expect("running").game.adjudicate(res, "by the supervisor");
                        self.finish(k, e);
                    }
                    _ => eprintln!("adjudicate GAME 1-0|0-1|1/2-1/2 (a running game's number)"),
                }
            }
            ["abort", n] => match self.game_by_number(n) {
                Some(k) => {
                    // Aborted: both told to reset; the game goes back to the
                    // schedule and is played again.
                    self.write_ahead(&Entry::Abort { game: k });
                    if self.failure.is_some() {
                        return;
                    }
                    if let Some(r) = self.running.remove(&k) {
                        self.rearm(k);
                        let start = *r.game.start();
                        for id in r.conns {
                            let line = Outgoing::new(Command::Reset, &start).to_line();
                            self.send(id, line);
                            if let Some(c) = self.conns.get_mut(&id) {
                                c.game = None;
                            }
                            self.quiet(id, Instant::now() + self.event.reset_delay);
                        }
                        self.note(&format!("game {} aborted by the supervisor", r.sched.number));
                    }
                }
                None => eprintln!("abort GAME (a running game's number)"),
            },
            ["pause", n] => match self.games_named(n) {
                Some(ks) => ks.into_iter().for_each(|k| self.pause(k)),
                None => eprintln!("pause GAME|all (a running game's number)"),
            },
            ["resume", n] => match self.games_named(n) {
                Some(ks) => ks.into_iter().for_each(|k| self.resume(k)),
                None => eprintln!("resume GAME|all (a running game's number)"),
            },
            // restart: the player's clients are told to disconnect; a
            // program the referee started is started again (its keeper)
            // and is brought back into its game when it signs on.
            ["disconnect" | "restart", name] => {
                let ids: Vec<ConnId> = self
                    .conns
                    .iter()
                    .filter(|(_, c)| c.player.is_some_and(|p| self.event.players[p].name == *name))
                    .map(|(&i, _)| i)
                    .collect();
                for id in ids {
                    let line = Outgoing::new(Command::Disconnect, &Position::startpos()).to_line();
                    self.send(id, line);
                    self.drop_conn(id, "disconnected by the supervisor");
                }
            }
            ["quit"] => {
                self.note("quit by the supervisor");
                self.quit = true;
            }
            _ => eprintln!(
                "commands: status, games, pause GAME|all, resume GAME|all, adjudicate GAME RESULT, abort GAME, \
                 disconnect NAME, restart NAME, quit"
            ),
        }
    }

    /// `all` (every running game) or one running game's number.
    fn games_named(&self, n: &str) -> Option<Vec<usize>> {
        if n == "all" {
            return Some(self.running.keys().copied().collect());
        }
        self.game_by_number(n).map(|k| vec![k])
    }

    /// Stops a game's clocks: the side to move's time stops now.
    fn pause(&mut self, k: usize) {
        let Some(r) = self.running.get_mut(&k) else { return };
        if r.paused.is_some() {
            return;
        }
        self.write_ahead(&Entry::Pause { game: k });
        if self.failure.is_some() {
            return;
        }
        let Some(r) = self.running.get_mut(&k) else { return };
        r.paused = Some(Instant::now());
        let n = r.sched.number;
        self.rearm(k);
        self.note(&format!("game {n} paused by the supervisor"));
    }

    /// Starts a paused game's clocks again: the side to move's clock
    /// goes on from where the pause stopped it, or, when it moved during
    /// the pause, its opponent is asked now.
    fn resume(&mut self, k: usize) {
        let now = Instant::now();
        if self.running.get(&k).is_none_or(|r| r.paused.is_none()) {
            return;
        }
        self.write_ahead(&Entry::Unpause { game: k });
        if self.failure.is_some() {
            return;
        }
        let Some(r) = self.running.get_mut(&k) else { return };
        let Some(since) = r.paused.take() else { return };
        let stopped = now.saturating_duration_since(since);
        if let Some(t) = r.asked_at.as_mut() {
            *t += stopped;
        }
        if let Some((_, until)) = r.away.as_mut() {
            *until += stopped;
        }
        let n = r.sched.number;
        let held = r.held.take();
        self.note(&format!("game {n} resumed by the supervisor after {:.3} s", stopped.as_secs_f64()));
        self.rearm(k);
        if let Some(last) = held {
            self.ask(k, Some(last), now);
        }
    }

    fn game_by_number(&self, n: &str) -> Option<usize> {
        let n: usize = n.parse().ok()?;
        self.running.iter().find(|(_, r)| r.sched.number == n).map(|(&k, _)| k)
    }
}

/// A client's bytes for the log: control characters and bytes that are
/// not UTF-8 as `\xNN`, so a hostile line cannot forge log lines.
fn escaped(line: &[u8]) -> String {
    let mut out = String::with_capacity(line.len());
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[Entry]) -> Vec<Vec<u8>> {
        list.iter().map(|e| serde_json::to_vec(e).unwrap()).collect()
    }

    /// A supervisor's pause outlives a crash: the journal's replay finds
    /// the game paused until an unpause, and forgets games that ended.
    #[test]
    fn pauses_are_replayed_from_the_journal() {
        let text = "event = \"e\"\ntime_control = \"60\"\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n";
        let event = Event::parse(text, std::path::Path::new(".")).unwrap();
        let schedule = event.schedule(0);
        let begin = Entry::Begin { epoch: 1, event: "e".into(), games: schedule.len(), date: "2026.11.24".into() };
        let mv = |uci: &str| Entry::Move { game: 0, uci: uci.into(), ns: 1_000_000, offer: false };
        let log = [begin, Entry::Start { game: 0 }, mv("e2e4"), Entry::Pause { game: 0 }, mv("e7e5")];
        let r = Director::replay(&event, &[], &schedule, &entries(&log)).unwrap();
        assert!(r.paused.contains(&0));
        assert_eq!(r.running[&0].0.moves().len(), 2, "a move played during the pause is kept");
        let mut more: Vec<Entry> = log.into_iter().collect();
        more.push(Entry::Unpause { game: 0 });
        let r = Director::replay(&event, &[], &schedule, &entries(&more)).unwrap();
        assert!(r.paused.is_empty());
        more.push(Entry::Pause { game: 0 });
        more.push(Entry::Abort { game: 0 });
        more.push(Entry::Pause { game: 1 });
        let r = Director::replay(&event, &[], &schedule, &entries(&more)).unwrap();
        assert!(r.paused.is_empty(), "an aborted game, or one not running, is not paused");
    }
}
