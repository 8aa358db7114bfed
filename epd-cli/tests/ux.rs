//! The `epd` command as a person meets it: diagnostics on a terminal
//! (cap, caret, colour, hint, per-file lines, binary input, escaped
//! bytes), and what analyze and target report (summaries, -q, --resume).
//! Terminal runs go through `script`, which gives the program a pty.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn epd(args: &[&str], dir: &Path) -> Output {
    Command::new(EPD).args(args).current_dir(dir).env_remove("NO_COLOR").output().expect("epd runs")
}

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `epd ARGS` on a pseudo-terminal (`script`), stdin from /dev/null;
/// returns what the terminal showed (stdout and stderr together, CRLF
/// line ends) and the exit code.
fn on_terminal(args: &str, dir: &Path, env: &[(&str, &str)]) -> (String, Option<i32>) {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{EPD} {args}"), "/dev/null"]).current_dir(dir).env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.stdin(Stdio::null()).output().expect("script (util-linux) runs");
    (text(&out.stdout).replace("\r\n", "\n"), out.status.code())
}

fn corpus(name: &str) -> PathBuf {
    epd_testkit::corpus_path(name)
}

/// The case: strict check of a real file whose every record
/// carries FEN move counters. On a terminal: the cap, then the summary,
/// how many were not shown, and a hint naming --lenient, epd repair and
/// the commonest code. In JSON: every diagnostic.
#[test]
fn strict_check_of_a_real_file_is_capped_on_a_terminal_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let uho = corpus("UHO_4060_v3.epd");
    let uho = uho.to_str().unwrap();
    let (shown, code) = on_terminal(&format!("check {uho}"), dir.path(), &[]);
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = shown.lines().collect();
    let diags = lines.iter().filter(|l| l.contains("error[E027]")).count();
    assert_eq!(diags, 200, "the default cap on a terminal");
    assert!(lines.len() <= 200 * 3 + 3, "{} lines", lines.len());
    let tail = lines[lines.len() - 3..].join("\n");
    assert!(tail.contains("242201 records, 242201 invalid"), "{tail}");
    assert!(tail.contains("242001 more diagnostics not shown"), "{tail}");
    assert!(tail.contains("--lenient") && tail.contains("epd repair") && tail.contains("epd explain E027"), "{tail}");

    // Not a terminal: every diagnostic (each 3 lines), no cap.
    let piped = epd(&["check", "--max-errors", "0", uho], dir.path());
    let err = text(&piped.stderr);
    assert_eq!(err.lines().filter(|l| l.contains(": error[E027]")).count(), 242_201);
    let json = epd(&["check", "--format", "json", uho], dir.path());
    let err = text(&json.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with('{')).count(), 242_201);
    assert!(!err.contains("hint"), "JSON output is JSON only");
}

#[test]
fn max_errors_caps_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "8/8/8/8/8/8/8/8 w - - id \"x\";\n".repeat(10);
    write(dir.path(), "a.epd", bad.as_bytes());
    let out = epd(&["check", "--max-errors", "3", "a.epd"], dir.path());
    let err = text(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("a.epd:") && l.contains("error[E002]")).count(), 3, "{err}");
    // Two E002 per record (no white king, no black king): 20, 3 shown.
    assert!(err.contains("... 17 more diagnostics not shown"), "{err}");
}

#[test]
fn the_caret_points_at_the_column_in_files() {
    let dir = tempfile::tempdir().unwrap();
    let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf6; id \"x\";";
    write(dir.path(), "c.epd", format!("{line}\n").as_bytes());
    let out = epd(&["check", "c.epd"], dir.path());
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("c.epd:1:")).expect("a diagnostic");
    let col: usize = lines[at]["c.epd:1:".len()..].split(':').next().unwrap().parse().unwrap();
    assert_eq!(col, line.find("Nf6").unwrap() + 1, "{err}");
    assert_eq!(lines[at + 1], format!("  {line}"));
    assert_eq!(lines[at + 2], format!("  {}^", " ".repeat(col - 1)), "{err}");
}

#[test]
fn colour_on_a_terminal_unless_no_color_or_never() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.epd", b"8/8/8/8/8/8/8/8 w - -\n");
    let (shown, _) = on_terminal("check a.epd", dir.path(), &[]);
    assert!(shown.contains("\x1b[1m\x1b[31merror[E002]"), "{shown:?}");
    let (shown, _) = on_terminal("check a.epd", dir.path(), &[("NO_COLOR", "1")]);
    assert!(!shown.contains('\x1b'), "{shown:?}");
    let (shown, _) = on_terminal("check --color never a.epd", dir.path(), &[]);
    assert!(!shown.contains('\x1b'), "{shown:?}");
    // Not a terminal: plain, unless asked.
    assert!(!text(&epd(&["check", "a.epd"], dir.path()).stderr).contains('\x1b'));
    assert!(text(&epd(&["check", "--color", "always", "a.epd"], dir.path()).stderr).contains("\x1b[1m"));
}

#[test]
fn several_files_get_a_line_each_and_a_total() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.epd", b"7k/8/8/8/8/8/8/K7 w - - id \"g\";\n");
    write(dir.path(), "bad.epd", b"8/8/8/8/8/8/8/8 w - -\n7k/8/8/8/8/8/8/K7 w - -\n");
    let out = epd(&["check", "good.epd", "bad.epd"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("\ngood.epd: 1 records, 0 invalid, 0 errors, 0 warnings\n")
            || err.starts_with("good.epd: 1 records, 0 invalid"),
        "{err}"
    );
    assert!(err.contains("bad.epd: 2 records, 1 invalid, 2 errors, 0 warnings\n"), "{err}");
    assert!(err.contains("total: 3 records, 1 invalid, 2 errors, 0 warnings\n"), "{err}");
}

/// No byte below 0x20 but TAB and LF, and no DEL, reaches the terminal in
/// text diagnostics, whatever byte the input holds where: in an
/// operation, in a string, at the start of the line, after bad UTF-8.
#[test]
fn no_control_byte_reaches_the_terminal_for_any_byte_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for b in 0..=255u8 {
        if b == b'\n' {
            continue;
        }
        for line in [
            [&b"7k/8/8/8/8/8/8/K7 w - - c0 \"a"[..], &[b], b"b\";"].concat(),
            [&b"7k/8/8/8/8/8/8/K7 w - - bm K"[..], &[b], b"2;"].concat(),
            [&[b][..], b"7k/8/8/8/8/8/8/K7 w - -"].concat(),
            [&b"7k/8/8/8/8/8/8/K7 w - - c0 \"\xc2"[..], &[b], b"\";"].concat(),
        ] {
            data.extend_from_slice(&line);
            data.push(b'\n');
        }
    }
    write(dir.path(), "bytes.epd", &data);
    for verb in [&["check"][..], &["check", "--lenient"], &["normalize"], &["show"], &["mate", "-n", "1"]] {
        let mut args = verb.to_vec();
        args.extend(["--color", "never", "--max-errors", "0", "bytes.epd"]);
        if verb[0] == "show" {
            args.retain(|a| *a != "--max-errors" && *a != "0");
        }
        let out = epd(&args, dir.path());
        assert!(out.status.code() == Some(1), "{verb:?}: {}", text(&out.stderr));
        assert!(out.stderr.len() > 1000, "{verb:?}: diagnostics expected");
        if let Some(i) = out.stderr.iter().position(|&c| (c < 0x20 && c != b'\t' && c != b'\n') || c == 0x7f) {
            panic!(
                "{verb:?}: byte {:#04x} reached stderr near {:?}",
                out.stderr[i],
                text(&out.stderr[i.saturating_sub(80)..i + 1])
            );
        }
        assert!(!text(&out.stderr).chars().any(|c| c.is_control() && c != '\t' && c != '\n'), "{verb:?}: a C1 control");
    }
}

#[test]
fn a_verb_waiting_on_a_terminal_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new("script")
        .args(["-qec", &format!("{EPD} check"), "/dev/null"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script runs");
    let mut out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !text(&seen).contains('\n') {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(text(&seen).contains("reading records from the terminal; end with Ctrl-D"), "{:?}", text(&seen));
}

const SUITE: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm a3; id \"start\";
6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate1\";
6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Kf1; id \"wrong\";
7k/8/8/8/8/8/8/K7 w - - id \"unscored\";
6k1/5ppp/8/8/8/8/8/R5K1 w - - am Kf1;
";

/// `target --summary json`: counts and the ids of solved and missed
/// records. Worked out by hand: the engine finds Ra8# (mate1 solved, and
/// the record without id whose am is Kf1, named by its line), it never
/// plays a3 from the start nor Kf1 (start, wrong missed).
#[test]
fn target_summary_json_names_solved_and_missed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.epd", SUITE.as_bytes());
    let out = epd(&["target", "--depth", "3", "--summary", "json", "s.epd"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let last = err.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).expect("the last line is the JSON summary");
    assert_eq!(v["type"], "summary");
    assert_eq!(v["verb"], "target");
    let t = &v["total"];
    assert_eq!(
        (t["records"].as_u64(), t["solved"].as_u64(), t["missed"].as_u64(), t["unscored"].as_u64()),
        (Some(5), Some(2), Some(2), Some(1))
    );
    assert_eq!(t["solved_ids"], serde_json::json!(["mate1", "line 5"]));
    assert_eq!(t["missed_ids"], serde_json::json!(["start", "wrong"]));
    assert_eq!(v["files"][0]["file"], "s.epd");

    // The text summary lists the missed ids; -q prints nothing at all.
    let out = epd(&["target", "--depth", "3", "s.epd"], dir.path());
    let err = text(&out.stderr);
    assert!(err.contains("s.epd: 2/4 solved, 2 missed, 1 unscored"), "{err}");
    assert!(err.contains("\n  missed: start, wrong\n"), "{err}");
    let out = epd(&["target", "--depth", "3", "-q", "s.epd"], dir.path());
    assert_eq!(text(&out.stderr), "", "-q is quiet");
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 5);
}

/// `--resume`: an output cut anywhere (even inside a line) is completed to
/// exactly what one uninterrupted run writes; the summary counts the
/// records read back; an output that is not this input's is refused.
#[test]
fn resume_completes_an_interrupted_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut suite = String::from("this is not a record\n\n");
    suite.push_str(SUITE);
    write(dir.path(), "s.epd", suite.as_bytes());
    let full = epd(&["target", "--depth", "3", "s.epd", "-o", "full.epd"], dir.path());
    assert_eq!(full.status.code(), Some(1), "{}", text(&full.stderr));
    let whole = std::fs::read(dir.path().join("full.epd")).unwrap();
    for cut in [0, 10, 21, 22, whole.len() / 2, whole.len() - 3, whole.len()] {
        write(dir.path(), "part.epd", &whole[..cut]);
        let out =
            epd(&["target", "--depth", "3", "--summary", "json", "--resume", "s.epd", "-o", "part.epd"], dir.path());
        assert_eq!(out.status.code(), Some(1), "cut {cut}: {}", text(&out.stderr));
        assert_eq!(text(&std::fs::read(dir.path().join("part.epd")).unwrap()), text(&whole), "cut at {cut}");
        let err = text(&out.stderr);
        let v: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
        assert_eq!(
            (v["total"]["records"].as_u64(), v["total"]["invalid"].as_u64()),
            (Some(6), Some(1)),
            "cut {cut}: {err}"
        );
        assert_eq!(v["total"]["solved_ids"], serde_json::json!(["mate1", "line 7"]), "cut {cut}");
    }
    // Another file's output is refused, and left as it was.
    let other = b"7k/8/8/8/8/8/8/K6R w - - pm Rh1; id \"x\";\n";
    write(dir.path(), "other.epd", other);
    let out = epd(&["target", "--depth", "3", "--resume", "s.epd", "-o", "other.epd"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--resume: line 1 of other.epd is not the output of input line"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.path().join("other.epd")).unwrap(), other);
    // --resume needs -o.
    assert_eq!(epd(&["analyze", "--resume", "s.epd"], dir.path()).status.code(), Some(2));
}

/// The moves of operation `op` of a record, in SAN, played in sequence
/// from the record's position: all legal, or the test fails.
fn line_of(record: &str, op: &str) -> Vec<String> {
    let (rec, diags) = epd_core::Record::parse(record.as_bytes(), epd_core::ParseMode::Strict);
    assert!(!epd_core::has_errors(&diags), "{record}: {diags:?}");
    let mut pos = *rec.position().expect("a legal position");
    let ops = rec.operations().find(|o| o.opcode() == op).unwrap_or_else(|| panic!("{op} in {record}"));
    let mut sans = Vec::new();
    for operand in ops.operands() {
        let san = String::from_utf8(operand.text().to_vec()).unwrap();
        let m = pos.parse_san(san.as_bytes(), epd_core::SanMode::Strict).unwrap_or_else(|e| panic!("{op} {san}: {e}"));
        pos.play_unchecked(m);
        sans.push(san);
    }
    assert!(!sans.is_empty(), "{op} has moves");
    sans
}

fn integer_of(record: &str, op: &str) -> i64 {
    let (rec, _) = epd_core::Record::parse(record.as_bytes(), epd_core::ParseMode::Strict);
    let o = rec.operations().find(|o| o.opcode() == op).unwrap_or_else(|| panic!("{op} in {record}"));
    String::from_utf8_lossy(o.operand(0).unwrap().text()).parse().unwrap()
}

/// `--multipv 3`: pv and ce, then pv2/ce2 and pv3/ce3, each a legal line
/// from the position starting with another move; Stockfish's lines come
/// best first. The record stays valid for `epd check`.
#[test]
fn multipv_writes_one_line_per_variation() {
    let dir = tempfile::tempdir().unwrap();
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -";
    let mut engines = vec![vec!["--depth", "5"]];
    if std::path::Path::new("/usr/games/stockfish").is_file() {
        engines.push(vec!["--engine", "/usr/games/stockfish", "--depth", "10"]);
    }
    for engine in engines {
        let mut args = vec!["analyze", "--multipv", "3"];
        args.extend(&engine);
        args.push(fen);
        let out = epd(&args, dir.path());
        assert_eq!(out.status.code(), Some(0), "{engine:?}: {}", text(&out.stderr));
        let record = text(&out.stdout).trim_end().to_owned();
        let firsts: Vec<String> = ["pv", "pv2", "pv3"].iter().map(|op| line_of(&record, op)[0].clone()).collect();
        assert_eq!(firsts[0], line_of(&record, "pm")[0]);
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2], "{record}");
        let ces: Vec<i64> = ["ce", "ce2", "ce3"].iter().map(|op| integer_of(&record, op)).collect();
        if engine[0] == "--engine" {
            assert!(ces[0] >= ces[1] && ces[1] >= ces[2], "best first: {record}");
        }
        let check = Command::new(EPD).args(["check", &record]).output().unwrap();
        assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
        assert!(!record.contains("pv4") && !record.contains("ce4"));
    }
}

/// The guide's table of diagnostic codes (docs/diagnostics.md) is the
/// code base's: every code, with its one-line meaning, and nothing else.
#[test]
fn the_guide_lists_every_diagnostic_code() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md")).unwrap();
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| E") || l.starts_with("| P")).collect();
    let expected: Vec<String> = epd_core::Code::ALL
        .iter()
        .map(|c| format!("| {} | {} |", c.as_str(), c.summary().replace('|', "\\|")))
        .collect();
    assert_eq!(rows, expected);
}

/// Every key of the event file is documented from the referee's one
/// table: in `epd referee --help`, in `epd man referee`, and in the
/// guide's docs/argus.md (the table there is the one the code writes).
#[test]
fn every_event_key_is_documented_from_one_table() {
    let help = Command::new(EPD).args(["referee", "--help"]).output().unwrap();
    let help = text(&help.stdout);
    let man = Command::new(EPD).args(["man", "referee"]).output().unwrap();
    let man = text(&man.stdout);
    for k in epd_referee::KEYS.iter().chain(epd_referee::PLAYER_KEYS) {
        assert!(help.lines().any(|l| l.trim_start().starts_with(&format!("{} ", k.name))), "--help lacks {}", k.name);
        assert!(man.contains(&format!("\\fB{}\\fR", k.name)), "the man page lacks {}", k.name);
    }
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/argus.md")).unwrap();
    let table = epd_referee::keys_markdown();
    assert!(page.contains(&table), "docs/argus.md's event keys are not the code's; they are:\n{table}");
}

/// The guide's example exchange of the referee's protocol
/// (docs/argus.md), with its extensions (Token, Ccms, Rtms): each client
/// line (`C:`) reads as a client's record, each referee line (`R:`) as a
/// referee's.
#[test]
fn the_guide_protocol_exchange_reads() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/argus.md")).unwrap();
    let (mut c, mut r) = (0, 0);
    for line in page.lines() {
        if let Some(rec) = line.strip_prefix("C: ") {
            epd_referee::protocol::parse_request(rec.as_bytes()).unwrap_or_else(|e| panic!("{rec}: {e}"));
            c += 1;
        } else if let Some(rec) = line.strip_prefix("R: ") {
            epd_referee::protocol::parse_command(rec.as_bytes()).unwrap_or_else(|e| panic!("{rec}: {e}"));
            r += 1;
        }
    }
    assert!(c >= 3 && r >= 5, "{c} client and {r} referee lines");
}
