//! The client side of the referee protocol (§8), blocking, over a TCP
//! connection or any other link (a serial line): what a chess program
//! needs to play under a referee. The C ABI's `epd_referee_*` functions
//! and `epd play` are both built on it.
//!
//! ```no_run
//! use epd_referee::client::{Client, Reply};
//! use epd_referee::protocol::Command;
//! let mut c = Client::connect("127.0.0.1:16101", "alpha", None, std::time::Duration::from_secs(10))?;
//! loop {
//!     match c.next_command()? {
//!         Command::Respond => {
//!             let pos = c.position();
//!             let mv = pos.legal_moves().iter().copied().next().expect("the referee asks only when there is a move");
//!             c.reply(Reply::Move { mv, draw_offer: false, draw_claim: false })?;
//!         }
//!         Command::Disconnect => break,
//!         _ => {}
//!     }
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use epd_core::{History, Move, Position};

use crate::protocol::{parse_command, ClientRecord, Command, Incoming, MAX_RECORD};
use crate::TimeControl;

/// What a client answers to `respond`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move, with a draw offer or a draw claim (made with the move).
    Move {
        /// The move, legal in [`Follower::position`].
        mv: Move,
        /// Offer a draw with it.
        draw_offer: bool,
        /// Claim a draw (threefold or 50 moves) with it.
        draw_claim: bool,
    },
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Claim a draw without moving (the position already qualifies).
    ClaimDraw,
    /// Resign.
    Resign,
}

/// How a client signs on.
#[derive(Clone, Copy, Debug, Default)]
pub struct SignOn<'a> {
    /// The player's name (the event file's `players.name`).
    pub name: &'a str,
    /// The player's token, if the event requires one.
    pub token: Option<&'a str>,
    /// Ask the referee for a blank line every so often while it has
    /// nothing to send (the `Hbms` opcode). Over TCP, a client that hears
    /// nothing for three beats and half a second gives the referee up:
    /// [`Client::next_command`] fails with [`io::ErrorKind::TimedOut`].
    pub heartbeat: Option<Duration>,
}

/// The link to a referee, both directions.
pub type Link = (Box<dyn Read + Send>, Box<dyn Write + Send>);

/// A connection to a referee, signed on. It follows the game it plays
/// (a [`Follower`], whose accessors it offers through `Deref`): the
/// position the referee set up and the moves played since, so an engine
/// can be given the whole game.
pub struct Client {
    reader: BufReader<Box<dyn Read + Send>>,
    writer: Box<dyn Write + Send>,
    /// The TCP stream, to shut down on sign-off.
    tcp: Option<TcpStream>,
    follower: Follower,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("follower", &self.follower).finish_non_exhaustive()
    }
}

impl std::ops::Deref for Client {
    type Target = Follower;

    fn deref(&self) -> &Follower {
        &self.follower
    }
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

impl Client {
    /// Connects to `address` (HOST:PORT) within `timeout` and signs on as
    /// `name`, with `token` if the event requires one.
    ///
    /// # Errors
    /// The referee cannot be reached or the sign-on cannot be written.
    pub fn connect(address: &str, name: &str, token: Option<&str>, timeout: Duration) -> io::Result<Client> {
        Client::connect_with(address, &SignOn { name, token, heartbeat: None }, timeout)
    }

    /// Connects to `address` (HOST:PORT) within `timeout` and signs on as
    /// `sign_on` says; with a heartbeat, reads time out after three
    /// missed beats.
    ///
    /// # Errors
    /// The referee cannot be reached or the sign-on cannot be written.
    pub fn connect_with(address: &str, sign_on: &SignOn<'_>, timeout: Duration) -> io::Result<Client> {
        use std::net::ToSocketAddrs;
        let mut last = None;
        let mut stream = None;
        for a in address.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = stream.ok_or_else(|| last.unwrap_or_else(|| invalid(format!("no address for {address}"))))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(sign_on.heartbeat.map(silence_after))?;
        let link: Link = (Box::new(stream.try_clone()?), Box::new(stream.try_clone()?));
        let mut c = Client::over(link, sign_on)?;
        c.tcp = Some(stream);
        Ok(c)
    }

    /// Signs on over a link already open (a serial line, a pipe, a
    /// socket set up by the caller). Read timeouts, if any, are the
    /// link's own.
    ///
    /// # Errors
    /// The sign-on cannot be written.
    pub fn over((reader, writer): Link, sign_on: &SignOn<'_>) -> io::Result<Client> {
        let mut c = Client { reader: BufReader::new(reader), writer, tcp: None, follower: Follower::default() };
        c.send(&sign_on.to_line())?;
        Ok(c)
    }

    fn send(&mut self, line: &[u8]) -> io::Result<()> {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line);
        buf.push(b'\n');
        self.writer.write_all(&buf)?;
        self.writer.flush()
    }

    /// Waits for the referee's next record and returns its command; the
    /// record's content is then available through the accessors. Blank
    /// lines (heartbeats) are skipped.
    ///
    /// # Errors
    /// The connection closed or failed; [`io::ErrorKind::TimedOut`] when
    /// a heartbeat was asked and the referee stayed silent past it;
    /// [`io::ErrorKind::InvalidData`] when the referee sent something
    /// that is not a referee record (the next call reads on after it, or
    /// after the first 1 MiB of a line without its end).
    pub fn next_command(&mut self) -> io::Result<Command> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = match self.reader.by_ref().take(16 * MAX_RECORD as u64).read_until(b'\n', &mut line) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the referee has been silent past its heartbeat",
                    ))
                }
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the referee closed the connection"));
            }
            self.follower.heard = true;
            if line.last() != Some(&b'\n') {
                return Err(invalid("a record from the referee without its end"));
            }
            line.pop();
            if let Some(command) = self.follower.take(&line)? {
                return Ok(command);
            }
        }
    }

    /// Answers the last `respond`.
    ///
    /// # Errors
    /// The move is not legal in [`Follower::position`], or the connection
    /// failed.
    pub fn reply(&mut self, reply: Reply) -> io::Result<()> {
        self.reply_with(reply, None)
    }

    /// Answers the last `respond`, with the engine's score, depth and
    /// nodes (`ce`, `acd`, `acn`), which the referee adjudicates from and
    /// writes into the PGN.
    ///
    /// # Errors
    /// As [`Client::reply`].
    pub fn reply_with(&mut self, reply: Reply, eval: Option<crate::protocol::Eval>) -> io::Result<()> {
        let line = self.follower.reply_line(reply, eval)?;
        self.send(&line)
    }

    /// Signs off and closes the connection.
    ///
    /// # Errors
    /// The sign-off could not be written (the connection is closed all
    /// the same).
    pub fn sign_off(mut self) -> io::Result<()> {
        let rec = ClientRecord { request: "sign_off", ..ClientRecord::default() };
        let r = self.send(&rec.to_line(&self.position()));
        if let Some(s) = &self.tcp {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        r
    }
}

impl SignOn<'_> {
    /// The `sign_on` record, canonical EPD, no newline.
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        let hello = ClientRecord {
            request: "sign_on",
            sender: Some(("localhost", self.name)),
            token: self.token,
            heartbeat_ms: self.heartbeat.map(|h| u64::try_from(h.as_millis()).unwrap_or(u64::MAX).max(1)),
            ..ClientRecord::default()
        };
        hello.to_line(&Position::startpos())
    }
}

/// The client side of the protocol apart from any I/O: it takes the
/// referee's lines, follows the game they describe (the position the
/// referee set up and the moves played since) and writes the client's
/// replies. A [`Client`] is one over a blocking link; the referee's local
/// players drive one from its event loop.
#[derive(Debug, Default)]
pub struct Follower {
    last: Option<Incoming>,
    tags: Vec<(String, String)>,
    /// The game being played: where it started and the moves since.
    start: Option<Position>,
    moves: Vec<Move>,
    /// The position after `moves` from `start` (kept, not replayed).
    now: Option<Position>,
    /// The referee has sent something on this connection.
    heard: bool,
}

impl Follower {
    /// Takes one line from the referee (without its newline): its
    /// command, `None` for a blank line (a heartbeat).
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidData`]: not a referee record.
    pub fn take(&mut self, line: &[u8]) -> io::Result<Option<Command>> {
        self.heard = true;
        // A blank line is a heartbeat, not a record.
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        let inc = parse_command(text).map_err(|e| {
            invalid(format!("a record from the referee I cannot read ({}): {}", e.0, String::from_utf8_lossy(text)))
        })?;
        match inc.command {
            Command::Reset => {
                self.tags.clear();
                self.start = None;
                self.now = None;
                self.moves.clear();
            }
            Command::Execute | Command::Respond => self.follow(&inc),
            _ => {}
        }
        for (k, v) in &inc.tags {
            match self.tags.iter_mut().find(|(n, _)| n == k) {
                Some(t) => t.1 = v.clone(),
                None => self.tags.push((k.clone(), v.clone())),
            }
        }
        let command = inc.command;
        self.last = Some(inc);
        Ok(Some(command))
    }

    /// The reply to the last `respond`, canonical EPD, no newline; a
    /// move is added to the game followed.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`]: the move is not legal in
    /// [`Follower::position`].
    pub fn reply_line(&mut self, reply: Reply, eval: Option<crate::protocol::Eval>) -> io::Result<Vec<u8>> {
        let pos = self.position();
        let game = self.game();
        let base = ClientRecord { request: "reply", game, eval, ..ClientRecord::default() };
        let rec = match reply {
            Reply::Move { mv, draw_offer, draw_claim } => {
                if !pos.is_legal(mv) {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, "the move is not legal in the position"));
                }
                let flags: &[&str] = match (draw_offer, draw_claim) {
                    (_, true) => &["draw_claim"],
                    (true, false) => &["draw_offer"],
                    (false, false) => &[],
                };
                ClientRecord { sm: Some(mv), flags, ..base }
            }
            Reply::AcceptDraw => ClientRecord { flags: &["draw_accept"], ..base },
            Reply::ClaimDraw => ClientRecord { flags: &["draw_claim"], ..base },
            Reply::Resign => ClientRecord { flags: &["resign"], ..base },
        };
        let line = rec.to_line(&pos);
        if let Reply::Move { mv, .. } = reply {
            if self.current() == Some(pos) {
                self.push_move(mv);
            }
        }
        Ok(line)
    }

    /// The game so far with the referee's position and move: the history
    /// goes on when the position is the one the client has, else starts
    /// again from it (§8.1: the referee may set up any position).
    fn follow(&mut self, inc: &Incoming) {
        let ours = self.current().is_some_and(|p| {
            p.to_setup().board == inc.position.to_setup().board
                && p.turn() == inc.position.turn()
                && p.halfmoves() == inc.position.halfmoves()
                && p.fullmoves() == inc.position.fullmoves()
        });
        if !ours {
            self.start = Some(inc.position);
            self.now = Some(inc.position);
            self.moves.clear();
        }
        if let Some(m) = inc.sm {
            self.push_move(m);
        }
    }

    /// The game's position now, from its start and moves.
    fn current(&self) -> Option<Position> {
        self.now
    }

    /// Adds a move of the game (legal from [`Client::current`]).
    fn push_move(&mut self, m: Move) {
        self.moves.push(m);
        if let Some(p) = self.now.as_mut() {
            p.play_unchecked(m);
        }
    }

    /// The position to move from: the record's position after the
    /// opponent's move (if any). The start position before any record.
    #[must_use]
    pub fn position(&self) -> Position {
        self.last.as_ref().map_or_else(Position::startpos, Incoming::current)
    }

    /// Where the current game started as far as the client followed it:
    /// the first position the referee sent after `reset` (or a later one
    /// that did not follow from the moves seen). `None` before any.
    #[must_use]
    pub fn game_start(&self) -> Option<Position> {
        self.start
    }

    /// The moves played since [`Follower::game_start`], both sides',
    /// including the client's own replies.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The positions of the game so far, for repetition and 50-move
    /// checks.
    #[must_use]
    pub fn history(&self) -> History {
        let mut h = History::new();
        let Some(mut p) = self.start else { return h };
        h.push(&p);
        for &m in &self.moves {
            p.play_unchecked(m);
            h.push(&p);
        }
        h
    }

    /// The opponent's last move (`sm` of the last record), played from
    /// the position before it.
    #[must_use]
    pub fn last_move(&self) -> Option<Move> {
        self.last.as_ref().and_then(|i| i.sm)
    }

    /// The last record received.
    #[must_use]
    pub fn record(&self) -> Option<&Incoming> {
        self.last.as_ref()
    }

    /// Whether the referee has sent anything on this connection (a
    /// record or a heartbeat): one that closes without a word has not
    /// taken this client on (a standby sends its clients back that way).
    #[must_use]
    pub fn heard(&self) -> bool {
        self.heard
    }

    /// The game the last record belongs to (`tcgs`), if it named one.
    #[must_use]
    pub fn game(&self) -> Option<u64> {
        self.last.as_ref().and_then(|i| i.game)
    }

    /// Time left for White and Black in milliseconds, from the last
    /// record (`Rtms`).
    #[must_use]
    pub fn clocks(&self) -> Option<(u64, u64)> {
        self.last.as_ref().and_then(|i| i.remaining)
    }

    /// The game's time control, from the `TimeControl` tag of `inform`.
    #[must_use]
    pub fn time_control(&self) -> Option<TimeControl> {
        self.tag("TimeControl").and_then(|t| t.parse().ok())
    }

    /// How many of the game's first moves are the opening book's (the
    /// `BookPlies` tag of `inform`; 0 without it).
    #[must_use]
    pub fn book_plies(&self) -> usize {
        self.tag(crate::protocol::BOOK_PLIES).and_then(|t| t.parse().ok()).unwrap_or(0)
    }

    /// `true` if the game is Chess960: the `Variant` tag of `inform` (as
    /// PGN names it: `Chess960`, `Fischerandom`, `Fischer Random`).
    #[must_use]
    pub fn is_chess960(&self) -> bool {
        self.tag("Variant").is_some_and(|v| {
            let v: String = v.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
            matches!(v.as_str(), "chess960" | "fischerandom" | "fischerrandom" | "960")
        })
    }

    /// `true` if the opponent offers a draw with its last move.
    #[must_use]
    pub fn draw_offered(&self) -> bool {
        self.last.as_ref().is_some_and(|i| i.draw_offer)
    }

    /// A PGN tag the referee sent for the current game (`inform`).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Which of a client's `count` addresses to try first after its
/// connection to address `at` ended. A referee that spoke and then
/// closed (it restarted, the network broke) is tried again first; one
/// that went silent past its heartbeat, or closed without a word (a
/// standby that has not taken over sends its clients back so), is
/// passed over for the next. Addresses that refuse connections are
/// passed over by trying them in turn.
#[must_use]
pub fn retry_from(at: usize, count: usize, heard: bool, silent: bool) -> usize {
    if count == 0 {
        return 0;
    }
    if heard && !silent {
        at % count
    } else {
        (at + 1) % count
    }
}

/// How long a client with heartbeat `beat` waits in silence before it
/// gives the referee up: three beats and half a second.
#[must_use]
pub fn silence_after(beat: Duration) -> Duration {
    beat * 3 + Duration::from_millis(500)
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    use epd_core::{Position, SanMode};

    use super::{Client, Reply, SignOn};
    use crate::protocol::{parse_request, Command, Outgoing, Request};

    /// A client over one end of a socket pair; the other end plays the
    /// referee.
    fn pair(heartbeat: Option<Duration>) -> (Client, BufReader<UnixStream>, UnixStream) {
        let (ours, theirs) = UnixStream::pair().unwrap();
        if let Some(h) = heartbeat {
            ours.set_read_timeout(Some(super::silence_after(h))).unwrap();
        }
        let link: super::Link = (Box::new(ours.try_clone().unwrap()), Box::new(ours));
        let c = Client::over(link, &SignOn { name: "alpha", token: Some("t0k"), heartbeat }).unwrap();
        let w = theirs.try_clone().unwrap();
        (c, BufReader::new(theirs), w)
    }

    fn read_request(r: &mut BufReader<UnixStream>) -> Request {
        let mut line = Vec::new();
        r.read_until(b'\n', &mut line).unwrap();
        parse_request(line.strip_suffix(b"\n").unwrap()).unwrap()
    }

    fn send(w: &mut UnixStream, out: &Outgoing<'_>) {
        let mut line = out.to_line();
        line.push(b'\n');
        w.write_all(&line).unwrap();
    }

    #[test]
    fn the_client_follows_the_game_and_answers_in_it() {
        let (mut c, mut r, mut w) = pair(Some(Duration::from_millis(200)));
        match read_request(&mut r) {
            Request::SignOn { name, token, heartbeat_ms } => {
                assert_eq!((name.as_str(), token.as_deref(), heartbeat_ms), ("alpha", Some("t0k"), Some(200)));
            }
            other => panic!("{other:?}"),
        }
        let start = Position::startpos();
        send(&mut w, &Outgoing { game: Some(7), ..Outgoing::new(Command::Reset, &start) });
        let tags = [("TimeControl", "40/60+1".to_owned()), ("Variant", "Chess960".to_owned())];
        send(&mut w, &Outgoing { game: Some(7), tags: &tags, ..Outgoing::new(Command::Inform, &start) });
        // White's first move arrives with the respond; a heartbeat first.
        w.write_all(b"\n").unwrap();
        let e4 = start.parse_san(b"e4", SanMode::Lenient).unwrap();
        send(&mut w, &Outgoing { game: Some(7), sm: Some(e4), ..Outgoing::new(Command::Respond, &start) });
        assert_eq!(c.next_command().unwrap(), Command::Reset);
        assert_eq!(c.next_command().unwrap(), Command::Inform);
        assert_eq!(c.time_control().map(|t| t.to_string()).as_deref(), Some("40/60+1"));
        assert!(c.is_chess960(), "the Variant tag");
        assert_eq!(c.next_command().unwrap(), Command::Respond);
        assert_eq!(c.game(), Some(7));
        assert_eq!(c.moves(), &[e4]);
        let pos = c.position();
        let e5 = pos.parse_san(b"e5", SanMode::Lenient).unwrap();
        // An illegal move is refused before it is sent.
        assert_eq!(
            c.reply(Reply::Move { mv: e4, draw_offer: false, draw_claim: false }).unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        c.reply(Reply::Move { mv: e5, draw_offer: true, draw_claim: false }).unwrap();
        match read_request(&mut r) {
            Request::Reply(rep) => {
                assert_eq!((rep.position, rep.mv, rep.draw_offer, rep.game), (pos, Some(e5), true, Some(7)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(c.moves(), &[e4, e5]);
        // The next respond continues the same game: its position follows
        // from the moves the client has.
        let mut after = pos;
        after.play_unchecked(e5);
        let nf3 = after.parse_san(b"Nf3", SanMode::Lenient).unwrap();
        send(&mut w, &Outgoing { game: Some(7), sm: Some(nf3), ..Outgoing::new(Command::Respond, &after) });
        assert_eq!(c.next_command().unwrap(), Command::Respond);
        assert_eq!((c.game_start(), c.moves().len()), (Some(start), 3));
        // A reset forgets the game and its tags.
        send(&mut w, &Outgoing::new(Command::Reset, &start));
        assert_eq!(c.next_command().unwrap(), Command::Reset);
        assert_eq!((c.game_start(), c.moves().len(), c.tag("TimeControl")), (None, 0, None));
        assert!(!c.is_chess960());
        // Silence past three beats and a half second: the referee is gone.
        let t = std::time::Instant::now();
        assert_eq!(c.next_command().unwrap_err().kind(), std::io::ErrorKind::TimedOut);
        assert!(t.elapsed() >= Duration::from_millis(1100), "{:?}", t.elapsed());
    }

    #[test]
    fn a_referee_that_closes_without_a_word_is_passed_over() {
        // Closed without a word: a standby sending its clients back.
        let (mut c, mut r, w) = pair(None);
        read_request(&mut r);
        drop((r, w));
        assert_eq!(c.next_command().unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(!c.heard());
        assert_eq!(super::retry_from(1, 2, c.heard(), false), 0);
        // Closed after a heartbeat: the referee restarted; try it again.
        let (mut c, mut r, mut w) = pair(None);
        read_request(&mut r);
        w.write_all(b"\n").unwrap();
        drop((r, w));
        assert_eq!(c.next_command().unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(c.heard());
        assert_eq!(super::retry_from(1, 2, c.heard(), false), 1);
        // Silent past its heartbeat: the next, spoken or not.
        assert_eq!(super::retry_from(1, 2, true, true), 0);
        assert_eq!(super::retry_from(0, 3, true, true), 1);
        // One address: always it.
        assert_eq!(super::retry_from(0, 1, false, false), 0);
        assert_eq!(super::retry_from(5, 0, false, false), 0);
    }

    #[test]
    fn garbage_from_the_referee_is_an_error_and_reading_goes_on() {
        let (mut c, mut r, mut w) = pair(None);
        // The sign-on is read: closing with it unread would reset the link.
        read_request(&mut r);
        w.write_all(b"not a record at all\n").unwrap();
        send(&mut w, &Outgoing::new(Command::Disconnect, &Position::startpos()));
        drop((r, w));
        assert_eq!(c.next_command().unwrap_err().kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(c.next_command().unwrap(), Command::Disconnect);
        assert_eq!(c.next_command().unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
