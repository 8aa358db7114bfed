//! The stream verbs: check, normalize (pfdn), purge (pfop) and repair
//! (pfdr), over file paths, read/write callbacks or memory.

use crate::diag::{epd_diagnostic, Owned};
use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_CALLBACK, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NULL_POINTER,
};
use crate::position::{epd_parse_mode, parse_mode};
use crate::ptr::{
    arg_mut, arg_ref, bytes, c_str, c_utf8, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox,
};
use core::cell::Cell;
use core::ffi::{c_char, c_int, c_ulong, c_void};
use epd_core::pipeline::{LineReport, PipelineError};
use epd_core::verbs::{self, Verb, VerbOptions, VerbSummary};
use epd_core::{is_valid_opcode, ParseMode};
use std::fmt;
use std::io::{self, BufReader, BufWriter, Read, Write};

/// Which verb epd_verb_config runs.
#[allow(non_camel_case_types)]
pub type epd_verb = c_int;
/// Validate only: report diagnostics, write nothing.
pub const EPD_VERB_CHECK: epd_verb = 0;
/// pfdn: write the canonical form of each valid record (section 7.1).
pub const EPD_VERB_NORMALIZE: epd_verb = 1;
/// pfop: remove the operations named by epd_verb_config_add_purge_opcode,
/// leaving the rest of each line as written (section 7.4).
pub const EPD_VERB_PURGE: epd_verb = 2;
/// pfdr: read leniently, repair, write the canonical form.
pub const EPD_VERB_REPAIR: epd_verb = 3;

/// Reads up to `len` bytes into `buf`, stores how many in *out_read (0 at
/// the end of the input) and returns 0; returns non-zero on failure (the
/// run then stops with EPD_STATUS_CALLBACK). `user` is the pointer given
/// with the callback.
#[allow(non_camel_case_types)]
pub type epd_read_callback =
    Option<unsafe extern "C" fn(user: *mut c_void, buf: *mut c_char, len: usize, out_read: *mut usize) -> c_int>;

/// Writes up to `len` bytes from `buf`, stores how many in *out_written
/// (at least 1 when `len` > 0) and returns 0; returns non-zero on failure
/// (the run then stops with EPD_STATUS_CALLBACK).
#[allow(non_camel_case_types)]
pub type epd_write_callback =
    Option<unsafe extern "C" fn(user: *mut c_void, buf: *const c_char, len: usize, out_written: *mut usize) -> c_int>;

/// Receives one diagnostic of a verb run with the line it concerns (`len`
/// bytes at `line`, not NUL-terminated). Everything is borrowed for the
/// duration of the call. Return 0 to go on, non-zero to stop the run
/// (which then returns EPD_STATUS_CALLBACK; no further callback is made).
#[allow(non_camel_case_types)]
pub type epd_report_callback = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        diagnostic: *const epd_diagnostic,
        line: *const c_char,
        len: usize,
    ) -> c_int,
>;

/// Counts from one verb run. Counts beyond the range of unsigned long
/// (2^32 - 1 on some platforms) saturate.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_verb_summary {
    /// Lines read (blank ones included).
    pub lines: c_ulong,
    /// Records read (non-blank lines).
    pub records: c_ulong,
    /// Records with at least one error.
    pub invalid: c_ulong,
    /// Records the verb changed.
    pub changed: c_ulong,
    /// Warnings reported.
    pub warnings: c_ulong,
    /// Errors reported.
    pub errors: c_ulong,
}

pub(crate) fn sat(v: u64) -> c_ulong {
    c_ulong::try_from(v).unwrap_or(c_ulong::MAX)
}

impl From<&VerbSummary> for epd_verb_summary {
    fn from(s: &VerbSummary) -> epd_verb_summary {
        epd_verb_summary {
            lines: sat(s.lines),
            records: sat(s.records),
            invalid: sat(s.invalid),
            changed: sat(s.counts.changed),
            warnings: sat(s.warnings),
            errors: sat(s.errors),
        }
    }
}

/// The settings of a verb run: the verb, the reading mode, what to do with
/// invalid records, the opcodes to purge and a report callback. Created by
/// epd_verb_config_new, freed with epd_verb_config_free; new settings come
/// as new setter functions, so the ABI never breaks.
///
/// Thread safety: may be used from any thread; not changed while a run
/// uses it. The report callback runs on the thread that called
/// epd_verb_run_....
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_verb_config {
    _private: [u8; 0],
}

impl Castable for epd_verb_config {
    type Ownership = OwnershipBox;
    type RustType = VerbConfig;
}

/// The Rust value behind an epd_verb_config handle.
pub(crate) struct VerbConfig {
    verb: epd_verb,
    mode: ParseMode,
    drop_invalid: bool,
    purge: Vec<String>,
    reporter: epd_report_callback,
    reporter_user: *mut c_void,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl fmt::Debug for VerbConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerbConfig")
            .field("verb", &self.verb)
            .field("mode", &self.mode)
            .field("drop_invalid", &self.drop_invalid)
            .field("purge", &self.purge)
            .finish_non_exhaustive()
    }
}

/// Creates the settings for `verb` (EPD_VERB_CHECK, EPD_VERB_NORMALIZE,
/// EPD_VERB_PURGE or EPD_VERB_REPAIR) in *out_config, with the defaults:
/// strict reading (repair always reads leniently), invalid records copied
/// through unchanged, nothing to purge, no report callback. Free it with
/// epd_verb_config_free.
#[no_mangle]
pub extern "C" fn epd_verb_config_new(verb: epd_verb, out_config: *mut *mut epd_verb_config) -> epd_status {
    guard(|| {
        let out = Out::new(out_config, "out_config")?;
        if !(EPD_VERB_CHECK..=EPD_VERB_REPAIR).contains(&verb) {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown verb {verb}")));
        }
        out.set(to_boxed(VerbConfig {
            verb,
            mode: ParseMode::Strict,
            drop_invalid: false,
            purge: Vec::new(),
            reporter: None,
            reporter_user: core::ptr::null_mut(),
            cancel: None,
        }));
        Ok(())
    })
}

/// Frees verb settings. Does nothing if `config` is NULL.
#[no_mangle]
pub extern "C" fn epd_verb_config_free(config: *mut epd_verb_config) {
    free_boxed(config);
}

/// Sets how strictly records are read: EPD_PARSE_STRICT (the default) or
/// EPD_PARSE_LENIENT. Ignored by EPD_VERB_REPAIR, which is always lenient.
#[no_mangle]
pub extern "C" fn epd_verb_config_set_mode(config: *mut epd_verb_config, mode: epd_parse_mode) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.mode = parse_mode(mode)?;
        Ok(())
    })
}

/// Non-zero `drop_invalid` leaves invalid records out of the output; 0
/// (the default) copies them through unchanged, so no line is lost.
#[no_mangle]
pub extern "C" fn epd_verb_config_set_drop_invalid(config: *mut epd_verb_config, drop_invalid: c_int) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.drop_invalid = drop_invalid != 0;
        Ok(())
    })
}

/// Adds an opcode (NUL-terminated, for example "acn") to the operations
/// EPD_VERB_PURGE removes.
#[no_mangle]
pub extern "C" fn epd_verb_config_add_purge_opcode(config: *mut epd_verb_config, opcode: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let name = c_utf8(opcode, "opcode")?;
        if !is_valid_opcode(name.as_bytes()) {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{name:?} is not an opcode")));
        }
        c.purge.push(name.to_owned());
        Ok(())
    })
}

/// Sets the callback that receives every diagnostic (NULL for none).
/// `user` is passed to it unchanged and must stay valid while runs use
/// this config.
#[no_mangle]
pub extern "C" fn epd_verb_config_set_reporter(
    config: *mut epd_verb_config,
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

/// Why a callback stopped the run.
#[derive(Debug)]
struct CallbackFailed(String);

impl fmt::Display for CallbackFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CallbackFailed {}

fn callback_failed(what: String) -> io::Error {
    io::Error::other(CallbackFailed(what))
}

/// A reader or writer that fails once the reporter asked to stop.
pub(crate) struct Stoppable<'s, T> {
    inner: T,
    stop: &'s Cell<bool>,
}

impl<T: Read> Read for Stoppable<'_, T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.get() {
            return Err(callback_failed("the report callback stopped the run".into()));
        }
        self.inner.read(buf)
    }
}

impl<T: Write> Write for Stoppable<'_, T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.stop.get() {
            return Err(callback_failed("the report callback stopped the run".into()));
        }
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

struct CallbackReader {
    f: unsafe extern "C" fn(*mut c_void, *mut c_char, usize, *mut usize) -> c_int,
    user: *mut c_void,
}

impl Read for CallbackReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0usize;
        // SAFETY: the caller's read callback, given its own `user` pointer,
        // a buffer of `buf.len()` writable bytes and a valid out-pointer, as
        // epd_read_callback documents; what it writes is checked below.
        let rc = unsafe { (self.f)(self.user, buf.as_mut_ptr().cast(), buf.len(), &mut n) };
        if rc != 0 {
            return Err(callback_failed(format!("the read callback returned {rc}")));
        }
        if n > buf.len() {
            return Err(callback_failed(format!("the read callback claimed {n} bytes of {}", buf.len())));
        }
        Ok(n)
    }
}

struct CallbackWriter {
    f: unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut usize) -> c_int,
    user: *mut c_void,
}

impl Write for CallbackWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut n = 0usize;
        // SAFETY: the caller's write callback, given its own `user` pointer,
        // `buf.len()` readable bytes and a valid out-pointer, as
        // epd_write_callback documents; its count is checked below.
        let rc = unsafe { (self.f)(self.user, buf.as_ptr().cast(), buf.len(), &mut n) };
        if rc != 0 {
            return Err(callback_failed(format!("the write callback returned {rc}")));
        }
        if n == 0 || n > buf.len() {
            return Err(callback_failed(format!("the write callback claimed {n} bytes of {}", buf.len())));
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub(crate) fn io_error(e: &PipelineError, what: &str) -> Error {
    match e.io().get_ref().and_then(|inner| inner.downcast_ref::<CallbackFailed>()) {
        Some(cb) => Error::new(EPD_STATUS_CALLBACK, cb.0.clone()),
        None => Error::io(format!("{what}: {e}"), e.io()),
    }
}

/// Runs `body` over `input` and `output` (buffered), handing each line's
/// diagnostics to the report `callback` (if any) with `user`: once the
/// callback asks to stop, reading and writing fail and the run ends with
/// EPD_STATUS_CALLBACK. `what` names the run in I/O error messages.
pub(crate) fn run_reporting<I: Read, O: Write, S>(
    callback: epd_report_callback,
    user: *mut c_void,
    input: I,
    output: O,
    what: &str,
    body: impl FnOnce(
        BufReader<Stoppable<'_, I>>,
        BufWriter<Stoppable<'_, O>>,
        &mut dyn FnMut(&LineReport<'_>),
    ) -> core::result::Result<S, PipelineError>,
) -> Result<S> {
    let stop = Cell::new(false);
    let input = BufReader::with_capacity(64 << 10, Stoppable { inner: input, stop: &stop });
    let output = BufWriter::with_capacity(64 << 10, Stoppable { inner: output, stop: &stop });
    let mut report = |r: &LineReport<'_>| {
        let Some(cb) = callback else { return };
        for d in r.diagnostics {
            if stop.get() {
                return;
            }
            let owned = Owned::new(d, r.line_no);
            let view = owned.view();
            // SAFETY: the caller's report callback with its own `user`
            // pointer, a diagnostic and a line borrowed for the call, as
            // epd_report_callback documents.
            if unsafe { cb(user, &view, r.text.as_ptr().cast(), r.text.len()) } != 0 {
                stop.set(true);
            }
        }
    };
    let summary = body(input, output, &mut report).map_err(|e| io_error(&e, what))?;
    if stop.get() {
        return Err(Error::new(EPD_STATUS_CALLBACK, "the report callback stopped the run"));
    }
    Ok(summary)
}

fn run(
    config: &VerbConfig,
    input: impl Read,
    output: impl Write,
    out_summary: *mut epd_verb_summary,
    what: &str,
) -> Result<()> {
    let verb = match config.verb {
        EPD_VERB_CHECK => Verb::Check,
        EPD_VERB_NORMALIZE => Verb::Normalize,
        EPD_VERB_PURGE => Verb::Purge(config.purge.clone()),
        _ => Verb::Repair,
    };
    let options = VerbOptions { mode: config.mode, drop_invalid: config.drop_invalid };
    let stop = config.cancel.as_deref();
    let summary = run_reporting(config.reporter, config.reporter_user, input, output, what, |i, o, report| {
        verbs::run_verb_until(i, o, &verb, &options, stop, report)
    })?;
    if summary.interrupted {
        return Err(crate::cancel::cancelled(&format!("{what}: {} records read", summary.records)));
    }
    if let Some(o) = Out::optional(out_summary) {
        o.set(epd_verb_summary::from(&summary));
    }
    Ok(())
}

#[cfg(unix)]
pub(crate) fn path_of(bytes: &[u8]) -> Result<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Ok(std::ffi::OsStr::from_bytes(bytes).into())
}

#[cfg(not(unix))]
pub(crate) fn path_of(bytes: &[u8]) -> Result<std::path::PathBuf> {
    Ok(crate::ptr::utf8(bytes, "path")?.into())
}

/// Opens the input and creates (or truncates) the output of a file verb
/// from two NUL-terminated paths, refusing one file as both; also gives
/// the run's name for messages ("IN -> OUT").
pub(crate) fn open_pair(
    input_path: *const c_char,
    output_path: *const c_char,
) -> Result<(std::fs::File, std::fs::File, String)> {
    let input = path_of(c_str(input_path, "input_path")?)?;
    let output = path_of(c_str(output_path, "output_path")?)?;
    let same = std::fs::canonicalize(&input).ok().zip(std::fs::canonicalize(&output).ok());
    if same.is_some_and(|(a, b)| a == b) {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{} is both input and output", input.display())));
    }
    let file =
        std::fs::File::open(&input).map_err(|e| Error::io(format!("cannot open {}: {e}", input.display()), &e))?;
    let out = std::fs::File::create(&output)
        .map_err(|e| Error::io(format!("cannot create {}: {e}", output.display()), &e))?;
    Ok((file, out, format!("{} -> {}", input.display(), output.display())))
}

/// Watches `cancel` (see epd_cancel; NULL: none) in the runs of this
/// configuration from now on: a run that sees it raised, before it
/// starts or between two records, stops there and fails with
/// EPD_STATUS_CANCELLED, its output holding every record before, each
/// whole (the summary is not written). The configuration keeps a
/// reference of its own: the handle may be freed before it. Replaces the
/// flag set before.
#[no_mangle]
pub extern "C" fn epd_verb_config_set_cancel(
    config: *mut epd_verb_config,
    cancel: *const crate::cancel::epd_cancel,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.cancel = crate::cancel::watched(cancel)?;
        Ok(())
    })
}

/// Runs the verb from the file at `input_path` to the file at
/// `output_path` (created or truncated), both NUL-terminated paths. For
/// EPD_VERB_CHECK `output_path` may be NULL (nothing is written). The
/// counts go to *out_summary unless it is NULL. Bad records are
/// diagnostics, not failures: the status reports only I/O errors
/// (EPD_STATUS_IO, with the path in the message) and callbacks that asked
/// to stop (EPD_STATUS_CALLBACK). Memory stays bounded whatever the input
/// (one line at a time; lines over 1 MiB are copied through unparsed).
/// The two paths must name different files (EPD_STATUS_INVALID_ARGUMENT).
#[no_mangle]
pub extern "C" fn epd_verb_run_files(
    config: *const epd_verb_config,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_verb_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let input = path_of(c_str(input_path, "input_path")?)?;
        let output = if output_path.is_null() {
            if c.verb != EPD_VERB_CHECK {
                return Err(Error::new(
                    EPD_STATUS_NULL_POINTER,
                    "output_path is NULL (allowed only for EPD_VERB_CHECK)",
                ));
            }
            None
        } else {
            Some(path_of(c_str(output_path, "output_path")?)?)
        };
        let file =
            std::fs::File::open(&input).map_err(|e| Error::io(format!("cannot open {}: {e}", input.display()), &e))?;
        match output {
            Some(path) => {
                let same = std::fs::canonicalize(&input).ok().zip(std::fs::canonicalize(&path).ok());
                if same.is_some_and(|(a, b)| a == b) {
                    return Err(Error::new(
                        EPD_STATUS_INVALID_ARGUMENT,
                        format!("{} is both input and output", input.display()),
                    ));
                }
                let out = std::fs::File::create(&path)
                    .map_err(|e| Error::io(format!("cannot create {}: {e}", path.display()), &e))?;
                run(c, file, out, out_summary, &format!("{} -> {}", input.display(), path.display()))
            }
            None => run(c, file, io::sink(), out_summary, &input.display().to_string()),
        }
    })
}

/// Runs the verb from a read callback to a write callback (a FILE*, a
/// socket, a buffer: the examples wrap fread and fwrite). `write` may be
/// NULL for EPD_VERB_CHECK. The user pointers are passed to their
/// callbacks unchanged. Counts go to *out_summary unless it is NULL.
#[no_mangle]
pub extern "C" fn epd_verb_run_callbacks(
    config: *const epd_verb_config,
    read: epd_read_callback,
    read_user: *mut c_void,
    write: epd_write_callback,
    write_user: *mut c_void,
    out_summary: *mut epd_verb_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let read = read.ok_or_else(|| Error::new(EPD_STATUS_NULL_POINTER, "read is NULL"))?;
        let input = CallbackReader { f: read, user: read_user };
        match write {
            Some(w) => run(c, input, CallbackWriter { f: w, user: write_user }, out_summary, "callbacks"),
            None if c.verb == EPD_VERB_CHECK => run(c, input, io::sink(), out_summary, "callbacks"),
            None => Err(Error::new(EPD_STATUS_NULL_POINTER, "write is NULL (allowed only for EPD_VERB_CHECK)")),
        }
    })
}

/// Runs the verb over `len` bytes of text at `input` and returns the
/// output as a new string in *out_text (owned: free it with
/// epd_string_free; it may contain NUL bytes copied from invalid input
/// lines, so use *out_len, which receives its length). Counts go to
/// *out_summary unless it is NULL.
#[no_mangle]
pub extern "C" fn epd_verb_run_memory(
    config: *const epd_verb_config,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_verb_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len());
        run(c, input, &mut output, out_summary, "memory")?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
