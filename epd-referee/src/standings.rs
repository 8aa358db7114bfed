//! Standings: points, a crosstable, and each player's Elo difference to
//! the rest of the field with a 95 % interval and the likelihood of
//! superiority.
//!
//! Formulas (named in the report too):
//! - score fraction `s = points / games`; Elo difference
//!   `D(s) = -400 log10(1/s - 1)` (the logistic model);
//! - its 95 % interval `D(s ± 1.96 σ/√n)`, σ² the variance of the per-game
//!   scores (1, ½, 0) about s (the normal approximation fastchess and
//!   cutechess use);
//! - LOS `= Φ((W - L) / √(W + L))`, draws left out, Φ the standard normal
//!   distribution function.

use core::fmt::Write as _;

use epd_core::Color;

use crate::game::GameResult;

/// An Elo difference with its 95 % interval (`None` when the score is
/// 0 % or 100 %, where the logistic model gives no finite figure).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The difference.
    pub elo: Option<f64>,
    /// The interval's bounds (each `None` at 0 % or 100 %).
    pub low: Option<f64>,
    /// Upper bound.
    pub high: Option<f64>,
    /// Likelihood of superiority, 0 to 1 (`None` with no decisive game).
    pub los: Option<f64>,
}

/// Results by player.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    names: Vec<String>,
    /// `half[i][j]`: half points of i against j.
    half: Vec<Vec<u32>>,
    /// `games[i][j]`: games of i against j.
    games: Vec<Vec<u32>>,
    /// Wins, draws and losses of each player.
    wdl: Vec<[u32; 3]>,
}

/// Elo difference of a score fraction (finite for 0 < s < 1).
fn elo(s: f64) -> Option<f64> {
    (s > 0.0 && s < 1.0).then(|| -400.0 * (1.0 / s - 1.0).log10())
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

impl Standings {
    /// No results yet for these players.
    #[must_use]
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings { names, half: vec![vec![0; n]; n], games: vec![vec![0; n]; n], wdl: vec![[0; 3]; n] }
    }

    /// Adds a game between players `white` and `black` (indices).
    pub fn add(&mut self, white: usize, black: usize, result: GameResult) {
        for (me, them, color) in [(white, black, Color::White), (black, white, Color::Black)] {
            let h = result.half_points(color);
            self.half[me][them] += h;
            self.games[me][them] += 1;
            self.wdl[me][match h {
                2 => 0,
                1 => 1,
                _ => 2,
            }] += 1;
        }
    }

    /// Points of player `i` (in halves).
    #[must_use]
    pub fn half_points(&self, i: usize) -> u32 {
        self.half[i].iter().sum()
    }

    /// Wins, draws and losses of player `i`.
    #[must_use]
    pub fn wdl(&self, i: usize) -> [u32; 3] {
        self.wdl[i]
    }

    /// Player `i`'s name.
    #[must_use]
    pub fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    /// Games of player `i`.
    #[must_use]
    pub fn games(&self, i: usize) -> u32 {
        self.games[i].iter().sum()
    }

    /// Player `i`'s Elo difference to the field it met.
    #[must_use]
    pub fn elo(&self, i: usize) -> EloEstimate {
        let [w, d, l] = self.wdl[i];
        let n = f64::from(w + d + l);
        if n == 0.0 {
            return EloEstimate { elo: None, low: None, high: None, los: None };
        }
        let s = (f64::from(w) + 0.5 * f64::from(d)) / n;
        let var = (f64::from(w) * (1.0 - s).powi(2) + f64::from(d) * (0.5 - s).powi(2) + f64::from(l) * s.powi(2)) / n;
        let margin = 1.96 * (var / n).sqrt();
        // Phi(x) = (1 + erf(x / sqrt 2)) / 2 with x = (W - L) / sqrt(W + L).
        let los =
            (w + l > 0).then(|| 0.5 * (1.0 + erf((f64::from(w) - f64::from(l)) / (2.0 * f64::from(w + l)).sqrt())));
        EloEstimate { elo: elo(s), low: elo(s - margin), high: elo(s + margin), los }
    }

    /// Players in order: points, then games (fewer first), then name.
    #[must_use]
    pub fn order(&self) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.names.len()).collect();
        v.sort_by(|&a, &b| {
            self.half_points(b)
                .cmp(&self.half_points(a))
                .then(self.games(a).cmp(&self.games(b)))
                .then(self.names[a].cmp(&self.names[b]))
        });
        v
    }

    /// The report: standings with Elo, then the crosstable.
    #[must_use]
    pub fn report(&self) -> String {
        let mut out = String::new();
        let width = self.names.iter().map(String::len).max().unwrap_or(4).max(6);
        // Rounded first, so a small negative difference prints +0, not -0.
        let fmt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |x| format!("{:+}", x.round() as i64));
        let _ = writeln!(
            out,
            "{:>3} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>5} {:>7} {:>16} {:>6}",
            "#", "Player", "Points", "Games", "Won", "Drawn", "Lost", "Elo", "95% interval", "LOS"
        );
        for (rank, &i) in self.order().iter().enumerate() {
            let e = self.elo(i);
            let [w, d, l] = self.wdl[i];
            let interval = format!("[{}, {}]", fmt(e.low), fmt(e.high));
            let los = e.los.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", 100.0 * x));
            let _ = writeln!(
                out,
                "{:>3} {:<width$} {:>6} {:>5} {w:>5} {d:>5} {l:>5} {:>7} {interval:>16} {los:>6}",
                rank + 1,
                self.names[i],
                points(self.half_points(i)),
                self.games(i),
                fmt(e.elo),
            );
        }
        let _ = writeln!(out, "\nElo: -400 log10(1/s - 1) of the score fraction s against the field; 95% interval");
        let _ = writeln!(out, "from the normal approximation of the per-game scores; LOS = Phi((W-L)/sqrt(W+L)).\n");
        let order = self.order();
        let width = (width + 4).max(10);
        let _ = write!(out, "{:<width$}", "Crosstable");
        for k in 0..order.len() {
            let _ = write!(out, " {:>5}", k + 1);
        }
        out.push('\n');
        for (k, &i) in order.iter().enumerate() {
            let _ = write!(out, "{:<width$}", format!("{} {}", k + 1, self.names[i]));
            for &j in &order {
                if i == j || self.games[i][j] == 0 {
                    let _ = write!(out, " {:>5}", if i == j { "x" } else { "" });
                } else {
                    let _ = write!(out, " {:>5}", format!("{}/{}", points(self.half[i][j]), self.games[i][j]));
                }
            }
            out.push('\n');
        }
        out
    }
}

/// Half points as `3.5`.
fn points(half: u32) -> String {
    if half.is_multiple_of(2) {
        (half / 2).to_string()
    } else {
        format!("{}.5", half / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_interval_and_los_worked_by_hand() {
        // 6 wins, 2 draws, 2 losses: s = 0.7.
        let mut st = Standings::new(vec!["a".into(), "b".into()]);
        for _ in 0..6 {
            st.add(0, 1, GameResult::WhiteWins);
        }
        for _ in 0..2 {
            st.add(1, 0, GameResult::Draw);
        }
        for _ in 0..2 {
            st.add(1, 0, GameResult::WhiteWins);
        }
        assert_eq!((st.half_points(0), st.half_points(1), st.games(0)), (14, 6, 10));
        let e = st.elo(0);
        // D(0.7) = -400 log10(3/7) = 147.19.
        assert!((e.elo.unwrap() - 147.19).abs() < 0.01, "{e:?}");
        // var = (6*0.09 + 2*0.04 + 2*0.49)/10 = 0.16; margin = 1.96*sqrt(0.016) = 0.24792.
        // D(0.45208) = -400 log10(1.21200) = -33.40; D(0.94792) = -400 log10(0.054941) = +504.03.
        assert!((e.low.unwrap() + 33.40).abs() < 0.05, "{e:?}");
        assert!((e.high.unwrap() - 504.03).abs() < 0.05, "{e:?}");
        // LOS = Phi(4/sqrt(8)) = Phi(1.41421) = 0.92135.
        assert!((e.los.unwrap() - 0.92135).abs() < 1e-4, "{e:?}");
        let b = st.elo(1);
        assert!((b.elo.unwrap() + 147.19).abs() < 0.01);
        assert!((b.los.unwrap() - 0.07865).abs() < 1e-4);
        let report = st.report();
        assert!(
            report.contains("\n  1 a           7    10     6     2     2    +147      [-33, +504]  92.1%\n"),
            "{report}"
        );
        assert!(
            report.contains("\n  2 b           3    10     2     2     6    -147      [-504, +33]   7.9%\n"),
            "{report}"
        );
        assert!(
            report.contains("\nCrosstable     1     2\n1 a            x  7/10\n2 b         3/10     x\n"),
            "{report}"
        );
    }

    #[test]
    fn all_wins_give_no_finite_elo() {
        let mut st = Standings::new(vec!["a".into(), "b".into()]);
        st.add(0, 1, GameResult::WhiteWins);
        assert_eq!(st.elo(0).elo, None);
        assert_eq!(st.elo(1).elo, None);
    }
}
