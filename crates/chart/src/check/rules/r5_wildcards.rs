//! R5: no wildcards: every grant names its API groups, resources and verbs.

use super::grants::{Grants, rule_path, wildcard_fields};
use crate::check::{Findings, Invariant};

/// Checks R5 on every role's rules.
pub(super) fn check(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (role, r, rule) in grants.role_rules() {
        for field in wildcard_fields(rule) {
            findings.report(
                Invariant::R5,
                role.index,
                &rule_path(r, field),
                format!("a wildcard in {field}; name what is granted"),
            );
        }
    }
}
