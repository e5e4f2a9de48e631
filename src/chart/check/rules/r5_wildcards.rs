//! R5: no wildcards: every grant names its API groups, resources and verbs.

use super::grants::{Grants, rule_path};
use crate::check::{Findings, Invariant};

/// Checks R5 on every role's rules.
pub(super) fn check(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (role, r, rule) in grants.role_rules() {
        let fields = [
            ("apiGroups", &rule.groups),
            ("resources", &rule.resources),
            ("verbs", &rule.verbs),
            ("nonResourceURLs", &rule.urls),
        ];
        for (field, values) in fields {
            if values.iter().any(|v| v.contains('*')) {
                findings.report(
                    Invariant::R5,
                    role.index,
                    &rule_path(r, field),
                    format!("a wildcard in {field}; name what is granted"),
                );
            }
        }
    }
}
