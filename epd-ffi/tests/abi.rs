//! The C ABI driven from Rust, as a C caller would: statuses, messages,
//! out-parameters untouched on failure, per-thread last errors, a full
//! record round trip, registers, and verbs over callbacks.

use epdkit::*;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

fn last_message() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(epd_last_error_message()) }.to_string_lossy().into_owned()
}

fn last_code() -> String {
    // SAFETY: never NULL, NUL-terminated.
    unsafe { CStr::from_ptr(epd_last_error_code()) }.to_string_lossy().into_owned()
}

fn owned(p: *mut c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: an owned string from the library.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    epd_string_free(p);
    s
}

fn parse(line: &str, mode: epd_parse_mode) -> (epd_status, *mut epd_record) {
    let mut rec = ptr::null_mut();
    let st = epd_record_parse(line.as_ptr().cast(), line.len(), mode, ptr::null_mut(), &mut rec);
    (st, rec)
}

fn canonical(rec: *const epd_record) -> String {
    let mut text = ptr::null_mut();
    assert_eq!(epd_record_canonical(rec, &mut text, ptr::null_mut()), EPD_STATUS_OK);
    owned(text)
}

#[test]
fn null_pointers_give_a_status_and_a_message() {
    assert_eq!(epd_position_new(ptr::null_mut()), EPD_STATUS_NULL_POINTER);
    assert_eq!(last_message(), "out_position is NULL");
    let mut text = ptr::null_mut();
    assert_eq!(epd_position_fen(ptr::null(), &mut text), EPD_STATUS_NULL_POINTER);
    assert!(text.is_null());
    assert_eq!(last_message(), "position is NULL");
    let mut n = 0usize;
    assert_eq!(epd_record_operation_count(ptr::null(), &mut n), EPD_STATUS_NULL_POINTER);
    assert_eq!(epd_diagnostics_count(ptr::null(), &mut n), EPD_STATUS_NULL_POINTER);
    assert_eq!(epd_registers_tag_count(ptr::null(), &mut n), EPD_STATUS_NULL_POINTER);
    assert_eq!(epd_engine_analyze_record(ptr::null(), ptr::null_mut()), EPD_STATUS_NULL_POINTER);
    assert_eq!(epd_engine_start(ptr::null_mut()), EPD_STATUS_NULL_POINTER);
    assert_eq!(epd_engine_stop(ptr::null_mut()), EPD_STATUS_NULL_POINTER);
    assert_eq!(
        epd_record_parse(ptr::null(), 5, EPD_PARSE_STRICT, ptr::null_mut(), &mut ptr::null_mut()),
        EPD_STATUS_NULL_POINTER
    );
    epd_record_free(ptr::null_mut());
    epd_position_free(ptr::null_mut());
    epd_string_free(ptr::null_mut());
}

#[test]
fn invalid_records_are_reported_and_nothing_is_written() {
    let sentinel = 0x1234 as *mut epd_record;
    let mut rec = sentinel;
    let line = "8/8/8/8/8/8/8/K6k w - - ce 40000;";
    let st = epd_record_parse(line.as_ptr().cast(), line.len(), EPD_PARSE_STRICT, ptr::null_mut(), &mut rec);
    assert_eq!(st, EPD_STATUS_INVALID_RECORD);
    assert_eq!(rec, sentinel, "out-parameter written on failure");
    assert!(last_message().contains("error[E019]"), "{}", last_message());
    assert_eq!(epd_last_error_column(), 28);
    assert_eq!(last_code(), "E019");
}

/// Issue 33: an edit the reader would refuse in the record's text is
/// refused, with the reader's code in epd_last_error_code(), and the
/// record is unchanged.
#[test]
fn refused_edits_carry_the_readers_code() {
    let line = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; pv Qg6 fxg6;";
    let (st, rec) = parse(line, EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK);
    let before = canonical(rec);
    let set = |op: &str, san: &str| {
        let op = format!("{op}\0");
        epd_record_set_san(rec, op.as_ptr().cast(), san.as_ptr().cast(), san.len(), EPD_SAN_STRICT)
    };
    assert_eq!(set("pm", "Rae1"), EPD_STATUS_REFUSED);
    assert_eq!((last_code(), last_message()), ("E012".into(), "pm is not the first move of pv".into()));
    assert_eq!(canonical(rec), before);
    assert_eq!(epd_record_set_long(rec, c"ce".as_ptr(), 99_999), EPD_STATUS_REFUSED);
    assert_eq!(last_code(), "E019");
    assert_eq!(set("sm", "Qg6"), EPD_STATUS_OK);
    assert_eq!(epd_record_set(rec, c"draw_offer".as_ptr(), ptr::null()), EPD_STATUS_OK);
    let mut removed = 7;
    assert_eq!(epd_record_remove(rec, c"sm".as_ptr(), &mut removed), EPD_STATUS_REFUSED);
    assert_eq!((last_code(), removed), ("E024".into(), 7));
    assert_eq!(set("pm", "Qg6"), EPD_STATUS_OK);
    // A failure with no record at fault has no code.
    assert_eq!(epd_record_set_long(rec, ptr::null(), 1), EPD_STATUS_NULL_POINTER);
    assert_eq!(last_code(), "");
    epd_record_free(rec);
}

#[test]
fn huge_and_non_utf8_lines_are_diagnosed() {
    let mut line = b"8/8/8/8/8/8/8/K6k w - - c0 \"".to_vec();
    line.extend(vec![b'z'; 1 << 20]);
    line.extend_from_slice(b"\";");
    let mut diags = ptr::null_mut();
    assert_eq!(epd_diagnostics_new(&mut diags), EPD_STATUS_OK);
    let mut rec = ptr::null_mut();
    let st = epd_record_parse(line.as_ptr().cast(), line.len(), EPD_PARSE_STRICT, diags, &mut rec);
    assert_eq!(st, EPD_STATUS_INVALID_RECORD);
    let mut d = std::mem::MaybeUninit::<epd_diagnostic>::uninit();
    let mut n = 0;
    assert_eq!(epd_diagnostics_count(diags, &mut n), EPD_STATUS_OK);
    let codes: Vec<String> = (0..n)
        .map(|i| {
            assert_eq!(epd_diagnostics_get(diags, i, d.as_mut_ptr()), EPD_STATUS_OK);
            // SAFETY: written on success.
            let d = unsafe { d.assume_init() };
            // SAFETY: NUL-terminated within the array.
            unsafe { CStr::from_ptr(d.code_text.as_ptr()) }.to_string_lossy().into_owned()
        })
        .collect();
    assert!(codes.contains(&"E003".to_owned()) && codes.contains(&"E015".to_owned()), "{codes:?}");

    let latin1 = b"8/8/8/8/8/8/8/K6k w - - id \"Caf\xe9\";";
    let st = epd_record_parse(latin1.as_ptr().cast(), latin1.len(), EPD_PARSE_STRICT, diags, &mut rec);
    assert_eq!(st, EPD_STATUS_INVALID_RECORD);
    assert!(last_message().contains("E007"), "{}", last_message());
    let st = epd_record_parse(latin1.as_ptr().cast(), latin1.len(), EPD_PARSE_LENIENT, diags, &mut rec);
    assert_eq!(st, EPD_STATUS_OK);
    assert_eq!(canonical(rec), "8/8/8/8/8/8/8/K6k w - - id \"Café\";");
    let mut idx = 0;
    assert_eq!(epd_record_find(rec, c"\xff".as_ptr(), &mut idx), EPD_STATUS_INVALID_UTF8);
    epd_record_free(rec);
    epd_diagnostics_free(diags);
}

#[test]
fn last_errors_are_per_thread() {
    assert_eq!(epd_position_new(ptr::null_mut()), EPD_STATUS_NULL_POINTER);
    std::thread::spawn(|| {
        assert_eq!(epd_last_error_status(), EPD_STATUS_OK);
        assert_eq!(last_message(), "");
        let mut score = epd_score::default();
        assert_eq!(epd_score_from_ce(99_999, &mut score), EPD_STATUS_OUT_OF_RANGE);
    })
    .join()
    .unwrap();
    assert_eq!(epd_last_error_status(), EPD_STATUS_NULL_POINTER);
}

#[test]
fn build_a_record_and_read_it_back() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_STRICT, &mut pos), EPD_STATUS_OK);
    let mut rec = ptr::null_mut();
    assert_eq!(epd_record_new(pos, &mut rec), EPD_STATUS_OK);
    assert_eq!(epd_record_set_san(rec, c"pv".as_ptr(), c"Bb5 a6 Ba4".as_ptr(), 10, EPD_SAN_STRICT), EPD_STATUS_OK);
    assert_eq!(epd_record_set_san(rec, c"bm".as_ptr(), c"Bc4 Bb5".as_ptr(), 7, EPD_SAN_STRICT), EPD_STATUS_OK);
    assert_eq!(epd_record_set_long(rec, c"ce".as_ptr(), 25), EPD_STATUS_OK);
    assert_eq!(epd_record_set_string(rec, c"id".as_ptr(), c"say \"hi\"".as_ptr(), 8), EPD_STATUS_OK);
    let mut ops = ptr::null_mut();
    assert_eq!(epd_operands_new(&mut ops), EPD_STATUS_OK);
    let date = epd_date { year: 1995, month: 11, day: 26 };
    let time = epd_time_of_day { hour: 9, minute: 5, second: 0 };
    assert_eq!(epd_operands_push_date(ops, date), EPD_STATUS_OK);
    assert_eq!(epd_operands_push_time_of_day(ops, time), EPD_STATUS_OK);
    assert_eq!(epd_record_set(rec, c"ts".as_ptr(), ops), EPD_STATUS_OK);
    assert_eq!(epd_operands_clear(ops), EPD_STATUS_OK);
    assert_eq!(epd_operands_push_raw(ops, c"x=1".as_ptr(), 3), EPD_STATUS_OK);
    assert_eq!(epd_record_set(rec, c"D1".as_ptr(), ops), EPD_STATUS_OK);
    // A bad date never reaches the record.
    let bad = epd_date { year: 1995, month: 13, day: 1 };
    assert_eq!(epd_operands_push_date(ops, bad), EPD_STATUS_INVALID_ARGUMENT);
    epd_operands_free(ops);
    let text = canonical(rec);
    assert_eq!(
        text,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - D1 x=1; bm Bb5 Bc4; ce 25; \
         id \"say \\\"hi\\\"\"; pv Bb5 a6 Ba4; ts 1995.11.26 09:05:00;"
    );
    // Parse it back: every operand typed.
    let (st, back) = parse(&text, EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK, "{}", last_message());
    let mut idx = 0;
    assert_eq!(epd_record_find(back, c"id".as_ptr(), &mut idx), EPD_STATUS_OK);
    let (mut p, mut len) = (ptr::null(), 0);
    assert_eq!(epd_record_operand_text(back, idx, 0, &mut p, &mut len), EPD_STATUS_OK);
    // SAFETY: borrowed bytes, valid while `back` lives unchanged.
    assert_eq!(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }, b"say \"hi\"");
    assert_eq!(epd_record_find(back, c"ts".as_ptr(), &mut idx), EPD_STATUS_OK);
    let mut d = epd_date::default();
    assert_eq!(epd_record_operand_date(back, idx, 0, &mut d), EPD_STATUS_OK);
    assert_eq!(d, date);
    let mut kind = 0;
    assert_eq!(epd_record_operand_kind(back, idx, 1, &mut kind), EPD_STATUS_OK);
    assert_eq!(kind, EPD_OPERAND_TIME_OF_DAY);
    let mut removed = 0;
    assert_eq!(epd_record_remove(back, c"ts".as_ptr(), &mut removed), EPD_STATUS_OK);
    assert_eq!(removed, 1);
    epd_record_free(back);
    epd_record_free(rec);
    epd_position_free(pos);
}

#[test]
fn registers_follow_the_comment_rules() {
    let mut regs = ptr::null_mut();
    assert_eq!(epd_registers_new(&mut regs), EPD_STATUS_OK);
    for line in [
        "8/8/8/8/8/8/8/K6k w - - c0 \"game\"; c1 \"one\"; eco \"B90\"; ptp Event \"WCh\" Site \"Here\";",
        "8/8/8/8/8/8/8/K6k b - - c1; ptp Site \"There\";",
    ] {
        let (st, rec) = parse(line, EPD_PARSE_STRICT);
        assert_eq!(st, EPD_STATUS_OK, "{}", last_message());
        assert_eq!(epd_registers_apply(regs, rec), EPD_STATUS_OK);
        epd_record_free(rec);
    }
    let (mut p, mut len) = (ptr::null(), 0usize);
    assert_eq!(epd_registers_comment(regs, 0, &mut p, &mut len), EPD_STATUS_OK);
    assert_eq!(len, 4);
    assert_eq!(epd_registers_comment(regs, 1, &mut p, &mut len), EPD_STATUS_NOT_FOUND);
    assert_eq!(epd_registers_comment(regs, 10, &mut p, &mut len), EPD_STATUS_INVALID_ARGUMENT);
    assert_eq!(epd_registers_eco(regs, &mut p, &mut len), EPD_STATUS_OK);
    assert_eq!(epd_registers_tag(regs, c"Site".as_ptr(), &mut p, &mut len), EPD_STATUS_OK);
    // SAFETY: borrowed from `regs`.
    assert_eq!(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }, b"There");
    let mut n = 0;
    assert_eq!(epd_registers_tag_count(regs, &mut n), EPD_STATUS_OK);
    assert_eq!(n, 2);
    assert_eq!(epd_registers_reset(regs), EPD_STATUS_OK);
    assert_eq!(epd_registers_eco(regs, &mut p, &mut len), EPD_STATUS_NOT_FOUND);
    epd_registers_free(regs);
}

struct Io {
    input: Vec<u8>,
    at: usize,
    output: Vec<u8>,
    reports: Vec<String>,
}

extern "C" fn read_cb(user: *mut c_void, buf: *mut c_char, len: usize, out_read: *mut usize) -> c_int {
    // SAFETY: `user` is the Io below; buf has `len` bytes.
    let io = unsafe { &mut *user.cast::<Io>() };
    let n = len.min(7).min(io.input.len() - io.at); // small reads on purpose
    unsafe {
        ptr::copy_nonoverlapping(io.input[io.at..].as_ptr(), buf.cast::<u8>(), n);
        *out_read = n;
    }
    io.at += n;
    0
}

extern "C" fn write_cb(user: *mut c_void, buf: *const c_char, len: usize, out_written: *mut usize) -> c_int {
    // SAFETY: `user` is the Io below; buf has `len` bytes.
    let io = unsafe { &mut *user.cast::<Io>() };
    let n = len.min(5); // partial writes on purpose
    io.output.extend_from_slice(unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), n) });
    unsafe { *out_written = n };
    0
}

extern "C" fn report_cb(user: *mut c_void, d: *const epd_diagnostic, _line: *const c_char, _len: usize) -> c_int {
    // SAFETY: `user` is the Io below; d is valid for the call.
    let io = unsafe { &mut *user.cast::<Io>() };
    let d = unsafe { &*d };
    let msg = unsafe { CStr::from_ptr(d.message) }.to_string_lossy();
    let code = unsafe { CStr::from_ptr(d.code_text.as_ptr()) }.to_string_lossy();
    io.reports.push(format!("{}:{}: {code}: {msg}", d.line, d.column));
    0
}

#[test]
fn verbs_run_over_callbacks_with_small_reads_and_partial_writes() {
    let mut io = Io {
        input: b"8/8/8/8/8/8/8/K6k w - - id \"x\";  acn 5;\n\n8/8/8/8/8/8/8/K6k w - - ce 99999;\n".to_vec(),
        at: 0,
        output: Vec::new(),
        reports: Vec::new(),
    };
    let mut cfg = ptr::null_mut();
    assert_eq!(epd_verb_config_new(EPD_VERB_PURGE, &mut cfg), EPD_STATUS_OK);
    assert_eq!(epd_verb_config_add_purge_opcode(cfg, c"acn".as_ptr()), EPD_STATUS_OK);
    let user: *mut c_void = (&mut io as *mut Io).cast();
    assert_eq!(epd_verb_config_set_reporter(cfg, Some(report_cb), user), EPD_STATUS_OK);
    let mut summary = epd_verb_summary::default();
    let st = epd_verb_run_callbacks(cfg, Some(read_cb), user, Some(write_cb), user, &mut summary);
    assert_eq!(st, EPD_STATUS_OK, "{}", last_message());
    epd_verb_config_free(cfg);
    assert_eq!(
        String::from_utf8(io.output).unwrap(),
        "8/8/8/8/8/8/8/K6k w - - id \"x\";\n\n8/8/8/8/8/8/8/K6k w - - ce 99999;\n"
    );
    assert_eq!((summary.lines, summary.records, summary.invalid), (3, 2, 1));
    assert_eq!(io.reports.len(), 2, "{:?}", io.reports);
    assert!(io.reports.iter().any(|r| r.starts_with("3:28: E019: ")), "{:?}", io.reports);
}

#[test]
fn positions_moves_and_status() {
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    let mut moves = [epd_move::default(); EPD_MAX_LEGAL_MOVES];
    let mut n = 0;
    assert_eq!(epd_position_legal_moves(pos, moves.as_mut_ptr(), moves.len(), &mut n), EPD_STATUS_OK);
    assert_eq!(n, 20);
    for san in ["f3", "e5", "g4", "Qh4#"] {
        assert_eq!(epd_position_play_san(pos, san.as_ptr().cast(), san.len(), EPD_SAN_STRICT), EPD_STATUS_OK);
    }
    let mut flags = 0;
    assert_eq!(epd_position_status(pos, &mut flags), EPD_STATUS_OK);
    assert_eq!(flags, EPD_POSITION_CHECK | EPD_POSITION_CHECKMATE);
    assert_eq!(epd_position_legal_moves(pos, ptr::null_mut(), 0, &mut n), EPD_STATUS_OK);
    assert_eq!(n, 0);
    let mut text = ptr::null_mut();
    assert_eq!(epd_position_fen(pos, &mut text), EPD_STATUS_OK);
    assert_eq!(owned(text), "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let mut piece = epd_piece::default();
    assert_eq!(epd_position_piece_at(pos, 31, &mut piece), EPD_STATUS_OK); // h4
    assert_eq!(piece, epd_piece { role: EPD_ROLE_QUEEN, color: EPD_BLACK });
    epd_position_free(pos);

    let fen = "8/8/8/8/8/8/8/K6k w - - 0 1 junk";
    assert_eq!(
        epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_STRICT, &mut pos),
        EPD_STATUS_FEN_SYNTAX
    );
    assert_eq!(epd_last_error_column(), 29);
    let fen = "8/8/8/8/8/8/8/K7 w - -";
    assert_eq!(
        epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_STRICT, &mut pos),
        EPD_STATUS_ILLEGAL_POSITION
    );
    assert!(last_message().contains("black has no king"), "{}", last_message());
}

#[test]
fn a_verb_never_overwrites_its_input() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("same-file.epd");
    std::fs::write(&path, "8/8/8/8/8/8/8/K6k w - - id \"x\";\n").unwrap();
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let mut cfg = ptr::null_mut();
    assert_eq!(epd_verb_config_new(EPD_VERB_NORMALIZE, &mut cfg), EPD_STATUS_OK);
    let st = epd_verb_run_files(cfg, c_path.as_ptr(), c_path.as_ptr(), ptr::null_mut());
    assert_eq!(st, EPD_STATUS_INVALID_ARGUMENT, "{}", last_message());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "8/8/8/8/8/8/8/K6k w - - id \"x\";\n");
    epd_verb_config_free(cfg);
}

/// select over files and over memory writes what the core's verb writes,
/// reports what it reports, and refuses a bad condition with its column,
/// writing no out-parameter.
#[test]
fn select_over_files_and_memory_writes_what_the_core_writes() {
    use epd_core::verbs::{select_str, SelectOptions};
    let mut input = Vec::new();
    for i in 0..500 {
        let ce = i * 7 % 300 - 150;
        let crlf = if i % 3 == 0 { "\r" } else { "" };
        let spaces = if i % 4 == 0 { "  " } else { " " };
        let line = match i % 11 {
            0 => format!("8/8/8/8/8/8/8/8 w - - id \"bad.{i}\";\n"),
            1 => "\n".to_owned(),
            _ => format!("4k3/8/8/8/8/8/8/4K2R w K -{spaces}bm Rh8+; ce {ce}; id \"t.{i:03}\";{crlf}\n"),
        };
        input.extend_from_slice(line.as_bytes());
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (in_path, out_path) = (dir.join("select-in.epd"), dir.join("select-out.epd"));
    std::fs::write(&in_path, &input).unwrap();
    let c_in = std::ffi::CString::new(in_path.to_str().unwrap()).unwrap();
    let c_out = std::ffi::CString::new(out_path.to_str().unwrap()).unwrap();

    let mut cfg = ptr::null_mut();
    assert_eq!(epd_select_config_new(&mut cfg), EPD_STATUS_OK);
    assert_eq!(epd_select_config_set_mode(cfg, EPD_PARSE_LENIENT), EPD_STATUS_OK);
    for (cond, column) in [(c"ce>1x", 4), (c"ce", 3), (c"=5", 1), (c"ce!5", 3)] {
        assert_eq!(epd_select_config_add_where(cfg, cond.as_ptr()), EPD_STATUS_INVALID_ARGUMENT);
        assert_eq!(epd_last_error_column(), column, "{cond:?}: {}", last_message());
    }
    assert_eq!(epd_select_config_add_where(cfg, c"ce>=0".as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_select_config_add_where(cfg, c"bm!=Rh8".as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_select_config_add_id(cfg, c"t.?[05]".as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_select_config_add_id(cfg, c"1[0-4]$".as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_select_config_set_regex(cfg, 1), EPD_STATUS_OK);
    assert_eq!(epd_select_config_add_lines(cfg, c"..300".as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_select_config_add_lines(cfg, c"400..".as_ptr()), EPD_STATUS_OK);
    let options = SelectOptions {
        mode: epd_core::ParseMode::Lenient,
        ids: vec!["t.?[05]".into(), "1[0-4]$".into()],
        regex: true,
        lines: ["..300", "400.."].map(|r| r.parse().unwrap()).to_vec(),
        conditions: ["ce>=0", "bm!=Rh8"].map(|r| r.parse().unwrap()).to_vec(),
        ..SelectOptions::default()
    };
    let (want, core) = select_str(&input, &options).unwrap();
    assert!(core.counts.selected > 20 && core.counts.selected < 200, "{core:?}");

    let mut io = Io { input: Vec::new(), at: 0, output: Vec::new(), reports: Vec::new() };
    let user: *mut c_void = (&mut io as *mut Io).cast();
    assert_eq!(epd_select_config_set_reporter(cfg, Some(report_cb), user), EPD_STATUS_OK);
    let mut summary = epd_select_summary::default();
    let st = epd_select_run_files(cfg, c_in.as_ptr(), c_out.as_ptr(), &mut summary);
    assert_eq!(st, EPD_STATUS_OK, "{}", last_message());
    assert!(std::fs::read(&out_path).unwrap() == want);
    let counts = |s: &epd_select_summary| (s.lines, s.records, s.invalid, s.selected, s.warnings, s.errors);
    let sum = |v: u64| v as std::ffi::c_ulong;
    let core_counts = (
        sum(core.lines),
        sum(core.records),
        sum(core.invalid),
        sum(core.counts.selected),
        sum(core.warnings),
        sum(core.errors),
    );
    assert_eq!(counts(&summary), core_counts);
    assert_eq!(io.reports.len() as u64, core.warnings + core.errors);
    assert!(io.reports.iter().any(|r| r.starts_with("12:1: E002: ")), "{:?}", &io.reports[..4]);

    let (mut text, mut len) = (ptr::null_mut(), 0usize);
    let mut again = epd_select_summary::default();
    assert_eq!(epd_select_run_memory(cfg, input.as_ptr().cast(), input.len(), &mut text, &mut len, &mut again), 0);
    assert_eq!(counts(&again), core_counts);
    // SAFETY: an owned string of `len` bytes from the library.
    assert!(unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) } == want.as_slice());
    epd_string_free(text);

    // A refused filter leaves the settings as they were.
    assert_eq!(epd_select_config_add_id(cfg, c"(".as_ptr()), EPD_STATUS_INVALID_ARGUMENT);
    assert_eq!(epd_select_config_add_lines(cfg, c"5..3".as_ptr()), EPD_STATUS_INVALID_ARGUMENT);
    assert_eq!(epd_select_config_add_has(cfg, c"b-m".as_ptr()), EPD_STATUS_INVALID_ARGUMENT);
    let sentinel = 0x1234 as *mut c_char;
    let (mut text, mut len) = (sentinel, 7usize);
    assert_eq!(epd_select_run_memory(cfg, input.as_ptr().cast(), input.len(), &mut text, &mut len, ptr::null_mut()), 0);
    // SAFETY: as above.
    assert!(unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) } == want.as_slice());
    epd_string_free(text);
    let (mut text, mut len) = (sentinel, 7usize);
    let st = epd_select_run_memory(cfg, ptr::null(), 5, &mut text, &mut len, &mut again);
    assert_eq!((st, text, len), (EPD_STATUS_NULL_POINTER, sentinel, 7), "out-parameters written on failure");
    assert_eq!(epd_select_run_files(cfg, c_in.as_ptr(), c_in.as_ptr(), ptr::null_mut()), EPD_STATUS_INVALID_ARGUMENT);
    assert!(std::fs::read(&in_path).unwrap() == input, "never its own input");
    epd_select_config_free(cfg);
}

/// A search callback for the file-verb tests: plays the first legal move
/// with score 0, except that it fails on positions with Black to move
/// (to exercise faults). `user` counts the calls (atomically: with jobs
/// > 1 the callback runs on several threads).
extern "C" fn first_move_or_fail(
    user: *mut c_void,
    request: *const epd_search_request,
    result: *mut epd_search_result,
) -> c_int {
    let calls = unsafe { &*(user as *const std::sync::atomic::AtomicUsize) };
    calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let mut pos: *const epd_position = ptr::null();
    assert_eq!(epd_search_request_position(request, &mut pos), EPD_STATUS_OK);
    let mut goal = -1;
    assert_eq!(epd_search_request_goal(request, &mut goal), EPD_STATUS_OK);
    assert_eq!(goal, EPD_SEARCH_TARGET);
    let mut rec: *const epd_record = ptr::null();
    assert_eq!(epd_search_request_record(request, &mut rec), EPD_STATUS_OK);
    assert!(!rec.is_null(), "the file verbs hand the record to the callback");
    let mut turn = EPD_WHITE;
    assert_eq!(epd_position_turn(pos, &mut turn), EPD_STATUS_OK);
    if turn == EPD_BLACK {
        let why = c"black to move: not supported";
        assert_eq!(epd_search_result_set_error(result, why.as_ptr()), EPD_STATUS_OK);
        return 1;
    }
    let mut moves = [epd_move { from: 0, to: 0, role: 0, promotion: 0, kind: 0 }; 256];
    let mut n = 0usize;
    assert_eq!(epd_position_legal_moves(pos, moves.as_mut_ptr(), moves.len(), &mut n), EPD_STATUS_OK);
    assert!(n > 0);
    // The lowest move in (from, to) order: deterministic.
    let best = *moves[..n].iter().min_by_key(|m| (m.from, m.to)).unwrap();
    assert_eq!(epd_search_result_set_best_move(result, best), EPD_STATUS_OK);
    assert_eq!(epd_search_result_set_ce(result, 0), EPD_STATUS_OK);
    0
}

#[test]
fn a_c_callback_gets_the_target_verb_with_faults_and_jobs() {
    let input = "\
4k3/8/8/8/8/8/8/R3K3 w - - bm Ra8+; id \"a\";
4k3/8/8/8/8/8/8/R3K3 b - - id \"black to move\";
4k3/8/8/8/8/8/8/R3K3 w - - am Ra2; id \"c\";
not a record
";
    // The lowest (from, to) move from the White position: a1 (0) to b1 (1),
    // Rb1 (the king on e1 stops the rook at d1). "a" wants Ra8+: missed;
    // "c" only avoids Ra2: solved.
    let expected = "\
4k3/8/8/8/8/8/8/R3K3 w - - bm Ra8+; ce 0; id \"a\"; pm Rb1; pv Rb1;
4k3/8/8/8/8/8/8/R3K3 b - - id \"black to move\";
4k3/8/8/8/8/8/8/R3K3 w - - am Ra2; ce 0; id \"c\"; pm Rb1; pv Rb1;
not a record
";
    for jobs in [1, 2] {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let mut engine: *mut epd_engine = ptr::null_mut();
        let user = &calls as *const std::sync::atomic::AtomicUsize as *mut c_void;
        assert_eq!(epd_engine_new(Some(first_move_or_fail), user, &mut engine), EPD_STATUS_OK);
        assert_eq!(epd_engine_set_jobs(engine, jobs), EPD_STATUS_OK);
        let mut text: *mut c_char = ptr::null_mut();
        let mut len = 0usize;
        let mut sum = epd_analysis_summary::default();
        let st = epd_engine_run_memory(
            engine,
            EPD_SEARCH_TARGET,
            input.as_ptr().cast(),
            input.len(),
            &mut text,
            &mut len,
            &mut sum,
        );
        assert_eq!(st, EPD_STATUS_OK, "{}", last_message());
        assert_eq!(len, expected.len());
        assert_eq!(owned(text), expected, "jobs {jobs}");
        assert_eq!(
            (sum.records, sum.invalid, sum.analyzed, sum.faults, sum.solved, sum.missed, sum.unscored),
            (4, 1, 2, 1, 1, 1, 0),
            "jobs {jobs}: {sum:?}"
        );
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3, "jobs {jobs}");
        // An unknown goal is refused and nothing is written.
        let mut untouched: *mut c_char = ptr::null_mut();
        let st = epd_engine_run_memory(
            engine,
            7,
            input.as_ptr().cast(),
            input.len(),
            &mut untouched,
            &mut len,
            ptr::null_mut(),
        );
        assert_eq!(st, EPD_STATUS_INVALID_ARGUMENT);
        assert!(untouched.is_null());
        epd_engine_free(engine);
    }
}

/// The statuses the header documents for counters out of range and for
/// SAN text an opcode cannot take, with the handle unchanged on failure.
#[test]
fn documented_statuses_of_set_counters_and_set_san() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 7 12";
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_STRICT, &mut pos), EPD_STATUS_OK);
    let fen_of = |p| {
        let mut text = ptr::null_mut();
        assert_eq!(epd_position_fen(p, &mut text), EPD_STATUS_OK);
        owned(text)
    };
    assert_eq!(epd_position_set_counters(pos, 0, 0), EPD_STATUS_OUT_OF_RANGE);
    assert_eq!(epd_position_set_counters(pos, 5, 0), EPD_STATUS_OUT_OF_RANGE);
    assert_eq!(fen_of(pos), fen, "the position changed on failure");
    assert_eq!(epd_position_set_counters(pos, 3, 40), EPD_STATUS_OK);
    assert_eq!(fen_of(pos), "4k3/8/8/8/8/8/8/R3K3 w - - 3 40");
    epd_position_free(pos);

    let (st, rec) = parse("4k3/8/8/8/8/8/8/R3K3 w - - id \"x\";", EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK);
    let before = canonical(rec);
    let set = |op: &str, san: &str| {
        let op = format!("{op}\0");
        epd_record_set_san(rec, op.as_ptr().cast(), san.as_ptr().cast(), san.len(), EPD_SAN_STRICT)
    };
    // Text that is not a legal move: the move's own status, as
    // epd_position_parse_san gives it.
    for (san, want) in [
        ("Ra9", EPD_STATUS_SAN_SYNTAX),
        ("Qd8", EPD_STATUS_ILLEGAL_MOVE),
        ("Ra8", EPD_STATUS_NOT_CANONICAL),
        ("Kd1 Ra8+", EPD_STATUS_OK),
    ] {
        let mut mv = epd_move { from: 0, to: 0, role: 0, promotion: 0, kind: 0 };
        let p = {
            let mut p = ptr::null_mut();
            epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_STRICT, &mut p);
            p
        };
        let first = san.split(' ').next().unwrap();
        let direct = epd_position_parse_san(p, first.as_ptr().cast(), first.len(), EPD_SAN_STRICT, &mut mv);
        epd_position_free(p);
        assert_eq!(set("bm", san), want, "{san}");
        assert_eq!(direct, want, "{san} through epd_position_parse_san");
    }
    let after = canonical(rec);
    // Moves that decode but that the opcode cannot take: refused, the
    // record unchanged.
    assert_eq!(set("pm", "Kd1 Ke7"), EPD_STATUS_REFUSED);
    assert_eq!(set("id", "Ra8+"), EPD_STATUS_REFUSED);
    assert_eq!(canonical(rec), after);
    assert_ne!(after, before);
    epd_record_free(rec);
}

/// Diagnostics kept per record are capped as the header says, and a
/// trailing NUL is a strict warning and lenient silence.
#[test]
fn diagnostic_cap_and_trailing_nul_are_as_documented() {
    assert_eq!(EPD_MAX_DIAGNOSTICS, epd_core::MAX_DIAGNOSTICS);
    let mut diags = ptr::null_mut();
    assert_eq!(epd_diagnostics_new(&mut diags), EPD_STATUS_OK);
    let read = |line: &[u8], mode| {
        let mut rec = ptr::null_mut();
        let st = epd_record_parse(line.as_ptr().cast(), line.len(), mode, diags, &mut rec);
        epd_record_free(rec);
        let mut n = 0usize;
        assert_eq!(epd_diagnostics_count(diags, &mut n), EPD_STATUS_OK);
        let all: Vec<(epd_severity, String, String)> = (0..n)
            .map(|i| {
                // SAFETY: plain data, written by the call below.
                let mut d: epd_diagnostic = unsafe { std::mem::zeroed() };
                assert_eq!(epd_diagnostics_get(diags, i, &mut d), EPD_STATUS_OK);
                // SAFETY: NUL-terminated, borrowed from `diags`.
                let code = unsafe { CStr::from_ptr(d.code_text.as_ptr()) }.to_string_lossy().into_owned();
                // SAFETY: as above.
                let msg = unsafe { CStr::from_ptr(d.message) }.to_string_lossy().into_owned();
                (d.severity, code, msg)
            })
            .collect();
        (st, all)
    };
    // 150 bad operations: the cap, the last one kept saying what was left out.
    let mut line = b"4k3/8/8/8/8/8/8/4K3 w - -".to_vec();
    for i in 0..150 {
        line.extend_from_slice(format!(" ce {};", 40000 + i).as_bytes());
    }
    let (st, all) = read(&line, EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_INVALID_RECORD);
    assert_eq!(all.len(), EPD_MAX_DIAGNOSTICS);
    assert!(all.last().unwrap().2.contains("more diagnostics for this record not shown"), "{:?}", all.last());
    assert_eq!(all.last().unwrap().0, EPD_SEVERITY_ERROR);
    // A trailing NUL.
    let nul = b"4k3/8/8/8/8/8/8/4K3 w - -\0";
    let (st, all) = read(nul, EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK);
    assert_eq!(all.iter().map(|d| (d.0, d.1.as_str())).collect::<Vec<_>>(), [(EPD_SEVERITY_WARNING, "E004")]);
    let (st, all) = read(nul, EPD_PARSE_LENIENT);
    assert_eq!((st, all.len()), (EPD_STATUS_OK, 0));
    epd_diagnostics_free(diags);
}

/// epd_record_position carries the record's hmvc and fmvn into the
/// position's counters, as `epd convert --to fen` does (it gave 0 1).
#[test]
fn record_position_takes_hmvc_and_fmvn() {
    let position_fen = |line: &str| {
        let (st, rec) = parse(line, EPD_PARSE_STRICT);
        assert_eq!(st, EPD_STATUS_OK);
        let mut pos = ptr::null_mut();
        assert_eq!(epd_record_position(rec, &mut pos), EPD_STATUS_OK);
        let mut text = ptr::null_mut();
        assert_eq!(epd_position_fen(pos, &mut text), EPD_STATUS_OK);
        epd_position_free(pos);
        epd_record_free(rec);
        owned(text)
    };
    assert_eq!(position_fen("4k3/8/8/8/8/8/8/R3K3 w - - fmvn 10; hmvc 99;"), "4k3/8/8/8/8/8/8/R3K3 w - - 99 10");
    assert_eq!(position_fen("4k3/8/8/8/8/8/8/R3K3 w - - hmvc 7;"), "4k3/8/8/8/8/8/8/R3K3 w - - 7 1");
    assert_eq!(position_fen("4k3/8/8/8/8/8/8/R3K3 w - -"), "4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
}

/// Lenient means one thing: a position no legal game reaches (an
/// impossible check) is read by epd_position_from_fen exactly when
/// epd_record_parse reads it (leniently, with E032).
#[test]
fn lenient_position_and_record_reading_accept_the_same_positions() {
    for fen in [
        "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
        "k7/8/8/8/8/1n6/2n5/K7 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/8/8/8/8/K7 w - - 0 1",
    ] {
        for mode in [EPD_PARSE_STRICT, EPD_PARSE_LENIENT] {
            let mut pos = ptr::null_mut();
            let p = epd_position_from_fen(fen.as_ptr().cast(), fen.len(), mode, &mut pos);
            epd_position_free(pos);
            let epd = fen.rsplitn(3, ' ').nth(2).unwrap();
            let (r, rec) = parse(epd, mode);
            epd_record_free(rec);
            assert_eq!(p == EPD_STATUS_OK, r == EPD_STATUS_OK, "{fen} mode {mode}: position {p}, record {r}");
        }
    }
    let fen = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1";
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_from_fen(fen.as_ptr().cast(), fen.len(), EPD_PARSE_LENIENT, &mut pos), EPD_STATUS_OK);
    epd_position_free(pos);
}

/// A batch read leniently builds its records leniently: a record the
/// lenient reading took (an unreachable position, FEN counters) is
/// usable, where building it from its canonical text strictly failed
/// with "does not read back".
#[test]
fn a_lenient_batch_gives_its_records() {
    let text = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1 ;D1 6\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n";
    let mut batch = ptr::null_mut();
    assert_eq!(epd_batch_parse(text.as_ptr().cast(), text.len(), EPD_PARSE_LENIENT, 0, &mut batch), EPD_STATUS_OK);
    for (i, want) in [
        "B6b/8/8/8/2K5/5k2/8/b6B b - - D1 6; fmvn 1; hmvc 0;",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - fmvn 1; hmvc 0;",
    ]
    .into_iter()
    .enumerate()
    {
        let mut rec = ptr::null_mut();
        assert_eq!(epd_batch_record(batch, i, &mut rec), EPD_STATUS_OK, "{i}: {}", last_message());
        assert_eq!(canonical(rec), want);
    }
    epd_batch_free(batch);
}

/// A UCI engine for epd_engine_analyze_record is one process for every
/// call (a script counts its starts), started at once by epd_engine_start
/// (a missing program or an option it does not declare fails there), and
/// started again after epd_engine_stop.
#[cfg(unix)]
#[test]
fn a_program_engine_is_started_once_for_every_record() {
    let dir = std::env::temp_dir().join(format!("epdkit-kept-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let starts = dir.join("starts");
    let script = dir.join("engine");
    // A UCI engine in the shell: it counts its starts and answers every
    // search of the start position with 1. e4.
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho started >> '{}'\nwhile read -r line; do case \"$line\" in \
             uci) echo 'id name probe'; echo uciok;; isready) echo readyok;; \
             go*) echo 'info depth 1 score cp 10 pv e2e4'; echo 'bestmove e2e4';; quit) exit 0;; esac; done\n",
            starts.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    let program = std::ffi::CString::new(script.to_str().unwrap()).unwrap();
    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_uci(program.as_ptr(), ptr::null(), 0, &mut engine), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_depth(engine, 2), EPD_STATUS_OK);
    assert_eq!(epd_engine_start(engine), EPD_STATUS_OK, "{}", last_message());
    for _ in 0..5 {
        let (st, rec) = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", EPD_PARSE_STRICT);
        assert_eq!(st, EPD_STATUS_OK);
        assert_eq!(epd_engine_analyze_record(engine, rec), EPD_STATUS_OK, "{}", last_message());
        assert!(canonical(rec).contains(" pv "), "{}", canonical(rec));
        epd_record_free(rec);
    }
    let count = || std::fs::read_to_string(&starts).unwrap_or_default().lines().count();
    assert_eq!(count(), 1, "one process for five records");
    assert_eq!(epd_engine_stop(engine), EPD_STATUS_OK);
    let (_, rec) = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", EPD_PARSE_STRICT);
    assert_eq!(epd_engine_analyze_record(engine, rec), EPD_STATUS_OK, "{}", last_message());
    epd_record_free(rec);
    assert_eq!(count(), 2, "started again after the stop");
    epd_engine_free(engine);

    // An option the engine does not declare, and a program that is not
    // there, fail at the start, with EPD_STATUS_ENGINE.
    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_uci(program.as_ptr(), ptr::null(), 0, &mut engine), EPD_STATUS_OK);
    let (name, value) = (std::ffi::CString::new("Hsh").unwrap(), std::ffi::CString::new("16").unwrap());
    assert_eq!(epd_engine_add_uci_option(engine, name.as_ptr(), value.as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_engine_start(engine), EPD_STATUS_ENGINE);
    assert!(last_message().contains("no option \"Hsh\""), "{}", last_message());
    epd_engine_free(engine);
    let missing = std::ffi::CString::new("/nonexistent/engine").unwrap();
    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_uci(missing.as_ptr(), ptr::null(), 0, &mut engine), EPD_STATUS_OK);
    assert_eq!(epd_engine_start(engine), EPD_STATUS_ENGINE);
    assert!(
        last_message().ends_with("cannot run /nonexistent/engine: No such file or directory"),
        "{}",
        last_message()
    );
    epd_engine_free(engine);
    // The built-in engine checks its options the same way, and their
    // values too.
    for (name, value, message) in [
        ("Skill Level", "3", "no option \"Skill Level\" (it declares: Hash, Threads, MultiPV, PawnValue,"),
        ("PawnValue", "9", "option PawnValue: \"9\" is not a whole number from 10 to 400"),
        ("Hash", "lots", "option Hash: \"lots\" is not a whole number from 1 to 4096 (MiB)"),
    ] {
        let mut engine = ptr::null_mut();
        assert_eq!(epd_engine_new_builtin(0, &mut engine), EPD_STATUS_OK);
        let (n, v) = (std::ffi::CString::new(name).unwrap(), std::ffi::CString::new(value).unwrap());
        assert_eq!(epd_engine_add_uci_option(engine, n.as_ptr(), v.as_ptr()), EPD_STATUS_OK);
        assert_eq!(epd_engine_start(engine), EPD_STATUS_ENGINE, "{name}");
        assert!(last_message().contains(message), "{}", last_message());
        epd_engine_free(engine);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program engine given no limit searches 1 s per position (the
/// built-in search would otherwise never end).
#[test]
fn a_program_engine_without_limits_searches_one_second() {
    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_builtin(0, &mut engine), EPD_STATUS_OK);
    let (st, rec) = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK);
    let start = std::time::Instant::now();
    assert_eq!(epd_engine_analyze_record(engine, rec), EPD_STATUS_OK, "{}", last_message());
    let took = start.elapsed();
    assert!(took >= std::time::Duration::from_millis(900) && took < std::time::Duration::from_secs(5), "{took:?}");
    assert!(canonical(rec).contains(" pm "), "{}", canonical(rec));
    epd_record_free(rec);
    epd_engine_free(engine);
}

/// A cancel flag raised from another thread mid-run stops a file verb at
/// once, with the records finished so far written whole.
#[test]
fn a_cancel_raised_mid_run_stops_the_verb_with_whole_records() {
    let dir = std::env::temp_dir().join(format!("epdkit-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.epd"), dir.join("out.epd"));
    // No mate in sight, so each search takes its 100 ms.
    let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5;\n";
    std::fs::write(&input, line.repeat(100)).unwrap();
    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_builtin(0, &mut engine), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_time_limit(engine, 100), EPD_STATUS_OK);
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_cancel(engine, cancel), EPD_STATUS_OK);
    // The handle is shared with the raising thread as an address.
    let handle = cancel as usize;
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(450));
        assert_eq!(epd_cancel_raise(handle as *const epd_cancel), EPD_STATUS_OK);
        std::time::Instant::now()
    });
    let cstring = |p: &std::path::Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let (i, o) = (cstring(&input), cstring(&output));
    let mut summary = epd_analysis_summary { lines: 77, ..Default::default() };
    let status = epd_engine_run_files(engine, EPD_SEARCH_TARGET, i.as_ptr(), o.as_ptr(), &mut summary);
    let ended = std::time::Instant::now();
    let raised = raiser.join().unwrap();
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert!(ended.duration_since(raised) < std::time::Duration::from_millis(300), "{:?}", ended - raised);
    assert_eq!(summary.lines, 77, "the summary is written only on success");
    let written = std::fs::read_to_string(&output).unwrap();
    let n = written.lines().count();
    assert!((2..100).contains(&n) && written.ends_with('\n'), "{n} records");
    for l in written.lines() {
        assert!(l.contains(" pm ") && l.ends_with(';'), "{l}");
    }
    assert!(last_message().contains(&format!("{n} records analysed and written")), "{}", last_message());
    epd_cancel_free(cancel);
    epd_engine_free(engine);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Buffer functions tell the room they need on EPD_STATUS_BUFFER_TOO_SMALL,
/// and epd_record_canonical_into reads a const record that threads share.
#[test]
fn buffer_too_small_tells_the_size_needed() {
    let line = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";";
    let (st, rec) = parse(line, EPD_PARSE_STRICT);
    assert_eq!(st, EPD_STATUS_OK);
    let mut small = [0x55 as c_char; 10];
    let mut n = 0usize;
    assert_eq!(epd_record_canonical_into(rec, small.as_mut_ptr(), small.len(), &mut n), EPD_STATUS_BUFFER_TOO_SMALL);
    assert_eq!(n, line.len(), "the length needed, without the NUL");
    assert!(small.iter().all(|&b| b == 0x55), "the buffer was written");
    let mut exact = vec![0 as c_char; n + 1];
    assert_eq!(epd_record_canonical_into(rec, exact.as_mut_ptr(), exact.len(), &mut n), EPD_STATUS_OK);
    // SAFETY: NUL-terminated by the call.
    assert_eq!(unsafe { CStr::from_ptr(exact.as_ptr()) }.to_str().unwrap(), line);

    // One record, read by four threads at once.
    let shared = rec as usize;
    let texts: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(move || {
                    let mut buf = vec![0 as c_char; 256];
                    let mut n = 0usize;
                    for _ in 0..1000 {
                        let st = epd_record_canonical_into(shared as *const epd_record, buf.as_mut_ptr(), 256, &mut n);
                        assert_eq!(st, EPD_STATUS_OK);
                    }
                    // SAFETY: NUL-terminated by the call.
                    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(texts.iter().all(|t| t == line));
    epd_record_free(rec);

    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    let mut count = 0usize;
    assert_eq!(epd_position_legal_moves(pos, ptr::null_mut(), 0, &mut count), EPD_STATUS_BUFFER_TOO_SMALL);
    assert_eq!(count, 20);
    epd_position_free(pos);
}

/// A report callback that raises the cancel flag given as `user` on the
/// first diagnostic it hears.
extern "C" fn raise_on_report(user: *mut c_void, _d: *const epd_diagnostic, _l: *const c_char, _n: usize) -> c_int {
    assert_eq!(epd_cancel_raise(user as *const epd_cancel), EPD_STATUS_OK);
    0
}

/// The stream verbs and select stop before the next record once their
/// cancel flag is raised (here by the report of line 5's diagnostic),
/// the records before written whole; raised before the run, nothing is
/// read; lowered again, the same configuration runs to the end.
#[test]
fn a_cancel_stops_the_stream_verbs_and_select_between_records() {
    let dir = std::env::temp_dir().join(format!("epdkit-cancel-verbs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"x\";\n";
    let mut text = good.repeat(4);
    text.push_str("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm Zz9;\n");
    text.push_str(&good.repeat(20));
    let input = dir.join("in.epd");
    std::fs::write(&input, &text).unwrap();
    let cstring = |p: &std::path::Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let i = cstring(&input);
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);

    let mut verb = ptr::null_mut();
    assert_eq!(epd_verb_config_new(EPD_VERB_NORMALIZE, &mut verb), EPD_STATUS_OK);
    assert_eq!(epd_verb_config_set_cancel(verb, cancel), EPD_STATUS_OK);
    assert_eq!(epd_verb_config_set_reporter(verb, Some(raise_on_report), cancel.cast()), EPD_STATUS_OK);
    let mut select = ptr::null_mut();
    assert_eq!(epd_select_config_new(&mut select), EPD_STATUS_OK);
    assert_eq!(epd_select_config_set_cancel(select, cancel), EPD_STATUS_OK);
    assert_eq!(epd_select_config_set_reporter(select, Some(raise_on_report), cancel.cast()), EPD_STATUS_OK);
    let raise = cancel as usize;
    let o = cstring(&dir.join("out.epd"));
    for (name, kept_before) in [("normalize", 5), ("select", 4)] {
        let run = |o: &std::ffi::CString| match name {
            "normalize" => {
                let mut s = epd_verb_summary { lines: 77, ..Default::default() };
                (epd_verb_run_files(verb, i.as_ptr(), o.as_ptr(), &mut s), s.lines)
            }
            _ => {
                let mut s = epd_select_summary { lines: 77, ..Default::default() };
                (epd_select_run_files(select, i.as_ptr(), o.as_ptr(), &mut s), s.lines)
            }
        };
        assert_eq!(epd_cancel_reset(raise as *const epd_cancel), EPD_STATUS_OK);
        let (status, lines) = run(&o);
        assert_eq!(status, EPD_STATUS_CANCELLED, "{name}: {}", last_message());
        assert_eq!(lines, 77, "{name}: the summary is written only on success");
        assert!(last_message().contains("cancelled"), "{name}: {}", last_message());
        let written = std::fs::read_to_string(dir.join("out.epd")).unwrap();
        assert_eq!(written.lines().count(), kept_before, "{name}: {written}");
        assert!(written.is_empty() || written.ends_with('\n'), "{name}: whole lines");
        // Raised before the run: nothing is read.
        let (status, _) = run(&o);
        assert_eq!(status, EPD_STATUS_CANCELLED, "{name}");
        assert_eq!(std::fs::read_to_string(dir.join("out.epd")).unwrap(), "", "{name}");
    }
    // No flag: the run goes to the end (the report still raises the old
    // handle, which nothing watches now).
    assert_eq!(epd_verb_config_set_cancel(verb, ptr::null()), EPD_STATUS_OK);
    let mut s = epd_verb_summary::default();
    assert_eq!(epd_verb_run_files(verb, i.as_ptr(), o.as_ptr(), &mut s), EPD_STATUS_OK);
    assert_eq!(s.records, 25);
    epd_cancel_free(cancel);
    epd_verb_config_free(verb);
    epd_select_config_free(select);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The mate prover watches its cancel flag mid-search: raised half a
/// second into a mate-in-7 search that takes seconds, the run fails with
/// EPD_STATUS_CANCELLED at once, the record proven before written whole
/// and the summary left alone; from memory, no out-parameter is written.
#[test]
fn a_cancel_stops_the_mate_prover_mid_search() {
    let dir = std::env::temp_dir().join(format!("epdkit-cancel-mate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"quick\";\n\
                r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"slow\";\n\
                6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"never\";\n";
    let input = dir.join("in.epd");
    std::fs::write(&input, text).unwrap();
    let cstring = |p: &std::path::Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let (i, o) = (cstring(&input), cstring(&dir.join("out.epd")));
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);
    let handle = cancel as usize;
    let raise_later = move || {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            assert_eq!(epd_cancel_raise(handle as *const epd_cancel), EPD_STATUS_OK);
            std::time::Instant::now()
        })
    };

    let mut config = ptr::null_mut();
    assert_eq!(epd_mate_config_new(7, &mut config), EPD_STATUS_OK);
    assert_eq!(epd_mate_config_set_cancel(config, cancel), EPD_STATUS_OK);
    let raiser = raise_later();
    let mut summary = epd_mate_summary { lines: 77, ..Default::default() };
    let status = epd_mate_run_files(config, i.as_ptr(), o.as_ptr(), &mut summary);
    let ended = std::time::Instant::now();
    let raised = raiser.join().unwrap();
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert!(ended.duration_since(raised) < std::time::Duration::from_millis(300), "{:?}", ended - raised);
    assert!(last_message().contains("cancelled"), "{}", last_message());
    assert_eq!(summary.lines, 77, "the summary is written only on success");
    let written = std::fs::read_to_string(dir.join("out.epd")).unwrap();
    assert_eq!(written, "6k1/5ppp/8/8/8/8/8/R5K1 w - - acn 1; acs 0; dm 1; id \"quick\"; pm Ra8#; pv Ra8#;\n");

    assert_eq!(epd_cancel_reset(cancel), EPD_STATUS_OK);
    assert_eq!(epd_mate_config_set_jobs(config, 2), EPD_STATUS_OK);
    let raiser = raise_later();
    let (mut out, mut len) = (0x55 as *mut c_char, 77usize);
    let status = epd_mate_run_memory(config, text.as_ptr().cast(), text.len(), &mut out, &mut len, ptr::null_mut());
    raiser.join().unwrap();
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert_eq!((out as usize, len), (0x55, 77), "no out-parameter is written on failure");

    // The flag no longer watched (still raised): the quick records alone
    // run through.
    assert_eq!(epd_mate_config_set_cancel(config, ptr::null()), EPD_STATUS_OK);
    let quick = "6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"quick\";\n";
    let mut s = epd_mate_summary::default();
    let status = epd_mate_run_memory(config, quick.as_ptr().cast(), quick.len(), &mut out, &mut len, &mut s);
    assert_eq!(status, EPD_STATUS_OK, "{}", last_message());
    assert_eq!(owned(out), "6k1/5ppp/8/8/8/8/8/R5K1 w - - acn 1; acs 0; dm 1; id \"quick\"; pm Ra8#; pv Ra8#;\n");
    assert_eq!((s.records, s.solved), (1, 1));
    epd_mate_config_free(config);
    epd_cancel_free(cancel);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PGN report callback that raises the cancel flag given as `user`.
extern "C" fn raise_on_pgn_report(
    user: *mut c_void,
    _l: std::ffi::c_ulong,
    _c: u32,
    _e: c_int,
    _m: *const c_char,
) -> c_int {
    assert_eq!(epd_cancel_raise(user as *const epd_cancel), EPD_STATUS_OK);
    0
}

/// The PGN conversion stops before the next game once its cancel flag is
/// raised (here by the report of game 2's illegal move): games 1 and 2
/// written, game 3 never read; from memory, no out-parameter written.
#[test]
fn a_cancel_stops_the_pgn_conversion_between_games() {
    let dir = std::env::temp_dir().join(format!("epdkit-cancel-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = "1. e4 e5 1-0\n\n1. d4 Kxx9 *\n\n1. c4 c5 0-1\n";
    let input = dir.join("in.pgn");
    std::fs::write(&input, pgn).unwrap();
    let cstring = |p: &std::path::Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let (i, o) = (cstring(&input), cstring(&dir.join("out.epd")));
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);
    let mut config = ptr::null_mut();
    assert_eq!(epd_pgn_config_new(&mut config), EPD_STATUS_OK);
    assert_eq!(epd_pgn_config_set_flags(config, EPD_PGN_ID), EPD_STATUS_OK);
    assert_eq!(epd_pgn_config_set_reporter(config, Some(raise_on_pgn_report), cancel.cast()), EPD_STATUS_OK);
    assert_eq!(epd_pgn_config_set_cancel(config, cancel), EPD_STATUS_OK);
    let mut s = epd_pgn_summary { games: 77, ..Default::default() };
    let status = epd_pgn_to_epd_files(config, i.as_ptr(), o.as_ptr(), &mut s);
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert!(last_message().contains("2 games read"), "{}", last_message());
    assert_eq!(s.games, 77, "the summary is written only on success");
    let written = std::fs::read_to_string(dir.join("out.epd")).unwrap();
    let plies: Vec<&str> = written.lines().map(|l| &l[l.find("ply ").unwrap()..]).collect();
    assert_eq!(plies, ["ply 0\";", "ply 1\";", "ply 2\";", "ply 0\";", "ply 1\";"], "{written}");

    assert_eq!(epd_cancel_reset(cancel), EPD_STATUS_OK);
    assert_eq!(epd_pgn_config_set_flags(config, 0), EPD_STATUS_OK);
    let (mut out, mut len) = (0x55 as *mut c_char, 77usize);
    let status = epd_pgn_to_epd_memory(config, pgn.as_ptr().cast(), pgn.len(), &mut out, &mut len, ptr::null_mut());
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert_eq!((out as usize, len), (0x55, 77), "no out-parameter is written on failure");

    // Not watched: all three games, though the callback raises the flag.
    assert_eq!(epd_pgn_config_set_cancel(config, ptr::null()), EPD_STATUS_OK);
    let status = epd_pgn_to_epd_memory(config, pgn.as_ptr().cast(), pgn.len(), &mut out, &mut len, &mut s);
    assert_eq!(status, EPD_STATUS_OK, "{}", last_message());
    assert_eq!((s.games, s.records), (3, 3 + 2 + 3));
    assert_eq!(owned(out).lines().count(), 8);
    epd_pgn_config_free(config);
    epd_cancel_free(cancel);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A callback that searches "until told to stop": it polls
/// epd_search_request_stopped every millisecond (for at most 20 s), then
/// plays its first legal move. `user` counts the polls that read 0.
extern "C" fn search_until_stopped(
    user: *mut c_void,
    request: *const epd_search_request,
    result: *mut epd_search_result,
) -> c_int {
    let polls = unsafe { &*(user as *const std::sync::atomic::AtomicUsize) };
    let start = std::time::Instant::now();
    loop {
        let mut stopped = -1;
        assert_eq!(epd_search_request_stopped(request, &mut stopped), EPD_STATUS_OK);
        if stopped == 1 || start.elapsed() > std::time::Duration::from_secs(20) {
            break;
        }
        assert_eq!(stopped, 0);
        polls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let mut pos: *const epd_position = ptr::null();
    assert_eq!(epd_search_request_position(request, &mut pos), EPD_STATUS_OK);
    let mut moves = [epd_move { from: 0, to: 0, role: 0, promotion: 0, kind: 0 }; 256];
    let mut n = 0usize;
    assert_eq!(epd_position_legal_moves(pos, moves.as_mut_ptr(), moves.len(), &mut n), EPD_STATUS_OK);
    assert_eq!(epd_search_result_set_best_move(result, moves[0]), EPD_STATUS_OK);
    assert_eq!(epd_search_result_set_ce(result, 0), EPD_STATUS_OK);
    0
}

/// A C callback engine sees its cancel flag through
/// epd_search_request_stopped: raised from another thread 300 ms into a
/// search that would otherwise take 20 s, the callback returns and the
/// call fails with EPD_STATUS_CANCELLED at once, the record unchanged;
/// a file verb stops the same way with nothing half written.
#[test]
fn a_callback_engine_polls_its_cancel_flag() {
    let polls = std::sync::atomic::AtomicUsize::new(0);
    let mut engine = ptr::null_mut();
    let user = std::ptr::from_ref(&polls) as *mut c_void;
    assert_eq!(epd_engine_new(Some(search_until_stopped), user, &mut engine), EPD_STATUS_OK);
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_cancel(engine, cancel), EPD_STATUS_OK);
    let handle = cancel as usize;
    let raise_later = move || {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert_eq!(epd_cancel_raise(handle as *const epd_cancel), EPD_STATUS_OK);
            std::time::Instant::now()
        })
    };
    let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"x\";";
    let (_, rec) = parse(line, EPD_PARSE_STRICT);
    let raiser = raise_later();
    let status = epd_engine_analyze_record(engine, rec);
    let (ended, raised) = (std::time::Instant::now(), raiser.join().unwrap());
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert!(ended.duration_since(raised) < std::time::Duration::from_millis(200), "{:?}", ended - raised);
    assert!(polls.load(std::sync::atomic::Ordering::SeqCst) > 10, "the callback polled while it searched");
    assert_eq!(canonical(rec), line, "the record is unchanged");

    assert_eq!(epd_cancel_reset(cancel), EPD_STATUS_OK);
    let text = format!("{line}\n{line}\n");
    let raiser = raise_later();
    let (mut out, mut len) = (0x55 as *mut c_char, 77usize);
    let mut s = epd_analysis_summary::default();
    let status =
        epd_engine_run_memory(engine, EPD_SEARCH_ANALYZE, text.as_ptr().cast(), text.len(), &mut out, &mut len, &mut s);
    let (ended, raised) = (std::time::Instant::now(), raiser.join().unwrap());
    assert_eq!(status, EPD_STATUS_CANCELLED, "{}", last_message());
    assert!(ended.duration_since(raised) < std::time::Duration::from_millis(200), "{:?}", ended - raised);
    assert_eq!((out as usize, len), (0x55, 77), "no out-parameter is written on failure");
    epd_record_free(rec);
    epd_cancel_free(cancel);
    epd_engine_free(engine);
}

/// The calls on a kept program are one game (issue 45): `ucinewgame`
/// goes with the first search and after epd_engine_new_game only, never
/// per call; an option's value outside its declared range is refused at
/// the start and by epd_engine_set_uci_option; a program killed between
/// calls fails the next call with EPD_STATUS_ENGINE_TERMINATED, and the
/// call after starts it again.
#[test]
fn a_kept_program_plays_one_game_until_a_new_game() {
    let dir = std::env::temp_dir().join(format!("epdkit-game-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("sent");
    let pid = dir.join("pid");
    let script = dir.join("engine");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nwhile read -r line; do echo \"$line\" >> '{}'; case \"$line\" in \
             uci) echo 'id name probe'; echo 'option name Hash type spin default 16 min 1 max 1024'; \
             echo 'option name Style type combo default Normal var Solid var Normal'; echo uciok;; \
             isready) echo readyok;; \
             go*) echo 'info depth 1 score cp 10 pv e2e4'; echo 'bestmove e2e4';; quit) exit 0;; esac; done\n",
            pid.display(),
            log.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    let program = std::ffi::CString::new(script.to_str().unwrap()).unwrap();
    let sent =
        |command: &str| std::fs::read_to_string(&log).unwrap_or_default().lines().filter(|l| *l == command).count();
    let cstr = |s: &str| std::ffi::CString::new(s).unwrap();

    for (name, value) in [("Hash", "-5"), ("Hash", "2000"), ("Hash", "x"), ("Style", "Wild")] {
        let mut engine = ptr::null_mut();
        assert_eq!(epd_engine_new_uci(program.as_ptr(), ptr::null(), 0, &mut engine), EPD_STATUS_OK);
        assert_eq!(epd_engine_add_uci_option(engine, cstr(name).as_ptr(), cstr(value).as_ptr()), EPD_STATUS_OK);
        assert_eq!(epd_engine_start(engine), EPD_STATUS_ENGINE, "{name} {value}");
        assert!(last_message().contains(&format!("option {name}: \"{value}\" is not")), "{}", last_message());
        epd_engine_free(engine);
    }
    std::fs::remove_file(&log).unwrap();

    let mut engine = ptr::null_mut();
    assert_eq!(epd_engine_new_uci(program.as_ptr(), ptr::null(), 0, &mut engine), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_depth(engine, 2), EPD_STATUS_OK);
    assert_eq!(epd_engine_start(engine), EPD_STATUS_OK, "{}", last_message());
    let analyse = |engine: *mut epd_engine| {
        let (_, rec) = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", EPD_PARSE_STRICT);
        let st = epd_engine_analyze_record(engine, rec);
        epd_record_free(rec);
        st
    };
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    for _ in 0..3 {
        assert_eq!(analyse(engine), EPD_STATUS_OK, "{}", last_message());
        let mut analysis = ptr::null_mut();
        assert_eq!(epd_engine_analyze_position(engine, pos, ptr::null(), &mut analysis), EPD_STATUS_OK);
        epd_analysis_free(analysis);
    }
    assert_eq!((sent("ucinewgame"), sent("go depth 2")), (1, 6));
    assert_eq!(epd_engine_new_game(engine), EPD_STATUS_OK);
    assert_eq!(sent("ucinewgame"), 1, "sent with the next search");
    assert_eq!(analyse(engine), EPD_STATUS_OK);
    assert_eq!(analyse(engine), EPD_STATUS_OK);
    assert_eq!(sent("ucinewgame"), 2);

    // Options while it runs: a change is sent once, a bad value refused.
    assert_eq!(epd_engine_set_uci_option(engine, cstr("Hash").as_ptr(), cstr("64").as_ptr()), EPD_STATUS_OK);
    assert_eq!(epd_engine_set_uci_option(engine, cstr("hash").as_ptr(), cstr("64").as_ptr()), EPD_STATUS_OK);
    assert_eq!(analyse(engine), EPD_STATUS_OK, "a round trip: the engine has logged what came before");
    assert_eq!(sent("setoption name Hash value 64"), 1);
    assert_eq!(epd_engine_set_uci_option(engine, cstr("Hash").as_ptr(), cstr("0").as_ptr()), EPD_STATUS_ENGINE);
    assert_eq!(epd_engine_set_uci_option(engine, cstr("Nope").as_ptr(), cstr("1").as_ptr()), EPD_STATUS_ENGINE);

    // Killed between two calls.
    let child: i32 = std::fs::read_to_string(&pid).unwrap().trim().parse().unwrap();
    std::process::Command::new("kill").arg("-9").arg(child.to_string()).status().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(analyse(engine), EPD_STATUS_ENGINE_TERMINATED, "{}", last_message());
    assert_eq!(analyse(engine), EPD_STATUS_OK, "{}", last_message());
    assert_eq!(sent("uci"), 2, "started again");
    assert_eq!(sent("ucinewgame"), 3, "a new process, a new game");
    assert_eq!(sent("setoption name Hash value 64"), 2, "the option kept for the restart");
    epd_position_free(pos);
    epd_engine_free(engine);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Perft through the C ABI counts as `epd perft`; a raised cancel flag
/// stops it.
#[test]
fn perft_counts_and_stops_when_cancelled() {
    let mut pos = ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    let mut nodes = epd_int64 { hi: -1, lo: 0 };
    for (depth, want) in [(0, 1), (1, 20), (3, 8902), (4, 197_281)] {
        assert_eq!(epd_position_perft(pos, depth, ptr::null(), &mut nodes), EPD_STATUS_OK);
        assert_eq!((nodes.hi, nodes.lo), (0, want), "depth {depth}");
    }
    let mut cancel = ptr::null_mut();
    assert_eq!(epd_cancel_new(&mut cancel), EPD_STATUS_OK);
    assert_eq!(epd_cancel_raise(cancel), EPD_STATUS_OK);
    let mut untouched = epd_int64 { hi: 7, lo: 7 };
    assert_eq!(epd_position_perft(pos, 5, cancel, &mut untouched), EPD_STATUS_CANCELLED);
    assert_eq!((untouched.hi, untouched.lo), (7, 7));
    epd_cancel_free(cancel);
    epd_position_free(pos);
}
