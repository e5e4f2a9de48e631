//! Small readers of a parsed object: what the impact passes ask of it,
//! on a node that may be absent ([`crate::tree::Tree`]'s answers).

use crate::manifest::Manifest;
use crate::tree::Tree;
use crate::yaml::{Node, Value};

/// The node at `path` (mapping keys only).
pub(super) fn at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a Node> {
    node.lookup(path)
}

/// The text of a string node.
pub(super) fn text(node: Option<&Node>) -> Option<&str> {
    node.and_then(Tree::text)
}

/// Whether the node is `true`.
pub(super) fn is_true(node: Option<&Node>) -> bool {
    node.is_some_and(Tree::is_true)
}

/// Whether the node is `false`.
pub(super) fn is_false(node: Option<&Node>) -> bool {
    matches!(node.map(|n| &n.value), Some(Value::Bool(false)))
}

/// The items of a sequence node; none for anything else.
pub(super) fn items(node: Option<&Node>) -> &[Node] {
    node.and_then(Tree::items).unwrap_or_default()
}

/// The entries of a mapping node; none for anything else.
pub(super) fn entries(node: Option<&Node>) -> impl Iterator<Item = (&str, &Node)> {
    let entries: &[(crate::yaml::Key, Node)] = match node.map(|n| &n.value) {
        Some(Value::Mapping(entries)) => entries,
        _ => &[],
    };
    entries.iter().map(|(k, v)| (k.name.as_str(), v))
}

/// Whether the object is of this group and kind.
pub(super) fn is(object: &Manifest, group: &str, kind: &str) -> bool {
    object.id.group == group && object.id.kind == kind
}

/// Whether `steps` is within `prefix`, or `prefix` within it (a whole
/// parent added or removed changes the field too).
pub(super) fn overlaps(steps: &[String], prefix: &[&str]) -> bool {
    steps.iter().zip(prefix).all(|(s, p)| s == p)
}
