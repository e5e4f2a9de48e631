//! `diff` against the truth of a real API server: for each change pair of
//! `tests/fixtures/diff-server/cases.yaml` (and the variants [`generated`]
//! adds), the server's answer to the new object, sent as a server-side
//! apply (dry run) over the old one applied for real: refused (and why),
//! no change (the dry run's object is the live one), or changed (which
//! fields, and whether the pod template is among them).
//!
//! With a control plane and `CHARTGEN_RECORD=1`, [`record_the_servers_answers`]
//! writes the answers to `recorded-v1.35.4.jsonl`; with a control plane
//! and no `CHARTGEN_RECORD`, it checks that the server still answers so.
//! [`diff_agrees_with_the_recorded_server`] needs no server: `diff` must
//! say `refused` exactly where the server refused, no field change
//! exactly where it changed nothing, and `restart` exactly where a pod
//! template that rolls its pods changed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::server;

/// The namespace the test's namespaced objects go to; deleted after.
const NAMESPACE: &str = "dns-server";

/// The server the recording was made with.
const SERVER_VERSION: &str = "v1.35.4";

/// The field manager of both applies.
const MANAGER: &str = "chartgen-diff-server";

/// One change pair.
struct Case {
    name: String,
    old: Vec<Json>,
    new: Vec<Json>,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff-server")
}

fn recording_path() -> PathBuf {
    fixtures().join(format!("recorded-{SERVER_VERSION}.jsonl"))
}

/// Kinds that have no namespace.
fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "RuntimeClass"
            | "PriorityClass"
            | "IngressClass"
            | "StorageClass"
            | "CustomResourceDefinition"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "Namespace"
            | "PersistentVolume"
            | "CSIDriver"
            | "ValidatingAdmissionPolicy"
            | "CertificateSigningRequest"
    )
}

fn placed(mut object: Json) -> Json {
    let kind = object["kind"].as_str().unwrap_or_default().to_owned();
    if !cluster_scoped(&kind) && object["metadata"].get("namespace").is_none() {
        object["metadata"]["namespace"] = json!(NAMESPACE);
    }
    object
}

/// The fixture's cases, then the generated ones.
fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(fixtures().join("cases.yaml")).unwrap();
    let source = kubernetes::location::Source::file("cases.yaml", &text);
    let mut all: Vec<Case> =
        kubernetes::yaml::parse_stream(&source, kubernetes::yaml::Limits::VALUES)
            .unwrap()
            .into_iter()
            .map(|node| {
                let doc = node.to_json();
                let side = |key: &str| -> Vec<Json> {
                    doc[key]
                        .as_array()
                        .unwrap()
                        .iter()
                        .cloned()
                        .map(placed)
                        .collect()
                };
                Case {
                    name: doc["case"].as_str().unwrap().to_owned(),
                    old: side("old"),
                    new: side("new"),
                }
            })
            .collect();
    all.extend(generated());
    let mut names = std::collections::BTreeSet::new();
    for case in &all {
        assert!(
            names.insert(case.name.clone()),
            "two cases named {}",
            case.name
        );
    }
    all
}

/// A Deployment `name` whose pod spec is `spec`.
fn deployment(name: &str, spec: Json, extra: Json) -> Json {
    let mut object = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec}
        }
    });
    if let Json::Object(extra) = extra {
        for (k, v) in extra {
            object["spec"][k] = v;
        }
    }
    placed(object)
}

/// The pod spec the generated Deployments start from.
fn pod(container: Json) -> Json {
    let mut c = json!({"name": "app", "image": "nginx:1.27"});
    if let Json::Object(extra) = container {
        for (k, v) in extra {
            c[k] = v;
        }
    }
    json!({"containers": [c]})
}

/// Variants of one Deployment: each default the server writes, written
/// out (no change); quantities in another notation (no change); lists in
/// another order (a change of the pod template); a value that is not the
/// default (a change).
fn generated() -> Vec<Case> {
    let mut out = Vec::new();
    let mut pair = |name: &str, old: Json, new: Json| {
        out.push(Case {
            name: format!("generated-{name}"),
            old: vec![old],
            new: vec![new],
        });
    };
    // Workload defaults.
    for (i, (label, extra)) in [
        ("replicas", json!({"replicas": 1})),
        ("strategy", json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}})),
        ("revision-history", json!({"revisionHistoryLimit": 10})),
        ("progress-deadline", json!({"progressDeadlineSeconds": 600})),
        ("strategy-recreate", json!({"strategy": {"type": "Recreate"}})),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("gen-dep-{i}");
        pair(
            &format!("deployment-{label}"),
            deployment(&name, pod(json!({})), json!({})),
            deployment(&name, pod(json!({})), extra),
        );
    }
    // Recreate over a rollingUpdate the manifest wrote: the apply removes it.
    pair(
        "deployment-recreate-over-written",
        deployment(
            "gen-dep-recreate",
            pod(json!({})),
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}),
        ),
        deployment(
            "gen-dep-recreate",
            pod(json!({})),
            json!({"strategy": {"type": "Recreate"}}),
        ),
    );
    // Pod spec defaults.
    for (i, (label, field, value)) in [
        ("restart-policy", "restartPolicy", json!("Always")),
        ("dns-policy", "dnsPolicy", json!("ClusterFirst")),
        ("scheduler", "schedulerName", json!("default-scheduler")),
        ("grace", "terminationGracePeriodSeconds", json!(30)),
        ("security-context", "securityContext", json!({})),
        ("service-links", "enableServiceLinks", json!(true)),
        ("grace-other", "terminationGracePeriodSeconds", json!(60)),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("gen-pod-{i}");
        let mut spec = pod(json!({}));
        spec[field] = value;
        pair(
            &format!("pod-{label}"),
            deployment(&name, pod(json!({})), json!({})),
            deployment(&name, spec, json!({})),
        );
    }
    // Container defaults, and quantities.
    let probe = json!({"httpGet": {"port": 80}});
    let probe_defaults = json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3});
    for (i, (label, old, new)) in [
        ("termination-message", json!({}), json!({"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"})),
        ("pull-policy-tagged", json!({}), json!({"imagePullPolicy": "IfNotPresent"})),
        ("pull-policy-tagged-always", json!({}), json!({"imagePullPolicy": "Always"})),
        ("pull-policy-latest", json!({"image": "nginx:latest"}), json!({"image": "nginx:latest", "imagePullPolicy": "Always"})),
        ("pull-policy-untagged", json!({"image": "nginx"}), json!({"image": "nginx", "imagePullPolicy": "Always"})),
        ("pull-policy-untagged-ifnotpresent", json!({"image": "nginx"}), json!({"image": "nginx", "imagePullPolicy": "IfNotPresent"})),
        ("probe", json!({"livenessProbe": probe}), json!({"livenessProbe": probe_defaults})),
        ("probe-timeout", json!({"readinessProbe": probe}), json!({"readinessProbe": {"httpGet": {"port": 80}, "timeoutSeconds": 5}})),
        ("port-protocol", json!({"ports": [{"name": "http", "containerPort": 80}]}), json!({"ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}]})),
        ("cpu-notation", json!({"resources": {"requests": {"cpu": "200m"}}}), json!({"resources": {"requests": {"cpu": "0.2"}}})),
        ("memory-notation", json!({"resources": {"limits": {"memory": "256Mi"}}}), json!({"resources": {"limits": {"memory": "0.25Gi"}}})),
        ("cpu-number", json!({"resources": {"requests": {"cpu": "1"}}}), json!({"resources": {"requests": {"cpu": 1}}})),
        ("cpu-changed", json!({"resources": {"requests": {"cpu": "200m"}}}), json!({"resources": {"requests": {"cpu": "300m"}}})),
        ("env-reordered", json!({"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}), json!({"env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]})),
        ("ports-reordered", json!({"ports": [{"name": "a", "containerPort": 80}, {"name": "b", "containerPort": 81}]}), json!({"ports": [{"name": "b", "containerPort": 81}, {"name": "a", "containerPort": 80}]})),
        ("env-field-ref", json!({"env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}), json!({"env": [{"name": "N", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}]})),
        ("keys-reordered", json!({"image": "nginx:1.27", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}), json!({"resources": {"limits": {"memory": "1Gi", "cpu": "1"}}, "image": "nginx:1.27"})),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("gen-ctr-{i}");
        pair(
            &format!("container-{label}"),
            deployment(&name, pod(old), json!({})),
            deployment(&name, pod(new), json!({})),
        );
    }
    // Volumes and their mounts.
    let volumes = |medium: Option<&str>, mode: Option<u32>, mounts_reversed: bool| {
        let mut empty = json!({});
        if let Some(m) = medium {
            empty["medium"] = json!(m);
        }
        let mut config = json!({"name": "settings"});
        if let Some(m) = mode {
            config["defaultMode"] = json!(m);
        }
        let mut mounts = vec![
            json!({"name": "scratch", "mountPath": "/scratch"}),
            json!({"name": "config", "mountPath": "/config"}),
        ];
        if mounts_reversed {
            mounts.reverse();
        }
        let mut spec = pod(json!({"volumeMounts": mounts}));
        spec["volumes"] = json!([{"name": "scratch", "emptyDir": empty}, {"name": "config", "configMap": config}]);
        spec
    };
    for (i, (label, old, new)) in [
        (
            "emptydir-medium",
            volumes(None, None, false),
            volumes(Some(""), None, false),
        ),
        (
            "configmap-mode",
            volumes(None, None, false),
            volumes(None, Some(420), false),
        ),
        (
            "configmap-mode-other",
            volumes(None, None, false),
            volumes(None, Some(256), false),
        ),
        (
            "mounts-reordered",
            volumes(None, None, false),
            volumes(None, None, true),
        ),
        (
            "emptydir-memory",
            volumes(None, None, false),
            volumes(Some("Memory"), None, false),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("gen-vol-{i}");
        pair(
            &format!("volumes-{label}"),
            deployment(&name, old, json!({})),
            deployment(&name, new, json!({})),
        );
    }
    // Containers in another order.
    let two = |reversed: bool| {
        let mut containers = vec![
            json!({"name": "a", "image": "nginx:1.27"}),
            json!({"name": "b", "image": "busybox:1.36"}),
        ];
        if reversed {
            containers.reverse();
        }
        json!({"containers": containers})
    };
    pair(
        "containers-reordered",
        deployment("gen-two", two(false), json!({})),
        deployment("gen-two", two(true), json!({})),
    );
    out
}

/// What the server answered to one case.
fn answer(server: &server::Server, case: &Case) -> Json {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": case.new});
    let output = server.kubectl(
        &[
            "apply",
            "--server-side",
            "--force-conflicts",
            "--dry-run=server",
            "--field-manager",
            MANAGER,
            "-o",
            "json",
            "-f",
            "-",
        ],
        Some(&list.to_string()),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let message: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("Warning:"))
            .collect();
        // Object UIDs change with every run: the recording must not.
        let uid = regex::Regex::new("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
            .unwrap();
        let message = uid.replace_all(&message.join("\n"), "<uid>").into_owned();
        return json!({"case": case.name, "answer": "refused", "message": message});
    }
    let dry: Json = serde_json::from_slice(&output.stdout).expect("kubectl prints JSON");
    let dry_items: Vec<Json> = match dry.get("items") {
        Some(Json::Array(items)) => items.clone(),
        _ => vec![dry],
    };
    let mut fields = Vec::new();
    let mut template = false;
    for (object, dry) in case.new.iter().zip(&dry_items) {
        let kind = object["kind"].as_str().unwrap();
        let name = object["metadata"]["name"].as_str().unwrap();
        // An object the old side lacks is created by the dry run: there
        // is no live one to compare, and the answer is that it is added.
        let same = |o: &&Json| {
            o["kind"] == object["kind"]
                && o["metadata"]["name"] == object["metadata"]["name"]
                && o["metadata"]["namespace"] == object["metadata"]["namespace"]
        };
        if !case.old.iter().any(|o| same(&o)) {
            fields.push(format!("{kind} {name}: added"));
            continue;
        }
        let mut args = vec![
            "get".to_owned(),
            format!("{}/{name}", resource(object)),
            "-o".to_owned(),
            "json".to_owned(),
        ];
        if let Some(ns) = object["metadata"]["namespace"].as_str() {
            args.extend(["-n".to_owned(), ns.to_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let live: Json = serde_json::from_str(&server.kubectl_ok(&args, None)).unwrap();
        // `status` is compared where a manifest of the object writes one:
        // the case is about it, and its kind one no controller writes.
        let writes_status = |o: &&Json| {
            o["kind"] == object["kind"]
                && o["metadata"]["name"] == object["metadata"]["name"]
                && o.get("status").is_some()
        };
        let status = case.old.iter().chain(&case.new).any(|o| writes_status(&o));
        let (live, dry) = (comparable(&live, status), comparable(dry, status));
        let mut changed = Vec::new();
        differences(&mut String::new(), &live, &dry, &mut changed);
        for path in changed {
            if ["spec.template", "spec.jobTemplate.spec.template"]
                .iter()
                .any(|t| path == *t || path.starts_with(&format!("{t}.")))
            {
                template = true;
            }
            fields.push(format!("{kind} {name}: {path}"));
        }
    }
    let verdict = if fields.is_empty() {
        "unchanged"
    } else {
        "changed"
    };
    json!({"case": case.name, "answer": verdict, "fields": fields, "pod_template": template})
}

/// The resource kubectl names an object's kind by, at the object's own
/// version (`horizontalpodautoscaler.v1.autoscaling`): read at the
/// group's preferred version, an `autoscaling/v1` object would differ
/// from its dry run in every field the versions spell apart.
fn resource(object: &Json) -> String {
    let kind = object["kind"].as_str().unwrap().to_lowercase();
    match object["apiVersion"].as_str().unwrap().split_once('/') {
        Some((group, version)) => format!("{kind}.{version}.{group}"),
        None => kind,
    }
}

/// An object without what every write changes or the controllers write
/// (its `status`, unless `status`).
fn comparable(object: &Json, status: bool) -> Json {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut().filter(|_| !status) {
        map.remove("status");
    }
    if let Some(meta) = object.get_mut("metadata").and_then(Json::as_object_mut) {
        for key in ["managedFields", "resourceVersion", "generation"] {
            meta.remove(key);
        }
    }
    object
}

/// The dotted paths where two JSON values differ; a list that differs
/// is one path.
fn differences(path: &mut String, a: &Json, b: &Json, out: &mut Vec<String>) {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                differences(
                    path,
                    x.get(key).unwrap_or(&Json::Null),
                    y.get(key).unwrap_or(&Json::Null),
                    out,
                );
                path.truncate(len);
            }
        }
        _ if a != b => out.push(path.clone()),
        _ => {}
    }
}

fn recording() -> bool {
    std::env::var_os("CHARTGEN_RECORD").is_some_and(|v| v == "1")
}

/// The server's answer to every case; with `CHARTGEN_RECORD=1` the
/// recording, else a check that the recording is still the server's.
#[test]
fn record_the_servers_answers() {
    let Some(server) = server::server("record_the_servers_answers") else {
        return;
    };
    let _alone = server.exclusive();
    let cases = cases();
    server.kubectl(
        &["delete", "namespace", NAMESPACE, "--ignore-not-found"],
        None,
    );
    server.kubectl_ok(&["create", "namespace", NAMESPACE], None);
    let olds: Vec<Json> = cases.iter().flat_map(|c| c.old.clone()).collect();
    // The old objects, applied for real: CRDs first, established.
    let (crds, rest): (Vec<Json>, Vec<Json>) = olds
        .iter()
        .cloned()
        .partition(|o| o["kind"] == "CustomResourceDefinition");
    let mut seen = std::collections::HashSet::new();
    let rest: Vec<Json> = rest
        .into_iter()
        .filter(|o| seen.insert((o["kind"].to_string(), o["metadata"]["name"].to_string())))
        .collect();
    if !crds.is_empty() {
        server.apply_list(&crds, MANAGER);
        server.wait_crds_established();
    }
    server.apply_list(&rest, MANAGER);
    let answers: Vec<Json> = cases.iter().map(|case| answer(&server, case)).collect();
    // Clean up what this test made: first the finalizers of the cases'
    // own (`example.com/…`), which no controller would ever remove.
    for object in olds
        .iter()
        .filter(|o| (o["metadata"]["finalizers"].as_array()).is_some_and(|f| !f.is_empty()))
    {
        let name = format!(
            "{}/{}",
            resource(object),
            object["metadata"]["name"].as_str().unwrap()
        );
        let mut args = vec![
            "patch",
            name.as_str(),
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ];
        if let Some(namespace) = object["metadata"]["namespace"].as_str() {
            args.extend(["-n", namespace]);
        }
        server.kubectl(&args, None);
    }
    let all = json!({"apiVersion": "v1", "kind": "List", "items": olds.iter().filter(|o| o["metadata"].get("namespace").is_none()).collect::<Vec<_>>()});
    server.kubectl(
        &["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
        Some(&all.to_string()),
    );
    server.kubectl(&["delete", "namespace", NAMESPACE, "--wait=false"], None);
    let text: String = answers.iter().map(|a| format!("{a}\n")).collect();
    if recording() {
        std::fs::write(recording_path(), text).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(recording_path()).unwrap();
    assert_eq!(
        recorded
            .lines()
            .map(|l| serde_json::from_str::<Json>(l).unwrap()["answer"].clone())
            .collect::<Vec<_>>(),
        answers
            .iter()
            .map(|a| a["answer"].clone())
            .collect::<Vec<_>>(),
        "the server answers otherwise than recorded: record again (CHARTGEN_RECORD=1)"
    );
}

fn manifests(objects: &[Json]) -> Vec<kubernetes::manifest::Manifest> {
    let text: String = objects.iter().map(|o| format!("---\n{o}\n")).collect();
    kubernetes::input::parse("case", &text).unwrap().manifests
}

/// `diff` says what the server did, for every recorded case.
#[test]
fn diff_agrees_with_the_recorded_server() {
    let recorded: BTreeMap<String, Json> = std::fs::read_to_string(recording_path())
        .unwrap()
        .lines()
        .map(|line| {
            let answer: Json = serde_json::from_str(line).unwrap();
            (answer["case"].as_str().unwrap().to_owned(), answer)
        })
        .collect();
    let cases = cases();
    assert_eq!(
        cases.len(),
        recorded.len(),
        "cases and recording differ: record again (CHARTGEN_RECORD=1)"
    );
    let mut disagreements = Vec::new();
    for case in &cases {
        let answer = &recorded[&case.name];
        let diff = kubernetes::diff::diff(&manifests(&case.old), &manifests(&case.new), &[]);
        let refused = diff
            .impact
            .iter()
            .any(|i| i.level == kubernetes::diff::Level::Refused);
        let restart = diff
            .impact
            .iter()
            .any(|i| i.level == kubernetes::diff::Level::Restart);
        let rolls = case.new.iter().any(|o| {
            matches!(
                o["kind"].as_str(),
                Some("Deployment" | "DaemonSet" | "StatefulSet")
            ) && o["spec"]["updateStrategy"]["type"] != "OnDelete"
        });
        let said = match answer["answer"].as_str().unwrap() {
            "refused" => refused,
            "unchanged" => !refused && diff.changed.is_empty(),
            _ => {
                !refused
                    && (!diff.changed.is_empty() || !diff.added.is_empty())
                    && (!rolls || restart == answer["pod_template"].as_bool().unwrap())
            }
        };
        if !said {
            disagreements.push(format!(
                "{}: the server {} ({}); diff: {}",
                case.name,
                answer["answer"],
                answer
                    .get("message")
                    .or(answer.get("fields"))
                    .unwrap_or(&Json::Null),
                serde_json::to_string(&json!({"changed": diff.changed, "impact": diff.impact}))
                    .unwrap()
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} disagree:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
    assert!(cases.len() >= 60, "{}", cases.len());
}
