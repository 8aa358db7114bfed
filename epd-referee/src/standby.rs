//! The hot standby (`epd referee EVENT.toml --standby PRIMARY`): a second
//! referee that follows the primary's journal as it is written and takes
//! the event over when the primary stops answering.
//!
//! The standby reaches the primary at the address its clients use. Its
//! first line, `EPDKIT-STANDBY follow token=T listen=ADDR heartbeat_ms=N`,
//! presents the event's `supervisor_token`; a client record never starts
//! so, and a line without the token is refused. The primary answers with
//! lines of its own protocol:
//!
//! - `R`: the journal starts again (the standby's copy is replaced);
//! - `J PAYLOAD`: one journal entry, verbatim (JSON, never a newline);
//! - `C SEQ`: the entries since the last `C` are a batch: the standby
//!   appends them to its journal, syncs, and answers `A SEQ`;
//! - `H`: a heartbeat, every quarter of the standby's heartbeat;
//! - `E`: the event is over; `Q`: the supervisor stopped the primary
//!   (`quit`, to be resumed later): either way the standby leaves.
//!
//! The primary holds every record of a turn until the standby has
//! acknowledged the turn's entries (or is gone), so a move acknowledged to
//! a client is in the standby's journal before the client hears of it.
//!
//! When nothing has come from the primary for a heartbeat (2 s unless
//! told), or its address refuses connections (the host is up, the
//! referee's process is gone), the standby takes over: it resumes the
//! event from its copy of the journal, as `--resume` does, with a new
//! epoch, on its own listen address. It binds that address when it starts
//! and accepts nothing until it takes over, so clients that fail over to
//! it (`epd play --referee A,B`) wait in the listen queue and are served
//! the moment it does.
//!
//! Split brain is prevented by epochs. Every start and resumption writes a
//! `Begin` entry with one more epoch than the journal held. A referee that
//! took over tells the old primary to yield (`EPDKIT-STANDBY yield
//! epoch=N`) until it does: a primary whose epoch is not newer steps down.
//! A primary that loses its standby holds its records and asks the
//! standby's address for its epoch (`EPDKIT-STANDBY probe`): if the
//! standby has taken over with a newer epoch, the primary steps down
//! without sending them. A primary restarted with `--resume` asks the
//! standby its journal names before it acts, and steps down the same way.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::event::Event;
use crate::journal::{Journal, MAX_ENTRY};
use crate::server::{Options, Outcome};

/// How a standby's (or a fencer's) first line starts.
pub const HELLO: &[u8] = b"EPDKIT-STANDBY ";

/// How long the primary may be silent before the standby takes over,
/// unless told otherwise.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(2);

/// How long the primary waits for a standby's acknowledgement before it
/// goes on without it.
pub(crate) const ACK_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a probe or a yield waits to connect and for its answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(1);

/// What a standby's first line asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hello {
    /// Follow the journal; take over at `listen`; heartbeats within
    /// `heartbeat`.
    Follow { listen: String, heartbeat: Duration },
    /// What is your epoch? (`P EPOCH`)
    Probe,
    /// A referee at `epoch` took the event over: step down unless newer.
    Yield { epoch: u64 },
}

/// Reads a hello line: the request, and whether it carries `token`.
pub(crate) fn parse_hello(line: &[u8], token: Option<&str>) -> Result<Hello, &'static str> {
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

/// Sends `line` to the referee at `addr` and reads one line back, all
/// within [`ASK_TIMEOUT`]: `None` when nobody answers (a standby that has
/// not taken over accepts no connection).
async fn ask(addr: &str, line: String) -> Option<String> {
    let talk = async {
        let mut s = TcpStream::connect(addr).await.ok()?;
        s.write_all(line.as_bytes()).await.ok()?;
        s.write_all(b"\n").await.ok()?;
        let mut r = BufReader::new(s.take(256));
        let mut answer = String::new();
        r.read_line(&mut answer).await.ok()?;
        Some(answer.trim().to_owned())
    };
    tokio::time::timeout(ASK_TIMEOUT, talk).await.ok().flatten()
}

/// The epoch of the referee serving at `addr`, if one answers there.
pub(crate) async fn probe(addr: &str, token: &str) -> Option<u64> {
    let answer = ask(addr, format!("EPDKIT-STANDBY probe token={token}")).await?;
    answer.strip_prefix("P ")?.parse().ok()
}

/// What the director of a referee that took over hears from its fencer.
#[derive(Debug)]
pub(crate) enum Fenced {
    /// The old primary stepped down (or is not there).
    Yielded,
    /// The old primary has a newer epoch: this referee steps down.
    Newer(u64),
}

/// After a take-over: tells the old primary at `addr` to yield, every
/// second, until it says it did or answers with a newer epoch.
pub(crate) async fn fence(addr: String, token: String, epoch: u64, tell: mpsc::Sender<Fenced>) {
    loop {
        match ask(&addr, format!("EPDKIT-STANDBY yield epoch={epoch} token={token}")).await.as_deref() {
            Some("D") => {
                let _ = tell.send(Fenced::Yielded).await;
                return;
            }
            Some(p) => {
                if let Some(n) = p.strip_prefix("P ").and_then(|n| n.parse().ok()) {
                    if n > epoch {
                        let _ = tell.send(Fenced::Newer(n)).await;
                        return;
                    }
                }
            }
            None => {}
        }
        if tell.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// How following the primary ended.
enum Followed {
    /// The event is over.
    Over,
    /// The primary's supervisor stopped it.
    Quit,
    /// The primary refused this standby.
    Refused(String),
    /// The connection was lost or went silent.
    Lost(String),
    /// The primary's address refuses connections: its process is gone.
    Gone,
}

/// A line of the standby's log (the event's log file).
fn note(log: &Path, text: &str) {
    use std::io::Write as _;
    let (now, _) = crate::server::utc_now();
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
        let _ = writeln!(f, "{now} referee {text}");
    }
}

/// Runs a standby of the referee at `primary` until the event is over
/// there, or, when the primary goes silent for `heartbeat`, takes the
/// event over and runs it to its end.
///
/// # Errors
/// The event has no `supervisor_token`; the listen address cannot be
/// bound; the primary refuses this standby or was stopped by its
/// supervisor; as [`crate::server::run`] after a take-over.
pub async fn run(event: Event, options: Options, primary: String, heartbeat: Duration) -> io::Result<Outcome> {
    let token = event.supervisor_token.clone().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "a standby needs the event's supervisor_token (none in the file)")
    })?;
    let addr = options.listen.clone().unwrap_or_else(|| event.listen.clone());
    // Bound now, accepted from only after a take-over: clients that fail
    // over early wait in the listen queue.
    let listener = TcpListener::bind(&addr).await?;
    let local = listener.local_addr()?;
    let verbose = options.verbose;
    let say = |text: &str| {
        note(&event.log, text);
        if verbose {
            eprintln!("argus: {text}");
        }
    };
    say(&format!("standby of {primary}; taking over on {local} if it stops answering for {heartbeat:?}"));
    let mut synced = false;
    let mut heard = Instant::now();
    loop {
        match follow(&event, &primary, &token, &listener, heartbeat, &mut synced, &mut heard).await {
            Followed::Over => {
                say("the primary finished the event");
                return Ok(Outcome { games: 0, report: String::new(), latencies: Vec::new() });
            }
            Followed::Quit => {
                say("the primary was stopped by its supervisor");
                return Err(io::Error::other(
                    "the primary was stopped by its supervisor: resume it (or this one, with --resume)",
                ));
            }
            Followed::Refused(why) => return Err(io::Error::new(io::ErrorKind::PermissionDenied, why)),
            Followed::Lost(why) => {
                if synced && heard.elapsed() >= heartbeat {
                    say(&format!("the primary is gone ({why}); taking over"));
                    break;
                }
            }
            Followed::Gone if synced => {
                say("the primary is gone (its address refuses connections); taking over");
                break;
            }
            Followed::Gone => {}
        }
        // Before the first copy there is nothing to take over: wait for
        // the primary as long as it takes.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let options = Options { resume: true, ..options };
    crate::server::serve(event, options, None, Some(listener), Some(primary)).await
}

/// Follows the primary over one connection.
async fn follow(
    event: &Event,
    primary: &str,
    token: &str,
    listener: &TcpListener,
    heartbeat: Duration,
    synced: &mut bool,
    heard: &mut Instant,
) -> Followed {
    let until = |heard: Instant, synced: bool| {
        if synced {
            heard + heartbeat
        } else {
            Instant::now() + Duration::from_secs(5)
        }
    };
    let stream = match tokio::time::timeout_at(until(*heard, *synced).into(), TcpStream::connect(primary)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused => return Followed::Gone,
        _ => return Followed::Lost("cannot connect".into()),
    };
    let _ = stream.set_nodelay(true);
    let local = listener.local_addr().map_or_else(|_| String::new(), |a| a.to_string());
    let (read, mut write) = stream.into_split();
    let hello = format!("EPDKIT-STANDBY follow token={token} listen={local} heartbeat_ms={}\n", heartbeat.as_millis());
    if write.write_all(hello.as_bytes()).await.is_err() {
        return Followed::Lost("cannot write".into());
    }
    let mut reader = BufReader::with_capacity(1 << 16, read);
    let mut line = Vec::new();
    let mut journal: Option<Journal> = None;
    let mut batch: Vec<Vec<u8>> = Vec::new();
    loop {
        line.clear();
        let read = async {
            let mut limited = (&mut reader).take(MAX_ENTRY as u64 + 16);
            limited.read_until(b'\n', &mut line).await
        };
        match tokio::time::timeout_at(until(*heard, *synced).into(), read).await {
            Err(_) => return Followed::Lost("silent".into()),
            Ok(Err(e)) => return Followed::Lost(e.to_string()),
            Ok(Ok(0)) => return Followed::Lost("closed".into()),
            Ok(Ok(_)) => {}
        }
        if line.pop() != Some(b'\n') {
            return Followed::Lost("a line too long or cut short".into());
        }
        match line.first() {
            Some(b'H') => {}
            Some(b'R') => {
                // The primary's journal from its first entry: this copy
                // starts again.
                let _ = std::fs::remove_file(&event.journal);
                match Journal::create(&event.journal) {
                    Ok(j) => journal = Some(j),
                    Err(e) => return Followed::Refused(format!("{}: {e}", event.journal.display())),
                }
                batch.clear();
            }
            Some(b'J') if line.starts_with(b"J ") => batch.push(line[2..].to_vec()),
            Some(b'C') if line.starts_with(b"C ") => {
                let Some(j) = journal.as_mut() else {
                    return Followed::Lost("a batch before the journal's start".into());
                };
                let entries: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                if let Err(e) = j.append_all(&entries) {
                    return Followed::Refused(format!("{}: {e}", event.journal.display()));
                }
                batch.clear();
                let mut ack = b"A ".to_vec();
                ack.extend_from_slice(&line[2..]);
                ack.push(b'\n');
                if write.write_all(&ack).await.is_err() {
                    return Followed::Lost("cannot write".into());
                }
                *synced = true;
            }
            Some(b'E') => return Followed::Over,
            Some(b'Q') => return Followed::Quit,
            _ => return Followed::Refused(format!("the primary says: {}", String::from_utf8_lossy(&line))),
        }
        *heard = Instant::now();
        if line == b"H" {
            // The primary is alive: clients that came here (they could
            // not reach it a moment ago) are sent back to try it again.
            while let Ok(Ok((s, _))) = tokio::time::timeout(Duration::ZERO, listener.accept()).await {
                drop(s);
            }
        }
    }
}

/// [`run`] on a tokio runtime of its own.
///
/// # Errors
/// As [`run`].
pub fn run_blocking(event: Event, options: Options, primary: String, heartbeat: Duration) -> io::Result<Outcome> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let outcome = rt.block_on(run(event, options, primary, heartbeat));
    rt.shutdown_background();
    outcome
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
}
