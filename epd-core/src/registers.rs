//! The scanning registers of §6.5 and §6.32 (c0–c9, v0–v9), the ECO and
//! NIC registers (§6.13, §6.17) and the PGN tag pairs of `ptp` (§6.20),
//! kept while a program scans the records of one game or fragment from
//! left to right.

use crate::{Opcode, Record, Value};

/// Register state for one game or game fragment.
///
/// ```
/// use epd_core::{ParseMode, Record, Registers};
/// let mut regs = Registers::new();
/// for line in [
///     &b"8/8/8/8/8/8/8/K6k w - - c0 \"opening\"; c1 \"detail\";"[..],
///     b"8/8/8/8/8/8/8/K6k b - - c1;",
/// ] {
///     regs.apply(&Record::parse(line, ParseMode::Strict).0);
/// }
/// assert_eq!(regs.comment(0), Some(&b"opening"[..]));
/// assert_eq!(regs.comment(1), None); // `c1;` cleared c1..c9
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registers {
    comments: [Option<Vec<u8>>; 10],
    variations: [Option<Vec<u8>>; 10],
    eco: Option<Vec<u8>>,
    nic: Option<Vec<u8>>,
    tags: Vec<(String, Vec<u8>)>,
}

impl Registers {
    /// All registers null: the state at the start of a game.
    #[must_use]
    pub fn new() -> Registers {
        Registers::default()
    }

    /// Starts a new game or fragment: every register back to null.
    pub fn reset(&mut self) {
        *self = Registers::default();
    }

    /// Processes the operations of one record from left to right.
    ///
    /// `cN` (and `vN`) first clears registers N..9, then sets register N
    /// if a string operand is present. `eco` and `nic` set their register,
    /// or clear it when given no operand. Each `ptp` pair sets a tag.
    pub fn apply(&mut self, record: &Record) {
        for op in record.operations() {
            let Some(known) = op.known() else { continue };
            let text = || op.operand(0).filter(|o| matches!(o.value(), Value::String)).map(|o| o.text().to_vec());
            if let Some((family, n)) = known.register() {
                let regs = if family == 'c' { &mut self.comments } else { &mut self.variations };
                for r in regs.iter_mut().skip(n) {
                    *r = None;
                }
                regs[n] = text();
                continue;
            }
            match known {
                Opcode::Eco => self.eco = text(),
                Opcode::Nic => self.nic = text(),
                Opcode::Ptp => {
                    let ops: Vec<_> = op.operands().collect();
                    for pair in ops.chunks_exact(2) {
                        let (Value::Identifier, Value::String) = (pair[0].value(), pair[1].value()) else { continue };
                        let name = String::from_utf8_lossy(pair[0].text()).into_owned();
                        let value = pair[1].text().to_vec();
                        match self.tags.iter_mut().find(|(n, _)| *n == name) {
                            Some(slot) => slot.1 = value,
                            None => self.tags.push((name, value)),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Comment register `n` (0–9).
    #[must_use]
    pub fn comment(&self, n: usize) -> Option<&[u8]> {
        self.comments.get(n)?.as_deref()
    }

    /// Variation name register `n` (0–9).
    #[must_use]
    pub fn variation(&self, n: usize) -> Option<&[u8]> {
        self.variations.get(n)?.as_deref()
    }

    /// The ECO register.
    #[must_use]
    pub fn eco(&self) -> Option<&[u8]> {
        self.eco.as_deref()
    }

    /// The NIC register.
    #[must_use]
    pub fn nic(&self) -> Option<&[u8]> {
        self.nic.as_deref()
    }

    /// The PGN tag pairs set so far, in the order first seen.
    #[must_use]
    pub fn tags(&self) -> &[(String, Vec<u8>)] {
        &self.tags
    }

    /// The value of one PGN tag.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&[u8]> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseMode;

    fn scan(lines: &[&str]) -> Registers {
        let mut regs = Registers::new();
        for l in lines {
            let (rec, diags) = Record::parse(l.as_bytes(), ParseMode::Strict);
            assert!(!crate::has_errors(&diags), "{l}: {diags:?}");
            regs.apply(&rec);
        }
        regs
    }

    const P: &str = "8/8/8/8/8/8/8/K6k w - -";

    #[test]
    fn comment_registers_follow_section_6_5() {
        let r = scan(&[&format!("{P} c0 \"game\"; c1 \"one\"; c2 \"two\"; c5 \"five\";"), &format!("{P} c2 \"TWO\";")]);
        assert_eq!(r.comment(0), Some(&b"game"[..]));
        assert_eq!(r.comment(1), Some(&b"one"[..]));
        assert_eq!(r.comment(2), Some(&b"TWO"[..]));
        // c2 cleared c3..c9, so c5 is gone.
        assert_eq!(r.comment(5), None);
        let r = scan(&[&format!("{P} c0 \"a\"; c1 \"b\";"), &format!("{P} c0;")]);
        assert_eq!((r.comment(0), r.comment(1)), (None, None));
    }

    #[test]
    fn variation_eco_nic_and_tags() {
        let r = scan(&[
            &format!("{P} eco \"B90\"; nic \"SI 12\"; ptp Event \"WCh\" Site \"Reykjavik\"; v0 \"Sicilian\"; v1 \"Najdorf\";"),
            &format!("{P} nic; ptp Site \"Moscow\" Round \"3\"; v0 \"Sicilian Defence\";"),
        ]);
        assert_eq!(r.eco(), Some(&b"B90"[..]));
        assert_eq!(r.nic(), None);
        assert_eq!(r.variation(0), Some(&b"Sicilian Defence"[..]));
        assert_eq!(r.variation(1), None);
        assert_eq!(r.tag("Site"), Some(&b"Moscow"[..]));
        let names: Vec<&str> = r.tags().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Event", "Site", "Round"]);
        let mut r = r;
        r.reset();
        assert_eq!(r, Registers::new());
    }
}
