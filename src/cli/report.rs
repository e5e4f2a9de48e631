//! Printing errors for a person: `error:` lines on stderr, each cause as
//! `caused by:`, and a `hint:` where one helps. No colour, so the text reads
//! the same in a terminal, a CI log and a snapshot.
//!
//! Everything printed here goes through [`printable`] and [`clip`]: a file
//! name, a key or a value from the input can neither forge a line nor send
//! a control sequence to the terminal, and no message runs to megabytes.
//! A problem in manifests that could hold a Secret, or in a file reached
//! through a symbolic link, quotes none of its input (see
//! [`crate::secret`]).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Problem, Quoting};
use crate::error::Error;
use crate::location::{Origin, Source};
use crate::text::{MESSAGE, clip, printable};

/// The full text shown for `error`, ending in a newline.
pub fn render(error: &anyhow::Error) -> String {
    let mut out = String::new();
    let shown = |text: &str| printable(&clip(text, MESSAGE)).into_owned();
    match error.downcast_ref::<Error>() {
        Some(Error::InvalidValues { problems }) => {
            for problem in problems.iter().take(MAX_PROBLEMS) {
                let _ = writeln!(out, "error: {}", shown_as(problem, Quoting::Quote));
            }
        }
        Some(Error::InvalidManifests { problems }) => {
            // Many problems can share one large source: judge each once.
            let mut judged = HashMap::new();
            for problem in problems.iter().take(MAX_PROBLEMS) {
                let quoting = if may_quote(problem, &mut judged) {
                    Quoting::Quote
                } else {
                    Quoting::Mask
                };
                let _ = writeln!(out, "error: {}", shown_as(problem, quoting));
            }
        }
        _ => {
            let _ = writeln!(out, "error: {}", shown(&error.to_string()));
            for cause in error.chain().skip(1) {
                let _ = writeln!(out, "  caused by: {}", shown(&cause.to_string()));
            }
            if let Some(hint) = error.downcast_ref::<Error>().and_then(Error::hint) {
                let _ = writeln!(out, "  hint: {}", shown(hint));
            }
            return out;
        }
    }
    if let Some(Error::InvalidValues { problems } | Error::InvalidManifests { problems }) =
        error.downcast_ref::<Error>()
        && problems.len() > 1
    {
        if problems.len() > MAX_PROBLEMS {
            let _ = writeln!(
                out,
                "error: … and {} more (only the first {MAX_PROBLEMS} are shown)",
                problems.len() - MAX_PROBLEMS
            );
        }
        let _ = writeln!(out, "error: {error}");
    }
    out
}

/// The most problems shown: past that, the input is not what the user
/// thought it was, and the rest would bury the first.
const MAX_PROBLEMS: usize = 100;

/// `problem` through the one text renderer ([`Diagnostic::render_as`]).
fn shown_as(problem: &Problem, quoting: Quoting) -> String {
    Diagnostic::from(problem.clone()).render_as(quoting)
}

/// Whether a problem in manifests may quote its input: not when the text
/// could hold a Secret (the parse failed, so which object is one is not
/// known), nor when the file was reached through a symbolic link (it could
/// be any file: a key, a password store).
fn may_quote(problem: &Problem, judged: &mut HashMap<*const Source, bool>) -> bool {
    match &problem.origin {
        Origin::At { source, .. } => *judged.entry(Arc::as_ptr(source)).or_insert_with(|| {
            let linked =
                std::fs::symlink_metadata(&source.name).is_ok_and(|m| m.file_type().is_symlink());
            !linked && !crate::secret::text_could_hold_secret(&source.text)
        }),
        Origin::Default => true,
    }
}
