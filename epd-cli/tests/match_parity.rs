//! `epd match` where it mirrors fastchess off the common path (the
//! statistics are checked against fastchess's own sources in
//! epd-referee/tests/fastchess_stats.rs, adjudication in
//! epd-referee/tests/director.rs).

use std::process::Command;
use std::time::{Duration, Instant};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

/// An option value outside the engine's declared range stops the match
/// before the first game, naming the option, the value and the range
/// (fastchess: the engine was sent `Hash 0` and aborted, reported as a
/// crash).
#[test]
fn option_values_are_checked_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &format!("cmd={EPD}"), "args=uci", "name=a", "option.Hash=0"])
        .args(["-engine", &format!("cmd={EPD}"), "args=uci", "name=b", "-each", "depth=1", "-rounds", "1"])
        .args(["-pgnout", "file=games.pgn"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("player a: "), "{err}");
    assert!(err.contains("option Hash: \"0\" is not a whole number from 1 to 4096"), "{err}");
    assert!(!dir.path().join("games.pgn").exists(), "no game was played");
    // Generous: starting two engines takes milliseconds.
    assert!(started.elapsed() < Duration::from_secs(30));
}
