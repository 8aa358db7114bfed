//! The processing verbs over streams of lines: normalize (pfdn), purge
//! (pfop), repair (pfdr) and check, and select (in [`select`], which
//! keeps the records that match its filters). They run on the
//! [`crate::pipeline`], which keeps record order, holds a bounded amount
//! of input at a time, and never drops a line: an invalid record is
//! copied through unchanged unless the caller asks to drop it (select
//! always does: it writes only what it keeps).
//!
//! ```
//! use epd_core::verbs::{run_verb, Verb, VerbOptions};
//!
//! let input = b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O ; id \"castle\";\n";
//! let mut out = Vec::new();
//! let summary = run_verb(&input[..], &mut out, &Verb::Normalize, &VerbOptions::default(), |_| {}).unwrap();
//! assert_eq!(out, b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"castle\";\n");
//! assert_eq!((summary.records, summary.counts.changed), (1, 1));
//! ```

use std::io::{BufRead, Write};

use crate::pipeline::{self, Config, Interrupted, Job, LineReport, PipelineError, Processor, Summary};
use crate::{ParseMode, Record};

pub mod select;

pub use select::{
    run_select, run_select_until, select_str, Comparison, Condition, LineRange, SelectCounts, SelectError,
    SelectOptions, SelectSummary, Selector,
};

/// What to do with each record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    /// Validate only; write nothing.
    Check,
    /// pfdn: write the canonical form of each valid record.
    Normalize,
    /// pfop: remove the operations with these opcodes, leaving the rest of
    /// the text as it was.
    Purge(Vec<String>),
    /// pfdr: read leniently, repair, write the canonical form.
    Repair,
}

/// Options for [`run_verb`].
#[derive(Clone, Debug)]
pub struct VerbOptions {
    /// How strictly to read (repair is always lenient).
    pub mode: ParseMode,
    /// Leave invalid records out of the output instead of copying them.
    pub drop_invalid: bool,
}

impl Default for VerbOptions {
    fn default() -> VerbOptions {
        VerbOptions { mode: ParseMode::Strict, drop_invalid: false }
    }
}

/// What the stream verbs count beyond the pipeline's line accounting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerbCounts {
    /// Records the verb changed (written otherwise than they were read).
    pub changed: u64,
}

impl core::ops::AddAssign for VerbCounts {
    fn add_assign(&mut self, other: VerbCounts) {
        self.changed += other.changed;
    }
}

/// The summary of a stream verb's run.
pub type VerbSummary = Summary<VerbCounts>;

/// A stream verb as a [`Processor`] of the line pipeline.
#[derive(Clone, Debug)]
pub struct StreamVerb {
    verb: Verb,
    mode: ParseMode,
}

impl StreamVerb {
    /// The processor of `verb`, reading in `mode` (repair always reads
    /// leniently).
    #[must_use]
    pub fn new(verb: Verb, mode: ParseMode) -> StreamVerb {
        let mode = if verb == Verb::Repair { ParseMode::Lenient } else { mode };
        StreamVerb { verb, mode }
    }
}

impl Processor for StreamVerb {
    type Counts = VerbCounts;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn writes(&self) -> bool {
        self.verb != Verb::Check
    }

    fn copies_canonical(&self) -> bool {
        matches!(self.verb, Verb::Normalize | Verb::Repair | Verb::Check)
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, VerbCounts>) -> Result<(), Interrupted> {
        let Job { text, out, counts, .. } = job;
        match &self.verb {
            Verb::Check => return Ok(()),
            Verb::Purge(ops) => {
                let mut at = 0;
                for r in rec.source_ranges(text, ops) {
                    out.extend_from_slice(&text[at..r.start]);
                    at = r.end;
                }
                out.extend_from_slice(&text[at..]);
            }
            Verb::Normalize | Verb::Repair if rec.is_source_canonical() => {
                // Already canonical: the line as it stands.
                out.extend_from_slice(text);
            }
            Verb::Normalize | Verb::Repair => rec.append_canonical(out),
        }
        if out.as_slice() != text {
            counts.changed += 1;
        }
        out.push(b'\n');
        Ok(())
    }
}

/// Runs a verb over `input` on this thread, writing to `output` and
/// handing each line's diagnostics to `report`. (The CLI runs the same
/// [`StreamVerb`] through [`pipeline::run`], with worker threads and a
/// stop flag.)
///
/// # Errors
/// Only I/O errors, which say whether reading or writing failed; bad
/// records are diagnostics.
pub fn run_verb<R: BufRead, W: Write>(
    input: R,
    output: W,
    verb: &Verb,
    options: &VerbOptions,
    report: impl FnMut(&LineReport<'_>),
) -> Result<VerbSummary, PipelineError> {
    run_verb_until(input, output, verb, options, None, report)
}

/// [`run_verb`], stopping before the next record once `stop` is raised
/// (from another thread, or a signal handler): every record before is
/// written whole, and the summary says [`pipeline::Summary::interrupted`].
///
/// # Errors
/// As [`run_verb`].
pub fn run_verb_until<R: BufRead, W: Write>(
    input: R,
    output: W,
    verb: &Verb,
    options: &VerbOptions,
    stop: Option<&core::sync::atomic::AtomicBool>,
    mut report: impl FnMut(&LineReport<'_>),
) -> Result<VerbSummary, PipelineError> {
    let config = Config { drop_invalid: options.drop_invalid, stop, ..Config::default() };
    let mut proc = StreamVerb::new(verb.clone(), options.mode);
    pipeline::run_serial(input, output, &mut proc, &config, &mut report, &mut |_| {})
}

/// Normalizes a whole text in memory (convenience for tests and small
/// inputs): returns the output and the summary.
#[must_use]
pub fn normalize_str(input: &[u8], mode: ParseMode) -> (Vec<u8>, VerbSummary) {
    let mut out = Vec::new();
    let opts = VerbOptions { mode, drop_invalid: false };
    // Writing to a Vec cannot fail.
    let summary = run_verb(input, &mut out, &Verb::Normalize, &opts, |_| {}).unwrap_or_default();
    (out, summary)
}
