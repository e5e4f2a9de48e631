//! R2: no role reads, updates or deletes events (ADR-2647).

use super::grants::{Grants, names_events, rule_path};
use crate::check::rbac::resolve::Rule;
use crate::check::{Context, Findings, Invariant};
use crate::plan::adr;
use kubernetes::diagnostic::KeyPath;

/// Checks R2 on every role's rules that name events, and on the default
/// roles the operator's bindings grant.
pub(super) fn check(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let writes = adr::EVENT_VERBS.map(|v| v.name());
    let extra = |rule: &Rule| -> Vec<String> {
        if !names_events(rule) {
            return Vec::new();
        }
        rule.verbs
            .iter()
            .filter(|v| !writes.contains(&v.as_str()))
            .cloned()
            .collect()
    };
    for (binding, rule) in grants.default_role_rules(context) {
        let extra = extra(rule);
        if !extra.is_empty() {
            findings.report(
                Invariant::R2,
                binding.index,
                &KeyPath::root().key("roleRef"),
                format!(
                    "binds a default role that grants {} on events; events are write-only: {} (ADR-2647)",
                    extra.join(", "),
                    writes.join(" and ")
                ),
            );
        }
    }
    for (role, r, rule) in grants.role_rules() {
        let extra = extra(rule);
        if !extra.is_empty() {
            findings.report(
                Invariant::R2,
                role.index,
                &rule_path(r, "verbs"),
                format!(
                    "grants {} on events; events are write-only: {} (ADR-2647)",
                    extra.join(", "),
                    writes.join(" and ")
                ),
            );
        }
    }
}
