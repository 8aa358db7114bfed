//! What each diagnostic code means: the rule behind it, where the
//! specification states it, and a record that gets the code next to the
//! same record fixed. `epd explain` and the manual pages print these.

use core::fmt;
use core::str::FromStr;

use crate::diag::Code;

/// The long form of a diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The section of the EPD specification (1995) or of the PGN standard
    /// (1994) that states the rule.
    pub section: &'static str,
    /// When the code is an error and when a warning.
    pub severity: &'static str,
    /// What the code means, why, and how to fix it.
    pub text: &'static str,
    /// A line that gets the code (`…` stands for a long run of bytes).
    pub bad: &'static str,
    /// The same line fixed (empty when no fix applies).
    pub good: &'static str,
}

macro_rules! start {
    ($rest:literal) => {
        concat!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ", $rest)
    };
}

const STRICT_ERROR: &str = "an error: the record is invalid";
const ERROR_LENIENT_WARNING: &str =
    "an error when reading strictly; with --lenient a warning, and the record is read as described above";

impl Code {
    /// The long explanation of the code.
    #[must_use]
    pub const fn explanation(self) -> Explanation {
        let (section, severity, text, bad, good) = match self {
            Code::PositionSyntax => (
                "§4 (the four data fields), §4.1-§4.4",
                STRICT_ERROR,
                "The record does not start with the four position fields: piece placement (eight ranks \
                 from the eighth, '/' between them, a digit for empty squares), the side to move (w or b), \
                 castling availability (KQkq or -) and the en passant target square (e3, e6 or -), each \
                 separated by one space. The column points at the first byte that breaks the syntax.",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - id \"x\";",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"x\";",
            ),
            Code::IllegalPosition => (
                "§4 (a position that can arise in a legal game)",
                STRICT_ERROR,
                "The fields are well formed but describe a position no game can reach: a side without \
                 exactly one king, a side not to move that is in check, pawns on the first or eighth \
                 rank, castling rights without the king and rook at home, an en passant square no double \
                 step explains. With --lenient, problems that still let moves be generated (too many \
                 pawns, say) are accepted as E032 and impossible checks as E035; the others stay errors.",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - id \"x\";",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"x\";",
            ),
            Code::LineTooLong => (
                "§1 (readers handle lines of at least 4096 bytes)",
                "a warning for a line over 4096 bytes read strictly (other readers may refuse it); an \
                 error for a line over 1 MiB, which is not parsed at all and is copied through unchanged",
                "A line longer than the specification asks readers to handle. Between 4096 bytes and \
                 1 MiB the record is read and flagged, because many EPD tools will refuse it; past 1 MiB \
                 the line is not parsed (a record that long is not a position) and is copied through as \
                 it is. Shorten the comments or split the data.",
                start!("c0 \"aaaa…(5000 bytes)…\";"),
                start!("c0 \"a shorter comment\";"),
            ),
            Code::ControlByte => (
                "§5.1 (records are printable text)",
                STRICT_ERROR,
                "A NUL, TAB or other control byte in the record outside a string (inside one, E014 and \
                 E016 report what it does). Control bytes usually come from binary data, a terminal \
                 escape sequence pasted in, or a file in another encoding. Remove the byte.",
                start!("id \"x\";\u{1b}[31m"),
                start!("id \"x\";"),
            ),
            Code::Whitespace => (
                "§5.1 (fields and operations separated by a single space)",
                ERROR_LENIENT_WARNING,
                "Fields and operations are separated by exactly one space: no tabs, no double spaces, no \
                 blank before the position or after the last ';'. Leading blanks are only a remark. \
                 Normalizing (epd normalize --lenient, epd repair) writes single spaces.",
                start!(" id \"x\";"),
                start!("id \"x\";"),
            ),
            Code::EmptyOperation => (
                "§5.1 (each operation is an opcode, operands and ';')",
                ERROR_LENIENT_WARNING,
                "A ';' with no opcode before it, as in 'bm e4;;' or a ';' right after the position \
                 fields (a common dialect: Bratko-Kopec). Lenient reading drops the stray ';'.",
                start!("; id \"x\";"),
                start!("id \"x\";"),
            ),
            Code::NotUtf8 => (
                "§5.2 (text is ASCII; EPD Kit reads and writes UTF-8)",
                ERROR_LENIENT_WARNING,
                "Bytes that are not UTF-8, usually Latin-1 letters (\\xfc for ü) from an old file. \
                 Lenient reading converts them from Latin-1 to UTF-8 and says so; save the file as UTF-8 \
                 to fix it for good.",
                start!("c0 \"M\u{fffd}ller\";"),
                start!("c0 \"Müller\";"),
            ),
            Code::BadOpcode => (
                "§5.1, §5.3 (opcode syntax)",
                STRICT_ERROR,
                "An opcode is a letter followed by up to 14 letters, digits or underscores. The word \
                 here is not one: it has another character, is too long, or starts with a digit or '_'. \
                 Text left after the last operation is reported here too.",
                start!("i-d \"x\";"),
                start!("id \"x\";"),
            ),
            Code::MissingSemicolon => (
                "§5.1 (every operation ends with ';')",
                STRICT_ERROR,
                "An operation without the ';' that ends it, usually the last one of the line. Add the \
                 ';'.",
                start!("id \"x\""),
                start!("id \"x\";"),
            ),
            Code::PmNotPvHead => (
                "§6.19 (pm), §6.21 (pv)",
                STRICT_ERROR,
                "The predicted move pm must be the first move of the predicted variation pv when both \
                 are present. Make them agree, or drop one.",
                start!("pm e4; pv d4 d5;"),
                start!("pm d4; pv d4 d5;"),
            ),
            Code::SmNotSvHead => (
                "§6.26 (sm), §6.27 (sv)",
                STRICT_ERROR,
                "The supplied move sm must be the first move of the supplied variation sv when both are \
                 present.",
                start!("sm e4; sv d4 d5;"),
                start!("sm d4; sv d4 d5;"),
            ),
            Code::UnterminatedString => (
                "§5.1 (a string operand is enclosed in double quotes)",
                "an error when reading strictly; with --lenient a string continued on the next line is \
                 joined to it (a warning), otherwise an error",
                "A string operand opened with '\"' and never closed on the line. Close it; if the text \
                 really goes on over two lines (an old dialect), --lenient joins the lines.",
                start!("id \"unclosed;"),
                start!("id \"closed\";"),
            ),
            Code::StringTooLong => (
                "§5.1 (a string has at most 255 bytes)",
                STRICT_ERROR,
                "A string operand of 256 bytes or more. Shorten it, or split a long comment over c0 to \
                 c9.",
                start!("c0 \"aaaa…(300 bytes)…\";"),
                start!("c0 \"a shorter comment\";"),
            ),
            Code::UnquotedString => (
                "§5.1, §6.16 (string operands are quoted)",
                ERROR_LENIENT_WARNING,
                "An operand that must be a string (id, c0-c9, v0-v9, eco, nic ...) written without \
                 quotes, as in 'id WAC.001'. Lenient reading takes the word as the string.",
                start!("id WAC.001;"),
                start!("id \"WAC.001\";"),
            ),
            Code::Arity => (
                "§6 (each opcode's number of operands)",
                STRICT_ERROR,
                "The opcode takes another number of operands: hmvc, fmvn, ce, acd, acn, acs, dm, id, pm \
                 and sm one each, cc, tcri, tcsi and ts two, the draw opcodes and resign none, ptp an \
                 even number.",
                start!("hmvc 1 2;"),
                start!("hmvc 1;"),
            ),
            Code::OperandType => (
                "§5.2 (operand basetypes), §6",
                STRICT_ERROR,
                "An operand of the wrong basetype: a word where an integer belongs (acn, ce, dm ...), a \
                 date or clock in the wrong format, a move where a string belongs.",
                start!("acn abc;"),
                start!("acn 1000;"),
            ),
            Code::OutOfRange => (
                "§6.7 (ce), §6.8 (dm), §6.14 (fmvn), §6.15 (hmvc)",
                STRICT_ERROR,
                "An integer outside what the opcode allows: fmvn and dm at least 1, hmvc not negative, \
                 ce between -32767 and 32767, counters not negative.",
                start!("fmvn 0;"),
                start!("fmvn 1;"),
            ),
            Code::IllegalMove => (
                "§5.2.2 (a move is legal in the record's position)",
                STRICT_ERROR,
                "A move operand that no legal move of the position matches (for pv and sv: of the \
                 position after the moves before it). Often a suite written for the other side to move, \
                 or a typing error.",
                start!("bm e5;"),
                start!("bm e4;"),
            ),
            Code::NonCanonicalSan => (
                "§5.2.2 (moves in SAN, canonical form)",
                ERROR_LENIENT_WARNING,
                "A legal move written in a form other than canonical SAN: a needless disambiguation \
                 (Ngf3), a missing or extra check mark, 0-0 for O-O, a piece letter for a pawn. Lenient \
                 reading takes the move and epd normalize writes it canonically.",
                start!("bm Ngf3;"),
                start!("bm Nf3;"),
            ),
            Code::DuplicateOpcode => (
                "§5.1 (an opcode appears at most once per record)",
                STRICT_ERROR,
                "The same opcode twice in one record. Keep one (for bm and am, put all the moves in one \
                 operation).",
                start!("id \"a\"; id \"b\";"),
                start!("id \"a\";"),
            ),
            Code::ConflictingOpcodes => (
                "§6.9-§6.12 (draws), §6.25 (resign)",
                STRICT_ERROR,
                "Opcodes that cannot go together: draw_accept with draw_reject, draw_claim with \
                 draw_offer, resign with any draw opcode.",
                start!("draw_accept; draw_reject;"),
                start!("draw_accept;"),
            ),
            Code::MissingSm => (
                "§6.10 (draw_claim), §6.11 (draw_offer)",
                STRICT_ERROR,
                "A draw offer or a draw claim is made with a move: the record needs sm, the move that \
                 goes with it.",
                start!("draw_offer;"),
                start!("draw_offer; sm e4;"),
            ),
            Code::EnumeratedOperand => (
                "§6.23 (refcom), §6.24 (refreq)",
                STRICT_ERROR,
                "An operand outside the opcode's list of values: refcom is conclude, disconnect, \
                 execute, fault, inform, reset or respond; refreq is fault, reply, sign_off or sign_on.",
                start!("refcom dance;"),
                start!("refcom respond;"),
            ),
            Code::MoveCounters => (
                "§4 (EPD has four fields), §6.14 (fmvn), §6.15 (hmvc)",
                ERROR_LENIENT_WARNING,
                "The halfmove clock and fullmove number of FEN written after the four EPD fields. EPD \
                 carries them as the operations hmvc and fmvn; lenient reading takes them as such, and \
                 epd repair or epd convert --to epd rewrites the record.",
                start!("0 1 id \"x\";"),
                start!("fmvn 1; hmvc 0; id \"x\";"),
            ),
            Code::MateNotation => (
                "§6.4 (bm takes moves), §6.8 (dm)",
                ERROR_LENIENT_WARNING,
                "Mate notation such as '#3' where a move belongs, an old way to say 'mate in 3'. The \
                 specification's dm opcode says it; lenient reading turns 'bm #3' into 'dm 3'.",
                start!("bm #3;"),
                start!("dm 3;"),
            ),
            Code::DetachedCheckMark => (
                "§5.2.2 (SAN: the check mark is part of the move)",
                ERROR_LENIENT_WARNING,
                "A '+' or '#' written apart from its move, as in 'bm Qd1 +'. Lenient reading attaches \
                 it.",
                start!("bm e4 +;"),
                start!("bm e4;"),
            ),
            Code::CoordinateMove => (
                "§5.2.2 (moves in SAN)",
                ERROR_LENIENT_WARNING,
                "A move in coordinate notation (e2e4, as UCI writes it) or long algebraic (e2-e4) where \
                 SAN belongs. Lenient reading takes the move; epd normalize writes it in SAN.",
                start!("bm e2e4;"),
                start!("bm e4;"),
            ),
            Code::Escape => (
                "§5.1 (a string has no '\"'; EPD Kit's escapes)",
                "a warning: the record is valid, and EPD Kit reads \\\" and \\\\ back as '\"' and '\\'",
                "A backslash escape inside a string. The specification allows neither '\"' nor '\\' in \
                 a string; EPD Kit writes them as \\\" and \\\\ so that every string round-trips, and \
                 warns when it reads one, because other readers may not know the escape.",
                start!("c0 \"say \\\"hi\\\"\";"),
                start!("c0 \"say 'hi'\";"),
            ),
            Code::PositionWarning => (
                "§4 (positions from legal games)",
                "a warning, with --lenient only: the record is kept and moves are generated",
                "A position no legal game reaches (nine pawns of one side, say) accepted by lenient \
                 reading because moves can still be generated from it. Reading strictly, the same \
                 position is E002.",
                "4k3/pppppppp/p7/8/8/8/8/4K3 b - - id \"x\";",
                "4k3/pppppppp/8/8/8/8/8/4K3 b - - id \"x\";",
            ),
            Code::TrailingText => (
                "§5.1",
                "not reported by this version: the code is kept, never reused",
                "Text after the last operation. This version reports it as E010 (a word that is not an \
                 opcode) or E011 (an opcode without its ';'), which say more precisely what to fix.",
                start!("id \"x\"; trailing words"),
                start!("id \"x\"; c0 \"trailing words\";"),
            ),
            Code::EngineFault => (
                "§7.2 (pfga), §7.5 (pfts)",
                "an error when the engine crashed, hung or broke the UCI protocol on the record (written \
                 without new analysis); a warning when it gave no exact score (ce left out)",
                "The analysis engine failed on this record: it crashed, did not answer within --grace \
                 after it should have stopped, or sent something that is not UCI. The record is written \
                 without new analysis, the engine is restarted and the run goes on; the exit code is 2. \
                 Try a longer --grace, fewer --threads, or another engine.",
                start!("id \"x\";"),
                "",
            ),
            Code::ImpossibleCheck => (
                "§4 (a position that can arise in a legal game)",
                ERROR_LENIENT_WARNING,
                "The side to move is in check in a way no legal last move explains: more than two pieces \
                 give check; two checkers that one move cannot have given together (on one line with the \
                 king, two pawns, two knights); or an en passant square, which says the opponent's last \
                 move was the double step behind it, with a check that step cannot have given (two \
                 checkers, or a checker other than the pawn whose line was already open before the pawn \
                 moved). python-chess reports these as TOO_MANY_CHECKERS and IMPOSSIBLE_CHECK. Usually \
                 the en passant square is a leftover: drop it, or fix the placement.",
                "b7/8/8/rPpK4/8/5k2/6p1/7Q w - c6 id \"x\";",
                "b7/8/8/rPpK4/8/5k2/6p1/7Q w - - id \"x\";",
            ),
            Code::PerftUnreadable => (
                "perft suites (FEN ;D1 20 ;D2 400, a community layout outside the specification)",
                "an error: the line is not checked; the other lines are",
                "epd perft --verify could not read the line: its position fields are malformed or not a \
                 legal position, or a depth operation (D1, ;D2, perft3) has no depth or a count that is \
                 not a number. The column points at the first byte that breaks the layout.",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1 ;D1 20",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20",
            ),
            Code::PerftNoCount => (
                "perft suites (FEN ;D1 20 ;D2 400)",
                "a warning: the depth is skipped, the others are checked",
                "A depth operation without the node count it should be checked against, often a line \
                 cut short. Add the count (from a trusted generator) or remove the operation.",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400",
            ),
            Code::PerftMismatch => (
                "perft suites (FEN ;D1 20 ;D2 400)",
                "an error: the run exits 1",
                "The number of leaf nodes of the legal move tree to this depth is not the one the file \
                 gives. Either the file is wrong (a typing error, a count made by a buggy generator, a \
                 Chess960 count for a standard position) or the move generator is; check the count with \
                 another generator before trusting either.",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400",
            ),
            Code::PerftUnreachable => (
                "§4 (positions from legal games); perft suites",
                "a warning: the position is counted all the same",
                "The position cannot arise in a legal game (nine pawns of one side, say), but its moves \
                 are well defined, so perft counts them; suites include such positions on purpose to \
                 test move generators. Read as an EPD record strictly, the position is E002.",
                // Both examples' counts checked with python-chess.
                "4k3/pppppppp/p7/8/8/8/8/4K3 b - - 0 1 ;D1 17 ;D2 85",
                "4k3/pppppppp/8/8/8/8/8/4K3 b - - 0 1 ;D1 18 ;D2 90",
            ),
            Code::PgnError => (
                "PGN standard (1994) §8.2 (movetext), §9.7 (FEN tag)",
                "an error: the game is converted up to that point, the next games go on",
                "A move of the game that cannot be read or is not legal, or a FEN tag that is not a \
                 legal position: the game's records stop there. The column points at the move (named \
                 as PGN numbers it: 5. Nf3, 5... Qxe4), or at a FEN tag's value.",
                "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *",
                "[Event \"x\"]\n\n1. e4 e5 2. Ke2 *",
            ),
            Code::PgnWarning => (
                "PGN standard (1994) §8 (import format)",
                "a warning: the game is converted",
                "Something in the PGN that import format tolerates and export format would not write: \
                 a ')' without '(', a tag without its quoted value or ']', a comment or variation left \
                 open, a game without a termination marker, an over-long token, a SetUp tag that \
                 disagrees with the FEN tag. The game is converted all the same.",
                "[Event \"x\"]\n\n1. e4 e5 ) 2. Nf3 *",
                "[Event \"x\"]\n\n1. e4 e5 2. Nf3 *",
            ),
        };
        Explanation { section, severity, text, bad, good }
    }
}

/// A word that is not a diagnostic code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown diagnostic code {:?}", self.0)
    }
}

impl std::error::Error for UnknownCode {}

impl FromStr for Code {
    type Err = UnknownCode;

    /// `E012`, `e012`, `E12`, `12` (an E code), `P010`.
    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        let t = s.trim();
        let (prefix, digits) = match t.as_bytes().first() {
            Some(b'e' | b'E') => ('E', &t[1..]),
            Some(b'p' | b'P') => ('P', &t[1..]),
            _ => ('E', t),
        };
        let n: u32 = digits.parse().map_err(|_| UnknownCode(s.to_owned()))?;
        let want = format!("{prefix}{n:03}");
        Code::ALL.iter().copied().find(|c| c.as_str() == want).ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseMode, Record};

    /// `aaaa…(300 bytes)…` as 300 bytes `a`.
    fn expand(text: &str) -> String {
        let Some(open) = text.find("\u{2026}(") else { return text.to_owned() };
        let close = text[open..].find(")\u{2026}").map(|i| open + i).expect("a closed run");
        let n: usize = text[open + 4..close].trim_end_matches(" bytes").parse().expect("a byte count");
        let start = text[..open].trim_end_matches('a').len();
        format!("{}{}{}", &text[..start], "a".repeat(n), &text[close + 4..])
    }

    #[test]
    fn codes_read_in_every_spelling() {
        for s in ["E012", "e012", "E12", "12", " 12 "] {
            assert_eq!(s.parse::<Code>(), Ok(Code::PmNotPvHead), "{s}");
        }
        assert_eq!("P010".parse::<Code>(), Ok(Code::PgnError));
        assert_eq!("p11".parse::<Code>(), Ok(Code::PgnWarning));
        for bad in ["E999", "X12", "", "E", "E1a", "E026"] {
            assert!(bad.parse::<Code>().is_err(), "{bad}");
        }
    }

    /// Every code's example: the bad line gets the code (read the way the
    /// code arises), the good line reads strictly with no diagnostic. A
    /// code added without an explanation fails to compile (the match is
    /// exhaustive); one whose example is wrong fails here.
    #[test]
    fn every_example_shows_its_code() {
        for &code in Code::ALL {
            let e = code.explanation();
            assert!(!e.text.is_empty() && !e.section.is_empty() && !e.severity.is_empty(), "{code}");
            match code {
                // Not from one record: checked below or elsewhere.
                Code::EngineFault
                | Code::TrailingText
                | Code::PgnError
                | Code::PgnWarning
                | Code::PerftUnreadable
                | Code::PerftNoCount
                | Code::PerftMismatch
                | Code::PerftUnreachable => {}
                _ => {
                    let bad = expand(e.bad).replace('\u{fffd}', "\u{fc}");
                    let mut bytes = bad.into_bytes();
                    if code == Code::NotUtf8 {
                        // The example shows the Latin-1 byte as U+FFFD.
                        let i = bytes.windows(2).position(|w| w == "ü".as_bytes()).unwrap();
                        bytes.splice(i..i + 2, [0xfc]);
                    }
                    let modes: &[ParseMode] = if code == Code::PositionWarning {
                        &[ParseMode::Lenient]
                    } else {
                        &[ParseMode::Strict, ParseMode::Lenient]
                    };
                    let found = modes.iter().any(|&m| Record::parse(&bytes, m).1.iter().any(|d| d.code == code));
                    assert!(found, "{code}: {:?} does not get it", e.bad);
                }
            }
            let own_reader = matches!(
                code,
                Code::PgnError
                    | Code::PgnWarning
                    | Code::PerftUnreadable
                    | Code::PerftNoCount
                    | Code::PerftMismatch
                    | Code::PerftUnreachable
            );
            if !e.good.is_empty() && !own_reader {
                let (_, diags) = Record::parse(e.good.as_bytes(), ParseMode::Strict);
                assert!(diags.is_empty(), "{code}: the good example {:?} gets {diags:?}", e.good);
            }
        }
        // P010 and P011: the PGN reader on the examples.
        for (code, pgn) in
            [(Code::PgnError, Code::PgnError.explanation()), (Code::PgnWarning, Code::PgnWarning.explanation())]
        {
            let mut codes = Vec::new();
            crate::pgn::to_epd(pgn.bad.as_bytes(), Vec::new(), &crate::pgn::EpdOptions::default(), |d| {
                codes.push(d.error)
            })
            .unwrap();
            assert_eq!(codes, [code == Code::PgnError], "{code}: {:?}", pgn.bad);
            let mut none = Vec::new();
            crate::pgn::to_epd(pgn.good.as_bytes(), Vec::new(), &crate::pgn::EpdOptions::default(), |d| {
                none.push(d.message.clone())
            })
            .unwrap();
            assert!(none.is_empty(), "{code}: {none:?}");
        }
        // P001-P004: the perft suite checker on the examples.
        for code in [Code::PerftUnreadable, Code::PerftNoCount, Code::PerftMismatch, Code::PerftUnreachable] {
            let e = code.explanation();
            let bad = crate::verify_perft_line(e.bad.as_bytes(), u32::MAX);
            let codes: Vec<Code> = bad.diagnostics.iter().map(|d| d.code).collect();
            assert_eq!(codes, [code], "{code}: {:?}", e.bad);
            let good = crate::verify_perft_line(e.good.as_bytes(), u32::MAX);
            assert!(good.diagnostics.is_empty() && good.checked > 0, "{code}: {good:?}");
        }
    }
}
