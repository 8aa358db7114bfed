//! `epd from-pgn --label`: quiet positions labelled with their game's
//! result, for Texel tuning (issue 34, item 3), checked by python-chess.
//!
//! python-chess reads the same PGN back and, independently of the
//! engine, checks every written position: legal, side to move not in
//! check, no capture of a more valuable piece (1, 3, 3, 5, 9) nor of a
//! piece no enemy attacks once taken; the label is its game's result
//! (with `--unique`, the first game the position occurs in); the
//! positions come in game order, and the summary's counts add up.
//! Without python-chess the test is skipped with a message, unless
//! `EPDKIT_REQUIRE_PYTHON_CHESS` is set (as CI sets it), when it fails.
//!
//! The figures, on lichess_db_1000k.pgn (438 games, 28,976 positions)
//! and a small PGN after it (a `*` game, skipped, and a drawn game of 5
//! positions that all occur earlier): 440 games, 28,981 positions in the
//! 439 games with a result, and
//!
//! - `--label --unique`: 26,876 distinct positions; 17,013 written,
//!   9,863 not quiet, 2,105 repeats left out, 1 game without a result;
//! - `--label --label-format fen-result --plies 10.. --pieces ..30`:
//!   22,743 positions in range; 13,761 written, 8,982 not quiet.

use std::process::Command;

const EPD: &str = env!("CARGO_BIN_EXE_epd");

/// Games after the corpus's: one without a result, one whose positions
/// the corpus has already given (with other results).
const EXTRA: &str = "[Event \"unfinished\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 *\n\n\
    [Event \"again\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n";

/// Reads the PGN files with python-chess and checks one output of
/// `epd from-pgn --label`: argv is the output file, its format, `unique`
/// or `all`, the first and last ply, the fewest and most pieces, the
/// summary line, then the PGN files. Prints the counts it checked.
const CHECK: &str = r#"
import sys, chess, chess.pgn
out, fmt, mode, ply_a, ply_b, pc_a, pc_b, summary = sys.argv[1:9]
pgns = sys.argv[9:]
ply_a, ply_b, pc_a, pc_b = int(ply_a), int(ply_b), int(pc_a), int(pc_b)
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}
LABEL = {"1-0": ("1-0", "[1.0]"), "0-1": ("0-1", "[0.0]"), "1/2-1/2": ("1/2-1/2", "[0.5]")}

# Every position of every game with a result, in order: (key, fen, label).
games = unlabelled = 0
positions = []
for path in pgns:
    with open(path, encoding="utf-8") as f:
        while (g := chess.pgn.read_game(f)) is not None:
            games += 1
            result = g.headers.get("Result", "*")
            if result not in LABEL:
                unlabelled += 1
                continue
            b = g.board()
            moves = list(g.mainline_moves())
            for ply in range(len(moves) + 1):
                if ply:
                    b.push(moves[ply - 1])
                if ply_a <= ply <= ply_b and pc_a <= len(b.piece_map()) <= pc_b:
                    label = LABEL[result][0 if fmt == "zurichess" else 1]
                    positions.append((b.epd(en_passant="fen"), b.fen(en_passant="fen"), label))
if mode == "unique":
    seen, firsts = set(), []
    for p in positions:
        if p[0] not in seen:
            seen.add(p[0])
            firsts.append(p)
    expected = firsts
else:
    expected = positions

def fail(msg):
    sys.exit(f"{out}: {msg}")

written = []
for line in open(out, encoding="utf-8"):
    line = line.rstrip("\n")
    if fmt == "zurichess":
        board, ops = chess.Board.from_epd(line)
        if set(ops) != {"c9"}:
            fail(f"operations other than c9: {line}")
        key, label = board.epd(en_passant="fen"), ops["c9"]
        if line != f'{key} c9 "{label}";':
            fail(f"not the zurichess layout: {line}")
    else:
        fen, label = line.rsplit(" ", 1)
        board = chess.Board(fen)
        key = board.epd(en_passant="fen")
        if line != f"{board.fen(en_passant='fen')} {label}":
            fail(f"not the fen-result layout: {line}")
    if not board.is_valid():
        fail(f"illegal position: {line}")
    if board.is_check():
        fail(f"side to move in check: {line}")
    for m in board.legal_moves:
        if not board.is_capture(m):
            continue
        victim = chess.PAWN if board.is_en_passant(m) else board.piece_type_at(m.to_square)
        taker = board.piece_type_at(m.from_square)
        if VALUE[victim] > VALUE[taker]:
            fail(f"{board.san(m)} takes a more valuable piece: {line}")
        after = board.copy(stack=False)
        after.push(m)
        if not after.is_attacked_by(after.turn, m.to_square):
            fail(f"{board.san(m)} takes an undefended piece: {line}")
    written.append((key, line, label))

# The written positions are the expected ones, in order, each with its
# own game's label (the first game's, with --unique); the FEN of the
# fen-result layout is the game's, move counters included.
i = 0
for key, line, label in written:
    while i < len(expected) and expected[i][0] != key:
        i += 1
    if i == len(expected):
        fail(f"not a position of the games, or out of order: {line}")
    if fmt == "fen-result" and not line.startswith(expected[i][1] + " "):
        fail(f"the game has {expected[i][1]}: {line}")
    if label != expected[i][2]:
        fail(f"labelled {label}, its game ended {expected[i][2]}: {line}")
    i += 1
if mode == "unique" and len({k for k, _, _ in written}) != len(written):
    fail("a position written twice with --unique")

repeated = len(positions) - len(expected)
not_quiet = len(expected) - len(written)
want = (f"{games} games, {len(written)} records written; {not_quiet} not quiet, "
        f"{repeated} repeated positions left out; {unlabelled} games without a result skipped")
if summary != want:
    fail(f"summary {summary!r}, python-chess counts {want!r}")
print(games, len(positions), len(expected), len(written), not_quiet, repeated, unlabelled)
"#;

fn python_chess() -> bool {
    let ok = Command::new("python3").args(["-c", "import chess"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("EPDKIT_REQUIRE_PYTHON_CHESS").is_none(),
            "python-chess is required (EPDKIT_REQUIRE_PYTHON_CHESS): pip install chess==1.11.2"
        );
        eprintln!("skipped: python-chess is not installed (pip install chess==1.11.2)");
    }
    ok
}

/// One run of `epd from-pgn --label` and what python-chess is to find.
struct Run {
    /// Options after `--label`.
    options: &'static [&'static str],
    /// The layout, `zurichess` or `fen-result`.
    format: &'static str,
    /// `unique` (first occurrences) or `all`.
    mode: &'static str,
    /// The plies and the numbers of pieces the options keep, inclusive.
    plies: [u32; 2],
    pieces: [u32; 2],
    /// Games, positions in range (games with a result), distinct (or
    /// all), written, not quiet, repeated, games without a result.
    counts: [u64; 7],
}

/// Every labelled position of a real PGN is legal, quiet by python-chess's
/// own simple test, in game order and labelled with its game's result;
/// the summary's counts are python-chess's.
#[test]
fn labelled_positions_are_quiet_and_carry_their_games_results() {
    if !python_chess() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra.pgn");
    std::fs::write(&extra, EXTRA).unwrap();
    let corpus = epd_testkit::corpus_path("lichess_db_1000k.pgn");
    for Run { options, format, mode, plies, pieces, counts } in [
        Run {
            options: &["--unique"],
            format: "zurichess",
            mode: "unique",
            plies: [0, 9999],
            pieces: [0, 32],
            counts: [440, 28_981, 26_876, 17_013, 9_863, 2_105, 1],
        },
        Run {
            options: &["--label-format", "fen-result", "--plies", "10..", "--pieces", "..30"],
            format: "fen-result",
            mode: "all",
            plies: [10, 9999],
            pieces: [0, 30],
            counts: [440, 22_743, 22_743, 13_761, 8_982, 0, 1],
        },
    ] {
        let out = dir.path().join(format!("{format}.out"));
        let run = Command::new(EPD)
            .args(["from-pgn", "--label"])
            .args(options)
            .arg("-o")
            .arg(&out)
            .arg(&corpus)
            .arg(&extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{options:?}: {stderr}");
        let summary = stderr.lines().last().unwrap_or_default();
        let check = Command::new("python3")
            .args(["-c", CHECK])
            .arg(&out)
            .args([format, mode])
            .args([plies, pieces].concat().iter().map(u32::to_string))
            .arg(summary)
            .arg(&corpus)
            .arg(&extra)
            .output()
            .unwrap();
        assert!(check.status.success(), "{options:?}: {}", String::from_utf8_lossy(&check.stderr));
        let got: Vec<u64> =
            String::from_utf8_lossy(&check.stdout).split_whitespace().map(|n| n.parse().unwrap()).collect();
        assert_eq!(got, counts, "{options:?}: {summary}");
    }
}

fn from_pgn(args: &[&str], pgn: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = Command::new(EPD)
        .arg("from-pgn")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A usage error exits before reading: the pipe may be closed.
    let _ = child.stdin.take().unwrap().write_all(pgn.as_bytes());
    let o = child.wait_with_output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The layouts and the options that do not fit them, worked out by hand.
#[test]
fn label_layouts_and_usage_errors() {
    let pgn = "[Result \"1-0\"]\n\n1. e4 d5 2. exd5 1-0\n\n[Result \"*\"]\n\n1. d4 *\n";
    // After 1. e4 d5, exd5 Qxd5 is an even trade: quiet. After 2. exd5,
    // Qxd5 takes an undefended pawn: not quiet.
    let (code, out, err) = from_pgn(&["--label", "--counters", "--id"], pgn);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c9 \"1-0\"; fmvn 1; hmvc 0; id \"? - ?, ? ?, ply 0\";",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 c9 \"1-0\"; fmvn 1; hmvc 0; id \"? - ?, ? ?, ply 1\";",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 c9 \"1-0\"; fmvn 2; hmvc 0; id \"? - ?, ? ?, ply 2\";",
        ]
    );
    assert_eq!(
        err.lines().last(),
        Some(
            "2 games, 3 records written; 1 not quiet, 0 repeated positions left out; 1 games without a result skipped"
        )
    );
    let (code, out, _) = from_pgn(&["--label", "--label-format", "fen-result", "--plies", "2"], pgn);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2 [1.0]\n")
    );
    // --pieces without --label: 31 pieces after exd5.
    let (code, out, _) = from_pgn(&["--pieces", "..31"], pgn);
    assert_eq!((code, out.as_str()), (Some(0), "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq -\n"));
    for bad in [
        &["--label", "--label-format", "fen-result", "--id"][..],
        &["--label-format", "fen-result"],
        &["--label", "--label-format", "csv"],
        &["--pieces", "9..3"],
        &["--pieces", "x"],
    ] {
        let (code, _, err) = from_pgn(bad, pgn);
        assert_eq!(code, Some(2), "{bad:?}: {err}");
    }
}
