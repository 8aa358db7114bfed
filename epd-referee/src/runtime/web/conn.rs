//! One connection to the display: its place in the budget, and its
//! socket watched so that a client that takes nothing is dropped.

use std::future::Future as _;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

use super::budget::Slot;

/// A connection as its requests see it (an extension of each).
#[derive(Debug)]
pub(crate) struct Conn {
    pub peer: SocketAddr,
    /// Its place in the budget: a request slot from its accept, a stream
    /// slot once it carries an event stream.
    slot: Mutex<Slot>,
    /// Whether it carries an event stream.
    stream: AtomicBool,
}

impl Conn {
    pub(crate) fn new(peer: SocketAddr, slot: Slot) -> Arc<Conn> {
        Arc::new(Conn { peer, slot: Mutex::new(slot), stream: AtomicBool::new(false) })
    }

    /// From now on the connection carries an event stream, counted in
    /// `slot` (its request slot is given back).
    pub(crate) fn become_stream(&self, slot: Slot) {
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = slot;
        self.stream.store(true, Ordering::Release);
    }

    #[must_use]
    pub(crate) fn is_stream(&self) -> bool {
        self.stream.load(Ordering::Acquire)
    }
}

/// A connection's socket with a write timeout: a write that the client
/// does not make room for within `write_timeout` fails, and the socket
/// is reset (so that its unsent bytes are freed at once). Once the
/// connection carries an event stream, its send buffer is cut to
/// `stream_buffer`, so that a client that takes nothing is found out
/// after that much.
#[derive(Debug)]
pub(crate) struct Watched {
    io: TcpStream,
    conn: Arc<Conn>,
    write_timeout: Duration,
    stream_buffer: usize,
    /// Since the first write that found no room, if the last one did.
    stalled: Option<Pin<Box<Sleep>>>,
    /// Whether the send buffer has been cut.
    cut: bool,
}

impl Watched {
    pub(crate) fn new(io: TcpStream, conn: Arc<Conn>, write_timeout: Duration, stream_buffer: usize) -> Watched {
        Watched { io, conn, write_timeout, stream_buffer, stalled: None, cut: false }
    }

    /// Before a write: an event stream's buffer is cut.
    fn before_write(&mut self) {
        if !self.cut && self.conn.is_stream() {
            self.cut = true;
            let _ = socket2::SockRef::from(&self.io).set_send_buffer_size(self.stream_buffer);
        }
    }

    /// After a write: progress clears the timer, a wait starts it, and a
    /// wait past the timeout fails the write.
    fn after_write(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        if r.is_ready() {
            self.stalled = None;
            return r;
        }
        let timeout = self.write_timeout;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if timer.as_mut().poll(cx).is_ready() {
            let _ = self.io.set_zero_linger();
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client took nothing")));
        }
        Poll::Pending
    }
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.before_write();
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        self.after_write(cx, r)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.before_write();
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.after_write(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::super::budget::{Budget, Kind, Limit};
    use super::*;
    use tokio::io::AsyncWriteExt as _;

    /// A client that reads nothing: the writes fill the buffers, then
    /// fail once they have waited the timeout, not before.
    #[tokio::test]
    async fn a_client_that_takes_nothing_times_out() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (io, peer) = listener.accept().await.unwrap();
        let budget = Budget::new(Limit { total: 1, per_address: 1 }, Limit { total: 1, per_address: 1 });
        let conn = Conn::new(peer, budget.take(Kind::Request, peer.ip()).unwrap());
        conn.become_stream(budget.take(Kind::Stream, peer.ip()).unwrap());
        assert_eq!(budget.open(), (0, 1), "the request slot is given back");
        let mut w = Watched::new(io, Arc::clone(&conn), Duration::from_millis(300), 4096);
        let chunk = [b'x'; 1024];
        let mut written = 0usize;
        let mut last_progress = std::time::Instant::now();
        let err = loop {
            match w.write(&chunk).await {
                Ok(n) => {
                    written += n;
                    last_progress = std::time::Instant::now();
                }
                Err(e) => break e,
            }
            assert!(written < 64 << 20, "the buffers never filled");
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let waited = last_progress.elapsed();
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(3), "{waited:?}");
        // The cut buffer: a few kilobytes stood in the sockets, not megabytes.
        assert!(written < 1 << 20, "{written} bytes before the buffers filled");
        drop((w, conn, client));
        assert_eq!(budget.open(), (0, 0));
    }
}
