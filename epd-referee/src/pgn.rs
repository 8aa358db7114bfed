//! A finished (or unfinished) game as PGN, in export format: the Seven
//! Tag Roster, then `Variant "Chess960"` for a Chess960 game, `SetUp` and
//! `FEN` (X-FEN castling) when the game did not start from the standard
//! position or is Chess960, `TimeControl`, `Termination` and `PlyCount`
//! (the opening book's moves counted), `ECO` and `Opening` where the
//! table of named openings knows a position of the game ([`crate::eco`],
//! not for Chess960); an opening book's moves (a PGN
//! book's) as the game's first moves, each followed by `{book}` as
//! fastchess writes them; each other
//! move followed by `{[%clk h:mm:ss] [%emt h:mm:ss]}` (the mover's time
//! left after the move, increment included, and the time it took; a
//! fraction of a second is written as `.fff`), preceded, when the engine
//! gave its score, by cutechess's `+0.35/18 1.234s` (pawns from the
//! mover's side, depth, time); a closing comment that says how the game
//! ended, and lines of at most 79 characters.

use core::fmt::Write as _;

use std::time::Duration;

use epd_core::{Color, Position};

use crate::clock::{hms, shown_ms};
use crate::game::Game;

/// The tags a game needs beyond what the game itself knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date`, `YYYY.MM.DD` (`????.??.??` when unknown).
    pub date: String,
    /// `Round`.
    pub round: String,
    /// `White`.
    pub white: String,
    /// `Black`.
    pub black: String,
    /// A Chess960 game: `[Variant "Chess960"]`, and `SetUp`/`FEN` always.
    pub chess960: bool,
}

/// A tag value with `\` and `"` escaped, and no control character.
fn tag_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Appends words to movetext, breaking lines before 80 columns.
struct Lines {
    text: String,
    line: usize,
}

impl Lines {
    fn word(&mut self, w: &str) {
        if self.line > 0 && self.line + 1 + w.len() > 79 {
            self.text.push('\n');
            self.line = 0;
        } else if self.line > 0 {
            self.text.push(' ');
            self.line += 1;
        }
        self.text.push_str(w);
        self.line += w.len();
    }
}

/// The game as PGN text, ending with a blank line.
#[must_use]
pub fn write(tags: &Tags, game: &Game) -> String {
    let result = game.ended().map_or("*", |e| e.result.pgn());
    let mut out = String::new();
    for (name, value) in [
        ("Event", &tags.event),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("White", &tags.white),
        ("Black", &tags.black),
    ] {
        let v = if value.is_empty() { "?" } else { value.as_str() };
        let _ = writeln!(out, "[{name} \"{}\"]", tag_value(v));
    }
    let _ = writeln!(out, "[Result \"{result}\"]");
    if tags.chess960 {
        let _ = writeln!(out, "[Variant \"Chess960\"]");
    }
    let start = game.start();
    if tags.chess960 || start.to_setup() != Position::startpos().to_setup() {
        let _ = writeln!(out, "[SetUp \"1\"]");
        let _ = writeln!(out, "[FEN \"{}\"]", start.fen());
    }
    // Time odds: a control for each side, as cutechess writes them.
    let (white, black) = (game.clock(Color::White).control(), game.clock(Color::Black).control());
    if white == black {
        let _ = writeln!(out, "[TimeControl \"{white}\"]");
    } else {
        let _ = writeln!(out, "[WhiteTimeControl \"{white}\"]");
        let _ = writeln!(out, "[BlackTimeControl \"{black}\"]");
    }
    let termination = game.ended().map_or("unterminated", |e| e.termination.pgn_tag());
    let _ = writeln!(out, "[Termination \"{termination}\"]");
    let _ = writeln!(out, "[PlyCount \"{}\"]", game.moves().len());
    if !tags.chess960 {
        if let Some(opening) = crate::eco::classify(start, game.moves().iter().map(|m| m.mv)) {
            let _ = writeln!(out, "[ECO \"{}\"]", opening.eco);
            let _ = writeln!(out, "[Opening \"{}\"]", tag_value(opening.name));
        }
    }
    out.push('\n');
    let mut lines = Lines { text: String::new(), line: 0 };
    let mut number = start.fullmoves();
    let mut turn = start.turn();
    // Time used so far by White and Black, exactly.
    let mut used = [Duration::ZERO; 2];
    for (i, m) in game.moves().iter().enumerate() {
        // Every move has a comment, so black's moves carry `N...` too.
        if turn == Color::White {
            lines.word(&format!("{number}."));
        } else if i == 0 || turn == Color::Black {
            lines.word(&format!("{number}..."));
        }
        lines.word(&m.san);
        if m.book {
            // The opening book's move, as fastchess writes it.
            lines.word("{book}");
        } else {
            clock_comment(&mut lines, game, turn, m, &mut used);
        }
        if turn == Color::Black {
            number += 1;
        }
        turn = turn.other();
    }
    if let Some(e) = game.ended() {
        let text = format!("{{{}}}", e.termination.describe(e.result).replace(['{', '}'], ""));
        for w in text.split(' ') {
            lines.word(w);
        }
    }
    lines.word(result);
    out.push_str(&lines.text);
    out.push_str("\n\n");
    out
}

/// The comment of a move the players made: cutechess's score, then
/// `[%clk]` (where the clock runs) and `[%emt]`; `used` is the time each
/// side's moves took before this one, and takes this one's.
fn clock_comment(lines: &mut Lines, game: &Game, turn: Color, m: &crate::game::PlayedMove, used: &mut [Duration; 2]) {
    // One unit, so that no line starts with `[%emt` (which a naive
    // reader could take for a tag pair).
    // Both rounded from exact sums, so that on every move the
    // previous clock less the emt plus the increment is the next
    // clock, to the millisecond, and the emts add up to the time used.
    // (The same rounding as the clocks clients are told: shown_ms.)
    let side = usize::from(turn == Color::Black);
    let (before, _) = shown_ms(used[side], Duration::ZERO);
    used[side] += m.emt;
    let (after, clk) = shown_ms(used[side], m.clock);
    let (clk, emt) = (Duration::from_millis(clk), Duration::from_millis(after - before));
    let score = m.eval.as_ref().map_or_else(String::new, |e| format!("{} ", cutechess_score(e, emt)));
    if game.clock(turn).is_running() {
        lines.word(&format!("{{{score}[%clk {}] [%emt {}]}}", hms(clk), hms(emt)));
    } else {
        // No clock: the time the move took, and no clock to show.
        lines.word(&format!("{{{score}[%emt {}]}}", hms(emt)));
    }
}

/// An engine's score as cutechess writes it, from the mover's side:
/// `+0.35/18 1.234s` (pawns, depth, the move's time), `+M7` or `-M6` for
/// a mate so many plies away.
fn cutechess_score(e: &crate::protocol::Eval, emt: Duration) -> String {
    let score = score_text(e.ce);
    let depth = e.depth.map_or_else(String::new, |d| format!("/{d}"));
    format!("{score}{depth} {:.3}s", emt.as_secs_f64())
}

/// A score in centipawns as cutechess and fastchess write it: pawns with
/// a sign (`+0.35`, `-1.20`; `0.00` has none), or `+M7`/`-M6` for a mate
/// so many plies away (`ce` ±(32767 − plies): UCI's `score mate 4` is
/// `+M7`, `score mate -3` is `-M6`).
#[must_use]
pub fn score_text(ce: i32) -> String {
    if ce.unsigned_abs() >= 32_000 {
        let plies = 32_767 - ce.unsigned_abs().min(32_767);
        format!("{}M{plies}", if ce > 0 { '+' } else { '-' })
    } else {
        let sign = match ce {
            1.. => "+",
            0 => "",
            _ => "-",
        };
        format!("{sign}{:.2}", f64::from(ce.unsigned_abs()) / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::score_text;

    /// fastchess's and cutechess's scores: pawns, `0.00` unsigned, and
    /// mates in plies (`+M7` was written `+M4`, a mate in four moves;
    /// `0.00` was `+0.00`), checked against fastchess in
    /// epd-cli/tests/fastchess_diff.rs.
    #[test]
    fn scores_are_written_as_fastchess_writes_them() {
        for (ce, text) in [
            (35, "+0.35"),
            (-120, "-1.20"),
            (0, "0.00"),
            (-1, "-0.01"),
            (31_999, "+319.99"),
            (32_766, "+M1"),
            (32_760, "+M7"),
            (-32_765, "-M2"),
            (-32_761, "-M6"),
            (-32_767, "-M0"),
        ] {
            assert_eq!(score_text(ce), text, "ce {ce}");
        }
    }
}
