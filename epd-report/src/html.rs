//! The report as one self-contained HTML page: inline SVG charts written
//! from the report's data (deterministic, so golden files can hold them),
//! tables that sort when a header is clicked, no network, no external
//! script, style or font. A Content-Security-Policy in the page forbids
//! every load, so a stray reference would show as an error, not as a
//! request.
//!
//! Each chart is a `<figure class="chart" data-kind="…">` with both axes
//! titled with their unit (`<text class="axis-label" data-axis="x|y">`),
//! ticks in human units (`1 ms`, `250 ms`, `2 s`, `10k`, `1.5M`) and a
//! legend (`<div class="legend">`): `themes` (a bar per theme per run:
//! solved percent), `time-curve` and `nodes-curve` (cumulative solved
//! against the time within which each record was certainly solved, and
//! against nodes, on log axes: a point per distinct value per run),
//! `ce-histogram` (a bar per bin per run, its count above it; the first
//! and last bins, below −500 and from 500 up, labelled as such) and
//! `time-scatter` (a circle per distinct pair of solve times of the
//! records both of the first two runs solved, up to
//! [`MAX_TIME_PAIRS`](crate::MAX_TIME_PAIRS), its area and `data-count`
//! the number of records there).
//!
//! Every table of the text report is here too: the runs, notes, themes,
//! mates, time scores, distributions of depth, nodes, seconds and
//! evaluation, comparisons with McNemar's test, solve times with the
//! sign test, issues and lists of ids. A column no run fills is left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;

use crate::render::{num, p_value, theme_order};
use crate::report::Report;
use crate::run::{cumulative, IdList, RunStats, SOLVE_TIME_UNIT};
use crate::stats::Distribution;

/// The ce histogram's bin edges: below −500, 50-centipawn bins to +500,
/// and +500 and up (mate scores are not evaluations and are left out).
pub const CE_EDGES: [i64; 22] = [
    i64::MIN,
    -500,
    -450,
    -400,
    -350,
    -300,
    -250,
    -200,
    -150,
    -100,
    -50,
    0,
    50,
    100,
    150,
    200,
    250,
    300,
    350,
    400,
    450,
    500,
];

/// Issues the page lists per run before it counts the rest.
pub const HTML_ISSUES: u64 = 500;

pub(crate) const COLORS: [&str; 8] =
    ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

pub(crate) fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

/// Text for HTML element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with two decimals (deterministic output).
pub(crate) fn f(x: f64) -> String {
    format!("{x:.2}")
}

/// At most three significant digits, trailing zeros dropped: `250`,
/// `1.5`, `2`, `0.12`.
pub(crate) fn short(x: f64) -> String {
    let a = x.abs();
    let digits = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    if s == "-0" {
        "0".to_owned()
    } else {
        s
    }
}

/// A duration in seconds in the unit a person would use: `80 µs`,
/// `1 ms`, `250 ms`, `2 s`, `1500 s`.
#[must_use]
pub fn human_time(seconds: f64) -> String {
    let a = seconds.abs();
    if a == 0.0 {
        "0 s".to_owned()
    } else if a < 0.000_999_5 {
        format!("{} µs", short(seconds * 1e6))
    } else if a < 0.999_5 {
        format!("{} ms", short(seconds * 1e3))
    } else {
        format!("{} s", short(seconds))
    }
}

/// A count with k, M or G: `950`, `10k`, `1.5M`, `2G`.
#[must_use]
pub fn human_count(n: f64) -> String {
    let a = n.abs();
    if a < 999.5 {
        short(n.round())
    } else if a < 999_500.0 {
        format!("{}k", short(n / 1e3))
    } else if a < 999_500_000.0 {
        format!("{}M", short(n / 1e6))
    } else {
        format!("{}G", short(n / 1e9))
    }
}

/// A centipawn value with a true minus sign.
fn cp(v: i64) -> String {
    if v < 0 {
        format!("−{}", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

/// The decades a log axis spans to hold `lo..=hi` (both positive): from
/// 10^a to 10^b, at least one decade.
fn decades(lo: f64, hi: f64) -> (i32, i32) {
    let a = lo.log10().floor() as i32;
    let b = (hi.log10().ceil() as i32).max(a + 1);
    (a, b)
}

/// Ticks of a log axis over the decades `a..=b`: 1, 2 and 5 of each
/// decade when it spans three decades or fewer, else the powers of ten.
fn log_ticks(a: i32, b: i32) -> Vec<f64> {
    let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut out = Vec::new();
    for e in a..=b {
        for &m in steps {
            if e == b && m > 1.0 {
                break;
            }
            out.push(m * 10f64.powi(e));
        }
    }
    out
}

/// Ticks of a linear count axis from 0: a step of 1, 2 or 5 times a
/// power of ten giving at most six intervals, and the axis's top (the
/// last tick, at or above `max`).
pub(crate) fn count_ticks(max: f64) -> (Vec<f64>, f64) {
    let max = max.max(1.0);
    let raw = max / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p).max(1.0);
    let n = (max / step).ceil() as usize;
    let ticks: Vec<f64> = (0..=n).map(|i| i as f64 * step).collect();
    let top = ticks.last().copied().unwrap_or(1.0);
    (ticks, top)
}

const STYLE: &str =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;max-width:1100px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3;cursor:pointer}\
td.l,th.l{text-align:left}figure{margin:1em 0}figcaption{font-size:.9em;color:#555;max-width:840px}\
caption{text-align:left;font-size:.9em;color:#555;padding:.3em 0}\
svg text{font-size:11px;fill:#333}svg text.count{font-size:9px;fill:#444}svg text.axis-label{font-size:12px;\
fill:#111}.legend span{display:inline-block;margin-right:1em;font-size:.9em}\
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}.ids{font-family:monospace;font-size:.85em}\
.note{background:#fff4d6;border:1px solid #e0b84c;padding:.6em 1em;margin:1em 0}";

const SCRIPT: &str = "(function(){\
function key(td){var v=td.getAttribute('data-v');if(v!==null)return parseFloat(v);return td.textContent;}\
document.querySelectorAll('table.sortable').forEach(function(t){\
t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){\
var body=t.tBodies[0];var rows=Array.prototype.slice.call(body.rows);\
var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir===1?'asc':'desc');\
rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);\
return (x<y?-1:x>y?1:0)*dir;});rows.forEach(function(r){body.appendChild(r);});});});});\
document.body.setAttribute('data-resources',String(performance.getEntriesByType('resource').length));\
document.body.setAttribute('data-ready','1');})();";

/// The legend of the runs' colours.
fn legend(out: &mut String, runs: &[RunStats]) {
    out.push_str("<div class=\"legend\">");
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(out, "<span><i class=\"swatch\" style=\"background:{}\"></i>{}</span>", color(i), esc(&r.label));
    }
    out.push_str("</div>");
}

/// An axis's ticks: (pixel, label).
pub(crate) type Ticks<'a> = &'a [(f64, String)];

/// A chart's plot area, in pixels.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

impl Frame {
    pub(crate) fn bottom(&self) -> f64 {
        self.top + self.height
    }

    pub(crate) fn right(&self) -> f64 {
        self.left + self.width
    }

    /// The axes: lines, grid, ticks (`(pixel, label)`) and the titles,
    /// the x title `x_title_dy` under the plot, the y title turned on its
    /// side at `y_title_x`.
    pub(crate) fn axes(
        &self,
        out: &mut String,
        (x_ticks, y_ticks): (Ticks<'_>, Ticks<'_>),
        (x_title, y_title): (&str, &str),
        (x_title_dy, y_title_x): (f64, f64),
    ) {
        for (x, label) in x_ticks {
            let _ = write!(
                out,
                "<line x1=\"{x}\" y1=\"{t}\" x2=\"{x}\" y2=\"{b}\" stroke=\"#e4e4e4\"/><line x1=\"{x}\" y1=\"{b}\" \
                 x2=\"{x}\" y2=\"{b5}\" stroke=\"#555\"/><text class=\"tick\" data-axis=\"x\" x=\"{x}\" y=\"{ty}\" \
                 text-anchor=\"middle\">{}</text>",
                esc(label),
                x = f(*x),
                t = f(self.top),
                b = f(self.bottom()),
                b5 = f(self.bottom() + 5.0),
                ty = f(self.bottom() + 17.0)
            );
        }
        for (y, label) in y_ticks {
            let _ = write!(
                out,
                "<line x1=\"{l}\" y1=\"{y}\" x2=\"{r}\" y2=\"{y}\" stroke=\"#e4e4e4\"/><line x1=\"{l5}\" y1=\"{y}\" \
                 x2=\"{l}\" y2=\"{y}\" stroke=\"#555\"/><text class=\"tick\" data-axis=\"y\" x=\"{tx}\" y=\"{ty}\" \
                 text-anchor=\"end\">{}</text>",
                esc(label),
                y = f(*y),
                l = f(self.left),
                r = f(self.right()),
                l5 = f(self.left - 5.0),
                tx = f(self.left - 8.0),
                ty = f(*y + 4.0)
            );
        }
        let _ = write!(
            out,
            "<line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#555\"/><line class=\"axis\" \
             x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\" stroke=\"#555\"/><text class=\"axis-label\" data-axis=\"x\" \
             x=\"{cx}\" y=\"{xy}\" text-anchor=\"middle\">{}</text><text class=\"axis-label\" data-axis=\"y\" \
             transform=\"translate({yx},{cy}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            esc(x_title),
            esc(y_title),
            l = f(self.left),
            r = f(self.right()),
            t = f(self.top),
            b = f(self.bottom()),
            cx = f(self.left + self.width / 2.0),
            xy = f(self.bottom() + x_title_dy),
            yx = f(y_title_x),
            cy = f(self.top + self.height / 2.0)
        );
    }
}

/// A bar per theme per run: the solved percent.
fn themes_chart(out: &mut String, runs: &[RunStats]) {
    let themes = theme_order(runs);
    let bar = 12.0;
    let group = bar * runs.len() as f64 + 8.0;
    let fr = Frame { left: 290.0, top: 10.0, width: 500.0, height: (group * themes.len() as f64).max(60.0) };
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"themes\"><svg width=\"{}\" height=\"{}\" role=\"img\" \
         aria-label=\"solved per theme\">",
        f(fr.right() + 50.0),
        f(fr.bottom() + 46.0)
    );
    let x = |p: f64| fr.left + fr.width * p;
    let ticks: Vec<(f64, String)> =
        [0, 25, 50, 75, 100].iter().map(|&p| (x(f64::from(p) / 100.0), format!("{p} %"))).collect();
    fr.axes(out, (&ticks, &[]), ("solved (% of the theme's scored records)", "theme"), (36.0, 12.0));
    for (ti, t) in themes.iter().enumerate() {
        let y0 = fr.top + group * ti as f64 + 4.0;
        let label: String =
            if t.chars().count() > 40 { t.chars().take(39).chain(['…']).collect() } else { (*t).to_owned() };
        let _ = write!(
            out,
            "<text class=\"tick\" data-axis=\"y\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            f(fr.left - 8.0),
            f(y0 + (group - 8.0) / 2.0 + 4.0),
            esc(&label)
        );
        for (ri, r) in runs.iter().enumerate() {
            let (solved, scored) = r.themes.get(t).map_or((0, 0), |x| (x.solved, x.scored));
            let p = if scored == 0 { 0.0 } else { solved as f64 / scored as f64 };
            let y = y0 + bar * ri as f64;
            let _ = write!(
                out,
                "<rect class=\"bar\" data-run=\"{}\" data-theme=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" \
                 width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} of {}</title></rect>",
                esc(&r.label),
                esc(t),
                f(100.0 * p),
                f(fr.left),
                f(y),
                f(fr.width * p),
                f(bar - 2.0),
                color(ri),
                esc(&r.label),
                solved,
                scored
            );
            if scored > 0 {
                let _ = write!(
                    out,
                    "<text class=\"count\" x=\"{}\" y=\"{}\">{:.0} %</text>",
                    f(x(p) + 3.0),
                    f(y + bar - 4.0),
                    100.0 * p
                );
            }
        }
    }
    out.push_str("</svg><figcaption>Solved per theme, in percent of the scored records (bm or am).</figcaption>");
    legend(out, runs);
    out.push_str("</figure>");
}

/// Cumulative solved against a quantity on a log axis: a point per
/// distinct value per run, joined by steps. `pick` gives a run's values
/// and the scale that turns them into the axis's unit.
fn curve_chart(
    out: &mut String,
    runs: &[RunStats],
    (kind, drawn, left_out): (&str, &[usize], &[String]),
    (x_title, caption, what): (&str, &str, &str),
    label: &dyn Fn(f64) -> String,
    pick: &dyn Fn(&RunStats) -> (&Distribution, f64),
) {
    // Only the runs that measure alike ([`crate::Curves`]); the others
    // are said in the caption.
    let series: Vec<Vec<(f64, u64)>> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if !drawn.contains(&i) {
                return Vec::new();
            }
            let (d, scale) = pick(r);
            cumulative(d).into_iter().map(|(v, c)| ((v as f64 * scale).max(scale.min(1.0)), c)).collect()
        })
        .collect();
    let caption = &left_out
        .iter()
        .filter(|n| {
            n.contains(match kind {
                "time-curve" => "against-time",
                _ => "against-nodes",
            })
        })
        .fold(caption.to_owned(), |c, n| format!("{c} {}.", upper_first(n)));
    let all: Vec<f64> = series.iter().flatten().map(|&(v, _)| v).collect();
    if all.is_empty() {
        let _ =
            write!(out, "<p class=\"empty\" data-kind=\"{kind}\">No solved record has {}: no chart.</p>", esc(what));
        return;
    }
    let (lo, hi) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (a, b) = decades(lo, hi);
    let (y_ticks, top) = count_ticks(runs.iter().map(|r| r.scored).max().unwrap_or(1) as f64);
    let fr = Frame { left: 70.0, top: 12.0, width: 740.0, height: 240.0 };
    let x = |v: f64| fr.left + fr.width * (v.log10() - f64::from(a)) / f64::from(b - a);
    let y = |c: f64| fr.bottom() - fr.height * c / top;
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"{kind}\"><svg width=\"{}\" height=\"{}\" role=\"img\" \
         aria-label=\"{}\">",
        f(fr.right() + 30.0),
        f(fr.bottom() + 46.0),
        esc(caption)
    );
    let xt: Vec<(f64, String)> = log_ticks(a, b).into_iter().map(|v| (x(v), label(v))).collect();
    let yt: Vec<(f64, String)> = y_ticks.iter().map(|&c| (y(c), human_count(c))).collect();
    fr.axes(out, (&xt, &yt), (x_title, "records solved (cumulative)"), (36.0, 16.0));
    for (ri, s) in series.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        let mut path = String::new();
        let mut prev = 0.0;
        for (i, &(v, c)) in s.iter().enumerate() {
            let _ = write!(path, "{}{} {} ", if i == 0 { "M" } else { "L" }, f(x(v)), f(y(prev)));
            let _ = write!(path, "L{} {} ", f(x(v)), f(y(c as f64)));
            prev = c as f64;
        }
        let _ = write!(out, "<path d=\"{}\" fill=\"none\" stroke=\"{}\"/>", path.trim_end(), color(ri));
        for &(v, c) in s {
            let _ = write!(
                out,
                "<circle class=\"point\" data-run=\"{}\" data-x=\"{}\" data-y=\"{}\" cx=\"{}\" cy=\"{}\" r=\"2.5\" \
                 fill=\"{}\"><title>{}: {} within {}</title></circle>",
                esc(&runs[ri].label),
                v,
                c,
                f(x(v)),
                f(y(c as f64)),
                color(ri),
                esc(&runs[ri].label),
                c,
                label(v)
            );
        }
    }
    let _ = write!(out, "</svg><figcaption>{}</figcaption>", esc(caption));
    legend(out, runs);
    out.push_str("</figure>");
}

/// Each run's ce counts in the bins of [`CE_EDGES`].
fn ce_counts(runs: &[RunStats]) -> Vec<Vec<u64>> {
    runs.iter()
        .map(|r| r.distribution("ce").map_or_else(|| vec![0; CE_EDGES.len()], |d| d.all.histogram(&CE_EDGES)))
        .collect()
}

/// A ce bin's range, as its bar's tooltip says it.
fn ce_bin(bi: usize) -> String {
    match bi {
        0 => format!("below {}", cp(CE_EDGES[1])),
        _ if bi + 1 == CE_EDGES.len() => format!("{} and up", cp(CE_EDGES[bi])),
        _ => format!("{} to {}", cp(CE_EDGES[bi]), cp(CE_EDGES[bi + 1] - 1)),
    }
}

/// The ce histogram: a bar per bin per run, its count above it.
fn ce_chart(out: &mut String, runs: &[RunStats]) {
    let counts = ce_counts(runs);
    if counts.iter().flatten().all(|&c| c == 0) {
        out.push_str("<p class=\"empty\" data-kind=\"ce-histogram\">No record has a ce that is not a mate score.</p>");
        return;
    }
    let (y_ticks, top) = count_ticks(counts.iter().flatten().copied().max().unwrap_or(0) as f64);
    let fr = Frame { left: 70.0, top: 30.0, width: 740.0, height: 220.0 };
    let slot = fr.width / CE_EDGES.len() as f64;
    let bar = (slot - 4.0) / runs.len().max(1) as f64;
    let y = |c: f64| fr.bottom() - fr.height * c / top;
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"ce-histogram\"><svg width=\"{}\" height=\"{}\" role=\"img\" \
         aria-label=\"ce histogram\">",
        f(fr.right() + 30.0),
        f(fr.bottom() + 60.0)
    );
    // Ticks at the edges every 100 centipawns; the two open bins are
    // labelled under their bars, on a row of their own.
    let xt: Vec<(f64, String)> = CE_EDGES
        .iter()
        .enumerate()
        .filter(|&(_, &e)| e != i64::MIN && e % 100 == 0)
        .map(|(bi, &e)| (fr.left + slot * bi as f64, cp(e)))
        .collect();
    let yt: Vec<(f64, String)> = y_ticks.iter().map(|&c| (y(c), human_count(c))).collect();
    // The x title goes under the row of open-bin labels.
    fr.axes(
        out,
        (&xt, &yt),
        ("evaluation, ce (centipawns, for the side to move; mate scores left out)", "records"),
        (50.0, 16.0),
    );
    let last = CE_EDGES.len() - 1;
    for (bi, text) in [(0, format!("&lt; {}", cp(CE_EDGES[1]))), (last, format!("≥ {}", cp(CE_EDGES[last])))] {
        let _ = write!(
            out,
            "<text class=\"tick overflow\" data-axis=\"x\" data-bin=\"{bi}\" x=\"{}\" y=\"{}\" \
             text-anchor=\"middle\">{text}</text><line x1=\"{e}\" y1=\"{t}\" x2=\"{e}\" y2=\"{b}\" stroke=\"#999\" \
             stroke-dasharray=\"3 3\"/>",
            f(fr.left + slot * (bi as f64 + 0.5)),
            f(fr.bottom() + 31.0),
            e = f(fr.left + slot * if bi == 0 { 1.0 } else { last as f64 }),
            t = f(fr.top),
            b = f(fr.bottom())
        );
    }
    for bi in 0..CE_EDGES.len() {
        for (ri, c) in counts.iter().enumerate() {
            let h = fr.height * c[bi] as f64 / top;
            let x0 = fr.left + slot * bi as f64 + 2.0 + bar * ri as f64;
            let _ = write!(
                out,
                "<rect class=\"bar\" data-run=\"{}\" data-bin=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" \
                 height=\"{}\" fill=\"{}\"><title>{}: {} records, ce {}</title></rect>",
                esc(&runs[ri].label),
                bi,
                c[bi],
                f(x0),
                f(y(c[bi] as f64)),
                f(bar),
                f(h),
                color(ri),
                esc(&runs[ri].label),
                c[bi],
                ce_bin(bi)
            );
            if c[bi] > 0 {
                // Upright above the bar when it fits the bar's width,
                // else turned on its side (9 px digits are about 5.5 px
                // wide), so neighbours never run together.
                let text = c[bi].to_string();
                let (cx, cy) = (x0 + bar / 2.0, y(c[bi] as f64) - 3.0);
                let turn = if 5.5 * text.len() as f64 > bar {
                    format!(" transform=\"rotate(-90 {} {})\" dy=\"3\"", f(cx), f(cy))
                } else {
                    String::new()
                };
                let _ = write!(
                    out,
                    "<text class=\"count\" data-run=\"{}\" data-bin=\"{bi}\" x=\"{}\" y=\"{}\" \
                     text-anchor=\"{}\"{turn}>{text}</text>",
                    esc(&runs[ri].label),
                    f(cx),
                    f(cy),
                    if turn.is_empty() { "middle" } else { "start" }
                );
            }
        }
    }
    out.push_str(
        "</svg><figcaption>ce of every record, in bins of 50 centipawns from −500 to 500, with one open bin below \
         −500 and one from 500 up; each bar's count is written above it. Mate scores are not evaluations and are \
         left out.</figcaption>",
    );
    legend(out, runs);
    out.push_str("</figure>");
}

/// The pairs of times with their counts, in order (seconds, rounded to
/// the microsecond).
fn scatter_points(pairs: &[(f64, f64)]) -> Vec<(f64, f64, u64)> {
    let mut counts: BTreeMap<(i64, i64), u64> = BTreeMap::new();
    for &(a, b) in pairs {
        *counts.entry(((a * 1e6).round() as i64, (b * 1e6).round() as i64)).or_insert(0) += 1;
    }
    counts.into_iter().map(|((a, b), c)| (a as f64 / 1e6, b as f64 / 1e6, c)).collect()
}

/// A scatter circle's radius: its area grows with its records.
fn radius(count: u64) -> f64 {
    (2.5 * (count as f64).sqrt()).min(22.0)
}

/// The first two runs' solve times on the records both solved: a circle
/// per distinct pair, sized by its records.
fn scatter_chart(out: &mut String, report: &Report) {
    let pairs: &[(f64, f64)] = report.comparisons.first().map_or(&[], |c| &c.time_pairs);
    let (a, b) = match report.comparisons.first() {
        Some(c) => (c.a.as_str(), c.b.as_str()),
        None => ("", ""),
    };
    let points = scatter_points(pairs);
    let (lo, hi) = pairs
        .iter()
        .flat_map(|&(x, y)| [x, y])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let (da, db) = if pairs.is_empty() { (0, 1) } else { decades(lo, hi) };
    let fr = Frame { left: 70.0, top: 24.0, width: 320.0, height: 320.0 };
    let pos = |v: f64| (v.log10() - f64::from(da)) / f64::from(db - da);
    let px = |v: f64| fr.left + fr.width * pos(v);
    let py = |v: f64| fr.bottom() - fr.height * pos(v);
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"time-scatter\"><svg width=\"{}\" height=\"{}\" role=\"img\" \
         aria-label=\"solve times of two runs\">",
        f(fr.right() + 30.0),
        f(fr.bottom() + 46.0)
    );
    let ticks = log_ticks(da, db);
    let xt: Vec<(f64, String)> = ticks.iter().map(|&v| (px(v), human_time(v))).collect();
    let yt: Vec<(f64, String)> = ticks.iter().map(|&v| (py(v), human_time(v))).collect();
    let name = |s: &str| if s.is_empty() { "run".to_owned() } else { s.to_owned() };
    fr.axes(
        out,
        (&xt, &yt),
        (&format!("{}: solve time (log scale)", name(a)), &format!("{}: solve time (log scale)", name(b))),
        (36.0, 16.0),
    );
    let _ = write!(
        out,
        "<line class=\"diagonal\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>",
        f(fr.left),
        f(fr.bottom()),
        f(fr.right()),
        f(fr.top)
    );
    // The biggest circles first, so the small ones stay on top, visible.
    let mut order: Vec<&(f64, f64, u64)> = points.iter().collect();
    order.sort_by_key(|p| std::cmp::Reverse(p.2));
    for &&(x, y, c) in &order {
        let _ = write!(
            out,
            "<circle class=\"point\" data-count=\"{c}\" data-a=\"{x}\" data-b=\"{y}\" cx=\"{}\" cy=\"{}\" r=\"{}\" \
             fill=\"#1f77b4\" fill-opacity=\"0.45\" stroke=\"#1f77b4\"><title>{c} record{}: {} in {}, {} in {}</title></circle>",
            f(px(x)),
            f(py(y)),
            f(radius(c)),
            if c == 1 { "" } else { "s" },
            human_time(x),
            esc(a),
            human_time(y),
            esc(b)
        );
        if c > 1 {
            let _ = write!(
                out,
                "<text class=\"count\" x=\"{}\" y=\"{}\">{c}</text>",
                f(px(x) + radius(c) + 2.0),
                f(py(y) - radius(c).min(8.0))
            );
        }
    }
    let caption = if pairs.is_empty() {
        "Solve times of two runs: no record both of the first two runs solved with a time.".to_owned()
    } else {
        format!(
            "Solve times on the {} records both solved ({} distinct pairs): {} across, {} up; below the diagonal {} \
             was faster. Times are compared at the coarser resolution of the two (acs: whole seconds), a time under \
             one unit counted as one.",
            pairs.len(),
            points.len(),
            esc(a),
            esc(b),
            esc(b)
        )
    };
    let _ = write!(out, "</svg><figcaption>{caption}</figcaption>");
    out.push_str(
        "<div class=\"legend\"><span><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" r=\"2.5\" \
         fill=\"#1f77b4\" fill-opacity=\"0.45\" stroke=\"#1f77b4\"/></svg> one record</span><span><svg width=\"24\" \
         height=\"24\"><circle cx=\"12\" cy=\"12\" r=\"7.9\" fill=\"#1f77b4\" fill-opacity=\"0.45\" \
         stroke=\"#1f77b4\"/></svg> 10 records at the same times (area grows with the records, their number beside \
         it)</span><span><svg width=\"24\" height=\"12\"><line x1=\"0\" y1=\"6\" x2=\"24\" y2=\"6\" stroke=\"#999\" \
         stroke-dasharray=\"4 3\"/></svg> equal times</span></div></figure>",
    );
}

/// A table cell: its text, and the number it sorts by.
pub(crate) struct Cell {
    text: String,
    v: Option<f64>,
}

pub(crate) fn cell(text: impl Into<String>) -> Cell {
    Cell { text: text.into(), v: None }
}

pub(crate) fn number(text: impl Into<String>, v: f64) -> Cell {
    Cell { text: text.into(), v: Some(v) }
}

pub(crate) fn count(n: u64) -> Cell {
    number(n.to_string(), n as f64)
}

pub(crate) fn empty() -> Cell {
    Cell { text: String::new(), v: Some(-1.0) }
}

/// A sortable table; the columns (`(header, left-aligned)`) that no row
/// fills are left out.
pub(crate) fn table(out: &mut String, id: &str, caption: &str, cols: &[(&str, bool)], rows: &[Vec<Cell>]) {
    if rows.is_empty() {
        return;
    }
    let keep: Vec<bool> =
        (0..cols.len()).map(|c| rows.iter().any(|r| r.get(c).is_some_and(|x| !x.text.is_empty()))).collect();
    let _ = write!(out, "<table class=\"sortable\" id=\"{id}\">");
    if !caption.is_empty() {
        let _ = write!(out, "<caption>{}</caption>", esc(caption));
    }
    out.push_str("<thead><tr>");
    for ((h, left), _) in cols.iter().zip(&keep).filter(|(_, &k)| k) {
        let _ = write!(out, "<th{}>{}</th>", if *left { " class=\"l\"" } else { "" }, esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    for r in rows {
        out.push_str("<tr>");
        for ((c, (_, left)), _) in r.iter().zip(cols).zip(&keep).filter(|(_, &k)| k) {
            out.push_str("<td");
            if *left {
                out.push_str(" class=\"l\"");
            }
            if let Some(v) = c.v {
                let _ = write!(out, " data-v=\"{v}\"");
            }
            let _ = write!(out, ">{}</td>", esc(&c.text));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

fn notes(out: &mut String, runs: &[RunStats]) {
    for r in runs {
        for n in &r.notes {
            let _ = write!(
                out,
                "<p class=\"note\" data-kind=\"{}\"><strong>{}</strong>: {}</p>",
                n.kind,
                esc(&r.label),
                esc(&n.message)
            );
        }
    }
}

fn summary_table(out: &mut String, runs: &[RunStats]) {
    let rows: Vec<Vec<Cell>> = runs
        .iter()
        .map(|r| {
            let rate = r.solved_rate.map(|x| x * 100.0);
            let mut row = vec![
                cell(r.label.clone()),
                count(r.records),
                count(r.invalid),
                count(r.played),
                count(r.scored),
                count(r.unscored),
                count(r.solved),
                count(r.missed),
                match rate {
                    Some(p) => number(format!("{p:.1}"), p),
                    None => empty(),
                },
                match rate {
                    Some(_) => cell(format!("{:.1} – {:.1}", 100.0 * r.solved_ci.0, 100.0 * r.solved_ci.1)),
                    None => empty(),
                },
            ];
            match &r.points {
                Some(p) => row.extend([
                    number(format!("{:.2}", p.percent), p.percent),
                    cell(format!("{:.2} – {:.2}", p.percent_ci.0, p.percent_ci.1)),
                    number(format!("{:.0}", p.sts_rating), p.sts_rating),
                    cell(format!("{:.0} – {:.0}", p.sts_rating_ci.0, p.sts_rating_ci.1)),
                ]),
                None => row.extend([empty(), empty(), empty(), empty()]),
            }
            row
        })
        .collect();
    let caption = if runs.iter().any(|r| r.points.is_some()) {
        "Solved of the scored records (bm or am, §7.5) with the Wilson score interval (95 %); STS points with a \
         normal 95 % interval and the STS-Rating estimate, 44.523 × percent − 242.85."
    } else {
        "Solved of the scored records (bm or am, §7.5) with the Wilson score interval (95 %)."
    };
    table(
        out,
        "runs",
        caption,
        &[
            ("run", true),
            ("records", false),
            ("invalid", false),
            ("played (pm or pv)", false),
            ("scored", false),
            ("unscored", false),
            ("solved", false),
            ("missed", false),
            ("solved %", false),
            ("95 % (Wilson)", false),
            ("points %", false),
            ("points 95 % (normal)", false),
            ("STS rating", false),
            ("STS rating 95 %", false),
        ],
        &rows,
    );
}

fn themes_table(out: &mut String, runs: &[RunStats]) {
    let themes = theme_order(runs);
    let heads: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            let l = &r.label;
            [format!("{l} records"), format!("{l} solved"), format!("{l} %"), format!("{l} points")]
        })
        .collect();
    let mut cols: Vec<(&str, bool)> = vec![("theme", true)];
    cols.extend(heads.iter().map(|h| (h.as_str(), false)));
    let rows: Vec<Vec<Cell>> = themes
        .iter()
        .map(|t| {
            let mut row = vec![cell(*t)];
            for r in runs {
                match r.themes.get(t) {
                    Some(x) => {
                        row.push(count(x.records));
                        row.push(number(format!("{}/{}", x.solved, x.scored), x.solved as f64));
                        row.push(if x.scored > 0 {
                            let p = 100.0 * x.solved as f64 / x.scored as f64;
                            number(format!("{p:.1}"), p)
                        } else {
                            empty()
                        });
                        row.push(if x.max_points > 0 {
                            number(format!("{}/{}", x.points, x.max_points), x.points as f64 / x.max_points as f64)
                        } else {
                            empty()
                        });
                    }
                    None => row.extend([empty(), empty(), empty(), empty()]),
                }
            }
            row
        })
        .collect();
    table(out, "themes", "", &cols, &rows);
}

fn mates_tables(out: &mut String, runs: &[RunStats]) {
    if runs.iter().all(|r| r.mates.keyed == 0) {
        return;
    }
    out.push_str("<h2>Mates</h2>");
    let rows: Vec<Vec<Cell>> = runs
        .iter()
        .map(|r| {
            let m = &r.mates;
            vec![
                cell(r.label.clone()),
                count(m.keyed),
                count(m.best),
                count(m.longer),
                count(m.shorter),
                count(m.wrong_sign),
                count(m.missed),
            ]
        })
        .collect();
    table(
        out,
        "mates",
        "Records whose key has dm, in matetrack's classes.",
        &[
            ("run", true),
            ("dm records", false),
            ("best", false),
            ("longer", false),
            ("shorter than the key", false),
            ("wrong sign", false),
            ("missed", false),
        ],
        &rows,
    );
    let mut lengths: Vec<u32> = runs.iter().flat_map(|r| r.mates.by_length.keys().copied()).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let heads: Vec<String> = runs.iter().map(|r| format!("{} mates found", r.label)).collect();
    let mut cols: Vec<(&str, bool)> = vec![("key", true)];
    cols.extend(heads.iter().map(|h| (h.as_str(), false)));
    let rows: Vec<Vec<Cell>> = lengths
        .iter()
        .map(|n| {
            let mut row = vec![number(format!("mate in {n}"), f64::from(*n))];
            for r in runs {
                row.push(match r.mates.by_length.get(n) {
                    Some(&(k, found)) => number(
                        format!("{found}/{k} {:.1}%", 100.0 * found as f64 / k.max(1) as f64),
                        found as f64 / k.max(1) as f64,
                    ),
                    None => empty(),
                });
            }
            row
        })
        .collect();
    table(out, "mate-lengths", "Mates of any length found, by the key's length.", &cols, &rows);
}

fn time_scores_table(out: &mut String, runs: &[RunStats]) {
    let rows: Vec<Vec<Cell>> = runs
        .iter()
        .flat_map(|r| {
            r.time_scores.iter().map(|t| {
                vec![cell(r.label.clone()), cell(t.name), number(format!("{:.1}", t.value), t.value), cell(t.formula)]
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<h2>Time-based scores</h2>");
    table(
        out,
        "time-scores",
        "BT-2630 and BT-2450 were made for 30 positions, LCT II for 35: on other suites these are not ratings.",
        &[("run", true), ("score", true), ("value", false), ("formula", true)],
        &rows,
    );
}

fn distributions_table(out: &mut String, runs: &[RunStats]) {
    let names = [
        ("acd", "depth, acd (plies)"),
        ("acn", "nodes, acn"),
        ("acs", "time, acs (seconds)"),
        ("ce", "evaluation, ce (centipawns)"),
    ];
    let mut rows = Vec::new();
    for r in runs {
        for (key, name) in names {
            let Some(s) = r.distributions.get(key) else { continue };
            for (part, sum) in [("all", &s.all), ("solved", &s.solved), ("missed", &s.missed)] {
                let Some(x) = sum else { continue };
                let mut row = vec![cell(r.label.clone()), cell(name), cell(part), count(x.n)];
                row.extend([x.min, x.q1, x.median, x.q3, x.p90, x.max, x.mean].map(|v| number(num(v), v)));
                rows.push(row);
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    out.push_str("<h2>Depth, nodes, time and evaluation</h2>");
    table(
        out,
        "distributions",
        "Quartiles and the 90th percentile by linear interpolation between closest ranks (R's type 7); ce \
         without mate scores.",
        &[
            ("run", true),
            ("counter", true),
            ("records", true),
            ("n", false),
            ("min", false),
            ("q1", false),
            ("median", false),
            ("q3", false),
            ("p90", false),
            ("max", false),
            ("mean", false),
        ],
        &rows,
    );
}

fn comparisons(out: &mut String, report: &Report) {
    if report.comparisons.is_empty() {
        return;
    }
    out.push_str("<h2>Comparisons</h2>");
    let rows: Vec<Vec<Cell>> = report
        .comparisons
        .iter()
        .map(|c| {
            let unmatched = |n: u64| if c.unmatched == (0, 0) { empty() } else { count(n) };
            vec![
                cell(c.a.clone()),
                cell(c.b.clone()),
                count(c.paired),
                count(c.both),
                count(c.a_only),
                count(c.b_only),
                count(c.neither),
                number(p_value(c.mcnemar_p), c.mcnemar_p),
                unmatched(c.unmatched.0),
                unmatched(c.unmatched.1),
            ]
        })
        .collect();
    table(
        out,
        "comparisons",
        "Records scored in both runs, matched by id, else by position; McNemar's exact test (two-sided binomial on \
         the records solved by one run only).",
        &[
            ("a", true),
            ("b", true),
            ("paired", false),
            ("both", false),
            ("a only", false),
            ("b only", false),
            ("neither", false),
            ("McNemar exact p", false),
            ("a not in b", false),
            ("b not in a", false),
        ],
        &rows,
    );
    let rows: Vec<Vec<Cell>> = report
        .comparisons
        .iter()
        .filter_map(|c| {
            let t = c.times.as_ref()?;
            Some(vec![
                cell(c.a.clone()),
                cell(c.b.clone()),
                count(t.n),
                count(t.b_faster),
                count(t.a_faster),
                count(t.n - t.b_faster - t.a_faster),
                number(format!("{:.3}", t.median_ratio), t.median_ratio),
                number(format!("{:.3}", t.geometric_mean_ratio), t.geometric_mean_ratio),
                number(p_value(t.sign_test_p), t.sign_test_p),
            ])
        })
        .collect();
    table(
        out,
        "sign-test",
        "Solve times on the records both runs solved: the sign test (exact binomial, two-sided) of faster against \
         slower, ties left out; ratios are b's time over a's, at the coarser resolution of the two.",
        &[
            ("a", true),
            ("b", true),
            ("both solved, timed", false),
            ("faster in b", false),
            ("faster in a", false),
            ("ties", false),
            ("median b/a", false),
            ("geometric mean b/a", false),
            ("sign test p", false),
        ],
        &rows,
    );
    let notes: Vec<String> = report
        .comparisons
        .iter()
        .flat_map(|c| c.left_out.iter().map(move |n| format!("{} against {}: {n}.", c.a, c.b)))
        .collect();
    if !notes.is_empty() {
        out.push_str("<ul class=\"left-out\">");
        for n in notes {
            let _ = write!(out, "<li>{}</li>", esc(&n));
        }
        out.push_str("</ul>");
    }
}

/// A list of ids, read from its spool as it is written.
fn id_list(out: &mut dyn io::Write, title: &str, ids: &IdList) -> io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    write!(out, "<h3>{} ({})</h3><p class=\"ids\">", esc(title), ids.len())?;
    for id in ids.iter() {
        write!(out, "{} ", esc(&id?))?;
    }
    out.write_all(b"</p>")
}

/// A run's issues, the first [`HTML_ISSUES`] of them, read from their
/// spool as they are written.
fn issues(out: &mut dyn io::Write, r: &RunStats) -> io::Result<()> {
    if r.issues.is_empty() {
        return Ok(());
    }
    write!(
        out,
        "<h3>Issues of {} ({})</h3><table class=\"sortable issues\" data-run=\"{}\"><thead><tr><th>line</th>\
         <th class=\"l\">kind</th><th class=\"l\">what</th></tr></thead><tbody>",
        esc(&r.label),
        r.issues.len(),
        esc(&r.label)
    )?;
    for is in r.issues.iter().take(HTML_ISSUES as usize) {
        let is = is?;
        write!(
            out,
            "<tr><td data-v=\"{l}\">{l}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            is.kind,
            esc(&is.message),
            l = is.line
        )?;
    }
    out.write_all(b"</tbody></table>")?;
    if r.issues.len() > HTML_ISSUES {
        write!(out, "<p>… and {} more (--format json lists all).</p>", r.issues.len() - HTML_ISSUES)?;
    }
    Ok(())
}

/// The report as one self-contained HTML page.
///
/// # Errors
/// Reading a spooled list of ids failed.
pub fn html(report: &Report) -> io::Result<String> {
    let mut out = Vec::new();
    write_html(report, &mut out)?;
    String::from_utf8(out).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))
}

/// Writes the report as one self-contained HTML page to `w`, its lists of
/// ids and issues read from their spools as they are written.
///
/// # Errors
/// Writing, or reading a spooled list of ids, failed.
pub fn write_html(report: &Report, w: &mut dyn io::Write) -> io::Result<()> {
    let runs = &report.runs;
    let mut out = String::new();
    let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
    page_start(&mut out, "EPD report", &format!("EPD report: {}", labels.join(", ")));
    notes(&mut out, runs);
    summary_table(&mut out, runs);
    out.push_str("<h2>Solved per theme</h2>");
    themes_chart(&mut out, runs);
    themes_table(&mut out, runs);
    mates_tables(&mut out, runs);
    time_scores_table(&mut out, runs);
    out.push_str("<h2>Solved against effort</h2>");
    let left_out = &report.curves.left_out;
    curve_chart(
        &mut out,
        runs,
        ("time-curve", &report.curves.time, left_out),
        (
            "solved within (time, log scale)",
            "Cumulative solved against the time within which each record was certainly solved: its solution time \
             (the Solve_ms extension, else acs) plus the resolution it is written with (acs 0 is under a second: \
             within 1 s).",
            "a solution time",
        ),
        &human_time,
        &|r| (&r.solve_times, SOLVE_TIME_UNIT),
    );
    curve_chart(
        &mut out,
        runs,
        ("nodes-curve", &report.curves.nodes, left_out),
        (
            "nodes when solved (log scale)",
            "Cumulative solved against nodes (the Solve_acn extension, else acn of a solved record).",
            "a node count",
        ),
        &human_count,
        &|r| (&r.solve_nodes, 1.0),
    );
    distributions_table(&mut out, runs);
    out.push_str("<h2>Evaluations</h2>");
    ce_chart(&mut out, runs);
    if report.runs.len() > 1 {
        out.push_str("<h2>Solve times of two runs</h2>");
        scatter_chart(&mut out, report);
    }
    comparisons(&mut out, report);
    w.write_all(out.as_bytes())?;
    for c in &report.comparisons {
        id_list(w, &format!("Solved by {} only", c.b), &c.newly_solved)?;
        id_list(w, &format!("Solved by {} only", c.a), &c.newly_failed)?;
    }
    for r in runs {
        id_list(w, &format!("Missed by {}", r.label), &r.missed_ids)?;
    }
    if runs.iter().any(|r| !r.issues.is_empty()) {
        w.write_all(b"<h2>Issues</h2>")?;
        for r in runs {
            issues(w, r)?;
        }
    }
    page_end(w)
}

/// The start of a page, to its `<h1>` (`heading`, escaped here): the
/// Content-Security-Policy that forbids every load, the style.
pub(crate) fn page_start(out: &mut String, title: &str, heading: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         script-src 'unsafe-inline'\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        esc(title),
        esc(heading)
    );
}

/// The end of a page: the script (sortable tables; `data-ready` and
/// `data-resources` on the body, for the browser tests).
pub(crate) fn page_end(w: &mut dyn io::Write) -> io::Result<()> {
    w.write_all(b"<script>")?;
    w.write_all(SCRIPT.as_bytes())?;
    w.write_all(b"</script></body></html>\n")
}

/// `text` with its first letter a capital.
fn upper_first(text: &str) -> String {
    let mut c = text.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_in_human_units() {
        for (s, want) in [
            (0.001, "1 ms"),
            (0.25, "250 ms"),
            (2.0, "2 s"),
            (0.000_08, "80 µs"),
            (0.0001, "100 µs"),
            (0.0015, "1.5 ms"),
            (1500.0, "1500 s"),
            (0.9999, "1 s"),
            (0.0, "0 s"),
        ] {
            assert_eq!(human_time(s), want, "{s}");
        }
        for (n, want) in [
            (1.0, "1"),
            (950.0, "950"),
            (1000.0, "1k"),
            (10_000.0, "10k"),
            (1_500.0, "1.5k"),
            (1_500_000.0, "1.5M"),
            (250_000.0, "250k"),
            (2e9, "2G"),
        ] {
            assert_eq!(human_count(n), want, "{n}");
        }
    }

    #[test]
    fn log_axes_span_whole_decades_with_1_2_5_ticks() {
        assert_eq!(decades(0.001, 0.003), (-3, -2));
        assert_eq!(decades(0.001, 0.001), (-3, -2));
        assert_eq!(decades(2.0, 150.0), (0, 3));
        let t = log_ticks(-3, -2);
        assert_eq!(t.iter().map(|&v| human_time(v)).collect::<Vec<_>>(), ["1 ms", "2 ms", "5 ms", "10 ms"]);
        let t = log_ticks(2, 7);
        assert_eq!(t.iter().map(|&v| human_count(v)).collect::<Vec<_>>(), ["100", "1k", "10k", "100k", "1M", "10M"]);
    }

    #[test]
    fn count_axes_end_on_a_round_tick_at_or_above_the_largest_count() {
        for (max, top, n) in [(0.0, 1.0, 2), (1.0, 1.0, 2), (7.0, 8.0, 5), (79.0, 80.0, 5), (1500.0, 1500.0, 4)] {
            let (ticks, t) = count_ticks(max);
            assert_eq!((t, ticks.len()), (top, n), "{max}: {ticks:?}");
            assert!(t >= max);
        }
    }

    #[test]
    fn ce_bins_say_their_ranges() {
        assert_eq!(ce_bin(0), "below −500");
        assert_eq!(ce_bin(1), "−500 to −451");
        assert_eq!(ce_bin(11), "0 to 49");
        assert_eq!(ce_bin(21), "500 and up");
    }

    #[test]
    fn overlapping_pairs_are_one_circle_with_their_count() {
        // 78 records at one pair, two at another, one alone.
        let mut pairs = vec![(1.0, 1.0); 78];
        pairs.extend([(0.002, 0.004), (0.002, 0.004), (3.0, 1.0)]);
        let p = scatter_points(&pairs);
        assert_eq!(p, [(0.002, 0.004, 2), (1.0, 1.0, 78), (3.0, 1.0, 1)]);
        assert!(radius(78) > radius(2) && radius(2) > radius(1));
    }

    #[test]
    fn columns_no_row_fills_are_left_out() {
        let mut out = String::new();
        let rows = vec![vec![cell("a"), empty(), count(3)], vec![cell("b"), empty(), count(0)]];
        table(&mut out, "t", "", &[("x", true), ("points %", false), ("n", false)], &rows);
        assert!(!out.contains("points %"), "{out}");
        assert_eq!(out.matches("</th>").count(), 2);
        assert_eq!(out.matches("<td").count(), 4);
        // A column one row fills stays.
        let rows = vec![vec![cell("a"), cell("1"), count(3)], vec![cell("b"), empty(), count(0)]];
        let mut out = String::new();
        table(&mut out, "t", "", &[("x", true), ("points %", false), ("n", false)], &rows);
        assert!(out.contains("points %"), "{out}");
    }
}
