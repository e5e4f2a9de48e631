//! What changes between two sets of manifests, object by object and field
//! by field.
//!
//! Objects match by group, kind, namespace and name (not version, so an API
//! version bump is a field change, not a remove and an add). Lists whose
//! items all have a unique `name` (containers, env, ports, volumes, mounts)
//! match by name, so reordering them is no difference; other lists compare
//! by position. Multi-line strings get a line diff. Secret values are never
//! shown, only a token keyed for this run ([`crate::secret`]). When effective permissions change, a plain summary
//! says who gains or loses what, where. For a side read from a directory,
//! each object belongs to the GitOps application of the nearest folder with
//! a kustomization; an object whose application changes is a move, shown on
//! its own: a GitOps tool that prunes may delete it before the new
//! application creates it.

pub mod lines;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value as Json;

use crate::check::rbac::{self, Scope};
use crate::diagnostic::printable;
use crate::input::ManifestSet;
use crate::manifest::{Manifest, ObjectId};
use crate::secret;

/// A path pattern to leave out of the comparison: keys (quoted when they
/// hold dots), `*` matching any one key or list item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignore(Vec<String>);

impl Ignore {
    /// Parses `metadata.labels."app.kubernetes.io/version"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut quoted = false;
        for c in text.chars() {
            match c {
                '"' => quoted = !quoted,
                // `containers[buildd].image`, as the diff prints paths.
                '.' | '[' if !quoted => {
                    if !(c == '[' && current.is_empty() && !segments.is_empty()) {
                        segments.push(std::mem::take(&mut current));
                    }
                }
                ']' if !quoted => {}
                c => current.push(c),
            }
        }
        if quoted {
            return Err(format!("`{text}` has an unclosed quote"));
        }
        segments.push(current);
        if segments.iter().any(String::is_empty) {
            return Err(format!("`{text}` has an empty segment"));
        }
        Ok(Ignore(segments))
    }

    fn matches(&self, path: &[Step]) -> bool {
        self.0.len() == path.len()
            && self
                .0
                .iter()
                .zip(path)
                .all(|(p, s)| p == "*" || *p == s.name)
    }
}

/// How one field changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// Where, such as `spec.template.spec.containers[buildd].image`.
    pub path: String,
    /// The old value; absent when the field was added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Json>,
    /// The new value; absent when the field was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Json>,
}

/// One object's change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObjectChange {
    /// The object, as `Kind namespace/name`.
    pub object: String,
    /// Its field changes, in document order.
    pub fields: Vec<FieldChange>,
}

/// An object that changes GitOps application.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Move {
    /// The object, as `Kind namespace/name`.
    pub object: String,
    /// Its application in the old set: its folder, `.` for the root.
    pub from: String,
    /// Its application in the new set.
    pub to: String,
    /// For a Namespace or a CRD: what deleting it deletes besides, in words.
    #[serde(skip)]
    takes_others: Option<&'static str>,
}

/// An application whose objects continue, most of them, in another folder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Renamed {
    /// Its folder in the old set.
    pub from: String,
    /// The folder in the new set that receives most of its objects.
    pub to: String,
}

/// Everything that differs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Diff {
    /// Objects only in the new set.
    pub added: Vec<String>,
    /// Objects only in the old set.
    pub removed: Vec<String>,
    /// Old GitOps applications that continue under another folder: the new
    /// application that receives most of their objects (re-point the GitOps
    /// tool's application there).
    pub renamed: Vec<Renamed>,
    /// Objects in both that leave their application for another one.
    pub moves: Vec<Move>,
    /// Objects in both that differ.
    pub changed: Vec<ObjectChange>,
    /// Changes of effective permissions, in words.
    pub rbac: Vec<String>,
}

impl Diff {
    /// Whether the two sets are the same.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.moves.is_empty()
            && self.renamed.is_empty()
            && self.changed.is_empty()
            && self.rbac.is_empty()
    }
}

/// Group, kind, namespace and name.
type Key = (String, String, Option<String>, String);

/// The identity objects are matched by: everything but the version.
fn key(id: &ObjectId) -> Key {
    (
        id.group.clone(),
        id.kind.clone(),
        id.namespace.clone(),
        id.name.clone(),
    )
}

/// Compares two manifest sets.
pub fn diff(old: &[Manifest], new: &[Manifest], ignore: &[Ignore]) -> Diff {
    let index = |set: &[Manifest]| -> BTreeMap<_, (ObjectId, Json)> {
        set.iter()
            .map(|m| (key(&m.id), (m.id.clone(), m.node.to_json())))
            .collect()
    };
    let (old_objects, new_objects) = (index(old), index(new));
    let mut result = Diff::default();
    for (k, (id, object)) in &new_objects {
        match old_objects.get(k) {
            None => result.added.push(id.to_string()),
            Some((_, before)) => {
                let mut fields = Vec::new();
                compare(
                    &mut Vec::new(),
                    &secret::redacted(before),
                    &secret::redacted(object),
                    ignore,
                    &mut fields,
                );
                if !fields.is_empty() {
                    result.changed.push(ObjectChange {
                        object: id.to_string(),
                        fields,
                    });
                }
            }
        }
    }
    for (k, (id, _)) in &old_objects {
        if !new_objects.contains_key(k) {
            result.removed.push(id.to_string());
        }
    }
    let objects = |set: &BTreeMap<_, (ObjectId, Json)>| {
        set.values().map(|(_, o)| o.clone()).collect::<Vec<_>>()
    };
    result.rbac = rbac_changes(&objects(&old_objects), &objects(&new_objects));
    result
}

/// One side of a diff: the argument and the set read from it.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// The argument: a directory, a file, or `-`.
    pub path: &'a str,
    /// What was read from it.
    pub set: &'a ManifestSet,
}

/// Compares two manifest sets, the applications of their objects, and
/// their Kyverno exemptions artifacts when both have one.
pub fn diff_sets(old: Side<'_>, new: Side<'_>, ignore: &[Ignore]) -> Diff {
    let mut result = diff(&old.set.manifests, &new.set.manifests, ignore);
    (result.renamed, result.moves) = moves(old, new);
    let (old, new) = (old.set, new.set);
    let artifact = |set: &ManifestSet| crate::check::merged_exemptions(&set.exemptions);
    // A stream never carries the artifact: compare it only when both sides do.
    let (before, after) = (artifact(old), artifact(new));
    if before.is_some() && after.is_some() && before != after {
        let mut fields = Vec::new();
        compare(
            &mut Vec::new(),
            before.as_ref().unwrap_or(&Json::Null),
            after.as_ref().unwrap_or(&Json::Null),
            ignore,
            &mut fields,
        );
        if !fields.is_empty() {
            result.changed.push(ObjectChange {
                object: crate::input::EXEMPTIONS_FILE.to_owned(),
                fields,
            });
        }
    }
    result
}

/// The files that make a folder a Kustomize application.
const KUSTOMIZATIONS: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Objects on both sides whose applications are known and differ. An old
/// application continues as the new one that receives most of its objects
/// (the same folder on a tie): the GitOps tool's application is re-pointed
/// there, so only the objects that go elsewhere move.
fn moves(old: Side<'_>, new: Side<'_>) -> (Vec<Renamed>, Vec<Move>) {
    let (before, after) = (applications(old), applications(new));
    let mut flows: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (k, (_, to)) in &after {
        if let Some((_, from)) = before.get(k) {
            *flows.entry((from.as_str(), to.as_str())).or_default() += 1;
        }
    }
    let mut continues: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for ((from, to), count) in &flows {
        let best = continues.entry(from).or_insert((to, *count));
        if *count > best.1 || (*count == best.1 && to == from) {
            *best = (to, *count);
        }
    }
    let renamed = continues
        .iter()
        .filter(|(from, (to, _))| **from != *to)
        .map(|(from, (to, _))| Renamed {
            from: (*from).to_owned(),
            to: (*to).to_owned(),
        })
        .collect();
    let mut moves = Vec::new();
    for (k, (id, to)) in &after {
        if let Some((_, from)) = before.get(k)
            && continues.get(from.as_str()).map(|(c, _)| *c) != Some(to.as_str())
        {
            let takes_others = match (id.group.as_str(), id.kind.as_str()) {
                ("", "Namespace") => Some("deleting a Namespace deletes everything in it"),
                ("apiextensions.k8s.io", "CustomResourceDefinition") => Some(
                    "deleting a CustomResourceDefinition deletes every custom resource of its kind",
                ),
                _ => None,
            };
            moves.push(Move {
                object: id.to_string(),
                from: from.clone(),
                to: to.clone(),
                takes_others,
            });
        }
    }
    (renamed, moves)
}

/// Each object's application, for a side read from a directory: the folder
/// (relative to that directory, `.` for itself) of the nearest ancestor of
/// its file that holds a kustomization. Objects outside any have none.
fn applications(side: Side<'_>) -> BTreeMap<Key, (ObjectId, String)> {
    let root = Path::new(side.path);
    if side.path == "-" || !root.is_dir() {
        return BTreeMap::new();
    }
    let mut known = HashMap::new();
    side.set
        .manifests
        .iter()
        .filter_map(|m| {
            let file = Path::new(m.file.as_deref()?);
            let folder = file.strip_prefix(root).ok()?.parent()?;
            let application = nearest_application(root, folder, &mut known)?;
            Some((key(&m.id), (m.id.clone(), application)))
        })
        .collect()
}

/// The application of `folder` (relative to `root`), remembered in `known`.
fn nearest_application(
    root: &Path,
    folder: &Path,
    known: &mut HashMap<PathBuf, Option<String>>,
) -> Option<String> {
    if let Some(application) = known.get(folder) {
        return application.clone();
    }
    let here = root.join(folder);
    let application = if KUSTOMIZATIONS.iter().any(|name| here.join(name).is_file()) {
        let parts: Vec<_> = folder
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        Some(if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        })
    } else {
        folder
            .parent()
            .and_then(|up| nearest_application(root, up, known))
    };
    known.insert(folder.to_owned(), application.clone());
    application
}

/// One step of the path being compared: a key, or a list item by name or
/// index (shown in brackets).
struct Step {
    name: String,
    item: bool,
}

impl Step {
    fn key(name: &str) -> Self {
        Step {
            name: name.to_owned(),
            item: false,
        }
    }

    fn item(name: impl ToString) -> Self {
        Step {
            name: name.to_string(),
            item: true,
        }
    }
}

fn show_path(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        if step.item {
            out += &format!("[{}]", step.name);
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

fn compare(
    path: &mut Vec<Step>,
    old: &Json,
    new: &Json,
    ignore: &[Ignore],
    out: &mut Vec<FieldChange>,
) {
    if ignored(path, ignore) {
        return;
    }
    match (old, new) {
        (Json::Object(a), Json::Object(b)) => {
            let keys: Vec<&String> = a
                .keys()
                .chain(b.keys().filter(|k| !a.contains_key(*k)))
                .collect();
            for k in keys {
                path.push(Step::key(k));
                compare_entry(path, a.get(k), b.get(k), ignore, out);
                path.pop();
            }
        }
        (Json::Array(a), Json::Array(b)) => match (named(a), named(b)) {
            (Some(by_name_a), Some(by_name_b)) if !order_matters(path, a) || same_order(a, b) => {
                let names: Vec<&String> = by_name_a
                    .keys()
                    .chain(by_name_b.keys().filter(|n| !by_name_a.contains_key(*n)))
                    .collect();
                for name in names {
                    path.push(Step::item(name));
                    let (x, y) = (by_name_a.get(name).copied(), by_name_b.get(name).copied());
                    compare_entry(path, x, y, ignore, out);
                    path.pop();
                }
            }
            _ if a.len() == b.len() => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    path.push(Step::item(i));
                    compare(path, x, y, ignore, out);
                    path.pop();
                }
            }
            _ => out.push(change(path, Some(old), Some(new))),
        },
        (a, b) if a != b => out.push(change(path, Some(a), Some(b))),
        _ => {}
    }
}

/// A field or named item that may be on either side.
fn compare_entry(
    path: &mut Vec<Step>,
    old: Option<&Json>,
    new: Option<&Json>,
    ignore: &[Ignore],
    out: &mut Vec<FieldChange>,
) {
    match (old, new) {
        (Some(x), Some(y)) => compare(path, x, y, ignore, out),
        // `labels: {}` and `annotations:` say what an absent field says.
        (Some(x), None) | (None, Some(x)) if is_empty(x) => {}
        _ if ignored(path, ignore) => {}
        _ => out.push(change(path, old, new)),
    }
}

fn change(path: &[Step], old: Option<&Json>, new: Option<&Json>) -> FieldChange {
    FieldChange {
        path: show_path(path),
        old: old.cloned(),
        new: new.cloned(),
    }
}

/// Whether `path` is left out by an `--ignore` pattern.
fn ignored(path: &[Step], ignore: &[Ignore]) -> bool {
    ignore.iter().any(|i| i.matches(path))
}

/// Lists whose order changes behaviour although their items have names:
/// init containers run in order, and an env entry can refer only to the
/// ones before it (`$(NAME)`).
fn order_matters(path: &[Step], items: &[Json]) -> bool {
    match path.last().map(|s| s.name.as_str()) {
        Some("initContainers") => true,
        Some("env") => items
            .iter()
            .any(|i| i["value"].as_str().is_some_and(|v| v.contains("$("))),
        _ => false,
    }
}

fn same_order(a: &[Json], b: &[Json]) -> bool {
    let names = |items: &[Json]| items.iter().map(|i| i["name"].clone()).collect::<Vec<_>>();
    names(a) == names(b)
}

fn is_empty(value: &Json) -> bool {
    match value {
        Json::Null => true,
        Json::Object(o) => o.is_empty(),
        Json::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// The items of a list by their `name`, when every item is an object with a
/// unique string `name`.
fn named(items: &[Json]) -> Option<BTreeMap<String, &Json>> {
    if items.is_empty() {
        return None;
    }
    let mut by_name = BTreeMap::new();
    for item in items {
        let name = item.get("name")?.as_str()?;
        if by_name.insert(name.to_owned(), item).is_some() {
            return None;
        }
    }
    Some(by_name)
}

/// "buildkit-operator/buildkit-buildd gains delete on secrets in buildkit-builds".
fn rbac_changes(old: &[Json], new: &[Json]) -> Vec<String> {
    type Entry = (rbac::Subject, Scope, String, Vec<String>);
    let flatten = |objects: &[Json]| -> Result<BTreeMap<Entry, BTreeSet<String>>, String> {
        let mut map = BTreeMap::new();
        for permissions in rbac::effective_permissions(objects)? {
            for p in permissions.permissions {
                let entry = (
                    permissions.subject.clone(),
                    p.scope,
                    p.resource,
                    p.resource_names,
                );
                map.insert(entry, p.verbs.into_iter().collect());
            }
        }
        Ok(map)
    };
    // Past the grant budget, the permissions are not compared, and the diff
    // says so instead of growing with subjects × rules × resources.
    let (before, after) = match (flatten(old), flatten(new)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(why), _) | (_, Err(why)) => return vec![format!("not compared: {why}")],
    };
    let empty = BTreeSet::new();
    let keys: BTreeSet<&Entry> = before.keys().chain(after.keys()).collect();
    let mut lines = Vec::new();
    for entry @ (subject, scope, resource, names) in keys {
        let was = before.get(entry).unwrap_or(&empty);
        let is = after.get(entry).unwrap_or(&empty);
        let place = match scope {
            Scope::Cluster => "cluster-wide".to_owned(),
            Scope::Namespace(ns) => format!("in {ns}"),
        };
        let named = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        };
        for (verb, set) in [("gains", is.difference(was)), ("loses", was.difference(is))] {
            let verbs: Vec<&str> = set.map(String::as_str).collect();
            if !verbs.is_empty() {
                lines.push(format!(
                    "{} {verb} {} on {resource}{named} {place}",
                    subject.describe(),
                    verbs.join(", ")
                ));
            }
        }
    }
    lines
}

/// Colours for a terminal; empty strings otherwise.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    added: &'static str,
    removed: &'static str,
    changed: &'static str,
    reset: &'static str,
}

impl Style {
    /// ANSI colours.
    pub fn colour() -> Self {
        Style {
            added: "\x1b[32m",
            removed: "\x1b[31m",
            changed: "\x1b[33m",
            reset: "\x1b[0m",
        }
    }
}

fn value(json: &Json) -> String {
    match json {
        Json::String(s) => crate::emit::quote(s),
        other => crate::emit::flow(other),
    }
}

/// The diff for a person. Every line goes through [`printable`]: names,
/// keys and values come from the input, and none may break a line or reach
/// the terminal as a control sequence.
pub fn render_text(diff: &Diff, style: Style) -> String {
    let Style {
        added,
        removed,
        changed,
        reset,
    } = style;
    let mut out = String::new();
    for id in &diff.added {
        let _ = writeln!(out, "{added}+ {}{reset}", printable(id));
    }
    for id in &diff.removed {
        let _ = writeln!(out, "{removed}- {}{reset}", printable(id));
    }
    for r in &diff.renamed {
        let _ = writeln!(
            out,
            "{changed}{}{reset} (most of its objects go there; point the GitOps application at it)",
            printable(&format!("application {} continues as {}", r.from, r.to))
        );
    }
    if !diff.moves.is_empty() {
        let _ = writeln!(out, "moved between GitOps applications:");
        for m in &diff.moves {
            let moved = format!("{}: {} → {}", m.object, m.from, m.to);
            let _ = writeln!(out, "  {changed}{}{reset}", printable(&moved));
        }
        let mut others: Vec<&str> = Vec::new();
        for other in diff.moves.iter().filter_map(|m| m.takes_others) {
            if !others.contains(&other) {
                others.push(other);
            }
        }
        if !others.is_empty() {
            let _ = writeln!(
                out,
                "{removed}warning: a GitOps tool that prunes can delete a moved object from its old application before the new one creates it; {}.{reset}",
                others.join("; ")
            );
            let _ = writeln!(
                out,
                "  The README section \"Handing over objects between applications\" says how to move it safely."
            );
        }
    }
    for object in &diff.changed {
        let _ = writeln!(out, "{changed}~ {}{reset}", printable(&object.object));
        for field in &object.fields {
            match (&field.old, &field.new) {
                (Some(Json::String(a)), Some(Json::String(b)))
                    if a.contains('\n') || b.contains('\n') =>
                {
                    let _ = writeln!(out, "    {}:", printable(&field.path));
                    let shown = lines::render(&lines::diff(a, b), 2, "      ");
                    if shown.is_empty() {
                        let _ = writeln!(
                            out,
                            "      (the same lines; only line endings or the final newline differ)"
                        );
                    }
                    for line in shown.lines() {
                        let colour = match line.trim_start().chars().next() {
                            Some('+') => added,
                            Some('-') => removed,
                            _ => "",
                        };
                        let end = if colour.is_empty() { "" } else { reset };
                        let _ = writeln!(out, "{colour}{}{end}", printable(line));
                    }
                }
                (Some(a), Some(b)) => {
                    let shown = format!("{}: {} → {}", field.path, value(a), value(b));
                    let _ = writeln!(out, "    {}", printable(&shown));
                }
                (None, Some(b)) => {
                    let shown = format!("{}: {}", field.path, value(b));
                    let _ = writeln!(out, "    {added}+ {}{reset}", printable(&shown));
                }
                (Some(a), None) => {
                    let shown = format!("{}: {}", field.path, value(a));
                    let _ = writeln!(out, "    {removed}- {}{reset}", printable(&shown));
                }
                (None, None) => {}
            }
        }
    }
    if !diff.rbac.is_empty() {
        let _ = writeln!(out, "Effective permissions:");
        for line in &diff.rbac {
            let _ = writeln!(out, "  {}", printable(line));
        }
    }
    // A moved object may also have changed: count it once.
    let changed_or_moved: BTreeSet<&str> = diff
        .changed
        .iter()
        .map(|c| c.object.as_str())
        .chain(diff.moves.iter().map(|m| m.object.as_str()))
        .collect();
    let total = diff.added.len() + diff.removed.len() + changed_or_moved.len();
    let _ = if total == 0 {
        writeln!(out, "no differences")
    } else {
        writeln!(
            out,
            "{total} {} differ{}: {} added, {} removed, {} changed{}",
            if total == 1 { "object" } else { "objects" },
            if total == 1 { "s" } else { "" },
            diff.added.len(),
            diff.removed.len(),
            diff.changed.len(),
            if diff.moves.is_empty() {
                String::new()
            } else {
                format!("; {} moved between applications", diff.moves.len())
            }
        )
    };
    out
}
