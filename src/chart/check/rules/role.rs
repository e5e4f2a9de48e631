//! ROLE: a binding whose role's permissions cannot be read from the input
//! (the role is not in it, or it aggregates the cluster's ClusterRoles).

use super::grants::Grants;
use crate::check::{Context, Findings, Invariant};
use crate::diagnostic::KeyPath;

/// Checks every binding's role.
pub(super) fn check(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    for &binding in &rbac.unbound {
        let role_ref = &context.objects[binding]["roleRef"];
        let message = format!(
            "binds {} {}, which is not in the input; its permissions cannot be checked",
            role_ref["kind"].as_str().unwrap_or("(no kind)"),
            role_ref["name"].as_str().unwrap_or("(no name)")
        );
        findings.report(
            Invariant::UnknownRole,
            binding,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
    // The aggregation controller fills an aggregated ClusterRole from every
    // ClusterRole of the cluster its selectors match, the built-in ones
    // included (each carries kubernetes.io/bootstrapping: rbac-defaults):
    // what a binding to it grants cannot be read from the input.
    for binding in &rbac.bindings {
        let role = &context.objects[rbac.roles[binding.role]];
        let selectors = role["aggregationRule"]["clusterRoleSelectors"].as_array();
        if !rbac.aggregated[binding.role] || selectors.is_none_or(Vec::is_empty) {
            continue;
        }
        let message = format!(
            "binds ClusterRole {}, which aggregates every ClusterRole of the cluster its selectors match, not only those in the input (the built-in roles, cluster-admin's rules among them, carry labels a selector can match); its permissions cannot be checked",
            role["metadata"]["name"].as_str().unwrap_or("(no name)")
        );
        findings.report(
            Invariant::UnknownRole,
            binding.index,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
}
