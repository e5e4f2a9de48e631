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
//!   `spec.completions` as stored ([`job_counts`]: dropping `parallelism`
//!   where no `completions` was written makes the server write 1) but of
//!   an Indexed Job changed in tandem with `spec.parallelism`;
//!   `spec.template`, but of a Job suspended (that never started) its
//!   labels, annotations, `nodeSelector`, `tolerations`,
//!   `schedulingGates` and node affinity, an `affinity` of node affinity
//!   alone added or dropped whole (`ValidateJobSpecUpdate`,
//!   `validateCompletions`, `validatePodTemplateUpdate`); the template's
//!   `metadata` or `labels` left out where the old manifest wrote them
//!   (server-side apply removes the map whole, the generated labels too).
//! - Service: its first IP family while it keeps a cluster IP (the old
//!   manifest's, else its cluster IP's, else IPv4:
//!   `validateUpgradeDowngradeIPFamilies`); `spec.clusterIP` and `spec.clusterIPs` once allocated
//!   (`ValidateServiceUpdate`, `validateUpgradeDowngradeClusterIPs`): a
//!   new address is refused; an address dropped from the manifest or
//!   written `""` keeps the allocated one ([`crate::diff`]'s defaults: no
//!   change at all); a LoadBalancer's `spec.loadBalancerClass` while it
//!   stays one (`validateLoadBalancerClassField`: "may not change once
//!   set"); a health-check node port written anew while it keeps the
//!   `Local` policy (`validateServiceExternalTrafficFieldsUpdate`).
//! - RuntimeClass: `handler` (`ValidateRuntimeClassUpdate`).
//! - PriorityClass: `value`, `preemptionPolicy` (`ValidatePriorityClassUpdate`).
//! - IngressClass: `spec.controller` (`validateIngressClassSpecUpdate`).
//! - CSIDriver: `spec.attachRequired`, `spec.volumeLifecycleModes`
//!   (`ValidateCSIDriverUpdate`).
//! - ResourceClaim, ResourceClaimTemplate: `spec`; VolumeAttributesClass:
//!   `driverName`, `parameters`; CSIStorageCapacity: `storageClassName`,
//!   `nodeTopology`; EndpointSlice: `addressType`; IPAddress:
//!   `spec.parentRef`; ControllerRevision: `data` (each measured on
//!   v1.35.4).
//! - RoleBinding, ClusterRoleBinding: `roleRef`
//!   (<https://kubernetes.io/docs/reference/access-authn-authz/rbac/#clusterrolebinding-example>:
//!   "After you create a binding, you cannot change the Role or ClusterRole
//!   that it refers to").
//! - PersistentVolumeClaim: its `spec` but `resources.requests` and
//!   `volumeAttributesClassName` (and a `storageClassName` set where none
//!   was: `validateStorageClassUpgradeFromNil`; a `volumeName` too, which
//!   the server lets be set once only while the claim is unbound, and a
//!   claim is usually bound at once), and its storage request never shrinks
//!   (`ValidatePersistentVolumeClaimUpdate`: "spec is immutable after
//!   creation except resources.requests … and volumeAttributesClassName";
//!   "field can not be less than previous value"); it grows only when its
//!   StorageClass allows expansion (the `PersistentVolumeClaimResize`
//!   admission: "only dynamically provisioned pvc can be resized and the
//!   storageclass that provisions the pvc must support resize"), read from
//!   either set (a claim of `storageClassName: ""` never grows); a class
//!   in neither set is not judged.
//! - StorageClass: `provisioner`, `parameters`, `reclaimPolicy`,
//!   `volumeBindingMode` (`ValidateStorageClassUpdate`).
//! - PersistentVolume: its source but a CSI `controllerExpandSecretRef`
//!   set where there was none, `volumeMode`, `nodeAffinity` once set, a
//!   `volumeAttributesClassName` dropped (`ValidatePersistentVolumeUpdate`).
//! - ResourceQuota: `spec.scopes`, as a set (`ValidateResourceQuotaUpdate`).
//! - A Deployment switched to `Recreate`, a StatefulSet to `OnDelete`,
//!   over the `rollingUpdate` the server defaulted (server-side apply
//!   keeps it; validation forbids it beside the new type).
//! - An amount of a resource list in another notation is no refusal: the
//!   update validation compares amounts by value (`apiequality.Semantic`).
//! - ResourceSlice: `spec.driver`, `spec.pool.name`, `spec.nodeName`;
//!   ServiceCIDR: `spec.cidrs`, but a second range of the other family
//!   added (each measured on v1.35.4).
//! - CustomResourceDefinition: `spec.scope` and `spec.names.kind` once
//!   established, and a
//!   version stored (the old set's `storage: true` one) dropped from
//!   `spec.versions` (`ValidateCustomResourceDefinitionUpdate`: "must
//!   appear in spec.versions" of `status.storedVersions`).
//! - Secret: `type`, always (`ValidateSecretUpdate`: "field is immutable").
//! - StatefulSet's `volumeClaimTemplates`: what the server defaults in them
//!   written out is no change, so no refusal.
//! - ConfigMap, Secret marked `immutable: true`: `data`, `binaryData`
//!   (and a Secret's `stringData`, written into `data`) and `immutable`
//!   itself
//!   (<https://kubernetes.io/docs/concepts/configuration/configmap/#configmap-immutable>).
//! - Pod: its `spec` but containers' images, `activeDeadlineSeconds` set
//!   or lowered, tolerations added (an existing one's `tolerationSeconds`
//!   changed), scheduling gates removed, and while gated, `nodeSelector`
//!   entries added and required node affinity narrowed
//!   (`ValidatePodUpdate`: "pod updates may not change fields other than
//!   …").
//! - A map the update validation compares with Go's `reflect.DeepEqual`,
//!   written empty (`{}`): the stored object holds no empty map, the
//!   applied one does, so every update is refused, one that changes
//!   nothing too ([`empty_map_written`]).

use serde_json::Value as Json;

use super::tree::{is_true, overlaps, text};
use super::{Class, Impact, Level, listed};
use crate::diff::FieldChange;
use crate::diff::defaults::{JOB_COUNTS, job_counts};
use crate::manifest::Manifest;

/// Which fields of a kind cannot change.
enum Fields {
    /// These, and everything below them.
    Listed(&'static [&'static [&'static str]]),
    /// Every field under `spec` but these (paths below `spec`), and what
    /// is below them.
    SpecBut(&'static [&'static [&'static str]]),
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
            &["replicas"],
            &["template"],
            &["updateStrategy"],
            &["persistentVolumeClaimRetentionPolicy"],
            &["ordinals"],
            &["revisionHistoryLimit"],
            &["minReadySeconds"],
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
        Fields::SpecBut(&[&["resources", "requests"], &["volumeAttributesClassName"]]),
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
        Fields::Listed(&[&["spec", "scope"], &["spec", "names", "kind"]]),
    ),
    (
        "resource.k8s.io",
        "ResourceSlice",
        Fields::Listed(&[
            &["spec", "driver"],
            &["spec", "pool", "name"],
            &["spec", "nodeName"],
        ]),
    ),
    // Measured on v1.35.4 (`field is immutable`, `updates to … are
    // forbidden`).
    (
        "resource.k8s.io",
        "ResourceClaim",
        Fields::Listed(&[&["spec"]]),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        Fields::Listed(&[&["spec"]]),
    ),
    (
        "storage.k8s.io",
        "VolumeAttributesClass",
        Fields::Listed(&[&["driverName"], &["parameters"]]),
    ),
    (
        "storage.k8s.io",
        "CSIStorageCapacity",
        Fields::Listed(&[&["storageClassName"], &["nodeTopology"]]),
    ),
    (
        "discovery.k8s.io",
        "EndpointSlice",
        Fields::Listed(&[&["addressType"]]),
    ),
    (
        "networking.k8s.io",
        "IPAddress",
        Fields::Listed(&[&["spec", "parentRef"]]),
    ),
    ("apps", "ControllerRevision", Fields::Listed(&[&["data"]])),
];

/// Whether the API server refuses the change at `steps` of `object`;
/// `pod` is a bare Pod's two specs, read once for all its fields.
fn refuses(
    before: &Manifest,
    after: &Manifest,
    field: &FieldChange,
    pod: &PodSpecs,
    sets: super::Sets<'_>,
) -> bool {
    let steps = field.steps.as_slice();
    let (group, kind) = (before.id.group.as_str(), before.id.kind.as_str());
    if (group, kind) == ("batch", "Job") {
        return job_refuses(before, field);
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
        let (old, new) = pod.get_or_init(|| stored_specs(before, after, sets));
        return pod_refuses(old, new, steps);
    }
    if (group, kind) == ("networking.k8s.io", "ServiceCIDR") && overlaps(steps, &["spec", "cidrs"])
    {
        return !dual_stack_upgrade(before, after);
    }
    if (group, kind) == ("", "PersistentVolumeClaim")
        && steps == ["spec", "storageClassName"]
        && field.old.is_none()
    {
        // Set where none was (`validateStorageClassUpgradeFromNil`), unless
        // the beta annotation named another class.
        let annotation = super::tree::at(
            before.node(),
            &[
                "metadata",
                "annotations",
                "volume.beta.kubernetes.io/storage-class",
            ],
        );
        return text(annotation)
            .is_some_and(|class| field.new.as_ref().and_then(|n| n.as_str()) != Some(class));
    }
    if (group, kind) == ("", "PersistentVolume") {
        return volume_refuses(before, after, field);
    }
    let Some((_, _, fields)) = RULES.iter().find(|(g, k, _)| (*g, *k) == (group, kind)) else {
        return false;
    };
    match fields {
        Fields::Listed(paths) => paths.iter().any(|p| overlaps(steps, p)),
        Fields::SpecBut(allowed) => match steps {
            [spec, below @ ..] if spec == "spec" => !allowed.iter().any(|path| {
                below.len() >= path.len() && below.iter().zip(*path).all(|(a, b)| a == b)
            }),
            _ => false,
        },
    }
}

/// A Job's immutable fields ([`RULES`]), its `completions` and its
/// template.
fn job_refuses(before: &Manifest, field: &FieldChange) -> bool {
    let s: Vec<&str> = field.steps.iter().map(String::as_str).collect();
    match s.as_slice() {
        // As stored, in `refused`.
        ["spec", "completions", ..] => false,
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
                )
                || suspended && rest == ["spec", "affinity"] && node_affinity_only(field))
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

/// Whether an `affinity` added or dropped whole holds nothing but node
/// affinity (`validatePodTemplateUpdate`: a suspended Job's may come and
/// go so).
fn node_affinity_only(field: &FieldChange) -> bool {
    [&field.old, &field.new]
        .into_iter()
        .flatten()
        .all(|affinity| {
            (affinity.as_object().into_iter().flatten())
                .all(|(key, value)| key == "nodeAffinity" || value.is_null())
        })
}

/// A Service's cluster IPs: a new address is refused, unless the Service
/// is or becomes an ExternalName one (which has none); its
/// `loadBalancerClass` while it stays a LoadBalancer; a new health-check
/// node port while it keeps the `Local` policy.
fn service_refuses(before: &Manifest, after: &Manifest, field: &FieldChange) -> bool {
    let external = |m: &Manifest| {
        text(m.node().get("spec").and_then(|s| s.get("type"))) == Some("ExternalName")
    };
    if external(before) || external(after) {
        return false;
    }
    let s: Vec<&str> = field.steps.iter().map(String::as_str).collect();
    let balancer = |m: &Manifest| {
        text(m.node().get("spec").and_then(|s| s.get("type"))) == Some("LoadBalancer")
    };
    match s.as_slice() {
        ["spec", "loadBalancerClass"] => balancer(before) && balancer(after),
        // Allocated once, it may not change (dropped, the server keeps it).
        ["spec", "healthCheckNodePort"] => {
            let local = |m: &Manifest| {
                balancer(m)
                    && text(super::tree::at(
                        m.node(),
                        &["spec", "externalTrafficPolicy"],
                    )) == Some("Local")
            };
            local(before) && local(after) && field.new.as_ref().is_some_and(|p| p != 0)
        }
        ["spec", "clusterIP"] => field
            .new
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|ip| !ip.is_empty()),
        ["spec", "clusterIPs", ..] => field.new.is_some(),
        ["spec", "ipFamilies", ..] => primary_family_changes(before, after),
        ["spec"] => field.new.as_ref().is_some_and(|spec| {
            spec.get("clusterIP")
                .and_then(|v| v.as_str())
                .is_some_and(|ip| !ip.is_empty())
        }),
        _ => false,
    }
}

/// Whether a Service that keeps a cluster IP (neither headless nor an
/// `ExternalName` on either side) writes a first IP family other than the
/// one it has (`validateUpgradeDowngradeIPFamilies`: "may not change once
/// set"; the allocated `clusterIPs` stay, of the old family): the old
/// one's first written family, else its cluster IP's, else IPv4, the
/// family of a cluster's first service range where it is single-stack (a
/// review's server was).
fn primary_family_changes(before: &Manifest, after: &Manifest) -> bool {
    fn spec<'m>(m: &'m Manifest, key: &str) -> Option<&'m crate::yaml::Node> {
        super::tree::at(m.node(), &["spec", key])
    }
    let keeps_ip = |m: &Manifest| {
        text(spec(m, "type")) != Some("ExternalName") && text(spec(m, "clusterIP")) != Some("None")
    };
    if !keeps_ip(before) || !keeps_ip(after) {
        return false;
    }
    let first = |m: &Manifest| {
        super::tree::items(spec(m, "ipFamilies"))
            .first()
            .and_then(|family| text(Some(family)))
            .map(str::to_owned)
    };
    let Some(new) = first(after) else {
        return false;
    };
    let old = first(before).unwrap_or_else(|| {
        let ip = text(spec(before, "clusterIP")).or_else(|| {
            super::tree::items(spec(before, "clusterIPs"))
                .first()
                .and_then(|ip| text(Some(ip)))
        });
        match ip {
            Some(ip) if ip.contains(':') => "IPv6".to_owned(),
            _ => "IPv4".to_owned(),
        }
    });
    new != old
}

/// A PersistentVolume's source (but a CSI `controllerExpandSecretRef`
/// set where there was none), its `volumeMode`, its `nodeAffinity` once
/// set, and its `volumeAttributesClassName` once set, which may change but
/// not go.
fn volume_refuses(before: &Manifest, after: &Manifest, field: &FieldChange) -> bool {
    let s: Vec<&str> = field.steps.iter().map(String::as_str).collect();
    let spec = |m: &Manifest, key: &str| super::tree::at(m.node(), &["spec", key]).is_some();
    match s.as_slice() {
        ["spec", "csi", "controllerExpandSecretRef", ..] => {
            super::tree::at(before.node(), &["spec", "csi", "controllerExpandSecretRef"]).is_some()
        }
        ["spec", source, ..] if crate::api::PERSISTENT_SOURCES.contains(source) => true,
        ["spec", "volumeMode"] => {
            let mode = |m: &Manifest| {
                text(super::tree::at(m.node(), &["spec", "volumeMode"]))
                    .unwrap_or("Filesystem")
                    .to_owned()
            };
            mode(before) != mode(after)
        }
        ["spec", "nodeAffinity", ..] => {
            let affinity = |m: &Manifest| {
                let mut json = super::tree::at(m.node(), &["spec", "nodeAffinity"])
                    .map(crate::yaml::Node::to_json);
                json.as_mut().map(ga_label_keys);
                json
            };
            spec(before, "nodeAffinity") && affinity(before) != affinity(after)
        }
        ["spec", "volumeAttributesClassName"] => {
            spec(before, "volumeAttributesClassName") && !spec(after, "volumeAttributesClassName")
        }
        _ => false,
    }
}

/// The node label keys Kubernetes renamed from beta to GA, beta first
/// (`betaToGALabel`): a PersistentVolume's node affinity may move from one
/// to the other (`getMaskNodeSelectorLabelChangeEqualities`).
const BETA_TO_GA: [(&str, &str); 5] = [
    (
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    ),
    (
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
    ),
    ("beta.kubernetes.io/os", "kubernetes.io/os"),
    ("beta.kubernetes.io/arch", "kubernetes.io/arch"),
];

/// Every `key` in `value` that is a beta node label key made its GA one.
fn ga_label_keys(value: &mut Json) {
    match value {
        Json::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key == "key"
                    && let Some(ga) =
                        (item.as_str()).and_then(|k| BETA_TO_GA.iter().find(|(beta, _)| *beta == k))
                {
                    *item = Json::from(ga.1);
                } else {
                    ga_label_keys(item);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(ga_label_keys),
        _ => {}
    }
}

/// Whether a ReplicationController that writes no selector on either side
/// changes its template's labels so that the old ones are no longer among
/// them: the server filled the selector in from the old labels, server-side
/// apply leaves what no manager wrote, and validation then finds that it
/// does not select the template (measured on v1.35.4).
fn controller_selector_left(before: &Manifest, after: &Manifest) -> bool {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("", "ReplicationController") {
        return false;
    }
    let (old, new) = (spec(before), spec(after));
    let selector = |spec: &Json| spec["selector"].as_object().is_some_and(|s| !s.is_empty());
    if selector(&old) || selector(&new) {
        return false;
    }
    let labels = |spec: &Json| spec["template"]["metadata"]["labels"].clone();
    let (old, new) = (labels(&old), labels(&new));
    !(old.as_object().into_iter().flatten()).all(|(key, value)| new.get(key) == Some(value))
}

/// An object's `spec`, as JSON (`null` when it has none).
fn spec(m: &Manifest) -> Json {
    m.json()["spec"].take()
}

/// A bare Pod's specs before and after, as the server stores them (its
/// defaults and admissions, given what the new set declares: a toleration
/// a RuntimeClass covered is gone before the update is judged), read when
/// its first field is judged.
type PodSpecs = std::cell::OnceCell<(Json, Json)>;

/// [`PodSpecs`]' two specs.
fn stored_specs(before: &Manifest, after: &Manifest, sets: super::Sets<'_>) -> (Json, Json) {
    let (mut old, mut new) = (before.json(), after.json());
    if let Some(as_stored) = crate::diff::defaults::as_stored("", "Pod") {
        match sets.declared {
            Some(declared) => as_stored(&mut old, &mut new, declared),
            None => as_stored(
                &mut old,
                &mut new,
                &crate::diff::defaults::Declared::of(sets.new),
            ),
        }
    }
    (old["spec"].take(), new["spec"].take())
}

/// Whether a ServiceCIDR's `spec.cidrs` go from one range to two, the
/// first kept and the second of the other family: the one change
/// `ValidateServiceCIDRUpdate` allows (measured on v1.35.4).
fn dual_stack_upgrade(before: &Manifest, after: &Manifest) -> bool {
    let cidrs = |m: &Manifest| -> Vec<String> {
        let list = super::tree::at(m.node(), &["spec", "cidrs"]);
        (list
            .and_then(crate::tree::Tree::items)
            .into_iter()
            .flatten())
        .filter_map(|n| text(Some(n)).map(str::to_owned))
        .collect()
    };
    let v6 = |cidr: &str| cidr.contains(':');
    match (cidrs(before).as_slice(), cidrs(after).as_slice()) {
        ([old], [first, second]) => first == old && v6(old) != v6(second),
        _ => false,
    }
}

/// A Pod's spec is immutable but for what `ValidatePodUpdate` allows
/// (each measured on v1.35.4): its containers' images;
/// `activeDeadlineSeconds` set or lowered, never raised nor dropped;
/// tolerations added, an existing one changed in its `tolerationSeconds`
/// alone; scheduling gates removed; and while the stored pod is gated,
/// `nodeSelector` entries added and node affinity changed as long as the
/// required terms are only narrowed (each term's expressions and fields
/// added to, none when there were none). `old` and `new` are the pod's
/// specs; `steps`, the changed field's path.
fn pod_refuses(old: &Json, new: &Json, steps: &[String]) -> bool {
    let s: Vec<&str> = steps.iter().map(String::as_str).collect();
    let gated = || {
        old["schedulingGates"]
            .as_array()
            .is_some_and(|gates| !gates.is_empty())
    };
    match s.as_slice() {
        ["spec", "containers" | "initContainers", _, "image"] => false,
        ["spec", "activeDeadlineSeconds", ..] => {
            let deadline = |spec: &Json| spec["activeDeadlineSeconds"].as_i64();
            match (deadline(old), deadline(new)) {
                (Some(_), None) => true,
                (Some(old), Some(new)) => new > old,
                (None, _) => false,
            }
        }
        ["spec", "tolerations", ..] => !tolerations_kept(old, new),
        ["spec", "schedulingGates", ..] => {
            let names = |spec: &Json| -> Vec<Json> {
                (spec["schedulingGates"].as_array().into_iter().flatten())
                    .map(|g| g["name"].clone())
                    .collect()
            };
            let kept = names(old);
            !names(new).iter().all(|gate| kept.contains(gate))
        }
        ["spec", "nodeSelector", ..] if gated() => {
            let new = &new["nodeSelector"];
            !(old["nodeSelector"].as_object().into_iter().flatten())
                .all(|(key, value)| new.get(key) == Some(value))
        }
        ["spec", "affinity", ..] if gated() => {
            !node_affinity_narrowed(&old["affinity"], &new["affinity"])
        }
        ["spec", ..] => true,
        _ => false,
    }
}

/// Whether every toleration of `old`'s pod spec is in `new`'s, but for
/// its `tolerationSeconds` (`validateOnlyAddedTolerations`: compared as
/// stored, so an `operator: Equal` written where none was is a change).
fn tolerations_kept(old: &Json, new: &Json) -> bool {
    let read = |t: &Json| -> [String; 4] {
        ["key", "operator", "value", "effect"].map(|k| t[k].as_str().unwrap_or_default().to_owned())
    };
    let new: std::collections::HashSet<[String; 4]> =
        (new["tolerations"].as_array().into_iter().flatten())
            .map(read)
            .collect();
    (old["tolerations"].as_array().into_iter().flatten()).all(|t| new.contains(&read(t)))
}

/// Whether a gated pod's `affinity` changes only as allowed: its pod
/// affinities as they were, and its required node affinity's terms, where
/// it had some, the same number, each term's `matchExpressions` and
/// `matchFields` the old ones followed by more.
fn node_affinity_narrowed(old: &Json, new: &Json) -> bool {
    let others = |a: &Json| -> Vec<(String, Json)> {
        (a.as_object().into_iter().flatten())
            .filter(|(k, v)| *k != "nodeAffinity" && !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    if others(old) != others(new) {
        return false;
    }
    let required = |a: &Json| {
        let required = &a["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
        (!required.is_null()).then(|| {
            required["nodeSelectorTerms"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
    };
    let Some(old) = required(old) else {
        return true;
    };
    let new = required(new).unwrap_or_default();
    let extends = |old: &Json, new: &Json| {
        let (old, new) = (
            old.as_array().cloned().unwrap_or_default(),
            new.as_array().cloned().unwrap_or_default(),
        );
        new.len() >= old.len() && old.iter().zip(&new).all(|(a, b)| a == b)
    };
    old.len() == new.len()
        && old.iter().zip(&new).all(|(o, n)| {
            extends(&o["matchExpressions"], &n["matchExpressions"])
                && extends(&o["matchFields"], &n["matchFields"])
        })
}

/// The changes the API server refuses, as one impact per object.
pub(super) fn refused(
    before: &Manifest,
    after: &Manifest,
    fields: &[FieldChange],
    sets: super::Sets<'_>,
    out: &mut Vec<Impact>,
) {
    let pod = PodSpecs::new();
    let mut paths: Vec<&str> = fields
        .iter()
        .filter(|f| !same_amount(f))
        .filter(|f| refuses(before, after, f, &pod, sets))
        .filter(|f| f.steps != ["type"] || secret_type(before) != secret_type(after))
        .map(|f| f.path.as_str())
        .collect();
    let dropped = dropped_stored_version(before, after);
    if let Some(version) = &dropped {
        paths.push(version);
    }
    let defaulted = over_defaulted_rolling_update(before, after);
    paths.extend(defaulted.as_deref());
    if job_labels_dropped(before, after) {
        paths.push("spec.template.metadata.labels (left out, they go whole, the labels the server generated too)");
    }
    if job_completions_change(before, after) {
        paths.push("spec.completions");
    }
    if quota_scopes_change(before, after) {
        paths.push("spec.scopes");
    }
    if controller_selector_left(before, after) {
        paths.push("spec.template.metadata.labels (the selector the server took from the old labels stays, and no longer matches them)");
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

/// Whether an update of `kind` may be refused though nothing changes
/// ([`empty_map_written`]): the kinds to keep when no field changes.
pub(crate) fn may_refuse_unchanged(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("storage.k8s.io", "StorageClass") | ("", "ConfigMap" | "Secret")
    )
}

/// The map the new manifest writes empty (`{}`) where the update
/// validation compares it with the stored one by Go's `reflect.DeepEqual`,
/// which tells an empty map from none: an empty map is never stored, so
/// every update is refused, even one that changes nothing (measured on the
/// server). A StorageClass's `parameters` (`ValidateStorageClassUpdate`);
/// of a ConfigMap stored `immutable`, its `binaryData` (its `data` is
/// defaulted to an empty map on both sides: no matter); of a Secret stored
/// `immutable`, its `data` where no `stringData` fills it
/// (`ValidateConfigMapUpdate`, `ValidateSecretUpdate`).
fn empty_map_written(before: &Manifest, after: &Manifest) -> Option<&'static str> {
    let entries = |key: &str| match after.node().get(key).map(|n| &n.value) {
        Some(crate::yaml::Value::Mapping(entries)) => Some(entries.len()),
        _ => None,
    };
    let stored_immutable = || is_true(before.node().get("immutable"));
    let key = match (before.id.group.as_str(), before.id.kind.as_str()) {
        ("storage.k8s.io", "StorageClass") => "parameters",
        ("", "ConfigMap") if stored_immutable() => "binaryData",
        ("", "Secret") if stored_immutable() => {
            if entries("stringData").is_some_and(|n| n > 0) {
                return None;
            }
            "data"
        }
        _ => return None,
    };
    (entries(key) == Some(0)).then_some(key)
}

/// The impact of a map written empty that makes every update refused
/// ([`empty_map_written`]), unless a change of that map is already
/// reported among `fields`.
pub(super) fn empty_map(
    before: &Manifest,
    after: &Manifest,
    fields: &[FieldChange],
    out: &mut Vec<Impact>,
) {
    let Some(key) = empty_map_written(before, after) else {
        return;
    };
    if fields
        .iter()
        .any(|f| f.steps.first().is_some_and(|s| s == key))
    {
        return;
    }
    let why = format!(
        "writes `{key}: {{}}`, but the API server stores no empty map and tells none \
         from `{{}}` when it validates an update: it refuses every update of the \
         object, even one that changes nothing; leave `{key}` out"
    );
    out.push(Impact::new(Level::Refused, Class::Immutable, after, why));
}

/// Whether `field` is an amount of a resource list written in another
/// notation (`1Gi` and `1073741824`): the stored text changes, but the
/// update validation compares amounts by value (`apiequality.Semantic`).
fn same_amount(field: &FieldChange) -> bool {
    let list = match field.steps.as_slice() {
        [.., list, _] => list.as_str(),
        _ => return false,
    };
    if !matches!(
        list,
        "requests" | "limits" | "capacity" | "hard" | "overhead"
    ) {
        return false;
    }
    let amount = |v: &Option<Json>| crate::quantity::of_value(v.as_ref()?)?.ok();
    amount(&field.old).is_some_and(|old| Some(old) == amount(&field.new))
}

/// Whether a Job's new manifest leaves out the template's `metadata`, or
/// its `labels`, that the old one wrote: server-side apply then removes
/// the whole map, the labels the server generated on create with it
/// (`controller-uid`, `job-name`), which it requires ("Required value")
/// and does not write again; `labels: {}` or `null` keeps them. A Job
/// with `manualSelector: true` has no generated labels.
fn job_labels_dropped(before: &Manifest, after: &Manifest) -> bool {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("batch", "Job")
        || is_true(super::tree::at(after.node(), &["spec", "manualSelector"]))
    {
        return false;
    }
    let has = |m: &Manifest, path: &[&str]| super::tree::at(m.node(), path).is_some();
    let metadata = ["spec", "template", "metadata"];
    let labels = ["spec", "template", "metadata", "labels"];
    (has(before, &metadata) && !has(after, &metadata))
        || (has(before, &labels) && has(after, &metadata) && !has(after, &labels))
}

/// Whether a Job's `completions` as stored changes ([`job_counts`]: the
/// server writes 1 where neither count is written), but for an Indexed
/// Job's changed in tandem with `parallelism` (`validateCompletions`).
fn job_completions_change(before: &Manifest, after: &Manifest) -> bool {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("batch", "Job") {
        return false;
    }
    let counts = |m: &Manifest| {
        JOB_COUNTS
            .map(|key| super::tree::at(m.node(), &["spec", key]).map(crate::yaml::Node::to_json))
    };
    let (stored, applied) = job_counts(&counts(before), &counts(after));
    let indexed =
        text(super::tree::at(after.node(), &["spec", "completionMode"])) == Some("Indexed");
    stored[0] != applied[0] && !(indexed && applied[0].is_some() && applied[0] == applied[1])
}

/// Whether a ResourceQuota's scopes change as a set (`ValidateResourceQuotaUpdate`:
/// "field is immutable"; their order and repeats are no change).
fn quota_scopes_change(before: &Manifest, after: &Manifest) -> bool {
    if (before.id.group.as_str(), before.id.kind.as_str()) != ("", "ResourceQuota") {
        return false;
    }
    let scopes = |m: &Manifest| -> std::collections::BTreeSet<String> {
        (super::tree::items(super::tree::at(m.node(), &["spec", "scopes"])).iter())
            .filter_map(|scope| text(Some(scope)).map(str::to_owned))
            .collect()
    };
    scopes(before) != scopes(after)
}

/// A Secret's type as the API server stores it: `Opaque` when none is
/// written.
fn secret_type(secret: &Manifest) -> &str {
    text(secret.node().get("type"))
        .filter(|t| !t.is_empty())
        .unwrap_or("Opaque")
}

/// A Deployment switched to the `Recreate` strategy, or a StatefulSet to
/// `OnDelete`, while its `rollingUpdate` was the server's default, never
/// written: server-side apply removes only what the manifest wrote, the
/// defaulted `rollingUpdate` stays, and validation forbids it beside the
/// new type (a Deployment's "may not be specified when strategy `type` is
/// 'Recreate'", a StatefulSet's "only allowed for updateStrategy
/// 'RollingUpdate'"). The path of the type, and the new type, when so.
fn over_defaulted_rolling_update(before: &Manifest, after: &Manifest) -> Option<String> {
    let (strategy, other) = match (before.id.group.as_str(), before.id.kind.as_str()) {
        ("apps", "Deployment") => ("strategy", "Recreate"),
        ("apps", "StatefulSet") => ("updateStrategy", "OnDelete"),
        _ => return None,
    };
    fn at<'m>(m: &'m Manifest, strategy: &str) -> Option<&'m crate::yaml::Node> {
        super::tree::at(m.node(), &["spec", strategy])
    }
    let kind = |m| text(at(m, strategy).and_then(|s| s.get("type")));
    let written = at(before, strategy).and_then(|s| s.get("rollingUpdate"));
    // A `rollingUpdate: null` removes only what the old manifest wrote of
    // it (left out, it goes whole): a half the server defaulted stays.
    let partly = || {
        let null = at(after, strategy)
            .and_then(|s| s.get("rollingUpdate"))
            .is_some_and(|r| matches!(r.value, crate::yaml::Value::Null));
        let both = ["maxSurge", "maxUnavailable"]
            .iter()
            .all(|half| written.and_then(|r| r.get(half)).is_some());
        strategy == "strategy" && null && !both
    };
    // A Deployment's defaults make a `rollingUpdate` for a rolling type,
    // written or not; a StatefulSet's only where the type is not written.
    let defaulted = match strategy {
        "strategy" => matches!(kind(before), None | Some("RollingUpdate")),
        _ => kind(before).is_none(),
    };
    (kind(after) == Some(other) && defaulted && (written.is_none() || partly())).then(|| {
        format!("spec.{strategy}.type ({other}; the server keeps the rollingUpdate it defaulted)")
    })
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
    let show = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "nothing".to_owned(),
    };
    if class.is_empty() {
        // No class: bound to a volume made by hand, which the admission
        // never resizes (a review's server refused it).
        return Some(format!(
            "its storage request grows from {} to {} but it has no StorageClass (storageClassName \"\"): only a dynamically provisioned claim can be resized",
            show(&field.old),
            show(&field.new)
        ));
    }
    let storage_class = sets.new.iter().chain(sets.old).find(|m| {
        (m.id.group.as_str(), m.id.kind.as_str(), m.id.name.as_str())
            == ("storage.k8s.io", "StorageClass", class)
    })?;
    if is_true(storage_class.node().get("allowVolumeExpansion")) {
        return None;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The whys of the class's impacts from `old` to `new`.
    fn refused_from(old: &str, new: &str) -> Vec<String> {
        super::super::whys(old, new, Class::Immutable)
    }

    fn volume(spec: &str) -> String {
        format!(
            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: v}}\nspec: {{capacity: {{storage: 1Gi}}, accessModes: [ReadWriteOnce], {spec}}}\n"
        )
    }

    /// A PersistentVolume's source, volume mode and node affinity (once
    /// set) are refused; a CSI expansion secret set where there was none,
    /// a beta node label key made its GA one, or the default volume mode
    /// written out are not.
    #[test]
    fn a_persistent_volume_keeps_its_source() {
        let csi = |extra: &str| {
            volume(&format!(
                "csi: {{driver: d.example.com, volumeHandle: h{extra}}}"
            ))
        };
        let secret = ", controllerExpandSecretRef: {name: s, namespace: ns}";
        assert!(refused_from(&csi(""), &csi(secret)).is_empty());
        assert_eq!(refused_from(&csi(secret), &csi("")).len(), 1);
        let path = |p: &str| volume(&format!("hostPath: {{path: {p}}}"));
        assert_eq!(refused_from(&path("/a"), &path("/b")).len(), 1);
        let mode = |m: &str| volume(&format!("hostPath: {{path: /a}}{m}"));
        assert!(refused_from(&mode(""), &mode(", volumeMode: Filesystem")).is_empty());
        assert_eq!(
            refused_from(&mode(""), &mode(", volumeMode: Block")).len(),
            1
        );
        let affinity = |key: &str| {
            volume(&format!(
                "local: {{path: /a}}, nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: {key}, operator: In, values: [a]}}]}}]}}}}"
            ))
        };
        let beta = affinity("failure-domain.beta.kubernetes.io/zone");
        assert!(refused_from(&beta, &affinity("topology.kubernetes.io/zone")).is_empty());
        assert_eq!(
            refused_from(&beta, &affinity("topology.kubernetes.io/region")).len(),
            1
        );
        let class = |c: &str| {
            volume(&format!(
                "csi: {{driver: d.example.com, volumeHandle: h}}{c}"
            ))
        };
        let named = class(", volumeAttributesClassName: fast");
        assert!(refused_from(&named, &class(", volumeAttributesClassName: slow")).is_empty());
        assert_eq!(refused_from(&named, &class("")).len(), 1);
    }

    /// A Service's first IP family may not change while it keeps a cluster
    /// IP (a v1.35 server refused `ipFamilies: [IPv6]` over a Service
    /// that wrote none, on its IPv4 cluster, in a review); a headless
    /// Service may change it, and IPv4 written where none was is none.
    #[test]
    fn a_services_first_ip_family_stays() {
        let service = |spec: &str| {
            format!(
                "apiVersion: v1\nkind: Service\nmetadata: {{name: s, namespace: a}}\nspec: {{selector: {{a: b}}, ports: [{{port: 80}}]{spec}}}\n"
            )
        };
        assert_eq!(
            refused_from(&service(""), &service(", ipFamilies: [IPv6]")).len(),
            1
        );
        assert_eq!(
            refused_from(
                &service(", ipFamilies: [IPv4]"),
                &service(", ipFamilyPolicy: PreferDualStack, ipFamilies: [IPv6, IPv4]")
            )
            .len(),
            1
        );
        assert!(refused_from(&service(""), &service(", ipFamilies: [IPv4]")).is_empty());
        assert!(
            refused_from(
                &service(", ipFamilies: [IPv4]"),
                &service(", ipFamilyPolicy: PreferDualStack, ipFamilies: [IPv4, IPv6]")
            )
            .is_empty()
        );
        let headless =
            |families: &str| service(&format!(", clusterIP: None, ipFamilies: [{families}]"));
        assert!(refused_from(&headless("IPv4"), &headless("IPv6")).is_empty());
    }

    /// A quota's scopes compare as a set; amounts of a resource list by
    /// value.
    #[test]
    fn scopes_as_a_set_and_amounts_by_value() {
        let quota = |scopes: &str| {
            format!(
                "apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: a}}\nspec: {{hard: {{pods: '10'}}, scopes: {scopes}}}\n"
            )
        };
        let both = quota("[NotTerminating, NotBestEffort]");
        assert!(
            refused_from(
                &both,
                &quota("[NotBestEffort, NotTerminating, NotBestEffort]")
            )
            .is_empty()
        );
        assert_eq!(refused_from(&both, &quota("[NotTerminating]")).len(), 1);
        let claim = |size: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s, namespace: a}}\nspec:\n  serviceName: s\n  selector: {{matchLabels: {{app: s}}}}\n  template:\n    metadata: {{labels: {{app: s}}}}\n    spec: {{containers: [{{name: c, image: 'nginx:1.27'}}]}}\n  volumeClaimTemplates: [{{metadata: {{name: d}}, spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: {size}}}}}}}}}]\n"
            )
        };
        assert!(refused_from(&claim("1Gi"), &claim("1073741824")).is_empty());
        assert_eq!(refused_from(&claim("1Gi"), &claim("2Gi")).len(), 1);
    }

    /// A StatefulSet switched to `OnDelete` keeps a `rollingUpdate` its
    /// defaults made only where its type was not written.
    #[test]
    fn on_delete_over_a_defaulted_rolling_update() {
        let set = |strategy: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s, namespace: a}}\nspec:\n  serviceName: s\n  selector: {{matchLabels: {{app: s}}}}\n  template:\n    metadata: {{labels: {{app: s}}}}\n    spec: {{containers: [{{name: c, image: 'nginx:1.27'}}]}}\n{strategy}"
            )
        };
        let on_delete = set("  updateStrategy: {type: OnDelete}\n");
        assert_eq!(refused_from(&set(""), &on_delete).len(), 1);
        let explicit = set("  updateStrategy: {type: RollingUpdate}\n");
        assert!(refused_from(&explicit, &on_delete).is_empty());
        let written =
            set("  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0}}\n");
        assert!(refused_from(&written, &on_delete).is_empty());
    }
}
