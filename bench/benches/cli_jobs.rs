//! `epd normalize --jobs 2` against `--jobs 1` on a large file (issue 5):
//! the release CLI run as a child process, the two job counts interleaved
//! (their order alternating from round to round), stdout and stderr to
//! /dev/null as a script would send them. Prints, per mode, the median
//! wall times, the speed-up (ratio of the medians, and the median of the
//! per-round ratios) and the CPU time (user + system, from GNU time) of
//! each job count.
//!
//! ```text
//! cargo build --release -p epd-cli
//! cargo bench -p epd-bench --bench cli_jobs                  # 21 rounds
//! EPD_BENCH_RUNS=41 cargo bench -p epd-bench --bench cli_jobs
//! EPD_BENCH_DATA=other.epd EPD_BIN=path/to/epd cargo bench -p epd-bench --bench cli_jobs
//! ```
//!
//! Run it on an idle machine: with two cores, anything else running takes
//! the second worker's core.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use epd_bench::median;

/// One run: wall time and CPU time of the child, and its exit code.
/// The CPU time comes from GNU time (`-o FILE -f "%U %S"`), which adds
/// a fork and an exec to the wall time of both job counts alike.
fn run(epd: &Path, data: &Path, jobs: u32, extra: &[&str]) -> (Duration, Duration, i32) {
    let times = std::env::temp_dir().join(format!("epd-cli-jobs-{}.time", std::process::id()));
    let start = Instant::now();
    let status = Command::new("/usr/bin/time")
        .arg("-o")
        .arg(&times)
        .args(["-f", "%U %S"])
        .arg(epd)
        .arg("normalize")
        .args(["--jobs", &jobs.to_string()])
        .args(extra)
        .arg(data)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run epd");
    let wall = start.elapsed();
    let text = std::fs::read_to_string(&times).unwrap_or_default();
    let _ = std::fs::remove_file(&times);
    // GNU time writes "Command exited with non-zero status N" first when
    // the exit code is not 0.
    let cpu: f64 = text.lines().last().unwrap_or("").split_whitespace().filter_map(|t| t.parse::<f64>().ok()).sum();
    (wall, Duration::from_secs_f64(cpu), status.code().unwrap_or(-1))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let quick =
        std::env::args().any(|a| a == "--quick" || a == "--test") || std::env::var_os("EPD_BENCH_QUICK").is_some();
    let rounds: usize =
        std::env::var("EPD_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(if quick { 1 } else { 21 });
    // The file of issue 5: 242,201 FEN lines (every record converted).
    let data =
        std::env::var_os("EPD_BENCH_DATA").map_or_else(|| epd_testkit::corpus_path("UHO_4060_v3.epd"), PathBuf::from);
    if !data.is_file() {
        println!("cli_jobs: {} not found; set EPD_BENCH_DATA", data.display());
        return;
    }
    let Some(epd) = epd_bench::release_cli() else {
        println!("cli_jobs: no release CLI (cargo build --release -p epd-cli, or EPD_BIN=path)");
        return;
    };
    println!("cli_jobs: {} on {}, {rounds} interleaved rounds", epd.display(), data.display());
    println!();
    println!("| mode | `--jobs 1` median | `--jobs 2` median | speed-up (of medians) | median per-round speed-up | CPU `--jobs 1` | CPU `--jobs 2` |");
    println!("|---|--:|--:|--:|--:|--:|--:|");
    let modes: [(&str, &[&str]); 2] =
        [("default strict, diagnostics to /dev/null", &[]), ("`--lenient --quiet`", &["--lenient", "--quiet"])];
    for (name, extra) in modes {
        let (mut w1, mut w2, mut c1, mut c2, mut ratios) = (vec![], vec![], vec![], vec![], vec![]);
        for round in 0..rounds {
            let order: [u32; 2] = if round % 2 == 0 { [1, 2] } else { [2, 1] };
            let mut got = [(0.0, 0.0); 3];
            for jobs in order {
                let (wall, cpu, code) = run(&epd, &data, jobs, extra);
                assert!(code == 0 || code == 1, "epd normalize --jobs {jobs} exited {code}");
                got[jobs as usize] = (wall.as_secs_f64(), cpu.as_secs_f64());
            }
            w1.push(got[1].0);
            c1.push(got[1].1);
            w2.push(got[2].0);
            c2.push(got[2].1);
            ratios.push(got[1].0 / got[2].0);
        }
        let (m1, m2) = (median(&w1), median(&w2));
        println!(
            "| {name} | {m1:.3} s | {m2:.3} s | **{:.2}×** | {:.2}× | {:.3} s | {:.3} s |",
            m1 / m2,
            median(&ratios),
            median(&c1),
            median(&c2)
        );
    }
}
