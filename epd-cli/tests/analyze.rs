//! `epd analyze` and `epd target` driving real engine processes: fake UCI
//! engines that crash or hang (tests/fixtures/fake_uci.sh), Stockfish, and
//! the built-in engine through `epd uci`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn fixture(name: &str) -> String {
    format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn epd_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(EPD)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run epd");
    // The command may exit before reading its input (an engine that cannot
    // start): a closed pipe is then expected, any other error is not.
    if let Err(e) = child.stdin.take().expect("stdin").write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("wait")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value of `opcode` in a canonical record line (`None` if absent).
fn op<'a>(line: &'a str, opcode: &str) -> Option<&'a str> {
    let ops = &line[line.match_indices(' ').nth(3).map_or(line.len(), |(i, _)| i)..];
    ops.split(';').map(str::trim).find_map(|o| {
        if o == opcode {
            Some("")
        } else {
            o.strip_prefix(opcode).and_then(|rest| rest.strip_prefix(' '))
        }
    })
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3";

fn fault_input() -> String {
    format!("{START} id \"a\";\n{AFTER_E4} id \"b\";\n{START} id \"c\";\n")
}

#[test]
fn a_crashed_engine_is_restarted_and_the_fault_recorded_on_its_record() {
    let o = epd_stdin(
        &["analyze", "--engine", &fixture("fake_uci.sh"), "--engine-arg", "crash", "--movetime", "50"],
        fault_input().as_bytes(),
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("{START} ce 7; id \"a\"; pm e4; pv e4;"));
    // The crashed record: written unchanged (canonical), no analysis.
    assert_eq!(lines[1], format!("{AFTER_E4} id \"b\";"));
    // The engine was restarted for the next record.
    assert_eq!(lines[2], format!("{START} ce 7; id \"c\"; pm e4; pv e4;"));
    assert!(err.contains("<stdin>:2:1: error[E034]: fake-crash: engine crashed"), "{err}");
    assert!(!err.contains("<stdin>:1:") && !err.contains("<stdin>:3:"), "{err}");
    assert!(err.contains("1 engine faults"), "{err}");
}

#[test]
fn a_hung_engine_is_killed_after_the_limit_and_grace() {
    let start = Instant::now();
    let o = epd_stdin(
        &["target", "--engine", &fixture("fake_uci.sh"), "--engine-arg", "hang", "--movetime", "50", "--grace", "300"],
        format!("{START} bm e4; id \"a\";\n{AFTER_E4} bm e5; id \"b\";\n{START} bm d4; id \"c\";\n").as_bytes(),
    );
    let elapsed = start.elapsed();
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{START} bm e4; ce 7; id \"a\"; pm e4; pv e4;"));
    assert_eq!(lines[1], format!("{AFTER_E4} bm e5; id \"b\";"));
    assert_eq!(lines[2], format!("{START} bm d4; ce 7; id \"c\"; pm e4; pv e4;"));
    assert!(err.contains("<stdin>:2:1: error[E034]: fake-hang: engine hung: no bestmove"), "{err}");
    // One solved (a), one missed (c: e4 is not d4); b is a fault, not scored.
    assert!(err.contains("<stdin>: 1/2 solved, 1 missed"), "{err}");
    // 50 ms + 300 ms until stop, 300 ms more until the kill.
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
}

#[test]
fn an_engine_that_cannot_start_is_a_failure() {
    let o = epd_stdin(&["analyze", "--engine", "/nonexistent/engine", "--movetime", "10"], START.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "epd: error: engine /nonexistent/engine: cannot run /nonexistent/engine: No such file or directory\n"
    );
    let o = epd_stdin(
        &["analyze", "--engine", &fixture("fake_uci.sh"), "--option", "Threads", "--movetime", "10"],
        START.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("expected NAME=VALUE"), "{}", text(&o.stderr));
    // An option the engine does not declare: refused, not ignored (it used
    // to be sent, and silently dropped by the engine).
    let o = epd_stdin(
        &["analyze", "--engine", &fixture("fake_uci.sh"), "--option", "Nope=1", "--movetime", "10"],
        START.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("the engine has no option \"Nope\" (it declares: "), "{}", text(&o.stderr));
}

/// Every analysed record has a legal pv (checked by `epd check`), pm equal
/// to pv's first move (check's E012), and ce in range.
fn assert_analysis_valid(out: &str, expected_records: usize) {
    let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), expected_records, "{out}");
    for l in &lines {
        let pv = op(l, "pv").unwrap_or_else(|| panic!("no pv: {l}"));
        let ce: i64 = op(l, "ce").unwrap_or_else(|| panic!("no ce: {l}")).parse().expect("ce integer");
        assert!((-32767..=32766).contains(&ce), "{l}");
        match op(l, "pm") {
            Some(pm) => assert_eq!(pv.split(' ').next(), Some(pm), "{l}"),
            None => assert_eq!(pv, "", "{l}"),
        }
    }
    let check = epd_stdin(&["check", "-"], out.as_bytes());
    assert_eq!(check.status.code(), Some(0), "epd check: {}", text(&check.stderr));
}

fn engine_args(engine: &Path) -> Vec<String> {
    vec!["--engine".into(), engine.to_string_lossy().into_owned()]
}

#[test]
fn stockfish_analysis_passes_check_and_jobs_keep_order() {
    let Some(sf) = epd_testkit::stockfish().map(PathBuf::from) else { return };
    let input = std::fs::read(fixture("wac-first20.epd")).expect("fixture");
    let mut args: Vec<String> = vec!["analyze".into()];
    args.extend(engine_args(&sf));
    args.extend(["--nodes", "20000", "--sm", "--counters", "-q"].map(String::from));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let one = epd_stdin(&argv, &input);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_analysis_valid(&text(&one.stdout), 20);
    for l in text(&one.stdout).lines() {
        assert_eq!(op(l, "sm"), op(l, "pm"), "{l}");
        assert!(op(l, "acn").is_some() && op(l, "acd").is_some() && op(l, "acs").is_some(), "{l}");
    }
    // A node limit, one thread and ucinewgame per record: Stockfish is
    // deterministic, so two engines give the same records in the same order.
    let mut argv2 = argv.clone();
    argv2.extend(["--jobs", "2"]);
    let two = epd_stdin(&argv2, &input);
    assert_eq!(two.status.code(), Some(0), "{}", text(&two.stderr));
    assert_eq!(text(&two.stdout), text(&one.stdout));
    // WAC.001: Qg6 mates in 2 (`epd mate -n 3` proves dm 2 with pv Qg6 fxg6
    // Nxg6#), so ce = 32767 - (2*2 - 1) by §6.7.
    let first = text(&one.stdout).lines().next().map(str::to_owned).unwrap_or_default();
    assert_eq!(op(&first, "pm"), Some("Qg6"), "{first}");
    assert_eq!(op(&first, "ce"), Some("32764"), "{first}");
}

#[test]
fn stockfish_bestmove_none_gives_empty_pv_and_mate_or_draw_score() {
    let Some(sf) = epd_testkit::stockfish().map(PathBuf::from) else { return };
    // Fool's mate (White checkmated) and a queen stalemate (Black to move).
    let input = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - id \"mated\"; pm Qe2;\n\
                 7k/5Q2/6K1/8/8/8/8/8 b - - id \"stalemate\";\n";
    let mut args: Vec<String> = vec!["analyze".into()];
    args.extend(engine_args(&sf));
    args.extend(["--movetime", "100", "--sm"].map(String::from));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    // pm Qe2 is illegal in a checkmate: the first record is invalid input.
    let o = epd_stdin(&argv, input.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let input = input.replace(" pm Qe2;", "");
    let o = epd_stdin(&argv, input.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - ce -32767; id \"mated\"; pv;");
    assert_eq!(lines[1], "7k/5Q2/6K1/8/8/8/8/8 b - - ce 0; id \"stalemate\"; pv;");
    assert_analysis_valid(&out, 2);
}

#[test]
fn stockfish_target_counts_solved_by_bm_and_am() {
    let Some(sf) = epd_testkit::stockfish().map(PathBuf::from) else { return };
    let input = std::fs::read(fixture("wac-first20.epd")).expect("fixture");
    let mut args: Vec<String> = vec!["target".into()];
    args.extend(engine_args(&sf));
    args.extend(["--nodes", "50000", "--jobs", "2"].map(String::from));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = epd_stdin(&argv, &input);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    // Count by hand from the records: pm among the bm moves.
    let solved = out
        .lines()
        .filter(|l| {
            let pm = op(l, "pm").expect("pm");
            op(l, "bm").is_some_and(|bm| bm.split(' ').any(|m| m == pm))
        })
        .count();
    assert!(solved >= 15, "Stockfish at 50k nodes solves most of WAC 1-20: {solved}\n{out}");
    assert!(err.contains(&format!("<stdin>: {solved}/20 solved, {} missed", 20 - solved)), "{err}");
}

#[test]
fn the_builtin_engine_is_the_default_and_its_output_passes_check() {
    let input = std::fs::read(fixture("wac-first20.epd")).expect("fixture");
    let one = epd_stdin(&["analyze", "--depth", "8", "--counters", "-q"], &input);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_analysis_valid(&text(&one.stdout), 20);
    // WAC.001 is a mate in 2 (proven by `epd mate`): ce 32764, pm Qg6 (the
    // built-in search needs depth 8 to see it: Qg6 is a quiet sacrifice).
    let first = text(&one.stdout).lines().next().map(str::to_owned).unwrap_or_default();
    assert_eq!((op(&first, "pm"), op(&first, "ce")), (Some("Qg6"), Some("32764")), "{first}");
    // A depth limit and a cleared table per record: the same records with two engines.
    let two = epd_stdin(&["analyze", "--depth", "8", "--counters", "-q", "--jobs", "2"], &input);
    // acs is wall-clock seconds: a search near a second's edge (a loaded
    // machine, a debug build) may round either way.
    let no_acs = |t: String| {
        t.lines()
            .map(|l| l.split("; ").filter(|o| !o.starts_with("acs ")).collect::<Vec<_>>().join("; "))
            .collect::<Vec<_>>()
    };
    assert_eq!(no_acs(text(&two.stdout)), no_acs(text(&one.stdout)));
    // An option the built-in engine lacks is refused, not ignored; so is
    // a value outside an option's range.
    let o = epd_stdin(&["analyze", "--option", "Skill Level=3"], &input);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr)
            .contains("the engine has no option \"Skill Level\" (it declares: Hash, Threads, MultiPV, PawnValue,"),
        "{}",
        text(&o.stderr)
    );
    let o = epd_stdin(&["analyze", "--option", "MobilityWeight=401"], &input);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("option MobilityWeight: \"401\" is not a whole number from 0 to 400"),
        "{}",
        text(&o.stderr)
    );
}

/// The built-in engine takes the spin options `epd uci` declares: its
/// searches with them equal `epd uci`'s given the same options over UCI
/// (a fixed depth, so both search the same tree).
#[test]
fn the_builtin_engine_takes_the_options_epd_uci_declares() {
    let input = epd_testkit::corpus("bratko-kopec.epd");
    let options = ["--option", "KnightValue=200", "--option", "mobilityweight=20", "--option", "FutilityMargin=0"];
    let args = |engine: &[&'static str]| {
        let mut v = vec!["analyze", "--depth", "5", "-q"];
        v.extend_from_slice(engine);
        v.extend_from_slice(&options);
        v.push("-");
        v
    };
    let inproc = epd_stdin(&args(&[]), &input);
    assert_eq!(inproc.status.code(), Some(0), "{}", text(&inproc.stderr));
    let over_uci = epd_stdin(&args(&["--engine", EPD, "--engine-arg", "uci"]), &input);
    assert_eq!(over_uci.status.code(), Some(0), "{}", text(&over_uci.stderr));
    assert_eq!(text(&inproc.stdout), text(&over_uci.stdout));
    let plain = epd_stdin(&["analyze", "--depth", "5", "-q", "-"], &input);
    assert_ne!(text(&plain.stdout), text(&inproc.stdout), "the options changed no search");
}

#[test]
fn target_keeps_invalid_records_and_reports_them() {
    // Kxb2 is White's only legal move in the first record.
    let input = "k7/8/8/8/8/8/1q6/K7 w - - bm Kxb2; id \"a\";\nnot a record\n\n6k1/5ppp/8/8/8/8/8/R5K1 w - - am Kf1;\n";
    let o = epd_stdin(&["target", "--depth", "3"], input.as_bytes());
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[1], "not a record");
    assert_eq!(lines[2], "");
    // Ra8# is mate in 1: ce 32766 (§6.7), and it avoids Kf1.
    assert_eq!(lines[3], "6k1/5ppp/8/8/8/8/8/R5K1 w - - am Kf1; ce 32766; pm Ra8#; pv Ra8#;");
    assert!(err.contains("<stdin>:2:2: error[E001]"), "{err}");
    assert!(err.contains("<stdin>: 2/2 solved, 0 missed, 0 unscored (no bm or am); 2 analysed, 1 invalid"), "{err}");
}

/// The built-in engine as a real UCI child process: `epd uci`.
fn builtin_uci() -> Vec<&'static str> {
    vec!["--engine", EPD, "--engine-arg", "uci"]
}

#[test]
fn builtin_engine_over_uci_gives_the_same_analysis_as_in_process() {
    let input = std::fs::read(fixture("wac-first20.epd")).expect("fixture");
    let mut argv = vec!["analyze", "--depth", "8", "-q", "--sm"];
    let in_process = epd_stdin(&argv, &input);
    assert_eq!(in_process.status.code(), Some(0), "{}", text(&in_process.stderr));
    argv.extend(builtin_uci());
    let child = epd_stdin(&argv, &input);
    assert_eq!(child.status.code(), Some(0), "{}", text(&child.stderr));
    // The UCI round trip (coordinates to SAN, cp/mate to ce) loses nothing:
    // the same search through two paths gives the same records.
    assert_eq!(text(&child.stdout), text(&in_process.stdout));
    assert_analysis_valid(&text(&child.stdout), 20);
    // Two children, records in input order.
    argv.extend(["--jobs", "2"]);
    let two = epd_stdin(&argv, &input);
    assert_eq!(text(&two.stdout), text(&in_process.stdout));
}

#[test]
fn builtin_engine_over_uci_bestmove_none_and_mate_scores() {
    let input = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - id \"mated\";\n\
                 7k/5Q2/6K1/8/8/8/8/8 b - - id \"stalemate\";\n\
                 6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate1\";\n\
                 2rr3k/pp3pp1/1nnqbNQp/3pN3/2pP4/2P5/PPB4P/R4RK1 b - - id \"mated1\";\n";
    let mut argv = vec!["target", "--movetime", "200", "--sm"];
    argv.extend(builtin_uci());
    let o = epd_stdin(&argv, input.as_bytes());
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - ce -32767; id \"mated\"; pv;");
    assert_eq!(lines[1], "7k/5Q2/6K1/8/8/8/8/8 b - - ce 0; id \"stalemate\"; pv;");
    // Mate in 1: 32767 - 1 (§6.7).
    assert_eq!(lines[2], "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; ce 32766; id \"mate1\"; pm Ra8#; pv Ra8#; sm Ra8#;");
    // WAC.001 after Qg6: `epd mate` proves Qg6 mates in 2, so Black is mated
    // after one move of its own whatever it plays: ce -32767 + 2.
    assert_eq!(op(lines[3], "ce"), Some("-32765"), "{}", lines[3]);
    assert!(err.contains("<stdin>: 1/1 solved, 0 missed, 3 unscored"), "{err}");
    assert_analysis_valid(&out, 4);
}
