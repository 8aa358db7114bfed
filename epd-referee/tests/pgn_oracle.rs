//! The PGN the referee writes, read back by independent readers:
//! python-chess (every move legal, the final position, `[%clk]` and
//! `[%emt]` as written, the result consistent with the final position)
//! and pgn-extract (the games parse with no complaint). Random games that
//! end every way the board ends them, and some the referee ends.
//! `EPDKIT_REQUIRE_PYTHON_CHESS=1` (CI) makes a missing oracle a failure.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use epd_core::{Color, Position};
use epd_referee::book::Opening;
use epd_referee::pgn::{self, Tags};
use epd_referee::{Game, GameResult, TimeControl};
use epd_testkit::XorShift;

/// Plays random legal moves (captures preferred half the time, so games
/// reach endings), 0-3 s each, until the game ends (flag falls too) or a
/// random number of plies up to 400; the unfinished ones
/// are ended by the referee in turn: resignation, agreement, flag fall,
/// adjudication.
fn random_games(count: usize, seed: u64) -> (Vec<Game>, TimeControl) {
    random_games_from(&[Position::startpos()], count, seed)
}

/// As [`random_games`], from the `starts` in turn, castling whenever it
/// can (so that Chess960 castling is played often).
fn random_games_from(starts: &[Position], count: usize, seed: u64) -> (Vec<Game>, TimeControl) {
    random_games_with_books(starts, 0, count, seed)
}

/// As [`random_games_from`], each game beginning with up to `book` plies
/// of random moves as its opening book's (none when `book` is 0).
fn random_games_with_books(starts: &[Position], book: usize, count: usize, seed: u64) -> (Vec<Game>, TimeControl) {
    let mut rng = XorShift::new(seed);
    let openings = (0..count)
        .map(|i| {
            let start = starts[i % starts.len()];
            let mut opening = Opening::from(start);
            if book > 0 {
                let mut pos = start;
                for _ in 0..rng.below(book + 1) {
                    let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
                    if !book_move(&mut opening, &mut pos, moves[rng.below(moves.len())]) {
                        break;
                    }
                }
            }
            opening
        })
        .collect();
    random_games_after(openings, starts.len() > 1, &mut rng)
}

/// Adds `m`, played from `pos`, to the book's moves, unless it ends the
/// game (the players need a move to make); `false` then.
fn book_move(opening: &mut Opening, pos: &mut Position, m: epd_core::Move) -> bool {
    let mut after = *pos;
    after.play_unchecked(m);
    if after.status() != epd_core::Status::Ongoing {
        return false;
    }
    *pos = after;
    opening.moves.push(m);
    true
}

/// Random games (as [`random_games`]) each from one of `openings`, its
/// moves as the book's; `castle` plays castling whenever it can.
fn random_games_after(openings: Vec<Opening>, castle: bool, rng: &mut XorShift) -> (Vec<Game>, TimeControl) {
    let tc: TimeControl = "60+1".parse().unwrap();
    let mut games = Vec::new();
    for (i, opening) in openings.into_iter().enumerate() {
        let mut g = Game::from_opening(&opening, &tc, &tc);
        let plies = 10 + rng.below(390);
        while g.ended().is_none() && g.moves().len() < plies {
            let pos = *g.position();
            let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
            let captures: Vec<_> = moves.iter().copied().filter(|&m| pos.is_capture(m)).collect();
            let castles: Vec<_> = moves.iter().copied().filter(|m| m.is_castle()).collect();
            let pool = if castle && !castles.is_empty() {
                &castles
            } else if !captures.is_empty() && rng.below(2) == 0 {
                &captures
            } else {
                &moves
            };
            let m = pool[rng.below(pool.len())];
            let used = Duration::from_millis(rng.below(3000) as u64);
            g.play(m, used).unwrap();
        }
        if g.ended().is_none() {
            let side = g.position().turn();
            match i % 4 {
                0 => {
                    g.resign(side);
                }
                1 => {
                    g.agree_draw();
                }
                2 => {
                    g.flag(side);
                }
                _ => {
                    g.adjudicate(GameResult::win(Color::White), "test");
                }
            }
        }
        games.push(g);
    }
    (games, tc)
}

fn python_chess() -> bool {
    let ok = Command::new("python3").args(["-c", "import chess.pgn"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("EPDKIT_REQUIRE_PYTHON_CHESS").is_none(), "python-chess is required but missing");
        eprintln!("python-chess not installed: skipped");
    }
    ok
}

const CHECK: &str = r#"
import sys, chess, chess.pgn
games = 0
pgn = open(sys.argv[1], encoding="utf-8")
expected = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
# The named openings: each line's position, the first line naming it.
table = {}
for volume in "abcde":
    for line in open(f"{sys.argv[3]}/{volume}.tsv", encoding="utf-8").read().splitlines()[1:]:
        eco, name, moves = line.split("\t")
        b = chess.Board()
        for word in moves.split():
            if not word[0].isdigit():
                b.push_san(word)
        table.setdefault(b.epd(), (eco, name))
named = 0
while True:
    game = chess.pgn.read_game(pgn)
    if game is None:
        break
    exp = expected[games]
    games += 1
    if game.errors:
        sys.exit(f"game {games}: {game.errors}")
    board = game.board()
    if (game.headers.get("Variant") == "Chess960") != board.chess960:
        sys.exit(f"game {games}: Variant {game.headers.get('Variant')} but chess960 {board.chess960}")
    clocks, emts = [], []
    opening = None if board.chess960 else table.get(board.epd())
    for node in game.mainline():
        if not board.is_legal(node.move):
            sys.exit(f"game {games}: illegal {node.move}")
        board.push(node.move)
        if not board.chess960:
            opening = table.get(board.epd(), opening)
        if node.comment.split(" ")[0] == "book":
            # An opening book's move: no clock, no time (the game's
            # closing comment joins the last one's when the players made
            # no move).
            if clocks and clocks[-1] != "book":
                sys.exit(f"game {games}: a book move after the players' moves")
            clocks.append("book")
            emts.append("book")
            continue
        clocks.append("%.3f" % node.clock())
        emts.append("%.3f" % node.emt())
    if board.fen(en_passant="fen") != exp[0]:
        sys.exit(f"game {games}: final {board.fen(en_passant='fen')} != {exp[0]}")
    if " ".join(clocks) != exp[1] or " ".join(emts) != exp[2]:
        sys.exit(f"game {games}: clocks differ")
    tagged = (game.headers["ECO"], game.headers["Opening"]) if "ECO" in game.headers else None
    if tagged != opening:
        sys.exit(f"game {games}: ECO and Opening {tagged} where the table names {opening}")
    named += opening is not None
    result = game.headers["Result"]
    if result != exp[3] or int(game.headers["PlyCount"]) != len(clocks):
        sys.exit(f"game {games}: result or PlyCount")
    outcome = board.outcome(claim_draw=False)
    term = game.headers["Termination"]
    if outcome is not None and outcome.termination.name in ("CHECKMATE", "STALEMATE", "INSUFFICIENT_MATERIAL", "SEVENTYFIVE_MOVES", "FIVEFOLD_REPETITION"):
        if outcome.result() != result or term != "normal":
            sys.exit(f"game {games}: {outcome} but {result} {term}")
    elif term == "normal" and "resigns" not in exp[4] and "agreed" not in exp[4]:
        sys.exit(f"game {games}: ended normally with no reason on the board: {exp[4]}")
print(games, named)
"#;

#[test]
fn python_chess_reads_every_game_as_written() {
    if !python_chess() {
        return;
    }
    let (games, _control) = random_games(60, 0x00A2_6005);
    check_games(&games, false);
}

/// Chess960 and DFRC games (castling on either wing whenever legal):
/// `[Variant "Chess960"]` and the start's `[FEN]` in X-FEN, read by
/// python-chess in Chess960 mode to the same final position, and by
/// pgn-extract.
#[test]
fn python_chess_reads_chess960_games_as_written() {
    if !python_chess() {
        return;
    }
    let starts: Vec<Position> = [
        "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFca - 0 1",
        "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAhb - 0 1",
        "qbnnrkbr/pppppppp/8/8/8/8/PPPPPPPP/QRKBBNRN w GBhe - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ]
    .iter()
    .map(|f| f.parse().unwrap())
    .collect();
    let (games, _control) = random_games_from(&starts, 60, 0x0960_0960);
    let castles = games.iter().flat_map(|g| g.moves()).filter(|m| m.mv.is_castle()).count();
    assert!(castles >= 60, "castling is played: {castles}");
    check_games(&games, true);
}

/// Games that begin with an opening book's moves (a PGN book's, up to
/// 16 plies, from the standard position and from others): each book
/// move is written with `{book}` alone, before the players' moves, and
/// python-chess reads the same games, clocks and `[PlyCount]` (book moves
/// counted); pgn-extract reads them too.
#[test]
fn python_chess_reads_games_with_book_moves() {
    if !python_chess() {
        return;
    }
    let starts: Vec<Position> = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40",
    ]
    .iter()
    .map(|f| f.parse().unwrap())
    .collect();
    let (games, _control) = random_games_with_books(&starts, 16, 60, 0x0B00_C500);
    let booked = games.iter().filter(|g| g.book_plies() > 0).count();
    assert!(booked >= 40, "most games have book moves: {booked}");
    check_games(&games, false);
}

/// Games that follow a line of the table of named openings (one line in
/// four cut short, some from a named position further in) and go on at
/// random: their `ECO` and `Opening` are python-chess's walk over the
/// same table, the deep names and transpositions included.
#[test]
fn python_chess_names_the_openings_of_games_along_the_tables_lines() {
    if !python_chess() {
        return;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/openings");
    let lines: Vec<String> = "abcde"
        .chars()
        .flat_map(|v| {
            let text = std::fs::read_to_string(format!("{dir}/{v}.tsv")).unwrap();
            text.lines().skip(1).map(|l| l.split('\t').nth(2).unwrap().to_owned()).collect::<Vec<_>>()
        })
        .collect();
    let mut rng = XorShift::new(0x0EC0_0EC0);
    let openings = (0..60)
        .map(|i| {
            let line = &lines[rng.below(lines.len())];
            let mut opening = Opening::from(Position::startpos());
            let mut pos = Position::startpos();
            let words: Vec<&str> =
                line.split_ascii_whitespace().filter(|w| !w.starts_with(|c: char| c.is_ascii_digit())).collect();
            let keep = if i % 4 == 0 { rng.below(words.len()) } else { words.len() };
            for w in &words[..keep] {
                let m = pos.parse_san(w.as_bytes(), epd_core::SanMode::Strict).unwrap();
                // Fool's mate is a named line: the players need a move.
                if !book_move(&mut opening, &mut pos, m) {
                    break;
                }
            }
            // A game from the named position itself, one in five.
            if i % 5 == 1 {
                opening = Opening::from(pos);
            }
            opening
        })
        .collect();
    let (games, _control) = random_games_after(openings, false, &mut rng);
    check_games(&games, false);
}

fn check_games(games: &[Game], chess960: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let mut expected = String::new();
    for (i, g) in games.iter().enumerate() {
        let tags = Tags {
            event: "Argus \"test\"".into(),
            site: "localhost".into(),
            date: "2026.11.23".into(),
            round: (i + 1).to_string(),
            white: "alpha".into(),
            black: "beta".into(),
            chess960,
        };
        text.push_str(&pgn::write(&tags, g));
        let shown = |m: &epd_referee::PlayedMove, d: Duration| {
            if m.book {
                "book".to_owned()
            } else {
                format!("{:.3}", d.as_secs_f64())
            }
        };
        let clocks: Vec<String> = g.moves().iter().map(|m| shown(m, m.clock)).collect();
        let emts: Vec<String> = g.moves().iter().map(|m| shown(m, m.emt)).collect();
        let e = g.ended().unwrap();
        let _ = writeln!(
            expected,
            "{}\t{}\t{}\t{}\t{}",
            g.position().fen(),
            clocks.join(" "),
            emts.join(" "),
            e.result.pgn(),
            e.termination.describe(e.result)
        );
    }
    // Tag pairs are a line each, whatever their length (an opening's
    // name may take 99 characters).
    assert!(
        text.lines().filter(|l| !l.starts_with('[')).all(|l| l.len() < 80),
        "export format: movetext lines under 80 columns"
    );
    let kinds: std::collections::HashSet<&str> =
        games.iter().map(|g| g.ended().unwrap().termination.pgn_tag()).collect();
    assert!(kinds.len() >= 3, "{kinds:?}");
    let pgn_path = dir.path().join("games.pgn");
    std::fs::write(&pgn_path, &text).unwrap();
    let exp_path = dir.path().join("expected.tsv");
    std::fs::write(&exp_path, &expected).unwrap();
    let script = dir.path().join("check.py");
    std::fs::write(&script, CHECK).unwrap();
    let table = concat!(env!("CARGO_MANIFEST_DIR"), "/data/openings");
    let out = Command::new("python3").arg(&script).arg(&pgn_path).arg(&exp_path).arg(table).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (read, named) = stdout.trim().split_once(' ').unwrap();
    assert_eq!(read, "60");
    let named: usize = named.parse().unwrap();
    // The standard games are nearly all named (most first moves are),
    // Chess960's never.
    if chess960 {
        assert_eq!(named, 0);
    } else {
        assert!(named >= 30, "named games: {named}");
    }

    // pgn-extract reads them too, all 60, without complaint.
    if std::path::Path::new("/usr/games/pgn-extract").is_file() {
        let out = Command::new("/usr/games/pgn-extract").args(["-s", "--quiet"]).arg(&pgn_path).output().unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.trim().is_empty() || stderr.contains("60 games"), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).matches("[Event ").count(), 60);
    }
}
