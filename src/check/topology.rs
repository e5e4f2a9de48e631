//! Topology and posture (ADR-0006, invariants T1-T5): every object in the
//! namespace of its trust class, pod security of every workload matching
//! its namespace's class, Pod Security Admission labels and policy
//! exemptions as the class needs them, and buildd wired to both namespaces.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::{Class, Context, Invariant};
use crate::diagnostic::KeyPath;
use crate::model::rules::RESERVED_NAMESPACES;
use crate::plan::{EXEMPTIONS_ANNOTATION, Exemption};

/// Checks T1-T5; `exemptions` is the Kyverno artifact, when the input has one.
pub fn check(context: &mut Context<'_>, exemptions: Option<&Json>) {
    distinct_namespaces(context);
    placement(context);
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        if object["kind"] == "Namespace" {
            namespace_posture(context, index, &object, exemptions);
        } else if let Some(pod) = pod_spec(&object) {
            pod_security(context, index, &object, pod);
        }
    }
    buildd_wiring(context);
}

fn distinct_namespaces(context: &mut Context<'_>) {
    let classes: Vec<(Class, String)> = context
        .namespaces
        .iter()
        .map(|(c, n)| (*c, n.clone()))
        .collect();
    for (i, (class, name)) in classes.iter().enumerate() {
        let Some(index) = namespace_object(context, name) else {
            continue;
        };
        if RESERVED_NAMESPACES.contains(&name.as_str()) {
            context.report(
                Invariant::T1,
                index,
                &KeyPath::dotted("metadata.name"),
                format!(
                    "the {} class lives in the reserved namespace {name}",
                    class.name()
                ),
            );
        }
        if let Some((other, _)) = classes[..i].iter().find(|(_, n)| n == name) {
            context.report(
                Invariant::T1,
                index,
                &KeyPath::dotted("metadata.name"),
                format!(
                    "the {} and {} classes share namespace {name}",
                    other.name(),
                    class.name()
                ),
            );
        }
    }
}

fn namespace_object(context: &Context<'_>, name: &str) -> Option<usize> {
    context
        .objects
        .iter()
        .position(|o| o["kind"] == "Namespace" && o["metadata"]["name"] == name)
        .or_else(|| {
            context
                .objects
                .iter()
                .position(|o| o["metadata"]["namespace"] == name)
        })
}

/// Kinds that live outside namespaces.
fn is_cluster_scoped(object: &Json) -> bool {
    matches!(
        object["kind"].as_str(),
        Some(
            "Namespace"
                | "ClusterRole"
                | "ClusterRoleBinding"
                | "CustomResourceDefinition"
                | "RuntimeClass"
                | "PriorityClass"
                | "StorageClass"
                | "PersistentVolume"
                | "Node"
                | "APIService"
                | "IngressClass"
                | "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "ClusterIssuer"
        )
    )
}

/// T2: an object of a class's component lives in that class's namespace,
/// and no namespaced object lives outside the three.
fn placement(context: &mut Context<'_>) {
    for index in 0..context.objects.len() {
        let object = &context.objects[index];
        let namespaced = object["metadata"]["namespace"].is_string() || !is_cluster_scoped(object);
        if !namespaced {
            continue;
        }
        // An object without a namespace lands in the one kubectl applies it to: say default.
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_owned();
        let component = object["metadata"]["labels"]["app.kubernetes.io/component"].as_str();
        let expected = if object["kind"] == "BuildProject" {
            Some(Class::Builds)
        } else if super::rbac::is_buildd(object) {
            Some(Class::Operator)
        } else {
            component.and_then(Class::of_component)
        };
        let path = KeyPath::dotted("metadata.namespace");
        match (expected, context.class_of(&namespace)) {
            (Some(class), found) if found != Some(class) => {
                let want = context.namespace(class).unwrap_or("?").to_owned();
                context.report(
                    Invariant::T2,
                    index,
                    &path,
                    format!(
                        "belongs to the {} class, in {want}, not {namespace}",
                        class.name()
                    ),
                );
            }
            (_, None) if !context.namespaces.is_empty() => context.report(
                Invariant::T2,
                index,
                &path,
                format!(
                    "namespace {namespace} is none of the operator, builds and system namespaces"
                ),
            ),
            _ => {}
        }
    }
}

fn namespace_posture(
    context: &mut Context<'_>,
    index: usize,
    object: &Json,
    artifact: Option<&Json>,
) {
    let name = object["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let Some(class) = context.class_of(&name) else {
        return;
    };
    let labels = &object["metadata"]["labels"];
    for mode in ["enforce", "audit", "warn"] {
        let key = format!("pod-security.kubernetes.io/{mode}");
        let level = labels[&key].as_str().unwrap_or("(unset)");
        if level != class.pod_security() {
            context.report(
                Invariant::T3,
                index,
                &KeyPath::dotted("metadata.labels").key(key),
                format!(
                    "Pod Security {mode} level is {level}; the {} class needs {}",
                    class.name(),
                    class.pod_security()
                ),
            );
        }
    }
    let stated = object["metadata"]["annotations"][EXEMPTIONS_ANNOTATION]
        .as_str()
        .unwrap_or_default();
    let pairs: Vec<(&str, &str)> = stated
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    let keys: BTreeSet<&str> = pairs.iter().map(|(k, _)| *k).collect();
    let wanted: BTreeSet<&str> = class.exemptions().collect();
    if keys != wanted {
        let show = |set: &BTreeSet<&str>| {
            if set.is_empty() {
                "none".to_owned()
            } else {
                set.iter().copied().collect::<Vec<_>>().join(", ")
            }
        };
        context.report(
            Invariant::T4,
            index,
            &KeyPath::dotted("metadata.annotations").key(EXEMPTIONS_ANNOTATION),
            format!(
                "states exemptions {}; the {} class needs {} (ADR-0006)",
                show(&keys),
                class.name(),
                show(&wanted)
            ),
        );
    }
    let Some(artifact) = artifact.and_then(Json::as_object) else {
        return;
    };
    for exemption in Exemption::ALL {
        let key = exemption.values_key();
        let listed = artifact
            .get(key)
            .and_then(|entry| entry["excludedNamespaces"].as_array())
            .is_some_and(|l| l.iter().any(|n| n == name.as_str()));
        let needed = keys.contains(exemption.key());
        let policy = key;
        if listed != needed {
            context.report(
                Invariant::T4,
                index,
                &KeyPath::dotted("metadata.name"),
                format!(
                    "the exemptions artifact {} {name} for {policy}, but the namespace {} it",
                    if listed {
                        "excludes"
                    } else {
                        "does not exclude"
                    },
                    if needed { "needs" } else { "does not need" }
                ),
            );
        }
    }
}

/// The pod spec of a workload, and where it sits in the object.
fn pod_spec(object: &Json) -> Option<(KeyPath, &Json)> {
    let path = match object["kind"].as_str()? {
        "Deployment" | "DaemonSet" | "StatefulSet" | "Job" | "ReplicaSet" => "spec.template.spec",
        "CronJob" => "spec.jobTemplate.spec.template.spec",
        "Pod" => "spec",
        _ => return None,
    };
    let mut node = object;
    for key in path.split('.') {
        node = node.get(key)?;
    }
    Some((KeyPath::dotted(path), node))
}

fn pod_security(
    context: &mut Context<'_>,
    index: usize,
    object: &Json,
    (at, pod): (KeyPath, &Json),
) {
    let namespace = object["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default");
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
            if class != Class::Operator {
                continue;
            }
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
    }
    for (path, what) in broken {
        context.report(
            Invariant::T3,
            index,
            &path,
            format!(
                "{what}; the {} class in {namespace} does not allow it",
                class.name()
            ),
        );
    }
}

/// T5: buildd reads POD_NAMESPACE from the downward API and creates daemons
/// in the builds namespace.
fn buildd_wiring(context: &mut Context<'_>) {
    let builds = context.namespace(Class::Builds).map(str::to_owned);
    let mut found = false;
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        if !super::rbac::is_buildd(&object) {
            continue;
        }
        found = true;
        let containers = &object["spec"]["template"]["spec"]["containers"];
        let position = containers
            .as_array()
            .and_then(|c| c.iter().position(|c| c["name"] == "buildd"))
            .unwrap_or(0);
        let at = KeyPath::dotted("spec.template.spec.containers").index(position);
        let container = &containers[position];
        // The last entry of a name wins, as in the kubelet.
        let pod_namespace = container["env"]
            .as_array()
            .into_iter()
            .flatten()
            .rfind(|e| e["name"] == "POD_NAMESPACE");
        let downward = pod_namespace
            .is_some_and(|e| e["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace");
        if !downward {
            context.report(
                Invariant::T5,
                index,
                &at.key("env"),
                "POD_NAMESPACE does not come from the downward API (fieldRef metadata.namespace); buildd's Lease lives in its own namespace",
            );
        }
        if let Some(builds) = &builds {
            let given = last_flag(
                container["args"].as_array().map_or(&[][..], Vec::as_slice),
                "--namespace",
            );
            if given.as_deref() != Some(builds.as_str()) {
                context.report(
                    Invariant::T5,
                    index,
                    &at.key("args"),
                    format!(
                        "buildd is told --namespace={}; it creates the daemons in the builds namespace, {builds}",
                        given.as_deref().unwrap_or("(nothing)")
                    ),
                );
            }
        }
    }
    let operator_namespace = context.namespace(Class::Operator).and_then(|ns| {
        namespace_object(context, ns).filter(|i| context.objects[*i]["kind"] == "Namespace")
    });
    if !found && let Some(index) = operator_namespace {
        context.report(
            Invariant::T5,
            index,
            &KeyPath::root(),
            "the operator namespace has no buildd Deployment (component label or container named buildd)",
        );
    }
}

/// The value of the last `--flag=value` or `--flag value` in `args`.
fn last_flag(args: &[Json], flag: &str) -> Option<String> {
    let args: Vec<&str> = args.iter().filter_map(Json::as_str).collect();
    let mut value = None;
    for (i, arg) in args.iter().enumerate() {
        if let Some(rest) = arg.strip_prefix(flag) {
            if let Some(v) = rest.strip_prefix('=') {
                value = Some(v.to_owned());
            } else if rest.is_empty() {
                value = args.get(i + 1).map(|v| (*v).to_owned());
            }
        }
    }
    value
}
