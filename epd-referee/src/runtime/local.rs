//! Local players (`uci` in the event file): UCI engines the referee
//! drives itself, without a bridge process.
//!
//! Each instance is a task of the referee's runtime that owns its engine
//! for the whole event (the hash and the process are kept from game to
//! game) and plays as [`player::session`] does, the rule `epd play`
//! follows: the same [`Follower`] reads the director's records, and the
//! same [`player::turn`] and [`player::answer`] turn them into a search
//! and a reply. Its connection to the director is virtual: the lines it
//! writes reach the director's inbox as a TCP client's lines do
//! ([`Input::Line`], after [`Inbox::Connected`]; [`Input::Closed`] when it
//! leaves), and the director's messages come back through the same
//! bounded queue a TCP writer reads. So the director cannot tell it from
//! a client over TCP: the same sign-on (with the player's token), the
//! same clocks, journal and faults, and a player that does not read is
//! dropped as one over TCP is.
//!
//! The engine is started and set up by [`UciEngine`] (on a blocking
//! thread), then driven from the event loop itself: its output is read
//! as the runtime's other sockets are, and a [`UciSearch`] says what each
//! line means. So a move costs one wake-up, when the engine's line
//! arrives, as in a tournament manager whose game thread drives both
//! engines: no bridge process, no thread of its own to wake.
//!
//! When the engine fails mid-game (it crashed, hung, broke the protocol
//! or answered an illegal move) the task tells the director
//! ([`Input::Failed`]), which ends that game at once as fastchess does (a
//! loss, PGN Termination "abandoned" or "illegal move"), then drops its
//! connection and comes back for the next game with the engine started
//! afresh, without a pause; only an engine that cannot be started at all
//! is tried again after a pause that grows. Its records need not wait
//! for the journal's sync ([`Reach::Local`]): it dies with the referee.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use epd_core::{Move, Position};
use epd_engine::{
    find_program, Analysis, Direction, EngineError, Limits, PositionCommand, SearchAction, Traffic, UciConfig,
    UciEngine, UciSearch,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, watch};

use super::{Inbox, LogFile, QUEUE};
use crate::client::{Follower, SignOn};
use crate::director::{ConnId, Input, Reach};
use crate::event::{Affinity, Event, Player};
use crate::game::EngineFailure;
use crate::player::{self, Conduct, Failure, Session};
use crate::protocol::Command;

/// Connection ids of local players start here, far from the listener's
/// (1, 2, ...) and the serial lines'.
const FIRST_ID: u64 = 1 << 48;

/// The longest line an engine may write (longer ones are cut there).
const MAX_ENGINE_LINE: usize = 1 << 20;

/// One instance of a local player.
#[derive(Clone, Debug)]
struct Spec {
    name: String,
    token: Option<String>,
    /// The name in notes: `sf`, or `sf #2` for the second instance.
    who: String,
    config: UciConfig,
    conduct: Conduct,
    /// The log, where the engine's lines (`engine_log`) or its moves'
    /// latency (`show_latency`) go.
    log: Option<LogFile>,
    /// The engine's lines go to the log.
    engine_log: bool,
    /// Each move's latency goes to the log.
    latency: bool,
}

/// How long the referee's end waits for its local players' tasks before
/// it aborts them (and so kills their engines): an interrupted match
/// exits at once even when an engine searches on or hangs.
const FINISH_GRACE: Duration = Duration::from_secs(1);

/// What the runtime keeps of its local players: their tasks, and the
/// gate that lets them in.
pub(super) struct Local {
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// `None` until the event begins (`Some(true)`) or is called off.
    gate: watch::Sender<Option<bool>>,
}

impl Local {
    /// Lets the players connect: the director is running.
    pub(super) fn begin(&self) {
        self.gate.send_replace(Some(true));
    }

    /// Waits for the players' tasks to end (each stops its engine:
    /// `quit`, then a kill after 200 ms), [`FINISH_GRACE`] at most: a task
    /// still waiting then (its engine searching, or hung, deaf to `stop`)
    /// is aborted, which kills its engine. The director's inbox must be
    /// gone already (a player still connecting then hears the referee
    /// stopped); players that never began are called off.
    pub(super) async fn finish(self) {
        self.gate.send_if_modified(|g| {
            let first = g.is_none();
            if first {
                *g = Some(false);
            }
            first
        });
        let deadline = tokio::time::Instant::now() + FINISH_GRACE;
        for mut t in self.tasks {
            if tokio::time::timeout_at(deadline, &mut t).await.is_err() {
                t.abort();
                let _ = t.await;
            }
        }
    }
}

/// Every local player's instances; with `affinity`, instance `k` of each
/// on the `k`-th CPU (and a note when affinity is left off).
fn specs(event: &Event, log: &LogFile) -> Result<(Vec<Spec>, Option<String>), String> {
    let (cpus, note) = cpus(event)?;
    let mut out = Vec::new();
    for p in &event.players {
        let Some(words) = &p.uci else { continue };
        for i in 0..p.instances() {
            let mut config = config(p, words, event.variant.is_chess960());
            if let Some(cpus) = &cpus {
                let cpu = cpus.get(i as usize).ok_or_else(|| {
                    format!(
                        "affinity: {} CPUs for {} instances of {}: one CPU per game at once",
                        cpus.len(),
                        p.instances(),
                        p.name
                    )
                })?;
                config.cpus = vec![*cpu];
            }
            out.push(Spec {
                name: p.name.clone(),
                token: p.token.clone(),
                who: if p.instances() > 1 { format!("{} #{}", p.name, i + 1) } else { p.name.clone() },
                config,
                conduct: conduct(p),
                log: (event.engine_log || event.show_latency).then(|| log.clone()),
                engine_log: event.engine_log,
                latency: event.show_latency,
            });
        }
    }
    Ok((out, note))
}

/// The CPUs of `affinity`, one per instance; `None` when it is off, or
/// (as fastchess, which pins single-threaded engines only) when an
/// engine is given more than one thread: then a note says so.
fn cpus(event: &Event) -> Result<(Option<Vec<usize>>, Option<String>), String> {
    let cpus = match &event.affinity {
        Affinity::Off => return Ok((None, None)),
        Affinity::Cpus(c) => c.clone(),
        Affinity::All => crate::matches::allowed_cpus()?,
    };
    let threads = event
        .players
        .iter()
        .flat_map(|p| p.uci_options())
        .find(|(n, v)| n.eq_ignore_ascii_case("Threads") && v.parse::<u32>().is_ok_and(|t| t > 1));
    if let Some((_, t)) = threads {
        return Ok((
            None,
            Some(format!("affinity left off: an engine has Threads {t} (fastchess pins engines of one thread only)")),
        ));
    }
    Ok((Some(cpus), None))
}

/// A Chess960 event sets `UCI_Chess960` from the start (an engine that
/// lacks it cannot play, and is said before the event).
fn config(p: &Player, words: &[String], chess960: bool) -> UciConfig {
    UciConfig {
        args: words[1..].to_vec(),
        options: p.uci_options(),
        dir: p.dir.clone(),
        chess960,
        ..UciConfig::new(find_program(&words[0]))
    }
}

fn conduct(p: &Player) -> Conduct {
    Conduct {
        depth: p.depth,
        nodes: p.nodes,
        movetime: p.movetime.map(Duration::from_secs_f64),
        // Resignation and draws are the referee's adjudication, not the
        // engine's; claims are made when the rules allow.
        ..Conduct::default()
    }
}

/// One line of an engine's UCI traffic in the log, with fastchess's
/// arrows: `who <--- line` written to it, `who ---> line` read from it.
fn log_engine_line(log: &LogFile, who: &str, way: Direction, line: &str) {
    let arrow = if way == Direction::ToEngine { "<---" } else { "--->" };
    log.line(&format!("{who} {arrow} {line}"));
}

/// Starts an engine on a blocking thread, checks that it has the
/// options it is given, and takes it over.
async fn start_engine(spec: &Spec) -> Result<Driven, String> {
    let mut config = spec.config.clone();
    if let Some(log) = spec.log.clone().filter(|_| spec.engine_log) {
        // The handshake goes to the log as it is made, as later traffic
        // does (Driven::write, Driven::line).
        let who = spec.who.clone();
        config.traffic = Some(Traffic(Arc::new(move |way, line| log_engine_line(&log, &who, way, line))));
    }
    let started = tokio::task::spawn_blocking(move || -> Result<UciEngine, String> {
        UciEngine::start(config).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| format!("its start was cut short: {e}"))??;
    let mut driven = Driven::take(started).map_err(|e| format!("cannot drive it: {e}"))?;
    driven.log = spec.log.clone().filter(|_| spec.engine_log).map(|l| (l, spec.who.clone()));
    Ok(driven)
}

/// Starts every local player's instances, each a task of its own, and
/// waits until each has its engine running (started and set up).
///
/// # Errors
/// An engine that cannot be started or set up: the event does not begin.
pub(super) async fn start(event: &Event, tx: &mpsc::Sender<Inbox>, log: &LogFile) -> std::io::Result<Local> {
    let (gate, _) = watch::channel(None);
    let ids = Arc::new(AtomicU64::new(FIRST_ID));
    let (specs, note) = specs(event, log).map_err(std::io::Error::other)?;
    if let Some(note) = note {
        let _ = tx.send(Inbox::Input(Input::Note(note))).await;
    }
    let mut engines = Vec::new();
    let mut failure = None;
    for spec in &specs {
        match start_engine(spec).await {
            Ok(e) => engines.push(e),
            Err(why) => {
                failure = Some(format!("player {}: {}: {why}", spec.who, spec.config.program));
                break;
            }
        }
    }
    if let Some(why) = failure {
        for e in engines {
            e.quit().await;
        }
        return Err(std::io::Error::other(why));
    }
    let mut tasks = Vec::new();
    for (spec, engine) in specs.into_iter().zip(engines) {
        let (tx, ids, mut gate) = (tx.clone(), Arc::clone(&ids), gate.subscribe());
        tasks.push(tokio::spawn(async move {
            let go = gate.wait_for(Option::is_some).await.is_ok_and(|g| *g == Some(true));
            if go {
                play(&spec, engine, &tx, &ids).await;
            } else {
                engine.quit().await;
            }
        }));
    }
    Ok(Local { tasks, gate })
}

/// One instance: its engine, and a connection after each one ends, until
/// the referee says disconnect or stops.
async fn play(spec: &Spec, engine: Driven, tx: &mpsc::Sender<Inbox>, ids: &AtomicU64) {
    let note = |text: String| {
        let tx = tx.clone();
        async move {
            let _ = tx.send(Inbox::Input(Input::Note(text))).await;
        }
    };
    let mut engine = Some(engine);
    let mut pause = Duration::from_secs(1);
    loop {
        let mut e = match engine.take() {
            Some(e) => e,
            None => match start_engine(spec).await {
                Ok(e) => {
                    pause = Duration::from_secs(1);
                    e
                }
                Err(why) => {
                    note(format!("player {}: {why}; starting it again in {:.0} s", spec.who, pause.as_secs_f64()))
                        .await;
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(30));
                    continue;
                }
            },
        };
        let Some(mut conn) = Conn::open(spec, tx, ids).await else {
            // The referee stopped.
            e.quit().await;
            return;
        };
        let outcome = session(&spec.conduct, &mut e, &mut conn, spec, tx).await;
        if let Err(err) = &outcome {
            // The game it plays is lost at once, as fastchess rules.
            let (failure, why) = match err {
                Failure::Move(_) => (EngineFailure::IllegalMove, err.to_string()),
                Failure::Engine(EngineError::Protocol { line, .. }) if line.starts_with("bestmove") => {
                    (EngineFailure::IllegalMove, line.clone())
                }
                Failure::Engine(EngineError::Timeout { .. }) => (EngineFailure::Stalled, err.to_string()),
                Failure::Engine(_) => (EngineFailure::Crashed, err.to_string()),
            };
            let failed = Input::Failed { id: conn.id, failure, why };
            let _ = tx.send(Inbox::Input(failed)).await;
        }
        conn.close(tx).await;
        match outcome {
            Ok(Session::Over | Session::Replaced) => {
                e.quit().await;
                return;
            }
            Ok(Session::Lost { .. } | Session::Silent) => {
                engine = Some(e);
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(err) => {
                // The game was lost (above) and the connection dropped; a
                // failed engine is started afresh at once for the next
                // game, as fastchess does (a pause grows only while it
                // cannot be started at all).
                let again = if matches!(err, Failure::Engine(_)) {
                    e.kill().await;
                    "starting it again"
                } else {
                    engine = Some(e);
                    "connecting again"
                };
                note(format!("player {}: {err}; {again}", spec.who)).await;
                if tx.is_closed() {
                    if let Some(e) = engine.take() {
                        e.quit().await;
                    }
                    return;
                }
            }
        }
    }
}

/// A connection to the director inside the process, signed on as the
/// player.
struct Conn {
    id: ConnId,
    rx: mpsc::Receiver<super::Out>,
    /// The director's bytes not yet taken as lines.
    buf: Vec<u8>,
    follower: Follower,
}

impl Conn {
    /// Opens the connection and signs on; `None` if the referee stopped.
    async fn open(spec: &Spec, tx: &mpsc::Sender<Inbox>, ids: &AtomicU64) -> Option<Conn> {
        let id = ids.fetch_add(1, Ordering::Relaxed);
        let (out_tx, rx) = mpsc::channel::<super::Out>(QUEUE);
        let peer = format!("local {}", spec.who);
        tx.send(Inbox::Connected { id, tx: out_tx, peer, reach: Reach::Local }).await.ok()?;
        let line = SignOn { name: &spec.name, token: spec.token.as_deref(), heartbeat: None }.to_line();
        tx.send(Inbox::Input(Input::Line { id, line, at: Instant::now() })).await.ok()?;
        Some(Conn { id, rx, buf: Vec::new(), follower: Follower::default() })
    }

    /// The director's next line (without its newline); `None` when it
    /// dropped the connection.
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=i).collect();
                line.pop();
                return Some(line);
            }
            let (bytes, _) = self.rx.recv().await?;
            self.buf.extend_from_slice(&bytes);
        }
    }

    /// Sends a line to the director as the client's, read at `at`.
    async fn send_read_at(&self, tx: &mpsc::Sender<Inbox>, line: Vec<u8>, at: Instant) -> bool {
        tx.send(Inbox::Input(Input::Line { id: self.id, line, at })).await.is_ok()
    }

    /// Closes the connection, as a client's socket closing would.
    async fn close(self, tx: &mpsc::Sender<Inbox>) {
        let why = "the local player left".to_owned();
        let _ = tx.send(Inbox::Input(Input::Closed { id: self.id, why })).await;
    }
}

/// Plays on `conn` with `engine` until the referee says disconnect or
/// the connection ends: [`player::session`]'s rule, driven by events.
async fn session(
    conduct: &Conduct,
    engine: &mut Driven,
    conn: &mut Conn,
    spec: &Spec,
    tx: &mpsc::Sender<Inbox>,
) -> Result<Session, Failure> {
    let say = |text: String| async move {
        let _ = tx.send(Inbox::Input(Input::Note(format!("player {}: {text}", spec.who)))).await;
    };
    let mut state = player::GameState::default();
    loop {
        let Some(line) = conn.next_line().await else {
            let heard = conn.follower.heard();
            return Ok(Session::Lost { why: "the referee closed the connection".into(), heard });
        };
        let command = match conn.follower.take(&line) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(e) => {
                say(e.to_string()).await;
                continue;
            }
        };
        match command {
            Command::Reset => {
                state = player::GameState::default();
                engine.new_game().await?;
            }
            Command::Respond => {
                let turn = player::turn(conduct, &conn.follower);
                engine.set_chess960(turn.chess960).await?;
                let (search, started) = engine.ask(&turn.start, conn.follower.moves(), &turn.limits).await?;
                // The clock runs from the go, as fastchess times it.
                let _ = tx.send(Inbox::Input(Input::Asked { id: conn.id, at: started })).await;
                let (analysis, read_at) = engine.answer(search).await?;
                if let Some(log) = spec.log.as_ref().filter(|_| spec.latency) {
                    // fastchess's -show-latency line: the time measured less
                    // the time the engine last reported.
                    let elapsed = started.elapsed().as_millis() as i64;
                    let reported = engine.reported_ms.unwrap_or(0) as i64;
                    log.line(&format!(
                        "Engine {} latency: {}ms (elapsed: {elapsed}, reported: {reported})",
                        spec.who,
                        elapsed - reported
                    ));
                }
                let (reply, eval) = player::answer(conduct, &mut state, &conn.follower, &analysis);
                let line = conn.follower.reply_line(reply, eval).map_err(Failure::Move)?;
                // ... and stops when the bestmove was read.
                if !conn.send_read_at(tx, line, read_at).await {
                    return Ok(Session::Lost { why: "the referee stopped".into(), heard: true });
                }
            }
            Command::Fault => {
                let why = conn.follower.record().and_then(|r| r.message.clone()).unwrap_or_default();
                say(format!("the referee reports a fault: {why}")).await;
            }
            Command::Disconnect => return Ok(Session::Over),
            Command::Inform | Command::Execute | Command::Conclude => {}
        }
    }
}

/// A UCI engine started and set up by [`UciEngine`], then driven from the
/// event loop: its output read as the runtime's sockets are.
struct Driven {
    child: std::process::Child,
    stdin: tokio::process::ChildStdin,
    out: tokio::process::ChildStdout,
    /// Output read and not yet taken as lines.
    buf: Vec<u8>,
    /// The line last taken (kept: no allocation per line).
    text: String,
    /// What one read takes in.
    chunk: Box<[u8; 8192]>,
    closed: bool,
    declared: Vec<String>,
    chess960: bool,
    ready_timeout: Duration,
    last: PositionCommand,
    /// The log and the engine's name in it, with `engine_log`.
    log: Option<(LogFile, String)>,
    /// The last `time` the engine reported in the search under way.
    reported_ms: Option<u64>,
    /// When the engine's output was last read.
    read_at: Instant,
}

impl Drop for Driven {
    fn drop(&mut self) {
        // An engine not made to quit (the runtime is going away) is
        // killed, never left behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Driven {
    /// Takes over a started engine.
    fn take(engine: UciEngine) -> std::io::Result<Driven> {
        let p = engine.into_parts().ok_or_else(|| std::io::Error::other("it is not running"))?;
        Ok(Driven {
            child: p.child,
            stdin: tokio::process::ChildStdin::from_std(p.stdin)?,
            out: tokio::process::ChildStdout::from_std(p.stdout)?,
            buf: p.pending,
            text: String::new(),
            chunk: Box::new([0; 8192]),
            closed: false,
            declared: p.declared,
            chess960: p.chess960,
            ready_timeout: p.handshake_timeout,
            last: PositionCommand::default(),
            log: None,
            reported_ms: None,
            read_at: Instant::now(),
        })
    }

    /// Why the engine stopped answering, with its exit status if it has
    /// one.
    fn crashed(&mut self, what: &str) -> EngineError {
        let detail = match self.child.try_wait() {
            Ok(Some(status)) => format!("{what} ({status})"),
            _ => what.to_owned(),
        };
        EngineError::Crashed { detail }
    }

    /// Writes `text` and a newline, in one write.
    async fn write(&mut self, text: &str) -> Result<(), EngineError> {
        if let Some((log, who)) = &self.log {
            for l in text.lines() {
                log_engine_line(log, who, Direction::ToEngine, l);
            }
        }
        let mut line = Vec::with_capacity(text.len() + 1);
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
        match self.stdin.write_all(&line).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.crashed(&format!("cannot write {text:?}: {e}"))),
        }
    }

    /// Takes the engine's next line into `text`; `false` at `deadline`.
    async fn line(&mut self, deadline: Option<Instant>) -> Result<bool, EngineError> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf) {
                let bytes = &self.buf[..i];
                self.text.clear();
                // UTF-8 checked the fast way first (engines write ASCII).
                match std::str::from_utf8(bytes) {
                    Ok(s) => self.text.push_str(s.trim_end()),
                    Err(_) => self.text.push_str(String::from_utf8_lossy(bytes).trim_end()),
                }
                self.buf.drain(..=i);
                if let Some((log, who)) = &self.log {
                    log_engine_line(log, who, Direction::FromEngine, &self.text);
                }
                return Ok(true);
            }
            if self.closed {
                return Err(self.crashed("closed its output"));
            }
            // A line longer than 1 MiB is cut there (no engine writes one).
            if self.buf.len() >= MAX_ENGINE_LINE {
                self.buf.push(b'\n');
                continue;
            }
            let read = self.out.read(&mut self.chunk[..]);
            let result = match deadline {
                Some(d) => match tokio::time::timeout_at(d.into(), read).await {
                    Ok(r) => r,
                    Err(_) => return Ok(false),
                },
                None => read.await,
            };
            match result {
                Ok(0) => {
                    self.closed = true;
                    // What is left without a newline is the last line.
                    if !self.buf.is_empty() {
                        self.buf.push(b'\n');
                    }
                }
                Ok(n) => {
                    self.buf.extend_from_slice(&self.chunk[..n]);
                    self.read_at = Instant::now();
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.closed = true,
            }
        }
    }

    /// `ucinewgame`, then `isready` and its `readyok`.
    async fn new_game(&mut self) -> Result<(), EngineError> {
        self.write("ucinewgame\nisready").await?;
        let deadline = Instant::now() + self.ready_timeout;
        loop {
            if !self.line(Some(deadline)).await? {
                return Err(EngineError::Timeout { waiting_for: "readyok", after: self.ready_timeout });
            }
            if self.text == "readyok" {
                return Ok(());
            }
        }
    }

    /// `UCI_Chess960` on or off, as [`UciEngine`] sets it.
    async fn set_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        if self.chess960 == on {
            return Ok(());
        }
        if !self.declared.iter().any(|d| d.eq_ignore_ascii_case("UCI_Chess960")) {
            if !on {
                self.chess960 = false;
                return Ok(());
            }
            let detail = "the engine does not declare the option UCI_Chess960, which Chess960 needs".to_owned();
            return Err(EngineError::Protocol { line: "uciok".into(), detail });
        }
        self.chess960 = on;
        self.write(&format!("setoption name UCI_Chess960 value {on}")).await
    }

    /// Asks the engine to search the game from `start` with `moves`: the
    /// search under way, and when the write of its `go` returned.
    async fn ask(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
    ) -> Result<(UciSearch, Instant), EngineError> {
        let (command, pos) = self.last.update(start, moves, self.chess960);
        let (search, text) = UciSearch::start(command, pos, limits, Instant::now());
        self.reported_ms = None;
        self.write(&text).await?;
        // The clock starts once the `go` is written, where fastchess
        // starts its own.
        Ok((search, Instant::now()))
    }

    /// Follows `search` to its `bestmove`: the analysis, and when the
    /// line was read.
    async fn answer(&mut self, mut search: UciSearch) -> Result<(Analysis, Instant), EngineError> {
        loop {
            match search.on_time(Instant::now(), false) {
                SearchAction::Wait => {}
                SearchAction::Stop => self.write("stop").await?,
                SearchAction::Fail(e) => return Err(e),
            }
            if !self.line(search.wake_at()).await? {
                continue;
            }
            if self.text.starts_with("info") {
                let mut words = self.text.split_ascii_whitespace();
                if words.any(|w| w == "time") {
                    self.reported_ms = words.next().and_then(|t| t.parse().ok()).or(self.reported_ms);
                }
            }
            if let Some(a) = search.on_line(&self.text)? {
                return Ok((a, self.read_at));
            }
        }
    }

    /// Tells the engine to quit, and kills it if it has not within 200 ms.
    async fn quit(mut self) {
        let _ = self.write("quit").await;
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // Dropped: killed.
    }

    /// Kills the engine (it failed).
    async fn kill(self) {
        drop(self);
    }
}
