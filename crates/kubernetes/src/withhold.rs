//! Keeping given texts out of messages: the values a user passed on the
//! command line (`--set KEY=VALUE`), which an error names by their key
//! only, whatever the message was written to quote.
//!
//! A message is written once, where the problem is found, by code that
//! knows nothing of where a value came from; [`Withheld`] goes over the
//! finished messages instead, so that no message, present or future,
//! quotes a withheld value:
//!
//! - a stretch in backticks or double quotes that holds a withheld text,
//!   or is a piece of one of at least [`SHORT`] characters (`quote` cuts a
//!   long text: `` `MySecretPass…` ``; a part of it: the flag in an
//!   argument), is replaced by `…`, unless the caller keeps it (a key the
//!   message names, which the key path names anyway) and it holds none;
//! - outside quotes, where messages write numbers (`requests.cpu 4 is
//!   above the limit 2`), a withheld number is replaced by `…` where it
//!   stands alone (not inside a longer word or number), and any withheld
//!   text of [`LONG`] characters or more wherever it is: messages quote a
//!   text, and a shorter one outside quotes is a word of the message as
//!   often as a value (`a`, `node`);
//! - a line that would still show one after that is replaced whole.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// Inside a quoted stretch, a withheld text shorter than this counts only
/// where it stands alone.
pub const SHORT: usize = 4;

/// Outside quotes, a withheld text that is no number counts from this
/// length on.
pub const LONG: usize = 8;

/// What a line that would still quote a withheld text becomes.
pub const WITHHELD_LINE: &str = "(not shown: it would quote a value given on the command line)";

/// Texts no message may quote.
#[derive(Debug, Default)]
pub struct Withheld {
    /// Each text, as written and in the forms messages write it in.
    texts: Vec<String>,
    /// Finds them, longest first where they start at one place.
    finder: Option<AhoCorasick>,
    /// Finds them all, overlapping ones included: the final check.
    every: Option<AhoCorasick>,
    /// There were texts, but too many to search: every line is withheld.
    unsearchable: bool,
}

/// An automaton whose build is linear in the patterns (see
/// [`crate::secret`]: a DFA's build grows with a long text times the
/// alphabet).
fn automaton<I, P>(patterns: I, kind: MatchKind) -> Option<AhoCorasick>
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .match_kind(kind)
        .build(patterns)
        .ok()
}

impl Withheld {
    /// The texts `values` (strings and numbers as the user wrote them or
    /// as they read), each also in the forms a message quotes a text in:
    /// as JSON, as Rust's `{:?}` writes it, and escaped for a terminal.
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut texts = Vec::new();
        for value in values {
            if value.is_empty() {
                continue;
            }
            texts.push(serde_json::Value::from(value.as_str()).to_string());
            texts.push(format!("{value:?}"));
            texts.push(crate::text::printable(&value).into_owned());
            texts.push(value);
        }
        texts.sort_unstable();
        texts.dedup();
        if texts.is_empty() {
            return Withheld::default();
        }
        let finder = automaton(&texts, MatchKind::LeftmostLongest);
        let every = automaton(&texts, MatchKind::Standard);
        let unsearchable = finder.is_none() || every.is_none();
        Withheld {
            texts,
            finder,
            every,
            unsearchable,
        }
    }

    /// Whether there is nothing to withhold.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Whether `line` shows a withheld text outside quotes: a number
    /// standing alone, or a text of [`LONG`] characters.
    pub fn revealed_by(&self, line: &str) -> bool {
        self.found_in(line, Place::Outside)
    }

    /// Whether a quoted stretch holds a withheld text: one of [`SHORT`]
    /// characters, or a shorter one standing alone.
    fn held_by(&self, stretch: &str) -> bool {
        self.found_in(stretch, Place::Quoted)
    }

    fn found_in(&self, text: &str, place: Place) -> bool {
        let Some(every) = &self.every else {
            return self.unsearchable && !text.is_empty();
        };
        every
            .find_overlapping_iter(text)
            .any(|found| self.counts(text, found.pattern().as_usize(), found.range(), place))
    }

    /// Whether the match of text `pattern` at `range` of `line` counts.
    fn counts(
        &self,
        line: &str,
        pattern: usize,
        range: std::ops::Range<usize>,
        place: Place,
    ) -> bool {
        let text = &self.texts[pattern];
        let alone = || alone(line[..range.start].chars().rev(), line[range.end..].chars());
        match place {
            Place::Quoted => text.chars().count() >= SHORT || alone(),
            Place::Outside => text.chars().count() >= LONG || (number_like(text) && alone()),
        }
    }

    /// Each of `lines` (messages, hints) with what it quotes of the
    /// withheld texts replaced by `…` (see the module's doc); a quoted
    /// stretch for which `keep` says yes stays, unless it holds a withheld
    /// text.
    pub fn withhold(&self, lines: &mut [&mut String], keep: impl Fn(&str) -> bool) {
        if self.is_empty() {
            return;
        }
        if self.unsearchable {
            for line in lines.iter_mut().filter(|l| !l.is_empty()) {
                **line = WITHHELD_LINE.to_owned();
            }
            return;
        }
        let pieces = self.pieces(lines);
        for line in lines.iter_mut() {
            let quoted = quoted_stretches(line);
            if quoted.is_empty() && !self.revealed_by(line) {
                continue;
            }
            let mut out = String::with_capacity(line.len());
            let mut at = 0;
            for range in quoted {
                let stretch = &line[range.clone()];
                let withheld =
                    self.held_by(stretch) || (pieces.contains(cut(stretch)) && !keep(stretch));
                if withheld {
                    out.push_str(&self.replaced(&line[at..range.start]));
                    out.push('…');
                    at = range.end;
                }
            }
            out.push_str(&self.replaced(&line[at..]));
            if self.revealed_by(&out) {
                out = WITHHELD_LINE.to_owned();
            }
            **line = out;
        }
    }

    /// `text` with every withheld text that counts replaced by `…`.
    fn replaced(&self, text: &str) -> String {
        let Some(finder) = &self.finder else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for found in finder.find_iter(text) {
            if self.counts(
                text,
                found.pattern().as_usize(),
                found.range(),
                Place::Outside,
            ) {
                out.push_str(&text[at..found.start()]);
                out.push('…');
                at = found.end();
            }
        }
        out.push_str(&text[at..]);
        out
    }

    /// The quoted stretches of `lines` that are a piece of a withheld text
    /// (as written, a cut one without its `…`): searched all at once, in
    /// one pass over the texts however many lines there are.
    fn pieces(&self, lines: &[&mut String]) -> std::collections::HashSet<String> {
        let mut stretches: Vec<&str> = (lines.iter())
            .flat_map(|line| {
                quoted_stretches(line)
                    .into_iter()
                    .map(|range| cut(&line[range]))
            })
            // A piece of a few characters (`-`, `.`) says nothing of a
            // value, and is more often the message's own.
            .filter(|s| s.chars().count() >= SHORT)
            .collect();
        stretches.sort_unstable();
        stretches.dedup();
        let mut found = std::collections::HashSet::new();
        if stretches.is_empty() {
            return found;
        }
        let Some(search) = automaton(&stretches, MatchKind::Standard) else {
            // Too many to search: every stretch counts as a piece.
            return stretches.iter().map(|s| (*s).to_owned()).collect();
        };
        for text in &self.texts {
            for hit in search.find_overlapping_iter(text) {
                found.insert(stretches[hit.pattern().as_usize()].to_owned());
            }
        }
        found
    }
}

/// Where in a line a withheld text was found.
#[derive(Clone, Copy)]
enum Place {
    /// Inside a quoted stretch.
    Quoted,
    /// Anywhere else.
    Outside,
}

/// Whether a match stands alone between the characters `before` it
/// (nearest first) and those `after` it: not inside a word, nor inside a
/// longer number (`1.7`, `0.4.0`; a point that ends a sentence is no
/// part of one).
fn alone(mut before: impl Iterator<Item = char>, mut after: impl Iterator<Item = char>) -> bool {
    let joins = |c: Option<char>, next: Option<char>| match c {
        Some(c) if c.is_alphanumeric() => true,
        Some('.' | '_') => next.is_some_and(char::is_alphanumeric),
        _ => false,
    };
    !joins(before.next(), before.next()) && !joins(after.next(), after.next())
}

/// Whether `text` reads as a number or a quantity, which messages write
/// unquoted: a digit first (after a sign or a point), then letters,
/// digits, `.`, `_`, `+` and `-` (`4`, `0644`, `1e5`, `0x1F`, `250m`).
fn number_like(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-', '.']);
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
}

/// A quoted stretch without the `…` that ends a text cut short.
fn cut(stretch: &str) -> &str {
    stretch.strip_suffix('…').unwrap_or(stretch)
}

/// The byte ranges of what `line` quotes: each stretch between two
/// backticks or two double quotes, as [`crate::text::mask_quoted`] reads
/// them (an unclosed one runs to the end).
fn quoted_stretches(line: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut escaped = false;
    for (at, c) in line.char_indices() {
        match open {
            // Inside double quotes, as JSON and Rust write a text, `\"` is
            // a quote of the text.
            Some(('"', _)) if escaped => escaped = false,
            Some(('"', _)) if c == '\\' => escaped = true,
            Some((quote, start)) if c == quote => {
                ranges.push(start..at);
                open = None;
            }
            Some(_) => {}
            None if c == '`' || c == '"' => open = Some((c, at + c.len_utf8())),
            None => {}
        }
    }
    if let Some((_, start)) = open {
        ranges.push(start..line.len());
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn withheld(values: &[&str], line: &str, keep: &[&str]) -> String {
        let withheld = Withheld::new(values.iter().map(|v| (*v).to_owned()));
        let mut line = line.to_owned();
        withheld.withhold(&mut [&mut line], |s| keep.contains(&s));
        line
    }

    #[test]
    fn a_quoted_value_and_its_pieces_are_withheld() {
        let line = r#"string "MySecretPassw0rd" is not one of: debug, info"#;
        assert_eq!(
            withheld(&["MySecretPassw0rd"], line, &[]),
            r#"string "…" is not one of: debug, info"#
        );
        // Cut short by a quote, or a part of it.
        assert_eq!(
            withheld(
                &["MySecretPassw0rd"],
                "`MySecret…` and `Passw0` and `debug`",
                &[]
            ),
            "`…` and `…` and `debug`"
        );
    }

    #[test]
    fn a_value_outside_quotes_is_withheld_a_short_one_where_it_stands_alone() {
        assert_eq!(
            withheld(&["12345"], "use --set to write the integer 12345", &[]),
            "use --set to write the integer …"
        );
        assert_eq!(
            withheld(
                &["7"],
                "7 is more than the maximum of 3 in 1970 or 7.5",
                &[]
            ),
            "… is more than the maximum of 3 in 1970 or 7.5"
        );
        // A short text outside quotes is a word as often as a value.
        assert_eq!(
            withheld(&["a", "node"], "`a` is a path of the node", &[]),
            "`…` is a path of the node"
        );
        assert_eq!(withheld(&["hunter22"], "a hunter22 b", &[]), "a … b");
        assert_eq!(withheld(&["4"], "the limit is 4.", &[]), "the limit is ….");
        // As JSON, and as Rust writes a text.
        assert_eq!(
            withheld(&["a\"b"], r#"label value "a\"b" is not valid"#, &[]),
            "label value \"…\" is not valid"
        );
    }

    #[test]
    fn a_kept_stretch_stays_unless_it_holds_a_value() {
        // A piece of a value, but a key the path names anyway.
        assert_eq!(
            withheld(
                &["the-logLevl-value"],
                "unknown key `logLevl`",
                &["logLevl"]
            ),
            "unknown key `logLevl`"
        );
        assert_eq!(
            withheld(&["the-logLevl-value"], "unknown key `logLevl`", &[]),
            "unknown key `…`"
        );
        assert_eq!(
            withheld(&["hunter2"], "unknown key `hunter2x`", &["hunter2x"]),
            "unknown key `…`"
        );
    }

    #[test]
    fn nothing_withheld_changes_nothing() {
        assert_eq!(withheld(&[], "a `b` \"c\"", &[]), "a `b` \"c\"");
        assert_eq!(withheld(&["zzz"], "a `b` \"c\"", &[]), "a `b` \"c\"");
    }
}
