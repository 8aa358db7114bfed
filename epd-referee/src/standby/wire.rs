//! The standby protocol's lines, read and written without I/O: what the
//! director, the runtime and the fuzzers share. Every line of the
//! protocol is written here and read here, so the two sides cannot drift.

use std::time::Duration;

/// How a standby's (or a fencer's) first line starts.
pub const HELLO: &[u8] = b"EPDKIT-STANDBY ";

/// How long the primary may be silent before the standby takes over,
/// unless told otherwise.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(2);

/// How long the primary waits for a standby's acknowledgement before it
/// goes on without it.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(1);

/// What a standby's first line asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hello {
    /// Follow the journal; take over at `listen`; heartbeats within
    /// `heartbeat`.
    Follow {
        /// Where the standby would take over.
        listen: String,
        /// How long a silence it waits before taking over.
        heartbeat: Duration,
    },
    /// What is your epoch? (`P EPOCH`)
    Probe,
    /// A referee at `epoch` took the event over: step down unless newer.
    Yield {
        /// The epoch of the referee that took over.
        epoch: u64,
    },
}

/// Reads a hello line: the request, and whether it carries `token`.
///
/// # Errors
/// The line is not a hello this referee accepts; the message says why.
pub fn parse_hello(line: &[u8], token: Option<&str>) -> Result<Hello, &'static str> {
    let text = std::str::from_utf8(line).map_err(|_| "a standby line that is not UTF-8")?;
    let mut words = text.split_ascii_whitespace();
    let _magic = words.next();
    let verb = words.next().ok_or("a standby line with no request")?;
    let (mut given, mut listen, mut heartbeat, mut epoch) = (None, None, None, None);
    for w in words {
        let (k, v) = w.split_once('=').ok_or("a standby line with a word that is not KEY=VALUE")?;
        match k {
            "token" => given = Some(v),
            "listen" => listen = Some(v),
            "heartbeat_ms" => heartbeat = v.parse::<u64>().ok(),
            "epoch" => epoch = v.parse::<u64>().ok(),
            _ => return Err("a standby line with an unknown key"),
        }
    }
    match token {
        None => return Err("this event has no supervisor_token: no standby may follow it"),
        Some(t) if given != Some(t) => return Err("a standby line without the event's supervisor_token"),
        Some(_) => {}
    }
    match verb {
        "follow" => {
            let listen = listen.ok_or("follow needs listen=HOST:PORT")?;
            listen.parse::<std::net::SocketAddr>().map_err(|_| "follow: listen is not HOST:PORT")?;
            let ms = heartbeat.ok_or("follow needs heartbeat_ms=N")?.clamp(100, 60_000);
            Ok(Hello::Follow { listen: listen.to_owned(), heartbeat: Duration::from_millis(ms) })
        }
        "probe" => Ok(Hello::Probe),
        "yield" => Ok(Hello::Yield { epoch: epoch.ok_or("yield needs epoch=N")? }),
        _ => Err("a standby line with an unknown request"),
    }
}

/// A standby's first line: follow the journal, take over at `listen`
/// after `heartbeat` of silence.
#[must_use]
pub fn follow_line(token: &str, listen: &str, heartbeat: Duration) -> Vec<u8> {
    format!("EPDKIT-STANDBY follow token={token} listen={listen} heartbeat_ms={}", heartbeat.as_millis()).into_bytes()
}

/// A prober's line: what is your epoch?
#[must_use]
pub fn probe_line(token: &str) -> Vec<u8> {
    format!("EPDKIT-STANDBY probe token={token}").into_bytes()
}

/// A referee that took the event over at `epoch` asks the old primary to
/// yield.
#[must_use]
pub fn yield_line(epoch: u64, token: &str) -> Vec<u8> {
    format!("EPDKIT-STANDBY yield epoch={epoch} token={token}").into_bytes()
}

/// A standby's acknowledgement of batch `seq`, `A SEQ`.
#[must_use]
pub fn ack_line(seq: u64) -> Vec<u8> {
    format!("A {seq}").into_bytes()
}

/// A standby's acknowledgement, `A SEQ`.
#[must_use]
pub fn parse_ack(line: &[u8]) -> Option<u64> {
    let n = line.strip_prefix(b"A ")?;
    if n.is_empty() || !n.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(n).ok()?.parse().ok()
}

/// Where a standby that listens at `listen` is reached: at the address
/// it came from (`peer`) when it listens on every interface.
#[must_use]
pub fn reachable(listen: &str, peer: &str) -> String {
    match (listen.parse::<std::net::SocketAddr>(), peer.parse::<std::net::SocketAddr>()) {
        (Ok(l), Ok(p)) if l.ip().is_unspecified() => std::net::SocketAddr::new(p.ip(), l.port()).to_string(),
        _ => listen.to_owned(),
    }
}

/// What the old primary answered a referee that took it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fenced {
    /// The old primary stepped down (or is not there).
    Yielded,
    /// The old primary has a newer epoch: this referee steps down.
    Newer(u64),
}

/// What a referee answers a probe, a yield or a hello it refuses: one
/// line, then it closes the connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<'a> {
    /// `P EPOCH`: its epoch (to a probe, or to a yield it refuses).
    Epoch(u64),
    /// `D`: it yielded (stepped down).
    Yielded,
    /// `F WHY`: the hello is refused.
    Refused(&'a str),
}

impl Answer<'_> {
    /// The line, without its newline.
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        match self {
            Answer::Epoch(n) => format!("P {n}").into_bytes(),
            Answer::Yielded => b"D".to_vec(),
            Answer::Refused(why) => format!("F {why}").into_bytes(),
        }
    }

    /// Reads an answer (without its newline); `None` for anything else.
    #[must_use]
    pub fn parse(line: &[u8]) -> Option<Answer<'_>> {
        match line {
            b"D" => Some(Answer::Yielded),
            _ => {
                if let Some(why) = line.strip_prefix(b"F ") {
                    return std::str::from_utf8(why).ok().map(Answer::Refused);
                }
                let n = line.strip_prefix(b"P ").filter(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))?;
                std::str::from_utf8(n).ok()?.parse().ok().map(Answer::Epoch)
            }
        }
    }
}

/// A line from the primary to its standby.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromPrimary<'a> {
    /// `R`: the journal starts again.
    Restart,
    /// `J PAYLOAD`: one journal entry.
    Entry(&'a [u8]),
    /// `C SEQ`: the entries since the last commit are batch `SEQ`.
    Commit(u64),
    /// `H`: a heartbeat.
    Heartbeat,
    /// `E`: the event is over.
    Over,
    /// `Q`: the primary's supervisor stopped it.
    Quit,
    /// `X`: the primary goes on without this standby (it did not
    /// acknowledge in time): the standby's copy falls behind.
    Dropped,
}

impl FromPrimary<'_> {
    /// Appends the line, without its newline, to `out`.
    pub fn append_to(&self, out: &mut Vec<u8>) {
        match self {
            FromPrimary::Restart => out.push(b'R'),
            FromPrimary::Entry(e) => {
                out.extend_from_slice(b"J ");
                out.extend_from_slice(e);
            }
            FromPrimary::Commit(seq) => out.extend_from_slice(format!("C {seq}").as_bytes()),
            FromPrimary::Heartbeat => out.push(b'H'),
            FromPrimary::Over => out.push(b'E'),
            FromPrimary::Quit => out.push(b'Q'),
            FromPrimary::Dropped => out.push(b'X'),
        }
    }

    /// The line, without its newline.
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.append_to(&mut out);
        out
    }
}

/// A batch of journal entries for the standby: a `J` line per entry, then
/// `C SEQ`, joined by newlines (no newline after the last: the runtime
/// adds it, as to every line).
#[must_use]
pub fn batch(entries: &[Vec<u8>], seq: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.iter().map(|e| e.len() + 3).sum::<usize>() + 24);
    for e in entries {
        FromPrimary::Entry(e).append_to(&mut out);
        out.push(b'\n');
    }
    FromPrimary::Commit(seq).append_to(&mut out);
    out
}

/// The journal so far, for a standby that starts to follow: `R`, then
/// the entries as batch 0.
#[must_use]
pub fn copy(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.iter().map(|e| e.len() + 3).sum::<usize>() + 8);
    FromPrimary::Restart.append_to(&mut out);
    out.push(b'\n');
    out.extend_from_slice(&batch(entries, 0));
    out
}

/// Reads a line from the primary (without its newline).
///
/// # Errors
/// Anything else, as text for the log (a refusal `F WHY` among them).
pub fn parse_from_primary(line: &[u8]) -> Result<FromPrimary<'_>, String> {
    match line {
        b"R" => Ok(FromPrimary::Restart),
        b"H" => Ok(FromPrimary::Heartbeat),
        b"E" => Ok(FromPrimary::Over),
        b"Q" => Ok(FromPrimary::Quit),
        b"X" => Ok(FromPrimary::Dropped),
        _ => {
            if let Some(p) = line.strip_prefix(b"J ") {
                return Ok(FromPrimary::Entry(p));
            }
            let seq = line.strip_prefix(b"C ").filter(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit));
            if let Some(n) = seq.and_then(|n| std::str::from_utf8(n).ok()?.parse().ok()) {
                return Ok(FromPrimary::Commit(n));
            }
            Err(format!("the primary says: {}", String::from_utf8_lossy(line)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hellos_need_the_token_and_their_keys() {
        let t = Some("s3cret");
        assert_eq!(
            parse_hello(b"EPDKIT-STANDBY follow token=s3cret listen=127.0.0.1:9 heartbeat_ms=2000", t),
            Ok(Hello::Follow { listen: "127.0.0.1:9".into(), heartbeat: Duration::from_secs(2) })
        );
        assert_eq!(parse_hello(b"EPDKIT-STANDBY probe token=s3cret", t), Ok(Hello::Probe));
        assert_eq!(parse_hello(b"EPDKIT-STANDBY yield epoch=3 token=s3cret", t), Ok(Hello::Yield { epoch: 3 }));
        for bad in [
            &b"EPDKIT-STANDBY probe"[..],
            b"EPDKIT-STANDBY probe token=wrong",
            b"EPDKIT-STANDBY probe token=s3cretx",
            b"EPDKIT-STANDBY follow token=s3cret listen=nowhere heartbeat_ms=2000",
            b"EPDKIT-STANDBY follow token=s3cret heartbeat_ms=2000",
            b"EPDKIT-STANDBY yield token=s3cret",
            b"EPDKIT-STANDBY take token=s3cret",
            b"EPDKIT-STANDBY probe token=s3cret extra",
            b"EPDKIT-STANDBY \xff token=s3cret",
        ] {
            assert!(parse_hello(bad, t).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert!(parse_hello(b"EPDKIT-STANDBY probe token=", None).is_err(), "no token configured: no standby");
    }

    #[test]
    fn primary_lines_and_acknowledgements() {
        for (line, want) in [
            (&b"R"[..], Some(FromPrimary::Restart)),
            (b"H", Some(FromPrimary::Heartbeat)),
            (b"E", Some(FromPrimary::Over)),
            (b"Q", Some(FromPrimary::Quit)),
            (b"X", Some(FromPrimary::Dropped)),
            (b"J {\"t\":\"start\"}", Some(FromPrimary::Entry(b"{\"t\":\"start\"}"))),
            (b"C 17", Some(FromPrimary::Commit(17))),
            (b"C", None),
            (b"C -1", None),
            (b"C +1", None),
            (b"C 99999999999999999999999", None),
            (b"F refused", None),
            (b"", None),
            (b"RR", None),
        ] {
            assert_eq!(parse_from_primary(line).ok(), want, "{}", String::from_utf8_lossy(line));
        }
        assert_eq!(parse_ack(b"A 3"), Some(3));
        for bad in [&b"A"[..], b"A ", b"A +3", b"A 3 ", b"B 3", b"A 3x"] {
            assert_eq!(parse_ack(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse_ack(&ack_line(42)), Some(42));
        assert_eq!(reachable("0.0.0.0:7000", "10.1.2.3:5555"), "10.1.2.3:7000");
        assert_eq!(reachable("127.0.0.1:7000", "10.1.2.3:5555"), "127.0.0.1:7000");
    }

    /// Every line written here reads back as itself: the writer and the
    /// reader are the protocol's two halves.
    #[test]
    fn lines_written_read_back() {
        for line in [
            FromPrimary::Restart,
            FromPrimary::Entry(b"{\"t\":\"over\"}"),
            FromPrimary::Commit(7),
            FromPrimary::Heartbeat,
            FromPrimary::Over,
            FromPrimary::Quit,
            FromPrimary::Dropped,
        ] {
            assert_eq!(parse_from_primary(&line.to_line()), Ok(line.clone()), "{line:?}");
        }
        let entries = vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()];
        let copied = copy(&entries);
        let lines: Vec<_> = copied.split(|&b| b == b'\n').map(|l| parse_from_primary(l).unwrap()).collect();
        assert_eq!(
            lines,
            [
                FromPrimary::Restart,
                FromPrimary::Entry(b"{\"a\":1}"),
                FromPrimary::Entry(b"{\"b\":2}"),
                FromPrimary::Commit(0)
            ]
        );
        assert_eq!(batch(&[], 3), b"C 3");
        for answer in [Answer::Epoch(12), Answer::Yielded, Answer::Refused("no token")] {
            assert_eq!(Answer::parse(&answer.to_line()), Some(answer.clone()));
        }
        for bad in [&b"P"[..], b"P ", b"P x", b"DD", b""] {
            assert_eq!(Answer::parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        let t = Some("sup");
        let follow = follow_line("sup", "127.0.0.1:9", Duration::from_millis(1500));
        assert_eq!(
            parse_hello(&follow, t),
            Ok(Hello::Follow { listen: "127.0.0.1:9".into(), heartbeat: Duration::from_millis(1500) })
        );
        assert!(follow.starts_with(HELLO));
        assert_eq!(parse_hello(&probe_line("sup"), t), Ok(Hello::Probe));
        assert_eq!(parse_hello(&yield_line(4, "sup"), t), Ok(Hello::Yield { epoch: 4 }));
    }
}
