//! PGN games to EPD records: a record for the initial position and after
//! every mainline move, as `epd from-pgn` writes them, with the settings
//! in a configuration handle.

use crate::cancel::epd_cancel;
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_CALLBACK, EPD_STATUS_INVALID_ARGUMENT};
use crate::ptr::{arg_mut, arg_ref, bytes, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox};
use crate::verbs::open_pair;
use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use epd_core::pgn::{Converter, EpdOptions, PgnDiagnostic};
use epd_core::Code;
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Option flags of a conversion, set with epd_pgn_config_set_flags (OR
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

/// The settings of a conversion (epd_pgn_to_epd_files,
/// epd_pgn_to_epd_memory): what each record holds (epd_pgn_flags), the
/// plies written, a report callback and a cancel flag. Created by
/// epd_pgn_config_new, freed with epd_pgn_config_free; new settings come
/// as new setter functions, so the ABI never breaks.
///
/// Thread safety: may be used from any thread; not changed while a
/// conversion uses it. The report callback runs on the thread that called
/// the conversion.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_pgn_config {
    _private: [u8; 0],
}

impl Castable for epd_pgn_config {
    type Ownership = OwnershipBox;
    type RustType = PgnConfig;
}

/// The Rust value behind an epd_pgn_config handle.
#[derive(Debug)]
pub(crate) struct PgnConfig {
    flags: epd_pgn_flags,
    /// The plies written (inclusive); None for all.
    plies: Option<(u32, u32)>,
    reporter: epd_pgn_report_callback,
    reporter_user: *mut c_void,
    cancel: Option<Arc<AtomicBool>>,
}

/// Creates conversion settings in *out_config (free them with
/// epd_pgn_config_free), with the defaults: no flags (the four EPD fields
/// of every position), every ply, no report callback, no cancel flag.
#[no_mangle]
pub extern "C" fn epd_pgn_config_new(out_config: *mut *mut epd_pgn_config) -> epd_status {
    guard(|| {
        Out::new(out_config, "out_config")?.set(to_boxed(PgnConfig {
            flags: 0,
            plies: None,
            reporter: None,
            reporter_user: core::ptr::null_mut(),
            cancel: None,
        }));
        Ok(())
    })
}

/// Frees conversion settings. Does nothing if `config` is NULL.
#[no_mangle]
pub extern "C" fn epd_pgn_config_free(config: *mut epd_pgn_config) {
    free_boxed(config);
}

/// Sets the EPD_PGN_ flags (OR'd together; 0 by default), replacing those
/// set before. An unknown bit gives EPD_STATUS_INVALID_ARGUMENT and
/// changes nothing.
#[no_mangle]
pub extern "C" fn epd_pgn_config_set_flags(config: *mut epd_pgn_config, flags: epd_pgn_flags) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        if flags & !63 != 0 {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown flags {flags:#x}")));
        }
        c.flags = flags;
        Ok(())
    })
}

/// Writes only the positions whose ply (0: the start position) is in
/// `first_ply`..`last_ply` (inclusive; 0 and ULONG_MAX, the default, for
/// all). `first_ply` above `last_ply` gives EPD_STATUS_INVALID_ARGUMENT
/// and changes nothing.
#[no_mangle]
pub extern "C" fn epd_pgn_config_set_plies(
    config: *mut epd_pgn_config,
    first_ply: c_ulong,
    last_ply: c_ulong,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        if first_ply > last_ply {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("plies {first_ply}..{last_ply} is empty")));
        }
        let sat = |v: c_ulong| u32::try_from(v).unwrap_or(u32::MAX);
        let all = first_ply == 0 && sat(last_ply) == u32::MAX;
        c.plies = (!all).then(|| (sat(first_ply), sat(last_ply)));
        Ok(())
    })
}

/// Sets the callback that receives every problem of a conversion (NULL
/// for none, the default). `user` is passed to it unchanged and must stay
/// valid while conversions use this configuration.
#[no_mangle]
pub extern "C" fn epd_pgn_config_set_reporter(
    config: *mut epd_pgn_config,
    callback: epd_pgn_report_callback,
    user: *mut c_void,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.reporter = callback;
        c.reporter_user = user;
        Ok(())
    })
}

/// Watches `cancel` (see epd_cancel; NULL: none) in the conversions of
/// this configuration from now on, as epd_verb_config_set_cancel does: a
/// conversion that sees it raised reads no further game and fails with
/// EPD_STATUS_CANCELLED, its output holding every game converted before,
/// each whole; the out-parameters are then left unwritten. The
/// configuration keeps a reference of its own: the handle may be freed
/// before it. Replaces the flag set before.
#[no_mangle]
pub extern "C" fn epd_pgn_config_set_cancel(config: *mut epd_pgn_config, cancel: *const epd_cancel) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.cancel = crate::cancel::watched(cancel)?;
        Ok(())
    })
}

fn convert(config: &PgnConfig, input: impl Read, output: impl Write, out_summary: *mut epd_pgn_summary) -> Result<()> {
    let flags = config.flags;
    let options = EpdOptions {
        supplied_move: flags & EPD_PGN_SM != 0,
        counters: flags & EPD_PGN_COUNTERS != 0,
        id: flags & EPD_PGN_ID != 0,
        comment: flags & EPD_PGN_C0 != 0,
        unique: flags & EPD_PGN_UNIQUE != 0,
        plies: config.plies,
        final_only: flags & EPD_PGN_FINAL != 0,
        ..EpdOptions::default()
    };
    let (report, user) = (config.reporter, config.reporter_user);
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
    let s = match &config.cancel {
        Some(flag) => converter.with_stop(Arc::clone(flag)),
        None => converter,
    }
    .convert(BufReader::with_capacity(64 << 10, input), &mut output, &mut reporter)
    .map_err(|e| Error::io(format!("pgn: {e}"), &e))?;
    output.flush().map_err(|e| Error::io(format!("pgn: {e}"), &e))?;
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
/// different files), as the configuration says. Problems go to its report
/// callback; a game with an error is converted up to it. Counts go to
/// *out_summary unless it is NULL. The status reports I/O errors, bad
/// arguments, a stop asked by the callback (EPD_STATUS_CALLBACK) and a
/// raised cancel flag (EPD_STATUS_CANCELLED).
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_files(
    config: *const epd_pgn_config,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let (file, out, _) = open_pair(input_path, output_path)?;
        convert(c, file, out, out_summary)
    })
}

/// As epd_pgn_to_epd_files, over `len` bytes of PGN at `input`; the
/// records are returned as a new string in *out_text (owned: free it with
/// epd_string_free) of *out_len bytes.
#[no_mangle]
pub extern "C" fn epd_pgn_to_epd_memory(
    config: *const epd_pgn_config,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_pgn_summary,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() * 2);
        convert(c, input, &mut output, out_summary)?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}
