//! Cancelling a run from another thread or a signal handler: a flag the
//! engine's runs watch, raised with epd_cancel_raise.

use crate::error::{epd_status, guard, Error, EPD_STATUS_CANCELLED};
use crate::ptr::{arg_ref, free_boxed, to_boxed, Castable, Out, OwnershipBox};
use core::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancel flag: made by epd_cancel_new (lowered), freed with
/// epd_cancel_free, raised with epd_cancel_raise. A configuration or an
/// engine watches it once given it by its one _set_cancel setter:
/// epd_verb_config_set_cancel and epd_select_config_set_cancel (the
/// stream verbs and select stop before the next record),
/// epd_pgn_config_set_cancel (the PGN conversion stops before the next
/// game), epd_mate_config_set_cancel (the mate prover stops mid-search)
/// and epd_engine_set_cancel (a run of the engine: a file verb,
/// epd_engine_analyze_record, epd_engine_analyze_position, stops the
/// search in progress and takes no new record). A run that sees it raised
/// fails with EPD_STATUS_CANCELLED; a file verb's output then holds every
/// record finished before, each whole. epd_position_perft, a single call
/// with no settings, takes it as an argument. The flag stays raised (so
/// later runs stop at once) until epd_cancel_reset.
///
/// Thread safety: every epd_cancel_ function may be called from any
/// thread at any time, several at once, during a run that watches the
/// flag included; epd_cancel_raise (given a valid handle) is also safe in
/// a signal handler: it only stores to an atomic flag. Free it only when
/// no call uses it; a configuration or an engine keeps the flag alive
/// itself, so the handle may be freed before them.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_cancel {
    _private: [u8; 0],
}

impl Castable for epd_cancel {
    type Ownership = OwnershipBox;
    /// Shared with the configurations and engines that watch it.
    type RustType = Arc<AtomicBool>;
}

/// Creates a lowered cancel flag in *out_cancel (free it with
/// epd_cancel_free).
#[no_mangle]
pub extern "C" fn epd_cancel_new(out_cancel: *mut *mut epd_cancel) -> epd_status {
    guard(|| {
        Out::new(out_cancel, "out_cancel")?.set(to_boxed(Arc::default()));
        Ok(())
    })
}

/// Frees a cancel flag. Does nothing if `cancel` is NULL. Engines that
/// watch it keep watching their own reference to it.
#[no_mangle]
pub extern "C" fn epd_cancel_free(cancel: *mut epd_cancel) {
    free_boxed(cancel);
}

/// Raises the flag: the runs that watch it stop as soon as they can
/// (within the engine's reply to `stop`, a few milliseconds for the
/// built-in engine). Raising it twice is raising it once.
#[no_mangle]
pub extern "C" fn epd_cancel_raise(cancel: *const epd_cancel) -> epd_status {
    // With a valid handle this is one atomic store (the panic boundary
    // costs nothing when nothing panics), which a signal handler may do.
    guard(|| {
        arg_ref(cancel, "cancel")?.store(true, Ordering::SeqCst);
        Ok(())
    })
}

/// Lowers the flag, so that the engines that watch it run again.
#[no_mangle]
pub extern "C" fn epd_cancel_reset(cancel: *const epd_cancel) -> epd_status {
    guard(|| {
        arg_ref(cancel, "cancel")?.store(false, Ordering::SeqCst);
        Ok(())
    })
}

/// Whether the flag is raised: 1 or 0 in *out_raised.
#[no_mangle]
pub extern "C" fn epd_cancel_is_raised(cancel: *const epd_cancel, out_raised: *mut c_int) -> epd_status {
    guard(|| {
        let c = arg_ref(cancel, "cancel")?;
        Out::new(out_raised, "out_raised")?.set(c_int::from(c.load(Ordering::SeqCst)));
        Ok(())
    })
}

/// The flag behind a handle for a setter (NULL: none).
pub(crate) fn watched(cancel: *const epd_cancel) -> Result<Option<Arc<AtomicBool>>, Error> {
    if cancel.is_null() {
        return Ok(None);
    }
    Ok(Some(Arc::clone(arg_ref(cancel, "cancel")?)))
}

/// The failure of a run that saw its cancel flag raised.
pub(crate) fn cancelled(what: &str) -> Error {
    Error::new(EPD_STATUS_CANCELLED, format!("{what}: cancelled (epd_cancel_raise)"))
}
