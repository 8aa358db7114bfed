//! The director: every decision of the referee (EPD §8), and nothing
//! else. It is a state machine in the manner of quinn-proto: it is told
//! what happened ([`Director::handle`], [`Director::handle_timeout`]),
//! says when it next needs waking ([`Director::poll_timeout`]) and what is
//! to be done ([`Director::poll_output`]). It reads no clock (every input
//! carries the instant it happened), opens no file or socket, starts no
//! task and prints nothing: the runtime (`epd_referee::runtime`) carries out
//! its outputs, and the simulation in `tests/simulation.rs` drives it
//! through thousands of seeded fault schedules.
//!
//! It holds the players, the connections, the games and the schedule, so
//! every decision is taken in one order. Its state is kept in parts that
//! own it, each with its methods and tests (quinn-proto's `Connection`
//! and its `PacketSpace`s, `Streams`, `Paths`): the clients
//! (`clients.rs`), the schedule and its games (`games.rs`), the results
//! (`tally.rs`), the write-ahead journal and the records held behind it
//! (`write_ahead.rs`), the standby and the epochs (`replication.rs`), the
//! live display (`view.rs`), the deadlines (`timers.rs`). Deadlines (a flag, the end of a
//! reset or conclude delay, a departed player's grace, a sign-on, the
//! standby's heartbeat) are kept in `timers`, so a client that never
//! answers loses on time when its flag falls, not when it next speaks.
//!
//! Time is measured by the referee: from the moment a `respond` record is
//! written to the moment the reply's last byte is read, less the event's
//! lag allowance.
//!
//! Write-ahead: every state change (a game started, each move with the
//! time it took, a game's end with its PGN, an abort, a pause) is staged
//! as a journal entry. The inputs taken up between two calls of
//! [`Director::poll_output`] form a step (the event file's `journal_sync
//! = "turn"` syncs once a step); at its end the step's entries go out as
//! one [`Output::Append`] (group commit) and the step's records
//! are held until the runtime reports them durable ([`Input::Synced`]),
//! and, with a hot standby, until the standby acknowledges them. Records
//! to the players the referee runs itself are not held (they die with
//! it), and a step with no other records lets its sync wait. So after
//! a crash at any instant, a resumption ([`Config::journal`]) finds every
//! record a client heard in the journal. Players sign on again; a
//! returning player is brought back into its game with reset, inform and
//! one execute record per move played (§8.1.3), then asked to respond
//! when it is its turn. The same happens when a client drops out mid-game
//! and signs on again within the event's disconnect grace.
//!
//! Order is deterministic: connections, games and deadlines are kept in
//! ordered maps, so one history of inputs gives one history of outputs.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use epd_core::{Color, Position};

use crate::event::{Event, HostLoss, Policy, ScheduledGame};
use crate::game::{DrawClaim, Ended, EngineFailure, Game, GameResult};
use crate::journal::entry::Entry;
use crate::pgn::{self, Tags};
use crate::protocol::{parse_request, Command, Outgoing, Request, MAX_RECORD};
use crate::redact::redacted;
use crate::standby::wire::{self as standby, Fenced, FromPrimary};

mod adjudication;
mod clients;
mod games;
mod replication;
mod replies;
mod supervisor;
mod tally;
mod timers;
mod view;
mod write_ahead;

use clients::Clients;
use games::{Games, Running};
use replication::Replication;
pub use supervisor::supervisor_command;
use tally::Tally;
use timers::Timers;
use view::Display;
pub use view::{FinishedGame, LiveGame, Snapshot, Standing, State};
use write_ahead::{Awaits, Transmit, WriteAhead};

/// How long a new connection has to sign on.
pub const SIGN_ON_TIMEOUT: Duration = Duration::from_secs(30);

/// With `host_loss = "void"`: how long the verdict on a remote mover
/// whose flag fell waits, so that a lost host (whose connection the
/// runtime closes within `runtime::DEAD_LINK` of its going silent) voids
/// the game instead of losing it on time. A reply in the window proves
/// the host alive: the flag stands at once.
pub const LOST_HOST_WINDOW: Duration = Duration::from_secs(6);

/// Faults a connection may run up in a burst: one more and it is closed
/// (a client that sends garbage costs the log a bounded amount).
pub const FAULT_BURST: u32 = 32;

/// How fast a connection's allowance of faults comes back: one fault per
/// this much time (ten a second), up to [`FAULT_BURST`]. A client that
/// faults with every move (a double reply each time, say) at ten moves a
/// second is never closed for it; a flood of garbage is, after the burst.
pub const FAULT_REFILL: Duration = Duration::from_millis(100);

/// How long a connection may wait to sign on before it counts against
/// [`MAX_UNSIGNED_PER_ADDRESS`] and [`MAX_UNSIGNED`]: clients that sign on
/// as they connect are never counted, however many come at once (a
/// worker host's slots, a referee's restart).
pub const UNSIGNED_GRACE: Duration = Duration::from_secs(1);

/// Connections from one address that have waited [`UNSIGNED_GRACE`] to
/// sign on, at most: beyond, the oldest of them are closed. A flood from
/// one address costs only its own connections.
pub const MAX_UNSIGNED_PER_ADDRESS: usize = 32;

/// Connections that have waited [`UNSIGNED_GRACE`] to sign on, at most,
/// from all addresses: beyond, the oldest are closed. The runtime keeps
/// room for every player the event names beyond these, so a flood never
/// keeps a player out for longer than the grace.
pub const MAX_UNSIGNED: usize = 256;

/// Notes about connections that have not signed on (connected, closed,
/// shed) the log takes in a burst; past it they are counted, and the
/// count is logged with the next note.
pub const CONNECTION_NOTES: u32 = 64;

/// How fast the allowance of [`CONNECTION_NOTES`] comes back: one note
/// per this much time.
pub const CONNECTION_NOTE_REFILL: Duration = Duration::from_millis(100);

/// The most bytes of a client's line echoed into the log (and of a
/// fault's reason); the rest is counted, not written.
pub const LOG_ECHO: usize = 512;

/// `text` cut to [`LOG_ECHO`] bytes (at a character's boundary), saying
/// how much was left out.
fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= LOG_ECHO {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = LOG_ECHO;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}... ({} bytes more)", &text[..end], text.len() - end))
}

/// A connection's number, given by the runtime; never reused in a run.
pub type ConnId = u64;

/// Who is at the other end of a connection, as far as the write-ahead
/// rule cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// A client that may outlive this referee (over TCP or a serial
    /// line): it is sent nothing the journal does not hold durably, so
    /// that after a crash it never has heard a move the resumed event
    /// lacks.
    Remote,
    /// A player the referee runs itself (an engine it drives): it dies
    /// with the referee and remembers nothing past it, so its records go
    /// out at once, without waiting for the disk or the standby.
    Local,
}

/// What the director starts from.
#[derive(Clone, Debug)]
pub struct Config {
    /// The event.
    pub event: Event,
    /// The openings the event's file names, read.
    pub openings: Vec<crate::book::Opening>,
    /// The journal's entries to resume from (`--resume`, a take-over);
    /// `None` for a new event.
    pub journal: Option<Vec<Vec<u8>>>,
    /// The PGN date (`2026.11.25`) unless the journal or the event file
    /// has one.
    pub date: String,
    /// The address this referee serves clients on: a resumed referee
    /// whose journal names a standby elsewhere asks it first.
    pub own: Option<String>,
    /// Publish the live display's state ([`Output::Publish`]).
    pub web: bool,
    /// Attach to each respond the instants of the reply it answers
    /// ([`Output::Send`]'s `answering`), to measure latency.
    pub measure: bool,
}

/// Deliberate defects for the simulation to find
/// ([`Director::with_defects`]); only with the `sim-defects` feature,
/// which this crate's own tests enable.
#[cfg(feature = "sim-defects")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Defects {
    /// A step's records go out before its journal entries are durable.
    pub send_before_sync: bool,
}

/// Something that happened, as the runtime saw it.
#[derive(Clone, Debug)]
pub enum Input {
    /// A client connected (over TCP: its address; a serial line: its
    /// device).
    Connected {
        /// Its connection.
        id: ConnId,
        /// Where it is.
        peer: String,
        /// Whether it dies with the referee.
        reach: Reach,
    },
    /// A whole line from a connection (without its newline), read at
    /// `at`.
    Line {
        /// The connection.
        id: ConnId,
        /// The line.
        line: Vec<u8>,
        /// When its last byte was read (the reply's time stops here).
        at: Instant,
    },
    /// A line longer than [`MAX_RECORD`]: the connection is closed.
    TooLong {
        /// The connection.
        id: ConnId,
    },
    /// A connection closed (by the client, an error, a timeout).
    Closed {
        /// The connection.
        id: ConnId,
        /// Why, for the log.
        why: String,
    },
    /// A connection does not read what it is sent (its queue is full).
    Stalled {
        /// The connection.
        id: ConnId,
    },
    /// A command typed at the console.
    Console(String),
    /// A supervisor action from the live display, and who sent it.
    Supervisor {
        /// The command, as the console takes it.
        command: String,
        /// Who sent it (an address).
        from: String,
    },
    /// A player the referee runs itself failed: its engine crashed,
    /// stalled or answered an illegal move. The game it plays is lost at
    /// once (fastchess's rule), and the connection is dropped; the
    /// player comes back with its engine started afresh. With the event's
    /// `recover = false` the event stops after that game.
    Failed {
        /// The player's connection.
        id: ConnId,
        /// How its engine failed.
        failure: EngineFailure,
        /// What was seen, for the log and an illegal move's comment.
        why: String,
    },
    /// A player the referee runs itself asked its engine (wrote its
    /// `go`) at `at`: the side to move's clock runs from there, as a
    /// tournament manager times its engines (fastchess from `go` to
    /// `bestmove`). The hand-over from the director to the engine is not
    /// the engine's time. Ignored from any other connection.
    Asked {
        /// The player's connection.
        id: ConnId,
        /// When the engine was asked.
        at: Instant,
    },
    /// A line for the log from the runtime (a player program exited).
    Note(String),
    /// Stop the event as `quit` does (the runtime was told to: SIGTERM,
    /// SIGINT), for this reason.
    Stop(String),
    /// The runtime listens for clients here.
    Listening(String),
    /// The journal entries of [`Output::Append`] `seq` (and every one
    /// before) are durable.
    Synced {
        /// The append.
        seq: u64,
    },
    /// [`Output::Append`] `seq` could not be made durable: the event stops.
    SyncFailed {
        /// The append.
        seq: u64,
        /// Why.
        error: String,
    },
    /// The answer to [`Output::Probe`]: the standby's epoch, if it
    /// answered (it has taken over).
    Probed(Option<u64>),
    /// What the old primary answered this referee, which took it over.
    Fenced(Fenced),
}

/// Something for the runtime to do, in order.
#[derive(Clone, Debug)]
pub enum Output {
    /// Send `line` (no newline) to a connection; a connection that does
    /// not take it is reported [`Input::Stalled`].
    Send {
        /// The connection.
        id: ConnId,
        /// The line.
        line: Vec<u8>,
        /// With [`Config::measure`]: when the reply this respond answers
        /// was read and taken up.
        answering: Option<(Instant, Instant)>,
    },
    /// Close a connection once what was sent to it is written.
    Close {
        /// The connection.
        id: ConnId,
    },
    /// Append these entries to the journal and sync them, then report
    /// [`Input::Synced`] (or [`Input::SyncFailed`]) with `seq`. Appends
    /// are numbered from 1 and carried out in order.
    Append {
        /// The append's number.
        seq: u64,
        /// The entries (JSON, no newline); none in an append that only
        /// asks for the sync of those before it.
        entries: Vec<Vec<u8>>,
        /// Records wait for this append: sync it at once. When false
        /// nothing waits for it (the step's records all went to the
        /// players the referee runs itself), so its sync may wait, for a
        /// second at most or until a later append's sync covers it.
        urgent: bool,
    },
    /// Send the standby on this connection the journal so far (`R`, a
    /// `J` line per entry, `C 0`); if it cannot be read, report the
    /// connection [`Input::Closed`].
    CopyJournal {
        /// The standby's connection.
        id: ConnId,
    },
    /// A line of the referee's own for the log (and, when verbose, the
    /// terminal).
    Note(String),
    /// A record for the log: `#3 alpha > ...` (sent) or `< ...`
    /// (received), escaped.
    Traffic(String),
    /// An answer to the console (standard error).
    Say(String),
    /// A finished game for the PGN file.
    Pgn(String),
    /// Replace the PGN file by this (atomically): the games over, as the
    /// journal holds them, when an event is resumed.
    ReplacePgn(String),
    /// The live display's new state.
    Publish(Snapshot),
    /// Ask the standby at `addr` for its epoch, again and again for
    /// `patience`, then report [`Input::Probed`].
    Probe {
        /// Its address.
        addr: String,
        /// How long to keep asking.
        patience: Duration,
    },
    /// The standings report for the event's report file.
    Report(String),
    /// The event is over (or stopped): nothing more comes.
    Done(Done),
}

/// How the event ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// Games played to an end.
    pub games: usize,
    /// The standings report (empty when stopped).
    pub report: String,
    /// Why the event stopped before its end, if it did.
    pub stopped: Option<Stopped>,
}

/// Why a referee stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// A referee with a newer epoch took the event over.
    SteppedDown(String),
    /// The journal could not be written.
    JournalFailed(String),
    /// A local player's engine crashed or stalled and the event does not
    /// recover (`recover = false`): the report is kept, `--resume` goes
    /// on.
    EngineFailed(String),
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
    /// The end of [`LOST_HOST_WINDOW`] after a remote mover's flag fell
    /// (`host_loss = "void"`).
    Held(usize),
    /// A client that has not signed on in time.
    SignOn(ConnId),
    /// The end of a client's quiet time: it may be paired again.
    Quiet(ConnId),
    /// A client that asked for heartbeats has been sent nothing for its
    /// heartbeat.
    Beat(ConnId),
    /// The next heartbeat to the standby.
    Heartbeat,
    /// The oldest held step waited too long for the standby.
    Ack,
    /// The live display's state is published.
    Publish,
    /// A connection has waited [`UNSIGNED_GRACE`] to sign on: the caps
    /// on such connections are applied.
    Shed,
}

/// Where the event stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Games are played.
    Playing,
    /// Asked to stop (`quit`, a signal, a journal that cannot be written,
    /// a newer referee): the event ends at the end of the step.
    Stopping,
    /// Over or stopped: what is left goes out, then [`Output::Done`].
    Ending,
    /// [`Output::Done`] has been given: nothing more comes.
    Done,
}

impl Phase {
    /// Asked to stop: a playing event ends at the end of the step; one
    /// ending already ends as it does.
    fn stop(&mut self) {
        if *self == Phase::Playing {
            *self = Phase::Stopping;
        }
    }

    /// Games may still be played and started: the event has not begun
    /// to end.
    fn playing(self) -> bool {
        matches!(self, Phase::Playing | Phase::Stopping)
    }
}

/// The referee's decisions; see the [module](self) documentation. Its
/// state is kept in parts, each the owner of its own: the clients, the
/// games, the results, the write-ahead journal and the records behind
/// it, the standby, the live display.
pub struct Director {
    event: Event,
    /// The latest instant an input carried.
    now: Instant,
    /// Inputs were taken up since the last step ended: the next
    /// [`Director::poll_output`] ends the step.
    step_pending: bool,
    /// What the runtime is to do, in order.
    out: VecDeque<Output>,
    /// Every deadline, nearest first.
    timers: Timers<Due, Instant>,
    /// Something happened that may let a game start (a sign-on, a game
    /// over, a quiet time ended): pair at the end of the step.
    to_pair: bool,
    phase: Phase,
    openings: Vec<crate::book::Opening>,
    date: String,
    /// Attach the reply's instant to the respond that answers it.
    measure: bool,
    clients: Clients,
    games: Games,
    tally: Tally,
    write_ahead: WriteAhead,
    /// Why the event stops for an engine that failed (`recover = false`).
    engine_stop: Option<String>,
    replication: Replication,
    display: Display,
}

impl std::fmt::Debug for Director {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Director")
            .field("event", &self.event.name)
            .field("epoch", &self.replication.epoch())
            .field("finished", &self.games.over_count())
            .field("running", &self.games.running.len())
            .field("conns", &self.clients.len())
            .field("held", &self.write_ahead.held_steps())
            .finish_non_exhaustive()
    }
}

fn side_index(c: Color) -> usize {
    usize::from(c == Color::Black)
}

impl Director {
    /// A director for `config.event`, starting at `now`: a new event, or
    /// one resumed from the journal's entries. Its first outputs replace
    /// the PGN file (when resumed) and append the run's `Begin` entry.
    ///
    /// # Errors
    /// The journal's entries are not this event's, or do not replay
    /// (`InvalidData`).
    pub fn new(config: Config, now: Instant) -> std::io::Result<Director> {
        Director::build(config, now, |_| {})
    }

    /// [`Director::new`] with deliberate defects, for the simulation to
    /// find.
    ///
    /// # Errors
    /// As [`Director::new`].
    #[cfg(feature = "sim-defects")]
    pub fn with_defects(config: Config, now: Instant, defects: Defects) -> std::io::Result<Director> {
        Director::build(config, now, |d| d.write_ahead.send_before_sync = defects.send_before_sync)
    }

    /// A director, set up by `prepare` before its first step.
    fn build(config: Config, now: Instant, prepare: impl FnOnce(&mut Director)) -> std::io::Result<Director> {
        let Config { event, openings, journal, date, own, web, measure } = config;
        let schedule = event.schedule(openings.len());
        let replayed = match &journal {
            Some(entries) => Some(crate::journal::replay::replay(&event, &openings, &schedule, entries)?),
            None => None,
        };
        let date = replayed.as_ref().and_then(|r| r.date.clone()).or_else(|| event.date.clone()).unwrap_or(date);
        let tally = Tally::new(event.players.iter().map(|p| p.name.clone()).collect(), event.report_penta);
        let epoch = replayed.as_ref().map_or(0, |r| r.epoch) + 1;
        let mut d = Director {
            event,
            now,
            step_pending: true,
            out: VecDeque::new(),
            timers: Timers::new(),
            to_pair: true,
            phase: Phase::Playing,
            openings,
            date,
            measure,
            clients: Clients::new(now),
            games: Games::new(schedule),
            tally,
            write_ahead: WriteAhead::default(),
            engine_stop: None,
            replication: Replication::new(epoch),
            display: Display::new(web),
        };
        prepare(&mut d);
        if let Some(r) = replayed {
            // The PGN holds exactly the games over, as they were written:
            // whatever a crash left in it is replaced.
            d.out.push_back(Output::ReplacePgn(r.pgn.concat()));
            // The standby the journal names may have taken over while this
            // referee was down, or may be about to: nothing goes out until
            // it follows again or cannot have.
            if let (Some((listen, beat)), Some(own)) = (&r.standby, &own) {
                if listen != own {
                    d.note(&format!("the journal names a standby at {listen}: holding records until it answers"));
                    d.watch_standby(listen.clone(), *beat + standby::ACK_TIMEOUT * 2);
                }
            }
            for ((&k, &(w, b, res, fault)), pgn) in r.done.iter().zip(&r.results).zip(&r.pgn) {
                d.count(k, (w, b), res);
                if let Some(f) = fault {
                    d.tally.add_fault(if res == GameResult::WhiteWins { b } else { w }, f);
                }
                let name = |p: usize| d.event.players[p].name.clone();
                let sched = d.games.scheduled(k);
                let g = FinishedGame::from_pgn(sched.number, d.round_name(&sched), name(w), name(b), res.pgn(), pgn);
                d.display.add_game_over(g);
            }
            for k in r.done {
                d.games.mark_over(k);
            }
            for (k, why) in r.voids {
                let number = d.games.scheduled(k).number;
                d.tally.add_void(number, why);
            }
            let until = now + d.event.disconnect_grace;
            for (k, (game, offer)) in r.running {
                let mut running = Running::new(d.games.scheduled(k), game, [None, None]);
                running.offer = offer;
                // Both players must sign on again within the grace.
                running.away = Some((Color::White, until));
                running.paused = r.paused.contains(&k).then_some(now);
                d.games.running.insert(k, running);
                d.rearm(k);
            }
        }
        let openings_seed = d.event.openings.as_ref().filter(|b| b.order == crate::BookOrder::Random).map(|b| b.seed);
        let begin = Entry::Begin {
            epoch,
            event: d.event.name.clone(),
            games: d.games.len(),
            date: d.date.clone(),
            openings_seed,
        };
        d.write_ahead(&begin);
        d.commit();
        d.note(&format!(
            "event {:?}: {} players, {} games, time control {}",
            d.event.name,
            d.event.players.len(),
            d.games.len(),
            d.event.time_control
        ));
        if epoch > 1 {
            let n = d.games.running.len();
            d.note(&format!(
                "resumed from the journal (epoch {epoch}): {} games over, {n} in progress, {} to play",
                d.games.over_count(),
                d.games.len() - d.games.over_count() - n
            ));
            // Games whose last move ended them, with the crash before
            // their end was written: ended now, as they would have been.
            let ended: Vec<(usize, Ended)> =
                d.games.running.iter().filter_map(|(&k, r)| r.game.ended().cloned().map(|e| (k, e))).collect();
            for (k, e) in ended {
                d.finish(k, e);
            }
            d.commit();
        }
        Ok(d)
    }

    /// This run's epoch.
    #[must_use]
    pub fn epoch(&self) -> u64 {
        self.replication.epoch()
    }

    /// Every game of the schedule is over, or the SPRT reached its
    /// verdict and the pairs under way then are over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.games.all_over()
            || (self.tally.verdict().is_some() && self.games.running.is_empty() && !self.games.half_pair_waiting())
    }

    /// Counts a game over: the standings, and in a match of two players
    /// its pair, once both games are over, to the pentanomial counts and
    /// the SPRT. Whether this game's pair reached the SPRT's verdict.
    fn count(&mut self, k: usize, players: (usize, usize), res: GameResult) -> bool {
        let pairs = self.event.players.len() == 2;
        let Some(p) = self.tally.add(k, players, res, pairs, self.event.sprt.as_ref()) else { return false };
        let Some(sprt) = self.event.sprt else { return false };
        let (lo, hi) = p.bounds;
        let llr = p.llr;
        let (trial, trials, counts) = match self.tally.counts() {
            crate::sprt::Counts::Pairs(penta) => ("pair", penta.pairs(), format!("Ptnml(0-2) {:?}", penta.counts)),
            crate::sprt::Counts::Games(g) => ("game", g.games(), format!("L-D-W {:?}", g.counts)),
        };
        self.note(&format!("{trial} {} over: {counts}, SPRT LLR {llr:.2} ({lo:.2}, {hi:.2})", p.pair + 1));
        let Some(v) = p.decided else { return false };
        let which = if v == crate::sprt::Verdict::H1 { "H1 accepted" } else { "H0 accepted" };
        self.note(&format!(
            "SPRT {sprt}: {which} after {trials} {trial}s (LLR {llr:.2}, bounds {lo:.2} {hi:.2}); the pairs under way \
             finish, no other starts"
        ));
        true
    }

    /// The results block of a match of two players.
    pub(super) fn results(&self) -> Option<String> {
        (self.event.players.len() == 2).then(|| {
            let mut block = crate::sprt::results_block(
                &self.event.players[0].name,
                &self.event.players[1].name,
                self.tally.counts(),
                self.event.sprt.as_ref(),
            );
            // Games void (host_loss = "void") count for nothing above.
            let void = self.tally.voids();
            if void > 0 {
                block.push_str(&format!("Void: {void} (not scored, played again)\n"));
            }
            block
        })
    }

    /// Connections that have waited [`UNSIGNED_GRACE`] or longer to sign
    /// on: in all, and the most from one address. Once a step has ended
    /// they are within [`MAX_UNSIGNED`] and [`MAX_UNSIGNED_PER_ADDRESS`].
    #[must_use]
    pub fn waiting_to_sign_on(&self) -> (usize, usize) {
        match self.now.checked_sub(UNSIGNED_GRACE) {
            Some(before) => self.clients.waiting(before, |id| self.replication.is_follower(id)),
            None => (0, 0),
        }
    }

    /// Games over so far.
    #[must_use]
    pub fn finished(&self) -> usize {
        self.games.over_count()
    }

    /// Takes up what happened at `now`.
    pub fn handle(&mut self, now: Instant, input: Input) {
        self.advance(now);
        match self.phase {
            Phase::Done => return,
            Phase::Ending if !matches!(input, Input::Synced { .. } | Input::SyncFailed { .. } | Input::Probed(_)) => {
                return;
            }
            _ => {}
        }
        self.step_pending = true;
        self.display.touch();
        match input {
            Input::Listening(a) => self.note(&format!("listening on {a}")),
            Input::Connected { id, peer, reach } => {
                let text = format!("#{id} connected from {peer}");
                self.connection_note(&text);
                self.clients.connect(id, peer, reach, now);
                if reach == Reach::Remote && self.timers.get(Due::Shed).is_none() {
                    self.timers.set(Due::Shed, Some(now + UNSIGNED_GRACE));
                }
                self.timers.set(Due::SignOn(id), Some(now + SIGN_ON_TIMEOUT));
            }
            Input::Line { id, line, at } => {
                if self.replication.is_follower(id) {
                    self.on_follower_line(id, &line);
                    return;
                }
                if line.starts_with(standby::HELLO) && self.clients.get(id).is_some_and(|c| c.player.is_none()) {
                    self.on_hello(id, &line);
                    return;
                }
                if !self.clients.contains(id) {
                    return;
                }
                // A blank line says nothing (a keep-alive): not logged. A
                // long one is logged cut short. A player the referee runs
                // itself speaks inside the process: its records are not
                // logged (its engine's UCI lines are, with engine_log).
                if !self.clients.is_local(id) && !line.iter().all(u8::is_ascii_whitespace) {
                    let who = self.name_of(id);
                    let shown = epd_core::escaped(&redacted(&line));
                    self.out.push_back(Output::Traffic(format!("{who} < {}", cut(&shown))));
                }
                self.on_line(id, &line, at);
            }
            Input::TooLong { id } => {
                let pos = Position::startpos();
                self.fault(id, &pos, &format!("a line longer than {MAX_RECORD} bytes; disconnected"));
                self.drop_conn(id, "over-long line");
            }
            Input::Closed { id, why } => {
                if let Some(c) = self.clients.get(id) {
                    let text = format!("{} disconnected: {why}", self.name_of(id));
                    if c.player.is_some() {
                        self.note(&text);
                    } else {
                        self.connection_note(&text);
                    }
                    self.drop_conn(id, &why);
                }
            }
            Input::Stalled { id } => {
                if self.replication.is_follower(id) {
                    self.note("the standby is not reading the journal; dropped");
                    self.drop_conn(id, "standby not reading");
                } else if self.clients.contains(id) {
                    let who = self.name_of(id);
                    self.note(&format!("{who}: not reading its records; dropped"));
                    self.drop_conn(id, "not reading");
                }
            }
            Input::Console(cmd) => self.on_console(&cmd),
            Input::Supervisor { command, from } => {
                self.note(&format!("supervisor (web, {from}): {command}"));
                self.on_console(&command);
            }
            Input::Failed { id, failure, why } => {
                if self.clients.contains(id) {
                    self.engine_failed(id, failure, &why);
                    self.drop_conn(id, &why);
                }
            }
            Input::Asked { id, at } => {
                if self.clients.is_local(id) {
                    if let Some(k) = self.clients.get(id).and_then(|c| c.game) {
                        self.clock_starts_at(k, id, at.min(now));
                    }
                }
            }
            Input::Note(text) => self.note(&text),
            Input::Stop(why) => {
                self.note(&why);
                self.phase.stop();
            }
            Input::Synced { seq } => {
                self.write_ahead.synced(seq);
                self.release();
            }
            Input::SyncFailed { error, .. } => self.fail(&error),
            Input::Probed(answer) => self.on_probed(answer),
            Input::Fenced(Fenced::Yielded) => self.note("the old primary stepped down"),
            Input::Fenced(Fenced::Newer(n)) => self.step_down(format!(
                "the old primary has a newer epoch ({n}; this one's is {}): stepping down",
                self.replication.epoch()
            )),
        }
    }

    /// Acts on the deadlines due at `now` ([`Director::poll_timeout`]).
    pub fn handle_timeout(&mut self, now: Instant) {
        self.advance(now);
        if self.phase != Phase::Done {
            self.step_pending = true;
        }
    }

    /// When the director must be woken ([`Director::handle_timeout`])
    /// if nothing happens first: `None` when only an input can wake it.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.phase == Phase::Done {
            return None;
        }
        if self.step_pending {
            return Some(self.now);
        }
        if self.phase == Phase::Ending {
            // Only the journal's last syncs are awaited.
            return None;
        }
        self.timers.next()
    }

    /// The next thing to do. The first call after inputs ends the step:
    /// due deadlines are acted on, games paired, the step's entries
    /// appended and its records queued behind them.
    pub fn poll_output(&mut self) -> Option<Output> {
        if std::mem::take(&mut self.step_pending) {
            self.end_step();
        }
        self.out.pop_front()
    }

    fn end_step(&mut self) {
        if self.phase.playing() {
            let now = self.now;
            self.tick(now);
            self.commit();
            self.schedule_publish();
            if self.phase == Phase::Stopping || self.is_over() {
                self.end_event();
            }
        }
        if self.phase == Phase::Ending && (!self.write_ahead.holds_any() || self.write_ahead.failed()) {
            self.phase = Phase::Done;
            self.timers = Timers::new();
            let stopped = match (self.replication.take_stepped_down(), self.write_ahead.take_failure()) {
                (Some(why), _) => Some(Stopped::SteppedDown(why)),
                (None, Some(e)) => Some(Stopped::JournalFailed(e)),
                (None, None) => self.engine_stop.take().map(Stopped::EngineFailed),
            };
            let report = if matches!(stopped, Some(Stopped::SteppedDown(_))) { String::new() } else { self.report() };
            self.out.push_back(Output::Done(Done { games: self.games.over_count(), report, stopped }));
        }
    }

    fn report(&self) -> String {
        let mut text = format!(
            "{}\n{} games of {}; time control {}\n\n{}",
            self.event.name,
            self.games.over_count(),
            self.games.len(),
            self.event.time_control,
            self.tally.standings().report()
        );
        if let Some(block) = self.results() {
            text.push('\n');
            text.push_str(&block);
        }
        let names: Vec<String> = self.event.players.iter().map(|p| p.name.clone()).collect();
        let faults = self.tally.faults_report(&names);
        if !faults.is_empty() {
            text.push('\n');
            text.push_str(&faults);
        }
        let voids = self.tally.voids_report();
        if !voids.is_empty() {
            text.push('\n');
            text.push_str(&voids);
        }
        text
    }

    /// The event is over, or stopped: standings, then everyone is told to
    /// disconnect; the standby hears that the event is over (or stopped).
    /// A referee that stepped down tells nobody anything: its clients'
    /// connections close with it, and they fail over.
    fn end_event(&mut self) {
        self.phase = Phase::Ending;
        if self.replication.stepped_down() || self.write_ahead.failed() {
            self.write_ahead.drop_held();
            return;
        }
        // The records held for a standby go out: the event is over. Not
        // while the standby is asked whether it took over: the answer
        // decides (this referee may have been superseded).
        if !self.replication.probing() {
            self.write_ahead.await_nothing();
            self.release();
        }
        let last = if self.is_over() { FromPrimary::Over } else { FromPrimary::Quit };
        self.tell_follower(&last);
        if let Some(id) = self.replication.release_follower() {
            if self.clients.forget(id).is_some() {
                self.out.push_back(Output::Close { id });
            }
        }
        if self.is_over() {
            self.write_ahead(&Entry::Over);
        }
        self.publish(false);
        self.out.push_back(Output::Report(self.report()));
        let pos = Position::startpos();
        for id in self.clients.ids() {
            let line = Outgoing::new(Command::Disconnect, &pos).to_line();
            self.send(id, line);
            // One not signed on has nothing more to hear: closed, so
            // that none waits past the caps while the journal's last
            // syncs are awaited.
            if self.clients.get(id).is_some_and(|c| c.player.is_none()) {
                self.drop_conn(id, "the event is over");
            }
        }
        self.commit();
        self.note("event over");
    }

    /// Stages `entry` for the journal: it is made durable at the end of
    /// the step, before any record of the step goes out (group commit:
    /// one sync per step, however many moves the step took up).
    fn write_ahead(&mut self, entry: &Entry) {
        match serde_json::to_vec(entry) {
            Ok(bytes) => self.write_ahead.stage(bytes),
            Err(e) => self.fail(&e.to_string()),
        }
    }

    /// Ends a step: its journal entries go to the journal (and to the
    /// standby), its records wait behind them. If the journal cannot be
    /// written, nothing of the step goes out and the event stops: nothing
    /// may be acted on that the journal does not hold.
    fn commit(&mut self) {
        let (staged, records) = self.write_ahead.take_step();
        if self.write_ahead.failed() || self.replication.stepped_down() {
            return;
        }
        let entries = !staged.is_empty();
        // Records to the players the referee runs itself go out now, not
        // behind the sync: such a player dies with the referee, so none
        // outlives a crash having heard what the journal lacks. (They
        // still come after the append, which the runtime writes before
        // it syncs.) A connection is one or the other for its whole life,
        // so no record to it overtakes an older one.
        let (now_records, records): (Vec<Transmit>, Vec<Transmit>) =
            records.into_iter().partition(|t| t.conn().is_some_and(|id| self.clients.is_local(id)));
        // An append is synced at once only when records wait for it; one
        // nothing waits for (a move between local players) may wait, and
        // a later sync covers it. Records held behind such an append ask
        // for its sync with an append of no entries.
        let urgent = !records.is_empty();
        if entries || (urgent && self.write_ahead.lazy()) {
            let seq = self.write_ahead.append(urgent);
            if entries {
                self.replicate(&staged);
            }
            self.out.push_back(Output::Append { seq, entries: staged, urgent });
        }
        if !now_records.is_empty() {
            self.deliver(now_records);
        }
        if records.is_empty() {
            return;
        }
        // With a standby, every record waits for an acknowledgement given
        // after it was decided, entries or not (a step without entries
        // sends the standby an empty batch): a referee that was frozen and
        // superseded meanwhile hears none, and sends nothing before it
        // learns it must step down. A referee asking a lost standby
        // whether it took over holds everything until the answer.
        let awaits = if self.replication.follower().is_some() {
            if !entries {
                self.replicate(&[]);
            }
            self.replication.last_batch().map_or(Awaits::Nothing, Awaits::Ack)
        } else if self.replication.probing() {
            Awaits::Probe
        } else {
            Awaits::Nothing
        };
        self.write_ahead.hold(records, awaits, self.now);
        self.release();
    }

    /// Sends the held steps, oldest first, that are durable here and, as
    /// far as they need, at the standby.
    fn release(&mut self) {
        let records = self.write_ahead.release(self.replication.acked());
        if !records.is_empty() {
            self.deliver(records);
        }
        self.arm_ack();
    }

    /// The deadline for the standby's acknowledgement of the oldest
    /// record waiting for it.
    fn arm_ack(&mut self) {
        let next = match self.replication.follower() {
            Some(_) => self.write_ahead.oldest_awaiting_standby().map(|t| t + standby::ACK_TIMEOUT),
            None => None,
        };
        self.timers.set(Due::Ack, next);
    }

    /// Queues a step's records and closes for the runtime. A record is
    /// logged as it goes out: one held for the standby and then dropped
    /// (this referee stepped down) never shows as sent.
    fn deliver(&mut self, records: Vec<Transmit>) {
        for t in records {
            match t {
                Transmit::Send { id, line, answering, who, asks } => {
                    if let Some(who) = who {
                        if self.clients.reachable(id) {
                            self.out.push_back(Output::Traffic(format!("{who} > {}", String::from_utf8_lossy(&line))));
                        }
                    }
                    self.out.push_back(Output::Send { id, line, answering });
                    if let Some(h) = self.clients.get(id).and_then(|c| c.heartbeat) {
                        self.timers.set(Due::Beat(id), Some(self.now + h));
                    }
                    if let Some(k) = asks {
                        self.clock_starts(k, id);
                    }
                }
                Transmit::Pgn(text) => self.out.push_back(Output::Pgn(text)),
                Transmit::Close { id } => {
                    self.clients.closed(id);
                    self.out.push_back(Output::Close { id });
                }
            }
        }
    }

    /// A respond went out: the side to move's clock runs from now, not
    /// from when it was decided (the journal's sync, or a standby's
    /// acknowledgement, is not the player's time).
    fn clock_starts(&mut self, k: usize, id: ConnId) {
        self.clock_starts_at(k, id, self.now);
    }

    /// The side to move's clock in game `k`, asked on `id`, runs from
    /// `at` (later than it ran from; never across a pause).
    fn clock_starts_at(&mut self, k: usize, id: ConnId, at: Instant) {
        let Some(r) = self.games.running.get_mut(&k) else { return };
        if r.asked_id == Some(id) && r.paused.is_none() && r.asked_at.is_some_and(|t| t < at) {
            r.asked_at = Some(at);
            self.rearm(k);
        }
    }

    fn fail(&mut self, error: &str) {
        let msg = format!("{}: cannot write the journal: {error}", self.event.journal.display());
        self.note(&format!("{msg}; the event stops"));
        self.out.push_back(Output::Say(format!("argus: {msg}; the event stops")));
        self.write_ahead.fail(msg);
        self.phase.stop();
        self.step_pending = true;
    }

    fn note(&mut self, text: &str) {
        self.out.push_back(Output::Note(text.to_owned()));
    }

    /// A note about a connection not signed on, within the log's
    /// allowance for them ([`CONNECTION_NOTES`]).
    fn connection_note(&mut self, text: &str) {
        if let Some(text) = self.clients.connection_note(self.now, text) {
            self.note(&text);
        }
    }

    /// Closes the connections that have waited [`UNSIGNED_GRACE`] to sign
    /// on beyond [`MAX_UNSIGNED_PER_ADDRESS`] from one address and
    /// [`MAX_UNSIGNED`] in all, the oldest first, and looks again when
    /// the next one will have waited as long. Each is told why; the log
    /// gets one note.
    fn shed_unsigned(&mut self) {
        let Some(before) = self.now.checked_sub(UNSIGNED_GRACE) else {
            // Within a second of the clock's origin nobody has waited.
            self.timers.set(Due::Shed, Some(self.now + UNSIGNED_GRACE));
            return;
        };
        let replication = &self.replication;
        let (shed, next) = self
            .clients
            .over_the_caps(MAX_UNSIGNED_PER_ADDRESS, MAX_UNSIGNED, before, |id| replication.is_follower(id));
        self.timers.set(Due::Shed, next.map(|t| t + UNSIGNED_GRACE));
        if shed.is_empty() {
            return;
        }
        let why = format!(
            "too many connections waiting to sign on (at most {MAX_UNSIGNED_PER_ADDRESS} from one address, \
             {MAX_UNSIGNED} in all; the oldest are closed); disconnected"
        );
        let pos = Position::startpos();
        let mut o = Outgoing::new(Command::Fault, &pos);
        o.message = Some(&why);
        let line = o.to_line();
        for &id in &shed {
            self.write_ahead.queue(Transmit::bare(id, line.clone()));
            self.drop_conn(id, "shed");
        }
        let first = shed[0];
        let text = format!(
            "#{first}{}: closed, not signed on: over {MAX_UNSIGNED_PER_ADDRESS} from one address or \
             {MAX_UNSIGNED} in all",
            match shed.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        );
        self.connection_note(&text);
    }

    fn say(&mut self, text: String) {
        self.out.push_back(Output::Say(text));
    }

    fn name_of(&self, id: ConnId) -> String {
        match self.clients.get(id).and_then(|c| c.player) {
            Some(p) => format!("#{id} {}", self.event.players[p].name),
            None => format!("#{id}"),
        }
    }

    /// Queues a record for a client (logged when it goes out).
    fn send(&mut self, id: ConnId, line: Vec<u8>) {
        self.queue_record(id, line, None, None);
    }

    /// Queues a respond in game `k` for a client: its clock starts when
    /// it goes out; `answering`: the instants of the reply it answers.
    fn send_respond(&mut self, id: ConnId, line: Vec<u8>, k: usize, answering: Option<(Instant, Instant)>) {
        self.queue_record(id, line, Some(k), answering);
    }

    fn queue_record(&mut self, id: ConnId, line: Vec<u8>, asks: Option<usize>, answering: Option<(Instant, Instant)>) {
        if !self.clients.reachable(id) {
            return; // a side away, or a game resumed before its players came back
        }
        // Logged as it goes out, unless to a player the referee runs
        // itself (above).
        let who = (!self.clients.is_local(id)).then(|| self.name_of(id));
        self.write_ahead.queue(Transmit::Send { id, line, answering, who, asks });
    }

    /// Tells `id` of a fault and charges it to the connection's
    /// allowance ([`FAULT_BURST`], [`FAULT_REFILL`]): a connection past it
    /// is told so and closed.
    fn fault(&mut self, id: ConnId, pos: &Position, why: &str) {
        self.fault_record(id, pos, why);
        if !self.clients.charge_fault(id, self.now) {
            let why = format!(
                "too many faults ({FAULT_BURST} at once, or more than one every {} ms); disconnected",
                FAULT_REFILL.as_millis()
            );
            self.fault_record(id, pos, &why);
            self.drop_conn(id, "too many faults");
        }
    }

    fn fault_record(&mut self, id: ConnId, pos: &Position, why: &str) {
        let why = cut(why);
        let mut o = Outgoing::new(Command::Fault, pos);
        o.message = Some(&why);
        let line = o.to_line();
        let who = self.name_of(id);
        self.note(&format!("{who}: fault: {why}"));
        self.send(id, line);
    }

    /// Sets a game's deadlines from its state: its flag, its start, its
    /// departed player's grace (none while it is paused or over).
    fn rearm(&mut self, k: usize) {
        let (flag, start, away, held) = match self.games.running.get(&k) {
            Some(r) if r.paused.is_none() => {
                (self.flag_time(r), r.starts_at, r.away.map(|(_, t)| t), r.flag_held.map(|t| t + LOST_HOST_WINDOW))
            }
            _ => (None, None, None, None),
        };
        self.timers.set(Due::Flag(k), flag);
        self.timers.set(Due::Start(k), start);
        self.timers.set(Due::Away(k), away);
        self.timers.set(Due::Held(k), held);
    }

    /// Sets client `id`'s quiet time; it may be paired when it ends.
    fn quiet(&mut self, id: ConnId, until: Instant) {
        self.to_pair = true;
        if let Some(c) = self.clients.get_mut(id) {
            c.quiet_until = until;
            self.timers.set(Due::Quiet(id), Some(until));
        }
    }

    /// When the side to move's flag falls.
    fn flag_time(&self, r: &Running) -> Option<Instant> {
        let asked = r.asked_at?;
        if r.game.ended().is_some() || r.away.is_some() || r.paused.is_some() || r.flag_held.is_some() {
            return None;
        }
        let side = r.game.position().turn();
        // No clock (`-`), no flag: the player's own limits bound it.
        let clock = r.game.clock(side);
        clock.is_running().then(|| asked + clock.remaining() + self.event.lag)
    }

    /// Acts on what has fallen due (each checked against the state: a
    /// deadline is only a reminder), then pairs.
    fn tick(&mut self, now: Instant) {
        for due in self.timers.take_due(now) {
            match due {
                Due::Shed => self.shed_unsigned(),
                Due::SignOn(id) => {
                    if self.clients.get(id).is_some_and(|c| c.player.is_none()) {
                        let pos = Position::startpos();
                        self.fault(id, &pos, "no sign_on in time");
                        self.drop_conn(id, "no sign_on");
                    }
                }
                Due::Flag(k) => {
                    if self.games.running.get(&k).and_then(|r| self.flag_time(r)).is_some_and(|t| now >= t) {
                        let remote = self.games.running[&k].mover().is_some_and(|id| !self.clients.is_local(id));
                        if self.event.host_loss == HostLoss::Void && remote {
                            // Its host may be lost rather than its engine
                            // slow: the verdict waits for the runtime to
                            // close a dead connection.
                            let r = self.games.running.get_mut(&k).expect("running");
                            r.flag_held = Some(now);
                            let (n, side) = (r.sched.number, r.game.position().turn());
                            self.rearm(k);
                            self.note(&format!(
                                "game {n}: {side}'s flag fell; the verdict waits {} s for its host",
                                LOST_HOST_WINDOW.as_secs()
                            ));
                        } else {
                            self.flag(k);
                        }
                    }
                }
                Due::Held(k) => {
                    let held = self.games.running.get(&k).is_some_and(|r| r.paused.is_none() && r.flag_held.is_some());
                    if held {
                        // Its host kept its connection: the flag stands.
                        self.flag(k);
                    }
                }
                Due::Away(k) => {
                    let Some(r) = self.games.running.get_mut(&k) else { continue };
                    if let (Some((side, until)), None) = (r.away, r.paused) {
                        if now >= until {
                            if self.event.host_loss == HostLoss::Void {
                                // The infrastructure lost the game, not the
                                // engine: void, and played again.
                                let who = &self.event.players
                                    [if side == Color::White { r.sched.white } else { r.sched.black }]
                                .name;
                                let left = r.left.as_deref().unwrap_or("the referee resumed");
                                let why = format!("{who} ({side}) away past the disconnect grace ({left})");
                                if let Some(n) = self.take_back(k, Some(why.clone())) {
                                    self.note(&format!("game {n} void: {why}; it is played again"));
                                }
                            } else {
                                let e = r.game.abandon(side);
                                self.finish(k, e);
                            }
                        }
                    }
                }
                Due::Start(k) => {
                    let Some(r) = self.games.running.get(&k) else { continue };
                    if r.paused.is_none() && r.starts_at.is_some_and(|t| now >= t) {
                        self.begin(k, now);
                    }
                }
                Due::Quiet(_) => self.to_pair = true,
                Due::Beat(id) => {
                    // A blank line, held like a record: a referee whose
                    // records wait (for the journal, for a standby that
                    // may have taken over) sends no heartbeat either, so
                    // its clients time out and fail over.
                    if self.clients.get(id).is_some_and(|c| c.heartbeat.is_some()) {
                        self.write_ahead.queue(Transmit::bare(id, Vec::new()));
                    }
                }
                Due::Heartbeat => {
                    if let Some(every) = self.replication.heartbeat_every() {
                        self.tell_follower(&FromPrimary::Heartbeat);
                        self.timers.set(Due::Heartbeat, Some(now + every));
                    }
                }
                Due::Publish => {
                    self.display.due();
                    self.publish(true);
                }
                Due::Ack => {
                    let oldest = self.write_ahead.oldest_awaiting_standby();
                    let late = oldest.is_some_and(|t| now >= t + standby::ACK_TIMEOUT);
                    if let (true, Some(id)) = (late, self.replication.follower()) {
                        self.note("the standby did not acknowledge the journal in time; dropped");
                        self.drop_conn(id, "standby too slow");
                    } else {
                        self.arm_ack();
                    }
                }
            }
        }
        if std::mem::take(&mut self.to_pair) {
            self.pair(now);
        }
    }

    /// A local player's engine failed: the game it plays, if any, is lost
    /// at once; without `recover` the event stops (after that game's end
    /// is journalled) and says why.
    fn engine_failed(&mut self, id: ConnId, failure: EngineFailure, why: &str) {
        let who = self.name_of(id);
        self.note(&format!("{who}: its engine failed: {why}"));
        let Some(k) = self.clients.get(id).and_then(|c| c.game) else { return };
        let Some(r) = self.games.running.get_mut(&k) else { return };
        let Some(side) = r.side_of(id) else { return };
        if r.game.ended().is_some() {
            return;
        }
        let number = r.sched.number;
        let e = r.game.engine_failed(side, failure, why);
        self.finish(k, e);
        if !self.event.recover && !matches!(failure, EngineFailure::IllegalMove) {
            let player =
                self.clients.get(id).and_then(|c| c.player).map_or("?", |p| self.event.players[p].name.as_str());
            let how = if failure == EngineFailure::Stalled { "stalled" } else { "crashed" };
            let why = format!(
                "game {number}: the engine of {player} {how} ({why}) and the event does not recover (epd match: no \
                 -recover): the event stops"
            );
            self.note(&why);
            self.engine_stop.get_or_insert(why);
            self.phase.stop();
        }
    }

    /// Game `k`'s side to move loses on time.
    pub(super) fn flag(&mut self, k: usize) {
        let Some(r) = self.games.running.get_mut(&k) else { return };
        let side = r.game.position().turn();
        let e = r.game.flag(side);
        self.finish(k, e);
    }

    /// Forgets a connection: its last records still go out, then it is
    /// closed. A player away from its game has the event's grace to come
    /// back; one whose flag fell while the verdict waited for its host
    /// voids its game at once.
    fn drop_conn(&mut self, id: ConnId, why: &str) {
        let Some(c) = self.clients.drop_conn(id) else { return };
        if self.replication.is_follower(id) {
            // If this referee goes on without it (the probe decides; if
            // the standby took over, nothing goes out), the standby is
            // told its copy is behind before the connection closes.
            self.write_ahead.queue(Transmit::bare(id, FromPrimary::Dropped.to_line()));
            self.write_ahead.queue(Transmit::Close { id });
            self.follower_lost();
            return;
        }
        self.write_ahead.queue(Transmit::Close { id });
        self.timers.set(Due::SignOn(id), None);
        self.timers.set(Due::Quiet(id), None);
        self.timers.set(Due::Beat(id), None);
        let Some(k) = c.game else { return };
        // Another connection of the player, signed on and free, takes the
        // game over at once (in this step's pairing).
        self.to_pair = true;
        let grace = self.event.disconnect_grace;
        let now = self.now;
        if let Some(r) = self.games.running.get_mut(&k) {
            let side = if r.conns[0] == Some(id) { Color::White } else { Color::Black };
            r.conns[side_index(side)] = None;
            if r.flag_held.is_some() && side == r.game.position().turn() {
                let who = &self.event.players[if side == Color::White { r.sched.white } else { r.sched.black }].name;
                let why = format!("{who} ({side}) lost its connection as its flag fell ({why})");
                if let Some(n) = self.take_back(k, Some(why.clone())) {
                    self.note(&format!("game {n} void: {why}; it is played again"));
                }
                return;
            }
            if r.away.is_none() {
                r.away = Some((side, now + grace));
                r.left = Some(why.to_owned());
            }
        }
        self.rearm(k);
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A stop asked while games are played ends the event at the end of
    /// the step; one asked while it ends (a failed sync then) changes
    /// nothing.
    #[test]
    fn the_event_stops_once_and_ends_once() {
        let mut p = Phase::Playing;
        assert!(p.playing());
        p.stop();
        assert_eq!(p, Phase::Stopping);
        assert!(p.playing(), "the step that asked goes on to its end");
        for mut p in [Phase::Ending, Phase::Done] {
            p.stop();
            assert!(!p.playing() && p != Phase::Stopping);
        }
    }

    #[test]
    fn tokens_are_redacted_and_bytes_escaped_for_the_log() {
        for (line, want) in [
            (&b"8/8 w - - Token \"s3cret\"; refreq sign_on;"[..], "8/8 w - - Token *; refreq sign_on;"),
            (b"8/8 w - - Token  s3cret;", "8/8 w - - Token *;"),
            (b"Token \"unterminated", "Token *"),
            (b"no credential here", "no credential here"),
            (b"a\x1b[31m\xff", "a\\x1b[31m\\xff"),
        ] {
            assert_eq!(epd_core::escaped(&redacted(line)), want, "{}", String::from_utf8_lossy(line));
        }
    }
}
