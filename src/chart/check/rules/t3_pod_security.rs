//! T3: pod security by trust class (ADR-0006): the control plane hardened,
//! the daemons rootless, only the system namespace privileged; a
//! Namespace that states a Pod Security level states its class's.

use serde_json::Value as Json;

use super::namespaces::{ClassedNamespace, classed};
use crate::check::facts::{namespace_of, pod_spec};
use crate::check::{Class, Context, Findings, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::adr;

/// Checks T3 on the Namespaces and on every workload.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    for namespace in classed(context) {
        levels(&namespace, findings);
    }
    for (index, object) in context.objects.iter().enumerate() {
        if object["kind"] == "Namespace" {
            continue;
        }
        if let Some(pod) = pod_spec(object) {
            workload(context, index, object, pod, findings);
        }
    }
}

/// The Pod Security Admission level of each mode is the class's.
fn levels(namespace: &ClassedNamespace<'_>, findings: &mut Findings<'_>) {
    let (name, class) = (namespace.name, namespace.class);
    let labels = &namespace.object["metadata"]["labels"];
    let stated_any = adr::POD_SECURITY_MODES
        .iter()
        .any(|m| labels[adr::pod_security_label(m)].is_string());
    if !namespace.ours && !stated_any {
        findings.note(
            format!("Namespace {name}"),
            format!(
                "states no Pod Security level (the {} class needs {}); the cluster's default applies, not verified",
                class.name(),
                class.pod_security()
            ),
        );
        return;
    }
    for mode in adr::POD_SECURITY_MODES {
        let key = adr::pod_security_label(mode);
        let level = labels[&key].as_str().unwrap_or("(unset)");
        if level != class.pod_security() {
            findings.report(
                Invariant::T3,
                namespace.index,
                &KeyPath::dotted("metadata.labels").key(key),
                format!(
                    "Pod Security {mode} level is {level}; the {} class needs {}",
                    class.name(),
                    class.pod_security()
                ),
            );
        }
    }
}

/// A workload's pod as its namespace's class allows it: no host access or
/// privilege outside the system class, non-root everywhere else, and the
/// operator class hardened.
fn workload(
    context: &Context<'_>,
    index: usize,
    object: &Json,
    (at, pod): (&str, &Json),
    findings: &mut Findings<'_>,
) {
    let at = KeyPath::dotted(at);
    let namespace = namespace_of(object);
    // A namespace of no known class is held to the strictest class.
    let class = context.class_of(namespace).unwrap_or(Class::Operator);
    if class == Class::System {
        return;
    }
    let mut broken: Vec<(KeyPath, String)> = Vec::new();
    for host in ["hostPID", "hostNetwork", "hostIPC"] {
        if pod[host] == true {
            broken.push((at.key(host), format!("{host} is set")));
        }
    }
    for (v, volume) in pod["volumes"].as_array().into_iter().flatten().enumerate() {
        if volume.get("hostPath").is_some() {
            broken.push((
                at.key("volumes").index(v).key("hostPath"),
                "a hostPath volume".to_owned(),
            ));
        }
    }
    let pod_context = &pod["securityContext"];
    for list in ["initContainers", "containers"] {
        for (c, container) in pod[list].as_array().into_iter().flatten().enumerate() {
            let sc = &container["securityContext"];
            let here = at.key(list).index(c).key("securityContext");
            if sc["privileged"] == true {
                broken.push((here.key("privileged"), "a privileged container".to_owned()));
            }
            let non_root = sc["runAsNonRoot"]
                .as_bool()
                .or(pod_context["runAsNonRoot"].as_bool());
            if non_root != Some(true) {
                broken.push((
                    here.key("runAsNonRoot"),
                    "runAsNonRoot is not true".to_owned(),
                ));
            }
            if class == Class::Operator {
                hardened(sc, pod_context, &here, &mut broken);
            }
        }
    }
    let whose = if context.class_of(namespace).is_some() {
        format!("the {} class in {namespace}", class.name())
    } else {
        format!("{namespace}, of no trust class, is held to the operator class's posture and")
    };
    for (path, what) in broken {
        findings.report(
            Invariant::T3,
            index,
            &path,
            format!("{what}; {whose} does not allow it"),
        );
    }
}

/// What the operator class adds for one container whose security context
/// `sc` is at `here`: the restricted profile.
fn hardened(sc: &Json, pod_context: &Json, here: &KeyPath, broken: &mut Vec<(KeyPath, String)>) {
    if sc["allowPrivilegeEscalation"] != false {
        broken.push((
            here.key("allowPrivilegeEscalation"),
            "allowPrivilegeEscalation is not false".to_owned(),
        ));
    }
    if sc["readOnlyRootFilesystem"] != true {
        broken.push((
            here.key("readOnlyRootFilesystem"),
            "readOnlyRootFilesystem is not true".to_owned(),
        ));
    }
    let added: Vec<&str> = sc["capabilities"]["add"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .filter(|c| *c != "NET_BIND_SERVICE")
        .collect();
    if !added.is_empty() {
        broken.push((
            here.key("capabilities").key("add"),
            format!("capabilities {} are added", added.join(", ")),
        ));
    }
    let drops_all = sc["capabilities"]["drop"]
        .as_array()
        .is_some_and(|d| d.iter().any(|c| c == "ALL"));
    if !drops_all {
        broken.push((
            here.key("capabilities"),
            "capabilities do not drop ALL".to_owned(),
        ));
    }
    let seccomp = sc["seccompProfile"]["type"]
        .as_str()
        .or(pod_context["seccompProfile"]["type"].as_str());
    if !matches!(seccomp, Some("RuntimeDefault" | "Localhost")) {
        broken.push((
            here.key("seccompProfile"),
            format!("seccomp profile is {}", seccomp.unwrap_or("unset")),
        ));
    }
}
