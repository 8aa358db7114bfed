//! The hot standby's own side (`epd referee EVENT.toml --standby
//! PRIMARY`): it follows the primary's journal over one connection,
//! keeps a synced copy, and takes the event over when the primary goes
//! silent. The protocol is described in [`crate::standby`]; its lines are
//! read by [`crate::standby::wire`].

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::{Options, Outcome};
use crate::event::Event;
use crate::journal::{Journal, MAX_ENTRY};
use crate::standby::wire::{parse_from_primary, FromPrimary};

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
    let (now, _) = super::utc_now();
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
/// supervisor; as [`super::run`] after a take-over.
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
                return Ok(Outcome { games: 0, report: String::new(), latencies: Vec::new(), interrupted: None });
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
    super::serve(event, options, None, Some(listener), Some(primary)).await
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
        let heartbeat_line = match parse_from_primary(&line) {
            Ok(FromPrimary::Heartbeat) => true,
            Ok(FromPrimary::Restart) => {
                // The primary's journal from its first entry: this copy
                // starts again.
                let _ = std::fs::remove_file(&event.journal);
                match Journal::create(&event.journal) {
                    Ok(j) => journal = Some(j),
                    Err(e) => return Followed::Refused(format!("{}: {e}", event.journal.display())),
                }
                batch.clear();
                false
            }
            Ok(FromPrimary::Entry(e)) => {
                batch.push(e.to_vec());
                false
            }
            Ok(FromPrimary::Commit(seq)) => {
                let Some(j) = journal.as_mut() else {
                    return Followed::Lost("a batch before the journal's start".into());
                };
                let entries: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                if let Err(e) = j.append_all(&entries) {
                    return Followed::Refused(format!("{}: {e}", event.journal.display()));
                }
                batch.clear();
                if write.write_all(format!("A {seq}\n").as_bytes()).await.is_err() {
                    return Followed::Lost("cannot write".into());
                }
                *synced = true;
                false
            }
            Ok(FromPrimary::Over) => return Followed::Over,
            Ok(FromPrimary::Quit) => return Followed::Quit,
            Err(why) => return Followed::Refused(why),
        };
        *heard = Instant::now();
        if heartbeat_line {
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
