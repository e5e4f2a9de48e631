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
//! - Job: `spec.selector`, `spec.completionMode`, `spec.podFailurePolicy`,
//!   `spec.backoffLimitPerIndex`, `spec.managedBy`, `spec.successPolicy`;
//!   `spec.completions` but of an Indexed Job changed in tandem with
//!   `spec.parallelism`; `spec.template`, but of a Job suspended (that never
//!   started) its labels, annotations, `nodeSelector`, `tolerations`,
//!   `schedulingGates` and node affinity (`ValidateJobSpecUpdate`,
//!   `validateCompletions`, `validatePodTemplateUpdate`).
//! - Service: `spec.clusterIP` and `spec.clusterIPs` once allocated
//!   (`ValidateServiceUpdate`, `validateUpgradeDowngradeClusterIPs`): a
//!   new address is refused; an address dropped from the manifest or
//!   written `""` keeps the allocated one ([`crate::diff`]'s defaults: no
//!   change at all).
//! - RuntimeClass: `handler` (`ValidateRuntimeClassUpdate`).
//! - PriorityClass: `value`, `preemptionPolicy` (`ValidatePriorityClassUpdate`).
//! - IngressClass: `spec.controller` (`validateIngressClassSpecUpdate`).
//! - CSIDriver: `spec.attachRequired`, `spec.volumeLifecycleModes`
//!   (`ValidateCSIDriverUpdate`).
//! - RoleBinding, ClusterRoleBinding: `roleRef`
//!   (<https://kubernetes.io/docs/reference/access-authn-authz/rbac/#clusterrolebinding-example>:
//!   "After you create a binding, you cannot change the Role or ClusterRole
//!   that it refers to").
//! - PersistentVolumeClaim: its `spec` but `resources` and
//!   `volumeAttributesClassName`, and its storage request never shrinks
//!   (`ValidatePersistentVolumeClaimUpdate`: "spec is immutable after
//!   creation except resources.requests … and volumeAttributesClassName";
//!   "field can not be less than previous value"); it grows only when its
//!   StorageClass allows expansion (the `PersistentVolumeClaimResize`
//!   admission: "only dynamically provisioned pvc can be resized and the
//!   storageclass that provisions the pvc must support resize"), read from
//!   either set; a class in neither set is not judged.
//! - StorageClass: `provisioner`, `parameters`, `reclaimPolicy`,
//!   `volumeBindingMode` (`ValidateStorageClassUpdate`).
//! - CustomResourceDefinition: `spec.scope` once established, and a
//!   version stored (the old set's `storage: true` one) dropped from
//!   `spec.versions` (`ValidateCustomResourceDefinitionUpdate`: "must
//!   appear in spec.versions" of `status.storedVersions`).
//! - Secret: `type`, always (`ValidateSecretUpdate`: "field is immutable").
//! - StatefulSet's `volumeClaimTemplates`: what the server defaults in them
//!   written out is no change, so no refusal.
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
            &["spec", "completionMode"],
            &["spec", "podFailurePolicy"],
            &["spec", "backoffLimitPerIndex"],
            &["spec", "managedBy"],
            &["spec", "successPolicy"],
        ]),
    ),
    (
        "node.k8s.io",
        "RuntimeClass",
        Fields::Listed(&[&["handler"]]),
    ),
    (
        "scheduling.k8s.io",
        "PriorityClass",
        Fields::Listed(&[&["value"], &["preemptionPolicy"]]),
    ),
    (
        "networking.k8s.io",
        "IngressClass",
        Fields::Listed(&[&["spec", "controller"]]),
    ),
    (
        "storage.k8s.io",
        "CSIDriver",
        Fields::Listed(&[
            &["spec", "attachRequired"],
            &["spec", "volumeLifecycleModes"],
        ]),
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
fn refuses(before: &Manifest, after: &Manifest, field: &FieldChange) -> bool {
    let steps = field.steps.as_slice();
    let (group, kind) = (before.id.group.as_str(), before.id.kind.as_str());
    if (group, kind) == ("batch", "Job") {
        return job_refuses(before, after, steps);
    }
    if (group, kind) == ("", "Service") {
        return service_refuses(before, after, field);
    }
    if (group, kind) == ("", "Secret") && overlaps(steps, &["type"]) {
        // Compared as defaulted, in `refused`: no type is `Opaque`.
        return true;
    }
    if matches!((group, kind), ("", "ConfigMap" | "Secret")) {
        return is_true(before.node().get("immutable"))
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

/// A Job's immutable fields ([`RULES`]), its `completions` and its
/// template.
fn job_refuses(before: &Manifest, after: &Manifest, steps: &[String]) -> bool {
    let s: Vec<&str> = steps.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["spec", "completions", ..] => {
            // Mutable for an Indexed Job, in tandem with parallelism.
            let indexed = text(
                after
                    .node()
                    .get("spec")
                    .and_then(|s| s.get("completionMode")),
            ) == Some("Indexed");
            let spec = after.node().get("spec");
            let same = |k: &str| spec.and_then(|s| s.get(k)).map(crate::yaml::Node::to_json);
            !(indexed
                && same("completions").is_some()
                && same("completions") == same("parallelism"))
        }
        ["spec", "template", rest @ ..] => {
            let suspended = is_true(before.node().get("spec").and_then(|s| s.get("suspend")));
            !(suspended
                && matches!(
                    rest,
                    ["metadata", "labels" | "annotations", ..]
                        | ["metadata"]
                        | [
                            "spec",
                            "nodeSelector" | "tolerations" | "schedulingGates",
                            ..
                        ]
                        | ["spec", "affinity", "nodeAffinity", ..]
                ))
        }
        [
            "spec",
            "selector"
            | "completionMode"
            | "podFailurePolicy"
            | "backoffLimitPerIndex"
            | "managedBy"
            | "successPolicy",
            ..,
        ] => true,
        ["spec"] => true,
        _ => false,
    }
}

/// A Service's cluster IPs: a new address is refused, unless the Service
/// is or becomes an ExternalName one (which has none).
fn service_refuses(before: &Manifest, after: &Manifest, field: &FieldChange) -> bool {
    let external = |m: &Manifest| {
        text(m.node().get("spec").and_then(|s| s.get("type"))) == Some("ExternalName")
    };
    if external(before) || external(after) {
        return false;
    }
    let s: Vec<&str> = field.steps.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["spec", "clusterIP"] => field
            .new
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|ip| !ip.is_empty()),
        ["spec", "clusterIPs", ..] => field.new.is_some(),
        ["spec"] => field.new.as_ref().is_some_and(|spec| {
            spec.get("clusterIP")
                .and_then(|v| v.as_str())
                .is_some_and(|ip| !ip.is_empty())
        }),
        _ => false,
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
    sets: super::Sets<'_>,
    out: &mut Vec<Impact>,
) {
    let mut paths: Vec<&str> = fields
        .iter()
        .filter(|f| refuses(before, after, f))
        .filter(|f| f.steps != ["type"] || secret_type(before) != secret_type(after))
        .map(|f| f.path.as_str())
        .collect();
    let dropped = dropped_stored_version(before, after);
    if let Some(version) = &dropped {
        paths.push(version);
    }
    if recreate_over_defaulted_rolling_update(before, after) {
        paths
            .push("spec.strategy.type (Recreate; the server keeps the rollingUpdate it defaulted)");
    }
    let shrinks = shrinking_claim(before, fields).or_else(|| growing_claim(before, fields, sets));
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
    text(secret.node().get("type"))
        .filter(|t| !t.is_empty())
        .unwrap_or("Opaque")
}

/// A Deployment switched to the `Recreate` strategy while its
/// `rollingUpdate` was the server's default, never written: server-side
/// apply removes only what the manifest wrote, the defaulted
/// `rollingUpdate` stays, and validation forbids it beside `Recreate`
/// ("may not be specified when strategy `type` is 'Recreate'").
fn recreate_over_defaulted_rolling_update(before: &Manifest, after: &Manifest) -> bool {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("apps", "Deployment") {
        return false;
    }
    fn strategy(m: &Manifest) -> Option<&crate::yaml::Node> {
        super::tree::at(m.node(), &["spec", "strategy"])
    }
    let kind = |m| text(strategy(m).and_then(|s| s.get("type")));
    kind(after) == Some("Recreate")
        && matches!(kind(before), None | Some("RollingUpdate"))
        && strategy(before)
            .and_then(|s| s.get("rollingUpdate"))
            .is_none()
}

/// `spec.versions[V]` when a CRD's stored version `V` (the old one's
/// `storage: true`) is not in the new one's versions.
fn dropped_stored_version(before: &Manifest, after: &Manifest) -> Option<String> {
    if (before.id.group.as_str(), before.id.kind.as_str()) != crate::manifest::CRD {
        return None;
    }
    let versions = |m: &Manifest| {
        super::tree::items(super::tree::at(m.node(), &["spec", "versions"])).to_vec()
    };
    let stored = versions(before)
        .into_iter()
        .find(|v| is_true(v.get("storage")))
        .and_then(|v| text(v.get("name")).map(str::to_owned))?;
    let kept = versions(after)
        .iter()
        .any(|v| text(v.get("name")) == Some(stored.as_str()));
    (!kept).then(|| format!("spec.versions[{stored}] (stored)"))
}

/// A PersistentVolumeClaim's storage request grown while its StorageClass
/// (found in either set) does not allow expansion.
fn growing_claim(
    before: &Manifest,
    fields: &[FieldChange],
    sets: super::Sets<'_>,
) -> Option<String> {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("", "PersistentVolumeClaim") {
        return None;
    }
    let field = fields
        .iter()
        .find(|f| f.steps == ["spec", "resources", "requests", "storage"])?;
    let class = text(super::tree::at(
        before.node(),
        &["spec", "storageClassName"],
    ))?;
    let storage_class = sets.new.iter().chain(sets.old).find(|m| {
        (m.id.group.as_str(), m.id.kind.as_str(), m.id.name.as_str())
            == ("storage.k8s.io", "StorageClass", class)
    })?;
    if is_true(storage_class.node().get("allowVolumeExpansion")) {
        return None;
    }
    let show = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "nothing".to_owned(),
    };
    Some(format!(
        "its storage request grows from {} to {} but StorageClass {class} does not allow volume expansion",
        show(&field.old),
        show(&field.new)
    ))
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
    let (old, new) = (field.old.as_ref()?, field.new.as_ref()?);
    let (from, to) = (
        crate::quantity::of_value(old)?.ok()?,
        crate::quantity::of_value(new)?.ok()?,
    );
    let shown = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let (old, new) = (shown(old), shown(new));
    (to < from)
        .then(|| format!("its storage request shrinks from {old} to {new} (volumes only grow)"))
}
