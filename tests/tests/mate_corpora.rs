//! pfms (`epd mate`) on the real mate collections: every claimed mate is
//! replayed from the written SAN and must end in checkmate; dm must be the
//! shortest mate, checked against a naive, unpruned AND/OR search.

use epd_core::pipeline::{self, Config};
use epd_core::{Opcode, ParseMode, Position, Record, SanMode};
use epd_engine::mate::{MateOptions as Options, MateProver, MateSolver, MateSummary};
use epd_testkit::corpus;

/// pfms over `data` on the line pipeline with `jobs` workers.
fn run_pfms(data: &[u8], out: &mut Vec<u8>, opts: &Options, jobs: usize) -> MateSummary {
    let mut workers: Vec<MateProver<'_>> = (0..jobs).map(|_| MateProver::new(opts)).collect();
    let config = Config { flush_each: true, ..Config::default() };
    pipeline::run(data, out, &mut workers, &config, &|_, _| {}, &mut |_| {}, &mut |_| {}).unwrap()
}

/// Runs pfms over `data`; returns the output lines (one per input line).
fn pfms(data: &[u8], moves: u32, single_pass: bool) -> (Vec<Vec<u8>>, MateSummary) {
    let mut out = Vec::new();
    let opts = Options { moves, single_pass, ..Options::default() };
    let summary = run_pfms(data, &mut out, &opts, 1);
    let mut lines: Vec<Vec<u8>> = out.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    assert_eq!(lines.pop().as_deref(), Some(&b""[..]), "output ends with a newline");
    (lines, summary)
}

/// Naive mate search: no table, no ordering, no check-only pruning.
fn naive_mates_within(pos: &Position, n: u32) -> bool {
    n > 0
        && pos.legal_moves().iter().any(|&m| {
            let child = pos.played(m);
            if child.is_checkmate() {
                return true;
            }
            n > 1
                && child.has_legal_moves()
                && child.legal_moves().iter().all(|&d| naive_mates_within(&child.played(d), n - 1))
        })
}

/// The `bm #N` annotation of an input line, if any.
fn claimed_mate(line: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(line).ok()?;
    let at = s.find("bm #")? + 4;
    let digits: String = s[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What pfms wrote on one output record: dm, and whether pm/acn are there.
struct Solved {
    dm: Option<i64>,
    solved: bool,
}

/// Parses an output record and, if it holds a pm, checks pm, pv, acn and
/// acs: pv replayed from its SAN text is legal, has `2 dm - 1` plies and
/// ends in checkmate; pm is its first move.
fn check_output(where_: &str, line: &[u8]) -> Solved {
    let (rec, diags) = Record::parse(line, ParseMode::Strict);
    assert!(!epd_core::has_errors(&diags), "{where_}: output invalid: {diags:?}\n{}", String::from_utf8_lossy(line));
    let dm = rec.get_known(Opcode::Dm).and_then(|o| o.operand(0)?.as_integer());
    let Some(pm) = rec.get_known(Opcode::Pm) else {
        assert!(rec.get_known(Opcode::Acn).is_none(), "{where_}: acn without pm");
        return Solved { dm, solved: false };
    };
    let dm = dm.unwrap_or_else(|| panic!("{where_}: pm without dm"));
    assert!(rec.get_known(Opcode::Acn).is_some() && rec.get_known(Opcode::Acs).is_some(), "{where_}: acn/acs");
    let pv = rec.get_known(Opcode::Pv).unwrap_or_else(|| panic!("{where_}: pm without pv"));
    let texts: Vec<&[u8]> = pv.operands().map(|o| o.text()).collect();
    assert_eq!(pm.operand(0).map(|o| o.text()), texts.first().copied(), "{where_}: pm is not pv's head");
    assert_eq!(texts.len() as i64, 2 * dm - 1, "{where_}: pv length");
    let mut pos = *rec.position().unwrap();
    for (i, san) in texts.iter().enumerate() {
        assert!(!pos.is_checkmate(), "{where_}: mate before the end of pv");
        let m = pos
            .parse_san(san, SanMode::Strict)
            .unwrap_or_else(|e| panic!("{where_}: pv move {i} {}: {e}", String::from_utf8_lossy(san)));
        pos.play_unchecked(m);
    }
    assert!(pos.is_checkmate(), "{where_}: pv does not end in checkmate");
    Solved { dm: Some(dm), solved: true }
}

#[test]
fn matetrack_mates_up_to_3_are_found_and_shortest() {
    let data = corpus("matetrack.epd");
    // Release runs take the whole file (about 8 s); debug runs a
    // deterministic prefix that still holds every #1-#3 and many longer.
    let data: Vec<u8> = if cfg!(debug_assertions) {
        data.split_inclusive(|&b| b == b'\n').take(1500).flatten().copied().collect()
    } else {
        data
    };
    let input: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let (output, summary) = pfms(&data, 3, false);
    assert_eq!(output.len(), input.len());
    let mut solved = [0usize; 4];
    let mut unsolved_long = 0;
    let mut mated = 0;
    for (i, (inp, out)) in input.iter().zip(&output).enumerate() {
        let where_ = format!("matetrack.epd:{}", i + 1);
        let got = check_output(&where_, out);
        let Some(claim) = claimed_mate(inp) else {
            // `bm #-N`: the side to move is mated; it has no mate to find.
            assert!(inp.windows(5).any(|w| w == b"bm #-"), "{where_}: no bm #N");
            assert!(!got.solved && got.dm.is_none(), "{where_}");
            mated += 1;
            continue;
        };
        if claim <= 3 {
            assert!(got.solved, "{where_}: mate in {claim} not found");
            assert_eq!(got.dm, Some(i64::from(claim)), "{where_}: not the shortest mate");
            solved[claim as usize] += 1;
            // Independent check of "shortest": no naive mate one move sooner.
            let pos = *Record::parse(inp, ParseMode::Lenient).0.position().unwrap();
            assert!(naive_mates_within(&pos, claim), "{where_}: naive search finds no mate in {claim}");
            assert!(!naive_mates_within(&pos, claim - 1), "{where_}: naive search finds a shorter mate");
        } else {
            // No mate within 3: the record keeps the annotation (read as dm)
            // and gains no pm, pv, acn or acs.
            assert!(!got.solved, "{where_}: claimed #{claim} but solved as dm {:?}", got.dm);
            assert_eq!(got.dm, Some(i64::from(claim)), "{where_}: annotation lost");
            unsolved_long += 1;
        }
    }
    assert_eq!(&solved[1..], &[4, 17, 23]);
    assert_eq!(summary.counts.solved, vec![4, 17, 23]);
    assert_eq!(summary.counts.searched as usize, input.len());
    assert!(unsolved_long > 1000);
    assert!(mated > 0);
}

#[test]
fn matetrack_long_mates_have_no_naive_mate_in_2() {
    // Cross-check the pruned search's "no" answers against the naive one
    // on a deterministic sample of #5+ records.
    let data = corpus("matetrack.epd");
    let mut solver = MateSolver::with_table_bits(16);
    let mut sampled = 0;
    for (i, line) in data.split(|&b| b == b'\n').enumerate().filter(|(i, _)| i % 97 == 0) {
        if claimed_mate(line).is_none_or(|k| k < 5) {
            continue;
        }
        let pos = *Record::parse(line, ParseMode::Lenient).0.position().unwrap();
        assert!(!naive_mates_within(&pos, 2), "matetrack.epd:{}", i + 1);
        assert!(!solver.mates_within(&pos, 3), "matetrack.epd:{}", i + 1);
        sampled += 1;
    }
    assert!(sampled > 40, "{sampled}");
}

fn sunfish(name: &str, moves: u32) -> Vec<i64> {
    let data = corpus(name);
    let (output, summary) = pfms(&data, moves, false);
    assert_eq!(summary.invalid, 0);
    output
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| {
            let got = check_output(&format!("{name}:{}", i + 1), l);
            assert!(got.solved, "{name}:{}: no mate within {moves}", i + 1);
            got.dm.unwrap()
        })
        .collect()
}

#[test]
fn sunfish_mate2_all_dm_2() {
    let dms = sunfish("sunfish_mate2.fen", 2);
    assert_eq!(dms.len(), 212);
    assert!(dms.iter().all(|&d| d == 2), "{dms:?}");
}

#[test]
fn sunfish_mate3_all_dm_3() {
    let dms = sunfish("sunfish_mate3.fen", 3);
    assert_eq!(dms.len(), 14);
    assert!(dms.iter().all(|&d| d == 3), "{dms:?}");
}

#[test]
fn sunfish_mate2_no_naive_mate_in_1() {
    let data = corpus("sunfish_mate2.fen");
    for (i, line) in data.split(|&b| b == b'\n').enumerate().filter(|(_, l)| !l.is_empty()) {
        let pos = *Record::parse(line, ParseMode::Lenient).0.position().unwrap();
        assert!(!naive_mates_within(&pos, 1), "sunfish_mate2.fen:{}", i + 1);
        assert!(naive_mates_within(&pos, 2), "sunfish_mate2.fen:{}", i + 1);
    }
}

#[test]
fn recorded_dm_is_honoured_and_mate_notation_reproved() {
    // A mate in 1 (Ra8#).
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - -";
    // An explicit dm <= N: skipped, written unchanged (canonical).
    let (out, s) = pfms(format!("{fen} dm 1;\n").as_bytes(), 3, false);
    assert_eq!(out, vec![format!("{fen} dm 1;").into_bytes()]);
    assert_eq!((s.counts.searched, s.counts.skipped), (0, 1));
    // An explicit dm > N is searched; a shorter mate replaces it.
    let (out, _) = pfms(format!("{fen} dm 5;\n").as_bytes(), 2, false);
    assert_eq!(check_output("dm 5", &out[0]).dm, Some(1));
    // `bm #3` is a claim, not a result: re-proved, and replaced by dm 1.
    let (out, s) = pfms(format!("{fen} bm #3;\n").as_bytes(), 3, false);
    assert_eq!(s.counts.searched, 1);
    let got = check_output("bm #3", &out[0]);
    assert_eq!(got.dm, Some(1));
    assert!(!out[0].windows(2).any(|w| w == b"bm"));
    // Single pass (spec-literal): any mate within N is written dm N.
    let (out, _) = pfms(format!("{fen}\n").as_bytes(), 2, true);
    assert!(String::from_utf8_lossy(&out[0]).contains("dm 2;"), "{}", String::from_utf8_lossy(&out[0]));
    assert!(String::from_utf8_lossy(&out[0]).contains("pm Ra8#;"));
}

#[test]
fn invalid_records_are_copied_unchanged_and_blank_lines_kept() {
    let input = b"not a record at all\n\n6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"x\";\n";
    let (out, s) = pfms(input, 1, false);
    assert_eq!(out[0], b"not a record at all");
    assert_eq!(out[1], b"");
    assert!(String::from_utf8_lossy(&out[2]).contains("id \"x\";"));
    assert_eq!(check_output("x", &out[2]).dm, Some(1));
    assert_eq!((s.invalid, s.records), (1, 2));
}

#[test]
fn stalemate_is_never_mate() {
    // Black to move is stalemated; white to move here has Qg7# and
    // stalemating moves: the search must pick the mate and call it dm 1.
    let stale: Position = "7k/5Q2/6K1/8/8/8/8/8 b - -".parse().unwrap();
    assert!(stale.is_stalemate());
    let mut s = MateSolver::with_table_bits(10);
    assert!(s.find_mate(&stale, 3).is_none());
    let pos: Position = "7k/8/6K1/8/8/8/5Q2/8 w - -".parse().unwrap();
    let m = s.find_mate(&pos, 1).unwrap();
    assert!(pos.played(m.pv[0]).is_checkmate());
}

#[test]
fn sunfish_mate4_all_dm_4() {
    // Line 24 needs white's castling right to survive the black king
    // leaving c1 (see the regression test below).
    let data = corpus("sunfish_mate4.fen");
    let (output, summary) = pfms(&data, 4, false);
    assert_eq!(summary.invalid, 0);
    assert_eq!(output.len(), 47);
    for (i, l) in output.iter().enumerate() {
        let got = check_output(&format!("sunfish_mate4.fen:{}", i + 1), l);
        assert_eq!(got.dm, Some(4), "sunfish_mate4.fen:{}", i + 1);
    }
}

/// Regression: a king move cleared every castling right on the rank it
/// left, so the black king leaving c1 wiped out white's O-O-O.
#[test]
fn black_king_leaving_rank_1_keeps_white_castling_right() {
    // 1. g8=Q Kc2 2. Nxc3 d6 3. exd6 Kd3 4. O-O-O# (Stockfish: mate 4).
    let pos: Position = "8/3p2P1/1Pp5/2P1P3/3B2P1/2p5/p7/RNk1K3 w Q -".parse().unwrap();
    let mut after = pos;
    for san in ["g8=Q", "Kc2"] {
        let m = after.parse_san(san.as_bytes(), SanMode::Strict).unwrap();
        after.play_unchecked(m);
    }
    assert!(after.fen().contains(" w Q "), "{}", after.fen());
    let mut s = MateSolver::with_table_bits(18);
    assert_eq!(s.find_mate(&pos, 4).map(|m| m.moves), Some(4));
}

#[test]
fn jobs_give_the_same_records() {
    // Only acn and acs (each worker's own node count and time) may differ.
    // Drop every `acn N;` and `acs N;` wherever it stands (the first
    // operation follows the position fields directly).
    let strip = |out: &[u8]| -> String {
        String::from_utf8_lossy(out)
            .lines()
            .map(|l| {
                let mut words = l.split(' ').peekable();
                let mut kept = Vec::new();
                while let Some(w) = words.next() {
                    if (w == "acn" || w == "acs") && words.peek().is_some_and(|n| n.ends_with(';')) {
                        words.next();
                        continue;
                    }
                    kept.push(w);
                }
                kept.join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let data: Vec<u8> = corpus("matetrack.epd").split_inclusive(|&b| b == b'\n').take(700).flatten().copied().collect();
    let opts = Options { moves: 3, ..Options::default() };
    let (mut one, mut four) = (Vec::new(), Vec::new());
    let s1 = run_pfms(&data[..], &mut one, &opts, 1);
    let s4 = run_pfms(&data[..], &mut four, &opts, 4);
    assert_eq!(strip(&one), strip(&four));
    assert_eq!(s1.counts.solved, s4.counts.solved);
    assert_eq!((s1.records, s1.warnings), (s4.records, s4.warnings));
}
