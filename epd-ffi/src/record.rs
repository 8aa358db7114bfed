//! Records: parsing with diagnostics, building, getting, setting and
//! removing operations, typed operand access, canonical encoding.

use crate::diag::epd_diagnostics;
use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_BUFFER_TOO_SMALL, EPD_STATUS_INVALID_ARGUMENT,
    EPD_STATUS_INVALID_RECORD, EPD_STATUS_NOT_FOUND, EPD_STATUS_NO_POSITION, EPD_STATUS_OUT_OF_RANGE,
    EPD_STATUS_REFUSED, EPD_STATUS_WRONG_TYPE,
};
use crate::position::{epd_int64, epd_move, epd_parse_mode, epd_position, parse_mode};
use crate::ptr::{
    arg_mut, arg_ref, bytes, c_utf8, copy_to_buffer, free_boxed, owned_string, slice, to_boxed, Castable, Out,
    OwnershipBox,
};
use crate::san::{epd_san_mode, san_error, san_mode};
use core::ffi::{c_char, c_double, c_int, c_long};
use epd_core::{
    has_errors, Clock, Date, Diagnostic, Opcode, Operand, OperandInput, Operation, Order, Record, SetError, Severity,
    TimeOfDay, Value,
};

/// An EPD record: the four position fields and an ordered list of
/// operations (opcode plus typed operands).
///
/// Created by epd_record_parse, epd_record_new or epd_record_clone; freed
/// with epd_record_free.
///
/// Thread safety: a record may be used from any thread, and read (through
/// const pointers) from several threads at once; it must not be changed
/// (parse_into, set, remove, canonical_into, analysis) while another
/// thread uses it.
/// Borrowed operand text stays valid until the record is next changed or
/// freed.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_record {
    _private: [u8; 0],
}

impl Castable for epd_record {
    type Ownership = OwnershipBox;
    type RustType = RecordBuf;
}

/// The Rust value behind an epd_record handle.
#[derive(Debug)]
pub(crate) struct RecordBuf {
    pub(crate) rec: Record,
    /// Reused diagnostics buffer (no meaning of its own).
    scratch: Vec<Diagnostic>,
}

impl RecordBuf {
    pub(crate) fn new(rec: Record) -> RecordBuf {
        RecordBuf { rec, scratch: Vec::new() }
    }
}

/// The basetype of an operand (epd_record_operand_kind).
#[allow(non_camel_case_types)]
pub type epd_operand_kind = c_int;
/// An identifier (refcom, refreq, ptp tag names): read its text.
pub const EPD_OPERAND_IDENTIFIER: epd_operand_kind = 1;
/// A chess move: epd_record_operand_move gives it (EPD_STATUS_ILLEGAL_MOVE
/// if it matched no legal move; the record is then invalid); the text is
/// its canonical SAN when it is legal.
pub const EPD_OPERAND_MOVE: epd_operand_kind = 2;
/// An integer: epd_record_operand_integer or epd_record_operand_long.
pub const EPD_OPERAND_INTEGER: epd_operand_kind = 3;
/// A floating point number: epd_record_operand_float; the text is exact.
pub const EPD_OPERAND_FLOAT: epd_operand_kind = 4;
/// A date (YYYY.MM.DD): epd_record_operand_date.
pub const EPD_OPERAND_DATE: epd_operand_kind = 5;
/// A time of day (HH:MM:SS): epd_record_operand_time_of_day.
pub const EPD_OPERAND_TIME_OF_DAY: epd_operand_kind = 6;
/// A clock (DDD:HH:MM:SS): epd_record_operand_clock.
pub const EPD_OPERAND_CLOCK: epd_operand_kind = 7;
/// A string: the text is its content, without quotes or escapes (any bytes
/// but control characters; UTF-8 unless read from a Latin-1 file strictly).
pub const EPD_OPERAND_STRING: epd_operand_kind = 8;
/// An untyped operand of an unknown opcode or of noop, kept as written.
pub const EPD_OPERAND_RAW: epd_operand_kind = 9;
/// As EPD_OPERAND_RAW, written between quotes.
pub const EPD_OPERAND_RAW_QUOTED: epd_operand_kind = 10;

/// The longest opcode is 15 characters: a buffer of EPD_OPCODE_BUFFER_SIZE
/// bytes always holds one with its NUL (epd_record_opcode).
pub const EPD_OPCODE_BUFFER_SIZE: usize = 16;

/// A date operand (ts, section 5.2.5).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_date {
    /// 1..9999.
    pub year: c_int,
    /// 1..12.
    pub month: c_int,
    /// 1..31.
    pub day: c_int,
}

/// A time of day operand (ts, section 5.2.6).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_time_of_day {
    /// 0..23.
    pub hour: c_int,
    /// 0..59.
    pub minute: c_int,
    /// 0..59.
    pub second: c_int,
}

/// A clock operand (cc, section 5.2.7).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_clock {
    /// 0..999.
    pub days: c_int,
    /// 0..23.
    pub hours: c_int,
    /// 0..59.
    pub minutes: c_int,
    /// 0..59.
    pub seconds: c_int,
}

fn bad(what: String) -> Error {
    Error::new(EPD_STATUS_INVALID_ARGUMENT, what)
}

impl epd_date {
    fn to_core(self) -> Result<Date> {
        let text = format!("{:04}.{:02}.{:02}", self.year, self.month, self.day);
        Date::from_ascii(text.as_bytes()).ok_or_else(|| bad(format!("invalid date {text}")))
    }
}

impl epd_time_of_day {
    fn to_core(self) -> Result<TimeOfDay> {
        let text = format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second);
        TimeOfDay::from_ascii(text.as_bytes()).ok_or_else(|| bad(format!("invalid time of day {text}")))
    }
}

impl epd_clock {
    fn to_core(self) -> Result<Clock> {
        let text = format!("{:03}:{:02}:{:02}:{:02}", self.days, self.hours, self.minutes, self.seconds);
        Clock::from_ascii(text.as_bytes()).ok_or_else(|| bad(format!("invalid clock {text}")))
    }
}

fn first_error(diags: &[Diagnostic]) -> Error {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    match diags.iter().find(|d| d.severity == Severity::Error) {
        Some(d) => Error::new(
            EPD_STATUS_INVALID_RECORD,
            format!(
                "invalid record: col {}: {}{}",
                d.column(),
                d,
                if errors > 1 { format!(" (and {} more errors)", errors - 1) } else { String::new() }
            ),
        )
        .at(d.column())
        .with_code(d.code),
        None => Error::new(EPD_STATUS_INVALID_RECORD, "invalid record"),
    }
}

/// Parses one record from `len` bytes at `line` (without its line
/// terminator). A trailing CR is whitespace. A NUL byte or whitespace
/// other than single spaces is accepted, with a warning in strict mode
/// (E004, E005) and silently in lenient mode, which reads such bytes as
/// whitespace (the same as every other lenient reader of the kit).
///
/// At most EPD_MAX_DIAGNOSTICS diagnostics are kept per record: past that,
/// the last one kept is the first left out (the first error left out, if
/// one was, so an invalid record stays invalid), its message ending with
/// how many more were not shown.
///
/// `mode` is EPD_PARSE_STRICT or EPD_PARSE_LENIENT. If `diagnostics` is
/// not NULL, its contents are replaced by every diagnostic found, errors
/// and warnings, whether or not the parse succeeds: that is what it is
/// for. On success (no error diagnostic; warnings allowed) *out_record
/// receives a new record (free it with epd_record_free). An invalid record
/// gives EPD_STATUS_INVALID_RECORD, the first error in
/// epd_last_error_message() and its column in epd_last_error_column(),
/// and *out_record is not written (use epd_record_parse_into to look at
/// what could be read of an invalid record).
#[no_mangle]
pub extern "C" fn epd_record_parse(
    line: *const c_char,
    len: usize,
    mode: epd_parse_mode,
    diagnostics: *mut epd_diagnostics,
    out_record: *mut *mut epd_record,
) -> epd_status {
    guard(|| {
        let line = bytes(line, len, "line")?;
        let mode = parse_mode(mode)?;
        let out = Out::new(out_record, "out_record")?;
        let (rec, diags) = Record::parse(line, mode);
        if !diagnostics.is_null() {
            arg_mut(diagnostics, "diagnostics")?.fill(&diags);
        }
        if has_errors(&diags) {
            return Err(first_error(&diags));
        }
        out.set(to_boxed(RecordBuf::new(rec)));
        Ok(())
    })
}

/// Parses one record into an existing record, reusing its memory (the
/// fast way to read a file line by line).
///
/// This changes `record` on every outcome but EPD_STATUS_NULL_POINTER and
/// EPD_STATUS_INVALID_ARGUMENT: it then holds what could be read, so a
/// program can look at the operations of an invalid record (which gives
/// EPD_STATUS_INVALID_RECORD, as epd_record_parse does). `diagnostics`
/// (may be NULL) is filled as by epd_record_parse.
#[no_mangle]
pub extern "C" fn epd_record_parse_into(
    record: *mut epd_record,
    line: *const c_char,
    len: usize,
    mode: epd_parse_mode,
    diagnostics: *mut epd_diagnostics,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let line = bytes(line, len, "line")?;
        let mode = parse_mode(mode)?;
        r.scratch.clear();
        r.rec.parse_into(line, mode, &mut r.scratch);
        if !diagnostics.is_null() {
            arg_mut(diagnostics, "diagnostics")?.fill(&r.scratch);
        }
        if has_errors(&r.scratch) {
            return Err(first_error(&r.scratch));
        }
        Ok(())
    })
}

/// Creates a record for `position` with no operations, in *out_record
/// (free it with epd_record_free).
#[no_mangle]
pub extern "C" fn epd_record_new(position: *const epd_position, out_record: *mut *mut epd_record) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_record, "out_record")?;
        out.set(to_boxed(RecordBuf::new(Record::from_position(p))));
        Ok(())
    })
}

/// Copies a record into *out_copy (free it with epd_record_free).
#[no_mangle]
pub extern "C" fn epd_record_clone(record: *const epd_record, out_copy: *mut *mut epd_record) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_copy, "out_copy")?;
        out.set(to_boxed(RecordBuf::new(r.rec.clone())));
        Ok(())
    })
}

/// Frees a record. Does nothing if `record` is NULL.
#[no_mangle]
pub extern "C" fn epd_record_free(record: *mut epd_record) {
    free_boxed(record);
}

/// The record's position as a new epd_position in *out_position (free it
/// with epd_position_free), its move counters taken from the record's
/// hmvc and fmvn operations where present (else 0 and 1), as
/// `epd convert --to fen` writes them. EPD_STATUS_NO_POSITION if the
/// position fields describe no position on which moves are defined.
#[no_mangle]
pub extern "C" fn epd_record_position(record: *const epd_record, out_position: *mut *mut epd_position) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_position, "out_position")?;
        let pos = r.rec.position_with_counters().ok_or_else(no_position)?;
        out.set(to_boxed(pos));
        Ok(())
    })
}

pub(crate) fn no_position() -> Error {
    Error::new(EPD_STATUS_NO_POSITION, "the record's position fields describe no playable position")
}

/// The four EPD position fields as a new string in *out_fields (owned:
/// free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_record_fields(record: *const epd_record, out_fields: *mut *mut c_char) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_fields, "out_fields")?;
        let mut text = Vec::with_capacity(80);
        r.rec.setup().append_epd_fields(&mut text);
        out.set(owned_string(text)?);
        Ok(())
    })
}

/// The canonical encoding of the record (section 7.1: operations in ASCII order
/// of opcode, am/bm operands sorted, single blanks, strings quoted), as a
/// new string in *out_text (owned: free it with epd_string_free). If
/// out_len is not NULL it receives the length without the NUL.
#[no_mangle]
pub extern "C" fn epd_record_canonical(
    record: *const epd_record,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_text, "out_text")?;
        let mut text = Vec::with_capacity(128);
        r.rec.append_canonical(&mut text);
        let len = text.len();
        out.set(owned_string(text)?);
        if let Some(o) = Out::optional(out_len) {
            o.set(len);
        }
        Ok(())
    })
}

/// Writes the canonical encoding, NUL-terminated, into the caller's buffer
/// `buf` of `capacity` bytes, and its length (without the NUL) into
/// *out_len. With too little room nothing is written to `buf`, the status
/// is EPD_STATUS_BUFFER_TOO_SMALL and *out_len receives the length the
/// text needs (without the NUL: a buffer of *out_len + 1 bytes suffices).
/// No allocation for the caller to free: the fast path for normalizing
/// many records. The record is not changed, so threads may share it (the
/// library encodes into a buffer of the calling thread's own, kept for the
/// next call).
#[no_mangle]
pub extern "C" fn epd_record_canonical_into(
    record: *const epd_record,
    buf: *mut c_char,
    capacity: usize,
    out_len: *mut usize,
) -> epd_status {
    thread_local! {
        static TEXT: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
    }
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_len, "out_len")?;
        TEXT.with(|cell| {
            let mut text = cell.borrow_mut();
            text.clear();
            r.rec.append_canonical(&mut text);
            if let Err(e) = copy_to_buffer(&text, buf, capacity, "buf") {
                if e.status == EPD_STATUS_BUFFER_TOO_SMALL {
                    out.set(text.len());
                }
                return Err(e);
            }
            out.set(text.len());
            Ok(())
        })
    })
}

fn operation(rec: &Record, index: usize) -> Result<Operation<'_>> {
    rec.operations()
        .nth(index)
        .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("operation {index} of {}", rec.len())))
}

fn operand(rec: &Record, op: usize, index: usize) -> Result<Operand<'_>> {
    let o = operation(rec, op)?;
    o.operand(index).ok_or_else(|| {
        Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{}: operand {index} of {}", o.opcode(), o.len()))
    })
}

/// The number of operations in *out_count.
#[no_mangle]
pub extern "C" fn epd_record_operation_count(record: *const epd_record, out_count: *mut usize) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        Out::new(out_count, "out_count")?.set(r.rec.len());
        Ok(())
    })
}

/// Copies the opcode of operation `op_index` (0-based, in record order),
/// NUL-terminated, into `buf` of `capacity` bytes; EPD_OPCODE_BUFFER_SIZE
/// always suffices.
#[no_mangle]
pub extern "C" fn epd_record_opcode(
    record: *const epd_record,
    op_index: usize,
    buf: *mut c_char,
    capacity: usize,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let op = operation(&r.rec, op_index)?;
        copy_to_buffer(op.opcode().as_bytes(), buf, capacity, "buf")
    })
}

/// The index of the first operation with the NUL-terminated `opcode` (for
/// example "bm"), in *out_index; EPD_STATUS_NOT_FOUND if there is none.
#[no_mangle]
pub extern "C" fn epd_record_find(
    record: *const epd_record,
    opcode: *const c_char,
    out_index: *mut usize,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let out = Out::new(out_index, "out_index")?;
        let i = r
            .rec
            .operations()
            .position(|o| o.opcode() == name)
            .ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, format!("no {name} operation")))?;
        out.set(i);
        Ok(())
    })
}

/// The number of operands of operation `op_index` (0-based), in
/// *out_count.
#[no_mangle]
pub extern "C" fn epd_record_operand_count(
    record: *const epd_record,
    op_index: usize,
    out_count: *mut usize,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_count, "out_count")?;
        out.set(operation(&r.rec, op_index)?.len());
        Ok(())
    })
}

/// The basetype (EPD_OPERAND_...) of operand `operand_index` of operation
/// `op_index` (both 0-based: an index past the end gives
/// EPD_STATUS_INVALID_ARGUMENT), in *out_kind. The epd_record_operand_
/// functions below take the same two indexes.
#[no_mangle]
pub extern "C" fn epd_record_operand_kind(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_kind: *mut epd_operand_kind,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_kind, "out_kind")?;
        let kind = match operand(&r.rec, op_index, operand_index)?.value() {
            Value::Identifier => EPD_OPERAND_IDENTIFIER,
            Value::Move(_) => EPD_OPERAND_MOVE,
            Value::Integer(_) => EPD_OPERAND_INTEGER,
            Value::Float(_) => EPD_OPERAND_FLOAT,
            Value::Date(_) => EPD_OPERAND_DATE,
            Value::TimeOfDay(_) => EPD_OPERAND_TIME_OF_DAY,
            Value::Clock(_) => EPD_OPERAND_CLOCK,
            Value::String => EPD_OPERAND_STRING,
            Value::Raw { quoted: false } => EPD_OPERAND_RAW,
            Value::Raw { quoted: true } => EPD_OPERAND_RAW_QUOTED,
        };
        out.set(kind);
        Ok(())
    })
}

/// The text of operand `operand_index` of operation `op_index`, borrowed:
/// *out_text points at *out_len bytes that are NOT NUL-terminated (print
/// with "%.*s"), valid until the record is next changed or freed. For
/// strings the content (unquoted, unescaped); for legal moves the
/// canonical SAN; otherwise as written.
#[no_mangle]
pub extern "C" fn epd_record_operand_text(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let text = operand(&r.rec, op_index, operand_index)?.text();
        out_t.set(text.as_ptr().cast());
        out_l.set(text.len());
        Ok(())
    })
}

/// The text of operand `operand_index` of operation `op_index` (as
/// epd_record_operand_text) as a new NUL-terminated string in *out_text
/// (owned: free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_record_operand_text_copy(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_text: *mut *mut c_char,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_text, "out_text")?;
        let text = operand(&r.rec, op_index, operand_index)?.text();
        out.set(owned_string(text.to_vec())?);
        Ok(())
    })
}

fn wrong_type(o: &Operand<'_>, want: &str) -> Error {
    Error::new(EPD_STATUS_WRONG_TYPE, format!("operand {:?} is not {want}", String::from_utf8_lossy(o.text())))
}

/// Operand `operand_index` of operation `op_index`, an integer, exactly,
/// in *out_value (see epd_int64).
/// EPD_STATUS_WRONG_TYPE for other basetypes.
#[no_mangle]
pub extern "C" fn epd_record_operand_integer(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_value: *mut epd_int64,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_value, "out_value")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        let v = o.as_integer().ok_or_else(|| wrong_type(&o, "an integer"))?;
        out.set(epd_int64::from_i64(v));
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, an integer, as a C
/// long in *out_value; EPD_STATUS_OUT_OF_RANGE
/// if it does not fit (values beyond 2^31 on platforms with a 32-bit long:
/// use epd_record_operand_integer).
#[no_mangle]
pub extern "C" fn epd_record_operand_long(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_value: *mut c_long,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_value, "out_value")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        let v = o.as_integer().ok_or_else(|| wrong_type(&o, "an integer"))?;
        let v = c_long::try_from(v)
            .map_err(|_| Error::new(EPD_STATUS_OUT_OF_RANGE, format!("{v} does not fit a C long")))?;
        out.set(v);
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, a floating point
/// number, in *out_value (the exact text is the operand text).
#[no_mangle]
pub extern "C" fn epd_record_operand_float(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_value: *mut c_double,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_value, "out_value")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        match o.value() {
            Value::Float(v) => out.set(v),
            _ => return Err(wrong_type(&o, "a floating point number")),
        }
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, a move, in *out_move.
/// For pv and sv, move N is legal in the position after the N-1 moves
/// before it. EPD_STATUS_ILLEGAL_MOVE if the operand matched no legal
/// move (the record is then invalid).
#[no_mangle]
pub extern "C" fn epd_record_operand_move(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_move: *mut epd_move,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_move, "out_move")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        match o.value() {
            Value::Move(Some(m)) => out.set(epd_move::from(m)),
            Value::Move(None) => {
                return Err(Error::new(
                    crate::error::EPD_STATUS_ILLEGAL_MOVE,
                    format!("move {:?} matched no legal move", String::from_utf8_lossy(o.text())),
                ))
            }
            _ => return Err(wrong_type(&o, "a move")),
        }
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, a date, in *out_date.
#[no_mangle]
pub extern "C" fn epd_record_operand_date(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_date: *mut epd_date,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_date, "out_date")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        match o.value() {
            Value::Date(d) => {
                out.set(epd_date { year: c_int::from(d.year), month: c_int::from(d.month), day: c_int::from(d.day) })
            }
            _ => return Err(wrong_type(&o, "a date")),
        }
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, a time of day, in
/// *out_time.
#[no_mangle]
pub extern "C" fn epd_record_operand_time_of_day(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_time: *mut epd_time_of_day,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_time, "out_time")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        match o.value() {
            Value::TimeOfDay(t) => out.set(epd_time_of_day {
                hour: c_int::from(t.hour),
                minute: c_int::from(t.minute),
                second: c_int::from(t.second),
            }),
            _ => return Err(wrong_type(&o, "a time of day")),
        }
        Ok(())
    })
}

/// Operand `operand_index` of operation `op_index`, a clock, in
/// *out_clock.
#[no_mangle]
pub extern "C" fn epd_record_operand_clock(
    record: *const epd_record,
    op_index: usize,
    operand_index: usize,
    out_clock: *mut epd_clock,
) -> epd_status {
    guard(|| {
        let r = arg_ref(record, "record")?;
        let out = Out::new(out_clock, "out_clock")?;
        let o = operand(&r.rec, op_index, operand_index)?;
        match o.value() {
            Value::Clock(c) => out.set(epd_clock {
                days: c_int::from(c.days),
                hours: c_int::from(c.hours),
                minutes: c_int::from(c.minutes),
                seconds: c_int::from(c.seconds),
            }),
            _ => return Err(wrong_type(&o, "a clock")),
        }
        Ok(())
    })
}

/// Removes every operation with the NUL-terminated `opcode`; the number
/// removed (possibly 0) goes to *out_removed if it is not NULL. A removal
/// that would break a cross-check (sm while a draw_offer or draw_claim
/// needs it) gives EPD_STATUS_REFUSED, with the code in
/// epd_last_error_code() ("E024"), and the record unchanged.
#[no_mangle]
pub extern "C" fn epd_record_remove(
    record: *mut epd_record,
    opcode: *const c_char,
    out_removed: *mut usize,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let n = r.rec.try_remove(name).map_err(refused)?;
        if let Some(o) = Out::optional(out_removed) {
            o.set(n);
        }
        Ok(())
    })
}

#[derive(Debug, Clone)]
enum Input {
    Identifier(String),
    Move(epd_core::Move),
    Integer(i64),
    Date(Date),
    TimeOfDay(TimeOfDay),
    Clock(Clock),
    String(Vec<u8>),
    Raw(Vec<u8>),
}

impl Input {
    fn borrow(&self) -> OperandInput<'_> {
        match self {
            Input::Identifier(s) => OperandInput::Identifier(s),
            Input::Move(m) => OperandInput::Move(*m),
            Input::Integer(v) => OperandInput::Integer(*v),
            Input::Date(d) => OperandInput::Date(*d),
            Input::TimeOfDay(t) => OperandInput::TimeOfDay(*t),
            Input::Clock(c) => OperandInput::Clock(*c),
            Input::String(s) => OperandInput::String(s),
            Input::Raw(s) => OperandInput::Raw(s),
        }
    }
}

/// A list of operands being built for epd_record_set. Created by
/// epd_operands_new, freed with epd_operands_free. Values are copied in:
/// nothing passed to the push functions needs to outlive the call.
///
/// Thread safety: may be used from any thread; not from two at once while
/// one of them pushes or clears.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_operands {
    _private: [u8; 0],
}

impl Castable for epd_operands {
    type Ownership = OwnershipBox;
    type RustType = Operands;
}

/// The Rust value behind an epd_operands handle.
#[derive(Debug)]
pub(crate) struct Operands {
    items: Vec<Input>,
}

/// Creates an empty operand list in *out_operands (free it with
/// epd_operands_free).
#[no_mangle]
pub extern "C" fn epd_operands_new(out_operands: *mut *mut epd_operands) -> epd_status {
    guard(|| {
        Out::new(out_operands, "out_operands")?.set(to_boxed(Operands { items: Vec::new() }));
        Ok(())
    })
}

/// Frees an operand list. Does nothing if `operands` is NULL.
#[no_mangle]
pub extern "C" fn epd_operands_free(operands: *mut epd_operands) {
    free_boxed(operands);
}

/// Empties an operand list, for reuse.
#[no_mangle]
pub extern "C" fn epd_operands_clear(operands: *mut epd_operands) -> epd_status {
    guard(|| {
        arg_mut(operands, "operands")?.items.clear();
        Ok(())
    })
}

fn push(operands: *mut epd_operands, make: impl FnOnce() -> Result<Input>) -> epd_status {
    guard(|| {
        let list = arg_mut(operands, "operands")?;
        let item = make()?;
        list.items.push(item);
        Ok(())
    })
}

/// Appends an integer operand.
#[no_mangle]
pub extern "C" fn epd_operands_push_long(operands: *mut epd_operands, value: c_long) -> epd_status {
    push(operands, || Ok(Input::Integer(i64::from(value))))
}

/// Appends a 64-bit integer operand (see epd_int64).
#[no_mangle]
pub extern "C" fn epd_operands_push_integer(operands: *mut epd_operands, value: epd_int64) -> epd_status {
    push(operands, || Ok(Input::Integer(value.to_i64()?)))
}

/// Appends an identifier operand (NUL-terminated; 1 to 15 letters, digits
/// or underscores; checked by epd_record_set).
#[no_mangle]
pub extern "C" fn epd_operands_push_identifier(operands: *mut epd_operands, identifier: *const c_char) -> epd_status {
    push(operands, || Ok(Input::Identifier(c_utf8(identifier, "identifier")?.to_owned())))
}

/// Appends a string operand: `len` bytes at `text`, without quotes (any
/// printing bytes; a " or \ is escaped when the record is written).
#[no_mangle]
pub extern "C" fn epd_operands_push_string(operands: *mut epd_operands, text: *const c_char, len: usize) -> epd_status {
    push(operands, || Ok(Input::String(bytes(text, len, "text")?.to_vec())))
}

/// Appends a move operand. It is checked when epd_record_set runs: legal
/// in the record's position (for pv and sv: in the position after the
/// moves before it).
#[no_mangle]
pub extern "C" fn epd_operands_push_move(operands: *mut epd_operands, mv: epd_move) -> epd_status {
    push(operands, || Ok(Input::Move(mv.to_move()?)))
}

/// Appends a date operand.
#[no_mangle]
pub extern "C" fn epd_operands_push_date(operands: *mut epd_operands, date: epd_date) -> epd_status {
    push(operands, || Ok(Input::Date(date.to_core()?)))
}

/// Appends a time of day operand.
#[no_mangle]
pub extern "C" fn epd_operands_push_time_of_day(operands: *mut epd_operands, time: epd_time_of_day) -> epd_status {
    push(operands, || Ok(Input::TimeOfDay(time.to_core()?)))
}

/// Appends a clock operand.
#[no_mangle]
pub extern "C" fn epd_operands_push_clock(operands: *mut epd_operands, clock: epd_clock) -> epd_status {
    push(operands, || Ok(Input::Clock(clock.to_core()?)))
}

/// Appends a verbatim operand (for unknown opcodes and noop only): `len`
/// bytes of printing characters without blanks or ';'.
#[no_mangle]
pub extern "C" fn epd_operands_push_raw(operands: *mut epd_operands, text: *const c_char, len: usize) -> epd_status {
    push(operands, || Ok(Input::Raw(bytes(text, len, "text")?.to_vec())))
}

/// A refused edit: EPD_STATUS_REFUSED with the reader's code.
fn refused(e: SetError) -> Error {
    let code = e.code();
    Error::new(EPD_STATUS_REFUSED, e.message).with_code(code)
}

fn set(r: &mut RecordBuf, opcode: &str, inputs: &[OperandInput<'_>]) -> Result<()> {
    r.rec.set(opcode, inputs).map_err(refused)
}

/// Sets the operation `opcode` (NUL-terminated) with the operands in
/// `operands` (NULL for none), replacing any operation with that opcode.
/// Operands are checked as the strict reader checks them (count,
/// basetype, range; moves must be legal; strings the encoding can hold),
/// and the record must then pass the reader's cross-checks it passed
/// before (pm the first move of pv, sm of sv, draw_offer and draw_claim
/// with sm, no two opcodes that exclude each other): a record built by
/// edits from a valid one always reads back. On failure (EPD_STATUS_REFUSED, with the reason in
/// epd_last_error_message() and the code the reader would give in
/// epd_last_error_code(), "E012" say) the record is unchanged.
#[no_mangle]
pub extern "C" fn epd_record_set(
    record: *mut epd_record,
    opcode: *const c_char,
    operands: *const epd_operands,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let inputs: Vec<OperandInput<'_>> = if operands.is_null() {
            Vec::new()
        } else {
            arg_ref(operands, "operands")?.items.iter().map(Input::borrow).collect()
        };
        set(r, name, &inputs)
    })
}

/// Sets `opcode` with one integer operand (acn, acs, ce, dm, hmvc ...).
#[no_mangle]
pub extern "C" fn epd_record_set_long(record: *mut epd_record, opcode: *const c_char, value: c_long) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        set(r, name, &[OperandInput::Integer(i64::from(value))])
    })
}

/// Sets `opcode` with one 64-bit integer operand (see epd_int64).
#[no_mangle]
pub extern "C" fn epd_record_set_integer(
    record: *mut epd_record,
    opcode: *const c_char,
    value: epd_int64,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let v = value.to_i64()?;
        set(r, name, &[OperandInput::Integer(v)])
    })
}

/// Sets `opcode` with one string operand of `len` bytes at `text`
/// (id, c0, eco ...).
#[no_mangle]
pub extern "C" fn epd_record_set_string(
    record: *mut epd_record,
    opcode: *const c_char,
    text: *const c_char,
    len: usize,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let text = bytes(text, len, "text")?;
        set(r, name, &[OperandInput::String(text)])
    })
}

/// Sets `opcode` with one NUL-terminated identifier operand (refcom,
/// refreq).
#[no_mangle]
pub extern "C" fn epd_record_set_identifier(
    record: *mut epd_record,
    opcode: *const c_char,
    identifier: *const c_char,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let ident = c_utf8(identifier, "identifier")?;
        set(r, name, &[OperandInput::Identifier(ident)])
    })
}

/// Sets `opcode` with `count` move operands from `moves` (am, bm, pm, sm,
/// pv, sv). `moves` may be NULL when `count` is 0 (pv of a mated
/// position).
#[no_mangle]
pub extern "C" fn epd_record_set_moves(
    record: *mut epd_record,
    opcode: *const c_char,
    moves: *const epd_move,
    count: usize,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let list = slice(moves, count, "moves")?;
        let inputs = list.iter().map(|m| m.to_move().map(OperandInput::Move)).collect::<Result<Vec<_>>>()?;
        set(r, name, &inputs)
    })
}

/// Sets `opcode` with the moves written in `len` bytes of SAN at `text`,
/// separated by blanks ("Qg6 Rf7+"), decoded with `mode`
/// (EPD_SAN_STRICT or EPD_SAN_LENIENT) in the record's position; for
/// sequences (pv, sv, pm, sm) each in the position after the ones before
/// it. Moves are stored in canonical SAN.
///
/// Errors: text that does not decode to a move gives the SAN status of
/// that move, as epd_position_parse_san does (EPD_STATUS_SAN_SYNTAX,
/// EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_AMBIGUOUS_MOVE,
/// EPD_STATUS_NOT_CANONICAL), the message naming the token; moves that
/// decode but that the opcode does not take (a wrong count) give
/// EPD_STATUS_REFUSED, as the other epd_record_set_ functions do; a record
/// without a position gives EPD_STATUS_NO_POSITION. On any failure the
/// record is unchanged.
#[no_mangle]
pub extern "C" fn epd_record_set_san(
    record: *mut epd_record,
    opcode: *const c_char,
    text: *const c_char,
    len: usize,
    mode: epd_san_mode,
) -> epd_status {
    guard(|| {
        let r = arg_mut(record, "record")?;
        let name = c_utf8(opcode, "opcode")?;
        let text = bytes(text, len, "text")?;
        let mode = san_mode(mode)?;
        let mut pos = *r.rec.position().ok_or_else(no_position)?;
        let sequence = Opcode::from_name(name.as_bytes()).is_none_or(|k| k.order() == Order::Sequence);
        let mut inputs = Vec::new();
        for token in text.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()) {
            let m = pos.parse_san(token, mode).map_err(|e| {
                let mut err = san_error(e);
                err.message = format!("{}: {}", String::from_utf8_lossy(token), err.message);
                err
            })?;
            if sequence {
                pos.play_unchecked(m);
            }
            inputs.push(OperandInput::Move(m));
        }
        set(r, name, &inputs)
    })
}
