//! The regular expressions of the type definitions, written out as
//! matchers over bytes: each function says whether the whole text matches
//! the pattern its comment quotes. Compiling the seven patterns with the
//! `regex` crate cost more than reading all the plain scalars of a small
//! render (1.6 M instructions of 40 M at prod, BENCHMARKS.md); the tests
//! hold each matcher to its pattern, compiled there.
//!
//! Every pattern here is deterministic once read left to right (a greedy
//! step never has to give back what a later step needs), which the
//! comments say where it is not plain to see.

/// A cursor over the text's bytes.
struct Cursor<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl<'t> Cursor<'t> {
    fn new(text: &'t str) -> Self {
        Cursor {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Takes one byte if `accept` takes it.
    fn eat(&mut self, accept: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(b) if accept(b) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    /// Takes the bytes `accept` takes, up to `max`; how many.
    fn run(&mut self, accept: impl Fn(u8) -> bool, max: usize) -> usize {
        let mut taken = 0;
        while taken < max && self.eat(&accept) {
            taken += 1;
        }
        taken
    }

    /// Takes the bytes `accept` takes, however many.
    fn all(&mut self, accept: impl Fn(u8) -> bool) -> usize {
        self.run(accept, usize::MAX)
    }

    fn sign(&mut self) -> bool {
        self.eat(|b| b == b'-' || b == b'+')
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn rest(&self) -> &'t [u8] {
        &self.bytes[self.at..]
    }
}

fn digit(b: u8) -> bool {
    b.is_ascii_digit()
}

fn digit_(b: u8) -> bool {
    b.is_ascii_digit() || b == b'_'
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `^[-+]?[0-9]+$`
pub fn core_int(text: &str) -> bool {
    let mut c = Cursor::new(text);
    c.sign();
    c.all(digit) > 0 && c.done()
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`: YAML 1.2's
/// float, which go-yaml v2 also reads.
pub fn core_float(text: &str) -> bool {
    let mut c = Cursor::new(text);
    c.sign();
    if c.eat(|b| b == b'.') {
        if c.all(digit) == 0 {
            return false;
        }
    } else {
        if c.all(digit) == 0 {
            return false;
        }
        if c.eat(|b| b == b'.') {
            c.all(digit);
        }
    }
    if c.eat(|b| b == b'e' || b == b'E') {
        c.sign();
        if c.all(digit) == 0 {
            return false;
        }
    }
    c.done()
}

/// `^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`
pub fn yaml_1_1_bool(text: &str) -> bool {
    matches!(
        text,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// `(:[0-5]?[0-9])+`, then the text's end or a byte `then` takes (not a
/// digit). Two digits are taken whenever they can be: one would leave a
/// digit where `:` or the end must follow.
fn sexagesimal(c: &mut Cursor<'_>, then: impl Fn(u8) -> bool) -> bool {
    let mut groups = 0;
    while c.eat(|b| b == b':') {
        match c.rest() {
            [b'0'..=b'5', b'0'..=b'9', ..] => c.at += 2,
            [b'0'..=b'9', ..] => c.at += 1,
            _ => return false,
        }
        groups += 1;
    }
    groups > 0 && c.peek().is_none_or(then)
}

/// `^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$`
pub fn yaml_1_1_int(text: &str) -> bool {
    let mut c = Cursor::new(text);
    c.sign();
    let rest = c.rest();
    let all_of = |bytes: &[u8], accept: fn(u8) -> bool| {
        !bytes.is_empty() && bytes.iter().all(|&b| accept(b))
    };
    match rest {
        [b'0'] => true,
        [b'0', b'b', binary @ ..] => all_of(binary, |b| matches!(b, b'0' | b'1' | b'_')),
        [b'0', b'x', hex @ ..] => all_of(hex, |b| b.is_ascii_hexdigit() || b == b'_'),
        [b'0', octal @ ..] => all_of(octal, |b| matches!(b, b'0'..=b'7' | b'_')),
        [b'1'..=b'9', ..] => {
            c.at += 1;
            c.all(digit_);
            c.done() || sexagesimal(&mut c, |_| false)
        }
        _ => false,
    }
}

/// `^([-+]?([0-9][0-9_]*)\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9][0-9_]*([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`
pub fn yaml_1_1_float(text: &str) -> bool {
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let mut c = Cursor::new(text);
    let signed = c.sign();
    if matches!(c.rest(), b".inf" | b".Inf" | b".INF") {
        return true;
    }
    // `[eE][-+][0-9]+`, optional: its sign is required.
    let exponent =
        |c: &mut Cursor<'_>| !c.eat(|b| b == b'e' || b == b'E') || (c.sign() && c.all(digit) > 0);
    if c.eat(|b| b == b'.') {
        // Only unsigned: `\.[0-9][0-9_]*`.
        return !signed && c.eat(digit) && {
            c.all(digit_);
            exponent(&mut c) && c.done()
        };
    }
    if !c.eat(digit) {
        return false;
    }
    c.all(digit_);
    match c.peek() {
        Some(b'.') => {
            c.at += 1;
            c.all(digit_);
            exponent(&mut c) && c.done()
        }
        Some(b':') => {
            sexagesimal(&mut c, |b| b == b'.') && c.eat(|b| b == b'.') && {
                c.all(digit_);
                c.done()
            }
        }
        _ => false,
    }
}

/// `^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$`
pub fn yaml_1_1_timestamp(text: &str) -> bool {
    let mut c = Cursor::new(text);
    if c.run(digit, 4) != 4 || !c.eat(|b| b == b'-') {
        return false;
    }
    let month = c.run(digit, 2);
    if month == 0 || !c.eat(|b| b == b'-') {
        return false;
    }
    let day = c.run(digit, 2);
    if day == 0 {
        return false;
    }
    if c.done() {
        // The date alone: two digits each.
        return month == 2 && day == 2;
    }
    if !c.eat(|b| b == b'T' || b == b't') && c.all(blank) == 0 {
        return false;
    }
    let time = c.run(digit, 2) > 0
        && c.eat(|b| b == b':')
        && c.run(digit, 2) == 2
        && c.eat(|b| b == b':')
        && c.run(digit, 2) == 2;
    if !time {
        return false;
    }
    if c.eat(|b| b == b'.') {
        c.all(digit);
    }
    if c.done() {
        return true;
    }
    // `[ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?)`: the zone after any blanks.
    c.all(blank);
    if c.eat(|b| b == b'Z') {
        return c.done();
    }
    c.sign()
        && c.run(digit, 2) > 0
        && (c.done() || (c.eat(|b| b == b':') && c.run(digit, 2) == 2 && c.done()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::Regex;

    /// A matcher of this module.
    type Matcher = fn(&str) -> bool;

    /// Each matcher with the pattern it writes out.
    fn pairs() -> Vec<(Matcher, Regex)> {
        let pattern = |p: &str| Regex::new(p).unwrap();
        vec![
            (core_int, pattern(r"^[-+]?[0-9]+$")),
            (
                core_float,
                pattern(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"),
            ),
            (
                yaml_1_1_bool,
                pattern(
                    r"^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
                ),
            ),
            (
                yaml_1_1_int,
                pattern(
                    r"^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$",
                ),
            ),
            (
                yaml_1_1_float,
                pattern(
                    r"^([-+]?([0-9][0-9_]*)\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9][0-9_]*([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$",
                ),
            ),
            (
                yaml_1_1_timestamp,
                pattern(
                    r"^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$",
                ),
            ),
        ]
    }

    /// Near misses of every pattern: texts of the bytes they read.
    fn near_miss() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(
                b"0123456789_-+.:eExXbBtTZ \tinfaNIFyYsoO\n"
                    .iter()
                    .map(|&b| b as char)
                    .collect::<Vec<char>>(),
            ),
            0..24,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// Texts each pattern matches, and each with one byte changed, added
    /// or removed.
    fn matching() -> impl Strategy<Value = String> {
        let shapes = [
            r"[-+]?[0-9]{1,5}",
            r"[-+]?(\.[0-9]{1,3}|[0-9]{1,3}(\.[0-9]{0,3})?)([eE][-+]?[0-9]{1,3})?",
            r"[-+]?(0b[0-1_]{1,4}|0[0-7_]{1,4}|0|[1-9][0-9_]{0,4}|0x[0-9a-fA-F_]{1,4}|[1-9][0-9_]{0,3}(:[0-5]?[0-9]){1,3})",
            r"[-+]?[0-9][0-9_]{0,3}\.[0-9_]{0,3}([eE][-+][0-9]{1,2})?|\.[0-9][0-9_]{0,3}([eE][-+][0-9]{1,2})?|[-+]?[0-9][0-9_]{0,3}(:[0-5]?[0-9]){1,3}\.[0-9_]{0,3}|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)",
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]{1,2})[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]{0,3})?([ \t]{0,2}(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?",
        ];
        let texts = prop::strategy::Union::new(
            shapes
                .iter()
                .map(|shape| prop::string::string_regex(shape).unwrap().boxed()),
        );
        (texts, 0usize..4, any::<prop::sample::Index>(), near_miss()).prop_map(
            |(text, edit, at, other)| {
                let mut chars: Vec<char> = text.chars().collect();
                let byte = other.chars().next().unwrap_or('9');
                let i = at.index(chars.len() + 1);
                match edit {
                    0 => {}
                    1 if i < chars.len() => chars[i] = byte,
                    2 => chars.insert(i, byte),
                    _ if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => {}
                }
                chars.into_iter().collect()
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every matcher says what its pattern says, on texts the patterns
        /// match and on near misses.
        #[test]
        fn each_matcher_is_its_pattern(text in prop_oneof![matching(), near_miss()]) {
            for (matcher, pattern) in pairs() {
                prop_assert_eq!(matcher(&text), pattern.is_match(&text), "{:?} against {}", text, pattern);
            }
        }
    }

    #[test]
    fn the_corners_of_each_pattern() {
        let texts = [
            "",
            "0",
            "-0",
            "+",
            "0b",
            "0b_",
            "0x",
            "0x_",
            "00",
            "0_",
            "08",
            "1_000",
            "1:20",
            "1:60",
            "1:5:9",
            "1:59",
            "-1:2",
            "190:20:30.15",
            "1:20.",
            "1.",
            ".5",
            "-.5",
            "+.5",
            ".5e+1",
            ".5e1",
            "1.e-3",
            "1e3",
            "1.0e3",
            "1.0E+3",
            ".inf",
            "-.inf",
            "+.Inf",
            "-.nan",
            ".NaN",
            "2001-12-14",
            "2001-1-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-12-14  21:59:43.10Z",
            "2001-12-14 21:59:43",
            "2001-12-14 21:59:43 ",
            "2001-12-14 21:59:43+05:0",
            "2001-12-14 21:59:43.+05",
            "2001-12-14\t1:00:00",
            "yes",
            "Yes",
            "yES",
            "y",
            "off",
            "1\n",
        ];
        for text in texts {
            for (matcher, pattern) in pairs() {
                assert_eq!(
                    matcher(text),
                    pattern.is_match(text),
                    "{text:?} against {pattern}"
                );
            }
        }
    }
}
