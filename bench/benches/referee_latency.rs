//! The referee's own latency per move: from a reply's last byte read to
//! the opponent's respond written, at 1, 64 and 512 games at once, with
//! synthetic clients that answer at once (a random legal move). The
//! referee runs in this process on two worker threads; the clients run
//! on a runtime of their own, on the same two cores.
//!
//! `cargo bench -p epd-bench --bench referee_latency` (quick:
//! `EPD_BENCH_QUICK=1`). Prints p50, p90, p99 and max per load, and
//! moves per second. With `EPD_BENCH_STANDBY=1` a hot standby follows
//! the referee (in this process, on a runtime of its own): every turn's
//! records then wait for its acknowledgement. `EPD_BENCH_JOURNAL_SYNC`
//! sets the event's `journal_sync` (default `turn`).
//!
//! First, the director alone, without sockets or a clock: the same
//! instant-move clients as inputs, appends acknowledged at once, time
//! counted only inside the director's calls (moves per CPU-second).

use std::time::{Duration, Instant};

use epd_core::Position;
use epd_referee::protocol::{parse_command, ClientRecord, Command};
use epd_referee::runtime::{self as server, Options};
use epd_referee::Event;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn event(dir: &std::path::Path, games: usize) -> Event {
    let rounds = games.div_ceil(2).max(1);
    let text = format!(
        "event = \"latency\"\nlisten = \"127.0.0.1:0\"\ntime_control = \"3600+0\"\nrounds = {rounds}\n\
         concurrency = {games}\nreset_delay = 0\nconclude_delay = 0\nsupervisor_token = \"bench\"\n\
         journal_sync = \"{sync}\"\n[[players]]\nname = \"a\"\ninstances = {games}\n\
         [[players]]\nname = \"b\"\ninstances = {games}\n",
        sync = std::env::var("EPD_BENCH_JOURNAL_SYNC").unwrap_or_else(|_| "turn".into())
    );
    Event::parse(&text, dir).expect("a valid event")
}

/// One synthetic client: signs on as `name`, answers every respond with a
/// random legal move, ends at disconnect.
async fn client(addr: std::net::SocketAddr, name: &'static str, seed: u64) {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).ok();
    let (r, mut w) = stream.into_split();
    let mut lines = BufReader::new(r).lines();
    let hello = ClientRecord { request: "sign_on", sender: Some(("bench", name)), ..ClientRecord::default() };
    let mut line = hello.to_line(&Position::startpos());
    line.push(b'\n');
    w.write_all(&line).await.expect("write");
    let mut rng = epd_testkit::XorShift::new(seed);
    while let Ok(Some(l)) = lines.next_line().await {
        let Ok(inc) = parse_command(l.as_bytes()) else { continue };
        match inc.command {
            Command::Respond => {
                let pos = inc.current();
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    continue;
                }
                let mv = moves.iter().copied().nth(rng.below(moves.len())).expect("a move");
                let rec = ClientRecord { request: "reply", sm: Some(mv), game: inc.game, ..ClientRecord::default() };
                let mut out = rec.to_line(&pos);
                out.push(b'\n');
                if w.write_all(&out).await.is_err() {
                    return;
                }
            }
            Command::Disconnect => return,
            _ => {}
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// The director alone: `games` games at once between two players whose
/// clients answer every respond at once with a random legal move; the
/// moves played and the time spent inside the director's calls.
fn director_alone(games: usize) -> (usize, Duration) {
    use epd_referee::director::{Config, Director, Input, Output, Reach};
    let ev = event(&std::env::temp_dir(), games);
    let config = Config {
        event: ev,
        openings: Vec::new(),
        journal: None,
        date: "2026.11.25".into(),
        own: None,
        web: false,
        measure: false,
    };
    let t0 = Instant::now();
    let mut inside = Duration::ZERO;
    let mut d = Director::new(config, t0).expect("a director");
    let mut rng = epd_testkit::XorShift::new(7);
    let mut now = t0;
    let mut inputs: std::collections::VecDeque<Input> = std::collections::VecDeque::new();
    for i in 0..games as u64 {
        for (id, name) in [(2 * i + 1, "a"), (2 * i + 2, "b")] {
            inputs.push_back(Input::Connected { id, peer: "bench".into(), reach: Reach::Remote });
            let hello = ClientRecord { request: "sign_on", sender: Some(("bench", name)), ..ClientRecord::default() };
            inputs.push_back(Input::Line { id, line: hello.to_line(&Position::startpos()), at: now });
        }
    }
    let mut moves = 0;
    loop {
        let mut outputs = Vec::new();
        let t = Instant::now();
        while let Some(i) = inputs.pop_front() {
            d.handle(now, i);
        }
        while let Some(o) = d.poll_output() {
            if let Output::Append { seq, .. } = &o {
                d.handle(now, Input::Synced { seq: *seq });
            }
            outputs.push(o);
        }
        inside += t.elapsed();
        let mut done = false;
        for o in outputs {
            match o {
                Output::Send { id, line, .. } => {
                    let Ok(inc) = parse_command(&line) else { continue };
                    if inc.command != Command::Respond {
                        continue;
                    }
                    let pos = inc.current();
                    let legal = pos.legal_moves();
                    let Some(&mv) = legal.get(rng.below(legal.len().max(1))) else { continue };
                    let rec =
                        ClientRecord { request: "reply", sm: Some(mv), game: inc.game, ..ClientRecord::default() };
                    inputs.push_back(Input::Line { id, line: rec.to_line(&pos), at: now });
                    moves += 1;
                }
                Output::Done(_) => done = true,
                _ => {}
            }
        }
        if done {
            return (moves, inside);
        }
        if inputs.is_empty() {
            // Nothing to answer: the next deadline (a game's start).
            now = d.poll_timeout().map_or(now, |t| t.max(now));
            let t = Instant::now();
            d.handle_timeout(now);
            inside += t.elapsed();
        }
        now += Duration::from_micros(50);
    }
}

fn main() {
    let quick = std::env::var_os("EPD_BENCH_QUICK").is_some() || std::env::args().any(|a| a == "--quick");
    let loads: &[usize] = if quick { &[1, 64] } else { &[1, 64, 512] };
    println!("the director alone (no sockets, no clock): moves per CPU-second inside its calls");
    println!("{:>6} {:>8} {:>10} {:>12}", "games", "moves", "cpu secs", "moves/cpu-s");
    for &games in loads {
        let (moves, inside) = director_alone(games);
        println!("{games:>6} {moves:>8} {:>10.3} {:>12.0}", inside.as_secs_f64(), moves as f64 / inside.as_secs_f64());
    }
    let standby = std::env::var_os("EPD_BENCH_STANDBY").is_some();
    if standby {
        println!("with a hot standby following the journal");
    }
    println!("referee latency per move, instant-move clients: 'read' = reply read -> opponent's respond written;");
    println!("'taken' = the director takes the reply up -> respond written (read less the wait in its inbox)");
    println!(
        "{:>6} {:>8} {:>10} {:>10} {:>10} {:>11} {:>11} {:>11} {:>7} {:>9}",
        "games", "moves", "read p50", "read p90", "read p99", "taken p50", "taken p90", "taken p99", "secs", "moves/s"
    );
    for &games in loads {
        let dir = tempfile_dir();
        let ev = event(&dir, games);
        let (tx, rx) = std::sync::mpsc::channel();
        let server = std::thread::spawn(move || {
            // The referee's own runtime, as `epd referee` builds it.
            let rt = epd_referee::runtime::new_runtime().unwrap();
            rt.block_on(async move {
                let (btx, brx) = tokio::sync::oneshot::channel();
                let run =
                    tokio::spawn(server::run(ev, Options { measure_latency: true, ..Options::default() }, Some(btx)));
                let addr = brx.await.expect("bound");
                tx.send(addr).expect("send");
                run.await.expect("join").expect("the event runs")
            })
        });
        let addr = rx.recv().expect("address");
        let follower = standby.then(|| {
            let log = dir.join("referee.log");
            let dir = tempfile_dir();
            let ev = event(&dir, games);
            let t = std::thread::spawn(move || {
                epd_referee::runtime::standby::run_blocking(
                    ev,
                    Options::default(),
                    addr.to_string(),
                    Duration::from_secs(2),
                )
                .expect("the standby follows to the end")
            });
            // The clients start once the standby follows.
            let start = Instant::now();
            while !std::fs::read_to_string(&log).unwrap_or_default().contains("a standby follows") {
                assert!(start.elapsed() < Duration::from_secs(10), "the standby did not start");
                std::thread::sleep(Duration::from_millis(10));
            }
            (t, dir)
        });
        let start = Instant::now();
        let clients = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let mut tasks = Vec::new();
                for i in 0..games {
                    tasks.push(tokio::spawn(client(addr, "a", 2 * i as u64 + 1)));
                    tasks.push(tokio::spawn(client(addr, "b", 2 * i as u64 + 2)));
                }
                for t in tasks {
                    let _ = t.await;
                }
            });
        });
        let outcome = server.join().expect("server thread");
        let secs = start.elapsed().as_secs_f64();
        clients.join().expect("client thread");
        let mut read: Vec<Duration> = outcome.latencies.iter().map(|l| l.0).collect();
        let mut taken: Vec<Duration> = outcome.latencies.iter().map(|l| l.1).collect();
        read.sort();
        taken.sort();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{games:>6} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>11.1} {:>11.1} {:>11.1} {secs:>7.2} {:>9.0}",
            read.len(),
            us(percentile(&read, 0.5)),
            us(percentile(&read, 0.9)),
            us(percentile(&read, 0.99)),
            us(percentile(&taken, 0.5)),
            us(percentile(&taken, 0.9)),
            us(percentile(&taken, 0.99)),
            read.len() as f64 / secs
        );
        let _ = std::fs::remove_dir_all(&dir);
        if let Some((t, dir)) = follower {
            t.join().expect("standby thread");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "epd-referee-bench-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}
