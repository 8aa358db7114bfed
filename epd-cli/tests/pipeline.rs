//! The line pipeline's contract, through the real binary: every file verb
//! keeps the same line accounting on hostile input; `-o` naming an input
//! never destroys it; SIGINT and SIGTERM stop a run with every finished
//! record written; a write error names the output.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn epd(args: &[&str], dir: &Path) -> Output {
    Command::new(EPD).args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run epd")
}

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

/// Lines of `data` as the pipeline counts them (a last line without its
/// newline counts).
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.last() == Some(&b'\n') || data.is_empty() {
        v.pop();
    }
    v
}

/// The line numbers of the errors reported on stderr
/// (`file:LINE:col: error[...]`), in order.
fn error_lines(stderr: &[u8], file: &str) -> Vec<u64> {
    let text = String::from_utf8_lossy(stderr);
    let prefix = format!("{file}:");
    text.lines()
        .filter(|l| l.starts_with(&prefix) && l.contains(": error["))
        .map(|l| l[prefix.len()..].split(':').next().unwrap().parse().unwrap())
        .collect()
}

/// Hostile input of every kind the line rules handle, none of it a string
/// continued on the next line (which joins two lines into one record).
fn hostile_input() -> Vec<u8> {
    let mut v = Vec::new();
    let good = "4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"good\";";
    for i in 0..3 {
        v.extend_from_slice(format!("{good}\n").as_bytes());
        v.extend_from_slice(b"\n");
        v.extend_from_slice(b"   \t \x00\x00 \n"); // blank: whitespace and NUL
        v.extend_from_slice(b"not a record at all\n");
        v.extend_from_slice(format!("{good}\r\n").as_bytes()); // CR before the newline
        v.extend_from_slice(b"\x1b]0;title\x07\x1b[31m red \xff\xfe\n"); // control bytes, bad UTF-8
        v.extend_from_slice(b"8/8/8/8/8/8/8/8 w - - id \"no kings\";\n");
        v.extend_from_slice(b"4k3/8/8/8/8/8/8/4K2R w K - bm Qh8; id \"illegal\";\n");
        v.extend_from_slice(&[b'x'; 300]);
        v.push(b'\n');
        if i == 1 {
            // Over the 1 MiB line cap: reported, copied through.
            v.extend_from_slice(&vec![b'8'; (1 << 20) + 10]);
            v.push(b'\n');
        }
        // Random bytes with no newline inside.
        let mut x = 0x9E37_79B9_7F4A_7C15u64 + i;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = (x >> 24) as u8;
            v.push(if b == b'\n' || b == b'"' { b'?' } else { b });
        }
        v.push(b'\n');
    }
    // A last line without its newline.
    v.extend_from_slice(b"7k/8/8/8/8/8/8/K7 w - - id \"last\";");
    v
}

/// Every file verb, given the same hostile input, reads the same lines,
/// reports errors on the same ones, and (the verbs that write) writes one
/// line per input line, each invalid record byte for byte as it was.
#[test]
fn every_verb_keeps_the_same_line_accounting_on_hostile_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_input();
    write(dir.path(), "h.epd", &input);
    let in_lines = lines(&input);
    let check = epd(&["check", "--lenient", "h.epd"], dir.path());
    assert_eq!(check.status.code(), Some(1));
    let invalid = error_lines(&check.stderr, "h.epd");
    let mut invalid_set = invalid.clone();
    invalid_set.dedup();
    assert!(invalid_set.len() >= 12, "{invalid_set:?}");
    let verbs: &[&[&str]] = &[
        &["normalize", "--lenient"],
        &["repair"],
        &["purge", "--lenient", "id"],
        &["convert", "--to", "epd"],
        &["convert", "--to", "fen"],
        &["mate", "-n", "1"],
        &["analyze", "--depth", "1"],
        &["target", "--depth", "1"],
        &["normalize", "--lenient", "-j", "2"],
        &["mate", "-n", "1", "-j", "2"],
        &["analyze", "--depth", "1", "-j", "2"],
    ];
    for verb in verbs {
        let mut args = verb.to_vec();
        args.push("h.epd");
        let out = epd(&args, dir.path());
        let what = verb.join(" ");
        assert_eq!(out.status.code(), Some(1), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let mut errs = error_lines(&out.stderr, "h.epd");
        errs.dedup();
        assert_eq!(errs, invalid_set, "{what}: errors on other lines");
        let out_lines = lines(&out.stdout);
        assert_eq!(out_lines.len(), in_lines.len(), "{what}: line count");
        for &n in &invalid_set {
            let i = n as usize - 1;
            assert!(out_lines[i] == in_lines[i], "{what}: invalid line {n} not copied byte for byte");
        }
        for (i, (o, l)) in out_lines.iter().zip(&in_lines).enumerate() {
            if l.iter().all(|b| b.is_ascii_whitespace() || *b == 0) {
                assert!(o.is_empty(), "{what}: blank line {} not written as an empty line", i + 1);
            }
        }
    }
}

#[test]
fn output_naming_its_input_rewrites_it_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let data = b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O ; id \"a\";\nnot a record\n";
    let f = write(dir.path(), "f.epd", data);
    // The same file by another name, too.
    let out = epd(&["normalize", "f.epd", "-o", "./f.epd"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&f).unwrap(), b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"a\";\nnot a record\n");
    let out = epd(&["mate", "-n", "1", "f.epd", "-o", "f.epd"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(std::fs::read(&f).unwrap().starts_with(b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"a\";\n"));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "a temporary file was left behind: {names:?}");
}

#[test]
fn output_naming_one_of_several_inputs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O ; id \"a\";\n";
    let f = write(dir.path(), "f.epd", data);
    write(dir.path(), "g.epd", data);
    for verb in [&["normalize"][..], &["analyze", "--depth", "1"], &["mate", "-n", "1"]] {
        let mut args = verb.to_vec();
        args.extend(["f.epd", "g.epd", "-o", "f.epd"]);
        let out = epd(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{verb:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("-o f.epd is also one of the inputs"));
        assert_eq!(std::fs::read(&f).unwrap(), data, "{verb:?} destroyed its input");
    }
}

#[test]
fn a_write_error_names_the_output() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.epd", b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O ; id \"a\";\n");
    for verb in [&["normalize"][..], &["mate", "-n", "1"], &["convert", "--to", "fen"]] {
        let mut args = verb.to_vec();
        args.extend(["f.epd", "-o", "/dev/full"]);
        if verb[0] == "convert" {
            // convert writes to stdout only.
            args.truncate(args.len() - 2);
            let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
            let out = Command::new(EPD).args(&args).current_dir(dir.path()).stdout(full).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{verb:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("cannot write <stdout>"), "{verb:?}: {err}");
            continue;
        }
        let out = epd(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{verb:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot write /dev/full"), "{verb:?}: {err}");
        assert!(!err.contains("f.epd"), "{verb:?} blames the input: {err}");
    }
}

/// A suite slow enough to interrupt: each record takes the built-in
/// engine 300 ms.
fn slow_suite(dir: &Path, records: usize) -> PathBuf {
    let mut data = Vec::new();
    for i in 0..records {
        writeln!(data, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"n{i}\";").unwrap();
    }
    write(dir, "slow.epd", &data)
}

/// Sends `signal` to the run once `ready` says so; returns its output and
/// exit code.
fn interrupt(args: &[&str], dir: &Path, signal: &str, ready: impl Fn() -> bool) -> (Output, Duration) {
    let mut command = Command::new(EPD);
    command.args(args).current_dir(dir).stdin(Stdio::null());
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(60), "the run never got going");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    let status = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    (out, sent.elapsed())
}

#[test]
fn sigint_during_analyze_keeps_every_finished_record() {
    let dir = tempfile::tempdir().unwrap();
    slow_suite(dir.path(), 40);
    let out_path = dir.path().join("out.epd");
    let written = || std::fs::read(&out_path).map(|d| d.iter().filter(|&&b| b == b'\n').count()).unwrap_or(0);
    let args = ["analyze", "--movetime", "300", "--counters", "slow.epd", "-o", "out.epd"];
    let (out, took) = interrupt(&args, dir.path(), "-INT", || written() >= 2);
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(5), "took {took:?} to stop");
    let data = std::fs::read(&out_path).unwrap();
    let done = lines(&data);
    assert!(data.ends_with(b"\n"), "a record was cut short");
    assert!(done.len() >= 2 && done.len() < 40, "{} records written", done.len());
    for (i, l) in done.iter().enumerate() {
        let l = String::from_utf8_lossy(l);
        assert!(l.contains(&format!("id \"n{i}\";")) && l.contains(" pm ") && l.contains(" pv "), "{l}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn sigterm_during_mate_on_two_jobs_keeps_every_finished_record() {
    let dir = tempfile::tempdir().unwrap();
    // Mate-in-5 searches of real opening positions take a while (about
    // half a second each in release).
    let uho = epd_testkit::corpus("UHO_4060_v3.epd");
    let mut data = Vec::new();
    for (i, l) in lines(&uho).iter().take(60).enumerate() {
        let fields: Vec<&[u8]> = l.split(|&b| b == b' ').take(4).collect();
        data.extend_from_slice(&fields.join(&b' '));
        writeln!(data, " id \"m{i}\";").unwrap();
    }
    write(dir.path(), "m.epd", &data);
    let out_path = dir.path().join("out.epd");
    let written = || std::fs::read(&out_path).map(|d| d.iter().filter(|&&b| b == b'\n').count()).unwrap_or(0);
    let args = ["mate", "-n", "5", "-j", "2", "m.epd", "-o", "out.epd"];
    let (out, _) = interrupt(&args, dir.path(), "-TERM", || written() >= 1);
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    let data = std::fs::read(&out_path).unwrap();
    let done = lines(&data);
    assert!(data.ends_with(b"\n"));
    assert!(!done.is_empty() && done.len() < 60, "{} records written", done.len());
    for (i, l) in done.iter().enumerate() {
        assert!(String::from_utf8_lossy(l).contains(&format!("id \"m{i}\";")), "record {i} out of order");
    }
}

/// from-pgn reading a pipe that a slow producer feeds (a five-position
/// game every 20 ms): SIGINT ends it before the next game, with every game
/// before it written whole (it used to die with a record cut short in its
/// buffer).
#[test]
fn sigint_during_from_pgn_keeps_every_finished_game() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("games.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let producer = {
        let (fifo, done) = (fifo.clone(), std::sync::Arc::clone(&done));
        std::thread::spawn(move || {
            let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&fifo) else { return };
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if w.write_all(b"[Event \"e\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let start = Instant::now();
    let args = ["from-pgn", "--id", "games.pgn", "-o", "out.epd"];
    let (out, took) = interrupt(&args, dir.path(), "-INT", || start.elapsed() > Duration::from_millis(1500));
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    producer.join().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(2), "took {took:?} to stop");
    let data = std::fs::read(dir.path().join("out.epd")).unwrap();
    let done = lines(&data);
    assert!(data.ends_with(b"\n"), "a record was cut short");
    assert!(done.len() >= 5 * 10 && done.len().is_multiple_of(5), "{} records: not whole games", done.len());
    for (i, l) in done.iter().enumerate() {
        let l = String::from_utf8_lossy(l);
        assert!(l.ends_with(&format!("ply {}\";", i % 5)), "{l}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted: every game converted before the signal was written"), "{err}");
}

#[test]
fn an_interrupted_in_place_run_leaves_the_original_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO as standard input would never end; an in-place rewrite of a
    // large file is stopped mid-way instead.
    let mut data = Vec::new();
    for i in 0..400_000 {
        writeln!(data, "4k3/8/8/8/8/8/8/4K2R w K - bm O-O ; id \"n{i}\";").unwrap();
    }
    let f = write(dir.path(), "big.epd", &data);
    let tmp_exists =
        || std::fs::read_dir(dir.path()).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().contains("epd-tmp"));
    let (out, _) = interrupt(&["repair", "--in-place", "big.epd"], dir.path(), "-INT", tmp_exists);
    match out.status.code() {
        // Stopped mid-way: the original as it was, no temporary file.
        Some(130) => assert!(std::fs::read(&f).unwrap() == data, "the original was changed"),
        // The machine finished before the signal arrived.
        Some(0) => assert!(std::fs::read(&f).unwrap().starts_with(b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"n0\";\n")),
        other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
    }
    assert!(!tmp_exists(), "a temporary file was left behind");
}

/// Regression: on a crowded position depth 1 alone took the built-in
/// engine minutes, and SIGTERM (or `--movetime`) was only honoured from
/// depth 2, so only a second signal stopped the run.
#[test]
fn sigterm_stops_analyze_on_a_crowded_position_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let rooks = b"rnbqkbnr/rrrrrrrr/8/8/8/8/RRRRRRRR/RNBQKBNR w KQkq - id \"done\";\n\
                  rnbqkbnr/rrrrrrrr/8/8/8/8/RRRRRRRR/RNBQKBNR b KQkq - id \"cut\";\n";
    write(dir.path(), "rooks.epd", rooks);
    let out_path = dir.path().join("out.epd");
    let written = || std::fs::read(&out_path).is_ok_and(|d| d.contains(&b'\n'));
    // The first record ends by its movetime; the second is stopped.
    let args = ["analyze", "--movetime", "200", "--timeout", "60000", "rooks.epd", "-o", "out.epd"];
    let (out, took) = interrupt(&args, dir.path(), "-TERM", written);
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(1), "took {took:?} to stop");
    let data = String::from_utf8(std::fs::read(&out_path).unwrap()).unwrap();
    assert!(data.contains("id \"done\"") && data.contains(" pm "), "{data}");
    assert!(!data.contains("cut"), "{data}");
}

#[test]
fn mate_timeout_writes_the_record_unchanged_and_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = b"qqqqkqqq/qqqqqqqq/8/8/8/8/QQQQQQQQ/QQQQKQQQ w - - id \"queens\";\n\
                 6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"backrank\";\n";
    write(dir.path(), "m.epd", data);
    let start = Instant::now();
    let out = epd(&["mate", "-n", "8", "--timeout", "300", "m.epd"], dir.path());
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(!lines[0].contains("dm ") && lines[0].contains("id \"queens\""), "{text}");
    assert!(lines[1].contains("dm 1;") && lines[1].contains("pm Ra8#;"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("m.epd:1:1: warning[E034]: no mate within 8 proven in 300 ms"), "{err}");
    assert!(err.contains("1 timed out"), "{err}");
}
