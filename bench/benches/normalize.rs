//! "Normalize with full validation" throughput on a file of EPD records,
//! single-threaded, side by side in one run (issue 3):
//!
//! 1. epd-core: `verbs::run(Normalize, Strict)` over the in-memory file into
//!    a reused `Vec`, and the per-record API loop (`Record::parse_into` +
//!    `append_canonical` into a reused buffer), Strict and Lenient;
//! 2. the shakmaty 0.30 pipeline a Rust user writes today: parse the four
//!    position fields (`fen::Epd`) into a `Chess`, split the operations on
//!    `;` (outside strings), parse every move operand (`am bm pm` in the
//!    record's position, `pv` played in sequence) with `SanPlus::from_ascii`
//!    and `to_move`, re-encode it with `SanPlus::from_move`, and write the
//!    record back into a reused buffer;
//! 3. python-chess: `Board.from_epd(line)` + `board.epd(**ops)` per record,
//!    in a `python3` subprocess over the first 10,000 records (skipped, with
//!    a note, if python-chess is not installed).
//!
//! Every output is checked against the input byte for byte (the data file
//! is canonical). Rounds interleave the pipelines, their order rotated from
//! round to round; medians are printed as Markdown tables for
//! `BENCHMARKS.md`.
//!
//! It then measures the peak memory (max RSS, `/usr/bin/time -f %M`) of
//! `epd normalize` on 1/10, 1 and 10 times the data file, when the release
//! CLI has been built (`cargo build --release -p epd-cli`).
//!
//! ```text
//! cargo build --release -p epd-cli                       # for the memory part
//! cargo bench -p epd-bench --bench normalize             # full run (7 rounds)
//! cargo bench -p epd-bench --bench normalize -- --quick  # smoke run
//! EPD_BENCH_QUICK=1 cargo bench -p epd-bench --bench normalize
//! EPD_BENCH_RUNS=9 cargo bench -p epd-bench --bench normalize
//! EPD_BENCH_DATA=other.epd EPD_BIN=path/to/epd cargo bench -p epd-bench --bench normalize
//! EPD_BENCH_ONLY=shakmaty valgrind --tool=callgrind target/release/deps/normalize-* --bench  # one pipeline, once
//! cargo test -p epd-bench --benches                      # one unoptimized smoke round
//! ```
//!
//! shakmaty is GPL-3.0-or-later: it is a dev-dependency of this
//! never-published benchmark crate only.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use epd_bench::{median, paired_ratio, timed, Measured, Samples};
use epd_core::verbs::{self, Verb, VerbOptions};
use epd_core::{has_errors, Diagnostic, ParseMode, Record};

/// Records given to python-chess per round (about 3,000 records/s).
const PY_RECORDS: usize = 10_000;

// ---------------------------------------------------------------------------
// Input.

/// The lines of `data` (each without its `\n`; a final empty piece after
/// the last newline is not a line). The newline is found as fast as the
/// verb finds it (32-byte blocks the compiler vectorizes, as a memchr
/// would), so the per-record pipelines, shakmaty's included, do not pay a
/// byte-by-byte split the verb does not.
fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = data.strip_suffix(b"\n").unwrap_or(data);
    let mut done = rest.is_empty();
    core::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut base = 0;
        for block in rest.chunks_exact(32) {
            if block.iter().fold(false, |hit, &b| hit | (b == b'\n')) {
                break;
            }
            base += 32;
        }
        match rest[base..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                let (line, tail) = rest.split_at(base + i);
                rest = &tail[1..];
                Some(line)
            }
            None => {
                done = true;
                Some(rest)
            }
        }
    })
}

/// The first `n` lines of `data`, with their newlines.
fn first_lines(data: &[u8], n: usize) -> &[u8] {
    let mut end = 0;
    for _ in 0..n {
        match data[end..].iter().position(|&b| b == b'\n') {
            Some(i) => end += i + 1,
            None => return data,
        }
    }
    &data[..end]
}

// ---------------------------------------------------------------------------
// epd-core.

/// The verb over the whole in-memory file, as the CLI runs it.
fn epd_verb(data: &[u8], out: &mut Vec<u8>) -> u64 {
    out.clear();
    let opts = VerbOptions { mode: ParseMode::Strict, drop_invalid: false };
    let summary = verbs::run_verb(data, &mut *out, &Verb::Normalize, &opts, |_| {}).expect("writing to a Vec");
    assert_eq!(summary.invalid, 0, "epd-core verb: invalid records");
    summary.records
}

/// The per-record API: parse each line into a reused record, write its
/// canonical encoding into a reused buffer (`append_canonical`, which
/// copies the line of a record read already canonical).
fn epd_records(data: &[u8], out: &mut Vec<u8>, mode: ParseMode) -> u64 {
    out.clear();
    let mut rec = Record::default();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut n = 0u64;
    for line in lines(data) {
        diags.clear();
        rec.parse_into(line, mode, &mut diags);
        if has_errors(&diags) {
            out.extend_from_slice(line);
        } else {
            rec.append_canonical(out);
        }
        out.push(b'\n');
        n += 1;
    }
    n
}

// ---------------------------------------------------------------------------
// The shakmaty pipeline.

/// The next operation of `rest` (up to a `;` outside a string), with
/// surrounding blanks trimmed; `rest` moves past it. `None` when only
/// blanks are left.
fn next_operation<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let s = rest.trim_ascii_start();
    if s.is_empty() {
        *rest = s;
        return None;
    }
    let mut in_string = false;
    let mut end = s.len();
    for (i, &b) in s.iter().enumerate() {
        match b {
            b'"' => in_string = !in_string,
            b';' if !in_string => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    *rest = &s[(end + 1).min(s.len())..];
    Some(s[..end].trim_ascii_end())
}

/// The next blank-separated token of an operation (a quoted string is one
/// token, quotes included).
fn next_token<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let s = rest.trim_ascii_start();
    if s.is_empty() {
        return None;
    }
    let end = if s[0] == b'"' {
        s[1..].iter().position(|&b| b == b'"').map_or(s.len(), |i| i + 2)
    } else {
        s.iter().position(u8::is_ascii_whitespace).unwrap_or(s.len())
    };
    *rest = &s[end..];
    Some(&s[..end])
}

/// One record: Err(()) if shakmaty rejects it (then it is copied through).
fn shak_record(line: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    use shakmaty::fen::Epd;
    use shakmaty::san::SanPlus;
    use shakmaty::{CastlingMode, Chess, EnPassantMode};

    // The four position fields end at the fourth blank.
    let mut blanks = 0;
    let fields_end = line
        .iter()
        .position(|&b| {
            blanks += usize::from(b == b' ');
            blanks == 4
        })
        .unwrap_or(line.len());
    let epd = Epd::from_ascii(&line[..fields_end]).map_err(drop)?;
    let pos: Chess = epd.into_position(CastlingMode::Standard).map_err(drop)?;
    Epd::from_position(&pos, EnPassantMode::Legal).append_ascii_to(out);

    let mut rest = &line[fields_end..];
    while let Some(mut op) = next_operation(&mut rest) {
        let opcode = next_token(&mut op).ok_or(())?;
        out.push(b' ');
        out.extend_from_slice(opcode);
        match opcode {
            b"am" | b"bm" | b"pm" => {
                while let Some(san) = next_token(&mut op) {
                    let m = SanPlus::from_ascii(san).map_err(drop)?.san.to_move(&pos).map_err(drop)?;
                    out.push(b' ');
                    SanPlus::from_move(pos.clone(), m).append_ascii_to(out);
                }
            }
            b"pv" => {
                let mut line_pos = pos.clone();
                while let Some(san) = next_token(&mut op) {
                    let m = SanPlus::from_ascii(san).map_err(drop)?.san.to_move(&line_pos).map_err(drop)?;
                    out.push(b' ');
                    // Encodes, then plays the move (no extra clone).
                    SanPlus::from_move_and_play_unchecked(&mut line_pos, m).append_ascii_to(out);
                }
            }
            _ => {
                while let Some(t) = next_token(&mut op) {
                    out.push(b' ');
                    out.extend_from_slice(t);
                }
            }
        }
        out.push(b';');
    }
    Ok(())
}

fn shak_pipeline(data: &[u8], out: &mut Vec<u8>) -> u64 {
    out.clear();
    let (mut n, mut bad) = (0u64, 0u64);
    for line in lines(data) {
        let start = out.len();
        if shak_record(line, out).is_err() {
            out.truncate(start);
            out.extend_from_slice(line);
            bad += 1;
        }
        out.push(b'\n');
        n += 1;
    }
    assert_eq!(bad, 0, "shakmaty pipeline: rejected records");
    n
}

// ---------------------------------------------------------------------------
// python-chess, in a subprocess.

const PY_SCRIPT: &str = r#"
import sys, time
try:
    import chess
except ImportError:
    print("MISSING")
    sys.exit(0)
path, n = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    lines = []
    for line in f:
        if len(lines) >= n:
            break
        lines.append(line.rstrip("\n"))
nbytes = sum(len(l) + 1 for l in lines)
out = []
c0, t0 = time.process_time(), time.perf_counter()
for line in lines:
    board, ops = chess.Board.from_epd(line)
    out.append(board.epd(**ops))
t1, c1 = time.perf_counter(), time.process_time()
bad = sum(1 for a, b in zip(lines, out) if a != b)
print(len(lines), nbytes, t1 - t0, c1 - c0, bad, chess.__version__)
"#;

struct PyRun {
    records: u64,
    wall: Duration,
    cpu: Duration,
    version: String,
}

enum Py {
    Ran(PyRun),
    Missing(String),
}

fn python(path: &Path, records: usize) -> Py {
    let out = Command::new("python3")
        .arg("-c")
        .arg(PY_SCRIPT)
        .arg(path)
        .arg(records.to_string())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) => return Py::Missing(format!("python3 failed ({})", o.status)),
        Err(e) => return Py::Missing(format!("python3 not runnable: {e}")),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if text.trim() == "MISSING" {
        return Py::Missing("python-chess is not installed (`pip install chess`)".into());
    }
    let f: Vec<&str> = text.split_ascii_whitespace().collect();
    let parsed = (|| {
        let records: u64 = f.first()?.parse().ok()?;
        let wall: f64 = f.get(2)?.parse().ok()?;
        let cpu: f64 = f.get(3)?.parse().ok()?;
        let bad: u64 = f.get(4)?.parse().ok()?;
        Some((records, wall, cpu, bad, f.get(5)?.to_string()))
    })();
    let Some((records, wall, cpu, bad, version)) = parsed else {
        return Py::Missing(format!("unexpected output from python3: {text:?}"));
    };
    assert_eq!(bad, 0, "python-chess: {bad} records did not round-trip");
    Py::Ran(PyRun { records, wall: Duration::from_secs_f64(wall), cpu: Duration::from_secs_f64(cpu), version })
}

// ---------------------------------------------------------------------------
// Peak memory of the CLI.

/// Max RSS (KiB) and wall time of `epd normalize FILE -o /dev/null`.
fn cli_run(epd: &Path, file: &Path) -> Option<(u64, Duration)> {
    let (out, t) = timed(|| {
        Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(epd)
            .arg("normalize")
            .arg(file)
            .args(["-o", "/dev/null"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
    });
    let out = out.ok()?;
    assert!(out.status.success(), "epd normalize {} failed: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let kib = String::from_utf8_lossy(&out.stderr).lines().last()?.trim().parse().ok()?;
    Some((kib, t.wall))
}

struct MemRow {
    label: String,
    records: u64,
    bytes: u64,
    rss_kib: Vec<f64>,
    secs: Vec<f64>,
}

fn memory(data: &[u8], records: u64, quick: bool) -> Result<Vec<MemRow>, String> {
    let epd = epd_bench::release_cli().ok_or(
        "no release CLI next to this bench binary (an unoptimized test run, or `cargo build --release -p epd-cli` \
         not run yet); EPD_BIN=path sets it",
    )?;
    if !Path::new("/usr/bin/time").is_file() {
        return Err("/usr/bin/time is not installed".into());
    }
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let small = first_lines(data, (records / 10) as usize);
    let tenth = dir.join(format!("epd-bench-{pid}-tenth.epd"));
    let one = dir.join(format!("epd-bench-{pid}-1x.epd"));
    let ten = dir.join(format!("epd-bench-{pid}-10x.epd"));
    let write = |p: &Path, copies: usize, part: &[u8]| -> Result<(), String> {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?);
        for _ in 0..copies {
            f.write_all(part).map_err(|e| e.to_string())?;
        }
        f.flush().map_err(|e| e.to_string())
    };
    let cleanup = || {
        for p in [&tenth, &one, &ten] {
            let _ = std::fs::remove_file(p);
        }
    };
    let result = (|| {
        write(&tenth, 1, small)?;
        write(&one, 1, data)?;
        write(&ten, 10, data)?;
        let mut rows = vec![
            MemRow {
                label: "1/10×".into(),
                records: records / 10,
                bytes: small.len() as u64,
                rss_kib: vec![],
                secs: vec![],
            },
            MemRow { label: "1×".into(), records, bytes: data.len() as u64, rss_kib: vec![], secs: vec![] },
            MemRow {
                label: "10×".into(),
                records: records * 10,
                bytes: 10 * data.len() as u64,
                rss_kib: vec![],
                secs: vec![],
            },
        ];
        let runs = if quick { 1 } else { 3 };
        for _ in 0..runs {
            for (row, file) in rows.iter_mut().zip([&tenth, &one, &ten]) {
                let (kib, t) = cli_run(&epd, file).ok_or("could not read the max RSS from /usr/bin/time")?;
                row.rss_kib.push(kib as f64);
                row.secs.push(t.as_secs_f64());
            }
        }
        eprintln!("  CLI: {}", epd.display());
        Ok(rows)
    })();
    cleanup();
    result
}

// ---------------------------------------------------------------------------
// Driver.

/// `1234567.8` as `"1,234,568"`.
fn thousands(x: f64) -> String {
    let s = format!("{x:.0}");
    let mut o = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && !(i == 1 && s.starts_with('-')) && (s.len() - i) % 3 == 0 {
            o.push(',');
        }
        o.push(ch);
    }
    o
}

struct Config {
    quick: bool,
    runs: usize,
}

fn config() -> Config {
    let env_quick = std::env::var("EPD_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`,
    // unoptimized) only a one-round smoke run is made.
    let benching = std::env::args().any(|a| a == "--bench");
    let quick = env_quick || !benching || std::env::args().any(|a| a == "--quick");
    let runs = std::env::var("EPD_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).filter(|&n: &usize| n > 0).unwrap_or(
        if !benching {
            1
        } else if quick {
            3
        } else {
            7
        },
    );
    Config { quick, runs }
}

/// The cases, in table order.
const CASES: [&str; 5] = [
    "epd-core `verbs::run` Normalize, Strict (the CLI's loop)",
    "epd-core `Record::parse_into` + `append_canonical`, Strict",
    "epd-core `Record::parse_into` + `append_canonical`, Lenient",
    "shakmaty 0.30.1 pipeline (fields + every SAN parsed, resolved, re-encoded)",
    "python-chess `Board.from_epd` + `Board.epd(**ops)`",
];
const PY: usize = 4;

fn main() {
    let cfg = config();
    // The data set of issue 3 (shared/bench, see its README.md).
    let path = std::env::var_os("EPD_BENCH_DATA").map_or_else(epd_testkit::bench_corpus_path, PathBuf::from);
    let full = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIPPED: cannot read the data file {} ({e}); set EPD_BENCH_DATA.", path.display());
            return;
        }
    };
    let data: &[u8] = if cfg.quick { first_lines(&full, 10_000) } else { &full };
    let records = lines(data).count() as u64;
    let py_records = if cfg.quick { 1_000 } else { PY_RECORDS };
    let mb = data.len() as f64 / 1e6;
    eprintln!("{}: {records} records, {mb:.2} MB", path.display());

    // Correctness first (also the warm-up): every pipeline must give the
    // input back, byte for byte.
    let mut out = Vec::with_capacity(data.len() + 4096);
    let check = |name: &str, out: &[u8]| {
        if out != data {
            let i = out.iter().zip(data).position(|(a, b)| a != b).unwrap_or(out.len().min(data.len()));
            let line = data[..i].iter().filter(|&&b| b == b'\n').count() + 1;
            panic!("{name}: output differs from the input at byte {i} (line {line})");
        }
    };

    // For profilers (valgrind --tool=callgrind, perf): one pipeline, once,
    // untimed, over the data: EPD_BENCH_ONLY=verb|strict|lenient|shakmaty.
    if let Ok(only) = std::env::var("EPD_BENCH_ONLY") {
        let n = match only.as_str() {
            "verb" => epd_verb(data, &mut out),
            "strict" => epd_records(data, &mut out, ParseMode::Strict),
            "lenient" => epd_records(data, &mut out, ParseMode::Lenient),
            "shakmaty" => shak_pipeline(data, &mut out),
            other => panic!("EPD_BENCH_ONLY={other}: expected verb, strict, lenient or shakmaty"),
        };
        check(&only, &out);
        println!("EPD_BENCH_ONLY={only}: {n} records, output equal to the input");
        return;
    }
    assert_eq!(epd_verb(data, &mut out), records);
    check(CASES[0], &out);
    for (c, mode) in [(1, ParseMode::Strict), (2, ParseMode::Lenient)] {
        assert_eq!(epd_records(data, &mut out, mode), records);
        check(CASES[c], &out);
    }
    assert_eq!(shak_pipeline(data, &mut out), records);
    check(CASES[3], &out);
    eprintln!("  all Rust pipelines give the input back byte for byte");

    let mut py_note = None;
    let mut py_version = String::new();
    let mut samples: [Measured; 5] = Default::default();
    let t0 = std::time::Instant::now();
    for round in 0..cfg.runs {
        eprintln!("round {}/{} ...", round + 1, cfg.runs);
        let mut order = [0usize, 1, 2, 3, 4];
        order.rotate_left(round % CASES.len());
        if (round / CASES.len()) % 2 == 1 {
            order.reverse();
        }
        for c in order {
            if c == PY {
                if py_note.is_some() {
                    continue;
                }
                match python(&path, py_records) {
                    Py::Ran(r) => {
                        samples[PY].wall.push(r.records, r.wall);
                        samples[PY].cpu.push(r.records, r.cpu);
                        py_version = r.version;
                    }
                    Py::Missing(why) => {
                        eprintln!("  python-chess column skipped: {why}");
                        py_note = Some(why);
                    }
                }
                continue;
            }
            let (n, t) = match c {
                0 => timed(|| epd_verb(black_box(data), &mut out)),
                1 => timed(|| epd_records(black_box(data), &mut out, ParseMode::Strict)),
                2 => timed(|| epd_records(black_box(data), &mut out, ParseMode::Lenient)),
                _ => timed(|| shak_pipeline(black_box(data), &mut out)),
            };
            assert_eq!(n, records);
            check(CASES[c], &out);
            samples[c].push(n, t);
        }
    }
    eprintln!("measured in {:.0} s", t0.elapsed().as_secs_f64());

    eprintln!("peak memory of `epd normalize` ...");
    let mem = memory(data, records, cfg.quick);

    // Report.
    let quick =
        if cfg.quick { " QUICK smoke run (10,000 records; python-chess 1,000): not for the record." } else { "" };
    let have_py = !samples[PY].wall.is_empty();
    println!();
    println!("Single-threaded; medians of {} rounds, pipelines interleaved, order rotated per round.{quick}", cfg.runs);
    println!(
        "Data: `{}`, {records} records, {mb:.2} MB{}; every output checked equal to the input byte for byte.",
        path.display(),
        if have_py {
            format!(" (python-chess {py_version}: the first {py_records} records, timed inside the subprocess)")
        } else {
            String::new()
        }
    );
    println!();
    println!(
        "| Pipeline | records/s | MB/s | µs/record | min–max records/s | spread | records/s by CPU time | CPU/wall \
         | epd-core verb / this | same, by CPU time |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    let verb = &samples[0];
    let bytes_per_record = data.len() as f64 / records as f64;
    let py_bytes_per_record = first_lines(data, py_records).len() as f64 / py_records.min(records as usize) as f64;
    let both = |a: &Samples, b: &Samples| {
        if b.is_empty() || a.len() != b.len() {
            return "—".to_string();
        }
        format!("{:.2}× ({:.2}×)", a.median_rate() / b.median_rate(), paired_ratio(a, b))
    };
    for (c, name) in CASES.iter().enumerate() {
        let m = &samples[c];
        if m.wall.is_empty() {
            println!("| {name} | skipped: {} | | | | | | | | |", py_note.as_deref().unwrap_or("not run"));
            continue;
        }
        let r = m.wall.median_rate();
        let bpr = if c == PY { py_bytes_per_record } else { bytes_per_record };
        let (lo, hi) = m.wall.rate_range();
        let cpu_ok = m.cpu.len() == m.wall.len() && m.wall.median_secs() >= 0.1;
        let (busy, cpu_rate) = if cpu_ok {
            (format!("{:.0}%", 100.0 * m.cpu.median_secs() / m.wall.median_secs()), thousands(m.cpu.median_rate()))
        } else {
            ("—".into(), "—".into())
        };
        let (vs, vs_cpu) = if c == 0 {
            ("—".into(), "—".into())
        } else {
            (both(&verb.wall, &m.wall), if cpu_ok { both(&verb.cpu, &m.cpu) } else { "—".into() })
        };
        println!(
            "| {name} | {} | {:.1} | {:.2} | {}–{} | {:.0}% | {cpu_rate} | {busy} | {vs} | {vs_cpu} |",
            thousands(r),
            r * bpr / 1e6,
            1e6 / r,
            thousands(lo),
            thousands(hi),
            100.0 * m.wall.spread()
        );
    }
    println!();
    println!(
        "Ratios: ratio of the median throughputs, and in parentheses the median of the per-round ratios. \
         \"By CPU time\": records over the thread's on-CPU time (/proc/thread-self/schedstat; python: \
         time.process_time), which leaves out the time the thread waited for a CPU on this shared machine."
    );
    println!();
    println!("| Goal | measured (wall clock) | by CPU time | verdict |");
    println!("|---|---|---|---|");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let (r0, r0_cpu) = (verb.wall.median_rate(), verb.cpu.median_rate());
    println!(
        "| ≥ 1,000,000 records/s single-threaded (verb) | {} records/s | {} records/s | {} |",
        thousands(r0),
        if verb.cpu.is_empty() { "—".into() } else { thousands(r0_cpu) },
        verdict(r0 >= 1e6)
    );
    let goal_ratio = |name: &str, c: usize, goal: f64| {
        let m = &samples[c];
        if m.wall.is_empty() {
            println!("| ≥ {goal}× {name} | skipped | — | — |");
            return;
        }
        let (a, p) = (r0 / m.wall.median_rate(), paired_ratio(&verb.wall, &m.wall));
        println!(
            "| ≥ {goal}× {name} | {a:.2}× (paired {p:.2}×) | {} | {} |",
            both(&verb.cpu, &m.cpu),
            verdict(a.min(p) >= goal)
        );
    };
    goal_ratio("the shakmaty pipeline", 3, 4.0);
    goal_ratio("python-chess", PY, 300.0);
    if let Some(why) = &py_note {
        println!();
        println!("python-chess column skipped: {why}.");
    }

    println!();
    match mem {
        Err(why) => println!("Peak memory of `epd normalize`: skipped ({why})."),
        Ok(rows) => {
            println!(
                "Peak memory of `epd normalize FILE -o /dev/null` (release CLI; max RSS from `/usr/bin/time -f %M`, \
                 median of {} runs; the wall time includes process start and file I/O):",
                rows[0].rss_kib.len()
            );
            println!();
            println!("| Input | records | MB | max RSS (KiB) | min–max KiB | wall s | CLI records/s |");
            println!("|---|--:|--:|--:|--:|--:|--:|");
            for r in &rows {
                let lo = r.rss_kib.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = r.rss_kib.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let s = median(&r.secs);
                println!(
                    "| {} | {} | {:.1} | {:.0} | {lo:.0}–{hi:.0} | {s:.2} | {} |",
                    r.label,
                    thousands(r.records as f64),
                    r.bytes as f64 / 1e6,
                    median(&r.rss_kib),
                    thousands(r.records as f64 / s)
                );
            }
            let (a, b) = (median(&rows[1].rss_kib), median(&rows[2].rss_kib));
            // Flat: ten times the input adds under 10 % (or 1 MiB).
            let flat = b <= a * 1.10 || b - a <= 1024.0;
            println!();
            println!(
                "Memory flatness (10× input vs 1×: {:+.0} KiB, {:.2}×): {}",
                b - a,
                b / a,
                if flat { "flat" } else { "NOT flat" }
            );
        }
    }
}
