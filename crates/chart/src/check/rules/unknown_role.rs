//! ROLE: a binding whose role's permissions cannot be read: the role is
//! neither in the input nor one of the cluster's default roles, or it
//! aggregates ClusterRoles the input cannot show.

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;

/// ROLE: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "ROLE",
        title: "Every bound role is known",
        help: "A binding's role is read from the input or, for the roles every cluster has, from chartgen's table of Kubernetes' default roles (`cluster-admin`, `admin`, `edit`, `view`, the `system:*` and controller roles; `admin`, `edit` and `view` with what the input's ClusterRoles labelled `rbac.authorization.k8s.io/aggregate-to-*` add to them): what those grant is checked like any other grant. A binding to a role that is neither grants permissions nobody can review here, and is a finding, never read as empty. So is a binding to an aggregated ClusterRole of the input (a non-empty `aggregationRule`): the aggregation controller fills it from every ClusterRole of the cluster its selectors match, other applications' included, not only from the input and the default roles.",
        example: "ROLE ClusterRoleBinding admin roleRef: binds ClusterRole platform-superuser, which is neither in the input nor one of the cluster's default roles; its permissions cannot be checked",
        doc: DOC,
    },
    section: 210,
    rank: 30,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: Some("roles that are not in the input"),
};

/// Checks every binding's role.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    let rbac = &grants.rbac;
    for &binding in &rbac.unbound {
        let role_ref = &context.objects[binding].field("roleRef");
        let message = format!(
            "binds {} {}, which is neither in the input nor one of the cluster's default roles; its permissions cannot be checked",
            role_ref.field("kind").as_str().unwrap_or("(no kind)"),
            role_ref.field("name").as_str().unwrap_or("(no name)")
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
        let selectors = role
            .field("aggregationRule")
            .field("clusterRoleSelectors")
            .as_array();
        if !rbac.aggregated[binding.role] || selectors.is_none_or(Vec::is_empty) {
            continue;
        }
        let message = format!(
            "binds ClusterRole {}, which aggregates every ClusterRole of the cluster its selectors match, not only those in the input and the cluster's default roles (cluster-admin's rules among them when a selector matches its labels); its permissions cannot be checked",
            role.field("metadata")
                .field("name")
                .as_str()
                .unwrap_or("(no name)")
        );
        findings.report(
            Invariant::UnknownRole,
            binding.index,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
}
