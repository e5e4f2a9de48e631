//! Whether bytes decode as Go's `json.Unmarshal` into a
//! `map[string]interface{}` decodes them: what the API server asks of a
//! Docker configuration Secret's JSON (`ValidateSecret`). Go's reader
//! differs from serde_json's where a real server was seen to take what
//! serde_json refuses: nesting up to 10,000 levels (serde_json stops at
//! 128), and a lone surrogate escape (`"\ud800"`, read as U+FFFD); invalid
//! UTF-8 inside a string is taken too. A number past a float64 (`1e400`)
//! is refused, as Go cannot store it.
//!
//! And a JSON value as Go decodes it into a typed struct ([`go_decode`]:
//! an annotation that holds JSON, read by the server into its types).

use serde_json::{Map, Value as Json};

/// Go's `maxNestingDepth`: one level more is refused.
const MAX_DEPTH: usize = 10_000;

/// Whether `bytes` are one JSON object or `null`, white space around, as
/// Go decodes them into a map.
pub fn decodes_as_map(bytes: &[u8]) -> bool {
    let mut reader = Reader { bytes, at: 0 };
    reader.space();
    let top = reader.peek();
    if !matches!(top, Some(b'{')) && !reader.bytes[reader.at..].starts_with(b"null") {
        // Still a syntax check first in Go, but either way refused.
        return false;
    }
    if !reader.value() {
        return false;
    }
    reader.space();
    reader.at == bytes.len()
}

/// The shape of a Go type `json.Unmarshal` decodes into, as far as it
/// refuses a value: a field not of its type fails the whole decoding
/// (`null` fits any).
#[derive(Clone, Copy)]
pub(super) enum Go {
    /// A string.
    Text,
    /// An `int32`: an integer literal within its range.
    Int32,
    /// An `int64`: an integer literal within its range.
    Int64,
    /// A `resource.Quantity`: a quantity string or number.
    Quantity,
    /// A `map[string]string`.
    Strings,
    /// A slice of the shape.
    List(&'static Go),
    /// A struct: its fields, matched as Go matches a key (exactly, else
    /// without regard to ASCII case); others are ignored.
    Struct(&'static [(&'static str, Go)]),
}

/// `value` as Go decodes it into `shape`, its keys named as the shape
/// names them and unknown ones dropped; `None` when Go's decoding fails.
pub(super) fn go_decode(value: &Json, shape: Go) -> Option<Json> {
    if value.is_null() {
        return Some(Json::Null);
    }
    let fits = match shape {
        Go::Text => value.is_string(),
        Go::Int32 => value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        Go::Int64 => value.as_i64().is_some(),
        Go::Quantity => matches!(crate::quantity::of_value(value), Some(Ok(_))),
        Go::Strings => (value.as_object())
            .is_some_and(|map| map.values().all(|v| v.is_string() || v.is_null())),
        Go::List(item) => {
            let list = value.as_array()?;
            return (list.iter().map(|v| go_decode(v, *item)))
                .collect::<Option<Vec<_>>>()
                .map(Json::Array);
        }
        Go::Struct(fields) => {
            let mut decoded = Map::new();
            for (key, value) in value.as_object()? {
                let field = (fields.iter().find(|(name, _)| name == key)).or_else(|| {
                    fields
                        .iter()
                        .find(|(name, _)| name.eq_ignore_ascii_case(key))
                });
                if let Some((name, shape)) = field {
                    decoded.insert((*name).to_owned(), go_decode(value, *shape)?);
                }
            }
            return Some(Json::Object(decoded));
        }
    };
    fits.then(|| value.clone())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// What an open container expects next.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    Object,
    Array,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// JSON's white space: space, tab, line feed, carriage return.
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// One value, containers read without recursion.
    fn value(&mut self) -> bool {
        let mut open: Vec<Open> = Vec::new();
        loop {
            // A value is expected here.
            self.space();
            let read = match self.peek() {
                Some(byte @ (b'{' | b'[')) => {
                    // An empty container is a level too.
                    if open.len() >= MAX_DEPTH {
                        return false;
                    }
                    self.at += 1;
                    self.space();
                    let (kind, close) = match byte {
                        b'{' => (Open::Object, b'}'),
                        _ => (Open::Array, b']'),
                    };
                    if !self.eat(close) {
                        if kind == Open::Object && !self.key() {
                            return false;
                        }
                        open.push(kind);
                        continue;
                    }
                    true
                }
                Some(b'"') => self.string(),
                Some(b'-' | b'0'..=b'9') => self.number(),
                _ => self.word(),
            };
            if !read || !self.after(&mut open) {
                return false;
            }
            if open.is_empty() {
                return true;
            }
        }
    }

    /// `true`, `false` or `null`.
    fn word(&mut self) -> bool {
        let rest = &self.bytes[self.at..];
        let found = [&b"true"[..], b"false", b"null"]
            .into_iter()
            .find(|w| rest.starts_with(w));
        self.at += found.map_or(0, <[u8]>::len);
        found.is_some()
    }

    /// After a value inside `open`: closes the containers it ends, then
    /// reads the separator (and, in an object, the next key) before the
    /// next value. `false` on a syntax error.
    fn after(&mut self, open: &mut Vec<Open>) -> bool {
        loop {
            let Some(&innermost) = open.last() else {
                return true;
            };
            self.space();
            let close = if innermost == Open::Object {
                b'}'
            } else {
                b']'
            };
            if self.eat(close) {
                open.pop();
                continue;
            }
            if !self.eat(b',') {
                return false;
            }
            if innermost == Open::Object {
                self.space();
                return self.key();
            }
            return true;
        }
    }

    /// An object's key and its `:`.
    fn key(&mut self) -> bool {
        if self.peek() != Some(b'"') || !self.string() {
            return false;
        }
        self.space();
        self.eat(b':')
    }

    /// A string: no control character unescaped, escapes of JSON's set,
    /// `\u` with four hex digits (a lone surrogate taken); other bytes,
    /// invalid UTF-8 included, as they are.
    fn string(&mut self) -> bool {
        self.at += 1;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'"' => return true,
                0..=0x1f => return false,
                b'\\' => match self.peek() {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 1,
                    Some(b'u') => {
                        let hex = self.bytes.get(self.at + 1..self.at + 5);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        self.at += 5;
                    }
                    _ => return false,
                },
                _ => {}
            }
        }
        false
    }

    /// A number by JSON's grammar, within a float64.
    fn number(&mut self) -> bool {
        let start = self.at;
        self.eat(b'-');
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while reader.peek().is_some_and(|b| b.is_ascii_digit()) {
                reader.at += 1;
            }
            reader.at > from
        };
        if self.eat(b'0') {
            // No digit may follow a leading zero.
        } else if !digits(self) {
            return false;
        }
        if self.eat(b'.') && !digits(self) {
            return false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return false;
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
        text.parse::<f64>().is_ok_and(f64::is_finite)
    }
}

#[cfg(test)]
mod tests {
    use super::decodes_as_map;

    /// Each as a real v1.35 server judged a Docker configuration Secret
    /// holding it (`tests/fixtures/k8s-truth/written/secrets.json` holds
    /// the small ones).
    #[test]
    fn reads_as_go_decodes_into_a_map() {
        let deep = |n: usize| format!("{{\"a\":{}{}}}", "[".repeat(n), "]".repeat(n));
        for good in [
            "{}".to_owned(),
            " \t\r\n{}\n ".to_owned(),
            "null".to_owned(),
            r#"{"a":1,"a":2}"#.to_owned(),
            r#"{"a":"\ud800"}"#.to_owned(),
            r#"{"a":1e-400,"b":-0.0e+0,"c":[true,false,null,{"d":"\"\\\/\b\f\n\r\t\u00e9"}]}"#
                .to_owned(),
            deep(200),
            deep(9_999),
        ] {
            assert!(decodes_as_map(good.as_bytes()), "{good:.80}");
        }
        assert!(decodes_as_map(b"{\"a\":\"\xff\xfe\"}"));
        for bad in [
            deep(10_000),
            r#"{"a":"\x"}"#.to_owned(),
            "{\"a\":\"\u{1}\"}".to_owned(),
            r#"{"a":1e400}"#.to_owned(),
            r#"{"a":01}"#.to_owned(),
            "\u{a0}{}".to_owned(),
            r#"{"a":1,}"#.to_owned(),
            "true".to_owned(),
            "[1]".to_owned(),
            r#""x""#.to_owned(),
            r#"{"a":NaN}"#.to_owned(),
            r#"{"a":+1}"#.to_owned(),
            r#"{"a":1.}"#.to_owned(),
            r#"{"a":1e}"#.to_owned(),
            "\u{feff}{}".to_owned(),
            "{}\u{0}".to_owned(),
            "{} {}".to_owned(),
            String::new(),
            r#"{"a" 1}"#.to_owned(),
            r#"{1:2}"#.to_owned(),
            "{\"a\":[1 2]}".to_owned(),
            "{\"a\":\"open".to_owned(),
            "nul".to_owned(),
        ] {
            assert!(!decodes_as_map(bad.as_bytes()), "{bad:.80}");
        }
    }
}
