//! Argus's live display in a real browser: `epd referee` with `web =` in
//! its event file, four `epd play` clients, and Debian's headless
//! Chromium driven over the DevTools protocol. What the page shows is
//! checked against `/api/state` and, for the positions, against
//! python-chess replaying the games' moves.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One HTTP/1.1 request (`Connection: close`); the status and the body,
/// read to its Content-Length when there is one (Chromium's DevTools
/// server keeps the connection open regardless).
fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = s.read(&mut buf).unwrap();
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                .map(|v| v.parse::<usize>().unwrap());
            if n == 0 || length.is_some_and(|len| body.len() >= len) {
                let status = head.split(' ').nth(1).unwrap().parse().unwrap();
                return (status, body.to_owned());
            }
        }
        assert!(n > 0, "the connection closed before the end of the response");
    }
}

fn state(web: &str) -> Value {
    let (status, body) = http(web, "GET", "/api/state", &[]);
    assert_eq!(status, 200);
    serde_json::from_str(&body).unwrap()
}

/// A headless Chromium and one page of it, over the DevTools protocol.
struct Browser {
    child: Child,
    ws: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next: u64,
}

impl Browser {
    fn start(bin: &str, profile: &Path) -> Browser {
        let err = profile.with_extension("err");
        let child = Command::new(bin)
            .args(epd_testkit::CHROMIUM_FLAGS)
            .args(["--remote-debugging-port=0", "--window-size=1280,1000"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        // Chromium says where its DevTools listen.
        let start = Instant::now();
        let port = loop {
            let text = std::fs::read_to_string(&err).unwrap_or_default();
            if let Some(i) = text.find("DevTools listening on ws://127.0.0.1:") {
                let rest = &text[i + "DevTools listening on ws://127.0.0.1:".len()..];
                break rest[..rest.find('/').unwrap()].to_owned();
            }
            assert!(start.elapsed() < Duration::from_secs(30), "chromium did not start: {text}");
            std::thread::sleep(Duration::from_millis(50));
        };
        let devtools = format!("127.0.0.1:{port}");
        let (_, list) = http(&devtools, "GET", "/json/list", &[]);
        let targets: Value = serde_json::from_str(&list).unwrap();
        let page = targets.as_array().unwrap().iter().find(|t| t["type"] == "page").expect("a page");
        let (ws, _) = tungstenite::connect(page["webSocketDebuggerUrl"].as_str().unwrap()).unwrap();
        Browser { child, ws, next: 0 }
    }

    /// Sends a DevTools command and returns its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        self.ws.send(tungstenite::Message::Text(msg.into())).unwrap();
        loop {
            let m = self.ws.read().unwrap();
            let tungstenite::Message::Text(text) = m else { continue };
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// Evaluates `expr` in the page; its JSON value.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call("Runtime.evaluate", json!({"expression": expr, "returnByValue": true}));
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the page shows of its games, read from the DOM: for each game
/// card, its number, ply, FEN, the pieces drawn on its board, the last
/// move's highlighted squares, both clocks (text, whether running), its
/// moves and whether it shows as paused.
const READ_GAMES: &str = r##"JSON.stringify({
  version: Number(document.body.dataset.version || 0),
  origin: performance.timeOrigin,
  resources: performance.getEntriesByType("resource").map((e) => e.name),
  live: document.getElementById("link").textContent,
  standings: document.querySelectorAll("#standings tbody tr").length,
  games: [...document.querySelectorAll("article.game")].map((g) => ({
    number: Number(g.dataset.game),
    ply: Number(g.dataset.ply),
    fen: g.dataset.fen,
    paused: g.dataset.paused === "1",
    pieces: [...g.querySelectorAll("svg.board text.piece")].map((p) => [p.dataset.square, p.dataset.piece, p.textContent]),
    last: [...g.querySelectorAll("svg.board rect.last")].map((r) => r.dataset.last),
    clocks: [...g.querySelectorAll(".clock")].map((c) => [c.dataset.side, c.textContent, c.dataset.running === "1"]),
    moves: [...g.querySelectorAll(".moves .san")].map((m) => m.textContent),
    engine: g.querySelector(".engine") ? g.querySelector(".engine").dataset.engine : null,
    evalbar: g.querySelector(".engine .evalbar span") ? g.querySelector(".engine .evalbar span").style.width : null,
    pv: g.querySelector(".engine .pv") ? g.querySelector(".engine .pv").textContent : null,
  })),
})"##;

fn read_page(b: &mut Browser) -> Value {
    serde_json::from_str(b.eval(READ_GAMES).as_str().unwrap()).unwrap()
}

/// The page's clock format: 1:02:03, 4:05, 0:42.3.
fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m) = (s / 3600, s / 60 % 60);
    if h > 0 {
        format!("{h}:{m:02}:{:02}", s % 60)
    } else if s < 60 {
        format!("{m}:{:02}.{}", s % 60, ms % 1000 / 100)
    } else {
        format!("{m}:{:02}", s % 60)
    }
}

fn clock_ms(text: &str) -> f64 {
    text.split(':').fold(0.0, |a, x| a * 60.0 + x.parse::<f64>().unwrap()) * 1000.0
}

/// The board drawn for a game: its pieces as a FEN placement.
fn placement(pieces: &Value) -> String {
    let mut grid = [['.'; 8]; 8];
    for p in pieces.as_array().unwrap() {
        let sq = p[0].as_str().unwrap().as_bytes();
        let piece = p[1].as_str().unwrap().as_bytes();
        let c = if piece[0] == b'w' { piece[1] as char } else { (piece[1] as char).to_ascii_lowercase() };
        grid[usize::from(b'8' - sq[1])][usize::from(sq[0] - b'a')] = c;
    }
    grid.iter()
        .map(|row| {
            let mut s = String::new();
            let mut empty = 0;
            for &c in row {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(c);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// python-chess replays each game's first `ply` moves (SAN, from the
/// state) from its start and says the position: it must be the one the
/// page drew and its highlighted squares the last move's.
fn check_positions_with_python_chess(cases: &Value) {
    let script = r#"
import sys, json, chess
for c in json.load(sys.stdin):
    b = chess.Board(c["start"])
    for san in c["moves"][:c["ply"]]:
        b.push_san(san)
    want = " ".join(b.fen().split()[:3])
    got = " ".join(c["fen"].split()[:3])
    if want != got: sys.exit(f"game {c['number']} ply {c['ply']}: python-chess {want}, page {got}")
    if b.board_fen() != c["drawn"]: sys.exit(f"game {c['number']}: drawn {c['drawn']}, python-chess {b.board_fen()}")
    if c["ply"] > 0:
        m = b.peek()
        to = m.to_square
        if b.is_castling(m):
            to = chess.square(6 if chess.square_file(m.to_square) > chess.square_file(m.from_square) else 2, chess.square_rank(m.from_square))
        squares = sorted([chess.square_name(m.from_square), chess.square_name(to)])
        if squares != sorted(c["last"]): sys.exit(f"game {c['number']}: last move {squares}, page {c['last']}")
print(len(json.load(open(sys.argv[1]))) if len(sys.argv) > 1 else "ok")
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(cases.to_string().as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if err.contains("No module named 'chess'") {
        assert!(std::env::var_os("EPDKIT_REQUIRE_PYTHON_CHESS").is_none(), "python-chess is required");
        return;
    }
    assert!(o.status.success(), "python-chess: {err}");
}

/// The page's games, each with the moves the state gives for it, for
/// python-chess (games the state no longer runs are left out).
fn cases(page: &Value, state: &Value) -> (Value, usize) {
    let mut out = Vec::new();
    for g in page["games"].as_array().unwrap() {
        let Some(s) = state["running"].as_array().unwrap().iter().find(|s| s["number"] == g["number"]) else {
            continue;
        };
        let ply = g["ply"].as_u64().unwrap();
        assert!(ply <= s["moves"].as_array().unwrap().len() as u64, "the page is ahead of the state");
        let drawn: Vec<&str> =
            s["moves"].as_array().unwrap().iter().take(ply as usize).map(|m| m.as_str().unwrap()).collect();
        let shown: Vec<&str> = g["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        assert_eq!(shown, drawn, "game {}: the page's move list", g["number"]);
        out.push(json!({
            "number": g["number"], "ply": ply, "fen": g["fen"], "start": s["start"], "moves": s["moves"],
            "drawn": placement(&g["pieces"]), "last": g["last"],
        }));
    }
    let n = out.len();
    (Value::Array(out), n)
}

#[test]
fn the_live_display_in_headless_chromium() {
    let Some(bin) = epd_testkit::chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (addr, web) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let players: String =
        ["alpha", "beta", "gamma", "delta"].iter().map(|n| format!("[[players]]\nname = \"{n}\"\n")).collect();
    std::fs::write(
        dir.path().join("event.toml"),
        format!(
            "event = \"Live display\"\nsite = \"localhost\"\nlisten = \"{addr}\"\nweb = \"{web}\"\n\
             time_control = \"300\"\nconcurrency = 2\nreset_delay = 0\nconclude_delay = 0\n\
             supervisor_token = \"t0ken\"\n{players}"
        ),
    )
    .unwrap();
    let mut referee = Command::new(EPD)
        .args(["referee", "event.toml", "--background"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut clients: Vec<Child> = ["alpha", "beta", "gamma", "delta"]
        .iter()
        .map(|n| {
            Command::new(EPD)
                .args(["play", "--referee", &addr, "--name", n, "--movetime", "700"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let start = Instant::now();
    loop {
        if TcpStream::connect(&web).is_ok() {
            let s = state(&web);
            let running = s["running"].as_array().unwrap();
            if running.len() == 2 && running.iter().all(|g| g["moves"].as_array().unwrap().len() >= 2) {
                break;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the games did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let profile = dir.path().join("profile");
    let mut browser = Browser::start(bin, &profile);
    browser.call("Page.enable", json!({}));
    browser.call("Page.navigate", json!({"url": format!("http://{web}/")}));
    std::thread::sleep(Duration::from_millis(2500));

    // While the games run: every running game is on the page, drawn as
    // python-chess plays its moves, its side to move's clock running.
    let first = read_page(&mut browser);
    let s1 = state(&web);
    assert_eq!(first["live"], "live", "{first}");
    assert_eq!(first["standings"], 4);
    // The engines' word with their last moves (epd play sends ce, acd,
    // acn and pv): a score as cutechess writes it, a bar, a line in SAN.
    for g in first["games"].as_array().unwrap() {
        let score = g["engine"].as_str().unwrap_or_default();
        let ok = score.len() >= 2
            && score.starts_with(['+', '-'])
            && (score[1..].starts_with('M') || score[1..].parse::<f64>().is_ok());
        assert!(ok, "an engine's score on the card: {g}");
        assert!(g["evalbar"].as_str().is_some_and(|w| w.ends_with('%')), "{g}");
        assert!(g["pv"].as_str().is_some_and(|p| !p.is_empty()), "{g}");
    }
    let numbers = |v: &Value, key: &str| -> Vec<u64> {
        let mut n: Vec<u64> = v[key].as_array().unwrap().iter().map(|g| g["number"].as_u64().unwrap()).collect();
        n.sort_unstable();
        n
    };
    let (c1, n1) = cases(&first, &s1);
    assert!(n1 >= 1, "no game of the page is running: {first} {s1}");
    check_positions_with_python_chess(&c1);
    for g in first["games"].as_array().unwrap() {
        let running: Vec<bool> = g["clocks"].as_array().unwrap().iter().map(|c| c[2].as_bool().unwrap()).collect();
        assert_eq!(running.iter().filter(|&&r| r).count(), 1, "one clock runs: {g}");
    }
    // Live: later states arrive without a reload, the moves go on and
    // a running clock counts down.
    let mut counted_down = false;
    let mut later = first.clone();
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(300));
        let now = read_page(&mut browser);
        assert_eq!(now["origin"], first["origin"], "the page was reloaded");
        for (a, b) in later["games"].as_array().unwrap().iter().zip(now["games"].as_array().unwrap()) {
            if a["number"] == b["number"] && a["ply"] == b["ply"] {
                for (x, y) in a["clocks"].as_array().unwrap().iter().zip(b["clocks"].as_array().unwrap()) {
                    if x[2] == true
                        && y[2] == true
                        && clock_ms(y[1].as_str().unwrap()) < clock_ms(x[1].as_str().unwrap())
                    {
                        counted_down = true;
                    }
                }
            }
        }
        later = now;
        if counted_down && later["version"].as_u64() > first["version"].as_u64() {
            break;
        }
    }
    assert!(later["version"].as_u64() > first["version"].as_u64(), "no new state reached the page");
    assert!(counted_down, "no clock counted down");
    let plies = |v: &Value| v["games"].as_array().unwrap().iter().map(|g| g["ply"].as_u64().unwrap()).sum::<u64>();
    assert!(plies(&later) > plies(&first) || numbers(&later, "games") != numbers(&first, "games"), "the games went on");

    // Supervisor actions need the token.
    let (code, _) = http(&web, "POST", "/api/supervisor?action=pause&game=all", &[]);
    assert_eq!(code, 401);
    let (code, _) = http(&web, "POST", "/api/supervisor?action=pause&game=all", &[("Authorization", "Bearer wrong")]);
    assert_eq!(code, 401);
    let (code, body) =
        http(&web, "POST", "/api/supervisor?action=pause&game=all", &[("Authorization", "Bearer t0ken")]);
    assert_eq!((code, body.as_str()), (202, "pause all\n"));
    // Paused, the page and /api/state agree exactly: the same games, the
    // same positions, the clocks stopped at the state's times.
    std::thread::sleep(Duration::from_millis(800));
    let paused = read_page(&mut browser);
    let s2 = state(&web);
    assert_eq!(numbers(&paused, "games"), numbers(&s2, "running"), "the page shows every running game");
    for (g, s) in paused["games"].as_array().unwrap().iter().zip(s2["running"].as_array().unwrap()) {
        assert_eq!(g["fen"], s["fen"]);
        assert_eq!(g["ply"].as_u64().unwrap() as usize, s["moves"].as_array().unwrap().len());
        assert!(g["paused"].as_bool().unwrap() && s["paused"].as_bool().unwrap());
        let clocks: Vec<(String, String)> = g["clocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c[0].as_str().unwrap().to_owned(), c[1].as_str().unwrap().to_owned()))
            .collect();
        let want = vec![
            ("black".to_owned(), clock_text(s["black_ms"].as_u64().unwrap())),
            ("white".to_owned(), clock_text(s["white_ms"].as_u64().unwrap())),
        ];
        assert_eq!(clocks, want, "game {}", g["number"]);
    }
    let (c2, n2) = cases(&paused, &s2);
    assert_eq!(n2, s2["running"].as_array().unwrap().len());
    check_positions_with_python_chess(&c2);
    // Nothing came from anywhere but the referee.
    for r in paused["resources"].as_array().unwrap() {
        assert!(r.as_str().unwrap().starts_with(&format!("http://{web}/")), "{r}");
    }
    // Live PGN: the games in progress, unfinished, as the state has them.
    let (code, pgn) = http(&web, "GET", "/pgn", &[]);
    assert_eq!(code, 200);
    assert_eq!(pgn.matches("[Result \"*\"]").count(), n2, "{pgn}");
    // A screenshot for people to look at.
    let shot = browser.call("Page.captureScreenshot", json!({"format": "png"}));
    let png = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("argus-live.png");
    std::fs::write(&path, &png).unwrap();
    eprintln!("screenshot: {}", path.display());
    // Resumed, the games go on.
    let (code, _) = http(&web, "POST", "/api/supervisor?action=resume&game=all", &[("Authorization", "Bearer t0ken")]);
    assert_eq!(code, 202);
    std::thread::sleep(Duration::from_millis(1500));
    let s3 = state(&web);
    assert!(s3["running"].as_array().unwrap().iter().all(|g| g["paused"] == false));
    let log = std::fs::read_to_string(dir.path().join("referee.log")).unwrap();
    assert!(log.contains("supervisor (web, 127.0.0.1:") && log.contains("resumed by the supervisor"), "{log}");
    let _ = referee.kill();
    let _ = referee.wait();
    for c in &mut clients {
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// The live display outlives the last game: in the background the
/// referee keeps serving the final state for the event's `linger`, then
/// exits; a spectator who comes late sees the results.
#[test]
fn the_live_display_lingers_after_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let (addr, web) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    std::fs::write(
        dir.path().join("event.toml"),
        format!(
            "event = \"Linger\"\nlisten = \"{addr}\"\nweb = \"{web}\"\ntime_control = \"60+0.1\"\nlinger = 3\n\
             reset_delay = 0\nconclude_delay = 0\n\
             [[players]]\nname = \"a\"\ncommand = [\"{EPD}\", \"play\", \"--depth\", \"1\"]\n\
             [[players]]\nname = \"b\"\ncommand = [\"{EPD}\", \"play\", \"--depth\", \"1\"]\n"
        ),
    )
    .unwrap();
    let mut referee = Command::new(EPD)
        .args(["referee", "event.toml", "--background"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let log = dir.path().join("referee.log");
    let start = Instant::now();
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("event over") {
        assert!(start.elapsed() < Duration::from_secs(120), "the event did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    let over = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    let s = state(&web);
    assert_eq!((s["live"].as_bool(), s["finished_count"].as_u64()), (Some(false), Some(2)), "{s}");
    assert_eq!(s["finished"].as_array().map(Vec::len), Some(2));
    // A match of two: the results block and its numbers, one pair over.
    let r = &s["results"];
    assert!(r["text"].as_str().is_some_and(|t| t.starts_with("Score of a vs b: ")), "{r}");
    let sum = |v: &Value| v.as_array().map_or(0, |a| a.iter().filter_map(Value::as_u64).sum::<u64>());
    assert_eq!((sum(&r["pentanomial"]), sum(&r["wdl"])), (1, 2), "{r}");
    let status = referee.wait().unwrap();
    let lingered = over.elapsed();
    assert!(status.success());
    assert!(lingered >= Duration::from_millis(2500) && lingered < Duration::from_secs(8), "{lingered:?}");
}
