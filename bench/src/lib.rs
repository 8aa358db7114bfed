//! Benchmark helpers shared by the benches of this (never published)
//! crate: timing samples with medians, and number
//! formatting for the Markdown tables pasted into `BENCHMARKS.md`. The
//! seeded generator and corpus lookup are `epd-testkit`'s.
//!
//! The peer libraries (cozy-chess, shakmaty) are dev-dependencies used by
//! the benches only; nothing here depends on them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The median of `xs` (the mean of the two middle values for an even
/// count); `NaN` for an empty slice.
#[must_use]
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// CPU time consumed so far by the calling thread, from Linux's
/// `/proc/thread-self/schedstat` (nanoseconds on the CPU); `None` where
/// that file is missing or unreadable.
#[must_use]
pub fn thread_cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_ascii_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Wall-clock and (where available) on-CPU time of one run.
#[derive(Copy, Clone, Debug)]
pub struct Timing {
    /// Wall-clock time.
    pub wall: Duration,
    /// Time the thread spent on a CPU (excludes time it waited while
    /// other processes ran), if the platform tells.
    pub cpu: Option<Duration>,
}

/// Runs `f` once and returns its result and timing.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Timing) {
    let cpu0 = thread_cpu_time();
    let start = Instant::now();
    let out = f();
    let wall = start.elapsed();
    let cpu = match (cpu0, thread_cpu_time()) {
        (Some(a), Some(b)) if b > a => Some(b - a),
        _ => None,
    };
    (out, Timing { wall, cpu })
}

/// Throughput samples of one measured case: wall-clock and CPU-time rates.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// By wall-clock time.
    pub wall: Samples,
    /// By on-CPU time (empty where unavailable).
    pub cpu: Samples,
}

impl Measured {
    /// Records one run.
    pub fn push(&mut self, items: u64, t: Timing) {
        self.wall.push(items, t.wall);
        if let Some(cpu) = t.cpu {
            self.cpu.push(items, cpu);
        }
    }
}

/// Throughput samples (items per second) of one measured case.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    rates: Vec<f64>,
    secs: Vec<f64>,
}

impl Samples {
    /// No samples yet.
    #[must_use]
    pub fn new() -> Samples {
        Samples::default()
    }

    /// Records one run: `items` processed in `elapsed`.
    pub fn push(&mut self, items: u64, elapsed: Duration) {
        let s = elapsed.as_secs_f64().max(1e-9);
        self.secs.push(s);
        self.rates.push(items as f64 / s);
    }

    /// The number of runs recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// `true` if no run was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// Median throughput, items per second.
    #[must_use]
    pub fn median_rate(&self) -> f64 {
        median(&self.rates)
    }

    /// Median wall-clock seconds of one run.
    #[must_use]
    pub fn median_secs(&self) -> f64 {
        median(&self.secs)
    }

    /// Lowest and highest throughput, items per second.
    #[must_use]
    pub fn rate_range(&self) -> (f64, f64) {
        let lo = self.rates.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// Spread of the runs: (highest - lowest) / median, as a fraction.
    #[must_use]
    pub fn spread(&self) -> f64 {
        let (lo, hi) = self.rate_range();
        (hi - lo) / self.median_rate()
    }
}

/// The median of the per-run throughput ratios `a[i] / b[i]`: runs `i` of
/// two cases measured back to back share the machine's momentary load, so
/// on a noisy machine this pairs better than the ratio of the medians.
#[must_use]
pub fn paired_ratio(a: &Samples, b: &Samples) -> f64 {
    let r: Vec<f64> = a.rates.iter().zip(&b.rates).map(|(x, y)| x / y).collect();
    median(&r)
}

/// Millions per second with two decimals (`"12.34"`).
#[must_use]
pub fn mega(rate: f64) -> String {
    format!("{:.2}", rate / 1e6)
}

/// A ratio as `"1.23×"`.
#[must_use]
pub fn ratio(num: f64, den: f64) -> String {
    format!("{:.2}×", num / den)
}

/// A process's own CPU time so far (user + system, its children's not
/// included), from Linux's `/proc/PID/stat` (clock ticks of 10 ms);
/// `None` once it has exited.
#[must_use]
pub fn process_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// The processes whose parent is `pid`.
#[must_use]
pub fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return out };
    for e in dir.flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
        let Some(close) = stat.rfind(')') else { continue };
        let ppid = stat[close + 2..].split_whitespace().nth(1).and_then(|x| x.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(p);
        }
    }
    out
}

/// Waits for `child`, sampling its own CPU time (and that of the
/// processes `others` names) every `every` until it exits; returns
/// (wall, its CPU, the others' CPU). What it spends after the last
/// sample is not counted, so sample often.
pub fn watch_process(
    mut child: std::process::Child,
    every: Duration,
    others: impl Fn(u32) -> Vec<u32>,
) -> (Duration, Duration, Duration) {
    let start = Instant::now();
    let pid = child.id();
    let mut own = Duration::ZERO;
    let mut theirs: std::collections::BTreeMap<u32, Duration> = std::collections::BTreeMap::new();
    loop {
        if let Some(c) = process_cpu(pid) {
            own = own.max(c);
        }
        for b in others(pid) {
            if let Some(c) = process_cpu(b) {
                let e = theirs.entry(b).or_default();
                *e = (*e).max(c);
            }
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(every);
    }
    (start.elapsed(), own, theirs.values().sum())
}

/// The release CLI for the benches that run it as a child process:
/// `$EPD_BIN`, else `epd` next to the `deps/` directory the bench binary
/// runs from (the same target directory); `None` unless that is a release
/// build (`cargo build --release -p epd-cli`).
#[must_use]
pub fn release_cli() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("EPD_BIN") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?;
    let p = dir.join("epd");
    (p.is_file() && dir.ends_with("release")).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn samples() {
        let mut s = Samples::new();
        assert!(s.is_empty());
        s.push(100, Duration::from_secs(1));
        s.push(300, Duration::from_secs(1));
        s.push(200, Duration::from_secs(1));
        assert_eq!(s.len(), 3);
        assert_eq!(s.median_rate(), 200.0);
        assert_eq!(s.rate_range(), (100.0, 300.0));
        assert_eq!(s.spread(), 1.0);
        let mut t = Samples::new();
        for n in [50, 100, 400] {
            t.push(n, Duration::from_secs(1));
        }
        // Per-run ratios 2, 3, 0.5: median 2.
        assert_eq!(paired_ratio(&s, &t), 2.0);
        assert_eq!(mega(12_345_678.0), "12.35");
        assert_eq!(ratio(3.0, 2.0), "1.50×");
    }

    #[test]
    fn timing() {
        let (x, t) = timed(|| (0..1_000_000u64).map(std::hint::black_box).sum::<u64>());
        assert_eq!(x, 499_999_500_000);
        assert!(t.wall > Duration::ZERO);
        let mut m = Measured::default();
        m.push(10, t);
        assert_eq!(m.wall.len(), 1);
        assert!(m.cpu.len() <= 1);
    }
}
