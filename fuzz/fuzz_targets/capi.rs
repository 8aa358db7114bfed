#![no_main]
//! The main C ABI entry points, called from Rust as a C program would:
//! record parse / parse_into / canonical / free, position from FEN, legal
//! moves, SAN parse and print, and the stream verbs over a memory buffer.
//! No call may end in EPD_STATUS_PANIC (nor abort: libFuzzer's panic hook
//! aborts on any panic, even one the boundary would catch).

use core::ffi::c_char;
use core::ptr::null_mut;
use epdkit::*;
use libfuzzer_sys::fuzz_target;

fn ok(status: epd_status) -> bool {
    assert_ne!(status, EPD_STATUS_PANIC, "panic at the C boundary");
    status == EPD_STATUS_OK
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, data)) = data.split_first() else { return };
    let text = data.as_ptr().cast::<c_char>();
    let len = data.len();
    let mode = if selector & 1 == 0 { EPD_PARSE_STRICT } else { EPD_PARSE_LENIENT };

    // Records.
    let mut diags = null_mut();
    assert!(ok(epd_diagnostics_new(&mut diags)));
    let mut rec = null_mut();
    if ok(epd_record_parse(text, len, mode, diags, &mut rec)) {
        let mut canon = null_mut();
        let mut canon_len = 0usize;
        assert!(ok(epd_record_canonical(rec, &mut canon, &mut canon_len)));
        let mut again = null_mut();
        assert!(ok(epd_record_parse(canon, canon_len, mode, null_mut(), &mut again)), "canonical form is invalid");
        let mut buf = [0 as c_char; 64];
        let mut n = 0usize;
        let status = epd_record_canonical_into(again, buf.as_mut_ptr(), buf.len(), &mut n);
        assert!(ok(status) || status == EPD_STATUS_BUFFER_TOO_SMALL);
        if ok(status) {
            assert_eq!(n, canon_len);
        }
        let mut count = 0usize;
        assert!(ok(epd_record_operation_count(again, &mut count)));
        epd_record_free(again);
        epd_string_free(canon);
        epd_record_free(rec);
    }
    let mut count = 0usize;
    assert!(ok(epd_diagnostics_count(diags, &mut count)));
    epd_diagnostics_free(diags);

    let mut pos = null_mut();
    assert!(ok(epd_position_new(&mut pos)));
    let mut rec = null_mut();
    assert!(ok(epd_record_new(pos, &mut rec)));
    let _ = ok(epd_record_parse_into(rec, text, len, mode, null_mut()));
    epd_record_free(rec);
    epd_position_free(pos);

    // A position from the first line, then SAN from the rest.
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(len);
    let mut pos = null_mut();
    if ok(epd_position_from_fen(text, split, mode, &mut pos)) {
        let mut moves = [epd_move::default(); EPD_MAX_LEGAL_MOVES];
        let mut n = 0usize;
        assert!(ok(epd_position_legal_moves(pos, moves.as_mut_ptr(), moves.len(), &mut n)));
        for &m in &moves[..n.min(8)] {
            let mut san = null_mut();
            assert!(ok(epd_position_san(pos, m, &mut san)));
            epd_string_free(san);
        }
        let rest = &data[(split + 1).min(len)..];
        let san_mode = if selector & 2 == 0 { EPD_SAN_STRICT } else { EPD_SAN_LENIENT };
        for token in rest.split(|b| b.is_ascii_whitespace()).take(16) {
            let mut m = epd_move::default();
            if ok(epd_position_parse_san(pos, token.as_ptr().cast(), token.len(), san_mode, &mut m)) {
                let mut legal = 0;
                assert!(ok(epd_position_is_legal(pos, m, &mut legal)));
                assert_eq!(legal, 1, "parse_san gave an illegal move");
                assert!(ok(epd_position_play(pos, m)));
            }
        }
        let mut fen = null_mut();
        assert!(ok(epd_position_fen(pos, &mut fen)));
        epd_string_free(fen);
        epd_position_free(pos);
    }

    // The stream verbs over the whole buffer.
    let verb = [EPD_VERB_CHECK, EPD_VERB_NORMALIZE, EPD_VERB_PURGE, EPD_VERB_REPAIR][usize::from(selector >> 2) % 4];
    let mut config = null_mut();
    assert!(ok(epd_verb_config_new(verb, &mut config)));
    assert!(ok(epd_verb_config_set_mode(config, mode)));
    if verb == EPD_VERB_PURGE {
        assert!(ok(epd_verb_config_add_purge_opcode(config, c"c0".as_ptr())));
    }
    let mut out = null_mut();
    let mut out_len = 0usize;
    if ok(epd_verb_run_memory(config, text, len, &mut out, &mut out_len, null_mut())) {
        epd_string_free(out);
    }
    epd_verb_config_free(config);
});
