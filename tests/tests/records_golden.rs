//! Golden tests for EPD records: one table per rule of §5–§6 of the
//! specification (`shared/spec/EPD-SPEC-1995.txt`), each with valid and
//! invalid records, plus the canonical encoding of §7.1.
//!
//! Every expected value below was worked out by hand from the
//! specification text (the section is cited beside each table), never
//! copied from the library's output.

use epd_core::test_hooks::RecordTestHooks as _;
use epd_core::verbs::{normalize_str, run_verb as run, Verb, VerbOptions as Options};
use epd_core::{
    has_errors, Code, Diagnostic, Opcode, OperandInput, ParseMode, Position, Record, Score, Severity, Value,
};
use epd_testkit::{random_positions, XorShift};

/// The starting array (§4.4 gives these four fields).
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
/// WAC.001; its solution is the quiet move Qg6.
const WAC1: &str = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -";
/// After 1.e4 f6: Qh5 gives check (h5-g6-f7-e8 is open), so its SAN is Qh5+.
const AFTER_E4_F6: &str = "rnbqkbnr/ppppp1pp/5p2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
/// Fool's mate, Black to play Qh4#. The en passant square g3 is given
/// because the last move was g2-g4, though no black pawn can take on g3
/// (§4.4 says exactly that this is correct).
const FOOLS_MATE: &str = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3";
/// After 1.e4 d5 2.e5 f5: White may take en passant on f6 (but not on d6).
const EP_F6: &str = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6";
/// The same placement without the en passant square.
const EP_NONE: &str = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq -";
/// Kings and rooks on their squares, all four castlings available.
const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -";
/// The same without castling availability (§4.3 "-").
const NO_CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w - -";
/// A white pawn on e7 about to promote; the black king is on a2.
const PROMOTION: &str = "8/4P3/8/8/8/8/k7/4K3 w - -";

const S: ParseMode = ParseMode::Strict;
const L: ParseMode = ParseMode::Lenient;

/// What a table row expects.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// A clean record: no diagnostic at all.
    Clean,
    /// Valid: no error (warnings allowed).
    Valid,
    /// Valid, with a warning of this code.
    Warns(&'static str),
    /// Invalid, with an error of this code.
    Error(&'static str),
}
use Expect::{Clean, Error, Valid, Warns};

fn line(fields: &str, ops: &str) -> String {
    if ops.is_empty() {
        fields.to_string()
    } else {
        format!("{fields} {ops}")
    }
}

fn show(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("{}@{}:{:?}/{:?} {}", d.code.as_str(), d.offset, d.opcode, d.operand, d))
        .collect::<Vec<_>>()
        .join("; ")
}

fn has_code(diags: &[Diagnostic], code: &str, sev: Severity) -> bool {
    diags.iter().any(|d| d.code.as_str() == code && d.severity == sev)
}

/// Checks one record; returns a description of what is wrong, if anything.
fn check_one(text: &str, mode: ParseMode, expect: Expect) -> Option<String> {
    let (rec, diags) = Record::parse(text.as_bytes(), mode);
    // Every row, clean or not, through both parsers: the fast path (tried
    // first by Record::parse) and the general one must agree.
    let (mut general, mut general_diags) = (Record::default(), Vec::new());
    general.parse_into_general(text.as_bytes(), mode, &mut general_diags);
    if !rec.same_parse(&general) || diags != general_diags {
        return Some(format!("{mode:?} {text:?}: the fast and the general parser differ"));
    }
    for d in &diags {
        if d.offset > text.len() {
            return Some(format!("{mode:?} {text:?}: offset {} beyond the line: {}", d.offset, show(&diags)));
        }
    }
    let ok = match expect {
        Clean => diags.is_empty(),
        Valid => !has_errors(&diags),
        Warns(code) => !has_errors(&diags) && has_code(&diags, code, Severity::Warning),
        Error(code) => has_errors(&diags) && has_code(&diags, code, Severity::Error),
    };
    (!ok).then(|| format!("{mode:?} {text:?}: expected {expect:?}, got [{}]", show(&diags)))
}

/// Runs a table of (operations, expectation) on one position.
fn table(fields: &str, mode: ParseMode, rows: &[(&str, Expect)]) {
    let failures: Vec<String> =
        rows.iter().filter_map(|&(ops, expect)| check_one(&line(fields, ops), mode, expect)).collect();
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

fn parse_ok(text: &str, mode: ParseMode) -> (Record, Vec<Diagnostic>) {
    let (rec, diags) = Record::parse(text.as_bytes(), mode);
    assert!(!has_errors(&diags), "{mode:?} {text:?}: {}", show(&diags));
    (rec, diags)
}

fn canonical(text: &str, mode: ParseMode) -> String {
    let (rec, _) = parse_ok(text, mode);
    String::from_utf8(rec.to_canonical()).unwrap()
}

fn find_diag<'a>(diags: &'a [Diagnostic], code: &str) -> &'a Diagnostic {
    diags.iter().find(|d| d.code.as_str() == code).unwrap_or_else(|| panic!("no {code}: {}", show(diags)))
}

// ---------------------------------------------------------------------
// Integer operands and their ranges (§5.2.3, §6.1, §6.2, §6.7, §6.8,
// §6.14, §6.15, §6.22, §6.28).
// ---------------------------------------------------------------------

/// §6.7: ce is an integer with −32768 ≤ ce ≤ 32766.
#[test]
fn ce_range() {
    table(
        START,
        S,
        &[
            ("ce 0;", Clean),
            ("ce 15;", Clean),
            ("ce -250;", Clean),
            ("ce 32766;", Clean),
            ("ce -32768;", Clean),
            ("ce -32767;", Clean),
            ("ce 32000;", Clean),
            ("ce -32000;", Clean),
            // §5.2.3: an optional plus sign is allowed (if discouraged).
            ("ce +5;", Valid),
            ("ce 32767;", Error("E019")),
            ("ce -32769;", Error("E019")),
            ("ce 40000;", Error("E019")),
            ("ce -2147483648;", Error("E019")),
            // Wrong basetype (§5.2.3 integers are sign and digits only).
            ("ce 1.5;", Error("E018")),
            ("ce abc;", Error("E018")),
            ("ce \"10\";", Error("E018")),
        ],
    );
}

/// §6.8: dm takes a positive integer.
#[test]
fn dm_positive() {
    table(
        START,
        S,
        &[
            ("dm 1;", Clean),
            ("dm 3;", Clean),
            ("dm 200;", Clean),
            ("dm 0;", Error("E019")),
            ("dm -1;", Error("E019")),
            ("dm -3;", Error("E019")),
            ("dm 0x10;", Error("E018")),
        ],
    );
}

/// §6.1, §6.2: acn and acs take a non-negative integer; acd (analysis
/// count: depth, an opcode in common use beside them) likewise.
#[test]
fn analysis_counts_non_negative() {
    table(
        START,
        S,
        &[
            ("acn 0;", Clean),
            ("acn 1;", Clean),
            // §6.1: "the value may be quite large": beyond 32 bits.
            ("acn 8031647685;", Clean),
            ("acs 0;", Clean),
            ("acs 86400;", Clean),
            ("acd 0;", Clean),
            ("acd 24;", Clean),
            ("acn -1;", Error("E019")),
            ("acs -1;", Error("E019")),
            ("acd -5;", Error("E019")),
            ("acn 1e5;", Error("E018")),
            // §6.2: the clock format is not used for acs.
            ("acs 000:00:01:00;", Error("E018")),
        ],
    );
}

/// §6.22: rc takes a positive integer.
#[test]
fn rc_positive() {
    table(START, S, &[("rc 1;", Clean), ("rc 3;", Clean), ("rc 0;", Error("E019")), ("rc -2;", Error("E019"))]);
}

/// §6.14: fmvn takes a positive integer.
#[test]
fn fmvn_positive() {
    table(
        START,
        S,
        &[("fmvn 1;", Clean), ("fmvn 57;", Clean), ("fmvn 0;", Error("E019")), ("fmvn -1;", Error("E019"))],
    );
}

/// §6.28: tcgs takes a positive integer.
#[test]
fn tcgs_positive() {
    table(
        START,
        S,
        &[("tcgs 1;", Clean), ("tcgs 12;", Clean), ("tcgs 0;", Error("E019")), ("tcgs -7;", Error("E019"))],
    );
}

/// §6.15: hmvc takes a non-negative integer.
#[test]
fn hmvc_non_negative() {
    table(
        START,
        S,
        &[("hmvc 0;", Clean), ("hmvc 49;", Clean), ("hmvc -1;", Error("E019")), ("hmvc x;", Error("E018"))],
    );
}

/// §5.2.3 requires at least the 32-bit range; EPD Kit reads 64-bit
/// integers exactly and reports anything beyond them as out of range.
#[test]
fn integers_beyond_64_bits() {
    table(
        START,
        S,
        &[
            ("acn 2147483647;", Clean),
            ("acn 9223372036854775807;", Clean),
            ("acn 9223372036854775808;", Error("E019")),
            ("acn 99999999999999999999999;", Error("E019")),
            ("ce 99999999999999999999;", Error("E019")),
            ("hmvc -9223372036854775809;", Error("E019")),
        ],
    );
    // A 64-bit value is kept exactly.
    let (rec, _) = parse_ok(&line(START, "acn 9223372036854775807;"), S);
    let acn = rec.get("acn").unwrap();
    assert_eq!(acn.operands().next().unwrap().value(), Value::Integer(i64::MAX));
}

/// The diagnostic of an out-of-range integer names the opcode and the
/// operand, and points at the operand.
#[test]
fn out_of_range_diagnostic_points_at_the_operand() {
    let text = line(START, "bm e4; ce 32767; id \"x\";");
    let (_, diags) = Record::parse(text.as_bytes(), S);
    let d = find_diag(&diags, "E019");
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.opcode.as_deref(), Some("ce"));
    assert_eq!(d.operand, Some(0));
    assert_eq!(d.offset, text.find("32767").unwrap());
}

// ---------------------------------------------------------------------
// ptp, refcom, refreq (§5.2.1, §6.20, §6.23, §6.24).
// ---------------------------------------------------------------------

/// §6.20: ptp takes pairs of an identifier (§5.2.1: 1–15 letters, digits,
/// '_') and a string.
#[test]
fn ptp_pairs() {
    table(
        START,
        S,
        &[
            ("ptp Event \"Test\";", Clean),
            ("ptp Event \"Test\" Site \"Here\";", Clean),
            ("ptp White \"Deep Blue\" Black \"Kasparov, G.\" Result \"1-0\";", Clean),
            ("ptp TimeControl \"40/7200\";", Clean),
            ("ptp Event;", Error("E017")),
            ("ptp Event \"Test\" Site;", Error("E017")),
            ("ptp \"Event\" \"Test\";", Error("E018")),
            ("ptp Event \"Test\" \"Site\" \"Here\";", Error("E018")),
            ("ptp Event-Name \"x\";", Error("E018")),
            // Sixteen characters: one more than an identifier may have.
            ("ptp ABCDEFGHIJKLMNOP \"x\";", Error("E018")),
            // The value must be a string: unquoted is an error when strict.
            ("ptp Event Test;", Error("E016")),
        ],
    );
}

/// §6.23: refcom's operand is one of seven identifiers.
#[test]
fn refcom_enumerated() {
    let mut rows: Vec<(String, Expect)> = ["conclude", "disconnect", "execute", "fault", "inform", "reset", "respond"]
        .iter()
        .map(|c| (format!("refcom {c};"), Clean))
        .collect();
    rows.extend([
        ("refcom stop;".to_string(), Error("E025")),
        ("refcom sign_on;".to_string(), Error("E025")),
        ("refcom reply;".to_string(), Error("E025")),
        // An identifier, "not enclosed in quote characters".
        ("refcom \"reset\";".to_string(), Error("E018")),
        ("refcom;".to_string(), Error("E017")),
    ]);
    let rows: Vec<(&str, Expect)> = rows.iter().map(|(s, e)| (s.as_str(), *e)).collect();
    table(START, S, &rows);
}

/// §6.24: refreq's operand is one of four identifiers.
#[test]
fn refreq_enumerated() {
    table(
        START,
        S,
        &[
            ("refreq fault;", Clean),
            ("refreq reply;", Clean),
            ("refreq sign_off;", Clean),
            ("refreq sign_on;", Clean),
            ("refreq register;", Error("E025")),
            ("refreq reset;", Error("E025")),
            ("refreq reply2;", Error("E025")),
            ("refreq \"reply\";", Error("E018")),
            // '-' is not an identifier character.
            ("refreq sign-on;", Error("E018")),
        ],
    );
}

// ---------------------------------------------------------------------
// Cross-operation rules (§6.9–§6.12, §6.19, §6.21, §6.25–§6.27).
// ---------------------------------------------------------------------

/// §6.19, §6.21: if pv is non-empty, pm is its first move.
#[test]
fn pm_is_the_first_move_of_pv() {
    table(
        START,
        S,
        &[
            ("pm e4; pv e4 e5;", Clean),
            ("pm Nf3; pv Nf3;", Clean),
            ("pm e4;", Clean),
            ("pv e4 e5 Nf3;", Clean),
            // An empty pv has no first move to disagree with.
            ("pm e4; pv;", Clean),
            ("pm d4; pv e4 e5;", Error("E012")),
            ("pm Nf3; pv Nc3;", Error("E012")),
            ("pm e3; pv e4;", Error("E012")),
        ],
    );
    // The comparison is between moves, not texts: a coordinate pv move
    // read leniently as Nf3 agrees with pm Nf3.
    table(START, L, &[("pm Nf3; pv g1f3 d5;", Warns("E030"))]);
    assert_eq!(canonical(&line(START, "pm Nf3; pv g1f3 d5;"), L), line(START, "pm Nf3; pv Nf3 d5;"));
}

/// The E012 diagnostic names pm.
#[test]
fn pm_pv_diagnostic_names_pm() {
    let text = line(START, "pm d4; pv e4 e5;");
    let (_, diags) = Record::parse(text.as_bytes(), S);
    let d = find_diag(&diags, "E012");
    assert_eq!(d.opcode.as_deref(), Some("pm"));
    // Somewhere in the pm operation.
    let pm = text.find("pm d4;").unwrap();
    assert!((pm..pm + 6).contains(&d.offset), "{}", show(&diags));
}

/// §6.26, §6.27: if sv has at least one operand, sm is its first move.
#[test]
fn sm_is_the_first_move_of_sv() {
    table(
        START,
        S,
        &[
            ("sm e4; sv e4 e5 Nf3;", Clean),
            ("sm Nf3; sv Nf3 d5;", Clean),
            ("sm d4; sv;", Clean),
            ("sv c4 e5;", Clean),
            ("sm d4; sv e4;", Error("E013")),
            ("sm e4; sv d4 d5;", Error("E013")),
        ],
    );
}

/// §6.9, §6.10, §6.11, §6.12, §6.25: draw_accept and draw_reject exclude
/// each other, draw_claim and draw_offer too, and resign excludes all four
/// (§6.25 names "draw_decline", evidently draw_reject).
#[test]
fn conflicting_draw_and_resign_opcodes() {
    table(
        START,
        S,
        &[
            ("draw_accept;", Clean),
            ("draw_reject;", Clean),
            ("resign;", Clean),
            ("draw_claim; sm e4;", Clean),
            ("draw_offer; sm e4;", Clean),
            // Rejecting an offer and offering a draw oneself: no rule
            // forbids it.
            ("draw_offer; draw_reject; sm e4;", Clean),
            ("draw_accept; draw_reject;", Error("E023")),
            ("draw_claim; draw_offer; sm e4;", Error("E023")),
            ("draw_accept; resign;", Error("E023")),
            ("draw_reject; resign;", Error("E023")),
            ("draw_offer; resign; sm e4;", Error("E023")),
            ("draw_claim; resign; sm e4;", Error("E023")),
        ],
    );
}

/// §6.10, §6.11: draw_claim and draw_offer require an sm operation.
#[test]
fn draw_offer_and_claim_need_sm() {
    table(
        START,
        S,
        &[
            ("draw_offer; sm Nf3;", Clean),
            ("draw_claim; sm Nf3;", Clean),
            ("draw_offer;", Error("E024")),
            ("draw_claim;", Error("E024")),
            ("draw_offer; pm e4;", Error("E024")),
            // draw_accept and draw_reject have no such requirement.
            ("draw_accept;", Clean),
            ("draw_reject;", Clean),
        ],
    );
}

// ---------------------------------------------------------------------
// Moves (§5.2.2, §6.3, §6.4, §6.19, §6.21, §6.26, §6.27).
// ---------------------------------------------------------------------

/// Every move operand must be playable in the record's position.
#[test]
fn moves_must_be_legal() {
    table(
        START,
        S,
        &[
            ("bm e4;", Clean),
            ("bm Nf3;", Clean),
            ("am a3 h3;", Clean),
            ("pm d4;", Clean),
            ("sm Nc3;", Clean),
            // §6.3, §6.4: zero moves is allowed.
            ("bm;", Clean),
            ("am;", Clean),
            ("bm e5;", Error("E020")),
            ("bm Ke2;", Error("E020")),
            ("bm Nd2;", Error("E020")),
            ("bm Nf6;", Error("E020")),
            ("am Qh5;", Error("E020")),
            ("pm O-O;", Error("E020")),
            ("sm Bc4;", Error("E020")),
            ("bm e4 e5;", Error("E020")),
        ],
    );
    table(WAC1, S, &[("bm Qg6; id \"WAC.001\";", Clean), ("bm Qh8;", Error("E020")), ("bm Qa3;", Error("E020"))]);
    // §4.3: castling needs the availability letters.
    table(CASTLES, S, &[("bm O-O;", Clean), ("bm O-O-O;", Clean), ("am O-O O-O-O;", Clean)]);
    table(NO_CASTLES, S, &[("bm O-O;", Error("E020")), ("bm O-O-O;", Error("E020")), ("bm Kf1;", Clean)]);
    // §4.4: en passant only onto the target square.
    table(EP_F6, S, &[("bm exf6;", Clean), ("bm exd6;", Error("E020"))]);
    table(EP_NONE, S, &[("bm exf6;", Error("E020")), ("bm Qh5+;", Clean)]);
    // The target square may be given when no capture is possible (§4.4).
    table(FOOLS_MATE, S, &[("bm Qh4#; dm 1;", Clean), ("bm Qh4#; ce 32766;", Clean)]);
}

/// §6.21, §6.27: pv and sv are sequences; each move is played in the
/// position the moves before it reach.
#[test]
fn pv_and_sv_are_played_in_sequence() {
    table(
        START,
        S,
        &[
            ("pv e4 e5 Nf3 Nc6 Bb5;", Clean),
            // Only legal after the moves before them.
            ("pv Nf3 Nf6 Ng5 Ng4 Nxf7 Nxf2 Nxd8 Nxd1;", Clean),
            ("sv d4 d5 c4;", Clean),
            ("pv e4 e4;", Error("E020")),
            ("pv e4 Nf3;", Error("E020")),
            ("pv e4 e5 Ke3;", Error("E020")),
            ("sv e4 e5 e5;", Error("E020")),
            // Each move is played: Nxf7 is not legal from the start.
            ("pv Nf3 Nf6 Nxf7;", Error("E020")),
        ],
    );
}

/// An illegal third pv move is reported at operand index 2, and the two
/// moves before it are not reported.
#[test]
fn illegal_third_pv_move_is_reported_at_its_index() {
    let text = line(START, "pv e4 e5 Ke3 Nf6;");
    let (rec, diags) = Record::parse(text.as_bytes(), S);
    assert!(has_errors(&diags));
    let e020: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == Code::IllegalMove).collect();
    assert!(!e020.is_empty(), "{}", show(&diags));
    let first = e020[0];
    assert_eq!(first.severity, Severity::Error);
    assert_eq!(first.opcode.as_deref(), Some("pv"));
    assert_eq!(first.operand, Some(2), "{}", show(&diags));
    assert_eq!(first.offset, text.find("Ke3").unwrap());
    assert!(e020.iter().all(|d| d.operand != Some(0) && d.operand != Some(1)), "{}", show(&diags));
    // The legal prefix is still read as moves.
    let pv = rec.get_known(Opcode::Pv).unwrap();
    let values: Vec<Value> = pv.operands().map(|o| o.value()).collect();
    assert!(matches!(values[0], Value::Move(Some(_))));
    assert!(matches!(values[1], Value::Move(Some(_))));
    assert!(matches!(values[2], Value::Move(None)));
}

/// §5.1: an opcode appears at most once per record.
#[test]
fn opcode_at_most_once() {
    table(
        START,
        S,
        &[
            ("am d4; bm e4;", Clean),
            ("c0 \"a\"; c1 \"b\";", Clean),
            ("D1 20; D2 400;", Clean),
            ("bm e4; bm d4;", Error("E022")),
            ("ce 1; ce 2;", Error("E022")),
            ("id \"a\"; id \"b\";", Error("E022")),
            ("c0 \"a\"; c0 \"b\";", Error("E022")),
            ("noop; noop;", Error("E022")),
            // The rule is for every opcode, known or not.
            ("D1 20; D1 20;", Error("E022")),
        ],
    );
}

/// Operand counts (§6.*): pm, sm, id, ce, dm … exactly one; cc, ts, tcri,
/// tcsi exactly two; draw_* and resign none; c0–c9, v0–v9, eco, nic at
/// most one; am, bm, pv, sv, noop any number.
#[test]
fn arity() {
    table(
        START,
        S,
        &[
            ("pm e4;", Clean),
            ("resign;", Clean),
            ("cc 000:01:02:03 000:00:00:00;", Clean),
            ("c0;", Clean),
            ("c0 \"x\";", Clean),
            ("c9;", Clean),
            ("eco;", Clean),
            ("eco \"C20\";", Clean),
            ("nic;", Clean),
            ("v0;", Clean),
            ("v9 \"Ruy Lopez\";", Clean),
            ("bm e4 d4 Nf3;", Clean),
            ("pv;", Clean),
            ("sv;", Clean),
            ("noop;", Clean),
            ("noop 1 x \"y\";", Clean),
            ("ts 1995.11.26 12:00:00;", Clean),
            ("tcri \"a@b.c\" \"Alice\";", Clean),
            ("tcsi \"d@e.f\" \"Bob\";", Clean),
            ("pm e4 d4;", Error("E017")),
            ("pm;", Error("E017")),
            ("sm e4 d4;", Error("E017")),
            ("resign x;", Error("E017")),
            ("draw_accept 1;", Error("E017")),
            ("draw_reject \"x\";", Error("E017")),
            ("cc 000:01:02:03;", Error("E017")),
            ("cc 000:01:02:03 000:00:00:00 000:00:00:00;", Error("E017")),
            ("ce;", Error("E017")),
            ("ce 1 2;", Error("E017")),
            ("dm;", Error("E017")),
            ("id;", Error("E017")),
            ("id \"a\" \"b\";", Error("E017")),
            ("c0 \"a\" \"b\";", Error("E017")),
            ("eco \"A00\" \"B00\";", Error("E017")),
            ("ts 1995.11.26;", Error("E017")),
            ("tcri \"a@b.c\";", Error("E017")),
            ("tcsi;", Error("E017")),
            ("hmvc 0 1;", Error("E017")),
            ("fmvn;", Error("E017")),
            ("acn 1 2;", Error("E017")),
            ("rc;", Error("E017")),
            ("tcgs;", Error("E017")),
        ],
    );
}

// ---------------------------------------------------------------------
// Basetypes (§5.2.5–§5.2.7, §6.6, §6.31).
// ---------------------------------------------------------------------

/// §5.2.7 clock DDD:HH:MM:SS (000–999, 00–23, 00–59, 00–59); §6.6 cc.
#[test]
fn cc_clock_values() {
    table(
        START,
        S,
        &[
            ("cc 000:01:02:03 000:00:59:59;", Clean),
            ("cc 999:23:59:59 000:00:00:00;", Clean),
            ("cc 00:01:02:03 000:00:00:00;", Error("E018")),
            ("cc 000:24:00:00 000:00:00:00;", Error("E018")),
            ("cc 000:00:60:00 000:00:00:00;", Error("E018")),
            ("cc 000:00:00:60 000:00:00:00;", Error("E018")),
            ("cc 000:01:02:03 0001:00:00:00;", Error("E018")),
            ("cc 000-01-02-03 000:00:00:00;", Error("E018")),
            ("cc 3723 0;", Error("E018")),
            ("cc \"000:01:02:03\" \"000:00:00:00\";", Error("E018")),
        ],
    );
    let (rec, _) = parse_ok(&line(START, "cc 000:01:02:03 000:00:59:59;"), S);
    let cc = rec.get_known(Opcode::Cc).unwrap();
    let clocks: Vec<Value> = cc.operands().map(|o| o.value()).collect();
    match clocks[..] {
        [Value::Clock(w), Value::Clock(b)] => {
            assert_eq!((w.days, w.hours, w.minutes, w.seconds), (0, 1, 2, 3));
            assert_eq!(w.total_seconds(), 3723);
            assert_eq!(b.total_seconds(), 3599);
        }
        _ => panic!("{clocks:?}"),
    }
}

/// §5.2.5 date YYYY.MM.DD (0001–9999, 01–12, 01–31), §5.2.6 time
/// HH:MM:SS (00–23, 00–59, 00–59), §6.31 ts takes a date then a time.
#[test]
fn ts_timestamp() {
    table(
        START,
        S,
        &[
            ("ts 1995.11.26 12:00:00;", Clean),
            ("ts 0001.01.01 00:00:00;", Clean),
            ("ts 9999.12.31 23:59:59;", Clean),
            ("ts 1995-11-26 12:00:00;", Error("E018")),
            ("ts 95.11.26 12:00:00;", Error("E018")),
            ("ts 0000.01.01 12:00:00;", Error("E018")),
            ("ts 1995.13.01 12:00:00;", Error("E018")),
            ("ts 1995.00.10 12:00:00;", Error("E018")),
            ("ts 1995.11.32 12:00:00;", Error("E018")),
            ("ts 1995.11.00 12:00:00;", Error("E018")),
            ("ts 1995.11.26 24:00:00;", Error("E018")),
            ("ts 1995.11.26 12:60:00;", Error("E018")),
            ("ts 1995.11.26 12:00:60;", Error("E018")),
            ("ts 1995.11.26 12:00;", Error("E018")),
            ("ts 12:00:00 1995.11.26;", Error("E018")),
            ("ts \"1995.11.26\" \"12:00:00\";", Error("E018")),
        ],
    );
    let (rec, _) = parse_ok(&line(START, "ts 1995.11.26 12:00:00;"), S);
    let ts = rec.get_known(Opcode::Ts).unwrap();
    let values: Vec<Value> = ts.operands().map(|o| o.value()).collect();
    match values[..] {
        [Value::Date(d), Value::TimeOfDay(t)] => {
            assert_eq!((d.year, d.month, d.day), (1995, 11, 26));
            assert_eq!((t.hour, t.minute, t.second), (12, 0, 0));
        }
        _ => panic!("{values:?}"),
    }
}

/// Moves are not strings and strings are not moves (§5.2.2, §5.1).
#[test]
fn move_and_string_basetypes() {
    table(
        START,
        S,
        &[
            ("bm \"e4\";", Error("E018")),
            ("pv e4 \"e5\";", Error("E018")),
            ("id \"e4\";", Clean),
            ("c0 \"bm e4; id x;\";", Clean),
        ],
    );
}

// ---------------------------------------------------------------------
// Strings (§5.1, §6.16).
// ---------------------------------------------------------------------

/// §6.16: id takes a string; unquoted it is an error when strict, and
/// accepted (and quoted on output) when lenient.
#[test]
fn unquoted_string() {
    table(START, S, &[("id \"BK.01\";", Clean), ("id BK.01;", Error("E016")), ("c0 comment;", Error("E016"))]);
    table(START, L, &[("id BK.01;", Warns("E016"))]);
    assert_eq!(canonical(&line(START, "id BK.01;"), L), line(START, "id \"BK.01\";"));
    let (rec, _) = parse_ok(&line(START, "id BK.01;"), L);
    assert_eq!(rec.id(), Some(&b"BK.01"[..]));
    assert_eq!(rec.get("id").unwrap().operands().next().unwrap().value(), Value::String);
}

/// §5.1: a string has fewer than 256 bytes of data.
#[test]
fn string_length_limit() {
    let ok = format!("c0 \"{}\";", "a".repeat(255));
    let long = format!("c0 \"{}\";", "a".repeat(256));
    let longer = format!("id \"{}\";", "x".repeat(1000));
    table(START, S, &[(ok.as_str(), Clean), (long.as_str(), Error("E015")), (longer.as_str(), Error("E015"))]);
    // The limit is on the data, not on its escaped spelling: 254 bytes and
    // one quote are 255 bytes of data.
    let escaped = format!("c0 \"{}\\\"\";", "a".repeat(254));
    let (rec, diags) = Record::parse(line(START, &escaped).as_bytes(), L);
    assert!(!diags.iter().any(|d| d.code == Code::StringTooLong), "{}", show(&diags));
    assert_eq!(rec.get("c0").unwrap().operands().next().unwrap().text().len(), 255);
    // The limit counts bytes: 128 two-byte characters are 256 bytes.
    let wide = format!("c0 \"{}\";", "\u{fc}".repeat(128));
    assert_eq!(wide.len(), 5 + 256 + 1);
    let (_, diags) = Record::parse(line(START, &wide).as_bytes(), S);
    assert!(has_code(&diags, "E015", Severity::Error), "{}", show(&diags));
}

/// §5.1: a string is delimited by a quote at each end.
#[test]
fn unterminated_string() {
    table(
        START,
        S,
        &[
            ("id \"WAC.001;", Error("E014")),
            ("bm e4; c0 \"abc", Error("E014")),
            ("id \"x\"; c0 \"abc; def;", Error("E014")),
        ],
    );
    let text = line(START, "bm e4; id \"WAC.001;");
    let (_, diags) = Record::parse(text.as_bytes(), S);
    assert_eq!(find_diag(&diags, "E014").offset, text.find('"').unwrap());
}

/// Escapes `\"` and `\\` (an EPD Kit extension to §5.1) are read back;
/// they are remarked on with a warning, E031, in both modes.
#[test]

fn escapes_are_read_back_with_a_warning() {
    let text = line(START, r#"c0 "say \"hi\" \\o/";"#);
    for mode in [S, L] {
        let (rec, diags) = Record::parse(text.as_bytes(), mode);
        assert!(!has_errors(&diags), "{mode:?}: {}", show(&diags));
        assert!(has_code(&diags, "E031", Severity::Warning), "{mode:?}: {}", show(&diags));
        let c0 = rec.get("c0").unwrap();
        assert_eq!(c0.operands().next().unwrap().text(), br#"say "hi" \o/"#);
        assert_eq!(rec.to_string(), text);
    }
}

/// The part of the escape rule that does not depend on the severity:
/// the escapes are read back in both modes, and E031 is reported.
#[test]
fn escapes_are_read_back() {
    let text = line(START, r#"c0 "say \"hi\" \\o/";"#);
    for mode in [S, L] {
        let (rec, diags) = Record::parse(text.as_bytes(), mode);
        assert!(diags.iter().any(|d| d.code == Code::Escape), "{mode:?}: {}", show(&diags));
        let c0 = rec.get("c0").unwrap();
        assert_eq!(c0.operands().next().unwrap().text(), br#"say "hi" \o/"#, "{mode:?}");
    }
    let (_, diags) = Record::parse(text.as_bytes(), L);
    assert!(!has_errors(&diags), "{}", show(&diags));
    assert!(has_code(&diags, "E031", Severity::Warning));
}

/// A string containing a quote is written with `\"` and re-read (strictly)
/// identically.
#[test]

fn string_with_a_quote_round_trips_strictly() {
    let mut rec = Record::from_position(&Position::startpos());
    let value: &[u8] = br#"He said "Qg6!" \ and left"#;
    rec.set("c0", &[OperandInput::String(value)]).unwrap();
    rec.set("id", &[OperandInput::String(b"q\"uote")]).unwrap();
    let out = rec.to_canonical();
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        line(START, r#"c0 "He said \"Qg6!\" \\ and left"; id "q\"uote";"#)
    );
    let (back, diags) = Record::parse(&out, S);
    assert!(!has_errors(&diags), "{}", show(&diags));
    assert_eq!(back.get("c0").unwrap().operands().next().unwrap().text(), value);
    assert_eq!(back.id(), Some(&b"q\"uote"[..]));
    let mut encoded = Vec::new();
    back.append_canonical_encoded(&mut encoded);
    assert_eq!(encoded, out);
}

/// The lenient half of the previous test: written with `\"`, re-read
/// identically.
#[test]
fn string_with_a_quote_round_trips_leniently() {
    let mut rec = Record::from_position(&Position::startpos());
    let value: &[u8] = br#"He said "Qg6!" \ and left"#;
    rec.set("c0", &[OperandInput::String(value)]).unwrap();
    let out = rec.to_canonical();
    assert_eq!(String::from_utf8(out.clone()).unwrap(), line(START, r#"c0 "He said \"Qg6!\" \\ and left";"#));
    let (back, diags) = Record::parse(&out, L);
    assert!(!has_errors(&diags), "{}", show(&diags));
    assert_eq!(back.get("c0").unwrap().operands().next().unwrap().text(), value);
    let mut encoded = Vec::new();
    back.append_canonical_encoded(&mut encoded);
    assert_eq!(encoded, out);
}

// ---------------------------------------------------------------------
// Unknown opcodes (§5.3) and operation syntax (§5, §5.1).
// ---------------------------------------------------------------------

/// §5.3: an unrecognized opcode is ignored, not an error; §7.1: every
/// operation is reproduced on output. Records already in ASCII order come
/// out byte for byte.
#[test]
fn unknown_opcodes_survive_normalization() {
    let lines = [
        line(START, "D1 20;"),
        line(START, "D1 20; Xfoo \"bar\" 3;"),
        line(START, "D1 20; D2 400; D3 8902; D4 197281; D5 4865609; D6 119060324;"),
        line(START, "Xfoo \"a b\" c-d 1.5 -0 +x;"),
        line(START, "Xfoo; bm e4; zz_top \"x\" y;"),
        line(WAC1, "Xnote \"solved\"; bm Qg6; id \"WAC.001\"; myop 1 2 3;"),
        // A ';' inside a string does not end the operation (§5.1).
        line(START, "Xfoo \"a;b\" c; bm e4; c0 \"x; y\";"),
    ];
    for l in &lines {
        for mode in [S, L] {
            let (rec, diags) = Record::parse(l.as_bytes(), mode);
            assert!(!has_errors(&diags), "{mode:?} {l}: {}", show(&diags));
            assert_eq!(rec.to_string(), *l, "{mode:?}");
            let (out, summary) = normalize_str(format!("{l}\n").as_bytes(), mode);
            assert_eq!(String::from_utf8(out).unwrap(), format!("{l}\n"), "{mode:?}");
            assert_eq!(summary.invalid, 0);
        }
    }
    // Out of order, they are moved, with their operands untouched;
    // uppercase sorts before lowercase in ASCII.
    assert_eq!(
        canonical(&line(START, "bm e4; Xbar 1 \"two\" 3; D1 20;"), S),
        line(START, "D1 20; Xbar 1 \"two\" 3; bm e4;")
    );
    let (rec, _) = parse_ok(&line(START, "D1 20; Xfoo \"bar\" 3;"), S);
    let x = rec.get("Xfoo").unwrap();
    assert_eq!(x.known(), None);
    let vals: Vec<Value> = x.operands().map(|o| o.value()).collect();
    assert_eq!(vals, [Value::Raw { quoted: true }, Value::Raw { quoted: false }]);
}

/// §5.1: an opcode starts with a letter.
#[test]
fn malformed_opcode() {
    table(
        START,
        S,
        &[
            ("bm e4; 1abc 5;", Error("E010")),
            ("bm e4; _x 1;", Error("E010")),
            ("bm e4; =y;", Error("E010")),
            // A letter and up to fourteen more characters: 15 in all.
            ("A23456789012345 1;", Clean),
            ("a_b_c_d_e_f_g_h 1;", Clean),
            ("A234567890123456 1;", Error("E010")),
        ],
    );
    // Right after the fields a digit could begin FEN counters; whatever
    // the code, the record is invalid.
    assert!(has_errors(&Record::parse(line(START, "1abc 5;").as_bytes(), S).1));
}

/// §5: every operation ends with ';'. Strict: error; lenient: accepted
/// with a warning and written with its ';'.
#[test]
fn missing_final_semicolon() {
    table(START, S, &[("bm e4", Error("E011")), ("id \"x\"; bm e4", Error("E011")), ("resign", Error("E011"))]);
    table(START, L, &[("bm e4", Warns("E011")), ("id \"x\"; bm e4", Warns("E011"))]);
    assert_eq!(canonical(&line(START, "bm e4"), L), line(START, "bm e4;"));
    assert_eq!(canonical(&line(START, "id \"x\"; bm e4"), L), line(START, "bm e4; id \"x\";"));
    assert_eq!(canonical(&line(WAC1, "bm Qg6; id \"WAC.001\""), L), line(WAC1, "bm Qg6; id \"WAC.001\";"));
}

// ---------------------------------------------------------------------
// SAN (§5.2.2).
// ---------------------------------------------------------------------

/// Moves are written in SAN, with '+' exactly when the move checks and
/// '#' exactly when it mates. Strict: a deviation is an error (E021);
/// lenient: a warning, and the move is written canonically.
#[test]
fn non_canonical_san() {
    table(START, S, &[("bm Nf3;", Clean), ("bm Nf3+;", Error("E021")), ("bm Nf3#;", Error("E021"))]);
    table(START, L, &[("bm Nf3+;", Warns("E021"))]);
    assert_eq!(canonical(&line(START, "bm Nf3+;"), L), line(START, "bm Nf3;"));

    table(AFTER_E4_F6, S, &[("bm Qh5+;", Clean), ("bm Qh5;", Error("E021")), ("bm Qh5#;", Error("E021"))]);
    table(AFTER_E4_F6, L, &[("bm Qh5;", Warns("E021"))]);
    assert_eq!(canonical(&line(AFTER_E4_F6, "bm Qh5;"), L), line(AFTER_E4_F6, "bm Qh5+;"));

    table(FOOLS_MATE, S, &[("bm Qh4#;", Clean), ("bm Qh4+;", Error("E021")), ("bm Qh4;", Error("E021"))]);
    table(FOOLS_MATE, L, &[("bm Qh4+;", Warns("E021")), ("bm Qh4;", Warns("E021"))]);
    assert_eq!(canonical(&line(FOOLS_MATE, "bm Qh4;"), L), line(FOOLS_MATE, "bm Qh4#;"));

    // Castling is written with the letter O.
    table(CASTLES, L, &[("bm 0-0;", Warns("E021"))]);
    assert_eq!(canonical(&line(CASTLES, "bm 0-0 0-0-0;"), L), line(CASTLES, "bm O-O O-O-O;"));

    // A capture is written with 'x'.
    table(EP_F6, S, &[("bm exf6;", Clean)]);
    table(EP_F6, L, &[("bm ef6;", Warns("E021"))]);
    assert_eq!(canonical(&line(EP_F6, "bm ef6;"), L), line(EP_F6, "bm exf6;"));
}

/// §5.2.2: CCN and LAN are not supported. Strict: error E030; lenient:
/// read and rewritten in SAN with a warning.
#[test]
fn coordinate_moves() {
    table(START, S, &[("bm g1f3;", Error("E030")), ("bm e2e4;", Error("E030")), ("pv e2e4 e7e5;", Error("E030"))]);
    table(START, L, &[("bm g1f3;", Warns("E030")), ("bm e2e4;", Warns("E030"))]);
    assert_eq!(canonical(&line(START, "bm g1f3;"), L), line(START, "bm Nf3;"));
    let (rec, _) = parse_ok(&line(START, "bm g1f3;"), L);
    let bm = rec.get("bm").unwrap().operands().next().unwrap();
    assert_eq!(bm.text(), b"Nf3");
    assert!(matches!(bm.value(), Value::Move(Some(_))));
    assert_eq!(canonical(&line(START, "bm e2e4 g1f3;"), L), line(START, "bm Nf3 e4;"));
    assert_eq!(canonical(&line(START, "pv e2e4 e7e5 g1f3;"), L), line(START, "pv e4 e5 Nf3;"));
    assert_eq!(canonical(&line(CASTLES, "bm e1g1;"), L), line(CASTLES, "bm O-O;"));
    // Promotion: SAN writes "e8=Q" (the queen on e8 does not reach a2).
    table(PROMOTION, S, &[("bm e8=Q;", Clean), ("bm e8=N;", Clean), ("bm e7e8q;", Error("E030"))]);
    assert_eq!(canonical(&line(PROMOTION, "bm e7e8q;"), L), line(PROMOTION, "bm e8=Q;"));
    assert_eq!(canonical(&line(PROMOTION, "bm e7e8n;"), L), line(PROMOTION, "bm e8=N;"));
}

/// `bm #3` writes a mate distance where a move belongs. Strict: error
/// E028. Lenient: `bm #N` is `dm N` (§6.8), `bm #-N` the losing mate
/// `ce -32767+2N` (§6.7): #-2 is ce −32763.
#[test]
fn mate_notation() {
    table(START, S, &[("bm #3;", Error("E028")), ("bm #-2;", Error("E028"))]);
    table(START, L, &[("bm #3;", Warns("E028")), ("bm #-2;", Warns("E028"))]);
    assert_eq!(canonical(&line(START, "bm #3;"), L), line(START, "dm 3;"));
    assert_eq!(canonical(&line(START, "bm #-2;"), L), line(START, "ce -32763;"));
    assert_eq!(canonical(&line(START, "bm #1; id \"m1\";"), L), line(START, "dm 1; id \"m1\";"));
    assert_eq!(canonical(&line(START, "bm #-5;"), L), line(START, "ce -32757;"));
    let (rec, _) = parse_ok(&line(START, "bm #-2;"), L);
    assert_eq!(rec.score(), Some(Score::MatedIn(2)));
    assert!(rec.get("bm").is_none());
}

/// The EPD fields are four (§4); FEN's fifth and sixth fields are the
/// hmvc and fmvn operations (§6.14, §6.15). Strict: error E027; lenient:
/// the counters become `hmvc` (fifth field) and `fmvn` (sixth).
#[test]
fn fen_move_counters() {
    table(START, S, &[("0 1", Error("E027")), ("0 1 bm e4;", Error("E027"))]);
    table(START, L, &[("0 1", Warns("E027")), ("0 1 bm e4;", Warns("E027"))]);
    assert_eq!(canonical(&line(START, "0 1"), L), line(START, "fmvn 1; hmvc 0;"));
    assert_eq!(canonical(&line(START, "0 1 bm e4;"), L), line(START, "bm e4; fmvn 1; hmvc 0;"));
    assert_eq!(
        canonical(&line(WAC1, "12 34 bm Qg6; id \"WAC.001\";"), L),
        line(WAC1, "bm Qg6; fmvn 34; hmvc 12; id \"WAC.001\";")
    );
    let (rec, _) = parse_ok(&line(WAC1, "12 34"), L);
    let hmvc = rec.get_known(Opcode::Hmvc).unwrap().operands().next().unwrap().value();
    let fmvn = rec.get_known(Opcode::Fmvn).unwrap().operands().next().unwrap().value();
    assert_eq!((hmvc, fmvn), (Value::Integer(12), Value::Integer(34)));
}

// ---------------------------------------------------------------------
// Scores (§6.7).
// ---------------------------------------------------------------------

/// §6.7: mate in N is 32767 − (2N − 1); losing mate in N is −32767 + 2N;
/// −32767 is checkmated; −32768 is an illegal position; |ce| ≤ 32000 is
/// an ordinary evaluation.
#[test]
fn scores_through_records() {
    let rows: [(&str, Score); 14] = [
        ("ce 32766;", Score::MateIn(1)),
        ("ce 32764;", Score::MateIn(2)),
        ("ce 32758;", Score::MateIn(5)),
        ("ce -32765;", Score::MatedIn(1)),
        ("ce -32763;", Score::MatedIn(2)),
        ("ce -32757;", Score::MatedIn(5)),
        ("ce -32767;", Score::Checkmated),
        ("ce -32768;", Score::IllegalPosition),
        ("ce 0;", Score::Centipawns(0)),
        ("ce 35;", Score::Centipawns(35)),
        ("ce -1250;", Score::Centipawns(-1250)),
        ("ce 32000;", Score::Centipawns(32000)),
        ("ce -32000;", Score::Centipawns(-32000)),
        // 32767 − 32002 = 765 plies = 2·383 − 1.
        ("ce 32002;", Score::MateIn(383)),
    ];
    for (ops, score) in rows {
        let (rec, diags) = Record::parse(line(START, ops).as_bytes(), S);
        assert!(!has_errors(&diags), "{ops}: {}", show(&diags));
        assert_eq!(rec.score(), Some(score), "{ops}");
        // And the other way: the score's ce value is the one written.
        let ce: i64 = ops[3..ops.len() - 1].parse().unwrap();
        assert_eq!(score.to_ce(), ce, "{ops}");
        assert_eq!(Score::from_ce(ce), Ok(score), "{ops}");
    }
    // Out of range: no score.
    for ops in ["ce 32767;", "ce -32769;"] {
        let (rec, diags) = Record::parse(line(START, ops).as_bytes(), S);
        assert!(has_code(&diags, "E019", Severity::Error), "{ops}");
        assert_eq!(rec.score(), None, "{ops}");
    }
    // No ce: no score.
    let (rec, _) = parse_ok(&line(START, "bm e4;"), S);
    assert_eq!(rec.score(), None);
}

/// Setting ce from a score writes the §6.7 value, and set refuses values
/// outside the ranges of §6.
#[test]
fn scores_written_through_records() {
    let mut rec = Record::from_position(&Position::startpos());
    rec.set("ce", &[OperandInput::Integer(Score::MateIn(5).to_ce())]).unwrap();
    assert_eq!(rec.to_string(), line(START, "ce 32758;"));
    rec.set("ce", &[OperandInput::Integer(Score::MatedIn(1).to_ce())]).unwrap();
    assert_eq!(rec.to_string(), line(START, "ce -32765;"));
    rec.set("ce", &[OperandInput::Integer(Score::Checkmated.to_ce())]).unwrap();
    assert_eq!(rec.to_string(), line(START, "ce -32767;"));
    assert!(rec.set("ce", &[OperandInput::Integer(32767)]).is_err());
    assert!(rec.set("ce", &[OperandInput::Integer(-32769)]).is_err());
    assert!(rec.set("dm", &[OperandInput::Integer(0)]).is_err());
    assert!(rec.set("rc", &[OperandInput::Integer(0)]).is_err());
    assert!(rec.set("fmvn", &[OperandInput::Integer(0)]).is_err());
    assert!(rec.set("tcgs", &[OperandInput::Integer(0)]).is_err());
    assert!(rec.set("hmvc", &[OperandInput::Integer(-1)]).is_err());
    assert!(rec.set("acn", &[OperandInput::Integer(-1)]).is_err());
    // The last good value stays.
    assert_eq!(rec.score(), Some(Score::Checkmated));
    assert_eq!(rec.remove("ce"), 1);
    assert_eq!(rec.to_string(), START);
}

// ---------------------------------------------------------------------
// The canonical encoding (§7.1).
// ---------------------------------------------------------------------

/// §7.1 actions 4 and 5: operations in ASCII order of opcode; operands of
/// set opcodes (am, bm: §6.3, §6.4 "they appear in ASCII order") in ASCII
/// order; pv keeps its order (§5.1).
#[test]
fn canonical_order() {
    let input = line(
        START,
        "pv e4 e5 Nf3; id \"x\"; c0 \"comment\"; bm e4 d4 Nf3 c4; am h4 a4; ce 15; acn 1000; acs 2; \
         acd 12; pm e4; hmvc 0; fmvn 1; D1 20; Xfoo \"bar\" 3; cc 000:01:02:03 000:00:59:59; \
         ts 1995.11.26 12:00:00; rc 1; noop; v0 \"Main\"; eco \"A00\"; nic \"xx\"; tcgs 1; \
         tcri \"a@b\" \"Bob\"; tcsi \"c@d\" \"Eve\"; ptp Event \"Test\" Site \"Here\"; c9 \"late\";",
    );
    let expected = line(
        START,
        "D1 20; Xfoo \"bar\" 3; acd 12; acn 1000; acs 2; am a4 h4; bm Nf3 c4 d4 e4; c0 \"comment\"; \
         c9 \"late\"; cc 000:01:02:03 000:00:59:59; ce 15; eco \"A00\"; fmvn 1; hmvc 0; id \"x\"; \
         nic \"xx\"; noop; pm e4; ptp Event \"Test\" Site \"Here\"; pv e4 e5 Nf3; rc 1; tcgs 1; \
         tcri \"a@b\" \"Bob\"; tcsi \"c@d\" \"Eve\"; ts 1995.11.26 12:00:00; v0 \"Main\";",
    );
    for mode in [S, L] {
        assert_eq!(canonical(&input, mode), expected, "{mode:?}");
        // Already canonical: unchanged.
        assert_eq!(canonical(&expected, mode), expected, "{mode:?}");
    }
    let rows: &[(&str, &str, &str)] = &[
        // Draw opcodes: "dm" < "draw_accept" < "draw_offer" < "draw_reject".
        (START, "draw_reject; sm e4; draw_offer; dm 2;", "dm 2; draw_offer; draw_reject; sm e4;"),
        // "refcom" < "refreq" < "resign"; "sm" < "sv".
        (START, "sv e4 e5; sm e4; refreq reply;", "refreq reply; sm e4; sv e4 e5;"),
        (START, "resign; refcom conclude;", "refcom conclude; resign;"),
        // pv order is play order, never sorted.
        (START, "pv Nf3 d5 e3;", "pv Nf3 d5 e3;"),
        // cc and ts: white then black, date then time.
        (START, "cc 000:00:10:00 000:00:05:00;", "cc 000:00:10:00 000:00:05:00;"),
        // 'K' < 'O' < 'R'; "O-O" is a prefix of "O-O-O".
        (CASTLES, "bm Rb1 O-O-O O-O Kd1;", "bm Kd1 O-O O-O-O Rb1;"),
        // Uppercase (pieces) sorts before lowercase (pawns).
        (START, "bm e4 Nc3 d4 Nf3;", "bm Nc3 Nf3 d4 e4;"),
        (WAC1, "id \"WAC.001\"; bm Qg6;", "bm Qg6; id \"WAC.001\";"),
        // ptp pairs keep their order.
        (START, "ptp White \"A\" Black \"B\";", "ptp White \"A\" Black \"B\";"),
    ];
    for &(fields, ops, want) in rows {
        for mode in [S, L] {
            assert_eq!(canonical(&line(fields, ops), mode), line(fields, want), "{mode:?} {ops}");
        }
    }
}

/// §7.1 actions 1–3: leading and trailing whitespace removed, single
/// blanks between fields, operations and operands.
#[test]
fn canonical_whitespace() {
    let rows: &[(String, String)] = &[
        (format!("   {START} bm e4;   "), line(START, "bm e4;")),
        (format!("\t{START} bm e4;\t"), line(START, "bm e4;")),
        (format!("{START}  bm e4 d4;   id \"x\";"), line(START, "bm d4 e4; id \"x\";")),
        (format!("{START} bm  e4   d4 ;  id   \"a  b\" ;"), line(START, "bm d4 e4; id \"a  b\";")),
        (format!("{START}\tbm e4;\tid \"x\";"), line(START, "bm e4; id \"x\";")),
        (format!("{START} bm e4;\r"), line(START, "bm e4;")),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w  KQkq  -  bm e4;".to_string(), line(START, "bm e4;")),
    ];
    for (input, want) in rows {
        // Whitespace is not a legality question: accepted in lenient
        // mode; the text inside a string is data and is kept.
        assert_eq!(canonical(input, L), *want, "{input:?}");
    }
    // In strict mode surplus blanks between operations and at the end
    // are at most remarked on (§7.1 expects the normalizer to remove
    // them), never fatal.
    for (input, want) in &rows[2..6] {
        assert_eq!(canonical(input, S), *want, "{input:?}");
    }
    assert_eq!(canonical(&format!("{START} bm e4;  \t "), S), line(START, "bm e4;"));
}

/// §7.1 action 1: "Any leading whitespace characters are removed" — the
/// normalizer (strict by default) is expected to meet leading blanks and
/// remove them, as it does for trailing blanks and blanks between
/// operations (actions 2 and 3).
#[test]

fn strict_normalization_removes_leading_whitespace() {
    for input in [format!("   {START} bm e4;"), format!("\t{START} bm e4;")] {
        assert_eq!(canonical(&input, S), line(START, "bm e4;"), "{input:?}");
        let (out, summary) = normalize_str(format!("{input}\n").as_bytes(), S);
        assert_eq!(summary.invalid, 0);
        assert_eq!(String::from_utf8(out).unwrap(), format!("{START} bm e4;\n"));
    }
}

/// §7.1: normalizing twice is normalizing once, and the canonical form
/// parses back strictly to the same canonical form.
#[test]
fn normalization_is_idempotent_and_canonical_form_parses_back() {
    let inputs: Vec<String> = vec![
        line(START, "pv e4 e5 Nf3; id \"x\"; bm e4 d4 Nf3 c4; am h4 a4; ce 15;"),
        line(START, "bm g1f3;"),
        line(START, "bm Nf3+;"),
        line(START, "bm #3;"),
        line(START, "bm #-2;"),
        line(START, "0 1 bm e4;"),
        line(START, "id BK.01;"),
        line(START, "bm e4"),
        line(START, "D1 20; Xfoo \"bar\" 3;"),
        line(START, "Xb 1; Xa 2; bm e4;"),
        line(WAC1, "12 34 bm Qg6; id \"WAC.001\";"),
        line(AFTER_E4_F6, "bm Qh5;"),
        line(FOOLS_MATE, "bm Qh4; ce 32766; dm 1;"),
        line(CASTLES, "bm e1g1 e1c1; pv O-O O-O-O;"),
        line(EP_F6, "pv exf6 Nxf6 Nf3;"),
        format!("   {START}  bm e4  d4 ;  id \"x\" ;  "),
        line(START, "cc 000:01:02:03 000:00:59:59; ts 1995.11.26 12:00:00; ptp Event \"E\";"),
        line(START, "draw_offer; sm e4; sv e4 e5; refreq reply;"),
        // Invalid in both modes: copied through unchanged.
        line(START, "bm e5;"),
        line(START, "ce 32767;"),
        line(START, "pm d4; pv e4;"),
        "not an epd line at all".to_string(),
        String::new(),
    ];
    let file = inputs.join("\n") + "\n";
    for mode in [S, L] {
        let (once, s1) = normalize_str(file.as_bytes(), mode);
        let (twice, s2) = normalize_str(&once, mode);
        assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&once), "{mode:?}");
        assert_eq!(s1.lines, inputs.len() as u64);
        assert_eq!(s2.lines, inputs.len() as u64);
        assert_eq!(s2.counts.changed, 0, "{mode:?}");
        assert_eq!(s1.invalid, s2.invalid);
        let out_lines: Vec<&[u8]> = once.split(|&b| b == b'\n').collect();
        assert_eq!(out_lines.len(), inputs.len() + 1);
        for (input, out) in inputs.iter().zip(&out_lines) {
            let (rec, diags) = Record::parse(input.as_bytes(), mode);
            if input.trim().is_empty() {
                assert!(out.is_empty());
            } else if has_errors(&diags) {
                // Invalid records are copied through byte for byte.
                assert_eq!(*out, input.as_bytes(), "{mode:?}");
            } else {
                assert_eq!(*out, rec.to_canonical().as_slice(), "{mode:?}");
                // The canonical form is strict EPD with the same canonical form.
                let (back, d2) = Record::parse(out, S);
                assert!(!has_errors(&d2), "{mode:?} {input:?} -> {:?}: {}", String::from_utf8_lossy(out), show(&d2));
                assert_eq!(back.to_canonical(), *out);
                assert!(d2.is_empty(), "{mode:?} {:?}: {}", String::from_utf8_lossy(out), show(&d2));
            }
        }
    }
    // The invalid lines of the table are invalid in both modes.
    for bad in [line(START, "bm e5;"), line(START, "ce 32767;"), line(START, "pm d4; pv e4;")] {
        for mode in [S, L] {
            assert!(has_errors(&Record::parse(bad.as_bytes(), mode).1), "{mode:?} {bad}");
        }
    }
}

/// Records built through the API on positions from random play: their
/// canonical form parses back strictly to the same canonical form, keeps
/// bm in ASCII order and pv in play order, and normalizes to itself.
#[test]
fn canonical_form_of_built_records_round_trips() {
    let mut rng = XorShift::new(0x5eed_e9d0);
    let mut file = Vec::new();
    let mut n = 0;
    for pos in random_positions(11, 30, 120).into_iter().step_by(3) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            continue;
        }
        let mut rec = Record::from_position(&pos);
        let k = 1 + rng.below(moves.len().min(4));
        let first = rng.below(moves.len());
        let bm: Vec<OperandInput<'_>> = (0..k).map(|i| OperandInput::Move(moves[(first + i) % moves.len()])).collect();
        rec.set("bm", &bm).unwrap();
        // A pv of up to 6 plies of random play.
        let mut p = pos;
        let mut pv = Vec::new();
        for _ in 0..6 {
            let ms = p.legal_moves();
            if ms.is_empty() {
                break;
            }
            let m = ms[rng.below(ms.len())];
            pv.push(m);
            p = p.played(m);
        }
        let pv_in: Vec<OperandInput<'_>> = pv.iter().map(|&m| OperandInput::Move(m)).collect();
        rec.set("pv", &pv_in).unwrap();
        rec.set("pm", &[OperandInput::Move(pv[0])]).unwrap();
        let ce = (rng.below(65535) as i64) - 32768;
        rec.set("ce", &[OperandInput::Integer(ce)]).unwrap();
        rec.set("acn", &[OperandInput::Integer(rng.next() as i64 & i64::MAX)]).unwrap();
        let id = format!("rand.{n:04}");
        rec.set("id", &[OperandInput::String(id.as_bytes())]).unwrap();
        rec.set("Xprivate", &[OperandInput::Raw(b"a-b"), OperandInput::Raw(b"7")]).unwrap();
        let out = rec.to_canonical();
        let (back, diags) = Record::parse(&out, S);
        assert!(!has_errors(&diags), "{}: {}", String::from_utf8_lossy(&out), show(&diags));
        let mut encoded = Vec::new();
        back.append_canonical_encoded(&mut encoded);
        assert_eq!(encoded, out);
        // bm sorted, pv in play order.
        let bm_text: Vec<Vec<u8>> = back.get("bm").unwrap().operands().map(|o| o.text().to_vec()).collect();
        let mut sorted = bm_text.clone();
        sorted.sort();
        assert_eq!(bm_text, sorted);
        let pv_back: Vec<_> = back.get("pv").unwrap().moves().collect();
        assert_eq!(pv_back, pv.iter().map(|&m| Some(m)).collect::<Vec<_>>());
        assert_eq!(back.score(), Score::from_ce(ce).ok());
        file.extend_from_slice(&out);
        file.push(b'\n');
        n += 1;
    }
    assert!(n > 500, "{n}");
    let (norm, summary) = normalize_str(&file, S);
    assert_eq!(summary.invalid, 0);
    assert_eq!(summary.counts.changed, 0);
    assert_eq!(norm, file);
}

// ---------------------------------------------------------------------
// Verbs (§7.1, §7.4).
// ---------------------------------------------------------------------

/// §7.1: pfdn keeps the record order and the line count; blank lines
/// stay blank, invalid records are copied through.
#[test]
fn normalize_keeps_order_and_lines() {
    let input =
        format!("{START} id \"a\"; bm e4 d4;\n\n{START} bm e5;\n{WAC1} id \"WAC.001\"; bm Qg6;\r\n{START} bm Nf3\n");
    let want_strict =
        format!("{START} bm d4 e4; id \"a\";\n\n{START} bm e5;\n{WAC1} bm Qg6; id \"WAC.001\";\n{START} bm Nf3\n");
    let want_lenient =
        format!("{START} bm d4 e4; id \"a\";\n\n{START} bm e5;\n{WAC1} bm Qg6; id \"WAC.001\";\n{START} bm Nf3;\n");
    let (out, summary) = normalize_str(input.as_bytes(), S);
    assert_eq!(String::from_utf8(out).unwrap(), want_strict);
    assert_eq!((summary.lines, summary.records, summary.invalid), (5, 4, 2));
    let (out, summary) = normalize_str(input.as_bytes(), L);
    assert_eq!(String::from_utf8(out).unwrap(), want_lenient);
    assert_eq!((summary.lines, summary.records, summary.invalid), (5, 4, 1));
}

/// §7.1 action 4 for a record with many operations (more than 64).
#[test]
fn canonical_order_of_many_operations() {
    let ops: Vec<String> = (0..70).rev().map(|i| format!("X{i:02} {i};")).collect();
    let sorted: Vec<String> = (0..70).map(|i| format!("X{i:02} {i};")).collect();
    let input = line(START, &format!("bm e4; {}", ops.join(" ")));
    let want = line(START, &format!("{} bm e4;", sorted.join(" ")));
    for mode in [S, L] {
        assert_eq!(canonical(&input, mode), want, "{mode:?}");
    }
}

/// §7.1: "The output file retains the record ordering of the input
/// file" and each input record has its output record. A lenient reader
/// may join a string continued on the next line, but must not swallow a
/// following line that is a valid record of its own: here line 1 has an
/// unterminated string and line 2 is a valid record (its `\"` escapes are
/// accepted leniently); joined, they make an invalid record.
#[test]

fn lenient_join_does_not_swallow_a_valid_record() {
    let second = line(START, r#"bm e4; c0 "say \"hi\"";"#);
    assert!(!has_errors(&Record::parse(second.as_bytes(), L).1));
    let first = line(START, "id \"abc");
    let input = format!("{first}\n{second}\n");
    let (out, summary) = normalize_str(input.as_bytes(), L);
    assert_eq!(String::from_utf8(out).unwrap(), format!("{first}\n{second}\n"));
    assert_eq!((summary.lines, summary.records, summary.invalid), (2, 2, 1));
    // Two invalid lines, each with an unterminated string: joined they
    // have no unterminated string but are still invalid; each must be
    // copied through on its own line.
    let a = line(START, "id \"abc");
    let b = line(START, "id \"def");
    let input = format!("{a}\n{b}\n");
    let (out, summary) = normalize_str(input.as_bytes(), L);
    assert_eq!(String::from_utf8(out).unwrap(), input);
    assert_eq!((summary.lines, summary.invalid), (2, 2));
}

/// A string really continued on the next line is joined leniently (and
/// the result is one valid record); strictly both lines are invalid and
/// copied through.
#[test]
fn string_continued_on_the_next_line() {
    let input = format!("{START} c0 \"first half\nsecond half\"; bm e4;\n");
    let (out, summary) = normalize_str(input.as_bytes(), S);
    assert_eq!(String::from_utf8(out).unwrap(), input);
    assert_eq!(summary.invalid, 2);
    let (out, summary) = normalize_str(input.as_bytes(), L);
    assert_eq!(String::from_utf8(out).unwrap(), format!("{START} bm e4; c0 \"first half second half\";\n"));
    assert_eq!(summary.invalid, 0);
}

/// §7.4: pfop removes one operation from each record that has it and
/// copies the rest; Check writes nothing.
#[test]
fn purge_and_check_verbs() {
    let input =
        format!("{START} bm e4; c0 \"x\"; id \"y\";\n{WAC1} bm Qg6; id \"WAC.001\";\n{START} bm e5; c0 \"z\";\n");
    let mut out = Vec::new();
    let opts = Options { mode: S, drop_invalid: false };
    run(input.as_bytes(), &mut out, &Verb::Purge(vec!["c0".into()]), &opts, |_| {}).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{START} bm e4; id \"y\";\n{WAC1} bm Qg6; id \"WAC.001\";\n{START} bm e5; c0 \"z\";\n")
    );
    // The first operation, and two opcodes at once (one unknown).
    let mut out = Vec::new();
    let two = format!("{START} D1 20; c0 \"x\"; bm e4;\n{START} c0 \"only\";\n");
    run(two.as_bytes(), &mut out, &Verb::Purge(vec!["c0".into(), "D1".into()]), &opts, |_| {}).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), format!("{START} bm e4;\n{START}\n"));
    let mut out = Vec::new();
    let mut reported = Vec::new();
    let summary = run(input.as_bytes(), &mut out, &Verb::Check, &opts, |r| reported.push(r.line_no)).unwrap();
    assert!(out.is_empty());
    assert_eq!((summary.records, summary.invalid), (3, 1));
    assert_eq!(reported, [3]);
}

/// The rules of §6 are about meaning, not spelling: a lenient reader
/// cannot repair them, so they are errors in lenient mode as well.
#[test]
fn semantic_errors_are_errors_in_lenient_mode_too() {
    table(
        START,
        L,
        &[
            ("ce 32767;", Error("E019")),
            ("dm 0;", Error("E019")),
            ("acn 9223372036854775808;", Error("E019")),
            ("pm d4; pv e4 e5;", Error("E012")),
            ("sm d4; sv e4;", Error("E013")),
            ("bm e5;", Error("E020")),
            ("pv e4 e5 Ke3;", Error("E020")),
            ("bm e4; bm d4;", Error("E022")),
            ("draw_accept; draw_reject;", Error("E023")),
            ("draw_offer;", Error("E024")),
            ("refcom stop;", Error("E025")),
            ("pm e4 d4;", Error("E017")),
            ("cc 000:01:02:03;", Error("E017")),
            ("ts 1995.13.01 12:00:00;", Error("E018")),
            ("ptp \"Event\" \"x\";", Error("E018")),
            ("id \"WAC.001;", Error("E014")),
        ],
    );
}

/// §4: readers are encouraged to handle lines up to 4096 characters; a
/// longer line is not thereby invalid. A NUL terminator (§4) is not part
/// of the record.
#[test]
fn long_lines_and_nul_terminators() {
    let many: Vec<String> = (0..900).map(|i| format!("x{i}")).collect();
    let long = line(START, &format!("noop {};", many.join(" ")));
    assert!(long.len() > 4096);
    for mode in [S, L] {
        let (rec, diags) = Record::parse(long.as_bytes(), mode);
        assert!(!has_errors(&diags), "{mode:?}: {}", show(&diags));
        assert_eq!(rec.to_string(), long);
        let (rec, diags) = Record::parse(format!("{START} bm e4;\0").as_bytes(), mode);
        assert!(!has_errors(&diags), "{mode:?}: {}", show(&diags));
        assert_eq!(rec.to_string(), line(START, "bm e4;"));
    }
}
