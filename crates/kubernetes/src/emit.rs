//! YAML writing: scalars that cannot change the structure they land in, and
//! the canonical block layout of rendered objects.
//!
//! Two writers share one quoting rule. [`flow`] is what a template's
//! `{{ value }}` becomes: always a double-quoted string, or a number, a
//! boolean, `null`, or a flow collection of those, so no value can open a
//! new key, list item or document. [`block`] writes parsed objects back out
//! as the canonical output: plain scalars where they cannot be misread by a
//! YAML 1.1 or 1.2 reader, literal blocks for multi-line text, quotes
//! otherwise.

use std::fmt::Write as _;

use crate::yaml::{self, Node, Value};

/// `text` as a double-quoted YAML scalar. Escapes everything a YAML reader
/// could take as a line break or that is not printable.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_quoted(text, &mut out);
    out
}

/// Appends `text` to `out` as [`quote`] writes it.
fn push_quoted(text: &str, out: &mut String) {
    out.reserve(text.len() + 2);
    out.push('"');
    // Printable ASCII but the quote and the backslash, the common case,
    // is written as it is.
    if (text.bytes()).all(|b| matches!(b, b' '..=b'~') && b != b'"' && b != b'\\') {
        out.push_str(text);
        out.push('"');
        return;
    }
    // Runs of characters that need no escape are copied at once.
    let mut start = 0;
    for (at, c) in text.char_indices() {
        let escape = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\t' => "\\t",
            '\r' => "\\r",
            c if needs_escape(c) => "",
            _ => continue,
        };
        out.push_str(&text[start..at]);
        if escape.is_empty() {
            // `\u` takes exactly four hex digits: a character past the
            // BMP (the non-characters U+1FFFE...) needs `\U` and eight.
            let _ = if (c as u32) > 0xFFFF {
                write!(out, "\\U{:08X}", c as u32)
            } else {
                write!(out, "\\u{:04X}", c as u32)
            };
        } else {
            out.push_str(escape);
        }
        start = at + c.len_utf8();
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Characters a double-quoted scalar must escape: controls, DEL, the C1
/// range (NEL among them), line and paragraph separators, the byte-order
/// mark, and the non-characters YAML does not allow.
fn needs_escape(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
        || matches!(c as u32, 0xfdd0..=0xfdef)
        || (c as u32 & 0xfffe) == 0xfffe
}

/// `text` as a scalar for block output: plain when that is safe, quoted otherwise.
pub fn scalar(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_scalar(text, &mut out);
    out
}

/// Appends `text` to `out` as [`scalar`] writes it, without allocating.
fn push_scalar(text: &str, out: &mut String) {
    if plain_is_safe(text) {
        out.push_str(text);
    } else {
        push_quoted(text, out);
    }
}

/// Whether `text` can be written unquoted in block or flow context and read
/// back as the same string by any YAML reader, 1.1 (Kubernetes' go-yaml) or
/// 1.2: it starts with a letter, `/`, or `-`/`--` and a letter, or is a
/// quantity such as `100m` or `128Mi`; it uses no indicator that could start
/// a comment, a mapping or a flow collection; and it resolves to no other type.
fn plain_is_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let start_ok = first.is_ascii_alphabetic()
        || first == '/'
        || (first == '-'
            && text
                .trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_alphabetic())
            && !text.starts_with("---"))
        || is_unit_quantity(text);
    start_ok
        && plain_bytes(text)
        && !text.ends_with([' ', ':'])
        && yaml::plain_is_string(text)
        && !matches!(text, "y" | "Y" | "n" | "N")
}

/// Whether `text` holds only letters, digits and ` -_./:@+=()`, and no
/// `: ` (which would start a mapping; ` #`, a comment, needs a `#`, which
/// is not among them): one pass over the bytes, the stream's hottest loop.
fn plain_bytes(text: &str) -> bool {
    const ALLOWED: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            table[b] = c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b' ' | b'-' | b'_' | b'.' | b'/' | b':' | b'@' | b'+' | b'=' | b'(' | b')'
                );
            b += 1;
        }
        table
    };
    let mut after_colon = false;
    for &b in text.as_bytes() {
        if !ALLOWED[usize::from(b)] || (after_colon && b == b' ') {
            return false;
        }
        after_colon = b == b':';
    }
    true
}

/// `100m`, `128Mi`, `20GB`: digits then a unit, which no YAML reader takes
/// for a number.
fn is_unit_quantity(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let unit = &text[digits..];
    digits > 0
        && !text.starts_with('0')
        && matches!(
            unit,
            "m" | "k"
                | "M"
                | "G"
                | "T"
                | "P"
                | "Ki"
                | "Mi"
                | "Gi"
                | "Ti"
                | "Pi"
                | "Ei"
                | "KB"
                | "MB"
                | "GB"
                | "TB"
        )
}

/// A value as a template interpolation writes it: JSON-shaped flow YAML
/// whose strings are always double-quoted.
pub fn flow(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_flow(value, &mut out);
    out
}

/// Appends a string as [`flow`] writes it (`flow(&Value::String(text))`),
/// for a writer that walks a value of its own instead of making a JSON one.
pub fn push_flow_string(text: &str, out: &mut String) {
    push_quoted(text, out);
}

fn write_flow(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Null => out.push_str("null"),
        serde_json::Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        serde_json::Value::Number(n) => out.push_str(&number(n)),
        serde_json::Value::String(s) => push_quoted(s, out),
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow(item, out);
            }
            out.push(']');
        }
        serde_json::Value::Object(entries) => {
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_quoted(key, out);
                out.push_str(": ");
                write_flow(item, out);
            }
            out.push('}');
        }
    }
}

fn number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if !n.is_i64() && !n.is_u64() => float(f),
        _ => n.to_string(),
    }
}

/// A float that reads back as a float (`1.0`, not `1`).
fn float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

/// Writes `node` as a block-style YAML document body.
pub fn block(node: &Node) -> String {
    let mut out = String::new();
    push_block(node, &mut out);
    out
}

/// Appends `node` to `out` as [`block`] writes it.
pub fn push_block(node: &Node, out: &mut String) {
    match &node.value {
        Value::Mapping(entries) if !entries.is_empty() => write_mapping(entries, 0, out),
        Value::Sequence(items) if !items.is_empty() => write_sequence(items, 0, out),
        _ => {
            write_inline(node, 0, out);
            out.push('\n');
        }
    }
}

fn write_mapping(entries: &[(yaml::Key, Node)], indent: usize, out: &mut String) {
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            push_indent(indent, out);
        }
        push_entry(&key.name, value, indent, out);
    }
}

/// Appends one entry of a mapping whose keys stand at column `indent`
/// (counted from 0), as [`block`] writes each: from its key (the
/// indentation before it is the caller's) to the line break that ends it.
/// A mapping's text is its entries, each after the first preceded by
/// `indent` spaces; a non-empty mapping as a value starts on the next
/// line, its entries at `indent + 2` (a list too, unless it is short
/// enough to stand on the key's line, `[a, b]`). So a writer that knows which
/// entries every one of its objects shares writes those once and copies
/// them ([`crate::manifest::Kept`]).
pub fn push_entry(key: &str, value: &Node, indent: usize, out: &mut String) {
    push_scalar(key, out);
    out.push(':');
    write_value(value, indent, out);
}

fn write_sequence(items: &[Node], indent: usize, out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            push_indent(indent, out);
        }
        out.push('-');
        match &item.value {
            Value::Mapping(entries) if !entries.is_empty() => {
                out.push(' ');
                write_mapping(entries, indent + 2, out);
            }
            Value::Sequence(inner) if !inner.is_empty() => {
                out.push(' ');
                write_sequence(inner, indent + 2, out);
            }
            _ => {
                out.push(' ');
                write_inline(item, indent, out);
                out.push('\n');
            }
        }
    }
}

/// Writes what follows `key:`, ending with a newline.
fn write_value(value: &Node, indent: usize, out: &mut String) {
    match &value.value {
        Value::Mapping(entries) if !entries.is_empty() => {
            out.push('\n');
            push_indent(indent + 2, out);
            write_mapping(entries, indent + 2, out);
        }
        Value::Sequence(items) if !items.is_empty() => match short_flow(items) {
            Some(flow) => {
                out.push(' ');
                out.push_str(&flow);
                out.push('\n');
            }
            None => {
                out.push('\n');
                push_indent(indent + 2, out);
                write_sequence(items, indent + 2, out);
            }
        },
        _ => {
            out.push(' ');
            write_inline(value, indent, out);
            out.push('\n');
        }
    }
}

/// A list of a few one-line scalars as `[a, b, c]`, the way people write
/// verbs and API groups; `None` when the list is long or holds anything else.
fn short_flow(items: &[Node]) -> Option<String> {
    const WIDTH: usize = 60;
    let mut flow = String::with_capacity(WIDTH + 8);
    flow.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            flow.push_str(", ");
        }
        match &item.value {
            Value::String(s) if !s.contains('\n') => push_scalar(s, &mut flow),
            Value::Int(n) => {
                let _ = write!(flow, "{n}");
            }
            Value::Uint(n) => {
                let _ = write!(flow, "{n}");
            }
            Value::Bool(b) => flow.push_str(if *b { "true" } else { "false" }),
            _ => return None,
        }
        if flow.len() > WIDTH {
            return None;
        }
    }
    flow.push(']');
    (flow.len() <= WIDTH).then_some(flow)
}

/// A scalar or empty collection on the current line; multi-line text as a
/// literal block indented under `indent`.
fn write_inline(node: &Node, indent: usize, out: &mut String) {
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) => out.push_str(&float(*f)),
        Value::String(s) if literal_is_safe(s) => {
            let body = s.strip_suffix('\n');
            out.push_str(if body.is_some() { "|" } else { "|-" });
            for line in body.unwrap_or(s).split('\n') {
                out.push('\n');
                if !line.is_empty() {
                    push_indent(indent + 2, out);
                    out.push_str(line);
                }
            }
        }
        Value::String(s) => push_scalar(s, out),
        Value::Sequence(_) => out.push_str("[]"),
        Value::Mapping(_) => out.push_str("{}"),
    }
}

/// Whether multi-line `text` survives a literal block unchanged: printable,
/// no leading space or blank first line (that would need an indentation
/// indicator), no trailing spaces, at most one final newline.
fn literal_is_safe(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with([' ', '\n'])
        && !text.ends_with("\n\n")
        && !text.contains(" \n")
        && !text.ends_with(' ')
        && !text.contains('\t')
        && text.chars().all(|c| c == '\n' || !needs_escape(c))
}

fn push_indent(indent: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', indent));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::location::Source;
    use crate::yaml::Limits;

    proptest::proptest! {
        #[test]
        fn plain_bytes_decides_as_the_byte_scan_it_replaced(
            text in r#"[-a-zA-Z0-9 _./:@+=()#\\"'!&*,?|>%`{}\[\]~é]{0,12}"#
        ) {
            // The scan as first written: the class byte by byte, then
            // every pair for `: ` and ` #`.
            let scanned = text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b" -_./:@+=()".contains(&b))
                && !(text.as_bytes().windows(2)).any(|w| matches!(w, [b':', b' '] | [b' ', b'#']));
            proptest::prop_assert_eq!(plain_bytes(&text), scanned);
        }
    }

    fn reread(text: &str) -> serde_json::Value {
        yaml::parse_document(&Source::file("t", text), Limits::VALUES)
            .unwrap()
            .unwrap()
            .to_json()
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        for text in [
            "yes", "no", "on", "y", "N", "1.10", "0123", "null", "~", "", "- a", "a: b", "a #b",
            "@x", "1:20", "true", "---", "-1", "0x1F", "0b1", "1e3", "1.5Gi", "0.4.0", "a,b",
            "[a]",
        ] {
            assert!(scalar(text).starts_with('"'), "{text:?} must be quoted");
        }
        for text in [
            "buildkit-builds",
            "app.kubernetes.io/name",
            "IfNotPresent",
            "/etc/x",
            "a b",
            "--namespace=x",
            "-c",
            "100m",
            "128Mi",
            "20GB",
        ] {
            assert_eq!(scalar(text), text, "{text:?} can stay plain");
        }
    }

    #[test]
    fn block_output_reads_back_the_same() {
        let json = serde_json::json!({
            "a": {"b": [1, 2.0, "x", {"c": "d", "e": []}], "f": {}},
            "text": "line one\nline two\n",
            "strip": "no newline\nat end",
            "tricky": " leading\n",
            "list": [[1, 2], []],
        });
        let node = Node::from_json(&json, &crate::location::Origin::Default);
        assert_eq!(reread(&block(&node)), json);
    }

    #[test]
    fn characters_escaped_past_the_bmp_read_back_the_same() {
        // Non-characters are escaped; those past U+FFFF need eight hex digits.
        for c in ['\u{fffe}', '\u{1fffe}', '\u{10ffff}', '\u{85}', '\u{2029}'] {
            let text = format!("a{c}b");
            let quoted = quote(&text);
            assert!(quoted.is_ascii(), "{quoted}");
            assert_eq!(
                reread(&format!("x: {quoted}\n"))["x"],
                text.as_str(),
                "{quoted}"
            );
        }
    }

    #[test]
    fn flow_output_is_one_line_and_reads_back_the_same() {
        let json = serde_json::json!({"k\n": ["---", "a: b", "\u{2028}", 1.5, null, true]});
        let text = flow(&json);
        assert!(!text.contains('\n'));
        assert_eq!(reread(&format!("x: {text}\n"))["x"], json);
    }
}
