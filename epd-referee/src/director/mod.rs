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
//! every decision is taken in one order. Deadlines (a flag, the end of a
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
//! [`Director::poll_output`] form a turn; at its end the turn's entries
//! go out as one [`Output::Append`] (group commit) and the turn's records
//! are held until the runtime reports them durable ([`Input::Synced`]),
//! and, with a hot standby, until the standby acknowledges them. So after
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

use crate::event::{Event, Policy, ScheduledGame};
use crate::game::{DrawClaim, Ended, Game, GameResult};
use crate::journal::entry::Entry;
use crate::pgn::{self, Tags};
use crate::protocol::{parse_request, Command, Outgoing, Request, MAX_RECORD};
use crate::standby::wire::{self as standby, Fenced, FromPrimary};
use crate::standings::Standings;

mod adjudication;
mod games;
mod replication;
mod replies;
mod supervisor;
mod timers;
mod view;

pub use supervisor::supervisor_command;
use timers::Timers;
pub use view::{FinishedGame, LiveGame, Snapshot, Standing, State};

/// How long a new connection has to sign on.
pub const SIGN_ON_TIMEOUT: Duration = Duration::from_secs(30);

/// A connection's number, given by the runtime; never reused in a run.
pub type ConnId = u64;

/// The connection of a side that has none (a game resumed from the
/// journal, or a player away): no client has this id.
const NOBODY: ConnId = ConnId::MAX;

/// What the director starts from.
#[derive(Clone, Debug)]
pub struct Config {
    /// The event.
    pub event: Event,
    /// The openings the event's file names, read.
    pub openings: Vec<Position>,
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
    /// A turn's records go out before its journal entries are durable.
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
        /// The entries (JSON, no newline).
        entries: Vec<Vec<u8>>,
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
}

/// A connected client.
#[derive(Debug)]
struct Conn {
    peer: String,
    /// The player it signed on as.
    player: Option<usize>,
    /// The game it plays.
    game: Option<usize>,
    /// Not to be sent anything before (reset and conclude delays).
    quiet_until: Instant,
    /// The heartbeat it asked for: a blank line when nothing else went
    /// out for that long.
    heartbeat: Option<Duration>,
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
    /// A client that asked for heartbeats has been sent nothing for its
    /// heartbeat.
    Beat(ConnId),
    /// The next heartbeat to the standby.
    Heartbeat,
    /// The oldest held turn waited too long for the standby.
    Ack,
    /// The live display's state is published.
    Publish,
}

/// What a turn holds back until its entries are durable.
#[derive(Debug)]
enum Transmit {
    /// A record, and the client's name for the log (none: a line of the
    /// standby protocol, not logged); `asks`: a respond in that game,
    /// whose clock starts when it goes out.
    Send { id: ConnId, line: Vec<u8>, answering: Option<(Instant, Instant)>, who: Option<String>, asks: Option<usize> },
    /// A connection closed after its last records.
    Close { id: ConnId },
    /// A finished game for the PGN file.
    Pgn(String),
}

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

/// A turn's records, sent once the journal holds its entries (append
/// `local` synced) and, with a standby, once the standby does (it has
/// acknowledged batch `remote`).
#[derive(Debug)]
struct Held {
    local: u64,
    remote: Option<u64>,
    since: Instant,
    batch: Vec<Transmit>,
}

/// The referee's decisions; see the [module](self) documentation.
pub struct Director {
    event: Event,
    /// The latest instant an input carried.
    now: Instant,
    /// Inputs were taken up since the last turn ended.
    turn: bool,
    /// What the runtime is to do, in order.
    out: VecDeque<Output>,
    /// Every deadline, nearest first.
    timers: Timers<Due, Instant>,
    /// Something happened that may let a game start (a sign-on, a game
    /// over, a quiet time ended): pair at the end of the turn.
    to_pair: bool,
    openings: Vec<Position>,
    schedule: Vec<ScheduledGame>,
    next_game: usize,
    conns: BTreeMap<ConnId, Conn>,
    running: BTreeMap<usize, Running>,
    finished: usize,
    /// Schedule indices of the games over.
    done: BTreeSet<usize>,
    standings: Standings,
    /// Two players: the pentanomial counts of the pairs over, from the
    /// first player's side.
    penta: crate::sprt::Penta,
    /// The first player's points in the games over of pairs not yet
    /// complete, by pair.
    pair_points: BTreeMap<usize, [Option<f64>; 2]>,
    /// The SPRT's verdict, once reached: no game starts after it.
    verdict: Option<crate::sprt::Verdict>,
    date: String,
    quit: bool,
    /// Attach the reply's instant to the respond that answers it.
    measure: bool,
    /// The instants of the reply being answered (read, taken up).
    answering: Option<(Instant, Instant)>,
    /// The game whose respond is being queued.
    asking: Option<usize>,
    /// This turn's journal entries, appended together at its end.
    staged: Vec<Vec<u8>>,
    /// This turn's records and closes, sent once its entries are durable.
    outbox: Vec<Transmit>,
    /// Connections dropped whose close has not gone out yet (their last
    /// records still do).
    closing: BTreeSet<ConnId>,
    /// The last append asked for, and the last one reported durable.
    appended: u64,
    synced: u64,
    /// The journal could not be written: the event stops with this.
    failure: Option<String>,
    /// This run's epoch: one more than the journal's last.
    epoch: u64,
    /// The hot standby following the journal, if one is.
    follower: Option<Follower>,
    /// The last batch the present standby acknowledged.
    acked: Option<u64>,
    /// Turns' records held until they are durable, oldest first.
    held: VecDeque<Held>,
    /// The standby was lost: asking it whether it took over (records
    /// stay held until the answer).
    probing: bool,
    /// A newer referee took the event over: why this one stopped.
    stepped_down: Option<String>,
    /// The longest time this referee was not run (its process stopped,
    /// its host suspended) while a standby followed, if long enough for
    /// the standby to take over.
    suspended: Option<Duration>,
    /// Publish the live display's state.
    web: bool,
    /// The state changed since it was last published.
    web_dirty: bool,
    /// When it is published next.
    publish_at: Option<Instant>,
    /// The published state's version.
    version: u64,
    /// The games over, for the display.
    ended: Vec<FinishedGame>,
    /// The event is over or stopped: what is left goes out, then
    /// [`Output::Done`].
    ending: bool,
    /// [`Output::Done`] has been given.
    done_given: bool,
    #[cfg(feature = "sim-defects")]
    defects: Defects,
}

impl std::fmt::Debug for Director {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Director")
            .field("event", &self.event.name)
            .field("epoch", &self.epoch)
            .field("finished", &self.finished)
            .field("running", &self.running.len())
            .field("conns", &self.conns.len())
            .field("held", &self.held.len())
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
        Director::build(config, now, |d| d.defects = defects)
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
        let mut standings = Standings::new(event.players.iter().map(|p| p.name.clone()).collect());
        let epoch = replayed.as_ref().map_or(0, |r| r.epoch) + 1;
        let mut d = Director {
            event,
            now,
            turn: true,
            out: VecDeque::new(),
            timers: Timers::new(),
            to_pair: true,
            openings,
            schedule,
            next_game: 0,
            penta: crate::sprt::Penta::default(),
            pair_points: BTreeMap::new(),
            verdict: None,
            conns: BTreeMap::new(),
            running: BTreeMap::new(),
            finished: 0,
            done: BTreeSet::new(),
            standings: Standings::new(Vec::new()),
            date,
            quit: false,
            measure,
            answering: None,
            asking: None,
            staged: Vec::new(),
            outbox: Vec::new(),
            closing: BTreeSet::new(),
            appended: 0,
            synced: 0,
            failure: None,
            epoch,
            follower: None,
            acked: None,
            held: VecDeque::new(),
            probing: false,
            stepped_down: None,
            suspended: None,
            web,
            web_dirty: true,
            publish_at: None,
            version: 0,
            ended: Vec::new(),
            ending: false,
            done_given: false,
            #[cfg(feature = "sim-defects")]
            defects: Defects::default(),
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
            for ((&k, &(w, b, res)), pgn) in r.done.iter().zip(&r.results).zip(&r.pgn) {
                standings.add(w, b, res);
                d.count(k, w, res);
                let name = |p: usize| d.event.players[p].name.clone();
                let sched = d.schedule[k];
                d.ended.push(FinishedGame::from_pgn(
                    sched.number,
                    d.round_name(&sched),
                    name(w),
                    name(b),
                    res.pgn(),
                    pgn,
                ));
            }
            d.finished = r.done.len();
            d.done = r.done.into_iter().collect();
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
        let openings_seed = d.event.openings.as_ref().filter(|b| b.order == crate::BookOrder::Random).map(|b| b.seed);
        let begin = Entry::Begin {
            epoch,
            event: d.event.name.clone(),
            games: d.schedule.len(),
            date: d.date.clone(),
            openings_seed,
        };
        d.write_ahead(&begin);
        d.commit();
        d.note(&format!(
            "event {:?}: {} players, {} games, time control {}",
            d.event.name,
            d.event.players.len(),
            d.schedule.len(),
            d.event.time_control
        ));
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

    /// This run's epoch.
    #[must_use]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Every game of the schedule is over, or the SPRT reached its
    /// verdict and the pairs under way then are over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.finished >= self.schedule.len()
            || (self.verdict.is_some() && self.running.is_empty() && !self.half_pair_waiting())
    }

    /// Counts a game over (two players): its pair, once both games are
    /// over, goes to the pentanomial counts and the SPRT.
    fn count(&mut self, k: usize, white: usize, res: GameResult) {
        if self.event.players.len() != 2 {
            return;
        }
        let white_points = match res {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        };
        let first = if white == 0 { white_points } else { 1.0 - white_points };
        let slot = self.pair_points.entry(k / 2).or_default();
        slot[k % 2] = Some(first);
        let [Some(a), Some(b)] = *slot else { return };
        self.pair_points.remove(&(k / 2));
        self.penta.add_pair(a, b);
        let Some(sprt) = self.event.sprt else { return };
        let llr = sprt.llr(&self.penta);
        let (lo, hi) = sprt.bounds();
        self.note(&format!(
            "pair {} over: Ptnml(0-2) {:?}, SPRT LLR {llr:.2} ({lo:.2}, {hi:.2})",
            k / 2 + 1,
            self.penta.counts
        ));
        if self.verdict.is_some() {
            return;
        }
        let v = sprt.verdict(llr);
        if v != crate::sprt::Verdict::Continue {
            self.verdict = Some(v);
            let which = if v == crate::sprt::Verdict::H1 { "H1 accepted" } else { "H0 accepted" };
            self.note(&format!(
                "SPRT {sprt}: {which} after {} pairs (LLR {llr:.2}, bounds {lo:.2} {hi:.2}); the pairs under way \
                 finish, no other starts",
                self.penta.pairs()
            ));
        }
    }

    /// The results block of a match of two players.
    pub(super) fn results(&self) -> Option<String> {
        (self.event.players.len() == 2).then(|| {
            crate::sprt::results_block(
                &self.event.players[0].name,
                &self.event.players[1].name,
                &self.penta,
                self.event.sprt.as_ref(),
            )
        })
    }

    /// Games over so far.
    #[must_use]
    pub fn finished(&self) -> usize {
        self.finished
    }

    /// Takes up what happened at `now`.
    pub fn handle(&mut self, now: Instant, input: Input) {
        self.advance(now);
        if self.done_given {
            return;
        }
        if self.ending && !matches!(input, Input::Synced { .. } | Input::SyncFailed { .. } | Input::Probed(_)) {
            return;
        }
        self.turn = true;
        self.web_dirty = true;
        match input {
            Input::Listening(a) => self.note(&format!("listening on {a}")),
            Input::Connected { id, peer } => {
                self.note(&format!("#{id} connected from {peer}"));
                self.conns.insert(id, Conn { peer, player: None, game: None, quiet_until: now, heartbeat: None });
                self.timers.set(Due::SignOn(id), Some(now + SIGN_ON_TIMEOUT));
            }
            Input::Line { id, line, at } => {
                if self.follower.as_ref().is_some_and(|f| f.id == id) {
                    self.on_follower_line(id, &line);
                    return;
                }
                if line.starts_with(standby::HELLO) && self.conns.get(&id).is_some_and(|c| c.player.is_none()) {
                    self.on_hello(id, &line);
                    return;
                }
                if !self.conns.contains_key(&id) {
                    return;
                }
                let who = self.name_of(id);
                self.out.push_back(Output::Traffic(format!("{who} < {}", epd_core::escaped(&redacted(&line)))));
                self.on_line(id, &line, at);
            }
            Input::TooLong { id } => {
                let pos = Position::startpos();
                self.fault(id, &pos, &format!("a line longer than {MAX_RECORD} bytes; disconnected"));
                self.drop_conn(id, "over-long line");
            }
            Input::Closed { id, why } => {
                if self.conns.contains_key(&id) {
                    let who = self.name_of(id);
                    self.note(&format!("{who} disconnected: {why}"));
                    self.drop_conn(id, &why);
                }
            }
            Input::Stalled { id } => {
                if self.follower.as_ref().is_some_and(|f| f.id == id) {
                    self.note("the standby is not reading the journal; dropped");
                    self.drop_conn(id, "standby not reading");
                } else if self.conns.contains_key(&id) {
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
            Input::Note(text) => self.note(&text),
            Input::Stop(why) => {
                self.note(&why);
                self.quit = true;
            }
            Input::Synced { seq } => {
                self.synced = self.synced.max(seq);
                self.release();
            }
            Input::SyncFailed { error, .. } => self.fail(&error),
            Input::Probed(answer) => self.on_probed(answer),
            Input::Fenced(Fenced::Yielded) => self.note("the old primary stepped down"),
            Input::Fenced(Fenced::Newer(n)) => self.step_down(format!(
                "the old primary has a newer epoch ({n}; this one's is {}): stepping down",
                self.epoch
            )),
        }
    }

    /// Acts on the deadlines due at `now` ([`Director::poll_timeout`]).
    pub fn handle_timeout(&mut self, now: Instant) {
        self.advance(now);
        if !self.done_given {
            self.turn = true;
        }
    }

    /// When the director must be woken ([`Director::handle_timeout`])
    /// if nothing happens first: `None` when only an input can wake it.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.done_given {
            return None;
        }
        if self.turn {
            return Some(self.now);
        }
        if self.ending {
            // Only the journal's last syncs are awaited.
            return None;
        }
        self.timers.next()
    }

    /// The next thing to do. The first call after inputs ends the turn:
    /// due deadlines are acted on, games paired, the turn's entries
    /// appended and its records queued behind them.
    pub fn poll_output(&mut self) -> Option<Output> {
        if std::mem::take(&mut self.turn) {
            self.end_turn();
        }
        self.out.pop_front()
    }

    fn end_turn(&mut self) {
        if !self.ending {
            let now = self.now;
            self.tick(now);
            self.commit();
            self.schedule_publish();
            if self.quit || self.is_over() {
                self.end_event();
            }
        }
        if self.ending && !self.done_given && (self.held.is_empty() || self.failure.is_some()) {
            self.done_given = true;
            self.timers = Timers::new();
            let stopped = match (self.stepped_down.take(), self.failure.take()) {
                (Some(why), _) => Some(Stopped::SteppedDown(why)),
                (None, Some(e)) => Some(Stopped::JournalFailed(e)),
                (None, None) => None,
            };
            let report = if matches!(stopped, Some(Stopped::SteppedDown(_))) { String::new() } else { self.report() };
            self.out.push_back(Output::Done(Done { games: self.finished, report, stopped }));
        }
    }

    fn report(&self) -> String {
        let mut text = format!(
            "{}\n{} games of {}; time control {}\n\n{}",
            self.event.name,
            self.finished,
            self.schedule.len(),
            self.event.time_control,
            self.standings.report()
        );
        if let Some(block) = self.results() {
            text.push('\n');
            text.push_str(&block);
        }
        text
    }

    /// The event is over, or stopped: standings, then everyone is told to
    /// disconnect; the standby hears that the event is over (or stopped).
    /// A referee that stepped down tells nobody anything: its clients'
    /// connections close with it, and they fail over.
    fn end_event(&mut self) {
        self.ending = true;
        if self.stepped_down.is_some() || self.failure.is_some() {
            self.held.clear();
            return;
        }
        // The records held for a standby go out: the event is over. Not
        // while the standby is asked whether it took over: the answer
        // decides (this referee may have been superseded).
        if !self.probing {
            for h in &mut self.held {
                h.remote = None;
            }
            self.release();
        }
        let last = if self.is_over() { FromPrimary::Over } else { FromPrimary::Quit };
        self.tell_follower(last.to_line());
        if let Some(f) = self.follower.take() {
            if self.conns.remove(&f.id).is_some() {
                self.out.push_back(Output::Close { id: f.id });
            }
        }
        if self.is_over() {
            self.write_ahead(&Entry::Over);
        }
        self.publish(false);
        self.out.push_back(Output::Report(self.report()));
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        let pos = Position::startpos();
        for id in ids {
            let line = Outgoing::new(Command::Disconnect, &pos).to_line();
            self.send(id, line);
        }
        self.commit();
        self.note("event over");
    }

    /// Stages `entry` for the journal: it is made durable at the end of
    /// the turn, before any record of the turn goes out (group commit: one
    /// sync per turn, however many moves the turn took up).
    fn write_ahead(&mut self, entry: &Entry) {
        match serde_json::to_vec(entry) {
            Ok(bytes) => self.staged.push(bytes),
            Err(e) => self.fail(&e.to_string()),
        }
    }

    /// Ends a turn: its journal entries go to the journal (and to the
    /// standby), its records wait behind them. If the journal cannot be
    /// written, nothing of the turn goes out and the event stops: nothing
    /// may be acted on that the journal does not hold.
    fn commit(&mut self) {
        let staged = std::mem::take(&mut self.staged);
        let batch = std::mem::take(&mut self.outbox);
        if self.failure.is_some() || self.stepped_down.is_some() {
            return;
        }
        let entries = !staged.is_empty();
        if entries {
            self.appended += 1;
            self.replicate(&staged);
            self.out.push_back(Output::Append { seq: self.appended, entries: staged });
        }
        if batch.is_empty() {
            return;
        }
        // With a standby, every record waits for an acknowledgement given
        // after it was decided, entries or not (a turn without entries
        // sends the standby an empty batch): a referee that was frozen and
        // superseded meanwhile hears none, and sends nothing before it
        // learns it must step down. A referee asking a lost standby
        // whether it took over holds everything until the answer.
        let remote = match &self.follower {
            Some(_) => {
                if !entries {
                    self.replicate(&[]);
                }
                self.follower.as_ref().map(|f| f.seq)
            }
            None if self.probing => Some(u64::MAX),
            None => None,
        };
        #[cfg(feature = "sim-defects")]
        let local = if self.defects.send_before_sync { 0 } else { self.appended };
        #[cfg(not(feature = "sim-defects"))]
        let local = self.appended;
        self.held.push_back(Held { local, remote, since: self.now, batch });
        self.release();
    }

    /// Sends the held turns, oldest first, that are durable here and, as
    /// far as they need, at the standby.
    fn release(&mut self) {
        while let Some(h) = self.held.front() {
            let here = h.local <= self.synced;
            let there = h.remote.is_none_or(|s| self.acked.is_some_and(|a| a >= s));
            if !(here && there) {
                break;
            }
            let h = self.held.pop_front().expect("a front");
            self.deliver(h.batch);
        }
        self.arm_ack();
    }

    /// The deadline for the standby's acknowledgement of the oldest
    /// record waiting for it.
    fn arm_ack(&mut self) {
        let next = match &self.follower {
            Some(_) => self.held.iter().find(|h| h.remote.is_some()).map(|h| h.since + standby::ACK_TIMEOUT),
            None => None,
        };
        self.timers.set(Due::Ack, next);
    }

    /// Queues a turn's records and closes for the runtime. A record is
    /// logged as it goes out: one held for the standby and then dropped
    /// (this referee stepped down) never shows as sent.
    fn deliver(&mut self, batch: Vec<Transmit>) {
        for t in batch {
            match t {
                Transmit::Send { id, line, answering, who, asks } => {
                    if let Some(who) = who {
                        if self.conns.contains_key(&id) || self.closing.contains(&id) {
                            self.out.push_back(Output::Traffic(format!("{who} > {}", String::from_utf8_lossy(&line))));
                        }
                    }
                    self.out.push_back(Output::Send { id, line, answering });
                    if let Some(h) = self.conns.get(&id).and_then(|c| c.heartbeat) {
                        self.timers.set(Due::Beat(id), Some(self.now + h));
                    }
                    if let Some(k) = asks {
                        self.clock_starts(k, id);
                    }
                }
                Transmit::Pgn(text) => self.out.push_back(Output::Pgn(text)),
                Transmit::Close { id } => {
                    self.closing.remove(&id);
                    self.out.push_back(Output::Close { id });
                }
            }
        }
    }

    /// A respond went out: the side to move's clock runs from now, not
    /// from when it was decided (the journal's sync, or a standby's
    /// acknowledgement, is not the player's time).
    fn clock_starts(&mut self, k: usize, id: ConnId) {
        let now = self.now;
        let Some(r) = self.running.get_mut(&k) else { return };
        if r.asked_id == id && r.paused.is_none() && r.asked_at.is_some_and(|t| t < now) {
            r.asked_at = Some(now);
            self.rearm(k);
        }
    }

    fn fail(&mut self, error: &str) {
        let msg = format!("{}: cannot write the journal: {error}", self.event.journal.display());
        self.note(&format!("{msg}; the event stops"));
        self.out.push_back(Output::Say(format!("argus: {msg}; the event stops")));
        self.failure.get_or_insert(msg);
        self.held.clear();
        self.quit = true;
        self.turn = true;
    }

    fn note(&mut self, text: &str) {
        self.out.push_back(Output::Note(text.to_owned()));
    }

    fn say(&mut self, text: String) {
        self.out.push_back(Output::Say(text));
    }

    fn name_of(&self, id: ConnId) -> String {
        match self.conns.get(&id).and_then(|c| c.player) {
            Some(p) => format!("#{id} {}", self.event.players[p].name),
            None => format!("#{id}"),
        }
    }

    /// Queues a record for a client (logged when it goes out).
    fn send(&mut self, id: ConnId, line: Vec<u8>) {
        if !self.conns.contains_key(&id) && !self.closing.contains(&id) {
            return; // a side away, or a game resumed before its players came back
        }
        let who = Some(self.name_of(id));
        let answering = self.answering.take();
        let asks = self.asking;
        self.outbox.push(Transmit::Send { id, line, answering, who, asks });
    }

    fn fault(&mut self, id: ConnId, pos: &Position, why: &str) {
        let mut o = Outgoing::new(Command::Fault, pos);
        o.message = Some(why);
        let line = o.to_line();
        let who = self.name_of(id);
        self.note(&format!("{who}: fault: {why}"));
        self.send(id, line);
    }

    /// Sets a game's deadlines from its state: its flag, its start, its
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
        // No clock (`-`), no flag: the player's own limits bound it.
        let clock = r.game.clock(side);
        clock.is_running().then(|| asked + clock.remaining() + self.event.lag)
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
                Due::Beat(id) => {
                    // A blank line, held like a record: a referee whose
                    // records wait (for the journal, for a standby that
                    // may have taken over) sends no heartbeat either, so
                    // its clients time out and fail over.
                    if self.conns.get(&id).is_some_and(|c| c.heartbeat.is_some()) {
                        self.outbox.push(Transmit::Send {
                            id,
                            line: Vec::new(),
                            answering: None,
                            who: None,
                            asks: None,
                        });
                    }
                }
                Due::Heartbeat => {
                    if let Some(every) = self.follower.as_ref().map(|f| f.every) {
                        self.tell_follower(FromPrimary::Heartbeat.to_line());
                        self.timers.set(Due::Heartbeat, Some(now + every));
                    }
                }
                Due::Publish => {
                    self.publish_at = None;
                    self.publish(true);
                }
                Due::Ack => {
                    let oldest = self.held.iter().find(|h| h.remote.is_some()).map(|h| h.since);
                    let late = oldest.is_some_and(|t| now >= t + standby::ACK_TIMEOUT);
                    if let (true, Some(id)) = (late, self.follower.as_ref().map(|f| f.id)) {
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

    /// Forgets a connection: its last records still go out, then it is
    /// closed. A player away from its game has the event's grace to come
    /// back.
    fn drop_conn(&mut self, id: ConnId, _why: &str) {
        let Some(c) = self.conns.remove(&id) else { return };
        self.closing.insert(id);
        if self.follower.as_ref().is_some_and(|f| f.id == id) {
            // If this referee goes on without it (the probe decides; if
            // the standby took over, nothing goes out), the standby is
            // told its copy is behind before the connection closes.
            self.outbox.push(Transmit::Send {
                id,
                line: FromPrimary::Dropped.to_line(),
                answering: None,
                who: None,
                asks: None,
            });
            self.outbox.push(Transmit::Close { id });
            self.follower_lost();
            return;
        }
        self.outbox.push(Transmit::Close { id });
        self.timers.set(Due::SignOn(id), None);
        self.timers.set(Due::Quiet(id), None);
        self.timers.set(Due::Beat(id), None);
        let Some(k) = c.game else { return };
        let grace = self.event.disconnect_grace;
        let now = self.now;
        if let Some(r) = self.running.get_mut(&k) {
            let side = if r.conns[0] == id { Color::White } else { Color::Black };
            r.conns[side_index(side)] = NOBODY;
            if r.away.is_none() {
                r.away = Some((side, now + grace));
            }
        }
        self.rearm(k);
    }
}

/// A client's line with the value of its `Token` operation (a
/// credential) replaced by `*`, for the log.
fn redacted(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const KEY: &[u8] = b"Token \"";
    let Some(at) = line.windows(KEY.len()).position(|w| w == KEY) else { return line.into() };
    let start = at + KEY.len();
    let end = line[start..].iter().position(|&b| b == b'"').map_or(line.len(), |n| start + n);
    let mut out = line[..start].to_vec();
    out.push(b'*');
    out.extend_from_slice(&line[end..]);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_redacted_and_bytes_escaped_for_the_log() {
        for (line, want) in [
            (&b"8/8 w - - Token \"s3cret\"; refreq sign_on;"[..], "8/8 w - - Token \"*\"; refreq sign_on;"),
            (b"Token \"unterminated", "Token \"*"),
            (b"no token here", "no token here"),
            (b"Token \"\"; x", "Token \"*\"; x"),
            (b"a\x1b[31m\xff", "a\\x1b[31m\\xff"),
        ] {
            assert_eq!(epd_core::escaped(&redacted(line)), want, "{}", String::from_utf8_lossy(line));
        }
    }
}
