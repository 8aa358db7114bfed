//! What the simulations share: the invariant macro, the trace of the
//! last steps kept for a failure report, and the runner that spreads
//! seeds over two threads and keeps the lowest failing one.

#![allow(dead_code)]

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// Returns `Err(message)` from the enclosing function unless `cond`.
macro_rules! check {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(format!($($arg)*));
        }
    };
}

/// The last steps of a run, at most `2 * keep` lines (the oldest `keep`
/// dropped at once), each stamped with the virtual time; with `full`,
/// every line also goes to standard error as it happens.
#[derive(Debug)]
pub struct Trace {
    lines: Vec<String>,
    keep: usize,
    full: bool,
}

impl Trace {
    pub fn new(keep: usize, full: bool) -> Trace {
        Trace { lines: Vec::new(), keep, full }
    }

    /// A step at `now_ns` of virtual time.
    pub fn note(&mut self, now_ns: u64, text: &str) {
        let line = format!("{:>10.3} ms  {text}", now_ns as f64 / 1e6);
        if self.full {
            eprintln!("{line}");
        }
        if self.lines.len() >= self.keep * 2 {
            self.lines.drain(..self.keep);
        }
        self.lines.push(line);
    }

    /// The last `keep` lines, oldest first, one per line.
    pub fn tail(&self) -> String {
        let from = self.lines.len().saturating_sub(self.keep);
        self.lines[from..].join("\n")
    }
}

/// Runs `run` for every seed of `seeds` on two threads. The results of
/// the seeds that passed, and the failure of the lowest seed that failed
/// (the others stop taking seeds once one fails).
pub fn run_seeds<T: Send, E: Send>(
    seeds: Range<u64>,
    run: impl Fn(u64) -> Result<T, E> + Sync,
) -> (Vec<T>, Option<(u64, E)>) {
    let next = AtomicU64::new(seeds.start);
    let results = Mutex::new((Vec::new(), None::<(u64, E)>));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= seeds.end {
                    return;
                }
                let r = run(seed);
                let mut g = results.lock().unwrap_or_else(PoisonError::into_inner);
                match r {
                    Ok(t) => g.0.push(t),
                    Err(e) => {
                        if g.1.as_ref().is_none_or(|(old, _)| seed < *old) {
                            g.1 = Some((seed, e));
                        }
                        next.store(seeds.end, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(PoisonError::into_inner)
}
