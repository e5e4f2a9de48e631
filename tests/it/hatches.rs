//! The workloads' escape hatches (issue 24): extra env, args, volumes,
//! mounts and sidecars render as written; what would change a behaviour
//! the chart or the ADRs own is refused with its reason, at its key; a
//! sidecar that breaks its namespace's Pod Security level is refused by
//! `check` (T3) when `render` checks its output; `explain` names the
//! values line behind each.

use chart::model::extras;
use kubernetes::yaml;

use kubernetes::location::Source;
use serde_json::{Value as Json, json};

use crate::harness::{assert_contains, chartgen, find};

const FIXTURE: &str = "tests/fixtures/hatches/values.yaml";

/// `render ARGS`, which must succeed; its objects as JSON.
fn rendered(args: &[&str]) -> Vec<Json> {
    let mut all = vec!["render"];
    all.extend(args);
    let run = chartgen(&all);
    assert_eq!(run.code, 0, "{}", run.transcript());
    yaml::parse_stream(
        &Source::file("render", &run.stdout),
        kubernetes::manifest::LIMITS,
    )
    .expect("the render reads back")
    .iter()
    .map(yaml::Node::to_json)
    .collect()
}

fn container<'a>(objects: &'a [Json], deployment: &str, index: usize) -> &'a Json {
    &find(objects, "Deployment", deployment)["spec"]["template"]["spec"]["containers"][index]
}

/// The issue's two examples: each refused as an unknown key before.
#[test]
fn the_issues_examples_render() {
    let objects = rendered(&[
        "--set-json",
        r#"buildd.extraEnv=[{"name":"X","value":"1"}]"#,
        "--set",
        "buildd.extraArgs[0]=--foo",
    ]);
    let buildd = container(&objects, "buildkit-buildd", 0);
    let env = buildd["env"].as_array().unwrap();
    assert_eq!(env[0]["name"], "POD_NAMESPACE", "the chart's come first");
    assert_eq!(env[1], json!({"name": "X", "value": "1"}));
    let args = buildd["args"].as_array().unwrap();
    assert_eq!(args.last().unwrap(), "--foo");
    assert_eq!(args[0], "--namespace=buildkit-builds");
}

/// An env value from a Secret renders as written, in a workload whose
/// container had no `env` at all.
#[test]
fn an_env_value_from_a_secret_key_renders() {
    let var = json!({"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "gateway-token", "key": "token"}}});
    let objects = rendered(&["--set-json", &format!("gateway.extraEnv=[{var}]")]);
    assert_eq!(
        container(&objects, "buildkit-gateway", 0)["env"],
        json!([var])
    );
}

/// Every spelling Go's flag package reads as `--namespace` is refused, at
/// its key, with the ADR's reason; the values are not rendered.
#[test]
fn buildd_namespace_is_refused_in_every_spelling() {
    for (set, at) in [
        ("buildd.extraArgs[0]=--namespace", "buildd.extraArgs[0]"),
        ("buildd.extraArgs[0]=--namespace=x", "buildd.extraArgs[0]"),
        ("buildd.extraArgs={--namespace,x}", "buildd.extraArgs[0]"),
        ("buildd.extraArgs={--v=2,-namespace}", "buildd.extraArgs[1]"),
        ("buildd.extraArgs[0]=-namespace=x", "buildd.extraArgs[0]"),
    ] {
        let run = chartgen(&["render", "--set", set]);
        assert!(run.stdout.is_empty());
        run.assert_refused_each(
            2,
            &[
                at,
                "which the chart sets: ADR-0006: buildd creates the build daemons in the builds namespace (T5)",
                "set `namespaces.builds` instead",
            ],
        );
    }
    // After `--` too: `check` reads the whole command line, as a flag
    // package that reads flags past a positional argument would.
    let run = chartgen(&["validate", "--set", "buildd.extraArgs={--,--namespace=x}"]);
    run.assert_refused(2, "buildd.extraArgs[1]");
}

#[test]
fn a_refused_flag_is_reported_in_full() {
    let run = chartgen(&["validate", "--set", "buildd.extraArgs[0]=--namespace=x"]);
    insta::assert_snapshot!("hatches-buildd-namespace", run.transcript());
}

#[test]
fn the_gateways_daemon_namespace_and_buildds_env_are_refused() {
    let run = chartgen(&[
        "validate",
        "--set",
        "gateway.extraArgs[0]=--daemon-namespace=buildkit-operator",
        "--set-json",
        r#"buildd.extraEnv=[{"name":"POD_NAMESPACE","value":"elsewhere"}]"#,
    ]);
    run.assert_refused_each(
        2,
        &[
            "gateway.extraArgs[0]",
            "the gateway reaches the build daemons in the builds namespace (T5)",
            "buildd.extraEnv[0].name",
            // The name is the set flag's value: not quoted.
            "`…` is an environment variable the chart sets for buildd",
        ],
    );
    run.assert_stderr_lacks("POD_NAMESPACE");
}

/// What the API server would refuse in the rendered pod is a values
/// error at the hatch, for the daemons' pod template too (a ConfigMap's
/// text, which no API server validates before buildd uses it).
#[test]
fn a_sidecar_the_api_server_refuses_is_a_values_error() {
    let run = chartgen(&[
        "render",
        "--set-json",
        r#"builds.daemon.sidecars=[{"name":"warmer","image":"r.example/w:1","ports":[{"containerPort":0}]}]"#,
    ]);
    run.assert_refused_each(
        2,
        &[
            "builds.daemon.sidecars[0].ports[0].containerPort: ",
            "(check's API rule would refuse the render)",
        ],
    );
}

/// A hostPath volume is refused in every workload, with Kyverno's and the
/// ADR's reason; another source restricted refuses, with the Pod
/// Security level's.
#[test]
fn a_host_path_extra_volume_is_refused() {
    for at in ["buildd", "gateway", "builds.daemon"] {
        let run = chartgen(&[
            "validate",
            "--set-json",
            &format!(r#"{at}.extraVolumes=[{{"name":"node","hostPath":{{"path":"/var/run"}}}}]"#),
        ]);
        run.assert_refused_each(
            2,
            &[
                &format!("{at}.extraVolumes[0].hostPath"),
                "only the Kata node plumbing may mount one (ADR-0006), and Kyverno's disallow-host-path refuses it",
            ],
        );
    }
    let run = chartgen(&[
        "validate",
        "--set-json",
        r#"gateway.extraVolumes=[{"name":"share","nfs":{"server":"nfs.example.com","path":"/"}}]"#,
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    insta::assert_snapshot!("hatches-gateway-nfs", run.transcript());
}

/// A privileged sidecar in the gateway renders into the operator
/// namespace, which `check` refuses (T3, and ROOTFS): `render` prints
/// nothing.
#[test]
fn a_privileged_sidecar_in_the_gateway_is_refused_by_check() {
    let run = chartgen(&[
        "render",
        "--set-json",
        r#"gateway.sidecars=[{"name":"debug","image":"busybox:1.36","securityContext":{"privileged":true}}]"#,
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stdout.is_empty());
    assert_contains(&run.stderr, "T3");
    assert_contains(
        &run.stderr,
        "spec.template.spec.containers[1].securityContext.privileged",
    );
    assert_contains(
        &run.stderr,
        "the operator class in buildkit-operator demands Pod Security restricted",
    );
    insta::assert_snapshot!("hatches-privileged-sidecar", run.transcript());
}

/// The same in the daemons' pod template: judged as a pod of the builds
/// namespace (rootless, never privileged).
#[test]
fn a_privileged_sidecar_of_the_daemons_is_refused_by_check() {
    let run = chartgen(&[
        "render",
        "--set-json",
        r#"builds.daemon.sidecars=[{"name":"debug","image":"busybox:1.36","securityContext":{"privileged":true}}]"#,
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_contains(&run.stderr, "T3");
    assert_contains(&run.stderr, "buildkit-daemon-pod-template");
    assert_contains(&run.stderr, "Privileged");
}

/// The fixture uses every hatch of every workload: it renders (so passes
/// `check`), each hatch where it belongs.
#[test]
fn every_hatch_renders_where_it_belongs() {
    let objects = rendered(&["-f", FIXTURE]);
    let buildd = container(&objects, "buildkit-buildd", 0);
    assert_eq!(buildd["env"].as_array().unwrap().len(), 3);
    let args = buildd["args"].as_array().unwrap();
    assert_eq!(
        &args[args.len() - 3..],
        ["--zap-devel=false", "--max-concurrent-reconciles", "4"]
    );
    assert_eq!(
        buildd["volumeMounts"][1],
        json!({"name": "ca-bundle", "mountPath": "/etc/ssl/corporate", "readOnly": true})
    );
    let gateway = &find(&objects, "Deployment", "buildkit-gateway")["spec"]["template"]["spec"];
    assert_eq!(gateway["containers"][1]["name"], "log-shipper");
    let volumes: Vec<&str> = gateway["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(volumes, ["tmp", "client-tls", "logs"]);
    let template =
        find(&objects, "ConfigMap", "buildkit-daemon-pod-template")["data"]["pod-template.yaml"]
            .as_str()
            .unwrap();
    let template = yaml::parse_stream(
        &Source::file("template", template),
        kubernetes::manifest::LIMITS,
    )
    .unwrap()[0]
        .to_json();
    let buildkitd = &template["spec"]["containers"][0];
    assert_eq!(buildkitd["name"], "buildkitd");
    assert_eq!(buildkitd["args"], json!(["--debug"]));
    assert_eq!(buildkitd["securityContext"]["privileged"], false);
    assert_eq!(template["spec"]["securityContext"]["runAsNonRoot"], true);
    assert_eq!(template["spec"]["volumes"][0]["name"], "cache");
    // The sidecar, under the pod's rootless security context, passes the
    // builds class's demand as written.
    assert_eq!(template["spec"]["containers"][1]["name"], "cache-warmer");
    let flags =
        find(&objects, "Deployment", "buildkit-buildd")["spec"]["template"]["spec"]["containers"]
            [0]["args"]
            .clone();
    assert!(
        flags
            .as_array()
            .unwrap()
            .contains(&json!("--daemon-pod-template=buildkit-daemon-pod-template"))
    );
}

/// `explain --output json ARGS`, exiting 0.
fn explain(field: &str) -> Json {
    let run = chartgen(&["explain", "--output", "json", "-f", FIXTURE, field]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    serde_json::from_str(&run.stdout).unwrap()
}

fn line_of(text: &str) -> usize {
    let source = std::fs::read_to_string(crate::harness::root().join(FIXTURE)).unwrap();
    1 + source.lines().position(|l| l.contains(text)).unwrap()
}

/// `explain` on a field a hatch wrote names the values file's line.
#[test]
fn explain_names_the_values_line_of_each_hatch() {
    let buildd = "Deployment/buildkit-operator/buildkit-buildd.spec.template.spec";
    let json = explain(&format!("{buildd}.containers[buildd].env[API_TOKEN]"));
    let origins: Vec<(String, u64)> = json["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap().to_owned(),
                v["origin"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(!origins.is_empty(), "{json}");
    assert!(
        origins
            .iter()
            .all(|(path, _)| path.starts_with("buildd.extraEnv[1]")),
        "{origins:?}"
    );
    assert!(
        origins
            .iter()
            .all(|(_, line)| *line as usize >= line_of("- name: API_TOKEN")
                && *line as usize <= line_of("secretKeyRef: {name: buildd-token")),
        "{origins:?}"
    );
    assert_eq!(json["template"]["file"], "templates/buildd.yaml");
    let json = explain(&format!(
        "{buildd}.containers[buildd].env[HTTP_PROXY].value"
    ));
    assert_eq!(json["value"], "http://proxy.example.com:3128");
    assert_eq!(json["values"][0]["path"], "buildd.extraEnv[0].value");
    assert_eq!(
        json["values"][0]["origin"]["line"],
        line_of("name: HTTP_PROXY")
    );

    let gateway = "Deployment/buildkit-operator/buildkit-gateway.spec.template.spec";
    let json = explain(&format!("{gateway}.containers[log-shipper].image"));
    assert_eq!(json["values"][0]["path"], "gateway.sidecars[0].image");
    assert_eq!(
        json["values"][0]["origin"]["line"],
        line_of("image: registry.example.com/log-shipper")
    );
    let json = explain(&format!("{gateway}.volumes[logs].emptyDir.sizeLimit"));
    assert_eq!(
        json["values"][0]["path"],
        "gateway.extraVolumes[0].emptyDir.sizeLimit"
    );
    // The daemons' pod template is one text the plan writes: its values
    // are `builds.daemon`, from where the fixture sets it.
    let json = explain(
        r#"ConfigMap/buildkit-builds/buildkit-daemon-pod-template.data."pod-template.yaml""#,
    );
    assert_eq!(json["values"][0]["path"], "builds.daemon");
    assert_eq!(
        json["values"][0]["origin"]["line"],
        line_of("  daemon:") + 1
    );
    let json = explain(&format!("{buildd}.containers[buildd].args[13]"));
    assert_eq!(json["values"][0]["path"], "buildd.extraArgs[1]", "{json}");
    assert_eq!(
        json["values"][0]["origin"]["line"],
        line_of("extraArgs: [--zap-devel")
    );
}

/// Against the real control plane (`server.rs`; skipped with a line
/// without one): the fixture's render applies without a refusal or a
/// warning, its workloads' pods (sidecars and extra volumes included) are
/// admitted as Pods under the operator namespace's Pod Security level, and
/// the gateway's pod with the privileged sidecar `check` refuses is refused
/// by the server too, for the same control.
#[test]
fn cluster_the_hatches_apply_and_the_server_agrees_with_check() {
    let Some(server) = crate::server::server("hatches") else {
        return;
    };
    let _alone = server.exclusive();
    server.reset();
    server.apply_crds();
    let objects = rendered(&["-f", FIXTURE]);
    let applied = server.apply_objects(&objects, "chartgen-test");
    assert!(applied.warnings.is_empty(), "{:?}", applied.warnings);
    let pod = |name: &str, spec: &Json| {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "buildkit-operator"},
            "spec": spec,
        })
    };
    let spec_of =
        |name: &str| find(&objects, "Deployment", name)["spec"]["template"]["spec"].clone();
    let mut privileged = spec_of("buildkit-gateway");
    privileged["containers"]
        .as_array_mut()
        .unwrap()
        .push(json!({
            "name": "debug", "image": "busybox:1.36", "securityContext": {"privileged": true},
        }));
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [
        pod("hatches-buildd", &spec_of("buildkit-buildd")),
        pod("hatches-gateway", &spec_of("buildkit-gateway")),
        pod("hatches-privileged", &privileged),
    ]});
    let output = server.kubectl(
        &["create", "--dry-run=server", "-o", "name", "-f", "-"],
        Some(&list.to_string()),
    );
    let admitted = String::from_utf8_lossy(&output.stdout).into_owned();
    let refused = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        admitted.contains("pod/hatches-buildd"),
        "{admitted}\n{refused}"
    );
    assert!(
        admitted.contains("pod/hatches-gateway"),
        "{admitted}\n{refused}"
    );
    assert!(!admitted.contains("pod/hatches-privileged"), "{admitted}");
    assert_contains(
        &refused,
        "pods \"hatches-privileged\" is forbidden: violates PodSecurity \"restricted:latest\": privileged",
    );
}

/// What each `Owned` hatch rule lists (`chart::model::extras`) is what the templates write: a flag, a
/// variable, a volume or a mount a template gains fails here until it
/// is listed (and so refused in the hatches).
#[test]
fn the_owned_names_are_what_the_templates_write() {
    let mut values = chart::model::Values::default();
    values.kata.enabled = true;
    values.builds.daemon.pod.priority_class_name = Some("builds".into());
    let output = chart::pipeline::render(&values).unwrap();
    let manifests = output.manifests(&output.bundles());
    for (name, owned) in [
        ("buildkit-buildd", &extras::BUILDD),
        ("buildkit-gateway", &extras::GATEWAY),
    ] {
        let object = manifests
            .iter()
            .find(|m| m.id.kind == "Deployment" && m.id.name == name)
            .unwrap()
            .node()
            .to_json();
        let pod = &object["spec"]["template"]["spec"];
        let container = &pod["containers"][0];
        assert_eq!(container["name"], owned.container);
        let args = container["args"].as_array().unwrap();
        assert!(args.len() >= owned.flags.len() - 1, "{name}");
        for arg in args {
            let arg = arg.as_str().unwrap();
            assert!(
                extras::sets_flag(arg, owned.flags).is_some(),
                "{name}: {arg}"
            );
        }
        let names = |list: &serde_json::Value, key: &str| -> Vec<String> {
            list.as_array()
                .into_iter()
                .flatten()
                .map(|item| item[key].as_str().unwrap().to_owned())
                .collect()
        };
        let env: Vec<&str> = owned.env.iter().map(|(n, _)| *n).collect();
        assert_eq!(names(&container["env"], "name"), env, "{name}");
        assert_eq!(names(&pod["volumes"], "name"), owned.volumes, "{name}");
        let mounts: Vec<&str> = owned.mount_paths.iter().map(|(p, _)| *p).collect();
        assert_eq!(names(&container["volumeMounts"], "mountPath"), mounts);
    }
}
