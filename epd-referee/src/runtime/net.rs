//! Clients' connections, over TCP or serial lines: a reader task that
//! frames lines (capped at [`MAX_RECORD`] bytes, each finished within
//! [`LINE_TIMEOUT`] of its first byte) and a writer task fed by a bounded
//! queue. Both report to the director's inbox. Each writer holds a
//! [`Working`] token until it has written its queue out: the referee's
//! end waits for every token (mini-redis's shutdown completion).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::{Inbox, Latencies, Out, Working, DEAD_LINK, LINE_TIMEOUT, QUEUE};
use crate::director::{ConnId, Input, Reach};
use crate::protocol::MAX_RECORD;

/// Accepts clients until aborted (the event's end), `slots` at once at
/// most ([`super::client_slots`]): each gets a connection task.
pub(super) async fn listen(
    listener: TcpListener,
    slots: usize,
    tx: mpsc::Sender<Inbox>,
    latencies: Option<Latencies>,
    working: Working,
) {
    let mut next: ConnId = 1;
    let slots = Arc::new(tokio::sync::Semaphore::new(slots));
    let ended = Arc::new(AtomicUsize::new(0));
    tokio::spawn(give_back_after_floods(Arc::clone(&ended)));
    loop {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else { return };
        let Ok((stream, peer)) = listener.accept().await else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let _ = watch_link(&stream);
        let id = next;
        next += 1;
        let tx = tx.clone();
        let latencies = latencies.clone();
        let working = working.clone();
        let ended = Arc::clone(&ended);
        tokio::spawn(async move {
            let (read, write) = stream.into_split();
            connection(id, (read, write), peer.to_string(), tx, latencies, working).await;
            drop(permit);
            ended.fetch_add(1, Ordering::Relaxed);
        });
    }
}

/// Has the system close a client's connection when its host is lost
/// (killed with its machine, its link cut), which would otherwise leave
/// the connection open for many minutes while a mover's clock runs and
/// no grace starts: keep-alive probes after a second of silence, one a
/// second, the fourth unanswered ending it; and data sent but
/// unacknowledged for [`DEAD_LINK`] ending it too (`TCP_USER_TIMEOUT`).
/// A host that answers, however slow its engine, keeps its connection.
fn watch_link(stream: &tokio::net::TcpStream) -> std::io::Result<()> {
    let probes = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(1))
        .with_interval(Duration::from_secs(1))
        .with_retries(4);
    let socket = socket2::SockRef::from(stream);
    socket.set_tcp_keepalive(&probes)?;
    #[cfg(target_os = "linux")]
    socket.set_tcp_user_timeout(Some(DEAD_LINK))?;
    Ok(())
}

/// Connections ended since memory was last handed back, after which it
/// is handed back again.
const GIVE_BACK_AFTER: usize = 128;

/// How often [`give_back_after_floods`] looks.
const GIVE_BACK_EVERY: Duration = Duration::from_secs(2);

/// After a flood of connections, hands the memory they took back to the
/// system (glibc keeps what is freed in each thread's arena, so the
/// referee stayed ~4 MB larger after a flood than before): every
/// [`GIVE_BACK_EVERY`], if [`GIVE_BACK_AFTER`] connections have ended
/// since the last time. Ends with the listener.
async fn give_back_after_floods(ended: Arc<AtomicUsize>) {
    let mut seen = 0;
    loop {
        tokio::time::sleep(GIVE_BACK_EVERY).await;
        if Arc::strong_count(&ended) == 1 {
            return;
        }
        let now = ended.load(Ordering::Relaxed);
        if now >= seen + GIVE_BACK_AFTER {
            seen = now;
            trim();
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim takes no pointer and may be called at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// One client, over TCP or a serial line: a reader (this task) and a
/// writer task, which holds `working` until it has written its queue
/// out. It ends when the client closes, misbehaves, or the director
/// drops it.
pub(super) async fn connection<R, W>(
    id: ConnId,
    (read, mut write): (R, W),
    peer: String,
    tx: mpsc::Sender<Inbox>,
    latencies: Option<Latencies>,
    working: Working,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(QUEUE);
    if tx.send(Inbox::Connected { id, tx: out_tx, peer, reach: Reach::Remote }).await.is_err() {
        return;
    }
    let writer = tokio::spawn(async move {
        while let Some((line, since)) = out_rx.recv().await {
            let sent = async {
                write.write_all(&line).await?;
                write.flush().await
            };
            match tokio::time::timeout(Duration::from_secs(10), sent).await {
                Ok(Ok(())) => {}
                _ => break,
            }
            if let (Some((read, taken)), Some(l)) = (since, &latencies) {
                let d = (read.elapsed(), taken.elapsed());
                l.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(d);
            }
        }
        let _ = write.shutdown().await;
        drop(working);
    });
    let mut writer = writer;
    let mut reader = BufReader::with_capacity(8192, read);
    let mut line = Vec::with_capacity(256);
    let reading = async {
        loop {
            line.clear();
            // The first byte may take as long as it likes (games wait for
            // pairings); the rest of the line must follow promptly.
            let first = match reader.fill_buf().await {
                Ok([]) => break "closed by the client".to_owned(),
                Ok(_) => tokio::time::Instant::now(),
                Err(e) => break format!("read error: {e}"),
            };
            let read_line = async {
                loop {
                    let buf = match reader.fill_buf().await {
                        Ok([]) => return Err("closed in the middle of a line".to_owned()),
                        Ok(b) => b,
                        Err(e) => return Err(format!("read error: {e}")),
                    };
                    if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                        line.extend_from_slice(&buf[..i]);
                        reader.consume(i + 1);
                        return Ok(true);
                    }
                    let n = buf.len();
                    line.extend_from_slice(buf);
                    reader.consume(n);
                    if line.len() > MAX_RECORD + 1 {
                        return Ok(false);
                    }
                }
            };
            match tokio::time::timeout_at(first + LINE_TIMEOUT, read_line).await {
                Ok(Ok(true)) => {
                    if tx.send(Inbox::Input(Input::Line { id, line: line.clone(), at: Instant::now() })).await.is_err()
                    {
                        break "referee stopped".to_owned();
                    }
                }
                Ok(Ok(false)) => {
                    let _ = tx.send(Inbox::Input(Input::TooLong { id })).await;
                    break format!("a line longer than {MAX_RECORD} bytes");
                }
                Ok(Err(why)) => break why,
                Err(_) => break format!("a line unfinished after {} s", LINE_TIMEOUT.as_secs()),
            }
        }
    };
    // The writer ends when the director drops this client (or the client
    // stops reading): then the connection is over.
    let (why, written) = tokio::select! {
        why = reading => (why, false),
        _ = &mut writer => ("dropped by the referee".to_owned(), true),
    };
    let _ = tx.send(Inbox::Input(Input::Closed { id, why })).await;
    // The director drops this client's queue when it hears of the close:
    // the writer then sends what is queued (a fault saying why) and ends.
    // A client that does not read gets two seconds.
    if !written {
        let abort = writer.abort_handle();
        if tokio::time::timeout(Duration::from_secs(2), writer).await.is_err() {
            abort.abort();
        }
    }
}

/// One direction of a serial line, non-blocking, driven by the event
/// loop (no read left pending on a thread when a connection ends).
#[cfg(unix)]
struct Line(tokio::io::unix::AsyncFd<std::fs::File>);

#[cfg(unix)]
impl Line {
    fn new(file: std::fs::File) -> std::io::Result<Line> {
        // SAFETY: the File owns its descriptor, which stays open and the
        // same while the AsyncFd holds it.
        let fd = unsafe { tokio::io::unix::AsyncFd::register(file) };
        Ok(Line(fd.map_err(std::io::Error::from)?))
    }
}

#[cfg(unix)]
impl AsyncRead for Line {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::io::Read as _;
        loop {
            let mut guard = std::task::ready!(self.0.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|f| f.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return std::task::Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return std::task::Poll::Ready(Err(e)),
                Err(_would_block) => {}
            }
        }
    }
}

#[cfg(unix)]
impl AsyncWrite for Line {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        data: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::io::Write as _;
        loop {
            let mut guard = std::task::ready!(self.0.poll_write_ready(cx))?;
            match guard.try_io(|f| f.get_ref().write(data)) {
                Ok(r) => return std::task::Poll::Ready(r),
                Err(_would_block) => {}
            }
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// A serial line (`--serial`): opened in raw mode, its client served as
/// a TCP client is; opened again after it closes or its client is
/// dropped, as a new connection. Line `k` of `n` takes the connection ids
/// k + 1, k + 1 + n, ...
#[cfg(unix)]
pub(super) async fn serial_line(
    path: PathBuf,
    baud: u32,
    (k, n): (u64, u64),
    tx: mpsc::Sender<Inbox>,
    working: Working,
) {
    let mut id = k + 1;
    let mut wait = Duration::from_millis(200);
    loop {
        let opened = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || crate::serial::open_raw(&path, baud)).await
        };
        match opened {
            Ok(Ok(file)) => {
                wait = Duration::from_millis(200);
                let halves = (|| {
                    crate::serial::set_nonblocking(&file)?;
                    Ok::<_, std::io::Error>((Line::new(file.try_clone()?)?, Line::new(file)?))
                })();
                let (read, write) = match halves {
                    Ok(h) => h,
                    Err(e) => {
                        let _ = tx.send(Inbox::Input(Input::Note(format!("{}: {e}", path.display())))).await;
                        return;
                    }
                };
                connection(id, (read, write), path.display().to_string(), tx.clone(), None, working.clone()).await;
                id += n;
            }
            Ok(Err(e)) => {
                let _ = tx
                    .send(Inbox::Input(Input::Note(format!("cannot open the serial line {}: {e}", path.display()))))
                    .await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            Err(_) => return,
        }
        if tx.is_closed() {
            return;
        }
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    /// A slow loris, a byte a second and never a newline, is dropped when
    /// its line is [`LINE_TIMEOUT`] old, on tokio's paused clock: the
    /// process test `hostile_clients_cost_the_referee_nothing` shows it
    /// over TCP, this the instant.
    #[tokio::test(start_paused = true)]
    async fn a_line_unfinished_after_the_line_timeout_closes_the_connection() {
        let (client, server) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server);
        let (tx, mut rx) = mpsc::channel(16);
        let (working, _finished) = mpsc::channel(1);
        tokio::spawn(connection(7, (read, write), "loris".into(), tx, None, working));
        // The director's end of the connection: its queue kept, as the
        // carrier keeps it.
        let Some(Inbox::Connected { id: 7, tx: _queue, .. }) = rx.recv().await else { panic!("no connection") };
        let start = tokio::time::Instant::now();
        let (_from, mut to) = tokio::io::split(client);
        tokio::spawn(async move {
            for &b in b"refreq sign_on; name \"white\"; ".iter().cycle() {
                if to.write_all(&[b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        let Some(Inbox::Input(Input::Closed { id: 7, why })) = rx.recv().await else { panic!("not closed") };
        let after = start.elapsed();
        assert_eq!(why, format!("a line unfinished after {} s", LINE_TIMEOUT.as_secs()));
        assert!(after >= LINE_TIMEOUT && after < LINE_TIMEOUT + Duration::from_secs(1), "{after:?}");
    }

    /// At the event's end the runtime drops the connections' queues and
    /// waits for every writer's [`Working`] token: it comes back only
    /// once what was queued (the last `disconnect`) is written.
    #[tokio::test(start_paused = true)]
    async fn the_end_waits_for_the_writers_to_write_their_queues_out() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let (tx, mut rx) = mpsc::channel(16);
        let (working, mut finished) = mpsc::channel::<()>(1);
        tokio::spawn(connection(3, (read, write), "client".into(), tx, None, working.clone()));
        let Some(Inbox::Connected { id: 3, tx: queue, .. }) = rx.recv().await else { panic!("no connection") };
        for line in ["first\n", "last\n"] {
            queue.send((line.as_bytes().to_vec(), None)).await.unwrap();
        }
        drop(queue);
        drop(working);
        assert_eq!(finished.recv().await, None, "every token dropped");
        let mut got = String::new();
        let (mut from, _to) = tokio::io::split(client);
        tokio::io::AsyncReadExt::read_to_string(&mut from, &mut got).await.unwrap();
        assert_eq!(got, "first\nlast\n");
    }
}
