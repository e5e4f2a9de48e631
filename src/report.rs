//! Printing errors for a person: `error:` lines on stderr, each cause as
//! `caused by:`, and a `hint:` where one helps. [`render`] is the plain
//! text; [`render_for_stderr`] colours the labels (`error:` red, `hint:`
//! cyan) when stderr takes colour ([`kubernetes::terminal`]): only the labels,
//! so the words read the same in a terminal, a CI log and a snapshot.
//!
//! Everything printed here goes through [`printable`] and [`clip`]: a file
//! name, a key or a value from the input can neither forge a line nor send
//! a control sequence to the terminal, and no message runs to megabytes.
//! A problem in manifests that could hold a Secret, or in a file reached
//! through a symbolic link, quotes none of its input (see
//! [`kubernetes::secret`]); [`values_shown`] and [`manifests_shown`]
//! decide it once for every format, so `validate --output json` masks
//! what the text masks.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use anstyle::Style;
use chart::error::Error as ChartError;
use kubernetes::diagnostic::{Diagnostic, Problem};
use kubernetes::error::Error;
use kubernetes::location::{KeyPath, Origin, Source};
use kubernetes::quotable::Quotable;
use kubernetes::terminal;
use kubernetes::text::{MESSAGE, clip, printable};

/// The full text shown for `error`, ending in a newline: the problems of
/// invalid values or manifests each through the one diagnostic renderer
/// ([`Diagnostic::render_as`]), any other error as its message, causes and
/// hint. No colour.
pub fn render(error: &anyhow::Error) -> String {
    render_styled(error, Labels::plain())
}

/// [`render`], with its labels coloured when stderr takes colour.
pub fn render_for_stderr(error: &anyhow::Error) -> String {
    render_styled(error, Labels::when(terminal::stderr_colour()))
}

/// The styles of the labels: plain ones write nothing.
#[derive(Clone, Copy)]
struct Labels {
    error: Style,
    hint: Style,
}

impl Labels {
    fn plain() -> Self {
        Self::when(false)
    }

    fn when(on: bool) -> Self {
        Labels {
            error: terminal::when(on, terminal::ERROR),
            hint: terminal::when(on, terminal::HINT),
        }
    }

    /// `error:`, styled.
    fn error(self) -> String {
        format!("{0}error:{0:#}", self.error)
    }

    /// `hint:`, styled.
    fn hint(self) -> String {
        format!("{0}hint:{0:#}", self.hint)
    }
}

fn render_styled(error: &anyhow::Error, labels: Labels) -> String {
    match listed(error) {
        Some(Listed::Values(problems)) => problems_text(
            error,
            &values_shown(&problems[..problems.len().min(MAX_PROBLEMS)]),
            problems.len(),
            labels,
        ),
        Some(Listed::Manifests(problems)) => problems_text(
            error,
            &manifests_shown(&problems[..problems.len().min(MAX_PROBLEMS)]),
            problems.len(),
            labels,
        ),
        None => chain_text(error, labels),
    }
}

/// Each problem of invalid values as every format shows it (the text on
/// stderr, `validate --output json`): masked ([`Diagnostic::masked`]) where
/// it may not quote its input.
///
/// An `extraObjects` entry is a manifest, and may be a Secret: judged as
/// manifests are; the chart's own keys hold none. A set flag's argument
/// is one piece of an entry, which alone shows nothing of what the entry
/// is: never quoted. A values file reached through a link could be any
/// file (a key): nothing of it is quoted, not even its keys' path. One
/// that did not read as values is judged as manifests are.
pub fn values_shown(problems: &[Problem]) -> Vec<Diagnostic> {
    let (mut links, mut read) = (HashMap::new(), HashMap::new());
    let mut judged = Judged::new(problems);
    let mut linked_file = |problem: &Problem| match &problem.origin {
        Origin::At { source, .. } if !source.is_argument => *links
            .entry(Arc::as_ptr(source))
            .or_insert_with(|| linked(&source.name)),
        _ => false,
    };
    (problems.iter())
        .map(|problem| {
            if linked_file(problem) {
                let mut shown = Diagnostic::from(problem.clone()).masked();
                shown.path = KeyPath::root();
                return shown;
            }
            let quoted = if problem.secret {
                // The merged values say its entry could be a Secret.
                false
            } else if in_extra_objects(problem) {
                !from_set_argument(problem) && entry_may_quote(problem, &mut read)
            } else if about_a_whole_file(problem) {
                judged.may_quote(problem)
            } else {
                // Another key's line may hold an entry too (one line of
                // JSON, flow style): judged by what lies on it.
                line_may_quote(problem, &mut read)
            };
            shown_as(problem, quoted)
        })
        .collect()
}

/// Each problem in manifests as every format shows it: masked where it
/// may not quote its input (`Judged::may_quote`).
pub fn manifests_shown(problems: &[Problem]) -> Vec<Diagnostic> {
    let mut judged = Judged::new(problems);
    (problems.iter())
        .map(|problem| shown_as(problem, judged.may_quote(problem)))
        .collect()
}

/// `problem` as a diagnostic, masked unless `quoted`.
fn shown_as(problem: &Problem, quoted: bool) -> Diagnostic {
    let diagnostic = Diagnostic::from(problem.clone());
    if quoted {
        diagnostic
    } else {
        diagnostic.masked()
    }
}

/// The problems an error lists, by what they are in.
enum Listed<'a> {
    /// The values' ([`ChartError::InvalidValues`]).
    Values(&'a [Problem]),
    /// The manifests' ([`Error::InvalidManifests`]), whether the
    /// `kubernetes` crate's error came as it is or inside the chart's.
    Manifests(&'a [Problem]),
}

/// What `error` lists, if it is an error of problems.
fn listed(error: &anyhow::Error) -> Option<Listed<'_>> {
    let manifests = match error.downcast_ref::<ChartError>() {
        Some(ChartError::InvalidValues { problems }) => return Some(Listed::Values(problems)),
        Some(ChartError::Kubernetes(error)) => error,
        Some(_) => return None,
        None => error.downcast_ref::<Error>()?,
    };
    match manifests {
        Error::InvalidManifests { problems } => Some(Listed::Manifests(problems)),
        _ => None,
    }
}

/// `error: ` and each problem shown (the first [`MAX_PROBLEMS`] of
/// `count`); then, for more than one, how many were not shown and the
/// count.
fn problems_text(
    error: &anyhow::Error,
    shown: &[Diagnostic],
    count: usize,
    labels: Labels,
) -> String {
    let mut out = String::new();
    for diagnostic in shown {
        let mut shown = diagnostic.render();
        // Every line of `shown` is escaped: a line that starts with the
        // hint's label is the diagnostic's own.
        if labels.hint != Style::new() {
            shown = shown.replace("\n  hint: ", &format!("\n  {} ", labels.hint()));
        }
        let _ = writeln!(out, "{} {shown}", labels.error());
    }
    if count > MAX_PROBLEMS {
        let _ = writeln!(
            out,
            "{} … and {} more (only the first {MAX_PROBLEMS} are shown)",
            labels.error(),
            count - MAX_PROBLEMS
        );
    }
    if count > 1 {
        let _ = writeln!(out, "{} {error}", labels.error());
    }
    out
}

/// An error that names no place in an input text (a file that cannot be
/// read, an option, the output directory): its message, each cause and
/// its hint, each escaped and clipped as a diagnostic's lines are.
fn chain_text(error: &anyhow::Error, labels: Labels) -> String {
    let shown = |text: &str| printable(&clip(text, MESSAGE)).into_owned();
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", labels.error(), shown(&error.to_string()));
    for cause in error.chain().skip(1) {
        let _ = writeln!(out, "  caused by: {}", shown(&cause.to_string()));
    }
    // Only `render` writes a directory.
    let partly_written = || {
        matches!(
            error.downcast_ref::<Error>(),
            Some(Error::PartlyWritten { .. })
        )
        .then_some("render again to finish (until then `render --check` reports the difference)")
    };
    if let Some(hint) = (error.downcast_ref::<ChartError>())
        .and_then(ChartError::hint)
        .or_else(partly_written)
    {
        let _ = writeln!(out, "  {} {}", labels.hint(), shown(hint));
    }
    out
}

/// The most problems shown: past that, the input is not what the user
/// thought it was, and the rest would bury the first.
const MAX_PROBLEMS: usize = 100;

/// The values key whose entries are manifests (`model::extra_objects::KEY`,
/// written here as this module uses no higher layer;
/// `tests/it/extra_objects.rs` fails if a Secret's value is quoted).
const EXTRA_OBJECTS: &str = "extraObjects";

/// Whether a values problem is about an `extraObjects` entry.
fn in_extra_objects(problem: &Problem) -> bool {
    matches!(problem.path.0.first(), Some(kubernetes::location::Segment::Key(key)) if key == EXTRA_OBJECTS)
}

/// Whether a values problem is about a file as a whole (at the root of a
/// file, not of a set flag's argument): the file did not read as a
/// mapping of keys (it does not parse, is not UTF-8 text, holds a second
/// document), so which of its entries could be a Secret is not known, and
/// it is judged as manifests that fail to parse are ([`Judged::may_quote`]).
fn about_a_whole_file(problem: &Problem) -> bool {
    problem.path.is_root()
        && matches!(&problem.origin, Origin::At { source, .. } if !source.is_argument)
}

/// Whether a problem comes from a set flag's argument.
fn from_set_argument(problem: &Problem) -> bool {
    matches!(&problem.origin, Origin::At { source, .. } if source.is_argument)
}

/// Whether a problem about an `extraObjects` entry may quote its input:
/// the values parsed, so the entry it lies in is known (the last entry of
/// `extraObjects` or `extraObjects+` of its file that starts before it),
/// and only that entry's text decides, as [`Judged::may_quote`] judges a file's
/// (an `imagePullSecrets` elsewhere in the file hides nothing). Not when
/// no entry is found (a file reached through a link is masked before).
fn entry_may_quote(problem: &Problem, read: &mut HashMap<*const Source, Entries>) -> bool {
    let Origin::At {
        source, line, col, ..
    } = &problem.origin
    else {
        return true;
    };
    // Each file read once, however many of its entries are at fault.
    let entries = &read
        .entry(Arc::as_ptr(source))
        .or_insert_with(|| Entries::of(source))
        .all;
    // The error shows its whole line: every entry that may lie on it (the
    // one that starts last before the line, and each that starts on it)
    // is judged, so that a Secret written in flow style beside the entry
    // at fault is not shown with it. Found by search in the entries,
    // sorted by where they start.
    let first_on_line = entries.partition_point(|((at, _), _)| *at < (*line, 1));
    let after_line = entries.partition_point(|((at, _), _)| at.0 <= *line);
    let before = first_on_line.checked_sub(1).map(|i| &entries[i]);
    let on_line = &entries[first_on_line..after_line];
    let mut shown = before.into_iter().chain(on_line).peekable();
    let found = entries
        .first()
        .is_some_and(|((at, _), _)| *at <= (*line, *col));
    found && shown.peek().is_some() && shown.all(|(_, quotable)| *quotable)
}

/// Whether a problem about a key outside `extraObjects` may quote its
/// line: no entry that may not be quoted lies on it (entries are judged
/// as [`entry_may_quote`] judges them, over the lines they span).
fn line_may_quote(problem: &Problem, read: &mut HashMap<*const Source, Entries>) -> bool {
    let Origin::At { source, line, .. } = &problem.origin else {
        return true;
    };
    if source.is_argument {
        return true;
    }
    let masked = &read
        .entry(Arc::as_ptr(source))
        .or_insert_with(|| Entries::of(source))
        .masked;
    // The last span starting on or before the line is the only one that
    // may hold it: the spans are disjoint.
    let at = masked.partition_point(|(first, _)| first <= line);
    at.checked_sub(1).is_none_or(|i| masked[i].1 < *line)
}

/// The `extraObjects` entries of a values file, read once however many
/// problems it has: each problem is then judged by a search, not a walk
/// of every entry.
struct Entries {
    /// Every entry ([`entries_of`]), by where it starts.
    all: Vec<Entry>,
    /// The lines of the entries that may not be quoted, as disjoint
    /// spans (first line, last line), in order.
    masked: Vec<(u32, u32)>,
}

impl Entries {
    fn of(source: &Arc<Source>) -> Self {
        let mut all = entries_of(source);
        all.sort_by_key(|((at, _), _)| *at);
        let mut masked: Vec<(u32, u32)> = Vec::new();
        for &(((first, _), last), _) in all.iter().filter(|(_, quotable)| !quotable) {
            match masked.last_mut() {
                Some(span) if first <= span.1 => span.1 = span.1.max(last),
                _ => masked.push((first, last)),
            }
        }
        Entries { all, masked }
    }
}

/// An `extraObjects` entry of a values file: where it starts (line,
/// column) and the last line it spans, and whether its text may be
/// quoted.
type Entry = (((u32, u32), u32), bool);

/// The entries of `extraObjects` and `extraObjects+` in `source`, none
/// when it does not parse.
fn entries_of(source: &Arc<Source>) -> Vec<Entry> {
    let Ok(Some(document)) =
        kubernetes::yaml::parse_one(source, kubernetes::yaml::Limits::VALUES, ("", ""))
    else {
        return Vec::new();
    };
    [EXTRA_OBJECTS, &format!("{EXTRA_OBJECTS}+")]
        .iter()
        .filter_map(|key| document.get(key))
        .filter_map(|list| match &list.value {
            kubernetes::yaml::Value::Sequence(items) => Some(items),
            _ => None,
        })
        .flatten()
        .filter_map(|item| match &item.origin {
            Origin::At { line, col, .. } => Some((
                ((*line, *col), last_line(item).max(*line)),
                !kubernetes::secret::text_could_hold_secret(&item.to_json().to_string()),
            )),
            Origin::Default => None,
        })
        .collect()
}

/// The last line a node's text reaches, as far as its nodes' and keys'
/// places tell (a block scalar's later lines aside).
fn last_line(node: &kubernetes::yaml::Node) -> u32 {
    let at = |origin: &Origin| match origin {
        Origin::At { line, .. } => *line,
        Origin::Default => 0,
    };
    let mut last = at(&node.origin);
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        last = last.max(at(&node.origin));
        match &node.value {
            kubernetes::yaml::Value::Sequence(items) => stack.extend(items),
            kubernetes::yaml::Value::Mapping(entries) => {
                for (key, value) in entries {
                    last = last.max(at(&key.origin));
                    stack.push(value);
                }
            }
            _ => {}
        }
    }
    last
}

/// Whether the file at `path`, or any folder of its path as given, is a
/// symbolic link (an absolute path is judged whole: a link above the
/// working directory masks too, which errs on the side of quoting less);
/// a stream of `/dev/` is not.
fn linked(path: &str) -> bool {
    // A stream named (`/dev/stdin`, `/dev/fd/3`) is the user's own input,
    // as `-` is; nothing of a repository can place a link there.
    if path.starts_with("/dev/") {
        return false;
    }
    Path::new(path).ancestors().any(|at| {
        !at.as_os_str().is_empty()
            && std::fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// Whether problems in manifests may quote their input, each source
/// judged once (many problems can share one large source), and read no
/// further than the last place a problem is about.
struct Judged {
    /// The last place (line, column) a problem is about, per source.
    until: HashMap<*const Source, (u32, u32)>,
    /// Per source: whether it was reached through a link, and its
    /// documents' verdicts.
    sources: HashMap<*const Source, (bool, Quotable)>,
}

impl Judged {
    fn new(problems: &[Problem]) -> Self {
        let mut until: HashMap<*const Source, (u32, u32)> = HashMap::new();
        for problem in problems {
            if let Origin::At {
                source, line, col, ..
            } = &problem.origin
            {
                let last = until.entry(Arc::as_ptr(source)).or_default();
                *last = (*last).max((*line, *col));
            }
        }
        Judged {
            until,
            sources: HashMap::new(),
        }
    }

    /// Whether a problem may quote its input: not when the file was
    /// reached through a symbolic link, the file itself or any folder of
    /// its path as given (it could be any file: a key, a password store);
    /// nor when the document it is in could be or hold a Secret, or
    /// cannot be read far enough to tell ([`Quotable`]: the objects of
    /// input that failed to parse are not known).
    fn may_quote(&mut self, problem: &Problem) -> bool {
        let Origin::At {
            source, line, col, ..
        } = &problem.origin
        else {
            return true;
        };
        let until = self.until.get(&Arc::as_ptr(source)).copied();
        let (linked, quotable) = self.sources.entry(Arc::as_ptr(source)).or_insert_with(|| {
            let until = until.unwrap_or((*line, *col));
            (linked(&source.name), Quotable::judge(&source.text, until))
        });
        !*linked && quotable.at(*line, *col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that stopped part-way says how far it got, why, and that
    /// rendering again finishes it: the generic crate's error names no
    /// command, the binary's hint does.
    #[test]
    fn a_part_way_write_hints_at_rendering_again() {
        let error = anyhow::Error::new(Error::PartlyWritten {
            state: "writing `out` stopped part-way: 1 of 3 files were already written".to_owned(),
            source: Box::new(Error::Output {
                path: "out/b.yaml".to_owned(),
                reason: "a directory is in the way".to_owned(),
            }),
        });
        assert_eq!(
            render(&error),
            "error: writing `out` stopped part-way: 1 of 3 files were already written\n  caused by: cannot write `out/b.yaml`: a directory is in the way\n  hint: render again to finish (until then `render --check` reports the difference)\n"
        );
    }
}
