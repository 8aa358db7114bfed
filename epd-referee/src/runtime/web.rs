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
//! reads it. Connections are bounded ([`MAX_CONNECTIONS`]), request heads
//! must arrive within [`HEAD_TIMEOUT`] and fit [`MAX_HEAD`] bytes, and no
//! request body is read.

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

/// The most connections to the web display at once.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a request's head may take to arrive.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head read.
pub const MAX_HEAD: usize = 16 * 1024;

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
}

/// Serves the display on `listener` until the runtime stops.
pub(crate) async fn serve(
    listener: TcpListener,
    state: watch::Receiver<Arc<Snapshot>>,
    pgn: PathBuf,
    token: Option<String>,
    act: mpsc::Sender<(String, String)>,
) {
    let shared = Shared { state, pgn, token, act };
    let app = Router::new()
        .route("/", get(page))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/state", get(state_json))
        .route("/api/events", get(events))
        .route("/pgn", get(live_pgn))
        .route("/api/supervisor", post(supervisor))
        .with_state(shared);
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else { return };
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let app = app.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let service = hyper_util::service::TowerToHyperService::new(app.layer(axum::Extension(peer)));
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD)
                .serve_connection(io, service)
                .await;
            drop(permit);
        });
    }
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

async fn events(Extract(s): Extract<Shared>) -> Response {
    let stream = tokio_stream::wrappers::WatchStream::new(s.state)
        .filter(|snap| !snap.json.is_empty())
        .map(|snap| Ok::<_, Infallible>(SseEvent::default().event("state").data(snap.json.as_str())));
    secured(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response())
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
    peer: axum::Extension<std::net::SocketAddr>,
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
    match s.act.try_send((command.clone(), peer.0.to_string())) {
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
}
