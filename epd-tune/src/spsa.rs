//! SPSA as fishtest runs it.
//!
//! Each parameter has a start value, bounds, and the two figures fishtest
//! asks for: `c_end`, the perturbation at the last iteration, and `r_end`,
//! the learning rate there. With `N` iterations (game pairs, or suite
//! runs) in all, `A` about a tenth of them, α = 0.602 and γ = 0.101:
//!
//! - `c = c_end · N^γ` and `c_k = c / (k + 1)^γ`, so the last iteration's
//!   perturbation is `c_end`;
//! - `a = r_end · c_end² · (A + N)^α` and `a_k = a / (A + k + 1)^α`, so
//!   the last iteration's `a_k / c_k²` is `r_end`;
//! - iteration `k` draws a sign `δ_i = ±1` per parameter and plays
//!   `θ⁺ = θ + c_k·δ` against `θ⁻ = θ − c_k·δ` (each clipped to its
//!   bounds); with `result` the wins less losses of θ⁺ over the
//!   iteration's pairs (or the difference of its objective),
//!   `θ_i += (a_k / c_k) · result · δ_i`, clipped; `k` goes on by the
//!   number of pairs played.
//!
//! The signs come from splitmix64 seeded by the run's seed, its state
//! kept with the rest, so a run resumed from its saved state draws what
//! the uninterrupted run would have.

use core::fmt;

use serde::{Deserialize, Serialize};

/// A parameter that is not well formed, or a state that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpsaError(pub String);

impl fmt::Display for SpsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpsaError {}

/// One parameter: its current value θ, its bounds, and fishtest's
/// `c_end` and `r_end`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The engine's option name.
    pub name: String,
    /// The current value θ.
    pub value: f64,
    /// The least value the option takes.
    pub min: f64,
    /// The greatest value the option takes.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The learning rate `a_k / c_k²` at the last iteration.
    pub r_end: f64,
    /// For a check or combo option, the values it takes, tuned as an
    /// index into them (ordinal: sensible where the choices are ordered,
    /// as `false` < `true` or a combo of growing strength); `None` for a
    /// spin option, sent as the nearest integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

impl Param {
    /// A parameter, checked.
    ///
    /// # Errors
    /// A bound or value that is not finite, `min` not below `max`, the
    /// value outside the bounds, `c_end` or `r_end` not above 0.
    pub fn new(name: &str, value: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Result<Param, SpsaError> {
        let p = Param { name: name.to_owned(), value, min, max, c_end, r_end, choices: None };
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<(), SpsaError> {
        let name = &self.name;
        let all = [self.value, self.min, self.max, self.c_end, self.r_end];
        if all.iter().any(|v| !v.is_finite()) {
            return Err(SpsaError(format!("{name}: every figure must be a finite number")));
        }
        if self.min >= self.max {
            return Err(SpsaError(format!("{name}: min ({}) must be below max ({})", self.min, self.max)));
        }
        if self.value < self.min || self.value > self.max {
            return Err(SpsaError(format!(
                "{name}: the value {} is outside its range {}..{}",
                self.value, self.min, self.max
            )));
        }
        if self.c_end <= 0.0 || self.r_end <= 0.0 {
            return Err(SpsaError(format!("{name}: c_end and r_end must be above 0")));
        }
        Ok(())
    }

    fn clip(&self, v: f64) -> f64 {
        v.clamp(self.min, self.max)
    }

    /// The option's value for θ = `v`, as the engine takes it: the
    /// nearest integer, or for a check or combo option the choice at the
    /// nearest index.
    #[must_use]
    pub fn option_value(&self, v: f64) -> String {
        match &self.choices {
            Some(c) if !c.is_empty() => {
                let i = usize::try_from(spin(v).max(0)).unwrap_or(0).min(c.len() - 1);
                c[i].clone()
            }
            _ => spin(v).to_string(),
        }
    }
}

/// The run's length and fishtest's exponents.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// `N`: the iterations (game pairs, or suite runs) of the whole run.
    pub iterations: u64,
    /// α, the decay of `a_k` (0.602).
    pub alpha: f64,
    /// γ, the decay of `c_k` (0.101).
    pub gamma: f64,
    /// `A`, the stability constant (a tenth of the iterations).
    pub big_a: f64,
}

impl Schedule {
    /// fishtest's defaults for a run of `iterations`.
    #[must_use]
    pub fn new(iterations: u64) -> Schedule {
        Schedule { iterations, alpha: 0.602, gamma: 0.101, big_a: 0.1 * iterations as f64 }
    }
}

/// One iteration's probes: what θ⁺ and θ⁻ play with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The iterations done before it (fishtest's `k`).
    pub k: u64,
    /// The sign of each parameter's perturbation.
    pub flips: Vec<i8>,
    /// Each parameter's `c_k`.
    pub c: Vec<f64>,
    /// Each parameter's `a_k`.
    pub a: Vec<f64>,
    /// θ⁺, clipped.
    pub plus: Vec<f64>,
    /// θ⁻, clipped.
    pub minus: Vec<f64>,
}

/// What an update did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The iterations done after it.
    pub k: u64,
    /// θ before.
    pub before: Vec<f64>,
    /// θ after.
    pub after: Vec<f64>,
    /// The result it was given.
    pub result: f64,
}

/// The state of a run: the parameters' current values, the schedule, the
/// iterations done and the generator's state. Saved as JSON after every
/// iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spsa {
    /// The parameters, each with its current value.
    pub params: Vec<Param>,
    /// The schedule.
    pub schedule: Schedule,
    /// The iterations done.
    pub k: u64,
    /// splitmix64's state.
    rng: u64,
}

impl Spsa {
    /// A run from the parameters' values, drawing its signs from `seed`.
    ///
    /// # Errors
    /// No parameter, one that is not well formed, two of one name, or no
    /// iterations.
    pub fn new(params: Vec<Param>, schedule: Schedule, seed: u64) -> Result<Spsa, SpsaError> {
        let s = Spsa { params, schedule, k: 0, rng: seed };
        s.check()?;
        Ok(s)
    }

    /// Checks a state (a new one, or one read back from a file).
    ///
    /// # Errors
    /// As [`Spsa::new`].
    pub fn check(&self) -> Result<(), SpsaError> {
        if self.params.is_empty() {
            return Err(SpsaError("no parameter to tune".into()));
        }
        if self.schedule.iterations == 0 {
            return Err(SpsaError("a run needs at least one iteration".into()));
        }
        let sch = self.schedule;
        if !(sch.alpha.is_finite() && sch.gamma.is_finite() && sch.big_a.is_finite() && sch.big_a >= 0.0) {
            return Err(SpsaError("alpha, gamma and A must be finite, A at least 0".into()));
        }
        for (i, p) in self.params.iter().enumerate() {
            p.check()?;
            if self.params[..i].iter().any(|q| q.name.eq_ignore_ascii_case(&p.name)) {
                return Err(SpsaError(format!("{}: named twice", p.name)));
            }
        }
        Ok(())
    }

    /// `true` once every iteration of the schedule is done.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.k >= self.schedule.iterations
    }

    /// A parameter's `c`: `c_end · N^γ`.
    #[must_use]
    pub fn c(&self, p: &Param) -> f64 {
        p.c_end * (self.schedule.iterations as f64).powf(self.schedule.gamma)
    }

    /// A parameter's `a`: `r_end · c_end² · (A + N)^α`.
    #[must_use]
    pub fn a(&self, p: &Param) -> f64 {
        let s = self.schedule;
        p.r_end * p.c_end * p.c_end * (s.big_a + s.iterations as f64).powf(s.alpha)
    }

    fn next_u64(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next iteration's probes (draws its signs).
    pub fn probe(&mut self) -> Probe {
        let s = self.schedule;
        let k1 = (self.k + 1) as f64;
        let mut bits = 0u64;
        let mut flips = Vec::with_capacity(self.params.len());
        for i in 0..self.params.len() {
            if i % 64 == 0 {
                bits = self.next_u64();
            }
            flips.push(if bits >> (i % 64) & 1 == 1 { 1 } else { -1 });
        }
        let c: Vec<f64> = self.params.iter().map(|p| self.c(p) / k1.powf(s.gamma)).collect();
        let a: Vec<f64> = self.params.iter().map(|p| self.a(p) / (s.big_a + k1).powf(s.alpha)).collect();
        let moved = |sign: f64| -> Vec<f64> {
            self.params.iter().enumerate().map(|(i, p)| p.clip(p.value + sign * c[i] * f64::from(flips[i]))).collect()
        };
        let (plus, minus) = (moved(1.0), moved(-1.0));
        Probe { k: self.k, flips, c, a, plus, minus }
    }

    /// Moves θ by the probe's result: wins less losses of θ⁺ over `pairs`
    /// game pairs (or the difference of its objective, `pairs` 1).
    pub fn update(&mut self, probe: &Probe, result: f64, pairs: u64) -> Step {
        let before: Vec<f64> = self.params.iter().map(|p| p.value).collect();
        for (i, p) in self.params.iter_mut().enumerate() {
            let step = probe.a[i] / probe.c[i] * result * f64::from(probe.flips[i]);
            p.value = p.clip(p.value + step);
        }
        self.k += pairs;
        Step { k: self.k, before, after: self.params.iter().map(|p| p.value).collect(), result }
    }
}

/// A value as a UCI spin option takes it: the nearest integer.
#[must_use]
pub fn spin(value: f64) -> i64 {
    value.round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn margin() -> Param {
        Param::new("Margin", 100.0, 0.0, 400.0, 20.0, 0.002).unwrap()
    }

    /// The first two iterations worked by hand (Python, the formulas
    /// above): N = 1000, A = 100, c_end = 20, r_end = 0.002; c =
    /// 40.18185625217456, a = 54.201135308376756; k = 0: c_0 = c, a_0 =
    /// 3.3682701492112717, a_0 / c_0 = 0.0838256482744992; k = 1 (after
    /// one pair): c_1 = 37.46501976947491, a_1 / c_1 = 0.0893727484711458.
    #[test]
    fn an_iteration_as_worked_by_hand() {
        let mut s = Spsa::new(vec![margin()], Schedule::new(1000), 1).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
        assert!(close(s.c(&s.params[0]), 40.18185625217456));
        assert!(close(s.a(&s.params[0]), 54.201135308376756));
        let p = s.probe();
        assert_eq!(p.k, 0);
        assert!(close(p.c[0], 40.18185625217456));
        assert!(close(p.a[0], 3.3682701492112717));
        let d = f64::from(p.flips[0]);
        assert!(close(p.plus[0], 100.0 + d * 40.18185625217456));
        assert!(close(p.minus[0], 100.0 - d * 40.18185625217456));
        let step = s.update(&p, 3.0, 1);
        assert!(close(step.after[0], 100.0 + d * 3.0 * 0.0838256482744992), "{step:?}");
        assert_eq!(step.k, 1);
        let p = s.probe();
        assert!(close(p.c[0], 37.46501976947491));
        assert!(close(p.a[0] / p.c[0], 0.0893727484711458));
    }

    /// The last iteration's perturbation is c_end and its a_k / c_k² is
    /// r_end, as fishtest states them.
    #[test]
    fn the_last_iteration_has_c_end_and_r_end() {
        let mut s = Spsa::new(vec![margin()], Schedule::new(1000), 1).unwrap();
        s.k = 999;
        let p = s.probe();
        assert!((p.c[0] - 20.0).abs() < 1e-9);
        assert!((p.a[0] / (p.c[0] * p.c[0]) - 0.002).abs() < 1e-12);
    }

    #[test]
    fn probes_and_steps_stay_in_bounds() {
        let near = Param::new("Near", 399.0, 0.0, 400.0, 20.0, 1.0).unwrap();
        let mut s = Spsa::new(vec![near], Schedule::new(10), 3).unwrap();
        for _ in 0..10 {
            let p = s.probe();
            assert!(p.plus[0] <= 400.0 && p.minus[0] >= 0.0);
            let step = s.update(&p, 1000.0, 1);
            assert!((0.0..=400.0).contains(&step.after[0]));
        }
        assert!(s.is_done());
    }

    /// A state saved after any iteration and read back goes on exactly as
    /// the run that was not interrupted.
    #[test]
    fn a_resumed_run_equals_an_uninterrupted_one() {
        let params = || vec![margin(), Param::new("Knight", 300.0, 200.0, 400.0, 10.0, 0.002).unwrap()];
        let results = [2.0, -1.0, 0.0, 4.0, -3.0, 1.0, 1.0, -2.0];
        let mut whole = Spsa::new(params(), Schedule::new(8), 42).unwrap();
        let mut history = Vec::new();
        for r in results {
            let p = whole.probe();
            history.push((p.clone(), whole.update(&p, r, 1)));
        }
        for cut in 0..results.len() {
            let mut s = Spsa::new(params(), Schedule::new(8), 42).unwrap();
            for &r in &results[..cut] {
                let p = s.probe();
                s.update(&p, r, 1);
            }
            let saved = serde_json::to_string(&s).unwrap();
            let mut s: Spsa = serde_json::from_str(&saved).unwrap();
            s.check().unwrap();
            for (i, &r) in results.iter().enumerate().skip(cut) {
                let p = s.probe();
                assert_eq!(p, history[i].0, "cut at {cut}, iteration {i}");
                assert_eq!(s.update(&p, r, 1), history[i].1);
            }
            assert_eq!(s, whole);
        }
    }

    #[test]
    fn bad_parameters_are_refused_with_their_name() {
        for (args, want) in [
            ((100.0, 400.0, 0.0, 1.0, 1.0), "min (400) must be below max (0)"),
            ((500.0, 0.0, 400.0, 1.0, 1.0), "outside its range"),
            ((100.0, 0.0, 400.0, 0.0, 1.0), "c_end and r_end must be above 0"),
            ((f64::NAN, 0.0, 400.0, 1.0, 1.0), "finite"),
        ] {
            let (v, lo, hi, c, r) = args;
            let e = Param::new("X", v, lo, hi, c, r).unwrap_err();
            assert!(e.0.starts_with("X: ") && e.0.contains(want), "{e}");
        }
        let twice = vec![margin(), margin()];
        assert!(Spsa::new(twice, Schedule::new(5), 0).unwrap_err().0.contains("named twice"));
        assert!(Spsa::new(Vec::new(), Schedule::new(5), 0).is_err());
        assert!(Spsa::new(vec![margin()], Schedule::new(0), 0).is_err());
    }

    /// On a known concave objective (a score that falls with the distance
    /// from 250), SPSA with noiseless results walks θ towards 250.
    #[test]
    fn it_climbs_a_known_hill() {
        let mut s = Spsa::new(vec![margin()], Schedule::new(200), 9).unwrap();
        for _ in 0..200 {
            let p = s.probe();
            let f = |x: f64| -((x - 250.0) / 50.0).powi(2);
            s.update(&p, 10.0 * (f(p.plus[0]) - f(p.minus[0])), 1);
        }
        assert!((s.params[0].value - 250.0).abs() < 15.0, "{}", s.params[0].value);
    }

    #[test]
    fn spin_values_round_to_the_nearest_integer() {
        assert_eq!(spin(2.5), 3);
        assert_eq!(spin(-2.5), -3);
        assert_eq!(spin(99.49), 99);
        let mut style = Param::new("Style", 1.0, 0.0, 2.0, 0.5, 0.1).unwrap();
        assert_eq!(style.option_value(1.2), "1");
        style.choices = Some(vec!["Solid".into(), "Normal".into(), "Risky".into()]);
        for (v, want) in
            [(0.0, "Solid"), (0.49, "Solid"), (0.5, "Normal"), (1.7, "Risky"), (9.0, "Risky"), (-3.0, "Solid")]
        {
            assert_eq!(style.option_value(v), want, "{v}");
        }
    }
}
