//! Pods, by the Pod Security model ([`crate::pod_security`]): for each pod an object carries (every kind
//! [`pod_security::carried_pod`] knows, and a pod template held as text in
//! a ConfigMap, such as the one a controller starts its pods from), the
//! strongest level it satisfies and the controls it breaks, before and
//! after. A pod that satisfies only a weaker level, or breaks a control in
//! a new way (a host namespace, path or port, a capability, privilege, an
//! unconfined profile, root), is `security`, naming the control.
//!
//! The controls are evaluated with the rules of the Kubernetes version the
//! diff targets, as the admission evaluates them.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::{Class, Impact, Level, NAMED};
use crate::diff::tree::identical;
use crate::manifest::Manifest;
use crate::pod_security::{self, Level as PodLevel, Pod};
use crate::yaml::{Key, Node, Value};

/// What the Pod Security model says of one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Where the pod is in its object: `spec.template`, `data.pod.yaml`.
    pub(crate) at: String,
    /// The strongest level it satisfies.
    pub(crate) level: PodLevel,
    /// The controls it breaks at `restricted` (every control), container
    /// by container: (whether the control is a `baseline` one, control,
    /// the server's reason and detail for that container or the pod).
    /// Judged one container at a time, so that the order of the containers,
    /// or one added beside, changes no other's entry.
    pub(crate) broken: BTreeSet<(bool, &'static str, String)>,
}

/// The lists of containers in a pod spec.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// The verdict on one pod with the rules of 1.`minor`.
pub(crate) fn verdict(at: String, pod: &Pod<'_>, minor: u32) -> Verdict {
    let restricted = pod_security::evaluate(pod, PodLevel::Restricted, minor);
    let level = if restricted.is_empty() {
        PodLevel::Restricted
    } else if pod_security::evaluate(pod, PodLevel::Baseline, minor).is_empty() {
        PodLevel::Baseline
    } else {
        PodLevel::Privileged
    };
    let mut broken = BTreeSet::new();
    if !restricted.is_empty() {
        let baseline = |check: &str| {
            pod_security::CONTROLS
                .iter()
                .any(|c| c.id == check && c.level == PodLevel::Baseline)
        };
        let mut alone = pod.spec.clone();
        for list in CONTAINER_LISTS {
            for container in pod.spec[list].as_array().into_iter().flatten() {
                for l in CONTAINER_LISTS {
                    alone[l] = Json::Array(Vec::new());
                }
                alone[list] = Json::Array(vec![container.clone()]);
                let one = Pod {
                    metadata: pod.metadata,
                    spec: &alone,
                };
                for v in pod_security::evaluate(&one, PodLevel::Baseline, minor) {
                    broken.insert((true, v.control, v.message()));
                }
                for v in pod_security::evaluate(&one, PodLevel::Restricted, minor) {
                    if !baseline(v.check) {
                        broken.insert((false, v.control, v.message()));
                    }
                }
            }
        }
    }
    Verdict { at, level, broken }
}

/// The ConfigMap values read as pod templates are read within this many
/// bytes each: a pod template is small.
const TEMPLATE_BYTES: usize = 1 << 20;

/// A pod template an object carries, where it is and as it is written.
struct Template<'a> {
    /// `spec.template`, `the pod`, `data.pod.yaml`.
    at: String,
    written: Written<'a>,
}

/// A pod template as written: a workload's (or a Pod's) YAML tree, or a
/// ConfigMap value's text.
enum Written<'a> {
    Tree(&'a Node),
    Text(&'a str),
}

impl Written<'_> {
    /// Whether Pod Security says the same of both for sure (see
    /// [`same_to_pod_security`]); a text, when it is the same text.
    fn same(&self, other: &Written<'_>) -> bool {
        match (self, other) {
            (Written::Tree(a), Written::Tree(b)) => same_to_pod_security(a, b),
            (Written::Text(a), Written::Text(b)) => a == b,
            _ => false,
        }
    }

    /// The template as JSON (`metadata`, `spec`), when it is one: a text
    /// that does not read as a pod template is none.
    fn json(&self) -> Option<Json> {
        let json = match self {
            Written::Tree(node) => node.to_json(),
            Written::Text(text) => pod_template(text)?,
        };
        json["spec"].is_object().then_some(json)
    }
}

/// Every pod template `object` carries: its own (a workload's template, a
/// Pod: see [`crate::tree::pod_place`]) and each ConfigMap value that
/// could be one (it names `containers`; [`Written::json`] reads it).
fn templates(object: &Manifest) -> Vec<Template<'_>> {
    let mut out = Vec::new();
    if let Some(path) =
        crate::tree::pod_place(&object.id.group, &object.id.kind).map(|place| place.template)
    {
        let node = (path.iter()).try_fold(object.node(), |node, key| node.get(key));
        if let Some(node) = node.filter(|n| n.get("spec").is_some()) {
            let at = if path.is_empty() {
                "the pod".to_owned()
            } else {
                path.join(".")
            };
            let written = Written::Tree(node);
            out.push(Template { at, written });
        }
    }
    if object.id.group.is_empty() && object.id.kind == "ConfigMap" {
        let data = object.node().get("data").map(|d| &d.value);
        let Some(Value::Mapping(entries)) = data else {
            return out;
        };
        for (key, value) in entries {
            let Value::String(text) = &value.value else {
                continue;
            };
            if text.len() <= TEMPLATE_BYTES && text.contains("containers") {
                let at = format!("data.{}", key.name);
                let written = Written::Text(text);
                out.push(Template { at, written });
            }
        }
    }
    out
}

/// A ConfigMap value read as a pod template, when it is one: `metadata`
/// and `spec` with `containers`, a Pod, or a PodTemplate's `template`.
fn pod_template(text: &str) -> Option<Json> {
    let source = crate::location::Source::file("pod template", text);
    let mut spent = 0;
    let documents =
        crate::yaml::parse_manifests_sharing(&source, crate::manifest::LIMITS, &mut spent).ok()?;
    let mut json = documents.first()?.to_json();
    if json["template"]["spec"].is_object() {
        json = json["template"].take();
    }
    json["spec"]["containers"].is_array().then_some(json)
}

/// The fields of a container the Pod Security controls read (see
/// [`pod_security::CONTROLS`]' `fields`; a test keeps the two in step):
/// its name (the AppArmor annotation and the messages name it), its ports'
/// host ports, its security context, its probes and lifecycle hooks.
const READ_IN_CONTAINERS: [&str; 7] = [
    "name",
    "ports",
    "securityContext",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
];

/// Whether Pod Security says the same of two pod templates for sure: the
/// same metadata, the same spec but for the container lists, and in each
/// list the same containers in any order, as far as the controls read
/// them. A verdict judges the containers one by one, so their order never
/// changes it; an image, an environment or resources never reach it.
/// Compared as written ([`identical`]): keys in another order are judged.
fn same_to_pod_security(a: &Node, b: &Node) -> bool {
    let same = |x: Option<&Node>, y: Option<&Node>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => identical(x, y),
        _ => false,
    };
    let (Some(a_spec), Some(b_spec)) = (a.get("spec"), b.get("spec")) else {
        return same(a.get("spec"), b.get("spec")) && same(a.get("metadata"), b.get("metadata"));
    };
    let (Value::Mapping(xs), Value::Mapping(ys)) = (&a_spec.value, &b_spec.value) else {
        return identical(a, b);
    };
    /// The entries of a spec but for its container lists.
    fn outside(entries: &[(Key, Node)]) -> Vec<(&str, &Node)> {
        (entries.iter())
            .filter(|(k, _)| !CONTAINER_LISTS.contains(&k.name.as_str()))
            .map(|(k, v)| (k.name.as_str(), v))
            .collect()
    }
    let (x_rest, y_rest) = (outside(xs), outside(ys));
    let same_rest = x_rest.len() == y_rest.len()
        && (x_rest.iter().zip(&y_rest)).all(|((k, x), (l, y))| k == l && identical(x, y));
    let read = |c: &Node, d: &Node| match (&c.value, &d.value) {
        (Value::Mapping(_), Value::Mapping(_)) => {
            READ_IN_CONTAINERS.iter().all(|k| same(c.get(k), d.get(k)))
        }
        _ => identical(c, d),
    };
    let same_lists = CONTAINER_LISTS.iter().all(|list| {
        match (
            a_spec.get(list).map(|n| &n.value),
            b_spec.get(list).map(|n| &n.value),
        ) {
            (Some(Value::Sequence(xs)), Some(Value::Sequence(ys))) => {
                // Each of `ys` matched with its own one of `xs`.
                let mut taken = vec![false; xs.len()];
                xs.len() == ys.len()
                    && ys.iter().all(|y| {
                        let free =
                            (xs.iter().enumerate()).position(|(i, x)| !taken[i] && read(x, y));
                        free.map(|i| taken[i] = true).is_some()
                    })
            }
            _ => same(a_spec.get(list), b_spec.get(list)),
        }
    });
    same(a.get("metadata"), b.get("metadata")) && same_rest && same_lists
}

/// A changed object whose pods need a weaker level, or break a `baseline`
/// control anew (a privilege: a host namespace, path or port, a
/// capability, privileged, an unconfined profile); a new object whose pods
/// break a `baseline` control. A pod the same to Pod Security on both
/// sides (containers reordered, an image changed) is not judged again.
pub(super) fn pods(before: Option<&Manifest>, after: &Manifest, minor: u32, out: &mut Vec<Impact>) {
    let new = templates(after);
    if new.is_empty() {
        return;
    }
    let old = before.map(templates).unwrap_or_default();
    let judged = |template: &Template<'_>| {
        let json = template.written.json()?;
        let pod = Pod {
            metadata: &json["metadata"],
            spec: &json["spec"],
        };
        Some(verdict(template.at.clone(), &pod, minor))
    };
    for template in &new {
        let was = old.iter().find(|o| o.at == template.at);
        if was.is_some_and(|was| was.written.same(&template.written)) {
            continue;
        }
        let Some(verdict) = judged(template) else {
            continue;
        };
        let was = was.and_then(judged);
        if let Some(why) = weakened(was.as_ref(), &verdict) {
            out.push(Impact::new(Level::Security, Class::Security, after, why));
        }
    }
}

/// Why `after` is weaker than `before` (a new pod: one that needs
/// `privileged`), or `None`.
pub(crate) fn weakened(before: Option<&Verdict>, after: &Verdict) -> Option<String> {
    let lower = before.is_some_and(|b| after.level < b.level);
    // What it breaks anew: any control when its level is lower, else the
    // baseline controls (a privilege gained); for a new pod, the baseline
    // controls it breaks.
    let gained: Vec<&(bool, &str, String)> = match before {
        Some(before) => (after.broken.difference(&before.broken))
            .filter(|(baseline, _, _)| lower || *baseline)
            .collect(),
        None => after.broken.iter().filter(|(b, _, _)| *b).collect(),
    };
    let mut gained = gained;
    // The privileges first.
    gained.sort_by_key(|(baseline, _, _)| !baseline);
    if gained.is_empty() && !lower {
        return None;
    }
    let mut why = format!("its pods ({})", after.at);
    match before {
        Some(b) if lower => {
            why += &format!(
                " need Pod Security {} (were {})",
                after.level.name(),
                b.level.name()
            );
        }
        Some(_) => why += " gain privileges",
        None => why += " need Pod Security privileged",
    }
    if !gained.is_empty() {
        let shown: Vec<String> = gained
            .iter()
            .take(NAMED)
            .map(|(_, control, message)| format!("{control}: {message}"))
            .collect();
        why += &format!(": {}", shown.join("; "));
        if gained.len() > NAMED {
            why += &format!("; and {} more", gained.len() - NAMED);
        }
    }
    Some(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Manifest {
        crate::input::parse("t", text).unwrap().manifests.remove(0)
    }

    /// The daemons' pod template in a ConfigMap is a pod like any other:
    /// made privileged, it needs `privileged` and names the control.
    #[test]
    fn a_pod_template_in_a_config_map_is_judged() {
        let config_map = |context: &str| {
            object(&format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: t, namespace: b}}\ndata:\n  pod.yaml: |\n    spec:\n      containers:\n      - name: d\n        image: d\n        securityContext: {context}\n"
            ))
        };
        let before = config_map("{}");
        let after = config_map("{privileged: true}");
        let mut out = Vec::new();
        pods(Some(&before), &after, 35, &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            out[0]
                .why
                .starts_with("its pods (data.pod.yaml) need Pod Security privileged (were baseline): Privileged Containers: privileged (container \"d\" must not set securityContext.privileged=true)"),
            "{}",
            out[0].why
        );
        let mut none = Vec::new();
        pods(Some(&after), &before, 35, &mut none);
        assert!(none.is_empty());
    }

    /// Containers reordered, or an unprivileged one added beside, make no
    /// pod weaker.
    #[test]
    fn containers_are_judged_one_by_one() {
        let deployment = |containers: &str| {
            object(&format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d, namespace: ns}}\nspec: {{template: {{spec: {{containers: [{containers}]}}}}}}\n"
            ))
        };
        let a = "{name: a, image: a, securityContext: {capabilities: {add: [NET_ADMIN]}}}";
        let b = "{name: b, image: b}";
        let mut out = Vec::new();
        pods(
            Some(&deployment(&format!("{a}, {b}"))),
            &deployment(&format!("{b}, {a}, {{name: c, image: c}}")),
            35,
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
        pods(
            Some(&deployment(&format!("{a}, {b}"))),
            &deployment(&format!(
                "{a}, {{name: b, image: b, ports: [{{containerPort: 1, hostPort: 1}}]}}"
            )),
            35,
            &mut out,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(
            out[0]
                .why
                .starts_with("its pods (spec.template) gain privileges: Host Ports: "),
            "{}",
            out[0].why
        );
    }

    /// Every container field a control reads is among those compared
    /// before a pod is judged: a control that reads a new one fails here
    /// until [`READ_IN_CONTAINERS`] names it.
    #[test]
    fn the_container_fields_compared_are_those_the_controls_read() {
        let prefix = "spec.{initContainers,containers,ephemeralContainers}[*].";
        let mut read = Vec::new();
        for control in pod_security::CONTROLS {
            for field in control.fields {
                let Some(rest) = field.strip_prefix(prefix) else {
                    continue;
                };
                let first = match rest.strip_prefix('{') {
                    Some(set) => set.split('}').next().unwrap_or_default(),
                    None => rest.split(['.', '[']).next().unwrap_or_default(),
                };
                read.extend(first.split(',').map(str::to_owned));
            }
        }
        assert!(read.len() >= 10, "{read:?}");
        for field in &read {
            assert!(READ_IN_CONTAINERS.contains(&field.as_str()), "{field}");
        }
    }

    /// An image, an environment or the order of the containers change no
    /// verdict; a changed security context, a host port or a probe host do.
    #[test]
    fn pods_the_same_to_pod_security() {
        let template = |containers: &str| {
            let text =
                format!("{{metadata: {{labels: {{a: b}}}}, spec: {{containers: [{containers}]}}}}");
            let source = crate::location::Source::file("t", &text);
            crate::yaml::parse_document(&source, crate::yaml::Limits::VALUES)
                .unwrap()
                .unwrap()
        };
        let same = |a: &str, b: &str| same_to_pod_security(&template(a), &template(b));
        let a = "{name: a, image: 'a:1', env: [{name: X}]}";
        let b = "{name: b, image: 'b:1'}";
        assert!(same(&format!("{a}, {b}"), &format!("{b}, {a}")));
        assert!(same(a, "{name: a, image: 'a:2'}"));
        for changed in [
            "{name: a, securityContext: {privileged: true}}",
            "{name: a, ports: [{containerPort: 1, hostPort: 1}]}",
            "{name: a, livenessProbe: {httpGet: {host: h}}}",
            "{name: a, lifecycle: {preStop: {tcpSocket: {host: h}}}}",
            "{name: c, image: 'a:1'}",
        ] {
            assert!(!same(a, changed), "{changed}");
        }
        // Two equal containers are not one container counted twice.
        assert!(!same(&format!("{a}, {a}"), &format!("{a}, {b}")));
        assert!(!same(a, &format!("{a}, {b}")));
        let with = |outside: &str| {
            let text = format!("{{spec: {{{outside}containers: [{a}]}}}}");
            let source = crate::location::Source::file("t", &text);
            crate::yaml::parse_document(&source, crate::yaml::Limits::VALUES)
                .unwrap()
                .unwrap()
        };
        assert!(!same_to_pod_security(&with(""), &with("hostPID: true, ")));
        assert!(!same_to_pod_security(&template(a), &with("")), "metadata");
    }

    /// The AppArmor annotation is read as the admission reads it.
    #[test]
    fn the_apparmor_annotation_is_a_control() {
        let pod = |annotations: &str| {
            object(&format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns, annotations: {{{annotations}}}}}\nspec: {{containers: [{{name: a, image: a}}]}}\n"
            ))
        };
        let mut out = Vec::new();
        pods(
            Some(&pod("")),
            &pod("container.apparmor.security.beta.kubernetes.io/a: unconfined"),
            35,
            &mut out,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].why.contains("AppArmor"), "{}", out[0].why);
    }
}
