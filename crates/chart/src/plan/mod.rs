//! The deployment plan: what gets deployed where, decided in types.
//!
//! The stage between [`Values`] and the templates. Values decide how many
//! and what names; the plan's types decide what is allowed where:
//! namespaces carry their trust class ([`trust`]), RBAC grants are checked
//! against it ([`rbac`]), and so are pod security and volumes ([`security`]).
//! Templates receive the plan serialized and only lay it out as YAML.

pub mod adr;
pub mod gitops;
pub mod network;
pub mod rbac;
pub mod rules;
pub mod security;
pub mod trust;
pub mod verbs;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{DaemonPod, Image, KATA_NODE_LABEL, Project, Resources, Values};

use crate::model::pod::PodSettings;

use crate::model::availability::{Spread, WhenUnsatisfiable};
use rbac::RbacPlan;
use security::{PodPlan, PodSecurity, Volume};
use trust::{Builds, Namespace, Operator, System, TrustClass};

/// The `app.kubernetes.io/part-of` of every object.
pub const PART_OF: &str = "buildkit-operator";

/// The label naming an object's component (`buildd`, `daemons`, …): the
/// key of [`adr::COMPONENT_CLASSES`].
pub const COMPONENT_LABEL: &str = "app.kubernetes.io/component";

/// The program that manages the chart's objects: the value of their
/// [`MANAGED_BY`] label, and the field manager of `diff`'s dry runs (a
/// label value, checked as it compiles).
pub const MANAGER: kubernetes::cluster::Manager = kubernetes::cluster::Manager::new("chartgen");

/// The label naming the tool that manages an object, and chartgen's value:
/// an object carrying both states what chartgen always writes.
pub const MANAGED_BY: (&str, &str) = (kubernetes::cluster::MANAGED_BY, MANAGER.name());

/// The label stating a workload's version: the tag of the image its main
/// container runs. Only a workload (Deployment, DaemonSet) and its pod
/// template carry it; every other object follows no one image, so it
/// carries none, and bumping one image changes only the workloads that run
/// it ([`versioned_images`]).
pub const VERSION_LABEL: &str = "app.kubernetes.io/version";

use adr::{EXEMPTIONS_ANNOTATION, Exemption, TRUST_CLASS_LABEL};

/// The uid the control plane runs as.
const CONTROL_PLANE_UID: u32 = 65532;

/// Everything the templates render, derived from validated values.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan<'v> {
    /// The release name, prefix of object names.
    pub release: &'v str,
    /// The validated values, for settings the plan passes through unchanged.
    pub values: &'v Values,
    /// The three namespaces.
    pub namespaces: Namespaces,
    /// Names, labels and annotations per component.
    pub meta: BTreeMap<&'static str, Meta>,
    /// Every RBAC grant.
    pub rbac: RbacPlan,
    /// The buildd controller.
    pub buildd: Workload<Operator>,
    /// The gateway.
    pub gateway: Workload<Operator>,
    /// kata-deploy, when Kata is enabled.
    pub kata_deploy: Option<Workload<System>>,
    /// The vCPU tuner, when Kata and tuning are enabled.
    pub vcpu_tune: Option<Workload<System>>,
    /// The BuildProjects.
    pub projects: Vec<ProjectPlan<'v>>,
    /// The image buildd runs the daemons with.
    pub daemon_image: String,
    /// The buildkitd.toml the daemons read.
    pub buildkitd_toml: String,
    /// The daemons' pod template (YAML) when `builds.daemon` sets anything.
    pub daemon_pod_template: Option<String>,
    /// The policy exemptions each namespace needs (ADR-0006, T4).
    pub exemptions: Vec<PolicyExemption>,
    /// Names of objects that other objects refer to.
    pub names: Names,
    /// The custom resources' API group and version (ADR-1058).
    pub crd: CrdPlan,
    /// The NetworkPolicies' peers and rules.
    pub network: network::NetworkPlan,
    /// The daemons' server certificates, one per trust level: trusted
    /// first, then untrusted.
    pub daemon_certificates: [DaemonCertificate; 2],
    /// The labels of buildd's ServiceMonitor: buildd's and
    /// `buildd.metrics.serviceMonitor.labels` (the chart's win).
    pub monitor_labels: BTreeMap<String, String>,
}

/// The server certificate of one trust level's daemons: its own key,
/// valid only for the hostnames of that level's daemons.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonCertificate {
    /// `trusted` or `untrusted`.
    pub level: &'static str,
    /// The Certificate's name and the Secret it writes.
    pub secret: String,
    /// The headless Service that governs this level's daemons (buildd's
    /// `--daemon-service` or `--untrusted-daemon-service`): a daemon's
    /// hostname is `<pod>.<service>.<builds namespace>.svc`.
    pub service: String,
    /// The names the certificate is valid for: that Service's daemons, and
    /// nothing of the other level.
    pub dns_names: Vec<String>,
}

impl DaemonCertificate {
    fn new(level: &'static str, secret: String, service: String, builds: &str) -> Self {
        let dns_names = vec![
            format!("*.{service}.{builds}.svc"),
            format!("*.{service}.{builds}.svc.cluster.local"),
        ];
        DaemonCertificate {
            level,
            secret,
            service,
            dns_names,
        }
    }
}

/// The API of the chart's custom resources, as the CRD and the
/// BuildProjects write it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdPlan {
    /// The API group.
    pub group: &'static str,
    /// The served and stored version.
    pub version: &'static str,
    /// `group/version`, a BuildProject's `apiVersion`.
    pub api_version: String,
}

/// Names of objects that other objects refer to, so both ends agree.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    /// buildd's leader-election Lease, in the operator namespace; none when
    /// `buildd.leaderElection` is off (no Lease grant, no
    /// `--leader-election-id`).
    pub lease: Option<String>,
    /// The ConfigMap holding buildkitd.toml, in the builds namespace.
    pub buildkitd_config: String,
    /// The ConfigMap holding the daemons' pod template, in the builds
    /// namespace (buildd's `--daemon-pod-template`).
    pub daemon_pod_template: String,
    /// The trusted daemons' server certificate Secret, in the builds
    /// namespace (buildd's `--daemon-tls-secret`).
    pub daemon_tls: String,
    /// The untrusted daemons' server certificate Secret, in the builds
    /// namespace (buildd's `--untrusted-daemon-tls-secret`): no key is
    /// shared between the trust levels.
    pub untrusted_daemon_tls: String,
    /// The gateway's client certificate Secret, in the operator namespace.
    pub gateway_client_tls: String,
    /// buildd's metrics Service (and ServiceMonitor), in the operator namespace.
    pub buildd_metrics: String,
}

/// The namespaces, each with its class, its Pod Security level and the
/// policy exemptions it carries.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Namespaces {
    /// The control plane's.
    pub operator: NamespacePlan<Operator>,
    /// The build daemons'.
    pub builds: NamespacePlan<Builds>,
    /// The Kata plumbing's.
    pub system: NamespacePlan<System>,
    /// Whether the chart renders the operator and builds Namespace objects.
    pub create: bool,
}

/// One namespace as the templates see it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespacePlan<C: TrustClass> {
    /// Its name.
    pub name: String,
    /// Its labels: the common ones, the trust class and Pod Security Admission.
    pub labels: BTreeMap<String, String>,
    /// Its annotations: the common ones and the exemptions it needs.
    pub annotations: BTreeMap<String, String>,
    /// Its trust class.
    pub class: &'static str,
    /// The Pod Security Admission level it enforces.
    pub pod_security: &'static str,
    /// The Kyverno policies that must exclude it.
    pub exemptions: Vec<String>,
    #[serde(skip)]
    namespace: Namespace<C>,
}

impl<C: TrustClass> NamespacePlan<C> {
    fn new(name: &str, values: &Values) -> Self {
        let exemptions: Vec<String> = C::EXEMPTIONS
            .iter()
            .map(|e| e.policy(values).to_owned())
            .collect();
        let mut labels = values.common_labels.clone();
        labels.insert("app.kubernetes.io/part-of".to_owned(), PART_OF.to_owned());
        labels.insert(MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned());
        labels.insert(TRUST_CLASS_LABEL.to_owned(), C::NAME.to_owned());
        for mode in adr::POD_SECURITY_MODES {
            labels.insert(adr::pod_security_label(mode), C::POD_SECURITY.to_owned());
        }
        let mut annotations = values.common_annotations.clone();
        if !exemptions.is_empty() {
            let stated: Vec<String> = C::EXEMPTIONS
                .iter()
                .map(|e| format!("{}={}", e.key(), e.policy(values)))
                .collect();
            annotations.insert(EXEMPTIONS_ANNOTATION.to_owned(), stated.join(","));
        }
        gitops::annotate(
            &mut annotations,
            &values.common_annotations,
            gitops::Role::Foundation,
            values.gitops.protect,
        );
        NamespacePlan {
            name: name.to_owned(),
            labels,
            annotations,
            class: C::NAME,
            pod_security: C::POD_SECURITY,
            exemptions,
            namespace: Namespace::new(name),
        }
    }
}

/// A Kyverno policy and the namespaces its exclusions must list.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyExemption {
    /// The key of the policy in the platform's Kyverno values
    /// (`securityContextPolicy`, `disallowHostPath`; ADR-0006).
    pub values_key: &'static str,
    /// The policy's name.
    pub policy: String,
    /// Namespaces to exclude, in class order; never empty.
    pub namespaces: Vec<String>,
    /// Which of the platform's Kyverno values files the entry belongs in.
    pub file: &'static str,
}

/// Name, namespace, labels and annotations of one component's objects.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The object name.
    pub name: String,
    /// Every label: the common ones and the recommended `app.kubernetes.io/*`
    /// but the version, which only a workload carries ([`Workload::labels`]).
    pub labels: BTreeMap<String, String>,
    /// The selector labels: name and instance only, as they are immutable.
    pub selector: BTreeMap<String, String>,
    /// The common annotations.
    pub annotations: BTreeMap<String, String>,
}

/// A workload of class `C`: its image and its pod, whose security and
/// volumes the class decides.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload<C: TrustClass> {
    /// The labels of the workload and of its pod template: its component's,
    /// and [`VERSION_LABEL`] with its image's tag.
    pub labels: BTreeMap<String, String>,
    /// The full image reference.
    pub image: String,
    /// The pull policy.
    pub pull_policy: crate::model::PullPolicy,
    /// The pod.
    pub pod: PodPlan<C>,
    /// The labels of its pod template: [`Workload::labels`] and the
    /// workload's `podLabels`.
    pub pod_labels: BTreeMap<String, String>,
    /// The annotations of its pod template: the workload's `podAnnotations`.
    pub pod_annotations: BTreeMap<String, String>,
    /// The pod spec fields the workload's pod settings set (scheduling,
    /// pull secrets), by their pod spec name.
    pub pod_spec: serde_json::Map<String, serde_json::Value>,
}

/// One BuildProject as rendered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPlan<'v> {
    /// The project.
    pub project: &'v Project,
    /// The RuntimeClass its builds run with: Kata for untrusted projects
    /// when Kata is enabled.
    pub runtime_class_name: Option<&'v str>,
    /// Its daemon's resources: the project's, else `builds.daemonResources`.
    pub resources: Resources,
}

impl<'v> Plan<'v> {
    /// Plans the chart for `values`.
    pub fn new(values: &'v Values) -> Self {
        let release = values.release_name.as_str();
        let ns = &values.namespaces;
        let namespaces = Namespaces {
            operator: NamespacePlan::new(ns.operator.as_str(), values),
            builds: NamespacePlan::new(ns.builds.as_str(), values),
            system: NamespacePlan::new(ns.system.as_str(), values),
            create: ns.create,
        };
        let mut meta = metas(values);
        let lease_name = values
            .buildd
            .leader_election
            .then(|| format!("{release}-buildd-leader"));
        let names = Names {
            lease: lease_name,
            buildkitd_config: format!("{release}-buildkitd-config"),
            daemon_pod_template: format!("{release}-daemon-pod-template"),
            daemon_tls: format!("{release}-daemon-tls-trusted"),
            untrusted_daemon_tls: format!("{release}-daemon-tls-untrusted"),
            gateway_client_tls: format!("{release}-gateway-client-tls"),
            buildd_metrics: format!("{release}-buildd-metrics"),
        };
        let daemon_pod_template = daemon_pod_template(&values.builds.daemon);
        let mut config_maps = vec![names.buildkitd_config.as_str()];
        if daemon_pod_template.is_some() {
            config_maps.push(names.daemon_pod_template.as_str());
        }
        let rbac = RbacPlan::new(
            release,
            &namespaces.operator.namespace,
            &namespaces.builds.namespace,
            &namespaces.system.namespace,
            names.lease.as_deref(),
            &rbac::DaemonReads {
                secrets: &[&names.daemon_tls, &names.untrusted_daemon_tls],
                config_maps: &config_maps,
            },
        );
        if let Some(reader) = meta.get_mut("tenantReader") {
            for role in rbac.tenant_reader.aggregate_to() {
                reader
                    .labels
                    .insert(format!("{}{role}", rbac::AGGREGATE_TO), "true".to_owned());
            }
        }
        let images = &values.images;
        let kata = values.kata.enabled;
        let builds = ns.builds.as_str();
        let daemon_certificates = [
            DaemonCertificate::new(
                "trusted",
                names.daemon_tls.clone(),
                format!("{release}-daemons-trusted"),
                builds,
            ),
            DaemonCertificate::new(
                "untrusted",
                names.untrusted_daemon_tls.clone(),
                format!("{release}-daemons-untrusted"),
                builds,
            ),
        ];
        let mut buildd = Workload::new(
            &meta["buildd"],
            &images.buildd,
            PodPlan::new(PodSecurity::hardened(CONTROL_PLANE_UID))
                .with_volume(Volume::empty_dir("tmp")),
            &values.buildd.pod,
            &[],
        );
        let mut gateway = Workload::new(
            &meta["gateway"],
            &images.gateway,
            PodPlan::new(PodSecurity::hardened(CONTROL_PLANE_UID))
                .with_volume(Volume::empty_dir("tmp"))
                .with_volume(Volume::secret("client-tls", &names.gateway_client_tls)),
            &values.gateway.pod,
            &[],
        );
        for (workload, replicas, spread, settings, component) in [
            (
                &mut buildd,
                values.buildd.replicas,
                &values.buildd.spread,
                &values.buildd.pod,
                "buildd",
            ),
            (
                &mut gateway,
                values.gateway.replicas,
                &values.gateway.spread,
                &values.gateway.pod,
                "gateway",
            ),
        ] {
            if let Some(constraints) =
                spread_constraints(replicas, spread, settings, &meta[component].selector)
            {
                workload
                    .pod_spec
                    .insert("topologySpreadConstraints".to_owned(), constraints);
            }
        }
        let mut monitor_labels = values.buildd.metrics.service_monitor.labels.clone();
        monitor_labels.extend(meta["buildd"].labels.clone());
        Plan {
            daemon_certificates,
            monitor_labels,
            release,
            values,
            rbac,
            buildd,
            gateway,
            kata_deploy: kata.then(|| kata_deploy(values, &meta["kataDeploy"])),
            vcpu_tune: (kata && values.kata.vcpu_tuning.enabled)
                .then(|| vcpu_tune(values, &meta["vcpuTune"])),
            projects: values
                .projects
                .iter()
                .map(|project| ProjectPlan {
                    project,
                    runtime_class_name: (kata && !project.trusted)
                        .then(|| values.kata.runtime_class.name.as_str()),
                    resources: project
                        .resources
                        .layered_over(&values.builds.daemon_resources),
                })
                .collect(),
            daemon_image: images.buildkitd.reference(),
            buildkitd_toml: buildkitd_toml(values),
            daemon_pod_template,
            exemptions: exemptions(&namespaces, values),
            namespaces,
            names,
            meta,
            network: network::NetworkPlan::new(values),
            crd: CrdPlan {
                group: adr::CRD_GROUP,
                version: adr::CRD_VERSION,
                api_version: format!("{}/{}", adr::CRD_GROUP, adr::CRD_VERSION),
            },
        }
    }
}

/// Each component's metadata, by its key in `plan.meta`.
fn metas(values: &Values) -> BTreeMap<&'static str, Meta> {
    let release = values.release_name.as_str();
    // (key in plan.meta, app.kubernetes.io/name and component, object name)
    let mut meta: BTreeMap<&'static str, Meta> = [
        (
            "tenantReader",
            "tenant-reader",
            format!("{release}-buildprojects-reader"),
        ),
        ("buildd", "buildd", format!("{release}-buildd")),
        ("gateway", "gateway", format!("{release}-gateway")),
        ("daemons", "daemons", format!("{release}-daemons")),
        (
            "kataDeploy",
            "kata-deploy",
            format!("{release}-kata-deploy"),
        ),
        (
            "vcpuTune",
            "kata-clh-vcpu-tune",
            format!("{release}-kata-clh-vcpu-tune"),
        ),
    ]
    .into_iter()
    .map(|(key, component, name)| (key, meta(values, component, name)))
    .collect();
    let mut crd = shared_meta(format!("buildprojects.{}", adr::CRD_GROUP));
    gitops::annotate(
        &mut crd.annotations,
        &values.common_annotations,
        gitops::Role::Foundation,
        values.gitops.protect,
    );
    meta.insert("crd", crd);
    // The BuildProjects: the daemons' component, kept when the GitOps
    // application is deleted.
    let mut projects = self::meta(values, "daemons", format!("{release}-daemons"));
    gitops::annotate(
        &mut projects.annotations,
        &values.common_annotations,
        gitops::Role::Project,
        values.gitops.protect,
    );
    meta.insert("projects", projects);
    meta
}

impl<C: TrustClass> Workload<C> {
    /// The workload of component `meta` running `image` in `pod`, with the
    /// pod `settings` of its values; `fixed` node labels join its node
    /// selector.
    fn new(
        meta: &Meta,
        image: &Image,
        pod: PodPlan<C>,
        settings: &PodSettings,
        fixed: &[(&str, &str)],
    ) -> Self {
        let mut labels = meta.labels.clone();
        labels.insert(VERSION_LABEL.to_owned(), image.tag.clone());
        let mut pod_labels = settings.pod_labels.clone();
        pod_labels.extend(labels.clone());
        Workload {
            labels,
            image: image.reference(),
            pull_policy: image.pull_policy,
            pod,
            pod_labels,
            pod_annotations: settings.pod_annotations.clone(),
            pod_spec: settings.spec(fixed),
        }
    }
}

/// The daemons' pod template, as the YAML buildd reads from the ConfigMap
/// `names.daemonPodTemplate`: the pod labels and annotations under
/// `metadata`, the pod spec fields under `spec`; `None` when
/// `builds.daemon` sets nothing.
///
/// With escape hatches, `spec.containers` holds the `buildkitd` entry
/// (its extra args, env and mounts) when one is set, then the sidecars as
/// written, and `spec.volumes` the extra volumes; the template then states
/// the rootless security contexts buildd runs the daemons with
/// ([`PodSecurity::rootless`]: the pod's, and the `buildkitd` entry's), so
/// `check` judges it as the pod buildd makes, sidecars included (T3).
fn daemon_pod_template(daemon: &DaemonPod) -> Option<String> {
    use crate::model::extras::DAEMON;
    if daemon.is_empty() {
        return None;
    }
    let settings = &daemon.pod;
    let extras = &daemon.extras;
    let mut metadata = serde_json::Map::new();
    for (key, map) in [
        ("labels", &settings.pod_labels),
        ("annotations", &settings.pod_annotations),
    ] {
        if !map.is_empty() {
            metadata.insert(key.to_owned(), serde_json::json!(map));
        }
    }
    let mut template = serde_json::Map::new();
    if !metadata.is_empty() {
        template.insert("metadata".to_owned(), metadata.into());
    }
    let mut spec = settings.spec(&[]);
    let mut containers = Vec::new();
    let own = [
        ("args", serde_json::json!(extras.extra_args)),
        ("env", serde_json::json!(extras.extra_env)),
        (
            "volumeMounts",
            serde_json::json!(extras.extra_volume_mounts),
        ),
    ];
    let security = serde_json::to_value(PodSecurity::<Builds>::rootless())
        .expect("a security context serializes");
    if own
        .iter()
        .any(|(_, list)| list.as_array().is_some_and(|l| !l.is_empty()))
    {
        let mut buildkitd = serde_json::Map::new();
        buildkitd.insert("name".to_owned(), DAEMON.container.into());
        for (key, list) in own {
            if list.as_array().is_some_and(|l| !l.is_empty()) {
                buildkitd.insert(key.to_owned(), list);
            }
        }
        buildkitd.insert("securityContext".to_owned(), security["container"].clone());
        containers.push(serde_json::Value::Object(buildkitd));
    }
    containers.extend(extras.sidecars.iter().map(|c| serde_json::json!(c)));
    if !containers.is_empty() {
        spec.insert("securityContext".to_owned(), security["pod"].clone());
        spec.insert("containers".to_owned(), containers.into());
    }
    if !extras.extra_volumes.is_empty() {
        spec.insert(
            "volumes".to_owned(),
            serde_json::json!(extras.extra_volumes),
        );
    }
    if !spec.is_empty() {
        template.insert("spec".to_owned(), spec.into());
    }
    let template =
        kubernetes::yaml::Node::from_json(&template.into(), &kubernetes::location::Origin::Default);
    Some(kubernetes::emit::block(&template))
}

/// The images whose tag becomes a workload's [`VERSION_LABEL`] in the
/// render of `values`: the key under `images` and the workload it labels.
/// The rules check each of these tags is a label value.
pub fn versioned_images(values: &Values) -> Vec<(&'static str, &Image, &'static str)> {
    let images = &values.images;
    let kata = values.kata.enabled;
    let mut versioned = vec![
        ("buildd", &images.buildd, "the buildd Deployment"),
        ("gateway", &images.gateway, "the gateway Deployment"),
    ];
    if kata {
        versioned.push((
            "kataDeploy",
            &images.kata_deploy,
            "the kata-deploy DaemonSet",
        ));
    }
    if kata && values.kata.vcpu_tuning.enabled {
        versioned.push(("vcpuTune", &images.vcpu_tune, "the vCPU-tuning DaemonSet"));
    }
    versioned
}

/// The host paths kata-deploy mounts, as current kata-deploy releases
/// need them in place of the host's `/`: `(volume, host path, hostPath
/// type)`. Where each is mounted, and read-only or not, is in
/// templates/kata/node-plumbing.yaml. Written: the container runtimes'
/// configuration, Kata's install folder, systemd units, the host's lock
/// folder; read: `/boot` (the kernel's features), the machine id, the
/// host's tool folders; the systemd private socket restarts the runtime.
pub const KATA_DEPLOY_HOST_PATHS: [(&str, &str, Option<&str>); 14] = [
    ("crio-conf", "/etc/crio/", None),
    ("containerd-conf", "/etc/containerd/", None),
    ("kata-install", "/opt/kata", Some("DirectoryOrCreate")),
    (
        "systemd-system",
        "/etc/systemd/system",
        Some("DirectoryOrCreate"),
    ),
    ("systemd-private", "/run/systemd/private", Some("Socket")),
    ("boot", "/boot", None),
    ("host-machine-id", "/etc/machine-id", Some("File")),
    ("host-run-lock", "/run/lock", Some("DirectoryOrCreate")),
    ("host-usr-bin", "/usr/bin", None),
    ("host-usr-sbin", "/usr/sbin", None),
    ("host-usr-local-bin", "/usr/local/bin", None),
    ("host-usr-local-sbin", "/usr/local/sbin", None),
    ("host-bin", "/bin", None),
    ("host-sbin", "/sbin", None),
];

/// kata-deploy: root without privileges or host PID, the host paths it
/// needs ([`KATA_DEPLOY_HOST_PATHS`]) and a scratch `/tmp` under a
/// read-only root filesystem. Its pods tolerate what the build daemons
/// tolerate besides their own tolerations: Kata goes wherever an
/// untrusted daemon may run.
fn kata_deploy(values: &Values, meta: &Meta) -> Workload<System> {
    let mut pod = PodPlan::new(PodSecurity::host_installer()).with_volume(Volume::empty_dir("tmp"));
    for (name, path, kind) in KATA_DEPLOY_HOST_PATHS {
        pod = pod.with_volume(match kind {
            Some(kind) => Volume::host_path_of(name, path, kind),
            None => Volume::host_path(name, path),
        });
    }
    let settings = tolerating(
        &values.kata.deploy.pod,
        &[&values.builds.daemon.pod.tolerations],
    );
    Workload::new(meta, &values.images.kata_deploy, pod, &settings, &[])
}

/// The vCPU tuner: root with no capability, Kata's default configuration
/// mounted; on Kata nodes, tolerating what kata-deploy tolerates.
fn vcpu_tune(values: &Values, meta: &Meta) -> Workload<System> {
    let settings = tolerating(
        &values.kata.vcpu_tuning.pod,
        &[
            &values.kata.deploy.pod.tolerations,
            &values.builds.daemon.pod.tolerations,
        ],
    );
    Workload::new(
        meta,
        &values.images.vcpu_tune,
        PodPlan::new(PodSecurity::root())
            .with_volume(Volume::empty_dir("tmp"))
            .with_volume(Volume::host_path(
                "kata-config",
                "/opt/kata/share/defaults/kata-containers",
            )),
        &settings,
        &[KATA_NODE_LABEL],
    )
}

/// `settings` with the tolerations of `more` added, each once.
fn tolerating(
    settings: &PodSettings,
    more: &[&Vec<k8s_openapi::api::core::v1::Toleration>],
) -> PodSettings {
    let mut settings = settings.clone();
    for toleration in more.iter().flat_map(|list| list.iter()) {
        if !settings.tolerations.contains(toleration) {
            settings.tolerations.push(toleration.clone());
        }
    }
    settings
}

/// The topology spread of a control-plane workload with `replicas` and
/// its `spread` and pod `settings`: over nodes, then zones, `maxSkew` 1,
/// the workload's own pods of one revision (`pod-template-hash`); none
/// when spreading is off, one replica or none runs, or the settings state
/// constraints of their own.
pub fn spread_constraints(
    replicas: u32,
    spread: &Spread,
    settings: &PodSettings,
    selector: &BTreeMap<String, String>,
) -> Option<serde_json::Value> {
    use crate::model::availability::{NODE_TOPOLOGY_KEY, ZONE_TOPOLOGY_KEY};
    if !spread.enabled || replicas < 2 || !settings.topology_spread_constraints.is_empty() {
        return None;
    }
    let constraint = |key: &str, when: WhenUnsatisfiable| {
        serde_json::json!({
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": selector},
            "matchLabelKeys": ["pod-template-hash"],
        })
    };
    Some(serde_json::json!([
        constraint(NODE_TOPOLOGY_KEY, spread.nodes),
        constraint(ZONE_TOPOLOGY_KEY, spread.zones),
    ]))
}

fn meta(values: &Values, component: &str, name: String) -> Meta {
    let release = values.release_name.as_str();
    let mut selector = BTreeMap::new();
    selector.insert("app.kubernetes.io/name".to_owned(), component.to_owned());
    selector.insert("app.kubernetes.io/instance".to_owned(), release.to_owned());
    let mut labels = values.common_labels.clone();
    labels.extend(selector.clone());
    for (key, value) in [
        (COMPONENT_LABEL, component),
        ("app.kubernetes.io/part-of", PART_OF),
        MANAGED_BY,
    ] {
        labels.insert(key.to_owned(), value.to_owned());
    }
    Meta {
        name,
        labels,
        selector,
        annotations: values.common_annotations.clone(),
    }
}

/// The metadata of an object every instance of the operator in a cluster
/// shares (the CRD): nothing of one release or environment, no instance,
/// version or common labels, so two releases (two GitOps applications)
/// render it identically and never fight over it (but for the GitOps
/// annotations, [`gitops`], which every release must agree on).
fn shared_meta(name: String) -> Meta {
    let labels: BTreeMap<String, String> = [
        ("app.kubernetes.io/name", PART_OF),
        ("app.kubernetes.io/part-of", PART_OF),
        MANAGED_BY,
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    Meta {
        name,
        labels,
        selector: BTreeMap::new(),
        annotations: BTreeMap::new(),
    }
}

fn exemptions(namespaces: &Namespaces, values: &Values) -> Vec<PolicyExemption> {
    let mut classes: Vec<(&str, &[String])> = vec![
        (&namespaces.operator.name, &namespaces.operator.exemptions),
        (&namespaces.builds.name, &namespaces.builds.exemptions),
    ];
    if values.kata.enabled {
        classes.push((&namespaces.system.name, &namespaces.system.exemptions));
    }
    // An empty list is left out: Kyverno values lists replace rather than
    // merge, so pasting an empty one would drop the platform's exclusions.
    Exemption::ALL
        .into_iter()
        .map(|exemption| {
            let policy = exemption.policy(values).to_owned();
            PolicyExemption {
                values_key: exemption.values_key(),
                namespaces: classes
                    .iter()
                    .filter(|(_, needs)| needs.contains(&policy))
                    .map(|(name, _)| (*name).to_owned())
                    .collect(),
                policy,
                file: exemption.platform_file(),
            }
        })
        .filter(|e| !e.namespaces.is_empty())
        .collect()
}

/// buildkitd.toml for the rootless daemons, written by the `toml` crate from
/// typed tables: whatever a value holds (quotes, newlines, control
/// characters), it stays one string and cannot add a key or a table.
fn buildkitd_toml(values: &Values) -> String {
    #[derive(serde::Serialize)]
    struct Config<'a> {
        worker: Worker<'a>,
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        registry: BTreeMap<&'a str, Registry<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Worker<'a> {
        oci: Oci<'a>,
    }
    #[derive(serde::Serialize)]
    struct Oci<'a> {
        enabled: bool,
        rootless: bool,
        gc: bool,
        gckeepstorage: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Registry<'a> {
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        mirrors: &'a [String],
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        http: bool,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        insecure: bool,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        ca: &'a [String],
    }
    let config = &values.builds.buildkitd;
    let file = Config {
        worker: Worker {
            oci: Oci {
                enabled: true,
                rootless: true,
                gc: true,
                gckeepstorage: &config.gc_keep_storage,
            },
        },
        registry: config
            .registries
            .iter()
            .map(|(host, r)| {
                let registry = Registry {
                    mirrors: &r.mirrors,
                    http: r.http,
                    insecure: r.insecure,
                    ca: &r.ca,
                };
                (host.as_str(), registry)
            })
            .collect(),
    };
    let body = toml::to_string(&file).expect("strings, booleans and tables always serialize");
    format!("# Written by chartgen from builds.buildkitd.\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exemptions_follow_the_trust_classes() {
        let mut values = Values::default();
        values.kata.enabled = true;
        let plan = Plan::new(&values);
        let stated: Vec<(&str, Vec<&str>)> = plan
            .exemptions
            .iter()
            .map(|e| {
                (
                    e.policy.as_str(),
                    e.namespaces.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            stated,
            [
                (
                    "add-custom-mas-securitycontext",
                    vec!["buildkit-builds", "buildkit-system"]
                ),
                ("disallow-host-path", vec!["buildkit-system"]),
            ]
        );
    }

    #[test]
    fn every_classed_component_is_a_planned_component() {
        let values = Values::default();
        let plan = Plan::new(&values);
        let planned: Vec<&str> = plan
            .meta
            .values()
            .filter_map(|m| m.labels.get(COMPONENT_LABEL))
            .map(String::as_str)
            .collect();
        for (component, _) in adr::COMPONENT_CLASSES {
            assert!(planned.contains(&component), "{component}");
        }
    }

    #[test]
    fn only_workloads_carry_a_version_and_it_is_their_own_images_tag() {
        let mut values = Values::default();
        values.kata.enabled = true;
        values.kata.vcpu_tuning.enabled = true;
        values.images.buildd.tag = "1.0.0".into();
        values.images.gateway.tag = "2.0.0".into();
        values.images.kata_deploy.tag = "3.0.0".into();
        values.images.vcpu_tune.tag = "4.0.0".into();
        let plan = Plan::new(&values);
        for meta in plan.meta.values() {
            assert_eq!(meta.labels.get(VERSION_LABEL), None, "{}", meta.name);
        }
        let workloads = [
            &plan.buildd.labels,
            &plan.gateway.labels,
            &plan.kata_deploy.as_ref().unwrap().labels,
            &plan.vcpu_tune.as_ref().unwrap().labels,
        ];
        let versions: Vec<&str> = workloads
            .iter()
            .map(|labels| labels[VERSION_LABEL].as_str())
            .collect();
        assert_eq!(versions, ["1.0.0", "2.0.0", "3.0.0", "4.0.0"]);
        let versioned: Vec<&str> = versioned_images(&values)
            .into_iter()
            .map(|(_, image, _)| image.tag.as_str())
            .collect();
        assert_eq!(versioned, versions, "the rules check every label value");
        let mut without = plan.buildd.labels.clone();
        without.remove(VERSION_LABEL);
        assert_eq!(without, plan.meta["buildd"].labels);
    }

    #[test]
    fn only_rendered_workloads_have_their_tag_as_a_label() {
        let mut values = Values::default();
        let keys = |values: &Values| -> Vec<&str> {
            versioned_images(values)
                .into_iter()
                .map(|(key, ..)| key)
                .collect()
        };
        assert_eq!(keys(&values), ["buildd", "gateway"]);
        values.kata.enabled = true;
        values.kata.vcpu_tuning.enabled = false;
        assert_eq!(keys(&values), ["buildd", "gateway", "kataDeploy"]);
    }

    proptest::proptest! {
        /// Whatever the values hold, buildkitd.toml parses back with exactly
        /// those values and no other key or table.
        #[test]
        fn buildkitd_toml_keeps_every_value_a_string(
            host in "\\PC*|[\\x00-\\x7f\\u{85}\\u{2028}]{0,12}",
            mirror in "\\PC*|[\\x00-\\x7f]{0,12}",
            keep in "[\\x00-\\x7f]{0,8}",
        ) {
            let mut values = Values::default();
            values.builds.buildkitd.gc_keep_storage = keep.clone();
            values.builds.buildkitd.registries.insert(
                host.clone(),
                crate::model::Registry {
                    mirrors: vec![mirror.clone()],
                    ca: vec![mirror.clone(), host.clone()],
                    insecure: true,
                    ..Default::default()
                },
            );
            let text = buildkitd_toml(&values);
            let parsed: toml::Table = toml::from_str(&text).unwrap();
            let strings = |items: &[&String]| -> toml::Value {
                items.iter().map(|s| toml::Value::from(s.as_str())).collect::<Vec<_>>().into()
            };
            let mut oci = toml::Table::new();
            for flag in ["enabled", "rootless", "gc"] {
                oci.insert(flag.into(), true.into());
            }
            oci.insert("gckeepstorage".into(), keep.as_str().into());
            let mut registry = toml::Table::new();
            registry.insert("mirrors".into(), strings(&[&mirror]));
            registry.insert("insecure".into(), true.into());
            registry.insert("ca".into(), strings(&[&mirror, &host]));
            let mut expected = toml::Table::new();
            expected.insert("worker".into(), toml::Table::from_iter([("oci".to_owned(), oci.into())]).into());
            expected.insert("registry".into(), toml::Table::from_iter([(host.clone(), registry.into())]).into());
            proptest::prop_assert_eq!(parsed, expected);
        }
    }
}
