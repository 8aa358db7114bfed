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
//! | [`EngineCommand`] | `--engine`, `--engine-arg` | analyze, target, play |
//! | [`EngineOptions`] | `--threads`, `--hash`, `--option` | analyze, target, play |
//!
//! A flag of one command, or one that means something else in each
//! command that has it (`-q` of analyze, which also hides the progress
//! bar and the summary; the search limits; `-j`, `--timeout`), stays with
//! its command. clap lists a command's flags in the order they are added,
//! so a group is flattened where its flags stood.

use std::path::PathBuf;

use epd_core::ParseMode;
use epd_engine::{Engine, UciConfig, UciEngine};

use crate::diagnostics::{ColorChoice, DiagFormat, Printer};

/// The input files of a verb that reads records.
#[derive(clap::Args, Debug)]
pub struct Files {
    /// Input files; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
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
    /// The printer of these options, colouring text as `color` says.
    #[must_use]
    pub fn printer(&self, color: ColorChoice) -> Printer {
        Printer::new(self.diag.format, self.diag.cap.max_errors, self.quiet, color)
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
    pub file: Option<PathBuf>,
}

/// What becomes of invalid records, for the verbs that write records.
#[derive(clap::Args, Debug, Default)]
pub struct DropInvalid {
    /// Leave invalid records out of the output (default: copy them unchanged).
    #[arg(long)]
    pub drop_invalid: bool,
}

/// The engine to run, and its command line.
#[derive(clap::Args, Debug)]
pub struct EngineCommand {
    /// The engine: `builtin` (the default), or the path of a UCI engine
    /// (a bare name is looked up on PATH and in /usr/games).
    #[arg(long, value_name = "PATH|builtin", default_value = "builtin")]
    pub engine: String,
    /// An argument for the UCI engine's command line (repeatable, in order):
    /// `--engine epd --engine-arg uci` runs `epd uci`.
    #[arg(long = "engine-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub engine_args: Vec<String>,
}

impl EngineCommand {
    /// Starts the engine: `builtin` (one thread, `hash` MiB, default 16,
    /// and the options `epd uci` declares), or a UCI engine by path or
    /// name with its arguments and `options`. Either refuses an option it
    /// does not declare.
    pub fn start(&self, hash: Option<u32>, options: &[(String, String)]) -> anyhow::Result<Box<dyn Engine>> {
        self.start_on(hash, options, &[])
    }

    /// [`EngineCommand::start`], a UCI engine's program pinned to `cpus`
    /// (none: not pinned; the built-in engine runs on its caller's
    /// thread, which the caller pins).
    pub fn start_on(
        &self,
        hash: Option<u32>,
        options: &[(String, String)],
        cpus: &[usize],
    ) -> anyhow::Result<Box<dyn Engine>> {
        if self.engine == "builtin" {
            return Ok(Box::new(epd_engine::Builtin::with_options(hash.unwrap_or(16) as usize, options)?));
        }
        let config = UciConfig {
            args: self.engine_args.clone(),
            options: options.to_vec(),
            cpus: cpus.to_vec(),
            ..UciConfig::new(epd_engine::find_program(&self.engine))
        };
        Ok(Box::new(UciEngine::start(config)?))
    }
}

/// The engine's UCI options.
#[derive(clap::Args, Debug)]
pub struct EngineOptions {
    /// Engine threads (UCI option Threads; the built-in engine uses one).
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// Transposition table size in MiB (UCI option Hash; the built-in
    /// engine's table grows to it as a search needs, from 96 KiB).
    #[arg(long, value_name = "MB")]
    pub hash: Option<u32>,
    /// A UCI option, `NAME=VALUE` (repeatable), sent after Threads and Hash.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

impl EngineOptions {
    /// The UCI options to send, in order: Threads, Hash, MultiPV (above
    /// 1), then each `--option NAME=VALUE`.
    pub fn uci(&self, multipv: u32) -> anyhow::Result<Vec<(String, String)>> {
        let mut v = Vec::new();
        if let Some(t) = self.threads {
            v.push(("Threads".to_owned(), t.to_string()));
        }
        if let Some(h) = self.hash {
            v.push(("Hash".to_owned(), h.to_string()));
        }
        if multipv > 1 {
            v.push(("MultiPV".to_owned(), multipv.to_string()));
        }
        for o in &self.options {
            let Some((name, value)) = o.split_once('=') else { anyhow::bail!("--option {o:?}: expected NAME=VALUE") };
            if name.trim().is_empty() {
                anyhow::bail!("--option {o:?}: the name is empty");
            }
            v.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        Ok(v)
    }
}
