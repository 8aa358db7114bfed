//! The forced-mate prover (pfms, section 7.3) over files and memory,
//! with its settings in a configuration handle.

use crate::cancel::epd_cancel;
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT};
use crate::ptr::{arg_mut, arg_ref, bytes, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox};
use crate::verbs::{io_error, open_pair};
use ::epd_engine::mate::{MateOptions, MateProver};
use core::ffi::{c_char, c_int, c_uint, c_ulong};
use epd_core::pipeline::{self, Config};
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The settings of a pfms run (epd_mate_run_files, epd_mate_run_memory):
/// the mate length, one pass or the shortest mate, the number of threads
/// and a cancel flag. Created by epd_mate_config_new, freed with
/// epd_mate_config_free; new settings come as new setter functions, so
/// the ABI never breaks.
///
/// Thread safety: may be used from any thread; not changed while a run
/// uses it. Runs may share it (it is read-only to them).
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_mate_config {
    _private: [u8; 0],
}

impl Castable for epd_mate_config {
    type Ownership = OwnershipBox;
    type RustType = MateConfig;
}

/// The Rust value behind an epd_mate_config handle.
#[derive(Debug)]
pub(crate) struct MateConfig {
    moves: u32,
    single_pass: bool,
    jobs: u32,
    cancel: Option<Arc<AtomicBool>>,
}

/// Creates the settings of a search for mates in at most `moves` (1 to
/// 60) fullmoves in *out_config (free it with epd_mate_config_free), with
/// the defaults: the shortest mate, one thread, no cancel flag. A `moves`
/// out of range gives EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_mate_config_new(moves: c_uint, out_config: *mut *mut epd_mate_config) -> epd_status {
    guard(|| {
        let out = Out::new(out_config, "out_config")?;
        if !(1..=60).contains(&moves) {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("moves is {moves}: it must be 1 to 60")));
        }
        out.set(to_boxed(MateConfig { moves, single_pass: false, jobs: 1, cancel: None }));
        Ok(())
    })
}

/// Frees mate settings. Does nothing if `config` is NULL.
#[no_mangle]
pub extern "C" fn epd_mate_config_free(config: *mut epd_mate_config) {
    free_boxed(config);
}

/// Non-zero `single_pass` asks for the specification's one pass: dm N
/// for any mate within N, the mate length of epd_mate_config_new; 0 (the
/// default) for the shortest mate.
#[no_mangle]
pub extern "C" fn epd_mate_config_set_single_pass(config: *mut epd_mate_config, single_pass: c_int) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.single_pass = single_pass != 0;
        Ok(())
    })
}

/// Sets how many threads search at once (1 by default; 0 is taken as 1).
/// The output is the same with any number.
#[no_mangle]
pub extern "C" fn epd_mate_config_set_jobs(config: *mut epd_mate_config, jobs: c_uint) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.jobs = jobs.max(1);
        Ok(())
    })
}

/// Watches `cancel` (see epd_cancel; NULL: none) in the runs of this
/// configuration from now on, as epd_verb_config_set_cancel does: a run
/// that sees it raised stops the search in progress (within a few
/// thousand nodes), takes no new record and fails with
/// EPD_STATUS_CANCELLED, its output holding every record finished before,
/// each whole; the out-parameters are then left unwritten. The
/// configuration keeps a reference of its own: the handle may be freed
/// before it. Replaces the flag set before.
#[no_mangle]
pub extern "C" fn epd_mate_config_set_cancel(config: *mut epd_mate_config, cancel: *const epd_cancel) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.cancel = crate::cancel::watched(cancel)?;
        Ok(())
    })
}

/// Counts from epd_mate_run_files and epd_mate_run_memory.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_mate_summary {
    /// Lines read (blank ones included).
    pub lines: c_ulong,
    /// Records read (non-blank lines).
    pub records: c_ulong,
    /// Records with at least one error (copied through unchanged).
    pub invalid: c_ulong,
    /// Records searched.
    pub searched: c_ulong,
    /// Records skipped: they already held a dm of at most `moves`.
    pub skipped: c_ulong,
    /// Records given a dm (a forced mate of at most `moves` moves).
    pub solved: c_ulong,
    /// Nodes searched, all records.
    pub nodes: c_ulong,
}

fn run_mate(
    config: &MateConfig,
    input: impl Read + Send,
    output: impl Write,
    out_summary: *mut epd_mate_summary,
    what: &str,
) -> Result<()> {
    let options = MateOptions { moves: config.moves, single_pass: config.single_pass, table_bits: 20, timeout: None };
    let mut workers: Vec<MateProver<'_>> = (0..config.jobs.max(1))
        .map(|_| match &config.cancel {
            Some(flag) => MateProver::new(&options).with_stop(Arc::clone(flag)),
            None => MateProver::new(&options),
        })
        .collect();
    let input = BufReader::with_capacity(64 << 10, input);
    let output = BufWriter::with_capacity(64 << 10, output);
    let run = Config { flush_each: true, stop: config.cancel.as_deref(), ..Config::default() };
    let s = pipeline::run(input, output, &mut workers, &run, &|_, _| {}, &mut |_| {}, &mut |_| {})
        .map_err(|err| io_error(&err, what))?;
    if s.interrupted {
        return Err(crate::cancel::cancelled(&format!("{what}: {} records read", s.records)));
    }
    if let Some(o) = Out::optional(out_summary) {
        let sat = |v: u64| c_ulong::try_from(v).unwrap_or(c_ulong::MAX);
        o.set(epd_mate_summary {
            lines: sat(s.lines),
            records: sat(s.records),
            invalid: sat(s.invalid),
            searched: sat(s.counts.searched),
            skipped: sat(s.counts.skipped),
            solved: sat(s.counts.solved.iter().sum()),
            nodes: sat(s.counts.nodes),
        });
    }
    Ok(())
}

/// pfms (section 7.3) over the file at `input_path`, writing the file at
/// `output_path` (created or truncated; NUL-terminated paths naming
/// different files): each valid record whose side to move forces mate in
/// at most N fullmoves (the mate length of epd_mate_config_new) gets dm
/// (the shortest such mate, or with epd_mate_config_set_single_pass the
/// spec's one pass: dm N for any mate within N), pm and pv; records keep
/// their order; invalid records are copied through unchanged. Counts go
/// to *out_summary unless it is NULL. The status reports only I/O errors,
/// bad arguments and a raised cancel flag (epd_mate_config_set_cancel).
#[no_mangle]
pub extern "C" fn epd_mate_run_files(
    config: *const epd_mate_config,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let (file, out, what) = open_pair(input_path, output_path)?;
        run_mate(c, file, out, out_summary, &what)
    })
}

/// As epd_mate_run_files, over `len` bytes of text at `input`; the output
/// is returned as a new string in *out_text (owned: free it with
/// epd_string_free; it may contain NUL bytes copied from invalid lines, so
/// use *out_len, which receives its length).
#[no_mangle]
pub extern "C" fn epd_mate_run_memory(
    config: *const epd_mate_config,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() + input.len() / 2);
        run_mate(c, input, &mut output, out_summary, "memory")?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
