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

/// A fastchess option `epd match` lacks is named as typed (clap alone
/// said "unexpected argument '-r'" for `-report`), and each file option
/// lists its own keys.
#[test]
fn unknown_options_and_keys_are_named_as_typed() {
    for (args, want) in [
        (vec!["-report", "penta=true"], "epd match: -report is not an option of epd match"),
        (vec!["-log", "file=x", "compress=true"], "-log: compress=true is not supported; it takes file=NAME [level="),
        (vec!["-pgnout", "file=x", "level=info"], "-pgnout: level=info is not supported; it takes file=NAME [append"),
        (
            vec!["-epdout", "file=x", "notation=san"],
            "-epdout: notation=san is not supported; it takes file=NAME [append",
        ),
    ] {
        let out = Command::new(EPD)
            .args(["match", "-engine", "cmd=a", "-engine", "cmd=b", "-each", "depth=1"])
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
