//! Renderers over a [`Report`]: text for a terminal, JSON (the versioned
//! schema [`SCHEMA`](crate::SCHEMA)), CSV rows, one per record per run,
//! written as the records are read, and [`html`], one self-contained page.

use std::fmt::Write as _;
use std::io;

use serde::Serialize;

use crate::report::{Comparison, Report};
use crate::run::{verdict_str, IdList, Judged, RunStats};
use crate::stats::Summary;

pub use crate::html::{html, write_html, CE_EDGES, HTML_ISSUES};

/// Every run's themes, in order of first appearance, run by run.
pub(crate) fn theme_order(runs: &[RunStats]) -> Vec<&str> {
    let mut themes: Vec<&str> = Vec::new();
    for r in runs {
        for (t, _) in r.themes.iter() {
            if !themes.contains(&t) {
                themes.push(t);
            }
        }
    }
    themes
}

/// How many ids a text list shows before it counts the rest.
pub const TEXT_LIST: usize = 30;

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// A p-value: four decimals, or two significant digits below 0.0001.
pub(crate) fn p_value(p: f64) -> String {
    if p >= 1e-4 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}

pub(crate) fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn list(out: &mut String, title: &str, ids: &IdList) -> io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let _ = write!(out, "  {title} ({}):", ids.len());
    for id in ids.iter().take(TEXT_LIST) {
        let _ = write!(out, " {:?}", id?);
    }
    if ids.len() > TEXT_LIST as u64 {
        let _ = write!(out, " ... and {} more (--format json lists all)", ids.len() - TEXT_LIST as u64);
    }
    out.push('\n');
    Ok(())
}

fn summary_row(out: &mut String, name: &str, part: &str, s: Option<&Summary>) {
    let Some(s) = s else { return };
    let _ = writeln!(
        out,
        "    {name:<4} {part:<7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12}",
        s.n,
        num(s.min),
        num(s.q1),
        num(s.median),
        num(s.q3),
        num(s.p90),
        num(s.max),
        num(s.mean)
    );
}

fn run_text(out: &mut String, i: usize, r: &RunStats) -> io::Result<()> {
    let _ = writeln!(out, "Run {}: {} ({})", i + 1, r.label, r.file);
    let _ = writeln!(
        out,
        "  {} records ({} invalid), {} scored by bm/am, {} unscored",
        r.records, r.invalid, r.scored, r.unscored
    );
    for n in &r.notes {
        let _ = writeln!(out, "  note: {}", n.message);
    }
    if let Some(rate) = r.solved_rate {
        let _ = writeln!(
            out,
            "  solved {} of {} = {} % [{}, {}] (Wilson score interval, 95 %); missed {}",
            r.solved,
            r.scored,
            pct(rate),
            pct(r.solved_ci.0),
            pct(r.solved_ci.1),
            r.missed
        );
    }
    if r.mates.keyed > 0 {
        let m = &r.mates;
        let _ = writeln!(
            out,
            "  mates (dm) {}: best {}, longer {}, shorter than the key {}, wrong sign {}, missed {}",
            m.keyed, m.best, m.longer, m.shorter, m.wrong_sign, m.missed
        );
    }
    if let Some(p) = &r.points {
        let _ = writeln!(
            out,
            "  points {} of {} on {} records = {:.2} % [{:.2}, {:.2}] (normal 95 %)",
            p.points, p.max, p.records, p.percent, p.percent_ci.0, p.percent_ci.1
        );
        let _ = writeln!(
            out,
            "  STS rating estimate {:.0} [{:.0}, {:.0}] = 44.523 x percent - 242.85 (STS-Rating's fit over the \
             1,500 STS positions at its time per move; elsewhere only a rough guide)",
            p.sts_rating, p.sts_rating_ci.0, p.sts_rating_ci.1
        );
    }
    for t in &r.time_scores {
        let _ = writeln!(out, "  {} {:.1} ({})", t.name, t.value, t.formula);
    }
    if !r.time_scores.is_empty() {
        let _ = writeln!(
            out,
            "  (BT-2630 and BT-2450 were made for 30 positions, LCT II for 35: on other suites these are not ratings)"
        );
    }
    if r.themes.len() > 1 || r.themes.iter().any(|(_, t)| t.max_points > 0) {
        let width = r.themes.iter().map(|(n, _)| n.len()).max().unwrap_or(5).clamp(5, 40);
        let _ = writeln!(out, "  {:<width$} {:>7} {:>7} {:>7} {:>7}", "theme", "records", "solved", "%", "points");
        for (name, t) in r.themes.iter() {
            let rate = if t.scored > 0 { pct(t.solved as f64 / t.scored as f64) } else { "-".into() };
            let points = if t.max_points > 0 { format!("{}/{}", t.points, t.max_points) } else { String::new() };
            let _ = writeln!(out, "  {name:<width$} {:>7} {:>7} {rate:>7} {points:>7}", t.records, t.solved);
        }
    }
    if r.distributions.values().any(|s| s.all.is_some()) {
        let _ = writeln!(
            out,
            "    {:<4} {:<7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12}",
            "", "", "n", "min", "q1", "median", "q3", "p90", "max", "mean"
        );
        for (name, s) in &r.distributions {
            summary_row(out, name, "all", s.all.as_ref());
            summary_row(out, "", "solved", s.solved.as_ref());
            summary_row(out, "", "missed", s.missed.as_ref());
        }
    }
    if r.ce_mates > 0 {
        let _ = writeln!(out, "    ce leaves out {} mate scores (counted among the mates)", r.ce_mates);
    }
    list(out, "missed", &r.missed_ids)?;
    if !r.issues.is_empty() {
        let _ = writeln!(out, "  issues ({}):", r.issues.len());
        for is in r.issues.iter().take(TEXT_LIST) {
            let is = is?;
            let _ = writeln!(out, "    {}:{}: {}: {}", r.file, is.line, is.kind, is.message);
        }
        if r.issues.len() > TEXT_LIST as u64 {
            let _ = writeln!(out, "    ... and {} more (--format json lists all)", r.issues.len() - TEXT_LIST as u64);
        }
    }
    Ok(())
}

fn comparison_text(out: &mut String, c: &Comparison) -> io::Result<()> {
    let _ = writeln!(out, "{} against {}: {} records scored in both", c.a, c.b, c.paired);
    let _ = writeln!(
        out,
        "  solved by both {}, by {} only {}, by {} only {}, by neither {}; McNemar's exact test p = {}",
        c.both,
        c.a,
        c.a_only,
        c.b,
        c.b_only,
        c.neither,
        p_value(c.mcnemar_p)
    );
    if c.unmatched != (0, 0) {
        let _ = writeln!(
            out,
            "  not matched: {} of {}, {} of {} (by id, else by position)",
            c.unmatched.0, c.a, c.unmatched.1, c.b
        );
    }
    list(out, &format!("solved by {} only (newly solved)", c.b), &c.newly_solved)?;
    list(out, &format!("solved by {} only (newly failed)", c.a), &c.newly_failed)?;
    if let Some(t) = &c.times {
        let _ = writeln!(
            out,
            "  solve times on {} records both solved: {} faster in {}, {} faster in {}; {}/{} median ratio {:.3}, \
             geometric mean {:.3}; sign test p = {}",
            t.n,
            t.b_faster,
            c.b,
            t.a_faster,
            c.a,
            c.b,
            c.a,
            t.median_ratio,
            t.geometric_mean_ratio,
            p_value(t.sign_test_p)
        );
    }
    for note in &c.left_out {
        let _ = writeln!(out, "  left out: {note}");
    }
    Ok(())
}

/// The report as text (lists cut short: the JSON has them whole).
///
/// # Errors
/// Reading a spooled list failed.
pub fn text(report: &Report) -> io::Result<String> {
    let mut out = String::new();
    for (i, r) in report.runs.iter().enumerate() {
        run_text(&mut out, i, r)?;
        out.push('\n');
    }
    if report.runs.len() > 1 {
        side_by_side(&mut out, report);
        out.push('\n');
        for c in &report.comparisons {
            comparison_text(&mut out, c)?;
            out.push('\n');
        }
        for note in &report.curves.left_out {
            let _ = writeln!(out, "note: {note}");
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// Overall, per theme and per mate length, one column per run.
fn side_by_side(out: &mut String, report: &Report) {
    let runs = &report.runs;
    let themes = theme_order(runs);
    let width = themes.iter().map(|t| t.len()).max().unwrap_or(7).clamp(7, 40);
    let col = runs.iter().map(|r| r.label.len()).max().unwrap_or(0).max(14);
    let _ = write!(out, "{:<width$}", "solved");
    for r in runs {
        let _ = write!(out, " {:>col$}", r.label);
    }
    out.push('\n');
    let cell = |s: u64, n: u64| {
        if n == 0 {
            "-".to_owned()
        } else {
            format!("{s}/{n} {}%", pct(s as f64 / n as f64))
        }
    };
    let _ = write!(out, "{:<width$}", "overall");
    for r in runs {
        let _ = write!(out, " {:>col$}", cell(r.solved, r.scored));
    }
    out.push('\n');
    if themes.len() > 1 {
        for t in &themes {
            let _ = write!(out, "{t:<width$}");
            for r in runs {
                let c = r.themes.get(t).map_or("-".to_owned(), |x| cell(x.solved, x.scored));
                let _ = write!(out, " {c:>col$}");
            }
            out.push('\n');
        }
    }
    let mut lengths: Vec<u32> = runs.iter().flat_map(|r| r.mates.by_length.keys().copied()).collect();
    lengths.sort_unstable();
    lengths.dedup();
    for n in lengths {
        let _ = write!(out, "{:<width$}", format!("mate in {n}"));
        for r in runs {
            let c = r.mates.by_length.get(&n).map_or("-".to_owned(), |&(k, f)| cell(f, k));
            let _ = write!(out, " {c:>col$}");
        }
        out.push('\n');
    }
    if runs.iter().any(|r| r.points.is_some()) {
        let _ = write!(out, "{:<width$}", "points %");
        for r in runs {
            let c = r.points.as_ref().map_or("-".to_owned(), |p| format!("{:.2}", p.percent));
            let _ = write!(out, " {c:>col$}");
        }
        out.push('\n');
    }
}

/// The report as JSON (pretty-printed, ending in a newline).
///
/// # Errors
/// Reading a spooled list failed.
pub fn json(report: &Report) -> io::Result<String> {
    let mut out = Vec::new();
    write_json(report, &mut out)?;
    String::from_utf8(out).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))
}

/// Writes the report as JSON (pretty-printed, ending in a newline) to
/// `w`, its lists read from their spools as they are written.
///
/// # Errors
/// Writing, or reading a spooled list, failed.
pub fn write_json(report: &Report, w: &mut dyn io::Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, report).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

#[derive(Serialize)]
struct Row<'a> {
    run: &'a str,
    file: &'a str,
    line: u64,
    id: Option<&'a str>,
    theme: &'a str,
    verdict: &'static str,
    played: Option<&'a str>,
    dm: Option<u32>,
    mate: Option<&'static str>,
    points: Option<u32>,
    max_points: Option<u32>,
    acd: Option<i64>,
    acn: Option<i64>,
    acs: Option<i64>,
    ce: Option<i64>,
    time: Option<f64>,
    nodes: Option<i64>,
}

/// CSV, one row per record per run, with a header row.
#[derive(Debug)]
pub struct CsvRows<W: io::Write> {
    w: csv::Writer<W>,
}

impl<W: io::Write> CsvRows<W> {
    /// Rows to `w`.
    pub fn new(w: W) -> CsvRows<W> {
        CsvRows { w: csv::Writer::from_writer(w) }
    }

    /// One record of run `label` (file `file`).
    ///
    /// # Errors
    /// Writing failed.
    pub fn row(&mut self, label: &str, file: &str, j: &Judged) -> io::Result<()> {
        let mate = j.mate.map(|m| match m {
            crate::MateClass::Best => "best",
            crate::MateClass::Longer => "longer",
            crate::MateClass::Shorter => "shorter",
            crate::MateClass::WrongSign => "wrong_sign",
            crate::MateClass::Missed => "missed",
        });
        let row = Row {
            run: label,
            file,
            line: j.line,
            id: j.id.as_deref(),
            theme: &j.theme,
            verdict: verdict_str(j.verdict),
            played: j.played.as_deref(),
            dm: j.dm,
            mate,
            points: j.points.map(|p| p.0),
            max_points: j.points.map(|p| p.1),
            acd: j.acd,
            acn: j.acn,
            acs: j.acs,
            ce: j.ce,
            time: j.time,
            nodes: j.nodes,
        };
        self.w.serialize(row).map_err(io::Error::other)
    }

    /// Flushes the rows.
    ///
    /// # Errors
    /// Writing failed.
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}
