//! What may do more than before: effective permissions (computed once, by
//! the diff's RBAC summary, `rbac_changes` in `diff/mod.rs`, with
//! [`crate::rbac`]'s model, and grouped here per subject, with the bindings
//! that grant them), a workload's pods running as an account that may do
//! more, rules reaching the built-in user-facing roles through
//! aggregation, Kyverno PolicyExceptions.
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
//! Pods, Pod Security labels, Kyverno policies' rules and NetworkPolicies
//! are judged by their models in [`super::pods`] and [`super::policies`].
//!
//! Kyverno: a `PolicyException` (kyverno.io) lifts the policies it names
//! from what it matches; a policy whose `validationFailureAction` (or a
//! rule's `validate.failureAction`) goes from `Enforce` to `Audit` stops
//! refusing. What a caller's artifact does (such as a list of the
//! namespaces a policy excludes) is the caller's to say
//! ([`crate::diff::Artifact`]).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::tree::{at, entries, is, items, text};
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
    /// Through which bindings and roles (and groups), as `rbac` says.
    pub(crate) via: Vec<String>,
}

/// What each ServiceAccount may do on one side: (namespace, name) to
/// (what, in scope; verb), as the `rbac` command's model says.
pub(crate) type Held = BTreeMap<(String, String), BTreeSet<(String, String)>>;

/// The permission model's answers for both sides.
#[derive(Default)]
pub(crate) struct PermissionModel {
    /// Each subject's gains and losses.
    pub(crate) changes: Vec<PermissionChange>,
    /// Before.
    pub(crate) before: Held,
    /// After.
    pub(crate) after: Held,
    /// Set when the permissions were not compared (past the grant
    /// budget): then what may gain is judged by the objects alone
    /// ([`unknown`]), so that an input cannot switch off the gate that
    /// judges it.
    pub(crate) not_compared: bool,
}

/// Why a gain cannot be ruled out, past the grant, entry or link budget.
fn not_compared() -> String {
    use crate::rbac::resolve::{ENTRY_BUDGET, GRANT_BUDGET, LINK_BUDGET};
    format!(
        "the effective permissions were not compared (more than the grant budget of {GRANT_BUDGET} grants, the entry budget of {ENTRY_BUDGET} verbs and resource names, or the link budget of {LINK_BUDGET} roles matched by aggregation), so what it grants cannot be ruled out"
    )
}

/// The ServiceAccount the pods of a workload (or a Pod) run as
/// ([`crate::tree::runs_as`]).
pub(super) fn runs_as(object: &Manifest) -> Option<String> {
    let spec = super::workload::pod_spec(object)?;
    Some(crate::tree::runs_as(spec).to_owned())
}

/// A changed workload whose pods run as another ServiceAccount that may do
/// more than the one they ran as: what its pods gain.
pub(super) fn identity(
    before: &Manifest,
    after: &Manifest,
    model: &PermissionModel,
    out: &mut Vec<Impact>,
) {
    let (Some(was), Some(is)) = (runs_as(before), runs_as(after)) else {
        return;
    };
    // A manifest that names no account keeps the one the server stored,
    // where the old one wrote one of the two fields.
    let unnamed = super::workload::pod_spec(after)
        .is_some_and(|s| crate::tree::named_account(s).is_none())
        && super::workload::pod_spec(before).is_some_and(crate::tree::account_kept);
    if was == is || unnamed {
        return;
    }
    let ns = after.id.namespace.clone().unwrap_or_default();
    if model.not_compared {
        let why = format!(
            "its pods run as ServiceAccount {ns}/{is} instead of {ns}/{was}; {}",
            not_compared()
        );
        out.push(Impact::new(Level::Security, Class::Security, after, why));
        return;
    }
    let empty = BTreeSet::new();
    let old = model
        .before
        .get(&(ns.clone(), was.clone()))
        .unwrap_or(&empty);
    let new = model.after.get(&(ns.clone(), is.clone())).unwrap_or(&empty);
    let mut gained: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (what, verb) in new.difference(old) {
        gained.entry(what).or_default().push(verb);
    }
    if gained.is_empty() {
        return;
    }
    let words: Vec<String> = gained
        .iter()
        .map(|(what, verbs)| format!("{} on {what}", verbs.join(", ")))
        .collect();
    let why = format!(
        "its pods run as ServiceAccount {ns}/{is} instead of {ns}/{was}, and gain {}",
        joined(&words)
    );
    out.push(Impact::new(Level::Security, Class::Security, after, why));
}

/// One impact per subject and direction: gains are `security`, losses a
/// `change` (a workload relying on them fails).
pub(super) fn permissions(changes: &[PermissionChange], out: &mut Vec<Impact>) {
    /// What one subject gains (or loses), and through which bindings.
    type Said<'a> = (Vec<&'a str>, BTreeSet<&'a str>);
    let mut by_subject: BTreeMap<(&str, bool), Said<'_>> = BTreeMap::new();
    for c in changes {
        let entry = by_subject.entry((c.subject.as_str(), c.gains)).or_default();
        entry.0.push(&c.what);
        if c.gains {
            entry.1.extend(c.via.iter().map(String::as_str));
        }
    }
    for ((subject, gains), (what, via)) in by_subject {
        let why = joined(&what);
        let via: Vec<&str> = via.into_iter().collect();
        let (level, why) = if gains {
            (
                Level::Security,
                format!("gains {why} (through {})", joined(&via)),
            )
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

/// Past the grant budget: every added or changed role or binding, and
/// every added ServiceAccount (which the groups' bindings reach), may
/// grant more than before, as far as the diff can tell, so each is a
/// `security` impact. A removal grants nothing (RBAC only adds).
pub(super) fn unknown(
    model: &PermissionModel,
    added: &[&Manifest],
    changed: &[(&Manifest, &Manifest)],
    out: &mut Vec<Impact>,
) {
    if !model.not_compared {
        return;
    }
    let grants = |object: &Manifest| {
        let rbac = object.id.group == "rbac.authorization.k8s.io"
            && ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]
                .contains(&object.id.kind.as_str());
        rbac || is(object, "", "ServiceAccount")
    };
    let objects = (added.iter().copied()).chain(changed.iter().map(|&(_, after)| after));
    for object in objects.filter(|o| grants(o)) {
        out.push(Impact::new(
            Level::Security,
            Class::Security,
            object,
            not_compared(),
        ));
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

/// New objects that relax security by being there: a ClusterRole
/// aggregated into the built-in roles, a Kyverno PolicyException.
pub(super) fn added(added: &[&Manifest], out: &mut Vec<Impact>) {
    for object in added {
        aggregated(None, object, out);
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
    if after.id.group == "kyverno.io" {
        kyverno(after, fields, out);
    }
}

const AGGREGATE: &str = "rbac.authorization.k8s.io/aggregate-to-";

/// The built-in roles a ClusterRole's labels aggregate it into, `view`
/// first.
fn aggregated_into(role: &Manifest) -> Vec<&'static str> {
    let labelled = |to: &str| {
        entries(at(role.node(), &["metadata", "labels"])).any(|(key, value)| {
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
        .flat_map(|r| {
            groups
                .iter()
                .map(move |g| crate::rbac::resolve::resource_name(g, r))
        })
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
        items(role.node().get("rules"))
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

/// A Kyverno PolicyException changed: what it exempts may be wider (the
/// policies' own rules are compared in [`super::policies`]).
fn kyverno(after: &Manifest, fields: &[FieldChange], out: &mut Vec<Impact>) {
    if after.id.kind == "PolicyException"
        && fields
            .iter()
            .any(|f| f.steps.first().is_some_and(|s| s == "spec"))
    {
        let why = "Kyverno PolicyException changed: what it exempts may be wider".to_owned();
        out.push(Impact::new(Level::Security, Class::Security, after, why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Node {
        let source = crate::location::Source::file("t", text);
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
