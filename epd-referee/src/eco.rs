//! Opening names for a game's `ECO` and `Opening` tags, as fastchess and
//! cutechess write them: the last position of the game (its start, then
//! after each move) that a table of named openings knows.
//!
//! The table is lichess's chess-openings (`data/openings/*.tsv`, public
//! domain, CC0; `data/openings/README.md` names the commit): ECO code,
//! name and the moves that reach the named position. Where two lines
//! reach one position, the first in the files (`a` to `e`, in order)
//! names it. It is the table fastchess 74deac2 carries, so both
//! managers name a game alike (`epd-cli/tests/fastchess_diff.rs`).
//!
//! Positions are told apart as the repetition rule tells them apart
//! (placement, side to move, castling rights, an en passant square only
//! where the capture is legal: [`Position::zobrist_hash`]), as lichess's
//! and fastchess's keys do. Chess960 games are not named.

use std::collections::HashMap;
use std::sync::OnceLock;

use epd_core::{Move, Position, SanMode};

/// A named opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code, `A00` to `E99`.
    pub eco: &'static str,
    /// The name, `Family: Variation, Subvariation`.
    pub name: &'static str,
}

/// The five volumes of the table, in the order their lines take
/// precedence.
const VOLUMES: [&str; 5] = [
    include_str!("../data/openings/a.tsv"),
    include_str!("../data/openings/b.tsv"),
    include_str!("../data/openings/c.tsv"),
    include_str!("../data/openings/d.tsv"),
    include_str!("../data/openings/e.tsv"),
];

/// One line of a volume (`eco`, `name`, `pgn`, tab-separated) as the
/// position its moves reach and the opening it names; `None` for the
/// header and for a line whose moves do not play (the table's test
/// holds that there is none).
fn entry(line: &'static str) -> Option<(u64, Opening)> {
    let mut fields = line.split('\t');
    let (eco, name, moves) = (fields.next()?, fields.next()?, fields.next()?);
    if eco == "eco" || fields.next().is_some() {
        return None;
    }
    let mut pos = Position::startpos();
    for word in moves.split_ascii_whitespace() {
        // Move numbers (`1.`, `3...`) are not moves.
        if word.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let m = pos.parse_san(word.as_bytes(), SanMode::Strict).ok()?;
        pos.play_unchecked(m);
    }
    Some((pos.zobrist_hash(), Opening { eco, name }))
}

/// The table, built from the volumes on first use (a few milliseconds).
fn table() -> &'static HashMap<u64, Opening> {
    static TABLE: OnceLock<HashMap<u64, Opening>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::with_capacity(4096);
        for (key, opening) in VOLUMES.iter().flat_map(|v| v.lines()).filter_map(entry) {
            table.entry(key).or_insert(opening);
        }
        table
    })
}

/// The named position `pos` is, if any.
#[must_use]
pub fn named(pos: &Position) -> Option<Opening> {
    if pos.is_chess960() {
        return None;
    }
    table().get(&pos.zobrist_hash()).copied()
}

/// The opening a game from `start` that played `moves` is classified
/// as: the name of the last of its positions the table knows, as
/// fastchess and lichess classify games. `None` for a Chess960 game, or
/// where no position is named. A move that is not legal ends the walk.
#[must_use]
pub fn classify(start: &Position, moves: impl IntoIterator<Item = Move>) -> Option<Opening> {
    if start.is_chess960() {
        return None;
    }
    let mut pos = *start;
    let mut found = named(&pos);
    for m in moves {
        if pos.play(m).is_err() {
            break;
        }
        found = named(&pos).or(found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays SAN moves from the standard position.
    fn moves(san: &str) -> Vec<Move> {
        let mut pos = Position::startpos();
        san.split_ascii_whitespace()
            .map(|s| {
                let m = pos.parse_san(s.as_bytes(), SanMode::Strict).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn every_line_of_the_table_plays() {
        let lines: Vec<&str> = VOLUMES.iter().flat_map(|v| v.lines().skip(1)).collect();
        let bad: Vec<&&str> = lines.iter().filter(|l| entry(l).is_none()).collect();
        assert!(bad.is_empty(), "{bad:#?}");
        // 3,536 positions: fastchess 74deac2's table has as many keys.
        assert_eq!((lines.len(), table().len()), (3536, 3536));
    }

    /// The expected names were found by python-chess over the same
    /// files (each line's position as `Board.epd()`, the last found).
    #[test]
    fn games_are_named_by_their_last_named_position() {
        for (san, eco, name) in [
            ("e4 c5", "B20", "Sicilian Defense"),
            ("e4 e5 Nf3 Nc6 Bb5", "C60", "Ruy Lopez"),
            ("d4 d5 c4", "D06", "Queen's Gambit"),
            // Moves past the named lines keep the last name found.
            ("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Kd2 Kd7", "B90", "Sicilian Defense: Najdorf Variation"),
            (
                "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 Kh2 Kh8",
                "C95",
                "Ruy Lopez: Closed, Breyer Defense, Zaitsev Hybrid",
            ),
            // Transpositions: the same position by another order.
            ("Nf3 Nc6 e4 e5 Bb5", "C60", "Ruy Lopez"),
        ] {
            let found = classify(&Position::startpos(), moves(san)).unwrap();
            assert_eq!((found.eco, found.name), (eco, name), "{san}");
        }
        assert_eq!(classify(&Position::startpos(), []), None, "the start is not named");
    }
}
