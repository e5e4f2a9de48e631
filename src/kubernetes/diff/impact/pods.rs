//! Pods, by the Pod Security model `check` uses
//! ([`crate::pod_security`]): for each pod an object carries (every kind
//! [`pod_security::carried_pod`] knows, and a pod template held as text in
//! a ConfigMap, such as the one a controller starts its pods from), the
//! strongest level it satisfies and the controls it breaks, before and
//! after. A pod that satisfies only a weaker level, or breaks a control in
//! a new way (a host namespace, path or port, a capability, privilege, an
//! unconfined profile, root), is `security`, naming the control.
//!
//! The controls are evaluated with the rules of the Kubernetes version the
//! diff targets (`--kube-version`), as the admission evaluates them.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::{Class, Impact, Level, NAMED};
use crate::manifest::Manifest;
use crate::pod_security::{self, Level as PodLevel, Pod};

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

/// The verdicts on every pod `object` carries: its own (a workload's
/// template, a Pod) and each ConfigMap value that reads as a pod template
/// (`metadata` and `spec` with `containers`, a Pod, or a PodTemplate's
/// `template`).
pub(crate) fn verdicts(object: &Manifest, minor: u32) -> Vec<Verdict> {
    let json = object.node.to_json();
    let mut out = Vec::new();
    if let Some(carried) = pod_security::carried_pod(&json) {
        let at = if carried.at.0.is_empty() {
            "the pod".to_owned()
        } else {
            carried.at.to_string()
        };
        out.push(verdict(at, &carried.pod, minor));
    }
    if object.id.group.is_empty() && object.id.kind == "ConfigMap" {
        for (key, value) in json["data"].as_object().into_iter().flatten() {
            let Some(text) = value.as_str() else { continue };
            if text.len() > TEMPLATE_BYTES || !text.contains("containers") {
                continue;
            }
            if let Some(template) = pod_template(text) {
                let pod = Pod {
                    metadata: &template["metadata"],
                    spec: &template["spec"],
                };
                out.push(verdict(format!("data.{key}"), &pod, minor));
            }
        }
    }
    out
}

/// A ConfigMap value read as a pod template, when it is one.
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

/// A changed object whose pods need a weaker level, or break a `baseline`
/// control anew (a privilege: a host namespace, path or port, a
/// capability, privileged, an unconfined profile); a new object whose pods
/// break a `baseline` control.
pub(super) fn pods(before: Option<&Manifest>, after: &Manifest, minor: u32, out: &mut Vec<Impact>) {
    let new = verdicts(after, minor);
    if new.is_empty() {
        return;
    }
    let old = before.map(|b| verdicts(b, minor)).unwrap_or_default();
    for verdict in &new {
        let was = old.iter().find(|v| v.at == verdict.at);
        if let Some(why) = weakened(was, verdict) {
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
