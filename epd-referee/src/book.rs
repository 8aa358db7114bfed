//! Opening books: EPD (one position a line) or PGN (each game's start,
//! its `FEN` tag or the standard position, and its moves, or some of
//! them, which the game then begins with, as fastchess plays them), in
//! the book's order from a start or shuffled with a seed. The same book
//! and settings give the same openings in the same order, so a resumed
//! event plays the openings it would have played.

use std::io::BufReader;
use std::path::Path;

use epd_core::pgn::PgnReader;
use epd_core::{History, Move, Position, SanMode, Status};

use crate::event::{Book, BookFormat, BookOrder};

fn bad(path: &Path, line: u64, what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}:{line}: {what}", path.display()))
}

/// `bad` at a column of the line (1-based).
fn bad_at(path: &Path, line: u64, column: usize, what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}:{line}:{column}: {what}", path.display()))
}

/// The book could not be read: its path and the system's words.
fn unreadable(path: &Path, e: &std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {}", path.display(), epd_core::io_reason(e)))
}

/// An opening of a book: the position the game starts from and the
/// book's moves played from it before the players move (a PGN book's;
/// none in an EPD book). The game records the book's moves as its first
/// moves, and the players are sent them with the start.
///
/// ```
/// use epd_core::Position;
/// use epd_referee::book::Opening;
///
/// let start = Position::startpos();
/// let e4 = start.parse_san(b"e4", epd_core::SanMode::Strict).unwrap();
/// let opening = Opening { start, moves: vec![e4] };
/// assert_eq!(opening.position().fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
/// assert_eq!(Opening::from(start).position(), start);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Where the game starts: an EPD line's position, a PGN game's `FEN`
    /// tag, else the standard position.
    pub start: Position,
    /// The book's moves, legal from `start` one after the other.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the book's moves, where the players take over.
    #[must_use]
    pub fn position(&self) -> Position {
        let mut pos = self.start;
        for &m in &self.moves {
            pos.play_unchecked(m);
        }
        pos
    }
}

impl From<Position> for Opening {
    /// An opening of a position alone (an EPD book's).
    fn from(start: Position) -> Opening {
        Opening { start, moves: Vec::new() }
    }
}

/// Reads `book` and returns its openings in the order they are used.
///
/// # Errors
/// The file cannot be read; a line (EPD) or a game (PGN) that is not a
/// position or whose moves are not legal, with its line; an empty book;
/// a start past the book's end.
pub fn load(book: &Book) -> std::io::Result<Vec<Opening>> {
    let path = &book.path;
    let mut positions = match book.format {
        BookFormat::Epd => epd(path, book.chess960)?.into_iter().map(Opening::from).collect(),
        BookFormat::Pgn => pgn(path, book.plies, book.chess960)?,
    };
    if positions.is_empty() {
        return Err(bad(path, 1, "the book has no opening"));
    }
    let start = book.start as usize - 1;
    if start >= positions.len() {
        return Err(bad(
            path,
            1,
            &format!("openings_start is {} but the book has {} openings", book.start, positions.len()),
        ));
    }
    if book.order == BookOrder::Random {
        shuffle(&mut positions, book.seed);
    }
    positions.rotate_left(start);
    Ok(positions)
}

/// A Chess960 position in a book of standard chess: refused, since the
/// engines would be told nothing of it and write its castling wrongly.
fn variant_check(path: &Path, line: u64, pos: &Position, chess960: bool) -> std::io::Result<()> {
    if pos.is_chess960() && !chess960 {
        return Err(bad(
            path,
            line,
            "a Chess960 position (its castling rook or king is not where standard chess puts it); the event's \
             variant is standard: variant = \"fischerandom\" (epd match -variant fischerandom) plays it",
        ));
    }
    Ok(())
}

fn epd(path: &Path, chess960: bool) -> std::io::Result<Vec<Position>> {
    let text = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
    let mut out = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (rec, diags) = epd_core::Record::parse(line, epd_core::ParseMode::Lenient);
        let first_error = diags.iter().find(|d| d.severity == epd_core::Severity::Error);
        match (rec.position_with_counters(), first_error) {
            (Some(p), None) => {
                variant_check(path, i as u64 + 1, &p, chess960)?;
                out.push(p);
            }
            (_, Some(d)) => {
                return Err(bad_at(
                    path,
                    i as u64 + 1,
                    d.column(),
                    &format!("not a position: {}: {}", d.code, d.message),
                ))
            }
            (None, None) => return Err(bad(path, i as u64 + 1, "not a position")),
        }
    }
    Ok(out)
}

/// Each game's start and moves, as fastchess's PGN reader takes them: the
/// `FEN` tag's position (else the standard one), then at most `plies` of
/// its moves, stopping before a move that would end the game
/// (checkmate, stalemate, insufficient material, 50 moves without a
/// capture or pawn move, threefold repetition), so that the engines
/// always have a game to play. A move that is not legal is refused, with
/// its line and column (fastchess logs it and keeps the moves before it).
fn pgn(path: &Path, plies: Option<u32>, chess960: bool) -> std::io::Result<Vec<Opening>> {
    let file = std::fs::File::open(path).map_err(|e| unreadable(path, &e))?;
    let mut reader = PgnReader::new(BufReader::new(file));
    let mut out = Vec::new();
    while let Some(game) = reader.next_game()? {
        let start = match game.tag_pair("FEN") {
            Some(tag) => tag
                .value
                .parse::<Position>()
                .map_err(|e| bad_at(path, tag.line, tag.value_column as usize, &format!("FEN tag: {e}")))?,
            None => Position::startpos(),
        };
        variant_check(path, game.line, &start, chess960)?;
        if start.legal_moves().is_empty() {
            return Err(bad(path, game.line, "the game's position has no legal move"));
        }
        let mut pos = start;
        let mut history = History::new();
        history.push(&pos);
        let mut moves = Vec::new();
        for m in game.moves.iter().take(plies.map_or(usize::MAX, |p| p as usize)) {
            let mv = pos.parse_san(&m.san, SanMode::Lenient).map_err(|e| {
                bad_at(path, m.line, m.column as usize, &format!("{}: {e}", String::from_utf8_lossy(&m.san)))
            })?;
            pos.play_unchecked(mv);
            history.push(&pos);
            if pos.status() != Status::Ongoing || history.is_threefold() {
                break;
            }
            moves.push(mv);
        }
        out.push(Opening { start, moves });
    }
    Ok(out)
}

/// Fisher–Yates with splitmix64: the same seed, the same order, on every
/// machine and every version.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(path: &Path, format: BookFormat, order: BookOrder, plies: Option<u32>, start: u32) -> Book {
        Book { path: path.to_owned(), format, order, plies, start, seed: 7, chess960: false }
    }

    #[test]
    fn epd_and_pgn_books_in_order_from_a_start_or_shuffled() {
        let dir = tempfile::tempdir().unwrap();
        let epd_path = dir.path().join("b.epd");
        let fens = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -",
            "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq -",
        ];
        std::fs::write(&epd_path, fens.join("\n") + "\n\n").unwrap();
        let got = load(&book(&epd_path, BookFormat::Epd, BookOrder::Sequential, None, 2)).unwrap();
        assert!(got.iter().all(|o| o.moves.is_empty()), "an EPD book has no moves");
        let board = |o: &Opening| o.position().fen().split(' ').next().unwrap().to_owned();
        let want: Vec<String> = [1, 2, 0].iter().map(|&i| fens[i].split(' ').next().unwrap().to_owned()).collect();
        assert_eq!(got.iter().map(board).collect::<Vec<_>>(), want);
        let a = load(&book(&epd_path, BookFormat::Epd, BookOrder::Random, None, 1)).unwrap();
        let b = load(&book(&epd_path, BookFormat::Epd, BookOrder::Random, None, 1)).unwrap();
        assert_eq!(a, b, "the same seed, the same order");
        assert_eq!(a.len(), 3);
        let pgn_path = dir.path().join("b.pgn");
        std::fs::write(&pgn_path, "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"y\"]\n\n1. d4 d5 *\n").unwrap();
        let got = load(&book(&pgn_path, BookFormat::Pgn, BookOrder::Sequential, Some(3), 1)).unwrap();
        assert_eq!(
            board(&got[0]),
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
                .replace("r1bqkbnr/pppp1ppp/2n5", "rnbqkbnr/pppp1ppp/8")
        );
        assert_eq!(board(&got[1]), "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR");
        let e = load(&book(&epd_path, BookFormat::Epd, BookOrder::Sequential, None, 9)).unwrap_err();
        assert!(e.to_string().contains("openings_start is 9 but the book has 3"), "{e}");
        std::fs::write(&pgn_path, "1. e4 Ke5 *\n").unwrap();
        let e = load(&book(&pgn_path, BookFormat::Pgn, BookOrder::Sequential, None, 1)).unwrap_err();
        assert!(e.to_string().ends_with("b.pgn:1:7: Ke5: illegal san: no king can reach e5"), "{e}");
        // A bad FEN tag is named at its value; an EPD line that is no
        // position by its first error; a missing book in the system's words.
        std::fs::write(&pgn_path, "[Event \"x\"]\n[FEN \"8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n").unwrap();
        let e = load(&book(&pgn_path, BookFormat::Pgn, BookOrder::Sequential, None, 1)).unwrap_err();
        assert!(e.to_string().contains("b.pgn:2:7: FEN tag: "), "{e}");
        std::fs::write(&epd_path, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -\n").unwrap();
        let e = load(&book(&epd_path, BookFormat::Epd, BookOrder::Sequential, None, 1)).unwrap_err();
        assert!(e.to_string().contains("b.epd:2:45: not a position: E00"), "{e}");
        let e = load(&book(&dir.path().join("none.epd"), BookFormat::Epd, BookOrder::Sequential, None, 1)).unwrap_err();
        assert!(e.to_string().ends_with("none.epd: No such file or directory"), "{e}");
    }

    /// Chess960 books: Shredder-FEN and X-FEN castling fields, perft
    /// operations beside the position, a PGN game from a `FEN` tag that
    /// castles; refused in an event of standard chess, with the line.
    #[test]
    fn chess960_books_read_only_in_a_chess960_event() {
        let dir = tempfile::tempdir().unwrap();
        let epd_path = dir.path().join("960.epd");
        std::fs::write(
            &epd_path,
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21 ;D2 528\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n\
             nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1\n",
        )
        .unwrap();
        let mut b = book(&epd_path, BookFormat::Epd, BookOrder::Sequential, None, 1);
        let e = load(&b).unwrap_err();
        assert!(e.to_string().contains("960.epd:1: a Chess960 position"), "{e}");
        b.chess960 = true;
        let got: Vec<Position> = load(&b).unwrap().iter().map(Opening::position).collect();
        assert_eq!(got.len(), 3);
        assert!(got[0].is_chess960() && !got[1].is_chess960() && got[2].is_chess960());
        // Castling on both wings is legal where the rooks are.
        let castles: Vec<String> =
            got[2].legal_moves().iter().filter(|m| m.is_castle()).map(|&m| got[2].san(m)).collect();
        assert!(castles.is_empty(), "blocked at the start: {castles:?}");
        let pgn_path = dir.path().join("960.pgn");
        std::fs::write(
            &pgn_path,
            "[Variant \"Chess960\"]\n[FEN \"1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1\"]\n\n\
             1. O-O O-O-O *\n",
        )
        .unwrap();
        let mut b = book(&pgn_path, BookFormat::Pgn, BookOrder::Sequential, None, 1);
        assert!(load(&b).unwrap_err().to_string().contains("960.pgn:1: a Chess960 position"));
        b.chess960 = true;
        let got = load(&b).unwrap();
        // As python-chess plays it in Chess960 mode; the game starts at
        // the tag's position with the castlings as its first moves.
        assert_eq!(got[0].position().fen(), "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2");
        assert_eq!(got[0].start.fen(), "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1", "X-FEN");
        let mut pos = got[0].start;
        let sans: Vec<String> = got[0]
            .moves
            .iter()
            .map(|&m| {
                let s = pos.san(m);
                pos.play_unchecked(m);
                s
            })
            .collect();
        assert_eq!(sans, ["O-O", "O-O-O"]);
    }

    /// A PGN book's opening is the game's start (its `FEN` tag, else the
    /// standard position) and its moves, at most `plies` of them; the
    /// moves stop before one that ends the game, as fastchess's reader
    /// stops (mate, stalemate, threefold repetition, 50 moves).
    #[test]
    fn pgn_openings_keep_their_start_and_moves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.pgn");
        let sans = |o: &Opening| {
            let mut pos = o.start;
            o.moves
                .iter()
                .map(|&m| {
                    let s = pos.san(m);
                    pos.play_unchecked(m);
                    s
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let startfen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        for (text, plies, start, moves) in [
            ("[ECO \"C20\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n", None, startfen, "e4 e5 Nf3 Nc6"),
            ("1. e4 e5 2. Nf3 Nc6 *\n", Some(3), startfen, "e4 e5 Nf3"),
            ("1. e4 e5 2. Nf3 Nc6 *\n", Some(0), startfen, ""),
            (
                "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 40\"]\n\n40... Kd7 41. e4 *\n",
                None,
                "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40",
                "Kd7 e4",
            ),
            // Fool's mate: the mating move is left to the engines.
            ("1. f3 e5 2. g4 Qh4# 0-1\n", None, startfen, "f3 e5 g4"),
            // The third occurrence of the start is not played.
            ("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n", None, startfen, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1"),
            // Nor the 100th ply without a capture or pawn move.
            (
                "[FEN \"7k/8/8/8/8/8/8/KR6 w - - 98 80\"]\n\n80. Rb2 Kg8 81. Rb3 *\n",
                None,
                "7k/8/8/8/8/8/8/KR6 w - - 98 80",
                "Rb2",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let got = load(&book(&path, BookFormat::Pgn, BookOrder::Sequential, plies, 1)).unwrap();
            assert_eq!(got.len(), 1, "{text}");
            assert_eq!(got[0].start.fen(), start, "{text}");
            assert_eq!(sans(&got[0]), moves, "{text}");
        }
        // A game that starts mated has nothing to play.
        std::fs::write(&path, "[FEN \"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1\"]\n\n*\n").unwrap();
        let e = load(&book(&path, BookFormat::Pgn, BookOrder::Sequential, None, 1)).unwrap_err();
        assert!(e.to_string().ends_with("b.pgn:1: the game's position has no legal move"), "{e}");
    }

    #[test]
    fn a_shuffle_is_a_permutation_and_depends_on_the_seed() {
        let mut a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        shuffle(&mut a, 1);
        shuffle(&mut b, 2);
        assert_ne!(a, b);
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
    }
}
