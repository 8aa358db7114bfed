//! Batches: many lines parsed in one call, through the same line pipeline
//! as the stream verbs, for bindings (Python, Lua, ...) whose cost is per
//! call rather than per byte.

use crate::diag::{epd_diagnostic, Owned};
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_INVALID_RECORD};
use crate::position::{epd_parse_mode, parse_mode};
use crate::ptr::{arg_mut, arg_ref, bytes, free_boxed, lend_mut, to_boxed, Castable, Out, OwnershipBox};
use crate::record::{epd_record, RecordBuf};
use core::ffi::{c_char, c_ulong};
use core::ptr;
use epd_core::pipeline::{self, Config, Interrupted, Job, LineReport, NoCounts, Processor};
use epd_core::{Diagnostic, ParseMode, Record, Severity};
use std::io;

/// One record line of a batch (blank lines are not records and have no
/// entry), in input order. A plain value inside the batch: read it through
/// the array epd_batch_entries gives.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug)]
pub struct epd_batch_entry {
    /// The 1-based line number in the whole input (lines_before plus the
    /// line's number in the text parsed). A lenient record whose string
    /// went on to the next line has the number of its first line.
    pub line: c_ulong,
    /// Index of the entry's first diagnostic (epd_batch_diagnostic).
    pub first_diagnostic: usize,
    /// How many diagnostics the entry has (warnings and errors).
    pub diagnostics: usize,
    /// How many of them are errors: 0 for a valid record (get it with
    /// epd_batch_record), more for an invalid line.
    pub errors: usize,
}

/// The records of a text parsed by epd_batch_parse: one entry per record
/// line with its diagnostics, and the canonical text of each valid record,
/// from which epd_batch_record builds the record when it is first asked
/// for. Freed with epd_batch_free.
///
/// Thread safety: may be used from any thread, from one at a time.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_batch {
    _private: [u8; 0],
}

impl Castable for epd_batch {
    type Ownership = OwnershipBox;
    type RustType = Batch;
}

/// The Rust value behind an epd_batch handle.
#[derive(Debug)]
pub(crate) struct Batch {
    entries: Vec<epd_batch_entry>,
    diagnostics: Vec<Owned>,
    /// Every entry's text, one after the other: the canonical form of a
    /// valid record, the line as read for an invalid one.
    text: Vec<u8>,
    /// Where each entry's text ends in `text`.
    ends: Vec<usize>,
    /// Records built so far, by entry (boxed: their addresses never move).
    records: Vec<Option<Box<RecordBuf>>>,
    /// The mode the text was read in, which its records are built in: a
    /// record read leniently (an unreachable position, say) is written
    /// in a canonical form that only a lenient reading takes back.
    mode: ParseMode,
}

/// Keeps the canonical text of the valid records of a run, with their
/// line numbers and diagnostics (warnings).
struct Collect {
    mode: ParseMode,
    valid: Vec<(u64, usize, Vec<Diagnostic>)>,
    text: Vec<u8>,
}

impl Processor for Collect {
    type Counts = NoCounts;

    fn mode(&self) -> ParseMode {
        self.mode
    }

    fn writes(&self) -> bool {
        false
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, NoCounts>) -> core::result::Result<(), Interrupted> {
        rec.append_canonical(&mut self.text);
        self.valid.push((job.line, self.text.len(), job.diags.clone()));
        Ok(())
    }
}

impl Batch {
    fn parse(text: &[u8], mode: ParseMode, lines_before: u64) -> Result<Batch> {
        let mut collect = Collect { mode, valid: Vec::new(), text: Vec::with_capacity(text.len()) };
        let mut invalid: Vec<(u64, Vec<u8>, Vec<Diagnostic>)> = Vec::new();
        let config = Config { lines_before, ..Config::default() };
        let mut report = |r: &LineReport<'_>| {
            if r.diagnostics.iter().any(|d| d.severity == Severity::Error) {
                invalid.push((r.line_no, r.text.to_vec(), r.diagnostics.to_vec()));
            }
        };
        pipeline::run_serial(text, io::sink(), &mut collect, &config, &mut report, &mut |_| {})
            .map_err(|e| Error::new(EPD_STATUS_INVALID_ARGUMENT, e.to_string()))?;
        let n = collect.valid.len() + invalid.len();
        let mut batch = Batch {
            entries: Vec::with_capacity(n),
            diagnostics: Vec::new(),
            text: Vec::with_capacity(collect.text.len()),
            ends: Vec::with_capacity(n),
            records: Vec::new(),
            mode,
        };
        // Both lists are in line order: merge them.
        let canonical = collect.text;
        let mut start = 0;
        let mut valid = collect.valid.into_iter().peekable();
        let mut invalid = invalid.into_iter().peekable();
        loop {
            let take_valid = match (valid.peek(), invalid.peek()) {
                (Some(v), Some(i)) => v.0 < i.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let first_diagnostic = batch.diagnostics.len();
            let (line, diags) = if take_valid {
                let Some((line, end, diags)) = valid.next() else { break };
                batch.text.extend_from_slice(&canonical[start..end]);
                start = end;
                (line, diags)
            } else {
                let Some((line, text, diags)) = invalid.next() else { break };
                batch.text.extend_from_slice(&text);
                (line, diags)
            };
            batch.ends.push(batch.text.len());
            let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
            batch.diagnostics.extend(diags.iter().map(|d| Owned::new(d, line)));
            batch.entries.push(epd_batch_entry {
                line: c_ulong::try_from(line).unwrap_or(c_ulong::MAX),
                first_diagnostic,
                diagnostics: diags.len(),
                errors,
            });
        }
        Ok(batch)
    }

    fn text_of(&self, index: usize) -> Result<&[u8]> {
        let end = *self.ends.get(index).ok_or_else(|| {
            Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("entry {index} of {}", self.entries.len()))
        })?;
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        Ok(&self.text[start..end])
    }
}

/// Parses every record line of `len` bytes of text at `text` (lines end
/// with LF; a CR before it is whitespace; blank lines are skipped) into a
/// new batch in *out_batch (free it with epd_batch_free). Line numbers
/// start at `lines_before` + 1, so a long input can be parsed a slice of
/// whole lines at a time with its true line numbers. Reading is that of
/// the stream verbs: in EPD_PARSE_LENIENT mode a string continued on the
/// next line is joined; a line over 1 MiB is an error (E003) and not
/// parsed.
///
/// An invalid line is an entry with no record, never a failure: the status
/// reports only bad arguments.
#[no_mangle]
pub extern "C" fn epd_batch_parse(
    text: *const c_char,
    len: usize,
    mode: epd_parse_mode,
    lines_before: c_ulong,
    out_batch: *mut *mut epd_batch,
) -> epd_status {
    guard(|| {
        let text = bytes(text, len, "text")?;
        let mode = parse_mode(mode)?;
        let out = Out::new(out_batch, "out_batch")?;
        let batch = Batch::parse(text, mode, u64::from(lines_before))?;
        out.set(to_boxed(batch));
        Ok(())
    })
}

/// Frees a batch and every record in it. NULL is a no-op.
#[no_mangle]
pub extern "C" fn epd_batch_free(batch: *mut epd_batch) {
    free_boxed(batch);
}

/// Stores in *out_entries a pointer to the batch's entries (borrowed:
/// valid until epd_batch_free; NULL when there are none) and in *out_count
/// how many there are.
#[no_mangle]
pub extern "C" fn epd_batch_entries(
    batch: *const epd_batch,
    out_entries: *mut *const epd_batch_entry,
    out_count: *mut usize,
) -> epd_status {
    guard(|| {
        let b = arg_ref(batch, "batch")?;
        let out_e = Out::new(out_entries, "out_entries")?;
        let out_n = Out::new(out_count, "out_count")?;
        out_e.set(if b.entries.is_empty() { ptr::null() } else { b.entries.as_ptr() });
        out_n.set(b.entries.len());
        Ok(())
    })
}

/// Fills *out_diagnostic with diagnostic `index` of the batch (entries
/// give the range of theirs). Its strings are borrowed: valid until
/// epd_batch_free. An index past the end gives
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_batch_diagnostic(
    batch: *const epd_batch,
    index: usize,
    out_diagnostic: *mut epd_diagnostic,
) -> epd_status {
    guard(|| {
        let b = arg_ref(batch, "batch")?;
        let out = Out::new(out_diagnostic, "out_diagnostic")?;
        let d = b.diagnostics.get(index).ok_or_else(|| {
            Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("diagnostic {index} of {}", b.diagnostics.len()))
        })?;
        out.set(d.view());
        Ok(())
    })
}

/// Stores in *out_text the text of entry `index`: the canonical form of
/// a valid record, or the line as read for an invalid one (up to its first
/// 256 bytes when it was over 1 MiB); not NUL-terminated; borrowed, valid
/// until epd_batch_free. Its length goes to *out_len. An index past the
/// end gives EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_batch_text(
    batch: *const epd_batch,
    index: usize,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let b = arg_ref(batch, "batch")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let t = b.text_of(index)?;
        out_t.set(t.as_ptr().cast());
        out_l.set(t.len());
        Ok(())
    })
}

/// Stores in *out_record the record of entry `index`, built the first
/// time it is asked for (borrowed: owned by the batch, valid until
/// epd_batch_free; it may be changed through the epd_record_ functions but
/// never freed; epd_record_clone gives a record of one's own). An invalid
/// entry gives EPD_STATUS_INVALID_RECORD, an index past the end
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_batch_record(
    batch: *mut epd_batch,
    index: usize,
    out_record: *mut *mut epd_record,
) -> epd_status {
    guard(|| {
        let b = arg_mut(batch, "batch")?;
        let out = Out::new(out_record, "out_record")?;
        let entry = *b
            .entries
            .get(index)
            .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("entry {index} of {}", b.entries.len())))?;
        if entry.errors > 0 {
            return Err(Error::new(
                EPD_STATUS_INVALID_RECORD,
                format!("entry {index} (line {}) is invalid", entry.line),
            ));
        }
        if b.records.len() < b.entries.len() {
            b.records.resize_with(b.entries.len(), || None);
        }
        if b.records[index].is_none() {
            let (rec, diags) = Record::parse(b.text_of(index)?, b.mode);
            if epd_core::has_errors(&diags) {
                // The canonical text of a valid record always reads back
                // in the mode it was read in.
                return Err(Error::new(EPD_STATUS_INVALID_RECORD, "the record's canonical text does not read back"));
            }
            b.records[index] = Some(Box::new(RecordBuf::new(rec)));
        }
        let rec = b.records[index].as_deref_mut().ok_or_else(|| Error::new(EPD_STATUS_INVALID_RECORD, "no record"))?;
        out.set(lend_mut(rec));
        Ok(())
    })
}
