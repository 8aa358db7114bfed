//! Status codes, their messages, the per-thread detail of the last failure,
//! and the panic boundary every exported function runs inside.

use core::ffi::{c_char, c_int};
use std::any::Any;
use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};

use epd_core::Code;

/// The result of every fallible function: EPD_STATUS_OK (0) on success,
/// another EPD_STATUS_... value on failure. Values are stable: a value is
/// never renumbered or reused; new ones are only added at the end.
#[allow(non_camel_case_types)]
pub type epd_status = c_int;

/// Success.
pub const EPD_STATUS_OK: epd_status = 0;
/// A pointer argument that must not be NULL was NULL.
pub const EPD_STATUS_NULL_POINTER: epd_status = 1;
/// An argument is out of its documented range (an unknown mode, a square
/// above 63, an index past the end, a length too large).
pub const EPD_STATUS_INVALID_ARGUMENT: epd_status = 2;
/// Text that must be UTF-8 (an opcode, an identifier, a tag name) is not.
pub const EPD_STATUS_INVALID_UTF8: epd_status = 3;
/// A caller-supplied buffer is too small; nothing was written.
pub const EPD_STATUS_BUFFER_TOO_SMALL: epd_status = 4;
/// FEN or EPD position fields are malformed (the column is in
/// epd_last_error_column()).
pub const EPD_STATUS_FEN_SYNTAX: epd_status = 5;
/// The position fields describe no legal position.
pub const EPD_STATUS_ILLEGAL_POSITION: epd_status = 6;
/// The text is not a move (the column is in epd_last_error_column()).
pub const EPD_STATUS_SAN_SYNTAX: epd_status = 7;
/// The move is not legal in the position.
pub const EPD_STATUS_ILLEGAL_MOVE: epd_status = 8;
/// More than one legal move fits the SAN text.
pub const EPD_STATUS_AMBIGUOUS_MOVE: epd_status = 9;
/// Strict SAN decoding: a legal move, not written canonically (the
/// message names the canonical SAN).
pub const EPD_STATUS_NOT_CANONICAL: epd_status = 10;
/// The record has at least one error diagnostic.
pub const EPD_STATUS_INVALID_RECORD: epd_status = 11;
/// A record refused an operation (wrong operand count or type, a value
/// out of range, a string the encoding cannot hold, a broken rule between
/// operations such as a pm that is not the first move of pv): the code
/// the reader would give is in epd_last_error_code().
pub const EPD_STATUS_REFUSED: epd_status = 12;
/// The thing asked for is not there (an opcode not in the record, a null
/// register, a score that is not a mate).
pub const EPD_STATUS_NOT_FOUND: epd_status = 13;
/// The operand is not of the type asked for.
pub const EPD_STATUS_WRONG_TYPE: epd_status = 14;
/// A value does not fit the requested C type or the allowed range.
pub const EPD_STATUS_OUT_OF_RANGE: epd_status = 15;
/// The record's position fields do not describe a position on which moves
/// are defined.
pub const EPD_STATUS_NO_POSITION: epd_status = 16;
/// A file could not be opened, read or written.
pub const EPD_STATUS_IO: epd_status = 17;
/// A callback returned non-zero (a read or write callback failed, or a
/// report callback asked to stop).
pub const EPD_STATUS_CALLBACK: epd_status = 18;
/// The analysis callback failed or returned an unusable result.
pub const EPD_STATUS_ENGINE: epd_status = 19;
/// An internal error (a Rust panic caught at the library boundary). The
/// handles passed to the call are still safe to free.
pub const EPD_STATUS_PANIC: epd_status = 20;
/// The run saw its cancel flag raised (epd_cancel_raise) and stopped: a
/// file verb's output holds the records finished before, each whole.
pub const EPD_STATUS_CANCELLED: epd_status = 21;
/// The engine's program exited or closed its pipes (killed, crashed),
/// before the call or during it; the call that meets it fails with this
/// status, and the next call on the engine starts the program again.
pub const EPD_STATUS_ENGINE_TERMINATED: epd_status = 22;

const STATUS_MESSAGES: [&str; 23] = [
    "ok\0",
    "null pointer argument\0",
    "invalid argument\0",
    "text is not valid UTF-8\0",
    "buffer too small\0",
    "malformed FEN or EPD position fields\0",
    "illegal position\0",
    "not a move (SAN syntax)\0",
    "illegal move\0",
    "ambiguous move\0",
    "move not written in canonical SAN\0",
    "invalid record\0",
    "operation refused by the record\0",
    "not found\0",
    "operand of another type\0",
    "value out of range\0",
    "the record has no playable position\0",
    "input/output error\0",
    "a callback reported failure\0",
    "the analysis engine failed\0",
    "internal error (panic)\0",
    "cancelled\0",
    "the engine's program terminated\0",
];

/// A failure on its way to the caller: the status and a detailed message.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: epd_status,
    pub(crate) message: String,
    /// 1-based column in the text the call read; 0 when none applies.
    pub(crate) column: usize,
    /// The diagnostic code of what was wrong with a record, if one.
    pub(crate) code: Option<Code>,
    /// The operating system's error number of an I/O failure (errno);
    /// 0 when none applies.
    pub(crate) os_error: c_int,
}

impl Error {
    pub(crate) fn new(status: epd_status, message: impl Into<String>) -> Error {
        Error { status, message: message.into(), column: 0, code: None, os_error: 0 }
    }

    /// An I/O failure (EPD_STATUS_IO) described by `message`, with the OS
    /// error number of `cause` when it has one (a missing file: ENOENT).
    pub(crate) fn io(message: impl Into<String>, cause: &std::io::Error) -> Error {
        Error { os_error: cause.raw_os_error().unwrap_or(0), ..Error::new(EPD_STATUS_IO, message) }
    }

    pub(crate) fn at(mut self, column: usize) -> Error {
        self.column = column;
        self
    }

    pub(crate) fn with_code(mut self, code: Code) -> Error {
        self.code = Some(code);
        self
    }
}

pub(crate) type Result<T> = core::result::Result<T, Error>;

struct LastError {
    status: epd_status,
    message: CString,
    column: usize,
    code: CString,
    os_error: c_int,
}

thread_local! {
    /// The detail of the last failed call on this thread. Per thread, so
    /// threads never see each other's errors and no lock is needed.
    static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError {
        status: EPD_STATUS_OK,
        message: CString::default(),
        column: 0,
        code: CString::default(),
        os_error: 0,
    });
}

/// A C string from arbitrary text: NUL bytes become `\0`.
pub(crate) fn c_string_lossy(text: &str) -> CString {
    match CString::new(text) {
        Ok(c) => c,
        Err(_) => CString::new(text.replace('\0', "\\0")).unwrap_or_default(),
    }
}

fn record(e: Error) -> epd_status {
    let status = e.status;
    let message = c_string_lossy(&e.message);
    let code = c_string_lossy(e.code.map_or("", Code::as_str));
    // try_with: during thread teardown the slot may be gone; the status
    // alone still reaches the caller.
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = LastError { status, message, column: e.column, code, os_error: e.os_error };
        }
    });
    status
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("internal error: {what}")
}

/// Runs an exported function's body inside the panic boundary: `Ok` is
/// EPD_STATUS_OK, an `Err` or a panic is recorded as the thread's last
/// error and its status returned.
pub(crate) fn guard(body: impl FnOnce() -> Result<()>) -> epd_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => EPD_STATUS_OK,
        Ok(Err(e)) => record(e),
        Err(payload) => record(Error::new(EPD_STATUS_PANIC, panic_message(&*payload))),
    }
}

/// The panic boundary for functions that return nothing (the _free
/// functions): a panic is recorded and swallowed.
pub(crate) fn guard_void(body: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(body)) {
        record(Error::new(EPD_STATUS_PANIC, panic_message(&*payload)));
    }
}

/// A short, static, English description of a status (for example
/// "illegal move"). Never NULL; an unknown value gives "unknown status".
/// The string is borrowed and valid for the life of the program: never
/// free it. Thread-safe.
#[no_mangle]
pub extern "C" fn epd_status_message(status: epd_status) -> *const c_char {
    let text = usize::try_from(status).ok().and_then(|i| STATUS_MESSAGES.get(i)).copied().unwrap_or("unknown status\0");
    text.as_ptr().cast()
}

/// The detailed message of the most recent call on this thread that
/// failed (for example "invalid san at column 3: expected a square"), or
/// "" if none has. Never NULL. The string is borrowed: it stays valid until
/// the next failing call on the same thread; copy it to keep it. Never
/// free it.
#[no_mangle]
pub extern "C" fn epd_last_error_message() -> *const c_char {
    let ptr = LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.message.as_ptr()).ok()).ok().flatten();
    ptr.unwrap_or(c"".as_ptr())
}

/// The status of the most recent call on this thread that failed, or
/// EPD_STATUS_OK if none has.
#[no_mangle]
pub extern "C" fn epd_last_error_status() -> epd_status {
    LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.status).unwrap_or(EPD_STATUS_OK)).unwrap_or(EPD_STATUS_OK)
}

/// The 1-based column (byte offset + 1) in the text read by the most
/// recent failed call on this thread, where one applies (FEN and SAN
/// syntax errors, the first error of an invalid record); 0 otherwise.
#[no_mangle]
pub extern "C" fn epd_last_error_column() -> usize {
    LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.column).unwrap_or(0)).unwrap_or(0)
}

/// The diagnostic code ("E012", as in epd_diagnostic.code_text) of the
/// most recent call on this thread that failed because of a record: the
/// first error of an invalid record (EPD_STATUS_INVALID_RECORD), or the
/// rule a refused edit would break (EPD_STATUS_REFUSED from
/// epd_record_set and its kin, or from epd_record_remove), with the code
/// reading the record it would leave reports. "" for other failures.
/// Never NULL. The string is borrowed: it stays valid until the next
/// failing call on the same thread; copy it to keep it. Never free it.
#[no_mangle]
pub extern "C" fn epd_last_error_code() -> *const c_char {
    let ptr = LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.code.as_ptr()).ok()).ok().flatten();
    ptr.unwrap_or(c"".as_ptr())
}

/// The operating system's error number (errno: ENOENT for a missing
/// file, EACCES for one that may not be read, EISDIR for a directory) of
/// the most recent call on this thread that failed with EPD_STATUS_IO,
/// when the system reported one; 0 otherwise (no failure yet, a failure
/// of another status, or an I/O failure the system did not number, such
/// as a read callback's). The message (epd_last_error_message) says the
/// same in words, with the path.
#[no_mangle]
pub extern "C" fn epd_last_error_os_error() -> c_int {
    LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.os_error).unwrap_or(0)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn every_status_has_a_message() {
        for s in 0..=EPD_STATUS_ENGINE_TERMINATED {
            // SAFETY: epd_status_message returns a static NUL-terminated string.
            let m = unsafe { CStr::from_ptr(epd_status_message(s)) };
            assert!(!m.to_bytes().is_empty(), "{s}");
            assert_ne!(m.to_bytes(), b"unknown status", "{s}");
        }
        // SAFETY: as above.
        let unknown = unsafe { CStr::from_ptr(epd_status_message(-1)) };
        assert_eq!(unknown.to_bytes(), b"unknown status");
    }

    #[test]
    fn a_panic_becomes_a_status_with_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, EPD_STATUS_PANIC);
        assert_eq!(epd_last_error_status(), EPD_STATUS_PANIC);
        // SAFETY: the last error message is a valid C string.
        let m = unsafe { CStr::from_ptr(epd_last_error_message()) };
        assert_eq!(m.to_str().unwrap(), "internal error: boom");
        guard_void(|| panic!("in free"));
        assert_eq!(guard(|| Ok(())), EPD_STATUS_OK);
    }

    #[test]
    fn messages_with_nul_are_kept_readable() {
        let status = guard(|| Err(Error::new(EPD_STATUS_IO, "a\0b").at(3)));
        assert_eq!(status, EPD_STATUS_IO);
        // SAFETY: as above.
        let m = unsafe { CStr::from_ptr(epd_last_error_message()) };
        assert_eq!(m.to_bytes(), b"a\\0b");
        assert_eq!(epd_last_error_column(), 3);
    }

    #[test]
    fn the_os_error_goes_with_its_failure() {
        let missing = std::fs::File::open("/nonexistent/epdkit").unwrap_err();
        let number = missing.raw_os_error().unwrap();
        assert_eq!(guard(|| Err(Error::io("cannot open", &missing))), EPD_STATUS_IO);
        assert_eq!(epd_last_error_os_error(), number);
        let other = std::io::Error::other("a callback failed");
        guard(|| Err(Error::io("callback", &other)));
        assert_eq!(epd_last_error_os_error(), 0);
        guard(|| Err(Error::io("cannot open", &missing)));
        guard(|| Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "not I/O")));
        assert_eq!(epd_last_error_os_error(), 0, "a later failure replaces it");
    }

    #[test]
    fn the_code_goes_with_its_failure() {
        let code = || {
            // SAFETY: the last error code is a valid C string.
            unsafe { CStr::from_ptr(epd_last_error_code()) }.to_bytes().to_vec()
        };
        guard(|| Err(Error::new(EPD_STATUS_REFUSED, "pm is not the first move of pv").with_code(Code::PmNotPvHead)));
        assert_eq!(code(), b"E012");
        guard(|| Err(Error::new(EPD_STATUS_IO, "no code")));
        assert_eq!(code(), b"");
    }
}
