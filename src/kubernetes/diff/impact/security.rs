//! What may do more than before: effective permissions (computed once, by
//! the diff's RBAC summary, `rbac_changes` in `diff/mod.rs`, and grouped
//! here per subject), rules reaching the built-in user-facing roles through
//! aggregation, Pod Security and Kyverno relaxed, workloads gaining
//! privileges or losing their hardening.
//!
//! Aggregation: the built-in ClusterRoles `view`, `edit` and `admin`
//! aggregate every ClusterRole labelled
//! `rbac.authorization.k8s.io/aggregate-to-view`, `-edit`, `-admin`:
//! `"true"`, and `view` carries the `aggregate-to-edit` label and `edit`
//! the `aggregate-to-admin` one, so what reaches `view` reaches `edit` and
//! `admin` too (<https://kubernetes.io/docs/reference/access-authn-authz/rbac/#user-facing-roles>;
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`). Those
//! roles are in every cluster and in no manifest set, so the effective
//! permissions of the set cannot show who gains: this says so.
//!
//! Pod Security: `pod-security.kubernetes.io/enforce` orders `restricted` >
//! `baseline` > `privileged`; a namespace without the label gets the
//! admission configuration's default, `privileged` unless configured
//! (<https://kubernetes.io/docs/concepts/security/pod-security-admission/>).
//!
//! Kyverno: a `PolicyException` (kyverno.io) lifts the policies it names
//! from what it matches; a policy whose `validationFailureAction` (or a
//! rule's `validate.failureAction`) goes from `Enforce` to `Audit` stops
//! refusing. The exemptions artifact (`kyverno-exemptions.yaml`, the
//! namespaces each policy of the platform's Kyverno values excludes: not an
//! object, read beside the objects of a directory) relaxes a policy when a
//! namespace joins its `excludedNamespaces` ([`exemptions`]).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value as Json;

use super::tree::{at, entries, is, is_false, is_true, items, text};
use super::workload::{added_capabilities, containers, pod_spec};
use super::{Class, Impact, Level, NAMED, listed};
use crate::diff::FieldChange;
use crate::manifest::Manifest;
use crate::yaml::Node;

/// One subject's gain or loss of one permission: a line of the diff's RBAC
/// summary, kept in parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PermissionChange {
    /// The subject as an object: `ServiceAccount ns/name`, `User name`.
    pub(crate) subject: String,
    /// A gain, or a loss.
    pub(crate) gains: bool,
    /// What: `delete on secrets in builds`.
    pub(crate) what: String,
}

/// One impact per subject and direction: gains are `security`, losses a
/// `change` (a workload relying on them fails).
pub(super) fn permissions(changes: &[PermissionChange], out: &mut Vec<Impact>) {
    let mut by_subject: BTreeMap<(&str, bool), Vec<&str>> = BTreeMap::new();
    for c in changes {
        by_subject
            .entry((c.subject.as_str(), c.gains))
            .or_default()
            .push(&c.what);
    }
    for ((subject, gains), what) in by_subject {
        let why = joined(&what);
        let (level, why) = if gains {
            (Level::Security, format!("gains {why}"))
        } else {
            (
                Level::Change,
                format!("loses {why} (what relies on it fails)"),
            )
        };
        out.push(Impact {
            level,
            class: Class::Security,
            object: subject.to_owned(),
            from: None,
            why,
        });
    }
}

/// Items that hold commas themselves, joined by `; `: at most [`NAMED`].
fn joined<S: AsRef<str>>(items: &[S]) -> String {
    let mut text = items
        .iter()
        .take(NAMED)
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > NAMED {
        text += &format!("; and {} more", items.len() - NAMED);
    }
    text
}

/// New objects that relax security by being there: a workload's pods
/// gain whatever privileges they run with.
pub(super) fn added(added: &[&Manifest], out: &mut Vec<Impact>) {
    for object in added {
        aggregated(None, object, out);
        if let Some(new) = pod_spec(object) {
            privileges(None, new, object, out);
        }
        if object.id.group == "kyverno.io" && object.id.kind == "PolicyException" {
            let why = "new Kyverno PolicyException: the policies it names no longer apply to what it matches".to_owned();
            out.push(Impact::new(Level::Security, Class::Security, object, why));
        }
    }
}

/// Changed objects that relax security.
pub(super) fn changed(
    before: &Manifest,
    after: &Manifest,
    fields: &[FieldChange],
    out: &mut Vec<Impact>,
) {
    aggregated(Some(before), after, out);
    if is(after, "", "Namespace") {
        pod_security(before, after, out);
    }
    if after.id.group == "kyverno.io" {
        kyverno(before, after, fields, out);
    }
    if let (Some(old), Some(new)) = (pod_spec(before), pod_spec(after)) {
        privileges(Some(old), new, after, out);
    }
}

const AGGREGATE: &str = "rbac.authorization.k8s.io/aggregate-to-";

/// The built-in roles a ClusterRole's labels aggregate it into, `view`
/// first.
fn aggregated_into(role: &Manifest) -> Vec<&'static str> {
    let labelled = |to: &str| {
        entries(at(&role.node, &["metadata", "labels"])).any(|(key, value)| {
            key.strip_prefix(AGGREGATE) == Some(to) && text(Some(value)) == Some("true")
        })
    };
    let reached: &[&str] = if labelled("view") {
        &["view", "edit", "admin"]
    } else if labelled("edit") {
        &["edit", "admin"]
    } else if labelled("admin") {
        &["admin"]
    } else {
        &[]
    };
    reached.to_vec()
}

/// A rule in a few words: `get, list on secrets`.
fn rule_in_words(rule: &Node) -> String {
    let strings = |key: &str| -> Vec<&str> {
        items(rule.get(key))
            .iter()
            .filter_map(|s| text(Some(s)))
            .collect()
    };
    let groups = strings("apiGroups");
    let plain = strings("resources");
    // Groups × resources can be large: name a few, count the rest.
    let total = plain.len().saturating_mul(groups.len());
    let mut on = plain
        .iter()
        .flat_map(|r| groups.iter().map(move |g| crate::rbac::resource_name(g, r)))
        .take(NAMED)
        .collect::<Vec<_>>()
        .join(", ");
    if total > NAMED {
        on += &format!(" and {} more", total - NAMED);
    }
    if total == 0 {
        on = listed(&strings("nonResourceURLs"));
    }
    format!("{} on {on}", listed(&strings("verbs")))
}

/// A ClusterRole aggregated into `view`/`edit`/`admin` that gains rules
/// (or the label): every subject bound to those roles gains them.
fn aggregated(before: Option<&Manifest>, after: &Manifest, out: &mut Vec<Impact>) {
    if !is(after, "rbac.authorization.k8s.io", "ClusterRole") {
        return;
    }
    let into = aggregated_into(after);
    if into.is_empty() {
        return;
    }
    fn rules(role: &Manifest) -> Vec<(String, &Node)> {
        items(role.node.get("rules"))
            .iter()
            .map(|r| (r.to_json().to_string(), r))
            .collect()
    }
    let was_into = before.map(aggregated_into).unwrap_or_default();
    // Roles it newly aggregates into gain every rule; roles it aggregated
    // into before gain only the rules that are new.
    let (kept, newly): (Vec<&str>, Vec<&str>) = into.iter().partition(|r| was_into.contains(r));
    let old: HashSet<String> = before
        .map(rules)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let all = rules(after);
    let gained: Vec<String> = all
        .iter()
        .filter(|(key, _)| !old.contains(key))
        .map(|(_, rule)| rule_in_words(rule))
        .collect();
    let every: Vec<String> = all.iter().map(|(_, rule)| rule_in_words(rule)).collect();
    for (roles, rules) in [(newly, every), (kept, gained)] {
        if roles.is_empty() || rules.is_empty() {
            continue;
        }
        let why = format!(
            "aggregated into the built-in ClusterRoles {} (in every cluster, not in this set): every subject bound to them gains {}",
            listed(&roles),
            joined(&rules)
        );
        out.push(Impact::new(Level::Security, Class::Security, after, why));
    }
}

const ENFORCE: &str = "pod-security.kubernetes.io/enforce";

/// A namespace's Pod Security enforce level made weaker, or dropped.
fn pod_security(before: &Manifest, after: &Manifest, out: &mut Vec<Impact>) {
    let level =
        |ns: &Manifest| text(at(&ns.node, &["metadata", "labels", ENFORCE])).map(str::to_owned);
    let rank = |level: Option<&str>| match level {
        Some("restricted") => Some(2),
        Some("baseline") => Some(1),
        Some("privileged") | None => Some(0),
        Some(_) => None,
    };
    let (old, new) = (level(before), level(after));
    let (Some(was), Some(is)) = (rank(old.as_deref()), rank(new.as_deref())) else {
        return;
    };
    if is >= was {
        return;
    }
    let why = match new {
        Some(new) => format!(
            "Pod Security enforce relaxed from {} to {new}",
            old.unwrap_or_default()
        ),
        None => format!(
            "Pod Security enforce label ({}) dropped: the cluster's default applies (privileged unless the admission configuration says otherwise)",
            old.unwrap_or_default()
        ),
    };
    out.push(Impact::new(Level::Security, Class::Security, after, why));
}

/// A Kyverno PolicyException changed, or a policy that stops enforcing.
fn kyverno(before: &Manifest, after: &Manifest, fields: &[FieldChange], out: &mut Vec<Impact>) {
    let why = match after.id.kind.as_str() {
        "PolicyException"
            if fields
                .iter()
                .any(|f| f.steps.first().is_some_and(|s| s == "spec")) =>
        {
            "Kyverno PolicyException changed: what it exempts may be wider".to_owned()
        }
        "ClusterPolicy" | "Policy" => {
            let (was, is) = (enforcing(before), enforcing(after));
            if was.len() <= is.len() {
                return;
            }
            format!(
                "Kyverno policy stops enforcing {}: violations are only reported (Audit)",
                listed(&was.difference(&is).collect::<Vec<_>>())
            )
        }
        _ => return,
    };
    out.push(Impact::new(Level::Security, Class::Security, after, why));
}

/// The rules of a Kyverno policy that refuse (`Enforce`): each rule's own
/// `validate.failureAction`, else the policy's `validationFailureAction`.
fn enforcing(policy: &Manifest) -> BTreeSet<String> {
    let spec = policy.node.get("spec");
    let action = |node: Option<&Node>| text(node).map(str::to_ascii_lowercase);
    let default = action(spec.and_then(|s| s.get("validationFailureAction")))
        .unwrap_or_else(|| "audit".to_owned());
    items(spec.and_then(|s| s.get("rules")))
        .iter()
        .filter(|rule| rule.get("validate").is_some())
        .filter(|rule| {
            action(at(rule, &["validate", "failureAction"])).unwrap_or_else(|| default.clone())
                == "enforce"
        })
        .map(|rule| text(rule.get("name")).unwrap_or("(unnamed)").to_owned())
        .collect()
}

/// Hardening lost and privileges gained between two pod specs (from none,
/// for a new workload).
fn privileges(old: Option<&Node>, new: &Node, after: &Manifest, out: &mut Vec<Impact>) {
    let (granted_before, hardened_before) = old.map(privileges_of).unwrap_or_default();
    let (granted, hardened) = privileges_of(new);
    let present: HashSet<&str> = containers(new)
        .filter_map(|c| text(c.get("name")))
        .collect();
    let gained: Vec<String> = granted
        .difference(&granted_before)
        .map(|(c, p)| shown(c, p))
        .collect();
    let lost: Vec<String> = hardened_before
        .difference(&hardened)
        .filter(|(c, _)| c.is_empty() || present.contains(c.as_str()))
        .map(|(c, p)| shown(c, p))
        .collect();
    let mut parts = Vec::new();
    if !gained.is_empty() {
        parts.push(format!("gains {}", listed(&gained)));
    }
    if !lost.is_empty() {
        parts.push(format!("loses its hardening: {}", listed(&lost)));
    }
    if !parts.is_empty() {
        let why = format!("its pods: {}", parts.join("; "));
        out.push(Impact::new(Level::Security, Class::Security, after, why));
    }
}

fn shown(container: &str, what: &str) -> String {
    if container.is_empty() {
        what.to_owned()
    } else {
        format!("{what} ({container})")
    }
}

/// (container, what): the container empty for the pod.
type Facts = BTreeSet<(String, String)>;

/// What a pod spec grants (host namespaces, hostPath, privileged, added
/// capabilities, escalation, root, Unconfined seccomp or AppArmor, a host
/// port, a Windows host process: what Pod Security's baseline forbids) and
/// what hardens it
/// (non-root, no escalation, ALL dropped, read-only root, confined seccomp),
/// per container where the container decides.
fn privileges_of(spec: &Node) -> (Facts, Facts) {
    let (mut granted, mut hardened) = (Facts::new(), Facts::new());
    let pod = |what: &str| (String::new(), what.to_owned());
    for key in ["hostNetwork", "hostPID", "hostIPC"] {
        if is_true(spec.get(key)) {
            granted.insert(pod(key));
        }
    }
    for volume in items(spec.get("volumes")) {
        if let Some(path) = text(at(volume, &["hostPath", "path"])) {
            granted.insert(pod(&format!("hostPath {path}")));
        }
    }
    let pod_context = spec.get("securityContext");
    for c in containers(spec) {
        let name = text(c.get("name")).unwrap_or_default().to_owned();
        let context = c.get("securityContext");
        let own = |key: &str| context.and_then(|s| s.get(key));
        let either = |key: &str| own(key).or_else(|| pod_context.and_then(|s| s.get(key)));
        let mut grant = |what: String| granted.insert((name.clone(), what));
        if is_true(own("privileged")) {
            grant("privileged".to_owned());
        }
        if is_true(own("allowPrivilegeEscalation")) {
            grant("allowPrivilegeEscalation".to_owned());
        }
        for cap in added_capabilities(c) {
            grant(format!("capability {cap}"));
        }
        if matches!(
            either("runAsUser").map(|n| &n.value),
            Some(crate::yaml::Value::Int(0))
        ) {
            grant("runAsUser 0".to_owned());
        }
        if text(own("procMount")) == Some("Unmasked") {
            grant("procMount Unmasked".to_owned());
        }
        let seccomp = text(either("seccompProfile").and_then(|s| s.get("type")));
        if seccomp == Some("Unconfined") {
            grant("seccomp Unconfined".to_owned());
        }
        if text(either("appArmorProfile").and_then(|s| s.get("type"))) == Some("Unconfined") {
            grant("AppArmor Unconfined".to_owned());
        }
        if is_true(either("windowsOptions").and_then(|w| w.get("hostProcess"))) {
            grant("Windows hostProcess".to_owned());
        }
        for port in items(c.get("ports")) {
            // 0 is no host port, as Pod Security counts it.
            if let Some(crate::yaml::Value::Int(host)) = port.get("hostPort").map(|p| &p.value)
                && *host != 0
            {
                grant(format!("hostPort {host}"));
            }
        }
        let mut harden = |what: &str| hardened.insert((name.clone(), what.to_owned()));
        if is_true(either("runAsNonRoot")) {
            harden("runAsNonRoot");
        }
        if is_false(own("allowPrivilegeEscalation")) {
            harden("allowPrivilegeEscalation: false");
        }
        if items(own("capabilities").and_then(|c| c.get("drop")))
            .iter()
            .any(|d| text(Some(d)) == Some("ALL"))
        {
            harden("drops ALL capabilities");
        }
        if is_true(own("readOnlyRootFilesystem")) {
            harden("readOnlyRootFilesystem");
        }
        if matches!(seccomp, Some("RuntimeDefault" | "Localhost")) {
            harden("seccomp confined");
        }
    }
    (granted, hardened)
}

/// The Kyverno exemptions artifacts of both sides (merged per side, see
/// [`crate::input::merged_exemptions`]): a namespace that joins a policy's
/// `excludedNamespaces` is a policy relaxed there.
pub(crate) fn exemptions(before: &Json, after: &Json) -> Vec<Impact> {
    let listed_in = |artifact: &Json, policy: &str| -> BTreeSet<String> {
        artifact[policy]["excludedNamespaces"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|ns| ns.as_str().map(str::to_owned))
            .collect()
    };
    let mut out = Vec::new();
    for policy in after.as_object().into_iter().flatten().map(|(k, _)| k) {
        let added: Vec<String> = listed_in(after, policy)
            .difference(&listed_in(before, policy))
            .cloned()
            .collect();
        if added.is_empty() {
            continue;
        }
        out.push(Impact {
            level: Level::Security,
            class: Class::Security,
            object: crate::input::EXEMPTIONS_FILE.to_owned(),
            from: None,
            why: format!(
                "Kyverno exemption relaxed: policy {policy} newly excludes {} {}: it no longer applies there",
                if added.len() == 1 { "namespace" } else { "namespaces" },
                listed(&added)
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Node {
        let source = crate::yaml::Source::file("t", text);
        crate::yaml::parse_document(&source, crate::yaml::Limits::VALUES)
            .unwrap()
            .unwrap()
    }

    /// A rule of many groups and resources is named in a short line, not
    /// groups × resources of them.
    #[test]
    fn a_rule_is_named_in_a_bounded_line() {
        let list = |prefix: &str| {
            (0..2000)
                .map(|i| format!("{prefix}{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let big = rule(&format!(
            "{{apiGroups: [{}], resources: [{}], verbs: [{}]}}",
            list("g"),
            list("r"),
            list("v")
        ));
        let words = rule_in_words(&big);
        assert!(words.len() < 200, "{words}");
        assert!(words.ends_with(" and 3999994 more"), "{words}");
        let small = rule("{apiGroups: [''], resources: [secrets], verbs: [get]}");
        assert_eq!(rule_in_words(&small), "get on secrets");
        let urls = rule("{nonResourceURLs: [/metrics], verbs: [get]}");
        assert_eq!(rule_in_words(&urls), "get on /metrics");
    }

    /// What Pod Security's baseline level forbids counts as a privilege:
    /// a port of the node (hostPort), AppArmor unconfined, a Windows host
    /// process, as well as the rest.
    #[test]
    fn baseline_violations_are_privileges() {
        let spec = rule(
            "{securityContext: {appArmorProfile: {type: Unconfined}}, containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}], securityContext: {windowsOptions: {hostProcess: true}}}]}",
        );
        let (granted, _) = privileges_of(&spec);
        let granted: Vec<String> = granted.iter().map(|(c, p)| shown(c, p)).collect();
        assert_eq!(
            granted,
            [
                "AppArmor Unconfined (c)",
                "Windows hostProcess (c)",
                "hostPort 8080 (c)"
            ]
        );
    }

    fn cluster_role(label: &str, rules: &str) -> Manifest {
        let text = format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n  labels: {{rbac.authorization.k8s.io/aggregate-to-{label}: 'true'}}\nrules: [{rules}]\n"
        );
        crate::input::parse("t", &text).unwrap().manifests.remove(0)
    }

    /// Roles aggregated into before gain only the new rules; roles newly
    /// aggregated into gain every rule. Moving the label from `edit` to
    /// `view` gains `view` its rules, and nothing for `edit` and `admin`,
    /// which had them.
    #[test]
    fn aggregation_gains_are_per_role_reached() {
        let secrets = "{apiGroups: [''], resources: [secrets], verbs: [get]}";
        let pods = "{apiGroups: [''], resources: [pods], verbs: [list]}";
        let whys = |before: &Manifest, after: &Manifest| {
            let mut out = Vec::new();
            aggregated(Some(before), after, &mut out);
            out.into_iter().map(|i| i.why).collect::<Vec<_>>()
        };
        let edit = cluster_role("edit", secrets);
        assert_eq!(
            whys(&edit, &cluster_role("view", secrets)),
            [
                "aggregated into the built-in ClusterRoles view (in every cluster, not in this set): every subject bound to them gains get on secrets"
            ]
        );
        assert_eq!(
            whys(&edit, &cluster_role("view", &format!("{secrets}, {pods}"))),
            [
                "aggregated into the built-in ClusterRoles view (in every cluster, not in this set): every subject bound to them gains get on secrets; list on pods",
                "aggregated into the built-in ClusterRoles edit, admin (in every cluster, not in this set): every subject bound to them gains list on pods",
            ]
        );
        assert!(whys(&cluster_role("view", secrets), &edit).is_empty());
    }
}
