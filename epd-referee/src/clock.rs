//! Time controls in PGN's `TimeControl` syntax and the clock of one side.
//!
//! A time control is one or more periods separated by `:`; each period is
//! `MOVES/SECONDS` (that many moves in that time), `SECONDS` (sudden
//! death: the rest of the game), with `+INCREMENT` seconds added after
//! each move; or the whole control is `*SECONDS`, a fixed time for every
//! move. Seconds may have a fraction down to the millisecond (`5+0.05`).
//! When the last period has a move count it repeats (`40/7200` is 40
//! moves in two hours, then 40 more in two more hours ...). `-` is no
//! clock at all: the players' own limits (depth, nodes, a time per move)
//! bound each search, nothing runs down and nobody loses on time, and the
//! PGN says `TimeControl "-"` as fastchess writes it. `?` (unknown) is
//! not a time control a referee can keep.

use core::fmt;
use std::time::Duration;

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// Moves to make in the period; `None`: the rest of the game.
    pub moves: Option<u32>,
    /// Time for the period.
    pub time: Duration,
    /// Added after each move of the period.
    pub increment: Duration,
}

/// A time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Periods played in order, the last one repeating if it has a move
    /// count.
    Periods(Vec<Period>),
    /// The same time for every move, none carried over (`*SECONDS`).
    PerMove(Duration),
    /// No clock (`-`): searches are bounded by the players' own limits.
    Unlimited,
}

/// Why a `TimeControl` string could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControlError {
    /// Byte offset in the string.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "time control, column {}: {}", self.offset + 1, self.message)
    }
}

impl std::error::Error for TimeControlError {}

/// Reads seconds with an optional fraction of up to three digits, at
/// `offset` in the whole string (for errors).
fn seconds(s: &str, offset: usize) -> Result<Duration, TimeControlError> {
    let err = |m: &str| TimeControlError { offset, message: format!("{m}: {s:?}") };
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err("expected seconds, such as 300 or 0.05"));
    }
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) || (s.contains('.') && frac.is_empty()) {
        return Err(err("at most three digits after the point"));
    }
    let secs: u64 = whole.parse().map_err(|_| err("too many seconds"))?;
    if secs > 1_000_000_000 {
        return Err(err("too many seconds"));
    }
    let millis: u64 = format!("{frac:0<3}").parse().unwrap_or(0);
    Ok(Duration::from_secs(secs) + Duration::from_millis(millis))
}

/// `5400`, `0.05`: the shortest text for a duration in seconds.
fn show_seconds(d: Duration) -> String {
    let ms = d.subsec_millis();
    if ms == 0 {
        d.as_secs().to_string()
    } else {
        format!("{}.{}", d.as_secs(), format!("{ms:03}").trim_end_matches('0'))
    }
}

impl core::str::FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(s: &str) -> Result<TimeControl, TimeControlError> {
        if let Some(rest) = s.strip_prefix('*') {
            let t = seconds(rest, 1)?;
            if t.is_zero() {
                return Err(TimeControlError { offset: 1, message: "a move needs some time".into() });
            }
            return Ok(TimeControl::PerMove(t));
        }
        if s == "-" {
            return Ok(TimeControl::Unlimited);
        }
        if s == "?" || s.is_empty() {
            return Err(TimeControlError {
                offset: 0,
                message: format!("{s:?} sets no clock; write 300+3, 40/5400+30, *10 or - (none)"),
            });
        }
        let mut periods = Vec::new();
        let mut offset = 0;
        for field in s.split(':') {
            let (moves, rest, at) = match field.split_once('/') {
                Some((m, r)) => {
                    let n: u32 = m.parse().ok().filter(|&n| n > 0).ok_or_else(|| TimeControlError {
                        offset,
                        message: format!("expected a number of moves before '/': {m:?}"),
                    })?;
                    (Some(n), r, offset + m.len() + 1)
                }
                None => (None, field, offset),
            };
            let (time, inc) = match rest.split_once('+') {
                Some((t, i)) => (seconds(t, at)?, seconds(i, at + t.len() + 1)?),
                None => (seconds(rest, at)?, Duration::ZERO),
            };
            if time.is_zero() && inc.is_zero() {
                return Err(TimeControlError { offset: at, message: "a period with no time".into() });
            }
            if !periods.is_empty() && matches!(periods.last(), Some(Period { moves: None, .. })) {
                return Err(TimeControlError { offset, message: "nothing can follow a sudden-death period".into() });
            }
            periods.push(Period { moves, time, increment: inc });
            offset += field.len() + 1;
        }
        Ok(TimeControl::Periods(periods))
    }
}

impl fmt::Display for TimeControl {
    /// The PGN `TimeControl` text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::PerMove(t) => write!(f, "*{}", show_seconds(*t)),
            TimeControl::Unlimited => f.write_str("-"),
            TimeControl::Periods(ps) => {
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    if let Some(m) = p.moves {
                        write!(f, "{m}/")?;
                    }
                    f.write_str(&show_seconds(p.time))?;
                    if !p.increment.is_zero() {
                        write!(f, "+{}", show_seconds(p.increment))?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// A side ran out of time: it needed `used`, it had `remaining`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged {
    /// The time the move took.
    pub used: Duration,
    /// The time the side had.
    pub remaining: Duration,
}

/// The clock of one side under a time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    remaining: Duration,
    /// Index of the current period (the last one repeats).
    period: usize,
    /// Moves made in the current period.
    made: u32,
}

impl Clock {
    /// The time control this clock keeps.
    #[must_use]
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// A clock at the start of the game.
    #[must_use]
    pub fn new(control: &TimeControl) -> Clock {
        let remaining = match control {
            TimeControl::PerMove(t) => *t,
            TimeControl::Periods(ps) => ps.first().map_or(Duration::ZERO, |p| p.time),
            TimeControl::Unlimited => Duration::ZERO,
        };
        Clock { control: control.clone(), remaining, period: 0, made: 0 }
    }

    /// A clock resumed with `remaining` time after `moves` moves of its
    /// side (a game continued from a record).
    #[must_use]
    pub fn resumed(control: &TimeControl, moves: u32, remaining: Duration) -> Clock {
        let mut c = Clock::new(control);
        for _ in 0..moves {
            c.advance();
        }
        c.remaining = remaining;
        c
    }

    /// The time left for the current move (or period); zero, and not to
    /// be shown, when the clock does not run ([`Clock::is_running`]).
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.remaining
    }

    /// `false` under no clock (`-`): no time to show, no flag to fall.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.control != TimeControl::Unlimited
    }

    fn current(&self) -> Option<&Period> {
        match &self.control {
            TimeControl::PerMove(_) | TimeControl::Unlimited => None,
            TimeControl::Periods(ps) => ps.get(self.period.min(ps.len().saturating_sub(1))),
        }
    }

    /// Moves left before the next time control (UCI `movestogo`), if the
    /// current period has a move count.
    #[must_use]
    pub fn moves_to_go(&self) -> Option<u32> {
        match &self.control {
            TimeControl::PerMove(_) => Some(1),
            TimeControl::Unlimited => None,
            TimeControl::Periods(_) => self.current().and_then(|p| p.moves).map(|m| m - self.made),
        }
    }

    /// The increment after each move of the current period.
    #[must_use]
    pub fn increment(&self) -> Duration {
        self.current().map_or(Duration::ZERO, |p| p.increment)
    }

    /// Charges a move that took `used`. A move that took more than the
    /// time left flags (the clock is left as it was, at zero left).
    ///
    /// # Errors
    /// [`Flagged`] when `used` is more than the time left.
    pub fn charge(&mut self, used: Duration) -> Result<(), Flagged> {
        if !self.is_running() {
            return Ok(());
        }
        if used > self.remaining {
            let f = Flagged { used, remaining: self.remaining };
            self.remaining = Duration::ZERO;
            return Err(f);
        }
        self.remaining -= used;
        self.advance();
        Ok(())
    }

    /// After a move: the increment, and the next period's time when the
    /// period's moves are made; a fresh allowance under `*SECONDS`.
    fn advance(&mut self) {
        match &self.control {
            TimeControl::Unlimited => {}
            TimeControl::PerMove(t) => self.remaining = *t,
            TimeControl::Periods(ps) => {
                let last = ps.len().saturating_sub(1);
                let p = ps[self.period.min(last)];
                self.remaining += p.increment;
                self.made += 1;
                if p.moves.is_some_and(|m| self.made >= m) {
                    self.period = (self.period + 1).min(last);
                    self.made = 0;
                    self.remaining += ps[self.period].time;
                }
            }
        }
    }
}

/// The one rounding of a side's times to whole milliseconds, for what
/// clients are told (`Ccms`, `Rtms`) and what the PGN records (`[%emt]`,
/// `[%clk]`) alike: `used`, the side's time used in all (exact), to the
/// nearest millisecond (halves up), and its clock as the nearest
/// millisecond of its whole budget (used plus `remaining`) less that.
/// Both come from exact sums, so a move's emt (the difference of two
/// successive `used`) makes the emts add up to the time used, and on
/// every move the previous clock less the emt plus the increment is the
/// next clock, to the millisecond. Returns `(used, clock)`.
#[must_use]
pub(crate) fn shown_ms(used: Duration, remaining: Duration) -> (u64, u64) {
    let used_ms = round_ms(used.as_nanos());
    (used_ms, round_ms(used.as_nanos() + remaining.as_nanos()).saturating_sub(used_ms))
}

/// Nanoseconds to the nearest millisecond (halves up).
#[must_use]
pub(crate) fn round_ms(ns: u128) -> u64 {
    u64::try_from((ns + 500_000) / 1_000_000).unwrap_or(u64::MAX)
}

/// `h:mm:ss` or, with a fraction, `h:mm:ss.fff` (PGN `[%clk]`/`[%emt]`).
#[must_use]
pub fn hms(d: Duration) -> String {
    let s = d.as_secs();
    let ms = d.subsec_millis();
    let base = format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if ms == 0 {
        base
    } else {
        format!("{base}.{ms:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn reads_and_writes_pgn_time_controls() {
        for (text, tc) in [
            ("300+3", TimeControl::Periods(vec![Period { moves: None, time: ms(300_000), increment: ms(3000) }])),
            ("5+0.05", TimeControl::Periods(vec![Period { moves: None, time: ms(5000), increment: ms(50) }])),
            (
                "40/5400+30",
                TimeControl::Periods(vec![Period { moves: Some(40), time: ms(5_400_000), increment: ms(30_000) }]),
            ),
            (
                "40/7200:3600",
                TimeControl::Periods(vec![
                    Period { moves: Some(40), time: ms(7_200_000), increment: Duration::ZERO },
                    Period { moves: None, time: ms(3_600_000), increment: Duration::ZERO },
                ]),
            ),
            ("*10", TimeControl::PerMove(ms(10_000))),
            ("*0.5", TimeControl::PerMove(ms(500))),
            ("-", TimeControl::Unlimited),
        ] {
            let parsed: TimeControl = text.parse().unwrap();
            assert_eq!(parsed, tc, "{text}");
            assert_eq!(parsed.to_string(), text);
        }
        for (bad, at) in [
            ("?", 1),
            ("", 1),
            ("40/", 4),
            ("/300", 1),
            ("300+", 5),
            ("3:00", 3),
            ("300:40/60", 5),
            ("0", 1),
            ("1.2345", 1),
            ("*0", 2),
            ("x+1", 1),
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err();
            assert_eq!(e.offset + 1, at, "{bad}: {e}");
        }
    }

    #[test]
    fn the_clock_follows_periods_increments_and_flags() {
        // 2 moves in 10 s, then 5 s sudden death with 1 s increments.
        let tc: TimeControl = "2/10:5+1".parse().unwrap();
        let mut c = Clock::new(&tc);
        assert_eq!((c.remaining(), c.moves_to_go()), (ms(10_000), Some(2)));
        c.charge(ms(4000)).unwrap();
        assert_eq!((c.remaining(), c.moves_to_go()), (ms(6000), Some(1)));
        c.charge(ms(1000)).unwrap();
        // Period made: 5 s added, increments from now on.
        assert_eq!((c.remaining(), c.moves_to_go(), c.increment()), (ms(10_000), None, ms(1000)));
        c.charge(ms(2500)).unwrap();
        assert_eq!(c.remaining(), ms(8500));
        assert_eq!(c.charge(ms(8501)), Err(Flagged { used: ms(8501), remaining: ms(8500) }));
        assert_eq!(c.remaining(), Duration::ZERO);

        // A repeating last period: 40/7200 is 40 moves in 2 h, again.
        let tc: TimeControl = "40/7200".parse().unwrap();
        let mut c = Clock::new(&tc);
        for _ in 0..40 {
            c.charge(ms(100_000)).unwrap();
        }
        assert_eq!((c.remaining(), c.moves_to_go()), (ms(7_200_000 - 4_000_000 + 7_200_000), Some(40)));

        // Per move: the same allowance every move.
        let mut c = Clock::new(&"*10".parse().unwrap());
        c.charge(ms(9000)).unwrap();
        assert_eq!(c.remaining(), ms(10_000));
        assert!(c.charge(ms(10_001)).is_err());

        // Resumed after 3 moves of 2/10:5+1 with 7 s left.
        let c = Clock::resumed(&"2/10:5+1".parse().unwrap(), 3, ms(7000));
        assert_eq!((c.remaining(), c.moves_to_go(), c.increment()), (ms(7000), None, ms(1000)));
    }

    /// No clock: nothing runs down, nothing flags, nothing to show.
    #[test]
    fn no_clock_never_flags() {
        let mut c = Clock::new(&TimeControl::Unlimited);
        assert!(!c.is_running());
        for _ in 0..3 {
            assert_eq!(c.charge(ms(86_400_000 * 7)), Ok(()));
        }
        assert_eq!((c.remaining(), c.moves_to_go(), c.increment()), (Duration::ZERO, None, Duration::ZERO));
        assert!(Clock::new(&"1+0.1".parse().unwrap()).is_running());
    }

    #[test]
    fn clock_comments() {
        assert_eq!(hms(ms(3_723_000)), "1:02:03");
        assert_eq!(hms(ms(4_050)), "0:00:04.050");
        assert_eq!(hms(Duration::ZERO), "0:00:00");
    }
}
