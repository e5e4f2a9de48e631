//! Go's `time.ParseDuration`, step for step: Kubernetes and its neighbours
//! (a CronJob's `@every`, cert-manager's certificate lifetimes) read
//! durations with it, so a duration is valid here exactly when Go reads it.
//!
//! ```
//! use kubernetes::duration::{parse, DurationError};
//!
//! assert_eq!(parse("1h30m"), Ok(5_400_000_000_000));
//! assert_eq!(parse("-1.5us"), Ok(-1_500));
//! assert_eq!(parse("0"), Ok(0));
//! assert_eq!(parse("1d"), Err(DurationError::UnknownUnit("d".to_owned())));
//! assert_eq!(parse("3000000h"), Err(DurationError::TooLong));
//! ```

use std::fmt;

/// Why Go refuses a duration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// Not of the form `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or empty.
    Invalid,
    /// A number without its unit.
    MissingUnit,
    /// A unit Go does not know (it knows ns, us, µs, μs, ms, s, m, h).
    UnknownUnit(String),
    /// More than 2^63-1 nanoseconds (about 2562047h47m16.854775807s).
    TooLong,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurationError::Invalid => f.write_str("not a duration such as 1h30m or 90s"),
            DurationError::MissingUnit => {
                f.write_str("a number without its unit (ns, us, ms, s, m or h)")
            }
            DurationError::UnknownUnit(unit) => write!(
                f,
                "`{unit}` is not a unit of a Go duration (ns, us, µs, ms, s, m or h)"
            ),
            DurationError::TooLong => {
                f.write_str("longer than a Go duration holds (2562047h47m16.854775807s)")
            }
        }
    }
}

impl std::error::Error for DurationError {}

/// 2^63, the bound Go's reader compares against before the sign is applied.
const BOUND: u64 = 1 << 63;

/// The duration `text` names, in nanoseconds, as `time.ParseDuration`
/// reads it: an optional sign, then numbers each with a unit; fractions
/// are scaled through a 64-bit float, as Go scales them.
pub fn parse(text: &str) -> Result<i64, DurationError> {
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(DurationError::Invalid);
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !(rest.starts_with('.') || rest.as_bytes()[0].is_ascii_digit()) {
            return Err(DurationError::Invalid);
        }
        let (whole, after) = leading_int(rest)?;
        let before_point = after.len() != rest.len();
        rest = after;
        let (mut fraction, mut scale, mut after_point) = (0u64, 1f64, false);
        if let Some(tail) = rest.strip_prefix('.') {
            let (f, s, after) = leading_fraction(tail);
            (fraction, scale, after_point) = (f, s, after.len() != tail.len());
            rest = after;
        }
        if !before_point && !after_point {
            return Err(DurationError::Invalid);
        }
        let unit_len = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(DurationError::MissingUnit);
        }
        let unit_text = &rest[..unit_len];
        rest = &rest[unit_len..];
        let unit: u64 = match unit_text {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(DurationError::UnknownUnit(unit_text.to_owned())),
        };
        if whole > BOUND / unit {
            return Err(DurationError::TooLong);
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // As Go: the fraction through a float, truncated toward zero.
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > BOUND {
                return Err(DurationError::TooLong);
            }
        }
        total += value;
        if total > BOUND {
            return Err(DurationError::TooLong);
        }
    }
    match negative {
        // -2^63 is the one value only a negative duration reaches.
        true => Ok((total as i64).wrapping_neg()),
        false if total > BOUND - 1 => Err(DurationError::TooLong),
        false => Ok(total as i64),
    }
}

/// The leading digits of `text` as a number, and what follows them; past
/// 2^63 is [`DurationError::TooLong`].
fn leading_int(text: &str) -> Result<(u64, &str), DurationError> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: u64 = 0;
    for digit in text[..digits].bytes() {
        if value > BOUND / 10 {
            return Err(DurationError::TooLong);
        }
        value = value * 10 + u64::from(digit - b'0');
        if value > BOUND {
            return Err(DurationError::TooLong);
        }
    }
    Ok((value, &text[digits..]))
}

/// The leading digits of a fraction, its scale (10 to the digits kept) and
/// what follows; digits past what 63 bits hold are read but not kept.
fn leading_fraction(text: &str) -> (u64, f64, &str) {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (mut value, mut scale, mut full) = (0u64, 1f64, false);
    for digit in text[..digits].bytes() {
        if full || value > (BOUND - 1) / 10 {
            full = true;
            continue;
        }
        let next = value * 10 + u64::from(digit - b'0');
        if next > BOUND {
            full = true;
            continue;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale, &text[digits..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_reads_them() {
        for (text, ns) in [
            ("0", 0),
            ("-0", 0),
            ("+0", 0),
            ("0s", 0),
            ("1h30m", 5_400_000_000_000),
            ("90m", 5_400_000_000_000),
            ("1.5h", 5_400_000_000_000),
            (".5s", 500_000_000),
            ("5.s", 5_000_000_000),
            ("1µs", 1_000),
            ("1μs", 1_000),
            ("1us2ns", 1_002),
            ("-1h", -3_600_000_000_000),
            // Below a nanosecond is dropped, as Go's float truncates it.
            ("1.0000000009s", 1_000_000_000),
            ("2562047h47m16.854775807s", i64::MAX),
            ("-2562047h47m16.854775808s", i64::MIN),
            // Digits past 63 bits of fraction are read, not kept.
            ("0.100000000000000000000000000000000001s", 100_000_000),
        ] {
            assert_eq!(parse(text), Ok(ns), "{text}");
        }
        for (text, error) in [
            ("", DurationError::Invalid),
            ("-", DurationError::Invalid),
            ("s", DurationError::Invalid),
            (".s", DurationError::Invalid),
            ("1h 30m", DurationError::UnknownUnit("h ".to_owned())),
            (" 1h", DurationError::Invalid),
            ("1", DurationError::MissingUnit),
            ("1h1", DurationError::MissingUnit),
            ("1d", DurationError::UnknownUnit("d".to_owned())),
            ("1H", DurationError::UnknownUnit("H".to_owned())),
            ("2562047h47m16.854775808s", DurationError::TooLong),
            ("9223372036854775808ns", DurationError::TooLong),
            ("99999999999999999999ns", DurationError::TooLong),
        ] {
            assert_eq!(parse(text), Err(error), "{text}");
        }
    }
}
