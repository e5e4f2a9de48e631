//! JSON manifests, read as JSON: kubectl's decoder (apimachinery's
//! `YAMLOrJSONDecoder`) reads a stream whose first character past
//! whitespace is `{` as a stream of JSON objects, not as YAML. The two
//! differ where it matters: inside a JSON string U+0085 (NEL), U+2028 and
//! U+2029 are characters, where YAML 1.1 reads a line break; JSON has no
//! aliases, tags, comments or plain scalars to resolve.
//!
//! Every node keeps its [`Origin`] (line and column, in characters, as the
//! YAML reader counts them), duplicate keys are refused naming both places,
//! and the depth and node budgets are the YAML reader's.

use std::sync::Arc;

use super::{Key, Limits, Node, Value, node_budget, quote, read_error};
use crate::diagnostic::Problem;
use crate::location::{Origin, Source};

/// Whether `text` is a JSON stream to kubectl: its first character past
/// whitespace is `{`.
pub fn is_json(text: &str) -> bool {
    // A byte-order mark only at the start, as the reader skips it.
    text.strip_prefix('\u{feff}')
        .unwrap_or(text)
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
}

/// What a lone surrogate escape (`"\ud800"`, a high one without its low
/// one, a low one alone) reads as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surrogates {
    /// Refused, as YAML's readers refuse it (a values file: Helm reads it
    /// as YAML).
    Refuse,
    /// U+FFFD, as Go's `encoding/json` reads it (a manifest: kubectl
    /// decodes JSON so, and the API server stores what it read).
    Replace,
}

/// Reads a stream of JSON values (kubectl takes one object after another,
/// separated by whitespace or nothing). `nodes`: the nodes read before,
/// left at the new total. The error says too whether the first document
/// was read: a stream whose first document is no JSON is YAML to kubectl.
pub fn parse_stream(
    source: &Arc<Source>,
    limits: Limits,
    nodes: &mut usize,
    (shared, surrogates): (bool, Surrogates),
) -> Result<Vec<Node>, (Problem, bool)> {
    let mut reader = Reader {
        source,
        text: source.text.as_bytes(),
        at: 0,
        line: 1,
        line_start: 0,
        limits,
        nodes: *nodes,
        shared,
        surrogates,
        col: (0, 1),
    };
    if reader.text.starts_with("\u{feff}".as_bytes()) {
        reader.at = 3;
        reader.line_start = 3;
    }
    let mut documents = Vec::new();
    let result = loop {
        reader.skip_space();
        if reader.at >= reader.text.len() {
            break Ok(documents);
        }
        if documents.len() >= super::MAX_DOCUMENTS {
            let at = reader.at;
            break Err((
                read_error(
                    reader.origin(at, 1),
                    format!("more than {} documents", super::MAX_DOCUMENTS),
                ),
                true,
            ));
        }
        match reader.value(0) {
            Ok(node) => documents.push(node),
            Err(e) => break Err((e, !documents.is_empty())),
        }
    };
    *nodes = reader.nodes;
    result
}

/// `origin` spanning `width` characters.
fn with_width(origin: Origin, width: usize) -> Origin {
    match origin {
        Origin::At {
            source, line, col, ..
        } => Origin::At {
            source,
            line,
            col,
            width: crate::location::saturating_u32(width.max(1)),
        },
        Origin::Default => Origin::Default,
    }
}

struct Reader<'s> {
    source: &'s Arc<Source>,
    text: &'s [u8],
    at: usize,
    line: usize,
    line_start: usize,
    limits: Limits,
    nodes: usize,
    shared: bool,
    surrogates: Surrogates,
    /// The last column computed: (byte, 1-based column), on the current
    /// line; columns are counted from it, so a long line costs its length
    /// once, not once per node.
    col: (usize, usize),
}

impl Reader<'_> {
    /// The origin of `width` characters at byte `at` of the current line.
    fn origin(&mut self, at: usize, width: usize) -> Origin {
        let (from, col) = if self.col.0 >= self.line_start && self.col.0 <= at {
            self.col
        } else {
            (self.line_start.min(at), 1)
        };
        let col = col
            + self.text[from..at]
                .iter()
                .filter(|&&b| b & 0xc0 != 0x80)
                .count();
        self.col = (at, col);
        Origin::at(Arc::clone(self.source), self.line, col, width.max(1))
    }

    /// The characters from byte `start` to where the reader is, as
    /// written: a string's escapes (`\ud83d\ude00`) are as wide as their
    /// text, not as what they decode to.
    fn written_width(&self, start: usize) -> usize {
        (self.text[start..self.at].iter())
            .filter(|&&b| b & 0xc0 != 0x80)
            .count()
    }

    fn error(&mut self, message: impl Into<String>) -> Problem {
        read_error(self.origin(self.at, 1), message)
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.text.get(self.at) {
            match b {
                b' ' | b'\t' => self.at += 1,
                b'\n' => {
                    self.at += 1;
                    self.line += 1;
                    self.line_start = self.at;
                }
                b'\r' => {
                    self.at += 1;
                    if self.text.get(self.at) == Some(&b'\n') {
                        self.at += 1;
                    }
                    self.line += 1;
                    self.line_start = self.at;
                }
                _ => break,
            }
        }
    }

    fn count(&mut self, origin: &Origin) -> Result<(), Problem> {
        self.nodes = self.nodes.saturating_add(1);
        node_budget(self.nodes, self.limits.max_nodes, self.shared, origin)
    }

    fn value(&mut self, depth: usize) -> Result<Node, Problem> {
        self.skip_space();
        let start = self.at;
        let origin = self.origin(start, 1);
        self.count(&origin)?;
        match self.text.get(self.at) {
            Some(b'{' | b'[') if depth >= self.limits.max_depth => Err(read_error(
                origin,
                format!(
                    "nesting deeper than the limit of {} levels",
                    self.limits.max_depth
                ),
            )),
            Some(b'{') => self.object(depth, origin),
            Some(b'[') => self.array(depth, origin),
            Some(b'"') => {
                let text = self.string()?;
                let width = self.written_width(start);
                Ok(Node::new(Value::String(text), with_width(origin, width)))
            }
            Some(b't') => self.word("true", Value::Bool(true), origin),
            Some(b'f') => self.word("false", Value::Bool(false), origin),
            Some(b'n') => self.word("null", Value::Null, origin),
            Some(b'-' | b'0'..=b'9') => self.number(origin),
            Some(_) => Err(self.error("invalid JSON: expected a value")),
            None => Err(self.error("invalid JSON: the text ends where a value was expected")),
        }
    }

    fn word(&mut self, word: &str, value: Value, origin: Origin) -> Result<Node, Problem> {
        if !self.text[self.at..].starts_with(word.as_bytes()) {
            return Err(self.error("invalid JSON: expected a value"));
        }
        self.at += word.len();
        let mut node = Node::new(value, with_width(origin, word.len()));
        node.plain = Some(Box::new(word.to_owned()));
        Ok(node)
    }

    fn number(&mut self, origin: Origin) -> Result<Node, Problem> {
        let start = self.at;
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while reader.text.get(reader.at).is_some_and(u8::is_ascii_digit) {
                reader.at += 1;
            }
            reader.at > from
        };
        if self.text.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        let int_start = self.at;
        if !digits(self) || (self.text[int_start] == b'0' && self.at - int_start > 1) {
            return Err(read_error(
                origin,
                "invalid JSON: a number (no leading zeros)",
            ));
        }
        let mut integer = true;
        if self.text.get(self.at) == Some(&b'.') {
            self.at += 1;
            integer = false;
            if !digits(self) {
                return Err(self.error("invalid JSON: a digit after the decimal point"));
            }
        }
        if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            integer = false;
            if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("invalid JSON: a digit in the exponent"));
            }
        }
        // ASCII only: digits, signs, `.`, `e`.
        let text = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
        let origin = with_width(origin, text.len());
        let value = match text.parse::<i64>() {
            Ok(int) if integer => Value::Int(int),
            _ => match text.parse::<f64>() {
                Ok(float) if float.is_finite() => Value::Float(float),
                _ => {
                    return Err(read_error(
                        origin,
                        format!("the number `{text}` is out of range"),
                    ));
                }
            },
        };
        let mut node = Node::new(value, origin);
        node.plain = Some(Box::new(text));
        Ok(node)
    }

    /// A string, from its opening quote; escapes decoded. A raw control
    /// character is refused, as JSON says; a lone surrogate escape as
    /// [`Surrogates`] says.
    fn string(&mut self) -> Result<String, Problem> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let plain = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or_else(|| self.error("invalid JSON: a string without its closing quote"))?;
            // The source is a `str`, and the stop bytes are ASCII.
            out.push_str(std::str::from_utf8(&rest[..plain]).unwrap_or_default());
            self.at += plain;
            match self.text[self.at] {
                b'"' => {
                    self.at += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.at += 1;
                    let escaped = match self.text.get(self.at) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let c = self.unicode_escape()?;
                            out.push(c);
                            continue;
                        }
                        _ => return Err(self.error("invalid JSON: an unknown escape")),
                    };
                    self.at += 1;
                    out.push(escaped);
                }
                _ => {
                    return Err(
                        self.error("invalid JSON: a control character inside a string (escape it)")
                    );
                }
            }
        }
    }

    /// The character of a `\u` escape, its four hex digits next: a
    /// surrogate pair's two escapes as one character (Go's `unquote`:
    /// `utf16.DecodeRune` of this escape and the next), a lone surrogate
    /// as [`Surrogates`] says (the next escape, not its pair, read on its
    /// own).
    fn unicode_escape(&mut self) -> Result<char, Problem> {
        let first = self.hex4()?;
        if !(0xd800..0xe000).contains(&first) {
            return Ok(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        let second = (self.text.get(self.at..self.at + 2) == Some(b"\\u"))
            .then(|| self.text.get(self.at + 2..self.at + 6))
            .flatten()
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| {
                u32::from_str_radix(d, 16)
                    .ok()
                    .filter(|_| d.bytes().all(|b| b.is_ascii_hexdigit()))
            });
        match second {
            Some(low) if (0xd800..0xdc00).contains(&first) && (0xdc00..0xe000).contains(&low) => {
                self.at += 6;
                let code = 0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00);
                Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER))
            }
            _ if self.surrogates == Surrogates::Replace => Ok(char::REPLACEMENT_CHARACTER),
            _ => Err(self.error("invalid JSON: a lone surrogate escape")),
        }
    }

    fn hex4(&mut self) -> Result<u32, Problem> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("invalid JSON: `\\u` needs four hex digits"))?;
        let code = u32::from_str_radix(digits, 16).unwrap_or_default();
        self.at += 4;
        Ok(code)
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), Problem> {
        self.skip_space();
        if self.text.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(format!("invalid JSON: expected {what}")))
        }
    }

    fn array(&mut self, depth: usize, origin: Origin) -> Result<Node, Problem> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Node::new(Value::Sequence(items), origin));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Node::new(Value::Sequence(items), origin));
                }
                _ => return Err(self.error("invalid JSON: expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize, origin: Origin) -> Result<Node, Problem> {
        self.at += 1;
        let mut entries: Vec<(Key, Node)> = Vec::new();
        let mut seen: std::collections::HashMap<String, Origin> = std::collections::HashMap::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Node::new(Value::Mapping(entries), origin));
        }
        loop {
            self.skip_space();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(self.error("invalid JSON: expected a key in double quotes"));
            }
            let key_origin = self.origin(self.at, 1);
            let key_start = self.at;
            let name = self.string()?;
            let key_origin = with_width(key_origin, self.written_width(key_start));
            if let Some(first) = seen.get(&name) {
                return Err(read_error(
                    key_origin,
                    format!("duplicate key `{}` (first at {first})", quote(&name)),
                ));
            }
            seen.insert(name.clone(), key_origin.clone());
            self.expect(b':', "`:` after a key")?;
            let value = self.value(depth + 1)?;
            entries.push((
                Key {
                    name,
                    origin: key_origin,
                },
                value,
            ));
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Node::new(Value::Mapping(entries), origin));
                }
                _ => return Err(self.error("invalid JSON: expected `,` or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Node>, Problem> {
        let source = Source::file("m.json", text);
        parse_stream(
            &source,
            super::super::Limits::VALUES,
            &mut 0,
            (false, Surrogates::Refuse),
        )
        .map_err(|(e, _)| e)
    }

    #[test]
    fn a_raw_nel_in_a_string_is_a_character() {
        let nodes = read("{\"kind\": \"a\u{85}b\",\n \"n\": 1}").unwrap();
        assert_eq!(
            nodes[0].get("kind").unwrap().value,
            Value::String("a\u{85}b".into())
        );
        let Origin::At { line, col, .. } = &nodes[0].get("n").unwrap().origin else {
            panic!("no origin");
        };
        assert_eq!((*line, *col), (2, 7));
    }

    /// A manifest's lone surrogates read as Go's `encoding/json` reads
    /// them: each U+FFFD, the escape after one read on its own (a pair
    /// stays one character).
    #[test]
    fn a_manifests_lone_surrogates_read_as_go_reads_them() {
        let source = Source::file("m.json", r#"{"a": "\udc00\ud800\ud800\udc00\ud800\u00e9"}"#);
        let read = (false, Surrogates::Replace);
        let nodes = parse_stream(&source, super::super::Limits::VALUES, &mut 0, read).unwrap();
        assert_eq!(
            nodes[0].get("a").unwrap().value,
            Value::String("\u{fffd}\u{fffd}\u{10000}\u{fffd}é".into())
        );
        // A bad escape after a lone surrogate is still refused.
        let source = Source::file("m.json", r#"{"a": "\ud800\uzzzz"}"#);
        assert!(parse_stream(&source, super::super::Limits::VALUES, &mut 0, read).is_err());
    }

    #[test]
    fn escapes_numbers_and_streams() {
        let nodes =
            read("{\"a\": \"\\u00e9\\ud83d\\ude00\\n\", \"i\": -12, \"f\": 1.5e1}{\"b\": null}")
                .unwrap();
        assert_eq!(nodes.len(), 2);
        assert_eq!(
            nodes[0].get("a").unwrap().value,
            Value::String("é😀\n".into())
        );
        assert_eq!(nodes[0].get("i").unwrap().value, Value::Int(-12));
        assert_eq!(nodes[0].get("f").unwrap().value, Value::Float(15.0));
        assert_eq!(nodes[1].get("b").unwrap().value, Value::Null);
    }

    #[test]
    fn refuses_what_json_refuses() {
        for bad in [
            "{\"a\": 1,}",
            "{\"a\": 01}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": \"x\ty\"}",
            "{'a': 1}",
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": tru}",
            "{\"a\": 1e999}",
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn depth_and_nodes_are_budgeted() {
        let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        let error = read(&format!("{{\"a\": {deep}}}")).unwrap_err();
        assert!(
            error.message.contains("nesting deeper"),
            "{}",
            error.message
        );
        let many = format!("{{\"a\": [{}0]}}", "0,".repeat(300_000));
        let error = read(&many).unwrap_err();
        assert!(
            error.message.contains("more than the limit"),
            "{}",
            error.message
        );
    }

    #[test]
    fn only_a_stream_starting_with_a_brace_is_json() {
        assert!(is_json(" \n{\"a\": 1}"));
        assert!(!is_json("a: {}"));
        assert!(!is_json("[1]"));
    }
}
