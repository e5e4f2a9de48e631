//! Field-by-field comparison of two objects, on the parsed YAML trees
//! themselves (borrowed, no conversion) or on JSON (a redacted object, the
//! caller's artifact): one walk, [`compare`], over either through [`Compared`](super::tree::Compared).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use super::defaults::Server;
use super::tree::{Compared, Step, show_path};
use super::{FieldChange, Ignore};
use crate::secret;
use crate::tree::Tree;
use crate::yaml::{Node, Value};

/// Whether [`secret::redacted`] could change the JSON of `node`: somewhere
/// a `kind` that is not a plain ASCII string free of "secret" and "list"
/// (as [`secret`] folds it), or a last-applied annotation. Objects without
/// any compare as they are; the others are redacted first.
pub(super) fn may_need_redaction(node: &Node) -> bool {
    match &node.value {
        Value::Sequence(items) => items.iter().any(may_need_redaction),
        Value::Mapping(entries) => entries.iter().any(|(key, value)| {
            let here = match key.name.as_str() {
                "kind" => !plain_kind(value),
                "metadata" => value
                    .get("annotations")
                    .is_some_and(|a| a.get(secret::LAST_APPLIED).is_some()),
                _ => false,
            };
            here || may_need_redaction(value)
        }),
        _ => false,
    }
}

/// A `kind` that can be neither a Secret nor a list, however [`secret`]
/// reads it.
fn plain_kind(kind: &Node) -> bool {
    let Value::String(kind) = &kind.value else {
        return false;
    };
    if !kind.is_ascii() {
        return false;
    }
    let folded: String = kind
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    !folded.contains("secret") && !folded.ends_with("list")
}

/// Mappings with more entries than this are looked up through a hash map.
const LINEAR_LOOKUP: usize = 16;

/// A mapping's entries found by key: by [`Tree::get`] in a small one, by a
/// hash map in a large one, so that comparing stays linear in its size.
enum Fields<'a, T> {
    Small(&'a T),
    Large(HashMap<&'a str, &'a T>),
}

impl<'a, T: Compared> Fields<'a, T> {
    fn new(mapping: &'a T) -> Self {
        match mapping.fields() {
            Some(entries) if entries.len() > LINEAR_LOOKUP => Fields::Large(entries.collect()),
            _ => Fields::Small(mapping),
        }
    }

    fn get(&self, key: &str) -> Option<&'a T> {
        match self {
            Fields::Small(mapping) => mapping.get(key),
            Fields::Large(index) => index.get(key).copied(),
        }
    }
}

/// What a comparison leaves out: `--ignore` patterns, and what the server
/// of the object compared writes by itself ([`Server`]).
#[derive(Clone, Copy)]
pub(super) struct Cx<'i, 'k> {
    ignore: &'i [Ignore],
    server: Server<'k>,
    /// Whether named items in another order are a change: for an object
    /// applied over itself (server-side apply keeps the order), not for
    /// content compared as content (a rename, an artifact).
    order: bool,
}

/// Adds to `out` the changes from `old` to `new` below `path`, as plain
/// trees: no object's defaults, named items matched by name whatever
/// their order.
pub(super) fn compare<'a, T: Compared>(
    path: &mut Vec<Step<'a>>,
    old: &'a T,
    new: &'a T,
    ignore: &[Ignore],
    out: &mut Vec<FieldChange>,
) {
    let cx = Cx {
        ignore,
        server: Server::default(),
        order: false,
    };
    walk(path, old, new, &cx, out);
}

/// Adds to `out` the changes from `old` to `new`, two versions of an
/// object whose server is `server`: what it writes by itself is no change.
pub(super) fn compare_object<T: Compared>(
    old: &T,
    new: &T,
    ignore: &[Ignore],
    server: Server<'_>,
    out: &mut Vec<FieldChange>,
) {
    let cx = Cx {
        ignore,
        server,
        order: true,
    };
    walk(&mut Vec::new(), old, new, &cx, out);
}

fn walk<'a, T: Compared>(
    path: &mut Vec<Step<'a>>,
    old: &'a T,
    new: &'a T,
    cx: &Cx<'_, '_>,
    out: &mut Vec<FieldChange>,
) {
    // Equal subtrees (most of an object that changed) have no changes:
    // skip them without building lookups for their mappings and lists.
    if ignored(path, cx.ignore) || cx.server.ignores(path) || old.unchanged(new) {
        return;
    }
    if let (Some(a), Some(b)) = (old.fields(), new.fields()) {
        let (in_a, in_b) = (Fields::new(old), Fields::new(new));
        for (k, x) in a {
            path.push(Step::key(k));
            match in_b.get(k) {
                Some(y) if cx.server.same_beside(path, (x, old), (y, new)) => {}
                // Written `{}`, the old fields go and the map with them.
                Some(y) if cx.server.pruned(path, x, y) && !ignored(path, cx.ignore) => {
                    out.push(change(path, Some(x), Some(y)));
                }
                Some(y) => compare_entry(path, Some(x), Some(y), cx, out),
                None if !cx.server.default_entry(path, x, old, new, true) => {
                    compare_entry(path, Some(x), None, cx, out);
                }
                None => {}
            }
            path.pop();
        }
        for (k, y) in b.filter(|(k, _)| in_a.get(k).is_none()) {
            path.push(Step::key(k));
            if !cx.server.default_entry(path, y, new, old, false) {
                compare_entry(path, None, Some(y), cx, out);
            }
            path.pop();
        }
    } else if let (Some(a), Some(b)) = (old.items(), new.items()) {
        compare_lists(path, (old, a), (new, b), cx, out);
    } else if !old.same_scalar(new) && !cx.server.same_scalar(path, old, new) {
        out.push(change(path, Some(old), Some(new)));
    }
}

/// Lists by name when their items have unique names, else by position
/// when as long, else whole. Server-side apply keeps the order a manifest
/// gives a list, so items of a named list in another order are a change of
/// their own: the list's names before and after (in a pod template, a new
/// template: the pods roll).
fn compare_lists<'a, T: Compared>(
    path: &mut Vec<Step<'a>>,
    (old, a): (&'a T, &'a [T]),
    (new, b): (&'a T, &'a [T]),
    cx: &Cx<'_, '_>,
    out: &mut Vec<FieldChange>,
) {
    match (named(a), named(b)) {
        (Some(by_name_a), Some(by_name_b))
            if cx.order || !order_matters(path, a) || same_order(a, b) =>
        {
            for (&name, &x) in &by_name_a {
                path.push(Step::named(name));
                compare_entry(path, Some(x), by_name_b.get(name).copied(), cx, out);
                path.pop();
            }
            for (&name, &y) in by_name_b
                .iter()
                .filter(|(n, _)| !by_name_a.contains_key(*n))
            {
                path.push(Step::named(name));
                compare_entry(path, None, Some(y), cx, out);
                path.pop();
            }
            if let Some((before, after)) = reordered(a, b).filter(|_| cx.order) {
                out.push(FieldChange {
                    path: show_path(path),
                    old: Some(before),
                    new: Some(after),
                    steps: path.iter().map(|s| s.name.to_string()).collect(),
                });
            }
        }
        _ if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push(Step::index(i));
                walk(path, x, y, cx, out);
                path.pop();
            }
        }
        _ => out.push(change(path, Some(old), Some(new))),
    }
}

/// The names both named lists hold, in each one's order, when the orders
/// differ: `None` when the items both hold come in one order.
fn reordered<T: Compared>(a: &[T], b: &[T]) -> Option<(Json, Json)> {
    fn name<T: Compared>(item: &T) -> &str {
        item.get("name").and_then(Tree::text).unwrap_or_default()
    }
    let in_b: std::collections::HashSet<&str> = b.iter().map(name).collect();
    let in_a: std::collections::HashSet<&str> = a.iter().map(name).collect();
    let before: Vec<&str> = a.iter().map(name).filter(|n| in_b.contains(n)).collect();
    let after: Vec<&str> = b.iter().map(name).filter(|n| in_a.contains(n)).collect();
    (before != after).then(|| (Json::from(before), Json::from(after)))
}

/// A field or named item that may be on either side.
fn compare_entry<'a, T: Compared>(
    path: &mut Vec<Step<'a>>,
    old: Option<&'a T>,
    new: Option<&'a T>,
    cx: &Cx<'_, '_>,
    out: &mut Vec<FieldChange>,
) {
    match (old, new) {
        (Some(x), Some(y)) => walk(path, x, y, cx, out),
        // `labels: {}` and `annotations:` say what an absent field says;
        // `securityContext: {}` in a container does not.
        (Some(x), None) | (None, Some(x)) if x.is_empty() && !cx.server.keeps_empty(path, x) => {}
        _ if ignored(path, cx.ignore) || cx.server.ignores(path) => {}
        (Some(x), None) | (None, Some(x)) if cx.ignore.iter().any(|i| i.reaches_below(path)) => {
            one_sided(path, x, old.is_some(), cx, out);
        }
        _ => out.push(change(path, old, new)),
    }
}

/// A subtree on one side only (`was_old`: the old side), with an `--ignore`
/// pattern below it: each of its fields or items is an added or removed
/// change of its own, so that the pattern leaves out what it names (the
/// annotations of Helm's but one, say) rather than the whole subtree
/// showing.
fn one_sided<'a, T: Compared>(
    path: &mut Vec<Step<'a>>,
    x: &'a T,
    was_old: bool,
    cx: &Cx<'_, '_>,
    out: &mut Vec<FieldChange>,
) {
    let sides = |child: &'a T| {
        if was_old {
            (Some(child), None)
        } else {
            (None, Some(child))
        }
    };
    if let Some(fields) = x.fields() {
        for (k, child) in fields {
            let (old, new) = sides(child);
            path.push(Step::key(k));
            compare_entry(path, old, new, cx, out);
            path.pop();
        }
    } else if let Some(items) = x.items() {
        let names = named(items);
        for (i, child) in items.iter().enumerate() {
            let (old, new) = sides(child);
            let name = names.as_ref().and_then(|_| child.get("name")?.text());
            path.push(name.map_or_else(|| Step::index(i), Step::named));
            compare_entry(path, old, new, cx, out);
            path.pop();
        }
    } else {
        let (old, new) = sides(x);
        out.push(change(path, old, new));
    }
}

fn change<T: Compared>(path: &[Step<'_>], old: Option<&T>, new: Option<&T>) -> FieldChange {
    FieldChange {
        path: show_path(path),
        old: old.map(Compared::json),
        new: new.map(Compared::json),
        steps: path.iter().map(|s| s.name.to_string()).collect(),
    }
}

/// Whether `path` is left out by an `--ignore` pattern.
pub(super) fn ignored(path: &[Step<'_>], ignore: &[Ignore]) -> bool {
    ignore.iter().any(|i| i.matches(path))
}

/// Lists whose order changes behaviour although their items have names:
/// init containers run in order, and an env entry can refer only to the
/// ones before it (`$(NAME)`). Content compared as content ([`compare`])
/// compares them by position; an object ([`compare_object`]) shows any
/// new order as a change of its own.
fn order_matters<T: Compared>(path: &[Step<'_>], items: &[T]) -> bool {
    match path.last().map(|s| &*s.name) {
        Some("initContainers") => true,
        Some("env") => items.iter().any(|i| {
            i.get("value")
                .and_then(Tree::text)
                .is_some_and(|v| v.contains("$("))
        }),
        _ => false,
    }
}

/// Whether two named lists (see [`named`]) list their names in one order.
fn same_order<T: Compared>(a: &[T], b: &[T]) -> bool {
    fn name<T: Compared>(item: &T) -> Option<&str> {
        item.get("name").and_then(Tree::text)
    }
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| name(x) == name(y))
}

/// The items of a list by their `name`, when every item is a mapping with
/// a unique string `name`.
fn named<T: Compared>(items: &[T]) -> Option<BTreeMap<&str, &T>> {
    if items.is_empty() {
        return None;
    }
    let mut by_name = BTreeMap::new();
    for item in items {
        let name = item.get("name")?.text()?;
        if by_name.insert(name, item).is_some() {
            return None;
        }
    }
    Some(by_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tree::identical;
    use crate::input;
    use crate::manifest::Manifest;

    /// The objects of `path`, below this crate's `tests/fixtures/`.
    fn manifests(path: &str) -> Vec<Manifest> {
        let text = std::fs::read_to_string(crate::fixtures::dir().join(path)).unwrap();
        input::parse(path, &text).unwrap().manifests
    }

    /// Every pair of objects with one identity in `old` and `new`.
    fn pairs(old: &[Manifest], new: &[Manifest]) -> Vec<(Node, Node)> {
        new.iter()
            .filter_map(|n| {
                let o = old.iter().find(|o| {
                    (&o.id.group, &o.id.kind, &o.id.namespace, &o.id.name)
                        == (&n.id.group, &n.id.kind, &n.id.namespace, &n.id.name)
                })?;
                Some((o.node().clone(), n.node().clone()))
            })
            .collect()
    }

    fn changes<T: Compared>(old: &T, new: &T, ignore: &[Ignore]) -> Vec<FieldChange> {
        let mut out = Vec::new();
        compare(&mut Vec::new(), old, new, ignore, &mut out);
        out
    }

    /// Tricky pairs: numbers of either type, empty and absent fields,
    /// reordered keys, named and positional lists, order that matters,
    /// a mapping past the linear lookup.
    fn tricky() -> Vec<(Node, Node)> {
        let big = |skip: usize| {
            let entries: String = (0..40)
                .filter(|i| *i != skip)
                .map(|i| format!("  k{i}: {}\n", i * skip))
                .collect();
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata:\n{entries}")
        };
        let sides = [
            (
                "apiVersion: v1\nkind: A\nmetadata: {name: a, labels: {}}\nspec: {count: 1, ratio: 1.0, zero: -0.0, text: x, flag: true, list: [1, 2], map: {p: 1, q: 2}}\n",
                "apiVersion: v1\nkind: A\nmetadata: {name: a}\nspec: {map: {q: 2, p: 1}, count: 1.0, ratio: 1, zero: 0.0, text: 'x', flag: false, list: [1, 2, 3], extra: ~, other: {}}\n",
            ),
            (
                "apiVersion: v1\nkind: P\nmetadata: {name: p}\nspec:\n  initContainers: [{name: a}, {name: b}]\n  containers: [{name: a, image: x}, {name: b}]\n  env: [{name: A, value: '$(B)'}, {name: B}]\n  same: [{name: a}, {name: a}]\n  str: [x]\n",
                "apiVersion: v1\nkind: P\nmetadata: {name: p}\nspec:\n  initContainers: [{name: b}, {name: a}]\n  containers: [{name: c}, {name: b}, {name: a, image: z}]\n  env: [{name: B}, {name: A, value: '$(B)'}]\n  same: [{name: a}, {name: b}]\n  str: {x: 1}\n",
            ),
        ];
        let mut all: Vec<(String, String)> = sides
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        all.push((big(3), big(7)));
        all.iter()
            .flat_map(|(a, b)| {
                let (a, b) = (manifests_of(a), manifests_of(b));
                pairs(&a, &b)
            })
            .collect()
    }

    fn manifests_of(text: &str) -> Vec<Manifest> {
        input::parse("test", text).unwrap().manifests
    }

    #[test]
    fn trees_and_their_json_compare_alike() {
        let mut all = tricky();
        for entry in std::fs::read_dir(crate::fixtures::dir().join("diff")).unwrap() {
            let case = entry.unwrap().path();
            let (old, new) = (case.join("old.yaml"), case.join("new.yaml"));
            if old.is_file() && new.is_file() {
                let read = |p: &std::path::Path| manifests_of(&std::fs::read_to_string(p).unwrap());
                all.extend(pairs(&read(&old), &read(&new)));
            }
        }
        assert!(all.len() >= 20, "{}", all.len());
        let ignores = [
            Vec::new(),
            vec![Ignore::parse("spec.*.image").unwrap()],
            vec![
                Ignore::parse("spec.count").unwrap(),
                Ignore::parse("data").unwrap(),
            ],
        ];
        let mut changed = 0;
        for (old, new) in &all {
            for ignore in &ignores {
                let by_tree = changes(old, new, ignore);
                assert_eq!(by_tree, changes(&old.to_json(), &new.to_json(), ignore));
                changed += usize::from(!by_tree.is_empty());
            }
            // Both directions: what is added one way is removed the other.
            assert_eq!(
                changes(new, old, &[]),
                changes(&new.to_json(), &old.to_json(), &[])
            );
        }
        assert!(changed > 10, "{changed}");
    }

    #[test]
    fn objects_redaction_would_change_go_through_it() {
        let mut seen = 0;
        for side in ["old", "new"] {
            for m in manifests(&format!("secret-shapes/{side}.yaml")) {
                let json = m.json();
                if secret::redacted(&json) != json {
                    seen += 1;
                    assert!(may_need_redaction(m.node()), "{json}");
                }
            }
        }
        assert!(seen > 5, "{seen}");
        let plain =
            manifests_of("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
        assert!(!may_need_redaction(plain[0].node()));
    }

    #[test]
    fn identical_means_written_alike() {
        let [a, b, c] = [
            "{x: 1, y: [a, 2.5]}",
            "{y: [a, 2.5], x: 1}",
            "{x: 1, y: [a, 2.5]}",
        ]
        .map(|text| {
            let source = crate::location::Source::file("t", text);
            crate::yaml::parse_document(&source, crate::yaml::Limits::VALUES)
                .unwrap()
                .unwrap()
        });
        assert!(identical(&a, &c));
        // Equal as JSON, but a Secret's token of each would differ.
        assert!(!identical(&a, &b));
    }

    /// An `--ignore` pattern below a subtree that one side lacks leaves out
    /// what it names, not less: the rest of the subtree shows, field by
    /// field or item by item.
    #[test]
    fn ignore_below_a_one_sided_subtree_leaves_out_only_what_it_names() {
        let old = manifests_of(
            "apiVersion: v1\nkind: A\nmetadata: {name: a, annotations: {one: '1', two: '2'}}\nspec: {list: [{name: p, v: 1}, {name: q}]}\n",
        );
        let new = manifests_of("apiVersion: v1\nkind: A\nmetadata: {name: a}\n");
        let shown = |patterns: &[&str]| {
            let ignore: Vec<Ignore> = patterns.iter().map(|p| Ignore::parse(p).unwrap()).collect();
            let (a, b) = &pairs(&old, &new)[0];
            changes(a, b, &ignore)
                .into_iter()
                .map(|c| c.path)
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(&[]), ["metadata.annotations", "spec"]);
        assert_eq!(
            shown(&["metadata.annotations.one"]),
            ["metadata.annotations.two", "spec"]
        );
        assert_eq!(
            shown(&["metadata.annotations.*", "spec.list.*.v"]),
            ["spec.list[p].name", "spec.list[q].name"]
        );
    }
}
