//! The standby protocol's lines, read and written without I/O: what the
//! director, the runtime and the fuzzers share.

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
        assert_eq!(reachable("0.0.0.0:7000", "10.1.2.3:5555"), "10.1.2.3:7000");
        assert_eq!(reachable("127.0.0.1:7000", "10.1.2.3:5555"), "127.0.0.1:7000");
    }
}
