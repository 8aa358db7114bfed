//! Board diagrams: the ASCII style of the 1996 EPD help text, Unicode
//! chess glyphs, and SVG for web pages and documents.

use crate::{Color, File, Rank, Role, Setup, Square};
use std::fmt::Write as _;

/// ASCII diagram, rank 8 first, as in the legacy EPD help text: piece
/// letters (upper case White), `*` for an empty square, single spaces.
///
/// ```
/// use epd_core::{diagram, Setup};
/// let d = diagram::ascii(&Setup::standard());
/// assert_eq!(d.lines().next(), Some("r n b q k b n r"));
/// assert_eq!(d.lines().nth(4), Some("* * * * * * * *"));
/// ```
#[must_use]
pub fn ascii(setup: &Setup) -> String {
    grid(setup, |p| p.map_or('*', |p| p.char()))
}

/// Unicode diagram: chess glyphs, `·` for an empty square, with file and
/// rank labels.
#[must_use]
pub fn unicode(setup: &Setup) -> String {
    let mut out = String::new();
    for rank in (0..8u32).rev() {
        let _ = write!(out, "{} ", rank + 1);
        for file in 0..8u32 {
            let sq = Square::from_index(rank * 8 + file);
            let c = setup.board.piece_at(sq).map_or('·', |p| glyph(p.color, p.role));
            out.push(c);
            if file < 7 {
                out.push(' ');
            }
        }
        out.push('\n');
    }
    out.push_str("  a b c d e f g h\n");
    out
}

fn grid(setup: &Setup, cell: impl Fn(Option<crate::Piece>) -> char) -> String {
    let mut out = String::with_capacity(8 * 16);
    for rank in (0..8u32).rev() {
        for file in 0..8u32 {
            out.push(cell(setup.board.piece_at(Square::from_index(rank * 8 + file))));
            if file < 7 {
                out.push(' ');
            }
        }
        out.push('\n');
    }
    out
}

fn glyph(color: Color, role: Role) -> char {
    let white = ['♙', '♘', '♗', '♖', '♕', '♔'];
    let black = ['♟', '♞', '♝', '♜', '♛', '♚'];
    if color.is_white() {
        white[role.index()]
    } else {
        black[role.index()]
    }
}

/// An SVG diagram, `size` pixels square, White at the bottom, with
/// coordinates. Pieces are drawn as the Unicode chess glyphs of the
/// viewer's fonts, so the file needs no other assets.
#[must_use]
pub fn svg(setup: &Setup, size: u32) -> String {
    let sq = size / 8;
    let total = sq * 8;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{total}\" height=\"{total}\" viewBox=\"0 0 {total} {total}\">"
    );
    for rank in 0..8u32 {
        for file in 0..8u32 {
            let s = Square::from_coords(File::new(file).unwrap_or(File::A), Rank::new(rank).unwrap_or(Rank::FIRST));
            let (x, y) = (file * sq, (7 - rank) * sq);
            let fill = if s.is_dark() { "#b58863" } else { "#f0d9b5" };
            let _ = writeln!(out, "<rect x=\"{x}\" y=\"{y}\" width=\"{sq}\" height=\"{sq}\" fill=\"{fill}\"/>");
            if let Some(p) = setup.board.piece_at(s) {
                let _ = writeln!(
                    out,
                    "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" \
                     font-family=\"DejaVu Sans, Segoe UI Symbol, sans-serif\">{}</text>",
                    x + sq / 2,
                    y + sq / 2,
                    sq * 4 / 5,
                    glyph(p.color, p.role)
                );
            }
        }
    }
    for i in 0..8u32 {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#555\">{}</text>",
            i * sq + 2,
            total - 2,
            sq / 6,
            (b'a' + i as u8) as char
        );
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#555\">{}</text>",
            total - sq / 6,
            (7 - i) * sq + sq / 5,
            sq / 6,
            i + 1
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseMode;

    #[test]
    fn legacy_help_text_example() {
        // The position of the 1996 help text: `k2r/ppp5/8/8/8/Q/5PPP/7K/ b -`.
        let parsed =
            crate::parse_fields(b"k2r/ppp5/8/8/8/Q/5PPP/7K/ b - -", ParseMode::Lenient, crate::Counters::Optional)
                .unwrap();
        assert_eq!(
            ascii(&parsed.setup),
            "k * * r * * * *\np p p * * * * *\n* * * * * * * *\n* * * * * * * *\n\
             * * * * * * * *\nQ * * * * * * *\n* * * * * P P P\n* * * * * * * K\n"
        );
    }

    #[test]
    fn unicode_and_svg() {
        let u = unicode(&Setup::standard());
        assert!(u.starts_with("8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"));
        assert!(u.ends_with("  a b c d e f g h\n"));
        let s = svg(&Setup::standard(), 400);
        assert!(s.starts_with("<svg "));
        assert_eq!(s.matches("<rect ").count(), 64);
        assert_eq!(s.matches('♟').count(), 8);
        assert!(s.trim_end().ends_with("</svg>"));
    }
}
