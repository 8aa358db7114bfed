//! The tuning report as one self-contained page, in the report's shell
//! (its style, script and Content-Security-Policy): the run and its
//! parameters in tables, then a chart per parameter —
//! `<figure class="chart" data-kind="parameter" data-param="NAME">`, its
//! value against the iteration (a line from its start, at iteration 0),
//! the probes θ⁺ and θ⁻ as a lighter band around it, its start dashed —
//! and a chart per series (`data-kind="result"`, and on a suite
//! `data-kind="objective"`): a point per iteration and the moving
//! average as a line. Written from the data alone, so the same history
//! gives the same page.

use std::fmt::Write as _;
use std::io;

use super::text::figure;
use super::{Mode, ParamReport, Series, Tuning};
use crate::html::{
    cell, color, count, count_ticks, empty, esc, f, human_count, number, page_end, page_start, table, Cell, Frame,
};

/// Ticks of a linear axis holding `lo..=hi`: a step of 1, 2 or 5 times a
/// power of ten giving about five intervals; the ticks and the axis's
/// ends (the first and last tick). An empty span is widened around it.
fn linear_ticks(lo: f64, hi: f64) -> (Vec<f64>, f64, f64) {
    let (mut lo, mut hi) = (lo.min(hi), lo.max(hi));
    if !(lo.is_finite() && hi.is_finite()) {
        return (vec![0.0, 1.0], 0.0, 1.0);
    }
    if hi - lo <= lo.abs().max(hi.abs()) * 1e-9 {
        let pad = (lo.abs() * 0.05).max(1.0);
        (lo, hi) = (lo - pad, hi + pad);
    }
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p);
    let (a, b) = ((lo / step).floor(), (hi / step).ceil());
    if !(step > 0.0 && step.is_finite() && a.is_finite() && b.is_finite()) || b - a > 50.0 || b <= a {
        return (vec![lo, hi], lo, hi);
    }
    let ticks: Vec<f64> = (0..=(b - a) as u32).map(|i| (a + f64::from(i)) * step).collect();
    (ticks, a * step, b * step)
}

/// A tick's label with the decimals its step needs, and a true minus.
fn tick_label(v: f64, step: f64) -> String {
    let d = if step > 0.0 && step.is_finite() { (-step.log10().floor()).clamp(0.0, 10.0) as usize } else { 2 };
    let s = format!("{v:.d$}");
    let s = if s.trim_start_matches(['-', '0', '.']).is_empty() { s.trim_start_matches('-').to_owned() } else { s };
    s.replacen('-', "−", 1)
}

/// The ticks of an axis as (pixel, label).
fn labelled(ticks: &[f64], px: &dyn Fn(f64) -> f64) -> Vec<(f64, String)> {
    let step = if ticks.len() > 1 { ticks[1] - ticks[0] } else { 1.0 };
    ticks.iter().map(|&v| (px(v), tick_label(v, step))).collect()
}

/// The iteration axis: from 0 to the last iteration, and its ticks.
fn iteration_axis(t: &Tuning) -> (Vec<(f64, String)>, f64) {
    let last = t.series.first().map_or(1, |s| s.points.iter().map(|p| p.iteration).max().unwrap_or(1));
    let (ticks, top) = count_ticks(last as f64);
    (ticks.into_iter().map(|v| (v, human_count(v))).collect(), top)
}

const FRAME: Frame = Frame { left: 80.0, top: 12.0, width: 730.0, height: 200.0 };

fn svg_open(out: &mut String, label: &str) {
    let _ = write!(
        out,
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">",
        f(FRAME.right() + 30.0),
        f(FRAME.bottom() + 46.0),
        esc(label)
    );
}

/// A parameter's chart: its value against the iteration, its probes as
/// a band, its start dashed.
fn param_chart(out: &mut String, t: &Tuning, i: usize, p: &ParamReport) {
    let Some(start) = p.start else { return };
    let (xt, top) = iteration_axis(t);
    let x = |it: f64| FRAME.left + FRAME.width * it / top;
    let mut lo = start;
    let mut hi = start;
    for q in &p.points {
        for v in [q.step.value, q.step.plus, q.step.minus] {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    let pad = (hi - lo) / 20.0;
    let (ticks, y0, y1) = linear_ticks(lo - pad, hi + pad);
    let y = |v: f64| FRAME.bottom() - FRAME.height * (v - y0) / (y1 - y0);
    let _ = write!(out, "<figure class=\"chart\" data-kind=\"parameter\" data-param=\"{}\">", esc(&p.name));
    svg_open(out, &format!("{} against the iteration", p.name));
    let xt: Vec<(f64, String)> = xt.into_iter().map(|(v, l)| (x(v), l)).collect();
    FRAME.axes(out, (&xt, &labelled(&ticks, &y)), ("iteration", &p.name), (36.0, 16.0));
    let c = color(i);
    // The probes: the band between the greater and the lesser of each
    // iteration's two.
    if !p.points.is_empty() {
        let mut d = String::new();
        for (j, q) in p.points.iter().enumerate() {
            let top = q.step.plus.max(q.step.minus);
            let _ = write!(d, "{}{} {} ", if j == 0 { "M" } else { "L" }, f(x(q.iteration as f64)), f(y(top)));
        }
        for q in p.points.iter().rev() {
            let bottom = q.step.plus.min(q.step.minus);
            let _ = write!(d, "L{} {} ", f(x(q.iteration as f64)), f(y(bottom)));
        }
        let _ = write!(
            out,
            "<path class=\"probes\" d=\"{}Z\" fill=\"{c}\" fill-opacity=\"0.18\" stroke=\"{c}\" stroke-opacity=\"0.3\" \
             stroke-width=\"0.5\"/>",
            d
        );
    }
    let _ = write!(
        out,
        "<line class=\"start\" x1=\"{}\" y1=\"{s}\" x2=\"{}\" y2=\"{s}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>",
        f(FRAME.left),
        f(FRAME.right()),
        s = f(y(start))
    );
    let mut d = format!("M{} {}", f(x(0.0)), f(y(start)));
    for q in &p.points {
        let _ = write!(d, " L{} {}", f(x(q.iteration as f64)), f(y(q.step.value)));
    }
    let _ = write!(out, "<path class=\"value\" d=\"{d}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"1.5\"/>");
    let _ = write!(
        out,
        "</svg><figcaption>{}: its value after each iteration, from its start ({}) at iteration 0 to {}; the band \
         spans the two probes θ⁺ and θ⁻ each iteration played (θ ± c_k).</figcaption>",
        esc(&p.name),
        figure(start),
        p.end.map_or_else(|| "-".into(), figure)
    );
    let _ = write!(
        out,
        "<div class=\"legend\"><span><i class=\"swatch\" style=\"background:{c}\"></i>value</span><span><i \
         class=\"swatch\" style=\"background:{c};opacity:0.25\"></i>probes θ⁺ and θ⁻</span><span><svg width=\"24\" \
         height=\"12\"><line x1=\"0\" y1=\"6\" x2=\"24\" y2=\"6\" stroke=\"#888\" stroke-dasharray=\"4 3\"/></svg> \
         start</span></div></figure>"
    );
}

/// A series' chart: the moving average as a line, a point per iteration
/// over it.
fn series_chart(out: &mut String, t: &Tuning, s: &Series, kind: &str) {
    let (xt, top) = iteration_axis(t);
    let x = |it: f64| FRAME.left + FRAME.width * it / top;
    let zero = kind == "result";
    let (mut lo, mut hi) = if zero { (0.0, 0.0) } else { (f64::INFINITY, f64::NEG_INFINITY) };
    for p in &s.points {
        lo = lo.min(p.value);
        hi = hi.max(p.value);
    }
    // Room around the points, so none sits on the frame.
    let pad = (hi - lo) / 20.0;
    let (ticks, y0, y1) = linear_ticks(lo - pad, hi + pad);
    let y = |v: f64| FRAME.bottom() - FRAME.height * (v - y0) / (y1 - y0);
    let _ = write!(out, "<figure class=\"chart\" data-kind=\"{kind}\" data-series=\"{}\">", esc(&s.name));
    svg_open(out, &format!("{} per iteration", s.name));
    let xt: Vec<(f64, String)> = xt.into_iter().map(|(v, l)| (x(v), l)).collect();
    FRAME.axes(out, (&xt, &labelled(&ticks, &y)), ("iteration", &s.name), (36.0, 16.0));
    if zero {
        let _ = write!(
            out,
            "<line class=\"zero\" x1=\"{}\" y1=\"{z}\" x2=\"{}\" y2=\"{z}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>",
            f(FRAME.left),
            f(FRAME.right()),
            z = f(y(0.0))
        );
    }
    let mut d = String::new();
    for (j, p) in s.points.iter().enumerate() {
        let _ = write!(d, "{}{} {} ", if j == 0 { "M" } else { "L" }, f(x(p.iteration as f64)), f(y(p.moving_average)));
    }
    if !d.is_empty() {
        let _ = write!(
            out,
            "<path class=\"average\" data-window=\"{}\" d=\"{}\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>",
            t.window,
            d.trim_end()
        );
    }
    for p in &s.points {
        let _ = write!(
            out,
            "<circle class=\"point\" data-iteration=\"{}\" data-value=\"{}\" cx=\"{}\" cy=\"{}\" r=\"2.5\" \
             fill=\"#1f77b4\" fill-opacity=\"0.6\"/>",
            p.iteration,
            p.value,
            f(x(p.iteration as f64)),
            f(y(p.value))
        );
    }
    let window = if t.window == 1 { "1 iteration".to_owned() } else { format!("{} iterations", t.window) };
    let _ = write!(
        out,
        "</svg><figcaption>{}: {}, a point per iteration; the line is its moving average over the last {window} \
         (fewer at the start).</figcaption>",
        esc(&s.name),
        esc(&s.what)
    );
    let _ = write!(
        out,
        "<div class=\"legend\"><span><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" r=\"2.5\" \
         fill=\"#1f77b4\" fill-opacity=\"0.6\"/></svg> an iteration</span><span><i class=\"swatch\" \
         style=\"background:#d62728\"></i>moving average over {window}</span></div></figure>"
    );
}

fn opt(x: Option<f64>) -> Cell {
    x.map_or_else(empty, |v| number(figure(v), v))
}

/// The report as one self-contained HTML page.
#[must_use]
pub fn html(t: &Tuning) -> String {
    let mut out = String::new();
    page_start(&mut out, "EPD tuning report", &format!("Tuning report: {}", t.file));
    let mode = match &t.mode {
        Mode::Games => "games (θ⁺ against θ⁻)".to_owned(),
        Mode::Suite { objective } => format!("suite ({objective})"),
    };
    let mut cols: Vec<(&str, bool)> = vec![("mode", true), ("iterations", false)];
    let mut row = vec![cell(mode), count(t.iterations)];
    cols.push(("pairs", false));
    row.push(count(t.pairs));
    if let Some(n) = t.planned_iterations {
        // SPSA's N, in pairs (an iteration of --batch B plays B).
        cols.push(("pairs planned", false));
        row.push(count(n));
    }
    if let Some(g) = &t.games {
        cols.extend([
            ("games", false),
            ("θ⁺ wins", false),
            ("draws", false),
            ("θ⁺ losses", false),
            ("θ⁺ score %", false),
        ]);
        row.extend([count(g.games), count(g.wins), count(g.draws), count(g.losses), opt(g.score_percent)]);
    }
    if let Some(s) = &t.suite {
        cols.extend([("θ⁺ mean", false), ("θ⁻ mean", false)]);
        row.extend([opt(s.plus_mean), opt(s.minus_mean)]);
    }
    cols.push(("moving average window", false));
    row.push(count(t.window as u64));
    table(&mut out, "run", "The run: its iterations, and what they measured, from θ⁺'s side.", &cols, &[row]);
    out.push_str("<h2>Parameters</h2>");
    // The state's columns, when the run's tune.json was read.
    let state = t.params.iter().any(|p| p.range.is_some());
    let rows: Vec<Vec<Cell>> = t
        .params
        .iter()
        .map(|p| {
            let mut row = vec![
                cell(p.name.clone()),
                opt(p.start),
                opt(p.end),
                opt(p.min),
                opt(p.max),
                opt(p.last_c),
                opt(p.last_a),
            ];
            if state {
                row.extend([opt(p.range.map(|r| r[0])), opt(p.range.map(|r| r[1])), opt(p.c_end), opt(p.r_end)]);
            }
            row
        })
        .collect();
    let mut cols = vec![
        ("parameter", true),
        ("start", false),
        ("end", false),
        ("min", false),
        ("max", false),
        ("last c_k", false),
        ("last a_k", false),
    ];
    let mut caption = "Each parameter: its start, its value at the end, the least and greatest values it took, and \
                       the last iteration's perturbation c_k and gain a_k"
        .to_owned();
    if state {
        cols.extend([("range from", false), ("range to", false), ("c_end", false), ("r_end", false)]);
        caption.push_str("; from the run's state, the range it is kept in and its c and r at the end of the run");
    }
    caption.push('.');
    table(&mut out, "parameters", &caption, &cols, &rows);
    if t.iterations == 0 {
        out.push_str("<p class=\"empty\">No iterations yet: nothing to chart.</p>");
    } else {
        for (i, p) in t.params.iter().enumerate() {
            param_chart(&mut out, t, i, p);
        }
        out.push_str("<h2>Results</h2>");
        for (i, s) in t.series.iter().enumerate() {
            series_chart(&mut out, t, s, if i == 0 { "result" } else { "objective" });
        }
    }
    let mut bytes = out.into_bytes();
    let _ = page_end(&mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// Writes the report as one self-contained HTML page to `w`.
///
/// # Errors
/// Writing failed.
pub fn write_html(t: &Tuning, w: &mut dyn io::Write) -> io::Result<()> {
    w.write_all(html(t).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_axes_take_round_steps_and_hold_the_span() {
        let (t, lo, hi) = linear_ticks(97.0, 138.0);
        assert_eq!((lo, hi), (90.0, 140.0));
        assert_eq!(t, [90.0, 100.0, 110.0, 120.0, 130.0, 140.0]);
        let (t, lo, hi) = linear_ticks(-3.0, 2.0);
        assert_eq!((lo, hi, t.len()), (-3.0, 2.0, 6));
        // One value: widened around it.
        let (_, lo, hi) = linear_ticks(5.0, 5.0);
        assert!(lo < 5.0 && hi > 5.0);
        // Nothing that is not a number, nor a span past f64, panics.
        for (a, b) in [(f64::NAN, 1.0), (-1e308, 1e308), (1e300, 1e300), (0.0, 1e-300)] {
            let (t, lo, hi) = linear_ticks(a, b);
            assert!(!t.is_empty() && t.len() <= 52 && lo <= hi, "{a} {b}: {t:?}");
        }
        assert_eq!(tick_label(-2.0, 1.0), "−2");
        assert_eq!(tick_label(0.5, 0.1), "0.5");
        assert_eq!(tick_label(-0.0, 1.0), "0");
    }
}
