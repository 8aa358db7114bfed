//! The players the referee starts (`command` in the event file): each
//! instance kept running until the event is over, started again after a
//! growing pause when it exits early.

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::Inbox;
use crate::director::Input;

pub(super) fn spawn_player(program: &str, args: &[String], verbose: bool) -> std::io::Result<tokio::process::Child> {
    let mut c = tokio::process::Command::new(program);
    c.args(args).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).kill_on_drop(true);
    if !verbose {
        c.stderr(std::process::Stdio::null());
    }
    c.spawn()
}

/// Keeps one player program running until the event is over: when it
/// exits early it is started again after a pause (1 s, doubling up to
/// 30 s while it keeps failing within a minute). At the end it has two
/// seconds to leave on its own, then it is stopped.
pub(super) async fn keep_player(
    mut child: tokio::process::Child,
    program: String,
    args: Vec<String>,
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
                let _ = inbox.send(Inbox::Input(Input::Note(format!(
                    "player {who} exited ({how}); starting it again in {:.0} s", pause.as_secs_f64()
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
                match spawn_player(&program, &args, verbose) {
                    Ok(c) => child = c,
                    Err(e) => {
                        let _ = inbox.send(Inbox::Input(Input::Note(format!("player {who}: cannot start {program}: {e}")))).await;
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
