//! `rbac` against the RBAC authorizer of a real kube-apiserver
//! (tests/fixtures/k8s-truth/rbac/README.md): for every recorded
//! (set, ServiceAccount, namespace), chartgen's effective permissions
//! are the server's `kubectl auth can-i --list`, tuple for tuple. The
//! library is asked directly (no process per case).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubernetes::rbac::resolve::{Cluster, Permissions, Scope, permissions_with};

use kubernetes::rbac::defaults;
use serde_json::Value as Json;

/// (apiGroup, resource[/subresource], resourceName or none, verb).
pub(crate) type Tuple = (String, String, Option<String>, String);
/// (non-resource URL, verb).
pub(crate) type UrlTuple = (String, String);

/// The version of the recorded server: its default roles are 1.28's.
const SERVER: defaults::Version = (1, 28);

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/k8s-truth/rbac")
}

fn truth() -> Vec<Json> {
    std::fs::read_to_string(root().join("truth.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The objects of a recorded set, read as `chartgen rbac` reads them:
/// `sets/` holds the sets of the shared corpus, `generated/` those
/// `tests/it/cluster_rbac.rs` generated and recorded.
pub(crate) fn objects(set: &str) -> Vec<Json> {
    let paths = set_paths(set);
    let read = kubernetes::input::read(&paths, &chart::artifacts::READ).unwrap();
    read.manifests.iter().map(|m| m.node().to_json()).collect()
}

/// The files of a recorded set: `sets/NAME.yaml`, `generated/NAME.yaml`,
/// or the bundles of a render (`sets/ovh-prod/`: its `release` and `kata`).
pub(crate) fn set_paths(set: &str) -> Vec<String> {
    let root = root();
    let render = root.join("sets").join(set);
    if render.is_dir() {
        let mut bundles: Vec<String> = std::fs::read_dir(&render)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("kustomization.yaml").is_file())
            .map(|p| p.display().to_string())
            .collect();
        bundles.sort();
        return bundles;
    }
    let file = format!("{set}.yaml");
    let path = ["sets", "generated"]
        .iter()
        .map(|dir| root.join(dir).join(&file))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no recorded set {set}"));
    vec![path.display().to_string()]
}

pub(crate) fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(str::to_owned)
        .collect()
}

/// The server's answer, as tuples.
pub(crate) fn server_tuples(ssrr: &Json) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>) {
    let mut resources = BTreeSet::new();
    for rule in ssrr["resourceRules"].as_array().into_iter().flatten() {
        let names = strings(&rule["resourceNames"]);
        let names: Vec<Option<String>> = if names.is_empty() {
            vec![None]
        } else {
            names.into_iter().map(Some).collect()
        };
        for group in strings(&rule["apiGroups"]) {
            for resource in strings(&rule["resources"]) {
                for name in &names {
                    for verb in strings(&rule["verbs"]) {
                        resources.insert((group.clone(), resource.clone(), name.clone(), verb));
                    }
                }
            }
        }
    }
    let mut urls = BTreeSet::new();
    for rule in ssrr["nonResourceRules"].as_array().into_iter().flatten() {
        for url in strings(&rule["nonResourceURLs"]) {
            for verb in strings(&rule["verbs"]) {
                urls.insert((url.clone(), verb));
            }
        }
    }
    (resources, urls)
}

/// chartgen's answer for the account in `namespace`: what it holds
/// cluster-wide and there, as tuples.
pub(crate) fn chartgen_tuples(
    held: &Permissions,
    namespace: &str,
) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>) {
    let mut resources = BTreeSet::new();
    for p in &held.permissions {
        let applies = match &p.scope {
            Scope::Cluster => true,
            Scope::Namespace(ns) => ns == namespace,
        };
        if !applies {
            continue;
        }
        // `resource.group`, the group given apart: a rule's resource may
        // hold a dot.
        let group = p.group.as_str();
        let resource = match group {
            "" => p.resource.as_str(),
            _ => p.resource.strip_suffix(&format!(".{group}")).unwrap(),
        };
        let names: Vec<Option<String>> = if p.resource_names.is_empty() {
            vec![None]
        } else {
            p.resource_names.iter().cloned().map(Some).collect()
        };
        for name in &names {
            for verb in &p.verbs {
                resources.insert((
                    group.to_owned(),
                    resource.to_owned(),
                    name.clone(),
                    verb.clone(),
                ));
            }
        }
    }
    // `can-i --list -n` also lists the non-resource URLs of a ClusterRole
    // bound by a RoleBinding there (which the authorizer never allows).
    let urls = held
        .non_resource
        .iter()
        .filter(|p| match &p.scope {
            Scope::Cluster => true,
            Scope::Namespace(ns) => ns == namespace,
        })
        .flat_map(|p| p.verbs.iter().map(|v| (p.url.clone(), v.clone())))
        .collect();
    (resources, urls)
}

pub(crate) fn account_of<'a>(all: &'a [Permissions], sa: &str) -> Option<&'a Permissions> {
    let (namespace, name) = sa.split_once('/').unwrap();
    // Names no ServiceAccount can have are the user of that name.
    let user = format!("system:serviceaccount:{namespace}:{name}");
    let found = all.iter().find(|p| {
        p.subject.kind == "ServiceAccount"
            && p.subject.namespace.as_deref() == Some(namespace)
            && p.subject.name == name
    });
    found.or_else(|| {
        all.iter()
            .find(|p| p.subject.kind == "User" && p.subject.name == user)
    })
}

/// Where chartgen's model of `version` and the server disagree on one
/// recorded line: the account ("set sa in namespace"), then what only the
/// server grants and what only chartgen grants.
pub(crate) struct Disagreement {
    pub(crate) account: String,
    pub(crate) server: BTreeSet<Tuple>,
    pub(crate) server_urls: BTreeSet<UrlTuple>,
    pub(crate) ours: BTreeSet<Tuple>,
    pub(crate) our_urls: BTreeSet<UrlTuple>,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:\n  only the server: {:?} {:?}\n  only chartgen: {:?} {:?}",
            self.account, self.server, self.server_urls, self.ours, self.our_urls
        )
    }
}

/// Every recorded line that disagrees with chartgen's model of `version`.
fn disagreements(version: defaults::Version) -> Vec<Disagreement> {
    disagreements_in(&truth(), version)
}

/// Every line of `lines` (the layout of truth.jsonl) that disagrees with
/// chartgen's model of `version`.
pub(crate) fn disagreements_in(lines: &[Json], version: defaults::Version) -> Vec<Disagreement> {
    let mut wrong = Vec::new();
    let mut cache: Vec<(String, Vec<Permissions>)> = Vec::new();
    for line in lines {
        let set = line["set"].as_str().unwrap();
        if !cache.iter().any(|(s, _)| s == set) {
            let all = permissions_with(&objects(set), Cluster::RolesAndBindings, version).unwrap();
            cache.push((set.to_owned(), all));
        }
        let all = &cache.iter().find(|(s, _)| s == set).unwrap().1;
        let sa = line["sa"].as_str().unwrap();
        let namespace = line["namespace"].as_str().unwrap();
        let account = format!("{set} {sa} in {namespace}");
        let (server, server_urls) = server_tuples(&line["ssrr"]);
        let (ours, our_urls) = match account_of(all, sa) {
            Some(held) => chartgen_tuples(held, namespace),
            None => Default::default(),
        };
        if server != ours || server_urls != our_urls {
            wrong.push(Disagreement {
                account,
                server: server.difference(&ours).cloned().collect(),
                server_urls: server_urls.difference(&our_urls).cloned().collect(),
                ours: ours.difference(&server).cloned().collect(),
                our_urls: our_urls.difference(&server_urls).cloned().collect(),
            });
        }
    }
    wrong
}

/// Fails with every disagreement listed, out of `total` recorded lines.
pub(crate) fn assert_none_disagree(wrong: &[Disagreement], total: usize) {
    assert!(
        wrong.is_empty(),
        "{} of {total} disagree:\n{}",
        wrong.len(),
        wrong
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_recorded_account_holds_what_the_server_answered() {
    let lines = truth();
    assert_eq!(lines.len(), 139, "the recorded corpus changed");
    let wrong = disagreements(SERVER);
    assert_none_disagree(&wrong, lines.len());
}

/// What any account may do on a fresh cluster (self-reviews, discovery)
/// comes from the default roles and bindings, not from a list subtracted.
#[test]
fn the_baseline_is_what_the_default_bindings_give_every_account() {
    let baseline: Json =
        serde_json::from_str(&std::fs::read_to_string(root().join("baseline.json")).unwrap())
            .unwrap();
    let lone = serde_json::json!({
        "apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": { "name": "nobody", "namespace": "k8s-truth-probe" },
    });
    let all = permissions_with(&[lone], Cluster::RolesAndBindings, SERVER).unwrap();
    let held = account_of(&all, "k8s-truth-probe/nobody").unwrap();
    assert_eq!(
        chartgen_tuples(held, "k8s-truth-probe"),
        server_tuples(&baseline["ssrr"])
    );
}

/// The versions chartgen targets differ from the recorded 1.28 server
/// exactly where Kubernetes changed its bootstrap policy (the published
/// `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/` of the
/// module k8s.io/kubernetes at each release): which recorded accounts
/// differ, and on which (group, resource) each side alone grants.
#[test]
fn the_targeted_versions_differ_from_the_server_where_kubernetes_changed_the_defaults() {
    type Resource = (&'static str, &'static str);
    // Gone after 1.28 (v1.30.0): node-controller's clustercidrs rule
    // (v1.29.0 is its last release).
    let gone: &[Resource] = &[("networking.k8s.io", "clustercidrs")];
    // New in 1.33 (all in v1.33.0), seen by h05, whose aggregated role
    // gathers every ClusterRole: legacy-service-account-token-cleaner's
    // configmap (v1.29.0); validatingadmissionpolicy-status-controller
    // (v1.30.0); leasecandidates and list/watch on the kube-scheduler
    // lease for system:kube-scheduler (v1.31.0); nodes/configz, healthz,
    // pods for system:kubelet-api-admin, watch for the
    // horizontal-pod-autoscaler's metrics, service-cidrs-controller
    // (v1.33.0).
    let new_in_1_33: &[Resource] = &[
        ("", "configmaps"),
        ("", "nodes/configz"),
        ("", "nodes/healthz"),
        ("", "nodes/pods"),
        (
            "admissionregistration.k8s.io",
            "validatingadmissionpolicies",
        ),
        (
            "admissionregistration.k8s.io",
            "validatingadmissionpolicies/status",
        ),
        ("coordination.k8s.io", "leasecandidates"),
        ("coordination.k8s.io", "leases"),
        ("custom.metrics.k8s.io", "*"),
        ("external.metrics.k8s.io", "*"),
        ("metrics.k8s.io", "pods"),
        ("networking.k8s.io", "ipaddresses"),
        ("networking.k8s.io", "servicecidrs"),
        ("networking.k8s.io", "servicecidrs/finalizers"),
        ("networking.k8s.io", "servicecidrs/status"),
    ];
    // New in 1.35 besides (v1.35.0): nodes/metrics for system:monitoring,
    // resource.k8s.io for view, edit, the scheduler, the kubelet and
    // resource-claim-controller, volumeattributesclass-protection-controller
    // (v1.34.0); events.k8s.io events for view and edit (v1.35.0). So the
    // accounts bound to view (h13) and edit (h27) differ too.
    let new_in_1_35: &[Resource] = &[
        ("", "nodes/metrics"),
        ("events.k8s.io", "events"),
        ("resource.k8s.io", "deviceclasses"),
        ("resource.k8s.io", "resourceclaims"),
        ("resource.k8s.io", "resourceclaims/status"),
        ("resource.k8s.io", "resourceclaimtemplates"),
        ("resource.k8s.io", "resourceslices"),
        ("storage.k8s.io", "volumeattributesclasses"),
    ];
    let h05 = "h05-aggregated-empty-selector rbac-h05/sa in rbac-h05";
    let h27 = |ns: &str| format!("h27-builtin-edit-cluster-wide rbac-h27/sa in {ns}");
    let accounts_1_35: Vec<String> = [
        h05.to_owned(),
        "h13-rolebinding-to-builtin-view rbac-h13/sa in rbac-h13".to_owned(),
        h27("default"),
        h27("k8s-truth-bystander"),
        h27("k8s-truth-probe"),
        h27("rbac-h27"),
    ]
    .into();
    let all_1_35: Vec<Resource> = new_in_1_33.iter().chain(new_in_1_35).copied().collect();
    let cases: [(defaults::Version, Vec<String>, &[Resource]); 2] = [
        ((1, 33), vec![h05.to_owned()], new_in_1_33),
        ((1, 35), accounts_1_35, &all_1_35),
    ];
    let resources = |tuples: &BTreeSet<Tuple>| -> BTreeSet<(String, String)> {
        tuples
            .iter()
            .map(|(group, resource, _, _)| (group.clone(), resource.clone()))
            .collect()
    };
    let owned = |list: &[Resource]| -> BTreeSet<(String, String)> {
        list.iter()
            .map(|(g, r)| ((*g).to_owned(), (*r).to_owned()))
            .collect()
    };
    for (version, accounts, new) in cases {
        let wrong = disagreements(version);
        let found: Vec<&str> = wrong.iter().map(|d| d.account.as_str()).collect();
        assert_eq!(found, accounts, "{version:?}");
        let (mut only_server, mut only_ours) = (BTreeSet::new(), BTreeSet::new());
        for d in &wrong {
            assert!(d.server_urls.is_empty() && d.our_urls.is_empty(), "{d}");
            only_server.extend(resources(&d.server));
            only_ours.extend(resources(&d.ours));
        }
        assert_eq!(only_server, owned(gone), "{version:?}");
        assert_eq!(only_ours, owned(new), "{version:?}");
    }
}

/// `check` reads the same model: a binding to a default role (`view`,
/// `edit`) is known, not a ROLE finding; only a binding to an aggregated
/// ClusterRole of the input still is (other applications' ClusterRoles in
/// the cluster can match its selectors).
#[test]
fn check_knows_the_default_roles_the_recorded_sets_bind() {
    let sets = root().join("sets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&sets)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 14);
    for file in files {
        let run = crate::harness::chartgen(&["check", "--output", "json", file.to_str().unwrap()]);
        assert_ne!(run.code, 2, "{}", run.stderr);
        let report: Json = serde_json::from_str(&run.stdout).unwrap();
        let roles: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["invariant"] == "ROLE")
            .filter_map(|f| f["message"].as_str())
            .collect();
        let name = file.file_name().unwrap().to_str().unwrap();
        let aggregated = ["h01-", "h03-", "h05-"].iter().any(|p| name.starts_with(p));
        if aggregated {
            assert_eq!(roles.len(), 1, "{name}: {roles:?}");
            assert!(
                roles[0].contains("aggregates every ClusterRole"),
                "{name}: {roles:?}"
            );
        } else {
            assert!(roles.is_empty(), "{name}: {roles:?}");
        }
    }
}

/// `--kube-version` selects the release whose default roles `rbac`,
/// `check` and `diff` read: `view` and `edit` gained resource.k8s.io's
/// claims in v1.34.0 and events.k8s.io's events in v1.35.0, and
/// resource-claim-controller's role is new in v1.34.0 (the bootstrap
/// policy of k8s.io/kubernetes at each release).
#[test]
fn the_kube_version_selects_the_default_roles_rbac_check_and_diff_read() {
    let account = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: app}\n";
    let binding = |role: &str| {
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n\
             metadata: {{name: sa-{role}, namespace: app}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: '{role}'}}\n\
             subjects: [{{kind: ServiceAccount, name: sa, namespace: app}}]\n"
        )
    };
    let run = |args: &[&str], input: &str| {
        let run = crate::harness::chartgen_with_stdin(args, Some(input));
        assert_ne!(run.code, 2, "{args:?}: {}", run.stderr);
        run.stdout
    };

    let viewer = format!("{account}{}", binding("view"));
    for (version, claims) in [("1.33", false), ("1.35", true)] {
        let out = run(
            &["rbac", "--output", "json", "--kube-version", version, "-"],
            &viewer,
        );
        assert_eq!(
            out.contains("resourceclaims"),
            claims,
            "rbac {version}:\n{out}"
        );
    }
    // Without --kube-version: the default release (1.35).
    assert!(run(&["rbac", "-"], &viewer).contains("resourceclaims"));

    let claimer = format!(
        "{account}{}",
        binding("system:controller:resource-claim-controller")
    );
    for (version, unknown) in [("1.33", true), ("1.35", false)] {
        let out = run(
            &["check", "--output", "json", "--kube-version", version, "-"],
            &claimer,
        );
        let report: Json = serde_json::from_str(&out).unwrap();
        let role = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["invariant"] == "ROLE");
        assert_eq!(role, unknown, "check {version}:\n{out}");
    }

    let tmp = tempfile::tempdir().unwrap();

    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, account).unwrap();
    let editor = format!("{account}{}", binding("edit"));
    for (version, events) in [("1.33", false), ("1.35", true)] {
        let out = run(
            &[
                "diff",
                "--kube-version",
                version,
                old.to_str().unwrap(),
                "-",
            ],
            &editor,
        );
        assert_eq!(
            out.contains("events.events.k8s.io"),
            events,
            "diff {version}:\n{out}"
        );
        assert!(out.contains("gains"), "diff {version}:\n{out}");
    }
}
