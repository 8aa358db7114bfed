//! The statistics of a match of two engines over game pairs: the
//! pentanomial counts, Elo and normalized Elo with their 95 % intervals,
//! the likelihood of superiority, and the generalized sequential
//! probability ratio test (GSPRT) that fishtest, OpenBench and fastchess
//! use to stop a match as soon as its answer is known.
//!
//! Each opening is played by a pair of games with colours swapped; a pair
//! scores 0, ½, 1, 1½ or 2 points for the first engine: the five counts
//! LL, LD, DD+WL, WD, WW. Pairs are the independent trials (the two games
//! of a pair share an opening and are correlated), so means and variances
//! are taken over pairs, as a score fraction `x` of 0, ¼, ½, ¾ or 1.
//!
//! The GSPRT's log-likelihood ratio compares the most likely pentanomial
//! distributions whose expected score is that of `elo1` and of `elo0`
//! (logistic Elo), or whose `t = (mean − ½) / σ` is that of `nelo1` and
//! `nelo0` (normalized Elo: `t = √2 · nElo / (800 / ln 10)`, σ the
//! standard deviation of a pair's score): `LLR = Σ nᵢ ln(q₁ᵢ / q₀ᵢ)`. Each
//! maximum-likelihood distribution is `qᵢ = pᵢ / (1 + θ·yᵢ)`, θ the root
//! of `Σ pᵢ yᵢ / (1 + θ·yᵢ) = 0` (Van den Bergh's secular equation), with
//! `yᵢ = xᵢ − s` for an expected score `s`; for a `t` the `yᵢ` depend on
//! the mean and σ of `q` itself, and are found by iterating. Empty counts
//! count as 0.001 so that the logarithms stay finite. The test stops with
//! H1 (elo1) accepted when the LLR reaches `ln((1 − β) / α)` and with H0
//! (elo0) accepted when it falls to `ln(β / (1 − α))`.

use core::fmt;

/// 800 / ln 10: the slope of the logistic Elo curve at a score of ½,
/// which converts a normalized t into normalized Elo.
const NELO: f64 = 800.0 / core::f64::consts::LN_10;

/// The 97.5 % quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// A pair's score fraction, in the order of [`Penta::counts`].
const X: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// What `elo0` and `elo1` measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// Normalized Elo (fishtest's default): a difference measured in
    /// standard deviations of the pair score, so that a bound means the
    /// same effort whatever the draw ratio.
    Normalized,
    /// Logistic Elo: the expected score `1 / (1 + 10^(−elo/400))`.
    Logistic,
}

/// The pentanomial counts of a match, from the first engine's side:
/// pairs that scored 0, ½, 1, 1½ and 2 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta {
    /// LL, LD, DD+WL, WD, WW.
    pub counts: [u64; 5],
    /// The games' wins, draws and losses, from the first engine's side.
    pub wdl: [u64; 3],
}

impl Penta {
    /// Adds a pair: the first engine's points in each of its two games
    /// (0, ½ or 1).
    pub fn add_pair(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[k] += 1;
        for s in [a, b] {
            self.wdl[if s > 0.75 {
                0
            } else if s > 0.25 {
                1
            } else {
                2
            }] += 1;
        }
    }

    /// The number of pairs.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// The games of a match of two engines, from the first engine's side:
/// fastchess's trinomial counts (`-report penta=false`), every game a
/// trial of its own, pairs or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Games {
    /// Losses, draws, wins.
    pub counts: [u64; 3],
}

impl Games {
    /// Adds a game: the first engine's points (0, ½ or 1).
    pub fn add(&mut self, points: f64) {
        self.counts[(points * 2.0).round().clamp(0.0, 2.0) as usize] += 1;
    }

    /// The number of games.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Wins, draws and losses, in [`Penta::wdl`]'s order.
    #[must_use]
    pub fn wdl(&self) -> [u64; 3] {
        let [l, d, w] = self.counts;
        [w, d, l]
    }
}

/// What a match's statistics are taken over: pairs (the pentanomial
/// counts, fastchess's default) or games (the trinomial counts,
/// `-report penta=false`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counts<'a> {
    /// Over game pairs.
    Pairs(&'a Penta),
    /// Over games.
    Games(&'a Games),
}

impl Counts<'_> {
    /// The games' wins, draws and losses, from the first engine's side.
    #[must_use]
    pub fn wdl(&self) -> [u64; 3] {
        match self {
            Counts::Pairs(p) => p.wdl,
            Counts::Games(g) => g.wdl(),
        }
    }

    /// Elo, nElo, LOS and the draw ratio; `None` before the first trial.
    #[must_use]
    pub fn estimate(&self) -> Option<Estimate> {
        match self {
            Counts::Pairs(p) => estimate(p),
            Counts::Games(g) => estimate_games(g),
        }
    }

    /// The SPRT's log-likelihood ratio over these counts.
    #[must_use]
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        match self {
            Counts::Pairs(p) => sprt.llr(p),
            Counts::Games(g) => sprt.llr_games(g),
        }
    }
}

/// A game's score, in the order of [`Games::counts`] (fastchess's
/// trinomial: losses, draws, wins).
const X3: [f64; 3] = [0.0, 0.5, 1.0];

/// The mean and variance of a distribution over [`X`].
#[cfg(test)]
fn moments(q: &[f64; 5]) -> (f64, f64) {
    moments_over(q, &X)
}

/// The mean and variance of a distribution `q` over the scores `x`.
fn moments_over<const N: usize>(q: &[f64; N], x: &[f64; N]) -> (f64, f64) {
    let mu: f64 = q.iter().zip(x).map(|(p, x)| p * x).sum();
    let var: f64 = q.iter().zip(x).map(|(p, x)| p * (x - mu) * (x - mu)).sum();
    (mu, var)
}

/// θ with `Σ pᵢ yᵢ / (1 + θ·yᵢ) = 0` and every `1 + θ·yᵢ > 0`; the
/// left side falls as θ grows, so bisection finds it.
fn secular<const N: usize>(p: &[f64; N], y: &[f64; N]) -> f64 {
    let max = y.iter().copied().fold(f64::MIN, f64::max);
    let min = y.iter().copied().fold(f64::MAX, f64::min);
    // The target outside the points' range: no distribution reaches it;
    // the closest is at the edge.
    if max <= 0.0 || min >= 0.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let f = |t: f64| -> f64 { p.iter().zip(y).map(|(p, y)| p * y / (1.0 + t * y)).sum() };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The most likely distribution near `p` (frequencies) with expected
/// score `s`.
fn mle_score<const N: usize>(p: &[f64; N], x: &[f64; N], s: f64) -> [f64; N] {
    let y = x.map(|x| x - s);
    let theta = secular(p, &y);
    core::array::from_fn(|i| p[i] / (1.0 + theta * y[i]))
}

/// The most likely distribution near `p` with `(mean − ½) / σ = t`, by
/// Van den Bergh's fixed-point iteration from the uniform distribution,
/// as fishtest and fastchess run it: at most ten steps, stopping when no
/// probability moves by 1e-4 (so that an LLR near a bound gives the same
/// verdict as theirs; on nearly degenerate counts, all draws but one
/// pair, the iteration has not settled after ten steps).
fn mle_t<const N: usize>(p: &[f64; N], x: &[f64; N], t: f64) -> [f64; N] {
    let mut q = [1.0 / N as f64; N];
    for _ in 0..10 {
        let (mu, var) = moments_over(&q, x);
        let sigma = var.sqrt().max(1e-9);
        let y: [f64; N] =
            core::array::from_fn(|i| x[i] - 0.5 - t * sigma * (1.0 + ((mu - x[i]) / sigma).powi(2)) / 2.0);
        let theta = secular(p, &y);
        let next: [f64; N] = core::array::from_fn(|i| p[i] / (1.0 + theta * y[i]));
        let change = next.iter().zip(&q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        q = next;
        if change < 1e-4 {
            break;
        }
    }
    q
}

/// The expected score of a logistic Elo difference.
#[must_use]
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference of an expected score.
#[must_use]
pub fn score_to_elo(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// A GSPRT: H0 `elo0` against H1 `elo1`, with error rates α and β.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// H0's Elo.
    pub elo0: f64,
    /// H1's Elo.
    pub elo1: f64,
    /// The false positive rate (H1 accepted when H0 holds).
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
    /// What the Elo bounds measure.
    pub model: Model,
}

/// Where a GSPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Neither bound is reached.
    Continue,
    /// The LLR reached the upper bound: H1 (elo1) accepted.
    H1,
    /// The LLR reached the lower bound: H0 (elo0) accepted.
    H0,
}

impl Sprt {
    /// Checks the parameters.
    ///
    /// # Errors
    /// elo0 not below elo1; α or β outside (0, 1), or their sum 1 or
    /// more.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: Model) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("elo0 ({elo0}) must be below elo1 ({elo1})"));
        }
        if !(alpha > 0.0 && alpha < 1.0 && beta > 0.0 && beta < 1.0 && alpha + beta < 1.0) {
            return Err(format!("alpha ({alpha}) and beta ({beta}) are each between 0 and 1, their sum below 1"));
        }
        Ok(Sprt { elo0, elo1, alpha, beta, model })
    }

    /// The lower and upper bounds of the LLR.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 to H0 for these counts.
    #[must_use]
    pub fn llr(&self, penta: &Penta) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        self.llr_over(penta.counts, &X, core::f64::consts::SQRT_2)
    }

    /// The log-likelihood ratio of H1 to H0 over games (fastchess's
    /// trinomial test, `-report penta=false`): losses, draws and wins as
    /// the trials, a game's σ in the normalized model.
    #[must_use]
    pub fn llr_games(&self, games: &Games) -> f64 {
        if games.games() == 0 {
            return 0.0;
        }
        self.llr_over(games.counts, &X3, 1.0)
    }

    /// The LLR over `counts` of trials scoring `x`; `k` turns normalized
    /// Elo into the trial's t (√2 for a pair, 1 for a game).
    fn llr_over<const N: usize>(&self, counts: [u64; N], x: &[f64; N], k: f64) -> f64 {
        // Empty counts as 0.001: the logarithms stay finite.
        let n = counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let total: f64 = n.iter().sum();
        let p = n.map(|c| c / total);
        let (q0, q1) = match self.model {
            Model::Logistic => (mle_score(&p, x, elo_to_score(self.elo0)), mle_score(&p, x, elo_to_score(self.elo1))),
            Model::Normalized => {
                let t = |nelo: f64| k * nelo / NELO;
                (mle_t(&p, x, t(self.elo0)), mle_t(&p, x, t(self.elo1)))
            }
        };
        (0..N).map(|i| n[i] * (q1[i] / q0[i]).ln()).sum()
    }

    /// The verdict for an LLR.
    #[must_use]
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::H1
        } else if llr <= lo {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let model = match self.model {
            Model::Normalized => "nElo",
            Model::Logistic => "Elo",
        };
        write!(f, "[{}, {}] {model}, alpha {}, beta {}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

/// What the counts say about the first engine against the second, as
/// fastchess computes it from the pentanomial counts (`EloPentanomial`):
/// the figures are fastchess's where its are finite, and their limits
/// where fastchess's are `inf` or `nan` (an Elo of ±∞ at a score of 0 % or
/// 100 %, an interval bound of ±∞ where `s ± 1.96·σ/√n` leaves (0, 1), a
/// LOS of 0 % or 100 % when every pair scored alike).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The mean score fraction per game.
    pub score: f64,
    /// Logistic Elo and its 95 % interval (each may be ±∞).
    pub elo: (f64, f64, f64),
    /// Normalized Elo and its 95 % interval (±∞ when every pair scored
    /// alike, away from ½).
    pub nelo: (f64, f64, f64),
    /// The likelihood of superiority: Φ((score − ½) / its standard error).
    pub los: f64,
    /// The fraction of pairs that scored one point of two (fastchess's
    /// DrawRatio with pentanomial statistics): DD and WL.
    pub draw_ratio: f64,
}

/// erf(x), exact to a few units in the last place: the series
/// `erf x = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1))`, whose terms
/// are all positive (no cancellation); past |x| = 6, erf is ±1 in f64.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let a = x.abs();
    if a >= 6.0 {
        return x.signum();
    }
    let (mut term, mut sum) = (a, a);
    let mut k = 0.0;
    while term > sum * 1e-17 {
        k += 1.0;
        term *= 2.0 * a * a / (2.0 * k + 1.0);
        sum += term;
    }
    let v = 2.0 / core::f64::consts::PI.sqrt() * (-a * a).exp() * sum;
    v.min(1.0).copysign(x)
}

/// Φ, the standard normal distribution function; Φ(±∞) is 1 or 0.
fn phi(z: f64) -> f64 {
    0.5 * (1.0 + erf(z / core::f64::consts::SQRT_2))
}

/// The logistic Elo of a score fraction, `−400 log10(1/s − 1)`: ±∞ at and
/// beyond 0 and 1 (where fastchess's logarithm gives `inf` or `nan`), and
/// never −0.
fn elo_of(s: f64) -> f64 {
    if s >= 1.0 {
        f64::INFINITY
    } else if s <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// Elo, nElo, LOS and the draw ratio from the pentanomial counts, over
/// pairs; `None` before the first pair.
#[must_use]
pub fn estimate(penta: &Penta) -> Option<Estimate> {
    let n = penta.pairs();
    let draws = penta.counts[2] as f64 / n as f64;
    estimate_over(penta.counts, &X, 2.0).map(|e| Estimate { draw_ratio: draws, ..e })
}

/// Elo, nElo, LOS and the draw ratio from the trinomial counts, over
/// games, as fastchess's `EloWDL` computes them (`-report penta=false`):
/// nElo `(s − ½)/σ · 800/ln 10` with a game's σ; the draw ratio of
/// games. `None` before the first game.
#[must_use]
pub fn estimate_games(games: &Games) -> Option<Estimate> {
    let n = games.games();
    let draws = games.counts[1] as f64 / n as f64;
    estimate_over(games.counts, &X3, 1.0).map(|e| Estimate { draw_ratio: draws, ..e })
}

/// The figures over `counts` of trials scoring `x` (the draw ratio left
/// 0); `k` is 2 for pairs, whose nElo takes √(2σ²), 1 for games.
fn estimate_over<const N: usize>(counts: [u64; N], x: &[f64; N], k: f64) -> Option<Estimate> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let q = counts.map(|c| c as f64 / n as f64);
    let (mu, var) = moments_over(&q, x);
    let se = (var / n as f64).sqrt();
    let elo = (elo_of(mu), elo_of(mu - Z95 * se), elo_of(mu + Z95 * se));
    // nElo = (s − ½) / √(kσ²) · 800/ln 10; its half-interval, 1.96 σ/√n
    // through the same scale, is 1.96 · 800/ln 10 / √(kn) whatever σ:
    // also its limit as σ → 0.
    let half = Z95 * NELO / (k * n as f64).sqrt();
    let v = if var > 0.0 {
        (mu - 0.5) / (k * var).sqrt() * NELO + 0.0
    } else if mu == 0.5 {
        0.0
    } else {
        f64::INFINITY.copysign(mu - 0.5)
    };
    let nelo = (v, v - half, v + half);
    let los = if se > 0.0 {
        phi((mu - 0.5) / se)
    } else if mu == 0.5 {
        0.5
    } else if mu > 0.5 {
        1.0
    } else {
        0.0
    };
    Some(Estimate { score: mu, elo, nelo, los, draw_ratio: 0.0 })
}

/// `x` to `decimals` places, never `-0.0` (a negative figure that rounds
/// to zero is zero).
fn fixed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_owned(),
        _ => text,
    }
}

/// A figure for the results block: one decimal, a sign on infinities.
fn figure(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_owned()
    } else {
        fixed(x, 1)
    }
}

/// `value +/- half` as cutechess and fastchess print it, where both ends
/// of the interval are finite; else the value and its interval, an
/// infinite end open: `470.0 [267.3, +inf)`, or the value alone when it
/// is itself infinite.
fn with_interval(value: f64, low: f64, high: f64) -> String {
    if value.is_infinite() {
        figure(value)
    } else if low.is_finite() && high.is_finite() {
        format!("{} +/- {}", figure(value), figure((high - low) / 2.0))
    } else {
        let open = if low.is_finite() { '[' } else { '(' };
        let close = if high.is_finite() { ']' } else { ')' };
        format!("{} {open}{}, {}{close}", figure(value), figure(low), figure(high))
    }
}

/// The `Score of` line of cutechess (and of fastchess's cutechess
/// output): the first engine's wins, losses and draws, its score and the
/// games, with its newline.
#[must_use]
pub fn score_line(first: &str, second: &str, [w, d, l]: [u64; 3]) -> String {
    let games = w + d + l;
    let ratio = if games > 0 { (w as f64 + d as f64 / 2.0) / games as f64 } else { 0.0 };
    format!("Score of {first} vs {second}: {w} - {l} - {d}  [{ratio:.3}] {games}\n")
}

/// The results block, in cutechess's format (the `Score of` lines that
/// fishtest-era scripts and OpenBench read): score, Elo, nElo, LOS, the
/// draw ratio, the pentanomial counts and, with a test, the SPRT line
/// with its `[elo0, elo1]`. The figures are fastchess's
/// ([`estimate`]); over games ([`Counts::Games`]) they are its
/// trinomial ones ([`estimate_games`], [`Sprt::llr_games`]) and the
/// block has no `Ptnml(0-2)` line, as fastchess's with `-report
/// penta=false`.
#[must_use]
pub fn results_block(first: &str, second: &str, counts: Counts<'_>, sprt: Option<&Sprt>) -> String {
    let mut out = score_line(first, second, counts.wdl());
    if let Some(e) = counts.estimate() {
        out.push_str(&format!(
            "Elo difference: {}, nElo: {}, LOS: {:.1} %, DrawRatio: {:.1} %\n",
            with_interval(e.elo.0, e.elo.1, e.elo.2),
            with_interval(e.nelo.0, e.nelo.1, e.nelo.2),
            e.los * 100.0,
            e.draw_ratio * 100.0
        ));
    }
    if let Counts::Pairs(penta) = counts {
        let [ll, ld, dd, wd, ww] = penta.counts;
        out.push_str(&format!("Ptnml(0-2): [{ll}, {ld}, {dd}, {wd}, {ww}]\n"));
    }
    if let Some(s) = sprt {
        let (lo, hi) = s.bounds();
        let llr = counts.llr(s);
        let verdict = match s.verdict(llr) {
            Verdict::H1 => " - H1 was accepted",
            Verdict::H0 => " - H0 was accepted",
            Verdict::Continue => "",
        };
        let model = match s.model {
            Model::Normalized => "nElo",
            Model::Logistic => "Elo",
        };
        out.push_str(&format!(
            "SPRT: llr {} ({}%), lbound {lo:.2}, ubound {hi:.2}, [{}, {}] {model}{verdict}\n",
            fixed(llr, 2),
            fixed(100.0 * llr / if llr >= 0.0 { hi } else { -lo }, 1),
            fixed(s.elo0, 2),
            fixed(s.elo1, 2)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn penta(counts: [u64; 5]) -> Penta {
        Penta { counts, wdl: [0; 3] }
    }

    /// The LLR by the normal approximation, computed here from its own
    /// formula (fishtest's `LLR_alt2`-style estimate: the log-likelihood
    /// ratio of two normals of the sample's variance): it and the exact
    /// GSPRT agree closely when the bounds are near the sample's score.
    fn llr_normal(p: &Penta, s0: f64, s1: f64) -> f64 {
        let n = p.pairs() as f64;
        let q = p.counts.map(|c| c as f64 / n);
        let (mu, var) = moments(&q);
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    #[test]
    fn the_exact_llr_agrees_with_the_normal_approximation() {
        let counts = [50, 1500, 4000, 1600, 55];
        let p = penta(counts);
        let s = Sprt::new(0.0, 2.0, 0.05, 0.05, Model::Logistic).unwrap();
        let exact = s.llr(&p);
        let approx = llr_normal(&p, elo_to_score(0.0), elo_to_score(2.0));
        assert!((exact - approx).abs() < 0.02 * approx.abs().max(1.0), "{exact} vs {approx}");
        // Normalized: t-values of ±, through σ of the sample.
        let s = Sprt::new(0.0, 2.0, 0.05, 0.05, Model::Normalized).unwrap();
        let (mu, var) = moments(&p.counts.map(|c| c as f64 / p.pairs() as f64));
        let sd = var.sqrt();
        let t = |nelo: f64| core::f64::consts::SQRT_2 * nelo / NELO;
        let approx = llr_normal(&p, 0.5 + t(0.0) * sd, 0.5 + t(2.0) * sd);
        let exact = s.llr(&p);
        assert!((exact - approx).abs() < 0.03 * approx.abs().max(1.0), "{exact} vs {approx} (mu {mu})");
    }

    #[test]
    fn the_mle_keeps_the_constraint() {
        let p = [0.05, 0.2, 0.5, 0.2, 0.05];
        let q = mle_score(&p, &X, 0.53);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!((moments(&q).0 - 0.53).abs() < 1e-9);
        let q = mle_t(&p, &X, 0.1);
        let (mu, var) = moments(&q);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(((mu - 0.5) / var.sqrt() - 0.1).abs() < 1e-7);
    }

    #[test]
    fn bounds_and_estimates_by_hand() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, Model::Normalized).unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944_438_979).abs() < 1e-8 && (hi - 2.944_438_979).abs() < 1e-8);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, Model::Logistic).is_err());
        // 10 pairs: scores 0.25 x2, 0.5 x4, 0.75 x4: mean 0.55.
        let mut p = penta([0, 2, 4, 4, 0]);
        p.wdl = [4, 12, 4];
        let e = estimate(&p).unwrap();
        assert!((e.score - 0.55).abs() < 1e-12);
        let var = (2.0 * 0.09 + 4.0 * 0.0025 + 4.0 * 0.04) / 10.0;
        let se = (var / 10.0f64).sqrt();
        assert!((e.elo.0 - (-400.0 * (1.0f64 / 0.55 - 1.0).log10())).abs() < 1e-9);
        assert!((e.elo.1 - score_to_elo(0.55 - 1.959_963_984_540_054 * se)).abs() < 1e-9);
        assert!((e.nelo.0 - 0.05 / (2.0 * var).sqrt() * 800.0 / 10f64.ln()).abs() < 1e-9);
        assert!((e.los - 0.5 * (1.0 + erf_series(0.05 / se / 2f64.sqrt()))).abs() < 1e-14);
        // Draw ratio over pairs, as fastchess: the 4 pairs of one point.
        assert!((e.draw_ratio - 0.4).abs() < 1e-12);
        let block = results_block("a", "b", Counts::Pairs(&p), Some(&s));
        assert!(block.starts_with("Score of a vs b: 4 - 4 - 12  [0.500] 20\n"), "{block}");
        assert!(block.contains("Ptnml(0-2): [0, 2, 4, 4, 0]"), "{block}");
    }

    /// Where fastchess prints `inf` or `nan`, the limits; the block says
    /// them as `+inf` and open intervals, never `-0.0`.
    #[test]
    fn the_extremes_give_their_limits() {
        let half = 1.959_963_984_540_054 * NELO / (2.0 * 75.0f64).sqrt();
        let inf = f64::INFINITY;
        for (counts, elo, nelo, los, draws, line) in [
            (
                [0, 0, 0, 0, 75],
                (inf, inf, inf),
                (inf, inf, inf),
                1.0,
                0.0,
                "Elo difference: +inf, nElo: +inf, LOS: 100.0 %, DrawRatio: 0.0 %",
            ),
            (
                [75, 0, 0, 0, 0],
                (-inf, -inf, -inf),
                (-inf, -inf, -inf),
                0.0,
                0.0,
                "Elo difference: -inf, nElo: -inf, LOS: 0.0 %, DrawRatio: 0.0 %",
            ),
            (
                [0, 0, 75, 0, 0],
                (0.0, 0.0, 0.0),
                (0.0, -half, half),
                0.5,
                1.0,
                "Elo difference: 0.0 +/- 0.0, nElo: 0.0 +/- 55.6, LOS: 50.0 %, DrawRatio: 100.0 %",
            ),
        ] {
            let e = estimate(&penta(counts)).unwrap();
            assert_eq!((e.elo, e.los, e.draw_ratio), (elo, los, draws), "{counts:?}");
            assert!((e.nelo.0 - nelo.0).abs() < 1e-12 || e.nelo.0 == nelo.0, "{counts:?}: {:?} vs {nelo:?}", e.nelo);
            assert!(e.nelo.1 == nelo.1 || (e.nelo.1 - nelo.1).abs() < 1e-12, "{counts:?}");
            let block = results_block("a", "b", Counts::Pairs(&penta(counts)), None);
            assert!(block.contains(line), "{block}");
            assert!(!block.contains("-0.0") && !block.contains("NaN") && !block.contains("nan"), "{block}");
        }
        // 9 WW pairs and one of a point: 95 %, whose interval reaches
        // past 100 %: an open upper end, as the standings print it.
        let e = estimate(&penta([0, 0, 1, 0, 9])).unwrap();
        assert!(e.elo.0.is_finite() && e.elo.1.is_finite() && e.elo.2 == inf, "{e:?}");
        let block = results_block("a", "b", Counts::Pairs(&penta([0, 0, 1, 0, 9])), None);
        assert!(block.contains(&format!("Elo difference: {:.1} [{:.1}, +inf)", e.elo.0, e.elo.1)), "{block}");
    }

    #[test]
    fn erf_is_exact_to_the_last_digits() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
            (-1.5, -0.966_105_146_475_310_7),
        ] {
            assert!((erf(x) - want).abs() < 1e-15, "erf({x}) = {} not {want}", erf(x));
        }
        assert_eq!((erf(7.0), erf(-7.0), phi(f64::INFINITY), phi(f64::NEG_INFINITY)), (1.0, -1.0, 1.0, 0.0));
    }

    /// erf by its Taylor series, to check Φ.
    fn erf_series(x: f64) -> f64 {
        let mut sum = 0.0;
        let mut term = x;
        for n in 0..60 {
            sum += term / (2 * n + 1) as f64;
            term *= -x * x / (n + 1) as f64;
        }
        2.0 / core::f64::consts::PI.sqrt() * sum
    }

    /// An SPRT on simulated pairs: a true difference of +10 Elo (H1 at
    /// [0, 10]) is accepted, and a true 0 rejected, at about the rates
    /// α and β promise. 400 runs each; the tolerance is four standard
    /// deviations of a binomial count around 5 %.
    #[test]
    fn an_sprt_on_simulated_pairs_keeps_its_error_rates() {
        let s = Sprt::new(0.0, 10.0, 0.05, 0.05, Model::Logistic).unwrap();
        let mut state = 12345u64;
        let mut rand = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        // A game: win, draw or loss with a draw ratio of 60 %.
        let mut game = |elo: f64| {
            let score = elo_to_score(elo);
            let (d, w) = (0.6, score - 0.3);
            let r = rand();
            if r < w {
                1.0
            } else if r < w + d {
                0.5
            } else {
                0.0
            }
        };
        let runs = 400;
        let mut wrong = [0, 0];
        for (k, true_elo) in [0.0, 10.0].into_iter().enumerate() {
            for _ in 0..runs {
                let mut p = Penta::default();
                let verdict = loop {
                    p.add_pair(game(true_elo), game(true_elo));
                    if p.pairs() % 8 == 0 {
                        let v = s.verdict(s.llr(&p));
                        if v != Verdict::Continue {
                            break v;
                        }
                    }
                };
                if (k == 0 && verdict == Verdict::H1) || (k == 1 && verdict == Verdict::H0) {
                    wrong[k] += 1;
                }
            }
        }
        let sd = (runs as f64 * 0.05 * 0.95).sqrt();
        for (k, w) in wrong.iter().enumerate() {
            assert!((*w as f64) < runs as f64 * 0.05 + 4.0 * sd, "errors under hypothesis {k}: {w} of {runs}");
        }
    }
}
