//! Kubernetes' resource quantities (`resource.Quantity`), read to the exact
//! value the API server stores and compared exactly: `700m` and `0.7` are
//! one amount, `1Gi` is more than `1G`. Never through a float.
//!
//! The grammar (apimachinery `ParseQuantity`; its suffixer also knows `n`
//! and `u`, which its documentation leaves out):
//!
//! ```text
//! quantity  ::= sign? number suffix
//! number    ::= digits | digits "." digits? | "." digits
//! suffix    ::= "" | n | u | m | k | M | G | T | P | E (decimal SI)
//!             | Ki | Mi | Gi | Ti | Pi | Ei           (binary SI)
//!             | (e | E) sign? digits                  (decimal exponent, an int32)
//! ```
//!
//! What the API server keeps is the value rounded up (away from zero) to a
//! whole nano (10⁻⁹: "if you want some resources you get some"); a binary
//! SI amount (`Ki` to `Ei`) is capped at 2⁶³−1 in magnitude, a decimal one
//! is not (`10E` is more than `9.5E`, and both more than `8Ei`). The stored
//! value is so an integer number of nanos, which an `i128` holds exactly up
//! to 10³⁶ nanos (10²⁷ base units, a billion times any resource a cluster
//! has): that is this type, and a decimal amount beyond is taken as 10²⁷.
//! A hostile exponent (`1e2147483647`) or a hundred thousand digits cost
//! their length, never their magnitude.

use std::fmt;

/// 2⁶³−1 base units, in nanos: the largest magnitude the API server keeps
/// of a binary SI amount.
const BINARY_MAX_NANOS: i128 = (i64::MAX as i128) * 1_000_000_000;

/// 10²⁷ base units, in nanos: the largest magnitude kept here of any
/// amount (a decimal one, or a sum).
const MAX_NANOS: i128 = 10_i128.pow(36);

/// Digits of [`MAX_NANOS`].
const MAX_DIGITS: i64 = 37;

/// An exact quantity: a whole number of nano base units (cores, bytes), as
/// the API server stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity {
    nanos: i128,
}

impl Quantity {
    /// Zero.
    pub const ZERO: Quantity = Quantity { nanos: 0 };

    /// Reads `text` as the API server does; the error says why it is no
    /// quantity, in words a user can act on.
    pub fn parse(text: &str) -> Result<Quantity, String> {
        parse(text)
    }

    /// Reads `text`, a quantity written as a string of a manifest, as the
    /// API server decodes it once a client such as kubectl has sent it as
    /// JSON: with the white space around it that JSON leaves unescaped
    /// trimmed (see [`decoded`]).
    ///
    /// ```
    /// use kubernetes::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::decode(" 1Ki "), Quantity::parse("1Ki"));
    /// assert!(Quantity::decode("\t1").is_err());
    /// ```
    pub fn decode(text: &str) -> Result<Quantity, String> {
        parse(decoded(text))
    }

    /// The amount in nano base units.
    pub fn nanos(self) -> i128 {
        self.nanos
    }

    /// Whether the amount is below zero.
    pub fn is_negative(self) -> bool {
        self.nanos < 0
    }

    /// The sum (which the API server does not cap), at most 10²⁷ base
    /// units in magnitude as any amount here.
    pub fn saturating_add(self, other: Quantity) -> Quantity {
        Quantity {
            nanos: (self.nanos + other.nanos).clamp(-MAX_NANOS, MAX_NANOS),
        }
    }

    /// The amount in whole base units, rounded away from zero
    /// (`Quantity.Value()`).
    pub fn value(self) -> i128 {
        scaled(self.nanos, 1_000_000_000)
    }

    /// The amount in thousandths of a base unit, rounded away from zero
    /// (`Quantity.MilliValue()`).
    pub fn milli_value(self) -> i128 {
        scaled(self.nanos, 1_000_000)
    }

    /// The text the API server writes for an amount of a resource list
    /// that its defaults round (`SetDefaults_ResourceList`: `RoundUp(-3)`,
    /// away from zero, to a whole thousandth) before it validates: `None`
    /// where the amount is whole thousandths already and stays as
    /// written, else the rounded amount in decimal SI (`1500u` is `2m`,
    /// `1n` is `1m`, `0.9999` is `1`).
    ///
    /// ```
    /// use kubernetes::quantity::Quantity;
    ///
    /// let text = |t: &str| Quantity::parse(t).unwrap().rounded_to_milli();
    /// assert_eq!(text("1500u").as_deref(), Some("2m"));
    /// assert_eq!(text("0.9999").as_deref(), Some("1"));
    /// assert_eq!(text("-1n").as_deref(), Some("-1m"));
    /// assert_eq!(text("1.5m"), Some("2m".to_owned()));
    /// assert_eq!(text("999.9999").as_deref(), Some("1k"));
    /// assert_eq!(text("1Gi"), None);
    /// ```
    pub fn rounded_to_milli(self) -> Option<String> {
        if self.nanos % 1_000_000 == 0 {
            return None;
        }
        let milli = self.milli_value();
        let text = match milli % 1000 {
            0 => (milli / 1000).to_string(),
            _ => format!("{milli}m"),
        };
        // In the server's own notation: `1000` is `1k`.
        as_the_server_writes(&text).or(Some(text))
    }
}

/// The text the API server writes an amount written as `text` back as
/// (`Quantity.String()`): the text itself where apimachinery's parser
/// takes it for canonical already (`+1`, `01`, `1.`, `1e0` stay as they
/// are), else the canonical form in the notation it was written in:
/// decimal SI (`1000m` is `1`, `1000` is `1k`), a decimal exponent
/// (`1000e0` is `1e3`) or binary SI (`1024Ki` is `1Mi`; below 1024, or
/// not whole, decimal: `0.5Ki` is `512`). `None` for no quantity.
///
/// ```
/// use kubernetes::quantity::as_the_server_writes;
///
/// assert_eq!(as_the_server_writes("1000m").as_deref(), Some("1"));
/// assert_eq!(as_the_server_writes("+1").as_deref(), Some("+1"));
/// assert_eq!(as_the_server_writes("1024").as_deref(), Some("1024"));
/// ```
pub fn as_the_server_writes(text: &str) -> Option<String> {
    let value = Quantity::parse(text).ok()?;
    let written = Written::split(text)?;
    let format = written.format;
    // The parser keeps the text when it is canonical already: its int64
    // path, and then for binary SI a whole number not a multiple of 8, for
    // decimal a scale of a multiple of 3 without trailing or leading zeros.
    let shifted = format!("{}{}", written.num, written.denom);
    let kept = match (written.fast(), format) {
        (None, _) => false,
        (Some(_), Format::BinarySi) => shifted.parse::<i64>().is_ok_and(|v| v & 0x07 != 0),
        (Some((_, scale)), _) => {
            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
        }
    };
    if kept || text == "0" {
        return Some(text.to_owned());
    }
    Some(canonical(value.nanos(), format))
}

/// The text the API server writes for `value` computed from quantities
/// (a sum, `Quantity.Add`), which carries the notation of the quantity
/// written as `like`: its canonical form in that notation
/// ([`as_the_server_writes`]), decimal SI where `like` reads as none.
///
/// ```
/// use kubernetes::quantity::{Quantity, written_like};
///
/// let sum = Quantity::parse("100Mi").unwrap().saturating_add(Quantity::parse("10Mi").unwrap());
/// assert_eq!(written_like(sum, "100Mi"), "110Mi");
/// assert_eq!(written_like(sum, "1536"), "115343360");
/// assert_eq!(written_like(Quantity::parse("1.3").unwrap(), "300m"), "1300m");
/// ```
pub fn written_like(value: Quantity, like: &str) -> String {
    let format = Written::split(decoded(like)).map_or(Format::DecimalSi, |w| w.format);
    canonical(value.nanos(), format)
}

/// `nanos` in its canonical text in `format` (`Quantity.String()` of a
/// quantity whose text is not kept).
fn canonical(nanos: i128, format: Format) -> String {
    if nanos == 0 {
        return "0".to_owned();
    }
    let unit = 1_000_000_000;
    if format == Format::BinarySi && nanos.abs() >= 1024 * unit && nanos % unit == 0 {
        let (mut units, mut k) = (nanos / unit, 0);
        while units % 1024 == 0 && k < 6 {
            units /= 1024;
            k += 1;
        }
        return format!("{units}{}", BINARY[k]);
    }
    // Decimal: the mantissa without trailing zeros, its exponent lowered
    // to a multiple of 3.
    let (mut mantissa, mut exponent) = (nanos, -9_i64);
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    let below = exponent.rem_euclid(3);
    mantissa *= 10_i128.pow(below as u32);
    exponent -= below;
    let suffix = match format {
        Format::Exponent if exponent == 0 => String::new(),
        Format::Exponent => format!("e{exponent}"),
        _ => DECIMAL
            .iter()
            .find(|(_, e)| *e == exponent)
            .map_or("", |(s, _)| s)
            .to_owned(),
    };
    format!("{mantissa}{suffix}")
}

/// The notation of a quantity's suffix.
#[derive(Clone, Copy, PartialEq)]
enum Format {
    DecimalSi,
    BinarySi,
    Exponent,
}

const DECIMAL: [(&str, i64); 10] = [
    ("n", -9),
    ("u", -6),
    ("m", -3),
    ("", 0),
    ("k", 3),
    ("M", 6),
    ("G", 9),
    ("T", 12),
    ("P", 15),
    ("E", 18),
];

const BINARY: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// A quantity's text as apimachinery's parser splits it: the sign, the
/// numerator without leading zeros (`0` when none is left), the
/// denominator, and the suffix's notation and exponent (of 10, or of 2).
struct Written<'a> {
    negative: bool,
    num: &'a str,
    denom: &'a str,
    format: Format,
    exponent: i64,
}

impl<'a> Written<'a> {
    fn split(text: &'a str) -> Option<Written<'a>> {
        let bytes = text.as_bytes();
        let negative = bytes.first() == Some(&b'-');
        let mut pos = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
        while bytes.get(pos) == Some(&b'0') {
            pos += 1;
        }
        let digits = |from: usize| {
            from + bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let num_end = digits(pos);
        let num = if num_end == pos {
            "0"
        } else {
            &text[pos..num_end]
        };
        let (denom, suffix) = match bytes.get(num_end) {
            Some(b'.') => {
                let end = digits(num_end + 1);
                (&text[num_end + 1..end], &text[end..])
            }
            _ => ("", &text[num_end..]),
        };
        let (format, exponent) = if let Some((_, e)) = DECIMAL.iter().find(|(s, _)| *s == suffix) {
            (Format::DecimalSi, *e)
        } else if let Some(k) = BINARY.iter().skip(1).position(|s| *s == suffix) {
            (Format::BinarySi, 10 * (k as i64 + 1))
        } else {
            (Format::Exponent, suffix.get(1..)?.parse().ok()?)
        };
        Some(Written {
            negative,
            num,
            denom,
            format,
            exponent,
        })
    }

    /// The `int64Amount` (value, scale of 10) the parser's int64 path
    /// reads the text as: at most 18 digits, no finer than a nano, and for
    /// binary SI a whole number whose product with the suffix fits; `None`
    /// where it takes the arbitrary-precision path.
    fn fast(&self) -> Option<(i64, i64)> {
        let places = (self.num.len() + self.denom.len()) as i64;
        let (precision, scale, mantissa) = match self.format {
            Format::BinarySi if self.denom.is_empty() => (
                15 - self.num.len() as i64 - (self.exponent as f32 * 3.0 / 10.0) as i64 - 1,
                0,
                1_i64 << self.exponent,
            ),
            Format::BinarySi => return None,
            _ => (18 - places, self.exponent - self.denom.len() as i64, 1),
        };
        if precision < 0 || scale < -9 {
            return None;
        }
        let value: i64 = format!("{}{}", self.num, self.denom).parse().ok()?;
        let value = value.checked_mul(mantissa)?;
        Some((if self.negative { -value } else { value }, scale))
    }
}

/// What apimachinery's `Quantity.ScaledValue` answers for the amount
/// `text` reads as, at 10^`scale` (`Value` at 0, `MilliValue` at -3): the
/// amount over 10^scale rounded up, in an `int64`, which past 2^63-1 wraps,
/// or is 0, as the parser's representation of the text decides (an
/// `int64Amount` of the int64 path, or an arbitrary-precision decimal
/// rounded to nanos, a binary SI one capped at 2^63-1). The API server's
/// validation reads an extended resource's amount and a huge page count
/// so. `None` for no quantity.
///
/// ```
/// use kubernetes::quantity::go_scaled_value;
///
/// assert_eq!(go_scaled_value("1500m", 0), Some(2));
/// assert_eq!(go_scaled_value("1.5", -3), Some(1500));
/// // 10E, an int64Amount of 10 at 10^18, multiplied by ten 18 times:
/// // it overflows, and is 0.
/// assert_eq!(go_scaled_value("10E", 0), Some(0));
/// // 2^63 on the decimal path: its low 64 bits.
/// assert_eq!(go_scaled_value("9223372036854775808", 0), Some(i64::MIN));
/// ```
pub fn go_scaled_value(text: &str, scale: i64) -> Option<i64> {
    let amount = Quantity::parse(text).ok()?;
    let written = Written::split(text)?;
    if text == "0" {
        return Some(0);
    }
    if let Some((value, own)) = written.fast() {
        return Some(if own < scale {
            // Divided down, rounded away from zero: no overflow.
            scaled(i128::from(value), 10_i128.pow((scale - own) as u32)) as i64
        } else {
            // Multiplied up: by a power Go has a case for, the product
            // wraps; else ten at a time, and an overflow is 0.
            match own - scale {
                0 => value,
                1 | 2 | 3 | 6 | 9 if value == i64::MIN => 0,
                d @ (1 | 2 | 3 | 6 | 9) => value.wrapping_mul(10_i64.pow(d as u32)),
                d => (0..d)
                    .try_fold(value, |v, _| v.checked_mul(10))
                    .unwrap_or(0),
            }
        });
    }
    // The decimal path: nanos (unscaled at 10^-9), or a binary SI amount
    // past 2^63-1 capped to it (unscaled at 10^0); divided down, the
    // quotient toward zero plus one for a remainder, and of what does not
    // fit an int64 its low 64 bits.
    let (unscaled, own) =
        match written.format == Format::BinarySi && amount.nanos().abs() >= BINARY_MAX_NANOS {
            true => (amount.nanos().signum() * i128::from(i64::MAX), 0),
            false => (amount.nanos(), -9),
        };
    let low = |v: i128| v as u64 as i64;
    Some(match own - scale {
        dif @ 1.. => low(unscaled).wrapping_mul(10_i64.pow(dif as u32)),
        0 => low(unscaled),
        dif => {
            let divisor = 10_i128.pow(dif.unsigned_abs() as u32);
            low(unscaled / divisor + i128::from(unscaled % divisor != 0))
        }
    })
}

/// `nanos` in units of `per` nanos, rounded away from zero, as
/// apimachinery scales an amount down.
fn scaled(nanos: i128, per: i128) -> i128 {
    let whole = nanos / per;
    match nanos % per {
        0 => whole,
        _ => whole + nanos.signum(),
    }
}

/// The largest number of base units whose thousandths an `int64` holds
/// (`resource.MaxMilliValue`, 2⁶³−1 / 1000): past it, the API server
/// compares whole units.
pub const MAX_MILLI_VALUE: i128 = (i64::MAX / 1000) as i128;

/// How Kubernetes' LimitRanger compares a container's (or a pod's)
/// request and limit with a LimitRange's `min`, `max` and
/// `maxLimitRequestRatio` (`requestLimitEnforcedValues`): not exactly,
/// but each rounded up to a thousandth (`min cpu 1m` admits a request of
/// `100u`, which is `1m` so rounded), or to a whole unit when any of the
/// three is above 2⁶³−1 thousandths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitRangePrecision {
    /// The request so rounded; 0 without one.
    pub request: i128,
    /// The limit so rounded; 0 without one.
    pub limit: i128,
    /// The LimitRange's bound so rounded.
    pub bound: i128,
}

impl LimitRangePrecision {
    /// `request`, `limit` and `bound` as the LimitRanger compares them.
    ///
    /// ```
    /// use kubernetes::quantity::{LimitRangePrecision, Quantity};
    ///
    /// let q = |text| Quantity::parse(text).unwrap();
    /// let at = LimitRangePrecision::of(Some(q("100u")), None, q("1m"));
    /// assert_eq!((at.request, at.limit, at.bound), (1, 0, 1));
    /// ```
    pub fn of(request: Option<Quantity>, limit: Option<Quantity>, bound: Quantity) -> Self {
        let [request, limit] = [request, limit].map(|q| q.unwrap_or(Quantity::ZERO));
        let [request, limit, bound] = if [request, limit, bound]
            .iter()
            .all(|q| q.value() <= MAX_MILLI_VALUE)
        {
            [request, limit, bound].map(Quantity::milli_value)
        } else {
            [request, limit, bound].map(Quantity::value)
        };
        LimitRangePrecision {
            request,
            limit,
            bound,
        }
    }

    /// Whether the limit is more than `ratio` times the request, as the
    /// LimitRanger divides them (in floating point, the ratio in
    /// thousandths where it fits). The request is not 0.
    pub fn ratio_above(self, ratio: Quantity) -> bool {
        let observed = self.limit as f64 / self.request as f64;
        if ratio.value() <= MAX_MILLI_VALUE {
            observed * 1000.0 > ratio.milli_value() as f64
        } else {
            observed > ratio.value() as f64
        }
    }
}

impl fmt::Display for Quantity {
    /// The amount in base units, as a plain decimal (`0.7`, `1073741824`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.nanos < 0 { "-" } else { "" };
        let magnitude = self.nanos.unsigned_abs();
        let (whole, fraction) = (magnitude / 1_000_000_000, magnitude % 1_000_000_000);
        if fraction == 0 {
            write!(f, "{sign}{whole}")
        } else {
            let fraction = format!("{fraction:09}");
            write!(f, "{sign}{whole}.{}", fraction.trim_end_matches('0'))
        }
    }
}

/// A manifest's quantity value as the API server decodes it: a string
/// ([`Quantity::decode`]) or a number read from its text; why it is none,
/// naming it; `None` for any other value, which the schema refuses. The
/// one reading of a quantity in an object: the API rules' and the diff's.
///
/// ```
/// use kubernetes::quantity::{Quantity, of_value};
///
/// assert_eq!(of_value(&serde_json::json!(" 1Ki ")), Some(Quantity::parse("1024")));
/// assert_eq!(of_value(&serde_json::json!(2)), Some(Quantity::parse("2")));
/// assert!(of_value(&serde_json::json!("abc")).unwrap().is_err());
/// assert_eq!(of_value(&serde_json::json!(true)), None);
/// ```
pub fn of_value(value: &serde_json::Value) -> Option<Result<Quantity, String>> {
    let (text, read) = match value {
        serde_json::Value::String(text) => (text.clone(), Quantity::decode(text)),
        serde_json::Value::Number(number) => {
            let text = number.to_string();
            let read = parse(&text);
            (text, read)
        }
        _ => return None,
    };
    Some(read.map_err(|why| format!("`{text}` is not a quantity: {why}")))
}

/// [`go_scaled_value`] of a manifest's quantity value as the API server
/// decodes it (a string trimmed as [`decoded`] trims it, a number read from
/// its text); `None` for no quantity.
pub fn go_scaled_value_of(value: &serde_json::Value, scale: i64) -> Option<i64> {
    match value {
        serde_json::Value::String(text) => go_scaled_value(decoded(text), scale),
        serde_json::Value::Number(number) => go_scaled_value(&go_json_text(number), scale),
        _ => None,
    }
}

/// A number's text as the API server receives it from kubectl, which
/// decodes an object into maps before it sends it: a whole number an int64
/// holds as written; any other (a float, or a whole number past int64,
/// which that decoder reads as a float64) as Go's `encoding/json` writes a
/// float64, the shortest digits that read back, positional from 1e-6 to
/// 1e21, else with an exponent. The text decides how a quantity is parsed:
/// `9300000000000000000` takes the decimal path, `9.3e+18` the int64 one.
///
/// ```
/// use kubernetes::quantity::go_json_text;
///
/// let text = |n: serde_json::Value| go_json_text(n.as_number().unwrap());
/// assert_eq!(text(serde_json::json!(9_300_000_000_000_000_000_u64)), "9300000000000000000");
/// assert_eq!(text(serde_json::json!(9_223_372_036_854_775_808_u64)), "9223372036854776000");
/// assert_eq!(text(serde_json::json!(9.3e18)), "9300000000000000000");
/// assert_eq!(text(serde_json::json!(1e21)), "1e+21");
/// assert_eq!(text(serde_json::json!(1.5e-7)), "1.5e-7");
/// assert_eq!(text(serde_json::json!(-42)), "-42");
/// ```
pub fn go_json_text(number: &serde_json::Number) -> String {
    if let Some(whole) = number.as_i64() {
        return whole.to_string();
    }
    let float = number.as_f64().unwrap_or_default();
    let size = float.abs();
    if size == 0.0 || (1e-6..1e21).contains(&size) {
        // Rust's shortest digits, positional: Go's 'f' at precision -1.
        return format!("{float}");
    }
    let text = format!("{float:e}");
    match text.split_once('e') {
        Some((digits, exponent)) if !exponent.starts_with('-') => format!("{digits}e+{exponent}"),
        _ => text,
    }
}

/// `text` as the API server reads a quantity string that a client sent in
/// JSON: apimachinery trims the raw text between the quotes with Go's
/// `strings.TrimSpace`, which sees only the white space JSON leaves
/// unescaped (a space, U+0085, U+00A0, U+1680, U+2000 to U+200A, U+202F,
/// U+205F, U+3000); a tab, a line break and U+2028 reach it escaped
/// (`\t`) and are no white space there.
pub fn decoded(text: &str) -> &str {
    text.trim_matches(|c: char| {
        matches!(
            c,
            ' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
        )
    })
}

const NOT_A_NUMBER: &str =
    "a quantity is a decimal number with an optional suffix, such as 250m, 1.5, 512Mi or 1e3";

fn parse(text: &str) -> Result<Quantity, String> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let number_end = unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len());
    let (number, suffix) = unsigned.split_at(number_end);
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    // apimachinery reads an empty number as 0: `+`, `.`, `Ki` and `e3`
    // are quantities; only the empty text is none.
    if text.is_empty() || frac.contains('.') {
        return Err(NOT_A_NUMBER.to_owned());
    }
    let decimal = DECIMAL.iter().find(|(s, _)| *s == suffix);
    let binary = BINARY.iter().skip(1).position(|s| *s == suffix);
    let (mut exp10, binary): (i64, u32) = match (decimal, binary) {
        (Some((_, exponent)), _) => (*exponent, 0),
        (None, Some(k)) => (0, 10 * (k as u32 + 1)),
        (None, None) => {
            let exponent = suffix
                .strip_prefix(['e', 'E'])
                .filter(|e| {
                    let digits = e.strip_prefix(['-', '+']).unwrap_or(e);
                    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                })
                .and_then(|e| e.parse::<i32>().ok());
            match exponent {
                Some(exponent) => (i64::from(exponent), 0),
                None => {
                    return Err(format!(
                        "`{}` is not a quantity suffix (n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent e<n>)",
                        crate::yaml::quote(suffix)
                    ));
                }
            }
        }
    };
    // Without a digit, apimachinery reads the number by its fast path only,
    // which takes scales of 10^-9 and up; below, it parses the empty text
    // and refuses it.
    if int.is_empty() && frac.is_empty() && exp10 < -9 {
        return Err("a quantity without a digit takes no exponent below -9".to_owned());
    }
    // The value is digits × 10^exp10 × 2^binary, in base units; in nanos
    // the exponent is 9 more.
    exp10 += 9 - frac.len() as i64;
    let magnitude = match in_u128(int, frac, exp10, binary) {
        Some(magnitude) => magnitude,
        None => in_digits(int, frac, exp10, binary),
    };
    // apimachinery caps a binary SI amount only.
    let magnitude = match binary {
        0 => magnitude,
        _ => magnitude.min(BINARY_MAX_NANOS),
    };
    Ok(Quantity {
        nanos: if negative { -magnitude } else { magnitude },
    })
}

/// The magnitude in nanos of `int.frac` × 10^exp10 × 2^binary (exp10 in
/// nanos already), rounded up to a nano and at most [`MAX_NANOS`], in
/// `u128` arithmetic: every quantity written with up to 30 digits and an
/// exponent `u128` holds, which is every quantity a manifest writes in
/// practice. `None` for the rest, which [`in_digits`] reads.
fn in_u128(int: &str, frac: &str, exp10: i64, binary: u32) -> Option<i128> {
    if int.len() + frac.len() > 30 || exp10.unsigned_abs() > 38 {
        return None;
    }
    // 30 digits fit: 10^30 < 2^100.
    let mut value: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        value = value * 10 + u128::from(b - b'0');
    }
    let cap = |v: Option<u128>| v.map_or(MAX_NANOS, |v| v.min(MAX_NANOS as u128) as i128);
    // Past `u128` before the division: the digits read the rest.
    let value = value.checked_mul(1u128 << binary)?;
    let power = 10u128.pow(exp10.unsigned_abs() as u32);
    Some(if exp10 >= 0 {
        cap(value.checked_mul(power))
    } else {
        // Rounded up: a remainder is a part of a nano.
        cap(Some(value.div_ceil(power)))
    })
}

/// [`in_u128`] for any length, on the decimal digits.
fn in_digits(int: &str, frac: &str, mut exp10: i64, binary: u32) -> i128 {
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    // × 2^binary, on the decimal digits (at most 6 × 1024).
    for _ in 0..binary / 10 {
        let mut carry = 0u32;
        for digit in digits.iter_mut().rev() {
            let product = u32::from(*digit) * 1024 + carry;
            *digit = (product % 10) as u8;
            carry = product / 10;
        }
        let mut head = Vec::new();
        while carry > 0 {
            head.push((carry % 10) as u8);
            carry /= 10;
        }
        head.reverse();
        head.extend_from_slice(&digits);
        digits = head;
    }
    let first = digits.iter().position(|&d| d != 0);
    let Some(first) = first else {
        return 0;
    };
    let last = digits.iter().rposition(|&d| d != 0).unwrap_or(first);
    exp10 += (digits.len() - 1 - last) as i64;
    let significant = &digits[first..=last];
    // The value is significant × 10^exp10 nanos: it has len + exp10 whole
    // digits.
    let whole_digits = significant.len() as i64 + exp10;
    if whole_digits > MAX_DIGITS {
        MAX_NANOS
    } else if whole_digits <= 0 {
        // Less than one nano: rounded up to one.
        1
    } else {
        let kept = whole_digits.min(significant.len() as i64) as usize;
        let mut value: i128 = 0;
        for &d in &significant[..kept] {
            value = value * 10 + i128::from(d);
        }
        for _ in kept as i64..whole_digits {
            value *= 10;
        }
        // Dropped digits are not all zero (the last one is not): round up.
        if kept < significant.len() {
            value += 1;
        }
        value.min(MAX_NANOS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn q(text: &str) -> Quantity {
        Quantity::parse(text).unwrap()
    }

    #[test]
    fn notations_of_one_amount_are_equal() {
        for group in [
            &[
                "700m",
                "0.7",
                ".7",
                "7e-1",
                "0.70",
                "+700m",
                "700000000n",
                "700000u",
            ][..],
            &["1Ki", "1024", "1.024k", "1024e0"],
            &["1.5Gi", "1536Mi", "1610612736"],
            &["0", "0m", "0Ki", "-0", ".0", "0e5"],
            &["1E", "1e18", "1000P"],
            &["5.", "5", "5000m"],
        ] {
            for text in group {
                assert_eq!(q(text), q(group[0]), "{text} = {}", group[0]);
            }
        }
    }

    #[test]
    fn order_is_by_value() {
        let ascending = [
            "-1", "0", "1n", "1e-9", "2n", "1u", "250m", "0.7", "1", "1G", "1Gi", "1T",
        ];
        let values: Vec<_> = ascending.iter().map(|t| q(t)).collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
        assert!(q("1Gi") > q("1G"));
        assert!(q("700m") <= q("0.7"));
    }

    #[test]
    fn sums_are_exact_and_capped() {
        assert_eq!(q("700m").saturating_add(q("300m")), q("1"));
        assert_eq!(q("1n").saturating_add(q("-1n")), Quantity::ZERO);
        // The API server's sum is not capped: two capped 8Ei are 2^64-2.
        assert_eq!(q("8Ei").saturating_add(q("8Ei")), q("18446744073709551614"));
        assert_eq!(q("1e27").saturating_add(q("1e27")), q("1e27"));
        assert_eq!(q("-1e27").saturating_add(q("-1")), q("-1e27"));
    }

    /// What apimachinery v0.35.4's `Quantity.String()` answered for each
    /// text, unmarshalled from JSON as the API server reads it.
    #[test]
    fn the_server_writes_amounts_back_as_apimachinery_does() {
        for (text, written) in [
            ("1.0", "1"),
            ("1e0", "1e0"),
            ("1000m", "1"),
            ("0.001", "1m"),
            ("1m", "1m"),
            ("1", "1"),
            ("+1", "+1"),
            ("1.0Ki", "1Ki"),
            ("1024", "1024"),
            ("1Ki", "1Ki"),
            ("0.001k", "1"),
            ("1n", "1n"),
            ("2", "2"),
            ("1e3", "1e3"),
            ("1000", "1k"),
            ("0.9765625Ki", "1k"),
            ("01", "01"),
            ("1.", "1."),
            ("10e-1", "1"),
            ("1000e-3", "1"),
            ("0.1e1", "1"),
            ("1000e0", "1e3"),
            ("100e1", "1e3"),
            ("1000000e-3", "1e3"),
            ("0.001e3", "1"),
            ("1024e0", "1024e0"),
            ("2048", "2048"),
            ("1024.0", "1024"),
            ("1024.0Ki", "1Mi"),
            ("0.5Ki", "512"),
            ("1024Ki", "1Mi"),
            ("1048576", "1048576"),
            ("1e-3", "1e-3"),
            ("0.0010", "1m"),
            ("1000u", "1m"),
            ("1000000n", "1m"),
            ("00.001", "1m"),
            ("+1m", "+1m"),
            ("+0.001", "1m"),
            ("1E", "1E"),
            ("1e18", "1e18"),
            ("1000P", "1E"),
            ("1000000000000000000", "1E"),
            ("0", "0"),
        ] {
            assert_eq!(
                as_the_server_writes(text).as_deref(),
                Some(written),
                "{text}"
            );
        }
        assert_eq!(as_the_server_writes("1x"), None);
    }

    /// `Value` and `MilliValue` round away from zero, as apimachinery's.
    #[test]
    fn whole_and_thousandths_round_away_from_zero() {
        for (text, value, milli) in [
            ("0", 0, 0),
            ("1n", 1, 1),
            ("999999n", 1, 1),
            ("1000001n", 1, 2),
            ("1500u", 1, 2),
            ("1.5", 2, 1500),
            ("2", 2, 2000),
            ("-1500u", -1, -2),
            ("1Ki", 1024, 1_024_000),
        ] {
            assert_eq!(
                (q(text).value(), q(text).milli_value()),
                (value, milli),
                "{text}"
            );
        }
    }

    /// The LimitRanger's precision: thousandths, whole units past
    /// `MaxMilliValue` (9223372036854775) for any of the three.
    #[test]
    fn the_limit_ranger_compares_in_thousandths_or_whole_units() {
        let at = |r: Option<&str>, l: Option<&str>, b: &str| {
            let p = LimitRangePrecision::of(r.map(q), l.map(q), q(b));
            (p.request, p.limit, p.bound)
        };
        assert_eq!(at(Some("1200u"), Some("1800u"), "1500u"), (2, 2, 2));
        assert_eq!(at(None, Some("3"), "2"), (0, 3000, 2000));
        assert_eq!(
            at(Some("9223372036854775"), None, "1"),
            (9_223_372_036_854_775_000, 0, 1000)
        );
        assert_eq!(
            at(Some("9223372036854776"), None, "1500m"),
            (9_223_372_036_854_776, 0, 2)
        );
        assert_eq!(
            at(None, None, "10000000000000000500m"),
            (0, 0, 10_000_000_000_000_001)
        );
        // The ratio of what was so rounded, against the ratio's thousandths.
        let ratio = |r: &str, l: &str, most: &str| {
            LimitRangePrecision::of(Some(q(r)), Some(q(l)), q(most)).ratio_above(q(most))
        };
        assert!(!ratio("1500u", "3m", "1.5"), "2m and 3m: 1.5");
        assert!(ratio("1", "3", "2.999"));
        assert!(!ratio("1", "3", "2.9991"), "2.9991 is 3 in thousandths");
        assert!(ratio("1", "3001m", "3"));
    }

    #[test]
    fn what_the_api_server_rounds_and_caps() {
        // Below a nano: rounded up, away from zero.
        assert_eq!(q("1e-10").nanos(), 1);
        assert_eq!(q("-1e-10").nanos(), -1);
        assert_eq!(q("1.0000000001").nanos(), 1_000_000_001);
        assert_eq!(q("1e-10"), q("0.5e-9"));
        // A binary SI amount above 2^63-1 is capped; a decimal one is not.
        assert_eq!(q("16Ei"), q("9223372036854775807"));
        assert_eq!(q("8Ei"), q("9223372036854775807"));
        assert_eq!(q("-8Ei"), q("-9223372036854775807"));
        assert!(q("7Ei") < q("9223372036854775807"));
        assert!(q("8Ei") < q("9.5E") && q("9.5E") < q("10E"));
        assert!(q("1e26") < q("100000000000000000000000000.5"));
        assert_eq!(q("10E").nanos(), 10_i128.pow(28));
        // Past 10^27 base units, taken as 10^27, cheaply however large the
        // exponent or long the digits.
        assert_eq!(q("1e2147483647"), q("1e27"));
        assert_eq!(q(&format!("1{}", "0".repeat(100_000))), q("1e27"));
        assert_eq!(q("-1e40"), q("-1e27"));
        assert_eq!(q(&format!("0.{}1", "0".repeat(100_000))).nanos(), 1);
        assert_eq!(q("1e-2147483648").nanos(), 1);
        assert_eq!(q("3.5").to_string(), "3.5");
        assert_eq!(q("250m").to_string(), "0.25");
    }

    /// What apimachinery v0.35.4's `Value()` and `MilliValue()` answered
    /// for each text (a Go program reading it with `ParseQuantity`): past
    /// 2^63-1 the int64 wraps or is 0, as the parser's path decides.
    #[test]
    fn scaled_values_are_go_int64s() {
        for (text, value, milli) in [
            ("1.5", 2, 1500),
            ("1500m", 2, 1500),
            ("1e-10", 1, 1),
            ("1.5Ki", 1536, 1_536_000),
            ("2048Mi", 2_147_483_648, 2_147_483_648_000),
            ("10E", 0, 0),
            ("1e19", 0, 0),
            ("9.3E", 0, 0),
            ("1e30", 0, 0),
            ("1000P", 1_000_000_000_000_000_000, 0),
            ("1.E", 1_000_000_000_000_000_000, 0),
            (".5E", 500_000_000_000_000_000, 0),
            ("9Ei", i64::MAX, -1000),
            ("16Ei", i64::MAX, -1000),
            ("-9Ei", -i64::MAX, 1000),
            ("9223372036854775807", i64::MAX, -1000),
            ("9223372036854775808", i64::MIN, 0),
            ("92233720368547758.5", 92_233_720_368_547_759, 420),
            (
                "9223372036854775.5",
                9_223_372_036_854_776,
                9_223_372_036_854_775_500,
            ),
            (
                "10000000000000000000.5",
                -8_446_744_073_709_551_615,
                1_864_712_049_423_024_628,
            ),
            (
                "1234567890123456789",
                1_234_567_890_123_456_789,
                -1_363_962_815_083_169_272,
            ),
            (
                "12345678901234567890",
                -6_101_065_172_474_983_726,
                4_807_115_922_877_858_896,
            ),
            ("18446744073709551617000", 1000, 1_000_000),
        ] {
            assert_eq!(go_scaled_value(text, 0), Some(value), "{text}");
            assert_eq!(go_scaled_value(text, -3), Some(milli), "{text} milli");
        }
    }

    /// apimachinery reads an empty number as 0, whatever its sign and
    /// suffix.
    #[test]
    fn an_empty_number_is_zero() {
        for zero in [
            "+", "-", ".", "+.", "Ki", "m", "n", "e3", ".e3", "E", "+Ki", "00", "e-9", "0e-10",
            ".0e-10",
        ] {
            assert_eq!(Quantity::parse(zero), Ok(Quantity::ZERO), "{zero}");
        }
        // No digit and a scale below 10^-9: the server's slow path parses
        // the empty number and refuses it.
        for none in ["", "e-10", "+e-10", ".E-12", "-.e-10"] {
            assert!(Quantity::parse(none).is_err(), "{none}");
        }
    }

    /// The white space JSON leaves unescaped is trimmed; what it escapes
    /// is not.
    #[test]
    fn decoded_trims_what_json_leaves_unescaped() {
        for text in [" 1 ", "\u{a0}1", "1\u{3000}", "\u{85}1", " +1 "] {
            assert_eq!(Quantity::decode(text), Ok(q("1")), "{text:?}");
        }
        for text in ["\t1", "1\n", "1\u{2028}", "\u{b}1", "1\r"] {
            assert!(Quantity::decode(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn what_is_no_quantity() {
        for bad in [
            "",
            "100q",
            "1mi",
            "1 Gi",
            "1e",
            "1.2.3",
            "1K",
            "--1",
            "1e2147483648",
            "1e+",
            "1Gi ",
            "0x10",
            "1e1.5",
            "١",
        ] {
            assert!(Quantity::parse(bad).is_err(), "{bad}");
        }
    }

    /// An amount in milli units and one of several ways of writing it.
    fn notation() -> impl Strategy<Value = (String, i128)> {
        (0i64..10_000_000_000, 0usize..6).prop_map(|(milli, form)| {
            let text = match form {
                0 => format!("{milli}m"),
                1 => format!("{}.{:03}", milli / 1000, milli % 1000),
                2 => format!("{milli}e-3"),
                3 => format!("{}e-9", i128::from(milli) * 1_000_000),
                4 => format!("{milli}000000n"),
                _ => format!("+{}.{:03}0e0", milli / 1000, milli % 1000),
            };
            (text, i128::from(milli) * 1_000_000)
        })
    }

    #[test]
    fn a_manifest_s_quantities_take_the_u128_reading() {
        // int, frac, exp10 in nanos (9 less the fraction's digits, plus the
        // suffix's), binary: as `parse` splits them.
        for (int, frac, exp10, binary) in [
            ("512", "", 9, 20),
            ("250", "", 6, 0),
            ("1", "5", 8, 0),
            ("4", "", 9, 30),
            ("9223372036854775807", "", 9, 60),
            ("1", "", -9 + 9, 0),
        ] {
            assert_eq!(
                in_u128(int, frac, exp10, binary),
                Some(in_digits(int, frac, exp10, binary)),
                "{int}.{frac}e{exp10} × 2^{binary}"
            );
        }
    }

    proptest! {
        /// Every notation of an amount reads as that amount, and the order
        /// of quantities is the order of their amounts.
        #[test]
        fn order_is_notation_independent(a in notation(), b in notation()) {
            let (qa, qb) = (q(&a.0), q(&b.0));
            prop_assert_eq!(qa.nanos(), a.1);
            prop_assert_eq!(qb.nanos(), b.1);
            prop_assert_eq!(qa.cmp(&qb), a.1.cmp(&b.1));
        }

        /// Writing a quantity as its plain value reads back the same
        /// quantity; the order is a total order consistent with equality.
        #[test]
        fn display_reads_back(int in 0u64..u64::MAX, frac in 0u32..1_000_000_000, negative: bool, suffix in 0usize..8) {
            let suffixes = ["", "m", "k", "Ki", "Mi", "e3", "e-4", "G"];
            let text = format!("{}{int}.{frac:09}{}", if negative { "-" } else { "" }, suffixes[suffix]);
            let parsed = q(&text);
            let again = q(&parsed.to_string());
            prop_assert_eq!(parsed, again);
            prop_assert_eq!(parsed.cmp(&again), std::cmp::Ordering::Equal);
            prop_assert_eq!(parsed.is_negative(), negative && parsed != Quantity::ZERO);
        }

        /// The `u128` reading gives the digits' reading wherever it reads
        /// (and it reads what manifests write: `a_manifest_s_quantities_take_the_u128_reading`).
        #[test]
        fn both_readings_agree(
            int in "[0-9]{0,31}",
            frac in "[0-9]{0,12}",
            exp10 in -60i64..60,
            binary in prop::sample::select(vec![0u32, 10, 20, 30, 40, 50, 60]),
        ) {
            if let Some(fast) = in_u128(&int, &frac, exp10, binary) {
                prop_assert_eq!(fast, in_digits(&int, &frac, exp10, binary));
            }
        }

        /// A binary suffix is the same amount as its plain number of bytes.
        #[test]
        fn binary_suffixes_are_powers_of_two(n in 0u64..1_000_000, shift in 0usize..4) {
            let suffix = ["Ki", "Mi", "Gi", "Ti"][shift];
            let bytes = u128::from(n) << (10 * (shift + 1));
            prop_assert_eq!(q(&format!("{n}{suffix}")), q(&bytes.to_string()));
        }
    }
}
