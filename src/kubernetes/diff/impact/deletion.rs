//! Deletions that take or break other objects.
//!
//! - A Namespace: deleting it deletes every object in it
//!   (<https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/>).
//! - A CustomResourceDefinition: deleting it deletes every custom resource
//!   of its kind in the cluster; a version no longer served breaks every
//!   client and manifest of that version, and the API server refuses to
//!   drop a version objects are still stored as (`status.storedVersions`)
//!   (<https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/>).
//! - A ServiceAccount still named by a binding or a workload of the new
//!   set: its pods can no longer be created (the ServiceAccount admission
//!   plugin refuses a pod whose account does not exist).
//! - A PersistentVolumeClaim: its volume goes with it when the reclaim
//!   policy is `Delete` (the default of dynamically provisioned volumes).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::tree::{at, is, is_false, items, text};
use super::workload::pod_spec;
use super::{Class, Impact, Level, Sets, listed};
use crate::manifest::Manifest;

const CRD: (&str, &str) = ("apiextensions.k8s.io", "CustomResourceDefinition");

/// The removed objects whose deletion takes or breaks others.
pub(super) fn removed(removed: &[&Manifest], sets: Sets<'_>, out: &mut Vec<Impact>) {
    let namespaces: BTreeSet<&str> = removed
        .iter()
        .filter(|m| is(m, "", "Namespace"))
        .map(|m| m.id.name.as_str())
        .collect();
    let contents = if namespaces.is_empty() {
        BTreeMap::new()
    } else {
        kinds_in(sets.old, &namespaces)
    };
    let accounts = if removed.iter().any(|m| is(m, "", "ServiceAccount")) {
        account_users(sets.new)
    } else {
        HashMap::new()
    };
    for object in removed {
        let why = match (object.id.group.as_str(), object.id.kind.as_str()) {
            ("", "Namespace") => Some(namespace(contents.get(object.id.name.as_str()))),
            CRD => Some(crd_removed(object, sets)),
            ("", "ServiceAccount") => {
                let key = (object.id.namespace.as_deref().unwrap_or_default(), object.id.name.as_str());
                accounts.get(&key).map(|users| format!(
                    "still named by {} of the new set: a pod running as it can no longer be created",
                    listed(users)
                ))
            }
            ("", "PersistentVolumeClaim") => Some(
                "its volume goes with it when the volume's reclaim policy is Delete (the default of dynamically provisioned volumes)".to_owned(),
            ),
            _ => None,
        };
        if let Some(why) = why {
            let why = format!("removed: {why}");
            out.push(Impact::new(
                Level::Destructive,
                Class::Deletion,
                object,
                why,
            ));
        }
    }
}

/// The kinds of objects of `set` in each of `namespaces`, with counts.
fn kinds_in<'a>(
    set: &'a [Manifest],
    namespaces: &BTreeSet<&str>,
) -> BTreeMap<&'a str, BTreeMap<&'a str, usize>> {
    let mut kinds: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for object in set {
        if let Some(ns) = object.id.namespace.as_deref()
            && namespaces.contains(ns)
        {
            *kinds
                .entry(ns)
                .or_default()
                .entry(&object.id.kind)
                .or_default() += 1;
        }
    }
    kinds
}

fn namespace(kinds: Option<&BTreeMap<&str, usize>>) -> String {
    let named: Vec<String> = kinds
        .into_iter()
        .flatten()
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    if named.is_empty() {
        "everything in it is deleted with it".to_owned()
    } else {
        format!(
            "everything in it is deleted with it: {} of the old set, and whatever else runs there",
            listed(&named)
        )
    }
}

/// The group and kind a CRD defines.
fn defines(crd: &Manifest) -> (&str, &str) {
    let spec = crd.node.get("spec");
    (
        text(spec.and_then(|s| s.get("group"))).unwrap_or_default(),
        text(spec.and_then(|s| at(s, &["names", "kind"]))).unwrap_or_default(),
    )
}

fn crd_removed(crd: &Manifest, sets: Sets<'_>) -> String {
    let (group, kind) = defines(crd);
    let count = |set: &[Manifest]| {
        set.iter()
            .filter(|m| m.id.group == group && m.id.kind == kind)
            .count()
    };
    let (before, after) = (count(sets.old), count(sets.new));
    let mut why =
        format!("every {kind} in the cluster is deleted with it ({before} in the old set)");
    if after > 0 {
        why += &format!("; the new set's {after} {kind} objects are refused without it");
    }
    why
}

/// Who uses each ServiceAccount in `set`: the bindings naming it and the
/// workloads running as it, by (namespace, name).
fn account_users(set: &[Manifest]) -> HashMap<(&str, &str), Vec<String>> {
    let mut users: HashMap<(&str, &str), Vec<String>> = HashMap::new();
    for object in set {
        if matches!(
            object.id.kind.as_str(),
            "RoleBinding" | "ClusterRoleBinding"
        ) && object.id.group == "rbac.authorization.k8s.io"
        {
            for subject in items(object.node.get("subjects")) {
                if text(subject.get("kind")) != Some("ServiceAccount") {
                    continue;
                }
                let namespace = text(subject.get("namespace"))
                    .filter(|ns| !ns.is_empty())
                    .or(object.id.namespace.as_deref())
                    .unwrap_or("default");
                if let Some(name) = text(subject.get("name")) {
                    users
                        .entry((namespace, name))
                        .or_default()
                        .push(object.id.to_string());
                }
            }
        } else if let Some(spec) = pod_spec(object) {
            let name = text(spec.get("serviceAccountName"))
                .or(text(spec.get("serviceAccount")))
                .unwrap_or("default");
            let namespace = object.id.namespace.as_deref().unwrap_or("default");
            users
                .entry((namespace, name))
                .or_default()
                .push(object.id.to_string());
        }
    }
    users
}

/// A changed CRD that stops serving a version.
pub(super) fn changed(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    if (before.id.group.as_str(), before.id.kind.as_str()) != CRD {
        return;
    }
    let served = |crd: &Manifest| -> BTreeSet<String> {
        items(at(&crd.node, &["spec", "versions"]))
            .iter()
            .filter(|v| !is_false(v.get("served")))
            .filter_map(|v| text(v.get("name")).map(str::to_owned))
            .collect()
    };
    let dropped: Vec<String> = served(before).difference(&served(after)).cloned().collect();
    if dropped.is_empty() {
        return;
    }
    let (group, kind) = defines(after);
    let why = format!(
        "{group} {} no longer served: every client and manifest of {kind} at that version fails (and the API server refuses to drop a version objects are still stored as)",
        listed(&dropped)
    );
    out.push(Impact::new(Level::Destructive, Class::Deletion, after, why));
}
