//! Renames: an object removed and one added of the same group and kind
//! whose content, but for `metadata.name` and `metadata.namespace` (and the
//! `--ignore`d fields), is the same. Kubernetes has no rename: the apply
//! deletes the old object and creates the new one.
//!
//! Cheap whatever the input: each removed and added object is hashed once
//! (a hash that agrees with the field comparison: mappings and named lists
//! hashed as unordered, empty values as absent, keyed per run so no input
//! can aim at collisions); only objects with equal hashes are compared, at
//! most [`TRIES`] candidates per added object.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;

use super::super::Ignore;
use super::super::compare::{self, ignored as ignored_by};
use super::super::tree::{Compared, Step};
use super::deletion::claim_templates;
use super::tree::is;
use super::workload::{Runs, template};
use super::{Class, Impact, Level, listed};
use crate::manifest::Manifest;
use crate::yaml::{Node, Value};

/// How many objects with the same hash an added object is compared with.
const TRIES: usize = 4;

/// Pairs (index in `removed`, index in `added`) that are renames.
pub(super) fn renames(
    removed: &[&Manifest],
    added: &[&Manifest],
    ignore: &[Ignore],
) -> Vec<(usize, usize)> {
    if removed.is_empty() || added.is_empty() {
        return Vec::new();
    }
    let kinds: std::collections::HashSet<(&str, &str)> = removed
        .iter()
        .map(|m| (m.id.group.as_str(), m.id.kind.as_str()))
        .collect();
    let state = RandomState::new();
    let mut candidates: HashMap<(&str, &str, u64), VecDeque<usize>> = HashMap::new();
    for (i, m) in removed.iter().enumerate() {
        let key = (
            m.id.group.as_str(),
            m.id.kind.as_str(),
            content_hash(m, ignore, &state),
        );
        candidates.entry(key).or_default().push_back(i);
    }
    let mut without_names = ignore.to_vec();
    without_names.extend(
        ["metadata.name", "metadata.namespace"]
            .iter()
            .filter_map(|p| Ignore::parse(p).ok()),
    );
    let mut pairs = Vec::new();
    for (a, m) in added.iter().enumerate() {
        let (group, kind) = (m.id.group.as_str(), m.id.kind.as_str());
        if !kinds.contains(&(group, kind)) {
            continue;
        }
        let key = (group, kind, content_hash(m, ignore, &state));
        let Some(list) = candidates.get_mut(&key) else {
            continue;
        };
        let found = list.iter().take(TRIES).position(|&r| {
            let mut fields = Vec::new();
            compare::compare(
                &mut Vec::new(),
                removed[r].node(),
                m.node(),
                &without_names,
                &mut fields,
            );
            fields.is_empty()
        });
        // Within the first few: removing it costs nothing.
        if let Some(r) = found.and_then(|at| list.remove(at)) {
            pairs.push((r, a));
        }
    }
    pairs.sort_unstable();
    pairs
}

/// The impact of one rename.
pub(super) fn impact(old: &Manifest, new: &Manifest) -> Impact {
    let (level, why) = replaced(old, new, "renamed, same content");
    Impact {
        level,
        class: Class::Rename,
        object: new.id.to_string(),
        from: Some(old.id.to_string()),
        why,
    }
}

/// What `new` taking the place of `old`, another object for the cluster
/// (Kubernetes has no rename: the apply creates one and deletes the other),
/// does to what they run and hold, `how` saying how they were paired: a
/// claim, or a StatefulSet's claims, start empty (`destructive`); a
/// workload starts new pods while the old one's are deleted (`restart`);
/// a Job runs again.
pub(super) fn replaced(old: &Manifest, new: &Manifest, how: &str) -> (Level, String) {
    let applied = format!("{how}: applied as a delete and a create");
    if is(new, "", "PersistentVolumeClaim") {
        return (
            Level::Destructive,
            format!(
                "{applied}: the new claim gets a new, empty volume, without the old claim's data"
            ),
        );
    }
    let claims = claim_templates(new);
    if is(new, "apps", "StatefulSet") && !claims.is_empty() {
        let named = |set: &Manifest| {
            let each: Vec<String> = claims
                .iter()
                .map(|c| format!("{c}-{}-N", set.id.name))
                .collect();
            listed(&each)
        };
        return (
            Level::Destructive,
            format!(
                "{applied}: its pods get new, empty claims ({}); the data stays in the old ones ({}), which nothing mounts",
                named(new),
                named(old)
            ),
        );
    }
    match template(new).map(|(_, runs)| runs) {
        Some(Runs::Once) => (
            Level::Restart,
            format!("{applied}: the Job runs again, and the old one's pods are deleted with it"),
        ),
        Some(Runs::Schedules) => (
            Level::Change,
            format!(
                "{applied}: its schedule starts anew, and the old one's Jobs are deleted with it"
            ),
        ),
        Some(_) => (
            Level::Restart,
            format!(
                "{applied}, so its pods are replaced: new pods start, and the old one's are deleted with it"
            ),
        ),
        None => (Level::Change, applied),
    }
}

/// The hash of an object's content without its name and namespace.
fn content_hash(object: &Manifest, ignore: &[Ignore], state: &RandomState) -> u64 {
    hash(&mut Vec::new(), object.node(), ignore, state)
}

fn hash<'a>(
    path: &mut Vec<Step<'a>>,
    node: &'a Node,
    ignore: &[Ignore],
    state: &RandomState,
) -> u64 {
    match &node.value {
        Value::Mapping(entries) => {
            let mut sum: u64 = 1;
            for (key, value) in entries {
                let name = key.name.as_str();
                let identity = path.len() == 1
                    && &*path[0].name == "metadata"
                    && matches!(name, "name" | "namespace");
                if identity || Compared::is_empty(value) {
                    continue;
                }
                path.push(Step::key(name));
                if !ignored_by(path, ignore) {
                    let child = hash(path, value, ignore, state);
                    sum = sum.wrapping_add(state.hash_one((0u8, name, child)));
                }
                path.pop();
            }
            sum
        }
        Value::Sequence(items) => match named(items) {
            Some(names) => {
                let mut sum: u64 = 2;
                for (name, item) in names.into_iter().zip(items) {
                    path.push(Step::named(name));
                    if !ignored_by(path, ignore) {
                        let child = hash(path, item, ignore, state);
                        sum = sum.wrapping_add(state.hash_one((1u8, name, child)));
                    }
                    path.pop();
                }
                sum
            }
            None => {
                let mut children = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::index(i));
                    if !ignored_by(path, ignore) {
                        children.push(hash(path, item, ignore, state));
                    }
                    path.pop();
                }
                state.hash_one((2u8, children))
            }
        },
        Value::Null => state.hash_one(3u8),
        Value::Bool(b) => state.hash_one((4u8, b)),
        Value::Int(i) => state.hash_one((5u8, i)),
        Value::Uint(u) => state.hash_one((8u8, u)),
        Value::Float(f) => state.hash_one((6u8, f.to_bits())),
        Value::String(s) => state.hash_one((7u8, s)),
    }
}

/// The names of a list's items, when each is a mapping with a unique
/// string `name` (as the comparison matches lists by name).
fn named(items: &[Node]) -> Option<Vec<&str>> {
    if items.is_empty() {
        return None;
    }
    let mut names = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashSet::new();
    for item in items {
        let Value::String(name) = &item.get("name")?.value else {
            return None;
        };
        if !seen.insert(name.as_str()) {
            return None;
        }
        names.push(name.as_str());
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input;

    fn objects(text: &str) -> Vec<Manifest> {
        input::parse("test", text).unwrap().manifests
    }

    /// The renames found, as (old name, new name).
    fn pairs_of(old: &str, new: &str, ignore: &[Ignore]) -> Vec<(String, String)> {
        let (old, new) = (objects(old), objects(new));
        let (old, new): (Vec<&Manifest>, Vec<&Manifest>) =
            (old.iter().collect(), new.iter().collect());
        let mut pairs: Vec<(String, String)> = renames(&old, &new, ignore)
            .into_iter()
            .map(|(r, a)| (old[r].id.name.clone(), new[a].id.name.clone()))
            .collect();
        pairs.sort();
        pairs
    }

    /// What the field comparison calls equal hashes equal: keys in another
    /// order, named items in another order, empty and absent fields,
    /// ignored fields; what it calls different is no rename.
    #[test]
    fn renames_are_what_the_comparison_calls_equal() {
        let old = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: one, labels: {v: '1'}}\ndata: {p: '1', q: '2'}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: i}, {name: b, image: j}], volumes: []}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: init}\nspec: {initContainers: [{name: a}, {name: b}]}\n";
        let new = "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: two, name: b, labels: {v: '2'}}\ndata: {q: '2', p: '1'}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {containers: [{name: b, image: j}, {name: a, image: i}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: init2}\nspec: {initContainers: [{name: b}, {name: a}]}\n";
        // The label differs: only the Pod is a rename; init containers run in order.
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        assert_eq!(pairs_of(old, new, &[]), vec![pair("p", "q")]);
        let ignore = [Ignore::parse("metadata.labels.v").unwrap()];
        assert_eq!(
            pairs_of(old, new, &ignore),
            vec![pair("a", "b"), pair("p", "q")]
        );
    }

    /// Every pair of objects of the fixtures that the comparison finds
    /// equal but for their names hashes alike.
    #[test]
    fn equal_content_hashes_alike_on_every_fixture() {
        let mut all = Vec::new();
        for entry in std::fs::read_dir(crate::fixtures::dir().join("diff")).unwrap() {
            let case = entry.unwrap().path();
            for side in ["old.yaml", "new.yaml"] {
                if let Ok(text) = std::fs::read_to_string(case.join(side)) {
                    all.extend(objects(&text));
                }
            }
        }
        let names: Vec<Ignore> = ["metadata.name", "metadata.namespace"]
            .iter()
            .map(|p| Ignore::parse(p).unwrap())
            .collect();
        let state = RandomState::new();
        let mut equal = 0;
        for a in &all {
            for b in &all {
                let mut fields = Vec::new();
                compare::compare(&mut Vec::new(), a.node(), b.node(), &names, &mut fields);
                if fields.is_empty() {
                    equal += 1;
                    assert_eq!(
                        content_hash(a, &[], &state),
                        content_hash(b, &[], &state),
                        "{} {}",
                        a.id,
                        b.id
                    );
                }
            }
        }
        assert!(equal > all.len(), "{equal}");
    }

    /// Many removed and added objects with one hash that never compare
    /// equal: each added object is compared with a few, not all.
    #[test]
    fn colliding_hashes_cost_a_few_comparisons_each() {
        let side = |order: &str| {
            (0..6000)
                .map(|i| format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{initContainers: [{order}]}}\n"))
                .collect::<String>()
        };
        let started = std::time::Instant::now();
        assert!(
            pairs_of(
                &side("{name: a}, {name: b}"),
                &side("{name: b}, {name: a}"),
                &[]
            )
            .is_empty()
        );
        // Quadratic would be 36 million comparisons: minutes, not seconds.
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
}
