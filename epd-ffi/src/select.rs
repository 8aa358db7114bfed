//! select (`epd select`): keep the records that match filters, written
//! exactly as they were read, over file paths or memory.

use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT};
use crate::position::{epd_parse_mode, parse_mode};
use crate::ptr::{arg_mut, arg_ref, bytes, c_utf8, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox};
use crate::verbs::{epd_report_callback, open_pair, run_reporting, sat};
use core::ffi::{c_char, c_int, c_ulong, c_void};
use epd_core::verbs::{self, SelectError, SelectOptions, SelectSummary, Selector};
use std::fmt;
use std::io::{Read, Write};

/// The filters and settings of a select run. Created by
/// epd_select_config_new, freed with epd_select_config_free; new settings
/// come as new setter functions, so the ABI never breaks.
///
/// Filters of different kinds must all hold; several filters of one kind
/// (two id patterns, say) match when any of them does; a kind with no
/// filter holds for every record. With no filter at all every valid
/// record is selected.
///
/// Thread safety: may be used from any thread; not changed while a run
/// uses it. The report callback runs on the thread that called
/// epd_select_run_....
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_select_config {
    _private: [u8; 0],
}

impl Castable for epd_select_config {
    type Ownership = OwnershipBox;
    type RustType = SelectConfig;
}

/// The Rust value behind an epd_select_config handle.
pub(crate) struct SelectConfig {
    options: SelectOptions,
    reporter: epd_report_callback,
    reporter_user: *mut c_void,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl fmt::Debug for SelectConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SelectConfig").field("options", &self.options).finish_non_exhaustive()
    }
}

/// Counts from one select run. Counts beyond the range of unsigned long
/// (2^32 - 1 on some platforms) saturate.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_select_summary {
    /// Lines read (blank ones included).
    pub lines: c_ulong,
    /// Records read (non-blank lines).
    pub records: c_ulong,
    /// Records with at least one error (never selected).
    pub invalid: c_ulong,
    /// Records selected (written).
    pub selected: c_ulong,
    /// Warnings reported.
    pub warnings: c_ulong,
    /// Errors reported.
    pub errors: c_ulong,
}

impl From<&SelectSummary> for epd_select_summary {
    fn from(s: &SelectSummary) -> epd_select_summary {
        epd_select_summary {
            lines: sat(s.lines),
            records: sat(s.records),
            invalid: sat(s.invalid),
            selected: sat(s.counts.selected),
            warnings: sat(s.warnings),
            errors: sat(s.errors),
        }
    }
}

/// A filter refused: EPD_STATUS_INVALID_ARGUMENT with the column of the
/// problem in the text given, when there is one.
fn refused(e: &SelectError) -> Error {
    let err = Error::new(EPD_STATUS_INVALID_ARGUMENT, e.to_string());
    match e.column() {
        Some(column) => err.at(column),
        None => err,
    }
}

/// Checks `options` as a run would.
fn check(options: &SelectOptions) -> Result<()> {
    Selector::new(options).map(drop).map_err(|e| refused(&e))
}

/// Creates select settings in *out_config with the defaults: strict
/// reading, no filter (every valid record is selected), not inverted, no
/// report callback. Free it with epd_select_config_free.
#[no_mangle]
pub extern "C" fn epd_select_config_new(out_config: *mut *mut epd_select_config) -> epd_status {
    guard(|| {
        let out = Out::new(out_config, "out_config")?;
        out.set(to_boxed(SelectConfig {
            options: SelectOptions::default(),
            reporter: None,
            reporter_user: core::ptr::null_mut(),
            cancel: None,
        }));
        Ok(())
    })
}

/// Frees select settings. Does nothing if `config` is NULL.
#[no_mangle]
pub extern "C" fn epd_select_config_free(config: *mut epd_select_config) {
    free_boxed(config);
}

/// Sets how strictly records are read: EPD_PARSE_STRICT (the default) or
/// EPD_PARSE_LENIENT. Invalid records are never selected.
#[no_mangle]
pub extern "C" fn epd_select_config_set_mode(config: *mut epd_select_config, mode: epd_parse_mode) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.options.mode = parse_mode(mode)?;
        Ok(())
    })
}

/// Adds an id pattern (NUL-terminated UTF-8): a glob ("WAC.0*": `*` any
/// text, `?` one character) matched against the whole id, or, after
/// epd_select_config_set_regex, a regular expression found anywhere in
/// the id. Records without id never match. A pattern that is not a
/// regular expression while regular expressions are on gives
/// EPD_STATUS_INVALID_ARGUMENT, and is not added.
#[no_mangle]
pub extern "C" fn epd_select_config_add_id(config: *mut epd_select_config, pattern: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let pattern = c_utf8(pattern, "pattern")?.to_owned();
        if c.options.regex {
            check(&SelectOptions { ids: vec![pattern.clone()], regex: true, ..SelectOptions::default() })?;
        }
        c.options.ids.push(pattern);
        Ok(())
    })
}

/// Non-zero `regex` reads the id patterns (those added already too) as
/// regular expressions; 0 (the default) as globs. Turning it on when a
/// pattern added already is not a regular expression gives
/// EPD_STATUS_INVALID_ARGUMENT and leaves the setting off.
#[no_mangle]
pub extern "C" fn epd_select_config_set_regex(config: *mut epd_select_config, regex: c_int) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        if regex != 0 {
            check(&SelectOptions { ids: c.options.ids.clone(), regex: true, ..SelectOptions::default() })?;
        }
        c.options.regex = regex != 0;
        Ok(())
    })
}

/// Adds a range of input lines (NUL-terminated): "A..B", "A..", "..B" or
/// "N", 1-based and inclusive, as diagnostics number lines. A range that
/// does not read or is empty ("0", "5..3") gives
/// EPD_STATUS_INVALID_ARGUMENT, with its column in
/// epd_last_error_column().
#[no_mangle]
pub extern "C" fn epd_select_config_add_lines(config: *mut epd_select_config, range: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let range = c_utf8(range, "range")?.parse().map_err(|e| refused(&e))?;
        c.options.lines.push(range);
        Ok(())
    })
}

/// Adds an opcode (NUL-terminated, for example "dm") that records must
/// have; EPD_STATUS_INVALID_ARGUMENT if it is not an opcode.
#[no_mangle]
pub extern "C" fn epd_select_config_add_has(config: *mut epd_select_config, opcode: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let opcode = c_utf8(opcode, "opcode")?.to_owned();
        check(&SelectOptions { has: vec![opcode.clone()], ..SelectOptions::default() })?;
        c.options.has.push(opcode);
        Ok(())
    })
}

/// Adds an opcode (NUL-terminated, for example "am") that records must
/// lack; EPD_STATUS_INVALID_ARGUMENT if it is not an opcode.
#[no_mangle]
pub extern "C" fn epd_select_config_add_lacks(config: *mut epd_select_config, opcode: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let opcode = c_utf8(opcode, "opcode")?.to_owned();
        check(&SelectOptions { lacks: vec![opcode.clone()], ..SelectOptions::default() })?;
        c.options.lacks.push(opcode);
        Ok(())
    })
}

/// Adds a condition on operands (NUL-terminated): "OPCODE=VALUE" or
/// "OPCODE!=VALUE" (some operand equal, or none; moves are compared as
/// moves, so "bm=Nf3" also finds bm Ng1f3), or "<", "<=", ">", ">="
/// against an integer ("ce>100", "acd>=12", "dm<=3"). A record without
/// the opcode never satisfies it. A condition that does not read gives
/// EPD_STATUS_INVALID_ARGUMENT, with the column of the problem in
/// epd_last_error_column() (4 for "ce>x").
#[no_mangle]
pub extern "C" fn epd_select_config_add_where(config: *mut epd_select_config, condition: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let condition = c_utf8(condition, "condition")?.parse().map_err(|e| refused(&e))?;
        c.options.conditions.push(condition);
        Ok(())
    })
}

/// Non-zero `invert` selects the valid records that do not match; 0 (the
/// default) those that do.
#[no_mangle]
pub extern "C" fn epd_select_config_set_invert(config: *mut epd_select_config, invert: c_int) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.options.invert = invert != 0;
        Ok(())
    })
}

/// Sets the callback that receives every diagnostic (NULL for none).
/// `user` is passed to it unchanged and must stay valid while runs use
/// this config.
#[no_mangle]
pub extern "C" fn epd_select_config_set_reporter(
    config: *mut epd_select_config,
    callback: epd_report_callback,
    user: *mut c_void,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.reporter = callback;
        c.reporter_user = user;
        Ok(())
    })
}

fn run(
    config: &SelectConfig,
    selector: &Selector,
    input: impl Read,
    output: impl Write,
    out_summary: *mut epd_select_summary,
    what: &str,
) -> Result<()> {
    let stop = config.cancel.as_deref();
    let summary = run_reporting(config.reporter, config.reporter_user, input, output, what, |i, o, report| {
        verbs::run_select_until(i, o, selector, stop, report)
    })?;
    if summary.interrupted {
        return Err(crate::cancel::cancelled(&format!("{what}: {} records read", summary.records)));
    }
    if let Some(o) = Out::optional(out_summary) {
        o.set(epd_select_summary::from(&summary));
    }
    Ok(())
}

/// Watches `cancel` (see epd_cancel; NULL: none) in the runs of this
/// configuration from now on, as epd_verb_config_set_cancel does: a run
/// that sees it raised stops before the next record and fails with
/// EPD_STATUS_CANCELLED, its output holding every record kept before,
/// each whole. Replaces the flag set before.
#[no_mangle]
pub extern "C" fn epd_select_config_set_cancel(
    config: *mut epd_select_config,
    cancel: *const crate::cancel::epd_cancel,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.cancel = crate::cancel::watched(cancel)?;
        Ok(())
    })
}

/// Selects from the file at `input_path` into the file at `output_path`
/// (created or truncated; NUL-terminated paths naming different files,
/// else EPD_STATUS_INVALID_ARGUMENT), as `epd select` does: the valid
/// records that match are written byte for byte as read (a CRLF line keeps
/// its CR), in order; blank lines and invalid records are left out (their
/// diagnostics go to the report callback). The counts go to *out_summary
/// unless it is NULL. Bad records are diagnostics, not failures: the
/// status reports only I/O errors (EPD_STATUS_IO, with the path in the
/// message) and a report callback that asked to stop
/// (EPD_STATUS_CALLBACK). Memory stays bounded whatever the input.
#[no_mangle]
pub extern "C" fn epd_select_run_files(
    config: *const epd_select_config,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_select_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let selector = Selector::new(&c.options).map_err(|e| refused(&e))?;
        let (file, out, what) = open_pair(input_path, output_path)?;
        run(c, &selector, file, out, out_summary, &what)
    })
}

/// As epd_select_run_files, over `len` bytes of text at `input`; the
/// records selected are returned as a new string in *out_text (owned: free
/// it with epd_string_free; use *out_len, which receives its length: the
/// text is NUL-terminated but may hold NUL bytes of the input). Counts go
/// to *out_summary unless it is NULL.
#[no_mangle]
pub extern "C" fn epd_select_run_memory(
    config: *const epd_select_config,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_select_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let selector = Selector::new(&c.options).map_err(|e| refused(&e))?;
        let mut output = Vec::new();
        run(c, &selector, input, &mut output, out_summary, "memory")?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
