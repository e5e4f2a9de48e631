//! Diagnostics: what is wrong with the input, where, and how it is shown.
//!
//! A [`Diagnostic`] is one thing wrong with the user's input: where it is
//! (an [`Origin`]), which key (a [`KeyPath`]), what is wrong, and what to
//! do. It is the one shape of every such report: the reader's errors
//! ([`crate::yaml::YamlError`]), the values' and the manifests' problems
//! ([`Problem`]), each with one text renderer ([`Diagnostic::render`]) and
//! one JSON shape ([`Diagnostic::to_json`], with a rule id and a severity,
//! the fields SARIF asks for). Stages collect every diagnostic before they
//! report, so one run shows them all.
//!
//! The location types and the text-safety functions live below this module
//! ([`crate::location`], [`crate::text`]) and are re-exported here.

use std::fmt::{self, Write as _};

pub use crate::location::{KeyPath, Origin, Segment, Syntax};
pub use crate::text::{MESSAGE, WINDOW, Window, clip, json_pretty, mask_quoted, printable, window};

/// One thing wrong with the input.
///
/// The four fields are the whole type, so that every stage builds one the
/// same way; the rule id and severity are given where a diagnostic leaves
/// the program as data ([`Diagnostic::to_json`]): today every diagnostic of
/// the input is an error and only `check`'s findings carry a rule id.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Where the offending node was written.
    pub origin: Origin,
    /// The key path of the offending node; empty for problems with no key.
    pub path: KeyPath,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it, where that helps.
    pub hint: Option<String>,
}

/// The name the values and manifests stages use for a [`Diagnostic`].
pub type Problem = Diagnostic;

/// How serious a diagnostic is, as SARIF's `level` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is refused, or a check fails.
    Error,
    /// Worth knowing; the exit code stays 0.
    Note,
}

/// Whether the text renderer may quote the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quoting {
    /// Quote it: the source line with a caret, the message as it is.
    Quote,
    /// Quote nothing: no source line, and what the message and hint quote
    /// (in backticks or double quotes) masked. For input that could hold a
    /// Secret, or a file reached through a symbolic link.
    Mask,
}

impl Diagnostic {
    /// A diagnostic without a hint.
    pub fn new(origin: Origin, path: KeyPath, message: impl Into<String>) -> Self {
        Diagnostic {
            origin,
            path,
            message: message.into(),
            hint: None,
        }
    }

    /// This diagnostic with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// This diagnostic at key path `path`.
    pub fn at(mut self, path: KeyPath) -> Self {
        self.path = path;
        self
    }

    /// The diagnostic as the lines shown to a user: the headline
    /// `ORIGIN: key.path: message`, a short window of the source line with a
    /// caret under the node, and the hint. Everything from the input is
    /// escaped ([`printable`]) and long texts are clipped.
    pub fn render(&self) -> String {
        self.render_as(Quoting::Quote)
    }

    /// The diagnostic without quoting its input ([`Quoting::Mask`]).
    pub fn render_unquoted(&self) -> String {
        self.render_as(Quoting::Mask)
    }

    /// The one text renderer: [`Diagnostic::render`] or, masked,
    /// [`Diagnostic::render_unquoted`].
    pub fn render_as(&self, quoting: Quoting) -> String {
        let masked = |text: &str| match quoting {
            Quoting::Quote => text.to_owned(),
            Quoting::Mask => mask_quoted(text),
        };
        let mut out = self.headline(&masked(&self.message));
        if quoting == Quoting::Quote {
            self.source_window(&mut out);
        }
        if let Some(hint) = &self.hint {
            let _ = write!(
                out,
                "\n  hint: {}",
                printable(&clip(&masked(hint), MESSAGE))
            );
        }
        out
    }

    /// The source line under the headline, with a caret under the node
    /// (not for a `--set` argument: the headline names it whole).
    fn source_window(&self, out: &mut String) {
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
    }

    fn headline(&self, message: &str) -> String {
        let mut out = format!("{}: ", self.origin);
        if !self.path.is_root() {
            let _ = write!(out, "{}: ", self.path);
        }
        out.push_str(message);
        printable(&clip(&out, MESSAGE)).into_owned()
    }

    /// The one JSON shape of a diagnostic: `id` (when a rule has one),
    /// `severity`, `message`, `location` (`file`, `line`, `column`; null for
    /// a built-in default; a `--set` argument as its `file`), `path` (the
    /// key path, empty at the root) and `hint` (when there is one). SARIF's
    /// `ruleId`, `level`, `message`, physical and logical locations.
    pub fn to_json(&self, id: Option<&str>, severity: Severity) -> serde_json::Value {
        let mut json = serde_json::Map::new();
        if let Some(id) = id {
            json.insert("id".into(), id.into());
        }
        json.insert("severity".into(), serde_json::json!(severity));
        json.insert("message".into(), self.message.clone().into());
        let location = match &self.origin {
            Origin::At { source, .. } if source.is_set_argument => {
                serde_json::json!({ "file": source.name })
            }
            Origin::At {
                source, line, col, ..
            } => serde_json::json!({ "file": source.name, "line": line, "column": col }),
            Origin::Default => serde_json::Value::Null,
        };
        json.insert("location".into(), location);
        json.insert("path".into(), self.path.to_string().into());
        if let Some(hint) = &self.hint {
            json.insert("hint".into(), hint.clone().into());
        }
        json.into()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.origin)?;
        if !self.path.is_root() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

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

    fn at_line_two() -> Diagnostic {
        let source = crate::location::Source::file("v.yaml", "a: 1\nb: \"hunter2\"\n");
        let origin = Origin::At {
            source,
            line: 2,
            col: 4,
            width: 9,
        };
        Diagnostic::new(
            origin,
            KeyPath::root().key("b"),
            "`hunter2` is not a number",
        )
        .with_hint("write \"3\"")
    }

    #[test]
    fn one_renderer_quotes_the_line_or_masks_what_it_quotes() {
        let diagnostic = at_line_two();
        assert_eq!(
            diagnostic.render_as(Quoting::Quote),
            "v.yaml:2:4: b: `hunter2` is not a number\n   |\n 2 | b: \"hunter2\"\n   |    ^^^^^^^^^\n  hint: write \"3\""
        );
        assert_eq!(
            diagnostic.render_as(Quoting::Mask),
            "v.yaml:2:4: b: `…` is not a number\n  hint: write \"…\""
        );
        assert_eq!(diagnostic.render(), diagnostic.render_as(Quoting::Quote));
    }

    #[test]
    fn the_json_shape_has_what_sarif_asks_for() {
        let diagnostic = at_line_two();
        assert_eq!(
            diagnostic.to_json(Some("K8S"), Severity::Error),
            serde_json::json!({
                "id": "K8S",
                "severity": "error",
                "message": "`hunter2` is not a number",
                "location": {"file": "v.yaml", "line": 2, "column": 4},
                "path": "b",
                "hint": "write \"3\"",
            })
        );
        let default = Diagnostic::new(Origin::Default, KeyPath::root(), "no");
        assert_eq!(
            default.to_json(None, Severity::Note),
            serde_json::json!({"severity": "note", "message": "no", "location": null, "path": ""})
        );
    }
}
