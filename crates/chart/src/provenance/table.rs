//! From a path of the plan (what a template read) to the values it was
//! derived from: an explicit table, one rule per kind of plan field, tested
//! to classify every leaf of a full plan. A value the plan takes unchanged
//! (`plan.values.*`) is its own values path; a derived one (an image
//! reference, a name built from `releaseName`, a label) names each values
//! key it is built from; a constant of the plan names none.

use crate::model::Values;
use crate::plan;
use crate::plan::adr::{self, Exemption};
use kubernetes::location::{KeyPath, Segment};

/// What a plan field was derived from.
#[derive(Clone, Copy, Debug)]
enum To {
    /// The values path after the first segment (`values.buildd.replicas`).
    Values,
    /// These values paths; `$N` is the Nth segment `*` matched, `$*` every
    /// segment after the last `$N` (what `**` matched).
    Paths(&'static [&'static str]),
    /// A label whose key `*` N matched, of the workload whose image is
    /// under `images.<image>` (a workload's version label is its tag).
    Label(usize, Option<&'static str>),
    /// An annotation whose key the last `*` matched: a common annotation,
    /// or (on a namespace, `true`) the exemptions its class needs.
    Annotation(bool),
    /// The policies the class `$1` (a namespace) is exempted from.
    Exemptions,
    /// A pod label whose key the last `*` matched, of the workload whose
    /// image is `images.<image>` and whose pod settings are at the values
    /// path given.
    PodLabel(&'static str, &'static str),
    /// A pod spec field of the pod settings at this values path; a node
    /// selector key they do not set is the chart's (Kata's node label).
    PodSpec(&'static str),
    /// The reference of the image `images.<image>`.
    Image(&'static str),
    /// A project's daemon resources: its own amount, else the default.
    ProjectResources,
    /// A label of buildd's ServiceMonitor whose key the last `*` matched:
    /// buildd's (the chart's win), else `buildd.metrics.serviceMonitor.labels`.
    MonitorLabel,
    /// Written by the plan alone (an ADR fact, a fixed name part).
    Constant,
}

/// The table: a dotted pattern of the plan path (`*` one segment, `**` the
/// rest) and what it came from; the first rule matching wins.
const RULES: &[(&str, To)] = &[
    ("values.**", To::Values),
    ("release", To::Paths(&["releaseName"])),
    ("namespaces.create", To::Paths(&["namespaces.create"])),
    ("namespaces.*.name", To::Paths(&["namespaces.$1"])),
    ("namespaces.*.labels.*", To::Label(2, None)),
    ("namespaces.*.annotations.*", To::Annotation(true)),
    ("namespaces.*.exemptions.**", To::Exemptions),
    ("namespaces.*.*", To::Constant),
    ("meta.crd.annotations.*", To::Annotation(false)),
    ("meta.crd.**", To::Constant),
    ("meta.*.name", To::Paths(&["releaseName"])),
    ("meta.*.labels.*", To::Label(2, None)),
    ("meta.*.selector.*", To::Label(2, None)),
    ("meta.*.annotations.*", To::Annotation(false)),
    ("buildd.labels.*", To::Label(1, Some("buildd"))),
    ("gateway.labels.*", To::Label(1, Some("gateway"))),
    ("kataDeploy.labels.*", To::Label(1, Some("kataDeploy"))),
    ("vcpuTune.labels.*", To::Label(1, Some("vcpuTune"))),
    // Pod settings: the pod labels (a chart label of the same key wins,
    // and the values refuse one), annotations and pod spec fields of each
    // workload's own key; vcpu-tune's Kata node label is the chart's.
    ("buildd.podLabels.*", To::PodLabel("buildd", "buildd")),
    ("gateway.podLabels.*", To::PodLabel("gateway", "gateway")),
    (
        "kataDeploy.podLabels.*",
        To::PodLabel("kataDeploy", "kata.deploy"),
    ),
    (
        "vcpuTune.podLabels.*",
        To::PodLabel("vcpuTune", "kata.vcpuTuning"),
    ),
    (
        "buildd.podAnnotations.*",
        To::Paths(&["buildd.podAnnotations.$1"]),
    ),
    (
        "gateway.podAnnotations.*",
        To::Paths(&["gateway.podAnnotations.$1"]),
    ),
    (
        "kataDeploy.podAnnotations.*",
        To::Paths(&["kata.deploy.podAnnotations.$1"]),
    ),
    (
        "vcpuTune.podAnnotations.*",
        To::Paths(&["kata.vcpuTuning.podAnnotations.$1"]),
    ),
    // The spread: from the spread settings and the replicas (when the pod
    // settings state constraints, those are rendered instead: a plan of
    // values that set them takes this rule too, an approximation).
    (
        "buildd.podSpec.topologySpreadConstraints.**",
        To::Paths(&["buildd.spread", "buildd.replicas"]),
    ),
    (
        "gateway.podSpec.topologySpreadConstraints.**",
        To::Paths(&["gateway.spread", "gateway.replicas"]),
    ),
    ("monitorLabels.*", To::MonitorLabel),
    ("buildd.podSpec.**", To::PodSpec("buildd")),
    ("gateway.podSpec.**", To::PodSpec("gateway")),
    ("kataDeploy.podSpec.**", To::PodSpec("kata.deploy")),
    ("vcpuTune.podSpec.**", To::PodSpec("kata.vcpuTuning")),
    ("daemonPodTemplate", To::Paths(&["builds.daemon"])),
    ("buildd.image", To::Image("buildd")),
    ("gateway.image", To::Image("gateway")),
    ("kataDeploy.image", To::Image("kataDeploy")),
    ("vcpuTune.image", To::Image("vcpuTune")),
    (
        "buildd.pullPolicy",
        To::Paths(&["images.buildd.pullPolicy"]),
    ),
    (
        "gateway.pullPolicy",
        To::Paths(&["images.gateway.pullPolicy"]),
    ),
    (
        "kataDeploy.pullPolicy",
        To::Paths(&["images.kataDeploy.pullPolicy"]),
    ),
    (
        "vcpuTune.pullPolicy",
        To::Paths(&["images.vcpuTune.pullPolicy"]),
    ),
    // The gateway's client certificate Secret: `<releaseName>-gateway-client-tls`.
    (
        "*.pod.volumes.*.secret.secretName",
        To::Paths(&["releaseName"]),
    ),
    (
        "*.pod.volumes.*.configMap.name",
        To::Paths(&["releaseName"]),
    ),
    ("*.pod.**", To::Constant),
    ("projects.*.project.**", To::Paths(&["projects.$1.$*"])),
    (
        "projects.*.runtimeClassName",
        To::Paths(&[
            "kata.runtimeClass.name",
            "kata.enabled",
            "projects.$1.trusted",
        ]),
    ),
    ("projects.*.resources.*.*", To::ProjectResources),
    ("daemonImage", To::Image("buildkitd")),
    ("buildkitdToml", To::Paths(&["builds.buildkitd"])),
    (
        "names.lease",
        To::Paths(&["releaseName", "buildd.leaderElection"]),
    ),
    ("names.*", To::Paths(&["releaseName"])),
    // One server certificate per trust level: `<releaseName>-daemon-tls-<level>`
    // for the daemons under `<releaseName>-daemons-<level>`.
    ("daemonCertificates.*.level", To::Constant),
    ("daemonCertificates.*.secret", To::Paths(&["releaseName"])),
    ("daemonCertificates.*.service", To::Paths(&["releaseName"])),
    (
        "daemonCertificates.*.dnsNames.*",
        To::Paths(&["releaseName", "namespaces.builds"]),
    ),
    ("rbac.*.name", To::Paths(&["releaseName"])),
    (
        "rbac.operator.namespace.name",
        To::Paths(&["namespaces.operator"]),
    ),
    (
        "rbac.builds.namespace.name",
        To::Paths(&["namespaces.builds"]),
    ),
    (
        "rbac.system.namespace.name",
        To::Paths(&["namespaces.system"]),
    ),
    // The Lease the operator Role names: `<releaseName>-buildd-leader`.
    (
        "rbac.operator.rules.*.resourceNames.*",
        To::Paths(&["releaseName"]),
    ),
    // The Secrets and ConfigMaps the builds Role names:
    // `<releaseName>-daemon-tls-<level>`, `<releaseName>-buildkitd-config`,
    // `<releaseName>-daemon-pod-template` (only when `builds.daemon` sets
    // something).
    (
        "rbac.builds.rules.*.resourceNames.*",
        To::Paths(&["releaseName"]),
    ),
    ("rbac.*.rules.**", To::Constant),
    ("rbac.tenantReader.aggregateTo.*", To::Constant),
    ("rbac.builddSubject.name", To::Paths(&["releaseName"])),
    (
        "rbac.builddSubject.namespace",
        To::Paths(&["namespaces.operator"]),
    ),
    ("rbac.kataDeploySubject.name", To::Paths(&["releaseName"])),
    (
        "rbac.kataDeploySubject.namespace",
        To::Paths(&["namespaces.system"]),
    ),
    ("rbac.*.kind", To::Constant),
    ("crd.**", To::Constant),
    ("exemptions.**", To::Constant),
    // The NetworkPolicies' peers and rules, each from its network value.
    ("network.cilium", To::Paths(&["network.cni"])),
    ("network.daemonPort", To::Constant),
    ("network.metricsPort", To::Constant),
    ("network.dns.**", To::Paths(&["network.dns"])),
    ("network.dnsCilium.**", To::Paths(&["network.dns"])),
    (
        "network.apiServer.**",
        To::Paths(&["network.apiServer.cidrs"]),
    ),
    (
        "network.apiServerPorts.**",
        To::Paths(&["network.apiServer.ports"]),
    ),
    (
        "network.gatewayClients.**",
        To::Paths(&["network.gatewayClients"]),
    ),
    (
        "network.metricsFrom.**",
        To::Paths(&["network.metricsFrom"]),
    ),
    (
        "network.buildEgressAll",
        To::Paths(&["network.buildEgress.allowAll"]),
    ),
    (
        "network.buildEgress.**",
        To::Paths(&["network.buildEgress.cidrs"]),
    ),
    (
        "network.buildFqdns.**",
        To::Paths(&["network.buildEgress.fqdns"]),
    ),
];

/// The values paths the plan field at `path` was derived from; empty for
/// a constant, `None` for a path the table does not know.
pub fn values_paths(path: &KeyPath, values: &Values) -> Option<Vec<KeyPath>> {
    RULES.iter().find_map(|(pattern, to)| {
        let captured = matches(pattern, &path.0)?;
        Some(derive(*to, path, &captured, values))
    })
}

/// The segments `*` and `**` matched, in order (`**` as one entry per
/// segment it took), when `pattern` matches `path`.
fn matches(pattern: &str, path: &[Segment]) -> Option<Vec<Segment>> {
    let mut captured = Vec::new();
    let mut rest = path;
    for step in pattern.split('.') {
        match step {
            "**" => {
                captured.extend(rest.iter().cloned());
                return Some(captured);
            }
            "*" => {
                let (first, tail) = rest.split_first()?;
                captured.push(first.clone());
                rest = tail;
            }
            key => {
                let (Segment::Key(first), tail) = rest.split_first()? else {
                    return None;
                };
                if first != key {
                    return None;
                }
                rest = tail;
            }
        }
    }
    rest.is_empty().then_some(captured)
}

fn derive(to: To, path: &KeyPath, captured: &[Segment], values: &Values) -> Vec<KeyPath> {
    let key = |n: usize| match captured.get(n - 1) {
        Some(Segment::Key(k)) => k.as_str(),
        _ => "",
    };
    match to {
        To::Values => vec![KeyPath(path.0[1..].to_vec())],
        To::Paths(targets) => targets
            .iter()
            .map(|target| substitute(target, captured))
            .collect(),
        To::Label(n, image) => label(key(n), image, values),
        To::Annotation(namespace) => {
            let annotation = captured.last().map_or("", |s| match s {
                Segment::Key(k) => k.as_str(),
                Segment::Index(_) => "",
            });
            if namespace && annotation == adr::EXEMPTIONS_ANNOTATION {
                exemptions(key(1))
            } else if let Some(paths) = gitops_annotation(annotation, values) {
                paths
            } else {
                vec![KeyPath::root().key("commonAnnotations").key(annotation)]
            }
        }
        To::PodLabel(image, settings) => {
            let key = key(1);
            if pod_settings(settings, values).pod_labels.contains_key(key) {
                vec![KeyPath::dotted(settings).key("podLabels").key(key)]
            } else {
                label(key, Some(image), values)
            }
        }
        To::PodSpec(settings) => {
            let node_label = match captured {
                [Segment::Key(field), Segment::Key(key), ..] if field == "nodeSelector" => {
                    Some(key)
                }
                _ => None,
            };
            let selector = &pod_settings(settings, values).node_selector;
            if node_label.is_some_and(|key| !selector.contains_key(key)) {
                Vec::new()
            } else {
                let mut at = KeyPath::dotted(settings);
                at.0.extend(captured.iter().cloned());
                vec![at]
            }
        }
        To::Exemptions => exemptions(key(1)),
        To::Image(image) => {
            let mut paths = vec![
                KeyPath::dotted(&format!("images.{image}.repository")),
                KeyPath::dotted(&format!("images.{image}.tag")),
            ];
            if image_has_digest(image, values) {
                paths.push(KeyPath::dotted(&format!("images.{image}.digest")));
            }
            paths
        }
        To::ProjectResources => project_resources(captured, values),
        To::MonitorLabel => {
            let key = key(1);
            let chart = label(key, None, values);
            let own = &values.buildd.metrics.service_monitor.labels;
            if chart.is_empty() && own.contains_key(key) {
                vec![KeyPath::dotted("buildd.metrics.serviceMonitor.labels").key(key)]
            } else {
                chart
            }
        }
        To::Constant => Vec::new(),
    }
}

/// `target` with each `$N` replaced by the Nth captured segment, and
/// `$*` by every captured segment after the last `$N`.
fn substitute(target: &str, captured: &[Segment]) -> KeyPath {
    let mut segments = Vec::new();
    let mut used = 0;
    for part in target.split('.') {
        if part == "$*" {
            segments.extend(captured.iter().skip(used).cloned());
        } else if let Some(n) = part.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
            segments.extend(captured.get(n - 1).cloned());
            used = used.max(n);
        } else {
            segments.push(Segment::Key(part.to_owned()));
        }
    }
    KeyPath(segments)
}

/// The pod settings at the values path `at` (a workload's key).
fn pod_settings<'v>(at: &str, values: &'v Values) -> &'v crate::model::pod::PodSettings {
    match at {
        "buildd" => &values.buildd.pod,
        "gateway" => &values.gateway.pod,
        "kata.deploy" => &values.kata.deploy.pod,
        _ => &values.kata.vcpu_tuning.pod,
    }
}

fn label(key: &str, image: Option<&str>, values: &Values) -> Vec<KeyPath> {
    let planned = [
        "app.kubernetes.io/name",
        plan::COMPONENT_LABEL,
        "app.kubernetes.io/part-of",
        plan::MANAGED_BY.0,
        adr::TRUST_CLASS_LABEL,
    ];
    match key {
        "app.kubernetes.io/instance" => vec![KeyPath::dotted("releaseName")],
        plan::VERSION_LABEL => match image {
            Some(image) => vec![KeyPath::dotted(&format!("images.{image}.tag"))],
            None => Vec::new(),
        },
        _ if planned.contains(&key)
            || key.starts_with("pod-security.kubernetes.io/")
            || key.starts_with(plan::rbac::AGGREGATE_TO) =>
        {
            Vec::new()
        }
        _ if values.common_labels.contains_key(key) => {
            vec![KeyPath::root().key("commonLabels").key(key)]
        }
        _ => Vec::new(),
    }
}

/// The values a GitOps annotation (`plan::gitops`) was derived from:
/// `gitops.protect` for the protections, the common annotation of the same
/// key where one is set (sync options merged, the wave before the common
/// one); `None` for any other annotation.
fn gitops_annotation(key: &str, values: &Values) -> Option<Vec<KeyPath>> {
    let mut paths = match key {
        plan::gitops::ARGOCD_SYNC_OPTIONS | plan::gitops::FLUX_PRUNE => {
            vec![KeyPath::dotted("gitops.protect")]
        }
        plan::gitops::ARGOCD_SYNC_WAVE => Vec::new(),
        _ => return None,
    };
    if values.common_annotations.contains_key(key) {
        paths.push(KeyPath::root().key("commonAnnotations").key(key));
    }
    Some(paths)
}

/// The policies a namespace of `class` is exempted from (ADR-0006).
fn exemptions(class: &str) -> Vec<KeyPath> {
    let facts = match class {
        "operator" => &adr::OPERATOR,
        "builds" => &adr::BUILDS,
        _ => &adr::SYSTEM,
    };
    facts
        .exemptions
        .iter()
        .map(|e| match e {
            Exemption::SecurityContext => KeyPath::dotted("policies.securityContext"),
            Exemption::HostPath => KeyPath::dotted("policies.disallowHostPath"),
        })
        .collect()
}

fn image_has_digest(image: &str, values: &Values) -> bool {
    let images = &values.images;
    let image = match image {
        "buildd" => &images.buildd,
        "gateway" => &images.gateway,
        "kataDeploy" => &images.kata_deploy,
        "vcpuTune" => &images.vcpu_tune,
        _ => &images.buildkitd,
    };
    image.digest.is_some()
}

/// `projects[i].resources.<requests|limits>.<cpu|memory>`: the project's
/// own amount when it sets one, else `builds.daemonResources`'.
fn project_resources(captured: &[Segment], values: &Values) -> Vec<KeyPath> {
    let [Segment::Index(i), Segment::Key(list), Segment::Key(amount)] = captured else {
        return Vec::new();
    };
    let own = values.projects.get(*i).is_some_and(|p| {
        let list = if list == "limits" {
            &p.resources.limits
        } else {
            &p.resources.requests
        };
        match amount.as_str() {
            "cpu" => list.cpu.is_some(),
            _ => list.memory.is_some(),
        }
    });
    let base = if own {
        KeyPath::root().key("projects").index(*i).key("resources")
    } else {
        KeyPath::dotted("builds.daemonResources")
    };
    vec![base.key(list.as_str()).key(amount.as_str())]
}
