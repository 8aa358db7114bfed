//! PGN games to EPD records: a record for the initial position and after
//! every mainline move, as `epd from-pgn` writes them.

// C functions take their options as arguments, outputs last.
#![allow(clippy::too_many_arguments)]

use crate::cancel::epd_cancel;
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_CALLBACK, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_IO};
use crate::ptr::{bytes, owned_string, Out};
use crate::verbs::open_pair;
use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use core::ptr;
use epd_core::pgn::{Converter, EpdOptions, PgnDiagnostic};
use epd_core::Code;
use std::io::{BufReader, BufWriter, Read, Write};

/// Option flags of epd_pgn_to_epd_files and epd_pgn_to_epd_memory (OR
/// them together).
#[allow(non_camel_case_types)]
pub type epd_pgn_flags = c_uint;
/// Add sm: the move played from each position.
pub const EPD_PGN_SM: epd_pgn_flags = 1;
/// Add hmvc and fmvn (the FEN move counters).
pub const EPD_PGN_COUNTERS: epd_pgn_flags = 2;
/// Add id: "White - Black, Event Round, ply N".
pub const EPD_PGN_ID: epd_pgn_flags = 4;
/// Add c0: the game's Event, Site, Date, Round and Result.
pub const EPD_PGN_C0: epd_pgn_flags = 8;
/// Write each position only the first time it occurs in the run (its four
/// EPD fields compared).
pub const EPD_PGN_UNIQUE: epd_pgn_flags = 16;
/// Only the last position of each game.
pub const EPD_PGN_FINAL: epd_pgn_flags = 32;

/// Receives one problem of a conversion: its 1-based line and column (0
/// when it concerns a whole game), whether it is an error (non-zero: the
/// rest of that game was not converted; epd_pgn_code gives the
/// diagnostic code of each kind) and a NUL-terminated message
/// (borrowed for the call). Return 0 to go on, non-zero to stop (the
/// conversion then fails with EPD_STATUS_CALLBACK).
#[allow(non_camel_case_types)]
pub type epd_pgn_report_callback = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        line: c_ulong,
        column: c_uint,
        error: c_int,
        message: *const c_char,
    ) -> c_int,
>;

/// The diagnostic code of a problem given to an epd_pgn_report_callback,
/// as `epd from-pgn` prints it: "P010" when `error` is non-zero (the rest
/// of the game was not converted), "P011" otherwise (an irregularity that
/// was accepted). The string is static: never free it. Its entry in the
/// code table is found with epd_code_find.
#[no_mangle]
pub extern "C" fn epd_pgn_code(error: c_int, out_code: *mut *const c_char) -> epd_status {
    guard(|| {
        let out = Out::new(out_code, "out_code")?;
        out.set(crate::diag::code_text(if error != 0 { Code::PgnError } else { Code::PgnWarning }));
        Ok(())
    })
}

/// Counts of a conversion.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_pgn_summary {
    /// Games read.
    pub games: c_ulong,
    /// Games whose every mainline move was converted.
    pub complete: c_ulong,
    /// Records written.
    pub records: c_ulong,
    /// Positions left out as repeats (EPD_PGN_UNIQUE).
    pub repeated: c_ulong,
}

fn convert(
    flags: epd_pgn_flags,
    first_ply: c_ulong,
    last_ply: c_ulong,
    report: epd_pgn_report_callback,
    user: *mut c_void,
    input: impl Read,
    output: impl Write,
    cancel: *const epd_cancel,
    out_summary: *mut epd_pgn_summary,
) -> Result<()> {
    let cancel = crate::cancel::watched(cancel)?;
    if flags & !63 != 0 {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown flags {flags:#x}")));
    }
    if first_ply > last_ply {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("plies {first_ply}..{last_ply} is empty")));
    }
    let sat = |v: c_ulong| u32::try_from(v).unwrap_or(u32::MAX);
    let all = first_ply == 0 && sat(last_ply) == u32::MAX;
    let options = EpdOptions {
        supplied_move: flags & EPD_PGN_SM != 0,
        counters: flags & EPD_PGN_COUNTERS != 0,
        id: flags & EPD_PGN_ID != 0,
        comment: flags & EPD_PGN_C0 != 0,
        unique: flags & EPD_PGN_UNIQUE != 0,
        plies: (!all).then(|| (sat(first_ply), sat(last_ply))),
        final_only: flags & EPD_PGN_FINAL != 0,
        ..EpdOptions::default()
    };
    let mut stopped = false;
    let mut reporter = |d: &PgnDiagnostic| {
        if let (Some(f), false) = (report, stopped) {
            let message = crate::error::c_string_lossy(&d.message);
            let line = c_ulong::try_from(d.line).unwrap_or(c_ulong::MAX);
            // SAFETY: the caller's callback with its own user pointer and a
            // message that lives for the call, as documented.
            if unsafe { f(user, line, d.column, c_int::from(d.error), message.as_ptr()) } != 0 {
                stopped = true;
            }
        }
    };
    let mut output = BufWriter::with_capacity(64 << 10, output);
    let converter = Converter::new(options);
    let s = match cancel {
        Some(flag) => converter.with_stop(flag),
        None => converter,
    }
    .convert(BufReader::with_capacity(64 << 10, input), &mut output, &mut reporter)
    .map_err(|e| Error::new(EPD_STATUS_IO, format!("pgn: {e}")))?;
    output.flush().map_err(|e| Error::new(EPD_STATUS_IO, format!("pgn: {e}")))?;
    if stopped {
        return Err(Error::new(EPD_STATUS_CALLBACK, "the report callback asked to stop"));
    }
    if s.interrupted {
        return Err(crate::cancel::cancelled(&format!("pgn: {} games read", s.games)));
    }
    if let Some(o) = Out::optional(out_summary) {
        let sat = |v: u64| c_ulong::try_from(v).unwrap_or(c_ulong::MAX);
        o.set(epd_pgn_summary {
            games: sat(s.games),
            complete: sat(s.complete),
            records: sat(s.records),
            repeated: sat(s.repeated),
        });
    }
    Ok(())
}

/// Converts the PGN file at `input_path` to EPD records in the file at
/// `output_path` (created or truncated; NUL-terminated paths naming
/// different files). `flags`
/// are EPD_PGN_ values; only positions whose ply (0: the start position)
/// is in `first_ply`..`last_ply` (inclusive; 0 and ULONG_MAX for all) are
/// written. Problems go to `report` (may be NULL) with `user`; a game with
/// an error is converted up to it. Counts go to *out_summary unless it is
/// NULL. The status reports I/O errors, bad arguments and a stop asked by
/// the callback.
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_files(
    flags: epd_pgn_flags,
    first_ply: c_ulong,
    last_ply: c_ulong,
    report: epd_pgn_report_callback,
    user: *mut c_void,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    epd_pgn_to_epd_files_cancellable(
        flags,
        first_ply,
        last_ply,
        report,
        user,
        ptr::null(),
        input_path,
        output_path,
        out_summary,
    )
}

/// As epd_pgn_to_epd_files, watching `cancel` (see epd_cancel; NULL:
/// none): a conversion that sees it raised reads no further game and fails
/// with EPD_STATUS_CANCELLED, the output file holding every game converted
/// before, each whole; *out_summary is then left unwritten.
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_files_cancellable(
    flags: epd_pgn_flags,
    first_ply: c_ulong,
    last_ply: c_ulong,
    report: epd_pgn_report_callback,
    user: *mut c_void,
    cancel: *const epd_cancel,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    guard(|| {
        let (file, out, _) = open_pair(input_path, output_path)?;
        convert(flags, first_ply, last_ply, report, user, file, out, cancel, out_summary)
    })
}

/// As epd_pgn_to_epd_files, over `len` bytes of PGN at `input`; the
/// records are returned as a new string in *out_text (owned: free it with
/// epd_string_free) of *out_len bytes.
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_memory(
    flags: epd_pgn_flags,
    first_ply: c_ulong,
    last_ply: c_ulong,
    report: epd_pgn_report_callback,
    user: *mut c_void,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    epd_pgn_to_epd_memory_cancellable(
        flags,
        first_ply,
        last_ply,
        report,
        user,
        ptr::null(),
        input,
        len,
        out_text,
        out_len,
        out_summary,
    )
}

/// As epd_pgn_to_epd_memory, watching `cancel` as
/// epd_pgn_to_epd_files_cancellable does; a cancelled conversion writes
/// none of the out-parameters.
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_memory_cancellable(
    flags: epd_pgn_flags,
    first_ply: c_ulong,
    last_ply: c_ulong,
    report: epd_pgn_report_callback,
    user: *mut c_void,
    cancel: *const epd_cancel,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    guard(|| {
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() * 2);
        convert(flags, first_ply, last_ply, report, user, input, &mut output, cancel, out_summary)?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
