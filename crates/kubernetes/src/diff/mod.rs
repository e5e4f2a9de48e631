//! What changes between two sets of manifests, object by object and field
//! by field.
//!
//! Objects match by group, kind, namespace and name (not version, so an API
//! version bump is a field change, not a remove and an add). Mapping keys
//! in another order are no difference. Lists whose items all have a unique
//! `name` (containers, env, ports, volumes, mounts) match by name; their
//! items in another order are one change of the list's order (server-side
//! apply keeps the manifest's order: in a pod template, the pods roll);
//! other lists compare by position. What the API server writes by itself
//! (defaults, an allocated cluster IP) and a quantity in another notation
//! are no difference (`defaults`). Multi-line strings get a line diff. Secret values are never
//! shown, only a token keyed for this run ([`crate::secret`]). When effective permissions change, a plain summary
//! says who gains or loses what, where. For a side read from a directory,
//! each object belongs to the GitOps application of the nearest folder with
//! a kustomization; an object whose application changes is a move, shown on
//! its own: a GitOps tool that prunes may delete it before the new
//! application creates it. Beside the changes, the impact summary says what
//! applying them does (refused, destructive, security, restart, renames),
//! most severe first; a caller gates on it ([`Diff::worst`]).

mod compare;
mod defaults;
mod go_types;
mod impact;
pub mod lines;
pub mod matching;
mod moves;
mod text;
mod tree;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value as Json;

pub use impact::{Class, Impact, Level, listed};
pub use text::{Style, render_text};

use crate::input::ManifestSet;
use crate::location::{KeyPath, Segment, Syntax};
use crate::manifest::{Manifest, ObjectId};
use crate::rbac;
use crate::rbac::resolve::Scope;
use crate::secret;
use crate::yaml::{Node, Value};
use tree::Step;

/// A path pattern to leave out of the comparison: keys (quoted when they
/// hold dots), `*` matching any one key or list item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignore(KeyPath);

impl Ignore {
    /// Parses `metadata.labels."app.kubernetes.io/version"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        KeyPath::parse(text, Syntax::Pattern).map(Ignore)
    }

    fn matches(&self, path: &[Step<'_>]) -> bool {
        self.0.0.len() == path.len() && self.starts_with(path)
    }

    /// Whether the pattern names a field of `value` (an object, as JSON):
    /// a key, or a list item by its `name` or its index, `*` any one.
    /// `--ignore` that names none on either side is a pattern that leaves
    /// nothing out, mistyped most likely ([`unmatched`]).
    pub fn names_a_field_of(&self, value: &Json) -> bool {
        fn walk(steps: &[Segment], value: &Json) -> bool {
            let Some((Segment::Key(step), rest)) = steps.split_first() else {
                return steps.is_empty();
            };
            let any = step == "*";
            match value {
                Json::Object(fields) => fields
                    .iter()
                    .any(|(key, field)| (any || key == step) && walk(rest, field)),
                Json::Array(items) => items.iter().enumerate().any(|(index, item)| {
                    let named = item.get("name").and_then(Json::as_str) == Some(step.as_str());
                    (any || named || *step == index.to_string()) && walk(rest, item)
                }),
                _ => false,
            }
        }
        walk(&self.0.0, value)
    }

    /// Whether the pattern names something strictly below `path`: then a
    /// subtree on one side only is compared field by field, so that what
    /// the pattern leaves out stays out.
    fn reaches_below(&self, path: &[Step<'_>]) -> bool {
        self.0.0.len() > path.len() && self.starts_with(path)
    }

    fn starts_with(&self, path: &[Step<'_>]) -> bool {
        self.0.0.iter().zip(path).all(|(p, s)| match p {
            Segment::Key(p) => p == "*" || *p == s.name,
            Segment::Index(i) => *s.name == i.to_string(),
        })
    }
}

/// The indices of the patterns of `ignore` that name no field of any
/// object or artifact of either side: they leave nothing out.
pub fn unmatched(
    ignore: &[Ignore],
    (old, new): (&ManifestSet, &ManifestSet),
    artifacts: &[&dyn Artifact],
) -> Vec<usize> {
    let mut left: Vec<usize> = (0..ignore.len()).collect();
    for set in [old, new] {
        let objects = set.manifests.iter().map(Manifest::json);
        let merged = artifacts.iter().filter_map(|artifact| {
            let documents = set.artifact(artifact.name());
            (!documents.is_empty()).then(|| artifact.merge(documents))
        });
        for value in objects.chain(merged) {
            if left.is_empty() {
                return left;
            }
            left.retain(|&at| !ignore[at].names_a_field_of(&value));
        }
    }
    left
}

/// How one field changed.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FieldChange {
    /// Where, such as `spec.template.spec.containers[buildd].image`.
    pub path: String,
    /// The old value; absent when the field was added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Json>,
    /// The new value; absent when the field was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Json>,
    /// The path's keys and item names, unquoted: what the impact reads.
    #[serde(skip)]
    pub(crate) steps: Vec<String>,
}

/// One object's change.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ObjectChange {
    /// The object, as `Kind namespace/name`.
    pub object: String,
    /// Its field changes, in document order.
    pub fields: Vec<FieldChange>,
}

/// An object that changes GitOps application.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Renamed {
    /// Its folder in the old set.
    pub from: String,
    /// The folder in the new set that receives most of its objects.
    pub to: String,
}

/// Everything that differs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(title = "What differs between two sets of manifests")]
pub struct Diff {
    /// Old objects compared with new ones of another name or namespace,
    /// as a map said ([`matching`]); shown, never silent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<matching::Matched>,
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
    /// What applying the new set does, most severe first (see `docs/diff.md`).
    pub impact: Vec<Impact>,
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
            && self.impact.is_empty()
    }

    /// The most severe level of the differences: that of the most severe
    /// impact, at least [`Level::Change`] when anything differs; `None`
    /// when nothing does: what a gate on a level compares (a caller that
    /// fails at `LEVEL` fails when this is `LEVEL` or above).
    pub fn worst(&self) -> Option<Level> {
        let worst = self.impact.iter().map(|i| i.level).max();
        worst.or((!self.is_empty()).then_some(Level::Change))
    }

    /// Takes out the impacts of class [`Class::Invalid`], this crate's
    /// reading of what the API server refuses: against a live cluster the
    /// server's own dry runs answer instead ([`Diff::reject`]).
    pub fn judged_by_the_server(&mut self) {
        self.impact.retain(|impact| impact.class != Class::Invalid);
    }

    /// Records that the API server rejected a dry-run apply of `object`
    /// (as `Kind namespace/name`), in the server's words `why`: the apply
    /// would fail, so it is a [`Level::Refused`] impact.
    pub fn reject(&mut self, object: String, why: String) {
        self.impact.push(Impact {
            level: Level::Refused,
            class: Class::Rejected,
            object,
            from: None,
            why,
        });
        impact::sort(&mut self.impact);
    }
}

/// Group, kind, namespace and name.
type Key = (String, String, Option<String>, String);

/// The identity objects are matched by: everything but the version.
pub(super) fn key(id: &ObjectId) -> Key {
    (
        id.group.clone(),
        id.kind.clone(),
        id.namespace.clone(),
        id.name.clone(),
    )
}

/// Group, kind, namespace and name, borrowed from the object's id.
type KeyRef<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

/// The objects of a set by [`KeyRef`]; of two with one key, the last.
fn index(set: &[Manifest]) -> BTreeMap<KeyRef<'_>, &Manifest> {
    set.iter()
        .map(|m| {
            let id = &m.id;
            let key = (
                id.group.as_str(),
                id.kind.as_str(),
                id.namespace.as_deref(),
                id.name.as_str(),
            );
            (key, m)
        })
        .collect()
}

/// Compares two manifest sets. Objects compare on their parsed trees,
/// borrowed: identical ones are skipped, and only objects that could hold
/// a Secret (see `compare::may_need_redaction`) become JSON, redacted.
pub fn diff(old: &[Manifest], new: &[Manifest], ignore: &[Ignore]) -> Diff {
    diff_at(old, new, ignore, rbac::defaults::TARGET)
}

/// [`diff`], a binding to a default role reading that role as Kubernetes
/// `version` defines it.
pub fn diff_at(
    old: &[Manifest],
    new: &[Manifest],
    ignore: &[Ignore],
    version: rbac::defaults::Version,
) -> Diff {
    let (old_objects, new_objects) = (index(old), index(new));
    let declared = defaults::Declared::of(new);
    let mut result = Diff::default();
    let mut matched = impact::Partition::default();
    // Both indexes are sorted: walk them side by side.
    let mut olds = old_objects.iter().peekable();
    for (k, object) in &new_objects {
        while let Some((_, gone)) = olds.next_if(|(o, _)| *o < k) {
            result.removed.push(gone.id.to_string());
            matched.removed.push(*gone);
        }
        match olds.next_if(|(o, _)| *o == k) {
            None => {
                result.added.push(object.id.to_string());
                matched.added.push(*object);
            }
            Some((_, before)) => {
                let fields = object_changes(before, object, ignore, &declared);
                if !fields.is_empty() {
                    result.changed.push(ObjectChange {
                        object: object.id.to_string(),
                        fields,
                    });
                    matched.changed.push((*before, *object));
                } else if impact::may_refuse_unchanged(&object.id.group, &object.id.kind) {
                    matched.kept.push((*before, *object));
                }
            }
        }
    }
    for (_, gone) in olds {
        result.removed.push(gone.id.to_string());
        matched.removed.push(*gone);
    }
    let permissions = rbac_of_sets(&old_objects, &new_objects, version);
    result.rbac = permissions.lines;
    let sets = impact::Sets {
        old,
        new,
        minor: version.1,
        declared: Some(&declared),
    };
    impact::assess(&mut result, &matched, sets, &permissions.model, ignore);
    result
}

/// The field changes of one object, as its API server sees them.
fn object_changes(
    before: &Manifest,
    after: &Manifest,
    ignore: &[Ignore],
    declared: &defaults::Declared<'_>,
) -> Vec<FieldChange> {
    let (old, new) = (before.node(), after.node());
    let server = defaults::Server::object(&after.id.group, &after.id.version, &after.id.kind)
        .with_declared(declared, &after.id)
        .with_sides(old, new);
    let mut fields = Vec::new();
    let stored = defaults::as_stored(&after.id.group, &after.id.kind);
    let redaction = compare::may_need_redaction(old) || compare::may_need_redaction(new);
    if tree::identical(old, new) {
        // Same JSON, written the same way, so the same redaction: nothing.
    } else if redaction || stored.is_some() {
        // Compared as stored, where the server's defaults read the
        // object's other fields, and redacted where a Secret may show.
        let (mut old, mut new) = (old.to_json(), new.to_json());
        if let Some(as_stored) = stored {
            as_stored(&mut old, &mut new, declared);
        }
        if redaction {
            (old, new) = (secret::redacted(&old), secret::redacted(&new));
        }
        compare::compare_object(&old, &new, ignore, server, &mut fields);
    } else {
        compare::compare_object(old, new, ignore, server, &mut fields);
    }
    fields
}

/// The kinds [`crate::rbac::resolve::permissions_with`] reads; it passes over every
/// other object.
const RBAC_KINDS: [&str; 4] = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

/// The changes of effective permissions between two indexed sets. Only
/// the RBAC objects count; when they are the same on both sides, the
/// permissions are computed once, to say whether they are past the budget.
fn rbac_of_sets(
    old: &BTreeMap<KeyRef<'_>, &Manifest>,
    new: &BTreeMap<KeyRef<'_>, &Manifest>,
    version: rbac::defaults::Version,
) -> PermissionChanges {
    let (before, after) = (rbac_objects(old), rbac_objects(new));
    let (accounts_before, accounts_after) = (accounts(old), accounts(new));
    let json = |nodes: &[&Node], accounts: &BTreeSet<(&str, &str)>| {
        (nodes.iter().map(|n| n.to_json()))
            .chain(accounts.iter().map(|(namespace, name)| {
                serde_json::json!({
                    "apiVersion": "v1",
                    "kind": "ServiceAccount",
                    "metadata": {"name": name, "namespace": namespace},
                })
            }))
            .collect::<Vec<_>>()
    };
    let unchanged = before.len() == after.len()
        && accounts_before == accounts_after
        && before
            .iter()
            .zip(&after)
            .all(|(a, b)| tree::identical(a, b));
    if unchanged {
        match permissions(&json(&before, &accounts_before), version) {
            Ok(listed) => {
                let held = held(&listed);
                let mut same = PermissionChanges::default();
                same.model.after = held.clone();
                same.model.before = held;
                same
            }
            Err(why) => PermissionChanges::not_compared(&why),
        }
    } else {
        rbac_changes(
            &json(&before, &accounts_before),
            &json(&after, &accounts_after),
            version,
        )
    }
}

/// The ServiceAccounts of an indexed set the `rbac` model lists besides
/// those its bindings name: those it declares and those its workloads run
/// as (namespace, name). Their permissions through groups
/// (`system:serviceaccounts`, `…:NAMESPACE`, `system:authenticated`) count
/// as theirs.
fn accounts<'a>(set: &BTreeMap<KeyRef<'a>, &'a Manifest>) -> BTreeSet<(&'a str, &'a str)> {
    let mut accounts = BTreeSet::new();
    for (&(group, kind, namespace, name), object) in set {
        let namespace = namespace.unwrap_or("default");
        if group.is_empty() && kind == "ServiceAccount" {
            accounts.insert((namespace, name));
        } else if let Some(spec) = impact::pod_spec(object) {
            accounts.insert((namespace, crate::tree::runs_as(spec)));
        }
    }
    accounts
}

/// The RBAC objects of an indexed set, in its order.
fn rbac_objects<'a>(set: &BTreeMap<KeyRef<'_>, &'a Manifest>) -> Vec<&'a Node> {
    set.values()
        .map(|m| m.node())
        .filter(|node| {
            node.get("kind").is_some_and(
                |kind| matches!(&kind.value, Value::String(k) if RBAC_KINDS.contains(&k.as_str())),
            )
        })
        .collect()
}

/// The changes of effective permissions: the lines of [`Diff::rbac`], and
/// the same in parts for the impact summary.
#[derive(Default)]
struct PermissionChanges {
    lines: Vec<String>,
    model: impact::PermissionModel,
}

impl PermissionChanges {
    /// What the diff says of permissions past the grant budget.
    fn not_compared(why: &str) -> Self {
        PermissionChanges {
            lines: vec![format!("not compared: {why}")],
            model: impact::PermissionModel {
                not_compared: true,
                ..impact::PermissionModel::default()
            },
        }
    }
}

/// `at` in words: `cluster-wide`, `in NAMESPACE`.
fn place(scope: &Scope) -> String {
    match scope {
        Scope::Cluster => "cluster-wide".to_owned(),
        Scope::Namespace(ns) => format!("in {ns}"),
    }
}

/// What each ServiceAccount may do, from the listed permissions.
fn held(listed: &[crate::rbac::resolve::Permissions]) -> impact::Held {
    let mut held = impact::Held::new();
    for p in listed {
        let subject = &p.subject;
        if subject.kind != "ServiceAccount" {
            continue;
        }
        let key = (
            subject.namespace.clone().unwrap_or_default(),
            subject.name.clone(),
        );
        let set = held.entry(key).or_default();
        for r in &p.permissions {
            let named = if r.resource_names.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    crate::rbac::resolve::shown_names(&r.resource_names, ", ")
                )
            };
            let resource = crate::rbac::resolve::shown_resource(&r.resource, &r.group);
            let what = format!("{resource}{named} {}", place(&r.scope));
            set.extend(r.verbs.iter().map(|v| (what.clone(), v.clone())));
        }
        for u in &p.non_resource {
            let what = format!("{} {}", u.url, place(&u.scope));
            set.extend(u.verbs.iter().map(|v| (what.clone(), v.clone())));
        }
    }
    held
}

/// One side of a diff: the argument and the set read from it.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// The argument: a directory, a file, or `-`.
    pub path: &'a str,
    /// What was read from it.
    pub set: &'a ManifestSet,
}

/// An artifact of the caller's (a side file that is not an object, see
/// [`crate::input::Options::artifacts`]) as [`diff_sets`] compares it.
/// This crate knows no artifact: the caller says how one side's documents
/// read as one value and what a change of that value does.
pub trait Artifact {
    /// Its file name, as the read options declare it; its change is shown
    /// under this name.
    fn name(&self) -> &str;
    /// One side's documents of it (one per release that has it, never
    /// none) as one value.
    fn merge(&self, documents: &[Node]) -> Json;
    /// What going from `before` to `after` does, for the impact summary.
    fn impact(&self, before: &Json, after: &Json) -> Vec<Impact>;
}

/// Compares two manifest sets, the applications of their objects, and
/// each of `artifacts` when both sides have it; a binding to a default
/// role reads that role as Kubernetes `version` defines it.
pub fn diff_sets(
    old: Side<'_>,
    new: Side<'_>,
    ignore: &[Ignore],
    version: rbac::defaults::Version,
    artifacts: &[&dyn Artifact],
) -> Diff {
    let mut result = diff_at(&old.set.manifests, &new.set.manifests, ignore, version);
    (result.renamed, result.moves) = moves::moves(old, new);
    for artifact in artifacts {
        diff_artifact(*artifact, (old.set, new.set), ignore, &mut result);
    }
    result
}

/// The change of one artifact into `result`: its fields, under its name,
/// and its impact. A stream never carries an artifact: it is compared only
/// when both sides have it.
fn diff_artifact(
    artifact: &dyn Artifact,
    (old, new): (&ManifestSet, &ManifestSet),
    ignore: &[Ignore],
    result: &mut Diff,
) {
    let merged = |set: &ManifestSet| {
        let documents = set.artifact(artifact.name());
        (!documents.is_empty()).then(|| artifact.merge(documents))
    };
    let (Some(before), Some(after)) = (merged(old), merged(new)) else {
        return;
    };
    if before == after {
        return;
    }
    let mut fields = Vec::new();
    compare::compare(&mut Vec::new(), &before, &after, ignore, &mut fields);
    if !fields.is_empty() {
        result.changed.push(ObjectChange {
            object: artifact.name().to_owned(),
            fields,
        });
    }
    result.impact.extend(artifact.impact(&before, &after));
    impact::sort(&mut result.impact);
}

/// The effective permissions `diff` compares, of the roles and bindings
/// the API server takes: with the cluster's default
/// roles (a binding to `view` grants what `view` holds), without its
/// default bindings (what every account has is the same on both sides,
/// and would seem gained by any account a new binding names).
fn permissions(
    objects: &[Json],
    version: rbac::defaults::Version,
) -> Result<Vec<crate::rbac::resolve::Permissions>, String> {
    // A role or binding the API server refuses grants nothing, as `rbac`
    // and `check` read it (the schemas of the version, else the default).
    let schemas = crate::kube::KubeSchemas::load(&format!("{}.{}", version.0, version.1))
        .or_else(|_| crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION))?;
    let objects = crate::api::admitted::without_refused(objects, &schemas);
    crate::rbac::resolve::permissions_with(&objects, crate::rbac::resolve::Cluster::Roles, version)
}

/// `new` with the rules the aggregation controller wrote kept where a
/// ClusterRole drops its `aggregationRule` and writes no `rules`: the
/// controller owned them, so neither a server-side nor a client-side apply
/// removes them (a review saw `get secrets` still granted); `rules: []`
/// does. Those rules are what the old set's role gathered. `None` when no
/// role does so.
fn kept_aggregated_rules(
    old: &[Json],
    new: &[Json],
    version: rbac::defaults::Version,
) -> Option<Vec<Json>> {
    use crate::json::Field as _;
    let cluster_role = |o: &Json| {
        o.field("kind") == "ClusterRole"
            && o.field("apiVersion")
                .as_str()
                .is_some_and(|v| v.starts_with("rbac.authorization.k8s.io/"))
    };
    let name = |o: &Json| {
        o.field("metadata")
            .field("name")
            .as_str()
            .map(str::to_owned)
    };
    let aggregated = |o: &Json| o.get("aggregationRule").is_some_and(|a| !a.is_null());
    // The old set's aggregated ClusterRoles by name: one lookup each.
    let was_aggregated: HashMap<String, usize> = (old.iter().enumerate())
        .filter(|(_, o)| cluster_role(o) && aggregated(o))
        .filter_map(|(at, o)| Some((name(o)?, at)))
        .collect();
    let dropping: Vec<(usize, usize)> = (new.iter().enumerate())
        .filter(|(_, o)| cluster_role(o) && !aggregated(o) && o.get("rules").is_none())
        .filter_map(|(i, o)| Some((i, *was_aggregated.get(&name(o)?)?)))
        .collect();
    if dropping.is_empty() {
        return None;
    }
    let objects: Vec<&Json> = old.iter().collect();
    let graph =
        crate::rbac::resolve::Rbac::with(&objects, crate::rbac::resolve::Cluster::Roles, version);
    let role_of: HashMap<usize, usize> = (graph.roles.iter().enumerate())
        .map(|(id, &at)| (at, id))
        .collect();
    // One walk budget for every role, linear in the old set, and a bound
    // on the rules copied: a set of many roles each gathering many stops
    // there, the roles not reached then read as written (a hostile shape:
    // a cycle of thousands of roles each dropping its rule).
    let mut work = old.len().saturating_mul(64).max(100_000);
    let mut room = crate::rbac::resolve::GRANT_BUDGET;
    let mut new = new.to_vec();
    for (index, at) in dropping {
        let Some(sources) = role_of
            .get(&at)
            .and_then(|&id| graph.sources(id, &mut work))
        else {
            continue;
        };
        let mut rules = Vec::new();
        for source in sources {
            let object = match graph.roles.get(source) {
                Some(&at) => &old[at],
                None => graph.defaults[source - graph.roles.len()],
            };
            for rule in object.field("rules").as_array().into_iter().flatten() {
                let Some(left) = room.checked_sub(1) else {
                    return Some(new);
                };
                room = left;
                rules.push(rule.clone());
            }
        }
        new[index]["rules"] = Json::Array(rules);
    }
    Some(new)
}

/// "buildkit-operator/buildkit-buildd gains delete on secrets in buildkit-builds".
fn rbac_changes(old: &[Json], new: &[Json], version: rbac::defaults::Version) -> PermissionChanges {
    type Entry = (
        crate::rbac::resolve::Subject,
        Scope,
        String,
        String,
        Vec<String>,
    );
    type Flat = BTreeMap<Entry, (BTreeSet<String>, Vec<String>)>;
    let flatten = |objects: &[Json]| -> Result<(Flat, impact::Held), String> {
        let mut map = BTreeMap::new();
        let listed = permissions(objects, version)?;
        let held = held(&listed);
        for permissions in listed {
            for p in permissions.permissions {
                let entry = (
                    permissions.subject.clone(),
                    p.scope,
                    p.resource,
                    p.group,
                    p.resource_names,
                );
                map.insert(entry, (p.verbs.into_iter().collect(), p.via));
            }
            for p in permissions.non_resource {
                let entry = (
                    permissions.subject.clone(),
                    p.scope,
                    p.url,
                    String::new(),
                    Vec::new(),
                );
                map.insert(entry, (p.verbs.into_iter().collect(), p.via));
            }
        }
        Ok((map, held))
    };
    // Past the grant budget, the permissions are not compared, and the diff
    // says so instead of growing with subjects × rules × resources.
    let kept = kept_aggregated_rules(old, new, version);
    let new = kept.as_deref().unwrap_or(new);
    let ((before, held_before), (after, held_after)) = match (flatten(old), flatten(new)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(why), _) | (_, Err(why)) => return PermissionChanges::not_compared(&why),
    };
    let empty = (BTreeSet::new(), Vec::new());
    let keys: BTreeSet<&Entry> = before.keys().chain(after.keys()).collect();
    let mut lines = PermissionChanges::default();
    lines.model.before = held_before;
    lines.model.after = held_after;
    for entry @ (subject, scope, resource, group, names) in keys {
        let resource = crate::rbac::resolve::shown_resource(resource, group);
        let (was, _) = before.get(entry).unwrap_or(&empty);
        let (is, via) = after.get(entry).unwrap_or(&empty);
        let place = place(scope);
        let named = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::rbac::resolve::shown_names(names, ", "))
        };
        for (verb, set) in [("gains", is.difference(was)), ("loses", was.difference(is))] {
            let verbs: Vec<&str> = set.map(String::as_str).collect();
            if !verbs.is_empty() {
                let what = format!("{} on {resource}{named} {place}", verbs.join(", "));
                lines
                    .lines
                    .push(format!("{} {verb} {what}", subject.describe()));
                let object = match subject.kind.as_str() {
                    "ServiceAccount" => format!("ServiceAccount {}", subject.describe()),
                    _ => subject.describe(),
                };
                lines.model.changes.push(impact::PermissionChange {
                    subject: object,
                    gains: verb == "gains",
                    what,
                    via: via.clone(),
                });
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input;

    /// What diff did before it compared trees: every object as JSON,
    /// redacted, compared whole.
    fn by_json(old: &Manifest, new: &Manifest) -> Vec<FieldChange> {
        let mut fields = Vec::new();
        let (mut a, mut b) = (old.json(), new.json());
        if [old, new]
            .iter()
            .all(|m| m.id.kind == "Secret" && m.id.group.is_empty())
        {
            defaults::secrets_as_stored(&mut a, &mut b);
        }
        let server = defaults::Server::object(&new.id.group, &new.id.version, &new.id.kind);
        let (a, b) = (secret::redacted(&a), secret::redacted(&b));
        compare::compare_object(&a, &b, &[], server, &mut fields);
        fields
    }

    /// The objects at `path`; none when it does not read (a fixture of
    /// a refused input).
    fn read(path: &std::path::Path) -> Vec<Manifest> {
        let full = path.display().to_string();
        input::read(&[full], &input::TEST_OUT).map_or_else(|_| Vec::new(), |set| set.manifests)
    }

    /// Every side of every diff fixture against every other, and the
    /// Secret shapes: the same changes, object by object, as through JSON.
    #[test]
    fn object_changes_are_those_of_the_redacted_json() {
        let shapes = crate::fixtures::dir().join("secret-shapes");
        let sides: Vec<Vec<Manifest>> = (crate::fixtures::diff_sides().into_iter())
            .chain(["old.yaml", "new.yaml"].map(|side| shapes.join(side)))
            .map(|side| read(&side))
            .collect();
        let mut compared = 0;
        for old in &sides {
            for new in &sides {
                let (old, new) = (index(old), index(new));
                for (k, after) in &new {
                    if let Some(before) = old.get(k) {
                        assert_eq!(
                            object_changes(before, after, &[], &defaults::Declared::default()),
                            by_json(before, after),
                            "{}",
                            after.id
                        );
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 100, "{compared}");
    }

    /// A made-up artifact: its lists of each side, concatenated.
    struct Quotas;

    impl Artifact for Quotas {
        fn name(&self) -> &str {
            "quotas.yaml"
        }

        fn merge(&self, documents: &[Node]) -> Json {
            Json::Array(documents.iter().map(Node::to_json).collect())
        }

        fn impact(&self, _: &Json, after: &Json) -> Vec<Impact> {
            vec![Impact {
                level: Level::Change,
                class: Class::Security,
                object: self.name().to_owned(),
                from: None,
                why: format!("now {after}"),
            }]
        }
    }

    /// The set of one object and, when given, the artifact `quotas.yaml`.
    fn with_quotas(quotas: Option<&str>) -> ManifestSet {
        let dir = tempfile::tempdir().unwrap();
        let object = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        std::fs::write(dir.path().join("cm.yaml"), object).unwrap();
        if let Some(text) = quotas {
            std::fs::write(dir.path().join("quotas.yaml"), text).unwrap();
        }
        let options = input::Options {
            artifacts: &["quotas.yaml"],
            ..input::Options::default()
        };
        input::read(&[dir.path().display().to_string()], &options).unwrap()
    }

    /// A caller's artifact is compared through its hook, under its name,
    /// and only when both sides have it.
    #[test]
    fn a_declared_artifact_is_compared_by_the_callers_hook() {
        let old = with_quotas(Some("cpu: 1\n"));
        let new = with_quotas(Some("cpu: 2\n"));
        let none = with_quotas(None);
        let side = |set| Side { path: "dir", set };
        let version = rbac::defaults::TARGET;
        let changed = diff_sets(side(&old), side(&new), &[], version, &[&Quotas]);
        assert_eq!(changed.changed.len(), 1);
        assert_eq!(changed.changed[0].object, "quotas.yaml");
        assert_eq!(changed.impact.len(), 1);
        assert_eq!(changed.impact[0].why, r#"now [{"cpu":2}]"#);
        let one_side = diff_sets(side(&old), side(&none), &[], version, &[&Quotas]);
        assert!(one_side.changed.is_empty() && one_side.impact.is_empty());
        let unknown = diff_sets(side(&old), side(&new), &[], version, &[]);
        assert!(unknown.changed.is_empty() && unknown.impact.is_empty());
    }

    /// Objects of a YAML stream, for the tests below.
    fn parsed(text: &str) -> Vec<Manifest> {
        crate::input::parse("test", text).unwrap().manifests
    }

    /// What a real v1.35.4 server answered where recording a case would
    /// change the cluster for every other case: a global default
    /// PriorityClass gives a Pod that names no class its name, value and
    /// policy (written back, no change), and a Node keeps its stored
    /// status on update.
    #[test]
    fn a_global_default_class_and_a_nodes_status_are_the_servers() {
        let class = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: global}\nvalue: 500\nglobalDefault: true\npreemptionPolicy: Never\n---\n";
        let pod = |extra: &str| {
            format!(
                "{class}apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns}}\nspec:\n  containers: [{{name: a, image: nginx}}]\n{extra}"
            )
        };
        let old = parsed(&pod(""));
        let new = parsed(&pod(
            "  priorityClassName: global\n  priority: 500\n  preemptionPolicy: Never\n",
        ));
        assert!(diff(&old, &new, &[]).is_empty());
        let other = parsed(&pod("  priority: 400\n"));
        assert!(
            !diff(&old, &other, &[]).is_empty(),
            "another value is a change"
        );
        let node = |cpu: &str| {
            parsed(&format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: node-1}}\nstatus:\n  capacity: {{cpu: \"{cpu}\"}}\n"
            ))
        };
        assert!(diff(&node("1"), &node("2"), &[]).is_empty());
        let map = |status: &str| {
            parsed(&format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: ns}}\n{status}"
            ))
        };
        assert!(
            !diff(&map(""), &map("status: {phase: x}\n"), &[]).is_empty(),
            "a kind without a status does not ignore one"
        );
    }
}
