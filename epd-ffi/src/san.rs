//! SAN: canonical encoding, strict and lenient decoding; UCI move text.

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_AMBIGUOUS_MOVE, EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_INVALID_ARGUMENT,
    EPD_STATUS_NOT_CANONICAL, EPD_STATUS_SAN_SYNTAX,
};
use crate::position::{epd_move, epd_position};
use crate::ptr::{arg_mut, arg_ref, bytes, owned_string, Out};
use core::ffi::{c_char, c_int};
use epd_core::{SanError, SanMode};

/// How strictly SAN is read: EPD_SAN_STRICT accepts only the canonical
/// SAN of the move, check marks included; EPD_SAN_LENIENT also accepts
/// 0-0, missing or extra x, + and #, e8Q, e8=q, over-disambiguation,
/// coordinate and long algebraic moves, e.p. and annotations.
#[allow(non_camel_case_types)]
pub type epd_san_mode = c_int;
/// Canonical SAN only.
pub const EPD_SAN_STRICT: epd_san_mode = 0;
/// What careful readers accept.
pub const EPD_SAN_LENIENT: epd_san_mode = 1;

pub(crate) fn san_mode(mode: epd_san_mode) -> Result<SanMode> {
    match mode {
        EPD_SAN_STRICT => Ok(SanMode::Strict),
        EPD_SAN_LENIENT => Ok(SanMode::Lenient),
        _ => Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown SAN mode {mode}"))),
    }
}

pub(crate) fn san_error(e: SanError) -> Error {
    let message = e.to_string();
    match e {
        SanError::Syntax { offset, .. } => Error::new(EPD_STATUS_SAN_SYNTAX, message).at(offset + 1),
        SanError::Illegal { .. } => Error::new(EPD_STATUS_ILLEGAL_MOVE, message),
        SanError::Ambiguous { .. } => Error::new(EPD_STATUS_AMBIGUOUS_MOVE, message),
        SanError::NotCanonical { .. } => Error::new(EPD_STATUS_NOT_CANONICAL, message),
    }
}

/// The canonical SAN of the legal move `mv` (with + or #), as a new string
/// in *out_san (owned: free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_position_san(
    position: *const epd_position,
    mv: epd_move,
    out_san: *mut *mut c_char,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_san, "out_san")?;
        let m = mv.to_legal(p)?;
        let mut text = Vec::with_capacity(8);
        p.append_san(m, &mut text);
        out.set(owned_string(text)?);
        Ok(())
    })
}

/// Decodes `len` bytes of SAN at `text` into the legal move it names, in
/// *out_move. `mode` is EPD_SAN_STRICT or EPD_SAN_LENIENT. Fails with
/// EPD_STATUS_SAN_SYNTAX (column in epd_last_error_column()),
/// EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_AMBIGUOUS_MOVE or (strict)
/// EPD_STATUS_NOT_CANONICAL; the message says why.
#[no_mangle]
pub extern "C" fn epd_position_parse_san(
    position: *const epd_position,
    text: *const c_char,
    len: usize,
    mode: epd_san_mode,
    out_move: *mut epd_move,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let text = bytes(text, len, "text")?;
        let mode = san_mode(mode)?;
        let out = Out::new(out_move, "out_move")?;
        let m = p.parse_san(text, mode).map_err(san_error)?;
        out.set(epd_move::from(m));
        Ok(())
    })
}

/// Decodes SAN as epd_position_parse_san does and plays the move. On
/// failure the position is unchanged.
#[no_mangle]
pub extern "C" fn epd_position_play_san(
    position: *mut epd_position,
    text: *const c_char,
    len: usize,
    mode: epd_san_mode,
) -> epd_status {
    guard(|| {
        let p = arg_mut(position, "position")?;
        let text = bytes(text, len, "text")?;
        let mode = san_mode(mode)?;
        let m = p.parse_san(text, mode).map_err(san_error)?;
        p.play_unchecked(m);
        Ok(())
    })
}

/// The UCI text of the legal move `mv` (e2e4, e7e8q; castling as e1g1, or
/// king-takes-rook e1h1 when the position needs Chess960 notation), as a
/// new string in *out_uci (owned: free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_position_uci(
    position: *const epd_position,
    mv: epd_move,
    out_uci: *mut *mut c_char,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_uci, "out_uci")?;
        let m = mv.to_legal(p)?;
        out.set(owned_string(p.uci(m).into_bytes())?);
        Ok(())
    })
}

/// Decodes `len` bytes of UCI move text at `text` (e2e4, e7e8q, e1g1,
/// Chess960 e1h1) into the legal move it names, in *out_move.
#[no_mangle]
pub extern "C" fn epd_position_parse_uci(
    position: *const epd_position,
    text: *const c_char,
    len: usize,
    out_move: *mut epd_move,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let text = bytes(text, len, "text")?;
        let out = Out::new(out_move, "out_move")?;
        let m = p.parse_uci(text).map_err(san_error)?;
        out.set(epd_move::from(m));
        Ok(())
    })
}
