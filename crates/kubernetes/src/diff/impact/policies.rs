//! Admission and network policy, before and after: what is enforced less,
//! or for fewer objects, is `security`.
//!
//! - Pod Security: a Namespace's `pod-security.kubernetes.io/enforce`
//!   level and `enforce-version`, read as the admission reads them
//!   ([`pod_security::Policy`]); a lower level, a label dropped (the
//!   cluster's default applies, `privileged` unless configured), or the
//!   same level pinned to the rules of an older Kubernetes (for a server
//!   of a version this crate targets) is weaker.
//! - Kyverno `ClusterPolicy`/`Policy`, rule by rule: a rule's action is its
//!   `validate.failureAction`, else the policy's `validationFailureAction`
//!   (`Audit` when unset); a rule that enforced and no longer does (or is
//!   gone, or its policy deleted), a new `Audit` entry of
//!   `validationFailureActionOverrides` (or of a rule's
//!   `validate.failureActionOverrides`), an `exclude` that selects more, a
//!   `match` that selects less. Both are read as Kyverno reads them: `any`
//!   lists alternatives; `all`, and the fields of one filter, hold
//!   together; a list of kinds, names, namespaces, operations, subjects or
//!   roles is a choice (`*` any); a selector or annotations must be met as
//!   written. A new filter that no old one covers selects more.
//! - NetworkPolicy: removed (the pods it selected are no longer isolated
//!   by it); a policy type dropped; a `podSelector` that loses or gains a
//!   constraint (other pods, perhaps fewer, are isolated); an ingress or
//!   egress rule that admits what no old rule admitted. A rule admits a
//!   peer (any of `from`/`to`; none: every source) on a port (any of
//!   `ports`; none: every port); a new rule is covered when one old rule
//!   admits all it does: each peer the same, or an `ipBlock` inside an old
//!   one (its `except` kept), each port inside an old port range of the
//!   same protocol, or a label selector that requires all the old one did.
//! - A PersistentVolume with a `hostPath` bound to a claim (its
//!   `claimRef`, or the claim's `volumeName`): pods in the claim's
//!   namespace mount the node's files, whatever Pod Security forbids of a
//!   `hostPath` volume.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::tree::{at, text};
use super::{Class, Impact, Level, listed};
use crate::cidr::Cidr;
use crate::manifest::Manifest;
use crate::pod_security::{Level as PodLevel, Policy};

/// Pod Security, Kyverno and NetworkPolicy changes of one changed object.
pub(super) fn changed(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    let why = match (after.id.group.as_str(), after.id.kind.as_str()) {
        ("", "Namespace") => namespace(&before.json(), &after.json()),
        ("kyverno.io", "ClusterPolicy" | "Policy") => kyverno(&before.json(), &after.json()),
        ("networking.k8s.io", "NetworkPolicy") => network(&before.json(), &after.json()),
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
                let enforcing: Vec<String> = rules(&object.json())
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
                selector(&object.json()["spec"]["podSelector"])
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
        let json = object.json();
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
                            && text(at(m.node(), &["spec", "volumeName"]))
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
                    volume.json(),
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
struct KyvernoRule {
    /// Its action is `Enforce`.
    enforce: bool,
    /// Its overrides to `Audit` (policy-wide and its own), as JSON text.
    audits: BTreeSet<String>,
    /// What `match` and `exclude` select.
    matched: Vec<Filter>,
    excluded: Vec<Filter>,
}

/// One Kyverno resource filter as the constraints that must all hold:
/// (field, value), such as (`resources.kinds`, `["Pod"]`) or (`subjects`,
/// `[…]`). A list under a field of [`ANY_OF`] holds for any of its items;
/// any other value (a selector, annotations) must be met as it is.
#[derive(Debug)]
struct Filter(Vec<(String, Json)>);

/// The fields whose list is a choice: an object matches when it is one of
/// the items (a kind, a name, a namespace, an operation, a subject, a
/// role). Fewer items: narrower; `*` alone stands for any.
const ANY_OF: [&str; 8] = [
    "resources.kinds",
    "resources.names",
    "resources.namespaces",
    "resources.operations",
    "subjects",
    "roles",
    "clusterRoles",
    "resources.name",
];

/// The filters of a `match` or `exclude` block: an object is selected when
/// one of them holds. As Kyverno reads the block: `any` lists
/// alternatives; else `all` is one filter, every entry's constraints
/// together; else the older form (`resources`, `subjects`, `roles`,
/// `clusterRoles` in the block itself) is one filter. No block, an empty
/// one, or a filter without constraints selects nothing.
fn filters(block: &Json) -> Vec<Filter> {
    let Some(map) = block.as_object() else {
        return Vec::new();
    };
    let constraints = |filter: &Json| -> Vec<(String, Json)> {
        let mut out = Vec::new();
        for (key, value) in filter.as_object().into_iter().flatten() {
            if key == "resources" {
                for (field, value) in value.as_object().into_iter().flatten() {
                    out.push((format!("resources.{field}"), value.clone()));
                }
            } else {
                out.push((key.clone(), value.clone()));
            }
        }
        // An unset or empty constraint holds for everything.
        out.retain(|(_, v)| !(v.is_null() || v.as_array().is_some_and(Vec::is_empty)));
        out
    };
    let entries = |key: &str| {
        map.get(key)
            .and_then(Json::as_array)
            .filter(|l| !l.is_empty())
    };
    // Kyverno's precedence: `any`, else `all`, else the older form (it
    // refuses them together). A filter with no constraint selects nothing,
    // as Kyverno reads an empty resource filter.
    let filters: Vec<Filter> = if let Some(any) = entries("any") {
        any.iter().map(|f| Filter(constraints(f))).collect()
    } else if let Some(all) = entries("all") {
        vec![Filter(all.iter().flat_map(constraints).collect())]
    } else {
        let mut legacy = block.clone();
        if let Some(map) = legacy.as_object_mut() {
            map.retain(|k, _| !matches!(k.as_str(), "any" | "all"));
        }
        vec![Filter(constraints(&legacy))]
    };
    filters.into_iter().filter(|f| !f.0.is_empty()).collect()
}

impl Filter {
    /// Whether every object this filter selects, `wider` selects too: each
    /// constraint of `wider` is met by one of this filter's, as narrow or
    /// narrower (a choice of fewer items, the same selector).
    fn within(&self, wider: &Filter) -> bool {
        wider.0.iter().all(|(field, wide)| {
            self.0
                .iter()
                .any(|(f, narrow)| f == field && Filter::implies(field, narrow, wide))
        })
    }

    /// Whether a constraint `narrow` on `field` is met only where `wide` is.
    fn implies(field: &str, narrow: &Json, wide: &Json) -> bool {
        if !ANY_OF.contains(&field) {
            return narrow == wide;
        }
        fn items(v: &Json) -> Vec<&Json> {
            match v {
                Json::Array(items) => items.iter().collect(),
                other => vec![other],
            }
        }
        let wide = items(wide);
        wide.iter().any(|w| *w == "*") || items(narrow).iter().all(|n| wide.contains(n))
    }

    /// Filters as alternatives: `A or B`; none: `nothing`.
    fn any<'a>(filters: impl IntoIterator<Item = &'a Filter>) -> String {
        let shown: Vec<String> = filters.into_iter().map(Filter::show).collect();
        if shown.is_empty() {
            "nothing".to_owned()
        } else {
            shown.join(" or ")
        }
    }

    /// The filter in a few words: `resources.kinds: ["Pod"], …`.
    fn show(&self) -> String {
        if self.0.is_empty() {
            return "everything".to_owned();
        }
        let parts: Vec<String> = self.0.iter().map(|(f, v)| format!("{f}: {v}")).collect();
        parts.join(", ")
    }
}

/// The filters of `narrow` that `wide` does not cover: what `narrow`
/// selects beyond `wide`, filter by filter.
fn beyond<'a>(narrow: &'a [Filter], wide: &[Filter]) -> Vec<&'a Filter> {
    if narrow.len().saturating_mul(wide.len()) > COMPARISONS {
        // Past the budget none is proven covered: the gate says more.
        return narrow.iter().collect();
    }
    narrow
        .iter()
        .filter(|f| !wide.iter().any(|w| f.within(w)))
        .collect()
}

/// The most pairs of filters, or of NetworkPolicy rules, compared to prove
/// one covered by another: a hostile policy of thousands of each would
/// cost their product. Past it, every new one counts as wider.
const COMPARISONS: usize = 100_000;

/// The validate rules of a Kyverno policy, by name.
fn rules(policy: &Json) -> BTreeMap<String, KyvernoRule> {
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
        let (matched, excluded) = (filters(&rule["match"]), filters(&rule["exclude"]));
        out.insert(
            name,
            KyvernoRule {
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
        // An object excluded now that was not: a new exclude filter no
        // old one covers.
        let more = beyond(&new.excluded, &old.excluded);
        if !more.is_empty() {
            out.push(format!(
                "Kyverno rule {name} excludes more: now {} (was {})",
                Filter::any(more),
                Filter::any(old.excluded.iter())
            ));
        }
        // An object matched before that is not now: an old match filter no
        // new one covers.
        let lost = beyond(&old.matched, &new.matched);
        if !lost.is_empty() {
            out.push(format!(
                "Kyverno rule {name} matches fewer objects: now {} (was {})",
                Filter::any(new.matched.iter()),
                Filter::any(lost)
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
        let peers = if key == "ingress" { "from" } else { "to" };
        let rules = after["spec"][key].as_array().map_or(&[][..], Vec::as_slice);
        let compared = rules.len().saturating_mul(old.len()) <= COMPARISONS;
        let new: Vec<usize> = (rules.iter())
            .enumerate()
            .filter(|(_, rule)| !(compared && old.iter().any(|o| rule_within(rule, o, peers))))
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

/// Whether everything NetworkPolicy rule `narrow` admits, `wide` admits:
/// its peers (`from` or `to`: `peers`) and its ports each inside one of
/// `wide`'s; a rule without peers or ports admits every one.
fn rule_within(narrow: &Json, wide: &Json, peers: &str) -> bool {
    fn list<'a>(rule: &'a Json, key: &str) -> Option<&'a Vec<Json>> {
        rule[key].as_array().filter(|l| !l.is_empty())
    }
    let covered =
        |key: &str, within: fn(&Json, &Json) -> bool| match (list(narrow, key), list(wide, key)) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(n), Some(w)) => n.iter().all(|n| w.iter().any(|w| within(n, w))),
        };
    covered(peers, peer_within) && covered("ports", port_within)
}

/// Whether a peer admits only sources `wide` admits: the same peer; an
/// `ipBlock` inside the other's, every address it excluded still
/// excluded; pod and namespace selectors each requiring all the other's
/// (a peer without a namespace selector means the policy's namespace:
/// covered by one without either, or by an empty one, every namespace).
fn peer_within(narrow: &Json, wide: &Json) -> bool {
    if narrow == wide {
        return true;
    }
    // A field written null is unset, as the API server reads it.
    fn field<'a>(peer: &'a Json, key: &str) -> Option<&'a Json> {
        peer.get(key).filter(|v| !v.is_null())
    }
    if let (Some(n), Some(w)) = (field(narrow, "ipBlock"), field(wide, "ipBlock")) {
        let cidrs = |v: &Json| -> Vec<Cidr> {
            (v.as_array().into_iter().flatten())
                .filter_map(|c| c.as_str().and_then(|c| Cidr::parse(c).ok()))
                .collect()
        };
        let (Some(n_cidr), Some(w_cidr)) = (
            n["cidr"].as_str().and_then(|c| Cidr::parse(c).ok()),
            w["cidr"].as_str().and_then(|c| Cidr::parse(c).ok()),
        ) else {
            return false;
        };
        let (n_except, w_except) = (cidrs(&n["except"]), cidrs(&w["except"]));
        // Each range the wide block excluded is outside the narrow one, or
        // inside a range the narrow block excludes.
        return w_cidr.contains(&n_cidr)
            && w_except
                .iter()
                .all(|e| !e.overlaps(&n_cidr) || n_except.iter().any(|x| x.contains(e)));
    }
    if field(narrow, "ipBlock").is_some() || field(wide, "ipBlock").is_some() {
        return false;
    }
    let selector_within = |key: &str| match (field(narrow, key), field(wide, key)) {
        (None, None) => true,
        // No pod selector: every pod (in the namespaces meant).
        (_, None) => key == "podSelector",
        // Every pod, or the policy's namespace: within only what selects all.
        (None, Some(w)) => selector_requires(&Json::Null, w),
        (Some(n), Some(w)) => selector_requires(n, w),
    };
    selector_within("podSelector") && selector_within("namespaceSelector")
}

/// Whether label selector `narrow` requires everything `wide` does: each
/// of `wide`'s labels and expressions is among `narrow`'s (an empty
/// selector requires nothing).
fn selector_requires(narrow: &Json, wide: &Json) -> bool {
    let labels_in = |labels: &Json| labels.as_object().cloned().unwrap_or_default();
    let (n_labels, w_labels) = (
        labels_in(&narrow["matchLabels"]),
        labels_in(&wide["matchLabels"]),
    );
    let expressions = |s: &Json| {
        s["matchExpressions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let n_expressions = expressions(narrow);
    w_labels.iter().all(|(k, v)| n_labels.get(k) == Some(v))
        && expressions(wide).iter().all(|e| n_expressions.contains(e))
}

/// Whether a NetworkPolicy port admits only what `wide` admits: the same
/// protocol (TCP when unset), and its port or range inside `wide`'s (a
/// port unset: every port; a named port only inside the same name or
/// every port).
fn port_within(narrow: &Json, wide: &Json) -> bool {
    let protocol = |p: &Json| p["protocol"].as_str().unwrap_or("TCP").to_owned();
    if protocol(narrow) != protocol(wide) {
        return false;
    }
    let range = |p: &Json| -> Option<Option<(i64, i64)>> {
        match &p["port"] {
            Json::Null => Some(None),
            Json::Number(n) => {
                let start = n.as_i64()?;
                Some(Some((start, p["endPort"].as_i64().unwrap_or(start))))
            }
            _ => None,
        }
    };
    match (range(narrow), range(wide)) {
        (_, Some(None)) => true,
        (Some(Some((a, b))), Some(Some((c, d)))) => c <= a && b <= d,
        (None, None) => narrow["port"] == wide["port"],
        _ => false,
    }
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
            [
                "Kyverno rule a excludes more: now resources.namespaces: [\"x\",\"y\"] (was resources.namespaces: [\"x\"])"
            ]
        );
        assert!(kyverno(&excluding(json!(["x", "y"])), &excluding(json!(["x"]))).is_empty());
    }

    fn enforcing(rule: Json) -> Json {
        let mut rule = rule;
        rule["name"] = json!("r");
        rule["validate"] = json!({});
        json!({"spec": {"validationFailureAction": "Enforce", "rules": [rule]}})
    }

    /// What `exclude` selects, with Kyverno's meaning: `any` alternatives,
    /// `all` and a filter's fields together, lists as choices. Dropping a
    /// condition of an `all`, or a field of a filter, excludes more;
    /// dropping an alternative, or an item of a choice, excludes less.
    #[test]
    fn kyverno_exclude_is_read_as_kyverno_reads_it() {
        let widens = |old: Json, new: Json| {
            !kyverno(
                &enforcing(json!({"exclude": old})),
                &enforcing(json!({"exclude": new})),
            )
            .is_empty()
        };
        let ns = |n: &str| json!({"resources": {"namespaces": [n]}});
        let sa = json!({"subjects": [{"kind": "ServiceAccount", "name": "ci", "namespace": "x"}]});
        // `all`: kube-system AND the CI account; the account dropped.
        assert!(widens(
            json!({"all": [ns("kube-system"), sa]}),
            json!({"all": [ns("kube-system")]})
        ));
        assert!(!widens(
            json!({"all": [ns("kube-system")]}),
            json!({"all": [ns("kube-system"), sa]})
        ));
        // A filter's fields together: Pods in x; the kind dropped.
        let pods_in_x = json!({"any": [{"resources": {"kinds": ["Pod"], "namespaces": ["x"]}}]});
        assert!(widens(pods_in_x.clone(), json!({"any": [ns("x")]})));
        assert!(!widens(json!({"any": [ns("x")]}), pods_in_x.clone()));
        // Alternatives: one dropped excludes less; one added, more.
        let two = json!({"any": [ns("x"), ns("y")]});
        assert!(!widens(two.clone(), json!({"any": [ns("x")]})));
        assert!(widens(json!({"any": [ns("x")]}), two));
        // The older form, and an exclude where there was none.
        assert!(widens(
            json!({"resources": {"kinds": ["Pod"], "namespaces": ["x"]}}),
            json!({"resources": {"namespaces": ["x"]}})
        ));
        assert!(widens(Json::Null, json!({"any": [ns("x")]})));
        assert!(!widens(json!({"any": [ns("x")]}), Json::Null));
        // A wildcard covers any item.
        assert!(!widens(
            json!({"any": [{"resources": {"kinds": ["*"]}}]}),
            json!({"any": [{"resources": {"kinds": ["Pod"]}}]})
        ));
        assert!(widens(
            json!({"any": [{"resources": {"kinds": ["Pod"]}}]}),
            json!({"any": [{"resources": {"kinds": ["*"]}}]})
        ));
    }

    /// A filter without constraints (`{}`, fields null or empty) selects
    /// nothing, as Kyverno reads it; `any` wins over `all`, `all` over the
    /// older form, as Kyverno reads a block that has several.
    #[test]
    fn kyverno_empty_filters_select_nothing() {
        let widens = |old: Json, new: Json| {
            !kyverno(
                &enforcing(json!({"exclude": old})),
                &enforcing(json!({"exclude": new})),
            )
            .is_empty()
        };
        let ns = json!({"any": [{"resources": {"namespaces": ["x"]}}]});
        for nothing in [
            json!({"any": [{}]}),
            json!({"any": [{"resources": {"namespaces": null}}]}),
            json!({"all": []}),
            json!({"any": [{"resources": {"kinds": []}}]}),
        ] {
            assert!(widens(nothing.clone(), ns.clone()), "{nothing}");
            assert!(!widens(ns.clone(), nothing.clone()), "{nothing}");
        }
        // `any` and `all` together: Kyverno reads `any`.
        let both = json!({"any": [{"resources": {"namespaces": ["x"]}}], "all": [{"resources": {"kinds": ["Pod"]}}]});
        assert!(!widens(both, ns));
    }

    /// Past the comparison budget no filter is proven covered: every new
    /// one is said, never passed over.
    #[test]
    fn many_filters_are_not_compared_pair_by_pair() {
        let any = |n: usize| {
            let filters: Vec<Json> = (0..n)
                .map(|i| json!({"resources": {"namespaces": [format!("ns-{i}")]}}))
                .collect();
            json!({"any": filters})
        };
        let found = kyverno(
            &enforcing(json!({"exclude": any(400)})),
            &enforcing(json!({"exclude": any(400)})),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("Kyverno rule r excludes more: now "),
            "{}",
            found[0]
        );
        let few = kyverno(
            &enforcing(json!({"exclude": any(300)})),
            &enforcing(json!({"exclude": any(300)})),
        );
        assert!(few.is_empty(), "{few:?}");
    }

    /// `match` read the same way, the other way round: what was matched
    /// and is not now.
    #[test]
    fn kyverno_match_narrowed() {
        let narrows = |old: Json, new: Json| {
            kyverno(
                &enforcing(json!({"match": old})),
                &enforcing(json!({"match": new})),
            )
        };
        let kinds = |k: Json| json!({"any": [{"resources": {"kinds": k}}]});
        assert!(narrows(kinds(json!(["Pod"])), kinds(json!(["Pod", "Deployment"]))).is_empty());
        assert_eq!(
            narrows(kinds(json!(["Pod", "Deployment"])), kinds(json!(["Pod"]))),
            [
                "Kyverno rule r matches fewer objects: now resources.kinds: [\"Pod\"] (was resources.kinds: [\"Pod\",\"Deployment\"])"
            ]
        );
        // A namespace condition added: fewer objects.
        let in_prod = json!({"any": [{"resources": {"kinds": ["Pod"], "namespaces": ["prod"]}}]});
        assert_eq!(narrows(kinds(json!(["Pod"])), in_prod.clone()).len(), 1);
        assert!(narrows(in_prod, kinds(json!(["Pod"]))).is_empty());
        // `any` to `all` over the same entries: fewer.
        let a = json!({"resources": {"kinds": ["Pod"]}});
        let b = json!({"resources": {"namespaces": ["x"]}});
        assert_eq!(
            narrows(
                json!({"any": [a.clone(), b.clone()]}),
                json!({"all": [a.clone(), b.clone()]})
            )
            .len(),
            1
        );
        assert!(
            narrows(
                json!({"all": [a.clone(), b.clone()]}),
                json!({"any": [a, b]})
            )
            .is_empty()
        );
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
        // A narrower rule in place of a wider one admits nothing more.
        let ingress = |rule: Json| policy(json!([rule]), json!(["Ingress"]));
        let wide = ingress(
            json!({"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}], "ports": [{"port": 8000, "endPort": 9000}]}),
        );
        for narrower in [
            json!({"from": [{"ipBlock": {"cidr": "10.2.0.0/16"}}], "ports": [{"port": 8080}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}], "ports": [{"port": 8080, "protocol": "TCP"}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.0.0.0/9"]}}], "ports": [{"port": 8000, "endPort": 9000}]}),
        ] {
            assert!(
                network(&wide, &ingress(narrower.clone())).is_empty(),
                "{narrower}"
            );
        }
        for wider in [
            json!({"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}], "ports": [{"port": 8080}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.1.2.0/24"}}], "ports": [{"port": 8080}]}),
            json!({"from": [{"ipBlock": {"cidr": "11.0.0.0/24"}}], "ports": [{"port": 8080}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.2.0.0/16"}}], "ports": [{"port": 8080, "protocol": "UDP"}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.2.0.0/16"}}], "ports": [{"port": 9001}]}),
            json!({"from": [{"ipBlock": {"cidr": "10.2.0.0/16"}}]}),
            json!({"ports": [{"port": 8080}]}),
            json!({"from": [{"ipBlock": {"cidr": "::/0"}}], "ports": [{"port": 8080}]}),
        ] {
            assert_eq!(network(&wide, &ingress(wider.clone())).len(), 1, "{wider}");
        }
        // Selectors: one that requires more is narrower; a namespace
        // selector where there was none (the policy's namespace) is wider.
        let from = |peer: Json| ingress(json!({"from": [peer]}));
        let app = json!({"podSelector": {"matchLabels": {"app": "gw"}}});
        let app_tier = json!({"podSelector": {"matchLabels": {"app": "gw", "tier": "a"}}});
        assert!(network(&from(app.clone()), &from(app_tier.clone())).is_empty());
        assert_eq!(network(&from(app_tier), &from(app.clone())).len(), 1);
        // A namespace selector written null is unset: the policy's own
        // namespace, not every namespace.
        let null_ns =
            json!({"podSelector": {"matchLabels": {"app": "gw"}}, "namespaceSelector": null});
        let team = json!({"podSelector": {"matchLabels": {"app": "gw"}}, "namespaceSelector": {"matchLabels": {"team": "a"}}});
        assert_eq!(network(&from(null_ns), &from(team)).len(), 1);
        let anywhere =
            json!({"podSelector": {"matchLabels": {"app": "gw"}}, "namespaceSelector": {}});
        assert_eq!(
            network(&from(app.clone()), &from(anywhere.clone())).len(),
            1
        );
        assert!(network(&from(anywhere), &from(app)).is_empty());
        assert_eq!(
            network(&closed, &policy(json!([]), json!(["Ingress"]))),
            ["NetworkPolicy no longer isolates Egress: that traffic is admitted"]
        );
    }
}
