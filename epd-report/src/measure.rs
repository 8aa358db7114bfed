//! What a run keeps of one record, split in two so records can be read
//! on several threads: [`measure`] is the per-record work, pure (parse
//! done, it looks the key up, judges the move, hashes the id and the
//! position, names the theme, reads the counters, finds the record's own
//! issues), and runs on the line pipeline's workers; `RunStats::apply`
//! then counts the [`Measured`] record on one thread, in line order
//! (themes, distributions, spools, duplicates), so a report read with
//! many workers is the one read with one.
//!
//! The workers hand a [`Measured`] record over as the pipeline's output
//! line ([`Measured::encode`], a length-prefixed frame), and the reading
//! side decodes it in place ([`Measured::decode`]), borrowing its text.

use std::borrow::Cow;

use epd_core::{judge, Opcode, Score, Verdict};

use crate::fields::Fields;
use crate::key::{position_key, KeyBook, Lookup};
use crate::run::{Grouping, MateClass, SOLVE_ACN, SOLVE_MS};
use crate::spool::At;

/// One valid record, measured.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Measured<'a> {
    /// Its 1-based line.
    pub line: u64,
    /// How it fared.
    pub verdict: Verdict,
    /// It has a move played (pm, else pv's first).
    pub played: bool,
    /// Where its id operand is in the line ([`At::NO_ID`]: it has none).
    pub id_offset: u32,
    /// The hash of its position ([`position_key`]).
    pub position_hash: u64,
    /// The hash of its id, when it has one.
    pub id_hash: Option<u64>,
    /// acd, acn, acs and ce.
    pub acd: Option<i64>,
    /// See `acd`.
    pub acn: Option<i64>,
    /// See `acd`.
    pub acs: Option<i64>,
    /// See `acd`.
    pub ce: Option<i64>,
    /// The solve-time extension, microseconds and resolution.
    pub solve: Option<(i64, i64)>,
    /// The solve-nodes extension.
    pub solve_nodes: Option<i64>,
    /// The key's mate length, the outcome, and the mate found.
    pub mate: Option<(u32, MateClass, Option<u32>)>,
    /// Points earned and the most available (STS).
    pub points: Option<(u32, u32)>,
    /// Its id, as text.
    pub id: Option<Cow<'a, str>>,
    /// Its theme.
    pub theme: ThemeOf<'a>,
    /// Its own issues (kind, message), in the order they are found.
    pub issues: Vec<(&'static str, Cow<'a, str>)>,
    /// The move played in SAN, when the whole judgement is wanted.
    pub san: Option<Cow<'a, str>>,
}

/// A record's theme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ThemeOf<'a> {
    /// The bytes `start..end` of the id's text.
    InId(u32, u32),
    /// A name of its own.
    Named(Cow<'a, str>),
    /// The run's file.
    File,
}

impl ThemeOf<'_> {
    /// The theme's name, given the record's id and the run's file.
    pub fn name<'b>(&'b self, id: Option<&'b str>, file: &'b str) -> &'b str {
        match self {
            ThemeOf::InId(s, e) => id.and_then(|i| i.get(*s as usize..*e as usize)).unwrap_or(""),
            ThemeOf::Named(n) => n,
            ThemeOf::File => file,
        }
    }
}

/// An id's hash (FNV-1a, then mixed: ids are short).
pub(crate) fn hash_of(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
}

/// The id without a trailing number and the separators before it.
pub(crate) fn id_prefix(id: &str) -> &str {
    let t = id.trim_end_matches(|c: char| c.is_ascii_digit());
    if t.len() == id.len() || t.is_empty() {
        return id;
    }
    t.trim_end_matches(['.', ' ', '_', '-', '#'])
}

/// A decimal number of milliseconds (`1500`, `12.5`, `0.125`) as
/// microseconds, with the resolution it is written to, in microseconds
/// (1000 for whole milliseconds, 100 for one decimal, at least 1): read
/// as precisely as it is written, no more.
pub(crate) fn micros_of_millis(text: &[u8]) -> Option<(i64, i64)> {
    let (int, frac) = match memchr::memchr(b'.', text) {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, &b""[..]),
    };
    if int.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) || int.len() > 15 {
        return None;
    }
    let mut us: i64 = 0;
    for &d in int {
        us = us * 10 + i64::from(d - b'0');
    }
    us *= 1000;
    let mut unit = 1000;
    for &d in frac.iter().take(3) {
        unit /= 10;
        us += i64::from(d - b'0') * unit;
    }
    Some((us, unit.max(1)))
}

/// The solve-time extension, microseconds and resolution.
fn solve_micros(f: &Fields<'_>) -> Option<(i64, i64)> {
    let o = f.text(SOLVE_MS)?;
    match o.integer() {
        Some(ms) if ms >= 0 => Some((ms.saturating_mul(1000), 1000)),
        _ => micros_of_millis(o.text),
    }
}

/// An integer operand; an opcode the kit does not know (the solve-time
/// extensions) has untyped operands, read here as decimal text.
fn int_of(f: &Fields<'_>, op: &str) -> Option<i64> {
    let o = f.text(op)?;
    o.integer().or_else(|| std::str::from_utf8(o.text).ok()?.parse().ok())
}

/// Measures a valid record of line `line`, read into `f`, against its
/// key (the key file's, else its own); with `detail`, the move played is
/// named too.
pub(crate) fn measure<'r>(
    f: &Fields<'r>,
    line: u64,
    key: Option<&KeyBook>,
    grouping: &Grouping,
    detail: bool,
) -> Measured<'r> {
    let pos = f.position.as_ref().expect("a valid record has a position");
    let id_operand = f.id();
    let id = id_operand.map(|o| o.text);
    let mut issues = Vec::new();
    // The key: the record's own, else the key file's.
    let own = &f.own;
    let solution = match key {
        Some(book) => match book.find(id, pos) {
            Lookup::Id(s) | Lookup::Position(s) => s,
            Lookup::IdOtherPosition => {
                issues.push(("key-position", "the key has this id for another position".into()));
                own
            }
            Lookup::Missing => {
                if own.is_empty() {
                    issues.push(("no-key", "neither the key nor the record has a solution".into()));
                }
                own
            }
        },
        None => own,
    };
    let mv = f.played();
    let verdict = judge(solution.bm.as_deref(), solution.am.as_deref(), mv);
    let id_text: Option<Cow<'r, str>> = id.map(String::from_utf8_lossy);
    let id_offset =
        id_operand.and_then(|o| u32::try_from(o.offset).ok()).filter(|&o| o < At::UNKNOWN).unwrap_or(At::NO_ID);
    let position_hash = position_key(pos);
    let id_hash = id.map(hash_of);
    // pm against pv.
    let first_pv = f.first_move(Opcode::Pv);
    let pm = f.first_move(Opcode::Pm);
    if let (Some(a), Some(b)) = (pm, first_pv) {
        if a != b {
            issues.push(("pm-not-pv", format!("pm {} is not the first move of pv, {}", pos.san(a), pos.san(b)).into()));
        }
    }
    let known = |op: Opcode| f.counter(op);
    let (acd, acn, acs, ce) = (known(Opcode::Acd), known(Opcode::Acn), known(Opcode::Acs), known(Opcode::Ce));
    let solve = solve_micros(f);
    let solve_nodes = if verdict == Verdict::Solved { int_of(f, SOLVE_ACN) } else { None };
    // Mates.
    let mut mate = None;
    if let Some(dm) = solution.dm {
        let score = ce.and_then(|c| Score::from_ce(c).ok());
        let found = match score {
            Some(Score::MateIn(n)) => Some(n),
            _ => None,
        };
        let class = match (score, found) {
            (_, Some(n)) if n == dm => MateClass::Best,
            (_, Some(n)) if n > dm => MateClass::Longer,
            (_, Some(_)) => MateClass::Shorter,
            (Some(Score::MatedIn(_) | Score::Checkmated), None) => MateClass::WrongSign,
            _ => MateClass::Missed,
        };
        if class == MateClass::Shorter {
            issues.push((
                "key-mate-longer",
                format!("mate in {} found; the key says dm {dm}", found.unwrap_or(0)).into(),
            ));
        }
        if matches!(score, Some(Score::Centipawns(c)) if c <= 0) || class == MateClass::WrongSign {
            issues.push(("ce-sign", format!("ce {} for a side that mates in {dm}", ce.unwrap_or(0)).into()));
        }
        mate = Some((dm, class, found));
    }
    let points = solution.points_for(mv);
    // The theme, where it can be, as a part of the id (no allocation).
    let within = |part: &str, whole: &str| {
        let start = part.as_ptr() as usize - whole.as_ptr() as usize;
        ThemeOf::InId(start as u32, (start + part.len()) as u32)
    };
    let theme = match grouping {
        Grouping::IdPrefix => match id_text.as_deref() {
            Some(i) => within(id_prefix(i), i),
            None => ThemeOf::Named("(no id)".into()),
        },
        Grouping::Regex(re) => match id_text.as_deref().and_then(|i| re.captures(i).map(|c| (i, c))) {
            Some((i, c)) => match c.get(1).or_else(|| c.get(0)) {
                Some(m) => within(m.as_str(), i),
                None => ThemeOf::Named("".into()),
            },
            None => ThemeOf::Named("(other)".into()),
        },
        Grouping::File => ThemeOf::File,
        Grouping::Opcode => ThemeOf::Named(
            match (&solution.bm, &solution.am, solution.dm) {
                (Some(_), Some(_), _) => "bm+am",
                (Some(_), None, _) => "bm",
                (None, Some(_), _) => "am",
                (None, None, Some(_)) => "dm",
                _ if !solution.points.is_empty() => "points",
                _ => "(none)",
            }
            .into(),
        ),
    };
    let san = if detail { mv.map(|m| Cow::Owned(pos.san(m))) } else { None };
    Measured {
        line,
        verdict,
        played: mv.is_some(),
        id_offset,
        position_hash,
        id_hash,
        acd,
        acn,
        acs,
        ce,
        solve,
        solve_nodes,
        mate,
        points,
        id: id_text,
        theme,
        issues,
        san,
    }
}

/// The kinds of issue a record can have of its own, by their number in a
/// frame.
const OWN_ISSUES: [&str; 5] = ["key-position", "no-key", "pm-not-pv", "key-mate-longer", "ce-sign"];

const MATE_CLASSES: [MateClass; 5] =
    [MateClass::Best, MateClass::Longer, MateClass::Shorter, MateClass::WrongSign, MateClass::Missed];

// Which optional fields a frame holds: one bit each.
const HAS_ID_HASH: u16 = 1;
const HAS_ACD: u16 = 1 << 1;
const HAS_ACN: u16 = 1 << 2;
const HAS_ACS: u16 = 1 << 3;
const HAS_CE: u16 = 1 << 4;
const HAS_SOLVE: u16 = 1 << 5;
const HAS_SOLVE_NODES: u16 = 1 << 6;
const HAS_MATE: u16 = 1 << 7;
const HAS_POINTS: u16 = 1 << 8;
const HAS_ID: u16 = 1 << 9;
const HAS_SAN: u16 = 1 << 10;
const PLAYED: u16 = 1 << 11;

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reads a frame's fields in order; `None` when it is cut short or
/// malformed.
struct Frame<'a> {
    bytes: &'a [u8],
}

impl<'a> Frame<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

impl<'a> Measured<'a> {
    /// Appends the record as one frame: its length (4 bytes), then its
    /// fields.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        let mut flags = 0;
        for (has, bit) in [
            (self.id_hash.is_some(), HAS_ID_HASH),
            (self.acd.is_some(), HAS_ACD),
            (self.acn.is_some(), HAS_ACN),
            (self.acs.is_some(), HAS_ACS),
            (self.ce.is_some(), HAS_CE),
            (self.solve.is_some(), HAS_SOLVE),
            (self.solve_nodes.is_some(), HAS_SOLVE_NODES),
            (self.mate.is_some(), HAS_MATE),
            (self.points.is_some(), HAS_POINTS),
            (self.id.is_some(), HAS_ID),
            (self.san.is_some(), HAS_SAN),
            (self.played, PLAYED),
        ] {
            if has {
                flags |= bit;
            }
        }
        out.extend_from_slice(&flags.to_le_bytes());
        out.push(match self.verdict {
            Verdict::Solved => 0,
            Verdict::Missed => 1,
            Verdict::Unscored => 2,
        });
        out.extend_from_slice(&self.line.to_le_bytes());
        out.extend_from_slice(&self.id_offset.to_le_bytes());
        out.extend_from_slice(&self.position_hash.to_le_bytes());
        for v in [self.id_hash.map(|h| h as i64), self.acd, self.acn, self.acs, self.ce].into_iter().flatten() {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if let Some((us, res)) = self.solve {
            out.extend_from_slice(&us.to_le_bytes());
            out.extend_from_slice(&res.to_le_bytes());
        }
        if let Some(n) = self.solve_nodes {
            out.extend_from_slice(&n.to_le_bytes());
        }
        if let Some((dm, class, found)) = self.mate {
            out.extend_from_slice(&dm.to_le_bytes());
            out.push(MATE_CLASSES.iter().position(|&c| c == class).expect("a class") as u8);
            out.push(u8::from(found.is_some()));
            out.extend_from_slice(&found.unwrap_or(0).to_le_bytes());
        }
        if let Some((got, best)) = self.points {
            out.extend_from_slice(&got.to_le_bytes());
            out.extend_from_slice(&best.to_le_bytes());
        }
        if let Some(id) = &self.id {
            put_str(out, id);
        }
        if let Some(san) = &self.san {
            put_str(out, san);
        }
        match &self.theme {
            ThemeOf::InId(s, e) => {
                out.push(0);
                out.extend_from_slice(&s.to_le_bytes());
                out.extend_from_slice(&e.to_le_bytes());
            }
            ThemeOf::Named(n) => {
                out.push(1);
                put_str(out, n);
            }
            ThemeOf::File => out.push(2),
        }
        out.push(self.issues.len() as u8);
        for (kind, message) in &self.issues {
            out.push(OWN_ISSUES.iter().position(|k| k == kind).expect("a record's own issue") as u8);
            put_str(out, message);
        }
        let len = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// The first whole frame of `bytes` and the bytes it takes; `None`
    /// when `bytes` holds no whole frame.
    ///
    /// # Errors
    /// A whole frame that does not read (not one [`Measured::encode`]
    /// wrote).
    pub fn decode(bytes: &'a [u8]) -> Result<Option<(Measured<'a>, usize)>, std::io::Error> {
        let Some(len) = bytes.get(..4) else { return Ok(None) };
        let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
        let Some(frame) = bytes.get(4..4 + len) else { return Ok(None) };
        let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "a measured record that does not read");
        let m = Self::fields(&mut Frame { bytes: frame }).ok_or_else(bad)?;
        Ok(Some((m, 4 + len)))
    }

    fn fields(f: &mut Frame<'a>) -> Option<Measured<'a>> {
        let flags = f.u16()?;
        let has = |bit: u16| flags & bit != 0;
        let verdict = match f.u8()? {
            0 => Verdict::Solved,
            1 => Verdict::Missed,
            2 => Verdict::Unscored,
            _ => return None,
        };
        let line = f.u64()?;
        let id_offset = f.u32()?;
        let position_hash = f.u64()?;
        let mut opt = |bit: u16| -> Option<Option<i64>> {
            if has(bit) {
                f.i64().map(Some)
            } else {
                Some(None)
            }
        };
        let id_hash = opt(HAS_ID_HASH)?.map(|h| h as u64);
        let (acd, acn, acs, ce) = (opt(HAS_ACD)?, opt(HAS_ACN)?, opt(HAS_ACS)?, opt(HAS_CE)?);
        let solve = if has(HAS_SOLVE) { Some((f.i64()?, f.i64()?)) } else { None };
        let solve_nodes = if has(HAS_SOLVE_NODES) { Some(f.i64()?) } else { None };
        let mate = if has(HAS_MATE) {
            let dm = f.u32()?;
            let class = *MATE_CLASSES.get(usize::from(f.u8()?))?;
            let some = f.u8()? != 0;
            let n = f.u32()?;
            Some((dm, class, some.then_some(n)))
        } else {
            None
        };
        let points = if has(HAS_POINTS) { Some((f.u32()?, f.u32()?)) } else { None };
        let id = if has(HAS_ID) { Some(Cow::Borrowed(f.str()?)) } else { None };
        let san = if has(HAS_SAN) { Some(Cow::Borrowed(f.str()?)) } else { None };
        let theme = match f.u8()? {
            0 => ThemeOf::InId(f.u32()?, f.u32()?),
            1 => ThemeOf::Named(Cow::Borrowed(f.str()?)),
            2 => ThemeOf::File,
            _ => return None,
        };
        let n = f.u8()?;
        let mut issues = Vec::new();
        for _ in 0..n {
            let kind = *OWN_ISSUES.get(usize::from(f.u8()?))?;
            issues.push((kind, Cow::Borrowed(f.str()?)));
        }
        if !f.bytes.is_empty() {
            return None;
        }
        Some(Measured {
            line,
            verdict,
            played: has(PLAYED),
            id_offset,
            position_hash,
            id_hash,
            acd,
            acn,
            acs,
            ce,
            solve,
            solve_nodes,
            mate,
            points,
            id,
            theme,
            issues,
            san,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Solution;
    use epd_core::{ParseMode, Record};

    #[test]
    fn a_measured_record_reads_back_as_it_was_written() {
        let key = KeyBook::default();
        for (line, grouping, detail) in [
            ("8/8/8/8/8/8/8/K6k w - - bm Kb1; id \"WAC.001\"; pm Kb1; pv Ka2; acd 3; ce 20;", Grouping::IdPrefix, true),
            ("8/8/8/8/8/8/8/K6k w - - am Kb1; pm Kb1; acn 100; acs 2; c0 \"x\";", Grouping::Opcode, false),
            ("8/8/8/8/8/8/8/K6k w - - dm 2; id \"m\u{e9}.7\"; pm Kb1; ce 32765;", Grouping::File, true),
            (
                "8/8/8/8/8/8/8/K6k w - - bm Kb1; id \"x\"; pm Kb1; ce -3; dm 1; c0 \"Kb1=10, Ka2=3\";",
                Grouping::IdPrefix,
                true,
            ),
        ] {
            let (rec, _) = Record::parse(line.as_bytes(), ParseMode::Lenient);
            let f = Fields::of(&rec, Solution::default());
            let m = measure(&f, 7, Some(&key).filter(|_| detail), &grouping, detail);
            let mut bytes = Vec::new();
            m.encode(&mut bytes);
            bytes.extend_from_slice(b"\x01\x00");
            let (back, used) = Measured::decode(&bytes).unwrap().unwrap();
            assert_eq!(back, m, "{line}");
            assert_eq!(used, bytes.len() - 2);
            // A frame cut short is not whole yet.
            assert!(Measured::decode(&bytes[..used - 1]).unwrap().is_none());
        }
    }
}
