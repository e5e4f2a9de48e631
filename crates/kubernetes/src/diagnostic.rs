//! Diagnostics: what is wrong, where, and how it is shown.
//!
//! A [`Diagnostic`] is the one type every report about the user's input
//! and manifests leaves the program as: a rule id (when a rule was
//! broken), a [`Severity`], the message, where ([`Origin`], and
//! [`Diagnostic::location`], a file and line), the key path, a hint, and,
//! for one about an object of a manifest set, what it is about
//! ([`About`]: the object, the template that rendered it, the template
//! line; its subject). It has one
//! text renderer ([`Diagnostic::render_as`]) and one JSON renderer
//! ([`Diagnostic::to_json`], also its `Serialize`); a [`Rule`] carries
//! the help text per rule, so SARIF is one more renderer over the same
//! values. Stages collect every diagnostic before they report, so one run
//! shows them all.
//!
//! The reader and the values stage build a [`Problem`] (origin, path,
//! message, hint: always an error, no rule, no subject) and hand it on as
//! it is; it becomes a `Diagnostic` unchanged ([`From`]) where it is shown.
//!
//! The location types and the text-safety functions live below this module
//! ([`crate::location`], [`crate::text`]) and are re-exported here.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use crate::location::{KeyPath, Location, Origin, Segment, Source};
use crate::text::{MESSAGE, clip, mask_quoted_but, printable, window};

/// A problem in the input text, as the reader and the values stage find
/// it: where, which key, what is wrong, what to do. Always an error, with
/// no rule id and no subject: shown as a [`Diagnostic`] ([`From`]).
///
/// Its fields are the whole type, so that every input stage builds one
/// the same way, and a reader error cannot pass for a finding.
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
    /// Whether what it is about could hold a Secret's material as only the
    /// merged input knows (a values entry a set flag made a Secret): every
    /// format then shows it masked, whatever the text at its place reads.
    pub secret: bool,
}

impl Problem {
    /// A problem without a hint.
    pub fn new(origin: Origin, path: KeyPath, message: impl Into<String>) -> Self {
        Problem {
            origin,
            path,
            message: message.into(),
            hint: None,
            secret: false,
        }
    }

    /// This problem with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// This problem at key path `path`.
    pub fn at(mut self, path: KeyPath) -> Self {
        self.path = path;
        self
    }
}

/// `bytes` read from `name` as the text of a source, or the problem that
/// they are not UTF-8 text, at the first byte that is not (line, and
/// column in characters): the values' and the manifests' readers say it
/// alike. The line is shown as it reads, U+FFFD for what is not text.
pub fn utf8_source(name: String, bytes: Vec<u8>) -> Result<Arc<Source>, Problem> {
    let e = match String::from_utf8(bytes) {
        Ok(text) => return Ok(Source::file(name, text)),
        Err(e) => e,
    };
    // A byte order mark of UTF-16 (kubectl reads it): named, and what to do.
    if let [0xff, 0xfe, ..] | [0xfe, 0xff, ..] = e.as_bytes() {
        let source = Source::file(name, String::new());
        return Err(Problem::new(
            Origin::at(source, 1, 1, 1),
            KeyPath::root(),
            "the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8",
        )
        .with_hint("save it as UTF-8 (`iconv -f UTF-16 -t UTF-8`)"));
    }
    let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
    // Lines as YAML counts them ([`crate::location::lines`]): `\r\n`, a
    // lone `\r` or `\n` ends one.
    let ends = |i: usize| match valid[i] {
        b'\n' => true,
        b'\r' => valid.get(i + 1) != Some(&b'\n'),
        _ => false,
    };
    let line_start = (0..valid.len())
        .rev()
        .find(|&i| ends(i))
        .map_or(0, |i| i + 1);
    let line = 1 + (0..valid.len()).filter(|&i| ends(i)).count();
    // Valid up to here: its characters are counted by their first bytes.
    let col = 1
        + (valid[line_start..].iter())
            .filter(|b| **b & 0xc0 != 0x80)
            .count();
    let source = Source::file(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
    Err(Problem::new(
        Origin::at(source, line, col, 1),
        KeyPath::root(),
        "the file is not UTF-8 text",
    ))
}

impl fmt::Display for Problem {
    /// `ORIGIN: key.path: message`, unescaped: the renderers escape.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&place_line(&self.origin, &self.path, &self.message))
    }
}

impl std::error::Error for Problem {}

/// `ORIGIN: key.path: message` (no path at the root), unescaped.
fn place_line(origin: &Origin, path: &KeyPath, message: &str) -> String {
    if path.is_root() {
        format!("{origin}: {message}")
    } else {
        format!("{origin}: {path}: {message}")
    }
}

/// A rule a diagnostic reports a break of, with what a reader (or SARIF's
/// `tool.driver.rules`) needs to understand it.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// The short id: `R1`, `K8S`.
    pub id: &'static str,
    /// What it requires, in one line (SARIF's short description).
    pub title: &'static str,
    /// What it protects, and where it comes from (SARIF's help text).
    pub help: &'static str,
    /// A diagnostic it reports, as the text renderer prints it.
    pub example: &'static str,
    /// The document that explains it, one section per id: the rule's link
    /// is [`Rule::link`].
    pub doc: &'static str,
}

impl Rule {
    /// Where the rule is explained: its section of [`Rule::doc`], named
    /// by its id in lower case (`docs/checks.md#r1` for `R1`).
    pub fn link(&self) -> String {
        format!("{}#{}", self.doc, self.id.to_lowercase())
    }
}

/// How serious a diagnostic is, as SARIF's `level` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is refused, or a check fails.
    Error,
    /// Worth knowing (what could not be verified); the exit code stays 0.
    Note,
}

/// What a diagnostic about one object of a manifest set is about, its
/// subject: the object, and where it came from. (Named `About`, not
/// `Subject`, which in this crate is an RBAC binding's:
/// `rbac::resolve::Subject`.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct About {
    /// The object, as `Kind namespace/name`, or what a note is about
    /// (`Namespace buildkit-builds`, perhaps not in the input).
    pub object: String,
    /// The template that rendered the object (relative to `templates/`),
    /// when known: its `# Source:` comment, or this run's render.
    pub template: Option<String>,
    /// For an object rendered by this run: the template line that wrote
    /// the offending node (`templates/<name>`, line), when the trace shows
    /// it. The rendered text is no file of the user's, so the diagnostic's
    /// [`Origin`] is then [`Origin::Default`].
    pub rendered_at: Option<Location>,
}

/// One thing wrong with the input or the manifests, or, as a
/// [`Severity::Note`], one thing that could not be verified.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// The rule broken; `None` for input that cannot be read or used.
    pub rule: Option<&'static Rule>,
    /// How serious it is.
    pub severity: Severity,
    /// Where the offending node was read; [`Origin::Default`] when that is
    /// no place of the user's (a built-in default, this run's render).
    pub origin: Origin,
    /// The key path of the offending node; empty for none, or the root.
    pub path: KeyPath,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it, where that helps.
    pub hint: Option<String>,
    /// The object it is about, for a diagnostic about a manifest set.
    pub subject: Option<Box<About>>,
}

/// Words after which a message quotes a name of the schema, never of the
/// input: a masked message keeps it (`missing key `apiVersion``), as
/// nothing of a Secret is in it, and two such problems stay told apart.
const OWN_QUOTES: &[&str] = &["missing key "];

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

impl From<Problem> for Diagnostic {
    /// The problem as an error with no rule and no subject.
    fn from(problem: Problem) -> Self {
        let Problem {
            origin,
            path,
            message,
            hint,
            secret: _,
        } = problem;
        Diagnostic {
            rule: None,
            severity: Severity::Error,
            origin,
            path,
            message,
            hint,
            subject: None,
        }
    }
}

impl Diagnostic {
    /// A break of `rule` in `subject`'s object, at `path`, read at
    /// `origin`.
    pub fn finding(
        rule: &'static Rule,
        subject: About,
        origin: Origin,
        path: KeyPath,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule: Some(rule),
            severity: Severity::Error,
            origin,
            path,
            message: message.into(),
            hint: None,
            subject: Some(Box::new(subject)),
        }
    }

    /// A note: what could not be verified about `about`, and why.
    pub fn note(about: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            rule: None,
            severity: Severity::Note,
            origin: Origin::Default,
            path: KeyPath::root(),
            message: message.into(),
            hint: None,
            subject: Some(Box::new(About {
                object: about.into(),
                template: None,
                rendered_at: None,
            })),
        }
    }

    /// The rule's id, when a rule was broken.
    pub fn id(&self) -> Option<&'static str> {
        self.rule.map(|rule| rule.id)
    }

    /// The object it is about, for a diagnostic about a manifest set.
    pub fn object(&self) -> Option<&str> {
        self.subject.as_deref().map(|s| s.object.as_str())
    }

    /// Where to look: the template line that wrote the node, for an object
    /// rendered by this run, else the file, line and column it was read
    /// at; `None` for a built-in default or an untraced render.
    pub fn location(&self) -> Option<Location> {
        match self.subject.as_deref() {
            Some(About {
                rendered_at: Some(at),
                ..
            }) => Some(at.clone()),
            _ => self.origin.location(),
        }
    }

    /// The diagnostic as the lines shown to a user, quoting its input
    /// ([`Quoting::Quote`]).
    pub fn render(&self) -> String {
        self.render_as(Quoting::Quote)
    }

    /// The one text renderer, with no trailing newline. Everything from
    /// the input is escaped ([`printable`]). Three layouts, by what the
    /// diagnostic is about:
    ///
    /// - a place in the input text: `ORIGIN: key.path: message`, a short
    ///   window of the source line with a caret under the node (unless
    ///   masked), and `  hint: …`; long texts clipped;
    /// - an object of a manifest set: `ID Kind ns/name key.path: message`,
    ///   then `  at FILE:LINE` (with `(rendered by templates/T)` when the
    ///   object was read from a file but rendered by a template);
    /// - a note: `info: SUBJECT: message`.
    pub fn render_as(&self, quoting: Quoting) -> String {
        if quoting == Quoting::Mask {
            return self.masked().render_as(Quoting::Quote);
        }
        let first = self.first_line(&self.message);
        let mut out = match self.subject.as_deref() {
            None => {
                let mut out = printable(&clip(&first, MESSAGE)).into_owned();
                self.source_window(&mut out);
                out
            }
            Some(subject) => {
                let mut out = printable(&first).into_owned();
                if self.severity != Severity::Note {
                    self.where_rendered(subject, &mut out);
                }
                out
            }
        };
        if let Some(hint) = &self.hint {
            let _ = write!(out, "\n  hint: {}", printable(&clip(hint, MESSAGE)));
        }
        out
    }

    /// The diagnostic as [`Quoting::Mask`] shows it, in every format (the
    /// text renderer and JSON alike): what the message and hint quote (in
    /// backticks or double quotes) masked but a name of the schema's
    /// (`missing key `apiVersion``), no source text left to quote a line
    /// from, and a set flag's argument named by its flag and key only
    /// (`--set-file KEY=…`). The place (file, line, column) and the key
    /// path stay, but below a data key (`data.KEY`, `stringData.KEY`,
    /// `binaryData.KEY`, wherever it is: a Secret in a List or in a custom
    /// resource), where a Secret's keys would be part of its value: the
    /// caller clears a path it may not show.
    pub fn masked(&self) -> Diagnostic {
        let mut masked = self.clone();
        let data_key = masked.path.0.windows(2).position(|pair| {
            matches!(&pair[0], Segment::Key(field) if matches!(field.as_str(), "data" | "stringData" | "binaryData"))
                && matches!(pair[1], Segment::Key(_))
        });
        if let Some(at) = data_key {
            masked.path.0.truncate(at + 2);
        }
        masked.message = mask_quoted_but(&self.message, OWN_QUOTES);
        masked.hint = (self.hint.as_deref()).map(|hint| mask_quoted_but(hint, OWN_QUOTES));
        if let Origin::At {
            source,
            line,
            col,
            width,
        } = &self.origin
        {
            let name = match source.name.split_once('=') {
                Some((named, _)) if source.is_argument => format!("{named}=…"),
                _ => source.name.clone(),
            };
            masked.origin = Origin::At {
                source: Arc::new(Source {
                    name,
                    text: String::new(),
                    is_argument: source.is_argument,
                }),
                line: *line,
                col: *col,
                width: *width,
            };
        }
        masked
    }

    /// The first line, with `message`, unescaped: `ORIGIN: key.path: `,
    /// `ID Kind ns/name key.path: ` or `info: SUBJECT: `, then the message.
    fn first_line(&self, message: &str) -> String {
        let Some(subject) = self.subject.as_deref() else {
            return place_line(&self.origin, &self.path, message);
        };
        let mut out = match (self.severity, self.id()) {
            (Severity::Note, _) => format!("info: {}", subject.object),
            (Severity::Error, Some(id)) => format!("{id} {}", subject.object),
            (Severity::Error, None) => subject.object.clone(),
        };
        if !self.path.is_root() && self.severity != Severity::Note {
            let _ = write!(out, " {}", self.path);
        }
        out.push_str(": ");
        out.push_str(message);
        out
    }

    /// Under a finding's first line: `  at FILE:LINE`, with `(rendered by
    /// templates/T)` when the object was read from a file but a template
    /// rendered it.
    fn where_rendered(&self, subject: &About, out: &mut String) {
        if let Some(location) = self.location() {
            let mut at = format!("  at {location}");
            if let (None, Some(template)) = (&subject.rendered_at, &subject.template) {
                let _ = write!(at, " (rendered by templates/{template})");
            }
            out.push('\n');
            out.push_str(&printable(&at));
        }
    }

    /// The source line under the headline, with a caret under the node
    /// (not for a `--set` argument: the headline names it).
    fn source_window(&self, out: &mut String) {
        if let Origin::At {
            source,
            line,
            col,
            width,
        } = &self.origin
            && let Some(text) = source.line(*line as usize).filter(|_| !source.is_argument)
        {
            let window = window(text, *col as usize, *width as usize);
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

    /// The one JSON renderer (keys in this order; `hint` only when there
    /// is one). Three shapes, by what the diagnostic is about, the first two
    /// the contract of `check --output json`:
    ///
    /// - an object: `invariant` (the rule id), `object`, `path` (the key
    ///   path as text, empty at the root), `message`, `location`
    ///   (`FILE:LINE`, or null), `template` (or null), `doc` (the rule's
    ///   link);
    /// - a note: `subject`, `message`;
    /// - a place in the input text: `id` (when a rule has one), `severity`,
    ///   `message`, `location` (`file`, `line`, `column`; only `file` for a
    ///   `--set` argument; null for a built-in default), `path`.
    ///
    /// SARIF reads the same fields from the value itself: `id`, `severity`,
    /// `message`, [`Diagnostic::location`], `path`, and the rule's help.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = serde_json::Map::new();
        let mut put = |key: &str, value: serde_json::Value| json.insert(key.to_owned(), value);
        match self.subject.as_deref() {
            Some(subject) if self.severity == Severity::Note => {
                put("subject", subject.object.clone().into());
                put("message", self.message.clone().into());
            }
            Some(subject) => {
                put("invariant", self.id().into());
                put("object", subject.object.clone().into());
                put("path", self.path.to_string().into());
                put("message", self.message.clone().into());
                put("location", self.location().map(|l| l.to_string()).into());
                put("template", subject.template.clone().into());
                put("doc", self.rule.map(Rule::link).into());
            }
            None => {
                if let Some(id) = self.id() {
                    put("id", id.into());
                }
                put("severity", serde_json::json!(self.severity));
                put("message", self.message.clone().into());
                put("location", serde_json::json!(self.origin.location()));
                put("path", self.path.to_string().into());
            }
        }
        if let Some(hint) = &self.hint {
            put("hint", hint.clone().into());
        }
        json.into()
    }
}

impl serde::Serialize for Diagnostic {
    /// As [`Diagnostic::to_json`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl schemars::JsonSchema for Diagnostic {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Diagnostic".into()
    }

    /// The three shapes [`Diagnostic::to_json`] writes, each closed (a key
    /// added there without this schema fails the output contract's test).
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let text = serde_json::json!({"type": "string"});
        let maybe = serde_json::json!({"type": ["string", "null"]});
        let place = serde_json::json!({
            "type": ["object", "null"],
            "properties": {
                "file": text,
                "line": {"type": "integer", "minimum": 1},
                "column": {"type": "integer", "minimum": 1},
            },
            "required": ["file"],
            "additionalProperties": false,
        });
        schemars::json_schema!({
            "description": "A finding (`invariant`), a note (`subject`), or a problem at a place in the input (`severity`).",
            "oneOf": [
                {
                    "title": "finding",
                    "type": "object",
                    "properties": {
                        "invariant": maybe, "object": text, "path": text, "message": text,
                        "location": maybe, "template": maybe, "doc": maybe, "hint": text,
                    },
                    "required": ["invariant", "object", "path", "message", "location", "template", "doc"],
                    "additionalProperties": false,
                },
                {
                    "title": "note",
                    "type": "object",
                    "properties": {"subject": text, "message": text, "hint": text},
                    "required": ["subject", "message"],
                    "additionalProperties": false,
                },
                {
                    "title": "problem",
                    "type": "object",
                    "properties": {
                        "id": text, "severity": {"enum": ["error", "note"]}, "message": text,
                        "location": place, "path": text, "hint": text,
                    },
                    "required": ["severity", "message", "location", "path"],
                    "additionalProperties": false,
                },
            ],
        })
    }
}

impl fmt::Display for Diagnostic {
    /// The text renderer's first line, unescaped and unclipped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.first_line(&self.message))
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
                strsim::levenshtein(&lower, &candidate.to_lowercase())
            };
            (distance, candidate)
        })
        .filter(|(distance, candidate)| *distance <= (candidate.chars().count() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
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

    /// `line`:`col` of a file `name` holding `text`, `width` wide.
    fn at(name: &str, text: &str, (line, col, width): (usize, usize, usize)) -> Origin {
        Origin::at(crate::location::Source::file(name, text), line, col, width)
    }

    fn at_line_two() -> Diagnostic {
        Problem::new(
            at("v.yaml", "a: 1\nb: \"hunter2\"\n", (2, 4, 9)),
            KeyPath::root().key("b"),
            "`hunter2` is not a number",
        )
        .with_hint("write \"3\"")
        .into()
    }

    const RULE: Rule = Rule {
        id: "R5",
        title: "No wildcards",
        help: "Every grant names what it grants.",
        example: "R5 Role a/b rules[0].verbs: a wildcard in verbs",
        doc: "docs/checks.md",
    };

    /// A finding in a file that a template rendered, at line 7 column 3.
    fn finding(rendered_at: Option<Location>) -> Diagnostic {
        let origin = at("m.yaml", "", (7, 3, 1));
        let subject = About {
            object: "Role a/b".to_owned(),
            template: Some("rbac.yaml".to_owned()),
            rendered_at,
        };
        let path = KeyPath::root().key("rules").index(0).key("verbs");
        Diagnostic::finding(&RULE, subject, origin, path, "a wildcard\u{1b}[2J in verbs")
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
        assert_eq!(
            diagnostic.to_string(),
            "v.yaml:2:4: b: `hunter2` is not a number"
        );
    }

    /// Below a data key, a Secret's keys are its value: masked, the path
    /// stops at the data key, wherever it is; unmasked, it stays whole.
    #[test]
    fn a_masked_path_stops_at_a_data_key() {
        let path = |diagnostic: &Diagnostic| diagnostic.path.to_string();
        let mut diagnostic = at_line_two();
        diagnostic.path = KeyPath::root()
            .key("stringData")
            .key("pw")
            .index(1)
            .key("hunter2");
        assert_eq!(path(&diagnostic.masked()), "stringData.pw");
        assert_eq!(path(&diagnostic), "stringData.pw[1].hunter2");
        diagnostic.path = KeyPath::root()
            .key("items")
            .index(0)
            .key("data")
            .key("a")
            .key("b");
        assert_eq!(path(&diagnostic.masked()), "items[0].data.a");
        diagnostic.path = KeyPath::root().key("spec").key("data");
        assert_eq!(path(&diagnostic.masked()), "spec.data");
    }

    #[test]
    fn the_same_renderer_shows_findings_and_notes() {
        assert_eq!(
            finding(None).render(),
            "R5 Role a/b rules[0].verbs: a wildcard\\u{001b}[2J in verbs\n  at m.yaml:7 (rendered by templates/rbac.yaml)"
        );
        let rendered = finding(Some(Location::line("templates/_helpers.yaml", 12)));
        assert_eq!(
            rendered.render().lines().nth(1),
            Some("  at templates/_helpers.yaml:12")
        );
        let mut untraced = finding(None);
        untraced.origin = Origin::Default;
        untraced.rule = None;
        assert_eq!(
            untraced.render(),
            "Role a/b rules[0].verbs: a wildcard\\u{001b}[2J in verbs"
        );
        let note = Diagnostic::note("Namespace x\ny", "not verified");
        assert_eq!(note.render(), "info: Namespace x\\u{000a}y: not verified");
        assert_eq!(note.severity, Severity::Note);
    }

    #[test]
    fn the_json_shape_has_what_sarif_asks_for() {
        let mut diagnostic = at_line_two();
        assert_eq!(
            diagnostic.to_json(),
            serde_json::json!({
                "severity": "error",
                "message": "`hunter2` is not a number",
                "location": {"file": "v.yaml", "line": 2, "column": 4},
                "path": "b",
                "hint": "write \"3\"",
            })
        );
        diagnostic.rule = Some(&RULE);
        assert_eq!(diagnostic.to_json()["id"], "R5");
        let default = Diagnostic::from(Problem::new(Origin::Default, KeyPath::root(), "no"));
        assert_eq!(
            default.to_json(),
            serde_json::json!({"severity": "error", "message": "no", "location": null, "path": ""})
        );
    }

    #[test]
    fn a_finding_keeps_the_json_of_check_and_what_sarif_needs() {
        let finding = finding(None);
        let json = crate::text::json_pretty(&finding).unwrap();
        assert_eq!(
            json,
            "{\n  \"invariant\": \"R5\",\n  \"object\": \"Role a/b\",\n  \"path\": \"rules[0].verbs\",\n  \"message\": \"a wildcard\\u001b[2J in verbs\",\n  \"location\": \"m.yaml:7\",\n  \"template\": \"rbac.yaml\",\n  \"doc\": \"docs/checks.md#r5\"\n}\n"
        );
        // SARIF: rule id, level, message, file, line, column, help per rule.
        let rule = finding.rule.unwrap();
        let location = finding.location().unwrap();
        assert_eq!(
            (rule.id, finding.severity, rule.help, rule.link()),
            (
                "R5",
                Severity::Error,
                "Every grant names what it grants.",
                "docs/checks.md#r5".to_owned()
            )
        );
        assert_eq!(
            (location.file.as_str(), location.line, location.column),
            ("m.yaml", Some(7), Some(3))
        );
        let note = Diagnostic::note("Namespace x", "not verified");
        assert_eq!(
            note.to_json(),
            serde_json::json!({"subject": "Namespace x", "message": "not verified"})
        );
    }
}
