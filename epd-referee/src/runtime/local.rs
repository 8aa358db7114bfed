//! Local players (`uci` in the event file): UCI engines the referee
//! drives itself, without a bridge process.
//!
//! Each instance is a thread that owns its engine for the whole event (the
//! hash and the process are kept from game to game) and plays through
//! [`player::session`], the rule `epd play` follows. Its connection to the
//! director is virtual: the lines it writes reach the director's inbox as
//! a TCP client's lines do ([`Input::Line`], after [`Inbox::Connected`];
//! [`Input::Closed`] when it leaves), and the director's messages come
//! back through the same bounded queue a TCP writer reads. So the director
//! cannot tell it from a client over TCP: the same sign-on (with the
//! player's token), the same clocks, journal and faults, and a player
//! that does not read is dropped as one over TCP is. What it saves is a
//! process and a socket per engine, and the four thread wake-ups each
//! move costs through them.
//!
//! When the engine fails (it crashed, hung or broke the protocol) the
//! thread drops its connection, as a crashed `epd play` would, and comes
//! back with the engine started again after a growing pause; the director
//! brings it back into its game within the event's `disconnect_grace`, or
//! the game is lost by abandonment.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use epd_engine::{find_program, UciConfig, UciEngine};
use tokio::sync::mpsc;

use super::{Inbox, Out, QUEUE};
use crate::client::{Client, SignOn};
use crate::director::{ConnId, Input};
use crate::event::{Event, Player};
use crate::player::{self, Conduct, Failure, Session};
use crate::protocol::MAX_RECORD;

/// Connection ids of local players start here, far from the listener's
/// (1, 2, ...) and the serial lines'.
const FIRST_ID: u64 = 1 << 48;

/// One instance of a local player.
#[derive(Clone, Debug)]
struct Spec {
    name: String,
    token: Option<String>,
    /// The name in notes: `sf`, or `sf #2` for the second instance.
    who: String,
    config: UciConfig,
    conduct: Conduct,
}

/// What the runtime keeps of its local players: their threads, and the
/// flag that tells them the event is over.
pub(super) struct Local {
    threads: Vec<std::thread::JoinHandle<()>>,
    over: Arc<AtomicBool>,
    gate: Arc<Gate>,
}

/// Where the players wait, engines started, for the event to begin
/// (`Some(true)`) or to be called off (`Some(false)`): none connects
/// before the director runs.
#[derive(Default)]
struct Gate {
    open: std::sync::Mutex<Option<bool>>,
    changed: std::sync::Condvar,
}

impl Gate {
    fn set(&self, go: bool) {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.is_none() {
            *open = Some(go);
        }
        self.changed.notify_all();
    }

    /// Whether the event began.
    fn wait(&self) -> bool {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if let Some(go) = *open {
                return go;
            }
            open = self.changed.wait(open).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

impl Local {
    /// Lets the players connect: the director is running.
    pub(super) fn begin(&self) {
        self.gate.set(true);
    }

    /// Tells the players the event is over and waits for their threads
    /// (each stops its engine: `quit`, then a kill after 200 ms). The
    /// director's inbox must be gone already (a player still connecting
    /// then hears the referee stopped).
    pub(super) async fn finish(self) {
        self.over.store(true, Ordering::Relaxed);
        self.gate.set(false);
        let threads = self.threads;
        let _ = tokio::task::spawn_blocking(move || {
            for t in threads {
                let _ = t.join();
            }
        })
        .await;
    }
}

fn specs(event: &Event) -> Vec<Spec> {
    let mut out = Vec::new();
    for p in &event.players {
        let Some(words) = &p.uci else { continue };
        for i in 0..p.instances() {
            out.push(Spec {
                name: p.name.clone(),
                token: p.token.clone(),
                who: if p.instances() > 1 { format!("{} #{}", p.name, i + 1) } else { p.name.clone() },
                config: config(p, words, event.variant.is_chess960()),
                conduct: conduct(p),
            });
        }
    }
    out
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

/// Starts an engine and checks that it has the options it is given.
fn start_engine(spec: &Spec) -> Result<UciEngine, String> {
    let engine = UciEngine::start(spec.config.clone()).map_err(|e| e.to_string())?;
    if let Some((name, _)) = spec.config.options.iter().find(|(n, _)| !engine.has_option(n)) {
        return Err(format!(
            "the engine has no option {name:?} (it declares: {})",
            if engine.declared_options().is_empty() { "none".to_owned() } else { engine.declared_options().join(", ") }
        ));
    }
    Ok(engine)
}

/// Starts every local player's instances, each on a thread of its own,
/// and waits until each has its engine running (started and set up).
///
/// # Errors
/// An engine that cannot be started or set up: the event does not begin.
pub(super) async fn start(event: &Event, tx: &mpsc::Sender<Inbox>) -> std::io::Result<Local> {
    let over = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(Gate::default());
    let ids = Arc::new(AtomicU64::new(FIRST_ID));
    let mut threads = Vec::new();
    let mut started = Vec::new();
    for spec in specs(event) {
        let (first_tx, first_rx) = tokio::sync::oneshot::channel();
        let (tx, ids, over, gate) = (tx.clone(), Arc::clone(&ids), Arc::clone(&over), Arc::clone(&gate));
        let who = spec.who.clone();
        let program = spec.config.program.clone();
        let thread = std::thread::Builder::new().name(format!("player {}", spec.who)).spawn(move || {
            if let Some(engine) = start_first(&spec, first_tx) {
                if gate.wait() {
                    play(&spec, engine, &tx, &ids, &over);
                }
            }
        })?;
        threads.push(thread);
        started.push((who, program, first_rx));
    }
    let mut failure = None;
    for (who, program, rx) in started {
        match rx.await {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                failure.get_or_insert_with(|| format!("player {who}: {program}: {why}"));
            }
            Err(_) => {
                failure.get_or_insert_with(|| format!("player {who}: {program}: its thread ended"));
            }
        }
    }
    let local = Local { threads, over, gate };
    if let Some(why) = failure {
        local.finish().await;
        return Err(std::io::Error::other(why));
    }
    Ok(local)
}

/// Starts an instance's engine and says how that went.
fn start_first(spec: &Spec, first: tokio::sync::oneshot::Sender<Result<(), String>>) -> Option<UciEngine> {
    match start_engine(spec) {
        Ok(e) => {
            let _ = first.send(Ok(()));
            Some(e)
        }
        Err(why) => {
            let _ = first.send(Err(why));
            None
        }
    }
}

/// One instance: its engine, and a connection after each one ends, until
/// the referee says disconnect or the event is over.
fn play(spec: &Spec, mut engine: UciEngine, tx: &mpsc::Sender<Inbox>, ids: &AtomicU64, over: &AtomicBool) {
    let note = |text: String| {
        let _ = tx.blocking_send(Inbox::Input(Input::Note(text)));
    };
    let mut pause = Duration::from_secs(1);
    while !over.load(Ordering::Relaxed) {
        let client = match connect(spec, tx, ids) {
            Ok(c) => c,
            Err(e) => {
                note(format!("player {}: cannot open its connection: {e}", spec.who));
                return;
            }
        };
        let mut say = |text: &str| note(format!("player {}: {text}", spec.who));
        match player::session(&spec.conduct, &mut engine, client, &mut say) {
            Ok(Session::Over) => return,
            Ok(Session::Lost { .. } | Session::Silent) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => {
                // The connection is dropped, as a crashed bridge's is; the
                // engine starts again at its next search.
                let again = if matches!(e, Failure::Engine(_)) { "starting it again" } else { "connecting again" };
                note(format!("player {}: {e}; {again} in {:.0} s", spec.who, pause.as_secs_f64()));
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(30));
            }
        }
    }
}

/// A connection to the director inside the process, signed on as the
/// player.
fn connect(spec: &Spec, tx: &mpsc::Sender<Inbox>, ids: &AtomicU64) -> std::io::Result<Client> {
    let id = ids.fetch_add(1, Ordering::Relaxed);
    let (out_tx, out_rx) = mpsc::channel::<Out>(QUEUE);
    let peer = format!("local {}", spec.who);
    tx.blocking_send(Inbox::Connected { id, tx: out_tx, peer })
        .map_err(|_| std::io::Error::other("the referee stopped"))?;
    let reader = FromDirector { rx: out_rx, buf: Vec::new(), at: 0 };
    let writer = ToDirector { id, tx: tx.clone(), line: Vec::new() };
    Client::over(
        (Box::new(reader), Box::new(writer)),
        &SignOn { name: &spec.name, token: spec.token.as_deref(), heartbeat: None },
    )
}

/// The director's messages to a local player, as a stream of bytes; its
/// end when the director drops the connection.
struct FromDirector {
    rx: mpsc::Receiver<Out>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for FromDirector {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            match self.rx.blocking_recv() {
                Some((bytes, _)) => {
                    self.buf = bytes;
                    self.at = 0;
                }
                None => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A local player's lines to the director: each one, at its newline, is
/// an [`Input::Line`] as a TCP client's is (over [`MAX_RECORD`] bytes,
/// [`Input::TooLong`] and the end of the connection); dropped, the
/// connection is closed.
struct ToDirector {
    id: ConnId,
    tx: mpsc::Sender<Inbox>,
    line: Vec<u8>,
}

impl Write for ToDirector {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let gone = || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the referee stopped");
        for &b in data {
            if b != b'\n' {
                self.line.push(b);
                if self.line.len() > MAX_RECORD + 1 {
                    let _ = self.tx.blocking_send(Inbox::Input(Input::TooLong { id: self.id }));
                    return Err(gone());
                }
                continue;
            }
            let line = std::mem::take(&mut self.line);
            self.tx
                .blocking_send(Inbox::Input(Input::Line { id: self.id, line, at: Instant::now() }))
                .map_err(|_| gone())?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ToDirector {
    fn drop(&mut self) {
        let why = "the local player left".to_owned();
        let _ = self.tx.blocking_send(Inbox::Input(Input::Closed { id: self.id, why }));
    }
}
