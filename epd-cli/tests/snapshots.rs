//! Snapshots of the CLI's canonical output and diagnostics on the
//! project's fixtures (tests/fixtures, real files with their quirks), plus
//! exit codes, piping, `--in-place` atomicity and `--jobs` equality.
//! Every snapshot was read and checked by hand against the specification
//! when it was accepted.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name)
}

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
        .expect("spawn epd");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    out
}

/// stdout, stderr and the exit code, with the fixture path made stable.
fn transcript(o: &Output) -> String {
    let clean = |b: &[u8]| {
        let s = String::from_utf8_lossy(b).replace('\0', "\\0");
        let dir = fixture("").display().to_string();
        s.replace(&dir, "fixtures/")
    };
    format!("exit: {:?}\n--- stdout\n{}--- stderr\n{}", o.status.code(), clean(&o.stdout), clean(&o.stderr))
}

fn path(name: &str) -> String {
    fixture(name).display().to_string()
}

#[test]
fn check_bratko_kopec_strict() {
    insta::assert_snapshot!(transcript(&epd(&["check", &path("bratko-kopec.epd")])));
}

#[test]
fn repair_bratko_kopec() {
    insta::assert_snapshot!(transcript(&epd(&["repair", "--quiet", &path("bratko-kopec.epd")])));
}

#[test]
fn normalize_wac_is_already_canonical() {
    let o = epd(&["normalize", &path("wac-first20.epd")]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, std::fs::read(fixture("wac-first20.epd")).unwrap());
    insta::assert_snapshot!(transcript(&o));
}

#[test]
fn normalize_pet_collapses_alignment_blanks() {
    insta::assert_snapshot!(transcript(&epd(&["normalize", &path("pet.epd")])));
}

#[test]
fn destruction_test_every_line_reported_and_kept() {
    let input = std::fs::read(fixture("destruction-test.epd")).unwrap();
    let o = epd(&["normalize", &path("destruction-test.epd")]);
    assert_eq!(o.status.code(), Some(1));
    // Every line is still in the output, byte for byte (invalid records are
    // copied through unchanged).
    assert_eq!(o.stdout, input);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let reported: std::collections::BTreeSet<usize> = stderr
        .lines()
        .filter(|l| l.contains(": error["))
        .filter_map(|l| l.split(':').nth(1).and_then(|n| n.parse().ok()))
        .collect();
    let lines = input.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
    assert_eq!(reported.len(), lines, "every line gets an error diagnostic");
    insta::assert_snapshot!(transcript(&epd(&["check", "--lenient", "--quiet", &path("destruction-test.epd")])));
}

#[test]
fn json_diagnostics() {
    let head: Vec<u8> = std::fs::read(fixture("bratko-kopec.epd"))
        .unwrap()
        .split(|&b| b == b'\n')
        .take(2)
        .collect::<Vec<_>>()
        .join(&b'\n');
    insta::assert_snapshot!(transcript(&epd_stdin(&["check", "--format", "json", "-"], &head)));
}

#[test]
fn purge_keeps_the_rest_as_written() {
    let o = epd(&["purge", "id", &path("pet.epd")]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let first = out.lines().next().unwrap();
    // The alignment blanks after `bm e4;` stay; only the id operation goes.
    assert_eq!(first, "8/7p/2k1Pp2/pp1p2p1/3P2P1/4P3/P3K2P/8 w - - bm e4;");
    assert!(!out.contains("id "));
}

#[test]
fn from_pgn_crlf_games() {
    insta::assert_snapshot!(transcript(&epd(&["from-pgn", "--sm", "--id", &path("8moves-first4.pgn")])));
}

#[test]
fn diagrams() {
    let rec = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";";
    let mut all = String::new();
    for style in ["ascii", "unicode", "svg"] {
        all.push_str(&transcript(&epd(&["show", "--format", style, "--size", "160", rec])));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn stdin_to_stdout_pipe() {
    let input = std::fs::read(fixture("bratko-kopec.epd")).unwrap();
    let o = epd_stdin(&["repair", "-q", "-"], &input);
    assert_eq!(o.status.code(), Some(0));
    let back = epd_stdin(&["normalize", "-"], &o.stdout);
    assert_eq!(back.status.code(), Some(0), "{}", String::from_utf8_lossy(&back.stderr));
    assert_eq!(back.stdout, o.stdout, "repaired output is canonical");
}

#[test]
fn jobs_two_equals_serial_byte_for_byte() {
    let mut input = Vec::new();
    for _ in 0..200 {
        input.extend_from_slice(&std::fs::read(fixture("destruction-test.epd")).unwrap());
        input.extend_from_slice(&std::fs::read(fixture("bratko-kopec.epd")).unwrap());
    }
    for verb in [["repair", "--lenient"], ["normalize", "--strict"]] {
        let a = epd_stdin(&[verb[0], verb[1], "--jobs", "1", "-"], &input);
        let b = epd_stdin(&[verb[0], verb[1], "--jobs", "2", "-"], &input);
        assert_eq!(a.status.code(), b.status.code());
        assert!(a.stdout == b.stdout, "{verb:?}: stdout differs");
        assert!(a.stderr == b.stderr, "{verb:?}: stderr differs");
    }
}

#[test]
fn in_place_is_atomic_even_when_killed() {
    let dir = std::env::temp_dir().join(format!("epd-inplace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.epd");
    let mut original = Vec::new();
    for _ in 0..3000 {
        original.extend_from_slice(&std::fs::read(fixture("pet.epd")).unwrap());
    }
    std::fs::write(&file, &original).unwrap();
    // The expected result, computed the non-atomic way.
    let expected = epd_stdin(&["normalize", "-"], &original).stdout;
    assert_ne!(expected, original);
    // Kill runs at different moments: the file is always whole, either the
    // original or the normalized text, never a mixture.
    for delay_ms in [0u64, 2, 5, 10, 20, 40] {
        std::fs::write(&file, &original).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
            .args(["normalize", "--in-place"])
            .arg(&file)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&file).unwrap();
        assert!(now == original || now == expected, "delay {delay_ms} ms: file left half-written");
    }
    // A completed run replaces the file.
    std::fs::write(&file, &original).unwrap();
    let o = epd(&["normalize", "--in-place", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&file).unwrap(), expected);
    // Failure (unwritable directory) leaves the original intact: exit 2.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exit_codes() {
    assert_eq!(epd(&["check", &path("wac-first20.epd")]).status.code(), Some(0));
    assert_eq!(epd(&["check", &path("bratko-kopec.epd")]).status.code(), Some(1));
    assert_eq!(epd(&["check", "/nonexistent/file.epd"]).status.code(), Some(2));
    assert_eq!(epd(&["normalize", "--bogus-flag"]).status.code(), Some(2));
    assert_eq!(epd(&["check", "--in-place", "x"]).status.code(), Some(2));
}
