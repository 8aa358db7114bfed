//! The referee's runtime (EPD §8) on tokio: the only async code of Argus.
//! It waits for what can happen (a client's line, a connection opened or
//! closed, a console command, a supervisor's action from the live
//! display, an answer from a standby) or for the director's next
//! deadline, hands it to the [`Director`], and carries out the director's
//! outputs: it writes to connections, appends and syncs the journal,
//! writes the log, the PGN and the report, probes standbys and publishes
//! the live display. It takes no decision of its own.
//!
//! Shaped like tokio's mini-redis: a listener task accepts clients (at
//! most [`MAX_CLIENTS`] at once); each connection has a reader task and a
//! writer task (`net`); everything reaches the director through one
//! inbox, a batch at a time, so a busy inbox shares one turn (one journal
//! sync) among many inputs.
//!
//! Everything a client sends is untrusted: lines are capped at
//! [`MAX_RECORD`](crate::protocol::MAX_RECORD) bytes (an over-long line
//! costs the client its connection), a line must be finished within
//! [`LINE_TIMEOUT`] of its first byte, a client must sign on within
//! [`SIGN_ON_TIMEOUT`](crate::director::SIGN_ON_TIMEOUT), its outgoing
//! queue is bounded (a client that does not read is dropped), and a
//! sign-on under a name whose entry has a token must present it.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::director::{Config, ConnId, Director, Done, Input, Output, Reach, Snapshot, Stopped};
use crate::event::{Event, JournalSync};
use crate::journal::entry::Entry;
use crate::journal::Journal;

mod ask;
#[cfg(unix)]
mod local;
mod net;
mod players;
pub mod standby;
pub mod web;

/// The most clients connected at once (an event whose players may keep
/// more connections gets more: [`client_slots`]). The director closes
/// connections that have not signed on beyond
/// [`MAX_UNSIGNED`](crate::director::MAX_UNSIGNED), so the rest is
/// always room for the players the event names.
pub const MAX_CLIENTS: usize = 1024;

/// The connections `event` may have at once: [`MAX_CLIENTS`], or more
/// where its players' instances and the connections waiting to sign on
/// need it (with a few for standbys and their probes).
#[must_use]
pub fn client_slots(event: &Event) -> usize {
    let players: usize = event.players.iter().map(|p| p.instances() as usize).sum();
    MAX_CLIENTS.max(crate::director::MAX_UNSIGNED + players + 8)
}
/// How long a line may take from its first byte to its newline.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a TCP client's host may be unreachable (keep-alive probes
/// unanswered, data sent and unacknowledged) before its connection is
/// closed: a host killed or a link cut is then found out, and its
/// player's grace starts, within this.
pub const DEAD_LINK: Duration = Duration::from_secs(5);
/// Messages queued for a client before it counts as not reading (the
/// records the director sends one connection in a row are one message,
/// so a long game replayed to a client that comes back is one).
const QUEUE: usize = 256;
/// Inputs the director takes in one turn at most.
const BATCH: usize = 256;
/// How long written entries may wait for their sync: with
/// `journal_sync = "second"` any, with `"turn"` those no record waits
/// for ([`Output::Append`]'s `urgent`).
const SYNC_WITHIN: Duration = Duration::from_secs(1);

/// How long the log's lines may wait in its buffer.
const LOG_WITHIN: Duration = Duration::from_millis(100);

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
    /// The signal that stopped the event before its end (SIGTERM 15,
    /// SIGINT 2), if one did: every client was told to disconnect, the
    /// journal and the report written, the players stopped; `--resume`
    /// goes on.
    pub interrupted: Option<i32>,
    /// Why the event stopped after a local engine crashed or stalled
    /// (`recover = false`), if it did: the report is kept, `--resume`
    /// goes on.
    pub engine_failed: Option<String>,
}

/// Lines for a connection, each with its newline, and (when latency is
/// measured) the instants the reply the first of them answers was read
/// and taken up by the director.
type Out = (Vec<u8>, Option<(Instant, Instant)>);

/// Where the writers put measured latencies: (read to written, taken up
/// to written).
type Latencies = Arc<std::sync::Mutex<Vec<(Duration, Duration)>>>;

/// Held by each connection's writer until it has written its queue out:
/// the event's end waits until every one is dropped (mini-redis's
/// shutdown completion channel).
type Working = mpsc::Sender<()>;

/// What the runtime hears from its tasks.
#[derive(Debug)]
enum Inbox {
    /// A connection's writer queue (the director hears of the connection
    /// as [`Input::Connected`]).
    Connected { id: ConnId, tx: mpsc::Sender<Out>, peer: String, reach: Reach },
    /// Anything else, for the director.
    Input(Input),
    /// The console's standard input ended.
    ConsoleClosed,
    /// A sync of the journal made on a blocking thread ended: every
    /// append up to `seq` is durable, or the sync failed.
    TurnSynced { seq: u64, result: std::io::Result<()> },
}

/// The runtime the referee (and a standby) runs on: one thread for the
/// director, the connections and the local players' engines, with
/// tokio's blocking pool for what blocks (starting an engine, reading a
/// file). The director decides on one thread in any case; with
/// everything else on that thread, a move costs no wake-up of another
/// thread. Side by side with two worker threads (`cargo bench -p
/// epd-bench --bench referee_latency`, BENCHMARKS.md) it halved the
/// median latency at 64 and 512 games.
///
/// # Errors
/// The runtime cannot be built.
pub fn new_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

/// Runs `event` to its end on a tokio runtime of its own.
///
/// # Errors
/// The address cannot be bound, the openings or output files cannot be
/// read or written.
pub fn run_blocking(event: Event, options: Options) -> std::io::Result<Outcome> {
    let rt = new_runtime()?;
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

fn with_path(path: &std::path::Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// The final position of each game of `pgn` as EPD (`epdout`): what
/// `epd from-pgn --final` writes, with counters, id and c0.
fn final_positions(pgn: &str) -> Vec<u8> {
    let options = epd_core::pgn::EpdOptions {
        counters: true,
        id: true,
        comment: true,
        final_only: true,
        ..epd_core::pgn::EpdOptions::default()
    };
    let mut out = Vec::new();
    // The referee wrote the PGN: no diagnostics to report, no I/O error.
    let _ = epd_core::pgn::to_epd(pgn.as_bytes(), &mut out, &options, |_| {});
    out
}

fn append_file(p: &std::path::Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| with_path(p, e))
}

/// Opens the event's journal: a new one, or (resuming) the one there,
/// with its entries.
fn open_journal(event: &Event, resume: bool, verbose: bool) -> std::io::Result<(Journal, Option<Vec<Vec<u8>>>)> {
    if resume {
        let (j, rec) = Journal::open(&event.journal)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        if rec.dropped_bytes > 0 && verbose {
            eprintln!("argus: the journal's last entry was torn ({} bytes): dropped", rec.dropped_bytes);
        }
        return Ok((j, Some(rec.entries)));
    }
    if event.journal.exists() && finished(&event.journal) {
        // A finished event's journal does not block a new one (fastchess
        // starts afresh): it is replaced; its games are in the PGN.
        if verbose {
            eprintln!("argus: {}: the journal of a finished event: starting afresh", event.journal.display());
        }
        std::fs::remove_file(&event.journal).map_err(|e| with_path(&event.journal, e))?;
    }
    if event.journal.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{}: the journal of an earlier run: go on with --resume, or remove it (and the PGN) to start again",
                event.journal.display()
            ),
        ));
    }
    let j = Journal::create(&event.journal).map_err(|e| with_path(&event.journal, e))?;
    Ok((j, None))
}

/// `true` if the journal at `path` ends with the event over
/// ([`Entry::Over`]): every game played, or the SPRT decided.
fn finished(path: &std::path::Path) -> bool {
    crate::journal::read_entries(path).is_ok_and(|entries| {
        entries.last().is_some_and(|e| matches!(serde_json::from_slice::<Entry>(e), Ok(Entry::Over)))
    })
}

/// [`run`], on `listener` if given (a standby's, bound when it started),
/// and, after a standby's take-over, telling the old primary at `fence`
/// to yield. In mini-redis's manner: the tasks start (the clients'
/// listener or serial lines, the console, the signals, the live display,
/// the players), the director is driven to its end, then every task is
/// told the event is over and the connections' writers are waited for.
pub(crate) async fn serve(
    event: Event,
    options: Options,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
    listener: Option<TcpListener>,
    fence: Option<String>,
) -> std::io::Result<Outcome> {
    if options.resume && fence.is_none() {
        ask::step_down_to_standby(&event, options.listen.as_deref()).await?;
    }
    let openings = match &event.openings {
        Some(book) => crate::book::load(book)?,
        None => Vec::new(),
    };
    let (tx, mut rx) = mpsc::channel::<Inbox>(4096);
    let latencies: Option<Latencies> = options.measure_latency.then(Latencies::default);
    let (working, mut finished) = mpsc::channel::<()>(1);
    let clients = ClientsIn { tx: &tx, latencies: &latencies, working: &working };
    let (local, taking) = clients.start(&event, &options, bound, listener).await?;
    if options.console {
        tokio::spawn(console(tx.clone()));
    }
    let interrupted = Arc::new(std::sync::atomic::AtomicI32::new(0));
    #[cfg(unix)]
    tokio::spawn(on_signals(tx.clone(), Arc::clone(&interrupted)));
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
    // Local players (`uci`): engines the referee drives itself, each
    // instance on a connection inside the process; started before the
    // journal, so an engine that cannot start leaves no event behind.
    // Opened once the engines are running (one that cannot start leaves
    // no file behind); their tasks write to it only from the first game.
    let log = LogFile::default();
    #[cfg(unix)]
    let locals = local::start(&event, &tx, &log).await?;
    #[cfg(not(unix))]
    if let Some(p) = event.players.iter().find(|p| p.uci.is_some()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!("player {}: local UCI players need a Unix system", p.name),
        ));
    }
    let (journal, entries) = open_journal(&event, options.resume, options.verbose)?;
    // A resumed primary watches the standby its journal names; a standby
    // that took over does not watch itself.
    let own = local.map(|a| a.to_string()).filter(|_| fence.is_none());
    let config = Config {
        event: event.clone(),
        openings,
        journal: entries,
        date: utc_now().1,
        own,
        web: web.is_some(),
        measure: options.measure_latency,
    };
    let director = Director::new(config, Instant::now())?;
    log.open(&event.log)?;
    let mut carrier = Carrier::new(&event, options.verbose, journal, tx.clone(), log);
    // A resumed event's PGN is replaced first ([`Output::ReplacePgn`]),
    // then opened to append.
    if !options.resume {
        carrier.pgn = Some(append_file(&event.pgn)?);
    }
    if let Some((listener, local)) = web {
        carrier.web = Some(start_web(&event, listener, &tx));
        let _ = tx.send(Inbox::Input(Input::Note(format!("live display on http://{local}/")))).await;
    }
    if let (Some(old), Some(token)) = (fence, event.supervisor_token.clone()) {
        start_fence(old, token, director.epoch(), &tx);
    }
    // The players the referee starts: each instance kept running until
    // the event is over. A resumed event that is over already starts
    // nobody.
    let (over_tx, over_rx) = tokio::sync::watch::channel(false);
    let keepers = match local.filter(|_| !director.is_over()) {
        Some(local) => start_players(&event, local, options.verbose, &tx, &over_rx)?,
        None => Vec::new(),
    };
    #[cfg(unix)]
    locals.begin();
    let done = drive(director, &mut carrier, &mut rx).await;
    let sig = interrupted.load(std::sync::atomic::Ordering::Relaxed);
    let mut outcome = outcome(done, (sig != 0).then_some(sig));
    if let (Ok(_), Some(e)) = (&outcome, carrier.fault.take()) {
        outcome = Err(e);
    }
    if carrier.web.is_some() && matches!(&outcome, Ok(o) if o.interrupted.is_none()) {
        linger(&mut carrier, &mut rx, options.console, event.linger).await;
    }
    let _ = carrier.log.flush();
    // The end, in mini-redis's manner: no more clients; the writers
    // send what they hold and end once their queues are dropped, each
    // dropping its `working` token: wait for the last (bounded, for a
    // client that does not read).
    for t in taking {
        t.abort();
        let _ = t.await;
    }
    carrier.conns.clear();
    drop(working);
    let _ = tokio::time::timeout(WRITERS_GRACE, finished.recv()).await;
    if let (Ok(o), Some(l)) = (outcome.as_mut(), latencies) {
        o.latencies = std::mem::take(&mut *l.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    }
    // Asked to disconnect; the keepers give them a moment, then stop them.
    let _ = over_tx.send(true);
    for k in keepers {
        let _ = k.await;
    }
    // A local player connecting now hears that the referee stopped.
    drop(rx);
    #[cfg(unix)]
    locals.finish().await;
    outcome
}

/// How long the end of the event waits for the connections' writers to
/// write out what they hold: a client that does not read is not waited
/// for longer.
const WRITERS_GRACE: Duration = Duration::from_secs(2);

/// What the clients' tasks share: the director's inbox, the latencies
/// measured, the writers' completion token.
struct ClientsIn<'a> {
    tx: &'a mpsc::Sender<Inbox>,
    latencies: &'a Option<Latencies>,
    working: &'a Working,
}

impl ClientsIn<'_> {
    /// Starts taking clients: on a TCP listener (`listener` if given,
    /// else bound to the address), whose address is returned (and sent
    /// to `bound`), or on the serial lines of `options`. The tasks that
    /// take clients, to abort at the event's end.
    async fn start(
        &self,
        event: &Event,
        options: &Options,
        bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
        listener: Option<TcpListener>,
    ) -> std::io::Result<(Option<SocketAddr>, Vec<tokio::task::JoinHandle<()>>)> {
        if options.serial.is_empty() {
            let addr = options.listen.clone().unwrap_or_else(|| event.listen.clone());
            let listener = match listener {
                Some(l) => l,
                None => TcpListener::bind(&addr).await?,
            };
            let local = listener.local_addr()?;
            if let Some(tx) = bound {
                let _ = tx.send(local);
            }
            let _ = self.tx.send(Inbox::Input(Input::Listening(local.to_string()))).await;
            let task = tokio::spawn(net::listen(
                listener,
                client_slots(event),
                self.tx.clone(),
                self.latencies.clone(),
                self.working.clone(),
            ));
            return Ok((Some(local), vec![task]));
        }
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
            let tasks = (0..n)
                .zip(&options.serial)
                .map(|(k, path)| {
                    let line = net::serial_line(path.clone(), baud, (k, n), self.tx.clone(), self.working.clone());
                    tokio::spawn(line)
                })
                .collect();
            Ok((None, tasks))
        }
        #[cfg(not(unix))]
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "serial mode needs a Unix system"))
    }
}

/// Serves the live display on `listener`: the state the director
/// publishes goes to it, the supervisor's actions come back as inputs.
fn start_web(
    event: &Event,
    listener: TcpListener,
    tx: &mpsc::Sender<Inbox>,
) -> tokio::sync::watch::Sender<Arc<Snapshot>> {
    let (state_tx, state_rx) = tokio::sync::watch::channel(Arc::new(Snapshot::default()));
    let (act_tx, mut act_rx) = mpsc::channel::<(String, String)>(16);
    let inbox = tx.clone();
    tokio::spawn(async move {
        while let Some((command, from)) = act_rx.recv().await {
            if inbox.send(Inbox::Input(Input::Supervisor { command, from })).await.is_err() {
                return;
            }
        }
    });
    let (pgn, token) = (event.pgn.clone(), event.supervisor_token.clone());
    tokio::spawn(web::serve(listener, state_rx, pgn, token, act_tx));
    state_tx
}

/// After a take-over: tells the old primary at `old` to yield, and the
/// director what it answered.
fn start_fence(old: String, token: String, epoch: u64, tx: &mpsc::Sender<Inbox>) {
    let (ftx, mut frx) = mpsc::channel(1);
    tokio::spawn(ask::fence(old, token, epoch, ftx));
    let tx = tx.clone();
    tokio::spawn(async move {
        while let Some(f) = frx.recv().await {
            if tx.send(Inbox::Input(Input::Fenced(f))).await.is_err() {
                return;
            }
        }
    });
}

/// Starts the players the event names a command for, each instance kept
/// running by a keeper until `over` (a program that exits or crashes
/// mid-event is started again, after a growing pause; it signs on and is
/// brought back into its game).
fn start_players(
    event: &Event,
    local: SocketAddr,
    verbose: bool,
    tx: &mpsc::Sender<Inbox>,
    over: &tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<Vec<tokio::task::JoinHandle<()>>> {
    let mut keepers = Vec::new();
    for p in &event.players {
        let Some(cmd) = &p.command else { continue };
        for i in 0..p.instances() {
            let mut args: Vec<String> = cmd[1..].to_vec();
            args.extend(["--referee".to_owned(), local.to_string(), "--name".to_owned(), p.name.clone()]);
            let launch = players::Launch { program: cmd[0].clone(), args, token: p.token.clone() };
            let who = if p.instances() > 1 { format!("{} #{}", p.name, i + 1) } else { p.name.clone() };
            let words = players::LastWords::default();
            let first = players::spawn_player(&launch, &who, verbose, &words)
                .map_err(|e| std::io::Error::new(e.kind(), format!("player {}: {}: {e}", p.name, cmd[0])))?;
            keepers.push(tokio::spawn(players::keep_player(
                first,
                words,
                launch,
                who,
                verbose,
                tx.clone(),
                over.clone(),
            )));
        }
    }
    Ok(keepers)
}

/// The event's outcome from the director's end; `interrupted`: the
/// signal that stopped it, if one did.
fn outcome(done: std::io::Result<Done>, interrupted: Option<i32>) -> std::io::Result<Outcome> {
    match done {
        Ok(Done { games, report, stopped: None }) => {
            Ok(Outcome { games, report, latencies: Vec::new(), interrupted, engine_failed: None })
        }
        Ok(Done { games, report, stopped: Some(Stopped::EngineFailed(why)) }) => {
            Ok(Outcome { games, report, latencies: Vec::new(), interrupted, engine_failed: Some(why) })
        }
        Ok(Done { stopped: Some(Stopped::SteppedDown(why) | Stopped::JournalFailed(why)), .. }) => {
            Err(std::io::Error::other(why))
        }
        Err(e) => Err(e),
    }
}

/// The live display outlives the event, so that a spectator who comes
/// late sees the results: until `quit` (or the end of standard input)
/// with a `console`, for the event's `linger` in the background.
async fn linger(carrier: &mut Carrier, rx: &mut mpsc::Receiver<Inbox>, console: bool, linger: Duration) {
    if console {
        carrier.log_line("referee the live display stays up until quit");
        eprintln!("argus: the event is over; the live display stays up until quit");
        while let Some(msg) = rx.recv().await {
            match msg {
                Inbox::Input(Input::Console(c)) if c.trim() == "quit" => break,
                Inbox::Input(Input::Stop(_)) | Inbox::ConsoleClosed => break,
                _ => {}
            }
        }
        return;
    }
    carrier.log_line(&format!("referee the live display stays up for {linger:?}"));
    let _ = carrier.log.flush();
    let linger = tokio::time::sleep(linger);
    tokio::pin!(linger);
    loop {
        tokio::select! {
            () = &mut linger => break,
            msg = rx.recv() => match msg {
                Some(Inbox::Input(Input::Stop(_))) | None => break,
                _ => {}
            },
        }
    }
}

/// The director's loop: carry out its outputs, then wait for the next
/// input (taking up whatever else is waiting, up to a batch) or for its
/// next deadline.
async fn drive(mut d: Director, c: &mut Carrier, rx: &mut mpsc::Receiver<Inbox>) -> std::io::Result<Done> {
    loop {
        if c.sync_due.is_some_and(|t| t <= Instant::now()) {
            c.sync_due_now(&mut d);
        }
        loop {
            while let Some(o) = d.poll_output() {
                if let Some(done) = c.carry_out(&mut d, o)? {
                    c.flush(&mut d);
                    return Ok(done);
                }
            }
            // The last message goes to its writer; a stalled connection
            // has the director act again; then a sync of the turn's
            // appends starts on a blocking thread (its end, an input,
            // releases the records held behind them).
            if !c.flush(&mut d) && !c.start_turn_sync(&mut d) {
                break;
            }
        }
        c.flush_log(Instant::now())?;
        let wake = [d.poll_timeout(), c.sync_due, c.log_due].into_iter().flatten().min();
        let msg = match wake {
            Some(t) => tokio::select! {
                m = rx.recv() => m,
                () = tokio::time::sleep_until(t.into()) => {
                    c.flush_log(Instant::now())?;
                    if d.poll_timeout().is_some_and(|t| t <= Instant::now()) {
                        d.handle_timeout(Instant::now());
                    }
                    continue;
                }
            },
            None => rx.recv().await,
        };
        let Some(msg) = msg else { return Err(std::io::Error::other("the referee's inbox closed")) };
        c.take(&mut d, msg);
        for _ in 0..BATCH {
            match rx.try_recv() {
                Ok(m) => c.take(&mut d, m),
                Err(_) => break,
            }
        }
    }
}

/// What carries out the director's outputs: the connections' queues, the
/// journal, the log, the PGN and the live display.
struct Carrier {
    event: Event,
    verbose: bool,
    conns: HashMap<ConnId, mpsc::Sender<Out>>,
    journal: Journal,
    log: LogFile,
    pgn: Option<std::fs::File>,
    epdout: Option<std::fs::File>,
    web: Option<tokio::sync::watch::Sender<Arc<Snapshot>>>,
    inbox: mpsc::Sender<Inbox>,
    /// A file that could not be written (the report): the event's error.
    fault: Option<std::io::Error>,
    /// The message being gathered: consecutive lines for one connection.
    pending: Option<(ConnId, Out)>,
    /// When the entries written unsynced must be synced (`journal_sync =
    /// "second"`, or `"turn"` with appends no record waits for).
    sync_due: Option<Instant>,
    /// With `journal_sync = "turn"`: records wait for the appends
    /// written, so their sync starts as soon as it can.
    sync_now: bool,
    /// With `journal_sync = "turn"`: the last append written and not yet
    /// synced. Its sync starts once the outputs decided with it are
    /// carried out, so the records that need not wait for it (to the
    /// players the referee runs itself) are on their way first, and the
    /// appends written while a sync is under way share the next.
    turn_sync: Option<u64>,
    /// A sync of the journal is under way on a blocking thread.
    syncing: bool,
    /// No player is one the referee runs itself: a turn's sync is made
    /// on the loop, which has no engine's reply to read meanwhile (a
    /// blocking thread's hand-off and the message back cost more than
    /// they save there).
    sync_inline: bool,
    /// When the log's buffered lines must be written out.
    log_due: Option<Instant>,
}

/// The log: the carrier's lines and, with `engine_log`, the local
/// engines' traffic, written by their tasks, in one file, each line
/// stamped with its time.
#[derive(Clone, Debug, Default)]
pub(super) struct LogFile(Arc<std::sync::Mutex<LogInner>>);

#[derive(Debug, Default)]
struct LogInner {
    /// The file, once opened (lines before are dropped).
    w: Option<std::io::BufWriter<std::fs::File>>,
    /// The time stamp to the second, and the second it is for.
    second: (u64, String),
    /// Lines stamped before the file was opened (the engines'
    /// handshakes), written first when it is; [`EARLY_LOG_LINES`] at
    /// most. Dropped if it never is (a match refused at its start
    /// leaves no log).
    early: Vec<String>,
}

/// The most lines the log keeps before its file is opened.
const EARLY_LOG_LINES: usize = 4096;

impl LogFile {
    /// Opens `path` to append to, writing first the lines kept before.
    fn open(&self, path: &std::path::Path) -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(append_file(path)?);
        if let Ok(mut log) = self.0.lock() {
            for line in std::mem::take(&mut log.early) {
                writeln!(w, "{line}")?;
            }
            log.w = Some(w);
        }
        Ok(())
    }

    /// Adds a line, stamped with the time (to the millisecond, UTC). It
    /// is written out by the next [`LogFile::flush`], or when the buffer
    /// fills.
    pub(super) fn line(&self, text: &str) {
        let Ok(mut log) = self.0.lock() else { return };
        // The time to the second is worked out once a second.
        let d = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
        if log.second.0 != d.as_secs() || log.second.1.is_empty() {
            log.second = (d.as_secs(), utc_second(d.as_secs()).0);
        }
        let LogInner { w, second, early } = &mut *log;
        match w {
            Some(w) => {
                let _ = writeln!(w, "{}.{:03}Z {text}", second.1, d.subsec_millis());
            }
            None if early.len() < EARLY_LOG_LINES => {
                early.push(format!("{}.{:03}Z {text}", second.1, d.subsec_millis()))
            }
            None => {}
        }
    }

    /// Writes out the buffered lines.
    fn flush(&self) -> std::io::Result<()> {
        match self.0.lock() {
            Ok(mut log) => log.w.as_mut().map_or(Ok(()), std::io::Write::flush),
            Err(_) => Ok(()),
        }
    }
}

impl Carrier {
    /// A carrier for `event`'s files (its log opened), with `journal`,
    /// telling `inbox` what its own tasks (a probe) find.
    fn new(event: &Event, verbose: bool, journal: Journal, inbox: mpsc::Sender<Inbox>, log: LogFile) -> Carrier {
        Carrier {
            event: event.clone(),
            verbose,
            conns: HashMap::new(),
            journal,
            log,
            pgn: None,
            epdout: None,
            web: None,
            inbox,
            fault: None,
            pending: None,
            sync_due: None,
            sync_now: false,
            turn_sync: None,
            syncing: false,
            sync_inline: event.players.iter().all(|p| p.uci.is_none()),
            log_due: None,
        }
    }

    fn take(&mut self, d: &mut Director, msg: Inbox) {
        let input = match msg {
            Inbox::Connected { id, tx, peer, reach } => {
                self.conns.insert(id, tx);
                Input::Connected { id, peer, reach }
            }
            Inbox::Input(i) => i,
            Inbox::ConsoleClosed => return,
            Inbox::TurnSynced { seq, result } => {
                self.syncing = false;
                match result {
                    Ok(()) => Input::Synced { seq },
                    Err(e) => Input::SyncFailed { seq, error: with_path(self.journal.path(), e).to_string() },
                }
            }
        };
        d.handle(Instant::now(), input);
    }

    /// Starts a sync of the appends written (`journal_sync = "turn"`) on
    /// a blocking thread, unless one is under way (the next covers what
    /// was written meanwhile): the loop goes on reading replies while the
    /// disk works, so a local engine's move time never includes a sync.
    /// The director hears [`Inbox::TurnSynced`] when it ends. In an
    /// event without local players the sync is made here, at once.
    /// Whether the director was told something at once (a sync made, or
    /// one that could not start): it has outputs then.
    fn start_turn_sync(&mut self, d: &mut Director) -> bool {
        if self.syncing || !self.sync_now {
            return false;
        }
        self.sync_now = false;
        let Some(seq) = self.turn_sync.take() else { return false };
        self.sync_due = None;
        if self.sync_inline {
            let input = match self.journal.sync() {
                Ok(()) => Input::Synced { seq },
                Err(e) => Input::SyncFailed { seq, error: with_path(self.journal.path(), e).to_string() },
            };
            d.handle(Instant::now(), input);
            return true;
        }
        let file = match self.journal.sync_handle() {
            Ok(f) => f,
            Err(e) => {
                let error = with_path(self.journal.path(), e).to_string();
                d.handle(Instant::now(), Input::SyncFailed { seq, error });
                return true;
            }
        };
        self.syncing = true;
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let result = match tokio::task::spawn_blocking(move || file.sync_data()).await {
                Ok(r) => r,
                Err(e) => Err(std::io::Error::other(e.to_string())),
            };
            let _ = inbox.send(Inbox::TurnSynced { seq, result }).await;
        });
        false
    }

    /// The entries written unsynced are due: with `journal_sync =
    /// "turn"`, their sync starts on a blocking thread as soon as it can
    /// ([`Carrier::start_turn_sync`]); with `"second"` it is made here.
    fn sync_due_now(&mut self, d: &mut Director) {
        self.sync_due = None;
        match self.event.journal_sync {
            JournalSync::Turn => self.sync_now = true,
            JournalSync::Second => self.sync_journal(d),
        }
    }

    /// Syncs the entries written since the last sync (`journal_sync =
    /// "second"`). A failure stops the event as a failed append does.
    fn sync_journal(&mut self, d: &mut Director) {
        if let Err(e) = self.journal.sync() {
            let error = format!("{}: {e}", self.journal.path().display());
            d.handle(Instant::now(), Input::SyncFailed { seq: 0, error });
        }
    }

    /// Adds a line to the log. Lines are written out within
    /// [`LOG_WITHIN`] (or when the buffer fills, or at the end), not one
    /// write each: the log is for people, the journal is what is durable.
    fn log_line(&mut self, text: &str) {
        self.log.line(text);
        if self.log_due.is_none() {
            self.log_due = Some(Instant::now() + LOG_WITHIN);
        }
    }

    /// Writes out the log's buffered lines once they are due.
    fn flush_log(&mut self, now: Instant) -> std::io::Result<()> {
        if self.log_due.is_some_and(|t| t <= now) {
            self.log_due = None;
            self.log.flush()?;
        }
        Ok(())
    }

    /// Adds a line to the message being gathered: consecutive lines for
    /// one connection are one message (a player brought back into its
    /// game is sent it whole at once); a line for another connection
    /// queues the message first.
    fn send(&mut self, d: &mut Director, id: ConnId, (mut line, answering): Out) {
        if !self.conns.contains_key(&id) {
            return;
        }
        if self.pending.as_ref().is_some_and(|(p, _)| *p != id) {
            self.flush(d);
        }
        match &mut self.pending {
            Some((_, (buf, since))) => {
                buf.extend_from_slice(&line);
                buf.push(b'\n');
                if since.is_none() {
                    *since = answering;
                }
            }
            None => {
                line.push(b'\n');
                self.pending = Some((id, (line, answering)));
            }
        }
    }

    /// Queues the message being gathered for its connection's writer. A
    /// connection whose queue is full is reported stalled: whether it
    /// was.
    fn flush(&mut self, d: &mut Director) -> bool {
        let Some((id, out)) = self.pending.take() else { return false };
        let Some(tx) = self.conns.get(&id) else { return false };
        match tx.try_send(out) {
            Ok(()) => false,
            Err(mpsc::error::TrySendError::Full(_)) => {
                d.handle(Instant::now(), Input::Stalled { id });
                true
            }
            // The writer is gone: the reader reports the connection closed.
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Carries out one output; the event's end is returned.
    fn carry_out(&mut self, d: &mut Director, o: Output) -> std::io::Result<Option<Done>> {
        match o {
            Output::Send { id, line, answering } => self.send(d, id, (line, answering)),
            Output::Close { id } => {
                // What was sent before the close goes first.
                self.flush(d);
                self.conns.remove(&id);
            }
            Output::Append { seq, entries, urgent } => {
                // Records already released go to their writers before
                // the sync blocks this task.
                self.flush(d);
                let refs: Vec<&[u8]> = entries.iter().map(Vec::as_slice).collect();
                let written = match self.event.journal_sync {
                    JournalSync::Turn => {
                        let r = self.journal.write_all(&refs);
                        if r.is_ok() {
                            self.turn_sync = Some(seq);
                            if urgent {
                                self.sync_now = true;
                            } else if self.sync_due.is_none() {
                                self.sync_due = Some(Instant::now() + SYNC_WITHIN);
                            }
                            return Ok(None);
                        }
                        r
                    }
                    JournalSync::Second => {
                        let r = self.journal.write_all(&refs);
                        if r.is_ok() && self.sync_due.is_none() {
                            self.sync_due = Some(Instant::now() + SYNC_WITHIN);
                        }
                        r
                    }
                };
                let input = match written {
                    Ok(()) => Input::Synced { seq },
                    Err(e) => Input::SyncFailed { seq, error: e.to_string() },
                };
                d.handle(Instant::now(), input);
            }
            Output::CopyJournal { id } => match crate::journal::read_entries(self.journal.path()) {
                Ok(entries) => self.send(d, id, (crate::standby::wire::copy(&entries), None)),
                Err(e) => {
                    let why = format!("cannot read the journal for a standby: {e}");
                    d.handle(Instant::now(), Input::Closed { id, why });
                }
            },
            Output::Note(text) => {
                self.log_line(&format!("referee {text}"));
                if self.verbose {
                    eprintln!("argus: {text}");
                }
            }
            Output::Traffic(text) => self.log_line(&text),
            Output::Say(text) => eprintln!("{text}"),
            Output::ReplacePgn(text) => {
                let path = &self.event.pgn;
                let mut tmp = path.as_os_str().to_owned();
                tmp.push(".resume");
                let tmp = PathBuf::from(tmp);
                std::fs::write(&tmp, &text)
                    .and_then(|()| std::fs::rename(&tmp, path))
                    .map_err(|e| with_path(path, e))?;
                if let Some(path) = &self.event.epdout {
                    let mut tmp = path.as_os_str().to_owned();
                    tmp.push(".resume");
                    let tmp = PathBuf::from(tmp);
                    std::fs::write(&tmp, final_positions(&text))
                        .and_then(|()| std::fs::rename(&tmp, path))
                        .map_err(|e| with_path(path, e))?;
                }
            }
            Output::Pgn(text) => {
                if self.pgn.is_none() {
                    self.pgn = Some(append_file(&self.event.pgn)?);
                }
                let written = self.pgn.as_mut().map(|f| f.write_all(text.as_bytes()).and_then(|()| f.flush()));
                if let Some(Err(e)) = written {
                    self.log_line(&format!("referee cannot write the PGN: {e}"));
                }
                if let Some(path) = &self.event.epdout {
                    if self.epdout.is_none() {
                        self.epdout = Some(append_file(path)?);
                    }
                    let epd = final_positions(&text);
                    let written = self.epdout.as_mut().map(|f| f.write_all(&epd).and_then(|()| f.flush()));
                    if let Some(Err(e)) = written {
                        self.log_line(&format!("referee cannot write the final positions: {e}"));
                    }
                }
            }
            Output::Publish(snapshot) => {
                if let Some(tx) = &self.web {
                    tx.send_replace(Arc::new(snapshot));
                }
            }
            Output::Probe { addr, patience } => {
                let token = self.event.supervisor_token.clone().unwrap_or_default();
                let inbox = self.inbox.clone();
                tokio::spawn(async move {
                    let epoch = ask::watch(addr, token, patience).await;
                    let _ = inbox.send(Inbox::Input(Input::Probed(epoch))).await;
                });
            }
            Output::Report(text) => {
                let path = &self.event.report;
                if let Err(e) = std::fs::write(path, text) {
                    self.fault.get_or_insert(with_path(path, e));
                }
            }
            Output::Done(done) => {
                if let Err(e) = self.journal.sync() {
                    self.fault.get_or_insert(with_path(self.journal.path(), e));
                }
                return Ok(Some(done));
            }
        }
        Ok(None)
    }
}

/// SIGTERM or SIGINT stops the event as `quit` does: clients are told to
/// disconnect, everything is written, the players are stopped. A second
/// signal ends the process at once.
#[cfg(unix)]
async fn on_signals(tx: mpsc::Sender<Inbox>, interrupted: Arc<std::sync::atomic::AtomicI32>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
        return;
    };
    let (sig, name) = tokio::select! {
        _ = term.recv() => (15, "SIGTERM"),
        _ = int.recv() => (2, "SIGINT"),
    };
    interrupted.store(sig, std::sync::atomic::Ordering::Relaxed);
    let _ = tx.send(Inbox::Input(Input::Stop(format!("{name}: stopping; --resume goes on")))).await;
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    std::process::exit(128 + sig);
}

/// Reads the console's commands from standard input.
async fn console(tx: mpsc::Sender<Inbox>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(l)) = lines.next_line().await {
        if tx.send(Inbox::Input(Input::Console(l))).await.is_err() {
            return;
        }
    }
    let _ = tx.send(Inbox::ConsoleClosed).await;
}

/// UTC now as `2026-11-23T12:34:56.789Z`, and the PGN date `2026.11.23`.
pub(crate) fn utc_now() -> (String, String) {
    let d = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let (second, date) = utc_second(d.as_secs());
    (format!("{second}.{:03}Z", d.subsec_millis()), date)
}

/// A time in seconds since 1970 as `YYYY-MM-DDTHH:MM:SS`, and its date as
/// PGN writes it.
fn utc_second(secs: u64) -> (String, String) {
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
        format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", rest / 3600, rest / 60 % 60, rest % 60),
        format!("{year:04}.{month:02}.{day:02}"),
    )
}

#[cfg(test)]
mod tests {
    use super::utc_second;

    /// Dates across leap days and centuries, as Python's datetime gives
    /// them for the same seconds.
    #[test]
    fn utc_seconds_are_civil_dates() {
        for (secs, time, date) in [
            (0, "1970-01-01T00:00:00", "1970.01.01"),
            (951_782_400, "2000-02-29T00:00:00", "2000.02.29"),
            (1_795_651_199, "2026-11-25T23:59:59", "2026.11.25"),
            (4_107_542_400, "2100-03-01T00:00:00", "2100.03.01"),
        ] {
            assert_eq!(utc_second(secs), (time.to_owned(), date.to_owned()), "{secs}");
        }
    }
}
