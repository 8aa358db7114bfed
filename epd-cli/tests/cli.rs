//! Drives the real `epd` binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn epd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_epd")).args(args).output().expect("run epd")
}

fn epd_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run epd");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -";

#[test]
fn perft_prints_the_count_as_last_line() {
    let o = epd(&["perft", "4"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("197281"));
    let o = epd(&["perft", "3", KIWIPETE]);
    assert_eq!(stdout(&o).lines().last(), Some("97862"));
    // A FEN with counters and an EPD record with operations both work.
    let o = epd(&["perft", "2", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"]);
    assert_eq!(stdout(&o).lines().last(), Some("191"));
    let o = epd(&["perft", "2", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - bm Rb1; id \"x\";"]);
    assert_eq!(stdout(&o).lines().last(), Some("191"));
}

#[test]
fn perft_divide_sums_to_the_total() {
    let o = epd(&["perft", "3", KIWIPETE, "--divide"]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    let sum: u64 = lines.iter().filter_map(|l| l.split_once(": ")).map(|(_, n)| n.parse::<u64>().expect("count")).sum();
    assert_eq!(lines.len(), 48 + 2);
    assert_eq!(sum, 97862);
    assert_eq!(lines.last(), Some(&"97862"));
    assert!(text.contains("e1g1: "), "{text}");
}

#[test]
fn perft_verify_reports_mismatches_and_exit_codes() {
    let good = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n\
                 4k3/8/8/8/8/8/8/4K2R w K -; perft1 15; perft2 66;\n";
    let o = epd_stdin(&["perft", "--verify", "-"], good);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).starts_with("2 records, 4 depths checked, 0 mismatches"));

    let bad = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n";
    let o = epd_stdin(&["perft", "--verify", "-"], bad);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("<stdin>:1:66: error[P003]: perft(2) is 400, the file says 401"), "{err}");

    let o = epd_stdin(&["perft", "--verify", "--max-depth", "1", "-"], bad);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn moves_lists_canonical_san_in_ascii_order() {
    let o = epd(&["moves", KIWIPETE]);
    let text = stdout(&o);
    let moves: Vec<&str> = text.lines().collect();
    assert_eq!(moves.len(), 48);
    let mut sorted = moves.clone();
    sorted.sort_unstable();
    assert_eq!(moves, sorted);
    for m in ["O-O", "O-O-O", "Nxf7", "dxe6", "Qxf6", "Bxa6", "a3", "g3"] {
        assert!(moves.contains(&m), "{m} missing from {moves:?}");
    }
}

#[test]
fn bad_record_gets_a_diagnostic_and_exit_1() {
    let o = epd(&["moves", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(":1:45: error[E001]: invalid active colour"), "{err}");
    let o = epd(&["moves", "8/8/8/8/8/8/8/K7 w - -"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("black has no king"));
    let o = epd(&["perft", "x"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn completions_and_man_page_come_from_the_definitions() {
    let o = epd(&["completions", "bash"]);
    assert!(o.status.success());
    let script = stdout(&o);
    for sub in ["normalize", "purge", "repair", "check", "show", "moves", "perft", "convert", "from-pgn"] {
        assert!(script.contains(sub), "bash completion lacks {sub}");
    }
    let o = epd(&["man"]);
    assert!(o.status.success());
    let page = stdout(&o);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "not roff: {}", &page[..80.min(page.len())]);
    assert!(page.contains("normalize"));
}

#[test]
fn every_subcommand_help_shows_examples() {
    for sub in
        ["normalize", "purge", "repair", "check", "show", "moves", "perft", "convert", "from-pgn", "completions", "man"]
    {
        let o = epd(&[sub, "--help"]);
        assert!(o.status.success(), "{sub}");
        assert!(stdout(&o).contains("Examples:"), "{sub} --help has no examples");
    }
}

/// Terminal escape sequences in the input are shown escaped in text
/// diagnostics, never sent raw (issue 17: `printf '\x1b]0;PWNED\x07...'`).
#[test]
fn control_bytes_never_reach_the_terminal_raw() {
    let o = epd_stdin(&["check", "-"], b"\x1b]0;PWNED\x07\x1b[31mRED\n");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr.clone()).expect("utf-8");
    assert!(err.contains("\\x1b]0;PWNED\\x07\\x1b[31mRED"), "{err}");
    // Every byte value, inside a record and in a file name, through the
    // engine verbs' path too.
    for verb in [&["check", "--lenient", "-"][..], &["mate", "-n", "1", "-"]] {
        let mut input = Vec::new();
        for b in 0..=255u8 {
            input.extend_from_slice(b"4k3/8/8/8/8/8/8/4K3 w - - c0 \"x");
            input.push(if b == b'\n' { b' ' } else { b });
            input.extend_from_slice(b"y\"; id ");
            input.push(if b == b'\n' { b' ' } else { b });
            input.extend_from_slice(b";\n");
        }
        let o = epd_stdin(verb, &input);
        assert!(!o.stderr.is_empty());
        let bad: Vec<u8> =
            o.stderr.iter().copied().filter(|&b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f).collect();
        assert!(bad.is_empty(), "{verb:?}: raw control bytes {bad:?} on stderr");
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(!text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)), "{verb:?}: a C1 control on stderr");
    }
}

/// Issue 17: a FILE-or-RECORD argument is decided one way everywhere: an
/// existing path is a file, a directory is refused, anything else must be
/// a position (exit 2 otherwise, never a diagnostic on `<argument>`).
#[test]
fn a_mistyped_file_name_is_not_read_as_a_position() {
    for args in [
        &["convert", "--to", "fen", "nosuch.epd"][..],
        &["show", "nosuchfile.epd"],
        &["check", "nosuch.epd"],
        &["mate", "-n", "1", "nosuch.epd"],
    ] {
        let o = epd(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        // Issue 32: a name that looks like a file gets the file's error
        // alone, not a FEN parse error as well.
        let name = args.last().unwrap();
        assert_eq!(err, format!("epd: error: cannot open {name}: No such file or directory\n"), "{args:?}");
    }
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    for args in [&["show", dir][..], &["check", dir], &["convert", "--to", "epd", dir]] {
        let o = epd(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("cannot open {dir}: Is a directory")), "{args:?}");
    }
    // A position is accepted where files are: analyze takes a FEN as show does.
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -";
    let o = epd(&["analyze", "--depth", "2", "-q", fen]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).starts_with(&format!("{fen} ce ")), "{}", stdout(&o));
}

/// Issue 17: check offers only what means something for it, and value
/// errors read as a person would write them.
#[test]
fn check_has_no_output_flags_and_value_errors_read_plainly() {
    let o = epd(&["check", "x.epd", "-o", "y.epd"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!std::path::Path::new("y.epd").exists(), "check created its -o file");
    let help = stdout(&epd(&["check", "--help"]));
    for flag in ["--output", "--in-place", "--drop-invalid"] {
        assert!(!help.contains(flag), "check --help offers {flag}");
    }
    let o = epd(&["analyze", "--movetime", "0", "x.epd"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--movetime <MS>': must be at least 1 ms"));
}
