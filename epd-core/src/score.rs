//! Scores: a typed view of the `ce` operand and its mate arithmetic (§6.7),
//! with conversions to and from `dm` and UCI engine scores.

use core::fmt;

/// A centipawn evaluation (`ce`) from the point of view of the side to
/// move, with mates and the special values made explicit.
///
/// The EPD encoding (§6.7):
///
/// | score | `ce` |
/// |---|---|
/// | `MateIn(n)`, the side to move mates in `n` fullmoves | `32767 - (2n - 1)` |
/// | `MatedIn(n)`, the side to move is mated after `n` of its moves | `-32767 + 2n` |
/// | `Checkmated`, the side to move is checkmated now | `-32767` |
/// | `IllegalPosition` | `-32768` |
/// | `Centipawns(c)`, `-32000 <= c <= 32000` | `c` |
///
/// Values above 32000 or below −32000 are mates.
///
/// ```
/// use epd_core::Score;
/// assert_eq!(Score::MateIn(1).to_ce(), 32766);
/// assert_eq!(Score::MateIn(5).to_ce(), 32758);
/// assert_eq!(Score::MatedIn(1).to_ce(), -32765);
/// assert_eq!(Score::from_ce(32764), Ok(Score::MateIn(2)));
/// assert_eq!(Score::from_uci_mate(-3), Score::MatedIn(3));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// An ordinary evaluation in hundredths of a pawn (|c| ≤ 32000).
    Centipawns(i32),
    /// The side to move mates in this many fullmoves (≥ 1).
    MateIn(u32),
    /// The side to move is mated after this many of its own moves (≥ 1).
    MatedIn(u32),
    /// The side to move is checkmated.
    Checkmated,
    /// The position is illegal.
    IllegalPosition,
}

/// The largest `ce` value (mate in one).
pub const CE_MAX: i64 = 32766;
/// The smallest `ce` value (illegal position).
pub const CE_MIN: i64 = -32768;
/// Beyond ±32000, a `ce` value denotes a mate.
pub const CE_MATE_THRESHOLD: i64 = 32000;

/// A `ce` value outside −32768..=32766, or an impossible mate distance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreError {
    /// The rejected value.
    pub value: i64,
}

impl fmt::Display for ScoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ce {} is not from {CE_MIN} to {CE_MAX}", self.value)
    }
}

impl std::error::Error for ScoreError {}

impl Score {
    /// Reads a `ce` value.
    ///
    /// Between 32000 and 32766, odd distances from 32767 are mates for the
    /// side to move; between −32766 and −32000, even distances from −32767
    /// are mates against it. The other values in those bands (an even ply
    /// count for a win, say) cannot arise from the formula; they are read
    /// as the nearest mate towards zero plies, as engines that count plies
    /// loosely write them.
    ///
    /// # Errors
    /// [`ScoreError`] for values outside −32768..=32766.
    pub fn from_ce(ce: i64) -> Result<Score, ScoreError> {
        match ce {
            -32768 => Ok(Score::IllegalPosition),
            -32767 => Ok(Score::Checkmated),
            v if !(CE_MIN..=CE_MAX).contains(&v) => Err(ScoreError { value: v }),
            v if v > CE_MATE_THRESHOLD => {
                let plies = 32767 - v; // 1, 3, 5 ... for exact mates
                Ok(Score::MateIn(((plies + 1) / 2) as u32))
            }
            v if v < -CE_MATE_THRESHOLD => {
                let plies = v + 32767; // 2, 4, 6 ... for exact mates
                Ok(Score::MatedIn((plies / 2).max(1) as u32))
            }
            v => Ok(Score::Centipawns(v as i32)),
        }
    }

    /// `true` if `ce` is one of the values the §6.7 formula produces (or a
    /// plain centipawn value); `false` for in-band values such as 32765
    /// that no mate distance gives.
    #[must_use]
    pub fn is_exact_ce(ce: i64) -> bool {
        match ce {
            v if !(CE_MIN..=CE_MAX).contains(&v) => false,
            v if v > CE_MATE_THRESHOLD => (32767 - v) % 2 == 1,
            -32768 | -32767 => true,
            v if v < -CE_MATE_THRESHOLD => (v + 32767) % 2 == 0,
            _ => true,
        }
    }

    /// The `ce` value. Mate distances too long for the mate band are
    /// clamped to its edge (mate in 383 is the longest that fits).
    #[must_use]
    pub fn to_ce(self) -> i64 {
        match self {
            Score::Centipawns(c) => i64::from(c).clamp(-CE_MATE_THRESHOLD, CE_MATE_THRESHOLD),
            Score::MateIn(n) => (32767 - (2 * i64::from(n.max(1)) - 1)).max(CE_MATE_THRESHOLD + 1),
            Score::MatedIn(n) => (-32767 + 2 * i64::from(n.max(1))).min(-CE_MATE_THRESHOLD - 1),
            Score::Checkmated => -32767,
            Score::IllegalPosition => -32768,
        }
    }

    /// The `dm` value (fullmoves to mate for the side to move), if this
    /// score is a mate for the side to move.
    #[must_use]
    pub fn to_dm(self) -> Option<u32> {
        match self {
            Score::MateIn(n) => Some(n),
            _ => None,
        }
    }

    /// The score of a `dm` value.
    #[must_use]
    pub fn from_dm(dm: u32) -> Score {
        Score::MateIn(dm)
    }

    /// From a UCI engine's `score cp N`.
    #[must_use]
    pub fn from_uci_cp(cp: i64) -> Score {
        Score::Centipawns(cp.clamp(-CE_MATE_THRESHOLD, CE_MATE_THRESHOLD) as i32)
    }

    /// From a UCI engine's `score mate N`: N > 0 mates in N moves, N < 0
    /// is mated in −N, and `mate 0` means the side to move is checkmated.
    #[must_use]
    pub fn from_uci_mate(mate: i64) -> Score {
        match mate {
            0 => Score::Checkmated,
            n if n > 0 => Score::MateIn(n.min(i64::from(u32::MAX)) as u32),
            n => Score::MatedIn(n.unsigned_abs().min(u64::from(u32::MAX)) as u32),
        }
    }

    /// The score in UCI terms: `("cp", n)` or `("mate", n)`.
    #[must_use]
    pub fn to_uci(self) -> (&'static str, i64) {
        match self {
            Score::Centipawns(c) => ("cp", i64::from(c)),
            Score::MateIn(n) => ("mate", i64::from(n)),
            Score::MatedIn(n) => ("mate", -i64::from(n)),
            Score::Checkmated => ("mate", 0),
            Score::IllegalPosition => ("cp", -32768),
        }
    }

    /// The score after a move, from the other side's point of view.
    /// Mate in 1 becomes checkmated; mated in N becomes mate in N.
    #[must_use]
    pub fn after_move(self) -> Score {
        match self {
            Score::Centipawns(c) => Score::Centipawns(-c),
            Score::MateIn(1) => Score::Checkmated,
            Score::MateIn(n) => Score::MatedIn(n - 1),
            Score::MatedIn(n) => Score::MateIn(n),
            Score::Checkmated => Score::IllegalPosition,
            Score::IllegalPosition => Score::IllegalPosition,
        }
    }
}

impl fmt::Display for Score {
    /// `+1.25`, `#3` (mate in 3), `#-2` (mated in 2), `#0` (checkmated),
    /// `illegal`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Centipawns(c) => {
                let sign = if c < 0 { "-" } else { "+" };
                write!(f, "{sign}{}.{:02}", c.unsigned_abs() / 100, c.unsigned_abs() % 100)
            }
            Score::MateIn(n) => write!(f, "#{n}"),
            Score::MatedIn(n) => write!(f, "#-{n}"),
            Score::Checkmated => f.write_str("#0"),
            Score::IllegalPosition => f.write_str("illegal"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specification_examples_and_boundaries() {
        for (score, ce) in [
            (Score::MateIn(1), 32766),
            (Score::MateIn(2), 32764),
            (Score::MateIn(5), 32758),
            (Score::MatedIn(1), -32765),
            (Score::MatedIn(5), -32757),
            (Score::Checkmated, -32767),
            (Score::IllegalPosition, -32768),
            (Score::Centipawns(0), 0),
            (Score::Centipawns(32000), 32000),
            (Score::Centipawns(-32000), -32000),
            (Score::MateIn(383), 32002),
            (Score::MatedIn(383), -32001),
        ] {
            assert_eq!(score.to_ce(), ce, "{score:?}");
            assert_eq!(Score::from_ce(ce), Ok(score), "{ce}");
            assert!(Score::is_exact_ce(ce));
        }
        assert_eq!(Score::from_ce(32767), Err(ScoreError { value: 32767 }));
        assert_eq!(Score::from_ce(-32769), Err(ScoreError { value: -32769 }));
        // In-band values the formula never gives.
        assert!(!Score::is_exact_ce(32765));
        assert!(!Score::is_exact_ce(-32766));
        assert_eq!(Score::from_ce(32765), Ok(Score::MateIn(1)));
        assert_eq!(Score::from_ce(-32766), Ok(Score::MatedIn(1)));
    }

    #[test]
    fn uci_and_dm_conversions() {
        assert_eq!(Score::from_uci_mate(2).to_ce(), 32764);
        assert_eq!(Score::from_uci_mate(-1).to_ce(), -32765);
        assert_eq!(Score::from_uci_mate(0), Score::Checkmated);
        assert_eq!(Score::from_uci_cp(35), Score::Centipawns(35));
        assert_eq!(Score::from_uci_cp(99_999), Score::Centipawns(32000));
        assert_eq!(Score::from_dm(3).to_ce(), 32762);
        assert_eq!(Score::MateIn(3).to_dm(), Some(3));
        assert_eq!(Score::MatedIn(3).to_dm(), None);
        for s in [Score::Centipawns(-7), Score::MateIn(4), Score::MatedIn(2), Score::Checkmated] {
            let (kind, n) = s.to_uci();
            let back = if kind == "cp" { Score::from_uci_cp(n) } else { Score::from_uci_mate(n) };
            assert_eq!(back, s);
        }
    }

    #[test]
    fn after_move_flips_the_point_of_view() {
        assert_eq!(Score::MateIn(1).after_move(), Score::Checkmated);
        assert_eq!(Score::MateIn(3).after_move(), Score::MatedIn(2));
        assert_eq!(Score::MatedIn(2).after_move(), Score::MateIn(2));
        assert_eq!(Score::Centipawns(40).after_move(), Score::Centipawns(-40));
        // ce arithmetic agrees: mate in 3 (32762) after a move is -32763.
        assert_eq!(Score::MateIn(3).after_move().to_ce(), -32763);
    }

    #[test]
    fn display() {
        assert_eq!(Score::Centipawns(125).to_string(), "+1.25");
        assert_eq!(Score::Centipawns(-5).to_string(), "-0.05");
        assert_eq!(Score::MateIn(3).to_string(), "#3");
        assert_eq!(Score::MatedIn(2).to_string(), "#-2");
    }
}
