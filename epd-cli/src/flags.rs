//! The flags that several commands take, each defined once: clap `Args`
//! groups that the commands flatten, so that a flag has one name, one
//! default, one meaning and one help text wherever it appears.
//!
//! | group | flags | flattened into |
//! | --- | --- | --- |
//! | [`Files`] | `[FILE]...` | [`Reading`], analyze, target, mate, convert |
//! | [`Reading`] | files, `--strict`, `--lenient`, [`Diagnostics`], `-j` | check, normalize, repair, purge, select |
//! | [`Diagnostics`] | `-q`, [`DiagArgs`] | [`Reading`], mate |
//! | [`DiagArgs`] | `--format`, [`MaxErrors`] | [`Diagnostics`], analyze, target |
//! | [`MaxErrors`] | `--max-errors` | [`DiagArgs`], report |
//! | [`Output`] | `-o` | normalize, repair, purge, select, analyze, target, mate, from-pgn, report |
//! | [`DropInvalid`] | `--drop-invalid` | normalize, repair, purge, analyze, target, mate |
//!
//! A flag of one command, or one that means something else in each
//! command that has it (`-q` of analyze, which also hides the progress
//! bar and the summary; the search limits; `-j`, `--timeout`), stays with
//! its command. clap lists a command's flags in the order they are added,
//! so a group is flattened where its flags stood.

use epd_core::ParseMode;

use crate::diagnostics::{DiagFormat, Printer};

/// The input files of a verb that reads records.
#[derive(clap::Args, Debug)]
pub struct Files {
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
}

/// How the record verbs read (the stream verbs, check and select): the
/// files, the parse mode, the diagnostics and the worker threads.
#[derive(clap::Args, Debug)]
pub struct Reading {
    #[command(flatten)]
    pub input: Files,
    /// Follow the specification to the letter (default for all but repair).
    #[arg(long, conflicts_with = "lenient")]
    pub strict: bool,
    /// Accept the dialects real files contain, reporting each change.
    #[arg(long)]
    pub lenient: bool,
    #[command(flatten)]
    pub diagnostics: Diagnostics,
    /// Worker threads; output and diagnostics are the same as with one.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
}

impl Reading {
    /// The parse mode: `--strict`, `--lenient`, else the verb's `default`.
    #[must_use]
    pub fn mode(&self, default: ParseMode) -> ParseMode {
        if self.strict {
            ParseMode::Strict
        } else if self.lenient {
            ParseMode::Lenient
        } else {
            default
        }
    }
}

/// Which diagnostics are shown, and how.
#[derive(clap::Args, Debug)]
pub struct Diagnostics {
    /// Print no warnings, only errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    #[command(flatten)]
    pub diag: DiagArgs,
}

impl Diagnostics {
    /// The printer of these options.
    #[must_use]
    pub fn printer(&self) -> Printer {
        Printer::new(&self.diag, self.quiet)
    }
}

/// The diagnostics options of every verb that reads records.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct DiagArgs {
    /// Diagnostics format on standard error.
    #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
    pub format: DiagFormat,
    #[command(flatten)]
    pub cap: MaxErrors,
}

/// The cap on the diagnostics shown.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct MaxErrors {
    /// Show at most N diagnostics, then count the rest (0: show all).
    /// Default: 200 when standard error is a terminal and the format is
    /// text, else all.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,
}

/// Where the output goes (the flag's id is `output`).
#[derive(clap::Args, Debug, Default)]
pub struct Output {
    /// Write to FILE instead of standard output.
    #[arg(id = "output", short = 'o', long = "output", value_name = "FILE")]
    pub file: Option<String>,
}

/// What becomes of invalid records, for the verbs that write records.
#[derive(clap::Args, Debug, Default)]
pub struct DropInvalid {
    /// Leave invalid records out of the output (default: copy them unchanged).
    #[arg(long)]
    pub drop_invalid: bool,
}
