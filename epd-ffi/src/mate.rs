//! The forced-mate prover (pfms, section 7.3) over files and memory.

// C functions take their options as arguments, outputs last.
#![allow(clippy::too_many_arguments)]

use crate::cancel::epd_cancel;
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT};
use crate::ptr::{bytes, owned_string, Out};
use crate::verbs::{io_error, open_pair};
use ::epd_engine::mate::{MateOptions, MateProver};
use core::ffi::{c_char, c_int, c_uint, c_ulong};
use core::ptr;
use epd_core::pipeline::{self, Config};
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::Arc;

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
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input: impl Read + Send,
    output: impl Write,
    cancel: *const epd_cancel,
    out_summary: *mut epd_mate_summary,
    what: &str,
) -> Result<()> {
    let cancel = crate::cancel::watched(cancel)?;
    if !(1..=60).contains(&moves) {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("moves is {moves}: it must be 1 to 60")));
    }
    let options = MateOptions { moves, single_pass: single_pass != 0, table_bits: 20, timeout: None };
    let mut workers: Vec<MateProver<'_>> = (0..jobs.max(1))
        .map(|_| match &cancel {
            Some(flag) => MateProver::new(&options).with_stop(Arc::clone(flag)),
            None => MateProver::new(&options),
        })
        .collect();
    let input = BufReader::with_capacity(64 << 10, input);
    let output = BufWriter::with_capacity(64 << 10, output);
    let config = Config { flush_each: true, stop: cancel.as_deref(), ..Config::default() };
    let s = pipeline::run(input, output, &mut workers, &config, &|_, _| {}, &mut |_| {}, &mut |_| {})
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
/// at most `moves` (1 to 60) fullmoves gets dm (the shortest such mate, or
/// with `single_pass` non-zero the spec's one pass: dm `moves` for any
/// mate within it), pm and pv; records keep their order; invalid records
/// are copied through unchanged. `jobs` threads search at once (0 is taken
/// as 1); the output is the same with any number. Counts go to
/// *out_summary unless it is NULL. The status reports only I/O errors and
/// bad arguments.
#[no_mangle]
pub extern "C" fn epd_mate_run_files(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    epd_mate_run_files_cancellable(moves, single_pass, jobs, ptr::null(), input_path, output_path, out_summary)
}

/// As epd_mate_run_files, watching `cancel` (see epd_cancel; NULL: none):
/// a run that sees it raised stops the search in progress (within a few
/// thousand nodes), takes no new record and fails with
/// EPD_STATUS_CANCELLED, the output file holding every record finished
/// before, each whole; *out_summary is then left unwritten.
#[no_mangle]
pub extern "C" fn epd_mate_run_files_cancellable(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    cancel: *const epd_cancel,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let (file, out, what) = open_pair(input_path, output_path)?;
        run_mate(moves, single_pass, jobs, file, out, cancel, out_summary, &what)
    })
}

/// As epd_mate_run_files, over `len` bytes of text at `input`; the output
/// is returned as a new string in *out_text (owned: free it with
/// epd_string_free; it may contain NUL bytes copied from invalid lines, so
/// use *out_len, which receives its length).
#[no_mangle]
pub extern "C" fn epd_mate_run_memory(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    epd_mate_run_memory_cancellable(moves, single_pass, jobs, ptr::null(), input, len, out_text, out_len, out_summary)
}

/// As epd_mate_run_memory, watching `cancel` as
/// epd_mate_run_files_cancellable does; a cancelled run writes none of
/// the out-parameters.
#[no_mangle]
pub extern "C" fn epd_mate_run_memory_cancellable(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    cancel: *const epd_cancel,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() + input.len() / 2);
        run_mate(moves, single_pass, jobs, input, &mut output, cancel, out_summary, "memory")?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
