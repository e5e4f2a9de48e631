//! Values with the parts that failed the schema put back to their defaults,
//! so that the rules can run on the rest in the same run.
//!
//! Each key with a schema problem is reset: to its default where the
//! defaults have that key, left out where its mapping has none (an unknown
//! key, an optional field), and otherwise its parent is reset in turn (an
//! item of a list is never left out, so no index moves). The result is
//! validated again until it passes, the keys that still fail reset the
//! same way; a rule's problem at or below a reset key is not reported:
//! the schema's problem there says what is wrong.

use std::collections::HashSet;

use serde_json::Value as Json;

use crate::model::Values;
use crate::schema;
use kubernetes::diagnostic::Problem;
use kubernetes::location::Origin;
use kubernetes::location::{KeyPath, Segment};
use kubernetes::yaml::Node;

/// Most rounds of reset and validation: a real file needs one to three
/// (a key, then the object that now misses it); past that the rules are
/// left for the next run rather than spend a validation per level of a
/// hostile document.
const MAX_ROUNDS: usize = 8;

/// The values with every failing part reset, when they then fit the
/// model, and the keys reset.
pub fn repaired(mut json: Json, problems: &[Problem]) -> (Option<Values>, HashSet<KeyPath>) {
    let defaults = serde_json::to_value(Values::default()).expect("the values always serialize");
    let mut reset: HashSet<KeyPath> = HashSet::new();
    let mut failing: Vec<KeyPath> = problems.iter().map(|p| p.path.clone()).collect();
    for _ in 0..MAX_ROUNDS {
        for path in failing {
            // A key that fails again after its reset: its parent next.
            let path = if reset.contains(&path) {
                parent(&path)
            } else {
                path
            };
            reset.insert(reset_at(&mut json, &defaults, path));
        }
        let node = Node::from_json(&json, &Origin::Default);
        let left = schema::validate(&node, &json);
        if left.is_empty() {
            return (serde_json::from_value(json).ok(), reset);
        }
        failing = left.into_iter().map(|p| p.path).collect();
    }
    (None, reset)
}

/// Whether `path` is at or below a reset key (a lookup per level).
pub fn covered(path: &KeyPath, reset: &HashSet<KeyPath>) -> bool {
    !reset.is_empty() && (0..=path.0.len()).any(|n| reset.contains(&KeyPath(path.0[..n].to_vec())))
}

fn parent(path: &KeyPath) -> KeyPath {
    KeyPath(path.0[..path.0.len().saturating_sub(1)].to_vec())
}

/// Resets `path` in `json`; returns the key actually reset (`path` or a
/// parent).
fn reset_at(json: &mut Json, defaults: &Json, mut path: KeyPath) -> KeyPath {
    loop {
        if let Some(default) = at(defaults, &path) {
            if let Some(slot) = at_mut(json, &path) {
                *slot = default.clone();
            }
            return path;
        }
        if let Some(Segment::Key(key)) = path.0.last()
            && let Some(Json::Object(entries)) = at_mut(json, &parent(&path))
        {
            // O(1): the order of keys means nothing to serde.
            entries.swap_remove(key);
            return path;
        }
        path = parent(&path);
    }
}

fn at<'a>(json: &'a Json, path: &KeyPath) -> Option<&'a Json> {
    path.0.iter().try_fold(json, |json, segment| match segment {
        Segment::Key(key) => json.as_object()?.get(key),
        Segment::Index(index) => json.as_array()?.get(*index),
    })
}

fn at_mut<'a>(json: &'a mut Json, path: &KeyPath) -> Option<&'a mut Json> {
    path.0.iter().try_fold(json, |json, segment| match segment {
        Segment::Key(key) => json.as_object_mut()?.get_mut(key),
        Segment::Index(index) => json.as_array_mut()?.get_mut(*index),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failing_key_is_reset_to_its_default_or_left_out() {
        let defaults = json!({"a": {"b": 1}, "list": []});
        let mut value = json!({"a": {"b": "x", "typo": 2}, "list": [{"name": 3}]});
        let reset = reset_at(&mut value, &defaults, KeyPath::dotted("a.b"));
        assert_eq!(reset, KeyPath::dotted("a.b"));
        let reset = reset_at(&mut value, &defaults, KeyPath::dotted("a.typo"));
        assert_eq!(reset, KeyPath::dotted("a.typo"));
        // No item of a list is left out: the list goes back to its default.
        let reset = reset_at(
            &mut value,
            &defaults,
            KeyPath::root().key("list").index(0).key("name"),
        );
        assert_eq!(reset, KeyPath::root().key("list").index(0).key("name"));
        assert_eq!(value, json!({"a": {"b": 1}, "list": [{}]}));
        let reset = reset_at(&mut value, &defaults, KeyPath::root().key("list").index(0));
        assert_eq!(reset, KeyPath::dotted("list"));
        assert_eq!(value, json!({"a": {"b": 1}, "list": []}));
        let reset = |path| HashSet::from([KeyPath::dotted(path)]);
        assert!(covered(&KeyPath::dotted("list"), &reset("list")));
        assert!(covered(&KeyPath::dotted("a.b.c"), &reset("a.b")));
        assert!(!covered(&KeyPath::dotted("a"), &reset("a.b")));
    }
}
