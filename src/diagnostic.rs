//! Problems found in the input, and how they are shown.
//!
//! A [`Problem`] is one thing wrong with the user's input: where it is (an
//! [`Origin`]), which key (a [`KeyPath`]), what is wrong, and what to do.
//! Stages collect every problem before they report, so one run shows them all.

use std::fmt::{self, Write as _};

pub use crate::location::{KeyPath, Origin, Segment, Syntax};
pub use crate::text::{MESSAGE, WINDOW, Window, clip, json_pretty, mask_quoted, printable, window};

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
    /// `ORIGIN: key.path: message`, a short window of the source line with a
    /// caret under the node, and the hint. Everything from the input is
    /// escaped ([`printable`]) and long texts are clipped.
    pub fn render(&self) -> String {
        let mut out = self.headline(&self.message);
        if let Origin::At {
            source,
            line,
            col,
            width,
        } = &self.origin
            && let Some(text) = source.line(*line).filter(|_| !source.is_set_argument)
        {
            let window = window(text, *col, *width);
            let number = line.to_string();
            let gutter = " ".repeat(number.len());
            let _ = write!(
                out,
                "\n {gutter} |\n {number} | {}\n {gutter} | {}{}",
                window.text,
                " ".repeat(window.caret),
                "^".repeat(window.width)
            );
        }
        if let Some(hint) = &self.hint {
            let _ = write!(out, "\n  hint: {}", printable(&clip(hint, MESSAGE)));
        }
        out
    }

    /// The problem without quoting its input: no source line, and whatever
    /// the message and hint quote (in backticks or double quotes) masked.
    /// For input that could hold a Secret.
    pub fn render_unquoted(&self) -> String {
        let mut out = self.headline(&mask_quoted(&self.message));
        if let Some(hint) = &self.hint {
            let _ = write!(
                out,
                "\n  hint: {}",
                printable(&clip(&mask_quoted(hint), MESSAGE))
            );
        }
        out
    }

    fn headline(&self, message: &str) -> String {
        let mut out = format!("{}: ", self.origin);
        if !self.path.is_root() {
            let _ = write!(out, "{}: ", self.path);
        }
        out.push_str(message);
        printable(&clip(&out, MESSAGE)).into_owned()
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
    fn closest_finds_typos_and_case_slips_only() {
        let keys = ["replicas", "resources", "leaderElection", "logLevel"];
        assert_eq!(closest("replicaz", keys), Some("replicas"));
        assert_eq!(closest("Replicas", keys), Some("replicas"));
        assert_eq!(closest("leaderelection", keys), Some("leaderElection"));
        assert_eq!(closest("image", keys), None);
    }
}
