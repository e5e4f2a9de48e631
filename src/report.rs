//! Printing errors for a person: `error:` lines on stderr, each cause as
//! `caused by:`, and a `hint:` where one helps. No colour, so the text reads
//! the same in a terminal, a CI log and a snapshot.

use std::fmt::Write as _;

use crate::error::Error;

/// The full text shown for `error`, ending in a newline.
pub fn render(error: &anyhow::Error) -> String {
    let mut out = String::new();
    if let Some(Error::InvalidValues { problems } | Error::InvalidManifests { problems }) =
        error.downcast_ref::<Error>()
    {
        for problem in problems {
            let _ = writeln!(out, "error: {}", problem.render());
        }
        if problems.len() > 1 {
            let _ = writeln!(out, "error: {error}");
        }
        return out;
    }
    let _ = writeln!(out, "error: {error}");
    for cause in error.chain().skip(1) {
        let _ = writeln!(out, "  caused by: {cause}");
    }
    if let Some(hint) = error.downcast_ref::<Error>().and_then(Error::hint) {
        let _ = writeln!(out, "  hint: {hint}");
    }
    out
}
