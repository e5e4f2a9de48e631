//! The errors of making the chart: reading its values and `--set`
//! arguments, loading and running its templates. What the `kubernetes`
//! crate reports on the way (a rendered text that is no object, a
//! manifest that cannot be read, a malformed option) is kept whole as
//! [`Error::Kubernetes`].
//!
//! As in the `kubernetes` crate, invalid values carry their [`Problem`]s
//! for the one diagnostic renderer; the other variants are about the run
//! and keep their reasons as text, with causes in `#[source]` and what to
//! do in [`Error::hint`].

use std::path::PathBuf;

use kubernetes::diagnostic::Problem;

/// An error caused by the user's values, arguments or templates.
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
    /// The values break the schema or a rule; every problem found is listed.
    #[error("{}", kubernetes::error::count(problems, "in the values"))]
    InvalidValues {
        /// Every problem, in the order of the input.
        problems: Vec<Problem>,
    },
    /// What the `kubernetes` crate reported, as it reported it.
    #[error(transparent)]
    Kubernetes(#[from] kubernetes::error::Error),
}

impl Error {
    /// What the user can do about this error, where that is not obvious.
    pub fn hint(&self) -> Option<&str> {
        match self {
            // The value, not the syntax: YAML reads it as nothing a value
            // can hold (`4e51234`, infinity).
            Error::SetSyntax {
                flag: "--set",
                reason,
                ..
            } if reason.starts_with("the value is not valid YAML") => {
                Some("write the text with --set-string KEY.PATH=VALUE")
            }
            Error::SetSyntax { flag: "--set", .. } => Some(
                "write --set KEY.PATH=VALUE, e.g. --set buildd.replicas=3 or --set 'projects[0].trusted=true'",
            ),
            _ => None,
        }
    }

    /// A malformed option, as the `kubernetes` crate names one.
    pub fn usage(reason: impl Into<String>) -> Self {
        Error::Kubernetes(kubernetes::error::Error::Usage {
            reason: reason.into(),
        })
    }
}
