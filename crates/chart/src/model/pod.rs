//! The pod settings every workload takes: where its pods run, which pull
//! secrets they use, and the labels and annotations they carry.
//!
//! The Kubernetes structures are k8s-openapi's types (built for Kubernetes
//! 1.33, the oldest version the chart supports, so no field a supported
//! cluster lacks), whose schemars schemas become part of the values schema.
//! Their generated schemas state less than the API server checks (open
//! objects, plain strings where the server takes a few words), so
//! [`api_server_schema`] closes them and adds those words and ranges, and
//! [`check`] runs the API server's rules across their fields
//! ([`kubernetes::scheduling`], which `check` runs on any manifest too) and the
//! chart's own.
//!
//! Trust-class invariant: nothing here can reach a volume, a host namespace
//! or a security context. [`PodSettings`] has no such field, nor has any
//! type it holds (`Toleration`, `Affinity`, `TopologySpreadConstraint`,
//! `LocalObjectReference`: scheduling and names only); the compile-fail case
//! `tests/ui/pod_settings_carry_no_privilege.rs` keeps it so. What remains
//! of privilege in labels and annotations (Kata's `io.katacontainers.*`
//! overrides, AppArmor and seccomp annotations) is refused by [`check`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, LocalObjectReference, Toleration, TopologySpreadConstraint,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json, json};

use super::violation::{RESERVED_PREFIXES, RuleBreach};
use kubernetes::location::KeyPath;
use kubernetes::names;

/// Scheduling, pull secrets and pod metadata of one workload. Each is
/// rendered into the pod as written; none can add a volume, a host
/// namespace or a security context.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct PodSettings {
    /// Node labels the pods' node must carry (`nodeSelector`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Taints the pods tolerate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Node and pod affinity and anti-affinity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    /// How the pods spread over zones or nodes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    /// The PriorityClass of the pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// Secrets in the pods' namespace holding registry credentials.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub image_pull_secrets: Vec<LocalObjectReference>,
    /// Labels added to the pods (not to the workload object).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pod_labels: BTreeMap<String, String>,
    /// Annotations added to the pods.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pod_annotations: BTreeMap<String, String>,
}

impl PodSettings {
    /// The pod spec fields these settings set, by their pod spec name, in
    /// the pod spec's order; unset ones absent. `fixed` node labels (the
    /// chart's own, such as Kata's node label) join the node selector.
    pub fn spec(&self, fixed: &[(&str, &str)]) -> Map<String, Json> {
        let mut spec = Map::new();
        let mut selector = self.node_selector.clone();
        for (key, value) in fixed {
            selector.insert((*key).to_owned(), (*value).to_owned());
        }
        let fields = [
            (
                "nodeSelector",
                (!selector.is_empty()).then(|| json!(selector)),
            ),
            ("affinity", self.affinity.as_ref().map(|a| json!(a))),
            (
                "tolerations",
                (!self.tolerations.is_empty()).then(|| json!(self.tolerations)),
            ),
            (
                "topologySpreadConstraints",
                (!self.topology_spread_constraints.is_empty())
                    .then(|| json!(self.topology_spread_constraints)),
            ),
            (
                "priorityClassName",
                self.priority_class_name.as_ref().map(|p| json!(p)),
            ),
            (
                "imagePullSecrets",
                (!self.image_pull_secrets.is_empty()).then(|| json!(self.image_pull_secrets)),
            ),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                spec.insert(key.to_owned(), value);
            }
        }
        spec
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == PodSettings::default()
    }
}

/// Whose pods: the key path of their settings and how much they are trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// The control plane or the node plumbing: the cluster's own.
    Platform,
    /// The build daemons, which run untrusted builds.
    Untrusted,
}

/// Annotation prefixes no pod of the chart may carry: Kata reads
/// `io.katacontainers.*` annotations as overrides of the VM's
/// configuration (hypervisor, kernel, paths), and the AppArmor and seccomp
/// annotations (the pod's and each container's) set what the pod's
/// security context decides.
pub const PRIVILEGED_ANNOTATIONS: [&str; 4] = [
    "io.katacontainers.",
    "container.apparmor.security.beta.kubernetes.io/",
    "seccomp.security.alpha.kubernetes.io/",
    "container.seccomp.security.alpha.kubernetes.io/",
];

/// Node label keys whose taint untrusted pods may not tolerate: the control
/// plane's.
const CONTROL_PLANE_TAINTS: [&str; 2] = [
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
];

/// Checks the settings at `at` (such as `buildd` or `builds.daemon`), whose
/// pods are trusted as `trust`; `fixed` are node labels the chart sets.
/// The API server's own rules come from [`kubernetes::scheduling`], run on the
/// pod spec fields the settings write (their keys are the pod spec's).
pub fn check(
    settings: &PodSettings,
    at: &KeyPath,
    trust: Trust,
    fixed: &[&str],
    violations: &mut Vec<RuleBreach>,
) {
    let mut report = |path: KeyPath, message: String, hint: Option<&str>| {
        violations.push(RuleBreach {
            at_key: super::violation::names_its_key(&path, &message),
            path,
            also: Vec::new(),
            message,
            hint: hint.map(str::to_owned),
        });
    };
    let mut found = Vec::new();
    kubernetes::scheduling::pod(&settings.spec(&[]).into(), at, &mut found);
    for (path, message) in found {
        report(path, message, Some(API_SERVER_HINT));
    }
    metadata(settings, at, fixed, &mut report);
    if trust == Trust::Untrusted {
        untrusted(settings, at, &mut report);
    }
}

/// The hint of a rule the API server states: where its words are listed.
const API_SERVER_HINT: &str = "the API server would refuse this; the field's words are in its API reference (docs/values.md, Pod settings)";

/// Where a rule of the values says what it refuses: the path, the
/// message, and the hint, if any.
type Complaint<'a> = dyn FnMut(KeyPath, String, Option<&str>) + 'a;

/// Node selector keys the chart sets, pod labels and annotations: valid
/// keys and values, none the chart sets itself, no annotation that reaches
/// privilege.
fn metadata(settings: &PodSettings, at: &KeyPath, fixed: &[&str], report: &mut Complaint<'_>) {
    for key in settings.node_selector.keys() {
        if fixed.contains(&key.as_str()) {
            report(
                at.key("nodeSelector").key(key.clone()),
                format!("`{key}` is a node label the chart selects by itself"),
                Some("leave this key out; the chart sets it"),
            );
        }
    }
    for (key, value) in &settings.pod_labels {
        let path = at.key("podLabels").key(key.clone());
        if let Some(prefix) = RESERVED_PREFIXES.iter().find(|p| key.starts_with(*p)) {
            report(
                path,
                format!("`{key}` is under `{prefix}`, which the chart sets itself"),
                Some("choose a key under your own prefix, such as example.com/team"),
            );
            continue;
        }
        label(key, Some(value), path, report);
    }
    for key in settings.pod_annotations.keys() {
        let path = at.key("podAnnotations").key(key.clone());
        let reserved = RESERVED_PREFIXES.iter().chain(&PRIVILEGED_ANNOTATIONS);
        if let Some(prefix) = reserved.clone().find(|p| key.starts_with(*p)) {
            let why = if PRIVILEGED_ANNOTATIONS.contains(prefix) {
                "which changes what the pod is allowed to do"
            } else {
                "which the chart sets itself"
            };
            report(
                path,
                format!("`{key}` is under `{prefix}`, {why}"),
                Some(
                    "the trust classes decide sandboxing and security contexts; annotate under your own prefix",
                ),
            );
            continue;
        }
        label(key, None, path, report);
    }
    annotations_size(settings, at, report);
}

/// The API server's limit on a pod's annotations, keys and values together.
pub(crate) const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

/// The pod annotations within the API server's total: the build daemons'
/// are only in their pod template's text, which no later check reads.
fn annotations_size(settings: &PodSettings, at: &KeyPath, report: &mut Complaint<'_>) {
    let size: usize = settings
        .pod_annotations
        .iter()
        .map(|(key, value)| key.len() + value.len())
        .sum();
    if size > ANNOTATIONS_MAX_BYTES {
        report(
            at.key("podAnnotations"),
            format!(
                "the pod annotations hold {size} bytes; the API server takes at most {ANNOTATIONS_MAX_BYTES}"
            ),
            Some("keep large data out of annotations, in a ConfigMap for instance"),
        );
    }
}

/// A label (or, without value, annotation) key and its value.
fn label(key: &str, value: Option<&str>, path: KeyPath, report: &mut Complaint<'_>) {
    if let Err(why) = names::qualified_name(key) {
        let what = if value.is_some() {
            "label"
        } else {
            "annotation"
        };
        report(
            path,
            format!("`{key}` is not a valid {what} key: {why}"),
            Some(
                "keys are an optional DNS prefix and `/`, then at most 63 letters, digits, `-`, `_` or `.`",
            ),
        );
    } else if let Some(value) = value
        && let Err(why) = names::label_value(value)
    {
        report(
            path,
            format!("label value {value:?} is not valid: {why}"),
            Some(
                "label values are empty or at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit",
            ),
        );
    }
}

/// The build daemons run untrusted builds: no toleration of every taint or
/// of the control plane's, no `system-*` priority (those preempt the
/// cluster's own pods).
fn untrusted(settings: &PodSettings, at: &KeyPath, report: &mut Complaint<'_>) {
    for (i, toleration) in settings.tolerations.iter().enumerate() {
        let key = toleration.key.as_deref().unwrap_or("");
        if key.is_empty() || CONTROL_PLANE_TAINTS.contains(&key) {
            let what = if key.is_empty() {
                "every taint".to_owned()
            } else {
                format!("the control plane's taint `{key}`")
            };
            report(
                at.key("tolerations").index(i),
                format!("untrusted build daemons may not tolerate {what}"),
                Some("tolerate the taints of the nodes meant for builds, by key"),
            );
        }
    }
    if let Some(class) = &settings.priority_class_name
        && class.starts_with("system-")
    {
        report(
            at.key("priorityClassName"),
            format!("untrusted build daemons may not run at the `{class}` priority"),
            Some(
                "system-* priorities may preempt the cluster's own pods; use a PriorityClass of your own",
            ),
        );
    }
}

/// The words and ranges the API server accepts in the k8s-openapi types'
/// fields that their generated schemas leave as any string or integer:
/// `(definition, property, schema keywords to add)`.
const API_SERVER_WORDS: &[(&str, &str, &str)] = &[
    (
        "io.k8s.api.core.v1.Toleration",
        "operator",
        r#"{"enum": ["Exists", "Equal"]}"#,
    ),
    (
        "io.k8s.api.core.v1.Toleration",
        "effect",
        r#"{"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]}"#,
    ),
    (
        "io.k8s.api.core.v1.NodeSelectorRequirement",
        "operator",
        r#"{"enum": ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]}"#,
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
        "operator",
        r#"{"enum": ["In", "NotIn", "Exists", "DoesNotExist"]}"#,
    ),
    (
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "whenUnsatisfiable",
        r#"{"enum": ["DoNotSchedule", "ScheduleAnyway"]}"#,
    ),
    (
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "nodeAffinityPolicy",
        r#"{"enum": ["Honor", "Ignore"]}"#,
    ),
    (
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "nodeTaintsPolicy",
        r#"{"enum": ["Honor", "Ignore"]}"#,
    ),
    (
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "maxSkew",
        r#"{"minimum": 1}"#,
    ),
    (
        "io.k8s.api.core.v1.TopologySpreadConstraint",
        "minDomains",
        r#"{"minimum": 1}"#,
    ),
    (
        "io.k8s.api.core.v1.PreferredSchedulingTerm",
        "weight",
        r#"{"minimum": 1, "maximum": 100}"#,
    ),
    (
        "io.k8s.api.core.v1.WeightedPodAffinityTerm",
        "weight",
        r#"{"minimum": 1, "maximum": 100}"#,
    ),
    (
        "io.k8s.api.core.v1.LocalObjectReference",
        "name",
        r#"{"minLength": 1}"#,
    ),
];

/// Tightens the k8s-openapi definitions in the values schema's `$defs`
/// (`io.k8s.*`) to what the API server accepts: every object closed (an
/// unknown key is an error, as everywhere in the values), the words and
/// ranges of `API_SERVER_WORDS`, an `int32` within its range, and
/// `LocalObjectReference.name` required (a pull secret without a name
/// refers to nothing).
pub fn api_server_schema(schema: &mut Json) {
    let Some(defs) = schema.get_mut("$defs").and_then(Json::as_object_mut) else {
        return;
    };
    for (name, definition) in defs.iter_mut() {
        if !name.starts_with("io.k8s.") {
            continue;
        }
        close(definition);
        for (def, property, words) in API_SERVER_WORDS {
            if name != def {
                continue;
            }
            let words: Map<String, Json> =
                serde_json::from_str(words).expect("API_SERVER_WORDS are JSON objects");
            if let Some(Json::Object(target)) =
                definition.pointer_mut(&format!("/properties/{property}"))
            {
                target.extend(words);
            }
        }
        if name == "io.k8s.api.core.v1.LocalObjectReference" {
            definition["required"] = json!(["name"]);
        }
        // A port or a percentage: a number or a name, never anything else
        // (its generated schema takes any value).
        if name == "io.k8s.apimachinery.pkg.util.intstr.IntOrString" {
            definition["type"] = json!(["integer", "string"]);
        }
    }
}

/// Closes every object schema under `schema` and bounds its `int32`s.
fn close(schema: &mut Json) {
    let Json::Object(map) = schema else {
        return;
    };
    if map.contains_key("properties") && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".to_owned(), json!(false));
    }
    // An int64 needs no bound: the values reader refuses integers past it.
    if map.get("format").and_then(Json::as_str) == Some("int32") {
        map.entry("minimum").or_insert(json!(i32::MIN));
        map.entry("maximum").or_insert(json!(i32::MAX));
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" => {
                for property in child
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|m| m.values_mut())
                {
                    close(property);
                }
            }
            "items" | "additionalProperties" => close(child),
            "anyOf" | "oneOf" | "allOf" => {
                for branch in child.as_array_mut().into_iter().flatten() {
                    close(branch);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations_of(settings: &PodSettings, trust: Trust) -> Vec<String> {
        let mut violations = Vec::new();
        check(
            settings,
            &KeyPath::dotted("buildd"),
            trust,
            &[],
            &mut violations,
        );
        violations.into_iter().map(|v| v.message).collect()
    }

    #[test]
    fn a_per_container_seccomp_annotation_is_refused_like_the_pod_one() {
        for key in [
            "seccomp.security.alpha.kubernetes.io/pod",
            "container.seccomp.security.alpha.kubernetes.io/buildd",
        ] {
            let settings = PodSettings {
                pod_annotations: BTreeMap::from([(key.to_owned(), "unconfined".to_owned())]),
                ..PodSettings::default()
            };
            let found = violations_of(&settings, Trust::Platform);
            assert_eq!(found.len(), 1, "{key}: {found:?}");
            assert!(
                found[0].contains("changes what the pod is allowed to do"),
                "{key}: {found:?}"
            );
        }
    }

    #[test]
    fn pod_annotations_past_the_api_servers_total_are_refused() {
        let annotations = |size: usize| PodSettings {
            pod_annotations: BTreeMap::from([("example.com/a".to_owned(), "a".repeat(size))]),
            ..PodSettings::default()
        };
        // The key is 13 bytes: the API server takes 262144 in all.
        assert_eq!(
            violations_of(&annotations(262_131), Trust::Untrusted),
            Vec::<String>::new()
        );
        assert_eq!(
            violations_of(&annotations(262_132), Trust::Untrusted),
            ["the pod annotations hold 262145 bytes; the API server takes at most 262144"]
        );
    }
}
