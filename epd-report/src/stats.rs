//! The statistics a report prints, each with its formula named: the
//! Wilson score interval for a proportion, the exact binomial test
//! (McNemar's exact test on the discordant pairs of two runs, and the
//! sign test on paired times), and distributions kept as counts of
//! values so their quantiles are exact where the values are few.

use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

/// The normal quantile of a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval (95 %) of `k` successes in `n` trials, as
/// proportions in 0..=1; `(0, 1)` when `n` is 0.
///
/// ```
/// let (lo, hi) = epd_report::wilson(8, 10);
/// assert!((lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4);
/// ```
#[must_use]
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms; relative error below
/// 1e-13 over the range used here).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The two-sided exact binomial test of `b` against `c` under p = 1/2:
/// twice the probability of a split at least as uneven, capped at 1.
/// On the discordant records of two runs (solved by one only) this is
/// McNemar's exact test; on paired times (faster in one run) the sign
/// test. 1 when there is nothing to compare.
///
/// ```
/// // 1 against 9: 2 × (1 + 10) / 1024.
/// assert!((epd_report::binomial_two_sided(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
/// assert_eq!(epd_report::binomial_two_sided(0, 0), 1.0);
/// ```
#[must_use]
pub fn binomial_two_sided(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let nf = n as f64;
    // ln of C(n, k) / 2^n, then down the tail by pmf(i-1) = pmf(i) i / (n-i+1).
    let ln_pk = ln_gamma(nf + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0) - nf * 2f64.ln();
    let mut term = ln_pk.exp();
    let mut sum = 0.0;
    let mut i = k;
    loop {
        sum += term;
        if i == 0 || term < sum * 1e-17 {
            break;
        }
        term *= i as f64 / (n - i + 1) as f64;
        i -= 1;
    }
    (2.0 * sum).min(1.0)
}

/// A hasher for integer keys that are already well spread or small
/// (hashes of ids and positions, counted values): one multiplication.
#[derive(Clone, Copy, Debug, Default)]
pub struct Multiply(u64);

impl Hasher for Multiply {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
}

/// Hash maps keyed by integers, with [`Multiply`].
pub type FastHash = BuildHasherDefault<Multiply>;

/// Values of this magnitude and more are kept to four significant digits
/// in a [`Distribution`], so the number of distinct values stays bounded
/// (node counts); below it every value is kept exactly (every `ce`,
/// depth and time in seconds in practice).
pub const EXACT_BELOW: i64 = 100_000;

/// A distribution of integer values (depths, nodes, seconds, scores):
/// counts per value, exact below [`EXACT_BELOW`] in magnitude and to four
/// significant digits above, so memory is bounded whatever the number of
/// records: the counts live in pages of an array indexed by value, made
/// when a value first falls in them (a few pages for a run's depths or
/// node counts; 3.6 MB if values cover every magnitude of an i64).
#[derive(Clone, Debug, Default)]
pub struct Distribution {
    /// For each page of indices, its place in `pages` plus one (0: none).
    directory: Vec<u32>,
    /// Counts in 32 bits, so a page stays small in the cache; what
    /// overflows goes to `carries`, 2^32 at a time.
    pages: Vec<[u32; PAGE]>,
    carries: std::collections::BTreeMap<i64, u64>,
    /// Indices added and not yet counted: counted a batch at a time, in
    /// index order, so the counts are visited in order rather than at
    /// random (values spread over a wide range, like evaluations, would
    /// miss the cache at every one).
    pending: Vec<i32>,
    n: u64,
    sum: f64,
}

/// Counts per page.
const PAGE: usize = 512;

/// Values added before they are counted.
const BATCH: usize = 1024;

/// Indices of kept values: values below EXACT_BELOW in magnitude are their
/// own index; above, 9000 four-digit mantissas per power of ten from 10^5
/// to 10^18. Signed like the value, so index order is value order.
const TOP_INDEX: i64 = EXACT_BELOW + 14 * 9000;

/// Pages on each side of zero.
const HALF_PAGES: i64 = TOP_INDEX / PAGE as i64 + 1;

/// The index of the kept value for `v`.
fn index_of(v: i64) -> i64 {
    let a = v.unsigned_abs();
    if a < EXACT_BELOW as u64 {
        return v;
    }
    let digits = a.ilog10();
    let mantissa = a / 10u64.pow(digits - 3);
    let i = EXACT_BELOW + i64::from(digits - 5) * 9000 + (mantissa as i64 - 1000);
    if v < 0 {
        -i
    } else {
        i
    }
}

/// The kept value of index `i`: the value itself, or its first four
/// significant digits.
fn value_at(i: i64) -> i64 {
    let a = i.abs();
    if a < EXACT_BELOW {
        return i;
    }
    let k = a - EXACT_BELOW;
    let digits = (5 + k / 9000) as u32;
    let mantissa = 1000 + k % 9000;
    // The largest mantissas of 10^18 overflow i64: the values they stand
    // for (from 9.223e18) saturate.
    let v = mantissa.saturating_mul(10i64.pow(digits - 3));
    if i < 0 {
        -v
    } else {
        v
    }
}

impl PartialEq for Distribution {
    fn eq(&self, other: &Distribution) -> bool {
        self.n == other.n && self.sum == other.sum && self.sorted() == other.sorted()
    }
}

/// A distribution's summary: count, extremes, quartiles (linear
/// interpolation between closest ranks, as R's type 7 and numpy's
/// default), mean and 90th percentile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// How many values.
    pub n: u64,
    /// The smallest.
    pub min: f64,
    /// The first quartile.
    pub q1: f64,
    /// The median.
    pub median: f64,
    /// The third quartile.
    pub q3: f64,
    /// The mean (of the values as given, not as kept).
    pub mean: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The largest.
    pub max: f64,
}

impl Distribution {
    /// Adds a value.
    pub fn add(&mut self, v: i64) {
        // Every index fits an i32 (|index| < TOP_INDEX).
        self.pending.push(index_of(v) as i32);
        if self.pending.len() >= BATCH {
            self.flush();
        }
        self.n += 1;
        self.sum += v as f64;
    }

    /// Counts the pending indices.
    fn flush(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_unstable();
        for run in pending.chunk_by(|a, b| a == b) {
            self.count(i64::from(run[0]), run.len() as u64);
        }
        pending.clear();
        self.pending = pending;
    }

    fn count(&mut self, index: i64, c: u64) {
        if self.directory.is_empty() {
            self.directory = vec![0; 2 * HALF_PAGES as usize];
        }
        let at = index + HALF_PAGES * PAGE as i64;
        let (page, slot) = ((at / PAGE as i64) as usize, (at % PAGE as i64) as usize);
        let mut p = self.directory[page];
        if p == 0 {
            self.pages.push([0; PAGE]);
            p = self.pages.len() as u32;
            self.directory[page] = p;
        }
        let cell = &mut self.pages[p as usize - 1][slot];
        let total = u64::from(*cell) + c;
        *cell = total as u32;
        if total > u64::from(u32::MAX) {
            *self.carries.entry(index).or_insert(0) += total >> 32;
        }
    }

    /// The count at `index` whose low 32 bits are `low`.
    fn full_count(&self, index: i64, low: u32) -> u64 {
        let high = if self.carries.is_empty() { 0 } else { self.carries.get(&index).copied().unwrap_or(0) };
        (high << 32) | u64::from(low)
    }

    /// Adds another distribution's values.
    pub fn merge(&mut self, other: &Distribution) {
        for (page, &p) in other.directory.iter().enumerate() {
            if p == 0 {
                continue;
            }
            for (slot, &c) in other.pages[p as usize - 1].iter().enumerate() {
                let index = (page * PAGE + slot) as i64 - HALF_PAGES * PAGE as i64;
                let c = other.full_count(index, c);
                if c > 0 {
                    self.count(index, c);
                }
            }
        }
        for &i in &other.pending {
            self.count(i64::from(i), 1);
        }
        self.n += other.n;
        self.sum += other.sum;
    }

    /// How many values.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.n
    }

    /// No values.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The kept values and their counts, ascending (index order is value
    /// order).
    fn sorted(&self) -> Vec<(i64, u64)> {
        // (index, count) of the pages, then of the pending indices, merged.
        let mut counted = Vec::new();
        for (page, &p) in self.directory.iter().enumerate() {
            if p == 0 {
                continue;
            }
            for (slot, &c) in self.pages[p as usize - 1].iter().enumerate() {
                let index = (page * PAGE + slot) as i64 - HALF_PAGES * PAGE as i64;
                let c = self.full_count(index, c);
                if c > 0 {
                    counted.push((index, c));
                }
            }
        }
        let mut pending = self.pending.clone();
        pending.sort_unstable();
        let mut more = pending.chunk_by(|a, b| a == b).map(|r| (i64::from(r[0]), r.len() as u64)).peekable();
        let mut v = Vec::with_capacity(counted.len());
        let mut counted = counted.into_iter().peekable();
        loop {
            let next = match (counted.peek(), more.peek()) {
                (Some(&(a, x)), Some(&(b, y))) if a == b => {
                    counted.next();
                    more.next();
                    (a, x + y)
                }
                (Some(&(a, _)), Some(&(b, _))) if b < a => more.next().expect("peeked"),
                (Some(_), _) => counted.next().expect("peeked"),
                (None, Some(_)) => more.next().expect("peeked"),
                (None, None) => break,
            };
            v.push((value_at(next.0), next.1));
        }
        v
    }

    /// The value of 0-based rank `r` in `sorted`.
    fn at_rank(sorted: &[(i64, u64)], r: u64) -> i64 {
        let mut seen = 0;
        for &(v, c) in sorted {
            seen += c;
            if r < seen {
                return v;
            }
        }
        sorted.last().map_or(0, |&(v, _)| v)
    }

    /// The `p` quantile (0..=1), linear between closest ranks; `None`
    /// when empty.
    #[must_use]
    pub fn quantile(&self, p: f64) -> Option<f64> {
        self.quantile_in(&self.sorted(), p)
    }

    fn quantile_in(&self, sorted: &[(i64, u64)], p: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let q = (self.n - 1) as f64 * p.clamp(0.0, 1.0);
        let lo = q.floor() as u64;
        let hi = q.ceil() as u64;
        let (a, b) = (Self::at_rank(sorted, lo) as f64, Self::at_rank(sorted, hi) as f64);
        Some(a + (q - lo as f64) * (b - a))
    }

    /// The summary; `None` when empty.
    #[must_use]
    pub fn summary(&self) -> Option<Summary> {
        let sorted = self.sorted();
        let q = |p| self.quantile_in(&sorted, p);
        Some(Summary {
            n: self.n,
            min: q(0.0)?,
            q1: q(0.25)?,
            median: q(0.5)?,
            q3: q(0.75)?,
            mean: self.sum / self.n as f64,
            p90: q(0.9)?,
            max: q(1.0)?,
        })
    }

    /// Counts in consecutive bins: `edges` ascending; bin i holds values
    /// in `edges[i]..edges[i+1]`, the last bin values from its edge up.
    /// Values below the first edge go in the first bin.
    #[must_use]
    pub fn histogram(&self, edges: &[i64]) -> Vec<u64> {
        let mut out = vec![0; edges.len()];
        if edges.is_empty() {
            return out;
        }
        for (v, c) in self.sorted() {
            let i = edges.partition_point(|&e| e <= v).saturating_sub(1);
            out[i] += c;
        }
        out
    }

    /// Each kept value and its count, ascending.
    #[must_use]
    pub fn values(&self) -> Vec<(i64, u64)> {
        self.sorted()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_worked_by_hand() {
        // k, n, lower, upper (from p̂ ± z√(p̂q̂/n + z²/4n²) over 1 + z²/n).
        for (k, n, lo, hi) in [
            (8, 10, 0.490_16, 0.943_31),
            (0, 10, 0.0, 0.277_53),
            (10, 10, 0.722_47, 1.0),
            (150, 300, 0.443_77, 0.556_23),
            (1, 1, 0.206_55, 1.0),
        ] {
            let (l, h) = wilson(k, n);
            assert!((l - lo).abs() < 1e-5 && (h - hi).abs() < 1e-5, "{k}/{n}: {l} {h}");
        }
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn exact_binomial_tails() {
        // 2 × Σ C(n,i)/2^n for i ≤ min(b,c).
        for (b, c, p) in [
            (0, 1, 1.0),
            (0, 5, 2.0 / 32.0),
            (1, 9, 22.0 / 1024.0),
            (3, 3, 1.0),
            (2, 8, 2.0 * 56.0 / 1024.0),
            (10, 0, 2.0 / 1024.0),
        ] {
            let got = binomial_two_sided(b, c);
            assert!((got - p).abs() < 1e-12, "{b} {c}: {got} vs {p}");
        }
        // A large, lopsided split: tiny, not zero, not NaN.
        let p = binomial_two_sided(400, 600);
        assert!(p > 1e-11 && p < 1e-9, "{p}");
        assert!((ln_gamma(11.0) - 3_628_800f64.ln()).abs() < 1e-10);
    }

    #[test]
    fn quartiles_interpolate_between_ranks() {
        let mut d = Distribution::default();
        for v in [7, 1, 3, 5, 9] {
            d.add(v);
        }
        let s = d.summary().unwrap();
        assert_eq!((s.min, s.q1, s.median, s.q3, s.max, s.mean), (1.0, 3.0, 5.0, 7.0, 9.0, 5.0));
        d.add(11);
        // Six values: q1 at rank 1.25 → 3 + 0.25 × 2; p90 at rank 4.5.
        let s = d.summary().unwrap();
        assert_eq!((s.q1, s.median, s.q3, s.p90), (3.5, 6.0, 8.5, 10.0));
        assert_eq!(d.histogram(&[0, 4, 8]), vec![2, 2, 2]);
        assert!(Distribution::default().summary().is_none());
    }

    #[test]
    fn large_values_keep_four_digits() {
        let kept = |v: i64| value_at(index_of(v));
        assert_eq!(kept(99_999), 99_999);
        assert_eq!(kept(-32_765), -32_765);
        assert_eq!(kept(100_000), 100_000);
        assert_eq!(kept(123_456), 123_400);
        assert_eq!(kept(-7_654_321), -7_654_000);
        assert_eq!(kept(8_031_647_685), 8_031_000_000);
        assert_eq!(kept(i64::MAX), 9_223_000_000_000_000_000);
        assert_eq!(kept(i64::MIN), -9_223_000_000_000_000_000);
        // Index order is value order, through every magnitude.
        let mut last = i64::MIN;
        for d in 0..19u32 {
            for v in [10i64.pow(d), 10i64.pow(d) + 1, 2 * 10i64.pow(d), 10i64.pow(d) * 9] {
                for v in [v, -v] {
                    assert_eq!(index_of(kept(v)), index_of(v), "{v}");
                }
                assert!(index_of(v) >= last, "{v}");
                last = index_of(v);
            }
        }
        let mut d = Distribution::default();
        for v in 0..100_000 {
            d.add(1_000_000 + v);
        }
        assert_eq!(d.values().len(), 100);
        assert!(d.pages.len() <= 2, "{}", d.pages.len());
        // Small values and large ones, merged in order.
        let mut e = Distribution::default();
        for v in [5, -3, 2_000, 5, 1_023, -1_024, -1_025] {
            e.add(v);
        }
        assert_eq!(e.values(), vec![(-1_025, 1), (-1_024, 1), (-3, 1), (5, 2), (1_023, 1), (2_000, 1)]);
        let mut m = Distribution::default();
        m.merge(&e);
        assert_eq!((m.values(), m.len()), (e.values(), 7));
        assert_eq!(d.summary().unwrap().mean, 1_049_999.5);
    }

    #[test]
    fn counts_past_32_bits_carry_over() {
        let mut d = Distribution::default();
        d.count(index_of(7), u64::from(u32::MAX));
        d.count(index_of(7), 3);
        d.count(index_of(-9), 5 << 32);
        d.count(index_of(-9), 1);
        assert_eq!(d.sorted(), vec![(-9, (5 << 32) + 1), (7, u64::from(u32::MAX) + 3)]);
        let mut m = Distribution::default();
        m.merge(&d);
        m.merge(&d);
        assert_eq!(m.sorted(), vec![(-9, (10 << 32) + 2), (7, 2 * (u64::from(u32::MAX) + 3))]);
    }
}
