//! Every committed environment applied to the real control plane
//! (`scripts/control-plane/cluster`, `tests/it/server.rs`), and a GitOps
//! prune of the release run for real.
//!
//! The bundles' Certificates need cert-manager's CRDs: the tests run
//! `scripts/control-plane/cluster crds` (cert-manager's own CRDs, from its
//! Go module, cached after one download) and apply them first, as a
//! cluster with cert-manager has them. Each bundle is applied as a GitOps
//! tool does: its CRDs and Namespaces first, then the whole bundle with
//! `kubectl apply --server-side -k` (in one apply, kubectl cannot map a
//! BuildProject before its CRD exists).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::server::{self, Server};

/// Every rendered environment `out/<env>/`, each with its bundles (the
/// folders holding a `kustomization.yaml`), sorted: a new environment or
/// bundle is covered without naming it here.
pub(crate) fn environments() -> Vec<(String, Vec<PathBuf>)> {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("out");
    let mut envs: Vec<(String, Vec<PathBuf>)> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|env| {
            let mut bundles: Vec<PathBuf> = std::fs::read_dir(&env)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.join("kustomization.yaml").is_file())
                .collect();
            bundles.sort();
            let name = env.file_name().unwrap().to_str().unwrap().to_owned();
            (name, bundles)
        })
        .filter(|(_, bundles)| !bundles.is_empty())
        .collect();
    envs.sort();
    assert!(
        envs.len() >= 2,
        "out/ holds the committed environments: {envs:?}"
    );
    envs
}

/// The objects of `paths`, read as chartgen reads them.
pub(crate) fn read(paths: &[PathBuf]) -> Vec<Json> {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let read = kubernetes::input::read(&paths, &chart::artifacts::READ).unwrap();
    read.manifests.iter().map(|m| m.node().to_json()).collect()
}

fn name_of(object: &Json) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

fn namespace_of(object: &Json) -> &str {
    object["metadata"]["namespace"].as_str().unwrap_or_default()
}

/// The group of an object's apiVersion (`""` for the core group).
fn group_of(object: &Json) -> &str {
    let api = object["apiVersion"].as_str().unwrap_or_default();
    api.rsplit_once('/').map_or("", |(group, _)| group)
}

/// `kind.group/name`, as kubectl names one object.
fn reference(object: &Json) -> String {
    let kind = object["kind"].as_str().unwrap().to_lowercase();
    match group_of(object) {
        "" => format!("{kind}/{}", name_of(object)),
        group => format!("{kind}.{group}/{}", name_of(object)),
    }
}

/// Every workload's pod template as the Pod its controller would create,
/// with the workload (`Kind/name`) it came from.
fn pods_of(objects: &[Json]) -> Vec<(String, Json)> {
    let mut pods = Vec::new();
    for object in objects {
        let kind = object["kind"].as_str().unwrap_or_default();
        let template = match kind {
            "Deployment"
            | "ReplicaSet"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "ReplicationController" => &object["spec"]["template"],
            "CronJob" => &object["spec"]["jobTemplate"]["spec"]["template"],
            _ => continue,
        };
        let mut metadata = template["metadata"].clone();
        if !metadata.is_object() {
            metadata = json!({});
        }
        metadata["name"] = json!(format!("{}-{}", kind.to_lowercase(), name_of(object)));
        metadata["namespace"] = json!(namespace_of(object));
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": metadata, "spec": template["spec"],
        });
        pods.push((format!("{kind}/{}", name_of(object)), pod));
    }
    pods
}

/// A pod every Pod Security level but `privileged` refuses.
fn privileged_pod(namespace: &str) -> Json {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("psa-probe-privileged-{namespace}"), "namespace": namespace},
        "spec": {"containers": [{
            "name": "c", "image": "registry.example/probe:1",
            "securityContext": {"privileged": true},
        }]},
    })
}

/// A pod `baseline` accepts and `restricted` refuses (no security
/// context: may run as root, keeps its capabilities, no seccomp profile).
fn baseline_pod(namespace: &str) -> Json {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("psa-probe-baseline-{namespace}"), "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "registry.example/probe:1"}]},
    })
}

/// The server's answers to creating `pods`, dry-run, in one request
/// list: the names it admitted, its refusals (kubectl's lines, each
/// naming its pod) and its warnings.
fn dry_run(server: &Server, pods: &[Json]) -> (Vec<String>, String, Vec<String>) {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": pods});
    let output = server.kubectl(
        &["create", "--dry-run=server", "-o", "name", "-f", "-"],
        Some(&list.to_string()),
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let admitted = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.trim_start_matches("pod/").to_owned())
        .collect();
    (admitted, stderr.clone(), server::warnings(&stderr))
}

/// The `pod-security.kubernetes.io/*` labels of a Namespace.
fn pod_security_labels(namespace: &Json) -> Vec<(String, String)> {
    namespace["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("pod-security.kubernetes.io/"))
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect()
}

/// Every bundle of every environment applied server-side: nothing refused,
/// no warning (Pod Security warns on a workload whose template breaks its
/// namespace's `warn` level), the namespaces labelled as rendered, every
/// pod template admitted as a Pod by the Pod Security the namespace
/// enforces, and that enforcement shown to bite.
#[test]
fn cluster_every_environment_applies_with_pod_security_as_rendered() {
    let Some(server) = server::server("cluster_every_environment_applies") else {
        return;
    };
    let _alone = server.exclusive();
    let mut restricted_operator_namespaces = 0;
    for (env, bundles) in environments() {
        server.reset();
        server.apply_crds();
        for bundle in &bundles {
            let at = format!("{env}/{}", bundle.file_name().unwrap().to_str().unwrap());
            let objects = read(std::slice::from_ref(bundle));
            let mut warnings = server.apply_first_stage(&objects, "chartgen-test");
            let output = server.kubectl(
                &[
                    "apply",
                    "--server-side",
                    "--field-manager",
                    "chartgen-test",
                    "-k",
                    bundle.to_str().unwrap(),
                ],
                None,
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.success(),
                "{at}: the server refused:\n{stderr}"
            );
            let applied = String::from_utf8_lossy(&output.stdout).lines().count();
            assert_eq!(applied, objects.len(), "{at}: every object applied");
            warnings.extend(server::warnings(&stderr));
            assert!(
                warnings.is_empty(),
                "{at}: the server warned:\n{warnings:#?}"
            );

            // The namespaces carry the Pod Security labels as rendered.
            let live: Json = serde_json::from_str(
                &server.kubectl_ok(&["get", "namespaces", "-o", "json"], None),
            )
            .unwrap();
            let namespaces: Vec<&Json> = objects
                .iter()
                .filter(|o| o["kind"] == "Namespace")
                .collect();
            for namespace in &namespaces {
                let name = name_of(namespace);
                let there = live["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|n| name_of(n) == name)
                    .unwrap_or_else(|| panic!("{at}: namespace {name} applied"));
                assert_eq!(
                    pod_security_labels(there),
                    pod_security_labels(namespace),
                    "{at}: namespace {name}"
                );
            }

            // Pod Security bites on Pods only: every template as a Pod.
            let pods = pods_of(&objects);
            if objects.iter().any(|o| o["kind"] == "Deployment") {
                assert!(!pods.is_empty(), "{at}: workloads found");
            }
            if !pods.is_empty() {
                let templates: Vec<Json> = pods.iter().map(|(_, pod)| pod.clone()).collect();
                let (admitted, refused, warnings) = dry_run(&server, &templates);
                let workloads: Vec<&str> = pods.iter().map(|(w, _)| w.as_str()).collect();
                assert_eq!(
                    admitted.len(),
                    pods.len(),
                    "{at}: the pods of {workloads:?} as Pods, admitted {admitted:?}:\n{refused}"
                );
                assert!(
                    warnings.is_empty(),
                    "{at}: the pods of {workloads:?} warned: {warnings:?}"
                );
            }

            // The enforcement is on: each level refuses what it must.
            let mut probes = Vec::new();
            let mut expect = Vec::new();
            for namespace in &namespaces {
                let name = name_of(namespace);
                let level = namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
                    .as_str()
                    .unwrap_or("privileged")
                    .to_owned();
                for (pod, refused_at) in [
                    (privileged_pod(name), ["baseline", "restricted"].as_slice()),
                    (baseline_pod(name), ["restricted"].as_slice()),
                ] {
                    let refused = refused_at.contains(&level.as_str());
                    expect.push((name_of(&pod).to_owned(), level.clone(), refused));
                    probes.push(pod);
                }
                let operator = namespace["metadata"]["labels"]["buildkit-operator.dev/trust-class"]
                    == "operator";
                if operator {
                    assert_eq!(level, "restricted", "{at}: the operator namespace {name}");
                    restricted_operator_namespaces += 1;
                }
            }
            if !probes.is_empty() {
                let (admitted, refusals, _) = dry_run(&server, &probes);
                for (probe, level, refused) in expect {
                    let why =
                        format!("pods \"{probe}\" is forbidden: violates PodSecurity \"{level}:");
                    assert_eq!(
                        admitted.contains(&probe),
                        !refused,
                        "{at}: {probe} under enforce={level}:\n{refusals}"
                    );
                    assert_eq!(
                        refusals.contains(&why),
                        refused,
                        "{at}: {probe} under enforce={level}:\n{refusals}"
                    );
                }
            }
        }
    }
    assert!(
        restricted_operator_namespaces >= 2,
        "every release has an operator namespace enforcing restricted"
    );
}

/// Flux's kustomize-controller, which the prune test plays: its field
/// manager and the labels it puts on every object it applies (its
/// inventory is the Kustomization's status; the labels let it find them).
const FLUX_MANAGER: &str = "kustomize-controller";
const FLUX_NAME: &str = "kustomize.toolkit.fluxcd.io/name";
const FLUX_NAMESPACE: &str = "kustomize.toolkit.fluxcd.io/namespace";
/// The mark (label or annotation) with which Flux never prunes an object.
const FLUX_PRUNE: &str = "kustomize.toolkit.fluxcd.io/prune";

/// Where Flux puts a kind when it applies (fluxcd/pkg/ssa's
/// `ReconcileOrder`: these first, in this order; other kinds after them;
/// webhook configurations last). It deletes in the reverse order.
fn flux_rank(kind: &str) -> i32 {
    const FIRST: &[&str] = &[
        "CustomResourceDefinition",
        "Namespace",
        "ClusterClass",
        "RuntimeClass",
        "PriorityClass",
        "StorageClass",
        "VolumeSnapshotClass",
        "IngressClass",
        "GatewayClass",
        "ResourceQuota",
        "ServiceAccount",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ConfigMap",
        "Secret",
        "Service",
        "LimitRange",
        "Deployment",
        "StatefulSet",
        "CronJob",
        "PodDisruptionBudget",
    ];
    const LAST: &[&str] = &[
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    if let Some(i) = FIRST.iter().position(|k| *k == kind) {
        i as i32 - FIRST.len() as i32
    } else if let Some(i) = LAST.iter().position(|k| *k == kind) {
        i as i32 + 1
    } else {
        0
    }
}

/// The prune protections an object carries, by the tool that honours
/// each: Flux (`kustomize.toolkit.fluxcd.io/prune: disabled`), Argo CD
/// (`argocd.argoproj.io/sync-options` with `Prune=false` or
/// `Delete=false`), Helm (`helm.sh/resource-policy: keep`).
fn protections(object: &Json) -> Vec<&'static str> {
    let metadata = &object["metadata"];
    let mark = |key: &str| {
        metadata["annotations"][key]
            .as_str()
            .or_else(|| metadata["labels"][key].as_str())
    };
    let mut found = Vec::new();
    if mark(FLUX_PRUNE) == Some("disabled") {
        found.push("flux");
    }
    if mark("argocd.argoproj.io/sync-options").is_some_and(|options| {
        options
            .split(',')
            .any(|o| matches!(o.trim(), "Prune=false" | "Delete=false"))
    }) {
        found.push("argocd");
    }
    if mark("helm.sh/resource-policy") == Some("keep") {
        found.push("helm");
    }
    found
}

fn exists(server: &Server, args: &[&str]) -> bool {
    let mut all = vec!["get", "--ignore-not-found", "-o", "name"];
    all.extend(args);
    !server.kubectl_ok(&all, None).trim().is_empty()
}

/// Polls `done` every 100 ms until it holds, failing after
/// [`server::WAIT`] with `what`.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < server::WAIT,
            "{what}: not within {:?}",
            server::WAIT
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn can_i(server: &Server, verb: &str, resource: &str, account: &str, namespace: &str) -> bool {
    let output = server.kubectl(
        &[
            "auth", "can-i", verb, resource, "--as", account, "-n", namespace,
        ],
        None,
    );
    String::from_utf8_lossy(&output.stdout).trim() == "yes"
}

/// `out/ovh-prod/release` applied as Flux's kustomize-controller applies a
/// Kustomization (server-side, field manager `kustomize-controller`, its
/// two labels on every object), with what the cluster adds around it (the
/// ReplicaSets and Pods of the deployment controller, the Secret
/// cert-manager writes for each Certificate, a team's own BuildProjects
/// and a binding to the chart's ClusterRole in the team's namespace);
/// then the Kustomization deleted with `prune: true`: Flux deletes every
/// object of its inventory in the reverse of its apply order, skipping
/// those marked `kustomize.toolkit.fluxcd.io/prune: disabled`, and the
/// namespace controller, the CRD finalizer, the garbage collector and the
/// aggregation controller do the rest. What the cluster deleted and what
/// survived is asserted.
///
/// The chart marks the Namespaces and the BuildProject CRD for Flux
/// (`gitops.protect`, issue 23): they survive, and with them everything
/// Flux did not apply itself (cert-manager's Secrets, the team's
/// BuildProjects in any namespace). The release's own BuildProjects carry
/// Argo CD's `Delete=false` only and are deleted by Flux, as documented
/// (`docs/integrations.md`); so are the workloads, their Pods and the
/// chart's RBAC, and a binding elsewhere to the chart's ClusterRole
/// survives, naming a role that is gone. `tests/it/gitops_prune.rs` plays
/// Argo CD's rules too, without a server.
#[test]
fn cluster_a_flux_prune_of_the_release_deletes_what_the_cluster_says() {
    let Some(server) = server::server("cluster_a_flux_prune") else {
        return;
    };
    let _alone = server.exclusive();
    server.reset();
    server.apply_crds();
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("out/ovh-prod/release");
    let mut inventory = read(&[release]);
    for object in &mut inventory {
        let labels = &mut object["metadata"]["labels"];
        if !labels.is_object() {
            *labels = json!({});
        }
        labels[FLUX_NAME] = json!("buildkit-operator");
        labels[FLUX_NAMESPACE] = json!("flux-system");
    }
    let applied = server.apply_objects(&inventory, FLUX_MANAGER);
    assert!(applied.warnings.is_empty(), "{:?}", applied.warnings);

    // What the cluster makes around the release.
    let crd = inventory
        .iter()
        .find(|o| o["kind"] == "CustomResourceDefinition")
        .expect("the release holds the BuildProject CRD");
    let project = inventory
        .iter()
        .find(|o| o["kind"] == "BuildProject")
        .expect("the release holds BuildProjects");
    let builds = namespace_of(project).to_owned();
    let reader = inventory
        .iter()
        .find(|o| {
            o["kind"] == "ClusterRole"
                && o["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-view"] == "true"
        })
        .expect("the release aggregates a ClusterRole into view");
    let reader_name = name_of(reader).to_owned();
    let user_project = |name: &str, namespace: &str| {
        json!({
            "apiVersion": project["apiVersion"], "kind": "BuildProject",
            "metadata": {"name": name, "namespace": namespace},
            "spec": project["spec"],
        })
    };
    let certificates: Vec<&Json> = inventory
        .iter()
        .filter(|o| o["kind"] == "Certificate")
        .collect();
    let mut around = vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": "ci", "namespace": "team-a"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "ci-reads-projects", "namespace": "team-a"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": reader_name},
               "subjects": [{"kind": "ServiceAccount", "name": "ci", "namespace": "team-a"}]}),
        user_project("team-a-app", "team-a"),
        user_project("added-by-hand", &builds),
    ];
    for certificate in &certificates {
        // cert-manager's Secret for a Certificate: no owner reference
        // (its default, --enable-certificate-owner-ref=false).
        around.push(json!({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
            "metadata": {
                "name": certificate["spec"]["secretName"],
                "namespace": namespace_of(certificate),
                "annotations": {"cert-manager.io/certificate-name": name_of(certificate)},
            },
            "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"},
        }));
    }
    server.apply_objects(&around, "test-cluster");

    // The deployment controller's ReplicaSets and the ReplicaSet
    // controller's Pods (admitted by Pod Security: pending, no node).
    let deployments: Vec<&Json> = inventory
        .iter()
        .filter(|o| o["kind"] == "Deployment")
        .collect();
    assert!(!deployments.is_empty());
    for deployment in &deployments {
        let namespace = namespace_of(deployment);
        let name = name_of(deployment);
        eventually(
            &format!("the Pods of Deployment {namespace}/{name}"),
            || {
                let pods: Json = serde_json::from_str(
                    &server.kubectl_ok(&["get", "pods", "-n", namespace, "-o", "json"], None),
                )
                .unwrap();
                pods["items"].as_array().unwrap().iter().any(|pod| {
                    pod["metadata"]["ownerReferences"][0]["name"]
                        .as_str()
                        .is_some_and(|owner| owner.starts_with(&format!("{name}-")))
                })
            },
        );
    }
    server.wait_aggregated();
    let view_reads_projects = |server: &Server| {
        can_i(
            server,
            "list",
            "buildprojects.buildkit-operator.dev",
            "system:serviceaccount:team-a:ci",
            "team-a",
        )
    };
    assert!(
        view_reads_projects(&server),
        "the binding to {reader_name} grants"
    );
    let view: Json = serde_json::from_str(
        &server.kubectl_ok(&["get", "clusterrole", "view", "-o", "json"], None),
    )
    .unwrap();
    assert!(
        view["rules"].to_string().contains("buildprojects"),
        "view aggregates {reader_name}"
    );
    assert!(exists(
        &server,
        &["buildprojects", "-n", "team-a", "team-a-app"]
    ));

    // The prune: Flux's inventory in the reverse of its apply order.
    let mut order: Vec<&Json> = inventory.iter().collect();
    order.sort_by_key(|o| {
        (
            flux_rank(o["kind"].as_str().unwrap()),
            group_of(o).to_owned(),
            o["kind"].as_str().unwrap().to_owned(),
            namespace_of(o).to_owned(),
            name_of(o).to_owned(),
        )
    });
    order.reverse();
    let mut skipped = BTreeSet::new();
    let mut deleted = Vec::new();
    for object in &order {
        if protections(object).contains(&"flux") {
            skipped.insert(format!("{}/{}", namespace_of(object), reference(object)));
        } else {
            deleted.push((*object).clone());
        }
    }
    // One request list: kubectl deletes its items in their order.
    let list = json!({"apiVersion": "v1", "kind": "List", "items": deleted});
    server.kubectl_ok(
        &[
            "delete",
            "--cascade=background",
            "--wait=false",
            "--ignore-not-found",
            "-f",
            "-",
        ],
        Some(&list.to_string()),
    );
    let marked: BTreeSet<String> = inventory
        .iter()
        .filter(|o| protections(o).contains(&"flux"))
        .map(|o| format!("{}/{}", namespace_of(o), reference(o)))
        .collect();
    assert_eq!(
        marked, skipped,
        "what the chart marks for Flux is what Flux skipped"
    );
    let foundations: BTreeSet<String> = inventory
        .iter()
        .filter(|o| o["kind"] == "Namespace" || o["kind"] == "CustomResourceDefinition")
        .map(|o| format!("{}/{}", namespace_of(o), reference(o)))
        .collect();
    assert_eq!(
        skipped, foundations,
        "Flux keeps exactly the Namespaces and the CRD"
    );
    eprintln!(
        "prune: the chart protects {} objects from Flux: {marked:?}",
        marked.len()
    );

    // Were a Namespace or the CRD not kept, the namespace controller would
    // empty and delete it, the CRD finalizer every BuildProject: wait for
    // those (none, with the protection).
    let mut waits: Vec<String> = inventory
        .iter()
        .filter(|o| o["kind"] == "Namespace" || o["kind"] == "CustomResourceDefinition")
        .map(reference)
        .collect();
    waits.retain(|w| !skipped.iter().any(|s| s.ends_with(w.as_str())));
    if !waits.is_empty() {
        let mut args = vec!["wait", "--for=delete", "--timeout=60s"];
        args.extend(waits.iter().map(String::as_str));
        server.kubectl_ok(&args, None);
    }

    // Deleted: every object of the inventory but those protected (the
    // BuildProjects are checked below, with the team's).
    let crd_kinds: Vec<&str> = inventory
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .filter_map(|o| o["spec"]["names"]["kind"].as_str())
        .collect();
    let mappable: Vec<&Json> = inventory
        .iter()
        .filter(|o| !crd_kinds.contains(&o["kind"].as_str().unwrap_or_default()))
        .collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": mappable});
    let left = server.kubectl_ok(
        &["get", "--ignore-not-found", "-o", "json", "-f", "-"],
        Some(&list.to_string()),
    );
    let mut there = BTreeSet::new();
    for value in serde_json::Deserializer::from_str(&left).into_iter::<Json>() {
        let value = value.unwrap();
        let items = if value["kind"] == "List" {
            value["items"].as_array().unwrap().clone()
        } else {
            vec![value]
        };
        for item in items {
            there.insert(format!("{}/{}", namespace_of(&item), reference(&item)));
        }
    }
    let protected_mappable: BTreeSet<String> = skipped
        .iter()
        .filter(|id| {
            mappable
                .iter()
                .any(|o| **id == format!("{}/{}", namespace_of(o), reference(o)))
        })
        .cloned()
        .collect();
    assert_eq!(there, protected_mappable, "the inventory after the prune");
    // Survived: the namespaces, and in them what Flux did not apply
    // (cert-manager's Secrets); the CRD, and with it every BuildProject
    // Flux did not apply (the team's, in its namespace and added by hand
    // in the builds namespace), while the release's went with Flux.
    for namespace in inventory
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .map(name_of)
    {
        assert!(exists(&server, &["namespace", namespace]), "{namespace}");
    }
    for certificate in &certificates {
        let secret = certificate["spec"]["secretName"].as_str().unwrap();
        assert!(
            exists(
                &server,
                &["secret", "-n", namespace_of(certificate), secret]
            ),
            "cert-manager's Secret {secret} survives"
        );
    }
    assert!(exists(&server, &["crd", name_of(crd)]));
    let left: BTreeSet<String> = server
        .kubectl_ok(
            &[
                "get",
                "buildprojects",
                "-A",
                "-o",
                "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{\"\\n\"}{end}",
            ],
            None,
        )
        .lines()
        .map(str::to_owned)
        .collect();
    let expected: BTreeSet<String> = [
        "team-a/team-a-app".to_owned(),
        format!("{builds}/added-by-hand"),
    ]
    .into();
    assert_eq!(left, expected, "the BuildProjects left after the prune");

    // Survived: the team's namespace, its account and its binding, which
    // now names a ClusterRole that is gone and grants nothing; the
    // aggregation controller took the rule out of view; cert-manager's
    // CRDs (not the release's) are untouched.
    assert!(exists(&server, &["namespace", "team-a"]));
    assert!(exists(&server, &["serviceaccount", "-n", "team-a", "ci"]));
    assert!(exists(
        &server,
        &["rolebinding", "-n", "team-a", "ci-reads-projects"]
    ));
    assert!(!exists(&server, &["clusterrole", &reader_name]));
    server.wait_aggregated();
    let view: Json = serde_json::from_str(
        &server.kubectl_ok(&["get", "clusterrole", "view", "-o", "json"], None),
    )
    .unwrap();
    assert!(!view["rules"].to_string().contains("buildprojects"));
    assert!(!view_reads_projects(&server));
    assert!(exists(&server, &["crd", "certificates.cert-manager.io"]));
}

/// LIMITS says what the server's LimitRange admission says: for each
/// LimitRange item and daemon's resources below, the server is asked to
/// create a pod of one container with those resources (dry run) in a
/// namespace holding only that LimitRange, and `chartgen render` renders
/// one BuildProject with those resources beside the same LimitRange (the
/// chart's own turned off, no daemon defaults): refused (exit 1, LIMITS)
/// exactly when the server refuses.
#[test]
fn cluster_limit_ranges_refuse_the_daemons_limits_refuses() {
    let Some(server) = server::server("cluster_limit_ranges_refuse_the_daemons_limits_refuses")
    else {
        return;
    };
    let _alone = server.exclusive();
    server.reset();
    let ratio = json!({"type": "Container", "default": {"cpu": "2"}, "defaultRequest": {"cpu": "250m"}, "maxLimitRequestRatio": {"cpu": "4"}});
    let cases = [
        (ratio.clone(), json!({})),
        (ratio.clone(), json!({"limits": {"cpu": "2"}})),
        (ratio.clone(), json!({"requests": {"cpu": "1"}})),
        (ratio, json!({"requests": {"cpu": "250m"}})),
        (
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}),
            json!({"requests": {"cpu": "1"}}),
        ),
        (
            json!({"type": "Container", "max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "2"}}),
            json!({"requests": {"cpu": "0"}}),
        ),
        (
            json!({"type": "Container", "max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "2"}}),
            json!({"limits": {"cpu": "0"}}),
        ),
        (
            json!({"type": "Container", "max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "2"}}),
            json!({"requests": {"cpu": "1"}}),
        ),
        (
            json!({"type": "Container", "max": {"memory": "1Gi"}}),
            json!({"limits": {"memory": "2Gi"}}),
        ),
        (
            json!({"type": "Container", "max": {"memory": "16Gi"}}),
            json!({"requests": {"memory": "20Gi"}}),
        ),
        (
            json!({"type": "Container", "min": {"cpu": "500m"}}),
            json!({"requests": {"cpu": "250m"}}),
        ),
        (
            json!({"type": "Container", "min": {"memory": "1Gi"}, "default": {"memory": "2Gi"}}),
            json!({}),
        ),
        (
            json!({"type": "Container", "default": {"memory": "8Gi"}, "defaultRequest": {"memory": "2Gi"}, "maxLimitRequestRatio": {"memory": "2"}}),
            json!({}),
        ),
        (
            json!({"type": "Pod", "max": {"cpu": "2"}}),
            json!({"limits": {"cpu": "3"}}),
        ),
        (
            json!({"type": "Pod", "max": {"cpu": "2"}}),
            json!({"requests": {"cpu": "1"}}),
        ),
        (
            json!({"type": "Pod", "max": {"cpu": "2"}}),
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}),
        ),
        (
            json!({"type": "Pod", "min": {"memory": "1Gi"}}),
            json!({"requests": {"cpu": "1"}}),
        ),
        (
            json!({"type": "Pod", "maxLimitRequestRatio": {"cpu": "4"}}),
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "5"}}),
        ),
        // Bounds hold amounts rounded up to thousandths, or whole units.
        (
            json!({"type": "Container", "min": {"cpu": "1m"}}),
            json!({"requests": {"cpu": "100u"}}),
        ),
        (
            json!({"type": "Container", "min": {"cpu": "1001u"}}),
            json!({"requests": {"cpu": "100u"}}),
        ),
        (
            json!({"type": "Container", "max": {"cpu": "1500u"}}),
            json!({"limits": {"cpu": "1800u"}}),
        ),
        (
            json!({"type": "Pod", "min": {"cpu": "1500u"}, "max": {"cpu": "1500u"}}),
            json!({"requests": {"cpu": "1200u"}, "limits": {"cpu": "1800u"}}),
        ),
        (
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "1.5"}}),
            json!({"requests": {"cpu": "1500u"}, "limits": {"cpu": "3m"}}),
        ),
        (
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "2.9991"}}),
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}),
        ),
        (
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "2.999"}}),
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}),
        ),
        (
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "1"}}),
            json!({"requests": {"cpu": "1n"}, "limits": {"cpu": "1m"}}),
        ),
        (
            json!({"type": "Container", "max": {"memory": "10000000000000000500m"}}),
            json!({"limits": {"memory": "10000000000000000700m"}}),
        ),
        (
            json!({"type": "Container", "max": {"memory": "10000000000000000500m"}}),
            json!({"limits": {"memory": "10000000000000001100m"}}),
        ),
    ];
    // Each case: one LimitRange of one item, or (below) several
    // LimitRanges of several items, whose verdict does not depend on the
    // order the server takes the LimitRanges in.
    let one = |item: &Json| vec![vec![item.clone()]];
    let mut cases: Vec<(Vec<Vec<Json>>, Json)> = (cases.iter())
        .map(|(item, resources)| (one(item), resources.clone()))
        .collect();
    // (A LimitRange holds one item of each type: the server refuses a
    // second, "Duplicate value".)
    cases.extend([
        // What one LimitRange gives, another holds to its bounds.
        (
            vec![
                vec![json!({"type": "Container", "defaultRequest": {"memory": "512Mi"}})],
                vec![json!({"type": "Pod", "min": {"memory": "1Gi"}})],
            ],
            json!({}),
        ),
        (
            vec![
                vec![json!({"type": "Container", "default": {"cpu": "3"}})],
                vec![json!({"type": "Pod", "max": {"cpu": "2"}})],
            ],
            json!({}),
        ),
        // A resource the daemon does not set at all.
        (
            vec![vec![
                json!({"type": "Pod", "max": {"ephemeral-storage": "10Gi"}}),
            ]],
            json!({}),
        ),
        (
            vec![vec![
                json!({"type": "Container", "max": {"ephemeral-storage": "10Gi"}}),
            ]],
            json!({}),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    for (i, (items, resources)) in cases.iter().enumerate() {
        let item = serde_json::to_string(items).unwrap();
        let namespace = format!("limits-{i}");
        server.kubectl_ok(&["create", "namespace", &namespace], None);
        let ranges = |namespace: &str| -> Vec<Json> {
            (items.iter().enumerate())
                .map(|(j, limits)| {
                    json!({"apiVersion": "v1", "kind": "LimitRange",
                           "metadata": {"name": format!("daemons-{j}"), "namespace": namespace},
                           "spec": {"limits": limits}})
                })
                .collect()
        };
        for range in ranges(&namespace) {
            server.kubectl_ok(&["create", "-f", "-"], Some(&range.to_string()));
        }
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "daemon", "namespace": namespace},
            "spec": {"containers": [{
                "name": "buildkitd", "image": "registry.example/probe:1",
                "resources": resources,
            }]},
        });
        let (admitted, said, _) = dry_run(&server, &[pod]);
        let server_admits = admitted.iter().any(|name| name == "daemon");
        let values = dir.path().join(format!("limits-{i}.yaml"));
        let text = json!({
            "builds": {
                "limitRange": {"enabled": false},
                "daemonResources": {"requests": {"cpu": null, "memory": null}, "limits": {"memory": null}},
            },
            "projects": [{"name": "p", "repository": "https://git.example.com/p.git", "trusted": true, "resources": resources}],
            "extraObjects": ranges("buildkit-builds"),
        });
        std::fs::write(&values, text.to_string()).unwrap();
        let run = crate::harness::chartgen(&["render", "-f", values.to_str().unwrap()]);
        let refused = run.code == 1 && run.stderr.starts_with("LIMITS ");
        assert!(run.code == 0 || refused, "case {i}: {}", run.stderr);
        assert_eq!(
            !refused, server_admits,
            "case {i}: {item} with {resources}: the server said {said:?}, chartgen {:?}",
            run.stderr
        );
    }
}
