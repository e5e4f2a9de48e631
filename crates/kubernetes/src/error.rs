//! The errors of this crate: manifests that cannot be read, options that
//! are malformed, an output directory that cannot take a render, and a
//! rendered text that is no object.
//!
//! Each variant names what the user gave (a file, an argument) in its
//! message, and causes stay in `#[source]`. A program built on this crate
//! wraps these in its own error for what it adds (its values, its
//! templates).
//!
//! Invalid manifests carry their [`Problem`]s, for the one diagnostic
//! renderer ([`crate::diagnostic::Diagnostic::render_as`]). The other
//! variants keep their reasons as text, on purpose: they are about the
//! run, not a place in an input text (a file that cannot be read, an
//! option, the output directory), and carry a chain of causes; as a
//! diagnostic they would have no origin, no key path and no rule, nothing
//! for its renderers to use, and no field for the causes. A command line
//! prints them with the same escaping and clipping, as `error:` and
//! `caused by:` lines.

use crate::diagnostic::Problem;

/// An error caused by the user's input or environment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A manifest file, directory or stdin could not be read.
    #[error("cannot read manifests from `{path}`")]
    ReadManifests {
        /// The path as the user gave it (`-` for stdin).
        path: String,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// Manifests that are not valid YAML or not Kubernetes objects.
    #[error("{}", count(problems, "in the manifests"))]
    InvalidManifests {
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// An option's value is malformed.
    #[error("{reason}")]
    Usage {
        /// What is wrong.
        reason: String,
    },
    /// The output directory cannot take the render.
    #[error("cannot write `{path}`: {reason}")]
    Output {
        /// The file or directory.
        path: String,
        /// Why not.
        reason: String,
    },
    /// Writing the output failed.
    #[error("cannot write `{path}`")]
    WriteOutput {
        /// The file or directory.
        path: String,
        /// Why writing failed.
        #[source]
        source: std::io::Error,
    },
    /// Writing the output failed after the write began to change the
    /// directory: `state` says how far it got (how many files were already
    /// written, each whole, and that the rest were left as they were), so
    /// the user knows what the directory holds; `source` is the failure.
    #[error("{state}")]
    PartlyWritten {
        /// What the directory holds now, in words.
        state: String,
        /// The write that failed.
        #[source]
        source: Box<Error>,
    },
    /// A template rendered something that is not a valid object.
    #[error("templates/{template} rendered {problem}")]
    Rendered {
        /// The template's name, relative to `templates/`.
        template: String,
        /// What is wrong with its output, naming the output line.
        problem: String,
    },
}

/// `1 problem PLACE` or `N problems PLACE`: how an error that lists
/// problems counts them.
pub fn count(problems: &[Problem], place: &str) -> String {
    match problems.len() {
        1 => format!("1 problem {place}"),
        n => format!("{n} problems {place}"),
    }
}
