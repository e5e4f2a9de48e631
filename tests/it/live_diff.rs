//! `chartgen diff cluster:` against the real control plane
//! (`tests/it/server.rs`), and its errors, which need no server.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::{Run, chartgen, chartgen_with, root};
use crate::server::{self, Server};

/// A kubeconfig whose only context, `nowhere`, points at a port nothing
/// listens on.
fn kubeconfig_to_nowhere(dir: &Path) -> PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1
kind: Config
current-context: nowhere
clusters:
- name: closed
  cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}
contexts:
- name: nowhere
  context: {cluster: closed, user: someone}
users:
- name: someone
  user: {token: not-a-real-token}
",
    )
    .unwrap();
    path
}

/// `chartgen ARGS` with `KUBECONFIG` set to `kubeconfig`.
fn with_kubeconfig(kubeconfig: &Path, args: &[&str]) -> Run {
    chartgen_with(args, None, &[("KUBECONFIG", kubeconfig.to_str().unwrap())])
}

/// An error run: exit 2, nothing on stdout, one `error:` line naming what
/// it must.
fn assert_clear_error(run: &Run, names: &[&str]) {
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(run.stdout, "", "{}", run.transcript());
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: "), "{}", run.transcript());
    for name in names {
        assert!(first.contains(name), "`{name}` not in {first:?}");
    }
}

#[test]
fn an_unreachable_server_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig_to_nowhere(dir.path());
    for args in [
        ["diff", "cluster:", "out/dev/release"],
        ["diff", "out/dev/release", "cluster:nowhere"],
    ] {
        let run = with_kubeconfig(&kubeconfig, &args);
        assert_clear_error(&run, &["context `nowhere`", "https://127.0.0.1:1"]);
        run.assert_refused(2, "Connection refused");
    }
}

#[test]
fn an_unknown_context_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig_to_nowhere(dir.path());
    let run = with_kubeconfig(&kubeconfig, &["diff", "cluster:prod", "out/dev/release"]);
    assert_clear_error(&run, &["no context `prod`", "nowhere"]);
}

#[test]
fn no_kubeconfig_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let run = chartgen_with(
        &["diff", "cluster:", "out/dev/release"],
        None,
        &[
            ("KUBECONFIG", missing.to_str().unwrap()),
            ("HOME", dir.path().to_str().unwrap()),
        ],
    );
    assert_clear_error(&run, &["no kubeconfig", missing.to_str().unwrap()]);
}

#[test]
fn only_one_side_can_be_a_cluster() {
    let run = chartgen(&["diff", "cluster:a", "cluster:"]);
    assert_clear_error(&run, &["only one side of a diff can be a cluster"]);
}

/// The parsed JSON of a diff run.
fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: not JSON:\n{}", run.transcript()))
}

/// A path's key as the diff writes it: plain, or quoted.
fn key_text(key: &str) -> String {
    if key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

/// The leaf paths of a field added or removed whole: a mapping on one side
/// only is its keys, so that `+ metadata.annotations: {"a": …}` (no
/// annotations before) and `+ metadata.annotations."a"` (other annotations
/// before, such as the revision a Deployment controller writes) are the
/// same change.
fn leaves(path: &str, value: Option<&Value>, out: &mut BTreeSet<String>) {
    match value.and_then(Value::as_object) {
        Some(map) if !map.is_empty() => {
            for (key, value) in map {
                leaves(&format!("{path}.{}", key_text(key)), Some(value), out);
            }
        }
        _ => {
            out.insert(path.to_owned());
        }
    }
}

/// Each changed object's changed leaf paths.
fn changed_paths(diff: &Value) -> BTreeMap<String, BTreeSet<String>> {
    diff["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| {
            let mut paths = BTreeSet::new();
            for field in object["fields"].as_array().unwrap() {
                let path = field["path"].as_str().unwrap();
                match (field.get("old"), field.get("new")) {
                    (Some(old), None) => leaves(path, Some(old), &mut paths),
                    (None, Some(new)) => leaves(path, Some(new), &mut paths),
                    _ => {
                        paths.insert(path.to_owned());
                    }
                }
            }
            (object["object"].as_str().unwrap().to_owned(), paths)
        })
        .collect()
}

/// The strings of a JSON array field.
fn strings(diff: &Value, field: &str) -> BTreeSet<String> {
    diff[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Every listable object's resourceVersion, by kind, namespace and name;
/// events and leases (the controller-manager renews its lease every few
/// seconds) left out.
fn resource_versions(server: &Server) -> BTreeMap<String, String> {
    let kinds = server.kubectl_ok(&["api-resources", "--verbs=list", "-o", "name"], None);
    let kinds: Vec<&str> = kinds
        .lines()
        .filter(|k| !k.starts_with("events") && !k.starts_with("leases"))
        .collect();
    let listing = server.kubectl_ok(
        &[
            "get",
            &kinds.join(","),
            "--all-namespaces",
            "-o",
            "jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name} {.metadata.resourceVersion}{\"\\n\"}{end}",
        ],
        None,
    );
    listing
        .lines()
        .filter_map(|line| {
            let (object, version) = line.rsplit_once(' ')?;
            Some((object.to_owned(), version.to_owned()))
        })
        .collect()
}

/// The server with cert-manager's CRDs and the dev release applied
/// server-side, as field manager `chartgen` (the manager the dry run
/// applies as, so a field the local side drops is one the apply removes).
fn with_dev_applied(server: &Server) {
    server.reset();
    server.apply_crds();
    let release = root().join("out/dev/release");
    let apply = [
        "apply",
        "--server-side",
        "--field-manager=chartgen",
        "-k",
        release.to_str().unwrap(),
    ];
    // The BuildProject's CRD is in the release: its kind is served once
    // the CRD is established, after the first apply.
    if !server.kubectl(&apply, None).status.success() {
        server.wait_crds_established();
        server.kubectl_ok(&apply, None);
    }
}

/// `out/dev/release` copied, without the gateway's Service (its file and
/// its line in the kustomization).
fn dev_without_gateway_service(dir: &Path) -> PathBuf {
    let copy = dir.join("release");
    let status = std::process::Command::new("cp")
        .args(["-a"])
        .arg(root().join("out/dev/release"))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let file = "buildkit-operator/service-buildkit-gateway.yaml";
    std::fs::remove_file(copy.join(file)).unwrap();
    let kustomization = copy.join("kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    let line = format!("  - {file}\n");
    assert!(text.contains(&line));
    std::fs::write(&kustomization, text.replace(&line, "")).unwrap();
    copy
}

#[test]
fn a_diff_against_the_live_cluster_reads_what_the_server_holds() {
    let Some(server) = server::server("live_diff") else {
        return;
    };
    let _alone = server.exclusive();
    with_dev_applied(&server);
    let kubeconfig = server.kubeconfig().to_owned();
    let diff = |local: &str, extra: &[&str]| {
        let mut args = vec!["diff", "cluster:", local];
        args.extend(extra);
        with_kubeconfig(&kubeconfig, &args)
    };

    // What was applied is what is there: nothing differs, defaulted and
    // server-managed fields included; the controller's ReplicaSets, which
    // carry the release's labels, are not the release's.
    let same = diff("out/dev/release", &["--exit-code"]);
    assert_eq!(same.code, 0, "{}", same.transcript());
    assert_eq!(same.stdout, "no differences\n", "{}", same.transcript());

    // An object nobody labelled is none of the release's.
    server.kubectl_ok(
        &[
            "create",
            "configmap",
            "unlabelled",
            "-n",
            "buildkit-operator",
        ],
        None,
    );
    let same = diff("out/dev/release", &["--exit-code"]);
    assert_eq!(same.code, 0, "{}", same.transcript());

    // Against another environment: the changes of the folder diff, for the
    // objects both have, and not one defaulted field more; read-only.
    let before = resource_versions(&server);
    let live = diff("out/ovh-prod/release", &["--output", "json"]);
    assert_eq!(live.code, 0, "{}", live.transcript());
    let folders = chartgen(&[
        "diff",
        "out/dev/release",
        "out/ovh-prod/release",
        "--output",
        "json",
    ]);
    let (live, folders) = (json(&live), json(&folders));
    let (live_changed, mut folder_changed) = (changed_paths(&live), changed_paths(&folders));
    // The Kyverno exemptions artifact is a file beside the objects, never
    // in a cluster.
    folder_changed.remove("kyverno-exemptions.yaml");
    assert_eq!(
        live_changed.keys().collect::<Vec<_>>(),
        folder_changed.keys().collect::<Vec<_>>(),
        "the same objects change"
    );
    for (object, paths) in &live_changed {
        assert_eq!(paths, &folder_changed[object], "{object}");
    }
    assert_eq!(strings(&live, "removed"), strings(&folders, "removed"));
    assert_eq!(strings(&live, "added"), strings(&folders, "added"));
    let after = resource_versions(&server);
    assert_eq!(before, after, "a diff wrote to the cluster");
    assert!(!before.is_empty());

    // A dry run the server rejects is a refused impact in its words, and
    // the object compared as written; one it cannot do (no namespace) is
    // a note. A Secret's values, live or local, are never shown.
    server.kubectl_ok(
        &[
            "create",
            "secret",
            "generic",
            "token",
            "-n",
            "buildkit-operator",
            "--from-literal=password=live-secret-value",
        ],
        None,
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("objects.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1
kind: Service
metadata: {name: broken, namespace: buildkit-operator}
spec:
  type: Bogus
  ports: [{port: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere, namespace: no-such-namespace}
data: {a: '1'}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: buildkit-operator}
stringData: {password: local-secret-value}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-crd}
spec: {rules: []}
",
    )
    .unwrap();
    let refused = diff(file.to_str().unwrap(), &["--fail-on", "refused"]);
    assert_eq!(refused.code, 1, "{}", refused.transcript());
    assert!(
        refused.stdout.contains(
            "refused     Service buildkit-operator/broken: the server rejects it: Service \"broken\" is invalid: spec.type: Unsupported value: \"Bogus\""
        ),
        "{}",
        refused.transcript()
    );
    // The server's own answer, not chartgen's reading of the same object
    // (class `invalid`), which would say it twice.
    assert!(
        !refused.stdout.contains("the API server refuses it"),
        "{}",
        refused.transcript()
    );
    refused.assert_refused(
        1,
        "note: ConfigMap no-such-namespace/elsewhere: not dry-run, compared as written: namespaces \"no-such-namespace\" not found",
    );
    refused.assert_refused(
        1,
        "note: ClusterPolicy no-crd: not dry-run, compared as written: the server serves no kyverno.io/v1 ClusterPolicy (is its CustomResourceDefinition installed?)",
    );
    assert!(refused.stdout.contains("+ ClusterPolicy no-crd"));
    assert!(refused.stdout.contains("~ Secret buildkit-operator/token"));
    assert!(refused.stdout.contains("data.password"));
    for secret in ["live-secret-value", "local-secret-value"] {
        use base64_free::encode;
        for shown in [secret.to_owned(), encode(secret)] {
            refused.assert_shows_nowhere(&shown);
        }
    }

    // A change made in the cluster is one field change.
    server.kubectl_ok(
        &[
            "scale",
            "deployment/buildkit-gateway",
            "-n",
            "buildkit-operator",
            "--replicas=3",
        ],
        None,
    );
    let scaled = diff("out/dev/release", &["--output", "json", "--exit-code"]);
    assert_eq!(scaled.code, 1, "{}", scaled.transcript());
    let scaled = json(&scaled);
    assert_eq!(
        scaled["changed"],
        serde_json::json!([{
            "object": "Deployment buildkit-operator/buildkit-gateway",
            "fields": [{"path": "spec.replicas", "old": 3, "new": 1}]
        }])
    );
    assert_eq!(scaled["added"], serde_json::json!([]));
    assert_eq!(scaled["removed"], serde_json::json!([]));

    // Credentials the server refuses, a certificate nobody vouches for:
    // one error naming the context and the server.
    let server_url = server
        .kubectl_ok(
            &[
                "config",
                "view",
                "-o",
                "jsonpath={.clusters[0].cluster.server}",
            ],
            None,
        )
        .trim()
        .to_owned();
    for (context, trust, why) in [
        (
            "intruder",
            "insecure-skip-tls-verify: true",
            "401 Unauthorized",
        ),
        ("untrusted", "tls-server-name: localhost", "UnknownIssuer"),
    ] {
        let config = dir.path().join(context);
        std::fs::write(
            &config,
            format!(
                "apiVersion: v1
kind: Config
current-context: {context}
clusters:
- name: c
  cluster: {{server: '{server_url}', {trust}}}
contexts:
- name: {context}
  context: {{cluster: c, user: u}}
users:
- name: u
  user: {{token: not-a-real-token}}
"
            ),
        )
        .unwrap();
        let run = with_kubeconfig(&config, &["diff", "cluster:", "out/dev/release"]);
        assert_clear_error(&run, &[&format!("context `{context}`"), &server_url]);
        run.assert_refused(2, why);
    }

    // A user who may read but not patch: every object compared as
    // written, each with a note, and no refused impact (the apply is not
    // what failed).
    server.kubectl_ok(
        &[
            "create",
            "serviceaccount",
            "reader",
            "-n",
            "buildkit-operator",
        ],
        None,
    );
    server.kubectl_ok(
        &[
            "create",
            "clusterrolebinding",
            "live-diff-reader",
            "--clusterrole=view",
            "--serviceaccount=buildkit-operator:reader",
        ],
        None,
    );
    // Labelled so that the next reset removes it.
    server.kubectl_ok(
        &[
            "label",
            "clusterrolebinding",
            "live-diff-reader",
            "app.kubernetes.io/managed-by=chartgen",
        ],
        None,
    );
    let token = server.kubectl_ok(
        &["create", "token", "reader", "-n", "buildkit-operator"],
        None,
    );
    let reader = dir.path().join("reader");
    std::fs::write(
        &reader,
        format!(
            "apiVersion: v1
kind: Config
current-context: reader
clusters:
- name: c
  cluster: {{server: '{server_url}', insecure-skip-tls-verify: true}}
contexts:
- name: reader
  context: {{cluster: c, user: reader}}
users:
- name: reader
  user: {{token: '{}'}}
",
            token.trim()
        ),
    )
    .unwrap();
    let read_only = with_kubeconfig(
        &reader,
        &["diff", "cluster:", "out/dev/release", "--output", "json"],
    );
    assert_eq!(read_only.code, 0, "{}", read_only.transcript());
    crate::harness::assert_contains(
        &read_only.stderr,
        "note: Deployment buildkit-operator/buildkit-gateway: not dry-run, compared as written: deployments.apps \"buildkit-gateway\" is forbidden: User \"system:serviceaccount:buildkit-operator:reader\" cannot patch resource \"deployments\"",
    );
    // Compared as written, the fields the server filled in differ (and
    // chartgen's own reading may find a refused change in them, such as a
    // Service's allocated clusterIP), but the server rejected nothing.
    let read_only = json(&read_only);
    assert!(
        read_only["impact"]
            .as_array()
            .unwrap()
            .iter()
            .all(|impact| impact["class"] != "rejected"),
        "{read_only:#}"
    );

    // An object the local side no longer has is removed.
    let dir = tempfile::tempdir().unwrap();
    let local = dev_without_gateway_service(dir.path());
    let removed = diff(local.to_str().unwrap(), &["--output", "json"]);
    let removed = json(&removed);
    assert_eq!(
        removed["removed"],
        serde_json::json!(["Service buildkit-operator/buildkit-gateway"])
    );
}

/// Base64 as Kubernetes writes a Secret's data, for the assertion that it
/// is never shown.
mod base64_free {
    pub fn encode(text: &str) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = text.as_bytes();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn encodes_as_base64() {
        assert_eq!(encode("password"), "cGFzc3dvcmQ=");
        assert_eq!(encode("ab"), "YWI=");
        assert_eq!(encode("abc"), "YWJj");
    }
}
