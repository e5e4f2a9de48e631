//! Every fact of ADR-0006 (topology) and ADR-2647 (RBAC) that the code
//! acts on, each written once: the plan's types build the manifests from
//! them, the templates receive them through the plan, and `check` compares
//! any manifests against the same constants. A fact changed here changes
//! what is rendered and what is checked together.

use super::verbs::{NamedVerb, Verb};
use crate::model::Values;

/// A resource as RBAC names it: API group (`""` for core) and plural.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupResource {
    /// The API group; `""` is the core group.
    pub group: &'static str,
    /// The plural resource name.
    pub resource: &'static str,
}

const fn core(resource: &'static str) -> GroupResource {
    GroupResource {
        group: "",
        resource,
    }
}

// ---- The custom resources (ADR-1058) ----------------------------------

/// ADR-1058: "BuildProjects live in the API group buildkit-operator.dev":
/// the API group of the chart's custom resources.
pub const CRD_GROUP: &str = "buildkit-operator.dev";

/// The served and stored version of the BuildProject CRD.
pub const CRD_VERSION: &str = "v1alpha1";

/// ADR-1058: the operator "reconciles … objects wherever they are
/// created": the custom resource its controller caches in every namespace.
pub const CUSTOM_RESOURCES: GroupResource = GroupResource {
    group: CRD_GROUP,
    resource: "buildprojects",
};

/// The verbs controller-runtime's cache calls on the custom resources in
/// every namespace: the custom-resource grant must give them cluster-wide
/// (R4).
pub const CUSTOM_RESOURCE_VERBS: [Verb; 3] = [Verb::Get, Verb::List, Verb::Watch];

/// The custom resources' status subresource, which the operator writes.
pub const CUSTOM_RESOURCE_STATUS: GroupResource = GroupResource {
    group: CRD_GROUP,
    resource: "buildprojects/status",
};

/// The custom resources' finalizers subresource, which the operator writes.
pub const CUSTOM_RESOURCE_FINALIZERS: GroupResource = GroupResource {
    group: CRD_GROUP,
    resource: "buildprojects/finalizers",
};

/// ADR-1058 and ADR-2647: everything the custom-resource ClusterRole may
/// name, "only the chart's custom resources" (R4). The plan's
/// `ClusterGrant<CustomResources>` impls are checked against this list
/// when the crate compiles (`plan::rbac`).
pub const CUSTOM_RESOURCE_ROLE_RESOURCES: [GroupResource; 3] = [
    CUSTOM_RESOURCES,
    CUSTOM_RESOURCE_STATUS,
    CUSTOM_RESOURCE_FINALIZERS,
];

/// ADR-1592: what the tenants' read-only ClusterRole, aggregated into
/// `view`, may name: the custom resources, read (R4). Checked against the
/// plan's `ClusterGrant<TenantReader>` impls like the lists above.
pub const TENANT_READER_RESOURCES: [GroupResource; 1] = [CUSTOM_RESOURCES];

// ---- Events (ADR-2647) ------------------------------------------------

/// ADR-2647: "a second ClusterRole … with create and patch on core
/// events": the resource the event recorder writes, in the core group.
pub const EVENTS: GroupResource = core("events");

/// The other API group serving events (`events.k8s.io`): a write-only
/// grant there is tolerated, never required, and a read there is R2.
pub const EVENTS_API_GROUP: &str = "events.k8s.io";

/// ADR-2647: "create and patch on core events, and nothing else … stays
/// write-only": the verbs of the events grant.
pub const EVENT_VERBS: [Verb; 2] = [Verb::Create, Verb::Patch];

// ---- The operator namespace's Role (ADR-2647, ADR-0006) ---------------

/// ADR-2647: "the release-namespace Role keeps pods and leases only":
/// buildd's pods.
pub const PODS: GroupResource = core("pods");

/// The verb buildd needs on its pods in its own namespace.
pub const POD_VERB: Verb = Verb::Get;

/// ADR-0006: buildd "takes its leader-election Lease in the namespace it
/// runs in": the Lease resource.
pub const LEASES: GroupResource = GroupResource {
    group: "coordination.k8s.io",
    resource: "leases",
};

/// The verbs the Lease lock calls on its one Lease, which a rule may
/// restrict by name.
pub const LEASE_NAMED_VERBS: [NamedVerb; 2] = [NamedVerb::Get, NamedVerb::Update];

/// The verb the Lease lock calls to make its Lease: `resourceNames`
/// cannot restrict create, so it is granted on every lease.
pub const LEASE_CREATE: Verb = Verb::Create;

/// ADR-2647: "the release-namespace Role keeps pods and leases only":
/// everything the operator namespace's Role may name (R3). The plan's
/// `NamespacedGrant<Operator>` impls are checked against this list when the
/// crate compiles (`plan::rbac`).
pub const OPERATOR_ROLE_RESOURCES: [GroupResource; 2] = [PODS, LEASES];

// ---- The builds namespace's Role (ADR-0006) ----------------------------

/// The daemons' StatefulSets.
pub const STATEFULSETS: GroupResource = GroupResource {
    group: "apps",
    resource: "statefulsets",
};

/// The daemons' Services.
pub const SERVICES: GroupResource = core("services");

/// The daemons' ConfigMaps.
pub const CONFIGMAPS: GroupResource = core("configmaps");

/// The daemons' build-cache claims.
pub const PERSISTENT_VOLUME_CLAIMS: GroupResource = core("persistentvolumeclaims");

/// The daemons' pods' logs, which buildd reads in the builds namespace.
pub const POD_LOGS: GroupResource = core("pods/log");

/// ADR-0006: the daemons' objects are granted "only in the builds
/// namespace", the untrusted blast radius (R6).
pub const DAEMON_OBJECTS: [GroupResource; 4] =
    [STATEFULSETS, SERVICES, CONFIGMAPS, PERSISTENT_VOLUME_CLAIMS];

/// ADR-0006: secrets are granted only in the builds namespace (R6).
pub const SECRETS: GroupResource = core("secrets");

/// ADR-0006: everything the builds namespace's Role may name: the daemons'
/// pods and their logs, the daemons' objects ([`DAEMON_OBJECTS`]) and
/// their secrets. The plan's `NamespacedGrant<Builds>` impls are checked
/// against this list when the crate compiles (`plan::rbac`).
pub const BUILDS_ROLE_RESOURCES: [GroupResource; 7] = [
    PODS,
    POD_LOGS,
    SERVICES,
    CONFIGMAPS,
    SECRETS,
    PERSISTENT_VOLUME_CLAIMS,
    STATEFULSETS,
];

/// ADR-0006: the builds namespace holds the daemons' "certs/config": the
/// flags by which buildd names an object its daemons use there, with the
/// kind of object each names (T2 places the object by the flag, whatever
/// its labels). A Certificate provides the Secret its `spec.secretName`
/// names.
pub const DAEMON_REFERENCES: [(&str, &str); 5] = [
    ("--daemon-config", "ConfigMap"),
    ("--daemon-pod-template", "ConfigMap"),
    ("--daemon-tls-secret", "Secret"),
    ("--untrusted-daemon-tls-secret", "Secret"),
    ("--daemon-service-account", "ServiceAccount"),
];

/// The flags by which buildd names the server-certificate Secret of each
/// trust level's daemons: trusted, then untrusted. No key is shared
/// between the levels (KEYS).
pub const DAEMON_TLS_FLAGS: [&str; 2] = ["--daemon-tls-secret", "--untrusted-daemon-tls-secret"];

// ---- Trust classes (ADR-0006) -------------------------------------------

/// The label naming a namespace's trust class.
pub const TRUST_CLASS_LABEL: &str = "buildkit-operator.dev/trust-class";

/// ADR-0006: each namespace carries "only the exemption its workloads
/// need": the annotation listing the policies a namespace must be excluded
/// from, as `key=policy` pairs (`security-context=<name>,host-path=<name>`).
pub const EXEMPTIONS_ANNOTATION: &str = "buildkit-operator.dev/policy-exemptions";

/// A policy a namespace may need an exemption from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exemption {
    /// The security-context policy (restricted profile mutations and checks).
    SecurityContext,
    /// The policy that rejects hostPath volumes.
    HostPath,
}

impl Exemption {
    /// Every exemption, in policy order.
    pub const ALL: [Exemption; 2] = [Exemption::SecurityContext, Exemption::HostPath];

    /// The exemption's key in the namespace annotation: `security-context`
    /// or `host-path`.
    pub fn key(self) -> &'static str {
        match self {
            Exemption::SecurityContext => "security-context",
            Exemption::HostPath => "host-path",
        }
    }

    /// The key of the policy in the platform's Kyverno values (ADR-0006).
    pub fn values_key(self) -> &'static str {
        match self {
            Exemption::SecurityContext => "securityContextPolicy",
            Exemption::HostPath => "disallowHostPath",
        }
    }

    /// Which of the platform's Kyverno values files lists this policy's
    /// exclusions (ADR-0006): the security-context policy per environment,
    /// the host-path policy in the common file shared by every environment.
    pub fn platform_file(self) -> &'static str {
        match self {
            Exemption::SecurityContext => "kyverno/<environment>.values.yaml",
            Exemption::HostPath => "kyverno/common.values.yaml",
        }
    }

    /// The policy's name in this cluster.
    pub fn policy(self, values: &Values) -> &str {
        match self {
            Exemption::SecurityContext => values.policies.security_context.as_str(),
            Exemption::HostPath => values.policies.disallow_host_path.as_str(),
        }
    }
}

/// What ADR-0006 says of one trust class.
#[derive(Clone, Copy, Debug)]
pub struct ClassFacts {
    /// The class's name, as labels and messages write it.
    pub name: &'static str,
    /// The Pod Security Admission level its namespace enforces.
    pub pod_security: &'static str,
    /// The policy exemptions its namespace needs (T4).
    pub exemptions: &'static [Exemption],
}

/// The Pod Security Admission label of each mode, as
/// `pod-security.kubernetes.io/<mode>`: a namespace states its class's
/// level in all three.
pub const POD_SECURITY_MODES: [&str; 3] = ["enforce", "audit", "warn"];

/// The Pod Security Admission label of `mode`.
pub fn pod_security_label(mode: &str) -> String {
    format!("pod-security.kubernetes.io/{mode}")
}

/// ADR-0006: "the control plane is hardened", "carrying only the exemption
/// its workloads need" (none).
pub const OPERATOR: ClassFacts = ClassFacts {
    name: "operator",
    pod_security: "restricted",
    exemptions: &[],
};

/// ADR-0006: "daemons rootless", exempt from the security-context policy.
/// Rootless buildkitd needs unconfined seccomp/AppArmor and privilege
/// escalation for newuidmap, which fails even "baseline".
pub const BUILDS: ClassFacts = ClassFacts {
    name: "builds",
    pod_security: "privileged",
    exemptions: &[Exemption::SecurityContext],
};

/// ADR-0006: "only Kata privileged", exempt from the security-context and
/// host-path policies.
pub const SYSTEM: ClassFacts = ClassFacts {
    name: "system",
    pod_security: "privileged",
    exemptions: &[Exemption::SecurityContext, Exemption::HostPath],
};

/// ADR-0006: "buildd + gateway in the operator namespace; daemons … in
/// builds; Kata in system": the trust class of each component's objects,
/// by their `app.kubernetes.io/component` label.
pub const COMPONENT_CLASSES: [(&str, &str); 5] = [
    ("buildd", OPERATOR.name),
    ("gateway", OPERATOR.name),
    ("daemons", BUILDS.name),
    ("kata-deploy", SYSTEM.name),
    ("kata-clh-vcpu-tune", SYSTEM.name),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Strips what is not literal YAML the template writes: Jinja comments,
    /// statements and expressions (values come from the plan there), and
    /// YAML comment lines (prose for the reader, not read by a cluster).
    fn literal_text(template: &str) -> String {
        let mut text = String::new();
        let mut rest = template;
        while let Some(start) = rest.find('{') {
            let close = match rest[start..].chars().nth(1) {
                Some('#') => "#}",
                Some('%') => "%}",
                Some('{') => "}}",
                _ => {
                    text.push_str(&rest[..=start]);
                    rest = &rest[start + 1..];
                    continue;
                }
            };
            text.push_str(&rest[..start]);
            let end = rest[start..].find(close).expect("a closed tag") + start;
            text.push(' ');
            rest = &rest[end + close.len()..];
        }
        text.push_str(rest);
        text.lines()
            .filter(|line| !line.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn templates(dir: &std::path::Path, found: &mut Vec<(String, String)>) {
        for entry in kubernetes::files::walk(dir) {
            let entry = entry.unwrap();
            if !entry.file_type().is_dir() {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                found.push((entry.path().display().to_string(), text));
            }
        }
    }

    /// The ADR facts a template could write as literals, from the
    /// constants above, so a new fact is covered as soon as it is here.
    fn facts() -> Vec<String> {
        let mut facts: Vec<String> = vec![
            CRD_GROUP.to_owned(),
            EVENTS.resource.to_owned(),
            EVENTS_API_GROUP.to_owned(),
            LEASES.group.to_owned(),
            LEASES.resource.to_owned(),
            SECRETS.resource.to_owned(),
        ];
        facts.extend(EVENT_VERBS.iter().map(|v| v.name().to_owned()));
        facts.extend(DAEMON_OBJECTS.iter().map(|d| d.resource.to_owned()));
        for class in [OPERATOR, BUILDS, SYSTEM] {
            facts.push(class.pod_security.to_owned());
            facts.extend(class.exemptions.iter().map(|e| e.key().to_owned()));
        }
        facts.extend(Exemption::ALL.iter().map(|e| e.values_key().to_owned()));
        facts.sort();
        facts.dedup();
        facts
    }

    /// Literals that are the YAML's structure, not an ADR fact: (template,
    /// literal, why).
    const STRUCTURAL: &[(&str, &str, &str)] = &[(
        "builds-limits.yaml",
        "pods",
        "the ResourceQuota field `pods` (a count), not the RBAC resource",
    )];

    fn is_word(text: &str, at: usize, len: usize) -> bool {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
        let before = text[..at].chars().next_back().is_none_or(|c| !word(c));
        let after = text[at + len..].chars().next().is_none_or(|c| !word(c));
        before && after
    }

    #[test]
    fn the_templates_take_every_adr_fact_from_the_plan() {
        let root =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("templates");
        let mut all = Vec::new();
        templates(&root, &mut all);
        assert!(all.len() > 10, "the templates were not found");
        let mut literal = Vec::new();
        for (path, template) in &all {
            let text = literal_text(template);
            for fact in facts() {
                let allowed = STRUCTURAL
                    .iter()
                    .any(|(file, lit, _)| path.ends_with(file) && *lit == fact);
                let written = text
                    .match_indices(fact.as_str())
                    .any(|(at, _)| is_word(&text, at, fact.len()));
                if written && !allowed {
                    literal.push(format!("{path}: {fact}"));
                }
            }
        }
        assert!(
            literal.is_empty(),
            "ADR facts written as literals: {literal:#?}"
        );
    }

    #[test]
    fn the_scan_sees_a_literal_fact_and_not_a_plan_value() {
        let template = "{# events #}\nspec:\n  group: buildkit-operator.dev\n  x: {{ plan.crd.group }}\n# patch\n";
        let text = literal_text(template);
        assert!(text.contains(CRD_GROUP));
        assert!(!text.contains("events") && !text.contains("plan.crd") && !text.contains("patch"));
    }
}
