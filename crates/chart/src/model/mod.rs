//! The typed values of the chart.
//!
//! These structs are the single source of truth for what a values file may
//! say: the JSON Schema in `schema/values.schema.json` is generated from them
//! (doc comments become descriptions, `Default` impls become defaults), and
//! merged values are deserialized into them after that schema passed.
//! Every struct denies unknown fields; every field has a default, so an empty
//! values file renders the chart as the ADRs describe it.
//!
//! Rules that a JSON Schema cannot state (distinct namespaces, unique project
//! names) live in [`rules`].

pub mod availability;
pub mod extra_objects;
pub mod extras;
pub mod network;
pub mod pod;
pub mod rules;
pub mod types;
pub mod violation;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use availability::{Metrics, Spread};
use extra_objects::ExtraObject;
use extras::Extras;
use network::Network;
use pod::PodSettings;
use types::{DnsLabel, WrittenQuantity};

/// Everything the values can set, merged: this strict schema
/// (schema/values.schema.json, `chartgen schema merged`) is what the values
/// must satisfy after every file and --set is layered over the defaults.
/// A single values file is a layer: editors use
/// schema/values.overlay.schema.json (`chartgen schema overlay`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
#[schemars(title = "chartgen values")]
pub struct Values {
    /// Release name, at most 40 characters: the prefix of object names such
    /// as `<releaseName>-operator-events`.
    pub release_name: DnsLabel,
    /// Labels added to every rendered object.
    pub common_labels: BTreeMap<String, String>,
    /// Annotations added to every rendered object.
    pub common_annotations: BTreeMap<String, String>,
    /// The three namespaces, one per trust class (ADR-0006).
    pub namespaces: Namespaces,
    /// Container images.
    pub images: Images,
    /// The buildd controller (control plane, operator namespace).
    pub buildd: Buildd,
    /// The gateway in front of the build daemons (control plane, operator namespace).
    pub gateway: Gateway,
    /// The builds namespace: rootless buildkitd daemons, their config, certificates and limits.
    pub builds: Builds,
    /// BuildProjects: one per source repository that may run builds.
    pub projects: Vec<Project>,
    /// The Kata node plumbing in the system namespace (applied with the Kata install).
    pub kata: Kata,
    /// Names of the Kyverno policies whose exemptions the chart states (ADR-0006).
    pub policies: Policies,
    /// How GitOps tools (Argo CD, Flux) treat what holds state: kept when
    /// the application is deleted, renamed or pruned.
    pub gitops: GitOps,
    /// The NetworkPolicies: default deny in the operator and builds
    /// namespaces, and the flows the components need (docs/network.md).
    pub network: Network,
    /// Kubernetes objects the chart does not render, added to the release
    /// as written (no commonLabels or commonAnnotations), after the
    /// chart's own objects, and checked like them: an object that breaks
    /// an ADR is refused with its rule. Each needs `apiVersion`, `kind`,
    /// `metadata.name` and, for a namespaced kind, `metadata.namespace`.
    /// A Secret with data, as the entry or embedded in it, is refused (its
    /// material would be written into the output); use an ExternalSecret
    /// or a SealedSecret. A list: a layer's list replaces the one below.
    /// See docs/patching.md.
    pub extra_objects: Vec<ExtraObject>,
}

impl Values {
    /// A copy without `projects`: what the built-in templates read, as
    /// none of them but the one the BuildProjects' writer takes over reads
    /// the BuildProjects (`render::bundle_context`). Every other field is
    /// named, so a new one is copied or the build fails.
    pub fn without_projects(&self) -> Values {
        let Values {
            release_name,
            common_labels,
            common_annotations,
            namespaces,
            images,
            buildd,
            gateway,
            builds,
            projects: _,
            kata,
            policies,
            gitops,
            network,
            extra_objects,
        } = self;
        Values {
            release_name: release_name.clone(),
            common_labels: common_labels.clone(),
            common_annotations: common_annotations.clone(),
            namespaces: namespaces.clone(),
            images: images.clone(),
            buildd: buildd.clone(),
            gateway: gateway.clone(),
            builds: builds.clone(),
            projects: Vec::new(),
            kata: kata.clone(),
            policies: policies.clone(),
            gitops: gitops.clone(),
            network: network.clone(),
            extra_objects: extra_objects.clone(),
        }
    }
}

impl Default for Values {
    fn default() -> Self {
        Values {
            release_name: DnsLabel::from_static("buildkit"),
            common_labels: BTreeMap::new(),
            common_annotations: BTreeMap::new(),
            namespaces: Namespaces::default(),
            images: Images::default(),
            buildd: Buildd::default(),
            gateway: Gateway::default(),
            builds: Builds::default(),
            projects: Vec::new(),
            kata: Kata::default(),
            policies: Policies::default(),
            gitops: GitOps::default(),
            network: Network::default(),
            extra_objects: Vec::new(),
        }
    }
}

/// The namespace of each trust class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Namespaces {
    /// Hardened control plane (buildd, gateway); carries no policy exemption.
    pub operator: DnsLabel,
    /// Rootless build daemons, their certificates, config and the BuildProjects;
    /// exempt from the security-context policy.
    pub builds: DnsLabel,
    /// Privileged Kata node plumbing; exempt from the security-context and
    /// host-path policies; applied with the Kata install.
    pub system: DnsLabel,
    /// Whether the chart renders the operator and builds Namespace objects.
    pub create: bool,
}

impl Default for Namespaces {
    fn default() -> Self {
        Namespaces {
            operator: DnsLabel::from_static("buildkit-operator"),
            builds: DnsLabel::from_static("buildkit-builds"),
            system: DnsLabel::from_static("buildkit-system"),
            create: true,
        }
    }
}

/// One container image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Image {
    /// Registry and repository, such as `ghcr.io/acme/buildd`.
    #[schemars(length(min = 1))]
    pub repository: String,
    /// Tag, the text as written (`1.10` stays `1.10`). The tag of the image
    /// a workload runs (buildd, gateway, kataDeploy, vcpuTune) is also the
    /// `app.kubernetes.io/version` label of that Deployment or DaemonSet and
    /// its pods, so it must be a label value too (at most 63 letters,
    /// digits, `-`, `_` or `.`, starting and ending with a letter or digit).
    /// No other object carries a version label: changing a tag changes only
    /// the workloads that run the image.
    #[schemars(length(min = 1, max = 128))]
    pub tag: String,
    /// Digest (`sha256:<64 hex>`); when set, the image is pulled by digest.
    /// Set it in the same layer as the tag (one values file, or the `--set`
    /// arguments): a later layer that changes the tag but not the digest is
    /// refused, as the digest would keep the old image. Drop a digest with
    /// `--set images.<name>.digest=null`.
    #[serde(default)]
    #[schemars(pattern(types::DIGEST_PATTERN))]
    pub digest: Option<String>,
    /// When the kubelet pulls the image.
    #[serde(default)]
    pub pull_policy: PullPolicy,
}

impl Image {
    fn new(repository: &str, tag: &str) -> Self {
        Image {
            repository: repository.to_owned(),
            tag: tag.to_owned(),
            digest: None,
            pull_policy: PullPolicy::IfNotPresent,
        }
    }

    /// `repository:tag`, or `repository:tag@digest` when a digest pins it:
    /// the reference the kubelet pulls.
    pub fn reference(&self) -> String {
        match &self.digest {
            Some(digest) => format!("{}:{}@{digest}", self.repository, self.tag),
            None => format!("{}:{}", self.repository, self.tag),
        }
    }
}

/// Kubernetes image pull policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PullPolicy {
    /// Pull on every start.
    Always,
    /// Pull when the node lacks the image.
    #[default]
    IfNotPresent,
    /// Never pull.
    Never,
}

/// The images of every component.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Images {
    /// The buildd controller.
    pub buildd: Image,
    /// The gateway.
    pub gateway: Image,
    /// Rootless buildkitd, run by buildd in the builds namespace.
    pub buildkitd: Image,
    /// The kata-deploy installer DaemonSet.
    pub kata_deploy: Image,
    /// The vCPU-tuning DaemonSet for Kata Cloud Hypervisor guests.
    pub vcpu_tune: Image,
}

impl Default for Images {
    fn default() -> Self {
        Images {
            buildd: Image::new("ghcr.io/buildkit-operator/buildd", "0.4.0"),
            gateway: Image::new("ghcr.io/buildkit-operator/gateway", "0.4.0"),
            buildkitd: Image::new("docker.io/moby/buildkit", "v0.26.2-rootless"),
            kata_deploy: Image::new("quay.io/kata-containers/kata-deploy", "4.1.0"),
            vcpu_tune: Image::new("ghcr.io/buildkit-operator/kata-clh-vcpu-tune", "0.4.0"),
        }
    }
}

/// CPU and memory of one container.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Resources {
    /// What the scheduler reserves.
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
    /// The most the container may use.
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub limits: ResourceList,
}

impl Resources {
    /// These amounts, each unset one taken from `base`: a project's own
    /// resources over the daemons' defaults.
    pub fn layered_over(&self, base: &Resources) -> Resources {
        let mut merged = self.clone();
        for (mine, theirs) in [
            (&mut merged.requests, &base.requests),
            (&mut merged.limits, &base.limits),
        ] {
            mine.cpu = mine.cpu.take().or_else(|| theirs.cpu.clone());
            mine.memory = mine.memory.take().or_else(|| theirs.memory.clone());
        }
        merged
    }
}

impl Resources {
    fn new(cpu: &'static str, memory: &'static str, memory_limit: &'static str) -> Self {
        Resources {
            requests: ResourceList {
                cpu: Some(WrittenQuantity::from_static(cpu)),
                memory: Some(WrittenQuantity::from_static(memory)),
            },
            limits: ResourceList {
                cpu: None,
                memory: Some(WrittenQuantity::from_static(memory_limit)),
            },
        }
    }
}

/// Amounts of CPU and memory; an absent one is not set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ResourceList {
    /// CPU, in cores or millicores (`500m`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<WrittenQuantity>,
    /// Memory, such as `256Mi`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<WrittenQuantity>,
}

impl ResourceList {
    /// Whether no amount is set.
    pub fn is_empty(&self) -> bool {
        self.cpu.is_none() && self.memory.is_none()
    }
}

/// buildd's log verbosity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Everything, for debugging.
    Debug,
    /// Normal operation.
    #[default]
    Info,
    /// Only what needs attention.
    Warn,
    /// Only failures.
    Error,
}

/// The buildd controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Buildd {
    /// Number of replicas; more than one needs leader election. `0` scales
    /// buildd down (nothing reconciles BuildProjects; the running daemons
    /// stay) and renders no PodDisruptionBudget.
    #[schemars(range(min = 0, max = 10))]
    pub replicas: u32,
    /// CPU and memory of the buildd container.
    pub resources: Resources,
    /// Whether replicas elect a leader through a Lease in the operator
    /// namespace. When off, buildd runs with `--leader-elect=false` and the
    /// operator Role grants nothing on leases.
    pub leader_election: bool,
    /// Log verbosity.
    pub log_level: LogLevel,
    /// How the replicas spread over nodes and zones.
    pub spread: Spread,
    /// The metrics Service and, on request, a ServiceMonitor.
    pub metrics: Metrics,
    /// Scheduling, pull secrets, pod labels and annotations of buildd's pods.
    /// No `priorityClassName` by default; production sets
    /// `system-cluster-critical` (values/ovh-prod.yaml), so buildd is not
    /// preempted or evicted before the workloads it serves.
    #[serde(flatten)]
    pub pod: PodSettings,
    /// Escape hatches: extra env, args, volumes, mounts and sidecars
    /// (docs/values.md, Escape hatches).
    #[serde(flatten)]
    pub extras: Extras,
}

impl Default for Buildd {
    fn default() -> Self {
        Buildd {
            replicas: 2,
            resources: Resources::new("100m", "128Mi", "256Mi"),
            leader_election: true,
            log_level: LogLevel::Info,
            spread: Spread::default(),
            metrics: Metrics::default(),
            pod: PodSettings::default(),
            extras: Extras::default(),
        }
    }
}

/// The gateway.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Gateway {
    /// Number of replicas. `0` scales the gateway down (no PodDisruptionBudget
    /// is rendered) and needs `buildd.replicas: 0` too: the daemons buildd
    /// starts take connections only from the gateway.
    #[schemars(range(min = 0, max = 20))]
    pub replicas: u32,
    /// CPU and memory of the gateway container.
    pub resources: Resources,
    /// The Service in front of the gateway.
    pub service: GatewayService,
    /// How the replicas spread over nodes and zones.
    pub spread: Spread,
    /// Scheduling, pull secrets, pod labels and annotations of the gateway's
    /// pods. No `priorityClassName` by default; production sets
    /// `system-cluster-critical` (values/ovh-prod.yaml).
    #[serde(flatten)]
    pub pod: PodSettings,
    /// Escape hatches: extra env, args, volumes, mounts and sidecars
    /// (docs/values.md, Escape hatches).
    #[serde(flatten)]
    pub extras: Extras,
}

impl Default for Gateway {
    fn default() -> Self {
        Gateway {
            replicas: 2,
            resources: Resources::new("100m", "64Mi", "128Mi"),
            service: GatewayService::default(),
            spread: Spread::default(),
            pod: PodSettings::default(),
            extras: Extras::default(),
        }
    }
}

/// The gateway's Service.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct GatewayService {
    /// Kubernetes Service type.
    #[serde(rename = "type")]
    pub kind: ServiceType,
    /// The port the Service listens on.
    #[schemars(range(min = 1, max = 65535))]
    pub port: u16,
}

impl Default for GatewayService {
    fn default() -> Self {
        GatewayService {
            kind: ServiceType::ClusterIP,
            port: 8080,
        }
    }
}

/// Kubernetes Service type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ServiceType {
    /// Reachable inside the cluster only.
    #[default]
    ClusterIP,
    /// Also on a port of every node.
    NodePort,
    /// Also through a cloud load balancer.
    LoadBalancer,
}

/// The builds namespace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Builds {
    /// Settings written into the daemons' buildkitd.toml.
    pub buildkitd: Buildkitd,
    /// mTLS between the gateway and the daemons: cert-manager Certificates
    /// (the daemons' in the builds namespace, one per trust level with its
    /// own key, the gateway's client certificate in the operator
    /// namespace; docs/security.md).
    pub tls: Tls,
    /// Default CPU and memory of each build daemon.
    pub daemon_resources: Resources,
    /// The pod template buildd starts every build daemon from: scheduling,
    /// pull secrets, pod labels and annotations, and the escape hatches
    /// (extra env, args, volumes and mounts of the `buildkitd` container,
    /// sidecars). When any is set, it is rendered as the ConfigMap
    /// `<releaseName>-daemon-pod-template` and buildd is started with
    /// `--daemon-pod-template`. The daemons run untrusted builds: they may
    /// not tolerate every taint or the control plane's, nor run at a
    /// `system-*` priority.
    pub daemon: DaemonPod,
    /// A ResourceQuota capping the whole namespace.
    pub resource_quota: ResourceQuota,
    /// A LimitRange giving containers defaults and ceilings.
    pub limit_range: LimitRange,
}

impl Default for Builds {
    fn default() -> Self {
        Builds {
            buildkitd: Buildkitd::default(),
            tls: Tls::default(),
            daemon_resources: Resources::new("500m", "1Gi", "4Gi"),
            daemon: DaemonPod::default(),
            resource_quota: ResourceQuota::default(),
            limit_range: LimitRange::default(),
        }
    }
}

/// The build daemons' pod template: the pod settings every workload takes
/// and the escape hatches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct DaemonPod {
    /// Scheduling, pull secrets, pod labels and annotations of the daemons.
    #[serde(flatten)]
    pub pod: PodSettings,
    /// Escape hatches: extra env, args, volumes and mounts of the
    /// `buildkitd` container, and sidecars (docs/values.md, Escape
    /// hatches). buildd adds them to the daemon pods it makes: the
    /// `buildkitd` entry's args after its own, its env and mounts, the
    /// volumes and the other containers.
    #[serde(flatten)]
    pub extras: Extras,
}

impl DaemonPod {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.pod.is_empty() && self.extras.is_empty()
    }
}

/// buildkitd.toml settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Buildkitd {
    /// Registry settings by registry host (`docker.io`, `ghcr.io`, ...).
    pub registries: BTreeMap<String, Registry>,
    /// Build cache kept by garbage collection, in bytes-style units (`20GB`).
    #[schemars(length(min = 1))]
    pub gc_keep_storage: String,
}

impl Default for Buildkitd {
    fn default() -> Self {
        Buildkitd {
            registries: BTreeMap::new(),
            gc_keep_storage: "20GB".to_owned(),
        }
    }
}

/// How buildkitd reaches one registry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Registry {
    /// Mirrors tried before the registry itself (`host[:port]`).
    pub mirrors: Vec<String>,
    /// Speak plain HTTP to this registry.
    pub http: bool,
    /// Accept an untrusted TLS certificate from this registry.
    pub insecure: bool,
    /// Paths of CA certificates (inside the daemon) that this registry's certificate chains to.
    pub ca: Vec<String>,
}

/// cert-manager issuance of the daemon and client certificates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Tls {
    /// The issuer that signs the certificates.
    pub issuer_ref: IssuerRef,
    /// Certificate lifetime, as a Go duration (`2160h`).
    #[schemars(pattern(r"^([0-9]+(\.[0-9]+)?(h|m|s))+$"))]
    pub duration: String,
    /// How long before expiry cert-manager renews, as a Go duration.
    #[schemars(pattern(r"^([0-9]+(\.[0-9]+)?(h|m|s))+$"))]
    pub renew_before: String,
}

impl Default for Tls {
    fn default() -> Self {
        Tls {
            issuer_ref: IssuerRef::default(),
            duration: "2160h".to_owned(),
            renew_before: "360h".to_owned(),
        }
    }
}

/// A reference to a cert-manager issuer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct IssuerRef {
    /// Name of the issuer; the chart references it and never creates it.
    pub name: DnsLabel,
    /// `ClusterIssuer`, or `Issuer` when one of this name exists in both the
    /// operator and builds namespaces (an Issuer cannot issue across
    /// namespaces): two CA Issuers of a CA nothing else trusts keep the
    /// daemons' trust to these two namespaces (docs/security.md).
    pub kind: IssuerKind,
}

impl Default for IssuerRef {
    fn default() -> Self {
        IssuerRef {
            name: DnsLabel::from_static("buildkit-ca"),
            kind: IssuerKind::ClusterIssuer,
        }
    }
}

/// The kind of a cert-manager issuer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum IssuerKind {
    /// Namespaced: one of this name must exist in the operator and the builds namespace.
    Issuer,
    /// Cluster-wide.
    #[default]
    ClusterIssuer,
}

/// The builds namespace's ResourceQuota.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ResourceQuota {
    /// Whether to render the ResourceQuota.
    pub enabled: bool,
    /// Total CPU and memory the namespace may request.
    pub requests: ResourceList,
    /// Total CPU and memory limits in the namespace.
    pub limits: ResourceList,
    /// Most pods at once.
    #[schemars(range(min = 1))]
    pub pods: u32,
}

impl Default for ResourceQuota {
    fn default() -> Self {
        ResourceQuota {
            enabled: true,
            requests: ResourceList {
                cpu: Some(WrittenQuantity::from_static("16")),
                memory: Some(WrittenQuantity::from_static("32Gi")),
            },
            limits: ResourceList {
                cpu: None,
                memory: Some(WrittenQuantity::from_static("64Gi")),
            },
            pods: 50,
        }
    }
}

/// The builds namespace's LimitRange for containers.
///
/// No CPU default limit and no CPU maximum by default: with a default CPU
/// limit every daemon that sets none is capped at it, and a daemon
/// requesting more CPU than it without a limit of its own is refused; with
/// a CPU maximum and no default, the API server makes that maximum every
/// container's limit. Build daemons are bursty: the ResourceQuota bounds
/// the namespace's CPU requests instead. Memory keeps a default limit and
/// a maximum (memory is not compressible: an unbounded daemon can take its
/// node down). Whatever is set here, `validate` refuses values whose own
/// daemons the LimitRange would refuse or silently cap (a request above the
/// default limit with no limit of its own, a limit above the maximum).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct LimitRange {
    /// Whether to render the LimitRange.
    pub enabled: bool,
    /// Requests of a container that sets none.
    pub default_request: ResourceList,
    /// Limits of a container that sets none. No CPU limit by default (see
    /// above); a CPU limit set here caps every daemon that sets none.
    pub default: ResourceList,
    /// The largest limits a container may set. No CPU maximum by default:
    /// the API server would make it the limit of every container without one.
    pub max: ResourceList,
}

impl Default for LimitRange {
    fn default() -> Self {
        LimitRange {
            enabled: true,
            default_request: ResourceList {
                cpu: Some(WrittenQuantity::from_static("250m")),
                memory: Some(WrittenQuantity::from_static("512Mi")),
            },
            default: ResourceList {
                cpu: None,
                memory: Some(WrittenQuantity::from_static("2Gi")),
            },
            max: ResourceList {
                cpu: None,
                memory: Some(WrittenQuantity::from_static("16Gi")),
            },
        }
    }
}

/// A BuildProject: one source repository allowed to run builds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Project {
    /// Project name, unique among projects.
    pub name: DnsLabel,
    /// Source repository URL, such as `https://github.com/acme/app.git`.
    #[schemars(length(min = 1))]
    pub repository: String,
    /// Whether builds of this project are trusted (its own branches); untrusted
    /// projects (forks) run in Kata VMs when Kata is enabled.
    #[serde(default)]
    pub trusted: bool,
    /// CPU and memory of this project's build daemon; unset fields take
    /// `builds.daemonResources`.
    #[serde(default)]
    pub resources: Resources,
}

/// The Kata node plumbing (ADR-0006: applied with the Kata install).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Kata {
    /// Whether to render the system-namespace bundle.
    pub enabled: bool,
    /// The kata-deploy installer DaemonSet.
    pub deploy: KataDeploy,
    /// The RuntimeClass untrusted builds run with.
    pub runtime_class: RuntimeClass,
    /// The DaemonSet that tunes vCPUs of Cloud Hypervisor guests.
    pub vcpu_tuning: VcpuTuning,
}

/// The kata-deploy DaemonSet, which installs Kata on the nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct KataDeploy {
    /// CPU and memory of the kata-deploy container. kata-deploy copies
    /// Kata onto the node once at start, then waits: a small request and
    /// a memory limit, no CPU limit.
    pub resources: Resources,
    /// Scheduling (which nodes get Kata), pull secrets, pod labels and
    /// annotations. `priorityClassName` is `system-node-critical` by
    /// default (a node whose kata-deploy is evicted loses Kata until it
    /// returns). The pods tolerate, besides these `tolerations`, every
    /// taint the build daemons tolerate (`builds.daemon.tolerations`):
    /// Kata is installed on every node an untrusted daemon may run on.
    #[serde(flatten)]
    pub pod: PodSettings,
}

impl Default for KataDeploy {
    fn default() -> Self {
        KataDeploy {
            resources: Resources::new("25m", "32Mi", "256Mi"),
            pod: PodSettings {
                priority_class_name: Some(NODE_CRITICAL.to_owned()),
                ..PodSettings::default()
            },
        }
    }
}

/// The node label kata-deploy puts on the nodes it installed Kata on: the
/// RuntimeClass schedules Kata pods there, and vcpu-tune runs there.
pub const KATA_NODE_LABEL: (&str, &str) = ("katacontainers.io/kata-runtime", "true");

/// The PriorityClass every cluster has for pods a node cannot work without.
pub const NODE_CRITICAL: &str = "system-node-critical";

/// A Kata RuntimeClass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct RuntimeClass {
    /// Name of the RuntimeClass, and its CRI handler.
    pub name: DnsLabel,
    /// Per-pod overhead the scheduler adds for the VM.
    pub overhead: ResourceList,
}

impl Default for RuntimeClass {
    fn default() -> Self {
        RuntimeClass {
            name: DnsLabel::from_static("kata-clh"),
            overhead: ResourceList {
                cpu: Some(WrittenQuantity::from_static("250m")),
                memory: Some(WrittenQuantity::from_static("130Mi")),
            },
        }
    }
}

/// The vCPU-tuning DaemonSet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct VcpuTuning {
    /// Whether to render it.
    pub enabled: bool,
    /// Default vCPUs of a guest VM.
    #[schemars(range(min = 1, max = 64))]
    pub default_vcpus: u32,
    /// CPU and memory of the vcpu-tune container: a small request and a
    /// memory limit, no CPU limit.
    pub resources: Resources,
    /// Scheduling, pull secrets, pod labels and annotations; the DaemonSet
    /// always selects Kata nodes (`katacontainers.io/kata-runtime: "true"`)
    /// and tolerates what kata-deploy tolerates (its own `tolerations`,
    /// kata-deploy's, the build daemons'). `priorityClassName` is
    /// `system-node-critical` by default.
    #[serde(flatten)]
    pub pod: PodSettings,
}

impl Default for VcpuTuning {
    fn default() -> Self {
        VcpuTuning {
            enabled: true,
            default_vcpus: 2,
            resources: Resources::new("10m", "16Mi", "64Mi"),
            pod: PodSettings {
                priority_class_name: Some(NODE_CRITICAL.to_owned()),
                ..PodSettings::default()
            },
        }
    }
}

/// Kyverno policy names whose namespace exclusions the chart states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Policies {
    /// The security-context policy; the builds and system namespaces need its exemption.
    pub security_context: DnsLabel,
    /// The host-path policy; the system namespace needs its exemption.
    pub disallow_host_path: DnsLabel,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            security_context: DnsLabel::from_static("add-custom-mas-securitycontext"),
            disallow_host_path: DnsLabel::from_static("disallow-host-path"),
        }
    }
}

/// What the GitOps tools that apply the bundles may delete.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct GitOps {
    /// Keep the Namespaces and the BuildProject CRD, and with them the
    /// Secrets and the BuildProjects in the cluster, when the GitOps
    /// application is deleted, renamed or prunes them: Argo CD's
    /// `argocd.argoproj.io/sync-options: Prune=false,Delete=false` and
    /// Flux's `kustomize.toolkit.fluxcd.io/prune: disabled` on them, and
    /// Argo CD's `Delete=false` on the release's BuildProjects (a project
    /// removed from the values is still pruned; in Flux, the
    /// Kustomization's `deletionPolicy: Orphan` keeps them). `false` lets a
    /// deleted application delete them all. Every release in a cluster must
    /// agree: the CRD is shared. See docs/integrations.md, Lifecycle.
    pub protect: bool,
}

impl Default for GitOps {
    fn default() -> Self {
        GitOps { protect: true }
    }
}
