//! The short exchanges between referees: a probe of a standby's epoch
//! and the yield a referee that took over asks of the old primary, each
//! a line out and a line back within [`ASK_TIMEOUT`].

use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::event::Event;
use crate::journal::entry::Entry;
use crate::standby::wire::{self, Answer, Fenced};

/// How long a probe or a yield waits to connect and for its answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(1);

/// within [`ASK_TIMEOUT`]: `None` when nobody answers (a standby that has
/// not taken over accepts no connection).
async fn ask(addr: &str, line: Vec<u8>) -> Option<Vec<u8>> {
    let talk = async {
        let mut s = TcpStream::connect(addr).await.ok()?;
        s.write_all(&line).await.ok()?;
        s.write_all(b"\n").await.ok()?;
        let mut r = BufReader::new(s.take(256));
        let mut answer = Vec::new();
        r.read_until(b'\n', &mut answer).await.ok()?;
        Some(answer.trim_ascii().to_vec())
    };
    tokio::time::timeout(ASK_TIMEOUT, talk).await.ok().flatten()
}

/// The epoch of the referee serving at `addr`, if one answers there.
pub(super) async fn probe(addr: &str, token: &str) -> Option<u64> {
    let answer = ask(addr, wire::probe_line(token)).await?;
    match Answer::parse(&answer)? {
        Answer::Epoch(n) => Some(n),
        _ => None,
    }
}

/// After a take-over: tells the old primary at `addr` to yield, every
/// second, until it says it did or answers with a newer epoch.
pub(super) async fn fence(addr: String, token: String, epoch: u64, tell: mpsc::Sender<Fenced>) {
    loop {
        let answer = ask(&addr, wire::yield_line(epoch, &token)).await;
        match answer.as_deref().and_then(Answer::parse) {
            Some(Answer::Yielded) => {
                let _ = tell.send(Fenced::Yielded).await;
                return;
            }
            Some(Answer::Epoch(n)) if n > epoch => {
                let _ = tell.send(Fenced::Newer(n)).await;
                return;
            }
            _ => {}
        }
        if tell.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Asks the standby at `addr` for its epoch, again and again for
/// `patience` (every 250 ms), until it answers.
pub(super) async fn watch(addr: String, token: String, patience: Duration) -> Option<u64> {
    let start = Instant::now();
    loop {
        let epoch = probe(&addr, &token).await;
        if epoch.is_some() || start.elapsed() >= patience {
            return epoch;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Before a resumption: when the journal names a standby and it answers
/// with a newer epoch than the journal's, it took the event over while
/// this referee was down: this one steps down rather than play on.
pub(super) async fn step_down_to_standby(event: &Event, listen: Option<&str>) -> std::io::Result<()> {
    let Some(token) = &event.supervisor_token else { return Ok(()) };
    let Ok(entries) = crate::journal::read_entries(&event.journal) else { return Ok(()) };
    let (mut epoch, mut standby) = (0, None);
    for e in &entries {
        match serde_json::from_slice::<Entry>(e) {
            Ok(Entry::Begin { epoch: n, .. }) => epoch = n,
            Ok(Entry::Standby { listen, .. }) => standby = Some(listen),
            _ => {}
        }
    }
    let Some(standby) = standby else { return Ok(()) };
    if Some(standby.as_str()) == listen.or(Some(event.listen.as_str())) {
        return Ok(()); // this referee is the standby the journal names
    }
    match probe(&standby, token).await {
        Some(n) if n > epoch => Err(std::io::Error::other(format!(
            "the standby at {standby} took the event over (epoch {n}; this journal's is {epoch}): \
             this referee steps down; start it as --standby {standby}"
        ))),
        _ => Ok(()),
    }
}
