//! What a rule of the values reports ([`RuleBreach`]), below every module
//! whose rules [`super::rules::check`] runs, and the label prefixes those
//! rules keep for the chart ([`RESERVED_PREFIXES`]).

use kubernetes::location::{KeyPath, Segment};

/// One rule of the values broken: the key it is reported at, the message
/// and a hint.
///
/// A [`kubernetes::diagnostic::Diagnostic`] before it has a place: the rules run
/// on typed values, which keep no origins, so the values stage locates each
/// breach at the first of `path` and `also` the user wrote and makes it
/// a `Diagnostic` there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleBreach {
    /// The key the breach is reported at.
    pub path: KeyPath,
    /// Other keys involved; the breach is shown at the first of `path`
    /// and these that the user wrote, rather than at a built-in default.
    pub also: Vec<KeyPath>,
    /// What is wrong, naming every key involved.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// Whether the breach is the last key of `path` itself (a label key),
    /// not its value: shown where the key is written.
    pub at_key: bool,
}

/// Whether `message` is about the key `path` ends with, not its value: it
/// starts by naming that key (`` `bad key` is not a valid label key``), as
/// every message about a map's key does here and in
/// `kubernetes::scheduling`, whose findings carry no other sign of it.
pub fn names_its_key(path: &KeyPath, message: &str) -> bool {
    matches!(path.0.last(), Some(Segment::Key(key))
        if message.strip_prefix('`').and_then(|m| m.strip_prefix(key.as_str())).is_some_and(|m| m.starts_with('`')))
}

/// Prefixes of labels and annotations the chart sets itself; a common
/// label or annotation there would contradict what the chart states.
pub const RESERVED_PREFIXES: [&str; 3] = [
    "app.kubernetes.io/",
    "buildkit-operator.dev/",
    "pod-security.kubernetes.io/",
];
