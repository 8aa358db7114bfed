//! What a report reads of a record: the position, the id, the key's
//! opcodes (bm, am, dm and the STS points' comments), the move played
//! (pm, pv's first), the counters (acd, acn, acs, ce) and the solve-time
//! extensions. [`Fields`] is a [`RecordVisitor`], so it is filled the same
//! way from a canonical line, by the reader's fast path as it reads it
//! (no record built), and from a record parsed in full.

use epd_core::{Move, Opcode, Position, Record, RecordVisitor, Value, VisitedOperand};

use crate::key::Solution;
use crate::run::{SOLVE_ACN, SOLVE_MS};

/// An operation's first operand, as the record hands it over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct First<'a> {
    /// Its text (a string's content).
    pub text: &'a [u8],
    /// Its offset in the line.
    pub offset: usize,
    /// Its value.
    pub value: Value,
}

impl First<'_> {
    /// Its integer, if it is one.
    pub fn integer(&self) -> Option<i64> {
        match self.value {
            Value::Integer(v) => Some(v),
            _ => None,
        }
    }

    /// Its move, if a legal one.
    pub fn mv(&self) -> Option<Move> {
        match self.value {
            Value::Move(m) => m,
            _ => None,
        }
    }
}

/// The operations whose first operand is kept, by their place in
/// [`Fields::first`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Id,
    Pm,
    Pv,
    Acd,
    Acn,
    Acs,
    Ce,
    C0,
    C7,
    C8,
    C9,
    SolveMs,
    SolveAcn,
    Bm,
    Am,
    Dm,
}

const SLOTS: usize = 16;

/// What a report reads of a record; the first operation of each opcode
/// counts, as with [`Record::get`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Fields<'a> {
    /// The position (hashed).
    pub position: Option<Position>,
    /// The first operand of id, pm, pv, acd, acn, acs, ce, c0, c7, c8,
    /// c9 and the two extensions, by [`Slot`].
    first: [Option<First<'a>>; SLOTS],
    /// The record's own key (bm, am, dm; its points once
    /// [`Fields::finish`] has read them).
    pub own: Solution,
    /// Operations met, one bit per [`Slot`].
    seen: u32,
    /// The buffers of bm and am, kept from record to record.
    spare: [Vec<Move>; 2],
    /// Where the operands of the operation begun last go.
    current: Option<Slot>,
}

impl<'a> Fields<'a> {
    /// Empty, keeping the buffers of `own`.
    pub fn with_buffers(mut own: Solution) -> Fields<'a> {
        let spare = [own.bm.take().unwrap_or_default(), own.am.take().unwrap_or_default()];
        own.dm = None;
        own.points.clear();
        Fields { own, spare, ..Fields::default() }
    }

    /// The fields of a parsed record.
    pub fn of(rec: &'a Record, own: Solution) -> Fields<'a> {
        let mut f = Fields::with_buffers(own);
        rec.visit(&mut f);
        f.finish();
        f
    }

    /// Reads what needs every operation (the STS points); call it once
    /// the record is handed over.
    pub fn finish(&mut self) {
        self.own.points = match &self.position {
            Some(pos) => crate::key::points_list(self, pos),
            None => Vec::new(),
        };
    }

    fn first(&self, slot: Slot) -> Option<&First<'a>> {
        self.first[slot as usize].as_ref()
    }

    /// The id's operand.
    pub fn id(&self) -> Option<&First<'a>> {
        self.first(Slot::Id)
    }

    /// The move played: pm, else pv's first (§7.5).
    pub fn played(&self) -> Option<Move> {
        self.first_move(Opcode::Pm).or_else(|| self.first_move(Opcode::Pv))
    }

    /// The first move of pm or pv.
    pub fn first_move(&self, op: Opcode) -> Option<Move> {
        let slot = if op == Opcode::Pm { Slot::Pm } else { Slot::Pv };
        self.first(slot).and_then(First::mv)
    }

    /// acd, acn, acs or ce.
    pub fn counter(&self, op: Opcode) -> Option<i64> {
        let slot = match op {
            Opcode::Acd => Slot::Acd,
            Opcode::Acn => Slot::Acn,
            Opcode::Acs => Slot::Acs,
            _ => Slot::Ce,
        };
        self.first(slot).and_then(First::integer)
    }

    /// The first operand of c0, c7, c8 or c9, or of an extension
    /// ([`SOLVE_MS`], [`SOLVE_ACN`]).
    pub fn text(&self, name: &str) -> Option<&First<'a>> {
        self.first(slot_of(None, name.as_bytes())?)
    }
}

/// The slot of an operation.
fn slot_of(opcode: Option<Opcode>, name: &[u8]) -> Option<Slot> {
    Some(match opcode {
        Some(Opcode::Id) => Slot::Id,
        Some(Opcode::Pm) => Slot::Pm,
        Some(Opcode::Pv) => Slot::Pv,
        Some(Opcode::Acd) => Slot::Acd,
        Some(Opcode::Acn) => Slot::Acn,
        Some(Opcode::Acs) => Slot::Acs,
        Some(Opcode::Ce) => Slot::Ce,
        Some(Opcode::C0) => Slot::C0,
        Some(Opcode::C7) => Slot::C7,
        Some(Opcode::C8) => Slot::C8,
        Some(Opcode::C9) => Slot::C9,
        Some(Opcode::Bm) => Slot::Bm,
        Some(Opcode::Am) => Slot::Am,
        Some(Opcode::Dm) => Slot::Dm,
        Some(_) => return None,
        None => match name {
            b"c0" => Slot::C0,
            b"c7" => Slot::C7,
            b"c8" => Slot::C8,
            b"c9" => Slot::C9,
            n if n == SOLVE_MS.as_bytes() => Slot::SolveMs,
            n if n == SOLVE_ACN.as_bytes() => Slot::SolveAcn,
            _ => return None,
        },
    })
}

impl<'a> RecordVisitor<'a> for Fields<'a> {
    #[inline]
    fn position(&mut self, pos: &Position) {
        self.position = Some(*pos);
    }

    #[inline]
    fn operation(&mut self, opcode: Option<Opcode>, name: &'a [u8]) {
        self.current = slot_of(opcode, name).filter(|&s| {
            let bit = 1 << s as u32;
            let new = self.seen & bit == 0;
            self.seen |= bit;
            new
        });
        // An operation without operands still keys the record (an
        // empty bm).
        let (list, spare) = match self.current {
            Some(Slot::Bm) => (&mut self.own.bm, &mut self.spare[0]),
            Some(Slot::Am) => (&mut self.own.am, &mut self.spare[1]),
            _ => return,
        };
        let mut v = std::mem::take(spare);
        v.clear();
        *list = Some(v);
    }

    #[inline]
    fn operand(&mut self, operand: VisitedOperand<'a>) {
        let Some(slot) = self.current else { return };
        match slot {
            Slot::Bm | Slot::Am => {
                if let Value::Move(Some(m)) = operand.value {
                    let list = if slot == Slot::Bm { &mut self.own.bm } else { &mut self.own.am };
                    list.get_or_insert_with(Vec::new).push(m);
                }
            }
            Slot::Dm => {
                if operand.index == 0 {
                    self.own.dm = match operand.value {
                        Value::Integer(v) => u32::try_from(v).ok().filter(|&v| v > 0),
                        _ => None,
                    };
                }
            }
            _ => {
                if operand.index == 0 {
                    self.first[slot as usize] =
                        Some(First { text: operand.text, offset: operand.offset, value: operand.value });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::ParseMode;

    /// The fast path's fields against the full parse's, for one line: a
    /// line the fast path takes reads strictly with no diagnostic, and it
    /// hands over what the parsed record does. `true` if it took it.
    fn same_fields(rec: &mut Record, line: &[u8]) -> bool {
        let mut fast = Fields::with_buffers(Solution::default());
        let taken = rec.read_canonical(line, &mut fast);
        if taken {
            fast.finish();
            let (parsed, diags) = Record::parse(line, ParseMode::Strict);
            assert!(diags.is_empty() && parsed.is_source_canonical(), "{}", String::from_utf8_lossy(line));
            let slow = Fields::of(&parsed, Solution::default());
            let text = String::from_utf8_lossy(line);
            assert_eq!(fast, slow, "{text}");
            let hash = |f: &Fields<'_>| f.position.map(|p| p.zobrist_hash());
            assert_eq!(hash(&fast), hash(&slow), "{text}");
            assert!(hash(&fast).is_some(), "{text}");
        }
        taken
    }

    /// On every line of the corpora and of the benchmark file, and on the
    /// canonical text of every record they hold, the fields the fast path
    /// hands over as it reads are those of the record parsed in full.
    #[test]
    fn the_fast_path_hands_over_the_full_parses_fields() {
        let dir = epd_testkit::corpus_dir();
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("epd" | "fen")))
            .collect();
        paths.sort();
        let bench = epd_testkit::bench_corpus_path();
        paths.push(bench.clone());
        let mut rec = Record::default();
        let (mut lines, mut taken) = (0u64, 0u64);
        for path in &paths {
            let data = std::fs::read(path).expect("a corpus file");
            // The opening book's first lines are plenty.
            let most = if *path == bench { usize::MAX } else { 30_000 };
            for line in data.split(|&b| b == b'\n').take(most) {
                lines += 1;
                taken += u64::from(same_fields(&mut rec, line));
                let (parsed, diags) = Record::parse(line, ParseMode::Lenient);
                if !epd_core::has_errors(&diags) && parsed.position().is_some() {
                    taken += u64::from(same_fields(&mut rec, parsed.to_string().as_bytes()));
                }
            }
        }
        // The benchmark file is canonical: its 100,000 records at least,
        // twice.
        assert!(taken >= 200_000, "{taken} of {lines} lines taken");
    }
}
