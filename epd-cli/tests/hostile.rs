//! Hostile input through the real binary: `epd check`, `epd normalize` and
//! `epd from-pgn` must end with exit code 0 or 1 (never a panic's 101 or a
//! signal), say what is wrong with `file:line:col: severity[CODE]`, keep
//! every line (normalize copies invalid records through), and stay within
//! a memory bound measured on the child itself (its peak RSS, from GNU
//! time).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The start position's four EPD fields: 52 bytes, so the first operation
/// of `START op` begins at column 54 and its first operand at 54 + len(op) + 1.
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// What one run of the binary gave.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    /// Peak resident set size of the child, in bytes.
    peak_rss: u64,
}

/// A scratch file holding `data`, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, data: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("epd-hostile-{}-{name}", std::process::id()));
        std::fs::write(&path, data).expect("write temp file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// GNU time, which reports the peak RSS of the one child it runs (a
/// child's own rusage: measuring from this process would count the test
/// process's memory too, which a spawned child inherits until exec).
const TIME: &str = "/usr/bin/time";

/// Runs `epd args...` under GNU time.
fn epd(args: &[&str]) -> Run {
    assert!(
        std::path::Path::new(TIME).is_file(),
        "{TIME} is missing: install GNU time (Debian package `time`; .ci/run does)"
    );
    let measure = TempFile::new(&format!("time-{}", COUNTER.fetch_add(1, Ordering::Relaxed)), b"");
    let mut child = Command::new(TIME)
        .args(["-f", "%M %x", "-o", measure.path(), env!("CARGO_BIN_EXE_epd")])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run epd under /usr/bin/time");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).expect("read stderr");
        v
    });
    let mut stdout = Vec::new();
    out.read_to_end(&mut stdout).expect("read stdout");
    child.wait().expect("wait");
    let stderr = String::from_utf8_lossy(&err_thread.join().expect("stderr thread")).into_owned();
    let report = std::fs::read_to_string(&measure.0).expect("read time's report");
    assert!(!report.contains("signal"), "epd {args:?}: {report}; stderr: {}", head(&stderr));
    let last = report.lines().last().unwrap_or_default();
    let mut fields = last.split(' ').map(|f| f.parse::<u64>().unwrap_or_else(|_| panic!("time's report: {report}")));
    let (Some(kb), Some(code)) = (fields.next(), fields.next()) else { panic!("time's report: {report}") };
    Run { code: i32::try_from(code).expect("exit code"), stdout, stderr, peak_rss: kb * 1024 }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn head(s: &str) -> &str {
    let mut end = s.len().min(2000);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Lines as the verbs count them: split at '\n', an unterminated last line
/// counting too.
fn line_count(data: &[u8]) -> usize {
    let n = data.iter().filter(|&&b| b == b'\n').count();
    n + usize::from(!data.is_empty() && data.last() != Some(&b'\n'))
}

/// The (line, column, code) of every diagnostic on stderr whose severity
/// is `severity`, read from `file:line:col: severity[CODE]: message` or
/// from the JSON Lines of `--format json`.
fn diagnostics(run: &Run, file: &str, severity: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    for line in run.stderr.lines() {
        if line.starts_with('{') {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON diagnostic");
            if v["file"] == file && v["severity"] == severity {
                let n = |k: &str| v[k].as_u64().expect("a number") as usize;
                found.push((n("line"), n("column"), v["code"].as_str().expect("a code").to_owned()));
            }
            continue;
        }
        let Some(rest) = line.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else { continue };
        let mut parts = rest.splitn(3, ':');
        let (Some(l), Some(c), Some(tail)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let (Ok(l), Ok(c)) = (l.parse(), c.parse()) else { continue };
        let Some(code) = tail.strip_prefix(&format!(" {severity}[")).and_then(|t| t.split(']').next()) else {
            continue;
        };
        found.push((l, c, code.to_owned()));
    }
    found
}

/// The checks every hostile run must pass: a normal exit (0 or 1) and a
/// peak RSS under three times the input plus 64 MiB.
fn assert_sane(run: &Run, what: &str, input_len: usize) {
    assert!(run.code == 0 || run.code == 1, "{what}: exit code {}; stderr: {}", run.code, head(&run.stderr));
    let bound = 3 * input_len as u64 + (64 << 20);
    assert!(run.peak_rss > 0, "{what}: no peak RSS measured");
    assert!(run.peak_rss < bound, "{what}: peak RSS {} MiB over the bound {} MiB", run.peak_rss >> 20, bound >> 20);
}

/// `epd check` and `epd normalize` on `data`: both exit 1 with at least
/// one error diagnostic; normalize writes one line per input line and
/// copies invalid records through unchanged (here: every line), so its
/// output is the input, a final newline added if it had none.
fn check_and_normalize_invalid(name: &str, data: &[u8]) -> Vec<(usize, usize, String)> {
    let file = TempFile::new(name, data);
    // JSON: binary input gets one line in text, every diagnostic here.
    let check = epd(&["check", "--format", "json", file.path()]);
    assert_sane(&check, &format!("check {name}"), data.len());
    assert_eq!(check.code, 1, "check {name}: invalid input must exit 1");
    assert!(check.stdout.is_empty(), "check writes no records");
    let errors = diagnostics(&check, file.path(), "error");
    assert!(
        !errors.is_empty(),
        "check {name}: no file:line:col: error[E...] diagnostic; stderr: {}",
        head(&check.stderr)
    );
    let lines = line_count(data);
    for (line, col, code) in &errors {
        assert!(*line >= 1 && *line <= lines, "{name}: line {line} out of the input");
        assert!(*col >= 1, "{name}: column {col}");
        assert!(code.len() == 4 && code.starts_with('E'), "{name}: code {code}");
    }

    let normalize = epd(&["normalize", "--format", "json", file.path()]);
    assert_sane(&normalize, &format!("normalize {name}"), data.len());
    assert_eq!(normalize.code, 1, "normalize {name}: invalid input must exit 1");
    assert_eq!(line_count(&normalize.stdout), line_count(data), "normalize {name}: a line was lost or added");
    // Line for line: a record copied through byte for byte, a line of
    // nothing but whitespace and NUL (no record) written blank.
    let mut input_lines = data.split(|&b| b == b'\n');
    for (i, out) in normalize.stdout.split(|&b| b == b'\n').take(lines).enumerate() {
        let inp = input_lines.next().expect("as many lines");
        let blank = inp.iter().all(|&b| b.is_ascii_whitespace() || b == 0);
        assert!(
            out == inp || (blank && out.is_empty()),
            "normalize {name}: line {} was not copied through unchanged",
            i + 1
        );
    }
    assert_eq!(diagnostics(&normalize, file.path(), "error"), errors, "normalize and check report differently");
    errors
}

/// xorshift64*: the same bytes on every run.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed | 1;
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        v.extend_from_slice(&s.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(n);
    v
}

#[test]
fn three_megabytes_of_random_bytes() {
    let data = random_bytes(0x5eed, 3 << 20);
    let errors = check_and_normalize_invalid("random.bin", &data);
    // Random lines are never records: one error at least per non-blank
    // line, so thousands (3 MiB holds about 12,000 '\n').
    assert!(errors.len() > 10_000, "only {} errors", errors.len());

    // In text, binary input is reported once, not line by line (the
    // issue: 200 KB of random bytes gave 3,225 lines of garbage).
    let file = TempFile::new("random-text.bin", &data);
    let run = epd(&["check", file.path()]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(lines[0].contains("this looks like binary data, not EPD"), "{}", head(&run.stderr));
    assert_eq!(lines.len(), 2, "one message and the summary: {}", head(&run.stderr));
    let counts = format!(" invalid, {} errors, ", errors.len());
    assert!(lines[1].starts_with(&format!("{}: ", file.path())) && lines[1].contains(&counts), "{}", lines[1]);

    let file = TempFile::new("random.pgn", &data);
    let run = epd(&["from-pgn", file.path()]);
    assert_sane(&run, "from-pgn random bytes", data.len());
}

/// Lines over 1 MiB (epd_core::verbs::MAX_LINE) are not parsed: reported
/// as E003 at the byte where the cap falls (column 1,048,577) and copied
/// through whole.
#[test]
fn one_ten_megabyte_line() {
    let too_long = vec![(1, (1 << 20) + 1, "E003".to_owned())];
    // A record whose c0 string is 10 MiB long, with records around it.
    let mut data = format!("{START} c0 \"").into_bytes();
    data.resize(data.len() + (10 << 20), b'x');
    data.extend_from_slice(b"\";\n");
    let errors = check_and_normalize_invalid("long-string.epd", &data);
    assert_eq!(errors, too_long);

    // A single 10 MiB line of operations with no newline. Parsed, such a
    // line took 450 MB in `epd check` (regression).
    let mut data = START.as_bytes().to_vec();
    while data.len() < 10 << 20 {
        data.extend_from_slice(b" bm e4 Nf3; x ");
    }
    let errors = check_and_normalize_invalid("long-line.epd", &data);
    assert_eq!(errors, too_long);

    // Just under the cap the line is parsed, and its diagnostics are
    // capped (epd_core::MAX_DIAGNOSTICS) while memory stays bounded.
    data.truncate((1 << 20) - 1);
    let errors = check_and_normalize_invalid("long-line-parsed.epd", &data);
    assert!(errors.len() <= 100 && errors.len() > 1, "{} errors", errors.len());
    assert!(errors.iter().all(|e| e.0 == 1 && e.2 != "E003"), "{errors:?}");
}

#[test]
fn strings_of_256_bytes_or_more_are_reported() {
    // §5.2.1 and the record model: at most 255 bytes between the quotes.
    let line = |n: usize| format!("{START} id \"{}\";", "s".repeat(n));
    let valid = TempFile::new("s255.epd", format!("{}\n", line(255)).as_bytes());
    let run = epd(&["check", valid.path()]);
    assert_eq!(run.code, 0, "255 bytes are allowed: {}", run.stderr);
    for n in [256, 257, 1000, 100_000] {
        let errors = check_and_normalize_invalid(&format!("s{n}.epd"), format!("{}\n", line(n)).as_bytes());
        // " id \"" ends at column 57; the string starts at 58.
        assert_eq!(errors, [(1, 58, "E015".to_owned())], "{n} bytes");
    }
}

#[test]
fn integers_beyond_i64_are_reported_and_kept_exact() {
    // The spec requires 32-bit integers (§5.2.3) and suggests more for
    // acn (§6.1); the record model reads 64 bits and reports anything
    // beyond as out of range (E019). normalize then copies the record
    // byte for byte, so the digits are kept exactly as written.
    let cases = [
        ("acn 99999999999999999999999;", 58),
        ("acn 9223372036854775808;", 58),
        ("ce -9223372036854775809;", 57),
        ("acs 18446744073709551616;", 58),
    ];
    let data: String = cases.iter().map(|(op, _)| format!("{START} {op}\n")).collect();
    let errors = check_and_normalize_invalid("bigint.epd", data.as_bytes());
    let expected: Vec<_> = cases.iter().enumerate().map(|(i, &(_, col))| (i + 1, col, "E019".to_owned())).collect();
    assert_eq!(errors, expected);

    // i64::MAX itself is a valid acn, written back as it is.
    let max = format!("{START} acn 9223372036854775807;\n");
    let file = TempFile::new("i64max.epd", max.as_bytes());
    let run = epd(&["normalize", file.path()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(String::from_utf8_lossy(&run.stdout), max);
}

#[test]
fn unterminated_strings_are_reported() {
    let data = format!("{START} id \"never closed;\n{START} c0 \"a\"; c1 \"open\n{START} id \"\\\";\n");
    let errors = check_and_normalize_invalid("unterminated.epd", data.as_bytes());
    // E014 points at the opening quote: column 57 on line 1; on line 2,
    // `c0 "a"; ` takes columns 54-61, so c1's quote is at 65; on line 3
    // the quote at 57 opens a string whose only '"' is escaped.
    assert_eq!(errors, [(1, 57, "E014".to_owned()), (2, 65, "E014".to_owned()), (3, 57, "E014".to_owned())]);
}

#[test]
fn pgn_variations_nested_ten_thousand_deep() {
    let depth = 10_000;
    let mut pgn = String::from("[Event \"deep\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 ");
    pgn.push_str(&"(1. d4 d5 ".repeat(depth));
    pgn.push_str(&")".repeat(depth));
    pgn.push_str(" e5 2. Nf3 *\n");
    // A second game with the variations never closed.
    pgn.push_str("\n[Event \"open\"]\n\n1. d4 ");
    pgn.push_str(&"(1. e4 ".repeat(depth));
    pgn.push('\n');
    let file = TempFile::new("deep.pgn", pgn.as_bytes());
    let run = epd(&["from-pgn", file.path()]);
    assert_sane(&run, "from-pgn deep variations", pgn.len());
    assert_eq!(run.code, 0, "{}", head(&run.stderr));
    let warnings = diagnostics(&run, file.path(), "warning");
    assert!(!warnings.is_empty(), "no warning about the nesting: {}", head(&run.stderr));
    assert!(warnings.iter().all(|(l, c, code)| *l >= 1 && *c >= 1 && code == "P011"), "{warnings:?}");
    // The mainline of game 1 is e4 e5 Nf3 (4 records), game 2 is d4 (2).
    let out = String::from_utf8(run.stdout).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            START,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -",
            START,
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3",
        ]
    );
}

/// `--jobs 2` cuts its input into batches; an over-long line goes through
/// in pieces, so memory stays bounded by the batch size, not the line:
/// a 48 MiB line takes well under 48 MiB and comes out whole, with the
/// serial run's diagnostics.
#[test]
fn parallel_run_streams_an_over_long_line() {
    let mut data = format!("{START} id \"a\";\n{START} c0 \"").into_bytes();
    data.resize(48 << 20, b'y');
    data.extend_from_slice(b"\";\n");
    data.extend_from_slice(format!("{START} id \"b\";").as_bytes());
    let file = TempFile::new("parallel-long-line.epd", &data);
    let serial = epd(&["normalize", file.path()]);
    let parallel = epd(&["normalize", "--jobs", "2", file.path()]);
    assert_eq!(parallel.code, 1, "{}", head(&parallel.stderr));
    assert!(parallel.stdout == serial.stdout, "--jobs 2 output differs from the serial output");
    assert_eq!(parallel.stderr, serial.stderr);
    let mut expected = data.clone();
    expected.push(b'\n');
    assert!(parallel.stdout == expected, "the line did not come out whole");
    assert!(parallel.peak_rss < 32 << 20, "--jobs 2 peak RSS {} MiB for a 48 MiB line", parallel.peak_rss >> 20);
}

/// The engine verbs read whole lines too: one over the 1 MiB cap is
/// reported (E003) and copied through unparsed, not parsed into a record
/// many times its size.
#[test]
fn mate_and_analyze_copy_an_over_long_line_through() {
    let mut data = format!("{START} c0 \"").into_bytes();
    data.resize(3 << 20, b'z');
    data.extend_from_slice(b"\";\n");
    let file = TempFile::new("engine-long-line.epd", &data);
    let small = TempFile::new("engine-short-line.epd", format!("{START} c0 \"z\";\n").as_bytes());
    for args in [&["mate", "-n", "1"][..], &["analyze", "--depth", "1"][..]] {
        let mut argv = args.to_vec();
        argv.push(small.path());
        // The verb's own tables (the mate prover's hash table) set the base.
        let base = epd(&argv).peak_rss;
        argv.pop();
        argv.push(file.path());
        let run = epd(&argv);
        assert_eq!(run.code, 1, "{args:?}: {}", head(&run.stderr));
        assert!(run.stdout == data, "{args:?}: the line was not copied through unchanged");
        assert_eq!(diagnostics(&run, file.path(), "error"), vec![(1, (1 << 20) + 1, "E003".to_owned())], "{args:?}");
        // The line is kept whole (3 MiB) and copied to the output; parsed,
        // it would take about 75 MiB.
        let over = run.peak_rss.saturating_sub(base);
        assert!(over < 16 << 20, "{args:?}: peak RSS {} MiB over the base", over >> 20);
    }
}
