//! Perft: counting the leaf nodes of the legal move tree.

use crate::{Code, Diagnostic, Move, Position, Severity};

/// Counts leaf nodes `depth` plies deep, with bulk counting: at the last
/// ply, legal moves are counted without being played.
///
/// ```
/// use epd_core::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 3), 8902);
/// ```
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut n = 0;
            for &m in &pos.legal_moves() {
                n += perft(&pos.played(m), depth - 1);
            }
            n
        }
    }
}

/// Counts leaf nodes `depth` plies deep, playing every move down to the
/// leaves (no bulk counting): slower, and the fair comparison with
/// engines that do not bulk-count.
#[must_use]
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for &m in &pos.legal_moves() {
        n += perft_full(&pos.played(m), depth - 1);
    }
    n
}

/// Perft of each legal move ("divide"): the move and the node count below
/// it, in move-generation order.
#[must_use]
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|&m| (m, perft(&pos.played(m), depth - 1))).collect()
}

/// One expected node count of a perft suite record (`D5 4865609` or
/// `perft5 4865609`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftExpectation {
    /// The depth.
    pub depth: u32,
    /// The expected count; `None` when the file gives the depth alone.
    pub nodes: Option<u64>,
    /// Byte offset of the operation in the line.
    pub offset: usize,
}

/// What checking one perft suite line found (`epd perft --verify`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerftCheck {
    /// Depths counted and compared.
    pub checked: usize,
    /// Depths not compared: above the maximum depth, or without a count.
    pub skipped: usize,
    /// Depths whose count differs from the file's (P003).
    pub mismatches: usize,
    /// The line could not be read (P001).
    pub unreadable: bool,
    /// What to tell the user, in line order: P001, P004, then P002 and
    /// P003 by depth.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads a perft suite line ([`parse_perft_record`]) and counts every
/// depth up to `max_depth` against the file's count.
#[must_use]
pub fn verify_perft_line(line: &[u8], max_depth: u32) -> PerftCheck {
    let diag =
        |severity, code, offset, message| Diagnostic { severity, code, offset, opcode: None, operand: None, message };
    let mut report = PerftCheck::default();
    let record = match parse_perft_record(line) {
        Ok(r) => r,
        Err(e) => {
            report.unreadable = true;
            report.diagnostics.push(diag(Severity::Error, Code::PerftUnreadable, e.offset, e.to_string()));
            return report;
        }
    };
    for w in &record.warnings {
        let message = format!("unreachable position: {w}");
        report.diagnostics.push(diag(Severity::Warning, Code::PerftUnreachable, 0, message));
    }
    for exp in &record.expectations {
        let Some(want) = exp.nodes else {
            report.skipped += 1;
            let message = format!("depth {} has no node count to check", exp.depth);
            report.diagnostics.push(diag(Severity::Warning, Code::PerftNoCount, exp.offset, message));
            continue;
        };
        if exp.depth > max_depth {
            report.skipped += 1;
            continue;
        }
        report.checked += 1;
        let got = perft(&record.position, exp.depth);
        if got != want {
            report.mismatches += 1;
            let message = format!("perft({}) is {got}, the file says {want}", exp.depth);
            report.diagnostics.push(diag(Severity::Error, Code::PerftMismatch, exp.offset, message));
        }
    }
    report
}

/// A perft suite line: a position and its expected node counts.
#[derive(Clone, Debug)]
pub struct PerftRecord {
    /// The position.
    pub position: Position,
    /// The depth operations, in file order.
    pub expectations: Vec<PerftExpectation>,
    /// Rules the position breaks without making moves ill-defined (it is
    /// unreachable in a legal game, say).
    pub warnings: Vec<crate::PositionError>,
}

/// Why a perft suite line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftRecordError {
    /// Byte offset in the line.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

impl core::fmt::Display for PerftRecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PerftRecordError {}

/// Reads one perft suite line in any of the layouts real suites use:
/// `FEN ;D1 20 ;D2 400`, `FEN; D1 20; D2 400` (with or without a final
/// `;`), `perft1 20` spellings, 4- or 6-field positions, a trailing NUL or
/// CR. Operations other than depth counts are skipped.
///
/// # Errors
/// [`PerftRecordError`] with the offset, for an unreadable position or a
/// malformed count.
pub fn parse_perft_record(line: &[u8]) -> Result<PerftRecord, PerftRecordError> {
    let end = line.iter().rposition(|&b| !matches!(b, b'\0' | b'\r' | b'\n' | b' ' | b'\t')).map_or(0, |i| i + 1);
    let line = &line[..end];
    let parsed = crate::parse_fields(line, crate::ParseMode::Lenient, crate::Counters::Optional)
        .map_err(|e| PerftRecordError { offset: e.offset, message: e.to_string() })?;
    let warnings = parsed.setup.problems();
    let position = Position::from_setup_with(parsed.setup, crate::Validation::Playable)
        .map_err(|e| PerftRecordError { offset: 0, message: format!("illegal position: {e}") })?;
    let mut expectations = Vec::new();
    let mut start = parsed.end;
    for piece in line[parsed.end..].split(|&b| b == b';') {
        let offset = start + piece.iter().take_while(|b| b.is_ascii_whitespace()).count();
        start += piece.len() + 1;
        let mut words = piece.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
        let Some(op) = words.next() else { continue };
        let digits = if let Some(rest) = op.strip_prefix(b"perft") {
            rest
        } else if let Some(rest) = op.strip_prefix(b"D") {
            rest
        } else {
            continue;
        };
        let Some(depth) = parse_u64(digits).and_then(|d| u32::try_from(d).ok()) else {
            continue;
        };
        let nodes = match words.next() {
            None => None,
            Some(w) => Some(parse_u64(w).ok_or_else(|| PerftRecordError {
                offset,
                message: format!("node count of depth {depth} is not a non-negative integer"),
            })?),
        };
        expectations.push(PerftExpectation { depth, nodes, offset });
    }
    Ok(PerftRecord { position, expectations, warnings })
}

fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &d| acc.checked_mul(10)?.checked_add(u64::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts() {
        for (fen, counts) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[20u64, 400, 8902, 197_281][..]),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[48, 2039, 97_862]),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2812, 43_238]),
            ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", &[6, 264, 9467]),
            ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", &[44, 1486, 62_379]),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for (d, &n) in counts.iter().enumerate() {
                let depth = d as u32 + 1;
                assert_eq!(perft(&pos, depth), n, "{fen} depth {depth}");
                assert_eq!(perft_full(&pos, depth), n, "{fen} depth {depth} unbulked");
            }
            let divide: u64 = perft_divide(&pos, 3).iter().map(|&(_, n)| n).sum();
            assert_eq!(divide, counts[2]);
        }
    }

    #[test]
    fn reads_every_suite_layout() {
        for (line, depths) in [
            (
                &b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400"[..],
                vec![(1, Some(20)), (2, Some(400))],
            ),
            (b"4k3/8/8/8/8/8/8/4K2R w K - 0 1; D1 15; D2 66\0", vec![(1, Some(15)), (2, Some(66))]),
            (b"4k3/8/8/8/8/8/8/4K2R w K -; perft1 15; perft2 66;\r\n", vec![(1, Some(15)), (2, Some(66))]),
            (b"4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D4 ;D5 ;D6", vec![(4, None), (5, None), (6, None)]),
            (b"4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;id \"x\"; D1 15", vec![(1, Some(15))]),
        ] {
            let rec = parse_perft_record(line).unwrap();
            let got: Vec<_> = rec.expectations.iter().map(|e| (e.depth, e.nodes)).collect();
            assert_eq!(got, depths);
        }
        assert!(parse_perft_record(b"4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 x5").is_err());
        assert!(parse_perft_record(b"garbage").is_err());
    }
}
