//! What the comparison walks: a path of borrowed [`Step`]s, and a
//! [`Compared`], the YAML nodes of a manifest or the JSON of a redacted object.
//! Its own module, below both the walk (`compare.rs`) and the server's
//! defaults (`defaults.rs`), which each read it.

use std::borrow::Cow;

use serde_json::Value as Json;

use crate::tree::Tree;
use crate::yaml::{Node, Value};

/// One step of the path being compared: a key, or a list item by name or
/// index (shown in brackets). Keys and names borrow from the trees.
///
/// Not a [`crate::location::KeyPath`] on purpose: the walk pushes and pops
/// a step per field of every object compared, so steps borrow their names
/// (a `KeyPath` owns them: one allocation per field), and a list item
/// matched by name (`containers[buildd]`) is neither a key nor an index.
/// Only a changed field's path is ever shown ([`show_path`]); `--ignore`
/// patterns are `KeyPath`s ([`super::Ignore`]), matched step by step.
pub(super) struct Step<'a> {
    pub(super) name: Cow<'a, str>,
    pub(super) item: bool,
}

impl<'a> Step<'a> {
    pub(super) fn key(name: &'a str) -> Self {
        Step {
            name: Cow::Borrowed(name),
            item: false,
        }
    }

    pub(super) fn named(name: &'a str) -> Self {
        Step {
            name: Cow::Borrowed(name),
            item: true,
        }
    }

    pub(super) fn index(index: usize) -> Self {
        Step {
            name: Cow::Owned(index.to_string()),
            item: true,
        }
    }
}

pub(super) fn show_path(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        if step.item {
            out.push('[');
            out += &step.name;
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            if step
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                out += &step.name;
            } else {
                out += &format!("{:?}", step.name);
            }
        }
    }
    out
}

/// What [`compare`] reads of a tree, beyond what every reader does
/// ([`Tree`]). Both implementations answer as the tree's JSON would: a
/// YAML node compares as [`Node::to_json`] of it.
pub(super) trait Compared: Tree {
    /// The entries of a mapping, in order; `None` for anything else.
    fn fields(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Self)>>;
    /// Whether two values, one of them neither a mapping nor a sequence,
    /// are equal.
    fn same_scalar(&self, other: &Self) -> bool;
    /// `null`, `{}` or `[]`: what an absent field says.
    fn is_empty(&self) -> bool;
    /// The value as JSON, for a [`FieldChange`].
    fn json(&self) -> Json;
    /// Whether the two trees are known to have no changes (a cheap check:
    /// `false` may still compare equal).
    fn unchanged(&self, other: &Self) -> bool;
}

impl Compared for Json {
    fn fields(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Self)>> {
        self.as_object()
            .map(|map| map.iter().map(|(k, v)| (k.as_str(), v)))
    }

    fn same_scalar(&self, other: &Self) -> bool {
        // A whole number written as a float is its integer, as for a tree.
        match (self.as_number(), other.as_number()) {
            (Some(a), Some(b)) if a.is_f64() != b.is_f64() => {
                let whole = |n: &serde_json::Number| {
                    n.as_i64()
                        .or_else(|| n.as_f64().and_then(crate::json::go_whole))
                };
                whole(a).is_some() && whole(a) == whole(b)
            }
            _ => self == other,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Json::Null => true,
            Json::Object(o) => o.is_empty(),
            Json::Array(a) => a.is_empty(),
            _ => false,
        }
    }

    fn json(&self) -> Json {
        self.clone()
    }

    fn unchanged(&self, _: &Self) -> bool {
        // Redacted objects and artifacts: walked in full.
        false
    }
}

impl Compared for Node {
    fn fields(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Self)>> {
        match &self.value {
            Value::Mapping(entries) => Some(entries.iter().map(|(k, v)| (k.name.as_str(), v))),
            _ => None,
        }
    }

    fn same_scalar(&self, other: &Self) -> bool {
        match (&self.value, &other.value) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Uint(a), Value::Uint(b)) => a == b,
            (Value::Float(a), Value::Float(b)) if a.is_finite() && b.is_finite() => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            // A whole number written as a float is the integer kubectl
            // sends (Go writes a whole float64 without its `.0`): `2.0`
            // over `2` stores nothing new.
            (Value::Float(f), Value::Int(i)) | (Value::Int(i), Value::Float(f))
                if crate::json::go_whole(*f).is_some() =>
            {
                crate::json::go_whole(*f) == Some(*i)
            }
            // A float JSON cannot hold reads as null (the reader refuses
            // them): let JSON decide.
            (Value::Float(_), _) | (_, Value::Float(_)) => self.to_json() == other.to_json(),
            _ => false,
        }
    }

    fn is_empty(&self) -> bool {
        match &self.value {
            Value::Null => true,
            Value::Float(f) => !f.is_finite(),
            Value::Mapping(entries) => entries.is_empty(),
            Value::Sequence(items) => items.is_empty(),
            _ => false,
        }
    }

    fn json(&self) -> Json {
        self.to_json()
    }

    fn unchanged(&self, other: &Self) -> bool {
        identical(self, other)
    }
}

/// Whether two YAML trees are the same, entries in the same order: they
/// have the same JSON, written the same way.
pub(crate) fn identical(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Sequence(x), Value::Sequence(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| identical(x, y))
        }
        (Value::Mapping(x), Value::Mapping(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, x), (l, y))| k.name == l.name && identical(x, y))
        }
        _ => false,
    }
}
