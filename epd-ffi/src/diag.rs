//! Diagnostics: what is wrong with a record, where, with a stable code.

use crate::error::{c_string_lossy, epd_status, guard, Error, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NOT_FOUND};

use crate::ptr::{arg_mut, arg_ref, c_utf8, free_boxed, to_boxed, Castable, Out, OwnershipBox};
use core::ffi::{c_char, c_int, c_long, c_ulong};
use core::ptr;
use epd_core::{Code, Diagnostic, Severity};
use std::ffi::CString;
use std::sync::OnceLock;

/// How serious a diagnostic is.
#[allow(non_camel_case_types)]
pub type epd_severity = c_int;
/// A deviation that was accepted (lenient reading) or a remark; the record
/// is still valid.
pub const EPD_SEVERITY_WARNING: epd_severity = 0;
/// The record is invalid.
pub const EPD_SEVERITY_ERROR: epd_severity = 1;

/// The most diagnostics a parse keeps for one record (see
/// epd_record_parse).
pub const EPD_MAX_DIAGNOSTICS: usize = 100;

/// One finding about a record, as a plain value filled in by
/// epd_diagnostics_get or passed to an epd_report_callback.
///
/// The `opcode` and `message` pointers are borrowed: they stay valid until
/// the epd_diagnostics they came from is next parsed into, cleared or freed
/// (for a report callback: until the callback returns). Never free them.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug)]
pub struct epd_diagnostic {
    /// EPD_SEVERITY_WARNING or EPD_SEVERITY_ERROR.
    pub severity: epd_severity,
    /// The code's number: 12 for E012. Codes are stable, never reused.
    /// P codes share numbers with E codes (P010 and E010 are both 10):
    /// code_text tells them apart.
    pub code: c_int,
    /// The code as printed, NUL-terminated: "E012".
    pub code_text: [c_char; 8],
    /// 1-based line number (see epd_diagnostics_set_line; the stream verbs
    /// report the line in the input).
    pub line: c_ulong,
    /// 1-based column: the byte offset in the line plus one.
    pub column: usize,
    /// The 0-based index of the operand concerned, or -1.
    pub operand: c_long,
    /// The opcode concerned, NUL-terminated, or NULL if none.
    pub opcode: *const c_char,
    /// What is wrong and what was expected or done, NUL-terminated (UTF-8).
    pub message: *const c_char,
}

/// An owned diagnostic with its C strings.
#[derive(Debug)]
pub(crate) struct Owned {
    severity: epd_severity,
    code: c_int,
    code_text: [c_char; 8],
    line: c_ulong,
    column: usize,
    operand: c_long,
    opcode: Option<CString>,
    message: CString,
}

impl Owned {
    pub(crate) fn new(d: &Diagnostic, line: u64) -> Owned {
        let text = d.code.as_str().as_bytes();
        let mut code_text = [0 as c_char; 8];
        for (slot, &b) in code_text.iter_mut().zip(text.iter().take(7)) {
            *slot = b as c_char;
        }
        let code = core::str::from_utf8(&text[1.min(text.len())..]).ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        Owned {
            severity: match d.severity {
                Severity::Warning => EPD_SEVERITY_WARNING,
                Severity::Error => EPD_SEVERITY_ERROR,
            },
            code,
            code_text,
            line: c_ulong::try_from(line).unwrap_or(c_ulong::MAX),
            column: d.column(),
            operand: d.operand.and_then(|o| c_long::try_from(o).ok()).unwrap_or(-1),
            opcode: d.opcode.as_deref().map(c_string_lossy),
            message: c_string_lossy(&d.message),
        }
    }

    pub(crate) fn view(&self) -> epd_diagnostic {
        epd_diagnostic {
            severity: self.severity,
            code: self.code,
            code_text: self.code_text,
            line: self.line,
            column: self.column,
            operand: self.operand,
            opcode: self.opcode.as_ref().map_or(ptr::null(), |c| c.as_ptr()),
            message: self.message.as_ptr(),
        }
    }
}

/// A list of diagnostics, filled by epd_record_parse and
/// epd_record_parse_into. Created by epd_diagnostics_new, freed with
/// epd_diagnostics_free.
///
/// Thread safety: may be used from any thread; not from two at once while
/// one of them parses into it or clears it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_diagnostics {
    _private: [u8; 0],
}

impl Castable for epd_diagnostics {
    type Ownership = OwnershipBox;
    type RustType = Diagnostics;
}

/// The Rust value behind an epd_diagnostics handle.
#[derive(Debug)]
pub(crate) struct Diagnostics {
    pub(crate) items: Vec<Owned>,
    pub(crate) errors: usize,
    pub(crate) line: u64,
}

impl Diagnostics {
    /// Replaces the contents with `diags`.
    pub(crate) fn fill(&mut self, diags: &[Diagnostic]) {
        self.items.clear();
        self.errors = 0;
        for d in diags {
            if d.severity == Severity::Error {
                self.errors += 1;
            }
            self.items.push(Owned::new(d, self.line));
        }
    }
}

/// Creates an empty diagnostics list in *out_diagnostics (free it with
/// epd_diagnostics_free). Its line number starts at 1.
#[no_mangle]
pub extern "C" fn epd_diagnostics_new(out_diagnostics: *mut *mut epd_diagnostics) -> epd_status {
    guard(|| {
        let out = Out::new(out_diagnostics, "out_diagnostics")?;
        out.set(to_boxed(Diagnostics { items: Vec::new(), errors: 0, line: 1 }));
        Ok(())
    })
}

/// Frees a diagnostics list. Does nothing if `diagnostics` is NULL.
#[no_mangle]
pub extern "C" fn epd_diagnostics_free(diagnostics: *mut epd_diagnostics) {
    free_boxed(diagnostics);
}

/// Removes every diagnostic (the line number is kept).
#[no_mangle]
pub extern "C" fn epd_diagnostics_clear(diagnostics: *mut epd_diagnostics) -> epd_status {
    guard(|| {
        let d = arg_mut(diagnostics, "diagnostics")?;
        d.items.clear();
        d.errors = 0;
        Ok(())
    })
}

/// Sets the line number (1-based) that the next parses give their
/// diagnostics, for programs that read files line by line.
#[no_mangle]
pub extern "C" fn epd_diagnostics_set_line(diagnostics: *mut epd_diagnostics, line: c_ulong) -> epd_status {
    guard(|| {
        arg_mut(diagnostics, "diagnostics")?.line = u64::from(line);
        Ok(())
    })
}

/// The number of diagnostics in *out_count.
#[no_mangle]
pub extern "C" fn epd_diagnostics_count(diagnostics: *const epd_diagnostics, out_count: *mut usize) -> epd_status {
    guard(|| {
        let d = arg_ref(diagnostics, "diagnostics")?;
        Out::new(out_count, "out_count")?.set(d.items.len());
        Ok(())
    })
}

/// The number of diagnostics of severity EPD_SEVERITY_ERROR in
/// *out_count (0 means the record is valid).
#[no_mangle]
pub extern "C" fn epd_diagnostics_error_count(
    diagnostics: *const epd_diagnostics,
    out_count: *mut usize,
) -> epd_status {
    guard(|| {
        let d = arg_ref(diagnostics, "diagnostics")?;
        Out::new(out_count, "out_count")?.set(d.errors);
        Ok(())
    })
}

/// Fills *out_diagnostic with diagnostic number `index` (0-based, in the
/// order found). Its strings are borrowed from `diagnostics`: valid until
/// it is next parsed into, cleared or freed. An index past the end gives
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_diagnostics_get(
    diagnostics: *const epd_diagnostics,
    index: usize,
    out_diagnostic: *mut epd_diagnostic,
) -> epd_status {
    guard(|| {
        let d = arg_ref(diagnostics, "diagnostics")?;
        let out = Out::new(out_diagnostic, "out_diagnostic")?;
        let item = d.items.get(index).ok_or_else(|| {
            Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("diagnostic {index} of {}", d.items.len()))
        })?;
        out.set(item.view());
        Ok(())
    })
}

/// One entry of the code table, with NUL-terminated strings that live for
/// the program.
struct CodeEntry {
    code: Code,
    text: CString,
    summary: CString,
}

/// Every diagnostic code, in numeric order (E codes, then P codes).
fn code_table() -> &'static [CodeEntry] {
    static TABLE: OnceLock<Vec<CodeEntry>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Code::ALL
            .iter()
            .map(|&code| CodeEntry {
                code,
                text: c_string_lossy(code.as_str()),
                summary: c_string_lossy(code.summary()),
            })
            .collect()
    })
}

/// The code as printed ("P010"), a static NUL-terminated string.
pub(crate) fn code_text(code: Code) -> *const c_char {
    code_table().iter().find(|e| e.code == code).map_or(ptr::null(), |e| e.text.as_ptr())
}

/// The number of diagnostic codes in the library's table (every code its
/// diagnostics and failures can carry, as docs/diagnostics.md lists them)
/// in *out_count.
#[no_mangle]
pub extern "C" fn epd_code_count(out_count: *mut usize) -> epd_status {
    guard(|| {
        Out::new(out_count, "out_count")?.set(code_table().len());
        Ok(())
    })
}

/// Entry `index` (0-based, in numeric order: E codes, then P codes) of
/// the code table: the code as printed ("E012", "P010"; as in
/// epd_diagnostic.code_text) in *out_code, and one line on what it means
/// in *out_summary. Both strings are static: valid for the life of the
/// program, never freed. Either out-parameter may be NULL if not wanted.
/// An index past the end gives EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_code_at(
    index: usize,
    out_code: *mut *const c_char,
    out_summary: *mut *const c_char,
) -> epd_status {
    guard(|| {
        let table = code_table();
        let entry = table
            .get(index)
            .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("code {index} of {}", table.len())))?;
        if let Some(o) = Out::optional(out_code) {
            o.set(entry.text.as_ptr());
        }
        if let Some(o) = Out::optional(out_summary) {
            o.set(entry.summary.as_ptr());
        }
        Ok(())
    })
}

/// The index in the code table (see epd_code_at) of a code written as
/// `epd explain` reads it: "E012", "e12", "12" (an E code), "P010"; in
/// *out_index. EPD_STATUS_NOT_FOUND when there is no such code.
#[no_mangle]
pub extern "C" fn epd_code_find(code: *const c_char, out_index: *mut usize) -> epd_status {
    guard(|| {
        let text = c_utf8(code, "code")?;
        let out = Out::new(out_index, "out_index")?;
        let found: Code =
            text.parse().map_err(|e: epd_core::UnknownCode| Error::new(EPD_STATUS_NOT_FOUND, e.to_string()))?;
        let index = code_table()
            .iter()
            .position(|e| e.code == found)
            .ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, format!("{found} is not in the table")))?;
        out.set(index);
        Ok(())
    })
}
