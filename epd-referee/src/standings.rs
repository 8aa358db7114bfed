//! Standings: points, a crosstable, and each player's Elo difference to
//! the rest of the field with a 95 % interval and the likelihood of
//! superiority.
//!
//! Formulas (named in the report too):
//! - score fraction `s = points / games`; Elo difference
//!   `D(s) = -400 log10(1/s - 1)` (the logistic model);
//! - its 95 % interval `D(s ± 1.96 σ/√n)`, σ² the variance of the per-game
//!   scores (1, ½, 0) about s (the normal approximation fastchess and
//!   cutechess use); a bound is infinite where `s ± 1.96 σ/√n` leaves
//!   (0, 1), and the report says so and why;
//! - LOS `= Φ((W - L) / √(W + L))`, draws left out, Φ the standard normal
//!   distribution function.

use core::fmt::Write as _;

use epd_core::Color;

use crate::game::GameResult;

/// An Elo difference with its 95 % interval (`None` when the score is
/// 0 % or 100 %, where the logistic model gives no finite figure; a bound
/// is `None` where the score interval `s ± m` reaches 0 % or 100 %).
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

    /// Player `i`'s score fraction `s` and the half-width `m = 1.96 σ/√n`
    /// of its 95 % interval (`None` before any game).
    fn score_and_margin(&self, i: usize) -> Option<(f64, f64)> {
        let [w, d, l] = self.wdl[i];
        let n = f64::from(w + d + l);
        if n == 0.0 {
            return None;
        }
        let s = (f64::from(w) + 0.5 * f64::from(d)) / n;
        let var = (f64::from(w) * (1.0 - s).powi(2) + f64::from(d) * (0.5 - s).powi(2) + f64::from(l) * s.powi(2)) / n;
        Some((s, 1.96 * (var / n).sqrt()))
    }

    /// Player `i`'s Elo difference to the field it met.
    #[must_use]
    pub fn elo(&self, i: usize) -> EloEstimate {
        let [w, _, l] = self.wdl[i];
        let Some((s, margin)) = self.score_and_margin(i) else {
            return EloEstimate { elo: None, low: None, high: None, los: None };
        };
        // Phi(x) = (1 + erf(x / sqrt 2)) / 2 with x = (W - L) / sqrt(W + L).
        let los =
            (w + l > 0).then(|| 0.5 * (1.0 + erf((f64::from(w) - f64::from(l)) / (2.0 * f64::from(w + l)).sqrt())));
        EloEstimate { elo: elo(s), low: elo(s - margin), high: elo(s + margin), los }
    }

    /// Player `i`'s Elo, its interval, and why either is not finite
    /// (`None` when both are).
    fn elo_text(&self, i: usize) -> (String, String, Option<String>) {
        let Some((s, m)) = self.score_and_margin(i) else {
            return ("-".into(), "-".into(), None);
        };
        let [w, d, l] = self.wdl[i];
        let n = w + d + l;
        let games = format!("{n} games: {w} won, {d} drawn, {l} lost");
        // Rounded first, so a small negative difference prints +0, not -0.
        let fmt = |x: f64| format!("{:+}", x.round() as i64);
        if s >= 1.0 || s <= 0.0 {
            let (elo, all) = if s >= 1.0 { ("+\u{221e}", "won") } else { ("-\u{221e}", "lost") };
            let why = format!(
                "every game {all} ({n} of {n}): a score of {:.0}% has no finite Elo, and scores \
                 that do not vary give no interval",
                100.0 * s
            );
            return (elo.into(), "-".into(), Some(format!("Elo {elo}: {why}")));
        }
        let e = self.elo(i);
        let low = e.low.map_or_else(|| "(-\u{221e}".to_owned(), |x| format!("[{}", fmt(x)));
        let high = e.high.map_or_else(|| "+\u{221e})".to_owned(), |x| format!("{}]", fmt(x)));
        let why = match (e.low, e.high) {
            (None, None) => Some(format!(
                "s - m = {:.3} <= 0 and s + m = {:.3} >= 1 (s = {s:.3}, m = {m:.3}), so no bound either way",
                s - m,
                s + m
            )),
            (None, Some(_)) => Some(format!("s - m = {s:.3} - {m:.3} = {:.3} <= 0, so no lower bound", s - m)),
            (Some(_), None) => Some(format!("s + m = {s:.3} + {m:.3} = {:.3} >= 1, so no upper bound", s + m)),
            (Some(_), Some(_)) => None,
        };
        let elo = e.elo.map_or_else(|| "-".to_owned(), fmt);
        let interval = format!("{low}, {high}");
        let why = why.map(|why| format!("{interval}: {why} ({games})"));
        (elo, interval, why)
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

    /// The report: standings with Elo (and why an interval is open),
    /// then the crosstable, scores as points of games (`1.5/2`).
    #[must_use]
    pub fn report(&self) -> String {
        let mut out = String::new();
        let width = self.names.iter().map(String::len).max().unwrap_or(4).max(6);
        let _ = writeln!(
            out,
            "{:>3} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>5} {:>7} {:>16} {:>6}",
            "#", "Player", "Points", "Games", "Won", "Drawn", "Lost", "Elo", "95% interval", "LOS"
        );
        let mut notes = Vec::new();
        for (rank, &i) in self.order().iter().enumerate() {
            let (elo, interval, why) = self.elo_text(i);
            let [w, d, l] = self.wdl[i];
            let los = self.elo(i).los.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", 100.0 * x));
            let _ = writeln!(
                out,
                "{:>3} {:<width$} {:>6} {:>5} {w:>5} {d:>5} {l:>5} {elo:>7} {interval:>16} {los:>6}",
                rank + 1,
                self.names[i],
                points(self.half_points(i)),
                self.games(i),
            );
            if let Some(why) = why {
                notes.push(format!("  {} {why}", self.names[i]));
            }
        }
        let _ = writeln!(out, "\nElo: D(s) = -400 log10(1/s - 1) of the score fraction s against the field; 95%");
        let _ = writeln!(out, "interval [D(s - m), D(s + m)], m = 1.96 sd/sqrt(n) from the normal approximation of");
        let _ = writeln!(out, "the n per-game scores (sd their standard deviation), infinite where s - m <= 0 or");
        let _ = writeln!(out, "s + m >= 1; LOS = Phi((W-L)/sqrt(W+L)).");
        if !notes.is_empty() {
            let _ = writeln!(out, "\nOpen intervals (too few games, or too one-sided, for a finite bound):");
            for n in &notes {
                let _ = writeln!(out, "{n}");
            }
        }
        out.push('\n');
        let order = self.order();
        let cells: Vec<Vec<String>> = order
            .iter()
            .map(|&i| {
                order
                    .iter()
                    .map(|&j| match (i == j, self.games[i][j]) {
                        (true, _) => "x".to_owned(),
                        (false, 0) => String::new(),
                        (false, g) => format!("{}/{g}", points(self.half[i][j])),
                    })
                    .collect()
            })
            .collect();
        let cell = cells.iter().flatten().map(String::len).max().unwrap_or(0).max(5);
        let width = (width + 4).max(10);
        let _ = write!(out, "{:<width$}", "Crosstable");
        for k in 0..order.len() {
            let _ = write!(out, "  {:>cell$}", k + 1);
        }
        out.push('\n');
        for (k, (&i, row)) in order.iter().zip(&cells).enumerate() {
            let mut line = format!("{:<width$}", format!("{} {}", k + 1, self.names[i]));
            for c in row {
                let _ = write!(line, "  {c:>cell$}");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let _ = writeln!(out, "(points of games: 1.5/2 is one and a half points from two games)");
        out
    }
}

/// Half points as points with one decimal: `3.5`, `7.0`.
fn points(half: u32) -> String {
    format!("{}.{}", half / 2, if half.is_multiple_of(2) { 0 } else { 5 })
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
            report.contains("\n  1 a         7.0    10     6     2     2    +147      [-33, +504]  92.1%\n"),
            "{report}"
        );
        assert!(
            report.contains("\n  2 b         3.0    10     2     2     6    -147      [-504, +33]   7.9%\n"),
            "{report}"
        );
        assert!(
            report.contains("\nCrosstable       1       2\n1 a              x  7.0/10\n2 b         3.0/10       x\n"),
            "{report}"
        );
        assert!(!report.contains("Open intervals"), "both intervals are finite: {report}");
    }

    /// The report: `[-39, -]` said nothing of why, and `1/2`
    /// (a point from two games) read as a draw.
    #[test]
    fn open_intervals_say_why_and_scores_are_points_of_games() {
        let mut st = Standings::new(["a", "b", "c", "d", "e", "f"].map(String::from).to_vec());
        // a: a win and a draw against b: s = 0.75, each per-game score
        // 0.25 from it, m = 1.96 sqrt(0.0625 / 2) = 0.3465; s - m = 0.4035
        // gives D = -400 log10(1/0.4035 - 1) = -67.9, s + m = 1.0965 none.
        st.add(0, 1, GameResult::WhiteWins);
        st.add(1, 0, GameResult::Draw);
        // c and d: a win each, m = 1.96 sqrt(0.25 / 2) = 0.693 both ways.
        st.add(2, 3, GameResult::WhiteWins);
        st.add(3, 2, GameResult::WhiteWins);
        // f wins its only game, against e.
        st.add(5, 4, GameResult::WhiteWins);
        let e = st.elo(0);
        assert!((e.low.unwrap() + 67.89).abs() < 0.01 && e.high.is_none(), "{e:?}");
        let report = st.report();
        let row = |name: &str| -> Vec<&str> {
            let l = report.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap();
            l.split_whitespace().skip(2).collect()
        };
        // Points, games, won, drawn, lost, Elo, interval, LOS.
        assert_eq!(row("a"), ["1.5", "2", "1", "1", "0", "+191", "[-68,", "+\u{221e})", "84.1%"], "{report}");
        assert_eq!(row("b"), ["0.5", "2", "0", "1", "1", "-191", "(-\u{221e},", "+68]", "15.9%"], "{report}");
        assert_eq!(row("c"), ["1.0", "2", "1", "0", "1", "+0", "(-\u{221e},", "+\u{221e})", "50.0%"], "{report}");
        assert_eq!(row("f"), ["1.0", "1", "1", "0", "0", "+\u{221e}", "-", "84.1%"], "{report}");
        for why in [
            "\n  a [-68, +\u{221e}): s + m = 0.750 + 0.346 = 1.096 >= 1, so no upper bound \
             (2 games: 1 won, 1 drawn, 0 lost)\n",
            "\n  b (-\u{221e}, +68]: s - m = 0.250 - 0.346 = -0.096 <= 0, so no lower bound \
             (2 games: 0 won, 1 drawn, 1 lost)\n",
            "\n  c (-\u{221e}, +\u{221e}): s - m = -0.193 <= 0 and s + m = 1.193 >= 1 (s = 0.500, m = 0.693), \
             so no bound either way (2 games: 1 won, 0 drawn, 1 lost)\n",
            "\n  e Elo -\u{221e}: every game lost (1 of 1): a score of 0% has no finite Elo, and scores that do not \
             vary give no interval\n",
        ] {
            assert!(report.contains(why), "{why}\n{report}");
        }
        // The crosstable: points with one decimal, of so many games.
        let cross = report.split("\nCrosstable").nth(1).unwrap();
        let cells = |name: &str| -> Vec<&str> {
            let l = cross.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap();
            l.split_whitespace().skip(2).collect()
        };
        assert_eq!(cells("a"), ["x", "1.5/2"], "{cross}");
        assert_eq!(cells("b"), ["0.5/2", "x"], "{cross}");
        assert_eq!(cells("f"), ["x", "1.0/1"], "{cross}");
        assert_eq!(cells("e"), ["0.0/1", "x"], "{cross}");
        assert!(cross.contains("(points of games: 1.5/2 is one and a half points from two games)"), "{cross}");
    }

    #[test]
    fn all_wins_give_no_finite_elo() {
        let mut st = Standings::new(vec!["a".into(), "b".into()]);
        st.add(0, 1, GameResult::WhiteWins);
        assert_eq!(st.elo(0).elo, None);
        assert_eq!(st.elo(1).elo, None);
    }
}
