//! T3: Pod Security, two verdicts per pod (ADR-0006). Every pod the input
//! carries (a workload's template, a Pod, the daemons' pod template in the
//! ConfigMap buildd's `--daemon-pod-template` names) is evaluated by the
//! Pod Security Standards as the admission evaluates them
//! (`kubernetes::pod_security`): what the cluster will enforce, from its
//! Namespace's `enforce` and `enforce-version` labels when the input has
//! the Namespace, and what ADR-0006 demands of its namespace's class. A
//! Namespace that states a Pod Security level states its class's.
//!
//! What the ADRs demand of a pod is decided in one place,
//! [`super::shared::demand`], which ROOTFS ([`super::read_only_root`])
//! reads too.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::shared::demand::{Demand, Judged, demand_of};
use super::shared::namespaces::{ClassedNamespace, classed};
use super::{DOC, Definition, Inputs};
use crate::check::facts::namespace_of;
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use crate::plan::adr;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::pod_security::{
    ControlViolation, Created, Level, Pod, Policy, PolicyVersion, as_created, carried_pod,
    evaluate, evaluate_waiving, joined,
};

/// T3: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T3",
        title: "Pod Security: what the cluster enforces and what the trust class demands",
        help: "Every pod the input carries is evaluated by the Pod Security Standards as the Pod Security admission evaluates them (every control is listed below): a Pod; the pod template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController or PodTemplate; a CronJob's job template's; and the daemons' pod template, the YAML in the ConfigMap that buildd's `--daemon-pod-template` names in its builds namespace, judged as a pod of that namespace. Each pod is judged as the API server creates it: a host-network pod's ports with their host ports defaulted, a container's deprecated AppArmor annotation as its field, and a StatefulSet's pods with a volume of each claim template in place of the template's volume of that name (a `hostPath` volume a claim template replaces is in no pod). Each pod gets two verdicts, and each finding names the control it breaks with the server's reason: what the cluster will enforce, from the Namespace's `pod-security.kubernetes.io/enforce` and `enforce-version` labels when the input has the Namespace (a level the admission does not know counts as `restricted`, a version it cannot read as `latest`; `latest` is each Kubernetes version chartgen targets, 1.33 and 1.35, as the cluster's own is not in the manifests, unless `--kube-version` is given: then it is that version, and the pod is judged as that version's server judges it); and what ADR-0006 demands of the namespace's trust class. The operator class: `restricted`. The builds class: `restricted` except exactly what rootless buildkitd needs, which ADR-0006 names: the Privilege Escalation control is waived (`allowPrivilegeEscalation` may be true or unset: rootless buildkitd maps its user namespace through the setuid `newuidmap` and `newgidmap`), and with it restricted's Capabilities control (those setuid helpers gain CAP_SETUID and CAP_SETGID only while the bounding set keeps them, so `drop: [ALL]` is not asked; baseline's Capabilities control, nothing added beyond the default set, still holds), the Seccomp control at both levels (any `seccompProfile`, `Unconfined` included, or none: it creates namespaces and mounts the default profile blocks) and the AppArmor control (any profile, `unconfined` included); every other control holds (not privileged, no host namespaces, ports or paths, the restricted volume types, non-root, no `runAsUser: 0`, SELinux, sysctls, `/proc` mount). The system class (the Kata node plumbing): nothing beyond what its namespace enforces. A BuildKit daemon (a container running a `…/buildkit` image) outside the operator and builds namespaces, the system namespace included, is a build daemon wherever it runs, held to the builds class's demand. The operator's other objects in a namespace the input shows no class for are held to the operator class's demand. Another application's pod (not the operator's: see the scope above) is held to its Namespace's labels only; when the input does not show them and the pod needs more than `baseline` allows, an `info:` line says so. A Namespace that states a Pod Security level states its class's (`restricted` for the operator, `privileged` for builds and system).",
        example: "T3 Deployment buildkit-operator/buildkit-gateway spec.template.spec.containers[0].ports[0].hostPort: Pod Security control \"Host Ports\": hostPort (container \"gateway\" uses hostPort 8443); namespace buildkit-operator enforces Pod Security restricted:latest, which refuses the pod; and the operator class in buildkit-operator demands Pod Security restricted",
        doc: DOC,
    },
    section: 90,
    rank: 130,
    check: Some(check),
    appendix: Some(kubernetes::pod_security::reference),
    per_object: false,
    generic: None,
};

/// The checks the builds class waives, and only these: what rootless
/// buildkitd needs (ADR-0006: "rootless relaxes allowPrivilegeEscalation +
/// seccomp/apparmor"). Privilege escalation is for the setuid `newuidmap`
/// and `newgidmap`, which gain CAP_SETUID and CAP_SETGID only while those
/// stay in the bounding set: so restricted's "drop ALL" is waived with it,
/// while baseline's capabilities check (nothing added beyond the default
/// set) still holds. Seccomp is waived at both levels (`Unconfined`).
pub const ROOTLESS_RELAXED: &[&str] = &[
    "allowPrivilegeEscalation",
    "seccompProfile_restricted",
    "seccompProfile_baseline",
    "appArmorProfile",
    "capabilities_restricted",
];

/// Checks T3 on the Namespaces and on every pod.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    for namespace in classed(context) {
        levels(&namespace, findings);
    }
    let namespaces: HashMap<&str, &Json> = context
        .objects
        .iter()
        .filter(|o| o.field("kind") == "Namespace" && o.field("apiVersion") == "v1")
        .filter_map(|o| Some((o.field("metadata").field("name").as_str()?, *o)))
        .collect();
    for (index, object) in context.objects.iter().enumerate() {
        let Some(carried) = carried_pod(object) else {
            continue;
        };
        let namespace = namespace_of(object);
        let pod = Carried {
            index,
            namespace,
            at: Where::Path(carried.at),
            pod: carried.pod,
            claims: carried.claims,
        };
        verdicts(context, &namespaces, &pod, findings);
    }
    daemon_pod_templates(context, &namespaces, findings);
}

/// A pod found in object `index`, in `namespace`.
struct Carried<'a> {
    index: usize,
    namespace: &'a str,
    at: Where,
    pod: Pod<'a>,
    /// A StatefulSet's claim templates ([`as_created`]).
    claims: Vec<&'a str>,
}

/// Where a pod sits in its object.
enum Where {
    /// At a path: the pod template's node.
    Path(KeyPath),
    /// In a string at a path (a ConfigMap's data): findings point there.
    Text(KeyPath),
}

impl Where {
    fn of(&self, path: &KeyPath) -> KeyPath {
        match self {
            Where::Path(at) => joined(at, path),
            Where::Text(at) => at.clone(),
        }
    }
}

/// What the trust classes demand: `restricted`, at the server's own
/// version.
const RESTRICTED: (Level, PolicyVersion) = (Level::Restricted, PolicyVersion::Latest);

/// One violation with the server versions that refuse it.
struct Broken {
    violation: ControlViolation,
    servers: Vec<u32>,
}

/// The violations of the `created` pod at `level` and `version` on each
/// server version chartgen targets, each once; `skip` names checks waived
/// ([`evaluate_waiving`]).
fn broken(
    created: &Created,
    (level, version): (Level, PolicyVersion),
    skip: &[&str],
    servers: &[u32],
) -> Vec<Broken> {
    let mut all: Vec<Broken> = Vec::new();
    for (server, minor) in version.per_server_of(servers) {
        for mut violation in evaluate_waiving(&created.pod(), level, minor, skip) {
            violation.path = created.source(&violation.path);
            match all.iter_mut().find(|b| b.violation == violation) {
                Some(b) => b.servers.push(server),
                None => all.push(Broken {
                    violation,
                    servers: vec![server],
                }),
            }
        }
    }
    all
}

/// The cluster's verdict and the class's on one pod, one finding per
/// broken control, saying which verdict refuses it.
fn verdicts(
    context: &Context<'_>,
    namespaces: &HashMap<&str, &Json>,
    pod: &Carried<'_>,
    findings: &mut Findings<'_>,
) {
    let namespace = pod.namespace;
    let policy = namespaces
        .get(namespace)
        .and_then(|n| Policy::of_namespace(n))
        .filter(|p| p.level > Level::Privileged);
    // Judged as the server creates it (defaults, AppArmor annotations, a
    // StatefulSet's claims).
    let created = as_created(&pod.pod, &pod.claims);
    let servers = &context.servers;
    let cluster = policy.map_or_else(Vec::new, |p| {
        broken(&created, (p.level, p.version), &[], servers)
    });
    let (judged, demand) = demand_of(context, pod.index, namespace);
    if policy.is_none() && judged == Judged::Other {
        unverified(
            namespace,
            namespaces.contains_key(namespace),
            (&created, &context.servers),
            findings,
        );
    }
    let demanded = match demand {
        Demand::Restricted => broken(&created, RESTRICTED, &[], servers),
        Demand::Rootless => broken(&created, RESTRICTED, ROOTLESS_RELAXED, servers),
        Demand::Nothing => Vec::new(),
    };
    let whose = match judged {
        Judged::Unclassed => format!(
            "{namespace}, of no trust class, is held to the operator class's Pod Security restricted"
        ),
        Judged::Daemon => format!(
            "a BuildKit daemon, which ADR-0006 runs in the builds class, demands Pod Security restricted but for what rootless buildkitd needs (in {namespace}, not the builds namespace)"
        ),
        Judged::Class(class) if demand == Demand::Rootless => format!(
            "the {} class in {namespace} demands Pod Security restricted but for what rootless buildkitd needs",
            class.name()
        ),
        Judged::Class(class) => format!(
            "the {} class in {namespace} demands Pod Security restricted",
            class.name()
        ),
        Judged::Other => String::new(),
    };
    let mut reported: Vec<&ControlViolation> = Vec::new();
    for b in cluster.iter().chain(&demanded) {
        if reported.contains(&&b.violation) {
            continue;
        }
        reported.push(&b.violation);
        let by_cluster = cluster.iter().find(|c| c.violation == b.violation);
        let by_class = demanded.iter().find(|c| c.violation == b.violation);
        let mut why = Vec::new();
        if let (Some(c), Some(p)) = (by_cluster, policy) {
            why.push(format!(
                "namespace {namespace} enforces Pod Security {}{}, which refuses the pod",
                p.name(),
                only_on(&c.servers, servers)
            ));
        }
        if let Some(c) = by_class {
            why.push(format!("{whose}{}", only_on(&c.servers, servers)));
        }
        let v = &b.violation;
        findings.report(
            Invariant::PodSecurityVerdicts,
            pod.index,
            &pod.at.of(&v.path),
            format!(
                "Pod Security control \"{}\": {}; {}",
                v.control,
                v.message(),
                why.join("; and ")
            ),
        );
    }
}

/// Another application's pod in a namespace whose Pod Security level the
/// input does not show: nothing the ADRs demand, and the cluster's verdict
/// unknown; said on an info line when the pod needs more than `baseline`
/// allows (a namespace with no label enforces the cluster's default,
/// `privileged` unless the admission is configured otherwise).
fn unverified(
    namespace: &str,
    shown: bool,
    (created, servers): (&Created, &[u32]),
    findings: &mut Findings<'_>,
) {
    let mut needs: Vec<&str> = Vec::new();
    for violation in evaluate(&created.pod(), Level::Baseline, servers[0]) {
        if !needs.contains(&violation.control) {
            needs.push(violation.control);
        }
    }
    if needs.is_empty() {
        return;
    }
    let whose = if shown {
        format!("Namespace {namespace} states no enforced Pod Security level")
    } else {
        format!("Namespace {namespace} is not in the input")
    };
    findings.note(
        format!("Namespace {namespace}"),
        format!(
            "{whose}, and a pod there needs Pod Security privileged ({}); what the cluster enforces there was not verified",
            needs.join(", ")
        ),
    );
}

/// ` (on Kubernetes 1.35)` when only some of the server versions judged
/// (`judged`) refuse it.
fn only_on(servers: &[u32], judged: &[u32]) -> String {
    if servers.len() == judged.len() {
        return String::new();
    }
    let names: Vec<String> = servers.iter().map(|m| format!("1.{m}")).collect();
    format!(" (on Kubernetes {})", names.join(" and "))
}

/// The daemons' pod template: each buildd's `--daemon-pod-template` names a
/// ConfigMap whose data holds the pod template buildd starts every daemon
/// from (read once, [`crate::check::facts::DaemonTemplate`]); each value
/// holding a pod is judged as a pod of the builds namespace, wherever the
/// ConfigMap sits (T2 places it).
fn daemon_pod_templates(
    context: &Context<'_>,
    namespaces: &HashMap<&str, &Json>,
    findings: &mut Findings<'_>,
) {
    for template in &context.facts.daemon_templates {
        let object = context.objects[template.config_map];
        let read = match &template.read {
            Ok(read) => read,
            Err(why) => {
                findings.note(
                    format!(
                        "ConfigMap {}/{}",
                        namespace_of(object),
                        object.field("metadata").field("name").as_str().unwrap_or_default()
                    ),
                    format!(
                        "{}: {why}; the daemons' pod template in it was not checked for Pod Security",
                        template.key
                    ),
                );
                continue;
            }
        };
        if !read.field("spec").is_object() {
            continue;
        }
        let pod = Carried {
            index: template.config_map,
            namespace: &template.builds,
            at: Where::Text(KeyPath::root().key("data").key(template.key.as_str())),
            pod: Pod {
                metadata: read.field("metadata"),
                spec: read.field("spec"),
            },
            claims: Vec::new(),
        };
        verdicts(context, namespaces, &pod, findings);
    }
    for (builds, name) in &context.facts.missing_templates {
        findings.note(
            format!("ConfigMap {builds}/{name}"),
            "named by buildd's --daemon-pod-template but not in the input: the daemons' pod template was not checked for Pod Security",
        );
    }
}

/// The Pod Security Admission level of each mode is the class's.
fn levels(namespace: &ClassedNamespace<'_>, findings: &mut Findings<'_>) {
    let (name, class) = (namespace.name, namespace.class);
    let labels = &namespace.object.field("metadata").field("labels");
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
                Invariant::PodSecurityVerdicts,
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

#[cfg(test)]
mod tests {
    use super::*;
    use kubernetes::pod_security::{CONTROLS, TARGET_MINORS};

    /// The builds class's relaxations are controls of the table, and the
    /// restricted ones the level would run (a misspelt id would silently
    /// relax nothing).
    #[test]
    fn the_rootless_relaxations_name_controls_of_the_table() {
        for id in ROOTLESS_RELAXED {
            assert!(CONTROLS.iter().any(|c| c.id == *id), "{id}");
        }
        let spec = serde_json::json!({"securityContext": {"runAsNonRoot": true,
            "seccompProfile": {"type": "Unconfined"}, "appArmorProfile": {"type": "Unconfined"}},
            "containers": [{"name": "buildkitd", "securityContext": {"capabilities": {"drop": ["ALL"]}}}]});
        let pod = Pod {
            metadata: &Json::Null,
            spec: &spec,
        };
        let created = as_created(&pod, &[]);
        let all = broken(&created, RESTRICTED, &[], &TARGET_MINORS);
        assert_eq!(all.len(), 3);
        assert!(broken(&created, RESTRICTED, ROOTLESS_RELAXED, &TARGET_MINORS).is_empty());
    }
}
