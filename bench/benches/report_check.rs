//! `epd report` against `epd check` on the same 1,000,000 result records
//! (issues 20 and 48), in two shapes: ten runs of the benchmark corpus
//! (each file a run of 100,000 records with pm, pv, ce, acd, acn, acs and
//! bm/am), and one run of the ten files one after another (one file: a
//! run with 900,000 duplicate ids and positions). The release CLI run as
//! a child process, every command of both shapes interleaved (their order
//! alternating from round to round), output to /dev/null. Prints, per
//! shape, the median wall time, peak memory (max RSS, GNU time) and CPU
//! time of each, and the ratios of the medians. `epd check` runs with its
//! default (one job) and with `-j 2`; the report with its default (a
//! worker per core, shared by the runs) and with `-j 1`.
//!
//! ```text
//! cargo build --release -p epd-cli
//! cargo bench -p epd-bench --bench report_check             # 7 rounds
//! EPD_BENCH_RUNS=11 cargo bench -p epd-bench --bench report_check
//! EPD_BENCH_DATA=other.epd EPD_BIN=path/to/epd cargo bench -p epd-bench --bench report_check
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use epd_bench::median;

/// Wall time, peak memory (KiB) and CPU time (user and system, seconds)
/// of `epd ARGS`.
fn run(epd: &Path, args: &[String]) -> (Duration, u64, f64) {
    let mem = std::env::temp_dir().join(format!("epd-report-bench-{}.time", std::process::id()));
    let start = Instant::now();
    let status = Command::new("/usr/bin/time")
        .arg("-o")
        .arg(&mem)
        .args(["-f", "%M %U %S"])
        .arg(epd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run epd under /usr/bin/time");
    let wall = start.elapsed();
    assert!(status.code().is_some_and(|c| c <= 1), "epd {args:?}: {status}");
    let text = std::fs::read_to_string(&mem).unwrap_or_default();
    let _ = std::fs::remove_file(&mem);
    let last: Vec<f64> = text.lines().last().unwrap_or("").split_whitespace().filter_map(|f| f.parse().ok()).collect();
    let at = |i: usize| last.get(i).copied().unwrap_or(0.0);
    (wall, at(0) as u64, at(1) + at(2))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let quick =
        std::env::args().any(|a| a == "--quick" || a == "--test") || std::env::var_os("EPD_BENCH_QUICK").is_some();
    let rounds: usize =
        std::env::var("EPD_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(if quick { 1 } else { 7 });
    let Some(epd) = epd_bench::release_cli() else {
        eprintln!("report_check: build the release CLI first (cargo build --release -p epd-cli)");
        return;
    };
    let data = std::env::var_os("EPD_BENCH_DATA").map_or_else(epd_testkit::bench_corpus_path, PathBuf::from);
    let dir = std::env::temp_dir().join(format!("epd-report-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let runs = if quick { 2 } else { 10 };
    let mut files = Vec::new();
    for i in 0..runs {
        let f = dir.join(format!("run{i}.epd"));
        std::fs::copy(&data, &f).expect("copy the data");
        files.push(f.to_string_lossy().into_owned());
    }
    let one = dir.join("one.epd");
    let mut all = Vec::new();
    for f in &files {
        all.extend(std::fs::read(f).expect("read a copy"));
    }
    std::fs::write(&one, all).expect("write the one file");
    let shapes =
        [(format!("{runs} files"), files.clone()), ("one file".to_owned(), vec![one.to_string_lossy().into_owned()])];
    let heads: [&[&str]; 5] =
        [&["check"], &["check", "-j", "2"], &["report"], &["report", "-j", "1"], &["report", "--format", "json"]];
    // (shape, name, arguments)
    let mut modes: Vec<(usize, String, Vec<String>)> = Vec::new();
    for (s, (_, inputs)) in shapes.iter().enumerate() {
        for head in heads {
            let args = head.iter().map(|s| (*s).to_owned()).chain(inputs.iter().cloned()).collect();
            modes.push((s, format!("epd {}", head.join(" ")), args));
        }
    }
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut mems: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut cpus: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    for round in 0..rounds {
        let order: Vec<usize> =
            if round % 2 == 0 { (0..modes.len()).collect() } else { (0..modes.len()).rev().collect() };
        for i in order {
            let (w, m, c) = run(&epd, &modes[i].2);
            walls[i].push(w.as_secs_f64());
            mems[i].push(m as f64);
            cpus[i].push(c);
        }
    }
    let records = 100_000 * runs;
    println!("{records} records, {rounds} rounds, medians:");
    for (s, (shape, _)) in shapes.iter().enumerate() {
        println!();
        println!("{shape}:");
        println!("| command | wall | max RSS | wall / epd check | CPU (user + system) | CPU / epd check |");
        println!("|---|---|---|---|---|---|");
        let mine: Vec<usize> = (0..modes.len()).filter(|&i| modes[i].0 == s).collect();
        let base = median(&walls[mine[0]]);
        let base_cpu = median(&cpus[mine[0]]);
        for i in mine {
            let w = median(&walls[i]);
            let c = median(&cpus[i]);
            println!(
                "| `{}` | {w:.3} s | {:.0} MB | {:.2}× | {c:.2} s | {:.2}× |",
                modes[i].1,
                median(&mems[i]) / 1024.0,
                w / base,
                c / base_cpu
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
