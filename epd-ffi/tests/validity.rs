//! Position validity through the C ABI: the library's one rule (the
//! same as `epd check` and Python; python-chess's `Board.status()` is its
//! oracle in tests/tests/python_chess_validity.rs), here the check that
//! an en passant square rules out, code E035.

use std::ptr;

use epdkit::*;

/// The en passant square says Black just played c7-c5, yet the bishop's
/// check on d5 existed before that move.
const IMPOSSIBLE: &str = "b7/8/8/rPpK4/8/5k2/6p1/7Q w - c6";

fn from_fen(fen: &str, mode: epd_parse_mode) -> epd_status {
    let mut pos = ptr::null_mut();
    let status = epd_position_from_fen(fen.as_ptr().cast(), fen.len(), mode, &mut pos);
    assert_eq!(status == EPD_STATUS_OK, !pos.is_null());
    epd_position_free(pos);
    status
}

/// The codes of a record's diagnostics, read in `mode`, and the status.
fn record_codes(text: &str, mode: epd_parse_mode) -> (epd_status, Vec<(bool, String)>) {
    let mut diags = ptr::null_mut();
    assert_eq!(epd_diagnostics_new(&mut diags), EPD_STATUS_OK);
    let mut rec = ptr::null_mut();
    let status = epd_record_parse(text.as_ptr().cast(), text.len(), mode, diags, &mut rec);
    epd_record_free(rec);
    let mut n = 0;
    assert_eq!(epd_diagnostics_count(diags, &mut n), EPD_STATUS_OK);
    let mut out = Vec::new();
    for i in 0..n {
        // SAFETY: all-zero is a valid epd_diagnostic (NULL pointers, zero numbers).
        let mut d: epd_diagnostic = unsafe { std::mem::zeroed() };
        assert_eq!(epd_diagnostics_get(diags, i, &mut d), EPD_STATUS_OK);
        // SAFETY: code_text is NUL-terminated within its 8 bytes.
        let code = unsafe { std::ffi::CStr::from_ptr(d.code_text.as_ptr()) }.to_string_lossy().into_owned();
        out.push((d.severity == EPD_SEVERITY_ERROR, code));
    }
    epd_diagnostics_free(diags);
    (status, out)
}

#[test]
fn a_check_the_en_passant_square_rules_out_is_e035() {
    assert_eq!(from_fen(IMPOSSIBLE, EPD_PARSE_STRICT), EPD_STATUS_ILLEGAL_POSITION);
    assert_eq!(from_fen(IMPOSSIBLE, EPD_PARSE_LENIENT), EPD_STATUS_OK);
    assert_eq!(from_fen("b7/8/8/rPpK4/8/5k2/6p1/7Q w - -", EPD_PARSE_STRICT), EPD_STATUS_OK);

    let line = format!("{IMPOSSIBLE} id \"x\";");
    let (status, codes) = record_codes(&line, EPD_PARSE_STRICT);
    assert_eq!(status, EPD_STATUS_INVALID_RECORD);
    assert_eq!(codes, [(true, "E035".to_owned())]);
    let (status, codes) = record_codes(&line, EPD_PARSE_LENIENT);
    assert_eq!(status, EPD_STATUS_OK);
    assert_eq!(codes, [(false, "E035".to_owned())]);
}
