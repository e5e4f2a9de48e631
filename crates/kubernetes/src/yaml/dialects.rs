//! The three readings of a plain scalar that a manifest may meet: YAML 1.2's
//! core schema (what this crate reads), go-yaml v2 (what `kubectl`, the API
//! server and `sigs.k8s.io/yaml` read) and the YAML 1.1 type repository
//! (what PyYAML and other YAML 1.1 tools read). A manifest is read only where
//! all three agree; [`resolve`] says what the scalar is, or why it is
//! ambiguous.
//!
//! The rules follow the published type definitions (yaml.org/type/ for 1.1,
//! the 1.2.2 core schema) and go-yaml v2's documented behaviour: the 1.1
//! booleans (`y`, `yes`, `on`, …), octal `0777`, binary `0b1`, `_` in
//! numbers, sexagesimal `1:20`, timestamps, the merge key `<<` and the value
//! key `=`.

mod patterns;

/// What a reader makes of a plain scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    /// Null.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer (wider than 64 bits so that overflow is seen).
    Int(i128),
    /// A finite float.
    Float(f64),
    /// The text itself, as a string.
    Str,
    /// Infinity or not-a-number.
    NonFinite,
    /// A date or time (YAML 1.1 `!!timestamp`).
    Timestamp,
    /// The merge key `<<`.
    Merge,
    /// The YAML 1.1 value key `=`.
    ValueKey,
    /// A value the reader refuses (a number out of range, `0b_`).
    Invalid,
}

impl Reading {
    /// Words for messages; `text` is the scalar. A value read from it is
    /// quoted as the text is, so that a message that must not quote its
    /// input (a Secret's value) masks both.
    pub fn describe(&self, text: &str) -> String {
        match self {
            Reading::Null => "null".to_owned(),
            Reading::Bool(b) => format!("the boolean `{b}`"),
            Reading::Int(i) => format!("the integer `{i}`"),
            Reading::Float(f) => format!("the number `{f:?}`"),
            Reading::Str => format!("the string \"{text}\""),
            Reading::NonFinite => "a non-finite number".to_owned(),
            Reading::Timestamp => "a timestamp".to_owned(),
            Reading::Merge => "a merge key".to_owned(),
            Reading::ValueKey => "the value key `=`".to_owned(),
            Reading::Invalid => "an error".to_owned(),
        }
    }

    /// The mapping key a JSON converter makes of this reading, when the
    /// reading is a string, an integer or a boolean.
    fn key_text(&self, text: &str) -> Option<String> {
        match self {
            Reading::Str => Some(text.to_owned()),
            Reading::Int(i) => Some(i.to_string()),
            Reading::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// YAML 1.2 core schema.
pub fn core(text: &str) -> Reading {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Reading::Null,
        "true" | "True" | "TRUE" => return Reading::Bool(true),
        "false" | "False" | "FALSE" => return Reading::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Reading::NonFinite,
        _ => {}
    }
    if patterns::core_int(text) {
        return int(text.strip_prefix('+').unwrap_or(text), 10);
    }
    if let Some(oct) = text.strip_prefix("0o")
        && !oct.is_empty()
        && oct.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        return int(oct, 8);
    }
    if let Some(hex) = text.strip_prefix("0x")
        && !hex.is_empty()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return int(hex, 16);
    }
    if patterns::core_float(text) {
        return float(text);
    }
    Reading::Str
}

/// go-yaml v2 (`gopkg.in/yaml.v2`, forked as `sigs.k8s.io/yaml/goyaml.v2`),
/// decoding into `interface{}` as `sigs.k8s.io/yaml` does.
pub fn go_yaml_v2(text: &str) -> Reading {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Reading::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Reading::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Reading::Bool(false);
        }
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF"
        | "-.inf" | "-.Inf" | "-.INF" => return Reading::NonFinite,
        // `<<` is in go-yaml's table, but no first character leads there:
        // a plain `<<` value is the string; as a key it merges (refused
        // before this, for every reader).
        _ => {}
    }
    match text.as_bytes()[0] {
        // Go's ParseFloat on the text as written.
        b'.' => {
            if patterns::core_float(text) {
                float(text)
            } else {
                Reading::Str
            }
        }
        // A timestamp resolves as such, but decoding into `interface{}`
        // keeps its text (go-yaml v2's decode.go, for compatibility): the
        // string, as below.
        b'0'..=b'9' | b'+' | b'-' => {
            let plain = text.replace('_', "");
            if let Some(i) = go_parse_int(&plain) {
                return Reading::Int(i);
            }
            if patterns::core_float(&plain) {
                return match float(&plain) {
                    // Go's ParseFloat fails on overflow; the text stays a string.
                    Reading::NonFinite => Reading::Str,
                    reading => reading,
                };
            }
            Reading::Str
        }
        _ => Reading::Str,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`.
fn go_parse_int(text: &str) -> Option<i128> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (digits, radix) = if let Some(rest) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        (rest, 16)
    } else if let Some(rest) = unsigned
        .strip_prefix("0o")
        .or_else(|| unsigned.strip_prefix("0O"))
    {
        (rest, 8)
    } else if let Some(rest) = unsigned
        .strip_prefix("0b")
        .or_else(|| unsigned.strip_prefix("0B"))
    {
        (rest, 2)
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        (&unsigned[1..], 8)
    } else {
        (unsigned, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()? as i128;
    let value = if negative { -magnitude } else { magnitude };
    // ParseInt's range, then ParseUint's (which takes no sign).
    let fits = i64::try_from(value).is_ok() || (!negative && !text.starts_with('+'));
    fits.then_some(value)
}

/// The YAML 1.1 types (yaml.org/type/: bool, int, float, null, timestamp,
/// merge, value), as PyYAML resolves them.
pub fn yaml_1_1(text: &str) -> Reading {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Reading::Null,
        "<<" => return Reading::Merge,
        "=" => return Reading::ValueKey,
        _ => {}
    }
    if patterns::yaml_1_1_bool(text) {
        return Reading::Bool(
            matches!(text.as_bytes()[0], b'y' | b'Y' | b't' | b'T')
                || text.eq_ignore_ascii_case("on"),
        );
    }
    if patterns::yaml_1_1_int(text) {
        return yaml_1_1_int(text);
    }
    if patterns::yaml_1_1_float(text) {
        let plain = text.replace('_', "");
        if plain.contains(':') {
            // Sexagesimal: a number no YAML 1.2 reader makes of it, so
            // its value does not matter: it never agrees.
            return Reading::Invalid;
        }
        if plain.to_ascii_lowercase().ends_with("inf") || plain.eq_ignore_ascii_case(".nan") {
            return Reading::NonFinite;
        }
        return match plain.parse::<f64>() {
            Ok(f) if f.is_finite() => Reading::Float(f),
            Ok(_) => Reading::NonFinite,
            Err(_) => Reading::Invalid,
        };
    }
    if patterns::yaml_1_1_timestamp(text) {
        return Reading::Timestamp;
    }
    Reading::Str
}

fn yaml_1_1_int(text: &str) -> Reading {
    let plain = text.replace('_', "");
    let (negative, unsigned) = match plain.as_bytes()[0] {
        b'-' => (true, &plain[1..]),
        b'+' => (false, &plain[1..]),
        _ => (false, &plain[..]),
    };
    if unsigned.contains(':') {
        let mut value: i128 = 0;
        for part in unsigned.split(':') {
            let Ok(part) = part.parse::<i128>() else {
                return Reading::Invalid;
            };
            value = value.saturating_mul(60).saturating_add(part);
        }
        return Reading::Int(if negative { -value } else { value });
    }
    let (digits, radix) = if unsigned == "0" {
        ("0", 10)
    } else if let Some(rest) = unsigned.strip_prefix("0b") {
        (rest, 2)
    } else if let Some(rest) = unsigned.strip_prefix("0x") {
        (rest, 16)
    } else if let Some(rest) = unsigned.strip_prefix('0') {
        (rest, 8)
    } else {
        (unsigned, 10)
    };
    match i128::from_str_radix(digits, radix) {
        Ok(v) => Reading::Int(if negative { -v } else { v }),
        Err(_) if digits.is_empty() && radix == 8 => Reading::Int(0),
        Err(_) => Reading::Invalid,
    }
}

fn int(digits: &str, radix: u32) -> Reading {
    i128::from_str_radix(digits, radix).map_or(Reading::Invalid, Reading::Int)
}

fn float(text: &str) -> Reading {
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => Reading::Float(f),
        Ok(_) => Reading::NonFinite,
        Err(_) => Reading::Invalid,
    }
}

/// Why a plain scalar cannot be read from a manifest.
#[derive(Debug, PartialEq)]
pub struct Ambiguous {
    /// What is wrong, in one line.
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

/// The reading of a plain scalar that all three readers share, or why not.
pub fn resolve(text: &str) -> Result<Reading, Ambiguous> {
    if surely_text(text) {
        return Ok(Reading::Str);
    }
    let core = core(text);
    let go = go_yaml_v2(text);
    let old = yaml_1_1(text);
    if core == go && core == old && core != Reading::NonFinite {
        return Ok(core);
    }
    let quoted = super::quote(text);
    // A number Kubernetes reads as infinite or NaN, no JSON holds: kubectl
    // refuses it. One it reads as text (`1e400`, which Go's ParseFloat
    // does not take) is said below, as the other readers' infinity.
    if go == Reading::NonFinite {
        return Err(Ambiguous {
            message: format!("`{quoted}` is not a finite number"),
            hint: format!("quote it (\"{quoted}\") if you mean the text"),
        });
    }
    let message = if go != core {
        format!(
            "plain `{quoted}` is {} to Kubernetes (go-yaml, YAML 1.1) but {} in YAML 1.2",
            go.describe(&quoted),
            core.describe(&quoted)
        )
    } else {
        // Kubernetes reads what YAML 1.2 reads; another tool of the file's
        // (PyYAML, libyaml) would not.
        format!(
            "plain `{quoted}` is {} to Kubernetes (go-yaml) and in YAML 1.2, but {} to other YAML 1.1 readers (PyYAML, libyaml)",
            core.describe(&quoted),
            old.describe(&quoted)
        )
    };
    let hint = match &go {
        Reading::Int(i) => format!(
            "write `{i}` if you mean the number Kubernetes reads, or quote it (\"{quoted}\") for the text"
        ),
        Reading::Bool(b) => {
            format!("write `{b}` if you mean the boolean, or quote it (\"{quoted}\") for the text")
        }
        _ => format!("quote it (\"{quoted}\") if you mean the text"),
    };
    Err(Ambiguous { message, hint })
}

/// Checks a plain mapping key: Kubernetes and YAML 1.1 readers must make
/// the same key of it as this crate, which takes the text.
pub fn check_key(text: &str) -> Result<(), Ambiguous> {
    if surely_text(text) {
        return Ok(());
    }
    for (reading, reader) in [
        (go_yaml_v2(text), "Kubernetes (go-yaml, YAML 1.1)"),
        (yaml_1_1(text), "a YAML 1.1 reader"),
    ] {
        if reading.key_text(text).as_deref() != Some(text) {
            let quoted = super::quote(text);
            return Err(Ambiguous {
                message: format!(
                    "plain key `{quoted}` is {} to {reader}, not the text",
                    reading.describe(&quoted)
                ),
                hint: format!("quote the key (\"{quoted}\")"),
            });
        }
    }
    Ok(())
}

/// Whether all three readers surely read `text` as the string it spells,
/// decided without the readers: it starts with an ASCII letter, holds only
/// letters, digits, `-`, `_` and `/`, and is none of the words YAML 1.1 and
/// 1.2 give a type (booleans and null). Every other typed plain scalar
/// starts with a digit, a sign, `.`, `~`, `<` or `=`. Most keys and values
/// of a manifest take this path (`apiVersion`, `metadata`, `buildkit-builds`).
fn surely_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'/'))
        && !patterns::yaml_1_1_bool(text)
        && !matches!(text, "y" | "Y" | "n" | "N" | "null" | "Null" | "NULL")
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The shortcut says "text" only where the three readers do.
        #[test]
        fn the_shortcut_agrees_with_the_readers(
            text in "[a-zA-Z][a-zA-Z0-9_/-]{0,6}|(y|Y|n|N|yes|no|on|off|ON|OFF|true|False|null|NULL)[a-z0-9]?",
        ) {
            if surely_text(&text) {
                for reading in [core(&text), go_yaml_v2(&text), yaml_1_1(&text)] {
                    proptest::prop_assert_eq!(reading, Reading::Str, "{}", text);
                }
            }
        }
    }

    #[test]
    fn the_shortcut_leaves_every_typed_word_to_the_readers() {
        for word in [
            "y", "N", "yes", "Off", "TRUE", "false", "Null", "0x1f", "1:20", ".inf", "~", "<<", "=",
        ] {
            assert!(!surely_text(word), "{word}");
        }
        for word in [
            "apiVersion",
            "metadata",
            "buildkit-builds",
            "app/v1",
            "yess",
            "Nope",
            "x1",
        ] {
            assert!(surely_text(word), "{word}");
        }
    }

    #[test]
    fn the_readers_disagree_where_yaml_1_1_and_1_2_differ() {
        for text in [
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "N",
            "0777",
            "0b101",
            "1_000",
            "1:20",
            "1:20.5",
            "2001-12-14",
            "<<",
            "=",
            "0o17",
            "1e3",
            "+.5",
            "08",
            "0x_1F",
            "1.0e3",
            "1_0.5",
        ] {
            assert!(resolve(text).is_err(), "{text}");
        }
    }

    /// A number past a float's range is the text to Kubernetes (Go's
    /// ParseFloat refuses it, and go-yaml keeps the string: kubectl sends
    /// `"1e400"`) but infinity to the other readers; the message says so.
    /// One Kubernetes reads as infinity (`.inf`) no JSON holds.
    #[test]
    fn an_overflowing_number_is_named_as_each_reader_reads_it() {
        let message = |text| resolve(text).unwrap_err().message;
        assert_eq!(
            message("1e400"),
            "plain `1e400` is the string \"1e400\" to Kubernetes (go-yaml, YAML 1.1) but a non-finite number in YAML 1.2"
        );
        assert!(message("-1e400").contains("the string \"-1e400\" to Kubernetes"));
        for text in [".inf", "-.Inf", ".NaN"] {
            assert_eq!(message(text), format!("`{text}` is not a finite number"));
        }
    }

    #[test]
    fn the_readers_agree_on_the_common_forms() {
        let cases = [
            ("", Reading::Null),
            ("~", Reading::Null),
            ("null", Reading::Null),
            ("true", Reading::Bool(true)),
            ("FALSE", Reading::Bool(false)),
            ("0", Reading::Int(0)),
            ("-12", Reading::Int(-12)),
            ("+7", Reading::Int(7)),
            ("0x1F", Reading::Int(31)),
            ("1.5", Reading::Float(1.5)),
            ("1.0e+3", Reading::Float(1000.0)),
            ("1.", Reading::Float(1.0)),
            ("v1", Reading::Str),
            ("1.2.3", Reading::Str),
            ("Yesterday", Reading::Str),
            ("2001-1-2", Reading::Str),
        ];
        for (text, expected) in cases {
            assert_eq!(resolve(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn keys_must_be_the_text_to_every_reader() {
        assert!(check_key("name").is_ok());
        assert!(check_key("8080").is_ok());
        assert!(check_key("true").is_ok());
        for key in [
            "yes",
            "on",
            "y",
            "0x10",
            "0777",
            "1.5",
            "~",
            "2001-12-14",
            "=",
        ] {
            assert!(check_key(key).is_err(), "{key}");
        }
    }
}
