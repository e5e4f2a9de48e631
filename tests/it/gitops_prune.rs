//! The release app deleted, in a simulated GitOps prune: what Argo CD and
//! Flux would delete by their documented rules, and what the cluster then
//! deletes with it (a deleted Namespace takes everything in it, a deleted
//! CRD every custom resource of its kind). No server: the live version of
//! the Flux case is `cluster_apply::cluster_a_flux_prune_…`.
//!
//! The tools' rules, written here from their documentation, not from
//! chartgen's code, so a wrong mark fails:
//! - Argo CD, Application deleted (cascade): every resource but those
//!   with the sync option `Delete=false` ("No Resource Deletion");
//! - Argo CD, resources gone from the source (a bad merge, an emptied
//!   render): every resource but those with `Prune=false` ("No Prune
//!   Resources"); options comma-separated in
//!   `argocd.argoproj.io/sync-options`, white space trimmed;
//! - Flux, Kustomization deleted with `prune: true` (`deletionPolicy`
//!   `MirrorPrune`, the default) or objects gone from the source: every
//!   object of the inventory but those labelled or annotated
//!   `kustomize.toolkit.fluxcd.io/prune: disabled` (compared ignoring
//!   case).

use std::collections::BTreeSet;
use std::path::PathBuf;

use chart::{pipeline, values};
use serde_json::{Value as Json, json};

use crate::cluster_apply::{environments, read};

#[derive(Clone, Copy, Debug)]
enum Event {
    ArgoAppDeleted,
    ArgoPruned,
    FluxKustomizationDeleted,
}

const EVENTS: [Event; 3] = [
    Event::ArgoAppDeleted,
    Event::ArgoPruned,
    Event::FluxKustomizationDeleted,
];

fn mark<'a>(object: &'a Json, key: &str) -> Option<&'a str> {
    let metadata = &object["metadata"];
    metadata["annotations"][key]
        .as_str()
        .or_else(|| metadata["labels"][key].as_str())
}

fn argo_option(object: &Json, option: &str) -> bool {
    object["metadata"]["annotations"]["argocd.argoproj.io/sync-options"]
        .as_str()
        .is_some_and(|v| v.split(',').any(|o| o.trim() == option))
}

/// Whether the tool deletes `object` of its inventory on `event`.
fn tool_deletes(event: Event, object: &Json) -> bool {
    match event {
        Event::ArgoAppDeleted => !argo_option(object, "Delete=false"),
        Event::ArgoPruned => !argo_option(object, "Prune=false"),
        Event::FluxKustomizationDeleted => !mark(object, "kustomize.toolkit.fluxcd.io/prune")
            .is_some_and(|v| v.eq_ignore_ascii_case("disabled")),
    }
}

fn id(object: &Json) -> String {
    format!(
        "{}/{}/{}",
        object["metadata"]["namespace"].as_str().unwrap_or(""),
        object["kind"].as_str().unwrap_or(""),
        object["metadata"]["name"].as_str().unwrap_or("")
    )
}

fn group_of(object: &Json) -> &str {
    let api = object["apiVersion"].as_str().unwrap_or_default();
    api.rsplit_once('/').map_or("", |(group, _)| group)
}

/// What the cluster holds beside the bundle's objects: cert-manager's
/// Secret of each Certificate (no owner reference, its default), a team's
/// BuildProject in its own namespace and one added by hand in the builds
/// namespace.
fn around(inventory: &[Json]) -> Vec<Json> {
    let mut around = Vec::new();
    for certificate in inventory.iter().filter(|o| o["kind"] == "Certificate") {
        around.push(json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": certificate["spec"]["secretName"],
                "namespace": certificate["metadata"]["namespace"],
            },
        }));
    }
    if let Some(project) = inventory.iter().find(|o| o["kind"] == "BuildProject") {
        around
            .push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}));
        for (name, namespace) in [
            ("team-a-app", "team-a"),
            (
                "added-by-hand",
                project["metadata"]["namespace"].as_str().unwrap(),
            ),
        ] {
            around.push(json!({
                "apiVersion": project["apiVersion"], "kind": "BuildProject",
                "metadata": {"name": name, "namespace": namespace},
                "spec": project["spec"],
            }));
        }
    }
    around
}

/// What survives `event` on a cluster holding `inventory` (the tool's
/// objects) and `around`: the tool deletes by its rule, then the namespace
/// controller and the CRD finalizer delete what lived in what went.
fn survivors(event: Event, inventory: &[Json], around: &[Json]) -> BTreeSet<String> {
    let deleted: Vec<&Json> = inventory
        .iter()
        .filter(|o| tool_deletes(event, o))
        .collect();
    let gone_namespaces: BTreeSet<&str> = deleted
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    let gone_kinds: BTreeSet<(&str, &str)> = deleted
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .filter_map(|o| {
            Some((
                o["spec"]["group"].as_str()?,
                o["spec"]["names"]["kind"].as_str()?,
            ))
        })
        .collect();
    let deleted: BTreeSet<String> = deleted.iter().map(|o| id(o)).collect();
    inventory
        .iter()
        .chain(around)
        .filter(|o| !deleted.contains(&id(o)))
        .filter(|o| {
            !o["metadata"]["namespace"]
                .as_str()
                .is_some_and(|ns| gone_namespaces.contains(ns))
        })
        .filter(|o| {
            let kind = o["kind"].as_str().unwrap_or_default();
            !gone_kinds.contains(&(group_of(o), kind))
        })
        .map(id)
        .collect()
}

/// The stateful objects that must survive `event`: every Namespace and
/// CRD, every Secret, the team's BuildProjects; and on an Argo CD
/// Application's deletion every BuildProject (the release's are marked
/// `Delete=false`). A Flux Kustomization deleted with the default policy
/// deletes the release's BuildProjects (Flux has no mark that keeps an
/// object on deletion but not on prune; `deletionPolicy: Orphan` keeps
/// the whole bundle); a prune deletes them, as a project dropped from the
/// values must go.
fn must_survive(event: Event, inventory: &[Json], around: &[Json]) -> BTreeSet<String> {
    let release_project =
        |o: &Json| o["kind"] == "BuildProject" && inventory.iter().any(|i| id(i) == id(o));
    inventory
        .iter()
        .chain(around)
        .filter(|o| match o["kind"].as_str().unwrap_or_default() {
            "Namespace" | "CustomResourceDefinition" | "Secret" => true,
            "BuildProject" => !release_project(o) || matches!(event, Event::ArgoAppDeleted),
            _ => false,
        })
        .map(id)
        .collect()
}

fn lost(event: Event, inventory: &[Json]) -> Vec<String> {
    let around = around(inventory);
    let survived = survivors(event, inventory, &around);
    must_survive(event, inventory, &around)
        .difference(&survived)
        .cloned()
        .collect()
}

/// Every committed bundle of every environment: nothing stateful goes
/// when its app is deleted or its render pruned, in Argo CD or Flux; and
/// what the tool may delete (workloads, RBAC, Services) does go.
#[test]
fn deleting_the_app_deletes_nothing_stateful_in_argo_cd_or_flux() {
    let mut foundations = 0;
    for (env, bundles) in environments() {
        for bundle in bundles {
            let at = format!("{env}/{}", bundle.file_name().unwrap().to_string_lossy());
            let inventory = read(&[bundle]);
            foundations += inventory
                .iter()
                .filter(|o| o["kind"] == "Namespace" || o["kind"] == "CustomResourceDefinition")
                .count();
            for event in EVENTS {
                assert_eq!(
                    lost(event, &inventory),
                    Vec::<String>::new(),
                    "{at}: {event:?}"
                );
                // The protection is not everything: the workloads go.
                let survived = survivors(event, &inventory, &around(&inventory));
                for workload in inventory
                    .iter()
                    .filter(|o| matches!(o["kind"].as_str(), Some("Deployment" | "DaemonSet")))
                {
                    assert!(
                        !survived.contains(&id(workload)),
                        "{at}: {event:?} keeps {}",
                        id(workload)
                    );
                }
            }
        }
    }
    assert!(
        foundations >= 5,
        "the bundles hold the Namespaces and the CRD"
    );
}

/// `gitops.protect: false`: the same events delete the namespaces, the
/// CRD and with them the Secrets and every BuildProject (the test above
/// can fail).
#[test]
fn without_protection_deleting_the_app_deletes_the_data() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut loaded = values::load(&values::Inputs {
        files: vec![
            root.join("values/common.yaml"),
            root.join("values/ovh-prod.yaml"),
        ],
        sets: Vec::new(),
    })
    .unwrap();
    loaded.values.gitops.protect = false;
    let output = pipeline::render(&loaded.values).unwrap();
    let inventory: Vec<Json> = output.release.iter().map(|m| m.node().to_json()).collect();
    for event in EVENTS {
        let lost = lost(event, &inventory);
        for kind in [
            "Namespace",
            "CustomResourceDefinition",
            "Secret",
            "BuildProject",
        ] {
            assert!(
                lost.iter().any(|l| l.contains(&format!("/{kind}/"))),
                "{event:?}: {kind} lost without protection: {lost:?}"
            );
        }
    }
}
