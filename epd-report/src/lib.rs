//! Gastric, the report generator of the EPD specification (§3.3; §9 left
//! its semantics to be defined, and this crate defines them): it reads
//! test-suite results — records carrying `pm` or `pv`, `ce`, `acd`, `acn`,
//! `acs` — and reports on them. It never runs an engine. `epd report` is
//! its command line; the guide is docs/gastric.md in the repository.
//!
//! - a record is **solved** by the rule of §7.5 ([`epd_core::judge`]):
//!   its move (`pm`, else `pv`'s first) is in `bm` when `bm` is present
//!   and not in `am`; the key is the record's own `bm`/`am`/`dm`, or a
//!   separate key file's ([`KeyBook`]) matched by id, else by position;
//! - per run ([`RunStats`]): solved of scored with a Wilson 95 % interval
//!   ([`wilson`]); mates in matetrack's classes; STS points and the
//!   STS-Rating estimate with its interval; themes; time-based scores
//!   (BT-2630, BT-2450, LCT II) from solution times; distributions of
//!   acd, acn, acs and ce ([`Distribution`]); consistency checks with
//!   line numbers (results without acd, acn or acs are one issue per run,
//!   counted: [`MissingCounters`]); notes on the file as a whole
//!   ([`Note`]: a suite with no pm or pv given as results names
//!   `epd target`, which makes them);
//! - between runs ([`Comparison`]): solved by both, by one, by neither,
//!   McNemar's exact test ([`binomial_two_sided`]), the ids newly solved
//!   and newly failed, and paired solve times with a sign test.
//!
//! Records stream through in memory bounded by the number of runs: what
//! grows with the records (ids and positions seen, for duplicates; the
//! ids the report lists; the issues) is spooled to temporary files in
//! sorted chunks past a fixed size, and read back merged.
//!
//! The computation yields plain data ([`Report`], serialisable); the
//! renderers ([`render`]: text, JSON, CSV rows and one self-contained HTML
//! page with inline SVG charts) work over the same data.
//!
//! [`tuning`] reports on a tuning run's history (`epd tune`'s
//! `history.csv`, read from its format): each parameter's course, with its
//! probes, and the iterations' results with their moving average, as text,
//! JSON and a page of the same kind.

mod fields;
mod html;
mod key;
mod measure;
pub mod render;
mod report;
mod run;
mod spool;
mod stats;
pub mod tuning;

pub use key::{position_key, KeyBook, Lookup, Solution};
pub use report::{
    build, copy_records, Comparison, Curves, Input, Options, PairedTimes, RecordSink, Report, MAX_KEPT_DIAGNOSTICS,
    MAX_TIME_PAIRS, SCHEMA,
};
pub use run::{
    cumulative, verdict_str, Dists, Effort, EffortKind, Grouping, IdList, Issue, Issues, Judged, MateClass, Mates,
    MissingCounters, Note, Objective, Points, RunStats, Spread, Theme, Themes, TimeScore, SOLVE_ACD, SOLVE_ACN,
    SOLVE_MS, SOLVE_TIME_UNIT,
};
pub use stats::{binomial_two_sided, wilson, Distribution, Summary, EXACT_BELOW, Z95};
