//! Operand basetypes (§5.2) that are not moves: integers, floats, dates,
//! times of day, clocks, identifiers; and string quoting.

use core::fmt;

/// A date, `YYYY.MM.DD` (§5.2.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    /// 1..=9999.
    pub year: u16,
    /// 1..=12.
    pub month: u8,
    /// 1..=31.
    pub day: u8,
}

/// A time of day, `HH:MM:SS` (§5.2.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeOfDay {
    /// 0..=23.
    pub hour: u8,
    /// 0..=59.
    pub minute: u8,
    /// 0..=59.
    pub second: u8,
}

/// A clock reading, `DDD:HH:MM:SS` (§5.2.7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Clock {
    /// 0..=999.
    pub days: u16,
    /// 0..=23.
    pub hours: u8,
    /// 0..=59.
    pub minutes: u8,
    /// 0..=59.
    pub seconds: u8,
}

fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0')))
}

impl Date {
    /// Parses `YYYY.MM.DD`.
    #[must_use]
    pub fn from_ascii(s: &[u8]) -> Option<Date> {
        if s.len() != 10 || s[4] != b'.' || s[7] != b'.' {
            return None;
        }
        let (y, m, d) = (digits(&s[0..4])?, digits(&s[5..7])?, digits(&s[8..10])?);
        if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
            return None;
        }
        Some(Date { year: y as u16, month: m as u8, day: d as u8 })
    }
}

impl TimeOfDay {
    /// Parses `HH:MM:SS`.
    #[must_use]
    pub fn from_ascii(s: &[u8]) -> Option<TimeOfDay> {
        if s.len() != 8 || s[2] != b':' || s[5] != b':' {
            return None;
        }
        let (h, m, sec) = (digits(&s[0..2])?, digits(&s[3..5])?, digits(&s[6..8])?);
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        Some(TimeOfDay { hour: h as u8, minute: m as u8, second: sec as u8 })
    }
}

impl Clock {
    /// Parses `DDD:HH:MM:SS`.
    #[must_use]
    pub fn from_ascii(s: &[u8]) -> Option<Clock> {
        if s.len() != 12 || s[3] != b':' || s[6] != b':' || s[9] != b':' {
            return None;
        }
        let (d, h, m, sec) = (digits(&s[0..3])?, digits(&s[4..6])?, digits(&s[7..9])?, digits(&s[10..12])?);
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        Some(Clock { days: d as u16, hours: h as u8, minutes: m as u8, seconds: sec as u8 })
    }

    /// The clock reading in seconds.
    #[must_use]
    pub fn total_seconds(self) -> u64 {
        ((u64::from(self.days) * 24 + u64::from(self.hours)) * 60 + u64::from(self.minutes)) * 60
            + u64::from(self.seconds)
    }

    /// The clock for a number of seconds (days capped at 999).
    #[must_use]
    pub fn from_seconds(total: u64) -> Clock {
        let days = (total / 86_400).min(999);
        let rest = if total / 86_400 > 999 { 86_399 } else { total % 86_400 };
        Clock {
            days: days as u16,
            hours: (rest / 3600) as u8,
            minutes: (rest / 60 % 60) as u8,
            seconds: (rest % 60) as u8,
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:03}:{:02}:{:02}:{:02}", self.days, self.hours, self.minutes, self.seconds)
    }
}

/// Why an integer operand was rejected.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntegerError {
    /// Not an optional sign followed by digits.
    Syntax,
    /// Outside the 64-bit signed range.
    Overflow,
}

/// Parses an integer operand: optional `+` or `-`, then digits (§5.2.3).
/// Values are exact over the whole 64-bit signed range.
///
/// # Errors
/// [`IntegerError`].
pub fn parse_integer(s: &[u8]) -> Result<i64, IntegerError> {
    let (neg, body) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if body.is_empty() || !body.iter().all(u8::is_ascii_digit) {
        return Err(IntegerError::Syntax);
    }
    let mut v: i64 = 0;
    for &d in body {
        let digit = i64::from(d - b'0');
        v = v
            .checked_mul(10)
            .and_then(|v| if neg { v.checked_sub(digit) } else { v.checked_add(digit) })
            .ok_or(IntegerError::Overflow)?;
    }
    Ok(v)
}

/// `true` if `s` is a floating operand: optional sign, digits, `.`, digits
/// (§5.2.4).
#[must_use]
pub fn is_float(s: &[u8]) -> bool {
    let body = match s {
        [b'-' | b'+', rest @ ..] => rest,
        _ => s,
    };
    match body.iter().position(|&b| b == b'.') {
        Some(dot) => {
            let (a, b) = (&body[..dot], &body[dot + 1..]);
            !a.is_empty() && !b.is_empty() && a.iter().all(u8::is_ascii_digit) && b.iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// `true` if `s` is an identifier (§5.2.1): 1 to 15 letters, digits or
/// underscores.
#[must_use]
pub fn is_identifier(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 15 && s.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Writes a string operand with its quotes.
///
/// The specification allows neither `"` nor `\` inside a string; EPD Kit
/// writes them as `\"` and `\\` (and reads those escapes back), so every
/// string round-trips. Strings without either character are written as
/// the specification has them.
pub fn append_quoted(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    if s.iter().any(|&b| b == b'"' || b == b'\\') {
        for &b in s {
            if b == b'"' || b == b'\\' {
                out.push(b'\\');
            }
            out.push(b);
        }
    } else {
        out.extend_from_slice(s);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basetypes() {
        assert_eq!(Date::from_ascii(b"1995.11.26"), Some(Date { year: 1995, month: 11, day: 26 }));
        for bad in ["1995.13.01", "0000.01.01", "95.11.26", "1995-11-26", "1995.11.32"] {
            assert_eq!(Date::from_ascii(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(TimeOfDay::from_ascii(b"23:59:59").map(|t| t.to_string()), Some("23:59:59".into()));
        assert_eq!(TimeOfDay::from_ascii(b"24:00:00"), None);
        let c = Clock::from_ascii(b"001:02:03:04").unwrap();
        assert_eq!(c.to_string(), "001:02:03:04");
        assert_eq!(c.total_seconds(), 86_400 + 2 * 3600 + 3 * 60 + 4);
        assert_eq!(Clock::from_seconds(c.total_seconds()), c);
        assert_eq!(Clock::from_ascii(b"01:02:03:04"), None);
    }

    #[test]
    fn integers_are_exact_and_checked() {
        assert_eq!(parse_integer(b"8031647685"), Ok(8_031_647_685));
        assert_eq!(parse_integer(b"-32768"), Ok(-32768));
        assert_eq!(parse_integer(b"+5"), Ok(5));
        assert_eq!(parse_integer(b"9223372036854775807"), Ok(i64::MAX));
        assert_eq!(parse_integer(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_integer(b"9223372036854775808"), Err(IntegerError::Overflow));
        assert_eq!(parse_integer(b"99999999999999999999999"), Err(IntegerError::Overflow));
        for bad in ["", "-", "+", "1.0", "1e5", "0x10", "12a"] {
            assert_eq!(parse_integer(bad.as_bytes()), Err(IntegerError::Syntax), "{bad}");
        }
        assert!(is_float(b"-1.25"));
        assert!(!is_float(b"1."));
        assert!(!is_float(b".5"));
    }

    #[test]
    fn quoting_escapes_only_what_it_must() {
        let mut out = Vec::new();
        append_quoted(b"WAC.001", &mut out);
        assert_eq!(out, b"\"WAC.001\"");
        out.clear();
        append_quoted(b"say \"hi\" \\o/", &mut out);
        assert_eq!(out, b"\"say \\\"hi\\\" \\\\o/\"");
    }
}
