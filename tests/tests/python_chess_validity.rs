//! Position validity against python-chess's `Board.status()` (GPL, a test
//! oracle only, run as a separate program): every position of the shared
//! corpora and 120,000 generated positions weighted to the hard cases (en
//! passant squares with checks, double checks, pawns on back ranks,
//! castling rights without rooks, kings missing or doubled) are judged by
//! `Setup::problems`, the one rule behind the CLI, the C ABI and Python,
//! and by python-chess. The flags must be equal; the script
//! (tests/python/validity_python_chess.py) lists the two rules that only
//! epd-core applies, which docs/kit.md documents.
//!
//! Without python-chess the test is skipped with a message, unless
//! `EPDKIT_REQUIRE_PYTHON_CHESS=1` (set by .ci/run), when it fails.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use epd_core::{parse_fields, Bitboard, Color, Counters, ParseMode, Piece, PositionError, Rank, Role, Setup, Square};
use epd_testkit::{corpus_dir, random_positions, XorShift};

/// Generated positions (besides the corpora's).
const GENERATED: usize = 120_000;

/// python-chess's names for what `problems` reports; `PROMOTION_BUDGET`
/// is epd-core's own rule.
fn flags(problems: &[PositionError]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for p in problems {
        let names: &[&'static str] = match p {
            PositionError::MissingKing(Color::White) => &["NO_WHITE_KING"],
            PositionError::MissingKing(Color::Black) => &["NO_BLACK_KING"],
            PositionError::TooManyKings(_) => &["TOO_MANY_KINGS"],
            PositionError::TooManyPawns(Color::White) => &["TOO_MANY_WHITE_PAWNS"],
            PositionError::TooManyPawns(Color::Black) => &["TOO_MANY_BLACK_PAWNS"],
            PositionError::TooManyPieces(Color::White) => &["TOO_MANY_WHITE_PIECES"],
            PositionError::TooManyPieces(Color::Black) => &["TOO_MANY_BLACK_PIECES"],
            PositionError::PromotionBudget(_) => &["PROMOTION_BUDGET"],
            PositionError::PawnOnBackRank(_) => &["PAWNS_ON_BACKRANK"],
            PositionError::InvalidCastlingRight(_) => &["BAD_CASTLING_RIGHTS"],
            PositionError::InvalidEnPassant(..) => &["INVALID_EP_SQUARE"],
            PositionError::OppositeCheck => &["OPPOSITE_CHECK"],
            PositionError::TooManyCheckers => &["TOO_MANY_CHECKERS", "IMPOSSIBLE_CHECK"],
            PositionError::ImpossibleCheck | PositionError::EnPassantCheck(_) => &["IMPOSSIBLE_CHECK"],
        };
        for n in names {
            if !out.contains(n) {
                out.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The setup as a FEN whose castling field names each right's rook by
/// its file (Shredder-FEN), so python-chess reads the very rights epd-core
/// holds, whatever its reading of `KQkq` would pick.
fn oracle_fen(setup: &Setup) -> String {
    let fen = setup.fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    let mut castling = String::new();
    for rook in setup.castling_rights {
        let letter = char::from(b'a' + rook.file().index() as u8);
        castling.push(if rook.rank() == Rank::FIRST { letter.to_ascii_uppercase() } else { letter });
    }
    if castling.is_empty() {
        castling.push('-');
    }
    fields[2] = &castling;
    fields.join(" ")
}

fn square(rng: &mut XorShift) -> Square {
    Square::from_index(rng.below(64) as u32)
}

fn piece(color: Color, role: Role) -> Piece {
    Piece { color, role }
}

/// A square of `rank` (0-based) on `file` (0-based).
fn at(file: usize, rank: usize) -> Square {
    Square::from_index((rank * 8 + file) as u32)
}

/// Puts `p` on a random empty square, pawns off the back ranks unless
/// `anywhere`; gives up quietly on a crowded board.
fn drop_piece(setup: &mut Setup, rng: &mut XorShift, p: Piece, anywhere: bool) -> Option<Square> {
    for _ in 0..64 {
        let sq = square(rng);
        let back = Bitboard::BACKRANKS.contains(sq);
        if setup.board.piece_at(sq).is_none() && (anywhere || p.role != Role::Pawn || !back) {
            setup.board.set_piece_at(sq, p);
            return Some(sq);
        }
    }
    None
}

const ROLES: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

fn random_role(rng: &mut XorShift) -> Role {
    // Pawns as often as in a game: half the pieces.
    if rng.below(2) == 0 {
        Role::Pawn
    } else {
        ROLES[1 + rng.below(4)]
    }
}

/// Kings (one each, now and then none or two for a side) and `n` random
/// pieces.
fn scatter(setup: &mut Setup, rng: &mut XorShift, n: usize, pawns_anywhere: bool) {
    for color in Color::ALL {
        let kings = match rng.below(40) {
            0 => 0,
            1 => 2,
            _ => 1,
        };
        for _ in 0..kings {
            drop_piece(setup, rng, piece(color, Role::King), false);
        }
    }
    for _ in 0..n {
        let color = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let role = random_role(rng);
        drop_piece(setup, rng, piece(color, role), pawns_anywhere);
    }
}

/// Adds pieces of `by` that attack `target` until `want` of them do (or
/// tries run out): checks, double checks, impossible triple checks.
fn add_attackers(setup: &mut Setup, rng: &mut XorShift, target: Square, by: Color, want: usize) {
    for _ in 0..200 {
        let occ = setup.board.occupied();
        if setup.board.attackers_of(target, by, occ).count() >= want {
            return;
        }
        let sq = square(rng);
        if setup.board.piece_at(sq).is_some() || Bitboard::BACKRANKS.contains(sq) && rng.below(2) == 0 {
            continue;
        }
        let role = ROLES[rng.below(5)];
        setup.board.set_piece_at(sq, piece(by, role));
        let after = setup.board.attackers_of(target, by, setup.board.occupied());
        if !after.contains(sq) || (role == Role::Pawn && Bitboard::BACKRANKS.contains(sq)) {
            setup.board.remove_piece_at(sq);
        }
    }
}

/// An en passant square behind a pawn of the side not to move that stands
/// where a double step would have put it, with the squares it crossed
/// usually empty; now and then spoilt.
fn add_en_passant(setup: &mut Setup, rng: &mut XorShift) {
    let them = setup.turn.other();
    let file = rng.below(8);
    // Ranks (0-based) of the pushed pawn, the square crossed, the start.
    let (to, ep, from) = if setup.turn == Color::White { (4, 5, 6) } else { (3, 2, 1) };
    setup.board.remove_piece_at(at(file, to));
    setup.board.set_piece_at(at(file, to), piece(them, Role::Pawn));
    if rng.below(8) != 0 {
        setup.board.remove_piece_at(at(file, ep));
        setup.board.remove_piece_at(at(file, from));
    }
    let file = if rng.below(10) == 0 { rng.below(8) } else { file };
    setup.ep_square = Some(at(file, ep));
}

/// Castling rights: kings and rooks on their back ranks more often than
/// chance would put them, and a random set of rook squares (corners
/// favoured) as rights, valid or not.
fn add_castling(setup: &mut Setup, rng: &mut XorShift) {
    for color in Color::ALL {
        let rank = if color == Color::White { 0 } else { 7 };
        if rng.below(3) != 0 {
            for sq in setup.board.kings() & setup.board.by_color(color) {
                setup.board.remove_piece_at(sq);
            }
            let file = if rng.below(2) == 0 { 4 } else { 1 + rng.below(6) };
            setup.board.remove_piece_at(at(file, rank));
            setup.board.set_piece_at(at(file, rank), piece(color, Role::King));
        }
        for _ in 0..rng.below(3) {
            let file = if rng.below(2) == 0 { [0, 7][rng.below(2)] } else { rng.below(8) };
            if setup.board.piece_at(at(file, rank)).is_none() {
                setup.board.set_piece_at(at(file, rank), piece(color, Role::Rook));
            }
        }
        for _ in 0..rng.below(3) {
            let file = if rng.below(2) == 0 { [0, 7][rng.below(2)] } else { rng.below(8) };
            setup.castling_rights.add(at(file, rank));
        }
    }
}

fn generated(seed: u64) -> Vec<Setup> {
    let mut rng = XorShift::new(seed);
    let played = random_positions(seed, 300, 120);
    let mut out = Vec::with_capacity(GENERATED);
    while out.len() < GENERATED {
        let mut setup = Setup::empty();
        setup.turn = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let n = rng.below(14);
        match rng.below(6) {
            // En passant squares with checks: the hard case.
            0 | 1 => {
                scatter(&mut setup, &mut rng, n, false);
                add_en_passant(&mut setup, &mut rng);
                if let Some(king) = setup.board.king_of(setup.turn) {
                    let (want, them) = (1 + usize::from(rng.below(4) == 0), setup.turn.other());
                    add_attackers(&mut setup, &mut rng, king, them, want);
                }
            }
            // Double and triple checks.
            2 => {
                scatter(&mut setup, &mut rng, n, false);
                if let Some(king) = setup.board.king_of(setup.turn) {
                    let (want, them) = (2 + rng.below(2), setup.turn.other());
                    add_attackers(&mut setup, &mut rng, king, them, want);
                }
            }
            // Pawns anywhere, material at random.
            3 => {
                let n = rng.below(30);
                scatter(&mut setup, &mut rng, n, true);
            }
            // Castling rights.
            4 => {
                scatter(&mut setup, &mut rng, n, false);
                add_castling(&mut setup, &mut rng);
            }
            // Positions from play, given an en passant square or turned
            // around.
            _ => {
                let pos = &played[rng.below(played.len())];
                setup = pos.to_setup();
                if rng.below(2) == 0 {
                    setup.turn = setup.turn.other();
                    setup.ep_square = None;
                }
                if rng.below(2) == 0 {
                    add_en_passant(&mut setup, &mut rng);
                }
            }
        }
        out.push(setup);
    }
    out
}

/// Every position line of the shared EPD and FEN corpora that epd-core's
/// lenient reader can read the fields of (the others are counted).
fn corpus_setups() -> (Vec<Setup>, usize, usize) {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the corpus directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("epd" | "fen")))
        .collect();
    files.sort();
    let (mut out, mut lines, mut unread) = (Vec::new(), 0, 0);
    for path in &files {
        let bytes = std::fs::read(path).expect("read a corpus file");
        for line in bytes.split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) || line.starts_with(b"#") {
                continue;
            }
            lines += 1;
            match parse_fields(line, ParseMode::Lenient, Counters::Optional) {
                Ok(parsed) => out.push(parsed.setup),
                Err(_) => unread += 1,
            }
        }
    }
    assert!(files.len() >= 20, "{} corpus files in {}", files.len(), dir.display());
    (out, lines, unread)
}

#[test]
fn validity_agrees_with_python_chess_status() {
    if !epd_testkit::python_chess() {
        return;
    }
    let (corpus, lines, unread) = corpus_setups();
    // The lines whose fields cannot be read at all are few (comments and
    // perft continuation lines): the rule is checked on the rest.
    assert!(unread * 100 < lines, "{unread} of {lines} corpus lines unread");
    let generated = generated(0x7a11d);
    let mut text = String::new();
    for (section, setups) in [("corpus", &corpus), ("generated", &generated)] {
        for setup in setups {
            let problems = setup.problems();
            writeln!(text, "{section}\t{}\t{}", oracle_fen(setup), flags(&problems).join(",")).expect("write");
        }
    }
    let path = std::env::temp_dir().join(format!("epdkit-validity-{}.tsv", std::process::id()));
    std::fs::write(&path, text).expect("write positions");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/validity_python_chess.py");
    let out = Command::new("python3").arg(&script).arg(&path).output().expect("run python3");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    assert!(out.status.success(), "differences from python-chess:\n{stderr}\n{stdout}");
    let total = corpus.len() + generated.len();
    assert!(stdout.contains(&format!("{total} positions, 0 with differences")), "{stdout}");
}

/// The position of the issue that found the rule, and its neighbours, as
/// table rows: the flags epd-core gives.
#[test]
fn en_passant_checks_are_judged_as_python_chess_judges_them() {
    for (fen, want) in [
        // Black's c7-c5 cannot have uncovered the bishop's check.
        ("b7/8/8/rPpK4/8/5k2/6p1/7Q w - c6", "IMPOSSIBLE_CHECK"),
        ("b7/8/8/rPpK4/8/5k2/6p1/7Q w - -", ""),
        // The pushed pawn gives the check itself.
        ("8/8/8/2p5/1K6/8/8/4k3 w - c6", ""),
        // c7-c5 uncovered the bishop on b6: a discovered check.
        ("3K4/8/1b6/2p5/8/8/8/k7 w - c6", ""),
        // Two checkers after a double step; without it, a legal double check.
        ("8/8/n7/2p5/1K6/8/8/4k3 w - c6", "IMPOSSIBLE_CHECK"),
        ("8/8/n7/2p5/1K6/8/8/4k3 w - -", ""),
        // Three checkers.
        ("4k3/8/8/r7/8/1n6/8/K1q5 w - -", "IMPOSSIBLE_CHECK,TOO_MANY_CHECKERS"),
        // A spoilt en passant square is judged as an invalid one only.
        ("b7/8/2p5/rP1K4/8/5k2/6p1/7Q w - c6", "INVALID_EP_SQUARE"),
    ] {
        let setup = parse_fields(fen.as_bytes(), ParseMode::Strict, Counters::Optional).expect(fen).setup;
        assert_eq!(flags(&setup.problems()).join(","), want, "{fen}");
    }
}

#[test]
fn file_letters_name_the_rights_epd_core_holds() {
    let setup =
        parse_fields(b"r3k2r/8/8/8/8/8/8/R3K2R w KQkq -", ParseMode::Strict, Counters::Optional).expect("fen").setup;
    assert_eq!(oracle_fen(&setup), "r3k2r/8/8/8/8/8/8/R3K2R w AHah - 0 1");
}
