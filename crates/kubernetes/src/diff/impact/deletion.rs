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
//! - Any other object the new set still needs (`REFERENCED`): a
//!   ConfigMap, Secret, claim, class or trust bundle a pod needs to start,
//!   what a claim is provisioned with.
//! - A PersistentVolumeClaim: its volume goes with it when the reclaim
//!   policy is `Delete` (the default of dynamically provisioned volumes).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::tree::{at, is, is_false, items, text};
use super::workload::pod_spec;
use super::{Class, Impact, Level, Sets, listed};
use crate::manifest::Manifest;
use crate::tree::{self, Use};
use crate::yaml::Node;

use crate::manifest::CRD;

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
    // One pass over the new set, only when a removed object could be named.
    let named = |m: &&&Manifest| REFERENCED.iter().any(|&(g, k, _)| is(m, g, k));
    let users = if removed.iter().any(|m| named(&m)) {
        references(sets.new)
    } else {
        HashMap::new()
    };
    for object in removed {
        if let Some(why) = deleted(object, sets, &contents, &users) {
            out.push(Impact::new(
                Level::Destructive,
                Class::Deletion,
                object,
                format!("removed: {why}"),
            ));
        }
    }
}

/// What deleting `object` takes or breaks besides it, if anything:
/// `contents`, the kinds in each removed namespace; `users`, what of the
/// new set names each object ([`references`]).
pub(super) fn deleted(
    object: &Manifest,
    sets: Sets<'_>,
    contents: &BTreeMap<&str, BTreeMap<&str, usize>>,
    users: &HashMap<Reference<'_>, Vec<String>>,
) -> Option<String> {
    let id = &object.id;
    let namespace = id.namespace.as_deref().unwrap_or_default();
    let named = users
        .get(&(id.kind.as_str(), namespace, id.name.as_str()))
        .filter(|_| {
            REFERENCED
                .iter()
                .any(|&(group, kind, _)| is(object, group, kind))
        });
    let named_by = |users: &Vec<String>| format!("still named by {} of the new set", listed(users));
    match (id.group.as_str(), id.kind.as_str()) {
        ("", "Namespace") => Some(namespace_contents(contents.get(id.name.as_str()))),
        CRD => Some(crd_removed(object, sets)),
        ("", "PersistentVolumeClaim") => {
            let mut why = "its volume goes with it when the volume's reclaim policy is Delete (the default of dynamically provisioned volumes)".to_owned();
            if let Some(users) = named {
                why += &format!("; {}: their pods cannot start without it", named_by(users));
            }
            Some(why)
        }
        ("", "PersistentVolume") => {
            let mut why =
                "a claim bound to it loses its volume (the claim becomes Lost)".to_owned();
            if text(at(
                object.node(),
                &["spec", "persistentVolumeReclaimPolicy"],
            )) == Some("Delete")
            {
                why += ", and its storage is deleted (reclaim policy Delete)";
            }
            if let Some(users) = named {
                why += &format!("; {}", named_by(users));
            }
            Some(why)
        }
        ("apps", "StatefulSet") => claims_deleted(object),
        (group, kind) if !crate::kube::is_built_in(group, kind) => {
            Some(custom_resource(object, sets))
        }
        _ => named.map(|users| {
            let what = REFERENCED
                .iter()
                .find(|&&(group, kind, _)| is(object, group, kind))
                .map_or("", |&(_, _, what)| what);
            format!("{}: {what}", named_by(users))
        }),
    }
}

/// The kinds a pod, a claim or a binding names, and what deleting one that
/// is still named breaks.
const REFERENCED: [(&str, &str, &str); 12] = [
    (
        "",
        "ServiceAccount",
        "a pod running as it can no longer be created",
    ),
    (
        "",
        "ConfigMap",
        "their pods cannot start without it (it is not optional)",
    ),
    (
        "",
        "Secret",
        "their pods cannot start without it (it is not optional)",
    ),
    (
        "",
        "PersistentVolumeClaim",
        "their pods cannot start without it",
    ),
    ("", "PersistentVolume", "its claim loses its volume"),
    (
        "scheduling.k8s.io",
        "PriorityClass",
        "a pod naming it can no longer be created",
    ),
    (
        "node.k8s.io",
        "RuntimeClass",
        "a pod naming it can no longer be created",
    ),
    (
        "storage.k8s.io",
        "StorageClass",
        "a claim naming it is no longer provisioned",
    ),
    (
        "storage.k8s.io",
        "VolumeAttributesClass",
        "a claim naming it is no longer provisioned",
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "their pods cannot start without it",
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "their pods cannot start without it: their claims are made from it",
    ),
    (
        "certificates.k8s.io",
        "ClusterTrustBundle",
        "their pods cannot start without it (it is not optional)",
    ),
];

/// A custom resource: the input of the controller of its kind (an
/// operator), which acts on its deletion.
fn custom_resource(object: &Manifest, sets: Sets<'_>) -> String {
    let (group, kind) = (object.id.group.as_str(), object.id.kind.as_str());
    let defined =
        sets.old.iter().chain(sets.new).find(|m| {
            (m.id.group.as_str(), m.id.kind.as_str()) == CRD && defines(m) == (group, kind)
        });
    let crd = match defined {
        Some(crd) => format!("defined by {}", crd.id),
        None => format!("{kind} of {group}, not built into Kubernetes"),
    };
    format!(
        "a custom resource ({crd}): the input of the controller of its kind, which deletes or stops what it made for it"
    )
}

/// A StatefulSet whose claims are deleted with it
/// (`persistentVolumeClaimRetentionPolicy.whenDeleted: Delete`).
fn claims_deleted(object: &Manifest) -> Option<String> {
    let policy = at(
        object.node(),
        &[
            "spec",
            "persistentVolumeClaimRetentionPolicy",
            "whenDeleted",
        ],
    );
    let templates = claim_templates(object);
    (text(policy) == Some("Delete") && !templates.is_empty()).then(|| {
        format!(
            "the claims of its volumeClaimTemplates ({}) are deleted with it (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete), and their volumes when the reclaim policy is Delete",
            listed(&templates)
        )
    })
}

/// The names of a StatefulSet's volumeClaimTemplates.
pub(super) fn claim_templates(object: &Manifest) -> Vec<&str> {
    items(at(object.node(), &["spec", "volumeClaimTemplates"]))
        .iter()
        .filter_map(|t| text(at(t, &["metadata", "name"])))
        .collect()
}

/// An object a pod, a claim or a binding names: (kind, namespace, name),
/// the namespace empty for a cluster-scoped kind.
pub(super) type Reference<'a> = (&'a str, &'a str, &'a str);

/// What each object of `set` names, by the objects it names: a binding its
/// ServiceAccounts; a pod (or a workload's pod template) its
/// ServiceAccount, PriorityClass, RuntimeClass, and the ConfigMaps,
/// Secrets and claims its volumes and containers need (not those marked
/// optional); a claim (or a volumeClaimTemplate) its StorageClass and
/// volume.
pub(super) fn references(set: &[Manifest]) -> HashMap<Reference<'_>, Vec<String>> {
    let mut users: HashMap<Reference<'_>, Vec<String>> = HashMap::new();
    for object in set {
        let namespace = object.id.namespace.as_deref().unwrap_or("default");
        let mut named: Vec<Reference<'_>> = Vec::new();
        if matches!(
            object.id.kind.as_str(),
            "RoleBinding" | "ClusterRoleBinding"
        ) && object.id.group == "rbac.authorization.k8s.io"
        {
            for subject in items(object.node().get("subjects")) {
                if text(subject.get("kind")) != Some("ServiceAccount") {
                    continue;
                }
                let namespace = text(subject.get("namespace"))
                    .filter(|ns| !ns.is_empty())
                    .or(object.id.namespace.as_deref())
                    .unwrap_or("default");
                if let Some(name) = text(subject.get("name")) {
                    named.push(("ServiceAccount", namespace, name));
                }
            }
        } else if let Some(spec) = pod_spec(object) {
            pod_references(spec, namespace, &mut named);
        }
        if is(object, "", "PersistentVolumeClaim") {
            claim_references(object.node().get("spec"), &mut named);
        }
        if is(object, "apps", "StatefulSet") {
            for template in items(at(object.node(), &["spec", "volumeClaimTemplates"])) {
                claim_references(template.get("spec"), &mut named);
            }
        }
        named.sort_unstable();
        named.dedup();
        for reference in named {
            users
                .entry(reference)
                .or_default()
                .push(object.id.to_string());
        }
    }
    users
}

/// What a pod spec in `namespace` needs to start ([`tree::pod_references`]):
/// its ServiceAccount (the namespace's `default` when it names none), and
/// every object it names but optional ones and image pull secrets (without
/// one the pull is tried anonymously).
fn pod_references<'a>(spec: &'a Node, namespace: &'a str, named: &mut Vec<Reference<'a>>) {
    let mut account = "default";
    for reference in tree::pod_references(spec) {
        match reference.how {
            Use::RunsAs => account = reference.name,
            Use::PullsImagesWith => {}
            _ if reference.optional => {}
            _ => {
                let namespace = if reference.in_pods_namespace() {
                    namespace
                } else {
                    ""
                };
                named.push((reference.kind, namespace, reference.name));
            }
        }
    }
    named.push(("ServiceAccount", namespace, account));
}

/// What a claim's spec names ([`tree::claim_references`]).
fn claim_references<'a>(spec: Option<&'a Node>, named: &mut Vec<Reference<'a>>) {
    // Each of a claim's is cluster-scoped.
    let found = spec.into_iter().flat_map(tree::claim_references);
    named.extend(found.map(|reference| (reference.kind, "", reference.name)));
}

/// The kinds of objects of `set` in each of `namespaces`, with counts.
pub(super) fn kinds_in<'a>(
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

fn namespace_contents(kinds: Option<&BTreeMap<&str, usize>>) -> String {
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
    let spec = crd.node().get("spec");
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

/// A changed CRD that stops serving a version.
pub(super) fn changed(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    if (before.id.group.as_str(), before.id.kind.as_str()) != CRD {
        return;
    }
    let served = |crd: &Manifest| -> BTreeSet<String> {
        items(at(crd.node(), &["spec", "versions"]))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A pod names its Secrets in every volume that logs in with one, not
    /// only in `secret` volumes; a deleted Secret then breaks it.
    #[test]
    fn a_pod_uses_the_secrets_its_volume_plugins_log_in_with() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers: [{name: c, image: i}]\n  volumes:\n  - {name: a, csi: {driver: d, nodePublishSecretRef: {name: csi}}}\n  - {name: b, cephfs: {monitors: [m], secretRef: {name: ceph}}}\n  - {name: c, secret: {secretName: s, optional: true}}\n";
        let set = crate::input::parse("t", text).unwrap().manifests;
        let users = references(&set);
        for secret in ["csi", "ceph"] {
            assert_eq!(
                users.get(&("Secret", "ns", secret)),
                Some(&vec!["Pod ns/p".to_owned()]),
                "{secret}: {users:?}"
            );
        }
        // An optional Secret: the pod starts without it.
        assert_eq!(users.get(&("Secret", "ns", "s")), None);
    }

    /// Every kind a pod or a claim needs, removed while the new set still
    /// names it, is said to break what names it: dynamic resource claims,
    /// trust bundles and volume attributes classes as much as Secrets.
    #[test]
    fn a_removed_object_the_new_set_still_needs_is_named_whatever_its_kind() {
        let new = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n      resourceClaims: [{name: gpu, resourceClaimName: gpu}, {name: fpga, resourceClaimTemplateName: fpga}]\n      volumes: [{name: ca, projected: {sources: [{clusterTrustBundle: {name: roots, path: ca.pem}}]}}, {name: e, ephemeral: {volumeClaimTemplate: {spec: {volumeAttributesClassName: gold, volumeName: ''}}}}]\n";
        let old = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: gpu, namespace: ns}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: fpga, namespace: ns}\n---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\nmetadata: {name: roots}\n---\napiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata: {name: gold}\ndriverName: d\n";
        let (old, new) = (
            crate::input::parse("old", old).unwrap().manifests,
            crate::input::parse("new", new).unwrap().manifests,
        );
        let users = references(&new);
        let sets = Sets {
            old: &old,
            new: &new,
            minor: 35,
            declared: None,
        };
        let said: Vec<String> = (old.iter())
            .map(|object| deleted(object, sets, &BTreeMap::new(), &users).unwrap_or_default())
            .collect();
        for why in &said {
            assert!(
                why.starts_with("still named by Deployment ns/d of the new set: "),
                "{said:#?}"
            );
        }
        // An empty volumeName names no PersistentVolume.
        assert!(!users.keys().any(|(kind, ..)| *kind == "PersistentVolume"));
    }

    /// What a pod needs to start: its ServiceAccount (`default` when it
    /// names none, an empty name being none), its classes (cluster-scoped,
    /// an ephemeral volume's StorageClass too) and claims (dynamic resource
    /// claims too); not its image pull secrets, nor empty names.
    #[test]
    fn a_pod_needs_its_account_classes_and_claims_but_not_its_pull_secrets() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  template:\n    spec:\n      serviceAccountName: ''\n      priorityClassName: high\n      runtimeClassName: ''\n      imagePullSecrets: [{name: pull}]\n      containers: [{name: c, image: i, envFrom: [{configMapRef: {name: env}}]}]\n      volumes: [{name: v, persistentVolumeClaim: {claimName: data}}, {name: s, ephemeral: {volumeClaimTemplate: {spec: {storageClassName: fast}}}}]\n      resourceClaims: [{name: gpu, resourceClaimName: gpu-claim}, {name: fpga, resourceClaimTemplateName: fpga}]\n";
        let set = crate::input::parse("t", text).unwrap().manifests;
        let mut needed: Vec<Reference<'_>> = references(&set).into_keys().collect();
        needed.sort_unstable();
        assert_eq!(
            needed,
            [
                ("ConfigMap", "ns", "env"),
                ("PersistentVolumeClaim", "ns", "data"),
                ("PriorityClass", "", "high"),
                ("ResourceClaim", "ns", "gpu-claim"),
                ("ResourceClaimTemplate", "ns", "fpga"),
                ("ServiceAccount", "ns", "default"),
                ("StorageClass", "", "fast"),
            ]
        );
    }
}
