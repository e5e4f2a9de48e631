//! A CustomResourceDefinition whose schema narrows: custom resources
//! stored under the old schema that do not fit the new one stay stored,
//! but every update of them, the operator's status updates included, is
//! refused until they are fixed (the API server validates writes, not
//! what it already holds). So a narrowing is `destructive`: applying it
//! breaks other objects. What narrows, per version present on both sides,
//! walking `properties`, `items` and `additionalProperties` side by side:
//! a name added to `required`; an `enum` added or losing values; a
//! `pattern` or `format` added or changed; `maximum`, `maxLength`,
//! `maxItems`, `maxProperties` added or lowered; `minimum`, `minLength`,
//! `minItems`, `minProperties` added or raised; `type` changed;
//! `x-kubernetes-validations` rules added; `nullable` dropped. A schema
//! that only widens (or changes a description) has no impact beyond its
//! field changes.

use std::collections::{HashMap, HashSet};

use super::tree::{at, entries, items, text};
use super::{Class, Impact, Level, listed};
use crate::json::Values;
use crate::manifest::Manifest;
use crate::yaml::Node;

/// The impact of a CRD's schema narrowing.
pub(super) fn narrowed(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    if (after.id.group.as_str(), after.id.kind.as_str()) != crate::manifest::CRD {
        return;
    }
    let versions = |m: &Manifest| items(at(m.node(), &["spec", "versions"])).to_vec();
    let (old, new) = (versions(before), versions(after));
    // The first old version of each name, as a scan would find it.
    let mut by_name: HashMap<&str, &Node> = HashMap::new();
    for version in &old {
        if let Some(name) = text(version.get("name")) {
            by_name.entry(name).or_insert(version);
        }
    }
    let mut found = Vec::new();
    for version in &new {
        let Some(name) = text(version.get("name")) else {
            continue;
        };
        let Some(&was) = by_name.get(name) else {
            continue;
        };
        let schema = |v: &Node| at(v, &["schema", "openAPIV3Schema"]).cloned();
        if let (Some(a), Some(b)) = (schema(was), schema(version)) {
            let mut path = String::new();
            walk(&mut path, &a, &b, &mut |what| {
                found.push(format!("{name}: {what}"))
            });
        }
    }
    if found.is_empty() {
        return;
    }
    let why = format!(
        "the schema narrows ({}): stored custom resources that do not fit it are refused on their next update, the operator's status updates included",
        listed(&found)
    );
    out.push(Impact::new(Level::Destructive, Class::Schema, after, why));
}

/// Compares two schema nodes at `path` (`.spec.size`, `[]` for items).
/// Each list of the old node (`required`, `enum`, rules, `properties`) is
/// looked up through a set or map, so that a long one costs linear time,
/// not its length squared.
fn walk(path: &mut String, old: &Node, new: &Node, found: &mut dyn FnMut(String)) {
    let here = if path.is_empty() { "." } else { path.as_str() };
    let json = |n: &Node, k: &str| n.get(k).map(Node::to_json);
    // required
    let required = |n: &Node| -> Vec<String> {
        items(n.get("required"))
            .iter()
            .filter_map(|r| text(Some(r)).map(str::to_owned))
            .collect()
    };
    let was_required = required(old);
    let was_required: HashSet<&str> = was_required.iter().map(String::as_str).collect();
    for name in required(new) {
        if !was_required.contains(name.as_str()) {
            let field = format!("{}.{name}", path);
            found(format!("{field} becomes required"));
        }
    }
    // enum
    if let Some(values) = json(new, "enum").and_then(|v| v.as_array().cloned()) {
        match json(old, "enum").and_then(|v| v.as_array().cloned()) {
            None => found(format!("{here} gains an enum")),
            Some(before) => {
                let values = Values::of(&values);
                let lost: Vec<String> = before
                    .iter()
                    .filter(|v| !values.contains(v))
                    .map(|v| v.to_string())
                    .collect();
                if !lost.is_empty() {
                    found(format!("{here} no longer allows {}", lost.join(", ")));
                }
            }
        }
    }
    for key in ["pattern", "format", "type"] {
        let (a, b) = (json(old, key), json(new, key));
        if b.is_some() && a != b {
            found(format!("{here} {key} {}", shown(a.as_ref(), b.as_ref())));
        }
    }
    let number = |n: &Node, k: &str| json(n, k).and_then(|v| v.as_f64());
    for (key, upper) in [
        ("maximum", true),
        ("maxLength", true),
        ("maxItems", true),
        ("maxProperties", true),
        ("minimum", false),
        ("minLength", false),
        ("minItems", false),
        ("minProperties", false),
    ] {
        if let Some(b) = number(new, key) {
            let narrower = match number(old, key) {
                None => true,
                Some(a) => (upper && b < a) || (!upper && b > a),
            };
            if narrower {
                found(format!(
                    "{here} {key} {}",
                    shown(json(old, key).as_ref(), json(new, key).as_ref())
                ));
            }
        }
    }
    let rules = |n: &Node| -> Vec<serde_json::Value> {
        items(n.get("x-kubernetes-validations"))
            .iter()
            .filter_map(|r| r.get("rule").map(Node::to_json))
            .collect()
    };
    let old_rules = rules(old);
    let old_rules = Values::of(&old_rules);
    for rule in rules(new) {
        if !old_rules.contains(&rule) {
            found(format!("{here} gains the rule {rule}"));
        }
    }
    if super::tree::is_true(old.get("nullable")) && !super::tree::is_true(new.get("nullable")) {
        found(format!("{here} is no longer nullable"));
    }
    // Below.
    let mut old_props: HashMap<&str, &Node> = HashMap::new();
    for (name, schema) in entries(old.get("properties")) {
        old_props.entry(name).or_insert(schema);
    }
    for (name, schema) in entries(new.get("properties")) {
        if let Some(was) = old_props.get(name) {
            let len = path.len();
            path.push('.');
            path.push_str(name);
            walk(path, was, schema, found);
            path.truncate(len);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let (Some(a), Some(b)) = (old.get(key), new.get(key))
            && a.get("type").is_some() | b.get("type").is_some()
        {
            let len = path.len();
            path.push_str(if key == "items" { "[]" } else { ".*" });
            walk(path, a, b, found);
            path.truncate(len);
        }
    }
}

/// `10 → 5`, or `added: 5`.
fn shown(old: Option<&serde_json::Value>, new: Option<&serde_json::Value>) -> String {
    match (old, new) {
        (Some(a), Some(b)) => format!("{a} → {b}"),
        (None, Some(b)) => format!("added: {b}"),
        (Some(a), None) => format!("removed: {a}"),
        (None, None) => String::new(),
    }
}
