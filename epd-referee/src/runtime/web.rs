//! The live display (`web = "HOST:PORT"` in the event file): a page that
//! shows every game in progress (board, clocks counting down, moves,
//! players, the last move), the standings and the finished games, kept up
//! to date over Server-Sent Events; and the same data for programs.
//!
//! - `GET /`: the page (with `/app.js` and `/style.css`: everything is
//!   served from here, nothing from elsewhere, so it works offline);
//! - `GET /api/state`: the state as JSON ([`State`](crate::director::State));
//! - `GET /api/events`: Server-Sent Events, an event `state` carrying
//!   the same JSON at once and after every change (at most ten a second;
//!   a slow reader skips to the newest);
//! - `GET /pgn`: live PGN for broadcasters: the finished games as written,
//!   then the games in progress with result `*`;
//! - `POST /api/supervisor?action=...`: the supervisor's actions (pause,
//!   resume, adjudicate, abort, restart), only with `Authorization:
//!   Bearer` and the event's `supervisor_token`; everything else is
//!   read-only.
//!
//! The director publishes the state ([`Snapshot`]); this module only
//! reads it.
//!
//! # Limits
//!
//! Every client is untrusted, and none can lock the others out: event
//! streams, which stay open, are counted apart from the connections for
//! plain requests (the page, `/api/state`, `/pgn`, the supervisor), so
//! that streams can never take the room plain requests need, and each
//! address has a share of both.
//!
//! - [`MAX_CONNECTIONS`] connections for plain requests at once, at most
//!   [`MAX_CONNECTIONS_PER_ADDRESS`] from one address; a connection counts
//!   from its accept until it closes or becomes an event stream;
//! - [`MAX_STREAMS`] event streams at once, at most
//!   [`MAX_STREAMS_PER_ADDRESS`] from one address;
//! - the listener's backlog is [`LISTEN_BACKLOG`], so that a burst of
//!   connections is not left to the system's retries (a second each);
//! - past a limit the connection is answered 503 with `Retry-After:`
//!   [`RETRY_AFTER`] and closed; the listener never waits for a slot, so
//!   it always answers;
//! - a request head must arrive within [`HEAD_TIMEOUT`] and fit
//!   [`MAX_HEAD`] bytes; the wait for a keep-alive connection's next
//!   request is the same wait, so an idle connection is closed after
//!   [`HEAD_TIMEOUT`]; no request body is read;
//! - a write the client makes no room for within [`WRITE_TIMEOUT`] closes
//!   the connection (reset, so its unsent bytes are freed): a client that
//!   takes nothing is dropped. An event stream's socket send buffer is
//!   cut to [`STREAM_SEND_BUFFER`], so that a stream's client that takes
//!   nothing is found out after that much of the state (a slow reader
//!   still skips to the newest state); while nothing changes a stream
//!   carries only a comment every [`STREAM_KEEP_ALIVE`];
//! - addresses are counted as they are for IPv4, by their /64 for IPv6.
//!
//! None of these is in the event file: they are constants here.

mod budget;
mod conn;

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::director::Snapshot;
use axum::extract::{Query, State as Extract};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio_stream::StreamExt as _;

use budget::{Budget, Kind, Limit, Refused};
use conn::{Conn, Watched};

/// The most connections for plain requests at once (event streams are
/// counted apart, in [`MAX_STREAMS`]).
pub const MAX_CONNECTIONS: usize = 256;
/// The most connections for plain requests from one address at once.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 64;
/// The most event streams (`/api/events`) at once: one a page open.
pub const MAX_STREAMS: usize = 128;
/// The most event streams from one address at once.
pub const MAX_STREAMS_PER_ADDRESS: usize = 32;
/// How long a request's head may take to arrive, and a keep-alive
/// connection may wait idle for the next.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head read.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a write may wait for the client to make room before the
/// connection is closed.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// An event stream's socket send buffer, in bytes (as asked of the
/// system, which may round it; Linux doubles it).
pub const STREAM_SEND_BUFFER: usize = 32 * 1024;
/// How often an event stream with nothing new carries a comment.
pub const STREAM_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// When a refused client is told to try again.
pub const RETRY_AFTER: Duration = Duration::from_secs(5);
/// How many connections the system may hold for the listener before it
/// accepts them (capped by the system: `net.core.somaxconn` on Linux).
pub const LISTEN_BACKLOG: i32 = 1024;

const PAGE: &str = include_str!("web/index.html");
const SCRIPT: &str = include_str!("web/app.js");
const STYLE: &str = include_str!("web/style.css");

/// What the web side needs from the event.
#[derive(Clone)]
struct Shared {
    state: watch::Receiver<Arc<Snapshot>>,
    /// Where the finished games are (they are read from there).
    pgn: PathBuf,
    token: Option<String>,
    /// The director's inbox, for supervisor actions.
    act: mpsc::Sender<(String, String)>,
    /// The connections open, and how many may be.
    budget: Arc<Budget>,
}

/// Serves the display on `listener` until the runtime stops.
pub(crate) async fn serve(
    listener: TcpListener,
    state: watch::Receiver<Arc<Snapshot>>,
    pgn: PathBuf,
    token: Option<String>,
    act: mpsc::Sender<(String, String)>,
) {
    let budget = Budget::new(
        Limit { total: MAX_CONNECTIONS, per_address: MAX_CONNECTIONS_PER_ADDRESS },
        Limit { total: MAX_STREAMS, per_address: MAX_STREAMS_PER_ADDRESS },
    );
    let shared = Shared { state, pgn, token, act, budget: Arc::clone(&budget) };
    // The listener comes bound with the standard library's backlog, 128:
    // a burst of connections past it has the system drop their
    // handshakes, and everyone, the supervisor too, waits a second for
    // the retry. Listening again sets it.
    let _ = socket2::SockRef::from(&listener).listen(LISTEN_BACKLOG);
    let app = Router::new()
        .route("/", get(page))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/state", get(state_json))
        .route("/api/events", get(events))
        .route("/pgn", get(live_pgn))
        .route("/api/supervisor", post(supervisor))
        .with_state(shared);
    loop {
        // The listener never waits for a slot: past a limit a client is
        // told so at once, and those within their share are served.
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let slot = match budget.take(Kind::Request, peer.ip()) {
            Ok(slot) => slot,
            Err(why) => {
                // Whatever fits the socket's buffer, without waiting.
                let _ = stream.try_write(refusal_bytes(why, Kind::Request).as_bytes());
                continue;
            }
        };
        let conn = Conn::new(peer, slot);
        let app = app.clone().layer(axum::Extension(Arc::clone(&conn)));
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(Watched::new(stream, conn, WRITE_TIMEOUT, STREAM_SEND_BUFFER));
            let service = hyper_util::service::TowerToHyperService::new(app);
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Why a client is refused, in words.
fn refusal(why: Refused, kind: Kind) -> &'static str {
    match (why, kind) {
        (Refused::Total, Kind::Request) => "the display has too many connections: try again later\n",
        (Refused::Address, Kind::Request) => "too many connections from your address: try again later\n",
        (Refused::Total, Kind::Stream) => "the display has too many live pages: try again later\n",
        (Refused::Address, Kind::Stream) => "too many live pages from your address: try again later\n",
    }
}

/// A refusal as a whole HTTP response, for a connection not served.
fn refusal_bytes(why: Refused, kind: Kind) -> String {
    let text = refusal(why, kind);
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: {}\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{text}",
        RETRY_AFTER.as_secs(),
        text.len()
    )
}

/// A refusal as a response, for a connection being served: it is closed
/// after it.
fn refused(why: Refused, kind: Kind) -> Response {
    let mut r = secured((StatusCode::SERVICE_UNAVAILABLE, refusal(why, kind)).into_response());
    let h = r.headers_mut();
    h.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER.as_secs()));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// Every response: no caching, nothing from elsewhere, no framing.
fn secured(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    r
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    secured(([(header::CONTENT_TYPE, kind)], body).into_response())
}

async fn page() -> Response {
    asset("text/html; charset=utf-8", PAGE)
}

/// How long a request in the first moments waits for the director's
/// first state.
const FIRST_STATE: Duration = Duration::from_secs(5);

async fn state_json(Extract(s): Extract<Shared>) -> Response {
    // The display is served as soon as its address is bound, which can be
    // before the director has published anything: wait for that.
    let mut rx = s.state.clone();
    let _ = tokio::time::timeout(FIRST_STATE, rx.wait_for(|snap| !snap.json.is_empty())).await;
    let json = rx.borrow().json.clone();
    if json.is_empty() {
        return secured((StatusCode::SERVICE_UNAVAILABLE, "the referee has not started yet\n").into_response());
    }
    secured(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

async fn events(Extract(s): Extract<Shared>, conn: axum::Extension<Arc<Conn>>) -> Response {
    // The connection moves from the budget of requests to that of
    // streams, or is refused and closed.
    match s.budget.take(Kind::Stream, conn.peer.ip()) {
        Ok(slot) => conn.become_stream(slot),
        Err(why) => return refused(why, Kind::Stream),
    }
    let stream = tokio_stream::wrappers::WatchStream::new(s.state)
        .filter(|snap| !snap.json.is_empty())
        .map(|snap| Ok::<_, Infallible>(SseEvent::default().event("state").data(snap.json.as_str())));
    secured(Sse::new(stream).keep_alive(KeepAlive::new().interval(STREAM_KEEP_ALIVE)).into_response())
}

async fn live_pgn(Extract(s): Extract<Shared>) -> Response {
    // The finished games as the referee wrote them, then the live ones.
    let path = s.pgn.clone();
    let mut text = tokio::task::spawn_blocking(move || std::fs::read_to_string(path).unwrap_or_default())
        .await
        .unwrap_or_default();
    text.push_str(&s.state.borrow().live_pgn);
    secured(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], text).into_response())
}

/// The query of a supervisor action.
#[derive(serde::Deserialize)]
struct Action {
    action: String,
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    player: Option<String>,
}

/// Compares in time independent of where the strings differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn supervisor(
    Extract(s): Extract<Shared>,
    headers: HeaderMap,
    conn: axum::Extension<Arc<Conn>>,
    Query(a): Query<Action>,
) -> Response {
    let reply = |code: StatusCode, text: &str| secured((code, text.to_owned()).into_response());
    let Some(token) = &s.token else {
        return reply(StatusCode::FORBIDDEN, "this event has no supervisor_token: the display is read-only\n");
    };
    let given =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if !given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
        return reply(StatusCode::UNAUTHORIZED, "supervisor actions need Authorization: Bearer TOKEN\n");
    }
    let Some(command) =
        crate::director::supervisor_command(&a.action, a.game.as_deref(), a.result.as_deref(), a.player.as_deref())
    else {
        return reply(
            StatusCode::BAD_REQUEST,
            "action=pause|resume&game=N|all, action=adjudicate&game=N&result=1-0|0-1|1/2-1/2, \
             action=abort&game=N, action=restart&player=NAME\n",
        );
    };
    match s.act.try_send((command.clone(), conn.peer.to_string())) {
        Ok(()) => reply(StatusCode::ACCEPTED, &format!("{command}\n")),
        Err(_) => reply(StatusCode::SERVICE_UNAVAILABLE, "the referee is busy or over\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"s3cret", b"s3cret"));
        for other in [&b"s3cre"[..], b"s3cret!", b"S3cret", b""] {
            assert!(!same(b"s3cret", other));
        }
    }

    /// docs/argus.md states every limit as it is here.
    #[test]
    fn the_guide_states_every_limit() {
        let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/argus.md")).unwrap();
        let secs = |d: Duration| format!("{} s", d.as_secs());
        let kib = |n: usize| format!("{} KiB", n / 1024);
        for (name, value) in [
            ("MAX_CONNECTIONS", MAX_CONNECTIONS.to_string()),
            ("MAX_CONNECTIONS_PER_ADDRESS", MAX_CONNECTIONS_PER_ADDRESS.to_string()),
            ("MAX_STREAMS", MAX_STREAMS.to_string()),
            ("MAX_STREAMS_PER_ADDRESS", MAX_STREAMS_PER_ADDRESS.to_string()),
            ("HEAD_TIMEOUT", secs(HEAD_TIMEOUT)),
            ("MAX_HEAD", kib(MAX_HEAD)),
            ("WRITE_TIMEOUT", secs(WRITE_TIMEOUT)),
            ("STREAM_SEND_BUFFER", kib(STREAM_SEND_BUFFER)),
            ("STREAM_KEEP_ALIVE", secs(STREAM_KEEP_ALIVE)),
            ("RETRY_AFTER", secs(RETRY_AFTER)),
            ("LISTEN_BACKLOG", LISTEN_BACKLOG.to_string()),
        ] {
            let row = guide
                .lines()
                .find(|l| l.ends_with(&format!("| `{name}` |")))
                .unwrap_or_else(|| panic!("docs/argus.md has no row for {name}"));
            assert!(row.contains(&format!("| {value} |")), "docs/argus.md: {row}, but {name} is {value}");
        }
        assert!(guide.contains(&format!("`Retry-After: {}`", RETRY_AFTER.as_secs())));
    }

    /// The page, refused a stream, asks again when the refusal says.
    #[test]
    fn the_page_retries_when_told() {
        assert!(SCRIPT.contains(&format!("setTimeout(connect, {})", RETRY_AFTER.as_millis())));
    }

    /// A refusal written straight to a socket is a whole response.
    #[test]
    fn refusals_are_whole_responses() {
        for (why, kind) in [
            (Refused::Total, Kind::Request),
            (Refused::Address, Kind::Request),
            (Refused::Total, Kind::Stream),
            (Refused::Address, Kind::Stream),
        ] {
            let bytes = refusal_bytes(why, kind);
            let (head, body) = bytes.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with("HTTP/1.1 503 ") && head.contains("\r\nretry-after: 5\r\n"), "{head}");
            assert!(head.contains(&format!("\r\ncontent-length: {}", body.len())), "{head}");
            assert_eq!(body, refusal(why, kind));
        }
    }
}
