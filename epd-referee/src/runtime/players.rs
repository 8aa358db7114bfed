//! The players the referee starts (`command` in the event file): each
//! instance kept running until the event is over, started again after a
//! growing pause when it exits early.
//!
//! They are the referee's own: on Linux each is started with a death
//! signal (`PR_SET_PDEATHSIG`), so a referee killed with SIGKILL takes its
//! players with it and a resumed referee starts exactly the event's
//! instances, never a second set beside stray ones. A player's standard
//! error is kept (its last lines go to the log when it exits early) and,
//! when the referee is verbose, shown as it comes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use super::Inbox;
use crate::director::Input;

/// Lines of a player's standard error kept for the log.
const LAST_WORDS: usize = 8;

/// A player's last lines on standard error.
pub(super) type LastWords = Arc<Mutex<VecDeque<String>>>;

/// The environment variable that carries a player's token to the
/// program the referee starts (`epd play` reads it): a command line is
/// visible to every user of the machine, an environment only to its
/// owner.
pub const TOKEN_VARIABLE: &str = "EPD_TOKEN";

/// How a player's program is started.
#[derive(Clone, Debug)]
pub(super) struct Launch {
    /// The program.
    pub(super) program: String,
    /// Its arguments (the referee's address and the player's name added).
    pub(super) args: Vec<String>,
    /// The player's token, put in [`TOKEN_VARIABLE`], never in `args`.
    pub(super) token: Option<String>,
}

/// Starts one instance of a player's program.
pub(super) fn spawn_player(
    launch: &Launch,
    who: &str,
    verbose: bool,
    words: &LastWords,
) -> std::io::Result<tokio::process::Child> {
    let mut c = tokio::process::Command::new(&launch.program);
    match &launch.token {
        Some(t) => c.env(TOKEN_VARIABLE, t),
        // Not the referee's own, if it has one.
        None => c.env_remove(TOKEN_VARIABLE),
    };
    c.args(&launch.args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the closure runs in the child between fork and exec, and
        // only makes async-signal-safe calls (prctl, getppid, _exit).
        let parent = std::process::id();
        unsafe {
            c.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The referee died before the signal was armed.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    let mut child = c.spawn()?;
    if let Some(err) = child.stderr.take() {
        let (words, who) = (Arc::clone(words), who.to_owned());
        words.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(err).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if verbose {
                    eprintln!("player {who}: {line}");
                }
                let mut w = words.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if w.len() == LAST_WORDS {
                    w.pop_front();
                }
                w.push_back(line.chars().take(500).collect());
            }
        });
    }
    Ok(child)
}

/// Keeps one player program running until the event is over: when it
/// exits early it is started again after a pause (1 s, doubling up to
/// 30 s while it keeps failing within a minute); the log gets its exit
/// status and its last lines on standard error. At the end it has two
/// seconds to leave on its own, then it is stopped.
#[allow(clippy::too_many_arguments)]
pub(super) async fn keep_player(
    mut child: tokio::process::Child,
    words: LastWords,
    launch: Launch,
    who: String,
    verbose: bool,
    inbox: mpsc::Sender<Inbox>,
    mut over: tokio::sync::watch::Receiver<bool>,
) {
    let mut pause = Duration::from_secs(1);
    loop {
        let started = Instant::now();
        tokio::select! {
            status = child.wait() => {
                if *over.borrow() {
                    return;
                }
                let how = status.map_or_else(|e| e.to_string(), |s| s.to_string());
                // The reader may still hold the last lines: a moment for it.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let last: Vec<String> =
                    words.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect();
                let said = if last.is_empty() { String::new() } else { format!("; its last words: {}", last.join(" | ")) };
                let _ = inbox.send(Inbox::Input(Input::Note(format!(
                    "player {who} exited ({how}); starting it again in {:.0} s{said}", pause.as_secs_f64()
                )))).await;
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    _ = over.changed() => return,
                }
                pause = if started.elapsed() > Duration::from_secs(60) {
                    Duration::from_secs(1)
                } else {
                    (pause * 2).min(Duration::from_secs(30))
                };
                match spawn_player(&launch, &who, verbose, &words) {
                    Ok(c) => child = c,
                    Err(e) => {
                        let note = format!("player {who}: cannot start {}: {e}", launch.program);
                        let _ = inbox.send(Inbox::Input(Input::Note(note))).await;
                        return;
                    }
                }
            }
            _ = over.changed() => {
                if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                    let _ = child.kill().await;
                }
                return;
            }
        }
    }
}
