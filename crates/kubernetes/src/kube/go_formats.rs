//! The `format`s a CRD's schema may name, judged as the API server judges
//! them: go-openapi's registry of string formats (`strfmt.Default` of
//! k8s.io/kube-openapi), each one Go function, written here step for step.
//!
//! The server keeps the formats of [`KEPT`] (a `-` in the name is
//! dropped before it looks: `date-time` is `datetime`, `k8s-short-name`
//! is `k8sshortname`) and strips every other (`int32`, `dateTime`, `foo`)
//! from the schema. A kept format then judges every string the node
//! holds, whatever its `type`: where the type is not numeric, any string
//! passes the type check and the format alone decides (`go_numbers`).
//!
//! What Go takes that one may not expect:
//! - `ipv4` is Go 1.16's sloppy parser: `010.1.1.1`, and an IPv6 address
//!   with a `.` in it (`::ffff:1.2.3.4`); `ipv6` is today's strict one;
//! - `date-time` is a date, a `t` in any case and a time of day read by a
//!   pattern: `2024-01-01t25:00:00z` is refused, `2024-01-01T10:00:00Z.`
//!   too, `2024-01-01T10:00:00.5+99:99` is taken;
//! - `duration` is Go's `time.ParseDuration`, or else any number beside a
//!   unit word somewhere in the text (`3 days`, `x 5 weeks y`);
//! - `creditcard` drops every character that is not a digit first, `isbn`
//!   every blank and `-`;
//! - `byte` is standard base64 with its padding, and not the empty string.

mod mail;
mod uri;

use std::sync::LazyLock;

use serde_json::{Map, Value as Json};

/// The formats the API server keeps in a CRD's schema, as go-openapi
/// names them once a `-` is dropped (`k8s-short-name` and
/// `k8s-long-name` since Kubernetes 1.34: [`kept`]).
const KEPT: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// chartgen's keyword for a kept `format` (beside it, as the engine's own
/// `format` is not checked): its value is the format's name as written.
pub(super) const FORMAT: &str = "x-strict-go-format";

/// A schema node's `format` where the API server of Kubernetes 1.`minor`
/// keeps it: the name with its `-`s dropped.
pub(super) fn kept(object: &Map<String, Json>, minor: u32) -> Option<String> {
    let format = object.get("format")?.as_str()?.replace('-', "");
    let known = KEPT.contains(&format.as_str()) && (minor >= 34 || !format.starts_with("k8s"));
    known.then_some(format)
}

/// Marks a schema node whose `format` the server of Kubernetes 1.`minor`
/// keeps with [`FORMAT`].
pub(super) fn mark(object: &mut Map<String, Json>, minor: u32) {
    if kept(object, minor).is_some()
        && let Some(format) = object.get("format").cloned()
    {
        object.insert(FORMAT.into(), format);
    }
}

/// Registers the [`FORMAT`] keyword with a validator's options.
pub(super) fn keyword(
    options: jsonschema::ValidationOptions<'static>,
) -> jsonschema::ValidationOptions<'static> {
    options.with_keyword(FORMAT, |_, value, _| {
        let written = value.as_str().unwrap_or_default();
        let format = written.replace('-', "");
        match KEPT.contains(&format.as_str()) {
            true => Ok(Box::new(GoFormat {
                written: written.to_owned(),
                format,
            })),
            false => Err(jsonschema::ValidationError::custom(format!(
                "{value} is no format the API server keeps"
            ))),
        }
    })
}

/// A compiled [`FORMAT`]: a string the format refuses is refused, any
/// other value passes (the type decides it).
struct GoFormat {
    written: String,
    format: String,
}

impl<'i> jsonschema::Keyword<'i> for GoFormat {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        match self.is_valid(instance) {
            true => Ok(()),
            // In the engine's own words for a `format`.
            false => Err(jsonschema::ValidationError::custom(format!(
                r#"{instance} is not a "{}""#,
                self.written
            ))),
        }
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        instance
            .as_str()
            .is_none_or(|text| validates(&self.format, text))
    }
}

/// Whether the format `format` (a name of [`KEPT`]) takes `text`, as its
/// function in go-openapi's registry says.
pub fn validates(format: &str, text: &str) -> bool {
    match format {
        "bsonobjectid" => text.len() == 24 && text.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => uri::is_request_uri(text),
        "email" => mail::is_email(text),
        "hostname" => is_hostname(text),
        "ipv4" => crate::cidr::legacy_ip(text).is_some() && text.contains('.'),
        // Go's `net.ParseIP` of today: no zone.
        "ipv6" => netip(text.as_bytes()) == Some(NetIp::V6),
        "cidr" => crate::cidr::legacy_cidr(text).is_some(),
        "mac" => is_mac(text.as_bytes()),
        "uuid" => is_uuid(text, None),
        "uuid3" => is_uuid(text, Some(b'3')),
        "uuid4" | "uuid5" => is_uuid(text, format.bytes().last()),
        "isbn" => is_isbn10(text) || is_isbn13(text),
        "isbn10" => is_isbn10(text),
        "isbn13" => is_isbn13(text),
        "creditcard" => is_credit_card(text),
        "ssn" => is_ssn(text.as_bytes()),
        "hexcolor" => is_hex_color(text),
        "rgbcolor" => is_rgb_color(text.as_bytes()),
        "byte" => is_base64(text.as_bytes()),
        "date" => is_date(text.as_bytes()),
        "duration" => is_duration(text),
        "datetime" => is_date_time(text),
        "k8sshortname" => text.len() <= 63 && is_label(text.as_bytes()),
        "k8slongname" => text.len() <= 253 && text.split('.').all(|l| is_label(l.as_bytes())),
        // `password`: any string.
        _ => true,
    }
}

/// What Go's `netip.ParseAddr` reads an address as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NetIp {
    V4,
    V6,
    /// An IPv6 address with a zone (`fe80::1%eth0`), which `net.ParseIP`
    /// refuses.
    V6Zoned,
}

/// Go's `netip.ParseAddr`: the first `.`, `:` or `%` picks the parser;
/// four decimal parts without leading zeros, or IPv6 (its last 32 bits
/// may be IPv4), then after `%` a zone of any bytes but none. Rust's
/// parsers read both as strictly as Go's.
fn netip(s: &[u8]) -> Option<NetIp> {
    let text = |bytes: &[u8]| std::str::from_utf8(bytes).ok().map(str::to_owned);
    match s.iter().find(|b| matches!(b, b'.' | b':' | b'%'))? {
        b'.' => text(s)?
            .parse::<std::net::Ipv4Addr>()
            .ok()
            .map(|_| NetIp::V4),
        b':' => {
            let zone = s.iter().position(|b| *b == b'%');
            let address = text(&s[..zone.unwrap_or(s.len())])?;
            address.parse::<std::net::Ipv6Addr>().ok()?;
            match zone {
                None => Some(NetIp::V6),
                Some(at) if at + 1 < s.len() => Some(NetIp::V6Zoned),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// `HostnamePattern` of go-openapi, then at most 255 bytes and labels of
/// at most 63: letters and symbols of any script count as letters.
fn is_hostname(text: &str) -> bool {
    static PATTERN: LazyLock<regex::Regex> = LazyLock::new(|| {
        // Go's Unicode tables are of Unicode 15.0; the regex crate's are
        // newer: a letter or symbol assigned since is none to Go.
        let c = r"a-zA-Z0-9[\p{S}\p{L}&&\p{Age=15.0}]";
        let l = r"a-zA-Z[\p{L}&&\p{Age=15.0}]";
        regex::Regex::new(&format!(
            r"^([{c}]((-?[{c}]{{0,62}})?)|([{c}](([{c}-]{{0,61}}[{c}])?)(\.)){{1,}}([{l}]){{2,63}})$"
        ))
        .expect("go-openapi's hostname pattern compiles")
    });
    PATTERN.is_match(text) && text.len() <= 255 && text.split('.').all(|p| p.len() <= 63)
}

/// `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx…` or `xx-xx…` (one
/// separator throughout), `xxxx.xxxx…`, or bare hex digits.
fn is_mac(s: &[u8]) -> bool {
    let octets = |n: usize| matches!(n, 6 | 8 | 20);
    let hex = |pair: &[u8]| pair.len() == 2 && pair.iter().all(u8::is_ascii_hexdigit);
    if s.len() < 12 {
        return false;
    }
    if s[2] == b':' || s[2] == b'-' {
        let sep = s[2];
        (s.len() + 1).is_multiple_of(3)
            && octets((s.len() + 1) / 3)
            && s.chunks(3)
                .all(|c| hex(&c[..2]) && c.get(2).is_none_or(|b| *b == sep))
    } else if s[4] == b'.' {
        (s.len() + 1).is_multiple_of(5)
            && octets(2 * (s.len() + 1) / 5)
            && s.chunks(5)
                .all(|c| hex(&c[..2]) && hex(&c[2..4]) && c.get(4).is_none_or(|b| *b == b'.'))
    } else {
        s.len().is_multiple_of(2) && octets(s.len() / 2) && s.chunks(2).all(hex)
    }
}

/// `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[89ab]?…`: 32 hex digits
/// in groups of 8, 4, 4, 4 and 12, each `-` optional; for a version, the
/// third group starts with it, and versions 4 and 5 the fourth with one
/// of `89ab`.
fn is_uuid(text: &str, version: Option<u8>) -> bool {
    let mut rest = text.as_bytes();
    for (i, width) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix(b"-").unwrap_or(rest);
        }
        let Some((group, after)) = rest.split_at_checked(width) else {
            return false;
        };
        let versioned = match (i, version) {
            (2, Some(v)) => group[0] == v,
            (3, Some(b'4' | b'5')) => b"89abAB".contains(&group[0]),
            _ => true,
        };
        if !versioned || !group.iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        rest = after;
    }
    rest.is_empty()
}

/// The text without the bytes `drop` names, as Go's `ReplaceAllString`
/// leaves it for these ASCII patterns.
fn without(text: &str, drop: impl Fn(char) -> bool) -> Vec<u8> {
    let mut kept = String::with_capacity(text.len());
    kept.extend(text.chars().filter(|c| !drop(*c)));
    kept.into_bytes()
}

/// Go's `\s`: ASCII blanks, without the vertical tab.
fn is_go_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// govalidator's `IsISBN10`: blanks and `-` dropped, nine digits and a
/// digit or `X` whose weighted sum is a multiple of 11.
fn is_isbn10(text: &str) -> bool {
    let s = without(text, |c| is_go_space(c) || c == '-');
    let shaped = s.len() == 10
        && s[..9].iter().all(u8::is_ascii_digit)
        && (s[9].is_ascii_digit() || s[9] == b'X');
    shaped && {
        let digit = |b: u8| if b == b'X' { 10 } else { u32::from(b - b'0') };
        let sum: u32 = (1..).zip(&s).map(|(w, b)| w * digit(*b)).sum();
        sum.is_multiple_of(11)
    }
}

/// govalidator's `IsISBN13`: blanks and `-` dropped, thirteen digits
/// whose last is the check digit of weights 1 and 3.
fn is_isbn13(text: &str) -> bool {
    let s = without(text, |c| is_go_space(c) || c == '-');
    s.len() == 13 && s.iter().all(u8::is_ascii_digit) && {
        let sum: u32 = [1, 3]
            .iter()
            .cycle()
            .zip(&s[..12])
            .map(|(w, b)| w * u32::from(b - b'0'))
            .sum();
        u32::from(s[12] - b'0') == (10 - sum % 10) % 10
    }
}

/// govalidator's `IsCreditCard`: every character but ASCII digits
/// dropped, one of the card networks' number shapes, the Luhn sum.
fn is_credit_card(text: &str) -> bool {
    static PATTERN: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
        )
        .expect("govalidator's credit card pattern compiles")
    });
    let digits = without(text, |c| !c.is_ascii_digit());
    let digits = String::from_utf8_lossy(&digits);
    PATTERN.is_match(&digits) && {
        let luhn = |(i, b): (usize, u8)| {
            let d = u32::from(b - b'0');
            match i % 2 {
                0 => d,
                _ if d * 2 >= 10 => d * 2 % 10 + 1,
                _ => d * 2,
            }
        };
        let sum: u32 = digits.bytes().rev().enumerate().map(luhn).sum();
        sum.is_multiple_of(10)
    }
}

/// govalidator's `IsSSN`: eleven bytes, `ddd-dd-dddd` with each `-` a `-`
/// or a space (the pattern's optional separators, at that length both).
fn is_ssn(s: &[u8]) -> bool {
    s.len() == 11
        && s.iter().enumerate().all(|(i, b)| match i {
            3 | 6 => *b == b'-' || *b == b' ',
            _ => b.is_ascii_digit(),
        })
}

/// `^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`.
fn is_hex_color(text: &str) -> bool {
    let hex = text.strip_prefix('#').unwrap_or(text);
    matches!(hex.len(), 3 | 6) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `rgb(R, G, B)`: three numbers of 0 to 255 without leading zeros,
/// Go's `\s` around each.
fn is_rgb_color(s: &[u8]) -> bool {
    let Some(inner) = s.strip_prefix(b"rgb(").and_then(|s| s.strip_suffix(b")")) else {
        return false;
    };
    let channel = |part: &[u8]| {
        // Rust's ASCII whitespace is Go's `\s`: no vertical tab.
        let digits = part.trim_ascii();
        (1..=3).contains(&digits.len())
            && digits.iter().all(u8::is_ascii_digit)
            && (digits == b"0" || digits[0] != b'0')
            && std::str::from_utf8(digits).is_ok_and(|d| d.parse::<u8>().is_ok())
    };
    let parts: Vec<&[u8]> = inner.split(|b| *b == b',').collect();
    parts.len() == 3 && parts.into_iter().all(channel)
}

/// govalidator's base64 pattern: groups of four of the standard
/// alphabet, the last one padded (`xx==`, `xxx=`) or full; not empty.
fn is_base64(s: &[u8]) -> bool {
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    let body = s
        .strip_suffix(b"==")
        .or_else(|| s.strip_suffix(b"="))
        .unwrap_or(s);
    !s.is_empty() && s.len().is_multiple_of(4) && body.iter().all(alphabet)
}

/// Go's `time.Parse("2006-01-02", …)`: four digits, two, two, `-`
/// between, a month of 1 to 12 and a day of that month (proleptic
/// Gregorian, year 0 a leap year).
fn is_date(s: &[u8]) -> bool {
    let digits =
        |r: std::ops::Range<usize>| s[r].iter().fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    let shaped = s.len() == 10
        && s.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return false;
    }
    let (year, month, day) = (digits(0..4), digits(5..7), digits(8..10));
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// go-openapi's `IsDateTime`: at least four bytes; split at every `t` or
/// `T`, the first piece a [`is_date`] and the second a time of day
/// `hh:mm:ss`, any one character and digits for a fraction, then `z`,
/// `Z` or `±hh:mm`; the hours at most 23, minutes and seconds at most 59
/// (the offset's are not looked at).
fn is_date_time(text: &str) -> bool {
    let mut pieces = text.split(['t', 'T']);
    let (Some(date), Some(time)) = (pieces.next(), pieces.next()) else {
        return false;
    };
    text.len() >= 4 && is_date(date.as_bytes()) && is_time_of_day(time)
}

/// The second piece of [`is_date_time`]: go-openapi's `DateTimePattern`
/// and its bounds.
fn is_time_of_day(time: &str) -> bool {
    let s = time.as_bytes();
    let two = |at: usize| {
        s.get(at..at + 2)
            .filter(|d| d.iter().all(u8::is_ascii_digit))
    };
    let (Some(h), Some(m), Some(sec)) = (two(0), two(3), two(6)) else {
        return false;
    };
    if s[2] != b':' || s[5] != b':' || h > &b"23"[..] || m > &b"59"[..] || sec > &b"59"[..] {
        return false;
    }
    let zone = |z: &str| {
        let z = z.as_bytes();
        z == b"z"
            || z == b"Z"
            || (z.len() == 6
                && (z[0] == b'+' || z[0] == b'-')
                && z[3] == b':'
                && [1, 2, 4, 5].iter().all(|i| z[*i].is_ascii_digit()))
    };
    let rest = &time[8..];
    if zone(rest) {
        return true;
    }
    // `(.[0-9]+)?`: one character but a line break, then digits; the
    // zone follows (a digit may end the fraction or start no zone).
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if c != '\n' => {
            let fraction = chars.as_str();
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && zone(&fraction[digits..])
        }
        _ => false,
    }
}

/// go-openapi's `ParseDuration`: Go's `time.ParseDuration`, or else some
/// `digits blanks letters` in the text whose letters are a unit word
/// (`ns`, `nano…`, `us`, `µs`, `micro…`, `ms`, `milli…`, `s`, `sec…`,
/// `m`, `min…`, `h`, `hr`, `hour…`, `d`, `day…`, `w`, `wk`, `week…`,
/// in any case); every number before the first unit found, and after it,
/// must fit an int64.
fn is_duration(text: &str) -> bool {
    static PATTERN: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"([0-9]+)[\t\n\x0C\r ]*([A-Za-zµ]+)")
            .expect("the duration pattern compiles")
    });
    if crate::duration::parse(text).is_ok() {
        return true;
    }
    let mut known = false;
    for found in PATTERN.captures_iter(text) {
        if found[1].parse::<i64>().is_err() {
            return false;
        }
        known |= is_unit(&crate::names::go_lowercase(&found[2]));
    }
    known
}

/// A unit word of go-openapi's `ParseDuration`: one of a unit's names, or
/// text starting with its longest.
fn is_unit(unit: &str) -> bool {
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    UNITS.iter().any(|names| {
        let last = names.len() - 1;
        names
            .iter()
            .enumerate()
            .any(|(i, name)| (i == last && unit.starts_with(name)) || *name == unit)
    })
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`: a lowercase DNS label of any length.
fn is_label(s: &[u8]) -> bool {
    let inner = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    match s {
        [] => false,
        [one] => inner(one),
        [first, .., last] => {
            inner(first) && inner(last) && s.iter().all(|b| inner(b) || *b == b'-')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::validates;

    /// Verdicts of go-openapi's registry (`strfmt.Default.Validates`, Go
    /// 1.26, kube-openapi of Kubernetes 1.35), asked of Go itself.
    #[test]
    fn each_format_judges_as_go_openapi_does() {
        let cases: &[(&str, &str, bool)] = &[
            // bsonobjectid
            ("bsonobjectid", "507f1f77bcf86cd799439011", true),
            ("bsonobjectid", "507F1F77BCF86CD799439011", true),
            ("bsonobjectid", "507f1f77bcf86cd79943901", false),
            ("bsonobjectid", "507f1f77bcf86cd7994390111", false),
            ("bsonobjectid", "", false),
            // hostname
            ("hostname", "example.com", true),
            ("hostname", "a", true),
            ("hostname", "a-b", true),
            ("hostname", "a--b", false),
            ("hostname", "-a", false),
            ("hostname", "a-", true),
            ("hostname", "xn--bcher-kva.example", true),
            ("hostname", "日本.jp", true),
            ("hostname", "a.b", false),
            ("hostname", "a.b1", false),
            ("hostname", "a.bc", true),
            ("hostname", "a.b.c", false),
            ("hostname", "☃.com", true),
            ("hostname", "a_b.com", false),
            ("hostname", "1.com", true),
            ("hostname", "com.", false),
            ("hostname", "a..b", false),
            ("hostname", "a.-b.com", false),
            ("hostname", "ab-.com", false),
            (
                "hostname",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                true,
            ),
            (
                "hostname",
                "éééééééééééééééééééééééééééééééééééééééé",
                false,
            ),
            ("hostname", "a.éé", true),
            ("hostname", "a.ab1", false),
            ("hostname", "1a.com", true),
            ("hostname", "a-b-c", false),
            ("hostname", "ab-cd", false),
            ("hostname", "$.com", true),
            ("hostname", "a.$$", false),
            ("hostname", "a b", false),
            // ipv4
            ("ipv4", "1.2.3.4", true),
            ("ipv4", "010.1.1.1", true),
            ("ipv4", "1.2.3", false),
            ("ipv4", "256.1.1.1", false),
            ("ipv4", "::ffff:1.2.3.4", true),
            ("ipv4", "::1", false),
            ("ipv4", "1.2.3.4.5", false),
            ("ipv4", " 1.2.3.4", false),
            ("ipv4", "1.2.3.04", true),
            ("ipv4", "0x1.2.3.4", false),
            ("ipv4", "00000001.2.3.4", true),
            ("ipv4", "1.2.3.4/8", false),
            ("ipv4", "::1.2.3.4", true),
            ("ipv4", "1::1.2.3.4", true),
            ("ipv4", "1:2:3:4:5:6:1.2.3.4", true),
            ("ipv4", "1:2:3:4:5:6:7:1.2.3.4", false),
            // ipv6
            ("ipv6", "::1", true),
            ("ipv6", "::", true),
            ("ipv6", "1::", true),
            ("ipv6", "fe80::1%eth0", false),
            ("ipv6", "::ffff:1.2.3.4", true),
            ("ipv6", "::ffff:01.2.3.4", false),
            ("ipv6", "1:2:3:4:5:6:7:8", true),
            ("ipv6", "1:2:3:4:5:6:7:8:9", false),
            ("ipv6", "1:2:3:4:5:6:7::", true),
            ("ipv6", "::1:2:3:4:5:6:7", true),
            ("ipv6", "1::2:3:4:5:6:7", true),
            ("ipv6", "00001::", false),
            ("ipv6", "12345::", false),
            ("ipv6", "1.2.3.4", false),
            ("ipv6", "::1.2.3.4", true),
            ("ipv6", "1:2:3:4:5:6:1.2.3.4", true),
            ("ipv6", ":1", false),
            ("ipv6", "1:", false),
            ("ipv6", "1:::2", false),
            ("ipv6", "[::1]", false),
            ("ipv6", "::FFFF:1.2.3.4", true),
            ("ipv6", "0:0:0:0:0:0:0:0", true),
            // cidr
            ("cidr", "10.0.0.0/8", true),
            ("cidr", "10.0.0.0/33", false),
            ("cidr", "010.0.0.0/8", true),
            ("cidr", "::/0", true),
            ("cidr", "::/129", false),
            ("cidr", "1.2.3.4/08", true),
            ("cidr", "1.2.3.4/", false),
            ("cidr", "1.2.3.4/+8", false),
            ("cidr", "::ffff:1.2.3.4/96", true),
            ("cidr", "1.2.3.4/32", true),
            ("cidr", "fe80::1/64", true),
            ("cidr", "1.2.3.4/999999999", false),
            // mac
            ("mac", "01:23:45:67:89:ab", true),
            ("mac", "01-23-45-67-89-ab", true),
            ("mac", "0123.4567.89ab", true),
            ("mac", "0123456789ab", true),
            ("mac", "01:23:45:67:89:ab:cd:ef", true),
            ("mac", "01:23:45:67:89", false),
            ("mac", "01:23-45:67:89:ab", false),
            ("mac", "01:23:45:67:89:AB", true),
            ("mac", "0123.4567.89ab.cdef", true),
            (
                "mac",
                "01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67",
                true,
            ),
            ("mac", "0123.4567:89ab", false),
            ("mac", "012345678g9a", false),
            // uuid
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "123E4567E89B12D3A456426614174000", true),
            ("uuid", "123e4567-e89b-12d3-a456-42661417400", false),
            ("uuid", "123e4567-e89b-32d3-a456-426614174000", true),
            ("uuid", "123e4567-e89b-42d3-8456-426614174000", true),
            ("uuid", "123e4567-e89b-52d3-b456-426614174000", true),
            ("uuid", "123e4567-e89b-42d3-c456-426614174000", true),
            ("uuid", "123e4567--e89b-12d3-a456-426614174000", false),
            // uuid4
            ("uuid4", "123e4567-e89b-12d3-a456-426614174000", false),
            ("uuid4", "123E4567E89B12D3A456426614174000", false),
            ("uuid4", "123e4567-e89b-12d3-a456-42661417400", false),
            ("uuid4", "123e4567-e89b-32d3-a456-426614174000", false),
            ("uuid4", "123e4567-e89b-42d3-8456-426614174000", true),
            ("uuid4", "123e4567-e89b-52d3-b456-426614174000", false),
            ("uuid4", "123e4567-e89b-42d3-c456-426614174000", false),
            ("uuid4", "123e4567--e89b-12d3-a456-426614174000", false),
            // isbn10
            ("isbn10", "0321751043", true),
            ("isbn10", "978-0321751041", false),
            ("isbn10", "0-321-75104-3", true),
            ("isbn10", "032175104X", false),
            ("isbn10", "0 321 75104 3", true),
            ("isbn10", "9780321751041", false),
            ("isbn10", "9780321751042", false),
            ("isbn10", "03217510431", false),
            // isbn13
            ("isbn13", "0321751043", false),
            ("isbn13", "978-0321751041", true),
            ("isbn13", "0-321-75104-3", false),
            ("isbn13", "032175104X", false),
            ("isbn13", "0 321 75104 3", false),
            ("isbn13", "9780321751041", true),
            ("isbn13", "9780321751042", false),
            ("isbn13", "03217510431", false),
            // creditcard
            ("creditcard", "4111111111111111", true),
            ("creditcard", "4111-1111-1111-1111", true),
            ("creditcard", "4111 1111 1111 1112", false),
            ("creditcard", "5500000000000004", true),
            ("creditcard", "340000000000009", true),
            ("creditcard", "30000000000004", true),
            ("creditcard", "6011000000000004", true),
            ("creditcard", "3530111333300000", true),
            ("creditcard", "2131000000000008", false),
            ("creditcard", "41111111111111110", false),
            ("creditcard", "4111a1111b1111c1111", true),
            ("creditcard", "٤111111111111111", false),
            // ssn
            ("ssn", "123-45-6789", true),
            ("ssn", "123 45 6789", true),
            ("ssn", "123456789", false),
            ("ssn", "123-456789", false),
            ("ssn", "12-345-6789", false),
            ("ssn", "123-45-678a", false),
            ("ssn", "123 45-6789", true),
            // hexcolor
            ("hexcolor", "#fff", true),
            ("hexcolor", "fff", true),
            ("hexcolor", "#ffff", false),
            ("hexcolor", "#ffffff", true),
            ("hexcolor", "ffffff", true),
            ("hexcolor", "#fffffff", false),
            ("hexcolor", "#ggg", false),
            ("hexcolor", "#FfF", true),
            ("hexcolor", "", false),
            // rgbcolor
            ("rgbcolor", "rgb(0,0,0)", true),
            ("rgbcolor", "rgb(255, 255, 255)", true),
            ("rgbcolor", "rgb( 1 , 2 , 3 )", true),
            ("rgbcolor", "rgb(256,0,0)", false),
            ("rgbcolor", "rgb(01,0,0)", false),
            ("rgbcolor", "rgb(0,0)", false),
            ("rgbcolor", "rgb(0,0,0,0)", false),
            ("rgbcolor", "RGB(0,0,0)", false),
            ("rgbcolor", "rgb(\t1,\n2,\r3)", true),
            ("rgbcolor", "rgb(\u{000b}1,2,3)", false),
            ("rgbcolor", "rgb(1 2,3,4)", false),
            ("rgbcolor", "rgb(199,249,250)", true),
            ("rgbcolor", "rgb(200,0,0)", true),
            // byte
            ("byte", "", false),
            ("byte", "aGVsbG8=", true),
            ("byte", "aGVsbG8", false),
            ("byte", "aGVsbA==", true),
            ("byte", "aGVs", true),
            ("byte", "a===", false),
            ("byte", "====", false),
            ("byte", "ab+/", true),
            ("byte", "ab-_", false),
            ("byte", "aGVsbG8=aGVs", false),
            ("byte", "aGVs\n", false),
            // date
            ("date", "2024-01-31", true),
            ("date", "2024-02-29", true),
            ("date", "2023-02-29", false),
            ("date", "2024-13-01", false),
            ("date", "2024-00-10", false),
            ("date", "2024-01-00", false),
            ("date", "0000-02-29", true),
            ("date", "1900-02-29", false),
            ("date", "2000-02-29", true),
            ("date", "24-01-01", false),
            ("date", "2024-1-01", false),
            ("date", "2024-01-1", false),
            ("date", "+024-01-01", false),
            ("date", "2024/01/01", false),
            ("date", "2024-01-01 ", false),
            ("date", "2024-04-31", false),
            ("date", "9999-12-31", true),
            ("date", "٢٠٢٤-01-01", false),
            // duration
            ("duration", "1h", true),
            ("duration", "1h30m", true),
            ("duration", "1.5h", true),
            ("duration", "-1h", true),
            ("duration", "1d", true),
            ("duration", "3 days", true),
            ("duration", "5 weeks", true),
            ("duration", "x 5 weeks y", true),
            ("duration", "5 foo", false),
            ("duration", "5 foo 3s", true),
            ("duration", "1µs", true),
            ("duration", "1μs", true),
            ("duration", "99999999999999999999s", false),
            ("duration", "1 nanoseconds", true),
            ("duration", "2 hrs", false),
            ("duration", "2 hr", true),
            ("duration", "2 H", true),
            ("duration", "2 Hours", true),
            ("duration", "1 mins", true),
            ("duration", "1 sec", true),
            ("duration", "1 secs", true),
            ("duration", "1 s", true),
            ("duration", "3 wk", true),
            ("duration", "3 w", true),
            ("duration", "abc", false),
            ("duration", "", false),
            ("duration", "5", false),
            ("duration", "5 µ", false),
            ("duration", "10 MINUTES", true),
            ("duration", "1microsecond", true),
            ("duration", "1 milli", true),
            ("duration", "3 ms", true),
            ("duration", "1 mS", true),
            ("duration", "1000000000000000000000 foo 1 s", false),
            ("duration", "1 s 1000000000000000000000 foo", false),
            ("duration", "3000000h", true),
            // date-time
            ("date-time", "2024-01-01T10:00:00Z", true),
            ("date-time", "2024-01-01t10:00:00z", true),
            ("date-time", "2024-01-01T10:00:00.5Z", true),
            ("date-time", "2024-01-01T10:00:00+01:00", true),
            ("date-time", "2024-01-01T24:00:00Z", false),
            ("date-time", "2024-01-01T23:60:00Z", false),
            ("date-time", "2024-01-01T10:00:60Z", false),
            ("date-time", "2024-01-01T10:00:00", false),
            ("date-time", "2024-01-01T10:00:00.Z", false),
            ("date-time", "2024-01-01T10:00:00x5Z", true),
            ("date-time", "2024-01-01T10:00:00+99:99", true),
            ("date-time", "2024-02-30T10:00:00Z", false),
            ("date-time", "2024-01-01 10:00:00Z", false),
            ("date-time", "2024-01-01T10:00:00ZT", true),
            ("date-time", "2024-01-01T10:00:00Zt", true),
            ("date-time", "2024-01-01Tt10:00:00Z", false),
            ("date-time", "2024-01-01T10:00:00\n5Z", false),
            ("date-time", "2024-01-01T10:00:00é5Z", true),
            ("date-time", "2024-01-01T10:00:00İ5Z", true),
            ("date-time", "2024-01-01T10:00:005Z", false),
            ("date-time", "2024-01-01T10:00:00-0100", false),
            ("date-time", "T", false),
            ("date-time", "tttt", false),
            ("date-time", "2024-01-01T1:00:00Z", false),
            ("date-time", "2024-01-01t10:00:00Z", true),
            ("date-time", "2024-01-01t10:00:00z", true),
            ("date-time", "2024-01-01t10:00:00.5Z", true),
            ("date-time", "2024-01-01t10:00:00+01:00", true),
            ("date-time", "2024-01-01t24:00:00Z", false),
            ("date-time", "2024-01-01t23:60:00Z", false),
            ("date-time", "2024-01-01t10:00:60Z", false),
            ("date-time", "2024-01-01t10:00:00", false),
            ("date-time", "2024-01-01t10:00:00.Z", false),
            ("date-time", "2024-01-01t10:00:00x5Z", true),
            ("date-time", "2024-01-01t10:00:00+99:99", true),
            ("date-time", "2024-02-30t10:00:00Z", false),
            ("date-time", "2024-01-01 10:00:00Z", false),
            ("date-time", "2024-01-01t10:00:00Zt", true),
            ("date-time", "2024-01-01t10:00:00Zt", true),
            ("date-time", "2024-01-01tt10:00:00Z", false),
            ("date-time", "2024-01-01t10:00:00\n5Z", false),
            ("date-time", "2024-01-01t10:00:00é5Z", true),
            ("date-time", "2024-01-01t10:00:00İ5Z", true),
            ("date-time", "2024-01-01t10:00:005Z", false),
            ("date-time", "2024-01-01t10:00:00-0100", false),
            ("date-time", "t", false),
            ("date-time", "tttt", false),
            ("date-time", "2024-01-01t1:00:00Z", false),
            // k8s-short-name
            ("k8s-short-name", "a", true),
            ("k8s-short-name", "a-b", true),
            ("k8s-short-name", "-a", false),
            ("k8s-short-name", "a-", false),
            ("k8s-short-name", "A", false),
            ("k8s-short-name", "a.b", false),
            ("k8s-short-name", "1", true),
            ("k8s-short-name", "a_b", false),
            // k8s-long-name
            ("k8s-long-name", "a", true),
            ("k8s-long-name", "a.b", true),
            ("k8s-long-name", "a..b", false),
            ("k8s-long-name", ".a", false),
            ("k8s-long-name", "a.", false),
            ("k8s-long-name", "A.b", false),
            ("k8s-long-name", "a-b.c-d", true),
            ("k8s-long-name", "a.-b", false),
            // email
            ("email", "a@b", true),
            ("email", "Barry Gibbs <bg@example.com>", true),
            ("email", "<a@b>", true),
            ("email", "a@b (Barry)", true),
            ("email", "(c) a@b", false),
            ("email", "team: a@b;", true),
            ("email", "a@b <c@d>", false),
            ("email", "\"\"@b", false),
            ("email", "a..b@c", false),
            ("email", "a@[1.2.3.4]", true),
            ("email", "a@[01.2.3.4]", false),
            ("email", "=?utf-8?q?x?= <a@b>", true),
            ("email", "=?foo?q?x?= <a@b>", false),
            ("email", "x =?foo?q?x?= <a@b>", true),
            ("email", "a @b", false),
            ("email", "< a@ b>", true),
            ("email", "", false),
            // uri
            ("uri", "http://example.com/x", true),
            ("uri", "/path", true),
            ("uri", "a:", true),
            ("uri", "mailto:%zz", true),
            ("uri", "//ho st/p", true),
            ("uri", "http://h#f", false),
            ("uri", "/a#b", true),
            ("uri", "http://hosté/", true),
            ("uri", "http://h%41/", false),
            ("uri", "http://u@v@h/", true),
            ("uri", "http://h:/", true),
            ("uri", "http://a:b:1/", true),
            ("uri", "http://a:1:b/", false),
            ("uri", "http://[1.2.3.4]/", false),
            ("uri", "http://[::ffff:1.2.3.4]/", true),
            ("uri", "http://[fe80::1%25]/", false),
            ("uri", "http://[fe80::1%25en0]/", true),
            ("uri", "*", true),
            ("uri", "", false),
            ("uri", "relative", false),
            ("uri", "http:///", false),
        ];
        for (format, text, go) in cases {
            assert_eq!(
                validates(&format.replace('-', ""), text),
                *go,
                "{format} {text:?}"
            );
        }
    }

    /// Go's Unicode tables are of Unicode 15.0: a letter or symbol assigned
    /// since (Unicode 15.1's CJK Extension I, 16.0's Garay and symbols) is
    /// none to its `hostname` pattern (297,000 code points compared).
    #[test]
    fn a_hostnames_letters_are_unicode_15s() {
        assert!(!validates("hostname", "\u{1CC00}.com"));
        assert!(!validates("hostname", "a.\u{2EBF0}\u{2EBF0}"));
        assert!(!validates("hostname", "\u{10D4A}.com"));
        assert!(validates("hostname", "日.com"));
    }

    /// The lengths are counted in bytes, as Go's `len` counts them.
    #[test]
    fn lengths_are_counted_in_bytes() {
        let a = |n: usize| "a".repeat(n);
        assert!(validates("hostname", &a(63)));
        assert!(!validates("hostname", &a(64)));
        assert!(validates("hostname", &format!("{}.com", a(63))));
        assert!(!validates("hostname", &format!("{}.com", "é".repeat(32))));
        assert!(validates("k8sshortname", &a(63)));
        assert!(!validates("k8sshortname", &a(64)));
        assert!(validates("k8slongname", &a(253)));
        assert!(!validates("k8slongname", &a(254)));
    }

    /// Hostile sizes are read in one pass: a megabyte of each shape the
    /// formats' patterns and loops walk.
    #[test]
    fn a_megabyte_is_judged_in_one_pass() {
        for (format, text) in [
            ("hostname", "日".repeat(300_000)),
            ("duration", "1 x ".repeat(250_000)),
            ("datetime", "2024-01-01T".repeat(90_000)),
            ("creditcard", "4".repeat(1_000_000)),
            ("isbn", " -".repeat(500_000)),
            ("email", "(".repeat(1_000_000)),
            ("uri", "http://[".repeat(120_000)),
        ] {
            assert!(!validates(format, &text), "{format}");
        }
    }
}
