//! `epd tune` as a user runs it: parameters checked against the engine's
//! own options before anything is played, a short real run against
//! Stockfish's Skill Level (a parameter whose better value is known: the
//! higher), and the run's directory guarded and resumed.

use std::path::Path;
use std::process::{Command, Output};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn stockfish() -> Option<&'static str> {
    let p = "/usr/games/stockfish";
    if Path::new(p).is_file() {
        return Some(p);
    }
    assert!(std::env::var_os("EPDKIT_REQUIRE_STOCKFISH").is_none(), "stockfish is required but missing");
    None
}

fn tune(dir: &Path, args: &[&str]) -> Output {
    Command::new(EPD).arg("tune").args(args).current_dir(dir).output().unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("epd-tune-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The built-in engine declares Hash (spin 1..4096), Clear Hash (button),
/// Threads, Move Overhead and UCI_Chess960 (check).
#[test]
fn parameters_that_do_not_fit_the_engine_are_refused_before_any_game() {
    let dir = temp("bad");
    for (param, want) in [
        ("Nope,1,0,2,1,0.1", "Nope: is not an option of it (the engine declares: Hash, Clear Hash, Threads"),
        ("Hash,16,0,8000,1,0.1", "Hash: the range 0..8000 is outside the option's 1..4096"),
        ("UCI_Chess960,1,0,1,1,0.1", "UCI_Chess960: is not a spin option"),
        ("Hash,16,1,64", "expected NAME,START,MIN,MAX,C_END,R_END"),
        ("Hash,99,1,64,4,0.1", "the value 99 is outside its range 1..64"),
    ] {
        let out = tune(&dir, &["--engine", EPD, "--engine-arg", "uci", "--param", param, "--pairs", "2"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{param}: {err}");
        assert!(err.contains(want), "{param}: {err}");
        assert!(!dir.join("tune").exists(), "nothing is written for a refused run");
    }
    let out =
        tune(&dir, &["--engine", EPD, "--engine-arg", "uci", "--option", "Nope=3", "--param", "Hash,16,1,64,4,0.1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the engine has no option \"Nope\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_short_run_climbs_skill_level_and_resumes() {
    let Some(sf) = stockfish() else { return };
    let dir = temp("skill");
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n",
    )
    .unwrap();
    let args = [
        "--engine",
        sf,
        "--option",
        "Hash=16",
        "--param",
        "Skill Level,2,0,20,3,0.05",
        "--pairs",
        "4",
        "--tc",
        "1+0.01",
        "--openings",
        "book.epd",
        "--dir",
        "run",
    ];
    let out = tune(&dir, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value: i64 = stdout.trim().strip_prefix("Skill Level=").unwrap_or_else(|| panic!("{stdout}")).parse().unwrap();
    assert!((0..=20).contains(&value));
    assert!(err.contains("iteration 2 (pairs 4/4)"), "{err}");
    let csv = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "iteration,k,wins,draws,losses,result,Skill Level,Skill Level+,Skill Level-,c(Skill Level),a(Skill Level),before(Skill Level)"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for r in &rows {
        let games: u32 = r[2..5].iter().map(|v| v.parse::<u32>().unwrap()).sum();
        assert_eq!(games, 4, "two pairs per iteration: {r:?}");
        // Each iteration's PGN is kept and read by its results.
    }
    assert!(dir.join("run/iterations/000002/games.pgn").is_file());
    // The last value printed is the state's, rounded.
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run/tune.json")).unwrap()).unwrap();
    let theta = state["params"][0]["value"].as_f64().unwrap();
    assert_eq!(theta.round() as i64, value);
    assert_eq!(state["k"], 4);
    // The directory is not overwritten; --resume goes on (here: nothing
    // left) and prints the same values.
    let again = tune(&dir, &args);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists: go on with --resume"));
    let mut resumed: Vec<&str> = args.to_vec();
    resumed.push("--resume");
    let out = tune(&dir, &resumed);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout);
    let _ = std::fs::remove_dir_all(&dir);
}
