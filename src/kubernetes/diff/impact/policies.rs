//! Admission and network policy, before and after: what is enforced less,
//! or for fewer objects, is `security`.
//!
//! - Pod Security: a Namespace's `pod-security.kubernetes.io/enforce`
//!   level and `enforce-version`, read as the admission reads them
//!   ([`pod_security::Policy`]); a lower level, a label dropped (the
//!   cluster's default applies, `privileged` unless configured), or the
//!   same level pinned to the rules of an older Kubernetes (for a server
//!   of a version chartgen targets) is weaker.
//! - Kyverno `ClusterPolicy`/`Policy`, rule by rule: a rule's action is its
//!   `validate.failureAction`, else the policy's `validationFailureAction`
//!   (`Audit` when unset); a rule that enforced and no longer does (or is
//!   gone, or its policy deleted), a new `Audit` entry of
//!   `validationFailureActionOverrides` (or of a rule's
//!   `validate.failureActionOverrides`), an `exclude` that gains anything,
//!   a `match` that loses anything or gains a constraint it had not.
//! - NetworkPolicy: removed (the pods it selected are no longer isolated
//!   by it); a policy type dropped; a `podSelector` that loses or gains a
//!   constraint (other pods, perhaps fewer, are isolated); an ingress or
//!   egress rule that was not there before (a new or changed rule admits
//!   what the old ones did not, unless it is narrower: chartgen does not
//!   prove it is).
//! - A PersistentVolume with a `hostPath` bound to a claim (its
//!   `claimRef`, or the claim's `volumeName`): pods in the claim's
//!   namespace mount the node's files, whatever Pod Security forbids of a
//!   `hostPath` volume.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::tree::{at, text};
use super::{Class, Impact, Level, listed};
use crate::manifest::Manifest;
use crate::pod_security::{Level as PodLevel, Policy};

/// Pod Security, Kyverno and NetworkPolicy changes of one changed object.
pub(super) fn changed(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    let why = match (after.id.group.as_str(), after.id.kind.as_str()) {
        ("", "Namespace") => namespace(&before.node.to_json(), &after.node.to_json()),
        ("kyverno.io", "ClusterPolicy" | "Policy") => {
            kyverno(&before.node.to_json(), &after.node.to_json())
        }
        ("networking.k8s.io", "NetworkPolicy") => {
            network(&before.node.to_json(), &after.node.to_json())
        }
        _ => Vec::new(),
    };
    for why in why {
        out.push(Impact::new(Level::Security, Class::Security, after, why));
    }
}

/// Removed objects that enforced something: an enforcing Kyverno policy,
/// a NetworkPolicy.
pub(super) fn removed(removed: &[&Manifest], out: &mut Vec<Impact>) {
    for object in removed {
        let why = match (object.id.group.as_str(), object.id.kind.as_str()) {
            ("kyverno.io", "ClusterPolicy" | "Policy") => {
                let enforcing: Vec<String> = rules(&object.node.to_json())
                    .into_iter()
                    .filter(|(_, r)| r.enforce)
                    .map(|(name, _)| name)
                    .collect();
                (!enforcing.is_empty()).then(|| {
                    format!(
                        "enforcing Kyverno policy deleted: rules {} no longer refuse anything",
                        listed(&enforcing)
                    )
                })
            }
            ("networking.k8s.io", "NetworkPolicy") => Some(format!(
                "NetworkPolicy removed: the pods it selects ({}) are no longer isolated by it",
                selector(&object.node.to_json()["spec"]["podSelector"])
            )),
            _ => None,
        };
        if let Some(why) = why {
            out.push(Impact::new(Level::Security, Class::Security, object, why));
        }
    }
}

/// New or changed objects that bind a hostPath PersistentVolume into a
/// namespace, looked up in the new set.
pub(super) fn host_path_volumes(
    added_or_changed: &[&Manifest],
    new: &[Manifest],
    out: &mut Vec<Impact>,
) {
    let volume_of = |name: &str| {
        new.iter()
            .find(|m| m.id.group.is_empty() && m.id.kind == "PersistentVolume" && m.id.name == name)
    };
    for object in added_or_changed {
        if !object.id.group.is_empty() {
            continue;
        }
        let json = object.node.to_json();
        let (volume, namespace, claim) = match object.id.kind.as_str() {
            "PersistentVolume" => {
                if !json["spec"]["hostPath"].is_object() {
                    continue;
                }
                let claim = &json["spec"]["claimRef"];
                let bound = match (claim["namespace"].as_str(), claim["name"].as_str()) {
                    (Some(ns), Some(name)) => Some((ns.to_owned(), name.to_owned())),
                    // Bound from the claim's side: a claim of the new set
                    // that names it (reported on the claim instead when
                    // the claim is new or changed too).
                    _ => new.iter().find_map(|m| {
                        let claims = m.id.group.is_empty()
                            && m.id.kind == "PersistentVolumeClaim"
                            && text(at(&m.node, &["spec", "volumeName"]))
                                == Some(object.id.name.as_str());
                        let reported = added_or_changed.iter().any(|o| o.id == m.id);
                        (claims && !reported).then(|| {
                            (
                                m.id.namespace.clone().unwrap_or_default(),
                                m.id.name.clone(),
                            )
                        })
                    }),
                };
                let Some((ns, name)) = bound else { continue };
                (json.clone(), ns, name)
            }
            "PersistentVolumeClaim" => {
                let Some(volume) = json["spec"]["volumeName"].as_str().and_then(volume_of) else {
                    continue;
                };
                (
                    volume.node.to_json(),
                    object.id.namespace.clone().unwrap_or_default(),
                    object.id.name.clone(),
                )
            }
            _ => continue,
        };
        let Some(path) = volume["spec"]["hostPath"]["path"].as_str() else {
            continue;
        };
        let name = volume["metadata"]["name"].as_str().unwrap_or_default();
        let why = format!(
            "binds the hostPath PersistentVolume {name} (path {path}) to claim {claim} in namespace {namespace}: pods there mount the node's files"
        );
        out.push(Impact::new(Level::Security, Class::Security, object, why));
    }
}

/// A Namespace's Pod Security enforcement made weaker.
pub(crate) fn namespace(before: &Json, after: &Json) -> Vec<String> {
    let (Some(was), is) = (Policy::of_namespace(before), Policy::of_namespace(after)) else {
        return Vec::new();
    };
    let Some(is) = is else {
        return vec![format!(
            "Pod Security enforce label dropped (was {}): the cluster's default applies (privileged unless the admission configuration says otherwise)",
            was.name()
        )];
    };
    if is.level < was.level {
        return vec![format!(
            "Pod Security enforce relaxed from {} to {}",
            was.name(),
            is.name()
        )];
    }
    // The same level, with the rules of an older version on some server.
    let older = is.level == was.level
        && is.level > PodLevel::Privileged
        && was
            .version
            .per_server()
            .iter()
            .zip(is.version.per_server())
            .any(|((_, old), (_, new))| new < *old);
    if older {
        return vec![format!(
            "Pod Security enforce pinned to older rules: {} instead of {} (controls added since are not enforced)",
            is.name(),
            was.name()
        )];
    }
    Vec::new()
}

/// One Kyverno rule, as far as what it enforces goes.
#[derive(Default)]
struct Rule {
    /// Its action is `Enforce`.
    enforce: bool,
    /// Its overrides to `Audit` (policy-wide and its own), as JSON text.
    audits: BTreeSet<String>,
    /// `match` and `exclude` as (path without list indexes, value) leaves.
    matched: BTreeSet<(String, String)>,
    excluded: BTreeSet<(String, String)>,
}

/// The validate rules of a Kyverno policy, by name.
fn rules(policy: &Json) -> BTreeMap<String, Rule> {
    let spec = &policy["spec"];
    let is_enforce = |v: &Json| {
        v.as_str()
            .is_some_and(|a| a.eq_ignore_ascii_case("enforce"))
    };
    let is_audit = |v: &Json| v.as_str().is_some_and(|a| a.eq_ignore_ascii_case("audit"));
    let default = is_enforce(&spec["validationFailureAction"]);
    let audits_in = |overrides: &Json| -> BTreeSet<String> {
        overrides
            .as_array()
            .into_iter()
            .flatten()
            .filter(|o| is_audit(&o["action"]))
            .map(|o| o.to_string())
            .collect()
    };
    let policy_audits = audits_in(&spec["validationFailureActionOverrides"]);
    let mut out = BTreeMap::new();
    for (i, rule) in spec["rules"].as_array().into_iter().flatten().enumerate() {
        let validate = &rule["validate"];
        if !validate.is_object() {
            continue;
        }
        let action = &validate["failureAction"];
        let enforce = if action.is_string() {
            is_enforce(action)
        } else {
            default
        };
        let mut audits = policy_audits.clone();
        audits.extend(audits_in(&validate["failureActionOverrides"]));
        let name = rule["name"]
            .as_str()
            .map_or_else(|| format!("#{i}"), str::to_owned);
        let (mut matched, mut excluded) = (BTreeSet::new(), BTreeSet::new());
        leaves(String::new(), &rule["match"], &mut matched);
        leaves(String::new(), &rule["exclude"], &mut excluded);
        out.insert(
            name,
            Rule {
                enforce,
                audits,
                matched,
                excluded,
            },
        );
    }
    out
}

/// The leaves of a JSON value: (path with list indexes left out, value).
fn leaves(path: String, value: &Json, out: &mut BTreeSet<(String, String)>) {
    match value {
        Json::Object(map) => {
            for (k, v) in map {
                leaves(format!("{path}.{k}"), v, out);
            }
        }
        Json::Array(items) => {
            for v in items {
                leaves(format!("{path}[]"), v, out);
            }
        }
        Json::Null => {}
        leaf => {
            out.insert((path, leaf.to_string()));
        }
    }
}

/// What a Kyverno policy enforces less, rule by rule.
pub(crate) fn kyverno(before: &Json, after: &Json) -> Vec<String> {
    let (was, is) = (rules(before), rules(after));
    let mut stops = Vec::new();
    let mut out = Vec::new();
    for (name, old) in &was {
        let Some(new) = is.get(name) else {
            if old.enforce {
                stops.push(format!("{name} (removed)"));
            }
            continue;
        };
        if old.enforce && !new.enforce {
            stops.push(name.clone());
        }
        if !new.enforce {
            continue;
        }
        let audits: Vec<&String> = new.audits.difference(&old.audits).collect();
        if !audits.is_empty() {
            out.push(format!(
                "Kyverno rule {name}: new override to Audit {}: violations there are only reported",
                listed(&audits)
            ));
        }
        let excluded: Vec<String> = new
            .excluded
            .difference(&old.excluded)
            .map(|(p, v)| format!("exclude{p}: {v}"))
            .collect();
        if !excluded.is_empty() {
            out.push(format!(
                "Kyverno rule {name} excludes more: {}",
                listed(&excluded)
            ));
        }
        let old_paths: BTreeSet<&str> = old.matched.iter().map(|(p, _)| p.as_str()).collect();
        let narrowed: Vec<String> = old
            .matched
            .difference(&new.matched)
            .map(|(p, v)| format!("match{p}: {v} dropped"))
            .chain(
                new.matched
                    .iter()
                    .filter(|(p, _)| !old_paths.contains(p.as_str()))
                    .map(|(p, v)| format!("match{p}: {v} required")),
            )
            .collect();
        if !narrowed.is_empty() {
            out.push(format!(
                "Kyverno rule {name} matches fewer objects: {}",
                listed(&narrowed)
            ));
        }
    }
    if !stops.is_empty() {
        out.insert(
            0,
            format!(
                "Kyverno policy stops enforcing {}: violations are only reported (Audit) or not checked",
                listed(&stops)
            ),
        );
    }
    out
}

/// A label selector in a few words.
fn selector(selector: &Json) -> String {
    let mut leaves_of = BTreeSet::new();
    leaves(String::new(), selector, &mut leaves_of);
    if leaves_of.is_empty() {
        return "every pod in its namespace".to_owned();
    }
    let words: Vec<String> = leaves_of
        .iter()
        .map(|(p, v)| format!("{}={v}", p.trim_start_matches('.')))
        .collect();
    listed(&words)
}

/// The policy types a NetworkPolicy isolates for: its `policyTypes`, or,
/// unset, `Ingress` and `Egress` when it has egress rules.
fn types(policy: &Json) -> BTreeSet<String> {
    let spec = &policy["spec"];
    match spec["policyTypes"].as_array() {
        Some(types) => types
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        None => {
            let mut t = BTreeSet::from(["Ingress".to_owned()]);
            if spec["egress"].is_array() {
                t.insert("Egress".to_owned());
            }
            t
        }
    }
}

/// What a NetworkPolicy admits more, or isolates less.
pub(crate) fn network(before: &Json, after: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let (was, is) = (types(before), types(after));
    let dropped: Vec<&String> = was.difference(&is).collect();
    if !dropped.is_empty() {
        out.push(format!(
            "NetworkPolicy no longer isolates {}: that traffic is admitted",
            listed(&dropped)
        ));
    }
    let (old_sel, new_sel) = (
        &before["spec"]["podSelector"],
        &after["spec"]["podSelector"],
    );
    if old_sel != new_sel {
        out.push(format!(
            "NetworkPolicy selects other pods ({} instead of {}): pods it no longer selects are not isolated by it",
            selector(new_sel),
            selector(old_sel)
        ));
    }
    for (key, direction) in [("ingress", "Ingress"), ("egress", "Egress")] {
        if !is.contains(direction) {
            continue;
        }
        let old: Vec<&Json> = before["spec"][key]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        let new: Vec<usize> = (after["spec"][key].as_array().into_iter().flatten())
            .enumerate()
            .filter(|(_, rule)| !old.contains(rule))
            .map(|(i, _)| i)
            .collect();
        if !new.is_empty() {
            let numbered: Vec<String> = new.iter().map(|i| format!("#{}", i + 1)).collect();
            out.push(format!(
                "NetworkPolicy admits more {key}: new or changed rules {}",
                listed(&numbered)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ns(labels: Json) -> Json {
        json!({"metadata": {"labels": labels}})
    }

    /// Level and version: a pin to an older version is weaker; a newer or
    /// the same policy is not.
    #[test]
    fn pod_security_level_and_version() {
        let e = "pod-security.kubernetes.io/enforce";
        let v = "pod-security.kubernetes.io/enforce-version";
        let latest = ns(json!({e: "restricted"}));
        let old = ns(json!({e: "restricted", v: "v1.24"}));
        assert_eq!(
            namespace(&latest, &old),
            [
                "Pod Security enforce pinned to older rules: restricted:v1.24 instead of restricted:latest (controls added since are not enforced)"
            ]
        );
        assert!(namespace(&old, &latest).is_empty());
        assert_eq!(
            namespace(&latest, &ns(json!({e: "baseline"}))),
            ["Pod Security enforce relaxed from restricted:latest to baseline:latest"]
        );
        assert_eq!(namespace(&latest, &ns(json!({}))).len(), 1);
        assert!(namespace(&ns(json!({})), &latest).is_empty());
    }

    /// One rule going Audit while another goes Enforce is still a rule
    /// enforced less.
    #[test]
    fn kyverno_rules_are_compared_one_by_one() {
        let policy = |a: &str, b: &str| {
            json!({"spec": {"rules": [
                {"name": "a", "validate": {"failureAction": a}},
                {"name": "b", "validate": {"failureAction": b}},
            ]}})
        };
        assert_eq!(
            kyverno(&policy("Enforce", "Audit"), &policy("Audit", "Enforce")),
            [
                "Kyverno policy stops enforcing a: violations are only reported (Audit) or not checked"
            ]
        );
        let excluding = |namespaces: Json| {
            json!({"spec": {"validationFailureAction": "Enforce", "rules": [
                {"name": "a", "validate": {}, "exclude": {"any": [{"resources": {"namespaces": namespaces}}]}},
            ]}})
        };
        assert_eq!(
            kyverno(&excluding(json!(["x"])), &excluding(json!(["x", "y"]))),
            ["Kyverno rule a excludes more: exclude.any[].resources.namespaces[]: \"y\""]
        );
        assert!(kyverno(&excluding(json!(["x", "y"])), &excluding(json!(["x"]))).is_empty());
    }

    /// A volume bound from the claim's side that becomes a hostPath: the
    /// volume is the item when the claim does not change.
    #[test]
    fn a_volume_that_becomes_a_host_path_under_its_claim() {
        let set = crate::input::parse(
            "t",
            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {hostPath: {path: /etc}}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c, namespace: builds}\nspec: {volumeName: pv}\n",
        )
        .unwrap()
        .manifests;
        let mut out = Vec::new();
        host_path_volumes(&[&set[0]], &set, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].why,
            "binds the hostPath PersistentVolume pv (path /etc) to claim c in namespace builds: pods there mount the node's files"
        );
        let mut both = Vec::new();
        host_path_volumes(&[&set[0], &set[1]], &set, &mut both);
        assert_eq!(both.len(), 1);
        assert_eq!(both[0].object, "PersistentVolumeClaim builds/c");
    }

    #[test]
    fn network_policies_admitting_more() {
        let policy = |ingress: Json, types: Json| json!({"spec": {"podSelector": {}, "policyTypes": types, "ingress": ingress}});
        let closed = policy(json!([]), json!(["Ingress", "Egress"]));
        assert!(network(&closed, &closed).is_empty());
        assert_eq!(
            network(&closed, &policy(json!([{}]), json!(["Ingress", "Egress"]))),
            ["NetworkPolicy admits more ingress: new or changed rules #1"]
        );
        assert_eq!(
            network(&closed, &policy(json!([]), json!(["Ingress"]))),
            ["NetworkPolicy no longer isolates Egress: that traffic is admitted"]
        );
    }
}
