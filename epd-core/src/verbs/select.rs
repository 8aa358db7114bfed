//! select: keep the records that match, written exactly as they were
//! read.
//!
//! Filters of different kinds must all hold; several filters of one kind
//! (two id patterns, say) match when any of them does. `invert` keeps the
//! records that do not match. Records are written byte for byte as read (a
//! non-canonical record stays as it is; a CRLF line keeps its CR); nothing
//! is added and blank lines are left out. Invalid records are never
//! selected: they are reported and counted, never written.
//!
//! ```
//! use epd_core::verbs::{select_str, SelectOptions};
//!
//! let input = b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"a\"; ce 120;\n\
//!               4k3/8/8/8/8/8/8/4K2R  w K - id \"b\"; ce 10;\n";
//! let options = SelectOptions { conditions: vec!["ce>100".parse().unwrap()], ..SelectOptions::default() };
//! let (out, summary) = select_str(input, &options).unwrap();
//! assert_eq!(out, b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"a\"; ce 120;\n");
//! assert_eq!((summary.records, summary.invalid, summary.counts.selected), (2, 1, 1));
//!
//! let err = "ce>x".parse::<epd_core::verbs::Condition>().unwrap_err();
//! assert_eq!(err.column(), Some(4));
//! ```

use core::fmt;
use core::str::FromStr;
use std::io::{BufRead, Write};

use crate::pipeline::{self, Config, Interrupted, Job, LineReport, PipelineError, Processor, Summary};
use crate::{is_valid_opcode, OperandType, ParseMode, Record, SanMode};

/// Why a filter of [`SelectOptions`] was refused. The `offset` of the
/// variants that have one is the 0-based byte offset in the text the user
/// wrote (the condition or the line range); [`SelectError::column`] gives
/// it 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectError {
    /// A condition without a comparison (`ce`, `ce~3`).
    NoComparison {
        /// The condition.
        expr: String,
        /// Where a comparison was expected.
        offset: usize,
    },
    /// A condition whose text before the comparison is not an opcode.
    ConditionOpcode {
        /// The condition.
        expr: String,
        /// The text before the comparison, trimmed.
        opcode: String,
        /// Where that text starts.
        offset: usize,
    },
    /// A `!` not followed by `=`.
    BadComparison {
        /// The condition.
        expr: String,
        /// The opcode before it.
        opcode: String,
        /// Where the comparison starts.
        offset: usize,
    },
    /// Nothing after the comparison (`ce>`).
    NoValue {
        /// The condition.
        expr: String,
        /// The end of the condition.
        offset: usize,
    },
    /// `<`, `<=`, `>` or `>=` against something that is not an integer.
    NotAnInteger {
        /// The condition.
        expr: String,
        /// The value, trimmed.
        value: String,
        /// Where the value starts.
        offset: usize,
    },
    /// A line range with a part that is not a line number (`0`, `x..3`).
    NotALineNumber {
        /// The range.
        range: String,
        /// The part that is not a line number.
        number: String,
        /// Where that part starts.
        offset: usize,
    },
    /// A line range whose first line comes after its last (`5..3`).
    EmptyRange {
        /// The range.
        range: String,
        /// Its first line.
        first: u64,
        /// Its last line.
        last: u64,
        /// Where its last line is written.
        offset: usize,
    },
    /// An opcode to have or lack that is not an opcode.
    NotAnOpcode {
        /// The text given.
        opcode: String,
    },
    /// An id pattern that is not a regular expression.
    Regex {
        /// The pattern.
        pattern: String,
        /// Why, as the regular expression parser says it (several lines).
        message: String,
    },
    /// Regular expressions asked for, but epd-core was built without its
    /// `regex` feature.
    RegexUnavailable,
}

impl SelectError {
    /// The 0-based byte offset of the problem in the text the user wrote,
    /// for the errors of a condition or a line range.
    #[must_use]
    pub fn offset(&self) -> Option<usize> {
        match self {
            SelectError::NoComparison { offset, .. }
            | SelectError::ConditionOpcode { offset, .. }
            | SelectError::BadComparison { offset, .. }
            | SelectError::NoValue { offset, .. }
            | SelectError::NotAnInteger { offset, .. }
            | SelectError::NotALineNumber { offset, .. }
            | SelectError::EmptyRange { offset, .. } => Some(*offset),
            SelectError::NotAnOpcode { .. } | SelectError::Regex { .. } | SelectError::RegexUnavailable => None,
        }
    }

    /// The 1-based column of the problem (offset + 1), where one applies.
    #[must_use]
    pub fn column(&self) -> Option<usize> {
        self.offset().map(|o| o + 1)
    }
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::NoComparison { expr, .. } => write!(
                f,
                "{expr:?} is not OPCODE=VALUE, OPCODE!=VALUE or OPCODE<N (also <=, >, >=), such as ce>100 or bm=Nf3"
            ),
            SelectError::ConditionOpcode { expr, opcode, .. } => write!(f, "{opcode:?} is not an opcode (in {expr:?})"),
            SelectError::BadComparison { expr, opcode, .. } => {
                write!(f, "{expr:?}: expected =, !=, <, <=, > or >= after {opcode}")
            }
            SelectError::NoValue { expr, .. } => write!(f, "{expr:?}: no value after the comparison"),
            SelectError::NotAnInteger { expr, value, .. } => {
                write!(f, "{expr:?}: {value:?} is not an integer; <, <=, > and >= compare integers")
            }
            SelectError::NotALineNumber { number, .. } => {
                write!(f, "{number:?} is not a line number (1 is the first line)")
            }
            SelectError::EmptyRange { range, first, last, .. } => {
                write!(f, "the range {range} is empty: {first} comes after {last}")
            }
            SelectError::NotAnOpcode { opcode } => write!(f, "{opcode:?} is not an opcode"),
            SelectError::Regex { pattern, message } => write!(f, "id pattern {pattern:?}: {message}"),
            SelectError::RegexUnavailable => {
                f.write_str("regular expressions need epd-core's regex feature, which this build lacks")
            }
        }
    }
}

impl std::error::Error for SelectError {}

/// Input lines `first..=last`, 1-based, as diagnostics number them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineRange {
    first: u64,
    last: u64,
}

impl LineRange {
    /// The first line of the range (1 or more).
    #[must_use]
    pub fn first(&self) -> u64 {
        self.first
    }

    /// The last line of the range (`u64::MAX` when open).
    #[must_use]
    pub fn last(&self) -> u64 {
        self.last
    }

    /// `true` if `line` is in the range.
    #[must_use]
    pub fn contains(&self, line: u64) -> bool {
        (self.first..=self.last).contains(&line)
    }
}

impl FromStr for LineRange {
    type Err = SelectError;

    /// `A..B`, `A..`, `..B` or `N`: 1-based and inclusive.
    fn from_str(s: &str) -> Result<LineRange, SelectError> {
        let num = |t: &str, offset: usize| {
            t.trim().parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| SelectError::NotALineNumber {
                range: s.to_owned(),
                number: t.to_owned(),
                offset: offset + (t.len() - t.trim_start().len()),
            })
        };
        let (first, last, offset) = match s.split_once("..") {
            Some((a, b)) => {
                let at = a.len() + 2;
                let first = if a.trim().is_empty() { 1 } else { num(a, 0)? };
                let last = if b.trim().is_empty() { u64::MAX } else { num(b, at)? };
                (first, last, at + (b.len() - b.trim_start().len()))
            }
            None => {
                let n = num(s, 0)?;
                (n, n, 0)
            }
        };
        if first > last {
            return Err(SelectError::EmptyRange { range: s.to_owned(), first, last, offset });
        }
        Ok(LineRange { first, last })
    }
}

/// How a [`Condition`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `=`: some operand equals the value.
    Eq,
    /// `!=`: no operand equals the value.
    Ne,
    /// `<`: the first operand, an integer, is below the value.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// A condition on an operation's operands: `OPCODE=VALUE`, `OPCODE!=VALUE`
/// (any operand equal; moves compared as moves, so `bm=Nf3` also finds
/// `bm Ng1f3`), or `<`, `<=`, `>`, `>=` against an integer (`ce>100`,
/// `acd>=12`, `dm<=3`). A record without the opcode never satisfies it.
/// Read with [`str::parse`]; blanks around the parts are ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    opcode: String,
    cmp: Comparison,
    value: String,
    /// The value as an integer, for the ordering comparisons.
    number: i64,
}

impl Condition {
    /// The opcode the condition is about.
    #[must_use]
    pub fn opcode(&self) -> &str {
        &self.opcode
    }

    /// The comparison.
    #[must_use]
    pub fn comparison(&self) -> Comparison {
        self.cmp
    }

    /// The value compared with, as written (trimmed).
    #[must_use]
    pub fn value(&self) -> &str {
        &self.value
    }

    /// `true` if the record satisfies the condition.
    #[must_use]
    pub fn holds(&self, rec: &Record) -> bool {
        let Some(op) = rec.operations().find(|o| o.opcode() == self.opcode) else { return false };
        match self.cmp {
            Comparison::Eq | Comparison::Ne => {
                let want_move = rec
                    .position()
                    .filter(|_| op.known().is_some_and(|k| k.operand_type(0) == OperandType::Move))
                    .and_then(|p| p.parse_san(self.value.as_bytes(), SanMode::Lenient).ok());
                let equal = op.operands().any(|o| match (want_move, o.as_move()) {
                    (Some(w), Some(m)) => w == m,
                    _ => o.text() == self.value.as_bytes(),
                });
                equal == (self.cmp == Comparison::Eq)
            }
            _ => {
                let Some(v) = op.operand(0).and_then(|o| o.as_integer()) else { return false };
                let n = self.number;
                match self.cmp {
                    Comparison::Lt => v < n,
                    Comparison::Le => v <= n,
                    Comparison::Gt => v > n,
                    _ => v >= n,
                }
            }
        }
    }
}

impl FromStr for Condition {
    type Err = SelectError;

    fn from_str(s: &str) -> Result<Condition, SelectError> {
        let lead = |t: &str| t.len() - t.trim_start().len();
        let Some(at) = s.find(['=', '!', '<', '>']) else {
            let start = lead(s);
            let name = s[start..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
            return Err(SelectError::NoComparison { expr: s.to_owned(), offset: start + name });
        };
        let (raw, rest) = s.split_at(at);
        let opcode = raw.trim();
        if !is_valid_opcode(opcode.as_bytes()) {
            let offset = lead(raw);
            return Err(SelectError::ConditionOpcode { expr: s.to_owned(), opcode: opcode.to_owned(), offset });
        }
        const CMPS: [(&str, Comparison); 6] = [
            ("!=", Comparison::Ne),
            ("<=", Comparison::Le),
            (">=", Comparison::Ge),
            ("=", Comparison::Eq),
            ("<", Comparison::Lt),
            (">", Comparison::Gt),
        ];
        let Some((cmp, after)) = CMPS.iter().find_map(|(t, c)| rest.strip_prefix(t).map(|v| (*c, v))) else {
            return Err(SelectError::BadComparison { expr: s.to_owned(), opcode: opcode.to_owned(), offset: at });
        };
        let value = after.trim();
        if value.is_empty() {
            return Err(SelectError::NoValue { expr: s.to_owned(), offset: s.len() });
        }
        let number = match cmp {
            Comparison::Eq | Comparison::Ne => 0,
            _ => value.parse::<i64>().map_err(|_| SelectError::NotAnInteger {
                expr: s.to_owned(),
                value: value.to_owned(),
                offset: s.len() - after.len() + lead(after),
            })?,
        };
        Ok(Condition { opcode: opcode.to_owned(), cmp, value: value.to_owned(), number })
    }
}

/// What [`Selector`] keeps. Each kind of filter left empty is no filter;
/// the kinds given must all hold, and a kind holds when any of its
/// filters does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectOptions {
    /// How strictly to read (the default: strict).
    pub mode: ParseMode,
    /// Id patterns: globs (`*` any text, `?` one character) matched
    /// against the whole id, or with `regex` regular expressions found
    /// anywhere in it. Records without id never match.
    pub ids: Vec<String>,
    /// Read `ids` as regular expressions.
    pub regex: bool,
    /// Input line ranges.
    pub lines: Vec<LineRange>,
    /// Opcodes a record must have (any of them).
    pub has: Vec<String>,
    /// Opcodes a record must lack (any of them).
    pub lacks: Vec<String>,
    /// Conditions on operands (any of them).
    pub conditions: Vec<Condition>,
    /// Keep the records that do not match instead.
    pub invert: bool,
}

impl Default for SelectOptions {
    fn default() -> SelectOptions {
        SelectOptions {
            mode: ParseMode::Strict,
            ids: Vec::new(),
            regex: false,
            lines: Vec::new(),
            has: Vec::new(),
            lacks: Vec::new(),
            conditions: Vec::new(),
            invert: false,
        }
    }
}

/// What select counts beyond the pipeline's line accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectCounts {
    /// Records selected (written).
    pub selected: u64,
}

impl core::ops::AddAssign for SelectCounts {
    fn add_assign(&mut self, other: SelectCounts) {
        self.selected += other.selected;
    }
}

/// The summary of a select run.
pub type SelectSummary = Summary<SelectCounts>;

/// The filters of [`SelectOptions`], checked and compiled, as a
/// [`Processor`] of the line pipeline. It writes only the records it
/// keeps: run it with [`Config::drop_invalid`] set, as [`run_select`]
/// does, so invalid records are never written.
#[derive(Clone, Debug)]
pub struct Selector {
    mode: ParseMode,
    globs: Vec<String>,
    regexes: Vec<IdRegex>,
    lines: Vec<LineRange>,
    has: Vec<String>,
    lacks: Vec<String>,
    conditions: Vec<Condition>,
    invert: bool,
}

impl Selector {
    /// Checks the opcodes (those of `has`, then of `lacks`) and compiles
    /// the id patterns.
    ///
    /// # Errors
    /// The first opcode that is not one, or the first pattern that is not
    /// a regular expression.
    pub fn new(options: &SelectOptions) -> Result<Selector, SelectError> {
        for op in options.has.iter().chain(&options.lacks) {
            if !is_valid_opcode(op.as_bytes()) {
                return Err(SelectError::NotAnOpcode { opcode: op.clone() });
            }
        }
        let (globs, regexes) = if options.regex {
            (Vec::new(), options.ids.iter().map(|p| compile(p)).collect::<Result<_, _>>()?)
        } else {
            (options.ids.clone(), Vec::new())
        };
        Ok(Selector {
            mode: options.mode,
            globs,
            regexes,
            lines: options.lines.clone(),
            has: options.has.clone(),
            lacks: options.lacks.clone(),
            conditions: options.conditions.clone(),
            invert: options.invert,
        })
    }

    /// `true` if the valid record `rec`, read from input line `line`,
    /// matches the filters (before `invert`).
    #[must_use]
    pub fn matches(&self, rec: &Record, line: u64) -> bool {
        let has = |name: &str| rec.operations().any(|o| o.opcode() == name);
        let id_ok = |id: &[u8]| {
            self.globs.iter().any(|p| glob(p.as_bytes(), id)) || self.regexes.iter().any(|r| is_match(r, id))
        };
        ((self.globs.is_empty() && self.regexes.is_empty()) || rec.id().is_some_and(id_ok))
            && (self.lines.is_empty() || self.lines.iter().any(|r| r.contains(line)))
            && (self.has.is_empty() || self.has.iter().any(|o| has(o)))
            && (self.lacks.is_empty() || self.lacks.iter().any(|o| !has(o)))
            && (self.conditions.is_empty() || self.conditions.iter().any(|c| c.holds(rec)))
    }

    /// `true` if the valid record `rec`, read from input line `line`, is
    /// kept (`invert` applied).
    #[must_use]
    pub fn selects(&self, rec: &Record, line: u64) -> bool {
        self.matches(rec, line) != self.invert
    }
}

/// A compiled id pattern.
#[cfg(feature = "regex")]
type IdRegex = regex::bytes::Regex;

/// Without the `regex` feature there is none.
#[cfg(not(feature = "regex"))]
#[derive(Clone, Debug)]
enum IdRegex {}

#[cfg(feature = "regex")]
fn compile(pattern: &str) -> Result<IdRegex, SelectError> {
    regex::bytes::Regex::new(pattern)
        .map_err(|e| SelectError::Regex { pattern: pattern.to_owned(), message: e.to_string() })
}

#[cfg(not(feature = "regex"))]
fn compile(_: &str) -> Result<IdRegex, SelectError> {
    Err(SelectError::RegexUnavailable)
}

#[cfg(feature = "regex")]
fn is_match(r: &IdRegex, id: &[u8]) -> bool {
    r.is_match(id)
}

#[cfg(not(feature = "regex"))]
fn is_match(r: &IdRegex, _: &[u8]) -> bool {
    match *r {}
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

impl Processor for Selector {
    type Counts = SelectCounts;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn keeps_blank_lines(&self) -> bool {
        false
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, SelectCounts>) -> Result<(), Interrupted> {
        if self.selects(rec, job.line) {
            job.out.extend_from_slice(job.text);
            job.out.push(b'\n');
            job.counts.selected += 1;
        }
        Ok(())
    }
}

/// Runs select over `input` on this thread, writing the records kept to
/// `output` and handing each line's diagnostics to `report`. (The CLI runs
/// the same [`Selector`] through [`pipeline::run`], with worker threads
/// and a stop flag.)
///
/// # Errors
/// Only I/O errors, which say whether reading or writing failed; bad
/// records are diagnostics.
pub fn run_select<R: BufRead, W: Write>(
    input: R,
    output: W,
    selector: &Selector,
    report: impl FnMut(&LineReport<'_>),
) -> Result<SelectSummary, PipelineError> {
    run_select_until(input, output, selector, None, report)
}

/// [`run_select`], stopping before the next record once `stop` is raised
/// (from another thread, or a signal handler): every record kept before
/// is written whole, and the summary says it was interrupted.
///
/// # Errors
/// As [`run_select`].
pub fn run_select_until<R: BufRead, W: Write>(
    input: R,
    output: W,
    selector: &Selector,
    stop: Option<&core::sync::atomic::AtomicBool>,
    mut report: impl FnMut(&LineReport<'_>),
) -> Result<SelectSummary, PipelineError> {
    let config = Config { drop_invalid: true, stop, ..Config::default() };
    let mut proc = selector.clone();
    pipeline::run_serial(input, output, &mut proc, &config, &mut report, &mut |_| {})
}

/// Selects from a whole text in memory (convenience for tests and small
/// inputs): returns the output and the summary.
///
/// # Errors
/// The options' errors, as [`Selector::new`] gives them.
pub fn select_str(input: &[u8], options: &SelectOptions) -> Result<(Vec<u8>, SelectSummary), SelectError> {
    let selector = Selector::new(options)?;
    let mut out = Vec::new();
    // Reading a slice and writing to a Vec cannot fail.
    let summary = run_select(input, &mut out, &selector, |_| {}).unwrap_or_default();
    Ok((out, summary))
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
    fn conditions_read() {
        let c: Condition = "ce>100".parse().unwrap();
        assert_eq!((c.opcode(), c.comparison(), c.value()), ("ce", Comparison::Gt, "100"));
        assert_eq!("bm!=Nf3".parse::<Condition>().unwrap().comparison(), Comparison::Ne);
        let c: Condition = " acd >= 12 ".parse().unwrap();
        assert_eq!((c.opcode(), c.comparison(), c.value()), ("acd", Comparison::Ge, "12"));
    }

    #[test]
    fn bad_conditions_say_where() {
        for (bad, column, message) in [
            (
                "ce",
                3,
                "\"ce\" is not OPCODE=VALUE, OPCODE!=VALUE or OPCODE<N (also <=, >, >=), such as ce>100 or bm=Nf3",
            ),
            (
                "ce~3",
                3,
                "\"ce~3\" is not OPCODE=VALUE, OPCODE!=VALUE or OPCODE<N (also <=, >, >=), such as ce>100 or bm=Nf3",
            ),
            ("ce>", 4, "\"ce>\": no value after the comparison"),
            ("ce>x", 4, "\"ce>x\": \"x\" is not an integer; <, <=, > and >= compare integers"),
            ("ce >=  x1", 8, "\"ce >=  x1\": \"x1\" is not an integer; <, <=, > and >= compare integers"),
            ("9x=1", 1, "\"9x\" is not an opcode (in \"9x=1\")"),
            ("  b-m=1", 3, "\"b-m\" is not an opcode (in \"  b-m=1\")"),
            ("=3", 1, "\"\" is not an opcode (in \"=3\")"),
            ("bm<e4", 4, "\"bm<e4\": \"e4\" is not an integer; <, <=, > and >= compare integers"),
            ("ce!3", 3, "\"ce!3\": expected =, !=, <, <=, > or >= after ce"),
        ] {
            let e = bad.parse::<Condition>().unwrap_err();
            assert_eq!((e.column(), e.to_string().as_str()), (Some(column), message), "{bad}");
        }
    }

    #[test]
    fn line_ranges() {
        let r = |s: &str| s.parse::<LineRange>().map(|r| (r.first(), r.last()));
        assert_eq!(r("3..5"), Ok((3, 5)));
        assert_eq!(r("..5"), Ok((1, 5)));
        assert_eq!(r("3.."), Ok((3, u64::MAX)));
        assert_eq!(r(".."), Ok((1, u64::MAX)));
        assert_eq!(r("7"), Ok((7, 7)));
        for (bad, column, message) in [
            ("0", 1, "\"0\" is not a line number (1 is the first line)"),
            ("x..3", 1, "\"x\" is not a line number (1 is the first line)"),
            ("2.. y", 5, "\" y\" is not a line number (1 is the first line)"),
            ("5..3", 4, "the range 5..3 is empty: 5 comes after 3"),
        ] {
            let e = bad.parse::<LineRange>().unwrap_err();
            assert_eq!((e.column(), e.to_string().as_str()), (Some(column), message), "{bad}");
        }
    }

    #[test]
    fn options_are_checked_in_order() {
        let o = SelectOptions { has: vec!["b-m".into()], lacks: vec!["1x".into()], ..SelectOptions::default() };
        assert_eq!(Selector::new(&o).unwrap_err().to_string(), "\"b-m\" is not an opcode");
        let o = SelectOptions { ids: vec!["(".into()], regex: true, ..SelectOptions::default() };
        let e = Selector::new(&o).unwrap_err();
        #[cfg(feature = "regex")]
        assert!(matches!(e, SelectError::Regex { .. }) && e.column().is_none(), "{e:?}");
        #[cfg(not(feature = "regex"))]
        assert_eq!(e, SelectError::RegexUnavailable);
        let o = SelectOptions { ids: vec!["(".into()], ..SelectOptions::default() };
        assert!(Selector::new(&o).is_ok(), "a glob");
    }

    #[test]
    fn filters_combine() {
        let input = b"4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n\n8/8/8/8/8/8/8/8 w - - id \"b\";\n\
            4k3/8/8/8/8/8/8/4K2R w K - id \"c\"; ce 120;\n4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"d\"; acd 12;\n";
        let run = |o: SelectOptions| {
            let (out, s) = select_str(input, &SelectOptions { mode: ParseMode::Lenient, ..o }).unwrap();
            (String::from_utf8(out).unwrap(), s.counts.selected, s.records, s.invalid)
        };
        let (out, n, records, invalid) = run(SelectOptions { ids: vec!["*".into()], ..SelectOptions::default() });
        assert_eq!((n, records, invalid), (3, 4, 1));
        assert!(out.starts_with("4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n"), "{out}");
        let c = |s: &str| s.parse::<Condition>().unwrap();
        // Moves compared as moves: O-O is 0-0.
        let (_, n, ..) = run(SelectOptions { conditions: vec![c("bm=0-0")], ..SelectOptions::default() });
        assert_eq!(n, 1);
        let (out, n, ..) =
            run(SelectOptions { conditions: vec![c("ce>=120"), c("acd<13")], ..SelectOptions::default() });
        assert_eq!(n, 2, "{out}");
        let (_, n, ..) = run(SelectOptions {
            has: vec!["bm".into()],
            conditions: vec![c("acd<13")],
            invert: true,
            ..SelectOptions::default()
        });
        assert_eq!(n, 2, "the records lacking bm or acd<13");
        let lines = vec!["4..".parse().unwrap()];
        let (_, n, ..) = run(SelectOptions { lines, lacks: vec!["ce".into()], ..SelectOptions::default() });
        assert_eq!(n, 1, "d: on line 5, without ce");
    }
}
