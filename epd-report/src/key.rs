//! The solution key of a record: what it must play (bm), must not play
//! (am), the mate it holds (dm), and the points each move earns where
//! the suite gives them (STS: `c0 "f5=10, Be5+=2, …"`, or `c8` points
//! with the moves of `c9` in UCI or `c7` in SAN). The key comes from the
//! result record itself, or from a separate key file matched by id, else
//! by position.

use std::collections::HashMap;

use epd_core::{Move, Position, Record, SanMode};

use crate::fields::Fields;

/// What a record is judged by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Solution {
    /// The best moves (`bm`), if the record has any.
    pub bm: Option<Vec<Move>>,
    /// The moves to avoid (`am`).
    pub am: Option<Vec<Move>>,
    /// The mate the side to move has (`dm`, fullmoves).
    pub dm: Option<u32>,
    /// Points per move (STS); empty when the suite gives none.
    pub points: Vec<(Move, u32)>,
}

impl Solution {
    /// The key a record carries.
    #[must_use]
    pub fn of(rec: &Record) -> Solution {
        let mut s = Solution::default();
        s.read(rec);
        s
    }

    /// Reads the key `rec` carries into this one, reusing its buffers.
    pub fn read(&mut self, rec: &Record) {
        let own = std::mem::take(self);
        *self = Fields::of(rec, own).own;
    }

    /// Nothing to judge by: no bm, am, dm or points.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bm.is_none() && self.am.is_none() && self.dm.is_none() && self.points.is_empty()
    }

    /// The points `mv` earns, and the most any move earns; `None` when
    /// the suite gives no points.
    #[must_use]
    pub fn points_for(&self, mv: Option<Move>) -> Option<(u32, u32)> {
        let best = self.points.iter().map(|&(_, p)| p).max()?;
        let got = mv.and_then(|m| self.points.iter().find(|&&(x, _)| x == m)).map_or(0, |&(_, p)| p);
        Some((got, best))
    }
}

fn text_of<'a>(rec: &Fields<'a>, op: &str) -> Option<&'a [u8]> {
    rec.text(op).map(|o| o.text)
}

/// The STS points of a record: `c0 "MOVE=N, MOVE=N"` in SAN, else `c8`
/// (points, blank-separated) paired with `c9` (UCI) or `c7` (SAN). A list
/// that does not read completely (an unknown move, a bad number) gives
/// no points rather than some.
pub(crate) fn points_list(rec: &Fields<'_>, pos: &Position) -> Vec<(Move, u32)> {
    // A comment without `=` is no points list (most results files).
    if let Some(c0) = text_of(rec, "c0").filter(|t| t.contains(&b'=')) {
        let text = String::from_utf8_lossy(c0);
        let list: Option<Vec<(Move, u32)>> = text
            .split(',')
            .map(|item| {
                let (m, p) = item.trim().split_once('=')?;
                Some((pos.parse_san(m.trim().as_bytes(), SanMode::Lenient).ok()?, p.trim().parse().ok()?))
            })
            .collect();
        if let Some(list) = list.filter(|l| !l.is_empty()) {
            return list;
        }
    }
    let Some(c8) = text_of(rec, "c8") else { return Vec::new() };
    let points: Option<Vec<u32>> = String::from_utf8_lossy(c8).split_whitespace().map(|p| p.parse().ok()).collect();
    let Some(points) = points else { return Vec::new() };
    let moves = |op: &str, uci: bool| -> Option<Vec<Move>> {
        let text = String::from_utf8_lossy(text_of(rec, op)?).into_owned();
        text.split_whitespace()
            .map(|m| {
                if uci {
                    pos.parse_uci(m.as_bytes()).ok()
                } else {
                    pos.parse_san(m.as_bytes(), SanMode::Lenient).ok()
                }
            })
            .collect()
    };
    match moves("c9", true).or_else(|| moves("c7", false)) {
        Some(m) if m.len() == points.len() => m.into_iter().zip(points).collect(),
        _ => Vec::new(),
    }
}

/// A position's identity for matching: the Zobrist key of its four
/// fields.
#[must_use]
pub fn position_key(pos: &Position) -> u64 {
    pos.zobrist_hash()
}

/// A separate solution key (`--key SUITE.epd`): each record's solution,
/// found by id, else by position.
#[derive(Clone, Debug, Default)]
pub struct KeyBook {
    by_id: HashMap<Vec<u8>, (u64, Solution)>,
    by_position: HashMap<u64, Solution>,
    /// Records of the key file.
    pub records: u64,
}

/// How a result record was matched to the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// By id, the positions agreeing.
    Id(&'a Solution),
    /// By id, but the key's position is another: the key is not used.
    IdOtherPosition,
    /// By position.
    Position(&'a Solution),
    /// Not in the key.
    Missing,
}

impl KeyBook {
    /// Reads a solution key: every valid record of `reader` (read
    /// leniently; blank lines skipped). A record that does not read is
    /// left out and passed to `on_bad` with its line number and first
    /// error.
    ///
    /// # Errors
    /// A read error of `reader`.
    pub fn load(
        mut reader: impl std::io::BufRead,
        mut on_bad: impl FnMut(u64, Option<&epd_core::Diagnostic>),
    ) -> std::io::Result<KeyBook> {
        let mut book = KeyBook::default();
        let mut line = Vec::new();
        let mut n = 0u64;
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                return Ok(book);
            }
            n += 1;
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let (rec, diags) = Record::parse(text, epd_core::ParseMode::Lenient);
            if epd_core::has_errors(&diags) || rec.position().is_none() {
                on_bad(n, diags.iter().find(|d| d.severity == epd_core::Severity::Error));
                continue;
            }
            book.add(&rec);
        }
    }

    /// Adds a key record (the first of a duplicated id or position wins).
    pub fn add(&mut self, rec: &Record) {
        let Some(pos) = rec.position() else { return };
        self.records += 1;
        let h = position_key(pos);
        let sol = Solution::of(rec);
        if let Some(id) = rec.id() {
            self.by_id.entry(id.to_vec()).or_insert_with(|| (h, sol.clone()));
        }
        self.by_position.entry(h).or_insert(sol);
    }

    /// The solution for a result record with `id` at `pos`.
    #[must_use]
    pub fn find(&self, id: Option<&[u8]>, pos: &Position) -> Lookup<'_> {
        let h = position_key(pos);
        if let Some((kh, sol)) = id.and_then(|id| self.by_id.get(id)) {
            return if *kh == h { Lookup::Id(sol) } else { Lookup::IdOtherPosition };
        }
        match self.by_position.get(&h) {
            Some(sol) => Lookup::Position(sol),
            None => Lookup::Missing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::ParseMode;

    fn rec(line: &str) -> Record {
        let (r, d) = Record::parse(line.as_bytes(), ParseMode::Lenient);
        assert!(!epd_core::has_errors(&d), "{line}: {d:?}");
        r
    }

    #[test]
    fn sts_points_from_c0_or_from_c8_with_c9() {
        let sts = rec("1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id \"STS(v1.0) Undermine.001\"; \
             c0 \"f5=10, Be5+=2, Bf2=3, Bg4=2\"; c7 \"f5 Be5+ Bf2 Bg4\"; c8 \"10 2 3 2\"; c9 \"f4f5 d4e5 d4f2 f3g4\";");
        let s = Solution::of(&sts);
        let pos = sts.position().unwrap();
        let mv = |san: &str| pos.parse_san(san.as_bytes(), SanMode::Lenient).unwrap();
        assert_eq!(s.points.len(), 4);
        assert_eq!(s.points_for(Some(mv("Bf2"))), Some((3, 10)));
        assert_eq!(s.points_for(Some(mv("Qe1"))), Some((0, 10)));
        assert_eq!(s.points_for(None), Some((0, 10)));
        // Without c0: c8 with c9.
        let alt = rec(
            "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; c8 \"10 2 3 2\"; c9 \"f4f5 d4e5 d4f2 f3g4\";",
        );
        assert_eq!(Solution::of(&alt).points, s.points);
        // A list that does not read gives none.
        let bad = rec("1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; c0 \"f5=10, Zz9=2\";");
        assert!(Solution::of(&bad).points.is_empty());
        assert_eq!(Solution::of(&bad).points_for(None), None);
    }

    #[test]
    fn a_key_is_found_by_id_then_by_position() {
        let mut book = KeyBook::default();
        book.add(&rec("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";"));
        book.add(&rec("8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id \"WAC.002\";"));
        let wac1 = rec("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - pm Qg6;");
        let wac2 = rec("8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - pm Rxb2;");
        assert!(matches!(book.find(Some(b"WAC.001"), wac1.position().unwrap()), Lookup::Id(s) if s.bm.is_some()));
        assert_eq!(book.find(Some(b"WAC.001"), wac2.position().unwrap()), Lookup::IdOtherPosition);
        assert!(matches!(book.find(None, wac2.position().unwrap()), Lookup::Position(_)));
        assert!(matches!(book.find(Some(b"nope"), wac2.position().unwrap()), Lookup::Position(_)));
        assert_eq!(book.find(None, &Position::startpos()), Lookup::Missing);
    }
}
