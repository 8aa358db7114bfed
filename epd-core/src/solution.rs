//! Whether a record's move solves it (§7.5): the one rule the analysis
//! verbs and the report generator judge by.

use crate::{Move, Opcode, Record};

/// The extension operation giving the milliseconds (to 0.1 ms when
/// measured that finely: `Solve_ms 12.3`) from the start of a
/// search to the point where its move first led the principal variation
/// and then held it to the end: the solution time of test suites. The
/// analysis verbs write it on request and the report generator reads it.
/// It is private to this kit, so it begins with a capital (§5.3).
pub const SOLVE_MS: &str = "Solve_ms";
/// The nodes searched by the point of [`SOLVE_MS`].
pub const SOLVE_ACN: &str = "Solve_acn";
/// The depth of the iteration at the point of [`SOLVE_MS`].
pub const SOLVE_ACD: &str = "Solve_acd";

/// How a move fared against a record's bm and am.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The move is in bm (if present) and not in am (if present).
    Solved,
    /// The move misses a target, hits an avoidance move, or is absent.
    Missed,
    /// There is neither bm nor am: nothing to judge by.
    Unscored,
}

/// Judges `mv` against the targets `bm` and the avoidance moves `am`
/// (`None`: the record has no such operation).
///
/// ```
/// use epd_core::{judge, Position, SanMode, Verdict};
///
/// let pos = Position::startpos();
/// let e4 = pos.parse_san(b"e4", SanMode::Strict).unwrap();
/// let d4 = pos.parse_san(b"d4", SanMode::Strict).unwrap();
/// assert_eq!(judge(Some(&[e4]), None, Some(e4)), Verdict::Solved);
/// assert_eq!(judge(None, Some(&[e4]), Some(e4)), Verdict::Missed);
/// assert_eq!(judge(None, Some(&[e4]), Some(d4)), Verdict::Solved);
/// assert_eq!(judge(Some(&[e4]), None, None), Verdict::Missed);
/// assert_eq!(judge(None, None, Some(e4)), Verdict::Unscored);
/// ```
#[must_use]
pub fn judge(bm: Option<&[Move]>, am: Option<&[Move]>, mv: Option<Move>) -> Verdict {
    if bm.is_none() && am.is_none() {
        return Verdict::Unscored;
    }
    let Some(mv) = mv else { return Verdict::Missed };
    if bm.is_none_or(|b| b.contains(&mv)) && am.is_none_or(|a| !a.contains(&mv)) {
        Verdict::Solved
    } else {
        Verdict::Missed
    }
}

/// Judges `mv` against the bm and am of `rec`.
#[must_use]
pub fn verdict(rec: &Record, mv: Option<Move>) -> Verdict {
    let moves = |op: Opcode| rec.get_known(op).map(|o| o.moves().flatten().collect::<Vec<Move>>());
    let (bm, am) = (moves(Opcode::Bm), moves(Opcode::Am));
    judge(bm.as_deref(), am.as_deref(), mv)
}

/// The move a result record plays: its `pm`, else the first move of its
/// `pv` (§7.5).
#[must_use]
pub fn played_move(rec: &Record) -> Option<Move> {
    let first = |op: Opcode| rec.get_known(op).and_then(|o| o.operand(0)).and_then(|o| o.as_move());
    first(Opcode::Pm).or_else(|| first(Opcode::Pv))
}
