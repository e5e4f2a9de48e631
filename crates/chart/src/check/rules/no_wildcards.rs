//! R5: no wildcards: every grant names its API groups, resources and verbs.

use super::shared::grants::{rule_path, wildcard_fields};
use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;

/// R5: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R5",
        title: "No wildcards",
        help: "Every grant of the operator's roles names its API groups, resources, verbs and non-resource URLs; `*` would grant what no review saw, including resources added to the cluster later. Another application's roles are not held to the ADRs: their wildcards are GRANT findings, so a wildcard is reported once, under one rule.",
        example: "R5 Role buildkit-builds/buildkit-daemons rules[2].verbs: a wildcard in verbs; name what is granted",
        doc: DOC,
    },
    section: 50,
    rank: 90,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks R5 on every role's rules.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let grants = inputs.grants();
    for (role, r, rule) in grants.role_rules() {
        for field in wildcard_fields(rule) {
            findings.report(
                Invariant::NoWildcards,
                role.index,
                &rule_path(r, field),
                format!("a wildcard in {field}; name what is granted"),
            );
        }
    }
}
