//! Scores: the ce operand and its mate arithmetic (section 6.7), dm, UCI scores.

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NOT_FOUND, EPD_STATUS_OUT_OF_RANGE,
};
use crate::ptr::{owned_string, Out};
use core::ffi::{c_char, c_int, c_long, c_ulong};
use epd_core::Score;

/// What an epd_score means.
#[allow(non_camel_case_types)]
pub type epd_score_kind = c_int;
/// An ordinary evaluation: `value` centipawns (-32000..32000) for the side
/// to move.
pub const EPD_SCORE_CENTIPAWNS: epd_score_kind = 0;
/// The side to move mates in `value` fullmoves (1 or more).
pub const EPD_SCORE_MATE_IN: epd_score_kind = 1;
/// The side to move is mated after `value` of its own moves (1 or more).
pub const EPD_SCORE_MATED_IN: epd_score_kind = 2;
/// The side to move is checkmated now (`value` is 0).
pub const EPD_SCORE_CHECKMATED: epd_score_kind = 3;
/// The position is illegal (ce -32768; `value` is 0).
pub const EPD_SCORE_ILLEGAL_POSITION: epd_score_kind = 4;

/// A typed view of a ce value, from the side to move's point of view.
/// The encoding (section 6.7): mate in N is ce 32767 - (2N - 1); mated in N is
/// -32767 + 2N; checkmated -32767; illegal position -32768; centipawns
/// otherwise (|ce| <= 32000).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct epd_score {
    /// EPD_SCORE_CENTIPAWNS, EPD_SCORE_MATE_IN, EPD_SCORE_MATED_IN,
    /// EPD_SCORE_CHECKMATED or EPD_SCORE_ILLEGAL_POSITION.
    pub kind: epd_score_kind,
    /// Centipawns or the mate distance in fullmoves; 0 for the other kinds.
    pub value: c_long,
}

impl epd_score {
    pub(crate) fn from_core(s: Score) -> epd_score {
        let (kind, value) = match s {
            Score::Centipawns(c) => (EPD_SCORE_CENTIPAWNS, c_long::from(c)),
            Score::MateIn(n) => (EPD_SCORE_MATE_IN, c_long::try_from(n).unwrap_or(c_long::MAX)),
            Score::MatedIn(n) => (EPD_SCORE_MATED_IN, c_long::try_from(n).unwrap_or(c_long::MAX)),
            Score::Checkmated => (EPD_SCORE_CHECKMATED, 0),
            Score::IllegalPosition => (EPD_SCORE_ILLEGAL_POSITION, 0),
        };
        epd_score { kind, value }
    }

    pub(crate) fn to_core(self) -> Result<Score> {
        let bad = |what: &str| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("invalid epd_score: {what}"));
        let distance =
            || u32::try_from(self.value).ok().filter(|&n| n >= 1).ok_or_else(|| bad("a mate distance is 1 or more"));
        match self.kind {
            EPD_SCORE_CENTIPAWNS => {
                let c = i32::try_from(self.value)
                    .ok()
                    .filter(|c| c.abs() <= 32000)
                    .ok_or_else(|| bad("centipawns must be from -32000 to 32000"))?;
                Ok(Score::Centipawns(c))
            }
            EPD_SCORE_MATE_IN => Ok(Score::MateIn(distance()?)),
            EPD_SCORE_MATED_IN => Ok(Score::MatedIn(distance()?)),
            EPD_SCORE_CHECKMATED => Ok(Score::Checkmated),
            EPD_SCORE_ILLEGAL_POSITION => Ok(Score::IllegalPosition),
            _ => Err(bad("unknown kind")),
        }
    }
}

fn to_long(v: i64) -> Result<c_long> {
    c_long::try_from(v).map_err(|_| Error::new(EPD_STATUS_OUT_OF_RANGE, format!("{v} does not fit a C long")))
}

/// Reads a ce value into *out_score. EPD_STATUS_OUT_OF_RANGE outside
/// -32768..32766. In-band values the formula never produces (32765, say)
/// read as the nearest mate.
#[no_mangle]
pub extern "C" fn epd_score_from_ce(ce: c_long, out_score: *mut epd_score) -> epd_status {
    guard(|| {
        let out = Out::new(out_score, "out_score")?;
        let s = Score::from_ce(i64::from(ce)).map_err(|e| Error::new(EPD_STATUS_OUT_OF_RANGE, e.to_string()))?;
        out.set(epd_score::from_core(s));
        Ok(())
    })
}

/// The ce value of a score in *out_ce (mates too long for the band are
/// clamped to its edge: mate in 383 is the longest that fits).
#[no_mangle]
pub extern "C" fn epd_score_to_ce(score: epd_score, out_ce: *mut c_long) -> epd_status {
    guard(|| {
        let out = Out::new(out_ce, "out_ce")?;
        out.set(to_long(score.to_core()?.to_ce())?);
        Ok(())
    })
}

/// Sets *out_exact to 1 if `ce` is a value the section 6.7 formula produces (or a
/// plain centipawn value), 0 otherwise.
#[no_mangle]
pub extern "C" fn epd_ce_is_exact(ce: c_long, out_exact: *mut c_int) -> epd_status {
    guard(|| {
        Out::new(out_exact, "out_exact")?.set(c_int::from(Score::is_exact_ce(i64::from(ce))));
        Ok(())
    })
}

/// The ce value of a mate: `moves` > 0 means the side to move mates in
/// `moves` fullmoves, < 0 that it is mated in -`moves`, 0 that it is
/// checkmated (as UCI "score mate N").
#[no_mangle]
pub extern "C" fn epd_ce_from_mate(moves: c_long, out_ce: *mut c_long) -> epd_status {
    guard(|| {
        let out = Out::new(out_ce, "out_ce")?;
        out.set(to_long(Score::from_uci_mate(i64::from(moves)).to_ce())?);
        Ok(())
    })
}

/// The mate distance of a ce value, as epd_ce_from_mate counts it, in
/// *out_moves; EPD_STATUS_NOT_FOUND if `ce` is not a mate score.
#[no_mangle]
pub extern "C" fn epd_ce_to_mate(ce: c_long, out_moves: *mut c_long) -> epd_status {
    guard(|| {
        let out = Out::new(out_moves, "out_moves")?;
        let s = Score::from_ce(i64::from(ce)).map_err(|e| Error::new(EPD_STATUS_OUT_OF_RANGE, e.to_string()))?;
        match s.to_uci() {
            ("mate", n) => out.set(to_long(n)?),
            _ => return Err(Error::new(EPD_STATUS_NOT_FOUND, format!("ce {ce} is not a mate score"))),
        }
        Ok(())
    })
}

/// The score of a dm value (the side to move mates in `dm` fullmoves,
/// `dm` >= 1).
#[no_mangle]
pub extern "C" fn epd_score_from_dm(dm: c_ulong, out_score: *mut epd_score) -> epd_status {
    guard(|| {
        let out = Out::new(out_score, "out_score")?;
        let n = u32::try_from(dm)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| Error::new(EPD_STATUS_OUT_OF_RANGE, format!("dm {dm} is not in 1..2^32-1")))?;
        out.set(epd_score::from_core(Score::from_dm(n)));
        Ok(())
    })
}

/// The dm value of a score in *out_dm; EPD_STATUS_NOT_FOUND unless the
/// score is a mate for the side to move.
#[no_mangle]
pub extern "C" fn epd_score_to_dm(score: epd_score, out_dm: *mut c_ulong) -> epd_status {
    guard(|| {
        let out = Out::new(out_dm, "out_dm")?;
        let dm = score
            .to_core()?
            .to_dm()
            .ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, "the score is not a mate for the side to move"))?;
        out.set(c_ulong::from(dm));
        Ok(())
    })
}

/// The score of a UCI engine's "score cp N" (clamped to -32000..32000).
#[no_mangle]
pub extern "C" fn epd_score_from_uci_cp(cp: c_long, out_score: *mut epd_score) -> epd_status {
    guard(|| {
        Out::new(out_score, "out_score")?.set(epd_score::from_core(Score::from_uci_cp(i64::from(cp))));
        Ok(())
    })
}

/// The score of a UCI engine's "score mate N": N > 0 mates in N, N < 0 is
/// mated in -N, 0 is checkmated.
#[no_mangle]
pub extern "C" fn epd_score_from_uci_mate(mate: c_long, out_score: *mut epd_score) -> epd_status {
    guard(|| {
        Out::new(out_score, "out_score")?.set(epd_score::from_core(Score::from_uci_mate(i64::from(mate))));
        Ok(())
    })
}

/// The score in UCI terms: *out_is_mate is 1 for "score mate N" (N in
/// *out_value) and 0 for "score cp N".
#[no_mangle]
pub extern "C" fn epd_score_to_uci(score: epd_score, out_is_mate: *mut c_int, out_value: *mut c_long) -> epd_status {
    guard(|| {
        let is_mate = Out::new(out_is_mate, "out_is_mate")?;
        let value = Out::new(out_value, "out_value")?;
        let (kind, n) = score.to_core()?.to_uci();
        let n = to_long(n)?;
        is_mate.set(c_int::from(kind == "mate"));
        value.set(n);
        Ok(())
    })
}

/// The score after a move, from the other side's point of view (mate in 1
/// becomes checkmated; mated in N becomes mate in N).
#[no_mangle]
pub extern "C" fn epd_score_after_move(score: epd_score, out_score: *mut epd_score) -> epd_status {
    guard(|| {
        let out = Out::new(out_score, "out_score")?;
        out.set(epd_score::from_core(score.to_core()?.after_move()));
        Ok(())
    })
}

/// The score as text ("+1.25", "#3" mate in 3, "#-2" mated in 2, "#0",
/// "illegal") in a new string *out_text (owned: free it with
/// epd_string_free).
#[no_mangle]
pub extern "C" fn epd_score_format(score: epd_score, out_text: *mut *mut c_char) -> epd_status {
    guard(|| {
        let out = Out::new(out_text, "out_text")?;
        out.set(owned_string(score.to_core()?.to_string().into_bytes())?);
        Ok(())
    })
}
