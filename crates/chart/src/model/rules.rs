//! Rules across fields that a JSON Schema cannot state.
//!
//! Architecture invariant: these run on typed [`Values`] after the schema
//! passed, and report key paths, never positions; the values stage turns the
//! paths back into `file:line:col` (or `(default)` for a built-in value).

use std::collections::{BTreeMap, HashMap};

use super::{ResourceList, Resources, Values};
use kubernetes::cidr::Cidr;
use kubernetes::duration::{self, DurationError};
use kubernetes::location::KeyPath;
use kubernetes::names;

use super::violation::RESERVED_PREFIXES;
use super::violation::RuleBreach;

/// Namespaces that no class of this chart may use: `default` holds whatever
/// lands without a namespace; `kube-system` is the platform's most trusted
/// namespace (ADR-0006 rejects putting Kata there).
pub const RESERVED_NAMESPACES: [&str; 4] =
    ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Checks every rule and returns all violations, in a stable order. The
/// rules that need the plan are `plan::rules`'.
pub fn check(values: &Values) -> Vec<RuleBreach> {
    let mut violations = Vec::new();
    check_release_name(values, &mut violations);
    check_images(values, &mut violations);
    check_namespaces(values, &mut violations);
    check_metadata(values, &mut violations);
    check_buildd(values, &mut violations);
    check_replicas(values, &mut violations);
    check_network(values, &mut violations);
    check_policies(values, &mut violations);
    check_projects(values, &mut violations);
    check_amounts(values, &mut violations);
    check_pods(values, &mut violations);
    super::extra_objects::check(values, &mut violations);
    check_extras(values, &mut violations);
    violations
}

/// Every workload's escape hatches (`extras::check`).
fn check_extras(values: &Values, violations: &mut Vec<RuleBreach>) {
    use super::extras::{self, BUILDD, DAEMON, GATEWAY};
    for (at, hatches, owned) in [
        ("buildd", &values.buildd.extras, &BUILDD),
        ("gateway", &values.gateway.extras, &GATEWAY),
        ("builds.daemon", &values.builds.daemon.extras, &DAEMON),
    ] {
        extras::check(hatches, &KeyPath::dotted(at), owned, violations);
    }
}

/// Every workload's pod settings (`pod::check`); the build daemons'
/// are untrusted, and vcpu-tune's node selector keeps Kata's node label.
fn check_pods(values: &Values, violations: &mut Vec<RuleBreach>) {
    use super::pod::{self, Trust};
    let kata_label = [super::KATA_NODE_LABEL.0];
    let pods = [
        ("buildd", &values.buildd.pod, Trust::Platform, &[][..]),
        ("gateway", &values.gateway.pod, Trust::Platform, &[]),
        (
            "builds.daemon",
            &values.builds.daemon.pod,
            Trust::Untrusted,
            &[],
        ),
        ("kata.deploy", &values.kata.deploy.pod, Trust::Platform, &[]),
        (
            "kata.vcpuTuning",
            &values.kata.vcpu_tuning.pod,
            Trust::Platform,
            &kata_label,
        ),
    ];
    for (at, settings, trust, fixed) in pods {
        let at = KeyPath::dotted(at);
        pod::check(settings, &at, trust, fixed, violations);
        // The chart puts the common labels on the pods too: a pod label of
        // the same key would be overruled without a word.
        for (key, value) in &settings.pod_labels {
            if let Some(common) = values.common_labels.get(key) {
                violations.push(RuleBreach {
                    path: at.key("podLabels").key(key.clone()),
                    also: vec![KeyPath::dotted("commonLabels").key(key.clone())],
                    message: format!(
                        "`{key}` is a common label too ({common:?} on every object), which the pods would keep over {value:?}"
                    ),
                    hint: Some(
                        "set the label in one place: commonLabels for every object, podLabels for these pods only".to_owned(),
                    ),
                    at_key: false,
                });
            }
        }
    }
}

/// Requests within limits, LimitRange defaults within its maximum, and
/// certificates renewed before they expire: the API server or cert-manager
/// would refuse the rendered objects otherwise.
fn check_amounts(values: &Values, violations: &mut Vec<RuleBreach>) {
    // Each container's resources, and whether it is a build daemon's
    // (`builds.*` and every project's), which the LimitRange admits.
    let containers: Vec<(At, Resources, bool)> = [
        ("buildd.resources", &values.buildd.resources, false),
        ("gateway.resources", &values.gateway.resources, false),
        (
            "builds.daemonResources",
            &values.builds.daemon_resources,
            true,
        ),
        (
            "kata.deploy.resources",
            &values.kata.deploy.resources,
            false,
        ),
        (
            "kata.vcpuTuning.resources",
            &values.kata.vcpu_tuning.resources,
            false,
        ),
    ]
    .into_iter()
    .map(|(path, resources, daemon)| (At::Dotted(path), resources.clone(), daemon))
    .collect();
    // Projects mostly share their resources (the daemons' defaults): a
    // project whose resources are those of the project before it, which
    // broke no rule, breaks none either (each rule reads the resources, the
    // daemons' defaults and the LimitRange alone), so a run of them is
    // judged once.
    let projects = |judge: &mut dyn FnMut(&At, &Resources) -> bool| {
        let mut clean: Option<&Resources> = None;
        for (i, project) in values.projects.iter().enumerate() {
            if clean == Some(&project.resources) {
                continue;
            }
            let layered = (project.resources).layered_over(&values.builds.daemon_resources);
            clean = judge(&At::ProjectResources(i), &layered).then_some(&project.resources);
        }
    };
    let requests_within_limits =
        |violations: &mut Vec<RuleBreach>, path: &At, resources: &Resources| {
            at_most(
                violations,
                path,
                ("requests", &resources.requests),
                ("limits", &resources.limits),
            );
        };
    for (path, resources, _) in &containers {
        requests_within_limits(violations, path, resources);
    }
    projects(&mut |path, resources| {
        let before = violations.len();
        requests_within_limits(violations, path, resources);
        violations.len() == before
    });
    let range = &values.builds.limit_range;
    if range.enabled {
        for (path, resources, _) in containers.iter().filter(|(.., daemon)| *daemon) {
            limit_range_admits(violations, path, resources, range);
        }
        projects(&mut |path, resources| {
            let before = violations.len();
            limit_range_admits(violations, path, resources, range);
            violations.len() == before
        });
    }
    let path = At::Dotted("builds.limitRange");
    at_most(
        violations,
        &path,
        ("defaultRequest", &range.default_request),
        ("default", &range.default),
    );
    at_most(
        violations,
        &path,
        ("default", &range.default),
        ("max", &range.max),
    );
    at_most(
        violations,
        &path,
        ("defaultRequest", &range.default_request),
        ("max", &range.max),
    );
    let tls = &values.builds.tls;
    for (key, text) in [
        ("duration", &tls.duration),
        ("renewBefore", &tls.renew_before),
    ] {
        if let Err(DurationError::TooLong) = duration::parse(text) {
            violations.push(RuleBreach {
                path: KeyPath::dotted("builds.tls").key(key),
                also: Vec::new(),
                message: format!(
                    "{key} {text} is longer than a Go duration holds (2562047h47m16.854775807s); cert-manager refuses the Certificate"
                ),
                hint: Some("certificate lifetimes are hours to a few years, such as 2160h".to_owned()),
                at_key: false,
            });
        }
    }
    if let (Ok(duration), Ok(renew)) = (
        duration::parse(&tls.duration),
        duration::parse(&tls.renew_before),
    ) && renew >= duration
    {
        violations.push(RuleBreach {
            path: KeyPath::dotted("builds.tls.renewBefore"),
            also: vec![KeyPath::dotted("builds.tls.duration")],
            message: format!(
                "renewBefore {} is not shorter than duration {}",
                tls.renew_before, tls.duration
            ),
            hint: Some("cert-manager renews renewBefore ahead of expiry; it must be less than the lifetime".to_owned()),
            at_key: false,
        });
    }
}

/// What the builds namespace's LimitRange admission does to a daemon
/// container with `resources`, for CPU and memory alike: a limit it does
/// not set becomes `default` (else `max`), and the container is refused
/// when its request is above that limit or its limit above `max` (each
/// rounded up to a thousandth, as the LimitRanger compares them). Values
/// whose own daemons the LimitRange would refuse are refused here, where
/// the key can be named, not at the first build.
fn limit_range_admits(
    violations: &mut Vec<RuleBreach>,
    path: &At,
    resources: &Resources,
    range: &crate::model::LimitRange,
) {
    let range_path = At::Dotted("builds.limitRange");
    for (resource, request, limit, default, max) in [
        (
            "cpu",
            &resources.requests.cpu,
            &resources.limits.cpu,
            &range.default.cpu,
            &range.max.cpu,
        ),
        (
            "memory",
            &resources.requests.memory,
            &resources.limits.memory,
            &range.default.memory,
            &range.max.memory,
        ),
    ] {
        let mut report = |at: KeyPath, also: KeyPath, message: String, hint: &str| {
            violations.push(RuleBreach {
                path: at,
                also: vec![also],
                message,
                hint: Some(hint.to_owned()),
                at_key: false,
            });
        };
        // Held to `max` as the LimitRanger holds it: in thousandths. The
        // request is read as the limit: one above it is refused anyway
        // (`at_most`), and one at most it changes no precision.
        if let (Some(limit), Some(max)) = (limit, max)
            && let limit_value = limit.value()
            && let at = kubernetes::quantity::LimitRangePrecision::of(
                Some(limit_value),
                Some(limit_value),
                max.value(),
            )
            && at.limit > at.bound
        {
            report(
                path.path().key("limits").key(resource),
                range_path.path().key("max").key(resource),
                format!(
                    "limits.{resource} {limit} is above the builds LimitRange's max.{resource} {max}; the API server refuses the daemon"
                ),
                "lower the limit, or raise builds.limitRange.max",
            );
            continue;
        }
        let (Some(request), None) = (request, limit) else {
            continue;
        };
        let Some((given, name)) = default
            .as_ref()
            .map(|d| (d, "default"))
            .or_else(|| max.as_ref().map(|m| (m, "max")))
        else {
            continue;
        };
        if request.value() > given.value() {
            report(
                path.path().key("requests").key(resource),
                range_path.path().key(name).key(resource),
                format!(
                    "requests.{resource} {request} is above the limit {given} the builds LimitRange gives a daemon without limits.{resource} ({name}.{resource}); the API server refuses the daemon"
                ),
                "set a limit of your own at or above the request, or raise or drop the LimitRange's default",
            );
        }
    }
}

/// Reports every amount of `low` that exceeds the same amount of `high`.
fn at_most(
    violations: &mut Vec<RuleBreach>,
    path: &At,
    (low_name, low): (&str, &ResourceList),
    (high_name, high): (&str, &ResourceList),
) {
    for (resource, small, large) in [
        ("cpu", &low.cpu, &high.cpu),
        ("memory", &low.memory, &high.memory),
    ] {
        if let (Some(small), Some(large)) = (small, large)
            && small.value() > large.value()
        {
            violations.push(RuleBreach {
                path: path.path().key(low_name).key(resource),
                also: vec![path.path().key(high_name).key(resource)],
                message: format!(
                    "{low_name}.{resource} {small} is more than {high_name}.{resource} {large}"
                ),
                hint: Some(format!(
                    "the API server refuses {low_name} above {high_name}"
                )),
                at_key: false,
            });
        }
    }
}

/// Where a container's resources are written: built into a [`KeyPath`]
/// only for a breach (a path per project costs more than its check).
enum At {
    /// A dotted path, such as `buildd.resources`.
    Dotted(&'static str),
    /// `projects[i].resources`.
    ProjectResources(usize),
}

impl At {
    fn path(&self) -> KeyPath {
        match self {
            At::Dotted(path) => KeyPath::dotted(path),
            At::ProjectResources(i) => KeyPath::root().key("projects").index(*i).key("resources"),
        }
    }
}

fn check_metadata(values: &Values, violations: &mut Vec<RuleBreach>) {
    for (field, map, labels) in [
        ("commonLabels", &values.common_labels, true),
        ("commonAnnotations", &values.common_annotations, false),
        (
            "buildd.metrics.serviceMonitor.labels",
            &values.buildd.metrics.service_monitor.labels,
            true,
        ),
    ] {
        for (key, value) in map {
            let path = KeyPath::dotted(field).key(key.clone());
            let mut report = |message: String, hint: &str, at_key: bool| {
                violations.push(RuleBreach {
                    path: path.clone(),
                    also: Vec::new(),
                    message,
                    hint: Some(hint.to_owned()),
                    at_key,
                });
            };
            if let Some(prefix) = RESERVED_PREFIXES.iter().find(|p| key.starts_with(*p)) {
                report(
                    format!("`{key}` is under `{prefix}`, which the chart sets itself"),
                    "choose a key under your own prefix, such as example.com/team",
                    true,
                );
            } else if let Err(why) = names::qualified_name(key) {
                report(
                    format!(
                        "`{key}` is not a valid {} key: {why}",
                        if labels { "label" } else { "annotation" }
                    ),
                    "keys are an optional DNS prefix and `/`, then at most 63 letters, digits, `-`, `_` or `.`",
                    true,
                );
            }
            if labels && let Err(why) = names::label_value(value) {
                report(
                    format!("label value {value:?} is not valid: {why}"),
                    "label values are empty or at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit",
                    false,
                );
            }
        }
    }
}

fn check_buildd(values: &Values, violations: &mut Vec<RuleBreach>) {
    let metrics = &values.buildd.metrics;
    if metrics.service_monitor.enabled && !metrics.service {
        violations.push(RuleBreach {
            path: KeyPath::dotted("buildd.metrics.serviceMonitor.enabled"),
            also: vec![KeyPath::dotted("buildd.metrics.service")],
            message: "the ServiceMonitor selects buildd's metrics Service, which buildd.metrics.service: false leaves out".to_owned(),
            hint: Some("set buildd.metrics.service: true, or leave the ServiceMonitor off".to_owned()),
            at_key: false,
        });
    }
    let buildd = &values.buildd;
    if buildd.replicas > 1 && !buildd.leader_election {
        violations.push(RuleBreach {
            path: KeyPath::dotted("buildd.leaderElection"),
            also: vec![KeyPath::dotted("buildd.replicas")],
            message: format!(
                "{} buildd replicas without leader election would all reconcile at once",
                buildd.replicas
            ),
            hint: Some("set buildd.leaderElection to true, or buildd.replicas to 1".to_owned()),
            at_key: false,
        });
    }
}

/// Scaling down: buildd alone, or buildd and the gateway together. The
/// gateway alone cannot go: the daemons buildd starts admit connections
/// only from the gateway (their NetworkPolicy), so they would hold the
/// builds quota and serve no build.
fn check_replicas(values: &Values, violations: &mut Vec<RuleBreach>) {
    let (buildd, gateway) = (values.buildd.replicas, values.gateway.replicas);
    if gateway == 0 && buildd > 0 {
        violations.push(RuleBreach {
            path: KeyPath::dotted("gateway.replicas"),
            also: vec![KeyPath::dotted("buildd.replicas")],
            message: format!(
                "no gateway replica while buildd runs {buildd}: the build daemons buildd starts admit connections only from the gateway, so no build could reach them"
            ),
            hint: Some(
                "scale buildd down too (buildd.replicas: 0), or keep at least one gateway replica"
                    .to_owned(),
            ),
            at_key: false,
        });
    }
}

/// The network values: CIDRs that are CIDRs with exceptions strictly
/// inside, peers that name their namespaces (never every namespace), named
/// destinations only for a CNI that has them, and `allowAll` alone.
fn check_network(values: &Values, violations: &mut Vec<RuleBreach>) {
    use super::network::Cni;
    let network = &values.network;
    let mut of_labels = Vec::new();
    let mut push = |path: KeyPath, message: String, hint: &str| {
        violations.push(RuleBreach {
            path,
            also: Vec::new(),
            message,
            hint: Some(hint.to_owned()),
            at_key: false,
        });
    };
    const CIDR_HINT: &str =
        "write an address and a prefix length, such as 10.0.0.0/8 or 2001:db8::/32";
    for (i, cidr) in network.api_server.cidrs.iter().enumerate() {
        if let Err(why) = Cidr::parse(cidr) {
            push(
                KeyPath::dotted("network.apiServer.cidrs").index(i),
                format!("`{cidr}` is not a CIDR: {why}"),
                CIDR_HINT,
            );
        }
    }
    if network.api_server.ports.is_empty() {
        push(
            KeyPath::dotted("network.apiServer.ports"),
            "no port for the API server: buildd could not reach it".to_owned(),
            "give the API server's ports, such as [443, 6443]",
        );
    }
    if network.dns.pod_labels.is_empty() {
        push(
            KeyPath::dotted("network.dns.podLabels"),
            "no labels for the DNS pods: every pod of their namespace would be admitted on port 53"
                .to_owned(),
            "give the DNS pods' labels, such as k8s-app: kube-dns",
        );
    }
    let egress = &network.build_egress;
    for (i, rule) in egress.fqdns.iter().enumerate() {
        if rule.ports.is_empty() {
            push(
                KeyPath::dotted("network.buildEgress.fqdns")
                    .index(i)
                    .key("ports"),
                format!("no port for `{}`", rule.name),
                "give the ports builds use there, such as [443]",
            );
        }
    }
    for (i, rule) in egress.cidrs.iter().enumerate() {
        let at = KeyPath::dotted("network.buildEgress.cidrs").index(i);
        let outer = match Cidr::parse(&rule.cidr) {
            Ok(outer) => Some(outer),
            Err(why) => {
                push(
                    at.clone().key("cidr"),
                    format!("`{}` is not a CIDR: {why}", rule.cidr),
                    CIDR_HINT,
                );
                None
            }
        };
        for (j, except) in rule.except.iter().enumerate() {
            let path = at.clone().key("except").index(j);
            match (Cidr::parse(except), outer) {
                (Err(why), _) => push(path, format!("`{except}` is not a CIDR: {why}"), CIDR_HINT),
                (Ok(inner), Some(outer)) if !strictly_within(inner, outer) => push(
                    path,
                    format!(
                        "`{except}` is not strictly inside `{}`: the API server refuses the NetworkPolicy",
                        rule.cidr
                    ),
                    "an exception is a smaller range of the same address family inside the cidr",
                ),
                _ => {}
            }
        }
    }
    if egress.allow_all && !(egress.cidrs.is_empty() && egress.fqdns.is_empty()) {
        push(
            KeyPath::dotted("network.buildEgress.allowAll"),
            "network.buildEgress.allowAll admits every destination, yet cidrs or fqdns are set too"
                .to_owned(),
            "set allowAll to false to keep the list, or empty cidrs and fqdns (`cidrs: []`)",
        );
    }
    if network.cni != Cni::Cilium && !egress.fqdns.is_empty() {
        push(
            KeyPath::dotted("network.buildEgress.fqdns"),
            "named destinations need a CNI that enforces them; a Kubernetes NetworkPolicy names addresses only".to_owned(),
            "set network.cni: cilium on a Cilium cluster, or give the hosts' address ranges in network.buildEgress.cidrs",
        );
    }
    for (field, peers) in [
        ("network.gatewayClients", &network.gateway_clients),
        ("network.metricsFrom", &network.metrics_from),
    ] {
        for (i, peer) in peers.iter().enumerate() {
            let at = KeyPath::dotted(field).index(i);
            if peer.namespace.is_none() && peer.namespace_labels.is_empty() {
                push(
                    at.clone(),
                    "the peer names no namespace: by labels alone it would select pods in every namespace of the cluster (or only the policy's own)".to_owned(),
                    "give `namespace` or `namespaceLabels`",
                );
            }
            labels(
                &at.clone().key("namespaceLabels"),
                &peer.namespace_labels,
                &mut of_labels,
            );
            labels(&at.key("podLabels"), &peer.pod_labels, &mut of_labels);
        }
    }
    labels(
        &KeyPath::dotted("network.dns.podLabels"),
        &network.dns.pod_labels,
        &mut of_labels,
    );
    violations.extend(of_labels);
}

/// Label keys and values of a selector, as the API server checks them.
fn labels(at: &KeyPath, map: &BTreeMap<String, String>, violations: &mut Vec<RuleBreach>) {
    for (key, value) in map {
        let path = at.clone().key(key.clone());
        if let Err(why) = names::qualified_name(key) {
            violations.push(RuleBreach {
                path: path.clone(),
                also: Vec::new(),
                message: format!("`{key}` is not a valid label key: {why}"),
                hint: Some("keys are an optional DNS prefix and `/`, then at most 63 letters, digits, `-`, `_` or `.`".to_owned()),
                at_key: true,
            });
        }
        if let Err(why) = names::label_value(value) {
            violations.push(RuleBreach {
                path,
                also: Vec::new(),
                message: format!("label value {value:?} is not valid: {why}"),
                hint: Some("label values are empty or at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit".to_owned()),
                at_key: false,
            });
        }
    }
}

/// Whether `inner` is a smaller range of `outer`'s family inside it.
fn strictly_within(inner: Cidr, outer: Cidr) -> bool {
    outer.contains(&inner) && inner.prefix_len() > outer.prefix_len()
}

fn check_policies(values: &Values, violations: &mut Vec<RuleBreach>) {
    let policies = &values.policies;
    if policies.security_context == policies.disallow_host_path {
        violations.push(RuleBreach {
            path: KeyPath::dotted("policies.disallowHostPath"),
            also: vec![KeyPath::dotted("policies.securityContext")],
            message: format!(
                "policies.securityContext and policies.disallowHostPath are both `{}`",
                policies.security_context
            ),
            hint: Some(
                "name the two Kyverno policies whose exclusions differ (ADR-0006)".to_owned(),
            ),
            at_key: false,
        });
    }
}

/// Longest release name: object names add suffixes such as
/// `-operator-events` and must stay within 63 characters.
pub const MAX_RELEASE_NAME: usize = 40;

fn check_release_name(values: &Values, violations: &mut Vec<RuleBreach>) {
    let name = values.release_name.as_str();
    if let Err(why) = names::dns1035_label(name) {
        violations.push(RuleBreach {
            path: KeyPath::dotted("releaseName"),
            also: Vec::new(),
            message: format!("`{name}` cannot begin a Service name: {why}"),
            hint: Some(
                "the gateway's Service is `<releaseName>-gateway`, and the API server requires Service names to start with a letter"
                    .to_owned(),
            ),
            at_key: false,
        });
    }
    if name.len() > MAX_RELEASE_NAME {
        violations.push(RuleBreach {
            path: KeyPath::dotted("releaseName"),
            also: Vec::new(),
            message: format!(
                "`{name}` is {} characters; a release name has at most {MAX_RELEASE_NAME}",
                name.len()
            ),
            hint: Some(
                "object names are `<releaseName>-<component>` and must fit in 63 characters"
                    .to_owned(),
            ),
            at_key: false,
        });
    }
}

/// Every image is a reference the kubelet can pull: the repository, tag and
/// digest together follow the distribution reference grammar.
fn check_images(values: &Values, violations: &mut Vec<RuleBreach>) {
    let images = &values.images;
    for (key, image) in [
        ("buildd", &images.buildd),
        ("gateway", &images.gateway),
        ("buildkitd", &images.buildkitd),
        ("kataDeploy", &images.kata_deploy),
        ("vcpuTune", &images.vcpu_tune),
    ] {
        let reference = image.reference();
        if let Err(why) = names::image_reference(&reference) {
            let path = KeyPath::dotted("images").key(key);
            violations.push(RuleBreach {
                path: path.clone().key("repository"),
                also: vec![path.clone().key("tag"), path.key("digest")],
                message: format!("images.{key} gives `{reference}`, which is {why}"),
                hint: Some("a repository is lowercase `[registry[:port]/]path/name`; a tag is up to 128 letters, digits, `_`, `.` or `-`, not starting with `.` or `-`".to_owned()),
                at_key: false,
            });
        }
    }
}

fn check_namespaces(values: &Values, violations: &mut Vec<RuleBreach>) {
    let ns = &values.namespaces;
    let classes = [
        ("namespaces.operator", ns.operator.as_str()),
        ("namespaces.builds", ns.builds.as_str()),
        ("namespaces.system", ns.system.as_str()),
    ];
    for (key, name) in classes {
        if RESERVED_NAMESPACES.contains(&name) {
            violations.push(RuleBreach {
                path: KeyPath::dotted(key),
                also: Vec::new(),
                message: format!("`{name}` is reserved and cannot hold a trust class of this chart"),
                hint: Some(
                    "give each class its own namespace (ADR-0006), such as buildkit-operator, buildkit-builds, buildkit-system"
                        .to_owned(),
                ),
                at_key: false,
            });
        }
    }
    for (i, (key, name)) in classes.iter().enumerate() {
        if let Some((first, _)) = classes[..i].iter().find(|(_, other)| other == name) {
            violations.push(RuleBreach {
                path: KeyPath::dotted(key),
                also: vec![KeyPath::dotted(first)],
                message: format!("{first} and {key} are both `{name}`; the three namespaces must be distinct"),
                hint: Some("each trust class needs its own namespace so that each carries only its own policy exemptions (ADR-0006)".to_owned()),
                at_key: false,
            });
        }
    }
}

fn check_projects(values: &Values, violations: &mut Vec<RuleBreach>) {
    // By hash: names of thousands of projects share long prefixes, which a
    // search tree compares again at each of its levels.
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(values.projects.len());
    for (i, project) in values.projects.iter().enumerate() {
        let name = project.name.as_str();
        if let Some(&first) = seen.get(name) {
            violations.push(RuleBreach {
                path: KeyPath::root().key("projects").index(i).key("name"),
                also: Vec::new(),
                message: format!("project name `{name}` is also used by projects[{first}]"),
                hint: Some("project names become BuildProject names and must be unique".to_owned()),
                at_key: false,
            });
        } else {
            seen.insert(name, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::DnsLabel;
    use crate::model::{Project, Resources};

    fn project(name: &'static str) -> Project {
        Project {
            name: DnsLabel::from_static(name),
            repository: "https://example.com/x.git".to_owned(),
            trusted: false,
            resources: Resources::default(),
        }
    }

    #[test]
    fn the_defaults_break_no_rule() {
        assert_eq!(check(&Values::default()), vec![]);
    }

    #[test]
    fn namespaces_must_be_distinct_and_not_reserved() {
        let mut values = Values::default();
        values.namespaces.builds = DnsLabel::from_static("buildkit-operator");
        values.namespaces.system = DnsLabel::from_static("kube-system");
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(paths, ["namespaces.system", "namespaces.builds"]);
    }

    #[test]
    fn labels_annotations_and_cidrs_follow_kubernetes_syntax() {
        let mut values = Values::default();
        values.common_labels.insert("team".into(), "builds".into());
        values
            .common_labels
            .insert("example.com/owner".into(), "a b".into());
        values
            .common_labels
            .insert("app.kubernetes.io/part-of".into(), "x".into());
        values
            .common_annotations
            .insert("Bad Key".into(), "anything goes\n".into());
        values.network.api_server.cidrs = vec![
            "10.0.0.0/8".into(),
            "10.0.0.0/33".into(),
            "::/0".into(),
            "x".into(),
        ];
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(
            paths,
            [
                r#"commonLabels."app.kubernetes.io/part-of""#,
                r#"commonLabels."example.com/owner""#,
                r#"commonAnnotations."Bad Key""#,
                "network.apiServer.cidrs[1]",
                "network.apiServer.cidrs[3]",
            ]
        );
    }

    #[test]
    fn network_values_say_only_what_a_policy_can_enforce() {
        use crate::model::network::{CidrRule, Cni, FqdnRule, Peer, Port};
        let mut values = Values::default();
        let egress = &mut values.network.build_egress;
        egress.allow_all = true;
        egress.cidrs = vec![CidrRule {
            cidr: "10.0.0.0/8".into(),
            except: vec![
                "10.1.0.0/16".into(),
                "10.0.0.0/8".into(),
                "192.168.0.0/16".into(),
                "fc00::/7".into(),
                "10.2.0.0/33".into(),
            ],
            ports: Vec::new(),
        }];
        egress.fqdns = vec![FqdnRule {
            name: "github.com".into(),
            ports: vec![Port(443)],
        }];
        values.network.gateway_clients = vec![Peer {
            pod_labels: BTreeMap::from([("app".into(), "ci".into())]),
            ..Peer::default()
        }];
        values.network.metrics_from = vec![Peer {
            namespace_labels: BTreeMap::from([("bad key".into(), "x".into())]),
            ..Peer::default()
        }];
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(
            paths,
            [
                "network.buildEgress.cidrs[0].except[1]",
                "network.buildEgress.cidrs[0].except[2]",
                "network.buildEgress.cidrs[0].except[3]",
                "network.buildEgress.cidrs[0].except[4]",
                "network.buildEgress.allowAll",
                "network.buildEgress.fqdns",
                "network.gatewayClients[0]",
                r#"network.metricsFrom[0].namespaceLabels."bad key""#,
            ]
        );
        // With Cilium, named hosts are what the values may say.
        let mut values = Values::default();
        values.network.cni = Cni::Cilium;
        values.network.build_egress.fqdns = vec![FqdnRule {
            name: "*.github.com".into(),
            ports: vec![Port(443)],
        }];
        assert_eq!(check(&values), []);
    }

    #[test]
    fn replicas_need_leader_election_and_policies_differ() {
        let mut values = Values::default();
        values.buildd.leader_election = false;
        values.policies.disallow_host_path = values.policies.security_context.clone();
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(
            paths,
            ["buildd.leaderElection", "policies.disallowHostPath"]
        );
    }

    #[test]
    fn amounts_stay_within_their_limits() {
        let mut values = Values::default();
        values.builds.limit_range.default.memory =
            Some(crate::model::types::WrittenQuantity::from_static("32Gi"));
        values.buildd.resources.requests.cpu =
            Some(crate::model::types::WrittenQuantity::from_static("2"));
        values.buildd.resources.limits.cpu =
            Some(crate::model::types::WrittenQuantity::from_static("1500m"));
        values.builds.tls.renew_before = "2160h".to_owned();
        let messages: Vec<String> = check(&values).into_iter().map(|v| v.message).collect();
        assert_eq!(
            messages,
            [
                "requests.cpu 2 is more than limits.cpu 1500m",
                "default.memory 32Gi is more than max.memory 16Gi",
                "renewBefore 2160h is not shorter than duration 2160h",
            ]
        );
    }

    #[test]
    fn the_builds_limit_range_admits_every_daemon_the_values_describe() {
        use crate::model::types::WrittenQuantity;
        let q = |s: &'static str| Some(WrittenQuantity::from_static(s));
        let mut values = Values::default();
        assert!(check(&values).is_empty(), "{:?}", check(&values));
        // No default CPU limit and no CPU maximum: any CPU request passes.
        values.builds.daemon_resources.requests.cpu = q("12");
        assert!(check(&values).is_empty(), "{:?}", check(&values));
        // A CPU maximum without a default is every daemon's limit.
        values.builds.limit_range.max.cpu = q("8");
        let messages = |values: &Values| -> Vec<(String, String)> {
            check(values)
                .into_iter()
                .map(|v| (v.path.to_string(), v.message))
                .collect()
        };
        assert_eq!(
            messages(&values),
            [(
                "builds.daemonResources.requests.cpu".to_owned(),
                "requests.cpu 12 is above the limit 8 the builds LimitRange gives a daemon without limits.cpu (max.cpu); the API server refuses the daemon".to_owned()
            )]
        );
        // A project's own limit above the maximum; its request is its own.
        values.builds.daemon_resources.requests.cpu = q("1");
        values.projects = vec![project("a")];
        values.projects[0].resources.limits.memory = q("32Gi");
        assert_eq!(
            messages(&values),
            [(
                "projects[0].resources.limits.memory".to_owned(),
                "limits.memory 32Gi is above the builds LimitRange's max.memory 16Gi; the API server refuses the daemon".to_owned()
            )]
        );
        // Projects with the same resources, each of which breaks a rule,
        // are each reported; one between them that breaks none is not.
        values.projects = vec![project("a"), project("b"), project("c"), project("d")];
        for i in [0, 1, 3] {
            values.projects[i].resources.limits.memory = q("32Gi");
        }
        values.projects[0].resources.requests.memory = q("64Gi");
        values.projects[1].resources.requests.memory = q("64Gi");
        let paths: Vec<String> = messages(&values)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(
            paths,
            [
                "projects[0].resources.requests.memory",
                "projects[1].resources.requests.memory",
                "projects[0].resources.limits.memory",
                "projects[1].resources.limits.memory",
                "projects[3].resources.limits.memory",
            ]
        );
        // The maximum holds a limit in thousandths, rounded up: 1800u is
        // 2m, as 1500u is; 2001u is 3m.
        values.projects = vec![project("a")];
        values.builds.limit_range.max.cpu = q("1500u");
        values.builds.limit_range.default_request.cpu = q("1m");
        values.builds.daemon_resources.requests.cpu = q("1m");
        values.projects[0].resources.requests.cpu = q("1m");
        values.projects[0].resources.limits.cpu = q("1800u");
        assert!(messages(&values).is_empty(), "{:?}", messages(&values));
        values.projects[0].resources.limits.cpu = q("2001u");
        assert_eq!(
            messages(&values),
            [(
                "projects[0].resources.limits.cpu".to_owned(),
                "limits.cpu 2001u is above the builds LimitRange's max.cpu 1500u; the API server refuses the daemon".to_owned()
            )]
        );
        // Without the LimitRange, nothing to admit.
        values.projects.clear();
        values.builds.limit_range.enabled = false;
        assert!(check(&values).is_empty());
    }

    #[test]
    fn project_names_must_be_unique() {
        let values = Values {
            projects: vec![project("a"), project("b"), project("a"), project("a")],
            ..Values::default()
        };
        let messages: Vec<String> = check(&values).into_iter().map(|v| v.message).collect();
        assert_eq!(
            messages,
            [
                "project name `a` is also used by projects[0]",
                "project name `a` is also used by projects[0]"
            ]
        );
    }
}
