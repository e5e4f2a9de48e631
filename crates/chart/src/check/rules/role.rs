//! ROLE: a binding whose role's permissions cannot be read: the role is
//! neither in the input nor one of the cluster's default roles, or it
//! aggregates ClusterRoles the input cannot show.

use super::grants::Grants;
use crate::check::{Context, Findings, Invariant};
use kubernetes::diagnostic::KeyPath;

/// Checks every binding's role.
pub(super) fn check(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    for &binding in &rbac.unbound {
        let role_ref = &context.objects[binding]["roleRef"];
        let message = format!(
            "binds {} {}, which is neither in the input nor one of the cluster's default roles; its permissions cannot be checked",
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
    // ClusterRole of the cluster its selectors match: the input's and the
    // default roles are read, but other applications' ClusterRoles in the
    // cluster can match too, so what a binding to it grants cannot be
    // bounded from the input. The default aggregated roles (admin, edit,
    // view) are the cluster's own and known.
    for binding in &rbac.bindings {
        let Some(&index) = rbac.roles.get(binding.role) else {
            continue;
        };
        let role = &context.objects[index];
        let selectors = role["aggregationRule"]["clusterRoleSelectors"].as_array();
        if !rbac.aggregated[binding.role] || selectors.is_none_or(Vec::is_empty) {
            continue;
        }
        let message = format!(
            "binds ClusterRole {}, which aggregates every ClusterRole of the cluster its selectors match, not only those in the input and the cluster's default roles (cluster-admin's rules among them when a selector matches its labels); its permissions cannot be checked",
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
