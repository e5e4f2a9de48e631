//! The errors chartgen reports to its user.
//!
//! Each variant names what the user gave (a file, an argument) in its
//! message; causes stay in `#[source]`, and [`Error::hint`] says what to do.
//!
//! Invalid values and manifests carry their [`Problem`]s, which
//! `cli::report` shows through the one diagnostic renderer
//! ([`crate::diagnostic::Diagnostic::render_as`]). The other variants keep
//! their reasons as text, on purpose: they are about the run, not a place
//! in an input text (a file that cannot be read, an option, the output
//! directory), and carry a chain of causes; as a diagnostic they would have
//! no origin, no key path and no rule, nothing for its renderers to use,
//! and no field for the causes. `cli::report` prints them with the same
//! escaping and clipping, as `error:`, `caused by:` and `hint:` lines.

use std::path::PathBuf;

use crate::diagnostic::Problem;

/// An error caused by the user's input or environment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A values file could not be read.
    #[error("cannot read values file `{}`", path.display())]
    ReadValues {
        /// The file as the user named it.
        path: PathBuf,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
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
    /// A set flag's argument is not `KEY.PATH=VALUE`, or its value cannot be read.
    #[error("invalid argument `{flag} {arg}`: {reason}")]
    SetSyntax {
        /// The flag: `--set`, `--set-string`, `--set-file` or `--set-json`.
        flag: &'static str,
        /// The argument as given.
        arg: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Templates could not be read from `$CHARTGEN_TEMPLATES`.
    #[error("cannot read templates from `{path}`")]
    ReadTemplates {
        /// The directory or file.
        path: String,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// A template failed to render: an undefined value, a bad filter call.
    #[error("templates/{template}{}: {message}", line.map_or(String::new(), |l| format!(":{l}")))]
    Template {
        /// The template's name, relative to `templates/`.
        template: String,
        /// The template line, when known.
        line: Option<usize>,
        /// What went wrong.
        message: String,
    },
    /// A template rendered something that is not a valid object.
    #[error("templates/{template} rendered {problem}")]
    Rendered {
        /// The template's name, relative to `templates/`.
        template: String,
        /// What is wrong with its output, naming the output line.
        problem: String,
    },
    /// The values break the schema or a rule; every problem found is listed.
    #[error("{}", count(problems, "in the values"))]
    InvalidValues {
        /// Every problem, in the order of the input.
        problems: Vec<Problem>,
    },
}

impl Error {
    /// What the user can do about this error, where that is not obvious.
    pub fn hint(&self) -> Option<&str> {
        match self {
            Error::SetSyntax { flag: "--set", .. } => Some(
                "write --set KEY.PATH=VALUE, e.g. --set buildd.replicas=3 or --set 'projects[0].trusted=true'",
            ),
            _ => None,
        }
    }
}

fn count(problems: &[Problem], place: &str) -> String {
    match problems.len() {
        1 => format!("1 problem {place}"),
        n => format!("{n} problems {place}"),
    }
}
