//! `epd select`: keep the records that match, written exactly as they
//! were read.
//!
//! Filters of different kinds must all hold; several filters of one kind
//! (two `--id`, say) match when any of them does. `--invert` keeps the
//! records that do not match. Records are written byte for byte as read
//! (a non-canonical record stays as it is; a CRLF line keeps its CR);
//! nothing is added and blank lines are left out. Invalid records are
//! never selected: their diagnostics are printed as `epd check` prints
//! them, they are counted, and the exit code is 1.
//!
//! Select runs on the one line pipeline, so it has the line rules and
//! `-j` of every file verb.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use anyhow::bail;
use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, Processor};
use epd_core::{ParseMode, Record, SanMode};

use crate::diagnostics::{DiagArgs, Printer};
use crate::files::{Plan, Stop};
use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd select --id 'WAC.0*' wacnew.epd            # ids by glob (* and ?)
  epd select --id '^STS\\(v1[0-5]' --regex sts.epd
  epd select --lines 10..20 suite.epd             # input lines 10 to 20
  epd select --has dm --where 'dm<=3' mates.epd   # mates in at most 3
  epd select --where bm=Nf3 --where bm=Nc3 suite.epd   # either move among bm
  epd select --lacks bm -v suite.epd              # the records that have bm";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Keep records whose id matches PATTERN: a glob (`*` any text, `?`
    /// one character) matched against the whole id, or a regular
    /// expression with --regex (found anywhere in the id). Records
    /// without id never match. Repeatable.
    #[arg(long, value_name = "PATTERN")]
    id: Vec<String>,
    /// Read --id patterns as regular expressions.
    #[arg(long)]
    regex: bool,
    /// Keep records on these input lines: `A..B`, `A..`, `..B` or `N`,
    /// 1-based and inclusive, as diagnostics number them. Repeatable.
    #[arg(long, value_name = "A..B", value_parser = line_range)]
    lines: Vec<(u64, u64)>,
    /// Keep records that have this opcode. Repeatable.
    #[arg(long, value_name = "OPCODE")]
    has: Vec<String>,
    /// Keep records that lack this opcode. Repeatable.
    #[arg(long, value_name = "OPCODE")]
    lacks: Vec<String>,
    /// Keep records whose operand satisfies EXPR: `OPCODE=VALUE`,
    /// `OPCODE!=VALUE` (any operand equal; moves compared as moves, so
    /// `bm=Nf3` also finds `bm Ng1f3`), or `<`, `<=`, `>`, `>=` against
    /// an integer (`ce>100`, `acd>=12`, `dm<=3`). A record without the
    /// opcode never matches. Repeatable.
    #[arg(long = "where", value_name = "EXPR", value_parser = expr)]
    conditions: Vec<Expr>,
    /// Keep the records that do not match.
    #[arg(short = 'v', long)]
    invert: bool,
    /// Follow the specification to the letter (the default).
    #[arg(long, conflicts_with = "lenient")]
    strict: bool,
    /// Accept the dialects real files contain, reporting each change.
    #[arg(long)]
    lenient: bool,
    /// Print no warnings and no summary, only errors.
    #[arg(short = 'q', long)]
    quiet: bool,
    #[command(flatten)]
    diag: DiagArgs,
    /// Worker threads; output and diagnostics are the same as with one.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
}

/// `A..B`, `A..`, `..B` or `N`: 1-based, inclusive.
fn line_range(s: &str) -> Result<(u64, u64), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u64>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("{t:?} is not a line number (1 is the first line)"))
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => {
            (if a.trim().is_empty() { 1 } else { num(a)? }, if b.trim().is_empty() { u64::MAX } else { num(b)? })
        }
        None => {
            let n = num(s)?;
            (n, n)
        }
    };
    if a > b {
        return Err(format!("the range {s} is empty: {a} comes after {b}"));
    }
    Ok((a, b))
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One `--where` condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    opcode: String,
    cmp: Cmp,
    value: String,
}

fn expr(s: &str) -> Result<Expr, String> {
    let at = s.find(['=', '!', '<', '>']).ok_or_else(|| {
        format!("{s:?} is not OPCODE=VALUE, OPCODE!=VALUE or OPCODE<N (also <=, >, >=), such as ce>100 or bm=Nf3")
    })?;
    let (opcode, rest) = s.split_at(at);
    let opcode = opcode.trim();
    if !epd_core::is_valid_opcode(opcode.as_bytes()) {
        return Err(format!("{opcode:?} is not an opcode (in {s:?})"));
    }
    let (cmp, value) =
        [("!=", Cmp::Ne), ("<=", Cmp::Le), (">=", Cmp::Ge), ("=", Cmp::Eq), ("<", Cmp::Lt), (">", Cmp::Gt)]
            .iter()
            .find_map(|(t, c)| rest.strip_prefix(t).map(|v| (*c, v.trim())))
            .ok_or_else(|| format!("{s:?}: expected =, !=, <, <=, > or >= after {opcode}"))?;
    if value.is_empty() {
        return Err(format!("{s:?}: no value after the comparison"));
    }
    if !matches!(cmp, Cmp::Eq | Cmp::Ne) && value.parse::<i64>().is_err() {
        return Err(format!("{s:?}: {value:?} is not an integer; <, <=, > and >= compare integers"));
    }
    Ok(Expr { opcode: opcode.to_owned(), cmp, value: value.to_owned() })
}

/// `*` and `?` over the whole text.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

/// The filters, as the pipeline's processor.
#[derive(Clone, Debug)]
struct Select {
    mode: ParseMode,
    ids: Vec<String>,
    regexes: Vec<regex::bytes::Regex>,
    lines: Vec<(u64, u64)>,
    has: Vec<String>,
    lacks: Vec<String>,
    conditions: Vec<Expr>,
    invert: bool,
}

/// Records kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kept(u64);

impl core::ops::AddAssign for Kept {
    fn add_assign(&mut self, o: Kept) {
        self.0 += o.0;
    }
}

impl Select {
    fn has_opcode(rec: &Record, name: &str) -> bool {
        rec.operations().any(|o| o.opcode() == name)
    }

    fn holds(rec: &Record, e: &Expr) -> bool {
        let Some(op) = rec.operations().find(|o| o.opcode() == e.opcode) else { return false };
        match e.cmp {
            Cmp::Eq | Cmp::Ne => {
                let want_move = rec
                    .position()
                    .filter(|_| op.known().is_some_and(|k| k.operand_type(0) == epd_core::OperandType::Move))
                    .and_then(|p| p.parse_san(e.value.as_bytes(), SanMode::Lenient).ok());
                let equal = op.operands().any(|o| match (want_move, o.as_move()) {
                    (Some(w), Some(m)) => w == m,
                    _ => o.text() == e.value.as_bytes(),
                });
                equal == (e.cmp == Cmp::Eq)
            }
            _ => {
                let Some(v) = op.operand(0).and_then(|o| o.as_integer()) else { return false };
                let n: i64 = e.value.parse().unwrap_or(0);
                match e.cmp {
                    Cmp::Lt => v < n,
                    Cmp::Le => v <= n,
                    Cmp::Gt => v > n,
                    _ => v >= n,
                }
            }
        }
    }

    fn matches(&self, rec: &Record, line: u64) -> bool {
        let id = rec.id();
        let id_ok = (self.ids.is_empty() && self.regexes.is_empty())
            || id.is_some_and(|id| {
                self.ids.iter().any(|p| glob(p.as_bytes(), id)) || self.regexes.iter().any(|r| r.is_match(id))
            });
        id_ok
            && (self.lines.is_empty() || self.lines.iter().any(|&(a, b)| (a..=b).contains(&line)))
            && (self.has.is_empty() || self.has.iter().any(|o| Select::has_opcode(rec, o)))
            && (self.lacks.is_empty() || self.lacks.iter().any(|o| !Select::has_opcode(rec, o)))
            && (self.conditions.is_empty() || self.conditions.iter().any(|e| Select::holds(rec, e)))
    }
}

impl Processor for Select {
    type Counts = Kept;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn keeps_blank_lines(&self) -> bool {
        false
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, Kept>) -> Result<(), Interrupted> {
        if self.matches(rec, job.line) != self.invert {
            job.out.extend_from_slice(job.text);
            job.out.push(b'\n');
            job.counts.0 += 1;
        }
        Ok(())
    }
}

pub fn run(args: Args, stdout: &mut dyn Write) -> anyhow::Result<Outcome> {
    for op in args.has.iter().chain(&args.lacks) {
        if !epd_core::is_valid_opcode(op.as_bytes()) {
            bail!("{op:?} is not an opcode");
        }
    }
    let (ids, regexes) = if args.regex {
        let rs = args
            .id
            .iter()
            .map(|p| regex::bytes::Regex::new(p).map_err(|e| anyhow::anyhow!("--id {p:?}: {e}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        (Vec::new(), rs)
    } else {
        (args.id.clone(), Vec::new())
    };
    let select = Select {
        mode: if args.lenient { ParseMode::Lenient } else { ParseMode::Strict },
        ids,
        regexes,
        lines: args.lines.clone(),
        has: args.has.clone(),
        lacks: args.lacks.clone(),
        conditions: args.conditions.clone(),
        invert: args.invert,
    };
    let plan = Plan::new(&args.files, args.output.as_deref(), false)?;
    let stop = Stop::install()?;
    let config = Config { drop_invalid: true, flush_each: false, stop: Some(stop.flag()), lines_before: 0 };
    let mut err = BufWriter::new(io::stderr().lock());
    let mut printer = Printer::new(&args.diag, args.quiet);
    let mut workers = vec![select; args.jobs.max(1)];
    let total = plan.run(stdout, |display, input, _, out| {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let head = input.fill_buf().map_err(pipeline::PipelineError::Read)?;
        printer.start_file(display, head, &mut err);
        let render = printer.render(display);
        let render = |r: &LineReport<'_>, buf: &mut Vec<u8>| render.line(r, buf);
        let mut emit = |bytes: &[u8]| printer.emit(bytes, &mut err);
        pipeline::run(input, out, &mut workers, &config, &render, &mut emit, &mut |_| {})
    })?;
    printer.finish(&total, ParseMode::Lenient, &mut err);
    if !args.quiet || total.invalid > 0 {
        writeln!(
            err,
            "{} of {} records selected; {} invalid (never selected){}",
            total.counts.0,
            total.records,
            total.invalid,
            if total.interrupted { " (interrupted)" } else { "" }
        )?;
    }
    err.flush()?;
    Ok(stop.outcome(&total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (p, t, m) in [
            ("WAC.0*", "WAC.001", true),
            ("WAC.0*", "WAC.100", false),
            ("*", "", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("*.00?", "STS.001", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
        ] {
            assert_eq!(glob(p.as_bytes(), t.as_bytes()), m, "{p} {t}");
        }
    }

    #[test]
    fn expressions_and_ranges() {
        assert_eq!(expr("ce>100").unwrap(), Expr { opcode: "ce".into(), cmp: Cmp::Gt, value: "100".into() });
        assert_eq!(expr("bm!=Nf3").unwrap().cmp, Cmp::Ne);
        assert_eq!(expr("acd >= 12").unwrap().cmp, Cmp::Ge);
        for bad in ["ce", "ce>", "ce>x", "9x=1", "=3", "bm<e4"] {
            assert!(expr(bad).is_err(), "{bad}");
        }
        assert_eq!(line_range("3..5"), Ok((3, 5)));
        assert_eq!(line_range("..5"), Ok((1, 5)));
        assert_eq!(line_range("7"), Ok((7, 7)));
        assert!(line_range("0").is_err() && line_range("5..3").is_err());
    }
}
