//! The tuning report as text: the run, a row per parameter, each
//! parameter at the end of every tenth of the run, and the results with
//! their moving average at the same iterations.

use std::fmt::Write as _;

use super::{checkpoints, Mode, Tuning};

/// A parameter's figure, short: one decimal from 100 up, two from 1,
/// four significant digits below, trailing zeros dropped (`137.5`, `300`,
/// `20.13`, `0.04123`); in powers of ten below 0.001 and from 10^15
/// (`1.50e-5`).
#[must_use]
pub fn figure(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e15).contains(&a) {
        return format!("{x:.2e}");
    }
    let s = if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 7) as usize;
        format!("{x:.digits$}")
    };
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// A result or an average: two decimals at most, trailing zeros dropped
/// (`2`, `-0.5`, `0.67`, `52.5`).
#[must_use]
pub fn average(x: f64) -> String {
    if !(x.is_finite() && x.abs() < 1e15) {
        return format!("{x:.2e}");
    }
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), figure)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report as text.
#[must_use]
pub fn text(t: &Tuning) -> String {
    let mut out = String::new();
    let mode = match &t.mode {
        Mode::Games => "games".to_owned(),
        Mode::Suite { objective } => format!("suite, {objective}"),
    };
    let _ = write!(out, "Tuning history {} ({mode}): ", t.file);
    if t.iterations == 0 {
        let _ = writeln!(
            out,
            "no iterations yet\n  parameters: {}",
            t.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        );
        return out;
    }
    // The plan (SPSA's N) counts pairs: with --batch an iteration plays
    // several, so it is set against the pairs, not the iterations.
    let pairs = match t.planned_iterations {
        Some(n) => format!("{} of {n} pairs", t.pairs),
        None => plural(t.pairs, "pair", "pairs"),
    };
    match (&t.mode, t.planned_iterations) {
        (Mode::Suite { .. }, Some(n)) => {
            let _ = writeln!(out, "{} of {n} iterations", t.iterations);
        }
        _ => {
            let _ = writeln!(out, "{}, {pairs}", plural(t.iterations, "iteration", "iterations"));
        }
    }
    if let Some(g) = &t.games {
        let _ = writeln!(
            out,
            "  θ⁺ against θ⁻: {}, +{} ={} -{}{}",
            plural(g.games, "game", "games"),
            g.wins,
            g.draws,
            g.losses,
            g.score_percent.map_or(String::new(), |s| format!(", θ⁺'s score {s:.1} %"))
        );
    }
    if let Some(s) = &t.suite {
        let _ = writeln!(
            out,
            "  {} on average over the iterations: θ⁺ {}, θ⁻ {}",
            s.objective,
            opt(s.plus_mean),
            opt(s.minus_mean)
        );
    }
    let width = t.params.iter().map(|p| p.name.chars().count()).max().unwrap_or(0).clamp(9, 40);
    // The state's columns, when the run's tune.json was read.
    let state = t.params.iter().any(|p| p.range.is_some());
    out.push('\n');
    let _ = write!(
        out,
        "  {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "parameter", "start", "end", "min", "max", "last c_k", "last a_k"
    );
    if state {
        let _ = write!(out, " {:>15} {:>8} {:>8}", "range", "c_end", "r_end");
    }
    out.push('\n');
    for p in &t.params {
        let _ = write!(
            out,
            "  {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            p.name,
            opt(p.start),
            opt(p.end),
            opt(p.min),
            opt(p.max),
            opt(p.last_c),
            opt(p.last_a)
        );
        if state {
            let range = p.range.map_or_else(|| "-".to_owned(), |[lo, hi]| format!("{}..{}", figure(lo), figure(hi)));
            let _ = write!(out, " {range:>15} {:>8} {:>8}", opt(p.c_end), opt(p.r_end));
        }
        out.push('\n');
    }
    let marks = checkpoints(t.iterations as usize);
    let k_of = |i: usize| t.series.first().and_then(|s| s.points.get(i)).map_or(0, |p| p.k);
    for p in &t.params {
        let _ = writeln!(out, "\n{}: its value after the iteration; θ⁺ and θ⁻, the probes it played", p.name);
        let _ = writeln!(
            out,
            "  {:>9} {:>7} {:>10} {:>10} {:>10} {:>10}",
            "iteration", "pairs", "value", "θ⁺", "θ⁻", "c_k"
        );
        let _ = writeln!(out, "  {:>9} {:>7} {:>10}", "start", 0, opt(p.start));
        for &i in &marks {
            let Some(pt) = p.points.get(i) else { continue };
            let s = &pt.step;
            let _ = writeln!(
                out,
                "  {:>9} {:>7} {:>10} {:>10} {:>10} {:>10}",
                pt.iteration,
                k_of(i),
                figure(s.value),
                figure(s.plus),
                figure(s.minus),
                figure(s.c)
            );
        }
    }
    out.push('\n');
    for s in &t.series {
        let _ = writeln!(out, "{}: {}", s.name, s.what);
    }
    let _ = writeln!(
        out,
        "moving average{} over the last {} (fewer at the start)",
        if t.series.len() > 1 { "s" } else { "" },
        plural(t.window as u64, "iteration", "iterations")
    );
    let _ = write!(out, "  {:>9} {:>7}", "iteration", "pairs");
    for s in &t.series {
        let w = s.name.chars().count().max(8);
        let _ = write!(out, " {:>w$} {:>10}", s.name, "average");
    }
    out.push('\n');
    for &i in &marks {
        let Some(first) = t.series.first().and_then(|s| s.points.get(i)) else { continue };
        let _ = write!(out, "  {:>9} {:>7}", first.iteration, first.k);
        for s in &t.series {
            let w = s.name.chars().count().max(8);
            let p = &s.points[i];
            let _ = write!(out, " {:>w$} {:>10}", average(p.value), average(p.moving_average));
        }
        out.push('\n');
    }
    out
}
