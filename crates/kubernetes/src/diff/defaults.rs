//! What the API server writes into an object it stores, so that a field
//! written out with that value, or left out, is no change: defaults (of
//! `SetDefaults_*` in `pkg/apis/*/v1/defaults.go`, and of the REST
//! strategies: a Service's allocated cluster IP), and quantities the
//! server stores as one text (`200m` and `0.2`, `256Mi` and `0.25Gi`; not
//! `1Gi` and `1073741824`, of two notations).
//!
//! The check is path-based: [`Server::default_entry`] answers for a field on
//! one side only, [`Server::same_scalar`] for two scalars that differ as
//! written, [`Server::same_beside`] for two values each read beside its own
//! side's fields (a `targetPort` of `0` is its port, a User subject's
//! `apiGroup` of `""` the RBAC group), [`Server::pruned`]
//! for a struct written `{}` that server-side apply removes. A subtree on
//! one side only is a default when every leaf of it is one (`strategy:
//! {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable:
//! 25%}}`).

use serde_json::{Value as Json, json};

use std::collections::{HashMap, HashSet};

use super::go_types::{self, Field};
use super::tree::{Compared, Step};
use crate::manifest::{Manifest, ObjectId};
use crate::tree::Tree;
use crate::yaml::Node;

mod limit_ranger;

use limit_ranger::{LIMIT_RANGER, limit_range_as_stored, limit_ranger_admitted};

/// What a set declares to the server that its defaults read: the
/// structural schemas of its CRDs, by group, kind and version (a custom
/// resource's fields the schema defaults, `default:`, written out or left
/// out, are no change), their status subresources, and its
/// PriorityClasses (a Pod's priority).
#[derive(Default)]
pub(super) struct Declared<'a> {
    by_kind: HashMap<(&'a str, &'a str, &'a str), &'a Node>,
    /// The versions whose CRD gives them a status subresource.
    with_status: HashSet<(&'a str, &'a str, &'a str)>,
    /// The PriorityClasses, by name.
    classes: HashMap<&'a str, Class<'a>>,
    /// The PriorityClass marked `globalDefault`, by name: the Priority
    /// admission gives it to a Pod that names none.
    global: Option<&'a str>,
    /// The RuntimeClasses, by name.
    runtimes: HashMap<&'a str, &'a Node>,
    /// The LimitRanges, by namespace, in the set's order.
    limit_ranges: HashMap<&'a str, Vec<&'a Node>>,
    /// The Pod Security level each Namespace of the set enforces.
    pod_security: HashMap<&'a str, crate::pod_security::Policy>,
}

/// A PriorityClass: what the Priority admission writes into a Pod that
/// names it.
#[derive(Clone, Copy)]
pub(super) struct Class<'a> {
    value: i64,
    preemption: &'a str,
}

/// What the Priority admission gives a pod that names no class on a
/// cluster without a global default class.
const NO_CLASS: Class<'static> = Class {
    value: 0,
    preemption: "PreemptLowerPriority",
};

/// The PriorityClasses every cluster has (`SystemPriorityClasses`).
const SYSTEM_CLASSES: [(&str, Class<'static>); 2] = [
    (
        "system-node-critical",
        Class {
            value: 2_000_001_000,
            preemption: "PreemptLowerPriority",
        },
    ),
    (
        "system-cluster-critical",
        Class {
            value: 2_000_000_000,
            preemption: "PreemptLowerPriority",
        },
    ),
];

impl<'a> Declared<'a> {
    /// What `set` declares.
    pub(super) fn of(set: &'a [Manifest]) -> Self {
        let mut by_kind = HashMap::new();
        let mut with_status = HashSet::new();
        let mut classes: HashMap<&str, Class<'_>> = SYSTEM_CLASSES.into_iter().collect();
        let mut global = None;
        for class in set.iter().filter(|m| {
            (m.id.group.as_str(), m.id.kind.as_str()) == ("scheduling.k8s.io", "PriorityClass")
        }) {
            let node = class.node();
            let value = node.get("value").and_then(|v| v.to_json().as_i64());
            let preemption = node.get("preemptionPolicy").and_then(Tree::text);
            if let Some(value) = value
                && !class.id.name.starts_with("system-")
            {
                let preemption = preemption.unwrap_or("PreemptLowerPriority");
                classes.insert(class.id.name.as_str(), Class { value, preemption });
                if node.get("globalDefault").is_some_and(Tree::is_true) {
                    global = global.or(Some(class.id.name.as_str()));
                }
            }
        }
        let runtimes = (set.iter())
            .filter(|m| {
                (m.id.group.as_str(), m.id.kind.as_str()) == ("node.k8s.io", "RuntimeClass")
            })
            .map(|m| (m.id.name.as_str(), m.node()))
            .collect();
        let mut limit_ranges: HashMap<&str, Vec<&Node>> = HashMap::new();
        for range in
            (set.iter()).filter(|m| (m.id.group.as_str(), m.id.kind.as_str()) == ("", "LimitRange"))
        {
            if let Some(namespace) = &range.id.namespace {
                limit_ranges
                    .entry(namespace.as_str())
                    .or_default()
                    .push(range.node());
            }
        }
        let pod_security = (set.iter())
            .filter(|m| (m.id.group.as_str(), m.id.kind.as_str()) == ("", "Namespace"))
            .filter_map(|m| {
                let policy = crate::pod_security::Policy::of_namespace(&m.json())?;
                Some((m.id.name.as_str(), policy))
            })
            .collect();
        for crd in set
            .iter()
            .filter(|m| (m.id.group.as_str(), m.id.kind.as_str()) == crate::manifest::CRD)
        {
            let spec = crd.node().get("spec");
            let text = |n: Option<&'a Node>| match n.map(|n| &n.value) {
                Some(crate::yaml::Value::String(s)) => Some(s.as_str()),
                _ => None,
            };
            let (Some(group), Some(kind)) = (
                text(spec.and_then(|s| s.get("group"))),
                text(
                    spec.and_then(|s| s.get("names"))
                        .and_then(|n| n.get("kind")),
                ),
            ) else {
                continue;
            };
            let versions = match spec.and_then(|s| s.get("versions")).map(|v| &v.value) {
                Some(crate::yaml::Value::Sequence(items)) => items.as_slice(),
                _ => &[],
            };
            for version in versions {
                let Some(name) = text(version.get("name")) else {
                    continue;
                };
                let schema = version.get("schema").and_then(|s| s.get("openAPIV3Schema"));
                if let Some(schema) = schema {
                    by_kind.insert((group, kind, name), schema);
                }
                let status = version.get("subresources").and_then(|s| s.get("status"));
                if status.is_some_and(|s| matches!(s.value, crate::yaml::Value::Mapping(_))) {
                    with_status.insert((group, kind, name));
                }
            }
        }
        Declared {
            by_kind,
            with_status,
            classes,
            global,
            runtimes,
            limit_ranges,
            pod_security,
        }
    }

    /// What the `PodSecurity` admission refuses of a bare Pod created in a
    /// Namespace of the set that enforces a level (its labels), judged as
    /// the server creates the pod ([`crate::pod_security::as_created`])
    /// with the rules of the version the diff targets: the policy and each
    /// broken control's reason, as the server words them. `None` for
    /// anything else.
    pub(super) fn pod_security_refuses(&self, object: &Manifest, minor: u32) -> Option<String> {
        use crate::pod_security::{Level, Pod, PolicyVersion, as_created, evaluate};
        if (object.id.group.as_str(), object.id.kind.as_str()) != ("", "Pod") {
            return None;
        }
        let policy = self.pod_security.get(object.id.namespace.as_deref()?)?;
        if policy.level == Level::Privileged {
            return None;
        }
        let rules = match policy.version {
            PolicyVersion::Latest => minor,
            PolicyVersion::Minor(m) => u32::try_from(m).map_or(minor, |m| m.min(minor)),
        };
        let json = object.json();
        let spec = json.get("spec").filter(|s| s.is_object())?;
        let metadata = json.get("metadata").unwrap_or(&Json::Null);
        let created = as_created(&Pod { metadata, spec }, &[]);
        let broken = evaluate(&created.pod(), policy.level, rules);
        if broken.is_empty() {
            return None;
        }
        let mut reasons: Vec<String> = Vec::new();
        for violation in &broken {
            let reason = violation.message();
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
        Some(format!(
            "violates PodSecurity \"{}\": {}",
            policy.name(),
            reasons.join(", ")
        ))
    }

    /// What the `LimitRanger` admission refuses of `object`: a bare Pod on
    /// create (judged as admitted, [`pod_as_stored`]), a claim on create or
    /// update; by the first LimitRange the set declares in its namespace
    /// that refuses it (the server asks them in its cache's order, and
    /// stops at the first), named, with its reasons as the server gives
    /// them (one, or all in brackets, the first
    /// [`limit_ranger::REASONS_AT_MOST`] of them). `None` for anything
    /// else, and for a pod of more defaults than the model writes
    /// ([`limit_ranger::bounded`]).
    pub(super) fn limit_ranger_refuses(&self, object: &Manifest, create: bool) -> Option<String> {
        let kind = match (object.id.group.as_str(), object.id.kind.as_str()) {
            ("", "Pod") if create => "Pod",
            ("", "PersistentVolumeClaim") => "PersistentVolumeClaim",
            _ => return None,
        };
        let ranges = self.limit_ranges.get(object.id.namespace.as_deref()?)?;
        let ranges: Vec<Json> = (ranges.iter())
            .map(|range| {
                let mut range = range.to_json();
                limit_range_as_stored(&mut range);
                range
            })
            .collect();
        let mut admitted = object.json();
        if kind == "Pod" {
            let spec = admitted["spec"].as_object()?;
            if limit_ranger::bounded(spec, &ranges) {
                return None;
            }
            pod_as_stored(&mut admitted, self, true);
        }
        ranges.iter().find_map(|range| {
            let reasons = limit_ranger::refusals(kind, &admitted["spec"], range);
            let name = range["metadata"]["name"].as_str().unwrap_or_default();
            let more = match reasons.len() >= limit_ranger::REASONS_AT_MOST {
                true => ", …",
                false => "",
            };
            match reasons.as_slice() {
                [] => None,
                [one] => Some(format!("LimitRange {name}: {one}")),
                all => Some(format!("LimitRange {name}: [{}{more}]", all.join(", "))),
            }
        })
    }

    /// The class whose value and preemption policy the Priority admission
    /// gives a pod on create that names the class `name` (none, or empty:
    /// the global default class the set declares, else, on a cluster with
    /// none, priority 0); `None` for a class the set does not declare,
    /// which lives in the cluster (else the pod is refused).
    pub(super) fn admitted_class(&self, name: Option<&str>) -> Option<Class<'a>> {
        match name.filter(|name| !name.is_empty()) {
            None => match self.global {
                Some(global) => self.class(global),
                None => Some(NO_CLASS),
            },
            Some(name) => self.class(name),
        }
    }

    /// What the Priority admission refuses of a bare Pod on create
    /// (`admitPod`): a `priority` or `preemptionPolicy` written other than
    /// its class gives ([`Declared::admitted_class`]), as the server words
    /// it. `None` for anything else, and for a class only the cluster may
    /// hold.
    pub(super) fn priority_refuses(&self, object: &Manifest) -> Option<String> {
        if (object.id.group.as_str(), object.id.kind.as_str()) != ("", "Pod") {
            return None;
        }
        let spec = object.node().get("spec")?;
        let class = self.admitted_class(spec.get("priorityClassName").and_then(Tree::text))?;
        let written = spec.get("priority").and_then(|p| p.to_json().as_i64());
        if let Some(priority) = written.filter(|p| *p != class.value) {
            return Some(format!(
                "the integer value of priority ({priority}) must not be provided in pod spec; priority admission controller computed {} from the given PriorityClass name",
                class.value
            ));
        }
        let policy = spec.get("preemptionPolicy").and_then(Tree::text);
        policy.filter(|p| *p != class.preemption).map(|policy| {
            format!(
                "the string value of PreemptionPolicy ({policy}) must not be provided in pod spec; priority admission controller computed {} from the given PriorityClass name",
                class.preemption
            )
        })
    }

    /// The PriorityClass `name`, a system one or one the set declares.
    pub(super) fn class(&self, name: &str) -> Option<Class<'a>> {
        self.classes.get(name).copied()
    }

    /// Whether a CRD of the set gives the object's version a status
    /// subresource, so that the server keeps the stored `status` on every
    /// write of the object itself.
    pub(super) fn status_subresource(&self, id: &ObjectId) -> bool {
        (self.with_status).contains(&(id.group.as_str(), id.kind.as_str(), id.version.as_str()))
    }

    /// The schema of an object's group, kind and version, if a CRD of the
    /// set defines it.
    pub(super) fn of_object(&self, id: &ObjectId) -> Option<&'a Node> {
        if self.by_kind.is_empty() {
            return None;
        }
        self.by_kind
            .get(&(id.group.as_str(), id.kind.as_str(), id.version.as_str()))
            .copied()
    }
}

/// A default's value, built when asked for.
type Default = fn() -> Json;

/// A pod spec's defaults, below its `spec`: `*` is any list item.
const POD_SPEC: &[(&str, Default)] = &[
    ("securityContext", || json!({})),
    ("restartPolicy", || json!("Always")),
    ("dnsPolicy", || json!("ClusterFirst")),
    ("schedulerName", || json!("default-scheduler")),
    ("terminationGracePeriodSeconds", || json!(30)),
    ("*.*.terminationMessagePath", || {
        json!("/dev/termination-log")
    }),
    ("*.*.terminationMessagePolicy", || json!("File")),
    ("*.*.ports.*.protocol", || json!("TCP")),
    ("*.*.env.*.valueFrom.fieldRef.apiVersion", || json!("v1")),
    ("*.*.*.timeoutSeconds", || json!(1)),
    ("*.*.*.periodSeconds", || json!(10)),
    ("*.*.*.successThreshold", || json!(1)),
    ("*.*.*.failureThreshold", || json!(3)),
    ("*.*.*.httpGet.scheme", || json!("HTTP")),
    ("*.*.*.httpGet.path", || json!("/")),
    ("*.*.*.grpc.service", || json!("")),
    // `divisor` is a quantity, no pointer: left out, it is stored `0`.
    ("*.*.env.*.valueFrom.resourceFieldRef.divisor", || {
        json!("0")
    }),
    (
        "volumes.*.downwardAPI.items.*.resourceFieldRef.divisor",
        || json!("0"),
    ),
    (
        "volumes.*.projected.sources.*.downwardAPI.items.*.resourceFieldRef.divisor",
        || json!("0"),
    ),
    ("volumes.*.iscsi.iscsiInterface", || json!("default")),
    ("volumes.*.azureDisk.cachingMode", || json!("ReadWrite")),
    ("volumes.*.azureDisk.fsType", || json!("ext4")),
    ("volumes.*.azureDisk.readOnly", || json!(false)),
    ("volumes.*.azureDisk.kind", || json!("Shared")),
    ("volumes.*.scaleIO.storageMode", || json!("ThinProvisioned")),
    ("volumes.*.scaleIO.fsType", || json!("xfs")),
    ("volumes.*.rbd.pool", || json!("rbd")),
    ("volumes.*.rbd.user", || json!("admin")),
    ("volumes.*.rbd.keyring", || json!("/etc/ceph/keyring")),
    ("*.*.lifecycle.*.httpGet.scheme", || json!("HTTP")),
    ("*.*.lifecycle.*.httpGet.path", || json!("/")),
    ("volumes.*.emptyDir.medium", || json!("")),
    ("volumes.*.hostPath.type", || json!("")),
    ("volumes.*.configMap.defaultMode", || json!(420)),
    ("volumes.*.secret.defaultMode", || json!(420)),
    ("volumes.*.projected.defaultMode", || json!(420)),
    ("volumes.*.downwardAPI.defaultMode", || json!(420)),
    ("volumes.*.downwardAPI.items.*.fieldRef.apiVersion", || {
        json!("v1")
    }),
    (
        "volumes.*.projected.sources.*.downwardAPI.items.*.fieldRef.apiVersion",
        || json!("v1"),
    ),
    (
        "volumes.*.projected.sources.*.serviceAccountToken.expirationSeconds",
        || json!(3600),
    ),
    (
        "volumes.*.ephemeral.volumeClaimTemplate.spec.volumeMode",
        || json!("Filesystem"),
    ),
];

/// The containers' lists of a pod spec, where `*.*` of [`POD_SPEC`] starts.
const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

/// The probes and handlers of a container, where `*.*.*` of [`POD_SPEC`]
/// continues.
const PROBES: [&str; 3] = ["livenessProbe", "readinessProbe", "startupProbe"];

/// Defaults of other kinds: group, kind, path from the object's root.
const OBJECTS: &[(&str, &str, &str, Default)] = &[
    // Pointers to structs the defaults make where absent (a `{}` there is
    // no change); their fields' defaults follow.
    ("apps", "Deployment", "spec.strategy.rollingUpdate", || {
        json!({})
    }),
    (
        "apps",
        "StatefulSet",
        "spec.updateStrategy.rollingUpdate",
        || json!({}),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.persistentVolumeClaimRetentionPolicy",
        || json!({}),
    ),
    (
        "apps",
        "DaemonSet",
        "spec.updateStrategy.rollingUpdate",
        || json!({}),
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "spec.conversion",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.matchConstraints.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.matchConstraints.objectSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "spec.matchResources.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "spec.matchResources.objectSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        "spec.matchConstraints.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        "spec.matchConstraints.objectSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        "spec.matchResources.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        "spec.matchResources.objectSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.objectSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.namespaceSelector",
        || json!({}),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.objectSelector",
        || json!({}),
    ),
    // Admission webhooks' and policies' defaults (`SetDefaults_ValidatingWebhook`,
    // `SetDefaults_MutatingWebhook`, `SetDefaults_Rule`,
    // `SetDefaults_ServiceReference`, `SetDefaults_MatchResources`), an
    // IngressClass's parameters' scope, a pod failure policy's condition
    // status (a type's default: a CronJob's Job template gets it too).
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.failurePolicy",
        || json!("Fail"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.matchPolicy",
        || json!("Equivalent"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.timeoutSeconds",
        || json!(10),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.rules.*.scope",
        || json!("*"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "webhooks.*.clientConfig.service.port",
        || json!(443),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.failurePolicy",
        || json!("Fail"),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.matchPolicy",
        || json!("Equivalent"),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.timeoutSeconds",
        || json!(10),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.rules.*.scope",
        || json!("*"),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.clientConfig.service.port",
        || json!(443),
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "webhooks.*.reinvocationPolicy",
        || json!("Never"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.failurePolicy",
        || json!("Fail"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.matchConstraints.matchPolicy",
        || json!("Equivalent"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.matchConstraints.resourceRules.*.scope",
        || json!("*"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "spec.matchConstraints.excludeResourceRules.*.scope",
        || json!("*"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "spec.matchResources.matchPolicy",
        || json!("Equivalent"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "spec.matchResources.resourceRules.*.scope",
        || json!("*"),
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "spec.matchResources.excludeResourceRules.*.scope",
        || json!("*"),
    ),
    (
        "networking.k8s.io",
        "IngressClass",
        "spec.parameters.scope",
        || json!("Cluster"),
    ),
    (
        "batch",
        "Job",
        "spec.podFailurePolicy.rules.*.onPodConditions.*.status",
        || json!("True"),
    ),
    (
        "batch",
        "CronJob",
        "spec.jobTemplate.spec.podFailurePolicy.rules.*.onPodConditions.*.status",
        || json!("True"),
    ),
    (
        "",
        "Service",
        "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
        || json!(10800),
    ),
    ("apps", "Deployment", "spec.replicas", || json!(1)),
    ("apps", "Deployment", "spec.strategy.type", || {
        json!("RollingUpdate")
    }),
    (
        "apps",
        "Deployment",
        "spec.strategy.rollingUpdate.maxSurge",
        || json!("25%"),
    ),
    (
        "apps",
        "Deployment",
        "spec.strategy.rollingUpdate.maxUnavailable",
        || json!("25%"),
    ),
    ("apps", "Deployment", "spec.revisionHistoryLimit", || {
        json!(10)
    }),
    ("apps", "Deployment", "spec.progressDeadlineSeconds", || {
        json!(600)
    }),
    ("apps", "StatefulSet", "spec.replicas", || json!(1)),
    ("apps", "StatefulSet", "spec.podManagementPolicy", || {
        json!("OrderedReady")
    }),
    ("apps", "StatefulSet", "spec.updateStrategy.type", || {
        json!("RollingUpdate")
    }),
    (
        "apps",
        "StatefulSet",
        "spec.updateStrategy.rollingUpdate.partition",
        || json!(0),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.updateStrategy.rollingUpdate.maxUnavailable",
        || json!(1),
    ),
    ("apps", "StatefulSet", "spec.revisionHistoryLimit", || {
        json!(10)
    }),
    (
        "apps",
        "StatefulSet",
        "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
        || json!("Retain"),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.persistentVolumeClaimRetentionPolicy.whenScaled",
        || json!("Retain"),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.volumeClaimTemplates.*.spec.volumeMode",
        || json!("Filesystem"),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.volumeClaimTemplates.*.apiVersion",
        || json!("v1"),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.volumeClaimTemplates.*.kind",
        || json!("PersistentVolumeClaim"),
    ),
    (
        "apps",
        "StatefulSet",
        "spec.volumeClaimTemplates.*.status.phase",
        || json!("Pending"),
    ),
    ("apps", "DaemonSet", "spec.updateStrategy.type", || {
        json!("RollingUpdate")
    }),
    (
        "apps",
        "DaemonSet",
        "spec.updateStrategy.rollingUpdate.maxUnavailable",
        || json!(1),
    ),
    (
        "apps",
        "DaemonSet",
        "spec.updateStrategy.rollingUpdate.maxSurge",
        || json!(0),
    ),
    ("apps", "DaemonSet", "spec.revisionHistoryLimit", || {
        json!(10)
    }),
    ("apps", "ReplicaSet", "spec.replicas", || json!(1)),
    ("", "ReplicationController", "spec.replicas", || json!(1)),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.minReplicas",
        || json!(1),
    ),
    // autoscaling/v2 only: v1 has no `metrics`.
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.metrics",
        || {
            json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}])
        },
    ),
    // autoscaling/v2 only, and only where `behavior` is written: both
    // rules are then filled in field by field
    // (`SetDefaults_HorizontalPodAutoscalerBehavior`).
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleUp",
        || json!({}),
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleUp.stabilizationWindowSeconds",
        || json!(0),
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleUp.selectPolicy",
        || json!("Max"),
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleUp.policies",
        || {
            json!([{"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15}])
        },
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleDown",
        || json!({}),
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleDown.selectPolicy",
        || json!("Max"),
    ),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.behavior.scaleDown.policies",
        || json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
    ),
    ("batch", "Job", "spec.parallelism", || json!(1)),
    ("batch", "Job", "spec.completionMode", || {
        json!("NonIndexed")
    }),
    ("batch", "Job", "spec.suspend", || json!(false)),
    ("batch", "Job", "spec.manualSelector", || json!(false)),
    ("batch", "CronJob", "spec.concurrencyPolicy", || {
        json!("Allow")
    }),
    ("batch", "CronJob", "spec.suspend", || json!(false)),
    (
        "batch",
        "CronJob",
        "spec.successfulJobsHistoryLimit",
        || json!(3),
    ),
    ("batch", "CronJob", "spec.failedJobsHistoryLimit", || {
        json!(1)
    }),
    ("", "Service", "spec.type", || json!("ClusterIP")),
    ("", "Service", "spec.sessionAffinity", || json!("None")),
    ("", "Service", "spec.ipFamilyPolicy", || {
        json!("SingleStack")
    }),
    ("", "Service", "spec.ipFamilies", || json!(["IPv4"])),
    ("", "Service", "spec.internalTrafficPolicy", || {
        json!("Cluster")
    }),
    ("", "Service", "spec.ports.*.protocol", || json!("TCP")),
    ("", "Secret", "type", || json!("Opaque")),
    ("", "PersistentVolumeClaim", "spec.volumeMode", || {
        json!("Filesystem")
    }),
    ("", "PersistentVolume", "spec.volumeMode", || {
        json!("Filesystem")
    }),
    (
        "",
        "PersistentVolume",
        "spec.persistentVolumeReclaimPolicy",
        || json!("Retain"),
    ),
    ("", "PersistentVolume", "spec.hostPath.type", || json!("")),
    // The volume sources' own defaults, as a pod's volumes have them.
    ("", "PersistentVolume", "spec.iscsi.iscsiInterface", || {
        json!("default")
    }),
    ("", "PersistentVolume", "spec.azureDisk.cachingMode", || {
        json!("ReadWrite")
    }),
    ("", "PersistentVolume", "spec.azureDisk.fsType", || {
        json!("ext4")
    }),
    ("", "PersistentVolume", "spec.azureDisk.readOnly", || {
        json!(false)
    }),
    ("", "PersistentVolume", "spec.azureDisk.kind", || {
        json!("Shared")
    }),
    ("", "PersistentVolume", "spec.scaleIO.storageMode", || {
        json!("ThinProvisioned")
    }),
    ("", "PersistentVolume", "spec.scaleIO.fsType", || {
        json!("xfs")
    }),
    ("", "PersistentVolume", "spec.rbd.pool", || json!("rbd")),
    ("", "PersistentVolume", "spec.rbd.user", || json!("admin")),
    ("", "PersistentVolume", "spec.rbd.keyring", || {
        json!("/etc/ceph/keyring")
    }),
    ("", "Namespace", "spec.finalizers", || json!(["kubernetes"])),
    ("storage.k8s.io", "CSIDriver", "spec.attachRequired", || {
        json!(true)
    }),
    ("storage.k8s.io", "CSIDriver", "spec.podInfoOnMount", || {
        json!(false)
    }),
    (
        "storage.k8s.io",
        "CSIDriver",
        "spec.storageCapacity",
        || json!(false),
    ),
    (
        "storage.k8s.io",
        "CSIDriver",
        "spec.requiresRepublish",
        || json!(false),
    ),
    ("storage.k8s.io", "CSIDriver", "spec.seLinuxMount", || {
        json!(false)
    }),
    ("storage.k8s.io", "CSIDriver", "spec.fsGroupPolicy", || {
        json!("ReadWriteOnceWithFSType")
    }),
    (
        "storage.k8s.io",
        "CSIDriver",
        "spec.volumeLifecycleModes",
        || json!(["Persistent"]),
    ),
    ("storage.k8s.io", "StorageClass", "reclaimPolicy", || {
        json!("Delete")
    }),
    (
        "storage.k8s.io",
        "StorageClass",
        "volumeBindingMode",
        || json!("Immediate"),
    ),
    (
        "scheduling.k8s.io",
        "PriorityClass",
        "preemptionPolicy",
        || json!("PreemptLowerPriority"),
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "spec.conversion.strategy",
        || json!("None"),
    ),
    (
        "networking.k8s.io",
        "NetworkPolicy",
        "spec.ingress.*.ports.*.protocol",
        || json!("TCP"),
    ),
    (
        "networking.k8s.io",
        "NetworkPolicy",
        "spec.egress.*.ports.*.protocol",
        || json!("TCP"),
    ), // `SetDefaults_FlowSchema`, `SetDefaults_PriorityLevelConfiguration`
    // (and its limited, exempt and queuing parts), an APIService's and a
    // conversion webhook's service port, endpoint ports' protocol (and an
    // EndpointSlice port's name), `autoscaling/v1`'s CPU target (the CPU
    // metric of `v2`'s defaults, read back), a DRA request's allocation
    // mode, count and toleration operator (`SetDefaults_ExactDeviceRequest`,
    // `SetDefaults_DeviceSubRequest`, `SetDefaults_DeviceToleration`).
    (
        "flowcontrol.apiserver.k8s.io",
        "FlowSchema",
        "spec.matchingPrecedence",
        || json!(1000),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.limited.nominalConcurrencyShares",
        || json!(30),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.limited.lendablePercent",
        || json!(0),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.limited.limitResponse.queuing.queues",
        || json!(64),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.limited.limitResponse.queuing.handSize",
        || json!(8),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.limited.limitResponse.queuing.queueLengthLimit",
        || json!(50),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.exempt.nominalConcurrencyShares",
        || json!(0),
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "spec.exempt.lendablePercent",
        || json!(0),
    ),
    (
        "apiregistration.k8s.io",
        "APIService",
        "spec.service.port",
        || json!(443),
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "spec.conversion.webhook.clientConfig.service.port",
        || json!(443),
    ),
    ("", "Endpoints", "subsets.*.ports.*.protocol", || {
        json!("TCP")
    }),
    (
        "discovery.k8s.io",
        "EndpointSlice",
        "ports.*.protocol",
        || json!("TCP"),
    ),
    ("discovery.k8s.io", "EndpointSlice", "ports.*.name", || {
        json!("")
    }),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "spec.targetCPUUtilizationPercentage",
        || json!(80),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.exactly.allocationMode",
        || json!("ExactCount"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.exactly.count",
        || json!(1),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.exactly.tolerations.*.operator",
        || json!("Equal"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.firstAvailable.*.allocationMode",
        || json!("ExactCount"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.firstAvailable.*.count",
        || json!(1),
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        "spec.devices.requests.*.firstAvailable.*.tolerations.*.operator",
        || json!("Equal"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.exactly.allocationMode",
        || json!("ExactCount"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.exactly.count",
        || json!(1),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.exactly.tolerations.*.operator",
        || json!("Equal"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.firstAvailable.*.allocationMode",
        || json!("ExactCount"),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.firstAvailable.*.count",
        || json!(1),
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "spec.spec.devices.requests.*.firstAvailable.*.tolerations.*.operator",
        || json!("Equal"),
    ),
];

/// The object being compared, for what its server writes.
#[derive(Clone, Copy, Default)]
pub(super) struct Server<'k> {
    /// Group and kind; `None` for what is not an object (an artifact).
    kind: Option<(&'k str, &'k str)>,
    /// Where its pod spec is, as keys (`spec.template.spec`).
    pod_spec: Option<&'static [&'static str]>,
    /// Its CRD's structural schema, for a custom resource.
    schema: Option<&'k Node>,
    /// Its Go type, for a built-in kind ([`go_types`]).
    go: Option<u16>,
    /// A Service that needs node ports on both sides (NodePort or
    /// LoadBalancer): a port left without one gets the one its namesake
    /// had (`patchAllocatedValues`).
    node_ports_kept: bool,
    /// A Service that needs a health-check node port on both sides (a
    /// LoadBalancer with the `Local` policy): it keeps the allocated one.
    health_check_kept: bool,
    /// Whether the server sets `status` itself, whatever a manifest
    /// writes: on create its strategy clears it, on update it keeps the
    /// stored one (a status subresource's).
    status_kept: bool,
    /// The PriorityClasses a Pod may name ([`Declared`]).
    classes: Option<&'k Declared<'k>>,
}

/// A Job's `completions` and `parallelism`, in that order.
pub(super) const JOB_COUNTS: [&str; 2] = ["completions", "parallelism"];

/// A Job's counts ([`JOB_COUNTS`]) as the server stores them, from the
/// old manifest's and then from the new one's applied over it:
/// `SetDefaults_Job` writes both as 1 where neither is written, else a
/// missing `parallelism` as 1; server-side apply removes only what the
/// old manifest wrote, so a count the server wrote stays when the new
/// manifest leaves it out, and the defaults run again over what is left.
pub(super) fn job_counts(
    old: &[Option<Json>; 2],
    new: &[Option<Json>; 2],
) -> ([Option<Json>; 2], [Option<Json>; 2]) {
    let defaults = |[completions, parallelism]: [Option<Json>; 2]| match (completions, parallelism)
    {
        (None, None) => [Some(json!(1)), Some(json!(1))],
        (completions, parallelism) => [completions, parallelism.or(Some(json!(1)))],
    };
    let stored = defaults(old.clone());
    let kept = |at: usize| applied(new[at].clone(), old[at].as_ref(), stored[at].clone());
    let after = defaults([kept(0), kept(1)]);
    (stored, after)
}

impl<'k> Server<'k> {
    /// For an object of this group, version and kind.
    pub(super) fn object(group: &'k str, version: &str, kind: &'k str) -> Self {
        let pod_spec = crate::tree::pod_place(group, kind).map(|place| place.spec);
        Server {
            kind: Some((group, kind)),
            pod_spec,
            schema: None,
            go: go_types::root(group, version, kind),
            node_ports_kept: false,
            health_check_kept: false,
            // Every built-in kind that has a status (a Node too: its
            // update keeps the stored one; its kubelet registers it with
            // its status, but that is a create). A kind without one
            // refuses `status` as a field it does not know.
            status_kept: crate::kube::is_kubernetes_group(group)
                && go_types::root(group, version, kind)
                    .and_then(|root| go_types::field(root, &[Step::key("status")]))
                    .is_some(),
            classes: None,
        }
    }

    /// With what the new set declares: its CRDs' schemas and status
    /// subresources, for a custom resource of one, and its PriorityClasses.
    pub(super) fn with_declared(mut self, declared: &'k Declared<'k>, id: &ObjectId) -> Self {
        self.schema = declared.of_object(id);
        self.status_kept |= declared.status_subresource(id);
        self.classes = Some(declared);
        self
    }

    /// With what the server keeps of the old object (`old`) where the new
    /// one (`new`) leaves it out: a Service's allocated node ports.
    pub(super) fn with_sides(mut self, old: &Node, new: &Node) -> Self {
        if self.kind == Some(("", "Service")) {
            fn spec(n: &Node, key: &str) -> Option<String> {
                n.get("spec")
                    .and_then(|s| s.get(key))
                    .and_then(Tree::text)
                    .map(str::to_owned)
            }
            let node_ports = |n: &Node| {
                matches!(
                    spec(n, "type").as_deref(),
                    Some("NodePort" | "LoadBalancer")
                )
            };
            let health_check = |n: &Node| {
                spec(n, "type").as_deref() == Some("LoadBalancer")
                    && spec(n, "externalTrafficPolicy").as_deref() == Some("Local")
            };
            self.node_ports_kept = node_ports(old) && node_ports(new);
            self.health_check_kept = health_check(old) && health_check(new);
        }
        self
    }

    /// Whether the server leaves the field at `path` as it was on an
    /// update, whatever the manifest says: `status` (`status_kept`),
    /// a CertificateSigningRequest's `spec` (its strategy copies the old
    /// one), a Namespace's `spec.finalizers` (likewise), a StatefulSet's
    /// `rollingUpdate.maxUnavailable` (dropped: `MaxUnavailableStatefulSet`
    /// is off by default), a ServiceAccount's `secrets` but their names
    /// (`cleanSecretReferences`).
    pub(super) fn ignores(&self, path: &[Step<'_>]) -> bool {
        let Some((group, kind)) = self.kind else {
            return false;
        };
        let named = |names: &[&str]| {
            path.len() == names.len()
                && path.iter().zip(names).all(|(s, n)| !s.item && s.name == *n)
        };
        let top = |name: &str| path.first().is_some_and(|s| !s.item && s.name == name);
        if self.status_kept && top("status") {
            return true;
        }
        match (group, kind) {
            ("certificates.k8s.io", "CertificateSigningRequest") => top("spec"),
            ("", "Namespace") => named(&["spec", "finalizers"]),
            ("apps", "StatefulSet") => {
                named(&["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"])
            }
            ("", "ServiceAccount") => {
                matches!(path, [list, item, field] if list.name == "secrets" && item.item && field.name != "name")
            }
            _ => false,
        }
    }

    /// The `default` its CRD's schema gives the field at `path`.
    fn schema_default(&self, path: &[Step<'_>]) -> Option<Json> {
        let mut node = self.schema?;
        for step in path {
            node = if step.item {
                node.get("items")?
            } else {
                match node.get("properties").and_then(|p| p.get(&step.name)) {
                    Some(property) => property,
                    None => node.get("additionalProperties")?,
                }
            };
        }
        node.get("default").map(Node::to_json)
    }

    /// Whether `value`, at `path` on one side only (`old`: the old side),
    /// is what the server writes when the field is left out. `own` is the
    /// mapping holding it, `other` the other side's. A Service's allocated
    /// addresses, a Job's counts ([`job_counts`]) and a pod's account
    /// depend on both sides.
    pub(super) fn default_entry<'a, T: Compared>(
        &self,
        path: &mut Vec<Step<'a>>,
        value: &'a T,
        own: &'a T,
        other: &'a T,
        old: bool,
    ) -> bool {
        let Some((group, kind)) = self.kind else {
            return false;
        };
        if self.ignores(path) {
            return true;
        }
        if (group, kind) == ("", "Service") {
            let at: Vec<&str> = path.iter().map(|s| &*s.name).collect();
            match at.as_slice() {
                // The allocated address stays when the manifest drops it
                // or writes it empty.
                ["spec", "clusterIP"] => return old || value.text() == Some(""),
                ["spec", "clusterIPs"] => {
                    return old || {
                        let ips = value.json();
                        ips == json!([])
                            || [other, own].iter().any(|spec| {
                                spec.get("clusterIP")
                                    .map(Compared::json)
                                    .is_some_and(|ip| ips == json!([ip]))
                            })
                    };
                }
                ["spec", "ports", _, "targetPort"]
                    if own.get("port").is_some_and(|p| p.same_scalar(value)) =>
                {
                    return true;
                }
                // Cleared by the defaults unless the affinity is ClientIP.
                ["spec", "sessionAffinityConfig"]
                    if own.get("sessionAffinity").and_then(Tree::text) != Some("ClientIP") =>
                {
                    return true;
                }
                // `0` and `""` are the port.
                ["spec", "ports", _, "targetPort"] if is_zero(value) => return true,
                // Dropped, the policy stored stays (`initIPFamilyFields`).
                ["spec", "ipFamilyPolicy"] if old => return true,
                // Dropped, an allocated port stays.
                ["spec", "ports", _, "nodePort"] if old && self.node_ports_kept => return true,
                ["spec", "healthCheckNodePort"] if old && self.health_check_kept => return true,
                _ => {}
            }
        }

        if (group, kind) == ("batch", "Job") && old {
            // Left out, a map the manifest wrote goes whole, the labels the
            // server generated in it too (refused: `immutable`).
            let at: Vec<&str> = path.iter().map(|s| &*s.name).collect();
            if matches!(
                at.as_slice(),
                ["spec", "template", "metadata"] | ["spec", "template", "metadata", "labels"]
            ) {
                return false;
            }
        }
        if (group, kind) == ("apps", "StatefulSet") && old {
            // A rolling type written without its `rollingUpdate` got none;
            // left out, the type is defaulted and one is made with it.
            let at: Vec<&str> = path.iter().map(|s| &*s.name).collect();
            let strategy = match at.as_slice() {
                ["spec", "updateStrategy"] => Some(value),
                ["spec", "updateStrategy", "type"] => Some(own),
                _ => None,
            };
            if strategy.is_some_and(|s| {
                s.get("type").and_then(Tree::text) == Some("RollingUpdate")
                    && s.get("rollingUpdate").is_none()
            }) {
                return false;
            }
        }
        if (group, kind) == ("batch", "Job")
            && let [spec, count] = path.as_slice()
            && &*spec.name == "spec"
            && matches!(&*count.name, "completions" | "parallelism")
        {
            let counts = |spec: &T| JOB_COUNTS.map(|key| spec.get(key).map(Compared::json));
            let (before, after) = match old {
                true => (counts(own), counts(other)),
                false => (counts(other), counts(own)),
            };
            let (stored, applied) = job_counts(&before, &after);
            // The count's own stored value, and the other's where neither
            // manifest writes it (this entry is then what changes it).
            let at = usize::from(&*count.name == "parallelism");
            let unwritten = before[1 - at].is_none() && after[1 - at].is_none();
            return stored[at] == applied[at] && (!unwritten || stored[1 - at] == applied[1 - at]);
        }
        if let Some(spec) = self.pod_spec
            && let [list, _, source] = &path[spec.len().min(path.len())..]
            && path.iter().zip(spec).all(|(s, p)| !s.item && s.name == *p)
            && (&*list.name, &*source.name) == ("volumes", "emptyDir")
        {
            // A volume written without a source is given `emptyDir: {}`:
            // a plain one (no size limit, the default medium) here is that,
            // where the other side's volume has no source at all.
            let plain = (value.fields()).is_some_and(|mut f| {
                f.all(|(k, v)| v.json().is_null() || (k == "medium" && is_zero(v)))
            });
            let sourceless = (other.fields())
                .is_some_and(|mut f| f.all(|(k, v)| k == "name" || v.json().is_null()));
            return plain && sourceless;
        }
        if (group, kind) == ("autoscaling", "HorizontalPodAutoscaler")
            && old
            && let [spec, field] = path.as_slice()
            && (&*spec.name, &*field.name) == ("spec", "targetCPUUtilizationPercentage")
        {
            // Dropped from an `autoscaling/v1` manifest, the target stays:
            // once the autoscaler has written the object's status (at
            // `v2`, within seconds of its creation), the metric it reads
            // back as this field is no longer the manager's alone to
            // remove (measured on v1.35.4).
            return true;
        }
        if (group, kind) == ("", "Pod")
            && let [spec, field] = path.as_slice()
            && &*spec.name == "spec"
        {
            // `SetDefaults_Pod`, and the Priority admission: the named
            // class's value and preemption policy where the class is a
            // system one or the set declares it; with no class, the
            // global default class the set declares, else (on a cluster
            // with none) priority 0. A class the set does not declare
            // lives in the cluster (else the pod is refused): what it
            // writes is taken to be what a manifest says.
            let global = self.classes.and_then(|declared| declared.global);
            let name = own.get("priorityClassName").and_then(Tree::text);
            let class = match self.classes {
                Some(declared) => declared.admitted_class(name),
                None => name.is_none_or(str::is_empty).then_some(NO_CLASS),
            };
            match (&*field.name, class) {
                ("enableServiceLinks", _) if value.json() == json!(true) => return true,
                ("priorityClassName", _)
                    if global.is_some_and(|name| value.text() == Some(name)) =>
                {
                    return true;
                }
                ("priority" | "preemptionPolicy", None) => return true,
                ("priority", Some(class)) if value.json() == json!(class.value) => return true,
                ("preemptionPolicy", Some(class)) if value.text() == Some(class.preemption) => {
                    return true;
                }
                _ => {}
            }
        }
        if let Some(spec) = self.pod_spec
            && path.len() == spec.len() + 1
            && path.iter().zip(spec).all(|(s, p)| !s.item && s.name == *p)
            && matches!(
                &*path[spec.len()].name,
                "serviceAccountName" | "serviceAccount"
            )
        {
            // The server stores both, as the first non-empty of the two;
            // dropped from both, the one it stored unasked stays and
            // fills the other again.
            let kept = old && crate::tree::account_kept(own);
            let (own, other) = (
                crate::tree::named_account(own),
                crate::tree::named_account(other),
            );
            // A Pod that names no account runs as `default`: the
            // ServiceAccount admission writes it in.
            let admitted = (group, kind) == ("", "Pod") && own == Some("default");
            return own == other || ((kept || admitted) && other.is_none());
        }
        self.covered(path, value, own, Some(other))
    }

    /// The values the server stores as a default that depends on the
    /// object's other fields, where `path` has one (every form it fills in
    /// to the same; `own` holds the field, `other` is the other side's
    /// mapping): a Service's `externalTrafficPolicy` (`Cluster` for a
    /// NodePort or LoadBalancer), `allocateLoadBalancerNodePorts` (`true`
    /// for a LoadBalancer) and ClientIP affinity's timeout (10800 s); a
    /// NetworkPolicy's `policyTypes` (`Egress` too where it has `egress`);
    /// a binding subject's `apiGroup` (`""` for a ServiceAccount, else the
    /// RBAC group, which `""` also means); a Namespace's name label (its
    /// name, whatever was written: any value given is the default); a
    /// ReplicationController's selector (its template's labels); a Job's
    /// `backoffLimit` (2147483647 beside a `backoffLimitPerIndex`, else 6)
    /// and `podReplacementPolicy` (`Failed` beside a `podFailurePolicy`).
    fn conditional<T: Compared>(&self, path: &[Step<'_>], own: &T) -> Option<Vec<Json>> {
        let (group, kind) = self.kind?;
        // Called for every leaf of a one-sided subtree: the kinds without
        // such a default cost no path.
        let kinds = [
            ("", "Service"),
            ("networking.k8s.io", "NetworkPolicy"),
            ("rbac.authorization.k8s.io", "RoleBinding"),
            ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
            ("", "Namespace"),
            ("", "ReplicationController"),
            ("apiextensions.k8s.io", "CustomResourceDefinition"),
            ("batch", "Job"),
        ];
        if !kinds.contains(&(group, kind)) || path.len() > 3 {
            return None;
        }
        let at: Vec<&str> = path.iter().map(|s| &*s.name).collect();
        let text = |map: &T, key: &str| {
            map.get(key)
                .and_then(Tree::text)
                .unwrap_or_default()
                .to_owned()
        };
        match ((group, kind), at.as_slice()) {
            (("", "Service"), ["spec", "externalTrafficPolicy"])
                if matches!(&*text(own, "type"), "NodePort" | "LoadBalancer") =>
            {
                Some(vec![json!("Cluster")])
            }
            (("", "Service"), ["spec", "allocateLoadBalancerNodePorts"])
                if text(own, "type") == "LoadBalancer" =>
            {
                Some(vec![json!(true)])
            }
            // The timeout is filled in wherever it is missing.
            (("", "Service"), ["spec", "sessionAffinityConfig"])
                if text(own, "sessionAffinity") == "ClientIP" =>
            {
                Some(vec![
                    json!({}),
                    json!({"clientIP": {}}),
                    json!({"clientIP": {"timeoutSeconds": 10800}}),
                ])
            }
            // Set where it is left out or empty.
            (("networking.k8s.io", "NetworkPolicy"), ["spec", "policyTypes"]) => {
                let egress =
                    (own.get("egress").and_then(Tree::items)).is_some_and(|e| !e.is_empty());
                Some(vec![
                    json!([]),
                    match egress {
                        true => json!(["Ingress", "Egress"]),
                        false => json!(["Ingress"]),
                    },
                ])
            }
            (
                ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding"),
                ["subjects", _, "apiGroup"],
            ) => Some(match &*text(own, "kind") {
                "ServiceAccount" => vec![json!("")],
                _ => vec![json!(""), json!(RBAC)],
            }),
            (
                ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding"),
                ["roleRef", "apiGroup"],
            ) => Some(vec![json!(""), json!(RBAC)]),
            // `SetDefaults_CustomResourceDefinitionSpec`.
            (
                ("apiextensions.k8s.io", "CustomResourceDefinition"),
                ["spec", "names", "singular"],
            ) => Some(vec![json!(crate::names::go_lowercase(&text(own, "kind")))]),
            (
                ("apiextensions.k8s.io", "CustomResourceDefinition"),
                ["spec", "names", "listKind"],
            ) => Some(vec![json!(format!("{}List", text(own, "kind")))]),
            // `SetDefaults_Job`: a per-index backoff limit makes the
            // job's own as good as none; a pod failure policy replaces
            // only failed pods.
            (("batch", "Job"), ["spec", "backoffLimit"]) => Some(vec![match own
                .get("backoffLimitPerIndex")
                .is_some_and(|l| !l.json().is_null())
            {
                true => json!(i32::MAX),
                false => json!(6),
            }]),
            (("batch", "Job"), ["spec", "podReplacementPolicy"]) => Some(vec![match own
                .get("podFailurePolicy")
                .is_some_and(|p| !p.json().is_null())
            {
                true => json!("Failed"),
                false => json!("TerminatingOrFailed"),
            }]),
            // `SetDefaults_ReplicationController`: an empty selector is the
            // template's labels.
            (("", "ReplicationController"), ["spec", "selector"]) => Some(
                (own.get("template").and_then(|t| t.get("metadata")))
                    .and_then(|m| m.get("labels"))
                    .map(Compared::json)
                    .into_iter()
                    .collect(),
            ),
            (("", "Namespace"), ["metadata", "labels", "kubernetes.io/metadata.name"]) => Some(
                (own.get("kubernetes.io/metadata.name").map(Compared::json))
                    .into_iter()
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Whether every leaf of `value` at `path` is a default (`other`: the
    /// other side's mapping at `parent`'s place, where it has one).
    fn covered<'a, T: Compared>(
        &self,
        path: &mut Vec<Step<'a>>,
        value: &'a T,
        parent: &'a T,
        other: Option<&'a T>,
    ) -> bool {
        if self.ignores(path) {
            return true;
        }
        if let Some(stored) = self.conditional(path, parent) {
            return stored.contains(&value.json());
        }
        let go = self.go_field(path);
        if let Some(fields) = value.fields() {
            if matches!(go, Some(Field::Pointer(_)))
                && !(self.default_at(path, parent) == Some(json!({}))
                    && self.made_where_absent(path, other))
            {
                // A struct is kept where written, even empty or of zero
                // values, unless the defaults make one where it is not.
                return false;
            }
            for (k, v) in fields {
                path.push(Step::key(k));
                let covered = self.covered(path, v, value, None);
                path.pop();
                if !covered {
                    return false;
                }
            }
            return true;
        }
        if (go == Some(Field::Zero) && is_zero(value))
            || (self.go.is_some() && value.is_empty() && !self.keeps_empty(path, value))
        {
            // A zero value of a field that cannot tell it from absence;
            // `null`, `[]` or `{}` where that says what absence says (a
            // built-in kind's: a custom resource keeps the JSON sent).
            return true;
        }
        match self.default_at(path, parent) {
            Some(default) => value.json() == default,
            None => false,
        }
    }

    /// Whether the defaults make the struct at `path` (one of `OBJECTS`'
    /// `{}`) on the side that lacks it, `other` the mapping that would hold
    /// it there (`None`: that side lacks the mapping too): a StatefulSet's
    /// `rollingUpdate` only where its strategy's type is unset, a
    /// Deployment's or DaemonSet's where it is unset or `RollingUpdate`.
    fn made_where_absent<T: Compared>(&self, path: &[Step<'_>], other: Option<&T>) -> bool {
        let Some((_, kind)) = self.kind else {
            return true;
        };
        if path.last().is_none_or(|step| step.name != "rollingUpdate") {
            return true;
        }
        let kind_of_strategy = other
            .and_then(|strategy| strategy.get("type"))
            .and_then(Tree::text)
            .unwrap_or_default();
        match kind {
            "StatefulSet" => kind_of_strategy.is_empty(),
            "Deployment" | "DaemonSet" => matches!(kind_of_strategy, "" | "RollingUpdate"),
            _ => true,
        }
    }

    /// The Go field at `path`, for a built-in kind.
    fn go_field(&self, path: &[Step<'_>]) -> Option<Field> {
        go_types::field(self.go?, path)
    }

    /// Whether `value`, empty and on one side only, is kept by the server
    /// (and so a change): `{}` in a pointer to a struct. Any other empty
    /// value says what an absent field says.
    pub(super) fn keeps_empty<T: Compared>(&self, path: &[Step<'_>], value: &T) -> bool {
        value.fields().is_some_and(|f| f.len() == 0)
            && matches!(self.go_field(path), Some(Field::Pointer(_)))
    }

    /// Whether a pointer to a struct the old manifest filled and the new
    /// one writes as `{}` is gone after the apply: server-side apply
    /// removes the fields only the old manifest wrote, then the map left
    /// empty (`ordinals: {start: 0}` to `{}` leaves no `ordinals`; measured
    /// on the server), where no default fills a field of it again.
    ///
    /// Only where the apply merges field by field: not below a list but a
    /// pod's containers (keyed by name; most other lists of structs are
    /// atomic, replaced whole, so a `{}` in one is kept), and not in a
    /// struct Kubernetes marks atomic (label and node selectors, the
    /// references to other objects and keys: `*Selector`, `*Ref`,
    /// `required…` of node affinity).
    pub(super) fn pruned<T: Compared>(&self, path: &[Step<'_>], old: &T, new: &T) -> bool {
        if !self.keeps_empty(path, new) {
            return false;
        }
        let merged = path.iter().enumerate().all(|(at, step)| {
            !step.item || (at > 0 && CONTAINER_LISTS.contains(&&*path[at - 1].name))
        });
        let atomic = path.iter().filter(|step| !step.item).any(|step| {
            let name = &*step.name;
            name.ends_with("elector")
                || name.ends_with("Ref")
                || name.ends_with("Reference")
                || name.starts_with("required")
        });
        // What the old manifest wrote that was stored: not `null`, nor an
        // empty list or map (omitted when the object is encoded; `add: []`
        // of capabilities never reaches etcd), but `{}` of a pointer.
        let stored = |name: &str, value: &T| {
            if !value.is_empty() {
                return true;
            }
            let mut at: Vec<Step<'_>> = path
                .iter()
                .map(|s| Step {
                    name: s.name.clone(),
                    item: s.item,
                })
                .collect();
            at.push(Step::key(name));
            self.keeps_empty(&at, value)
        };
        merged
            && !atomic
            && old
                .fields()
                .is_some_and(|mut f| f.any(|(name, v)| stored(name, v)))
            && !self.defaults_below(path)
    }

    /// Whether a default lies below `path` (or may: a custom resource's
    /// schema is not searched).
    fn defaults_below(&self, path: &[Step<'_>]) -> bool {
        let Some((group, kind)) = self.kind else {
            return true;
        };
        let below = |pattern: &str, path: &[Step<'_>]| {
            let parts: Vec<&str> = pattern.split('.').collect();
            parts.len() > path.len()
                && parts
                    .iter()
                    .zip(path)
                    .all(|(p, s)| *p == "*" || *p == s.name)
        };
        if self.schema.is_some() {
            return true;
        }
        if let Some(spec) = self.pod_spec
            && path.len() >= spec.len()
            && path.iter().zip(spec).all(|(s, p)| !s.item && s.name == *p)
        {
            let rest = &path[spec.len()..];
            // A container's `imagePullPolicy` too.
            return rest.len() <= 2 || POD_SPEC.iter().any(|(pattern, _)| below(pattern, rest));
        }
        (OBJECTS.iter()).any(|(g, k, pattern, _)| (*g, *k) == (group, kind) && below(pattern, path))
    }

    /// Whether two values of one field, each beside what its own side
    /// holds (`old_in`, `new_in`: the mappings holding them), are one value
    /// to the server: a Service port's `targetPort`, `0` or `""` being its
    /// `port`; a User's or Group's binding subject `apiGroup`, `""` being
    /// the RBAC group (the subject's `kind` is beside it).
    pub(super) fn same_beside<T: Compared>(
        &self,
        path: &[Step<'_>],
        (old, old_in): (&T, &T),
        (new, new_in): (&T, &T),
    ) -> bool {
        // A User's or Group's `apiGroup` written empty is the RBAC group:
        // the defaults fill it in where it is empty, not only absent.
        if let Some(("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding")) = self.kind
        {
            let person = |within: &T| {
                matches!(
                    within.get("kind").and_then(Tree::text),
                    Some("User" | "Group")
                )
            };
            let group = |value: &T| matches!(value.text(), Some("" | RBAC));
            return matches!(path, [subjects, _, field] if subjects.name == "subjects" && field.name == "apiGroup")
                && person(old_in)
                && person(new_in)
                && group(old)
                && group(new);
        }
        if self.kind != Some(("", "Service")) {
            return false;
        }
        let at: Vec<&str> = path.iter().map(|s| &*s.name).collect();
        if !matches!(at.as_slice(), ["spec", "ports", _, "targetPort"]) {
            return false;
        }
        let target = |value: &T, port: &T| match is_zero(value) {
            true => port.get("port").map(Compared::json),
            false => Some(value.json()),
        };
        let old = target(old, old_in);
        old.is_some() && old == target(new, new_in)
    }

    /// The default at `path`, if any; `parent` is the mapping holding it.
    fn default_at<T: Compared>(&self, path: &[Step<'_>], parent: &T) -> Option<Json> {
        let (group, kind) = self.kind?;
        if self.schema.is_some() {
            return self.schema_default(path);
        }
        if let Some(spec) = self.pod_spec
            && path.len() > spec.len()
            && path.iter().zip(spec).all(|(s, p)| !s.item && s.name == *p)
        {
            let rest = &path[spec.len()..];
            if let [list, _, field] = rest
                && CONTAINER_LISTS.contains(&&*list.name)
                && field.name == "imagePullPolicy"
            {
                return Some(json!(pull_policy(
                    parent.get("image").and_then(Tree::text)?
                )));
            }
            // An image volume's `pullPolicy`, by the same rule.
            if let [list, _, source, field] = rest
                && (&*list.name, &*source.name, &*field.name) == ("volumes", "image", "pullPolicy")
            {
                return Some(json!(pull_policy(
                    parent.get("reference").and_then(Tree::text)?
                )));
            }
            for (pattern, default) in POD_SPEC {
                if pod_spec_matches(pattern, rest) {
                    return Some(default());
                }
            }
            return None;
        }
        OBJECTS
            .iter()
            .find(|(g, k, pattern, _)| (*g, *k) == (group, kind) && matches(pattern, path))
            .map(|(_, _, _, default)| default())
    }

    /// Whether two scalars that differ as written are the same to the
    /// server: one quantity in two notations, in a field that holds
    /// quantities; a Service's cluster IP written empty.
    pub(super) fn same_scalar<T: Compared>(&self, path: &[Step<'_>], old: &T, new: &T) -> bool {
        if self.kind.is_none() {
            return false;
        }
        let go = self.go_field(path);
        if [old, new].iter().all(|v| is_zero(*v) || v.is_empty()) && go == Some(Field::Zero) {
            // `null` and a zero value: both are the field unset.
            return true;
        }
        if self.go.is_some()
            && [old, new].iter().all(|v| v.is_empty())
            && !matches!(go, Some(Field::Pointer(_)))
        {
            // `null` and `{}` or `[]` of a struct that is no pointer, a
            // list or a map: one stored object.
            return true;
        }
        if self.kind == Some(("", "Service"))
            && path.len() == 2
            && path[0].name == "spec"
            && path[1].name == "clusterIP"
            && new.text() == Some("")
        {
            return true;
        }
        let unset = |v: &T| v.json().is_null() || (go == Some(Field::Zero) && v.text() == Some(""));
        if (unset(old) || unset(new))
            && let Some(default) = self.default_at(path, old)
            && [(old, new), (new, old)]
                .iter()
                .any(|(a, b)| unset(a) && b.json() == default)
        {
            // `null`, and `""` of a field that is no pointer, are the field
            // unset, which the defaults fill in.
            return true;
        }
        if matches!(
            self.kind,
            Some((
                "rbac.authorization.k8s.io",
                "RoleBinding" | "ClusterRoleBinding"
            ))
        ) && path.len() == 2
            && path[0].name == "roleRef"
            && path[1].name == "apiGroup"
        {
            let group = |v: &T| matches!(v.text(), Some("" | RBAC));
            return group(old) && group(new);
        }
        let limit_range = self.kind == Some(("", "LimitRange"))
            && path.len() >= 2
            && matches!(
                &*path[path.len() - 2].name,
                "default" | "defaultRequest" | "max" | "min" | "maxLimitRequestRatio"
            );
        // Amounts of a resource list are rounded up to a thousandth
        // (`SetDefaults_ResourceList`); a RuntimeClass's and a size limit
        // are not.
        let rounded = limit_range
            || (holds_quantities(path)
                && path.last().is_some_and(|p| p.name != "sizeLimit")
                && path.len() >= 2
                && path[path.len() - 2].name != "podFixed");
        (holds_quantities(path) || limit_range || self.holds_a_quantity(path))
            && match (stored(old, rounded), stored(new, rounded)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            }
    }

    /// Whether the field at `path` is one quantity of its kind, stored as
    /// the server writes it and not rounded: a `resourceFieldRef`'s
    /// `divisor` (in every pod spec), an HPA metric's target or current
    /// `value` and `averageValue`, a CSIStorageCapacity's `capacity` and
    /// `maximumVolumeSize`.
    fn holds_a_quantity(&self, path: &[Step<'_>]) -> bool {
        let (Some(last), n) = (path.last(), path.len()) else {
            return false;
        };
        let parent = |name: &str| n >= 2 && path[n - 2].name == name;
        match self.kind {
            _ if self.schema.is_some() => false,
            Some(("autoscaling", "HorizontalPodAutoscaler")) => {
                matches!(&*last.name, "value" | "averageValue")
                    && (parent("target") || parent("current"))
            }
            Some(("storage.k8s.io", "CSIStorageCapacity")) => {
                n == 1 && matches!(&*last.name, "capacity" | "maximumVolumeSize")
            }
            _ => self.pod_spec.is_some() && last.name == "divisor" && parent("resourceFieldRef"),
        }
    }
}

/// Whether `value` is a scalar's zero value: `false`, `0`, `""`.
fn is_zero<T: Compared>(value: &T) -> bool {
    match value.json() {
        Json::Bool(b) => !b,
        Json::Number(n) => n.as_f64() == Some(0.0),
        Json::String(s) => s.is_empty(),
        _ => false,
    }
}

/// The RBAC API group, a User's or Group's subject's `apiGroup` default.
const RBAC: &str = "rbac.authorization.k8s.io";

/// `imagePullPolicy` as defaulted: `Always` for the `latest` tag (beside
/// a digest too) or no tag and no digest, else `IfNotPresent`.
fn pull_policy(image: &str) -> &'static str {
    // As the reference parser reads it: a digest leaves the tag, if any,
    // as written (`name:latest@sha256:…` is `latest`); a digest alone is
    // no tag, and no `latest`.
    let (name, digest) = match image.split_once('@') {
        Some((name, _)) => (name, true),
        None => (image, false),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rsplit_once(':') {
        Some((_, "latest")) => "Always",
        None if !digest => "Always",
        _ => "IfNotPresent",
    }
}

/// Whether a dotted pattern (`*` any one step) matches `path`.
fn matches(pattern: &str, path: &[Step<'_>]) -> bool {
    let parts: Vec<&str> = pattern.split('.').collect();
    parts.len() == path.len()
        && parts
            .iter()
            .zip(path)
            .all(|(p, s)| *p == "*" || *p == s.name)
}

/// [`matches`] below a pod spec: a leading `*.*` is a container (of any of
/// its lists), a following `*` a probe.
fn pod_spec_matches(pattern: &str, rest: &[Step<'_>]) -> bool {
    if !matches(pattern, rest) {
        return false;
    }
    if let Some(tail) = pattern.strip_prefix("*.*.") {
        if !CONTAINER_LISTS.contains(&&*rest[0].name) {
            return false;
        }
        if tail.starts_with("*.") {
            // `*.*.*.field`: a probe's field.
            return PROBES.contains(&&*rest[2].name);
        }
    }
    true
}

/// Whether a field at `path` holds a quantity: a resource list's entries
/// (`limits`, `requests`, a quota's `hard`, a volume's `capacity`, a
/// RuntimeClass's `podFixed`), an `emptyDir`'s `sizeLimit`.
fn holds_quantities(path: &[Step<'_>]) -> bool {
    let n = path.len();
    n >= 2
        && (path[n - 1].name == "sizeLimit"
            || matches!(
                &*path[n - 2].name,
                "limits" | "requests" | "hard" | "capacity" | "podFixed" | "overhead"
            ))
}

/// A scalar quantity as the API server stores it, if it reads as one
/// ([`crate::quantity::as_the_server_writes`]): `1000m` and `1` are both
/// `1`, while `1Gi` and `1073741824`, of two notations, stay apart, as
/// their stored texts (and a pod template's hash) do.
fn stored<T: Compared>(value: &T, rounded: bool) -> Option<String> {
    let text = match value.json() {
        Json::String(text) => crate::quantity::decoded(&text).to_owned(),
        Json::Number(number) => number.to_string(),
        _ => return None,
    };
    if rounded
        && let Some(text) = crate::quantity::Quantity::decode(&text)
            .ok()
            .and_then(crate::quantity::Quantity::rounded_to_milli)
    {
        return Some(text);
    }
    crate::quantity::as_the_server_writes(&text)
}

/// Two versions of an object as the API server stores them, where they
/// differ from what the manifests say in a way that reads the object's
/// other fields or the version before: Secrets ([`secrets_as_stored`]),
/// LimitRanges' items, bare Pods, PersistentVolumeClaims' data sources and
/// the protection finalizers of claims and volumes. `None` for the kinds
/// whose fields are compared as written.
pub(super) fn as_stored(group: &str, kind: &str) -> Option<AsStored> {
    match (group, kind) {
        ("", "Secret") => Some(|old, new, _| secrets_as_stored(old, new)),
        ("", "LimitRange") => Some(|old, new, _| {
            limit_range_as_stored(old);
            limit_range_as_stored(new);
        }),
        ("", "Pod") => Some(|old, new, declared| {
            let written = old.clone();
            pod_as_stored(old, declared, true);
            // An update is admitted by neither the RuntimeClass nor the
            // LimitRanger admission: what they wrote on create stays
            // where no manifest wrote the field, as server-side apply
            // keeps any field only the server wrote (`nodeSelector` and
            // `tolerations` are atomic: written, they replace it whole).
            let kept = |path: &[&str], new: &Json| {
                let at = |object: &Json| {
                    path.iter()
                        .try_fold(object, |o, key| o.get(*key))
                        .filter(|v| !v.is_null())
                        .cloned()
                };
                applied(at(new), at(&written).as_ref(), at(old))
            };
            for path in [
                &["spec", "overhead"][..],
                &["spec", "nodeSelector"],
                &["spec", "tolerations"],
                &["metadata", "annotations", LIMIT_RANGER],
            ] {
                let value = kept(path, new);
                put(new, path, value);
            }
            pod_as_stored(new, declared, false);
        }),
        ("", "PersistentVolumeClaim") => Some(|old, new, _| {
            claim_sources_as_stored(old, new);
            protected(old, new, "kubernetes.io/pvc-protection");
        }),
        ("", "PersistentVolume") => Some(|old, new, _| {
            protected(old, new, "kubernetes.io/pv-protection");
        }),
        _ => None,
    }
}

/// Brings two versions of an object to what the API server stores, given
/// what the new set declares ([`as_stored`]).
pub(super) type AsStored = fn(&mut Json, &mut Json, &Declared<'_>);

/// What server-side apply makes of `new` over `old`, field by field: a
/// field the new manifest writes is its; one only the old manifest wrote
/// is removed; one neither wrote keeps what the server stored
/// (`stored`, the old object as stored).
fn applied(new: Option<Json>, old: Option<&Json>, stored: Option<Json>) -> Option<Json> {
    new.or(if old.is_none() { stored } else { None })
}

/// Sets the member at `path` of `object` to `value`, the mappings on the
/// way made where missing, or removes it (`None`), nothing made.
fn put(object: &mut Json, path: &[&str], value: Option<Json>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = object;
    for key in parents {
        let Some(map) = at.as_object_mut() else {
            return;
        };
        if value.is_none() && map.get(*key).is_none_or(Json::is_null) {
            return;
        }
        let next = map.entry(*key).or_insert_with(|| json!({}));
        if next.is_null() {
            *next = json!({});
        }
        at = next;
    }
    let Some(map) = at.as_object_mut() else {
        return;
    };
    match value {
        Some(value) => {
            map.insert((*last).to_owned(), value);
        }
        None => {
            map.remove(*last);
        }
    }
}

/// A PersistentVolumeClaim's data sources as the API server stores them
/// (`NormalizeDataSources`, on create and on update): a `dataSource`
/// without a `dataSourceRef` is copied to it, and a `dataSourceRef` that
/// names no namespace, without a `dataSource`, to that (their `apiGroup`,
/// `kind` and `name`). The copy is the server's, so a new manifest that
/// leaves out the field the old one wrote keeps the copy, which is copied
/// back (measured on v1.35.4).
fn claim_sources_as_stored(old: &mut Json, new: &mut Json) {
    const KEYS: [&str; 2] = ["dataSource", "dataSourceRef"];
    crate::kube::defaults::claim(old);
    crate::kube::defaults::claim(new);
    let written =
        |claim: &Json| KEYS.map(|key| claim["spec"].get(key).filter(|v| !v.is_null()).cloned());
    let copied = |source: &Json| {
        let fields = ["apiGroup", "kind", "name"]
            .into_iter()
            .filter_map(|key| Some((key.to_owned(), source.get(key)?.clone())));
        Json::Object(fields.collect())
    };
    let normalized = |[source, reference]: [Option<Json>; 2]| match (source, reference) {
        (Some(source), None) => {
            let reference = copied(&source);
            [Some(source), Some(reference)]
        }
        (None, Some(reference))
            if reference
                .get("namespace")
                .and_then(Json::as_str)
                .is_none_or(str::is_empty) =>
        {
            [Some(copied(&reference)), Some(reference)]
        }
        sources => sources.into(),
    };
    // Each reference is a struct, which server-side apply merges field by
    // field: the copy's `apiGroup` stays under a reference written
    // without one.
    let merged = |new: Option<Json>, old: Option<&Json>, stored: Option<Json>| {
        let field = |object: Option<&Json>, key: &str| {
            object
                .and_then(|o| o.get(key))
                .filter(|v| !v.is_null())
                .cloned()
        };
        let fields: serde_json::Map<String, Json> = ["apiGroup", "kind", "name", "namespace"]
            .into_iter()
            .filter_map(|key| {
                let value = applied(
                    field(new.as_ref(), key),
                    field(old, key).as_ref(),
                    field(stored.as_ref(), key),
                );
                Some((key.to_owned(), value?))
            })
            .collect();
        (!fields.is_empty()).then_some(Json::Object(fields))
    };
    let (old_written, new_written) = (written(old), written(new));
    let old_stored = normalized(old_written.clone());
    let [a, b] = new_written;
    let new_stored = normalized([
        merged(a, old_written[0].as_ref(), old_stored[0].clone()),
        merged(b, old_written[1].as_ref(), old_stored[1].clone()),
    ]);
    for (claim, stored) in [(old, old_stored), (new, new_stored)] {
        if let Some(spec) = claim.get_mut("spec").and_then(Json::as_object_mut) {
            for (key, value) in KEYS.into_iter().zip(stored) {
                match value {
                    Some(value) => spec.insert(key.to_owned(), value),
                    None => spec.remove(key),
                };
            }
        }
    }
}

/// A claim's or volume's `finalizer` as the storage-protection admission
/// adds it on create, after those the manifest wrote. Server-side apply
/// counts it as the manager's where the manifest wrote finalizers of its
/// own, so an update whose manifest leaves it out removes it; where the
/// old manifest wrote none, it stays, first (measured on v1.35.4; the
/// protection controller adds it again within a second).
fn protected(old: &mut Json, new: &mut Json, finalizer: &str) {
    let list = |object: &Json| {
        (object["metadata"]["finalizers"].as_array())
            .cloned()
            .unwrap_or_default()
    };
    let written = list(old);
    let has = |list: &[Json]| list.iter().any(|x| x == finalizer);
    if !has(&written) {
        let mut stored = written.clone();
        stored.push(json!(finalizer));
        put(old, &["metadata", "finalizers"], Some(Json::Array(stored)));
    }
    let mut after = list(new);
    if written.is_empty() && !has(&after) {
        after.insert(0, json!(finalizer));
        put(new, &["metadata", "finalizers"], Some(Json::Array(after)));
    }
}

/// A Pod as the API server stores it, where its defaults read the pod's
/// other fields (`SetDefaults_Pod`, which a template never gets): each
/// container's and init container's missing request of a resource its
/// limit, on the host network a port's unset host port its container
/// port, and a negative termination grace period 1; and as the default
/// admission plugins leave it: the tolerations of `DefaultTolerationSeconds`
/// (5 minutes on a node not ready or unreachable) where none tolerates
/// those taints, then on `create` of `RuntimeClass` where the set
/// declares the class the pod names: its `overhead.podFixed` as the pod's
/// `overhead`, its `scheduling.nodeSelector` into the pod's, and its
/// tolerations after the pod's own ([`runtime_class_admitted`]). The
/// `LimitRanger` admission's container defaults are filled in on both
/// sides (an update keeps those the server wrote where no manifest writes
/// the amount), its annotation on `create` alone.
fn pod_as_stored(pod: &mut Json, declared: &Declared<'_>, create: bool) {
    let ranges: Vec<Json> = (pod["metadata"]["namespace"].as_str())
        .and_then(|namespace| declared.limit_ranges.get(namespace))
        .into_iter()
        .flatten()
        .map(|range| {
            let mut range = range.to_json();
            limit_range_as_stored(&mut range);
            range
        })
        .collect();
    let mut limited = Vec::new();
    let Some(spec) = pod.get_mut("spec").and_then(Json::as_object_mut) else {
        return;
    };
    let runtime = (spec.get("runtimeClassName").and_then(Json::as_str))
        .filter(|_| create)
        .and_then(|name| declared.runtimes.get(name))
        .map(|class| class.to_json());
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    if tolerations.is_null() {
        *tolerations = json!([]);
    }
    if let Some(tolerations) = tolerations.as_array_mut() {
        for taint in [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
        ] {
            let text = |t: &Json, key: &str| t[key].as_str().unwrap_or_default().to_owned();
            let tolerated = tolerations.iter().any(|t| {
                let (key, effect) = (text(t, "key"), text(t, "effect"));
                (key.is_empty() || key == taint) && (effect.is_empty() || effect == "NoExecute")
            });
            if !tolerated {
                tolerations.push(json!({"key": taint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
            }
        }
    }
    let host_network = spec.get("hostNetwork") == Some(&Json::Bool(true));
    if (spec
        .get("terminationGracePeriodSeconds")
        .and_then(Json::as_i64))
    .is_some_and(|s| s < 0)
    {
        spec.insert("terminationGracePeriodSeconds".to_owned(), json!(1));
    }
    for list in ["containers", "initContainers"] {
        let containers = spec.get_mut(list).and_then(Json::as_array_mut);
        for container in containers
            .into_iter()
            .flatten()
            .filter_map(Json::as_object_mut)
        {
            if host_network {
                let ports = container.get_mut("ports").and_then(Json::as_array_mut);
                for port in ports.into_iter().flatten() {
                    if let Some(filled) =
                        crate::kube::defaults::host_port_as_created(port, true).cloned()
                        && let Some(port) = port.as_object_mut()
                    {
                        port.insert("hostPort".to_owned(), filled);
                    }
                }
            }
            let Some(resources) = container.get_mut("resources").and_then(Json::as_object_mut)
            else {
                continue;
            };
            let limits = resources.get("limits").and_then(Json::as_object).cloned();
            let Some(limits) = limits.filter(|l| !l.is_empty()) else {
                continue;
            };
            let requests = resources.entry("requests").or_insert_with(|| json!({}));
            if requests.is_null() {
                *requests = json!({});
            }
            if let Some(requests) = requests.as_object_mut() {
                for (resource, amount) in limits {
                    requests.entry(resource).or_insert(amount);
                }
            }
        }
    }
    pod_requests_as_stored(spec);
    if !limit_ranger::bounded(spec, &ranges) {
        for range in &ranges {
            limit_ranger_admitted(spec, range, &mut limited);
        }
    }
    if let Some(runtime) = runtime {
        runtime_class_admitted(spec, &runtime);
    }
    if create
        && !limited.is_empty()
        && let Some(metadata) = pod.get_mut("metadata").and_then(Json::as_object_mut)
    {
        let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
        if annotations.is_null() {
            *annotations = json!({});
        }
        if let Some(annotations) = annotations.as_object_mut() {
            let text = format!("LimitRanger plugin set: {}", limited.join("; "));
            annotations.insert(LIMIT_RANGER.to_owned(), json!(text));
        }
    }
}

/// What the `RuntimeClass` admission writes into a pod on create, from
/// the class it names (`runtime`): the class's `overhead.podFixed` where
/// the pod has no `overhead`, the class's `scheduling.nodeSelector`
/// entries into the pod's, and the class's tolerations after the pod's
/// own, none covered by another ([`merged_tolerations`]; measured on
/// v1.35.4). Its admission runs after `DefaultTolerationSeconds`'.
fn runtime_class_admitted(spec: &mut serde_json::Map<String, Json>, runtime: &Json) {
    let fixed = &runtime["overhead"]["podFixed"];
    if fixed.is_object() && spec.get("overhead").is_none_or(Json::is_null) {
        spec.insert("overhead".to_owned(), fixed.clone());
    }
    if let Some(selector) = runtime["scheduling"]["nodeSelector"].as_object() {
        let own = spec.entry("nodeSelector").or_insert_with(|| json!({}));
        if own.is_null() {
            *own = json!({});
        }
        if let Some(own) = own.as_object_mut() {
            for (key, value) in selector {
                own.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(tolerations) = runtime["scheduling"]["tolerations"].as_array() {
        let own = spec.entry("tolerations").or_insert_with(|| json!([]));
        if own.is_null() {
            *own = json!([]);
        }
        if let Some(own) = own.as_array_mut() {
            let all: Vec<Json> = own.iter().chain(tolerations).cloned().collect();
            *own = merged_tolerations(&all);
        }
    }
}

/// `all` without those another covers (`MergeTolerations`): one covered
/// by one kept before it, or by a different one after it. That compares
/// each pair, so past [`MERGED_AT_MOST`] tolerations (a hostile input:
/// the API server's own merge is as quadratic) only exact repeats are
/// dropped.
fn merged_tolerations(all: &[Json]) -> Vec<Json> {
    if all.len() > MERGED_AT_MOST {
        let mut seen = HashSet::new();
        return (all.iter())
            .filter(|t| seen.insert(t.to_string()))
            .cloned()
            .collect();
    }
    let mut merged: Vec<Json> = Vec::new();
    for (i, t) in all.iter().enumerate() {
        let covered_before = merged.iter().any(|kept| covers(kept, t));
        let covered_after = all[i + 1..]
            .iter()
            .any(|later| later != t && covers(later, t));
        if !covered_before && !covered_after {
            merged.push(t.clone());
        }
    }
    merged
}

/// The most tolerations [`merged_tolerations`] compares pair by pair.
const MERGED_AT_MOST: usize = 1_000;

/// Whether toleration `wide` tolerates all that `t` does (`isSuperset`).
fn covers(wide: &Json, t: &Json) -> bool {
    if wide == t {
        return true;
    }
    let text = |v: &Json, key: &str| v[key].as_str().unwrap_or_default().to_owned();
    let (key, operator) = (text(wide, "key"), text(wide, "operator"));
    if text(t, "key") != key && (!key.is_empty() || operator != "Exists") {
        return false;
    }
    let effect = text(wide, "effect");
    if text(t, "effect") != effect && !effect.is_empty() {
        return false;
    }
    if effect == "NoExecute"
        && let Some(limit) = wide["tolerationSeconds"].as_i64()
        && t["tolerationSeconds"]
            .as_i64()
            .is_none_or(|own| own > limit)
    {
        return false;
    }
    match operator.as_str() {
        "Equal" | "" => text(t, "operator") == "Equal" && text(t, "value") == text(wide, "value"),
        "Exists" => true,
        _ => false,
    }
}

/// A pod's own resources (`spec.resources`) as its defaults fill them in
/// (the `PodLevelResources` gate is on by default since v1.34; measured
/// on v1.35.4), after the containers' defaults, where the pod writes
/// limits or requests of its own: each huge page size the containers limit
/// and the pod does not is the containers' effective limit
/// (`defaultHugePagePodLimits`); then, where the pod has limits, each
/// missing request of CPU or memory is the containers' effective request,
/// and each still missing request of CPU, memory or huge pages is its
/// limit (`defaultPodRequests`).
fn pod_requests_as_stored(spec: &mut serde_json::Map<String, Json>) {
    let own = |key: &str| match spec.get("resources").map(|r| &r[key]) {
        Some(Json::Object(list)) => list.clone(),
        _ => serde_json::Map::new(),
    };
    let (mut limits, requests) = (own("limits"), own("requests"));
    if limits.is_empty() && requests.is_empty() {
        return;
    }
    let list = |key: &str| {
        spec.get(key)
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (containers, init) = (list("containers"), list("initContainers"));
    let huge_pages = |resource: &str| resource.starts_with("hugepages-");
    for (resource, limit) in effective(&containers, &init, "limits", &huge_pages) {
        limits.entry(resource).or_insert_with(|| json!(limit));
    }
    if limits.is_empty() {
        return;
    }
    let cpu_memory = |resource: &str| matches!(resource, "cpu" | "memory");
    let filled: Vec<(String, Json)> = (effective(&containers, &init, "requests", &cpu_memory))
        .into_iter()
        .map(|(resource, request)| (resource, json!(request)))
        .collect();
    let pod_level =
        |resource: &str| matches!(resource, "cpu" | "memory") || resource.starts_with("hugepages-");
    let filled: Vec<(String, Json)> = (filled.into_iter().chain(limits.clone()))
        .filter(|(resource, _)| pod_level(resource))
        .collect();
    let Some(resources) = spec.get_mut("resources").and_then(Json::as_object_mut) else {
        return;
    };
    resources.insert("limits".to_owned(), Json::Object(limits));
    let requests = resources.entry("requests").or_insert_with(|| json!({}));
    if requests.is_null() {
        *requests = json!({});
    }
    if let Some(requests) = requests.as_object_mut() {
        for (resource, amount) in filled {
            requests.entry(resource).or_insert(amount);
        }
    }
}

/// The containers' effective amount of each resource `wanted` in their
/// `field` (`limits` or `requests`), as `AggregateContainerLimits` and
/// `AggregateContainerRequests` count it, in their order of additions:
/// the containers' and sidecars' sum, or the largest init container's
/// beside the sidecars started before it, whichever is more; as the
/// server writes it; none where no container gives one. One pass over
/// the containers' own amounts, however many resources: a sidecar's own
/// running sum is never above the sum (which holds every sidecar), so
/// only an init container that is no sidecar can exceed it, and only in
/// a resource it names.
pub(super) fn effective<'a>(
    containers: &'a [Json],
    init: &'a [Json],
    field: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> std::collections::BTreeMap<String, String> {
    use std::collections::BTreeMap;
    let amounts = |container: &'a Json| {
        let list = container["resources"][field].as_object();
        (list.into_iter().flatten()).filter_map(move |(resource, written)| {
            if !wanted(resource) {
                return None;
            }
            let value = crate::quantity::of_value(written)?.ok()?;
            let notation = match written {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            Some((resource.clone(), Carried { value, notation }))
        })
    };
    let add = |into: &mut BTreeMap<String, Carried>, resource: &String, amount: &Carried| {
        let sum = Carried::plus(into.remove(resource), Some(amount.clone()));
        into.insert(resource.clone(), sum.expect("an amount was added"));
    };
    let mut sum = BTreeMap::new();
    for container in containers {
        for (resource, amount) in amounts(container) {
            add(&mut sum, &resource, &amount);
        }
    }
    let (mut sidecars, mut largest) = (BTreeMap::new(), BTreeMap::<String, Carried>::new());
    for container in init {
        let sidecar = container["restartPolicy"] == "Always";
        for (resource, amount) in amounts(container) {
            if sidecar {
                add(&mut sum, &resource, &amount);
                add(&mut sidecars, &resource, &amount);
            } else {
                let this = Carried::plus(Some(amount), sidecars.get(&resource).cloned());
                let kept = Carried::larger(largest.remove(&resource), this);
                largest.extend(kept.map(|kept| (resource, kept)));
            }
        }
    }
    for (resource, this) in largest {
        let kept = Carried::larger(sum.remove(&resource), Some(this));
        sum.extend(kept.map(|kept| (resource, kept)));
    }
    (sum.into_iter())
        .map(|(resource, total)| {
            let text = crate::quantity::written_like(total.value, &total.notation);
            (resource, text)
        })
        .collect()
}

/// An amount as apimachinery's `Quantity` carries it through a sum: its
/// value, and the text whose notation it keeps (the first addend's that
/// is not zero).
#[derive(Clone)]
struct Carried {
    value: crate::quantity::Quantity,
    notation: String,
}

impl Carried {
    /// `a + b` (`addResourceList`): either alone where the other is absent.
    fn plus(a: Option<Carried>, b: Option<Carried>) -> Option<Carried> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Carried {
                value: a.value.saturating_add(b.value),
                notation: if a.value == crate::quantity::Quantity::ZERO {
                    b.notation
                } else {
                    a.notation
                },
            }),
            (a, b) => a.or(b),
        }
    }

    /// The larger (`maxResourceList`): `b` only where it is more.
    fn larger(a: Option<Carried>, b: Option<Carried>) -> Option<Carried> {
        match (a, b) {
            (Some(a), Some(b)) if b.value > a.value => Some(b),
            (a, b) => a.or(b),
        }
    }
}

/// Two versions of a Secret as the API server stores them, where they
/// differ in the way they say it: a key in `stringData` on one side and in
/// `data` on the other is brought into `data` on both (base64 of the
/// text: the same bytes compare equal); `data` in its canonical base64;
/// `type` `Opaque` when none is written. A key in `stringData` on both
/// sides stays there, as written. A key only the old side's `stringData`
/// wrote, which the new side writes nowhere, is kept by the server.
pub(super) fn secrets_as_stored(old: &mut Json, new: &mut Json) {
    let in_data = |secret: &Json| -> Vec<String> {
        secret
            .get("data")
            .and_then(Json::as_object)
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default()
    };
    kept_string_data(old, new);
    let (old_data, new_data) = (in_data(old), in_data(new));
    // A key in both a side's `data` and its `stringData` is stored from
    // `stringData`, which wins.
    let (old_both, new_both) = (both(old, &old_data), both(new, &new_data));
    fold(old, &new_data);
    fold(new, &old_data);
    fold(old, &old_both);
    fold(new, &new_both);
    for secret in [old, new] {
        canonical_data(secret);
        if let Some(map) = secret.as_object_mut()
            && matches!(map.get("type"), None | Some(Json::Null))
                | matches!(map.get("type"), Some(Json::String(t)) if t.is_empty())
        {
            map.insert("type".to_owned(), json!("Opaque"));
        }
    }
}

/// Takes out of `old`'s `stringData` the keys that `new` writes in
/// neither `data` nor `stringData`, and `old` not in `data`: `stringData`
/// is never stored, so server-side apply has nothing of it to remove,
/// and the `data` entry it made stays as it was.
fn kept_string_data(old: &mut Json, new: &Json) {
    let kept = string_data_kept(old, new);
    let Some(Json::Object(strings)) = old.get_mut("stringData") else {
        return;
    };
    // One pass: removing key by key is quadratic in the keys.
    strings.retain(|key, _| !kept.contains(key));
    if strings.is_empty() {
        old.as_object_mut().map(|o| o.remove("stringData"));
    }
}

/// The keys of a Secret's old `stringData` that the server keeps when
/// `new` is applied over it: those `new` writes in neither `data` nor
/// `stringData`, and `old` not in `data` (`stringData` is never stored,
/// so server-side apply has nothing of it to remove, and the `data`
/// entry it made stays).
pub(super) fn string_data_kept(old: &Json, new: &Json) -> HashSet<String> {
    // The old manifest's `data` map is its own whole: where the new one
    // writes no `data`, the apply removes the map, and every key in it,
    // those the old `stringData` made too (measured on v1.35.4).
    let map = |secret: &Json| secret.get("data").is_some_and(|d| !d.is_null());
    if map(old) && !map(new) {
        return HashSet::new();
    }
    let written = |field: &str, key: &str| new.get(field).and_then(|m| m.get(key)).is_some();
    let in_old_data = |key: &str| old.get("data").and_then(|m| m.get(key)).is_some();
    (old.get("stringData")
        .and_then(Json::as_object)
        .into_iter()
        .flatten())
    .map(|(key, _)| key)
    .filter(|k| !written("data", k) && !written("stringData", k) && !in_old_data(k))
    .cloned()
    .collect()
}

/// The keys of `data` (`keys`) that `secret`'s `stringData` writes too.
fn both(secret: &Json, keys: &[String]) -> Vec<String> {
    let strings = secret.get("stringData").and_then(Json::as_object);
    (keys.iter())
        .filter(|k| strings.is_some_and(|s| s.contains_key(*k)))
        .cloned()
        .collect()
}

/// Moves the `stringData` entries named in `keys` into `data`, base64.
fn fold(secret: &mut Json, keys: &[String]) {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    let Some(map) = secret.as_object_mut() else {
        return;
    };
    let Some(Json::Object(strings)) = map.get_mut("stringData") else {
        return;
    };
    let moved: Vec<(String, Json)> = keys
        .iter()
        .filter_map(|k| Some((k.clone(), strings.shift_remove(k)?)))
        .collect();
    if moved.is_empty() {
        return;
    }
    if strings.is_empty() {
        map.remove("stringData");
    }
    let data = map.entry("data").or_insert_with(|| json!({}));
    if let Json::Object(data) = data {
        for (key, value) in moved {
            let value = match value {
                Json::String(text) => Json::String(engine.encode(text)),
                other => other,
            };
            data.insert(key, value);
        }
    }
}

/// `data`'s values in canonical base64 (padding, no line breaks).
fn canonical_data(secret: &mut Json) {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    if let Some(Json::Object(data)) = secret.get_mut("data") {
        for value in data.values_mut() {
            if let Json::String(text) = value {
                let compact: String = text.split_whitespace().collect();
                if let Ok(bytes) = engine.decode(compact) {
                    *text = engine.encode(bytes);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pull policy the server writes depends on the image's tag, not
    /// on a registry's port.
    #[test]
    fn pull_policy_follows_the_tag() {
        for (image, policy) in [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            ("registry:5000/app", "Always"),
            ("registry:5000/app:1", "IfNotPresent"),
            ("app@sha256:0123", "IfNotPresent"),
            ("app:latest@sha256:0123", "Always"),
            ("registry:5000/app:1@sha256:0123", "IfNotPresent"),
            ("registry:5000/app@sha256:0123", "IfNotPresent"),
        ] {
            assert_eq!(pull_policy(image), policy, "{image}");
        }
    }

    /// Key by key, the same bytes as `stringData` or `data` are equal; a
    /// key in `stringData` on both sides stays there; no type is `Opaque`.
    /// `MergeTolerations` compares every pair: up to its bound a covered
    /// toleration goes, past it (a hostile number, which would take
    /// minutes) only exact repeats do, so the cost stays linear.
    #[test]
    fn merged_tolerations_are_bounded() {
        let own = json!({"key": "gpu", "operator": "Equal", "value": "1"});
        let wide = json!({"key": "gpu", "operator": "Exists"});
        assert_eq!(
            merged_tolerations(&[own.clone(), wide.clone()]),
            vec![wide.clone()]
        );
        let many: Vec<Json> = (0..=MERGED_AT_MOST)
            .map(|i| json!({"key": format!("k{i}"), "operator": "Exists"}))
            .chain([own.clone(), wide.clone(), wide.clone()])
            .collect();
        let merged = merged_tolerations(&many);
        assert_eq!(merged.len(), MERGED_AT_MOST + 3, "only the repeat goes");
        assert_eq!(merged[merged.len() - 2..], [own, wide]);
    }

    #[test]
    fn secrets_compare_as_stored() {
        let mut old =
            json!({"kind": "Secret", "data": {"a": "aHVudGVy\nMg=="}, "stringData": {"b": "x"}});
        let mut new =
            json!({"kind": "Secret", "type": "Opaque", "stringData": {"a": "hunter2", "b": "x"}});
        secrets_as_stored(&mut old, &mut new);
        assert_eq!(old, new);
        assert_eq!(new["data"]["a"], "aHVudGVyMg==");
        assert_eq!(new["stringData"]["b"], "x");
    }

    /// Defaults that depend on the object, and on the side, as a real
    /// v1.35 server stored them (`tests/fixtures/diff-server`): a
    /// Namespace's name label, whatever its value; a Job's `completions: 1`
    /// written (no change) or dropped (the field goes: refused); a
    /// ServiceAccount subject's empty `apiGroup`.
    /// Whether `diff` finds a change from the manifests `old` to `new`.
    fn changed(old: &str, new: &str) -> bool {
        let old = crate::input::parse("old.yaml", old).unwrap().manifests;
        let new = crate::input::parse("new.yaml", new).unwrap().manifests;
        !crate::diff::diff(&old, &new, &[]).changed.is_empty()
    }

    /// A built-in kind's empty values say what absence says (protobuf
    /// keeps no empty list), a custom resource's do not (the JSON sent is
    /// kept); a StatefulSet's `rollingUpdate: {}` is made by the defaults
    /// only where its strategy's type is unset.
    #[test]
    fn empty_values_by_how_the_kind_is_stored() {
        let widget = |spec: &str| {
            format!(
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w, namespace: a}}\nspec: {spec}\n"
            )
        };
        assert!(changed(&widget("{}"), &widget("{foo: {items: []}}")));
        assert!(changed(&widget("{}"), &widget("{foo: {items: null}}")));
        let config = |data: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: a}}\nspec: {{containers: [{{name: c, image: x, {data}}}]}}\n"
            )
        };
        assert!(!changed(&config("env: []"), &config("env: null")));
        assert!(!changed(&config("args: []"), &config("ports: []")));
        let sts = |strategy: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s, namespace: a}}\nspec:\n  serviceName: s\n  selector: {{matchLabels: {{a: b}}}}\n  template: {{metadata: {{labels: {{a: b}}}}, spec: {{containers: [{{name: c, image: x}}]}}}}\n  updateStrategy: {strategy}\n"
            )
        };
        assert!(!changed(&sts("{}"), &sts("{rollingUpdate: {}}")));
        assert!(changed(
            &sts("{type: RollingUpdate}"),
            &sts("{type: RollingUpdate, rollingUpdate: {}}")
        ));
    }

    #[test]
    fn defaults_that_depend_on_the_object() {
        let ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: n1}\n";
        for label in ["n1", "other"] {
            let labelled = format!(
                "apiVersion: v1\nkind: Namespace\nmetadata: {{name: n1, labels: {{kubernetes.io/metadata.name: {label}}}}}\n"
            );
            assert!(
                !changed(ns, &labelled) && !changed(&labelled, ns),
                "{label}"
            );
        }
        let job = |extra: &str| {
            format!(
                "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j, namespace: a}}\nspec:\n  suspend: true\n{extra}  template:\n    spec:\n      restartPolicy: Never\n      containers: [{{name: c, image: 'busybox:1.36'}}]\n"
            )
        };
        assert!(!changed(&job(""), &job("  completions: 1\n")));
        assert!(!changed(
            &job(""),
            &job("  completions: 1\n  parallelism: 1\n")
        ));
        assert!(changed(&job("  completions: 1\n"), &job("")));
        // Dropped alone, `parallelism: 1` makes the server write
        // `completions: 1`; dropped together, both come back as they were.
        assert!(changed(&job("  parallelism: 1\n"), &job("")));
        assert!(!changed(
            &job("  completions: 1\n  parallelism: 1\n"),
            &job("")
        ));
        assert!(changed(
            &job("  parallelism: 2\n"),
            &job("  parallelism: 2\n  completions: 1\n")
        ));
        let binding = |group: &str| {
            format!(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: b, namespace: a}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\nsubjects: [{{kind: ServiceAccount, name: s, namespace: a{group}}}]\n"
            )
        };
        assert!(!changed(&binding(""), &binding(", apiGroup: ''")));
        // Filled in where missing: a ClientIP timeout, policy types.
        let service = |config: &str| {
            format!(
                "apiVersion: v1\nkind: Service\nmetadata: {{name: s, namespace: a}}\nspec: {{sessionAffinity: ClientIP, ports: [{{port: 80}}]{config}}}\n"
            )
        };
        for config in [
            "{}",
            "{clientIP: {}}",
            "{clientIP: {timeoutSeconds: 10800}}",
        ] {
            let written = format!(", sessionAffinityConfig: {config}");
            assert!(!changed(&service(""), &service(&written)), "{config}");
        }
        assert!(changed(
            &service(""),
            &service(", sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}")
        ));
        let policy = |types: &str| {
            format!(
                "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: p, namespace: a}}\nspec: {{podSelector: {{}}, egress: [{{}}]{types}}}\n"
            )
        };
        for types in [", policyTypes: []", ", policyTypes: [Ingress, Egress]"] {
            assert!(!changed(&policy(""), &policy(types)), "{types}");
        }
        assert!(changed(&policy(""), &policy(", policyTypes: [Ingress]")));
        assert!(changed(
            &binding(""),
            &binding(", apiGroup: rbac.authorization.k8s.io")
        ));
    }
}
