//! Any UCI engine as a child process.
//!
//! The engine is started with piped standard input and output (its
//! standard error is discarded). Its output is read into lines by the
//! calling thread itself, each wait with a deadline (`poll(2)` on Unix; a
//! reader thread and a channel elsewhere), so a search costs one wake-up
//! per burst of output and not two per line:
//!
//! - handshake: `uci` → `uciok`, then `setoption name N value V` for each
//!   option (Threads, Hash, `--option`), then `isready` → `readyok`, each
//!   within [`UciConfig::handshake_timeout`];
//! - per record: `ucinewgame`, `isready` → `readyok`, `position fen …`,
//!   `go [movetime T] [depth D] [nodes N] [mate M]` (`go infinite` when no
//!   limit is set), then `info` lines until `bestmove`; before it,
//!   `setoption name MultiPV value K` when the search asks for another
//!   number of lines than the engine has (and the engine declares it).
//!
//! Of the `info` lines, the last `score cp|mate` that is not marked
//! `lowerbound` or `upperbound` is kept, with the `pv` on the same line
//! (converted from coordinates; it stops at the first move that is not
//! legal), its depth and seldepth; `nodes` is taken from the last line that
//! has it. Lines of a `multipv` k above 1 give [`Analysis::lines`]: the
//! last exact score and legal pv of each k, in order of k. The engine's
//! `bestmove` is the chosen move: when the exact pv does not start with
//! it (the search was cut during a re-search), the pv of the latest line
//! that does is used, or the move alone.
//!
//! `bestmove (none)` or `bestmove 0000` in a position without legal moves
//! gives an empty pv and ce −32767 (checkmate) or 0 (stalemate), whatever
//! score the engine printed.
//!
//! A child that exits or closes its output is [`EngineError::Crashed`]; one
//! that does not answer in time is killed ([`EngineError::Timeout`]). In
//! both cases the child is dropped and a new one is started by the next
//! call, so a run goes on. The child is killed when the engine is dropped.

use std::io::Write;
#[cfg(not(unix))]
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Analysis, Engine, EngineError, Limits};
use epd_core::{Move, Position, Score};

/// How to start and set up a UCI engine.
#[derive(Clone, Debug)]
pub struct UciConfig {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// `setoption` pairs sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// How long `uciok` and `readyok` may take.
    pub handshake_timeout: Duration,
    /// The engine's working directory (the caller's when `None`).
    pub dir: Option<std::path::PathBuf>,
    /// Chess960: `setoption name UCI_Chess960 value true` after the
    /// handshake (an engine that does not declare the option is refused),
    /// and castling written king-takes-rook (`e1h1`) in every position.
    /// [`Engine::set_chess960`] changes it between games.
    pub chess960: bool,
    /// The CPUs the engine may run on (Linux: set in the child before it
    /// runs the program, so every thread it starts inherits them); empty
    /// for wherever the system puts it.
    pub cpus: Vec<usize>,
    /// Told every line written to the engine and read from it, as it
    /// goes (a tournament manager's engine log), the handshake included.
    pub traffic: Option<Traffic>,
}

/// Which way a line of UCI traffic went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Written to the engine.
    ToEngine,
    /// Read from the engine.
    FromEngine,
}

/// What hears a line of UCI traffic: which way it went, and the line.
pub type TrafficFn = dyn Fn(Direction, &str) + Send + Sync;

/// An observer of an engine's UCI traffic ([`UciConfig::traffic`]).
#[derive(Clone)]
pub struct Traffic(pub std::sync::Arc<TrafficFn>);

impl std::fmt::Debug for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Traffic(..)")
    }
}

impl UciConfig {
    /// A program with no arguments and no options; a 10 s handshake.
    #[must_use]
    pub fn new(program: impl Into<String>) -> UciConfig {
        UciConfig {
            program: program.into(),
            args: Vec::new(),
            options: Vec::new(),
            handshake_timeout: Duration::from_secs(10),
            dir: None,
            chess960: false,
            cpus: Vec::new(),
            traffic: None,
        }
    }
}

/// Runs the child on `cpus` only: `sched_setaffinity` between fork and
/// exec, so the program's threads, started later, inherit the set (set
/// after the start, the threads an engine starts at once would escape
/// it, as fastchess found). A CPU the system lacks fails the spawn.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn pin(command: &mut Command, cpus: &[usize]) {
    use std::os::unix::process::CommandExt;
    let (set, size) = cpu_set(cpus);
    // SAFETY: the closure only makes one system call, which is
    // async-signal-safe, on a set copied into it before the fork.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, size, &raw const set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// `cpus` as a `cpu_set_t` and its size (CPUs past CPU_SETSIZE left
/// out: an empty set is refused by the system).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn cpu_set(cpus: &[usize]) -> (libc::cpu_set_t, usize) {
    // SAFETY: cpu_set_t is plain bits, all zero an empty set; CPU_SET
    // writes inside it for a CPU below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    let size = core::mem::size_of::<libc::cpu_set_t>();
    for &c in cpus.iter().filter(|&&c| c < 8 * size) {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    (set, size)
}

/// Runs the calling thread on `cpus` only (the built-in engine searches
/// on the thread that calls it; a UCI engine is pinned with
/// [`UciConfig::cpus`]).
///
/// # Errors
/// A CPU the system lacks, or a system without CPU affinity (Linux
/// only).
#[allow(unsafe_code)]
pub fn pin_this_thread(cpus: &[usize]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let (set, size) = cpu_set(cpus);
        // SAFETY: pid 0 is the calling thread; the set lives across the call.
        if unsafe { libc::sched_setaffinity(0, size, &raw const set) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "CPU affinity is Linux only"))
    }
}

/// The program to run for `engine`: a path as it is; a bare name looked
/// up on PATH, then in the directories where Debian installs engines
/// (`stockfish` is /usr/games/stockfish); else the name itself (starting
/// it then says it cannot be found).
#[must_use]
pub fn find_program(engine: &str) -> String {
    if engine.contains('/') {
        return engine.to_owned();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain(["/usr/games".into(), "/usr/local/games".into()]);
    for dir in dirs {
        let candidate = dir.join(engine);
        if candidate.is_file() {
            return candidate.to_string_lossy().into_owned();
        }
    }
    engine.to_owned()
}

/// A running child.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Lines,
}

/// An engine's output as lines, each read with a deadline.
#[cfg(unix)]
struct Lines {
    out: ChildStdout,
    buf: Vec<u8>,
    /// Where the unread part of `buf` begins.
    at: usize,
    closed: bool,
    /// What one read takes in.
    chunk: Box<[u8; 8192]>,
}

#[cfg(unix)]
impl Lines {
    fn new(out: ChildStdout) -> Lines {
        Lines { out, buf: Vec::with_capacity(8192), at: 0, closed: false, chunk: Box::new([0; 8192]) }
    }

    /// The next line, `Ok(None)` at `deadline`, an error when the engine
    /// closed its output.
    #[allow(unsafe_code)]
    fn next(&mut self, deadline: Instant) -> Result<Option<String>, ()> {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        loop {
            if let Some(i) = self.buf[self.at..].iter().position(|&b| b == b'\n') {
                let bytes = &self.buf[self.at..self.at + i];
                // UTF-8 checked the fast way first (engines write ASCII).
                let line = match std::str::from_utf8(bytes) {
                    Ok(s) => s.trim_end().to_owned(),
                    Err(_) => String::from_utf8_lossy(bytes).trim_end().to_owned(),
                };
                self.at += i + 1;
                if self.at == self.buf.len() {
                    self.buf.clear();
                    self.at = 0;
                }
                return Ok(Some(line));
            }
            if self.closed {
                return Err(());
            }
            if self.at > 0 {
                self.buf.drain(..self.at);
                self.at = 0;
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            let mut fd = libc::pollfd { fd: self.out.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            let ms = libc::c_int::try_from(wait.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX);
            // SAFETY: one valid pollfd, for the duration of the call.
            let ready = unsafe { libc::poll(&raw mut fd, 1, ms) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(());
            }
            if ready == 0 {
                return Ok(None);
            }
            let len = self.buf.len();
            // A line longer than 1 MiB is cut there (no engine writes one).
            if len >= 1 << 20 {
                self.buf.push(b'\n');
                continue;
            }
            // Read into a chunk kept for the purpose: growing `buf` by
            // 8 KiB of zeros for each read cost more than the read.
            match self.out.read(&mut self.chunk[..]) {
                Ok(0) => {
                    self.closed = true;
                    // What is left without a newline is the last line.
                    if self.buf.len() > self.at {
                        self.buf.push(b'\n');
                    }
                }
                Ok(n) => self.buf.extend_from_slice(&self.chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.closed = true,
            }
        }
    }
}

/// An engine's output as lines: a reader thread and a channel.
#[cfg(not(unix))]
struct Lines(std::sync::mpsc::Receiver<String>);

#[cfg(not(unix))]
impl Lines {
    fn new(out: ChildStdout) -> Lines {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(out);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(String::from_utf8_lossy(&buf).trim_end().to_owned()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Lines(rx)
    }

    fn next(&mut self, deadline: Instant) -> Result<Option<String>, ()> {
        match self.0.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => Ok(Some(line)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(()),
        }
    }
}

impl Process {
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A UCI engine run as a child process, restarted after a crash or hang.
pub struct UciEngine {
    config: UciConfig,
    name: String,
    process: Option<Process>,
    starts: u32,
    /// The option names the engine declared in its handshake.
    declared: Vec<String>,
    /// The number of lines (MultiPV) the running engine was last set to
    /// give: from the options of its handshake, else its default, else 1.
    multipv: u32,
    /// Their defaults, by index in `declared` (`None`: no default given).
    defaults: Vec<Option<String>>,
    /// The range of each that is a spin option, by index in `declared`.
    spins: Vec<Option<(i64, i64)>>,
    /// The values of each that is a check (`false`, `true`) or combo
    /// option (its `var`s), by index in `declared`.
    choices: Vec<Option<Vec<String>>>,
    /// The game of the last `play`.
    last: PositionCommand,
}

impl core::fmt::Debug for UciEngine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("UciEngine")
            .field("program", &self.config.program)
            .field("name", &self.name)
            .field("running", &self.process.is_some())
            .field("starts", &self.starts)
            .finish()
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Some(mut p) = self.process.take() {
            let _ = p.stdin.write_all(b"quit\n");
            let _ = p.stdin.flush();
            // Give it a moment to exit on its own, then kill it.
            let until = Instant::now() + Duration::from_millis(200);
            while Instant::now() < until {
                if matches!(p.child.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            p.kill();
        }
    }
}

impl UciEngine {
    /// Starts the engine and completes the handshake.
    ///
    /// # Errors
    /// [`EngineError::Spawn`] if the program cannot be run;
    /// [`EngineError::UnknownOption`] if it does not declare an option of
    /// `config` (names compared without regard to case); a crash, timeout
    /// or protocol error during the handshake.
    pub fn start(config: UciConfig) -> Result<UciEngine, EngineError> {
        UciEngine::start_watched(config, None)
    }

    /// As [`UciEngine::start`], watching `stop` during the handshake: when
    /// it is raised the program is killed and the start fails at once
    /// ([`EngineError::Refused`], "stopped"), without waiting for the
    /// handshake's timeout (an engine that never answers `uci`).
    ///
    /// # Errors
    /// As [`UciEngine::start`].
    pub fn start_watched(config: UciConfig, stop: Option<&AtomicBool>) -> Result<UciEngine, EngineError> {
        let name = std::path::Path::new(&config.program)
            .file_name()
            .map_or_else(|| config.program.clone(), |n| n.to_string_lossy().into_owned());
        let mut engine = UciEngine {
            config,
            name,
            process: None,
            starts: 0,
            declared: Vec::new(),
            multipv: 1,
            defaults: Vec::new(),
            spins: Vec::new(),
            choices: Vec::new(),
            last: PositionCommand::default(),
        };
        engine.ensure_running(stop)?;
        Ok(engine)
    }

    /// The names of the options the engine declared (`option name N
    /// type ...` in its handshake), in its order.
    #[must_use]
    pub fn declared_options(&self) -> &[String] {
        &self.declared
    }

    /// Whether the engine declared the option `name` (UCI option names
    /// are compared without regard to case).
    #[must_use]
    pub fn has_option(&self, name: &str) -> bool {
        self.declared.iter().any(|d| d.eq_ignore_ascii_case(name))
    }

    /// The range of the spin option `name` (compared without regard to
    /// case), `None` if the engine declared no such spin option.
    #[must_use]
    pub fn spin_range(&self, name: &str) -> Option<(i64, i64)> {
        let i = self.declared.iter().position(|d| d.eq_ignore_ascii_case(name))?;
        self.spins[i]
    }

    /// The values the check or combo option `name` takes (compared
    /// without regard to case): `false` and `true` for a check, the
    /// `var`s of a combo in the engine's order; `None` for any other
    /// option, or none of that name.
    #[must_use]
    pub fn option_choices(&self, name: &str) -> Option<&[String]> {
        let i = self.declared.iter().position(|d| d.eq_ignore_ascii_case(name))?;
        self.choices[i].as_deref()
    }

    /// How many times the child was started (1 + restarts).
    #[must_use]
    pub fn starts(&self) -> u32 {
        self.starts
    }

    fn ensure_running(&mut self, stop: Option<&AtomicBool>) -> Result<(), EngineError> {
        if self.process.is_some() {
            return Ok(());
        }
        let mut command = Command::new(&self.config.program);
        command.args(&self.config.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(dir) = &self.config.dir {
            command.current_dir(dir);
        }
        // A process group of its own: a Ctrl-C at the terminal reaches the
        // verb, which stops its engines in order, and not the engines
        // themselves mid-record.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        #[cfg(target_os = "linux")]
        if !self.config.cpus.is_empty() {
            pin(&mut command, &self.config.cpus);
        }
        let mut child = command.spawn().map_err(|e| EngineError::Spawn {
            program: self.config.program.clone(),
            detail: epd_core::io_reason(&e),
        })?;
        self.starts += 1;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Spawn { program: self.config.program.clone(), detail: "no pipes".into() });
        };
        self.process = Some(Process { child, stdin, lines: Lines::new(stdout) });
        let result = self.handshake(stop);
        if result.is_err() {
            self.discard();
        }
        result
    }

    fn handshake(&mut self, stop: Option<&AtomicBool>) -> Result<(), EngineError> {
        let timeout = self.config.handshake_timeout;
        self.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.recv_watched(deadline, "uciok", timeout, stop)?;
            if line == "uciok" {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = name.trim().to_owned();
            }
            if let Some(rest) = line.strip_prefix("option name ") {
                // The name runs to the next ` type ` (names may have spaces).
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                if !name.is_empty() && !self.declared.iter().any(|d| d == name) {
                    self.declared.push(name.to_owned());
                    self.defaults.push(option_default(rest));
                    self.spins.push(spin_range(rest));
                    self.choices.push(option_choices(rest));
                }
            }
        }
        if let Some((name, _)) = self.config.options.iter().find(|(n, _)| !self.has_option(n)) {
            return Err(EngineError::UnknownOption { name: name.clone(), declared: self.declared.clone() });
        }
        for (name, value) in &self.config.options {
            self.check_value(name, value)?;
        }
        for (name, value) in self.config.options.clone() {
            // A value the engine has already (its default) is not sent, as
            // python-chess does: Stockfish sets its threads and hash up
            // again for every Threads or Hash, about 14 ms.
            let default = self
                .declared
                .iter()
                .position(|d| d.eq_ignore_ascii_case(&name))
                .and_then(|i| self.defaults[i].as_deref());
            if default.is_some_and(|d| d.eq_ignore_ascii_case(value.trim())) {
                continue;
            }
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        if self.config.chess960 {
            self.send_chess960(true)?;
        }
        let declared = self.declared.iter().position(|d| d.eq_ignore_ascii_case("MultiPV"));
        let given = self.config.options.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case("MultiPV"));
        self.multipv = given
            .map(|(_, v)| v.as_str())
            .or_else(|| declared.and_then(|i| self.defaults[i].as_deref()))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1);
        self.sync_watched(stop)
    }

    /// Refuses a value the engine's declaration of the option `name` does
    /// not allow, as python-chess does: a spin option takes a whole number
    /// within its `min` and `max`, a check option `true` or `false`, a
    /// combo option one of its `var`s (compared without regard to case).
    /// Button and string options, and options declared without a type the
    /// kit reads, take anything.
    fn check_value(&self, name: &str, value: &str) -> Result<(), EngineError> {
        let refuse =
            |expected: String| EngineError::OptionValue { name: name.to_owned(), value: value.to_owned(), expected };
        let v = value.trim();
        if let Some((min, max)) = self.spin_range(name) {
            return match v.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(()),
                _ => Err(refuse(format!("a whole number from {min} to {max}"))),
            };
        }
        if let Some(choices) = self.option_choices(name) {
            if !choices.iter().any(|c| c.eq_ignore_ascii_case(v)) {
                return Err(refuse(format!("one of {}", choices.join(", "))));
            }
        }
        Ok(())
    }

    /// `setoption name MultiPV` when `limits` ask for another number of
    /// lines than the engine gives, if it declares the option.
    fn set_multipv(&mut self, limits: &Limits) -> Result<(), EngineError> {
        let want = limits.multipv.max(1);
        if want != self.multipv && self.has_option("MultiPV") {
            self.send(&format!("setoption name MultiPV value {want}"))?;
            self.multipv = want;
        }
        Ok(())
    }

    /// `setoption name UCI_Chess960`: on only if the engine declared it
    /// (one that did not cannot be told that castling is king-takes-rook);
    /// off is sent only to an engine that has the option.
    fn send_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        if !self.has_option("UCI_Chess960") {
            if !on {
                return Ok(());
            }
            let detail = "the engine does not declare the option UCI_Chess960, which Chess960 needs".to_owned();
            self.discard();
            return Err(EngineError::Protocol { line: "uciok".into(), detail });
        }
        self.send(&format!("setoption name UCI_Chess960 value {on}"))
    }

    /// `isready` → `readyok`.
    fn sync(&mut self) -> Result<(), EngineError> {
        self.sync_watched(None)
    }

    /// `isready` → `readyok`, given up (the engine killed) when `stop` is
    /// raised.
    fn sync_watched(&mut self, stop: Option<&AtomicBool>) -> Result<(), EngineError> {
        let timeout = self.config.handshake_timeout;
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.recv_watched(deadline, "readyok", timeout, stop)? != "readyok" {}
        Ok(())
    }

    /// As `recv_until`, looking at `stop` every 50 ms: when it is raised
    /// the engine is killed and the wait fails at once.
    fn recv_watched(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        after: Duration,
        stop: Option<&AtomicBool>,
    ) -> Result<String, EngineError> {
        let Some(stop) = stop else { return self.recv_until(deadline, waiting_for, after) };
        loop {
            if stop.load(Ordering::Relaxed) {
                self.discard();
                return Err(EngineError::Refused { detail: format!("stopped while waiting for {waiting_for}") });
            }
            let slice = deadline.min(Instant::now() + Duration::from_millis(50));
            if let Some(line) = self.recv(slice)? {
                return Ok(line);
            }
            if Instant::now() >= deadline {
                self.discard();
                return Err(EngineError::Timeout { waiting_for, after });
            }
        }
    }

    fn send(&mut self, command: &str) -> Result<(), EngineError> {
        let Some(p) = self.process.as_mut() else {
            return Err(EngineError::Crashed { detail: "not running".into() });
        };
        if let Some(t) = &self.config.traffic {
            // Told a line at a time (a command may be two lines).
            for line in command.lines() {
                (t.0)(Direction::ToEngine, line);
            }
        }
        // One write for the command and its newline (the pipe is not
        // buffered: each write would wake the engine).
        let mut line = Vec::with_capacity(command.len() + 1);
        line.extend_from_slice(command.as_bytes());
        line.push(b'\n');
        let r = p.stdin.write_all(&line).and_then(|()| p.stdin.flush());
        match r {
            Ok(()) => Ok(()),
            Err(e) => {
                let detail = self.exit_detail(&format!("cannot write {command:?}: {e}"));
                self.discard();
                Err(EngineError::Crashed { detail })
            }
        }
    }

    /// The next line, or `None` at `deadline`.
    fn recv(&mut self, deadline: Instant) -> Result<Option<String>, EngineError> {
        let Some(p) = self.process.as_mut() else {
            return Err(EngineError::Crashed { detail: "not running".into() });
        };
        match p.lines.next(deadline) {
            Ok(Some(line)) => {
                if let Some(t) = &self.config.traffic {
                    (t.0)(Direction::FromEngine, &line);
                }
                Ok(Some(line))
            }
            Ok(None) => Ok(None),
            Err(()) => {
                let detail = self.exit_detail("closed its output");
                self.discard();
                Err(EngineError::Crashed { detail })
            }
        }
    }

    /// The next line before `deadline`; killed and a timeout error after.
    fn recv_until(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        after: Duration,
    ) -> Result<String, EngineError> {
        match self.recv(deadline)? {
            Some(line) => Ok(line),
            None => {
                self.discard();
                Err(EngineError::Timeout { waiting_for, after })
            }
        }
    }

    fn exit_detail(&mut self, what: &str) -> String {
        let Some(p) = self.process.as_mut() else { return what.to_owned() };
        // The child may take a moment to be reaped after closing its pipe.
        for _ in 0..20 {
            if let Ok(Some(status)) = p.child.try_wait() {
                return format!("{what} ({status})");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        what.to_owned()
    }

    /// Kills and forgets the child; the next call starts a new one.
    fn discard(&mut self) {
        if let Some(p) = self.process.take() {
            p.kill();
        }
    }

    fn go_command(limits: &Limits) -> String {
        let mut go = String::from("go");
        if let Some(c) = limits.clock {
            go.push_str(&format!(
                " wtime {} btime {} winc {} binc {}",
                c.wtime.as_millis(),
                c.btime.as_millis(),
                c.winc.as_millis(),
                c.binc.as_millis()
            ));
            if let Some(m) = c.movestogo {
                go.push_str(&format!(" movestogo {m}"));
            }
        }
        if let Some(t) = limits.movetime {
            go.push_str(&format!(" movetime {}", t.as_millis().max(1)));
        }
        if let Some(d) = limits.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = limits.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(m) = limits.mate {
            go.push_str(&format!(" mate {m}"));
        }
        if go == "go" {
            go.push_str(" infinite");
        }
        go
    }
}

impl Engine for UciEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.ensure_running(None)?;
        self.send("ucinewgame")?;
        self.sync()
    }

    fn set_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        if self.config.chess960 == on {
            return Ok(());
        }
        self.config.chess960 = on;
        if self.process.is_some() {
            self.send_chess960(on)?;
        }
        Ok(())
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        self.ensure_running(None)?;
        let Some(i) = self.declared.iter().position(|d| d.eq_ignore_ascii_case(name)) else {
            return Err(EngineError::UnknownOption { name: name.to_owned(), declared: self.declared.clone() });
        };
        let value = value.trim();
        self.check_value(name, value)?;
        // The value it has: the last one given, else its default.
        let given = self.config.options.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name));
        let current = given.map(|(_, v)| v.as_str()).or(self.defaults[i].as_deref());
        let changed = !current.is_some_and(|c| c.trim().eq_ignore_ascii_case(value));
        self.config.options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.config.options.push((self.declared[i].clone(), value.to_owned()));
        if changed {
            self.send(&format!("setoption name {} value {value}", self.declared[i]))?;
            if self.declared[i].eq_ignore_ascii_case("MultiPV") {
                self.multipv = value.parse().unwrap_or(1);
            }
        }
        Ok(())
    }

    fn analyze(&mut self, pos: &Position, limits: &Limits, stop: &AtomicBool) -> Result<Analysis, EngineError> {
        self.search(&format!("position fen {}", pos.fen()), pos, limits, stop)
    }

    fn play(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        let mut last = core::mem::take(&mut self.last);
        let (command, pos) = last.update(start, moves, self.config.chess960);
        let result = self.search(command, &pos, limits, stop);
        self.last = last;
        result
    }
}

impl UciEngine {
    /// Sends `position` (which leads to `pos`) and `go`, and follows the
    /// search to `bestmove`.
    fn search(
        &mut self,
        position: &str,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Result<Analysis, EngineError> {
        self.ensure_running(Some(stop))?;
        self.set_multipv(limits)?;
        let (mut search, command) = UciSearch::start(position, *pos, limits, Instant::now());
        self.send(&command)?;
        // How often the stop flag is looked at while the engine searches.
        let poll = Duration::from_millis(50);
        loop {
            let now = Instant::now();
            match search.on_time(now, stop.load(Ordering::Relaxed)) {
                SearchAction::Wait => {}
                SearchAction::Stop => self.send("stop")?,
                SearchAction::Fail(e) => {
                    self.discard();
                    return Err(e);
                }
            }
            let wake = search.wake_at().map_or(now + poll, |t| t.min(now + poll));
            let Some(line) = self.recv(wake)? else { continue };
            match search.on_line(&line) {
                Ok(None) => {}
                Ok(Some(analysis)) => return Ok(analysis),
                Err(e) => {
                    // The engine's state is unknown after a bad bestmove.
                    self.discard();
                    return Err(e);
                }
            }
        }
    }

    /// Hands the running engine over to a caller that drives it itself
    /// (the referee's own event loop): the child, its pipes, and what was
    /// read from it and not yet taken. `None` if it is not running.
    /// Nothing is sent to it: the caller must make it quit.
    #[cfg(unix)]
    #[must_use]
    pub fn into_parts(mut self) -> Option<UciParts> {
        let p = self.process.take()?;
        let pending = p.lines.buf[p.lines.at..].to_vec();
        let stdout = p.lines.out;
        Some(UciParts {
            child: p.child,
            stdin: p.stdin,
            stdout,
            pending,
            declared: core::mem::take(&mut self.declared),
            chess960: self.config.chess960,
            handshake_timeout: self.config.handshake_timeout,
        })
    }
}

/// A running UCI engine taken out of a [`UciEngine`] (which started it
/// and completed the handshake), for a caller with its own I/O.
#[derive(Debug)]
pub struct UciParts {
    /// The child process.
    pub child: Child,
    /// Its standard input.
    pub stdin: ChildStdin,
    /// Its standard output.
    pub stdout: ChildStdout,
    /// Output already read from it and not yet taken as lines.
    pub pending: Vec<u8>,
    /// The options it declared.
    pub declared: Vec<String>,
    /// Whether it was told to play Chess960 (`UCI_Chess960`).
    pub chess960: bool,
    /// How long it may take to answer `isready`.
    pub handshake_timeout: Duration,
}

/// The `position` command of a game, kept from one move to the next so
/// that a game one or two moves on appends its moves rather than writing
/// (and replaying) the whole game again.
#[derive(Clone, Debug, Default)]
pub struct PositionCommand {
    fen: String,
    chess960: bool,
    moves: Vec<Move>,
    text: String,
    end: Position,
}

impl PositionCommand {
    /// The command for the game from `start` with `moves` (castling
    /// king-takes-rook when `chess960`), and the position it leads to:
    /// `position startpos moves ...` from the standard position in
    /// standard chess, as fastchess and cutechess write it, else
    /// `position fen START moves ...`.
    pub fn update(&mut self, start: &Position, moves: &[Move], chess960: bool) -> (&str, Position) {
        let chess960 = chess960 || start.is_chess960();
        let fen = start.fen();
        if self.fen != fen || self.chess960 != chess960 || !moves.starts_with(&self.moves) || self.text.is_empty() {
            let text = if !chess960 && *start == Position::startpos() {
                "position startpos".to_owned()
            } else {
                format!("position fen {fen}")
            };
            *self = PositionCommand { text, fen, chess960, moves: Vec::new(), end: *start };
        }
        for &m in &moves[self.moves.len()..] {
            if self.moves.is_empty() {
                self.text.push_str(" moves");
            }
            self.text.push(' ');
            m.append_uci_to(chess960, &mut self.text);
            self.end.play_unchecked(m);
            self.moves.push(m);
        }
        (&self.text, self.end)
    }
}

/// What a UCI search wants done at a given time ([`UciSearch::on_time`]).
#[derive(Debug)]
pub enum SearchAction {
    /// Nothing: wait for a line, or until [`UciSearch::wake_at`].
    Wait,
    /// Send `stop`.
    Stop,
    /// The engine did not answer `stop` within the grace: kill it.
    Fail(EngineError),
}

/// One search by a UCI engine, apart from any I/O: it gives the command
/// to send, takes the engine's lines and the time, and says when to send
/// `stop`, when to give up, and the analysis at `bestmove`. [`UciEngine`]
/// drives it with blocking reads; the referee drives it from its event
/// loop.
#[derive(Debug)]
pub struct UciSearch {
    lines: SearchLines,
    start: Instant,
    stop_at: Option<Instant>,
    kill_at: Option<Instant>,
    grace: Duration,
}

impl UciSearch {
    /// A search of `pos`, reached by the `position` command `position`,
    /// under `limits`, begun at `now`; with the text to write to the
    /// engine, `position` and `go`, without the final newline (one write,
    /// one wake-up of the engine).
    #[must_use]
    pub fn start(position: &str, pos: Position, limits: &Limits, now: Instant) -> (UciSearch, String) {
        let search = UciSearch {
            lines: SearchLines::new(pos),
            start: now,
            stop_at: limits.stop_after().map(|d| now + d),
            kill_at: None,
            grace: limits.grace,
        };
        (search, format!("{position}\n{}", UciEngine::go_command(limits)))
    }

    /// The time at which [`UciSearch::on_time`] has something to do.
    #[must_use]
    pub fn wake_at(&self) -> Option<Instant> {
        match (self.stop_at, self.kill_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// What to do at `now`; `stop`: the caller wants the search stopped.
    pub fn on_time(&mut self, now: Instant, stop: bool) -> SearchAction {
        if self.kill_at.is_none() && (stop || self.stop_at.is_some_and(|t| now >= t)) {
            self.kill_at = Some(now + self.grace);
            self.stop_at = None;
            return SearchAction::Stop;
        }
        if self.kill_at.is_some_and(|k| now >= k) {
            return SearchAction::Fail(EngineError::Timeout {
                waiting_for: "bestmove",
                after: now.saturating_duration_since(self.start),
            });
        }
        SearchAction::Wait
    }

    /// Takes one line of the engine's output: the analysis at
    /// `bestmove`, `None` before.
    ///
    /// # Errors
    /// [`EngineError::Protocol`] for a `bestmove` that cannot be taken:
    /// the engine's state is then unknown.
    pub fn on_line(&mut self, line: &str) -> Result<Option<Analysis>, EngineError> {
        Ok(self.lines.feed(line)?.map(|mut a| {
            a.elapsed = self.start.elapsed();
            a
        }))
    }
}

/// The `min` and `max` of an `option name ...` line of `type spin` (the
/// text after `name `).
fn spin_range(rest: &str) -> Option<(i64, i64)> {
    let (_, after) = rest.split_once(" type ")?;
    let mut words = after.split_ascii_whitespace();
    if words.next()? != "spin" {
        return None;
    }
    let (mut min, mut max) = (None, None);
    while let Some(w) = words.next() {
        match w {
            "min" => min = words.next().and_then(|v| v.parse().ok()),
            "max" => max = words.next().and_then(|v| v.parse().ok()),
            _ => {}
        }
    }
    Some((min?, max?))
}

/// The values of an `option name ...` line of `type check` (`false`,
/// `true`) or `type combo` (its `var`s, which may hold spaces).
fn option_choices(rest: &str) -> Option<Vec<String>> {
    let (_, after) = rest.split_once(" type ")?;
    let after = after.trim_start();
    if after.split_ascii_whitespace().next() == Some("check") {
        return Some(vec!["false".into(), "true".into()]);
    }
    if after.split_ascii_whitespace().next() != Some("combo") {
        return None;
    }
    let mut vars = Vec::new();
    let mut text = after;
    while let Some(at) = text.find(" var ") {
        text = &text[at + 5..];
        let end = [" var ", " default "].iter().filter_map(|k| text.find(k)).min().unwrap_or(text.len());
        let v = text[..end].trim();
        if !v.is_empty() && !vars.iter().any(|x| x == v) {
            vars.push(v.to_owned());
        }
    }
    (!vars.is_empty()).then_some(vars)
}

/// The default of an `option name ...` line (the text after `name `):
/// what follows ` default ` up to ` min `, ` max ` or ` var `.
fn option_default(rest: &str) -> Option<String> {
    let (_, after) = rest.split_once(" default ")?;
    let end = [" min ", " max ", " var "].iter().filter_map(|k| after.find(k)).min().unwrap_or(after.len());
    Some(after[..end].trim().to_owned())
}

/// One parsed `info` line (the fields the verbs use).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct UciInfo<'a> {
    /// `depth`.
    pub depth: Option<u32>,
    /// `seldepth`.
    pub seldepth: Option<u32>,
    /// `multipv`.
    pub multipv: Option<u32>,
    /// `score cp|mate`, as a [`Score`].
    pub score: Option<Score>,
    /// `lowerbound` or `upperbound` followed the score.
    pub bound: bool,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `time` (milliseconds since the search began).
    pub time: Option<u64>,
    /// `pv`: its coordinate moves as written, blanks between (not yet
    /// checked; empty when there is none).
    pub pv: &'a str,
}

const INFO_KEYWORDS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
    "wdl",
];

/// Whether a word after `pv` belongs to the pv: any word but a keyword.
/// A coordinate move (`e2e4`, `e7e8q`, `0000`) has a digit second, as no
/// keyword has, which settles nearly every word without the list.
fn is_pv_word(w: &str) -> bool {
    let b = w.as_bytes();
    ((b.len() == 4 || b.len() == 5) && b[1].is_ascii_digit()) || !INFO_KEYWORDS.contains(&w)
}

impl<'a> UciInfo<'a> {
    /// Parses an `info` line; `None` for any other line. Unknown tokens
    /// are skipped; a malformed number leaves its field unset.
    #[must_use]
    pub fn parse(line: &'a str) -> Option<UciInfo<'a>> {
        let mut tokens = line.split_ascii_whitespace().peekable();
        if tokens.next() != Some("info") {
            return None;
        }
        let mut info = UciInfo::default();
        while let Some(t) = tokens.next() {
            match t {
                "depth" => info.depth = tokens.next().and_then(|v| v.parse().ok()),
                "seldepth" => info.seldepth = tokens.next().and_then(|v| v.parse().ok()),
                "multipv" => info.multipv = tokens.next().and_then(|v| v.parse().ok()),
                "nodes" => info.nodes = tokens.next().and_then(|v| v.parse().ok()),
                "time" => info.time = tokens.next().and_then(|v| v.parse().ok()),
                "score" => {
                    let kind = tokens.next();
                    let value: Option<i64> = tokens.next().and_then(|v| v.parse().ok());
                    info.score = match (kind, value) {
                        (Some("cp"), Some(v)) => Some(Score::from_uci_cp(v)),
                        (Some("mate"), Some(v)) => Some(Score::from_uci_mate(v)),
                        _ => None,
                    };
                    info.bound = false;
                    while let Some(&b) = tokens.peek() {
                        if b == "lowerbound" || b == "upperbound" {
                            info.bound = true;
                            tokens.next();
                        } else {
                            break;
                        }
                    }
                }
                "pv" => {
                    // The pv is kept as the span of the line it covers.
                    let (mut start, mut end) = (None, 0);
                    while let Some(&m) = tokens.peek() {
                        if !is_pv_word(m) {
                            break;
                        }
                        let at = m.as_ptr() as usize - line.as_ptr() as usize;
                        start.get_or_insert(at);
                        end = at + m.len();
                        tokens.next();
                    }
                    info.pv = start.map_or("", |s| &line[s..end]);
                }
                // The rest of the line is free text or a move list.
                "string" | "refutation" | "currline" => break,
                _ => {}
            }
        }
        Some(info)
    }
}

/// Converts coordinate moves to moves legal from `pos`, stopping at the
/// first one that is not legal there.
#[must_use]
pub(crate) fn legal_prefix<'a>(pos: &Position, moves: impl IntoIterator<Item = &'a str>) -> Vec<Move> {
    let mut p = *pos;
    let mut out = Vec::new();
    for m in moves {
        match p.parse_uci(m.as_bytes()) {
            Ok(mv) => {
                out.push(mv);
                p.play_unchecked(mv);
            }
            Err(_) => break,
        }
    }
    out
}

/// Follows one search's output, line by line, and turns it into an
/// [`Analysis`] at `bestmove`.
#[derive(Clone, Debug)]
pub(crate) struct SearchLines {
    pos: Position,
    exact: Analysis,
    /// The pv of the last exact line, as the engine wrote it: converted
    /// to moves only at `bestmove` (a game reads a dozen lines a move,
    /// and needs one pv).
    exact_pv: String,
    /// The latest lines with a pv whose first move is legal (bounded or
    /// not): that move, and the pv as written. At most 8.
    latest_pvs: Vec<(Move, String)>,
    nodes: Option<u64>,
    /// The last exact line of each multipv k >= 2 (index k - 2).
    others: Vec<Option<super::PvLine>>,
    /// Where the first move of the main line last changed.
    held: super::FirstHeld,
}

impl SearchLines {
    /// Ready for the output of a search of `pos`.
    #[must_use]
    pub fn new(pos: Position) -> SearchLines {
        SearchLines {
            pos,
            exact: Analysis::default(),
            exact_pv: String::new(),
            latest_pvs: Vec::new(),
            nodes: None,
            others: Vec::new(),
            held: super::FirstHeld::default(),
        }
    }

    /// The legal prefix of a pv as written (moves separated by spaces).
    fn moves_of(&self, text: &str) -> Vec<Move> {
        legal_prefix(&self.pos, text.split_ascii_whitespace())
    }

    /// Takes one line of engine output. Returns the analysis at
    /// `bestmove`, `None` before.
    ///
    /// # Errors
    /// [`EngineError::Protocol`] for a `bestmove` that is neither legal
    /// nor `(none)`/`0000` in a position without moves, when no legal pv
    /// can stand in for it.
    pub fn feed(&mut self, line: &str) -> Result<Option<Analysis>, EngineError> {
        if let Some(info) = UciInfo::parse(line) {
            if let Some(k) = info.multipv.filter(|&k| k > 1) {
                // MultiPV lines are bounded too: at most 256.
                let pv = legal_prefix(&self.pos, info.pv.split_ascii_whitespace());
                if let (Some(score), false, false, true) = (info.score, info.bound, pv.is_empty(), k <= 256) {
                    let i = k as usize - 2;
                    if self.others.len() <= i {
                        self.others.resize(i + 1, None);
                    }
                    self.others[i] = Some(super::PvLine { pv, score: Some(score) });
                }
                return Ok(None);
            }
            if info.nodes.is_some() {
                self.nodes = info.nodes;
            }
            // The first move is most often the last line's: read once.
            let first = info.pv.split_ascii_whitespace().next().and_then(|w| match self.latest_pvs.last() {
                Some((m, text)) if text.split_ascii_whitespace().next() == Some(w) => Some(*m),
                _ => self.pos.parse_uci(w.as_bytes()).ok(),
            });
            if let Some(first) = first {
                let at = super::Found {
                    elapsed: info.time.map(std::time::Duration::from_millis),
                    nodes: info.nodes,
                    depth: info.depth,
                };
                self.held.see(first, at);
                if self.latest_pvs.len() >= 8 {
                    self.latest_pvs.remove(0);
                }
                self.latest_pvs.push((first, info.pv.to_owned()));
            }
            if let (Some(score), false) = (info.score, info.bound) {
                self.exact.score = Some(score);
                self.exact_pv.clear();
                if first.is_some() {
                    if let Some((_, text)) = self.latest_pvs.last() {
                        self.exact_pv.push_str(text);
                    }
                }
                if info.depth.is_some() {
                    self.exact.depth = info.depth;
                }
                if info.seldepth.is_some() {
                    self.exact.seldepth = info.seldepth;
                }
            } else if info.score.is_none() && info.depth.is_some() && info.pv.is_empty() {
                // A progress line (`info depth 12 currmove ...`): nothing to keep.
            }
            return Ok(None);
        }
        let mut tokens = line.split_ascii_whitespace();
        if tokens.next() != Some("bestmove") {
            return Ok(None);
        }
        let text = tokens.next().unwrap_or("");
        let mut a = core::mem::take(&mut self.exact);
        a.pv = self.moves_of(&self.exact_pv);
        a.nodes = self.nodes;
        if !self.pos.has_legal_moves() {
            let none = Analysis::no_moves(&self.pos);
            return Ok(Some(Analysis { depth: a.depth, seldepth: a.seldepth, nodes: a.nodes, ..none }));
        }
        let best = match self.pos.parse_uci(text.as_bytes()) {
            Ok(m) => m,
            Err(_) => match a.pv.first().copied().or_else(|| self.latest_pvs.last().map(|(m, _)| *m)) {
                Some(m) => m,
                None => {
                    return Err(EngineError::Protocol {
                        line: line.to_owned(),
                        detail: "bestmove is not a legal move".into(),
                    })
                }
            },
        };
        if a.pv.first() != Some(&best) {
            a.pv = match self.latest_pvs.iter().rev().find(|(m, _)| *m == best) {
                Some((_, text)) => self.moves_of(text),
                None => vec![best],
            };
        }
        a.best = Some(best);
        a.found = self.held.found(a.best);
        // The other lines, in order of k, none starting with the best move.
        a.lines =
            core::mem::take(&mut self.others).into_iter().flatten().filter(|l| l.pv.first() != Some(&best)).collect();
        Ok(Some(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fen: &str, lines: &str) -> Result<Option<Analysis>, EngineError> {
        let pos: Position = fen.parse().unwrap();
        let mut s = SearchLines::new(pos);
        for l in lines.lines() {
            if let Some(a) = s.feed(l.trim())? {
                return Ok(Some(a));
            }
        }
        Ok(None)
    }

    fn san_line(fen: &str, pv: &[Move]) -> String {
        let mut pos: Position = fen.parse().unwrap();
        let mut out = Vec::new();
        for &m in pv {
            out.push(pos.san(m));
            pos.play_unchecked(m);
        }
        out.join(" ")
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn the_solution_time_is_where_the_final_move_began_to_hold() {
        // e4 leads, then d4 at depth 3 (time 40, nodes 900), then e4 again
        // from depth 4 (time 75, nodes 2000) to the end: e4 was found at
        // depth 4, not depth 1.
        let lines = "info depth 1 time 5 nodes 20 score cp 30 pv e2e4\n\
                     info depth 2 time 12 nodes 200 score cp 25 pv e2e4 e7e5\n\
                     info depth 3 time 40 nodes 900 score cp 28 pv d2d4 d7d5\n\
                     info depth 4 time 75 nodes 2000 score cp 31 pv e2e4 e7e5 g1f3\n\
                     info depth 5 time 140 nodes 5000 score cp 29 pv e2e4 c7c5\n\
                     bestmove e2e4";
        let a = run(START, lines).unwrap().unwrap();
        let f = a.found.unwrap();
        assert_eq!((f.elapsed, f.nodes, f.depth), (Some(Duration::from_millis(75)), Some(2000), Some(4)));
        // A best move no line led: no solution point.
        let a = run(START, "info depth 1 time 5 nodes 20 score cp 30 pv e2e4\nbestmove d2d4").unwrap().unwrap();
        assert_eq!(a.found, None);
    }

    #[test]
    fn info_lines_parse() {
        let i = UciInfo::parse(
            "info depth 20 seldepth 31 multipv 1 score cp -35 upperbound nodes 1234 nps 99 hashfull 3 tbhits 0 time 12 pv e2e4 e7e5",
        )
        .unwrap();
        assert_eq!(i.depth, Some(20));
        assert_eq!(i.seldepth, Some(31));
        assert_eq!(i.score, Some(Score::Centipawns(-35)));
        assert!(i.bound);
        assert_eq!(i.nodes, Some(1234));
        assert_eq!(i.pv, "e2e4 e7e5");
        let i = UciInfo::parse("info depth 5 score mate -3 pv a1a2").unwrap();
        assert_eq!(i.score, Some(Score::MatedIn(3)));
        assert!(!i.bound);
        let i = UciInfo::parse("info string NNUE evaluation using nn.nnue score cp 5").unwrap();
        assert_eq!(i.score, None);
        assert!(UciInfo::parse("bestmove e2e4").is_none());
        let i = UciInfo::parse("info score cp 12 wdl 400 300 300 pv d2d4").unwrap();
        assert_eq!(i.pv, "d2d4");
        // A pv ends at the next keyword, whatever it is; promotions, null
        // moves and odd words before it stay in the pv.
        for (line, pv) in [
            ("info pv e7e8q a1h8 depth 3", &["e7e8q", "a1h8"][..]),
            ("info pv e2e4 0000 currmove e2e4 currmovenumber 1", &["e2e4", "0000"]),
            ("info pv b7b8n cpuload 500", &["b7b8n"]),
            ("info pv e1g1 time 5 nodes 9", &["e1g1"]),
            ("info pv e2e4 xyz e7e5 nodes 9", &["e2e4", "xyz", "e7e5"]),
            ("info pv e2e4 string hello", &["e2e4"]),
        ] {
            assert_eq!(UciInfo::parse(line).unwrap().pv.split_ascii_whitespace().collect::<Vec<_>>(), pv, "{line}");
        }
    }

    #[test]
    fn a_game_one_move_on_appends_to_the_last_position_command() {
        let (config, log) = logging_engine("append", false, "a7a6");
        let mut engine = UciEngine::start(config).unwrap();
        let start = Position::startpos();
        let limits = Limits { depth: Some(1), ..Limits::default() };
        let stop = AtomicBool::new(false);
        let mut pos = start;
        let mut moves = Vec::new();
        for uci in ["e2e4", "a7a6", "g1f3"] {
            let m = pos.parse_uci(uci.as_bytes()).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        let _ = engine.play(&start, &moves[..1], &limits, &stop);
        let _ = engine.play(&start, &moves, &limits, &stop);
        // Another game, and the same game taken back: written afresh.
        let other: Position = "4k3/8/8/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let _ = engine.play(&other, &[], &limits, &stop);
        let _ = engine.play(&start, &moves[..2], &limits, &stop);
        // (Its bestmove is not legal everywhere: the engine is started
        // again then, and the commands still go to the same log.)
        drop(engine);
        let sent = std::fs::read_to_string(&log).unwrap();
        let positions: Vec<&str> = sent.lines().filter(|l| l.starts_with("position")).collect();
        // The standard start as `startpos`, as fastchess sends it.
        assert_eq!(
            positions,
            [
                "position startpos moves e2e4",
                "position startpos moves e2e4 a7a6 g1f3",
                "position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1",
                "position startpos moves e2e4 a7a6",
            ]
        );
    }

    #[test]
    fn bounds_are_ignored_and_the_last_exact_score_kept() {
        let a = run(
            START,
            "info depth 10 seldepth 14 score cp 30 nodes 500 pv e2e4 e7e5 g1f3\n\
             info depth 11 seldepth 15 score cp 80 lowerbound nodes 900 pv e2e4\n\
             info depth 11 seldepth 16 score cp 10 upperbound nodes 1000 pv e2e4\n\
             info depth 11 currmove d2d4 currmovenumber 2\n\
             info nodes 1200 time 20\n\
             bestmove e2e4 ponder e7e5",
        )
        .unwrap()
        .unwrap();
        assert_eq!(a.score, Some(Score::Centipawns(30)));
        assert_eq!(a.depth, Some(10));
        assert_eq!(a.seldepth, Some(14));
        assert_eq!(a.nodes, Some(1200));
        assert_eq!(san_line(START, &a.pv), "e4 e5 Nf3");
        assert_eq!(a.best, a.pv.first().copied());
    }

    #[test]
    fn mate_scores_become_ce_by_the_spec() {
        // Back-rank mate in one; mate in 1 is ce 32766 (§6.7: 32767 - 1).
        let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - -";
        let a = run(fen, "info depth 1 score mate 1 pv a1a8\nbestmove a1a8").unwrap().unwrap();
        assert_eq!(a.score.map(Score::to_ce), Some(32766));
        assert_eq!(san_line(fen, &a.pv), "Ra8#");
        // Mated in 2 (side to move): -32767 + 4.
        let a = run(START, "info depth 3 score mate -2 pv e2e4\nbestmove e2e4").unwrap().unwrap();
        assert_eq!(a.score.map(Score::to_ce), Some(-32763));
    }

    #[test]
    fn bestmove_none_in_checkmate_and_stalemate() {
        // Fool's mate: white is checkmated.
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq -";
        for reply in ["bestmove (none)", "bestmove 0000", "info depth 0 score mate 0\nbestmove (none)"] {
            let a = run(mated, reply).unwrap().unwrap();
            assert!(a.pv.is_empty());
            assert_eq!(a.best, None);
            assert_eq!(a.score.map(Score::to_ce), Some(-32767), "{reply}");
        }
        let stale = "7k/5Q2/6K1/8/8/8/8/8 b - -";
        let a = run(stale, "info depth 0 score cp 0\nbestmove (none)").unwrap().unwrap();
        assert!(a.pv.is_empty());
        assert_eq!(a.score, Some(Score::Centipawns(0)));
        // A null bestmove where moves exist is a protocol error without a pv.
        assert!(matches!(run(START, "bestmove (none)"), Err(EngineError::Protocol { .. })));
    }

    #[test]
    fn pv_stops_at_the_first_illegal_move() {
        // e7e5 twice: the second is illegal (white to move after e5).
        let a = run(START, "info depth 4 score cp 20 pv e2e4 e7e5 e7e5 g1f3\nbestmove e2e4").unwrap().unwrap();
        assert_eq!(san_line(START, &a.pv), "e4 e5");
        // Garbage at the head: empty exact pv, bestmove stands alone.
        let a = run(START, "info depth 4 score cp 20 pv e2e5 e7e5\nbestmove d2d4").unwrap().unwrap();
        assert_eq!(san_line(START, &a.pv), "d4");
    }

    #[test]
    fn bestmove_off_the_exact_pv_takes_a_pv_that_starts_with_it() {
        let a = run(
            START,
            "info depth 9 score cp 15 pv e2e4 e7e5\n\
             info depth 10 score cp 40 lowerbound pv d2d4 d7d5 c2c4\n\
             bestmove d2d4",
        )
        .unwrap()
        .unwrap();
        assert_eq!(a.score, Some(Score::Centipawns(15)));
        assert_eq!(san_line(START, &a.pv), "d4 d5 c4");
    }

    #[test]
    fn choices_are_read_from_check_and_combo_options() {
        let s = |v: &[&str]| Some(v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>());
        for (line, want) in [
            ("Ponder type check default false", s(&["false", "true"])),
            ("Style type combo default Normal var Solid var Normal var Risky", s(&["Solid", "Normal", "Risky"])),
            (
                "Book Mode type combo var Best Move var Random Weighted default Best Move",
                s(&["Best Move", "Random Weighted"]),
            ),
            ("Hash type spin default 16 min 1 max 4096", None),
            ("Empty type combo default x", None),
            ("Clear Hash type button", None),
        ] {
            assert_eq!(option_choices(line), want, "{line}");
        }
    }

    #[test]
    fn spin_ranges_are_read_from_spin_options_only() {
        assert_eq!(spin_range("Hash type spin default 16 min 1 max 4096"), Some((1, 4096)));
        assert_eq!(spin_range("Contempt type spin default 0 min -100 max 100"), Some((-100, 100)));
        assert_eq!(spin_range("Move Overhead type spin default 10 min 0 max 5000"), Some((0, 5000)));
        assert_eq!(spin_range("Ponder type check default false"), None);
        assert_eq!(spin_range("Bad type spin default 3"), None);
    }

    #[test]
    fn option_defaults_are_read_up_to_the_next_field() {
        for (line, want) in [
            ("Hash type spin default 16 min 1 max 33554432", Some("16")),
            ("UCI_Chess960 type check default false", Some("false")),
            ("Debug Log File type string default", None),
            ("Debug Log File type string default <empty>", Some("<empty>")),
            ("Style type combo default Normal var Solid var Normal", Some("Normal")),
            ("Clear Hash type button", None),
        ] {
            assert_eq!(option_default(line).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn go_commands() {
        assert_eq!(UciEngine::go_command(&Limits::movetime(Duration::from_millis(200))), "go movetime 200");
        assert_eq!(
            UciEngine::go_command(&Limits { depth: Some(8), nodes: Some(1000), ..Limits::default() }),
            "go depth 8 nodes 1000"
        );
        assert_eq!(
            UciEngine::go_command(&Limits {
                mate: Some(2),
                movetime: Some(Duration::from_millis(500)),
                ..Limits::default()
            }),
            "go movetime 500 mate 2"
        );
        assert_eq!(UciEngine::go_command(&Limits::default()), "go infinite");
    }
    /// A shell engine that logs what it hears, declares `UCI_Chess960`
    /// when `declares`, and answers every `go` with `bestmove BEST`.
    #[cfg(unix)]
    fn logging_engine(name: &str, declares: bool, best: &str) -> (UciConfig, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("epdkit-uci-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("heard");
        let option = if declares { "echo 'option name UCI_Chess960 type check default false'; " } else { "" };
        let script = format!(
            "while read -r line; do echo \"$line\" >> '{}'; case \"$line\" in \
             uci) {option}echo uciok;; isready) echo readyok;; go*) echo 'bestmove {best}';; quit) exit 0;; esac; done\n",
            log.display()
        );
        let _ = std::fs::remove_file(&log);
        (UciConfig { args: vec!["-c".into(), script], ..UciConfig::new("/bin/sh") }, log)
    }

    /// `traffic` hears every line each way as it goes, the handshake
    /// first, in order.
    #[test]
    fn the_traffic_observer_hears_each_line_each_way() {
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let h = std::sync::Arc::clone(&heard);
        let script = "while read -r line; do case \"$line\" in uci) echo 'id name T'; echo uciok;; \
                      isready) echo readyok;; go*) echo 'bestmove e2e4';; quit) exit 0;; esac; done";
        let config = UciConfig {
            args: vec!["-c".into(), script.into()],
            options: Vec::new(),
            traffic: Some(Traffic(std::sync::Arc::new(move |way, line| {
                h.lock().unwrap().push((way, line.to_owned()));
            }))),
            ..UciConfig::new("/bin/sh")
        };
        let mut e = UciEngine::start(config).unwrap();
        let limits = Limits { depth: Some(1), ..Limits::default() };
        e.analyze(&Position::startpos(), &limits, &AtomicBool::new(false)).unwrap();
        let heard = heard.lock().unwrap().clone();
        let (to, from) = (Direction::ToEngine, Direction::FromEngine);
        let want_start = [(to, "uci"), (from, "id name T"), (from, "uciok"), (to, "isready"), (from, "readyok")];
        let got: Vec<(Direction, &str)> = heard.iter().map(|(w, l)| (*w, l.as_str())).collect();
        assert_eq!(&got[..5], &want_start, "{got:?}");
        assert!(got.contains(&(to, "go depth 1")) && got.ends_with(&[(from, "bestmove e2e4")]), "{got:?}");
    }

    /// `cpus` pins the engine before its program runs: it sees only the
    /// CPU given (its `id name` here is its own Cpus_allowed_list); a CPU
    /// the machine lacks fails the start.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_engine_pinned_to_a_cpu_runs_only_there() {
        let script = "while read -r line; do case \"$line\" in uci) echo \"id name $(grep Cpus_allowed_list \
                      /proc/self/status | cut -f2)\"; echo uciok;; isready) echo readyok;; quit) exit 0;; esac; done";
        let config = UciConfig { args: vec!["-c".into(), script.into()], ..UciConfig::new("/bin/sh") };
        let free = UciEngine::start(config.clone()).unwrap();
        let last = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) - 1;
        if last > 0 {
            assert_ne!(free.name(), last.to_string(), "unpinned, it may use every CPU");
        }
        let pinned = UciEngine::start(UciConfig { cpus: vec![last], ..config.clone() }).unwrap();
        assert_eq!(pinned.name(), last.to_string());
        assert!(UciEngine::start(UciConfig { cpus: vec![1000], ..config }).is_err(), "no CPU 1000 here");
    }

    /// `pin_this_thread` pins the calling thread only (the built-in
    /// engine's slot in `epd play --instances`), and refuses a CPU the
    /// machine lacks.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_pinned_to_a_cpu_runs_only_there() {
        let allowed = || {
            let s = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            s.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_owned()
        };
        let before = allowed();
        let last = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) - 1;
        let (pinned, refused) = std::thread::spawn(move || {
            pin_this_thread(&[last]).unwrap();
            (allowed(), pin_this_thread(&[1000]).is_err())
        })
        .join()
        .unwrap();
        assert_eq!(pinned, last.to_string());
        assert!(refused, "no CPU 1000 here");
        assert_eq!(allowed(), before, "the calling thread only");
    }

    /// MultiPV: set before a search only when the limits ask for another
    /// number of lines than the engine has, counting the handshake's
    /// options; never to an engine that does not declare it.
    #[cfg(unix)]
    #[test]
    fn multipv_is_set_when_the_limits_change_it() {
        let stop = AtomicBool::new(false);
        let pos = Position::startpos();
        let lines = |log: &std::path::Path| -> Vec<String> {
            let heard = std::fs::read_to_string(log).unwrap();
            heard.lines().filter(|l| l.starts_with("setoption") || l.starts_with("go")).map(str::to_owned).collect()
        };
        for (declares, given, want) in [
            (
                true,
                None,
                &[
                    "go depth 1",
                    "setoption name MultiPV value 3",
                    "go depth 1",
                    "go depth 1",
                    "setoption name MultiPV value 1",
                    "go depth 1 mate 2",
                ][..],
            ),
            (
                true,
                Some("3"),
                &[
                    "setoption name MultiPV value 3",
                    "setoption name MultiPV value 1",
                    "go depth 1",
                    "setoption name MultiPV value 3",
                    "go depth 1",
                    "go depth 1",
                    "setoption name MultiPV value 1",
                    "go depth 1 mate 2",
                ],
            ),
            (false, None, &["go depth 1", "go depth 1", "go depth 1", "go depth 1 mate 2"]),
        ] {
            let name = format!("multipv-{declares}-{}", given.unwrap_or("none"));
            let (mut config, log) = logging_engine(&name, false, "e2e4");
            if declares {
                let script = &mut config.args[1];
                *script =
                    script.replace("uci) ", "uci) echo 'option name MultiPV type spin default 1 min 1 max 500'; ");
            }
            if let Some(v) = given {
                config.options.push(("MultiPV".into(), v.into()));
            }
            let mut engine = UciEngine::start(config).unwrap();
            for (multipv, mate) in [(1, None), (3, None), (3, None), (1, Some(2))] {
                let limits = Limits { depth: Some(1), multipv, mate, ..Limits::default() };
                engine.analyze(&pos, &limits, &stop).unwrap();
            }
            drop(engine);
            assert_eq!(lines(&log), want, "declares {declares}, given {given:?}");
        }
    }

    /// Chess960: `UCI_Chess960` is set, castling goes out king-takes-rook
    /// even where the king and rooks stand as in standard chess, and the
    /// engine's king-takes-rook castling comes back as the castle; an
    /// engine without the option is refused.
    #[cfg(unix)]
    #[test]
    fn chess960_sets_the_option_and_writes_king_takes_rook() {
        let start: Position = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1".parse().unwrap();
        let castle = start.parse_uci(b"e1g1").unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits { depth: Some(1), ..Limits::default() };

        let (config, log) = logging_engine("960", true, "e8h8");
        let mut engine = UciEngine::start(config).unwrap();
        let a = engine.play(&start, &[castle], &limits, &stop).unwrap();
        engine.set_chess960(true).unwrap();
        let b = engine.play(&start, &[castle], &limits, &stop).unwrap();
        drop(engine);
        let heard = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> =
            heard.lines().filter(|l| l.starts_with("position") || l.starts_with("setoption")).collect();
        assert_eq!(
            lines,
            [
                "position fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 moves e1g1",
                "setoption name UCI_Chess960 value true",
                "position fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 moves e1h1",
            ]
        );
        let mut after = start;
        after.play_unchecked(castle);
        for analysis in [a, b] {
            assert!(analysis.best.is_some_and(Move::is_castle), "e8h8 is Black's castle: {:?}", analysis.best);
            assert_eq!(after.san(analysis.best.unwrap()), "O-O");
        }

        let (config, _) = logging_engine("no960", false, "e8g8");
        let refused = UciEngine::start(UciConfig { chess960: true, ..config.clone() }).map(|_| ()).unwrap_err();
        assert!(refused.to_string().contains("UCI_Chess960"), "{refused}");
        let mut plain = UciEngine::start(config).unwrap();
        let refused = plain.set_chess960(true).unwrap_err();
        assert!(refused.to_string().contains("UCI_Chess960"), "{refused}");
        let _ = std::fs::remove_dir_all(log.parent().unwrap());
    }
}
