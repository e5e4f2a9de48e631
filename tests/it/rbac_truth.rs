//! `rbac` against the RBAC authorizer of a real kube-apiserver
//! (tests/fixtures/k8s-truth/rbac/README.md): for every recorded
//! (set, ServiceAccount, namespace), chartgen's effective permissions
//! are the server's `kubectl auth can-i --list`, tuple for tuple. The
//! library is asked directly (no process per case).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chartgen::rbac::{Cluster, Permissions, Scope, defaults, permissions_with};
use serde_json::Value as Json;

/// (apiGroup, resource[/subresource], resourceName or none, verb).
type Tuple = (String, String, Option<String>, String);
/// (non-resource URL, verb).
type UrlTuple = (String, String);

/// The version of the recorded server: its default roles are 1.28's.
const SERVER: defaults::Version = (1, 28);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/k8s-truth/rbac")
}

fn truth() -> Vec<Json> {
    std::fs::read_to_string(root().join("truth.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The objects of a recorded set, read as `chartgen rbac` reads them.
fn objects(set: &str) -> Vec<Json> {
    let sets = root().join("sets");
    let paths: Vec<String> = if set == "ovh-prod" {
        ["release", "kata"]
            .iter()
            .map(|d| sets.join("ovh-prod").join(d).display().to_string())
            .collect()
    } else {
        vec![sets.join(format!("{set}.yaml")).display().to_string()]
    };
    let read = chartgen::input::read(&paths).unwrap();
    read.manifests.iter().map(|m| m.node.to_json()).collect()
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(str::to_owned)
        .collect()
}

/// The server's answer, as tuples.
fn server_tuples(ssrr: &Json) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>) {
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
fn chartgen_tuples(held: &Permissions, namespace: &str) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>) {
    let mut resources = BTreeSet::new();
    for p in &held.permissions {
        let applies = match &p.scope {
            Scope::Cluster => true,
            Scope::Namespace(ns) => ns == namespace,
        };
        if !applies {
            continue;
        }
        // `resource.group`: a resource's name holds no dot.
        let (resource, group) = p.resource.split_once('.').unwrap_or((&p.resource, ""));
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

fn account<'a>(all: &'a [Permissions], sa: &str) -> Option<&'a Permissions> {
    let (namespace, name) = sa.split_once('/').unwrap();
    all.iter().find(|p| {
        p.subject.kind == "ServiceAccount"
            && p.subject.namespace.as_deref() == Some(namespace)
            && p.subject.name == name
    })
}

/// Every recorded line that disagrees with chartgen's model of `version`,
/// each with what differs.
fn disagreements(version: defaults::Version) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut cache: Vec<(String, Vec<Permissions>)> = Vec::new();
    for line in truth() {
        let set = line["set"].as_str().unwrap();
        if !cache.iter().any(|(s, _)| s == set) {
            let all = permissions_with(&objects(set), Cluster::RolesAndBindings, version).unwrap();
            cache.push((set.to_owned(), all));
        }
        let all = &cache.iter().find(|(s, _)| s == set).unwrap().1;
        let sa = line["sa"].as_str().unwrap();
        let namespace = line["namespace"].as_str().unwrap();
        let Some(held) = account(all, sa) else {
            wrong.push(format!("{set} {sa}: not listed by rbac"));
            continue;
        };
        let (server, server_urls) = server_tuples(&line["ssrr"]);
        let (ours, our_urls) = chartgen_tuples(held, namespace);
        if server != ours || server_urls != our_urls {
            wrong.push(format!(
                "{set} {sa} in {namespace}:\n  only the server: {:?} {:?}\n  only chartgen: {:?} {:?}",
                server.difference(&ours).collect::<Vec<_>>(),
                server_urls.difference(&our_urls).collect::<Vec<_>>(),
                ours.difference(&server).collect::<Vec<_>>(),
                our_urls.difference(&server_urls).collect::<Vec<_>>(),
            ));
        }
    }
    wrong
}

#[test]
fn every_recorded_account_holds_what_the_server_answered() {
    let lines = truth();
    assert_eq!(lines.len(), 139, "the recorded corpus changed");
    let wrong = disagreements(SERVER);
    assert!(
        wrong.is_empty(),
        "{} of {} disagree:\n{}",
        wrong.len(),
        lines.len(),
        wrong.join("\n")
    );
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
    let held = account(&all, "k8s-truth-probe/nobody").unwrap();
    assert_eq!(
        chartgen_tuples(held, "k8s-truth-probe"),
        server_tuples(&baseline["ssrr"])
    );
}

/// The targeted versions' default roles differ from 1.28's only where the
/// table says so (`since:`/`until:` in src/kubernetes/rbac/defaults.txt):
/// a controller's role added in 1.30 and 1.33, one of 1.28 dropped in 1.29.
/// Only the set whose aggregated role gathers every ClusterRole of the
/// cluster (h05) sees them.
#[test]
fn the_targeted_version_differs_only_where_the_table_says() {
    let wrong = disagreements(defaults::TARGET);
    assert!(!wrong.is_empty());
    for line in &wrong {
        assert!(
            line.starts_with("h05-aggregated-empty-selector rbac-h05/sa in rbac-h05:"),
            "{line}"
        );
        assert!(
            line.contains("clustercidrs")
                && line.contains("legacy-service-account-token-tracking")
                && line.contains("validatingadmissionpolicies")
                && line.contains("servicecidrs"),
            "{line}"
        );
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
