//! The client side of the referee protocol (§8), blocking, over a TCP
//! connection: what a chess program needs to play under a referee. The
//! C ABI's `epd_referee_*` functions are this, and `epd play` is built the
//! same way.
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

use epd_core::{Move, Position};

use crate::protocol::{parse_command, ClientRecord, Command, Incoming, MAX_RECORD};

/// What a client answers to `respond`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move, with a draw offer or a draw claim (made with the move).
    Move {
        /// The move, legal in [`Client::position`].
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

/// A connection to a referee, signed on.
#[derive(Debug)]
pub struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    last: Option<Incoming>,
    tags: Vec<(String, String)>,
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
        let writer = stream.try_clone()?;
        let mut c = Client { reader: BufReader::new(stream), writer, last: None, tags: Vec::new() };
        let hello =
            ClientRecord { request: "sign_on", sender: Some(("localhost", name)), token, ..ClientRecord::default() };
        c.send(&hello.to_line(&Position::startpos()))?;
        Ok(c)
    }

    fn send(&mut self, line: &[u8]) -> io::Result<()> {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line);
        buf.push(b'\n');
        self.writer.write_all(&buf)
    }

    /// Waits for the referee's next record and returns its command; the
    /// record's content is then available through the accessors.
    ///
    /// # Errors
    /// The connection closed or failed, or the referee sent something
    /// that is not a referee record (longer than 64 KiB included).
    pub fn next_command(&mut self) -> io::Result<Command> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = self.reader.by_ref().take(16 * MAX_RECORD as u64).read_until(b'\n', &mut line)?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the referee closed the connection"));
            }
            if line.last() != Some(&b'\n') {
                return Err(invalid("a record from the referee without its end"));
            }
            line.pop();
            // A blank line is a heartbeat, not a record.
            if !line.iter().all(u8::is_ascii_whitespace) {
                break;
            }
        }
        let inc = parse_command(&line).map_err(|e| invalid(e.0))?;
        if inc.command == Command::Reset {
            self.tags.clear();
        }
        for (k, v) in &inc.tags {
            match self.tags.iter_mut().find(|(n, _)| n == k) {
                Some(t) => t.1 = v.clone(),
                None => self.tags.push((k.clone(), v.clone())),
            }
        }
        let command = inc.command;
        self.last = Some(inc);
        Ok(command)
    }

    /// The position to move from: the record's position after the
    /// opponent's move (if any). The start position before any record.
    #[must_use]
    pub fn position(&self) -> Position {
        self.last.as_ref().map_or_else(Position::startpos, Incoming::current)
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

    /// Time left for White and Black in milliseconds, from the last
    /// record (`Rtms`).
    #[must_use]
    pub fn clocks(&self) -> Option<(u64, u64)> {
        self.last.as_ref().and_then(|i| i.remaining)
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

    /// Answers the last `respond`.
    ///
    /// # Errors
    /// The move is not legal in [`Client::position`], or the connection
    /// failed.
    pub fn reply(&mut self, reply: Reply) -> io::Result<()> {
        let pos = self.position();
        let game = self.last.as_ref().and_then(|i| i.game);
        let base = ClientRecord { request: "reply", game, ..ClientRecord::default() };
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
        let _ = self.writer.shutdown(std::net::Shutdown::Both);
        r
    }
}
