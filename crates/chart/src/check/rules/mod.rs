//! The chart's rules (ADR-0006, ADR-2647), one file each, and what each
//! protects, with an example finding ([`RULES`]): the one source of
//! `docs/checks.md` (`chartgen docs checks`), which every finding's `doc`
//! field links to.
//!
//! The RBAC rules read one [`grants::Grants`], built once per run: the
//! resolved roles and bindings ([`crate::check::rbac`]), and what the
//! bindings give each ServiceAccount. The topology rules read the
//! [`crate::check::facts`] of the context.

mod grant;
mod grants;
mod info;
mod keys;
mod limits;
mod namespaces;
mod net_policies;
mod r1_events;
mod r2_event_verbs;
mod r3_pods_leases;
mod r4_custom_resources;
mod r5_wildcards;
mod r6_daemon_objects;
mod role;
mod t1_namespaces;
mod t2_placement;
mod t3_pod_security;
mod t4_exemptions;
mod t5_wiring;

use std::fmt::Write as _;

use serde_json::Value as Json;

use super::{Context, Findings, Invariant};
use kubernetes::diagnostic::Rule;

/// Checks ROLE, GRANT and R1-R6: effective RBAC per subject, and the
/// roles themselves. R1-R6 judge the operator's roles and bindings only
/// ([`Context::in_scope`]); ROLE and GRANT every one.
pub fn rbac(context: &Context<'_>, findings: &mut Findings<'_>) {
    let grants = grants::Grants::of(context);
    r1_events::check(context, &grants, findings);
    r2_event_verbs::check(context, &grants, findings);
    r3_pods_leases::check(context, &grants, findings);
    r4_custom_resources::check(context, &grants, findings);
    r5_wildcards::check(&grants, findings);
    r6_daemon_objects::check(context, &grants, findings);
    role::check(context, &grants, findings);
    grant::check(context, &grants, findings);
}

/// Checks T1-T5, NET and FACT, and notes what the input does not show;
/// `exemptions` is the Kyverno artifact, when the input has one.
pub fn topology(context: &Context<'_>, findings: &mut Findings<'_>, exemptions: Option<&Json>) {
    t1_namespaces::check(context, findings);
    t2_placement::check(context, findings);
    t3_pod_security::check(context, findings);
    t4_exemptions::check(context, findings, exemptions);
    t5_wiring::check(context, findings);
    net_policies::check(context, findings);
    keys::check(context, findings);
    limits::check(context, findings);
    info::check(context, findings);
}

/// The document that explains every rule, a section per id: each
/// finding's `doc` link.
const DOC: &str = "docs/checks.md";

/// Every rule, in the order the reference lists them.
pub const RULES: &[Rule] = &[
    Rule {
        id: Invariant::R1.id(),
        title: "Events only through a write-only ClusterRole bound cluster-wide, with create and patch on core events",
        help: "ADR-2647: client-go's event recorder writes an event into the namespace of the object it describes, so a grant limited to one namespace loses the events of objects elsewhere, silently. buildd's ServiceAccount must be able to create and patch core (`\"\"`) events in every namespace, through a ClusterRoleBinding. A Role that names events, a RoleBinding to the events ClusterRole, and an events rule restricted by `resourceNames` (create cannot be restricted by name, and the recorder names every event anew) are findings. Events go to the operator's ServiceAccount only: a binding of the operator's (one that reaches its accounts, lives in its namespaces, or binds a role buildd holds) that gives events to any other subject is a finding, and a group subject (`system:serviceaccounts`, `system:serviceaccounts:<namespace>`, `system:authenticated`) gives them to every account it includes, however it also covers buildd's. A further write-only grant in `events.k8s.io` is tolerated, never required.",
        example: "R1 Deployment buildkit-operator/buildkit-buildd spec.template.spec.serviceAccountName: buildkit-operator/buildkit-buildd cannot create, patch events (core group) cluster-wide; the event recorder writes where each object lives (ADR-2647)",
        doc: DOC,
    },
    Rule {
        id: Invariant::R2.id(),
        title: "No role reads, updates or deletes events",
        help: "ADR-2647: the events grant stays write-only: the operator cannot read, list, watch, update or delete events anywhere. Any verb on events besides create and patch, in any role, is a finding; a cluster default role (`view`, `edit`, `admin`, `cluster-admin`, …) that the operator's binding grants is judged by its rules, the finding at the binding's `roleRef`.",
        example: "R2 ClusterRole buildkit-operator-events rules[0].verbs: grants get, watch on events; events are write-only: create and patch (ADR-2647)",
        doc: DOC,
    },
    Rule {
        id: Invariant::R3.id(),
        title: "Pods and leader-election leases in the operator namespace's Role",
        help: "ADR-2647 and ADR-0006: buildd takes its leader-election Lease in the namespace it runs in, and the Role there keeps pods and leases. That Role names nothing but core pods and `coordination.k8s.io` leases (deployments there, or a ClusterRole a RoleBinding binds in the operator namespace that grants more, is a finding; events and secrets there are R1's and R6's). Leases are granted nowhere else; pods only in the operator and builds namespaces, never cluster-wide. buildd must keep get on pods, create on leases, and get and update on the Lease its `--leader-election-id` names; a buildd run with `--leader-elect=false` takes no Lease and needs no lease grant (without that flag, leader election is taken as on).",
        example: "R3 Deployment buildkit-operator/buildkit-buildd spec.template.spec.serviceAccountName: buildkit-operator/buildkit-buildd lacks get, update on lease buildkit-buildd-leader (its --leader-election-id) in buildkit-operator; the operator namespace's Role keeps pods and leases (ADR-2647)",
        doc: DOC,
    },
    Rule {
        id: Invariant::R4.id(),
        title: "The custom-resource grant exists, is cluster-wide and holds only the chart's custom resources",
        help: "ADR-1058 and ADR-2647: cluster-wide, the operator gets its custom resources (and their status and finalizers) and the separate events grant, nothing else: no other resource and no `nonResourceURLs`. The grant must exist: each buildd's ServiceAccount gets get, list and watch on `buildprojects.buildkit-operator.dev` through a ClusterRoleBinding (the operator reconciles them in every namespace); none, or one only through RoleBindings (one namespace each), is a finding. Another application's CRDs in the input are no custom resources of the operator's. Events in the custom-resource ClusterRole (the alternative ADR-2647 rejected) are a finding even when the separate events role exists. A ClusterRole aggregated into `view`, `edit` or `admin` reaches every tenant: it may only read the custom resources, and it may not aggregate other ClusterRoles itself (what its selectors gather in the cluster would reach every tenant unreviewed).",
        example: "R4 ClusterRole buildkit-operator rules[3].resources: events in the custom-resource ClusterRole; ADR-2647 keeps them in a separate write-only ClusterRole, reviewable on its own",
        doc: DOC,
    },
    Rule {
        id: Invariant::R5.id(),
        title: "No wildcards",
        help: "Every grant of the operator's roles names its API groups, resources, verbs and non-resource URLs; `*` would grant what no review saw, including resources added to the cluster later. Another application's roles are not held to the ADRs: their wildcards are GRANT findings, so a wildcard is reported once, under one rule.",
        example: "R5 Role buildkit-builds/buildkit-daemons rules[2].verbs: a wildcard in verbs; name what is granted",
        doc: DOC,
    },
    Rule {
        id: Invariant::R6.id(),
        title: "Daemon objects and secrets only in the builds namespace",
        help: "ADR-0006: the build daemons' StatefulSets, Services, ConfigMaps, claims and certificates, and secrets above all, are granted to buildd only by a Role in the builds namespace, the untrusted blast radius. Secrets are granted nowhere else, through a cluster default role (`edit`, `admin`, `cluster-admin`) that the operator's binding grants neither (reported at the binding's `roleRef`).",
        example: "R6 Role buildkit-operator/buildkit-operator rules[0].resources: secrets granted in namespace buildkit-operator; secrets are granted only in the builds namespace",
        doc: DOC,
    },
    Rule {
        id: Invariant::T1.id(),
        title: "Distinct namespaces, none reserved",
        help: "ADR-0006: each trust class has a namespace of its own, and none is `default`, `kube-system`, `kube-public` or `kube-node-lease` (ADR-0006 rejected Kata in kube-system). A namespace that the manifests put in two classes (buildd's own namespace as its builds namespace, say) is a finding.",
        example: "T1 Namespace kube-system metadata.name: the system class lives in the reserved namespace kube-system",
        doc: DOC,
    },
    Rule {
        id: Invariant::T2.id(),
        title: "Every object in its trust class's namespace",
        help: "ADR-0006: the control plane (buildd, gateway) in the operator namespace; the build daemons' objects and the BuildProjects in the builds namespace; the Kata node plumbing in the system namespace; nothing of the operator's namespaced outside them. An object is placed by what references it, whatever its labels: the ConfigMap, Secret (or the cert-manager Certificate whose `secretName` writes it) and ServiceAccount that buildd's `--daemon-config`, `--daemon-pod-template`, `--daemon-tls-secret` and `--daemon-service-account` name belong in the builds namespace, and what a workload mounts, reads or runs as belongs in that workload's namespace; a copy where its user needs it is no finding. chartgen's component labels only place what nothing references. Another application's objects, in namespaces of no trust class, are not placed.",
        example: "T2 BuildProject buildkit-operator/web-frontend metadata.namespace: belongs to the builds class, in buildkit-builds, not buildkit-operator",
        doc: DOC,
    },
    Rule {
        id: Invariant::T3.id(),
        title: "Pod Security: what the cluster enforces and what the trust class demands",
        help: "Every pod the input carries is evaluated by the Pod Security Standards as the Pod Security admission evaluates them (every control is listed below): a Pod; the pod template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController or PodTemplate; a CronJob's job template's; and the daemons' pod template, the YAML in the ConfigMap that buildd's `--daemon-pod-template` names in its builds namespace, judged as a pod of that namespace. Each pod gets two verdicts, and each finding names the control it breaks with the server's reason: what the cluster will enforce, from the Namespace's `pod-security.kubernetes.io/enforce` and `enforce-version` labels when the input has the Namespace (a level the admission does not know counts as `restricted`, a version it cannot read as `latest`; `latest` is each Kubernetes version chartgen targets, 1.33 and 1.35, as the cluster's own is not in the manifests); and what ADR-0006 demands of the namespace's trust class. The operator class: `restricted`. The builds class: `restricted` except exactly what rootless buildkitd needs, which ADR-0006 names: the Privilege Escalation control is waived (`allowPrivilegeEscalation` may be true or unset: rootless buildkitd maps its user namespace through the setuid `newuidmap` and `newgidmap`), and with it restricted's Capabilities control (those setuid helpers gain CAP_SETUID and CAP_SETGID only while the bounding set keeps them, so `drop: [ALL]` is not asked; baseline's Capabilities control, nothing added beyond the default set, still holds), the Seccomp control at both levels (any `seccompProfile`, `Unconfined` included, or none: it creates namespaces and mounts the default profile blocks) and the AppArmor control (any profile, `unconfined` included); every other control holds (not privileged, no host namespaces, ports or paths, the restricted volume types, non-root, no `runAsUser: 0`, SELinux, sysctls, `/proc` mount). The system class (the Kata node plumbing): nothing beyond what its namespace enforces. A BuildKit daemon (a container running a `…/buildkit` image) outside the operator and builds namespaces, the system namespace included, is a build daemon wherever it runs, held to the builds class's demand. The operator's other objects in a namespace the input shows no class for are held to the operator class's demand. Another application's pod (not the operator's: see the scope above) is held to its Namespace's labels only; when the input does not show them and the pod needs more than `baseline` allows, an `info:` line says so. A Namespace that states a Pod Security level states its class's (`restricted` for the operator, `privileged` for builds and system).",
        example: "T3 Deployment buildkit-operator/buildkit-gateway spec.template.spec.containers[0].ports[0].hostPort: Pod Security control \"Host Ports\": hostPort (container \"gateway\" uses hostPort 8443); namespace buildkit-operator enforces Pod Security restricted:latest, which refuses the pod; and the operator class in buildkit-operator demands Pod Security restricted",
        doc: DOC,
    },
    Rule {
        id: Invariant::ReadOnlyRoot.id(),
        title: "The control plane's root filesystem is read-only",
        help: "ADR-0006 hardens the control plane beyond Pod Security `restricted`: every container, init containers included, of a pod in the operator namespace (and in a namespace the input shows no class for, held to the operator class) sets `securityContext.readOnlyRootFilesystem: true` (a Windows pod, `spec.os.name: windows`, cannot set it and is not held to it). No Pod Security control asks for it, so the cluster's admission never refuses such a pod: only this rule does.",
        example: "ROOTFS Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem: readOnlyRootFilesystem is not true; the operator class in buildkit-operator does not allow it",
        doc: DOC,
    },
    Rule {
        id: Invariant::T4.id(),
        title: "Policy exemptions by trust class",
        help: "ADR-0006: least privilege per namespace: the operator namespace carries no exemption, the builds namespace the security-context policy's, the system namespace that and the host-path policy's. Checked on chartgen's `buildkit-operator.dev/policy-exemptions` annotation, on `kyverno-exemptions.yaml` when the input has it, and on every Kyverno `PolicyException` (`kyverno.io/v2`, `v2beta1`) in the input, an exemption like any other: one whose match includes the operator namespace (by name, a wildcard, a namespace selector, or no namespace restriction at all) is a finding, and so is one that exempts the builds or system namespace from a policy its class does not need (the policy names are read from the Namespaces' annotation, else chartgen's defaults).",
        example: "T4 Namespace buildkit-system metadata.name: the exemptions artifact does not exclude buildkit-system for disallowHostPath, but the system class needs it",
        doc: DOC,
    },
    Rule {
        id: Invariant::T5.id(),
        title: "The control plane wired to its namespaces",
        help: "ADR-0006: buildd reads POD_NAMESPACE from the downward API (its Lease lives where it runs) and, when told one, takes it in its own namespace (`--leader-election-namespace`); it is told the builds namespace with `--namespace` (either `--namespace=X` or `--namespace X`), never its own; the gateway's `--daemon-namespace` names the same builds namespace; an operator namespace holds a buildd.",
        example: "T5 Deployment buildkit-operator/buildkit-gateway spec.template.spec.containers[0].args: told --daemon-namespace=buildkit-operator; the daemons run in the builds namespace, buildkit-builds",
        doc: DOC,
    },
    Rule {
        id: Invariant::Network.id(),
        title: "Default deny in every namespace the release targets, and no ingress from the whole cluster",
        help: "Issue 23 and `docs/network.md`: the operator and builds namespaces (where buildd runs, and its `--namespace`) each have a NetworkPolicy with an empty `podSelector` (every pod, present and future) for `Ingress` and for `Egress`, so a pod admits and makes only the connections some policy allows. `policyTypes` is read as the API server defaults it (left out: `Ingress`, and `Egress` when the policy has egress rules); a selector with any label or expression is not every pod. No ingress rule of a policy in those namespaces admits the whole cluster: a rule without `from` (every source), a peer whose `namespaceSelector` no label narrows (empty, or only `NotIn`, `DoesNotExist` or `Exists` on `kubernetes.io/metadata.name`, which every namespace carries: a `podSelector` beside it narrows by labels anyone who creates a pod can set), or an `ipBlock` of every address (`/0`) whose exceptions leave in a range pods are addressed from (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7: excepting only the metadata address still admits every pod, on a CNI that matches pod addresses against ipBlocks). Peers are ORed, a peer's selectors ANDed, a peer without `namespaceSelector` is the policy's own namespace. Not promised: which flows the allow rules open beyond that (`docs/network.md` lists the chart's), egress openness (a build egress of `allowAll` is the values' choice), policies of other kinds (Cilium, Calico) and whether the cluster's CNI enforces NetworkPolicies at all. The system namespace (the Kata bundle, applied out-of-band) is not held to it.",
        example: "NET NetworkPolicy buildkit-operator/buildkit-gateway spec.ingress[0]: the rule has no `from`: it admits every source, the whole cluster, into buildkit-operator; name the namespaces (and pods) that connect",
        doc: DOC,
    },
    Rule {
        id: Invariant::Keys.id(),
        title: "No daemon key shared between trusted and untrusted daemons",
        help: "ADR-0006 makes the builds namespace the untrusted blast radius and speaks of the daemons' certificates; a daemon that runs an untrusted build (a `trusted: false` project or a fork) and escapes into its container holds the key its daemon serves with. So each trust level has its own server certificate and key: buildd names the trusted daemons' Secret with `--daemon-tls-secret` and the untrusted daemons' with `--untrusted-daemon-tls-secret`. One of the two flags without the other (one key for every daemon), both naming the same Secret, or Certificates in the builds namespace writing the two Secrets whose `dnsNames` a hostname could match both of (a wildcard standing for exactly one leftmost label, as TLS clients match names), are findings. What the Certificates' issuer is, and who else it issues to, is not in the manifests: see docs/security.md.",
        example: "KEYS Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].args: buildd is given --daemon-tls-secret=buildkit-daemon-tls and no --untrusted-daemon-tls-secret: every daemon, trusted and untrusted, would serve with one key; each trust level has its own",
        doc: DOC,
    },
    Rule {
        id: Invariant::MissingFact.id(),
        title: "The input shows what the checks need",
        help: "The trust classes come from what the manifests show, not from labels: the operator namespace is where buildd runs, the builds namespace is buildd's `--namespace` (else where the BuildProjects are), the system namespace is where the Kata node plumbing runs (privileged or host-path, running a Kata image, or in a Namespace labelled as the system class; another application's privileged DaemonSet is none). When the operator's objects (BuildProjects, objects carrying chartgen's component label, what buildd's flags name) live in a namespace whose class the input does not show, `check` says which fact is missing, once per namespace, instead of passing or guessing. Another application's objects need no class and draw no FACT.",
        example: "FACT BuildProject ci-builds/pr-forks metadata.namespace: the trust class of namespace ci-builds cannot be told: the input has no buildd Deployment (a container named buildd or running a buildd image), so neither the operator namespace (where buildd runs) nor the builds namespace (its --namespace) is shown; its objects' placement is not verified",
        doc: DOC,
    },
    Rule {
        id: Invariant::Schema.id(),
        title: "Every object matches its Kubernetes schema, strictly",
        help: "Built-in kinds against the vendored strict schemas of `--kube-version`, cert-manager Certificates against the project's schema, custom resources against the CRDs in the input or given with `--crd`. Unknown fields are errors: the API server would drop them silently. An explicit null in a built-in kind is the field unset, as the API server reads it.",
        example: "K8S Deployment buildkit-operator/buildkit-buildd spec: Additional properties are not allowed ('revisionHistoryLimt' was unexpected)",
        doc: DOC,
    },
    Rule {
        id: Invariant::Api.id(),
        title: "Objects keep the API server's listed field rules",
        help: "The OpenAPI schemas leave out rules the API server enforces; these are modelled on its validation (Kubernetes' `pkg/apis/*/validation`), each rule whole, and held to the verdicts of a real API server (`tests/fixtures/k8s-truth/api/`). Checked: **names**: the name rule of each kind (a Service's name is a DNS-1035 label, starting with a letter; a Namespace's a DNS-1123 label; a CronJob's a DNS-1123 subdomain of at most 52 characters; most kinds' a DNS-1123 subdomain; a CRD's `<plural>.<group>`), namespace names, a pod's `hostname` and `subdomain` (DNS-1123 labels), `serviceAccountName`, `schedulerName`, priority class and pull secret names; **labels and annotations**: keys (an annotation key in any case: the API server lowercases it before it checks), values, at most 256 KiB of annotations; a Namespace's Pod Security labels (each mode's level one of `privileged`, `baseline`, `restricted`, its version `latest` or `v1.N` with no leading zero: the admission refuses the Namespace otherwise); **container, port and volume names**: unique DNS-1123 container names across init, regular and ephemeral containers (and no ephemeral container in a new pod or a template), unique DNS-1123 volume names, each volume with one source at most, IANA port names unique in a container (the API server only warns across containers), volume mounts of declared volumes (a StatefulSet's claim templates count) and no mount path twice in a container; **ports**: container, host, probe, lifecycle handler and Service port numbers in 1..65535 (a Service's `targetPort` 0 means its port), named ports IANA service names, protocols TCP, UDP or SCTP, a host port (with its protocol and host IP) once per pod; **images**: no leading or trailing whitespace in a Pod's containers (a template with one is accepted and its pods refused when created; a reference the kubelet cannot parse is `IMAGE`); **resources**: container resource names (`cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>`, or a name with a domain), requests and limits (of containers, PersistentVolumeClaims and claim templates) that are non-negative quantities (a claim's storage request given and above zero) with no request above its limit (compared by value: `1Gi` is more than `1G`), extended resources (`example.com/gpu`) whole and requested only at their limit, huge pages in whole pages; **env**: variable names and `envFrom` prefixes printable ASCII without `=` (the rule since Kubernetes 1.32), `valueFrom` exactly one source and no non-empty `value` beside it, downward API paths a variable can read, resource fields, ConfigMap and Secret keys, `envFrom` one source; **probes and lifecycle**: exactly one handler, non-negative timings, `successThreshold` 1 (or 0, its default) for liveness and startup probes, a positive probe grace period and none on a readiness probe, no probes on an init container that is no sidecar, HTTP schemes and header names; **workload spec**: non-negative replicas, history limits, deadlines and partitions, user, group and fsGroup ids in 0..2147483647, the restart policy the owner allows (`Always` for Deployments, ReplicaSets, DaemonSets, StatefulSets and ReplicationControllers; `OnFailure` or `Never` for Jobs and CronJobs, unset meaning `Always`), the enumerated words (restart, DNS, preemption, pull and termination message policies, strategy types, pod management and completion modes), a Deployment's strategy (`Recreate` without `rollingUpdate`; `maxUnavailable` and `maxSurge` integers or percentages, `maxUnavailable` at most 100 %, not both 0) and a DaemonSet's (exactly one of `maxUnavailable`, 1 when unset, and `maxSurge`, 0 when unset, non-zero), a Deployment's `progressDeadlineSeconds` (600 when unset) above its `minReadySeconds`; `dnsPolicy: None` with a `dnsConfig`; AppArmor annotations naming the profile each container runs with; a seccomp or AppArmor profile type `Localhost`, `RuntimeDefault` or `Unconfined`, its `localhostProfile` exactly when the type is `Localhost` (for seccomp a relative path, for AppArmor a name not padded with whitespace), each pod sysctl set once and named as the API server reads sysctl names; a pod with a container, each with an image; with `hostUsers: false` no host network, PID or IPC namespace, and only there `procMount: Unmasked`; on the host network a host port equal to its container port and no network sysctl (no IPC sysctl in the host IPC namespace); `allowPrivilegeEscalation: false` neither with `privileged: true` nor with `CAP_SYS_ADMIN` added; a relative `subPath` without `..`; no lifecycle hooks on an init container that is no sidecar; in a Windows pod none of the Linux-only fields (host PID and IPC, user namespaces, SELinux, seccomp, AppArmor, capabilities, privileged and the rest); a HostProcess container only beside HostProcess containers, on the host network, the pod's and the container's setting equal where both are set; seccomp annotations that name the profile the fields name; **scheduling** (toleration keys, operators and effects, no key but with `Exists`, no value with `Exists`, `tolerationSeconds` only for `NoExecute`; node affinity operators with their values, `Gt`/`Lt` one integer, weights in 1..100, a required node affinity with a term, `matchFields` on `metadata.name` only with `In`/`NotIn` and one value; topology keys, `maxSkew` at least 1, `whenUnsatisfiable` words, `minDomains` only with `DoNotSchedule`, no two constraints of one topology key and `whenUnsatisfiable`; node selector labels); **selectors**: label selectors with `In`/`NotIn` given values and `Exists`/`DoesNotExist` given none and no other operator, a Deployment's, DaemonSet's, StatefulSet's, ReplicaSet's, ReplicationController's or Job's selector that selects its own pod template (and is not empty, but for a Job), a Job's selector, without `manualSelector: true`, selecting no more than the labels the API server generates (`job-name`, `controller-uid`), and with it given, none in a CronJob's job template; **cronjob**: the schedule as Kubernetes' cron parser reads it (five fields in range, names, steps, `@` descriptors; no `TZ` in a new CronJob's schedule, refused since Kubernetes 1.27: the zone goes in `timeZone`), `timeZone` an explicit IANA zone name by its form (whether the zone exists depends on the server's time zone database), `concurrencyPolicy`; **pdb**: `minAvailable` or `maxUnavailable`, not both, each an integer or a percentage up to 100 %; **service ports**: a Service's type (a headless one neither `NodePort` nor `LoadBalancer`), a `nodePort` not on a `ClusterIP` Service, an `externalTrafficPolicy` only on an externally accessible one, an `ExternalName` Service's DNS name, at least one port unless headless or `ExternalName`, port names required and unique when there are several, no port number and protocol twice, the traffic and affinity policy words; **networkpolicy**: ports (a named port without `endPort`, `endPort` not below `port`), peers (an `ipBlock` alone, else a selector), CIDRs with exceptions strictly inside, policy types `Ingress` and `Egress`; **rbac**: rules with verbs, resource rules with API groups and resources, non-resource URLs only in a ClusterRole and never beside resources, subjects of kind `ServiceAccount`, `User` or `Group` with their API groups, a ServiceAccount subject of a ClusterRoleBinding with its namespace, role references to a Role or ClusterRole of the RBAC group (unset or empty, it is that group), aggregation selectors; ConfigMap keys (valid, none in both `data` and `binaryData`); and a single CustomResourceDefinition per group and kind (the API server does not accept a second claim). Unknown fields and wrong types are the schema's findings (`K8S`). A render that breaks one of them would be refused on apply. Not promised: rules not listed here (the API server has more, such as the fields of kinds other than those named), admission (webhooks, quotas, LimitRanges, Pod Security, policy engines) and anything that depends on the cluster's state, such as whether a time zone or a referenced object exists",
        example: "API Service buildkit-operator/1-gateway metadata.name: `1-gateway` is not a valid Service name: a DNS-1035 label starts with a letter",
        doc: DOC,
    },
    Rule {
        id: Invariant::Image.id(),
        title: "Every image reference can be pulled",
        help: "An image reference is checked in the distribution grammar the kubelet parses it with (`[registry/]repository[:tag][@digest]`, lowercase repository paths, a digest of its algorithm's length). The API server accepts any text there; a reference the kubelet cannot parse leaves the pod in `InvalidImageName`, pulling nothing.",
        example: "IMAGE Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].image: `ghcr.io/Acme/buildd:1` is not an image reference (`ghcr.io/Acme/buildd` is no `[registry/]path` of lowercase letters, digits and single separators); the kubelet cannot pull it",
        doc: DOC,
    },
    Rule {
        id: Invariant::Limits.id(),
        title: "The LimitRange of a BuildProject's namespace admits its daemon",
        help: "buildd starts each BuildProject's daemon with the project's `spec.resources`. The LimitRange admission of its namespace gives a container without a limit the LimitRange's `default` (else its `max`) and refuses a container whose request is above the limit so given, or whose limit is above `max`, for CPU and memory alike: the render would apply and every build of the project would fail. Each such request and limit of the operator's BuildProjects is a finding, checked against each `Container` item of a LimitRange in their namespace that the input holds. The chart's own LimitRange sets no default CPU limit and no CPU maximum (docs/values.md, `builds.limitRange`): a daemon that sets no CPU limit is neither capped nor refused; `validate` refuses values whose daemons the LimitRange would refuse.",
        example: "LIMITS BuildProject buildkit-builds/platform-api spec.resources.requests.cpu: requests.cpu 4 is above the limit 2 the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod",
        doc: DOC,
    },
    Rule {
        id: Invariant::UnknownKind.id(),
        title: "Every kind has a schema",
        help: "An object of a kind with no schema (no vendored schema, no CRD) cannot be checked; it is a finding, never a silent pass.",
        example: "KIND Widget buildkit-builds/w: no schema for example.com/v1 Widget; give its CRD with --crd",
        doc: DOC,
    },
    Rule {
        id: Invariant::UnknownRole.id(),
        title: "Every bound role is known",
        help: "A binding's role is read from the input or, for the roles every cluster has, from chartgen's table of Kubernetes' default roles (`cluster-admin`, `admin`, `edit`, `view`, the `system:*` and controller roles; `admin`, `edit` and `view` with what the input's ClusterRoles labelled `rbac.authorization.k8s.io/aggregate-to-*` add to them): what those grant is checked like any other grant. A binding to a role that is neither grants permissions nobody can review here, and is a finding, never read as empty. So is a binding to an aggregated ClusterRole of the input (a non-empty `aggregationRule`): the aggregation controller fills it from every ClusterRole of the cluster its selectors match, other applications' included, not only from the input and the default roles.",
        example: "ROLE ClusterRoleBinding admin roleRef: binds ClusterRole platform-superuser, which is neither in the input nor one of the cluster's default roles; its permissions cannot be checked",
        doc: DOC,
    },
    Rule {
        id: Invariant::Grant.id(),
        title: "No role grants its holder more than it shows",
        help: "Generic, for every role in the input, the buildkit operator's or another application's, whoever it is bound to: `escalate` or `bind` on roles and clusterroles (write or bind a role granting more than the holder has, cluster-admin included), `impersonate` on users, groups, serviceaccounts, uids or userextras (act as someone else), and a ClusterRole aggregated into `view`, `edit` or `admin` that aggregates other ClusterRoles itself (every tenant gets whatever its selectors match in the cluster). Wildcards (`*` in apiGroups, resources, verbs, nonResourceURLs; a `*` verb includes escalate, bind and impersonate) are GRANT findings in another application's roles; in the operator's roles they are R5 (and the tenant aggregation R4), so each is reported once. `resourceNames` patterns (cert-manager's `issuers.cert-manager.io/*` signer names) are names, not wildcards.",
        example: "GRANT ClusterRole ci-admin rules[0].verbs: grants bind on clusterroles.rbac.authorization.k8s.io: its holder can bind any role, cluster-admin included, to anyone, itself too",
        doc: DOC,
    },
];

/// `docs/checks.md`: every rule with what it protects and an example.
pub fn reference() -> String {
    let mut out = String::from(
        "# Checks\n\n\
         <!-- Generated by `chartgen docs checks` from src/chart/check/rules/mod.rs; do not edit. -->\n\n\
         `chartgen check` (and `chartgen render`, before it prints or writes anything) \
         reports each broken rule as a finding: the rule's id, the object, the path in \
         it, a message, and where it was read. `--output json` gives the same with a \
         `doc` link to the rule's section here. Exit code 1 when there is any finding.\n\n\
         The trust classes come from what the manifests show: the operator namespace is \
         where buildd runs, the builds namespace is buildd's `--namespace`, the system \
         namespace is where the Kata node plumbing (privileged or host-path, running a \
         Kata image or labelled as such) runs. Labels only fill \
         gaps. What the input does not show is said on an `info:` line (in JSON, `info`), \
         which does not change the exit code: a namespace with no Namespace object, a \
         RuntimeClass from the Kata bundle applied out-of-band, a Namespace of another \
         tool that states no Pod Security level, a prerequisite the cluster must hold \
         before the bundle is applied: cert-manager (custom resources of \
         `cert-manager.io` whose CRD is neither in the input nor given with `--crd`) and \
         Kyverno (a Namespace whose `buildkit-operator.dev/policy-exemptions` annotation \
         names its policies, or `kyverno.io` resources, with no Kyverno CRD).\n\n\
         The ADR rules (R1-R6, T1-T5, FACT) judge the buildkit operator's objects only: \
         each buildd and what ties to it (its namespaces and everything in them, the \
         BuildProjects and their CRD, what its objects name or mount, the roles and \
         bindings that reach its namespaces' ServiceAccounts). Another application's \
         objects beside it (cert-manager's chart in the same GitOps repository, say) get \
         the generic rules only: the schema (K8S, KIND), the API server's rules (API), \
         roles that are not in the input (ROLE) and grants that escalate (GRANT).\n\n",
    );
    for rule in RULES {
        let _ = write!(
            out,
            "## {}\n\n**{}.** {}\n\nExample:\n\n```\n{}\n```\n\n",
            rule.id, rule.title, rule.help, rule.example
        );
        if rule.id == Invariant::T3.id() {
            out.push_str(&kubernetes::pod_security::reference());
            out.push('\n');
        }
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_explained_once_and_its_example_carries_its_id() {
        let all = Invariant::ALL;
        assert!(
            all.windows(2).all(|w| w[0] < w[1]),
            "ALL in sort order, once each"
        );
        for invariant in all {
            let rule = invariant.rule();
            assert_eq!(rule.id, invariant.id());
            assert!(
                rule.example.starts_with(&format!("{} ", rule.id)),
                "{}",
                rule.example
            );
            assert_eq!(
                invariant.doc(),
                format!("docs/checks.md#{}", rule.id.to_lowercase())
            );
        }
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert_eq!(
            ids.len(),
            all.len(),
            "a new invariant needs its entry in RULES"
        );
    }
}
