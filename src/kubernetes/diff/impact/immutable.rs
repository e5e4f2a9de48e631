//! Fields the API server refuses to change: `kubectl apply` fails with
//! "field is immutable" (or "Forbidden"), and the object has to be deleted
//! and created again. The facts, from the API server's update validation:
//!
//! - `apps/v1` Deployment, DaemonSet, ReplicaSet: `spec.selector`
//!   (<https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#label-selector-updates>:
//!   "In API version apps/v1, a Deployment's label selector is immutable
//!   after it gets created"; `ValidateDaemonSetUpdate`,
//!   `ValidateReplicaSetUpdate` in `pkg/apis/apps/validation`).
//! - StatefulSet: every `spec` field but `replicas`, `template`,
//!   `updateStrategy`, `persistentVolumeClaimRetentionPolicy`, `ordinals`,
//!   `revisionHistoryLimit` and `minReadySeconds` (`ValidateStatefulSetUpdate`:
//!   "updates to statefulset spec for fields other than … are forbidden").
//! - Job: `spec.selector`, `spec.template`, `spec.completionMode`,
//!   `spec.podFailurePolicy` (`ValidateJobSpecUpdate`; a suspended Job's
//!   scheduling directives aside).
//! - Service: `spec.clusterIP` and `spec.clusterIPs` once allocated
//!   (`ValidateServiceUpdate`: "field is immutable").
//! - RoleBinding, ClusterRoleBinding: `roleRef`
//!   (<https://kubernetes.io/docs/reference/access-authn-authz/rbac/#clusterrolebinding-example>:
//!   "After you create a binding, you cannot change the Role or ClusterRole
//!   that it refers to").
//! - PersistentVolumeClaim: its `spec` but `resources` and
//!   `volumeAttributesClassName`, and its storage request never shrinks
//!   (`ValidatePersistentVolumeClaimUpdate`: "spec is immutable after
//!   creation except resources.requests … and volumeAttributesClassName";
//!   "field can not be less than previous value").
//! - StorageClass: `provisioner`, `parameters`, `reclaimPolicy`,
//!   `volumeBindingMode` (`ValidateStorageClassUpdate`).
//! - CustomResourceDefinition: `spec.scope` once established.
//! - Secret: `type`, always (`ValidateSecretUpdate`: "field is immutable").
//! - ConfigMap, Secret marked `immutable: true`: `data`, `binaryData`
//!   (and a Secret's `stringData`, written into `data`) and `immutable` itself (<https://kubernetes.io/docs/concepts/configuration/configmap/#configmap-immutable>).
//! - Pod: its `spec` but containers' images, `activeDeadlineSeconds` and
//!   `tolerations` (`ValidatePodUpdate`: "pod updates may not change fields
//!   other than …").

use super::tree::{is_true, overlaps, text};
use super::{Class, Impact, Level, listed};
use crate::diff::FieldChange;
use crate::manifest::Manifest;

/// Which fields of a kind cannot change.
enum Fields {
    /// These, and everything below them.
    Listed(&'static [&'static [&'static str]]),
    /// Every field under `spec` but these.
    SpecBut(&'static [&'static str]),
}

/// The immutable fields by group and kind.
const RULES: &[(&str, &str, Fields)] = &[
    (
        "apps",
        "Deployment",
        Fields::Listed(&[&["spec", "selector"]]),
    ),
    (
        "apps",
        "DaemonSet",
        Fields::Listed(&[&["spec", "selector"]]),
    ),
    (
        "apps",
        "ReplicaSet",
        Fields::Listed(&[&["spec", "selector"]]),
    ),
    (
        "apps",
        "StatefulSet",
        Fields::SpecBut(&[
            "replicas",
            "template",
            "updateStrategy",
            "persistentVolumeClaimRetentionPolicy",
            "ordinals",
            "revisionHistoryLimit",
            "minReadySeconds",
        ]),
    ),
    (
        "batch",
        "Job",
        Fields::Listed(&[
            &["spec", "selector"],
            &["spec", "template"],
            &["spec", "completionMode"],
            &["spec", "podFailurePolicy"],
        ]),
    ),
    (
        "",
        "Service",
        Fields::Listed(&[&["spec", "clusterIP"], &["spec", "clusterIPs"]]),
    ),
    (
        "rbac.authorization.k8s.io",
        "RoleBinding",
        Fields::Listed(&[&["roleRef"]]),
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        Fields::Listed(&[&["roleRef"]]),
    ),
    (
        "",
        "PersistentVolumeClaim",
        Fields::SpecBut(&["resources", "volumeAttributesClassName"]),
    ),
    (
        "storage.k8s.io",
        "StorageClass",
        Fields::Listed(&[
            &["provisioner"],
            &["parameters"],
            &["reclaimPolicy"],
            &["volumeBindingMode"],
        ]),
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        Fields::Listed(&[&["spec", "scope"]]),
    ),
];

/// Whether the API server refuses the change at `steps` of `object`.
fn refuses(before: &Manifest, steps: &[String]) -> bool {
    let (group, kind) = (before.id.group.as_str(), before.id.kind.as_str());
    if (group, kind) == ("", "Secret") && overlaps(steps, &["type"]) {
        // Compared as defaulted, in `refused`: no type is `Opaque`.
        return true;
    }
    if matches!((group, kind), ("", "ConfigMap" | "Secret")) {
        return is_true(before.node.get("immutable"))
            && ["data", "binaryData", "stringData", "immutable"]
                .iter()
                .any(|key| overlaps(steps, &[key]));
    }
    if (group, kind) == ("", "Pod") {
        return pod_refuses(steps);
    }
    let Some((_, _, fields)) = RULES.iter().find(|(g, k, _)| (*g, *k) == (group, kind)) else {
        return false;
    };
    match fields {
        Fields::Listed(paths) => paths.iter().any(|p| overlaps(steps, p)),
        Fields::SpecBut(allowed) => match steps {
            [spec] => spec == "spec",
            [spec, field, ..] => spec == "spec" && !allowed.contains(&field.as_str()),
            [] => false,
        },
    }
}

/// A Pod's spec is immutable but for its containers' images,
/// `activeDeadlineSeconds` and `tolerations`.
fn pod_refuses(steps: &[String]) -> bool {
    let s: Vec<&str> = steps.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["spec", "containers" | "initContainers", _, "image"] => false,
        ["spec", "activeDeadlineSeconds" | "tolerations", ..] => false,
        ["spec", ..] => true,
        _ => false,
    }
}

/// The changes the API server refuses, as one impact per object.
pub(super) fn refused(
    before: &Manifest,
    after: &Manifest,
    fields: &[FieldChange],
    out: &mut Vec<Impact>,
) {
    let mut paths: Vec<&str> = fields
        .iter()
        .filter(|f| refuses(before, &f.steps))
        .filter(|f| f.steps != ["type"] || secret_type(before) != secret_type(after))
        .map(|f| f.path.as_str())
        .collect();
    let shrinks = shrinking_claim(before, fields);
    if paths.is_empty() && shrinks.is_none() {
        return;
    }
    paths.dedup();
    let mut why = if paths.is_empty() {
        String::new()
    } else {
        format!("cannot change {}", listed(&paths))
    };
    if let Some(shrinks) = shrinks {
        if !why.is_empty() {
            why += "; ";
        }
        why += &shrinks;
    }
    why += ": the API server refuses the apply; delete the object and create it again";
    if super::workload::template(after).is_some() {
        why += " (its pods go with it)";
    } else if before.id.kind == "PersistentVolumeClaim" {
        why += " (its volume goes with it when the reclaim policy is Delete)";
    }
    out.push(Impact::new(Level::Refused, Class::Immutable, after, why));
}

/// A Secret's type as the API server stores it: `Opaque` when none is
/// written.
fn secret_type(secret: &Manifest) -> &str {
    text(secret.node.get("type"))
        .filter(|t| !t.is_empty())
        .unwrap_or("Opaque")
}

/// A PersistentVolumeClaim's storage request made smaller: volumes only
/// grow.
fn shrinking_claim(before: &Manifest, fields: &[FieldChange]) -> Option<String> {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("", "PersistentVolumeClaim") {
        return None;
    }
    let field = fields
        .iter()
        .find(|f| f.steps == ["spec", "resources", "requests", "storage"])?;
    let (old, new) = (field.old.as_ref()?.as_str()?, field.new.as_ref()?.as_str()?);
    let (from, to) = (
        crate::quantity::Quantity::parse(old).ok()?,
        crate::quantity::Quantity::parse(new).ok()?,
    );
    (to < from)
        .then(|| format!("its storage request shrinks from {old} to {new} (volumes only grow)"))
}
