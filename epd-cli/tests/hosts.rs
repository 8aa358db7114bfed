//! An SPRT across hosts (issue 47): a referee host and two worker hosts,
//! each a Linux network namespace built here and joined to the referee's
//! by a veth pair of its own. Each worker host runs both players of a
//! two-player event (`epd play --instances 2` per player, the built-in
//! engine at two depths), with `host_loss = "void"`; the commands are
//! those of docs/argus.md's recipe, "An SPRT across several machines".
//!
//! Scenario 1 cuts worker A's link mid-event for longer than the
//! clients' heartbeat, `runtime::DEAD_LINK` and the grace together, then
//! restores it, and kills worker B's processes with SIGKILL and starts
//! them again. Scenario 2 kills the referee with SIGKILL mid-event and
//! resumes it. Either way the event must end with every game legal and
//! complete (python-chess), none lost as abandoned or on time, each
//! schedule slot once, every void game named with its reason in the log
//! and in the journal, and the referee's pentanomial counts equal to a
//! count made here from the PGN.
//!
//! Needs root and `ip` (iproute2); skipped without them unless
//! `EPDKIT_REQUIRE_NETNS` is set (CI), then it fails.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

/// The two scenarios share the machine's cores: one runs at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The recipe's figures: the port the referee listens on (in a network
/// namespace of its own: free), the clients' heartbeat and the grace.
const PORT: u16 = 16101;
const HEARTBEAT: Duration = Duration::from_secs(1);
const GRACE: Duration = Duration::from_secs(2);

/// A worker's player: its name, token and depth.
const PLAYERS: [(&str, &str, &str); 2] = [("alpha", "alpha-token", "3"), ("beta", "beta-token", "1")];

const REFEREE: usize = 0;
const A: usize = 1;
const B: usize = 2;

/// The hosts: three network namespaces, the referee's (10.231.1.1 towards
/// worker A, 10.231.2.1 towards worker B) and the workers' (10.231.1.2
/// and 10.231.2.2), each worker joined to the referee by a veth pair
/// (`veth-a`, `veth-b` on the referee's side, `veth-r` on a worker's).
/// Dropped, it kills what runs in them and deletes them, on a panic too.
struct Hosts {
    ns: Vec<String>,
}

/// Runs `ip ARGS`; its error output when it fails.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

impl Hosts {
    /// Builds the three hosts, named after this process and `tag`.
    fn build(tag: &str) -> Result<Hosts, String> {
        let pid = std::process::id();
        let mut hosts = Hosts { ns: Vec::new() };
        for host in ["referee", "a", "b"] {
            let name = format!("epd-{pid}-{tag}-{host}");
            ip(&["netns", "add", &name])?;
            hosts.ns.push(name);
        }
        let ns = hosts.ns.clone();
        for (i, (worker, net)) in [(A, 1), (B, 2)].into_iter().enumerate() {
            let end = ["veth-a", "veth-b"][i];
            ip(&[
                "link",
                "add",
                end,
                "netns",
                &ns[REFEREE],
                "type",
                "veth",
                "peer",
                "name",
                "veth-r",
                "netns",
                &ns[worker],
            ])?;
            ip(&["-n", &ns[REFEREE], "addr", "add", &format!("10.231.{net}.1/24"), "dev", end])?;
            ip(&["-n", &ns[worker], "addr", "add", &format!("10.231.{net}.2/24"), "dev", "veth-r"])?;
            ip(&["-n", &ns[REFEREE], "link", "set", end, "up"])?;
            ip(&["-n", &ns[worker], "link", "set", "veth-r", "up"])?;
        }
        for name in &ns {
            ip(&["-n", name, "link", "set", "lo", "up"])?;
        }
        Ok(hosts)
    }

    /// `epd ARGS` on `host`, in `dir`, its standard error appended to
    /// `dir/ERR`.
    fn epd(&self, host: usize, dir: &Path, args: &[&str], token: Option<&str>, err: &str) -> Proc {
        let log = File::options().create(true).append(true).open(dir.join(err)).unwrap();
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns[host], EPD]).args(args).current_dir(dir);
        c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        if let Some(t) = token {
            c.env("EPD_TOKEN", t);
        }
        Proc(c.spawn().unwrap())
    }

    /// Sets worker `host`'s end of its link down or up, as the recipe's
    /// `ip netns exec HOST ip link set veth-r down`.
    fn link(&self, host: usize, up: bool) {
        ip(&["netns", "exec", &self.ns[host], "ip", "link", "set", "veth-r", if up { "up" } else { "down" }]).unwrap();
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for name in &self.ns {
            // What still runs there is this test's (its own children).
            if let Ok(out) = Command::new("ip").args(["netns", "pids", name]).output() {
                for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    let _ = Command::new("kill").args(["-KILL", pid]).status();
                }
            }
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// The hosts, or `None` (skipped) where this process cannot build them:
/// not root, or no `ip netns`. With `EPDKIT_REQUIRE_NETNS` set it fails
/// instead.
fn hosts(tag: &str) -> Option<Hosts> {
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false);
    let built = if root { Hosts::build(tag) } else { Err("not root".to_owned()) };
    match built {
        Ok(h) => Some(h),
        Err(why) => {
            assert!(
                std::env::var_os("EPDKIT_REQUIRE_NETNS").is_none(),
                "network namespaces are required (EPDKIT_REQUIRE_NETNS) but cannot be built: {why}"
            );
            eprintln!("skipped: network namespaces cannot be built here ({why}); run as root with iproute2");
            None
        }
    }
}

/// A process of the test: killed (SIGKILL) and waited for when dropped.
struct Proc(Child);

impl Proc {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    fn running(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }

    /// Waits for its exit (at most `limit`); whether it exited 0.
    fn exit(&mut self, limit: Duration) -> Option<bool> {
        let start = Instant::now();
        loop {
            if let Some(s) = self.0.try_wait().unwrap() {
                return Some(s.success());
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The event's directory: removed at the end, unless
/// `EPDKIT_KEEP_HOSTS` is set (then it is named on standard error).
fn event_dir() -> tempfile::TempDir {
    let mut tmp = tempfile::tempdir().unwrap();
    if std::env::var_os("EPDKIT_KEEP_HOSTS").is_some() {
        tmp.disable_cleanup(true);
        eprintln!("the event's files: {}", tmp.path().display());
    }
    tmp
}

/// The recipe's event file, its opening book at `book`.
fn event_text(book: &str) -> String {
    let players: String = PLAYERS
        .iter()
        .map(|(name, token, _)| format!("[[players]]\nname = \"{name}\"\ntoken = \"{token}\"\ninstances = 4\n"))
        .collect();
    format!(
        "event = \"SPRT across hosts\"\nlisten = \"0.0.0.0:{PORT}\"\ntime_control = \"60+1\"\nrounds = 500\n\
         concurrency = 4\nopenings = \"{book}\"\nopenings_order = \"random\"\nopenings_seed = 47\n\
         resign_adjudication = {{ movecount = 3, score = 600 }}\nmax_moves = 100\n\
         host_loss = \"void\"\ndisconnect_grace = {}\nreset_delay = 1\nconclude_delay = 1\n\
         pgn = \"games.pgn\"\nlog = \"referee.log\"\njournal = \"referee.journal\"\nreport = \"report.txt\"\n\
         [sprt]\nelo0 = 0\nelo1 = 25\n{players}",
        GRACE.as_secs()
    )
}

/// Writes the recipe's event file into `dir`, with the corpus's book.
fn write_event(dir: &Path) {
    let book = epd_testkit::corpus_path("UHO_4060_v3.epd");
    std::fs::write(dir.join("event.toml"), event_text(&book.display().to_string())).unwrap();
}

/// The referee host's command: `epd referee event.toml --background`,
/// with `--resume` after a crash.
fn referee_args(resume: bool) -> Vec<String> {
    let mut args = vec!["referee", "event.toml", "--background"];
    if resume {
        args.push("--resume");
    }
    args.into_iter().map(str::to_owned).collect()
}

/// A worker's command for player `p` (of [`PLAYERS`]), reaching the
/// referee at `addr`: `epd play --referee ADDR --name NAME --instances 2
/// --depth D --heartbeat 1 --retries 100`, the token in `EPD_TOKEN`.
fn worker_args(addr: &str, p: usize) -> Vec<String> {
    let (name, _, depth) = PLAYERS[p];
    let heartbeat = HEARTBEAT.as_secs().to_string();
    ["play", "--referee", addr, "--name", name, "--instances", "2", "--depth", depth, "--heartbeat", &heartbeat]
        .into_iter()
        .chain(["--retries", "100"])
        .map(str::to_owned)
        .collect()
}

/// Starts the referee on its host.
fn referee(hosts: &Hosts, dir: &Path, resume: bool) -> Proc {
    let args = referee_args(resume);
    hosts.epd(REFEREE, dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), None, "referee.err")
}

/// Waits for the referee to listen; fails with what it said if it exits.
fn listening(dir: &Path, referee: &mut Proc) {
    let start = Instant::now();
    loop {
        let log = std::fs::read_to_string(dir.join("referee.log")).unwrap_or_default();
        if log.contains(&format!("listening on 0.0.0.0:{PORT}")) {
            return;
        }
        let err = || std::fs::read_to_string(dir.join("referee.err")).unwrap_or_default();
        assert!(referee.running(), "the referee exited: {}", err());
        assert!(start.elapsed() < Duration::from_secs(30), "the referee does not listen after 30 s: {}{log}", err());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts a worker host's two commands, one per player; worker N reaches
/// the referee at 10.231.N.1.
fn workers(hosts: &Hosts, dir: &Path, host: usize) -> Vec<Proc> {
    let addr = format!("10.231.{host}.1:{PORT}");
    (0..PLAYERS.len())
        .map(|p| {
            let (name, token, _) = PLAYERS[p];
            let args = worker_args(&addr, p);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            hosts.epd(host, dir, &args, Some(token), &format!("worker-{host}-{name}.err"))
        })
        .collect()
}

/// docs/argus.md's section "An SPRT across several machines" gives the
/// event file and the commands this test runs, word for word (the
/// book's path aside), so the recipe is tried as written.
#[test]
fn the_recipe_in_the_guide_is_what_this_test_runs() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/argus.md")).unwrap();
    let recipe = guide.split("\n## An SPRT across several machines\n").nth(1).expect("the recipe's section");
    let recipe = recipe.split("\n## ").next().unwrap();
    let event = format!("```toml\n{}```\n", event_text("UHO_4060_v3.epd"));
    assert!(recipe.contains(&event), "the recipe's event file is not the test's:\n{event}");
    let mut lines =
        vec![format!("epd {}", referee_args(false).join(" ")), format!("epd {}", referee_args(true).join(" "))];
    for (p, (_, token, _)) in PLAYERS.iter().enumerate() {
        lines.push(format!("EPD_TOKEN={token} epd {} &", worker_args(&format!("10.231.1.1:{PORT}"), p).join(" ")));
    }
    for line in lines {
        assert!(recipe.lines().any(|l| l == line), "the recipe lacks the test's command:\n{line}");
    }
}

/// The referee's notes (a log line's text after `referee `).
fn notes(log: &str) -> impl Iterator<Item = &str> {
    log.lines().filter_map(|l| l.split_once(" referee ").map(|(_, n)| n))
}

/// Games over so far, by the log.
fn games_over(log: &str) -> usize {
    notes(log).filter(|n| n.starts_with("game ") && n.contains(" over: ")).count()
}

/// Waits (at most `limit`) until `what` holds of the log; its text.
fn wait_for(dir: &Path, limit: Duration, what: &str, holds: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let log = std::fs::read_to_string(dir.join("referee.log")).unwrap_or_default();
        if holds(&log) {
            return log;
        }
        if start.elapsed() > limit {
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            panic!("not within {limit:?}: {what}; log tail (newest first):\n{}", tail.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The connections that signed on from `host` (`#ID signs on as NAME
/// from 10.231.HOST.2:PORT`), by id.
fn signed_on_from(log: &str, host: usize) -> BTreeSet<String> {
    let from = format!(" from 10.231.{host}.2:");
    notes(log)
        .filter(|n| n.contains(" signs on as ") && n.contains(&from))
        .filter_map(|n| n.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// Seconds since midnight UTC of a log line's time (`2026-11-24T22:34:56.789Z ...`).
fn log_time(line: &str) -> f64 {
    let p: Vec<f64> = line[11..23].split(':').map(|x| x.parse().unwrap()).collect();
    p[0] * 3600.0 + p[1] * 60.0 + p[2]
}

/// Seconds since midnight UTC now.
fn utc_seconds() -> f64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    (d.as_secs() % 86_400) as f64 + f64::from(d.subsec_millis()) / 1000.0
}

/// The games of a PGN text as (tags, movetext).
fn games(pgn: &str) -> Vec<(BTreeMap<String, String>, String)> {
    epd_testkit::pgn_games(pgn)
        .into_iter()
        .map(|(tags, moves)| (tags.into_iter().collect(), moves.trim().to_owned()))
        .collect()
}

/// A game's number in the schedule: PGN Round's last part (`CYCLE.GAME`).
fn number(g: &(BTreeMap<String, String>, String)) -> usize {
    g.0["Round"].rsplit('.').next().unwrap().parse().unwrap()
}

/// python-chess replays every game: legal moves, a result the final
/// position gives or its termination explains, each side's `[%clk]` the
/// previous one less the `[%emt]` plus the increment. The games read.
fn check_with_python_chess(path: &Path, base: f64, inc: f64) -> Option<usize> {
    let script = r#"
import sys, chess, chess.pgn
base, inc = float(sys.argv[2]), float(sys.argv[3])
f = open(sys.argv[1]); n = 0
while (g := chess.pgn.read_game(f)) is not None:
    n += 1
    if g.errors: sys.exit(f"game {n}: {g.errors}")
    b = g.board(); clock = {chess.WHITE: base, chess.BLACK: base}
    for node in g.mainline():
        side = b.turn
        if not b.is_legal(node.move): sys.exit(f"game {n}: illegal {node.move}")
        b.push(node.move)
        if node.emt() is None or node.clock() is None: sys.exit(f"game {n} ply {b.ply()}: no [%clk] or [%emt]")
        want = clock[side] - node.emt() + inc
        if abs(node.clock() - want) > 0.0015: sys.exit(f"game {n} ply {b.ply()}: clk {node.clock()} != {want}")
        clock[side] = node.clock()
    res, term = g.headers["Result"], g.headers["Termination"]
    if res not in ("1-0", "0-1", "1/2-1/2"): sys.exit(f"game {n}: result {res}")
    o = b.outcome(claim_draw=False)
    if o is not None:
        if o.result() != res: sys.exit(f"game {n}: board says {o.result()}, PGN {res}")
    elif term == "normal":
        if res != "1/2-1/2" and "resigns" not in str(g.end().comment): sys.exit(f"game {n}: {res} normal without cause")
    elif term != "adjudication":
        sys.exit(f"game {n}: {res} by {term}")
print(n)
"#;
    let out =
        Command::new("python3").args(["-c", script]).arg(path).arg(base.to_string()).arg(inc.to_string()).output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()),
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named 'chess'") => {
            assert!(std::env::var_os("EPDKIT_REQUIRE_PYTHON_CHESS").is_none(), "python-chess is required");
            None
        }
        Ok(o) => panic!("python-chess: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!("python3: {e}"),
    }
}

/// The void games of the journal (`abort` entries with a reason), as
/// (number, reason).
fn journal_voids(path: &Path) -> Vec<(usize, String)> {
    use epd_referee::journal::{entry::Entry, Journal};
    let (_, recovered) = Journal::open(path).unwrap();
    recovered
        .entries
        .iter()
        .filter_map(|e| match serde_json::from_slice::<Entry>(e).unwrap() {
            Entry::Abort { game, void: Some(why) } => Some((game + 1, why)),
            _ => None,
        })
        .collect()
}

/// What every run of the event must show once it is over. The number
/// of games and the void games (number, reason).
fn check_event(dir: &Path) -> (usize, Vec<(usize, String)>) {
    let pgn_path = dir.join("games.pgn");
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    let g = games(&pgn);
    let log = std::fs::read_to_string(dir.join("referee.log")).unwrap();
    let report = std::fs::read_to_string(dir.join("report.txt")).unwrap();
    assert!(report.contains("H1 was accepted") || report.contains("H0 was accepted"), "a verdict:\n{report}");
    // Each schedule slot once.
    let numbers: BTreeSet<usize> = g.iter().map(number).collect();
    assert_eq!(numbers.len(), g.len(), "a game twice: {:?}", g.iter().map(number).collect::<Vec<_>>());
    // No game lost to the cuts (abandoned, on time, stalled): every game
    // ends by the rules or by adjudication.
    for x in &g {
        let term = x.0.get("Termination").map_or("", String::as_str);
        assert!(["normal", "adjudication"].contains(&term), "game {}: {term}:\n{}", number(x), x.1);
    }
    if let Some(n) = check_with_python_chess(&pgn_path, 60.0, 1.0) {
        assert_eq!(n, g.len());
    }
    // Every void game named in the log with its reason, as in the journal,
    // counted in the report, and played again.
    let logged: Vec<(usize, String)> = notes(&log)
        .filter_map(|n| {
            let rest = n.strip_prefix("game ")?;
            let (num, why) = rest.split_once(" void: ")?;
            Some((
                num.parse().unwrap(),
                why.strip_suffix("; it is played again").expect("the log's void line").to_owned(),
            ))
        })
        .collect();
    let journaled = journal_voids(&dir.join("referee.journal"));
    assert_eq!(logged, journaled, "the log's void games and the journal's");
    if !logged.is_empty() {
        assert!(report.contains(&format!("Void: {} (not scored, played again)", logged.len())), "{report}");
    }
    for (n, why) in &logged {
        assert!(why.contains("away past the disconnect grace"), "game {n}: {why}");
        assert!(numbers.contains(n), "void game {n} played again");
    }
    // The pentanomial counts: games 2j-1 and 2j (Round's last part) are a
    // pair, one opening with colours reversed; alpha's points in each.
    let mut pairs: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for x in &g {
        let alpha_white = x.0["White"] == "alpha";
        let points = match (x.0["Result"].as_str(), alpha_white) {
            ("1-0", true) | ("0-1", false) => 1.0,
            ("1/2-1/2", _) => 0.5,
            _ => 0.0,
        };
        pairs.entry((number(x) - 1) / 2).or_default().push(points);
    }
    let mut penta = [0usize; 5];
    for (j, p) in &pairs {
        assert_eq!(p.len(), 2, "pair {} complete (games {} and {})", j + 1, 2 * j + 1, 2 * j + 2);
        penta[(p.iter().sum::<f64>() * 2.0).round() as usize] += 1;
    }
    assert!(report.contains(&format!("\nPtnml(0-2): {penta:?}\n")), "counted from the PGN: {penta:?}\n{report}");
    (g.len(), logged)
}

/// Scenario 1: worker A's link cut mid-event for longer than the
/// heartbeat, DEAD_LINK and the grace, then restored; worker B's
/// processes killed with SIGKILL, and started again after the grace.
#[test]
fn an_sprt_across_hosts_survives_a_cut_link_and_a_killed_worker() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(hosts) = hosts("cut") else { return };
    let start = Instant::now();
    let tmp = event_dir();
    let dir = tmp.path();
    write_event(dir);
    let mut referee = referee(&hosts, dir, false);
    listening(dir, &mut referee);
    let _a = workers(&hosts, dir, A);
    let mut b = workers(&hosts, dir, B);
    let log = wait_for(dir, Duration::from_secs(120), "4 games over", |l| games_over(l) >= 4);
    let a_before = signed_on_from(&log, A);
    assert_eq!(a_before.len(), 4, "worker A's slots: {a_before:?}");

    // The cut: longer than the clients' three heartbeats, DEAD_LINK (the
    // referee closes a connection whose host stops answering) and the
    // grace together.
    let cut = 3 * HEARTBEAT + epd_referee::runtime::DEAD_LINK + GRACE + Duration::from_secs(1);
    let at_cut = std::fs::read_to_string(dir.join("referee.log")).unwrap().len();
    let cut_at = utc_seconds();
    hosts.link(A, false);
    std::thread::sleep(cut);
    let during = std::fs::read_to_string(dir.join("referee.log")).unwrap()[at_cut..].to_owned();
    hosts.link(A, true);
    assert!(referee.running(), "the event went on through the cut");
    // The referee found each of A's connections dead before the link came
    // back (no route to the host once its neighbour entry failed, or
    // DEAD_LINK: TCP_USER_TIMEOUT, keep-alive).
    let dead: BTreeSet<String> = notes(&during)
        .filter(|n| n.contains(" disconnected: "))
        .filter_map(|n| n.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(dead, a_before, "A's connections closed during the cut:\n{during}");
    let found_in =
        during.lines().filter(|l| l.contains(" disconnected: ")).map(|l| log_time(l) - cut_at).fold(0.0, f64::max);
    let voids_of_cut = notes(&during).filter(|n| n.contains(" void: ")).count();
    let back_in_cut = notes(&during).filter(|n| n.contains(" is back")).count();
    // Worker A signs on again by itself.
    let log = wait_for(dir, Duration::from_secs(60), "worker A back", |l| signed_on_from(l, A).len() >= 8);
    let over_before_kill = games_over(&log);

    // Worker B killed with SIGKILL, started again after the grace.
    for p in &mut b {
        p.kill();
    }
    std::thread::sleep(GRACE + Duration::from_secs(1));
    assert!(referee.running(), "the event went on while worker B was gone: it needs more games");
    let _b = workers(&hosts, dir, B);
    wait_for(dir, Duration::from_secs(60), "worker B back", |l| signed_on_from(l, B).len() >= 8);

    assert_eq!(referee.exit(Duration::from_secs(240)), Some(true), "the referee ends the event, exit 0");
    let (games, voids) = check_event(dir);
    eprintln!(
        "scenario 1: {games} games in {:.1} s; the cut ({:.0} s): A's connections closed within {found_in:.1} s, \
         {voids_of_cut} void, {back_in_cut} taken over; \
         {} void in all: {voids:?}; {over_before_kill} games over before the kill of B",
        start.elapsed().as_secs_f64(),
        cut.as_secs_f64(),
        voids.len()
    );
}

/// Scenario 2: the referee killed with SIGKILL mid-event and resumed
/// with `--resume`; the workers come back by themselves.
#[test]
fn an_sprt_across_hosts_survives_a_killed_referee() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(hosts) = hosts("kill") else { return };
    let start = Instant::now();
    let tmp = event_dir();
    let dir = tmp.path();
    write_event(dir);
    let mut first = referee(&hosts, dir, false);
    listening(dir, &mut first);
    let _a = workers(&hosts, dir, A);
    let _b = workers(&hosts, dir, B);
    wait_for(dir, Duration::from_secs(120), "6 games over", |l| games_over(l) >= 6);
    // The next games start after conclude_delay (1 s): killed with games
    // in progress.
    std::thread::sleep(Duration::from_millis(1500));
    first.kill();
    let log = std::fs::read_to_string(dir.join("referee.log")).unwrap();
    assert!(!log.contains(" accepted after "), "killed before the SPRT's verdict");
    let before = games(&std::fs::read_to_string(dir.join("games.pgn")).unwrap());
    assert!(before.len() >= 6, "{} games in the PGN at the kill", before.len());
    let mut second = referee(&hosts, dir, true);
    let log = wait_for(dir, Duration::from_secs(30), "resumed", |l| l.contains("resumed from the journal"));
    let resumed = notes(&log).find(|n| n.starts_with("resumed from the journal")).unwrap().to_owned();
    let in_progress: usize = resumed.split(" in progress").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(in_progress > 0, "games in progress at the kill: {resumed}");
    assert_eq!(second.exit(Duration::from_secs(240)), Some(true), "the resumed referee ends the event, exit 0");
    let (games_n, voids) = check_event(dir);
    // Nothing lost: every game over before the kill is in the final PGN as
    // it was.
    let after: BTreeMap<usize, String> = games(&std::fs::read_to_string(dir.join("games.pgn")).unwrap())
        .into_iter()
        .map(|x| (number(&x), x.1.clone()))
        .collect();
    for x in &before {
        assert_eq!(after.get(&number(x)), Some(&x.1), "game {} as it was before the kill", number(x));
    }
    let log = std::fs::read_to_string(dir.join("referee.log")).unwrap();
    let after_resume = log.split("resumed from the journal").nth(1).unwrap();
    for host in [A, B] {
        let from = format!(" from 10.231.{host}.2:");
        assert!(
            notes(after_resume).any(|n| n.contains(" signs on as ") && n.contains(&from)),
            "worker {host} came back to the resumed referee"
        );
    }
    eprintln!(
        "scenario 2: {games_n} games in {:.1} s, {} over before the kill ({resumed}); {} void: {voids:?}",
        start.elapsed().as_secs_f64(),
        before.len(),
        voids.len()
    );
}
