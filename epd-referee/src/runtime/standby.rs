//! The hot standby's own side (`epd referee EVENT.toml --standby
//! PRIMARY`): it follows the primary's journal over one connection,
//! keeps a synced copy, and takes the event over when the primary goes
//! silent. The protocol is described in [`crate::standby`]; its lines are
//! read by [`crate::standby::wire`], and what to do about them is decided
//! by [`crate::standby::follower`].

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::{Options, Outcome};
use crate::event::Event;
use crate::journal::{Journal, MAX_ENTRY};
use crate::standby::follower::{Ended, Follower, Step};
use crate::standby::wire;

/// How following the primary ended on one connection.
enum Followed {
    /// As the follower decided.
    Ended(Ended),
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
    let mut follower = Follower::new(heartbeat, Instant::now());
    let mut told_stale = false;
    loop {
        let ended = follow(&event, &primary, &token, &listener, heartbeat, &mut follower).await;
        match ended {
            Followed::Ended(Ended::Over) => {
                say("the primary finished the event");
                return Ok(Outcome {
                    games: 0,
                    report: String::new(),
                    latencies: Vec::new(),
                    interrupted: None,
                    engine_failed: None,
                });
            }
            Followed::Ended(Ended::Quit) => {
                say("the primary was stopped by its supervisor");
                return Err(io::Error::other(
                    "the primary was stopped by its supervisor: resume it (or this one, with --resume)",
                ));
            }
            Followed::Ended(Ended::Refused(why)) => return Err(io::Error::new(io::ErrorKind::PermissionDenied, why)),
            Followed::Ended(Ended::Lost(why)) => {
                if follower.takes_over(Instant::now(), false) {
                    say(&format!("the primary is gone ({why}); taking over"));
                    break;
                }
            }
            Followed::Gone => {
                if follower.takes_over(Instant::now(), true) {
                    say("the primary is gone (its address refuses connections); taking over");
                    break;
                }
                if follower.synced() && !std::mem::replace(&mut told_stale, true) {
                    say("the primary is gone, but this standby was not run for a while and its copy may lack \
                         what the primary did meanwhile: not taking over; resume the primary from its own \
                         journal (--resume)");
                }
            }
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
    follower: &mut Follower,
) -> Followed {
    let lost = |why: &str| Followed::Ended(Ended::Lost(why.into()));
    let deadline = follower.deadline(Instant::now());
    let stream = match tokio::time::timeout_at(deadline.into(), TcpStream::connect(primary)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused => return Followed::Gone,
        _ => return lost("cannot connect"),
    };
    let _ = stream.set_nodelay(true);
    let local = listener.local_addr().map_or_else(|_| String::new(), |a| a.to_string());
    let (read, mut write) = stream.into_split();
    let mut hello = wire::follow_line(token, &local, heartbeat);
    hello.push(b'\n');
    if write.write_all(&hello).await.is_err() {
        return lost("cannot write");
    }
    follower.connected();
    let mut reader = BufReader::with_capacity(1 << 16, read);
    let mut line = Vec::new();
    let mut journal: Option<Journal> = None;
    loop {
        line.clear();
        let read = async {
            let mut limited = (&mut reader).take(MAX_ENTRY as u64 + 16);
            limited.read_until(b'\n', &mut line).await
        };
        match tokio::time::timeout_at(follower.deadline(Instant::now()).into(), read).await {
            Err(_) => return lost("silent"),
            Ok(Err(e)) => return lost(&e.to_string()),
            Ok(Ok(0)) => return lost("closed"),
            Ok(Ok(_)) => {}
        }
        if line.pop() != Some(b'\n') {
            return lost("a line too long or cut short");
        }
        match follower.on_line(Instant::now(), &line) {
            Step::Nothing => {}
            Step::Restart => {
                // The primary's journal from its first entry: this copy
                // starts again.
                let _ = std::fs::remove_file(&event.journal);
                match Journal::create(&event.journal) {
                    Ok(j) => journal = Some(j),
                    Err(e) => return Followed::Ended(Ended::Refused(format!("{}: {e}", event.journal.display()))),
                }
            }
            Step::Commit { seq, entries } => {
                let Some(j) = journal.as_mut() else { return lost("a batch before the journal's start") };
                let entries: Vec<&[u8]> = entries.iter().map(Vec::as_slice).collect();
                if let Err(e) = j.append_all(&entries) {
                    return Followed::Ended(Ended::Refused(format!("{}: {e}", event.journal.display())));
                }
                let mut ack = wire::ack_line(seq);
                ack.push(b'\n');
                if write.write_all(&ack).await.is_err() {
                    return lost("cannot write");
                }
                follower.committed();
            }
            Step::Alive => {
                // The primary is alive: clients that came here (they could
                // not reach it a moment ago) are sent back to try it again.
                while let Ok(Ok((s, _))) = tokio::time::timeout(Duration::ZERO, listener.accept()).await {
                    drop(s);
                }
            }
            Step::End(ended) => return Followed::Ended(ended),
        }
    }
}

/// [`run`] on a tokio runtime of its own.
///
/// # Errors
/// As [`run`].
pub fn run_blocking(event: Event, options: Options, primary: String, heartbeat: Duration) -> io::Result<Outcome> {
    let rt = super::new_runtime()?;
    let outcome = rt.block_on(run(event, options, primary, heartbeat));
    rt.shutdown_background();
    outcome
}
