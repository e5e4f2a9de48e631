//! Topology and posture (ADR-0006, invariants T1-T5): every object in the
//! namespace of its trust class, pod security of every workload matching
//! its namespace's class, Pod Security Admission labels and policy
//! exemptions as the class needs them, and the control plane wired to the
//! builds namespace. Classes come from what the workloads show
//! ([`super::facts`]); where the input does not show a class, one FACT
//! finding says which fact is missing.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value as Json;

use super::facts::{Instance, last_flag, namespace_of, pod_spec};
use super::{Class, Context, Invariant};
use crate::diagnostic::KeyPath;
use crate::manifest;
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
    unseen_namespaces(context);
    for instance in context.facts.instances.clone() {
        buildd_wiring(context, &instance);
    }
    gateway_wiring(context);
    operator_without_buildd(context);
    runtime_classes(context);
}

fn distinct_namespaces(context: &mut Context<'_>) {
    let mut broken: Vec<(String, String)> = context
        .facts
        .classes
        .iter()
        .filter(|(name, _)| RESERVED_NAMESPACES.contains(&name.as_str()))
        .map(|(name, class)| {
            let message = format!(
                "the {} class lives in the reserved namespace {name}",
                class.name()
            );
            (name.clone(), message)
        })
        .collect();
    broken.extend(context.facts.conflicts.iter().map(|(name, first, second)| {
        let message = format!(
            "the {} and {} classes share namespace {name}",
            first.name(),
            second.name()
        );
        (name.clone(), message)
    }));
    if broken.is_empty() {
        return;
    }
    let objects = namespace_objects(context);
    for (name, message) in broken {
        if let Some(&index) = objects.get(name.as_str()) {
            context.report(
                Invariant::T1,
                index,
                &KeyPath::dotted("metadata.name"),
                message,
            );
        }
    }
}

/// For each namespace, its Namespace object, else the first object living
/// in it: where a finding about the namespace is reported.
fn namespace_objects(context: &Context<'_>) -> HashMap<String, usize> {
    let mut found: HashMap<String, usize> = HashMap::new();
    for (index, object) in context.objects.iter().enumerate() {
        if object["kind"] == "Namespace"
            && let Some(name) = object["metadata"]["name"].as_str()
        {
            found.insert(name.to_owned(), index);
        }
    }
    for (index, object) in context.objects.iter().enumerate() {
        if let Some(namespace) = object["metadata"]["namespace"].as_str() {
            found.entry(namespace.to_owned()).or_insert(index);
        }
    }
    found
}

/// The class an object belongs to by what it is: BuildProjects to the
/// builds class, buildd and node plumbing by the facts; chartgen's component
/// label as a hint.
fn expected_class(context: &Context<'_>, index: usize, object: &Json) -> Option<Class> {
    if object["kind"] == "BuildProject" {
        Some(Class::Builds)
    } else if context.facts.instance_at(index).is_some() {
        Some(Class::Operator)
    } else {
        super::facts::component_class(object)
    }
}

/// T2: an object of a class lives in that class's namespace, and no
/// namespaced object lives outside the namespaces the input shows. Where
/// the input does not show a namespace's class, FACT says which fact is
/// missing, once per namespace.
fn placement(context: &mut Context<'_>) {
    // Decided once: what the input shows does not change per object.
    let homes: HashMap<Class, String> = [Class::Operator, Class::Builds, Class::System]
        .into_iter()
        .filter_map(|c| context.facts.names_of(c).map(|names| (c, names)))
        .collect();
    let lacking = (!context.facts.release_known()).then(|| missing_fact(context));
    let mut unknown: BTreeSet<&str> = BTreeSet::new();
    let mut broken: Vec<(Invariant, usize, String)> = Vec::new();
    for (index, object) in context.objects.iter().enumerate() {
        // The API server ignores a namespace on a cluster-scoped object.
        if manifest::is_cluster_scoped(object["kind"].as_str().unwrap_or_default()) {
            continue;
        }
        // An object without a namespace lands in the one kubectl applies it to: say default.
        let namespace = namespace_of(object);
        let found = context.class_of(namespace);
        if let Some(class) = expected_class(context, index, object)
            && found != Some(class)
            && let Some(want) = homes.get(&class)
        {
            let message = format!(
                "belongs to the {} class, in {want}, not {namespace}",
                class.name()
            );
            broken.push((Invariant::T2, index, message));
            continue;
        }
        if found.is_some() {
            continue;
        }
        match &lacking {
            None => broken.push((
                Invariant::T2,
                index,
                format!("namespace {namespace} is none of the operator, builds and system namespaces"),
            )),
            Some(lacking) if unknown.insert(namespace) => broken.push((
                Invariant::MissingFact,
                index,
                format!("the trust class of namespace {namespace} cannot be told: {lacking}; its objects' placement is not verified"),
            )),
            Some(_) => {}
        }
    }
    let path = KeyPath::dotted("metadata.namespace");
    for (invariant, index, message) in broken {
        context.report(invariant, index, &path, message);
    }
}

/// Which fact the input lacks to tell the classes.
fn missing_fact(context: &Context<'_>) -> String {
    match context.facts.instances.iter().find(|i| i.builds.is_none()) {
        None => "the input has no buildd Deployment (a container named buildd or running a buildd image), so neither the operator namespace (where buildd runs) nor the builds namespace (its --namespace) is shown".to_owned(),
        Some(instance) => format!(
            "buildd in {} names no builds namespace (--namespace) and no BuildProject shows one",
            instance.operator
        ),
    }
}

/// Whether chartgen wrote `object`: it states what chartgen always writes.
fn written_by_chartgen(object: &Json) -> bool {
    object["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "chartgen"
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
    let ours = written_by_chartgen(object);
    let labels = &object["metadata"]["labels"];
    let modes = ["enforce", "audit", "warn"];
    let stated_any = modes
        .iter()
        .any(|m| labels[format!("pod-security.kubernetes.io/{m}")].is_string());
    if !ours && !stated_any {
        context.note(
            format!("Namespace {name}"),
            format!(
                "states no Pod Security level (the {} class needs {}); the cluster's default applies, not verified",
                class.name(),
                class.pod_security()
            ),
        );
    } else {
        for mode in modes {
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
    }
    let wanted: BTreeSet<&str> = class.exemptions().collect();
    let annotation = object["metadata"]["annotations"][EXEMPTIONS_ANNOTATION].as_str();
    if annotation.is_some() || ours {
        let keys: BTreeSet<&str> = annotation
            .unwrap_or_default()
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
            .collect();
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
    }
    let Some(artifact) = artifact.and_then(Json::as_object) else {
        if !wanted.is_empty() && annotation.is_none() && !ours {
            context.note(
                format!("Namespace {name}"),
                "its Kyverno exemptions were not verified: the input has no kyverno-exemptions.yaml",
            );
        }
        return;
    };
    for exemption in Exemption::ALL {
        let key = exemption.values_key();
        let listed = artifact
            .get(key)
            .and_then(|entry| entry["excludedNamespaces"].as_array())
            .is_some_and(|l| l.iter().any(|n| n == name.as_str()));
        let needed = wanted.contains(exemption.key());
        if listed != needed {
            context.report(
                Invariant::T4,
                index,
                &KeyPath::dotted("metadata.name"),
                format!(
                    "the exemptions artifact {} {name} for {key}, but the {} class {} it",
                    if listed {
                        "excludes"
                    } else {
                        "does not exclude"
                    },
                    class.name(),
                    if needed { "needs" } else { "does not need" }
                ),
            );
        }
    }
}

/// Namespaces the objects live in but the input has no Namespace object
/// for: their Pod Security and exemptions are not verified; said, not passed.
fn unseen_namespaces(context: &mut Context<'_>) {
    let declared: BTreeSet<String> = context
        .objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
        .collect();
    let used: BTreeSet<(String, Class)> = context
        .objects
        .iter()
        .filter(|o| o["metadata"]["namespace"].is_string())
        .filter_map(|o| {
            let namespace = namespace_of(o);
            context
                .class_of(namespace)
                .map(|c| (namespace.to_owned(), c))
        })
        .collect();
    for (namespace, class) in used {
        if !declared.contains(&namespace) {
            context.note(
                format!("Namespace {namespace}"),
                format!(
                    "not in the input (the {} class's namespace): its Pod Security level and policy exemptions were not verified",
                    class.name()
                ),
            );
        }
    }
}

fn pod_security(context: &mut Context<'_>, index: usize, object: &Json, (at, pod): (&str, &Json)) {
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
    let whose = if context.class_of(namespace).is_some() {
        format!("the {} class in {namespace}", class.name())
    } else {
        format!("{namespace}, of no trust class, is held to the operator class's posture and")
    };
    for (path, what) in broken {
        context.report(
            Invariant::T3,
            index,
            &path,
            format!("{what}; {whose} does not allow it"),
        );
    }
}

/// T5: buildd reads POD_NAMESPACE from the downward API and creates daemons
/// in a builds namespace of their own.
fn buildd_wiring(context: &mut Context<'_>, instance: &Instance) {
    let index = instance.buildd;
    let object = context.objects[index].clone();
    let at = KeyPath::dotted("spec.template.spec.containers").index(instance.container);
    let container = &object["spec"]["template"]["spec"]["containers"][instance.container];
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
    let told = instance.namespace_flag.as_deref();
    let wrong = match told {
        None => Some(
            "buildd is given no --namespace; it creates the daemons in the builds namespace"
                .to_owned(),
        ),
        Some(ns) if ns == instance.operator => Some(format!(
            "buildd is told --namespace={ns}, its own namespace; it creates the daemons in the builds namespace, never the operator's (ADR-0006)"
        )),
        Some(_) => None,
    };
    if let Some(message) = wrong {
        context.report(Invariant::T5, index, &at.key("args"), message);
    }
    // controller-runtime takes the Lease where --leader-election-namespace
    // says, if it says: that must be buildd's own namespace.
    let args = container["args"].as_array().map_or(&[][..], Vec::as_slice);
    if let Some(elsewhere) = last_flag(args, "--leader-election-namespace")
        && elsewhere != instance.operator
    {
        context.report(
            Invariant::T5,
            index,
            &at.key("args"),
            format!(
                "buildd is told --leader-election-namespace={elsewhere}; it takes its Lease in its own namespace, {} (ADR-0006)",
                instance.operator
            ),
        );
    }
}

/// T5: a control-plane workload that names the daemons' namespace
/// (`--daemon-namespace`, the gateway) names its buildd's builds namespace.
fn gateway_wiring(context: &mut Context<'_>) {
    let mut broken = Vec::new();
    for (index, object) in context.objects.iter().enumerate() {
        let Some((pod_path, pod)) = pod_spec(object) else {
            continue;
        };
        let namespace = namespace_of(object);
        let Some(builds) = context
            .facts
            .instances_in(namespace)
            .find_map(|i| i.builds.as_deref())
        else {
            continue;
        };
        for (c, container) in pod["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let args = container["args"].as_array().map_or(&[][..], Vec::as_slice);
            if let Some(told) = last_flag(args, "--daemon-namespace")
                && told != builds
            {
                let at = KeyPath::dotted(pod_path)
                    .key("containers")
                    .index(c)
                    .key("args");
                let message = format!(
                    "told --daemon-namespace={told}; the daemons run in the builds namespace, {builds}"
                );
                broken.push((index, at, message));
            }
        }
    }
    for (index, at, message) in broken {
        context.report(Invariant::T5, index, &at, message);
    }
}

/// A Namespace the input marks as the operator's with no buildd in it.
fn operator_without_buildd(context: &mut Context<'_>) {
    let operators: Vec<String> = context
        .facts
        .classes
        .iter()
        .filter(|(_, c)| **c == Class::Operator)
        .map(|(n, _)| n.clone())
        .filter(|n| context.facts.instances_in(n).next().is_none())
        .collect();
    if operators.is_empty() {
        return;
    }
    let objects = namespace_objects(context);
    for namespace in operators {
        let index = objects
            .get(&namespace)
            .filter(|i| context.objects[**i]["kind"] == "Namespace");
        if let Some(&index) = index {
            context.report(
                Invariant::T5,
                index,
                &KeyPath::root(),
                "the operator namespace has no buildd Deployment (a container named buildd or running a buildd image)",
            );
        }
    }
}

/// RuntimeClasses the objects name but the input does not hold: with the
/// Kata bundle applied out-of-band that is expected, so it is said, not
/// reported as a finding.
fn runtime_classes(context: &mut Context<'_>) {
    let present: BTreeSet<&str> = context
        .objects
        .iter()
        .filter(|o| o["kind"] == "RuntimeClass")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    let mut wanted: BTreeSet<(String, String)> = BTreeSet::new();
    for (index, object) in context.objects.iter().enumerate() {
        let user = context.manifests[index].id.to_string();
        let named = match object["kind"].as_str() {
            Some("BuildProject") => object["spec"]["runtimeClassName"]
                .as_str()
                .map(str::to_owned),
            _ => pod_spec(object)
                .and_then(|(_, pod)| pod["runtimeClassName"].as_str().map(str::to_owned)),
        };
        if let Some(name) = named {
            wanted.insert((name, user.clone()));
        }
        if let Some(instance) = context.facts.instance_at(index) {
            let container = &object["spec"]["template"]["spec"]["containers"][instance.container];
            let args = container["args"].as_array().map_or(&[][..], Vec::as_slice);
            if let Some(name) = last_flag(args, "--untrusted-runtime-class") {
                wanted.insert((name, user));
            }
        }
    }
    let mut by_class: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (name, user) in wanted {
        if !present.contains(name.as_str()) {
            by_class.entry(name).or_default().push(user);
        }
    }
    for (name, users) in by_class {
        // A few users name it; thousands would make a line no one reads.
        const SHOWN: usize = 5;
        let mut used_by = users[..users.len().min(SHOWN)].join(", ");
        if users.len() > SHOWN {
            used_by += &format!(" and {} more", users.len() - SHOWN);
        }
        context.note(
            format!("RuntimeClass {name}"),
            format!(
                "used by {used_by} but not in the input; the Kata bundle provides it, applied out-of-band: check both bundles together to verify it"
            ),
        );
    }
}
