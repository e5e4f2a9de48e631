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

use std::fmt::Write as _;

use crate::diagnostic::{MESSAGE, Problem, clip, printable};
use crate::error::Error;
use crate::yaml::Origin;

/// The full text shown for `error`, ending in a newline.
pub fn render(error: &anyhow::Error) -> String {
    let mut out = String::new();
    let shown = |text: &str| printable(&clip(text, MESSAGE)).into_owned();
    match error.downcast_ref::<Error>() {
        Some(Error::InvalidValues { problems }) => {
            for problem in problems {
                let _ = writeln!(out, "error: {}", problem.render());
            }
        }
        Some(Error::InvalidManifests { problems }) => {
            for problem in problems {
                let text = if may_quote(problem) {
                    problem.render()
                } else {
                    problem.render_unquoted()
                };
                let _ = writeln!(out, "error: {text}");
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
        let _ = writeln!(out, "error: {error}");
    }
    out
}

/// Whether a problem in manifests may quote its input: not when the text
/// could hold a Secret (the parse failed, so which object is one is not
/// known), nor when the file was reached through a symbolic link (it could
/// be any file: a key, a password store).
fn may_quote(problem: &Problem) -> bool {
    match &problem.origin {
        Origin::At { source, .. } => {
            let linked =
                std::fs::symlink_metadata(&source.name).is_ok_and(|m| m.file_type().is_symlink());
            !linked && !crate::secret::text_could_hold_secret(&source.text)
        }
        Origin::Default => true,
    }
}
