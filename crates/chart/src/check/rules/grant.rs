//! GRANT: grants that let their holder give itself more, in any role of
//! the input, the operator's or another application's: `escalate` and
//! `bind` on roles, `impersonate` on users, groups, ServiceAccounts, uids
//! and user extras, ServiceAccount tokens, wildcards (in another application's roles: R5 reports
//! them in the operator's), and a ClusterRole aggregated into the built-in
//! tenant roles that aggregates others itself (R4 in the operator's).

use super::shared::grants::{Grants, aggregated_into, rule_path, wildcard_fields};
use super::{DOC, Definition, Inputs};
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::PolicyRule;

/// GRANT: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "GRANT",
        title: "No role grants its holder more than it shows",
        help: "Generic, for every role in the input, the buildkit operator's or another application's, whoever it is bound to: `escalate` or `bind` on roles and clusterroles (write or bind a role granting more than the holder has, cluster-admin included), `impersonate` on users, groups, serviceaccounts, uids or userextras (act as someone else), `create` on `serviceaccounts/token` (mint a ServiceAccount's token and act as it), each as the authorizer matches a request (`*`, the resource itself, `*/<subresource>`: `clusterroles/finalizers` is not `clusterroles`, `pods/*` matches nothing, `userextras/*` names the extra `*`), and a ClusterRole aggregated into `view`, `edit` or `admin` that aggregates other ClusterRoles itself (every tenant gets whatever its selectors match in the cluster). Wildcards (`*` in apiGroups, resources, verbs, nonResourceURLs; a `*` verb includes escalate, bind and impersonate) are GRANT findings in another application's roles; in the operator's roles they are R5 (and the tenant aggregation R4), so each is reported once. `resourceNames` patterns (cert-manager's `issuers.cert-manager.io/*` signer names) are names, not wildcards.",
        example: "GRANT ClusterRole ci-admin rules[0].verbs: grants bind on clusterroles.rbac.authorization.k8s.io: its holder can bind any role, cluster-admin included, to anyone, itself too",
        doc: DOC,
    },
    section: 220,
    rank: 40,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: Some("grants that escalate"),
};

/// The RBAC API group, where `escalate` and `bind` apply.
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// Verbs that let their holder widen its own permissions: the verbs (any
/// one of them), the (group, resource) pairs they act on, and what they let
/// the holder do.
type Escalating = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    &'static str,
);

/// Each verb that lets its holder widen its own permissions (Kubernetes'
/// RBAC good practices, "Privilege escalation risks").
const ESCALATING: [Escalating; 4] = [
    (
        &["escalate"],
        &[(RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")],
        "write roles granting more than it holds",
    ),
    (
        &["bind"],
        &[(RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")],
        "bind any role, cluster-admin included, to anyone, itself too",
    ),
    (
        &["impersonate"],
        &[
            ("", "users"),
            ("", "groups"),
            ("", "serviceaccounts"),
            ("authentication.k8s.io", "uids"),
            ("authentication.k8s.io", "userextras"),
        ],
        "act as another user, group or ServiceAccount, with its permissions",
    ),
    (
        &["create"],
        &[("", "serviceaccounts/token")],
        "mint a token for a ServiceAccount and act as it, with its permissions",
    ),
];

/// Checks GRANT on every role.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    if grants.rbac.over_links {
        let budget = kubernetes::rbac::resolve::LINK_BUDGET;
        findings.note(
            "ClusterRoles".to_owned(),
            format!("the aggregation selectors of the input's ClusterRoles match more than {budget} roles together (the link budget): aggregation was followed only that far, so what an aggregated ClusterRole holds was not verified"),
        );
    }
    for (role, r, rule) in grants.all_role_rules() {
        for (verbs, targets, what) in ESCALATING {
            let on: Vec<String> = targets
                .iter()
                .filter(|(group, resource)| rule.any_group(&[group]) && reaches(rule, resource))
                .map(|(group, resource)| kubernetes::rbac::resolve::resource_name(group, resource))
                .collect();
            let granted: Vec<&str> = (verbs.iter().copied())
                .filter(|verb| rule.verbs.iter().any(|v| v == verb))
                .collect();
            if !granted.is_empty() && !on.is_empty() {
                findings.report(
                    Invariant::Grant,
                    role.index,
                    &rule_path(r, "verbs"),
                    format!(
                        "grants {} on {}: its holder can {what}",
                        granted.join(" and "),
                        on.join(", ")
                    ),
                );
            }
        }
        if role.in_scope {
            continue;
        }
        for field in wildcard_fields(rule) {
            findings.report(
                Invariant::Grant,
                role.index,
                &rule_path(r, field),
                format!(
                    "a wildcard in {field} grants what no review saw, including what the cluster adds later (with verbs, escalate, bind and impersonate); name what is granted"
                ),
            );
        }
    }
    tenant_aggregation(context, grants, findings);
}

/// Whether `rule` reaches `resource` as the authorizer asks for it: the
/// RBAC and impersonation checks name the resource alone
/// (`clusterroles`, `users`), but an extra's impersonation names its key
/// as a subresource (`userextras/scopes`), which `*/scopes` matches too;
/// `userextras/*` is no wildcard (`ResourceMatches` reads one only before
/// the `/`): it names the key `*`, which no extra has.
fn reaches(rule: &PolicyRule, resource: &str) -> bool {
    match resource {
        "userextras" => rule.resources.iter().any(|r| {
            r == "*"
                || r.starts_with("userextras/") && r != "userextras/*"
                || r.len() > 2 && r.starts_with("*/")
        }),
        _ => rule.any_resource(resource),
    }
}

/// A ClusterRole aggregated into `view`, `edit` or `admin` that aggregates
/// other ClusterRoles itself: every tenant gets whatever its selectors
/// match in the cluster. In the operator's roles R4 reports it.
fn tenant_aggregation(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for role in grants.roles.iter().filter(|r| r.cluster && !r.in_scope) {
        let object = &context.objects[role.index];
        let aggregated = aggregated_into(object);
        let selects = object
            .field("aggregationRule")
            .field("clusterRoleSelectors")
            .as_array()
            .is_some_and(|s| !s.is_empty());
        if aggregated.is_empty() || !selects {
            continue;
        }
        findings.report(
            Invariant::Grant,
            role.index,
            &KeyPath::dotted("aggregationRule"),
            format!(
                "aggregated into {}, it aggregates other ClusterRoles itself: every tenant gets whatever its selectors match in the cluster",
                aggregated.join(", ")
            ),
        );
    }
}
