//! Issue 23, "Defaults that do not surprise": what the rendered
//! environments show for the builds LimitRange, the Kata bundle, the
//! control plane's spread and priority, and buildd's metrics objects.

use serde_json::Value as Json;

use kubernetes::yaml;

use kubernetes::location::Source;

use crate::harness::{chartgen, find};

/// Renders `args` (after `render`); panics unless it succeeds cleanly.
fn render(args: &[&str]) -> Vec<Json> {
    let mut full = vec!["render".to_owned(), "--bundle".to_owned(), "all".to_owned()];
    full.extend(args.iter().map(|a| (*a).to_owned()));
    let run = chartgen(&full);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "render {args:?}");
    yaml::parse_stream(
        &Source::file("render", &run.stdout),
        kubernetes::manifest::LIMITS,
    )
    .unwrap()
    .iter()
    .map(yaml::Node::to_json)
    .collect()
}

const PROD: [&str; 4] = ["-f", "values/common.yaml", "-f", "values/ovh-prod.yaml"];
const DEV: [&str; 4] = ["-f", "values/common.yaml", "-f", "values/dev.yaml"];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

#[test]
fn the_builds_limit_range_sets_no_cpu_limit_or_cpu_maximum() {
    for env in [&PROD[..], &DEV[..]] {
        let objects = render(env);
        let range = &find(&objects, "LimitRange", "buildkit-daemons")["spec"]["limits"][0];
        assert_eq!(range["default"].get("cpu"), None, "{range}");
        assert_eq!(range["max"].get("cpu"), None, "{range}");
        assert_eq!(range["default"]["memory"], "2Gi");
        assert_eq!(range["defaultRequest"]["cpu"], "250m");
    }
}

#[test]
fn a_daemon_the_limit_range_would_refuse_is_refused_by_validate() {
    // A request above the LimitRange's default limit, with no limit of its
    // own: the API server would refuse the daemon's pod.
    let run = chartgen(&with(
        &["validate"],
        &[
            "--set",
            "builds.limitRange.default.cpu=2",
            "--set",
            "builds.daemonResources.requests.cpu=4",
        ],
    ));
    // Both numbers are set flags' values: named by their keys only.
    run.assert_refused(2, "requests.cpu … is above the limit … the builds LimitRange gives a daemon without limits.cpu (default.cpu)");
    // With a limit of its own, the same request is admitted.
    let run = chartgen(&with(
        &["validate"],
        &[
            "--set",
            "builds.limitRange.default.cpu=2",
            "--set",
            "builds.daemonResources.requests.cpu=4",
            "--set",
            "builds.daemonResources.limits.cpu=6",
        ],
    ));
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn kata_deploy_runs_with_the_least_a_current_release_needs() {
    let objects = render(&PROD);
    let kata = find(&objects, "DaemonSet", "buildkit-kata-deploy");
    let pod = &kata["spec"]["template"]["spec"];
    assert_eq!(pod["hostPID"], false);
    assert_eq!(pod["priorityClassName"], "system-node-critical");
    let container = &pod["containers"][0];
    let security = &container["securityContext"];
    assert_eq!(security["privileged"], false);
    assert_eq!(security["allowPrivilegeEscalation"], false);
    assert_eq!(security["readOnlyRootFilesystem"], true);
    assert_eq!(security["capabilities"]["drop"], serde_json::json!(["ALL"]));
    let image = container["image"].as_str().unwrap();
    assert!(image.contains("@sha256:"), "{image}");
    assert!(container["resources"]["requests"]["cpu"].is_string());
    assert!(container["resources"]["limits"]["memory"].is_string());
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        assert!(container[probe].is_object(), "{probe}");
    }
    let host_paths: Vec<&str> = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["hostPath"]["path"].as_str())
        .collect();
    assert!(!host_paths.contains(&"/"), "{host_paths:?}");
    // Every mount of a read-only host folder says so.
    for mount in container["volumeMounts"].as_array().unwrap() {
        let path = mount["mountPath"].as_str().unwrap();
        if path.starts_with("/host-") && path != "/host-run-lock" || path == "/boot" {
            assert_eq!(mount["readOnly"], true, "{mount}");
        }
    }
    let tune = find(&objects, "DaemonSet", "buildkit-kata-clh-vcpu-tune");
    let pod = &tune["spec"]["template"]["spec"];
    assert_eq!(pod["priorityClassName"], "system-node-critical");
    let security = &pod["containers"][0]["securityContext"];
    assert_eq!(security["capabilities"]["drop"], serde_json::json!(["ALL"]));
    assert_eq!(security["allowPrivilegeEscalation"], false);
    assert_eq!(security.get("privileged"), Some(&Json::Bool(false)));
}

#[test]
fn kata_goes_wherever_the_daemons_may_run() {
    let toleration = r#"builds.daemon.tolerations=[{"key":"example.com/builds","operator":"Exists","effect":"NoSchedule"}]"#;
    let objects = render(&with(&PROD, &["--set-json", toleration]));
    for name in ["buildkit-kata-deploy", "buildkit-kata-clh-vcpu-tune"] {
        let pod = &find(&objects, "DaemonSet", name)["spec"]["template"]["spec"];
        assert_eq!(
            pod["tolerations"],
            serde_json::json!([{"key": "example.com/builds", "operator": "Exists", "effect": "NoSchedule"}]),
            "{name}"
        );
    }
}

#[test]
fn the_control_plane_spreads_over_nodes_and_zones_when_it_has_replicas() {
    let objects = render(&PROD);
    for name in ["buildkit-buildd", "buildkit-gateway"] {
        let pod = &find(&objects, "Deployment", name)["spec"]["template"]["spec"];
        let keys: Vec<(&str, &str)> = pod["topologySpreadConstraints"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no spread"))
            .iter()
            .map(|c| {
                (
                    c["topologyKey"].as_str().unwrap(),
                    c["whenUnsatisfiable"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("kubernetes.io/hostname", "DoNotSchedule"),
                ("topology.kubernetes.io/zone", "ScheduleAnyway")
            ],
            "{name}"
        );
        assert_eq!(pod["priorityClassName"], "system-cluster-critical");
        find(&objects, "PodDisruptionBudget", name);
    }
    // One replica (dev), spreading off, or constraints of their own: none of ours.
    let dev = render(&DEV);
    let pod = &find(&dev, "Deployment", "buildkit-buildd")["spec"]["template"]["spec"];
    assert_eq!(pod.get("topologySpreadConstraints"), None);
    let off = render(&with(&PROD, &["--set", "gateway.spread.enabled=false"]));
    let pod = &find(&off, "Deployment", "buildkit-gateway")["spec"]["template"]["spec"];
    assert_eq!(pod.get("topologySpreadConstraints"), None);
    let own = r#"buildd.topologySpreadConstraints=[{"maxSkew":2,"topologyKey":"example.com/rack","whenUnsatisfiable":"ScheduleAnyway"}]"#;
    let own = render(&with(&PROD, &["--set-json", own]));
    let pod = &find(&own, "Deployment", "buildkit-buildd")["spec"]["template"]["spec"];
    let constraints = pod["topologySpreadConstraints"].as_array().unwrap();
    assert_eq!(constraints.len(), 1);
    assert_eq!(constraints[0]["topologyKey"], "example.com/rack");
}

#[test]
fn buildd_metrics_have_a_service_and_a_monitor_on_request() {
    let objects = render(&PROD);
    let service = find(&objects, "Service", "buildkit-buildd-metrics");
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");
    let buildd = find(&objects, "Deployment", "buildkit-buildd");
    assert_eq!(
        service["spec"]["selector"],
        buildd["spec"]["selector"]["matchLabels"]
    );
    assert!(!objects.iter().any(|o| o["kind"] == "ServiceMonitor"));
    let monitored = objects_with_monitor();
    let monitor = find(&monitored, "ServiceMonitor", "buildkit-buildd-metrics");
    assert_eq!(monitor["metadata"]["labels"]["release"], "prometheus");
    assert_eq!(monitor["spec"]["endpoints"][0]["port"], "metrics");
    assert_eq!(monitor["spec"]["endpoints"][0]["interval"], "1m");
    let service = find(&monitored, "Service", "buildkit-buildd-metrics");
    for (key, value) in monitor["spec"]["selector"]["matchLabels"]
        .as_object()
        .unwrap()
    {
        assert_eq!(&service["metadata"]["labels"][key], value, "{key}");
    }
    // The monitor needs the Service.
    let run = chartgen(&with(
        &["validate"],
        &[
            "--set",
            "buildd.metrics.serviceMonitor.enabled=true",
            "--set",
            "buildd.metrics.service=false",
        ],
    ));
    run.assert_refused(2, "buildd.metrics.service: false leaves out");
}

fn objects_with_monitor() -> Vec<Json> {
    render(&with(
        &PROD,
        &[
            "--set",
            "buildd.metrics.serviceMonitor.enabled=true",
            "--set",
            "buildd.metrics.serviceMonitor.interval=1m",
            "--set",
            "buildd.metrics.serviceMonitor.labels.release=prometheus",
        ],
    ))
}
