//! EPD records over the real-world corpora (`shared/corpora`): every
//! `.epd` and `.fen` file, in both parse modes.
//!
//! What is checked comes from the specification (§5, §6, §7.1 of
//! `shared/spec/EPD-SPEC-1995.txt`): a reader either accepts a record or
//! says where it is wrong; normalization (pfdn) keeps the record order
//! and one output line per input line, copying invalid records through;
//! and its output is a fixed point.

use std::path::PathBuf;

use epd_core::pipeline::Rendered;
use epd_core::test_hooks::RecordTestHooks as _;
use epd_core::verbs::normalize_str;
use epd_core::{has_errors, Code, Diagnostic, ParseMode, Record, Severity};
use epd_testkit::corpus_dir;

/// The UHO book has 242,201 lines; the first 20,000 are plenty.
const UHO: &str = "UHO_4060_v3.epd";
const UHO_SAMPLE_LINES: usize = 20_000;

const MODES: [ParseMode; 2] = [ParseMode::Strict, ParseMode::Lenient];

/// Files a careful reader can read whole: lenient mode must accept every
/// record of them.
const READABLE: &[&str] = &[
    "wac_arasan.epd",
    "wacnew.epd",
    "ECM.epd",
    "ecmgcp.epd",
    "STS1-STS15_LAN_v3.epd",
    "arasan2024.epd",
    "lapuce2.epd",
    "eet.epd",
    "bt2630.epd",
    "iq4.epd",
    "pet.epd",
    "tbtest.epd",
    "bratko-kopec.epd",
    "mates2000.epd",
    "matetrack.epd",
    "perftsuite_viridithas.epd",
    "perft-marcel.epd",
    "sunfish_mate2.fen",
];

struct Corpus {
    name: String,
    data: Vec<u8>,
}

/// The first `n` lines of `data` (each with its newline).
fn first_lines(data: &[u8], n: usize) -> &[u8] {
    let mut seen = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            seen += 1;
            if seen == n {
                return &data[..=i];
            }
        }
    }
    data
}

/// Every `.epd` and `.fen` corpus file, sorted by name (the UHO book cut
/// to its sample).
fn corpora() -> Vec<Corpus> {
    let dir = corpus_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("epd" | "fen")))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "only {} corpus files in {}", paths.len(), dir.display());
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let data = std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let data = if name == UHO { first_lines(&data, UHO_SAMPLE_LINES).to_vec() } else { data };
            Corpus { name, data }
        })
        .collect()
}

fn corpus_named(name: &str) -> Corpus {
    let data = epd_testkit::corpus(name);
    Corpus { name: name.to_string(), data }
}

/// The lines as the verbs read them: split at '\n'; a last line without
/// a newline counts.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b.is_ascii_whitespace() || b == 0)
}

fn show(diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| format!("{}@{} {}", d.code.as_str(), d.offset, d)).collect::<Vec<_>>().join("; ")
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).into_owned()
}

/// A record is accepted, or reported with at least one error at a
/// plausible place (no diagnostic points past the end of the line).
#[test]
fn every_line_parses_or_is_reported_with_an_offset() {
    let mut failures = Vec::new();
    for c in corpora() {
        for mode in MODES {
            let mut invalid = 0u64;
            for (i, line) in lines(&c.data).into_iter().enumerate() {
                if is_blank(line) {
                    continue;
                }
                let (_, diags) = Record::parse(line, mode);
                if let Some(d) = diags.iter().find(|d| d.offset > line.len()) {
                    failures.push(format!(
                        "{}:{} {mode:?}: offset {} past the line ({} bytes): {}",
                        c.name,
                        i + 1,
                        d.offset,
                        line.len(),
                        show(&diags)
                    ));
                }
                if has_errors(&diags) {
                    invalid += 1;
                    let e = diags.iter().filter(|d| d.severity == Severity::Error).count();
                    assert!(e >= 1);
                }
            }
            // The verb's count agrees with the record-by-record one (in
            // strict mode no lines are joined).
            if mode == ParseMode::Strict {
                let (_, summary) = normalize_str(&c.data, mode);
                if summary.invalid != invalid {
                    failures.push(format!(
                        "{} {mode:?}: normalize counts {} invalid, parse {invalid}",
                        c.name, summary.invalid
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// §7.1: normalizing the output of a normalization changes nothing.
#[test]
fn normalize_is_idempotent_on_every_file() {
    let mut failures = Vec::new();
    for c in corpora() {
        for mode in MODES {
            let (once, _) = normalize_str(&c.data, mode);
            let (twice, summary) = normalize_str(&once, mode);
            if twice != once {
                let (a, b) = (lines(&once), lines(&twice));
                let at = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                failures.push(format!(
                    "{} {mode:?}: line {} differs: {:?} then {:?}",
                    c.name,
                    at + 1,
                    a.get(at).map(|l| text(l)),
                    b.get(at).map(|l| text(l))
                ));
            } else if summary.counts.changed != 0 {
                failures.push(format!("{} {mode:?}: second pass reports {} changes", c.name, summary.counts.changed));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// §7.1: the output retains the record ordering of the input, one line
/// per line: an invalid record is copied through byte for byte, a valid
/// one written in its canonical form, a blank line stays blank.
#[test]
fn normalize_keeps_every_line() {
    let mut failures = Vec::new();
    for c in corpora() {
        for mode in MODES {
            let (out, summary) = normalize_str(&c.data, mode);
            let input = lines(&c.data);
            let output = lines(&out);
            assert!(out.is_empty() || out.ends_with(b"\n"), "{}", c.name);
            if output.len() != input.len() || summary.lines != input.len() as u64 {
                failures.push(format!(
                    "{} {mode:?}: {} input lines, {} output lines (summary: {} lines)",
                    c.name,
                    input.len(),
                    output.len(),
                    summary.lines
                ));
                continue;
            }
            for (i, (inp, outp)) in input.iter().zip(&output).enumerate() {
                if is_blank(inp) {
                    if !outp.is_empty() {
                        failures.push(format!("{}:{} {mode:?}: blank line became {:?}", c.name, i + 1, text(outp)));
                    }
                    continue;
                }
                let (rec, diags) = Record::parse(inp, mode);
                let want = if has_errors(&diags) { inp.to_vec() } else { rec.to_canonical() };
                if *outp != want.as_slice() {
                    failures.push(format!(
                        "{}:{} {mode:?}: expected {:?}, got {:?}",
                        c.name,
                        i + 1,
                        text(&want),
                        text(outp)
                    ));
                }
            }
        }
    }
    let n = failures.len();
    failures.truncate(30);
    assert!(n == 0, "{n} failure(s):\n{}", failures.join("\n"));
}

/// Files with only the quirks a careful reader copes with (NUL and CR
/// line ends, unquoted ids, detached check marks, stray ';', missing
/// final ';', tabs and double spaces, `bm #N`, FEN counters, coordinate
/// moves): lenient mode reads every record.
#[test]
fn lenient_mode_accepts_the_readable_files() {
    let mut failures = Vec::new();
    for name in READABLE {
        let c = corpus_named(name);
        let (_, summary) = normalize_str(&c.data, ParseMode::Lenient);
        if summary.invalid == 0 {
            continue;
        }
        let mut shown = 0;
        let mut msg = format!("{name}: {} invalid record(s) of {}", summary.invalid, summary.records);
        for (i, line) in lines(&c.data).into_iter().enumerate() {
            let (_, diags) = Record::parse(line, ParseMode::Lenient);
            if has_errors(&diags) && shown < 5 {
                let errors: Vec<Diagnostic> = diags.into_iter().filter(|d| d.severity == Severity::Error).collect();
                msg.push_str(&format!("\n  {}: {:?}\n    {}", i + 1, text(line), show(&errors)));
                shown += 1;
            }
        }
        failures.push(msg);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What lenient mode accepts, it writes as strict EPD: the canonical form
/// of every lenient record of the readable files parses strictly with no
/// error and the same canonical form (positions accepted only for move
/// generation, E032 and E035, aside: no text can make them legal).
#[test]
fn lenient_records_are_written_as_strict_epd() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in READABLE {
        let c = corpus_named(name);
        for (i, line) in lines(&c.data).into_iter().enumerate() {
            if is_blank(line) {
                continue;
            }
            let (rec, diags) = Record::parse(line, ParseMode::Lenient);
            if has_errors(&diags)
                || diags.iter().any(|d| matches!(d.code, Code::PositionWarning | Code::ImpossibleCheck))
            {
                continue;
            }
            let out = rec.to_canonical();
            let (back, d2) = Record::parse(&out, ParseMode::Strict);
            checked += 1;
            if has_errors(&d2) || back.to_canonical() != out {
                failures.push(format!("{name}:{}: {:?}\n    -> {:?}: {}", i + 1, text(line), text(&out), show(&d2)));
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
    let n = failures.len();
    failures.truncate(20);
    assert!(n == 0, "{n} failure(s):\n{}", failures.join("\n"));
}

/// FEN's two counter fields are not EPD fields (§6.14, §6.15): each line
/// of the UHO book (plain 6-field FEN) is invalid strictly, valid
/// leniently, with the counters as hmvc and fmvn.
#[test]
fn fen_books_are_epd_only_leniently() {
    let data = epd_testkit::corpus(UHO);
    let sample = first_lines(&data, UHO_SAMPLE_LINES);
    let mut n = 0;
    for line in lines(sample) {
        if is_blank(line) {
            continue;
        }
        let (_, diags) = Record::parse(line, ParseMode::Strict);
        assert!(diags.iter().any(|d| d.code == Code::MoveCounters && d.severity == Severity::Error), "{}", text(line));
        let (rec, diags) = Record::parse(line, ParseMode::Lenient);
        assert!(!has_errors(&diags), "{}: {}", text(line), show(&diags));
        assert!(rec.get("hmvc").is_some() && rec.get("fmvn").is_some(), "{}", text(line));
        n += 1;
    }
    assert_eq!(n, UHO_SAMPLE_LINES);
}

/// The shared benchmark file (`shared/bench/bench-100k.epd`, beside
/// `shared/corpora`) is canonical strict EPD: normalizing it gives it
/// back byte for byte, with no diagnostic at all.
#[test]
fn bench_file_is_its_own_normal_form() {
    let data = bench_data();
    let (out, summary) = normalize_str(&data, ParseMode::Strict);
    assert_eq!(summary.records, 100_000);
    assert_eq!((summary.invalid, summary.errors, summary.warnings), (0, 0, 0), "{summary:?}");
    assert_eq!(summary.counts.changed, 0, "{summary:?}");
    if out != data {
        let at = lines(&out).iter().zip(lines(&data)).position(|(a, b)| *a != b);
        panic!("output differs at line {at:?}");
    }
}

/// `destruction-test.epd` is deliberately broken: strictly, every record
/// is reported, and normalization copies each through unchanged (NUL
/// bytes included), line for line.
#[test]
fn destruction_test_is_reported_line_by_line() {
    let data = epd_testkit::corpus("destruction-test.epd");
    let input = lines(&data);
    let mut records = 0;
    let mut reported = 0;
    for (i, line) in input.iter().enumerate() {
        if is_blank(line) {
            continue;
        }
        records += 1;
        let (_, diags) = Record::parse(line, ParseMode::Strict);
        if has_errors(&diags) {
            reported += 1;
        } else {
            panic!("line {} accepted: {:?}", i + 1, text(line));
        }
    }
    assert_eq!(records, 106);
    assert_eq!(reported, records);
    let (out, summary) = normalize_str(&data, ParseMode::Strict);
    assert_eq!(summary.invalid, records as u64);
    let output = lines(&out);
    assert_eq!(output.len(), input.len());
    for (i, (a, b)) in input.iter().zip(&output).enumerate() {
        if is_blank(a) {
            assert!(b.is_empty(), "line {}", i + 1);
        } else {
            assert_eq!(a, b, "line {}", i + 1);
        }
    }
}

/// Single corpus lines whose reading was worked out by hand from the
/// specification: (file, 1-based line, mode, expected canonical form).
#[test]
fn known_lines_read_as_the_specification_says() {
    let rows: &[(&str, usize, ParseMode, &str)] = &[
        // §4: the CR of a CRLF line end is not part of the record.
        (
            "ECM.epd",
            1,
            ParseMode::Strict,
            "2q1r1k1/1ppb4/r2p1Pp1/p4n1p/2P1n3/5NPP/PP3Q1K/2BRRB2 w - - bm f7+; id \"ECM.001\";",
        ),
        // §7.1 action 4: c0, c7, c8, c9 after bm, before id; strings kept.
        (
            "STS1-STS15_LAN_v3.epd",
            1,
            ParseMode::Strict,
            "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; c0 \"f5=10, Be5+=2, Bf2=3, Bg4=2\"; \
             c7 \"f5 Be5+ Bf2 Bg4\"; c8 \"10 2 3 2\"; c9 \"f4f5 d4e5 d4f2 f3g4\"; id \"STS(v1.0) Undermine.001\";",
        ),
        // Already canonical: am < bm < id, "Rb6" < "Rg5+".
        (
            "wacnew.epd",
            274,
            ParseMode::Strict,
            "8/1p6/p5R1/k7/Prpp4/K7/1NP5/8 w - - am Rd6; bm Rb6 Rg5+; id \"WAC.274\";",
        ),
        // §7.1 action 3: the padding between operations goes.
        (
            "pet.epd",
            1,
            ParseMode::Lenient,
            "8/7p/2k1Pp2/pp1p2p1/3P2P1/4P3/P3K2P/8 w - - bm e4; id \"PET001: Pawn endgame\";",
        ),
        // A tab between opcode and operand.
        (
            "ecmgcp.epd",
            16,
            ParseMode::Lenient,
            "4rrk1/1bp2ppp/p1q2b1B/1pn2B2/4N1Q1/2P4P/PP3PP1/3RR1K1 w - - bm Nxc5; id \"ECM.1016\";",
        ),
        // Stray ';', detached check mark (Qd1 checks the king on c1 and
        // the bishop on d7 keeps the rook off d1: '+', not '#'), unquoted
        // id, no final ';', NUL before the newline.
        (
            "bratko-kopec.epd",
            1,
            ParseMode::Lenient,
            "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";",
        ),
        // FEN counters become hmvc/fmvn (§6.14, §6.15); D1..D6 are
        // unknown opcodes kept as written (§5.3), uppercase first (§7.1);
        // 8031647685 needs more than 32 bits.
        (
            "perftsuite_viridithas.epd",
            2,
            ParseMode::Lenient,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - D1 48; D2 2039; D3 97862; \
             D4 4085603; D5 193690690; D6 8031647685; fmvn 1; hmvc 0;",
        ),
        (
            "perft-marcel.epd",
            1,
            ParseMode::Lenient,
            "3k1b2/p4r2/1P6/P1p1pnpP/2P5/R4B1R/6N1/4K3 b - - D1 27; D2 820; D3 20973; D4 646646; \
             D5 15953798; D6 490598959; fmvn 1; hmvc 0;",
        ),
    ];
    for &(name, n, mode, want) in rows {
        let data = epd_testkit::corpus(name);
        let line = lines(&data)[n - 1];
        let (rec, diags) = Record::parse(line, mode);
        assert!(!has_errors(&diags), "{name}:{n} {mode:?}: {}", show(&diags));
        assert_eq!(text(&rec.to_canonical()), want, "{name}:{n} {mode:?}");
        // Unquoted id (E016) and FEN counters (E027) are errors when
        // strict; surplus blanks between operations are not.
        if matches!(name, "bratko-kopec.epd" | "perftsuite_viridithas.epd" | "perft-marcel.epd") {
            assert!(has_errors(&Record::parse(line, ParseMode::Strict).1), "{name}:{n}");
        }
    }
    // Mate notation (matetrack): `bm #1` is dm 1 (§6.8), `bm #-5` the
    // losing mate in 5, ce -32767 + 2*5 = -32757 (§6.7); `ep` is an
    // operation of an unknown opcode without operands (§5.3).
    let data = epd_testkit::corpus("matetrack.epd");
    let all = lines(&data);
    let (rec, diags) = Record::parse(all[0], ParseMode::Lenient);
    assert!(!has_errors(&diags), "{}", show(&diags));
    let out = text(&rec.to_canonical());
    assert!(out.starts_with("5K2/8/2qk4/2nPp3/3r4/6B1/B7/3R4 w - e6 dm 1; ep;"), "{out}");
    assert!(rec.get("bm").is_none(), "{out}");
    let (rec, diags) = Record::parse(all[297], ParseMode::Lenient);
    assert!(!has_errors(&diags), "{}", show(&diags));
    let out = text(&rec.to_canonical());
    assert!(out.starts_with("3r4/3N2kr/1p6/pBpn1p2/Q2PR1p1/P7/1P4P1/2q3K1 w - - Defence; ce -32757;"), "{out}");
}

/// A record flagged as already canonical must encode to exactly its source
/// line (normalize copies such lines instead of re-encoding them).
#[test]
fn source_canonical_flag_is_exact() {
    use epd_core::{ParseMode, Record};
    let dir = epd_testkit::corpus_dir();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".epd") || n.ends_with(".fen"))
        .collect();
    names.sort();
    let mut flagged = 0;
    for name in names {
        let data = std::fs::read(dir.join(&name)).unwrap();
        for line in data.split(|&b| b == b'\n').take(20_000) {
            for mode in [ParseMode::Strict, ParseMode::Lenient] {
                let (rec, diags) = Record::parse(line, mode);
                if rec.is_source_canonical() {
                    flagged += 1;
                    assert!(diags.is_empty(), "{name}: {}", String::from_utf8_lossy(line));
                    // to_canonical copies the line; the encoder must agree.
                    let mut encoded = Vec::new();
                    rec.append_canonical_encoded(&mut encoded);
                    assert_eq!(encoded, line, "{name}: flagged canonical but encodes differently");
                    assert_eq!(rec.to_canonical(), line, "{name}");
                } else if diags.is_empty() {
                    // Not flagged: then the encoding really differs.
                    assert_ne!(rec.to_canonical(), line, "{name}: canonical line not flagged");
                }
            }
        }
    }
    assert!(flagged > 1000, "{flagged}");
    // Edits clear the flag.
    let (mut rec, _) = Record::parse(b"8/8/8/8/8/8/8/K6k w - - id \"x\";", ParseMode::Strict);
    assert!(rec.is_source_canonical());
    rec.remove("id");
    assert!(!rec.is_source_canonical());
}

/// The pipeline on `jobs` worker threads, handing out batches of about
/// 256 KiB (or, with `one_by_one`, a record at a time, as the engine
/// verbs do).
#[allow(clippy::too_many_arguments)]
fn run_parallel(
    input: &[u8],
    out: &mut Vec<u8>,
    verb: &epd_core::verbs::Verb,
    options: &epd_core::verbs::VerbOptions,
    jobs: usize,
    one_by_one: bool,
    render: impl Fn(&epd_core::pipeline::LineReport<'_>, &mut Rendered) + Sync,
    mut emit: impl FnMut(&Rendered),
) -> Result<epd_core::verbs::VerbSummary, epd_core::pipeline::PipelineError> {
    use epd_core::pipeline::{self, Config};
    let mut workers = vec![epd_core::verbs::StreamVerb::new(verb.clone(), options.mode); jobs];
    let config = Config { drop_invalid: options.drop_invalid, flush_each: one_by_one, stop: None, lines_before: 0 };
    pipeline::run(input, out, &mut workers, &config, &render, &mut emit, &mut |_| {})
}

/// The diagnostics of `batch`, each with its line, severity, code and
/// text.
fn owned(batch: &Rendered) -> Vec<(u64, Severity, Code, Vec<u8>)> {
    batch.iter().map(|d| (d.line, d.severity, d.code, d.text.to_vec())).collect()
}

/// The parallel pipeline gives exactly the serial output, diagnostics and
/// summary.
#[test]
fn parallel_verbs_equal_serial_byte_for_byte() {
    use epd_core::verbs::{run_verb as run, Verb, VerbOptions as Options};
    use epd_core::ParseMode;
    let mut input = Vec::new();
    for name in ["destruction-test.epd", "bratko-kopec.epd", "matetrack.epd", "wac_arasan.epd", "STS1-STS15_LAN_v3.epd"]
    {
        input.extend_from_slice(&epd_testkit::corpus(name));
    }
    // A string continued on the next line, and over-long lines.
    input.extend_from_slice(b"8/8/8/8/8/8/8/K6k w - - c0 \"split\nstring\"; id \"x\";\n");
    let uho = epd_testkit::corpus("UHO_4060_v3.epd");
    input.extend_from_slice(&uho[..uho.len().min(2 << 20)]);
    for verb in [Verb::Normalize, Verb::Repair, Verb::Check, Verb::Purge(vec!["id".into(), "c0".into()])] {
        for mode in [ParseMode::Strict, ParseMode::Lenient] {
            let options = Options { mode, drop_invalid: false };
            let mut serial = Vec::new();
            let mut serial_diags = Rendered::default();
            let render = |r: &epd_core::pipeline::LineReport<'_>, out: &mut Rendered| {
                for d in r.diagnostics {
                    out.push(r.line_no, d, |text| text.extend_from_slice(format!("{d:?}").as_bytes()));
                }
            };
            let s1 = run(&input[..], &mut serial, &verb, &options, |r| render(r, &mut serial_diags)).unwrap();
            for (jobs, one_by_one) in [(1, false), (2, false), (3, false), (2, true)] {
                let mut par = Vec::new();
                let mut par_diags = Vec::new();
                let s2 = run_parallel(&input[..], &mut par, &verb, &options, jobs, one_by_one, render, |b| {
                    par_diags.extend(owned(b))
                })
                .unwrap();
                assert_eq!(s1, s2, "{verb:?} {mode:?} jobs {jobs} one by one {one_by_one}");
                assert!(serial == par, "{verb:?} {mode:?} jobs {jobs}: output differs");
                assert!(owned(&serial_diags) == par_diags, "{verb:?} {mode:?} jobs {jobs}: diagnostics differ");
            }
        }
    }
}

/// The parallel verbs cut their input into batches without looking at
/// each line; the cuts must not show: lines around the batch size, lines
/// at, just under and over `MAX_LINE` (the newline exactly at the cap,
/// one at the end of the input without its newline), strings continued on
/// the next line where a batch would end, runs of lines with an odd
/// number of quotes.
#[test]
fn parallel_batches_cut_anywhere_equal_serial() {
    use epd_core::pipeline::MAX_LINE;
    use epd_core::verbs::{run_verb as run, Verb, VerbOptions as Options};
    use epd_core::ParseMode;
    let start = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let record = |i: usize| format!("{} id \"n{i}\"; bm e4;\n", std::str::from_utf8(start).unwrap()).into_bytes();
    let long = |n: usize| {
        let mut v = start.to_vec();
        v.extend_from_slice(b" c0 \"");
        v.resize(n, b'x');
        v
    };
    let mut cases: Vec<Vec<u8>> = Vec::new();
    // Records of every length around the 256 KiB batch size.
    let mut v = Vec::new();
    let mut i = 0;
    while v.len() < 3 << 20 {
        v.extend_from_slice(&record(i));
        if i % 97 == 0 {
            // A string continued on the next line, and a line with an odd
            // number of quotes that is not continued.
            v.extend_from_slice(&start[..]);
            v.extend_from_slice(b" c0 \"split\nhere\"; id \"x\";\n");
            v.extend_from_slice(b"8/8/8/8/8/8/8/K6k w - - c1 \"a\\\"b\";\n");
        }
        i += 1;
    }
    cases.push(v.clone());
    // Over-long lines: just under, at, over the cap; the newline at the
    // cap; between records; last in the input without a newline.
    for n in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 3 * MAX_LINE + 17] {
        let mut c = v[..300_000].to_vec();
        c.extend_from_slice(&long(n));
        c.push(b'\n');
        c.extend_from_slice(&v[..100_000]);
        c.extend_from_slice(&long(n));
        cases.push(c);
    }
    // A run of over 1 MiB of lines with an odd number of quotes (no
    // place to end a batch), none of them continued.
    let mut odd = Vec::new();
    while odd.len() < 2 * MAX_LINE {
        odd.extend_from_slice(b"8/8/8/8/8/8/8/K6k w - - c0 \"a\\\"b\";\n");
    }
    cases.push(odd);
    cases.push(Vec::new());
    cases.push(b"\n\n\n".to_vec());
    for (n, input) in cases.iter().enumerate() {
        for verb in [Verb::Normalize, Verb::Check, Verb::Purge(vec!["c0".into()])] {
            for (mode, drop_invalid) in
                [(ParseMode::Strict, false), (ParseMode::Lenient, false), (ParseMode::Strict, true)]
            {
                let options = Options { mode, drop_invalid };
                let render = |r: &epd_core::pipeline::LineReport<'_>, out: &mut Rendered| {
                    for d in r.diagnostics {
                        out.push(r.line_no, d, |text| text.extend_from_slice(format!("{d:?}").as_bytes()));
                    }
                };
                let mut serial = Vec::new();
                let mut serial_diags = Rendered::default();
                let s1 = run(&input[..], &mut serial, &verb, &options, |r| render(r, &mut serial_diags)).unwrap();
                for jobs in [1, 2] {
                    let mut par = Vec::new();
                    let mut par_diags = Vec::new();
                    let s2 = run_parallel(&input[..], &mut par, &verb, &options, jobs, false, render, |b| {
                        par_diags.extend(owned(b))
                    })
                    .unwrap();
                    let what = format!("case {n} {verb:?} {mode:?} drop {drop_invalid} jobs {jobs}");
                    assert_eq!(s1, s2, "{what}");
                    assert!(serial == par, "{what}: output differs ({} vs {} bytes)", serial.len(), par.len());
                    assert!(owned(&serial_diags) == par_diags, "{what}: diagnostics differ");
                }
            }
        }
    }
}

/// The fast path of `Record::parse_into` (canonical lines read in one
/// pass) must build the record the general parser builds, with the same
/// (no) diagnostics, or give the line to the general parser. Checked on
/// every corpus line in both modes, on the benchmark file's first 20,000
/// lines, and on damaged copies of its first lines: each byte in turn
/// deleted, or replaced by or preceded by a byte that changes the syntax (NUL, TAB and a
/// Latin-1 byte among them), so that every place the fast path may give
/// up is reached.
#[test]
fn fast_path_builds_what_the_general_parser_builds() {
    let mut fast = Record::default();
    let mut general = Record::default();
    let mut verdicts = Record::default();
    let (mut fd, mut gd) = (Vec::new(), Vec::new());
    let mut taken = 0usize;
    let mut check = |line: &[u8], mode: ParseMode, what: &str| {
        fd.clear();
        gd.clear();
        fast.parse_into(line, mode, &mut fd);
        general.parse_into_general(line, mode, &mut gd);
        assert!(
            fast.same_parse(&general) && fd == gd,
            "{what} ({mode:?}): fast path and general parser differ on {:?}\nfast: {}\ngeneral: {}",
            text(line),
            show(&fd),
            show(&gd)
        );
        if fast.is_source_canonical() {
            taken += 1;
        }
        // The stream verbs' judgement without building agrees with the
        // fast path that builds.
        let (built, judged) = verdicts.fast_path_verdicts(line);
        assert_eq!(built, judged, "{what}: the fast path's verdicts differ on {:?}", text(line));
        assert!(
            !judged || (fd.is_empty() && general.is_source_canonical()),
            "{what}: judged canonical: {:?}",
            text(line)
        );
    };
    for corpus in corpora() {
        for line in lines(&corpus.data) {
            for mode in MODES {
                check(line, mode, &corpus.name);
            }
        }
    }
    let bench = bench_data();
    let bench_lines = lines(&bench);
    for line in bench_lines.iter().take(20_000) {
        for mode in MODES {
            check(line, mode, "bench-100k.epd");
        }
    }
    let mut damaged = Vec::new();
    for line in bench_lines.iter().take(60) {
        for i in 0..line.len() {
            for replacement in [
                None,
                Some(b' '),
                Some(b';'),
                Some(b'"'),
                Some(b'+'),
                Some(b'x'),
                Some(b'1'),
                Some(b'\\'),
                Some(0),
                Some(b'\t'),
                Some(0xe9),
            ] {
                // The byte at i replaced (or deleted), or the new byte
                // inserted before it.
                for keep in [false, true] {
                    if keep && replacement.is_none() {
                        continue;
                    }
                    damaged.clear();
                    damaged.extend_from_slice(&line[..i]);
                    damaged.extend(replacement);
                    damaged.extend_from_slice(&line[i + usize::from(!keep)..]);
                    for mode in MODES {
                        check(&damaged, mode, "damaged bench line");
                    }
                }
            }
        }
    }
    // Whole tokens replaced or swapped: operations out of order or twice,
    // integers out of range or not as the encoder writes them, pm not the
    // first move of pv, strings where moves belong and so on.
    const TOKENS: [&[u8]; 20] = [
        b"0",
        b"-1",
        b"32767",
        b"-32768",
        b"32766",
        b"-0",
        b"007",
        b"+5",
        b"99999999999999999999",
        b"e4",
        b"Kb5",
        b"O-O",
        b"\"x\"",
        b";",
        b"bm",
        b"pm",
        b"acd",
        b"Qg6+",
        b"#3",
        b"c0",
    ];
    for line in bench_lines.iter().take(150) {
        let tokens: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        let join = |t: &[&[u8]]| t.join(&b' ');
        for i in 0..tokens.len() {
            for replacement in TOKENS {
                let mut t = tokens.clone();
                t[i] = replacement;
                for mode in MODES {
                    check(&join(&t), mode, "bench line with a token replaced");
                }
            }
            for j in i + 1..tokens.len() {
                let mut t = tokens.clone();
                t.swap(i, j);
                for mode in MODES {
                    check(&join(&t), mode, "bench line with two tokens swapped");
                }
            }
        }
    }
    // The fast path must also be taken: most benchmark lines are canonical.
    assert!(taken > 40_000, "fast path taken on only {taken} lines");
}

fn bench_data() -> Vec<u8> {
    let path = epd_testkit::bench_corpus_path();
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}
