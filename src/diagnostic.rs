//! Problems found in the input, and how they are shown.
//!
//! A [`Problem`] is one thing wrong with the user's input: where it is (an
//! [`Origin`]), which key (a [`KeyPath`]), what is wrong, and what to do.
//! Stages collect every problem before they report, so one run shows them all.

use std::fmt::{self, Write as _};

use crate::yaml::Origin;

/// One step of a path into a document: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// A path to a node, shown as `builds.tls.duration` or `projects[2].name`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyPath(pub Vec<Segment>);

impl KeyPath {
    /// The empty path: the document's root.
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path with a key appended.
    pub fn key(&self, key: impl Into<String>) -> Self {
        let mut path = self.clone();
        path.0.push(Segment::Key(key.into()));
        path
    }

    /// This path with an index appended.
    pub fn index(&self, index: usize) -> Self {
        let mut path = self.clone();
        path.0.push(Segment::Index(index));
        path
    }

    /// A path from its dotted form; every segment is a key. For paths written
    /// in the code, such as `"namespaces.builds"`.
    pub fn dotted(path: &str) -> Self {
        KeyPath(
            path.split('.')
                .map(|k| Segment::Key(k.to_owned()))
                .collect(),
        )
    }

    /// A path from a JSON pointer (`/spec/containers/0`); numeric segments
    /// are list indexes.
    pub fn from_pointer(pointer: &str) -> Self {
        KeyPath(
            pointer
                .split('/')
                .skip(1)
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .map(|s| match s.parse::<usize>() {
                    Ok(index) => Segment::Index(index),
                    Err(_) => Segment::Key(s),
                })
                .collect(),
        )
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_simple_key(key) => {
                    if i > 0 {
                        f.write_char('.')?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_char('.')?;
                    }
                    write!(f, "{key:?}")?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// `text` safe to print on a terminal as one line: control characters
/// (line breaks, escape sequences, C1 controls), Unicode line and paragraph
/// separators and bidirectional overrides written as `\u{..}` escapes, so
/// a value from a manifest can neither break a line nor rewrite the screen.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            let _ = write!(safe, "\\u{{{:04x}}}", c as u32);
        } else {
            safe.push(c);
        }
    }
    std::borrow::Cow::Owned(safe)
}

fn is_simple_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One thing wrong with the input.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Where the offending node was written.
    pub origin: Origin,
    /// The key path of the offending node; empty for problems with no key.
    pub path: KeyPath,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it, where that helps.
    pub hint: Option<String>,
}

impl Problem {
    /// A problem without a hint.
    pub fn new(origin: Origin, path: KeyPath, message: impl Into<String>) -> Self {
        Problem {
            origin,
            path,
            message: message.into(),
            hint: None,
        }
    }

    /// This problem with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The problem as the lines shown to a user: the headline
    /// `ORIGIN: key.path: message`, the source line with a caret under the
    /// node, and the hint.
    pub fn render(&self) -> String {
        let mut out = self.to_string();
        if let Origin::At {
            source,
            line,
            col,
            width,
        } = &self.origin
            && let Some(text) = source.line(*line).filter(|_| !source.is_set_argument)
        {
            // Long lines (minified or binary input) are clipped around the column.
            let skip = col.saturating_sub(60);
            let text: String = text.chars().skip(skip).take(120).collect();
            let col = col - skip;
            let number = line.to_string();
            let gutter = " ".repeat(number.len());
            let pad: String = text
                .chars()
                .take(col.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let width = (*width).min(120 - pad.chars().count().min(119));
            let _ = write!(
                out,
                "\n {gutter} |\n {number} | {text}\n {gutter} | {pad}{}",
                "^".repeat(width.max(1))
            );
        }
        if let Some(hint) = &self.hint {
            let _ = write!(out, "\n  hint: {hint}");
        }
        out
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.origin)?;
        if !self.path.is_root() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

/// The closest of `candidates` to `word`, if any is close enough to be a
/// likely typo: same letters in another case, or a small edit distance.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            let distance = if candidate.to_lowercase() == lower {
                0
            } else {
                edit_distance(&lower, &candidate.to_lowercase())
            };
            (distance, candidate)
        })
        .filter(|(distance, candidate)| *distance <= (candidate.chars().count() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, counting characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

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
    fn key_paths_read_like_the_yaml() {
        let path = KeyPath::root()
            .key("projects")
            .index(2)
            .key("name")
            .key("app.kubernetes.io/name");
        assert_eq!(
            path.to_string(),
            r#"projects[2].name."app.kubernetes.io/name""#
        );
    }

    #[test]
    fn closest_finds_typos_and_case_slips_only() {
        let keys = ["replicas", "resources", "leaderElection", "logLevel"];
        assert_eq!(closest("replicaz", keys), Some("replicas"));
        assert_eq!(closest("Replicas", keys), Some("replicas"));
        assert_eq!(closest("leaderelection", keys), Some("leaderElection"));
        assert_eq!(closest("image", keys), None);
    }
}
