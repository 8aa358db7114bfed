//! The report as one self-contained HTML page: inline SVG charts written
//! from the report's data (deterministic, so golden files can hold them),
//! tables that sort when a header is clicked, no network, no external
//! script, style or font. A Content-Security-Policy in the page forbids
//! every load, so a stray reference would show as an error, not as a
//! request.
//!
//! Each chart is a `<figure class="chart" data-kind="…">`: `themes` (a bar
//! per theme per run: solved percent), `time-curve` and `nodes-curve`
//! (cumulative solved against solution time and nodes on log axes, a
//! point per distinct value per run), `ce-histogram` (a bar per bin per
//! run) and `time-scatter` (a point per record both of the first two runs
//! solved, up to [`MAX_TIME_PAIRS`](crate::MAX_TIME_PAIRS)).

use std::fmt::Write as _;
use std::io;

use crate::render::theme_order;
use crate::report::Report;
use crate::run::{cumulative, IdList, RunStats};
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

const COLORS: [&str; 8] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

/// Text for HTML element content and attribute values.
fn esc(s: &str) -> String {
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
fn f(x: f64) -> String {
    format!("{x:.2}")
}

const STYLE: &str =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;max-width:1100px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3;cursor:pointer}\
td.l,th.l{text-align:left}figure{margin:1em 0}figcaption{font-size:.9em;color:#555}\
svg text{font-size:11px;fill:#333}.legend span{display:inline-block;margin-right:1em}\
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}.ids{font-family:monospace;font-size:.85em}";

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

fn legend(out: &mut String, runs: &[RunStats]) {
    out.push_str("<div class=\"legend\">");
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(out, "<span><i class=\"swatch\" style=\"background:{}\"></i>{}</span>", color(i), esc(&r.label));
    }
    out.push_str("</div>");
}

/// A bar per theme per run: the solved percent.
fn themes_chart(out: &mut String, runs: &[RunStats]) {
    let themes = theme_order(runs);
    let bar = 12.0;
    let group = bar * runs.len() as f64 + 8.0;
    let (left, width) = (260.0, 560.0);
    let height = 30.0 + group * themes.len() as f64;
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"themes\"><svg width=\"{}\" \
         height=\"{}\" role=\"img\" aria-label=\"solved per theme\">",
        f(left + width + 60.0),
        f(height)
    );
    for pct in [0, 25, 50, 75, 100] {
        let x = left + width * f64::from(pct) / 100.0;
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"10\" x2=\"{x}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{ty}\" \
             text-anchor=\"middle\">{pct}%</text>",
            x = f(x),
            y = f(height - 18.0),
            ty = f(height - 4.0)
        );
    }
    for (ti, t) in themes.iter().enumerate() {
        let y0 = 10.0 + group * ti as f64;
        let label: String = t.chars().take(40).collect();
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            f(left - 6.0),
            f(y0 + group / 2.0),
            esc(&label)
        );
        for (ri, r) in runs.iter().enumerate() {
            let (solved, scored) = r.themes.get(t).map_or((0, 0), |x| (x.solved, x.scored));
            let p = if scored == 0 { 0.0 } else { solved as f64 / scored as f64 };
            let _ = write!(
                out,
                "<rect class=\"bar\" data-run=\"{}\" data-theme=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" \
                 width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} of {}</title></rect>",
                esc(&r.label),
                esc(t),
                f(100.0 * p),
                f(left),
                f(y0 + bar * ri as f64),
                f(width * p),
                f(bar - 2.0),
                color(ri),
                esc(&r.label),
                solved,
                scored
            );
        }
    }
    out.push_str("</svg><figcaption>Solved per theme (percent of the scored records).</figcaption>");
    legend(out, runs);
    out.push_str("</figure>");
}

/// Cumulative solved against a quantity on a log axis: a point per
/// distinct value per run, joined by steps.
fn curve_chart(
    out: &mut String,
    runs: &[RunStats],
    kind: &str,
    caption: &str,
    pick: &dyn Fn(&RunStats) -> (&Distribution, f64),
) {
    let series: Vec<Vec<(f64, u64)>> = runs
        .iter()
        .map(|r| {
            let (d, scale) = pick(r);
            cumulative(d).into_iter().map(|(v, c)| ((v as f64 * scale).max(scale.min(1.0)), c)).collect()
        })
        .collect();
    let all: Vec<f64> = series.iter().flatten().map(|&(v, _)| v).collect();
    let (lo, hi) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (lo, hi) = if all.is_empty() {
        (1.0, 10.0)
    } else {
        (lo.log10().floor(), hi.log10().ceil().max(lo.log10().floor() + 1.0))
    };
    let top = runs.iter().map(|r| r.scored).max().unwrap_or(1).max(1) as f64;
    let (left, width, height) = (50.0, 760.0, 300.0);
    let x = |v: f64| left + width * (v.log10() - lo) / (hi - lo);
    let y = |c: f64| 10.0 + (height - 40.0) * (1.0 - c / top);
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"{kind}\"><svg width=\"{}\" \
         height=\"{}\" role=\"img\" aria-label=\"{}\">",
        f(left + width + 20.0),
        f(height),
        esc(caption)
    );
    let mut e = lo;
    while e <= hi {
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"10\" x2=\"{x}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{ty}\" \
             text-anchor=\"middle\">1e{e}</text>",
            x = f(x(10f64.powf(e))),
            y = f(height - 30.0),
            ty = f(height - 14.0),
            e = e as i64
        );
        e += 1.0;
    }
    for frac in [0.0, 0.5, 1.0] {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0}</text>",
            f(left - 6.0),
            f(y(top * frac) + 4.0),
            top * frac
        );
    }
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
                "<circle class=\"point\" data-run=\"{}\" cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"><title>{}: {} at {}</title></circle>",
                esc(&runs[ri].label),
                f(x(v)),
                f(y(c as f64)),
                color(ri),
                esc(&runs[ri].label),
                c,
                v
            );
        }
    }
    let _ = write!(out, "</svg><figcaption>{}</figcaption>", esc(caption));
    legend(out, runs);
    out.push_str("</figure>");
}

/// The ce histogram: a bar per bin per run.
fn ce_chart(out: &mut String, runs: &[RunStats]) {
    let counts: Vec<Vec<u64>> = runs
        .iter()
        .map(|r| r.distribution("ce").map_or_else(|| vec![0; CE_EDGES.len()], |d| d.all.histogram(&CE_EDGES)))
        .collect();
    let top = counts.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let (left, width, height) = (50.0, 760.0, 260.0);
    let slot = width / CE_EDGES.len() as f64;
    let bar = (slot - 2.0) / runs.len().max(1) as f64;
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"ce-histogram\"><svg width=\"{}\" \
         height=\"{}\" role=\"img\" aria-label=\"ce histogram\">",
        f(left + width + 20.0),
        f(height)
    );
    for (bi, &edge) in CE_EDGES.iter().enumerate() {
        if bi % 2 == 1 {
            let label = if edge == i64::MIN { "".to_owned() } else { edge.to_string() };
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                f(left + slot * bi as f64),
                f(height - 6.0),
                label
            );
        }
        for (ri, c) in counts.iter().enumerate() {
            let h = (height - 40.0) * c[bi] as f64 / top;
            let lo = if edge == i64::MIN { "below -500".to_owned() } else { edge.to_string() };
            let _ = write!(
                out,
                "<rect class=\"bar\" data-run=\"{}\" data-bin=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" \
                 height=\"{}\" fill=\"{}\"><title>{}: {} from {}</title></rect>",
                esc(&runs[ri].label),
                bi,
                c[bi],
                f(left + slot * bi as f64 + bar * ri as f64),
                f(height - 30.0 - h),
                f(bar),
                f(h),
                color(ri),
                esc(&runs[ri].label),
                c[bi],
                lo
            );
        }
    }
    out.push_str(
        "</svg><figcaption>ce of every record, in bins of 50 centipawns from -500 to 500 (mate scores left \
         out).</figcaption>",
    );
    legend(out, runs);
    out.push_str("</figure>");
}

/// The first two runs' solve times on the records both solved.
fn scatter_chart(out: &mut String, report: &Report) {
    let pairs: &[(f64, f64)] = report.comparisons.first().map_or(&[], |c| &c.time_pairs);
    let (a, b) = match report.comparisons.first() {
        Some(c) => (c.a.as_str(), c.b.as_str()),
        None => ("", ""),
    };
    let all = pairs.iter().flat_map(|&(x, y)| [x, y]);
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = if pairs.is_empty() {
        (0.0, 1.0)
    } else {
        (lo.log10().floor(), hi.log10().ceil().max(lo.log10().floor() + 1.0))
    };
    let size = 360.0;
    let pos = |v: f64| 40.0 + (size - 60.0) * (v.log10() - lo) / (hi - lo);
    let _ = write!(
        out,
        "<figure class=\"chart\" data-kind=\"time-scatter\"><svg width=\"{s}\" \
         height=\"{s}\" role=\"img\" aria-label=\"solve times of two runs\"><line x1=\"40\" y1=\"{b}\" x2=\"{e}\" \
         y2=\"20\" stroke=\"#bbb\"/>",
        s = f(size),
        b = f(size - 40.0),
        e = f(size - 20.0)
    );
    let mut e = lo;
    while e <= hi {
        let t = pos(10f64.powf(e));
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">1e{e}</text><text x=\"36\" y=\"{}\" \
             text-anchor=\"end\">1e{e}</text>",
            f(t),
            f(size - 6.0),
            f(size - t + 4.0),
            e = e as i64
        );
        e += 1.0;
    }
    for &(x, y) in pairs {
        let _ = write!(
            out,
            "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"#1f77b4\" fill-opacity=\"0.6\"><title>{} s, {} s</title></circle>",
            f(pos(x)),
            f(size - pos(y)),
            x,
            y
        );
    }
    let caption = if pairs.is_empty() {
        "Solve times of two runs: no record both of the first two runs solved with a time.".to_owned()
    } else {
        format!(
            "Solve times (seconds, log axes) on the records both solved: {} across, {} up; below the diagonal {} was \
             faster.",
            esc(a),
            esc(b),
            esc(b)
        )
    };
    let _ = write!(out, "</svg><figcaption>{caption}</figcaption></figure>");
}

fn summary_table(out: &mut String, runs: &[RunStats]) {
    out.push_str(
        "<table class=\"sortable\" id=\"runs\"><thead><tr><th class=\"l\">run</th><th>records</th><th>invalid</th>\
         <th>scored</th><th>solved</th><th>%</th><th>95 % (Wilson)</th><th>points %</th><th>STS rating</th></tr>\
         </thead><tbody>",
    );
    for r in runs {
        let rate = r.solved_rate.unwrap_or(0.0) * 100.0;
        let (pts, rating) = match &r.points {
            Some(p) => (format!("{:.2}", p.percent), format!("{:.0}", p.sts_rating)),
            None => (String::new(), String::new()),
        };
        let _ = write!(
            out,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td data-v=\"{rate}\">{rate:.1}</td>\
             <td>{:.1} – {:.1}</td><td>{pts}</td><td>{rating}</td></tr>",
            esc(&r.label),
            r.records,
            r.invalid,
            r.scored,
            r.solved,
            100.0 * r.solved_ci.0,
            100.0 * r.solved_ci.1
        );
    }
    out.push_str("</tbody></table>");
}

fn themes_table(out: &mut String, runs: &[RunStats]) {
    let themes = theme_order(runs);
    out.push_str("<table class=\"sortable\" id=\"themes\"><thead><tr><th class=\"l\">theme</th>");
    for r in runs {
        let _ = write!(out, "<th>{} solved</th><th>{} %</th>", esc(&r.label), esc(&r.label));
    }
    out.push_str("</tr></thead><tbody>");
    for t in themes {
        let _ = write!(out, "<tr><td class=\"l\">{}</td>", esc(t));
        for r in runs {
            match r.themes.get(t) {
                Some(x) if x.scored > 0 => {
                    let p = 100.0 * x.solved as f64 / x.scored as f64;
                    let _ = write!(out, "<td>{}/{}</td><td data-v=\"{p}\">{p:.1}</td>", x.solved, x.scored);
                }
                _ => out.push_str("<td></td><td data-v=\"-1\"></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

fn comparisons(out: &mut String, report: &Report) {
    if report.comparisons.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Comparisons</h2><table class=\"sortable\" id=\"comparisons\"><thead><tr><th class=\"l\">a</th>\
         <th class=\"l\">b</th><th>paired</th><th>both</th><th>a only</th><th>b only</th><th>neither</th>\
         <th>McNemar exact p</th></tr></thead><tbody>",
    );
    for c in &report.comparisons {
        let _ = write!(
            out,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td data-v=\"{}\">{}</td></tr>",
            esc(&c.a),
            esc(&c.b),
            c.paired,
            c.both,
            c.a_only,
            c.b_only,
            c.neither,
            c.mcnemar_p,
            crate::render::p_value(c.mcnemar_p)
        );
    }
    out.push_str("</tbody></table>");
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
/// ids read from their spools as they are written.
///
/// # Errors
/// Writing, or reading a spooled list of ids, failed.
pub fn write_html(report: &Report, w: &mut dyn io::Write) -> io::Result<()> {
    let runs = &report.runs;
    let mut out = String::new();
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         script-src 'unsafe-inline'\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>EPD report</title><style>",
    );
    out.push_str(STYLE);
    out.push_str("</style></head><body><h1>EPD report: ");
    let labels: Vec<String> = runs.iter().map(|r| esc(&r.label)).collect();
    out.push_str(&labels.join(", "));
    out.push_str("</h1>");
    summary_table(&mut out, runs);
    out.push_str("<h2>Solved per theme</h2>");
    themes_chart(&mut out, runs);
    themes_table(&mut out, runs);
    out.push_str("<h2>Solved against effort</h2>");
    curve_chart(&mut out, runs, "time-curve", "Cumulative solved against solution time (seconds, log axis).", &|r| {
        (&r.solve_times, 0.001)
    });
    curve_chart(&mut out, runs, "nodes-curve", "Cumulative solved against nodes (log axis).", &|r| {
        (&r.solve_nodes, 1.0)
    });
    out.push_str("<h2>Evaluations</h2>");
    ce_chart(&mut out, runs);
    out.push_str("<h2>Solve times of two runs</h2>");
    scatter_chart(&mut out, report);
    comparisons(&mut out, report);
    w.write_all(out.as_bytes())?;
    for c in &report.comparisons {
        id_list(w, &format!("Solved by {} only", c.b), &c.newly_solved)?;
        id_list(w, &format!("Solved by {} only", c.a), &c.newly_failed)?;
    }
    for r in runs {
        id_list(w, &format!("Missed by {}", r.label), &r.missed_ids)?;
    }
    w.write_all(b"<script>")?;
    w.write_all(SCRIPT.as_bytes())?;
    w.write_all(b"</script></body></html>\n")
}
