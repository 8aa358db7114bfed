//! Differential test against python-chess (GPL, a test oracle only, run as
//! a separate program): over 10,000+ positions from seeded random play,
//! the sets of legal moves (UCI), the SAN of every legal move, check,
//! checkmate, stalemate, insufficient material and the FEN after every
//! move must agree exactly. The comparison and the conventions it aligns
//! are in tests/python/diff_python_chess.py.
//!
//! Without python-chess the test is skipped with a message, unless
//! `EPDKIT_REQUIRE_PYTHON_CHESS=1` (set by .ci/run), when it fails.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use epd_core::{MoveKind, Position};
use epd_testkit::XorShift;

/// Positions wanted; games are played until there are this many.
const POSITIONS: usize = 20_000;

/// What the generated positions cover, so the test cannot pass vacuously.
#[derive(Debug, Default)]
struct Coverage {
    castles: usize,
    en_passant: usize,
    promotions: usize,
    checks: usize,
    checkmates: usize,
    stalemates: usize,
    insufficient: usize,
    long_games: usize,
}

/// Random games from the start position. Even games pick uniformly; odd
/// games favour captures and promotions (to reach endgames and
/// insufficient material) and run long.
fn positions(seed: u64) -> (Vec<Position>, Coverage) {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::with_capacity(POSITIONS);
    let mut cov = Coverage::default();
    let mut game = 0;
    while out.len() < POSITIONS {
        let mut pos = Position::startpos();
        let greedy = game % 2 == 1;
        game += 1;
        for ply in 0..400 {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.is_insufficient_material() || pos.halfmoves() >= 100 {
                break;
            }
            if ply == 150 {
                cov.long_games += 1;
            }
            let forcing: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&m| pos.is_capture(m) || matches!(m.kind(), MoveKind::Promotion(_)))
                .collect();
            let m = if greedy && !forcing.is_empty() && rng.below(10) < 7 {
                forcing[rng.below(forcing.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            pos.play_unchecked(m);
        }
    }
    for pos in &out {
        for m in pos.legal_moves().iter() {
            match m.kind() {
                MoveKind::Castle => cov.castles += 1,
                MoveKind::EnPassant => cov.en_passant += 1,
                MoveKind::Promotion(_) => cov.promotions += 1,
                MoveKind::Normal => {}
            }
        }
        cov.checks += usize::from(pos.is_check());
        cov.checkmates += usize::from(pos.is_checkmate());
        cov.stalemates += usize::from(pos.is_stalemate());
        cov.insufficient += usize::from(pos.is_insufficient_material());
    }
    (out, cov)
}

/// One JSON line per position with epd-core's answers. FEN, SAN and UCI
/// text holds no character JSON must escape (checked).
fn write_answers(positions: &[Position]) -> String {
    let mut s = String::new();
    for pos in positions {
        let fen = pos.fen();
        write!(
            s,
            "{{\"fen\":\"{fen}\",\"check\":{},\"checkmate\":{},\"stalemate\":{},\"insufficient\":{},\"moves\":[",
            pos.is_check(),
            pos.is_checkmate(),
            pos.is_stalemate(),
            pos.is_insufficient_material()
        )
        .expect("write to string");
        for (i, &m) in pos.legal_moves().iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            write!(s, "{sep}[\"{}\",\"{}\",\"{}\"]", pos.uci(m), pos.san(m), pos.played(m).fen()).expect("write");
        }
        s.push_str("]}\n");
    }
    assert!(!s.contains('\\'), "text JSON would have to escape");
    s
}

#[test]
fn agrees_with_python_chess_on_random_play() {
    if !epd_testkit::python_chess() {
        return;
    }
    let (positions, cov) = positions(0x5eed);
    assert!(positions.len() >= 10_000);
    eprintln!("{} positions: {cov:?}", positions.len());
    // Every convention the script aligns is exercised.
    assert!(cov.castles > 100 && cov.en_passant > 20 && cov.promotions > 100, "{cov:?}");
    assert!(cov.checks > 100 && cov.checkmates > 0 && cov.insufficient > 10 && cov.long_games > 10, "{cov:?}");

    let path = std::env::temp_dir().join(format!("epdkit-python-chess-{}.jsonl", std::process::id()));
    std::fs::write(&path, write_answers(&positions)).expect("write positions");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/diff_python_chess.py");
    let out = Command::new("python3").arg(&script).arg(&path).output().expect("run python3");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    assert!(out.status.success(), "differences from python-chess:\n{stderr}\n{stdout}");
    assert!(stdout.contains(&format!("{} positions", positions.len())), "{stdout}");
    assert!(stdout.contains(" 0 with differences"), "{stdout}");
}
