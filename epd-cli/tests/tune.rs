//! `epd tune` as a user runs it: parameters checked against the engine's
//! own options before anything is played, a short real run against
//! Stockfish's Skill Level (a parameter whose better value is known: the
//! higher), and the run's directory guarded and resumed.

use std::path::Path;
use std::process::{Command, Output};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

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
        ("Clear Hash,1,0,1,1,0.1", "Clear Hash: is not a spin, check or combo option"),
        ("UCI_Chess960,1,0,2,1,0.1", "UCI_Chess960: the range 0..2 is outside its choices' indices 0..1 (false, true)"),
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
    let Some(sf) = epd_testkit::stockfish() else { return };
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

/// The first twelve WAC records, as a suite file in `dir`.
fn wac12(dir: &Path) -> std::path::PathBuf {
    let text = String::from_utf8(epd_testkit::corpus("wacnew.epd")).unwrap();
    let lines: Vec<&str> = text.lines().take(12).collect();
    let p = dir.join("wac12.epd");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// `epd report --format json`'s objective of a results file.
fn report_objective(file: &Path) -> (String, f64) {
    let out = Command::new(EPD).args(["report", "--format", "json"]).arg(file).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["objective"]["name"].as_str().unwrap().to_owned(), v["objective"]["value"].as_f64().unwrap())
}

#[test]
fn a_suite_without_bm_or_am_is_refused() {
    let dir = temp("nokey");
    std::fs::write(
        dir.join("positions.epd"),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";\n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - ce 30;\n",
    )
    .unwrap();
    let out = tune(
        &dir,
        &["--engine", EPD, "--engine-arg", "uci", "--param", "MobilityWeight,100,0,400,20,0.05"]
            .into_iter()
            .chain(["--suite", "positions.epd", "--nodes", "100"])
            .collect::<Vec<_>>(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("positions.epd: no record has bm or am, so no move can be judged"), "{err}");
    assert!(!dir.join("tune").exists(), "nothing is written for a refused run");
    // Flags of the other objective are refused with it.
    let out = tune(
        &dir,
        &["--engine", EPD, "--engine-arg", "uci", "--param", "MobilityWeight,100,0,400,20,0.05", "--suite", "x.epd"]
            .into_iter()
            .chain(["--tc", "1+0.01"])
            .collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A suite run with the built-in engine: each iteration's sample and both
/// results are kept, and the history's objectives are those `epd report`
/// gives on the results files.
#[test]
fn a_suite_run_scores_each_probe_as_the_report_does() {
    let dir = temp("suite");
    wac12(&dir);
    let args = [
        "--engine",
        EPD,
        "--engine-arg",
        "uci",
        "--param",
        "MobilityWeight,100,0,400,20,0.05",
        "--param",
        "FutilityMargin,110,0,1000,30,0.05",
        "--suite",
        "wac12.epd",
        "--sample",
        "8",
        "--iterations",
        "3",
        "--nodes",
        "3000",
        "--concurrency",
        "2",
        "--dir",
        "run",
    ];
    let out = tune(&dir, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("wac12.epd: 12 records with bm or am"), "{err}");
    assert!(err.contains("iteration 3/3: solved_percent "), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("MobilityWeight=") && stdout.contains("\nFutilityMargin="), "{stdout}");
    let csv = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "iteration,k,solved_percent+,solved_percent-,result,\
         MobilityWeight,MobilityWeight+,MobilityWeight-,c(MobilityWeight),a(MobilityWeight),before(MobilityWeight),\
         FutilityMargin,FutilityMargin+,FutilityMargin-,c(FutilityMargin),a(FutilityMargin),before(FutilityMargin)"
    );
    let suite = std::fs::read_to_string(dir.join("wac12.epd")).unwrap();
    let mut rows = 0;
    for (i, line) in lines.enumerate() {
        rows += 1;
        let f: Vec<f64> = line.split(',').map(|v| v.parse().unwrap()).collect();
        let it = dir.join(format!("run/iterations/{:06}", i + 1));
        let sample = std::fs::read_to_string(it.join("suite.epd")).unwrap();
        assert_eq!(sample.lines().count(), 8);
        assert!(sample.lines().all(|l| suite.lines().any(|s| s == l)), "the sample is the suite's: {sample}");
        let (name_plus, plus) = report_objective(&it.join("plus.epd"));
        let (_, minus) = report_objective(&it.join("minus.epd"));
        assert_eq!(name_plus, "solved_percent");
        assert!((f[2] - plus).abs() < 1e-9 && (f[3] - minus).abs() < 1e-9, "{line}: report {plus} {minus}");
        assert!((f[4] - (plus - minus)).abs() < 1e-9, "{line}");
        // Both probes searched the sample's records, in its order.
        let ids = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| l.split("id \"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("").to_owned())
                .collect()
        };
        for probe in ["plus.epd", "minus.epd"] {
            assert_eq!(ids(&std::fs::read_to_string(it.join(probe)).unwrap()), ids(&sample), "{probe}");
        }
    }
    assert_eq!(rows, 3, "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that dies in the middle of an iteration's searches (on one
/// record, as an engine that answers `bestmove (none)` at a node limit
/// fails on the same record every time): the record is skipped in both
/// probes and the run goes on, saying so; the history has every
/// iteration once.
#[test]
fn a_record_the_engine_fails_on_is_skipped_in_both_probes() {
    let dir = temp("crash");
    wac12(&dir);
    // The second start of the engine (the first is the options' check)
    // stops after its first search; every other start is `epd uci`.
    let script = dir.join("flaky.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nn=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n\
             if [ \"$n\" = 2 ]; then\n\
             while read -r l; do echo \"$l\"; case \"$l\" in go*) exit 0;; esac; done | '{EPD}' uci\n\
             else exec '{EPD}' uci; fi\n"
        ),
    )
    .unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    let args = [
        "--engine",
        script.to_str().unwrap(),
        "--param",
        "MobilityWeight,100,0,400,20,0.05",
        "--suite",
        "wac12.epd",
        "--sample",
        "4",
        "--iterations",
        "2",
        "--nodes",
        "1000",
        "--concurrency",
        "1",
        "--dir",
        "run",
    ];
    let out = tune(&dir, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The record it failed on is left out of both probes' scores, as
    // `epd target` writes it and goes on; the run says so, and keeps the
    // list beside the iteration.
    assert!(err.contains("on 3 positions (1 skipped: the engine failed on them)"), "{err}");
    assert!(!err.contains("playing it again"), "{err}");
    let skipped = std::fs::read_to_string(dir.join("run/iterations/000001/skipped.txt")).unwrap();
    assert_eq!(skipped.lines().count(), 1, "{skipped}");
    assert!(skipped.contains("\tθ⁺: "), "{skipped}");
    let history = std::fs::read_to_string(dir.join("run/history.jsonl")).unwrap();
    assert!(history.lines().next().unwrap().contains("\"skipped\":1"), "{history}");
    let csv = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let iterations: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(iterations, ["1", "2"], "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}
