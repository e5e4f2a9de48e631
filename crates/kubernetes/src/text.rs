//! Text from the input made safe to show: escaped so it can neither forge
//! a line nor reach the terminal ([`printable`], [`json_pretty`]), clipped
//! ([`clip`], [`window`]) or masked ([`mask_quoted`]). The lowest layer: it
//! imports nothing of the crate.

use std::fmt::Write as _;

/// `text` safe to print on a terminal as one line: control characters
/// (C0 such as line breaks, tab and ESC, DEL, C1 such as NEL and CSI), Unicode
/// line and paragraph separators, bidirectional marks, embeddings, overrides
/// and isolates, and invisible characters (zero-width spaces and joiners,
/// the byte-order mark, Unicode tags, interlinear annotations) written as
/// `\u{..}` escapes, so a value from the input can neither break a line,
/// reorder or hide what is shown, nor send a sequence to the terminal.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_printable(&mut safe, c);
    }
    std::borrow::Cow::Owned(safe)
}

/// Whether [`printable`] escapes `c`.
fn needs_escape(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// Whether `c` is one of the characters beyond the controls that
/// [`printable`] escapes: line and paragraph separators, bidirectional
/// and invisible characters.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{061c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

fn push_printable(out: &mut String, c: char) {
    if needs_escape(c) {
        let _ = write!(out, "\\u{{{:04x}}}", c as u32);
    } else {
        out.push(c);
    }
}

/// `value` as pretty JSON in which every character [`printable`] escapes
/// is a `\\uXXXX` escape too (JSON leaves C1 controls, line separators and
/// bidirectional overrides raw): the JSON reads the same, and printing it
/// on a terminal is as safe as printing the text output.
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, EscapingFormatter::default());
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// serde_json's pretty formatter, escaping what [`printable`] escapes.
#[derive(Default)]
struct EscapingFormatter(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for EscapingFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if needs_escape(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{:04x}", unit)?;
                }
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `text` cut to about `max` characters when longer: its start and its
/// end, and in between how much was left out. For messages that quote
/// input, which can be a megabyte on one line.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    // Room for the marker, so that a clipped text is no longer than `max`
    // and never leaves out less than the marker takes.
    let keep = max.saturating_sub(MARKER) / 2;
    let head: String = text.chars().take(keep).collect();
    let tail: String = text.chars().skip(count - keep).collect();
    std::borrow::Cow::Owned(format!(
        "{head}…({} characters left out)…{tail}",
        count - 2 * keep
    ))
}

/// A short stretch of one input line around a column, safe to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The stretch, escaped as [`printable`] does (a tab shown as `\t`),
    /// `…` where the line goes on.
    pub text: String,
    /// Characters of `text` before the column.
    pub caret: usize,
    /// Characters of `text` the node covers, at least 1.
    pub width: usize,
}

/// At most about [`WINDOW`] characters of `line` around `col` (1-based,
/// in characters), covering `width` characters from there when they fit.
pub fn window(line: &str, col: usize, width: usize) -> Window {
    const BEFORE: usize = 30;
    let shown = |c: char| {
        let mut piece = String::new();
        match c {
            '\t' => piece.push_str("\\t"),
            c => push_printable(&mut piece, c),
        }
        piece
    };
    let col = col.max(1) - 1;
    // A line that fits is shown whole.
    let start = if line.chars().nth(WINDOW).is_none() {
        0
    } else {
        col.saturating_sub(BEFORE)
    };
    let mut before: String = line
        .chars()
        .skip(start)
        .take(col - start)
        .map(shown)
        .collect();
    let mut clipped = start > 0;
    let length = before.chars().count();
    if start > 0 && length > BEFORE {
        before = before.chars().skip(length - BEFORE).collect();
        clipped = true;
    }
    let mut text = if clipped {
        format!("…{before}")
    } else {
        before
    };
    let caret = text.chars().count();
    let mut covered = None;
    let mut rest = line.chars().skip(col).enumerate().peekable();
    while let Some((i, c)) = rest.next() {
        if i == width {
            covered = Some(text.chars().count() - caret);
        }
        if text.chars().count() >= WINDOW.max(caret + WINDOW - BEFORE) {
            text.push('…');
            break;
        }
        text.push_str(&shown(c));
        if rest.peek().is_none() && i + 1 == width {
            covered = Some(text.chars().count() - caret);
        }
    }
    let width = covered
        .unwrap_or_else(|| {
            text.chars()
                .count()
                .saturating_sub(caret + usize::from(text.ends_with('…')))
        })
        .max(1);
    Window { text, caret, width }
}

/// The most characters of an input line an error quotes.
pub const WINDOW: usize = 80;

/// `text` with every stretch in backticks or double quotes replaced by `…`:
/// a message about input that must not be quoted (it could hold a Secret's
/// value) keeps its words but loses what it quotes.
pub fn mask_quoted(text: &str) -> String {
    mask_quoted_but(text, &[])
}

/// [`mask_quoted`], but a stretch right after one of `ours` is kept: words
/// after which a message quotes a name of its own (a schema's required
/// key), never the input.
pub fn mask_quoted_but(text: &str, ours: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    // The quote open, and whether its stretch is kept.
    let mut open: Option<(char, bool)> = None;
    for c in text.chars() {
        match open {
            Some((quote, kept)) if c == quote => {
                if !kept {
                    out.push('…');
                }
                out.push(c);
                open = None;
            }
            Some((_, true)) => out.push(c),
            Some((_, false)) => {}
            None => {
                if c == '`' || c == '"' {
                    open = Some((c, ours.iter().any(|words| out.ends_with(words))));
                }
                out.push(c);
            }
        }
    }
    if open.is_some_and(|(_, kept)| !kept) {
        out.push('…');
    }
    out
}

/// The most characters of a message shown: longer ones are clipped.
pub const MESSAGE: usize = 400;

/// The most characters of a finding's message: more than [`MESSAGE`], as
/// a finding quotes what the API server would say (Pod Security's reasons
/// name every container and value it refuses), yet bounded.
pub const FINDING: usize = 2000;

/// The characters [`clip`]'s marker takes, `…(NNNNNNNNN characters left
/// out)…` at most.
const MARKER: usize = 36;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_what_could_break_a_line_or_the_screen() {
        assert_eq!(printable("ns-1"), "ns-1");
        assert_eq!(
            printable("a\nb\u{1b}[2Jc\u{2028}d\u{202e}e\u{85}"),
            "a\\u{000a}b\\u{001b}[2Jc\\u{2028}d\\u{202e}e\\u{0085}"
        );
    }

    #[test]
    fn printable_escapes_invisible_and_reordering_characters() {
        for c in [
            '\u{200b}',
            '\u{200d}',
            '\u{2066}',
            '\u{feff}',
            '\u{e0041}',
            '\u{7f}',
            '\u{9b}',
        ] {
            assert_eq!(
                printable(&c.to_string()),
                format!("\\u{{{:04x}}}", c as u32)
            );
        }
        assert_eq!(printable("naïve ünïcode, 日本"), "naïve ünïcode, 日本");
    }

    #[test]
    fn a_window_shows_a_short_escaped_stretch_around_the_column() {
        let line = format!(
            "{}key: \u{1b}[2Jvalue{}",
            "a".repeat(1000),
            "b".repeat(1_000_000)
        );
        let shown = window(&line, 1001, 3);
        assert!(shown.text.chars().count() <= WINDOW + 12, "{}", shown.text);
        assert!(shown.text.starts_with('…') && shown.text.ends_with('…'));
        assert!(!shown.text.contains('\u{1b}'));
        assert_eq!(
            shown
                .text
                .chars()
                .skip(shown.caret)
                .take(3)
                .collect::<String>(),
            "key"
        );
        assert_eq!(shown.width, 3);
        // Short lines are shown whole; the caret may sit past an escape.
        let shown = window("a\tb: \u{202e}x", 6, 1);
        assert_eq!(shown.text, "a\\tb: \\u{202e}x");
        assert_eq!((shown.caret, shown.width), (6, 8));
        let shown = window("ab", 9, 4);
        assert_eq!(
            (shown.text.as_str(), shown.caret, shown.width),
            ("ab", 2, 1)
        );
    }

    #[test]
    fn json_output_escapes_what_the_text_output_escapes() {
        let value = serde_json::json!({"a\u{202e}": ["x\u{1b}[2J\u{85}\u{2028}\u{e0041}é"]});
        let text = json_pretty(&value).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\\u202e\": [\n    \"x\\u001b[2J\\u0085\\u2028\\udb40\\udc41é\"\n  ]\n}\n"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn clip_keeps_both_ends_of_a_long_text() {
        assert_eq!(clip("short", 10), "short");
        let long = format!("start{}end", "x".repeat(1000));
        let clipped = clip(&long, 60);
        assert!(clipped.starts_with("start") && clipped.ends_with("end"));
        assert!(clipped.contains("(984 characters left out)"), "{clipped}");
        assert!(clipped.chars().count() <= 60, "{clipped}");
        // Just past the limit, more is left out than the marker takes.
        let over = "y".repeat(401);
        let clipped = clip(&over, 400);
        assert!(clipped.chars().count() <= 400, "{clipped}");
        assert!(clipped.contains("(37 characters left out)"), "{clipped}");
    }

    #[test]
    fn mask_quoted_hides_what_a_message_quotes() {
        assert_eq!(
            mask_quoted("`hunter2` is not a finite number"),
            "`…` is not a finite number"
        );
        assert_eq!(
            mask_quoted(r#"quote it ("x y") if"#),
            r#"quote it ("…") if"#
        );
        assert_eq!(mask_quoted("open `abc"), "open `…");
        assert_eq!(mask_quoted("no quotes"), "no quotes");
        let ours = ["missing key "];
        assert_eq!(
            mask_quoted_but("missing key `apiVersion` beside `hunter2`", &ours),
            "missing key `apiVersion` beside `…`"
        );
        // The words inside a hidden stretch are the input's: no key.
        assert_eq!(mask_quoted_but("`missing key `x``", &ours), "`…`x`…`");
    }
}
